/* shader.c - see shader.h. */
#define _GNU_SOURCE
#include "gl/shader.h"
#include "core/util.h"

#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* Line numbers: the pass counts from 1, the library from LINE_BASE + 1, its
 * k-th include (k = 0, 1, ...) from (k + 2) LINE_BASE + 1. */
#define LINE_BASE 100000
#define MAX_INCLUDES 4
/* A compile and link that takes longer is an error where the driver lets us
 * wait for it (ARB/KHR_parallel_shader_compile), else a warning on stderr
 * while it goes on (TEXFDTD_GL_COMPILE_TIMEOUT_S overrides). */
#define COMPILE_TIMEOUT_S_DEFAULT 120.0

/* The library with its includes spliced in, and the files it came from:
 * path[0] the library, path[1 + k] its include k. */
struct glsl_lib {
    char *text;
    int nfiles;
    char path[1 + MAX_INCLUDES][4200];
};

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

/* Append n bytes of s to the growing string *out (length *len); false when
 * out of memory. */
static bool append(char **out, size_t *len, const char *s, size_t n)
{
    char *p = realloc(*out, *len + n + 1);
    if (!p)
        return false;
    memcpy(p + *len, s, n);
    *len += n;
    p[*len] = 0;
    *out = p;
    return true;
}

/* The file an include names: in the shader directory (an installed
 * texfdtd: make install copies core/yee.h there), else in ../core beside it
 * (the source tree). */
