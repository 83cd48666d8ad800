/* test_te_materials.c - conductivity and dispersion poles in TE ([grid]
 * polarization = te) on the cpu engine: sigma and the poles sit on the E
 * edges (the H arrays; docs/materials-design.md sections 1-3), an edge
 * taking the mean of its two cells' complex permittivities.  Against
 * independent expectations:
 *   - a lossy cylinder (eps = 4 - 2i): the echo width against the exact TE
 *     series (compare/farexact.h farexact_cyl2) and the absorbed power (the
 *     total-field flux box) against the series' absorption width;
 *   - a Drude cylinder near its localized surface plasmon (eps(omega) near
 *     -1 at f0): the echo width against the series with eps(omega) at f0;
 *   - a gold-like Drude nanowire under a pulse: the extinction spectrum of
 *     one run (the flux box at many frequencies) peaks where the exact
 *     series' does, near the quasi-static plasmon eps(omega) = -1;
 *   - Debye and Lorentz edges against the lossy (Crank-Nicolson) edges of
 *     the same eps at f0 (another update of the same physics; a negligible
 *     pole against the plain dielectric: tests/test_dispersive.c);
 *   - the lossy edge update on lossless edges (ca = 1) gives their bits;
 *   - a checkpoint mid-run of a TE dispersive and lossy scene resumes to the
 *     bits of an uninterrupted run;
 *   - the edge material (mean eps_inf and sigma, poles at half strength,
 *     equal poles merged), the pole limit, and the engines without
 *     ENGINE_CAP_TE_LOSSY / ENGINE_CAP_TE_DISPERSIVE refusing. */
#include "helpers.h"

#include <complex.h>

#include "compare/dispersion.h"
#include "compare/farexact.h"
#include "core/checkpoint.h"
#include "core/material.h"
#include "core/monitor.h"
#include "scene_eps.h"

/* A TE cylinder of material m (text %s) at the grid's centre, CPML, sine
 * plane wave at 1 GHz, a far-field monitor and a total-field flux box. */
static const char *cyl_scene =
    "[grid]\nnx = 90\nny = 90\nsteps = 1800\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "polarization = te\n"
    "[source]\ntype = plane_wave\nangle = 0\nramp_periods = 2\n"
    "[boundary]\ntype = cpml\ncells = 12\n"
    "%s"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 44.5\ncenter_y = 44.5\n"
    "radius = 9.5493\n"
    "[monitor.far]\nangles = 360\nstart_step = 1200\n"
    "[monitor.flux.box]\nx0 = 30\nx1 = 59\ny0 = 30\ny1 = 59\nstart_step = 1200\n"
    "[output]\npng = false\n";

#define W0 (2 * M_PI * 1e9)

/* eps(omega) of table material 0 of scene s. */
static double complex material_eps(const struct scene *s, double omega)
{
    return scene_material_eps(&s->materials[0], omega);
}

struct cyl_result {
    double rms;     /* echo width, dB rms over 360 angles */
    double abs_err; /* absorbed width, relative error */
    double sca_err; /* scattered width, relative error */
};

/* Run the TE cylinder of material text mat, size parameter ka, at n cells
 * per wavelength on the cpu engine in float, against the exact TE series of
 * eps(omega) at f0. */
static struct cyl_result te_cylinder(const char *mat, double ka, int n)
{
    const double a = ka * n / (2 * M_PI), half = 25 + n, c0 = half - 0.5;
    const int steps = 90 * n, start = 60 * n;
    const int lo = (int)floor(c0 - a) - 3, hi = (int)ceil(c0 + a) + 3;
    char text[4096], sets[14][80];
    snprintf(text, sizeof text, cyl_scene, mat);
    snprintf(sets[0], 80, "grid.cells_per_wavelength=%d", n);
    snprintf(sets[1], 80, "object.cyl.radius=%.17g", a);
    snprintf(sets[2], 80, "grid.nx=%d", (int)(2 * half));
    snprintf(sets[3], 80, "grid.ny=%d", (int)(2 * half));
    snprintf(sets[4], 80, "grid.steps=%d", steps);
    snprintf(sets[5], 80, "monitor.far.start_step=%d", start);
    snprintf(sets[6], 80, "monitor.flux.box.start_step=%d", start);
    snprintf(sets[7], 80, "object.cyl.center_x=%g", c0);
    snprintf(sets[8], 80, "object.cyl.center_y=%g", c0);
    snprintf(sets[9], 80, "monitor.flux.box.x0=%d", lo);
    snprintf(sets[10], 80, "monitor.flux.box.x1=%d", hi);
    snprintf(sets[11], 80, "monitor.flux.box.y0=%d", lo);
    snprintf(sets[12], 80, "monitor.flux.box.y1=%d", hi);
    const char *all[13];
    for (int k = 0; k < 13; k++)
        all[k] = sets[k];
    struct test_setup t;
    char err[ERRLEN];
    setup_from_text(&t, text, all, 13);
    cr_assert(t.scene.te);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    struct engine *e;
    cr_assert_eq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e, steps, err, sizeof err), 0, "%s", err);
    const double complex eps = material_eps(&t.scene, 2 * M_PI * t.scene.frequency_hz);
    struct farexact_cyl2 *c = malloc(sizeof *c);
    const double mu = t.scene.materials[0].mu_r;
    cr_assert_eq(t.model.magnetic, mu != 1.0);
    cr_assert_eq(farexact_cyl2_init(c, FAREXACT_TE, ka, 0, eps, mu, err, sizeof err), 0, "%s",
                 err);
    double sig[360], s2 = 0;
    cr_assert_eq(monitors_far2d(e->mon, 360, sig, err, sizeof err), 0, "%s", err);
    for (int q = 0; q < 360; q++) {
        const double d = 10 * log10(sig[q] / farexact_cyl2_sigma_over_lambda(c, 2 * M_PI * q / 360));
        s2 += d * d;
    }
    struct cyl_result r = {.rms = sqrt(s2 / 360)};
    double ps, pt;
    monitors_flux2d(e->mon, 0, 0, &ps, &pt);
    const double absorbed = farexact_cyl2_absorption_over_lambda(c) * n; /* cells */
    const double scattered = farexact_cyl2_total_over_lambda(c) * n;
    r.abs_err = -pt / absorbed - 1;
    r.sca_err = ps / scattered - 1;
    cr_log_info("TE cylinder eps %.4f %+.4fi, mu %g, ka %g, %d cells per wavelength: echo width "
                "%.3f dB rms; absorbed %.5f cells (exact %.5f, %+.3f %%), scattered %.5f (exact "
                "%.5f, %+.3f %%); backscatter %.4f (exact %.4f)", creal(eps), cimag(eps), mu, ka,
                n, r.rms,
                -pt, absorbed, 100 * r.abs_err, ps, scattered, 100 * r.sca_err, sig[180],
                farexact_cyl2_sigma_over_lambda(c, M_PI));
    free(c);
    engine_destroy(e);
    setup_free(&t);
    return r;
}

