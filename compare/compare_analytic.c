/* compare_analytic.c - `texfdtd compare SCENE --analytic`: the engines' DFT
 * phasor of Ez against the exact series for a PEC circular cylinder.
 *
 * Each engine runs the whole scene; then ez_dft_re and ez_dft_im (the
 * scattered phasor normalised to the incident amplitude, core/model.h) are
 * compared with analytic_scattered() at the Ez positions (i, j) of
 *   annulus: 1.2 a <= rho <= 2.5 a
 *   ring:    |rho - 2 a| < 0.5 (the cells one radius out from the surface)
 * with the errors of compare/metrics.h (complex, magnitude, and shape after
 * the best complex factor alpha; arg(alpha) < 0 is a phase lag).
 */
#define _GNU_SOURCE
#include "analytic.h"
#include "cmp.h"
#include "metrics.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/output.h"
#include "core/util.h"
#include "core/args.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_LIMIT = 3 };
enum { REGION_ANNULUS, REGION_RING, NREGIONS };
static const char *const region_name[NREGIONS] = {"annulus", "ring2"};

struct region {
    size_t n, *cell;
    double complex *exact, *num;
};

struct result {
    struct phasor_errors e[NREGIONS];
};

static int region_of(double rho, double a)
{
    if (fabs(rho - 2.0 * a) < 0.5)
        return REGION_RING;
    return -1;
}

/* The cells of both regions; the exact phasor at each. */
static int build_regions(const struct model *m, const struct analytic_cylinder *cy,
                         struct region r[NREGIONS], char *err, size_t errlen)
{
    const double a = cy->a;
    if (cy->xc - 2.5 * a < 0 || cy->yc - 2.5 * a < 0 || cy->xc + 2.5 * a > m->nx - 1
        || cy->yc + 2.5 * a > m->ny - 1)
        return seterr(err, errlen,
                      "%s: the annulus to 2.5 radii (%.1f cells) around (%g, %g) does not fit in "
                      "the %d x %d grid",
                      m->scene->path, 2.5 * a, cy->xc, cy->yc, m->nx, m->ny);
    for (int pass = 0; pass < 2; pass++) {
        for (int q = 0; q < NREGIONS; q++)
            r[q].n = 0;
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++) {
                const double rho = hypot(i - cy->xc, j - cy->yc);
                int in[NREGIONS] = {rho >= 1.2 * a && rho <= 2.5 * a, region_of(rho, a) == REGION_RING};
                for (int q = 0; q < NREGIONS; q++) {
                    if (!in[q])
                        continue;
                    if (pass == 1) {
                        r[q].cell[r[q].n] = (size_t)i + (size_t)j * (size_t)m->nx;
                        r[q].exact[r[q].n] = analytic_scattered(cy, i, j);
                    }
                    r[q].n++;
                }
            }
        if (pass == 0)
            for (int q = 0; q < NREGIONS; q++) {
                r[q].cell = xcalloc(r[q].n, sizeof *r[q].cell, "region cells", err, errlen);
                r[q].exact = r[q].cell ? xcalloc(r[q].n, sizeof *r[q].exact, "exact phasors", err, errlen) : NULL;
                r[q].num = r[q].exact ? xcalloc(r[q].n, sizeof *r[q].num, "phasors", err, errlen) : NULL;
                if (!r[q].num)
                    return -1;
            }
    }
    return 0;
}

static void free_regions(struct region r[NREGIONS])
{
    for (int q = 0; q < NREGIONS; q++) {
        free(r[q].cell);
        free(r[q].exact);
        free(r[q].num);
    }
}

