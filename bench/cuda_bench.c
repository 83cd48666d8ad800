/* cuda_bench.c - benchmarks of the CUDA engines (issue 5, item 7), run by
 * bench/cuda.sh on the GPU machine.
 *
 *   build/bench/cuda_bench OUTDIR [quick | mapping | medium | 2d | temporal]
 *   (mapping: only (c), the 256^3 cavity with the coalesced and the
 *   un-coalesced thread mapping of the two-kernel path, float and double;
 *   medium: only the 2D fused path of a plane wave in a 10-cell CPML at
 *   1024^2 .. 8192^2 with 16, 32 and 64 rows a strip, beside the temporal
 *   path of the same grid without the CPML: where the sizes of a sweep's
 *   runs, not the largest grids, set the speed;
 *   2d: only the 2D engine's step paths, every K of the temporal one;
 *   one KIND N STEPS: one cube() (KIND pec, cpml or A1 .. A3; N interior
 *   cells a side), the path as the TEXFDTD_CUDA3D* variables say: for a
 *   profiler (ncu) to count one kernel's launches;
 *   temporal: only the 3D temporal path at 512^3, K = 2, 3, 4, tiles 32 x 16
 *   and 32 x 32, whole columns and 64- and 128-plane chunks, beside the fused kernel,
 *   PEC walls and a 10-cell CPML (A1), float)
 *
 * Timing: CUDA events around engine_step() on the default stream
 * (texfdtd_cuda_time_steps), after warm-up steps, median of 3 repeats.
 * Effective Mcells/s count only the cells outside the absorbing layer, as
 * Toivanen et al.  The memory floor is the measured device-to-device copy
 * bandwidth (read + write counted) divided by the bytes a step must move per
 * cell at least: 3D, six components read and written plus one material byte
 * = 49 bytes (float) or 97 (double); 2D, three components + material = 25 / 49.
 * Writes OUTDIR/cuda_bench.csv and prints the same lines.
 *
 * The fields start from pseudo-random values (engine_write, |v| < 1e-2, the
 * same for every run), never from zeros; the step path of each row is set
 * through TEXFDTD_CUDA2D / TEXFDTD_CUDA3D (and _K, _KZ) and named in its
 * label.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"
#ifdef TEXFDTD_HAVE_CUDA
#include "cuda/cuda_api.h"

static FILE *csv;
static double bw_gbs;

static int load(struct scene *s, struct model *m, const char *text, char *err, size_t errlen)
{
    char path[] = "/tmp/texfdtd-bench-XXXXXX.ini";
    int fd = mkstemps(path, 4);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        return seterr(err, errlen, "cannot write %s", path);
    close(fd);
    int rc = scene_load(s, path, NULL, 0, err, errlen);
    unlink(path);
    if (rc)
        return -1;
    if (model_build(m, s, err, errlen)) {
        scene_free(s);
        return -1;
    }
    return 0;
}

/* Fill every field of the scene with the same pseudo-random values. */
static int fill_random(struct engine *e, const struct model *m, enum precision p, char *err,
                       size_t errlen)
{
    enum field ids[6];
    const int n = scene_fields(m->scene, ids);
    void *buf = malloc(m->ncells * precision_size(p));
    if (!buf)
        return seterr(err, errlen, "out of host memory");
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t c = 0; c < m->ncells; c++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        const double v = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 2e-2;
        if (p == PRECISION_DOUBLE)
            ((double *)buf)[c] = v;
        else
            ((float *)buf)[c] = (float)v;
    }
    for (int q = 0; q < n && q < 6; q++) {
        if (ids[q] != FIELD_EX && ids[q] != FIELD_EY && ids[q] != FIELD_EZ && ids[q] != FIELD_HX
            && ids[q] != FIELD_HY && ids[q] != FIELD_HZ)
            continue;
        if (engine_write(e, ids[q], buf, err, errlen)) {
            free(buf);
            return -1;
        }
    }
    free(buf);
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Run a scene: warm-up, then 3 timed repeats of `steps`; median. */
static void bench(const char *group, const char *label, const char *text, enum precision p,
                  double eff_cells, int steps, double bytes_per_cell)
{
    struct scene s;
    struct model m;
    char err[ERRLEN];
    if (load(&s, &m, text, err, sizeof err)) {
        printf("%s %s: %s\n", group, label, err);
        return;
    }
    struct engine_options o = {.precision = p, .denormals = DENORMALS_FLUSH, .device = -1};
    struct engine *e;
    if (engine_create("cuda", &m, &o, &e, err, sizeof err)) {
        printf("%s %s %s: %s\n", group, label, precision_name(p), err);
        fprintf(csv, "%s,%s,%s,%d,%d,%d,,,,,%s\n", group, label, precision_name(p), s.nx, s.ny,
                s.nz, "refused");
        model_free(&m);
        scene_free(&s);
        return;
    }
    double ms[3];
    if (fill_random(e, &m, p, err, sizeof err)) {
        printf("%s %s: %s\n", group, label, err);
        engine_destroy(e);
        model_free(&m);
        scene_free(&s);
        return;
    }
    int rc = texfdtd_cuda_time_steps(e, steps < 10 ? steps : 10, &ms[0], err, sizeof err);
    for (int r = 0; r < 3 && !rc; r++)
        rc = texfdtd_cuda_time_steps(e, steps, &ms[r], err, sizeof err);
    if (rc) {
        printf("%s %s: %s\n", group, label, err);
    } else {
        qsort(ms, 3, sizeof *ms, cmp_d);
        const double t = ms[1] * 1e-3 / steps;
        const double all = (double)m.ncells / t / 1e6, eff = eff_cells / t / 1e6;
        const double floor_mc = bw_gbs * 1e3 / bytes_per_cell;
        printf("%-8s %-22s %-6s %5d x %5d x %4d  %8.3f ms/step  %9.0f Mcells/s (all %9.0f)  "
               "%5.1f%% of the %.0f Mcells/s floor\n",
               group, label, precision_name(p), s.nx, s.ny, s.nz, t * 1e3, eff, all,
               100.0 * all / floor_mc, floor_mc);
        fprintf(csv, "%s,%s,%s,%d,%d,%d,%d,%.6f,%.1f,%.1f,%.4f\n", group, label, precision_name(p),
                s.nx, s.ny, s.nz, steps, t * 1e3, eff, all, all / floor_mc);
        fflush(stdout);
        fflush(csv);
    }
    engine_destroy(e);
    model_free(&m);
    scene_free(&s);
}

