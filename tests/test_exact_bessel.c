/* test_exact_bessel.c - compare/cbessel.c, J_n(z) of complex argument,
 * against expectations computed here by other means: glibc jn() and yn() on
 * the real axis, the power series of I_n on the imaginary axis (J_n(i y) =
 * i^n I_n(y), A&S 9.6.3, 9.6.10), the power series of J_n (A&S 9.1.10) and
 * Bessel's integral (A&S 9.1.21) in the complex plane, both in long double,
 * values of an arbitrary-precision library typed in, and identities the
 * code does not use (the sum rules A&S 9.1.46 and 9.1.76, the Wronskian
 * with glibc's Y_n, A&S 9.1.16). */
#include "helpers.h"
#include "core/incident.h"

#include <complex.h>

#include "compare/cbessel.h"

#define NMAX 250
static double complex jv[NMAX + 1], djv[NMAX + 1], rv[NMAX + 1];

/* J_n(z) = (z/2)^n sum_k (-z^2/4)^k / (k! (n+k)!)  (A&S 9.1.10), long double.
 * The sum's terms reach about exp(|z|) times the result's scale: for |z| <= 12
 * that costs ~5 of long double's 19 digits. */
static long double complex series_j(int n, long double complex z)
{
    long double complex term = 1.0L;
    for (int q = 1; q <= n; q++)
        term *= z / (2.0L * q); /* (z/2)^n / n! */
    long double complex sum = term;
    const long double complex w = -z * z / 4.0L;
    for (int k = 1; k < 400; k++) {
        term *= w / ((long double)k * (n + k));
        sum += term;
        if (cabsl(term) < 1e-25L * cabsl(sum))
            break;
    }
    return sum;
}

/* I_n(y) = (y/2)^n sum_k (y^2/4)^k / (k! (n+k)!), y > 0: positive terms,
 * no cancellation at any y (A&S 9.6.10). */
static long double series_i(int n, long double y)
{
    long double term = 1.0L;
    for (int q = 1; q <= n; q++)
        term *= y / (2.0L * q);
    long double sum = term;
    for (int k = 1; k < 2000; k++) {
        term *= y * y / 4.0L / ((long double)k * (n + k));
        sum += term;
        if (term < 1e-22L * sum)
            break;
    }
    return sum;
}

/* Bessel's integral J_n(z) = (1 / 2 pi) int_0^2pi exp(i (z sin t - n t)) dt
 * (A&S 9.1.21), and J_n'(z) = (1 / 2 pi) int i sin t exp(...) dt, by the
 * trapezoidal rule on M points: for a periodic integrand it returns
 * sum_k J_{n + kM}(z), so M well above |z| + n leaves only rounding, about
 * 1e-19 exp(|Im z|) in long double. */
static void integral_j(int n, double complex z, long double complex *j, long double complex *dj)
{
    const int M = 2048;
    long double complex s = 0.0L, ds = 0.0L;
    const long double complex zl = z;
    for (int q = 0; q < M; q++) {
        const long double t = 2.0L * (long double)M_PI * q / M;
        const long double complex e = cexpl(I * (zl * sinl(t) - n * t));
        s += e;
        ds += I * sinl(t) * e;
    }
    *j = s / M;
    *dj = ds / M;
}

Test(cbessel, real_axis_against_glibc)
{
    char err[ERRLEN];
    const double xs[] = {1e-3, 0.1, 1.0, 2.4048255576957728, 5.0, 10.0, 31.4, 50.0, 100.0, 200.0};
    double worst = 0.0;
    for (int q = 0; q < 10; q++) {
        const double x = xs[q];
        cr_assert_eq(cbessel_j(x, 200, jv, djv, NULL, err, sizeof err), 0, "%s", err);
        for (int n = 0; n <= 200; n++) {
            const double want = jn(n, x);
            if (fabs(want) < 1e-290)
                continue;
            /* below n = x, J_n oscillates: measure against its envelope
             * |H_n| = hypot(J_n, Y_n); above, J_n has no zeros */
            const double scale = n < x ? hypot(want, yn(n, x)) : fabs(want);
            const double e = cabs(jv[n] - want) / scale;
            worst = fmax(worst, e);
            cr_assert_lt(e, 1e-13, "J_%d(%g): %.17g%+.3gi, glibc %.17g", n, x, creal(jv[n]),
                         cimag(jv[n]), want);
        }
    }
    cr_log_info("real axis, n <= 200, x <= 200: worst %.2e against glibc jn", worst);
}

/* J_n(i y) = i^n I_n(y): the functions grow like exp(y) / sqrt(y), and every
 * order down to 1e-290 is checked relative to itself. */