/* The lossy cylinder of tests/test_lossy.c (eps_r 4, loss tangent 0.5 at
 * 1 GHz: eps = 4 - 2i, ka = 3) in TE.  sigma sits on the E edges (the mean
 * of the two cells' complex eps), the object is a staircase (no smoothing
 * of lossy objects in TE), so the errors are first order, as the TE
 * dielectric's without smoothing (tests/test_te.c: 1.24 / 0.92 dB).
 * Measured 0.643 / 0.355 dB rms at 20 / 40 cells per wavelength, absorbed
 * width +4.28 % / +2.67 %, scattered +2.28 % / +2.01 %.  Bounds about 25 %
 * above those, and the echo width's error must fall (ratio below 0.7). */
Test(te_materials, lossy_cylinder_against_exact_series, .timeout = 240)
{
    char mat[200];
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 4\nsigma = %.17g\n",
             0.5 * 4 * W0 * MATERIAL_EPS0);
    const struct cyl_result r20 = te_cylinder(mat, 3.0, 20), r40 = te_cylinder(mat, 3.0, 40);
    cr_expect(r20.rms < 0.8, "20 cells per wavelength: %.3f dB rms", r20.rms);
    cr_expect(r40.rms < 0.45, "40 cells per wavelength: %.3f dB rms", r40.rms);
    cr_expect(r40.rms < 0.7 * r20.rms, "the error falls: %.3f -> %.3f dB", r20.rms, r40.rms);
    cr_expect(fabs(r20.abs_err) < 0.055, "absorbed width at 20: %+.3f %%", 100 * r20.abs_err);
    cr_expect(fabs(r40.abs_err) < 0.035, "absorbed width at 40: %+.3f %%", 100 * r40.abs_err);
    cr_expect(fabs(r40.sca_err) < 0.03, "scattered width at 40: %+.3f %%", 100 * r40.sca_err);
}

/* The lossy cylinder above with mu_r = 2 in its material: lossy E edges
 * beside magnetic Hz nodes (model->hlossy with model->magnetic), against the
 * TE series of eps = 4 - 2i, mu = 2.  A staircase, as above; measured 1.837
 * / 0.665 dB rms at 20 / 40 cells per wavelength, absorbed width +2.63 % /
 * +1.68 %, scattered +1.75 % / +1.46 %.  Run at 20 only (CI time); bounds
 * about 25 % above. */
Test(te_materials, lossy_magnetic_cylinder_against_exact_series, .timeout = 240)
{
    char mat[200];
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 4\nmu_r = 2\nsigma = %.17g\n",
             0.5 * 4 * W0 * MATERIAL_EPS0);
    const struct cyl_result r = te_cylinder(mat, 3.0, 20);
    cr_expect(r.rms < 2.3, "%.3f dB rms", r.rms);
    cr_expect(fabs(r.abs_err) < 0.033, "absorbed width %+.3f %%", 100 * r.abs_err);
    cr_expect(fabs(r.sca_err) < 0.022, "scattered width %+.3f %%", 100 * r.sca_err);
}

/* A Debye cylinder of mu_r = 2 (dispersive E edges beside magnetic Hz
 * nodes) against lossy edges of the same eps at f0 (eps_inf 2, delta_eps 6,
 * omega tau = 1: 5 - 3i) and the same mu, as debye_against_lossy_edges
 * below: two updates of the same physics agree within 0.02 dB.  Measured
 * 2.3603 and 2.3609 dB rms (ka = 2, 20 cells per wavelength; the staircase
 * of eps sqrt(mu eps) = 3.5 cells a wavelength inside). */
Test(te_materials, debye_magnetic_cylinder_against_lossy_edges, .timeout = 240)
{
    char mat[200];
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 2\nmu_r = 2\ndebye = 6 %.17g\n", 1.0 / W0);
    const struct cyl_result rp = te_cylinder(mat, 2.0, 20);
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 5\nmu_r = 2\nsigma = %.17g\n",
             3.0 * W0 * MATERIAL_EPS0);
    const struct cyl_result rl = te_cylinder(mat, 2.0, 20);
    cr_expect(fabs(rp.rms - rl.rms) < 0.02, "poles %.4f dB rms, the lossy edges %.4f", rp.rms,
              rl.rms);
    cr_expect(fabs(rp.abs_err - rl.abs_err) < 0.002, "absorbed width: poles %+.3f %%, lossy %+.3f %%",
              100 * rp.abs_err, 100 * rl.abs_err);
    cr_expect(rp.rms < 3.0, "%.3f dB rms", rp.rms);
}

