/* test_cpu_tb.c - the cpu engine's temporally blocked sweep (cpu/update2d.inc
 * tb_sweep, TEXFDTD_CPU_TB=K) against its plain sweep, one step at a time:
 * every field (Ez, Hx, Hy and the DFT sums) bit for bit, float and double,
 * for CPML, Mur and PEC walls, plane-wave slots of PEC, dielectric and lossy
 * objects, the point source, several DFT frequencies, 1 to 3 threads
 * (column strips) and step counts that are not multiples of K. */
#include "helpers.h"

#include "cpu/cpucommon.h"

#include <complex.h>
#include <math.h>
#include <unistd.h>

/* A scene: the grid (odd sizes), its walls, objects across strip and row
 * borders, and a DFT at three frequencies starting mid-run. */
static const char *scene_fmt =
    "[grid]\nnx = %d\nny = %d\nsteps = 40\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\n%s\n"
    "[boundary]\n%s\n"
    "[material.wet]\neps_r = 3\nsigma = 0.2\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = %g\n"
    "center_y = %g\nradius = 5.3\n"
    "[object.wall]\nshape = rectangle\nmaterial = pec\ncenter_x = %g\ncenter_y = %g\n"
    "width = 3\nheight = 9\n"
    "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = %g\ncenter_y = %g\nradius = 4\n"
    "[monitor.dft]\nstart_step = 9\nfrequencies = 0.8, 1, 1.3\n";

/* TEXFDTD_CPU_TB_ROWS for the blocked runs (NULL: the default, 1). */
static const char *tb_rows;
/* TEXFDTD_CPU_TB_TILE and TEXFDTD_CPU_TB_SHAPE for the blocked runs (NULL:
 * unset: the untiled sweep when TEXFDTD_CPU_TB is set), and whether the
 * fields start random (every cell nonzero from the first step, so that a
 * cell updated from a neighbour of the wrong step differs at once). */
static const char *tb_tile, *tb_shape;
static bool random_start;

/* Random values in Ez, Hx and Hy, |v| < 0.5, the same for every run. */
static void randomize(struct engine *e, const struct model *m, enum precision p)
{
    char err[ERRLEN];
    const enum field fl[3] = {FIELD_EZ, FIELD_HX, FIELD_HY};
    void *buf = malloc(m->ncells * precision_size(p));
    cr_assert(buf);
    unsigned s = 2463534242u;
    for (int q = 0; q < 3; q++) {
        for (size_t c = 0; c < m->ncells; c++) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            const double u = (double)(s >> 8) / 16777216.0 - 0.5;
            if (p == PRECISION_SINGLE)
                ((float *)buf)[c] = (float)u;
            else
                ((double *)buf)[c] = u;
        }
        cr_assert_eq(engine_write(e, fl[q], buf, err, sizeof err), 0, "%s", err);
    }
    free(buf);
}

