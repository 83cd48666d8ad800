/* test_exact_cyl.c - compare/farexact.c's cylinder of complex eps and mu
 * (farexact_cyl2), TM and TE, against expectations from elsewhere: the
 * lossless TM series of farexact_cyl (written separately, real arithmetic),
 * the PEC coefficients from glibc jn/yn, duality, vacuum, the good-conductor
 * limit, the Rayleigh (small ka) limits of the scattering and of the
 * absorption, energy conservation with the absorbed power integrated over the
 * cylinder's volume from the near field, the boundary conditions and
 * Maxwell's equations on the near field, the plane wave (Jacobi-Anger) inside
 * a vacuum cylinder, and the far field from the near field. */
#include "helpers.h"

#include <complex.h>

#include "compare/farexact.h"
#include "gauss_legendre.h"

static struct farexact_cyl2 c2, d2;
static struct farexact_cyl c1;

static double max_an(const struct farexact_cyl2 *c)
{
    double m = 0.0;
    for (int n = 0; n <= c->nmax; n++)
        m = fmax(m, cabs(c->an[n]));
    return m;
}

/* max_n |a_n - b_n| over the orders of both */
static double an_diff(const double complex *a, int na, const double complex *b, int nb)
{
    double m = 0.0;
    for (int n = 0; n <= (na > nb ? na : nb); n++)
        m = fmax(m, cabs((n <= na ? a[n] : 0.0) - (n <= nb ? b[n] : 0.0)));
    return m;
}

Test(exact_cyl, lossless_tm_is_farexact_cyl)
{
    char err[ERRLEN];
    const double kas[] = {0.5, 3.0, 10.0, 3.0};
    const double eps[] = {4.0, 4.0, 2.5, 0.0};
    for (int q = 0; q < 4; q++) {
        const int pec = eps[q] == 0.0;
        cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, kas[q], pec, eps[q], 1.0, err, sizeof err),
                     0, "%s", err);
        cr_assert_eq(farexact_cyl_init(&c1, kas[q], eps[q], err, sizeof err), 0, "%s", err);
        const double d = an_diff(c2.an, c2.nmax, c1.an, c1.nmax);
        cr_assert_lt(d, 1e-13 * max_an(&c2), "ka %g eps %g: max |a_n - a_n(farexact_cyl)| %g",
                     kas[q], eps[q], d);
    }
}

/* TE PEC: a_n = -J_n'(ka) / H_n'(ka), here straight from glibc. */
Test(exact_cyl, te_pec_is_minus_jprime_over_hprime)
{
    char err[ERRLEN];
    const double kas[] = {0.3, 2.0, 5.655, 20.0};
    for (int q = 0; q < 4; q++) {
        const double x = kas[q];
        cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TE, x, 1, 0, 0, err, sizeof err), 0, "%s",
                     err);
        for (int n = 0; n <= (int)x + 12; n++) {
            const double dj = n ? jn(n - 1, x) - n / x * jn(n, x) : -j1(x);
            const double dy = n ? yn(n - 1, x) - n / x * yn(n, x) : -y1(x);
            const double complex want = -dj / (dj - I * dy);
            cr_assert_lt(cabs(c2.an[n] - want), 1e-13 * fmax(cabs(want), 1e-300) + 1e-300,
                         "ka %g n %d", x, n);
        }
        /* a PEC reflects everything: ext = sca, absorption 0 */
        const double ext = farexact_cyl2_extinction_over_lambda(&c2);
        const double sca = farexact_cyl2_total_over_lambda(&c2);
        cr_assert_lt(fabs(ext - sca), 1e-12 * sca, "ka %g: ext %.15g sca %.15g", x, ext, sca);
        cr_assert_eq(farexact_cyl2_absorption_over_lambda(&c2), 0.0);
    }
}

