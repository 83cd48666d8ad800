/* common.cuh - what the CUDA engines share: status checks, the rounding-exact
 * arithmetic, and the C headers.
 *
 * Every float operation of an update goes through Ar<T, FTZ>: __fadd_rn /
 * __fmul_rn (or the PTX add.rn.ftz.f32 / mul.rn.ftz.f32 when the engine runs
 * with denormals flushed), which nvcc never contracts into an FMA.  So each
 * statement rounds exactly where the C reference (built with
 * -ffp-contract=off) rounds, and float results can be bit-identical to the
 * CPU engine in its FTZ/DAZ mode.  Doubles never flush (PTX has no .ftz for
 * f64): the CPU reference for double is DENORMALS_KEEP.
 */
#ifndef TEXFDTD_CUDA_COMMON_CUH
#define TEXFDTD_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "core/engine.h"
#include "core/model.h"
#include "core/util.h"
}

/* Check a CUDA call; on failure fill err with where and why and return -1. */
#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return seterr(err, errlen, "%s:%d: %s: %s", __FILE__, __LINE__, #call,            \
                          cudaGetErrorString(e_));                                            \
    } while (0)

template <typename T, bool FTZ> struct Ar;
template <> struct Ar<float, true> {
    static __device__ __forceinline__ float add(float a, float b)
    {
        float r;
        asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    }
    static __device__ __forceinline__ float sub(float a, float b)
    {
        float r;
        asm("sub.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    }
    static __device__ __forceinline__ float mul(float a, float b)
    {
        float r;
        asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    }
};
template <> struct Ar<float, false> {
    static __device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
    static __device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
    static __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
};
template <bool F> struct Ar<double, F> {
    static __device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
    static __device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
    static __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
};

/* pml_slab_e / pml_slab_h of core/model.h, for the device. */
__host__ __device__ static inline int dslab_e(int n, int N, int i, int *k)
{
    if (N <= 0)
        return -1;
    if (i >= 1 && i <= N - 1)
        return *k = i, 0;
    if (i >= n - N && i <= n - 2)
        return *k = i - (n - 1 - N), 1;
    return -1;
}
__host__ __device__ static inline int dslab_h(int n, int N, int i, int *k)
{
    if (N <= 0)
        return -1;
    if (i >= 0 && i <= N - 1)
        return *k = i, 0;
    if (i >= n - 1 - N && i <= n - 2)
        return *k = i - (n - 1 - N), 1;
    return -1;
}

/* The first device, or an error that says why there is none. */
static inline int cuda_pick_device(int want, int *dev, cudaDeviceProp *prop, char *err,
                                   size_t errlen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0)
        return seterr(err, errlen, "no CUDA device: %s",
                      e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    *dev = want >= 0 ? want : 0;
    if (*dev >= n)
        return seterr(err, errlen, "CUDA device %d requested, %d present", *dev, n);
    CK(cudaSetDevice(*dev));
    CK(cudaGetDeviceProperties(prop, *dev));
    return 0;
}

/* Refuse up front, with numbers, when `need` bytes do not fit. */
static inline int cuda_check_memory(const char *who, size_t need, size_t per_cell, char *err,
                                    size_t errlen)
{
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    char a[32], b[32], c[32];
    log_info("%s: %zu bytes per cell, %s needed, %s free of %s on the device", who, per_cell,
             fmt_bytes((double)need, a, sizeof a), fmt_bytes((double)free_b, b, sizeof b),
             fmt_bytes((double)total_b, c, sizeof c));
    if (need > free_b)
        return seterr(err, errlen, "%s: the scene needs %s of device memory, only %s is free",
                      who, fmt_bytes((double)need, a, sizeof a),
                      fmt_bytes((double)free_b, b, sizeof b));
    return 0;
}

#endif
