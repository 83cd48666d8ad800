/* incident.glsl - the GLSL prelude of core/incident.h (the incident plane
 * wave in double), and the file itself spliced in after it by gl/shader.c.
 *
 * Doubles are core in GLSL 4.00 and later (ARB_gpu_shader_fp64).  Each
 * operation is a function whose result is a `precise` double, so the
 * driver neither fuses a*b+c into an FMA nor reorders, whatever the
 * expression around it: each rounds where the C reference rounds.  floor is
 * exact, and so is the scaling by 2^k (core/incident.h scales only within
 * the normal range; a product with 2^k built from its bits, not the
 * driver's ldexp).  Denormal doubles do not reach a value that survives the
 * rounding to float (core/incident.h: exp is 0 below 2^-1020).
 */
#define INC_GLSL 1
#define INC_FN
#define I_K(x) x##LF
#define I_LET precise double
#define I_VAR precise double
#define INC_WAVE inc_wave

double i_add(double a, double b)
{
    precise double r = a + b;
    return r;
}
double i_sub(double a, double b)
{
    precise double r = a - b;
    return r;
}
double i_mul(double a, double b)
{
    precise double r = a * b;
    return r;
}
#define I_ADD(a, b) i_add(a, b)
#define I_SUB(a, b) i_sub(a, b)
#define I_MUL(a, b) i_mul(a, b)
#define I_FLOOR(a) floor(a)
/* a 2^k for a normal 2^k (inc_exp: -1020 <= k <= 0) and a normal result:
 * the power of two from its bits, then an exact product (Mesa's ldexp of
 * a double gives NaN for 0) */
double i_pow2(int k) { return packDouble2x32(uvec2(0u, uint(k + 1023) << 20)); }
#define I_LDEXP(a, k) i_mul(a, i_pow2(int(k)))

#include "incident.h"

/* (float)v of C, rounded to nearest even, subnormal results included (a
 * driver may flush them in float(v); x86 keeps them, as the host computes
 * its values in IEEE mode): below 2^-126 the float's bits are |v| 2^149
 * rounded to an integer, exactly. */
float inc_to_float(double v)
{
    const uint sign = unpackDouble2x32(v).y & 0x80000000u;
    const double a = abs(v);
    if (a >= i_pow2(-126))
        return float(v);
    const double m = roundEven(i_mul(a, i_pow2(149)));
    return uintBitsToFloat(sign | uint(m));
}
