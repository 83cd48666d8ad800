/* test_mie.c - the Mie series of a sphere of complex eps and mu
 * (compare/mie.h) against independent values, and the 3D cpu engine against
 * it.
 * Series (suite mie):
 *   - published values: Bohren & Huffman's BHMIE example (m = 1.55,
 *     x = 2 pi 0.525 / 0.6328: Q_ext = Q_sca = 3.10543, Q_back = 2.92534;
 *     Absorption and Scattering of Light by Small Particles, appendix A) and
 *     Wiscombe's test cases (NCAR/TN-140+STR, 1979, appendix; m = 1.5 and
 *     1.5 - 0.1i at x = 10 and 100: Q_ext, Q_sca, Q_abs to 7 digits and S11 =
 *     (|S1|^2 + |S2|^2) / 2 at 0, 90 and 180 degrees to 6);
 *   - the Rayleigh limit (x = 0.01): sigma_s = (8 pi / 3) k^4 a^6 |K|^2,
 *     sigma_abs = -4 pi k a^3 Im K, K = (eps - 1) / (eps + 2) (exp(+i omega t):
 *     Im eps < 0 absorbs), and its magnetic twin for mu;
 *   - the perfect conductor as the limit |eps| -> infinity (farexact.h's PEC
 *     series, an independent code path: its own coefficient formulas);
 *   - energy: a lossless sphere absorbs nothing (ext = sca to rounding), a
 *     lossy one a positive amount; the scattering sum is the RCS integrated
 *     over all directions (Gauss-Legendre), the extinction sum the forward
 *     amplitude's (1 / pi) Re S(0) (the optical theorem);
 *   - eps = mu: zero backscatter (Kerker); swapping eps and mu swaps the
 *     E-plane and the H-plane (duality);
 *   - the grid's angle convention (mie_rcs_grid) against the frame of
 *     tests/test_far3d.c.
 * The 3D engine (suite mie3d) is further down. */
#include "helpers.h"

#include <complex.h>

#include "compare/mie.h"
#include "gauss_legendre.h"

static struct mie_sphere S, T; /* large: off the stack */

static void init(struct mie_sphere *s, double x, int pec, double complex eps, double complex mu)
{
    char err[ERRLEN];
    cr_assert_eq(mie_init(s, x, pec, eps, mu, err, sizeof err), 0, "%s", err);
}

/* S11 = (|S1|^2 + |S2|^2) / 2 from the RCS of the H-plane (|S1|^2 / pi) and
 * the E-plane (|S2|^2 / pi). */
static double s11(const struct mie_sphere *s, double theta)
{
    return M_PI / 2 * (mie_rcs(s, theta, M_PI / 2) + mie_rcs(s, theta, 0));
}

static void near(double got, double want, double tol, const char *what)
{
    cr_log_info("%s: %.9g (expected %.9g)", what, got, want);
    cr_expect_leq(fabs(got - want), tol, "%s: %.9g, expected %.9g (tolerance %g)", what, got,
                  want, tol);
}

/* ---- published values ----------------------------------------------------- */

Test(mie, bohren_huffman_bhmie_example)
{
    const double x = 2 * M_PI * 0.525 / 0.6328;
    init(&S, x, 0, 1.55 * 1.55, 1.0);
    near(mie_efficiency(&S, mie_extinction(&S)), 3.10543, 5e-6, "Q_ext");
    near(mie_efficiency(&S, mie_scattering(&S)), 3.10543, 5e-6, "Q_sca");
    near(mie_efficiency(&S, mie_rcs(&S, M_PI, 0)), 2.92534, 5e-6, "Q_back");
}

