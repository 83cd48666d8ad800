/* engine.c - the engine registry and thin wrappers around engine_ops. */
#include "engine.h"
#include "monitor.h"
#include "util.h"

_Static_assert((int)FIELD_EZ_BIT == (int)FIELD_EZ && (int)FIELD_HX_BIT == (int)FIELD_HX
                   && (int)FIELD_HY_BIT == (int)FIELD_HY && (int)FIELD_EX_BIT == (int)FIELD_EX
                   && (int)FIELD_EY_BIT == (int)FIELD_EY && (int)FIELD_HZ_BIT == (int)FIELD_HZ,
               "core/scene.h's probe field bits are the values of enum field");

#include <stdbool.h>
#include <string.h>

extern const struct engine_ops cpu_engine_ops;
#ifdef TEXFDTD_HAVE_CPU3D
extern const struct engine_ops cpu3d_engine_ops;
#endif
#ifdef TEXFDTD_HAVE_CUDA
extern const struct engine_ops cuda_engine_ops;
extern const struct engine_ops cuda3d_engine_ops;
#endif
#ifdef TEXFDTD_HAVE_GL
extern const struct engine_ops gl_engine_ops;
extern const struct engine_ops gl_compute_engine_ops;
#endif

static const struct engine_ops *const engines[] = {
    &cpu_engine_ops,
#ifdef TEXFDTD_HAVE_CPU3D
    &cpu3d_engine_ops,
#endif
#ifdef TEXFDTD_HAVE_CUDA
    &cuda_engine_ops,
    &cuda3d_engine_ops,
#endif
#ifdef TEXFDTD_HAVE_GL
    &gl_engine_ops,
    &gl_compute_engine_ops,
#endif
    NULL,
};

const struct engine_ops *const *engine_list(void) { return engines; }

const struct engine_ops *engine_find(const char *name, int dims)
{
    for (int i = 0; engines[i]; i++) {
        const int d = engines[i]->caps & ENGINE_CAP_3D ? 3 : 2;
        if (!strcmp(engines[i]->name, name) && (dims == 0 || dims == d))
            return engines[i];
    }
    return NULL;
}

/* The first feature of m's scene that engine ops cannot run (its
 * description), or NULL when ops takes the scene. */
static const char *missing_cap(const struct engine_ops *ops, const struct model *m)
{
    const struct scene *s = m->scene;
    const struct {
        bool needed;
        unsigned cap;
        const char *what;
    } need[] = {
        {s->boundary == BOUNDARY_CPML, ENGINE_CAP_CPML, "[boundary] type = cpml"},
        {s->boundary == BOUNDARY_MUR, ENGINE_CAP_MUR, "[boundary] type = mur"},
        {s->dft, ENGINE_CAP_DFT, "[monitor.dft]"},
        {s->dft && s->dft_nfreq > 1, ENGINE_CAP_DFT_MULTI, "[monitor.dft] at several frequencies"},
        {s->source_type == SOURCE_POINT, ENGINE_CAP_POINT, "[source] type = point"},
        {s->conformal_pec, ENGINE_CAP_CONFORMAL, "[grid] conformal_pec"},
        {s->far.on, ENGINE_CAP_MONITORS, "[monitor.far]"},
        {s->nflux > 0, ENGINE_CAP_MONITORS, "[monitor.flux.NAME]"},
        {s->nprobes > 0, ENGINE_CAP_MONITORS, "[probe.NAME]"},
        {s->te, ENGINE_CAP_TE, "[grid] polarization = te"},
        {s->te && s->conformal_pec, ENGINE_CAP_TE_CONFORMAL,
         "[grid] conformal_pec with polarization = te"},
        {m->magnetic != 0, ENGINE_CAP_MAGNETIC, "materials with mu_r != 1"},
        {m->lossy, ENGINE_CAP_LOSSY, "a lossy material (sigma != 0)"},
        {m->dispersive, ENGINE_CAP_DISPERSIVE, "a dispersive material (Debye, Lorentz, Drude poles)"},
        {s->te && m->lossy, ENGINE_CAP_TE_LOSSY,
         "a lossy material (sigma != 0) in TE ([grid] polarization = te)"},
        {s->te && m->dispersive, ENGINE_CAP_TE_DISPERSIVE,
         "a dispersive material (Debye, Lorentz, Drude poles) in TE ([grid] polarization = te)"},
        {m->nhoff > 0, ENGINE_CAP_TE_OFFDIAG,
         "TE subpixel smoothing's off-diagonal (eps^-1)_xy (set [grid] te_offdiagonal = false "
         "for the diagonal only)"},
    };
    for (size_t k = 0; k < sizeof need / sizeof *need; k++)
        if (need[k].needed && !(ops->caps & need[k].cap))
            return need[k].what;
    return NULL;
}

