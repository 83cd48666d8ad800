/* test_gl_boundary.c - the GL engines with CPML, Mur, the DFT monitor, the
 * point source and the conformal PEC boundary, against the CPU engine bit
 * for bit (issue 4, item 2: "in the shaders too, with the GL engine still
 * equal to the CPU engine bit for bit").
 *
 * As in test_gl.c: the CPU engine is the expectation, run in the denormal
 * mode the GL engine reports; 0 differing bits in Ez, Hx, Hy and, with a
 * [monitor.dft], in the DFT sums.  Each scene is checked to exercise what it
 * claims (the scattered wave is inside the CPML slabs, the Mur walls are
 * non-zero, the DFT sums are non-zero), so a feature that silently did
 * nothing could not pass.  The CPML's reflection itself is measured on the
 * CPU engine (test_boundary.c); equal bits carry it over, and
 * cpml_absorbs_in_gl checks the absorption in GL directly.
 *
 * Without any GL context the tests are skipped, unless TEXFDTD_REQUIRE_GPU=1.
 * Grids are small (llvmpipe, 2 cores): the whole file runs in well under a
 * minute.
 */
#include "helpers.h"

#include "gl/gl.h"

/* Oblique plane wave on a PEC cylinder in a CPML box: after 220 steps the
 * scattered wave has crossed the slabs on every side. */
static const char *CPML =
    "[grid]\nnx = 96\nny = 88\nsteps = 220\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 30\n"
    "[boundary]\ntype = cpml\ncells = 10\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 48\ncenter_y = 44\nradius = 9\n";

/* The same with first-order Mur walls, and a dielectric rod too. */
static const char *MUR =
    "[grid]\nnx = 96\nny = 88\nsteps = 220\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 30\n"
    "[boundary]\ntype = mur\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 48\ncenter_y = 44\nradius = 9\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 70\n"
    "center_y = 60\nradius = 6\n";

/* CPML with a graded kappa and alpha (ik != 1), a non-power-of-two Courant
 * number, a dielectric rod and a running DFT from step 120. */
static const char *DFT =
    "[grid]\nnx = 80\nny = 96\nsteps = 200\ncourant = 0.6\ncells_per_wavelength = 17\n"
    "[source]\ntype = plane_wave\nangle = 60\namplitude = 2\n"
    "[boundary]\ntype = cpml\ncells = 8\nkappa_max = 3\nalpha_max = 0.05\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 2.5\ncenter_x = 40\n"
    "center_y = 50\nradius = 10\n"
    "[monitor.dft]\nstart_step = 120\n";

/* A soft point source near a CPML corner. */
static const char *POINT =
    "[grid]\nnx = 72\nny = 64\nsteps = 160\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\ntype = point\ncenter_x = 24\ncenter_y = 20\n"
    "[boundary]\ntype = cpml\ncells = 6\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 45\ncenter_y = 38\nradius = 5\n";

/* The conformal PEC circle (Dey-Mittra cut edges) off the grid's axes, PEC box. */
static const char *CONFORMAL =
    "[grid]\nnx = 96\nny = 96\nsteps = 200\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "conformal_pec = true\n"
    "[source]\ntype = plane_wave\nangle = 20\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 47.3\ncenter_y = 48.6\n"
    "radius = 13.7\n";

/* Everything at once, as scenes/pec_circle_ka10.ini: conformal, CPML, DFT. */
static const char *ALL =
    "[grid]\nnx = 96\nny = 96\nsteps = 240\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "conformal_pec = true\n"
    "[source]\ntype = plane_wave\nangle = 0\nfront_offset = 20\n"
    "[boundary]\ntype = cpml\ncells = 10\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 47.5\ncenter_y = 47.5\n"
    "radius = 12.3\n"
    "[monitor.dft]\nstart_step = 160\n";

static bool gpu_required(void)
{
    const char *v = getenv("TEXFDTD_REQUIRE_GPU");
    return v && !strcmp(v, "1");
}

static struct engine *create_dn(const char *name, const struct model *m, enum denormals dn)
{
    struct engine_options o = {0};
    o.precision = PRECISION_SINGLE;
    o.denormals = dn;
    o.device = -1;
    char err[ERRLEN];
    struct engine *e = NULL;
    if (engine_create(name, m, &o, &e, err, sizeof err)) {
        char why[ERRLEN];
        if (gl_probe(o.device, why, sizeof why) && !gpu_required())
            cr_skip_test("no OpenGL device here: %s", why);
        cr_assert_fail("%s", err);
    }
    return e;
}

