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

/* One float from global to shared memory without passing through a
 * register (cp.async, sm_80 on): it lands when the thread's
 * tb_cp_wait says so.  ok false copies nothing and stores a zero there
 * (src-size 0: the rest of the 4 bytes zero-filled; g is then any valid
 * address, the array's first element). */
__device__ __forceinline__ void tb_cp4(float *s, const float *g, bool ok)
{
#if __CUDA_ARCH__ >= 800
    const unsigned a = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(a), "l"(g), "r"(ok ? 4 : 0) : "memory");
#else
    *s = ok ? *g : 0.0f;
#endif
}

/* close the thread's copies issued since the last commit as one group */
__device__ __forceinline__ void tb_cp_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* wait until at most N of the thread's groups are still in flight; what
 * the others wrote is then visible to this thread (and only to it: each
 * thread reads back only what it copied, so no barrier) */
template <int N> __device__ __forceinline__ void tb_cp_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* K steps over the own columns of tile (blockIdx.x, blockIdx.y), planes of
 * z chunk blockIdx.z; thread (lane, w) computes column i0 + lane of rows
 * j0 + w R + r, r = 0 .. R-1.  L, S, IN as k_tb3.  PM: 0 the tiles
 * without psi; 3, 4, 5 the one-axis slab tiles of x, y, z with that
 * axis' 4 psi per level and row in registers, as k_tb3's, their array
 * indices found once (tb_psi_row, tb_psi_plane; the tiles of two or
 * three axes, 12 psi, stay with k_tb3).  IX: the array indices' type (int
 * where they fit: launch_r).  BD: a tile of the band of 32 x 16 tiles
 * that replaces the 32 x 32 tiles clear of the slabs (launch_tb3r_band;
 * blockIdx.y numbers the band's tiles).  With 8 warps (TY 16) the kernel asks for 3
 * blocks an SM, 80 registers (without it, 86 and 2 blocks: measured
 * slower, docs/performance.md "Quiet tiles"); with 16, as the compiler
 * chooses (a written-out bound there spilled: "More blocks an SM"). */
template <typename T, bool F, int K, int W, int R, bool L, bool S, bool IN, typename IX, int PM, bool BD>
__global__ void __launch_bounds__(32 * W, W == 8 && PM < 3 ? 3 : 0) k_tb3r(PP3<T> p, Tb3Src<T> src)
{
    typedef Yee<T, F> Y;
    constexpr int TY = W * R;
    constexpr bool PML = PM != 0;
    constexpr int NP = tb_np<PM>(), PK = PML ? K : 1, PR = PML ? R : 1;
    static_assert(PM == 0 || PM >= 3, "k_tb3r: no psi or one axis' 4 (PM 3, 4, 5)");
    constexpr int ax = PM >= 3 ? PM - 3 : 0;
    const Dev3<T> &d = p.o;
    /* a warp's first row of E (level s-1: Ex, Ez, the next warp's j+1) and
     * its last row of H (level s: Hx, Hz, the next warp's j-1) */
    __shared__ T s_ex[W][32], s_ez[W][32], s_hx[W][32], s_hz[W][32];
    /* PF: level 1's loads of the plane PD iterations ahead (E of k1 +
     * PD + 1, H of k1 + PD) are copied into s_pf while this plane's
     * levels run (tb_cp4), PD + 1 planes in turn; a thread copies and
     * reads back its own cells.  The tiles without psi with 8 warps: the
     * band and the PEC tiles.  (PD 2 measured +1.2 % with the CPML
     * against 1, the same without: docs/performance.md.) */
    constexpr bool PF = PM == 0 && W == 8 && sizeof(T) == 4;
    constexpr int PD = 2; /* planes copied ahead */
    __shared__ T s_pf[PF ? PD + 1 : 1][6][PF ? TY : 1][32];
    const int lane = threadIdx.x, w = threadIdx.y;
    /* BD: a tile of the band of 32 x 16 tiles (launch_tb3r_band): its own
     * rows are oj .. oj + TY - 2K - 1 of the band's rows src.yb0 ..
     * src.yb1 - 1, and the band's last tile sits TY - 2K rows below its
     * end (its own rows cut at yb1), so that every row it computes lies
     * within K rows of the band, as the 32 x 32 tiles' it replaces */
    const int oj = BD ? src.yb0 + (int)blockIdx.y * (TY - 2 * K) : 0;
    const int i0 = (int)blockIdx.x * (32 - 2 * K) - K,
              j0 = BD ? min(oj, src.yb1 - (TY - 2 * K)) - K : (int)blockIdx.y * (TY - 2 * K) - K;
    const int i = i0 + lane, jw = j0 + w * R;
    int z0, z1;
    tb_chunk(d, src, tb_zb(d, src), &z0, &z1);
    const int zs = z0 - K; /* level 1's first plane: the z halo */
    if (!tb_take<T, K, TY>(d, src.part, i0, j0, zs, z1))
        return;
    /* A one-axis slab tile (PM 3, 4, 5) lies inside the faces of the two
     * axes whose slabs it does not meet (tb_in): their tests compile out
     * below.  (The other kernels keep their expressions as before: the
     * same tests written with these flags gave other PTX for the tiles
     * without psi.) */
    constexpr bool INX = IN || tb_in<PM>(0), INY = IN || tb_in<PM>(1), INZ = IN || tb_in<PM>(2);
    const bool iok = PM < 3 ? IN || (i >= 0 && i < d.nx) : INX || (i >= 0 && i < d.nx);
    const bool lown = lane >= K && lane < 32 - K;
    /* pt: the row's cell of this column is the point source's, in some plane */
    bool ok[R], own[R], pt[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int j = jw + r, row = w * R + r;
        ok[r] = PM < 3 ? IN || (iok && j >= 0 && j < d.ny) : iok && (INY || (j >= 0 && j < d.ny));
        own[r] = ok[r] && lown && (BD ? j >= oj && j < min(oj + TY - 2 * K, src.yb1) : row >= K && row < TY - K);
        pt[r] = src.pc >= 0 && i == src.pi && j == src.pj;
    }
    /* PM 3, 4, 5: the one axis' 4 psi arrays (old, new), and (x, y) the
     * column's or each row's profile entries (term_c) */
    const T *pin[NP];
    T *pout[NP];
#pragma unroll
    for (int l = 0; l < NP; l++) {
        pin[l] = PML ? d.psi[tb_psi_of(l, ax)] : (const T *)0;
        pout[l] = PML ? p.hpsi1[tb_psi_of(l, ax)] : (T *)0;
    }
    constexpr int PC = PM == 4 ? R : 1;
    T pc6[PC][6]; /* (PM 5: those of the level's plane, loaded at each level) */
#pragma unroll
    for (int r = 0; r < PC; r++)
        tb_profile6<T, PM>(d, PM == 3 ? i : jw + r, pc6[r]);
    /* PM 3, 4: each row's E and H psi index at plane 0 (pat, where the row's
     * cell has them: phas), plane k pst further; PM 5: the plane's term
     * (tb_psi_plane) plus the row's pzr */
    IX pat[PR][2], pzr[PR];
    bool phas[PR][2];
    const IX pst = PM == 3 || PM == 4 ? tb_psi_step<T, PM, IX>(d) : IX(0);
#pragma unroll
    for (int r = 0; r < PR; r++) {
        pzr[r] = (IX)(jw + r) * (IX)d.px + (IX)i;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            pat[r][h] = IX(0);
            phas[r][h] = false;
            if constexpr (PM == 3 || PM == 4)
                phas[r][h] = tb_psi_row<T, PM, IX>(d, h, i, jw + r, &pat[r][h]);
        }
    }
    /* Does row r's cell have an E (h 0) or H (h 1) psi at plane k (zt: the
     * plane's z terms, PM 5), and where is it? */
    auto psi_has = [&](int r, int h, const IX *zt) -> bool { return PM == 5 ? zt[h] >= 0 : phas[r][h]; };
    auto psi_at = [&](int r, int h, int k, const IX *zt) -> IX {
        return PM == 5 ? zt[h] + pzr[r] : pat[r][h] + (IX)k * pst;
    };
    /* per level and row the psi of the plane that level made last */
    T PS[PK][PR][NP];
#pragma unroll
    for (int s = 0; s < PK; s++)
#pragma unroll
        for (int r = 0; r < PR; r++)
#pragma unroll
            for (int q = 0; q < NP; q++)
                PS[s][r][q] = T(0);
    /* Does the block meet a source or a sample at all (the same for the
     * whole block: source slots or samples in this launch, or the point
     * source's column and row among the block's)?  Where it does not, as
     * in most tiles, the per-cell tail below (slots, point source,
     * samples) is skipped whole: one uniform test a cell and level
     * instead of some 25 instructions (docs/performance.md, "Quiet
     * tiles").  k_tb3 has the same test, written out (see there). */
    const bool loud = src.loud || src.slot_map || src.smap
                      || (src.pc >= 0 && src.pi >= i0 && src.pi < i0 + 32 && src.pj >= j0 && src.pj < j0 + TY);
    /* the array index of (i, jw, 0), from which row r lies r sy further */
    const IX cw = (IX)i + (IX)jw * (IX)d.sy; /* and (k - kb) sz for plane k */
    /* the array index of row r's cell in plane k */
    auto at = [&](int r, int k) -> IX { return cw + (IX)r * (IX)d.sy + (IX)(k - d.kb) * (IX)d.sz; };
    /* per level and row: E of levels 0 .. K-1 and H of levels 1 .. K (index
     * s-1) of the plane that level made last */
    T EX[K][R], EY[K][R], EZ[K][R], HX[K][R], HY[K][R], HZ[K][R];
#pragma unroll
    for (int s = 0; s < K; s++)
#pragma unroll
        for (int r = 0; r < R; r++)
            EX[s][r] = EY[s][r] = EZ[s][r] = HX[s][r] = HY[s][r] = HZ[s][r] = T(0);
#pragma unroll
    for (int r = 0; r < R; r++)
        if (PM < 3 ? IN || (ok[r] && zs >= 0) : ok[r] && (INZ || zs >= 0)) {
            const IX c = at(r, zs);
            EX[0][r] = d.ex[c];
            EY[0][r] = d.ey[c];
            EZ[0][r] = d.ez[c];
        }
    const int iters = (z1 - z0) + 2 * K - 1;
    /* PF: copy level 1's inputs of iteration t (E of plane kt + 1, H of
     * plane kt, kt = zs + t) into s_pf[b], with the tests of the loads
     * below (PF: PM 0, so their first form) */
    auto fetch = [&](int t, int b) {
        const int kt = zs + t;
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int row = w * R + r;
            const bool oe = IN || (ok[r] && kt + 1 >= 0 && kt + 1 < d.nz);
            const bool oh = IN || (ok[r] && kt >= 0 && kt < d.nz);
            const IX ce = oe ? at(r, kt + 1) : IX(0);
            const IX ch = oh ? at(r, kt) : IX(0);
            tb_cp4((float *)&s_pf[b][0][row][lane], (const float *)d.ex + ce, oe);
            tb_cp4((float *)&s_pf[b][1][row][lane], (const float *)d.ey + ce, oe);
            tb_cp4((float *)&s_pf[b][2][row][lane], (const float *)d.ez + ce, oe);
            tb_cp4((float *)&s_pf[b][3][row][lane], (const float *)d.hx + ch, oh);
            tb_cp4((float *)&s_pf[b][4][row][lane], (const float *)d.hy + ch, oh);
            tb_cp4((float *)&s_pf[b][5][row][lane], (const float *)d.hz + ch, oh);
        }
        tb_cp_commit();
    };
    int bc = 0; /* s_pf's plane of iteration t */
    if constexpr (PF)
        for (int q = 0; q < PD; q++)
            if (q < iters)
                fetch(q, q);
            else
                tb_cp_commit();
    for (int t = 0; t < iters; t++) {
        /* level 1's inputs: E of step n at planes k, k+1, H at plane k */
        const int k1 = zs + t;
        T elx[R], ely[R], elz[R], ehx[R], ehy[R], ehz[R], hox[R], hoy[R], hoz[R];
        T po[PR][NP]; /* the psi of the level before, this plane */
#pragma unroll
        for (int r = 0; r < PR; r++)
#pragma unroll
            for (int q = 0; q < NP; q++)
                po[r][q] = T(0);
#pragma unroll
        for (int r = 0; r < R; r++) {
            elx[r] = EX[0][r];
            ely[r] = EY[0][r];
            elz[r] = EZ[0][r];
            ehx[r] = ehy[r] = ehz[r] = hox[r] = hoy[r] = hoz[r] = T(0);
        }
        if constexpr (PF) {
            /* iteration t + PD's copies first, into the plane iteration
             * t - 1 read (an empty group past the last), then wait for
             * this one's */
            if (t + PD < iters)
                fetch(t + PD, bc == 0 ? PD : bc - 1);
            else
                tb_cp_commit();
            tb_cp_wait<PD>();
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int row = w * R + r, b = bc;
                ehx[r] = s_pf[b][0][row][lane];
                ehy[r] = s_pf[b][1][row][lane];
                ehz[r] = s_pf[b][2][row][lane];
                hox[r] = s_pf[b][3][row][lane];
                hoy[r] = s_pf[b][4][row][lane];
                hoz[r] = s_pf[b][5][row][lane];
            }
            bc = bc == PD ? 0 : bc + 1;
        }
        /* without the copies (!PF): the loads themselves */
