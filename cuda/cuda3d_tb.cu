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
 * CPML (A1, combined): a cell's psi are state like its fields, kept per
 * level in registers (below, "CPML inside the block"); the tiles that meet
 * no slab, halo included, run a kernel built without them.  Lossy
 * materials: e3's lossy update (L).
 *
 * Monitors: the owner of a sampled cell writes its value of each level
 * into that step's row.
 *
 * MPI (z slabs, core/decomp.h): each rank holds K ghost planes each side
 * (decomp_set_halo_depth) and marches its own planes k0 .. k1-1 with the
 * same z halo as a chunk: level 1 reads E of planes k0-K .. k1+K-1 and H of
 * k0-K .. k1+K-2, every one held.  Before a block the ghost planes must
 * hold the neighbours' fields of the block's first step: halo_deep sends
 * K planes of all six fields each way after every block (and before the
 * first, when one-step launches have run since).  The blocks recompute the
 * ghost planes' sources too (tb_s0, tb_ns, tb_point).  With a CPML (A1) the
 * x and y psi arrays hold the ghost planes too (psi_lo, psi_hi; Dev3 pk0,
 * pnz), and halo_deep sends their K planes with the fields, so level 1
 * reads a ghost cell's psi as an own one's (psi_index); level K stores the
 * own planes' only.  The z psi of ghost planes are neither held nor
 * exchanged: the engine declines (collectively) where a ghost plane of any
 * rank lies in a z slab.  The z slabs get chunks of their own on the
 * ranks that hold the z faces (zlo, zhi).
 *
 * Not here (the engine steps such scenes one step a launch, and says so):
 * Mur, CPML strategies A2 and A3, mu_r and poles (two kernels), a z CPML
 * slab in a rank's ghost planes.  Steps that are not a multiple of K: the
 * rest run on the fused path, after the blocks (the same bits).
 */
#include "cuda3d_tb.cuh"

/* K steps over the own columns of tile (blockIdx.x, blockIdx.y), planes
 * blockIdx.z * kz .. +kz-1.  L: the lossy update, S: three E maps (3D
 * smoothing), as k_fused3; PML: the psi code (the tiles of src.part); IN:
 * an inner tile (TB_INNER, TB_INTERIOR), whose columns, rows and planes
 * all lie inside the faces, so no test for the grid's edges is compiled
 * (measured on the H100 at 512^3: 3.4 % faster without a CPML;
 * docs/performance.md).  PM: the psi the tile carries (0 none, 2 all 12,
 * 3 4 5 the 4 of the x, y or z axis: tb_np).  PSS (PM 2 only): the psi
 * of the K levels in dynamic shared memory (tb_pss_bytes) instead of
 * registers. */
