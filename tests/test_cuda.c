/* test_cuda.c - the CUDA engines against the CPU engines.
 *
 * Without a working CUDA device every test skips with the reason, unless
 * TEXFDTD_REQUIRE_GPU=1 (make test-gpu), which turns that into a failure.
 * In builds without CUDA the suite skips (or fails, when required) too.
 *
 * Expectations: float with denormals flushed follows the CPU's statements
 * and roundings (common.cuh), and double never flushes on either side, so
 * every 3D strategy (A1, A2, A3) and path, and the 2D engine in float, give
 * the CPU's bits: asserted as bit identity (the bounds, relative L2
 * <= 1e-6 float / 1e-12 double, are implied); the ULP statistics are logged.
 * 2D double keeps the 1e-12 bound.
 *
 * Every step path is run: 3D with TEXFDTD_CUDA3D = two and fused (the fused
 * one with 32-plane chunks so that the 33-plane scene crosses a chunk
 * boundary), 2D with TEXFDTD_CUDA2D = two, fused and, on a scene it
 * applies to, temporal with K = 2, 4, 6, 8 and a step count that is not a
 * multiple of K. */
#include "helpers.h"

static bool gpu_or_skip(const struct model *m)
{
    char err[ERRLEN];
    struct engine *e;
    const bool required = getenv("TEXFDTD_REQUIRE_GPU") && !strcmp(getenv("TEXFDTD_REQUIRE_GPU"), "1");
    if (!engine_find("cuda", m->nz > 1 ? 3 : 2)) {
        if (required)
            cr_assert_fail("TEXFDTD_REQUIRE_GPU=1 but this build has no CUDA engine (no nvcc?)");
        cr_skip_test("this build has no CUDA engine (nvcc not found)");
        return false;
    }
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH};
    if (engine_create("cuda", m, &o, &e, err, sizeof err)) {
        if (required)
            cr_assert_fail("TEXFDTD_REQUIRE_GPU=1 but the CUDA engine fails: %s", err);
        cr_skip_test("no usable CUDA device: %s", err);
        return false;
    }
    engine_destroy(e);
    return true;
}

/* Run `name` for `steps` and read the scene's fields (malloc'ed). */
static int run_fields(const char *name, const struct model *m, const struct engine_options *o,
                      int steps, void *f[6])
{
    char err[ERRLEN];
    struct engine *e;
    cr_assert_eq(engine_create(name, m, o, &e, err, sizeof err), 0, "%s: %s", name, err);
    cr_assert_eq(engine_step(e, steps, err, sizeof err), 0, "%s: %s", name, err);
    struct engine_info info;
    engine_describe(e, &info);
    cr_log_info("%s: %s", name, info.detail);
    enum field ids[6];
    const int n = scene_fields(m->scene, ids);
    for (int q = 0; q < n; q++) {
        f[q] = malloc(m->ncells * precision_size(o->precision));
        cr_assert_eq(engine_read(e, ids[q], f[q], err, sizeof err), 0, "%s: %s", name, err);
    }
    engine_destroy(e);
    return n;
}

struct diff {
    double rel;
    size_t differ;
    uint32_t max_ulp;
};

static struct diff compare(const void *a, const void *b, size_t n, enum precision p)
{
    struct diff d = {0};
    double num = 0, den = 0;
    for (size_t c = 0; c < n; c++) {
        const double x = p == PRECISION_DOUBLE ? ((const double *)a)[c] : ((const float *)a)[c];
        const double y = p == PRECISION_DOUBLE ? ((const double *)b)[c] : ((const float *)b)[c];
        num += (x - y) * (x - y);
        den += y * y;
        if (memcmp((const char *)a + c * precision_size(p), (const char *)b + c * precision_size(p),
                   precision_size(p))) {
            d.differ++;
            if (p == PRECISION_SINGLE) {
                const uint32_t u = ulp_distance_f(((const float *)a)[c], ((const float *)b)[c]);
                d.max_ulp = u > d.max_ulp ? u : d.max_ulp;
            }
        }
    }
    d.rel = den > 0 ? sqrt(num / den) : sqrt(num);
    return d;
}

