/* test_cuda.c - the CUDA engines against the CPU engines.
 *
 * Without a working CUDA device every test skips with the reason, unless
 * TEXFDTD_REQUIRE_GPU=1 (make test-gpu), which turns that into a failure.
 * In builds without CUDA the suite skips (or fails, when required) too.
 *
 * Expectations: float with denormals flushed follows the CPU's statements
 * and roundings (common.cuh), and double never flushes on either side, so
 * every 3D strategy (A1, A2, A3) and path, and the 2D engine in float, give
 * the CPU's bits: asserted as bit identity (the issue's bounds, relative L2
 * <= 1e-6 float / 1e-12 double, are implied); the ULP statistics are logged.
 * 2D double keeps the 1e-12 bound.
 *
 * Every step path is run: 3D with TEXFDTD_CUDA3D = two and fused (the fused
 * one with 32-plane chunks so that the 33-plane scene crosses a chunk
 * boundary), 2D with TEXFDTD_CUDA2D = two, fused and, on a scene it
 * applies to, temporal with K = 2, 4, 6, 8 and a step count that is not a
 * multiple of K.
 *
 * Monitors (core/monitor.h) on the 2D engine: the rows of samples gathered
 * on the GPU and everything the host makes of them (probe series, DFT
 * phasors, far field, flux) are the CPU engine's bits, float (flush) and
 * double (keep), on every path; so is the [monitor.dft] at several
 * frequencies.
 *
 * Conformal PEC scenes (which the 2D engine runs on the two-kernel path
 * only): fields, DFT phasors and monitor results are the CPU engine's bits,
 * float (flush) and double (keep). */
#include "helpers.h"

#include <complex.h>

#include "core/monitor.h"

/* OpenMP threads of the cpu engine in the 2D comparisons.  The grids are
 * small and tests run side by side (--jobs): with every core's thread
 * spinning at each row barrier, the 2D tests took 12 to 137 s each on the
 * 16-core H100 machine, with 2 threads 0.6 to 5 s.  The bits do not depend
 * on the count (tests/test_cpu.c). */
#define CPU_THREADS 2

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

/* Sections appended to scene3d (the lossy tests). */
static const char *scene3d_extra = "";

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
    char text[4096];
    snprintf(text, sizeof text, "%s%s", scene3d, scene3d_extra);
    if (strcmp(boundary, "cpml")) {
        char *b = strstr(text, "[boundary]");
        char *o = strstr(text, "[object.ball]");
        char tail[3072];
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

/* A lossy block (sigma != 0: the E kernels' flag L) beside the dielectric
 * ball and the PEC plate: every strategy and both paths, bit for bit. */
static const char *lossy3d = "[material.wet]\neps_r = 2\nsigma = 0.15\n"
                             "[object.wet]\nshape = box\nmaterial = wet\ncenter_x = 20\n"
                             "center_y = 12\ncenter_z = 19\nwidth = 8\nheight = 5\ndepth = 6\n";
Test(cuda3d, lossy_matches_cpu, .timeout = 300)
{
    scene3d_extra = lossy3d;
    cuda3d_vs_cpu("combined", "cpml");
    cuda3d_vs_cpu("regions", "cpml");
    cuda3d_vs_cpu("per-face", "cpml");
    cuda3d_vs_cpu("combined", "mur");
    scene3d_extra = "";
}
/* mu_r (the H kernels' flag H_MAG: a node map, in the slabs too, and the H
 * slots) and dispersion poles (the entries of cuda3d_mat.cu, an E component
 * of a dispersive corner each), cpu/update3d.inc's statements: every
 * strategy, Mur, float (flush) and double, bit for bit with cpu3d.  The
 * fused path declines them (cuda3d_vs_cpu asks for it too: the run falls
 * back to two kernels and must still match).  1 GHz, 12 cells per
 * wavelength, courant 0.5: dt = 41.7 ps. */
static const char *mag3d = "[material.mag]\neps_r = 1.5\nmu_r = 2.2\n"
                           "[material.muonly]\nmu_r = 3\n"
                           "[object.magbox]\nshape = box\nmaterial = mag\ncenter_x = 20\n"
                           "center_y = 12\ncenter_z = 19\nwidth = 8\nheight = 5\ndepth = 6\n"
                           "[object.muball]\nshape = sphere\nmaterial = muonly\ncenter_x = 30\n"
                           "center_y = 14\ncenter_z = 13\nradius = 4\n";
/* a Drude sphere (omega_p dt = 0.83) and a box of every pole kind with mu_r
 * beside a lossy one (the E kernels' flag L, the H map) */
static const char *drude3d = "[material.au]\neps_r = 2\ndrude = 2e10 3e9\n"
                             "[object.dru]\nshape = sphere\nmaterial = au\ncenter_x = 30\n"
                             "center_y = 14\ncenter_z = 13\nradius = 4.5\n";
static const char *poles3d = "[material.p]\neps_r = 2\nmu_r = 1.5\nsigma = 0.02\n"
                             "debye = 1.5 1e-10\nlorentz = 0.5 2e10 1e9\ndrude = 2e10 3e9\n"
                             "[material.wet]\neps_r = 2\nsigma = 0.15\n"
                             "[object.pbox]\nshape = box\nmaterial = p\ncenter_x = 30\n"
                             "center_y = 14\ncenter_z = 13\nwidth = 7\nheight = 6\ndepth = 5\n"
                             "[object.wet]\nshape = box\nmaterial = wet\ncenter_x = 20\n"
                             "center_y = 12\ncenter_z = 19\nwidth = 8\nheight = 5\ndepth = 6\n";
static void materials_vs_cpu(const char *extra)
{
    scene3d_extra = extra;
    cuda3d_vs_cpu("combined", "cpml");
    cuda3d_vs_cpu("regions", "cpml");
    cuda3d_vs_cpu("per-face", "cpml");
    cuda3d_vs_cpu("combined", "mur");
    scene3d_extra = "";
}
Test(cuda3d, mu_r_matches_cpu, .timeout = 300) { materials_vs_cpu(mag3d); }
Test(cuda3d, drude_matches_cpu, .timeout = 300) { materials_vs_cpu(drude3d); }
Test(cuda3d, poles_mu_r_sigma_match_cpu, .timeout = 300) { materials_vs_cpu(poles3d); }
Test(cuda3d, a2_regions_matches_cpu, .timeout = 120) { cuda3d_vs_cpu("regions", "cpml"); }

/* scene3d's ball is smoothed (the [grid] subpixel default: three E maps,
 * core/smooth3d.h); as a staircase the engines share one map (Dev3 ms = 0):
 * both paths, bit for bit. */
Test(cuda3d, staircase_matches_cpu, .timeout = 120)
{
    scene3d_extra = "[grid]\nsubpixel = false\n";
    cuda3d_vs_cpu("combined", "cpml");
    scene3d_extra = "";
}
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

/* ---- 3D temporal path (TEXFDTD_CUDA3D=temporal, cuda/cuda3d_tb.cu) ------
 * K steps per launch over x-y tiles of 32 x TY columns that overlap by a
 * recomputed K-deep halo, each block marching up a z chunk of TBZ planes
 * (K planes of halo below it).  Against cpu3d, bit for bit, float (flush)
 * and double (keep), every field, starting from pseudo-random values in
 * every cell of every field: so every cell next to a tile, chunk or grid
 * border carries a value from the first step on, and a halo one cell too
 * thin, a level's plane out of turn, a neighbour read from the wrong slot or
 * a garbage cell outside the grid that leaks in changes bits at once (a
 * field grown from one source would leave most borders at zero for many
 * steps).  45 x 37 x 29 is no multiple of any tile (32 - 2K = 28, 26, 24
 * columns; TY - 2K = 8 .. 28 rows; chunks of 7 or 8 planes), the objects
 * cross tile, row and chunk borders, the step counts are no multiples of K
 * (the rest runs on the fused path) and the plane-wave run steps in calls
 * that cut K-step blocks.  The engine's description must name the temporal
 * kernel, so that a silent fallback to the fused path cannot pass. */
static const char *tb3d_fmt = "[grid]\nnx = 45\nny = 37\nnz = 29\nsteps = 40\ncourant = 0.5\n"
                              "cells_per_wavelength = 12\n"
                              "%s"
                              "[boundary]\ntype = pec\n"
                              "[object.ball]\nshape = sphere\nmaterial = dielectric\neps_r = 3\n"
                              "center_x = 24\ncenter_y = 16\ncenter_z = 16\nradius = 5\n"
                              "[object.plate]\nshape = box\nmaterial = pec\ncenter_x = 14\n"
                              "center_y = 25\ncenter_z = 8\nwidth = 9\nheight = 3\ndepth = 7\n"
                              "[object.slab]\nshape = box\nmaterial = dielectric\neps_r = 2\n"
                              "center_x = 35\ncenter_y = 10\ncenter_z = 22\nwidth = 10\n"
                              "height = 12\ndepth = 4\n";
/* the point source on a tile border (x 24: K = 4), a row border (y 8: TY
 * 16, K = 4) and a chunk border (z 16: TBZ 8) */
static const char *tb3d_point = "[source]\ntype = point\ncenter_x = 24\ncenter_y = 8\ncenter_z = 16\n";
/* the plane wave already across the objects at step 0: source slots (PEC,
 * dielectric, and the free Ez edges of PEC corners, kind 2) */
static const char *tb3d_wave = "[source]\ntype = plane_wave\nangle = 30\nfront_offset = 60\n";

/* Fill field q of e with pseudo-random values |v| < 1e-2 (the same for
 * every engine: the seed is q's). */
static void tb_fill(struct engine *e, const struct model *m, enum precision p)
{
    char err[ERRLEN];
    enum field ids[6];
    const int n = scene_fields(m->scene, ids);
    void *buf = malloc(m->ncells * precision_size(p));
    cr_assert(buf);
    for (int q = 0; q < n; q++) {
        uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)q * 0x632be59bd9b4e019ull;
        for (size_t c = 0; c < m->ncells; c++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const double v = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 2e-2;
            if (p == PRECISION_DOUBLE)
                ((double *)buf)[c] = v;
            else
                ((float *)buf)[c] = (float)v;
        }
        cr_assert_eq(engine_write(e, ids[q], buf, err, sizeof err), 0, "%s", err);
    }
    free(buf);
}

/* When not NULL, text the cuda engine's description must hold in tb_run. */
static const char *tb_detail;
/* When set, tb_run's cuda engine must say it keeps the 12-psi tiles' psi
 * in shared memory, on the devices known to give a block the 227 KiB that
 * takes at K 4 (H100, H200; tb_setup asks the device, and elsewhere keeps
 * them in registers). */
static bool tb_pss_want;

/* Engine `name` from the random fields, stepped in calls[0 .. ncalls-1]
 * steps; its fields into f (malloc'ed).  tb: 1 the description must name
 * the temporal kernel, 0 it must not, -1 either. */
static int tb_run(const char *name, const struct model *m, enum precision p, const int *calls,
                  int ncalls, void *f[6], int tb)
{
    char err[ERRLEN];
    struct engine *e;
    struct engine_options o = {.precision = p,
                               .denormals = p == PRECISION_DOUBLE ? DENORMALS_KEEP : DENORMALS_FLUSH};
    cr_assert_eq(engine_create(name, m, &o, &e, err, sizeof err), 0, "%s: %s", name, err);
    tb_fill(e, m, p);
    for (int k = 0; k < ncalls; k++)
        cr_assert_eq(engine_step(e, calls[k], err, sizeof err), 0, "%s: %s", name, err);
    struct engine_info info;
    engine_describe(e, &info);
    if (tb >= 0)
        cr_assert_eq(strstr(info.detail, "temporally blocked") != NULL, tb == 1, "%s: %s", name,
                     info.detail);
    if (tb_detail && !strcmp(name, "cuda"))
        cr_assert(strstr(info.detail, tb_detail), "%s: expected \"%s\" in: %s", name, tb_detail, info.detail);
    if (tb_pss_want && !strcmp(name, "cuda") && (strstr(info.device, "H100") || strstr(info.device, "H200")))
        cr_assert(strstr(info.detail, "; the 12-psi tiles' psi in shared memory"), "%s: psi not in shared memory: %s",
                  info.device, info.detail);
    enum field ids[6];
    const int n = scene_fields(m->scene, ids);
    for (int q = 0; q < n; q++) {
        f[q] = malloc(m->ncells * precision_size(p));
        cr_assert_eq(engine_read(e, ids[q], f[q], err, sizeof err), 0, "%s: %s", name, err);
    }
    engine_destroy(e);
    return n;
}