template <typename T, bool F, int K, int TY, bool L, bool S, int PM, bool IN, bool PSS = false>
__global__ void __launch_bounds__(32 * TY) k_tb3(PP3<T> p, Tb3Src<T> src)
{
    typedef Yee<T, F> Y;
    constexpr bool PML = PM != 0;
    constexpr int NP = tb_np<PM>();
    static_assert(!PSS || PM == 2, "k_tb3: the psi in shared memory for the 12-psi tiles only");
    const Dev3<T> &d = p.o;
    /* one plane of E (level s-1) and of H (level s) of the tile */
    __shared__ T s_ex[TY][32], s_ey[TY][32], s_ez[TY][32], s_hx[TY][32], s_hy[TY][32], s_hz[TY][32];
    const int lane = threadIdx.x, w = threadIdx.y;
    const int i0 = (int)blockIdx.x * (32 - 2 * K) - K, j0 = (int)blockIdx.y * (TY - 2 * K) - K;
    const int i = i0 + lane;
    const int j = j0 + w;
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
    const bool ok = PM < 3 ? IN || (i >= 0 && i < d.nx && j >= 0 && j < d.ny)
                            : (INX || (i >= 0 && i < d.nx)) && (INY || (j >= 0 && j < d.ny));
    /* PM 3, 4, 5: the axis whose slab the tile meets, and its 4 psi arrays */
    constexpr int ax = PM >= 3 ? PM - 3 : -1;
    const T *pin[NP];
    T *pout[NP];
#pragma unroll
    for (int l = 0; l < NP; l++) {
        const int q = PM == 2 ? l : PM >= 3 ? tb_psi_of(l, ax) : 0;
        pin[l] = PML ? d.psi[q] : (const T *)0;
        pout[l] = PML ? p.hpsi1[q] : (T *)0;
    }
    const bool own = ok && lane >= K && lane < 32 - K && w >= K && w < TY - K;
    /* does the block meet a source or a sample at all (halo included)?
     * Where it does not, the per-cell tail below is skipped whole.  The
     * same test as k_tb3r's, written out in each: one shared function
     * changed the register allocation (docs/performance.md, "Quiet
     * tiles"). */
    const bool loud = src.loud || src.slot_map || src.smap
                      || (src.pc >= 0 && src.pi >= i0 && src.pi < i0 + 32 && src.pj >= j0 && src.pj < j0 + TY);
    /* PM 3 (4): this column's (row's) entries of the x (y) profiles, E then
     * H (term_c), where the position lies in the grid */
    T pc6[6];
    tb_profile6<T, PM>(d, PM == 3 ? i : j, pc6);
    /* what term_c is given: none in the z tiles (their entries are the
     * plane's: term_q loads them) */
    const T *const c6 = PM == 5 ? (const T *)0 : pc6;
    const long long cj = ok ? i + j * d.sy : 0;
    /* neighbours in shared memory; at the tile's rim a thread reads its own
     * slot instead (the rim is halo: never valid after the first step) */
    const int lp = lane < 31 ? lane + 1 : lane, lm = lane > 0 ? lane - 1 : lane;
    const int wp = w < TY - 1 ? w + 1 : w, wm = w > 0 ? w - 1 : w;
    /* per level: E of levels 0 .. K-1 and H of levels 1 .. K (index s-1) of
     * the plane that level made last; PML: the psi of levels 1 .. K too */
    T EX[K], EY[K], EZ[K], HX[K], HY[K], HZ[K];
    /* PSS: the psi of level s+1, slot q at pss[(s NP + q) 32 TY + thread]
     * (a thread's own words, a warp's 32 consecutive: no bank conflicts,
     * no barrier), which at 1024 threads a block leaves the registers the
     * 12-psi kernel spilled (docs/cuda.md, "CPML inside the block") */
    T PS[PML && !PSS ? K : 1][NP];
    extern __shared__ __align__(16) unsigned char tb_dyn[];
    T *const pss = (T *)tb_dyn + (w * 32 + lane);
#pragma unroll
    for (int s = 0; s < K; s++)
        EX[s] = EY[s] = EZ[s] = HX[s] = HY[s] = HZ[s] = T(0);
#pragma unroll
    for (int s = 0; s < (PML ? K : 1); s++)
#pragma unroll
        for (int q = 0; q < NP; q++) {
            if constexpr (PSS)
                pss[(s * NP + q) * 32 * TY] = T(0);
            else
                PS[s][q] = T(0);
        }
    /* one E map (no 3D smoothing) and TY 32: the material byte rides the
     * queue too, as E does (MQ[0]: level 1's, loaded an iteration ahead with
     * E of plane k1+1; MQ[s]: the one level s used last, level s+1's next),
     * so each plane's byte is loaded once, not once a level.  Measured on
     * the H100 at 512^3: that load and its use were the inner kernel's
     * most stalled instructions; with the queue the A1 CPML cube ran 8.9 %
     * faster at TY 32, but at TY 16 the inner kernel took 69 registers
     * (one 512-thread block an SM instead of two) and ran 12 % slower, so
     * TY 16 loads the byte at each level as before. */
    constexpr bool MQON = !S && TY == 32;
    uint8_t MQ[K];
#pragma unroll
    for (int s = 0; s < K; s++)
        MQ[s] = 0;
    if (PM < 3 ? IN || (ok && zs >= 0) : ok && (INZ || zs >= 0)) {
        const long long c = cj + (long long)(zs - d.kb) * d.sz;
        EX[0] = d.ex[c];
        EY[0] = d.ey[c];
        EZ[0] = d.ez[c];
        if (MQON)
            MQ[0] = d.mat[c];
    }
    const int iters = (z1 - z0) + 2 * K - 1;
    for (int t = 0; t < iters; t++) {
        /* level 1's inputs: E of step n at planes k, k+1, H (and psi) at plane k */
        const int k1 = zs + t;
        T elx = EX[0], ely = EY[0], elz = EZ[0];
        uint8_t ml = MQ[0]; /* level 1's material byte (MQON) */
        T ehx = T(0), ehy = T(0), ehz = T(0), hox = T(0), hoy = T(0), hoz = T(0);
        T po[NP]; /* the psi of the level before, this plane */
#pragma unroll
        for (int q = 0; q < NP; q++)
            po[q] = T(0);
        if (PM < 3 ? IN || (ok && k1 + 1 >= 0 && k1 + 1 < d.nz) : ok && (INZ || (k1 + 1 >= 0 && k1 + 1 < d.nz))) {
            const long long c = cj + (long long)(k1 + 1 - d.kb) * d.sz;
            ehx = d.ex[c];
            ehy = d.ey[c];
            ehz = d.ez[c];
            if (MQON)
                MQ[0] = d.mat[c];
        }
        if (PM < 3 ? IN || (ok && k1 >= 0 && k1 < d.nz) : ok && (INZ || (k1 >= 0 && k1 < d.nz))) {
            const long long c = cj + (long long)(k1 - d.kb) * d.sz;
            hox = d.hx[c];
            hoy = d.hy[c];
            hoz = d.hz[c];
            if (PML) {
#pragma unroll
                for (int l = 0; l < NP; l++) {
                    const long long at = psi_index(d, PM == 2 ? l : tb_psi_of(l, ax), i, j, k1);
                    if (at >= 0)
                        po[l] = pin[l][at];
                }
            }
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
            T pn[NP]; /* this level's psi of plane k */
#pragma unroll
            for (int q = 0; q < NP; q++)
                pn[q] = po[q];
            if ((PM < 3 ? IN || (k >= 0 && k < d.nz) : INZ || (k >= 0 && k < d.nz))
                && k >= zs) { /* the same for the whole block */
                s_ex[w][lane] = elx;
                s_ey[w][lane] = ely;
                s_ez[w][lane] = elz;
                __syncthreads();
                const T ezi = s_ez[w][lp], eyi = s_ey[w][lp], ezj = s_ez[wp][lane], exj = s_ex[wp][lane];
                const T dhx1 = Y::yee_diff(ezj, elz), dhx2 = Y::yee_diff(ehy, ely);
                const T dhy1 = Y::yee_diff(ehx, elx), dhy2 = Y::yee_diff(ezi, elz);
                const T dhz1 = Y::yee_diff(eyi, ely), dhz2 = Y::yee_diff(exj, elx);
                if (PML) {
                    hx = hx_q<T, F, PM>(d, i, j, k, dhx1, dhx2, hox, po, pn, c6);
                    hy = hy_q<T, F, PM>(d, i, j, k, dhy1, dhy2, hoy, po, pn, c6);
                    hz = hz_q<T, F, PM>(d, i, j, k, dhz1, dhz2, hoz, po, pn, c6);
                } else {
                    /* no psi: rd = own = false (the fused kernel's arguments
                     * outside the CPML) */
                    hx = hx3<T, F, false, IN>(p, i, j, k, false, dhx1, dhx2, hox, false);
                    hy = hy3<T, F, false, IN>(p, i, j, k, false, dhy1, dhy2, hoy, false);
                    hz = hz3<T, F, false, IN>(p, i, j, k, false, dhz1, dhz2, hoz, false);
                }
                s_hx[w][lane] = hx;
                s_hy[w][lane] = hy;
                s_hz[w][lane] = hz;
                __syncthreads();
                ex = elx;
                ey = ely;
                ez = elz;
                if (ok) {
                    const long long c = cj + (long long)(k - d.kb) * d.sz;
                    const uint8_t m0 = MQON ? ml : d.mat[c];
                    if (PML)
                        e_q<T, F, L, S, PM>(d, i, j, k, m0, d.mat + c, ex, ey, ez, hx, hy, hz,
                                            s_hz[wm][lane], nhy, nhx, s_hz[w][lm], s_hy[w][lm],
                                            s_hx[wm][lane], po, pn, c6);
                    else
                        e3<T, F, false, L, S, IN>(p, i, j, k, m0, d.mat + c, ex, ey, ez, hx, hy, hz,
                                              s_hz[wm][lane], nhy, nhx, s_hz[w][lm], s_hy[w][lm],
                                              s_hx[wm][lane]);
                    /* then this step's source slot (only an Ez edge of a
                     * material other than vacuum has one: model_index_cells)
                     * and the point source, as sources_apply.  (From here to
                     * the stores k_tb3r, cuda3d_tbr.cu, has the same tail:
                     * change both.  One shared function cost registers and
                     * speed: docs/performance.md "One shared tail".) */
                    if (loud) { /* (k_tb3r: the same) */
                        if (src.slot_map && (S ? d.mat[c + 2 * d.ms] : m0) != 0) {
                            const int q = src.slot_map[c];
                            if (q >= 0 && src.slot_kind[q] != 2) {
                                const T v = src.slot_v[(long long)(s - 1) * src.ns + q];
                                ez = src.slot_kind[q] ? v : Y::yee_add(ez, v);
                            }
                        }
                        if (src.pc >= 0 && c == src.pc)
                            ez = Y::yee_add(ez, src.pv[s - 1]);
                        /* the step's samples of the own cells of the own planes
                         * (each cell and step once), the values the fields hold
                         * after the step, as take_samples */
                        if (src.smap && s <= src.srows && own && k >= z0 && k < z1) {
                            for (int q = src.smap[c]; q >= 0; q = src.snext[q]) {
                                const int f = src.sf[q];
                                src.srow[(long long)(s - 1) * src.sn + q] =
                                    f == 0 ? ex : f == 1 ? ey : f == 2 ? ez : f == 3 ? hx : f == 4 ? hy : hz;
                            }
                        }
                    }
                }
                if (s == K && own && k >= z0) {
                    const long long c = cj + (long long)(k - d.kb) * d.sz;
                    p.hx1[c] = hx;
                    p.hy1[c] = hy;
                    p.hz1[c] = hz;
                    p.ex1[c] = ex;
                    p.ey1[c] = ey;
                    p.ez1[c] = ez;
                    if (PML) {
#pragma unroll
                        for (int l = 0; l < NP; l++) {
                            const long long at = psi_index(d, PM == 2 ? l : tb_psi_of(l, ax), i, j, k);
                            if (at >= 0)
                                pout[l][at] = pn[l];
                        }
                    }
                }
            }
            if (s < K) {
                /* level s+1 next: E of level s at plane k-1 (made in the
                 * previous iteration) and k (now), H and psi of level s at k-1 */
                const uint8_t nm = MQ[s];
                MQ[s] = ml;
                ml = nm;
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
            if (PML) {
#pragma unroll
                for (int q = 0; q < NP; q++) {
                    if constexpr (PSS) {
                        T *const a = pss + ((s - 1) * NP + q) * 32 * TY;
                        const T x = *a;
                        *a = pn[q];
                        po[q] = x;
                    } else {
                        const T x = PS[PML ? s - 1 : 0][q];
                        PS[PML ? s - 1 : 0][q] = pn[q];
                        po[q] = x;
                    }
                }
            }
            HX[s - 1] = hx;
            HY[s - 1] = hy;
            HZ[s - 1] = hz;
        }
    }
}


/* k_tb3 for the scene's material flags (L, S), with dyn bytes of dynamic
 * shared memory (PSS) */
template <typename T, bool F, int K, int TY, int PM, bool IN, bool PSS>
static void launch_k3(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, cudaStream_t st, size_t dyn)
{
    const dim3 b(32, TY), g((unsigned)tb_tiles(c->nx, 32, K), (unsigned)tb_tiles(c->ny, TY, K), tb_zblocks(c, src));
    if (!g.z) /* no chunk of this selection (tb_zblocks) */
        return;
    void (*k)(PP3<T>, Tb3Src<T>) = c->lossy && c->ms ? k_tb3<T, F, K, TY, true, true, PM, IN, PSS>
                                   : c->lossy        ? k_tb3<T, F, K, TY, true, false, PM, IN, PSS>
                                   : c->ms           ? k_tb3<T, F, K, TY, false, true, PM, IN, PSS>
                                                     : k_tb3<T, F, K, TY, false, false, PM, IN, PSS>;
    if (dyn > 48 * 1024) /* above the default limit: asked for (errors: step_tb's cudaGetLastError) */
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn);
    k<<<g, b, dyn, st>>>(p, src);
}

