/* test_dispersive.c - dispersive media (Debye, Lorentz, Drude poles; the D-E
 * auxiliary-differential-equation update of docs/materials-design.md
 * section 3) on the cpu engine, 2D TMz:
 *   - a Drude cylinder (Re eps < 0 at the source frequency), a Debye and a
 *     Lorentz cylinder: the echo width against the exact series
 *     (compare/farexact.h farexact_cyl2) with eps = dispersion_eps
 *     (compare/dispersion.h) at the source frequency, falling from 20 to 40
 *     cells per wavelength (Drude, Debye), and against the lossy staircase of
 *     the same eps at f0 (Debye, Lorentz);
 *   - a Debye pole of negligible strength gives the plain dielectric eps_inf
 *     (other arithmetic: within float rounding, not bits);
 *   - the refusals: poles in 3D and on an engine without them (none today; TE and mu_r:
 *     tests/test_scene.c). */
#include "helpers.h"

#include <complex.h>

#include "compare/dispersion.h"
#include "compare/farexact.h"
#include "core/material.h"
#include "core/monitor.h"

/* A cylinder of material m at the grid's centre, CPML, sine plane wave,
 * far-field monitor; [source] frequency_hz 1 GHz (the default).  A staircase
 * (dispersive objects are never smoothed; subpixel = false makes a
 * non-dispersive one a staircase too, for the comparison below). */
static const char *cyl_scene =
    "[grid]\nsubpixel = false\nnx = 90\nny = 90\nsteps = 1800\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "[source]\ntype = plane_wave\nangle = 0\nramp_periods = 2\n"
    "[boundary]\ntype = cpml\ncells = 12\n"
    "%s"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 44.5\ncenter_y = 44.5\n"
    "radius = 9.5493\n"
    "[monitor.far]\nangles = 360\nstart_step = 1200\n"
    "[output]\npng = false\n";

/* The exact eps of table material 0 of scene s at its source frequency. */
static double complex exact_eps(const struct scene *s)
{
    const struct scene_material *t = &s->materials[0];
    struct dispersion_pole p[SCENE_MAX_POLES];
    for (int q = 0; q < t->npoles; q++) {
        const struct scene_pole *sp = &t->poles[q];
        p[q] = (struct dispersion_pole){0};
        if (sp->kind == POLE_DEBYE)
            p[q] = (struct dispersion_pole){.kind = DISPERSION_DEBYE, .delta_eps = sp->a,
                                            .tau = sp->b};
        else if (sp->kind == POLE_LORENTZ)
            p[q] = (struct dispersion_pole){.kind = DISPERSION_LORENTZ, .delta_eps = sp->a,
                                            .omega0 = sp->b, .gamma = sp->c};
        else
            p[q] = (struct dispersion_pole){.kind = DISPERSION_DRUDE, .omega_p = sp->b,
                                            .gamma = sp->c};
    }
    const struct dispersion_material dm = {.eps_inf = t->eps_inf, .sigma = t->sigma,
                                           .npoles = t->npoles, .poles = p};
    return dispersion_eps(&dm, 2 * M_PI * s->frequency_hz);
}

/* Run the cylinder of material text mat, size parameter ka, at n cells per
 * wavelength on the cpu engine in float: the rms dB error of sigma_2D /
 * lambda over 360 angles against the exact series. */
