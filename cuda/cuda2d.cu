/* cuda2d.cu - the 2D TMz (and TE) CUDA engine: cpu/update2d.inc statement for
 * statement (same order, slots, CPML with psi only in the slabs, Mur, point
 * source, running DFT at each [monitor.dft] frequency), float or double, so
 * that the float fields are bit-identical to the CPU engine in its flush
 * mode (common.cuh).
 *
 * Staggering as core/model.h: cell (i, j) holds Ez(i, j), Hx(i, j+1/2),
 * Hy(i+1/2, j); arrays [ny][px], px = nx rounded up to 128 elements (aligned,
 * coalesced rows; a warp of 16-byte vectors spans 128 floats).  Three step
 * paths (TEXFDTD_CUDA2D, chosen at create):
 *   two:      one H kernel, (Mur save), one E kernel, (Mur apply), slots,
 *             point, DFT: the two-kernel scheme of De Donno et al. (2010)
 *             with a thread per cell in 32 x 8 blocks, in place;
 *   fused:    one kernel per step (H and E, the halo H recomputed) on
 *             ping-pong buffers, then Mur, slots, point, DFT (k_fused2,
 *             k_fused2v);
 *   temporal: K steps per kernel, a register wavefront with the slots and
 *             the point source inside (k_tb2); scenes without CPML, Mur,
 *             DFT or conformal PEC.
 * A lossy scene (model->lossy) runs its E kernels with the template flag L:
 * Ez = ca Ez + cb curl (core/yee.h), the others the lossless update.
 * Each cell runs update2d.inc's statements on every path, so the bits agree.
 *
 * Conformal PEC ([grid] conformal_pec, core/model.h struct cut_edge) runs
 * on the two-kernel path only, whatever TEXFDTD_CUDA2D asks: k_cut_save2
 * keeps the cut edges' old H, k_h2 updates every H as usual (CPML psi
 * included), k_cut_apply2 overwrites the cut edges' H from the old values,
 * Ez^n and this step's b^n, and k_e2 then reads the new H, as update_h_row
 * does row by row.  (The fused and temporal kernels take the new H into E
 * from registers within one pass; the cut edges would need a lookup per
 * cell inside them, or a fix-up that redoes the E update of their nodes
 * after the E psi and Mur have advanced.  The two-kernel path needs two
 * small kernels over the ncut edges and leaves every other kernel as it
 * was.)
 *
 * TE ([grid] polarization = te: the same update on the dual fields, the
 * arrays ez, hx, hy holding eta0 Hz, -Ex, -Ey), mu_r != 1 and dispersive
 * poles (docs/materials-design.md sections 1-3) also run on the two-kernel
 * path only, whatever TEXFDTD_CUDA2D asks: the H-node map (core/model.h
 * hmat) is a byte per Hx and Hy node read by k_h2 with its flag HM (a
 * coefficient table in constant memory), k_hslots2 applies the H-node slots
 * after the H update and the cut edges, and k_disp2 the D-E update of the
 * dispersive cells (a list, state for those cells only) after the E update
 * and Mur, before the source slots: update2d.inc's order.  The fused and
 * temporal kernels would need the per-node lookups and the passes between
 * H and E inside their single pass; they decline these scenes instead.  The
 * TE read-out is core/engine.c's engine_read, for every engine.
 * TE's own features take the same path and the same kinds of list kernels:
 * lossy edges (model->hlossy: k_h2's flag HL, the edges' ca in constant
 * memory beside ch, h = ca h -+ ch d), dispersive edges (model->hdisp:
 * k_disp2 with its flag EDGE after the H-node slots, before the E kernel)
 * and the conformal PEC cut cells (model->tecut: k_tecut_save2 before the H
 * kernel, k_tecut_apply2 after the E kernel and Mur, before the dispersive
 * cells) and the off-diagonal smoothed edges (model->hoff: k_hoff2 after the
 * H kernel and the cut edges, before the H-node slots), in cpu2d.c's order.
 * Checkpoints (cuda2d_state) hold the cpu engine's arrays, names and
 * layouts, so a checkpoint moves between the two.
 *
 * Monitors (core/monitor.h): after every step the values of model->samples
 * go into the next row of a batch buffer on the device, and read_samples
 * copies the batch to the host in one cudaMemcpy.  The two-kernel and fused
 * paths launch one small gather kernel after each step (k_sample_gather,
 * common.cuh: a thread per sample).  The temporal path gathers inside
 * k_tb2: the lane that stores a sampled cell writes each of the K steps'
 * values of it to that step's row, from a per-tile list of the samples.
 * Only the tiles that hold samples run that code, in a launch of their own
 * (TB2_SAMPLES) on a second stream, beside the launch of the other tiles
 * (TB2_OTHERS: the kernel of scenes without samples, unchanged).
 */
#include "common.cuh"
#include "core/incident.h"
#include "cuda/disp.cuh"
#include "cuda/yee.cuh"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__constant__ float c2_cezh_f[MODEL_MAX_MATERIALS];
__constant__ double c2_cezh_d[MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T cezh2(uint8_t m);
template <> __device__ __forceinline__ float cezh2<float>(uint8_t m) { return c2_cezh_f[m]; }
template <> __device__ __forceinline__ double cezh2<double>(uint8_t m) { return c2_cezh_d[m]; }
/* A lossy scene (model->lossy): Ez = ca Ez + cb curl, cb in c2_cezh (= S / eps_r
 * where sigma = 0, and ca = 1 there: the lossless bits); the kernels take it
 * with their template flag L (core/yee.h yee_curl_lossy, yee_lossy). */
__constant__ float c2_ca_f[MODEL_MAX_MATERIALS];
__constant__ double c2_ca_d[MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T ca2(uint8_t m);
template <> __device__ __forceinline__ float ca2<float>(uint8_t m) { return c2_ca_f[m]; }
template <> __device__ __forceinline__ double ca2<double>(uint8_t m) { return c2_ca_d[m]; }

/* The H-node map (core/model.h hmat: TE, or TM with mu_r != 1): the
 * coefficient hmats[k].ch of each H-node material k, read by k_h2 with its
 * template flag HM (c2_hc[0] = ch: the bits of a node of index 0 are those
 * of the plain update). */
__constant__ float c2_hc_f[MODEL_MAX_MATERIALS];
__constant__ double c2_hc_d[MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T hc2(uint8_t m);
template <> __device__ __forceinline__ float hc2<float>(uint8_t m) { return c2_hc_f[m]; }
template <> __device__ __forceinline__ double hc2<double>(uint8_t m) { return c2_hc_d[m]; }
/* TE lossy edges (model->hlossy): hmats[k].ca, read by k_h2 with its flag HL
 * (yee_h_sub_lossy / yee_h_add_lossy; c2_hca[k] = 1 where sigma = 0). */
__constant__ float c2_hca_f[MODEL_MAX_MATERIALS];
__constant__ double c2_hca_d[MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T hca2(uint8_t m);
template <> __device__ __forceinline__ float hca2<float>(uint8_t m) { return c2_hca_f[m]; }
template <> __device__ __forceinline__ double hca2<double>(uint8_t m) { return c2_hca_d[m]; }

/* ez + cb (tx - ty) with d = tx - ty, or with L: ca ez + cb d. */
template <typename T, bool F, bool L> __device__ __forceinline__ T ez_term2(T e, uint8_t m, T d)
{
    typedef Yee<T, F> Y;
    if (L)
        return Y::yee_lossy(e, ca2<T>(m), cezh2<T>(m), d);
    return Y::yee_add_mul(e, cezh2<T>(m), d);
}

template <typename T> struct Dev2 {
    T *ez, *hx, *hy, *re, *im;
    T *psi_hxy, *psi_ezy, *psi_hyx, *psi_ezx; /* [2][N][px], [2][N][px], [2][ny][N], [2][ny][N] */
    const uint8_t *mat;
    const T *pb[4], *pc[4], *pik[4]; /* xe xh ye yh */
    int nx, ny, px, N;
    T ch;
    /* the H-node map (k_h2 with HM): Hx nodes [ny][px], then Hy nodes at
     * hmat + hoff; NULL without a map */
    const uint8_t *hmat;
    long long hoff;
};

/* Hx, Hy of cell (i, j):  see update2d.inc.  The arithmetic of every kernel
 * is core/yee.h's (cuda/yee.cuh: Y::yee_...); only memory access is here.
 * Each kernel loads its operands in the order it did before the move (the
 * CPML's b before psi; the cut edge's u = a Ez_q + b^n before its old H),
 * which keeps the SASS the same instruction for instruction. */
/* HM: a scene with the H-node map (core/model.h hmat): outside the CPML
 * slabs each node takes its own coefficient c2_hc[hmat] in place of ch, as
 * update2d.inc's hx_map / hy_map (the slabs never hold a node of index != 0
 * and keep ch, as there).  HL (with HM; TE lossy edges, model->hlossy):
 * h = ca h -+ ch d with ca = c2_hca[hmat], as hx_map_lossy / hy_map_lossy
 * (ca = 1 elsewhere: their bits are hx_map's). */
template <typename T, bool F, bool HM, bool HL> __global__ void k_h2(Dev2<T> d)
{
    typedef Yee<T, F> Y;
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= d.nx || j >= d.ny)
        return;
    const long long c = i + (long long)j * d.px;
    int k;
    if (j <= d.ny - 2) {
        const T dd = Y::yee_diff(d.ez[c + d.px], d.ez[c]);
        const int s = dslab_h(d.ny, d.N, j, &k);
        if (s < 0 && HL) {
            const uint8_t m = d.hmat[c];
            d.hx[c] = Y::yee_h_sub_lossy(d.hx[c], hca2<T>(m), hc2<T>(m), d.ez[c + d.px], d.ez[c]);
        } else if (s < 0) {
            d.hx[c] = Y::yee_sub_mul(d.hx[c], HM ? hc2<T>(d.hmat[c]) : d.ch, dd);
        } else {
            T *p = d.psi_hxy + ((long long)s * d.N + k) * d.px + i;
            const T b = d.pb[3][j]; /* loaded before psi: see k_h2 */
            const T q = Y::yee_psi(*p, b, d.pc[3][j], dd);
            *p = q;
            d.hx[c] = Y::yee_sub_mul(d.hx[c], d.ch, Y::yee_pml_term(dd, d.pik[3][j], q));
        }
    }
    if (i <= d.nx - 2) {
        const T dd = Y::yee_diff(d.ez[c + 1], d.ez[c]);
        const int s = dslab_h(d.nx, d.N, i, &k);
        if (s < 0 && HL) {
            const uint8_t m = d.hmat[d.hoff + c];
            d.hy[c] = Y::yee_h_add_lossy(d.hy[c], hca2<T>(m), hc2<T>(m), d.ez[c + 1], d.ez[c]);
        } else if (s < 0) {
            d.hy[c] = Y::yee_add_mul(d.hy[c], HM ? hc2<T>(d.hmat[d.hoff + c]) : d.ch, dd);
        } else {
            T *p = d.psi_hyx + ((long long)s * d.ny + j) * d.N + k;
            const T b = d.pb[1][i]; /* loaded before psi: see k_h2 */
            const T q = Y::yee_psi(*p, b, d.pc[1][i], dd);
            *p = q;
            d.hy[c] = Y::yee_add_mul(d.hy[c], d.ch, Y::yee_pml_term(dd, d.pik[1][i], q));
        }
    }
}

template <typename T, bool F, bool L> __global__ void k_e2(Dev2<T> d)
{
    typedef Yee<T, F> Y;
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i > d.nx - 2 || j > d.ny - 2)
        return;
    const long long c = i + (long long)j * d.px;
    const T dy = Y::yee_diff(d.hy[c], d.hy[c - 1]), dx = Y::yee_diff(d.hx[c], d.hx[c - d.px]);
    T tx = dy, ty = dx;
    int kx, ky;
    const int sx = dslab_e(d.nx, d.N, i, &kx), sy = dslab_e(d.ny, d.N, j, &ky);
    if (sx >= 0) {
        T *p = d.psi_ezx + ((long long)sx * d.ny + j) * d.N + kx;
        const T b = d.pb[0][i]; /* loaded before psi: see k_h2 */
        const T q = Y::yee_psi(*p, b, d.pc[0][i], dy);
        *p = q;
        tx = Y::yee_pml_term(dy, d.pik[0][i], q);
    }
    if (sy >= 0) {
        T *p = d.psi_ezy + ((long long)sy * d.N + ky) * d.px + i;
        const T b = d.pb[2][j]; /* loaded before psi: see k_h2 */
        const T q = Y::yee_psi(*p, b, d.pc[2][j], dx);
        *p = q;
        ty = Y::yee_pml_term(dx, d.pik[2][j], q);
    }
    d.ez[c] = ez_term2<T, F, L>(d.ez[c], d.mat[c], Y::yee_diff(tx, ty));
}

/* Mur: old[0..] = neighbour values before E (left col 1, right col nx-2 for
 * rows 1..ny-2; bottom row 1, top row ny-2 for columns 1..nx-2), then
 * wall = o1 + k (n1 - o0). */
template <typename T, bool F, bool APPLY> __global__ void k_mur2(Dev2<T> d, T *old, T kmur)
{
    typedef Yee<T, F> Y;
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
        d.ez[w] = Y::yee_mur(old[t], kmur, d.ez[nb], d.ez[w]);
}

template <typename T, bool F>
__global__ void k_slots2(T *ez, const long long *cell, const uint8_t *pec, const T *v, long long n)
{
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < n)
        ez[cell[t]] = pec[t] ? v[t] : Yee<T, F>::yee_add(ez[cell[t]], v[t]);
}

/* The H-node source slots (core/model.h hslot), after the H update and the
 * cut edges' (update_h_row applies a row's slots last): node t of the H
 * array flag bit 0 names (0 Hx, 1 Hy) at padded index cell[t]; bit 1 a PEC
 * edge (TE), h = v, else h = h + v (yee_add). */
template <typename T, bool F>
__global__ void k_hslots2(T *hx, T *hy, const long long *cell, const uint8_t *flag, const T *v,
                          long long n)
{
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    T *h = (flag[t] & 1 ? hy : hx) + cell[t];
    *h = flag[t] & 2 ? v[t] : Yee<T, F>::yee_add(*h, v[t]);
}

/* ---- the per-step incident values on the device ---------------------------
 * core/model.h's slot, H-slot and dispersive values (model_slot_values,
 * model_hslot_values, model_disp_values), computed here with the same
 * functions of core/incident.h (only correctly rounded +, -, *, /: the
 * host's bits), one thread per entry, instead of on the host and copied:
 * a large object (13 million slots) otherwise costs the host 60 ms a step
 * (docs/performance.md, "What an object costs").  TEXFDTD_CUDA2D_VALUES=host
 * keeps the host's computation (for the bench's comparison).  The wave is
 * a kernel argument and the coefficients live in the engine's own device
 * memory, so two engines in one process do not share them. */
struct IncCoef2 {
    /* material (E slots) or H-node material (H slots: hinc; a lossy TE edge
     * cdiff, csum, lossy) */
    double cinc, cdiff, csum, hinc;
    int pec, lossy;
};

/* Slot k of cell (padded) cell[k], material mi[k]: out[q n + k] for the K
 * steps t0 + q (blockIdx.y = q). */
template <typename T>
__global__ void k_slot_values2(T *out, const long long *cell, const uint8_t *mi,
                               const IncCoef2 *coef, long long n, long long px, struct inc_wave w,
                               int t0)
{
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const double t = (double)(t0 + (int)blockIdx.y);
    const double i = (double)(cell[k] % px), j = (double)(cell[k] / px);
    const IncCoef2 q = coef[mi[k]];
    out[(long long)blockIdx.y * n + k] =
        (T)inc_eslot_value(w, q.pec, q.lossy, q.cinc, q.cdiff, q.csum, i, j, t);
}

/* H slot k (flag bit 0: Hy, bit 1: PEC; H-node material mi[k]):
 * core/incident.h's inc_hslot_value, as core/model.c's hslot_value takes
 * it: PEC -h1, a lossy TE edge cdiff (h1 - h0) + csum (h1 + h0), otherwise
 * hinc (h1 - h0), of the H arrays' incident field at n -+ 1/2 (inc_hnode). */
template <typename T>
__global__ void k_hslot_values2(T *out, const long long *cell, const uint8_t *flag,
                                const uint8_t *mi, const IncCoef2 *coef, long long n,
                                long long px, struct inc_wave w, int t0)
{
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    const double t = (double)t0, i = (double)(cell[k] % px), j = (double)(cell[k] / px);
    const IncCoef2 q = coef[mi[k]];
    out[k] = (T)inc_hslot_value(w, flag[k] & 1, (flag[k] & 2) ? 1 : 0, q.lossy, q.hinc, q.cdiff,
                                q.csum, i, j, t);
}

/* Hi^{n+1/2} at dispersive TE edge k (flag bit 0: Hy; model_hdisp_values). */
template <typename T>
__global__ void k_hdisp_values2(T *out, const long long *cell, const uint8_t *flag, long long n,
                                long long px, struct inc_wave w, int t0)
{
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    out[k] = (T)inc_hnode(w, flag[k] & 1, (double)(cell[k] % px), (double)(cell[k] / px),
                          I_ADD((double)t0, 0.5));
}

/* Ei^{n+1} at dispersive cell k (model_disp_values). */
template <typename T>
__global__ void k_disp_values2(T *out, const long long *cell, long long n, long long px,
                               struct inc_wave w, int t0)
{
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    out[k] = (T)inc_at(w, (double)(cell[k] % px), (double)(cell[k] / px),
                       I_ADD((double)t0, 1.0));
}

/* The dispersive cells (core/model.h disp_cell; docs/materials-design.md
 * section 3), after the E update (and Mur), before the source slots, as
 * update2d.inc's update_disp: the E kernel left their Ez^n as it was
 * (cb = 0, ca = 1), every H is at n+1/2.  A thread per cell k, with its state
 * D_s, Ei^n [n], P^n, P^{n-1} [n][SCENE_MAX_POLES] (the cpu engine's
 * layout), this step's Ei^{n+1} (v) and its material's coefficients
 * (coef[mi[k]], core/material.h, in the engine's precision): cuda/disp.cuh's
 * disp_entry, cpu/disp_cell.inc statement for statement.
 * EDGE: the same for the dispersive TE edges (core/model.h hdisp), entry k
 * the H-array node flag[k] bit 0 names (0 Hx, 1 Hy) at cell[k], right after
 * the H kernel, the cut edges and the H-node slots, before the E kernel:
 * update_h_row runs a row's edges after its H update and slots, before any
 * E row reads them, with the ez array at n (E row j is updated after H
 * row j, E row j+1 after H row j, and the H kernel left the edges'
 * H^{n-1/2}, ch = 0, ca = 1); here the whole H pass ends before the E
 * kernel, so every edge sees the same values.  sc = yee_disp_curl1 of the
 * edge's two ez nodes, v = Hi^{n+1/2}. */
template <typename T> struct Disp2 {
    T *ez, *hx, *hy;
    T *ds, *ei, *p, *pold;
    const T *v;
    const long long *cell; /* padded index */
    const uint8_t *mi;     /* index into coef */
    const uint8_t *flag;   /* EDGE: bit 0 Hy */
    const DispCoef<T> *coef;
    long long n;
    int px;
    T ch;
};

template <typename T, bool F, bool EDGE> __global__ void k_disp2(Disp2<T> d)
{
    typedef Yee<T, F> Y;
    const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (k >= d.n)
        return;
    const long long c = d.cell[k];
    T *x, sc;
    if (!EDGE) {
        x = d.ez + c;
        sc = Y::yee_disp_curl(d.ch, d.hy[c], d.hy[c - 1], d.hx[c], d.hx[c - d.px]);
    } else if (d.flag[k] & 1) {
        x = d.hy + c;
        sc = Y::yee_disp_curl1(d.ch, d.ez[c + 1], d.ez[c]);
    } else {
        x = d.hx + c;
        sc = Y::yee_disp_curl1(d.ch, d.ez[c], d.ez[c + d.px]);
    }
    *x = disp_entry<T, F>(d.coef[d.mi[k]], *x, sc, d.v[k], d.ds + k, d.ei + k,
                          d.p + k * SCENE_MAX_POLES, d.pold + k * SCENE_MAX_POLES);
}

template <typename T, bool F> __global__ void k_point2(T *ez, long long c, T v)
{
    ez[c] = Yee<T, F>::yee_add(ez[c], v);
}

/* Conformal PEC (core/model.h, struct cut_edge): the H edges between a PEC
 * node and a free node Q, cut by the surface at distance d from Q.  Faraday's
 * law on the face's part outside the conductor (Dey and Mittra 1997, reduced
 * to TMz) gives
 *     Hx^{n+1/2} = Hx^{n-1/2} - (a Ez^n_Q + b^n),   Hy^{n+1/2} = Hy^{n-1/2} + (a Ez^n_Q + b^n),
 * in update_h_row's statements and order (update2d.inc):
 *     old = H (before the H update);  [the H update];
 *     t = a * ez[q];  u = t + v;  H = old - u (Hx)  or  old + u (Hy)
 * with a rounded once on the host (a_f for float) and v = b^n of this step
 * (model_cut_values_f / _d).  A thread per edge; cell and q are indices in
 * the padded layout i + j px. */
template <typename T> struct Cut2 {
    T *hx, *hy;
    const T *ez;
    const long long *cell, *q; /* the edge's H cell, its free Ez node Q */
    const uint8_t *comp;       /* 0: Hx, 1: Hy */
    const T *a, *v;            /* a, and this step's b^n */
    T *old;                    /* H^{n-1/2} of the edge */
    long long n;
};

template <typename T> __global__ void k_cut_save2(Cut2<T> k)
{
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < k.n)
        k.old[t] = k.comp[t] == 0 ? k.hx[k.cell[t]] : k.hy[k.cell[t]];
}

