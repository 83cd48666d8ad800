/* cpu_isa_bench.c - the cpu engine's row kernels per instruction set and its
 * temporally blocked sweep, side by side (issue 14, item 4; run by
 * bench/cpu_isa.sh; never a test).
 *
 *   cpu_isa_bench [--threads T] [--repeats R] N STEPS CONFIG...
 *
 * CONFIG is ISA (the plain sweep), ISA:K:B (the untiled blocked sweep:
 * TEXFDTD_CPU_TB = K, TEXFDTD_CPU_TB_ROWS = B), ISA:K:wW or ISA:K:wW:SHAPE
 * (the tiled one: TEXFDTD_CPU_TB_TILE = W, a number or "auto", and
 * TEXFDTD_CPU_TB_SHAPE = skew or split, default by the threads) or
 * ISA:default (the engine's default sweep, none of these variables set),
 * ISA:single (the default sweep with the fused kernel's first and last
 * cells of a row segment one by one: TEXFDTD_CPU_PART=0) or
 * ISA:unfused (the plain sweep with the three row kernels apart:
 * TEXFDTD_CPU_FUSE=0, the plain sweep before the fused row kernel),
 * ISA one of sse2, avx2, avx512 (TEXFDTD_CPU_ISA).
 * The scene is bench/cpu.sh's: scenes/takada_square.ini on N x N cells (a
 * plane wave on a PEC square, PEC walls), single precision, denormals
 * flushed.  Each round creates every configuration's engine in turn, steps
 * it 8 steps to warm up, times STEPS steps (the wall clock around
 * engine_step) and destroys it; R rounds (default 5), so that a slow spell
 * of this shared machine hits every configuration alike.  Printed per
 * configuration: the median, least and most Gcells/s of all T threads, and
 * the median per thread.
 *
 * Before and after the engines, the copy line: a STREAM-like copy b = a of
 * 2 x 256 MiB floats on T threads (OpenMP, static schedule), best of 5,
 * GB/s counting 8 bytes a float (one read, one write; the write's
 * read-for-ownership not counted): the memory bandwidth that bounds the
 * plain sweep out of cache (about 24 bytes a cell-step: Ez, Hx, Hy read
 * and written once).  After the engines, the L2 stream line: on one
 * thread, the tiled sweep's traffic without its arithmetic, from buffers
 * that stay in the L2 and not the L1 (l2_stream_gbs): the bandwidth that
 * bounds the tiled sweep, whose band of rows lives in the L2
 * (docs/performance.md, "AVX-512 on an Intel CPU").  Last, the L1 row
 * kernel line: the engine's fused row kernel on rows that stay in the L1
 * (l1_row_gcells), the ceiling of any sweep on this core
 * (docs/performance.md, "A third CPU: AMD Zen 3").
 */
#define _GNU_SOURCE
#include "bench/common.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"
#include "cpu/cpucommon.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* GB/s of b = a over n floats on `threads` threads, best of 5. */
static double copy_gbs(int threads)
{
    const size_t n = (size_t)64 << 20; /* 256 MiB of floats */
    float *a = aligned_alloc(64, n * sizeof *a), *b = aligned_alloc(64, n * sizeof *b);
    if (!a || !b)
        return 0;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; i++)
        a[i] = (float)i, b[i] = 0;
    double best = 0;
    for (int r = 0; r < 5; r++) {
        const double t0 = now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (size_t i = 0; i < n; i++)
            b[i] = a[i];
        const double gbs = 8.0 * (double)n / (now() - t0) / 1e9;
        best = gbs > best ? gbs : best;
    }
    if (b[n - 1] != (float)(n - 1))
        fprintf(stderr, "copy: wrong result\n");
    free(a);
    free(b);
    return best;
}

/* The tiled sweep's L2 traffic a cell and level (docs/performance.md, "AVX-512
 * on an Intel CPU"): three rows read and written (Ez, Hx, Hy) and one read
 * (the Hx row below), 28 bytes in float.  Here: e += x, x += xs, y += e
 * over rows of 4 arrays of 24 K floats (384 KiB: in a 1 MiB L2, 12 times
 * a 32 KiB L1), 1024 passes, best of 5 rounds, GB/s counting those 28
 * bytes an element; built for AVX-512, AVX2 and the baseline, the loader
 * taking the widest this CPU has (target_clones). */
__attribute__((target_clones("avx512f", "avx2", "default"))) static void
l2_pass(float *restrict e, float *restrict x, float *restrict y, const float *restrict xs,
        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        e[i] += x[i];
        x[i] += xs[i];
        y[i] += e[i];
    }
}