static double cylinder_rms(const char *mat, double ka, int n)
{
    const double a = ka * n / (2 * M_PI), half = n == 20 ? 45 : 65, c0 = half - 0.5;
    const int steps = 90 * n, start = 60 * n;
    char text[2048], sets[7][80];
    snprintf(text, sizeof text, cyl_scene, mat);
    snprintf(sets[0], 80, "grid.cells_per_wavelength=%d", n);
    snprintf(sets[1], 80, "object.cyl.radius=%.17g", a);
    snprintf(sets[2], 80, "grid.nx=%d", (int)(2 * half));
    snprintf(sets[3], 80, "grid.ny=%d", (int)(2 * half));
    snprintf(sets[4], 80, "grid.steps=%d", steps);
    snprintf(sets[5], 80, "monitor.far.start_step=%d", start);
    snprintf(sets[6], 80, "object.cyl.center_x=%g", c0);
    const char *all[8];
    for (int k = 0; k < 7; k++)
        all[k] = sets[k];
    char cy[80];
    snprintf(cy, sizeof cy, "object.cyl.center_y=%g", c0);
    all[7] = cy;
    struct test_setup t;
    char err[ERRLEN];
    setup_from_text(&t, text, all, 8);
    cr_assert_eq(t.model.dispersive, t.scene.materials[0].npoles > 0);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    struct engine *e;
    cr_assert_eq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e, steps, err, sizeof err), 0, "%s", err);
    const double complex eps = exact_eps(&t.scene);
    struct farexact_cyl2 c;
    cr_assert_eq(farexact_cyl2_init(&c, FAREXACT_TM, ka, 0, eps, 1.0, err, sizeof err), 0, "%s",
                 err);
    double sig[360], s2 = 0;
    cr_assert_eq(monitors_far2d(e->mon, 360, sig, err, sizeof err), 0, "%s", err);
    for (int q = 0; q < 360; q++) {
        const double d = 10 * log10(sig[q] / farexact_cyl2_sigma_over_lambda(&c, 2 * M_PI * q / 360));
        s2 += d * d;
    }
    const double rms = sqrt(s2 / 360);
    cr_log_info("%s cylinder eps %.4f %+.4fi, ka %g, %d cells per wavelength: echo width %.3f dB "
                "rms (backscatter exact %.4f, run %.4f)",
                !t.scene.materials[0].npoles ? "Lossy"
                : t.scene.materials[0].poles[0].kind == POLE_DRUDE  ? "Drude"
                : t.scene.materials[0].poles[0].kind == POLE_DEBYE  ? "Debye"
                                                                    : "Lorentz", creal(eps),
                cimag(eps), ka, n, rms, farexact_cyl2_sigma_over_lambda(&c, M_PI), sig[180]);
    engine_destroy(e);
    setup_free(&t);
    return rms;
}

/* Drude: omega_p = 2 omega, gamma = 0.2 omega at 1 GHz, eps_inf 1:
 * eps = 1 - 4 / (1 - 0.2 i) = -2.846 - 0.769i, ka = 2 (a = 6.4 / 12.7
 * cells).  A metal-like cylinder (the field inside decays over ~2 cells at
 * 20 cells per wavelength).  Measured 0.224 / 0.103 dB rms at 20 / 40 cells
 * per wavelength: first order, the staircase's (the Debye test below shows
 * that the staircase, not the poles, makes the error); bounds ~30 % above. */
#define W0 (2 * M_PI * 1e9)
Test(dispersive, drude_cylinder_against_exact_series, .timeout = 120)
{
    char mat[200];
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 1\ndrude = %.17g %.17g\n", 2 * W0, 0.2 * W0);
    const double r20 = cylinder_rms(mat, 2.0, 20), r40 = cylinder_rms(mat, 2.0, 40);
    cr_expect(r20 < 0.3, "20 cells per wavelength: %.3f dB rms", r20);
    cr_expect(r40 < 0.14, "40 cells per wavelength: %.3f dB rms", r40);
    cr_expect(r20 / r40 > 1.7, "the error falls (first order): %.3f then %.3f", r20, r40);
}

/* Debye: eps_inf 2, delta_eps 6, omega tau = 1: eps = 2 + 6 / (1 + i) = 5 - 3i,
 * ka = 2.  Measured 0.448 / 0.202 dB rms at 20 / 40 cells per wavelength
 * (first order: the staircase); the non-dispersive lossy cylinder of the
 * same eps at f0 (eps_r 5, sigma = 3 omega eps0, the Crank-Nicolson update
 * of the lossy path), painted the same, gives 0.447 / 0.202: the D-E update
 * adds nothing visible at 20 cells per wavelength (its own error is second
 * order in omega dt), so the two must agree within 0.02 dB. */
