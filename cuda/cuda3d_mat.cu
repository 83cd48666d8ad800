/* cuda3d_mat.cu - mu_r and dispersion poles in the 3D CUDA engine, as
 * cpu/update3d.inc runs them (the two-kernel path only: cuda3d.cu keeps a
 * scene with either off the fused kernel):
 *   - the H-node map (core/model.h hmat, 3 x the local cells, padded like
 *     the fields) that the H kernels read under their flag H_MAG
 *     (cuda3d_kernels.cu), and the H slots of Hx, Hy after the H update
 *     (k_hslots: h = h + v, yee_add);
 *   - the dispersive entries (model->disp_cell, an entry per E component at
 *     a dispersive corner) after E and Mur (k_disp): S curl H_s as the
 *     component's update takes it, then the D-E update of
 *     cpu/disp_cell.inc, statement for statement (disp.cuh disp_entry),
 *     with the coefficients of the entry's material from a table in the
 *     engine's precision (the _f fields in float, as update3d.inc).
 * Values from the host each step (model_hslot_range_*, model_disp_range_*)
 * through pinned buffers, as the source slots'.
 */
#include "cuda3d_internal.cuh"
#include "disp.cuh"

/* The H slots: component 0 Hx, 1 Hy; h = h + v. */
template <typename T, bool F>
__global__ void k_hslots(T *hx, T *hy, const long long *at, const uint8_t *comp, const T *v,
                         long long n)
{
    typedef Yee<T, F> Y;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    T *h = comp[t] ? hy : hx;
    h[at[t]] = Y::yee_add(h[at[t]], v[t]);
}

/* The dispersive entries, a thread each (cpu/update3d.inc update_disp and
 * cpu/disp_cell.inc, in their order). */
template <typename T, bool F>
__global__ void k_disp(Dev3<T> d, const long long *at, const uint8_t *comp, const uint8_t *row,
                       const DispCoef<T> *tab, T *ds, T *ei, T *p, T *pold, const T *v, int ps,
                       long long n)
{
    typedef Yee<T, F> Y;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    const long long c = at[t];
    const int a = comp[t];
    const DispCoef<T> &mc = tab[row[t]];
    T sc, *e;
    if (a == 0) {
        sc = Y::yee_disp_curl(d.ch, d.hz[c], d.hz[c - d.sy], d.hy[c], d.hy[c - d.sz]);
        e = d.ex;
    } else if (a == 1) {
        sc = Y::yee_disp_curl(d.ch, d.hx[c], d.hx[c - d.sz], d.hz[c], d.hz[c - 1]);
        e = d.ey;
    } else {
        sc = Y::yee_disp_curl(d.ch, d.hy[c], d.hy[c - 1], d.hx[c], d.hx[c - d.sy]);
        e = d.ez;
    }
    e[c] = disp_entry<T, F>(mc, e[c], sc, v[t], &ds[t], &ei[t], p + t * ps, pold + t * ps);
}

/* The padded array index of model cell g (global) on this rank. */
static long long local_at(const cuda3d_engine *c, size_t g)
{
    return (long long)(g % (size_t)c->nx)
           + ((long long)(g / (size_t)c->nx) - (long long)c->ny * c->kb) * c->px;
}

#define ALLOC(p, bytes)                                                                       \
    do {                                                                                      \
        if (dev_alloc0((void **)&(p), (size_t)(bytes), err, errlen))                          \
            return -1;                                                                        \
    } while (0)
#define COPY(dst, src, bytes)                                                                 \
    do {                                                                                      \
        if (cudaMemcpy((dst), (src), (bytes), cudaMemcpyHostToDevice) != cudaSuccess)         \
            return seterr(err, errlen, "cuda 3D: cannot copy the material data");             \
    } while (0)

/* A model list's run on this rank: array index, component, and (ids of
 * dispersive entries) the table row of the cell's material. */