template <typename T, bool F, int K, int TY, int PM, bool IN>
static void launch_tb3_p(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, cudaStream_t st = 0)
{
    if constexpr (PM == 0 && sizeof(T) == 4) { /* tiles without psi, float: 2 rows a thread */
        if (c->tbr == 2) {
            launch_tb3r<T, F>(c, p, src, IN);
            return;
        }
    }
    if constexpr (PM >= 3 && sizeof(T) == 4) { /* one-axis slab tiles, float: 2 rows a thread */
        if (tb_slab_rows2(c)) {
            launch_tb3r_slab<T, F, PM>(c, p, src, st);
            return;
        }
    }
    if constexpr (PM == 2 && TY == 32 && sizeof(T) == 4) { /* the psi in shared memory */
        if (c->tb_pss) {
            launch_k3<T, F, K, TY, PM, IN, true>(c, p, src, st, tb_pss_bytes(K, TY, sizeof(T)));
            return;
        }
    }
    launch_k3<T, F, K, TY, PM, IN, false>(c, p, src, st, 0);
}

/* The band in chunks of its own where they may differ from the slab
 * parts' (tb_band_kz). */
template <typename T> static void tb_band_chunks(const cuda3d_engine *c, Tb3Src<T> *s)
{
    const int kz = tb_band_kz(c);
    if (!kz)
        return;
    s->kz = kz;
    if (s->zlo || s->zhi)
        s->zm = tb_mid_chunks(*s, c->k1 - c->k0);
}