Test(dispersive, debye_cylinder_against_exact_series, .timeout = 120)
{
    char mat[200];
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 2\ndebye = 6 %.17g\n", 1.0 / W0);
    const double r20 = cylinder_rms(mat, 2.0, 20), r40 = cylinder_rms(mat, 2.0, 40);
    cr_expect(r20 < 0.55, "20 cells per wavelength: %.3f dB rms", r20);
    cr_expect(r40 < 0.25, "40 cells per wavelength: %.3f dB rms", r40);
    cr_expect(r20 / r40 > 1.8, "the error falls (first order): %.3f then %.3f", r20, r40);
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 5\nsigma = %.17g\n", 3 * W0 * MATERIAL_EPS0);
    const double l20 = cylinder_rms(mat, 2.0, 20);
    cr_expect(fabs(r20 - l20) < 0.02, "Debye %.3f dB rms, the lossy staircase %.3f", r20, l20);
}

/* Lorentz: eps_inf 2, delta_eps 3, omega0 = 1.5 omega, gamma = 0.3 omega:
 * eps = 2 + 6.75 / (1.25 + 0.3i) = 7.106 - 1.225i, ka = 2, 20 cells per
 * wavelength, against the exact series and against the lossy staircase of
 * the same eps at f0 (as the Debye test; the Lorentz pole's second-order
 * ADE error is small beside the staircase's).  Measured 0.730 dB rms, the
 * lossy staircase 0.744. */
Test(dispersive, lorentz_cylinder_against_exact_series_and_lossy_staircase, .timeout = 120)
{
    char mat[200];
    snprintf(mat, sizeof mat, "[material.m]\neps_r = 2\nlorentz = 3 %.17g %.17g\n", 1.5 * W0,
             0.3 * W0);
    const double r20 = cylinder_rms(mat, 2.0, 20);
    const double complex eps = 2 + 6.75 / (1.25 + 0.3 * I);
    snprintf(mat, sizeof mat, "[material.m]\neps_r = %.17g\nsigma = %.17g\n", creal(eps),
             -cimag(eps) * W0 * MATERIAL_EPS0);
    const double l20 = cylinder_rms(mat, 2.0, 20);
    cr_expect(r20 < 1.0, "20 cells per wavelength: %.3f dB rms", r20);
    cr_expect(fabs(r20 - l20) < 0.05, "Lorentz %.3f dB rms, the lossy staircase %.3f", r20, l20);
}

/* The same scene with a plain dielectric eps_r = 2.5 and with a material of
 * eps_inf 2.5 and one Debye pole of delta_eps 1e-12 (b ~ 1e-14: rdenom
 * rounds to 1 / 2.5, the pole adds nothing a float can hold): the D-E
 * update must give the dielectric's fields within float rounding.  The
 * arithmetic differs (total fields, D_s, the incident field taken in the
 * cell's update, not in a slot), so not the bits: the difference is a few
 * float ulps of the field per step, accumulated; 1e-5 of the peak. */
