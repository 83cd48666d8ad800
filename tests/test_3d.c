/* test_3d.c - the 3D CPU engine against independent expectations: the
 * discrete dispersion relation of a PEC cavity mode, float against double,
 * causality, exact mirror symmetry, a z-invariant field that must give the 2D
 * engine's bits, thread invariance, and the CPML reflection against a larger
 * grid.  Small grids (<= 48^3 for the engines under test), a few seconds each
 * on CI's two cores. */
#include "helpers.h"

static void *xmalloc0(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    cr_assert(p, "out of memory");
    return p;
}

/* Read all six fields (engine precision) into f[6]: ex ey ez hx hy hz. */
static void read6(struct engine *e, void *f[6])
{
    static const enum field id[6] = {FIELD_EX, FIELD_EY, FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_HZ};
    char err[ERRLEN];
    const size_t bytes = e->model->ncells * precision_size(e->opt.precision);
    for (int k = 0; k < 6; k++) {
        f[k] = xmalloc0(bytes);
        cr_assert_eq(engine_read(e, id[k], f[k], err, sizeof err), 0, "read: %s", err);
    }
}

static void free6(void *f[6])
{
    for (int k = 0; k < 6; k++)
        free(f[k]);
}

static double val(const void *f, enum precision p, size_t c)
{
    return p == PRECISION_DOUBLE ? ((const double *)f)[c] : ((const float *)f)[c];
}

static void put(void *f, enum precision p, size_t c, double v)
{
    if (p == PRECISION_DOUBLE)
        ((double *)f)[c] = v;
    else
        ((float *)f)[c] = (float)v;
}

/* A PEC cavity mode of the Yee grid (tests/helpers.h cavity3_mode: every
 * component, sx A + sy B + sz C = 0), H = 0, is an eigenvector of the
 * discrete curl curl with eigenvalue L = sx^2 + sy^2 + sz^2, so its
 * projection obeys
 *   E^{n+1} + E^{n-1} = 2 cos(w dt) E^n,   cos(w dt) = 1 - S^2 L / 2,
 * the 3D discrete dispersion relation (Taflove and Hagness eq. 4.28). */
static void cavity_mode_3d(enum precision prec, double tol)
{
    struct test_setup t;
    setup_from_text(&t, "[grid]\nnx = 26\nny = 22\nnz = 18\nsteps = 300\ncourant = 0.5\n", NULL, 0);
    const struct model *m = &t.model;
    const int nx = m->nx, ny = m->ny, nz = m->nz;
    const struct cavity3 cv = cavity3_mode(nx, ny, nz);
    const double kx = cv.kx, ky = cv.ky, kz = cv.kz, S = 0.5;
    const double L = cv.L, cos_expected = 1 - S * S * L / 2;

    struct engine_options o = {.precision = prec, .denormals = DENORMALS_KEEP, .threads = 1};
    struct engine *e;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", m, &o, &e, err, sizeof err), 0, "%s", err);
    const size_t es = precision_size(prec);
    double *mode[3];
    void *buf = xmalloc0(m->ncells * es);
    for (int q = 0; q < 3; q++) {
        mode[q] = xmalloc0(m->ncells * sizeof(double));
        for (int k = 0; k < nz; k++)
            for (int j = 0; j < ny; j++)
                for (int i = 0; i < nx; i++) {
                    const double v = cavity3_e(&cv, q, i, j, k);
                    const size_t c = i + (size_t)nx * (j + (size_t)ny * k);
                    mode[q][c] = v;
                    put(buf, prec, c, v);
                }
        cr_assert_eq(engine_write(e, (enum field[]){FIELD_EX, FIELD_EY, FIELD_EZ}[q], buf, err,
                                  sizeof err), 0, "%s", err);
    }
    enum { NS = 300 };
    double series[NS];
    for (int n = 0; n < NS; n++) {
        double s = 0;
        for (int q = 0; q < 3; q++) {
            cr_assert_eq(engine_read(e, (enum field[]){FIELD_EX, FIELD_EY, FIELD_EZ}[q], buf, err,
                                     sizeof err), 0);
            for (size_t c = 0; c < m->ncells; c++)
                s += val(buf, prec, c) * mode[q][c];
        }
        series[n] = s;
        cr_assert_eq(engine_step(e, 1, err, sizeof err), 0);
    }
    double num = 0, den = 0;
    for (int n = 1; n < NS - 1; n++) {
        num += series[n] * (series[n + 1] + series[n - 1]);
        den += 2 * series[n] * series[n];
    }
    const double c = num / den;
    const double cos_continuum = cos(S * sqrt(kx * kx + ky * ky + kz * kz));
    cr_log_info("3D %s: cos(w dt) %.12f, expected %.12f, difference %.2g (continuum %.6f)",
                precision_name(prec), c, cos_expected, c - cos_expected, cos_continuum);
    cr_assert(fabs(c - cos_expected) < tol, "cos(w dt) = %.15f, dispersion relation %.15f", c,
              cos_expected);
    cr_assert(fabs(c - cos_continuum) > 2e-4, "cannot tell grid from continuum: %.9f vs %.9f", c,
              cos_continuum);
    engine_destroy(e);
    for (int q = 0; q < 3; q++)
        free(mode[q]);
    free(buf);
    setup_free(&t);
}

