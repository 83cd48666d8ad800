/* test_gl_tb.c - gl-compute's temporal blocking (shaders/update_tb.comp:
 * K steps per dispatch, each work group a tile and a K-cell halo in shared
 * memory; docs/gl.md, "Temporal blocking") against the cpu engine, bit for
 * bit in Ez, Hx and Hy.
 *
 * The cpu engine is the independent expectation (cpu/update2d.inc, the
 * reference order), run in the denormal mode the GL engine reports.  The
 * scenes are what update_tb.comp takes: PEC walls, a plane wave at an
 * oblique angle or a point source, PEC, dielectric (smoothed) and lossy
 * objects, all lying across tile borders, on grids that are not multiples
 * of any tile.  The steps come in engine_step calls and fenced batches whose
 * lengths are not multiples of K (the rest of a batch takes the one-step
 * path), and a checkpoint is taken at a step that is not a multiple of K.
 * Each run checks that the engine says it blocks K steps per dispatch and
 * that the fields are far from zero.  Scenes outside the scope keep the
 * one-step paths (and their bits); settings the device cannot run are
 * refused at creation.  The monitors gathered inside the tiles are
 * tests/test_gl_monitors.c's (gl_compute_monitors/temporal_blocking_*).
 * Suite gl_wf: the warp wavefront (shaders/update_wf.comp), the same way.
 * As in test_gl.c: without any GL context the tests are skipped, unless
 * TEXFDTD_REQUIRE_GPU=1.  Grids are small for llvmpipe.
 */
#include "gl_helpers.h"

/* 67 x 53 at 30 degrees: a PEC plate across the tile borders x = 32 and
 * y = 16 (16 x 16 tiles), a smoothed dielectric rod across x = 48, y = 32, a
 * lossy disc across y = 48. */
static const char *BOX =
    "[grid]\nnx = 67\nny = 53\nsteps = 70\ncourant = 0.6\ncells_per_wavelength = 12\n"
    "[source]\ntype = plane_wave\nangle = 30\namplitude = 2\n"
    "[material.wet]\neps_r = 3\nsigma = 0.2\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 32\ncenter_y = 20\n"
    "width = 3\nheight = 11\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 47.5\n"
    "center_y = 32.3\nradius = 5.3\n"
    "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = 17.2\ncenter_y = 46.1\n"
    "radius = 4.2\n";

/* 61 x 47, a point source, a PEC plate across x = 16 and y = 32 and a lossy
 * slab across x = 48 and y = 16. */
static const char *POINT =
    "[grid]\nnx = 61\nny = 47\nsteps = 58\ncourant = 0.5\ncells_per_wavelength = 10\n"
    "[source]\ntype = point\ncenter_x = 29\ncenter_y = 22\namplitude = 20\n"
    "[material.wet]\neps_r = 2\nsigma = 0.3\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 16\ncenter_y = 30\n"
    "width = 2\nheight = 12\n"
    "[object.slab]\nshape = rectangle\nmaterial = wet\ncenter_x = 46\ncenter_y = 16\n"
    "width = 10\nheight = 8\n";

/* Mur walls: 49 x 33, so that the last column and row (the east and north
 * walls) are the first of a 16 x 16 tile (whose wall nodes then need the
 * halo's extra cell); a point source, a dielectric rod across x = 32 and a
 * lossy plate near the east wall (Mur wants free cells inside the walls).
 * And 67 x 53 under a plane wave at 35 degrees with a PEC plate near the
 * west wall and a rod across x = 48, y = 32. */
static const char *MUR =
    "[grid]\nnx = 49\nny = 33\nsteps = 60\ncourant = 0.5\ncells_per_wavelength = 10\n"
    "[source]\ntype = point\ncenter_x = 20\ncenter_y = 16\namplitude = 20\n"
    "[boundary]\ntype = mur\n"
    "[material.wet]\neps_r = 2\nsigma = 0.2\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 31.5\n"
    "center_y = 14\nradius = 4\n"
    "[object.plate]\nshape = rectangle\nmaterial = wet\ncenter_x = 43\ncenter_y = 17\n"
    "width = 3\nheight = 12\n";

