/* test_subpixel.c - subpixel smoothing of dielectric interfaces (core/paint.c)
 * against independent expectations: the exact cover fraction of a cell
 * against areas worked out by hand and against pi r^2 summed over the grid,
 * and the near field of the dielectric cylinder of issue 13 (eps_r = 4,
 * ka = 3) against the exact series (compare/farexact.h): second-order
 * convergence, and smaller errors than the staircase at the same cell size. */
#include "helpers.h"

#include <complex.h>

#include "compare/analytic.h"
#include "compare/farexact.h"
#include "core/material.h"
#include "core/paint.h"

/* A quarter disc of radius 1 about a cell's corner fills pi/4 of it; half a
 * disc through the middle of a row of cells, 1/2 of a cell on the axis. */
Test(subpixel, cover_fraction_by_hand)
{
    struct scene_object o = {.shape = SHAPE_CIRCLE, .radius = 1.0, .center_x = 3.5,
                             .center_y = 7.5};
    cr_assert_float_eq(paint_cover_fraction(&o, 3, 7), M_PI / 4, 1e-14);
    cr_assert_float_eq(paint_cover_fraction(&o, 4, 8), M_PI / 4, 1e-14);
    cr_assert_float_eq(paint_cover_fraction(&o, 2, 7), 0.0, 1e-14);
    /* a large circle whose edge crosses y = 0 at x = 10, the middle of cell
     * (10, 0): inside it x <= 10 - (r - sqrt(r^2 - y^2)) = 10 - y^2 / (2 r)
     * - O(y^4 / r^3), so the cell holds 1/2 - int y^2 / (2 r) dy over
     * |y| <= 1/2 = 1/2 - 1 / (24 r), to 1 / (640 r^3); large radii test the
     * closed form's cancellation */
    double r = 1000.0;
    struct scene_object big = {.shape = SHAPE_CIRCLE, .radius = r, .center_x = 10.0 - r};
    cr_assert_float_eq(paint_cover_fraction(&big, 10, 0), 0.5 - 1.0 / (24.0 * r), 1e-10);
    big.radius = r = 1e4;
    big.center_x = 10.0 - r;
    cr_assert_float_eq(paint_cover_fraction(&big, 10, 0), 0.5 - 1.0 / (24.0 * r), 1e-10);
    /* a round ellipse is the circle, an axis-aligned one the circle scaled */
    struct scene_object e = {.shape = SHAPE_ELLIPSE, .radius_x = 1.0, .radius_y = 1.0,
                             .center_x = 3.5, .center_y = 7.5};
    cr_assert_float_eq(paint_cover_fraction(&e, 3, 7), M_PI / 4, 1e-14);
    e.radius_y = 0.5; /* a quarter ellipse of area pi/8 */
    cr_assert_float_eq(paint_cover_fraction(&e, 3, 7), M_PI / 8, 1e-14);
}

/* The fractions of every cell add up to the shape's area, pi r^2 and pi a b,
 * for centres off the grid (the sampled 16 x 16 estimate misses by about
 * the number of cut cells / 256). */
Test(subpixel, cover_fractions_add_up_to_the_area)
{
    const struct scene_object shapes[] = {
        {.shape = SHAPE_CIRCLE, .radius = 7.3, .center_x = 20.13, .center_y = 19.71},
        {.shape = SHAPE_CIRCLE, .radius = 0.8, .center_x = 20.5, .center_y = 20.0},
        {.shape = SHAPE_ELLIPSE, .radius_x = 9.1, .radius_y = 4.35, .center_x = 20.4,
         .center_y = 20.9},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        const struct scene_object *o = &shapes[k];
        const double area = o->shape == SHAPE_CIRCLE ? M_PI * o->radius * o->radius
                                                     : M_PI * o->radius_x * o->radius_y;
        double sum = 0;
        for (int j = 0; j < 41; j++)
            for (int i = 0; i < 41; i++) {
                const double f = paint_cover_fraction(o, i, j);
                cr_assert(f >= 0 && f <= 1, "shape %zu cell (%d, %d): %g", k, i, j, f);
                sum += f;
            }
        cr_assert_float_eq(sum, area, 1e-10 * area, "shape %zu: %.15g against %.15g", k, sum,
                           area);
    }
}

