/* cuda2d.cu - the 2D TMz CUDA engine: cpu/update2d.inc statement for
 * statement (same order, slots, CPML with psi only in the slabs, Mur, point
 * source, running DFT), float or double, so that the float fields are
 * bit-identical to the CPU engine in its flush mode (common.cuh).
 *
 * Staggering as core/model.h: cell (i, j) holds Ez(i, j), Hx(i, j+1/2),
 * Hy(i+1/2, j); arrays [ny][px], px = nx rounded up to 32 elements (aligned,
 * coalesced rows).  Per step: one H kernel, (Mur save), one E kernel, (Mur
 * apply), slots, point, DFT: the two-kernel scheme of De Donno et al. (2010)
 * with a thread per cell in 32 x 8 blocks.
 */
#include "common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__constant__ float c2_cezh_f[MODEL_MAX_MATERIALS];
__constant__ double c2_cezh_d[MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T cezh2(uint8_t m);
template <> __device__ __forceinline__ float cezh2<float>(uint8_t m) { return c2_cezh_f[m]; }
template <> __device__ __forceinline__ double cezh2<double>(uint8_t m) { return c2_cezh_d[m]; }

template <typename T> struct Dev2 {
    T *ez, *hx, *hy, *re, *im;
    T *psi_hxy, *psi_ezy, *psi_hyx, *psi_ezx; /* [2][N][px], [2][N][px], [2][ny][N], [2][ny][N] */
    const uint8_t *mat;
    const T *pb[4], *pc[4], *pik[4]; /* xe xh ye yh */
    int nx, ny, px, N;
    T ch;
};

/* Hx, Hy of cell (i, j):  see update2d.inc. */
template <typename T, bool F> __global__ void k_h2(Dev2<T> d)
{
    typedef Ar<T, F> A;
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= d.nx || j >= d.ny)
        return;
    const long long c = i + (long long)j * d.px;
    int k;
    if (j <= d.ny - 2) {
        const T dd = A::sub(d.ez[c + d.px], d.ez[c]);
        const int s = dslab_h(d.ny, d.N, j, &k);
        if (s < 0) {
            d.hx[c] = A::sub(d.hx[c], A::mul(d.ch, dd));
        } else {
            T *p = d.psi_hxy + ((long long)s * d.N + k) * d.px + i;
            const T q = A::add(A::mul(d.pb[3][j], *p), A::mul(d.pc[3][j], dd));
            *p = q;
            d.hx[c] = A::sub(d.hx[c], A::mul(d.ch, A::add(A::mul(dd, d.pik[3][j]), q)));
        }
    }
    if (i <= d.nx - 2) {
        const T dd = A::sub(d.ez[c + 1], d.ez[c]);
        const int s = dslab_h(d.nx, d.N, i, &k);
        if (s < 0) {
            d.hy[c] = A::add(d.hy[c], A::mul(d.ch, dd));
        } else {
            T *p = d.psi_hyx + ((long long)s * d.ny + j) * d.N + k;
            const T q = A::add(A::mul(d.pb[1][i], *p), A::mul(d.pc[1][i], dd));
            *p = q;
            d.hy[c] = A::add(d.hy[c], A::mul(d.ch, A::add(A::mul(dd, d.pik[1][i]), q)));
        }
    }
}

template <typename T, bool F> __global__ void k_e2(Dev2<T> d)
{
    typedef Ar<T, F> A;
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i > d.nx - 2 || j > d.ny - 2)
        return;
    const long long c = i + (long long)j * d.px;
    const T dy = A::sub(d.hy[c], d.hy[c - 1]), dx = A::sub(d.hx[c], d.hx[c - d.px]);
    T tx = dy, ty = dx;
    int kx, ky;
    const int sx = dslab_e(d.nx, d.N, i, &kx), sy = dslab_e(d.ny, d.N, j, &ky);
    if (sx >= 0) {
        T *p = d.psi_ezx + ((long long)sx * d.ny + j) * d.N + kx;
        const T q = A::add(A::mul(d.pb[0][i], *p), A::mul(d.pc[0][i], dy));
        *p = q;
        tx = A::add(A::mul(dy, d.pik[0][i]), q);
    }
    if (sy >= 0) {
        T *p = d.psi_ezy + ((long long)sy * d.N + ky) * d.px + i;
        const T q = A::add(A::mul(d.pb[2][j], *p), A::mul(d.pc[2][j], dx));
        *p = q;
        ty = A::add(A::mul(dx, d.pik[2][j]), q);
    }
    d.ez[c] = A::add(d.ez[c], A::mul(cezh2<T>(d.mat[c]), A::sub(tx, ty)));
}

