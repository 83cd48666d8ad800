/* gl_bench.c - timings of the GL engines (run by bench/gl.sh, on the GPU
 * machine; never a test).
 *
 *   gl_bench speed  ENGINE N STEPS REPS   takada-like scene N x N, random
 *                                         fields, STEPS steps timed with a
 *                                         GL_TIME_ELAPSED query after a
 *                                         warm-up, median of REPS
 *   gl_bench verify SCENE STEPS [SET...]  gl, gl-compute and cpu (in each GL
 *                                         engine's denormal mode) from zero
 *                                         fields: bits that differ; SET is
 *                                         section.key=value as for --set
 *   gl_bench batches SCENE STEPS [SET...] gl with its adaptive fenced batches
 *                                         against gl with one step per fenced
 *                                         batch (TEXFDTD_GL_BATCH_STEPS=1, a
 *                                         full wait after every step): bits
 *                                         that differ (the long-run check)
 *   gl_bench copy   MIB REPS              device-to-device copy bandwidth
 *   gl_bench write  N REPS                render-target write rate, R32F,
 *                                         RG32F and RGBA32F targets
 *   gl_bench roofline N [STEPS [KMAX [REPS]]]
 *                                         gl's roofline in one run: the
 *                                         write cap (R32F + RG32F targets,
 *                                         as the k-step pass writes), the
 *                                         fragment arithmetic and fetch
 *                                         rates, then gl at k = 1 .. KMAX
 *                                         steps per pass (takada-like N x
 *                                         N, random fields, STEPS rounded
 *                                         up to a multiple of 60, median
 *                                         of REPS) beside each k's
 *                                         prediction (with
 *                                         TEXFDTD_GL_KPASS_GATHER=1 the
 *                                         fast path's inputs gathered)
 *   gl_bench texbuf N STEPS [REPS]        gl-compute's update over storage
 *                                         buffers, images and textures
 *                                         (bench/gl_texbuf.h)
 *
 * One line of results per case, "key value" pairs, for bench/gl.sh.
 */
#define _GNU_SOURCE
#include "bench/common.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"
#include "gl/gl.h"
#ifdef TEXFDTD_HAVE_CUDA
#include "cuda/cuda_api.h"
#endif

#include <GL/glew.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The paper's model: PEC square of side kA = 10 (32 cells at 20 cells per
 * wavelength) in the middle, plane wave along x, S = 0.5. */
/* GL_BENCH_SOURCE replaces the [source] section's keys (e.g. "type = point"),
 * GL_BENCH_EXTRA is appended (e.g. "[boundary]\ntype = cpml\ncells = 10\n"):
 * the blocked kernels' scenes timed beside the plain one. */
static int takada(int n, int steps, struct scene *s, struct model *m)
{
    char text[2048], err[ERRLEN];
    const char *src = getenv("GL_BENCH_SOURCE"), *extra = getenv("GL_BENCH_EXTRA");
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nsteps = %d\ncourant = 0.5\ncells_per_wavelength = 20\n"
             "[source]\n%s\n"
             "[object.square]\nshape = rectangle\nmaterial = pec\ncenter_x = %d\ncenter_y = %d\n"
             "width = 32\nheight = 32\n%s",
             n, n, steps, src && *src ? src : "type = plane_wave\nangle = 0", n / 2, n / 2,
             extra ? extra : "");
    if (scene_load_text(s, "takada_bench.ini", text, strlen(text), NULL, 0, err, sizeof err)
        || model_build(m, s, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return -1;
    }
    return 0;
}

static struct engine_options gl_opts(void)
{
    struct engine_options o = {0};
    o.precision = PRECISION_SINGLE;
    o.denormals = DENORMALS_FLUSH;
    o.device = -1;
    return o;
}

