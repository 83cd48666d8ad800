/* common.h - what the bench programs share: the sort of repeat timings
 * (median, min, max) and the options of the side-by-side benches
 * (material_bench, monitor_bench):
 *
 *   [--engine NAME] [--precision single|double] [--repeats R] [--warmup W]
 *   [EXTRA VALUE] N STEPS
 *
 * Header-only (static inline): each bench is one program of its own. */
#ifndef TEXFDTD_BENCH_COMMON_H
#define TEXFDTD_BENCH_COMMON_H

#include "core/engine.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts the n > 0 timings t and returns their median (t[n / 2]); the least
 * is then t[0], the most t[n - 1]. */
static inline double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
    return t[n / 2];
}

struct bench_args {
    const char *engine;     /* default "cuda" */
    enum precision precision;
    int repeats, warmup;    /* default 5, 20 */
    int n, steps;           /* the two positional arguments */
    const char *extra_name; /* an option of the bench's own ("--cover"), or NULL */
    double extra;           /* its value (left as set by the caller when absent) */
};

/* Parses argv into a (whose extra_name and extra the caller sets first);
 * false on anything else, with a left in between: print the usage. */
static inline bool bench_args_parse(struct bench_args *a, int argc, char **argv)
{
    int pos[2] = {0, 0}, npos = 0;
    a->engine = "cuda";
    a->precision = PRECISION_SINGLE;
    a->repeats = 5;
    a->warmup = 20;
    for (int k = 1; k < argc; k++) {
        const bool more = k + 1 < argc;
        if (!strcmp(argv[k], "--engine") && more) {
            a->engine = argv[++k];
        } else if (!strcmp(argv[k], "--precision") && more) {
            const char *p = argv[++k];
            if (strcmp(p, "single") && strcmp(p, "double"))
                return false;
            a->precision = strcmp(p, "double") ? PRECISION_SINGLE : PRECISION_DOUBLE;
        } else if (!strcmp(argv[k], "--repeats") && more) {
            a->repeats = atoi(argv[++k]);
        } else if (!strcmp(argv[k], "--warmup") && more) {
            a->warmup = atoi(argv[++k]);
        } else if (a->extra_name && !strcmp(argv[k], a->extra_name) && more) {
            a->extra = atof(argv[++k]);
        } else if (argv[k][0] != '-' && npos < 2) {
            pos[npos++] = atoi(argv[k]);
        } else {
            return false;
        }
    }
    a->n = pos[0];
    a->steps = pos[1];
    return npos == 2 && a->n >= 128 && a->steps >= 1 && a->repeats >= 1 && a->warmup >= 0;
}

#endif