static const char *MUR_WAVE =
    "[grid]\nnx = 67\nny = 53\nsteps = 70\ncourant = 0.6\ncells_per_wavelength = 12\n"
    "[source]\ntype = plane_wave\nangle = 35\namplitude = 2\n"
    "[boundary]\ntype = mur\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 4.5\ncenter_y = 30\n"
    "width = 3\nheight = 14\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 47.5\n"
    "center_y = 32.3\nradius = 5.3\n";

/* Outside the scope: conformal PEC (cut edges). */
static const char *CONFORMAL =
    "[grid]\nnx = 60\nny = 52\nsteps = 60\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "conformal_pec = true\n"
    "[source]\ntype = plane_wave\nangle = 20\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 30.3\ncenter_y = 26.6\n"
    "radius = 6.2\n";

/* CPML edges of 6 cells (slabs across the tile borders x, y = 16 of the
 * corner tiles), a plane wave at 20 degrees, a smoothed dielectric rod
 * across x = 32, a lossy disc across y = 32; and the same grid with a point
 * source near the x = 16 border, its wave in the slabs by the end. */
static const char *CPML =
    "[grid]\nnx = 60\nny = 52\nsteps = 100\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\ntype = plane_wave\nangle = 20\n"
    "[boundary]\ntype = cpml\ncells = 6\n"
    "[material.wet]\neps_r = 2\nsigma = 0.2\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 31.6\n"
    "center_y = 22\nradius = 6\n"
    "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = 44.2\ncenter_y = 32.4\n"
    "radius = 4\n";

static const char *CPML_POINT =
    "[grid]\nnx = 60\nny = 52\nsteps = 100\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\ntype = point\ncenter_x = 17\ncenter_y = 26\namplitude = 20\n"
    "[boundary]\ntype = cpml\ncells = 6\n"
    "[material.wet]\neps_r = 3\nsigma = 0.1\n"
    "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = 33\ncenter_y = 30.5\n"
    "radius = 4\n";

static void set_tb(int k, const char *tile, const char *local)
{
    char v[16];
    snprintf(v, sizeof v, "%d", k);
    setenv("TEXFDTD_GLC_K", v, 1);
    setenv("TEXFDTD_GLC_TILE", tile, 1);
    setenv("TEXFDTD_GL_LOCAL", local, 1);
}

static void step_ok(struct engine *e, int n)
{
    char err[ERRLEN];
    cr_assert_eq(engine_step(e, n, err, sizeof err), 0, "step: %s", err);
}

static void read3(struct engine *e, float *f[3])
{
    char err[ERRLEN];
    for (int k = 0; k < 3; k++) {
        f[k] = malloc(e->model->ncells * sizeof *f[k]);
        cr_assert_eq(engine_read(e, (enum field)k, f[k], err, sizeof err), 0, "read: %s", err);
    }
}

static void free3(float *f[3])
{
    for (int k = 0; k < 3; k++)
        free(f[k]);
}

static double max_abs_f(const float *v, size_t n)
{
    double m = 0;
    for (size_t q = 0; q < n; q++)
        m = fmax(m, fabs(v[q]));
    return m;
}

/* The engine runs K steps per dispatch (it says so), or declines. */
static void expect_blocking(struct engine *e, int k)
{
    struct engine_info info;
    engine_describe(e, &info);
    cr_log_info("gl-compute: %s", info.detail);
    cr_assert_eq(gl_engine_steps_per_pass(e), k, "%s", info.detail);
    if (k > 1)
        cr_assert(strstr(info.detail, "steps per compute dispatch (temporal blocking") != NULL,
                  "%s", info.detail);
}

/* The warp wavefront (TEXFDTD_GLC_PATH=wavefront), K, the rows per strip
 * and the exchange (NULL: auto). */
static void set_wf(int k, int rows, const char *shuffle)
{
    char v[16], r[16];
    snprintf(v, sizeof v, "%d", k);
    snprintf(r, sizeof r, "%d", rows);
    setenv("TEXFDTD_GLC_PATH", "wavefront", 1);
    setenv("TEXFDTD_GLC_K", v, 1);
    setenv("TEXFDTD_GLC_ROWS", r, 1);
    if (shuffle)
        setenv("TEXFDTD_GLC_SHUFFLE", shuffle, 1);
    else
        unsetenv("TEXFDTD_GLC_SHUFFLE");
}

