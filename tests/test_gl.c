/* test_gl.c - the GL engines against the CPU engine, bit for bit.
 *
 * The CPU engine is the independent expectation: each test runs a scene
 * through `gl` or `gl-compute`, asks the engine which denormal mode its
 * arithmetic has (engine_info.denormals), runs the CPU engine in that mode and
 * demands 0 differing bits in Ez, Hx and Hy.  No tolerance: the claim is
 * bit-identity, so the test is bit-identity.
 *
 * Without a GPU (CI) the engines run on Mesa llvmpipe through EGL.  If no GL
 * context can be made at all, the tests are skipped with the reason, unless
 * TEXFDTD_REQUIRE_GPU=1 (make test-gpu), where that is a failure.
 */
#include "helpers.h"
#include "core/output.h"

#include "core/colormap.h"
#include "gl/gl.h"

#include <sys/stat.h>

/* Sizes are small enough for llvmpipe on 2 cores (the whole suite runs in
 * well under two minutes).  The steps are long enough for the wave to pass
 * the object, and short enough that its front has not yet reached the far
 * wall: ahead of the front the fields decay through the denormal range, which
 * is where flush and keep differ (scenes_are_denormal_sensitive).  Once the
 * whole grid is filled, those tiny differences are rounded away. */

static const char *SQUARE = /* the paper's scene, scaled down */
    "[grid]\nnx = 256\nny = 256\nsteps = 500\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "[source]\ntype = plane_wave\nangle = 0\namplitude = 1\nramp_periods = 1\n"
    "[object.square]\nshape = rectangle\nmaterial = pec\ncenter_x = 128\ncenter_y = 128\n"
    "width = 32\nheight = 32\n";

static const char *CIRCLE =
    "[grid]\nnx = 160\nny = 160\nsteps = 400\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 80\ncenter_y = 80\nradius = 16\n";

static const char *DIELECTRIC =
    "[grid]\nnx = 160\nny = 160\nsteps = 400\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 80\n"
    "center_y = 80\nradius = 20\n";

static const char *OBLIQUE = /* 30 degrees, a non-power-of-two Courant number */
    "[grid]\nnx = 160\nny = 128\nsteps = 400\ncourant = 0.6\ncells_per_wavelength = 17\n"
    "[source]\ntype = plane_wave\nangle = 30\namplitude = 2\n"
    "[object.square]\nshape = rectangle\nmaterial = pec\ncenter_x = 90\ncenter_y = 60\n"
    "width = 24\nheight = 30\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 2.5\ncenter_x = 50\n"
    "center_y = 70\nradius = 10\n";

/* Lossy dielectrics (sigma != 0, the ca E + cb curl update): a smoothed lossy
 * cylinder and a lossless rod in a CPML grid under a plane wave; a lossy and
 * a lossless object beside a point source inside Mur walls. */
static const char *LOSSY_CPML =
    "[grid]\nnx = 140\nny = 120\nsteps = 300\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "[source]\ntype = plane_wave\nangle = 20\n"
    "[boundary]\ntype = cpml\ncells = 10\n"
    "[material.wet]\neps_r = 4\nsigma = 0.11\n"
    "[object.cyl]\nshape = circle\nmaterial = wet\ncenter_x = 60.3\ncenter_y = 58.7\n"
    "radius = 18\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 2.5\ncenter_x = 100\n"
    "center_y = 70\nradius = 8\n";

static const char *LOSSY_MUR =
    "[grid]\nnx = 120\nny = 100\nsteps = 250\ncourant = 0.6\ncells_per_wavelength = 16\n"
    "[source]\ntype = point\ncenter_x = 52\ncenter_y = 45\namplitude = 20\n"
    "[boundary]\ntype = mur\n"
    "[material.wet]\neps_r = 1\nsigma = 0.3\n"
    "[object.slab]\nshape = rectangle\nmaterial = wet\ncenter_x = 70\ncenter_y = 50\n"
    "width = 20\nheight = 60\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 40\n"
    "center_y = 30\nradius = 7\n";

/* A PEC box with slots only: the multi-step pass update_k.frag (gl) and the
 * fused dispatch update_he.comp (gl-compute). */
static const char *LOSSY_PEC =
    "[grid]\nnx = 128\nny = 112\nsteps = 260\ncourant = 0.5\ncells_per_wavelength = 18\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[material.wet]\neps_r = 3\nsigma = 0.15\n"
    "[object.cyl]\nshape = circle\nmaterial = wet\ncenter_x = 50.4\ncenter_y = 55.2\n"
    "radius = 16\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 90\ncenter_y = 60\n"
    "width = 4\nheight = 24\n";

/* The H-node map (core/model.h hmat): TE and TM with mu_r, small grids.
 * TE: a PEC cylinder in a CPML grid (PEC edges, H slots = value); a
 * dielectric cylinder, smoothed (the [grid] subpixel default: an edge
 * coefficient per edge), under a plane wave in a CPML grid; the same beside
 * a point source (a magnetic current on Hz) inside Mur walls; a cylinder of
 * eps_r and mu_r (H slots on the edges and E slots on the Hz nodes).  TM: a
 * mu_r cylinder and a mu_r, eps_r one with a conformal PEC plate (cut
 * edges and H slots in the same H pass).  The smoothed TE scenes take the
 * diagonal of the smoothing only ([grid] te_offdiagonal = false: the
 * diagonal path; the off-diagonal edges are tests/test_gl_te.c's). */
static const char *TE_PEC =
    "[grid]\nnx = 80\nny = 72\nsteps = 150\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\n"
    "[source]\ntype = plane_wave\nangle = 25\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 40.3\ncenter_y = 35.6\n"
    "radius = 10\n";

static const char *TE_DIEL =
    "[grid]\nnx = 84\nny = 76\nsteps = 150\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\nte_offdiagonal = false\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[object.cyl]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 42.2\n"
    "center_y = 37.7\nradius = 12.5\n";

static const char *TE_DIEL_MUR =
    "[grid]\nnx = 90\nny = 70\nsteps = 140\ncourant = 0.6\ncells_per_wavelength = 16\n"
    "polarization = te\nte_offdiagonal = false\n"
    "[source]\ntype = point\ncenter_x = 30\ncenter_y = 35\namplitude = 20\n"
    "[boundary]\ntype = mur\n"
    "[object.cyl]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 52.5\n"
    "center_y = 36.1\nradius = 9\n";

static const char *TE_MU =
    "[grid]\nnx = 80\nny = 72\nsteps = 150\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\nte_offdiagonal = false\n"
    "[source]\ntype = plane_wave\nangle = 10\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.mag]\neps_r = 2\nmu_r = 3\n"
    "[object.cyl]\nshape = circle\nmaterial = mag\ncenter_x = 40\ncenter_y = 36\n"
    "radius = 11\n";

static const char *TM_MU =
    "[grid]\nnx = 84\nny = 76\nsteps = 150\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 15\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.mag]\neps_r = 1\nmu_r = 4\n"
    "[material.both]\neps_r = 2.5\nmu_r = 1.5\n"
    "[object.cyl]\nshape = circle\nmaterial = mag\ncenter_x = 35.4\ncenter_y = 38\n"
    "radius = 10\n"
    "[object.rod]\nshape = circle\nmaterial = both\ncenter_x = 60\ncenter_y = 30\n"
    "radius = 6\n";

/* TM_MU with a conformal PEC cylinder touching the magnetic one's edges. */
static const char *TM_MU_CONFORMAL =
    "[grid]\nnx = 84\nny = 76\nsteps = 150\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "conformal_pec = true\n"
    "[source]\ntype = plane_wave\nangle = 15\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.mag]\neps_r = 1\nmu_r = 4\n"
    "[object.cyl]\nshape = circle\nmaterial = mag\ncenter_x = 35.4\ncenter_y = 38\n"
    "radius = 10\n"
    "[object.pec]\nshape = circle\nmaterial = pec\ncenter_x = 52.3\ncenter_y = 37.1\n"
    "radius = 7.4\n";

/* TM_MU with sigma and poles: a lossy magnetic cylinder, a Drude rod of
 * eps_inf 1 beside it and a Drude rod of mu_r 2 (dispersive cells' Ez
 * beside the H-node map's nodes). */
