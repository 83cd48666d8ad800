/* cpu3d.c - the 3D CPU engine: full-vector Yee FDTD in float or double, the
 * reference the CUDA 3D engine is checked against.
 *
 * The update, its staggering and its exact operation order are in
 * update3d.inc.  This file owns the arrays (six fields, CPML psi only inside
 * the slabs, Mur's saved planes), the denormal mode and the engine interface.
 * Registered as "cpu" with ENGINE_CAP_3D: `--engine cpu` runs 3D scenes here.
 *
 * Under mpirun the grid is split in z slabs (core/decomp.h): the arrays hold
 * this rank's planes plus the halo planes, every rank keeps the whole model
 * (materials, CPML profiles, slots, with global indices) and updates only
 * its own planes with the very same per-cell operations, so the fields are
 * bit-identical to one rank's.  read_field is then collective (rank 0 gets
 * the whole field).  One rank is the plain single-process engine.
 */
#define _GNU_SOURCE
#include "core/decomp.h"
#include "core/engine.h"
#include "core/slab3d.h"
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

struct cpu3d_fields {
    enum cpu_isa isa; /* the row kernels' instruction set (update3d.inc ROWS) */
    struct decomp d; /* this rank's planes; one rank: all of them */
    void *ex, *ey, *ez, *hx, *hy, *hz; /* REAL[local planes][ny][nx] each */
    uint8_t *mat;    /* the E materials (cpu3d_e_materials), [local planes][ny][nx]; with
                      * 3D smoothing one map per component, ms apart (ms = 0 without) */
    size_t ms;
    void *psi[PSI_COUNT];
    int zs0; /* the first z-slab side (0 low, 1 high) the z psi arrays hold */
    struct mur_plane mur[MUR_PLANES];
    void *mur_old[MUR_PLANES];
    /* mu_r (model->hmat): the coefficients hmats[].ch in the engine's
     * precision, whether own row (j, k) holds a node of index != 0
     * [(k - k0) * ny + j], and the H slots hs0 .. hs1-1 of the model's (this
     * rank's planes) with this step's values */
    const void *hc;
    bool *hrow;
    size_t hs0, hs1;
    void *hslot_v;
    /* dispersive entries d0 .. d1-1 of model->disp_cell (this rank's
     * planes): D_s, Ei^n, this step's Ei^{n+1} [d1 - d0], P^n, P^{n-1}
     * [d1 - d0][pstride], pstride the most poles of a dispersive material */
    size_t d0, d1;
    int pstride;
    void *disp_ds, *disp_ei, *disp_v, *disp_p, *disp_pold;
};

/* The monitors' samples (core/monitor.h) in this rank's planes: model
 * sample own[q] is value q of a row, read from field[q] at local index
 * at[q]; one row after each step into rows (decomp.h says how the rows of
 * the ranks are put together). */
struct cpu3d_samples {
    size_t n;
    size_t *own, *at;
    uint8_t *field;
    void *rows; /* [model->sample_rows][n] */
    int nrows;  /* recorded since the last read */
};

struct cpu3d_engine {
    struct engine base;
    struct cpu3d_fields f;
    size_t s0, s1; /* the source slots in this rank's planes */
    void *slot_v;
    float cezh_f[3][MODEL_MAX_MATERIALS]; /* per E component, indexed by f.mat */
    double cezh_d[3][MODEL_MAX_MATERIALS];
    float ca_f[3][MODEL_MAX_MATERIALS]; /* model->lossy: E = ca E + cb curl H, cb in cezh */
    double ca_d[3][MODEL_MAX_MATERIALS];
    uint8_t slot_kind[MODEL_MAX_MATERIALS];
    float hc_f[MODEL_MAX_MATERIALS]; /* mu_r: model->hmats[].ch */
    double hc_d[MODEL_MAX_MATERIALS];
    int threads;
    struct cpu3d_samples smp;
};