template <typename T, bool F> __global__ void k_cut_apply2(Cut2<T> k)
{
    typedef Yee<T, F> Y;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= k.n)
        return;
    const T u = Y::yee_cut_u(k.a[t], k.ez[k.q[t]], k.v[t]);
    if (k.comp[t] == 0)
        k.hx[k.cell[t]] = Y::yee_diff(k.old[t], u);
    else
        k.hy[k.cell[t]] = Y::yee_add(k.old[t], u);
}

/* TE conformal PEC (core/model.h struct te_cut): the Hz cells cut by a PEC
 * surface (the ez array's nodes).  As cpu2d.c's step: save_tecut keeps each
 * cut cell's Hz^n (k_tecut_save2, before the H kernel: nothing writes the
 * ez array before the E kernel), the E kernel and Mur update the cell as
 * any other, and after them, before the dispersive cells and the source
 * slots, update_tecut replaces it (k_tecut_apply2) from the kept value, its
 * four edges' new H (east hy[c], west hy[c-1], north hx[c], south hx[c-px])
 * with their coefficients k (rounded once on the host, k_f in float) and
 * this step's b^n (model_tecut_values_*, from the host as the cut edges'):
 * yee_te_cut.  A thread per cut cell; cell is the padded index. */
template <typename T> struct TeCut2 {
    T *ez;
    const T *hx, *hy;
    const long long *cell;
    const T *k; /* [n][4]: east, west, north, south */
    const T *v; /* this step's b^n */
    T *old;     /* Hz^n of the cell */
    long long n;
    int px;
};

template <typename T> __global__ void k_tecut_save2(TeCut2<T> d)
{
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < d.n)
        d.old[t] = d.ez[d.cell[t]];
}

template <typename T, bool F> __global__ void k_tecut_apply2(TeCut2<T> d)
{
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= d.n)
        return;
    const long long c = d.cell[t];
    const T *k = d.k + 4 * t;
    d.ez[c] = Yee<T, F>::yee_te_cut(d.old[t], k[0], d.hy[c], k[1], d.hy[c - 1], k[2], d.hx[c],
                                    k[3], d.hx[c - d.px], d.v[t]);
}

/* TE off-diagonal edges (core/model.h hoff): after the H kernel and the cut
 * edges, before the H-node slots (update_h_row's order), h = h + u with
 * u = yee_offd_u(k0, ez(c+s), ez(c-s), k1, ez(c+o+s), ez(c+o-s), w) from the
 * ez array at n (no kernel has written it yet this step: the cpu engine's
 * values, which it computes before its sweep), w this step's incident term
 * (model_hoff_values_*, from the host).  flag bit 0: Hy (s = px, o = 1),
 * else Hx (s = 1, o = px); cell the padded index; k [n][2]. */
template <typename T> struct Hoff2 {
    const T *ez;
    T *hx, *hy;
    const long long *cell;
    const uint8_t *flag;
    const T *k, *v;
    long long n;
    int px;
};

template <typename T, bool F> __global__ void k_hoff2(Hoff2<T> d)
{
    typedef Yee<T, F> Y;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= d.n)
        return;
    const long long c = d.cell[t];
    const bool hy = d.flag[t] & 1;
    const long long s = hy ? d.px : 1, o = hy ? 1 : d.px;
    const T u = Y::yee_offd_u(d.k[2 * t], d.ez[c + s], d.ez[c - s], d.k[2 * t + 1],
                              d.ez[c + o + s], d.ez[c + o - s], d.v[t]);
    T *h = (hy ? d.hy : d.hx) + c;
    *h = Y::yee_add(*h, u);
}

/* The running DFT at each [monitor.dft] frequency q (model_dft_weight_k):
 *     re = re + wr * ez;   im = im + wi * ez
 * frequency q's sums at q * stride in re and im; Ez is read once for all. */
template <typename T> struct DftW2 {
    T wr[SCENE_MAX_FREQS], wi[SCENE_MAX_FREQS];
    int nf;
};

template <typename T, bool F> __global__ void k_dft2(Dev2<T> d, long long stride, DftW2<T> w)
{
    typedef Yee<T, F> Y;
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= d.nx || j >= d.ny)
        return;
    const long long c = i + (long long)j * d.px;
    const T e = d.ez[c];
    for (int q = 0; q < w.nf; q++) {
        T *re = d.re + q * stride + c, *im = d.im + q * stride + c;
        *re = Y::yee_add_mul(*re, w.wr[q], e);
        *im = Y::yee_add_mul(*im, w.wi[q], e);
    }
}

/* ------------------------------------------------------------------------
 * One kernel per step (the fused path) and several steps per kernel (the
 * temporally blocked path).  Both read the previous step's fields from one
 * buffer of a ping-pong pair and write the next into the other, so that a
 * block may recompute its neighbours' H (the halo) from values nobody has
 * overwritten yet: Ez, Hx, Hy and the two H psi arrays (psi_hxy, psi_hyx)
 * come in pairs; the E psi are touched by their owner only and stay single.
 * Every cell still runs update2d.inc's statements, so the bits are those of
 * the two-kernel path and of cpu2d.
 *
 * Mapping ("column marching", as the systolic / wavefront schemes): a warp
 * owns 32 consecutive columns and a strip of R rows; each thread walks up
 * its column, so Ez(i, j+1) loaded for row j is Ez(i, j) of row j+1 and the
 * new Hx(i, j) is Hx(i, j-1) of the next row (registers, no shared memory,
 * no barrier).  Ez(i+1, j) and the new Hy(i-1, j) come from the neighbour
 * lane (__shfl); lane 31 loads Ez(i+1, j) itself and lane 0 recomputes
 * Hy(i-1, j); the strip's first thread recomputes Hx(i, j0-1).
 * ------------------------------------------------------------------------ */
template <typename T> struct PP2 {
    const T *__restrict__ ez0, *__restrict__ hx0, *__restrict__ hy0; /* step n   */
    T *__restrict__ ez1, *__restrict__ hx1, *__restrict__ hy1;       /* step n+1 */
    const T *phxy0, *phyx0; /* H psi, old */
    T *phxy1, *phyx1;       /* H psi, new */
    T *pezy, *pezx;         /* E psi, in place */
    const uint8_t *__restrict__ mat;
    const T *pb[4], *pc[4], *pik[4]; /* xe xh ye yh */
    int nx, ny, px, N;
    T ch;
};

#define FULL_MASK 0xffffffffu

/* Hx(i, j+1/2) from Ez(i, j) = e, Ez(i, j+1) = eu and the old Hx h; the psi
 * is written only when ps_new is given (the owner), else just read. */
template <typename T, bool F, bool PML>
__device__ __forceinline__ T hx_at(const PP2<T> &d, int i, int j, T e, T eu, T h,
                                   const T *ps_old, T *ps_new)
{
    typedef Yee<T, F> Y;
    if (j > d.ny - 2)
        return h;
    const T dd = Y::yee_diff(eu, e);
    int k;
    const int s = dslab_h(d.ny, PML ? d.N : 0, j, &k);
    if (s < 0)
        return Y::yee_sub_mul(h, d.ch, dd);
    const long long p = ((long long)s * d.N + k) * d.px + i;
    const T b = d.pb[3][j]; /* loaded before psi: see k_h2 */
    const T q = Y::yee_psi(ps_old[p], b, d.pc[3][j], dd);
    if (ps_new)
        ps_new[p] = q;
    return Y::yee_sub_mul(h, d.ch, Y::yee_pml_term(dd, d.pik[3][j], q));
}

/* Hy(i+1/2, j) from Ez(i, j) = e, Ez(i+1, j) = er and the old Hy h. */
template <typename T, bool F, bool PML>
__device__ __forceinline__ T hy_at(const PP2<T> &d, int i, int j, T e, T er, T h,
                                   const T *ps_old, T *ps_new)
{
    typedef Yee<T, F> Y;
    if (i > d.nx - 2)
        return h;
    const T dd = Y::yee_diff(er, e);
    int k;
    const int s = dslab_h(d.nx, PML ? d.N : 0, i, &k);
    if (s < 0)
        return Y::yee_add_mul(h, d.ch, dd);
    const long long p = ((long long)s * d.ny + j) * d.N + k;
    const T b = d.pb[1][i]; /* loaded before psi: see k_h2 */
    const T q = Y::yee_psi(ps_old[p], b, d.pc[1][i], dd);
    if (ps_new)
        ps_new[p] = q;
    return Y::yee_add_mul(h, d.ch, Y::yee_pml_term(dd, d.pik[1][i], q));
}

