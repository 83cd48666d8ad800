/* monitor_bench.c - what a far-field monitor costs a 2D engine (run by
 * bench/monitor_cost.sh on the GPU machine; never a test).
 *
 *   monitor_bench [--engine NAME] [--precision single|double] [--repeats R]
 *                 [--warmup W] N STEPS
 *
 * Two scenes of N x N cells side by side in one process, each with its own
 * engine: a plane wave (20 cells per wavelength, S = 0.5, its front 100
 * cells before the middle at step 0) on a PEC circle of radius 32 cells
 * (k a = 10) in the middle, inside a 10-cell CPML; the
 * second adds a [monitor.far] contour at the frequencies 0.9, 1 and 1.1 (the
 * default distance: half-way between the circle and the layer; about
 * 100 000 samples at 16384^2).  Both engines first step W steps (warm-up:
 * kernels loaded, clocks up, a batch of samples read), then take turns, R
 * times each, at STEPS steps.  Fields start from zero and the scattered
 * wave grows from the circle (the cost measured here does not depend on
 * the values: no random fields needed).
 *
 * Timing: the wall clock around engine_step(), not device timers, because
 * part of the monitors' cost is on the host: engine_step reads a batch of
 * samples every model->sample_rows steps (one copy from the device) and
 * accumulates their DFTs there (core/monitor.c).  engine_step returns when
 * the engines' work is done (each waits for its device in step, and
 * read_samples copies synchronously) and the last batch of rows has been
 * read and consumed, so the time includes the final sample read.  Prints
 * the median of the R repeats, Gcells/s (cells x STEPS / s) with and
 * without the monitor, and the monitor's cost in per cent of the plain
 * step time.
 *
 * A third timing splits that cost: the monitor engine stepped as
 * engine_step steps it (batches of sample_rows steps, each followed by
 * read_samples) but without handing the rows to the host's DFT sums
 * (monitors_consume).  Its difference to the plain engine is the engine's
 * share (the gather on the device and the copy of the rows), the rest the
 * host's.  (Those steps are missing from the monitor's sums: its results
 * mean nothing here.)
 *
 * Only core/engine.h drives the engines (engine_create, engine_step,
 * read_field, and for the split the engine_ops step and read_samples that
 * engine_step calls: none of an engine's own API), so any 2D engine with
 * monitors runs it: cuda, gl-compute, gl, cpu.
 */
#define _GNU_SOURCE
#include "bench/common.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scene: the circle and the layer; `far`: with the far-field monitor. */
static int build(int n, int steps, bool far, struct scene *s, struct model *m, char *err,
                 size_t errlen)
{
    char text[1024];
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nsteps = %d\ncourant = 0.5\ncells_per_wavelength = 20\n"
             "[source]\ntype = plane_wave\nangle = 0\nfront_offset = %d\n"
             "[boundary]\ntype = cpml\ncells = 10\n"
             "[object.rod]\nshape = circle\nmaterial = pec\ncenter_x = %d\ncenter_y = %d\n"
             "radius = 32\n%s",
             n, n, steps, n / 2 - 100, n / 2, n / 2,
             far ? "[monitor.far]\nfrequencies = 0.9, 1, 1.1\n" : "");
    if (scene_load_text(s, far ? "monitor_bench_far.ini" : "monitor_bench.ini", text,
                        strlen(text), NULL, 0, err, errlen))
        return -1;
    if (model_build(m, s, err, errlen)) {
        scene_free(s);
        return -1;
    }
    return 0;
}

/* Wall-clock seconds of engine_step(e, steps). */
static int timed(struct engine *e, int steps, double *sec, char *err, size_t errlen)
{
    const double t0 = now_seconds();
    if (engine_step(e, steps, err, errlen))
        return -1;
    *sec = now_seconds() - t0;
    return 0;
}

/* The same steps as engine_step(e, steps) without monitors_consume: steps
 * and reads in batches of sample_rows (core/engine.c), into `rows`. */
static int timed_gather(struct engine *e, int steps, void *rows, double *sec, char *err,
                        size_t errlen)
{
    const int batch = e->model->sample_rows;
    const double t0 = now_seconds();
    for (int done = 0; done < steps;) {
        const int k = steps - done < batch ? steps - done : batch;
        if (e->ops->step(e, k, err, errlen) || e->ops->read_samples(e, rows, k, err, errlen))
            return -1;
        e->step += k;
        done += k;
    }
    *sec = now_seconds() - t0;
    return 0;
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--engine NAME] [--precision single|double] [--repeats R] [--warmup W] "
            "N STEPS\n"
            "  a PEC circle in a CPML, N x N cells, STEPS steps timed R times (default 5) after\n"
            "  W warm-up steps (default 20), with and without a [monitor.far] contour at 3\n"
            "  frequencies; engine default cuda, precision single\n",
            argv0);
}