/* The cuda engine under the current TEXFDTD_CUDA3D* against the cpu
 * fields ref (one call of the calls' sum), every component bit for bit. */
static void tb_vs(const struct model *m, enum precision p, const int *calls, int ncalls,
                  void *ref[6], int tb, const char *what)
{
    void *a[6];
    const int n = tb_run("cuda", m, p, calls, ncalls, a, tb);
    for (int q = 0; q < n; q++) {
        const struct diff d = compare(a[q], ref[q], m->ncells, p);
        cr_assert_eq(d.differ, 0, "%s %s component %d: %zu cells differ (rel L2 %g, max %u ulp)",
                     what, precision_name(p), q, d.differ, d.rel, d.max_ulp);
        free(a[q]);
    }
}

/* TEXFDTD_CUDA3D=temporal with K, TY, TBZ and the rows a thread in the
 * tiles without psi and in the one-axis slab tiles (TBR and TBRS both:
 * "1" k_tb3, "2" k_tb3r where built; NULL: unset, the default); k NULL:
 * unset all. */
static void tb_env_rows(const char *k, const char *ty, const char *tbz, const char *tbr)
{
    static const char *const names[] = {"TEXFDTD_CUDA3D_K", "TEXFDTD_CUDA3D_TY", "TEXFDTD_CUDA3D_TBZ",
                                        "TEXFDTD_CUDA3D_TBR", "TEXFDTD_CUDA3D_TBRS"};
    const char *v[] = {k, ty, tbz, tbr, tbr};
    if (!k)
        unsetenv("TEXFDTD_CUDA3D");
    else
        setenv("TEXFDTD_CUDA3D", "temporal", 1);
    for (int q = 0; q < 5; q++) {
        if (k && v[q])
            setenv(names[q], v[q], 1);
        else
            unsetenv(names[q]);
    }
}

/* The same with the default rows a thread. */
static void tb_env(const char *k, const char *ty, const char *tbz)
{
    tb_env_rows(k, ty, tbz, NULL);
}

/* The band in chunks of its own other than the default 40 planes (more
 * than the 17 between the z face chunks, so one chunk, where the slab
 * parts have 8, 7 or all): of 5 planes and of 64, where the band runs
 * (tb_detail set), against the cpu fields ref. */
static void tb_band_variants(const struct model *m, enum precision p, const int *calls, int ncalls,
                             void *ref[6], const char *what)
{
    static const char *const zb[] = {"5", "64"};
    const char *keep = tb_detail;
    for (int z = 0; z < 2; z++) {
        char w[192], detail[96];
        setenv("TEXFDTD_CUDA3D_TBZB", zb[z], 1);
        snprintf(detail, sizeof detail, "; the tiles clear of the slabs 32 x 16 in chunks of %s planes", zb[z]);
        tb_detail = detail;
        snprintf(w, sizeof w, "%s, the band's chunks %s", what, zb[z]);
        cr_log_info("3D temporal %s %s", w, precision_name(p));
        tb_vs(m, p, calls, ncalls, ref, 1, w);
    }
    unsetenv("TEXFDTD_CUDA3D_TBZB");
    tb_detail = keep;
}

/* Every K, TY and z chunk on one scene, float (flush) and double. */
static void tb_sweep(const char *source, const char *const *sets, int nsets, const int *calls,
                     int ncalls, bool slots, bool smoothed)
{
    char text[2048];
    snprintf(text, sizeof text, tb3d_fmt, source);
    struct test_setup t;
    setup_from_text(&t, text, sets, nsets);
    /* the objects have slots on either source (zero values without a wave:
     * a PEC slot still sets its Ez) */
    cr_assert(!slots || t.model.nslots > 0, "%zu source slots", t.model.nslots);
    cr_assert_eq(t.model.nesm > 0, smoothed, "%zu smoothed edges", t.model.nesm);
    if (!gpu_or_skip(&t.model)) {
        setup_free(&t);
        return;
    }
    int total = 0;
    for (int k = 0; k < ncalls; k++)
        total += calls[k];
    static const char *const ks[] = {"2", "3", "4"}, *const tys[] = {"16", "32"},
                             *const tbz[] = {"0", "8", "7"}, *const rows[] = {"1", "2"};
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        void *ref[6];
        const int n = tb_run("cpu", &t.model, p, &total, 1, ref, -1);
        /* rows a thread in the tiles without psi and in the one-axis slab
         * tiles: k_tb3 (1) and, in float, k_tb3r (2; in the slab tiles at
         * K 3 and TY 32 only, where the description says so, and there the
         * tiles clear of the slabs as 32 x 16 tiles in a band of rows, the
         * band's last tile shifted back to end with it on the 80 x 80
         * grids: 26 rows, 3 tiles, in chunks of their own: tb_band_variants;
         * double: k_tb3 both times).  In float at
         * TY 32 k_tb3 keeps the 12-psi tiles' psi in shared memory. */
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 2; b++)
                for (int z = 0; z < 3; z++)
                    for (int r = 0; r < 2; r++) {
                        char what[128];
                        tb_env_rows(ks[a], tys[b], tbz[z], rows[r]);
                        tb_detail = t.model.pml_n && !pr && a == 1 && b == 1 && r == 1
                                        ? ", 2 in the one-axis slab tiles; the tiles clear of the slabs 32 x 16 in "
                                          "chunks of 40 planes"
                                        : NULL;
                        tb_pss_want = t.model.pml_n && !pr && b == 1;
                        snprintf(what, sizeof what, "K %s TY %s TBZ %s rows %s", ks[a], tys[b], tbz[z],
                                 rows[r]);
                        cr_log_info("3D temporal %s %s", what, precision_name(p));
                        tb_vs(&t.model, p, calls, ncalls, ref, 1, what);
                        if (tb_detail)
                            tb_band_variants(&t.model, p, calls, ncalls, ref, what);
                    }
        tb_detail = NULL;
        tb_pss_want = false;
        tb_env(NULL, NULL, NULL);
        for (int q = 0; q < n; q++)
            free(ref[q]);
    }
    setup_free(&t);
}

/* The point source, one call of 23 steps (23 = 11 K + 1, 7 K + 2, 5 K + 3):
 * smoothed edges (three E maps: the kernels' flag S) and staircase (one).
 * Then 64 x 64 in x-y: with 7- or 8-plane chunks some tiles lie inside the
 * faces, halo included (the kernel built without the face tests, beside
 * the others in the same step: TY 16 and 32, every K); at 45 x 37 none
 * does. */
Test(cuda3d, temporal_point_random_fields_match_cpu, .timeout = 600)
{
    const int calls[] = {23};
    tb_sweep(tb3d_point, NULL, 0, calls, 1, false, true);
    const char *stair[] = {"grid.subpixel=false"};
    tb_sweep(tb3d_point, stair, 1, calls, 1, false, false);
    const char *wide[] = {"grid.nx=64", "grid.ny=64"};
    tb_sweep(tb3d_point, wide, 2, calls, 1, false, true);
}

/* The plane wave (source slots inside every step of a block), stepped in
 * calls of 5, 3, 7, 1, 6 and 2 steps (24 in all) that cut the K-step blocks
 * everywhere. */
Test(cuda3d, temporal_plane_wave_slots_match_cpu, .timeout = 600)
{
    const int calls[] = {5, 3, 7, 1, 6, 2};
    tb_sweep(tb3d_wave, NULL, 0, calls, 6, true, true);
}

/* A lossy box (sigma != 0: the kernels' flag L, E = ca E + cb curl H) beside
 * the others, the point source, 23 steps (the engine runs the L kernels
 * where model->lossy, which the scene sets). */
Test(cuda3d, temporal_lossy_matches_cpu, .timeout = 600)
{
    const int calls[] = {23};
    char src[1024];
    snprintf(src, sizeof src, "%s%s", tb3d_point, lossy3d); /* the wet box, across row borders */
    tb_sweep(src, NULL, 0, calls, 1, false, true);
}

/* A 3-cell CPML (A1, combined: the psi as per-level state in the kernel,
 * both psi pairs swapped with the fields), with the plane wave, the lossy
 * box and the calls that cut the blocks.  80 x 80 in x-y, so that with TBZ
 * 8 or 7 some tiles meet no slab, halo included (the kernel without psi
 * and face tests), and with TY 32 some meet the slabs of one axis only
 * (the kernel with that axis' 4 psi: x, y, and z in the chunks at the
 * ends), beside the tiles that meet two or three (all 12 psi; TY 16: every
 * slab tile): all in one step. */
Test(cuda3d, temporal_cpml_matches_cpu, .timeout = 600)
{
    const int calls[] = {5, 3, 7, 1, 6, 2};
    char src[1024];
    snprintf(src, sizeof src, "%s%s", tb3d_wave, lossy3d);
    const char *cpml[] = {"boundary.type=cpml", "boundary.cells=3", "grid.nx=80", "grid.ny=80"};
    tb_sweep(src, cpml, 4, calls, 6, true, true);
}

/* The same CPML with the point source and no lossy material (the psi
 * kernel of the plain scenes: L off, smoothed edges on), 23 steps in one
 * call. */
Test(cuda3d, temporal_cpml_point_matches_cpu, .timeout = 600)
{
    const int calls[] = {23};
    const char *cpml[] = {"boundary.type=cpml", "boundary.cells=3", "grid.nx=80", "grid.ny=80"};
    tb_sweep(tb3d_point, cpml, 4, calls, 1, false, true);
}

/* Monitors inside the block: probes of every field on cells at tile, row
 * and chunk borders (and one sampled twice, with another `every`), the
 * plane wave, stepped in calls that cut the blocks and the sample batches;
 * the probe rows (what the host makes of the samples) bit for bit with
 * cpu3d, K = 2, 3, 4, float (flush) and double. */