/* Ez(i, j) from its old value e, the new Hy(i+1/2, j) = hy, Hy(i-1/2, j) =
 * hyl, Hx(i, j+1/2) = hx, Hx(i, j-1/2) = hxd; the outer ring keeps e. */
template <typename T, bool F, bool PML, bool L>
__device__ __forceinline__ T ez_at(const PP2<T> &d, int i, int j, T e, T hy, T hyl, T hx,
                                   T hxd, uint8_t m)
{
    typedef Yee<T, F> Y;
    if (i < 1 || j < 1 || i > d.nx - 2 || j > d.ny - 2)
        return e;
    const T dy = Y::yee_diff(hy, hyl), dx = Y::yee_diff(hx, hxd);
    T tx = dy, ty = dx;
    int kx, ky;
    const int sx = dslab_e(d.nx, PML ? d.N : 0, i, &kx), sy = dslab_e(d.ny, PML ? d.N : 0, j, &ky);
    if (sx >= 0) {
        T *p = d.pezx + ((long long)sx * d.ny + j) * d.N + kx;
        const T b = d.pb[0][i]; /* loaded before psi: see k_h2 */
        const T q = Y::yee_psi(*p, b, d.pc[0][i], dy);
        *p = q;
        tx = Y::yee_pml_term(dy, d.pik[0][i], q);
    }
    if (sy >= 0) {
        T *p = d.pezy + ((long long)sy * d.N + ky) * d.px + i;
        const T b = d.pb[2][j]; /* loaded before psi: see k_h2 */
        const T q = Y::yee_psi(*p, b, d.pc[2][j], dx);
        *p = q;
        ty = Y::yee_pml_term(dx, d.pik[2][j], q);
    }
    return ez_term2<T, F, L>(e, m, Y::yee_diff(tx, ty));
}

/* One whole step: H and E of a strip of R rows per warp.  Block 32 x 8
 * threads = 8 strips of one 32-column band.  VAC: a scene without objects
 * (no cell has a material index > 0), whose material map is not read: 24
 * bytes per cell instead of 25. */
template <typename T, bool F, bool PML, bool VAC, int R, bool L>
__global__ void __launch_bounds__(256) k_fused2(PP2<T> d)
{
    const int lane = threadIdx.x;
    const int i = blockIdx.x * 32 + lane;
    const int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
    if (j0 >= d.ny) /* the same for the whole warp */
        return;
    const bool iok = i < d.nx;
    const long long px = d.px;
    /* Hx(i, j0-1) of the strip below: recomputed, not stored */
    T hxd = 0;
    if (j0 >= 1) {
        const long long c = i + (long long)(j0 - 1) * px;
        hxd = hx_at<T, F, PML>(d, i, j0 - 1, iok ? d.ez0[c] : T(0), iok ? d.ez0[c + px] : T(0),
                          iok ? d.hx0[c] : T(0), d.phxy0, (T *)0);
    }
    T ec = iok ? d.ez0[i + (long long)j0 * px] : T(0);
    const int j1 = min(j0 + R, d.ny);
#pragma unroll 2
    for (int j = j0; j < j1; j++) {
        const long long c = i + (long long)j * px;
        const T eu = iok && j + 1 < d.ny ? d.ez0[c + px] : T(0);
        const T hxo = iok ? d.hx0[c] : T(0), hyo = iok ? d.hy0[c] : T(0);
        const uint8_t m = iok && !VAC ? d.mat[c] : 0; /* VAC: every cell is vacuum (index 0) */
        T er = __shfl_down_sync(FULL_MASK, ec, 1);
        if (lane == 31)
            er = i + 1 < d.nx ? d.ez0[c + 1] : T(0);
        const T hx = hx_at<T, F, PML>(d, i, j, ec, eu, hxo, d.phxy0, iok ? d.phxy1 : (T *)0);
        const T hy = hy_at<T, F, PML>(d, i, j, ec, er, hyo, d.phyx0, iok ? d.phyx1 : (T *)0);
        T hyl = __shfl_up_sync(FULL_MASK, hy, 1);
        if (lane == 0 && i >= 1 && iok)
            hyl = hy_at<T, F, PML>(d, i - 1, j, d.ez0[c - 1], ec, d.hy0[c - 1], d.phyx0, (T *)0);
        if (iok) {
            d.hx1[c] = hx;
            d.hy1[c] = hy;
            d.ez1[c] = ez_at<T, F, PML, L>(d, i, j, ec, hy, hyl, hx, hxd, m);
        }
        hxd = hx;
        ec = eu;
    }
}

/* The same step with V adjacent columns per thread (16-byte loads and stores:
 * V = 4 floats or 2 doubles; the float2 idea of De Donno et al. widened),
 * scenes without a CPML.  Within a thread the x neighbours are its own
 * elements; across threads the same shuffles as k_fused2 carry the first
 * Ez and the last new Hy.  Rows are padded to 32 V elements, so a vector
 * that starts inside the grid lies inside the row; its columns past nx are
 * padding, which the update keeps at zero (Hx there sees Ez differences of
 * zero, Hy and Ez are not updated past nx - 2). */
template <typename T, int V> struct alignas(sizeof(T) * V) VecT {
    T v[V];
};
template <int V> struct alignas(V) MatV {
    uint8_t v[V];
};

template <typename T, bool F, bool VAC, int V, int R, bool L>
__global__ void __launch_bounds__(256) k_fused2v(PP2<T> d)
{
    typedef VecT<T, V> Vec;
    const int lane = threadIdx.x;
    const int i0 = (blockIdx.x * 32 + lane) * V;
    const int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * R;
    if (j0 >= d.ny)
        return;
    const bool iok = i0 < d.nx;
    const long long px = d.px;
    Vec zero;
#pragma unroll
    for (int v = 0; v < V; v++)
        zero.v[v] = T(0);
    Vec hxd = zero;
    if (j0 >= 1 && iok) {
        const long long c = i0 + (long long)(j0 - 1) * px;
        const Vec e = *(const Vec *)(d.ez0 + c), eu = *(const Vec *)(d.ez0 + c + px),
                  h = *(const Vec *)(d.hx0 + c);
#pragma unroll
        for (int v = 0; v < V; v++)
            hxd.v[v] = hx_at<T, F, false>(d, i0 + v, j0 - 1, e.v[v], eu.v[v], h.v[v], (const T *)0, (T *)0);
    }
    Vec ec = iok ? *(const Vec *)(d.ez0 + i0 + (long long)j0 * px) : zero;
    const int j1 = min(j0 + R, d.ny);
#pragma unroll 2
    for (int j = j0; j < j1; j++) {
        const long long c = i0 + (long long)j * px;
        const Vec eu = iok && j + 1 < d.ny ? *(const Vec *)(d.ez0 + c + px) : zero;
        const Vec hxo = iok ? *(const Vec *)(d.hx0 + c) : zero, hyo = iok ? *(const Vec *)(d.hy0 + c) : zero;
        MatV<V> mt;
#pragma unroll
        for (int v = 0; v < V; v++)
            mt.v[v] = 0;
        if (!VAC && iok)
            mt = *(const MatV<V> *)(d.mat + c);
        T enext = __shfl_down_sync(FULL_MASK, ec.v[0], 1);
        if (lane == 31)
            enext = i0 + V < d.nx ? d.ez0[c + V] : T(0);
        Vec hx, hy, en;
#pragma unroll
        for (int v = 0; v < V; v++) {
            hx.v[v] = hx_at<T, F, false>(d, i0 + v, j, ec.v[v], eu.v[v], hxo.v[v], (const T *)0, (T *)0);
            hy.v[v] = hy_at<T, F, false>(d, i0 + v, j, ec.v[v], v < V - 1 ? ec.v[v + 1] : enext,
                                         hyo.v[v], (const T *)0, (T *)0);
        }
        T hyl = __shfl_up_sync(FULL_MASK, hy.v[V - 1], 1);
        if (lane == 0 && i0 >= 1 && iok)
            hyl = hy_at<T, F, false>(d, i0 - 1, j, d.ez0[c - 1], ec.v[0], d.hy0[c - 1], (const T *)0, (T *)0);
#pragma unroll
        for (int v = 0; v < V; v++)
            en.v[v] = ez_at<T, F, false, L>(d, i0 + v, j, ec.v[v], hy.v[v], v ? hy.v[v - 1] : hyl, hx.v[v],
                                         hxd.v[v], mt.v[v]);
        if (iok) {
            *(Vec *)(d.hx1 + c) = hx;
            *(Vec *)(d.hy1 + c) = hy;
            *(Vec *)(d.ez1 + c) = en;
        }
        hxd = hx;
        ec = eu;
    }
}

/* Temporal blocking: K whole steps per launch, without a CPML, Mur or DFT
 * (the engine falls back to k_fused2 for those), with the source slots and
 * the point source applied inside each step, in update2d.inc's order.
 * A warp walks up a strip of R rows as a wavefront: in iteration t, step s
 * (1..K) works on row r1 - (s-1), r1 = j0 - K + t, H then E, from what step
 * s-1 produced in this iteration (the row above) and the previous one (this
 * row); the K steps' rows live in registers (E of the last two rows, H of the
 * last row per step).  Each step loses one lane on each side (H needs Ez of
 * lane+1, E needs Hy of lane-1), so a warp covers 32 columns and stores the
 * middle 32 - 2K; rows likewise start K below the strip.  Cells outside the
 * grid compute garbage that no stored cell depends on.
 *
 * Monitors (TB2_SAMPLES): after iteration t, step s's registers EP[s],
 * HX[s], HY[s] hold Ez^(n+s), Hx^(n+s-1/2), Hy^(n+s-1/2) of row r1 - (s-1),
 * final for the stored lanes and rows (those every step computes from true
 * inputs, as the stores of step K).  So each sample of the warp's tile (its 32 - 2K
 * stored columns times its R rows) is written by its lane once per step, in
 * the K iterations whose rows r1-K+1 .. r1 hold its row, into step s's row
 * of the batch.  The tile's list is sorted by row: a cursor moves up with
 * r1.  The tiles with samples run in a launch of their own (TB2_SAMPLES,
 * a warp per listed tile); the rest of the grid runs the kernel of scenes
 * without samples, whose warps return at once on a tile with samples
 * (TB2_OTHERS).  Both launches read the same old buffers and write
 * disjoint cells, so they run side by side, on two streams.  (Measured at
 * 16384^2, K = 6, four probes, against no probes: the gather code in every
 * warp's loop, behind a test per iteration, cost 5 %; one kernel holding
 * both versions of the loop, each warp choosing one, 12 %; the two
 * launches one after the other 3.1 %, the time of the few sampled strips
 * run alone.) */
struct alignas(16) Tb2Sample {
    int j, i, f, k; /* row, column, enum field, index into model->samples */
};

enum tb2_mode { TB2_ALL, TB2_OTHERS, TB2_SAMPLES };

template <typename T> struct Tb2Src {
    int pi, pj; /* point source cell, or -1 */
    T v[8];     /* its values for the K steps */
    /* source slots (cells with a material index > 0): slot number per cell,
     * PEC flag per slot, values [K][nslots] of this launch's steps */
    const int *slot_map;
    const uint8_t *slot_pec;
    const T *slot_v;
    long long nslots;
};

/* The monitors of one launch (an argument of its own, which leaves the
 * kernel without samples as it was): tile b + bands * strip lists
 * slist[stile[tile]] .. slist[stile[tile+1] - 1]; step s (1..srows) writes
 * row s-1 of srow ([rows][sn]); the ntiles tiles with samples are
 * tiles[0 .. ntiles).  srow NULL: no samples recorded. */
template <typename T> struct Tb2Mon {
    const int *stile;
    const Tb2Sample *slist;
    const int *tiles;
    T *srow;
    long long sn;
    int srows, bands, ntiles;
};

/* A warp per tile.  TB2_ALL, TB2_OTHERS: band blockIdx.x, strip
 * blockIdx.y * 8 + threadIdx.y (TB2_OTHERS leaves the tiles with samples);
 * TB2_SAMPLES: the tile tiles[blockIdx.x * 8 + threadIdx.y], and its
 * samples.  TB2_ALL's PTX is the kernel's from before the monitors,
 * instruction for instruction (hence the separate argument mon; a version
 * that took the band as an argument was 1 % slower at 16384^2).  L: a lossy
 * scene, Ez = ca Ez + cb curl (the ca of the K rows in registers beside
 * their cb); without it the code is the lossless kernel's. */