/* ---- the materials the E components see --------------------------------------
 * model->mat gives cell (i, j, k) the material of its corner (i, j, k); the
 * cell's Ex(i+1/2, j, k), Ey(i, j+1/2, k), Ez(i, j, k+1/2) lie on the three
 * edges that leave that corner along +x, +y, +z.  Each takes the corner's
 * material (its cezh, and for Ez the source slot), except an edge that
 * leaves a PEC corner for a vacuum corner: it lies in the vacuum but for
 * its end point, and is updated as vacuum.  A PEC body is then the edges
 * between its corners, the same on every side (with the corner's material
 * alone, each PEC corner also grew a conducting edge one cell long toward
 * +x, +y and +z where the body ends: a bed of short wires on three of its
 * six sides, along E at a pole; a PEC sphere of ka = 3 at 20 cells per
 * wavelength then scattered as one of ka = 3.65, its extinction 46 % high).
 * An edge from a PEC corner to a dielectric one stays PEC.
 * The map holds, per cell, the corner's material index or, for a PEC corner
 * with such edges, a variant PEC material: index nmats - 1 + b, b the three
 * bits of the free edges (1 x, 2 y, 4 z), whose cezh is the vacuum's on the
 * free edges and 0 on the others.  cezh[a][index] is the coefficient of E
 * component a; slot_kind[index] says what the source slot of an Ez does:
 * 0 add (dielectric), 1 set (PEC), 2 nothing (a free Ez edge).  Planes kb
 * .. kb + nzl - 1, [nzl][ny][nx].  The cuda engine uses the same map.
 * With 3D smoothing (model->nesm, core/smooth3d.h) each component has its
 * own map, the corner's as above but for the smoothed edges' own
 * materials: map holds three, [3][nzl][ny][nx] (cpu3d_e_map_count). */
int cpu3d_e_map_count(const struct model *m)
{
    return m->nesm ? 3 : 1;
}

int cpu3d_e_materials(const struct model *m, int kb, int nzl, uint8_t *map,
                      float cezh_f[3][MODEL_MAX_MATERIALS], double cezh_d[3][MODEL_MAX_MATERIALS],
                      uint8_t slot_kind[MODEL_MAX_MATERIALS], char *err, size_t errlen)
{
    const int nx = m->nx, ny = m->ny, nz = m->nz, nm = m->nmats;
    bool pec_any = false;
    for (int q = 0; q < nm; q++)
        pec_any |= m->mats[q].kind == MATERIAL_PEC;
    if (pec_any && nm + 7 > MODEL_MAX_MATERIALS)
        return seterr(err, errlen, "3D engines: %d materials leave no room for the 7 variants of "
                      "PEC at a body's edges (at most %d in all)", nm, MODEL_MAX_MATERIALS);
    memset(slot_kind, 0, MODEL_MAX_MATERIALS);
    for (int a = 0; a < 3; a++)
        for (int q = 0; q < MODEL_MAX_MATERIALS; q++) {
            const bool real = q < nm, var = !real && pec_any && q < nm + 7;
            const int bits = var ? q - nm + 1 : 0;
            const struct material *t = &m->mats[real ? q : 0];
            const bool pec = real ? t->kind == MATERIAL_PEC : var;
            const bool free_edge = var && (bits >> a & 1);
            /* cb: = cezh where sigma = 0 (a lossy scene's update, cpu3d_e_ca) */
            cezh_d[a][q] = free_edge ? m->mats[0].cb : pec ? 0.0 : t->cb;
            cezh_f[a][q] = free_edge ? m->mats[0].cb_f : pec ? 0.0f : t->cb_f;
            if (a == 2)
                slot_kind[q] = free_edge ? 2 : pec ? 1 : 0;
        }
    const size_t plane = (size_t)nx * (size_t)ny;
    for (int kl = 0; kl < nzl; kl++) {
        const int k = kb + kl;
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                const size_t c = (size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * (size_t)k);
                uint8_t q = m->mat[c];
                if (m->mats[q].kind == MATERIAL_PEC) {
                    /* the neighbour corners along +x, +y, +z, where they exist */
                    const bool vac[3] = {i + 1 < nx && m->mats[m->mat[c + 1]].kind == MATERIAL_VACUUM,
                                         j + 1 < ny && m->mats[m->mat[c + (size_t)nx]].kind == MATERIAL_VACUUM,
                                         k + 1 < nz && m->mats[m->mat[c + plane]].kind == MATERIAL_VACUUM};
                    const int bits = vac[0] | vac[1] << 1 | vac[2] << 2;
                    if (bits)
                        q = (uint8_t)(nm - 1 + bits);
                }
                map[(size_t)kl * plane + (size_t)j * nx + i] = q;
            }
    }
    if (m->nesm) {
        /* the smoothed edges never touch a PEC corner (core/smooth3d.c) */
        const size_t local = (size_t)nzl * plane, lo = (size_t)kb * plane, n = m->ncells;
        memcpy(map + local, map, local);
        memcpy(map + 2 * local, map, local);
        for (size_t k = 0; k < m->nesm; k++) {
            const size_t a = m->esm_q[k] / n, c = m->esm_q[k] % n;
            if (c >= lo && c - lo < local)
                map[a * local + c - lo] = m->esm_mat[k];
        }
    }
    return 0;
}