Test(cbessel, imaginary_axis_is_i_to_the_n_times_In)
{
    char err[ERRLEN];
    const double ys[] = {0.5, 5.0, 20.0, 50.0, -30.0};
    for (int q = 0; q < 5; q++) {
        const double y = ys[q];
        cr_assert_eq(cbessel_j(I * y, NMAX, jv, djv, NULL, err, sizeof err), 0, "%s", err);
        double complex ipow = 1.0; /* i^n */
        for (int n = 0; n <= NMAX; n++, ipow *= I) {
            /* I_n(-y) = (-1)^n I_n(y) */
            const double in = (double)series_i(n, fabsl(y)) * (y < 0 && n % 2 ? -1.0 : 1.0);
            if (fabs(in) < 1e-290)
                continue;
            const double complex want = ipow * in;
            cr_assert_lt(cabs(jv[n] - want) / fabs(in), 1e-13, "J_%d(%gi) = %.17g%+.17gi, i^n I_n %.17g",
                         n, y, creal(jv[n]), cimag(jv[n]), in);
        }
    }
}

/* |z| <= 12 anywhere in the plane against the power series. */
Test(cbessel, complex_plane_against_power_series)
{
    char err[ERRLEN];
    double worst = 0.0;
    for (double re = -12.0; re <= 12.0; re += 1.7) {
        for (double im = -12.0; im <= 12.0; im += 1.3) {
            const double complex z = re + I * im;
            if (cabs(z) > 12.0)
                continue;
            cr_assert_eq(cbessel_j(z, 60, jv, djv, NULL, err, sizeof err), 0, "%s", err);
            for (int n = 0; n <= 60; n++) {
                const double complex want = (double complex)series_j(n, z);
                /* the scale near order n: the largest neighbour (zeros) */
                double scale = cabs(want);
                if (n > 0)
                    scale = fmax(scale, cabs((double complex)series_j(n - 1, z)));
                scale = fmax(scale, cabs((double complex)series_j(n + 1, z)));
                if (scale < 1e-290)
                    continue;
                const double e = cabs(jv[n] - want) / scale;
                worst = fmax(worst, e);
                cr_assert_lt(e, 1e-13, "J_%d(%g%+gi)", n, re, im);
            }
        }
    }
    cr_log_info("|z| <= 12: worst %.2e against the power series", worst);
}

/* Large |z| with a large imaginary part (a lossy k1 a), against Bessel's
 * integral: J_n and J_n' to 1e-13 of the functions' scale exp(|Im z|) or
 * better, and relative to themselves where they are not far below it. */
Test(cbessel, large_complex_against_bessel_integral)
{
    char err[ERRLEN];
    const double complex zs[] = {150.0 + 30.0 * I, 200.0 + 50.0 * I, 50.0 - 50.0 * I,
                                 180.0 - 45.0 * I, 20.0 + 20.0 * I, 3.0 - 40.0 * I,
                                 199.0 + 1.0 * I};
    double worst = 0.0;
    for (int q = 0; q < 7; q++) {
        const double complex z = zs[q];
        cr_assert_eq(cbessel_j(z, NMAX, jv, djv, NULL, err, sizeof err), 0, "%s", err);
        const double big = exp(fabs(cimag(z)));
        for (int n = 0; n <= NMAX; n += 7) {
            long double complex w, dw;
            integral_j(n, z, &w, &dw);
            const double complex want = (double complex)w, dwant = (double complex)dw;
            const double tol = 1e-13 * cabs(want) + 1e-16 * big;
            const double dtol = 1e-13 * cabs(dwant) + 1e-16 * big;
            cr_assert_lt(cabs(jv[n] - want), tol, "J_%d(%g%+gi) = %.17g%+.17gi, integral %.17g%+.17gi",
                         n, creal(z), cimag(z), creal(jv[n]), cimag(jv[n]), creal(want),
                         cimag(want));
            cr_assert_lt(cabs(djv[n] - dwant), dtol, "J_%d'(%g%+gi)", n, creal(z), cimag(z));
            if (cabs(want) > 1e-3 * big) /* where the integral's rounding is small */
                worst = fmax(worst, cabs(jv[n] - want) / cabs(want));
        }
    }
    cr_log_info("|z| <= 206, |Im z| <= 50: worst relative %.2e against Bessel's integral", worst);
}

/* Values from an arbitrary-precision library (mpmath 1.3.0, besselj at 40
 * digits, rounded to 17), typed in: mp.besselj(n, mp.mpc(re, im)). */