static int list_setup(cuda3d_engine *c, const struct model *m, const size_t *ids, size_t first,
                      size_t n, const uint8_t *rowof, long long **at_d, uint8_t **comp_d,
                      uint8_t **row_d, char *err, size_t errlen)
{
    long long *at = (long long *)malloc((n ? n : 1) * sizeof *at);
    uint8_t *cp = (uint8_t *)malloc(n ? n : 1), *rw = (uint8_t *)malloc(n ? n : 1);
    if (!at || !cp || !rw) {
        free(at);
        free(cp);
        free(rw);
        return seterr(err, errlen, "cuda 3D: out of host memory");
    }
    for (size_t q = 0; q < n; q++) {
        const size_t id = ids[first + q], g = id % m->ncells;
        at[q] = local_at(c, g);
        cp[q] = (uint8_t)(id / m->ncells);
        rw[q] = rowof ? rowof[m->mat[g]] : 0;
    }
    cudaError_t e = cudaMalloc((void **)at_d, (n ? n : 1) * sizeof *at);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)comp_d, n ? n : 1);
    if (e == cudaSuccess && row_d)
        e = cudaMalloc((void **)row_d, n ? n : 1);
    if (e == cudaSuccess && n)
        e = cudaMemcpy(*at_d, at, n * sizeof *at, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && n)
        e = cudaMemcpy(*comp_d, cp, n, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && n && row_d)
        e = cudaMemcpy(*row_d, rw, n, cudaMemcpyHostToDevice);
    free(at);
    free(cp);
    free(rw);
    if (e != cudaSuccess)
        return seterr(err, errlen, "cuda 3D: cannot set up the material lists: %s",
                      cudaGetErrorString(e));
    return 0;
}

int mat_setup(cuda3d_engine *c, const struct model *m, size_t es, char *err, size_t errlen)
{
    c->magnetic = m->hmat != NULL;
    for (int q = 0; q < m->nhmats; q++) {
        c->hc_f[q] = m->hmats[q].ch_f;
        c->hc_d[q] = m->hmats[q].ch;
    }
    const size_t plane = c->dc.plane; /* nx * ny, unpadded */
    size_t a, b;
    if (c->magnetic) {
        ALLOC(c->hmat, 3 * c->cells);
        for (int q = 0; q < 3; q++)
            if (cudaMemcpy2D(c->hmat + (size_t)q * c->cells, c->px,
                             m->hmat + (size_t)q * m->ncells + (size_t)c->kb * plane, m->nx, m->nx,
                             (size_t)m->ny * c->nzl, cudaMemcpyHostToDevice) != cudaSuccess)
                return seterr(err, errlen, "cuda 3D: cannot copy the H-node map");
        cpu3d_plane_run(m->hslot, m->nhslots, m->ncells, plane, c->k0, c->k1, &a, &b);
        c->hs0 = a;
        c->nhs = b - a;
        if (list_setup(c, m, m->hslot, a, c->nhs, NULL, &c->hslot_at, &c->hslot_comp, NULL, err,
                       errlen))
            return -1;
        ALLOC(c->hslot_v_d, c->nhs * es);
        if (cudaMallocHost(&c->hslot_v_h, (c->nhs ? c->nhs : 1) * es) != cudaSuccess)
            return seterr(err, errlen, "cuda 3D: cannot allocate the H slot values");
    }
    cpu3d_plane_run(m->disp_cell, m->ndisp, m->ncells, plane, c->k0, c->k1, &a, &b);
    c->dd0 = a;
    c->nd = b - a;
    if (c->nd) {
        /* one table row per dispersive material */
        uint8_t rowof[MODEL_MAX_MATERIALS] = {0};
        DispCoef<float> tf[MODEL_MAX_MATERIALS];
        DispCoef<double> td[MODEL_MAX_MATERIALS];
        int nrow = 0;
        for (int q = 0; q < m->nmats; q++)
            if (m->mats[q].dcoef) {
                disp_coef_fill(&tf[nrow], m->mats[q].dcoef);
                disp_coef_fill(&td[nrow], m->mats[q].dcoef);
                rowof[q] = (uint8_t)nrow++;
            }
        ALLOC(c->disp_tab_f, nrow * sizeof tf[0]);
        ALLOC(c->disp_tab_d, nrow * sizeof td[0]);
        COPY(c->disp_tab_f, tf, nrow * sizeof tf[0]);
        COPY(c->disp_tab_d, td, nrow * sizeof td[0]);
        if (list_setup(c, m, m->disp_cell, a, c->nd, rowof, &c->disp_at, &c->disp_comp,
                       &c->disp_row, err, errlen))
            return -1;
        c->pstride = cpu3d_pole_stride(m);
        const size_t np = c->nd * (size_t)c->pstride;
        ALLOC(c->disp_ds, c->nd * es);
        ALLOC(c->disp_ei, c->nd * es);
        ALLOC(c->disp_p, np * es);
        ALLOC(c->disp_pold, np * es);
        ALLOC(c->disp_v_d, c->nd * es);
        if (cudaMallocHost(&c->disp_v_h, c->nd * es) != cudaSuccess)
            return seterr(err, errlen, "cuda 3D: cannot allocate the dispersive values");
    }
    if ((c->nhs || c->nd)
        && cudaEventCreateWithFlags(&c->mat_ev, cudaEventDisableTiming) != cudaSuccess)
        return seterr(err, errlen, "cuda 3D: cannot create an event");
    return 0;
}
#undef ALLOC
#undef COPY

