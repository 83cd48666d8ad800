/* cuda3d_tb.cu - the temporally blocked step of the 3D CUDA engine
 * (TEXFDTD_CUDA3D=temporal): K = 2, 3 or 4 whole steps (H then E, the
 * source slots, the point source) per launch of one kernel, k_tb3, on the
 * fused path's ping-pong buffers.  docs/cuda.md ("Temporal blocking")
 * explains the design; this comment is the short version.
 *
 * The idea is the 2.5D blocking of the stencil literature (an x-y tile
 * marching in z with a queue of planes per time level; the 2D engine's
 * k_tb2 is the same idea one dimension down), in the spirit of the
 * temporally blocked H100 scheme of Lu et al. 2025 (arXiv:2502.20610),
 * without its systolic inter-block communication: tiles overlap and each
 * recomputes a K-deep halo instead.
 *
 * Tile: a block is 32 x TY threads, a thread per column (i, j) of a 32 x TY
 * tile of the x-y plane.  One step loses one column on each side of what is
 * valid (H(i) needs E(i+1), E(i) needs H(i-1)), so after K steps the middle
 * (32 - 2K) x (TY - 2K) columns are valid: those are the block's own, and
 * the tiles are laid 32 - 2K (TY - 2K) apart so that the own columns
 * partition the plane.  Cells outside the grid compute garbage that no
 * valid cell reads: at the grid's faces update3d.inc updates no component
 * that would read across the face.
 *
 * z queue: the block marches up its planes; in iteration t, level s (1..K)
 * computes H then E of plane k = zs + t - (s - 1), one plane behind level
 * s - 1, from what level s - 1 made in this iteration (plane k + 1) and the
 * previous one (plane k).  Each thread keeps, per level, the E and H of the
 * last plane that level made (registers, 6 K values); the neighbours' values
 * in x and y go through shared memory (one plane of E, one of H: two
 * barriers per level and plane).  Level 1 reads E, H of step n from the old
 * buffers; level K writes the own cells of planes z0 .. z1-1 into the new
 * ones.  With z chunks (TEXFDTD_CUDA3D_TBZ) the march starts K planes below
 * the chunk (zs = z0 - K), the z halo, recomputed like the x-y one.
 *
 * Bits: every value is made by hx3, hy3, hz3 and e3 of cuda3d_fused.cuh
 * (the fused kernel's own per-cell functions, core/yee.h's arithmetic) from
 * the same inputs as in cpu3d, then the slot and the point source of that
 * step in cuda3d_sources.cu's order; the halo recomputes the same values
 * (sources included, so a source in the halo is seen), so a stored cell is
 * cpu3d's bits.
 *
 * Not here (the engine steps such scenes on the fused path, one step per
 * launch, and says so): CPML, Mur, mu_r and poles (two kernels), monitors,
 * MPI.  Lossy materials are (L, e3's lossy update).  Steps that are not a multiple of K: the rest run
 * on the fused path, after the blocks (the same bits).
 */
#include "cuda3d_fused.cuh"

template <typename T> struct Tb3Src {
    long long pc; /* the point source's array index, or -1 */
    T pv[4];      /* its values for the launch's K steps */
    /* the source slots (NULL map: none): slot number per padded cell (-1
     * elsewhere), per slot its kind (k_slots: 0 add, 1 set, 2 leave), the
     * values [K][ns] of the launch's steps */
    const int *slot_map;
    const uint8_t *slot_kind;
    const T *slot_v;
    long long ns;
    int kz; /* planes per block (the z chunk) */
};

/* K steps over the own columns of tile (blockIdx.x, blockIdx.y), planes
 * blockIdx.z * kz .. +kz-1.  L: the lossy update, S: three E maps (3D
 * smoothing), as k_fused3. */
