/* test_farexact.c - the exact far fields of compare/farexact.c: cylinder
 * (TMz, PEC and dielectric) and PEC sphere, each against an expectation
 * that does not come from the code under test: energy conservation (optical
 * theorem against a direct quadrature of the bistatic pattern), the boundary
 * conditions themselves, an independent implementation (compare/analytic.c),
 * closed-form Bessel functions, and published limits (geometrical optics,
 * Rayleigh, the extinction paradox, the sphere's first resonance). */
#include "helpers.h"

#include <complex.h>

#include "compare/analytic.h"
#include "compare/farexact.h"
#include "gauss_legendre.h"

/* large: keep them off the stack */
static struct farexact_cyl cyl, cyl2;
static struct farexact_sphere sph;
static struct analytic_cylinder acyl;

static double rel(double got, double want)
{
    return fabs(got - want) / fabs(want);
}

/* ---- cylinder ------------------------------------------------------------ */

/* Lossless: the power taken from the incident wave (optical theorem, from the
 * forward amplitude) is the power scattered; the two come from different sums
 * (Re a_n against |a_n|^2), equal only if every |1/2 + a_n| is 1/2.  The
 * bound is rounding over ~40 terms. */
Test(farexact_cyl, optical_theorem_pec)
{
    char err[ERRLEN];
    const double kas[] = {0.5, 3.0, 5.655, 10.0};
    for (int q = 0; q < 4; q++) {
        cr_assert_eq(farexact_cyl_init(&cyl, kas[q], 0.0, err, sizeof err), 0, "%s", err);
        cr_assert(cyl.pec);
        const double ext = farexact_cyl_extinction_over_lambda(&cyl);
        const double tot = farexact_cyl_total_over_lambda(&cyl);
        cr_assert_gt(tot, 0.0);
        cr_assert_lt(rel(ext, tot), 1e-10, "ka %g: ext %.15g, total %.15g", kas[q], ext, tot);
        /* and the extinction from the forward amplitude T(0) directly */
        const double fwd = -2.0 / M_PI * creal(farexact_cyl_amplitude(&cyl, 0.0));
        cr_assert_lt(rel(fwd, tot), 1e-10, "ka %g: -(2/pi) Re T(0) %.15g, total %.15g", kas[q],
                     fwd, tot);
    }
}

/* sigma_s = (1 / 2 pi) integral of sigma_2D over phi.  sigma_2D is a
 * trigonometric polynomial of degree 2 nmax in phi, so the 3600-point
 * rectangle rule is exact up to rounding for nmax < 1800; the incidence angle
 * theta is arbitrary (phi runs over absolute angles). */
Test(farexact_cyl, angular_integral_is_the_closed_form_total)
{
    char err[ERRLEN];
    const double kas[] = {0.5, 3.0, 5.655, 10.0, 3.0};
    const double eps[] = {0.0, 0.0, 0.0, 0.0, 4.0};
    const double theta = 0.37;
    for (int q = 0; q < 5; q++) {
        cr_assert_eq(farexact_cyl_init(&cyl, kas[q], eps[q], err, sizeof err), 0, "%s", err);
        const int N = 3600;
        double sum = 0.0;
        for (int s = 0; s < N; s++) {
            const double phi = 2.0 * M_PI * s / N;
            sum += farexact_cyl_sigma_over_lambda(&cyl, phi - theta);
        }
        const double quad = sum / N;
        const double tot = farexact_cyl_total_over_lambda(&cyl);
        cr_assert_lt(rel(quad, tot), 1e-12, "ka %g eps %g: quadrature %.15g, closed form %.15g",
                     kas[q], eps[q], quad, tot);
    }
}