/* ca of each E material index of cpu3d_e_materials (the lossy update
 * E = ca E + cb curl H, cb in its cezh table): the material's own ca, 1 for
 * PEC and the PEC variants (a free edge is vacuum, ca = 1). */
void cpu3d_e_ca(const struct model *m, float ca_f[3][MODEL_MAX_MATERIALS],
                double ca_d[3][MODEL_MAX_MATERIALS])
{
    for (int a = 0; a < 3; a++)
        for (int q = 0; q < MODEL_MAX_MATERIALS; q++) {
            const bool lossy = q < m->nmats && m->mats[q].kind != MATERIAL_PEC;
            ca_d[a][q] = lossy ? m->mats[q].ca : 1.0;
            ca_f[a][q] = lossy ? m->mats[q].ca_f : 1.0f;
        }
}

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

static void cpu3d_destroy(struct engine *e)
{
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    free(c->f.ex);
    free(c->f.ey);
    free(c->f.ez);
    free(c->f.hx);
    free(c->f.hy);
    free(c->f.hz);
    free(c->f.mat);
    for (int k = 0; k < PSI_COUNT; k++)
        free(c->f.psi[k]);
    for (int k = 0; k < MUR_PLANES; k++)
        free(c->f.mur_old[k]);
    free(c->slot_v);
    free(c->f.hrow);
    free(c->f.hslot_v);
    free(c->f.disp_ds);
    free(c->f.disp_ei);
    free(c->f.disp_v);
    free(c->f.disp_p);
    free(c->f.disp_pold);
    free(c->smp.own);
    free(c->smp.at);
    free(c->smp.field);
    free(c->smp.rows);
    decomp_free(&c->f.d);
    free(c);
}

/* psi elements of one array along an axis: sides x N x the face's cells, the
 * x and y faces over this rank's own planes */
static size_t psi_elems(const struct model *m, const struct cpu3d_fields *f, int axis)
{
    const size_t nx = (size_t)m->nx, ny = (size_t)m->ny, N = (size_t)m->pml_n;
    const size_t nzo = (size_t)(f->d.k1 - f->d.k0);
    int first;
    const size_t sides = axis == 2 ? (size_t)slab3d_cpml_z_sides(m->nz, m->pml_n, f->d.k0, f->d.k1, &first) : 2;
    return sides * N * (axis == 0 ? ny * nzo : axis == 1 ? nx * nzo : nx * ny);
}

/* The entries first .. of a list of model ids (comp * ncells + c, in
 * increasing c) whose cell lies in planes k0 .. k1-1: a run [*a, *b). */
void cpu3d_plane_run(const size_t *ids, size_t n, size_t ncells, size_t plane, int k0, int k1,
                     size_t *a, size_t *b)
{
    size_t q = 0;
    while (q < n && ids[q] % ncells < (size_t)k0 * plane)
        q++;
    *a = q;
    while (q < n && ids[q] % ncells < (size_t)k1 * plane)
        q++;
    *b = q;
}

/* The most poles of a dispersive material of the model (the stride of the
 * poles' state per entry). */
int cpu3d_pole_stride(const struct model *m)
{
    int s = 0;
    for (int q = 0; q < m->nmats; q++)
        if (m->mats[q].dcoef && m->mats[q].dcoef->npoles > s)
            s = m->mats[q].dcoef->npoles;
    return s;
}

/* mu_r and the dispersive entries (core/model.h hmat, disp_cell) of this
 * rank's planes: the H coefficients, the row flags, the H slots' and the
 * entries' runs and state. */