Test(cuda3d, temporal_probes_match_cpu, .timeout = 300)
{
    char src[2048], text[4096];
    snprintf(src, sizeof src, "%s"
             "[probe.a]\nx = 24\ny = 8\nz = 16\nfields = all\n"
             "[probe.b]\nx = 25\ny = 9\nz = 7\nfields = all\ntotal = false\n"
             "[probe.c]\nx = 28\ny = 12\nz = 8\nfields = ez, hx\n"
             "[probe.d]\nx = 24\ny = 8\nz = 16\nfields = hz, ex\nevery = 3\n"
             "[probe.e]\nx = 44\ny = 36\nz = 28\nfields = all\n",
             tb3d_wave);
    snprintf(text, sizeof text, tb3d_fmt, src);
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    cr_assert(t.model.nsamples > 0 && t.model.plan, "%zu samples", t.model.nsamples);
    if (!gpu_or_skip(&t.model)) {
        setup_free(&t);
        return;
    }
    const int calls[] = {5, 3, 7, 1, 6, 2, 9};
    static const char *const ks[] = {"2", "3", "4"};
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        struct engine_options o = {.precision = p,
                                   .denormals = pr ? DENORMALS_KEEP : DENORMALS_FLUSH};
        struct engine *a, *b;
        char err[ERRLEN];
        cr_assert_eq(engine_create("cpu", &t.model, &o, &a, err, sizeof err), 0, "%s", err);
        tb_fill(a, &t.model, p);
        for (int k = 0; k < 7; k++)
            cr_assert_eq(engine_step(a, calls[k], err, sizeof err), 0, "%s", err);
        size_t na;
        const double *ra = monitors_probe_rows(a->mon, &na);
        for (int q = 0; q < 6; q++) {
            /* k_tb3, then k_tb3r (2 rows a thread) */
            tb_env_rows(ks[q % 3], "16", "8", q < 3 ? "1" : "2");
            cr_assert_eq(engine_create("cuda", &t.model, &o, &b, err, sizeof err), 0, "%s", err);
            struct engine_info info;
            engine_describe(b, &info);
            cr_assert(strstr(info.detail, "temporally blocked"), "%s", info.detail);
            tb_fill(b, &t.model, p);
            for (int k = 0; k < 7; k++)
                cr_assert_eq(engine_step(b, calls[k], err, sizeof err), 0, "%s", err);
            size_t nb;
            const double *rb = monitors_probe_rows(b->mon, &nb);
            cr_assert_eq(na, nb, "%zu rows against %zu", nb, na);
            cr_assert_eq(memcmp(ra, rb, na * (2 + t.model.plan->ncols) * sizeof *ra), 0,
                         "K %s rows %d %s: the probe rows differ", ks[q % 3], q < 3 ? 1 : 2,
                         precision_name(p));
            cr_log_info("3D temporal K %s %s: %zu probe rows bit-identical", ks[q % 3],
                        precision_name(p), nb);
            engine_destroy(b);
        }
        tb_env(NULL, NULL, NULL);
        engine_destroy(a);
    }
    setup_free(&t);
}

/* k_tb3r with 64-bit array indices (TEXFDTD_CUDA3D_IX64=1; the engine
 * takes 32-bit ones wherever they fit, as on every grid of the tests
 * above, and 64-bit ones only on grids of 2^31 padded cells and more):
 * the point source on the random fields, 23 steps, K 2 .. 4, TY 16 and
 * 32, all planes and chunks of 7, at 45 x 37 and at 64 x 64 (inner tiles
 * too), float, against cpu3d bit for bit. */
Test(cuda3d, temporal_wide_indices_match_cpu, .timeout = 600)
{
    static const char *const grids[][2] = {{"grid.nx=45", "grid.ny=37"}, {"grid.nx=64", "grid.ny=64"}};
    static const char *const ks[] = {"2", "3", "4"}, *const tys[] = {"16", "32"}, *const tbz[] = {"0", "7"};
    char text[2048];
    snprintf(text, sizeof text, tb3d_fmt, tb3d_point);
    for (int g = 0; g < 2; g++) {
        struct test_setup t;
        setup_from_text(&t, text, grids[g], 2);
        if (!gpu_or_skip(&t.model)) {
            setup_free(&t);
            return;
        }
        const int calls[] = {23};
        void *ref[6];
        const int n = tb_run("cpu", &t.model, PRECISION_SINGLE, calls, 1, ref, -1);
        setenv("TEXFDTD_CUDA3D_IX64", "1", 1);
        tb_detail = "64-bit array indices";
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 2; b++)
                for (int z = 0; z < 2; z++) {
                    char what[128];
                    tb_env_rows(ks[a], tys[b], tbz[z], "2");
                    snprintf(what, sizeof what, "%s %s K %s TY %s TBZ %s 64-bit indices", grids[g][0],
                             grids[g][1], ks[a], tys[b], tbz[z]);
                    cr_log_info("3D temporal %s", what);
                    tb_vs(&t.model, PRECISION_SINGLE, calls, 1, ref, 1, what);
                }
        tb_detail = NULL;
        unsetenv("TEXFDTD_CUDA3D_IX64");
        tb_env(NULL, NULL, NULL);
        for (int q = 0; q < n; q++)
            free(ref[q]);
        setup_free(&t);
    }
}

/* The scenes the temporal kernel cannot take run one step a launch (fused,
 * or two kernels for A2) under TEXFDTD_CUDA3D=temporal, never wrongly: the
 * description names no temporal kernel and the bits are cpu3d's. */
Test(cuda3d, temporal_declines_mur_and_a2, .timeout = 300)
{
    static const char *const extra[] = {
        "[boundary]\ntype = mur\n", "[boundary]\ntype = cpml\ncells = 3\nstrategy = regions\n"};
    for (int x = 0; x < 2; x++) {
        char text[2048], base[1024];
        /* tb3d_fmt with the boundary section replaced */
        snprintf(base, sizeof base, "%s", tb3d_fmt);
        char *b = strstr(base, "[boundary]\ntype = pec\n");
        cr_assert(b);
        const size_t cut = (size_t)(b - base);
        snprintf(text, sizeof text, "%.*s%s%s", (int)cut, base, extra[x],
                 b + strlen("[boundary]\ntype = pec\n"));
        char scene[2048];
        snprintf(scene, sizeof scene, text, tb3d_point);
        struct test_setup t;
        setup_from_text(&t, scene, NULL, 0);
        if (!gpu_or_skip(&t.model)) {
            setup_free(&t);
            return;
        }
        const int calls[] = {13};
        void *ref[6];
        const int n = tb_run("cpu", &t.model, PRECISION_SINGLE, calls, 1, ref, -1);
        tb_env("2", "32", "0");
        tb_vs(&t.model, PRECISION_SINGLE, calls, 1, ref, 0, extra[x]);
        tb_env(NULL, NULL, NULL);
        for (int q = 0; q < n; q++)
            free(ref[q]);
        setup_free(&t);
    }
}

/* A K, TY, TBZ or rows a thread the kernels are not made for is refused at
 * create. */
Test(cuda3d, temporal_refuses_bad_parameters)
{
    char text[2048];
    snprintf(text, sizeof text, tb3d_fmt, tb3d_point);
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    if (!gpu_or_skip(&t.model)) {
        setup_free(&t);
        return;
    }
    static const char *const bad[][4] = {{"5", "32", "0", "2"}, {"1", "32", "0", "2"}, {"2", "8", "0", "2"},
                                         {"2", "32", "-3", "2"}, {"2", "32", "0", "3"}, {"2", "16", "0", "0"},
                                         {"2", "24", "0", "2"}};
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH};
    for (int k = 0; k < 7; k++) {
        struct engine *e;
        char err[ERRLEN];
        tb_env_rows(bad[k][0], bad[k][1], bad[k][2], bad[k][3]);
        cr_assert_neq(engine_create("cuda", &t.model, &o, &e, err, sizeof err), 0, "K %s TY %s TBZ %s rows %s",
                      bad[k][0], bad[k][1], bad[k][2], bad[k][3]);
        cr_assert(strstr(err, "TEXFDTD_CUDA3D_K"), "message: %s", err);
    }
    /* the slab tiles' rows alone */
    tb_env_rows("3", "32", "0", "2");
    setenv("TEXFDTD_CUDA3D_TBRS", "0", 1);
    struct engine *e;
    char err[ERRLEN];
    cr_assert_neq(engine_create("cuda", &t.model, &o, &e, err, sizeof err), 0, "TBRS 0 taken");
    cr_assert(strstr(err, "TEXFDTD_CUDA3D_TBRS"), "message: %s", err);
    tb_env(NULL, NULL, NULL);
    setup_free(&t);
}

/* The default path (no TEXFDTD_CUDA3D): the temporal kernel from 256^3
 * cells on without a CPML or with the combined (A1) one (measured faster
 * there), not with A2 (regions) nor below that size; TEXFDTD_CUDA3D=fused
 * still forces the fused kernel.  Only the choice: the bits of the temporal
 * path are the tests above. */
#define PT "[source]\ntype = point\ncenter_x = 128\ncenter_y = 128\ncenter_z = 128\n"
Test(cuda3d, temporal_is_the_default_for_large_scenes_without_cpml, .timeout = 300)
{
    static const struct {
        const char *text, *env;
        bool tb;
    } cases[] = {
        {"[grid]\nnx = 260\nny = 256\nnz = 256\nsteps = 3\n" PT, NULL, true},
        {"[grid]\nnx = 260\nny = 256\nnz = 256\nsteps = 3\n" PT, "fused", false},
        {"[grid]\nnx = 260\nny = 256\nnz = 256\nsteps = 3\n" PT
         "[boundary]\ntype = cpml\ncells = 10\n", NULL, true},
        {"[grid]\nnx = 260\nny = 256\nnz = 256\nsteps = 3\n" PT
         "[boundary]\ntype = cpml\ncells = 10\nstrategy = regions\n", NULL, false},
        {"[grid]\nnx = 252\nny = 256\nnz = 256\nsteps = 3\n" PT, NULL, false},
    };
    tb_env(NULL, NULL, NULL);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct test_setup t;
        setup_from_text(&t, cases[k].text, NULL, 0);
        if (!gpu_or_skip(&t.model)) {
            setup_free(&t);
            return;
        }
        if (cases[k].env)
            setenv("TEXFDTD_CUDA3D", cases[k].env, 1);
        struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH};
        struct engine *e;
        char err[ERRLEN];
        cr_assert_eq(engine_create("cuda", &t.model, &o, &e, err, sizeof err), 0, "case %zu: %s", k, err);
        struct engine_info info;
        engine_describe(e, &info);
        cr_assert_eq(strstr(info.detail, "temporally blocked") != NULL, cases[k].tb, "case %zu: %s", k,
                     info.detail);
        char step_err[ERRLEN];
        cr_assert_eq(engine_step(e, 3, step_err, sizeof step_err), 0, "case %zu: %s", k, step_err);
        engine_destroy(e);
        unsetenv("TEXFDTD_CUDA3D");
        setup_free(&t);
    }
}
#undef PT

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
static void cuda2d_vs_cpu_bits(const char *text, int steps, const char *expect_path,
                               bool double_bits);
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
    cuda2d_vs_cpu_bits(text, steps, expect_path, false);
}

/* The same; double_bits: double must match bit for bit too (else relative
 * L2 <= 1e-12).  Every DFT frequency's phasor is compared. */