/* Mirror symmetry about the direction of travel, and 2 pi periodicity. */
Test(farexact_cyl, symmetric_about_the_propagation_axis)
{
    char err[ERRLEN];
    cr_assert_eq(farexact_cyl_init(&cyl, 5.655, 0.0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(farexact_cyl_init(&cyl2, 4.2, 2.5, err, sizeof err), 0, "%s", err);
    for (int s = 1; s < 40; s++) {
        const double psi = s * 0.157;
        for (int w = 0; w < 2; w++) {
            const struct farexact_cyl *c = w ? &cyl2 : &cyl;
            const double p = farexact_cyl_sigma_over_lambda(c, psi);
            cr_assert_lt(rel(farexact_cyl_sigma_over_lambda(c, -psi), p), 1e-13, "psi %g", psi);
            cr_assert_lt(rel(farexact_cyl_sigma_over_lambda(c, psi + 2.0 * M_PI), p), 1e-12,
                         "psi %g", psi);
        }
    }
}

/* The far-field amplitude against compare/analytic.c (its own series, built
 * from the full Hankel functions, checked there on the PEC surface) at
 * k rho = 1e7: Es sqrt(pi k rho / 2) exp(i (k rho - pi/4)) -> T(psi).  The
 * large-argument form of H_n has a relative correction (4n^2 - 1) / (8 k rho),
 * below 2e-6 for the n <= 12 that matter at ka = 3. */
Test(farexact_cyl, far_field_matches_the_full_series)
{
    char err[ERRLEN];
    const double ka = 3.0, kr = 1e7;
    cr_assert_eq(farexact_cyl_init(&cyl, ka, 0.0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(analytic_init(&acyl, 1.0, ka, 0, 0, 0, 0, 0, err, sizeof err), 0, "%s", err);
    const double complex norm = sqrt(M_PI * kr / 2.0) * cexp(I * (kr - M_PI / 4.0));
    double tmax = 0.0;
    for (int s = 0; s <= 24; s++)
        tmax = fmax(tmax, cabs(farexact_cyl_amplitude(&cyl, s * M_PI / 24)));
    for (int s = 0; s <= 24; s++) {
        const double psi = s * M_PI / 24;
        const double complex t = farexact_cyl_amplitude(&cyl, psi);
        const double complex full = analytic_series(&acyl, kr, psi) * norm;
        cr_assert_lt(cabs(full - t), 1e-5 * tmax, "psi %g: series %g%+gi, far field %g%+gi", psi,
                     creal(full), cimag(full), creal(t), cimag(t));
    }
}

/* Geometrical optics: the specular return of a surface whose radius of
 * curvature is a has the echo width sigma_2D = pi a (the 2D form of
 * pi rho1 rho2), so for a circular cylinder with ka >> 1 (Balanis, Advanced
 * Engineering EM, sec. 11.5)
 * sigma_2D / lambda = ka / 2.  The correction falls like (ka)^-2, so 1e-3 is
 * a wide margin at ka = 100. */
Test(farexact_cyl, backscatter_tends_to_pi_a)
{
    char err[ERRLEN];
    cr_assert_eq(farexact_cyl_init(&cyl, 100.0, 0.0, err, sizeof err), 0, "%s", err);
    const double back = farexact_cyl_sigma_over_lambda(&cyl, M_PI);
    cr_assert_lt(rel(back, 100.0 / 2.0), 1e-3, "sigma_2D / (pi a) = %.8f", back / 50.0);
}

/* The extinction paradox: sigma_ext -> 2 x (2a) = 4a, i.e. sigma_ext / lambda
 * -> 2 ka / pi.  The approach is slow: Wu (Phys. Rev. 104, 1201, 1956)
 * gives sigma_ext / 4a = 1 + 0.49807659 (ka)^(-2/3) + O((ka)^(-4/3)) for the
 * E-polarised (Dirichlet) cylinder, 1.5 % above 1 at ka = 200.  So: within
 * 2 % of 4a at ka = 200, and the (ka)^(-2/3) coefficient within 0.5 % of
 * Wu's at ka = 1000 (the next term shifts it by ~(ka)^(-2/3) = 1 %, times a
 * small coefficient). */
Test(farexact_cyl, extinction_tends_to_twice_the_diameter)
{
    char err[ERRLEN];
    cr_assert_eq(farexact_cyl_init(&cyl, 200.0, 0.0, err, sizeof err), 0, "%s", err);
    const double r200 = farexact_cyl_extinction_over_lambda(&cyl) / (2.0 * 200.0 / M_PI);
    cr_assert_lt(fabs(r200 - 1.0), 0.02, "ka 200: sigma_ext / 4a = %.6f", r200);
    cr_assert_lt(rel(farexact_cyl_total_over_lambda(&cyl) / (2.0 * 200.0 / M_PI), 1.0), 0.02);
    cr_assert_eq(farexact_cyl_init(&cyl, 1000.0, 0.0, err, sizeof err), 0, "%s", err);
    const double r1000 = farexact_cyl_extinction_over_lambda(&cyl) / (2.0 * 1000.0 / M_PI);
    const double coef = (r1000 - 1.0) * pow(1000.0, 2.0 / 3.0);
    cr_assert_lt(rel(coef, 0.49807659), 5e-3, "ka 1000: (sigma_ext / 4a - 1) (ka)^(2/3) = %.6f",
                 coef);
}

/* Low frequency: only a_0 = -J_0 / H_0 counts, and with the small-argument
 * forms J_0 = 1, Y_0 = (2/pi)(ln(ka/2) + gamma) (Abramowitz-Stegun 9.1.13)
 *     sigma_2D / lambda = (2/pi) |a_0|^2 = (2/pi) / (1 + (4/pi^2)(ln(ka/2) + gamma)^2)
 * in every direction.  (The often quoted (pi/2) / (ln(ka/2) + gamma)^2 drops
 * the 1, 11 % at ka = 0.01.)  The first neglected term is the dipole
 * a_1 = i pi (ka)^2 / 4 (J_1 = x/2, Y_1 = -2/(pi x)), relative 4 |a_1| / |a_0|
 * in sigma: 1.4e-5 at ka = 1e-3, 1e-3 at ka = 1e-2. */
Test(farexact_cyl, small_ka_limit)
{
    char err[ERRLEN];
    const double gamma = 0.57721566490153286061;
    const double kas[] = {1e-3, 1e-2};
    const double tol[] = {1e-4, 3e-3};
    for (int q = 0; q < 2; q++) {
        const double L = log(kas[q] / 2.0) + gamma;
        const double want = 2.0 / M_PI / (1.0 + 4.0 / (M_PI * M_PI) * L * L);
        cr_assert_eq(farexact_cyl_init(&cyl, kas[q], 0.0, err, sizeof err), 0, "%s", err);
        const double psis[] = {0.0, M_PI / 2, M_PI};
        for (int p = 0; p < 3; p++) {
            const double got = farexact_cyl_sigma_over_lambda(&cyl, psis[p]);
            cr_assert_lt(rel(got, want), tol[q], "ka %g psi %g: %.10g, want %.10g", kas[q],
                         psis[p], got, want);
        }
        cr_assert_lt(rel(farexact_cyl_total_over_lambda(&cyl), want), tol[q]);
    }
}

/* eps_r = 1: no cylinder, nothing scattered (the numerator cancels up to
 * rounding of the scaled values). */
Test(farexact_cyl, eps_one_scatters_nothing)
{
    char err[ERRLEN];
    const double kas[] = {0.3, 1.0, 7.5, 40.0};
    for (int q = 0; q < 4; q++) {
        cr_assert_eq(farexact_cyl_init(&cyl, kas[q], 1.0, err, sizeof err), 0, "%s", err);
        cr_assert(!cyl.pec);
        for (int n = 0; n <= cyl.nmax; n++)
            cr_assert_lt(cabs(cyl.an[n]), 1e-15, "ka %g: |a_%d| = %g", kas[q], n, cabs(cyl.an[n]));
        cr_assert_lt(farexact_cyl_total_over_lambda(&cyl), 1e-28);
    }
}

/* Lossless dielectric, denser and rarer than the outside: optical theorem. */
Test(farexact_cyl, optical_theorem_dielectric)
{
    char err[ERRLEN];
    const double kas[] = {3.0, 2.0, 7.0, 0.4};
    const double eps[] = {4.0, 0.5, 12.0, 80.0};
    for (int q = 0; q < 4; q++) {
        cr_assert_eq(farexact_cyl_init(&cyl, kas[q], eps[q], err, sizeof err), 0, "%s", err);
        const double ext = farexact_cyl_extinction_over_lambda(&cyl);
        const double tot = farexact_cyl_total_over_lambda(&cyl);
        cr_assert_gt(tot, 1e-6);
        cr_assert_lt(rel(ext, tot), 1e-10, "ka %g eps %g: ext %.15g, total %.15g", kas[q], eps[q],
                     ext, tot);
    }
}

/* The dielectric coefficients, put back into the two boundary conditions with
 * glibc's Bessel functions: with c_n J_n(k1 a) = J_n(ka) + a_n H_n(ka)
 * (continuity of Ez), continuity of dEz/drho demands
 *     m J_n'(k1 a) [J_n(ka) + a_n H_n(ka)] = J_n(k1 a) [J_n'(ka) + a_n H_n'(ka)]. */
Test(farexact_cyl, dielectric_coefficients_meet_the_boundary_conditions)
{
    char err[ERRLEN];
    const double ka = 3.0, eps = 4.0, m = 2.0, k1a = m * ka;
    cr_assert_eq(farexact_cyl_init(&cyl, ka, eps, err, sizeof err), 0, "%s", err);
    for (int n = 0; n <= 12; n++) { /* beyond, H_n(ka) is large and a_n tiny */
        const double J = jn(n, ka), Y = yn(n, ka), J1 = jn(n, k1a);
        const double dJ = n ? jn(n - 1, ka) - n / ka * J : -j1(ka);
        const double dY = n ? yn(n - 1, ka) - n / ka * Y : -y1(ka);
        const double dJ1 = n ? jn(n - 1, k1a) - n / k1a * J1 : -j1(k1a);
        const double complex H = J - I * Y, dH = dJ - I * dY;
        const double complex a = cyl.an[n];
        const double complex lhs = m * dJ1 * (J + a * H), rhs = J1 * (dJ + a * dH);
        const double scale = fabs(m * dJ1 * J) + fabs(J1 * dJ) + cabs(m * dJ1 * a * H)
                             + cabs(J1 * a * dH);
        cr_assert_lt(cabs(lhs - rhs), 1e-13 * scale, "n %d: %g%+gi vs %g%+gi", n, creal(lhs),
                     cimag(lhs), creal(rhs), cimag(rhs));
    }
}

/* eps_r -> infinity is the PEC (away from the interior resonances J_n'(k1 a)
 * = 0; the correction is of order J_n(k1 a) / (m J_n'(k1 a)) ~ 1 / m = 1e-4
 * here). */
Test(farexact_cyl, huge_eps_approaches_the_pec)
{
    char err[ERRLEN];
    cr_assert_eq(farexact_cyl_init(&cyl, 1.0, 1e8, err, sizeof err), 0, "%s", err);
    cr_assert_eq(farexact_cyl_init(&cyl2, 1.0, 0.0, err, sizeof err), 0, "%s", err);
    cr_assert(cyl2.pec && !cyl.pec);
    for (int s = 0; s <= 12; s++) {
        const double psi = s * M_PI / 12;
        const double d = farexact_cyl_sigma_over_lambda(&cyl, psi);
        const double p = farexact_cyl_sigma_over_lambda(&cyl2, psi);
        cr_assert_lt(rel(d, p), 1e-2, "psi %g: eps 1e8 %.8g, PEC %.8g", psi, d, p);
    }
    cr_assert_lt(rel(farexact_cyl_total_over_lambda(&cyl), farexact_cyl_total_over_lambda(&cyl2)),
                 1e-2);
}

Test(farexact_cyl, bad_parameters_are_refused)
{
    char err[ERRLEN];
    cr_assert_eq(farexact_cyl_init(&cyl, 0.0, 0.0, err, sizeof err), -1);
    cr_assert(strstr(err, "k a > 0"), "%s", err);
    cr_assert_eq(farexact_cyl_init(&cyl, NAN, 0.0, err, sizeof err), -1);
    cr_assert_eq(farexact_cyl_init(&cyl, 1.0, INFINITY, err, sizeof err), -1);
    cr_assert(strstr(err, "eps_r"), "%s", err);
    cr_assert_eq(farexact_cyl_init(&cyl, 3000.0, 0.0, err, sizeof err), -1);
    cr_assert(strstr(err, "order"), "%s", err);
}

/* ---- sphere -------------------------------------------------------------- */

/* Closed forms (Abramowitz-Stegun 10.1.11, 10.1.12, times x):
 *   psi_0 = sin x, psi_1 = sin x / x - cos x,
 *   psi_2 = (3/x^2 - 1) sin x - (3/x) cos x,
 *   psi_3 = (15/x^3 - 6/x) sin x - (15/x^2 - 1) cos x,
 * chi_n the same with sin -> cos, cos -> -sin.  The tolerance scales with the
 * largest term, where the closed forms themselves cancel. */
Test(farexact_sphere, riccati_bessel_closed_forms)
{
    char err[ERRLEN];
    double psi[40], chi[40];
    const double xs[] = {0.7, 2.0, 3.14159265358979, 4.4934094579, 10.0, 47.3};
    for (int q = 0; q < 6; q++) {
        const double x = xs[q], s = sin(x), c = cos(x);
        cr_assert_eq(farexact_riccati_bessel(39, x, psi, chi, err, sizeof err), 0, "%s", err);
        const double a2 = 3.0 / (x * x) - 1.0, b2 = 3.0 / x;
        const double a3 = 15.0 / (x * x * x) - 6.0 / x, b3 = 15.0 / (x * x) - 1.0;
        const double wp[4] = {s, s / x - c, a2 * s - b2 * c, a3 * s - b3 * c};
        const double wc[4] = {c, c / x + s, a2 * c + b2 * s, a3 * c + b3 * s};
        const double scale[4] = {1.0, 1.0 + 1.0 / x, 1.0 + fabs(a2) + b2, 1.0 + fabs(a3) + fabs(b3)};
        for (int n = 0; n < 4; n++) {
            cr_assert_lt(fabs(psi[n] - wp[n]), 1e-14 * scale[n], "x %g psi_%d %.17g want %.17g", x,
                         n, psi[n], wp[n]);
            cr_assert_lt(fabs(chi[n] - wc[n]), 1e-14 * scale[n], "x %g chi_%d %.17g want %.17g", x,
                         n, chi[n], wc[n]);
        }
    }
}

/* The Wronskian psi_n chi_n' - psi_n' chi_n = -1 ties the downward psi to the
 * upward chi at every order up to the truncation, including where psi_n is
 * tiny and chi_n huge; and starting Miller's recurrence 300 orders higher
 * changes nothing. */
Test(farexact_sphere, riccati_bessel_wronskian_and_start)
{
    char err[ERRLEN];
    static double psi[400], chi[400], psi2[400], chi2[400];
    const double xs[] = {0.01, 0.5, 1.0, 3.14159265358979, 10.0, 60.0, 200.0};
    for (int q = 0; q < 7; q++) {
        const double x = xs[q];
        const int nmax = analytic_nmax(x);
        cr_assert_eq(farexact_riccati_bessel(nmax, x, psi, chi, err, sizeof err), 0, "%s", err);
        for (int n = 1; n <= nmax; n++) {
            const double dpsi = psi[n - 1] - n / x * psi[n];
            const double dchi = chi[n - 1] - n / x * chi[n];
            const double w = psi[n] * dchi - dpsi * chi[n];
            cr_assert_lt(fabs(w + 1.0), 1e-12, "x %g n %d: W = %.17g", x, n, w);
        }
        cr_assert_eq(farexact_riccati_bessel(nmax + 100 < 399 ? nmax + 100 : 399, x, psi2, chi2,
                                             err, sizeof err),
                     0, "%s", err);
        /* relative to |psi_n| + |psi_{n+1}|: the two never vanish together */
        for (int n = 0; n < nmax; n++)
            cr_assert_lt(fabs(psi2[n] - psi[n]), 1e-14 * (fabs(psi[n]) + fabs(psi[n + 1])),
                         "x %g n %d: %.17g vs %.17g", x, n, psi[n], psi2[n]);
    }
}

/* The optical theorem in 3D: the extinction from the forward amplitude,
 * sigma_ext = (lambda^2 / pi) Re S(0), against the scattered power,
 * (1 / 4 pi) times the integral of the bistatic RCS over all directions.
 * sigma is a polynomial of degree 2 nmax in cos(theta) and a trigonometric
 * polynomial of degree 2 in phi: Gauss-Legendre with nmax + 20 nodes times a
 * 16-point rectangle rule in phi are exact up to rounding. */
Test(farexact_sphere, optical_theorem_by_quadrature)
{
    char err[ERRLEN];
    static double gx[200], gw[200];
    const double kas[] = {0.5, 1.0, 3.0, 10.0, 30.0};
    for (int q = 0; q < 5; q++) {
        cr_assert_eq(farexact_sphere_init(&sph, kas[q], err, sizeof err), 0, "%s", err);
        const int ng = sph.nmax + 20;
        cr_assert_leq(ng, 200);
        gauss_legendre(ng, gx, gw);
        double integral = 0.0;
        for (int i = 0; i < ng; i++)
            for (int p = 0; p < 16; p++) {
                const double phi = 2.0 * M_PI * p / 16;
                integral += gw[i] * (2.0 * M_PI / 16)
                            * farexact_sphere_rcs_over_lambda2(&sph, acos(gx[i]), phi);
            }
        const double scattered = integral / (4.0 * M_PI);
        double complex s1, s2;
        farexact_sphere_amplitudes(&sph, 0.0, &s1, &s2);
        cr_assert_lt(cabs(s1 - s2), 1e-13 * cabs(s1)); /* forward: S1(0) = S2(0) */
        const double ext = creal(s1) / M_PI;
        cr_assert_lt(rel(scattered, ext), 1e-10, "ka %g: scattered %.15g, extinction %.15g",
                     kas[q], scattered, ext);
        cr_assert_lt(rel(farexact_sphere_total_over_lambda2(&sph), scattered), 1e-10);
        cr_assert_lt(rel(farexact_sphere_extinction_over_lambda2(&sph), ext), 1e-10);
    }
}

/* Rayleigh (ka << 1): the induced electric dipole p = 4 pi eps0 a^3 E and
 * magnetic dipole m = -2 pi a^3 H give (Jackson, Classical Electrodynamics,
 * 3rd ed., sec. 10.1.B)
 *     dsigma/dOmega = k^4 a^6 |e_out* . e_in - (1/2)(n x e_out*) . (n0 x e_in)|^2,
 * so sigma / (pi a^2) = (ka)^4 (1 - 2 cos theta)^2 in the E-plane (zero at
 * 60 degrees), (ka)^4 (2 - cos theta)^2 in the H-plane, 9 (ka)^4 backwards
 * in both, and sigma_s / (pi a^2) = (10/3) (ka)^4.  The next terms are
 * relative O((ka)^2) = 1e-4 at ka = 0.01. */
Test(farexact_sphere, rayleigh_limit)
{
    char err[ERRLEN];
    const double x = 0.01, x4 = x * x * x * x;
    const double pia2 = x * x / (4.0 * M_PI); /* pi a^2 / lambda^2 */
    cr_assert_eq(farexact_sphere_init(&sph, x, err, sizeof err), 0, "%s", err);
    const double back = farexact_sphere_rcs_over_lambda2(&sph, M_PI, 0.0) / pia2;
    cr_assert_lt(rel(back, 9.0 * x4), 1e-3, "sigma / (pi a^2) / (ka)^4 = %.8f", back / x4);
    for (int s = 0; s <= 36; s++) {
        const double th = s * M_PI / 36, c = cos(th);
        const double e = farexact_sphere_rcs_over_lambda2(&sph, th, 0.0) / pia2;
        const double h = farexact_sphere_rcs_over_lambda2(&sph, th, M_PI / 2) / pia2;
        cr_assert_lt(fabs(e - x4 * (1 - 2 * c) * (1 - 2 * c)), 1e-3 * 9.0 * x4, "E-plane %g deg",
                     s * 5.0);
        cr_assert_lt(fabs(h - x4 * (2 - c) * (2 - c)), 1e-3 * 9.0 * x4, "H-plane %g deg", s * 5.0);
    }
    cr_assert_lt(rel(farexact_sphere_total_over_lambda2(&sph) / pia2, 10.0 / 3.0 * x4), 1e-3);
}

/* Geometrical optics: the backscatter of a large sphere is its shadow area
 * pi a^2 (Ruck et al., Radar Cross Section Handbook, ch. 3; the creeping
 * wave adds a ripple that falls like exp(-c (ka)^(1/3))): within 2 % at
 * ka = 60. */
Test(farexact_sphere, large_sphere_backscatter_is_pi_a2)
{
    char err[ERRLEN];
    const double x = 60.0, pia2 = x * x / (4.0 * M_PI);
    cr_assert_eq(farexact_sphere_init(&sph, x, err, sizeof err), 0, "%s", err);
    const double back = farexact_sphere_rcs_over_lambda2(&sph, M_PI, 0.0) / pia2;
    cr_assert_lt(fabs(back - 1.0), 0.02, "sigma / (pi a^2) = %.6f", back);
    /* extinction paradox in 3D: sigma_ext -> 2 pi a^2 */
    const double q = farexact_sphere_extinction_over_lambda2(&sph) / pia2;
    cr_assert_lt(fabs(q - 2.0), 0.05, "sigma_ext / (pi a^2) = %.6f", q);
}

/* The first (Mie resonance) maximum of the PEC sphere's monostatic RCS:
 * sigma / (pi a^2) = 3.65 near ka = 1, the standard textbook curve (Ruck et
 * al., Radar Cross Section Handbook, 1970, ch. 3; Knott, Shaeffer & Tuley,
 * Radar Cross Section).  Within 2 % in value, and at ka in [0.95, 1.1]. */
Test(farexact_sphere, first_resonance_maximum)
{
    char err[ERRLEN];
    double best = 0.0, at = 0.0;
    for (int s = 0; s <= 400; s++) {
        const double x = 0.8 + s * 0.001;
        cr_assert_eq(farexact_sphere_init(&sph, x, err, sizeof err), 0, "%s", err);
        const double v = farexact_sphere_rcs_over_lambda2(&sph, M_PI, 0.0) / (x * x / (4.0 * M_PI));
        if (v > best) {
            best = v;
            at = x;
        }
    }
    cr_assert_lt(rel(best, 3.65), 0.02, "maximum %.5f at ka %.3f", best, at);
    cr_assert(at > 0.95 && at < 1.1, "maximum %.5f at ka %.3f", best, at);
}

/* Axial symmetry: forward and backward the RCS cannot depend on phi
 * (S1(0) = S2(0), S1(pi) = -S2(pi)); off axis the two planes differ. */
Test(farexact_sphere, on_axis_the_rcs_does_not_depend_on_phi)
{
    char err[ERRLEN];
    cr_assert_eq(farexact_sphere_init(&sph, 4.3, err, sizeof err), 0, "%s", err);
    double complex s1, s2;
    farexact_sphere_amplitudes(&sph, M_PI, &s1, &s2);
    cr_assert_lt(cabs(s1 + s2), 1e-12 * cabs(s1));
    for (int p = 1; p < 12; p++) {
        const double phi = p * 0.5;
        for (int t = 0; t < 2; t++) {
            const double th = t ? M_PI : 0.0;
            const double ref = farexact_sphere_rcs_over_lambda2(&sph, th, 0.0);
            cr_assert_lt(rel(farexact_sphere_rcs_over_lambda2(&sph, th, phi), ref), 1e-12,
                         "theta %g phi %g", th, phi);
        }
    }
    const double e = farexact_sphere_rcs_over_lambda2(&sph, M_PI / 2, 0.0);
    const double h = farexact_sphere_rcs_over_lambda2(&sph, M_PI / 2, M_PI / 2);
    cr_assert_gt(fabs(e - h), 1e-3 * (e + h));
}

Test(farexact_sphere, bad_parameters_are_refused)
{
    char err[ERRLEN];
    double psi[4], chi[4];
    cr_assert_eq(farexact_sphere_init(&sph, -1.0, err, sizeof err), -1);
    cr_assert(strstr(err, "k a > 0"), "%s", err);
    cr_assert_eq(farexact_sphere_init(&sph, INFINITY, err, sizeof err), -1);
    cr_assert_eq(farexact_sphere_init(&sph, 3000.0, err, sizeof err), -1);
    cr_assert(strstr(err, "order"), "%s", err);
    cr_assert_eq(farexact_riccati_bessel(3, 0.0, psi, chi, err, sizeof err), -1);
    cr_assert_eq(farexact_riccati_bessel(0, 1.0, psi, chi, err, sizeof err), -1);
}
