/* test_mat3d.c - mu_r and dispersion poles in 3D (the cpu 3D engine):
 *   - an invariant 3D scene is the 2D TMz one, bit for bit: with the field
 *     and the objects z-invariant (the plane wave, source slots, H slots and
 *     the incident field of the dispersive Ez entries), and with them x- or
 *     y-invariant from a random initial field (the dispersive Ex or Ey
 *     entries and the Hy, Hz or Hz, Hx node maps then carry the 2D update:
 *     tests/test_3d.c's argument, turned by the axes), for a magnetic
 *     (eps_r, mu_r) cylinder and a Drude and a mixed-pole cylinder, in
 *     float and double;
 *   - a PEC cavity filled with (eps_r, mu_r) or a lossless Drude medium
 *     with mu_r: the mode of every component follows the 3D discrete
 *     dispersion relation of the medium (hand-derived), to rounding;
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

/* The stability check on 3 dimensions (core/material.h): a lossless Drude
 * medium of eps_inf = 1 is stable where dim S^2 <= 1 - (omega_p dt)^2 / 4
 * (docs/materials-design.md section 3).  With omega_p dt = a S (a =
 * omega_p dx / c, fixed by the cell size) the largest stable Courant number
 * is 2 / sqrt(4 dim + a^2): at a = 1.63636 (omega_p = 3.2727e10 rad/s, 1 GHz,
 * 20 cells per wavelength) 0.6114 in 2D and 0.5220 in 3D.  So courant 0.55
 * runs in 2D and is refused in 3D with that number; 0.5 runs in 3D. */
