/* test_cpu.c - the CPU engine against independent expectations: exact zeros,
 * exact mirror symmetry, causality, the discrete dispersion relation of a PEC
 * cavity mode, a textbook reference loop, thread-count invariance, and the
 * float32-versus-float64 bound. */
#include "helpers.h"

#include <omp.h>

static const struct engine_options single_flush = {.precision = PRECISION_SINGLE,
                                                   .denormals = DENORMALS_FLUSH};

/* 96 x 80 grid, a PEC square in the middle; the front starts 8 cells from it. */
static const char *square_scene = "[grid]\nnx = 96\nny = 80\nsteps = 300\n"
                                  "[source]\ntype = plane_wave\nfront_offset = 30\n"
                                  "[object.sq]\nshape = rectangle\nmaterial = pec\n"
                                  "center_x = 47.5\ncenter_y = 39.5\nwidth = 12\nheight = 12\n";

static const char *empty_scene = "[grid]\nnx = 64\nny = 64\nsteps = 200\n"
                                 "[source]\nangle = 30\n";

Test(cpu, no_object_keeps_scattered_field_exactly_zero)
{
    struct test_setup t;
    setup_from_text(&t, empty_scene, NULL, 0);
    void *f[3];
    char err[ERRLEN];
    cr_assert_eq(run_engine("cpu", &t.model, &single_flush, 200, f, err, sizeof err), 0, "%s",
                 err);
    for (int k = 0; k < 3; k++)
        for (size_t c = 0; c < t.model.ncells; c++)
            cr_assert_eq(((float *)f[k])[c], 0.0f, "%s[%zu] = %g", field_name(k), c,
                         ((float *)f[k])[c]);
    free_fields(f);
    setup_free(&t);
}

/* At normal incidence (angle 0) a scene symmetric about y = (ny-1)/2 gives
 * fields that are mirror images bit for bit: Ez(i,j) = Ez(i,ny-1-j),
 * Hy(i,j) = Hy(i,ny-1-j), Hx(i,j) = -Hx(i,ny-2-j) (Hx sits at j+1/2).
 * Round-to-nearest is symmetric, so every rounding mirrors too. */
Test(cpu, symmetric_scene_gives_mirror_symmetric_fields)
{
    struct test_setup t;
    setup_from_text(&t, square_scene, NULL, 0);
    void *f[3];
    char err[ERRLEN];
    cr_assert_eq(run_engine("cpu", &t.model, &single_flush, 300, f, err, sizeof err), 0);
    const int nx = t.model.nx, ny = t.model.ny;
    const float *ez = f[0], *hx = f[1], *hy = f[2];
    size_t nonzero = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const size_t c = i + (size_t)j * nx, m = i + (size_t)(ny - 1 - j) * nx;
            nonzero += ez[c] != 0;
            cr_assert_eq(ez[c], ez[m], "Ez(%d,%d)", i, j);
            cr_assert_eq(hy[c], hy[m], "Hy(%d,%d)", i, j);
            if (j <= ny - 2)
                cr_assert_eq(hx[c], -hx[i + (size_t)(ny - 2 - j) * nx], "Hx(%d,%d)", i, j);
        }
    cr_assert_gt(nonzero, 1000, "the scattered wave should fill much of the grid");
    free_fields(f);
    setup_free(&t);
}

/* The Yee stencil moves information one cell (Manhattan distance) per step.
 * Before the first step whose slot values are non-zero, everything is zero;
 * after n further steps, every cell farther than n from the object is still
 * exactly zero, and the cells at distance n are not all zero. */
Test(cpu, nothing_moves_faster_than_one_cell_per_step)
{
    struct test_setup t;
    setup_from_text(&t, square_scene, NULL, 0);
    const struct model *m = &t.model;
    float *v = malloc(m->nslots * sizeof *v);
    int first = -1;
    for (int n = 0; n < 300 && first < 0; n++) {
        model_slot_values_f(m, n, v);
        for (size_t k = 0; k < m->nslots; k++)
            if (v[k] != 0)
                first = n;
    }
    free(v);
    cr_assert_gt(first, 0, "the wave must reach the object after step 0");

    for (int extra = 5; extra <= 25; extra += 10) {
        void *f[3];
        char err[ERRLEN];
        const int steps = first + 1 + extra; /* step `first` writes the object cells */
        cr_assert_eq(run_engine("cpu", m, &single_flush, steps, f, err, sizeof err), 0);
        const float *ez = f[0];
        int reach = -1;
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++) {
                if (ez[i + (size_t)j * m->nx] == 0)
                    continue;
                int best = 1 << 30; /* Manhattan distance to the object */
                for (size_t k = 0; k < m->nslots; k++) {
                    int si = (int)(m->slot_cell[k] % m->nx), sj = (int)(m->slot_cell[k] / m->nx);
                    int d = abs(si - i) + abs(sj - j);
                    best = d < best ? d : best;
                }
                reach = best > reach ? best : reach;
            }
        cr_assert_eq(reach, extra, "after %d steps past the first hit the field reaches %d cells",
                     extra, reach);
        free_fields(f);
    }
    setup_free(&t);
}

