/* cuda3d_tbr.cu - the temporally blocked step's second kernel, k_tb3r: the
 * same K steps over the same tiles as k_tb3 (cuda3d_tb.cu), with R rows of
 * the tile a thread instead of one.  docs/cuda.md ("Rows a thread")
 * explains why; this is the short version.
 *
 * k_tb3 was measured bound by instruction issue (Nsight Compute, H100,
 * 512^3: 417 instructions per stored cell-step around some 31
 * floating-point operations; docs/performance.md "where its time goes").
 * Much of that is the data movement between threads: a plane of E and one
 * of H through shared memory at every level (6 stores, 8 loads a cell) and
 * two barriers a level for a thread's one cell.  Here a warp holds R rows
 * of 32 columns, so
 *   - the x neighbours come from the next (E) or previous (H) lane by a
 *     warp shuffle (__shfl_down_sync, __shfl_up_sync: at the tile's rim a
 *     lane gets its own value back, as k_tb3 reads its own slot there);
 *   - the y neighbours are the thread's own next or previous row, except
 *     at the warp's first and last rows, which go through shared memory
 *     (2 stores, 2 loads a level for R cells);
 *   - the two barriers a level serve R cells, and the R rows' loads and
 *     arithmetic are independent (instruction-level parallelism a warp).
 * The tile is 32 x TY with TY = W R (W warps a block), the same as k_tb3's
 * 32 x TY: so the parts of one launch (cuda3d_tb.cu launch_tb3_k) may take
 * either kernel, and their own columns still partition the plane.
 *
 * Bits: every H and E value is made by the same per-cell functions as in
 * k_tb3 (hx3 .. e3, hx_q .. e_q) from the same inputs, then the same
 * sources and samples; only where the inputs come from differs (a
 * register, a shuffle or shared memory instead of shared memory).  So a
 * stored cell is cpu3d's bits; tests/test_cuda.c (cuda3d/temporal_*) runs
 * every temporal case through this kernel too.
 */
#include "cuda3d_tb.cuh"

/* K steps over the own columns of tile (blockIdx.x, blockIdx.y), planes of
 * z chunk blockIdx.z; thread (lane, w) computes column i0 + lane of rows
 * j0 + w R + r, r = 0 .. R-1.  L, S, PM, IN as k_tb3. */
