/* cbessel.c - J_n(z) of complex argument by Miller's backward recurrence on
 * the ratios, normalised by the generating function.  See cbessel.h. */
#define _GNU_SOURCE
#include "cbessel.h"
#include "analytic.h"
#include "core/util.h"

#include <float.h>
#include <math.h>

int cbessel_j(double complex z, int nmax, double complex *j, double complex *dj,
              double complex *ratio, char *err, size_t errlen)
{
    const double x = cabs(z);
    if (!isfinite(creal(z)) || !isfinite(cimag(z)))
        return seterr(err, errlen, "complex Bessel J: z = %g%+gi is not finite", creal(z),
                      cimag(z));
    if (fabs(cimag(z)) > 700.0 || x > 1e4)
        return seterr(err, errlen,
                      "complex Bessel J: z = %g%+gi is outside |Im z| <= 700, |z| <= 1e4",
                      creal(z), cimag(z));
    if (nmax < 0 || nmax > CBESSEL_MAX_ORDER)
        return seterr(err, errlen, "complex Bessel J: order %d outside 0..%d", nmax,
                      CBESSEL_MAX_ORDER);
    if (x == 0.0) {
        for (int n = 0; n <= nmax; n++) {
            if (j)
                j[n] = n == 0 ? 1.0 : 0.0;
            if (dj)
                dj[n] = n == 1 ? 0.5 : 0.0;
            if (ratio)
                ratio[n] = 0.0;
        }
        return 0;
    }
    const int want = nmax > 1 ? nmax : 1; /* J_1 is needed for J_0' */
    const int top = want > analytic_nmax(x) ? want : analytic_nmax(x);
    const int start = top + 16 + (int)ceil(6.0 * cbrt(x));
    /* t = -i for Im z >= 0, +i below (cbessel.h): the sum has no cancellation */
    const double complex t = cimag(z) >= 0.0 ? -I : I;

    /* Backward: r_n = z / (2n - z r_{n+1}) from r_{start+1} = 0, and the
     * normalisation sum by Horner, h_n = t r_n (1 + h_{n+1}), so that
     * h_1 = sum_{n>=1} t^n J_n / J_0.  A denominator that is exactly 0 (z
     * exactly at a ratio's pole) is nudged to the smallest normal number, as
     * in Lentz's continued-fraction method. */
    double complex r_next = 0.0, h = 0.0, r1 = 0.0;
    double complex *rs = j ? j : dj; /* where the upward pass finds r_n */
    for (int n = start; n >= 1; n--) {
        double complex den = 2.0 * n - z * r_next;
        if (den == 0.0)
            den = DBL_MIN;
        const double complex r = z / den;
        h = t * r * (1.0 + h);
        if (ratio && n <= nmax)
            ratio[n] = r;
        if (rs && n <= nmax)
            rs[n] = r; /* the ratio for now: turned into J_n or J_n' below */
        if (n == 1)
            r1 = r;
        r_next = r;
    }
    if (ratio)
        ratio[0] = 0.0;
    /* exp(-i z) for t = -i, exp(+i z) for t = +i: exp(t z) */
    const double complex j0 = cexp(t * z) / (1.0 + 2.0 * h);
    if (!j && !dj)
        return 0;
    /* Upward: J_n = r_n J_{n-1}, reading r_n before its slot is overwritten. */
    double complex prev = j0; /* J_{n-1} */
    if (j)
        j[0] = j0;
    if (dj)
        dj[0] = -r1 * j0;
    for (int n = 1; n <= nmax; n++) {
        const double complex r = rs[n];
        const double complex cur = r * prev;
        if (j)
            j[n] = cur;
        if (dj)
            dj[n] = prev - ((double)n / z) * cur;
        prev = cur;
    }
    return 0;
}

void cbessel_j_pair(double complex z, int n, const double complex *ratio, double complex *jn,
                    double complex *djn)
{
    if (n == 0) {
        *jn = 1.0;
        *djn = -ratio[1];
        return;
    }
    const double complex r = ratio[n];
    if (cabs(r) <= 1.0) {
        *jn = r;
        *djn = 1.0 - ((double)n / z) * r;
    } else {
        *jn = 1.0;
        *djn = 1.0 / r - (double)n / z;
    }
}
