/* cpucommon.h - what the 2D and 3D CPU engines share: the denormal mode of
 * the stepping threads, aligned field arrays, the processor's name. */
#ifndef TEXFDTD_CPUCOMMON_H
#define TEXFDTD_CPUCOMMON_H

#include <stddef.h>

#include "core/engine.h"

/* FTZ (flush denormal results to zero) and DAZ (treat denormal inputs as
 * zero) in MXCSR for DENORMALS_FLUSH: the float behaviour of the NVIDIA and
 * Mesa fragment shaders; IEEE gradual underflow for DENORMALS_KEEP.  MXCSR is
 * per thread, so every thread that steps sets it. */
void cpu_set_denormal_mode(enum denormals dn);

/* n elements of elem bytes, zeroed, 64-byte aligned; NULL with err filled. */
void *cpu_alloc_field(size_t n, size_t elem, const char *what, char *err, size_t errlen);

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

/* "AMD EPYC ..." from /proc/cpuinfo, or "x86_64 CPU". */
void cpu_model_name(char *buf, size_t len);

#endif
