/* cpu3d.c - the 3D CPU engine: full-vector Yee FDTD in float or double, the
 * reference the CUDA 3D engine is checked against.
 *
 * The update, its staggering and its exact operation order are in
 * update3d.inc.  This file owns the arrays (six fields, CPML psi only inside
 * the slabs, Mur's saved planes), the denormal mode and the engine interface.
 * Registered as "cpu" with ENGINE_CAP_3D: `--engine cpu` runs 3D scenes here.
 */
#define _GNU_SOURCE
#include "core/engine.h"
#include "core/util.h"
#include "cpucommon.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xmmintrin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* psi arrays: component, then the axis of its derivative */
enum { PSI_EXY, PSI_EXZ, PSI_EYX, PSI_EYZ, PSI_EZX, PSI_EZY,
       PSI_HXY, PSI_HXZ, PSI_HYX, PSI_HYZ, PSI_HZX, PSI_HZY, PSI_COUNT };
/* the axis (0 x, 1 y, 2 z) each psi array belongs to */
static const int psi_axis[PSI_COUNT] = {1, 2, 0, 2, 0, 1, 1, 2, 0, 2, 0, 1};

/* One Mur plane: the tangential component comp (0 Ex, 1 Ey, 2 Ez) on one
 * outer face; wall cell w = base + a*sa + b*sb for a0 <= a <= a1,
 * b0 <= b <= b1; its neighbour is w + step (inward > 0) or w - step. */
struct mur_plane {
    int comp, inward;
    size_t base, sa, sb, step;
    int a0, a1, b0, b1;
};
#define MUR_PLANES 12

struct cpu3d_fields {
    void *ex, *ey, *ez, *hx, *hy, *hz; /* REAL[nz][ny][nx] each */
    void *psi[PSI_COUNT];
    struct mur_plane mur[MUR_PLANES];
    void *mur_old[MUR_PLANES];
};

struct cpu3d_engine {
    struct engine base;
    struct cpu3d_fields f;
    void *slot_v;
    float cezh_f[MODEL_MAX_MATERIALS];
    double cezh_d[MODEL_MAX_MATERIALS];
    int threads;
};

#define REAL float
#define SUFFIX _f
#include "update3d.inc"
#undef REAL
#undef SUFFIX
#define REAL double
#define SUFFIX _d
#include "update3d.inc"
#undef REAL
#undef SUFFIX

/* The 12 Mur planes: x faces Ey, Ez; y faces Ex, Ez; z faces Ex, Ey, each
 * over the component's interior update range on the other two axes. */
static void mur_planes(struct mur_plane *p, int nx, int ny, int nz)
{
    const size_t s[3] = {1, (size_t)nx, (size_t)nx * (size_t)ny};
    const int n[3] = {nx, ny, nz};
    /* interior range of component c along axis a: the component's own axis
     * runs 0 .. n-2, the others 1 .. n-2 */
    int q = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int c = 0; c < 3; c++) {
            if (c == axis)
                continue;
            const int a = (axis + 1) % 3, b = (axis + 2) % 3; /* the other two axes */
            for (int side = 0; side < 2; side++, q++) {
                struct mur_plane *m = &p[q];
                m->comp = c;
                m->inward = side == 0 ? 1 : -1;
                m->base = side == 0 ? 0 : (size_t)(n[axis] - 1) * s[axis];
                m->step = s[axis];
                m->sa = s[a];
                m->sb = s[b];
                m->a0 = a == c ? 0 : 1;
                m->a1 = n[a] - 2;
                m->b0 = b == c ? 0 : 1;
                m->b1 = n[b] - 2;
            }
        }
}

static void cpu3d_destroy(struct engine *e)
{
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    free(c->f.ex);
    free(c->f.ey);
    free(c->f.ez);
    free(c->f.hx);
    free(c->f.hy);
    free(c->f.hz);
    for (int k = 0; k < PSI_COUNT; k++)
        free(c->f.psi[k]);
    for (int k = 0; k < MUR_PLANES; k++)
        free(c->f.mur_old[k]);
    free(c->slot_v);
    free(c);
}

/* psi elements of one array along an axis: 2 sides x N x the face's cells */
static size_t psi_elems(const struct model *m, int axis)
{
    const size_t nx = (size_t)m->nx, ny = (size_t)m->ny, nz = (size_t)m->nz, N = (size_t)m->pml_n;
    return 2 * N * (axis == 0 ? ny * nz : axis == 1 ? nx * nz : nx * ny);
}