Test(exact_cyl, vacuum_scatters_nothing)
{
    char err[ERRLEN];
    for (int pol = 0; pol < 2; pol++) {
        cr_assert_eq(farexact_cyl2_init(&c2, pol, 4.0, 0, 1.0, 1.0, err, sizeof err), 0, "%s", err);
        cr_assert_lt(max_an(&c2), 1e-15, "pol %d: max |a_n| %g", pol, max_an(&c2));
        /* and inside, the series of Bessel functions is the plane wave
         * (Jacobi-Anger), with eta0 H (TM) or E / eta0 (TE) of it */
        for (int s = 0; s < 12; s++) {
            const double kr = 0.37 * s, psi = 0.5 * s - 1.0;
            struct farexact_field f;
            farexact_cyl2_field(&c2, kr, psi, &f);
            const double complex e = cexp(-I * kr * cos(psi));
            /* TM: Ez = e, eta0 H = -x^ cross ... : eta0 Hy = -e, i.e.
             * eta0 H_rho = -e sin(phi), eta0 H_phi = -e cos(phi) (theta = 0);
             * TE: Hz = e, E_y / eta0 = +e */
            const double sg = pol == FAREXACT_TM ? -1.0 : 1.0;
            cr_assert_lt(cabs(f.z - e), 1e-14, "pol %d kr %g psi %g", pol, kr, psi);
            cr_assert_lt(cabs(f.rho - sg * e * sin(psi)), 1e-13, "pol %d kr %g", pol, kr);
            cr_assert_lt(cabs(f.phi - sg * e * cos(psi)), 1e-13, "pol %d kr %g", pol, kr);
        }
    }
}

/* TM(eps, mu) = TE(mu, eps): Maxwell's equations are symmetric under
 * E -> H, H -> -E, eps <-> mu. */
Test(exact_cyl, duality)
{
    char err[ERRLEN];
    const double complex e[] = {4.0, 2.0 - 1.0 * I, -5.0 - 0.3 * I, 1.0};
    const double complex m[] = {1.0, 1.5 - 0.3 * I, 1.0, 3.0 - 2.0 * I};
    for (int q = 0; q < 4; q++) {
        cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, 2.5, 0, e[q], m[q], err, sizeof err), 0,
                     "%s", err);
        cr_assert_eq(farexact_cyl2_init(&d2, FAREXACT_TE, 2.5, 0, m[q], e[q], err, sizeof err), 0,
                     "%s", err);
        const double d = an_diff(c2.an, c2.nmax, d2.an, d2.nmax);
        cr_assert_lt(d, 1e-13 * max_an(&c2), "case %d: %g", q, d);
        /* and the swap of the other polarisation is another problem */
        cr_assert_eq(farexact_cyl2_init(&d2, FAREXACT_TE, 2.5, 0, e[q], m[q], err, sizeof err), 0);
        if (e[q] != m[q])
            cr_assert_gt(an_diff(c2.an, c2.nmax, d2.an, d2.nmax), 1e-3);
    }
}

/* A good conductor, eps = 1 - i s (s = sigma / (omega eps0)), tends to the
 * PEC of the same polarisation; the difference is of the order of the surface
 * impedance |eta| = s^(-1/2) (Leontovich), measured ~1.06 |eta| (TM) and
 * ~0.79 |eta| (TE) at ka = 1. */
Test(exact_cyl, good_conductor_tends_to_pec)
{
    char err[ERRLEN];
    for (int pol = 0; pol < 2; pol++) {
        cr_assert_eq(farexact_cyl2_init(&d2, pol, 1.0, 1, 0, 0, err, sizeof err), 0, "%s", err);
        double prev = INFINITY;
        const double s[] = {1e2, 1e3, 1e4, 1e5};
        for (int q = 0; q < 4; q++) {
            cr_assert_eq(farexact_cyl2_init(&c2, pol, 1.0, 0, 1.0 - I * s[q], 1.0, err, sizeof err),
                         0, "%s", err);
            const double d = an_diff(c2.an, c2.nmax, d2.an, d2.nmax);
            cr_assert_lt(d, 1.5 * cabs(c2.eta), "pol %d s %g: %g, |eta| %g", pol, s[q], d,
                         cabs(c2.eta));
            cr_assert_gt(d, 0.5 * cabs(c2.eta), "pol %d s %g: %g, |eta| %g", pol, s[q], d,
                         cabs(c2.eta));
            cr_assert_lt(d, prev);
            prev = d;
        }
    }
}