static int cpu3d_materials_3d(struct cpu3d_engine *c, const struct model *m, size_t elem,
                              char *err, size_t errlen)
{
    struct cpu3d_fields *f = &c->f;
    const struct decomp *d = &f->d;
    const int nzo = d->k1 - d->k0;
    for (int q = 0; q < m->nhmats; q++) {
        c->hc_f[q] = m->hmats[q].ch_f;
        c->hc_d[q] = m->hmats[q].ch;
    }
    f->hc = elem == sizeof(float) ? (const void *)c->hc_f : (const void *)c->hc_d;
    if (m->hmat) {
        if (!(f->hrow = xcalloc((size_t)nzo * m->ny, sizeof *f->hrow, "H row flags", err, errlen)))
            return -1;
        for (int k = d->k0; k < d->k1; k++)
            for (int j = 0; j < m->ny; j++) {
                const size_t r = (size_t)j * m->nx + (size_t)k * d->plane;
                bool any = false;
                for (int a = 0; a < 3 && !any; a++)
                    for (int i = 0; i < m->nx && !any; i++)
                        any = m->hmat[(size_t)a * m->ncells + r + i] != 0;
                f->hrow[(size_t)(k - d->k0) * m->ny + j] = any;
            }
        cpu3d_plane_run(m->hslot, m->nhslots, m->ncells, d->plane, d->k0, d->k1, &f->hs0, &f->hs1);
        if (!(f->hslot_v = xcalloc(f->hs1 > f->hs0 ? f->hs1 - f->hs0 : 1, elem, "H slot values",
                                   err, errlen)))
            return -1;
    }
    cpu3d_plane_run(m->disp_cell, m->ndisp, m->ncells, d->plane, d->k0, d->k1, &f->d0, &f->d1);
    f->pstride = cpu3d_pole_stride(m);
    const size_t nd = f->d1 - f->d0, np = nd * (size_t)f->pstride;
    if (nd
        && (!(f->disp_ds = xcalloc(nd, elem, "dispersive cells", err, errlen))
            || !(f->disp_ei = xcalloc(nd, elem, "dispersive cells", err, errlen))
            || !(f->disp_v = xcalloc(nd, elem, "dispersive cells", err, errlen))
            || !(f->disp_p = xcalloc(np ? np : 1, elem, "dispersive cells", err, errlen))
            || !(f->disp_pold = xcalloc(np ? np : 1, elem, "dispersive cells", err, errlen))))
        return -1;
    return 0;
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
    struct decomp *d = &c->f.d;
    if (cpu_isa_choose(&c->f.isa, false, err, errlen))
        goto fail;
    if (decomp_slab(d, m->nx, m->ny, m->nz, elem, err, errlen))
        goto fail;
    void **fields[6] = {&c->f.ex, &c->f.ey, &c->f.ez, &c->f.hx, &c->f.hy, &c->f.hz};
    for (int k = 0; k < 6; k++)
        if (!(*fields[k] = cpu_alloc_field(decomp_local_cells(d), elem, "3D field", err, errlen)))
            goto fail;
    if (m->pml_n) {
        slab3d_cpml_z_sides(m->nz, m->pml_n, d->k0, d->k1, &c->f.zs0);
        for (int k = 0; k < PSI_COUNT; k++) {
            const size_t n = psi_elems(m, &c->f, psi_axis[k]);
            if (n && !(c->f.psi[k] = cpu_alloc_field(n, elem, "CPML psi", err, errlen)))
                goto fail;
        }
    }
    if (m->scene->boundary == BOUNDARY_MUR) {
        slab3d_mur_planes(c->f.mur, m->nx, m->ny, m->nz, m->nx, d->k0, d->k1, decomp_kbase(d));
        for (int k = 0; k < MUR_PLANES; k++) {
            const size_t n = slab3d_mur_cells(&c->f.mur[k]);
            if (!(c->f.mur_old[k] = cpu_alloc_field(n, elem, "Mur planes", err, errlen)))
                goto fail;
        }
    }
    /* the slots are in increasing cell order: those of planes k0 .. k1-1 are a run */
    const size_t first = (size_t)d->k0 * d->plane, end = (size_t)d->k1 * d->plane;
    for (c->s0 = 0; c->s0 < m->nslots && m->slot_cell[c->s0] < first; c->s0++)
        ;
    for (c->s1 = c->s0; c->s1 < m->nslots && m->slot_cell[c->s1] < end; c->s1++)
        ;
    if (!(c->slot_v = xcalloc(c->s1 > c->s0 ? c->s1 - c->s0 : 1, elem, "slot values", err, errlen)))
        goto fail;
    c->f.ms = m->nesm ? decomp_local_cells(d) : 0;
    if (!(c->f.mat = cpu_alloc_field(decomp_local_cells(d) * (size_t)cpu3d_e_map_count(m), 1,
                                     "E material map", err, errlen))
        || cpu3d_e_materials(m, decomp_kbase(d), (int)decomp_local_planes(d), c->f.mat, c->cezh_f,
                             c->cezh_d, c->slot_kind, err, errlen))
        goto fail;
    cpu3d_e_ca(m, c->ca_f, c->ca_d);
    if (cpu3d_materials_3d(c, m, elem, err, errlen))
        goto fail;
    if (m->nsamples) {
        struct cpu3d_samples *sp = &c->smp;
        const size_t off = (size_t)decomp_kbase(d) * d->plane;
        sp->own = xcalloc(m->nsamples, sizeof *sp->own, "monitor samples", err, errlen);
        sp->at = xcalloc(m->nsamples, sizeof *sp->at, "monitor samples", err, errlen);
        sp->field = xcalloc(m->nsamples, 1, "monitor samples", err, errlen);
        if (!sp->own || !sp->at || !sp->field)
            goto fail;
        sp->n = decomp_own_samples(d, m->samples, m->nsamples, sp->own);
        for (size_t q = 0; q < sp->n; q++) {
            sp->at[q] = m->samples[sp->own[q]].cell - off;
            sp->field[q] = m->samples[sp->own[q]].field;
        }
        if (!(sp->rows = xcalloc((size_t)m->sample_rows * (sp->n ? sp->n : 1), elem,
                                 "monitor sample rows", err, errlen)))
            goto fail;
    }
    c->threads = cpu_threads(o->threads);
    char name[200], device[256];
    cpu_model_name(name, sizeof name);
    snprintf(device, sizeof device, "%s, %d thread%s", name, c->threads, c->threads == 1 ? "" : "s");
    decomp_log_map(d, device);
    *out = &c->base;
    return 0;
fail:
    cpu3d_destroy(&c->base);
    return -1;
}