Test(mat3d, stability_check_uses_three_dimensions)
{
    static const char *text = "[grid]\nnx = 30\nny = 30\nnz = 30\nsteps = 40\ncourant = 0.55\n"
                              "[source]\nfrequency_hz = 1e9\n"
                              "[material.m]\ndrude = 3.2727e10 0\n"
                              "[object.b]\nshape = box\nmaterial = m\ncenter_x = 15\n"
                              "center_y = 15\ncenter_z = 15\nwidth = 6\nheight = 6\ndepth = 6\n";
    const double a = 3.2727e10 / (2 * M_PI * 1e9) * (2 * M_PI / 20); /* omega_p dx / c */
    struct scene s;
    struct model m;
    char err[ERRLEN];
    static const char *text2 = "[grid]\nnx = 30\nny = 30\nsteps = 40\ncourant = 0.55\n"
                               "[source]\nfrequency_hz = 1e9\n"
                               "[material.m]\ndrude = 3.2727e10 0\n"
                               "[object.b]\nshape = rectangle\nmaterial = m\ncenter_x = 15\n"
                               "center_y = 15\nwidth = 6\nheight = 6\n";
    cr_assert_eq(scene_load_text(&s, "x.ini", text2, strlen(text2), NULL, 0, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(model_build(&m, &s, err, sizeof err), 0, "2D: %s", err);
    model_free(&m);
    scene_free(&s);
    cr_assert_eq(scene_load_text(&s, "x.ini", text, strlen(text), NULL, 0, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(model_build(&m, &s, err, sizeof err), -1, "3D at courant 0.55 was built");
    const char *p = strstr(err, "courant <= ");
    cr_assert(p && strstr(err, "unstable"), "%s", err);
    const double smax = strtod(p + strlen("courant <= "), NULL), want = 2 / sqrt(12 + a * a);
    cr_log_info("3D: %s (hand: %.5f; 2D %.5f)", err, want, 2 / sqrt(8 + a * a));
    cr_expect(fabs(smax - want) < 2e-4, "largest stable courant %.5f, hand %.5f", smax, want);
    cr_expect(2 / sqrt(8 + a * a) > 0.55 && want < 0.55);
    scene_free(&s);
    const char *lower[] = {"grid.courant=0.5"};
    cr_assert_eq(scene_load_text(&s, "x.ini", text, strlen(text), lower, 1, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(model_build(&m, &s, err, sizeof err), 0, "3D at courant 0.5: %s", err);
    model_free(&m);
    scene_free(&s);
}

/* ---- checkpoints: an in-memory struct state_io (saving keeps each array by
 * name, loading hands it back and demands the same count) */
struct mem_state {
    struct state_io io;
    int n;
    struct {
        char name[64];
        void *v;
        size_t bytes;
    } a[64];
};

static int mem_array(struct state_io *io, const char *name, void *data, size_t count, char *err,
                     size_t errlen)
{
    struct mem_state *s = io->ctx;
    const size_t bytes = count * sizeof(double); /* the test runs in double */
    if (!io->load) {
        cr_assert_lt(s->n, 64);
        snprintf(s->a[s->n].name, sizeof s->a[s->n].name, "%s", name);
        s->a[s->n].v = malloc(bytes ? bytes : 1);
        memcpy(s->a[s->n].v, data, bytes);
        s->a[s->n].bytes = bytes;
        s->n++;
        return 0;
    }
    for (int k = 0; k < s->n; k++)
        if (!strcmp(s->a[k].name, name)) {
            if (s->a[k].bytes != bytes)
                return seterr(err, errlen, "state %s: size differs", name);
            memcpy(data, s->a[k].v, bytes);
            return 0;
        }
    return seterr(err, errlen, "state %s: not saved", name);
}

/* A run cut in two, its state saved and loaded into a new engine in
 * between, gives the bits of the run in one go: the six fields and the
 * state must travel whole, the dispersive entries' D_s, Ei^n and poles too
 * (a sphere of every pole kind and mu_r beside a CPML, the plane wave). */
Test(mat3d, checkpoint_carries_the_dispersive_state, .timeout = 60)
{
    static const char *text = "[grid]\nnx = 32\nny = 30\nnz = 28\nsteps = 80\ncourant = 0.5\n"
                              "[boundary]\ntype = cpml\ncells = 6\n[source]\nfrequency_hz = 1e9\n"
                              "[material.p]\neps_r = 2\nmu_r = 1.5\nsigma = 0.02\n"
                              "debye = 1.5 1e-10\nlorentz = 0.5 2e10 1e9\ndrude = 2e10 3e9\n"
                              "[object.s]\nshape = sphere\nmaterial = p\ncenter_x = 15.5\n"
                              "center_y = 14.5\ncenter_z = 13.2\nradius = 6\n";
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    cr_assert(t.model.magnetic && t.model.ndisp > 0);
    struct engine_options o = {.precision = PRECISION_DOUBLE, .denormals = DENORMALS_FLUSH,
                               .threads = 2};
    struct engine *a, *b, *c;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", &t.model, &o, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_create("cpu", &t.model, &o, &b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_create("cpu", &t.model, &o, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(a, 80, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(b, 37, err, sizeof err), 0, "%s", err);
    struct mem_state st = {.io = {.load = false, .array = mem_array}};
    st.io.ctx = &st;
    cr_assert_eq(engine_state(b, &st.io, b->step, err, sizeof err), 0, "%s", err);
    bool ds = false;
    for (int k = 0; k < st.n; k++)
        ds |= !strcmp(st.a[k].name, "disp_ds");
    cr_assert(ds, "no dispersive state saved");
    st.io.load = true;
    cr_assert_eq(engine_state(c, &st.io, 37, err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(c, 43, err, sizeof err), 0, "%s", err);
    const size_t n = t.model.ncells;
    double *fa = malloc(n * sizeof *fa), *fc = malloc(n * sizeof *fc);
    const enum field ids[6] = {FIELD_EX, FIELD_EY, FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_HZ};
    double peak = 0;
    for (int q = 0; q < 6; q++) {
        cr_assert_eq(engine_read(a, ids[q], fa, err, sizeof err), 0, "%s", err);
        cr_assert_eq(engine_read(c, ids[q], fc, err, sizeof err), 0, "%s", err);
        cr_assert_eq(memcmp(fa, fc, n * sizeof *fa), 0, "%s differs after the resume",
                     field_name(ids[q]));
        for (size_t k = 0; k < n && q < 2; k++)
            peak = fmax(peak, fabs(fa[k]));
    }
    cr_assert_gt(peak, 1e-3, "the sphere has not scattered yet (Ex, Ey peak %g)", peak);
    for (int k = 0; k < st.n; k++)
        free(st.a[k].v);
    free(fa);
    free(fc);
    engine_destroy(a);
    engine_destroy(b);
    engine_destroy(c);
    setup_free(&t);
}

/* A genuinely 3D check of the discrete dispersion: a PEC cavity filled with
 * one material (every corner; model_index_cells), the mode of
 * tests/helpers.h cavity3_mode (all six components, kx, ky, kz != 0, L = sx^2 + sy^2 +
 * sz^2), H = 0.  On that mode the update is K = S^2 L times the homogeneous
 * one of core/material.h, so the projection of E obeys
 * E^{n+1} + E^{n-1} = 2 cos(w dt) E^n with, z = 4 sin^2(w dt / 2):
 *   eps_r, mu_r:                 z = K / (eps_r mu_r)
 *   lossless Drude (gamma = 0):  z = (K / mu_r + (omega_p dt)^2) / eps_inf
 * (P^{n+1} - 2 P^n + P^{n-1} = w E^n gives P = -w E / z, and D = eps_inf E +
 * P).  The Drude medium starts from D = eps_inf E, P = 0 (its state loaded
 * through engine_state), so no static part reaches E.  Double precision; the
 * estimate carries only rounding. */
static void cavity_medium(const char *label, const char *mat, double eps, double mu, double wp)
{
    char text[1024];
    snprintf(text, sizeof text, "[grid]\nnx = 26\nny = 22\nnz = 18\nsteps = 300\ncourant = 0.5\n"
             "[source]\nfrequency_hz = 1e9\nfront_offset = -1e6\n%s"
             "[object.b]\nshape = box\nmaterial = m\ncenter_x = 13\ncenter_y = 11\n"
             "center_z = 9\nwidth = 1\nheight = 1\ndepth = 1\n", mat);
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    struct model *m = &t.model;
    const int nx = m->nx, ny = m->ny, nz = m->nz;
    const uint8_t q = m->mat[13 + (size_t)nx * (11 + (size_t)ny * 9)];
    memset(m->mat, q, m->ncells);
    char err[ERRLEN];
    cr_assert_eq(model_index_cells(m, err, sizeof err), 0, "%s", err);
    const struct cavity3 cv = cavity3_mode(nx, ny, nz);
    const double S = 0.5, K = S * S * cv.L;
    const double w = pow(wp * scene_dt(&t.scene), 2);
    const double z = wp > 0 ? (K / mu + w) / eps : K / (eps * mu), cos_expected = 1 - z / 2;

    struct engine_options o = {.precision = PRECISION_DOUBLE, .denormals = DENORMALS_KEEP,
                               .threads = 2};
    struct engine *e;
    cr_assert_eq(engine_create("cpu", m, &o, &e, err, sizeof err), 0, "%s", err);
    const enum field ef[3] = {FIELD_EX, FIELD_EY, FIELD_EZ};
    double *mode[3];
    for (int c3 = 0; c3 < 3; c3++) {
        mode[c3] = calloc(m->ncells, sizeof(double));
        for (int k = 0; k < nz; k++)
            for (int j = 0; j < ny; j++)
                for (int i = 0; i < nx; i++)
                    mode[c3][i + (size_t)nx * (j + (size_t)ny * k)] = cavity3_e(&cv, c3, i, j, k);
        cr_assert_eq(engine_write(e, ef[c3], mode[c3], err, sizeof err), 0, "%s", err);
    }
    if (m->ndisp) { /* D_s = eps_inf E at every entry (no incident field here) */
        struct mem_state st = {.io = {.load = false, .array = mem_array}};
        st.io.ctx = &st;
        cr_assert_eq(engine_state(e, &st.io, 0, err, sizeof err), 0, "%s", err);
        for (int k = 0; k < st.n; k++)
            if (!strcmp(st.a[k].name, "disp_ds"))
                for (size_t d = 0; d < m->ndisp; d++) {
                    const size_t id = m->disp_cell[d];
                    ((double *)st.a[k].v)[d] = eps * mode[id / m->ncells][id % m->ncells];
                }
        st.io.load = true;
        cr_assert_eq(engine_state(e, &st.io, 0, err, sizeof err), 0, "%s", err);
        for (int k = 0; k < st.n; k++)
            free(st.a[k].v);
    }
    enum { NS = 300 };
    double series[NS], *buf = malloc(m->ncells * sizeof *buf);
    for (int n = 0; n < NS; n++) {
        double s = 0;
        for (int c3 = 0; c3 < 3; c3++) {
            cr_assert_eq(engine_read(e, ef[c3], buf, err, sizeof err), 0, "%s", err);
            for (size_t c = 0; c < m->ncells; c++)
                s += buf[c] * mode[c3][c];
        }
        series[n] = s;
        cr_assert_eq(engine_step(e, 1, err, sizeof err), 0, "%s", err);
    }
    double num = 0, den = 0;
    for (int n = 1; n < NS - 1; n++) {
        num += series[n] * (series[n + 1] + series[n - 1]);
        den += 2 * series[n] * series[n];
    }
    const double c = num / den, cos_vacuum = 1 - K / 2;
    cr_log_info("%s: cos(w dt) %.12f, expected %.12f, difference %.2g (vacuum %.6f)", label, c,
                cos_expected, c - cos_expected, cos_vacuum);
    cr_assert(fabs(c - cos_expected) < 1e-10, "cos(w dt) = %.15f, dispersion relation %.15f", c,
              cos_expected);
    cr_assert(fabs(c - cos_vacuum) > 1e-2, "the medium changes nothing: %.9f", c);
    engine_destroy(e);
    for (int c3 = 0; c3 < 3; c3++)
        free(mode[c3]);
    free(buf);
    setup_free(&t);
}

Test(mat3d, cavity_of_eps_mu_follows_3d_dispersion)
{
    cavity_medium("eps_r 2, mu_r 1.5", "[material.m]\neps_r = 2\nmu_r = 1.5\n", 2, 1.5, 0);
}

Test(mat3d, cavity_of_drude_mu_follows_3d_dispersion)
{
    cavity_medium("Drude, mu_r 1.5", "[material.m]\neps_r = 2\nmu_r = 1.5\ndrude = 2e10 0\n", 2,
                  1.5, 2e10);
}