template <typename T, bool F, int K, int TY, bool L, bool S>
__global__ void __launch_bounds__(32 * TY) k_tb3(PP3<T> p, Tb3Src<T> src)
{
    typedef Yee<T, F> Y;
    const Dev3<T> &d = p.o;
    /* one plane of E (level s-1) and of H (level s) of the tile */
    __shared__ T s_ex[TY][32], s_ey[TY][32], s_ez[TY][32], s_hx[TY][32], s_hy[TY][32], s_hz[TY][32];
    const int lane = threadIdx.x, w = threadIdx.y;
    const int i = (int)blockIdx.x * (32 - 2 * K) - K + lane;
    const int j = (int)blockIdx.y * (TY - 2 * K) - K + w;
    const int z0 = (int)blockIdx.z * src.kz, z1 = min(z0 + src.kz, d.nz);
    const int zs = z0 - K; /* level 1's first plane: the z halo */
    const bool ok = i >= 0 && i < d.nx && j >= 0 && j < d.ny;
    const bool own = ok && lane >= K && lane < 32 - K && w >= K && w < TY - K;
    const long long cj = ok ? i + j * d.sy : 0;
    /* neighbours in shared memory; at the tile's rim a thread reads its own
     * slot instead (the rim is halo: never valid after the first step) */
    const int lp = lane < 31 ? lane + 1 : lane, lm = lane > 0 ? lane - 1 : lane;
    const int wp = w < TY - 1 ? w + 1 : w, wm = w > 0 ? w - 1 : w;
    /* per level: E of levels 0 .. K-1 and H of levels 1 .. K (index s-1) of
     * the plane that level made last */
    T EX[K], EY[K], EZ[K], HX[K], HY[K], HZ[K];
#pragma unroll
    for (int s = 0; s < K; s++)
        EX[s] = EY[s] = EZ[s] = HX[s] = HY[s] = HZ[s] = T(0);
    if (ok && zs >= 0) {
        const long long c = cj + (long long)(zs - d.kb) * d.sz;
        EX[0] = d.ex[c];
        EY[0] = d.ey[c];
        EZ[0] = d.ez[c];
    }
    const int iters = (z1 - z0) + 2 * K - 1;
    for (int t = 0; t < iters; t++) {
        /* level 1's inputs: E of step n at planes k, k+1, H at plane k */
        const int k1 = zs + t;
        T elx = EX[0], ely = EY[0], elz = EZ[0];
        T ehx = T(0), ehy = T(0), ehz = T(0), hox = T(0), hoy = T(0), hoz = T(0);
        if (ok && k1 + 1 >= 0 && k1 + 1 < d.nz) {
            const long long c = cj + (long long)(k1 + 1 - d.kb) * d.sz;
            ehx = d.ex[c];
            ehy = d.ey[c];
            ehz = d.ez[c];
        }
        if (ok && k1 >= 0 && k1 < d.nz) {
            const long long c = cj + (long long)(k1 - d.kb) * d.sz;
            hox = d.hx[c];
            hoy = d.hy[c];
            hoz = d.hz[c];
        }
        EX[0] = ehx;
        EY[0] = ehy;
        EZ[0] = ehz;
#pragma unroll
        for (int s = 1; s <= K; s++) {
            const int k = k1 - (s - 1);
            /* H of this level's previous plane k-1: the E below needs its
             * Hx, Hy, and level s+1 takes it as its old H */
            const T nhx = HX[s - 1], nhy = HY[s - 1], nhz = HZ[s - 1];
            T ex = T(0), ey = T(0), ez = T(0), hx = T(0), hy = T(0), hz = T(0);
            if (k >= 0 && k < d.nz && k >= zs) { /* the same for the whole block */
                s_ex[w][lane] = elx;
                s_ey[w][lane] = ely;
                s_ez[w][lane] = elz;
                __syncthreads();
                const T ezi = s_ez[w][lp], eyi = s_ey[w][lp], ezj = s_ez[wp][lane], exj = s_ex[wp][lane];
                /* no psi: rd = own = false (the fused kernel's arguments
                 * outside the CPML) */
                hx = hx3<T, F, false>(p, i, j, k, false, Y::yee_diff(ezj, elz), Y::yee_diff(ehy, ely), hox, false);
                hy = hy3<T, F, false>(p, i, j, k, false, Y::yee_diff(ehx, elx), Y::yee_diff(ezi, elz), hoy, false);
                hz = hz3<T, F, false>(p, i, j, k, false, Y::yee_diff(eyi, ely), Y::yee_diff(exj, elx), hoz, false);
                s_hx[w][lane] = hx;
                s_hy[w][lane] = hy;
                s_hz[w][lane] = hz;
                __syncthreads();
                ex = elx;
                ey = ely;
                ez = elz;
                if (ok) {
                    const long long c = cj + (long long)(k - d.kb) * d.sz;
                    const uint8_t m0 = d.mat[c];
                    e3<T, F, false, L, S>(p, i, j, k, m0, d.mat + c, ex, ey, ez, hx, hy, hz,
                                              s_hz[wm][lane], nhy, nhx, s_hz[w][lm], s_hy[w][lm],
                                              s_hx[wm][lane]);
                    /* then this step's source slot (only an Ez edge of a
                     * material other than vacuum has one: model_index_cells)
                     * and the point source, as sources_apply */
                    if (src.slot_map && (S ? d.mat[c + 2 * d.ms] : m0) != 0) {
                        const int q = src.slot_map[c];
                        if (q >= 0 && src.slot_kind[q] != 2) {
                            const T v = src.slot_v[(long long)(s - 1) * src.ns + q];
                            ez = src.slot_kind[q] ? v : Y::yee_add(ez, v);
                        }
                    }
                    if (c == src.pc)
                        ez = Y::yee_add(ez, src.pv[s - 1]);
                }
                if (s == K && own && k >= z0) {
                    const long long c = cj + (long long)(k - d.kb) * d.sz;
                    p.hx1[c] = hx;
                    p.hy1[c] = hy;
                    p.hz1[c] = hz;
                    p.ex1[c] = ex;
                    p.ey1[c] = ey;
                    p.ez1[c] = ez;
                }
            }
            if (s < K) {
                /* level s+1 next: E of level s at plane k-1 (made in the
                 * previous iteration) and k (now), H of level s at k-1 */
                const T nex = EX[s], ney = EY[s], nez = EZ[s];
                EX[s] = ex;
                EY[s] = ey;
                EZ[s] = ez;
                elx = nex;
                ely = ney;
                elz = nez;
                ehx = ex;
                ehy = ey;
                ehz = ez;
                hox = nhx;
                hoy = nhy;
                hoz = nhz;
            }
            HX[s - 1] = hx;
            HY[s - 1] = hy;
            HZ[s - 1] = hz;
        }
    }
}