/* eps = mu: TM = TE (the duality maps the problem onto itself), and the
 * backscatter is not zero: the small-ka limit is
 * T(pi) = -(i pi (ka)^2 / 4) [(eps - 1) - 2 (mu - 1) / (mu + 1)] (a_0 from the
 * axial electric dipole, undepolarised; a_1 from the in-plane magnetic one,
 * depolarised by 2 / (mu + 1)), -i pi (ka)^2 / 12 for eps = mu = 2.  At
 * larger ka it stays below that of the dielectric with the same k1 (eps = 4,
 * mu = 1) but far from zero. */
Test(exact_cyl, impedance_matched_backscatter_is_not_zero)
{
    char err[ERRLEN];
    const double ka = 0.01;
    cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, ka, 0, 2.0, 2.0, err, sizeof err), 0);
    cr_assert_eq(farexact_cyl2_init(&d2, FAREXACT_TE, ka, 0, 2.0, 2.0, err, sizeof err), 0);
    cr_assert_lt(an_diff(c2.an, c2.nmax, d2.an, d2.nmax), 1e-15 * max_an(&c2));
    const double complex want = -I * M_PI * ka * ka / 4.0 * ((2.0 - 1.0) - 2.0 * (1.0 / 3.0));
    const double complex back = farexact_cyl2_amplitude(&c2, M_PI);
    cr_assert_lt(cabs(back - want), 1e-2 * cabs(want), "T(pi) %g%+gi, Rayleigh %g%+gi",
                 creal(back), cimag(back), creal(want), cimag(want));
    /* a general (eps, mu) in the same limit */
    const double complex e = 3.0 - 0.5 * I, m = 1.7 - 0.2 * I;
    cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, ka, 0, e, m, err, sizeof err), 0);
    const double complex w2 = -I * M_PI * ka * ka / 4.0 * ((e - 1.0) - 2.0 * (m - 1.0) / (m + 1.0));
    const double complex b2 = farexact_cyl2_amplitude(&c2, M_PI);
    cr_assert_lt(cabs(b2 - w2), 1e-2 * cabs(w2));
    const double kas[] = {1.0, 3.0, 10.0, 30.0};
    for (int q = 0; q < 4; q++) {
        cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, kas[q], 0, 2.0, 2.0, err, sizeof err), 0);
        cr_assert_eq(farexact_cyl2_init(&d2, FAREXACT_TM, kas[q], 0, 4.0, 1.0, err, sizeof err), 0);
        const double bm = farexact_cyl2_sigma_over_lambda(&c2, M_PI);
        const double bd = farexact_cyl2_sigma_over_lambda(&d2, M_PI);
        cr_log_info("ka %g: backscatter sigma_2D / lambda, eps = mu = 2: %.4g, eps = 4: %.4g",
                    kas[q], bm, bd);
        cr_assert_gt(bm, 0.05); /* a twentieth of a wavelength at least */
        cr_assert_lt(bm, bd);
    }
}

/* Small ka: the field inside is the incident one, depolarised in the plane
 * by 2 / (eps + 1) (E, TE) or 2 / (mu + 1) (H, TM), not along the axis, so
 * the absorption width is k eps'' pi a^2 |E_in|^2 + k mu'' pi a^2 |eta0 H_in|^2:
 *     sigma_abs / lambda = (ka)^2 / 2 (eps'' |E_in|^2 + mu'' |eta0 H_in|^2). */
