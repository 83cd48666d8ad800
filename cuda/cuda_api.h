/* cuda_api.h - what the CUDA code offers C callers beyond the engine
 * interface: timing with CUDA events and the device-to-device copy bandwidth
 * (bench/cuda_bench.c), the halo exchange's time (bench/mpi_bench.c).  Only in builds with TEXFDTD_HAVE_CUDA. */
#ifndef TEXFDTD_CUDA_API_H
#define TEXFDTD_CUDA_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
struct engine;
/* engine_step(e, steps) between two CUDA events on the default stream: *ms. */
int texfdtd_cuda_time_steps(struct engine *e, int steps, double *ms, char *err, size_t errlen);
/* The 3D CUDA engine's halo exchange under MPI: the milliseconds and the
 * number of exchanges so far (each completed first), then zeroed if reset.
 * NCCL: CUDA events around each exchange on its stream (from when it may
 * start, after the planes it sends are final, to its end: a late peer's
 * wait included); host-staged: the wall clock of the copies and MPI calls. */
int texfdtd_cuda3d_halo_stats(struct engine *e, int reset, double *ms, long long *n, char *err,
                              size_t errlen);
/* reps pairs of halo exchanges (Hx, Hy up, then Ex, Ey down) with no kernel
 * in between, each waited for: *us per exchange (timed as above).  The
 * planes moved are the ones the halos already hold, so the fields stay. */
int texfdtd_cuda3d_halo_alone(struct engine *e, int reps, double *us, char *err, size_t errlen);
/* cudaMemcpy device to device of `bytes`, reps times: GB/s counting read + write. */
int texfdtd_cuda_copy_bandwidth(size_t bytes, int reps, double *gbs, char *err, size_t errlen);
/* The CUDA devices this process sees (0 if none or no driver): a sweep's
 * worker takes one of them (core/sweep.c). */
int texfdtd_cuda_device_count(void);
#ifdef __cplusplus
}
#endif
#endif