/* The dielectric cylinder, eps_r = 4, ka = 3, at cpw cells per wavelength
 * (the geometry of bench/dielectric_near.c and docs/accuracy.md section 6:
 * 2.5 radii plus a quarter wavelength inside a 12-cell CPML, the centre on a
 * cell corner, 60 periods with the DFT over the last 20): the relative
 * complex L2 error of the scattered DFT phasor on the annulus 1.2 .. 2.5
 * radii against the exact series. */
static double cylinder_error(double cpw, bool subpixel, bool match)
{
    char text[2048], err[ERRLEN];
    const double a = 3.0 * cpw / (2 * M_PI);
    const int n = 2 * ((int)ceil(2.5 * a) + (int)ceil(0.25 * cpw) + 2 + 12) + 1;
    const double c = 0.5 * (n - 1) + 0.5;
    const int period = (int)lround(cpw / 0.5);
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nsteps = %d\ncells_per_wavelength = %g\nsubpixel = %s\n"
             "dispersion_correction = %s\n[source]\ntype = plane_wave\nramp_periods = 2\n[boundary]\ntype = cpml\ncells = 12\n"
             "[object.cyl]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
             "center_x = %.6f\ncenter_y = %.6f\nradius = %.6f\n"
             "[monitor.dft]\nstart_step = %d\n[output]\npng = false\n",
             n, n, 60 * period, cpw, subpixel ? "true" : "false", match ? "true" : "false", c, c, a,
             40 * period);
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    static struct analytic_cylinder cy;
    static struct farexact_cyl2 d;
    cr_assert_eq(analytic_init_circle(&cy, &t.model, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cy.eps_r, 4.0);
    cr_assert_eq(analytic_material_init(&cy, &d, err, sizeof err), 0, "%s", err);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    struct engine *e;
    cr_assert_eq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e, t.scene.steps, err, sizeof err), 0, "%s", err);
    float *re = malloc(t.model.ncells * sizeof *re), *im = malloc(t.model.ncells * sizeof *im);
    cr_assert_eq(engine_read(e, field_dft(0, 0), re, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_read(e, field_dft(0, 1), im, err, sizeof err), 0, "%s", err);
    double num = 0, den = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const double rho = hypot(i - c, j - c);
            if (rho < 1.2 * a || rho > 2.5 * a)
                continue;
            const double complex g = analytic_scattered_any(&cy, &d, i, j);
            const size_t q = (size_t)i + (size_t)j * (size_t)n;
            const double complex f = re[q] + I * im[q];
            num += cabs(f - g) * cabs(f - g);
            den += cabs(g) * cabs(g);
        }
    free(re);
    free(im);
    engine_destroy(e);
    setup_free(&t);
    return sqrt(num / den);
}

/* Measured (docs/accuracy.md section 6): subpixel 0.238 at 20 and 0.068 at
 * 40 cells per wavelength (ratio 3.5: second order; first order would halve
 * it), the staircase 0.405 at 20.  At 40 most of what is left is the Yee
 * grid's dispersion inside the dielectric, not the interface, which is why
 * the 0.02 is not reached: the limits hold what is reached. */
Test(subpixel, dielectric_cylinder_near_field_second_order, .timeout = 120)
{
    const double s20 = cylinder_error(20, true, false), s40 = cylinder_error(40, true, false);
    const double st20 = cylinder_error(20, false, false);
    cr_log_info("near field, annulus 1.2..2.5 a: subpixel %.4f (20 cpw), %.4f (40 cpw), ratio "
                "%.2f; staircase %.4f (20 cpw)",
                s20, s40, s20 / s40, st20);
    cr_expect(s20 / s40 > 3.0, "second order: %.4f / %.4f = %.2f", s20, s40, s20 / s40);
    cr_expect(s40 < 0.075, "40 cells per wavelength: %.4f", s40);
    cr_expect(s20 < 0.7 * st20, "subpixel %.4f against the staircase's %.4f at 20", s20, st20);
}

/* With [grid] dispersion_correction the dielectric's coefficients take the
 * eps' whose grid wave is sqrt(eps_r) times the grid's vacuum wave, averaged
 * over directions (material_dispersion_eps): what is left is the geometry's
 * error.  Measured (docs/accuracy.md section 6): 0.0117 at 40 cells per
 * wavelength, under the goal of 0.02; the exact series is that of
 * eps_r = 4, the scene's value (analytic_init_circle reads the scene). */
