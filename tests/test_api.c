/* test_api.c - the public C API (core/texfdtd.h, core/api.c) against the
 * engines called directly, against the command's output files, two
 * simulations in one process, its error paths, and the installed library
 * with examples/api_example.c built against it by pkg-config. */
#include "helpers.h"
#include "core/texfdtd.h"

#include <libgen.h>
#include <pthread.h>
#include <sys/stat.h>

/* A small TM scene with a CPML, a dielectric and a PEC object, every
 * monitor: far field, a flux box, probes (total and scattered), the DFT. */
static const char scene_tm[] =
    "[grid]\nnx = 64\nny = 60\nsteps = 240\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 30\nramp_periods = 1\nfrequency_hz = 1e9\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\n"
    "center_x = 30\ncenter_y = 31\nradius = 6\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 38\ncenter_y = 28\n"
    "width = 2\nheight = 8\n"
    "[monitor.far]\nangles = 36\nstart_step = 120\n"
    "[monitor.flux.box]\nx0 = 18\nx1 = 46\ny0 = 18\ny1 = 46\nstart_step = 120\n"
    "[probe.front]\nx = 14\ny = 30\nfields = ez,hx\ntotal = true\n"
    "[probe.back]\nx = 50\ny = 33\nfields = all\nevery = 3\n"
    "[monitor.dft]\nstart_step = 120\n"
    "[output]\npng = false\n";

/* A TE scene with a point source, different from the above. */
static const char scene_te[] =
    "[grid]\nnx = 48\nny = 52\nsteps = 150\npolarization = te\n"
    "[source]\ntype = point\ncenter_x = 20\ncenter_y = 25\nwaveform = gaussian\npulse_width = 8\n"
    "[boundary]\ntype = mur\n"
    "[object.block]\nshape = rectangle\nmaterial = dielectric\neps_r = 2\ncenter_x = 30\n"
    "center_y = 26\nwidth = 6\nheight = 10\n";

#define E_ sizeof err
static char err[512];

static tf_scene *load_string(const char *name, const char *text)
{
    tf_scene *s = NULL;
    cr_assert_eq(tf_scene_from_string(name, text, NULL, 0, &s, err, E_), 0, "scene: %s", err);
    return s;
}

static tf_sim *make_sim(const tf_scene *s, const char *engine)
{
    tf_sim *sim = NULL;
    cr_assert_eq(tf_sim_create(s, engine, "single", -1, 1, &sim, err, E_), 0, "create: %s", err);
    return sim;
}

/* The three fields of a 2D sim, float32, concatenated (malloc'ed). */
static float *api_fields(tf_sim *sim, size_t *n)
{
    char names[64];
    cr_assert_eq(tf_sim_field_names(sim, names, sizeof names, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_field_count(sim, n, err, E_), 0);
    float *f = malloc(3 * *n * sizeof *f);
    char *save = NULL;
    int k = 0;
    for (char *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save), k++)
        cr_assert_eq(tf_sim_read_field_f32(sim, t, f + k * *n, *n, err, E_), 0, "%s: %s", t,
                     err);
    cr_assert_eq(k, 3);
    return f;
}

/* The same scene through the internal interface: engine_create, engine_step,
 * engine_read of the time-domain fields (TE: hz, ex, ey). */
static float *engine_fields(const char *text, const char *engine, int steps, size_t *n)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    struct engine_options o = {.precision = PRECISION_SINGLE, .device = -1, .threads = 1};
    struct engine *e;
    char e2[ERRLEN];
    cr_assert_eq(engine_create(engine, &t.model, &o, &e, e2, sizeof e2), 0, "%s", e2);
    cr_assert_eq(engine_step(e, steps, e2, sizeof e2), 0, "%s", e2);
    *n = t.model.ncells;
    float *f = malloc(3 * *n * sizeof *f);
    const enum field tm[] = {FIELD_EZ, FIELD_HX, FIELD_HY}, te[] = {FIELD_HZ, FIELD_EX, FIELD_EY};
    for (int k = 0; k < 3; k++)
        cr_assert_eq(engine_read(e, t.scene.te ? te[k] : tm[k], f + k * *n, e2, sizeof e2), 0);
    engine_destroy(e);
    setup_free(&t);
    return f;
}

static void assert_same_bits(const float *a, const float *b, size_t n, const char *what)
{
    uint32_t ulp;
    const size_t d = count_bit_differences(a, b, n, &ulp);
    cr_assert_eq(d, 0, "%s: %zu values differ (max %u ulp)", what, d, ulp);
}