/* With a CPML at TY 32: the slab tiles, the one-axis ones (x, y, z: the
 * axis known when compiled; in float at K 3 two rows a thread, k_tb3r:
 * tb_slab_rows2) and the others (12 psi), each part on stream st[q].
 * (The one-axis kernel is not built for TY 16: compile time.) */
template <typename T, bool F, int K, int TY>
static void launch_slabs(const cuda3d_engine *c, const PP3<T> &p, Tb3Src<T> src, const cudaStream_t *st)
{
    if constexpr (TY == 32) {
        src.part = TB_SLABX;
        if (!(c->tb_skip & 1))
            launch_tb3_p<T, F, K, TY, 3, false>(c, p, src, st[0]);
        src.part = TB_SLABY;
        if (!(c->tb_skip & 2))
            launch_tb3_p<T, F, K, TY, 4, false>(c, p, src, st[1]);
        src.part = TB_SLABZ;
        if (!(c->tb_skip & 4))
            launch_tb3_p<T, F, K, TY, 5, false>(c, p, src, st[2]);
        src.part = TB_SLABN;
        if (!(c->tb_skip & 8))
            launch_tb3_p<T, F, K, TY, 2, false>(c, p, src, st[3]);
    }
}

/* Launches over the tiles, each taking its part: without a CPML the inner
 * tiles without the face tests, then the others; with one, the tiles that
 * meet no slab (halo included; inner too) without the psi code and the
 * face tests, then (TY 32) those that meet the slabs of one axis with that
 * axis' 4 psi, and those that meet two or three axes' with all 12 (TY 16:
 * every slab tile with all 12).  All read the old buffers and store
 * disjoint cells: their order does not matter.  The slab parts go on the
 * streams st[] (tb_fork), the others on the default stream.
 * TEXFDTD_CUDA3D_INNER=0 (bench only): as before, one launch over every
 * tile with the face tests (no CPML), or the interior tiles with them and
 * every slab tile with 12 psi.  (Errors: step_tb's cudaGetLastError.) */
