/* compare_mie.c - `texfdtd compare SCENE --analytic` for a 3D scene: one
 * sphere (PEC, `material = dielectric`, or a table material: eps(omega) of
 * its eps_r, sigma and poles at each frequency, and its mu_r) with a plane
 * wave and [monitor.far], against the Mie series (compare/mie.h).
 *
 * Each engine runs the whole scene; then, at every [monitor.far] frequency,
 * the bistatic RCS sigma / lambda^2 of the near-to-far-field transform
 * (core/farfield3d.h) on the E-plane and H-plane cuts (`angles` points each,
 * farfield3d_cut_angles) is compared with mie_rcs_grid() at k a =
 * 2 pi f a / N_lambda: the error at each point is 10 log10(engine / exact)
 * dB, per engine, frequency and cut its rms and largest value; and the
 * extinction from the forward amplitude (farfield3d_reactions, the optical
 * theorem) with the series'.  Written: far_compare.csv (every point) and
 * far_errors.csv (the summary); --max-far-db limits the rms of each cut.
 */
#define _GNU_SOURCE
#include "cmp.h"
#include "dispersion.h"
#include "mie.h"
#include "core/args.h"
#include "core/engine.h"
#include "core/farfield3d.h"
#include "core/model.h"
#include "core/output.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_LIMIT = 3, NCUT = 2 };
static const char *const cut_name[NCUT] = {"e_plane", "h_plane"};

/* The series at each far-field frequency, and the cuts' directions. */
struct sphere_ref {
    int nf, nang, pec;
    double a;                       /* radius, cells */
    double complex eps[SCENE_MAX_FREQS], mu[SCENE_MAX_FREQS];
    double ka[SCENE_MAX_FREQS], ext[SCENE_MAX_FREQS];
    int orders[SCENE_MAX_FREQS];
    double *th, *ph;                /* [NCUT][nang] radians */
    double *exact;                  /* [nf][NCUT][nang] sigma / lambda^2 */
};

/* Per engine, frequency and cut. */
struct sphere_err {
    double rms, worst, worst_t; /* dB, dB (signed), degrees along the cut */
};

static int sphere_setup(const struct scene *s, struct sphere_ref *r, char *err, size_t errlen)
{
    if (s->source_type != SOURCE_PLANE_WAVE)
        return seterr(err, errlen, "%s: the Mie series needs a plane wave ([source] type = "
                      "plane_wave)", s->path);
    if (!s->far.on)
        return seterr(err, errlen, "%s: --analytic in 3D compares the far field of a sphere "
                      "with the Mie series: it needs a [monitor.far] section", s->path);
    if (s->nobjects != 1 || s->objects[0].shape != SHAPE_SPHERE)
        return seterr(err, errlen, "%s: the Mie series needs exactly one object, a sphere (the "
                      "scene has %d object%s%s)", s->path, s->nobjects,
                      s->nobjects == 1 ? "" : "s", s->nobjects == 1 ? ", not a sphere" : "");
    const struct scene_object *o = &s->objects[0];
    const struct scene_material *t = o->table >= 0 ? &s->materials[o->table] : NULL;
    if (!t && o->material == MATERIAL_VACUUM)
        return seterr(err, errlen, "%s: the sphere is vacuum: nothing to compare", s->path);
    r->pec = t ? t->is_pec : o->material == MATERIAL_PEC;
    r->nf = s->far.fr.n;
    r->nang = s->far.angles;
    r->a = o->radius;
    r->th = xcalloc(2 * NCUT * (size_t)r->nang, sizeof *r->th, "cut directions", err, errlen);
    r->exact = r->th ? xcalloc((size_t)r->nf * NCUT * (size_t)r->nang, sizeof *r->exact,
                               "exact RCS", err, errlen)
                     : NULL;
    struct mie_sphere *m = r->exact ? xcalloc(1, sizeof *m, "Mie series", err, errlen) : NULL;
    if (!m)
        return -1;
    r->ph = r->th + NCUT * r->nang;
    for (int c = 0; c < NCUT; c++)
        for (int q = 0; q < r->nang; q++)
            farfield3d_cut_angles(s, c, q, r->nang, &r->th[c * r->nang + q],
                                  &r->ph[c * r->nang + q]);
    const double angle = s->angle_deg * M_PI / 180.0;
    for (int k = 0; k < r->nf; k++) {
        const double f = s->far.fr.f[k];
        r->ka[k] = 2.0 * M_PI * f / s->cells_per_wavelength * r->a;
        r->eps[k] = t ? dispersion_scene_eps(t, 2.0 * M_PI * f * s->frequency_hz)
                      : (double complex)o->eps_r;
        r->mu[k] = t ? t->mu_r : 1.0;
        if (mie_init(m, r->ka[k], r->pec, r->eps[k], r->mu[k], err, errlen)) {
            free(m);
            return -1;
        }
        r->orders[k] = m->c.nmax;
        r->ext[k] = mie_extinction(m);
        for (int i = 0; i < NCUT * r->nang; i++)
            r->exact[(size_t)k * NCUT * r->nang + i] = mie_rcs_grid(m, angle, r->th[i], r->ph[i]);
    }
    free(m);
    return 0;
}