/* Debye and Lorentz edges (the D-E pass on the H arrays) against lossy edges
 * (the Crank-Nicolson update) of the same eps at f0, painted the same (both
 * staircases): two updates of the same physics, whose own errors (second
 * order in omega dt) are far below the staircase's, so the two echo widths
 * must agree within 0.02 dB (Debye: eps_inf 2, delta_eps 6, omega tau = 1:
 * eps = 5 - 3i) and 0.05 dB (Lorentz: eps_inf 2, delta_eps 3, omega0 =
 * 1.5 omega, gamma = 0.3 omega: eps = 7.106 - 1.225i; ka = 2, 20 cells per
 * wavelength; tests/test_dispersive.c's TM pair).  Measured: Debye 1.016
 * dB rms, lossy 1.023; Lorentz 2.037, lossy 2.018.  A wrong time level of
 * the edges' incident field (n instead of n+1/2) or of the curl would show
 * here as a difference of the two. */
static void pole_vs_lossy(const char *poles, double complex eps, double tol)
{
    char mat[300];
    snprintf(mat, sizeof mat, "[material.m]\n%s", poles);
    const double rp = te_cylinder(mat, 2.0, 20).rms;
    snprintf(mat, sizeof mat, "[material.m]\neps_r = %.17g\nsigma = %.17g\n", creal(eps),
             -cimag(eps) * W0 * MATERIAL_EPS0);
    const double rl = te_cylinder(mat, 2.0, 20).rms;
    cr_expect(fabs(rp - rl) < tol, "poles %.3f dB rms, the lossy edges %.3f", rp, rl);
    cr_expect(rp < 2.5, "%.3f dB rms", rp);
}

Test(te_materials, debye_against_lossy_edges, .timeout = 120)
{
    char poles[200];
    snprintf(poles, sizeof poles, "eps_r = 2\ndebye = 6 %.17g\n", 1.0 / W0);
    pole_vs_lossy(poles, 5 - 3 * I, 0.02);
}

Test(te_materials, lorentz_against_lossy_edges, .timeout = 120)
{
    char poles[200];
    snprintf(poles, sizeof poles, "eps_r = 2\nlorentz = 3 %.17g %.17g\n", 1.5 * W0, 0.3 * W0);
    pole_vs_lossy(poles, 2 + 6.75 / (1.25 + 0.3 * I), 0.05);
}

/* Drude cylinders (eps_inf 1) against the exact TE series of eps(omega) at
 * f0.  A metal cylinder in TE carries surface plasmons; its staircase
 * surface has right-angle corners, where, for -3 < Re eps < -1/3, the
 * quasi-static field is singular with an oscillating exponent, so the
 * absorption at the corners does not settle with the cell size (measured
 * below: the echo width falls, the widths stay within about 10 %).
 *   - near the plasmon: omega_p = 1.6 omega, gamma = 0.1 omega:
 *     eps = -1.535 - 0.254i, ka = 1 (the dipole resonance of the cylinder,
 *     shifted from eps = -1 by its size).  Measured, with te_conductor_edges
 *     (the default): 1.629 / 1.339 / 0.539 dB rms at 20 / 40 / 80 cells per
 *     wavelength, absorbed -4.6 / +5.2 / +8.5 %, scattered +7.8 / -4.9 /
 *     -4.4 %; with the two-cell mean at the metal's surface (te_conductor_edges
 *     = false) 6.34 / 6.38 dB rms, scattered -70 / -54 %: its edges of Re eps
 *     (eps + 1) / 2 near 0 distort the plasmon.
 *   - a metal further from it: omega_p = 2 omega, gamma = 0.2 omega:
 *     eps = -2.846 - 0.769i, ka = 2: measured 0.542 dB rms at 20 cells per
 *     wavelength (the mean: 2.82).
 * Bounds: 2 dB rms at 20 and 40 and widths within 10 % (near the plasmon);
 * 0.8 dB (further). */
Test(te_materials, drude_cylinder_near_plasmon, .timeout = 240)
{
    char mat[200];
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 1\ndrude = %.17g %.17g\n", 1.6 * W0,
             0.1 * W0);
    const struct cyl_result r[2] = {te_cylinder(mat, 1.0, 20), te_cylinder(mat, 1.0, 40)};
    for (int k = 0; k < 2; k++) {
        cr_expect(r[k].rms < 2.0, "%d cells per wavelength: %.3f dB rms", 20 << k, r[k].rms);
        cr_expect(fabs(r[k].abs_err) < 0.1, "absorbed: %+.2f %%", 100 * r[k].abs_err);
        cr_expect(fabs(r[k].sca_err) < 0.1, "scattered: %+.2f %%", 100 * r[k].sca_err);
    }
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 1\ndrude = %.17g %.17g\n", 2 * W0, 0.2 * W0);
    const struct cyl_result m = te_cylinder(mat, 2.0, 20);
    cr_expect(m.rms < 0.8, "eps -2.85: %.3f dB rms", m.rms);
}