Test(exact_cyl, small_ka_absorption)
{
    char err[ERRLEN];
    const double ka = 1e-3;
    const double complex e = 2.0 - 0.7 * I, m = 1.5 - 0.4 * I;
    const double ee = -cimag(e), mm = -cimag(m);
    const double want_tm = ka * ka / 2.0 * (ee + mm * pow(cabs(2.0 / (m + 1.0)), 2));
    const double want_te = ka * ka / 2.0 * (mm + ee * pow(cabs(2.0 / (e + 1.0)), 2));
    cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, ka, 0, e, m, err, sizeof err), 0, "%s", err);
    const double tm = farexact_cyl2_absorption_over_lambda(&c2);
    cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TE, ka, 0, e, m, err, sizeof err), 0, "%s", err);
    const double te = farexact_cyl2_absorption_over_lambda(&c2);
    cr_assert_lt(fabs(tm - want_tm), 1e-4 * want_tm, "TM %.10g, Rayleigh %.10g", tm, want_tm);
    cr_assert_lt(fabs(te - want_te), 1e-4 * want_te, "TE %.10g, Rayleigh %.10g", te, want_te);
}

/* The absorbed width from the near field inside, in units of lambda:
 * (1 / 2 pi) int_0^ka int_0^2pi (eps'' |E|^2 + mu'' |eta0 H|^2) u du dphi,
 * u = k rho (|E| normalised to the incident E for TM, E / eta0 to the
 * incident H for TE). */
static double volume_absorption(const struct farexact_cyl2 *c)
{
    enum { NR = 64, NP = 128 };
    double x[NR], w[NR];
    gauss_legendre(NR, x, w);
    for (int i = 0; i < NR; i++) { /* [-1, 1] -> [0, ka] */
        x[i] = c->ka * (1.0 + x[i]) / 2.0;
        w[i] *= c->ka / 2.0;
    }
    const double ee = -cimag(c->eps), mm = -cimag(c->mu);
    double sum = 0.0;
    for (int i = 0; i < NR; i++) {
        double ring = 0.0;
        for (int s = 0; s < NP; s++) {
            struct farexact_field f;
            farexact_cyl2_field(c, x[i], 2.0 * M_PI * s / NP, &f);
            const double z2 = creal(f.z * conj(f.z));
            const double t2 = creal(f.rho * conj(f.rho) + f.phi * conj(f.phi));
            ring += c->pol == FAREXACT_TM ? ee * z2 + mm * t2 : mm * z2 + ee * t2;
        }
        sum += w[i] * x[i] * ring * (2.0 * M_PI / NP);
    }
    return sum / (2.0 * M_PI);
}

/* Energy: extinction (forward amplitude) = scattering (pattern integrated
 * over angle) + absorption (loss integrated over the volume), each by its own
 * route; and the series' absorption width = the volume integral. */
Test(exact_cyl, optical_theorem_with_volume_absorption)
{
    char err[ERRLEN];
    static const struct {
        double ka;
        double complex eps, mu;
    } cases[] = {
        {3.0, 2.0 - 1.0 * I, 1.5 - 0.3 * I}, {5.0, 4.0 - 0.4 * I, 1.0},
        {1.0, 1.0, 2.0 - 2.0 * I},           {2.0, 1.0 - 50.0 * I, 1.0},
        {1.0, -5.0 - 0.3 * I, 1.0},          {0.7, 12.0 - 3.0 * I, 1.0},
    };
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        for (int pol = 0; pol < 2; pol++) {
            cr_assert_eq(farexact_cyl2_init(&c2, pol, cases[q].ka, 0, cases[q].eps, cases[q].mu,
                                            err, sizeof err),
                         0, "%s", err);
            const double ext = -2.0 / M_PI * creal(farexact_cyl2_amplitude(&c2, 0.0));
            const int N = 720; /* > 2 nmax: exact for the trigonometric polynomial */
            cr_assert_lt(2 * c2.nmax, N);
            double sca = 0.0;
            for (int s = 0; s < N; s++)
                sca += farexact_cyl2_sigma_over_lambda(&c2, 2.0 * M_PI * s / N);
            sca /= N;
            const double vol = volume_absorption(&c2);
            const double abs_series = farexact_cyl2_absorption_over_lambda(&c2);
            cr_assert_gt(vol, 0.0);
            cr_assert_lt(fabs(ext - (sca + vol)), 1e-9 * ext,
                         "case %zu pol %d: ext %.12g, sca %.12g + volume abs %.12g = %.12g", q, pol,
                         ext, sca, vol, sca + vol);
            cr_assert_lt(fabs(abs_series - vol), 1e-9 * ext,
                         "case %zu pol %d: series abs %.12g, volume %.12g", q, pol, abs_series,
                         vol);
            cr_assert_lt(fabs(farexact_cyl2_total_over_lambda(&c2) - sca), 1e-12 * sca);
        }
    }
}

