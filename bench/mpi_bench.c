/* mpi_bench.c - time a 3D engine split over MPI ranks, writing nothing
 * (bench/device_mpi.sh: strong and weak scaling of the CUDA engine, one GPU
 * against two).
 *
 *   [mpirun -np P] build/bench/mpi_bench SCENE STEPS [--precision double] [SECTION.KEY=VALUE ...]
 *
 * Environment: BENCH_ENGINE (default cuda).  Every rank builds the model and
 * the engine (collective under mpirun, as `texfdtd run`), steps 10 times to
 * warm up, then the ranks meet (an MPI_Allreduce), STEPS steps are timed by
 * the wall clock until every rank is done (another Allreduce), and rank 0
 * prints one line: ranks, grid, seconds, ms/step and the effective rate over
 * all nx*ny*nz cells (Mcells/s).  Each rank's engine logs its halo time
 * when destroyed (cuda: "halo exchange ... us each").  No fields are read
 * back or written, so the grid may be as large as the GPUs hold. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decomp.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"

int main(int argc, char **argv)
{
    char err[ERRLEN];
    if (decomp_init(&argc, &argv, err, sizeof err)) {
        fprintf(stderr, "mpi_bench: %s\n", err);
        return 1;
    }
    decomp_unmute(); /* every rank's failures and halo times are its own */
    if (argc < 3) {
        fprintf(stderr, "usage: mpi_bench SCENE STEPS [--precision double] [SECTION.KEY=VALUE ...]\n");
        decomp_finalize(2);
        return 2;
    }
    const int steps = atoi(argv[2]);
    enum precision prec = PRECISION_SINGLE;
    const char *sets[64];
    int nset = 0;
    for (int a = 3; a < argc && nset < 64; a++) {
        if (!strcmp(argv[a], "--precision") && a + 1 < argc) {
            prec = !strcmp(argv[++a], "double") ? PRECISION_DOUBLE : PRECISION_SINGLE;
            continue;
        }
        sets[nset++] = argv[a];
    }
    const char *engine = getenv("BENCH_ENGINE") ? getenv("BENCH_ENGINE") : "cuda";
    struct scene s;
    struct model m;
    struct engine *e = NULL;
    int rc = 1;
    if (scene_load(&s, argv[1], sets, nset, err, sizeof err)) {
        fprintf(stderr, "mpi_bench: %s\n", err);
        decomp_finalize(2);
        return 2;
    }
    double t0 = now_seconds();
    if (model_build(&m, &s, err, sizeof err)) {
        fprintf(stderr, "mpi_bench: %s\n", err);
        goto out_scene;
    }
    const double t_model = now_seconds() - t0;
    struct engine_options o = {.precision = prec, .denormals = DENORMALS_FLUSH, .device = -1};
    t0 = now_seconds();
    if (engine_create(engine, &m, &o, &e, err, sizeof err)) {
        fprintf(stderr, "mpi_bench: rank %d: %s\n", decomp_rank(), err);
        goto out_model;
    }
    const double t_create = now_seconds() - t0;
    struct engine_info info;
    engine_describe(e, &info);
    if (decomp_rank() == 0)
        printf("mpi_bench: engine %s on %s; %s\n", info.engine, info.device, info.detail);
    if (engine_step(e, 10, err, sizeof err)) {
        fprintf(stderr, "mpi_bench: rank %d: warm-up: %s\n", decomp_rank(), err);
        goto out_engine;
    }
    decomp_agree(0); /* every rank starts the clock together */
    t0 = now_seconds();
    if (engine_step(e, steps, err, sizeof err)) {
        fprintf(stderr, "mpi_bench: rank %d: %s\n", decomp_rank(), err);
        goto out_engine;
    }
    decomp_agree(0); /* ... and stops it when the last is done */
    const double dt = now_seconds() - t0;
    const double cells = (double)m.nx * (double)m.ny * (double)m.nz;
    if (decomp_rank() == 0) {
        printf("mpi_bench: %d rank%s, %d x %d x %d, %s, %d steps in %.3f s: %.3f ms/step, "
               "%.1f Mcells/s (model %.1f s, engine set-up %.1f s)\n",
               decomp_size(), decomp_size() == 1 ? "" : "s", m.nx, m.ny, m.nz,
               precision_name(prec), steps, dt, dt * 1e3 / steps, cells * steps / dt / 1e6,
               t_model, t_create);
        fflush(stdout);
    }
    rc = 0;
out_engine:
    engine_destroy(e);
out_model:
    model_free(&m);
out_scene:
    scene_free(&s);
    decomp_finalize(rc);
    return rc;
}