Test(subpixel, dispersion_corrected_cylinder_meets_the_goal, .timeout = 120)
{
    const double s40 = cylinder_error(40, true, true);
    cr_log_info("near field with dispersion_correction, 40 cpw: %.4f", s40);
    cr_expect(s40 < 0.02, "40 cells per wavelength, corrected: %.4f (goal 0.02)", s40);
}

/* The corrected permittivity by hand: along an axis the Yee relation has
 * the closed form sin(w dt/2) = (S/n') sin(n k0'/2), k0' = 2 asin(sin(w
 * dt/2)/S); along the diagonal (2D) sin(w dt/2) = sqrt(2) (S/n')
 * sin(n k0'/(2 sqrt 2)), k0' = 2 sqrt 2 asin(sin(w dt/2)/(sqrt 2 S)).  The
 * mean over directions lies between the two; both tend to eps as dt -> 0;
 * the grid too coarse for the wave inside is refused. */
static double axis_eps(double eps, double S, double w, double g)
{
    const double s2 = sin(0.5 * w), k0 = 2.0 * g * asin(s2 / (g * S));
    const double n = g * S * sin(0.5 * sqrt(eps) * k0 / g) / s2;
    return n * n;
}

Test(subpixel, dispersion_eps_between_axis_and_diagonal)
{
    const double S = 0.5;
    for (int cpw = 10; cpw <= 80; cpw *= 2) {
        const double w = 2 * M_PI * S / cpw;
        const double ax = axis_eps(4.0, S, w, 1.0), dg = axis_eps(4.0, S, w, sqrt(2.0));
        const double e2 = material_dispersion_eps(4.0, S, w, 2);
        cr_expect(ax < e2 && e2 < dg, "cpw %d: axis %.6f, mean %.6f, diagonal %.6f", cpw, ax,
                  e2, dg);
        cr_expect(e2 < 4.0);
        /* the 3D mean at the same S includes the body diagonal: also above the axis */
        const double e3 = material_dispersion_eps(4.0, S / sqrt(2.0), w / sqrt(2.0), 3);
        cr_expect(e3 > axis_eps(4.0, S / sqrt(2.0), w / sqrt(2.0), 1.0) && e3 < 4.0,
                  "3D cpw %d: %.6f", cpw, e3);
    }
    const double fine = material_dispersion_eps(4.0, S, 2 * M_PI * S / 4000.0, 2);
    cr_expect(fabs(fine - 4.0) < 1e-5, "4000 cells per wavelength: %.9f", fine);
    cr_expect_eq(material_dispersion_eps(1.0, S, 0.1, 2), 1.0);
    cr_expect_lt(material_dispersion_eps(100.0, S, 2 * M_PI * S / 5.0, 2), 0.0,
                 "eps 100 at 5 cells per wavelength has no wave inside");
}

/* The correction touches lossless dielectrics' coefficients only: a PEC
 * cylinder's fields keep their bits, a dielectric's change while its
 * material table keeps the scene's (smoothed) eps_r and every coefficient
 * S / eps' is above S / eps_r (eps' < eps_r); with mu_r it is refused. */