/* The estimate carries only the arithmetic's rounding (measured: about 1e-16
 * in double, a few 1e-9 in float); bounds 1e-12 and 1e-7 (two float
 * epsilons) sit far below the grid-versus-continuum gap (3.7e-4 here; > 2e-4
 * checked). */
Test(cpu3d, cavity_mode_follows_3d_dispersion_double) { cavity_mode_3d(PRECISION_DOUBLE, 1e-12); }
Test(cpu3d, cavity_mode_follows_3d_dispersion_single) { cavity_mode_3d(PRECISION_SINGLE, 1e-7); }

/* A scene with everything: CPML, a dielectric sphere, a PEC box, a soft
 * point source (sine with a ramp). */
static const char *mixed3d = "[grid]\nnx = 36\nny = 32\nnz = 30\nsteps = 120\ncourant = 0.5\n"
                             "cells_per_wavelength = 12\n"
                             "[source]\ntype = point\ncenter_x = 14\ncenter_y = 15\ncenter_z = 13\n"
                             "[boundary]\ntype = cpml\ncells = 6\n"
                             "[object.ball]\nshape = sphere\nmaterial = dielectric\neps_r = 3\n"
                             "center_x = 22\ncenter_y = 17\ncenter_z = 15\nradius = 4.5\n"
                             "[object.plate]\nshape = box\nmaterial = pec\ncenter_x = 14\n"
                             "center_y = 22\ncenter_z = 14\nwidth = 8\nheight = 2\ndepth = 6\n";

/* float32 against float64, relative L2 of each E component after 120 steps.
 * Each update rounds with relative error <= 2^-24; ~120 steps of such errors
 * add up like a random walk (measured a few 1e-7); 1e-5 leaves a wide margin
 * and still catches any real defect (1e-3 or more). */