/* The engine runs K steps per dispatch as the warp wavefront (it says so). */
static void expect_wavefront(struct engine *e, int k, int rows)
{
    expect_blocking(e, k);
    struct engine_info info;
    engine_describe(e, &info);
    char want[96];
    snprintf(want, sizeof want, "warp wavefront, strips of %d rows, %d of a warp's 32 columns",
             rows, 32 - 2 * k);
    cr_assert(strstr(info.detail, want) != NULL, "%s", info.detail);
}

/* gl's fields after `steps` steps against the cpu engine run as many in
 * gl's denormal mode: 0 differing bits, and a wave in the grid. */
static void expect_cpu_bits(struct engine *g, int steps, const char *what)
{
    const struct model *m = g->model;
    float *f[3];
    read3(g, f);
    struct engine_info info;
    engine_describe(g, &info);
    struct engine *c = gl_test_engine("cpu", m, info.denormals, 1);
    step_ok(c, steps);
    float *cf[3];
    read3(c, cf);
    engine_destroy(c);
    double on_object = 0;
    for (size_t q = 0; q < m->nslots; q++)
        on_object = fmax(on_object, fabs(cf[0][m->slot_cell[q]]));
    cr_assert_gt(on_object, 0.05, "%s: the wave has not reached the objects", what);
    cr_assert_gt(max_abs_f(cf[1], m->ncells), 0.05, "%s: Hx is still ~0", what);
    cr_assert_gt(max_abs_f(cf[2], m->ncells), 0.05, "%s: Hy is still ~0", what);
    for (int k = 0; k < 3; k++) {
        uint32_t ulp = 0;
        const size_t d = count_bit_differences(f[k], cf[k], m->ncells, &ulp);
        cr_expect_eq(d, 0, "%s: %s after %d steps: %zu of %zu values differ from cpu (max %u ulp)",
                     what, field_name((enum field)k), steps, d, m->ncells, ulp);
    }
    free3(cf);
    free3(f);
}

/* `scene` on gl-compute as the environment says, K steps per dispatch
 * (in tiles, or with rows > 0 as the warp wavefront on strips of `rows`
 * rows), in engine_step calls of the lengths `chunks` (0 ends), against the
 * cpu engine. */
static void run_agree(const char *scene, int k, int rows, const int *chunks, const char *what)
{
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    struct engine *g = gl_test_engine("gl-compute", &t.model, DENORMALS_FLUSH, 0);
    if (rows > 0)
        expect_wavefront(g, k, rows);
    else
        expect_blocking(g, k);
    int steps = 0;
    for (int q = 0; chunks[q]; q++) {
        step_ok(g, chunks[q]);
        steps += chunks[q];
    }
    cr_assert_eq(g->step, steps);
    expect_cpu_bits(g, steps, what);
    engine_destroy(g);
    setup_free(&t);
}

/* `scene` with K steps per dispatch on `tile` tiles of `local` work
 * groups. */
static void tb_agree(const char *scene, int k, const char *tile, const char *local,
                     const int *chunks)
{
    set_tb(k, tile, local);
    char what[96];
    snprintf(what, sizeof what, "K = %d, tile %s, groups %s", k, tile, local);
    run_agree(scene, k, 0, chunks, what);
}

/* 70 steps in calls of 1, 5, 17 and 47: none a multiple of 3 or 4 */
static const int CALLS[] = {1, 5, 17, 47, 0};
static const int WHOLE_POINT[] = {58, 0};

Test(gl_tb, box_k2_k3_k4_equal_cpu)
{
    for (int k = 2; k <= 4; k++)
        tb_agree(BOX, k, "16x16", "16x16", CALLS);
}

Test(gl_tb, point_source_k2_k3_k4_equal_cpu)
{
    for (int k = 2; k <= 4; k++)
        tb_agree(POINT, k, "16x16", "16x16", k == 3 ? CALLS : WHOLE_POINT);
}

/* Deep blocks: K = 5 and 8 (the halo as wide as half the tile). */
Test(gl_tb, box_k5_k8_equal_cpu)
{
    tb_agree(BOX, 5, "16x16", "16x16", CALLS);
    tb_agree(BOX, 8, "16x16", "16x16", CALLS);
}

/* Other tile shapes and work groups (more region cells per invocation, a
 * tile smaller than its halo), in fenced batches of 7 steps: every batch
 * ends in steps short of a whole K. */