Test(subpixel, dispersion_correction_scope)
{
    static const char base[] = "[grid]\nnx = 48\nny = 48\nsteps = 60\n"
                               "[boundary]\ntype = cpml\ncells = 8\n"
                               "[object.c]\nshape = circle\nmaterial = %s\ncenter_x = 24\n"
                               "center_y = 24\nradius = 6.3\n";
    char text[1024], err[ERRLEN];
    for (int diel = 0; diel < 2; diel++) {
        snprintf(text, sizeof text, base, diel ? "dielectric\neps_r = 3" : "pec");
        struct test_setup t[2];
        void *f[2][3];
        setup_from_text(&t[0], text, NULL, 0);
        static const char *const on[] = {"grid.dispersion_correction=true"};
        setup_from_text(&t[1], text, on, 1);
        const struct engine_options o = {.precision = PRECISION_SINGLE,
                                         .denormals = DENORMALS_FLUSH, .device = -1};
        for (int k = 0; k < 2; k++)
            cr_assert_eq(run_engine("cpu", &t[k].model, &o, 60, f[k], err, sizeof err), 0, "%s",
                         err);
        const size_t n = t[0].model.ncells;
        const bool same = !memcmp(f[0][0], f[1][0], n * sizeof(float));
        cr_expect_eq(same, !diel, "%s: fields %s", diel ? "dielectric" : "pec",
                     same ? "unchanged" : "changed");
        for (int k = 0; k < t[1].model.nmats; k++)
            if (t[1].model.mats[k].kind == MATERIAL_DIELECTRIC && diel)
                cr_expect(t[1].model.mats[k].eps_r > 1.0 && t[1].model.mats[k].eps_r <= 3.0
                              && t[1].model.mats[k].cezh > 0.5 / t[1].model.mats[k].eps_r,
                          "material %d: eps_r %g, cezh %g", k, t[1].model.mats[k].eps_r,
                          t[1].model.mats[k].cezh);
        for (int k = 0; k < 2; k++) {
            free_fields(f[k]);
            setup_free(&t[k]);
        }
    }
    static const char mag[] = "[grid]\nnx = 48\nny = 48\nsteps = 10\ndispersion_correction = true\n"
                              "[material.m]\nmu_r = 2\n"
                              "[object.c]\nshape = circle\nmaterial = m\ncenter_x = 24\n"
                              "center_y = 24\nradius = 6\n";
    struct scene s;
    struct model m;
    cr_assert_eq(scene_load_text(&s, "mag", mag, strlen(mag), NULL, 0, err, sizeof err), 0,
                 "%s", err);
    cr_expect_neq(model_build(&m, &s, err, sizeof err), 0);
    cr_expect(strstr(err, "dispersion_correction") && strstr(err, "mu_r"), "%s", err);
    scene_free(&s);
}

/* ---- 3D: each E edge's own permittivity (core/smooth3d.h) ------------------ */

/* The permittivity E component a of corner (i, j, k) takes: its own where
 * smoothed (model->esm_q, in increasing order), else its corner's. */