/* Run `steps` steps (in calls of `chunk`) and read every field. */
static void run(const struct model *m, enum precision p, int threads, const char *tb, int steps,
                int chunk, void *out[9], int *nout, char *detail, size_t dlen)
{
    char err[ERRLEN];
    if (tb)
        setenv("TEXFDTD_CPU_TB", tb, 1);
    else
        unsetenv("TEXFDTD_CPU_TB");
    if (tb && tb_rows)
        setenv("TEXFDTD_CPU_TB_ROWS", tb_rows, 1);
    else
        unsetenv("TEXFDTD_CPU_TB_ROWS");
    /* no tile given: the untiled sweep (tb_sweep) */
    if (tb)
        setenv("TEXFDTD_CPU_TB_TILE", tb_tile ? tb_tile : "0", 1);
    else
        unsetenv("TEXFDTD_CPU_TB_TILE");
    if (tb && tb_shape)
        setenv("TEXFDTD_CPU_TB_SHAPE", tb_shape, 1);
    else
        unsetenv("TEXFDTD_CPU_TB_SHAPE");
    /* the reference (tb NULL): the plain sweep with the three row kernels
     * apart, no fused row (TEXFDTD_CPU_FUSE=0) */
    if (!tb)
        setenv("TEXFDTD_CPU_FUSE", "0", 1);
    struct engine_options o = {.precision = p, .denormals = DENORMALS_FLUSH, .device = -1,
                               .threads = threads};
    struct engine *e;
    cr_assert_eq(engine_create("cpu", m, &o, &e, err, sizeof err), 0, "%s", err);
    unsetenv("TEXFDTD_CPU_FUSE");
    unsetenv("TEXFDTD_CPU_TB");
    unsetenv("TEXFDTD_CPU_TB_ROWS");
    unsetenv("TEXFDTD_CPU_TB_TILE");
    unsetenv("TEXFDTD_CPU_TB_SHAPE");
    struct engine_info info;
    engine_describe(e, &info);
    snprintf(detail, dlen, "%s", info.detail);
    if (random_start)
        randomize(e, m, p);
    for (int done = 0; done < steps; done += chunk)
        cr_assert_eq(engine_step(e, steps - done < chunk ? steps - done : chunk, err, sizeof err),
                     0, "%s", err);
    const size_t bytes = m->ncells * precision_size(p);
    enum field fl[9] = {FIELD_EZ, FIELD_HX, FIELD_HY};
    int n = 3;
    for (int k = 0; k < 3; k++) {
        fl[n++] = field_dft(k, 0);
        fl[n++] = field_dft(k, 1);
    }
    for (int q = 0; q < n; q++) {
        out[q] = malloc(bytes);
        cr_assert(out[q]);
        cr_assert_eq(engine_read(e, fl[q], out[q], err, sizeof err), 0, "%s", err);
    }
    *nout = n;
    engine_destroy(e);
}

static void same(const char *source, const char *boundary, int nx, int ny, const char *tb,
                 int threads, int steps, int chunk)
{
    char text[4096];
    snprintf(text, sizeof text, scene_fmt, nx, ny, source, boundary, nx * 0.41, ny * 0.5 + 0.3,
             nx * 0.7, ny * 0.35, nx * 0.55, ny * 0.72);
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        void *a[9], *b[9];
        int na, nb;
        char da[512], db[512];
        run(&t.model, p, threads, NULL, steps, steps, a, &na, da, sizeof da);
        run(&t.model, p, threads, tb, steps, chunk, b, &nb, db, sizeof db);
        cr_expect(strstr(db, "temporal blocking"), "TB=%s: the blocked sweep did not run (%s)", tb,
                  db);
        cr_expect(!strstr(da, "temporal blocking"), "%s", da);
        char want[64];
        if (tb_tile) {
            const bool split = tb_shape ? !strcmp(tb_shape, "split") : threads > 1;
            snprintf(want, sizeof want, "tiles of %s columns, %s", tb_tile,
                     split ? "split" : "skewed");
            cr_expect(strstr(db, want), "tiles: want \"%s\" in %s", want, db);
        } else {
            snprintf(want, sizeof want, ", %s row", tb_rows ? tb_rows : "1");
            cr_expect(strstr(db, want), "rows a position: %s", db);
        }
        /* the scene has fields to compare: the wave has met the objects */
        double top = 0;
        for (size_t c = 0; c < t.model.ncells; c++)
            top = fmax(top, fabs(pr ? ((double *)a[0])[c] : ((float *)a[0])[c]));
        cr_expect_gt(top, 0.05, "%s: largest |Ez| %g", source, top);
        for (int q = 0; q < na; q++) {
            const size_t bytes = t.model.ncells * precision_size(p);
            cr_expect(!memcmp(a[q], b[q], bytes), "%s, %s, %dx%d, TB=%s, tile %s %s, %d threads, "
                      "%d steps in calls of %d, %s%s: field %d differs", source, boundary, nx, ny,
                      tb, tb_tile ? tb_tile : "-", tb_shape ? tb_shape : "", threads, steps, chunk,
                      pr ? "double" : "float", random_start ? ", random start" : "", q);
            free(a[q]);
            free(b[q]);
        }
    }
    setup_free(&t);
}