static void cuda2d_vs_cpu_bits(const char *text, int steps, const char *expect_path,
                               bool double_bits)
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
                                   .denormals = pr ? DENORMALS_KEEP : DENORMALS_FLUSH,
                                   .threads = CPU_THREADS};
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
        enum field ids[6 + 2 * SCENE_MAX_FREQS] = {FIELD_EZ, FIELD_HX, FIELD_HY};
        int nf = 3;
        if (t.scene.te) { /* the TE read-out too: hz, ex, ey (core/engine.c) */
            ids[nf++] = FIELD_HZ;
            ids[nf++] = FIELD_EX;
            ids[nf++] = FIELD_EY;
        }
        for (int k = 0; t.model.scene->dft && k < t.model.scene->dft_nfreq; k++) {
            ids[nf++] = field_dft(k, 0);
            ids[nf++] = field_dft(k, 1);
        }
        for (int q = 0; q < nf; q++) {
            cr_assert_eq(engine_read(g, ids[q], a, err, sizeof err), 0, "%s", err);
            cr_assert_eq(engine_read(c, ids[q], b, err, sizeof err), 0, "%s", err);
            const struct diff d = compare(a, b, t.model.ncells, p);
            cr_log_info("2D %s %s: rel L2 %.3g, %zu cells differ, max %u ulp", precision_name(p),
                        field_name(ids[q]), d.rel, d.differ, d.max_ulp);
            const int k = field_dft_index(ids[q]);
            if (p == PRECISION_SINGLE || double_bits)
                cr_assert_eq(d.differ, 0, "2D %s %s (frequency %d): %zu cells differ from cpu "
                             "(max %u ulp, rel L2 %g)", precision_name(p), field_name(ids[q]), k,
                             d.differ, d.max_ulp, d.rel);
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

/* A lossy dielectric (sigma != 0: Ez = ca Ez + cb curl, the template flag L)
 * beside the lossless rod and the PEC plate, on every path, float and double
 * bit for bit: with CPML and the plane wave (temporal falls back to fused),
 * and with a PEC boundary, a point source and no DFT (temporal runs k_tb2,
 * K = 2 and 6, 301 steps: the remainder runs fused). */
static const char *lossy2d = "[material.wet]\neps_r = 3\nsigma = 0.12\n"
                             "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = 95.3\n"
                             "center_y = 30.6\nradius = 11\n";

static void cuda2d_lossy_vs_cpu(const char *text, const char *temporal)
{
    const char *paths[5] = {"two", "fused", "fused", "temporal", "temporal"};
    const char *want[5] = {"two kernels", "fused", "fused", temporal, temporal};
    for (int k = 0; k < 5; k++) {
        setenv("TEXFDTD_CUDA2D", paths[k], 1);
        setenv("TEXFDTD_CUDA2D_VEC", k == 2 ? "0" : "1", 1);
        setenv("TEXFDTD_CUDA2D_K", k == 4 ? "2" : "6", 1);
        cr_log_info("lossy: TEXFDTD_CUDA2D=%s TEXFDTD_CUDA2D_VEC=%d TEXFDTD_CUDA2D_K=%d", paths[k],
                    k != 2, k == 4 ? 2 : 6);
        cuda2d_vs_cpu_bits(text, 301, want[k], true);
    }
    unsetenv("TEXFDTD_CUDA2D");
    unsetenv("TEXFDTD_CUDA2D_VEC");
    unsetenv("TEXFDTD_CUDA2D_K");
}

Test(cuda2d, lossy_cpml_bit_identical_to_cpu, .timeout = 120)
{
    char text[2048];
    snprintf(text, sizeof text, "%s[boundary]\ntype = cpml\ncells = 10\n%s", scene2d, lossy2d);
    cuda2d_lossy_vs_cpu(text, "fused");
}

Test(cuda2d, lossy_point_pec_bit_identical_to_cpu, .timeout = 120)
{
    char text[2048];
    snprintf(text, sizeof text, "[grid]\nnx = 130\nny = 97\nsteps = 300\n"
             "[source]\ntype = point\ncenter_x = 80\ncenter_y = 35\n"
             "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
             "center_x = 55\ncenter_y = 45\nradius = 12.5\n%s", lossy2d);
    cuda2d_lossy_vs_cpu(text, "temporal");
}

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

/* ---- monitors (core/monitor.h) on the 2D engine ----
 * Both engines step in the same calls.  After each call e->mon's row buffer
 * (monitors_rows) still holds the last batch engine_step read: compared bit
 * for bit.  At the end the probe series (every recorded row, so every step
 * of an every = 1 probe), the DFT phasor of every group, frequency and
 * sample, the far field and the flux are compared bit for bit, and the
 * fields too.  The host's sums are the same code on the same inputs, so any
 * difference comes from the gather. */

/* Rows of the last batch of engine_step(e, n): it reads every `rows` steps. */
static int last_batch(int n, int rows)
{
    return n - (n - 1) / rows * rows;
}

static void mon_compare_results(struct engine *g, struct engine *c, const char *what)
{
    const struct model *m = g->model;
    const struct monitor_plan *pl = m->plan;
    char err[ERRLEN];
    size_t ng = 0, nc = 0;
    const double *pg = monitors_probe_rows(g->mon, &ng), *pc = monitors_probe_rows(c->mon, &nc);
    const size_t w = 2 + (size_t)pl->ncols;
    cr_assert_eq(ng, nc, "%s: %zu probe rows, cpu %zu", what, ng, nc);
    for (size_t r = 0; r < ng; r++)
        for (size_t q = 0; q < w; q++)
            cr_assert(!memcmp(&pg[r * w + q], &pc[r * w + q], sizeof(double)),
                      "%s: probe row %zu (step %g) column %zu: %.17g, cpu %.17g", what, r,
                      pg[r * w], q, pg[r * w + q], pc[r * w + q]);
    size_t nph = 0;
    for (int gi = 0; gi < pl->ngroups; gi++) {
        const struct dft_group *gr = &pl->groups[gi];
        for (int k = 0; k < gr->fr.n; k++)
            for (size_t q = 0; q < gr->n; q++) {
                const double complex a = monitors_phasor(g->mon, gi, k, q);
                const double complex b = monitors_phasor(c->mon, gi, k, q);
                cr_assert(!memcmp(&a, &b, sizeof a),
                          "%s: group %d frequency %d sample %zu: %.17g%+.17gi, cpu %.17g%+.17gi",
                          what, gi, k, q, creal(a), cimag(a), creal(b), cimag(b));
                nph++;
            }
    }
    if (pl->far >= 0) {
        const int nang = 72, nf = pl->groups[pl->far].fr.n;
        double *a = malloc((size_t)nf * nang * sizeof *a), *b = malloc((size_t)nf * nang * sizeof *b);
        cr_assert_eq(monitors_far2d(g->mon, nang, a, err, sizeof err), 0, "%s", err);
        cr_assert_eq(monitors_far2d(c->mon, nang, b, err, sizeof err), 0, "%s", err);
        for (int q = 0; q < nf * nang; q++)
            cr_assert(!memcmp(&a[q], &b[q], sizeof *a), "%s: far field %d (frequency %d, %d deg): "
                      "%.17g, cpu %.17g", what, q, q / nang, 360 * (q % nang) / nang, a[q], b[q]);
        cr_log_info("%s: echo width at 180 deg (frequency 0) %.6g lambda", what, a[nang / 2]);
        free(a);
        free(b);
    }
    for (int i = 0; i < m->scene->nflux; i++)
        for (int k = 0; k < pl->groups[pl->flux[i]].fr.n; k++) {
            double s1, t1, s2, t2;
            monitors_flux2d(g->mon, i, k, &s1, &t1);
            monitors_flux2d(c->mon, i, k, &s2, &t2);
            cr_assert(!memcmp(&s1, &s2, sizeof s1) && !memcmp(&t1, &t2, sizeof t1),
                      "%s: flux %s frequency %d: scattered %.17g total %.17g, cpu %.17g %.17g",
                      what, m->scene->flux[i].name, k, s1, t1, s2, t2);
        }
    cr_log_info("%s: %zu samples, %zu probe rows, %zu phasors, %d flux monitors: the same bits",
                what, m->nsamples, ng, nph, m->scene->nflux);
}

/* `text` through cuda and cpu in the calls steps[0 .. ncalls), both
 * precisions; expect_path: the step path the engine must name. */
static void mon_vs_cpu(const char *text, const int *steps, int ncalls, const char *expect_path)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    if (!gpu_or_skip(m)) {
        setup_free(&t);
        return;
    }
    cr_assert_gt(m->nsamples, 0);
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        struct engine_options o = {.precision = p,
                                   .denormals = pr ? DENORMALS_KEEP : DENORMALS_FLUSH,
                                   .threads = CPU_THREADS};
        const size_t es = precision_size(p), ns = m->nsamples;
        char err[ERRLEN], what[600];
        struct engine *g, *c;
        cr_assert_eq(engine_create("cuda", m, &o, &g, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_create("cpu", m, &o, &c, err, sizeof err), 0, "%s", err);
        struct engine_info info;
        engine_describe(g, &info);
        snprintf(what, sizeof what, "%s, %s", precision_name(p), info.detail);
        cr_log_info("cuda: %s; %zu samples, %d rows a batch", info.detail, ns, m->sample_rows);
        cr_assert(strstr(info.detail, expect_path), "expected the %s path: %s", expect_path,
                  info.detail);
        for (int q = 0; q < ncalls; q++) {
            cr_assert_eq(engine_step(g, steps[q], err, sizeof err), 0, "%s", err);
            cr_assert_eq(engine_step(c, steps[q], err, sizeof err), 0, "%s", err);
            const int rows = last_batch(steps[q], m->sample_rows);
            const char *a = monitors_rows(g->mon), *b = monitors_rows(c->mon);
            for (size_t x = 0; x < (size_t)rows * ns; x++)
                if (memcmp(a + x * es, b + x * es, es)) {
                    const struct sample *sm = &m->samples[x % ns];
                    const double va = p == PRECISION_DOUBLE ? ((const double *)a)[x] : ((const float *)a)[x];
                    const double vb = p == PRECISION_DOUBLE ? ((const double *)b)[x] : ((const float *)b)[x];
                    cr_assert_fail("%s: step %d, sample %zu (%s at cell %zu = (%zu, %zu)): %.17g, "
                                   "cpu %.17g", what, g->step - rows + (int)(x / ns) + 1, x % ns,
                                   field_name((enum field)sm->field), sm->cell,
                                   sm->cell % (size_t)m->nx, sm->cell / (size_t)m->nx, va, vb);
                }
        }
        mon_compare_results(g, c, what);
        void *fa = malloc(m->ncells * es), *fb = malloc(m->ncells * es);
        for (int f = 0; f < FIELD_COUNT; f++) {
            cr_assert_eq(engine_read(g, (enum field)f, fa, err, sizeof err), 0, "%s", err);
            cr_assert_eq(engine_read(c, (enum field)f, fb, err, sizeof err), 0, "%s", err);
            const struct diff d = compare(fa, fb, m->ncells, p);
            cr_assert_eq(d.differ, 0, "%s: %s: %zu cells differ (rel L2 %g)", what,
                         field_name((enum field)f), d.differ, d.rel);
        }
        free(fa);
        free(fb);
        engine_destroy(g);
        engine_destroy(c);
    }
    setup_free(&t);
}

/* (a) An open boundary: a PEC circle, a dielectric rectangle (slots), the
 * far field at three frequencies, a flux box around the objects and a flux
 * line beside them, probes of every field (total and scattered, every 1
 * and every 3) in the open, inside both objects and in the absorbing
 * layer.  150 x 130 cells, 360 steps in three calls (the middle one longer
 * than a batch of 256 rows). */
static void mon_open_scene(char *text, size_t len, const char *waveform, const char *boundary)
{
    snprintf(text, len,
             "[grid]\nnx = 150\nny = 130\nsteps = 360\n"
             "[source]\nangle = 30\nfront_offset = 5\n%s"
             "[boundary]\n%s"
             "[object.rod]\nshape = circle\nmaterial = pec\ncenter_x = 70\ncenter_y = 62\n"
             "radius = 9.5\n"
             "[object.block]\nshape = rectangle\nmaterial = dielectric\neps_r = 3\n"
             "center_x = 84\ncenter_y = 70\nwidth = 8\nheight = 14\n"
             "[monitor.far]\nfrequencies = 0.9, 1, 1.1\nstart_step = 100\n"
             "[monitor.flux.box]\nx0 = 40\ny0 = 35\nx1 = 110\ny1 = 100\nstart_step = 60\n"
             "[monitor.flux.line]\nx0 = 120\ny0 = 30\nx1 = 120\ny1 = 105\nfrequencies = 0.8, 1.2\n"
             "[probe.open]\nx = 30\ny = 40\nfields = all\n"
             "[probe.pec]\nx = 70\ny = 62\nfields = ez, hy\ntotal = false\nevery = 3\n"
             "[probe.dielectric]\nx = 84\ny = 70\nfields = all\nevery = 3\n"
             "[probe.corner]\nx = 0\ny = 0\nfields = all\ntotal = false\n"
             "[probe.layer]\nx = 149\ny = 64\nfields = hx, ez\n"
             "[probe.contour]\nx = 41\ny = 50\nfields = all\ntotal = false\n",
             waveform, boundary);
}