/* A PEC cavity mode Ez = sin(pi p i/(nx-1)) sin(pi q j/(ny-1)) with H = 0 is
 * an eigenvector of the Yee update: Ez^{n+1} - 2 Ez^n + Ez^{n-1} = -S^2 L Ez^n
 * with L = 4 sin^2(kx/2) + 4 sin^2(ky/2), i.e. cos(w dt) = 1 - S^2 L / 2 (the
 * discrete dispersion relation), not the continuum w = c k. */
static void cavity_mode(enum precision prec, double tol)
{
    struct test_setup t;
    setup_from_text(&t, "[grid]\nnx = 41\nny = 33\nsteps = 400\ncourant = 0.6\n", NULL, 0);
    const struct model *m = &t.model;
    const int p = 6, q = 5; /* high enough that grid dispersion is visible */
    const double kx = M_PI * p / (m->nx - 1), ky = M_PI * q / (m->ny - 1), S = 0.6;
    const double L = 4 * pow(sin(kx / 2), 2) + 4 * pow(sin(ky / 2), 2);
    const double cos_expected = 1 - S * S * L / 2;

    struct engine_options o = {.precision = prec, .denormals = DENORMALS_KEEP};
    struct engine *e;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", m, &o, &e, err, sizeof err), 0, "%s", err);
    const size_t es = precision_size(prec);
    void *ez = calloc(m->ncells, es);
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            double v = sin(kx * i) * sin(ky * j);
            if (i == 0 || j == 0 || i == m->nx - 1 || j == m->ny - 1)
                v = 0;
            if (prec == PRECISION_DOUBLE)
                ((double *)ez)[i + j * m->nx] = v;
            else
                ((float *)ez)[i + j * m->nx] = (float)v;
        }
    cr_assert_eq(engine_write(e, FIELD_EZ, ez, err, sizeof err), 0, "%s", err);

    /* probe where the mode is largest */
    size_t probe = 0;
    double best = 0;
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++)
            if (fabs(sin(kx * i) * sin(ky * j)) > best) {
                best = fabs(sin(kx * i) * sin(ky * j));
                probe = i + (size_t)j * m->nx;
            }
    enum { N = 400 };
    double series[N];
    for (int n = 0; n < N; n++) {
        cr_assert_eq(engine_read(e, FIELD_EZ, ez, err, sizeof err), 0);
        series[n] = prec == PRECISION_DOUBLE ? ((double *)ez)[probe] : ((float *)ez)[probe];
        engine_step(e, 1, err, sizeof err);
    }
    /* least squares for c in E^{n+1} + E^{n-1} = 2 c E^n */
    double num = 0, den = 0;
    for (int n = 1; n < N - 1; n++) {
        num += series[n] * (series[n + 1] + series[n - 1]);
        den += 2 * series[n] * series[n];
    }
    const double c = num / den;
    cr_log_info("%s: cos(w dt) %.12f, expected %.12f, difference %.2g", precision_name(prec), c,
                cos_expected, c - cos_expected);
    cr_assert(fabs(c - cos_expected) < tol, "cos(w dt) = %.15f, dispersion relation %.15f", c,
              cos_expected);
    /* and it is measurably not the continuum frequency */
    const double cos_continuum = cos(S * sqrt(kx * kx + ky * ky));
    cr_assert(fabs(c - cos_continuum) > 4e-4, "cannot tell grid from continuum: %.9f vs %.9f",
              c, cos_continuum);
    engine_destroy(e);
    free(ez);
    setup_free(&t);
}

/* Tolerances: the estimate averages 400 steps of a mode of unit amplitude, so
 * it carries only the rounding of the arithmetic: about 1e-16 in double and
 * a few 1e-9 in float (measured: 0 and -7.2e-9).  The bounds, 1e-12 and 1e-7
 * (about two float epsilons), are far below the grid-versus-continuum gap of
 * 4.5e-4 that the test also checks. */