int main(int argc, char **argv)
{
    struct bench_args ba = {0};
    if (!bench_args_parse(&ba, argc, argv)) {
        usage(argv[0]);
        return 2;
    }
    const char *engine = ba.engine;
    const enum precision prec = ba.precision;
    const int reps = ba.repeats, warm = ba.warmup, n = ba.n, steps = ba.steps;
    log_set_quiet(true);
    char err[ERRLEN];
    struct scene s[2];
    struct model m[2];
    struct engine *e[2] = {NULL, NULL};
    const struct engine_options o = {
        .precision = prec,
        .denormals = prec == PRECISION_DOUBLE ? DENORMALS_KEEP : DENORMALS_FLUSH,
        .device = -1,
    };
    const int total = warm + reps * steps;
    for (int k = 0; k < 2; k++) {
        if (build(n, total, k == 1, &s[k], &m[k], err, sizeof err)) {
            fprintf(stderr, "monitor_bench: %s\n", err);
            return 1;
        }
        if (engine_create(engine, &m[k], &o, &e[k], err, sizeof err)) {
            fprintf(stderr, "monitor_bench: %s%s: %s\n", engine, k ? " with [monitor.far]" : "",
                    err);
            return 1;
        }
    }
    struct engine_info info;
    engine_describe(e[1], &info);
    const struct model *mf = &m[1];
    char rowb[32];
    printf("# monitor_bench: %s, %s, %d x %d cells, %d steps x %d repeats after %d warm-up steps\n",
           engine, precision_name(prec), n, n, steps, reps, warm);
    printf("# device: %s; %s\n", info.device, info.detail);
    printf("# [monitor.far] at 0.9, 1, 1.1: contour cells %d .. %d (x), %d .. %d (y), %zu samples, "
           "read every %d steps (%s a batch)\n",
           s[1].far.lo[0], s[1].far.hi[0], s[1].far.lo[1], s[1].far.hi[1], mf->nsamples,
           mf->sample_rows,
           fmt_bytes((double)mf->sample_rows * (double)mf->nsamples * (double)precision_size(prec),
                     rowb, sizeof rowb));
    fflush(stdout);
    /* t[0]: plain, t[1]: with the monitor, t[2]: its gather and reads alone */
    const size_t es = precision_size(prec);
    double *t[3];
    for (int k = 0; k < 3; k++)
        t[k] = calloc((size_t)reps, sizeof(double));
    void *rows = malloc((size_t)mf->sample_rows * mf->nsamples * es);
    int rc = !t[0] || !t[1] || !t[2] || !rows;
    for (int k = 0; k < 2 && !rc && warm > 0; k++)
        rc = engine_step(e[k], warm, err, sizeof err);
    for (int r = 0; r < reps && !rc; r++)
        for (int k = 0; k < 3 && !rc; k++)
            rc = k < 2 ? timed(e[k], steps, &t[k][r], err, sizeof err)
                       : timed_gather(e[1], steps, rows, &t[2][r], err, sizeof err);
    free(rows);
    if (rc) {
        fprintf(stderr, "monitor_bench: %s\n", err[0] ? err : "out of host memory");
        return 1;
    }
    /* one field read through the interface, as a check that the runs did
     * something: the scattered Ez behind the circle (the shadow) is not
     * zero once the front has passed, after some 200 steps */
    void *ez = malloc(m[1].ncells * es);
    double back = 0;
    if (ez && !engine_read(e[1], FIELD_EZ, ez, err, sizeof err)) {
        const size_t c = (size_t)(n / 2 + 40) + (size_t)(n / 2) * (size_t)n;
        back = prec == PRECISION_DOUBLE ? ((double *)ez)[c] : ((float *)ez)[c];
    }
    free(ez);
    double med[3];
    const char *label[3] = {"plain", "monitors", "gather"};
    for (int k = 0; k < 3; k++) {
        med[k] = bench_median(t[k], reps);
        printf("%-9s median %.4f s (min %.4f, max %.4f)  %8.3f Gcells/s\n", label[k], med[k],
               t[k][0], t[k][reps - 1], (double)n * n * steps / med[k] * 1e-9);
    }
    const double cost = 100.0 * (med[1] - med[0]) / med[0];
    const double eng = 100.0 * (med[2] - med[0]) / med[0], host = 100.0 * (med[1] - med[2]) / med[0];
    printf("# the monitor costs %.2f %% of the plain step time (%.1f us a step): the engine's "
           "gather and reads %.2f %% (%.1f us), the host's DFT sums %.2f %% (%.1f us); Ez "
           "behind the circle %.3g\n",
           cost, (med[1] - med[0]) / steps * 1e6, eng, (med[2] - med[0]) / steps * 1e6, host,
           (med[1] - med[2]) / steps * 1e6, back);
    printf("monitor engine %s precision %s n %d steps %d reps %d samples %zu rows_per_read %d "
           "plain_s %.6f monitors_s %.6f gather_s %.6f plain_gcells_per_s %.3f "
           "monitors_gcells_per_s %.3f cost_percent %.2f engine_percent %.2f host_percent %.2f "
           "device \"%s\"\n",
           engine, precision_name(prec), n, steps, reps, mf->nsamples, mf->sample_rows, med[0],
           med[1], med[2], (double)n * n * steps / med[0] * 1e-9,
           (double)n * n * steps / med[1] * 1e-9, cost, eng, host, info.device);
    for (int k = 0; k < 3; k++)
        free(t[k]);
    for (int k = 0; k < 2; k++) {
        engine_destroy(e[k]);
        model_free(&m[k]);
        scene_free(&s[k]);
    }
    return 0;
}
