/* test_gl_monitors.c - the monitors (core/monitor.h: probes, flux, the far
 * field) and the DFT at several frequencies ([monitor.dft] frequencies) in
 * the GL engines, against the CPU engine bit for bit.
 *
 * The monitors' sums are accumulated on the host from the rows the engines
 * gather after every step, so everything follows from the gathered bits: the
 * tests compare those rows themselves (every row of every batch, caught on
 * their way from read_samples to the host), then what the host makes of them
 * (the probe series, every phasor of every group and frequency, the echo
 * width, the flux) and the fields, the DFT sums of every frequency included.
 * memcmp throughout: the claim is bit-identity.  Each scene is checked to
 * exercise what it claims (non-zero rows in every field, non-zero sums).
 *
 * As in test_gl.c: the CPU engine runs in the denormal mode the GL engine
 * reports; without any GL context the tests are skipped, unless
 * TEXFDTD_REQUIRE_GPU=1.  Grids are small for llvmpipe on 2 cores.
 */
#include "gl_helpers.h"

#include <complex.h>

#include "core/monitor.h"

/* A CPML grid with a PEC cylinder and a dielectric rectangle under an oblique
 * plane wave; a far-field contour at two frequencies, a flux box, a flux line
 * of each orientation, and probes of every field, total and scattered, every
 * step and every third, one of them on the last cell (whose Hx texel holds
 * the GL engines' step counter).  %s: the [source] waveform lines. */
static const char *MONITORS =
    "[grid]\nnx = 100\nny = 92\nsteps = 300\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 25\namplitude = 1.5\n%s"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 44\ncenter_y = 46\nradius = 7\n"
    "[object.slab]\nshape = rectangle\nmaterial = dielectric\neps_r = 3\ncenter_x = 58\n"
    "center_y = 44\nwidth = 6\nheight = 14\n"
    "[monitor.far]\nfrequencies = 0.9, 1\nstart_step = 150\nangles = 72\n"
    "[monitor.flux.box]\nx0 = 30\ny0 = 28\nx1 = 72\ny1 = 64\nstart_step = 120\n"
    "[monitor.flux.xline]\nx0 = 76\ny0 = 30\nx1 = 76\ny1 = 60\n"
    "[monitor.flux.yline]\nx0 = 30\ny0 = 70\nx1 = 70\ny1 = 70\nfrequencies = 1.1\n"
    "[probe.a]\nx = 50\ny = 20\nfields = all\n"
    "[probe.b]\nx = 80\ny = 70\nfields = ez, hy\ntotal = false\nevery = 3\n"
    "[probe.c]\nx = 20\ny = 50\nfields = hx\ntotal = false\n"
    "[probe.corner]\nx = 99\ny = 91\nfields = all\nevery = 3\n";

static const char *SINE = "ramp_periods = 1\n";
static const char *PULSE = "waveform = modulated_gaussian\nbandwidth = 1\n";

/* The whole-field DFT at several frequencies (%s: the list), from step 120,
 * with a CPML of graded kappa and alpha, S = 0.6, a rod and a cylinder, and
 * a probe (monitors and the DFT together in the E pass). */
static const char *DFT_MULTI =
    "[grid]\nnx = 80\nny = 72\nsteps = 260\ncourant = 0.6\ncells_per_wavelength = 17\n"
    "[source]\ntype = plane_wave\nangle = 60\namplitude = 2\n"
    "[boundary]\ntype = cpml\ncells = 8\nkappa_max = 3\nalpha_max = 0.05\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 2.5\ncenter_x = 44\n"
    "center_y = 38\nradius = 9\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 24\ncenter_y = 30\nradius = 5\n"
    "[monitor.dft]\nstart_step = 120\nfrequencies = %s\n"
    "[probe.p]\nx = 60\ny = 50\nfields = all\n";

/* 3 frequencies: all in the E pass of gl; 17: 7 there, then update_dft
 * passes of 8 and of 2. */
static const char *F3 = "0.8, 1, 1.25";
static const char *F17 = "0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.15, 1.2, "
                         "1.25, 1.3, 1.35, 1.4";

/* A big far-field contour: 600 x 600 cells, a PEC square of 440 cells with
 * the contour 10 cells around it (some 5500 samples: a band of rows of the
 * gather texture once its width is cut).  The plane wave's front starts at
 * x = 260, inside the square, so that within the few steps llvmpipe can
 * afford here the scattered field reaches the contour and the incident wave
 * the contour's centre (x = 300: the phasors' normalisation). */