/* ---- the plasmon of a gold-like nanowire, from one pulsed run -------------
 * A Drude metal (eps_inf 9.5, omega_p = 1.36e16 rad/s, gamma = 1.05e14
 * rad/s: gold without its interband terms) wire of radius 24 nm in TE.  The
 * quasi-static (ka -> 0) cylinder resonates where eps(omega) = -1 (the
 * dipole surface plasmon of a thin wire), omega_sp ~ omega_p /
 * sqrt(eps_inf + 1) = 4.197e15 rad/s, f_sp = 668 THz, 449 nm.  The grid:
 * f0 = 668 THz at 150 cells per wavelength (dx = 3 nm, a = 8 cells), a
 * modulated Gaussian plane wave (half amplitude at f0 (1 -+ 0.3)), the
 * flux box at 21 frequencies 0.90 .. 1.10 f0: the extinction width (the
 * scattered power minus the total-field flux, both over the incident
 * intensity) per frequency (wire_spectrum). */
static const char *nanowire_scene =
    "[grid]\nnx = 64\nny = 64\nsteps = 30000\ncourant = 0.5\ncells_per_wavelength = 150\n"
    "polarization = te\n"
    "[source]\ntype = plane_wave\nangle = 0\nwaveform = modulated_gaussian\nbandwidth = 0.6\n"
    "frequency_hz = 668e12\n"
    "[boundary]\ntype = cpml\ncells = 12\n"
    "[material.au]\neps_r = 9.5\ndrude = 1.36e16 1.05e14\n"
    "[object.wire]\nshape = circle\nmaterial = au\ncenter_x = 31.5\ncenter_y = 31.5\n"
    "radius = 8\n"
    "[monitor.flux.box]\nx0 = 20\nx1 = 43\ny0 = 20\ny1 = 43\nstart_step = 0\nfrequencies = "
    "0.90, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99, 1.00, 1.01, 1.02, 1.03, 1.04, "
    "1.05, 1.06, 1.07, 1.08, 1.09, 1.10\n"
    "[output]\npng = false\n";

/* The index of the largest of y[0..n-1]. */
static int argmax(const double *y, int n)
{
    int k = 0;
    for (int q = 1; q < n; q++)
        k = y[q] > y[k] ? q : k;
    return k;
}

/* The peak of samples y[0..n-1] at x[k]: the parabola through the largest
 * and its two neighbours. */
static double peak_of(const double *x, const double *y, int n)
{
    const int k = argmax(y, n);
    cr_assert(k > 0 && k < n - 1, "the peak is at the end of the band (%d of %d)", k, n);
    const double d = 0.5 * (y[k - 1] - y[k + 1]) / (y[k - 1] - 2 * y[k] + y[k + 1]);
    return x[k] + d * (x[k + 1] - x[k]);
}

/* Run a TE wire scene (its material 0 on its object 0, a flux box at
 * frequencies x f0) on the cpu engine and compare its extinction spectrum,
 * the width (scattered - total-field flux) / lambda0 per frequency, with the
 * exact TE series of the material's eps(omega) at each frequency (ka =
 * omega a / c): the run's peak (a parabola through the largest sample and
 * its neighbours) against the series' peak over the same band (1000
 * samples): the relative shift, and the peak values' ratio - 1. */
static void wire_spectrum(const char *text, const char *const *sets, int nset, const char *label,
                          double *shift, double *height)
{
    struct test_setup t;
    char err[ERRLEN];
    setup_from_text(&t, text, sets, nset);
    cr_assert(t.model.nhdisp > 0 && t.scene.nflux == 1);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    struct engine *e;
    cr_assert_eq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e, t.scene.steps, err, sizeof err), 0, "%s", err);
    const int nf = t.scene.flux[0].fr.n, nfine = 1000;
    const double f0 = t.scene.frequency_hz, n_lambda = t.scene.cells_per_wavelength;
    const double a_m = t.scene.objects[0].radius * DISPERSION_C0 / f0 / n_lambda;
    double *x = malloc((size_t)(nf + nfine) * 4 * sizeof *x), *run = x + nf, *ex = run + nf;
    double *xf = ex + nf, *yf = xf + nfine;
    struct farexact_cyl2 *c = malloc(sizeof *c);
    for (int k = 0; k < nf + nfine; k++) {
        const double xk = k < nf ? t.scene.flux[0].fr.f[k]
                                 : x[0] + (x[nf - 1] - x[0]) * (k - nf) / (nfine - 1);
        const double w = 2 * M_PI * f0 * xk;
        cr_assert_eq(farexact_cyl2_init(c, FAREXACT_TE, w / DISPERSION_C0 * a_m, 0,
                                        material_eps(&t.scene, w), 1.0, err, sizeof err), 0,
                     "%s", err);
        const double v = farexact_cyl2_extinction_over_lambda(c) / xk;
        if (k >= nf) {
            xf[k - nf] = xk;
            yf[k - nf] = v;
            continue;
        }
        double ps, pt;
        monitors_flux2d(e->mon, 0, k, &ps, &pt);
        x[k] = xk;
        ex[k] = v;
        run[k] = (ps - pt) / n_lambda;
        cr_log_info("%s, f = %.2f f0: extinction %.5f lambda0 (exact %.5f, %+.2f %%)", label,
                    xk, run[k], v, 100 * (run[k] / v - 1));
    }
    free(c);
    const double pr = peak_of(x, run, nf), pe = peak_of(xf, yf, nfine);
    const double hr = run[argmax(run, nf)], he = yf[argmax(yf, nfine)];
    *shift = pr / pe - 1;
    *height = hr / he - 1;
    cr_log_info("%s: peak at %.4f f0, exact %.4f f0 (%+.2f %%); height %.5f lambda0, exact %.5f "
                "(%+.2f %%)", label, pr, pe, 100 * *shift, hr, he, 100 * *height);
    free(x);
    engine_destroy(e);
    setup_free(&t);
}