static const char *TM_MU_LOSSY_DISP =
    "[grid]\nnx = 84\nny = 76\nsteps = 150\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\nangle = 15\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.wetmag]\neps_r = 3\nmu_r = 2\nsigma = 0.12\n"
    "[material.metal]\neps_r = 1\ndrude = 1.2566370614359173e10 1.2566370614359173e9\n"
    "[material.magmetal]\neps_r = 1\nmu_r = 2\ndrude = 1.2566370614359173e10 1.2566370614359173e9\n"
    "[object.cyl]\nshape = circle\nmaterial = wetmag\ncenter_x = 32.4\ncenter_y = 38\n"
    "radius = 10\n"
    "[object.rod]\nshape = circle\nmaterial = metal\ncenter_x = 60\ncenter_y = 24\n"
    "radius = 6\n"
    "[object.rod2]\nshape = circle\nmaterial = magmetal\ncenter_x = 60\ncenter_y = 52\n"
    "radius = 6\n";

/* A TE PEC box with slots only (no CPML, Mur, point source): a scene that
 * without the H-node map would take gl's multi-step pass and gl-compute's
 * fused dispatch. */
static const char *TE_BOX =
    "[grid]\nnx = 80\nny = 64\nsteps = 140\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\nte_offdiagonal = false\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[material.mag]\neps_r = 2\nmu_r = 2\n"
    "[object.cyl]\nshape = circle\nmaterial = mag\ncenter_x = 30\ncenter_y = 32\n"
    "radius = 8\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 55\ncenter_y = 30\n"
    "width = 4\nheight = 20\n";

/* Dispersive cylinders (Debye, Lorentz, Drude poles; the disp pass of
 * docs/gl.md) under a plane wave in CPML grids, 1 GHz sine, 16 cells per
 * wavelength (dt = 31 ps): a Drude cylinder (omega_p dt = 0.31, Re eps =
 * -1.5 at f0); a Debye cylinder with sigma beside a PEC plate and a plain dielectric rod (slots
 * and dispersive cells in one E pass); a cylinder of two Lorentz poles and a
 * Drude pole beside a Debye rod (two dispersive materials of different pole
 * counts). */
static const char *DRUDE =
    "[grid]\nnx = 80\nny = 72\nsteps = 160\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 20\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 1\ndrude = 1e10 5e8\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 40.3\ncenter_y = 36.2\n"
    "radius = 10\n";

static const char *DEBYE =
    "[grid]\nnx = 84\nny = 72\nsteps = 160\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 2\ndebye = 6 1.6e-10\nsigma = 0.02\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 38\ncenter_y = 36\nradius = 11\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 62\ncenter_y = 36\n"
    "width = 3\nheight = 16\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 55\n"
    "center_y = 18\nradius = 4\n";

static const char *LORENTZ =
    "[grid]\nnx = 84\nny = 76\nsteps = 160\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 30\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 2\nlorentz = 3 9e9 6e8, 1.5 2e10 1e9\ndrude = 2e10 1e9\n"
    "[material.w]\neps_r = 2.5\ndebye = 4 1e-10\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 38.5\ncenter_y = 40\n"
    "radius = 10\n"
    "[object.rod]\nshape = circle\nmaterial = w\ncenter_x = 60\ncenter_y = 30\nradius = 5\n";

/* Smoothed dispersive cells ([grid] subpixel, the default: every cylinder
 * above is smoothed too): a Drude cylinder half over a lossy dielectric
 * rod, so that its boundary cells are mixtures of the Drude material with
 * vacuum and with the rod (eps_inf, sigma and omega_p^2 at the covered
 * fraction: dispersive materials of the table, one per level and material
 * under); and the DRUDE scene as a staircase (subpixel = false). */
static const char *DRUDE_SMOOTH =
    "[grid]\nnx = 64\nny = 60\nsteps = 150\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 25\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 1.5\ndrude = 2e10 1e9\n"
    "[material.d]\neps_r = 3\nsigma = 0.02\n"
    "[object.rod]\nshape = circle\nmaterial = d\ncenter_x = 38.4\ncenter_y = 30.3\n"
    "radius = 7.3\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 30.2\ncenter_y = 29.7\n"
    "radius = 8.6\n";

static const char *DRUDE_STAIRCASE =
    "[grid]\nnx = 80\nny = 72\nsteps = 160\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "subpixel = false\n"
    "[source]\ntype = plane_wave\nangle = 20\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 1\ndrude = 1e10 5e8\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 40.3\ncenter_y = 36.2\n"
    "radius = 10\n";

/* A dispersive PEC box (no CPML, Mur, point source): the multi-step pass and
 * the fused dispatch would take it without the disp pass. */
static const char *DRUDE_BOX =
    "[grid]\nnx = 72\nny = 64\nsteps = 150\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[material.m]\neps_r = 1.5\ndrude = 5e10 2e9\ndebye = 2 1e-10\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 30\ncenter_y = 32\nradius = 9\n";

static bool gpu_required(void)
{
    const char *v = getenv("TEXFDTD_REQUIRE_GPU");
    return v && !strcmp(v, "1");
}

static struct engine_options gl_options(enum denormals dn)
{
    struct engine_options o = {0};
    o.precision = PRECISION_SINGLE;
    o.denormals = dn;
    o.device = -1;
    o.shader_dir = NULL;
    return o;
}

/* Create a GL engine or skip/fail the test when no GL context exists. */
static struct engine *create_or_skip(const char *name, const struct model *m,
                                     const struct engine_options *o)
{
    char err[ERRLEN];
    struct engine *e = NULL;
    if (engine_create(name, m, o, &e, err, sizeof err)) {
        char why[ERRLEN];
        if (gl_probe(o->device, why, sizeof why) && !gpu_required())
            cr_skip_test("no OpenGL device here: %s", why);
        cr_assert_fail("%s", err);
    }
    return e;
}

static void step_ok(struct engine *e, int n)
{
    char err[ERRLEN];
    cr_assert_eq(engine_step(e, n, err, sizeof err), 0, "step: %s", err);
}

static float *read_ok(struct engine *e, enum field f)
{
    char err[ERRLEN];
    float *v = malloc(e->model->ncells * sizeof *v);
    cr_assert_eq(engine_read(e, f, v, err, sizeof err), 0, "read %s: %s", field_name(f), err);
    return v;
}

static double max_abs(const float *v, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m = fabs(v[k]) > m ? fabs(v[k]) : m;
    return m;
}

/* Run engine_step calls of the lengths in `parts` (0-terminated) through
 * `name` (requesting denormal mode `want`; want_k > 0: the engine must run
 * that many steps per fragment pass) and their total through the CPU engine
 * in the mode the GL engine reports; demand equal bits. */
static void agree_calls(const char *name, const char *scene, const int *parts,
                        enum denormals want, enum denormals *reported, int want_k)
{
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    const struct model *m = &t.model;
    const struct engine_options go = gl_options(want);
    struct engine *g = create_or_skip(name, m, &go);
    struct engine_info info;
    engine_describe(g, &info);
    cr_log_info("%s on %s: %s", name, info.device, info.detail);
    cr_assert_eq(info.precision, PRECISION_SINGLE);
    if (want_k)
        cr_assert_eq(gl_engine_steps_per_pass(g), want_k, "asked for %d steps per pass, got %d",
                     want_k, gl_engine_steps_per_pass(g));
    int steps = 0;
    for (int q = 0; parts[q]; q++) {
        step_ok(g, parts[q]);
        steps += parts[q];
    }
    cr_assert_eq(g->step, steps);
    /* TE: the arrays, and Hz, Ex, Ey read with their signs */
    const bool te = m->scene->te;
    const enum field tf[3] = {FIELD_HZ, FIELD_EX, FIELD_EY};
    float *gf[3], *gte[3] = {NULL, NULL, NULL};
    for (int k = 0; k < 3; k++) {
        gf[k] = read_ok(g, (enum field)k);
        if (te)
            gte[k] = read_ok(g, tf[k]);
    }
    engine_destroy(g);

    struct engine_options co = {0};
    co.precision = PRECISION_SINGLE;
    co.denormals = info.denormals;
    void *cf[3];
    char err[ERRLEN];
    cr_assert_eq(run_engine("cpu", m, &co, steps, cf, err, sizeof err), 0, "cpu: %s", err);

    /* the wave has reached the object: the scattered field on it is large */
    double on_object = 0;
    for (size_t k = 0; k < m->nslots; k++)
        on_object = fmax(on_object, fabs(((float *)cf[0])[m->slot_cell[k]]));
    for (size_t k = 0; k < m->ndisp; k++) /* dispersive cells: no slots */
        on_object = fmax(on_object, fabs(((float *)cf[0])[m->disp_cell[k]]));
    for (size_t k = 0; k < m->nhslots; k++) /* the H-node map's slots (TE edges, mu_r) */
        on_object = fmax(on_object, fabs(((float *)cf[1 + m->hslot[k] / m->ncells])
                                              [m->hslot[k] % m->ncells]));
    cr_assert_gt(on_object, 0.1, "the wave has not reached the object after %d steps", steps);
    cr_assert_gt(max_abs(cf[1], m->ncells), 0.1, "Hx is still ~0 after %d steps", steps);
    cr_assert_gt(max_abs(cf[2], m->ncells), 0.1, "Hy is still ~0 after %d steps", steps);

