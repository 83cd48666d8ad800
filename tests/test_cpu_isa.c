/* test_cpu_isa.c - the cpu engines' row kernels per instruction set
 * (cpu/rows2d.inc, cpu/rows3d.inc; TEXFDTD_CPU_ISA = sse2 | avx2 | avx512):
 * every set this CPU has gives the bits of SSE2, the x86-64 baseline, in
 * every field, float and double, with denormals flushed and kept:
 *   - 2D TM with a CPML, dielectric, lossy, dispersive and magnetic (mu_r:
 *     the H-node map) objects, a PEC wall, the plane wave and DFT sums;
 *     a dielectric scene (the per-material ez path) with Mur walls and the
 *     point source;
 *   - 2D TE with lossy magnetic edges (the lossy H-node kernels);
 *   - the temporally blocked sweep (TEXFDTD_CPU_TB), untiled and tiled
 *     (TEXFDTD_CPU_TB_TILE: the fused row kernel), with each set;
 *   - 3D (cpu3d): lossy, dispersive and magnetic sphere in a CPML, and a
 *     dielectric one between Mur walls.
 * The fields start random and tiny (every kernel does real work from the
 * first step, in every cell, about half of it on subnormal numbers), so
 * that flushing matters: the SSE2 runs with flush and with keep must differ, and each set
 * must then match SSE2 in both modes (MXCSR's FTZ and DAZ govern the AVX
 * and AVX-512 registers too).  A set the CPU lacks is refused at create,
 * and so is an unknown name. */
#include "helpers.h"

#include "cpu/cpucommon.h"

/* Create the cpu engine with TEXFDTD_CPU_ISA = isa and, where tb is not
 * NULL, TEXFDTD_CPU_TB = tb, TEXFDTD_CPU_TB_ROWS = rows (or, rows = "wW",
 * TEXFDTD_CPU_TB_TILE = W); the description
 * names the set (and the blocking). */
static struct engine *make(const struct model *m, enum precision p, enum denormals dn,
                           int threads, const char *isa, const char *tb, const char *rows)
{
    char err[ERRLEN];
    setenv("TEXFDTD_CPU_ISA", isa, 1);
    if (tb) {
        setenv("TEXFDTD_CPU_TB", tb, 1);
        /* "wW": the tiled sweep, W columns a tile */
        setenv(rows[0] == 'w' ? "TEXFDTD_CPU_TB_TILE" : "TEXFDTD_CPU_TB_ROWS",
               rows + (rows[0] == 'w'), 1);
    }
    struct engine_options o = {.precision = p, .denormals = dn, .device = -1, .threads = threads};
    struct engine *e;
    const int rc = engine_create("cpu", m, &o, &e, err, sizeof err);
    unsetenv("TEXFDTD_CPU_ISA");
    unsetenv("TEXFDTD_CPU_TB");
    unsetenv("TEXFDTD_CPU_TB_ROWS");
    unsetenv("TEXFDTD_CPU_TB_TILE");
    cr_assert_eq(rc, 0, "TEXFDTD_CPU_ISA=%s: %s", isa, err);
    struct engine_info info;
    engine_describe(e, &info);
    char want[64];
    snprintf(want, sizeof want, "row kernels %s", isa);
    cr_assert(strstr(info.detail, want), "TEXFDTD_CPU_ISA=%s: %s", isa, info.detail);
    cr_assert(!tb == !strstr(info.detail, "temporal blocking"), "TB=%s: %s", tb ? tb : "-",
              info.detail);
    return e;
}

/* The fields of a run: the engine's arrays (2D: Ez, Hx, Hy and the DFT
 * sums; 3D: the six components). */
struct fields {
    void *f[16];
    int n;
    size_t bytes;
};

static int field_list(const struct model *m, enum field fl[16])
{
    int n = 0;
    if (m->nz > 1) {
        const enum field f3[6] = {FIELD_EX, FIELD_EY, FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_HZ};
        for (int k = 0; k < 6; k++)
            fl[n++] = f3[k];
        return n;
    }
    fl[n++] = FIELD_EZ;
    fl[n++] = FIELD_HX;
    fl[n++] = FIELD_HY;
    for (int k = 0; m->scene->dft && k < m->scene->dft_nfreq; k++) {
        fl[n++] = field_dft(k, 0);
        fl[n++] = field_dft(k, 1);
    }
    return n;
}

