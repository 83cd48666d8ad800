/* test_exact_media.c - compare/dispersion.c (eps(omega)) and compare/slab.c
 * (Airy and Fresnel coefficients) against expectations from elsewhere: the
 * models' limits and closed forms written out here, the relations between the
 * pole kinds, passivity, and for the slab a transfer (characteristic) matrix
 * written here, its limits, energy conservation and the absorbed power
 * integrated over the slab. */
#include "helpers.h"

#include <complex.h>

#include "compare/dispersion.h"
#include "compare/slab.h"

static double crel(double complex got, double complex want)
{
    return cabs(got - want) / cabs(want);
}

/* ---- dispersion ---------------------------------------------------------- */

Test(dispersion, debye_limits_and_loss_peak)
{
    const struct dispersion_pole p = {.kind = DISPERSION_DEBYE, .delta_eps = 74.0, .tau = 8.3e-12};
    const struct dispersion_material m = {.eps_inf = 5.0, .npoles = 1, .poles = &p};
    cr_assert_lt(crel(dispersion_eps(&m, 1e-12 / p.tau), 79.0), 1e-12); /* static: error ~ omega tau */
    cr_assert_lt(crel(dispersion_eps(&m, 1e9 / p.tau), 5.0), 1e-7);     /* optical */
    /* omega tau = 1: eps_inf + delta_eps / 2 - i delta_eps / 2, the loss peak */
    cr_assert_lt(crel(dispersion_eps(&m, 1.0 / p.tau), 5.0 + 37.0 - 37.0 * I), 1e-15);
    double best = 0.0, wbest = 0.0;
    for (double lw = -3.0; lw <= 3.0; lw += 0.001) {
        const double w = pow(10.0, lw) / p.tau;
        const double loss = -cimag(dispersion_eps(&m, w));
        if (loss > best)
            best = loss, wbest = w;
    }
    cr_assert_lt(fabs(wbest * p.tau - 1.0), 3e-3);
}

Test(dispersion, lorentz_limits_and_resonance)
{
    const struct dispersion_pole p = {
        .kind = DISPERSION_LORENTZ, .delta_eps = 3.0, .omega0 = 2e15, .gamma = 1e14};
    const struct dispersion_material m = {.eps_inf = 1.5, .npoles = 1, .poles = &p};
    cr_assert_lt(crel(dispersion_eps(&m, 1e6), 4.5), 1e-10); /* error ~ gamma omega / omega0^2 */
    /* at resonance the term is -i delta_eps omega0 / gamma */
    cr_assert_lt(crel(dispersion_eps(&m, 2e15), 1.5 - I * 3.0 * 20.0), 1e-15);
    /* far above: eps_inf - delta_eps omega0^2 / omega^2 */
    const double w = 2e18;
    cr_assert_lt(cabs(dispersion_eps(&m, w) - (1.5 - 3.0 * 4e30 / (w * w))), 1e-8);
}

/* eps = eps_inf - omega_p^2 / (omega^2 + gamma^2) - i omega_p^2 gamma / (omega (omega^2 + gamma^2)):
 * the real part is negative below omega = sqrt(omega_p^2 / eps_inf - gamma^2). */
Test(dispersion, drude_closed_form_and_negative_below_the_plasma_frequency)
{
    const double wp = 1.37e16, g = 1.0e14, einf = 1.0; /* of the order of gold's */
    const struct dispersion_pole p = {.kind = DISPERSION_DRUDE, .omega_p = wp, .gamma = g};
    const struct dispersion_material m = {.eps_inf = einf, .npoles = 1, .poles = &p};
    const double w0 = sqrt(wp * wp / einf - g * g);
    for (double f = 0.05; f < 3.0; f *= 1.3) {
        const double w = f * wp;
        const double complex want =
            einf - wp * wp / (w * w + g * g) - I * wp * wp * g / (w * (w * w + g * g));
        const double complex got = dispersion_eps(&m, w);
        cr_assert_lt(crel(got, want), 1e-14, "omega / omega_p = %g", f);
        cr_assert(w < w0 ? creal(got) < 0.0 : creal(got) > 0.0, "omega / omega_p = %g: Re eps %g",
                  f, creal(got));
        cr_assert_lt(cimag(got), 0.0);
    }
    cr_assert_lt(fabs(creal(dispersion_eps(&m, w0))), 1e-12);
}