    for (int k = 0; k < 3; k++) {
        uint32_t ulp = 0;
        const size_t d = count_bit_differences(gf[k], cf[k], m->ncells, &ulp);
        cr_expect_eq(d, 0, "%s vs cpu (denormals %s), %s after %d steps: %zu of %zu values differ "
                           "(max %u ulp)",
                     name, denormals_name(info.denormals), field_name((enum field)k), steps, d,
                     m->ncells, ulp);
    }
    for (int k = 0; k < 3 && te; k++) {
        /* the cpu engine's TE read is the same arrays with the same signs */
        float *c = malloc(m->ncells * sizeof *c);
        for (size_t q = 0; q < m->ncells; q++)
            c[q] = k ? -((float *)cf[k])[q] : ((float *)cf[k])[q];
        uint32_t ulp = 0;
        cr_expect_eq(count_bit_differences(gte[k], c, m->ncells, &ulp), 0,
                     "%s: %s read differs (max %u ulp)", name, field_name(tf[k]), ulp);
        free(c);
    }
    for (int k = 0; k < 3; k++) {
        free(gf[k]);
        free(gte[k]);
    }
    free_fields(cf);
    setup_free(&t);
    if (reported)
        *reported = info.denormals;
}

/* Run `steps` through `name` in one call, as agree_calls. */
static void agree(const char *name, const char *scene, int steps, enum denormals want,
                  enum denormals *reported)
{
    const int parts[2] = {steps, 0};
    agree_calls(name, scene, parts, want, reported, 0);
}

Test(gl, square_equals_cpu) { agree("gl", SQUARE, 500, DENORMALS_FLUSH, NULL); }
Test(gl, circle_equals_cpu) { agree("gl", CIRCLE, 250, DENORMALS_FLUSH, NULL); }
Test(gl, dielectric_equals_cpu) { agree("gl", DIELECTRIC, 250, DENORMALS_FLUSH, NULL); }
Test(gl, oblique_equals_cpu) { agree("gl", OBLIQUE, 250, DENORMALS_FLUSH, NULL); }
Test(gl, lossy_cpml_equals_cpu) { agree("gl", LOSSY_CPML, 300, DENORMALS_FLUSH, NULL); }
Test(gl, lossy_mur_point_equals_cpu) { agree("gl", LOSSY_MUR, 250, DENORMALS_FLUSH, NULL); }
Test(gl, lossy_pec_multistep_equals_cpu) { agree("gl", LOSSY_PEC, 260, DENORMALS_FLUSH, NULL); }
Test(gl_compute, lossy_pec_fused_equals_cpu)
{
    agree("gl-compute", LOSSY_PEC, 260, DENORMALS_FLUSH, NULL);
}
Test(gl_compute, lossy_cpml_equals_cpu)
{
    agree("gl-compute", LOSSY_CPML, 300, DENORMALS_FLUSH, NULL);
}
Test(gl_compute, lossy_cpml_keep_equals_cpu)
{
    agree("gl-compute", LOSSY_CPML, 300, DENORMALS_KEEP, NULL);
}
Test(gl_compute, lossy_mur_point_equals_cpu)
{
    agree("gl-compute", LOSSY_MUR, 250, DENORMALS_FLUSH, NULL);
}

Test(gl_compute, square_equals_cpu) { agree("gl-compute", SQUARE, 500, DENORMALS_FLUSH, NULL); }
Test(gl_compute, circle_equals_cpu) { agree("gl-compute", CIRCLE, 250, DENORMALS_FLUSH, NULL); }
Test(gl_compute, dielectric_equals_cpu)
{
    agree("gl-compute", DIELECTRIC, 250, DENORMALS_FLUSH, NULL);
}
Test(gl_compute, oblique_equals_cpu) { agree("gl-compute", OBLIQUE, 250, DENORMALS_FLUSH, NULL); }

/* The H-node map (TE, mu_r): both engines equal the cpu engine bit for bit
 * (docs/gl.md, "The H-node map"). */
Test(gl, te_pec_cpml_equals_cpu) { agree("gl", TE_PEC, 150, DENORMALS_FLUSH, NULL); }
Test(gl_compute, te_pec_cpml_equals_cpu)
{
    agree("gl-compute", TE_PEC, 150, DENORMALS_FLUSH, NULL);
}
Test(gl, te_dielectric_subpixel_equals_cpu) { agree("gl", TE_DIEL, 150, DENORMALS_FLUSH, NULL); }
Test(gl_compute, te_dielectric_subpixel_equals_cpu)
{
    agree("gl-compute", TE_DIEL, 150, DENORMALS_FLUSH, NULL);
}
Test(gl, te_dielectric_mur_point_equals_cpu)
{
    agree("gl", TE_DIEL_MUR, 140, DENORMALS_FLUSH, NULL);
}
Test(gl_compute, te_dielectric_mur_point_equals_cpu)
{
    agree("gl-compute", TE_DIEL_MUR, 140, DENORMALS_FLUSH, NULL);
}
Test(gl, te_mu_equals_cpu) { agree("gl", TE_MU, 150, DENORMALS_FLUSH, NULL); }
Test(gl_compute, te_mu_equals_cpu) { agree("gl-compute", TE_MU, 150, DENORMALS_FLUSH, NULL); }
Test(gl, tm_mu_equals_cpu) { agree("gl", TM_MU, 150, DENORMALS_FLUSH, NULL); }
Test(gl_compute, tm_mu_equals_cpu) { agree("gl-compute", TM_MU, 150, DENORMALS_FLUSH, NULL); }
Test(gl, tm_mu_conformal_equals_cpu) { agree("gl", TM_MU_CONFORMAL, 150, DENORMALS_FLUSH, NULL); }
Test(gl_compute, tm_mu_conformal_equals_cpu)
{
    agree("gl-compute", TM_MU_CONFORMAL, 150, DENORMALS_FLUSH, NULL);
}

Test(gl, tm_mu_lossy_drude_equals_cpu) { agree("gl", TM_MU_LOSSY_DISP, 150, DENORMALS_FLUSH, NULL); }
Test(gl_compute, tm_mu_lossy_drude_equals_cpu)
{
    agree("gl-compute", TM_MU_LOSSY_DISP, 150, DENORMALS_FLUSH, NULL);
}

/* A scene with the H-node map never takes the multi-step pass or the fused
 * dispatch (update_k.frag and update_he.comp know no H map): asked for 2
 * steps per pass and fused, in small batches of odd length, both engines
 * still equal the cpu engine, and say they run one step per pass. */
Test(gl, hmap_multistep_batches_equal_cpu)
{
    setenv("TEXFDTD_GL_STEPS_PER_PASS", "2", 1);
    setenv("TEXFDTD_GL_FUSED", "1", 1);
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    agree("gl", TE_BOX, 140, DENORMALS_FLUSH, NULL);
    agree("gl-compute", TE_BOX, 140, DENORMALS_FLUSH, NULL);
    struct test_setup t;
    setup_from_text(&t, TE_BOX, NULL, 0);
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    const char *names[2] = {"gl", "gl-compute"};
    const char *want[2] = {"two fragment passes per step", "two compute dispatches per step"};
    for (int k = 0; k < 2; k++) {
        struct engine *e = create_or_skip(names[k], &t.model, &o);
        struct engine_info info;
        engine_describe(e, &info);
        cr_expect(strstr(info.detail, want[k]) && strstr(info.detail, "H-node-map"), "%s: %s",
                  names[k], info.detail);
        engine_destroy(e);
    }
    setup_free(&t);
}

/* Dispersive cylinders: both engines equal the cpu engine bit for bit (the
 * disp pass, docs/gl.md "Dispersive poles"), in batches of 5 steps. */
static void disp_agree(const char *name, const char *scene)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "5", 1);
    agree(name, scene, 160, DENORMALS_FLUSH, NULL);
}
Test(gl, drude_cylinder_equals_cpu) { disp_agree("gl", DRUDE); }
Test(gl_compute, drude_cylinder_equals_cpu) { disp_agree("gl-compute", DRUDE); }
Test(gl, drude_staircase_equals_cpu) { disp_agree("gl", DRUDE_STAIRCASE); }
Test(gl_compute, drude_staircase_equals_cpu) { disp_agree("gl-compute", DRUDE_STAIRCASE); }

/* The smoothed Drude cylinder over a lossy rod: the model holds mixtures
 * of the Drude material over vacuum and over the rod (dtable -1, the rod's
 * sigma in them), and both engines equal the cpu engine bit for bit. */