#define PLANE "type = plane_wave\nangle = 30\nwaveform = sine\nramp_periods = 0.5"
#define POINT "type = point\ncenter_x = 20\ncenter_y = 17"

Test(cpu_tb, cpml_plane_wave_objects_dft)
{
    const char *k[] = {"2", "3", "5", "8"};
    for (int q = 0; q < 4; q++)
        same(PLANE, "type = cpml\ncells = 6", 61, 53, k[q], 1, 97, 97);
}

Test(cpu_tb, threads_strips)
{
    for (int th = 2; th <= 3; th++)
        same(PLANE, "type = cpml\ncells = 6", 61, 53, "4", th, 97, 97);
}

Test(cpu_tb, mur_and_point_source)
{
    same(POINT, "type = mur", 47, 45, "3", 1, 31, 31);
    same(POINT, "type = mur", 47, 45, "6", 2, 31, 31);
}

Test(cpu_tb, pec_walls_and_uneven_calls)
{
    /* steps in calls of 7 with K = 4: blocks cut by the calls */
    same(PLANE, "type = pec", 44, 40, "4", 2, 93, 7);
}

/* Wavefront positions of several rows (TEXFDTD_CPU_TB_ROWS = B: a barrier
 * per B rows instead of per row): the same bits, with B dividing the rows
 * and not, larger than K, and a single position covering most of the grid. */
Test(cpu_tb, rows_a_position)
{
    const char *rows[] = {"2", "3", "5", "16"};
    for (int q = 0; q < 4; q++) {
        tb_rows = rows[q];
        same(PLANE, "type = cpml\ncells = 6", 61, 53, "4", 1 + q % 3, 97, 97);
    }
    tb_rows = "4";
    same(POINT, "type = mur", 47, 45, "3", 2, 31, 31);
    tb_rows = "7";
    same(PLANE, "type = pec", 44, 40, "5", 3, 93, 7);
    tb_rows = "40";
    same(PLANE, "type = cpml\ncells = 6", 61, 53, "8", 2, 97, 97);
    tb_rows = NULL;
}

/* The tiled sweep (update2d.inc tb_tiled_sweep, TEXFDTD_CPU_TB_TILE = W):
 * skewed tiles (one thread) and split ones (a trapezoid a thread, cut into
 * skewed sub-tiles of W columns, and the down tiles between; 1 to 3
 * threads), with W not dividing the grid, W smaller than K (tiles empty at
 * some levels), W of 1 and 2 (edges on Mur's wall cells), the 6-cell CPML
 * slabs, the rod, the PEC wall and the lossy disc
 * across tile edges, the point source and the DFT, from zero fields (the
 * wave comes in) and from random ones (every cell wrong at once if a tile
 * edge reads a neighbour of the wrong step). */
static void tiled(const char *tile, const char *shape)
{
    tb_tile = tile;
    tb_shape = shape;
}

/* The plain sweep with the fused row kernel (update2d.inc he_row, the
 * default) against the three kernels apart: "1" is TEXFDTD_CPU_TB = 1, the
 * plain sweep, which same() expects to be blocked: so by hand here. */