static const char *scene3d = "[grid]\nnx = 45\nny = 38\nnz = 33\nsteps = 150\ncourant = 0.5\n"
                             "cells_per_wavelength = 12\n"
                             "[source]\ntype = point\ncenter_x = 17\ncenter_y = 18\ncenter_z = 15\n"
                             "[boundary]\ntype = cpml\ncells = 7\n"
                             "[object.ball]\nshape = sphere\nmaterial = dielectric\neps_r = 3\n"
                             "center_x = 26\ncenter_y = 19\ncenter_z = 17\nradius = 5\n"
                             "[object.plate]\nshape = box\nmaterial = pec\ncenter_x = 17\n"
                             "center_y = 25\ncenter_z = 15\nwidth = 9\nheight = 2\ndepth = 7\n";

/* CUDA 3D against cpu3d for one strategy, float (flush) and double. */
static void cuda3d_vs_cpu_path(const char *strategy, const char *boundary);
static void cuda3d_vs_cpu(const char *strategy, const char *boundary)
{
    const char *paths[2] = {"two", "fused"};
    for (int k = 0; k < 2; k++) {
        setenv("TEXFDTD_CUDA3D", paths[k], 1);
        setenv("TEXFDTD_CUDA3D_KZ", "32", 1);
        cr_log_info("TEXFDTD_CUDA3D=%s", paths[k]);
        cuda3d_vs_cpu_path(strategy, boundary);
    }
    unsetenv("TEXFDTD_CUDA3D");
    unsetenv("TEXFDTD_CUDA3D_KZ");
}

static void cuda3d_vs_cpu_path(const char *strategy, const char *boundary)
{
    struct test_setup t;
    char s1[64], s2[64];
    snprintf(s1, sizeof s1, "boundary.strategy=%s", strategy);
    snprintf(s2, sizeof s2, "boundary.type=%s", boundary);
    const char *sets[2] = {s1, s2};
    /* Mur and PEC scenes have no cells = key: build them from the text */
    char text[2048];
    snprintf(text, sizeof text, "%s", scene3d);
    if (strcmp(boundary, "cpml")) {
        char *b = strstr(text, "[boundary]");
        char *o = strstr(text, "[object.ball]");
        char tail[1024];
        snprintf(tail, sizeof tail, "%s", o);
        snprintf(b, sizeof text - (size_t)(b - text), "[boundary]\ntype = %s\n%s", boundary, tail);
        setup_from_text(&t, text, NULL, 0);
    } else {
        setup_from_text(&t, text, sets, 1);
    }
    (void)s2;
    if (!gpu_or_skip(&t.model)) {
        setup_free(&t);
        return;
    }
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        struct engine_options o = {.precision = p,
                                   .denormals = pr ? DENORMALS_KEEP : DENORMALS_FLUSH};
        void *a[6], *b[6];
        const int n = run_fields("cuda", &t.model, &o, 150, a);
        run_fields("cpu", &t.model, &o, 150, b);
        for (int q = 0; q < n; q++) {
            const struct diff d = compare(a[q], b[q], t.model.ncells, p);
            cr_log_info("3D %s %s %s component %d: rel L2 %.3g, %zu cells differ, max %u ulp",
                        boundary, strategy, precision_name(p), q, d.rel, d.differ, d.max_ulp);
            /* Every strategy and path evaluates update3d.inc's expression in
             * its order (A3 too, since its face kernels update psi before the
             * field kernel reads them): the same bits, float (flush) and
             * double (keep). */
            cr_assert_eq(d.differ, 0, "%s %s %s component %d: %zu cells differ (rel L2 %g, max %u ulp)",
                         boundary, strategy, precision_name(p), q, d.differ, d.rel, d.max_ulp);
            free(a[q]);
            free(b[q]);
        }
    }
    setup_free(&t);
}

