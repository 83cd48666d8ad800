/* bench.c - what bench/gl_bench.c calls beyond the engine interface
 * (declared in gl/gl.h): random fields, steps timed with GPU queries, the
 * copy bandwidth and the render-target write cap of the device.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/util.h"
#include "gl/gl.h"
#include "gl/shader.h"
#include "gl/texbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_gl_engine(const struct engine *e)
{
    return e && e->ops && (!strcmp(e->ops->name, "gl") || !strcmp(e->ops->name, "gl-compute"));
}

/* The GL engine e with its context current, or NULL with err (`fn` names
 * the caller). */
static struct gl_engine *bench_engine(struct engine *e, const char *fn, char *err, size_t errlen)
{
    if (!is_gl_engine(e)) {
        seterr(err, errlen, "%s: not a GL engine", fn);
        return NULL;
    }
    struct gl_engine *g = G(e);
    return egl_context_make_current(g->egl, err, errlen) ? NULL : g;
}

int gl_bench_fill_random(struct engine *e, uint64_t seed, char *err, size_t errlen)
{
    struct gl_engine *g = bench_engine(e, "gl_bench_fill_random", err, errlen);
    if (!g)
        return -1;
    const size_t nx = (size_t)g->nx;
    float *row = xcalloc(2 * nx, sizeof(float), "random row", err, errlen);
    if (!row)
        return -1;
    uint64_t x = gl_bench_rng_seed(seed); /* gl_bench_random_fields' stream (gl/texbuf.c) */
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    for (int pass = 0; pass < 2; pass++) {
        const int comps = pass == 0 ? 1 : 2;
        glBindTexture(GL_TEXTURE_2D, pass == 0 ? g->ez.tex[g->ez.cur] : g->h.tex[g->h.cur]);
        for (int j = 0; j < g->ny; j++) {
            gl_bench_rng_fill(&x, row, nx * (size_t)comps);
            if (pass == 0 && (j == 0 || j == g->ny - 1))
                memset(row, 0, nx * sizeof(float));
            if (pass == 0) {
                row[0] = 0;
                row[nx - 1] = 0;
            }
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, j, g->nx, 1, pass == 0 ? GL_RED : GL_RG,
                            GL_FLOAT, row);
        }
    }
    free(row);
    gl2d_reset_counter(g);
    return gl2d_check_gl("filling random fields", err, errlen);
}