/* Wiscombe's m = n - i k (his sign, ours: exp(+i omega t)); eps = m^2. */
static void wiscombe(double x, double complex m, double qext, double qsca, double qabs,
                     const double s11_0_90_180[3])
{
    init(&S, x, 0, m * m, 1.0);
    near(mie_efficiency(&S, mie_extinction(&S)), qext, 5e-7, "Q_ext");
    near(mie_efficiency(&S, mie_scattering(&S)), qsca, 5e-7, "Q_sca");
    near(mie_efficiency(&S, mie_absorption(&S)), qabs, 5e-7, "Q_abs");
    if (s11_0_90_180) {
        const double th[3] = {0, M_PI / 2, M_PI};
        for (int q = 0; q < 3; q++) /* 6 significant digits */
            near(s11(&S, th[q]) / s11_0_90_180[q], 1.0, 6e-6, "S11 / table");
    }
}

Test(mie, wiscombe_test_cases)
{
    wiscombe(10, 1.5, 2.881999, 2.881999, 0.0, (const double[3]){0.520856e04, 0.917521e01, 0.423766e02});
    wiscombe(10, 1.5 - 0.1 * I, 2.459791, 1.235144, 1.224646,
             (const double[3]){0.379171e04, 0.183556e01, 0.231818e01});
    wiscombe(100, 1.5, 2.094388, 2.094388, 0.0, NULL);
    wiscombe(100, 1.5 - 0.1 * I, 2.089822, 1.132134, 0.957688, NULL);
}

/* ---- limits -------------------------------------------------------------------- */

/* x = 0.01: the dipole terms, relative corrections of order x^2 = 1e-4. */
Test(mie, rayleigh_limit)
{
    const double x = 0.01;
    const double complex eps[3] = {4.0, 2.5 - 1.5 * I, -3.0 - 0.4 * I};
    for (int q = 0; q < 3; q++) {
        const double complex K = (eps[q] - 1) / (eps[q] + 2);
        /* sigma_s / lambda^2 = (8 pi / 3) x^4 (a / lambda)^2 |K|^2, a / lambda = x / 2 pi */
        const double sca = 2.0 / (3 * M_PI) * pow(x, 6) * creal(K * conj(K));
        const double abs = -pow(x, 3) / M_PI * cimag(K); /* 4 pi k a^3 (-Im K) / lambda^2 */
        init(&S, x, 0, eps[q], 1.0);
        cr_log_info("eps %g%+gi: sca %.6e (Rayleigh %.6e), abs %.6e (%.6e)", creal(eps[q]),
                    cimag(eps[q]), mie_scattering(&S), sca, mie_absorption(&S), abs);
        cr_expect_lt(fabs(mie_scattering(&S) / sca - 1), 1e-3, "scattering %.9e / %.9e",
                     mie_scattering(&S), sca);
        if (cimag(K) != 0)
            cr_expect_lt(fabs(mie_absorption(&S) / abs - 1), 1e-3, "absorption %.9e / %.9e",
                         mie_absorption(&S), abs);
        /* the magnetic twin: mu = eps, eps = 1 (the same dipole strength) */
        init(&T, x, 0, 1.0, eps[q]);
        cr_expect_lt(fabs(mie_scattering(&T) / sca - 1), 1e-3, "mu: scattering %.9e / %.9e",
                     mie_scattering(&T), sca);
    }
}

/* |eps| -> infinity with loss: eta -> 0, the series becomes the PEC one
 * (farexact_sphere_init, its own formulas).  The difference is of order
 * |eta| (1e-3 and 1e-4 here); measured 1.7 |eta| (extinction), 0.67 |eta|
 * (scattering) and 7.9 |eta| (the RCS at 19 x 2 angles, at worst). */