/* One engine's RCS on the cuts (rcs[nf][NCUT][nang]) and extinction
 * (ext[nf], over lambda^2). */
static int sphere_engine(const struct scene *s, const struct model *md, struct engine *e,
                         const struct sphere_ref *r, double *rcs, double *ext, char *err,
                         size_t errlen)
{
    if (!e->mon)
        return seterr(err, errlen, "the engine gives no far field (no monitors)");
    const double fwd_th = M_PI / 2, fwd_ph = s->angle_deg * M_PI / 180.0;
    for (int k = 0; k < r->nf; k++) {
        double complex amp[2];
        const double lam = s->cells_per_wavelength / s->far.fr.f[k];
        if (farfield3d_rcs(md, e->mon, k, NCUT * r->nang, r->th, r->ph,
                           rcs + (size_t)k * NCUT * r->nang, NULL, NULL, err, errlen)
            || farfield3d_reactions(md, e->mon, k, 1, &fwd_th, &fwd_ph, amp, err, errlen))
            return -1;
        ext[k] = -creal(amp[0]) / (lam * lam); /* farfield3d.h: theta-hat = -z forward */
    }
    return 0;
}

static void sphere_errors(const struct sphere_ref *r, const double *rcs, struct sphere_err *out)
{
    for (int k = 0; k < r->nf; k++)
        for (int c = 0; c < NCUT; c++) {
            struct sphere_err *e = &out[k * NCUT + c];
            const size_t base = ((size_t)k * NCUT + c) * r->nang;
            int q;
            cmp_db_errors(rcs + base, r->exact + base, r->nang, &e->rms, &e->worst, &q);
            e->worst_t = 360.0 * q / r->nang;
        }
}

static void sphere_header(FILE *f, const struct cmp_args *a, const struct scene *s,
                          const struct sphere_ref *r, const struct cmp_spec *spec,
                          struct engine **e, int n)
{
    cmp_write_heading(f, a, s, spec, e, n);
    const struct scene_object *o = &s->objects[0];
    fprintf(f, "# exact: Mie series (compare/mie.h), %s sphere, radius %.9g cells at (%.9g, "
               "%.9g, %.9g), incidence along %.9g deg, E along +z\n",
            r->pec ? "PEC" : "material", r->a, o->center_x, o->center_y, o->center_z,
            s->angle_deg);
    for (int k = 0; k < r->nf; k++) {
        fprintf(f, "# frequency %.10g Hz (%.9g f0, %.9g cells per wavelength): k a = %.9g, %d "
                   "orders",
                s->far.fr.f[k] * s->frequency_hz, s->far.fr.f[k],
                s->cells_per_wavelength / s->far.fr.f[k], r->ka[k], r->orders[k]);
        if (!r->pec)
            fprintf(f, ", eps = %.9g%+.9gi, mu = %.9g%+.9gi", creal(r->eps[k]),
                    cimag(r->eps[k]), creal(r->mu[k]), cimag(r->mu[k]));
        fprintf(f, "\n");
    }
    fprintf(f, "# far-field box: cells %d..%d x %d..%d x %d..%d, DFT over steps %d..%d; cuts "
               "and angles as core/farfield3d.h (t along the cut); err_db = 10 log10(engine / "
               "exact)\n",
            s->far.lo[0], s->far.hi[0], s->far.lo[1], s->far.hi[1], s->far.lo[2], s->far.hi[2],
            s->far.fr.start_step + 1, s->steps);
}

