/* test_gl_te.c - TE's own features on the GL engines, against the cpu
 * engine bit for bit: the conformal PEC cut cells (core/model.h tecut), the
 * lossy edges (hmats[].ca, model->hlossy), the dispersive edges
 * (model->hdisp) and the subpixel smoothing's off-diagonal (eps^-1)_xy
 * (model->hoff, [grid] te_offdiagonal), each with CPML and the plane
 * wave, on gl and gl-compute, and a checkpoint of the dispersive edges' state moved between engines
 * mid-run (docs/gl.md, "TE's own features").
 *
 * The cpu engine is the independent expectation (cpu/update2d.inc, the
 * reference order): each test runs the scene on a GL engine, asks it which
 * denormal mode its arithmetic has, runs the cpu engine in that mode and
 * demands 0 differing bits in the three arrays (eta0 Hz, -Ex, -Ey).  Each
 * scene is checked to exercise what it claims: the model has the feature,
 * the engine says it runs it, and the cpu run's field on the feature's nodes
 * is large.  As in test_gl.c: without any GL context the tests are skipped,
 * unless TEXFDTD_REQUIRE_GPU=1.  Grids are small for llvmpipe on 2 cores.
 */
#include "gl_helpers.h"

/* A PEC cylinder off the grid's nodes and a PEC plate with fractional
 * sides, conformal (cut cells of every shape, PEC edges where an edge lies
 * wholly in the conductor), at 25 degrees. */
static const char *CONFORMAL =
    "[grid]\nnx = 64\nny = 56\nsteps = 120\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\nconformal_pec = true\n"
    "[source]\ntype = plane_wave\nangle = 25\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 27.3\ncenter_y = 27.6\n"
    "radius = 7.4\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 44.35\ncenter_y = 30.2\n"
    "width = 3.3\nheight = 13.7\n";

/* A lossy dielectric cylinder (sigma > 0: ca != 1 on its edges) beside a
 * lossless rod (subpixel-smoothed edges, ca = 1 in the lossy update; the
 * diagonal only: the off-diagonal edges have scenes of their own below) and
 * a PEC plate (PEC edges), at 10 degrees. */
static const char *LOSSY =
    "[grid]\nnx = 64\nny = 56\nsteps = 120\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\nte_offdiagonal = false\n"
    "[source]\ntype = plane_wave\nangle = 10\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 3\nsigma = 0.05\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 27.5\ncenter_y = 28.2\n"
    "radius = 8\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 2.5\ncenter_x = 44.3\n"
    "center_y = 20.6\nradius = 4.2\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 44\ncenter_y = 37\n"
    "width = 2\nheight = 8\n";

/* A cylinder of a Lorentz and a Drude pole, a Debye rod with sigma and a
 * lossy (non-dispersive) rod: dispersive edges of two materials with
 * different pole counts and the lossy edges' update in one scene, at 30
 * degrees. */
static const char *DISP =
    "[grid]\nnx = 64\nny = 56\nsteps = 120\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\n"
    "[source]\ntype = plane_wave\nangle = 30\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 2\nlorentz = 3 9e9 6e8\ndrude = 2e10 1e9\n"
    "[material.w]\neps_r = 2.5\ndebye = 4 1e-10\nsigma = 0.01\n"
    "[material.l]\neps_r = 3\nsigma = 0.03\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 24.5\ncenter_y = 28\n"
    "radius = 7\n"
    "[object.rod]\nshape = circle\nmaterial = w\ncenter_x = 42\ncenter_y = 22\nradius = 4\n"
    "[object.lrod]\nshape = circle\nmaterial = l\ncenter_x = 42\ncenter_y = 38\nradius = 3.5\n";

/* DISP with mu_r in the Lorentz-Drude material and the lossy rod's, and a
 * magnetic rod beside them: dispersive and lossy edges beside magnetic Hz
 * nodes (the ez array's own slots). */
static const char *DISP_MU =
    "[grid]\nnx = 64\nny = 56\nsteps = 120\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\n"
    "[source]\ntype = plane_wave\nangle = 30\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.m]\neps_r = 2\nmu_r = 1.5\nlorentz = 3 9e9 6e8\ndrude = 2e10 1e9\n"
    "[material.l]\neps_r = 3\nmu_r = 2\nsigma = 0.03\n"
    "[material.mag]\nmu_r = 2.5\n"
    "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 24.5\ncenter_y = 28\n"
    "radius = 7\n"
    "[object.rod]\nshape = circle\nmaterial = mag\ncenter_x = 42\ncenter_y = 22\nradius = 4\n"
    "[object.lrod]\nshape = circle\nmaterial = l\ncenter_x = 42\ncenter_y = 38\nradius = 3.5\n";