static struct engine *create_or_skip(const char *name, const struct model *m)
{
    return create_dn(name, m, DENORMALS_FLUSH);
}

/* Run an engine for `steps` (in two calls) and read its fields: ez, hx, hy, and the DFT
 * sums when the scene has them. */
#define NF 5
static int run_fields(struct engine *e, int steps, float *f[NF])
{
    char err[ERRLEN];
    const struct model *m = e->model;
    const int nf = m->scene->dft ? 5 : 3;
    const enum field which[NF] = {FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_EZ_DFT_RE,
                                  FIELD_EZ_DFT_IM};
    /* two calls: the state carried between step() calls is exercised too */
    cr_assert_eq(engine_step(e, steps / 3, err, sizeof err), 0, "%s step: %s", e->ops->name, err);
    cr_assert_eq(engine_step(e, steps - steps / 3, err, sizeof err), 0, "%s step: %s",
                 e->ops->name, err);
    for (int k = 0; k < NF; k++) {
        f[k] = NULL;
        if (k >= nf)
            continue;
        f[k] = malloc(m->ncells * sizeof(float));
        cr_assert_eq(engine_read(e, which[k], f[k], err, sizeof err), 0, "%s read %s: %s",
                     e->ops->name, field_name(which[k]), err);
    }
    return nf;
}

static double max_abs_where(const float *v, const struct model *m, bool (*in)(const struct model *, int, int))
{
    double r = 0;
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++)
            if (!in || in(m, i, j))
                r = fmax(r, fabs(v[(size_t)i + (size_t)j * (size_t)m->nx]));
    return r;
}

static bool in_slab(const struct model *m, int i, int j)
{
    const int N = m->pml_n;
    return i < N || j < N || i >= m->nx - N || j >= m->ny - N;
}

static bool on_wall(const struct model *m, int i, int j)
{
    return i == 0 || j == 0 || i == m->nx - 1 || j == m->ny - 1;
}

/* The GL engine `name` (asked for denormal mode `want`) against the CPU
 * engine in the mode it reports, bit for bit, after `steps`. */
static void agree_dn(const char *name, const char *scene, int steps, enum denormals want)
{
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    const struct model *m = &t.model;
    struct engine *g = create_dn(name, m, want);
    struct engine_info info;
    engine_describe(g, &info);
    cr_log_info("%s on %s: %s", name, info.device, info.detail);
    if (!strcmp(name, "gl"))
        cr_assert_eq(gl_engine_steps_per_pass(g), 1, "features need one step per pass");
    float *gf[NF], *cf[NF];
    const int nf = run_fields(g, steps, gf);
    engine_destroy(g);

    struct engine_options co = {0};
    co.precision = PRECISION_SINGLE;
    co.denormals = info.denormals;
    co.device = -1;
    struct engine *c;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", m, &co, &c, err, sizeof err), 0, "cpu: %s", err);
    run_fields(c, steps, cf);
    engine_destroy(c);

    /* the scene exercises what it claims */
    cr_assert_gt(max_abs_where(cf[0], m, NULL), 0.1, "Ez is still ~0 after %d steps", steps);
    if (m->pml_n) {
        const double s = fmax(max_abs_where(cf[0], m, in_slab),
                              fmax(max_abs_where(cf[1], m, in_slab), max_abs_where(cf[2], m, in_slab)));
        cr_assert_gt(s, 1e-3, "the scattered wave has not entered the CPML slabs (max %g)", s);
    }
    if (m->scene->boundary == BOUNDARY_MUR)
        cr_assert_gt(max_abs_where(cf[0], m, on_wall), 1e-3, "the Mur walls are still 0");
    if (nf == 5)
        cr_assert_gt(fmax(max_abs_where(cf[3], m, NULL), max_abs_where(cf[4], m, NULL)), 1e-3,
                     "the DFT sums are ~0");

    const char *names[NF] = {"ez", "hx", "hy", "ez_dft_re", "ez_dft_im"};
    for (int k = 0; k < nf; k++) {
        uint32_t ulp = 0;
        const size_t d = count_bit_differences(gf[k], cf[k], m->ncells, &ulp);
        cr_expect_eq(d, 0, "%s vs cpu (denormals %s), %s after %d steps: %zu of %zu values differ "
                           "(max %u ulp)",
                     name, denormals_name(info.denormals), names[k], steps, d, m->ncells, ulp);
    }
    for (int k = 0; k < NF; k++) {
        free(gf[k]);
        free(cf[k]);
    }
    setup_free(&t);
}

static void agree(const char *name, const char *scene, int steps)
{
    agree_dn(name, scene, steps, DENORMALS_FLUSH);
}

