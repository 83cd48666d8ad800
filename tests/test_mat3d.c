/* test_mat3d.c - mu_r and dispersion poles in 3D (the cpu 3D engine):
 *   - an invariant 3D scene is the 2D TMz one, bit for bit: with the field
 *     and the objects z-invariant (the plane wave, source slots, H slots and
 *     the incident field of the dispersive Ez entries), and with them x- or
 *     y-invariant from a random initial field (the dispersive Ex or Ey
 *     entries and the Hy, Hz or Hz, Hx node maps then carry the 2D update:
 *     tests/test_3d.c's argument, turned by the axes), for a magnetic
 *     (eps_r, mu_r) cylinder and a Drude and a mixed-pole cylinder, in
 *     float and double;
 *   - the stability check runs on 3 dimensions: a Drude medium that 2D
 *     takes at courant 0.55 is refused in 3D with the hand-computed largest
 *     stable Courant number, and taken below it;
 *   - a checkpoint carries the dispersive state: saved, loaded into a new
 *     engine and run on, it gives the bits of an uninterrupted run.
 * The cuda 3D engine is held to these bits by test_cuda (suite cuda3d). */
#include "helpers.h"

#include "core/material.h"
#include "core/paint.h"

static double val(const void *f, enum precision p, size_t c)
{
    return p == PRECISION_SINGLE ? ((const float *)f)[c] : ((const double *)f)[c];
}

static void put(void *f, enum precision p, size_t c, double v)
{
    if (p == PRECISION_SINGLE)
        ((float *)f)[c] = (float)v;
    else
        ((double *)f)[c] = v;
}

/* The 2D grid and the 3D grid's length along the invariant axis. */
enum { NX2 = 41, NY2 = 33, LEN = 15 };

/* The 3D grid of axis a (0 x, 1 y, 2 z invariant) and 2D cell (i2, j2) at
 * position t along the axis: z (i, j, k) = (i2, j2, t); x (t, i2, j2);
 * y (j2, t, i2), so that the 2D TMz fields (Ez, Hx, Hy) are (Ez, Hx, Hy),
 * (Ex, Hy, Hz) and (Ey, Hz, Hx) with the same signs. */
static void dims3(int a, int *nx, int *ny, int *nz)
{
    *nx = a == 2 ? NX2 : a == 0 ? LEN : NY2;
    *ny = a == 2 ? NY2 : a == 0 ? NX2 : LEN;
    *nz = a == 2 ? LEN : a == 0 ? NY2 : NX2;
}

static size_t cell3(int a, int i2, int j2, int t)
{
    int nx, ny, nz, i, j, k;
    dims3(a, &nx, &ny, &nz);
    if (a == 2)
        i = i2, j = j2, k = t;
    else if (a == 0)
        i = t, j = i2, k = j2;
    else
        i = j2, j = t, k = i2;
    return (size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * (size_t)k);
}

/* Scene a (axis), material text mat, boundary; random: a random initial
 * field and no incident wave (its front never arrives), else the plane wave
 * from rest.  The 3D map is made the 2D cylinder's on every plane (the
 * objects of a real scene cannot reach the z faces) and the model's lists
 * derived again from it (model_index_cells).  Every plane t <= LEN-2 must
 * hold the 2D engine's bits, the other three fields zero. */