/* The flux box at 21 frequencies 0.90 .. 1.10 f0, 30000 steps (the
 * plasmon rings down as exp(-gamma t / 2), gamma dt = 5.2e-4: to 4e-4 of
 * its amplitude).  Measured: peak -0.14 %, its height -3 % (the run's
 * samples are 0.01 f0 apart), the wings +11 .. +16 % (the conductor's
 * edges make the wire half a cell larger); with the two-cell mean at the
 * surface (te_conductor_edges = false, run with TEXFDTD_TE_MEAN=1) the peak
 * moves to -2.9 % and the extinction doubles at 0.92 .. 0.96 f0 (the
 * near-zero-eps edges).  Bounds: the peak within 0.5 % and its height
 * within 10 %; the mean's shift beyond 1.5 %. */
Test(te_materials, gold_nanowire_plasmon_spectrum, .timeout = 300)
{
    double shift, height, mshift, mheight;
    const char *cond[1] = {"grid.te_conductor_edges=true"}, *mean[1] = {
        "grid.te_conductor_edges=false"};
    wire_spectrum(nanowire_scene, cond, 1, "gold-like wire", &shift, &height);
    cr_expect(fabs(shift) < 0.005, "peak shift %+.2f %%", 100 * shift);
    cr_expect(fabs(height) < 0.10, "peak height %+.2f %%", 100 * height);
    if (getenv("TEXFDTD_TE_MEAN")) {
        wire_spectrum(nanowire_scene, mean, 1, "gold-like wire, the mean", &mshift, &mheight);
        cr_expect(fabs(mshift) > 0.015, "the mean's peak shift %+.2f %%", 100 * mshift);
    }
}

/* ---- the update's pieces ------------------------------------------------- */

/* A TE scene with a smoothed dielectric rod, a PEC plate and an oblique
 * wave, run as it is and with the lossy edge update forced on (model->hlossy
 * with every hmats[].ca = 1): ca h = h exactly, so the bits are the same, in
 * both denormal modes. */
Test(te_materials, lossy_edge_update_on_lossless_edges_same_bits, .timeout = 60)
{
    static const char *text =
        "[grid]\nnx = 100\nny = 90\nsteps = 220\ncourant = 0.6\ncells_per_wavelength = 17\n"
        "polarization = te\n"
        "[source]\ntype = plane_wave\nangle = 30\n"
        "[boundary]\ntype = cpml\ncells = 10\n"
        "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3.3\ncenter_x = 45.3\n"
        "center_y = 44.2\nradius = 14\n"
        "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 75\ncenter_y = 50\n"
        "width = 5\nheight = 20\n";
    const enum denormals modes[2] = {DENORMALS_FLUSH, DENORMALS_KEEP};
    for (int d = 0; d < 2; d++) {
        struct test_setup t;
        char err[ERRLEN];
        setup_from_text(&t, text, NULL, 0);
        cr_assert(!t.model.hlossy && t.model.nhmats > 2);
        for (int k = 0; k < t.model.nhmats; k++)
            cr_assert_eq(t.model.hmats[k].ca_f, 1.0f);
        struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = modes[d],
                                   .device = -1};
        void *a[3], *b[3];
        cr_assert_eq(run_engine("cpu", &t.model, &o, 220, a, err, sizeof err), 0, "%s", err);
        t.model.hlossy = true;
        cr_assert_eq(run_engine("cpu", &t.model, &o, 220, b, err, sizeof err), 0, "%s", err);
        for (int k = 0; k < 3; k++)
            cr_expect_eq(memcmp(a[k], b[k], t.model.ncells * sizeof(float)), 0,
                         "denormals %s, array %d: the lossy edge update changed bits",
                         denormals_name(modes[d]), k);
        free_fields(a);
        free_fields(b);
        setup_free(&t);
    }
}

/* A TE scene with every kind of edge: a Drude rod (conductor edges), a
 * Debye + Lorentz rod touching a lossy one (mean edges between two
 * materials' poles), a PEC plate; CPML, an oblique wave. */
static const char *mixed_scene =
    "[grid]\nnx = 96\nny = 90\nsteps = 400\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "polarization = te\n"
    "[source]\ntype = plane_wave\nangle = 25\n"
    "[boundary]\ntype = cpml\ncells = 10\n"
    "[material.metal]\neps_r = 1\ndrude = 1.2566370614359172e10 1.2566370614359172e9\n"
    "[material.wet]\neps_r = 3\ndebye = 4 1.5e-10\nlorentz = 2 9e9 1e9\n"
    "[material.lossy]\neps_r = 2\nsigma = 0.05\n"
    "[object.a]\nshape = circle\nmaterial = metal\ncenter_x = 35.3\ncenter_y = 40.2\nradius = 7\n"
    "[object.b]\nshape = rectangle\nmaterial = wet\ncenter_x = 60\ncenter_y = 45\n"
    "width = 10\nheight = 14\n"
    "[object.c]\nshape = rectangle\nmaterial = lossy\ncenter_x = 68\ncenter_y = 45\n"
    "width = 6\nheight = 14\n"
    "[object.d]\nshape = rectangle\nmaterial = pec\ncenter_x = 45\ncenter_y = 70\n"
    "width = 12\nheight = 3\n"
    "[output]\npng = false\n";

/* A checkpoint at step `cut` (written and read back through
 * core/checkpoint.h, the HDF5 file of `texfdtd resume`), then the rest:
 * every array equals an uninterrupted run's, bit for bit. */
