/* model.c - material map, coefficient table and incident-field slots. */
#define _GNU_SOURCE
#include "model.h"
#include "monitor.h"
#include "paint.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double cut_value(const struct model *m, size_t k, int n)
{
    const struct cut_edge *e = &m->cut[k];
    const size_t nx = (size_t)m->nx;
    const size_t hi = e->comp == 0 ? e->cell + nx : e->cell + 1;
    const double S = m->scene->courant;
    const double eq = model_incident(m, (double)(e->q % nx), (double)(e->q / nx), n);
    const double ehi = model_incident(m, (double)(hi % nx), (double)(hi / nx), n);
    const double elo = model_incident(m, (double)(e->cell % nx), (double)(e->cell / nx), n);
    return S * e->sigma * eq / e->d - S * (ehi - elo);
}

void model_cut_values_f(const struct model *m, int n, float *out)
{
    for (size_t k = 0; k < m->ncut; k++)
        out[k] = (float)cut_value(m, k, n);
}

void model_cut_values_d(const struct model *m, int n, double *out)
{
    for (size_t k = 0; k < m->ncut; k++)
        out[k] = cut_value(m, k, n);
}

/* Graded CPML profile at position x on an axis of n cells (Roden and Gedney
 * 2000; Taflove and Hagness, sec. 7.9): depth rho in [0, 1] from the inner
 * face to the wall,
 *   sigma = sigma_max rho^m,   kappa = 1 + (kappa_max - 1) rho^m,
 *   alpha = alpha_max (1 - rho),
 *   b = exp(-(sigma / kappa + alpha)),   c = sigma (b - 1) / (sigma kappa + kappa^2 alpha),
 * all in normalised units (sigma dt / eps0, alpha dt / eps0), where the
 * optimal sigma_max = 0.8 (m + 1) / (eta0 dx) becomes 0.8 (m + 1) S. */
static void pml_point(const struct scene *s, int n, double x, double *b, double *c, double *ik)
{
    const int N = s->cpml_cells;
    double rho = 0.0;
    if (x < (double)N)
        rho = ((double)N - x) / N;
    else if (x > (double)(n - 1 - N))
        rho = (x - (double)(n - 1 - N)) / N;
    rho = rho > 1.0 ? 1.0 : rho;
    const double m = s->cpml_order;
    const double sigma = s->cpml_sigma_factor * 0.8 * (m + 1.0) * s->courant * pow(rho, m);
    const double kappa = 1.0 + (s->cpml_kappa_max - 1.0) * pow(rho, m);
    const double alpha = s->cpml_alpha_max * (1.0 - rho);
    *b = exp(-(sigma / kappa + alpha));
    *c = sigma > 0.0 ? sigma * (*b - 1.0) / (sigma * kappa + kappa * kappa * alpha) : 0.0;
    *ik = 1.0 / kappa;
}

static int pml_axis_build(struct pml_axis *a, const struct scene *s, int n, double offset,
                          char *err, size_t errlen)
{
    a->b = xcalloc((size_t)n, sizeof(double), "CPML profile", err, errlen);
    a->c = xcalloc((size_t)n, sizeof(double), "CPML profile", err, errlen);
    a->ik = xcalloc((size_t)n, sizeof(double), "CPML profile", err, errlen);
    a->bf = xcalloc((size_t)n, sizeof(float), "CPML profile", err, errlen);
    a->cf = xcalloc((size_t)n, sizeof(float), "CPML profile", err, errlen);
    a->ikf = xcalloc((size_t)n, sizeof(float), "CPML profile", err, errlen);
    if (!a->b || !a->c || !a->ik || !a->bf || !a->cf || !a->ikf)
        return -1;
    for (int i = 0; i < n; i++) {
        pml_point(s, n, (double)i + offset, &a->b[i], &a->c[i], &a->ik[i]);
        a->bf[i] = (float)a->b[i];
        a->cf[i] = (float)a->c[i];
        a->ikf[i] = (float)a->ik[i];
    }
    return 0;
}

static void pml_axis_free(struct pml_axis *a)
{
    free(a->b);
    free(a->c);
    free(a->ik);
    free(a->bf);
    free(a->cf);
    free(a->ikf);
    memset(a, 0, sizeof *a);
}