/* Drude = Lorentz with omega0 -> 0 at delta_eps omega0^2 = omega_p^2;
 * Debye = overdamped Lorentz, tau = gamma / omega0^2, where omega << omega0
 * (relative difference ~ (omega / omega0)^2). */
Test(dispersion, pole_kinds_are_limits_of_each_other)
{
    const double wp = 1e15, g = 3e13, w0 = 1e6;
    const struct dispersion_pole dr = {.kind = DISPERSION_DRUDE, .omega_p = wp, .gamma = g};
    const struct dispersion_pole lo = {
        .kind = DISPERSION_LORENTZ, .delta_eps = wp * wp / (w0 * w0), .omega0 = w0, .gamma = g};
    for (double w = 1e13; w < 1e16; w *= 2.0)
        cr_assert_lt(crel(dispersion_pole_term(&lo, w), dispersion_pole_term(&dr, w)), 1e-12);
    const struct dispersion_pole de = {.kind = DISPERSION_DEBYE, .delta_eps = 10.0, .tau = 1e-10};
    const struct dispersion_pole od = {
        .kind = DISPERSION_LORENTZ, .delta_eps = 10.0, .omega0 = 1e13, .gamma = 1e16};
    for (double w = 1e8; w < 1e11; w *= 2.0)
        cr_assert_lt(crel(dispersion_pole_term(&od, w), dispersion_pole_term(&de, w)),
                     2.0 * pow(w / 1e13, 2) + 1e-15, "omega %g", w);
}

/* -i sigma / (omega eps0): 1 S/m at 1 GHz is -i 17.98; poles add up; a
 * material of passive poles is lossy at every frequency. */
Test(dispersion, conductivity_sum_and_passivity)
{
    const struct dispersion_material c = {.eps_inf = 1.0, .sigma = 1.0};
    const double w = 2.0 * M_PI * 1e9;
    cr_assert_lt(crel(dispersion_eps(&c, w), 1.0 - I * 17.975103584), 1e-9);
    const struct dispersion_pole poles[3] = {
        {.kind = DISPERSION_DEBYE, .delta_eps = 20.0, .tau = 1e-11},
        {.kind = DISPERSION_LORENTZ, .delta_eps = 2.0, .omega0 = 5e11, .gamma = 2e10},
        {.kind = DISPERSION_DRUDE, .omega_p = 1e12, .gamma = 1e11},
    };
    const struct dispersion_material m = {.eps_inf = 2.0, .sigma = 0.01, .npoles = 3, .poles = poles};
    char err[ERRLEN];
    cr_assert_eq(dispersion_check(&m, err, sizeof err), 0, "%s", err);
    for (double x = 1e6; x < 1e15; x *= 1.7) {
        const double complex e = dispersion_eps(&m, x);
        double complex sum = 2.0 - I * 0.01 / (x * DISPERSION_EPS0);
        for (int q = 0; q < 3; q++) {
            const struct dispersion_material one = {.eps_inf = 0.0, .npoles = 1, .poles = &poles[q]};
            sum += dispersion_eps(&one, x);
        }
        cr_assert_lt(crel(e, sum), 1e-14);
        cr_assert_lt(cimag(e), 0.0, "omega %g: Im eps %g", x, cimag(e));
    }
}

Test(dispersion, bad_parameters_are_refused)
{
    char err[ERRLEN];
    struct dispersion_pole p = {.kind = DISPERSION_DEBYE, .delta_eps = 1.0, .tau = 0.0};
    struct dispersion_material m = {.eps_inf = 1.0, .npoles = 1, .poles = &p};
    cr_assert_eq(dispersion_check(&m, err, sizeof err), -1);
    cr_assert(strstr(err, "tau"), "%s", err);
    p = (struct dispersion_pole){.kind = DISPERSION_DRUDE, .omega_p = 1.0, .gamma = -1.0};
    cr_assert_eq(dispersion_check(&m, err, sizeof err), -1);
    cr_assert(strstr(err, "gamma"), "%s", err);
    p = (struct dispersion_pole){.kind = DISPERSION_LORENTZ, .delta_eps = 1.0, .omega0 = 0.0};
    cr_assert_eq(dispersion_check(&m, err, sizeof err), -1);
    m = (struct dispersion_material){.eps_inf = 0.0};
    cr_assert_eq(dispersion_check(&m, err, sizeof err), -1);
    m = (struct dispersion_material){.eps_inf = 1.0, .sigma = -1.0};
    cr_assert_eq(dispersion_check(&m, err, sizeof err), -1);
}

