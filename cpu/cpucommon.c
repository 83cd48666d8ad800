/* cpucommon.c - see cpucommon.h. */
#define _GNU_SOURCE
#include "cpucommon.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xmmintrin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MXCSR_DAZ 0x0040u
#define MXCSR_FTZ 0x8000u

void cpu_set_denormal_mode(enum denormals dn)
{
    unsigned csr = _mm_getcsr();
    if (dn == DENORMALS_FLUSH)
        csr |= MXCSR_DAZ | MXCSR_FTZ;
    else
        csr &= ~(MXCSR_DAZ | MXCSR_FTZ);
    _mm_setcsr(csr);
}

void *cpu_alloc_huge(size_t n, size_t elem, const char *what, char *err, size_t errlen)
{
    const size_t huge = (size_t)2 << 20;
    if (n * elem < 4 * huge)
        return cpu_alloc_field(n, elem, what, err, errlen);
    const size_t bytes = (n * elem + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, bytes);
    if (!p) {
        char b[32];
        seterr(err, errlen, "cannot allocate %s: %s", what, fmt_bytes((double)bytes, b, sizeof b));
        return NULL;
    }
    madvise(p, bytes, MADV_HUGEPAGE); /* a wish: refused, the pages stay small */
    memset(p, 0, bytes);
    return p;
}

int cpu_threads(int requested)
{
#ifdef _OPENMP
    return requested > 0 ? requested : omp_get_max_threads();
#else
    (void)requested;
    return 1;
#endif
}

void *cpu_alloc_field(size_t n, size_t elem, const char *what, char *err, size_t errlen)
{
    const size_t bytes = (n * elem + 63) / 64 * 64;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (!p) {
        char b[32];
        seterr(err, errlen, "cannot allocate %s: %s", what, fmt_bytes((double)bytes, b, sizeof b));
        return NULL;
    }
    memset(p, 0, bytes);
    return p;
}

const char *cpu_isa_name(enum cpu_isa isa)
{
    static const char *const names[CPU_ISA_COUNT] = {"sse2", "avx2", "avx512"};
    return isa >= 0 && isa < CPU_ISA_COUNT ? names[isa] : "?";
}

int cpu_isa_supported(enum cpu_isa isa)
{
    __builtin_cpu_init();
    switch (isa) {
    case CPU_ISA_SSE2: return 1; /* x86-64 */
    case CPU_ISA_AVX2: return __builtin_cpu_supports("avx2");
    case CPU_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
               && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    default: return 0;
    }
}

/* The default, from measurements (docs/performance.md, "CPU row kernels per
 * instruction set" and "AVX-512 on an Intel CPU"): on the AMD Zen 4
 * measured AVX-512 was never faster than AVX2 and 10-25 % slower in cache
 * (a 512-bit operation runs as two 256-bit halves there), so AVX2 (SSE2
 * without it, what the loader picked when the kernels were GCC
 * target_clones).  On the Intel Xeon (Cascade Lake) measured, the 2D
 * engine's tiled sweep ran 1.17-1.26 times faster with AVX-512 (its band of
 * rows in the L2) and the plain sweep as fast, but the 3D engine 8-12 %
 * slower: so AVX-512 for the 2D engine (wide) on Intel CPUs that have it. */
enum cpu_isa cpu_isa_pick(bool intel, bool avx2, bool avx512, bool wide)
{
    if (wide && intel && avx512)
        return CPU_ISA_AVX512;
    return avx2 ? CPU_ISA_AVX2 : CPU_ISA_SSE2;
}

static enum cpu_isa cpu_isa_auto(bool wide)
{
    __builtin_cpu_init();
    return cpu_isa_pick(__builtin_cpu_is("intel"), cpu_isa_supported(CPU_ISA_AVX2),
                        cpu_isa_supported(CPU_ISA_AVX512), wide);
}

int cpu_isa_choose(enum cpu_isa *isa, bool wide, char *err, size_t errlen)
{
    const char *v = getenv("TEXFDTD_CPU_ISA");
    if (!v || !*v || !strcmp(v, "auto")) {
        *isa = cpu_isa_auto(wide);
        return 0;
    }
    for (int k = 0; k < CPU_ISA_COUNT; k++) {
        if (strcmp(v, cpu_isa_name((enum cpu_isa)k)))
            continue;
        if (!cpu_isa_supported((enum cpu_isa)k))
            return seterr(err, errlen, "cpu engine: TEXFDTD_CPU_ISA=%s, but this CPU lacks %s", v,
                          k == CPU_ISA_AVX512 ? "AVX-512 (F, BW, DQ and VL)" : "AVX2");
        *isa = (enum cpu_isa)k;
        return 0;
    }
    return seterr(err, errlen, "cpu engine: TEXFDTD_CPU_ISA=%s: not one of auto, sse2, avx2, avx512",
                  v);
}

void cpu_model_name(char *buf, size_t len)
{
    snprintf(buf, len, "x86_64 CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *p = strchr(line, ':');
            if (p) {
                p += 1 + (p[1] == ' ');
                p[strcspn(p, "\n")] = 0;
                snprintf(buf, len, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

size_t cpu_first_bad(const void *p, size_t n, enum precision prec, int threads)
{
    size_t first = n;
    if (prec == PRECISION_DOUBLE) {
        const double *d = p;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first)
        for (size_t q = 0; q < n; q++)
            if (!isfinite(d[q]) && q < first)
                first = q;
    } else {
        const float *f = p;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first)
        for (size_t q = 0; q < n; q++)
            if (!isfinite(f[q]) && q < first)
                first = q;
    }
    return first;
}

int cpu_samples_init(struct cpu_samples *s, const struct model *m, size_t elem, char *err,
                     size_t errlen)
{
    s->rows = 0;
    s->buf = NULL;
    if (!m->nsamples)
        return 0;
    s->buf = xcalloc((size_t)m->sample_rows * m->nsamples, elem, "monitor samples", err, errlen);
    return s->buf ? 0 : -1;
}

void cpu_samples_take(struct cpu_samples *s, const struct model *m, void *const field[8],
                      size_t offset, size_t elem)
{
    if (!m->nsamples || s->rows >= m->sample_rows)
        return;
    char *row = (char *)s->buf + (size_t)s->rows * m->nsamples * elem;
    for (size_t k = 0; k < m->nsamples; k++) {
        const struct sample *x = &m->samples[k];
        memcpy(row + k * elem, (const char *)field[x->field] + (x->cell - offset) * elem, elem);
    }
    s->rows++;
}

int cpu_samples_read(struct cpu_samples *s, const struct model *m, size_t elem, void *dst,
                     int rows, char *err, size_t errlen)
{
    if (rows != s->rows)
        return seterr(err, errlen, "monitor samples: %d rows asked for, %d recorded", rows,
                      s->rows);
    memcpy(dst, s->buf, (size_t)rows * m->nsamples * elem);
    s->rows = 0;
    return 0;
}

void cpu_samples_free(struct cpu_samples *s)
{
    free(s->buf);
    s->buf = NULL;
}