static int cpu3d_create(const struct model *m, const struct engine_options *o, struct engine **out,
                        char *err, size_t errlen)
{
    if (m->nz < 2)
        return seterr(err, errlen, "cpu 3D engine: the scene is 2D (nz = 1)");
    struct cpu3d_engine *c = xcalloc(1, sizeof *c, "cpu3d engine", err, errlen);
    if (!c)
        return -1;
    const size_t elem = precision_size(o->precision);
    void **fields[6] = {&c->f.ex, &c->f.ey, &c->f.ez, &c->f.hx, &c->f.hy, &c->f.hz};
    for (int k = 0; k < 6; k++)
        if (!(*fields[k] = cpu_alloc_field(m->ncells, elem, "3D field", err, errlen)))
            goto fail;
    if (m->pml_n)
        for (int k = 0; k < PSI_COUNT; k++)
            if (!(c->f.psi[k] = cpu_alloc_field(psi_elems(m, psi_axis[k]), elem, "CPML psi", err, errlen)))
                goto fail;
    if (m->scene->boundary == BOUNDARY_MUR) {
        mur_planes(c->f.mur, m->nx, m->ny, m->nz);
        for (int k = 0; k < MUR_PLANES; k++) {
            const struct mur_plane *p = &c->f.mur[k];
            const size_t n = (size_t)(p->a1 - p->a0 + 1) * (size_t)(p->b1 - p->b0 + 1);
            if (!(c->f.mur_old[k] = cpu_alloc_field(n, elem, "Mur planes", err, errlen)))
                goto fail;
        }
    }
    if (!(c->slot_v = xcalloc(m->nslots ? m->nslots : 1, elem, "slot values", err, errlen)))
        goto fail;
    for (int k = 0; k < m->nmats; k++) {
        c->cezh_f[k] = m->mats[k].cezh_f;
        c->cezh_d[k] = m->mats[k].cezh;
    }
    c->threads = o->threads;
#ifdef _OPENMP
    if (c->threads <= 0)
        c->threads = omp_get_max_threads();
#else
    c->threads = 1;
#endif
    *out = &c->base;
    return 0;
fail:
    cpu3d_destroy(&c->base);
    return -1;
}

static int cpu3d_step(struct engine *e, int n, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    const struct model *m = e->model;
    const unsigned saved_csr = _mm_getcsr();
#ifdef _OPENMP
    omp_set_num_threads(c->threads);
#endif
    const bool point = m->scene->source_type == SOURCE_POINT;
    const size_t pc = point ? model_point_cell(m) : 0;
    for (int k = 0; k < n; k++) {
        const int t = e->step + k;
        _mm_setcsr(saved_csr); /* slot values in IEEE mode, as in 2D */
        if (e->opt.precision == PRECISION_SINGLE) {
            model_slot_values_f(m, t, c->slot_v);
            sweep_f(&c->f, m, m->ch_f, c->cezh_f, m->mur_k_f, e->opt.denormals);
            cpu_set_denormal_mode(e->opt.denormals);
            apply_slots_f(c->f.ez, m, c->slot_v);
            if (point) {
                float *ez = c->f.ez;
                ez[pc] = ez[pc] + (float)model_point_value(m, t);
            }
        } else {
            model_slot_values_d(m, t, c->slot_v);
            sweep_d(&c->f, m, m->ch, c->cezh_d, m->mur_k, e->opt.denormals);
            cpu_set_denormal_mode(e->opt.denormals);
            apply_slots_d(c->f.ez, m, c->slot_v);
            if (point) {
                double *ez = c->f.ez;
                ez[pc] = ez[pc] + model_point_value(m, t);
            }
        }
    }
    _mm_setcsr(saved_csr);
    return 0;
}

static void *cpu3d_field(struct cpu3d_engine *c, enum field f)
{
    switch (f) {
    case FIELD_EX: return c->f.ex;
    case FIELD_EY: return c->f.ey;
    case FIELD_EZ: return c->f.ez;
    case FIELD_HX: return c->f.hx;
    case FIELD_HY: return c->f.hy;
    case FIELD_HZ: return c->f.hz;
    default: return NULL;
    }
}

