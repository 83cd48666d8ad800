/* material_bench.c - what an object of a material costs a 2D engine (issue
 * 13, item 7; run by bench/material_cost.sh on the GPU machine; never a
 * test).
 *
 *   material_bench [--engine NAME] [--precision single|double] [--repeats R]
 *                  [--warmup W] [--cover F] N STEPS
 *
 * Scenes of N x N cells side by side in one process, each with its own
 * engine: a plane wave (20 cells per wavelength, S = 0.5, f0 = 1 GHz) in a
 * 10-cell CPML, its front past the whole grid at step 0 (so that every
 * object cell's incident-field value is a full sine, as in steady state), empty ("vacuum"), or with a disc covering the fraction F
 * (default 0.05) of the grid in its middle, of
 *   dielectric  eps_r = 4 (a source slot per cell: the incident-field term)
 *   lossy       eps_r = 4, sigma = 0.05 S/m (loss tangent 0.22 at f0)
 *   drude       eps_inf = 1, one Drude pole of omega_p = 2 omega0, gamma =
 *               0.1 omega0: eps(f0) = -3 - 0.4i (the D-E pass per cell)
 * An engine that refuses a scene gets a line saying so and the rest run.
 * After W warm-up steps each engine steps STEPS steps, in turns, R times;
 * the wall clock around engine_step (engines wait for their device in
 * step), median of the R.  Fields start from zero and the scattered field
 * grows from the disc (the cost does not depend on the values on the GPU
 * paths, which flush denormals).
 *
 * Every object cell also needs the incident-field values of its slot or
 * dispersive cell, one per cell per step, in double (core/incident.h): the
 * cuda and GL engines compute them on the GPU, or on the host (core/model.h,
 * in parallel from 16384 on) and upload them with TEXFDTD_CUDA2D_VALUES=host
 * or TEXFDTD_GL_VALUES=host.  The `host` column times model_slot_values /
 * model_disp_values alone for the same steps (one call per step): the host
 * path's share.
 *
 * Only core/engine.h and core/model.h are used: any 2D engine runs it.
 */
#define _GNU_SOURCE
#include "bench/common.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VACUUM, DIELECTRIC, LOSSY, DRUDE, NCASE };
static const char *const case_name[NCASE] = {"vacuum", "dielectric", "lossy", "drude"};

static int build(int c, int n, int steps, double cover, struct scene *s, struct model *m,
                 char *err, size_t errlen)
{
    char text[2048], obj[512] = "";
    const double w0 = 2 * M_PI * 1e9, r = sqrt(cover * n * (double)n / M_PI);
    static const char *const mat[NCASE] = {"", "dielectric\neps_r = 4", "lossy", "metal"};
    if (c != VACUUM)
        snprintf(obj, sizeof obj,
                 "[object.disc]\nshape = circle\nmaterial = %s\ncenter_x = %d\ncenter_y = %d\n"
                 "radius = %.3f\n",
                 mat[c], n / 2, n / 2, r);
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nsteps = %d\ncourant = 0.5\ncells_per_wavelength = 20\n"
             "[source]\ntype = plane_wave\nangle = 0\nfrequency_hz = 1e9\nfront_offset = %d\n"
             "[boundary]\ntype = cpml\ncells = 10\n"
             "[material.lossy]\neps_r = 4\nsigma = 0.05\n"
             "[material.metal]\neps_r = 1\ndrude = %.6g %.6g\n%s",
             n, n, steps, n + 100, 2 * w0, 0.1 * w0, obj);
    if (scene_load_text(s, case_name[c], text, strlen(text), NULL, 0, err, errlen))
        return -1;
    if (model_build(m, s, err, errlen)) {
        scene_free(s);
        return -1;
    }
    return 0;
}

/* Seconds of the host's per-step value lists alone for steps t0 .. t0+k-1. */
static double host_values(const struct model *m, enum precision p, int t0, int k, void *buf)
{
    const double start = now_seconds();
    for (int t = t0; t < t0 + k; t++) {
        if (p == PRECISION_SINGLE) {
            model_slot_values_f(m, t, buf);
            model_disp_values_f(m, t, buf);
        } else {
            model_slot_values_d(m, t, buf);
            model_disp_values_d(m, t, buf);
        }
    }
    return now_seconds() - start;
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--engine NAME] [--precision single|double] [--repeats R] [--warmup W] "
            "[--cover F] N STEPS\n"
            "  N x N cells in a CPML, empty or with a disc of a dielectric, a lossy dielectric\n"
            "  or a Drude metal covering F of the grid (default 0.05); STEPS steps timed R\n"
            "  times (default 5) after W warm-up steps (default 20); engine default cuda\n",
            argv0);
}