/* Random values in the E and H arrays, all of them tiny: below 2e-38 in
 * float, 2e-308 in double, so about half are subnormal (under 2^-126,
 * 2^-1022) and most results of the first steps are too (a mix of tiny
 * and ordinary values would not do: the ordinary ones spread over the grid
 * in a few steps and absorb the tiny ones); the sources then bring
 * ordinary values to the part of the grid they reach.  The same values for
 * every run. */
static void randomize(struct engine *e, const struct model *m, enum precision p)
{
    char err[ERRLEN];
    const int nf = m->nz > 1 ? 6 : 3;
    enum field fl[16];
    field_list(m, fl);
    const size_t n = m->ncells;
    void *buf = malloc(n * precision_size(p));
    cr_assert(buf);
    unsigned s = 12345;
    for (int q = 0; q < nf; q++) {
        for (size_t c = 0; c < n; c++) {
            s = s * 1103515245u + 12345u;
            const double u = ((s >> 8) & 0xffff) / 65536.0 - 0.5;
            if (p == PRECISION_SINGLE)
                ((float *)buf)[c] = (float)(u * 4e-38);
            else
                ((double *)buf)[c] = u * 4e-308;
        }
        cr_assert_eq(engine_write(e, fl[q], buf, err, sizeof err), 0, "%s", err);
    }
    free(buf);
}

/* Steps from the random start, in calls of `chunk`, then every field read. */
static void run(const struct model *m, enum precision p, enum denormals dn, int threads,
                const char *isa, const char *tb, const char *rows, int steps, int chunk,
                struct fields *out)
{
    char err[ERRLEN];
    struct engine *e = make(m, p, dn, threads, isa, tb, rows);
    randomize(e, m, p);
    for (int done = 0; done < steps; done += chunk)
        cr_assert_eq(engine_step(e, steps - done < chunk ? steps - done : chunk, err, sizeof err),
                     0, "%s", err);
    enum field fl[16];
    out->n = field_list(m, fl);
    out->bytes = m->ncells * precision_size(p);
    for (int q = 0; q < out->n; q++) {
        out->f[q] = malloc(out->bytes);
        cr_assert(out->f[q]);
        cr_assert_eq(engine_read(e, fl[q], out->f[q], err, sizeof err), 0, "%s", err);
    }
    engine_destroy(e);
}

static void fields_free(struct fields *a)
{
    for (int q = 0; q < a->n; q++)
        free(a->f[q]);
}

static bool fields_equal(const struct fields *a, const struct fields *b, int *first)
{
    for (int q = 0; q < a->n; q++)
        if (memcmp(a->f[q], b->f[q], a->bytes)) {
            *first = q;
            return false;
        }
    return true;
}

static const char *const isa_names[CPU_ISA_COUNT] = {"sse2", "avx2", "avx512"};

/* Every set of this CPU, SSE2's included (and, where tb is not NULL, the
 * blocked sweep with each set) against SSE2's plain sweep with the three
 * row kernels apart (TEXFDTD_CPU_FUSE=0: no fused row, rows2d.inc
 * hez_vac), in float and double, flush and keep. */