Test(cuda3d, a1_combined_matches_cpu, .timeout = 120) { cuda3d_vs_cpu("combined", "cpml"); }
Test(cuda3d, a2_regions_matches_cpu, .timeout = 120) { cuda3d_vs_cpu("regions", "cpml"); }
Test(cuda3d, a3_per_face_matches_cpu, .timeout = 120) { cuda3d_vs_cpu("per-face", "cpml"); }
Test(cuda3d, mur_matches_cpu, .timeout = 120) { cuda3d_vs_cpu("combined", "mur"); }
Test(cuda3d, pec_matches_cpu, .timeout = 120) { cuda3d_vs_cpu("combined", "pec"); }
/* The un-coalesced thread mapping (the benchmark's counter-example) changes
 * which thread does a cell, never the cell's arithmetic: same bits. */
Test(cuda3d, uncoalesced_mapping_matches_cpu, .timeout = 120)
{
    setenv("TEXFDTD_CUDA3D", "two", 1);
    setenv("TEXFDTD_CUDA3D_MAP", "uncoalesced", 1);
    cuda3d_vs_cpu_path("combined", "cpml");
    unsetenv("TEXFDTD_CUDA3D_MAP");
    unsetenv("TEXFDTD_CUDA3D");
}

/* A1 and A2 evaluate the same expression for every cell: same bits. */
Test(cuda3d, a1_and_a2_agree_bit_for_bit, .timeout = 120)
{
    struct test_setup t1, t2;
    setup_from_text(&t1, scene3d, (const char *[]){"boundary.strategy=combined"}, 1);
    setup_from_text(&t2, scene3d, (const char *[]){"boundary.strategy=regions"}, 1);
    if (!gpu_or_skip(&t1.model))
        return;
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH};
    void *a[6], *b[6];
    run_fields("cuda", &t1.model, &o, 150, a);
    run_fields("cuda", &t2.model, &o, 150, b);
    for (int q = 0; q < 6; q++) {
        const struct diff d = compare(a[q], b[q], t1.model.ncells, PRECISION_SINGLE);
        cr_assert_eq(d.differ, 0, "component %d: %zu cells differ (max %u ulp)", q, d.differ, d.max_ulp);
        free(a[q]);
        free(b[q]);
    }
    setup_free(&t1);
    setup_free(&t2);
}

/* A scene that cannot fit is refused before allocating, with numbers. */
Test(cuda3d, refuses_a_scene_that_does_not_fit)
{
    struct test_setup t;
    setup_from_text(&t, scene3d, NULL, 0);
    if (!gpu_or_skip(&t.model))
        return;
    struct model big = t.model;
    big.nx = big.ny = big.nz = 8192; /* 2^39 cells */
    big.ncells = (size_t)8192 * 8192 * 8192;
    big.pml_n = 0;
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH};
    struct engine *e;
    char err[ERRLEN];
    cr_assert_neq(engine_create("cuda", &big, &o, &e, err, sizeof err), 0);
    cr_log_info("refusal: %s", err);
    cr_assert(strstr(err, "needs") && strstr(err, "free"), "message: %s", err);
    setup_free(&t);
}

/* 2D: bit-identical to the CPU engine in float/flush, on a plane-wave scene
 * with PEC and dielectric objects (slots), with CPML, Mur and the DFT. */
static const char *scene2d = "[grid]\nnx = 130\nny = 97\nsteps = 300\n"
                             "[source]\nangle = 30\nfront_offset = 5\n"
                             "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
                             "center_x = 55\ncenter_y = 45\nradius = 12.5\n"
                             "[object.plate]\nshape = rectangle\nmaterial = pec\n"
                             "center_x = 85\ncenter_y = 55\nwidth = 5\nheight = 20\n"
                             "[monitor.dft]\nstart_step = 150\n";

static void cuda2d_vs_cpu_text(const char *text, int steps, const char *expect_path);
static void cuda2d_vs_cpu(const char *boundary_lines)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s", scene2d, boundary_lines);
    /* fused twice: 16-byte vectors (where no CPML) and one column per thread;
     * temporal falls back to fused on these scenes (DFT) */
    const char *paths[4] = {"two", "fused", "fused", "temporal"};
    for (int k = 0; k < 4; k++) {
        setenv("TEXFDTD_CUDA2D", paths[k], 1);
        setenv("TEXFDTD_CUDA2D_VEC", k == 2 ? "0" : "1", 1);
        cr_log_info("TEXFDTD_CUDA2D=%s TEXFDTD_CUDA2D_VEC=%d", paths[k], k != 2);
        cuda2d_vs_cpu_text(text, 300, k == 0 ? "two kernels" : "fused");
    }
    unsetenv("TEXFDTD_CUDA2D");
    unsetenv("TEXFDTD_CUDA2D_VEC");
}