static bool find_include(const char *dir, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    if (access(path, R_OK) == 0)
        return true;
    snprintf(path, len, "%s/../core/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* Each double literal I_K(decimal) of an included file (core/incident.h)
 * as its exact bits, packDouble2x32(uvec2(lo, hi)), converted here by the C
 * library's strtod (correctly rounded): a GLSL compiler's own conversion of
 * a decimal LF literal need not be (the NVIDIA driver 580's is not: its
 * pi/2 of the sine's reduction came out an ulp off, docs/gl.md).  Anything
 * else in I_K( ) (the C prelude's "#define I_K(x) x") is left as it is.
 * A new string, or NULL when out of memory. */
static char *exact_literals(const char *text)
{
    size_t cap = strlen(text) + 1, len = 0;
    for (const char *p = text; (p = strstr(p, "I_K(")); p += 4)
        cap += 64;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const char *p = text; *p;) {
        const char *k = strstr(p, "I_K(");
        if (!k) {
            memcpy(out + len, p, strlen(p));
            len += strlen(p);
            break;
        }
        memcpy(out + len, p, (size_t)(k - p));
        len += (size_t)(k - p);
        char *end;
        const double v = strtod(k + 4, &end);
        if (end != k + 4 && *end == ')') {
            uint64_t b;
            memcpy(&b, &v, sizeof b);
            len += (size_t)sprintf(out + len, "packDouble2x32(uvec2(%uu, %uu))",
                                   (unsigned)(b & 0xffffffffu), (unsigned)(b >> 32));
            p = end + 1;
        } else {
            memcpy(out + len, k, 4);
            len += 4;
            p = k + 4;
        }
    }
    out[len] = 0;
    return out;
}

/* Read the library `name` and splice in each of its `#include "file"` lines
 * (GLSL has no #include of its own): the file's text between #line
 * directives, so that the driver's line numbers name the right file (see
 * LINE_BASE).  Includes do not nest: core/yee.h and the prelude have none. */
static int lib_load(const char *dir, const char *name, struct glsl_lib *lib, char *err,
                    size_t errlen)
{
    memset(lib, 0, sizeof *lib);
    snprintf(lib->path[0], sizeof lib->path[0], "%s/%s", dir, name);
    lib->nfiles = 1;
    char *raw = read_text(lib->path[0], err, errlen);
    if (!raw)
        return -1;
    size_t len = 0;
    int rc = 0, ln = 1;
    lib->text = calloc(1, 1);
    for (const char *line = raw; *line && !rc; ln++) {
        const char *end = strchr(line, '\n');
        const size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        char inc[256];
        if (sscanf(line, "#include \"%255[^\"\n]\"", inc) != 1) {
            if (!append(&lib->text, &len, line, n))
                rc = seterr(err, errlen, "out of memory for the shader text");
            line += n;
            continue;
        }
        if (lib->nfiles > MAX_INCLUDES)
            rc = seterr(err, errlen, "%s:%d: more than %d includes", lib->path[0], ln,
                        MAX_INCLUDES);
        else if (!find_include(dir, inc, lib->path[lib->nfiles], sizeof lib->path[0]))
            rc = seterr(err, errlen, "%s:%d: cannot find %s in %s or %s/../core", lib->path[0],
                        ln, inc, dir, dir);
        char *raw_inc = rc ? NULL : read_text(lib->path[lib->nfiles], err, errlen);
        char *text = raw_inc ? exact_literals(raw_inc) : NULL;
        if (!rc && !text)
            rc = raw_inc ? seterr(err, errlen, "out of memory for the shader text") : -1;
        free(raw_inc);
        if (!rc) {
            char before[64], after[64];
            snprintf(before, sizeof before, "#line %d %d\n", (lib->nfiles + 1) * LINE_BASE + 1,
                     lib->nfiles + 1);
            snprintf(after, sizeof after, "\n#line %d 1\n", LINE_BASE + ln + 1);
            if (!append(&lib->text, &len, before, strlen(before))
                || !append(&lib->text, &len, text, strlen(text))
                || !append(&lib->text, &len, after, strlen(after)))
                rc = seterr(err, errlen, "out of memory for the shader text");
            lib->nfiles++;
        }
        free(text);
        line += n;
    }
    free(raw);
    if (rc || !lib->text) {
        free(lib->text);
        lib->text = NULL;
        return rc ? rc : seterr(err, errlen, "out of memory for the shader text");
    }
    return 0;
}

/* First error of a compile log, as `file:line: message`.  Two log dialects:
 * Mesa "0:12(5): error: ..." and NVIDIA "2(12) : error C1008: ...".  Mesa
 * prints source-string number 0 whatever #line said, so the files are told
 * apart by their line numbers instead (LINE_BASE). */
static void first_error(const char *log, const struct glsl_lib *lib, const char *file_path,
                        char *err, size_t errlen)
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
                const int f = ln > 0 ? (ln - 1) / LINE_BASE : 0; /* 0: the pass */
                const bool in_lib = lib && f >= 1 && f <= lib->nfiles;
                seterr(err, errlen, "%s:%d: %s", in_lib ? lib->path[f - 1] : file_path,
                       in_lib ? ln - f * LINE_BASE : ln, buf + off);
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

static double compile_timeout_s(void)
{
    const char *v = getenv("TEXFDTD_GL_COMPILE_TIMEOUT_S");
    char *end;
    const double d = v && *v ? strtod(v, &end) : COMPILE_TIMEOUT_S_DEFAULT;
    return v && *v && (*end || d <= 0) ? COMPILE_TIMEOUT_S_DEFAULT : d;
}

/* Wait until the driver has finished compiling shader or linking program
 * `obj` (polling, where it compiles on threads of its own), and fail if that
 * took past `deadline` (now_seconds()): where it compiled in the call
 * itself, the call has returned by now and only the time is checked. */
static int wait_compiled(GLuint obj, bool program, double deadline, const char *what, char *err,
                         size_t errlen)
{
    const bool poll = GLEW_ARB_parallel_shader_compile || GLEW_KHR_parallel_shader_compile;
    GLint done = GL_TRUE;
    for (;;) {
        if (poll && program)
            glGetProgramiv(obj, GL_COMPLETION_STATUS_ARB, &done);
        else if (poll)
            glGetShaderiv(obj, GL_COMPLETION_STATUS_ARB, &done);
        if (done || now_seconds() > deadline)
            break;
        const struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    if (now_seconds() > deadline) {
        seterr(err, errlen,
               "%s: the GL driver took more than %.3g s %s it (%s; "
               "TEXFDTD_GL_COMPILE_TIMEOUT_S); nothing was run",
               what, compile_timeout_s(), program ? "to link" : "to compile",
               done ? "done by now" : "still at it");
        /* said now: tearing the context down may wait for the driver */
        log_warn("%s", err);
        return -1;
    }
    return 0;
}

/* A thread that warns on stderr when a build blocks in the driver (a driver
 * that compiles in glCompileShader or glLinkProgram themselves) longer than
 * the timeout: the call cannot be interrupted, but it is not silent. */
struct watchdog {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done, started;
    double seconds;
    const char *what;
};

static void *watchdog_run(void *arg)
{
    struct watchdog *w = arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)w->seconds;
    until.tv_nsec += (long)((w->seconds - (double)(time_t)w->seconds) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->mu);
    int rc = 0;
    while (!w->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w->cv, &w->mu, &until);
    if (!w->done)
        log_warn("%s: the GL driver has been compiling for more than %.3g s and has not "
                 "returned (TEXFDTD_GL_COMPILE_TIMEOUT_S); still waiting for it",
                 w->what, w->seconds);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void watchdog_start(struct watchdog *w, double seconds, const char *what)
{
    memset(w, 0, sizeof *w);
    w->seconds = seconds;
    w->what = what;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->started = pthread_create(&w->thread, NULL, watchdog_run, w) == 0;
}

static void watchdog_stop(struct watchdog *w)
{
    pthread_mutex_lock(&w->mu);
    w->done = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (w->started)
        pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
}

static int compile_one(const char *dir, const struct glsl_lib *lib, const char *name,
                       const char *defines, const char *tail, double deadline, GLuint *out,
                       char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
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
        snprintf(pre, plen, "%s%s#line %d 1\n", GLSL_VERSION_LINE, defines, LINE_BASE + 1);
    else
        snprintf(pre, plen, "%s%s#line 1 0\n", GLSL_VERSION_LINE, defines);
    const char *src[5] = {pre, lib ? lib->text : "", lib ? "\n#line 1 0\n" : "", text,
                          tail ? tail : ""};
    GLuint sh = glCreateShader(stage);
    glShaderSource(sh, 5, src, NULL);
    glCompileShader(sh);
    GLint ok = 0, loglen = 0;
    if (wait_compiled(sh, false, deadline, path, err, errlen)) {
        glDeleteShader(sh);
        free(pre);
        free(text);
        return -1;
    }
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderiv(sh, GL_INFO_LOG_LENGTH, &loglen);
        char *log = calloc((size_t)loglen + 1, 1);
        glGetShaderInfoLog(sh, loglen, NULL, log);
        first_error(log, lib, path, err, errlen);
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
    return gl_program_build_tail(dir, lib, stages, nstages, defines, NULL, out, err, errlen);
}

int gl_program_build_tail(const char *dir, const char *lib, const char *const *stages,
                          int nstages, const char *defines, const char *tail, GLuint *out,
                          char *err, size_t errlen)
{
    struct glsl_lib *l = NULL;
    if (lib) {
        if (!(l = xcalloc(1, sizeof *l, "shader library", err, errlen)))
            return -1;
        if (lib_load(dir, lib, l, err, errlen)) {
            free(l);
            return -1;
        }
    }
    GLuint prog = glCreateProgram(), sh[4] = {0};
    int rc = 0;
    const double limit = compile_timeout_s(), deadline = now_seconds() + limit;
    char what[4300];
    snprintf(what, sizeof what, "%s/%s", dir, stages[nstages - 1]);
    struct watchdog wd;
    watchdog_start(&wd, limit, what);
    for (int k = 0; k < nstages && k < 4 && !rc; k++) {
        /* the library is for the pass itself, not the full-screen vertex stage */
        const bool vert = stage_of(stages[k]) == GL_VERTEX_SHADER;
        rc = compile_one(dir, vert ? NULL : l, stages[k], defines,
                         k == nstages - 1 ? tail : NULL, deadline, &sh[k], err, errlen);
        if (!rc)
            glAttachShader(prog, sh[k]);
    }
    if (!rc) {
        glLinkProgram(prog);
        GLint ok = 0;
        rc = wait_compiled(prog, true, deadline, what, err, errlen);
        if (!rc)
            glGetProgramiv(prog, GL_LINK_STATUS, &ok);
        if (!rc && !ok) {
            char log[1024] = "";
            glGetProgramInfoLog(prog, sizeof log, NULL, log);
            log[strcspn(log, "\n")] = 0;
            seterr(err, errlen, "%s/%s: link failed: %s", dir, stages[nstages - 1], log);
            rc = -1;
        }
    }
    watchdog_stop(&wd);
    for (int k = 0; k < nstages && k < 4; k++)
        if (sh[k])
            glDeleteShader(sh[k]);
    if (l)
        free(l->text);
    free(l);
    if (rc) {
        glDeleteProgram(prog);
        return -1;
    }
    *out = prog;
    return 0;
}