/* A smoothed dielectric cylinder off the grid's nodes with the default
 * te_offdiagonal = true: off-diagonal edges all round it, at 20 degrees. */
static const char *OFFD =
    "[grid]\nnx = 64\nny = 56\nsteps = 120\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\n"
    "[source]\ntype = plane_wave\nangle = 20\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[object.cyl]\nshape = circle\nmaterial = dielectric\neps_r = 4\ncenter_x = 27.3\n"
    "center_y = 28.6\nradius = 8.2\n";

/* The off-diagonal edges beside the other H-map features: a smoothed
 * cylinder overlapped by a lossy rod (its nodes with a lossy edge take no
 * off-diagonal term, their neighbours do), a magnetic rod (Hz slots) and a
 * PEC plate touching the cylinder's rim (PEC edges, excluded nodes), at 35
 * degrees. */
static const char *OFFD_MIX =
    "[grid]\nnx = 64\nny = 56\nsteps = 120\ncourant = 0.5\ncells_per_wavelength = 16\n"
    "polarization = te\n"
    "[source]\ntype = plane_wave\nangle = 35\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[material.l]\neps_r = 2\nsigma = 0.04\n"
    "[material.mag]\nmu_r = 2\n"
    "[object.cyl]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 25.6\n"
    "center_y = 27.3\nradius = 8.4\n"
    "[object.lrod]\nshape = circle\nmaterial = l\ncenter_x = 33.2\ncenter_y = 33.1\n"
    "radius = 3.3\n"
    "[object.mrod]\nshape = circle\nmaterial = mag\ncenter_x = 44.4\ncenter_y = 20.7\n"
    "radius = 3.6\n"
    "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 25.5\ncenter_y = 17.6\n"
    "width = 6.3\nheight = 2.2\n";

enum feature { TECUT, HLOSSY, HDISP, HOFF };

/* The cpu engine on 1 thread: its bits do not depend on the number, and on
 * a loaded 2-core machine its barriers per row would cost more than the
 * rows. */
static struct engine *create_dn(const char *name, const struct model *m, enum denormals dn)
{
    return gl_test_engine(name, m, dn, 1);
}

static void step_ok(struct engine *e, int n)
{
    char err[ERRLEN];
    cr_assert_eq(engine_step(e, n, err, sizeof err), 0, "%s step: %s", e->ops->name, err);
}

/* The three arrays (ez, hx, hy: eta0 Hz, -Ex, -Ey) into f. */
static void read3(struct engine *e, float *f[3])
{
    char err[ERRLEN];
    for (int k = 0; k < 3; k++) {
        f[k] = malloc(e->model->ncells * sizeof(float));
        cr_assert_eq(engine_read(e, (enum field)k, f[k], err, sizeof err), 0, "%s read: %s",
                     e->ops->name, err);
    }
}

static double max_abs_f(const float *v, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs(v[k]));
    return m;
}

static void free3(float *f[3])
{
    for (int k = 0; k < 3; k++)
        free(f[k]);
}

static void same_bits(const struct engine *a, const struct engine *b, float *fa[3], float *fb[3])
{
    for (int k = 0; k < 3; k++) {
        uint32_t ulp = 0;
        const size_t d = count_bit_differences(fa[k], fb[k], a->model->ncells, &ulp);
        cr_expect_eq(d, 0, "%s vs %s, %s after %d steps: %zu values differ (max %u ulp)",
                     a->ops->name, b->ops->name, field_name((enum field)k), a->step, d, ulp);
    }
}

/* The model has feature `w`, and the largest |value| of the cpu run on its
 * nodes: the cut cells' Hz, the lossy edges' or the dispersive edges' E. */
