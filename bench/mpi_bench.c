/* mpi_bench.c - time a 3D engine split over MPI ranks, writing nothing
 * (bench/scale.sh: strong and weak scaling of the CUDA engine over GPUs).
 *
 *   [mpirun -np P] build/bench/mpi_bench SCENE STEPS [--repeats R] [--precision double]
 *                                        [SECTION.KEY=VALUE ...]
 *
 * Environment: BENCH_ENGINE (default cuda); BENCH_HALO=skip runs the cuda
 * engine's steps split exactly as with NCCL but moves no halo (the fields
 * are wrong: the difference to a real run is the exchange's exposed cost);
 * BENCH_COPY_GIB (default 2): the device-to-device copy of that many GiB
 * measured on every rank's GPU after its engine is made, for the bandwidth
 * floor (0: skip).
 *
 * Every rank builds the model and the engine (collective under mpirun, as
 * `texfdtd run`), steps 20 times to warm up, then R repeats (default 5) of:
 * the ranks meet (an MPI_Allreduce), STEPS steps, the ranks meet again.  A
 * repeat's time is the wall clock from the first meeting to the second on
 * rank 0, so it is the slowest rank's; each rank's own time is also taken
 * with CUDA events around its steps (cuda).  Rank 0 prints every repeat and
 * one "median" line: ms/step and the effective rate over all nx*ny*nz
 * cells (Mcells/s).  With cuda under MPI every rank prints its halo
 * exchange: time per exchange (median over the repeats, CUDA events on the
 * exchange stream for NCCL: from when it may start to its end, so a late
 * peer's wait is in it) and its share of the rank's step time.  The fields
 * Then (cuda under MPI, not with BENCH_HALO) 50 pairs of exchanges with no
 * kernel beside them: what the planes cost on the link alone.  The fields
 * start at rest (the point source's wave grows from the middle): a step's
 * memory traffic does not depend on the values, and denormals are flushed.
 * No field is read back or written, so the grid may be as large as the GPUs
 * hold. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/decomp.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"
#ifdef TEXFDTD_HAVE_CUDA
#include "cuda/cuda_api.h"
#endif

enum { MAXREP = 64 };

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double s[MAXREP];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

int main(int argc, char **argv)
{
    char err[ERRLEN];
    if (decomp_init(&argc, &argv, err, sizeof err)) {
        fprintf(stderr, "mpi_bench: %s\n", err);
        return 1;
    }
    decomp_unmute(); /* every rank's failures and halo times are its own */
    if (argc < 3) {
        fprintf(stderr, "usage: mpi_bench SCENE STEPS [--repeats R] [--precision double] "
                        "[SECTION.KEY=VALUE ...]\n");
        decomp_finalize(2);
        return 2;
    }
    const int steps = atoi(argv[2]);
    int repeats = 5;
    enum precision prec = PRECISION_SINGLE;
    const char *sets[64];
    int nset = 0;
    for (int a = 3; a < argc && nset < 64; a++) {
        if (!strcmp(argv[a], "--precision") && a + 1 < argc) {
            prec = !strcmp(argv[++a], "double") ? PRECISION_DOUBLE : PRECISION_SINGLE;
            continue;
        }
        if (!strcmp(argv[a], "--repeats") && a + 1 < argc) {
            repeats = atoi(argv[++a]);
            continue;
        }
        sets[nset++] = argv[a];
    }
    if (steps < 1 || repeats < 1 || repeats > MAXREP) {
        fprintf(stderr, "mpi_bench: STEPS must be at least 1 and --repeats 1 .. %d\n", MAXREP);
        decomp_finalize(2);
        return 2;
    }
    const char *engine = getenv("BENCH_ENGINE") ? getenv("BENCH_ENGINE") : "cuda";
    const bool cuda = !strcmp(engine, "cuda");
    if (getenv("BENCH_HALO") && !strcmp(getenv("BENCH_HALO"), "skip")) {
        setenv("TEXFDTD_HALO", "skip", 1);
        setenv("TEXFDTD_BENCH_HALO_SKIP", "1", 1);
    }
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
#ifdef TEXFDTD_HAVE_CUDA
    const double copy_gib = getenv("BENCH_COPY_GIB") ? atof(getenv("BENCH_COPY_GIB")) : 2.0;
    if (cuda && copy_gib > 0) {
        double gbs = 0;
        /* on the engine's GPU (engine_create made it current; measured before the
         * engine was made, every rank measured GPU 0, all at once) */
        if (texfdtd_cuda_copy_bandwidth((size_t)(copy_gib * 1073741824.0), 10, &gbs, err, sizeof err))
            fprintf(stderr, "mpi_bench: rank %d: copy bandwidth: %s\n", decomp_rank(), err);
        else
            printf("mpi_bench: rank %d: device-to-device copy %.1f GiB x 10: %.1f GB/s (read + write)\n",
                   decomp_rank(), copy_gib, gbs);
        fflush(stdout);
    }
