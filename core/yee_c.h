/* yee_c.h - the C prelude of core/yee.h.
 *
 * Include it with Y_REAL (float or double) and Y_SUFFIX (_f or _d) defined,
 * once per precision; it defines the functions of core/yee.h as
 * `static inline` functions named yee_..._f / yee_..._d.  The operators are
 * the plain C ones: the project is built with -ffp-contract=off, so each
 * rounds once, and denormals follow the hardware mode (FTZ/DAZ or not) that
 * cpu_set_denormal_mode sets.
 */
#ifndef Y_REAL
#error "define Y_REAL and Y_SUFFIX before including core/yee_c.h"
#endif

#define Y_CAT_(a, b) a##b
#define Y_CAT(a, b) Y_CAT_(a, b)
#define Y_FN static inline
#define Y_NAME(n) Y_CAT(n, Y_SUFFIX)
#define Y_LET const Y_REAL
#define Y_ADD(a, b) ((a) + (b))
#define Y_SUB(a, b) ((a) - (b))
#define Y_MUL(a, b) ((a) * (b))

#include "core/yee.h"

#undef Y_CAT_
#undef Y_CAT
#undef Y_FN
#undef Y_NAME
#undef Y_LET
#undef Y_ADD
#undef Y_SUB
#undef Y_MUL