Test(cpu3d, float32_stays_close_to_float64)
{
    struct test_setup t;
    setup_from_text(&t, mixed3d, NULL, 0);
    char err[ERRLEN];
    struct engine_options of = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                                .threads = 2};
    struct engine_options od = {.precision = PRECISION_DOUBLE, .denormals = DENORMALS_KEEP,
                                .threads = 2};
    struct engine *ef, *ed;
    cr_assert_eq(engine_create("cpu", &t.model, &of, &ef, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_create("cpu", &t.model, &od, &ed, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(ef, 120, err, sizeof err), 0);
    cr_assert_eq(engine_step(ed, 120, err, sizeof err), 0);
    void *a[6], *b[6];
    read6(ef, a);
    read6(ed, b);
    for (int q = 0; q < 6; q++) {
        double num = 0, den = 0;
        for (size_t c = 0; c < t.model.ncells; c++) {
            const double x = ((float *)a[q])[c], y = ((double *)b[q])[c];
            num += (x - y) * (x - y);
            den += y * y;
        }
        const double rel = sqrt(num / den);
        cr_log_info("3D float vs double, component %d: relative L2 %.3g", q, rel);
        cr_assert_gt(den, 1e-6, "component %d must be excited", q);
        cr_assert_lt(rel, 1e-5, "component %d: relative L2 float vs double %g", q, rel);
    }
    free6(a);
    free6(b);
    engine_destroy(ef);
    engine_destroy(ed);
    setup_free(&t);
}

/* One, two and three threads give the same bits (each cell's arithmetic
 * does not depend on who computes it). */
Test(cpu3d, threads_do_not_change_the_bits)
{
    struct test_setup t;
    setup_from_text(&t, mixed3d, (const char *[]){"grid.steps=60"}, 1);
    char err[ERRLEN];
    void *ref[6] = {0};
    for (int th = 1; th <= 3; th++) {
        struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                                   .threads = th};
        struct engine *e;
        cr_assert_eq(engine_create("cpu", &t.model, &o, &e, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_step(e, 60, err, sizeof err), 0);
        void *f[6];
        read6(e, f);
        engine_destroy(e);
        if (th == 1) {
            memcpy(ref, f, sizeof f);
            continue;
        }
        for (int q = 0; q < 6; q++) {
            uint32_t ulp;
            const size_t d = count_bit_differences(f[q], ref[q], t.model.ncells, &ulp);
            cr_assert_eq(d, 0, "%d threads: component %d differs in %zu cells", th, q, d);
        }
        free6(f);
    }
    free6(ref);
    setup_free(&t);
}

/* One step of the Yee update reaches one cell further in every index
 * direction (max norm): E(c) needs H(c - e_a), H(c) needs E(c + e_a).  The
 * point source is non-zero from step 0, so after n steps every component is
 * exactly zero beyond max-norm distance n-1 of the source cell, and some
 * component is non-zero at distance n-1 (double, no flushing). */
Test(cpu3d, nothing_moves_faster_than_one_cell_per_step)
{
    struct test_setup t;
    setup_from_text(&t, "[grid]\nnx = 40\nny = 40\nnz = 40\nsteps = 20\ncourant = 0.5\n"
                        "[source]\ntype = point\ncenter_x = 19\ncenter_y = 20\ncenter_z = 21\n",
                    NULL, 0);
    const struct model *m = &t.model;
    cr_assert_neq(model_point_value(m, 0), 0.0);
    const int pi = 19, pj = 20, pk = 21;
    for (int steps = 4; steps <= 16; steps += 12) {
        struct engine_options o = {.precision = PRECISION_DOUBLE, .denormals = DENORMALS_KEEP,
                                   .threads = 1};
        struct engine *e;
        char err[ERRLEN];
        cr_assert_eq(engine_create("cpu", m, &o, &e, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_step(e, steps, err, sizeof err), 0);
        void *f[6];
        read6(e, f);
        int reach = -1;
        for (int k = 0; k < m->nz; k++)
            for (int j = 0; j < m->ny; j++)
                for (int i = 0; i < m->nx; i++) {
                    const size_t c = i + (size_t)m->nx * (j + (size_t)m->ny * k);
                    bool nz = false;
                    for (int q = 0; q < 6; q++)
                        nz |= ((double *)f[q])[c] != 0;
                    if (!nz)
                        continue;
                    int d = abs(i - pi);
                    d = abs(j - pj) > d ? abs(j - pj) : d;
                    d = abs(k - pk) > d ? abs(k - pk) : d;
                    reach = d > reach ? d : reach;
                }
        cr_assert_eq(reach, steps - 1, "after %d steps the field reaches %d cells", steps, reach);
        free6(f);
        engine_destroy(e);
    }
    setup_free(&t);
}

/* A scene symmetric under x -> nx-1-x (source on the plane i = (nx-1)/2)
 * gives mirror images bit for bit: E is a polar and H an axial vector, so
 *   Ex(i+1/2) = -Ex(nx-2-i+1/2),  Ey, Ez(i) = Ey, Ez(nx-1-i),
 *   Hx(i) = Hx(nx-1-i),  Hy, Hz(i+1/2) = -Hy, Hz(nx-2-i+1/2);
 * round-to-nearest is symmetric and the CPML profiles are mirrored exactly.
 * The same holds in y.  (No objects: every component of a cell takes the
 * material of its corner (i, j, k), so Ex(i+1/2) of an object's edge is not
 * the mirror image of its partner; see update3d.inc.) */
Test(cpu3d, symmetric_scene_gives_mirror_symmetric_fields)
{
    struct test_setup t;
    setup_from_text(&t, "[grid]\nnx = 33\nny = 31\nnz = 28\nsteps = 70\ncourant = 0.5\n"
                        "cells_per_wavelength = 10\n"
                        "[source]\ntype = point\ncenter_x = 16\ncenter_y = 15\ncenter_z = 12\n"
                        "[boundary]\ntype = cpml\ncells = 6\n",
                    NULL, 0);
    const struct model *m = &t.model;
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .threads = 2};
    struct engine *e;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", m, &o, &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e, 70, err, sizeof err), 0);
    void *f[6];
    read6(e, f);
    const int nx = m->nx, ny = m->ny, nz = m->nz;
    size_t nonzero = 0;
#define AT(q, i, j, k) ((float *)f[q])[(i) + (size_t)nx * ((j) + (size_t)ny * (k))]
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                nonzero += AT(2, i, j, k) != 0;
                /* x mirror */
                cr_assert_eq(AT(1, i, j, k), AT(1, nx - 1 - i, j, k), "Ey(%d,%d,%d)", i, j, k);
                cr_assert_eq(AT(2, i, j, k), AT(2, nx - 1 - i, j, k), "Ez(%d,%d,%d)", i, j, k);
                cr_assert_eq(AT(3, i, j, k), AT(3, nx - 1 - i, j, k), "Hx(%d,%d,%d)", i, j, k);
                if (i <= nx - 2) {
                    cr_assert_eq(AT(0, i, j, k), -AT(0, nx - 2 - i, j, k), "Ex(%d,%d,%d)", i, j, k);
                    cr_assert_eq(AT(4, i, j, k), -AT(4, nx - 2 - i, j, k), "Hy(%d,%d,%d)", i, j, k);
                    cr_assert_eq(AT(5, i, j, k), -AT(5, nx - 2 - i, j, k), "Hz(%d,%d,%d)", i, j, k);
                }
                /* y mirror */
                cr_assert_eq(AT(0, i, j, k), AT(0, i, ny - 1 - j, k), "Ex(%d,%d,%d) y", i, j, k);
                cr_assert_eq(AT(2, i, j, k), AT(2, i, ny - 1 - j, k), "Ez(%d,%d,%d) y", i, j, k);
                cr_assert_eq(AT(4, i, j, k), AT(4, i, ny - 1 - j, k), "Hy(%d,%d,%d) y", i, j, k);
                if (j <= ny - 2) {
                    cr_assert_eq(AT(1, i, j, k), -AT(1, i, ny - 2 - j, k), "Ey(%d,%d,%d) y", i, j, k);
                    cr_assert_eq(AT(3, i, j, k), -AT(3, i, ny - 2 - j, k), "Hx(%d,%d,%d) y", i, j, k);
                    cr_assert_eq(AT(5, i, j, k), -AT(5, i, ny - 2 - j, k), "Hz(%d,%d,%d) y", i, j, k);
                }
            }
#undef AT
    cr_assert_gt(nonzero, m->ncells / 4, "the wave must fill much of the grid");
    free6(f);
    engine_destroy(e);
    setup_free(&t);
}