static void *cpu3d_field(struct cpu3d_engine *c, enum field f);

/* The values of this rank's samples into the next row (the step's E^t and
 * H^(t-1/2), as the model lists them). */
static void take_samples(struct cpu3d_engine *c, const struct model *m, size_t es)
{
    struct cpu3d_samples *sp = &c->smp;
    if (!m->nsamples || sp->nrows >= m->sample_rows)
        return;
    void *fld[8] = {0};
    static const enum field ids[6] = {FIELD_EX, FIELD_EY, FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_HZ};
    for (int q = 0; q < 6; q++)
        fld[ids[q]] = cpu3d_field(c, ids[q]);
    char *row = (char *)sp->rows + (size_t)sp->nrows * sp->n * es;
    for (size_t q = 0; q < sp->n; q++)
        memcpy(row + q * es, (const char *)fld[sp->field[q]] + sp->at[q] * es, es);
    sp->nrows++;
}

/* One time step: H, halo of Hx Hy, E, Mur (sweep), the source slots, the
 * point source, then the halo of Ex Ey for the next H update (the H update
 * of plane k1-1 reads E at k1), and the monitors' samples.  Cells carry
 * global indices in the model; off = kbase * nx * ny makes them local. */
static int cpu3d_step(struct engine *e, int n, char *err, size_t errlen)
{
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    const struct model *m = e->model;
    const struct decomp *d = &c->f.d;
    const unsigned saved_csr = _mm_getcsr();
#ifdef _OPENMP
    omp_set_num_threads(c->threads);
#endif
    const size_t off = (size_t)decomp_kbase(d) * d->plane;
    const bool point = m->scene->source_type == SOURCE_POINT
                       && decomp_owns(d, (int)(model_point_cell(m) / d->plane));
    const size_t pc = point ? model_point_cell(m) - off : 0;
    int rc = 0;
    for (int k = 0; k < n && !rc; k++) {
        const int t = e->step + k;
        decomp_test_hook(t);
        _mm_setcsr(saved_csr); /* slot values in IEEE mode, as in 2D */
        if (e->opt.precision == PRECISION_SINGLE) {
            model_slot_range_f(m, t, c->s0, c->s1 - c->s0, c->slot_v);
            model_hslot_range_f(m, t, c->f.hs0, c->f.hs1 - c->f.hs0, c->f.hslot_v);
            model_disp_range_f(m, t, c->f.d0, c->f.d1 - c->f.d0, c->f.disp_v);
            rc = sweep_f(&c->f, m, m->ch_f, c->cezh_f, m->lossy ? c->ca_f : NULL, m->mur_k_f,
                         e->opt.denormals, err, errlen);
            if (c->f.d1 > c->f.d0)
                update_disp_f(&c->f, m, m->ch_f, e->opt.denormals);
            cpu_set_denormal_mode(e->opt.denormals);
            apply_slots_f(&c->f, m, c->slot_kind, c->slot_v, c->s0, c->s1, off);
            if (point) {
                float *ez = c->f.ez;
                ez[pc] = yee_add_f(ez[pc], (float)model_point_value(m, t));
            }
        } else {
            model_slot_range_d(m, t, c->s0, c->s1 - c->s0, c->slot_v);
            model_hslot_range_d(m, t, c->f.hs0, c->f.hs1 - c->f.hs0, c->f.hslot_v);
            model_disp_range_d(m, t, c->f.d0, c->f.d1 - c->f.d0, c->f.disp_v);
            rc = sweep_d(&c->f, m, m->ch, c->cezh_d, m->lossy ? c->ca_d : NULL, m->mur_k,
                         e->opt.denormals, err, errlen);
            if (c->f.d1 > c->f.d0)
                update_disp_d(&c->f, m, m->ch, e->opt.denormals);
            cpu_set_denormal_mode(e->opt.denormals);
            apply_slots_d(&c->f, m, c->slot_kind, c->slot_v, c->s0, c->s1, off);
            if (point) {
                double *ez = c->f.ez;
                ez[pc] = yee_add_d(ez[pc], model_point_value(m, t));
            }
        }
        if (!rc)
            rc = decomp_fill_upper_halo(d, (void *const[]){c->f.ex, c->f.ey}, 2, err, errlen);
        if (!rc)
            take_samples(c, m, d->elem);
    }
    _mm_setcsr(saved_csr);
    /* The monitors' sums (core/monitor.c) run on the host after this, in
     * float with OpenMP on large groups: leave every thread of the pool in
     * the caller's mode, not the stepping threads' FTZ/DAZ, so that they
     * round the same whatever engine made the samples. */
#pragma omp parallel num_threads(c->threads)
    _mm_setcsr(saved_csr);
    return rc;
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

/* Collective over the ranks: rank 0 gets the whole field, the others' dst
 * is not touched.  One rank: a copy. */
static int cpu3d_read_field(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    const void *src = cpu3d_field(c, f);
    if (!src)
        return seterr(err, errlen, "cpu 3D engine: no field %s (3D has ex ey ez hx hy hz)",
                      field_name(f));
    return decomp_gather(&c->f.d, src, dst, err, errlen);
}

/* Collective over the ranks: the rows since the last read, rank 0's dst
 * gets every sample (decomp_gather_samples). */
static int cpu3d_read_samples(struct engine *e, void *dst, int rows, char *err, size_t errlen)
{
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    const struct model *m = e->model;
    if (rows != c->smp.nrows)
        return seterr(err, errlen, "monitor samples: %d rows asked for, %d recorded", rows,
                      c->smp.nrows);
    c->smp.nrows = 0;
    if (!m->nsamples)
        return 0;
    return decomp_gather_samples(&c->f.d, m->samples, m->nsamples, c->smp.rows, rows, dst, err,
                                 errlen);
}

/* src is the whole field, on every rank; each takes its planes and halos. */
static int cpu3d_write_field(struct engine *e, enum field f, const void *src, char *err,
                             size_t errlen)
{
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    void *dst = cpu3d_field(c, f);
    if (!dst)
        return seterr(err, errlen, "cpu 3D engine: no field %s", field_name(f));
    decomp_copy_from_global(&c->f.d, src, dst);
    return 0;
}

/* The six fields in scene_fields() order, scanned in place; the first bad
 * field in that order and the lowest cell in it. */
static int cpu3d_check_finite(struct engine *e, enum field *f, size_t *cell, char *err,
                              size_t errlen)
{
    (void)err;
    (void)errlen;
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    const struct decomp *d = &c->f.d;
    /* this rank's own planes (halos are another rank's to check) */
    const size_t n = (size_t)(d->k1 - d->k0) * d->plane, skip = (size_t)d->lo * d->plane;
    const size_t ncells = e->model->ncells;
    enum field order[6];
    const int nf = scene_fields(e->model->scene, order);
    unsigned long long first = ~0ull; /* field position * ncells + global cell */
    for (int k = 0; k < nf && first == ~0ull; k++) {
        const char *p = (const char *)cpu3d_field(c, order[k]) + skip * d->elem;
        const size_t q = cpu_first_bad(p, n, e->opt.precision, c->threads);
        if (q < n)
            first = (unsigned long long)k * ncells + (size_t)d->k0 * d->plane + q;
    }
    /* MPI: every rank gets the same answer (and so stops at the same step) */
    first = decomp_min_u64(first);
    if (first == ~0ull)
        return 0;
    *f = order[first / ncells];
    *cell = (size_t)(first % ncells);
    return 1;
}

static void cpu3d_describe(const struct engine *e, struct engine_info *info)
{
    const struct cpu3d_engine *c = (const struct cpu3d_engine *)e;
    snprintf(info->engine, sizeof info->engine, "cpu");
    char name[200];
    cpu_model_name(name, sizeof name);
    snprintf(info->device, sizeof info->device, "%s, %d thread%s", name, c->threads,
             c->threads == 1 ? "" : "s");
    snprintf(info->detail, sizeof info->detail, "3D Yee, denormals %s; row kernels %s",
             denormals_name(e->opt.denormals), cpu_isa_name(c->f.isa));
    if (c->f.d.size > 1) /* the device line is rank 0's; each rank has its own */
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 "; MPI: %d ranks, z slabs, rank 0 gathers", c->f.d.size);
}