template <typename T, bool F, int K, int W, int R, bool L, bool S, int PM, bool IN>
__global__ void __launch_bounds__(32 * W) k_tb3r(PP3<T> p, Tb3Src<T> src)
{
    typedef Yee<T, F> Y;
    constexpr bool PML = PM != 0;
    constexpr int NP = tb_np<PM>(), TY = W * R, PK = PML ? K : 1, PR = PML ? R : 1;
    const Dev3<T> &d = p.o;
    /* a warp's first row of E (level s-1: Ex, Ez, the next warp's j+1) and
     * its last row of H (level s: Hx, Hz, the next warp's j-1) */
    __shared__ T s_ex[W][32], s_ez[W][32], s_hx[W][32], s_hz[W][32];
    const int lane = threadIdx.x, w = threadIdx.y;
    const int i0 = (int)blockIdx.x * (32 - 2 * K) - K, j0 = (int)blockIdx.y * (TY - 2 * K) - K;
    const int i = i0 + lane, jw = j0 + w * R;
    int z0, z1;
    tb_chunk(d, src, (int)blockIdx.z, &z0, &z1);
    const int zs = z0 - K; /* level 1's first plane: the z halo */
    if (!tb_take<T, K, TY>(d, src.part, i0, j0, zs, z1))
        return;
    const int ax = PM != 1 ? -1 : tb_axis<T, TY>(d, i0, j0);
    const T *pin[NP];
    T *pout[NP];
#pragma unroll
    for (int l = 0; l < NP; l++) {
        const int q = PM == 2 ? l : PM == 1 ? tb_psi_of(l, ax) : 0;
        pin[l] = PML ? d.psi[q] : (const T *)0;
        pout[l] = PML ? p.hpsi1[q] : (T *)0;
    }
    const bool iok = IN || (i >= 0 && i < d.nx), lown = lane >= K && lane < 32 - K;
    bool ok[R], own[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int j = jw + r, row = w * R + r;
        ok[r] = IN || (iok && j >= 0 && j < d.ny);
        own[r] = ok[r] && lown && row >= K && row < TY - K;
    }
    /* the array index of (i, jw, 0), from which row r lies r sy further */
    const long long cw = (long long)i + (long long)jw * d.sy - (long long)d.kb * d.sz;
    /* per level and row: E of levels 0 .. K-1 and H of levels 1 .. K (index
     * s-1) of the plane that level made last; PML: the psi of levels 1 .. K */
    T EX[K][R], EY[K][R], EZ[K][R], HX[K][R], HY[K][R], HZ[K][R];
    T PS[PK][PR][NP];
#pragma unroll
    for (int s = 0; s < K; s++)
#pragma unroll
        for (int r = 0; r < R; r++)
            EX[s][r] = EY[s][r] = EZ[s][r] = HX[s][r] = HY[s][r] = HZ[s][r] = T(0);
#pragma unroll
    for (int s = 0; s < PK; s++)
#pragma unroll
        for (int r = 0; r < PR; r++)
#pragma unroll
            for (int q = 0; q < NP; q++)
                PS[s][r][q] = T(0);
#pragma unroll
    for (int r = 0; r < R; r++)
        if (IN || (ok[r] && zs >= 0)) {
            const long long c = cw + (long long)r * d.sy + (long long)zs * d.sz;
            EX[0][r] = d.ex[c];
            EY[0][r] = d.ey[c];
            EZ[0][r] = d.ez[c];
        }
    const int iters = (z1 - z0) + 2 * K - 1;
    for (int t = 0; t < iters; t++) {
        /* level 1's inputs: E of step n at planes k, k+1, H (and psi) at plane k */
        const int k1 = zs + t;
        T elx[R], ely[R], elz[R], ehx[R], ehy[R], ehz[R], hox[R], hoy[R], hoz[R];
        T po[PR][NP]; /* the psi of the level before, this plane */
#pragma unroll
        for (int r = 0; r < R; r++) {
            elx[r] = EX[0][r];
            ely[r] = EY[0][r];
            elz[r] = EZ[0][r];
            ehx[r] = ehy[r] = ehz[r] = hox[r] = hoy[r] = hoz[r] = T(0);
            if (IN || (ok[r] && k1 + 1 >= 0 && k1 + 1 < d.nz)) {
                const long long c = cw + (long long)r * d.sy + (long long)(k1 + 1) * d.sz;
                ehx[r] = d.ex[c];
                ehy[r] = d.ey[c];
                ehz[r] = d.ez[c];
            }
            if (IN || (ok[r] && k1 >= 0 && k1 < d.nz)) {
                const long long c = cw + (long long)r * d.sy + (long long)k1 * d.sz;
                hox[r] = d.hx[c];
                hoy[r] = d.hy[c];
                hoz[r] = d.hz[c];
            }
        }
#pragma unroll
        for (int r = 0; r < PR; r++)
#pragma unroll
            for (int q = 0; q < NP; q++) {
                po[r][q] = T(0);
                if (PML && ok[r] && k1 >= 0 && k1 < d.nz) {
                    const long long at = psi_index(d, PM == 2 ? q : tb_psi_of(q, ax), i, jw + r, k1);
                    if (at >= 0)
                        po[r][q] = pin[q][at];
                }
            }
#pragma unroll
        for (int r = 0; r < R; r++) {
            EX[0][r] = ehx[r];
            EY[0][r] = ehy[r];
            EZ[0][r] = ehz[r];
        }
#pragma unroll
        for (int s = 1; s <= K; s++) {
            const int k = k1 - (s - 1);
            const long long ck = cw + (long long)k * d.sz; /* row 0 of plane k */
            T ex[R], ey[R], ez[R], hx[R], hy[R], hz[R], nhx[R], nhy[R], nhz[R];
            T pn[PR][NP]; /* this level's psi of plane k */
#pragma unroll
            for (int r = 0; r < R; r++) {
                /* H of this level's previous plane k-1: the E below needs
                 * its Hx, Hy, and level s+1 takes it as its old H */
                nhx[r] = HX[s - 1][r];
                nhy[r] = HY[s - 1][r];
                nhz[r] = HZ[s - 1][r];
                ex[r] = ey[r] = ez[r] = hx[r] = hy[r] = hz[r] = T(0);
            }
#pragma unroll
            for (int r = 0; r < PR; r++)
#pragma unroll
                for (int q = 0; q < NP; q++)
                    pn[r][q] = po[r][q];
            if ((IN || (k >= 0 && k < d.nz)) && k >= zs) { /* the same for the whole block */
                /* the material bytes first: their loads wait behind H */
                uint8_t m0[R];
#pragma unroll
                for (int r = 0; r < R; r++)
                    m0[r] = ok[r] ? d.mat[ck + (long long)r * d.sy] : 0;
                s_ex[w][lane] = elx[0];
                s_ez[w][lane] = elz[0];
                __syncthreads();
                /* row R-1's j+1: the next warp's first row (the tile's last
                 * row: its own, the rim) */
                const T exn = w < W - 1 ? s_ex[w + 1][lane] : elx[R - 1];
                const T ezn = w < W - 1 ? s_ez[w + 1][lane] : elz[R - 1];
#pragma unroll
                for (int r = 0; r < R; r++) {
                    const T ezj = r < R - 1 ? elz[r + 1] : ezn, exj = r < R - 1 ? elx[r + 1] : exn;
                    const T ezi = __shfl_down_sync(FULL_MASK3, elz[r], 1);
                    const T eyi = __shfl_down_sync(FULL_MASK3, ely[r], 1);
                    const T dhx1 = Y::yee_diff(ezj, elz[r]), dhx2 = Y::yee_diff(ehy[r], ely[r]);
                    const T dhy1 = Y::yee_diff(ehx[r], elx[r]), dhy2 = Y::yee_diff(ezi, elz[r]);
                    const T dhz1 = Y::yee_diff(eyi, ely[r]), dhz2 = Y::yee_diff(exj, elx[r]);
                    const int j = jw + r;
                    if (PML) {
                        hx[r] = hx_q<T, F, PM>(d, i, j, k, dhx1, dhx2, hox[r], po[PML ? r : 0], pn[PML ? r : 0], ax);
                        hy[r] = hy_q<T, F, PM>(d, i, j, k, dhy1, dhy2, hoy[r], po[PML ? r : 0], pn[PML ? r : 0], ax);
                        hz[r] = hz_q<T, F, PM>(d, i, j, k, dhz1, dhz2, hoz[r], po[PML ? r : 0], pn[PML ? r : 0], ax);
                    } else {
                        hx[r] = hx3<T, F, false, IN>(p, i, j, k, false, dhx1, dhx2, hox[r], false);
                        hy[r] = hy3<T, F, false, IN>(p, i, j, k, false, dhy1, dhy2, hoy[r], false);
                        hz[r] = hz3<T, F, false, IN>(p, i, j, k, false, dhz1, dhz2, hoz[r], false);
                    }
                }
                s_hx[w][lane] = hx[R - 1];
                s_hz[w][lane] = hz[R - 1];
                __syncthreads();
                /* row 0's j-1: the previous warp's last row (the tile's
                 * first row: its own) */
                const T hxp = w > 0 ? s_hx[w - 1][lane] : hx[0];
                const T hzp = w > 0 ? s_hz[w - 1][lane] : hz[0];
#pragma unroll
                for (int r = 0; r < R; r++) {
                    const T hz_jm = r > 0 ? hz[r - 1] : hzp, hx_jm = r > 0 ? hx[r - 1] : hxp;
                    const T hz_im = __shfl_up_sync(FULL_MASK3, hz[r], 1);
                    const T hy_im = __shfl_up_sync(FULL_MASK3, hy[r], 1);
                    const int j = jw + r;
                    const long long c = ck + (long long)r * d.sy;
                    ex[r] = elx[r];
                    ey[r] = ely[r];
                    ez[r] = elz[r];
                    if (ok[r]) {
                        if (PML)
                            e_q<T, F, L, S, PM>(d, i, j, k, m0[r], d.mat + c, ex[r], ey[r], ez[r], hx[r], hy[r],
                                                hz[r], hz_jm, nhy[r], nhx[r], hz_im, hy_im, hx_jm,
                                                po[PML ? r : 0], pn[PML ? r : 0], ax);
                        else
                            e3<T, F, false, L, S, IN>(p, i, j, k, m0[r], d.mat + c, ex[r], ey[r], ez[r], hx[r],
                                                      hy[r], hz[r], hz_jm, nhy[r], nhx[r], hz_im, hy_im,
                                                      hx_jm);
                        /* this step's source slot and point source (k_tb3's order) */
                        if (src.slot_map && (S ? d.mat[c + 2 * d.ms] : m0[r]) != 0) {
                            const int q = src.slot_map[c];
                            if (q >= 0 && src.slot_kind[q] != 2) {
                                const T v = src.slot_v[(long long)(s - 1) * src.ns + q];
                                ez[r] = src.slot_kind[q] ? v : Y::yee_add(ez[r], v);
                            }
                        }
                        if (src.pc >= 0 && c == src.pc)
                            ez[r] = Y::yee_add(ez[r], src.pv[s - 1]);
                        if (src.smap && s <= src.srows && own[r] && k >= z0 && k < z1) {
                            for (int q = src.smap[c]; q >= 0; q = src.snext[q]) {
                                const int f = src.sf[q];
                                src.srow[(long long)(s - 1) * src.sn + q] =
                                    f == 0 ? ex[r] : f == 1 ? ey[r] : f == 2 ? ez[r] : f == 3 ? hx[r] : f == 4 ? hy[r] : hz[r];
                            }
                        }
                    }
                    if (s == K && own[r] && k >= z0) {
                        p.hx1[c] = hx[r];
                        p.hy1[c] = hy[r];
                        p.hz1[c] = hz[r];
                        p.ex1[c] = ex[r];
                        p.ey1[c] = ey[r];
                        p.ez1[c] = ez[r];
                        if (PML) {
#pragma unroll
                            for (int l = 0; l < NP; l++) {
                                const long long at = psi_index(d, PM == 2 ? l : tb_psi_of(l, ax), i, j, k);
                                if (at >= 0)
                                    pout[l][at] = pn[PML ? r : 0][l];
                            }
                        }
                    }
                }
            }
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (s < K) {
                    /* level s+1 next: E of level s at plane k-1 (made in
                     * the previous iteration) and k (now), H and psi of
                     * level s at k-1 */
                    const T nex = EX[s][r], ney = EY[s][r], nez = EZ[s][r];
                    EX[s][r] = ex[r];
                    EY[s][r] = ey[r];
                    EZ[s][r] = ez[r];
                    elx[r] = nex;
                    ely[r] = ney;
                    elz[r] = nez;
                    ehx[r] = ex[r];
                    ehy[r] = ey[r];
                    ehz[r] = ez[r];
                    hox[r] = nhx[r];
                    hoy[r] = nhy[r];
                    hoz[r] = nhz[r];
                }
                HX[s - 1][r] = hx[r];
                HY[s - 1][r] = hy[r];
                HZ[s - 1][r] = hz[r];
            }
            if (PML) {
#pragma unroll
                for (int r = 0; r < PR; r++)
#pragma unroll
                    for (int q = 0; q < NP; q++) {
                        const T x = PS[PML ? s - 1 : 0][r][q];
                        PS[PML ? s - 1 : 0][r][q] = pn[r][q];
                        po[r][q] = x;
                    }
            }
        }
    }
}