static int sphere_write(const char *outdir, const struct cmp_args *a, const struct scene *s,
                        const struct sphere_ref *r, const struct cmp_spec *spec,
                        struct engine **e, double **rcs, double **ext, struct sphere_err **fe,
                        int n, char *err, size_t errlen)
{
    for (int file = 0; file < 2; file++) {
        char *text = NULL, path[4200];
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
            return seterr(err, errlen, "cannot format the far-field comparison");
        sphere_header(f, a, s, r, spec, e, n);
        if (file == 0) {
            fprintf(f, "frequency_hz,cut,t_deg,theta_deg,phi_deg,exact_over_lambda2");
            for (int k = 0; k < n; k++)
                fprintf(f, ",%s_over_lambda2,%s_err_db", spec[k].label, spec[k].label);
            fprintf(f, "\n");
            for (int q = 0; q < r->nf; q++)
                for (int c = 0; c < NCUT; c++)
                    for (int p = 0; p < r->nang; p++) {
                        const size_t i = ((size_t)q * NCUT + c) * r->nang + p;
                        const int d = c * r->nang + p;
                        fprintf(f, "%.10g,%s,%.10g,%.10g,%.10g,%.10g",
                                s->far.fr.f[q] * s->frequency_hz, cut_name[c],
                                360.0 * p / r->nang, r->th[d] * 180.0 / M_PI,
                                fmod(r->ph[d] * 180.0 / M_PI + 720.0, 360.0), r->exact[i]);
                        for (int k = 0; k < n; k++)
                            fprintf(f, ",%.10g,%.6f", rcs[k][i],
                                    10.0 * log10(rcs[k][i] / r->exact[i]));
                        fprintf(f, "\n");
                    }
        } else {
            fprintf(f, "engine,frequency_hz,frequency_f0,ka,cut,angles,rms_db,worst_db,"
                       "worst_t_deg,extinction_over_lambda2,exact_extinction_over_lambda2\n");
            for (int k = 0; k < n; k++)
                for (int q = 0; q < r->nf; q++)
                    for (int c = 0; c < NCUT; c++) {
                        const struct sphere_err *x = &fe[k][q * NCUT + c];
                        fprintf(f, "%s,%.10g,%.9g,%.9g,%s,%d,%.6f,%.6f,%.10g,%.9g,%.9g\n",
                                spec[k].label, s->far.fr.f[q] * s->frequency_hz,
                                s->far.fr.f[q], r->ka[q], cut_name[c], r->nang, x->rms,
                                x->worst, x->worst_t, ext[k][q], r->ext[q]);
                    }
        }
        fclose(f);
        snprintf(path, sizeof path, "%s/%s", outdir,
                 file == 0 ? "far_compare.csv" : "far_errors.csv");
        const int w = write_file_atomic(path, text, len, err, errlen);
        free(text);
        if (w)
            return -1;
    }
    return 0;
}

static void sphere_print(const struct scene *s, const struct sphere_ref *r,
                         const struct cmp_spec *spec, double **ext, struct sphere_err **fe, int n)
{
    printf("exact Mie series: %s sphere, radius %g cells", r->pec ? "PEC" : "material", r->a);
    if (!r->pec)
        printf(" (at %g f0: eps = %.4g%+.4gi, mu = %.4g%+.4gi)", s->far.fr.f[0], creal(r->eps[0]),
               cimag(r->eps[0]), creal(r->mu[0]), cimag(r->mu[0]));
    printf("; RCS sigma / lambda^2 on the E-plane and H-plane cuts at %d points each, error "
           "10 log10(engine / exact); extinction (optical theorem) / lambda^2:\n", r->nang);
    printf("%-12s %8s %8s %10s %-8s %9s %9s %8s %11s %11s\n", "engine", "f/f0", "k a",
           "cells/wl", "cut", "rms dB", "worst dB", "at t", "extinction", "exact");
    for (int k = 0; k < n; k++)
        for (int q = 0; q < r->nf; q++)
            for (int c = 0; c < NCUT; c++) {
                const struct sphere_err *x = &fe[k][q * NCUT + c];
                printf("%-12s %8.4g %8.4g %10.4g %-8s %9.4f %+9.4f %8.5g", spec[k].label,
                       s->far.fr.f[q], r->ka[q], s->cells_per_wavelength / s->far.fr.f[q],
                       cut_name[c], x->rms, x->worst, x->worst_t);
                if (c == 0)
                    printf(" %11.6g %11.6g", ext[k][q], r->ext[q]);
                printf("\n");
            }
}