static const char *BIG =
    "[grid]\nnx = 600\nny = 600\nsteps = 120\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 0\nfront_offset = 260\n"
    "[boundary]\ntype = mur\n"
    "[object.sq]\nshape = rectangle\nmaterial = pec\ncenter_x = 300\ncenter_y = 300\n"
    "width = 440\nheight = 440\n"
    "[monitor.far]\nstart_step = 40\ndistance = 10\nangles = 36\n"
    "[probe.p]\nx = 330\ny = 290\nfields = all\n";

/* The cpu engine runs on 2 threads: its bits do not depend on the number,
 * and on a many-core GPU machine, where the suite runs several jobs at once,
 * every core per engine oversubscribes the machine on these small grids (the
 * 17-frequency DFT opens 17 parallel regions a step). */
static struct engine *create_dn(const char *name, const struct model *m, enum denormals dn)
{
    return gl_test_engine(name, m, dn, 2);
}

/* ---- catching the gathered rows -------------------------------------------
 * Each engine's ops are copied with read_samples replaced by spy_read, which
 * calls the engine's own and keeps a copy of every row it hands to
 * engine_step; so the rows are compared as the engine produced them, through
 * engine_step's own batching. */
#define SPIES 4
static struct spy {
    struct engine *e;
    struct engine_ops ops;
    const struct engine_ops *orig;
    float *rows; /* [nrows][nsamples] */
    size_t nrows, cap;
    int reads;   /* read_samples calls */
} spies[SPIES];

static struct spy *spy_of(struct engine *e)
{
    for (int k = 0; k < SPIES; k++)
        if (spies[k].e == e)
            return &spies[k];
    return NULL;
}

static int spy_read(struct engine *e, void *dst, int rows, char *err, size_t errlen)
{
    struct spy *s = spy_of(e);
    cr_assert(s);
    if (s->orig->read_samples(e, dst, rows, err, errlen))
        return -1;
    const size_t ns = e->model->nsamples;
    if (s->nrows + (size_t)rows > s->cap) {
        s->cap = 2 * (s->nrows + (size_t)rows);
        s->rows = realloc(s->rows, s->cap * ns * sizeof(float));
        cr_assert(s->rows);
    }
    memcpy(s->rows + s->nrows * ns, dst, (size_t)rows * ns * sizeof(float));
    s->nrows += (size_t)rows;
    s->reads++;
    return 0;
}

static struct spy *spy_on(struct engine *e)
{
    for (int k = 0; k < SPIES; k++)
        if (!spies[k].e) {
            struct spy *s = &spies[k];
            memset(s, 0, sizeof *s);
            s->e = e;
            s->orig = e->ops;
            s->ops = *e->ops;
            s->ops.read_samples = spy_read;
            e->ops = &s->ops;
            return s;
        }
    cr_assert_fail("too many spies");
    return NULL;
}

static void spy_free(struct spy *s)
{
    s->e->ops = s->orig;
    free(s->rows);
    memset(s, 0, sizeof *s);
}

/* ---- running and comparing ------------------------------------------------ */

static void step_ok(struct engine *e, int n)
{
    char err[ERRLEN];
    cr_assert_eq(engine_step(e, n, err, sizeof err), 0, "%s step: %s", e->ops->name, err);
}

/* Steps in the chunks of plan[] (0-terminated): uneven, and longer than a
 * batch of sample rows, so that engine_step splits them. */
static void run_plan(struct engine *e, const int *plan)
{
    for (int k = 0; plan[k]; k++)
        step_ok(e, plan[k]);
}

static float *read_ok(struct engine *e, enum field f)
{
    char err[ERRLEN];
    float *v = malloc(e->model->ncells * sizeof *v);
    cr_assert_eq(engine_read(e, f, v, err, sizeof err), 0, "%s read %s: %s", e->ops->name,
                 field_name(f), err);
    return v;
}