static void smooth_agree(const char *name)
{
    struct test_setup t;
    setup_from_text(&t, DRUDE_SMOOTH, NULL, 0);
    int mixed = 0, over_rod = 0;
    for (int k = 0; k < t.model.nmats; k++) {
        const struct material *q = &t.model.mats[k];
        mixed += q->dcoef && q->dtable == -1;
        over_rod += q->dcoef && q->dtable == -1 && q->sigma > 0;
    }
    cr_assert(mixed > 20 && over_rod > 5, "%d mixtures, %d over the rod", mixed, over_rod);
    setup_free(&t);
    disp_agree(name, DRUDE_SMOOTH);
}
Test(gl, drude_smoothed_over_lossy_rod_equals_cpu) { smooth_agree("gl"); }
Test(gl_compute, drude_smoothed_over_lossy_rod_equals_cpu) { smooth_agree("gl-compute"); }
Test(gl, debye_cylinder_equals_cpu) { disp_agree("gl", DEBYE); }
Test(gl_compute, debye_cylinder_equals_cpu) { disp_agree("gl-compute", DEBYE); }
Test(gl, lorentz_cylinder_equals_cpu) { disp_agree("gl", LORENTZ); }
Test(gl_compute, lorentz_cylinder_equals_cpu) { disp_agree("gl-compute", LORENTZ); }

/* Denormals kept (Mesa's compute shaders keep them; elsewhere the engine
 * says flush and is compared in flush): the H-node map and the disp pass
 * without the GLSL flush emulation. */
Test(gl_compute, materials_keep_mode_equal_cpu)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "5", 1);
    agree("gl-compute", TE_DIEL, 150, DENORMALS_KEEP, NULL);
    agree("gl-compute", DRUDE, 160, DENORMALS_KEEP, NULL);
}

/* The state in rows of 13 cells (a layout of many rows, the last one
 * partly filled), both engines. */
Test(gl, lorentz_state_rows_equal_cpu)
{
    setenv("TEXFDTD_GL_DISP_ROW_CELLS", "13", 1);
    struct test_setup t;
    setup_from_text(&t, LORENTZ, NULL, 0);
    cr_assert(t.model.ndisp > 5 * 13 && t.model.ndisp % 13 != 0, "%zu cells", t.model.ndisp);
    setup_free(&t);
    disp_agree("gl", LORENTZ);
    disp_agree("gl-compute", LORENTZ);
}

/* A dispersive PEC box asked for 2 steps per pass and fused, in batches of
 * 7: one step per pass, the cpu engine's bits. */
Test(gl, disp_multistep_batches_equal_cpu)
{
    setenv("TEXFDTD_GL_STEPS_PER_PASS", "2", 1);
    setenv("TEXFDTD_GL_FUSED", "1", 1);
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    agree("gl", DRUDE_BOX, 150, DENORMALS_FLUSH, NULL);
    agree("gl-compute", DRUDE_BOX, 150, DENORMALS_FLUSH, NULL);
}

/* The multi-step fragment pass (k steps per pass, each fragment recomputing
 * its dependency cone) gives the bits of the one-step passes and the other
 * way round, whichever is the device's default, also for batches of odd
 * length (a last single step). */
Test(gl, steps_per_pass_1_and_2_equal_cpu)
{
    const char *ks[2] = {"1", "2"};
    setenv("TEXFDTD_GL_BATCH_STEPS", "51", 1);
    for (int k = 0; k < 2; k++) {
        setenv("TEXFDTD_GL_STEPS_PER_PASS", ks[k], 1);
        agree("gl", OBLIQUE, 250, DENORMALS_FLUSH, NULL);
        agree("gl", DIELECTRIC, 250, DENORMALS_FLUSH, NULL);
    }
}

/* `gl` at k steps per pass (TEXFDTD_GL_STEPS_PER_PASS) against the cpu
 * engine: Ez, Hx and Hy bit for bit after engine_step calls of the lengths
 * in parts (0-terminated), each cut across passes where it is not a multiple
 * of k, in fenced batches of `batch` steps (0: the adaptive batches, whole
 * passes).  The engine must really run k steps per pass. */
static void agree_k(int k, const char *scene, const int *parts, int batch)
{
    char ks[16], bs[16];
    snprintf(ks, sizeof ks, "%d", k);
    setenv("TEXFDTD_GL_STEPS_PER_PASS", ks, 1);
    if (batch) {
        snprintf(bs, sizeof bs, "%d", batch);
        setenv("TEXFDTD_GL_BATCH_STEPS", bs, 1);
    } else {
        unsetenv("TEXFDTD_GL_BATCH_STEPS");
    }
    agree_calls("gl", scene, parts, DENORMALS_FLUSH, NULL, k);
}

/* k = 3 .. 6 (the generated straight-line fast path of gl/kgen.c in the
 * vacuum, the border path's loops at the grid edges and around the objects):
 * the oblique wave on a PEC square and a dielectric rod, 250 steps in calls
 * of 1, 37, 100 and 112 steps (no multiple of 3, 4, 5 or 6 but 100 of 4 and
 * 5), in fenced batches of 50 steps (a batch ends inside a pass: its last
 * steps run as one-step passes) and in the adaptive ones. */
Test(gl, steps_per_pass_3_to_6_equal_cpu)
{
    const int parts[5] = {1, 37, 100, 112, 0};
    for (int k = 3; k <= 6; k++) {
        agree_k(k, OBLIQUE, parts, 50);
        agree_k(k, OBLIQUE, parts, 0);
    }
}

/* The fast path with its inputs gathered (TEXFDTD_GL_KPASS_GATHER=1: four
 * texels a textureGatherOffset) gives the same bits, k = 2, 4 and 6. */
Test(gl, steps_per_pass_gathered_equal_cpu)
{
    const int parts[5] = {1, 37, 100, 112, 0};
    setenv("TEXFDTD_GL_KPASS_GATHER", "1", 1);
    for (int k = 2; k <= 6; k += 2)
        agree_k(k, OBLIQUE, parts, 0);
}

/* Lossy objects (LOSSY: the vacuum fast path's ez_curl takes ca[0] too) and
 * a PEC plate at k = 3 and 5, one call of 260 steps. */
Test(gl, steps_per_pass_lossy_equal_cpu)
{
    const int parts[2] = {260, 0};
    agree_k(3, LOSSY_PEC, parts, 0);
    agree_k(5, LOSSY_PEC, parts, 0);
}

/* A grid barely wider than the cone (every fragment on the border path at
 * k = 6) and a square scene cut into calls of 7 steps: k = 4 and 6. */
Test(gl, steps_per_pass_small_grid_equal_cpu)
{
    static const char *NARROW =
        "[grid]\nnx = 40\nny = 24\nsteps = 200\ncourant = 0.5\ncells_per_wavelength = 12\n"
        "[source]\ntype = plane_wave\nangle = 45\n"
        "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 20\n"
        "center_y = 12\nradius = 4\n";
    int parts[40];
    for (int q = 0; q < 39; q++)
        parts[q] = 7;
    parts[39] = 0;
    agree_k(4, NARROW, parts, 0);
    agree_k(6, NARROW, parts, 0);
    agree_k(6, NARROW, parts, 9);
}

/* The generated fast path of k steps computes exactly the cone worked out
 * by hand in docs/gl.md: Ez^{n+s} is needed on the diamond |a| + |b| <= r,
 * r = k - s (2r^2 + 2r + 1 cells: the 5-point stencil of Ez through H),
 * Hx^{n+s-1/2} on that diamond and the one a row below (2(r+1)^2 cells), Hy
 * likewise a column to the left; 5 operations an Ez, 3 an H.  The inputs:
 * the Ez texels of the diamond of radius k and the H texels of the union of
 * the two shifted diamonds of radius k - 1, k(2k + 1). */
Test(gl, kpass_cost_counts_the_cone)
{
    double flops, texels;
    char err[ERRLEN];
    cr_assert_eq(gl_kpass_cost(1, &flops, &texels, err, sizeof err), 0, "%s", err);
    cr_expect_eq(flops, 11.0); /* the one-step passes: H 2 x 3, E 5 */
    for (int k = 2; k <= 8; k++) {
        double f = 0;
        for (int r = 0; r < k; r++)
            f += 5.0 * (2 * r * r + 2 * r + 1) + 3.0 * 2 * (2 * (r + 1) * (r + 1));
        const double t = (2.0 * k * k + 2 * k + 1) + k * (2.0 * k + 1);
        cr_assert_eq(gl_kpass_cost(k, &flops, &texels, err, sizeof err), 0, "%s", err);
        cr_expect_eq(flops * k, f, "k = %d: %g flops a fragment, by hand %g", k, flops * k, f);
        cr_expect_eq(texels * k, t, "k = %d: %g texels a fragment, by hand %g", k, texels * k, t);
        cr_log_info("k = %d: %.1f flops, %.1f texels per cell and step", k, flops, texels);
    }
    cr_expect_neq(gl_kpass_cost(9, &flops, &texels, err, sizeof err), 0);
}