Test(cpu, cavity_mode_follows_discrete_dispersion_double) { cavity_mode(PRECISION_DOUBLE, 1e-12); }
Test(cpu, cavity_mode_follows_discrete_dispersion_single) { cavity_mode(PRECISION_SINGLE, 1e-7); }

/* The textbook two-sweep Yee loop, written here independently of cpu/, must
 * give the fused, threaded engine's bits exactly (both without denormal
 * flushing, so that plain C arithmetic here is the same arithmetic). */
static void textbook_steps(const struct model *m, int steps, float *ez, float *hx, float *hy)
{
    const int nx = m->nx, ny = m->ny;
    const float S = (float)m->scene->courant;
    float *v = malloc(m->nslots * sizeof *v);
#define EZ(i, j) ez[(i) + (size_t)(j) * nx]
#define HX(i, j) hx[(i) + (size_t)(j) * nx]
#define HY(i, j) hy[(i) + (size_t)(j) * nx]
    for (int n = 0; n < steps; n++) {
        for (int j = 0; j < ny - 1; j++)
            for (int i = 0; i < nx; i++)
                HX(i, j) = HX(i, j) - S * (EZ(i, j + 1) - EZ(i, j));
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx - 1; i++)
                HY(i, j) = HY(i, j) + S * (EZ(i + 1, j) - EZ(i, j));
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++) {
                const struct material *mt = &m->mats[m->mat[i + (size_t)j * nx]];
                EZ(i, j) = EZ(i, j) + mt->cezh_f * ((HY(i, j) - HY(i - 1, j)) - (HX(i, j) - HX(i, j - 1)));
            }
        model_slot_values_f(m, n, v);
        for (size_t k = 0; k < m->nslots; k++) {
            size_t c = m->slot_cell[k];
            if (m->mats[m->mat[c]].kind == MATERIAL_PEC)
                ez[c] = v[k];
            else
                ez[c] = ez[c] + v[k];
        }
    }
#undef EZ
#undef HX
#undef HY
    free(v);
}

static const char *mixed_scene = "[grid]\nnx = 90\nny = 70\nsteps = 250\n"
                                 "[source]\nangle = 30\nfront_offset = 20\n"
                                 "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
                                 "center_x = 40\ncenter_y = 30\nradius = 9.5\n"
                                 "[object.plate]\nshape = rectangle\nmaterial = pec\n"
                                 "center_x = 60\ncenter_y = 45\nwidth = 4\nheight = 14\n";

Test(cpu, fused_engine_equals_textbook_loop_bit_for_bit)
{
    struct test_setup t;
    setup_from_text(&t, mixed_scene, NULL, 0);
    const struct model *m = &t.model;
    float *ref[3];
    for (int k = 0; k < 3; k++)
        ref[k] = calloc(m->ncells, sizeof(float));
    textbook_steps(m, 250, ref[0], ref[1], ref[2]);

    for (int threads = 1; threads <= 3; threads++) {
        struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_KEEP,
                                   .threads = threads};
        void *f[3];
        char err[ERRLEN];
        cr_assert_eq(run_engine("cpu", m, &o, 250, f, err, sizeof err), 0);
        for (int k = 0; k < 3; k++) {
            uint32_t ulp;
            size_t d = count_bit_differences(f[k], ref[k], m->ncells, &ulp);
            cr_assert_eq(d, 0, "%d threads: %s differs in %zu cells (max %u ulp)", threads,
                         field_name(k), d, ulp);
        }
        size_t nz = 0;
        for (size_t c = 0; c < m->ncells; c++)
            nz += ((float *)f[0])[c] != 0;
        cr_assert_gt(nz, m->ncells / 4, "the wave must fill the grid");
        free_fields(f);
    }
    for (int k = 0; k < 3; k++)
        free(ref[k]);
    setup_free(&t);
}

/* float32 against float64 on the mixed scene: the relative L2 difference of
 * Ez stays within 1e-5 after 250 steps.  Why that bound: each update rounds
 * with relative error <= 2^-24 = 6e-8; the errors of ~250 steps add up like a
 * random walk with a modest growth from the dielectric's slow modes (measured
 * 3.0e-7 here); 1e-5 leaves a factor of 30 and still catches any real
 * defect, which shows up at 1e-3 or more. */