/* Mur: old[0..] = neighbour values before E (left col 1, right col nx-2 for
 * rows 1..ny-2; bottom row 1, top row ny-2 for columns 1..nx-2), then
 * wall = o1 + k (n1 - o0). */
template <typename T, bool F, bool APPLY> __global__ void k_mur2(Dev2<T> d, T *old, T kmur)
{
    typedef Ar<T, F> A;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int rows = d.ny - 2, cols = d.nx - 2;
    long long w, nb;
    if (t < 2 * rows) {
        const int j = 1 + t % rows, right = t / rows;
        w = (long long)j * d.px + (right ? d.nx - 1 : 0);
        nb = right ? w - 1 : w + 1;
    } else if (t < 2 * rows + 2 * cols) {
        const int u = t - 2 * rows, i = 1 + u % cols, top = u / cols;
        w = i + (top ? (long long)(d.ny - 1) * d.px : 0);
        nb = top ? w - d.px : w + d.px;
    } else {
        return;
    }
    if (!APPLY)
        old[t] = d.ez[nb];
    else
        d.ez[w] = A::add(old[t], A::mul(kmur, A::sub(d.ez[nb], d.ez[w])));
}

template <typename T, bool F>
__global__ void k_slots2(T *ez, const long long *cell, const uint8_t *pec, const T *v, long long n)
{
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < n)
        ez[cell[t]] = pec[t] ? v[t] : Ar<T, F>::add(ez[cell[t]], v[t]);
}

template <typename T, bool F> __global__ void k_point2(T *ez, long long c, T v)
{
    ez[c] = Ar<T, F>::add(ez[c], v);
}

template <typename T, bool F> __global__ void k_dft2(Dev2<T> d, T wr, T wi)
{
    typedef Ar<T, F> A;
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= d.nx || j >= d.ny)
        return;
    const long long c = i + (long long)j * d.px;
    d.re[c] = A::add(d.re[c], A::mul(wr, d.ez[c]));
    d.im[c] = A::add(d.im[c], A::mul(wi, d.ez[c]));
}

struct cuda2d_engine {
    struct engine base;
    int dev;
    char devname[320];
    int nx, ny, px, N;
    size_t cells;
    void *ez, *hx, *hy, *re, *im, *psi[4], *prof[4][3], *mur_old;
    uint8_t *mat;
    long long *slot_cell;
    uint8_t *slot_pec;
    void *slot_v_d, *slot_v_h;
};

template <typename T> static Dev2<T> view2(const cuda2d_engine *c, const struct model *m)
{
    Dev2<T> d;
    memset(&d, 0, sizeof d);
    d.ez = (T *)c->ez;
    d.hx = (T *)c->hx;
    d.hy = (T *)c->hy;
    d.re = (T *)c->re;
    d.im = (T *)c->im;
    d.psi_hxy = (T *)c->psi[0];
    d.psi_ezy = (T *)c->psi[1];
    d.psi_hyx = (T *)c->psi[2];
    d.psi_ezx = (T *)c->psi[3];
    d.mat = c->mat;
    for (int a = 0; a < 4; a++) {
        d.pb[a] = (const T *)c->prof[a][0];
        d.pc[a] = (const T *)c->prof[a][1];
        d.pik[a] = (const T *)c->prof[a][2];
    }
    d.nx = c->nx;
    d.ny = c->ny;
    d.px = c->px;
    d.N = c->N;
    d.ch = sizeof(T) == 4 ? (T)m->ch_f : (T)m->ch;
    return d;
}

