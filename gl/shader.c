/* shader.c - see shader.h. */
#define _GNU_SOURCE
#include "gl/shader.h"
#include "core/util.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STR_(x) #x
#define STR(x) STR_(x)

#define LIB_LINE_BASE 100000

static bool dir_has_shaders(const char *dir)
{
    char p[4300];
    snprintf(p, sizeof p, "%s/update2d.glsl", dir);
    return access(p, R_OK) == 0;
}

void gl_shader_dir(const char *configured, char *out, size_t len)
{
    const char *env = getenv("TEXFDTD_SHADER_DIR");
    if (configured && *configured) {
        snprintf(out, len, "%s", configured);
        return;
    }
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char cand[4200];
        snprintf(cand, sizeof cand, "%s/../shaders", dirname(exe));
        if (dir_has_shaders(cand)) {
            snprintf(out, len, "%s", cand);
            return;
        }
    }
#ifdef TEXFDTD_SHADER_DIR_DEFAULT
    if (dir_has_shaders(STR(TEXFDTD_SHADER_DIR_DEFAULT))) {
        snprintf(out, len, "%s", STR(TEXFDTD_SHADER_DIR_DEFAULT));
        return;
    }
#endif
    snprintf(out, len, "shaders");
}

static char *read_text(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        seterr(err, errlen,
               "cannot read shader %s: %s (set the shader directory with TEXFDTD_SHADER_DIR)",
               path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? xcalloc((size_t)n + 1, 1, "shader text", err, errlen) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        seterr(err, errlen, "cannot read shader %s: short read", path);
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

static GLenum stage_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot && !strcmp(dot, ".vert"))
        return GL_VERTEX_SHADER;
    if (dot && !strcmp(dot, ".frag"))
        return GL_FRAGMENT_SHADER;
    if (dot && !strcmp(dot, ".comp"))
        return GL_COMPUTE_SHADER;
    return 0;
}

/* First error of a compile log, as `file:line: message`.  Two log dialects:
 * Mesa "0:12(5): error: ..." and NVIDIA "2(12) : error C1008: ...".  Mesa
 * prints source-string number 0 whatever #line said, so the library is told
 * apart by its line numbers instead: it starts at LIB_LINE_BASE + 1. */
static void first_error(const char *log, const char *lib_path, const char *file_path, char *err,
                        size_t errlen)
{
    const char *line = log;
    bool have = false;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
        int src = -1, ln = -1, col = -1, off = 0;
        if ((sscanf(buf, "%d:%d(%d): %n", &src, &ln, &col, &off) == 3 && off > 0)
            || (sscanf(buf, "%d(%d) : %n", &src, &ln, &off) == 2 && off > 0)) {
            const bool is_error = strstr(buf + off, "error") != NULL;
            if (is_error || !have) {
                const bool in_lib = lib_path && ln > LIB_LINE_BASE;
                seterr(err, errlen, "%s:%d: %s", in_lib ? lib_path : file_path,
                       in_lib ? ln - LIB_LINE_BASE : ln, buf + off);
                have = true;
                if (is_error)
                    return;
            }
        } else if (!have && len > 0) {
            seterr(err, errlen, "%s: %s", file_path, buf);
            have = true;
        }
        line = end ? end + 1 : NULL;
    }
    if (!have)
        seterr(err, errlen, "%s: compile failed (empty log)", file_path);
}

static int compile_one(const char *dir, const char *lib, const char *lib_text, const char *name,
                       const char *defines, GLuint *out, char *err, size_t errlen)
{
    char path[4200], lib_path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lib)
        snprintf(lib_path, sizeof lib_path, "%s/%s", dir, lib);
    const GLenum stage = stage_of(name);
    if (!stage)
        return seterr(err, errlen, "%s: unknown shader stage (expected .vert, .frag or .comp)",
                      path);
    char *text = read_text(path, err, errlen);
    if (!text)
        return -1;
    const size_t plen = strlen(GLSL_VERSION_LINE) + strlen(defines) + 32;
    char *pre = malloc(plen);
    if (lib)
        snprintf(pre, plen, "%s%s#line %d 1\n", GLSL_VERSION_LINE, defines, LIB_LINE_BASE + 1);
    else
        snprintf(pre, plen, "%s%s#line 1 2\n", GLSL_VERSION_LINE, defines);
    const char *src[4] = {pre, lib ? lib_text : "", lib ? "\n#line 1 2\n" : "", text};
    GLuint sh = glCreateShader(stage);
    glShaderSource(sh, 4, src, NULL);
    glCompileShader(sh);
    GLint ok = 0, loglen = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderiv(sh, GL_INFO_LOG_LENGTH, &loglen);
        char *log = calloc((size_t)loglen + 1, 1);
        glGetShaderInfoLog(sh, loglen, NULL, log);
        first_error(log, lib ? lib_path : NULL, path, err, errlen);
        free(log);
        glDeleteShader(sh);
    } else {
        *out = sh;
    }
    free(pre);
    free(text);
    return ok ? 0 : -1;
}

int gl_program_build(const char *dir, const char *lib, const char *const *stages, int nstages,
                     const char *defines, GLuint *out, char *err, size_t errlen)
{
    char *lib_text = NULL;
    if (lib) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dir, lib);
        if (!(lib_text = read_text(p, err, errlen)))
            return -1;
    }
    GLuint prog = glCreateProgram(), sh[4] = {0};
    int rc = 0;
    for (int k = 0; k < nstages && k < 4 && !rc; k++) {
        /* the library is for the pass itself, not the full-screen vertex stage */
        const bool vert = stage_of(stages[k]) == GL_VERTEX_SHADER;
        rc = compile_one(dir, vert ? NULL : lib, lib_text, stages[k], defines, &sh[k], err, errlen);
        if (!rc)
            glAttachShader(prog, sh[k]);
    }
    if (!rc) {
        glLinkProgram(prog);
        GLint ok = 0;
        glGetProgramiv(prog, GL_LINK_STATUS, &ok);
        if (!ok) {
            char log[1024] = "";
            glGetProgramInfoLog(prog, sizeof log, NULL, log);
            log[strcspn(log, "\n")] = 0;
            seterr(err, errlen, "%s/%s: link failed: %s", dir, stages[nstages - 1], log);
            rc = -1;
        }
    }
    for (int k = 0; k < nstages && k < 4; k++)
        if (sh[k])
            glDeleteShader(sh[k]);
    free(lib_text);
    if (rc) {
        glDeleteProgram(prog);
        return -1;
    }
    *out = prog;
    return 0;
}