template <typename T, bool F, int K, int TY>
static void launch_tb3_k(const cuda3d_engine *c, const PP3<T> &p, Tb3Src<T> src, const cudaStream_t *st)
{
    if (!c->N && !c->tb_inner) {
        src.part = TB_ALL;
        launch_tb3_p<T, F, K, TY, 0, false>(c, p, src);
        return;
    }
    const bool split = TY == 32 && tb_split(c);
    if (split)
        launch_slabs<T, F, K, TY>(c, p, src, st);
    src.part = c->N ? TB_INTERIOR : TB_INNER;
    bool band = false;
    if constexpr (sizeof(T) == 4 && K == 3 && TY == 32)
        band = split && tb_band_on(c);
    if (band) {
        /* the tiles clear of the slabs as 32 x 16 tiles: 3 blocks an SM
         * where the 32 x 32 tiles fit one (docs/cuda.md, "The band") */
        Tb3Src<T> bs = src;
        bs.yb0 = c->tb_yb0;
        bs.yb1 = c->tb_yb1;
        tb_band_chunks(c, &bs);
        if (!(c->tb_skip & 16))
            launch_tb3r_band<T, F>(c, p, bs);
    } else if (c->tb_inner)
        launch_tb3_p<T, F, K, TY, 0, true>(c, p, src);
    else
        launch_tb3_p<T, F, K, TY, 0, false>(c, p, src);
    if (!c->N) {
        src.part = TB_OUTER;
        launch_tb3_p<T, F, K, TY, 0, false>(c, p, src);
        return;
    }
    if (!split) {
        src.part = TB_SLAB;
        launch_tb3_p<T, F, K, TY, 2, false>(c, p, src);
    }
}

/* With a CPML (TY 32) the slab parts go each on a stream of its own,
 * forked from the default stream before the tiles clear of the slabs: the
 * slab parts are few blocks each, marching long columns, and so their
 * tails overlap the others' work instead of idling the GPU between
 * launches (measured: docs/performance.md, "The slab parts, one by one").
 * tb_join makes the default stream wait for all four before what follows.
 * Elsewhere (or TEXFDTD_CUDA3D_TBSTREAMS=0) every st[q] is the default
 * stream. */
static void tb_fork(const cuda3d_engine *c, cudaStream_t st[4])
{
    const bool split = tb_split(c) && c->tb_streams;
    if (split)
        cudaEventRecord(c->tb_fork, 0);
    for (int q = 0; q < 4; q++) {
        st[q] = split ? c->tb_st[q] : 0;
        if (split)
            cudaStreamWaitEvent(st[q], c->tb_fork, 0);
    }
}

/* records on each stream of its own (st[q] not the default) the event
 * that says its part is done; returns them in ev, their count */
static int tb_done(const cuda3d_engine *c, const cudaStream_t st[4], cudaEvent_t ev[4])
{
    int ne = 0;
    for (int q = 0; q < 4; q++)
        if (st[q]) {
            cudaEventRecord(c->tb_join[q], st[q]);
            ev[ne++] = c->tb_join[q];
        }
    return ne;
}

static void tb_join(const cuda3d_engine *c, const cudaStream_t st[4])
{
    cudaEvent_t ev[4];
    const int ne = tb_done(c, st, ev);
    for (int q = 0; q < ne; q++)
        cudaStreamWaitEvent(0, ev[q], 0);
}

template <typename T, bool F, int TY>
static void launch_tb3_ty(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, const cudaStream_t *st)
{
    switch (c->tbk) {
    case 2: launch_tb3_k<T, F, 2, TY>(c, p, src, st); break;
    case 3: launch_tb3_k<T, F, 3, TY>(c, p, src, st); break;
    default: launch_tb3_k<T, F, 4, TY>(c, p, src, st); break;
    }
}

template <typename T, bool F>
static void launch_tb3(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, const cudaStream_t *st)
{
    if (c->tby == 16)
        launch_tb3_ty<T, F, 16>(c, p, src, st);
    else
        launch_tb3_ty<T, F, 32>(c, p, src, st);
}

/* n steps: blocks of K in k_tb3, the rest on the fused path.  The slot values
 * of the K steps go to the device in one copy (after the last copy out of
 * the pinned buffer has completed: slot_ev, as slots_upload). */
