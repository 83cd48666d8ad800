/* cuda3d_fused.cu - the fused step of the 3D CUDA engine: one z-marching
 * kernel per step (k_fused3: H and E together, ping-pong buffers; A1 with
 * the psi inline, or no CPML), its tile tables (build_tiles), Mur on the
 * ping-pong pair, and the step that launches them (step_fused: under MPI in
 * three parts around the halo exchange).  The statements per cell are
 * cpu/update3d.inc's, as in the two-kernel step (cuda3d_kernels.cu).
 */
#include "cuda3d_fused.cuh"

/* ------------------------------------------------------------------------
 * A1 fused: one kernel per step, H and E together, z-marching (the combined
 * strategy with psi inline; also used without an absorbing layer).
 *
 * The previous step's six fields are read from one buffer of a ping-pong
 * pair and the new ones written into the other, so a block can recompute the
 * H its E needs from its neighbours' cells (the halo) without a grid-wide
 * barrier; the six H psi are paired the same way (the halo reads the old
 * psi, only the owner writes the new); the six E psi are touched by their
 * owner only and stay single.  Per cell the statements and roundings are
 * update3d.inc's (the same h/e component functions as below the halo), so
 * the bits equal the two-kernel A1 and cpu3d.
 *
 * Mapping: a block is 32 x (BY + 1) threads over a 32 x BY tile of (i, j)
 * and marches up a chunk of planes (at most KZ).  The tiles are listed on
 * the host in two tables: those whose cells and halo touch no CPML slab run
 * a kernel compiled without the psi code (48 registers instead of 72, so
 * more warps per SM), the others the full one; the z chunks are cut at the
 * slab boundaries so that most of the grid is in the first table.  Warp 0 sits on the row below the
 * tile (j0 - 1) and only computes the H that row contributes (Hx, Hz at
 * j - 1); warps 1..BY own the tile's rows.  Per plane k: every warp computes
 * H(k) (Ex/Ey/Ez of plane k+1, loaded now, are plane k's next time: register
 * reuse along z; Ez/Ey(i+1) from the next lane, lane 31 loads them; Ex/Ez(j+1)
 * through L1), puts Hx, Hz in shared memory, barrier; the owners compute E(k)
 * from H(k), H(k-1) (registers), Hx/Hz(j-1) (shared memory) and Hy/Hz(i-1)
 * (previous lane; lane 0 recomputes them).  The first plane of a chunk,
 * k0 - 1, is computed for its H only.
 * ------------------------------------------------------------------------ */