static int speed(const char *engine, int n, int steps, int reps)
{
    struct scene s;
    struct model m;
    char err[ERRLEN];
    if (takada(n, steps, &s, &m))
        return 1;
    struct engine *e;
    const struct engine_options o = gl_opts();
    if (engine_create(engine, &m, &o, &e, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return 1;
    }
    struct engine_info info;
    engine_describe(e, &info);
    double gpu, *t = calloc((size_t)reps, sizeof *t);
    if (gl_bench_fill_random(e, 12345, err, sizeof err)
        || gl_bench_timed_steps(e, steps / 10 > 0 ? steps / 10 : 1, &gpu, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return 1;
    }
    double wall_total = 0;
    for (int r = 0; r < reps; r++) {
        const double w0 = now_seconds();
        if (gl_bench_timed_steps(e, steps, &t[r], err, sizeof err)) {
            fprintf(stderr, "gl_bench: %s\n", err);
            return 1;
        }
        wall_total += now_seconds() - w0;
    }
    const double med = bench_median(t, reps);
    printf("speed engine %s n %d steps %d reps %d median_s %.6f min_s %.6f max_s %.6f "
           "gcells_per_s %.3f wall_gcells_per_s %.3f steps_per_pass %d device \"%s\"\n",
           engine, n, steps, reps, med, t[0], t[reps - 1],
           (double)n * n * steps / med * 1e-9,
           (double)n * n * steps * reps / wall_total * 1e-9, gl_engine_steps_per_pass(e),
           info.device);
    fflush(stdout);
    free(t);
    engine_destroy(e);
    model_free(&m);
    scene_free(&s);
    return 0;
}

static int verify(const char *path, int steps, const char *const *sets, int nset)
{
    struct scene s;
    struct model m;
    char err[ERRLEN];
    if (scene_load(&s, path, sets, nset, err, sizeof err) || model_build(&m, &s, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return 1;
    }
    const int n = m.nx;
    const char *names[2] = {"gl", "gl-compute"};
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        struct engine *e;
        const struct engine_options o = gl_opts();
        if (engine_create(names[k], &m, &o, &e, err, sizeof err)) {
            fprintf(stderr, "gl_bench: %s\n", err);
            return 1;
        }
        struct engine_info info;
        engine_describe(e, &info);
        float *g[3], *c[3];
        if (engine_step(e, steps, err, sizeof err)) {
            fprintf(stderr, "gl_bench: %s\n", err);
            return 1;
        }
        for (int f = 0; f < 3; f++) {
            g[f] = malloc(m.ncells * 4);
            engine_read(e, (enum field)f, g[f], err, sizeof err);
        }
        engine_destroy(e);
        struct engine_options co = {0};
        co.precision = PRECISION_SINGLE;
        co.denormals = info.denormals;
        if (engine_create("cpu", &m, &co, &e, err, sizeof err)
            || engine_step(e, steps, err, sizeof err)) {
            fprintf(stderr, "gl_bench: %s\n", err);
            return 1;
        }
        size_t diff[3] = {0};
        double maxabs = 0;
        for (int f = 0; f < 3; f++) {
            c[f] = malloc(m.ncells * 4);
            engine_read(e, (enum field)f, c[f], err, sizeof err);
            for (size_t q = 0; q < m.ncells; q++) {
                diff[f] += memcmp(&g[f][q], &c[f][q], 4) != 0;
                maxabs = fabs(c[f][q]) > maxabs ? fabs(c[f][q]) : maxabs;
            }
        }
        engine_destroy(e);
        printf("verify scene %s engine %s n %d steps %d denormals %s differ_ez %zu differ_hx %zu "
               "differ_hy %zu of %zu max_abs %.4g detail \"%s\"\n",
               s.name, names[k], n, steps, denormals_name(info.denormals), diff[0], diff[1], diff[2],
               m.ncells, maxabs, info.detail);
        fflush(stdout);
        bad += diff[0] + diff[1] + diff[2] > 0;
        for (int f = 0; f < 3; f++) {
            free(g[f]);
            free(c[f]);
        }
    }
    model_free(&m);
    scene_free(&s);
    return bad ? 2 : 0;
}

/* gl's fields after `steps` steps, in batches as TEXFDTD_GL_BATCH_STEPS says
 * (unset: adaptive); wall seconds in *secs. */
static int run_gl(const struct model *m, int steps, float *f[3], double *secs)
{
    char err[ERRLEN];
    struct engine *e;
    const struct engine_options o = gl_opts();
    if (engine_create("gl", m, &o, &e, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return -1;
    }
    const double t0 = now_seconds();
    int rc = engine_step(e, steps, err, sizeof err);
    for (int k = 0; k < 3 && !rc; k++)
        rc = engine_read(e, (enum field)k, f[k], err, sizeof err);
    *secs = now_seconds() - t0;
    if (rc)
        fprintf(stderr, "gl_bench: %s\n", err);
    engine_destroy(e);
    return rc;
}

static int batches(const char *path, int steps, const char *const *sets, int nset)
{
    struct scene s;
    struct model m;
    char err[ERRLEN];
    if (scene_load(&s, path, sets, nset, err, sizeof err) || model_build(&m, &s, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return 1;
    }
    float *a[3], *b[3];
    for (int k = 0; k < 3; k++) {
        a[k] = malloc(m.ncells * 4);
        b[k] = malloc(m.ncells * 4);
    }
    double ta, tb;
    unsetenv("TEXFDTD_GL_BATCH_STEPS");
    if (run_gl(&m, steps, a, &ta))
        return 1;
    setenv("TEXFDTD_GL_BATCH_STEPS", "1", 1);
    if (run_gl(&m, steps, b, &tb))
        return 1;
    size_t diff[3] = {0}, nonzero = 0;
    for (int k = 0; k < 3; k++)
        for (size_t q = 0; q < m.ncells; q++) {
            diff[k] += memcmp(&a[k][q], &b[k][q], 4) != 0;
            nonzero += k == 0 && a[0][q] != 0;
        }
    printf("batches scene %s n %d steps %d adaptive_s %.1f one_step_batches_s %.1f differ_ez %zu "
           "differ_hx %zu differ_hy %zu of %zu nonzero_ez %zu\n",
           s.name, m.nx, steps, ta, tb, diff[0], diff[1], diff[2], m.ncells, nonzero);
    for (int k = 0; k < 3; k++) {
        free(a[k]);
        free(b[k]);
    }
    model_free(&m);
    scene_free(&s);
    return diff[0] + diff[1] + diff[2] ? 2 : 0;
}

/* gl's roofline at N x N: the three rates measured, then k = 1 .. kmax.
 * Per cell and step the k-step pass writes 12/k bytes (Ez 4, H 8, once a
 * pass), computes flops(k) and fetches texels(k) (gl_kpass_cost: the cone
 * its fast path recomputes; k = 1 is the H and E passes), so
 *   roof(k) = min(write_cap k / 12, flop_rate / flops(k),
 *                 fetch_rate / texels(k))      cells per s. */
static int roofline(int n, int steps, int kmax, int reps)
{
    struct scene s;
    struct model m;
    char err[ERRLEN];
    steps = steps < 60 ? 60 : (steps + 59) / 60 * 60; /* whole passes of k = 1 .. 6 */
    kmax = kmax < 1 ? 1 : kmax > 8 ? 8 : kmax;
    reps = reps < 1 ? 1 : reps;
    if (takada(n, steps, &s, &m))
        return 1;
    const struct engine_options o = gl_opts();
    struct engine *e;
    setenv("TEXFDTD_GL_STEPS_PER_PASS", "1", 1);
    if (engine_create("gl", &m, &o, &e, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return 1;
    }
    struct engine_info info;
    engine_describe(e, &info);
    double wcap, wcap4, flop_rate, fetch_rate;
    if (gl_bench_write_cap(e, n, n, 0, 5, &wcap, err, sizeof err)
        || gl_bench_write_cap(e, n, n, GL_RGBA32F, 5, &wcap4, err, sizeof err)
        || gl_bench_fragment_rates(e, n, n, 5, &flop_rate, &fetch_rate, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return 1;
    }
    engine_destroy(e);
    /* the one-target RGBA32F cap beside it: would Ez, Hx, Hy in one texel
     * (16 bytes, 4 of them idle) write faster than two targets' 12? */
    printf("roofline n %d write_cap_bytes_per_s %.4g (R32F + RG32F targets; one RGBA32F "
           "target %.4g) flops_per_s %.4g texels_per_s %.4g device \"%s\"\n",
           n, wcap, wcap4, flop_rate, fetch_rate, info.device);
    const char *gather = getenv("TEXFDTD_GL_KPASS_GATHER");
    printf("# k  measured_Gcells/s  roof_Gcells/s  bound  write_roof  flop_roof  fetch_roof  "
           "flops/cell  texels/cell  measured/roof  build_s   (k > 1: inputs %s)\n",
           gather && !strcmp(gather, "1") ? "gathered, texels/cell = gathers" : "fetched");
    fflush(stdout);
    for (int k = 1; k <= kmax; k++) {
        double flops, texels, build = 0;
        if (gl_kpass_cost(k, &flops, &texels, err, sizeof err)) {
            fprintf(stderr, "gl_bench: %s\n", err);
            return 1;
        }
        const double roofs[3] = {wcap * k / 12.0, flop_rate / flops, fetch_rate / texels};
        const char *names[3] = {"write", "flops", "fetch"};
        int b = 0;
        for (int q = 1; q < 3; q++)
            b = roofs[q] < roofs[b] ? q : b;
        char ks[16];
        snprintf(ks, sizeof ks, "%d", k);
        setenv("TEXFDTD_GL_STEPS_PER_PASS", ks, 1);
        double *t = calloc((size_t)reps, sizeof *t), gpu;
        int rc = engine_create("gl", &m, &o, &e, err, sizeof err);
        if (!rc) {
            gl_bench_kpass_build_seconds(e, &build);
            rc = gl_bench_fill_random(e, 12345, err, sizeof err)
                 || gl_bench_timed_steps(e, 60, &gpu, err, sizeof err);
            for (int r = 0; r < reps && !rc; r++)
                rc = gl_bench_timed_steps(e, steps, &t[r], err, sizeof err);
            engine_destroy(e);
        }
        if (rc) { /* a k that fails (e.g. a fence timeout) is reported, the others still run */
            printf("k %d failed: %s\n", k, err);
            free(t);
            continue;
        }
        const double med = bench_median(t, reps), meas = (double)n * n * steps / med;
        printf("k %d %.3f %.3f %s %.3f %.3f %.3f %.1f %.1f %.2f %.2f\n", k, meas * 1e-9,
               roofs[b] * 1e-9, names[b], roofs[0] * 1e-9, roofs[1] * 1e-9, roofs[2] * 1e-9,
               flops, texels, meas / roofs[b], build);
        fflush(stdout);
        free(t);
    }
    model_free(&m);
    scene_free(&s);
    return 0;
}

#include "bench/gl_texbuf.h"

/* The copy and write probes need a GL context: borrow a small engine's. */
static struct engine *small_engine(struct scene *s, struct model *m)
{
    char err[ERRLEN];
    struct engine *e;
    const struct engine_options o = gl_opts();
    if (takada(64, 1, s, m) || engine_create("gl", m, &o, &e, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return NULL;
    }
    return e;
}

int main(int argc, char **argv)
{
    log_set_quiet(true);
    if (argc >= 6 && !strcmp(argv[1], "speed"))
        return speed(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    if (argc >= 4 && !strcmp(argv[1], "verify"))
        return verify(argv[2], atoi(argv[3]), (const char *const *)argv + 4, argc - 4);
    if (argc >= 3 && !strcmp(argv[1], "roofline"))
        return roofline(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 600, argc > 4 ? atoi(argv[4]) : 6,
                        argc > 5 ? atoi(argv[5]) : 3);
    if (argc >= 4 && !strcmp(argv[1], "texbuf"))
        return texbuf_bench(atoi(argv[2]), atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 5);
    if (argc >= 4 && !strcmp(argv[1], "batches"))
        return batches(argv[2], atoi(argv[3]), (const char *const *)argv + 4, argc - 4);
    struct scene s;
    struct model m;
    char err[ERRLEN];
    if (argc >= 4 && !strcmp(argv[1], "copy")) {
        struct engine *e = small_engine(&s, &m);
        double bw[2];
        if (!e || gl_bench_copy_bandwidth(e, (size_t)atoi(argv[2]) << 20, atoi(argv[3]), bw, err,
                                          sizeof err)) {
            fprintf(stderr, "gl_bench: %s\n", err);
            return 1;
        }
        printf("copy mib %d glCopyBufferSubData_bytes_per_s %.4g compute_copy_bytes_per_s %.4g "
               "(read + written)\n",
               atoi(argv[2]), bw[0], bw[1]);
#ifdef TEXFDTD_HAVE_CUDA
        /* the same device's copy bandwidth through CUDA, in the same run: the
         * memory floor the GL figures are measured against */
        double gbs;
        if (texfdtd_cuda_copy_bandwidth((size_t)atoi(argv[2]) << 20, atoi(argv[3]), &gbs, err,
                                        sizeof err) == 0)
            printf("copy mib %d cudaMemcpy_bytes_per_s %.4g (read + written)\n", atoi(argv[2]),
                   gbs * 1e9);
        else
            printf("copy cuda unavailable: %s\n", err);
#endif
        engine_destroy(e);
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "write")) {
        struct engine *e = small_engine(&s, &m);
        const unsigned fmts[3] = {GL_R32F, GL_RG32F, GL_RGBA32F};
        const char *names[3] = {"R32F", "RG32F", "RGBA32F"};
        for (int k = 0; e && k < 3; k++) {
            double bw;
            if (gl_bench_write_cap(e, atoi(argv[2]), atoi(argv[2]), fmts[k], atoi(argv[3]), &bw,
                                   err, sizeof err)) {
                fprintf(stderr, "gl_bench: %s\n", err);
                return 1;
            }
            printf("write n %d format %s bytes_per_s %.4g\n", atoi(argv[2]), names[k], bw);
            fflush(stdout);
        }
        engine_destroy(e);
        return 0;
    }
    fprintf(stderr, "usage: gl_bench speed ENGINE N STEPS REPS | verify SCENE STEPS [SET...] | "
                    "batches SCENE STEPS [SET...] | copy MIB REPS | "
                    "write N REPS | roofline N [STEPS [KMAX [REPS]]] | texbuf N STEPS [REPS]\n");
    return 2;
}