/* expect_path: the engine's description must name that step path. */
static void cuda2d_vs_cpu_text(const char *text, int steps, const char *expect_path)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    if (!gpu_or_skip(&t.model)) {
        setup_free(&t);
        return;
    }
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        struct engine_options o = {.precision = p,
                                   .denormals = pr ? DENORMALS_KEEP : DENORMALS_FLUSH};
        char err[ERRLEN];
        struct engine *g, *c;
        cr_assert_eq(engine_create("cuda", &t.model, &o, &g, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_create("cpu", &t.model, &o, &c, err, sizeof err), 0, "%s", err);
        /* in two calls, so a temporal path also starts mid-block */
        cr_assert_eq(engine_step(g, steps / 3, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_step(g, steps - steps / 3, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_step(c, steps, err, sizeof err), 0, "%s", err);
        struct engine_info info;
        engine_describe(g, &info);
        cr_log_info("cuda: %s", info.detail);
        cr_assert(strstr(info.detail, expect_path), "expected the %s path: %s", expect_path, info.detail);
        const size_t bytes = t.model.ncells * precision_size(p);
        void *a = malloc(bytes), *b = malloc(bytes);
        const enum field ids[5] = {FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_EZ_DFT_RE, FIELD_EZ_DFT_IM};
        const int nf = t.model.scene->dft ? 5 : 3;
        for (int q = 0; q < nf; q++) {
            cr_assert_eq(engine_read(g, ids[q], a, err, sizeof err), 0, "%s", err);
            cr_assert_eq(engine_read(c, ids[q], b, err, sizeof err), 0, "%s", err);
            const struct diff d = compare(a, b, t.model.ncells, p);
            cr_log_info("2D %s %s: rel L2 %.3g, %zu cells differ, max %u ulp", precision_name(p),
                        field_name(ids[q]), d.rel, d.differ, d.max_ulp);
            if (p == PRECISION_SINGLE)
                cr_assert_eq(d.differ, 0, "2D float %s: %zu cells differ from cpu (max %u ulp)",
                             field_name(ids[q]), d.differ, d.max_ulp);
            else
                cr_assert_leq(d.rel, 1e-12, "2D double %s: rel L2 %g", field_name(ids[q]), d.rel);
        }
        free(a);
        free(b);
        engine_destroy(g);
        engine_destroy(c);
    }
    setup_free(&t);
}

Test(cuda2d, pec_boundary_bit_identical_to_cpu, .timeout = 60) { cuda2d_vs_cpu(""); }
Test(cuda2d, cpml_bit_identical_to_cpu, .timeout = 60) { cuda2d_vs_cpu("[boundary]\ntype = cpml\ncells = 10\n"); }
Test(cuda2d, mur_bit_identical_to_cpu, .timeout = 60) { cuda2d_vs_cpu("[boundary]\ntype = mur\n"); }

/* The temporally blocked path (several steps per launch): a scene it takes
 * (PEC boundary, point source, dielectric and PEC objects, no slots or DFT),
 * K = 2, 4, 6, 8, 301 steps in two calls (not a multiple of K: the
 * remainder runs the fused kernel), bit-identical to cpu. */
Test(cuda2d, temporal_bit_identical_to_cpu, .timeout = 120)
{
    const char *text = "[grid]\nnx = 130\nny = 203\nsteps = 301\n"
                       "[source]\ntype = point\ncenter_x = 40\ncenter_y = 60\n"
                       "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
                       "center_x = 70\ncenter_y = 90\nradius = 15.5\n"
                       "[object.plate]\nshape = rectangle\nmaterial = pec\n"
                       "center_x = 95\ncenter_y = 120\nwidth = 5\nheight = 30\n";
    const char *ks[4] = {"2", "4", "6", "8"};
    setenv("TEXFDTD_CUDA2D", "temporal", 1);
    for (int k = 0; k < 4; k++) {
        setenv("TEXFDTD_CUDA2D_K", ks[k], 1);
        cr_log_info("TEXFDTD_CUDA2D_K=%s", ks[k]);
        cuda2d_vs_cpu_text(text, 301, "temporal");
    }
    unsetenv("TEXFDTD_CUDA2D");
    unsetenv("TEXFDTD_CUDA2D_K");
}

/* The fused path on a scene without objects (the material map is not read)
 * and with Mur (applied on the ping-pong pair), bit-identical to cpu. */
Test(cuda2d, fused_vacuum_mur_bit_identical_to_cpu, .timeout = 60)
{
    const char *text = "[grid]\nnx = 157\nny = 118\nsteps = 240\n"
                       "[source]\ntype = point\ncenter_x = 50\ncenter_y = 70\n"
                       "[boundary]\ntype = mur\n";
    setenv("TEXFDTD_CUDA2D", "fused", 1);
    for (int v = 0; v < 2; v++) {
        setenv("TEXFDTD_CUDA2D_VEC", v ? "1" : "0", 1);
        cuda2d_vs_cpu_text(text, 240, "fused");
    }
    unsetenv("TEXFDTD_CUDA2D");
    unsetenv("TEXFDTD_CUDA2D_VEC");
}

/* ---- the blow-up check (engine_check_finite) on the device ----
 * One kernel per field does an atomicMin of the first bad index; 24 or 48
 * bytes come back.  The scenes have nx = 130 (2D, rows padded to 256) and
 * nx = 45 (3D, padded to 64), and the planted cells lie in the last columns,
 * so an index in the padded numbering would be caught. */

static const char *blow2d = "[grid]\nnx = 130\nny = 97\nsteps = 60\n"
                            "[source]\ntype = point\ncenter_x = 40\ncenter_y = 60\n"
                            "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
                            "center_x = 70\ncenter_y = 50\nradius = 10.5\n"
                            "[object.plate]\nshape = rectangle\nmaterial = pec\n"
                            "center_x = 95\ncenter_y = 50\nwidth = 9\nheight = 30\n";

static void put_value(void *v, enum precision p, size_t c, double x)
{
    if (p == PRECISION_DOUBLE)
        ((double *)v)[c] = x;
    else
        ((float *)v)[c] = (float)x;
}

/* engine_check_finite, which must not fail; 1 and where, or 0. */
static int check_ok(struct engine *e, enum field *f, size_t *cell)
{
    char err[ERRLEN];
    const int r = engine_check_finite(e, f, cell, err, sizeof err);
    cr_assert_geq(r, 0, "check_finite: %s", err);
    return r;
}

/* For each field q of the scene: `bad` at cell (nx-1-q, 10+5q, 4+3q) and at
 * a later cell, -bad at cell 1 of the next field; the check names field q
 * and the first cell.  Then the fields are restored and the run is finite. */
static void cuda_blow_up_planted(const char *text, enum precision p, double bad)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    if (!gpu_or_skip(m)) {
        setup_free(&t);
        return;
    }
    struct engine_options o = {.precision = p,
                               .denormals = p == PRECISION_DOUBLE ? DENORMALS_KEEP
                                                                  : DENORMALS_FLUSH};
    char err[ERRLEN];
    struct engine *e;
    cr_assert_eq(engine_create("cuda", m, &o, &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e, 10, err, sizeof err), 0, "%s", err);
    enum field ids[6], f = FIELD_COUNT;
    size_t cell = 0;
    const int nf = scene_fields(m->scene, ids);
    cr_assert_eq(check_ok(e, &f, &cell), 0, "clean run: %s at %zu", field_name(f), cell);
    const size_t bytes = m->ncells * precision_size(p);
    void *orig[6], *v = malloc(bytes);
    for (int q = 0; q < nf; q++) {
        orig[q] = malloc(bytes);
        cr_assert_eq(engine_read(e, ids[q], orig[q], err, sizeof err), 0, "%s", err);
    }
    const size_t nx = (size_t)m->nx, ny = (size_t)m->ny;
    for (int q = 0; q < nf; q++) {
        const size_t k = m->nz > 1 ? (size_t)(4 + 3 * q) : 0;
        const size_t c = nx - 1 - (size_t)q + nx * ((size_t)(10 + 5 * q) + ny * k);
        memcpy(v, orig[q], bytes);
        put_value(v, p, c, bad);
        put_value(v, p, c + nx + 1, bad);
        cr_assert_eq(engine_write(e, ids[q], v, err, sizeof err), 0, "%s", err);
        if (q + 1 < nf) {
            memcpy(v, orig[q + 1], bytes);
            put_value(v, p, 1, -bad);
            cr_assert_eq(engine_write(e, ids[q + 1], v, err, sizeof err), 0, "%s", err);
        }
        cr_assert_eq(check_ok(e, &f, &cell), 1, "%s %g in %s not found", precision_name(p), bad,
                     field_name(ids[q]));
        cr_assert_eq(f, ids[q], "%s %g planted in %s, reported in %s", precision_name(p), bad,
                     field_name(ids[q]), field_name(f));
        cr_assert_eq(cell, c, "%s %g planted in %s at cell %zu, reported at %zu",
                     precision_name(p), bad, field_name(ids[q]), c, cell);
        for (int r = q; r < nf && r <= q + 1; r++)
            cr_assert_eq(engine_write(e, ids[r], orig[r], err, sizeof err), 0, "%s", err);
        cr_assert_eq(check_ok(e, &f, &cell), 0, "restored, yet %s at %zu", field_name(f), cell);
    }
    for (int q = 0; q < nf; q++)
        free(orig[q]);
    free(v);
    engine_destroy(e);
    setup_free(&t);
}