int model_check_materials(const struct scene *s, char *err, size_t errlen)
{
    for (int k = 0; k < s->nmaterials; k++) {
        const struct scene_material *t = &s->materials[k];
        if (!t->used)
            continue;
        if (t->where_mu[0])
            return seterr(err, errlen, "%s: material %s: mu_r = %g (a magnetic material) is not "
                          "supported yet: the engines take PEC and lossless, non-magnetic, "
                          "non-dispersive dielectrics", t->where_mu, t->name, t->mu_r);
        if (t->where_poles[0])
            return seterr(err, errlen, "%s: material %s: %d dispersion pole%s (Debye, Lorentz, "
                          "Drude) %s not supported yet: the engines take PEC and lossless, "
                          "non-magnetic, non-dispersive dielectrics", t->where_poles, t->name,
                          t->npoles, t->npoles == 1 ? "" : "s", t->npoles == 1 ? "is" : "are");
    }
    return 0;
}

int model_build(struct model *m, const struct scene *s, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->scene = s;
    m->nx = s->nx;
    m->ny = s->ny;
    m->nz = s->nz;
    m->ncells = (size_t)s->nx * (size_t)s->ny * (size_t)s->nz;
    m->ch = s->courant;
    m->ch_f = (float)m->ch;
    if (paint_material(m, MATERIAL_VACUUM, 1.0, 0.0, err, errlen) < 0)
        return -1;

    m->mat = xcalloc(m->ncells, 1, "material map", err, errlen);
    if (!m->mat)
        return -1;
    if (model_check_materials(s, err, errlen) || paint_objects(m, err, errlen))
        goto fail;
    if (s->conformal_pec && paint_cut_edges(m, err, errlen))
        goto fail;
    for (size_t c = 0; c < m->ncells; c++)
        m->nslots += m->mat[c] != 0;
    m->slot_cell = xcalloc(m->nslots, sizeof *m->slot_cell, "source slots", err, errlen);
    if (!m->slot_cell)
        goto fail;
    for (size_t c = 0, k = 0; c < m->ncells; c++)
        if (m->mat[c])
            m->slot_cell[k++] = c;

    /* The wave front enters at the grid corner it meets first. */
    const double th = s->angle_deg * M_PI / 180.0;
    m->cos_t = cos(th);
    m->sin_t = sin(th);
    const double xs[2] = {0.0, (double)(m->nx - 1)}, ys[2] = {0.0, (double)(m->ny - 1)};
    m->d0 = INFINITY;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            m->d0 = fmin(m->d0, xs[a] * m->cos_t + ys[b] * m->sin_t);
    m->d0 += s->front_offset;
    m->mur_k = (s->courant - 1.0) / (s->courant + 1.0);
    m->mur_k_f = (float)m->mur_k;
    if (s->boundary == BOUNDARY_CPML) {
        m->pml_n = s->cpml_cells;
        if (pml_axis_build(&m->pml_xe, s, m->nx, 0.0, err, errlen)
            || pml_axis_build(&m->pml_xh, s, m->nx, 0.5, err, errlen)
            || pml_axis_build(&m->pml_ye, s, m->ny, 0.0, err, errlen)
            || pml_axis_build(&m->pml_yh, s, m->ny, 0.5, err, errlen)
            || (m->nz > 1 && (pml_axis_build(&m->pml_ze, s, m->nz, 0.0, err, errlen)
                              || pml_axis_build(&m->pml_zh, s, m->nz, 0.5, err, errlen))))
            goto fail;
    }
    m->omega_dt = scene_omega_dt(s);
    m->ramp_steps = s->ramp_periods * s->cells_per_wavelength / s->courant;
    m->amplitude = s->amplitude;
    const double f0 = s->courant / s->cells_per_wavelength; /* cycles per step */
    if (s->waveform == WAVEFORM_GAUSSIAN)
        m->pulse_tau = sqrt(log(2.0)) / (M_PI * s->bandwidth * f0);
    else if (s->waveform == WAVEFORM_MODULATED_GAUSSIAN)
        m->pulse_tau = 2.0 * sqrt(log(2.0)) / (M_PI * s->bandwidth * f0);
    else if (s->waveform == WAVEFORM_RICKER)
        m->pulse_tau = 1.0 / (M_PI * f0);
    m->pulse_t0 = 5.0 * m->pulse_tau;
    if (monitor_plan_build(m, err, errlen))
        goto fail;
    return 0;
fail:
    model_free(m);
    return -1;
}

void model_free(struct model *m)
{
    monitor_plan_free(m);
    free(m->mat);
    free(m->slot_cell);
    free(m->cut);
    free(m->cut_row);
    m->cut = NULL;
    m->cut_row = NULL;
    pml_axis_free(&m->pml_xe);
    pml_axis_free(&m->pml_xh);
    pml_axis_free(&m->pml_ye);
    pml_axis_free(&m->pml_yh);
    pml_axis_free(&m->pml_ze);
    pml_axis_free(&m->pml_zh);
    m->mat = NULL;
    m->slot_cell = NULL;
}