/* Equal fields: Ez, Hx, Hy and the DFT sums of every frequency. */
static void same_fields(struct engine *a, struct engine *b)
{
    const struct model *m = a->model;
    const struct scene *s = m->scene;
    enum field f[3 + 2 * SCENE_MAX_FREQS];
    int nf = 0;
    for (int k = 0; k < FIELD_COUNT; k++)
        f[nf++] = (enum field)k;
    for (int k = 0; s->dft && k < s->dft_nfreq; k++) {
        f[nf++] = field_dft(k, 0);
        f[nf++] = field_dft(k, 1);
    }
    for (int k = 0; k < nf; k++) {
        float *x = read_ok(a, f[k]), *y = read_ok(b, f[k]);
        uint32_t ulp;
        const size_t d = count_bit_differences(x, y, m->ncells, &ulp);
        cr_expect_eq(d, 0, "%s vs %s, %s (k = %d): %zu cells differ, max %u ulp", a->ops->name,
                     b->ops->name, field_name(f[k]), field_dft_index(f[k]), d, ulp);
        if (field_dft_index(f[k]) >= 0) {
            double mx = 0;
            for (size_t q = 0; q < m->ncells; q++)
                mx = fmax(mx, fabs(x[q]));
            cr_expect_gt(mx, 1e-3, "DFT field %d of frequency %d is empty", (int)f[k],
                         field_dft_index(f[k]));
        }
        free(x);
        free(y);
    }
}

/* Equal results of the monitors: the probe series, every phasor, the echo
 * width, the flux. */
static void same_monitors(struct engine *a, struct engine *b)
{
    const struct model *m = a->model;
    const struct monitor_plan *p = m->plan;
    char err[ERRLEN];
    size_t na, nb;
    const double *ra = monitors_probe_rows(a->mon, &na), *rb = monitors_probe_rows(b->mon, &nb);
    cr_expect_eq(na, nb, "probe rows %zu vs %zu", na, nb);
    if (na == nb && na)
        cr_expect_eq(memcmp(ra, rb, na * (2 + (size_t)p->ncols) * sizeof *ra), 0,
                     "%s vs %s: the probe series differ", a->ops->name, b->ops->name);
    for (int g = 0; g < p->ngroups; g++) {
        const struct dft_group *gr = &p->groups[g];
        size_t diff = 0;
        double mx = 0;
        for (int k = 0; k < gr->fr.n; k++)
            for (size_t q = 0; q < gr->n; q++) {
                const double complex x = monitors_phasor(a->mon, g, k, q);
                const double complex y = monitors_phasor(b->mon, g, k, q);
                diff += memcmp(&x, &y, sizeof x) != 0;
                mx = fmax(mx, cabs(x));
            }
        cr_expect_eq(diff, 0, "%s vs %s: %zu phasors of group %d differ", a->ops->name,
                     b->ops->name, diff, g);
        cr_expect_gt(mx, 1e-3, "group %d's phasors are all zero", g);
    }
    if (p->far >= 0) {
        const int nang = m->scene->far.angles, nf = p->groups[p->far].fr.n;
        const size_t n = (size_t)nang * (size_t)nf;
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        cr_assert_eq(monitors_far2d(a->mon, nang, x, err, sizeof err), 0, "%s", err);
        cr_assert_eq(monitors_far2d(b->mon, nang, y, err, sizeof err), 0, "%s", err);
        cr_expect_eq(memcmp(x, y, n * sizeof *x), 0, "the echo widths differ");
        free(x);
        free(y);
    }
    for (int i = 0; i < m->scene->nflux; i++)
        for (int k = 0; k < p->groups[p->flux[i]].fr.n; k++) {
            double v[2][2];
            monitors_flux2d(a->mon, i, k, &v[0][0], &v[0][1]);
            monitors_flux2d(b->mon, i, k, &v[1][0], &v[1][1]);
            cr_expect_eq(memcmp(v[0], v[1], sizeof v[0]), 0,
                         "flux %d, frequency %d: %g, %g vs %g, %g", i, k, v[0][0], v[0][1],
                         v[1][0], v[1][1]);
        }
}

/* Equal gathered rows, every one of them; and rows that mean something: as
 * many as steps, with non-zero values of every field gathered. */