Test(cpu_tb, fused_plain_sweep)
{
    char text[4096];
    const int sizes[3][2] = {{61, 53}, {47, 45}, {256, 45}};
    const char *bnd[3] = {"type = cpml\ncells = 6", "type = mur", "type = pec"};
    for (int q = 0; q < 3; q++) {
        const int nx = sizes[q][0], ny = sizes[q][1];
        snprintf(text, sizeof text, scene_fmt, nx, ny, q == 1 ? POINT : PLANE, bnd[q], nx * 0.41,
                 ny * 0.5 + 0.3, nx * 0.7, ny * 0.35, nx * 0.55, ny * 0.72);
        struct test_setup t;
        setup_from_text(&t, text, NULL, 0);
        random_start = true;
        for (int th = 1; th <= 3; th += 2) {
            void *a[9], *b[9];
            int na, nb;
            char da[512], db[512];
            run(&t.model, PRECISION_SINGLE, th, NULL, 41, 41, a, &na, da, sizeof da);
            run(&t.model, PRECISION_SINGLE, th, "1", 41, 41, b, &nb, db, sizeof db);
            cr_expect(!strstr(db, "temporal blocking"), "%s", db);
            for (int k = 0; k < na; k++) {
                cr_expect(!memcmp(a[k], b[k], t.model.ncells * sizeof(float)),
                          "%dx%d, %s, %d threads: field %d differs", nx, ny, bnd[q], th, k);
                free(a[k]);
                free(b[k]);
            }
        }
        random_start = false;
        setup_free(&t);
    }
}

Test(cpu_tb, tiled_skewed)
{
    const char *w[] = {"16", "23", "5", "7", "1", "2", "61"};
    const char *k[] = {"8", "3", "8", "5", "4", "6", "2"};
    for (int q = 0; q < 7; q++) {
        tiled(w[q], "skew");
        same(PLANE, "type = cpml\ncells = 6", 61, 53, k[q], 1, 97, 97);
    }
    tiled("9", "skew");
    same(POINT, "type = mur", 47, 45, "8", 1, 31, 31);
    tiled("2", "skew");
    same(POINT, "type = mur", 47, 45, "3", 1, 31, 31);
    tiled("11", "skew");
    same(PLANE, "type = pec", 44, 40, "4", 1, 93, 7);
    tiled(NULL, NULL);
}

Test(cpu_tb, tiled_split)
{
    const char *w[] = {"20", "23", "5", "37"};
    const char *k[] = {"3", "4", "8", "5"};
    for (int q = 0; q < 4; q++) {
        tiled(w[q], "split");
        same(PLANE, "type = cpml\ncells = 6", 61, 53, k[q], 1 + q % 3, 97, 97);
    }
    tiled("13", "split");
    same(POINT, "type = mur", 47, 45, "3", 2, 31, 31);
    tiled("18", "split");
    same(PLANE, "type = pec", 44, 40, "4", 3, 93, 7);
    /* the default shape: skewed on one thread, split on two */
    tiled("17", NULL);
    same(PLANE, "type = cpml\ncells = 6", 61, 53, "4", 1, 97, 97);
    same(PLANE, "type = cpml\ncells = 6", 61, 53, "4", 2, 97, 97);
    tiled(NULL, NULL);
}

Test(cpu_tb, random_start)
{
    random_start = true;
    tiled("12", "skew");
    same(PLANE, "type = cpml\ncells = 6", 61, 53, "8", 1, 37, 37);
    same(POINT, "type = mur", 47, 45, "5", 1, 23, 23);
    tiled("6", "skew");
    same(PLANE, "type = pec", 44, 40, "7", 1, 30, 9);
    tiled("21", "split");
    same(PLANE, "type = cpml\ncells = 6", 61, 53, "8", 2, 37, 37);
    same(POINT, "type = mur", 47, 45, "5", 3, 23, 23);
    tiled(NULL, NULL);
    same(PLANE, "type = cpml\ncells = 6", 61, 53, "4", 2, 37, 37);
    random_start = false;
}

/* A row pitch padded against cache-set conflicts (cpu2d.c row_pitch: the
 * tiled sweep's arrays where nx elements come near a multiple of 1 KiB):
 * 256 floats, 128 doubles a row; the same bits, and the fields read and
 * written as plain [ny][nx] arrays (randomize writes them). */