static double edge_eps(const struct model *m, int a, int i, int j, int k)
{
    const size_t c = (size_t)i + (size_t)m->nx * ((size_t)j + (size_t)m->ny * (size_t)k);
    const size_t q = (size_t)a * m->ncells + c;
    size_t lo = 0, hi = m->nesm;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (m->esm_q[mid] < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    const uint8_t idx = lo < m->nesm && m->esm_q[lo] == q ? m->esm_mat[lo] : m->mat[c];
    return m->mats[idx].eps_r;
}

/* The documented rounding of (eps^-1)_aa: multiples of 2^-12. */
static double rounded_eps(double inv)
{
    return 1.0 / (round(inv * 4096.0) / 4096.0);
}

/* A box of eps_r 4 whose faces normal to x lie at x = 10.25 and 19.75 (a
 * quarter of a cell off the corners), its other faces on half-integer
 * planes.  By hand, far from the y and z faces: Ex(10.5) has 3/4 of its
 * cube [10, 11] inside, across the face: (eps^-1)_xx = <1/eps> =
 * 3/4 / 4 + 1/4; Ey and Ez at x = 10 have 1/4 of [9.5, 10.5] inside, along
 * the face: 1 / <eps> = 1 / (1/4 * 4 + 3/4); Ex(9.5) and Ey, Ez at x = 9
 * are vacuum, Ey, Ez at x = 11 and Ex(11.5) the box's 4; the face at 19.75
 * the mirror image.  A face on a half-integer plane (y = 5.5) splits Ey's
 * cube in halves: <1/eps> = (1/4 + 1) / 2, and leaves Ex and Ez whole.
 * With subpixel = false each edge takes its corner's material. */
Test(subpixel, box_3d_edges_by_hand)
{
    static const char text[] = "[grid]\nnx = 30\nny = 30\nnz = 30\nsteps = 1\n"
                               "[object.b]\nshape = box\nmaterial = dielectric\neps_r = 4\n"
                               "center_x = 15\ncenter_y = 15\ncenter_z = 15\n"
                               "width = 9.5\nheight = 19\ndepth = 19\n";
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    cr_assert_gt(m->nesm, 0);
    const double across = rounded_eps(0.75 / 4 + 0.25), along = rounded_eps(1 / 1.75);
    for (int j = 8; j <= 22; j += 7)
        for (int k = 8; k <= 22; k += 7) {
            cr_expect_eq(edge_eps(m, 0, 10, j, k), across, "Ex(10.5, %d, %d): %.17g", j, k,
                         edge_eps(m, 0, 10, j, k));
            cr_expect_eq(edge_eps(m, 0, 19, j, k), across, "Ex(19.5, %d, %d)", j, k);
            cr_expect_eq(edge_eps(m, 0, 9, j, k), 1.0);
            cr_expect_eq(edge_eps(m, 0, 20, j, k), 1.0);
            cr_expect_eq(edge_eps(m, 0, 11, j, k), 4.0);
            for (int a = 1; a < 3; a++) {
                cr_expect_eq(edge_eps(m, a, 10, j, k), along, "comp %d at (10, %d, %d): %.17g", a,
                             j, k, edge_eps(m, a, 10, j, k));
                cr_expect_eq(edge_eps(m, a, 20, j, k), along, "comp %d at (20, %d, %d)", a, j, k);
                cr_expect_eq(edge_eps(m, a, 9, j, k), 1.0);
                cr_expect_eq(edge_eps(m, a, 11, j, k), 4.0);
                cr_expect_eq(edge_eps(m, a, 19, j, k), 4.0);
            }
        }
    /* the face y = 5.5 */
    cr_expect_eq(edge_eps(m, 1, 15, 5, 15), rounded_eps((0.25 + 1) / 2), "Ey(15, 5.5, 15): %.17g",
                 edge_eps(m, 1, 15, 5, 15));
    cr_expect_eq(edge_eps(m, 0, 15, 5, 15), 1.0);
    cr_expect_eq(edge_eps(m, 2, 15, 6, 15), 4.0);
    setup_free(&t);
    static const char *const off[] = {"grid.subpixel=false"};
    setup_from_text(&t, text, off, 1);
    cr_expect_eq(t.model.nesm, 0);
    cr_expect_eq(edge_eps(&t.model, 0, 10, 15, 15), 1.0);
    cr_expect_eq(edge_eps(&t.model, 1, 11, 15, 15), 4.0);
    setup_free(&t);
}

/* What is not smoothed: a PEC object, a lossy one and a map painted over a
 * smoothed box return the edges of their boxes to the staircase; a lossy
 * box is a staircase itself.  The box's x faces at 10.25 as above; the
 * lossy box's corners x 9 .. 11, y 3 .. 9, z 10 .. 14 on its low face, the
 * PEC box's x 8 .. 12, y 13 .. 17, z 21 .. 25: no smoothed edge within one
 * cell of either. */
Test(subpixel, box_3d_staircase_objects)
{
    static const char text[] = "[grid]\nnx = 30\nny = 30\nnz = 30\nsteps = 1\n"
                               "[material.wet]\neps_r = 2\nsigma = 0.1\n"
                               "[object.b]\nshape = box\nmaterial = dielectric\neps_r = 4\n"
                               "center_x = 15\ncenter_y = 15\ncenter_z = 15\n"
                               "width = 9.5\nheight = 19\ndepth = 19\n"
                               "[object.wet]\nshape = box\nmaterial = wet\ncenter_x = 10\n"
                               "center_y = 6\ncenter_z = 12\nwidth = 3.5\nheight = 6\ndepth = 4\n"
                               "[object.p]\nshape = box\nmaterial = pec\ncenter_x = 10\n"
                               "center_y = 15\ncenter_z = 23\nwidth = 4\nheight = 4\ndepth = 4\n";
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    const double across = rounded_eps(0.75 / 4 + 0.25);
    cr_expect_eq(edge_eps(m, 0, 10, 15, 15), across); /* away from both */
    /* under the lossy box: its own material, the corner's */
    cr_expect_eq(edge_eps(m, 0, 10, 5, 12), 2.0);
    cr_expect_eq(edge_eps(m, 0, 10, 5, 12), m->mats[m->mat[10 + 30 * (5 + 30 * 12)]].eps_r);
    /* beside the PEC box (its rim): the staircase's vacuum corner */
    cr_expect_eq(edge_eps(m, 0, 10, 12, 23), 1.0);
    for (size_t k = 0; k < m->nesm; k++) {
        const size_t c = m->esm_q[k] % m->ncells;
        const int i = (int)(c % 30), j = (int)(c / 30 % 30), z = (int)(c / 900);
        cr_expect(!(i >= 8 && i <= 12 && j >= 2 && j <= 10 && z >= 9 && z <= 15),
                  "smoothed edge at (%d, %d, %d) in the lossy box's", i, j, z);
        cr_expect(!(i >= 7 && i <= 13 && j >= 12 && j <= 18 && z >= 20),
                  "smoothed edge at (%d, %d, %d) in the PEC box's", i, j, z);
    }
    setup_free(&t);
}

/* More distinct permittivities than a one-byte index holds: refused before
 * anything runs, naming subpixel = false, which then builds. */
Test(subpixel, box_3d_table_full_is_refused)
{
    char *text = malloc(1 << 17), err[ERRLEN];
    cr_assert(text);
    int n = snprintf(text, 1 << 17, "[grid]\nnx = 40\nny = 40\nnz = 40\nsteps = 1\n");
    for (int b = 0; b < 240; b++)
        n += snprintf(text + n, (1 << 17) - (size_t)n,
                      "[object.b%d]\nshape = box\nmaterial = dielectric\neps_r = %.6f\n"
                      "center_x = %d.3\ncenter_y = %d.6\ncenter_z = 20\nwidth = 1.7\n"
                      "height = 1.45\ndepth = 3.2\n",
                      b, 2.0 + b / 64.0, 3 + 2 * (b % 16), 3 + 2 * (b / 16));
    struct scene s;
    struct model m;
    cr_assert_eq(scene_load_text(&s, "full", text, strlen(text), NULL, 0, err, sizeof err), 0,
                 "%s", err);
    cr_expect_neq(model_build(&m, &s, err, sizeof err), 0);
    cr_expect(strstr(err, "3D subpixel smoothing") && strstr(err, "subpixel = false"), "%s", err);
    scene_free(&s);
    static const char *const off[] = {"grid.subpixel=false"};
    cr_assert_eq(scene_load_text(&s, "full", text, strlen(text), off, 1, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(model_build(&m, &s, err, sizeof err), 0, "%s", err);
    model_free(&m);
    scene_free(&s);
    free(text);
}

/* A lattice of equal spheres is sampled once (core/smooth3d.c keeps the
 * cover of a shape for the next one whose centre has the same fraction of
 * a cell): each sphere of a 3 x 3 x 3 lattice (centres on two fractions per
 * axis) gives its edges the permittivities of the same sphere alone. */
Test(subpixel, sphere_lattice_3d_is_each_sphere_alone)
{
    char text[8192];
    int n = snprintf(text, sizeof text, "[grid]\nnx = 34\nny = 34\nnz = 34\nsteps = 1\n");
    for (int s = 0; s < 27; s++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "[object.s%d]\nshape = sphere\nmaterial = dielectric\neps_r = 3\n"
                      "center_x = %g\ncenter_y = %g\ncenter_z = %g\nradius = 2.7\n",
                      s, 7 + 9.5 * (s % 3), 7 + 9.5 * (s / 3 % 3), 7 + 9.5 * (s / 9));
    struct test_setup all;
    setup_from_text(&all, text, NULL, 0);
    size_t checked = 0, mixed = 0;
    for (int s = 0; s < 27; s++) {
        const double cx = 7 + 9.5 * (s % 3), cy = 7 + 9.5 * (s / 3 % 3), cz = 7 + 9.5 * (s / 9);
        char one[1024];
        snprintf(one, sizeof one,
                 "[grid]\nnx = 34\nny = 34\nnz = 34\nsteps = 1\n[object.s]\nshape = sphere\n"
                 "material = dielectric\neps_r = 3\ncenter_x = %g\ncenter_y = %g\ncenter_z = %g\n"
                 "radius = 2.7\n", cx, cy, cz);
        struct test_setup t;
        setup_from_text(&t, one, NULL, 0);
        for (int k = (int)cz - 4; k <= (int)cz + 4; k++)
            for (int j = (int)cy - 4; j <= (int)cy + 4; j++)
                for (int i = (int)cx - 4; i <= (int)cx + 4; i++)
                    for (int a = 0; a < 3; a++) {
                        const double want = edge_eps(&t.model, a, i, j, k);
                        const double got = edge_eps(&all.model, a, i, j, k);
                        cr_expect_eq(got, want, "sphere %d, comp %d at (%d, %d, %d): %g, alone %g",
                                     s, a, i, j, k, got, want);
                        checked++;
                        mixed += want != 1.0 && want != 3.0;
                    }
        setup_free(&t);
    }
    cr_log_info("%zu edges, %zu smoothed", checked, mixed);
    cr_expect_gt(mixed, 27 * 100);
    setup_free(&all);
}
