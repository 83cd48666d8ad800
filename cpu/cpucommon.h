/* cpucommon.h - what the 2D and 3D CPU engines share: the denormal mode of
 * the stepping threads, aligned field arrays, the processor's name. */
#ifndef TEXFDTD_CPUCOMMON_H
#define TEXFDTD_CPUCOMMON_H

#include <stdbool.h>
#include <stddef.h>

#include "core/engine.h"

/* FTZ (flush denormal results to zero) and DAZ (treat denormal inputs as
 * zero) in MXCSR for DENORMALS_FLUSH: the float behaviour of the NVIDIA and
 * Mesa fragment shaders; IEEE gradual underflow for DENORMALS_KEEP.  MXCSR is
 * per thread, so every thread that steps sets it. */
void cpu_set_denormal_mode(enum denormals dn);

/* The OpenMP threads an engine steps on: `requested` where positive, else
 * all (omp_get_max_threads); 1 without OpenMP. */
int cpu_threads(int requested);

/* n elements of elem bytes, zeroed, 64-byte aligned; NULL with err filled. */
void *cpu_alloc_field(size_t n, size_t elem, const char *what, char *err, size_t errlen);

/* The same, for the large arrays of the 2D engine (its fields and DFT
 * sums): from 8 MiB on, 2 MiB aligned and marked for transparent huge pages
 * (madvise, before the first touch), where the kernel allows them
 * ("madvise" or "always" mode): fewer TLB misses for the tiled sweep's
 * bands of rows, each row on its own 4 KiB page (docs/performance.md). */
void *cpu_alloc_huge(size_t n, size_t elem, const char *what, char *err, size_t errlen);

/* The lowest index q < n with p[q] (float or double) NaN or Inf, or n if
 * every value is finite: a min reduction over `threads` OpenMP threads, so
 * the answer does not depend on their number.  The blow-up check of both
 * CPU engines. */
size_t cpu_first_bad(const void *p, size_t n, enum precision prec, int threads);

/* The monitors' samples (core/monitor.h) of a CPU engine: rows of
 * model->nsamples values, one row after each step. */
struct cpu_samples {
    void *buf; /* [model->sample_rows][nsamples] */
    int rows;  /* recorded since the last read */
};
int cpu_samples_init(struct cpu_samples *s, const struct model *m, size_t elem, char *err,
                     size_t errlen);
/* Append a row: sample k is field[samples[k].field][samples[k].cell - offset]
 * (offset: the first cell the arrays hold; 0 but for an MPI slab). */
void cpu_samples_take(struct cpu_samples *s, const struct model *m, void *const field[8],
                      size_t offset, size_t elem);
int cpu_samples_read(struct cpu_samples *s, const struct model *m, size_t elem, void *dst,
                     int rows, char *err, size_t errlen);
void cpu_samples_free(struct cpu_samples *s);

/* The instruction sets the row kernels are built for (cpu/rows2d.inc,
 * cpu/rows3d.inc: one copy each), and the GCC target attribute of each copy.
 * SSE2 is the x86-64 baseline; AVX-512 asks for the F, BW, DQ and VL
 * subsets and full 512-bit vectors (GCC may otherwise prefer 256 bits).
 * Every set gives the same bits (-ffp-contract=off: no FMA). */
enum cpu_isa { CPU_ISA_SSE2, CPU_ISA_AVX2, CPU_ISA_AVX512, CPU_ISA_COUNT };
#define CPU_TARGET_SSE2
#define CPU_TARGET_AVX2 __attribute__((target("avx2")))
#define CPU_TARGET_AVX512                                                                         \
    __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,prefer-vector-width=512")))

/* "sse2", "avx2", "avx512". */
const char *cpu_isa_name(enum cpu_isa isa);
/* Whether this CPU (and its OS) runs the set. */
int cpu_isa_supported(enum cpu_isa isa);
/* The default set for a CPU of this vendor (intel: GenuineIntel) and these
 * sets, for the 2D engine (wide) or the 3D one: AVX-512 for the 2D engine
 * on an Intel CPU that has it, else AVX2 where the CPU has it, else SSE2
 * (cpucommon.c says why: measured). */
enum cpu_isa cpu_isa_pick(bool intel, bool avx2, bool avx512, bool wide);
/* The set an engine runs: TEXFDTD_CPU_ISA=sse2|avx2|avx512 forces one (an
 * error, -1 with err filled, where this CPU lacks it or the name is
 * unknown); unset, empty or "auto" picks cpu_isa_pick's for this CPU, wide
 * for the 2D engine. */
int cpu_isa_choose(enum cpu_isa *isa, bool wide, char *err, size_t errlen);

/* The 2D engine's fused row kernel in float (cpu/rows2d.inc hez_vac) of
 * set isa, as the engine calls it: for bench/cpu_isa_bench's L1 line (the
 * kernel's rate on rows in the L1 cache), not for stepping. */
typedef void (*cpu_hez_vac_f)(float *restrict e, const float *restrict en, float *restrict x,
                              const float *restrict xs, float *restrict y, int a, int b,
                              float ch, float cz, bool part);
cpu_hez_vac_f cpu2d_hez_vac_f(enum cpu_isa isa);

/* "AMD EPYC ..." from /proc/cpuinfo, or "x86_64 CPU". */
void cpu_model_name(char *buf, size_t len);

#endif