Test(gl_tb, tiles_and_small_batches_equal_cpu)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    tb_agree(BOX, 3, "24x8", "8x8", CALLS);
    tb_agree(POINT, 4, "5x7", "4x4", CALLS);
}

/* K steps per dispatch in 16 x 16 tiles, or (rows > 0) as the warp
 * wavefront on strips of `rows` rows; and the engine says so. */
static void set_path(int k, int rows)
{
    if (rows > 0) {
        set_wf(k, rows, NULL);
    } else {
        unsetenv("TEXFDTD_GLC_PATH");
        set_tb(k, "16x16", "16x16");
    }
}

static void expect_path(struct engine *e, int k, int rows)
{
    if (rows > 0)
        expect_wavefront(e, k, rows);
    else
        expect_blocking(e, k);
}

/* A checkpoint at step `cut` of a K = k1 run (rows1: set_path), loaded into
 * a K = k2 engine (rows2) that runs the rest: the cpu engine's fields. */
static void resume_on(const char *scene, int k1, int rows1, int k2, int rows2, int cut, int steps)
{
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    const struct model *m = &t.model;
    char err[ERRLEN];
    set_path(k1, rows1);
    struct engine *a = gl_test_engine("gl-compute", m, DENORMALS_FLUSH, 0);
    expect_path(a, k1, rows1);
    step_ok(a, cut);
    struct mem_state st = {.io = {.load = false, .array = mem_array}};
    st.io.ctx = &st;
    cr_assert_eq(engine_state(a, &st.io, a->step, err, sizeof err), 0, "save: %s", err);
    struct engine_info info;
    engine_describe(a, &info);
    engine_destroy(a);
    set_path(k2, rows2);
    struct engine *b = gl_test_engine("gl-compute", m, info.denormals, 0);
    expect_path(b, k2, rows2);
    st.io.load = true;
    cr_assert_eq(engine_state(b, &st.io, cut, err, sizeof err), 0, "load: %s", err);
    step_ok(b, steps - cut);
    char what[96];
    snprintf(what, sizeof what, "checkpoint at %d, K = %d (rows %d) then %d (rows %d)", cut, k1,
             rows1, k2, rows2);
    expect_cpu_bits(b, steps, what);
    engine_destroy(b);
    mem_free(&st);
    setup_free(&t);
}

/* ... both on 16 x 16 tiles */
static void resume(const char *scene, int k1, int k2, int cut, int steps)
{
    resume_on(scene, k1, 0, k2, 0, cut, steps);
}

/* at step 31: not a multiple of 3 or 4 */
Test(gl_tb, checkpoint_between_blocks_resumes) { resume(BOX, 3, 4, 31, 70); }

/* A scene outside update_tb.comp's scope keeps the one-step dispatches,
 * says why, and keeps the cpu engine's bits. */
static void declines(const char *scene, int steps, const char *why)
{
    set_tb(3, "16x16", "16x16");
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    struct engine *g = gl_test_engine("gl-compute", &t.model, DENORMALS_FLUSH, 0);
    expect_blocking(g, 1);
    struct engine_info info;
    engine_describe(g, &info);
    char want[96];
    snprintf(want, sizeof want, "temporal blocking declined, the scene has %s", why);
    cr_expect(strstr(info.detail, want) != NULL, "%s", info.detail);
    step_ok(g, steps);
    expect_cpu_bits(g, steps, want);
    engine_destroy(g);
    setup_free(&t);
}

/* 100 steps in calls of 1, 5, 17 and 77 */
static const int CALLS_100[] = {1, 5, 17, 77, 0};

/* K = 2 and 4 in adaptive batches, K = 3 in fenced batches of 7. */
static void k2_k3_k4(const char *scene, const int *calls)
{
    tb_agree(scene, 2, "16x16", "16x16", calls);
    tb_agree(scene, 4, "16x16", "16x16", calls);
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    tb_agree(scene, 3, "16x16", "16x16", calls);
}

/* CPML: the psi of every slab node kept beside its fields, read from one
 * texture of each psi pair and written into the other, the steps short of
 * K in place (two dispatches), the K = 3 run in fenced batches of 7. */
Test(gl_tb, cpml_k2_k3_k4_equal_cpu) { k2_k3_k4(CPML, CALLS_100); }