static void same_bits(const char *text, int threads, const char *tb, const char *rows, int steps,
                      int chunk)
{
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    int sets = 0;
    for (int pr = 0; pr < 2; pr++) {
        const enum precision p = pr ? PRECISION_DOUBLE : PRECISION_SINGLE;
        struct fields base[2];
        /* the reference: SSE2, the three row kernels apart (no fused row) */
        setenv("TEXFDTD_CPU_FUSE", "0", 1);
        for (int d = 0; d < 2; d++)
            run(&t.model, p, d ? DENORMALS_KEEP : DENORMALS_FLUSH, threads, "sse2", NULL, NULL,
                steps, steps, &base[d]);
        unsetenv("TEXFDTD_CPU_FUSE");
        int q = -1;
        cr_expect(!fields_equal(&base[0], &base[1], &q),
                  "%s: flush and keep gave the same bits: no subnormal reached",
                  pr ? "double" : "float");
        for (int k = 0; k < CPU_ISA_COUNT; k++) {
            if (!cpu_isa_supported((enum cpu_isa)k))
                continue;
            sets += !pr;
            for (int d = 0; d < 2; d++) {
                struct fields r;
                run(&t.model, p, d ? DENORMALS_KEEP : DENORMALS_FLUSH, threads, isa_names[k], tb,
                    rows, steps, chunk, &r);
                cr_expect(fields_equal(&base[d], &r, &q),
                          "%s, %s, denormals %s%s%s: field %d differs from sse2's plain sweep",
                          isa_names[k], pr ? "double" : "float", d ? "keep" : "flush",
                          tb ? ", TB=" : "", tb ? tb : "", q);
                fields_free(&r);
            }
        }
        fields_free(&base[0]);
        fields_free(&base[1]);
    }
    cr_log_info("%d instruction sets compared with sse2", sets);
    setup_free(&t);
}

/* A lossy, a dispersive (every pole kind) and a magnetic cylinder, a
 * dielectric one and a PEC wall in a CPML, the plane wave, three DFT
 * frequencies. */
static const char *tm_all =
    "[grid]\nnx = 61\nny = 53\nsteps = 40\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\ntype = plane_wave\nangle = 30\nfrequency_hz = 1e9\n"
    "[boundary]\ntype = cpml\ncells = 6\n"
    "[material.wet]\neps_r = 3\nsigma = 0.2\n"
    "[material.pole]\neps_r = 2\ndebye = 1.5 1e-10\nlorentz = 0.5 2e10 1e9\ndrude = 2e10 3e9\n"
    "[material.mag]\neps_r = 2\nmu_r = 1.8\n"
    "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = 30.2\ncenter_y = 38.1\n"
    "radius = 5\n"
    "[object.pole]\nshape = circle\nmaterial = pole\ncenter_x = 42.3\ncenter_y = 26.4\n"
    "radius = 4.5\n"
    "[object.mag]\nshape = circle\nmaterial = mag\ncenter_x = 20.4\ncenter_y = 20.6\n"
    "radius = 5.2\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 45.1\n"
    "center_y = 40.3\nradius = 3.3\n"
    "[object.wall]\nshape = rectangle\nmaterial = pec\ncenter_x = 33\ncenter_y = 16\n"
    "width = 3\nheight = 7\n"
    "[monitor.dft]\nstart_step = 9\nfrequencies = 0.8, 1, 1.3\n";

/* Lossless dielectrics only (the ez path with a coefficient per material),
 * Mur walls, the point source. */
static const char *tm_mur =
    "[grid]\nnx = 47\nny = 45\nsteps = 30\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\ntype = point\ncenter_x = 20\ncenter_y = 17\n"
    "[boundary]\ntype = mur\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 25.3\n"
    "center_y = 24.1\nradius = 6.3\n"
    "[object.wall]\nshape = rectangle\nmaterial = pec\ncenter_x = 12\ncenter_y = 30\n"
    "width = 3\nheight = 9\n";

Test(cpu_isa, tm_cpml_every_material_dft, .timeout = 120)
{
    same_bits(tm_all, 2, NULL, NULL, 40, 40);
}

Test(cpu_isa, tm_mur_dielectric_point_source, .timeout = 120)
{
    same_bits(tm_mur, 1, NULL, NULL, 30, 30);
}

/* TE: lossy magnetic edges (the H-node kernels with ca) and a Debye
 * cylinder (dispersive edges), CPML. */
Test(cpu_isa, te_lossy_magnetic_edges, .timeout = 120)
{
    static const char *text =
        "[grid]\nnx = 57\nny = 51\nsteps = 40\ncourant = 0.5\ncells_per_wavelength = 12\n"
        "polarization = te\n"
        "[source]\ntype = plane_wave\nangle = 20\nfrequency_hz = 1e9\n"
        "[boundary]\ntype = cpml\ncells = 6\n"
        "[material.m]\neps_r = 4\nmu_r = 2\nsigma = 0.05\n"
        "[material.d]\neps_r = 2\ndebye = 1.5 1e-10\n"
        "[object.m]\nshape = circle\nmaterial = m\ncenter_x = 25.2\ncenter_y = 24.7\nradius = 7\n"
        "[object.d]\nshape = circle\nmaterial = d\ncenter_x = 40.5\ncenter_y = 33.2\nradius = 4\n";
    same_bits(text, 2, NULL, NULL, 40, 40);
}