static void mon_open(const char *waveform)
{
    const char *bounds[2] = {"type = cpml\ncells = 10\n", "type = mur\n"};
    /* fused twice: vectors (used without a CPML) and one column per
     * thread; temporal falls back to fused (open boundary) */
    const char *paths[4] = {"two", "fused", "fused", "temporal"};
    const int steps[3] = {37, 300, 23};
    char text[4096];
    for (int b = 0; b < 2; b++) {
        mon_open_scene(text, sizeof text, waveform, bounds[b]);
        for (int k = 0; k < 4; k++) {
            setenv("TEXFDTD_CUDA2D", paths[k], 1);
            setenv("TEXFDTD_CUDA2D_VEC", k == 2 ? "0" : "1", 1);
            cr_log_info("%sTEXFDTD_CUDA2D=%s TEXFDTD_CUDA2D_VEC=%d", bounds[b], paths[k], k != 2);
            mon_vs_cpu(text, steps, 3, k == 0 ? "two kernels" : "fused");
        }
    }
    unsetenv("TEXFDTD_CUDA2D");
    unsetenv("TEXFDTD_CUDA2D_VEC");
}

Test(cuda2d, monitors_sine_bit_identical_to_cpu, .timeout = 120) { mon_open(""); }
Test(cuda2d, monitors_modulated_gaussian_bit_identical_to_cpu, .timeout = 120)
{
    mon_open("waveform = modulated_gaussian\nbandwidth = 1\n");
}

/* (b) A PEC boundary: the temporal path, which gathers inside k_tb2.  A
 * plane wave on a dielectric rod and a PEC plate (slots), 24 probes: the
 * four corners, both sides of the column bands of every K (a warp stores
 * 32 - 2K columns: 28, 24, 20, 16) and of the 64-row strips, neighbours in
 * one row, inside both objects; fields, total and every varied.  With
 * flux: a box and a line as well (many samples in one tile).  701 steps
 * (not a multiple of K) in calls of 100 and 601 (more than a batch of 256
 * rows: engine_step reads three times), K = 2, 4, 6, 8. */
static void mon_pec_scene(char *text, size_t len, bool flux)
{
    static const int at[][2] = {{0, 0},    {129, 202}, {129, 0},  {0, 202},  {1, 1},   {19, 63},
                                {20, 64},  {39, 127},  {40, 128}, {15, 64},  {16, 63}, {23, 100},
                                {24, 101}, {27, 5},    {28, 6},   {70, 90},  {95, 120}, {95, 105},
                                {128, 201}, {64, 64},  {65, 64},  {66, 64},  {64, 65}, {47, 191}};
    static const char *const fields[4] = {"all", "ez", "hx, hy", "hy, ez"};
    size_t n = (size_t)snprintf(text, len,
                                "[grid]\nnx = 130\nny = 203\nsteps = 701\n"
                                "[source]\nangle = 30\nfront_offset = 5\n"
                                "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
                                "center_x = 70\ncenter_y = 90\nradius = 15.5\n"
                                "[object.plate]\nshape = rectangle\nmaterial = pec\n"
                                "center_x = 95\ncenter_y = 120\nwidth = 5\nheight = 30\n%s",
                                flux ? "[monitor.flux.box]\nx0 = 10\ny0 = 20\nx1 = 115\ny1 = 190\n"
                                       "[monitor.flux.line]\nx0 = 3\ny0 = 150\nx1 = 126\ny1 = 150\n"
                                       "frequencies = 0.9, 1.1\n"
                                     : "");
    for (size_t q = 0; q < sizeof at / sizeof at[0]; q++) {
        cr_assert_lt(n, len);
        n += (size_t)snprintf(text + n, len - n, "[probe.p%zu]\nx = %d\ny = %d\nfields = %s\n"
                              "total = %s\nevery = %d\n", q, at[q][0], at[q][1], fields[q % 4],
                              q % 3 ? "true" : "false", q % 5 == 4 ? 3 : q == 7 ? 7 : 1);
    }
    cr_assert_lt(n, len);
}

static void mon_temporal(bool flux)
{
    char text[8192];
    mon_pec_scene(text, sizeof text, flux);
    const char *ks[4] = {"2", "4", "6", "8"};
    const int steps[2] = {100, 601};
    setenv("TEXFDTD_CUDA2D", "temporal", 1);
    for (int k = 0; k < 4; k++) {
        setenv("TEXFDTD_CUDA2D_K", ks[k], 1);
        cr_log_info("TEXFDTD_CUDA2D_K=%s", ks[k]);
        mon_vs_cpu(text, steps, 2, "temporal");
    }
    unsetenv("TEXFDTD_CUDA2D");
    unsetenv("TEXFDTD_CUDA2D_K");
}

Test(cuda2d, monitors_temporal_probes_bit_identical_to_cpu, .timeout = 120) { mon_temporal(false); }
Test(cuda2d, monitors_temporal_flux_bit_identical_to_cpu, .timeout = 120) { mon_temporal(true); }

/* The same PEC scene through the two-kernel and fused paths, whose gather
 * is a kernel of its own after each step. */
Test(cuda2d, monitors_pec_two_and_fused_bit_identical_to_cpu, .timeout = 120)
{
    char text[8192];
    mon_pec_scene(text, sizeof text, true);
    const int steps[2] = {100, 601};
    const char *paths[3] = {"two", "fused", "fused"};
    for (int k = 0; k < 3; k++) {
        setenv("TEXFDTD_CUDA2D", paths[k], 1);
        setenv("TEXFDTD_CUDA2D_VEC", k == 2 ? "0" : "1", 1);
        mon_vs_cpu(text, steps, 2, k == 0 ? "two kernels" : "fused");
    }
    unsetenv("TEXFDTD_CUDA2D");
    unsetenv("TEXFDTD_CUDA2D_VEC");
}

/* (c) [monitor.dft] at three frequencies (ENGINE_CAP_DFT_MULTI) with PEC,
 * CPML and Mur boundaries, on every path that takes a DFT (two kernels,
 * fused with and without vectors; temporal falls back to fused): each
 * frequency's phasor, real and imaginary, bit-identical to cpu, float and
 * double. */
Test(cuda2d, dft_several_frequencies_bit_identical_to_cpu, .timeout = 120)
{
    const char *bounds[3] = {"", "[boundary]\ntype = cpml\ncells = 10\n", "[boundary]\ntype = mur\n"};
    const char *paths[4] = {"two", "fused", "fused", "temporal"};
    char text[2048];
    for (int b = 0; b < 3; b++) {
        snprintf(text, sizeof text, "%sfrequencies = 0.8, 1, 1.25\n%s", scene2d, bounds[b]);
        for (int k = 0; k < 4; k++) {
            setenv("TEXFDTD_CUDA2D", paths[k], 1);
            setenv("TEXFDTD_CUDA2D_VEC", k == 2 ? "0" : "1", 1);
            cr_log_info("%sTEXFDTD_CUDA2D=%s TEXFDTD_CUDA2D_VEC=%d", bounds[b], paths[k], k != 2);
            cuda2d_vs_cpu_bits(text, 300, k == 0 ? "two kernels" : "fused", true);
        }
    }
    unsetenv("TEXFDTD_CUDA2D");
    unsetenv("TEXFDTD_CUDA2D_VEC");
}

/* ---- conformal PEC ([grid] conformal_pec, core/model.h struct cut_edge) ----
 * The engine runs such scenes on the two-kernel path, whatever
 * TEXFDTD_CUDA2D asks (unset: temporal by default, which falls back; two;
 * fused; temporal): the cut edges' old H is kept before the H kernel and
 * their H replaced after it, from Ez^n and this step's b^n, as
 * update_h_row does.  Float (flush) and double (keep) must both give the
 * CPU engine's bits. */
static const char *const conformal_paths[4] = {NULL, "two", "fused", "temporal"};

static void set_path(const char *path)
{
    if (path)
        setenv("TEXFDTD_CUDA2D", path, 1);
    else
        unsetenv("TEXFDTD_CUDA2D");
}

/* The cut edges of a scene's model (> 0, or the test would not test them). */
static size_t cut_edges_of(const char *text)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const size_t n = t.model.ncut;
    setup_free(&t);
    cr_assert_gt(n, 0, "the scene has no conformal cut edges");
    return n;
}

/* (a) Fields and DFT phasors: a PEC cylinder off the grid's axes (radius
 * 17.7 about (61.3, 48.6)) beside a dielectric block (slots of both kinds),
 * a plane wave at 30 degrees, [monitor.dft] at two frequencies; PEC, CPML
 * and Mur boundaries; and a point source near the cylinder (b^n = 0, the
 * PEC slots 0) with Mur.  300 steps in calls of 100 and 200. */
Test(cuda2d, conformal_bit_identical_to_cpu, .timeout = 120)
{
    const char *sources[4] = {"angle = 30\nfront_offset = 5\n", "angle = 30\nfront_offset = 5\n",
                              "angle = 30\nfront_offset = 5\n",
                              "type = point\ncenter_x = 30\ncenter_y = 70\n"};
    const char *bounds[4] = {"", "[boundary]\ntype = cpml\ncells = 10\n", "[boundary]\ntype = mur\n",
                             "[boundary]\ntype = mur\n"};
    char text[2048];
    for (int b = 0; b < 4; b++) {
        snprintf(text, sizeof text,
                 "[grid]\nnx = 130\nny = 97\nsteps = 300\ncourant = 0.5\n"
                 "cells_per_wavelength = 20\nconformal_pec = true\n"
                 "[source]\n%s"
                 "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 61.3\n"
                 "center_y = 48.6\nradius = 17.7\n"
                 "[object.block]\nshape = rectangle\nmaterial = dielectric\neps_r = 3\n"
                 "center_x = 98\ncenter_y = 40\nwidth = 8\nheight = 14\n"
                 "[monitor.dft]\nstart_step = 150\nfrequencies = 0.9, 1.1\n%s",
                 sources[b], bounds[b]);
        const size_t ncut = cut_edges_of(text);
        for (int k = 0; k < 4; k++) {
            set_path(conformal_paths[k]);
            cr_log_info("conformal, %zu cut edges, %s%sTEXFDTD_CUDA2D=%s", ncut, sources[b],
                        bounds[b], conformal_paths[k] ? conformal_paths[k] : "(unset)");
            cuda2d_vs_cpu_bits(text, 300, "two kernels", true);
        }
    }
    unsetenv("TEXFDTD_CUDA2D");
}

/* (b) Monitors: a conformal PEC cylinder (radius 15.2 about (70.3, 62.6)) in
 * a CPML or Mur box, a plane wave at 30 degrees, the far field at three
 * frequencies, a flux box, and probes of every field on cut edges (their H
 * cell and their free Ez node, picked from the model's list: first, last
 * and between, Hx and Hy), inside the cylinder and in the open.  360 steps
 * in calls of 37, 300 and 23. */