/* TEXFDTD_GL_STEPS_PER_PASS=auto times k = 1 .. 6 on the grid at create and
 * keeps the fastest; the fields it scribbled on are cleared again, so the
 * run still gives the cpu's bits. */
Test(gl, steps_per_pass_auto_equals_cpu)
{
    setenv("TEXFDTD_GL_STEPS_PER_PASS", "auto", 1);
    agree("gl", OBLIQUE, 250, DENORMALS_FLUSH, NULL);
}

/* A bad TEXFDTD_GL_STEPS_PER_PASS is refused with the range, not clamped. */
Test(gl, steps_per_pass_out_of_range_is_refused)
{
    struct test_setup t;
    setup_from_text(&t, SQUARE, NULL, 0);
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    char err[ERRLEN];
    struct engine *e = NULL;
    setenv("TEXFDTD_GL_STEPS_PER_PASS", "0", 1);
    const int rc = engine_create("gl", &t.model, &o, &e, err, sizeof err);
    char why[ERRLEN];
    if (rc && gl_probe(o.device, why, sizeof why) && !gpu_required())
        cr_skip_test("no OpenGL device here: %s", why);
    cr_assert_neq(rc, 0, "k = 0 was accepted");
    cr_expect(strstr(err, "expected 1 .. 8 or auto") != NULL, "%s", err);
    setenv("TEXFDTD_GL_STEPS_PER_PASS", "3x", 1);
    cr_assert_neq(engine_create("gl", &t.model, &o, &e, err, sizeof err), 0, "3x was accepted");
    setup_free(&t);
}

/* A shader build that takes longer than TEXFDTD_GL_COMPILE_TIMEOUT_S is
 * refused with that said (the withdrawn k > 2 shader kept the H100 driver
 * compiling, docs/performance.md), never waited for silently: a timeout no
 * compile can meet. */
Test(gl, compile_timeout_is_reported)
{
    setenv("TEXFDTD_GL_STEPS_PER_PASS", "6", 1);
    setenv("TEXFDTD_GL_COMPILE_TIMEOUT_S", "0.000001", 1);
    struct test_setup t;
    setup_from_text(&t, SQUARE, NULL, 0);
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    char err[ERRLEN], why[ERRLEN];
    struct engine *e = NULL;
    const int rc = engine_create("gl", &t.model, &o, &e, err, sizeof err);
    if (rc && gl_probe(o.device, why, sizeof why) && !gpu_required())
        cr_skip_test("no OpenGL device here: %s", why);
    cr_assert_neq(rc, 0, "a build past its timeout was accepted");
    cr_expect(strstr(err, "TEXFDTD_GL_COMPILE_TIMEOUT_S") != NULL, "%s", err);
    cr_log_info("%s", err);
    setup_free(&t);
}

/* gl-compute runs fused (one dispatch per step) by default; the two-dispatch
 * variant must give the same bits too. */
Test(gl_compute, two_dispatches_equal_cpu)
{
    setenv("TEXFDTD_GL_FUSED", "0", 1);
    agree("gl-compute", OBLIQUE, 250, DENORMALS_FLUSH, NULL);
    agree("gl-compute", DIELECTRIC, 250, DENORMALS_FLUSH, NULL);
}

/* Asked for flush, both engines must deliver flush (in hardware or in GLSL). */
Test(gl, reports_flush_when_asked)
{
    struct test_setup t;
    setup_from_text(&t, CIRCLE, NULL, 0);
    const char *names[2] = {"gl", "gl-compute"};
    for (int k = 0; k < 2; k++) {
        const struct engine_options o = gl_options(DENORMALS_FLUSH);
        struct engine *e = create_or_skip(names[k], &t.model, &o);
        struct engine_info info;
        engine_describe(e, &info);
        cr_expect_eq(info.denormals, DENORMALS_FLUSH, "%s: %s", names[k], info.detail);
        cr_expect(strstr(info.detail, "denormals flush") != NULL, "%s", info.detail);
        engine_destroy(e);
    }
    setup_free(&t);
}

/* Asked for keep: where the driver keeps denormals (Mesa compute) the engine
 * runs in keep mode and equals the CPU engine without FTZ/DAZ; where it
 * flushes, it says so and equals the CPU engine with them. */
Test(gl_compute, keep_mode_equals_cpu)
{
    enum denormals got;
    agree("gl-compute", DIELECTRIC, 250, DENORMALS_KEEP, &got);
    cr_log_info("gl-compute asked for keep runs with %s", denormals_name(got));
}

/* The bit-identity tests above are only as strong as their sensitivity: in
 * these scenes the CPU engine's two denormal modes give different bits. */
Test(gl, scenes_are_denormal_sensitive)
{
    const char *scenes[4] = {SQUARE, CIRCLE, DIELECTRIC, OBLIQUE};
    const int steps[4] = {500, 250, 250, 250};
    for (int s = 0; s < 4; s++) {
        struct test_setup t;
        setup_from_text(&t, scenes[s], NULL, 0);
        void *a[3], *b[3];
        char err[ERRLEN];
        struct engine_options o = {0};
        o.precision = PRECISION_SINGLE;
        o.denormals = DENORMALS_FLUSH;
        cr_assert_eq(run_engine("cpu", &t.model, &o, steps[s], a, err, sizeof err), 0, "%s", err);
        o.denormals = DENORMALS_KEEP;
        cr_assert_eq(run_engine("cpu", &t.model, &o, steps[s], b, err, sizeof err), 0, "%s", err);
        uint32_t ulp;
        size_t d = 0;
        for (int k = 0; k < 3; k++)
            d += count_bit_differences(a[k], b[k], t.model.ncells, &ulp);
        cr_log_info("scene %d: %zu values differ between flush and keep", s, d);
        cr_expect_gt(d, 0, "scene %d: flush and keep give the same bits", s);
        free_fields(a);
        free_fields(b);
        setup_free(&t);
    }
}

/* Many small fenced batches (two in flight, slot buffers used in turn) give
 * the same bits as the CPU: exercises the batch boundaries. */
Test(gl, small_batches_equal_cpu)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    agree("gl", OBLIQUE, 250, DENORMALS_FLUSH, NULL);
    agree("gl-compute", OBLIQUE, 250, DENORMALS_FLUSH, NULL);
}

/* Several step() calls of odd lengths equal one run of the same total. */
Test(gl, split_steps_equal_cpu)
{
    struct test_setup t;
    setup_from_text(&t, DIELECTRIC, NULL, 0);
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    struct engine *g = create_or_skip("gl", &t.model, &o);
    const int parts[4] = {1, 37, 100, 162};
    for (int k = 0; k < 4; k++)
        step_ok(g, parts[k]);
    cr_assert_eq(g->step, 300);
    float *ez = read_ok(g, FIELD_EZ);
    struct engine_info info;
    engine_describe(g, &info);
    engine_destroy(g);
    struct engine_options co = {0};
    co.denormals = info.denormals;
    void *cf[3];
    char err[ERRLEN];
    cr_assert_eq(run_engine("cpu", &t.model, &co, 300, cf, err, sizeof err), 0, "%s", err);
    uint32_t ulp;
    cr_expect_eq(count_bit_differences(ez, cf[0], t.model.ncells, &ulp), 0, "max %u ulp", ulp);
    free(ez);
    free_fields(cf);
    setup_free(&t);
}

static void copy_file(const char *from, const char *to, int break_line)
{
    FILE *in = fopen(from, "r"), *out = fopen(to, "w");
    cr_assert(in && out, "copy %s -> %s", from, to);
    char line[4096];
    for (int n = 1; fgets(line, sizeof line, in); n++) {
        if (n == break_line)
            fputs("    this_is_not_glsl = 1;\n", out);
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
}

/* The first line of `path` that starts with `prefix`, or 0. */
static int line_starting(const char *path, const char *prefix)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s: run the tests from the repository root", path);
    char line[4096];
    int found = 0;
    for (int n = 1; !found && fgets(line, sizeof line, f); n++)
        if (!strncmp(line, prefix, strlen(prefix)))
            found = n;
    fclose(f);
    cr_assert_gt(found, 0, "no line starting with '%s' in %s", prefix, path);
    return found;
}

/* Create the gl engine with the shaders of `dir` and expect it to fail
 * (skips where there is no OpenGL device); the error goes to err. */