/* Run one engine to the end and read its DFT phasor on the regions. */
static int run_one(const struct cmp_args *a, const struct scene *s, const struct model *m,
                   struct cmp_spec *sp, struct region r[NREGIONS], struct engine **eout,
                   double complex *ring_num, char *err, size_t errlen)
{
    struct engine_options eo = {.precision = sp->precision,
                                .denormals = sp->denormals,
                                .device = a->device,
                                .shader_dir = a->shader_dir,
                                .threads = a->threads};
    struct engine *e;
    if (engine_create(sp->engine, m, &eo, &e, err, errlen))
        return -1;
    *eout = e;
    struct cmp_progress pr;
    cmp_progress_init(&pr, a->quiet, a->progress);
    int batch = 1;
    char what[64];
    snprintf(what, sizeof what, "analytic %.32s", sp->label);
    while (e->step < s->steps) {
        const int n = s->steps - e->step < batch ? s->steps - e->step : batch;
        const double t0 = now_seconds();
        if (engine_step(e, n, err, errlen))
            return -1;
        const double dt = now_seconds() - t0;
        if (dt < 0.1 && batch < (1 << 20))
            batch *= 2;
        else if (dt > 0.4 && batch > 1)
            batch /= 2;
        cmp_progress_show(&pr, what, e->step, s->steps, false);
    }
    cmp_progress_show(&pr, what, e->step, s->steps, true);
    const size_t esz = precision_size(sp->precision);
    void *re = xcalloc(m->ncells, esz, "DFT phasor (real)", err, errlen);
    void *im = re ? xcalloc(m->ncells, esz, "DFT phasor (imaginary)", err, errlen) : NULL;
    int rc = -1;
    char tmp[ERRLEN];
    if (!im)
        goto out;
    if (engine_read(e, FIELD_EZ_DFT_RE, re, tmp, sizeof tmp)
        || engine_read(e, FIELD_EZ_DFT_IM, im, tmp, sizeof tmp)) {
        seterr(err, errlen, "engine %s gives no DFT phasor of Ez (ez_dft_re, ez_dft_im): %s",
               sp->label, tmp);
        goto out;
    }
    for (int q = 0; q < NREGIONS; q++)
        for (size_t k = 0; k < r[q].n; k++) {
            const size_t c = r[q].cell[k];
            const double x = esz == 8 ? ((double *)re)[c] : ((float *)re)[c];
            const double y = esz == 8 ? ((double *)im)[c] : ((float *)im)[c];
            r[q].num[k] = x + I * y;
            if (q == REGION_RING)
                ring_num[k] = r[q].num[k];
        }
    rc = 0;
out:
    free(re);
    free(im);
    return rc;
}

static int by_angle_cmp(const void *pa, const void *pb, void *ctx)
{
    const double *ang = ctx;
    const size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return ang[a] < ang[b] ? -1 : ang[a] > ang[b];
}

/* analytic_ring.csv: the ring's cells by angle from the propagation direction,
 * the exact phasor and each engine's; analytic_ring.png: the magnitudes. */