static int cpu3d_read_field(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    const void *src = cpu3d_field((struct cpu3d_engine *)e, f);
    if (!src)
        return seterr(err, errlen, "cpu 3D engine: no field %s (3D has ex ey ez hx hy hz)",
                      field_name(f));
    memcpy(dst, src, e->model->ncells * precision_size(e->opt.precision));
    return 0;
}

static int cpu3d_write_field(struct engine *e, enum field f, const void *src, char *err,
                             size_t errlen)
{
    void *dst = cpu3d_field((struct cpu3d_engine *)e, f);
    if (!dst)
        return seterr(err, errlen, "cpu 3D engine: no field %s", field_name(f));
    memcpy(dst, src, e->model->ncells * precision_size(e->opt.precision));
    return 0;
}

/* The lowest index q < n with p[q] NaN or Inf, or n if every value is
 * finite: a min reduction over threads, so the answer does not depend on
 * their number. */
static size_t first_bad_f(const float *p, size_t n, int threads)
{
    size_t first = n;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first)
    for (size_t q = 0; q < n; q++)
        if (!isfinite(p[q]) && q < first)
            first = q;
    return first;
}

static size_t first_bad_d(const double *p, size_t n, int threads)
{
    size_t first = n;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first)
    for (size_t q = 0; q < n; q++)
        if (!isfinite(p[q]) && q < first)
            first = q;
    return first;
}

/* The six fields in scene_fields() order, scanned in place; the first bad
 * field in that order and the lowest cell in it. */
static int cpu3d_check_finite(struct engine *e, enum field *f, size_t *cell, char *err,
                              size_t errlen)
{
    (void)err;
    (void)errlen;
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    const size_t n = e->model->ncells;
    enum field order[6];
    const int nf = scene_fields(e->model->scene, order);
    for (int k = 0; k < nf; k++) {
        const void *p = cpu3d_field(c, order[k]);
        const size_t q = e->opt.precision == PRECISION_DOUBLE ? first_bad_d(p, n, c->threads)
                                                              : first_bad_f(p, n, c->threads);
        if (q < n) {
            *f = order[k];
            *cell = q;
            return 1;
        }
    }
    return 0;
}

static void cpu3d_describe(const struct engine *e, struct engine_info *info)
{
    const struct cpu3d_engine *c = (const struct cpu3d_engine *)e;
    snprintf(info->engine, sizeof info->engine, "cpu");
    char name[200];
    cpu_model_name(name, sizeof name);
    snprintf(info->device, sizeof info->device, "%s, %d thread%s", name, c->threads,
             c->threads == 1 ? "" : "s");
    snprintf(info->detail, sizeof info->detail, "3D Yee, denormals %s",
             denormals_name(e->opt.denormals));
}

/* The checkpointed state: the six fields and the CPML psi, in place
 * (Mur's saved planes are scratch within a step). */
static int cpu3d_state(struct engine *e, struct state_io *io, char *err, size_t errlen)
{
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    const struct model *m = e->model;
    static const char *const fields[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};
    void *const data[6] = {c->f.ex, c->f.ey, c->f.ez, c->f.hx, c->f.hy, c->f.hz};
    static const char *const psi[PSI_COUNT] = {"psi_exy", "psi_exz", "psi_eyx", "psi_eyz",
                                               "psi_ezx", "psi_ezy", "psi_hxy", "psi_hxz",
                                               "psi_hyx", "psi_hyz", "psi_hzx", "psi_hzy"};
    for (int k = 0; k < 6; k++)
        if (io->array(io, fields[k], data[k], m->ncells, err, errlen))
            return -1;
    for (int k = 0; k < PSI_COUNT && m->pml_n; k++)
        if (io->array(io, psi[k], c->f.psi[k], psi_elems(m, psi_axis[k]), err, errlen))
            return -1;
    return 0;
}

const struct engine_ops cpu3d_engine_ops = {
    .name = "cpu",
    .caps = ENGINE_CAP_3D | ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_POINT,
    .summary = "3D, plain C, float or double, OpenMP over z planes",
    .create = cpu3d_create,
    .step = cpu3d_step,
    .read_field = cpu3d_read_field,
    .write_field = cpu3d_write_field,
    .check_finite = cpu3d_check_finite,
    .state = cpu3d_state,
    .describe = cpu3d_describe,
    .destroy = cpu3d_destroy,
};