Test(exact_cyl, lossless_absorbs_nothing)
{
    char err[ERRLEN];
    const double complex e[] = {4.0, 2.0, -3.0, 1.0};
    const double complex m[] = {1.0, 3.0, 1.0, -2.0};
    for (int q = 0; q < 4; q++) {
        for (int pol = 0; pol < 2; pol++) {
            cr_assert_eq(farexact_cyl2_init(&c2, pol, 2.2, 0, e[q], m[q], err, sizeof err), 0);
            const double ext = farexact_cyl2_extinction_over_lambda(&c2);
            const double ab = farexact_cyl2_absorption_over_lambda(&c2);
            cr_assert_lt(fabs(ab), 1e-14 * ext, "case %d pol %d: abs %g, ext %g", q, pol, ab, ext);
        }
    }
}

/* On the surface: F and the tangential component continuous, and the normal
 * one jumps by the material: TM mu H_rho, TE eps E_rho continuous. */
Test(exact_cyl, near_field_boundary_conditions)
{
    char err[ERRLEN];
    const double ka = 3.0;
    for (int pol = 0; pol < 2; pol++) {
        cr_assert_eq(farexact_cyl2_init(&c2, pol, ka, 0, 2.0 - 1.0 * I, 1.5 - 0.3 * I, err,
                                        sizeof err),
                     0, "%s", err);
        const double complex jump = pol == FAREXACT_TM ? c2.mu : c2.eps;
        for (int s = 0; s < 16; s++) {
            const double psi = 0.4 * s;
            struct farexact_field in, out;
            farexact_cyl2_field(&c2, ka * (1.0 - 1e-15), psi, &in);
            farexact_cyl2_field(&c2, ka, psi, &out);
            const double sc = cabs(out.z) + cabs(out.phi) + cabs(out.rho);
            cr_assert_lt(cabs(in.z - out.z), 1e-12 * sc, "pol %d psi %g", pol, psi);
            cr_assert_lt(cabs(in.phi - out.phi), 1e-12 * sc, "pol %d psi %g", pol, psi);
            cr_assert_lt(cabs(jump * in.rho - out.rho), 1e-12 * sc, "pol %d psi %g", pol, psi);
        }
    }
    /* PEC: TM Ez = 0 on the surface, TE E_phi = 0 (and H_rho, E_rho... the
     * normal B and tangential E vanish) */
    for (int pol = 0; pol < 2; pol++) {
        cr_assert_eq(farexact_cyl2_init(&c2, pol, ka, 1, 0, 0, err, sizeof err), 0);
        for (int s = 0; s < 16; s++) {
            struct farexact_field f;
            farexact_cyl2_field(&c2, ka, 0.4 * s, &f);
            if (pol == FAREXACT_TM) {
                cr_assert_lt(cabs(f.z), 1e-13);
                cr_assert_lt(cabs(f.rho), 1e-12);
            } else {
                cr_assert_lt(cabs(f.phi), 1e-12);
            }
        }
    }
}

/* The in-plane components against finite differences of the z component
 * (Faraday / Ampere, see farexact.h), inside and outside. */