void mat_free(cuda3d_engine *c)
{
    cudaFree(c->hmat);
    cudaFree(c->hslot_at);
    cudaFree(c->hslot_comp);
    cudaFree(c->hslot_v_d);
    cudaFreeHost(c->hslot_v_h);
    cudaFree(c->disp_at);
    cudaFree(c->disp_comp);
    cudaFree(c->disp_row);
    cudaFree(c->disp_tab_f);
    cudaFree(c->disp_tab_d);
    cudaFree(c->disp_ds);
    cudaFree(c->disp_ei);
    cudaFree(c->disp_p);
    cudaFree(c->disp_pold);
    cudaFree(c->disp_v_d);
    cudaFreeHost(c->disp_v_h);
    if (c->mat_ev)
        cudaEventDestroy(c->mat_ev);
}

template <typename T> int mat_upload(cuda3d_engine *c, const struct model *m, int t, char *err,
                                     size_t errlen)
{
    if (!c->nhs && !c->nd)
        return 0;
    CK(cudaEventSynchronize(c->mat_ev));
    if (c->nhs) {
        if (sizeof(T) == 4)
            model_hslot_range_f(m, t, c->hs0, c->nhs, (float *)c->hslot_v_h);
        else
            model_hslot_range_d(m, t, c->hs0, c->nhs, (double *)c->hslot_v_h);
        CK(cudaMemcpyAsync(c->hslot_v_d, c->hslot_v_h, c->nhs * sizeof(T), cudaMemcpyHostToDevice));
    }
    if (c->nd) {
        if (sizeof(T) == 4)
            model_disp_range_f(m, t, c->dd0, c->nd, (float *)c->disp_v_h);
        else
            model_disp_range_d(m, t, c->dd0, c->nd, (double *)c->disp_v_h);
        CK(cudaMemcpyAsync(c->disp_v_d, c->disp_v_h, c->nd * sizeof(T), cudaMemcpyHostToDevice));
    }
    CK(cudaEventRecord(c->mat_ev));
    return 0;
}

template <typename T, bool F> void hslots_apply(cuda3d_engine *c)
{
    if (c->nhs)
        k_hslots<T, F><<<(unsigned)((c->nhs + 255) / 256), 256>>>(
            (T *)c->f[3], (T *)c->f[4], c->hslot_at, c->hslot_comp, (const T *)c->hslot_v_d,
            (long long)c->nhs);
}

template <typename T, bool F> void disp_apply(cuda3d_engine *c, const Dev3<T> &d)
{
    if (c->nd)
        k_disp<T, F><<<(unsigned)((c->nd + 127) / 128), 128>>>(
            d, c->disp_at, c->disp_comp, c->disp_row,
            (const DispCoef<T> *)(sizeof(T) == 4 ? c->disp_tab_f : c->disp_tab_d), (T *)c->disp_ds,
            (T *)c->disp_ei, (T *)c->disp_p, (T *)c->disp_pold, (const T *)c->disp_v_d, c->pstride,
            (long long)c->nd);
}

#define INST(T, F)                                                                            \
    template void hslots_apply<T, F>(cuda3d_engine *);                                        \
    template void disp_apply<T, F>(cuda3d_engine *, const Dev3<T> &);
CUDA3D_INSTANTIATE_TF(INST)
#undef INST
template int mat_upload<float>(cuda3d_engine *, const struct model *, int, char *, size_t);
template int mat_upload<double>(cuda3d_engine *, const struct model *, int, char *, size_t);