Test(gl_tb, cpml_point_source_equals_cpu)
{
    tb_agree(CPML_POINT, 3, "16x16", "16x16", CALLS_100);
    tb_agree(CPML_POINT, 5, "5x7", "4x4", CALLS_100); /* slabs across tile borders in x too */
}

/* A checkpoint of a CPML run (its psi, from the texture of each pair that
 * is current after a K-step dispatch) at step 31 of K = 3, resumed at
 * K = 4. */
Test(gl_tb, cpml_checkpoint_between_blocks_resumes) { resume(CPML, 3, 4, 31, 100); }

/* Mur: each wall node from its neighbour's old Ez and new sweep, recomputed
 * by the wall's owner from the new H around the neighbour (a halo of K + 1
 * cells). */
Test(gl_tb, mur_k2_k3_k4_equal_cpu) { k2_k3_k4(MUR, CALLS); }

Test(gl_tb, mur_plane_wave_equals_cpu)
{
    tb_agree(MUR_WAVE, 3, "16x16", "16x16", CALLS);
    tb_agree(MUR_WAVE, 5, "5x7", "4x4", CALLS);
}

Test(gl_tb, conformal_scene_declines_and_equals_cpu)
{
    declines(CONFORMAL, 100, "conformal-PEC");
}

/* Settings it cannot run are refused at creation, with what to change. */
Test(gl_tb, bad_settings_are_refused)
{
    struct test_setup t;
    setup_from_text(&t, BOX, NULL, 0);
    /* a GL context at all, else skip */
    engine_destroy(gl_test_engine("gl-compute", &t.model, DENORMALS_FLUSH, 0));
    const struct {
        const char *k, *tile, *expect;
    } bad[4] = {{"0", "16x16", "TEXFDTD_GLC_K=0"},
                {"17", "16x16", "TEXFDTD_GLC_K=17"},
                {"3", "16", "TEXFDTD_GLC_TILE=16"},
                {"4", "1024x1024", "shared memory"}};
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    for (int q = 0; q < 4; q++) {
        setenv("TEXFDTD_GLC_K", bad[q].k, 1);
        setenv("TEXFDTD_GLC_TILE", bad[q].tile, 1);
        struct engine *e = NULL;
        char err[ERRLEN] = "";
        cr_expect_neq(engine_create("gl-compute", &t.model, &o, &e, err, sizeof err), 0,
                      "K %s, tile %s was accepted", bad[q].k, bad[q].tile);
        cr_expect(strstr(err, bad[q].expect) != NULL, "%s", err);
        if (e)
            engine_destroy(e);
    }
    setup_free(&t);
}

/* ---- the warp wavefront (shaders/update_wf.comp, TEXFDTD_GLC_PATH=wavefront;
 * docs/gl.md, "The warp wavefront"): a warp of 32 lanes walks up a strip of
 * R rows, the K steps' rows in registers, x neighbours from the next and
 * previous lane, 32 - 2K columns stored a warp.  On llvmpipe (no subgroup
 * or NV shuffles) the lanes exchange through shared memory and barriers,
 * the same statements as the GPU's shuffles.  The same scenes as above: a
 * plane wave, a point source, PEC, dielectric and lossy objects across the
 * borders of the bands (x = 28, 56 for K = 2; 26, 52 for K = 3; 20, 40, 60
 * for K = 6; 16, 32, 48, 64 for K = 8) and of the strips, on grids that are
 * multiples of neither. ---- */

/* `scene` on the warp wavefront with K steps per dispatch on strips of
 * `rows` rows. */
static void wf_agree(const char *scene, int k, int rows, const int *chunks)
{
    set_wf(k, rows, NULL);
    char what[96];
    snprintf(what, sizeof what, "wavefront K = %d, strips of %d rows", k, rows);
    run_agree(scene, k, rows, chunks, what);
}

/* strips of 16, 7 and 13 rows: 53 is a multiple of none (16: the last strip
 * 5 rows; 7: 8 strips, a group of 8 warps, the last one out of the grid) */
Test(gl_wf, box_k2_k3_k6_equal_cpu)
{
    wf_agree(BOX, 2, 16, CALLS);
    wf_agree(BOX, 3, 7, CALLS);
    wf_agree(BOX, 6, 13, CALLS);
}

/* K = 8: 16 columns a warp; strips of 1 row (every row a warp) and of 64
 * (one strip taller than the grid) */