static void same_rows(const struct spy *a, const struct spy *b, int steps)
{
    const struct model *m = a->e->model;
    const size_t ns = m->nsamples;
    cr_assert_eq(a->nrows, (size_t)steps, "%s gathered %zu rows in %d steps", a->e->ops->name,
                 a->nrows, steps);
    cr_assert_eq(b->nrows, (size_t)steps, "%s gathered %zu rows in %d steps", b->e->ops->name,
                 b->nrows, steps);
    uint32_t ulp;
    const size_t d = count_bit_differences(a->rows, b->rows, a->nrows * ns, &ulp);
    if (d) {
        size_t q = 0;
        while (!memcmp(&a->rows[q], &b->rows[q], sizeof(float)))
            q++;
        cr_expect_eq(d, 0,
                     "%s vs %s: %zu gathered values differ (max %u ulp); first: step %zu, "
                     "sample %zu (field %d, cell %zu): %a vs %a",
                     a->e->ops->name, b->e->ops->name, d, ulp, q / ns + 1, q % ns,
                     m->samples[q % ns].field, m->samples[q % ns].cell, a->rows[q], b->rows[q]);
    }
    bool nonzero[FIELD_COUNT] = {false};
    for (size_t q = 0; q < a->nrows * ns; q++)
        if (a->rows[q] != 0.0f)
            nonzero[m->samples[q % ns].field] = true;
    for (int f = 0; f < FIELD_COUNT; f++)
        cr_expect(nonzero[f], "no non-zero %s sample in %zu rows", field_name((enum field)f),
                  a->nrows);
}

static int plan_steps(const int *plan)
{
    int n = 0;
    for (int k = 0; plan[k]; k++)
        n += plan[k];
    return n;
}

/* The GL engine runs first in every test below, before any CPU step: the
 * host sums the monitors on OpenMP threads, which the CPU engine leaves with
 * FTZ/DAZ set after its sweep; the sums must not depend on that (they set
 * IEEE underflow in every thread since 79821b1; before, the 600 x 600
 * contour's phasors differed in 30 values when GL ran first). */

/* Run `scene` through `name` and through cpu (in the GL engine's denormal
 * mode) with the same step plan; compare rows, fields and monitors.
 * Returns how many calls of the plan were longer than a batch of rows. */
static int agree(const char *name, const char *scene, const int *plan)
{
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    const struct model *m = &t.model;
    struct engine *g = create_dn(name, m, DENORMALS_FLUSH);
    struct engine_info info;
    engine_describe(g, &info);
    cr_log_info("%s: %s", name, info.detail);
    struct engine *c = create_dn("cpu", m, info.denormals);
    struct spy *sg = m->nsamples ? spy_on(g) : NULL, *sc = m->nsamples ? spy_on(c) : NULL;
    run_plan(g, plan);
    run_plan(c, plan);
    const int steps = plan_steps(plan);
    if (m->nsamples) {
        same_rows(sg, sc, steps);
        cr_expect_eq(sg->reads, sc->reads, "read_samples calls: %d vs %d", sg->reads, sc->reads);
        same_monitors(g, c);
        spy_free(sg);
        spy_free(sc);
    }
    same_fields(g, c);
    engine_destroy(g);
    engine_destroy(c);
    int longer = 0;
    for (int k = 0; plan[k]; k++)
        longer += plan[k] > m->sample_rows;
    setup_free(&t);
    return longer;
}

static char *scene_text(const char *fmt, const char *arg)
{
    char *s = NULL;
    cr_assert(asprintf(&s, fmt, arg) > 0);
    return s;
}

/* 300 steps as 1 + 37 + 262: the last is split by engine_step (at most
 * sample_rows = 240 rows per read here), none is a multiple of the fenced
 * batch of 7. */
static const int PLAN_300[] = {1, 37, 262, 0};

static void monitors_agree(const char *name, const char *waveform)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    char *s = scene_text(MONITORS, waveform);
    cr_expect_eq(agree(name, s, PLAN_300), 1, "no call longer than a batch of rows");
    free(s);
}

/* The monitors' scene in TE (the GL engines' H-node map): the probes of
 * hz, ex, ey, the flux and the far field gather the arrays as in TM and
 * equal the cpu engine's bits. */
static char *te_text(const char *waveform)
{
    static const char *const from[3] = {"cells_per_wavelength = 16\n", "fields = ez, hy",
                                        "fields = hx"};
    /* te_offdiagonal = false: the diagonal smoothing of the slab's corners
     * (the off-diagonal edges: tests/test_gl_te.c) */
    static const char *const to[3] = {"cells_per_wavelength = 16\npolarization = te\n"
                                      "te_offdiagonal = false\n",
                                      "fields = hz, ey", "fields = ex"};
    char *s = scene_text(MONITORS, waveform);
    for (int k = 0; k < 3; k++) {
        char *at = strstr(s, from[k]), *t = NULL;
        cr_assert(at, "%s", from[k]);
        cr_assert(asprintf(&t, "%.*s%s%s", (int)(at - s), s, to[k], at + strlen(from[k])) > 0);
        free(s);
        s = t;
    }
    return s;
}