template <typename T, bool F>
static int step2(cuda2d_engine *c, const struct model *m, int n, char *err, size_t errlen)
{
    const Dev2<T> d = view2<T>(c, m);
    const dim3 b(32, 8), g((unsigned)((c->nx + 31) / 32), (unsigned)((c->ny + 7) / 8));
    const bool mur = m->scene->boundary == BOUNDARY_MUR;
    const bool point = m->scene->source_type == SOURCE_POINT;
    const size_t p = point ? model_point_cell(m) : 0;
    const long long pc = (long long)(p % (size_t)c->nx) + (long long)(p / (size_t)c->nx) * c->px;
    const T kmur = sizeof(T) == 4 ? (T)m->mur_k_f : (T)m->mur_k;
    const unsigned nmur = (unsigned)((2 * (c->nx - 2) + 2 * (c->ny - 2) + 255) / 256);
    for (int s = 0; s < n; s++) {
        const int t = c->base.step + s;
        if (m->nslots) {
            if (sizeof(T) == 4)
                model_slot_values_f(m, t, (float *)c->slot_v_h);
            else
                model_slot_values_d(m, t, (double *)c->slot_v_h);
            CK(cudaMemcpyAsync(c->slot_v_d, c->slot_v_h, m->nslots * sizeof(T), cudaMemcpyHostToDevice));
        }
        k_h2<T, F><<<g, b>>>(d);
        if (mur)
            k_mur2<T, F, false><<<nmur, 256>>>(d, (T *)c->mur_old, kmur);
        k_e2<T, F><<<g, b>>>(d);
        if (mur)
            k_mur2<T, F, true><<<nmur, 256>>>(d, (T *)c->mur_old, kmur);
        if (m->nslots)
            k_slots2<T, F><<<(unsigned)((m->nslots + 255) / 256), 256>>>(
                d.ez, c->slot_cell, c->slot_pec, (const T *)c->slot_v_d, (long long)m->nslots);
        if (point)
            k_point2<T, F><<<1, 1>>>(d.ez, pc, (T)(sizeof(T) == 4 ? (double)(float)model_point_value(m, t)
                                                                  : model_point_value(m, t)));
        if (m->scene->dft && t + 1 > m->scene->dft_start) {
            double wr, wi;
            model_dft_weight(m, t + 1, &wr, &wi);
            k_dft2<T, F><<<g, b>>>(d, (T)wr, (T)wi);
        }
        CK(cudaGetLastError());
    }
    return 0;
}

static int cuda2d_step(struct engine *e, int n, char *err, size_t errlen)
{
    cuda2d_engine *c = (cuda2d_engine *)e;
    CK(cudaSetDevice(c->dev));
    int rc;
    if (e->opt.precision == PRECISION_DOUBLE)
        rc = step2<double, false>(c, e->model, n, err, errlen);
    else if (e->opt.denormals == DENORMALS_FLUSH)
        rc = step2<float, true>(c, e->model, n, err, errlen);
    else
        rc = step2<float, false>(c, e->model, n, err, errlen);
    if (rc)
        return rc;
    CK(cudaDeviceSynchronize()); /* asynchronous faults surface here; callers time whole calls */
    return 0;
}

static void cuda2d_destroy(struct engine *e)
{
    cuda2d_engine *c = (cuda2d_engine *)e;
    if (!c)
        return;
    cudaFree(c->ez);
    cudaFree(c->hx);
    cudaFree(c->hy);
    cudaFree(c->re);
    cudaFree(c->im);
    for (int k = 0; k < 4; k++) {
        cudaFree(c->psi[k]);
        for (int q = 0; q < 3; q++)
            cudaFree(c->prof[k][q]);
    }
    cudaFree(c->mur_old);
    cudaFree(c->mat);
    cudaFree(c->slot_cell);
    cudaFree(c->slot_pec);
    cudaFree(c->slot_v_d);
    cudaFreeHost(c->slot_v_h);
    free(c);
}