int compare_analytic_sphere(const struct cmp_args *a, struct scene *s)
{
    char err[ERRLEN];
    struct cmp_spec spec[CMP_MAX_ENGINES];
    const int n = cmp_parse_specs(a->engines ? a->engines : "cpu", spec, CMP_MAX_ENGINES, err,
                                  sizeof err);
    if (n < 0) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_BADINPUT;
    }
    if (a->has_max_rel) {
        fprintf(stderr, "texfdtd: %s: --max-rel limits the 2D DFT phasor's error; a 3D scene "
                        "compares the far field only (use --max-far-db)\n", s->path);
        return EXIT_BADINPUT;
    }
    struct sphere_ref r = {0};
    if (sphere_setup(s, &r, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        free(r.th);
        free(r.exact);
        return EXIT_BADINPUT;
    }
    struct model m;
    int rc = EXIT_RUNTIME;
    struct engine *e[CMP_MAX_ENGINES] = {0};
    double *rcs[CMP_MAX_ENGINES] = {0}, *ext[CMP_MAX_ENGINES] = {0};
    struct sphere_err *fe[CMP_MAX_ENGINES] = {0};
    if (model_build(&m, s, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        free(r.th);
        free(r.exact);
        return EXIT_RUNTIME;
    }
    char outdir[4096];
    snprintf(outdir, sizeof outdir, "%s", a->out ? a->out : "");
    if (!a->out)
        snprintf(outdir, sizeof outdir, "out/%s-compare", s->name);
    if ((rc = cmp_check_outdir(outdir, a->force)))
        goto out;
    rc = EXIT_RUNTIME;
    for (int q = 0; q < r.nf; q++)
        if (s->waveform == WAVEFORM_SINE && s->far.fr.f[q] != 1.0)
            log_warn("[monitor.far] frequency %g f0: a continuous wave has only f0; its result "
                     "is not meaningful (use a pulse, [source] waveform = modulated_gaussian)",
                     s->far.fr.f[q]);
    log_info("exact far field: Mie series, %s sphere, radius %g cells, k a = %.6g%s, %d points "
             "a cut; box cells %d..%d x %d..%d x %d..%d, DFT over steps %d..%d",
             r.pec ? "PEC" : "material", r.a, r.ka[0], r.nf > 1 ? " (first frequency)" : "",
             r.nang, s->far.lo[0], s->far.hi[0], s->far.lo[1], s->far.hi[1], s->far.lo[2],
             s->far.hi[2], s->far.fr.start_step + 1, s->steps);
    const size_t nv = (size_t)r.nf * NCUT * (size_t)r.nang;
    for (int k = 0; k < n; k++) {
        if (spec[k].denormals_auto)
            spec[k].denormals = DENORMALS_FLUSH;
        if (!(rcs[k] = xcalloc(nv, sizeof **rcs, "RCS", err, sizeof err))
            || !(ext[k] = xcalloc((size_t)r.nf, sizeof **ext, "extinction", err, sizeof err))
            || !(fe[k] = xcalloc((size_t)r.nf * NCUT, sizeof **fe, "RCS errors", err,
                                 sizeof err))
            || cmp_run_to_end(a, s, &m, &spec[k], &e[k], err, sizeof err)
            || sphere_engine(s, &m, e[k], &r, rcs[k], ext[k], err, sizeof err)) {
            fprintf(stderr, "texfdtd: %s: %s\n", spec[k].label, err);
            goto out;
        }
        sphere_errors(&r, rcs[k], fe[k]);
    }
    if (make_dirs(outdir, err, sizeof err)
        || sphere_write(outdir, a, s, &r, spec, e, rcs, ext, fe, n, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    sphere_print(s, &r, spec, ext, fe, n);
    log_info("wrote %s/far_compare.csv, far_errors.csv", outdir);
    rc = EXIT_OK;
    if (cmp_far_limit.on)
        for (int k = 0; k < n; k++)
            for (int q = 0; q < r.nf * NCUT; q++)
                if (!(fe[k][q].rms <= cmp_far_limit.db)) {
                    fprintf(stderr, "texfdtd: --max-far-db %g exceeded: %s, f = %g f0, %s: %.4f "
                                    "dB rms (worst %+.4f dB at t = %g deg)\n",
                            cmp_far_limit.db, spec[k].label, s->far.fr.f[q / NCUT],
                            cut_name[q % NCUT], fe[k][q].rms, fe[k][q].worst, fe[k][q].worst_t);
                    rc = EXIT_LIMIT;
                }
out:
    for (int k = 0; k < n; k++) {
        engine_destroy(e[k]);
        free(rcs[k]);
        free(ext[k]);
        free(fe[k]);
    }
    free(r.th);
    free(r.exact);
    model_free(&m);
    return rc;
}
