/* test_compare.c - compare/metrics.c against hand-computed values, a DFT of
 * known sinusoids through the phasor metrics, and `texfdtd compare` end to
 * end: exit statuses on pass, on an exceeded limit and on bad input, and the
 * CSV files read back.  Small grids only (CI: 2 cores, llvmpipe). */
#include "helpers.h"

#include <complex.h>
#include <float.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "compare/analytic.h"
#include "compare/metrics.h"

/* ---- metrics ------------------------------------------------------------------ */

Test(metrics, ulp_distance_by_hand)
{
    cr_assert_eq(ulp_distance(1.0f, 1.0f), 0);
    cr_assert_eq(ulp_distance(1.0f, nextafterf(1.0f, 2.0f)), 1);
    cr_assert_eq(ulp_distance(nextafterf(1.0f, 0.0f), 1.0f), 1);
    cr_assert_eq(ulp_distance(-1.0f, nextafterf(-1.0f, -2.0f)), 1);
    cr_assert_eq(ulp_distance(0.0f, -0.0f), 0, "+0 and -0 are the same value");
    /* the smallest denormals either side of zero: -d, (+-0), +d */
    cr_assert_eq(ulp_distance(-FLT_TRUE_MIN, FLT_TRUE_MIN), 2);
    cr_assert_eq(ulp_distance(0.0f, FLT_TRUE_MIN), 1);
    /* 4 = 0x40800000, 5 = 0x40a00000 */
    cr_assert_eq(ulp_distance(4.0f, 5.0f), 0x200000);
    cr_assert_eq(ulp_distance(NAN, 1.0f), ULP_NAN);
    /* agrees with the helper the engine tests use */
    cr_assert_eq(ulp_distance(-3.5f, 2.25f), ulp_distance_f(-3.5f, 2.25f));
}

Test(metrics, field_metrics_of_known_arrays)
{
    const float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 5};
    struct field_metrics m;
    field_metrics(a, PRECISION_SINGLE, b, PRECISION_SINGLE, 4, &m);
    cr_assert_eq(m.max_abs, 1.0);
    cr_assert_float_eq(m.rel_l2, 1.0 / sqrt(39.0), 1e-15);
    cr_assert_eq(m.max_ulp, 0x200000);
    cr_assert_eq(m.max_ulp_cell, 3);
    cr_assert_eq(m.identical_fraction, 0.75);

    /* +0 against -0: distance 0 but not the same bits */
    const float z[2] = {0.0f, 1.0f}, nz[2] = {-0.0f, 1.0f};
    field_metrics(z, PRECISION_SINGLE, nz, PRECISION_SINGLE, 2, &m);
    cr_assert_eq(m.max_ulp, 0);
    cr_assert_eq(m.identical_fraction, 0.5);
    cr_assert_eq(m.rel_l2, 0.0);

    /* a double reference is compared as the float nearest to it */
    const float f1[2] = {1.0f, 0.1f};
    const double d1[2] = {1.0 + 1e-12, 0.1};
    field_metrics(f1, PRECISION_SINGLE, d1, PRECISION_DOUBLE, 2, &m);
    cr_assert_eq(m.max_ulp, 0);
    cr_assert_eq(m.identical_fraction, 1.0);
    cr_assert_float_eq(m.max_abs, fabs((double)0.1f - 0.1), 1e-20, "max_abs is in double");

    /* zero reference: 0 when equal, +inf otherwise */
    const float zero[3] = {0, 0, 0}, one[3] = {0, 1, 0};
    field_metrics(zero, PRECISION_SINGLE, zero, PRECISION_SINGLE, 3, &m);
    cr_assert_eq(m.rel_l2, 0.0);
    cr_assert_eq(m.identical_fraction, 1.0);
    field_metrics(one, PRECISION_SINGLE, zero, PRECISION_SINGLE, 3, &m);
    cr_assert(isinf(m.rel_l2));
}

Test(metrics, phasor_errors_of_a_scaled_field)
{
    double complex G[50], F[50];
    for (int k = 0; k < 50; k++)
        G[k] = cexp(I * 0.37 * k) * (1.0 + 0.02 * k);
    const double complex alpha = 0.9 * cexp(-0.1 * I);
    for (int k = 0; k < 50; k++)
        F[k] = alpha * G[k];
    struct phasor_errors e;
    cr_assert_eq(phasor_errors(F, G, 50, &e), 0);
    cr_assert_float_eq(e.rel_complex, cabs(alpha - 1.0), 1e-14);
    cr_assert_float_eq(e.rel_magnitude, 0.1, 1e-14);
    cr_assert_lt(e.rel_shape, 1e-14);
    cr_assert_float_eq(cabs(e.factor), 0.9, 1e-14);
    cr_assert_float_eq(carg(e.factor), -0.1, 1e-14);
    /* a shape error survives the factor */
    F[7] += 0.5;
    cr_assert_eq(phasor_errors(F, G, 50, &e), 0);
    cr_assert_gt(e.rel_shape, 0.01);
    cr_assert_eq(phasor_errors(F, G, 0, &e), -1);
}