int gl_bench_timed_steps(struct engine *e, int n, double *gpu_seconds, char *err, size_t errlen)
{
    struct gl_engine *g = bench_engine(e, "gl_bench_timed_steps", err, errlen);
    if (!g)
        return -1;
    GLuint q;
    glGenQueries(1, &q);
    glBeginQuery(GL_TIME_ELAPSED, q);
    const int rc = engine_step(e, n, err, errlen);
    glEndQuery(GL_TIME_ELAPSED);
    GLuint64 ns = 0;
    /* after a failed step (a fence timeout) the result would block until
     * the GPU is done, without a limit: not asked for */
    if (!rc)
        glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
    glDeleteQueries(1, &q);
    *gpu_seconds = (double)ns * 1e-9;
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gl_bench_copy_bandwidth(struct engine *e, size_t bytes, int reps, double *bytes_per_s,
                            char *err, size_t errlen)
{
    struct gl_engine *g = bench_engine(e, "gl_bench_copy_bandwidth", err, errlen);
    if (!g)
        return -1;
    GLuint buf[2], q, prog = 0;
    glGenBuffers(2, buf);
    for (int k = 0; k < 2; k++) { /* immutable, no client access: device memory */
        glBindBuffer(GL_COPY_WRITE_BUFFER, buf[k]);
        glBufferStorage(GL_COPY_WRITE_BUFFER, (GLsizeiptr)bytes, NULL, 0);
        const GLuint pattern = 0x3f9e3779u + (GLuint)k;
        glClearBufferData(GL_COPY_WRITE_BUFFER, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT,
                          &pattern);
    }
    if (gl2d_check_gl("allocating the copy buffers", err, errlen)) {
        glDeleteBuffers(2, buf);
        return -1;
    }
    const char *cs[1] = {"copy.comp"};
    if (gl_program_build(g->shader_dir, NULL, cs, 1, "", &prog, err, errlen)) {
        glDeleteBuffers(2, buf);
        return -1;
    }
    glGenQueries(1, &q);
    double *t = calloc((size_t)reps, sizeof *t);
    double best[2];
    for (int how = 0; how < 2; how++) { /* 0: glCopyBufferSubData, 1: compute copy */
        for (int r = -2; r < reps; r++) {   /* two warm-ups */
            glBeginQuery(GL_TIME_ELAPSED, q);
            if (how == 0) {
                glBindBuffer(GL_COPY_READ_BUFFER, buf[0]);
                glBindBuffer(GL_COPY_WRITE_BUFFER, buf[1]);
                glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0,
                                    (GLsizeiptr)bytes);
            } else {
                glUseProgram(prog);
                glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf[0]);
                glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buf[1]);
                const GLuint vec4s = (GLuint)(bytes / 16);
                glUniform1ui(glGetUniformLocation(prog, "n"), vec4s);
                glDispatchCompute((vec4s + 255) / 256 < 65535 ? (vec4s + 255) / 256 : 65535, 1,
                                  1);
                glMemoryBarrier(GL_ALL_BARRIER_BITS);
            }
            glEndQuery(GL_TIME_ELAPSED);
            GLuint64 ns = 0;
            glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
            if (r >= 0)
                t[r] = (double)ns * 1e-9;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        best[how] = 2.0 * (double)bytes / t[reps / 2];
    }
    bytes_per_s[0] = best[0];
    bytes_per_s[1] = best[1];
    free(t);
    glDeleteQueries(1, &q);
    glDeleteProgram(prog);
    glDeleteBuffers(2, buf);
    return gl2d_check_gl("copy bandwidth", err, errlen);
}

/* `draws` full-viewport draws of prog into fbo (w x h), timed with a
 * GL_TIME_ELAPSED query after two warm-ups, median of reps: seconds per
 * draw. */