Test(cuda2d, blow_up_nan_planted_is_found)
{
    cuda_blow_up_planted(blow2d, PRECISION_SINGLE, NAN);
    cuda_blow_up_planted(blow2d, PRECISION_DOUBLE, NAN);
}
Test(cuda2d, blow_up_inf_planted_is_found)
{
    cuda_blow_up_planted(blow2d, PRECISION_SINGLE, INFINITY);
    cuda_blow_up_planted(blow2d, PRECISION_DOUBLE, -INFINITY);
}
Test(cuda3d, blow_up_nan_planted_is_found, .timeout = 60)
{
    cuda_blow_up_planted(scene3d, PRECISION_SINGLE, NAN);
    cuda_blow_up_planted(scene3d, PRECISION_DOUBLE, NAN);
}
Test(cuda3d, blow_up_inf_planted_is_found, .timeout = 60)
{
    cuda_blow_up_planted(scene3d, PRECISION_SINGLE, INFINITY);
    cuda_blow_up_planted(scene3d, PRECISION_DOUBLE, -INFINITY);
}

/* The first NaN or Inf of the read-back fields in scene_fields() order. */
static int host_first_bad(struct engine *e, enum field *f, size_t *cell)
{
    enum field ids[6];
    const int nf = scene_fields(e->model->scene, ids);
    const enum precision p = e->opt.precision;
    void *v = malloc(e->model->ncells * precision_size(p));
    char err[ERRLEN];
    int found = 0;
    for (int q = 0; q < nf && !found; q++) {
        cr_assert_eq(engine_read(e, ids[q], v, err, sizeof err), 0, "%s", err);
        for (size_t c = 0; c < e->model->ncells && !found; c++)
            if (!isfinite(p == PRECISION_DOUBLE ? ((double *)v)[c] : ((float *)v)[c])) {
                *f = ids[q];
                *cell = c;
                found = 1;
            }
    }
    free(v);
    return found;
}

