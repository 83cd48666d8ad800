/* cuda_bench.c - benchmarks of the CUDA engines (issue 5, item 7), run by
 * bench/cuda.sh on the GPU machine.
 *
 *   build/bench/cuda_bench OUTDIR [quick]
 *
 * Timing: CUDA events around engine_step() on the default stream
 * (texfdtd_cuda_time_steps), after warm-up steps, median of 3 repeats.
 * Effective Mcells/s count only the cells outside the absorbing layer, as
 * Toivanen et al.  The memory floor is the measured device-to-device copy
 * bandwidth (read + write counted) divided by the bytes a step must move per
 * cell at least: 3D, six components read and written plus one material byte
 * = 49 bytes (float) or 97 (double); 2D, three components + material = 25 / 49.
 * Writes OUTDIR/cuda_bench.csv and prints the same lines.
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
        fprintf(stderr, "usage: %s OUTDIR [quick]\n", argv[0]);
        return 2;
    }
    const bool quick = argc > 2 && !strcmp(argv[2], "quick");
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

    /* (a) the paper's cube: 10-cell CPML A1/A2/A3, Mur, none */
    const int sizes[] = {128, 256, 384, 512};
    const char *kinds[] = {"A1", "A2", "A3", "mur", "pec"};
    for (int k = 0; k < (quick ? 2 : 4); k++)
        for (int q = 0; q < 5; q++)
            cube("cube", sizes[k], kinds[q], 10, PRECISION_SINGLE, sizes[k] >= 384 ? 20 : 50);
    /* (b) CPML thickness at 256^3, A1 (and A3 up to 16) */
    const int thick[] = {5, 10, 15, 20};
    for (int k = 0; k < 4 && !quick; k++) {
        cube("thick", 256, "A1", thick[k], PRECISION_SINGLE, 50);
        cube("thick", 256, "A3", thick[k], PRECISION_SINGLE, 50);
    }
    /* (c) 256^3 PEC cavity, central z-directed soft source, 5000 steps */
    for (int pr = 0; pr < 2; pr++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[grid]\nnx = 256\nny = 256\nnz = 256\nsteps = 5000\ncourant = 0.5\n"
                 "[source]\ntype = point\ncenter_x = 128\ncenter_y = 128\ncenter_z = 128\n");
        bench("cavity", "pec-256", text, pr ? PRECISION_DOUBLE : PRECISION_SINGLE, 256.0 * 256 * 256,
              quick ? 500 : 5000, pr ? 97 : 49);
    }
    /* 512^3 double, A1 */
    if (!quick)
        cube("cube", 512, "A1", 10, PRECISION_DOUBLE, 20);
    /* 2D engine */
    const int n2[] = {4096, 16384};
    for (int k = 0; k < 2; k++) {
        char text[512];
        snprintf(text, sizeof text,
                 "[grid]\nnx = %d\nny = %d\nsteps = 100\n[source]\nangle = 0\n", n2[k], n2[k]);
        bench("2d", "pec-plane", text, PRECISION_SINGLE, (double)n2[k] * n2[k], n2[k] > 8192 ? 50 : 200, 25);
    }
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