Test(dispersive, negligible_debye_pole_is_the_plain_dielectric, .timeout = 60)
{
    static const char *fmt =
        "[grid]\nnx = 100\nny = 90\nsteps = 300\ncourant = 0.6\ncells_per_wavelength = 17\n"
        "subpixel = false\n"
        "[source]\ntype = plane_wave\nangle = 30\n"
        "[boundary]\ntype = cpml\ncells = 10\n"
        "%s"
        "[object.rod]\nshape = circle\nmaterial = %s\ncenter_x = 45.3\ncenter_y = 44.2\n"
        "radius = 14\n"
        "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 75\ncenter_y = 50\n"
        "width = 5\nheight = 20\n";
    char ta[1024], tb[1024];
    snprintf(ta, sizeof ta, fmt, "[material.m]\neps_r = 2.5\n", "m");
    snprintf(tb, sizeof tb, fmt, "[material.m]\neps_r = 2.5\ndebye = 1e-12 1e-10\n", "m");
    struct test_setup a, b;
    setup_from_text(&a, ta, NULL, 0);
    setup_from_text(&b, tb, NULL, 0);
    cr_assert(!a.model.dispersive && b.model.dispersive && b.model.ndisp > 0
              && b.model.ndisp + b.model.nslots == a.model.nslots);
    char err[ERRLEN];
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    void *fa[3], *fb[3];
    cr_assert_eq(run_engine("cpu", &a.model, &o, 300, fa, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run_engine("cpu", &b.model, &o, 300, fb, err, sizeof err), 0, "%s", err);
    for (int k = 0; k < 3; k++) {
        const float *x = fa[k], *y = fb[k];
        double peak = 0, diff = 0;
        for (size_t c = 0; c < a.model.ncells; c++) {
            peak = fmax(peak, fabs(x[c]));
            diff = fmax(diff, fabs((double)x[c] - y[c]));
        }
        cr_log_info("%s: peak %.4g, largest difference %.3g (%.3g of the peak)",
                    field_name((enum field)k), peak, diff, diff / peak);
        cr_expect(peak > 0.5 && diff < 1e-5 * peak, "%s: difference %g of peak %g",
                  field_name((enum field)k), diff, peak);
    }
    free_fields(fa);
    free_fields(fb);
    setup_free(&a);
    setup_free(&b);
}

/* What is not written yet is refused with the key's file:line or the engine's
 * name: poles in 3D, an engine without ENGINE_CAP_DISPERSIVE (none today: every 2D engine
 * runs them, tests/test_gl.c, tests/test_cuda.c); TE and mu_r in
 * tests/test_scene.c. */
Test(dispersive, refusals)
{
    char err[ERRLEN], path3[] = "/tmp/texfdtd_disp3dXXXXXX";
    struct scene s;
    struct model m;
    static const char *d3 = "[grid]\nnx = 30\nny = 30\nnz = 30\nsteps = 10\n"
                            "[material.w]\npreset = water\n"
                            "[object.b]\nshape = box\nmaterial = w\ncenter_x = 15\ncenter_y = 15\n"
                            "center_z = 15\nwidth = 4\nheight = 4\ndepth = 4\n";
    int fd = mkstemp(path3);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, d3, strlen(d3)), (ssize_t)strlen(d3));
    close(fd);
    cr_assert_eq(scene_load(&s, path3, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(model_build(&m, &s, err, sizeof err), -1);
    cr_expect(strstr(err, ": material w: dispersion poles (Debye, Lorentz, Drude) are not "
                          "supported in 3D yet"), "%s", err);
    scene_free(&s);
    unlink(path3);

    struct test_setup t;
    static const char *ok = "[grid]\nnx = 60\nny = 60\nsteps = 10\n"
                            "[boundary]\ntype = cpml\ncells = 10\n"
                            "[material.w]\npreset = water\n"
                            "[object.b]\nshape = rectangle\nmaterial = w\ncenter_x = 30\n"
                            "center_y = 30\nwidth = 6\nheight = 6\n";
    setup_from_text(&t, ok, NULL, 0);
    cr_assert(t.model.dispersive && t.model.ndisp == 49, "%zu cells", t.model.ndisp);
    struct engine_options o = {.precision = PRECISION_SINGLE, .device = -1};
    cr_expect_neq(engine_find("cpu", 2)->caps & ENGINE_CAP_DISPERSIVE, 0);
    int refusing = 0;
    for (const struct engine_ops *const *p = engine_list(); *p; p++) {
        if ((*p)->caps & (ENGINE_CAP_3D | ENGINE_CAP_DISPERSIVE))
            continue;
        struct engine *e = NULL;
        char want[160];
        snprintf(want, sizeof want, "engine %s does not support a dispersive material (Debye, "
                 "Lorentz, Drude poles); use --engine cpu", (*p)->name);
        cr_assert_eq(engine_create((*p)->name, &t.model, &o, &e, err, sizeof err), -1);
        cr_expect(strstr(err, want), "%s", err);
        refusing++;
    }
    if (!refusing)
        cr_log_info("every 2D engine of this build runs dispersive materials");
    setup_free(&t);
}