template <typename T, bool F, int K, int W, int R, int PM, bool IN>
static void launch_r(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src)
{
    constexpr int TY = W * R;
    const dim3 b(32, W), g((unsigned)tb_tiles(c->nx, 32, K), (unsigned)tb_tiles(c->ny, TY, K), tb_zblocks(c, src));
    if (c->lossy && c->ms)
        k_tb3r<T, F, K, W, R, true, true, PM, IN><<<g, b>>>(p, src);
    else if (c->lossy)
        k_tb3r<T, F, K, W, R, true, false, PM, IN><<<g, b>>>(p, src);
    else if (c->ms)
        k_tb3r<T, F, K, W, R, false, true, PM, IN><<<g, b>>>(p, src);
    else
        k_tb3r<T, F, K, W, R, false, false, PM, IN><<<g, b>>>(p, src);
}

template <typename T, bool F, int K, int TY, int R>
static void launch_rk(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, int pm, bool in)
{
    constexpr int W = TY / R;
    if (pm == 2)
        launch_r<T, F, K, W, R, 2, false>(c, p, src);
    else if (pm == 1)
        launch_r<T, F, K, W, R, 1, false>(c, p, src);
    else if (in)
        launch_r<T, F, K, W, R, 0, true>(c, p, src);
    else
        launch_r<T, F, K, W, R, 0, false>(c, p, src);
}