const char *engine_refuses(const char *name, const struct model *m)
{
    const struct engine_ops *ops = engine_find(name, m->nz > 1 ? 3 : 2);
    if (!ops)
        return m->nz > 1 ? "3D scenes" : "2D scenes";
    return missing_cap(ops, m);
}

int engine_create(const char *name, const struct model *m, const struct engine_options *o,
                  struct engine **out, char *err, size_t errlen)
{
    const struct engine_ops *ops = engine_find(name, 0);
    *out = NULL;
    if (ops && m && !(ops = engine_find(name, m->nz > 1 ? 3 : 2)))
        return seterr(err, errlen, "engine %s cannot run %s scenes in this build", name,
                      m->nz > 1 ? "3D" : "2D");
    if (!ops) {
        char list[256] = "";
        for (int i = 0; engines[i]; i++) {
            strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
            strncat(list, engines[i]->name, sizeof list - strlen(list) - 1);
        }
        return seterr(err, errlen, "unknown engine '%s': this build has %s", name, list);
    }
    const char *what = missing_cap(ops, m);
    if (what) {
        const struct engine_ops *cpu = engine_find("cpu", m->nz > 1 ? 3 : 2);
        if (cpu && !missing_cap(cpu, m))
            return seterr(err, errlen, "engine %s does not support %s; use --engine cpu", name,
                          what);
        return seterr(err, errlen, "engine %s does not support %s in %s scenes", name, what,
                      m->nz > 1 ? "3D" : "2D");
    }
    struct monitors *mon = NULL;
    if (m->plan && !(mon = monitors_create(m, o->precision, err, errlen)))
        return -1;
    if (ops->create(m, o, out, err, errlen)) {
        monitors_free(mon);
        return -1;
    }
    (*out)->ops = ops;
    (*out)->model = m;
    (*out)->opt = *o;
    (*out)->step = 0;
    (*out)->mon = mon;
    return 0;
}

/* With monitors: batches of at most sample_rows steps, each one's samples
 * read, then summed on the host while the device runs the next batch
 * (step() only queues work on the GPU engines); the sums see the batches in
 * step order, so the bits do not depend on the overlap. */
int engine_step(struct engine *e, int n, char *err, size_t errlen)
{
    if (!e->mon) {
        if (n > 0 && e->ops->step(e, n, err, errlen))
            return -1;
        e->step += n > 0 ? n : 0;
        return 0;
    }
    const int batch = e->model->sample_rows;
    int pend_first = 0, pend = 0;
    while (n > 0) {
        const int k = n < batch ? n : batch;
        if (e->ops->step(e, k, err, errlen))
            return -1;
        if (pend) /* the previous batch, while this one runs */
            monitors_consume(e->mon, pend_first, pend);
        if (e->ops->read_samples(e, monitors_rows_next(e->mon), k, err, errlen))
            return -1;
        monitors_flip(e->mon);
        pend_first = e->step;
        pend = k;
        e->step += k;
        n -= k;
    }
    if (pend)
        monitors_consume(e->mon, pend_first, pend);
    return 0;
}