Test(cbessel, published_values)
{
    char err[ERRLEN];
    static const struct {
        double re, im;
        int n;
        double jre, jim;
    } v[] = {
        {1.0, 1.0, 0, 0.93760847680602928, -0.49652994760912213},
        {1.0, 1.0, 1, 0.61416033492290361, 0.36502802882708779},
        {3.0, -4.0, 5, -0.98523617349773845, 0.5942655412104944},
        {0.0, 50.0, 0, 2.9325537838493363e20, 0.0},
        {150.0, 30.0, 150, -329.55448169179821, 527.59710112545692},
        {200.0, 50.0, 199, -906344.9126640273, 3965073.602232245},
        {10.0, 0.0, 250, 1.5475679007600587e-318, 0.0},
    };
    for (size_t q = 0; q < sizeof v / sizeof v[0]; q++) {
        const double complex z = v[q].re + I * v[q].im;
        cr_assert_eq(cbessel_j(z, v[q].n, jv, NULL, NULL, err, sizeof err), 0, "%s", err);
        const double complex want = v[q].jre + I * v[q].jim;
        const double tol = v[q].n == 250 ? 1e-6 : 1e-14; /* the last one is subnormal */
        cr_assert_lt(cabs(jv[v[q].n] - want) / cabs(want), tol,
                     "J_%d(%g%+gi) = %.17g%+.17gi, want %.17g%+.17gi", v[q].n, v[q].re, v[q].im,
                     creal(jv[v[q].n]), cimag(jv[v[q].n]), creal(want), cimag(want));
    }
}

/* Identities the code does not use: 1 = J_0 + 2 sum J_2k (A&S 9.1.46) and
 * 1 = J_0^2 + 2 sum J_k^2 (A&S 9.1.76), each to 1e-14 of the sum of its
 * terms' sizes; the other recurrence 2 J_n' = J_{n-1} - J_{n+1} (A&S 9.1.27);
 * the ratios equal J_n / J_{n-1}; and the Wronskian with glibc's Y_n on the
 * real axis, J_{n+1} Y_n - J_n Y_{n+1} = 2 / (pi x) (A&S 9.1.16). */
Test(cbessel, identities)
{
    char err[ERRLEN];
    const double complex zs[] = {0.3, 7.0 + 2.0 * I, 40.0 - 10.0 * I, 120.0 + 45.0 * I,
                                 5.0 * I, -60.0 + 3.0 * I};
    for (int q = 0; q < 6; q++) {
        const double complex z = zs[q];
        cr_assert_eq(cbessel_j(z, NMAX, jv, djv, rv, err, sizeof err), 0, "%s", err);
        double complex s1 = jv[0], s2 = jv[0] * jv[0];
        double a1 = cabs(jv[0]), a2 = cabs(jv[0] * jv[0]);
        for (int n = 1; n <= NMAX; n++) {
            if (n % 2 == 0) {
                s1 += 2.0 * jv[n];
                a1 += 2.0 * cabs(jv[n]);
            }
            s2 += 2.0 * jv[n] * jv[n];
            a2 += 2.0 * cabs(jv[n] * jv[n]);
        }
        cr_assert_lt(cabs(s1 - 1.0), 1e-14 * a1, "sum rule at %g%+gi: %.17g%+.3gi", creal(z),
                     cimag(z), creal(s1), cimag(s1));
        cr_assert_lt(cabs(s2 - 1.0), 1e-14 * a2, "square sum rule at %g%+gi: %.17g%+.3gi",
                     creal(z), cimag(z), creal(s2), cimag(s2));
        for (int n = 1; n < NMAX; n++) {
            const double sc = cabs(jv[n - 1]) + cabs(jv[n + 1]);
            if (sc < 1e-280) /* subnormal */
                break;
            cr_assert_leq(cabs(2.0 * djv[n] - (jv[n - 1] - jv[n + 1])), 1e-14 * sc,
                          "J_%d' at %g%+gi", n, creal(z), cimag(z));
            if (cabs(jv[n - 1]) > 1e-280)
                cr_assert_lt(cabs(rv[n] - jv[n] / jv[n - 1]), 1e-14 * cabs(rv[n]) + 1e-300);
        }
        cr_assert_leq(cabs(djv[0] + jv[1]), 1e-15 * cabs(jv[1]));
    }
    const double xs[] = {0.5, 4.0, 33.0, 150.0};
    for (int q = 0; q < 4; q++) {
        const double x = xs[q];
        cr_assert_eq(cbessel_j(x, 120, jv, NULL, NULL, err, sizeof err), 0, "%s", err);
        for (int n = 0; n < 120; n++) {
            const double yn0 = yn(n, x), yn1 = yn(n + 1, x);
            if (!isfinite(yn1) || fabs(yn1) > 1e250)
                break;
            const double w = creal(jv[n + 1]) * yn0 - creal(jv[n]) * yn1;
            const double sc = fabs(creal(jv[n + 1]) * yn0) + fabs(creal(jv[n]) * yn1);
            cr_assert_lt(fabs(w - 2.0 / (M_PI * x)), 1e-13 * sc, "Wronskian n %d x %g: %.17g", n,
                         x, w * M_PI * x / 2.0);
        }
    }
}