/* A DFT of known sinusoids through the path --analytic takes: time signals
 * Ez^n = A Re[P exp(i omega n dt)] (P the exact scattered phasor of a small
 * cylinder, at every cell of its annulus) summed with the model's weights give
 * back P; delayed by d steps they give P exp(-i omega d dt), which the
 * factor reports as the phase lag. */
Test(metrics, dft_of_known_sinusoids)
{
    static struct analytic_cylinder cy;
    struct test_setup t;
    char err[ERRLEN];
    setup_from_text(&t,
                    "[grid]\nnx = 64\nny = 64\nsteps = 200\n[source]\namplitude = 3\nangle = 10\n"
                    "[object.c]\nshape = circle\nmaterial = pec\ncenter_x = 31\ncenter_y = 32\n"
                    "radius = 8\n[monitor.dft]\nstart_step = 80\n",
                    NULL, 0);
    const struct model *m = &t.model;
    cr_assert_eq(analytic_init_model(&cy, m, err, sizeof err), 0, "%s", err);
    double complex G[2048], F[2048], Fd[2048];
    size_t n = 0;
    const double delay = 0.5;
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            const double rho = hypot(i - cy.xc, j - cy.yc);
            if (rho < 1.2 * cy.a || rho > 2.5 * cy.a)
                continue;
            cr_assert_lt(n, 2048);
            G[n] = analytic_scattered(&cy, i, j);
            F[n] = Fd[n] = 0;
            for (int s = t.scene.dft_start + 1; s <= t.scene.steps; s++) {
                double wr, wi;
                model_dft_weight(m, s, &wr, &wi);
                const double e = m->inc.amplitude * creal(G[n] * cexp(I * m->inc.omega_dt * s));
                const double ed = m->inc.amplitude * creal(G[n] * cexp(I * m->inc.omega_dt * (s - delay)));
                F[n] += (wr + I * wi) * e;
                Fd[n] += (wr + I * wi) * ed;
            }
            n++;
        }
    cr_assert_gt(n, 500);
    struct phasor_errors e;
    cr_assert_eq(phasor_errors(F, G, n, &e), 0);
    cr_assert_lt(e.rel_complex, 1e-12, "120 samples = 3 whole periods: exact to rounding, %g",
                 e.rel_complex);
    cr_assert_eq(phasor_errors(Fd, G, n, &e), 0);
    cr_assert_float_eq(carg(e.factor), -m->inc.omega_dt * delay, 1e-12);
    cr_assert_float_eq(cabs(e.factor), 1.0, 1e-12);
    cr_assert_lt(e.rel_shape, 1e-12);
    cr_assert_lt(e.rel_magnitude, 1e-12);
    setup_free(&t);
}

/* ---- the command --------------------------------------------------------------- */


static char *temp_dir(void) { return temp_dir_tagged("cmp"); }

static const char *small_scene = "[grid]\nnx = 72\nny = 56\nsteps = 120\n"
                                 "[source]\nangle = 20\nfront_offset = 20\n"
                                 "[object.c]\nshape = circle\nmaterial = pec\n"
                                 "center_x = 36\ncenter_y = 28\nradius = 6\n";

struct csv_row {
    int step;
    char engine[32], reference[32], field[8];
    double max_abs, rel_l2, identical;
    unsigned long long max_ulp;
};

/* Read compare.csv back: provenance comments, the header, then rows. */
static int read_compare_csv(const char *path, struct csv_row *rows, int max)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s missing", path);
    char line[1024];
    int n = 0, header = 0, comments = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            comments++;
            continue;
        }
        if (!header) {
            cr_assert_str_eq(line, "step,engine,reference,field,max_abs,rel_l2,max_ulp,"
                                   "identical_fraction\n");
            header = 1;
            continue;
        }
        cr_assert_lt(n, max);
        struct csv_row *r = &rows[n++];
        cr_assert_eq(sscanf(line, "%d,%31[^,],%31[^,],%7[^,],%lf,%lf,%llu,%lf", &r->step,
                            r->engine, r->reference, r->field, &r->max_abs, &r->rel_l2,
                            &r->max_ulp, &r->identical),
                     8, "bad row: %s", line);
    }
    fclose(f);
    cr_assert_geq(comments, 4, "provenance comments");
    return n;
}