static int cuda2d_create(const struct model *m, const struct engine_options *o,
                         struct engine **out, char *err, size_t errlen)
{
    *out = NULL;
    if (m->nz > 1)
        return seterr(err, errlen, "cuda 2D engine: the scene is 3D");
    int dev = 0;
    cudaDeviceProp prop;
    if (cuda_pick_device(o->device, &dev, &prop, err, errlen))
        return -1;
    cuda2d_engine *c = (cuda2d_engine *)calloc(1, sizeof *c);
    if (!c)
        return seterr(err, errlen, "cuda 2D engine: out of host memory");
    c->dev = dev;
    snprintf(c->devname, sizeof c->devname, "%s (sm_%d%d, %.1f GiB)", prop.name, prop.major,
             prop.minor, prop.totalGlobalMem / 1073741824.0);
    c->nx = m->nx;
    c->ny = m->ny;
    c->px = (m->nx + 31) / 32 * 32;
    c->N = m->pml_n;
    c->cells = (size_t)c->px * c->ny;
    const size_t es = precision_size(o->precision), N = (size_t)c->N;
    const size_t psi_b = 2 * N * ((size_t)c->px + (size_t)c->ny) * 2 * es;
    const size_t per_cell = (3 + (m->scene->dft ? 2 : 0)) * es + 1;
    const size_t need = c->cells * per_cell + psi_b + m->nslots * (9 + es) + (64u << 20);
    if (cuda_check_memory("cuda 2D", need, per_cell, err, errlen)) {
        free(c);
        return -1;
    }
#define ALLOC(p, bytes)                                                                       \
    do {                                                                                      \
        const size_t b_ = (size_t)(bytes) > 0 ? (size_t)(bytes) : 1;                          \
        cudaError_t e_ = cudaMalloc((void **)&(p), b_);                                       \
        if (e_ == cudaSuccess)                                                                \
            e_ = cudaMemset((p), 0, b_);                                                      \
        if (e_ != cudaSuccess) {                                                              \
            seterr(err, errlen, "cuda 2D: cannot allocate %zu bytes: %s", (size_t)(bytes),    \
                   cudaGetErrorString(e_));                                                   \
            goto fail;                                                                        \
        }                                                                                     \
    } while (0)
    ALLOC(c->ez, c->cells * es);
    ALLOC(c->hx, c->cells * es);
    ALLOC(c->hy, c->cells * es);
    if (m->scene->dft) {
        ALLOC(c->re, c->cells * es);
        ALLOC(c->im, c->cells * es);
    }
    ALLOC(c->mat, c->cells);
    if (cudaMemcpy2D(c->mat, c->px, m->mat, m->nx, m->nx, m->ny, cudaMemcpyHostToDevice) != cudaSuccess) {
        seterr(err, errlen, "cuda 2D: cannot copy the material map");
        goto fail;
    }
    if (N) {
        ALLOC(c->psi[0], 2 * N * c->px * es);
        ALLOC(c->psi[1], 2 * N * c->px * es);
        ALLOC(c->psi[2], 2 * N * c->ny * es);
        ALLOC(c->psi[3], 2 * N * c->ny * es);
        const struct pml_axis *ax[4] = {&m->pml_xe, &m->pml_xh, &m->pml_ye, &m->pml_yh};
        const int len[4] = {m->nx, m->nx, m->ny, m->ny};
        for (int a = 0; a < 4; a++) {
            const void *src[3] = {es == 4 ? (const void *)ax[a]->bf : ax[a]->b,
                                  es == 4 ? (const void *)ax[a]->cf : ax[a]->c,
                                  es == 4 ? (const void *)ax[a]->ikf : ax[a]->ik};
            for (int q = 0; q < 3; q++) {
                ALLOC(c->prof[a][q], len[a] * es);
                if (cudaMemcpy(c->prof[a][q], src[q], len[a] * es, cudaMemcpyHostToDevice) != cudaSuccess) {
                    seterr(err, errlen, "cuda 2D: cannot copy CPML profiles");
                    goto fail;
                }
            }
        }
    }
    if (m->scene->boundary == BOUNDARY_MUR)
        ALLOC(c->mur_old, (2 * (size_t)c->nx + 2 * (size_t)c->ny) * es);
    if (m->nslots) {
        long long *cell = (long long *)malloc(m->nslots * sizeof *cell);
        uint8_t *pec = (uint8_t *)malloc(m->nslots);
        if (!cell || !pec) {
            free(cell);
            free(pec);
            seterr(err, errlen, "cuda 2D: out of host memory");
            goto fail;
        }
        for (size_t k = 0; k < m->nslots; k++) {
            const size_t s = m->slot_cell[k];
            cell[k] = (long long)(s % (size_t)m->nx) + (long long)(s / (size_t)m->nx) * c->px;
            pec[k] = m->mats[m->mat[s]].kind == MATERIAL_PEC;
        }
        ALLOC(c->slot_cell, m->nslots * sizeof *cell);
        ALLOC(c->slot_pec, m->nslots);
        ALLOC(c->slot_v_d, m->nslots * es);
        cudaError_t e1 = cudaMemcpy(c->slot_cell, cell, m->nslots * sizeof *cell, cudaMemcpyHostToDevice);
        cudaError_t e2 = cudaMemcpy(c->slot_pec, pec, m->nslots, cudaMemcpyHostToDevice);
        cudaError_t e3 = cudaMallocHost(&c->slot_v_h, m->nslots * es);
        free(cell);
        free(pec);
        if (e1 != cudaSuccess || e2 != cudaSuccess || e3 != cudaSuccess) {
            seterr(err, errlen, "cuda 2D: cannot set up the source slots");
            goto fail;
        }
    }
    {
        float cf[MODEL_MAX_MATERIALS] = {0};
        double cd[MODEL_MAX_MATERIALS] = {0};
        for (int k = 0; k < m->nmats; k++) {
            cf[k] = m->mats[k].cezh_f;
            cd[k] = m->mats[k].cezh;
        }
        if (cudaMemcpyToSymbol(c2_cezh_f, cf, sizeof cf) != cudaSuccess
            || cudaMemcpyToSymbol(c2_cezh_d, cd, sizeof cd) != cudaSuccess) {
            seterr(err, errlen, "cuda 2D: cannot set the coefficient table");
            goto fail;
        }
    }
#undef ALLOC
    *out = &c->base;
    return 0;
fail:
    cuda2d_destroy(&c->base);
    return -1;
}

