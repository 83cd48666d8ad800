/* compare_analytic.c - `texfdtd compare SCENE --analytic`: the engines
 * against the exact series of a circular cylinder, in two ways.
 *
 * [monitor.dft] (a PEC or dielectric circle): each engine runs the whole
 * scene; then ez_dft_re and ez_dft_im (the scattered phasor normalised to the
 * incident amplitude, core/model.h) are compared with analytic_scattered_any()
 * (the PEC series, or farexact_cyl2_field for a dielectric in TM) at the Ez
 * positions (i, j) of
 *   annulus: 1.2 a <= rho <= 2.5 a
 *   ring:    |rho - 2 a| < 0.5 (the cells one radius out from the surface)
 *   disc:    rho <= 0.8 a, a dielectric only: the TOTAL field inside (the
 *            engine's scattered phasor plus the exact incident one), so that
 *            the error is relative to the field that lives there
 * with the errors of compare/metrics.h (complex, magnitude, and shape after
 * the best complex factor alpha; arg(alpha) < 0 is a phase lag).
 *
 * [monitor.far] (a PEC or dielectric circle): the same runs give the echo
 * width sigma_2D / lambda of the near-to-far-field transform
 * (monitors_far2d, core/monitor.h) at the monitor's angles
 * phi = 360 a / angles and frequencies; the exact one is
 * farexact_cyl_sigma_over_lambda (compare/farexact.h) at psi = phi - theta,
 * theta the [source] angle, k a = 2 pi f a / N_lambda for each frequency f
 * (units of f0).  The error at each angle is 10 log10(engine / exact) dB;
 * per engine and frequency its rms over the angles and its largest value.
 */
#define _GNU_SOURCE
#include "analytic.h"
#include "cmp.h"
#include "farexact.h"
#include "metrics.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/monitor.h"
#include "core/output.h"
#include "core/util.h"
#include "core/args.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_LIMIT = 3 };
enum { REGION_ANNULUS, REGION_RING, REGION_DISC, NREGIONS };
static const char *const region_name[NREGIONS] = {"annulus", "ring2", "disc"};

/* inc: the exact incident phasor at each cell of a region compared in the
 * total field (the disc), NULL for the scattered field. */
struct region {
    size_t n, *cell;
    double complex *exact, *num, *inc;
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

/* The cells of the regions (the disc only for a dielectric, d != NULL); the
 * exact phasor at each. */
static int build_regions(const struct model *m, const struct analytic_cylinder *cy,
                         const struct farexact_cyl2 *d, struct region r[NREGIONS], char *err,
                         size_t errlen)
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
                int in[NREGIONS] = {rho >= 1.2 * a && rho <= 2.5 * a,
                                    region_of(rho, a) == REGION_RING, d && rho <= 0.8 * a};
                for (int q = 0; q < NREGIONS; q++) {
                    if (!in[q])
                        continue;
                    if (pass == 1) {
                        const size_t k = r[q].n;
                        r[q].cell[k] = (size_t)i + (size_t)j * (size_t)m->nx;
                        r[q].exact[k] = analytic_scattered_any(cy, d, i, j);
                        if (r[q].inc) {
                            r[q].inc[k] = analytic_incident(cy, i, j);
                            r[q].exact[k] += r[q].inc[k];
                        }
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
                if (q == REGION_DISC
                    && !(r[q].inc = xcalloc(r[q].n, sizeof *r[q].inc, "incident phasors", err,
                                            errlen)))
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
        free(r[q].inc);
    }
}

/* Run one engine to the end; then read its DFT phasor of frequency index
 * kdft on the regions (r != NULL) and compute its echo width into
 * far[nf][angles] (far != NULL). */
int cmp_run_to_end(const struct cmp_args *a, const struct scene *s, const struct model *m,
                   const struct cmp_spec *sp, struct engine **eout, char *err, size_t errlen)
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
    return 0;
}