/* TE (core/scene.h te): Hz, Ex, Ey are the arrays ez, hx, hy, which hold
 * eta0 Hz, -Ex, -Ey (docs/materials-design.md section 1; Hz stays in the
 * stored units eta0 Hz, V/m): the engine's array read, with the sign.  The
 * same for every engine that runs TE. */
static int read_te(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    const enum field a = f == FIELD_HZ ? FIELD_EZ : f == FIELD_EX ? FIELD_HX : FIELD_HY;
    if (e->ops->read_field(e, a, dst, err, errlen))
        return -1;
    const size_t n = e->model->ncells;
    if (f == FIELD_HZ)
        return 0;
    if (e->opt.precision == PRECISION_SINGLE)
        for (size_t q = 0; q < n; q++)
            ((float *)dst)[q] = -1.0f * ((const float *)dst)[q];
    else
        for (size_t q = 0; q < n; q++)
            ((double *)dst)[q] = -1.0 * ((const double *)dst)[q];
    return 0;
}

int engine_read(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    if (e->model->scene->te && (f == FIELD_HZ || f == FIELD_EX || f == FIELD_EY))
        return read_te(e, f, dst, err, errlen);
    return e->ops->read_field(e, f, dst, err, errlen);
}

int engine_write(struct engine *e, enum field f, const void *src, char *err, size_t errlen)
{
    if (!e->ops->write_field)
        return seterr(err, errlen, "engine %s cannot load fields", e->ops->name);
    return e->ops->write_field(e, f, src, err, errlen);
}

int engine_check_finite(struct engine *e, enum field *f, size_t *cell, char *err, size_t errlen)
{
    return e->ops->check_finite ? e->ops->check_finite(e, f, cell, err, errlen) : 0;
}

int engine_state(struct engine *e, struct state_io *io, int step, char *err, size_t errlen)
{
    if (!e->ops->state)
        return seterr(err, errlen,
                      "the %s engine cannot write or read checkpoints (the cpu engine, 2D "
                      "and 3D, the gl and gl-compute engines and the 2D cuda engine can)",
                      e->ops->name);
    if (e->ops->state(e, io, err, errlen)
        || (e->mon && monitors_state(e->mon, io, step, err, errlen)))
        return -1;
    if (io->load)
        e->step = step;
    return 0;
}

void engine_describe(const struct engine *e, struct engine_info *info)
{
    memset(info, 0, sizeof *info);
    info->precision = e->opt.precision;
    info->denormals = e->opt.denormals;
    e->ops->describe(e, info);
}

void engine_destroy(struct engine *e)
{
    if (e) {
        monitors_free(e->mon);
        e->ops->destroy(e);
    }
}

const char *field_name(enum field f)
{
    static const char *const n[] = {"ez", "hx", "hy", "ez_dft_re", "ez_dft_im", "ex", "ey", "hz"};
    static const char *const more[2] = {"ez_dft_re_k", "ez_dft_im_k"};
    return (unsigned)f <= FIELD_HZ ? n[f] : f >= FIELD_DFT_MORE ? more[(f - FIELD_DFT_MORE) & 1] : "?";
}

int scene_fields(const struct scene *s, enum field out[6])
{
    static const enum field f2[] = {FIELD_EZ, FIELD_HX, FIELD_HY};
    static const enum field f3[] = {FIELD_EX, FIELD_EY, FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_HZ};
    const int n = scene_is_3d(s) ? 6 : 3;
    memcpy(out, n == 6 ? f3 : f2, (size_t)n * sizeof *out);
    return n;
}

const char *precision_name(enum precision p) { return p == PRECISION_DOUBLE ? "double" : "single"; }

const char *denormals_name(enum denormals d) { return d == DENORMALS_KEEP ? "keep" : "flush"; }

size_t precision_size(enum precision p) { return p == PRECISION_DOUBLE ? 8 : 4; }