/* The tiles along x and y of one launch. */
static int tb_tiles(int n, int width, int K) { return (n + width - 2 * K - 1) / (width - 2 * K); }

template <typename T, bool F, int K, int TY>
static void launch_tb3_k(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src)
{
    const dim3 b(32, TY), g((unsigned)tb_tiles(c->nx, 32, K), (unsigned)tb_tiles(c->ny, TY, K),
                            (unsigned)((c->nz + src.kz - 1) / src.kz));
    if (c->lossy && c->ms)
        k_tb3<T, F, K, TY, true, true><<<g, b>>>(p, src);
    else if (c->lossy)
        k_tb3<T, F, K, TY, true, false><<<g, b>>>(p, src);
    else if (c->ms)
        k_tb3<T, F, K, TY, false, true><<<g, b>>>(p, src);
    else
        k_tb3<T, F, K, TY, false, false><<<g, b>>>(p, src);
}

template <typename T, bool F, int TY>
static void launch_tb3_ty(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src)
{
    switch (c->tbk) {
    case 2: launch_tb3_k<T, F, 2, TY>(c, p, src); break;
    case 3: launch_tb3_k<T, F, 3, TY>(c, p, src); break;
    default: launch_tb3_k<T, F, 4, TY>(c, p, src); break;
    }
}

/* n steps: blocks of K in k_tb3, the rest on the fused path.  The slot values
 * of the K steps go to the device in one copy (after the last copy out of
 * the pinned buffer has completed: slot_ev, as slots_upload). */