/* The checkpointed state: the six fields, the CPML psi and the dispersive
 * entries' D_s, Ei^n and poles, in place (Mur's saved planes are scratch
 * within a step). */
static int cpu3d_state(struct engine *e, struct state_io *io, char *err, size_t errlen)
{
    struct cpu3d_engine *c = (struct cpu3d_engine *)e;
    const struct model *m = e->model;
    static const char *const fields[6] = {"ex", "ey", "ez", "hx", "hy", "hz"};
    void *const data[6] = {c->f.ex, c->f.ey, c->f.ez, c->f.hx, c->f.hy, c->f.hz};
    static const char *const psi[PSI_COUNT] = {"psi_exy", "psi_exz", "psi_eyx", "psi_eyz",
                                               "psi_ezx", "psi_ezy", "psi_hxy", "psi_hxz",
                                               "psi_hyx", "psi_hyz", "psi_hzx", "psi_hzy"};
    if (c->f.d.k0 != 0 || c->f.d.k1 != m->nz) /* the command refuses this before running */
        return seterr(err, errlen, "cpu 3D engine: checkpoints need one process, not a z slab");
    for (int k = 0; k < 6; k++)
        if (io->array(io, fields[k], data[k], m->ncells, err, errlen))
            return -1;
    for (int k = 0; k < PSI_COUNT && m->pml_n; k++)
        if (io->array(io, psi[k], c->f.psi[k], psi_elems(m, &c->f, psi_axis[k]), err, errlen))
            return -1;
    const size_t nd = c->f.d1 - c->f.d0, np = nd * (size_t)c->f.pstride;
    const struct {
        const char *name;
        void *data;
        size_t count;
    } disp[] = {
        {"disp_ds", c->f.disp_ds, nd},
        {"disp_ei", c->f.disp_ei, nd},
        {"disp_p", c->f.disp_p, np},
        {"disp_pold", c->f.disp_pold, np},
    };
    for (size_t k = 0; k < sizeof disp / sizeof disp[0] && nd; k++)
        if (disp[k].count && io->array(io, disp[k].name, disp[k].data, disp[k].count, err, errlen))
            return -1;
    return 0;
}

const struct engine_ops cpu3d_engine_ops = {
    .name = "cpu",
    .caps = ENGINE_CAP_3D | ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_POINT
            | ENGINE_CAP_MPI | ENGINE_CAP_MONITORS | ENGINE_CAP_LOSSY | ENGINE_CAP_MAGNETIC
            | ENGINE_CAP_DISPERSIVE,
    .summary = "3D, plain C, float or double, OpenMP over z planes, MPI z slabs under mpirun",
    .create = cpu3d_create,
    .step = cpu3d_step,
    .read_field = cpu3d_read_field,
    .write_field = cpu3d_write_field,
    .check_finite = cpu3d_check_finite,
    .state = cpu3d_state,
    .describe = cpu3d_describe,
    .destroy = cpu3d_destroy,
    .read_samples = cpu3d_read_samples,
};