static double feature_peak(const struct model *m, enum feature w, float *f[3])
{
    double peak = 0;
    const size_t n = m->ncells;
    switch (w) {
    case TECUT:
        cr_assert_gt(m->ntecut, 20, "%zu cut cells", m->ntecut);
        for (size_t k = 0; k < m->ntecut; k++)
            peak = fmax(peak, fabs(f[0][m->tecut[k].cell]));
        break;
    case HLOSSY:
        cr_assert(m->hlossy);
        for (size_t k = 0; k < m->nhslots; k++)
            if (m->hmats[m->hmat[m->hslot[k]]].ca != 1.0)
                peak = fmax(peak, fabs(f[1 + m->hslot[k] / n][m->hslot[k] % n]));
        break;
    case HDISP:
        cr_assert_gt(m->nhdisp, 100, "%zu dispersive edges", m->nhdisp);
        for (size_t k = 0; k < m->nhdisp; k++)
            peak = fmax(peak, fabs(f[1 + m->hdisp[k] / n][m->hdisp[k] % n]));
        break;
    case HOFF: {
        /* some edges with H-map index 0 (vacuum, no H slot: outside the
         * H-node map's box there may be off-diagonal edges) */
        size_t vac = 0;
        cr_assert(m->scene->te_offdiagonal);
        cr_assert_gt(m->nhoff, 50, "%zu off-diagonal edges", m->nhoff);
        for (size_t k = 0; k < m->nhoff; k++) {
            peak = fmax(peak, fabs(f[1 + m->hoff[k].id / n][m->hoff[k].id % n]));
            vac += m->hmat[m->hoff[k].id] == 0;
        }
        cr_expect_gt(vac, 0, "no off-diagonal edge of H-map index 0");
        break;
    }
    }
    return peak;
}

/* `name` runs the scene in batches of 7 steps (several, and a split call),
 * asked for denormal mode `want`, the cpu engine in the mode it reports;
 * equal bits, the feature exercised and named in describe(). */
static void agree_dn(const char *name, const char *scene, enum feature w, enum denormals want)
{
    static const char *const said[4] = {"TE-conformal-PEC", "lossy-TE-edges",
                                        "dispersive-TE-edges", "TE-off-diagonal"};
    setenv("TEXFDTD_GL_BATCH_STEPS", "7", 1);
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    const struct model *m = &t.model;
    const int steps = m->scene->steps;
    struct engine *g = create_dn(name, m, want);
    struct engine_info info;
    engine_describe(g, &info);
    cr_expect(strstr(info.detail, said[w]), "%s: %s", name, info.detail);
    cr_log_info("%s: denormals %s", name, denormals_name(info.denormals));
    step_ok(g, 40);
    step_ok(g, steps - 40);
    struct engine *c = create_dn("cpu", m, info.denormals);
    step_ok(c, steps);
    float *fg[3], *fc[3];
    read3(g, fg);
    read3(c, fc);
    cr_assert_gt(feature_peak(m, w, fc), 0.1, "the wave has not reached the %s", said[w]);
    same_bits(g, c, fg, fc);
    free3(fg);
    free3(fc);
    engine_destroy(g);
    engine_destroy(c);
    setup_free(&t);
}

static void agree(const char *name, const char *scene, enum feature w)
{
    agree_dn(name, scene, w, DENORMALS_FLUSH);
}

Test(gl_te, conformal_pec_equals_cpu) { agree("gl", CONFORMAL, TECUT); }
Test(gl_compute_te, conformal_pec_equals_cpu) { agree("gl-compute", CONFORMAL, TECUT); }
Test(gl_te, lossy_edges_equal_cpu) { agree("gl", LOSSY, HLOSSY); }
Test(gl_compute_te, lossy_edges_equal_cpu) { agree("gl-compute", LOSSY, HLOSSY); }
Test(gl_te, dispersive_edges_equal_cpu) { agree("gl", DISP, HDISP); }
Test(gl_compute_te, dispersive_edges_equal_cpu) { agree("gl-compute", DISP, HDISP); }
Test(gl_te, dispersive_lossy_magnetic_equal_cpu) { agree("gl", DISP_MU, HDISP); }
Test(gl_compute_te, dispersive_lossy_magnetic_equal_cpu) { agree("gl-compute", DISP_MU, HDISP); }
Test(gl_te, offdiagonal_equals_cpu) { agree("gl", OFFD, HOFF); }
Test(gl_compute_te, offdiagonal_equals_cpu) { agree("gl-compute", OFFD, HOFF); }
/* OFFD_MIX has what it claims: lossy and PEC edges, magnetic Hz nodes, and
 * off-diagonal edges beside the lossy and the PEC edges (a node of the
 * lossy or PEC edge's 3 x 3 neighbourhood). */