static void conformal_mon_scene(char *text, size_t len, const char *waveform, const char *boundary)
{
    size_t n = (size_t)snprintf(
        text, len,
        "[grid]\nnx = 150\nny = 130\nsteps = 360\ncourant = 0.5\ncells_per_wavelength = 20\n"
        "conformal_pec = true\n"
        "[source]\nangle = 30\nfront_offset = 5\n%s"
        "[boundary]\n%s"
        "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 70.3\ncenter_y = 62.6\n"
        "radius = 15.2\n"
        "[monitor.far]\nfrequencies = 0.9, 1, 1.1\nstart_step = 100\n"
        "[monitor.flux.box]\nx0 = 40\ny0 = 35\nx1 = 110\ny1 = 100\nstart_step = 60\n"
        "[probe.open]\nx = 30\ny = 40\nfields = all\n"
        "[probe.inside]\nx = 70\ny = 62\nfields = ez, hx\ntotal = false\nevery = 3\n",
        waveform, boundary);
    cr_assert_lt(n, len);
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    cr_assert_gt(m->ncut, 8, "%zu cut edges", m->ncut);
    /* edges 0, ncut-1 and six between; the first Hx and the first Hy edge */
    size_t pick[10];
    int np = 0;
    for (int k = 0; k < 8; k++)
        pick[np++] = (size_t)k * (m->ncut - 1) / 7;
    for (int comp = 0; comp < 2; comp++)
        for (size_t q = 0; q < m->ncut; q++)
            if (m->cut[q].comp == comp) {
                pick[np++] = q;
                break;
            }
    size_t cells[20];
    int nc = 0;
    for (int k = 0; k < np; k++) {
        const size_t at[2] = {m->cut[pick[k]].cell, m->cut[pick[k]].q};
        for (int w = 0; w < 2; w++) {
            bool seen = false;
            for (int r = 0; r < nc; r++)
                seen = seen || cells[r] == at[w];
            if (!seen)
                cells[nc++] = at[w];
        }
    }
    for (int k = 0; k < nc; k++) {
        n += (size_t)snprintf(text + n, len - n,
                              "[probe.cut%d]\nx = %zu\ny = %zu\nfields = all\ntotal = %s\n"
                              "every = %d\n", k, cells[k] % (size_t)m->nx, cells[k] / (size_t)m->nx,
                              k % 2 ? "true" : "false", k % 3 == 2 ? 3 : 1);
        cr_assert_lt(n, len);
    }
    cr_log_info("conformal monitors: %zu cut edges, probes on %d of their cells", m->ncut, nc);
    setup_free(&t);
}

static void conformal_mon(const char *waveform, int nbounds)
{
    const char *bounds[2] = {"type = cpml\ncells = 10\n", "type = mur\n"};
    const int steps[3] = {37, 300, 23};
    char text[8192];
    for (int b = 0; b < nbounds; b++) {
        conformal_mon_scene(text, sizeof text, waveform, bounds[b]);
        for (int k = 0; k < 4; k++) {
            set_path(conformal_paths[k]);
            cr_log_info("%s%sTEXFDTD_CUDA2D=%s", waveform, bounds[b],
                        conformal_paths[k] ? conformal_paths[k] : "(unset)");
            mon_vs_cpu(text, steps, 3, "two kernels");
        }
    }
    unsetenv("TEXFDTD_CUDA2D");
}

Test(cuda2d, conformal_monitors_sine_bit_identical_to_cpu, .timeout = 120) { conformal_mon("", 2); }
Test(cuda2d, conformal_monitors_pulse_bit_identical_to_cpu, .timeout = 120)
{
    conformal_mon("waveform = modulated_gaussian\nbandwidth = 1\n", 1);
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
/* (300 s: with the PTX compiled by the driver, CUDA_FORCE_PTX_JIT=1, the
 * 3D engine's JIT alone takes about 60 s a process: docs/cuda.md) */
Test(cuda3d, blow_up_nan_planted_is_found, .timeout = 300)
{
    cuda_blow_up_planted(scene3d, PRECISION_SINGLE, NAN);
    cuda_blow_up_planted(scene3d, PRECISION_DOUBLE, NAN);
}
Test(cuda3d, blow_up_inf_planted_is_found, .timeout = 300)
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

/* ---- TE, mu_r and dispersive poles on the 2D engine ----
 * (docs/materials-design.md sections 1-3.)  The H-node map (core/model.h
 * hmat: TE, or TM with mu_r != 1) and its slots, and the dispersive cells,
 * run on the two-kernel path only: whatever TEXFDTD_CUDA2D asks (unset:
 * temporal by default; two; fused; temporal, which must fall back, not run
 * them wrongly), the engine names the two-kernel path and gives the cpu
 * engine's bits, float (flush) and double (keep): the fields, the TE
 * read-out (hz, ex, ey) and the DFT phasors.  300 steps in calls of 100 and
 * 200. */
static const char *const mat_paths[4] = {NULL, "two", "fused", "temporal"};

static void cuda2d_mat_vs_cpu(const char *text)
{
    for (int k = 0; k < 4; k++) {
        set_path(mat_paths[k]);
        cr_log_info("TEXFDTD_CUDA2D=%s", mat_paths[k] ? mat_paths[k] : "(unset)");
        cuda2d_vs_cpu_bits(text, 300, "two kernels", true);
    }
    unsetenv("TEXFDTD_CUDA2D");
}

/* The scene's model must hold what the test is about. */
static void expect_model(const char *text, bool hmap, bool disp, bool te)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    cr_assert_eq(t.model.hmat != NULL, hmap, "H-node map %s", t.model.hmat ? "present" : "absent");
    cr_assert_eq(t.model.ndisp > 0, disp, "%zu dispersive cells", t.model.ndisp);
    cr_assert_eq(t.scene.te, te);
    cr_log_info("%zu H-node slots, %zu dispersive cells, %zu source slots", t.model.nhslots,
                t.model.ndisp, t.model.nslots);
    setup_free(&t);
}

#define MAT2D_GRID "[grid]\nnx = 130\nny = 97\nsteps = 300\ncourant = 0.5\ncells_per_wavelength = 20\n"

/* A PEC cylinder off the grid's axes; with a dielectric block beside it,
 * CPML, a plane wave at 30 degrees and the DFT at two frequencies. */
#define PEC_CYL                                                                                   \
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 61.3\ncenter_y = 48.6\n"          \
    "radius = 17.7\n"
#define PEC_CYL_BLOCK_CPML                                                                        \
    "[source]\nangle = 30\nfront_offset = 5\n"                                                    \
    "[boundary]\ntype = cpml\ncells = 10\n" PEC_CYL                                               \
    "[object.block]\nshape = rectangle\nmaterial = dielectric\neps_r = 3\n"                      \
    "center_x = 98\ncenter_y = 40\nwidth = 8\nheight = 14\n"                                     \
    "[monitor.dft]\nstart_step = 150\nfrequencies = 0.9, 1.1\n"

/* TE, the PEC cylinder (PEC edges: H-array slots that copy -E_inc) and the
 * dielectric block of PEC_CYL_BLOCK_CPML. */
Test(cuda2d, te_pec_cylinder_cpml_bit_identical_to_cpu, .timeout = 180)
{
    const char *text = MAT2D_GRID "polarization = te\n" PEC_CYL_BLOCK_CPML;
    expect_model(text, true, false, true);
    cuda2d_mat_vs_cpu(text);
}

/* TE, a dielectric cylinder with the subpixel edges (the 2D default: edge
 * coefficients off the plain means), Mur, a point source (a soft source on
 * Hz). */
Test(cuda2d, te_dielectric_subpixel_mur_point_bit_identical_to_cpu, .timeout = 180)
{
    const char *text = MAT2D_GRID "polarization = te\n"
                       "[source]\ntype = point\ncenter_x = 30\ncenter_y = 60\n"
                       "[boundary]\ntype = mur\n"
                       "[object.cyl]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
                       "center_x = 70.4\ncenter_y = 45.3\nradius = 15.2\n";
    expect_model(text, true, false, true);
    cuda2d_mat_vs_cpu(text);
}

/* TE, the off-diagonal smoothing (core/model.h hoff, k_hoff2 with its
 * incident term w from the host): a rotated ellipse of eps_r 6 and a circle
 * of eps_r 3, CPML, the plane wave at 30 degrees, the DFT at two
 * frequencies; then the same with te_offdiagonal = false (no list). */
Test(cuda2d, te_offdiagonal_bit_identical_to_cpu, .timeout = 240)
{
    const char *scene = "[source]\nangle = 30\nfront_offset = 5\n"
                        "[boundary]\ntype = cpml\ncells = 10\n"
                        "[object.e]\nshape = ellipse\nmaterial = dielectric\neps_r = 6\n"
                        "center_x = 52.3\ncenter_y = 47.1\nradius_x = 16.2\nradius_y = 9.4\n"
                        "rotation = 37\n"
                        "[object.c]\nshape = circle\nmaterial = dielectric\neps_r = 3\n"
                        "center_x = 95.6\ncenter_y = 50.2\nradius = 11.3\n"
                        "[monitor.dft]\nstart_step = 150\nfrequencies = 0.9, 1.1\n";
    for (int k = 0; k < 2; k++) {
        char *text = NULL;
        cr_assert(asprintf(&text, MAT2D_GRID "polarization = te\n%s%s",
                           k ? "te_offdiagonal = false\n" : "", scene) > 0);
        struct test_setup t;
        setup_from_text(&t, text, NULL, 0);
        cr_assert_eq(t.model.nhoff > 0, k == 0, "%zu off-diagonal edges", t.model.nhoff);
        setup_free(&t);
        expect_model(text, true, false, true);
        cuda2d_mat_vs_cpu(text);
        free(text);
    }
}

/* A cylinder of mu_r 3 (eps_r 2), CPML, the plane wave at 30 degrees. */
#define MAG_CYL                                                                                   \
    "[source]\nangle = 30\nfront_offset = 5\n"                                                    \
    "[boundary]\ntype = cpml\ncells = 10\n"                                                       \
    "[material.mag]\neps_r = 2\nmu_r = 3\n"                                                       \
    "[object.cyl]\nshape = circle\nmaterial = mag\ncenter_x = 55.2\ncenter_y = 47.7\n"           \
    "radius = 14.3\n"

/* TM, the mu_r cylinder (H-node slots that add hinc (Hi^{n+1/2} -
 * Hi^{n-1/2})), a PEC plate beside it. */
Test(cuda2d, tm_mu_r_cylinder_bit_identical_to_cpu, .timeout = 180)
{
    const char *text = MAT2D_GRID MAG_CYL
                       "[object.plate]\nshape = rectangle\nmaterial = pec\n"
                       "center_x = 95\ncenter_y = 50\nwidth = 5\nheight = 20\n"
                       "[monitor.dft]\nstart_step = 150\n";
    expect_model(text, true, false, false);
    cuda2d_mat_vs_cpu(text);
}

/* TE, the mu_r cylinder (the ez array's nodes take S / mu_r, the H-array
 * edges S / eps_bar). */
Test(cuda2d, te_mu_r_cylinder_bit_identical_to_cpu, .timeout = 180)
{
    const char *text = MAT2D_GRID "polarization = te\n" MAG_CYL;
    expect_model(text, true, false, true);
    cuda2d_mat_vs_cpu(text);
}

/* mu_r beside and with sigma and poles (model->magnetic with model->lossy
 * and model->dispersive): TM, a lossy magnetic cylinder, a Drude rod of
 * eps_inf 1 beside it and a Drude rod of mu_r 2 (the dispersive cells' Ez
 * beside the H-node map's nodes); TE, the same (lossy and dispersive
 * edges beside magnetic Hz nodes). */
#define MAG_LOSSY_DISP                                                                            \
    "[source]\nangle = 30\nfront_offset = 5\n"                                                    \
    "[boundary]\ntype = cpml\ncells = 10\n"                                                       \
    "[material.wetmag]\neps_r = 3\nmu_r = 2\nsigma = 0.12\n"                                        \
    "[material.metal]\neps_r = 1\ndrude = 1.2566370614359173e10 1.2566370614359173e9\n"           \
    "[material.magmetal]\neps_r = 1\nmu_r = 2\ndrude = 1.2566370614359173e10 1.2566370614359173e9\n" \
    "[object.cyl]\nshape = circle\nmaterial = wetmag\ncenter_x = 55.2\ncenter_y = 47.7\n"        \
    "radius = 14.3\n"                                                                             \
    "[object.rod]\nshape = circle\nmaterial = metal\ncenter_x = 97\ncenter_y = 30\nradius = 6.5\n" \
    "[object.rod2]\nshape = circle\nmaterial = magmetal\ncenter_x = 97\ncenter_y = 68\n"         \
    "radius = 6.5\n"