template <typename T, bool F, bool PML, int BY, bool L, bool S>
__global__ void __launch_bounds__(32 * (BY + 1), PML && sizeof(T) == 8 ? 3 : 4) k_fused3(PP3<T> p, const Tile3 *tiles)
{
    typedef Yee<T, F> Y;
    const Dev3<T> &d = p.o;
    __shared__ T s_hx[BY + 1][32], s_hz[BY + 1][32];
    const int lane = threadIdx.x, w = threadIdx.y;
    const Tile3 tl = tiles[blockIdx.x];
    const int i = tl.bx * 32 + lane;
    const int j = tl.by * BY + w - 1;
    const int k0 = tl.k0, k1 = tl.k1;
    const bool ok = i < d.nx && j >= 0 && j < d.ny;
    const bool own = ok && w >= 1;
    const long long sy = d.sy, sz = d.sz;
    const bool j_up = j + 1 < d.ny, i_up = i + 1 < d.nx, i_dn = i >= 1;
    const long long cj = i + j * sy;
    int k = k0 >= 1 ? k0 - 1 : k0;
    /* E of plane k (old) */
    T exc = 0, eyc = 0, ezc = 0;
    if (ok) {
        exc = d.ex[cj + (k - d.kb) * sz];
        eyc = d.ey[cj + (k - d.kb) * sz];
        ezc = d.ez[cj + (k - d.kb) * sz];
    }
    T hxp = 0, hyp = 0; /* new Hx, Hy of plane k-1 */
    for (; k < k1; k++) {
        const long long c = cj + (k - d.kb) * sz;
        const bool k_up = k + 1 < d.nz;
        T exu = 0, eyu = 0, ezu = 0, ezj = 0, exj = 0, hxo = 0, hyo = 0, hzo = 0;
        if (ok) {
            if (k_up) {
                exu = d.ex[c + sz];
                eyu = d.ey[c + sz];
                ezu = d.ez[c + sz];
            }
            if (j_up) {
                ezj = d.ez[c + sy];
                exj = d.ex[c + sy];
            }
            hxo = d.hx[c];
            hyo = d.hy[c];
            hzo = d.hz[c];
        }
        T ezi = __shfl_down_sync(FULL_MASK3, ezc, 1), eyi = __shfl_down_sync(FULL_MASK3, eyc, 1);
        if (lane == 31 && ok && i_up) {
            ezi = d.ez[c + 1];
            eyi = d.ey[c + 1];
        }
        /* H(k): update3d.inc's differences; the halo plane k0-1 is not ours
         * (hb: it is another rank's, received; only its Hx, Hy are used) */
        const bool ownk = own && k >= k0;
        T hx, hy, hz;
        if (tl.hb && k < k0) {
            hx = ok ? p.hx1[c] : T(0);
            hy = ok ? p.hy1[c] : T(0);
            hz = T(0);
        } else {
            hx = hx3<T, F, PML>(p, i, j, k, ok, Y::yee_diff(ezj, ezc), Y::yee_diff(eyu, eyc), hxo, ownk);
            hy = hy3<T, F, PML>(p, i, j, k, ok, Y::yee_diff(exu, exc), Y::yee_diff(ezi, ezc), hyo, ownk);
            hz = hz3<T, F, PML>(p, i, j, k, ok, Y::yee_diff(eyi, eyc), Y::yee_diff(exj, exc), hzo, ownk);
        }
        if (k >= k0) {
            T hz_im = __shfl_up_sync(FULL_MASK3, hz, 1), hy_im = __shfl_up_sync(FULL_MASK3, hy, 1);
            if (lane == 0 && own && i_dn) {
                /* Hz(i-1, j, k) and Hy(i-1, j, k), recomputed (not stored) */
                const long long cl = c - 1;
                const T exl = d.ex[cl];
                const T exlj = j_up ? d.ex[cl + sy] : T(0), exlk = k_up ? d.ex[cl + sz] : T(0);
                hz_im = hz3<T, F, PML>(p, i - 1, j, k, true, Y::yee_diff(eyc, d.ey[cl]), Y::yee_diff(exlj, exl), d.hz[cl], false);
                hy_im = hy3<T, F, PML>(p, i - 1, j, k, true, Y::yee_diff(exlk, exl), Y::yee_diff(ezc, d.ez[cl]), d.hy[cl], false);
            }
            s_hx[w][lane] = hx;
            s_hz[w][lane] = hz;
            __syncthreads();
            if (own) {
                p.hx1[c] = hx;
                p.hy1[c] = hy;
                p.hz1[c] = hz;
                T ex = exc, ey = eyc, ez = ezc;
                e3<T, F, PML, L, S>(p, i, j, k, d.mat[c], d.mat + c, ex, ey, ez, hx, hy, hz, s_hz[w - 1][lane],
                              hyp, hxp, hz_im, hy_im, s_hx[w - 1][lane]);
                p.ex1[c] = ex;
                p.ey1[c] = ey;
                p.ez1[c] = ez;
            }
            __syncthreads();
        }
        hxp = hx;
        hyp = hy;
        exc = exu;
        eyc = eyu;
        ezc = ezu;
    }
}

/* Mur on the ping-pong pair: wall = old(nb) + k (new(nb) - old(wall)). */
template <typename T, bool F>
__global__ void k_mur_pp(const T *e0, T *e1, MurPlane p, T kmur)
{
    typedef Yee<T, F> Y;
    const int wa = p.a1 - p.a0 + 1, wb = p.b1 - p.b0 + 1;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= (long long)wa * wb)
        return;
    const int a = p.a0 + (int)(t % wa), b = p.b0 + (int)(t / wa);
    const long long w = p.base + a * p.sa + b * p.sb;
    const long long nb = p.inward > 0 ? w + p.step : w - p.step;
    e1[w] = Y::yee_mur(e0[nb], kmur, e1[nb], e0[w]);
}

template <typename T, bool F, bool L, bool S>
static void launch_fused3_l(const TileSet &ts, const PP3<T> &p, cudaStream_t st)
{
    const dim3 b(32, 9);
    if (ts.n[1])
        k_fused3<T, F, true, 8, L, S><<<(unsigned)ts.n[1], b, 0, st>>>(p, ts.t[1]);
    if (ts.n[0])
        k_fused3<T, F, false, 8, L, S><<<(unsigned)ts.n[0], b, 0, st>>>(p, ts.t[0]);
}

/* The lossy kernels only where the scene has a lossy material, the three
 * E maps only where it has smoothed edges (c->ms). */
template <typename T, bool F>
static void launch_fused3(const cuda3d_engine *c, const TileSet &ts, const PP3<T> &p,
                          cudaStream_t st = 0)
{
    if (c->lossy && c->ms)
        launch_fused3_l<T, F, true, true>(ts, p, st);
    else if (c->lossy)
        launch_fused3_l<T, F, true, false>(ts, p, st);
    else if (c->ms)
        launch_fused3_l<T, F, false, true>(ts, p, st);
    else
        launch_fused3_l<T, F, false, false>(ts, p, st);
}