static int run_one(const struct cmp_args *a, const struct scene *s, const struct model *m,
                   struct cmp_spec *sp, struct region *r, int kdft, double complex *ring_num,
                   double *far, struct engine **eout, char *err, size_t errlen)
{
    if (cmp_run_to_end(a, s, m, sp, eout, err, errlen))
        return -1;
    struct engine *e = *eout;
    if (far) {
        char tmp[ERRLEN];
        if (!e->mon || monitors_far2d(e->mon, s->far.angles, far, tmp, sizeof tmp))
            return seterr(err, errlen, "engine %s gives no far field: %s", sp->label,
                          e->mon ? tmp : "no monitors");
    }
    if (!r)
        return 0;
    const size_t esz = precision_size(sp->precision);
    void *re = xcalloc(m->ncells, esz, "DFT phasor (real)", err, errlen);
    void *im = re ? xcalloc(m->ncells, esz, "DFT phasor (imaginary)", err, errlen) : NULL;
    int rc = -1;
    char tmp[ERRLEN];
    if (!im)
        goto out;
    if (engine_read(e, field_dft(kdft, 0), re, tmp, sizeof tmp)
        || engine_read(e, field_dft(kdft, 1), im, tmp, sizeof tmp)) {
        seterr(err, errlen, "engine %s gives no DFT phasor of Ez (ez_dft_re, ez_dft_im): %s",
               sp->label, tmp);
        goto out;
    }
    for (int q = 0; q < NREGIONS; q++)
        for (size_t k = 0; k < r[q].n; k++) {
            const size_t c = r[q].cell[k];
            const double x = esz == 8 ? ((double *)re)[c] : ((float *)re)[c];
            const double y = esz == 8 ? ((double *)im)[c] : ((float *)im)[c];
            r[q].num[k] = x + I * y + (r[q].inc ? r[q].inc[k] : 0.0);
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

/* ---- the far field ------------------------------------------------------------ */

/* --max-far-db (cmp.h) */
struct cmp_far_limit cmp_far_limit;

/* The exact echo width at the monitor's angles and frequencies. */
struct far_ref {
    int nf, nang;
    double theta;          /* [source] angle, radians */
    double a, eps_r;       /* radius (cells); eps_r <= 0: PEC */
    double ka[SCENE_MAX_FREQS];
    int orders[SCENE_MAX_FREQS];
    double *exact;         /* [nf][nang] sigma_2D / lambda */
};

/* Per engine and frequency: the dB errors over the angles. */
struct far_err {
    double rms, worst, worst_phi; /* dB, dB (signed), degrees */
};

static double db10(double x) { return 10.0 * log10(x); }

/* Check that the far field can be compared (a 2D plane-wave scene with one
 * circle) and compute the exact series; -1 with err (bad input). */
static int far_setup(const struct scene *s, struct far_ref *fr, char *err, size_t errlen)
{
    if (s->nz > 1)
        return seterr(err, errlen,
                      "%s: --analytic compares the 2D far field of a circular cylinder; this "
                      "scene is 3D",
                      s->path);
    if (s->source_type != SOURCE_PLANE_WAVE)
        return seterr(err, errlen,
                      "%s: the exact far field needs a plane wave ([source] type = plane_wave)",
                      s->path);
    if (s->nobjects != 1 || s->objects[0].shape != SHAPE_CIRCLE)
        return seterr(err, errlen,
                      "%s: the exact far field needs exactly one object, a circle (PEC or "
                      "dielectric; the scene has %d object%s%s)",
                      s->path, s->nobjects, s->nobjects == 1 ? "" : "s",
                      s->nobjects == 1 ? ", not a circle" : "");
    const struct scene_object *o = &s->objects[0];
    fr->nf = s->far.fr.n;
    fr->nang = s->far.angles;
    fr->theta = s->angle_deg * M_PI / 180.0;
    fr->a = o->radius;
    fr->eps_r = o->material == MATERIAL_DIELECTRIC ? o->eps_r : -1.0;
    fr->exact = xcalloc((size_t)fr->nf * (size_t)fr->nang, sizeof *fr->exact,
                        "exact echo widths", err, errlen);
    if (!fr->exact)
        return -1;
    struct farexact_cyl *c = xcalloc(1, sizeof *c, "cylinder series", err, errlen);
    if (!c)
        return -1;
    for (int k = 0; k < fr->nf; k++) {
        fr->ka[k] = 2.0 * M_PI * s->far.fr.f[k] / s->cells_per_wavelength * fr->a;
        if (farexact_cyl_init(c, fr->ka[k], fr->eps_r, err, errlen)) {
            free(c);
            return -1;
        }
        fr->orders[k] = c->nmax + 1;
        for (int q = 0; q < fr->nang; q++) {
            const double psi = 2.0 * M_PI * q / fr->nang - fr->theta;
            fr->exact[(size_t)k * fr->nang + q] = farexact_cyl_sigma_over_lambda(c, psi);
        }
    }
    free(c);
    return 0;
}

void cmp_write_heading(FILE *f, const struct cmp_args *a, const struct scene *s,
                       const struct cmp_spec *spec, struct engine **e, int n)
{
    cmp_write_provenance(f, a, s);
    for (int k = 0; k < n; k++)
        cmp_write_engine_line(f, spec[k].label, e[k]);
}

void cmp_db_errors(const double *num, const double *exact, int n, double *rms, double *worst,
                   int *worst_q)
{
    double s2 = 0;
    *worst = 0;
    *worst_q = 0;
    for (int q = 0; q < n; q++) {
        double d = db10(num[q] / exact[q]);
        if (!isfinite(d))
            d = INFINITY; /* a zero or NaN where the series is not: fails any limit */
        s2 += d * d;
        if (q == 0 || fabs(d) > fabs(*worst)) {
            *worst = d;
            *worst_q = q;
        }
    }
    *rms = sqrt(s2 / n);
}

/* The dB errors of one engine's far[nf][nang]. */
static void far_errors(const struct far_ref *fr, const double *far, struct far_err *out)
{
    for (int k = 0; k < fr->nf; k++) {
        struct far_err *e = &out[k];
        const size_t i = (size_t)k * fr->nang;
        int q;
        cmp_db_errors(far + i, fr->exact + i, fr->nang, &e->rms, &e->worst, &q);
        e->worst_phi = 360.0 * q / fr->nang;
    }
}

static void write_far_header(FILE *f, const struct cmp_args *a, const struct scene *s,
                             const struct far_ref *fr, const struct cmp_spec *spec,
                             struct engine **e, int n)
{
    cmp_write_heading(f, a, s, spec, e, n);
    const struct scene_object *o = &s->objects[0];
    if (fr->eps_r > 0)
        fprintf(f, "# exact: dielectric cylinder eps_r = %.9g", fr->eps_r);
    else
        fprintf(f, "# exact: PEC cylinder");
    fprintf(f, ", radius %.9g cells at (%.9g, %.9g), theta = %.9g deg; sigma_2D / lambda = "
               "(2/pi) |T(phi - theta)|^2 (compare/farexact.h)\n",
            fr->a, o->center_x, o->center_y, s->angle_deg);
    for (int k = 0; k < fr->nf; k++)
        fprintf(f, "# frequency %.10g Hz (%.9g f0, %.9g cells per wavelength): k a = %.9g, "
                   "%d orders\n",
                s->far.fr.f[k] * s->frequency_hz, s->far.fr.f[k],
                s->cells_per_wavelength / s->far.fr.f[k], fr->ka[k], fr->orders[k]);
    fprintf(f, "# far-field contour: cells %d..%d x %d..%d (sides on the H lines half a cell "
               "outside), DFT over steps %d..%d; err_db = 10 log10(engine / exact)\n",
            s->far.lo[0], s->far.hi[0], s->far.lo[1], s->far.hi[1], s->far.fr.start_step + 1,
            s->steps);
}

/* far_compare.csv (every angle) and far_errors.csv (the summary). */
static int write_far_csv(const char *outdir, const struct cmp_args *a, const struct scene *s,
                         const struct far_ref *fr, const struct cmp_spec *spec,
                         struct engine **e, double **far, struct far_err **fe, int n, char *err,
                         size_t errlen)
{
    char *text = NULL, path[4200];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return seterr(err, errlen, "cannot format far_compare.csv");
    write_far_header(f, a, s, fr, spec, e, n);
    fprintf(f, "frequency_hz,phi_deg,exact_over_lambda");
    for (int k = 0; k < n; k++)
        fprintf(f, ",%s_over_lambda,%s_err_db", spec[k].label, spec[k].label);
    fprintf(f, "\n");
    for (int q = 0; q < fr->nf; q++)
        for (int p = 0; p < fr->nang; p++) {
            const size_t i = (size_t)q * fr->nang + p;
            fprintf(f, "%.10g,%.10g,%.10g", s->far.fr.f[q] * s->frequency_hz,
                    360.0 * p / fr->nang, fr->exact[i]);
            for (int k = 0; k < n; k++)
                fprintf(f, ",%.10g,%.6f", far[k][i], db10(far[k][i] / fr->exact[i]));
            fprintf(f, "\n");
        }
    fclose(f);
    snprintf(path, sizeof path, "%s/far_compare.csv", outdir);
    int rc = write_file_atomic(path, text, len, err, errlen);
    free(text);
    if (rc)
        return -1;

    text = NULL;
    len = 0;
    if (!(f = open_memstream(&text, &len)))
        return seterr(err, errlen, "cannot format far_errors.csv");
    write_far_header(f, a, s, fr, spec, e, n);
    fprintf(f, "engine,frequency_hz,frequency_f0,ka,angles,rms_db,worst_db,worst_phi_deg\n");
    for (int k = 0; k < n; k++)
        for (int q = 0; q < fr->nf; q++)
            fprintf(f, "%s,%.10g,%.9g,%.9g,%d,%.6f,%.6f,%.10g\n", spec[k].label,
                    s->far.fr.f[q] * s->frequency_hz, s->far.fr.f[q], fr->ka[q], fr->nang,
                    fe[k][q].rms, fe[k][q].worst, fe[k][q].worst_phi);
    fclose(f);
    snprintf(path, sizeof path, "%s/far_errors.csv", outdir);
    rc = write_file_atomic(path, text, len, err, errlen);
    free(text);
    return rc ? -1 : 0;
}

/* far_compare.gp and far_compare.png: one polar panel per frequency,
 * sigma_2D / lambda in dB against phi (from +x, counter-clockwise), the
 * exact series as a line and each engine as points.  The data are inline
 * (datablocks), so the script stands alone.  The radial axis reaches 5 dB
 * below the smallest value, at most 40 dB below the largest; anything
 * smaller is drawn at its centre. */
static void write_far_plot(const char *outdir, const struct scene *s, const struct far_ref *fr,
                           const struct cmp_spec *spec, double **far, int n)
{
    char path[4200], err[ERRLEN];
    const char *term = cmp_gnuplot_terminal();
    if (!term) {
        log_warn("gnuplot (with the pngcairo or png terminal) is not available: no "
                 "far_compare.png");
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < (size_t)fr->nf * fr->nang; i++)
        for (int k = -1; k < n; k++) {
            const double v = db10(k < 0 ? fr->exact[i] : far[k][i]);
            if (isfinite(v)) {
                lo = fmin(lo, v);
                hi = fmax(hi, v);
            }
        }
    if (!isfinite(lo)) {
        log_warn("no finite echo width to plot: no far_compare.png");
        return;
    }
    hi = ceil(hi / 5.0) * 5.0;
    lo = fmax(floor(lo / 5.0) * 5.0 - 5.0, hi - 40.0);
    snprintf(path, sizeof path, "%s/far_compare.gp", outdir);
    FILE *f = fopen(path, "w");
    if (!f) {
        log_warn("cannot write %s; no far_compare.png", path);
        return;
    }
    const int cols = fr->nf <= 1 ? 1 : fr->nf <= 4 ? 2 : (int)ceil(sqrt((double)fr->nf));
    const int rows = (fr->nf + cols - 1) / cols;
    const int panel = cols * 700 <= 2800 ? 700 : 2800 / cols;
    fprintf(f, "# gnuplot script written by texfdtd compare --analytic (data as in "
               "far_compare.csv)\n");
    fprintf(f, "set terminal %s size %d,%d noenhanced\nset output '%s/far_compare.png'\n", term,
            cols * panel, rows * panel + 40, outdir);
    /* the angle column 1 and dB column 2 of each curve, clipped at lo */
    for (int q = 0; q < fr->nf; q++)
        for (int k = -1; k < n; k++) {
            fprintf(f, "$d%d_%d << EOD\n", q, k + 1);
            for (int p = 0; p <= fr->nang; p++) {
                if (p == fr->nang && k >= 0)
                    break; /* the exact line is closed, the points are not repeated */
                const size_t i = (size_t)q * fr->nang + p % fr->nang;
                const double v = db10(k < 0 ? fr->exact[i] : far[k][i]);
                fprintf(f, "%.6f %.6f\n", 360.0 * p / fr->nang, isfinite(v) && v > lo ? v : lo);
            }
            fprintf(f, "EOD\n");
        }
    fprintf(f, "set encoding utf8\nset polar\nset angles degrees\nset theta counterclockwise\n"
               "set size square\nunset border\nunset xtics\nunset ytics\nunset raxis\nset grid polar 30\n"
               "set rrange [%g:%g]\nset rtics %g format '%%g dB' font ',9'\n"
               "set ttics 0, 30 format '%%g°'\nset key bmargin horizontal\n",
            lo, hi, hi - lo > 20.0 ? 10.0 : 5.0);
    fprintf(f, "set multiplot layout %d,%d title '%s: sigma_2D / lambda (dB) against phi (from "
               "+x); incidence along %g deg'\n",
            rows, cols, s->name, s->angle_deg);
    /* engines that agree must not hide each other: open shapes, growing */
    static const char *const colour[] = {"#c0392b", "#1f4fbf", "#1a7f37", "#8e44ad",
                                         "#d35400", "#16a085", "#7f8c8d", "#2c3e50"};
    static const int shape[] = {7, 6, 4, 8, 12, 10, 14, 2};
    for (int q = 0; q < fr->nf; q++) {
        fprintf(f, "set title 'f = %g f0 (k a = %.3g, %.3g cells per wavelength)'\n",
                s->far.fr.f[q], fr->ka[q], s->cells_per_wavelength / s->far.fr.f[q]);
        fprintf(f, "plot $d%d_0 using 1:2 with lines lw 2 lc rgb '#000000' title 'exact'", q);
        const int every = fr->nang > 90 ? (fr->nang + 89) / 90 : 1;
        for (int k = 0; k < n; k++)
            fprintf(f, ", $d%d_%d every %d using 1:2 with points pt %d ps %.1f lc rgb '%s' "
                       "title '%s'",
                    q, k + 1, every, shape[k % 8], 0.6 + 0.4 * (k % 8), colour[k % 8],
                    spec[k].label);
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    fclose(f);
    if (cmp_gnuplot(path, err, sizeof err))
        log_warn("%s; no far_compare.png", err);
}

/* The DFT comparison: which frequency index of [monitor.dft] is f0; -1 if none. */
static int dft_f0_index(const struct scene *s)
{
    for (int k = 0; k < s->dft_nfreq; k++)
        if (s->dft_freq[k] == 1.0)
            return k;
    return -1;
}

static void print_far(const struct scene *s, const struct far_ref *fr,
                      const struct cmp_spec *spec, struct far_err **fe, int n)
{
    printf("exact %s cylinder", fr->eps_r > 0 ? "dielectric" : "PEC");
    if (fr->eps_r > 0)
        printf(" (eps_r = %g)", fr->eps_r);
    printf(", radius %g cells; echo width sigma_2D / lambda at %d angles, error "
           "10 log10(engine / exact):\n",
           fr->a, fr->nang);
    printf("%-12s %8s %8s %12s %10s %10s %9s\n", "engine", "f/f0", "k a", "cells/wl", "rms dB",
           "worst dB", "at phi");
    for (int k = 0; k < n; k++)
        for (int q = 0; q < fr->nf; q++)
            printf("%-12s %8.4g %8.4g %12.4g %10.4f %+10.4f %9.5g\n", spec[k].label,
                   s->far.fr.f[q], fr->ka[q], s->cells_per_wavelength / s->far.fr.f[q],
                   fe[k][q].rms, fe[k][q].worst, fe[k][q].worst_phi);
}

int compare_analytic(const struct cmp_args *a, struct scene *s)
{
    if (s->nz > 1)
        return compare_analytic_sphere(a, s);
    char err[ERRLEN];
    struct cmp_spec spec[CMP_MAX_ENGINES];
    const int n = cmp_parse_specs(a->engines ? a->engines : "cpu", spec, CMP_MAX_ENGINES, err,
                                  sizeof err);
    if (n < 0) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_BADINPUT;
    }
    if (!s->dft && !s->far.on) {
        fprintf(stderr, "texfdtd: %s: --analytic needs a [monitor.dft] section (start_step = S) "
                        "or a [monitor.far] section\n",
                s->path);
        return EXIT_BADINPUT;
    }
    if (cmp_far_limit.on && !s->far.on) {
        fprintf(stderr, "texfdtd: %s: --max-far-db needs a [monitor.far] section\n", s->path);
        return EXIT_BADINPUT;
    }
    struct model m;
    if (model_build(&m, s, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_RUNTIME;
    }
    static struct analytic_cylinder cy;
    struct farexact_cyl2 *mat = NULL; /* a dielectric circle's series */
    struct region r[NREGIONS] = {{0}};
    struct engine *e[CMP_MAX_ENGINES] = {0};
    struct result res[CMP_MAX_ENGINES];
    double complex *ring_num[CMP_MAX_ENGINES] = {0};
    double *far[CMP_MAX_ENGINES] = {0};
    struct far_err *fe[CMP_MAX_ENGINES] = {0};
    struct far_ref fr = {0};
    int rc = EXIT_BADINPUT;
    char outdir[4096];
    snprintf(outdir, sizeof outdir, "%s", a->out ? a->out : "");
    if (!a->out)
        snprintf(outdir, sizeof outdir, "out/%s-compare", s->name);

    /* what can be compared: the far field and the DFT of a PEC or dielectric circle */
    const bool do_far = s->far.on;
    bool do_dft = s->dft;
    int kdft = 0;
    if (do_far && far_setup(s, &fr, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (do_dft
        && (analytic_init_circle(&cy, &m, err, sizeof err)
            || (cy.eps_r > 0
                && (!(mat = xcalloc(1, sizeof *mat, "dielectric series", err, sizeof err))
                    || analytic_material_init(&cy, mat, err, sizeof err))))) {
        if (!do_far) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
        log_warn("%s; comparing the far field only", err);
        do_dft = false;
    }
    if (a->has_max_rel && !do_dft) {
        fprintf(stderr, "texfdtd: %s: --max-rel limits the DFT phasor's error, and there is no "
                        "DFT comparison here (it needs [monitor.dft] and a PEC or dielectric circle); "
                        "for the "
                        "far field use --max-far-db\n",
                s->path);
        goto out;
    }
    if (do_dft && (kdft = dft_f0_index(s)) < 0) {
        fprintf(stderr, "texfdtd: %s: the exact DFT phasor is at the source frequency: "
                        "[monitor.dft] frequencies must include 1\n",
                s->path);
        goto out;
    }
    if (do_dft && build_regions(&m, &cy, mat, r, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if ((rc = cmp_check_outdir(outdir, a->force)))
        goto out;
    if (do_dft) {
        const int samples = s->steps - s->dft_start;
        const double periods = samples * s->courant / s->cells_per_wavelength;
        if (fabs(periods - round(periods)) > 1e-9)
            log_warn("the DFT takes %d samples, not a whole number of periods (%.4g steps each): "
                     "expect an error of order 1/(samples) from the image frequency",
                     samples, s->cells_per_wavelength / s->courant);
        log_info("exact series: k a = %.6g, %d orders; annulus 1.2..2.5 a: %zu cells, ring at "
                 "2 a: %zu cells, disc 0.8 a: %zu cells; DFT over steps %d..%d (%d samples, "
                 "%.4g periods)",
                 cy.k * cy.a, (mat ? mat->nmax : cy.nmax) + 1, r[REGION_ANNULUS].n,
                 r[REGION_RING].n, r[REGION_DISC].n, s->dft_start + 1, s->steps, samples,
                 periods);
    }
    if (do_far) {
        for (int q = 0; q < fr.nf; q++)
            if (s->waveform == WAVEFORM_SINE && s->far.fr.f[q] != 1.0)
                log_warn("[monitor.far] frequency %g f0: a continuous wave has only f0; its "
                         "result is not meaningful (use a pulse, [source] waveform = "
                         "modulated_gaussian)",
                         s->far.fr.f[q]);
        log_info("exact far field: %s cylinder, radius %g cells, k a = %.6g%s at %d angles; "
                 "contour cells %d..%d x %d..%d, DFT over steps %d..%d",
                 fr.eps_r > 0 ? "dielectric" : "PEC", fr.a, fr.ka[0],
                 fr.nf > 1 ? " (first frequency)" : "", fr.nang, s->far.lo[0], s->far.hi[0],
                 s->far.lo[1], s->far.hi[1], s->far.fr.start_step + 1, s->steps);
    }

    rc = EXIT_RUNTIME;
    const size_t nfar = (size_t)fr.nf * (size_t)fr.nang;
    for (int k = 0; k < n; k++) {
        if (spec[k].denormals_auto)
            spec[k].denormals = DENORMALS_FLUSH;
        if (do_dft && !(ring_num[k] = xcalloc(r[REGION_RING].n, sizeof **ring_num,
                                               "ring phasors", err, sizeof err))) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
        if (do_far && (!(far[k] = xcalloc(nfar, sizeof **far, "echo widths", err, sizeof err))
                       || !(fe[k] = xcalloc((size_t)fr.nf, sizeof **fe, "far-field errors", err,
                                            sizeof err)))) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
        if (run_one(a, s, &m, &spec[k], do_dft ? r : NULL, kdft, ring_num[k], far[k], &e[k],
                    err, sizeof err)) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
        for (int q = 0; q < NREGIONS && do_dft; q++)
            if (r[q].n && phasor_errors(r[q].num, r[q].exact, r[q].n, &res[k].e[q])) {
                fprintf(stderr, "texfdtd: the exact field is zero on the %s\n", region_name[q]);
                goto out;
            }
        if (do_far)
            far_errors(&fr, far[k], fe[k]);
    }

    if (make_dirs(outdir, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    char what[96];
    if (cy.eps_r > 0)
        snprintf(what, sizeof what, "dielectric cylinder (eps_r = %.9g, TM)", cy.eps_r);
    else
        snprintf(what, sizeof what, "PEC cylinder");
    if (do_dft) {
        char *text = NULL, path[4200];
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        cmp_write_heading(f, a, s, spec, e, n);
        fprintf(f, "# exact: %s k a = %.9g (radius %.9g cells at (%.9g, %.9g)), theta = "
                   "%.9g rad, %d orders; phasor convention exp(+i omega t) (core/model.h)\n",
                what, cy.k * cy.a, cy.a, cy.xc, cy.yc, cy.theta,
                (mat ? mat->nmax : cy.nmax) + 1);
        fprintf(f, "# annulus: 1.2 a <= rho <= 2.5 a; ring2: |rho - 2 a| < 0.5 cell (scattered "
                   "field); disc (dielectric): rho <= 0.8 a, total field; factor = best alpha "
                   "with F ~ alpha G, phase < 0 = lag\n");
        fprintf(f, "engine,region,cells,rel_complex,rel_magnitude,rel_shape,factor_abs,"
                   "factor_phase_rad\n");
        for (int k = 0; k < n; k++)
            for (int q = 0; q < NREGIONS; q++) {
                const struct phasor_errors *p = &res[k].e[q];
                if (!r[q].n)
                    continue;
                fprintf(f, "%s,%s,%zu,%.9g,%.9g,%.9g,%.9g,%.9g\n", spec[k].label,
                        region_name[q], p->cells, p->rel_complex, p->rel_magnitude,
                        p->rel_shape, cabs(p->factor), carg(p->factor));
            }
        fclose(f);
        snprintf(path, sizeof path, "%s/analytic.csv", outdir);
        int w = write_file_atomic(path, text, len, err, sizeof err);
        free(text);
        if (w
            || write_ring(outdir, a, s, &cy, &r[REGION_RING], spec, ring_num, n, err,
                          sizeof err)) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
    }
    if (do_far) {
        if (write_far_csv(outdir, a, s, &fr, spec, e, far, fe, n, err, sizeof err)) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
        write_far_plot(outdir, s, &fr, spec, far, n);
    }

    if (do_dft) {
        printf("exact %s, k a = %.4g, %g cells per wavelength; relative L2 errors of the DFT "
               "phasor%s:\n",
               what, cy.k * cy.a, s->cells_per_wavelength,
               mat ? " (disc: the total field inside)" : "");
        printf("%-12s %-8s %7s %10s %10s %10s %10s %12s\n", "engine", "region", "cells",
               "complex", "magnitude", "shape", "|alpha|", "arg(alpha)");
        for (int k = 0; k < n; k++)
            for (int q = 0; q < NREGIONS; q++) {
                const struct phasor_errors *p = &res[k].e[q];
                if (!r[q].n)
                    continue;
                printf("%-12s %-8s %7zu %9.3f%% %9.3f%% %9.3f%% %10.5f %8.5f rad\n",
                       spec[k].label, region_name[q], p->cells, 100 * p->rel_complex,
                       100 * p->rel_magnitude, 100 * p->rel_shape, cabs(p->factor),
                       carg(p->factor));
            }
    }
    if (do_far)
        print_far(s, &fr, spec, fe, n);
    log_info("wrote %s/%s%s%s", outdir, do_dft ? "analytic.csv, analytic_ring.csv" : "",
             do_dft && do_far ? ", " : "", do_far ? "far_compare.csv, far_errors.csv" : "");
    rc = EXIT_OK;
    if (a->has_max_rel)
        for (int k = 0; k < n; k++)
            for (int q = 0; q < NREGIONS; q++)
                if (r[q].n && !(res[k].e[q].rel_complex <= a->max_rel)) {
                    fprintf(stderr,
                            "texfdtd: --max-rel %g exceeded: %s, %s: complex relative error "
                            "%.4e\n",
                            a->max_rel, spec[k].label, region_name[q], res[k].e[q].rel_complex);
                    rc = EXIT_LIMIT;
                }
    if (cmp_far_limit.on)
        for (int k = 0; k < n; k++)
            for (int q = 0; q < fr.nf; q++)
                if (!(fe[k][q].rms <= cmp_far_limit.db)) {
                    fprintf(stderr,
                            "texfdtd: --max-far-db %g exceeded: %s, f = %g f0: far field %.4f dB "
                            "rms (worst %+.4f dB at phi = %g deg)\n",
                            cmp_far_limit.db, spec[k].label, s->far.fr.f[q], fe[k][q].rms,
                            fe[k][q].worst, fe[k][q].worst_phi);
                    rc = EXIT_LIMIT;
                }
out:
    for (int k = 0; k < n; k++) {
        engine_destroy(e[k]);
        free(ring_num[k]);
        free(far[k]);
        free(fe[k]);
    }
    free(fr.exact);
    free(mat);
    free_regions(r);
    model_free(&m);
    return rc;
}
