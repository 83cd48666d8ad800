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

/* Run `steps` through `name` (requesting denormal mode `want`) and through
 * the CPU engine in the mode the GL engine reports; demand equal bits. */
static void agree(const char *name, const char *scene, int steps, enum denormals want,
                  enum denormals *reported)
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
    step_ok(g, steps);
    float *gf[3];
    for (int k = 0; k < 3; k++)
        gf[k] = read_ok(g, (enum field)k);
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
    for (int k = 0; k < 3; k++)
        free(gf[k]);
    free_fields(cf);
    setup_free(&t);
    if (reported)
        *reported = info.denormals;
}

Test(gl, square_equals_cpu) { agree("gl", SQUARE, 500, DENORMALS_FLUSH, NULL); }
Test(gl, circle_equals_cpu) { agree("gl", CIRCLE, 250, DENORMALS_FLUSH, NULL); }
Test(gl, dielectric_equals_cpu) { agree("gl", DIELECTRIC, 250, DENORMALS_FLUSH, NULL); }
Test(gl, oblique_equals_cpu) { agree("gl", OBLIQUE, 250, DENORMALS_FLUSH, NULL); }

Test(gl_compute, square_equals_cpu) { agree("gl-compute", SQUARE, 500, DENORMALS_FLUSH, NULL); }
Test(gl_compute, circle_equals_cpu) { agree("gl-compute", CIRCLE, 250, DENORMALS_FLUSH, NULL); }
Test(gl_compute, dielectric_equals_cpu)
{
    agree("gl-compute", DIELECTRIC, 250, DENORMALS_FLUSH, NULL);
}
Test(gl_compute, oblique_equals_cpu) { agree("gl-compute", OBLIQUE, 250, DENORMALS_FLUSH, NULL); }

/* The multi-step fragment pass (2 steps per pass, each fragment recomputing
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

/* A compile error names the file and line of the broken shader. */
Test(gl, shader_error_names_file_and_line)
{
    char dir[] = "/tmp/texfdtd-shaders-XXXXXX";
    cr_assert(mkdtemp(dir));
    const char *files[] = {"update2d.glsl", "fullscreen.vert", "update_h.frag", "update_e.frag",
                           "update_h.comp", "update_e.comp", "probe_denormals.frag",
                           "probe_denormals.comp"};
    int main_line = 0;
    {
        FILE *f = fopen("shaders/update_e.frag", "r");
        cr_assert(f, "run the tests from the repository root");
        char line[4096];
        for (int n = 1; fgets(line, sizeof line, f); n++)
            if (!strncmp(line, "void main", 9))
                main_line = n;
        fclose(f);
    }
    cr_assert_gt(main_line, 0);
    const int bad = main_line + 2; /* inside main(), after the opening brace */
    char from[256], to[256];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(from, sizeof from, "shaders/%s", files[k]);
        snprintf(to, sizeof to, "%s/%s", dir, files[k]);
        copy_file(from, to, strcmp(files[k], "update_e.frag") ? 0 : bad);
    }
    struct test_setup t;
    setup_from_text(&t, CIRCLE, NULL, 0);
    struct engine_options o = gl_options(DENORMALS_FLUSH);
    o.shader_dir = dir;
    struct engine *e = NULL;
    char err[ERRLEN];
    const int rc = engine_create("gl", &t.model, &o, &e, err, sizeof err);
    if (rc && gl_probe(-1, NULL, 0) && !gpu_required())
        cr_skip_test("no OpenGL device here");
    cr_assert_neq(rc, 0, "a broken shader was accepted");
    char want[512];
    snprintf(want, sizeof want, "%s/update_e.frag:%d:", dir, bad);
    cr_expect(strstr(err, want) != NULL, "expected '%s' in: %s", want, err);
    cr_log_info("%s", err);
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(to, sizeof to, "%s/%s", dir, files[k]);
        unlink(to);
    }
    rmdir(dir);
    setup_free(&t);
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
 * one huge batch against a tiny timeout. */
Test(gl, fence_timeout_is_reported)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "1000", 1);
    setenv("TEXFDTD_GL_FENCE_TIMEOUT_S", "0.000001", 1);
    struct test_setup t;
    setup_from_text(&t, SQUARE, NULL, 0);
    const struct engine_options o = gl_options(DENORMALS_FLUSH);
    struct engine *g = create_or_skip("gl", &t.model, &o);
    char err[ERRLEN];
    cr_assert_neq(engine_step(g, 1000, err, sizeof err), 0, "a timed-out batch was accepted");
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