Test(compare_cmd, cpu_and_cpu_flush_are_identical_exit_0)
{
    char out[16384], path[600];
    char *dir = temp_dir(), *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out,
                         "%s compare %s --engines cpu,cpu-flush --every 40 --max-ulp 0 "
                         "--max-rel 0 --out %s/c",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);
    cr_assert(strstr(out, "cpu-flush"), "%s", out);
    snprintf(path, sizeof path, "%s/c/compare.csv", dir);
    struct csv_row rows[64];
    const int n = read_compare_csv(path, rows, 64);
    cr_assert_eq(n, 3 * 3, "steps 40, 80, 120 x 3 fields");
    for (int k = 0; k < n; k++) {
        cr_assert_eq(rows[k].step, 40 * (k / 3 + 1));
        cr_assert_str_eq(rows[k].engine, "cpu-flush");
        cr_assert_str_eq(rows[k].reference, "cpu");
        cr_assert_str_eq(rows[k].field, k % 3 == 0 ? "ez" : k % 3 == 1 ? "hx" : "hy");
        cr_assert_eq(rows[k].max_ulp, 0);
        cr_assert_eq(rows[k].max_abs, 0.0);
        cr_assert_eq(rows[k].identical, 1.0);
    }
    /* the same directory again: refused without --force, nothing changed */
    cr_assert_eq(run_cmd(out, sizeof out, "%s compare %s --engines cpu,cpu-flush --out %s/c",
                         texfdtd_bin(), scene, dir),
                 2, "%s", out);
    cr_assert(strstr(out, "not empty: use --force"), "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out,
                         "%s compare %s --engines cpu,cpu-flush --out %s/c --force -q",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);
    unlink(scene);
    free(scene);
    remove_tree(dir);
    free(dir);
}

Test(compare_cmd, float_against_double_exceeds_max_ulp_0_exit_3)
{
    char out[16384], path[600];
    char *dir = temp_dir(), *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out,
                         "%s compare %s --engines cpu --reference cpu-double --max-ulp 0 "
                         "--every 60 --out %s/c",
                         texfdtd_bin(), scene, dir),
                 3, "%s", out);
    cr_assert(strstr(out, "--max-ulp 0 exceeded: cpu against cpu-double"), "%s", out);
    cr_assert(strstr(out, "rounded to float"), "%s", out);
    snprintf(path, sizeof path, "%s/c/compare.csv", dir);
    struct csv_row rows[64];
    const int n = read_compare_csv(path, rows, 64);
    cr_assert_eq(n, 6);
    bool differs = false;
    for (int k = 0; k < n; k++) {
        cr_assert_str_eq(rows[k].reference, "cpu-double");
        /* float32 rounding: the fields agree to a few 1e-7 in relative L2 */
        cr_assert_lt(rows[k].rel_l2, 1e-5, "step %d %s: %g", rows[k].step, rows[k].field,
                     rows[k].rel_l2);
        differs |= rows[k].max_ulp > 0;
    }
    cr_assert(differs);
    /* a loose relative limit passes: exit 0 */
    cr_assert_eq(run_cmd(out, sizeof out,
                         "%s compare %s --engines cpu,cpu-double --max-rel 1e-4 --out %s/d",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out,
                         "%s compare %s --engines cpu,cpu-double --max-rel 1e-12 --out %s/e",
                         texfdtd_bin(), scene, dir),
                 3, "%s", out);
    cr_assert(strstr(out, "--max-rel 1e-12 exceeded"), "%s", out);
    unlink(scene);
    free(scene);
    remove_tree(dir);
    free(dir);
}