static int write_ring(const char *outdir, const struct cmp_args *a, const struct scene *s,
                      const struct analytic_cylinder *cy, const struct region *ring,
                      struct cmp_spec *spec, double complex **nums, int n, char *err,
                      size_t errlen)
{
    double *ang = xcalloc(ring->n, sizeof *ang, "ring angles", err, errlen);
    size_t *ord = ang ? xcalloc(ring->n, sizeof *ord, "ring order", err, errlen) : NULL;
    if (!ord) {
        free(ang);
        return -1;
    }
    for (size_t k = 0; k < ring->n; k++) {
        const size_t c = ring->cell[k];
        const double x = (double)(c % (size_t)s->nx) - cy->xc, y = (double)(c / (size_t)s->nx) - cy->yc;
        double psi = atan2(y, x) - cy->theta;
        psi = remainder(psi, 2.0 * M_PI);
        ang[k] = psi * 180.0 / M_PI;
        ord[k] = k;
    }
    qsort_r(ord, ring->n, sizeof *ord, by_angle_cmp, ang);
    char *text = NULL, path[4200];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cmp_write_provenance(f, a, s);
    fprintf(f, "# ring |rho - 2a| < 0.5 cells; angle from the propagation direction, degrees\n");
    fprintf(f, "angle_deg,i,j,exact_re,exact_im,exact_abs");
    for (int e = 0; e < n; e++)
        fprintf(f, ",%s_re,%s_im,%s_abs", spec[e].label, spec[e].label, spec[e].label);
    fprintf(f, "\n");
    for (size_t q = 0; q < ring->n; q++) {
        const size_t k = ord[q], c = ring->cell[k];
        fprintf(f, "%.6f,%zu,%zu,%.9g,%.9g,%.9g", ang[k], c % (size_t)s->nx, c / (size_t)s->nx,
                creal(ring->exact[k]), cimag(ring->exact[k]), cabs(ring->exact[k]));
        for (int e = 0; e < n; e++)
            fprintf(f, ",%.9g,%.9g,%.9g", creal(nums[e][k]), cimag(nums[e][k]), cabs(nums[e][k]));
        fprintf(f, "\n");
    }
    fclose(f);
    free(ang);
    free(ord);
    snprintf(path, sizeof path, "%s/analytic_ring.csv", outdir);
    int rc = write_file_atomic(path, text, len, err, errlen);
    free(text);
    if (rc)
        return -1;

    const char *term = cmp_gnuplot_terminal();
    if (!term) {
        log_warn("gnuplot (with the pngcairo or png terminal) is not available: no "
                 "analytic_ring.png");
        return 0;
    }
    snprintf(path, sizeof path, "%s/analytic_ring.gp", outdir);
    f = fopen(path, "w");
    if (!f) {
        log_warn("cannot write %s; no analytic_ring.png", path);
        return 0;
    }
    fprintf(f, "set terminal %s size 1000,600 noenhanced\nset output '%s/analytic_ring.png'\n", term, outdir);
    fprintf(f, "set datafile separator ','\nset grid\nset key outside right\n");
    fprintf(f, "set xlabel 'angle from the propagation direction (degrees)'\n"
               "set ylabel '|Ez scattered| / incident amplitude'\nset xrange [-180:180]\n"
               "set xtics 45\n");
    fprintf(f, "set title '%s: ring at 2 radii, k a = %.3g, %g cells per wavelength'\n", s->name,
            cy->k * cy->a, s->cells_per_wavelength);
    fprintf(f, "plot '%s/analytic_ring.csv' skip 1 using 1:6 with lines lw 2 title 'exact'", outdir);
    for (int e = 0; e < n; e++)
        fprintf(f, ", '' skip 1 using 1:%d with points pt 7 ps 0.4 title '%s'", 9 + 3 * e,
                spec[e].label);
    fprintf(f, "\n");
    fclose(f);
    char gerr[ERRLEN];
    if (cmp_gnuplot(path, gerr, sizeof gerr))
        log_warn("%s; no analytic_ring.png", gerr);
    return 0;
}