Test(cuda2d, tm_mu_r_with_lossy_and_drude_bit_identical_to_cpu, .timeout = 180)
{
    const char *text = MAT2D_GRID MAG_LOSSY_DISP "[monitor.dft]\nstart_step = 150\n";
    expect_model(text, true, true, false);
    cuda2d_mat_vs_cpu(text);
}

static void expect_te_lists(const char *text, bool tecut, bool hlossy, bool hdisp);
static void te_vs_cpu_values(const char *text);

Test(cuda2d, te_mu_r_with_lossy_and_drude_bit_identical_to_cpu, .timeout = 300)
{
    const char *text = MAT2D_GRID "polarization = te\n" MAG_LOSSY_DISP;
    expect_te_lists(text, false, true, true);
    te_vs_cpu_values(text);
}

/* TE without objects has no H-node map: every path runs it (temporal
 * included: PEC boundary, a point source); the arrays and the read-out are
 * the cpu engine's bits. */
Test(cuda2d, te_vacuum_every_path_bit_identical_to_cpu, .timeout = 120)
{
    const char *text = MAT2D_GRID "polarization = te\n"
                       "[source]\ntype = point\ncenter_x = 50\ncenter_y = 40\n";
    expect_model(text, false, false, true);
    const char *paths[3] = {"two", "fused", "temporal"};
    const char *want[3] = {"two kernels", "fused", "temporal"};
    for (int k = 0; k < 3; k++) {
        setenv("TEXFDTD_CUDA2D", paths[k], 1);
        cuda2d_vs_cpu_bits(text, 301, want[k], true);
    }
    unsetenv("TEXFDTD_CUDA2D");
}

/* TE monitors: probes of hz, ex, ey (gathered from the arrays ez, hx, hy;
 * the host applies the signs), the far field at three frequencies and a
 * flux box, around a PEC cylinder and a dielectric block, CPML, a plane wave
 * at 30 degrees; 360 steps in calls of 37, 300 and 23; every
 * TEXFDTD_CUDA2D runs the two-kernel path. */
Test(cuda2d, te_monitors_bit_identical_to_cpu, .timeout = 180)
{
    const char *text =
        "[grid]\nnx = 150\nny = 130\nsteps = 360\ncourant = 0.5\ncells_per_wavelength = 20\n"
        "polarization = te\n"
        "[source]\nangle = 30\nfront_offset = 5\n"
        "[boundary]\ntype = cpml\ncells = 10\n"
        "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 70.3\ncenter_y = 62.6\n"
        "radius = 15.2\n"
        "[object.block]\nshape = rectangle\nmaterial = dielectric\neps_r = 3\n"
        "center_x = 100\ncenter_y = 80\nwidth = 8\nheight = 14\n"
        "[monitor.far]\nfrequencies = 0.9, 1, 1.1\nstart_step = 100\n"
        "[monitor.flux.box]\nx0 = 40\ny0 = 35\nx1 = 115\ny1 = 100\nstart_step = 60\n"
        "[probe.open]\nx = 30\ny = 40\nfields = all\n"
        "[probe.edge]\nx = 70\ny = 47\nfields = all\ntotal = false\nevery = 3\n"
        "[probe.block]\nx = 100\ny = 80\nfields = hz, ey\n";
    const int steps[3] = {37, 300, 23};
    expect_model(text, true, false, true);
    for (int k = 0; k < 4; k++) {
        set_path(mat_paths[k]);
        cr_log_info("TE monitors, TEXFDTD_CUDA2D=%s", mat_paths[k] ? mat_paths[k] : "(unset)");
        mon_vs_cpu(text, steps, 3, "two kernels");
    }
    unsetenv("TEXFDTD_CUDA2D");
}

/* Dispersive cylinders (2D TM, CPML, the plane wave, the DFT) beside a
 * dielectric rod: the D-E update of the dispersive cells after the E
 * kernel.  Rates in rad/s at the default source frequency f0 = 1 GHz,
 * omega = 2 pi f0. */
static void disp_cylinder(const char *material)
{
    char text[2048];
    snprintf(text, sizeof text,
             MAT2D_GRID "[source]\nangle = 30\nfront_offset = 5\n"
             "[boundary]\ntype = cpml\ncells = 10\n%s"
             "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 60.3\ncenter_y = 47.6\n"
             "radius = 15.4\n"
             "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
             "center_x = 97\ncenter_y = 30\nradius = 6.5\n"
             "[monitor.dft]\nstart_step = 150\n",
             material);
    expect_model(text, false, true, false);
    cuda2d_mat_vs_cpu(text);
}

/* Drude: omega_p = 2 omega, gamma = 0.2 omega, eps_inf 1 (Re eps < 0). */
Test(cuda2d, drude_cylinder_bit_identical_to_cpu, .timeout = 180)
{
    disp_cylinder("[material.m]\neps_r = 1\ndrude = 1.2566370614359173e10 1.2566370614359173e9\n");
}

/* Debye: eps_inf 2, delta_eps 6, omega tau = 1, and sigma (the sigma' terms);
 * a lossy material beside it (the E kernel's flag L). */
Test(cuda2d, debye_cylinder_bit_identical_to_cpu, .timeout = 180)
{
    disp_cylinder("[material.m]\neps_r = 2\nsigma = 0.01\ndebye = 6 1.5915494309189535e-10\n"
                  "[material.wet]\neps_r = 3\nsigma = 0.12\n"
                  "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = 97\n"
                  "center_y = 70\nradius = 7\n");
}

/* Two Lorentz poles (delta_eps 3 at 1.5 omega, 1 at 3 omega) and a Drude
 * pole in one material, eps_inf 2. */
Test(cuda2d, lorentz_two_poles_bit_identical_to_cpu, .timeout = 180)
{
    disp_cylinder("[material.m]\neps_r = 2\nlorentz = 3 9.42477796076938e9 1.8849555921538759e9, "
                  "1 1.8849555921538759e10 6.283185307179586e8\n"
                  "drude = 1e9 1e8\n");
}

/* ---- checkpoints (the engine's state) between cuda and cpu ----
 * A state_io in memory: saving keeps each array under its name, loading
 * hands it back by name (its count must match).  A cuda run of a Drude
 * scene (CPML, plane wave, DFT) saved at step 130 and resumed on the cpu
 * engine to step 300 gives the uninterrupted cpu run's bits, fields and
 * DFT, float and double; so does a cpu state resumed on cuda, and both
 * engines save the same names with the same counts. */
struct mem_state {
    struct state_io io;
    int n, used;
    char name[32][32];
    void *data[32];
    size_t count[32], es;
};

static int mem_array(struct state_io *io, const char *name, void *data, size_t count, char *err,
                     size_t errlen)
{
    struct mem_state *s = (struct mem_state *)io;
    if (!io->load) {
        cr_assert_lt(s->n, 32);
        snprintf(s->name[s->n], sizeof s->name[0], "%s", name);
        s->data[s->n] = malloc(count * s->es + 1);
        memcpy(s->data[s->n], data, count * s->es);
        s->count[s->n++] = count;
        return 0;
    }
    for (int k = 0; k < s->n; k++)
        if (!strcmp(s->name[k], name)) {
            if (s->count[k] != count) {
                snprintf(err, errlen, "%s: %zu values saved, %zu asked for", name, s->count[k],
                         count);
                return -1;
            }
            memcpy(data, s->data[k], count * s->es);
            s->used++;
            return 0;
        }
    snprintf(err, errlen, "no array %s saved", name);
    return -1;
}

static void mem_free(struct mem_state *s)
{
    for (int k = 0; k < s->n; k++)
        free(s->data[k]);
}