/* The temporally blocked sweep (tb_sweep; TM without H-node maps or
 * dispersive cells) with each set, SSE2 included, against SSE2's plain
 * sweep: K = 4 and 5, one and three rows a position, calls that cut the
 * blocks. */
static const char *tm_tb =
    "[grid]\nnx = 61\nny = 53\nsteps = 40\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\ntype = plane_wave\nangle = 30\nfrequency_hz = 1e9\n"
    "[boundary]\ntype = cpml\ncells = 6\n"
    "[material.wet]\neps_r = 3\nsigma = 0.2\n"
    "[object.wet]\nshape = circle\nmaterial = wet\ncenter_x = 30.2\ncenter_y = 30.1\n"
    "radius = 6\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 45.1\n"
    "center_y = 40.3\nradius = 3.3\n"
    "[monitor.dft]\nstart_step = 9\nfrequencies = 0.8, 1.3\n";

Test(cpu_isa, blocked_sweep, .timeout = 120)
{
    same_bits(tm_tb, 2, "4", "1", 37, 37);
    same_bits(tm_tb, 1, "5", "3", 37, 9);
}

/* The tiled sweep (tb_tiled_sweep, with the fused row kernel hez_vac on
 * GCC vectors of each set's width) likewise: skewed tiles on one thread,
 * split ones on two. */
Test(cpu_isa, tiled_sweep, .timeout = 120)
{
    same_bits(tm_tb, 1, "8", "w24", 37, 37);
    same_bits(tm_tb, 2, "6", "w20", 37, 11);
}

/* Rows with objects through the fused row kernel, one call a run of one
 * material (update2d.inc he_row), and PEC walls (its edge columns without
 * the calls, he_cols): a PEC and a dielectric rectangle side by side, a
 * dielectric rod, a comb of one-cell PEC posts on three rows (runs of 1
 * and 2 cells: those rows the kernels apart) and a sparser one on one row,
 * the plane wave along +x (the
 * shared slots) and at 30 degrees.  Every set, plain (one and two threads)
 * and tiled, against SSE2's three kernels apart; and the rows the engine
 * says it fuses are those a count of the runs here gives: the rows 1 ..
 * ny - 3 whose runs are 16 cells long on the average or more. */
static const char *tm_runs =
    "[grid]\nnx = 161\nny = 49\nsteps = 40\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\ntype = plane_wave\nangle = %d\nfrequency_hz = 1e9\n"
    "[boundary]\ntype = pec\n"
    "[object.sq]\nshape = rectangle\nmaterial = pec\ncenter_x = 20.5\ncenter_y = 14.5\n"
    "width = 9\nheight = 8\n"
    "[object.die]\nshape = rectangle\nmaterial = dielectric\neps_r = 3\ncenter_x = 29.5\n"
    "center_y = 16.5\nwidth = 9\nheight = 10\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 45.2\n"
    "center_y = 33.1\nradius = 6.4\n"
    "%s";

/* n PEC posts of width 1 and height h at columns x0, x0 + dx, ... on the
 * row centre cy, appended to text (sections post<tag>0 ..). */
static void add_posts(char *text, const char *tag, int n, int x0, int dx, double cy, double h)
{
    for (int k = 0; k < n; k++) {
        char o[160];
        snprintf(o, sizeof o,
                 "[object.post%s%d]\nshape = rectangle\nmaterial = pec\ncenter_x = %d.5\n"
                 "center_y = %g\nwidth = 1\nheight = %g\n",
                 tag, k, x0 + dx * k, cy, h);
        strcat(text, o);
    }
}