static void te_monitors_agree(const char *name)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    char *s = te_text(PULSE);
    agree(name, s, PLAN_300);
    free(s);
}

/* The monitors' scene with gl-compute's temporal blocking (docs/gl.md), K
 * steps per dispatch on 16 x 16 tiles, as it is (CPML, the far field) or
 * in a PEC box (box: without CPML, and so without the far field): the
 * samples each tile gathers from shared memory after each of its K steps
 * (and gather.comp's, for a batch's steps beyond a multiple of K), the
 * probe on the counter texel included, give the cpu engine's rows,
 * monitors and fields.  K = 3 in fenced batches of 7, K = 4 and 5 in
 * adaptive batches. */
static void tb_monitors_agree(const char *k, const char *batch, bool box)
{
    if (batch)
        setenv("TEXFDTD_GL_BATCH_STEPS", batch, 1);
    setenv("TEXFDTD_GLC_K", k, 1);
    setenv("TEXFDTD_GLC_TILE", "16x16", 1);
    char *s = scene_text(MONITORS, PULSE);
    /* no CPML, and so no far field (model_build refuses one in a PEC box) */
    const char *cut[2] = {"[boundary]\ntype = cpml\ncells = 8\n",
                          "[monitor.far]\nfrequencies = 0.9, 1\nstart_step = 150\nangles = 72\n"};
    for (int k = 0; k < 2 && box; k++) {
        char *at = strstr(s, cut[k]);
        cr_assert(at, "%s", cut[k]);
        memmove(at, at + strlen(cut[k]), strlen(at + strlen(cut[k])) + 1);
    }
    struct test_setup t;
    setup_from_text(&t, s, NULL, 0);
    struct engine *g = create_dn("gl-compute", &t.model, DENORMALS_FLUSH);
    struct engine_info info;
    engine_describe(g, &info);
    cr_assert(strstr(info.detail, "steps per compute dispatch (temporal blocking")
                  && strstr(info.detail, "gathered per step (inside the tiles"),
              "%s", info.detail);
    engine_destroy(g);
    setup_free(&t);
    agree("gl-compute", s, PLAN_300);
    free(s);
}

Test(gl_compute_monitors, temporal_blocking_k3_box_equals_cpu, .timeout = 60)
{
    tb_monitors_agree("3", "7", true);
}
Test(gl_compute_monitors, temporal_blocking_k4_box_equals_cpu, .timeout = 60)
{
    tb_monitors_agree("4", NULL, true);
}
Test(gl_compute_monitors, temporal_blocking_k3_cpml_far_equals_cpu, .timeout = 60)
{
    tb_monitors_agree("3", "7", false);
}
Test(gl_compute_monitors, temporal_blocking_k5_cpml_far_equals_cpu, .timeout = 60)
{
    tb_monitors_agree("5", NULL, false);
}

Test(gl_monitors, te_pulse_equals_cpu, .timeout = 60) { te_monitors_agree("gl"); }
Test(gl_compute_monitors, te_pulse_equals_cpu, .timeout = 60) { te_monitors_agree("gl-compute"); }

Test(gl_monitors, sine_equals_cpu, .timeout = 60) { monitors_agree("gl", SINE); }
Test(gl_monitors, pulse_equals_cpu, .timeout = 60) { monitors_agree("gl", PULSE); }
Test(gl_compute_monitors, sine_equals_cpu, .timeout = 60) { monitors_agree("gl-compute", SINE); }
Test(gl_compute_monitors, pulse_equals_cpu, .timeout = 60) { monitors_agree("gl-compute", PULSE); }

/* The sample list as a band of rows (gl): the gather texture cut to 97
 * texels, which divides no row count, so every step's band has a ragged last
 * row. */
Test(gl_monitors, band_of_rows_equals_cpu, .timeout = 60)
{
    setenv("TEXFDTD_GL_GATHER_WIDTH", "97", 1);
    monitors_agree("gl", SINE);
}