static double l2_stream_gbs(void)
{
    const size_t n = 24 << 10;
    const int reps = 1024;
    /* the four arrays 2 KiB + 3 lines apart beyond their length, so that
     * element i of each falls in other L1 sets (no 4 KiB aliasing) */
    const size_t gap = 512 + 48;
    float *buf = aligned_alloc(64, 4 * (n + gap) * sizeof *buf);
    if (!buf)
        return 0;
    float *e = buf, *x = e + n + gap, *y = x + n + gap, *xs = y + n + gap;
    for (size_t i = 0; i < n; i++)
        e[i] = x[i] = y[i] = xs[i] = 0;
    double best = 0;
    for (int r = 0; r < 5; r++) {
        const double t0 = now();
        for (int k = 0; k < reps; k++) {
            l2_pass(e, x, y, xs, n);
            __asm__ volatile("" : : "r"(e), "r"(x), "r"(y) : "memory"); /* keep every pass */
        }
        const double gbs = 28.0 * (double)n * reps / (now() - t0) / 1e9;
        best = gbs > best ? gbs : best;
    }
    free(buf);
    return best;
}

/* The fused row kernel's own rate (cpu/rows2d.inc hez_vac, the engine's
 * default set, float, denormals flushed) on rows that stay in the L1: rows
 * 1 .. 6 of Ez, Hx and Hy, 8 rows of 272 floats each (26 KiB), columns 16
 * .. 255, 400 000 passes, best of 5; Gcells/s.  No tile edges, no other
 * kernel, no cache misses: the ceiling of every sweep on this core.  The
 * fields start random in [-0.5, 0.5) where updated and 0 around (rows 0
 * and 7, the other columns: a closed box, fixed), and stay bounded (ch =
 * cz = 0.5, a Courant number of 0.5; checked at the end). */
static double l1_row_gcells(enum cpu_isa *isa)
{
    enum { P = 272, R = 8, A = 16, B = 256, REPS = 400000 };
    char err[ERRLEN];
    unsetenv("TEXFDTD_CPU_ISA");
    if (cpu_isa_choose(isa, true, err, sizeof err))
        return 0;
    const cpu_hez_vac_f hez = cpu2d_hez_vac_f(*isa);
    float *buf = aligned_alloc(64, 3 * P * R * sizeof *buf);
    if (!buf)
        return 0;
    float *e = buf, *x = e + P * R, *y = x + P * R;
    srand(1);
    for (int k = 0; k < 3 * P * R; k++) {
        const int j = k / P % R, i = k % P;
        buf[k] = j > 0 && j < R - 1 && i >= A && i < B ? (float)rand() / (float)RAND_MAX - 0.5f
                                                       : 0;
    }
    cpu_set_denormal_mode(DENORMALS_FLUSH);
    double best = 0;
    for (int r = 0; r < 5; r++) {
        const double t0 = now();
        for (int k = 0; k < REPS; k++)
            for (int j = 1; j < R - 1; j++)
                hez(e + j * P, e + (j + 1) * P, x + j * P, x + (j - 1) * P, y + j * P, A, B,
                    0.5f, 0.5f, true);
        const double g = (double)(R - 2) * (B - A) * REPS / (now() - t0) / 1e9;
        best = g > best ? g : best;
    }
    float m = 0;
    for (int k = 0; k < 3 * P * R; k++)
        m = fabsf(buf[k]) > m ? fabsf(buf[k]) : m;
    if (!(m < 1e3f))
        fprintf(stderr, "L1 row kernel: the fields grew to %g\n", m);
    free(buf);
    return best;
}

struct config {
    char isa[16], k[8], b[8], w[8], shape[8];
    bool dflt, unfused, single;
    double gcells[64];
};