/* ---- slab ---------------------------------------------------------------- */

/* The characteristic matrix of the slab, (E, eta0 H) at z = 0 from those at
 * z = d: [[cos delta, i eta sin delta], [i sin delta / eta, cos delta]];
 * with 1 + r, 1 - r at z = 0 and t, t at z = d: t = 2 / (sum of the entries),
 * r = (M11 + M12) t - 1.  Written here independently of the Airy sums. */
static void matrix_rt(double k0d, double complex eps, double complex mu, double complex *r,
                      double complex *t)
{
    const double complex eta = csqrt(mu / eps), d = (mu / eta) * k0d;
    const double complex c = ccos(d), s = csin(d);
    const double complex m11 = c, m12 = I * eta * s, m21 = I * s / eta, m22 = c;
    *t = 2.0 / (m11 + m12 + m21 + m22);
    *r = (m11 + m12) * *t - 1.0;
}

Test(slab, airy_equals_the_transfer_matrix)
{
    const double complex eps[] = {4.0, 2.0 - 0.5 * I, 30.0 - 20.0 * I, -3.0 - 0.2 * I, 1.0};
    const double complex mu[] = {1.0, 1.0, 1.0, 1.0, 2.0 - 1.0 * I};
    for (int q = 0; q < 5; q++) {
        for (double k0d = 0.01; k0d < 30.0; k0d *= 1.9) {
            double complex r, t, rm, tm;
            slab_rt(k0d, eps[q], mu[q], &r, &t);
            matrix_rt(k0d, eps[q], mu[q], &rm, &tm);
            const double sc = cabs(rm) + cabs(tm);
            cr_assert_lt(cabs(r - rm), 1e-13 * sc, "case %d k0 d %g: r", q, k0d);
            cr_assert_lt(cabs(t - tm), 1e-13 * sc, "case %d k0 d %g: t", q, k0d);
        }
    }
}

Test(slab, thin_half_wave_and_lossless)
{
    double complex r, t;
    slab_rt(0.0, 4.0 - 1.0 * I, 1.0, &r, &t);
    cr_assert_lt(cabs(r), 1e-16);
    cr_assert_lt(cabs(t - 1.0), 1e-16);
    /* half-wave: N k0 d = pi, N = 2: r = 0, t = -1 */
    slab_rt(M_PI / 2.0, 4.0, 1.0, &r, &t);
    cr_assert_lt(cabs(r), 1e-15, "|r| %g", cabs(r));
    cr_assert_lt(cabs(t + 1.0), 1e-15);
    /* quarter-wave: r = (eta^2 - 1) / (eta^2 + 1) = (1 - eps) / (1 + eps) */
    slab_rt(M_PI / 4.0, 4.0, 1.0, &r, &t);
    cr_assert_lt(cabs(r - (-3.0 / 5.0)), 1e-15, "r %g%+gi", creal(r), cimag(r));
    for (double k0d = 0.1; k0d < 20.0; k0d *= 1.3) {
        slab_rt(k0d, 6.0, 2.5, &r, &t);
        cr_assert_lt(fabs(creal(r * conj(r) + t * conj(t)) - 1.0), 1e-14);
        slab_rt(k0d, -4.0, 1.0, &r, &t); /* evanescent inside, lossless */
        cr_assert_lt(fabs(creal(r * conj(r) + t * conj(t)) - 1.0), 1e-14);
    }
}

/* 1 - |r|^2 - |t|^2 = k0 int_0^d (eps'' |E|^2 + mu'' |eta0 H|^2) dz, the
 * field inside from the characteristic matrix (to z = d from z):
 * E(z) = t (cos D + i eta sin D), eta0 H(z) = t (i sin D / eta + cos D),
 * D = N k0 (d - z); Simpson's rule on 4000 intervals. */
