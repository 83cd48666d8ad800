/* model.c - material map, coefficient table and incident-field slots. */
#define _GNU_SOURCE
#include "model.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int material_index(struct model *m, enum material_kind kind, double eps_r, char *err,
                          size_t errlen)
{
    for (int k = 0; k < m->nmats; k++)
        if (m->mats[k].kind == kind && m->mats[k].eps_r == eps_r)
            return k;
    if (m->nmats == MODEL_MAX_MATERIALS)
        return seterr(err, errlen, "more than %d distinct materials", MODEL_MAX_MATERIALS);
    struct material *t = &m->mats[m->nmats];
    const double S = m->scene->courant;
    t->kind = kind;
    t->eps_r = eps_r;
    t->cezh = kind == MATERIAL_PEC ? 0.0 : S / eps_r;
    t->cezh_f = (float)t->cezh;
    t->cinc = kind == MATERIAL_DIELECTRIC ? -(1.0 - 1.0 / eps_r) : 0.0;
    return m->nmats++;
}

/* Cell centre (i, j) is inside the object: the rule every engine inherits. */
static int inside(const struct scene_object *o, int i, int j)
{
    const double dx = (double)i - o->center_x, dy = (double)j - o->center_y;
    if (o->shape == SHAPE_RECTANGLE)
        return fabs(dx) <= 0.5 * o->width && fabs(dy) <= 0.5 * o->height;
    return dx * dx + dy * dy <= o->radius * o->radius;
}

int model_build(struct model *m, const struct scene *s, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->scene = s;
    m->nx = s->nx;
    m->ny = s->ny;
    m->ncells = (size_t)s->nx * (size_t)s->ny;
    m->ch = s->courant;
    m->ch_f = (float)m->ch;
    if (material_index(m, MATERIAL_VACUUM, 1.0, err, errlen) < 0)
        return -1;

    m->mat = xcalloc(m->ncells, 1, "material map", err, errlen);
    if (!m->mat)
        return -1;
    for (int k = 0; k < s->nobjects; k++) {
        const struct scene_object *o = &s->objects[k];
        int idx = material_index(m, o->material, o->material == MATERIAL_PEC ? 0.0 : o->eps_r,
                                 err, errlen);
        if (idx < 0)
            goto fail;
        const double hx = o->shape == SHAPE_RECTANGLE ? 0.5 * o->width : o->radius;
        const double hy = o->shape == SHAPE_RECTANGLE ? 0.5 * o->height : o->radius;
        int i0 = (int)ceil(o->center_x - hx), i1 = (int)floor(o->center_x + hx);
        int j0 = (int)ceil(o->center_y - hy), j1 = (int)floor(o->center_y + hy);
        for (int j = j0; j <= j1; j++)
            for (int i = i0; i <= i1; i++)
                if (inside(o, i, j))
                    m->mat[(size_t)i + (size_t)j * (size_t)m->nx] = (uint8_t)idx;
    }

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
    m->omega_dt = scene_omega_dt(s);
    m->ramp_steps = s->ramp_periods * s->cells_per_wavelength / s->courant;
    m->amplitude = s->amplitude;
    return 0;
fail:
    model_free(m);
    return -1;
}

void model_free(struct model *m)
{
    free(m->mat);
    free(m->slot_cell);
    m->mat = NULL;
    m->slot_cell = NULL;
}

double model_incident(const struct model *m, double i, double j, double n)
{
    const double tau = (i * m->cos_t + j * m->sin_t - m->d0) / m->scene->courant;
    const double s = n - tau;
    if (s <= 0.0)
        return 0.0;
    const double r = (m->ramp_steps > 0.0 && s < m->ramp_steps) ? s / m->ramp_steps : 1.0;
    return m->amplitude * r * sin(m->omega_dt * s);
}

/* The one place the slot values are computed, in double. */
static double slot_value(const struct model *m, size_t k, int n)
{
    const size_t c = m->slot_cell[k];
    const double i = (double)(c % (size_t)m->nx), j = (double)(c / (size_t)m->nx);
    const struct material *t = &m->mats[m->mat[c]];
    const double e1 = model_incident(m, i, j, (double)n + 1.0);
    if (t->kind == MATERIAL_PEC)
        return -e1;
    return t->cinc * (e1 - model_incident(m, i, j, (double)n));
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

void model_dft_weight(const struct model *m, int n, double *re, double *im)
{
    const struct scene *s = m->scene;
    const double scale = 2.0 / (m->amplitude * (double)(s->steps - s->dft_start));
    *re = scale * cos(m->omega_dt * (double)n);
    *im = -scale * sin(m->omega_dt * (double)n);
}

size_t model_field_bytes(const struct model *m, size_t elem_size)
{
    return 3 * m->ncells * elem_size;
}