Test(mie, good_conductor_is_the_pec_sphere)
{
    static struct farexact_sphere P;
    char err[ERRLEN];
    const double x = 3.0;
    cr_assert_eq(farexact_sphere_init(&P, x, err, sizeof err), 0, "%s", err);
    const double complex eps[2] = {-1e6 * I, -1e8 * I};
    for (int q = 0; q < 2; q++) {
        init(&S, x, 0, eps[q], 1.0);
        const double eta = cabs(S.eta);
        const double e = fabs(mie_extinction(&S) / farexact_sphere_extinction_over_lambda2(&P) - 1);
        const double s = fabs(mie_scattering(&S) / farexact_sphere_total_over_lambda2(&P) - 1);
        double r = 0;
        for (int a = 0; a <= 18; a++)
            for (int p = 0; p < 2; p++) {
                const double th = a * M_PI / 18, ph = p * M_PI / 2;
                r = fmax(r, fabs(mie_rcs(&S, th, ph) / farexact_sphere_rcs_over_lambda2(&P, th, ph) - 1));
            }
        cr_log_info("eps = %g i (|eta| %.1e): ext %.2e, sca %.2e, rcs %.2e off", cimag(eps[q]), eta,
                    e, s, r);
        cr_expect_lt(e, 2 * eta);
        cr_expect_lt(s, 2 * eta);
        cr_expect_lt(r, 10 * eta);
    }
    /* and the pec flag gives the PEC series itself */
    init(&S, x, 1, 0, 0);
    cr_expect_eq(S.c.nmax, P.nmax);
    for (int n = 1; n <= P.nmax; n++)
        cr_expect_lt(cabs(S.c.an[n] - P.an[n]) + cabs(S.c.bn[n] - P.bn[n]), 1e-13, "order %d", n);
}

/* ---- energy ----------------------------------------------------------------------- */

/* Mean of sigma / lambda^2 over the directions: Gauss-Legendre in cos theta
 * (the integrand is a polynomial of degree <= 2 nmax in it), trapezoid in phi
 * (sin^2, cos^2: exact with 8 points). */
static double mean_rcs(const struct mie_sphere *s)
{
    enum { NT = 96, NP = 8 };
    double xg[NT], wg[NT], sum = 0;
    gauss_legendre(NT, xg, wg);
    for (int i = 0; i < NT; i++)
        for (int j = 0; j < NP; j++)
            sum += wg[i] * mie_rcs(s, acos(xg[i]), 2 * M_PI * j / NP) / NP;
    return sum / 2;
}

Test(mie, energy_and_the_optical_theorem)
{
    static const struct { double x; double complex eps, mu; } c[] = {
        {1.0, 4.0, 1.0}, {3.0, 2.25, 3.0}, {5.0, 1.0, 2.5}, {2.0, -2.85 - 0.77 * I, 1.0},
        {4.0, 3.0 - 0.5 * I, 2.0 - 0.3 * I}, {0.7, 12.0, 1.0}, {8.0, 2.0 - 2.0 * I, 1.0},
    };
    for (size_t q = 0; q < sizeof c / sizeof *c; q++) {
        init(&S, c[q].x, 0, c[q].eps, c[q].mu);
        const double ext = mie_extinction(&S), sca = mie_scattering(&S), ab = mie_absorption(&S);
        double complex s1, s2;
        farexact_sphere_amplitudes(&S.c, 0, &s1, &s2);
        const double lossy = cimag(c[q].eps) != 0 || cimag(c[q].mu) != 0;
        const double quad = mean_rcs(&S);
        cr_log_info("x %g eps %g%+gi mu %g%+gi: ext %.9f sca %.9f abs %.3e, Re S(0)/pi %.9f, mean "
                    "rcs %.9f (nmax %d)", c[q].x, creal(c[q].eps), cimag(c[q].eps),
                    creal(c[q].mu), cimag(c[q].mu), ext, sca, ab, creal(s1) / M_PI, quad,
                    S.c.nmax);
        cr_expect_lt(fabs(creal(s1) / M_PI - ext), 1e-12 * ext, "optical theorem");
        cr_expect_lt(cabs(s1 - s2), 1e-12 * cabs(s1), "S1(0) = S2(0)");
        cr_expect_lt(fabs(quad / sca - 1), 1e-10, "scattering %.12f against the integral %.12f",
                     sca, quad);
        if (lossy)
            cr_expect_gt(ab, 1e-3 * ext, "a lossy sphere absorbs: %.3e", ab);
        else
            cr_expect_lt(fabs(ab), 1e-12 * ext, "a lossless sphere absorbs nothing: %.3e", ab);
    }
}

/* ---- symmetries ---------------------------------------------------------------------- */