static void checkpoint_round_trip(enum precision prec)
{
    struct test_setup t;
    char err[ERRLEN];
    setup_from_text(&t, mixed_scene, NULL, 0);
    const struct model *m = &t.model;
    cr_assert(m->nhdisp > 0 && m->hlossy);
    const int steps = t.scene.steps, cut = 157;
    struct engine_options o = {.precision = prec, .denormals = DENORMALS_FLUSH, .device = -1};
    struct engine *a, *b, *c;
    cr_assert_eq(engine_create("cpu", m, &o, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(a, cut, err, sizeof err), 0, "%s", err);
    char *dir = temp_dir_tagged("te_ckpt");
    struct checkpoint ck = {.step = cut, .precision = prec, .denormals = DENORMALS_FLUSH,
                            .scene_path = t.path, .scene_file = (char *)mixed_scene, .sets = "",
                            .nx = m->nx, .ny = m->ny, .nz = m->nz};
    snprintf(ck.engine, sizeof ck.engine, "cpu");
    cr_assert_eq(checkpoint_write(dir, &ck, a, err, sizeof err), 0, "%s", err);
    engine_destroy(a);
    cr_assert_eq(engine_create("cpu", m, &o, &b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(checkpoint_restore(dir, b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(b->step, cut);
    cr_assert_eq(engine_step(b, steps - cut, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_create("cpu", m, &o, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(c, steps, err, sizeof err), 0, "%s", err);
    const size_t bytes = m->ncells * precision_size(prec);
    void *fb = malloc(bytes), *fc = malloc(bytes);
    const enum field ids[3] = {FIELD_EZ, FIELD_HX, FIELD_HY};
    for (int q = 0; q < 3; q++) {
        cr_assert_eq(engine_read(b, ids[q], fb, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_read(c, ids[q], fc, err, sizeof err), 0, "%s", err);
        cr_expect_eq(memcmp(fb, fc, bytes), 0, "%s: array %d differs after the resume",
                     precision_name(prec), q);
    }
    /* and the dispersive edges carry a field (the state mattered) */
    double peak = 0;
    for (size_t k = 0; k < m->nhdisp; k++) {
        const size_t id = m->hdisp[k], cell = id % m->ncells;
        cr_assert_eq(engine_read(c, id < m->ncells ? FIELD_HX : FIELD_HY, fc, err, sizeof err),
                     0, "%s", err);
        peak = fmax(peak, prec == PRECISION_SINGLE ? fabs(((float *)fc)[cell])
                                                   : fabs(((double *)fc)[cell]));
    }
    cr_expect_gt(peak, 1e-3, "the dispersive edges hold %g", peak);
    free(fb);
    free(fc);
    engine_destroy(b);
    engine_destroy(c);
    remove_tree(dir);
    free(dir);
    setup_free(&t);
}

Test(te_materials, checkpoint_round_trip_single, .timeout = 60)
{
    checkpoint_round_trip(PRECISION_SINGLE);
}

Test(te_materials, checkpoint_round_trip_double, .timeout = 60)
{
    checkpoint_round_trip(PRECISION_DOUBLE);
}

/* The edge material of a node (core/model.h hmats). */
static const struct hmaterial *edge_at(const struct model *m, int comp, int i, int j)
{
    return &m->hmats[m->hmat[(size_t)comp * m->ncells + (size_t)i + (size_t)m->nx * (size_t)j]];
}

/* The edge materials, by hand: a Drude rectangle (cells 30 .. 39 in x) and a
 * Debye one (eps_inf 3, with a lossy neighbour) in a TE scene.  Hy(i+1/2, j)
 * joins cells i and i+1.
 *   te_conductor_edges = false: the Drude surface edge Hy(29+1/2) has eps_inf
 *   (1 + 1)/2 and omega_p^2 / 2; inside, the material itself; the Debye
 *   rectangle's edge to the lossy one: eps_inf (3 + 2)/2, sigma 0.05 / 2,
 *   delta_eps / 2.
 *   te_conductor_edges = true (default): the Drude surface edge is the Drude
 *   material; the Debye edge unchanged (not a conductor).
 * And a lossy edge: ca, ch and the slot coefficients are material_coef's of
 * the mean eps_r and sigma. */
Test(te_materials, edge_materials)
{
    static const char *text =
        "[grid]\nnx = 100\nny = 60\nsteps = 10\npolarization = te\nsubpixel = false\n"
        "[boundary]\ntype = cpml\ncells = 8\n"
        "[material.metal]\neps_r = 1\ndrude = 2e10 3e9\n"
        "[material.wet]\neps_r = 3\ndebye = 4 1.5e-10\n"
        "[material.lossy]\neps_r = 2\nsigma = 0.05\n"
        "[object.a]\nshape = rectangle\nmaterial = metal\ncenter_x = 34.5\ncenter_y = 30\n"
        "width = 9.5\nheight = 10\n"
        "[object.b]\nshape = rectangle\nmaterial = wet\ncenter_x = 60.5\ncenter_y = 30\n"
        "width = 9.5\nheight = 10\n"
        "[object.c]\nshape = rectangle\nmaterial = lossy\ncenter_x = 70.5\ncenter_y = 30\n"
        "width = 9.5\nheight = 10\n";
    for (int cond = 0; cond < 2; cond++) {
        const char *sets[1] = {cond ? "grid.te_conductor_edges=true"
                                    : "grid.te_conductor_edges=false"};
        struct test_setup t;
        setup_from_text(&t, text, sets, 1);
        const struct model *m = &t.model;
        cr_assert(m->lossy && m->dispersive && m->hlossy && m->ndisp == 0 && m->nhdisp > 0);
        /* the metal: cells 30 .. 39 */
        const struct hmaterial *in = edge_at(m, 1, 34, 30), *rim = edge_at(m, 1, 29, 30);
        cr_assert(in->dmat && rim->dmat && !edge_at(m, 1, 28, 30)->dmat);
        cr_expect_eq(in->dmat->eps_inf, 1.0);
        cr_expect_eq(in->dmat->npoles, 1);
        cr_expect_eq(in->dmat->poles[0].b, 2e10);
        cr_expect_eq(in->dmat->poles[0].c, 3e9);
        cr_expect_eq(in->ch, 0.0);
        cr_expect_eq(rim->dmat->npoles, 1);
        cr_expect_eq(rim->dmat->poles[0].kind, POLE_DRUDE);
        cr_expect_eq(rim->dmat->poles[0].c, 3e9);
        if (cond) {
            cr_expect_eq(rim, in, "the conductor's surface edge is the conductor");
        } else {
            cr_expect_eq(rim->dmat->eps_inf, 1.0);
            cr_expect(fabs(rim->dmat->poles[0].b * rim->dmat->poles[0].b / (2e10 * 2e10) - 0.5)
                          < 1e-15, "omega_p^2 / 2: %.17g", rim->dmat->poles[0].b);
        }
        /* the Debye rectangle (cells 56 .. 65) beside the lossy one (66 .. 75) */
        const struct hmaterial *dl = edge_at(m, 1, 65, 30), *dv = edge_at(m, 1, 55, 30);
        cr_assert(dl->dmat && dv->dmat);
        cr_expect_eq(dl->dmat->eps_inf, 2.5);
        cr_expect_eq(dl->dmat->sigma, 0.025);
        cr_expect_eq(dl->dmat->npoles, 1);
        cr_expect_eq(dl->dmat->poles[0].a, 2.0);
        cr_expect_eq(dl->dmat->poles[0].b, 1.5e-10);
        cr_expect_eq(dv->dmat->eps_inf, 2.0);
        cr_expect_eq(dv->dmat->sigma, 0.0);
        /* a lossy edge between the lossy rectangle and vacuum */
        const struct hmaterial *lv = edge_at(m, 1, 75, 30);
        cr_assert(!lv->dmat && lv->sigma == 0.025 && lv->bar == 1.5);
        struct scene_material sm = {.eps_inf = 1.5, .mu_r = 1, .sigma = 0.025};
        struct material_coef mc;
        char err[ERRLEN];
        cr_assert_eq(material_coef(&sm, scene_dt(&t.scene), t.scene.courant, &mc, err,
                                   sizeof err), 0, "%s", err);
        cr_expect(lv->ca == mc.ca && lv->ch == mc.cb && lv->cinc_diff == mc.cinc_diff
                  && lv->cinc_sum == mc.cinc_sum && lv->ca < 1.0);
        setup_free(&t);
    }
}

/* Two materials of five different Debye poles each, side by side: their
 * common edges would need ten poles, more than SCENE_MAX_POLES = 8: refused
 * with both names (the mean rule; with the conductor rule too, neither has
 * a Drude pole). */
Test(te_materials, edge_pole_limit_refused)
{
    static const char *text =
        "[grid]\nnx = 80\nny = 60\nsteps = 10\npolarization = te\n"
        "[material.p]\neps_r = 2\ndebye = 1 1e-10, 1 2e-10, 1 3e-10, 1 4e-10, 1 5e-10\n"
        "[material.q]\neps_r = 2\ndebye = 1 1e-11, 1 2e-11, 1 3e-11, 1 4e-11, 1 5e-11\n"
        "[object.a]\nshape = rectangle\nmaterial = p\ncenter_x = 30\ncenter_y = 30\n"
        "width = 10\nheight = 10\n"
        "[object.b]\nshape = rectangle\nmaterial = q\ncenter_x = 40\ncenter_y = 30\n"
        "width = 10\nheight = 10\n";
    struct scene s;
    char err[ERRLEN];
    cr_assert_eq(scene_load_text(&s, "x.ini", text, strlen(text), NULL, 0, err, sizeof err), 0,
                 "%s", err);
    struct model m;
    cr_assert_eq(model_build(&m, &s, err, sizeof err), -1, "built");
    cr_expect(strstr(err, "material p and q needs more than 8 poles"), "%s", err);
    scene_free(&s);
}

/* The stability check runs per material as in TM (the dual update has the
 * same amplification matrix): a Drude metal past its limit is refused with
 * the same message in TE as in TM, and in range it builds in both. */
Test(te_materials, stability_checked_as_in_tm)
{
    static const char *text =
        "[grid]\nnx = 60\nny = 60\nsteps = 10\ncourant = 0.5\n"
        "[material.metal]\neps_r = 1\ndrude = %s 1e9\n"
        "[object.a]\nshape = circle\nmaterial = metal\ncenter_x = 30\ncenter_y = 30\nradius = 6\n";
    /* 4 dim S^2 + (omega_p dt)^2 <= 4 eps_inf: omega_p dt <= sqrt(2) at S = 0.5 */
    const double dt = 0.5 * (299792458.0 / 1e9 / 20) / 299792458.0;
    for (int ok = 0; ok < 2; ok++) {
        char wp[64], t[1024];
        snprintf(wp, sizeof wp, "%.17g", (ok ? 1.3 : 1.5) / dt);
        snprintf(t, sizeof t, text, wp);
        char msg[2][ERRLEN];
        for (int te = 0; te < 2; te++) {
            const char *sets[1] = {te ? "grid.polarization=te" : "grid.polarization=tm"};
            struct scene s;
            char err[ERRLEN];
            cr_assert_eq(scene_load_text(&s, "x.ini", t, strlen(t), sets, 1, err, sizeof err), 0,
                         "%s", err);
            struct model m;
            const int rc = model_build(&m, &s, err, sizeof err);
            cr_expect_eq(rc, ok ? 0 : -1, "%s, omega_p dt %s: %s", sets[0], ok ? "1.3" : "1.5",
                         err);
            if (!rc)
                model_free(&m);
            snprintf(msg[te], ERRLEN, "%s", rc ? err : "");
            scene_free(&s);
        }
        if (!ok) {
            cr_expect(strstr(msg[1], "unstable"), "%s", msg[1]);
            cr_expect_str_eq(msg[0], msg[1]);
        }
    }
}

/* Every 2D engine without ENGINE_CAP_TE_LOSSY / ENGINE_CAP_TE_DISPERSIVE
 * refuses TE with sigma and TE with poles: through the API (an engine that
 * takes TE and sigma, or TE and poles, still names the pair in TE), and
 * through the command with exit status 2.  Today every 2D engine of the
 * build takes both (cpu; gl and gl-compute: tests/test_gl_te.c; cuda:
 * tests/test_cuda.c), so the refusals are checked for whatever engine still
 * lacks them; what every engine still refuses, model_build refuses: a lossy
 * or dispersive material beside the TE conformal boundary. */
Test(te_materials, other_engines_refuse)
{
    const char *cases[2][2] = {{"material.m.sigma=0.05", "a lossy material (sigma != 0) in TE"},
                               {"material.m.debye=2 1e-10",
                                "a dispersive material (Debye, Lorentz, Drude poles) in TE"}};
    const unsigned caps[2] = {ENGINE_CAP_LOSSY, ENGINE_CAP_DISPERSIVE};
    const unsigned te_caps[2] = {ENGINE_CAP_TE_LOSSY, ENGINE_CAP_TE_DISPERSIVE};
    const struct engine_ops *cpu = engine_find("cpu", 2), *cuda = engine_find("cuda", 2);
    cr_assert(cpu && cpu->caps & ENGINE_CAP_TE_LOSSY && cpu->caps & ENGINE_CAP_TE_DISPERSIVE);
    cr_expect(!cuda || (cuda->caps & ENGINE_CAP_TE_LOSSY && cuda->caps & ENGINE_CAP_TE_DISPERSIVE));
    const char *gls[2] = {"gl", "gl-compute"};
    for (int q = 0; q < 2; q++) {
        const struct engine_ops *g = engine_find(gls[q], 2);
        cr_expect(!g || (g->caps & ENGINE_CAP_TE_LOSSY && g->caps & ENGINE_CAP_TE_DISPERSIVE),
                  "%s", gls[q]);
    }
    for (int k = 0; k < 2; k++) {
        char text[4096];
        snprintf(text, sizeof text, cyl_scene, "[material.m]\neps_r = 2\n");
        const char *sets[1] = {cases[k][0]};
        struct test_setup t;
        char err[ERRLEN];
        setup_from_text(&t, text, sets, 1);
        struct engine_options o = {.precision = PRECISION_SINGLE,
                                   .denormals = DENORMALS_FLUSH, .device = -1};
        const char *refusing = NULL;
        for (const struct engine_ops *const *p = engine_list(); *p; p++) {
            if ((*p)->caps & (ENGINE_CAP_3D | te_caps[k]))
                continue;
            struct engine *e;
            cr_expect_neq(engine_create((*p)->name, &t.model, &o, &e, err, sizeof err), 0,
                          "%s ran it", (*p)->name);
            const bool has = ((*p)->caps & ENGINE_CAP_TE) && ((*p)->caps & caps[k]);
            cr_expect(strstr(err, has ? cases[k][1] : "does not support"), "%s: %s",
                      (*p)->name, err);
            refusing = (*p)->name;
        }
        setup_free(&t);
        /* what no engine runs yet: the material beside the TE conformal
         * boundary (core/model.c), with the key and the way out named */
        const char *conf[2] = {cases[k][0], "grid.conformal_pec=true"};
        struct scene sc;
        struct model m;
        cr_assert_eq(scene_load_text(&sc, "x.ini", text, strlen(text), conf, 2, err, sizeof err),
                     0, "%s", err);
        cr_expect_eq(model_build(&m, &sc, err, sizeof err), -1, "case %d built", k);
        cr_expect(strstr(err, "conformal_pec = true in TE") && strstr(err, "conformal_pec = false"),
                  "%s", err);
        scene_free(&sc);
        if (!refusing)
            continue;
        char *scene = write_temp_scene(text), out[4096];
        char *dir = temp_dir_tagged("te_mat");
        cr_expect_eq(run_cmd(out, sizeof out, "%s run %s --set '%s' --engine %s --out %s",
                             texfdtd_bin(), scene, cases[k][0], refusing, dir), 2, "%s", out);
        cr_expect(strstr(out, "does not support"), "%s", out);
        remove_tree(dir);
        free(dir);
        unlink(scene);
        free(scene);
    }
}

/* scenes/silver_nanowire_te.ini as shipped: the silver preset (Rakic
 * Lorentz-Drude, 6 poles) wire of radius 20 nm; its extinction spectrum (the
 * flux box at 21 frequencies) against the exact TE series with the preset's
 * eps(omega) at each frequency (ka = omega a / c): the peak within 1 % of
 * the series' and its height within 10 % (the numbers the scene's comment
 * and docs/accuracy.md quote are logged). */
Test(te_materials, silver_nanowire_scene, .timeout = 300)
{
    FILE *fp = fopen("scenes/silver_nanowire_te.ini", "r");
    cr_assert(fp, "run from the source tree");
    char text[8192];
    const size_t len = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[len] = 0;
    double shift, height;
    wire_spectrum(text, NULL, 0, "silver wire", &shift, &height);
    cr_expect(fabs(shift) < 0.01, "peak shift %+.2f %%", 100 * shift);
    cr_expect(fabs(height) < 0.10, "peak height %+.2f %%", 100 * height);
}