/* Edges: z = 0, tiny z, the pair from the ratios where J_n underflows, and
 * the refusals. */
Test(cbessel, edges_and_refusals)
{
    char err[ERRLEN];
    cr_assert_eq(cbessel_j(0.0, 5, jv, djv, rv, err, sizeof err), 0);
    cr_assert(jv[0] == 1.0 && jv[1] == 0.0 && djv[1] == 0.5 && djv[0] == 0.0 && djv[2] == 0.0);
    /* J_1(z) ~ z/2 - z^3/16 */
    const double complex z = 1e-9 * (1.0 + I);
    cr_assert_eq(cbessel_j(z, 3, jv, djv, rv, err, sizeof err), 0);
    cr_assert_lt(cabs(jv[1] - z / 2.0) / cabs(z / 2.0), 1e-15);
    cr_assert_lt(cabs(jv[0] - 1.0), 1e-17);
    /* J_200(0.5 + 0.5i) ~ (z/2)^200 / 200! underflows; the pair stays finite,
     * and its log-derivative is n / z (leading term of the series) */
    const double complex zs = 0.5 + 0.5 * I;
    cr_assert_eq(cbessel_j(zs, 200, jv, NULL, rv, err, sizeof err), 0);
    cr_assert_eq(jv[200], 0.0);
    double complex p, dp;
    cbessel_j_pair(zs, 200, rv, &p, &dp);
    cr_assert(isfinite(creal(dp / p)) && cabs(dp / p - 200.0 / zs) / cabs(200.0 / zs) < 1e-4);
    cbessel_j_pair(zs, 0, rv, &p, &dp);
    cr_assert_eq(cbessel_j(zs, 1, jv, NULL, NULL, err, sizeof err), 0);
    cr_assert_lt(cabs(dp / p + jv[1] / jv[0]), 1e-15);
    cr_assert_eq(cbessel_j(NAN, 3, jv, NULL, NULL, err, sizeof err), -1);
    cr_assert_eq(cbessel_j(1.0 + 800.0 * I, 3, jv, NULL, NULL, err, sizeof err), -1);
    cr_assert(strstr(err, "700"), "%s", err);
    cr_assert_eq(cbessel_j(1.0, -1, jv, NULL, NULL, err, sizeof err), -1);
}

/* core/incident.h's own sin and exp (the incident wave's, the same bits on
 * the host and the CUDA device) against libm's, which are within an ulp of
 * the truth: relative to the larger of |f| and 1e-300 (for sin near its
 * zeros, relative to the argument's scale: absolute 4 ulp of 1), over the
 * arguments a run meets (0 .. 2^20 radians, and pulses' -700 .. 0). */
static double ulp_of(double x)
{
    return nextafter(fabs(x), INFINITY) - fabs(x);
}

Test(exact_bessel, incident_sin_and_exp_against_libm)
{
    double worst_sin = 0, worst_exp = 0;
    uint64_t state = 12345;
    for (int k = 0; k < 200000; k++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(state >> 11) * 0x1.0p-53;
        /* sin: log-uniform magnitudes 1e-6 .. 1e6, both signs */
        const double x = (k & 1 ? -1 : 1) * pow(10.0, -6.0 + 12.0 * u);
        const double es = fabs(inc_sin(x) - sin(x)) / fmax(ulp_of(sin(x)), ulp_of(1.0) / 4);
        worst_sin = fmax(worst_sin, es);
        const double y = -700.0 * u + (k % 3 == 0 ? 5.0 * u : 0.0);
        const double ee = fabs(inc_exp(y) - exp(y)) / ulp_of(exp(y));
        worst_exp = fmax(worst_exp, ee);
    }
    cr_log_info("inc_sin: worst %.2f ulp; inc_exp: worst %.2f ulp", worst_sin, worst_exp);
    cr_expect(worst_sin <= 4.0, "inc_sin: %.2f ulp", worst_sin);
    cr_expect(worst_exp <= 4.0, "inc_exp: %.2f ulp", worst_exp);
    cr_expect_eq(inc_exp(-800.0), 0.0);
    cr_expect_eq(inc_sin(0.0), 0.0);
    cr_expect_eq(inc_exp(0.0), 1.0);
}