template <typename T, bool F>
int step_tb(cuda3d_engine *c, const struct model *m, int n, char *err, size_t errlen)
{
    const int K = c->tbk, base = c->base.step;
    int s = 0;
    for (; n - s >= K; s += K) {
        const int t = base + s;
        for (int q = 0; q < K; q++)
            decomp_test_hook(t + q);
        Tb3Src<T> src;
        memset(&src, 0, sizeof src);
        src.pc = c->point ? c->pc : -1;
        for (int q = 0; q < K && c->point; q++)
            src.pv[q] = (T)(sizeof(T) == 4 ? (double)(float)model_point_value(m, t + q)
                                           : model_point_value(m, t + q));
        if (c->ns) {
            CK(cudaEventSynchronize(c->slot_ev));
            for (int q = 0; q < K; q++) {
                if (sizeof(T) == 4)
                    model_slot_range_f(m, t + q, c->s0, c->ns, (float *)c->tb_slot_vh + q * c->ns);
                else
                    model_slot_range_d(m, t + q, c->s0, c->ns, (double *)c->tb_slot_vh + q * c->ns);
            }
            CK(cudaMemcpyAsync(c->tb_slot_vd, c->tb_slot_vh, (size_t)K * c->ns * sizeof(T),
                               cudaMemcpyHostToDevice));
            CK(cudaEventRecord(c->slot_ev));
            src.slot_map = c->tb_slot_map;
            src.slot_kind = c->slot_pec;
            src.slot_v = (const T *)c->tb_slot_vd;
            src.ns = (long long)c->ns;
        }
        src.kz = c->tbz > 0 ? c->tbz : c->nz;
        const PP3<T> p = pp3_view<T>(c, m);
        if (c->tby == 16)
            launch_tb3_ty<T, F, 16>(c, p, src);
        else
            launch_tb3_ty<T, F, 32>(c, p, src);
        CK(cudaGetLastError());
        pp3_swap(c); /* no psi here: the H psi pairs are NULL */
    }
    if (s < n) {
        /* the rest, one step a launch; step_fused numbers its steps from
         * base.step, which the engine advances only after this call */
        c->base.step = base + s;
        const int rc = step_fused<T, F>(c, m, n - s, err, errlen);
        c->base.step = base;
        return rc;
    }
    return 0;
}

/* Why the temporal path cannot take this scene (NULL: it can). */
const char *tb_refusal(const cuda3d_engine *c, const struct model *m)
{
    if (c->N > 0)
        return "a CPML (the slabs' psi are not blocked in time yet)";
    if (m->scene->boundary == BOUNDARY_MUR)
        return "Mur walls";
    if (c->dc.size > 1)
        return "MPI ranks (K-deep halos not exchanged yet)";
    if (m->magnetic || m->dispersive)
        return "mu_r or dispersion poles";
    if (m->nsamples)
        return "monitor samples (taken after every step)";
    return NULL;
}

/* At create, for the temporal path: this file's coefficient table, the slot
 * map (slot number per padded cell) and the K-step slot buffers. */
int tb_setup(cuda3d_engine *c, const struct model *m, size_t es, char *err, size_t errlen)
{
    if (cezh_upload(c, err, errlen))
        return -1;
    if (!c->tb || !c->ns)
        return 0;
    int *map = (int *)malloc(c->cells * sizeof *map);
    if (!map)
        return seterr(err, errlen, "cuda 3D: out of host memory");
    for (size_t q = 0; q < c->cells; q++)
        map[q] = -1;
    for (size_t k = 0; k < c->ns; k++) { /* one rank: kb = 0 */
        const size_t s = m->slot_cell[c->s0 + k];
        map[s % (size_t)c->nx + s / (size_t)c->nx * (size_t)c->px] = (int)k;
    }
    cudaError_t e = cudaMalloc((void **)&c->tb_slot_map, c->cells * sizeof *map);
    if (e == cudaSuccess)
        e = cudaMemcpy(c->tb_slot_map, map, c->cells * sizeof *map, cudaMemcpyHostToDevice);
    free(map);
    if (e == cudaSuccess)
        e = cudaMalloc(&c->tb_slot_vd, (size_t)c->tbk * c->ns * es);
    if (e == cudaSuccess)
        e = cudaMallocHost(&c->tb_slot_vh, (size_t)c->tbk * c->ns * es);
    if (e != cudaSuccess)
        return seterr(err, errlen, "cuda 3D: cannot set up the temporal path's source slots: %s",
                      cudaGetErrorString(e));
    return 0;
}

void tb_free(cuda3d_engine *c)
{
    cudaFree(c->tb_slot_map);
    cudaFree(c->tb_slot_vd);
    cudaFreeHost(c->tb_slot_vh);
}

#define INST(T, F) template int step_tb<T, F>(cuda3d_engine *, const struct model *, int, char *, size_t);
CUDA3D_INSTANTIATE_TF(INST)
#undef INST