/* A z-invariant TM field (Ez, Hx, Hy independent of k, Ex = Ey = Hz = 0) is
 * the 2D TMz problem: the 3D update of update3d.inc reduces statement for
 * statement to update2d.inc (a - 0 = a, -(ch*(-d)) = ch*d exactly), and the
 * z-derivatives, the z slabs' psi and the z faces' Mur see only zeros.  So
 * the 3D engine must give the 2D engine's bits on every plane k <= nz-2, with
 * a PEC, Mur or CPML boundary, from the same random initial field. */
static void extruded(const char *boundary, enum precision prec)
{
    char text2[512], text3[512];
    const char *b = !strcmp(boundary, "cpml") ? "[boundary]\ntype = cpml\ncells = 5\n"
                    : !strcmp(boundary, "mur") ? "[boundary]\ntype = mur\n" : "";
    snprintf(text2, sizeof text2, "[grid]\nnx = 37\nny = 29\nsteps = 80\ncourant = 0.55\n%s", b);
    snprintf(text3, sizeof text3, "[grid]\nnx = 37\nny = 29\nnz = 15\nsteps = 80\ncourant = 0.55\n%s", b);
    struct test_setup t2, t3;
    setup_from_text(&t2, text2, NULL, 0);
    setup_from_text(&t3, text3, NULL, 0);
    const int nx = 37, ny = 29, nz = 15;
    const size_t n2 = (size_t)nx * ny, es = precision_size(prec);
    struct engine_options o = {.precision = prec, .denormals = DENORMALS_FLUSH, .threads = 2};
    struct engine *e2, *e3;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", &t2.model, &o, &e2, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_create("cpu", &t3.model, &o, &e3, err, sizeof err), 0, "%s", err);
    const enum field ids[3] = {FIELD_EZ, FIELD_HX, FIELD_HY};
    unsigned seed = 12345;
    void *f2 = xmalloc0(n2 * es), *f3 = xmalloc0(n2 * nz * es);
    for (int q = 0; q < 3; q++) {
        for (size_t c = 0; c < n2; c++) {
            seed = seed * 1103515245u + 12345u;
            const int i = (int)(c % nx), j = (int)(c / nx);
            double v = ((seed >> 8) & 0xffff) / 65536.0 - 0.5;
            if (q == 0 && (i == 0 || j == 0 || i == nx - 1 || j == ny - 1))
                v = 0; /* the outer ring of Ez */
            put(f2, prec, c, v);
        }
        memset(f3, 0, n2 * nz * es);
        for (int k = 0; k <= nz - 2; k++)
            memcpy((char *)f3 + k * n2 * es, f2, n2 * es);
        cr_assert_eq(engine_write(e2, ids[q], f2, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_write(e3, ids[q], f3, err, sizeof err), 0, "%s", err);
    }
    cr_assert_eq(engine_step(e2, 80, err, sizeof err), 0);
    cr_assert_eq(engine_step(e3, 80, err, sizeof err), 0);
    for (int q = 0; q < 3; q++) {
        cr_assert_eq(engine_read(e2, ids[q], f2, err, sizeof err), 0);
        cr_assert_eq(engine_read(e3, ids[q], f3, err, sizeof err), 0);
        for (int k = 0; k <= nz - 2; k++)
            cr_assert_eq(memcmp((char *)f3 + k * n2 * es, f2, n2 * es), 0,
                         "%s %s: %s differs from 2D on plane k = %d", boundary,
                         precision_name(prec), field_name(ids[q]), k);
    }
    const enum field zero[3] = {FIELD_EX, FIELD_EY, FIELD_HZ};
    for (int q = 0; q < 3; q++) {
        cr_assert_eq(engine_read(e3, zero[q], f3, err, sizeof err), 0);
        for (size_t c = 0; c < n2 * nz; c++)
            cr_assert_eq(val(f3, prec, c), 0.0, "%s: %s not zero", boundary, field_name(zero[q]));
    }
    free(f2);
    free(f3);
    engine_destroy(e2);
    engine_destroy(e3);
    setup_free(&t2);
    setup_free(&t3);
}

Test(cpu3d, z_invariant_field_equals_2d_engine_pec) { extruded("pec", PRECISION_SINGLE); }
Test(cpu3d, z_invariant_field_equals_2d_engine_mur) { extruded("mur", PRECISION_SINGLE); }
Test(cpu3d, z_invariant_field_equals_2d_engine_cpml) { extruded("cpml", PRECISION_SINGLE); }
Test(cpu3d, z_invariant_field_equals_2d_engine_cpml_double) { extruded("cpml", PRECISION_DOUBLE); }

/* CPML reflection in 3D (the method of bench/reflection.h): a soft point
 * source `gap` cells inside the small grid's CPML face; the same source, at
 * the same place, in a grid padded by `pad` cells on every side with a
 * 20-cell CPML.  R = max |Ez_small - Ez_big| / max |Ez_big| over the small
 * grid's interior (outside its layer, and outside max-norm distance `gap` of
 * the source, whose own field would flatter the ratio), all steps, in dB. */
static double reflection_3d(const char *boundary, int cells, int n, int gap, int pad, int steps)
{
    char text[1024], bnd[128];
    const int margin = !strcmp(boundary, "cpml") ? cells + 1 : 2;
    const int si = margin + gap, sj = n / 2, sk = n / 2;
    struct test_setup ts, tb;
    if (!strcmp(boundary, "cpml"))
        snprintf(bnd, sizeof bnd, "[boundary]\ntype = cpml\ncells = %d\n", cells);
    else
        snprintf(bnd, sizeof bnd, "[boundary]\ntype = %s\n", boundary);
    const char *fmt = "[grid]\nnx = %d\nny = %d\nnz = %d\nsteps = %d\ncourant = 0.5\n"
                      "cells_per_wavelength = 10\n"
                      "[source]\ntype = point\ncenter_x = %d\ncenter_y = %d\ncenter_z = %d\n%s";
    snprintf(text, sizeof text, fmt, n, n, n, steps, si, sj, sk, bnd);
    setup_from_text(&ts, text, NULL, 0);
    const int nb = n + 2 * pad;
    snprintf(text, sizeof text, fmt, nb, nb, nb, steps, si + pad, sj + pad, sk + pad,
             "[boundary]\ntype = cpml\ncells = 20\n");
    setup_from_text(&tb, text, NULL, 0);
    struct engine_options o = {.precision = PRECISION_DOUBLE, .denormals = DENORMALS_KEEP};
    struct engine *es, *eb;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", &ts.model, &o, &es, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_create("cpu", &tb.model, &o, &eb, err, sizeof err), 0, "%s", err);
    double *a = xmalloc0(ts.model.ncells * 8), *b = xmalloc0(tb.model.ncells * 8);
    double maxdiff = 0, maxfield = 0;
    const int lo = margin, hi = n - 1 - margin;
    for (int s = 0; s < steps; s++) {
        cr_assert_eq(engine_step(es, 1, err, sizeof err), 0);
        cr_assert_eq(engine_step(eb, 1, err, sizeof err), 0);
        cr_assert_eq(engine_read(es, FIELD_EZ, a, err, sizeof err), 0);
        cr_assert_eq(engine_read(eb, FIELD_EZ, b, err, sizeof err), 0);
        for (int k = lo; k <= hi; k++)
            for (int j = lo; j <= hi; j++)
                for (int i = lo; i <= hi; i++) {
                    if (abs(i - si) <= gap && abs(j - sj) <= gap && abs(k - sk) <= gap)
                        continue;
                    const double va = a[i + (size_t)n * (j + (size_t)n * k)];
                    const double vb = b[(i + pad) + (size_t)nb * ((j + pad) + (size_t)nb * (k + pad))];
                    maxdiff = fmax(maxdiff, fabs(va - vb));
                    maxfield = fmax(maxfield, fabs(vb));
                }
    }
    free(a);
    free(b);
    engine_destroy(es);
    engine_destroy(eb);
    setup_free(&ts);
    setup_free(&tb);
    return 20 * log10(maxdiff / maxfield);
}

/* Goal of the issue: -60 dB or better with 10 cells. */
Test(cpu3d, cpml_reflection_below_minus_60_db_at_10_cells, .timeout = 120)
{
    const double db10 = reflection_3d("cpml", 10, 48, 6, 18, 90);
    const double db5 = reflection_3d("cpml", 5, 38, 6, 18, 90);
    cr_log_info("3D CPML reflection: %.1f dB at 5 cells, %.1f dB at 10 cells", db5, db10);
    cr_assert_lt(db10, -60.0, "10-cell CPML reflects %.1f dB", db10);
    cr_assert_lt(db10, db5, "thicker CPML must absorb better (%.1f vs %.1f dB)", db10, db5);
}

/* The measurement can fail: a PEC wall reflects nearly everything. */
Test(cpu3d, pec_wall_reflects, .timeout = 60)
{
    const double db = reflection_3d("pec", 0, 26, 4, 18, 90);
    cr_log_info("3D PEC wall: %.1f dB", db);
    cr_assert_gt(db, -10.0, "a PEC wall reflects (%.1f dB)", db);
}

/* The blow-up check (engine_check_finite): values planted with engine_write
 * are found with their field and cell, the first field in scene_fields()
 * order and the lowest cell in it winning; a clean run is finite; a NaN
 * that has been stepped is still found, where a host scan of the read-back
 * fields finds it. */
static const char *small3d = "[grid]\nnx = 20\nny = 18\nnz = 16\nsteps = 40\ncourant = 0.5\n"
                             "[source]\ntype = point\ncenter_x = 9\ncenter_y = 8\ncenter_z = 7\n"
                             "[boundary]\ntype = cpml\ncells = 4\n";

/* The first NaN or Inf of the read-back fields in scene_fields() order: 1
 * and where, or 0. */
static int host_first_bad(struct engine *e, enum field *f, size_t *cell)
{
    enum field order[6];
    const int nf = scene_fields(e->model->scene, order);
    void *buf = xmalloc0(e->model->ncells * precision_size(e->opt.precision));
    char err[ERRLEN];
    int found = 0;
    for (int k = 0; k < nf && !found; k++) {
        cr_assert_eq(engine_read(e, order[k], buf, err, sizeof err), 0, "%s", err);
        for (size_t c = 0; c < e->model->ncells && !found; c++)
            if (!isfinite(val(buf, e->opt.precision, c))) {
                *f = order[k];
                *cell = c;
                found = 1;
            }
    }
    free(buf);
    return found;
}

/* Plant `bad` in field q at cell (3+q, 5, 2+q) and at a later cell of the
 * same field, and in the next field at cell 1: the check must name field q
 * and the first cell. */
static void blow_up_planted(enum precision prec, double bad)
{
    struct test_setup t;
    setup_from_text(&t, small3d, NULL, 0);
    const struct model *m = &t.model;
    enum field order[6];
    const int nf = scene_fields(m->scene, order);
    cr_assert_eq(nf, 6);
    struct engine_options o = {.precision = prec, .denormals = DENORMALS_KEEP, .threads = 2};
    char err[ERRLEN];
    void *buf = xmalloc0(m->ncells * precision_size(prec));
    for (int q = 0; q < nf; q++) {
        struct engine *e;
        cr_assert_eq(engine_create("cpu", m, &o, &e, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_step(e, 10, err, sizeof err), 0, "%s", err);
        enum field f = FIELD_COUNT;
        size_t cell = 0;
        cr_assert_eq(engine_check_finite(e, &f, &cell, err, sizeof err), 0, "clean run: %s %zu",
                     field_name(f), cell);
        const size_t c = (size_t)(3 + q) + (size_t)m->nx * (5 + (size_t)m->ny * (size_t)(2 + q));
        cr_assert_eq(engine_read(e, order[q], buf, err, sizeof err), 0, "%s", err);
        put(buf, prec, c, bad);
        put(buf, prec, c + 7 + (size_t)m->nx, bad);
        cr_assert_eq(engine_write(e, order[q], buf, err, sizeof err), 0, "%s", err);
        if (q + 1 < nf) {
            cr_assert_eq(engine_read(e, order[q + 1], buf, err, sizeof err), 0, "%s", err);
            put(buf, prec, 1, -bad);
            cr_assert_eq(engine_write(e, order[q + 1], buf, err, sizeof err), 0, "%s", err);
        }
        cr_assert_eq(engine_check_finite(e, &f, &cell, err, sizeof err), 1, "%g in %s not found",
                     bad, field_name(order[q]));
        cr_assert_eq(f, order[q], "%g planted in %s, reported in %s", bad, field_name(order[q]),
                     field_name(f));
        cr_assert_eq(cell, c, "%g planted in %s at cell %zu, reported at %zu", bad,
                     field_name(order[q]), c, cell);
        engine_destroy(e);
    }
    free(buf);
    setup_free(&t);
}

Test(cpu3d, blow_up_nan_planted_is_found_single) { blow_up_planted(PRECISION_SINGLE, NAN); }
Test(cpu3d, blow_up_inf_planted_is_found_single) { blow_up_planted(PRECISION_SINGLE, INFINITY); }
Test(cpu3d, blow_up_nan_planted_is_found_double) { blow_up_planted(PRECISION_DOUBLE, NAN); }
Test(cpu3d, blow_up_inf_planted_is_found_double) { blow_up_planted(PRECISION_DOUBLE, INFINITY); }

/* A NaN in Hz, then three steps: it has spread into the E fields, and the
 * check names the first of them, as a host scan of the fields does. */
Test(cpu3d, blow_up_nan_is_found_after_steps)
{
    struct test_setup t;
    setup_from_text(&t, small3d, NULL, 0);
    const struct model *m = &t.model;
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .threads = 2};
    struct engine *e;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", m, &o, &e, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e, 20, err, sizeof err), 0, "%s", err);
    enum field f, hf;
    size_t cell, hcell;
    cr_assert_eq(engine_check_finite(e, &f, &cell, err, sizeof err), 0, "a sane run is finite");
    float *hz = xmalloc0(m->ncells * sizeof *hz);
    cr_assert_eq(engine_read(e, FIELD_HZ, hz, err, sizeof err), 0, "%s", err);
    hz[12 + (size_t)m->nx * (10 + (size_t)m->ny * 9)] = NAN;
    cr_assert_eq(engine_write(e, FIELD_HZ, hz, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e, 3, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_check_finite(e, &f, &cell, err, sizeof err), 1, "the NaN was lost");
    cr_assert_eq(host_first_bad(e, &hf, &hcell), 1);
    cr_assert_eq(f, FIELD_EX, "reported in %s", field_name(f));
    cr_assert_eq(f, hf, "reported in %s, host scan finds %s", field_name(f), field_name(hf));
    cr_assert_eq(cell, hcell, "reported at cell %zu, host scan finds %zu", cell, hcell);
    free(hz);
    engine_destroy(e);
    setup_free(&t);
}