template <typename T, bool F>
void launch_tb3r(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, int rows, int pm, bool in)
{
    /* built: K 2, 3, 4; tiles 32 x 32 with 2 or 4 rows a thread (16 or 8
     * warps), 32 x 16 with 2 (8 warps) */
    const int K = c->tbk, TY = c->tby;
#define TBR_CASE(KK, YY, RR)                                                                      \
    if (K == KK && TY == YY && rows == RR) {                                                      \
        launch_rk<T, F, KK, YY, RR>(c, p, src, pm, in);                                           \
        return;                                                                                   \
    }
#define TBR_K(KK) TBR_CASE(KK, 32, 4) TBR_CASE(KK, 32, 2) TBR_CASE(KK, 16, 2)
    TBR_K(2)
    TBR_K(3)
    TBR_K(4)
#undef TBR_K
#undef TBR_CASE
}

/* This file's copy of the coefficient table (cuda3d_cell.cuh). */
int tbr_set_cezh(const cuda3d_engine *c, char *err, size_t errlen)
{
    return cezh_upload(c, err, errlen);
}

#define INST(T, F)                                                                                 \
    template void launch_tb3r<T, F>(const cuda3d_engine *, const PP3<T> &, const Tb3Src<T> &, int, int, bool);
CUDA3D_INSTANTIATE_TF(INST)
#undef INST