Test(cpu, float32_stays_close_to_float64)
{
    struct test_setup t;
    setup_from_text(&t, mixed_scene, NULL, 0);
    const struct model *m = &t.model;
    void *fs[3], *fd[3];
    char err[ERRLEN];
    struct engine_options od = {.precision = PRECISION_DOUBLE, .denormals = DENORMALS_KEEP};
    cr_assert_eq(run_engine("cpu", m, &single_flush, 250, fs, err, sizeof err), 0);
    cr_assert_eq(run_engine("cpu", m, &od, 250, fd, err, sizeof err), 0);
    double num = 0, den = 0;
    for (size_t c = 0; c < m->ncells; c++) {
        double a = ((float *)fs[0])[c], b = ((double *)fd[0])[c];
        num += (a - b) * (a - b);
        den += b * b;
    }
    const double rel = sqrt(num / den);
    cr_assert_gt(den, 1.0, "fields must be non-trivial");
    cr_log_info("relative L2 float32 vs float64 after 250 steps: %g", rel);
    cr_assert_lt(rel, 1e-5, "relative L2 float32 vs float64 = %g", rel);
    cr_assert_gt(rel, 0.0, "float32 and float64 cannot agree exactly");
    free_fields(fs);
    free_fields(fd);
    setup_free(&t);
}

/* A NaN anywhere is found, with its field and cell, after it has spread. */
Test(cpu, blow_up_is_detected)
{
    struct test_setup t;
    setup_from_text(&t, square_scene, NULL, 0);
    struct engine *e;
    char err[ERRLEN];
    cr_assert_eq(engine_create("cpu", &t.model, &single_flush, &e, err, sizeof err), 0, "%s", err);
    enum field f;
    size_t cell;
    cr_assert_eq(engine_step(e, 50, err, sizeof err), 0);
    cr_assert_eq(engine_check_finite(e, &f, &cell, err, sizeof err), 0, "a sane run is finite");
    float *hx = calloc(t.model.ncells, sizeof *hx);
    cr_assert_eq(engine_read(e, FIELD_HX, hx, err, sizeof err), 0);
    const size_t c = 40 + 30 * (size_t)t.model.nx;
    hx[c] = NAN;
    cr_assert_eq(engine_write(e, FIELD_HX, hx, err, sizeof err), 0);
    cr_assert_eq(engine_step(e, 1, err, sizeof err), 0);
    cr_assert_eq(engine_check_finite(e, &f, &cell, err, sizeof err), 1);
    /* the E update of the same step reads Hx(40, 30) at cells (40, 30) and (40, 31) */
    cr_assert_eq(f, FIELD_EZ, "%s", field_name(f));
    cr_assert_eq(cell, c, "first bad cell %zu", cell);
    free(hx);
    engine_destroy(e);
    setup_free(&t);
}

/* FTZ/DAZ changes only values near 1e-38: the flushed and unflushed runs
 * differ by far less than the field itself. */
Test(cpu, denormal_modes_differ_only_in_the_tiny_values)
{
    struct test_setup t;
    setup_from_text(&t, square_scene, NULL, 0);
    const struct model *m = &t.model;
    void *a[3], *b[3];
    char err[ERRLEN];
    struct engine_options keep = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_KEEP};
    cr_assert_eq(run_engine("cpu", m, &single_flush, 300, a, err, sizeof err), 0);
    cr_assert_eq(run_engine("cpu", m, &keep, 300, b, err, sizeof err), 0);
    size_t denormals = 0;
    for (size_t c = 0; c < m->ncells; c++) {
        float x = ((float *)a[0])[c], y = ((float *)b[0])[c];
        cr_assert(fabsf(x - y) < 1e-30f, "cell %zu: %g vs %g", c, x, y);
        denormals += y != 0 && fabsf(y) < 1.17549435e-38f;
        cr_assert(!(x != 0 && fabsf(x) < 1.17549435e-38f), "flush mode left a denormal");
    }
    free_fields(a);
    free_fields(b);
    setup_free(&t);
    (void)denormals;
}

/* model_slot_values_* and model_disp_values_* fill lists of 16384 values or
 * more on every OpenMP thread: each value is its own function of the cell,
 * so the lists equal those of one thread bit for bit (here a dielectric
 * disc of about 20 000 slot cells and a Drude disc of as many dispersive
 * cells, at a step where the wave covers them). */