Test(compare_cmd, bad_input_exits_2_and_writes_nothing)
{
    char out[16384], sub[600];
    char *dir = temp_dir(), *scene = write_temp_scene(small_scene);
    snprintf(sub, sizeof sub, "%s/never", dir);
    struct {
        const char *args, *msg;
    } cases[] = {
        {"--engines cpu,frob", "unknown engine 'frob'"},
        {"--engines cpu", "compare needs two engines"},
        {"--engines cpu,cpu", "listed twice"},
        {"--engines cpu, ", "names separated by commas"},
        {"--engines cpu,cpu-double --every 0", "--every takes"},
        {"--engines cpu,cpu-double --max-ulp -1", "--max-ulp takes"},
        {"--engines cpu,cpu-double --max-rel x", "--max-rel takes"},
        {"--engines cpu,cpu-double --frobnicate", "unknown option '--frobnicate'"},
        {"--analytic", "needs a [monitor.dft] section"},
        {"--analytic --reference cpu", "--reference has no meaning"},
        {"--engines cpu,cpu-double --set grid.nx=0", "nx"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cr_assert_eq(run_cmd(out, sizeof out, "%s compare %s %s --out %s", texfdtd_bin(), scene,
                             cases[k].args, sub),
                     2, "%s: %s", cases[k].args, out);
        cr_assert(strstr(out, cases[k].msg), "%s: %s", cases[k].args, out);
        struct stat st;
        cr_assert(stat(sub, &st) != 0, "%s: nothing may be written", cases[k].args);
    }
    cr_assert_eq(
        run_cmd(out, sizeof out, "%s compare /nonexistent.ini --out %s", texfdtd_bin(), sub), 2);
    cr_assert_eq(run_cmd(out, sizeof out, "%s compare", texfdtd_bin()), 2);
    cr_assert_eq(run_cmd(out, sizeof out, "%s compare --help", texfdtd_bin()), 0);
    cr_assert(strstr(out, "usage: texfdtd compare SCENE"), "%s", out);
    /* --analytic on a scene whose object is not one PEC circle */
    char *sq = write_temp_scene("[grid]\nnx = 64\nny = 64\nsteps = 40\n[object.s]\nshape = "
                                "rectangle\nmaterial = pec\ncenter_x = 30\ncenter_y = 30\nwidth "
                                "= 8\nheight = 8\n[monitor.dft]\nstart_step = 20\n");
    cr_assert_eq(
        run_cmd(out, sizeof out, "%s compare %s --analytic --out %s", texfdtd_bin(), sq, sub), 2);
    cr_assert(strstr(out, "exactly one object, a PEC circle"), "%s", out);
    unlink(sq);
    free(sq);
    unlink(scene);
    free(scene);
    remove_tree(dir);
    free(dir);
}

/* The whole --analytic path on a small CPML scene (k a = 3.77, 20 cells per
 * wavelength, 120 x 100, 480 steps): numbers in the range a staircased
 * Yee grid gives (measured: 17.7% complex, 2.2% magnitude, -0.13 rad on the
 * ring), analytic.csv read back. */
Test(compare_cmd, analytic_on_a_small_cylinder)
{
    char out[16384], path[600], line[1024];
    char *dir = temp_dir();
    char *scene = write_temp_scene("[grid]\nnx = 120\nny = 100\nsteps = 480\n"
                                   "[source]\nangle = 20\nfront_offset = 20\n"
                                   "[boundary]\ntype = cpml\ncells = 8\n"
                                   "[object.c]\nshape = circle\nmaterial = pec\n"
                                   "center_x = 60\ncenter_y = 50\nradius = 12\n"
                                   "[monitor.dft]\nstart_step = 320\n");
    cr_assert_eq(run_cmd(out, sizeof out, "%s compare %s --analytic --max-rel 0.4 --out %s/a",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);
    cr_assert(strstr(out, "ring2"), "%s", out);
    snprintf(path, sizeof path, "%s/a/analytic.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    int rows = 0;
    bool header = false;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        if (!header) {
            cr_assert_str_eq(line, "engine,region,cells,rel_complex,rel_magnitude,rel_shape,"
                                   "factor_abs,factor_phase_rad\n");
            header = true;
            continue;
        }
        char eng[32], region[32];
        size_t cells;
        double c, m, s, fa, fp;
        cr_assert_eq(sscanf(line, "%31[^,],%31[^,],%zu,%lf,%lf,%lf,%lf,%lf", eng, region, &cells,
                            &c, &m, &s, &fa, &fp),
                     8, "%s", line);
        cr_assert_str_eq(eng, "cpu");
        cr_assert_str_eq(region, rows == 0 ? "annulus" : "ring2");
        cr_assert_gt(cells, rows == 0 ? 2000 : 100);
        cr_assert(c > 0.05 && c < 0.3, "complex error %g", c);
        cr_assert(m > 0.0 && m < 0.05, "magnitude error %g", m);
        cr_assert(s <= c, "shape %g complex %g", s, c);
        cr_assert(fa > 0.9 && fa < 1.05, "|alpha| %g", fa);
        cr_assert(fp < 0 && fp > -0.3, "a phase lag, %g rad", fp);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 2);
    snprintf(path, sizeof path, "%s/a/analytic_ring.csv", dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    /* a tight complex limit fails with exit 3 */
    cr_assert_eq(run_cmd(out, sizeof out, "%s compare %s --analytic --max-rel 0.01 --out %s/b -q",
                         texfdtd_bin(), scene, dir),
                 3, "%s", out);
    cr_assert(strstr(out, "--max-rel 0.01 exceeded: cpu, annulus"), "%s", out);
    unlink(scene);
    free(scene);
    remove_tree(dir);
    free(dir);
}