Test(cpu_tb, padded_pitch)
{
    random_start = true;
    tiled("40", "skew");
    same(PLANE, "type = cpml\ncells = 6", 256, 45, "8", 1, 29, 29);
    same(POINT, "type = mur", 128, 45, "5", 1, 23, 23);
    tiled("37", "split");
    same(PLANE, "type = cpml\ncells = 6", 256, 45, "6", 2, 29, 11);
    same(PLANE, "type = pec", 250, 40, "4", 3, 23, 23);
    tiled(NULL, NULL);
    random_start = false;
    same(PLANE, "type = cpml\ncells = 6", 256, 45, "8", 1, 300, 300);
}

/* A state_io that keeps the arrays in memory: saved by name, loaded back. */
struct mem_state {
    char name[24][32];
    void *data[24];
    size_t bytes[24];
    int n;
    size_t elem;
};

static int mem_array(struct state_io *io, const char *name, void *data, size_t count, char *err,
                     size_t errlen)
{
    (void)err;
    (void)errlen;
    struct mem_state *s = io->ctx;
    const size_t bytes = count * s->elem;
    for (int k = 0; k < s->n; k++) {
        if (strcmp(s->name[k], name))
            continue;
        cr_assert_eq(s->bytes[k], bytes, "%s: %zu bytes, saved %zu", name, bytes, s->bytes[k]);
        if (io->load)
            memcpy(data, s->data[k], bytes);
        else
            memcpy(s->data[k], data, bytes);
        return 0;
    }
    cr_assert(!io->load, "%s: not saved", name);
    cr_assert_lt(s->n, 24);
    snprintf(s->name[s->n], sizeof s->name[s->n], "%s", name);
    s->data[s->n] = malloc(bytes);
    cr_assert(s->data[s->n]);
    memcpy(s->data[s->n], data, bytes);
    s->bytes[s->n++] = bytes;
    return 0;
}

/* The state of a padded tiled run taken after 13 steps (not a multiple of
 * K = 8) and loaded into a plain-sweep engine (unpadded), and the other way
 * round: both go on 19 steps, and every field matches a run of 32 steps on
 * the plain sweep.  The state is the plain [ny][nx] layout, then, and the
 * padded engine's check for NaN names the model's cell. */