/* A NaN planted in field f0 at cell c0 of the CUDA and the CPU engine, then
 * `steps` steps on both (in two calls, so ping-pong paths swap): the CUDA
 * check names the field and cell that the CPU engine's check and a host
 * scan of the CUDA engine's fields name.  Float (flush) and double. */
static void cuda_blow_up_stepped(const char *text, enum field f0, size_t c0, int steps)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    if (!gpu_or_skip(m)) {
        setup_free(&t);
        return;
    }
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        struct engine_options o = {.precision = p,
                                   .denormals = pr ? DENORMALS_KEEP : DENORMALS_FLUSH};
        char err[ERRLEN];
        struct engine *g, *c;
        cr_assert_eq(engine_create("cuda", m, &o, &g, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_create("cpu", m, &o, &c, err, sizeof err), 0, "%s", err);
        struct engine_info info;
        engine_describe(g, &info);
        cr_log_info("cuda: %s", info.detail);
        void *v = malloc(m->ncells * precision_size(p));
        struct engine *both[2] = {g, c};
        for (int k = 0; k < 2; k++) {
            cr_assert_eq(engine_step(both[k], 13, err, sizeof err), 0, "%s", err);
            cr_assert_eq(engine_read(both[k], f0, v, err, sizeof err), 0, "%s", err);
            put_value(v, p, c0, NAN);
            cr_assert_eq(engine_write(both[k], f0, v, err, sizeof err), 0, "%s", err);
            cr_assert_eq(engine_step(both[k], steps / 2, err, sizeof err), 0, "%s", err);
            cr_assert_eq(engine_step(both[k], steps - steps / 2, err, sizeof err), 0, "%s", err);
        }
        enum field f, cf, hf;
        size_t cell, ccell, hcell;
        cr_assert_eq(check_ok(c, &cf, &ccell), 1, "cpu: the NaN was lost");
        cr_assert_eq(check_ok(g, &f, &cell), 1, "%s: the NaN was lost", precision_name(p));
        cr_assert_eq(host_first_bad(g, &hf, &hcell), 1);
        cr_log_info("NaN in %s at %zu, %d steps: first %s at %zu", field_name(f0), c0, steps,
                    field_name(cf), ccell);
        cr_assert_eq(f, cf, "%s: %s, cpu finds %s", precision_name(p), field_name(f),
                     field_name(cf));
        cr_assert_eq(cell, ccell, "%s: cell %zu, cpu finds %zu", precision_name(p), cell, ccell);
        cr_assert_eq(f, hf, "%s: %s, host scan finds %s", precision_name(p), field_name(f),
                     field_name(hf));
        cr_assert_eq(cell, hcell, "%s: cell %zu, host scan finds %zu", precision_name(p), cell,
                     hcell);
        free(v);
        engine_destroy(g);
        engine_destroy(c);
    }
    setup_free(&t);
}