Test(exact_cyl, near_field_obeys_maxwell)
{
    char err[ERRLEN];
    const double h = 1e-5;
    for (int pol = 0; pol < 2; pol++) {
        cr_assert_eq(farexact_cyl2_init(&c2, pol, 2.0, 0, 3.0 - 1.0 * I, 1.2 - 0.2 * I, err,
                                        sizeof err),
                     0, "%s", err);
        const double krs[] = {0.5, 1.5, 2.6, 7.0};
        for (int q = 0; q < 4; q++) {
            const double kr = krs[q], psi = 0.9 + q;
            struct farexact_field f, a, b, c, d;
            farexact_cyl2_field(&c2, kr, psi, &f);
            farexact_cyl2_field(&c2, kr + h, psi, &a);
            farexact_cyl2_field(&c2, kr - h, psi, &b);
            farexact_cyl2_field(&c2, kr, psi + h, &c);
            farexact_cyl2_field(&c2, kr, psi - h, &d);
            const double complex dr = (a.z - b.z) / (2 * h), dp = (c.z - d.z) / (2 * h);
            const int in = kr < c2.ka;
            const double complex med = !in ? 1.0 : pol == FAREXACT_TM ? c2.mu : c2.eps;
            const double sg = pol == FAREXACT_TM ? 1.0 : -1.0;
            const double complex rho = sg * I / (med * kr) * dp, phi = -sg * I / med * dr;
            const double sc = cabs(f.z) + cabs(f.rho) + cabs(f.phi);
            cr_assert_lt(cabs(rho - f.rho), 1e-8 * sc, "pol %d kr %g: rho %g%+gi, fd %g%+gi", pol,
                         kr, creal(f.rho), cimag(f.rho), creal(rho), cimag(rho));
            cr_assert_lt(cabs(phi - f.phi), 1e-8 * sc, "pol %d kr %g: phi", pol, kr);
        }
    }
}

/* Far away, total - incident -> sqrt(2 / (pi k rho)) exp(-i (k rho - pi/4)) T(psi)
 * (relative correction (4 n^2 - 1) / (8 k rho)). */
Test(exact_cyl, near_field_far_away_is_the_amplitude)
{
    char err[ERRLEN];
    const double kr = 1e7;
    for (int pol = 0; pol < 2; pol++) {
        cr_assert_eq(farexact_cyl2_init(&c2, pol, 2.5, 0, 2.0 - 1.0 * I, 1.5, err, sizeof err), 0);
        const double complex norm = sqrt(M_PI * kr / 2.0) * cexp(I * (kr - M_PI / 4.0));
        for (int s = 0; s <= 12; s++) {
            const double psi = s * M_PI / 12;
            struct farexact_field f;
            farexact_cyl2_field(&c2, kr, psi, &f);
            const double complex fs = (f.z - cexp(-I * kr * cos(psi))) * norm;
            const double complex t = farexact_cyl2_amplitude(&c2, psi);
            cr_assert_lt(cabs(fs - t), 1e-5 * max_an(&c2), "pol %d psi %g", pol, psi);
        }
    }
}

Test(exact_cyl, bad_parameters_are_refused)
{
    char err[ERRLEN];
    cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, 0.0, 0, 2.0, 1.0, err, sizeof err), -1);
    cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, 1.0, 0, 0.0, 1.0, err, sizeof err), -1);
    cr_assert(strstr(err, "nonzero"), "%s", err);
    cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TE, 1.0, 0, NAN, 1.0, err, sizeof err), -1);
    cr_assert_eq(farexact_cyl2_init(&c2, (enum farexact_pol)7, 1.0, 1, 0, 0, err, sizeof err), -1);
    /* |Im k1 a| = 1000 sqrt(1e6 / 2) > 700 */
    cr_assert_eq(farexact_cyl2_init(&c2, FAREXACT_TM, 1.0, 0, 1.0 - 1e6 * I, 1.0, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "700"), "%s", err);
}
