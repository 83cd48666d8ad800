/* cuda_api.h - what the CUDA code offers C callers beyond the engine
 * interface: timing with CUDA events and the device-to-device copy bandwidth
 * (bench/cuda_bench.c).  Only in builds with TEXFDTD_HAVE_CUDA. */
#ifndef TEXFDTD_CUDA_API_H
#define TEXFDTD_CUDA_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
struct engine;
/* engine_step(e, steps) between two CUDA events on the default stream: *ms. */
int texfdtd_cuda_time_steps(struct engine *e, int steps, double *ms, char *err, size_t errlen);
/* cudaMemcpy device to device of `bytes`, reps times: GB/s counting read + write. */
int texfdtd_cuda_copy_bandwidth(size_t bytes, int reps, double *gbs, char *err, size_t errlen);
#ifdef __cplusplus
}
#endif
#endif