/* Every 2D step path; the NaN in the open (in Hx) and deep inside the PEC
 * plate (in Ez, where the slots set Ez again each step and the NaN stays
 * in H alone: the current H buffer of a ping-pong pair must be scanned). */
Test(cuda2d, blow_up_nan_is_found_after_steps, .timeout = 60)
{
    const size_t nx = 130;
    const char *paths[3] = {"two", "fused", "temporal"};
    for (int k = 0; k < 3; k++) {
        setenv("TEXFDTD_CUDA2D", paths[k], 1);
        cr_log_info("TEXFDTD_CUDA2D=%s", paths[k]);
        cuda_blow_up_stepped(blow2d, FIELD_HX, 60 + nx * 30, 14);
        cuda_blow_up_stepped(blow2d, FIELD_EZ, 95 + nx * 50, 14);
    }
    unsetenv("TEXFDTD_CUDA2D");
}

Test(cuda3d, blow_up_nan_is_found_after_steps, .timeout = 120)
{
    const size_t nx = 45, ny = 38;
    const char *paths[2] = {"two", "fused"};
    for (int k = 0; k < 2; k++) {
        setenv("TEXFDTD_CUDA3D", paths[k], 1);
        setenv("TEXFDTD_CUDA3D_KZ", "32", 1);
        cr_log_info("TEXFDTD_CUDA3D=%s", paths[k]);
        cuda_blow_up_stepped(scene3d, FIELD_HZ, 30 + nx * (10 + ny * 20), 3);
        cuda_blow_up_stepped(scene3d, FIELD_EX, 44 + nx * (37 + ny * 32), 2);
    }
    unsetenv("TEXFDTD_CUDA3D");
    unsetenv("TEXFDTD_CUDA3D_KZ");
}
