/* test_analytic.c - the exact PEC-cylinder series of compare/analytic.c:
 * boundary condition, convergence, far-field decay, a small-ka value worked
 * out by hand from the small-argument Bessel expansions, and the phasor
 * convention against the model's own incident wave and DFT weights. */
#include "helpers.h"

#include <complex.h>

#include "compare/analytic.h"
#include "compare/metrics.h"

static struct analytic_cylinder cyl; /* large: keep it off the stack */

/* Total field Einc + Es on rho = a, for a unit incident phasor at the centre:
 * exp(-i k a cos(psi)) + series(a, psi).  Exactly zero for a PEC; the bound
 * 1e-12 is the rounding floor of a sum of ~ka terms of size up to 2 (measured
 * 3e-15 at ka = 10, 5e-14 at ka = 100). */
Test(analytic, total_field_vanishes_on_the_surface)
{
    char err[ERRLEN];
    const double kas[] = {0.05, 0.5, 3.0, 10.0, 31.4, 100.0};
    const double thetas[] = {0.0, 0.3, -2.0};
    for (size_t q = 0; q < sizeof kas / sizeof kas[0]; q++)
        for (size_t t = 0; t < 3; t++) {
            const double k = 2.0 * M_PI / 20.0, a = kas[q] / k;
            cr_assert_eq(analytic_init(&cyl, k, a, 3.0, -7.0, thetas[t], 11.0, 0, err, sizeof err),
                         0, "%s", err);
            double worst = 0;
            for (int s = 0; s < 720; s++) {
                const double psi = s * M_PI / 360.0;
                const double complex tot = cexp(-I * k * a * cos(psi)) + analytic_series(&cyl, a, psi);
                worst = fmax(worst, cabs(tot));
                /* and through the model-convention entry points, just outside */
                const double phi = psi + thetas[t], r = a * (1.0 + 1e-13);
                const double x = 3.0 + r * cos(phi), y = -7.0 + r * sin(phi);
                const double complex tot2 = analytic_incident(&cyl, x, y) + analytic_scattered(&cyl, x, y);
                cr_assert_lt(cabs(tot2), 1e-10, "ka %g angle %g: |Etot| = %g", kas[q], psi, cabs(tot2));
            }
            cr_assert_lt(worst, 1e-12, "ka %g theta %g: max |Etot| on the surface = %g", kas[q],
                         thetas[t], worst);
        }
}

/* Adding 30 more terms changes no value by more than rounding, anywhere in
 * the annulus that compare --analytic uses and beyond. */