Test(mie, eps_equal_mu_has_no_backscatter_and_duality)
{
    static const struct { double x; double complex eps, mu; } c[] = {
        {0.5, 3.0, 1.0}, {3.0, 4.0, 1.0}, {6.0, 2.0 - 0.5 * I, 1.5}, {10.0, 2.5 - 0.1 * I, 1.0},
    };
    for (size_t q = 0; q < sizeof c / sizeof *c; q++) {
        /* eps = mu */
        init(&S, c[q].x, 0, c[q].eps, c[q].eps);
        const double back = mie_rcs(&S, M_PI, 0), fwd = mie_rcs(&S, 0, 0);
        cr_log_info("x %g, eps = mu = %g%+gi: backscatter %.3e, forward %.3e", c[q].x,
                    creal(c[q].eps), cimag(c[q].eps), back, fwd);
        cr_expect_lt(back, 1e-24 * fwd, "backscatter %.3e (forward %.3e)", back, fwd);
        /* duality: (eps, mu) at phi is (mu, eps) at phi + 90 degrees */
        init(&S, c[q].x, 0, c[q].eps, c[q].mu);
        init(&T, c[q].x, 0, c[q].mu, c[q].eps);
        double worst = 0;
        for (int a = 0; a <= 36; a++)
            for (int p = 0; p < 4; p++) {
                const double th = a * M_PI / 36, ph = p * M_PI / 7;
                const double u = mie_rcs(&S, th, ph), v = mie_rcs(&T, th, ph + M_PI / 2);
                worst = fmax(worst, fabs(u - v) / fmax(u, 1e-300));
            }
        cr_expect_lt(worst, 1e-10, "duality: %.3e", worst);
    }
}

/* The grid's frame: wave along d = (cos a, sin a, 0), E along +z.  The
 * E-plane contains z and d, the H-plane is theta = 90 degrees; forward is
 * (90, a), backscatter (90, a + 180). */
Test(mie, grid_angles)
{
    init(&S, 2.5, 0, 3.0 - 0.2 * I, 1.5);
    const double a = 0.6;
    const double fwd = mie_rcs(&S, 0, 0), back = mie_rcs(&S, M_PI, 0);
    cr_expect_lt(fabs(mie_rcs_grid(&S, a, M_PI / 2, a) / fwd - 1), 1e-12);
    cr_expect_lt(fabs(mie_rcs_grid(&S, a, M_PI / 2, a + M_PI) / back - 1), 1e-12);
    for (int q = 1; q < 12; q++) {
        const double t = q * M_PI / 12; /* scattering angle */
        /* E-plane: from +z (t = 90 degrees before forward) toward d */
        const double e = mie_rcs(&S, t, 0), h = mie_rcs(&S, t, M_PI / 2);
        cr_expect_lt(fabs(mie_rcs_grid(&S, a, M_PI / 2 - t, a) / e - 1), 1e-12, "E-plane %d", q);
        cr_expect_lt(fabs(mie_rcs_grid(&S, a, M_PI / 2, a + t) / h - 1), 1e-12, "H-plane %d", q);
        cr_expect_lt(fabs(mie_rcs_grid(&S, a, M_PI / 2, a - t) / h - 1), 1e-12, "H-plane -%d", q);
    }
}

Test(mie, refusals)
{
    char err[ERRLEN];
    cr_expect_eq(mie_init(&S, 0.0, 0, 2.0, 1.0, err, sizeof err), -1);
    cr_expect_eq(mie_init(&S, NAN, 0, 2.0, 1.0, err, sizeof err), -1);
    cr_expect_eq(mie_init(&S, 1.0, 0, 0.0, 1.0, err, sizeof err), -1);
    cr_expect_eq(mie_init(&S, 1.0, 0, 2.0, INFINITY, err, sizeof err), -1);
    cr_expect_eq(mie_init(&S, 1e4, 0, 2.0, 1.0, err, sizeof err), -1, "order above the build's");
    cr_log_info("%s", err);
}