Test(slab, absorbed_fraction_is_the_volume_loss)
{
    const double complex eps[] = {2.0 - 0.5 * I, 30.0 - 20.0 * I, 1.0, 4.0 - 1.0 * I};
    const double complex mu[] = {1.0, 1.0, 2.0 - 1.0 * I, 1.5 - 0.2 * I};
    const double k0ds[] = {3.0, 0.7, 2.0, 5.0};
    for (int q = 0; q < 4; q++) {
        double complex r, t;
        const double k0d = k0ds[q];
        slab_rt(k0d, eps[q], mu[q], &r, &t);
        const double complex eta = csqrt(mu[q] / eps[q]), N = mu[q] / eta;
        const int M = 4000;
        double sum = 0.0;
        for (int s = 0; s <= M; s++) {
            const double u = k0d * s / M; /* k0 z */
            const double complex D = N * (k0d - u);
            const double complex E = t * (ccos(D) + I * eta * csin(D));
            const double complex H = t * (I * csin(D) / eta + ccos(D));
            const double f = -cimag(eps[q]) * creal(E * conj(E)) - cimag(mu[q]) * creal(H * conj(H));
            sum += f * (s == 0 || s == M ? 1.0 : s % 2 ? 4.0 : 2.0);
        }
        const double vol = sum * (k0d / M) / 3.0;
        const double absorbed = 1.0 - creal(r * conj(r)) - creal(t * conj(t));
        cr_assert_gt(absorbed, 0.0);
        cr_assert_lt(fabs(absorbed - vol), 1e-9, "case %d: 1 - |r|^2 - |t|^2 = %.12g, volume %.12g",
                     q, absorbed, vol);
    }
}

/* A thick lossy slab reflects like the half-space; the half-space is Fresnel:
 * PEC-like (eta -> 0) r -> -1, matched (eps = mu) r = 0, and t = 1 + r. */
Test(slab, thick_slab_is_the_half_space)
{
    double complex r, t, rh, th;
    halfspace_rt(4.0 - 2.0 * I, 1.0, &rh, &th);
    slab_rt(200.0, 4.0 - 2.0 * I, 1.0, &r, &t);
    cr_assert_lt(cabs(r - rh), 1e-15);
    cr_assert_lt(cabs(t), 1e-40); /* exp(200 Im N) = 1e-42 */
    cr_assert_lt(cabs(th - (1.0 + rh)), 1e-15);
    halfspace_rt(9.0, 1.0, &rh, &th);
    cr_assert_lt(cabs(rh - (-0.5)), 1e-15); /* (1 - 3) / (1 + 3) */
    halfspace_rt(3.0 - 1.0 * I, 3.0 - 1.0 * I, &rh, &th);
    cr_assert_lt(cabs(rh), 1e-16);
    halfspace_rt(1.0 - 1e12 * I, 1.0, &rh, &th);
    cr_assert_lt(cabs(rh + 1.0), 1e-5);
}

/* A Debye slab (water-like: eps_inf 5, delta_eps 74, tau 8.3 ps) through
 * slab_rt_material equals slab_rt at eps(omega); at low frequency it
 * reflects like a static eps = 79 slab. */
Test(slab, dispersive_material)
{
    const struct dispersion_pole p = {.kind = DISPERSION_DEBYE, .delta_eps = 74.0, .tau = 8.3e-12};
    const struct dispersion_material m = {.eps_inf = 5.0, .npoles = 1, .poles = &p};
    const double d = 0.01;
    for (double f = 1e8; f < 1e12; f *= 3.0) {
        const double w = 2.0 * M_PI * f;
        double complex r, t, r2, t2;
        slab_rt_material(&m, w, d, &r, &t);
        slab_rt(w * d / DISPERSION_C0, dispersion_eps(&m, w), 1.0, &r2, &t2);
        cr_assert(r == r2 && t == t2);
    }
    double complex r, t, rs, ts;
    const double w = 2.0 * M_PI * 1e6;
    slab_rt_material(&m, w, d, &r, &t);
    slab_rt(w * d / DISPERSION_C0, 79.0, 1.0, &rs, &ts);
    cr_assert_lt(cabs(r - rs), 1e-3 * cabs(rs));
}