Test(analytic, series_has_converged)
{
    char err[ERRLEN];
    static struct analytic_cylinder more;
    const double k = 2.0 * M_PI / 20.0, a = 10.0 / k;
    cr_assert_eq(analytic_init(&cyl, k, a, 0, 0, 0, 0, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cyl.nmax, analytic_nmax(10.0));
    cr_assert_eq(cyl.nmax, (int)ceil(10.0 + 8.0 * cbrt(10.0) + 10.0));
    cr_assert_eq(analytic_init(&more, k, a, 0, 0, 0, 0, cyl.nmax + 30, err, sizeof err), 0);
    const double rhos[] = {1.0, 1.2, 2.0, 2.5, 8.0, 50.0};
    for (int r = 0; r < 6; r++)
        for (int s = 0; s < 64; s++) {
            const double psi = s * 2.0 * M_PI / 64;
            const double complex e1 = analytic_series(&cyl, rhos[r] * a, psi);
            const double complex e2 = analytic_series(&more, rhos[r] * a, psi);
            cr_assert_leq(cabs(e1 - e2), 1e-14 * fmax(1.0, cabs(e2)), "rho %g a, psi %g: %g", rhos[r],
                          psi, cabs(e1 - e2));
        }
    /* the last kept term is negligible on the surface */
    cr_assert_lt(cabs(cyl.coef[cyl.nmax]), 1e-16, "|coef[nmax]| = %g", cabs(cyl.coef[cyl.nmax]));
}

/* A 2D scattered wave spreads on circles: |Es| sqrt(rho) tends to a constant
 * (the scattering pattern), with corrections of order 1/(k rho). */
Test(analytic, far_field_falls_as_one_over_sqrt_rho)
{
    char err[ERRLEN];
    const double k = 2.0 * M_PI / 20.0, a = 3.0 / k;
    cr_assert_eq(analytic_init(&cyl, k, a, 0, 0, 0, 0, 0, err, sizeof err), 0, "%s", err);
    const double psis[] = {0.0, 1.0, M_PI};
    for (int p = 0; p < 3; p++) {
        double prev = 0;
        for (double kr = 500.0; kr <= 8000.0; kr *= 2.0) {
            const double v = cabs(analytic_series(&cyl, kr / k, psis[p])) * sqrt(kr / k);
            if (prev > 0)
                cr_assert_lt(fabs(v / prev - 1.0), 2.0 / kr * 10.0, "psi %g kr %g: %g vs %g",
                             psis[p], kr, v, prev);
            prev = v;
        }
        /* and it is not trivially zero */
        cr_assert_gt(prev, 0.1);
    }
}

/* ka = 1e-3, k rho = 1e-2, psi = pi/2 (broadside, where the n = 1 term has
 * cos(psi) = 0): only n = 0 matters, the n = 2 term is ~2e-9 relative.  With
 * the small-argument series (Abramowitz-Stegun 9.1.12, 9.1.13)
 *   J0(x) = 1 - x^2/4 + x^4/64
 *   Y0(x) = (2/pi) [ (ln(x/2) + gamma) J0(x) + x^2/4 - 3 x^4/128 ]
 * and H0 = J0 - i Y0, the scattered field for a unit incident phasor at the
 * centre is Es = -J0(ka) H0(k rho) / H0(ka).  Centre at the origin, theta =
 * 0, d0 = 0: Einc(0, 0) = -i, so the model-convention value is -i times it. */
Test(analytic, small_cylinder_matches_hand_computed_value)
{
    char err[ERRLEN];
    const double gamma = 0.57721566490153286061;
    const double k = 2.0 * M_PI / 20.0, ka = 1e-3, kr = 1e-2;
    const double a = ka / k, rho = kr / k;
#define J0S(x) (1.0 - (x) * (x) / 4.0 + (x) * (x) * (x) * (x) / 64.0)
#define Y0S(x) (2.0 / M_PI * ((log((x) / 2.0) + gamma) * J0S(x) + (x) * (x) / 4.0 \
                              - 3.0 * (x) * (x) * (x) * (x) / 128.0))
    const double complex h0a = J0S(ka) - I * Y0S(ka), h0r = J0S(kr) - I * Y0S(kr);
    const double complex want = -I * (-J0S(ka) * h0r / h0a);
#undef J0S
#undef Y0S
    cr_assert_eq(analytic_init(&cyl, k, a, 0, 0, 0, 0, 0, err, sizeof err), 0, "%s", err);
    const double complex got = analytic_scattered(&cyl, 0.0, rho);
    cr_assert_lt(cabs(got - want), 1e-7 * cabs(want), "got %.12g%+.12gi, want %.12g%+.12gi",
                 creal(got), cimag(got), creal(want), cimag(want));
    /* the numbers themselves, for the record: |Es| = 0.704, phase near -0.33 rad */
    cr_assert_gt(cabs(want), 0.6);
    cr_assert_lt(cabs(want), 0.8);
}

/* Inside the PEC, the scattered-field formulation holds Es = -Einc. */
Test(analytic, inside_the_cylinder_is_minus_incident)
{
    char err[ERRLEN];
    cr_assert_eq(analytic_init(&cyl, 2.0 * M_PI / 20.0, 15.0, 50.0, 40.0, 0.5, 7.0, 0, err,
                               sizeof err),
                 0, "%s", err);
    for (int s = 0; s < 10; s++) {
        const double x = 50.0 + s, y = 40.0 - 0.5 * s;
        cr_assert_eq(analytic_scattered(&cyl, x, y), -analytic_incident(&cyl, x, y));
    }
}