int main(int argc, char **argv)
{
    int threads = 1, repeats = 5, pos = 0, n = 0, steps = 0, nc = 0;
    static struct config cf[64];
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--threads") && k + 1 < argc) {
            threads = atoi(argv[++k]);
        } else if (!strcmp(argv[k], "--repeats") && k + 1 < argc) {
            repeats = atoi(argv[++k]);
        } else if (pos == 0) {
            n = atoi(argv[k]), pos++;
        } else if (pos == 1) {
            steps = atoi(argv[k]), pos++;
        } else if (nc < 64) {
            struct config *c = &cf[nc++];
            const char *a = argv[k], *p = strchr(a, ':');
            snprintf(c->isa, sizeof c->isa, "%.*s", p ? (int)(p - a) : (int)strlen(a), a);
            if (p && !strcmp(p + 1, "default"))
                c->dflt = true;
            else if (p && !strcmp(p + 1, "unfused"))
                c->unfused = true;
            else if (p && !strcmp(p + 1, "single"))
                c->dflt = c->single = true;
            else if (p && sscanf(p + 1, "%7[0-9]:w%7[a-z0-9]:%7[a-z]", c->k, c->w, c->shape) >= 2)
                ;
            else if (p && sscanf(p + 1, "%7[0-9]:%7[0-9]", c->k, c->b) == 2)
                ;
            else if (p)
                return fprintf(stderr, "config %s: not ISA[:K:B|:K:wW[:SHAPE]|:default|:unfused|:single]\n", a), 2;
        }
    }
    if (n < 64 || steps < 1 || !nc || repeats < 1 || repeats > 64 || threads < 1) {
        fprintf(stderr, "usage: cpu_isa_bench [--threads T] [--repeats R] N STEPS "
                        "ISA[:K:B]...\n");
        return 2;
    }
    char sets[6][80], err[ERRLEN];
    const double c0 = n / 2.0 - 0.5;
    snprintf(sets[0], sizeof sets[0], "grid.nx=%d", n);
    snprintf(sets[1], sizeof sets[1], "grid.ny=%d", n);
    snprintf(sets[2], sizeof sets[2], "object.square.center_x=%g", c0);
    snprintf(sets[3], sizeof sets[3], "object.square.center_y=%g", c0);
    snprintf(sets[4], sizeof sets[4], "source.front_offset=%g", n / 4.0);
    snprintf(sets[5], sizeof sets[5], "output.snapshots=");
    const char *setp[6] = {sets[0], sets[1], sets[2], sets[3], sets[4], sets[5]};
    struct scene s;
    struct model m;
    if (scene_load(&s, "scenes/takada_square.ini", setp, 6, err, sizeof err)
        || model_build(&m, &s, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("copy, %d thread%s: %.1f GB/s\n", threads, threads == 1 ? "" : "s", copy_gbs(threads));
    fflush(stdout);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1, .threads = threads};
    for (int r = 0; r < repeats; r++) {
        for (int q = 0; q < nc; q++) {
            struct config *c = &cf[q];
            setenv("TEXFDTD_CPU_ISA", c->isa, 1);
            unsetenv("TEXFDTD_CPU_TB");
            unsetenv("TEXFDTD_CPU_TB_ROWS");
            unsetenv("TEXFDTD_CPU_TB_TILE");
            unsetenv("TEXFDTD_CPU_TB_SHAPE");
            if (c->unfused)
                setenv("TEXFDTD_CPU_FUSE", "0", 1);
            else
                unsetenv("TEXFDTD_CPU_FUSE");
            if (c->single)
                setenv("TEXFDTD_CPU_PART", "0", 1);
            else
                unsetenv("TEXFDTD_CPU_PART");
            if (c->k[0]) {
                setenv("TEXFDTD_CPU_TB", c->k, 1);
                if (c->b[0])
                    setenv("TEXFDTD_CPU_TB_ROWS", c->b, 1);
                if (c->w[0])
                    setenv("TEXFDTD_CPU_TB_TILE", c->w, 1);
                if (c->shape[0])
                    setenv("TEXFDTD_CPU_TB_SHAPE", c->shape, 1);
            } else if (!c->dflt) {
                setenv("TEXFDTD_CPU_TB", "1", 1);
            }
            struct engine *e;
            if (engine_create("cpu", &m, &o, &e, err, sizeof err)) {
                fprintf(stderr, "%s: %s\n", c->isa, err);
                return 1;
            }
            if (engine_step(e, 8, err, sizeof err))
                return fprintf(stderr, "%s\n", err), 1;
            const double t0 = now();
            if (engine_step(e, steps, err, sizeof err))
                return fprintf(stderr, "%s\n", err), 1;
            c->gcells[r] = (double)m.ncells * steps / (now() - t0) / 1e9;
            engine_destroy(e);
        }
    }
    printf("| config | Gcells/s, %d thread%s: median (least-most) | per thread |\n", threads,
           threads == 1 ? "" : "s");
    for (int q = 0; q < nc; q++) {
        struct config *c = &cf[q];
        const double med = bench_median(c->gcells, repeats);
        if (c->dflt)
            printf("| %s default%s", c->isa, c->single ? ", segment ends one by one" : "");
        else if (c->unfused)
            printf("| %s plain, unfused", c->isa);
        else if (c->k[0] && c->w[0])
            printf("| %s K=%s tiled W=%s%s%s", c->isa, c->k, c->w, c->shape[0] ? " " : "",
                   c->shape);
        else if (c->k[0])
            printf("| %s K=%s B=%s", c->isa, c->k, c->b);
        else
            printf("| %s plain", c->isa);
        printf(" | %.2f (%.2f-%.2f) | %.2f |\n", med, c->gcells[0], c->gcells[repeats - 1],
               med / threads);
    }
    printf("copy, %d thread%s: %.1f GB/s\n", threads, threads == 1 ? "" : "s", copy_gbs(threads));
    printf("L2 stream, 1 thread: %.1f GB/s\n", l2_stream_gbs());
    enum cpu_isa isa = CPU_ISA_SSE2;
    const double l1 = l1_row_gcells(&isa);
    printf("L1 row kernel (%s), 1 thread: %.2f Gcells/s\n", cpu_isa_name(isa), l1);
    model_free(&m);
    scene_free(&s);
    return 0;
}