/* A1 (or no CPML) with one fused kernel per step, then Mur, slots, point.
 * Under MPI a slab's tiles go in three parts so that the exchanges overlap
 * the body (the fused kernel writes the new fields into the other buffers,
 * so the H the rank above needs exists as soon as the top plane's tiles are
 * done).  On the edge stream (highest priority, so its blocks go ahead of
 * the body's remaining ones): wait for the step so far and for Ex, Ey plane
 * k1 | top plane k1-1 | start Hx, Hy (new buffers) | wait for Hx, Hy plane
 * k0-1 | bottom plane k0 (its H of plane k0-1 read, not recomputed).  On
 * the default stream meanwhile: the body k0+1 .. k1-2 | wait for the edges |
 * Mur, swap, slots, point | start Ex, Ey.  The three parts read the old
 * buffers and write disjoint planes of the new ones, and each cell's
 * statements and inputs are those of one process: so are the bits.  (A
 * first version ran the four parts one after the other on one stream, the
 * body cut in two around the exchanges: 0.26 ms a step more than the work
 * at 1024^3, docs/performance.md.) */
template <typename T, bool F>
int step_fused(cuda3d_engine *c, const struct model *m, int n, char *err, size_t errlen)
{
    const bool mur = m->scene->boundary == BOUNDARY_MUR;
    const bool mpi = c->halo != HALO_NONE;
    const T kmur = sizeof(T) == 4 ? (T)m->mur_k_f : (T)m->mur_k;
    for (int s = 0; s < n; s++) {
        const int t = c->base.step + s;
        decomp_test_hook(t);
        if (slots_upload<T>(c, m, t, err, errlen))
            return -1;
        const PP3<T> p = pp3_view<T>(c, m);
        if (mpi) {
            CK(cudaEventRecord(c->ev_step, 0));
            CK(cudaStreamWaitEvent(c->ps, c->ev_step, 0));
            if (halo_wait(c, false, c->ps, err, errlen))
                return -1;
            launch_fused3<T, F>(c, c->ts[TS_TOP], p, c->ps);
            if (halo_start(c, true, c->fb, c->ps, err, errlen))
                return -1;
            if (halo_wait(c, true, c->ps, err, errlen))
                return -1;
            launch_fused3<T, F>(c, c->ts[TS_BOTTOM], p, c->ps);
            CK(cudaEventRecord(c->ev_edges, c->ps));
        }
        launch_fused3<T, F>(c, c->ts[TS_BODY], p); /* one rank: every tile */
        if (mpi)
            CK(cudaStreamWaitEvent(0, c->ev_edges, 0));
        if (mur) {
            const T *old[3] = {p.o.ex, p.o.ey, p.o.ez};
            T *nw[3] = {p.ex1, p.ey1, p.ez1};
            for (int q = 0; q < MUR_PLANES; q++) {
                const MurPlane &mp = c->mur[q];
                const long long np = (long long)(mp.a1 - mp.a0 + 1) * (mp.b1 - mp.b0 + 1);
                if (mp.a1 >= mp.a0 && mp.b1 >= mp.b0) /* a z face of another rank is empty */
                    k_mur_pp<T, F><<<(unsigned)((np + 255) / 256), 256>>>(old[mp.comp], nw[mp.comp], mp, kmur);
            }
        }
        pp3_swap(c);
        T *ez = (T *)c->f[2];
        sources_apply<T, F>(c, m, t, ez);
        take_samples<T>(c);
        CK(cudaGetLastError());
        if (mpi && halo_start(c, false, c->f, 0, err, errlen)) /* waited for before the next top plane */
            return -1;
    }
    if (mpi && halo_wait(c, false, 0, err, errlen)) /* reads after the step see plane k1 */
        return -1;
    return 0;
}

/* Does [a, b] (positions along an axis of n cells) meet a CPML slab of N
 * cells, E or H: [0, N-1] or [n-1-N, n-2]? */
static bool meets_slab(int a, int b, int n, int N)
{
    if (N <= 0)
        return false;
    return a <= N - 1 || b >= n - 1 - N;
}

/* The fused kernel's tiles over planes za <= k < zb into ts: [0] no CPML
 * cell in the tile or its halo (i0-1, j0-1, k0-1), [1] the others.  z
 * chunks of at most kz planes, cut at N+1 and nz-1-N.  hb: the tiles read
 * the H of plane za-1 from the new buffers (set only for za = this rank's k0
 * under a rank below). */