Test(cpu, slot_values_independent_of_threads)
{
    static const char text[] =
        "[grid]\nnx = 400\nny = 200\nsteps = 10\n"
        "[material.metal]\neps_r = 1\ndrude = 2e10 1e9\n"
        "[object.a]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 100\n"
        "center_y = 100\nradius = 80\n"
        "[object.b]\nshape = circle\nmaterial = metal\ncenter_x = 300\ncenter_y = 100\n"
        "radius = 78\n";
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    cr_assert_geq(m->nslots, 16384);
    cr_assert_geq(m->ndisp, 16384);
    float *a = malloc(m->nslots * sizeof *a), *b = malloc(m->nslots * sizeof *b);
    double *da = malloc(m->ndisp * sizeof *da), *db = malloc(m->ndisp * sizeof *db);
    const int saved = omp_get_max_threads();
    for (int n = 0; n < 400; n += 133) {
        omp_set_num_threads(1);
        model_slot_values_f(m, n, a);
        model_disp_values_d(m, n, da);
        omp_set_num_threads(saved > 1 ? saved : 2);
        model_slot_values_f(m, n, b);
        model_disp_values_d(m, n, db);
        cr_expect_eq(memcmp(a, b, m->nslots * sizeof *a), 0, "slot values at step %d", n);
        cr_expect_eq(memcmp(da, db, m->ndisp * sizeof *da), 0, "dispersive values at step %d", n);
    }
    omp_set_num_threads(saved);
    free(a);
    free(b);
    free(da);
    free(db);
    setup_free(&t);
}

/* With the wave along +x (angle 0) the slots of one column and material
 * share one computed value (model.h slot_rep): every slot must still get
 * the value of its own cell, inc_slot's definition (core/incident.h) from
 * the incident field there: PEC -Ei^{n+1}, a dielectric cinc (Ei^{n+1} -
 * Ei^n), a lossy one cdiff (Ei^{n+1} - Ei^n) + csum (Ei^{n+1} + Ei^n);
 * and a range that starts inside a column (its first slot outside the
 * range) the same values as the whole list.  At 30 degrees nothing is
 * shared. */
Test(cpu, shared_slot_values_are_each_cells_own)
{
    static const char text[] =
        "[grid]\nnx = 120\nny = 90\nsteps = 10\n"
        "[source]\ntype = plane_wave\nfront_offset = 5\n"
        "[object.a]\nshape = rectangle\nmaterial = pec\ncenter_x = 30\ncenter_y = 30\n"
        "width = 14\nheight = 20\n"
        "[object.b]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 70\n"
        "center_y = 50\nradius = 15\n"
        "[material.wet]\neps_r = 2\nsigma = 0.01\n"
        "[object.c]\nshape = rectangle\nmaterial = wet\n"
        "center_x = 100\ncenter_y = 30\nwidth = 10\nheight = 30\n";
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    cr_assert_not_null(m->slot_rep, "angle 0: the slots share values");
    const size_t ns = m->nslots, nx = (size_t)m->nx;
    double *v = malloc(ns * sizeof *v), *r = malloc(ns * sizeof *r);
    float *vf = malloc(ns * sizeof *vf);
    int kinds[3] = {0, 0, 0};
    for (int n = 0; n < 200; n += 7) {
        model_slot_values_d(m, n, v);
        model_slot_values_f(m, n, vf);
        for (size_t k = 0; k < ns; k++) {
            const size_t c = m->slot_cell[k];
            const double i = (double)(c % nx), j = (double)(c / nx);
            const struct material *mt = &m->mats[m->mat[c]];
            const double e1 = model_incident(m, i, j, n + 1.0), e0 = model_incident(m, i, j, n);
            const int kind = mt->kind == MATERIAL_PEC ? 0 : mt->sigma != 0.0 ? 2 : 1;
            const double want = kind == 0 ? -e1
                                : kind == 2 ? mt->cinc_diff * (e1 - e0) + mt->cinc_sum * (e1 + e0)
                                            : mt->cinc * (e1 - e0);
            kinds[kind]++;
            cr_assert(memcmp(&v[k], &want, sizeof want) == 0 && vf[k] == (float)want,
                      "step %d slot %zu (%g, %g): %.17g, its own %.17g", n, k, i, j, v[k], want);
        }
        const size_t first = ns / 3 + 1, count = ns - first;
        model_slot_range_d(m, n, first, count, r);
        cr_assert_eq(memcmp(r, v + first, count * sizeof *r), 0, "range from %zu, step %d", first, n);
    }
    cr_assert(kinds[0] && kinds[1] && kinds[2], "PEC %d, dielectric %d, lossy %d slots", kinds[0],
              kinds[1], kinds[2]);
    free(v);
    free(r);
    free(vf);
    setup_free(&t);
    const char *oblique[] = {"source.angle=30"};
    setup_from_text(&t, text, oblique, 1);
    cr_assert_null(t.model.slot_rep, "at 30 degrees nothing is shared");
    setup_free(&t);
}