template <typename T, bool F>
int step_tb(cuda3d_engine *c, const struct model *m, int n, char *err, size_t errlen)
{
    const int K = c->tbk, base = c->base.step;
    const bool mpi = c->dc.size > 1;
    if (mpi && n >= K && !c->tb_ghosts && halo_deep(c, NULL, 0, false, err, errlen))
        return -1;
    int s = 0;
    for (; n - s >= K; s += K) {
        const int t = base + s;
        for (int q = 0; q < K; q++)
            decomp_test_hook(t + q);
        Tb3Src<T> src;
        memset(&src, 0, sizeof src);
        src.pc = c->tb_point ? c->pc : -1;
        src.loud = c->tb_loud;
        if (c->tb_point) { /* pc = i + (j + ny (k - kb)) px */
            src.pi = (int)(c->pc % c->px);
            src.pj = (int)(c->pc / c->px % c->ny);
            src.pk = (int)(c->pc / c->px / c->ny) + c->kb;
        }
        for (int q = 0; q < K && c->tb_point; q++)
            src.pv[q] = (T)(sizeof(T) == 4 ? (double)(float)model_point_value(m, t + q)
                                           : model_point_value(m, t + q));
        if (c->tb_ns) {
            const size_t ns = c->tb_ns;
            CK(cudaEventSynchronize(c->slot_ev));
            for (int q = 0; q < K; q++) {
                if (sizeof(T) == 4)
                    model_slot_range_f(m, t + q, c->tb_s0, ns, (float *)c->tb_slot_vh + q * ns);
                else
                    model_slot_range_d(m, t + q, c->tb_s0, ns, (double *)c->tb_slot_vh + q * ns);
            }
            CK(cudaMemcpyAsync(c->tb_slot_vd, c->tb_slot_vh, (size_t)K * ns * sizeof(T),
                               cudaMemcpyHostToDevice));
            CK(cudaEventRecord(c->slot_ev));
            src.slot_map = c->tb_slot_map;
            src.slot_kind = c->tb_slot_pec;
            src.slot_v = (const T *)c->tb_slot_vd;
            src.ns = (long long)ns;
        }
        src.kz = c->tbz > 0 ? c->tbz : c->k1 - c->k0;
        /* a CPML: chunks of their own for the z slabs (N + K planes: the
         * next chunk's z halo, K planes below it, stays clear of them), so
         * that only those run the psi kernel all the way up; measured
         * against plain chunks with TEXFDTD_CUDA3D_SLABCHUNK=0 (bench).
         * Under MPI the ranks that hold a z face (their planes begin at 0
         * or end at nz) take the chunk next to it; the others plain chunks,
         * or with the exchange overlapped an edge chunk where a neighbour
         * is (tb_faces) */
        bool ov = false;
        {
            /* without a CPML, chunks of K + 1 planes at the z faces: the next
             * chunk's z halo then lies inside the faces, so its inner tiles
             * run the kernel without the face tests (TB_INNER) */
            int zlo, zhi;
            tb_faces(c, &zlo, &zhi);
            const int mid = c->k1 - c->k0 - zlo - zhi;
            if (zlo || zhi) {
                src.zlo = zlo;
                src.zhi = zhi;
                if (c->tbz <= 0)
                    src.kz = mid;
                src.zm = tb_mid_chunks(src, c->k1 - c->k0);
            }
            /* the edge chunks hold the K planes each side sends */
            ov = mpi && c->tb_overlap && (!c->dc.lo || zlo >= K) && (!c->dc.hi || zhi >= K);
        }
        /* the monitors: the K steps' rows (what room the batch has left;
         * the count advances as take_samples's, with or without own samples) */
        int rows = 0;
        if (m->nsamples && c->smp_n < m->sample_rows)
            rows = m->sample_rows - c->smp_n < K ? m->sample_rows - c->smp_n : K;
        if (rows && c->nown) {
            src.smap = c->tb_smap;
            src.snext = c->tb_snext;
            src.sf = c->smp_f;
            src.srow = (T *)c->smp_rows + (size_t)c->smp_n * c->nown;
            src.sn = (long long)c->nown;
            src.srows = rows;
        }
        PP3<T> p = pp3_view<T>(c, m);
        for (int q = 0; q < PSI_HXY; q++) /* the E psi are pairs on this path */
            p.hpsi1[q] = (T *)c->psib[q];
        /* the buffers the block writes become the current ones now (the
         * launches take theirs from p): halo_deep sends from them */
        pp3_swap(c); /* the fields and the H psi */
        for (int q = 0; q < PSI_HXY; q++) {
            void *x = c->psi[q];
            c->psi[q] = c->psib[q];
            c->psib[q] = x;
        }
        cudaStream_t st[4];
        tb_fork(c, st);
        if (ov) {
            /* Overlapped: the edge chunks of every part first, then the
             * exchange of the K planes they make (and with a CPML their x
             * and y psi) on its own stream, once each part's edge chunks
             * are done, while the chunks between run; the next block waits
             * for it.  It writes only ghost planes, which no chunk of this
             * block reads or writes (they read the old buffers). */
            src.zsel = 1;
            src.zelo = c->dc.lo != 0;
            src.zehi = c->dc.hi != 0;
            launch_tb3<T, F>(c, p, src, st);
            CK(cudaGetLastError());
            cudaEvent_t ev[4];
            const int ne = tb_done(c, st, ev);
            CK(cudaGetLastError());
            if (halo_deep(c, ev, ne, true, err, errlen))
                return -1;
            src.zsel = 2;
        }
        launch_tb3<T, F>(c, p, src, st);
        CK(cudaGetLastError());
        tb_join(c, st);
        c->smp_n += rows;
        /* the next block's ghost planes, with a CPML their x and y psi
         * (and the one-step path's: Hx, Hy below, Ex, Ey above) */
        if (ov && halo_wait(c, true, 0, err, errlen))
            return -1;
        if (mpi && !ov && halo_deep(c, NULL, 0, false, err, errlen))
            return -1;
        c->tb_ghosts = true;
    }
    if (s < n) {
        /* the rest, one step a launch; step_fused numbers its steps from
         * base.step, which the engine advances only after this call.  It
         * keeps only the planes next to the slab fresh. */
        c->base.step = base + s;
        const int rc = step_fused<T, F>(c, m, n - s, err, errlen);
        c->base.step = base;
        c->tb_ghosts = false;
        return rc;
    }
    return 0;
}