Test(cpu_tb, padded_state_and_finite_check)
{
    char text[4096], err[ERRLEN];
    const int nx = 256, ny = 45;
    snprintf(text, sizeof text, scene_fmt, nx, ny, PLANE, "type = cpml\ncells = 6", nx * 0.41,
             ny * 0.5 + 0.3, nx * 0.7, ny * 0.35, nx * 0.55, ny * 0.72);
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const size_t bytes = t.model.ncells * sizeof(float);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1, .threads = 1};
    struct engine *ref, *e[2];
    setenv("TEXFDTD_CPU_TB", "1", 1);
    setenv("TEXFDTD_CPU_FUSE", "0", 1);
    cr_assert_eq(engine_create("cpu", &t.model, &o, &ref, err, sizeof err), 0, "%s", err);
    unsetenv("TEXFDTD_CPU_FUSE");
    cr_assert_eq(engine_step(ref, 32, err, sizeof err), 0, "%s", err);
    for (int way = 0; way < 2; way++) {
        /* way 0: tiled -> plain; way 1: plain -> tiled */
        for (int q = 0; q < 2; q++) {
            const bool tiled_run = (q == 0) == (way == 0);
            setenv("TEXFDTD_CPU_TB", tiled_run ? "8" : "1", 1);
            setenv("TEXFDTD_CPU_TB_TILE", "48", 1);
            cr_assert_eq(engine_create("cpu", &t.model, &o, &e[q], err, sizeof err), 0, "%s",
                         err);
            unsetenv("TEXFDTD_CPU_TB_TILE");
            struct engine_info info;
            engine_describe(e[q], &info);
            cr_assert(!tiled_run == !strstr(info.detail, "tiles of 48"), "%s", info.detail);
        }
        struct mem_state ms = {.elem = sizeof(float)};
        struct state_io save = {.load = false, .array = mem_array, .ctx = &ms};
        struct state_io load = {.load = true, .array = mem_array, .ctx = &ms};
        cr_assert_eq(engine_step(e[0], 13, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_state(e[0], &save, 13, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_state(e[1], &load, 13, err, sizeof err), 0, "%s", err);
        for (int q = 0; q < 2; q++)
            cr_assert_eq(engine_step(e[q], 19, err, sizeof err), 0, "%s", err);
        const enum field fl[5] = {FIELD_EZ, FIELD_HX, FIELD_HY, field_dft(0, 0), field_dft(2, 1)};
        float *a = malloc(bytes), *b = malloc(bytes);
        cr_assert(a && b);
        for (int k = 0; k < 5; k++) {
            cr_assert_eq(engine_read(ref, fl[k], a, err, sizeof err), 0, "%s", err);
            for (int q = 0; q < 2; q++) {
                cr_assert_eq(engine_read(e[q], fl[k], b, err, sizeof err), 0, "%s", err);
                cr_expect(!memcmp(a, b, bytes), "way %d, engine %d, field %d differs", way, q, k);
            }
        }
        /* a NaN at model cell (i, j) = (200, 30) of Hy */
        const size_t cell = 30 * (size_t)nx + 200;
        for (int q = 0; q < 2; q++) {
            cr_assert_eq(engine_read(e[q], FIELD_HY, b, err, sizeof err), 0, "%s", err);
            b[cell] = NAN;
            cr_assert_eq(engine_write(e[q], FIELD_HY, b, err, sizeof err), 0, "%s", err);
            enum field bad;
            size_t at;
            cr_expect_eq(engine_check_finite(e[q], &bad, &at, err, sizeof err), 1);
            cr_expect_eq(bad, FIELD_HY);
            cr_expect_eq(at, cell, "NaN reported at %zu, written at %zu", at, cell);
            engine_destroy(e[q]);
        }
        free(a);
        free(b);
        for (int k = 0; k < ms.n; k++)
            free(ms.data[k]);
    }
    unsetenv("TEXFDTD_CPU_TB");
    engine_destroy(ref);
    setup_free(&t);
}

/* The default sweep (cpu2d.c tb_default): where the three field arrays
 * pass 32 MiB the tiled sweep, K = 16, tiles of cpu2d.c tb_tile_width
 * (here: float, 1 MiB of L2 where sysconf says so: half of it over 18 rows
 * of 13 bytes, less 16, = 2224 columns, at most nx; on two threads at most
 * nx / 4), skewed on one thread, split on two; below, the plain sweep.
 * TEXFDTD_CPU_TB = 1 forces the plain sweep, K > 1 the tiled one,
 * TEXFDTD_CPU_TB_ROWS alone the untiled one with the default K.  (That
 * every sweep gives the same bits is proven above.) */
static void default_sweep_isa(int n, enum precision p, int threads, const char *tb,
                              const char *rows, const char *isa, const char *want)
{
    char text[256], err[ERRLEN];
    snprintf(text, sizeof text, "[grid]\nnx = %d\nny = %d\nsteps = 1\n[boundary]\ntype = pec\n", n,
             n);
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    setenv("TEXFDTD_CPU_ISA", isa, 1);
    if (tb)
        setenv("TEXFDTD_CPU_TB", tb, 1);
    if (rows)
        setenv("TEXFDTD_CPU_TB_ROWS", rows, 1);
    struct engine_options o = {.precision = p, .denormals = DENORMALS_FLUSH, .device = -1,
                               .threads = threads};
    struct engine *e;
    cr_assert_eq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0, "%s", err);
    unsetenv("TEXFDTD_CPU_TB");
    unsetenv("TEXFDTD_CPU_TB_ROWS");
    unsetenv("TEXFDTD_CPU_ISA");
    struct engine_info info;
    engine_describe(e, &info);
    if (want)
        cr_expect(strstr(info.detail, want), "%d², %d threads: %s", n, threads, info.detail);
    else
        cr_expect(!strstr(info.detail, "temporal blocking"), "%d², %d threads: %s", n, threads,
                  info.detail);
    engine_destroy(e);
    setup_free(&t);
}