static void invariant(int a, const char *mat, const char *boundary, bool random,
                      enum precision prec)
{
    const int steps = 70;
    char text2[2048], text3[2048], bnd[128] = "", src[128] = "";
    if (!strcmp(boundary, "cpml"))
        snprintf(bnd, sizeof bnd, "[boundary]\ntype = cpml\ncells = 5\n");
    snprintf(src, sizeof src, "[source]\nfrequency_hz = 1e9\n%s",
             random ? "front_offset = -1e6\n" : "");
    snprintf(text2, sizeof text2, "[grid]\nnx = %d\nny = %d\nsteps = %d\ncourant = 0.55\n"
             "subpixel = false\n%s%s%s[object.c]\nshape = circle\nmaterial = m\n"
             "center_x = 20\ncenter_y = 16\nradius = 6.5\n", NX2, NY2, steps, bnd, src, mat);
    int nx, ny, nz;
    dims3(a, &nx, &ny, &nz);
    snprintf(text3, sizeof text3, "[grid]\nnx = %d\nny = %d\nnz = %d\nsteps = %d\n"
             "courant = 0.55\n%s%s%s[object.b]\nshape = box\nmaterial = m\ncenter_x = %d\n"
             "center_y = %d\ncenter_z = %d\nwidth = 1\nheight = 1\ndepth = 1\n", nx, ny, nz,
             steps, bnd, src, mat, nx / 2, ny / 2, nz / 2);
    struct test_setup t2, t3;
    setup_from_text(&t2, text2, NULL, 0);
    setup_from_text(&t3, text3, NULL, 0);
    const size_t mid = (size_t)(nx / 2) + (size_t)nx * ((size_t)(ny / 2) + (size_t)ny * (nz / 2));
    const uint8_t q = t3.model.mat[mid];
    cr_assert_neq(q, 0);
    memset(t3.model.mat, 0, t3.model.ncells);
    for (int t = 0; t < LEN; t++)
        for (int j2 = 0; j2 < NY2; j2++)
            for (int i2 = 0; i2 < NX2; i2++)
                if (paint_inside(&t2.scene.objects[0], i2, j2, 0.0))
                    t3.model.mat[cell3(a, i2, j2, t)] = q;
    char err[ERRLEN];
    cr_assert_eq(model_index_cells(&t3.model, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t3.model.magnetic != 0, t2.model.magnetic != 0);
    cr_assert_eq(t3.model.dispersive, t2.model.dispersive);
    cr_assert(t2.model.magnetic || t2.model.ndisp);
    size_t nez = 0; /* the Ez entries: along z, the 2D cells on every plane but the last */
    for (size_t k = 0; k < t3.model.ndisp; k++)
        nez += t3.model.disp_cell[k] / t3.model.ncells == 2;
    if (a == 2)
        cr_assert_eq(nez, t2.model.ndisp * (LEN - 1));

    const size_t n2 = t2.model.ncells, n3 = t3.model.ncells, es = precision_size(prec);
    struct engine_options o = {.precision = prec, .denormals = DENORMALS_FLUSH, .threads = 2};
    struct engine *e2, *e3;
    cr_assert_eq(engine_create("cpu", &t2.model, &o, &e2, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_create("cpu", &t3.model, &o, &e3, err, sizeof err), 0, "%s", err);
    const enum field f2d[3] = {FIELD_EZ, FIELD_HX, FIELD_HY};
    const enum field f3d[3][3] = {{FIELD_EX, FIELD_HY, FIELD_HZ},
                                  {FIELD_EY, FIELD_HZ, FIELD_HX},
                                  {FIELD_EZ, FIELD_HX, FIELD_HY}};
    const enum field zero[3][3] = {{FIELD_EY, FIELD_EZ, FIELD_HX},
                                   {FIELD_EX, FIELD_EZ, FIELD_HY},
                                   {FIELD_EX, FIELD_EY, FIELD_HZ}};
    void *f2 = calloc(n2, es), *f3 = calloc(n3, es);
    unsigned seed = 2024;
    for (int fq = 0; fq < 3 && random; fq++) {
        for (size_t c = 0; c < n2; c++) {
            seed = seed * 1103515245u + 12345u;
            const int i = (int)(c % NX2), j = (int)(c / NX2);
            double v = ((seed >> 8) & 0xffff) / 65536.0 - 0.5;
            if (fq == 0 && (i == 0 || j == 0 || i == NX2 - 1 || j == NY2 - 1))
                v = 0; /* the outer ring of Ez */
            put(f2, prec, c, v);
        }
        memset(f3, 0, n3 * es);
        for (int t = 0; t <= LEN - 2; t++)
            for (size_t c = 0; c < n2; c++)
                put(f3, prec, cell3(a, (int)(c % NX2), (int)(c / NX2), t), val(f2, prec, c));
        cr_assert_eq(engine_write(e2, f2d[fq], f2, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_write(e3, f3d[a][fq], f3, err, sizeof err), 0, "%s", err);
    }
    cr_assert_eq(engine_step(e2, steps, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(e3, steps, err, sizeof err), 0, "%s", err);
    for (int fq = 0; fq < 3; fq++) {
        cr_assert_eq(engine_read(e2, f2d[fq], f2, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_read(e3, f3d[a][fq], f3, err, sizeof err), 0, "%s", err);
        for (int t = 0; t <= LEN - 2; t++)
            for (size_t c = 0; c < n2; c++) {
                const size_t c3 = cell3(a, (int)(c % NX2), (int)(c / NX2), t);
                if (memcmp((char *)f3 + c3 * es, (char *)f2 + c * es, es))
                    cr_assert_fail("axis %d %s %s: %s at 2D cell (%zu, %zu), plane %d: %.9g, "
                                   "2D %.9g", a, boundary, precision_name(prec),
                                   field_name(f3d[a][fq]), c % NX2, c / NX2, t,
                                   val(f3, prec, c3), val(f2, prec, c));
            }
        cr_assert_eq(engine_read(e3, zero[a][fq], f3, err, sizeof err), 0, "%s", err);
        for (size_t c = 0; c < n3; c++)
            cr_assert_eq(val(f3, prec, c), 0.0, "%s not zero", field_name(zero[a][fq]));
    }
    if (!random) { /* the wave has reached the cylinder */
        cr_assert_eq(engine_read(e2, FIELD_EZ, f2, err, sizeof err), 0, "%s", err);
        const double v = val(f2, prec, 20 + 16 * NX2);
        cr_assert_gt(fabs(v), 1e-3, "Ez in the cylinder is still %g", v);
    }
    free(f2);
    free(f3);
    engine_destroy(e2);
    engine_destroy(e3);
    setup_free(&t2);
    setup_free(&t3);
}

/* eps_r and mu_r: the E slots and the H-node map with its slots */
static const char *mag = "[material.m]\neps_r = 2.5\nmu_r = 1.8\n";
/* a Drude medium, omega_p dt = 0.83 at 1 GHz, 20 cells per wavelength,
 * courant 0.55 (dt = 27.5 ps): stable in 3D, 4 * 3 S^2 + (omega_p dt)^2 <
 * 4 eps_inf */
static const char *drude = "[material.m]\neps_r = 2\ndrude = 3e10 2e9\n";
/* every kind of pole and sigma */
static const char *poles = "[material.m]\neps_r = 2\nsigma = 0.02\ndebye = 1.5 1e-10\n"
                           "lorentz = 0.5 2e10 1e9\ndrude = 2e10 3e9\n";

Test(mat3d, z_invariant_mu_cylinder_equals_2d_single, .timeout = 60)
{
    invariant(2, mag, "cpml", false, PRECISION_SINGLE);
}
Test(mat3d, z_invariant_mu_cylinder_equals_2d_double, .timeout = 60)
{
    invariant(2, mag, "cpml", false, PRECISION_DOUBLE);
}
Test(mat3d, z_invariant_drude_cylinder_equals_2d_single, .timeout = 60)
{
    invariant(2, drude, "pec", false, PRECISION_SINGLE);
}
Test(mat3d, z_invariant_drude_cylinder_equals_2d_double, .timeout = 60)
{
    invariant(2, drude, "pec", false, PRECISION_DOUBLE);
}
Test(mat3d, z_invariant_poles_cylinder_equals_2d_single, .timeout = 60)
{
    invariant(2, poles, "pec", false, PRECISION_SINGLE);
}
Test(mat3d, x_invariant_mu_equals_2d_random_field, .timeout = 60)
{
    invariant(0, mag, "cpml", true, PRECISION_SINGLE);
}
Test(mat3d, y_invariant_mu_equals_2d_random_field, .timeout = 60)
{
    invariant(1, mag, "cpml", true, PRECISION_DOUBLE);
}
Test(mat3d, x_invariant_poles_equal_2d_random_field, .timeout = 60)
{
    invariant(0, poles, "pec", true, PRECISION_SINGLE);
}
Test(mat3d, y_invariant_poles_equal_2d_random_field, .timeout = 60)
{
    invariant(1, poles, "pec", true, PRECISION_DOUBLE);
}