static void cube(const char *group, int n, const char *kind, int N, enum precision p, int steps)
{
    /* interior n^3 plus the layer (N + 1 cells a side for CPML, 1 otherwise) */
    const int pad = !strcmp(kind, "cpml") ? N + 1 : 1, g = n + 2 * pad;
    char text[1024], bnd[160], label[64];
    const char *strat = "";
    if (!strncmp(kind, "A", 1))
        strat = !strcmp(kind, "A1") ? "combined" : !strcmp(kind, "A2") ? "regions" : "per-face";
    if (*strat)
        snprintf(bnd, sizeof bnd, "[boundary]\ntype = cpml\ncells = %d\nstrategy = %s\n", N, strat);
    else
        snprintf(bnd, sizeof bnd, "[boundary]\ntype = %s\n", !strcmp(kind, "mur") ? "mur" : "pec");
    const int G = *strat ? n + 2 * (N + 1) : g;
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nnz = %d\nsteps = %d\ncourant = 0.5\n"
             "[source]\ntype = point\ncenter_x = %d\ncenter_y = %d\ncenter_z = %d\n%s",
             G, G, G, steps, G / 2, G / 2, G / 2, bnd);
    snprintf(label, sizeof label, "%s%s%d", kind, *strat ? "-N" : "", *strat ? N : 0);
    bench(group, label, text, p, (double)n * n * n, steps, p == PRECISION_DOUBLE ? 97 : 49);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR [quick | mapping | medium | 2d | temporal | one KIND N STEPS]\n",
                argv[0]);
        return 2;
    }
    const bool quick = argc > 2 && !strcmp(argv[2], "quick");
    const bool mapping = argc > 2 && !strcmp(argv[2], "mapping");
    const bool medium = argc > 2 && !strcmp(argv[2], "medium");
    const bool only2d = argc > 2 && !strcmp(argv[2], "2d");
    const bool temporal = argc > 2 && !strcmp(argv[2], "temporal");
    char path[4096], err[ERRLEN];
    snprintf(path, sizeof path, "%s/cuda_bench.csv", argv[1]);
    csv = fopen(path, "w");
    if (!csv) {
        perror(path);
        return 1;
    }
    log_set_quiet(true);
    if (texfdtd_cuda_copy_bandwidth((size_t)1 << 30, 20, &bw_gbs, err, sizeof err)) {
        fprintf(stderr, "copy bandwidth: %s\n", err);
        return 1;
    }
    printf("device-to-device copy, 1 GiB x 20: %.1f GB/s (read + write)\n", bw_gbs);
    fprintf(csv, "# device-to-device copy bandwidth %.1f GB/s (read + write counted)\n", bw_gbs);
    fprintf(csv, "group,label,precision,nx,ny,nz,steps,ms_per_step,eff_mcells_s,all_mcells_s,"
                 "fraction_of_floor\n");

    if (argc > 5 && !strcmp(argv[2], "one")) {
        cube("one", atoi(argv[4]), argv[3], 10, PRECISION_SINGLE, atoi(argv[5]));
        fclose(csv);
        return 0;
    }

    /* (c) with the coalescing paper's comparison: the 256^3 PEC cavity on the
     * two-kernel path, warps along x (coalesced) or along y (un-coalesced) */
    for (int pr = 0; pr < 2 && mapping; pr++)
        for (int u = 0; u < 2; u++) {
            char text[512];
            setenv("TEXFDTD_CUDA3D", "two", 1);
            setenv("TEXFDTD_CUDA3D_MAP", u ? "uncoalesced" : "coalesced", 1);
            snprintf(text, sizeof text,
                     "[grid]\nnx = 256\nny = 256\nnz = 256\nsteps = 5000\ncourant = 0.5\n"
                     "[source]\ntype = point\ncenter_x = 128\ncenter_y = 128\ncenter_z = 128\n");
            bench(u ? "cavity-uncoalesced" : "cavity-coalesced", "pec-256", text,
                  pr ? PRECISION_DOUBLE : PRECISION_SINGLE, 256.0 * 256 * 256, 500, pr ? 97 : 49);
        }
    if (mapping) {
        unsetenv("TEXFDTD_CUDA3D");
        unsetenv("TEXFDTD_CUDA3D_MAP");
        fclose(csv);
        return 0;
    }

    /* medium 2D grids: ms a step against cells shows where a launch's fixed
     * cost, not memory, sets the pace */
    for (int n = 1024; n <= 8192 && medium; n *= 2) {
        char text[512];
        const char *rows[] = {"16", "32", "64"};
        const double cells = (double)(n - 22) * (n - 22);
        for (int q = 0; q < 4; q++) {
            snprintf(text, sizeof text,
                     "[grid]\nnx = %d\nny = %d\nsteps = 100\n[source]\nangle = 0\n%s", n, n,
                     q < 3 ? "[boundary]\ntype = cpml\ncells = 10\n" : "");
            setenv("TEXFDTD_CUDA2D", q < 3 ? "fused" : "temporal", 1);
            setenv("TEXFDTD_CUDA2D_ROWS", q < 3 ? rows[q] : "", 1);
            char label[48];
            snprintf(label, sizeof label, "%s%s", q < 3 ? "cpml-fused-R" : "pec-temporal-K6",
                     q < 3 ? rows[q] : "");
            bench("2d-medium", label, text, PRECISION_SINGLE, q < 3 ? cells : (double)n * n,
                  n >= 4096 ? 400 : 2000, 25);
        }
        unsetenv("TEXFDTD_CUDA2D");
        unsetenv("TEXFDTD_CUDA2D_ROWS");
    }
    if (medium) {
        fclose(csv);
        return 0;
    }

    /* the 3D temporal path (TEXFDTD_CUDA3D=temporal) at 512^3 beside the
     * fused kernel; 24 steps, a multiple of every K */
    if (temporal) {
        static const char *const ks[] = {"2", "3", "4"}, *const tys[] = {"16", "32"},
                                 *const tbz[] = {"0", "64", "128"};
        /* CB_TB_KIND = pec or A1: that kind only */
        const char *only = getenv("CB_TB_KIND");
        for (int c = 0; c < 2; c++) {
            const char *kind = c ? "A1" : "pec";
            if (only && *only && strcmp(only, kind))
                continue;
            const int n = c ? 512 - 2 * 11 : 512 - 2;
            setenv("TEXFDTD_CUDA3D", "fused", 1);
            cube("tb-fused", n, kind, 10, PRECISION_SINGLE, 24);
            setenv("TEXFDTD_CUDA3D", "temporal", 1);
            if (c) { /* the z slabs in plain chunks (as before they had their own) */
                setenv("TEXFDTD_CUDA3D_SLABCHUNK", "0", 1);
                setenv("TEXFDTD_CUDA3D_K", "3", 1);
                setenv("TEXFDTD_CUDA3D_TY", "32", 1);
                setenv("TEXFDTD_CUDA3D_TBZ", "64", 1);
                cube("tb-K3-TY32-Z64-plainchunks", n, kind, 10, PRECISION_SINGLE, 24);
                unsetenv("TEXFDTD_CUDA3D_SLABCHUNK");
            }
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 2; b++)
                    for (int z = 0; z < 3; z++) {
                        char group[64];
                        setenv("TEXFDTD_CUDA3D_K", ks[a], 1);
                        setenv("TEXFDTD_CUDA3D_TY", tys[b], 1);
                        setenv("TEXFDTD_CUDA3D_TBZ", tbz[z], 1);
                        snprintf(group, sizeof group, "tb-K%s-TY%s%s%s", ks[a], tys[b],
                                 z ? "-Z" : "", z ? tbz[z] : "");
                        cube(group, n, kind, 10, PRECISION_SINGLE, 24);
                    }
        }
        unsetenv("TEXFDTD_CUDA3D");
        unsetenv("TEXFDTD_CUDA3D_K");
        unsetenv("TEXFDTD_CUDA3D_TY");
        unsetenv("TEXFDTD_CUDA3D_TBZ");
        fclose(csv);
        return 0;
    }

    /* 2D engine: the three step paths at 4096^2 and 16384^2 (plane wave, PEC) */
    const int n2[] = {4096, 16384};
    for (int k = 0; k < 2; k++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[grid]\nnx = %d\nny = %d\nsteps = 100\n[source]\nangle = 0\n", n2[k], n2[k]);
        const int steps = n2[k] > 8192 ? 48 : 192;
        const double cells = (double)n2[k] * n2[k];
        struct { const char *path, *k, *rows, *vec, *label; } v2[] = {
            {"two", "", "", "", "two-kernels"},
            {"fused", "", "32", "0", "fused-R32"}, {"fused", "", "64", "0", "fused-R64"},
            {"fused", "", "16", "1", "fused-vec-R16"}, {"fused", "", "32", "1", "fused-vec-R32"},
            {"fused", "", "64", "1", "fused-vec-R64"},
            {"temporal", "2", "", "", "temporal-K2"}, {"temporal", "4", "", "", "temporal-K4"},
            {"temporal", "6", "", "", "temporal-K6"}, {"temporal", "8", "", "", "temporal-K8"},
        };
        for (size_t q = 0; q < sizeof v2 / sizeof v2[0]; q++) {
            if (quick && q > 0 && q != 1 && q != 4 && q != 8)
                continue;
            setenv("TEXFDTD_CUDA2D", v2[q].path, 1);
            setenv("TEXFDTD_CUDA2D_K", v2[q].k, 1);
            setenv("TEXFDTD_CUDA2D_ROWS", v2[q].rows, 1);
            setenv("TEXFDTD_CUDA2D_VEC", v2[q].vec, 1);
            bench("2d", v2[q].label, text, PRECISION_SINGLE, cells, steps, 25);
        }
        unsetenv("TEXFDTD_CUDA2D");
        unsetenv("TEXFDTD_CUDA2D_K");
        unsetenv("TEXFDTD_CUDA2D_ROWS");
        unsetenv("TEXFDTD_CUDA2D_VEC");
    }
    if (only2d) {
        fclose(csv);
        return 0;
    }

    /* (a) the paper's cube: 10-cell CPML A1 (fused and two kernels), A2, A3,
     * Mur, none (fused and two kernels) */
    const int sizes[] = {128, 256, 384, 512};
    struct { const char *kind, *path; } v3[] = {
        {"A1", "fused"}, {"A1", "two"}, {"A2", "two"}, {"A3", "two"},
        {"mur", "fused"}, {"pec", "fused"}, {"pec", "two"},
    };
    for (int k = 0; k < 4; k++)
        for (size_t q = 0; q < sizeof v3 / sizeof v3[0]; q++) {
            if ((quick || sizes[k] < 256) && !strcmp(v3[q].path, "two"))
                continue; /* the two-kernel paths at 256^3 and 512^3 only */
            setenv("TEXFDTD_CUDA3D", v3[q].path, 1);
            cube(!strcmp(v3[q].path, "two") ? "cube-two" : "cube", sizes[k], v3[q].kind, 10,
                 PRECISION_SINGLE, sizes[k] >= 384 ? 20 : 50);
        }
    /* z chunk length of the fused kernel at 512^3 */
    setenv("TEXFDTD_CUDA3D", "fused", 1);
    for (int kz = 32; kz <= 128 && !quick; kz *= 4) {
        char v[8];
        snprintf(v, sizeof v, "%d", kz);
        setenv("TEXFDTD_CUDA3D_KZ", v, 1);
        cube(kz == 32 ? "cube-kz32" : "cube-kz128", 512, "A1", 10, PRECISION_SINGLE, 20);
        cube(kz == 32 ? "cube-kz32" : "cube-kz128", 512, "pec", 10, PRECISION_SINGLE, 20);
    }
    unsetenv("TEXFDTD_CUDA3D_KZ");
    /* (b) CPML thickness at 256^3, A1 fused (and A3 up to 16) */
    const int thick[] = {5, 10, 15, 20};
    for (int k = 0; k < 4 && !quick; k++) {
        setenv("TEXFDTD_CUDA3D", "fused", 1);
        cube("thick", 256, "A1", thick[k], PRECISION_SINGLE, 50);
        setenv("TEXFDTD_CUDA3D", "two", 1);
        cube("thick", 256, "A3", thick[k], PRECISION_SINGLE, 50);
    }
    /* (c) 256^3 PEC cavity, central z-directed soft source, 5000 steps */
    for (int pr = 0; pr < 2; pr++)
        for (int f = 0; f < 2; f++) {
            char text[512];
            setenv("TEXFDTD_CUDA3D", f ? "two" : "fused", 1);
            snprintf(text, sizeof text,
                     "[grid]\nnx = 256\nny = 256\nnz = 256\nsteps = 5000\ncourant = 0.5\n"
                     "[source]\ntype = point\ncenter_x = 128\ncenter_y = 128\ncenter_z = 128\n");
            bench(f ? "cavity-two" : "cavity", "pec-256", text, pr ? PRECISION_DOUBLE : PRECISION_SINGLE,
                  256.0 * 256 * 256, quick ? 500 : 2000, pr ? 97 : 49);
        }
    /* 512^3 double, A1 */
    setenv("TEXFDTD_CUDA3D", "fused", 1);
    if (!quick)
        cube("cube", 512, "A1", 10, PRECISION_DOUBLE, 20);
    unsetenv("TEXFDTD_CUDA3D");
    fclose(csv);
    return 0;
}
#else
int main(void)
{
    fprintf(stderr, "cuda_bench: this build has no CUDA engine (nvcc not found)\n");
    return 1;
}
#endif