static double time_draws(struct gl_engine *g, GLuint prog, GLuint fbo, int w, int h, int draws,
                         int reps)
{
    GLuint q;
    glUseProgram(prog);
    glBindVertexArray(g->vao);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
    glViewport(0, 0, w, h);
    glGenQueries(1, &q);
    double *t = calloc((size_t)reps, sizeof *t);
    for (int r = -2; r < reps; r++) {
        glBeginQuery(GL_TIME_ELAPSED, q);
        for (int d = 0; d < draws; d++) {
            glUniform1f(glGetUniformLocation(prog, "value"), (float)(r * draws + d) * 1e-3f);
            glDrawArrays(GL_TRIANGLES, 0, 3);
        }
        glEndQuery(GL_TIME_ELAPSED);
        GLuint64 ns = 0;
        glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
        if (r >= 0)
            t[r] = (double)ns * 1e-9;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    const double s = t[reps / 2] / draws;
    free(t);
    glDeleteQueries(1, &q);
    glViewport(0, 0, g->nx, g->ny);
    return s;
}

int gl_bench_write_cap(struct engine *e, int w, int h, unsigned format, int reps,
                       double *bytes_per_s, char *err, size_t errlen)
{
    struct gl_engine *g = bench_engine(e, "gl_bench_write_cap", err, errlen);
    if (!g)
        return -1;
    /* format 0: two targets, R32F + RG32F, as the k-step pass writes */
    const int bpt = format == 0 ? 12 : format == GL_R32F ? 4 : format == GL_RG32F ? 8 : 16;
    char defs[64];
    snprintf(defs, sizeof defs, "#define COMPONENTS %d\n", format == 0 ? 3 : bpt / 4);
    GLuint prog;
    const char *st[2] = {"fullscreen.vert", "write_cap.frag"};
    if (gl_program_build(g->shader_dir, NULL, st, 2, defs, &prog, err, errlen))
        return -1;
    GLuint tex[2] = {gl2d_make_tex(format == 0 ? GL_R32F : (GLenum)format, w, h),
                     format == 0 ? gl2d_make_tex(GL_RG32F, w, h) : 0},
           fbo;
    if (format == 0 ? gl2d_make_fbo2(tex[0], tex[1], &fbo, "write-cap targets", err, errlen)
                    : gl2d_make_fbo(tex[0], &fbo, "write-cap target", err, errlen)) {
        glDeleteTextures(2, tex);
        glDeleteProgram(prog);
        return -1;
    }
    *bytes_per_s = (double)w * (double)h * bpt / time_draws(g, prog, fbo, w, h, 20, reps);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(format == 0 ? 2 : 1, tex);
    glDeleteProgram(prog);
    return gl2d_check_gl("write cap", err, errlen);
}

#define ROOF_RADIUS 4 /* the fetch probe's diamond: 41 fetches a fragment */

int gl_bench_fragment_rates(struct engine *e, int w, int h, int reps, double *flops_per_s,
                            double *texels_per_s, char *err, size_t errlen)
{
    struct gl_engine *g = bench_engine(e, "gl_bench_fragment_rates", err, errlen);
    if (!g)
        return -1;
    const int iter = 64, r = ROOF_RADIUS;
    const double flops = 64.0 * iter, taps = 2.0 * r * r + 2 * r + 1;
    /* the fetch probe's straight-line sum */
    char *tail = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&tail, &tlen);
    if (!f)
        return seterr(err, errlen, "out of memory for the fetch probe");
    fprintf(f, "float fetch_sum(ivec2 p)\n{\n    float s = 0.0;\n");
    for (int v = -r; v <= r; v++)
        for (int u = -r; u <= r; u++)
            if (abs(u) + abs(v) <= r)
                fprintf(f, "    s += texelFetch(src, p + ivec2(%d, %d), 0).r;\n", u, v);
    fprintf(f, "    return s;\n}\n");
    fclose(f);
    const char *st[2] = {"fullscreen.vert", "roofline.frag"};
    char defs[128];
    GLuint prog[2] = {0, 0};
    int rc = 0;
    for (int m = 0; m < 2 && !rc; m++) {
        snprintf(defs, sizeof defs, "#define ARITH %d\n#define ITER %d\n#define RADIUS %d\n",
                 m == 0, iter, r);
        rc = gl_program_build_tail(g->shader_dir, NULL, st, 2, defs, m == 0 ? NULL : tail,
                                   &prog[m], err, errlen);
    }
    free(tail);
    GLuint out = gl2d_make_tex(GL_R32F, w, h), src = gl2d_make_tex(GL_R32F, w + 2 * r, h + 2 * r);
    GLuint fbo = 0;
    if (!rc)
        rc = gl2d_make_fbo(out, &fbo, "fragment-rate target", err, errlen);
    if (!rc) {
        const float fill[4] = {0.25f, 0, 0, 0};
        GLuint sfbo;
        if (!(rc = gl2d_make_fbo(src, &sfbo, "fetch-probe source", err, errlen)))
            glClearBufferfv(GL_COLOR, 0, fill);
        glDeleteFramebuffers(1, &sfbo);
    }
    if (!rc) {
        glProgramUniform1f(prog[0], glGetUniformLocation(prog[0], "a"), 0.5f);
        glProgramUniform1f(prog[0], glGetUniformLocation(prog[0], "b"), 0.999f);
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_2D, src);
        glProgramUniform1i(prog[1], glGetUniformLocation(prog[1], "src"), 0);
        const double px = (double)w * (double)h;
        *flops_per_s = px * flops / time_draws(g, prog[0], fbo, w, h, 5, reps);
        *texels_per_s = px * taps / time_draws(g, prog[1], fbo, w, h, 5, reps);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &out);
    glDeleteTextures(1, &src);
    glDeleteProgram(prog[0]);
    glDeleteProgram(prog[1]);
    return rc ? -1 : gl2d_check_gl("fragment rates", err, errlen);
}

int gl_bench_kpass_build_seconds(const struct engine *e, double *seconds)
{
    if (!is_gl_engine(e))
        return -1;
    *seconds = ((const struct gl_engine *)e)->kpass_build_s;
    return 0;
}