/* Mirror symmetry about the propagation direction: Es(psi) = Es(-psi). */
Test(analytic, symmetric_about_the_propagation_axis)
{
    char err[ERRLEN];
    const double th = 0.7;
    cr_assert_eq(analytic_init(&cyl, 2.0 * M_PI / 20.0, 31.83, 0, 0, th, 0, 0, err, sizeof err), 0);
    for (int s = 1; s < 20; s++) {
        const double psi = s * 0.15, r = 40.0 + 3 * s;
        const double complex p = analytic_scattered(&cyl, r * cos(th + psi), r * sin(th + psi));
        const double complex m = analytic_scattered(&cyl, r * cos(th - psi), r * sin(th - psi));
        cr_assert_lt(cabs(p - m), 1e-12 * cabs(p), "psi %g", psi);
    }
}

Test(analytic, bad_parameters_are_refused)
{
    char err[ERRLEN];
    cr_assert_eq(analytic_init(&cyl, 0.0, 1.0, 0, 0, 0, 0, 0, err, sizeof err), -1);
    cr_assert(strstr(err, "k > 0"), "%s", err);
    cr_assert_eq(analytic_init(&cyl, 1.0, 5000.0, 0, 0, 0, 0, 0, err, sizeof err), -1);
    cr_assert(strstr(err, "order"), "%s", err);
}

/* The phasor convention, end to end against core/model: the model's own
 * incident wave Ez_inc(x, y, n), summed with the model's DFT weights over
 * whole periods after the ramp, gives analytic_incident(x, y); and the series
 * is built around that same phasor at the centre. */
static const char *cyl_scene = "[grid]\nnx = 96\nny = 80\nsteps = 440\ncourant = 0.5\n"
                               "cells_per_wavelength = 20\n"
                               "[source]\nangle = 33\nfront_offset = 12.5\namplitude = 2.5\n"
                               "[object.c]\nshape = circle\nmaterial = pec\n"
                               "center_x = 47.5\ncenter_y = 40\nradius = 9\n"
                               "[monitor.dft]\nstart_step = 280\n";

Test(analytic, dft_of_the_model_incident_wave_is_the_analytic_phasor)
{
    struct test_setup t;
    char err[ERRLEN];
    setup_from_text(&t, cyl_scene, NULL, 0);
    const struct model *m = &t.model;
    cr_assert_eq(analytic_init_model(&cyl, m, err, sizeof err), 0, "%s", err);
    cr_assert_float_eq(cyl.k * 9.0, 2.0 * M_PI / 20.0 * 9.0, 1e-15);
    cr_assert_float_eq(cyl.theta, 33.0 * M_PI / 180.0, 1e-15);
    const double pts[][2] = {{47.5, 40.0}, {0, 0}, {95, 79}, {10, 70}, {60.25, 3.5}};
    for (int p = 0; p < 5; p++) {
        double complex dft = 0;
        for (int n = t.scene.dft_start + 1; n <= t.scene.steps; n++) {
            double wr, wi;
            model_dft_weight(m, n, &wr, &wi);
            dft += (wr + I * wi) * model_incident(m, pts[p][0], pts[p][1], n);
        }
        const double complex want = analytic_incident(&cyl, pts[p][0], pts[p][1]);
        /* 160 samples = 4 whole periods of 40 steps: the image term cancels
         * to rounding */
        cr_assert_lt(cabs(dft - want), 1e-12, "(%g, %g): dft %g%+gi, analytic %g%+gi", pts[p][0],
                     pts[p][1], creal(dft), cimag(dft), creal(want), cimag(want));
    }
    cr_assert_lt(cabs(cyl.center_phasor - analytic_incident(&cyl, 47.5, 40.0)), 1e-15);
    setup_free(&t);
}

Test(analytic, model_without_one_pec_circle_is_refused)
{
    struct test_setup t;
    char err[ERRLEN];
    setup_from_text(&t,
                    "[grid]\nnx = 64\nny = 64\nsteps = 10\n[object.s]\nshape = rectangle\n"
                    "material = pec\ncenter_x = 30\ncenter_y = 30\nwidth = 8\nheight = 8\n",
                    NULL, 0);
    cr_assert_eq(analytic_init_model(&cyl, &t.model, err, sizeof err), -1);
    cr_assert(strstr(err, "exactly one object, a PEC circle"), "%s", err);
    setup_free(&t);
}