static void gl_create_fails(const char *dir, char *err, size_t errlen)
{
    struct test_setup t;
    setup_from_text(&t, CIRCLE, NULL, 0);
    struct engine_options o = gl_options(DENORMALS_FLUSH);
    o.shader_dir = dir;
    struct engine *e = NULL;
    const int rc = engine_create("gl", &t.model, &o, &e, err, errlen);
    if (rc && gl_probe(-1, NULL, 0) && !gpu_required())
        cr_skip_test("no OpenGL device here");
    cr_assert_neq(rc, 0, "the shaders of %s were accepted", dir);
    setup_free(&t);
}

/* Copy the shaders the gl engine needs into a fresh directory, in the
 * installed layout (core/yee.h beside the shaders, as make install puts it)
 * or the source tree's (root/shaders and root/core/yee.h), with a line that
 * is not GLSL inserted before line `bad` of the file `broken` (a name in
 * shaders/, or core/yee.h); then create the gl engine from that directory
 * and expect its error to name `broken` at line `bad`, as `want_path`:bad. */
static void expect_compile_error(bool installed, const char *broken, int bad)
{
    char root[] = "/tmp/texfdtd-shaders-XXXXXX";
    cr_assert(mkdtemp(root));
    char dir[256], core[256], from[256], to[512];
    snprintf(dir, sizeof dir, installed ? "%s" : "%s/shaders", root);
    snprintf(core, sizeof core, installed ? "%s" : "%s/core", root);
    if (!installed) {
        cr_assert_eq(mkdir(dir, 0755), 0);
        cr_assert_eq(mkdir(core, 0755), 0);
    }
    const char *files[] = {"update2d.glsl", "yee_prelude.glsl", "fullscreen.vert",
                           "update_h.frag", "update_e.frag", "update_h.comp",
                           "update_e.comp", "probe_denormals.frag", "probe_denormals.comp",
                           "core/yee.h"};
    const size_t nfiles = sizeof files / sizeof files[0];
    for (size_t k = 0; k < nfiles; k++) {
        const bool h = !strcmp(files[k], "core/yee.h");
        snprintf(from, sizeof from, h ? "%s" : "shaders/%s", files[k]);
        snprintf(to, sizeof to, "%s/%s", h ? core : dir, h ? "yee.h" : files[k]);
        copy_file(from, to, strcmp(files[k], broken) ? 0 : bad);
    }
    char err[ERRLEN];
    gl_create_fails(dir, err, sizeof err);
    char want[600];
    if (!strcmp(broken, "core/yee.h"))
        snprintf(want, sizeof want, installed ? "%s/yee.h:%d:" : "%s/../core/yee.h:%d:", dir, bad);
    else
        snprintf(want, sizeof want, "%s/%s:%d:", dir, broken, bad);
    cr_expect(strstr(err, want) != NULL, "expected '%s' in: %s", want, err);
    cr_log_info("%s", err);
    for (size_t k = 0; k < nfiles; k++) {
        const bool h = !strcmp(files[k], "core/yee.h");
        snprintf(to, sizeof to, "%s/%s", h ? core : dir, h ? "yee.h" : files[k]);
        unlink(to);
    }
    if (!installed) {
        rmdir(dir);
        rmdir(core);
    }
    rmdir(root);
}

/* A compile error names the file and line of the broken shader, in an
 * installed shader directory (which holds core/yee.h itself). */
Test(gl, shader_error_names_file_and_line)
{
    /* inside main(), after the opening brace */
    expect_compile_error(true, "update_e.frag",
                         line_starting("shaders/update_e.frag", "void main") + 2);
}

/* An error in the library after its #include lines names the library line
 * (the spliced files do not shift it). */
Test(gl, shader_error_after_include_names_library_line)
{
    expect_compile_error(true, "update2d.glsl",
                         line_starting("shaders/update2d.glsl", "uniform float ch;"));
}

/* An error in the shared arithmetic names core/yee.h and its line: found
 * beside the shaders (installed) or in ../core (the source tree). */
Test(gl, shader_error_in_yee_h_installed)
{
    expect_compile_error(true, "core/yee.h", line_starting("core/yee.h", "    Y_LET r = Y_SUB(a, b);"));
}

Test(gl, shader_error_in_yee_h_source_tree)
{
    expect_compile_error(false, "core/yee.h", line_starting("core/yee.h", "    Y_LET r = Y_SUB(a, b);"));
}

/* A shader directory without core/yee.h (neither beside the shaders nor in
 * ../core) is refused with the include line and both places looked in. */
Test(gl, missing_yee_h_is_reported)
{
    char root[] = "/tmp/texfdtd-shaders-XXXXXX";
    cr_assert(mkdtemp(root));
    char dir[256], from[256], to[512];
    snprintf(dir, sizeof dir, "%s/shaders", root);
    cr_assert_eq(mkdir(dir, 0755), 0);
    const char *files[] = {"update2d.glsl", "yee_prelude.glsl", "fullscreen.vert",
                           "update_h.frag", "update_e.frag", "probe_denormals.frag",
                           "probe_denormals.comp"};
    const size_t nfiles = sizeof files / sizeof files[0];
    for (size_t k = 0; k < nfiles; k++) {
        snprintf(from, sizeof from, "shaders/%s", files[k]);
        snprintf(to, sizeof to, "%s/%s", dir, files[k]);
        copy_file(from, to, 0);
    }
    char err[ERRLEN];
    gl_create_fails(dir, err, sizeof err);
    char want[1024];
    snprintf(want, sizeof want, "%s/update2d.glsl:%d: cannot find yee.h in %s or %s/../core", dir,
             line_starting("shaders/update2d.glsl", "#include \"yee.h\""), dir, dir);
    cr_expect(strstr(err, want) != NULL, "expected '%s' in: %s", want, err);
    for (size_t k = 0; k < nfiles; k++) {
        snprintf(to, sizeof to, "%s/%s", dir, files[k]);
        unlink(to);
    }
    rmdir(dir);
    rmdir(root);
}

/* A missing shader directory is reported with the path. */
Test(gl, missing_shader_dir_is_reported)
{
    struct test_setup t;
    setup_from_text(&t, CIRCLE, NULL, 0);
    struct engine_options o = gl_options(DENORMALS_FLUSH);
    o.shader_dir = "/nonexistent/texfdtd-shaders";
    struct engine *e = NULL;
    char err[ERRLEN];
    const int rc = engine_create("gl-compute", &t.model, &o, &e, err, sizeof err);
    if (rc && gl_probe(-1, NULL, 0) && !gpu_required())
        cr_skip_test("no OpenGL device here");
    cr_assert_neq(rc, 0);
    cr_expect(strstr(err, "/nonexistent/texfdtd-shaders/") != NULL, "%s", err);
    setup_free(&t);
}

/* A grid wider than GL_MAX_TEXTURE_SIZE is refused at creation, with the
 * numbers, before anything is allocated or run. */
Test(gl, too_large_grid_is_refused)
{
    struct test_setup t;
    setup_from_text(&t,
                    "[grid]\nnx = 40000\nny = 8\nsteps = 10\n"
                    "[object.o]\nshape = rectangle\nmaterial = pec\ncenter_x = 20\n"
                    "center_y = 4\nwidth = 2\nheight = 2\n",
                    NULL, 0);
    const char *names[2] = {"gl", "gl-compute"};
    for (int k = 0; k < 2; k++) {
        struct engine_options o = gl_options(DENORMALS_FLUSH);
        struct engine *e = NULL;
        char err[ERRLEN];
        const int rc = engine_create(names[k], &t.model, &o, &e, err, sizeof err);
        if (rc && gl_probe(-1, NULL, 0) && !gpu_required())
            cr_skip_test("no OpenGL device here");
        cr_assert_neq(rc, 0, "%s accepted a 40000-wide grid", names[k]);
        cr_expect(strstr(err, "GL_MAX_TEXTURE_SIZE") && strstr(err, "40000")
                      && strstr(err, "nothing was run"),
                  "%s", err);
        cr_expect(!strncmp(err, names[k], strlen(names[k])), "%s", err);
    }
    setup_free(&t);
}

Test(gl, double_precision_is_refused)
{
    struct test_setup t;
    setup_from_text(&t, CIRCLE, NULL, 0);
    struct engine_options o = gl_options(DENORMALS_FLUSH);
    o.precision = PRECISION_DOUBLE;
    struct engine *e = NULL;
    char err[ERRLEN];
    cr_assert_neq(engine_create("gl", &t.model, &o, &e, err, sizeof err), 0);
    cr_expect(strstr(err, "single precision") != NULL, "%s", err);
    setup_free(&t);
}