Test(gl_wf, box_k8_and_extreme_strips_equal_cpu)
{
    wf_agree(BOX, 8, 10, CALLS);
    wf_agree(BOX, 4, 1, CALLS);
    wf_agree(BOX, 5, 64, CALLS);
}

/* The point source (POINT at (29, 22): in band 1 for K = 3, on the border
 * column 28 of K = 2's second band) and its steps short of K in two
 * dispatches. */
Test(gl_wf, point_source_equals_cpu)
{
    wf_agree(POINT, 2, 11, CALLS);
    wf_agree(POINT, 3, 16, WHOLE_POINT);
    wf_agree(POINT, 6, 9, CALLS);
}

/* Fenced batches of 7 steps: every batch ends in steps short of a whole K. */
Test(gl_wf, small_batches_equal_cpu)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    wf_agree(BOX, 4, 12, CALLS);
    wf_agree(POINT, 3, 8, CALLS);
}

/* Takada's scene (scenes/takada_square.ini) at 96 x 96: the PEC square's
 * slots (scattered field, -E_inc) across the band borders x = 40, 50 for K
 * = 3 and 6 (26, 52, 78 and 20, 40, 60, 80) and strip borders. */
static const char *TAKADA =
    "[grid]\nnx = 96\nny = 96\nsteps = 120\ncourant = 0.5\ncells_per_wavelength = 20\n"
    "[source]\ntype = plane_wave\nangle = 0\namplitude = 1\nramp_periods = 1\n"
    "front_offset = 12\n"
    "[boundary]\ntype = pec\n"
    "[object.square]\nshape = rectangle\nmaterial = pec\ncenter_x = 47.5\ncenter_y = 47.5\n"
    "width = 15.9\nheight = 15.9\n";

static const int CALLS_120[] = {1, 5, 17, 97, 0};

Test(gl_wf, takada_square_equals_cpu)
{
    wf_agree(TAKADA, 3, 20, CALLS_120);
    wf_agree(TAKADA, 6, 64, CALLS_120);
}

/* A checkpoint at step 31 of a wavefront run of K = 3, strips of 16 rows,
 * loaded into one of K = 5, strips of 9, and into the tiles of K = 4: the
 * cpu engine's fields. */
Test(gl_wf, checkpoint_between_blocks_resumes)
{
    resume_on(BOX, 3, 16, 5, 9, 31, 70);
    resume_on(POINT, 3, 16, 4, 0, 31, 58);
}

/* A monitor, CPML or Mur scene asked for the wavefront runs the tiles of
 * update_tb.comp with the same K instead, says why, and keeps the cpu
 * engine's bits; a conformal scene keeps the one-step dispatches. */
static const char *BOX_PROBE_TAIL = "[probe.p]\nx = 30\ny = 21\nfields = all\n";

static void wf_declines(const char *scene, int steps, int k_runs, const char *why)
{
    set_wf(3, 16, NULL);
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    struct engine *g = gl_test_engine("gl-compute", &t.model, DENORMALS_FLUSH, 0);
    expect_blocking(g, k_runs);
    struct engine_info info;
    engine_describe(g, &info);
    cr_expect(strstr(info.detail, why) != NULL, "%s", info.detail);
    cr_expect(strstr(info.detail, "warp wavefront, strips") == NULL, "%s", info.detail);
    step_ok(g, steps);
    expect_cpu_bits(g, steps, why);
    engine_destroy(g);
    setup_free(&t);
}

Test(gl_wf, out_of_scope_scenes_decline_and_equal_cpu)
{
    char probe[2048];
    snprintf(probe, sizeof probe, "%s%s", BOX, BOX_PROBE_TAIL);
    wf_declines(probe, 70, 3, "tiles; the warp wavefront declined, the scene has monitors");
    wf_declines(CPML, 100, 3, "tiles; the warp wavefront declined, the scene has CPML");
    wf_declines(MUR, 60, 3, "tiles; the warp wavefront declined, the scene has Mur");
    wf_declines(CONFORMAL, 100, 1, "temporal blocking declined, the scene has conformal-PEC");
}

/* The path asked for: TEXFDTD_GLC_PATH=one runs one step per dispatch
 * whatever K says; tiles without K run 4 steps per dispatch in tiles; the
 * shared-memory exchange asked for by name says so. */