int compare_analytic(const struct cmp_args *a, struct scene *s)
{
    char err[ERRLEN];
    struct cmp_spec spec[CMP_MAX_ENGINES];
    const int n = cmp_parse_specs(a->engines ? a->engines : "cpu", spec, CMP_MAX_ENGINES, err,
                                  sizeof err);
    if (n < 0) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_BADINPUT;
    }
    if (!s->dft) {
        fprintf(stderr, "texfdtd: %s: --analytic needs a [monitor.dft] section (start_step = S)\n",
                s->path);
        return EXIT_BADINPUT;
    }
    struct model m;
    if (model_build(&m, s, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_RUNTIME;
    }
    static struct analytic_cylinder cy;
    struct region r[NREGIONS] = {{0}};
    struct engine *e[CMP_MAX_ENGINES] = {0};
    struct result res[CMP_MAX_ENGINES];
    double complex *ring_num[CMP_MAX_ENGINES] = {0};
    int rc = EXIT_BADINPUT;
    char outdir[4096];
    snprintf(outdir, sizeof outdir, "%s", a->out ? a->out : "");
    if (!a->out)
        snprintf(outdir, sizeof outdir, "out/%s-compare", s->name);
    if (analytic_init_model(&cy, &m, err, sizeof err)
        || build_regions(&m, &cy, r, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if ((rc = cmp_check_outdir(outdir, a->force)))
        goto out;
    const int period = (int)lround(s->cells_per_wavelength / s->courant);
    const int samples = s->steps - s->dft_start;
    if (fabs(samples * s->courant / s->cells_per_wavelength - round(samples * s->courant / s->cells_per_wavelength)) > 1e-9)
        log_warn("the DFT takes %d samples, not a whole number of periods (%.4g steps each): "
                 "expect an error of order 1/(samples) from the image frequency",
                 samples, s->cells_per_wavelength / s->courant);
    log_info("exact series: k a = %.6g, %d orders; annulus 1.2..2.5 a: %zu cells, ring at 2 a: "
             "%zu cells; DFT over steps %d..%d (%d samples, %.4g periods)",
             cy.k * cy.a, cy.nmax + 1, r[REGION_ANNULUS].n, r[REGION_RING].n, s->dft_start + 1,
             s->steps, samples, (double)samples / (s->cells_per_wavelength / s->courant));
    (void)period;

    rc = EXIT_RUNTIME;
    for (int k = 0; k < n; k++) {
        if (spec[k].denormals_auto)
            spec[k].denormals = DENORMALS_FLUSH;
        ring_num[k] = xcalloc(r[REGION_RING].n, sizeof **ring_num, "ring phasors", err, sizeof err);
        if (!ring_num[k] || run_one(a, s, &m, &spec[k], r, &e[k], ring_num[k], err, sizeof err)) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
        for (int q = 0; q < NREGIONS; q++)
            if (phasor_errors(r[q].num, r[q].exact, r[q].n, &res[k].e[q])) {
                fprintf(stderr, "texfdtd: the exact field is zero on the %s\n", region_name[q]);
                goto out;
            }
    }

    if (make_dirs(outdir, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    char *text = NULL, path[4200];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cmp_write_provenance(f, a, s);
    for (int k = 0; k < n; k++)
        cmp_write_engine_line(f, spec[k].label, e[k]);
    fprintf(f, "# exact: PEC cylinder k a = %.9g (radius %.9g cells at (%.9g, %.9g)), theta = "
               "%.9g rad, %d orders; phasor convention exp(+i omega t) (core/model.h)\n",
            cy.k * cy.a, cy.a, cy.xc, cy.yc, cy.theta, cy.nmax + 1);
    fprintf(f, "# annulus: 1.2 a <= rho <= 2.5 a; ring2: |rho - 2 a| < 0.5 cell; factor = best "
               "alpha with F ~ alpha G, phase < 0 = lag\n");
    fprintf(f, "engine,region,cells,rel_complex,rel_magnitude,rel_shape,factor_abs,"
               "factor_phase_rad\n");
    for (int k = 0; k < n; k++)
        for (int q = 0; q < NREGIONS; q++) {
            const struct phasor_errors *p = &res[k].e[q];
            fprintf(f, "%s,%s,%zu,%.9g,%.9g,%.9g,%.9g,%.9g\n", spec[k].label, region_name[q],
                    p->cells, p->rel_complex, p->rel_magnitude, p->rel_shape, cabs(p->factor),
                    carg(p->factor));
        }
    fclose(f);
    snprintf(path, sizeof path, "%s/analytic.csv", outdir);
    int w = write_file_atomic(path, text, len, err, sizeof err);
    free(text);
    if (w || write_ring(outdir, a, s, &cy, &r[REGION_RING], spec, ring_num, n, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }

    printf("exact PEC cylinder, k a = %.4g, %g cells per wavelength; relative L2 errors of the "
           "DFT phasor:\n",
           cy.k * cy.a, s->cells_per_wavelength);
    printf("%-12s %-8s %7s %10s %10s %10s %10s %12s\n", "engine", "region", "cells", "complex",
           "magnitude", "shape", "|alpha|", "arg(alpha)");
    for (int k = 0; k < n; k++)
        for (int q = 0; q < NREGIONS; q++) {
            const struct phasor_errors *p = &res[k].e[q];
            printf("%-12s %-8s %7zu %9.3f%% %9.3f%% %9.3f%% %10.5f %8.5f rad\n", spec[k].label,
                   region_name[q], p->cells, 100 * p->rel_complex, 100 * p->rel_magnitude,
                   100 * p->rel_shape, cabs(p->factor), carg(p->factor));
        }
    log_info("wrote %s/analytic.csv and analytic_ring.csv", outdir);
    rc = EXIT_OK;
    if (a->has_max_rel)
        for (int k = 0; k < n; k++)
            for (int q = 0; q < NREGIONS; q++)
                if (!(res[k].e[q].rel_complex <= a->max_rel)) {
                    fprintf(stderr,
                            "texfdtd: --max-rel %g exceeded: %s, %s: complex relative error "
                            "%.4e\n",
                            a->max_rel, spec[k].label, region_name[q], res[k].e[q].rel_complex);
                    rc = EXIT_LIMIT;
                }
out:
    for (int k = 0; k < n; k++) {
        engine_destroy(e[k]);
        free(ring_num[k]);
    }
    free_regions(r);
    model_free(&m);
    return rc;
}