/* Save `from` after `at` steps, resume on `to` to `steps`; compare with ref. */
static void resume_across(const struct model *m, const struct engine_options *o, const char *from,
                          const char *to, int at, int steps, struct engine *ref)
{
    char err[ERRLEN];
    struct engine *a, *b;
    struct mem_state st = {.io = {.load = false, .array = mem_array}, .es = precision_size(o->precision)};
    cr_assert_eq(engine_create(from, m, o, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(a, at, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_state(a, &st.io, a->step, err, sizeof err), 0, "%s: %s", from, err);
    engine_destroy(a);
    st.io.load = true;
    cr_assert_eq(engine_create(to, m, o, &b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_state(b, &st.io, at, err, sizeof err), 0, "%s from %s: %s", to, from, err);
    cr_assert_eq(st.used, st.n, "%s took %d of the %d arrays %s saved", to, st.used, st.n, from);
    /* both engines save the same names and counts */
    struct mem_state st2 = {.io = {.load = false, .array = mem_array}, .es = st.es};
    cr_assert_eq(engine_state(b, &st2.io, b->step, err, sizeof err), 0, "%s", err);
    cr_assert_eq(st2.n, st.n, "%s saves %d arrays, %s %d", to, st2.n, from, st.n);
    for (int k = 0; k < st.n; k++) {
        cr_assert_str_eq(st2.name[k], st.name[k]);
        cr_assert_eq(st2.count[k], st.count[k], "%s", st.name[k]);
    }
    mem_free(&st2);
    cr_assert_eq(engine_step(b, steps - at, err, sizeof err), 0, "%s", err);
    const size_t bytes = m->ncells * st.es;
    void *x = malloc(bytes), *y = malloc(bytes);
    const enum field ids[5] = {FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_EZ_DFT_RE, FIELD_EZ_DFT_IM};
    for (int q = 0; q < 5; q++) {
        cr_assert_eq(engine_read(b, ids[q], x, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_read(ref, ids[q], y, err, sizeof err), 0, "%s", err);
        const struct diff d = compare(x, y, m->ncells, o->precision);
        cr_log_info("%s -> %s at step %d, %s %s: %zu cells differ", from, to, at,
                    precision_name(o->precision), field_name(ids[q]), d.differ);
        cr_assert_eq(d.differ, 0, "%s -> %s, %s %s: %zu cells differ from the uninterrupted cpu "
                     "run (max %u ulp)", from, to, precision_name(o->precision),
                     field_name(ids[q]), d.differ, d.max_ulp);
    }
    free(x);
    free(y);
    mem_free(&st);
    engine_destroy(b);
}

/* The uninterrupted cpu run of text, then the runs saved at step `at` and
 * resumed across (cuda -> cpu, cpu -> cuda), float (flush) and double
 * (keep), with TEXFDTD_CUDA2D = path (NULL: unset). */
static void checkpoint_across(const char *text, int at, const char *path)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    if (!gpu_or_skip(&t.model)) {
        setup_free(&t);
        return;
    }
    set_path(path);
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        struct engine_options o = {.precision = p,
                                   .denormals = pr ? DENORMALS_KEEP : DENORMALS_FLUSH,
                                   .threads = CPU_THREADS};
        char err[ERRLEN];
        struct engine *ref;
        cr_assert_eq(engine_create("cpu", &t.model, &o, &ref, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_step(ref, 300, err, sizeof err), 0, "%s", err);
        resume_across(&t.model, &o, "cuda", "cpu", at, 300, ref);
        resume_across(&t.model, &o, "cpu", "cuda", at, 300, ref);
        engine_destroy(ref);
    }
    unsetenv("TEXFDTD_CUDA2D");
    setup_free(&t);
}

Test(cuda2d, drude_checkpoint_moves_between_cuda_and_cpu, .timeout = 180)
{
    const char *text = MAT2D_GRID "[source]\nangle = 30\nfront_offset = 5\n"
                       "[boundary]\ntype = cpml\ncells = 10\n"
                       "[material.m]\neps_r = 1\ndrude = 1.2566370614359173e10 1.2566370614359173e9\n"
                       "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 60.3\n"
                       "center_y = 47.6\nradius = 15.4\n"
                       "[monitor.dft]\nstart_step = 100\n";
    expect_model(text, false, true, false);
    checkpoint_across(text, 130, NULL);
}

/* The same across the fused path's ping-pong buffers (a lossless scene
 * without a map: the state loads both twins), CPML and the DFT. */
Test(cuda2d, fused_checkpoint_moves_between_cuda_and_cpu, .timeout = 120)
{
    char text[2048];
    snprintf(text, sizeof text, "%s[boundary]\ntype = cpml\ncells = 10\n", scene2d);
    checkpoint_across(text, 157, "fused");
}

/* The incident values (source slots, H-node slots, dispersive cells) are
 * computed on the device by default (core/incident.h, k_slot_values2 and
 * friends) and on the host with TEXFDTD_CUDA2D_VALUES=host: both equal the
 * cpu engine bit for bit, float and double, with pulsed waveforms (inc_exp)
 * as well as the sine; the temporal path takes its K steps of slot values
 * from one launch. */
static void values_both(const char *text, const char *path, const char *want, int steps)
{
    const char *modes[2] = {"device", "host"};
    for (int k = 0; k < 2; k++) {
        setenv("TEXFDTD_CUDA2D_VALUES", modes[k], 1);
        if (path)
            setenv("TEXFDTD_CUDA2D", path, 1);
        cr_log_info("TEXFDTD_CUDA2D_VALUES=%s TEXFDTD_CUDA2D=%s", modes[k], path ? path : "");
        cuda2d_vs_cpu_bits(text, steps, want, true);
        unsetenv("TEXFDTD_CUDA2D");
    }
    unsetenv("TEXFDTD_CUDA2D_VALUES");
}

Test(cuda2d, incident_values_on_device_and_host_bit_identical_to_cpu, .timeout = 300)
{
    char text[4096];
    /* dielectric, PEC and lossy slots, a Ricker pulse, CPML: two and fused */
    snprintf(text, sizeof text,
             "%s[boundary]\ntype = cpml\ncells = 10\n%s[source]\nwaveform = ricker\n", scene2d,
             lossy2d);
    values_both(text, "two", "two kernels", 301);
    values_both(text, "fused", "fused", 301);
    /* the temporal path (PEC walls, no DFT), a modulated Gaussian */
    snprintf(text, sizeof text,
             "[grid]\nnx = 130\nny = 97\nsteps = 300\n"
             "[source]\nangle = 30\nfront_offset = 5\nwaveform = modulated_gaussian\n"
             "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
             "center_x = 55\ncenter_y = 45\nradius = 12.5\n%s",
             lossy2d);
    values_both(text, "temporal", "temporal", 301);
    /* H-node slots: TE, a dielectric and a PEC cylinder */
    values_both(MAT2D_GRID "polarization = te\n[source]\nangle = 30\nfront_offset = 5\n"
                           "waveform = gaussian\n[boundary]\ntype = cpml\ncells = 10\n"
                           "[object.a]\nshape = circle\nmaterial = pec\ncenter_x = 50.3\n"
                           "center_y = 47.6\nradius = 12.2\n"
                           "[object.b]\nshape = circle\nmaterial = dielectric\neps_r = 3\n"
                           "center_x = 95\ncenter_y = 45\nradius = 10\n",
                NULL, "two kernels", 300);
    /* dispersive cells: a Drude cylinder */
    values_both(MAT2D_GRID "[source]\nangle = 30\nfront_offset = 5\n"
                           "[boundary]\ntype = cpml\ncells = 10\n"
                           "[material.m]\neps_r = 1\ndrude = 1.2566370614359173e10 "
                           "1.2566370614359173e9\n"
                           "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 60.3\n"
                           "center_y = 47.6\nradius = 15.4\n",
                NULL, "two kernels", 300);
}

/* ---- TE's own features on the 2D engine: conformal PEC cut cells, lossy
 * edges, dispersive edges (core/model.h tecut, hmats[].ca, hdisp) ----
 * The two-kernel path runs them whatever TEXFDTD_CUDA2D asks (the fused and
 * temporal paths decline a scene with an H-node map); their bits are the
 * cpu engine's, float (flush) and double (keep), the fields, the TE
 * read-out and the DFT phasors, with the incident values computed on the
 * device (the default) and on the host (TEXFDTD_CUDA2D_VALUES=host). */

/* The scene's model must hold the TE lists the test is about. */
static void expect_te_lists(const char *text, bool tecut, bool hlossy, bool hdisp)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    cr_assert(t.scene.te);
    cr_assert_eq(t.model.ntecut > 0, tecut, "%zu TE cut cells", t.model.ntecut);
    cr_assert_eq(t.model.hlossy, hlossy, "lossy edges %s", t.model.hlossy ? "present" : "absent");
    cr_assert_eq(t.model.nhdisp > 0, hdisp, "%zu dispersive edges", t.model.nhdisp);
    cr_log_info("%zu TE cut cells, %zu H-node slots, %zu dispersive edges, %zu source slots",
                t.model.ntecut, t.model.nhslots, t.model.nhdisp, t.model.nslots);
    setup_free(&t);
}

/* cuda2d_mat_vs_cpu (every TEXFDTD_CUDA2D, float and double) with the
 * incident values on the device and on the host. */
static void te_vs_cpu_values(const char *text)
{
    const char *modes[2] = {"device", "host"};
    for (int k = 0; k < 2; k++) {
        setenv("TEXFDTD_CUDA2D_VALUES", modes[k], 1);
        cr_log_info("TEXFDTD_CUDA2D_VALUES=%s", modes[k]);
        cuda2d_mat_vs_cpu(text);
    }
    unsetenv("TEXFDTD_CUDA2D_VALUES");
}

/* TE conformal PEC: the cylinder of PEC_CYL_BLOCK_CPML (radius 17.7 about
 * (61.3, 48.6): cut cells of every shape, some given area by the
 * small-cell floor) beside its dielectric block (H-node slots of both
 * kinds), CPML, the plane wave at 30 degrees, the DFT at two frequencies. */
Test(cuda2d, te_conformal_pec_cylinder_cpml_bit_identical_to_cpu, .timeout = 300)
{
    const char *text = MAT2D_GRID "polarization = te\nconformal_pec = true\n" PEC_CYL_BLOCK_CPML;
    expect_te_lists(text, true, false, false);
    te_vs_cpu_values(text);
}

/* The same cylinder with Mur walls and a point source beside it (b^n = 0:
 * the cut cells' own update alone, after Mur). */
Test(cuda2d, te_conformal_pec_mur_point_bit_identical_to_cpu, .timeout = 300)
{
    const char *text = MAT2D_GRID "polarization = te\nconformal_pec = true\n"
                       "[source]\ntype = point\ncenter_x = 30\ncenter_y = 70\n"
                       "[boundary]\ntype = mur\n" PEC_CYL;
    expect_te_lists(text, true, false, false);
    te_vs_cpu_values(text);
}

/* TE lossy edges: a lossy cylinder (eps_r 3, sigma 0.12 S/m; edges of
 * ca != 1 and H-node slots with cinc_diff, cinc_sum), a PEC plate and a
 * dielectric rod beside it, CPML, the plane wave (a Gaussian pulse), the
 * DFT. */
Test(cuda2d, te_lossy_cylinder_bit_identical_to_cpu, .timeout = 300)
{
    const char *text = MAT2D_GRID "polarization = te\n"
                       "[source]\nangle = 30\nfront_offset = 5\nwaveform = gaussian\n"
                       "[boundary]\ntype = cpml\ncells = 10\n"
                       "[material.wet]\neps_r = 3\nsigma = 0.12\n"
                       "[object.cyl]\nshape = circle\nmaterial = wet\ncenter_x = 60.3\n"
                       "center_y = 47.6\nradius = 15.4\n"
                       "[object.plate]\nshape = rectangle\nmaterial = pec\n"
                       "center_x = 98\ncenter_y = 62\nwidth = 5\nheight = 20\n"
                       "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
                       "center_x = 97\ncenter_y = 28\nradius = 6.5\n"
                       "[monitor.dft]\nstart_step = 100\n";
    expect_te_lists(text, false, true, false);
    te_vs_cpu_values(text);
}

/* TE dispersive cylinders (CPML, the plane wave, the DFT) beside a
 * dielectric rod: the D-E update of the dispersive edges after the H
 * kernel and the H-node slots. */
static void te_disp_cylinder(const char *material, bool lossy)
{
    char text[4096];
    snprintf(text, sizeof text,
             MAT2D_GRID "polarization = te\n[source]\nangle = 30\nfront_offset = 5\n"
             "[boundary]\ntype = cpml\ncells = 10\n%s"
             "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 60.3\ncenter_y = 47.6\n"
             "radius = 15.4\n"
             "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
             "center_x = 97\ncenter_y = 30\nradius = 6.5\n"
             "[monitor.dft]\nstart_step = 150\n",
             material);
    expect_te_lists(text, false, lossy, true);
    te_vs_cpu_values(text);
}

/* Drude: omega_p = 2 omega, gamma = 0.2 omega, eps_inf 1 (Re eps < 0). */
Test(cuda2d, te_drude_cylinder_bit_identical_to_cpu, .timeout = 300)
{
    te_disp_cylinder("[material.m]\neps_r = 1\ndrude = 1.2566370614359173e10 1.2566370614359173e9\n",
                     false);
}

/* A Debye pole (delta_eps 6, omega tau = 1) and a Lorentz pole (delta_eps
 * 3 at 1.5 omega) in one material with sigma (the sigma' terms), eps_inf
 * 2, and a lossy cylinder beside it (k_h2's flag HL with the dispersive
 * edges' ca = 1, ch = 0). */
Test(cuda2d, te_debye_lorentz_cylinder_bit_identical_to_cpu, .timeout = 300)
{
    te_disp_cylinder("[material.m]\neps_r = 2\nsigma = 0.01\ndebye = 6 1.5915494309189535e-10\n"
                     "lorentz = 3 9.42477796076938e9 1.8849555921538759e9\n"
                     "[material.wet]\neps_r = 3\nsigma = 0.12\n"
                     "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = 97\n"
                     "center_y = 70\nradius = 7\n",
                     true);
}

/* A TE Drude scene (CPML, plane wave, DFT) saved on cuda at step 130 and
 * resumed on cpu (and the reverse) gives the uninterrupted cpu run's bits,
 * float and double: the dispersive edges' state moves under the cpu
 * engine's names (hdisp_ds, hdisp_ei, hdisp_p, hdisp_pold), incident
 * values on the device and on the host. */
Test(cuda2d, te_drude_checkpoint_moves_between_cuda_and_cpu, .timeout = 300)
{
    const char *text = MAT2D_GRID "polarization = te\n[source]\nangle = 30\nfront_offset = 5\n"
                       "[boundary]\ntype = cpml\ncells = 10\n"
                       "[material.m]\neps_r = 1\ndrude = 1.2566370614359173e10 1.2566370614359173e9\n"
                       "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 60.3\n"
                       "center_y = 47.6\nradius = 15.4\n"
                       "[monitor.dft]\nstart_step = 100\n";
    expect_te_lists(text, false, false, true);
    const char *modes[2] = {"device", "host"};
    for (int k = 0; k < 2; k++) {
        setenv("TEXFDTD_CUDA2D_VALUES", modes[k], 1);
        cr_log_info("TEXFDTD_CUDA2D_VALUES=%s", modes[k]);
        checkpoint_across(text, 130, NULL);
    }
    unsetenv("TEXFDTD_CUDA2D_VALUES");
}