static void *field_ptr(cuda2d_engine *c, enum field f)
{
    switch (f) {
    case FIELD_EZ: return c->ez;
    case FIELD_HX: return c->hx;
    case FIELD_HY: return c->hy;
    case FIELD_EZ_DFT_RE: return c->re;
    case FIELD_EZ_DFT_IM: return c->im;
    default: return NULL;
    }
}

static int cuda2d_read(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    cuda2d_engine *c = (cuda2d_engine *)e;
    void *src = field_ptr(c, f);
    if (!src)
        return seterr(err, errlen, "cuda 2D engine: no field %s in this scene", field_name(f));
    const size_t es = precision_size(e->opt.precision);
    CK(cudaSetDevice(c->dev));
    CK(cudaMemcpy2D(dst, c->nx * es, src, c->px * es, c->nx * es, c->ny, cudaMemcpyDeviceToHost));
    return 0;
}

static int cuda2d_write(struct engine *e, enum field f, const void *src, char *err, size_t errlen)
{
    cuda2d_engine *c = (cuda2d_engine *)e;
    void *dst = field_ptr(c, f);
    if (!dst)
        return seterr(err, errlen, "cuda 2D engine: no field %s in this scene", field_name(f));
    const size_t es = precision_size(e->opt.precision);
    CK(cudaSetDevice(c->dev));
    CK(cudaMemcpy2D(dst, c->px * es, src, c->nx * es, c->nx * es, c->ny, cudaMemcpyHostToDevice));
    return 0;
}

static void cuda2d_describe(const struct engine *e, struct engine_info *info)
{
    const cuda2d_engine *c = (const cuda2d_engine *)e;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(info->engine, sizeof info->engine, "cuda");
    snprintf(info->device, sizeof info->device, "%.250s", c->devname);
    snprintf(info->detail, sizeof info->detail, "2D TMz, CUDA driver %d, runtime %d, row pitch %d, denormals %s",
             drv, rt, c->px,
             e->opt.precision == PRECISION_DOUBLE ? "keep (double)" : denormals_name(e->opt.denormals));
}

extern "C" const struct engine_ops cuda_engine_ops = {
    "cuda",
    ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_DFT | ENGINE_CAP_POINT,
    "2D CUDA, float or double, bit-identical to cpu in flush mode",
    cuda2d_create,
    cuda2d_step,
    cuda2d_read,
    cuda2d_describe,
    cuda2d_destroy,
    cuda2d_write,
    NULL,
};