Test(gl_wf, paths_by_name)
{
    struct test_setup t;
    setup_from_text(&t, BOX, NULL, 0);
    set_wf(4, 16, NULL);
    setenv("TEXFDTD_GLC_PATH", "one", 1);
    struct engine *g = gl_test_engine("gl-compute", &t.model, DENORMALS_FLUSH, 0);
    expect_blocking(g, 1);
    engine_destroy(g);
    setenv("TEXFDTD_GLC_PATH", "tiles", 1);
    unsetenv("TEXFDTD_GLC_K");
    g = gl_test_engine("gl-compute", &t.model, DENORMALS_FLUSH, 0);
    expect_blocking(g, 4);
    struct engine_info info;
    engine_describe(g, &info);
    cr_expect(strstr(info.detail, "tiles") != NULL && strstr(info.detail, "wavefront") == NULL,
              "%s", info.detail);
    engine_destroy(g);
    set_wf(2, 5, "shared");
    g = gl_test_engine("gl-compute", &t.model, DENORMALS_FLUSH, 0);
    expect_wavefront(g, 2, 5);
    engine_describe(g, &info);
    cr_expect(strstr(info.detail, "shared memory and barriers (TEXFDTD_GLC_SHUFFLE=shared)")
                  != NULL,
              "%s", info.detail);
    engine_destroy(g);
    setup_free(&t);
}

/* Settings it cannot run are refused at creation, with what to change; an
 * exchange the driver lacks too (llvmpipe has neither kind of shuffle: the
 * refusal is checked only where the driver lacks it). */
Test(gl_wf, bad_settings_are_refused)
{
    struct test_setup t;
    setup_from_text(&t, BOX, NULL, 0);
    engine_destroy(gl_test_engine("gl-compute", &t.model, DENORMALS_FLUSH, 0)); /* GL at all */
    const struct {
        const char *path, *k, *rows, *shuffle, *expect;
    } bad[6] = {{"waves", "4", "16", "auto", "TEXFDTD_GLC_PATH=waves"},
                {"wavefront", "1", "16", "auto", "TEXFDTD_GLC_K=1: the warp wavefront"},
                {"wavefront", "9", "16", "auto", "TEXFDTD_GLC_K=9: the warp wavefront"},
                {"wavefront", "4", "0", "auto", "TEXFDTD_GLC_ROWS=0"},
                {"wavefront", "4", "16x", "auto", "TEXFDTD_GLC_ROWS=16x"},
                {"wavefront", "4", "16", "warp", "TEXFDTD_GLC_SHUFFLE=warp"}};
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    for (int q = 0; q < 6; q++) {
        setenv("TEXFDTD_GLC_PATH", bad[q].path, 1);
        setenv("TEXFDTD_GLC_K", bad[q].k, 1);
        setenv("TEXFDTD_GLC_ROWS", bad[q].rows, 1);
        setenv("TEXFDTD_GLC_SHUFFLE", bad[q].shuffle, 1);
        struct engine *e = NULL;
        char err[ERRLEN] = "";
        cr_expect_neq(engine_create("gl-compute", &t.model, &o, &e, err, sizeof err), 0,
                      "%s was accepted", bad[q].expect);
        cr_expect(strstr(err, bad[q].expect) != NULL, "%s", err);
        if (e)
            engine_destroy(e);
    }
    /* the shuffles: refused where the driver lacks them, else they run */
    const char *kinds[2] = {"nv", "subgroup"};
    for (int q = 0; q < 2; q++) {
        set_wf(4, 16, kinds[q]);
        struct engine *e = NULL;
        char err[ERRLEN] = "";
        if (engine_create("gl-compute", &t.model, &o, &e, err, sizeof err) == 0) {
            cr_log_info("TEXFDTD_GLC_SHUFFLE=%s runs on this driver", kinds[q]);
            expect_wavefront(e, 4, 16);
            engine_destroy(e);
            continue;
        }
        char want[64];
        snprintf(want, sizeof want, "TEXFDTD_GLC_SHUFFLE=%s: ", kinds[q]);
        cr_expect(strstr(err, want) != NULL && strstr(err, "nothing was run") != NULL, "%s", err);
        cr_log_info("refused: %s", err);
    }
    setup_free(&t);
}