template <typename T, bool F, int K, int R, int MODE, bool L>
__global__ void __launch_bounds__(256) k_tb2(PP2<T> d, Tb2Src<T> src, Tb2Mon<T> mon)
{
    typedef Yee<T, F> Y;
    const int w = MODE == TB2_SAMPLES ? (int)(blockIdx.x * blockDim.y + threadIdx.y) : 0;
    if (MODE == TB2_SAMPLES && w >= mon.ntiles) /* the same for the whole warp */
        return;
    const int tile = MODE == TB2_SAMPLES ? mon.tiles[w] : 0;
    const int lane = threadIdx.x;
    const int band = MODE == TB2_SAMPLES ? tile % mon.bands : (int)blockIdx.x;
    const int i = band * (32 - 2 * K) - K + lane;
    const int j0 = MODE == TB2_SAMPLES ? tile / mon.bands * R
                                       : (blockIdx.y * blockDim.y + threadIdx.y) * R;
    if (j0 >= d.ny)
        return;
    int sq = 0, se = 0; /* TB2_SAMPLES: the tile's samples not yet passed */
    if (MODE == TB2_SAMPLES) {
        sq = mon.stile[tile];
        se = mon.stile[tile + 1];
    }
    if (MODE == TB2_OTHERS) {
        const int t = (int)blockIdx.x + mon.bands * (j0 / R);
        if (mon.stile[t] < mon.stile[t + 1])
            return; /* the TB2_SAMPLES launch does this one */
    }
    const bool iin = i >= 0 && i < d.nx;
    const bool own = iin && lane >= K && lane < 32 - K;
    const bool hy_upd = i <= d.nx - 2, icore = i >= 1 && i <= d.nx - 2;
    const long long px = d.px;
    const T ch = d.ch;
    T EP[K + 1], HX[K + 1], HY[K + 1], CE[K], CA[K]; /* CA: L only */
    uint8_t MT[K];
#pragma unroll
    for (int s = 0; s <= K; s++)
        EP[s] = HX[s] = HY[s] = T(0);
#pragma unroll
    for (int s = 0; s < K; s++) {
        CE[s] = T(0);
        if (L)
            CA[s] = T(1);
        MT[s] = 0;
    }
    const int jstart = j0 - K, jend = min(j0 + R, d.ny);
    T e0 = iin && jstart >= 0 ? d.ez0[i + (long long)jstart * px] : T(0);
    const int iters = R + 2 * K - 1;
    for (int t = 0; t < iters; t++) {
        const int r1 = jstart + t;
        const bool rok = iin && r1 >= 0 && r1 < d.ny;
        const long long c1 = i + (long long)r1 * px;
        const T eup = iin && r1 + 1 >= 0 && r1 + 1 < d.ny ? d.ez0[c1 + px] : T(0);
        T hxo = rok ? d.hx0[c1] : T(0), hyo = rok ? d.hy0[c1] : T(0);
#pragma unroll
        for (int s = K - 1; s > 0; s--) {
            CE[s] = CE[s - 1];
            if (L)
                CA[s] = CA[s - 1];
            MT[s] = MT[s - 1];
        }
        MT[0] = rok ? d.mat[c1] : 0;
        CE[0] = cezh2<T>(MT[0]);
        if (L)
            CA[0] = ca2<T>(MT[0]);
        T elo = e0, ehi = eup, en = 0, hx = 0, hy = 0;
#pragma unroll
        for (int s = 1; s <= K; s++) {
            const int r = r1 - (s - 1);
            const T er = __shfl_down_sync(FULL_MASK, elo, 1);
            hx = r <= d.ny - 2 ? Y::yee_h_sub(hxo, ch, ehi, elo) : hxo;
            hy = hy_upd ? Y::yee_h_add(hyo, ch, er, elo) : hyo;
            const T hyl = __shfl_up_sync(FULL_MASK, hy, 1);
            const T hxd = HX[s];
            en = icore && r >= 1 && r <= d.ny - 2
                     ? (L ? Y::yee_curl_lossy(elo, CA[s - 1], CE[s - 1], hy, hyl, hx, hxd)
                          : Y::yee_curl_add(elo, CE[s - 1], hy, hyl, hx, hxd))
                     : elo;
            if (MT[s - 1]) { /* a slot (only cells inside the grid have mat > 0) */
                const int q = src.slot_map[i + (long long)r * px];
                const T v = src.slot_v[(s - 1) * src.nslots + q];
                en = src.slot_pec[q] ? v : Y::yee_add(en, v);
            }
            if (i == src.pi && r == src.pj)
                en = Y::yee_add(en, src.v[s - 1]);
            /* what step s+1 reads: this step's previous row and this row */
            const T nlo = EP[s], nhx = HX[s], nhy = HY[s];
            EP[s] = en;
            HX[s] = hx;
            HY[s] = hy;
            elo = nlo;
            ehi = en;
            hxo = nhx;
            hyo = nhy;
        }
        const int rk = r1 - (K - 1);
        if (own && rk >= j0 && rk < jend) {
            const long long c = i + (long long)rk * px;
            d.ez1[c] = en;
            d.hx1[c] = hx;
            d.hy1[c] = hy;
        }
        if (MODE == TB2_SAMPLES && sq < se) { /* the same branch for the whole warp */
            while (sq < se && mon.slist[sq].j < rk)
                sq++;
            for (int q = sq; q < se; q++) {
                const Tb2Sample x = mon.slist[q];
                if (x.j > r1)
                    break;
                const int s = r1 - x.j + 1; /* the step that has just made row x.j */
                if (i == x.i && s <= mon.srows) {
                    T v = T(0);
#pragma unroll
                    for (int u = 1; u <= K; u++)
                        if (u == s)
                            v = x.f == FIELD_EZ ? EP[u] : x.f == FIELD_HX ? HX[u] : HY[u];
                    mon.srow[(long long)(s - 1) * mon.sn + x.k] = v;
                }
            }
        }
        e0 = eup;
    }
}

/* Mur on the ping-pong pair: wall = old(nb) + k (new(nb) - old(wall)). */
template <typename T, bool F>
__global__ void k_mur2pp(const T *ez0, T *ez1, int nx, int ny, int px, T kmur)
{
    typedef Yee<T, F> Y;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int rows = ny - 2, cols = nx - 2;
    long long w, nb;
    if (t < 2 * rows) {
        const int j = 1 + t % rows, right = t / rows;
        w = (long long)j * px + (right ? nx - 1 : 0);
        nb = right ? w - 1 : w + 1;
    } else if (t < 2 * rows + 2 * cols) {
        const int u = t - 2 * rows, i = 1 + u % cols, top = u / cols;
        w = i + (top ? (long long)(ny - 1) * px : 0);
        nb = top ? w - px : w + px;
    } else {
        return;
    }
    ez1[w] = Y::yee_mur(ez0[nb], kmur, ez1[nb], ez0[w]);
}

/* A list of dispersive entries (k_disp2; two-kernel path): padded cell,
 * flag (bit 0: Hy; the TE edges), index into the coefficient table coef
 * (DispCoef<T> [MODEL_MAX_MATERIALS], a row per material or H-node
 * material, filled for the dispersive ones), the state D_s, Ei [n], P, P_old
 * [n][SCENE_MAX_POLES] (the cpu engine's layout), and this step's incident
 * value (v_d; from the host through the pinned v_h, ev as slot_ev). */
struct disp_list {
    long long *cell;
    uint8_t *flag, *mi;
    void *coef, *ds, *ei, *p, *pold, *v_d, *v_h;
    cudaEvent_t ev;
};

/* The step paths, chosen at create (TEXFDTD_CUDA2D = two | fused | temporal;
 * default temporal where the scene allows it, else fused). */
enum path2 { PATH2_TWO, PATH2_FUSED, PATH2_TEMPORAL };
static const char *const path2_name[] = {"two kernels", "fused", "temporal"};

struct cuda2d_engine {
    struct engine base;
    int dev;
    char devname[320];
    int nx, ny, px, N;
    size_t cells, es; /* padded cells per array; bytes per value */
    int nf;           /* [monitor.dft] frequencies: re, im hold nf arrays of `cells` */
    void *ez, *hx, *hy, *re, *im, *psi[4], *prof[4][3], *mur_old;
    /* fused / temporal paths: the other buffer of each ping-pong pair (ez,
     * hx, hy, psi_hxy, psi_hyx); `ez` etc. always name the current one */
    void *ez_b, *hx_b, *hy_b, *psi_b[2];
    enum path2 path; /* which step kernel(s) */
    int K, R;        /* temporal: steps per launch, rows per strip; fused: R */
    bool vacuum;     /* no cell has a material index > 0 (no slots) */
    bool vec;        /* fused: 16-byte vectors per thread (scenes without CPML) */
    bool lossy;      /* model->lossy: the kernels' template flag L */
    uint8_t *mat;
    long long *slot_cell;
    uint8_t *slot_pec;
    void *slot_v_d, *slot_v_h;
    /* recorded after each copy out of the pinned slot_v_h / slot_vk_h: a
     * cudaMemcpyAsync from pinned memory reads it when the copy runs, not
     * when it is queued, so the host waits on it before refilling */
    cudaEvent_t slot_ev;
    int *slot_map;            /* temporal path: slot number per padded cell, -1 elsewhere */
    void *slot_vk_d, *slot_vk_h; /* temporal path: [K][nslots] values of one launch */
    unsigned long long *first_bad; /* the blow-up check's words (cuda_first_bad) */
    struct cuda_samples smp; /* the monitors' batch buffer (common.cuh) */
    /* temporal path with monitors: the samples of each tile (Tb2Src) */
    int *tb2_tile;
    Tb2Sample *tb2_list;
    int *tb2_tiles; /* the tiles that have samples */
    int tb2_bands, tb2_ntiles;
    cudaStream_t tb2_stream; /* their launch, beside the others' */
    cudaEvent_t tb2_ev[2];
    /* conformal PEC (two-kernel path): per cut edge its H cell and free Ez
     * node (padded indices), component and a; the old H of the step; b^n of
     * the step, computed into the pinned cut_v_h and copied as the slot
     * values are (cut_ev as slot_ev) */
    long long *cut_cell, *cut_q;
    uint8_t *cut_comp;
    void *cut_a, *cut_old, *cut_v_d, *cut_v_h;
    cudaEvent_t cut_ev;
    /* the H-node map (core/model.h hmat; two-kernel path): the node
     * material indices, Hx [ny][px] then Hy [ny][px]; the H-node slots:
     * padded cell, flag (bit 0: Hy, bit 1: PEC) and this step's values
     * (pinned hslot_v_h, hslot_ev as slot_ev) */
    uint8_t *hmat;
    long long *hslot_cell;
    uint8_t *hslot_flag;
    void *hslot_v_d, *hslot_v_h;
    cudaEvent_t hslot_ev;
    /* the dispersive cells (core/model.h disp_cell) and TE edges (hdisp;
     * two-kernel path): struct disp_list */
    struct disp_list disp, hdisp;
    /* TE conformal PEC (core/model.h tecut; two-kernel path): per cut cell
     * its padded index, k[4] in the engine's precision, Hz^n of the step and
     * this step's b^n (from the host: pinned tecut_v_h, tecut_ev as slot_ev) */
    long long *tecut_cell;
    void *tecut_k, *tecut_old, *tecut_v_d, *tecut_v_h;
    cudaEvent_t tecut_ev;
    /* TE off-diagonal edges (core/model.h hoff; two-kernel path): padded
     * cell, flag (bit 0: Hy), k[2] in the engine's precision and this step's
     * w (from the host: pinned hoff_v_h, hoff_ev as slot_ev) */
    long long *hoff_cell;
    uint8_t *hoff_flag;
    void *hoff_k, *hoff_v_d, *hoff_v_h;
    cudaEvent_t hoff_ev;
    bool hlossy; /* model->hlossy: k_h2's flag HL */
    /* the incident values on the device (k_slot_values2 and friends; off
     * with TEXFDTD_CUDA2D_VALUES=host): per E slot its material, per H slot
     * its H-node material, their coefficients (E materials, H-node
     * materials) */
    bool dev_values;
    uint8_t *slot_mi, *hslot_mi;
    IncCoef2 *inc_coef, *inc_hcoef;
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
    d.hmat = c->hmat;
    d.hoff = (long long)c->cells;
    return d;
}

template <typename T> static PP2<T> view_pp(const cuda2d_engine *c, const struct model *m)
{
    const Dev2<T> d = view2<T>(c, m);
    PP2<T> p;
    memset(&p, 0, sizeof p);
    p.ez0 = d.ez;
    p.hx0 = d.hx;
    p.hy0 = d.hy;
    p.ez1 = (T *)c->ez_b;
    p.hx1 = (T *)c->hx_b;
    p.hy1 = (T *)c->hy_b;
    p.phxy0 = d.psi_hxy;
    p.phyx0 = d.psi_hyx;
    p.phxy1 = (T *)c->psi_b[0];
    p.phyx1 = (T *)c->psi_b[1];
    p.pezy = d.psi_ezy;
    p.pezx = d.psi_ezx;
    p.mat = d.mat;
    for (int a = 0; a < 4; a++) {
        p.pb[a] = d.pb[a];
        p.pc[a] = d.pc[a];
        p.pik[a] = d.pik[a];
    }
    p.nx = d.nx;
    p.ny = d.ny;
    p.px = d.px;
    p.N = d.N;
    p.ch = d.ch;
    return p;
}

template <typename T> static Cut2<T> view_cut(const cuda2d_engine *c, const struct model *m)
{
    Cut2<T> k;
    k.hx = (T *)c->hx;
    k.hy = (T *)c->hy;
    k.ez = (const T *)c->ez;
    k.cell = c->cut_cell;
    k.q = c->cut_q;
    k.comp = c->cut_comp;
    k.a = (const T *)c->cut_a;
    k.v = (const T *)c->cut_v_d;
    k.old = (T *)c->cut_old;
    k.n = (long long)m->ncut;
    return k;
}

/* The dispersive cells (l = &c->disp, n = ndisp) or TE edges (&c->hdisp). */
template <typename T>
static Disp2<T> view_disp(const cuda2d_engine *c, const struct model *m, const disp_list *l,
                          size_t n)
{
    Disp2<T> k;
    k.ez = (T *)c->ez;
    k.hx = (T *)c->hx;
    k.hy = (T *)c->hy;
    k.ds = (T *)l->ds;
    k.ei = (T *)l->ei;
    k.p = (T *)l->p;
    k.pold = (T *)l->pold;
    k.v = (const T *)l->v_d;
    k.cell = l->cell;
    k.mi = l->mi;
    k.flag = l->flag;
    k.coef = (const DispCoef<T> *)l->coef;
    k.n = (long long)n;
    k.px = c->px;
    k.ch = sizeof(T) == 4 ? (T)m->ch_f : (T)m->ch;
    return k;
}

template <typename T> static TeCut2<T> view_tecut(const cuda2d_engine *c, const struct model *m)
{
    TeCut2<T> k;
    k.ez = (T *)c->ez;
    k.hx = (const T *)c->hx;
    k.hy = (const T *)c->hy;
    k.cell = c->tecut_cell;
    k.k = (const T *)c->tecut_k;
    k.v = (const T *)c->tecut_v_d;
    k.old = (T *)c->tecut_old;
    k.n = (long long)m->ntecut;
    k.px = c->px;
    return k;
}

template <typename T> static Hoff2<T> view_hoff(const cuda2d_engine *c, const struct model *m)
{
    Hoff2<T> k;
    k.ez = (const T *)c->ez;
    k.hx = (T *)c->hx;
    k.hy = (T *)c->hy;
    k.cell = c->hoff_cell;
    k.flag = c->hoff_flag;
    k.k = (const T *)c->hoff_k;
    k.v = (const T *)c->hoff_v_d;
    k.n = (long long)m->nhoff;
    k.px = c->px;
    return k;
}

/* This step's values of a list (source slots, cut edges, TE cut cells,
 * H-node slots, dispersive cells and edges), computed on the host in double and rounded once
 * (model_*_values_f / _d) into the pinned host buffer h, once the previous
 * copy out of it has run (ev), and queued for the device buffer d. */