int main(int argc, char **argv)
{
    struct bench_args ba = {.extra_name = "--cover", .extra = 0.05};
    if (!bench_args_parse(&ba, argc, argv) || !(ba.extra > 0 && ba.extra < 0.5)) {
        usage(argv[0]);
        return 2;
    }
    const char *engine = ba.engine;
    const enum precision prec = ba.precision;
    const int reps = ba.repeats, warm = ba.warmup, n = ba.n, steps = ba.steps;
    const double cover = ba.extra;
    log_set_quiet(true);
    char err[ERRLEN];
    struct scene s[NCASE];
    struct model m[NCASE];
    struct engine *e[NCASE] = {NULL};
    const struct engine_options o = {
        .precision = prec,
        .denormals = prec == PRECISION_DOUBLE ? DENORMALS_KEEP : DENORMALS_FLUSH,
        .device = -1,
    };
    const int total = warm + reps * steps;
    printf("# material_bench: %s, %s, %d x %d cells, discs covering %.3f, %d steps x %d repeats "
           "after %d warm-up steps\n",
           engine, precision_name(prec), n, n, cover, steps, reps, warm);
    size_t most = 1;
    for (int c = 0; c < NCASE; c++) {
        if (build(c, n, total, cover, &s[c], &m[c], err, sizeof err)) {
            fprintf(stderr, "material_bench: %s: %s\n", case_name[c], err);
            return 1;
        }
        most = m[c].nslots > most ? m[c].nslots : most;
        most = m[c].ndisp > most ? m[c].ndisp : most;
        if (engine_create(engine, &m[c], &o, &e[c], err, sizeof err)) {
            printf("# %s: refused by %s: %s\n", case_name[c], engine, err);
            e[c] = NULL;
        }
    }
    if (!e[VACUUM]) {
        fprintf(stderr, "material_bench: %s refuses the vacuum scene\n", engine);
        return 1;
    }
    struct engine_info info;
    engine_describe(e[VACUUM], &info);
    printf("# device: %s; %s\n", info.device, info.detail);
    if (e[DIELECTRIC]) { /* where its slot values come from (GL: "slot values on ...") */
        struct engine_info di;
        engine_describe(e[DIELECTRIC], &di);
        printf("# dielectric: %s\n", di.detail);
    }
    double *t[NCASE], *h[NCASE];
    void *buf = malloc(most * precision_size(prec));
    int rc = !buf;
    for (int c = 0; c < NCASE; c++) {
        t[c] = calloc((size_t)reps, sizeof(double));
        h[c] = calloc((size_t)reps, sizeof(double));
        rc |= !t[c] || !h[c];
    }
    for (int c = 0; c < NCASE && !rc && warm > 0; c++)
        rc = e[c] && engine_step(e[c], warm, err, sizeof err);
    for (int r = 0; r < reps && !rc; r++)
        for (int c = 0; c < NCASE && !rc; c++) {
            if (!e[c])
                continue;
            const int t0 = e[c]->step;
            const double start = now_seconds();
            rc = engine_step(e[c], steps, err, sizeof err);
            t[c][r] = now_seconds() - start;
            h[c][r] = host_values(&m[c], prec, t0, steps, buf);
        }
    free(buf);
    if (rc) {
        fprintf(stderr, "material_bench: %s\n", err[0] ? err : "out of host memory");
        return 1;
    }
    double base = 0;
    for (int c = 0; c < NCASE; c++) {
        if (!e[c])
            continue;
        const double med = bench_median(t[c], reps), host = bench_median(h[c], reps);
        if (c == VACUUM)
            base = med;
        printf("material engine %s precision %s n %d case %s slots %zu disp %zu steps %d reps %d "
               "median_s %.6f min_s %.6f max_s %.6f gcells_per_s %.3f cost_percent %.1f "
               "host_values_s %.6f device \"%s\"\n",
               engine, precision_name(prec), n, case_name[c], m[c].nslots, m[c].ndisp, steps, reps,
               med, t[c][0], t[c][reps - 1], (double)n * n * steps / med * 1e-9,
               100.0 * (med - base) / base, host, info.device);
    }
    for (int c = 0; c < NCASE; c++) {
        free(t[c]);
        free(h[c]);
        if (e[c])
            engine_destroy(e[c]);
        model_free(&m[c]);
        scene_free(&s[c]);
    }
    return 0;
}