#endif
    struct engine_info info;
    engine_describe(e, &info);
    if (decomp_rank() == 0)
        printf("mpi_bench: engine %s on %s; %s (model %.1f s, engine set-up %.1f s)\n", info.engine,
               info.device, info.detail, t_model, t_create);
    if (engine_step(e, 20, err, sizeof err)) {
        fprintf(stderr, "mpi_bench: rank %d: warm-up: %s\n", decomp_rank(), err);
        goto out_engine;
    }
    const double cells = (double)m.nx * (double)m.ny * (double)m.nz;
    double wall[MAXREP], own[MAXREP], halo_us[MAXREP], halo_share[MAXREP];
    int nhalo = 0;
    for (int r = 0; r < repeats; r++) {
#ifdef TEXFDTD_HAVE_CUDA
        if (cuda && decomp_size() > 1 && texfdtd_cuda3d_halo_stats(e, 1, NULL, NULL, err, sizeof err)) {
            fprintf(stderr, "mpi_bench: rank %d: %s\n", decomp_rank(), err);
            goto out_engine;
        }
#endif
        decomp_agree(0); /* every rank starts the clock together */
        t0 = now_seconds();
        int bad = 0;
#ifdef TEXFDTD_HAVE_CUDA
        if (cuda)
            bad = texfdtd_cuda_time_steps(e, steps, &own[r], err, sizeof err);
        else
#endif
            bad = engine_step(e, steps, err, sizeof err);
        if (bad) {
            fprintf(stderr, "mpi_bench: rank %d: %s\n", decomp_rank(), err);
            goto out_engine;
        }
        if (!cuda)
            own[r] = (now_seconds() - t0) * 1e3;
        decomp_agree(0); /* ... and stops it when the last is done */
        wall[r] = (now_seconds() - t0) * 1e3;
#ifdef TEXFDTD_HAVE_CUDA
        double hms = 0;
        long long hn = 0;
        if (cuda && decomp_size() > 1) {
            if (texfdtd_cuda3d_halo_stats(e, 0, &hms, &hn, err, sizeof err)) {
                fprintf(stderr, "mpi_bench: rank %d: %s\n", decomp_rank(), err);
                goto out_engine;
            }
            if (hn > 0) {
                halo_us[nhalo] = hms * 1e3 / (double)hn;
                halo_share[nhalo++] = hms / own[r];
            }
        }
#endif
        if (decomp_rank() == 0) {
            printf("mpi_bench: repeat %d: %.3f ms/step (rank 0 alone %.3f), %.1f Mcells/s\n", r + 1,
                   wall[r] / steps, own[r] / steps, cells * steps / (wall[r] * 1e-3) / 1e6);
            fflush(stdout);
        }
    }
    const double wm = median(wall, repeats), om = median(own, repeats);
    if (decomp_rank() == 0) {
        printf("mpi_bench: median of %d: %d rank%s, %d x %d x %d, %s, %d steps: %.3f ms/step, "
               "%.1f Mcells/s (rank 0 alone: %.3f ms/step)\n",
               repeats, decomp_size(), decomp_size() == 1 ? "" : "s", m.nx, m.ny, m.nz,
               precision_name(prec), steps, wm / steps, cells * steps / (wm * 1e-3) / 1e6,
               om / steps);
        fflush(stdout);
    }
    if (nhalo) {
        printf("mpi_bench: rank %d of %d: halo exchange %.1f us each (median of %d repeats; "
               "2 exchanges a step), %.1f %% of its own step time\n",
               decomp_rank(), decomp_size(), median(halo_us, nhalo), nhalo,
               100.0 * median(halo_share, nhalo));
        fflush(stdout);
    }
#ifdef TEXFDTD_HAVE_CUDA
    /* the exchange with nothing beside it: what the planes cost on the link */
    if (cuda && decomp_size() > 1 && !getenv("BENCH_HALO")) {
        double us = 0;
        decomp_agree(0);
        if (texfdtd_cuda3d_halo_alone(e, 5, &us, err, sizeof err) ||
            texfdtd_cuda3d_halo_alone(e, 50, &us, err, sizeof err)) {
            fprintf(stderr, "mpi_bench: rank %d: %s\n", decomp_rank(), err);
            goto out_engine;
        }
        const double mib = 2.0 * m.nx * m.ny * precision_size(prec) / 1048576.0;
        printf("mpi_bench: rank %d of %d: halo exchange alone %.1f us each (2 planes, %.2f MiB "
               "each way), %.1f GB/s each way\n", decomp_rank(), decomp_size(), us, mib,
               mib * 1048576.0 / (us * 1e-6) / 1e9);
        fflush(stdout);
    }
#endif
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