/* Many samples: a 600 x 600 grid's far-field contour, in gl as a band of
 * 11 rows of a gather texture cut to 512 texels; 120 steps in calls of 33
 * and 87, fenced batches of 13. */
static void big_contour(const char *name)
{
    struct test_setup t;
    setup_from_text(&t, BIG, NULL, 0);
    cr_log_info("%zu samples, %d rows per read", t.model.nsamples, t.model.sample_rows);
    cr_assert_gt(t.model.nsamples, 10 * 512);
    setup_free(&t);
    setenv("TEXFDTD_GL_GATHER_WIDTH", "512", 1);
    setenv("TEXFDTD_GL_BATCH_STEPS", "13", 1);
    const int plan[] = {33, 87, 0};
    agree(name, BIG, plan);
}

Test(gl_monitors, big_contour_equals_cpu, .timeout = 60) { big_contour("gl"); }
Test(gl_compute_monitors, big_contour_equals_cpu, .timeout = 60) { big_contour("gl-compute"); }

/* The DFT at several frequencies, from step 120 of 260 in uneven calls. */
static void dft_agree(const char *name, const char *freqs)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "11", 1);
    char *s = scene_text(DFT_MULTI, freqs);
    const int plan[] = {119, 2, 139, 0};
    agree(name, s, plan);
    free(s);
}

/* The same with gl-compute's temporal blocking, K steps per dispatch on
 * 16 x 16 tiles: each tile's DFT sums take its K new Ez at the end of the
 * dispatch, in step order; the blocks of 3 steps cut across the DFT's start
 * (step 120), batches of 11 leave single steps between them. */
static void tb_dft_agree(const char *k, const char *freqs)
{
    setenv("TEXFDTD_GLC_K", k, 1);
    setenv("TEXFDTD_GLC_TILE", "16x16", 1);
    char *s = scene_text(DFT_MULTI, freqs);
    struct test_setup t;
    setup_from_text(&t, s, NULL, 0);
    struct engine *g = create_dn("gl-compute", &t.model, DENORMALS_FLUSH);
    struct engine_info info;
    engine_describe(g, &info);
    cr_assert(strstr(info.detail, "steps per compute dispatch (temporal blocking"), "%s",
              info.detail);
    engine_destroy(g);
    setup_free(&t);
    free(s);
    dft_agree("gl-compute", freqs);
}

Test(gl_compute_monitors, temporal_blocking_dft_3_frequencies_equal_cpu, .timeout = 60)
{
    tb_dft_agree("3", F3);
}
Test(gl_compute_monitors, temporal_blocking_dft_17_frequencies_equal_cpu, .timeout = 60)
{
    tb_dft_agree("4", F17);
}

Test(gl_monitors, dft_3_frequencies_equal_cpu, .timeout = 60) { dft_agree("gl", F3); }
Test(gl_monitors, dft_17_frequencies_equal_cpu, .timeout = 60) { dft_agree("gl", F17); }
Test(gl_compute_monitors, dft_3_frequencies_equal_cpu, .timeout = 60)
{
    dft_agree("gl-compute", F3);
}
Test(gl_compute_monitors, dft_17_frequencies_equal_cpu, .timeout = 60)
{
    dft_agree("gl-compute", F17);
}

/* A DFT field beyond the scene's frequencies is refused. */
Test(gl_monitors, dft_beyond_the_frequencies_is_refused)
{
    struct test_setup t;
    char *s = scene_text(DFT_MULTI, F3);
    setup_from_text(&t, s, NULL, 0);
    struct engine *g = create_dn("gl", &t.model, DENORMALS_FLUSH);
    char err[ERRLEN];
    float *v = malloc(t.model.ncells * sizeof *v);
    cr_expect_eq(engine_read(g, field_dft(2, 1), v, err, sizeof err), 0, "%s", err);
    cr_expect_neq(engine_read(g, field_dft(3, 0), v, err, sizeof err), 0);
    cr_log_info("%s", err);
    free(v);
    engine_destroy(g);
    setup_free(&t);
    free(s);
}

/* ---- checkpoints (an in-memory state_io: gl_helpers.h) ------------------- */

/* `first` runs `cut` steps (uneven) and saves; `second` loads and runs the
 * rest; the result must equal an uninterrupted cpu run: fields, the DFT sums
 * of every frequency, every phasor and, of the probe series, the rows after
 * the cut (the series before it lives in probes.csv, not in the state). */