static int build_tiles(cuda3d_engine *c, TileSet *ts, int za, int zb, bool hb, char *err,
                       size_t errlen)
{
    const int N = c->N, nbx = c->px / 32, nby = (c->ny + 7) / 8;
    int cuts[2], ncut = 0;
    if (N > 0 && c->nz - 1 - N > N + 1) {
        cuts[ncut++] = N + 1;
        cuts[ncut++] = c->nz - 1 - N;
    }
    size_t cap = 0;
    for (int pass = 0; pass < 2; pass++) {
        Tile3 *h[2] = {NULL, NULL};
        size_t n[2] = {0, 0};
        if (pass == 1) {
            h[0] = (Tile3 *)malloc((cap ? cap : 1) * sizeof(Tile3));
            h[1] = (Tile3 *)malloc((cap ? cap : 1) * sizeof(Tile3));
            if (!h[0] || !h[1]) {
                free(h[0]);
                free(h[1]);
                return seterr(err, errlen, "cuda 3D: out of host memory");
            }
        }
        int z = za;
        for (int seg = 0; seg <= ncut && z < zb; seg++) {
            int zend = seg < ncut ? cuts[seg] : zb;
            if (zend > zb)
                zend = zb;
            if (zend <= z) /* a cut below the range */
                continue;
            for (; z < zend; z += c->kz) {
                const int k0 = z, k1 = z + c->kz < zend ? z + c->kz : zend;
                for (int by = 0; by < nby; by++)
                    for (int bx = 0; bx < nbx; bx++) {
                        const bool pml = meets_slab(bx * 32 - 1, bx * 32 + 31, c->nx, N)
                                         || meets_slab(by * 8 - 1, by * 8 + 7, c->ny, N)
                                         || meets_slab(k0 - 1, k1 - 1, c->nz, N);
                        if (pass == 1)
                            h[pml][n[pml]] = Tile3{bx, by, k0, k1, hb && k0 == za};
                        n[pml]++;
                    }
            }
            z = zend;
        }
        if (pass == 0) {
            cap = n[0] > n[1] ? n[0] : n[1];
            continue;
        }
        for (int q = 0; q < 2; q++) {
            ts->n[q] = n[q];
            cudaError_t e = cudaMalloc((void **)&ts->t[q], (n[q] ? n[q] : 1) * sizeof(Tile3));
            if (e == cudaSuccess && n[q])
                e = cudaMemcpy(ts->t[q], h[q], n[q] * sizeof(Tile3), cudaMemcpyHostToDevice);
            if (e != cudaSuccess) {
                free(h[0]);
                free(h[1]);
                return seterr(err, errlen, "cuda 3D: cannot upload the tile tables: %s",
                              cudaGetErrorString(e));
            }
        }
        free(h[0]);
        free(h[1]);
    }
    return 0;
}

/* The fused kernel's tile sets: all planes on one rank; under MPI the three
 * parts of the slab (TS_*: the body, the top plane, the bottom plane), and
 * the edge planes' stream of the highest priority with its two events. */
int build_tile_sets(cuda3d_engine *c, char *err, size_t errlen)
{
    int rc;
    if (c->dc.size <= 1) {
        rc = build_tiles(c, &c->ts[TS_BODY], 0, c->nz, false, err, errlen);
    } else {
        const int k0 = c->k0, k1 = c->k1;
        rc = build_tiles(c, &c->ts[TS_BODY], k0 + 1, k1 - 1, false, err, errlen) ||
             build_tiles(c, &c->ts[TS_TOP], k1 - 1, k1, false, err, errlen) ||
             build_tiles(c, &c->ts[TS_BOTTOM], k0, k0 + 1, c->dc.lo != 0, err, errlen);
        int least = 0, greatest = 0;
        CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CK(cudaStreamCreateWithPriority(&c->ps, cudaStreamNonBlocking, greatest));
        CK(cudaEventCreateWithFlags(&c->ev_step, cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&c->ev_edges, cudaEventDisableTiming));
    }
    if (rc)
        return rc;
    size_t n[2] = {0, 0};
    for (int q = 0; q < TS_COUNT; q++)
        for (int t = 0; t < 2; t++)
            n[t] += c->ts[q].n[t];
    log_info("cuda 3D: fused kernel over %zu interior and %zu CPML tiles%s", n[0], n[1],
             c->dc.size > 1 ? " (the slab's bottom and top planes apart)" : "");
    return 0;
}

int fused_set_cezh(const cuda3d_engine *c, char *err, size_t errlen)
{
    return cezh_upload(c, err, errlen);
}

#define INST(T, F) template int step_fused<T, F>(cuda3d_engine *, const struct model *, int, char *, size_t);
CUDA3D_INSTANTIATE_TF(INST)
#undef INST
