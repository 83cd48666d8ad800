/* cbessel.h - Bessel functions of the first kind J_n(z) of complex argument z
 * and integer order n = 0..nmax: the interior functions of a lossy or
 * magnetic cylinder (farexact.h), whose k1 a is complex.
 *
 * Method: Miller's backward recurrence, written for the ratios
 *     r_n = J_n(z) / J_{n-1}(z),   r_n = z / (2n - z r_{n+1})        (A&S 9.1.27)
 * from r_{N+1} = 0 at an order N well above both nmax and |z| (J_n is the
 * minimal solution of the recurrence as n -> infinity, so the error of the
 * start dies out going down: Abramowitz & Stegun, Handbook of Mathematical
 * Functions, sec. 19 of the introduction and 9.12 example 1; Numerical Recipes
 * 3rd ed. sec. 6.5 describes the same algorithm).  The ratios never overflow.
 * Then p_n = J_n / J_0 = r_1 r_2 ... r_n upward, and J_0 from the generating
 * function exp((z/2)(t - 1/t)) = sum_n t^n J_n(z) (A&S 9.1.41) at t = -i or t = i:
 *     exp(-i z) = J_0 + 2 sum_{n>=1} (-i)^n J_n(z)     used for Im z >= 0,
 *     exp(+i z) = J_0 + 2 sum_{n>=1} (+i)^n J_n(z)     used for Im z <  0,
 * so J_0 = exp(-/+ i z) / (1 + 2 sum (-/+ i)^n p_n).  That choice sums without
 * cancellation where the functions are large (on the imaginary axis z = i y the
 * terms are all I_n(y) > 0; the classic sum rule 1 = J_0 + 2 sum J_2k would
 * lose exp(|Im z|) there), and on the real axis it loses about a digit at
 * |z| = 200 (some |z| terms of size |z|^(-1/2) summing to 1).
 * Derivatives: J_n'(z) = J_{n-1}(z) - (n / z) J_n(z), J_0' = -J_1 (A&S 9.1.27).
 *
 * Start: N = max(nmax, ceil(x + 8 x^(1/3) + 10)) + 16 + ceil(6 x^(1/3)),
 * x = |z| (as the Riccati-Bessel recurrence of farexact.c; beyond n = |z| the
 * ratio J_N Y_n / (Y_N J_n), the relative error the start leaves at order n,
 * falls faster than exponentially).  Measured in tests/test_exact_bessel.c
 * against independent values: ~1e-14 relative for |z| <= 200, |Im z| <= 50,
 * orders 0..250.  The accuracy is relative to the size of the functions near
 * order n (the absolute error near a zero of J_n(z) is that of its
 * neighbours); values that the true J_n leaves below about 1e-300 may
 * underflow to 0 (n far above |z|), the ratios do not.
 *
 * Costs O(N) per call.  Limits: |Im z| <= 700 (exp(|Im z|) must be finite),
 * |z| <= 1e4, nmax <= CBESSEL_MAX_ORDER.
 */
#ifndef TEXFDTD_CBESSEL_H
#define TEXFDTD_CBESSEL_H

#include <complex.h>
#include <stddef.h>

#define CBESSEL_MAX_ORDER 100000

/* J_n(z) for n = 0..nmax into j[0..nmax], J_n'(z) (derivative with respect to
 * z) into dj[0..nmax], and the ratios J_n(z) / J_{n-1}(z) into ratio[1..nmax]
 * (ratio[0] = 0), each array of nmax + 1 entries; any of the three may be
 * NULL.  z = 0 gives J_0 = 1, J_1' = 1/2, everything else 0 (ratios 0).
 * Returns 0, or -1 with err for a non-finite z, |Im z| > 700, |z| > 1e4, or
 * nmax outside 0..CBESSEL_MAX_ORDER. */
int cbessel_j(double complex z, int nmax, double complex *j, double complex *dj,
              double complex *ratio, char *err, size_t errlen);

/* The pair (J_n(z), J_n'(z)) up to a common nonzero factor, from the ratios
 * alone (so finite where J_n itself underflows): with r = J_n / J_{n-1},
 * (r, 1 - (n/z) r) if |r| <= 1, else (1, 1/r - n/z); for n = 0,
 * (1, -ratio[1]).  ratio as filled by cbessel_j (needs index n and, for
 * n = 0, index 1); z != 0. */
void cbessel_j_pair(double complex z, int n, const double complex *ratio, double complex *jn,
                    double complex *djn);

#endif