#pragma unroll
        for (int r = 0; r < R && !PF; r++) {
            if (PM < 3 ? IN || (ok[r] && k1 + 1 >= 0 && k1 + 1 < d.nz)
                        : ok[r] && (INZ || (k1 + 1 >= 0 && k1 + 1 < d.nz))) {
                const IX c = at(r, k1 + 1);
                ehx[r] = d.ex[c];
                ehy[r] = d.ey[c];
                ehz[r] = d.ez[c];
            }
            if (PM < 3 ? IN || (ok[r] && k1 >= 0 && k1 < d.nz) : ok[r] && (INZ || (k1 >= 0 && k1 < d.nz))) {
                const IX c = at(r, k1);
                hox[r] = d.hx[c];
                hoy[r] = d.hy[c];
                hoz[r] = d.hz[c];
                if constexpr (PML) { /* psi l is E (h 0) for l = 0, 1, H for 2, 3 (tb_psi_of) */
                    const IX zt[2] = {PM == 5 ? tb_psi_plane<T, IX>(d, 0, k1) : IX(-1),
                                      PM == 5 ? tb_psi_plane<T, IX>(d, 1, k1) : IX(-1)};
#pragma unroll
                    for (int l = 0; l < NP; l++) {
                        if (psi_has(r, l >> 1, zt))
                            po[r][l] = pin[l][psi_at(r, l >> 1, k1, zt)];
                    }
                }
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
            const IX ck = cw + (IX)(k - d.kb) * (IX)d.sz; /* row 0 of plane k */
            T ex[R], ey[R], ez[R], hx[R], hy[R], hz[R], nhx[R], nhy[R], nhz[R];
            T pn[PR][NP]; /* this level's psi of plane k */
#pragma unroll
            for (int r = 0; r < PR; r++)
#pragma unroll
                for (int q = 0; q < NP; q++)
                    pn[r][q] = po[r][q];
#pragma unroll
            for (int r = 0; r < R; r++) {
                /* H of this level's previous plane k-1: the E below needs
                 * its Hx, Hy, and level s+1 takes it as its old H */
                nhx[r] = HX[s - 1][r];
                nhy[r] = HY[s - 1][r];
                nhz[r] = HZ[s - 1][r];
                ex[r] = ey[r] = ez[r] = hx[r] = hy[r] = hz[r] = T(0);
            }
            if ((PM < 3 ? IN || (k >= 0 && k < d.nz) : INZ || (k >= 0 && k < d.nz))
                && k >= zs) { /* the same for the whole block */
                /* the material bytes first: their loads wait behind H */
                uint8_t m0[R];
#pragma unroll
                for (int r = 0; r < R; r++)
                    m0[r] = ok[r] ? d.mat[ck + (IX)r * (IX)d.sy] : 0;
                if constexpr (PM == 5) /* the z profiles at plane k, for both rows */
                    tb_profile6<T, PM>(d, k, pc6[0]);
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
                    if constexpr (PML) {
                        const T *c6 = pc6[PM == 4 ? r : 0];
                        hx[r] = hx_q<T, F, PM>(d, i, j, k, dhx1, dhx2, hox[r], po[r], pn[r], c6);
                        hy[r] = hy_q<T, F, PM>(d, i, j, k, dhy1, dhy2, hoy[r], po[r], pn[r], c6);
                        hz[r] = hz_q<T, F, PM>(d, i, j, k, dhz1, dhz2, hoz[r], po[r], pn[r], c6);
                    } else {
                        /* no psi: rd = own = false (the fused kernel's
                         * arguments outside the CPML) */
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
                    const IX c = ck + (IX)r * (IX)d.sy;
                    ex[r] = elx[r];
                    ey[r] = ely[r];
                    ez[r] = elz[r];
                    if (ok[r]) {
                        if constexpr (PML)
                            e_q<T, F, L, S, PM>(d, i, j, k, m0[r], d.mat + c, ex[r], ey[r], ez[r], hx[r], hy[r],
                                                hz[r], hz_jm, nhy[r], nhx[r], hz_im, hy_im, hx_jm, po[r], pn[r],
                                                pc6[PM == 4 ? r : 0]);
                        else
                            e3<T, F, false, L, S, IN>(p, i, j, k, m0[r], d.mat + c, ex[r], ey[r], ez[r], hx[r],
                                                      hy[r], hz[r], hz_jm, nhy[r], nhx[r], hz_im, hy_im, hx_jm);
                        /* this step's source slot and point source (k_tb3's order;
                         * from here to the stores the same tail as k_tb3's:
                         * change both, docs/performance.md "One shared tail") */
                        if (loud) { /* (k_tb3: the same) */
                            if (src.slot_map && (S ? d.mat[c + 2 * d.ms] : m0[r]) != 0) {
                                const int q = src.slot_map[c];
                                if (q >= 0 && src.slot_kind[q] != 2) {
                                    const T v = src.slot_v[(long long)(s - 1) * src.ns + q];
                                    ez[r] = src.slot_kind[q] ? v : Y::yee_add(ez[r], v);
                                }
                            }
                            if (pt[r] && k == src.pk) /* c == src.pc */
                                ez[r] = Y::yee_add(ez[r], src.pv[s - 1]);
                            if (src.smap && s <= src.srows && own[r] && k >= z0 && k < z1) {
                                for (int q = src.smap[c]; q >= 0; q = src.snext[q]) {
                                    const int f = src.sf[q];
                                    src.srow[(long long)(s - 1) * src.sn + q] =
                                        f == 0 ? ex[r] : f == 1 ? ey[r] : f == 2 ? ez[r] : f == 3 ? hx[r] : f == 4 ? hy[r] : hz[r];
                                }
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
                        if constexpr (PML) {
                            const IX zt[2] = {PM == 5 ? tb_psi_plane<T, IX>(d, 0, k) : IX(-1),
                                              PM == 5 ? tb_psi_plane<T, IX>(d, 1, k) : IX(-1)};
#pragma unroll
                            for (int l = 0; l < NP; l++) {
                                if (psi_has(r, l >> 1, zt))
                                    pout[l][psi_at(r, l >> 1, k, zt)] = pn[r][l];
                            }
                        }
                    }
                }
            }
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (s < K) {
                    /* level s+1 next: E of level s at plane k-1 (made in
                     * the previous iteration) and k (now), H of level s at
                     * k-1 */
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
            if constexpr (PML) {
#pragma unroll
                for (int r = 0; r < PR; r++)
#pragma unroll
                    for (int q = 0; q < NP; q++) {
                        const T x = PS[s - 1][r][q];
                        PS[s - 1][r][q] = pn[r][q];
                        po[r][q] = x;
                    }
            }
        }
    }
}

template <typename T, bool F, int K, int TY, int R, bool IN, typename IX, int PM, bool BD = false>
static void launch_ix(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, cudaStream_t st)
{
    constexpr int W = TY / R;
    const int ty = BD ? (src.yb1 - src.yb0 + TY - 2 * K - 1) / (TY - 2 * K) : tb_tiles(c->ny, TY, K);
    const dim3 b(32, W), g((unsigned)tb_tiles(c->nx, 32, K), (unsigned)ty, tb_zblocks(c, src));
    if (!g.z) /* no chunk of this selection (tb_zblocks) */
        return;
    if (c->lossy && c->ms)
        k_tb3r<T, F, K, W, R, true, true, IN, IX, PM, BD><<<g, b, 0, st>>>(p, src);
    else if (c->lossy)
        k_tb3r<T, F, K, W, R, true, false, IN, IX, PM, BD><<<g, b, 0, st>>>(p, src);
    else if (c->ms)
        k_tb3r<T, F, K, W, R, false, true, IN, IX, PM, BD><<<g, b, 0, st>>>(p, src);
    else
        k_tb3r<T, F, K, W, R, false, false, IN, IX, PM, BD><<<g, b, 0, st>>>(p, src);
}

/* 32-bit array indices where every index the kernel forms fits
 * (c->tb_ix32: tb_setup), else 64-bit. */
template <typename T, bool F, int K, int TY, int R, bool IN>
static void launch_r(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src)
{
    if (c->tb_ix32)
        launch_ix<T, F, K, TY, R, IN, int, 0>(c, p, src, 0);
    else
        launch_ix<T, F, K, TY, R, IN, long long, 0>(c, p, src, 0);
}

template <typename T, bool F>
void launch_tb3r(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, bool in)
{
    /* built: K 2, 3, 4; 2 rows a thread, tiles 32 x 16 (8 warps) or 32 x
     * 32 (16 warps).  (Measured on the H100 at 512^3 and not kept, to keep
     * the build short: 4 rows a thread at TY 32, 2 at TY 24, and the psi
     * kernels with 2 or 4 rows, all slower: docs/performance.md.) */
#define TBR_CASE(KK, YY)                                                                          \
    if (c->tbk == KK && c->tby == YY) {                                                           \
        if (in)                                                                                   \
            launch_r<T, F, KK, YY, 2, true>(c, p, src);                                           \
        else                                                                                      \
            launch_r<T, F, KK, YY, 2, false>(c, p, src);                                          \
        return;                                                                                   \
    }
    TBR_CASE(2, 16) TBR_CASE(3, 16) TBR_CASE(4, 16) TBR_CASE(2, 32) TBR_CASE(3, 32) TBR_CASE(4, 32)
#undef TBR_CASE
}

/* The one-axis slab tiles (PM 3, 4, 5) with 2 rows a thread, on stream st,
 * where tb_slab_rows2 (built only for K 3, TY 32, 32-bit indices: the
 * CPML's defaults; compile time). */
template <typename T, bool F, int PM>
void launch_tb3r_slab(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, cudaStream_t st)
{
    launch_ix<T, F, 3, 32, 2, false, int, PM>(c, p, src, st);
}

/* The tiles clear of the slabs as 32 x 16 tiles in the band of rows
 * src.yb0 .. src.yb1 - 1 (tb_band), without psi and face tests, where
 * tb_band_on (built only for K 3 with 32-bit indices, as the slab tiles
 * beside them). */
template <typename T, bool F>
void launch_tb3r_band(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src)
{
    launch_ix<T, F, 3, 16, 2, true, int, 0, true>(c, p, src, 0);
}

/* This file's copy of the coefficient table (cuda3d_cell.cuh). */
int tbr_set_cezh(const cuda3d_engine *c, char *err, size_t errlen)
{
    return cezh_upload(c, err, errlen);
}

/* float only: double runs k_tb3 (cuda3d_tb.cu launch_tb3_p) */
template void launch_tb3r<float, true>(const cuda3d_engine *, const PP3<float> &, const Tb3Src<float> &, bool);
template void launch_tb3r<float, false>(const cuda3d_engine *, const PP3<float> &, const Tb3Src<float> &, bool);
template void launch_tb3r_band<float, true>(const cuda3d_engine *, const PP3<float> &, const Tb3Src<float> &);
template void launch_tb3r_band<float, false>(const cuda3d_engine *, const PP3<float> &, const Tb3Src<float> &);
#define TBR_SLAB(PM)                                                                                      \
    template void launch_tb3r_slab<float, true, PM>(const cuda3d_engine *, const PP3<float> &,                \
                                                    const Tb3Src<float> &, cudaStream_t);                    \
    template void launch_tb3r_slab<float, false, PM>(const cuda3d_engine *, const PP3<float> &,               \
                                                     const Tb3Src<float> &, cudaStream_t);
TBR_SLAB(3)
TBR_SLAB(4)
TBR_SLAB(5)
#undef TBR_SLAB