Test(gl, missing_device_is_refused)
{
    struct test_setup t;
    setup_from_text(&t, CIRCLE, NULL, 0);
    struct engine_options o = gl_options(DENORMALS_FLUSH);
    o.device = 99;
    struct engine *e = NULL;
    char err[ERRLEN];
    cr_assert_neq(engine_create("gl", &t.model, &o, &e, err, sizeof err), 0);
    cr_expect(strstr(err, "no EGL device 99") != NULL, "%s", err);
    setup_free(&t);
}

/* A fence that does not signal in time is an error, never a silent result:
 * one huge batch of `steps` against a tiny timeout, at k steps per pass
 * (NULL: the device's default). */
static void fence_timeout_case(const char *k, const char *steps)
{
    if (k)
        setenv("TEXFDTD_GL_STEPS_PER_PASS", k, 1);
    setenv("TEXFDTD_GL_BATCH_STEPS", steps, 1);
    setenv("TEXFDTD_GL_FENCE_TIMEOUT_S", "0.000001", 1);
    struct test_setup t;
    setup_from_text(&t, SQUARE, NULL, 0);
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    struct engine *g = create_or_skip("gl", &t.model, &o);
    char err[ERRLEN];
    cr_assert_neq(engine_step(g, atoi(steps), err, sizeof err), 0, "a timed-out batch was accepted");
    cr_expect(strstr(err, "did not finish within") != NULL, "%s", err);
    cr_log_info("%s", err);
    /* and the engine refuses to go on or hand out fields */
    cr_expect_neq(engine_step(g, 1, err, sizeof err), 0);
    float *v = malloc(t.model.ncells * sizeof *v);
    cr_expect_neq(engine_read(g, FIELD_EZ, v, err, sizeof err), 0);
    free(v);
    engine_destroy(g);
    setup_free(&t);
}

Test(gl, fence_timeout_is_reported) { fence_timeout_case(NULL, "1000"); }

/* The same for a batch of k-step passes. */
Test(gl, steps_per_pass_fence_timeout_is_reported) { fence_timeout_case("5", "500"); }

/* The picture pass: the same colours as the host colouring of the CPU field,
 * except where the incident wave, evaluated in float on the GPU rather than
 * in double, moves a channel by a level or two. */
Test(gl, picture_matches_host_colouring)
{
    struct test_setup t;
    setup_from_text(&t, DIELECTRIC, NULL, 0);
    const struct model *m = &t.model;
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    struct engine *g = create_or_skip("gl", m, &o);
    step_ok(g, 300);
    uint8_t *a = malloc(4 * m->ncells), *b = malloc(4 * m->ncells);
    char err[ERRLEN];
    cr_assert_not_null(g->ops->render_rgba);
    cr_assert_eq(g->ops->render_rgba(g, a, err, sizeof err), 0, "%s", err);
    float *ez = read_ok(g, FIELD_EZ);
    colormap_total_field(m, ez, 0, 300, 0, b);
    size_t off = 0;
    int worst = 0;
    for (size_t k = 0; k < 4 * m->ncells; k++) {
        const int d = abs((int)a[k] - (int)b[k]);
        off += d > 0;
        worst = d > worst ? d : worst;
    }
    cr_expect_leq(worst, 3, "a channel differs by %d levels", worst);
    cr_expect_lt(off, m->ncells / 50, "%zu channels differ", off);
    free(a);
    free(b);
    free(ez);
    engine_destroy(g);
    setup_free(&t);
}

/* Scenes colormap.frag does not draw (a point source: no incident wave;
 * a pulsed plane wave): the engine's picture colours the field read back
 * on the host, so it is the host colouring exactly.  (The pass added
 * a sine plane wave to a point source's field: 119 levels off.) */
Test(gl, picture_of_point_source_and_pulse_is_the_host_colouring)
{
    const char *sets[2][4] = {{"source.type=point", "source.angle=", "source.center_x=20",
                               "source.center_y=30"},
                              {"source.waveform=gaussian", "source.bandwidth=0.5", "source.angle=10",
                               "source.amplitude=1"}};
    for (int q = 0; q < 2; q++) {
        struct test_setup t;
        setup_from_text(&t, DIELECTRIC, sets[q], 4);
        const struct model *m = &t.model;
        const struct engine_options o = gl_options(DENORMALS_FLUSH);
        struct engine *g = create_or_skip("gl", m, &o);
        step_ok(g, 120);
        uint8_t *a = malloc(4 * m->ncells), *b = malloc(4 * m->ncells);
        char err[ERRLEN];
        cr_assert_eq(render_total_field(g, a, err, sizeof err), 0, "%s", err);
        float *ez = read_ok(g, FIELD_EZ);
        colormap_total_field(m, ez, 0, 120, 0, b);
        cr_expect(!memcmp(a, b, 4 * m->ncells), "%s: the picture is not the host colouring",
                  sets[q][0]);
        free(a);
        free(b);
        free(ez);
        engine_destroy(g);
        setup_free(&t);
    }
}

Test(gl, devices_are_listed)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    char err[ERRLEN];
    const int rc = gl_print_devices(f, err, sizeof err);
    fclose(f);
    if (rc && !gpu_required())
        cr_skip_test("no OpenGL device here: %s", err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_expect(strstr(buf, "CUDA device") && strstr(buf, "renderer"), "%s", buf);
    cr_log_info("%s", buf);
    free(buf);
    cr_expect_eq(gl_probe(-1, err, sizeof err), 0, "%s", err);
}

/* ---- the blow-up check (engine_check_finite) on the GPU ----
 * check_finite.comp scans the current Ez and H textures and only the first
 * bad index per field comes back.  Values are planted with engine_write
 * (gl_write_field): the check must name their field and cell, the first
 * field in scene_fields() order (ez, hx, hy) and the lowest cell in it
 * winning; a clean run is finite; a NaN that has been stepped is found where
 * a host scan of the read-back fields and the CPU engine find it. */

static const char *SMALL = /* 96 x 80: a few steps on llvmpipe in well under a second */
    "[grid]\nnx = 96\nny = 80\nsteps = 40\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 48\n"
    "center_y = 40\nradius = 8\n";

static void write_ok(struct engine *e, enum field f, const float *v)
{
    char err[ERRLEN];
    cr_assert_eq(engine_write(e, f, v, err, sizeof err), 0, "write %s: %s", field_name(f), err);
}

/* engine_check_finite, which must not fail; 1 and where, or 0. */
static int check_ok(struct engine *e, enum field *f, size_t *cell)
{
    char err[ERRLEN];
    const int r = engine_check_finite(e, f, cell, err, sizeof err);
    cr_assert_geq(r, 0, "check_finite: %s", err);
    return r;
}

/* The first NaN or Inf of the read-back fields in scene_fields() order. */
static int host_first_bad(struct engine *e, enum field *f, size_t *cell)
{
    for (int k = 0; k < FIELD_COUNT; k++) {
        float *v = read_ok(e, (enum field)k);
        for (size_t c = 0; c < e->model->ncells; c++)
            if (!isfinite(v[c])) {
                *f = (enum field)k;
                *cell = c;
                free(v);
                return 1;
            }
        free(v);
    }
    return 0;
}

/* For each field q: `bad` at cell (20+7q, 30+5q) and at a later cell, -bad
 * at cell 1 of the next field; the check names field q and the first cell.
 * Then the original fields go back and the run is finite again. */
static void blow_up_planted(const char *name, float bad)
{
    struct test_setup t;
    setup_from_text(&t, SMALL, NULL, 0);
    const struct model *m = &t.model;
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    struct engine *e = create_or_skip(name, m, &o);
    step_ok(e, 10);
    enum field f = FIELD_COUNT;
    size_t cell = 0;
    cr_assert_eq(check_ok(e, &f, &cell), 0, "%s, clean run: %s at %zu", name, field_name(f), cell);
    float *orig[3];
    for (int k = 0; k < 3; k++)
        orig[k] = read_ok(e, (enum field)k);
    float *v = malloc(m->ncells * sizeof *v);
    for (int q = 0; q < 3; q++) {
        const size_t c = (size_t)(20 + 7 * q) + (size_t)m->nx * (size_t)(30 + 5 * q);
        memcpy(v, orig[q], m->ncells * sizeof *v);
        v[c] = bad;
        v[c + 3 + (size_t)m->nx] = bad;
        write_ok(e, (enum field)q, v);
        float *back = read_ok(e, (enum field)q);
        cr_assert_eq(memcmp(back, v, m->ncells * sizeof *v), 0, "%s: %s reads back changed",
                     name, field_name((enum field)q));
        free(back);
        if (q + 1 < 3) {
            memcpy(v, orig[q + 1], m->ncells * sizeof *v);
            v[1] = -bad;
            write_ok(e, (enum field)(q + 1), v);
        }
        cr_assert_eq(check_ok(e, &f, &cell), 1, "%s: %g in %s not found", name, bad,
                     field_name((enum field)q));
        cr_assert_eq(f, (enum field)q, "%s: %g planted in %s, reported in %s", name, bad,
                     field_name((enum field)q), field_name(f));
        cr_assert_eq(cell, c, "%s: %g planted in %s at cell %zu, reported at %zu", name, bad,
                     field_name((enum field)q), c, cell);
        for (int k = q; k < 3 && k <= q + 1; k++)
            write_ok(e, (enum field)k, orig[k]);
        cr_assert_eq(check_ok(e, &f, &cell), 0, "%s: restored, yet %s at %zu", name,
                     field_name(f), cell);
    }
    step_ok(e, 5); /* the step counter survived the writes */
    cr_assert_eq(check_ok(e, &f, &cell), 0, "%s: %s at %zu", name, field_name(f), cell);
    free(v);
    for (int k = 0; k < 3; k++)
        free(orig[k]);
    engine_destroy(e);
    setup_free(&t);
}