/* (a) the API's fields are the engine's, bit for bit */
static void same_as_engine(const char *text, const char *engine)
{
    tf_scene *s = load_string("api", text);
    int steps;
    cr_assert_eq(tf_scene_dims(s, NULL, NULL, NULL, &steps, err, E_), 0);
    tf_sim *sim = NULL;
    if (tf_sim_create(s, engine, "single", -1, 1, &sim, err, E_)) {
        const char *req = getenv("TEXFDTD_REQUIRE_GPU");
        if (strcmp(engine, "cpu") && !(req && !strcmp(req, "1")))
            cr_skip_test("engine %s: %s", engine, err);
        cr_assert_fail("%s: %s", engine, err);
    }
    cr_assert_eq(tf_sim_step(sim, steps / 3, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_run(sim, err, E_), 0, "%s", err);
    int done;
    cr_assert_eq(tf_sim_steps_done(sim, &done, err, E_), 0);
    cr_assert_eq(done, steps);
    size_t n, n2;
    float *a = api_fields(sim, &n), *b = engine_fields(text, engine, steps, &n2);
    cr_assert_eq(n, n2);
    assert_same_bits(a, b, 3 * n, engine);
    /* double buffers: the same values, widened */
    double *d = malloc(n * sizeof *d);
    char names[64];
    cr_assert_eq(tf_sim_field_names(sim, names, sizeof names, err, E_), 0);
    *strchr(names, ',') = 0;
    cr_assert_eq(tf_sim_read_field_f64(sim, names, d, n, err, E_), 0, "%s", err);
    for (size_t q = 0; q < n; q++)
        cr_assert_eq(d[q], (double)a[q]);
    int finite = 0;
    cr_assert_eq(tf_sim_check_finite(sim, &finite, err, E_), 0);
    cr_assert_eq(finite, 1);
    free(a), free(b), free(d);
    tf_sim_destroy(sim);
    tf_scene_free(s);
}

Test(api, cpu_fields_equal_engine_tm) { same_as_engine(scene_tm, "cpu"); }
Test(api, cpu_fields_equal_engine_te) { same_as_engine(scene_te, "cpu"); }
Test(api, gl_fields_equal_engine, .timeout = 120) { same_as_engine(scene_te, "gl"); }

/* (b) two simulations alive at once, stepped in turns, each with the
 * fields of the same scene run alone */
Test(api, two_simulations_interleaved)
{
    tf_scene *s1 = load_string("tm", scene_tm), *s2 = load_string("te", scene_te);
    tf_sim *a = make_sim(s1, "cpu"), *b = make_sim(s2, "cpu");
    tf_scene_free(s1); /* the simulations keep their own scenes */
    tf_scene_free(s2);
    for (int r = 0; r < 6; r++) {
        cr_assert_eq(tf_sim_step(a, 40, err, E_), 0, "%s", err);
        cr_assert_eq(tf_sim_step(b, r < 5 ? 30 : 0, err, E_), 0, "%s", err);
    }
    size_t na, nb, n1, n2;
    float *fa = api_fields(a, &na), *fb = api_fields(b, &nb);
    float *ea = engine_fields(scene_tm, "cpu", 240, &n1), *eb = engine_fields(scene_te, "cpu", 150, &n2);
    cr_assert_eq(na, n1);
    cr_assert_eq(nb, n2);
    assert_same_bits(fa, ea, 3 * na, "TM beside TE");
    assert_same_bits(fb, eb, 3 * nb, "TE beside TM");
    /* a monitor result of a is that of a lone run */
    tf_scene *s3 = load_string("tm", scene_tm);
    tf_sim *c = make_sim(s3, "cpu");
    cr_assert_eq(tf_sim_run(c, err, E_), 0);
    double fa2[36], fc[36];
    cr_assert_eq(tf_sim_far2d(a, 36, fa2, 36, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_far2d(c, 36, fc, 36, err, E_), 0, "%s", err);
    cr_assert_eq(memcmp(fa2, fc, sizeof fc), 0);
    free(fa), free(fb), free(ea), free(eb);
    tf_sim_destroy(a);
    tf_sim_destroy(b);
    tf_sim_destroy(c);
    tf_scene_free(s3);
}

/* Simulations on distinct handles stepped at once from several threads:
 * each thread loads its own scene, creates, steps in chunks and reads its
 * fields; each must give the bits of the engine run alone. */
struct sim_thread {
    const char *text;
    float *f;
    size_t n;
    char err[512];
    int rc;
};

static void *sim_thread_main(void *arg)
{
    struct sim_thread *t = arg;
    tf_scene *s = NULL;
    tf_sim *sim = NULL;
    char *e = t->err;
    const size_t el = sizeof t->err;
    int steps = 0;
    t->rc = tf_scene_from_string("thread", t->text, NULL, 0, &s, e, el)
            || tf_scene_dims(s, NULL, NULL, NULL, &steps, e, el)
            || tf_sim_create(s, "cpu", "single", -1, 1, &sim, e, el);
    while (!t->rc && steps > 0) {
        const int k = steps < 17 ? steps : 17;
        t->rc = tf_sim_step(sim, k, e, el);
        steps -= k;
    }
    if (!t->rc)
        t->rc = tf_sim_field_count(sim, &t->n, e, el);
    if (!t->rc && !(t->f = malloc(3 * t->n * sizeof *t->f)))
        t->rc = -1;
    char names[64];
    if (!t->rc)
        t->rc = tf_sim_field_names(sim, names, sizeof names, e, el);
    char *save = NULL;
    int k = 0;
    for (char *w = t->rc ? NULL : strtok_r(names, ",", &save); w && !t->rc;
         w = strtok_r(NULL, ",", &save), k++)
        t->rc = tf_sim_read_field_f32(sim, w, t->f + k * t->n, t->n, e, el);
    tf_sim_destroy(sim);
    tf_scene_free(s);
    return NULL;
}

Test(api, simulations_on_several_threads_at_once, .timeout = 120)
{
    enum { NT = 4 };
    struct sim_thread t[NT];
    pthread_t th[NT];
    for (int k = 0; k < NT; k++) {
        t[k] = (struct sim_thread){.text = k % 2 ? scene_te : scene_tm};
        cr_assert_eq(pthread_create(&th[k], NULL, sim_thread_main, &t[k]), 0);
    }
    for (int k = 0; k < NT; k++)
        pthread_join(th[k], NULL);
    size_t n1, n2;
    float *tm = engine_fields(scene_tm, "cpu", 240, &n1), *te = engine_fields(scene_te, "cpu", 150, &n2);
    for (int k = 0; k < NT; k++) {
        cr_assert_eq(t[k].rc, 0, "thread %d: %s", k, t[k].err);
        cr_assert_eq(t[k].n, k % 2 ? n2 : n1);
        assert_same_bits(t[k].f, k % 2 ? te : tm, 3 * t[k].n, k % 2 ? "TE thread" : "TM thread");
        free(t[k].f);
    }
    free(tm), free(te);
}

/* two GL simulations (two contexts) stepped in turns: each has the bits of
 * the cpu engine run alone */
Test(api, two_gl_simulations_interleaved, .timeout = 180)
{
    tf_scene *s1 = load_string("tm", scene_tm), *s2 = load_string("te", scene_te);
    tf_sim *a = NULL, *b = NULL;
    if (tf_sim_create(s1, "gl", "single", -1, 1, &a, err, E_)) {
        const char *req = getenv("TEXFDTD_REQUIRE_GPU");
        if (!(req && !strcmp(req, "1")))
            cr_skip_test("engine gl: %s", err);
        cr_assert_fail("gl: %s", err);
    }
    cr_assert_eq(tf_sim_create(s2, "gl", "single", -1, 1, &b, err, E_), 0, "%s", err);
    for (int r = 0; r < 5; r++) {
        cr_assert_eq(tf_sim_step(b, 30, err, E_), 0, "%s", err);
        cr_assert_eq(tf_sim_step(a, 48, err, E_), 0, "%s", err);
    }
    size_t na, nb, n1, n2;
    float *fa = api_fields(a, &na), *fb = api_fields(b, &nb);
    float *ea = engine_fields(scene_tm, "cpu", 240, &n1), *eb = engine_fields(scene_te, "cpu", 150, &n2);
    assert_same_bits(fa, ea, 3 * na, "gl TM beside gl TE, against cpu");
    assert_same_bits(fb, eb, 3 * nb, "gl TE beside gl TM, against cpu");
    free(fa), free(fb), free(ea), free(eb);
    tf_sim_destroy(a);
    tf_sim_destroy(b);
    tf_scene_free(s1);
    tf_scene_free(s2);
}

/* writing a field and reading it back; TE's ex goes in with its sign */
Test(api, write_read_back)
{
    tf_scene *s = load_string("te", scene_te);
    tf_sim *sim = make_sim(s, "cpu");
    size_t n;
    cr_assert_eq(tf_sim_field_count(sim, &n, err, E_), 0);
    double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
    for (size_t q = 0; q < n; q++)
        v[q] = 0.25 * (double)(q % 17) - 1.0;
    const char *names[] = {"hz", "ex", "ey"};
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(tf_sim_write_field_f64(sim, names[k], v, n, err, E_), 0, "%s", err);
        cr_assert_eq(tf_sim_read_field_f64(sim, names[k], w, n, err, E_), 0, "%s", err);
        cr_assert_eq(memcmp(v, w, n * sizeof *v), 0, "%s", names[k]);
    }
    /* a NaN put in is found, and where */
    int finite = -1;
    cr_assert_eq(tf_sim_check_finite(sim, &finite, err, E_), 0, "%s", err);
    cr_assert_eq(finite, 1);
    v[5 * 48 + 7] = NAN;
    cr_assert_eq(tf_sim_write_field_f64(sim, "ey", v, n, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_check_finite(sim, &finite, err, E_), 0, "%s", err);
    cr_assert_eq(finite, 0);
    cr_assert(strstr(err, "ey is not finite at cell (7, 5)"), "%s", err);
    free(v), free(w);
    tf_sim_destroy(sim);
    tf_scene_free(s);
}

/* a checkpoint saved at step 100 and loaded into a fresh simulation ends
 * with the fields and far field of an uninterrupted run */
Test(api, checkpoint_resume)
{
    char *dir = temp_dir_tagged("api-ckpt");
    tf_scene *s = load_string("tm", scene_tm);
    tf_sim *a = make_sim(s, "cpu"), *b = make_sim(s, "cpu"), *c = make_sim(s, "cpu");
    cr_assert_eq(tf_sim_step(a, 100, err, E_), 0);
    char sub[600];
    snprintf(sub, sizeof sub, "%s/run", dir);
    cr_assert_eq(tf_sim_checkpoint_save(a, sub, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_checkpoint_load(b, sub, err, E_), 0, "%s", err);
    int done;
    tf_sim_steps_done(b, &done, err, E_);
    cr_assert_eq(done, 100);
    cr_assert_eq(tf_sim_run(b, err, E_), 0);
    cr_assert_eq(tf_sim_run(c, err, E_), 0);
    size_t n;
    float *fb = api_fields(b, &n), *fc = api_fields(c, &n);
    assert_same_bits(fb, fc, 3 * n, "resumed");
    double xb[36], xc[36];
    cr_assert_eq(tf_sim_far2d(b, 36, xb, 36, err, E_), 0);
    cr_assert_eq(tf_sim_far2d(c, 36, xc, 36, err, E_), 0);
    cr_assert_eq(memcmp(xb, xc, sizeof xc), 0);
    /* a checkpoint of another grid is refused */
    tf_scene *s2 = load_string("te", scene_te);
    tf_sim *d = make_sim(s2, "cpu");
    cr_assert_neq(tf_sim_checkpoint_load(d, sub, err, E_), 0);
    cr_assert(strstr(err, "grid"), "%s", err);
    free(fb), free(fc);
    tf_sim_destroy(a), tf_sim_destroy(b), tf_sim_destroy(c), tf_sim_destroy(d);
    tf_scene_free(s), tf_scene_free(s2);
    remove_tree(dir);
    free(dir);
}

/* (c) every error path: non-zero and a message */
#define FAILS(call, needle)                                                                  \
    do {                                                                                     \
        err[0] = 0;                                                                          \
        cr_assert_neq((call), 0, #call " succeeded");                                        \
        cr_assert(err[0], #call ": no message");                                             \
        cr_assert(strstr(err, needle), #call ": '%s' lacks '%s'", err, needle);              \
    } while (0)

Test(api, errors)
{
    tf_scene *s = NULL;
    tf_sim *sim = NULL;
    FAILS(tf_scene_load("/nonexistent/x.ini", NULL, 0, &s, err, E_), "/nonexistent/x.ini");
    cr_assert_null(s);
    const char *bad_set[] = {"grid.bogus=1"};
    char *path = write_temp_scene(scene_tm);
    FAILS(tf_scene_load(path, bad_set, 1, &s, err, E_), "--set grid.bogus");
    /* an error in the file names the file and its line */
    FAILS(tf_scene_from_string("my.ini", "[grid]\nnx = 40\nny = abc\nsteps = 5\n", NULL, 0, &s, err, E_),
          "my.ini:3");
    cr_assert_null(s);
    cr_assert_eq(tf_scene_load(path, NULL, 0, &s, err, E_), 0, "%s", err);
    FAILS(tf_scene_set(s, "grid.courant=0.9", err, E_), "stability");
    int nx;
    cr_assert_eq(tf_scene_dims(s, &nx, NULL, NULL, NULL, err, E_), 0);
    cr_assert_eq(nx, 64, "a failed tf_scene_set leaves the scene as it was");
    cr_assert_eq(tf_scene_set(s, "grid.nx=70", err, E_), 0, "%s", err);
    cr_assert_eq(tf_scene_dims(s, &nx, NULL, NULL, NULL, err, E_), 0);
    cr_assert_eq(nx, 70);
    FAILS(tf_sim_create(s, "warp-drive", "single", -1, 1, &sim, err, E_), "unknown engine");
    cr_assert_null(sim);
    FAILS(tf_sim_create(s, "cpu", "quad", -1, 1, &sim, err, E_), "precision");
    /* an engine refuses what it cannot run */
    tf_scene *s3;
    cr_assert_eq(tf_scene_from_string("cube", "[grid]\nnx = 8\nny = 8\nnz = 8\nsteps = 2\n",
                                      NULL, 0, &s3, err, E_), 0, "%s", err);
    char engines[128];
    cr_assert_eq(tf_engines(engines, sizeof engines, err, E_), 0);
    cr_assert(!strncmp(engines, "cpu", 3), "%s", engines);
    if (strstr(engines, "gl"))
        FAILS(tf_sim_create(s3, "gl", "single", -1, 1, &sim, err, E_), "3D");
    FAILS(tf_engines(engines, 2, err, E_), "too small");
    cr_assert_eq(tf_sim_create(s, "cpu", "single", -1, 1, &sim, err, E_), 0, "%s", err);
    size_t n;
    cr_assert_eq(tf_sim_field_count(sim, &n, err, E_), 0);
    cr_assert_eq(n, 70 * 60);
    float *f = malloc(n * sizeof *f);
    FAILS(tf_sim_read_field_f32(sim, "ez", f, n - 1, err, E_), "needed");
    FAILS(tf_sim_write_field_f32(sim, "ez", f, n + 1, err, E_), "needed");
    FAILS(tf_sim_read_field_f32(sim, "hz", f, n, err, E_), "ez, hx, hy");
    FAILS(tf_sim_read_field_f32(sim, NULL, f, n, err, E_), "field");
    FAILS(tf_sim_step(sim, 241, err, E_), "grid.steps");
    FAILS(tf_sim_step(sim, -1, err, E_), "steps");
    double v[36];
    FAILS(tf_sim_far2d(sim, 36, v, 35, err, E_), "needed");
    FAILS(tf_sim_far2d(sim, 0, v, 0, err, E_), "nangles");
    FAILS(tf_sim_far3d(sim, 0, v, v, v, 1, err, E_), "3D far-field");
    FAILS(tf_sim_flux(sim, 1, NULL, v, NULL, 1, err, E_), "flux monitor 1");
    FAILS(tf_sim_read_dft(sim, 1, v, NULL, n, err, E_), "DFT frequency index 1");
    FAILS(tf_sim_checkpoint_load(sim, "/nonexistent", err, E_), "/nonexistent");
    char small[4];
    FAILS(tf_sim_describe(sim, small, sizeof small, err, E_), "too small");
    FAILS(tf_sim_step(NULL, 1, err, E_), "NULL");
    /* err may be NULL */
    cr_assert_neq(tf_sim_step(sim, -1, NULL, 0), 0);
    tf_sim_destroy(sim);
    /* a scene without monitors */
    tf_sim *bare;
    cr_assert_eq(tf_sim_create(s3, "cpu", "double", -1, 1, &bare, err, E_), 0, "%s", err);
    FAILS(tf_sim_far2d(bare, 8, v, 8, err, E_), "no 2D far-field");
    FAILS(tf_sim_probe_data(bare, v, 0, err, E_), "no probe");
    FAILS(tf_sim_read_dft(bare, 0, v, NULL, 1, err, E_), "no [monitor.dft]");
    int nf, nfl, pc, nd;
    cr_assert_eq(tf_sim_monitors(bare, &nf, &nfl, &pc, &nd, err, E_), 0);
    cr_assert(nf == 0 && nfl == 0 && pc == 0 && nd == 0);
    tf_sim_destroy(bare);
    free(f);
    tf_scene_free(s);
    tf_scene_free(s3);
    unlink(path);
    free(path);
}

/* (d) the monitors through the API are what `texfdtd run` writes */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    char *t = NULL;
    size_t cap = 0;
    cr_assert(getdelim(&t, &cap, 0, f) > 0);
    fclose(f);
    return t;
}

/* A scene run twice: by `texfdtd run` into a temporary folder, and through
 * the API on the cpu engine to its last step. */
struct both {
    char *path, *dir;
    tf_scene *s;
    tf_sim *sim;
};

static void run_both(struct both *b, const char *text, const char *tag)
{
    b->path = write_temp_scene(text);
    b->dir = temp_dir_tagged(tag);
    char out[4096];
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --engine cpu --threads 1 --out %s --force -q",
                         texfdtd_bin(), b->path, b->dir), 0, "%s", out);
    cr_assert_eq(tf_scene_load(b->path, NULL, 0, &b->s, err, E_), 0, "%s", err);
    b->sim = make_sim(b->s, "cpu");
    cr_assert_eq(tf_sim_run(b->sim, err, E_), 0, "%s", err);
}

static void both_free(struct both *b)
{
    tf_sim_destroy(b->sim);
    tf_scene_free(b->s);
    remove_tree(b->dir);
    free(b->dir);
    unlink(b->path);
    free(b->path);
}

Test(api, monitors_equal_command_output, .timeout = 120)
{
    struct both b;
    run_both(&b, scene_tm, "api-run");
    tf_sim *sim = b.sim;
    const char *dir = b.dir;
    int nf, nflux, pc, nd;
    cr_assert_eq(tf_sim_monitors(sim, &nf, &nflux, &pc, &nd, err, E_), 0);
    cr_assert(nf == 1 && nflux == 1 && pc == 2 + 2 + 3 && nd == 1, "%d %d %d %d", nf, nflux, pc, nd);

    /* far_field.csv: frequency_hz,phi_deg,sigma_2d_m,sigma_2d_over_lambda,... (%.10g) */
    double sig[36], hz;
    cr_assert_eq(tf_sim_far2d(sim, 36, sig, 36, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_far_frequencies(sim, &hz, 1, err, E_), 0);
    char p[700];
    snprintf(p, sizeof p, "%s/far_field.csv", dir);
    char *csv = read_file(p), *line = strchr(csv, '\n') + 1;
    for (int a = 0; a < 36; a++) {
        char want[256];
        snprintf(want, sizeof want, "%.10g,%.10g,", hz, 360.0 * a / 36);
        cr_assert(!strncmp(line, want, strlen(want)), "row %d: %.60s", a, line);
        char *col = line; /* the fourth column */
        for (int k = 0; k < 3; k++)
            col = strchr(col, ',') + 1;
        snprintf(want, sizeof want, "%.10g,", sig[a]);
        cr_assert(!strncmp(col, want, strlen(want)), "angle %d: csv %.40s, api %s", a, col, want);
        line = strchr(line, '\n') + 1;
    }
    free(csv);

    /* flux.csv: monitor,frequency_hz,scat_w_per_m,tot_w_per_m,scat_over_i_m,tot_over_i_m */
    char name[64];
    int nfq;
    cr_assert_eq(tf_sim_flux_info(sim, 0, name, sizeof name, &nfq, err, E_), 0);
    cr_assert_str_eq(name, "box");
    cr_assert_eq(nfq, 1);
    double fh, sc, to;
    cr_assert_eq(tf_sim_flux(sim, 0, &fh, &sc, &to, 1, err, E_), 0, "%s", err);
    snprintf(p, sizeof p, "%s/flux.csv", dir);
    csv = read_file(p);
    line = strchr(csv, '\n') + 1;
    char want[256];
    snprintf(want, sizeof want, "box,%.10g,", fh);
    cr_assert(!strncmp(line, want, strlen(want)), "%s", line);
    char *col = line;
    for (int k = 0; k < 4; k++)
        col = strchr(col, ',') + 1;
    snprintf(want, sizeof want, "%.10g,%.10g\n", sc, to);
    cr_assert(!strncmp(col, want, strlen(want)), "csv %s api %s", col, want);
    free(csv);

    /* probes.csv: the same header and every value (%.17g: exact) */
    char names[256];
    cr_assert_eq(tf_sim_probe_names(sim, names, sizeof names, err, E_), 0, "%s", err);
    snprintf(p, sizeof p, "%s/probes.csv", dir);
    csv = read_file(p);
    cr_assert(!strncmp(csv, names, strlen(names)) && csv[strlen(names)] == '\n', "%s / %s", csv,
              names);
    size_t rows;
    cr_assert_eq(tf_sim_probe_rows(sim, &rows, err, E_), 0);
    cr_assert_eq(rows, 240);
    double *v = malloc(rows * (size_t)pc * sizeof *v);
    cr_assert_eq(tf_sim_probe_data(sim, v, rows * (size_t)pc, err, E_), 0, "%s", err);
    line = strchr(csv, '\n') + 1;
    for (size_t r = 0; r < rows; r++) {
        char *q = line;
        for (int c = 0; c < pc; c++) {
            char *end = q; /* strtod would skip a newline */
            const double x = *q == ',' || *q == '\n' ? 0.0 : strtod(q, &end);
            const double a = v[r * (size_t)pc + (size_t)c];
            if (end == q)
                cr_assert(isnan(a), "row %zu col %d: csv empty, api %g", r, c, a);
            else
                cr_assert_eq(x, a, "row %zu col %d: csv %.17g api %.17g", r, c, x, a);
            q = strpbrk(end, ",\n") + 1;
        }
        line = q;
    }
    free(v);
    free(csv);

    /* the DFT phasor is the engine's field, as fields.h5 holds it */
    double dhz;
    cr_assert_eq(tf_sim_dft_frequencies(sim, &dhz, 1, err, E_), 0);
    cr_assert_eq(dhz, 1e9);
    size_t n;
    cr_assert_eq(tf_sim_field_count(sim, &n, err, E_), 0);
    double *re = malloc(n * sizeof *re), *im = malloc(n * sizeof *im);
    cr_assert_eq(tf_sim_read_dft(sim, 0, re, im, n, err, E_), 0, "%s", err);
    double mag = 0;
    for (size_t q = 0; q < n; q++)
        mag += re[q] * re[q] + im[q] * im[q];
    cr_assert(mag > 0 && isfinite(mag));
    free(re), free(im);
    both_free(&b);
}

/* the 3D RCS through the API is far_field.csv's at every direction the
 * command writes (its angles come printed to 10 digits, so the values agree
 * to about that: a relative 1e-7 here) */
Test(api, far3d_equals_command_output, .timeout = 120)
{
    static const char cube[] =
        "[grid]\nnx = 26\nny = 26\nnz = 26\nsteps = 120\ncourant = 0.5\n"
        "cells_per_wavelength = 10\n[source]\nwaveform = sine\nramp_periods = 2\n"
        "[boundary]\ntype = cpml\ncells = 6\n[object.ball]\nshape = sphere\nmaterial = pec\n"
        "center_x = 13\ncenter_y = 13\ncenter_z = 13\nradius = 3\n"
        "[monitor.far]\nstart_step = 60\nangles = 12\ntheta_points = 5\nphi_points = 8\n"
        "[output]\npng = false\n";
    struct both b;
    run_both(&b, cube, "api-run3");
    tf_sim *sim = b.sim;
    const char *dir = b.dir;
    char p[700];
    snprintf(p, sizeof p, "%s/far_field.csv", dir);
    char *csv = read_file(p), *line = strchr(csv, '\n') + 1;
    int rows = 0;
    double hz, th, ph, m2, over;
    while (sscanf(line, "%lf,%lf,%lf,%lf,%lf", &hz, &th, &ph, &m2, &over) == 5) {
        double v;
        cr_assert_eq(tf_sim_far3d(sim, 0, &th, &ph, &v, 1, err, E_), 0, "%s", err);
        cr_assert(fabs(v - over) <= 1e-7 * fabs(over), "theta %g phi %g: csv %.10g api %.10g",
                  th, ph, over, v);
        rows++;
        line = strchr(line, '\n') + 1;
    }
    cr_assert_eq(rows, 2 * 12 + 5 * 8, "%d rows", rows); /* two cuts and the grid */
    double v;
    FAILS(tf_sim_far3d(sim, 1, &th, &ph, &v, 1, err, E_), "index 1");
    FAILS(tf_sim_far2d(sim, 4, &v, 4, err, E_), "2D far-field");
    free(csv);
    both_free(&b);
}

/* (e) make install DESTDIR=..., then examples/api_example.c built against
 * the installed copy by pkg-config, and run.  (run_cmd appends </dev/null
 * to the command: pipelines go in parentheses.) */
Test(api, installed_library_and_example, .timeout = 300)
{
    char exe[4096], build[4096], bin[4096], out[16384];
    const ssize_t m = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert_gt(m, 0);
    exe[m] = 0;
    snprintf(build, sizeof build, "%s", dirname(dirname(exe))); /* BUILD/tests/test_api */
    char tb[4096];
    snprintf(tb, sizeof tb, "%s", texfdtd_bin());
    snprintf(bin, sizeof bin, "%s", dirname(tb));
    char *d = temp_dir_tagged("api-install");
    /* -o all: install what is built, build nothing (the suite runs after
     * make); without the MAKEFLAGS of a make test that runs the suite */
    cr_assert_eq(run_cmd(out, sizeof out,
                         "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "
                         "make -s --no-print-directory install -o all BUILD='%s' BIN='%s' "
                         "DESTDIR='%s' PREFIX=/usr/local",
                         build, bin, d), 0, "%s", out);
    char lib[600];
    snprintf(lib, sizeof lib, "%s/usr/local/lib", d);
    cr_assert_eq(run_cmd(out, sizeof out, "(readelf -d %s/libtexfdtd.so | grep SONAME)", lib), 0,
                 "%s", out);
    char soname[64];
    snprintf(soname, sizeof soname, "[libtexfdtd.so.%d]", TEXFDTD_VERSION_MAJOR);
    cr_assert(strstr(out, soname), "%s", out);
    /* only the tf_* functions are exported */
    cr_assert_eq(run_cmd(out, sizeof out,
                         "(nm -D --defined-only %s/libtexfdtd.so | awk '{print $3}' | grep -v '^tf_')",
                         lib), 1, "exported besides tf_*: %s", out);
    const char *san =
#if defined(__SANITIZE_ADDRESS__)
        "-fsanitize=address,undefined";
#else
        "";
#endif
    cr_assert_eq(run_cmd(out, sizeof out,
                         "PKG_CONFIG_PATH=%s/pkgconfig PKG_CONFIG_SYSROOT_DIR=%s "
                         "cc -std=c11 -Wall -Wextra -Werror %s -o %s/api_example "
                         "examples/api_example.c $(PKG_CONFIG_PATH=%s/pkgconfig "
                         "PKG_CONFIG_SYSROOT_DIR=%s pkg-config --cflags --libs texfdtd)",
                         lib, d, san, d, lib, d), 0, "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out, "LD_LIBRARY_PATH=%s %s/api_example scenes/lossy_cylinder.ini",
                         lib, d), 0, "%s", out);
    cr_assert(strstr(out, "echo width") && strstr(out, "flux around"), "%s", out);
    char ver[64];
    snprintf(ver, sizeof ver, "libtexfdtd %d.%d.%d", TEXFDTD_VERSION_MAJOR, TEXFDTD_VERSION_MINOR,
             TEXFDTD_VERSION_PATCH);
    cr_assert(strstr(out, ver), "%s", out);
    remove_tree(d);
    free(d);
}

Test(api, version)
{
    cr_assert_eq(tf_version(), TEXFDTD_VERSION_MAJOR * 10000 + TEXFDTD_VERSION_MINOR * 100
                                   + TEXFDTD_VERSION_PATCH);
    cr_assert(!strncmp(tf_version_string(), TEXFDTD_VERSION, strlen(TEXFDTD_VERSION)));
}

/* tf_sim_open: the options struct (denormals, shader folder, an older
 * caller's shorter struct) and its refusals, each before anything is built. */
Test(api, open_options, .timeout = 120)
{
    tf_scene *s = load_string("api", scene_te);
    tf_sim *a = NULL, *b = NULL;
    char d[1024];
    /* NULL options: cpu, single, flush; the fields are tf_sim_create's */
    cr_assert_eq(tf_sim_open(s, NULL, &a, err, E_), 0, "%s", err);
    b = make_sim(s, "cpu");
    cr_assert_eq(tf_sim_run(a, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_run(b, err, E_), 0, "%s", err);
    size_t n;
    float *fa = api_fields(a, &n), *fb = api_fields(b, &n);
    assert_same_bits(fa, fb, 3 * n, "tf_sim_open(NULL) against tf_sim_create");
    free(fa), free(fb);
    cr_assert_eq(tf_sim_describe(a, d, sizeof d, err, E_), 0, "%s", err);
    cr_assert(strstr(d, "flush") && strstr(d, "single"), "%s", d);
    tf_sim_destroy(a), tf_sim_destroy(b);
    /* denormals = keep reaches the engine */
    tf_sim_options o = TF_SIM_OPTIONS_INIT;
    o.denormals = "keep";
    o.precision = "double";
    cr_assert_eq(tf_sim_open(s, &o, &a, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_describe(a, d, sizeof d, err, E_), 0, "%s", err);
    cr_assert(strstr(d, "keep") && strstr(d, "double"), "%s", d);
    tf_sim_destroy(a);
    /* a caller built against a struct that ended before `denormals`: the
     * library takes its default for what lies beyond size */
    o.size = offsetof(tf_sim_options, denormals);
    cr_assert_eq(tf_sim_open(s, &o, &a, err, E_), 0, "%s", err);
    cr_assert_eq(tf_sim_describe(a, d, sizeof d, err, E_), 0, "%s", err);
    cr_assert(strstr(d, "flush") && strstr(d, "double"), "%s", d);
    tf_sim_destroy(a);
    /* refusals */
    a = NULL;
    o = (tf_sim_options)TF_SIM_OPTIONS_INIT;
    o.size = 0;
    FAILS(tf_sim_open(s, &o, &a, err, E_), "options.size");
    o = (tf_sim_options)TF_SIM_OPTIONS_INIT;
    o.denormals = "sometimes";
    FAILS(tf_sim_open(s, &o, &a, err, E_), "denormals is flush or keep, not 'sometimes'");
    o = (tf_sim_options)TF_SIM_OPTIONS_INIT;
    o.device = -2;
    FAILS(tf_sim_open(s, &o, &a, err, E_), "not -2");
    o = (tf_sim_options)TF_SIM_OPTIONS_INIT;
    o.engine = "gl";
    o.shader_dir = "/nonexistent/shaders";
    FAILS(tf_sim_open(s, &o, &a, err, E_), "/nonexistent/shaders");
    cr_assert_null(a);
    tf_scene_free(s);
}