Test(cpu_isa, fused_rows_with_objects, .timeout = 120)
{
    char comb[8192] = "", text[12288];
    add_posts(comb, "a", 20, 4, 3, 41, 2);
    /* and a sparse one: 7 posts, 15 runs (the kernels apart; fused, were
     * the rule 8 cells on the average) */
    add_posts(comb, "b", 7, 10, 20, 6.5, 1);
    for (int angle = 0; angle <= 30; angle += 30) {
        snprintf(text, sizeof text, tm_runs, angle, comb);
        struct test_setup t;
        setup_from_text(&t, text, NULL, 0);
        const struct model *m = &t.model;
        /* the rows to fuse, from the material rows */
        int want = 0, want_obj = 0, combs = 0, sparse = 0;
        for (int j = 1; j <= m->ny - 3; j++) {
            const uint8_t *row = m->mat + (size_t)j * (size_t)m->nx;
            int runs = 1;
            for (int i = 1; i < m->nx; i++)
                runs += row[i] != row[i - 1];
            const bool vac = runs == 1 && row[0] == 0;
            combs += runs > 20;
            sparse += runs > 10 && runs <= 20;
            if (vac || runs * 16 <= m->nx) {
                want++;
                want_obj += !vac;
            }
        }
        cr_assert(want_obj >= 8 && combs >= 2 && sparse >= 1,
                  "the scene: %d object rows to fuse, %d comb rows, %d sparse", want_obj, combs,
                  sparse);
        struct engine *e = make(m, PRECISION_SINGLE, DENORMALS_FLUSH, 1, "sse2", NULL, NULL);
        struct engine_info info;
        engine_describe(e, &info);
        char says[96];
        snprintf(says, sizeof says, "fused rows %d of %d, %d with objects", want, m->ny, want_obj);
        cr_expect(strstr(info.detail, says), "want \"%s\" in %s", says, info.detail);
        engine_destroy(e);
        same_bits(text, 1, NULL, NULL, 40, 40);
        same_bits(text, 2, NULL, NULL, 40, 13);
        same_bits(text, 1, "7", "w24", 37, 37);
        same_bits(text, 2, "5", "w20", 37, 11);
        setup_free(&t);
    }
}

/* 3D: a lossy, dispersive, magnetic sphere in a CPML (the lossy e and the
 * H-node kernels), and a dielectric sphere between Mur walls with the
 * point source (the plain ones). */
Test(cpu_isa, cpu3d, .timeout = 120)
{
    static const char *cpml =
        "[grid]\nnx = 22\nny = 22\nnz = 22\nsteps = 20\ncourant = 0.5\n"
        "[boundary]\ntype = cpml\ncells = 4\n[source]\nfrequency_hz = 1e9\n"
        "[material.p]\neps_r = 2\nmu_r = 1.5\nsigma = 0.02\n"
        "debye = 1.5 1e-10\nlorentz = 0.5 2e10 1e9\ndrude = 2e10 3e9\n"
        "[object.s]\nshape = sphere\nmaterial = p\ncenter_x = 10.5\n"
        "center_y = 10.5\ncenter_z = 10.2\nradius = 4.5\n";
    static const char *mur =
        "[grid]\nnx = 21\nny = 19\nnz = 17\nsteps = 20\ncourant = 0.5\n"
        "[boundary]\ntype = mur\n"
        "[source]\ntype = point\ncenter_x = 7\ncenter_y = 8\ncenter_z = 9\n"
        "[object.s]\nshape = sphere\nmaterial = dielectric\neps_r = 3\ncenter_x = 11.5\n"
        "center_y = 9.5\ncenter_z = 8.2\nradius = 4\n";
    same_bits(cpml, 2, NULL, NULL, 20, 20);
    same_bits(mur, 1, NULL, NULL, 20, 20);
}

/* The vendor as /proc/cpuinfo gives it: 1 GenuineIntel, 0 another, -1 not
 * found (read here, apart from the engine's __builtin_cpu_is). */
static int cpuinfo_intel(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    int r = -1;
    while (f && r < 0 && fgets(line, sizeof line, f))
        if (!strncmp(line, "vendor_id", 9))
            r = strstr(line, "GenuineIntel") != NULL;
    if (f)
        fclose(f);
    return r;
}

/* The set auto should run on this CPU, by the rule written out: AVX-512 for
 * the 2D engine on an Intel CPU that has it, else AVX2 where it is, else
 * SSE2. */