Test(gl_boundary, cpml_equals_cpu) { agree("gl", CPML, 220); }
Test(gl_boundary, mur_equals_cpu) { agree("gl", MUR, 220); }
Test(gl_boundary, dft_cpml_kappa_alpha_equals_cpu) { agree("gl", DFT, 200); }
Test(gl_boundary, point_cpml_equals_cpu) { agree("gl", POINT, 160); }
Test(gl_boundary, conformal_equals_cpu) { agree("gl", CONFORMAL, 200); }
Test(gl_boundary, conformal_cpml_dft_equals_cpu) { agree("gl", ALL, 240); }

Test(gl_compute_boundary, cpml_equals_cpu) { agree("gl-compute", CPML, 220); }
Test(gl_compute_boundary, mur_equals_cpu) { agree("gl-compute", MUR, 220); }
Test(gl_compute_boundary, dft_cpml_kappa_alpha_equals_cpu) { agree("gl-compute", DFT, 200); }
Test(gl_compute_boundary, point_cpml_equals_cpu) { agree("gl-compute", POINT, 160); }
Test(gl_compute_boundary, conformal_equals_cpu) { agree("gl-compute", CONFORMAL, 200); }
Test(gl_compute_boundary, conformal_cpml_dft_equals_cpu) { agree("gl-compute", ALL, 240); }

/* Denormals kept where the stage keeps them (llvmpipe's compute shaders:
 * then GLSL runs without the flush emulation); elsewhere the engine reports
 * flush and is compared in flush. */
Test(gl_compute_boundary, keep_denormals_equals_cpu)
{
    agree_dn("gl-compute", ALL, 240, DENORMALS_KEEP);
    agree_dn("gl-compute", MUR, 220, DENORMALS_KEEP);
}

/* Asked for two steps per fragment pass (the GPU default), a scene with
 * these features runs one (update_k.frag knows none of them), with the same
 * bits, also in batches of odd length. */
Test(gl_boundary, steps_per_pass_2_falls_back_to_1)
{
    setenv("TEXFDTD_GL_STEPS_PER_PASS", "2", 1);
    setenv("TEXFDTD_GL_BATCH_STEPS", "37", 1);
    agree("gl", CPML, 220);
    agree("gl", ALL, 240);
}

/* The fields of a scene without [monitor.dft] have no DFT to read. */
Test(gl_boundary, no_dft_without_monitor)
{
    struct test_setup t;
    setup_from_text(&t, CPML, NULL, 0);
    const char *names[2] = {"gl", "gl-compute"};
    for (int k = 0; k < 2; k++) {
        struct engine *g = create_or_skip(names[k], &t.model);
        float *v = malloc(t.model.ncells * sizeof *v);
        char err[ERRLEN];
        cr_expect_neq(engine_read(g, FIELD_EZ_DFT_RE, v, err, sizeof err), 0);
        cr_expect(strstr(err, "monitor.dft") != NULL, "%s", err);
        free(v);
        engine_destroy(g);
    }
    setup_free(&t);
}

/* The CPML absorbs in GL: a Gaussian pulse from a point source has left a
 * CPML box after 300 steps (max |Ez| below 1% of the same box with PEC
 * walls, where it keeps bouncing). */
Test(gl_boundary, cpml_absorbs_in_gl)
{
    const char *fmt =
        "[grid]\nnx = 64\nny = 64\nsteps = 300\ncourant = 0.5\ncells_per_wavelength = 20\n"
        "[source]\ntype = point\ncenter_x = 32\ncenter_y = 30\nwaveform = gaussian\n"
        "pulse_width = 6\n[boundary]\ntype = %s\n";
    double peak[2];
    const char *types[2] = {"cpml", "pec"};
    for (int k = 0; k < 2; k++) {
        char scene[512];
        snprintf(scene, sizeof scene, fmt, types[k]);
        struct test_setup t;
        setup_from_text(&t, scene, NULL, 0);
        struct engine *g = create_or_skip("gl", &t.model);
        float *f[NF];
        run_fields(g, 300, f);
        peak[k] = max_abs_where(f[0], &t.model, NULL);
        for (int q = 0; q < NF; q++)
            free(f[q]);
        engine_destroy(g);
        setup_free(&t);
    }
    cr_log_info("max |Ez| after 300 steps: CPML %g, PEC %g", peak[0], peak[1]);
    cr_assert_gt(peak[1], 1e-2, "the pulse did not start (PEC box: %g)", peak[1]);
    cr_assert_lt(peak[0], 1e-2 * peak[1], "CPML %g against PEC %g", peak[0], peak[1]);
}