static void agree_mix(const char *name)
{
    struct test_setup t;
    setup_from_text(&t, OFFD_MIX, NULL, 0);
    const struct model *m = &t.model;
    const size_t n = m->ncells, nx = (size_t)m->nx;
    size_t lossy = 0, pec = 0;
    cr_assert(m->hlossy && m->magnetic);
    for (size_t k = 0; k < m->nhoff; k++) {
        const size_t c = m->hoff[k].id % n;
        for (size_t d = 0; d < 9; d++) {
            const size_t e = c + (d / 3) * nx + d % 3 - nx - 1;
            for (size_t comp = 0; comp < 2; comp++) {
                lossy += m->hmats[m->hmat[comp * n + e]].sigma != 0.0;
                pec += m->hmats[m->hmat[comp * n + e]].pec;
            }
        }
    }
    cr_assert(lossy > 0 && pec > 0, "%zu lossy and %zu PEC edges beside off-diagonal ones",
              lossy, pec);
    setup_free(&t);
    agree(name, OFFD_MIX, HOFF);
}

Test(gl_te, offdiagonal_lossy_magnetic_pec_equal_cpu) { agree_mix("gl"); }
Test(gl_compute_te, offdiagonal_lossy_magnetic_pec_equal_cpu) { agree_mix("gl-compute"); }

/* Denormals kept where the driver keeps them (Mesa's compute shaders; a
 * driver that flushes says so and is compared in flush): the edges' updates
 * without the GLSL flush emulation. */
Test(gl_compute_te, dispersive_edges_keep_mode_equal_cpu)
{
    agree_dn("gl-compute", DISP, HDISP, DENORMALS_KEEP);
}

Test(gl_compute_te, offdiagonal_keep_mode_equal_cpu)
{
    agree_dn("gl-compute", OFFD, HOFF, DENORMALS_KEEP);
}

/* ---- checkpoints: the dispersive edges' state under the cpu names, through
 * an in-memory state_io (gl_helpers.h) ---- */

/* `first` runs 83 steps (the wave inside the objects) and saves, `second`
 * loads and runs the rest: the fields of an uninterrupted cpu run.  The
 * saved state holds the edges' D_s, Ei, P and P_old as the cpu engine names
 * them, with non-zero poles. */
static void resume(const char *first, const char *second)
{
    setenv("TEXFDTD_GL_BATCH_STEPS", "5", 1);
    struct test_setup t;
    setup_from_text(&t, DISP, NULL, 0);
    const struct model *m = &t.model;
    const int steps = m->scene->steps, cut = 83;
    char err[ERRLEN];
    struct engine *a = create_dn(first, m, DENORMALS_FLUSH);
    struct engine_info info;
    engine_describe(a, &info);
    step_ok(a, cut);
    struct mem_state st = {.io = {.load = false, .array = mem_array}};
    st.io.ctx = &st;
    cr_assert_eq(engine_state(a, &st.io, a->step, err, sizeof err), 0, "save: %s", err);
    engine_destroy(a);
    int found = 0;
    for (int k = 0; k < st.n; k++)
        if (!strcmp(st.a[k].name, "hdisp_p")) {
            found++;
            cr_expect_eq(st.a[k].count, m->nhdisp * SCENE_MAX_POLES);
            cr_expect_gt(max_abs_f(st.a[k].v, st.a[k].count), 0, "the poles are still 0");
        } else if (!strcmp(st.a[k].name, "hdisp_ds") || !strcmp(st.a[k].name, "hdisp_ei")
                   || !strcmp(st.a[k].name, "hdisp_pold")) {
            found++;
        }
    cr_expect_eq(found, 4, "the edges' state is not saved under the cpu names");

    struct engine *b = create_dn(second, m, info.denormals);
    st.io.load = true;
    cr_assert_eq(engine_state(b, &st.io, cut, err, sizeof err), 0, "load: %s", err);
    step_ok(b, steps - cut);
    struct engine *c = create_dn("cpu", m, info.denormals);
    step_ok(c, steps);
    float *fb[3], *fc[3];
    read3(b, fb);
    read3(c, fc);
    same_bits(b, c, fb, fc);
    free3(fb);
    free3(fc);
    engine_destroy(b);
    engine_destroy(c);
    mem_free(&st);
    setup_free(&t);
}

Test(gl_te, dispersive_checkpoint_resumes_on_cpu) { resume("gl", "cpu"); }
Test(gl_compute_te, dispersive_cpu_checkpoint_resumes_on_gl_compute)
{
    setenv("TEXFDTD_GL_DISP_ROW_CELLS", "13", 1); /* a state layout of many rows */
    resume("cpu", "gl-compute");
}