static void resume(const char *first, const char *second, const char *scene, int cut)
{
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    const struct model *m = &t.model;
    const int steps = m->scene->steps;
    char err[ERRLEN];
    struct engine *a = create_dn(first, m, DENORMALS_FLUSH);
    struct engine_info info;
    engine_describe(a, &info);
    const enum denormals dn = info.denormals;
    step_ok(a, cut / 3);
    step_ok(a, cut - cut / 3);
    struct mem_state st = {.io = {.load = false, .array = mem_array}};
    st.io.ctx = &st;
    cr_assert_eq(engine_state(a, &st.io, a->step, err, sizeof err), 0, "save: %s", err);
    engine_destroy(a);
    bool dft_saved = false;
    for (int k = 0; k < st.n; k++)
        if (!strcmp(st.a[k].name, "ez_dft_re")) {
            dft_saved = true;
            cr_expect_eq(st.a[k].count, m->ncells * (size_t)m->scene->dft_nfreq);
        }
    cr_expect_eq(dft_saved, m->scene->dft);

    struct engine *b = create_dn(second, m, dn);
    st.io.load = true;
    cr_assert_eq(engine_state(b, &st.io, cut, err, sizeof err), 0, "load: %s", err);
    cr_assert_eq(b->step, cut);
    step_ok(b, steps - cut);
    struct engine *c = create_dn("cpu", m, dn);
    step_ok(c, steps);
    same_fields(b, c);
    if (m->plan) {
        /* the phasors and far field and flux, as same_monitors, but the
         * probe series only after the cut */
        const struct monitor_plan *p = m->plan;
        for (int g = 0; g < p->ngroups; g++)
            for (int k = 0; k < p->groups[g].fr.n; k++)
                for (size_t q = 0; q < p->groups[g].n; q++) {
                    const double complex x = monitors_phasor(b->mon, g, k, q);
                    const double complex y = monitors_phasor(c->mon, g, k, q);
                    cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "group %d, frequency %d, sample %zu",
                                 g, k, q);
                }
        size_t nb, nc;
        const double *rb = monitors_probe_rows(b->mon, &nb), *rc = monitors_probe_rows(c->mon, &nc);
        const size_t w = 2 + (size_t)p->ncols;
        cr_assert_gt(nb, 0);
        cr_assert_lt(nb, nc);
        cr_expect_eq(memcmp(rb, rc + (nc - nb) * w, nb * w * sizeof *rb), 0,
                     "the probe series after the resume differs");
    }
    engine_destroy(b);
    engine_destroy(c);
    mem_free(&st);
    setup_free(&t);
}

/* The DFT at 17 frequencies and a probe: saved at step 173, after the DFT's
 * start. */
static void resume_dft(const char *first, const char *second)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "5", 1);
    char *s = scene_text(DFT_MULTI, F17);
    resume(first, second, s, 173);
    free(s);
}

/* The monitors' scene: saved at step 151, between the flux box's start (120)
 * and the far field's (150). */
static void resume_monitors(const char *first, const char *second)
{
    char *s = scene_text(MONITORS, PULSE);
    resume(first, second, s, 151);
    free(s);
}

/* Dispersive cells (the disp pass's state: D_s, Ei, P, P_old under the cpu
 * engine's names) with a probe: a cylinder of two Lorentz poles and a Drude
 * pole beside a Debye rod in a CPML grid, saved at step 97 of 170 (the wave
 * inside both), in batches of 5. */
static const char *DISP =
    "[grid]\nnx = 80\nny = 72\nsteps = 170\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "[source]\ntype = plane_wave\nangle = 30\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 2\nlorentz = 3 9e9 6e8, 1.5 2e10 1e9\ndrude = 2e10 1e9\n"
    "[material.w]\neps_r = 2.5\ndebye = 4 1e-10\nsigma = 0.01\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 30.5\ncenter_y = 36\n"
    "radius = 9\n"
    "[object.rod]\nshape = circle\nmaterial = w\ncenter_x = 52\ncenter_y = 30\nradius = 6\n"
    "[probe.p]\nx = 31\ny = 36\nfields = all\n";

static void resume_disp(const char *first, const char *second)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "5", 1);
    resume(first, second, DISP, 97);
}