/* Why the temporal path cannot take this scene (NULL: it can).  A CPML
 * under MPI it takes unless a ghost plane lies in a z slab, which the
 * engine checks over the ranks (cuda3d.cu: collective). */
const char *tb_refusal(const cuda3d_engine *c, const struct model *m)
{
    (void)c;
    if (m->scene->boundary == BOUNDARY_MUR)
        return "Mur walls";
    if (m->magnetic || m->dispersive)
        return "mu_r or dispersion poles";
    return NULL;
}

/* The samples' map (tb_smap: the first own sample of each padded cell, -1
 * none; tb_snext: the next of the same cell, in the samples' order), from
 * their array indices (smp_at, already on the device). */
static int tb_sample_map(cuda3d_engine *c, char *err, size_t errlen)
{
    long long *at = (long long *)malloc(c->nown * sizeof *at);
    int *map = (int *)malloc(c->cells * sizeof *map), *next = (int *)malloc(c->nown * sizeof *next);
    cudaError_t e = at && map && next ? cudaMemcpy(at, c->smp_at, c->nown * sizeof *at,
                                                   cudaMemcpyDeviceToHost)
                                      : cudaErrorMemoryAllocation;
    if (e == cudaSuccess) {
        for (size_t q = 0; q < c->cells; q++)
            map[q] = -1;
        for (size_t q = c->nown; q-- > 0;) {
            next[q] = map[at[q]];
            map[at[q]] = (int)q;
        }
        e = cudaMalloc((void **)&c->tb_smap, c->cells * sizeof *map);
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(c->tb_smap, map, c->cells * sizeof *map, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&c->tb_snext, c->nown * sizeof *next);
    if (e == cudaSuccess)
        e = cudaMemcpy(c->tb_snext, next, c->nown * sizeof *next, cudaMemcpyHostToDevice);
    free(at);
    free(map);
    free(next);
    if (e != cudaSuccess)
        return seterr(err, errlen, "cuda 3D: cannot set up the temporal path's samples: %s",
                      cudaGetErrorString(e));
    return 0;
}

/* At create, for the temporal path: this file's coefficient table, the
 * samples' map, under MPI the host-staged exchange's pinned buffers, the
 * slot map (slot number per padded cell) and the K-step slot buffers. */
int tb_setup(cuda3d_engine *c, const struct model *m, size_t es, char *err, size_t errlen)
{
    if (cezh_upload(c, err, errlen) || tbr_set_cezh(c, err, errlen))
        return -1;
    { /* k_tb3r's indices (i + j sy + (k - kb) sz, the local planes k - kb
       * from -K - 1 to nzl + K, the tile's columns and rows a little past
       * the grid's) lie within cells + 2 (K + 1) planes of 0 */
        const char *w = getenv("TEXFDTD_CUDA3D_IX64");
        c->tb_ix32 = !(w && !strcmp(w, "1"))
                     && (double)c->cells + 2.0 * (c->tbk + 1) * (double)c->plane < 2147483647.0;
    }
    { /* bench: the parts left out (tb_skip) */
        const char *v = getenv("TEXFDTD_CUDA3D_TBSKIP");
        c->tb_skip = v ? atoi(v) & 31 : 0;
    }
    { /* bench: 0 = every block of k_tb3 and k_tb3r runs the per-cell source tail */
        const char *q = getenv("TEXFDTD_CUDA3D_QUIET");
        c->tb_loud = q && !strcmp(q, "0");
    }
    if (c->tb && c->nown && tb_sample_map(c, err, errlen))
        return -1;
    if (c->tb && c->dc.size > 1) { /* the host-staged exchange's planes, and their psi */
        const size_t bytes = (size_t)6 * c->tbk * c->dc.plane * es + tb_psi_bytes(c, es);
        for (int q = 0; q < 2; q++)
            if (cudaMallocHost(&c->tb_stage[q], bytes) != cudaSuccess)
                return seterr(err, errlen, "cuda 3D: cannot allocate the temporal path's "
                              "exchange planes (%zu bytes pinned)", bytes);
    }
    { /* the band of the tiles clear of the slabs (tb_band_on): the rows
       * of the 32 x 32 tiles that meet no y slab, halo included (a run of
       * tiles: tb_take's test); TEXFDTD_CUDA3D_TBBAND=0 (bench): none */
        const char *bv = getenv("TEXFDTD_CUDA3D_TBBAND");
        c->tb_band = !(bv && !strcmp(bv, "0"));
        c->tb_yb0 = c->tb_yb1 = 0;
        const int w = c->tby - 2 * c->tbk;
        for (int b = 0; c->tb && c->N && b < tb_tiles(c->ny, c->tby, c->tbk); b++)
            if (!tb_meets(b * w - c->tbk, b * w - c->tbk + c->tby - 1, c->ny, c->N)) {
                if (c->tb_yb1 == c->tb_yb0)
                    c->tb_yb0 = b * w;
                c->tb_yb1 = (b + 1) * w;
            }
    }
    if (c->tb && c->N && c->tby == 32 && es == 4) {
        /* the 12-psi tiles' psi in shared memory, beside k_tb3's six planes
         * of E and H, where a block may have that much (TEXFDTD_CUDA3D_TBPSS=0,
         * bench: in registers) */
        const char *pv = getenv("TEXFDTD_CUDA3D_TBPSS");
        int dev = 0, optin = 0;
        if (cudaGetDevice(&dev) != cudaSuccess
            || cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
            optin = 0;
        c->tb_pss = !(pv && !strcmp(pv, "0"))
                    && tb_pss_bytes(c->tbk, 32, es) + 6 * 32 * 32 * es <= (size_t)optin;
    }
    if (c->tb && tb_split(c)) { /* the slab parts' streams */
        const char *sv = getenv("TEXFDTD_CUDA3D_TBSTREAMS"); /* bench: 0 = one stream */
        c->tb_streams = !(sv && !strcmp(sv, "0"));
        /* at the greatest priority: the slab parts' few, long-marching
         * blocks are dispatched before the waiting blocks of the tiles
         * clear of the slabs, so that fewer of them are left running alone
         * at the end of the step (measured +1.1 %: docs/performance.md,
         * "One-axis slab tiles with two rows a thread");
         * TEXFDTD_CUDA3D_TBPRIO=0 (bench): the default stream's */
        const char *pv = getenv("TEXFDTD_CUDA3D_TBPRIO");
        int lo = 0, hi = 0;
        if (!(pv && !strcmp(pv, "0")) && cudaDeviceGetStreamPriorityRange(&lo, &hi) != cudaSuccess)
            hi = 0;
        for (int q = 0; q < 4 && c->tb_streams; q++)
            if (cudaStreamCreateWithPriority(&c->tb_st[q], cudaStreamNonBlocking, hi) != cudaSuccess
                || cudaEventCreateWithFlags(&c->tb_join[q], cudaEventDisableTiming) != cudaSuccess)
                return seterr(err, errlen, "cuda 3D: cannot create the temporal path's streams");
        if (c->tb_streams && cudaEventCreateWithFlags(&c->tb_fork, cudaEventDisableTiming) != cudaSuccess)
            return seterr(err, errlen, "cuda 3D: cannot create the temporal path's streams");
    }
    if (!c->tb || !c->tb_ns)
        return 0;
    /* the slot number (in tb_s0 ..) of each padded local cell, -1 elsewhere;
     * each slot's kind, from the Ez map (as the one-step path's slot_pec) */
    const size_t ns = c->tb_ns, plane = c->dc.plane, kb = (size_t)c->kb;
    const int nmaps = c->ms ? 3 : 1;
    int *map = (int *)malloc(c->cells * sizeof *map);
    uint8_t *kind = (uint8_t *)malloc(ns);
    if (!map || !kind) {
        free(map);
        free(kind);
        return seterr(err, errlen, "cuda 3D: out of host memory");
    }
    for (size_t q = 0; q < c->cells; q++)
        map[q] = -1;
    for (size_t k = 0; k < ns; k++) {
        const size_t s = m->slot_cell[c->tb_s0 + k] - kb * plane; /* local, unpadded */
        map[s % (size_t)c->nx + s / (size_t)c->nx * (size_t)c->px] = (int)k;
        kind[k] = c->slot_kind[c->mat_h[(size_t)(nmaps - 1) * c->nzl * plane + s]];
    }
    cudaError_t e = cudaMalloc((void **)&c->tb_slot_map, c->cells * sizeof *map);
    if (e == cudaSuccess)
        e = cudaMemcpy(c->tb_slot_map, map, c->cells * sizeof *map, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&c->tb_slot_pec, ns);
    if (e == cudaSuccess)
        e = cudaMemcpy(c->tb_slot_pec, kind, ns, cudaMemcpyHostToDevice);
    free(map);
    free(kind);
    if (e == cudaSuccess && !c->slot_ev) /* a rank whose slots are all ghosts' */
        e = cudaEventCreateWithFlags(&c->slot_ev, cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaMalloc(&c->tb_slot_vd, (size_t)c->tbk * ns * es);
    if (e == cudaSuccess)
        e = cudaMallocHost(&c->tb_slot_vh, (size_t)c->tbk * ns * es);
    if (e != cudaSuccess)
        return seterr(err, errlen, "cuda 3D: cannot set up the temporal path's source slots: %s",
                      cudaGetErrorString(e));
    return 0;
}

void tb_free(cuda3d_engine *c)
{
    cudaFree(c->tb_smap);
    cudaFree(c->tb_snext);
    cudaFree(c->tb_slot_map);
    cudaFree(c->tb_slot_vd);
    cudaFreeHost(c->tb_slot_vh);
    cudaFree(c->tb_slot_pec);
    for (int q = 0; q < 2; q++)
        cudaFreeHost(c->tb_stage[q]);
    for (int q = 0; q < 4; q++) {
        if (c->tb_st[q])
            cudaStreamDestroy(c->tb_st[q]);
        if (c->tb_join[q])
            cudaEventDestroy(c->tb_join[q]);
    }
    if (c->tb_fork)
        cudaEventDestroy(c->tb_fork);
}

#define INST(T, F) template int step_tb<T, F>(cuda3d_engine *, const struct model *, int, char *, size_t);
CUDA3D_INSTANTIATE_TF(INST)
#undef INST