static enum cpu_isa auto_set(bool twod)
{
    if (twod && cpuinfo_intel() == 1 && cpu_isa_supported(CPU_ISA_AVX512))
        return CPU_ISA_AVX512;
    return cpu_isa_supported(CPU_ISA_AVX2) ? CPU_ISA_AVX2 : CPU_ISA_SSE2;
}

/* The default set's rule, case by case (docs/performance.md, "AVX-512 on an
 * Intel CPU": the 2D engine faster with AVX-512 on the Intel CPU measured,
 * the 3D engine slower; AVX-512 slower on the AMD one). */
Test(cpu_isa, default_set_rule)
{
    cr_expect_eq(cpu_isa_pick(true, true, true, true), CPU_ISA_AVX512);
    cr_expect_eq(cpu_isa_pick(true, true, true, false), CPU_ISA_AVX2, "3D: AVX2 on Intel too");
    cr_expect_eq(cpu_isa_pick(false, true, true, true), CPU_ISA_AVX2, "AMD: AVX2");
    cr_expect_eq(cpu_isa_pick(true, true, false, true), CPU_ISA_AVX2);
    cr_expect_eq(cpu_isa_pick(false, false, false, true), CPU_ISA_SSE2);
    cr_expect_eq(cpu_isa_pick(true, false, false, false), CPU_ISA_SSE2);
    cr_log_info("this CPU: intel %d, auto 2D %s, 3D %s", cpuinfo_intel(),
                cpu_isa_name(auto_set(true)), cpu_isa_name(auto_set(false)));
}

/* Every set this CPU has is run and named; one it lacks, and an unknown
 * name, are refused at create with a message that says why; auto (and
 * unset) runs the default, auto_set's set for this CPU and engine. */
Test(cpu_isa, forced_refused_or_named)
{
    static const char *text = "[grid]\nnx = 40\nny = 40\nsteps = 1\n[boundary]\ntype = pec\n";
    static const char *text3 = "[grid]\nnx = 12\nny = 12\nnz = 12\nsteps = 1\n"
                               "[boundary]\ntype = pec\n";
    for (int dim = 0; dim < 2; dim++) {
        struct test_setup t;
        setup_from_text(&t, dim ? text3 : text, NULL, 0);
        struct engine_options o = {.precision = PRECISION_SINGLE, .device = -1, .threads = 1};
        struct engine *e;
        char err[ERRLEN];
        for (int k = 0; k < CPU_ISA_COUNT; k++) {
            if (cpu_isa_supported((enum cpu_isa)k)) {
                engine_destroy(make(&t.model, PRECISION_SINGLE, DENORMALS_FLUSH, 1, isa_names[k],
                                    NULL, NULL));
                continue;
            }
            setenv("TEXFDTD_CPU_ISA", isa_names[k], 1);
            cr_expect_neq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0,
                          "%s ran on a CPU without it", isa_names[k]);
            cr_expect(strstr(err, "lacks"), "%s", err);
        }
        cr_log_info("this CPU: sse2 %d, avx2 %d, avx512 %d", cpu_isa_supported(CPU_ISA_SSE2),
                    cpu_isa_supported(CPU_ISA_AVX2), cpu_isa_supported(CPU_ISA_AVX512));
        setenv("TEXFDTD_CPU_ISA", "avx1024", 1);
        cr_expect_neq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0);
        cr_expect(strstr(err, "TEXFDTD_CPU_ISA=avx1024") && strstr(err, "auto, sse2"), "%s", err);
        for (int a = 0; a < 2; a++) {
            if (a)
                setenv("TEXFDTD_CPU_ISA", "auto", 1);
            else
                unsetenv("TEXFDTD_CPU_ISA");
            cr_assert_eq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0, "%s", err);
            struct engine_info info;
            engine_describe(e, &info);
            char want[64];
            snprintf(want, sizeof want, "row kernels %s", cpu_isa_name(auto_set(dim == 0)));
            cr_expect(strstr(info.detail, want), "%dD, auto: want %s: %s", dim + 2, want,
                      info.detail);
            engine_destroy(e);
        }
        unsetenv("TEXFDTD_CPU_ISA");
        setup_free(&t);
    }
}