Test(gl, blow_up_nan_planted_is_found) { blow_up_planted("gl", NAN); }
Test(gl, blow_up_inf_planted_is_found) { blow_up_planted("gl", INFINITY); }
Test(gl_compute, blow_up_nan_planted_is_found) { blow_up_planted("gl-compute", NAN); }
Test(gl_compute, blow_up_inf_planted_is_found) { blow_up_planted("gl-compute", INFINITY); }

/* The H texel (nx-1, ny-1) holds the step counter in its Hx channel: the
 * check skips it (a clean run with the counter there is finite), a NaN
 * written to Hx there is not stored (Hx there is never updated nor read,
 * and reads as 0), while Hy there is a field value like any other. */
static void counter_texel(const char *name)
{
    struct test_setup t;
    setup_from_text(&t, SMALL, NULL, 0);
    const struct model *m = &t.model;
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    struct engine *e = create_or_skip(name, m, &o);
    step_ok(e, 3);
    enum field f = FIELD_COUNT;
    size_t cell = 0;
    const size_t last = m->ncells - 1;
    float *hx = read_ok(e, FIELD_HX);
    hx[last] = NAN;
    write_ok(e, FIELD_HX, hx);
    cr_assert_eq(check_ok(e, &f, &cell), 0, "%s: %s at %zu", name, field_name(f), cell);
    free(hx);
    hx = read_ok(e, FIELD_HX);
    cr_assert_eq(hx[last], 0.0f, "%s: Hx at the counter texel reads %g", name, hx[last]);
    float *hy = read_ok(e, FIELD_HY);
    hy[last] = INFINITY;
    write_ok(e, FIELD_HY, hy);
    cr_assert_eq(check_ok(e, &f, &cell), 1, "%s: Inf in Hy at the counter texel not found", name);
    cr_assert_eq(f, FIELD_HY, "%s: reported in %s", name, field_name(f));
    cr_assert_eq(cell, last, "%s: reported at %zu", name, cell);
    step_ok(e, 3); /* the counter is intact: the fences' check passes */
    free(hx);
    free(hy);
    engine_destroy(e);
    setup_free(&t);
}

Test(gl, blow_up_check_skips_the_counter_texel) { counter_texel("gl"); }
Test(gl_compute, blow_up_check_skips_the_counter_texel) { counter_texel("gl-compute"); }

/* GL engine `name` (skipping where none opens) and, in *cpu, the CPU engine
 * in the same denormal mode, both on model m. */
static struct engine *gl_with_cpu(const char *name, const struct model *m, struct engine **cpu)
{
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    struct engine *e = create_or_skip(name, m, &o);
    struct engine_info info;
    engine_describe(e, &info);
    struct engine_options co = {0};
    co.precision = PRECISION_SINGLE;
    co.denormals = info.denormals;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", m, &co, cpu, err, sizeof err), 0, "%s", err);
    return e;
}

/* A NaN in Hx, then 4 steps: it has spread into Ez, Hx and Hy; the check
 * names the cell a host scan of the read-back fields finds, and the one the
 * CPU engine's check finds after the same plant and steps. */
static void blow_up_stepped(const char *name)
{
    struct test_setup t;
    setup_from_text(&t, SMALL, NULL, 0);
    const struct model *m = &t.model;
    struct engine *cpu;
    struct engine *e = gl_with_cpu(name, m, &cpu);
    step_ok(e, 20);
    step_ok(cpu, 20);
    enum field f, hf, cf;
    size_t cell, hcell, ccell;
    cr_assert_eq(check_ok(e, &f, &cell), 0, "%s: a sane run is finite", name);
    const size_t c = 60 + (size_t)m->nx * 25;
    float *hx = read_ok(e, FIELD_HX);
    hx[c] = NAN;
    write_ok(e, FIELD_HX, hx);
    write_ok(cpu, FIELD_HX, hx);
    step_ok(e, 4);
    step_ok(cpu, 4);
    cr_assert_eq(check_ok(e, &f, &cell), 1, "%s: the NaN was lost", name);
    cr_assert_eq(host_first_bad(e, &hf, &hcell), 1);
    cr_assert_eq(check_ok(cpu, &cf, &ccell), 1);
    cr_assert_eq(f, FIELD_EZ, "%s: reported in %s", name, field_name(f));
    cr_assert_lt(cell, c, "%s: after 4 steps the NaN has reached rows below", name);
    cr_assert_eq(f, hf, "%s: %s, host scan finds %s", name, field_name(f), field_name(hf));
    cr_assert_eq(cell, hcell, "%s: cell %zu, host scan finds %zu", name, cell, hcell);
    cr_assert_eq(f, cf, "%s: %s, cpu finds %s", name, field_name(f), field_name(cf));
    cr_assert_eq(cell, ccell, "%s: cell %zu, cpu finds %zu", name, cell, ccell);
    free(hx);
    engine_destroy(cpu);
    engine_destroy(e);
    setup_free(&t);
}

Test(gl, blow_up_nan_is_found_after_steps) { blow_up_stepped("gl"); }
Test(gl_compute, blow_up_nan_is_found_after_steps) { blow_up_stepped("gl-compute"); }

static const char *SMALL_PEC =
    "[grid]\nnx = 96\nny = 80\nsteps = 40\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "[source]\ntype = plane_wave\nangle = 0\n"
    "[object.box]\nshape = rectangle\nmaterial = pec\ncenter_x = 48\ncenter_y = 40\n"
    "width = 16\nheight = 16\n";

/* A NaN in H only: Ez NaN planted deep inside a PEC box reaches Hx and Hy
 * in the H pass, while the E pass sets every PEC cell to its slot value, so
 * Ez is finite again and the NaN lives in H alone (the H texture written in
 * that step, not the other one of its pair).  First bad: Hx(i, j-1/2), one
 * row below the cell, as the CPU engine says. */
static void blow_up_in_h(const char *name)
{
    struct test_setup t;
    setup_from_text(&t, SMALL_PEC, NULL, 0);
    const struct model *m = &t.model;
    struct engine *cpu;
    struct engine *e = gl_with_cpu(name, m, &cpu);
    step_ok(e, 10);
    step_ok(cpu, 10);
    const size_t c = 48 + (size_t)m->nx * 40;
    cr_assert_eq(m->mats[m->mat[c]].kind, MATERIAL_PEC);
    float *ez = read_ok(e, FIELD_EZ);
    ez[c] = NAN;
    write_ok(e, FIELD_EZ, ez);
    write_ok(cpu, FIELD_EZ, ez);
    for (int s = 0; s < 2; s++) {
        step_ok(e, 1 + s);
        step_ok(cpu, 1 + s);
        enum field f, cf;
        size_t cell, ccell;
        cr_assert_eq(check_ok(e, &f, &cell), 1, "%s: the NaN was lost", name);
        cr_assert_eq(check_ok(cpu, &cf, &ccell), 1, "cpu: the NaN was lost");
        cr_assert_eq(cf, FIELD_HX, "cpu: %s", field_name(cf));
        cr_assert_eq(ccell, c - (size_t)m->nx, "cpu: cell %zu", ccell);
        cr_assert_eq(f, cf, "%s: %s, cpu finds %s", name, field_name(f), field_name(cf));
        cr_assert_eq(cell, ccell, "%s: cell %zu, cpu finds %zu", name, cell, ccell);
    }
    free(ez);
    engine_destroy(cpu);
    engine_destroy(e);
    setup_free(&t);
}

Test(gl, blow_up_nan_in_h_only_is_found) { blow_up_in_h("gl"); }
Test(gl_compute, blow_up_nan_in_h_only_is_found) { blow_up_in_h("gl-compute"); }