/* The rule below with the AVX2 kernels, as on the AMD CPU measured (SSE2
 * where the CPU lacks AVX2: the rule is the same) */
static void default_sweep(int n, enum precision p, int threads, const char *tb, const char *rows,
                          const char *want)
{
    default_sweep_isa(n, p, threads, tb, rows,
                      cpu_isa_supported(CPU_ISA_AVX2) ? "avx2" : "sse2", want);
}

Test(cpu_tb, default_by_grid_size)
{
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    char want[96];
    const int w1 = (int)((l2 > 0 ? l2 : 1 << 20) / 2 / (18 * 13)) - 16;
    /* 3 x 2300² floats = 63.5 MB > 32 MiB = 33.6 MB; 3 x 1650² = 32.7 MB */
    snprintf(want, sizeof want, "16 steps a sweep, tiles of %d columns, skewed",
             w1 / 16 * 16 < 2300 ? w1 / 16 * 16 : 2300);
    default_sweep(2300, PRECISION_SINGLE, 1, NULL, NULL, want);
    /* the L2's width, or the whole row where that is narrower (1 MiB of L2:
     * 2224 columns; 512 KiB, an AMD Zen 3's: 1104) */
    snprintf(want, sizeof want, "tiles of %d columns, skewed",
             w1 / 16 * 16 < 1700 ? w1 / 16 * 16 : 1700);
    default_sweep(1700, PRECISION_SINGLE, 1, NULL, NULL, want);
    default_sweep(1650, PRECISION_SINGLE, 1, NULL, NULL, NULL);
    default_sweep(1700, PRECISION_SINGLE, 2, NULL, NULL, "16 steps a sweep, tiles of 416 columns, split");
    default_sweep(1650, PRECISION_SINGLE, 2, NULL, NULL, NULL);
    default_sweep(1200, PRECISION_DOUBLE, 1, NULL, NULL, "16 steps a sweep, tiles of");
    default_sweep(1150, PRECISION_DOUBLE, 1, NULL, NULL, NULL);
    default_sweep(1700, PRECISION_SINGLE, 1, "1", NULL, NULL);
    default_sweep(1650, PRECISION_SINGLE, 2, "4", NULL, "4 steps a sweep, tiles of 400 columns, split");
    default_sweep(1700, PRECISION_SINGLE, 1, NULL, "3", "16 steps a sweep, 3 rows");
    /* with the AVX-512 kernels on one thread, the tiled sweep from 1.5 times
     * the L2 on (3 n² floats against 1.5 l2 bytes; here n = 1.02 and 0.98
     * times the size where they are equal), the plain one below it and on
     * two threads */
    if (!cpu_isa_supported(CPU_ISA_AVX512)) {
        cr_log_info("no AVX-512 here: its default sweep not checked");
        return;
    }
    const int n15 = (int)sqrt(1.5 * (double)(l2 > 0 ? l2 : 1 << 20) / 12.0);
    const int nb = n15 * 102 / 100, ns = n15 * 98 / 100;
    snprintf(want, sizeof want, "16 steps a sweep, tiles of %d columns, skewed",
             w1 / 16 * 16 < nb ? w1 / 16 * 16 : nb);
    default_sweep_isa(nb, PRECISION_SINGLE, 1, NULL, NULL, "avx512", want);
    default_sweep_isa(ns, PRECISION_SINGLE, 1, NULL, NULL, "avx512", NULL);
    default_sweep_isa(nb, PRECISION_SINGLE, 2, NULL, NULL, "avx512", NULL);
    default_sweep_isa(1650, PRECISION_SINGLE, 2, NULL, NULL, "avx512", NULL);
    default_sweep_isa(1700, PRECISION_SINGLE, 2, NULL, NULL, "avx512", "tiles of 416 columns, split");
}
