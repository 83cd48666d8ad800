/* common.cuh - what the CUDA engines share: status checks, the rounding-exact
 * arithmetic, the monitors' gather, and the C headers.
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
#include <stdlib.h>
#include <string.h>

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

/* ---- the monitors' gather (core/monitor.h) -------------------------------
 * model->samples lists (field, cell) pairs sorted by field, then cell, so the
 * samples of field f are one run first[f] .. first[f+1]-1.  After a step,
 * k_sample_gather copies sample k from its field's array at cell[k] (the
 * index in the engine's padded layout) into row[k] of the batch buffer: a
 * thread per sample, nothing read back.  read_samples then copies the rows
 * recorded since the last read to the host with one cudaMemcpy.  (The 3D
 * engine has its own gather, k_gather in cuda3d_sources.cu, for its MPI slabs.) */
struct cuda_samples {
    long long first[9]; /* enum field f: samples first[f] .. first[f+1]-1 */
    long long *cell;    /* device: padded index of each sample in its field's array */
    void *buf;          /* device: [model->sample_rows][nsamples] */
    int rows;           /* rows recorded since the last read */
};

template <typename T> struct GatherArgs {
    const T *field[8]; /* by enum field; only the sampled ones are read */
    long long first[9];
    const long long *cell;
    T *row;
    long long n;
};

template <typename T> __global__ void k_sample_gather(GatherArgs<T> g)
{
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= g.n)
        return;
    /* the last field whose run starts at or before k holds it (empty runs
     * before it are passed over, those after start beyond k) */
    const T *src = g.field[0];
#pragma unroll
    for (int f = 1; f < 8; f++)
        if (k >= g.first[f])
            src = g.field[f];
    g.row[k] = src[g.cell[k]];
}

/* Device arrays for the model's samples, cells mapped to the layout
 * [nz][py][px] (2D: py = ny, one plane).  Without samples, nothing. */
static inline int cuda_samples_init(struct cuda_samples *s, const struct model *m, size_t es,
                                    int px, int py, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!m->nsamples)
        return 0;
    const size_t n = m->nsamples, nxy = (size_t)m->nx * (size_t)m->ny;
    long long *cell = (long long *)malloc(n * sizeof *cell);
    if (!cell)
        return seterr(err, errlen, "monitor samples: out of host memory");
    int f = 0;
    for (size_t k = 0; k < n; k++) {
        const size_t c = m->samples[k].cell;
        const size_t i = c % (size_t)m->nx, j = (c % nxy) / (size_t)m->nx, z = c / nxy;
        cell[k] = (long long)(i + (size_t)px * (j + (size_t)py * z));
        while (f < (int)m->samples[k].field)
            s->first[++f] = (long long)k;
    }
    while (f < 8)
        s->first[++f] = (long long)n;
    cudaError_t e1 = cudaMalloc((void **)&s->cell, n * sizeof *cell);
    if (e1 == cudaSuccess)
        e1 = cudaMemcpy(s->cell, cell, n * sizeof *cell, cudaMemcpyHostToDevice);
    free(cell);
    if (e1 == cudaSuccess)
        e1 = cudaMalloc(&s->buf, (size_t)m->sample_rows * n * es);
    if (e1 == cudaSuccess)
        e1 = cudaMemset(s->buf, 0, (size_t)m->sample_rows * n * es);
    if (e1 != cudaSuccess)
        return seterr(err, errlen, "monitor samples: cannot allocate %zu bytes on the device: %s",
                      (size_t)m->sample_rows * n * es + n * sizeof *cell, cudaGetErrorString(e1));
    return 0;
}

/* Device memory cuda_samples_init takes: the batch buffer and the indices. */
static inline size_t cuda_samples_bytes(const struct model *m, size_t es)
{
    return m->nsamples * ((size_t)m->sample_rows * es + sizeof(long long));
}

/* Append a row from the current fields (field[f]: array of enum field f, or
 * NULL where the engine has none).  Rows past sample_rows are dropped, as
 * the CPU engines drop them (engine_step never lets that happen). */