double model_waveform(const struct model *m, double s)
{
    if (s <= 0.0)
        return 0.0;
    const double u = (s - m->pulse_t0) / m->pulse_tau;
    switch (m->scene->waveform) {
    case WAVEFORM_GAUSSIAN:
        return m->amplitude * exp(-u * u);
    case WAVEFORM_MODULATED_GAUSSIAN:
        return m->amplitude * exp(-u * u) * sin(m->omega_dt * (s - m->pulse_t0));
    case WAVEFORM_RICKER:
        return m->amplitude * (1.0 - 2.0 * u * u) * exp(-u * u);
    case WAVEFORM_SINE:
        break;
    }
    const double r = (m->ramp_steps > 0.0 && s < m->ramp_steps) ? s / m->ramp_steps : 1.0;
    return m->amplitude * r * sin(m->omega_dt * s);
}

double model_incident(const struct model *m, double i, double j, double n)
{
    if (m->scene->source_type != SOURCE_PLANE_WAVE)
        return 0.0;
    const double tau = (i * m->cos_t + j * m->sin_t - m->d0) / m->scene->courant;
    return model_waveform(m, n - tau);
}

double model_point_value(const struct model *m, int n)
{
    const struct scene *s = m->scene;
    if (s->source_type != SOURCE_POINT)
        return 0.0;
    const double t = (double)n + 1.0;
    if (s->waveform == WAVEFORM_GAUSSIAN) {
        const double w = s->pulse_width, a = (t - 4.0 * w) / w;
        return m->amplitude * exp(-a * a);
    }
    const double r = (m->ramp_steps > 0.0 && t < m->ramp_steps) ? t / m->ramp_steps : 1.0;
    return m->amplitude * r * sin(m->omega_dt * t);
}

size_t model_point_cell(const struct model *m)
{
    const struct scene *s = m->scene;
    const size_t i = (size_t)lround(s->point_x), j = (size_t)lround(s->point_y);
    const size_t k = m->nz > 1 ? (size_t)lround(s->point_z) : 0;
    return i + (size_t)m->nx * (j + (size_t)m->ny * k);
}

/* The one place the slot values are computed, in double. */
static double slot_value(const struct model *m, size_t k, int n)
{
    const size_t c = m->slot_cell[k];
    const double i = (double)(c % (size_t)m->nx), j = (double)(c / (size_t)m->nx % (size_t)m->ny);
    const struct material *t = &m->mats[m->mat[c]];
    const double e1 = model_incident(m, i, j, (double)n + 1.0);
    if (t->kind == MATERIAL_PEC)
        return -e1;
    const double e0 = model_incident(m, i, j, (double)n);
    if (t->sigma != 0.0)
        return t->cinc_diff * (e1 - e0) + t->cinc_sum * (e1 + e0);
    return t->cinc * (e1 - e0);
}

void model_slot_values_f(const struct model *m, int n, float *out)
{
    for (size_t k = 0; k < m->nslots; k++)
        out[k] = (float)slot_value(m, k, n);
}

void model_slot_values_d(const struct model *m, int n, double *out)
{
    for (size_t k = 0; k < m->nslots; k++)
        out[k] = slot_value(m, k, n);
}

void model_slot_range_f(const struct model *m, int n, size_t first, size_t count, float *out)
{
    for (size_t k = 0; k < count; k++)
        out[k] = (float)slot_value(m, first + k, n);
}

void model_slot_range_d(const struct model *m, int n, size_t first, size_t count, double *out)
{
    for (size_t k = 0; k < count; k++)
        out[k] = slot_value(m, first + k, n);
}

void model_dft_weight_k(const struct model *m, int k, int n, double *re, double *im)
{
    const struct scene *s = m->scene;
    const double scale = 2.0 / (m->amplitude * (double)(s->steps - s->dft_start));
    const double w = s->dft_nfreq > 0 ? m->omega_dt * s->dft_freq[k] : m->omega_dt;
    *re = scale * cos(w * (double)n);
    *im = -scale * sin(w * (double)n);
}

void model_dft_weight(const struct model *m, int n, double *re, double *im)
{
    model_dft_weight_k(m, 0, n, re, im);
}

size_t model_field_bytes(const struct model *m, size_t elem_size)
{
    return 3 * m->ncells * elem_size;
}