template <typename T>
static int step_values(const struct model *m, int t, size_t n, void *h, void *d, cudaEvent_t ev,
                       void (*vf)(const struct model *, int, float *),
                       void (*vd)(const struct model *, int, double *), char *err, size_t errlen)
{
    if (!n)
        return 0;
    CK(cudaEventSynchronize(ev));
    if (sizeof(T) == 4)
        vf(m, t, (float *)h);
    else
        vd(m, t, (double *)h);
    CK(cudaMemcpyAsync(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaEventRecord(ev));
    return 0;
}

/* After a fused or temporal launch the new buffers become the current ones. */
static void swap2(cuda2d_engine *c)
{
    void *t;
    t = c->ez, c->ez = c->ez_b, c->ez_b = t;
    t = c->hx, c->hx = c->hx_b, c->hx_b = t;
    t = c->hy, c->hy = c->hy_b, c->hy_b = t;
    t = c->psi[0], c->psi[0] = c->psi_b[0], c->psi_b[0] = t;
    t = c->psi[2], c->psi[2] = c->psi_b[1], c->psi_b[1] = t;
}

template <typename T, bool F, bool PML, bool VAC, bool L>
static void launch_fused2_p(const cuda2d_engine *c, const PP2<T> &p)
{
    const int strips = (c->ny + c->R - 1) / c->R;
    const dim3 b(32, 8), g((unsigned)(c->px / 32), (unsigned)((strips + 7) / 8));
    if (c->R == 16)
        k_fused2<T, F, PML, VAC, 16, L><<<g, b>>>(p);
    else if (c->R == 64)
        k_fused2<T, F, PML, VAC, 64, L><<<g, b>>>(p);
    else
        k_fused2<T, F, PML, VAC, 32, L><<<g, b>>>(p);
}

template <typename T, bool F, bool VAC, bool L>
static void launch_fused2v(const cuda2d_engine *c, const PP2<T> &p)
{
    const int V = 16 / (int)sizeof(T);
    const int strips = (c->ny + c->R - 1) / c->R;
    const dim3 b(32, 8), g((unsigned)(c->px / (32 * V)), (unsigned)((strips + 7) / 8));
    if (c->R == 16)
        k_fused2v<T, F, VAC, 16 / sizeof(T), 16, L><<<g, b>>>(p);
    else if (c->R == 64)
        k_fused2v<T, F, VAC, 16 / sizeof(T), 64, L><<<g, b>>>(p);
    else
        k_fused2v<T, F, VAC, 16 / sizeof(T), 32, L><<<g, b>>>(p);
}

/* The CPML code compiled in only where the scene has one (registers); the
 * lossy update only where a material is lossy (a scene of vacuum never is). */
template <typename T, bool F> static void launch_fused2(const cuda2d_engine *c, const PP2<T> &p)
{
    if (c->vec && c->N == 0) {
        if (c->vacuum)
            launch_fused2v<T, F, true, false>(c, p);
        else if (c->lossy)
            launch_fused2v<T, F, false, true>(c, p);
        else
            launch_fused2v<T, F, false, false>(c, p);
    } else if (c->N > 0 && c->lossy)
        launch_fused2_p<T, F, true, false, true>(c, p);
    else if (c->N > 0)
        launch_fused2_p<T, F, true, false, false>(c, p);
    else if (c->vacuum)
        launch_fused2_p<T, F, false, true, false>(c, p);
    else if (c->lossy)
        launch_fused2_p<T, F, false, false, true>(c, p);
    else
        launch_fused2_p<T, F, false, false, false>(c, p);
}

/* The bands of 32 - 2K stored columns, one a warp (and a block's x). */
static int tb2_bands(int nx, int K) { return (nx + 32 - 2 * K - 1) / (32 - 2 * K); }

template <typename T, bool F, int K, int MODE>
static void launch_tb2_k(const cuda2d_engine *c, const PP2<T> &p, const Tb2Src<T> &src,
                         const Tb2Mon<T> &mon, cudaStream_t st)
{
    const int strips = (c->ny + c->R - 1) / c->R;
    const dim3 b(32, 8),
        g(MODE == TB2_SAMPLES ? (unsigned)((mon.ntiles + 7) / 8) : (unsigned)tb2_bands(c->nx, K),
          MODE == TB2_SAMPLES ? 1u : (unsigned)((strips + 7) / 8));
    if (c->R == 128 && c->lossy)
        k_tb2<T, F, K, 128, MODE, true><<<g, b, 0, st>>>(p, src, mon);
    else if (c->R == 128)
        k_tb2<T, F, K, 128, MODE, false><<<g, b, 0, st>>>(p, src, mon);
    else if (c->lossy)
        k_tb2<T, F, K, 64, MODE, true><<<g, b, 0, st>>>(p, src, mon);
    else
        k_tb2<T, F, K, 64, MODE, false><<<g, b, 0, st>>>(p, src, mon);
}

template <typename T, bool F, int MODE>
static void launch_tb2_m(const cuda2d_engine *c, const PP2<T> &p, const Tb2Src<T> &src,
                         const Tb2Mon<T> &mon, cudaStream_t st)
{
    switch (c->K) {
    case 2: launch_tb2_k<T, F, 2, MODE>(c, p, src, mon, st); break;
    case 6: launch_tb2_k<T, F, 6, MODE>(c, p, src, mon, st); break;
    case 8: launch_tb2_k<T, F, 8, MODE>(c, p, src, mon, st); break;
    default: launch_tb2_k<T, F, 4, MODE>(c, p, src, mon, st); break;
    }
}

/* K steps: one launch, or, where this launch records samples, the tiles
 * with samples on the second stream beside the others on the default one,
 * each after what the default stream holds before, and what it takes next
 * after both. */
template <typename T, bool F>
static int launch_tb2(const cuda2d_engine *c, const PP2<T> &p, const Tb2Src<T> &src,
                      const Tb2Mon<T> &mon, char *err, size_t errlen)
{
    if (!mon.srow) {
        launch_tb2_m<T, F, TB2_ALL>(c, p, src, mon, 0);
        return 0;
    }
    CK(cudaEventRecord(c->tb2_ev[0], 0));
    CK(cudaStreamWaitEvent(c->tb2_stream, c->tb2_ev[0], 0));
    launch_tb2_m<T, F, TB2_SAMPLES>(c, p, src, mon, c->tb2_stream);
    CK(cudaEventRecord(c->tb2_ev[1], c->tb2_stream));
    launch_tb2_m<T, F, TB2_OTHERS>(c, p, src, mon, 0);
    CK(cudaStreamWaitEvent(0, c->tb2_ev[1], 0));
    return 0;
}

template <typename T, bool F>
static int step2(cuda2d_engine *c, const struct model *m, int n, char *err, size_t errlen)
{
    const dim3 b(32, 8), g((unsigned)((c->nx + 31) / 32), (unsigned)((c->ny + 7) / 8));
    const bool mur = m->scene->boundary == BOUNDARY_MUR;
    const bool point = m->scene->source_type == SOURCE_POINT;
    const size_t p = point ? model_point_cell(m) : 0;
    const long long pc = (long long)(p % (size_t)c->nx) + (long long)(p / (size_t)c->nx) * c->px;
    const T kmur = sizeof(T) == 4 ? (T)m->mur_k_f : (T)m->mur_k;
    const unsigned nmur = (unsigned)((2 * (c->nx - 2) + 2 * (c->ny - 2) + 255) / 256);
    for (int s = 0; s < n;) {
        const int t = c->base.step + s;
        if (c->path == PATH2_TEMPORAL && n - s >= c->K) {
            /* K steps in one launch (no slots, Mur, CPML or DFT here) */
            Tb2Src<T> src;
            src.pi = point ? (int)(p % (size_t)c->nx) : -1;
            src.pj = point ? (int)(p / (size_t)c->nx) : -1;
            for (int q = 0; q < 8; q++)
                src.v[q] = (T)(point && q < c->K
                                   ? (sizeof(T) == 4 ? (double)(float)model_point_value(m, t + q)
                                                     : model_point_value(m, t + q))
                                   : 0.0);
            src.slot_map = c->slot_map;
            src.slot_pec = c->slot_pec;
            src.slot_v = (const T *)c->slot_vk_d;
            src.nslots = (long long)m->nslots;
            /* monitors: the K rows go to the batch (what room it has left) */
            Tb2Mon<T> mon;
            mon.stile = c->tb2_tile;
            mon.slist = c->tb2_list;
            mon.tiles = c->tb2_tiles;
            mon.ntiles = c->tb2_ntiles;
            mon.bands = c->tb2_bands;
            mon.sn = (long long)m->nsamples;
            mon.srow = NULL;
            mon.srows = 0;
            if (m->nsamples && c->smp.rows < m->sample_rows) {
                mon.srow = (T *)c->smp.buf + (size_t)c->smp.rows * m->nsamples;
                const int room = m->sample_rows - c->smp.rows;
                mon.srows = room < c->K ? room : c->K;
            }
            if (m->nslots && c->dev_values) {
                k_slot_values2<T><<<dim3((unsigned)((m->nslots + 255) / 256), (unsigned)c->K), 256>>>(
                    (T *)c->slot_vk_d, c->slot_cell, c->slot_mi, c->inc_coef,
                    (long long)m->nslots, (long long)c->px, m->inc, t);
            } else if (m->nslots) {
                CK(cudaEventSynchronize(c->slot_ev));
                for (int q = 0; q < c->K; q++) {
                    if (sizeof(T) == 4)
                        model_slot_values_f(m, t + q, (float *)c->slot_vk_h + q * m->nslots);
                    else
                        model_slot_values_d(m, t + q, (double *)c->slot_vk_h + q * m->nslots);
                }
                CK(cudaMemcpyAsync(c->slot_vk_d, c->slot_vk_h, c->K * m->nslots * sizeof(T),
                                   cudaMemcpyHostToDevice));
                CK(cudaEventRecord(c->slot_ev));
            }
            if (launch_tb2<T, F>(c, view_pp<T>(c, m), src, mon, err, errlen))
                return -1;
            CK(cudaGetLastError());
            swap2(c);
            c->smp.rows += mon.srows;
            s += c->K;
            continue;
        }
        /* the slot values; b^n of the cut edges and TE cut cells, the H-node
         * slot values (PEC, hinc and lossy TE edges), Ei^{n+1} of the
         * dispersive cells and Hi^{n+1/2} of the dispersive TE edges
         * (two-kernel path) */
        if (c->dev_values) {
            /* on the device (the cut edges and TE cut cells, few, and whose
             * b^n sums several incident values, still from the host) */
            const long long px = (long long)c->px;
            if (m->nslots)
                k_slot_values2<T><<<(unsigned)((m->nslots + 255) / 256), 256>>>(
                    (T *)c->slot_v_d, c->slot_cell, c->slot_mi, c->inc_coef,
                    (long long)m->nslots, px, m->inc, t);
            if (m->nhslots)
                k_hslot_values2<T><<<(unsigned)((m->nhslots + 255) / 256), 256>>>(
                    (T *)c->hslot_v_d, c->hslot_cell, c->hslot_flag, c->hslot_mi, c->inc_hcoef,
                    (long long)m->nhslots, px, m->inc, t);
            if (m->ndisp)
                k_disp_values2<T><<<(unsigned)((m->ndisp + 255) / 256), 256>>>(
                    (T *)c->disp.v_d, c->disp.cell, (long long)m->ndisp, px, m->inc, t);
            if (m->nhdisp)
                k_hdisp_values2<T><<<(unsigned)((m->nhdisp + 255) / 256), 256>>>(
                    (T *)c->hdisp.v_d, c->hdisp.cell, c->hdisp.flag, (long long)m->nhdisp, px,
                    m->inc, t);
        } else if (step_values<T>(m, t, m->nslots, c->slot_v_h, c->slot_v_d, c->slot_ev,
                                  model_slot_values_f, model_slot_values_d, err, errlen)
                   || step_values<T>(m, t, m->nhslots, c->hslot_v_h, c->hslot_v_d, c->hslot_ev,
                                     model_hslot_values_f, model_hslot_values_d, err, errlen)
                   || step_values<T>(m, t, m->ndisp, c->disp.v_h, c->disp.v_d, c->disp.ev,
                                     model_disp_values_f, model_disp_values_d, err, errlen)
                   || step_values<T>(m, t, m->nhdisp, c->hdisp.v_h, c->hdisp.v_d, c->hdisp.ev,
                                     model_hdisp_values_f, model_hdisp_values_d, err, errlen)) {
            return -1;
        }
        if (step_values<T>(m, t, m->ncut, c->cut_v_h, c->cut_v_d, c->cut_ev,
                           model_cut_values_f, model_cut_values_d, err, errlen)
            || step_values<T>(m, t, m->ntecut, c->tecut_v_h, c->tecut_v_d, c->tecut_ev,
                              model_tecut_values_f, model_tecut_values_d, err, errlen)
            || step_values<T>(m, t, m->nhoff, c->hoff_v_h, c->hoff_v_d, c->hoff_ev,
                              model_hoff_values_f, model_hoff_values_d, err, errlen))
            return -1;
        if (c->path == PATH2_TWO) {
            /* update2d.inc's and cpu_step's order: the TE cut cells' Hz^n
             * kept, H (the cut edges, the off-diagonal TE edges, the H-node slots, then the
             * dispersive TE edges), E (Mur), the TE cut cells, then the
             * dispersive cells; the source slots, the point source and the
             * DFT below */
            const Dev2<T> d = view2<T>(c, m);
            const unsigned ncb = (unsigned)((m->ncut + 255) / 256);
            const unsigned ntb = (unsigned)((m->ntecut + 255) / 256);
            if (m->ntecut)
                k_tecut_save2<T><<<ntb, 256>>>(view_tecut<T>(c, m));
            if (m->ncut)
                k_cut_save2<T><<<ncb, 256>>>(view_cut<T>(c, m));
            if (c->hmat && c->hlossy)
                k_h2<T, F, true, true><<<g, b>>>(d);
            else if (c->hmat)
                k_h2<T, F, true, false><<<g, b>>>(d);
            else
                k_h2<T, F, false, false><<<g, b>>>(d);
            if (m->ncut)
                k_cut_apply2<T, F><<<ncb, 256>>>(view_cut<T>(c, m));
            if (m->nhoff)
                k_hoff2<T, F><<<(unsigned)((m->nhoff + 255) / 256), 256>>>(view_hoff<T>(c, m));
            if (m->nhslots)
                k_hslots2<T, F><<<(unsigned)((m->nhslots + 255) / 256), 256>>>(
                    d.hx, d.hy, c->hslot_cell, c->hslot_flag, (const T *)c->hslot_v_d,
                    (long long)m->nhslots);
            if (m->nhdisp)
                k_disp2<T, F, true><<<(unsigned)((m->nhdisp + 255) / 256), 256>>>(
                    view_disp<T>(c, m, &c->hdisp, m->nhdisp));
            if (mur)
                k_mur2<T, F, false><<<nmur, 256>>>(d, (T *)c->mur_old, kmur);
            if (c->lossy)
                k_e2<T, F, true><<<g, b>>>(d);
            else
                k_e2<T, F, false><<<g, b>>>(d);
            if (mur)
                k_mur2<T, F, true><<<nmur, 256>>>(d, (T *)c->mur_old, kmur);
            if (m->ntecut)
                k_tecut_apply2<T, F><<<ntb, 256>>>(view_tecut<T>(c, m));
            if (m->ndisp)
                k_disp2<T, F, false><<<(unsigned)((m->ndisp + 255) / 256), 256>>>(
                    view_disp<T>(c, m, &c->disp, m->ndisp));
        } else {
            /* fused (also the temporal path's remainder steps) */
            const PP2<T> pp = view_pp<T>(c, m);
            launch_fused2<T, F>(c, pp);
            if (mur)
                k_mur2pp<T, F><<<nmur, 256>>>(pp.ez0, pp.ez1, c->nx, c->ny, c->px, kmur);
            swap2(c);
        }
        const Dev2<T> d = view2<T>(c, m);
        if (m->nslots)
            k_slots2<T, F><<<(unsigned)((m->nslots + 255) / 256), 256>>>(
                d.ez, c->slot_cell, c->slot_pec, (const T *)c->slot_v_d, (long long)m->nslots);
        if (point)
            k_point2<T, F><<<1, 1>>>(d.ez, pc, (T)(sizeof(T) == 4 ? (double)(float)model_point_value(m, t)
                                                                  : model_point_value(m, t)));
        if (m->scene->dft && t + 1 > m->scene->dft_start) {
            DftW2<T> w;
            memset(&w, 0, sizeof w);
            w.nf = c->nf;
            for (int q = 0; q < c->nf; q++) {
                double wr, wi;
                model_dft_weight_k(m, q, t + 1, &wr, &wi);
                w.wr[q] = (T)wr;
                w.wi[q] = (T)wi;
            }
            k_dft2<T, F><<<g, b>>>(d, (long long)c->cells, w);
        }
        CK(cudaGetLastError());
        if (m->nsamples) {
            T *field[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
            field[FIELD_EZ] = d.ez;
            field[FIELD_HX] = d.hx;
            field[FIELD_HY] = d.hy;
            if (cuda_samples_take<T>(&c->smp, m, field, err, errlen))
                return -1;
        }
        s++;
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

static void disp_list_free(disp_list *l)
{
    cudaFree(l->cell);
    cudaFree(l->flag);
    cudaFree(l->mi);
    cudaFree(l->coef);
    cudaFree(l->ds);
    cudaFree(l->ei);
    cudaFree(l->p);
    cudaFree(l->pold);
    cudaFree(l->v_d);
    cudaFreeHost(l->v_h);
    if (l->ev)
        cudaEventDestroy(l->ev);
}

static void cuda2d_destroy(struct engine *e)
{
    cuda2d_engine *c = (cuda2d_engine *)e;
    if (!c)
        return;
    cudaFree(c->ez);
    cudaFree(c->hx);
    cudaFree(c->hy);
    cudaFree(c->ez_b);
    cudaFree(c->hx_b);
    cudaFree(c->hy_b);
    cudaFree(c->psi_b[0]);
    cudaFree(c->psi_b[1]);
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
    if (c->slot_ev)
        cudaEventDestroy(c->slot_ev);
    cudaFree(c->slot_map);
    cudaFree(c->slot_vk_d);
    cudaFreeHost(c->slot_vk_h);
    cudaFree(c->first_bad);
    cuda_samples_free(&c->smp);
    cudaFree(c->tb2_tile);
    cudaFree(c->tb2_list);
    cudaFree(c->tb2_tiles);
    cudaFree(c->cut_cell);
    cudaFree(c->cut_q);
    cudaFree(c->cut_comp);
    cudaFree(c->cut_a);
    cudaFree(c->cut_old);
    cudaFree(c->cut_v_d);
    cudaFreeHost(c->cut_v_h);
    if (c->cut_ev)
        cudaEventDestroy(c->cut_ev);
    cudaFree(c->hmat);
    cudaFree(c->hslot_cell);
    cudaFree(c->hslot_flag);
    cudaFree(c->hslot_v_d);
    cudaFreeHost(c->hslot_v_h);
    if (c->hslot_ev)
        cudaEventDestroy(c->hslot_ev);
    disp_list_free(&c->disp);
    disp_list_free(&c->hdisp);
    cudaFree(c->tecut_cell);
    cudaFree(c->hoff_cell);
    cudaFree(c->hoff_flag);
    cudaFree(c->hoff_k);
    cudaFree(c->hoff_v_d);
    cudaFreeHost(c->hoff_v_h);
    if (c->hoff_ev)
        cudaEventDestroy(c->hoff_ev);
    cudaFree(c->tecut_k);
    cudaFree(c->tecut_old);
    cudaFree(c->tecut_v_d);
    cudaFreeHost(c->tecut_v_h);
    if (c->tecut_ev)
        cudaEventDestroy(c->tecut_ev);
    cudaFree(c->slot_mi);
    cudaFree(c->hslot_mi);
    cudaFree(c->inc_coef);
    cudaFree(c->inc_hcoef);
    if (c->tb2_stream)
        cudaStreamDestroy(c->tb2_stream);
    for (int k = 0; k < 2; k++)
        if (c->tb2_ev[k])
            cudaEventDestroy(c->tb2_ev[k]);
    free(c);
}

/* The temporal path's sample lists (k_tb2, TB2_SAMPLES): each sample
 * belongs to the tile that stores its cell (i, j), band i / (32 - 2K) and
 * strip j / R, tile = band + bands * strip; within a tile the list is sorted
 * by row (then column, field), the order in which the wavefront passes
 * them. */
struct tb2_key {
    int tile;
    Tb2Sample s;
};

static int tb2_key_cmp(const void *a, const void *b)
{
    const struct tb2_key *x = (const struct tb2_key *)a, *y = (const struct tb2_key *)b;
    const int u[4] = {x->tile, x->s.j, x->s.i, x->s.f}, v[4] = {y->tile, y->s.j, y->s.i, y->s.f};
    for (int q = 0; q < 4; q++)
        if (u[q] != v[q])
            return u[q] < v[q] ? -1 : 1;
    return 0;
}

static size_t tb2_tiles(int nx, int ny, int K, int R)
{
    return (size_t)tb2_bands(nx, K) * (size_t)((ny + R - 1) / R);
}

static int tb2_samples_init(cuda2d_engine *c, const struct model *m, char *err, size_t errlen)
{
    const size_t n = m->nsamples, ntiles = tb2_tiles(c->nx, c->ny, c->K, c->R);
    const int w = 32 - 2 * c->K;
    if (n >= (size_t)INT_MAX || ntiles >= (size_t)INT_MAX)
        return seterr(err, errlen, "cuda 2D: %zu monitor samples over %zu tiles: too many for "
                      "the temporal path (TEXFDTD_CUDA2D=fused takes them)", n, ntiles);
    c->tb2_bands = tb2_bands(c->nx, c->K);
    struct tb2_key *key = (struct tb2_key *)malloc(n * sizeof *key);
    int *tile = (int *)calloc(ntiles + 1, sizeof *tile);
    Tb2Sample *list = (Tb2Sample *)malloc(n * sizeof *list);
    if (!key || !tile || !list) {
        free(key);
        free(tile);
        free(list);
        return seterr(err, errlen, "cuda 2D: out of host memory for the monitor samples");
    }
    for (size_t k = 0; k < n; k++) {
        const size_t cell = m->samples[k].cell;
        const int i = (int)(cell % (size_t)m->nx), j = (int)(cell / (size_t)m->nx);
        key[k].tile = i / w + c->tb2_bands * (j / c->R);
        key[k].s.j = j;
        key[k].s.i = i;
        key[k].s.f = m->samples[k].field;
        key[k].s.k = (int)k;
    }
    qsort(key, n, sizeof *key, tb2_key_cmp);
    for (size_t k = 0; k < n; k++) {
        tile[key[k].tile + 1]++;
        list[k] = key[k].s;
    }
    c->tb2_ntiles = 0;
    for (size_t t = 0; t < ntiles; t++) {
        c->tb2_ntiles += tile[t + 1] > 0;
        tile[t + 1] += tile[t];
    }
    /* the tiles with samples, for the TB2_SAMPLES launch */
    int *with = (int *)malloc((size_t)c->tb2_ntiles * sizeof *with);
    if (!with) {
        free(key);
        free(tile);
        free(list);
        return seterr(err, errlen, "cuda 2D: out of host memory for the monitor samples");
    }
    for (size_t t = 0, q = 0; t < ntiles; t++)
        if (tile[t + 1] > tile[t])
            with[q++] = (int)t;
    cudaError_t e1 = cudaMalloc((void **)&c->tb2_tile, (ntiles + 1) * sizeof *tile);
    if (e1 == cudaSuccess)
        e1 = cudaMemcpy(c->tb2_tile, tile, (ntiles + 1) * sizeof *tile, cudaMemcpyHostToDevice);
    if (e1 == cudaSuccess)
        e1 = cudaMalloc((void **)&c->tb2_list, n * sizeof *list);
    if (e1 == cudaSuccess)
        e1 = cudaMemcpy(c->tb2_list, list, n * sizeof *list, cudaMemcpyHostToDevice);
    if (e1 == cudaSuccess)
        e1 = cudaMalloc((void **)&c->tb2_tiles, (size_t)c->tb2_ntiles * sizeof *with);
    if (e1 == cudaSuccess)
        e1 = cudaMemcpy(c->tb2_tiles, with, (size_t)c->tb2_ntiles * sizeof *with,
                        cudaMemcpyHostToDevice);
    if (e1 == cudaSuccess)
        e1 = cudaStreamCreateWithFlags(&c->tb2_stream, cudaStreamNonBlocking);
    for (int k = 0; k < 2 && e1 == cudaSuccess; k++)
        e1 = cudaEventCreateWithFlags(&c->tb2_ev[k], cudaEventDisableTiming);
    free(key);
    free(tile);
    free(list);
    free(with);
    if (e1 != cudaSuccess)
        return seterr(err, errlen, "cuda 2D: cannot set up the monitor samples: %s",
                      cudaGetErrorString(e1));
    return 0;
}

/* The device's share of the incident values (c->dev_values): the material
 * of each E slot and of each H slot, and the two coefficient tables. */
static int inc_setup(cuda2d_engine *c, const struct model *m, char *err, size_t errlen)
{
    IncCoef2 coef[MODEL_MAX_MATERIALS], hcoef[MODEL_MAX_MATERIALS];
    memset(coef, 0, sizeof coef);
    memset(hcoef, 0, sizeof hcoef);
    for (int k = 0; k < m->nmats; k++) {
        const struct material *t = &m->mats[k];
        coef[k].cinc = t->cinc;
        coef[k].cdiff = t->cinc_diff;
        coef[k].csum = t->cinc_sum;
        coef[k].pec = t->kind == MATERIAL_PEC;
        coef[k].lossy = t->sigma != 0.0;
    }
    for (int k = 0; k < m->nhmats; k++) {
        const model::hmaterial *t = &m->hmats[k]; /* nested in struct model, for C++ */
        hcoef[k].hinc = t->hinc;
        hcoef[k].cdiff = t->cinc_diff;
        hcoef[k].csum = t->cinc_sum;
        hcoef[k].pec = t->pec;
        hcoef[k].lossy = t->sigma != 0.0;
    }
    uint8_t *smi = (uint8_t *)malloc(m->nslots + 1), *hmi = (uint8_t *)malloc(m->nhslots + 1);
    cudaError_t e = cudaErrorMemoryAllocation;
    if (smi && hmi) {
        for (size_t k = 0; k < m->nslots; k++)
            smi[k] = m->mat[m->slot_cell[k]];
        for (size_t k = 0; k < m->nhslots; k++)
            hmi[k] = m->hmat[m->hslot[k]];
        e = cudaMalloc((void **)&c->inc_coef, sizeof coef);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->inc_hcoef, sizeof hcoef);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->slot_mi, m->nslots + 1);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&c->hslot_mi, m->nhslots + 1);
        if (e == cudaSuccess)
            e = cudaMemcpy(c->inc_coef, coef, sizeof coef, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(c->inc_hcoef, hcoef, sizeof hcoef, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(c->slot_mi, smi, m->nslots, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(c->hslot_mi, hmi, m->nhslots, cudaMemcpyHostToDevice);
    }
    free(smi);
    free(hmi);
    if (e != cudaSuccess)
        return seterr(err, errlen, "cuda 2D: cannot set up the incident values on the device: %s",
                      cudaGetErrorString(e));
    return 0;
}

/* A list of n dispersive entries (struct disp_list): ids[k] = comp * ncells
 * + c (cells: comp 0; TE edges: 0 Hx, 1 Hy), map[ids[k]] its row in the
 * coefficient table (the material index, m->mat or m->hmat), dc[r] the
 * coefficients of row r (NULL: not dispersive); what = "cells" or "edges". */
static int disp_setup(cuda2d_engine *c, const struct model *m, disp_list *l, size_t n,
                      const size_t *ids, const uint8_t *map,
                      const struct material_coef *const *dc, int nrows, const char *what,
                      char *err, size_t errlen)
{
    const size_t nx = (size_t)m->nx, es = c->es, np = n * SCENE_MAX_POLES;
    const size_t tb = MODEL_MAX_MATERIALS * (es == 4 ? sizeof(DispCoef<float>)
                                                     : sizeof(DispCoef<double>));
    long long *cell = (long long *)malloc(n * sizeof *cell);
    uint8_t *mi = (uint8_t *)malloc(n), *flag = (uint8_t *)malloc(n);
    void *tab = calloc(1, tb);
    void **dev[6] = {&l->coef, &l->ds, &l->ei, &l->p, &l->pold, &l->v_d};
    const size_t bytes[6] = {tb, n * es, n * es, np * es, np * es, n * es};
    cudaError_t e1 = cudaErrorMemoryAllocation;
    if (cell && mi && flag && tab) {
        for (size_t k = 0; k < n; k++) {
            const size_t q = ids[k] % m->ncells;
            cell[k] = (long long)(q % nx) + (long long)(q / nx) * c->px;
            mi[k] = map[ids[k]];
            flag[k] = (uint8_t)(ids[k] / m->ncells);
        }
        for (int r = 0; r < nrows; r++) {
            if (!dc[r])
                continue;
            if (es == 4)
                disp_coef_fill((DispCoef<float> *)tab + r, dc[r]);
            else
                disp_coef_fill((DispCoef<double> *)tab + r, dc[r]);
        }
        e1 = cudaSuccess;
        for (int q = 0; q < 6 && e1 == cudaSuccess; q++) {
            e1 = cudaMalloc(dev[q], bytes[q]);
            if (e1 == cudaSuccess)
                e1 = cudaMemset(*dev[q], 0, bytes[q]);
        }
        if (e1 == cudaSuccess)
            e1 = cudaMalloc((void **)&l->cell, n * sizeof *cell);
        if (e1 == cudaSuccess)
            e1 = cudaMalloc((void **)&l->mi, n);
        if (e1 == cudaSuccess)
            e1 = cudaMalloc((void **)&l->flag, n);
        if (e1 == cudaSuccess)
            e1 = cudaMemcpy(l->cell, cell, n * sizeof *cell, cudaMemcpyHostToDevice);
        if (e1 == cudaSuccess)
            e1 = cudaMemcpy(l->mi, mi, n, cudaMemcpyHostToDevice);
        if (e1 == cudaSuccess)
            e1 = cudaMemcpy(l->flag, flag, n, cudaMemcpyHostToDevice);
        if (e1 == cudaSuccess)
            e1 = cudaMemcpy(l->coef, tab, tb, cudaMemcpyHostToDevice);
        if (e1 == cudaSuccess)
            e1 = cudaMallocHost(&l->v_h, n * es);
        if (e1 == cudaSuccess)
            e1 = cudaEventCreateWithFlags(&l->ev, cudaEventDisableTiming);
    }
    free(cell);
    free(mi);
    free(flag);
    free(tab);
    if (e1 != cudaSuccess)
        return seterr(err, errlen, "cuda 2D: cannot set up the %zu dispersive %s: %s", n, what,
                      cudaGetErrorString(e1));
    return 0;
}

/* *d = a device copy of the bytes at h. */
static cudaError_t dev_upload(void **d, const void *h, size_t bytes)
{
    cudaError_t e = cudaMalloc(d, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice);
    return e;
}

/* A list's per-step values from the host: the device buffer d, the pinned
 * host buffer h and the event of the last copy out of it (step_values). */
static cudaError_t values_setup(void **d, void **h, cudaEvent_t *ev, size_t bytes)
{
    cudaError_t e = cudaMalloc(d, bytes);
    if (e == cudaSuccess)
        e = cudaMallocHost(h, bytes);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags(ev, cudaEventDisableTiming);
    return e;
}

/* TE conformal PEC: the cut cells' padded indices and k (k_f in float), the
 * scratch Hz^n and b^n (pinned on the host). */
static int tecut_setup(cuda2d_engine *c, const struct model *m, char *err, size_t errlen)
{
    const size_t n = m->ntecut, nx = (size_t)m->nx, es = c->es;
    long long *cell = (long long *)malloc(n * sizeof *cell);
    double *k = (double *)malloc(4 * n * sizeof *k); /* es bytes each: float or double */
    cudaError_t e1 = cudaErrorMemoryAllocation;
    if (cell && k) {
        for (size_t t = 0; t < n; t++) {
            const struct model::te_cut *tc = &m->tecut[t]; /* nested in struct model, for C++ */
            cell[t] = (long long)(tc->cell % nx) + (long long)(tc->cell / nx) * c->px;
            for (int q = 0; q < 4; q++) {
                if (es == 4)
                    ((float *)k)[4 * t + q] = tc->k_f[q];
                else
                    k[4 * t + q] = tc->k[q];
            }
        }
        e1 = dev_upload((void **)&c->tecut_cell, cell, n * sizeof *cell);
        if (e1 == cudaSuccess)
            e1 = dev_upload(&c->tecut_k, k, 4 * n * es);
        if (e1 == cudaSuccess)
            e1 = cudaMalloc(&c->tecut_old, n * es);
        if (e1 == cudaSuccess)
            e1 = values_setup(&c->tecut_v_d, &c->tecut_v_h, &c->tecut_ev, n * es);
    }
    free(cell);
    free(k);
    if (e1 != cudaSuccess)
        return seterr(err, errlen, "cuda 2D: cannot set up the %zu TE cut cells: %s", n,
                      cudaGetErrorString(e1));
    return 0;
}

/* TE off-diagonal edges: their padded indices, flags and k (k_f in float),
 * and the pinned buffer of w. */
static int hoff_setup(cuda2d_engine *c, const struct model *m, char *err, size_t errlen)
{
    const size_t n = m->nhoff, nx = (size_t)m->nx, es = c->es;
    long long *cell = (long long *)malloc(n * sizeof *cell);
    uint8_t *flag = (uint8_t *)malloc(n);
    double *k = (double *)malloc(2 * n * sizeof *k); /* es bytes each: float or double */
    cudaError_t e1 = cudaErrorMemoryAllocation;
    if (cell && flag && k) {
        for (size_t t = 0; t < n; t++) {
            const struct model::hoff *h = &m->hoff[t]; /* nested in struct model, for C++ */
            const size_t q = h->id % m->ncells;
            cell[t] = (long long)(q % nx) + (long long)(q / nx) * c->px;
            flag[t] = h->id >= m->ncells;
            for (int a = 0; a < 2; a++) {
                if (es == 4)
                    ((float *)k)[2 * t + a] = h->k_f[a];
                else
                    k[2 * t + a] = h->k[a];
            }
        }
        e1 = dev_upload((void **)&c->hoff_cell, cell, n * sizeof *cell);
        if (e1 == cudaSuccess)
            e1 = dev_upload((void **)&c->hoff_flag, flag, n);
        if (e1 == cudaSuccess)
            e1 = dev_upload(&c->hoff_k, k, 2 * n * es);
        if (e1 == cudaSuccess)
            e1 = values_setup(&c->hoff_v_d, &c->hoff_v_h, &c->hoff_ev, n * es);
    }
    free(cell);
    free(flag);
    free(k);
    if (e1 != cudaSuccess)
        return seterr(err, errlen, "cuda 2D: cannot set up the %zu off-diagonal TE edges: %s", n,
                      cudaGetErrorString(e1));
    return 0;
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
    c->px = (m->nx + 127) / 128 * 128; /* 32 threads x 16 bytes: the vector kernel's band */
    c->N = m->pml_n;
    c->cells = (size_t)c->px * c->ny;
    c->es = precision_size(o->precision);
    c->nf = m->scene->dft ? m->scene->dft_nfreq : 0;
    c->vacuum = m->nslots == 0;
    /* the ez array's ca, as cpu_step's elossy: TM with a lossy material
     * (in TE sigma lives on the edges, hlossy, and the ez array's nodes are
     * the mu_r ones, ca = 1) */
    c->lossy = m->lossy && !m->scene->te;
    c->hlossy = m->hlossy;
    /* the step path: TEXFDTD_CUDA2D = two | fused | temporal (default);
     * temporal needs a scene without CPML, Mur and DFT, else fused; a
     * scene with conformal cut edges runs the two-kernel path (see the top).
     * TEXFDTD_CUDA2D_K (2, 4, 6 = default, 8) and TEXFDTD_CUDA2D_ROWS
     * (fused 16 = default, 32, 64; temporal 64, 128) tune them. */
    {
        const char *pe = getenv("TEXFDTD_CUDA2D");
        const char *ke = getenv("TEXFDTD_CUDA2D_K"), *re = getenv("TEXFDTD_CUDA2D_ROWS");
        const char *ve = getenv("TEXFDTD_CUDA2D_VEC"), *va = getenv("TEXFDTD_CUDA2D_VALUES");
        c->vec = !(ve && !strcmp(ve, "0")); /* TEXFDTD_CUDA2D_VEC=0: one column per thread */
        /* TEXFDTD_CUDA2D_VALUES=host: the incident values from the host */
        c->dev_values = !(va && !strcmp(va, "host"));
        if (va && *va && strcmp(va, "host") && strcmp(va, "device")) {
            free(c);
            return seterr(err, errlen, "TEXFDTD_CUDA2D_VALUES=%s: expected host or device", va);
        }
        c->path = PATH2_TEMPORAL;
        if (pe && !strcmp(pe, "two"))
            c->path = PATH2_TWO;
        else if (pe && !strcmp(pe, "fused"))
            c->path = PATH2_FUSED;
        else if (pe && *pe && strcmp(pe, "temporal")) {
            free(c);
            return seterr(err, errlen, "TEXFDTD_CUDA2D=%s: expected two, fused or temporal", pe);
        }
        if (c->path == PATH2_TEMPORAL
            && (m->pml_n > 0 || m->scene->boundary == BOUNDARY_MUR || m->scene->dft))
            c->path = PATH2_FUSED;
        /* the conformal cut edges (TM and TE), the H-node map (TE, mu_r;
         * with it the lossy and dispersive TE edges) and the dispersive
         * cells: the two-kernel path only (see the top) */
        if (m->ncut || m->ntecut || m->hmat || m->nhdisp || m->ndisp || m->nhoff)
            c->path = PATH2_TWO;
        c->K = ke ? atoi(ke) : 6; /* 6: fastest at 4096^2 and 16384^2 on the H100 */
        if (c->K != 2 && c->K != 4 && c->K != 6 && c->K != 8)
            c->K = 6;
        const int r = re ? atoi(re) : 0;
        if (c->path == PATH2_TEMPORAL)
            /* 128-row strips where the grid still gives >= 4 warps per SM-lane, else 64 */
            c->R = r == 64 || r == 128 ? r
                   : (double)c->nx / (32 - 2 * c->K) * c->ny / 128 >= 4.0 * prop.multiProcessorCount * 64 ? 128 : 64;
        else
            /* 16: the fastest at every size measured (docs/performance.md) */
            c->R = r == 16 || r == 32 || r == 64 ? r : 16;
        log_info("cuda 2D: %s path (K = %d, %d rows per strip%s)%s%s%s%s%s%s%s", path2_name[c->path],
                 c->path == PATH2_TEMPORAL ? c->K : 1, c->path == PATH2_TWO ? 0 : c->R,
                 c->path != PATH2_TWO && c->vec && m->pml_n == 0 ? ", 16-byte vectors" : "",
                 !m->nsamples ? ""
                 : c->path == PATH2_TEMPORAL ? ", monitor samples gathered inside the kernel"
                                             : ", monitor samples gathered after each step",
                 m->ncut ? ", conformal PEC cut edges (two kernels only)" : "",
                 m->ntecut ? ", TE conformal cut cells (two kernels only)" : "",
                 m->hmat ? ", H-node map (two kernels only)" : "",
                 m->hlossy ? ", lossy TE edges" : "",
                 m->ndisp ? ", dispersive cells (two kernels only)" : "",
                 m->nhdisp ? ", dispersive TE edges (two kernels only)" : "");
    }
    const bool pp = c->path != PATH2_TWO;
    const size_t es = c->es, N = (size_t)c->N;
    const size_t psi_b = 2 * N * ((size_t)c->px + (size_t)c->ny) * (pp ? 3 : 2) * es;
    /* per cell: the fields (twice on the ping-pong paths), the DFT sums of
     * every frequency, the material byte, the temporal path's slot map */
    const size_t per_cell = (3 * (pp ? 2 : 1) + 2 * (size_t)c->nf) * es + 1
                            + (c->path == PATH2_TEMPORAL && m->nslots ? sizeof(int) : 0);
    /* the monitors: batch buffer and indices, and the temporal path's lists */
    const size_t mon_b = cuda_samples_bytes(m, es)
                         + (c->path == PATH2_TEMPORAL && m->nsamples
                                ? m->nsamples * sizeof(Tb2Sample)
                                      + (2 * tb2_tiles(c->nx, c->ny, c->K, c->R) + 1) * sizeof(int)
                                : 0);
    /* conformal PEC: cell, q, component, a, old H and b^n per cut edge;
     * TE: cell, k[4], old Hz and b^n per cut cell */
    const size_t cut_b = m->ncut * (2 * sizeof(long long) + 1 + 3 * es)
                         + m->ntecut * (sizeof(long long) + 6 * es)
                         + m->nhoff * (sizeof(long long) + 1 + 4 * es);
    /* the H-node map (2 bytes a cell), its slots (cell, flag, value); the
     * dispersive cells and TE edges (cell, index, flag, D_s, Ei^n, Ei^{n+1},
     * 2 x MAXP poles, a coefficient table per list) */
    const size_t hm_b = (m->hmat ? 2 * c->cells : 0) + m->nhslots * (9 + es);
    const size_t nd = m->ndisp + m->nhdisp;
    const size_t disp_b = nd * (10 + (3 + 2 * SCENE_MAX_POLES) * es)
                          + (size_t)((m->ndisp > 0) + (m->nhdisp > 0)) * MODEL_MAX_MATERIALS
                                * sizeof(DispCoef<double>);
    const size_t need = c->cells * per_cell + psi_b + m->nslots * (9 + es) + cut_b + hm_b
                        + disp_b + mon_b + (64u << 20);
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
    if (pp) {
        ALLOC(c->ez_b, c->cells * es);
        ALLOC(c->hx_b, c->cells * es);
        ALLOC(c->hy_b, c->cells * es);
    }
    if (c->nf) {
        ALLOC(c->re, (size_t)c->nf * c->cells * es);
        ALLOC(c->im, (size_t)c->nf * c->cells * es);
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
        if (pp) {
            ALLOC(c->psi_b[0], 2 * N * c->px * es);
            ALLOC(c->psi_b[1], 2 * N * c->ny * es);
        }
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
        if (e3 == cudaSuccess)
            e3 = cudaEventCreateWithFlags(&c->slot_ev, cudaEventDisableTiming);
        cudaError_t e4 = cudaSuccess;
        if (c->path == PATH2_TEMPORAL) {
            int *map = (int *)malloc(c->cells * sizeof *map);
            if (!map) {
                free(cell);
                free(pec);
                seterr(err, errlen, "cuda 2D: out of host memory");
                goto fail;
            }
            for (size_t q = 0; q < c->cells; q++)
                map[q] = -1;
            for (size_t k = 0; k < m->nslots; k++)
                map[cell[k]] = (int)k;
            ALLOC(c->slot_map, c->cells * sizeof *map);
            ALLOC(c->slot_vk_d, (size_t)c->K * m->nslots * es);
            e4 = cudaMemcpy(c->slot_map, map, c->cells * sizeof *map, cudaMemcpyHostToDevice);
            if (e4 == cudaSuccess)
                e4 = cudaMallocHost(&c->slot_vk_h, (size_t)c->K * m->nslots * es);
            free(map);
        }
        free(cell);
        free(pec);
        if (e1 != cudaSuccess || e2 != cudaSuccess || e3 != cudaSuccess || e4 != cudaSuccess) {
            seterr(err, errlen, "cuda 2D: cannot set up the source slots");
            goto fail;
        }
    }
    if (m->ncut) {
        const size_t n = m->ncut;
        ALLOC(c->cut_cell, n * sizeof(long long));
        ALLOC(c->cut_q, n * sizeof(long long));
        ALLOC(c->cut_comp, n);
        ALLOC(c->cut_a, n * es);
        ALLOC(c->cut_old, n * es);
        ALLOC(c->cut_v_d, n * es);
        /* host staging: cell, q, a (as long long, long long, double) and comp */
        const size_t nx = (size_t)m->nx;
        long long *cell = (long long *)malloc(n * sizeof *cell);
        long long *q = (long long *)malloc(n * sizeof *q);
        double *a = (double *)malloc(n * sizeof *a); /* es bytes each: float or double */
        uint8_t *comp = (uint8_t *)malloc(n);
        cudaError_t e1 = cudaErrorMemoryAllocation;
        if (cell && q && a && comp) {
            for (size_t k = 0; k < n; k++) {
                const model::cut_edge *ce = &m->cut[k]; /* nested in struct model, for C++ */
                cell[k] = (long long)(ce->cell % nx) + (long long)(ce->cell / nx) * c->px;
                q[k] = (long long)(ce->q % nx) + (long long)(ce->q / nx) * c->px;
                comp[k] = (uint8_t)ce->comp;
                if (es == 4)
                    ((float *)a)[k] = ce->a_f;
                else
                    a[k] = ce->a;
            }
            e1 = cudaMemcpy(c->cut_cell, cell, n * sizeof *cell, cudaMemcpyHostToDevice);
            if (e1 == cudaSuccess)
                e1 = cudaMemcpy(c->cut_q, q, n * sizeof *q, cudaMemcpyHostToDevice);
            if (e1 == cudaSuccess)
                e1 = cudaMemcpy(c->cut_comp, comp, n, cudaMemcpyHostToDevice);
            if (e1 == cudaSuccess)
                e1 = cudaMemcpy(c->cut_a, a, n * es, cudaMemcpyHostToDevice);
            if (e1 == cudaSuccess)
                e1 = cudaMallocHost(&c->cut_v_h, n * es);
            if (e1 == cudaSuccess)
                e1 = cudaEventCreateWithFlags(&c->cut_ev, cudaEventDisableTiming);
        }
        free(cell);
        free(q);
        free(a);
        free(comp);
        if (e1 != cudaSuccess) {
            seterr(err, errlen, "cuda 2D: cannot set up the %zu conformal cut edges: %s", n,
                   cudaGetErrorString(e1));
            goto fail;
        }
    }
    if (m->hmat) {
        ALLOC(c->hmat, 2 * c->cells);
        if (cudaMemcpy2D(c->hmat, c->px, m->hmat, m->nx, m->nx, m->ny, cudaMemcpyHostToDevice) != cudaSuccess
            || cudaMemcpy2D(c->hmat + c->cells, c->px, m->hmat + m->ncells, m->nx, m->nx, m->ny,
                            cudaMemcpyHostToDevice) != cudaSuccess) {
            seterr(err, errlen, "cuda 2D: cannot copy the H-node map");
            goto fail;
        }
    }
    if (m->nhslots) {
        const size_t n = m->nhslots, nx = (size_t)m->nx;
        ALLOC(c->hslot_cell, n * sizeof(long long));
        ALLOC(c->hslot_flag, n);
        ALLOC(c->hslot_v_d, n * es);
        long long *cell = (long long *)malloc(n * sizeof *cell);
        uint8_t *flag = (uint8_t *)malloc(n);
        cudaError_t e1 = cudaErrorMemoryAllocation;
        if (cell && flag) {
            for (size_t q = 0; q < n; q++) {
                const size_t id = m->hslot[q], h = id % m->ncells;
                cell[q] = (long long)(h % nx) + (long long)(h / nx) * c->px;
                flag[q] = (uint8_t)((id >= m->ncells ? 1 : 0) | (m->hmats[m->hmat[id]].pec ? 2 : 0));
            }
            e1 = cudaMemcpy(c->hslot_cell, cell, n * sizeof *cell, cudaMemcpyHostToDevice);
            if (e1 == cudaSuccess)
                e1 = cudaMemcpy(c->hslot_flag, flag, n, cudaMemcpyHostToDevice);
            if (e1 == cudaSuccess)
                e1 = cudaMallocHost(&c->hslot_v_h, n * es);
            if (e1 == cudaSuccess)
                e1 = cudaEventCreateWithFlags(&c->hslot_ev, cudaEventDisableTiming);
        }
        free(cell);
        free(flag);
        if (e1 != cudaSuccess) {
            seterr(err, errlen, "cuda 2D: cannot set up the %zu H-node slots: %s", n,
                   cudaGetErrorString(e1));
            goto fail;
        }
    }
    if (m->ndisp) {
        const struct material_coef *dc[MODEL_MAX_MATERIALS];
        for (int k = 0; k < m->nmats; k++)
            dc[k] = m->mats[k].dcoef;
        if (disp_setup(c, m, &c->disp, m->ndisp, m->disp_cell, m->mat, dc, m->nmats, "cells",
                       err, errlen))
            goto fail;
    }
    if (m->nhdisp) {
        const struct material_coef *dc[MODEL_MAX_MATERIALS];
        for (int k = 0; k < m->nhmats; k++)
            dc[k] = m->hmats[k].dcoef;
        if (disp_setup(c, m, &c->hdisp, m->nhdisp, m->hdisp, m->hmat, dc, m->nhmats, "TE edges",
                       err, errlen))
            goto fail;
    }
    if (m->ntecut && tecut_setup(c, m, err, errlen))
        goto fail;
    if (m->nhoff && hoff_setup(c, m, err, errlen))
        goto fail;
    if (c->dev_values && inc_setup(c, m, err, errlen))
        goto fail;
    {
        float cf[MODEL_MAX_MATERIALS] = {0}, af[MODEL_MAX_MATERIALS] = {0};
        double cd[MODEL_MAX_MATERIALS] = {0}, ad[MODEL_MAX_MATERIALS] = {0};
        float hf[MODEL_MAX_MATERIALS] = {0}, haf[MODEL_MAX_MATERIALS] = {0};
        double hd[MODEL_MAX_MATERIALS] = {0}, had[MODEL_MAX_MATERIALS] = {0};
        for (int k = 0; k < m->nhmats; k++) {
            hf[k] = m->hmats[k].ch_f;
            hd[k] = m->hmats[k].ch;
            haf[k] = m->hmats[k].ca_f;
            had[k] = m->hmats[k].ca;
        }
        for (int k = 0; k < m->nmats; k++) {
            cf[k] = m->mats[k].cb_f; /* = cezh_f where sigma = 0 */
            cd[k] = m->mats[k].cb;
            af[k] = m->mats[k].ca_f;
            ad[k] = m->mats[k].ca;
        }
        if (cudaMemcpyToSymbol(c2_cezh_f, cf, sizeof cf) != cudaSuccess
            || cudaMemcpyToSymbol(c2_cezh_d, cd, sizeof cd) != cudaSuccess
            || cudaMemcpyToSymbol(c2_ca_f, af, sizeof af) != cudaSuccess
            || cudaMemcpyToSymbol(c2_ca_d, ad, sizeof ad) != cudaSuccess
            || cudaMemcpyToSymbol(c2_hc_f, hf, sizeof hf) != cudaSuccess
            || cudaMemcpyToSymbol(c2_hc_d, hd, sizeof hd) != cudaSuccess
            || cudaMemcpyToSymbol(c2_hca_f, haf, sizeof haf) != cudaSuccess
            || cudaMemcpyToSymbol(c2_hca_d, had, sizeof had) != cudaSuccess) {
            seterr(err, errlen, "cuda 2D: cannot set the coefficient table");
            goto fail;
        }
    }
#undef ALLOC
    if (cuda_samples_init(&c->smp, m, es, c->px, c->ny, err, errlen)
        || (c->path == PATH2_TEMPORAL && m->nsamples && tb2_samples_init(c, m, err, errlen)))
        goto fail;
    *out = &c->base;
    return 0;
fail:
    cuda2d_destroy(&c->base);
    return -1;
}

static void *field_ptr(cuda2d_engine *c, enum field f)
{
    const int k = field_dft_index(f);
    if (k >= 0) /* frequency k's sums at k * cells */
        return !c->re || k >= c->nf ? NULL
               : (char *)(f == field_dft(k, 1) ? c->im : c->re) + (size_t)k * c->cells * c->es;
    switch (f) {
    case FIELD_EZ: return c->ez;
    case FIELD_HX: return c->hx;
    case FIELD_HY: return c->hy;
    default: return NULL;
    }
}

/* TE (core/scene.h te): engine_read (core/engine.c) reads hz, ex, ey as
 * the arrays ez, hx, hy (eta0 Hz, -Ex, -Ey) with their signs, for every
 * engine. */
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

/* The checkpointed state, in the cpu engine's names and layouts (cpu2d.c
 * cpu_state), so that a checkpoint moves between the engines: the fields,
 * the CPML psi, the dispersive cells' and TE edges' D_s, Ei and poles, the
 * DFT sums.  The padded arrays ([rows][px]) go through a host buffer without their
 * padding ([rows][nx]); a load also fills the ping-pong twins (fused and
 * temporal paths), which must agree on the cells a step never writes.  (Mur's
 * old values, the cut edges' old H, the TE cut cells' old Hz and the
 * per-step values are scratch within a step.)  A state is taken between engine_step calls, when every
 * gathered monitor row has been read: a load starts a fresh batch. */
static int cuda2d_state(struct engine *e, struct state_io *io, char *err, size_t errlen)
{
    cuda2d_engine *c = (cuda2d_engine *)e;
    const struct model *m = e->model;
    const size_t es = c->es, nx = (size_t)c->nx, px = (size_t)c->px, N = (size_t)c->N;
    const size_t nd = m->ndisp, nh = m->nhdisp, nf = (size_t)c->nf;
    const struct {
        const char *name;
        void *dev, *twin;
        size_t rows, w; /* rows of w values */
        bool padded;    /* rows of nx values, px apart on the device */
    } a[] = {
        {"ez", c->ez, c->ez_b, (size_t)c->ny, nx, true},
        {"hx", c->hx, c->hx_b, (size_t)c->ny, nx, true},
        {"hy", c->hy, c->hy_b, (size_t)c->ny, nx, true},
        {"psi_hxy", c->psi[0], c->psi_b[0], 2 * N, nx, true},
        {"psi_ezy", c->psi[1], NULL, 2 * N, nx, true},
        {"psi_hyx", c->psi[2], c->psi_b[1], 1, 2 * N * (size_t)c->ny, false},
        {"psi_ezx", c->psi[3], NULL, 1, 2 * N * (size_t)c->ny, false},
        {"disp_ds", c->disp.ds, NULL, 1, nd, false},
        {"disp_ei", c->disp.ei, NULL, 1, nd, false},
        {"disp_p", c->disp.p, NULL, 1, nd * SCENE_MAX_POLES, false},
        {"disp_pold", c->disp.pold, NULL, 1, nd * SCENE_MAX_POLES, false},
        {"hdisp_ds", c->hdisp.ds, NULL, 1, nh, false},
        {"hdisp_ei", c->hdisp.ei, NULL, 1, nh, false},
        {"hdisp_p", c->hdisp.p, NULL, 1, nh * SCENE_MAX_POLES, false},
        {"hdisp_pold", c->hdisp.pold, NULL, 1, nh * SCENE_MAX_POLES, false},
        {"ez_dft_re", c->re, NULL, nf * (size_t)c->ny, nx, true},
        {"ez_dft_im", c->im, NULL, nf * (size_t)c->ny, nx, true},
    };
    CK(cudaSetDevice(c->dev));
    int rc = 0;
    for (size_t k = 0; k < sizeof a / sizeof a[0] && !rc; k++) {
        if (!a[k].dev || !a[k].rows || !a[k].w)
            continue;
        const size_t n = a[k].rows * a[k].w;
        const size_t pitch = a[k].padded ? px * es : a[k].w * es; /* device row pitch */
        void *h = malloc(n * es);
        if (!h)
            return seterr(err, errlen, "cuda 2D: out of host memory for the checkpoint");
        cudaError_t ce = cudaSuccess;
        if (!io->load)
            ce = cudaMemcpy2D(h, a[k].w * es, a[k].dev, pitch, a[k].w * es, a[k].rows,
                              cudaMemcpyDeviceToHost);
        if (ce != cudaSuccess)
            rc = seterr(err, errlen, "cuda 2D: checkpoint of %s: %s", a[k].name,
                        cudaGetErrorString(ce));
        else
            rc = io->array(io, a[k].name, h, n, err, errlen);
        for (int t = 0; t < 2 && !rc && io->load; t++) {
            void *dev = t ? a[k].twin : a[k].dev;
            if (dev && (ce = cudaMemcpy2D(dev, pitch, h, a[k].w * es, a[k].w * es, a[k].rows,
                                          cudaMemcpyHostToDevice)) != cudaSuccess)
                rc = seterr(err, errlen, "cuda 2D: checkpoint of %s: %s", a[k].name,
                            cudaGetErrorString(ce));
        }
        free(h);
    }
    if (!rc && io->load)
        c->smp.rows = 0;
    return rc;
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
    /* the ping-pong twin too: cells a step never updates (the outer ring,
     * the last Hx row and Hy column) must read the same in both */
    void *twin = f == FIELD_EZ ? c->ez_b : f == FIELD_HX ? c->hx_b : f == FIELD_HY ? c->hy_b : NULL;
    if (twin)
        CK(cudaMemcpy2D(twin, c->px * es, src, c->nx * es, c->nx * es, c->ny, cudaMemcpyHostToDevice));
    return 0;
}

/* The blow-up check on the device (cuda_first_bad), the fields in
 * scene_fields() order (ez, hx, hy). */
static int cuda2d_check_finite(struct engine *e, enum field *f, size_t *cell, char *err,
                               size_t errlen)
{
    cuda2d_engine *c = (cuda2d_engine *)e;
    enum field order[6];
    const int nf = scene_fields(e->model->scene, order);
    const void *a[6];
    for (int k = 0; k < nf; k++)
        a[k] = field_ptr(c, order[k]);
    unsigned long long first[6];
    CK(cudaSetDevice(c->dev));
    if (cuda_first_bad(a, nf, c->nx, c->ny, c->px, c->es, &c->first_bad, first, err, errlen))
        return -1;
    for (int k = 0; k < nf; k++)
        if (first[k] != ~0ull) {
            *f = order[k];
            *cell = (size_t)first[k];
            return 1;
        }
    return 0;
}

static int cuda2d_read_samples(struct engine *e, void *dst, int rows, char *err, size_t errlen)
{
    cuda2d_engine *c = (cuda2d_engine *)e;
    CK(cudaSetDevice(c->dev));
    return cuda_samples_read(&c->smp, e->model, c->es, dst, rows, err, errlen);
}

static void cuda2d_describe(const struct engine *e, struct engine_info *info)
{
    const cuda2d_engine *c = (const cuda2d_engine *)e;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(info->engine, sizeof info->engine, "cuda");
    snprintf(info->device, sizeof info->device, "%.250s", c->devname);
    snprintf(info->detail, sizeof info->detail,
             "2D %s, %s path (K %d, R %d%s), CUDA driver %d, runtime %d, row pitch %d, denormals %s%s%s%s%s%s%s%s%s%s",
             e->model->scene->te ? "TE" : "TMz",
             path2_name[c->path], c->path == PATH2_TEMPORAL ? c->K : 1, c->R,
             c->vec && c->N == 0 ? ", vec" : "", drv, rt, c->px,
             e->opt.precision == PRECISION_DOUBLE ? "keep (double)" : denormals_name(e->opt.denormals),
             !e->model->nsamples ? ""
             : c->path == PATH2_TEMPORAL ? ", monitor samples gathered in k_tb2"
                                         : ", monitor samples gathered after each step",
             e->model->ncut ? ", conformal PEC cut edges" : "",
             e->model->ntecut ? ", TE conformal cut cells" : "",
             e->model->hmat ? ", H-node map" : "", e->model->hlossy ? ", lossy TE edges" : "",
             e->model->ndisp ? ", dispersive cells" : "",
             e->model->nhdisp ? ", dispersive TE edges" : "",
             e->model->nhoff ? ", off-diagonal TE edges" : "",
             e->model->nslots + e->model->nhslots + e->model->ndisp + e->model->nhdisp == 0 ? ""
             : c->dev_values ? ", incident values on the device"
                             : ", incident values from the host");
}

extern "C" const struct engine_ops cuda_engine_ops = {
    "cuda",
    ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_DFT | ENGINE_CAP_POINT | ENGINE_CAP_MONITORS
        | ENGINE_CAP_DFT_MULTI | ENGINE_CAP_CONFORMAL | ENGINE_CAP_LOSSY | ENGINE_CAP_TE
        | ENGINE_CAP_MAGNETIC | ENGINE_CAP_DISPERSIVE | ENGINE_CAP_TE_LOSSY
        | ENGINE_CAP_TE_DISPERSIVE | ENGINE_CAP_TE_CONFORMAL | ENGINE_CAP_TE_OFFDIAG,
    "2D CUDA, float or double, bit-identical to cpu in flush mode",
    cuda2d_create,
    cuda2d_step,
    cuda2d_read,
    cuda2d_describe,
    cuda2d_destroy,
    cuda2d_write,
    NULL, /* render_rgba */
    cuda2d_check_finite,
    cuda2d_state,
    cuda2d_read_samples,
};