template <typename T>
static int cuda_samples_take(struct cuda_samples *s, const struct model *m, T *const field[8],
                             char *err, size_t errlen)
{
    if (!m->nsamples || s->rows >= m->sample_rows)
        return 0;
    GatherArgs<T> g;
    for (int f = 0; f < 8; f++)
        g.field[f] = field[f];
    for (int f = 0; f < 9; f++)
        g.first[f] = s->first[f];
    g.cell = s->cell;
    g.row = (T *)s->buf + (size_t)s->rows * m->nsamples;
    g.n = (long long)m->nsamples;
    k_sample_gather<T><<<(unsigned)((m->nsamples + 255) / 256), 256>>>(g);
    CK(cudaGetLastError());
    s->rows++;
    return 0;
}

/* read_samples: the `rows` rows recorded since the last call, one copy. */
static inline int cuda_samples_read(struct cuda_samples *s, const struct model *m, size_t es,
                                    void *dst, int rows, char *err, size_t errlen)
{
    if (rows != s->rows)
        return seterr(err, errlen, "monitor samples: %d rows asked for, %d recorded", rows,
                      s->rows);
    if (rows > 0)
        CK(cudaMemcpy(dst, s->buf, (size_t)rows * m->nsamples * es, cudaMemcpyDeviceToHost));
    s->rows = 0;
    return 0;
}

static inline void cuda_samples_free(struct cuda_samples *s)
{
    cudaFree(s->cell);
    cudaFree(s->buf);
    s->cell = NULL;
    s->buf = NULL;
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

/* The blow-up check (check_finite): is a value NaN or Inf?  Its exponent
 * bits are all ones; tested on the bits, which no compiler option can
 * fold away. */
__device__ __forceinline__ bool not_finite(float v)
{
    return (__float_as_uint(v) & 0x7f800000u) == 0x7f800000u;
}
__device__ __forceinline__ bool not_finite(double v)
{
    return ((unsigned long long)__double_as_longlong(v) & 0x7ff0000000000000ull)
           == 0x7ff0000000000000ull;
}

/* The lowest unpadded index r nx + i of a NaN or Inf in a [rows][px]
 * array (columns i < nx) into *first by atomicMin; *first starts at ~0.
 * (A 3D field's rows are its planes' rows: r = j + ny k.)  32 x 8 blocks,
 * rows strided over the grid: a warp is 32 consecutive i of one row, so
 * its lowest bad lane holds its lowest bad index and only that lane does
 * the atomic. */
template <typename T>
__global__ void k_first_bad(const T *a, int nx, long long rows, int px, unsigned long long *first)
{
    const int i = blockIdx.x * 32 + threadIdx.x;
    for (long long r = blockIdx.y * 8LL + threadIdx.y; r < rows; r += gridDim.y * 8LL) {
        const bool bad = i < nx && not_finite(a[r * px + i]);
        const unsigned m = __ballot_sync(0xffffffffu, bad);
        if (m && (int)threadIdx.x == __ffs(m) - 1)
            atomicMin(first, (unsigned long long)r * (unsigned long long)nx + (unsigned long long)i);
    }
}

/* The scan of check_finite: for each of the nf (at most 6) arrays a[k] of
 * es-byte values, [rows][px] with columns i < nx, the lowest index
 * r nx + i of a NaN or Inf into first[k] (~0 where none): one k_first_bad
 * launch an array into the device words *words (6, allocated on first
 * use, the engine's to free), nf words read back. */
static inline int cuda_first_bad(const void *const *a, int nf, int nx, long long rows, int px, size_t es,
                                 unsigned long long **words, unsigned long long *first, char *err,
                                 size_t errlen)
{
    if (!*words)
        CK(cudaMalloc((void **)words, 6 * sizeof **words));
    CK(cudaMemset(*words, 0xff, (size_t)nf * sizeof **words));
    const long long by = (rows + 7) / 8;
    const dim3 b(32, 8), g((unsigned)((nx + 31) / 32), (unsigned)(by < 65535 ? by : 65535));
    for (int k = 0; k < nf; k++) {
        if (es == sizeof(double))
            k_first_bad<double><<<g, b>>>((const double *)a[k], nx, rows, px, *words + k);
        else
            k_first_bad<float><<<g, b>>>((const float *)a[k], nx, rows, px, *words + k);
    }
    CK(cudaGetLastError());
    CK(cudaMemcpy(first, *words, (size_t)nf * sizeof *first, cudaMemcpyDeviceToHost));
    return 0;
}

#endif