Test(gl_monitors, disp_checkpoint_resumes_on_cpu, .timeout = 60) { resume_disp("gl", "cpu"); }
Test(gl_compute_monitors, disp_cpu_checkpoint_resumes_on_gl_compute, .timeout = 60)
{
    resume_disp("cpu", "gl-compute");
}
Test(gl_compute_monitors, disp_checkpoint_resumes_on_gl, .timeout = 60)
{
    setenv("TEXFDTD_GL_DISP_ROW_CELLS", "13", 1); /* a state layout of many rows */
    resume_disp("gl-compute", "gl");
}

Test(gl_monitors, dft_checkpoint_resumes_on_cpu, .timeout = 60) { resume_dft("gl", "cpu"); }
Test(gl_monitors, dft_cpu_checkpoint_resumes_on_gl, .timeout = 60) { resume_dft("cpu", "gl"); }
Test(gl_compute_monitors, dft_checkpoint_resumes_on_cpu, .timeout = 60)
{
    resume_dft("gl-compute", "cpu");
}
Test(gl_compute_monitors, dft_cpu_checkpoint_resumes_on_gl_compute, .timeout = 60)
{
    resume_dft("cpu", "gl-compute");
}
Test(gl_monitors, monitors_checkpoint_resumes_on_cpu, .timeout = 60)
{
    resume_monitors("gl", "cpu");
}
Test(gl_compute_monitors, monitors_checkpoint_resumes_on_gl, .timeout = 60)
{
    resume_monitors("gl-compute", "gl");
}

/* read_samples is the engine's contract with engine_step: the rows asked for
 * must be the rows recorded, and a step() that would gather beyond the
 * batch is refused rather than dropping rows. */
Test(gl_monitors, sample_batch_contract)
{
    const char *names[2] = {"gl", "gl-compute"};
    for (int k = 0; k < 2; k++) {
        struct test_setup t;
        char *s = scene_text(MONITORS, SINE);
        setup_from_text(&t, s, NULL, 0);
        const struct model *m = &t.model;
        struct engine *g = create_dn(names[k], m, DENORMALS_FLUSH);
        char err[ERRLEN];
        float *rows = malloc((size_t)m->sample_rows * m->nsamples * sizeof *rows);
        cr_assert_eq(g->ops->step(g, 5, err, sizeof err), 0, "%s", err);
        cr_expect_neq(g->ops->read_samples(g, rows, 4, err, sizeof err), 0);
        cr_log_info("%s", err);
        cr_expect_neq(g->ops->step(g, m->sample_rows, err, sizeof err), 0);
        cr_log_info("%s", err);
        cr_expect_eq(g->ops->read_samples(g, rows, 5, err, sizeof err), 0, "%s", err);
        cr_expect_eq(g->ops->step(g, m->sample_rows, err, sizeof err), 0, "%s", err);
        cr_expect_eq(g->ops->read_samples(g, rows, m->sample_rows, err, sizeof err), 0, "%s",
                     err);
        free(rows);
        engine_destroy(g);
        setup_free(&t);
        free(s);
    }
}

/* With monitors step() leaves its last batch in flight (engine_step sums
 * the previous batch's samples meanwhile) and read_samples checks it: a
 * batch that misses its fence still fails engine_step, with the reason, and
 * the engine then refuses to go on or to hand out fields or samples. */
static void fence_timeout(const char *name)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "200", 1);
    setenv("TEXFDTD_GL_FENCE_TIMEOUT_S", "0.000001", 1);
    struct test_setup t;
    char *s = scene_text(MONITORS, SINE);
    setup_from_text(&t, s, NULL, 0);
    struct engine *g = create_dn(name, &t.model, DENORMALS_FLUSH);
    char err[ERRLEN];
    cr_assert_neq(engine_step(g, 200, err, sizeof err), 0, "a timed-out batch was accepted");
    cr_expect(strstr(err, "did not finish within") != NULL, "%s", err);
    cr_log_info("%s", err);
    cr_expect_neq(engine_step(g, 1, err, sizeof err), 0);
    float *v = malloc(t.model.ncells * sizeof *v);
    cr_expect_neq(engine_read(g, FIELD_EZ, v, err, sizeof err), 0);
    free(v);
    engine_destroy(g);
    setup_free(&t);
    free(s);
}

Test(gl_monitors, fence_timeout_is_reported) { fence_timeout("gl"); }
Test(gl_compute_monitors, fence_timeout_is_reported) { fence_timeout("gl-compute"); }
