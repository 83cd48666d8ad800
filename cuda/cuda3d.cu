/* cuda3d.cu - the 3D CUDA engine: the update of cpu/update3d.inc, statement
 * for statement, float or double, with the CPML scheduled three ways
 * (Toivanen et al. 2011, "[boundary] strategy"):
 *   A1 combined:  psi updated inside the field kernels, where the cell lies
 *                 in a slab (one H and one E kernel over the whole grid);
 *   A2 regions:   a plain kernel over the interior box (no psi code) and one
 *                 kernel over the 26 PML regions (full update with psi);
 *   A3 per-face:  first one specialised kernel per face pair and field
 *                 (x, y, z normal) that updates exactly two psi (the psi
 *                 update reads only the other field, final at that point),
 *                 then a field kernel over the whole grid that reads the new
 *                 psi where a cell lies in a slab: d*ik + psi inside the
 *                 update's expression.
 * All three evaluate update3d.inc's expression per cell in its order, so they
 * agree bit for bit with each other and with cpu3d in float/FTZ and double.
 * (Until 2026-11-22 A3 ran the field kernel first with d*ik alone and the
 * face kernels then added ch*psi: ((h - ch*(a - b*ik)) + ch*psi) instead of
 * h - ch*(a - (b*ik + psi)), a different rounding order, rel L2 ~1e-6.)
 *
 * Materials as update3d.inc: each E component by the map of
 * cpu3d_e_materials (cpu/cpu3d.c: the corner's material, vacuum on an edge
 * that leaves a PEC corner for a vacuum one) and cezh[component][index].
 * Staggering as update3d.inc: cell (i, j, k) holds Ex(i+1/2, j, k),
 * Ey(i, j+1/2, k), Ez(i, j, k+1/2), Hx(i, j+1/2, k+1/2), Hy(i+1/2, j, k+1/2),
 * Hz(i+1/2, j+1/2, k).  Arrays are [nz][ny][px] with the row pitch px = nx
 * rounded up to 32 elements, so every row starts on a 128-byte (float) line
 * and a warp reads one aligned, coalesced row segment (the coalescing
 * paper); threads map to (i, j) of one plane (32 x 8 blocks, a thread per
 * cell, the thread-mapping excerpt's x-y mapping, z from the grid).
 */
#include "common.cuh"
#include "cuda_api.h"
extern "C" {
#include "core/decomp.h"
#include "core/slab3d.h"
/* The E materials of a slab (cpu/cpu3d.c): the map, the coefficient of each
 * component by map index, and what an Ez's source slot does. */
int cpu3d_e_materials(const struct model *m, int kb, int nzl, uint8_t *map,
                      float cezh_f[3][MODEL_MAX_MATERIALS], double cezh_d[3][MODEL_MAX_MATERIALS],
                      uint8_t slot_kind[MODEL_MAX_MATERIALS], char *err, size_t errlen);
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PSI_EXY, PSI_EXZ, PSI_EYX, PSI_EYZ, PSI_EZX, PSI_EZY,
       PSI_HXY, PSI_HXZ, PSI_HYX, PSI_HYZ, PSI_HZX, PSI_HZY, PSI_COUNT };
static const int psi_axis_of[PSI_COUNT] = {1, 2, 0, 2, 0, 1, 1, 2, 0, 2, 0, 1};
enum { P_XE, P_XH, P_YE, P_YH, P_ZE, P_ZH };
/* psi code in the field kernels: none; update and use (A1, A2); use the psi
 * the A3 face kernels have just updated (MODE_KAPPA, the 1/kappa term plus
 * the stored psi) */
enum { MODE_NONE, MODE_INLINE, MODE_KAPPA };

/* cezh of E component a (0 x, 1 y, 2 z) by the cell's E material
 * (cpu3d_e_materials: the corner's material, but vacuum on an edge that
 * leaves a PEC corner for a vacuum one) */
__constant__ float c_cezh_f[3][MODEL_MAX_MATERIALS];
__constant__ double c_cezh_d[3][MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T cezh(int a, uint8_t m);
template <> __device__ __forceinline__ float cezh<float>(int a, uint8_t m) { return c_cezh_f[a][m]; }
template <> __device__ __forceinline__ double cezh<double>(int a, uint8_t m) { return c_cezh_d[a][m]; }

template <typename T> struct Dev3 {
    T *ex, *ey, *ez, *hx, *hy, *hz;
    T *psi[PSI_COUNT];
    const uint8_t *mat;
    const T *pb[6], *pc[6], *pik[6]; /* CPML profiles xe xh ye yh ze zh */
    int nx, ny, nz, px, N;
    long long sy, sz;
    T ch;
    int uncoalesced; /* the coalescing paper's un-coalesced thread mapping (bench only) */
    /* MPI z slab (core/decomp.h): the arrays hold planes kb .. (local plane
     * 0 is global plane kb); this rank updates planes k0 .. k0+nzo-1, for
     * which the x and y psi are held; the z psi hold the sides zs0 ..
     * One rank: kb = k0 = zs0 = 0, nzo = nz.  k is global in every kernel. */
    int kb, k0, nzo, zs0;
};

struct Box {
    int x0, x1, y0, y1, z0, z1;
};

/* psi offsets (see update3d.inc), with the pitch px for rows; x and y psi
 * over this rank's planes k0 .., z psi over the sides zs0 .. it holds */
template <typename T>
__device__ __forceinline__ long long psi_x(const Dev3<T> &d, int side, int k, int j, int kx)
{
    return (((long long)side * d.nzo + (k - d.k0)) * d.ny + j) * d.N + kx;
}
template <typename T>
__device__ __forceinline__ long long psi_y(const Dev3<T> &d, int side, int k, int ky, int i)
{
    return (((long long)side * d.nzo + (k - d.k0)) * d.N + ky) * d.px + i;
}
template <typename T>
__device__ __forceinline__ long long psi_z(const Dev3<T> &d, int side, int kz, int j, int i)
{
    return (((long long)(side - d.zs0) * d.N + kz) * d.ny + j) * d.px + i;
}
/* The array index of cell (i, j, k), k global. */
template <typename T> __device__ __forceinline__ long long cell3(const Dev3<T> &d, int i, int j, int k)
{
    return i + j * d.sy + (long long)(k - d.kb) * d.sz;
}

/* One CPML term: psi = b psi + c d; d ik + psi (MODE_INLINE), d ik (KAPPA). */
template <typename T, bool F, int MODE>
__device__ __forceinline__ T term(const Dev3<T> &d, T dd, int side, T *psi, int prof, int pos)
{
    typedef Ar<T, F> A;
    if (MODE == MODE_NONE || side < 0)
        return dd;
    if (MODE == MODE_KAPPA) /* A3: psi already updated by the face kernels */
        return A::add(A::mul(dd, d.pik[prof][pos]), *psi);
    const T p = A::add(A::mul(d.pb[prof][pos], *psi), A::mul(d.pc[prof][pos], dd));
    *psi = p;
    return A::add(A::mul(dd, d.pik[prof][pos]), p);
}

/* H of cell (i, j, k): Hx, Hy, Hz in update3d.inc's order. */
template <typename T, bool F, int MODE>
__device__ __forceinline__ void h_cell(const Dev3<T> &d, int i, int j, int k)
{
    typedef Ar<T, F> A;
    const long long c = cell3(d, i, j, k);
    int kx = 0, ky = 0, kz = 0, xs = -1, ys = -1, zs = -1;
    if (MODE != MODE_NONE) {
        xs = dslab_h(d.nx, d.N, i, &kx);
        ys = dslab_h(d.ny, d.N, j, &ky);
        zs = dslab_h(d.nz, d.N, k, &kz);
    }
    const T ch = d.ch;
    if (j <= d.ny - 2 && k <= d.nz - 2) {
        const T dy = A::sub(d.ez[c + d.sy], d.ez[c]), dz = A::sub(d.ey[c + d.sz], d.ey[c]);
        const T ty = term<T, F, MODE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_HXY] + psi_y(d, ys, k, ky, i), P_YH, j);
        const T tz = term<T, F, MODE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_HXZ] + psi_z(d, zs, kz, j, i), P_ZH, k);
        d.hx[c] = A::sub(d.hx[c], A::mul(ch, A::sub(ty, tz)));
    }
    if (i <= d.nx - 2 && k <= d.nz - 2) {
        const T dz = A::sub(d.ex[c + d.sz], d.ex[c]), dx = A::sub(d.ez[c + 1], d.ez[c]);
        const T tz = term<T, F, MODE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_HYZ] + psi_z(d, zs, kz, j, i), P_ZH, k);
        const T tx = term<T, F, MODE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_HYX] + psi_x(d, xs, k, j, kx), P_XH, i);
        d.hy[c] = A::sub(d.hy[c], A::mul(ch, A::sub(tz, tx)));
    }
    if (i <= d.nx - 2 && j <= d.ny - 2) {
        const T dx = A::sub(d.ey[c + 1], d.ey[c]), dy = A::sub(d.ex[c + d.sy], d.ex[c]);
        const T tx = term<T, F, MODE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_HZX] + psi_x(d, xs, k, j, kx), P_XH, i);
        const T ty = term<T, F, MODE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_HZY] + psi_y(d, ys, k, ky, i), P_YH, j);
        d.hz[c] = A::sub(d.hz[c], A::mul(ch, A::sub(tx, ty)));
    }
}

/* E of cell (i, j, k): Ex, Ey, Ez in update3d.inc's order. */
template <typename T, bool F, int MODE>
__device__ __forceinline__ void e_cell(const Dev3<T> &d, int i, int j, int k)
{
    typedef Ar<T, F> A;
    const long long c = cell3(d, i, j, k);
    int kx = 0, ky = 0, kz = 0, xs = -1, ys = -1, zs = -1;
    if (MODE != MODE_NONE) {
        xs = dslab_e(d.nx, d.N, i, &kx);
        ys = dslab_e(d.ny, d.N, j, &ky);
        zs = dslab_e(d.nz, d.N, k, &kz);
    }
    const uint8_t mc = d.mat[c];
    const bool jin = j >= 1 && j <= d.ny - 2, kin = k >= 1 && k <= d.nz - 2,
               iin = i >= 1 && i <= d.nx - 2;
    if (i <= d.nx - 2 && jin && kin) {
        const T dy = A::sub(d.hz[c], d.hz[c - d.sy]), dz = A::sub(d.hy[c], d.hy[c - d.sz]);
        const T ty = term<T, F, MODE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_EXY] + psi_y(d, ys, k, ky, i), P_YE, j);
        const T tz = term<T, F, MODE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_EXZ] + psi_z(d, zs, kz, j, i), P_ZE, k);
        d.ex[c] = A::add(d.ex[c], A::mul(cezh<T>(0, mc), A::sub(ty, tz)));
    }
    if (iin && j <= d.ny - 2 && kin) {
        const T dz = A::sub(d.hx[c], d.hx[c - d.sz]), dx = A::sub(d.hz[c], d.hz[c - 1]);
        const T tz = term<T, F, MODE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_EYZ] + psi_z(d, zs, kz, j, i), P_ZE, k);
        const T tx = term<T, F, MODE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_EYX] + psi_x(d, xs, k, j, kx), P_XE, i);
        d.ey[c] = A::add(d.ey[c], A::mul(cezh<T>(1, mc), A::sub(tz, tx)));
    }
    if (iin && jin && k <= d.nz - 2) {
        const T dx = A::sub(d.hy[c], d.hy[c - 1]), dy = A::sub(d.hx[c], d.hx[c - d.sy]);
        const T tx = term<T, F, MODE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_EZX] + psi_x(d, xs, k, j, kx), P_XE, i);
        const T ty = term<T, F, MODE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_EZY] + psi_y(d, ys, k, ky, i), P_YE, j);
        d.ez[c] = A::add(d.ez[c], A::mul(cezh<T>(2, mc), A::sub(tx, ty)));
    }
}

/* Field kernels over a box: a thread per (i, j), blockIdx.z = plane.  The
 * lanes of a warp take consecutive i (x is the fastest index in memory), so
 * its loads are coalesced; with U (the coalescing paper's counter-example,
 * for the benchmark) they take consecutive j instead, a row pitch apart.
 * The cell's arithmetic, and so its bits, is the same either way. */
template <typename T, bool F, int MODE, bool E, bool U = false>
__global__ void __launch_bounds__(256) k_field(Dev3<T> d, Box b)
{
    const int i = b.x0 + (U ? blockIdx.x * blockDim.y + threadIdx.y : blockIdx.x * blockDim.x + threadIdx.x);
    const int j = b.y0 + (U ? blockIdx.y * blockDim.x + threadIdx.x : blockIdx.y * blockDim.y + threadIdx.y);
    const int k = b.z0 + blockIdx.z;
    if (i >= b.x1 || j >= b.y1)
        return;
    if (E)
        e_cell<T, F, MODE>(d, i, j, k);
    else
        h_cell<T, F, MODE>(d, i, j, k);
}

/* A2: the 26 PML regions in one launch; blockIdx.y picks the region, whose
 * cells the blocks walk x fastest (grid-stride). */
struct Regions {
    Box box[26];
    int n;
};
template <typename T, bool F, bool E> __global__ void k_regions(Dev3<T> d, Regions r)
{
    const Box b = r.box[blockIdx.y];
    const int wx = b.x1 - b.x0, wy = b.y1 - b.y0;
    const long long n = (long long)wx * wy * (b.z1 - b.z0);
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
         t += (long long)gridDim.x * blockDim.x) {
        const int i = b.x0 + (int)(t % wx), j = b.y0 + (int)(t / wx % wy), k = b.z0 + (int)(t / wx / wy);
        if (E)
            e_cell<T, F, MODE_INLINE>(d, i, j, k);
        else
            h_cell<T, F, MODE_INLINE>(d, i, j, k);
    }
}

/* A3: one face pair (both sides) of one axis, H or E: update the two psi
 * whose derivative runs along AXIS (psi = b psi + c d, where update3d.inc
 * updates them); the field kernel that follows adds d*ik + psi inside its
 * expression.  Threads x fastest over the slab box.
 * For the x-normal faces (whose normal is the fastest axis in our layout,
 * the paper's hard z-normal case) a block is 16 slab columns x 16 rows and
 * the row segment of the differenced field is staged through shared memory,
 * so global reads are whole contiguous row segments. */
template <typename T, bool F, bool E, int AXIS> __global__ void k_face(Dev3<T> d, int side, int za, int zb)
{
    typedef Ar<T, F> A;
    const int N = d.N;
    const int n_ax = AXIS == 0 ? d.nx : AXIS == 1 ? d.ny : d.nz;
    /* slab positions along AXIS: E 1..N-1 (left) or n-N..n-2; H 0..N-1 or n-1-N..n-2 */
    const int a0 = side == 0 ? (E ? 1 : 0) : (E ? n_ax - N : n_ax - 1 - N);
    const int a1 = side == 0 ? N - 1 : n_ax - 2;
    int i, j, k;
    /* planes za <= k < zb, a part of this rank's k0 .. k0+nzo-1 (x and y
     * faces over all of them, a z face's slab planes where they lie in it) */
    const int kend = zb;
    if (AXIS == 0) {
        i = a0 + threadIdx.x;
        j = blockIdx.x * blockDim.y + threadIdx.y;
        k = za + blockIdx.y;
    } else {
        i = blockIdx.x * blockDim.x + threadIdx.x;
        j = AXIS == 1 ? a0 + blockIdx.y : blockIdx.y;
        k = AXIS == 2 ? a0 + blockIdx.z : za + blockIdx.z;
    }
    extern __shared__ unsigned char smem_raw[];
    T *s = (T *)smem_raw;
    const long long c = cell3(d, i, j, k);
    /* the two components: for H along x Hy (sign +) and Hz (-) ... see update3d.inc */
    T *f1, *f2, *g1, *g2; /* f: the fields the psi belong to (named for reading; not written) */
    int p1, p2;
    long long off;
    if (!E) {
        off = AXIS == 0 ? 1 : AXIS == 1 ? d.sy : d.sz; /* H: g[c + off] - g[c] */
        if (AXIS == 0) { f1 = d.hy; g1 = d.ez; p1 = PSI_HYX; f2 = d.hz; g2 = d.ey; p2 = PSI_HZX; }
        else if (AXIS == 1) { f1 = d.hx; g1 = d.ez; p1 = PSI_HXY; f2 = d.hz; g2 = d.ex; p2 = PSI_HZY; }
        else { f1 = d.hx; g1 = d.ey; p1 = PSI_HXZ; f2 = d.hy; g2 = d.ex; p2 = PSI_HYZ; }
    } else {
        off = AXIS == 0 ? 1 : AXIS == 1 ? d.sy : d.sz; /* E: g[c] - g[c - off] */
        if (AXIS == 0) { f1 = d.ey; g1 = d.hz; p1 = PSI_EYX; f2 = d.ez; g2 = d.hy; p2 = PSI_EZX; }
        else if (AXIS == 1) { f1 = d.ex; g1 = d.hz; p1 = PSI_EXY; f2 = d.ez; g2 = d.hx; p2 = PSI_EZY; }
        else { f1 = d.ex; g1 = d.hy; p1 = PSI_EXZ; f2 = d.ey; g2 = d.hx; p2 = PSI_EYZ; }
    }
    (void)f1;
    (void)f2;
    const bool inside = AXIS == 0 ? (i <= a1 && j < d.ny && k < kend)
                        : AXIS == 1 ? (i < d.nx && j <= a1 && k < kend)
                                    : (i < d.nx && j < d.ny && k <= a1 && k >= za && k < kend);
    if (AXIS == 0) {
        /* stage g1, g2 of this row segment (and its outer neighbour) in shared memory */
        const int w = blockDim.x + 1, row = threadIdx.y;
        const int first = E ? a0 - 1 : a0; /* E reads c-1, H reads c+1 */
        T *s1 = s + row * 2 * w, *s2 = s1 + w;
        for (int t = threadIdx.x; t < w; t += blockDim.x) {
            const int ii = first + t;
            const bool ok = j < d.ny && k < kend && ii >= 0 && ii < d.nx;
            const long long cc = cell3(d, ii, j, k);
            s1[t] = ok ? g1[cc] : T(0);
            s2[t] = ok ? g2[cc] : T(0);
        }
        __syncthreads();
        if (!inside)
            return;
        const int t = threadIdx.x + (E ? 1 : 0);
        const T d1 = E ? A::sub(s1[t], s1[t - 1]) : A::sub(s1[t + 1], s1[t]);
        const T d2 = E ? A::sub(s2[t], s2[t - 1]) : A::sub(s2[t + 1], s2[t]);
        (void)d1;
        (void)d2;
        /* fall through with the staged differences */
        int kk;
        const int sd = E ? dslab_e(d.nx, N, i, &kk) : dslab_h(d.nx, N, i, &kk);
        (void)sd;
        const int prof = E ? P_XE : P_XH;
        const T b = d.pb[prof][i], cc = d.pc[prof][i];
        const long long pidx = psi_x(d, side, k, j, kk);
        const T q1 = A::add(A::mul(b, d.psi[p1][pidx]), A::mul(cc, d1));
        const T q2 = A::add(A::mul(b, d.psi[p2][pidx]), A::mul(cc, d2));
        /* component ranges on the other axes */
        if (!E) {
            /* Hy: k <= nz-2; Hz: j <= ny-2 */
            if (k <= d.nz - 2) { d.psi[p1][pidx] = q1; }
            if (j <= d.ny - 2) { d.psi[p2][pidx] = q2; }
        } else {
            /* Ey: j <= ny-2, 1 <= k <= nz-2; Ez: 1 <= j <= ny-2, k <= nz-2 */
            if (j <= d.ny - 2 && k >= 1 && k <= d.nz - 2) { d.psi[p1][pidx] = q1; }
            if (j >= 1 && j <= d.ny - 2 && k <= d.nz - 2) { d.psi[p2][pidx] = q2; }
        }
        return;
    }
    if (!inside)
        return;
    const int pos = AXIS == 1 ? j : k;
    int kk;
    if (E)
        dslab_e(n_ax, N, pos, &kk);
    else
        dslab_h(n_ax, N, pos, &kk);
    const int prof = (AXIS == 1 ? P_YE : P_ZE) + (E ? 0 : 1);
    const T b = d.pb[prof][pos], cc = d.pc[prof][pos];
    const long long pidx = AXIS == 1 ? psi_y(d, side, k, kk, i) : psi_z(d, side, kk, j, i);
    const T d1 = E ? A::sub(g1[c], g1[c - off]) : A::sub(g1[c + off], g1[c]);
    const T d2 = E ? A::sub(g2[c], g2[c - off]) : A::sub(g2[c + off], g2[c]);
    const T q1 = A::add(A::mul(b, d.psi[p1][pidx]), A::mul(cc, d1));
    const T q2 = A::add(A::mul(b, d.psi[p2][pidx]), A::mul(cc, d2));
    if (!E) {
        if (AXIS == 1) {
            /* Hx (-ch*ty): all i, k <= nz-2;  Hz (+ch*ty): i <= nx-2 */
            if (k <= d.nz - 2) { d.psi[p1][pidx] = q1; }
            if (i <= d.nx - 2) { d.psi[p2][pidx] = q2; }
        } else {
            /* Hx (+ch*tz): all i, j <= ny-2;  Hy (-ch*tz): i <= nx-2 */
            if (j <= d.ny - 2) { d.psi[p1][pidx] = q1; }
            if (i <= d.nx - 2) { d.psi[p2][pidx] = q2; }
        }
    } else {
        const bool iin = i >= 1 && i <= d.nx - 2;
        if (AXIS == 1) {
            /* Ex (+ce*ty): i <= nx-2, 1 <= k <= nz-2;  Ez (-ce*ty): iin, k <= nz-2 */
            if (i <= d.nx - 2 && k >= 1 && k <= d.nz - 2) { d.psi[p1][pidx] = q1; }
            if (iin && k <= d.nz - 2) { d.psi[p2][pidx] = q2; }
        } else {
            /* Ex (-ce*tz): i <= nx-2, 1 <= j <= ny-2;  Ey (+ce*tz): iin, j <= ny-2 */
            if (i <= d.nx - 2 && j >= 1 && j <= d.ny - 2) { d.psi[p1][pidx] = q1; }
            if (iin && j <= d.ny - 2) { d.psi[p2][pidx] = q2; }
        }
    }
}

/* Mur planes (core/slab3d.h: wall = base + a sa + b sb, neighbour +- step). */
typedef struct mur_plane MurPlane;
template <typename T, bool F, bool APPLY>
__global__ void k_mur(T *e, MurPlane p, T *old, T kmur)
{
    typedef Ar<T, F> A;
    const int wa = p.a1 - p.a0 + 1, wb = p.b1 - p.b0 + 1;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= (long long)wa * wb)
        return;
    const int a = p.a0 + (int)(t % wa), b = p.b0 + (int)(t / wa);
    const long long w = p.base + a * p.sa + b * p.sb;
    const long long nb = p.inward > 0 ? w + p.step : w - p.step;
    if (!APPLY)
        old[t] = e[nb];
    else
        e[w] = A::add(old[t], A::mul(kmur, A::sub(e[nb], e[w])));
}

/* The source slots: kind 1 (PEC) sets Ez, 0 (dielectric) adds, 2 (an Ez
 * edge that leaves a PEC corner for vacuum, cpu3d_e_materials) leaves it. */
template <typename T, bool F>
__global__ void k_slots(T *ez, const long long *cell, const uint8_t *kind, const T *v, long long n)
{
    typedef Ar<T, F> A;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < n && kind[t] != 2)
        ez[cell[t]] = kind[t] ? v[t] : A::add(ez[cell[t]], v[t]);
}

template <typename T, bool F> __global__ void k_point(T *ez, long long c, T v)
{
    ez[c] = Ar<T, F>::add(ez[c], v);
}

/* The monitors' samples (core/monitor.h) of this step into one row: value
 * t is field f[q[t]] at array index at[t].  A plain copy: the bits the
 * fields hold. */
template <typename T> struct Six {
    const T *f[6];
};
template <typename T>
__global__ void k_gather(Six<T> s, const long long *at, const uint8_t *q, T *row, long long n)
{
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < n)
        row[t] = s.f[q[t]][at[t]];
}

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
template <typename T> struct PP3 {
    Dev3<T> o;                              /* old fields, E psi (in place), old H psi */
    T *ex1, *ey1, *ez1, *hx1, *hy1, *hz1;   /* new fields */
    T *hpsi1[PSI_COUNT];                    /* new H psi (indices PSI_HXY..PSI_HZY) */
};

#define FULL_MASK3 0xffffffffu

/* psi = b psi + c d; d ik + psi, with the old psi from `old`, the new one
 * stored into `nw` when given (the owner). */
template <typename T, bool F>
__device__ __forceinline__ T term_pp(const Dev3<T> &d, T dd, const T *old, T *nw, long long p,
                                     int prof, int pos)
{
    typedef Ar<T, F> A;
    const T q = A::add(A::mul(d.pb[prof][pos], old[p]), A::mul(d.pc[prof][pos], dd));
    if (nw)
        nw[p] = q;
    return A::add(A::mul(dd, d.pik[prof][pos]), q);
}

/* The three H components of cell (i, j, k), update3d.inc's statements; dy..
 * are the differences, h the old value; returns the new value.  rd: the cell
 * lies in the grid (psi may be read); own: this thread owns it (psi written). */
template <typename T, bool F, bool PML>
__device__ __forceinline__ T hx3(const PP3<T> &p, int i, int j, int k, bool rd, T dy, T dz, T h, bool own)
{
    typedef Ar<T, F> A;
    const Dev3<T> &d = p.o;
    if (j > d.ny - 2 || k > d.nz - 2)
        return h;
    T ty = dy, tz = dz;
    if (PML && rd) {
        int ky, kz;
        const int ys = dslab_h(d.ny, d.N, j, &ky), zs = dslab_h(d.nz, d.N, k, &kz);
        if (ys >= 0)
            ty = term_pp<T, F>(d, dy, d.psi[PSI_HXY], own ? p.hpsi1[PSI_HXY] : (T *)0, psi_y(d, ys, k, ky, i), P_YH, j);
        if (zs >= 0)
            tz = term_pp<T, F>(d, dz, d.psi[PSI_HXZ], own ? p.hpsi1[PSI_HXZ] : (T *)0, psi_z(d, zs, kz, j, i), P_ZH, k);
    }
    return A::sub(h, A::mul(d.ch, A::sub(ty, tz)));
}
template <typename T, bool F, bool PML>
__device__ __forceinline__ T hy3(const PP3<T> &p, int i, int j, int k, bool rd, T dz, T dx, T h, bool own)
{
    typedef Ar<T, F> A;
    const Dev3<T> &d = p.o;
    if (i > d.nx - 2 || k > d.nz - 2)
        return h;
    T tz = dz, tx = dx;
    if (PML && rd) {
        int kx, kz;
        const int xs = dslab_h(d.nx, d.N, i, &kx), zs = dslab_h(d.nz, d.N, k, &kz);
        if (zs >= 0)
            tz = term_pp<T, F>(d, dz, d.psi[PSI_HYZ], own ? p.hpsi1[PSI_HYZ] : (T *)0, psi_z(d, zs, kz, j, i), P_ZH, k);
        if (xs >= 0)
            tx = term_pp<T, F>(d, dx, d.psi[PSI_HYX], own ? p.hpsi1[PSI_HYX] : (T *)0, psi_x(d, xs, k, j, kx), P_XH, i);
    }
    return A::sub(h, A::mul(d.ch, A::sub(tz, tx)));
}
template <typename T, bool F, bool PML>
__device__ __forceinline__ T hz3(const PP3<T> &p, int i, int j, int k, bool rd, T dx, T dy, T h, bool own)
{
    typedef Ar<T, F> A;
    const Dev3<T> &d = p.o;
    if (i > d.nx - 2 || j > d.ny - 2)
        return h;
    T tx = dx, ty = dy;
    if (PML && rd) {
        int kx, ky;
        const int xs = dslab_h(d.nx, d.N, i, &kx), ys = dslab_h(d.ny, d.N, j, &ky);
        if (xs >= 0)
            tx = term_pp<T, F>(d, dx, d.psi[PSI_HZX], own ? p.hpsi1[PSI_HZX] : (T *)0, psi_x(d, xs, k, j, kx), P_XH, i);
        if (ys >= 0)
            ty = term_pp<T, F>(d, dy, d.psi[PSI_HZY], own ? p.hpsi1[PSI_HZY] : (T *)0, psi_y(d, ys, k, ky, i), P_YH, j);
    }
    return A::sub(h, A::mul(d.ch, A::sub(tx, ty)));
}

/* E of cell (i, j, k) from the new H around it; E psi in place (owner only). */
template <typename T, bool F, bool PML>
__device__ __forceinline__ void e3(const PP3<T> &p, int i, int j, int k, uint8_t mc, T &ex, T &ey, T &ez,
                                   T hx, T hy, T hz, T hz_jm, T hy_km, T hx_km, T hz_im, T hy_im,
                                   T hx_jm)
{
    typedef Ar<T, F> A;
    const Dev3<T> &d = p.o;
    int kx = 0, ky = 0, kz = 0, xs = -1, ys = -1, zs = -1;
    if (PML) {
        xs = dslab_e(d.nx, d.N, i, &kx);
        ys = dslab_e(d.ny, d.N, j, &ky);
        zs = dslab_e(d.nz, d.N, k, &kz);
    }
    const bool jin = j >= 1 && j <= d.ny - 2, kin = k >= 1 && k <= d.nz - 2,
               iin = i >= 1 && i <= d.nx - 2;
    if (i <= d.nx - 2 && jin && kin) {
        const T dy = A::sub(hz, hz_jm), dz = A::sub(hy, hy_km);
        const T ty = term<T, F, MODE_INLINE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_EXY] + psi_y(d, ys, k, ky, i), P_YE, j);
        const T tz = term<T, F, MODE_INLINE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_EXZ] + psi_z(d, zs, kz, j, i), P_ZE, k);
        ex = A::add(ex, A::mul(cezh<T>(0, mc), A::sub(ty, tz)));
    }
    if (iin && j <= d.ny - 2 && kin) {
        const T dz = A::sub(hx, hx_km), dx = A::sub(hz, hz_im);
        const T tz = term<T, F, MODE_INLINE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_EYZ] + psi_z(d, zs, kz, j, i), P_ZE, k);
        const T tx = term<T, F, MODE_INLINE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_EYX] + psi_x(d, xs, k, j, kx), P_XE, i);
        ey = A::add(ey, A::mul(cezh<T>(1, mc), A::sub(tz, tx)));
    }
    if (iin && jin && k <= d.nz - 2) {
        const T dx = A::sub(hy, hy_im), dy = A::sub(hx, hx_jm);
        const T tx = term<T, F, MODE_INLINE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_EZX] + psi_x(d, xs, k, j, kx), P_XE, i);
        const T ty = term<T, F, MODE_INLINE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_EZY] + psi_y(d, ys, k, ky, i), P_YE, j);
        ez = A::add(ez, A::mul(cezh<T>(2, mc), A::sub(tx, ty)));
    }
}

/* A tile: x band (32 columns), y band (BY rows), planes [k0, k1).  hb: the
 * H of plane k0-1 is not recomputed but read from the new buffers, where
 * the halo exchange put the rank below's (MPI: the bottom plane of a slab,
 * whose E needs this step's H of a plane another rank updates). */
struct Tile3 {
    int bx, by, k0, k1, hb;
};

template <typename T, bool F, bool PML, int BY>
__global__ void __launch_bounds__(32 * (BY + 1), PML && sizeof(T) == 8 ? 3 : 4) k_fused3(PP3<T> p, const Tile3 *tiles)
{
    typedef Ar<T, F> A;
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
            hx = hx3<T, F, PML>(p, i, j, k, ok, A::sub(ezj, ezc), A::sub(eyu, eyc), hxo, ownk);
            hy = hy3<T, F, PML>(p, i, j, k, ok, A::sub(exu, exc), A::sub(ezi, ezc), hyo, ownk);
            hz = hz3<T, F, PML>(p, i, j, k, ok, A::sub(eyi, eyc), A::sub(exj, exc), hzo, ownk);
        }
        if (k >= k0) {
            T hz_im = __shfl_up_sync(FULL_MASK3, hz, 1), hy_im = __shfl_up_sync(FULL_MASK3, hy, 1);
            if (lane == 0 && own && i_dn) {
                /* Hz(i-1, j, k) and Hy(i-1, j, k), recomputed (not stored) */
                const long long cl = c - 1;
                const T exl = d.ex[cl];
                const T exlj = j_up ? d.ex[cl + sy] : T(0), exlk = k_up ? d.ex[cl + sz] : T(0);
                hz_im = hz3<T, F, PML>(p, i - 1, j, k, true, A::sub(eyc, d.ey[cl]), A::sub(exlj, exl), d.hz[cl], false);
                hy_im = hy3<T, F, PML>(p, i - 1, j, k, true, A::sub(exlk, exl), A::sub(ezc, d.ez[cl]), d.hy[cl], false);
            }
            s_hx[w][lane] = hx;
            s_hz[w][lane] = hz;
            __syncthreads();
            if (own) {
                p.hx1[c] = hx;
                p.hy1[c] = hy;
                p.hz1[c] = hz;
                T ex = exc, ey = eyc, ez = ezc;
                e3<T, F, PML>(p, i, j, k, d.mat[c], ex, ey, ez, hx, hy, hz, s_hz[w - 1][lane],
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
    typedef Ar<T, F> A;
    const int wa = p.a1 - p.a0 + 1, wb = p.b1 - p.b0 + 1;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= (long long)wa * wb)
        return;
    const int a = p.a0 + (int)(t % wa), b = p.b0 + (int)(t / wa);
    const long long w = p.base + a * p.sa + b * p.sb;
    const long long nb = p.inward > 0 ? w + p.step : w - p.step;
    e1[w] = A::add(e0[nb], A::mul(kmur, A::sub(e1[nb], e0[w])));
}

/* The fused kernel's tiles of one z range, in two device tables: [0] no
 * CPML cell in the tile or its halo, [1] the others. */
struct TileSet {
    Tile3 *t[2];
    size_t n[2];
};
/* The parts of a slab under MPI (step_fused): the body k0+1 .. k1-2, the
 * top plane k1-1 (its Hx, Hy then go up) and the bottom plane k0 (hb: after
 * the rank below's Hx, Hy have come).  One rank: the body is every plane. */
enum { TS_BODY, TS_TOP, TS_BOTTOM, TS_COUNT };

/* What a plane of a z CPML slab costs against an interior plane when the
 * planes are split over ranks (measured: docs/performance.md). */
#define SPLIT_W_CPML 2.1

/* How the halo planes travel between ranks (MPI only). */
enum halo_mode { HALO_NONE, HALO_HOST, HALO_NCCL, HALO_SKIP };
static const char *const halo_names[] = {"none", "host-staged", "nccl", "SKIPPED (benchmark only: fields wrong)"};

/* The halo exchange timer: pairs of events around each exchange on the
 * stream that runs it, summed once they have completed (a ring, so that the
 * host never waits on an exchange younger than RING exchanges, RING/2 steps). */
enum { RING = 16 };

struct cuda3d_engine {
    struct engine base;
    int dev;
    char devname[320];
    int nx, ny, nz, px, N;
    size_t plane, cells; /* padded; cells: the local planes (all nz on one rank) */
    /* MPI z slab (core/decomp.h; plane = nx*ny values, the unpadded plane
     * the host-staged exchange and the gather carry): arrays hold nzl
     * planes from global plane kb; the rank updates k0 <= k < k1 */
    struct decomp dc;
    int kb, k0, k1, nzl;
    int zs0, zsides; /* the z psi hold sides zs0 .. zs0+zsides-1 */
    size_t s0, ns;   /* source slots s0 .. s0+ns-1 are this rank's */
    bool point;      /* this rank owns the point source cell ... */
    long long pc;    /* ... at this array index */
    enum halo_mode halo;
    void *stage[4];  /* host-staged: pinned planes, send Hx/Ex, Hy/Ey, receive the same */
    void *gather_h;  /* read_field under MPI: the local planes on the host */
    cudaStream_t xs; /* NCCL: the exchange stream (non-blocking) */
    cudaEvent_t ev_ready[2], ev_done[2]; /* [0] after H (Hx, Hy up), [1] after E (Ex, Ey down) */
    cudaEvent_t tm[RING][2];
    bool tm_pend[RING];
    int tm_next;
    double halo_ms;   /* exchange time so far (ms) */
    long long halo_n; /* exchanges so far */
    bool failed;      /* a step failed: leave NCCL alone in destroy */
    void *nccl;       /* ncclComm_t when halo == HALO_NCCL */
    enum pml_strategy strat;
    void *f[6];
    void *psi[PSI_COUNT];
    /* fused path: the other buffer of each ping-pong pair (fields, H psi);
     * f[] and psi[] always name the current ones */
    bool fused;
    int kz; /* planes per block */
    bool uncoalesced; /* TEXFDTD_CUDA3D_MAP=uncoalesced (two-kernel path, bench only) */
    /* the fused kernel's tiles (build_tiles): on one rank ts[TS_BODY] holds
     * them all; under MPI the three parts of a slab step_fused launches */
    TileSet ts[TS_COUNT];
    /* fused under MPI: the top and bottom planes' stream, of the highest
     * priority, beside the body on the default stream; ev_step: the step so
     * far on the default stream, ev_edges: both edge planes done */
    cudaStream_t ps;
    cudaEvent_t ev_step, ev_edges;
    void *fb[6];
    void *psib[PSI_COUNT];
    void *prof[6][3];
    uint8_t *mat;      /* the E materials (cpu3d_e_materials), padded like the fields */
    uint8_t *mat_h;    /* the same on the host while the engine is made, [nzl][ny][nx] */
    float cezh3_f[3][MODEL_MAX_MATERIALS];
    double cezh3_d[3][MODEL_MAX_MATERIALS];
    uint8_t slot_kind[MODEL_MAX_MATERIALS];
    MurPlane mur[MUR_PLANES];
    void *mur_old[MUR_PLANES];
    long long *slot_cell;
    uint8_t *slot_pec; /* per slot: k_slots's kind */
    void *slot_v_d, *slot_v_h;
    /* recorded after each copy out of the pinned slot_v_h / slot_vk_h: a
     * cudaMemcpyAsync from pinned memory reads it when the copy runs, not
     * when it is queued, so the host waits on it before refilling */
    cudaEvent_t slot_ev;
    Regions regions;
    unsigned long long *first_bad; /* the blow-up check: [6] first bad cell per field */
    /* the monitors' samples in this rank's planes (decomp_own_samples, in
     * the model's order): a gather kernel after each step copies them into
     * the next row of smp_rows; read_samples copies the rows out at once */
    size_t nown;
    long long *smp_at; /* per sample: its array index (padded, local planes) */
    uint8_t *smp_f;    /* per sample: its field, as an index of f[] */
    void *smp_rows;    /* [model->sample_rows][nown] */
    void *smp_h;       /* MPI: the rows on the host, for the gather on rank 0 */
    int smp_n;         /* rows recorded since the last read */
};

template <typename T> static Dev3<T> dev_view(const cuda3d_engine *c, const struct model *m)
{
    Dev3<T> d;
    memset(&d, 0, sizeof d);
    d.ex = (T *)c->f[0];
    d.ey = (T *)c->f[1];
    d.ez = (T *)c->f[2];
    d.hx = (T *)c->f[3];
    d.hy = (T *)c->f[4];
    d.hz = (T *)c->f[5];
    for (int k = 0; k < PSI_COUNT; k++)
        d.psi[k] = (T *)c->psi[k];
    d.mat = c->mat;
    for (int k = 0; k < 6; k++) {
        d.pb[k] = (const T *)c->prof[k][0];
        d.pc[k] = (const T *)c->prof[k][1];
        d.pik[k] = (const T *)c->prof[k][2];
    }
    d.nx = c->nx;
    d.ny = c->ny;
    d.nz = c->nz;
    d.px = c->px;
    d.N = c->N;
    d.sy = c->px;
    d.sz = (long long)c->px * c->ny;
    d.ch = sizeof(T) == 4 ? (T)m->ch_f : (T)m->ch;
    d.uncoalesced = c->uncoalesced;
    d.kb = c->kb;
    d.k0 = c->k0;
    d.nzo = c->k1 - c->k0;
    d.zs0 = c->zs0;
    return d;
}

static int field_launch_box(const Box &b, dim3 *grid, dim3 *block)
{
    *block = dim3(32, 8, 1);
    *grid = dim3((unsigned)((b.x1 - b.x0 + 31) / 32), (unsigned)((b.y1 - b.y0 + 7) / 8),
                 (unsigned)(b.z1 - b.z0));
    return b.x1 > b.x0 && b.y1 > b.y0 && b.z1 > b.z0;
}

template <typename T, bool F, int MODE, bool E>
static void launch_field(const Dev3<T> &d, const Box &b)
{
    dim3 g, bl;
    if (!field_launch_box(b, &g, &bl))
        return;
    if (d.uncoalesced) {
        /* 32 lanes along j, 8 rows along i */
        g = dim3((unsigned)((b.x1 - b.x0 + 7) / 8), (unsigned)((b.y1 - b.y0 + 31) / 32),
                 (unsigned)(b.z1 - b.z0));
        k_field<T, F, MODE, E, true><<<g, bl>>>(d, b);
    } else {
        k_field<T, F, MODE, E><<<g, bl>>>(d, b);
    }
}

/* The face kernels over planes za <= k < zb of this rank's.  zsides: how
 * many z sides this rank's z psi hold (from d.zs0; 2 on one rank). */
template <typename T, bool F, bool E>
static void launch_faces(const Dev3<T> &d, int zsides, int za, int zb)
{
    const int N = d.N;
    if (zb <= za)
        return;
    for (int side = 0; side < 2; side++) {
        /* x faces: blocks of 16 slab columns x 16 rows, row segments in shared memory */
        dim3 bx(16, 16, 1), gx((unsigned)((d.ny + 15) / 16), (unsigned)(zb - za), 1);
        const size_t sh = 16 * 2 * 17 * sizeof(T);
        if (N <= 16)
            k_face<T, F, E, 0><<<gx, bx, sh>>>(d, side, za, zb);
        dim3 b2(128, 1, 1);
        dim3 gy((unsigned)((d.nx + 127) / 128), (unsigned)N, (unsigned)(zb - za));
        k_face<T, F, E, 1><<<gy, b2>>>(d, side, za, zb);
        dim3 gz((unsigned)((d.nx + 127) / 128), (unsigned)d.ny, (unsigned)N);
        if (side >= d.zs0 && side < d.zs0 + zsides) /* a z side this rank reaches */
            k_face<T, F, E, 2><<<gz, b2>>>(d, side, za, zb);
    }
}

template <typename T, bool F>
static void launch_fused3(const TileSet &ts, const PP3<T> &p, cudaStream_t st = 0)
{
    const dim3 b(32, 9);
    if (ts.n[1])
        k_fused3<T, F, true, 8><<<(unsigned)ts.n[1], b, 0, st>>>(p, ts.t[1]);
    if (ts.n[0])
        k_fused3<T, F, false, 8><<<(unsigned)ts.n[0], b, 0, st>>>(p, ts.t[0]);
}

static int halo_start(cuda3d_engine *c, bool up, void *const *fld, cudaStream_t after, char *err,
                      size_t errlen);
static int halo_wait(cuda3d_engine *c, bool up, cudaStream_t st, char *err, size_t errlen);

/* After a step (every path): its samples into the next row, on the default
 * stream after the step's last kernel (f[] names the current fields). */
template <typename T> static void take_samples(cuda3d_engine *c)
{
    const struct model *m = c->base.model;
    if (!m->nsamples || c->smp_n >= m->sample_rows)
        return;
    if (c->nown) {
        Six<T> sx;
        for (int q = 0; q < 6; q++)
            sx.f[q] = (const T *)c->f[q];
        k_gather<T><<<(unsigned)((c->nown + 255) / 256), 256>>>(
            sx, c->smp_at, c->smp_f, (T *)c->smp_rows + (size_t)c->smp_n * c->nown, (long long)c->nown);
    }
    c->smp_n++;
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
static int step_fused(cuda3d_engine *c, const struct model *m, int n, char *err, size_t errlen)
{
    const bool mur = m->scene->boundary == BOUNDARY_MUR;
    const bool mpi = c->halo != HALO_NONE;
    const T kmur = sizeof(T) == 4 ? (T)m->mur_k_f : (T)m->mur_k;
    for (int s = 0; s < n; s++) {
        const int t = c->base.step + s;
        decomp_test_hook(t);
        if (c->ns) {
            CK(cudaEventSynchronize(c->slot_ev));
            if (sizeof(T) == 4)
                model_slot_range_f(m, t, c->s0, c->ns, (float *)c->slot_v_h);
            else
                model_slot_range_d(m, t, c->s0, c->ns, (double *)c->slot_v_h);
            CK(cudaMemcpyAsync(c->slot_v_d, c->slot_v_h, c->ns * sizeof(T),
                               cudaMemcpyHostToDevice));
            CK(cudaEventRecord(c->slot_ev));
        }
        PP3<T> p;
        memset(&p, 0, sizeof p);
        p.o = dev_view<T>(c, m);
        p.ex1 = (T *)c->fb[0];
        p.ey1 = (T *)c->fb[1];
        p.ez1 = (T *)c->fb[2];
        p.hx1 = (T *)c->fb[3];
        p.hy1 = (T *)c->fb[4];
        p.hz1 = (T *)c->fb[5];
        for (int q = PSI_HXY; q < PSI_COUNT; q++)
            p.hpsi1[q] = (T *)c->psib[q];
        if (mpi) {
            CK(cudaEventRecord(c->ev_step, 0));
            CK(cudaStreamWaitEvent(c->ps, c->ev_step, 0));
            if (halo_wait(c, false, c->ps, err, errlen))
                return -1;
            launch_fused3<T, F>(c->ts[TS_TOP], p, c->ps);
            if (halo_start(c, true, c->fb, c->ps, err, errlen))
                return -1;
            if (halo_wait(c, true, c->ps, err, errlen))
                return -1;
            launch_fused3<T, F>(c->ts[TS_BOTTOM], p, c->ps);
            CK(cudaEventRecord(c->ev_edges, c->ps));
        }
        launch_fused3<T, F>(c->ts[TS_BODY], p); /* one rank: every tile */
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
        for (int q = 0; q < 6; q++) {
            void *x = c->f[q];
            c->f[q] = c->fb[q];
            c->fb[q] = x;
        }
        for (int q = PSI_HXY; q < PSI_COUNT; q++) {
            void *x = c->psi[q];
            c->psi[q] = c->psib[q];
            c->psib[q] = x;
        }
        T *ez = (T *)c->f[2];
        if (c->ns)
            k_slots<T, F><<<(unsigned)((c->ns + 255) / 256), 256>>>(
                ez, c->slot_cell, c->slot_pec, (const T *)c->slot_v_d, (long long)c->ns);
        if (c->point)
            k_point<T, F><<<1, 1>>>(ez, c->pc, (T)(sizeof(T) == 4 ? (double)(float)model_point_value(m, t)
                                                                  : model_point_value(m, t)));
        take_samples<T>(c);
        CK(cudaGetLastError());
        if (mpi && halo_start(c, false, c->f, 0, err, errlen)) /* waited for before the next top plane */
            return -1;
    }
    if (mpi && halo_wait(c, false, 0, err, errlen)) /* reads after the step see plane k1 */
        return -1;
    return 0;
}

/* ---- the halo exchange (MPI, core/decomp.h) ----------------------------
 * After H the rank above needs this rank's top plane k1-1 of Hx, Hy (its E
 * update of plane k0' reads H at k0'-1); after E the rank below needs the
 * bottom plane k0 of Ex, Ey (its H update of plane k1'-1 reads E at k1').
 * halo_start(up = true) sends Hx, Hy plane k1-1 up and receives plane k0-1
 * from below; halo_start(up = false) sends Ex, Ey plane k0 down and receives
 * plane k1 from above.  HALO_HOST: the whole exchange at once, staged
 * through pinned host planes (copy out, decomp_exchange_planes, copy in);
 * the default stream is idle when it returns.  HALO_NCCL: ncclSend/ncclRecv
 * of the (padded, contiguous) device planes queued on the exchange stream
 * after the work queued so far; halo_wait() makes the default stream wait
 * for it. */
#ifdef TEXFDTD_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>
/* NCCL is loaded at run time (dlopen of libnccl.so.2), not linked: a
 * texfdtd built with nccl.h still starts where the library is missing, and
 * then exchanges through the host (or says why it cannot, when
 * TEXFDTD_HALO=nccl asks for NCCL). */
static struct {
    bool tried, ok;
    char why[256];
    ncclResult_t (*GetVersion)(int *);
    ncclResult_t (*GetUniqueId)(ncclUniqueId *);
    ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
    ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    const char *(*GetErrorString)(ncclResult_t);
} nccl;

static bool nccl_load(void)
{
    if (nccl.tried)
        return nccl.ok;
    nccl.tried = true;
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(nccl.why, sizeof nccl.why, "cannot load libnccl.so.2 (%.180s); put its folder "
                 "on LD_LIBRARY_PATH", dlerror());
        return false;
    }
#define SYM(name)                                                                             \
    if (!(*(void **)&nccl.name = dlsym(h, "nccl" #name))) {                                   \
        snprintf(nccl.why, sizeof nccl.why, "libnccl.so.2 has no nccl" #name);                \
        return false;                                                                         \
    }
    SYM(GetVersion) SYM(GetUniqueId) SYM(CommInitRank) SYM(CommAbort) SYM(GroupStart)
    SYM(GroupEnd) SYM(Send) SYM(Recv) SYM(GetErrorString)
#undef SYM
    nccl.ok = true;
    return true;
}

#define NK(call)                                                                              \
    do {                                                                                      \
        ncclResult_t r_ = (call);                                                             \
        if (r_ != ncclSuccess)                                                                \
            return seterr(err, errlen, "%s:%d: %s: %s", __FILE__, __LINE__, #call,            \
                          nccl.GetErrorString(r_));                                           \
    } while (0)
#endif

/* Sum the exchange timed in ring slot q once it has completed. */
static int halo_timer_take(cuda3d_engine *c, int q, char *err, size_t errlen)
{
    if (!c->tm_pend[q])
        return 0;
    c->tm_pend[q] = false;
    float ms = 0;
    CK(cudaEventSynchronize(c->tm[q][1]));
    CK(cudaEventElapsedTime(&ms, c->tm[q][0], c->tm[q][1]));
    c->halo_ms += ms;
    c->halo_n++;
    return 0;
}

static int halo_start(cuda3d_engine *c, bool up, void *const *fld, cudaStream_t after, char *err,
                      size_t errlen)
{
    const struct decomp *dc = &c->dc;
    const size_t es = dc->elem;
    const int q0 = up ? 3 : 0; /* Hx, Hy or Ex, Ey */
    const int send = up ? c->k1 - 1 - c->kb : c->k0 - c->kb;
    const int recv = up ? c->k0 - 1 - c->kb : c->k1 - c->kb;
    const bool to = up ? dc->hi : dc->lo, from = up ? dc->lo : dc->hi;
    char *sp[2], *rp[2];
    for (int q = 0; q < 2; q++) {
        sp[q] = (char *)fld[q0 + q] + (size_t)send * c->plane * es;
        rp[q] = (char *)fld[q0 + q] + (size_t)recv * c->plane * es;
    }
    if (c->halo == HALO_SKIP)
        return 0;
    if (c->halo == HALO_HOST) {
        CK(cudaStreamSynchronize(after)); /* the planes are final: time the exchange alone */
        const double t0 = now_seconds();
        for (int q = 0; q < 2 && to; q++)
            CK(cudaMemcpy2D(c->stage[q], c->nx * es, sp[q], c->px * es, c->nx * es, c->ny,
                            cudaMemcpyDeviceToHost));
        const void *const out[2] = {c->stage[0], c->stage[1]};
        void *const in[2] = {c->stage[2], c->stage[3]};
        if (decomp_exchange_planes(dc, up, out, in, 2, err, errlen))
            return -1;
        for (int q = 0; q < 2 && from; q++)
            CK(cudaMemcpy2D(rp[q], c->px * es, c->stage[2 + q], c->nx * es, c->nx * es, c->ny,
                            cudaMemcpyHostToDevice));
        c->halo_ms += (now_seconds() - t0) * 1e3;
        c->halo_n++;
        return 0;
    }
#ifdef TEXFDTD_HAVE_NCCL
    if (c->halo == HALO_NCCL) {
        const int w = up ? 0 : 1, q = c->tm_next;
        c->tm_next = (q + 1) % RING;
        if (halo_timer_take(c, q, err, errlen))
            return -1;
        const ncclComm_t comm = (ncclComm_t)c->nccl;
        const size_t bytes = c->plane * es;
        const int peer_to = up ? dc->rank + 1 : dc->rank - 1;
        const int peer_from = up ? dc->rank - 1 : dc->rank + 1;
        CK(cudaEventRecord(c->ev_ready[w], after));
        CK(cudaStreamWaitEvent(c->xs, c->ev_ready[w], 0));
        CK(cudaEventRecord(c->tm[q][0], c->xs));
        NK(nccl.GroupStart());
        for (int k = 0; k < 2 && to; k++)
            NK(nccl.Send(sp[k], bytes, ncclUint8, peer_to, comm, c->xs));
        for (int k = 0; k < 2 && from; k++)
            NK(nccl.Recv(rp[k], bytes, ncclUint8, peer_from, comm, c->xs));
        NK(nccl.GroupEnd());
        CK(cudaEventRecord(c->tm[q][1], c->xs));
        c->tm_pend[q] = true;
        CK(cudaEventRecord(c->ev_done[w], c->xs));
        return 0;
    }
#endif
    return seterr(err, errlen, "cuda 3D: halo exchange %s is not built in", halo_names[c->halo]);
}

/* Stream st waits for the exchange halo_start(up) queued last. */
static int halo_wait(cuda3d_engine *c, bool up, cudaStream_t st, char *err, size_t errlen)
{
    if (c->halo == HALO_NCCL)
        CK(cudaStreamWaitEvent(st, c->ev_done[up ? 0 : 1], 0));
    return 0;
}

/* H (E = false) or E over planes za <= k < zb (global, a part of this
 * rank's k0 .. k1-1) with the scene's CPML strategy.  Every strategy takes
 * any z range: combined one field kernel; regions the interior box and the
 * 26 regions, each cut to the range (on the host, per launch); per-face the
 * face kernels over the range, then the field kernel. */
template <typename T, bool F, bool E>
static void launch_half(const cuda3d_engine *c, const Dev3<T> &d, int za, int zb)
{
    const int N = c->N;
    const Box box = {0, c->nx, 0, c->ny, za, zb};
    if (N == 0) {
        launch_field<T, F, MODE_NONE, E>(d, box);
    } else if (c->strat == PML_COMBINED) {
        launch_field<T, F, MODE_INLINE, E>(d, box);
    } else if (c->strat == PML_REGIONS) {
        const Box inner = {N, c->nx - 1 - N, N, c->ny - 1 - N, N > za ? N : za,
                           c->nz - 1 - N < zb ? c->nz - 1 - N : zb};
        launch_field<T, F, MODE_NONE, E>(d, inner);
        Regions r;
        r.n = 0;
        for (int q = 0; q < c->regions.n; q++) {
            Box b = c->regions.box[q];
            b.z0 = b.z0 > za ? b.z0 : za;
            b.z1 = b.z1 < zb ? b.z1 : zb;
            if (b.z1 > b.z0)
                r.box[r.n++] = b;
        }
        if (r.n)
            k_regions<T, F, E><<<dim3(256, r.n), 256>>>(d, r);
    } else {
        launch_faces<T, F, E>(d, c->zsides, za, zb); /* psi first, then the field reads them */
        launch_field<T, F, MODE_KAPPA, E>(d, box);
    }
}

/* Mur: save the old neighbour planes (APPLY false, before E) or apply. */
template <typename T, bool F, bool APPLY>
static void launch_mur(const cuda3d_engine *c, const Dev3<T> &d, T kmur)
{
    T *comp[3] = {d.ex, d.ey, d.ez};
    for (int q = 0; q < MUR_PLANES; q++) {
        const MurPlane &p = c->mur[q];
        const long long np = (long long)(p.a1 - p.a0 + 1) * (p.b1 - p.b0 + 1);
        if (p.a1 >= p.a0 && p.b1 >= p.b0) /* a z face of another rank is empty */
            k_mur<T, F, APPLY><<<(unsigned)((np + 255) / 256), 256>>>(comp[p.comp], p, (T *)c->mur_old[q], kmur);
    }
}

/* The two-kernel step (update3d.inc's order): H, [halo Hx Hy], Mur save,
 * E, Mur, slots, point source, [halo Ex Ey].  Under MPI with NCCL (every
 * strategy's kernels take any z range) the exchanges overlap the interior:
 *   H on k0 .. k1-2 | wait for Ex, Ey plane k1 | H on k1-1 | start Hx, Hy
 *   Mur save | E on k0+1 .. k1-1 | wait for Hx, Hy plane k0-1 | E on k0
 *   Mur, slots, point | start Ex, Ey
 * Each cell runs the same statements on the same inputs either way: only
 * the order in which cells are visited changes, so the bits do not. */
template <typename T, bool F> static int step_t(cuda3d_engine *c, const struct model *m, int n,
                                                char *err, size_t errlen)
{
    if (c->fused)
        return step_fused<T, F>(c, m, n, err, errlen);
    const Dev3<T> d = dev_view<T>(c, m);
    const bool mur = m->scene->boundary == BOUNDARY_MUR;
    const T kmur = sizeof(T) == 4 ? (T)m->mur_k_f : (T)m->mur_k;
    const bool mpi = c->halo != HALO_NONE;
    /* NCCL: the exchanges run on their own stream, overlapped.  The host
     * exchange is over when halo_start returns.  (Every NCCL step waits for
     * the Ex, Ey plane k1 before its top H plane: a first version let the
     * regions and per-face strategies update H without that wait, read a
     * plane still in flight and differed from one process on 2 H200s.) */
    const bool split = c->halo == HALO_NCCL || c->halo == HALO_SKIP;
    const int k0 = c->k0, k1 = c->k1;
    for (int s = 0; s < n; s++) {
        const int t = c->base.step + s;
        decomp_test_hook(t);
        if (c->ns) {
            CK(cudaEventSynchronize(c->slot_ev));
            if (sizeof(T) == 4)
                model_slot_range_f(m, t, c->s0, c->ns, (float *)c->slot_v_h);
            else
                model_slot_range_d(m, t, c->s0, c->ns, (double *)c->slot_v_h);
            CK(cudaMemcpyAsync(c->slot_v_d, c->slot_v_h, c->ns * sizeof(T),
                               cudaMemcpyHostToDevice));
            CK(cudaEventRecord(c->slot_ev));
        }
        /* H */
        if (split) {
            launch_half<T, F, false>(c, d, k0, k1 - 1);
            if (halo_wait(c, false, 0, err, errlen))
                return -1;
            launch_half<T, F, false>(c, d, k1 - 1, k1);
        } else {
            launch_half<T, F, false>(c, d, k0, k1);
        }
        if (mpi && halo_start(c, true, c->f, 0, err, errlen))
            return -1;
        if (mur)
            launch_mur<T, F, false>(c, d, kmur);
        /* E */
        if (split) {
            launch_half<T, F, true>(c, d, k0 + 1, k1);
            if (halo_wait(c, true, 0, err, errlen))
                return -1;
            launch_half<T, F, true>(c, d, k0, k0 + 1);
        } else {
            if (mpi && halo_wait(c, true, 0, err, errlen))
                return -1;
            launch_half<T, F, true>(c, d, k0, k1);
        }
        if (mur)
            launch_mur<T, F, true>(c, d, kmur);
        if (c->ns)
            k_slots<T, F><<<(unsigned)((c->ns + 255) / 256), 256>>>(
                d.ez, c->slot_cell, c->slot_pec, (const T *)c->slot_v_d, (long long)c->ns);
        if (c->point)
            k_point<T, F><<<1, 1>>>(d.ez, c->pc, (T)(sizeof(T) == 4 ? (double)(float)model_point_value(m, t)
                                                                    : model_point_value(m, t)));
        take_samples<T>(c);
        CK(cudaGetLastError());
        if (mpi && halo_start(c, false, c->f, 0, err, errlen)) /* waited for before the next top H plane */
            return -1;
    }
    if (mpi && halo_wait(c, false, 0, err, errlen)) /* reads after the step see plane k1 */
        return -1;
    return 0;
}

static int cuda3d_step(struct engine *e, int n, char *err, size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    CK(cudaSetDevice(c->dev));
    int rc;
    if (e->opt.precision == PRECISION_DOUBLE)
        rc = step_t<double, false>(c, e->model, n, err, errlen);
    else if (e->opt.denormals == DENORMALS_FLUSH)
        rc = step_t<float, true>(c, e->model, n, err, errlen);
    else
        rc = step_t<float, false>(c, e->model, n, err, errlen);
    if (rc) {
        c->failed = true;
        return rc;
    }
    cudaError_t ce = cudaGetLastError();
    if (ce == cudaSuccess)
        ce = cudaDeviceSynchronize(); /* asynchronous faults surface here; callers time whole calls */
    if (ce != cudaSuccess) {
        c->failed = true;
        return seterr(err, errlen, "cuda 3D: step %d: %s", e->step, cudaGetErrorString(ce));
    }
    for (int q = 0; q < RING; q++) /* every exchange has completed: sum their times */
        if (halo_timer_take(c, q, err, errlen))
            return -1;
    return 0;
}

static void cuda3d_destroy(struct engine *e)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    if (!c)
        return;
    for (int k = 0; k < 6; k++) {
        cudaFree(c->f[k]);
        cudaFree(c->fb[k]);
    }
    for (int k = 0; k < PSI_COUNT; k++) {
        cudaFree(c->psi[k]);
        cudaFree(c->psib[k]);
    }
    for (int a = 0; a < 6; a++)
        for (int q = 0; q < 3; q++)
            cudaFree(c->prof[a][q]);
    for (int q = 0; q < MUR_PLANES; q++)
        cudaFree(c->mur_old[q]);
    cudaFree(c->mat);
    free(c->mat_h);
    for (int q = 0; q < TS_COUNT; q++) {
        cudaFree(c->ts[q].t[0]);
        cudaFree(c->ts[q].t[1]);
    }
    cudaFree(c->slot_cell);
    cudaFree(c->slot_pec);
    cudaFree(c->slot_v_d);
    cudaFreeHost(c->slot_v_h);
    if (c->slot_ev)
        cudaEventDestroy(c->slot_ev);
    cudaFree(c->first_bad);
    cudaFree(c->smp_at);
    cudaFree(c->smp_f);
    cudaFree(c->smp_rows);
    free(c->smp_h);
    if (c->halo != HALO_NONE && c->halo_n > 0 && !c->failed)
        log_info("cuda 3D: rank %d of %d: halo exchange (%s) %.3f s in all, %lld exchanges, "
                 "%.1f us each", c->dc.rank, c->dc.size, halo_names[c->halo], c->halo_ms * 1e-3,
                 c->halo_n, c->halo_ms * 1e3 / (double)c->halo_n);
    for (int q = 0; q < 4; q++)
        cudaFreeHost(c->stage[q]);
    free(c->gather_h);
    for (int w = 0; w < 2; w++) {
        if (c->ev_ready[w])
            cudaEventDestroy(c->ev_ready[w]);
        if (c->ev_done[w])
            cudaEventDestroy(c->ev_done[w]);
    }
    for (int q = 0; q < RING; q++)
        for (int w = 0; w < 2; w++)
            if (c->tm[q][w])
                cudaEventDestroy(c->tm[q][w]);
#ifdef TEXFDTD_HAVE_NCCL
    /* Abort, not Destroy: every exchange has completed (each step ends
     * synchronised), and ncclCommDestroy may wait for the other ranks,
     * which a failing rank must not (mpirun ends the job when it exits).
     * After a failed step NCCL is not touched at all. */
    if (c->nccl && !c->failed)
        nccl.CommAbort((ncclComm_t)c->nccl);
#endif
    if (c->xs)
        cudaStreamDestroy(c->xs);
    if (c->ps)
        cudaStreamDestroy(c->ps);
    if (c->ev_step)
        cudaEventDestroy(c->ev_step);
    if (c->ev_edges)
        cudaEventDestroy(c->ev_edges);
    decomp_free(&c->dc);
    free(c);
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
static int build_tile_sets(cuda3d_engine *c, char *err, size_t errlen)
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

/* psi elements of one array along an axis: sides x N x the face's cells,
 * the x and y faces over this rank's own planes, the z faces only on the
 * sides this rank's planes reach (cpu3d.c's layout, rows padded to px) */
static size_t psi_elems(const cuda3d_engine *c, int axis)
{
    const size_t N = (size_t)c->N, nzo = (size_t)(c->k1 - c->k0);
    const size_t sides = axis == 2 ? (size_t)c->zsides : 2;
    return sides * N * (axis == 0 ? (size_t)c->ny * nzo : axis == 1 ? (size_t)c->px * nzo
                                                                   : (size_t)c->px * c->ny);
}

/* Under mpirun: how the halo planes travel (TEXFDTD_HALO = host | nccl;
 * default nccl where this build has nccl.h and every rank can load
 * libnccl.so.2, else host), and its set-up.  Collective: every rank calls
 * it, and every rank gets the same mode. */
static int halo_setup(cuda3d_engine *c, int ndev /* GPUs the ranks of a host use */, char *err,
                      size_t errlen)
{
    const char *want = getenv("TEXFDTD_HALO");
    if (want && *want && strcmp(want, "host") && strcmp(want, "nccl") && strcmp(want, "skip"))
        return seterr(err, errlen, "TEXFDTD_HALO=%s: expected host or nccl", want);
    /* skip: the steps split as with NCCL, but nothing moves (the halo planes
     * go stale, the fields are wrong).  bench/mpi_bench times the exchange's
     * cost as the difference; nothing else may ask for it. */
    if (want && !strcmp(want, "skip")) {
        if (!getenv("TEXFDTD_BENCH_HALO_SKIP"))
            return seterr(err, errlen, "TEXFDTD_HALO=skip is for bench/mpi_bench only: it leaves "
                          "the halo planes stale, so the fields are wrong");
        c->halo = HALO_SKIP;
        log_info("cuda 3D: rank %d: halo exchange SKIPPED (benchmark only: the fields are wrong)",
                 c->dc.rank);
        return 0;
    }
    const bool ask_nccl = want && !strcmp(want, "nccl"), ask_host = want && !strcmp(want, "host");
    const size_t es = c->dc.elem;
    for (int w = 0; w < 2; w++) {
        CK(cudaEventCreateWithFlags(&c->ev_ready[w], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&c->ev_done[w], cudaEventDisableTiming));
    }
    for (int q = 0; q < RING; q++)
        for (int w = 0; w < 2; w++)
            CK(cudaEventCreate(&c->tm[q][w]));
    /* the host-staged planes exist either way: they are also the fallback */
    for (int q = 0; q < 4; q++)
        CK(cudaMallocHost(&c->stage[q], c->dc.plane * es));
    c->halo = HALO_HOST;
    if (ask_host)
        return 0;
#ifdef TEXFDTD_HAVE_NCCL
    /* NVLink multicast (NVLS) stays off: forced, whatever the environment
     * says, before NCCL reads it */
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    if (nvls && strcmp(nvls, "0"))
        log_info("cuda 3D: NCCL_NVLS_ENABLE=%s overridden to 0", nvls);
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    /* NCCL refuses two ranks on one GPU: more ranks on this host than GPUs
     * exchange through the host */
    const bool shared = decomp_local_size() > ndev;
    const int mine = shared ? 2 : nccl_load() ? 0 : 1;
    const int bad = decomp_agree(mine); /* the same mode on every rank */
    if (bad) {
        char why[300];
        if (bad == 2)
            snprintf(why, sizeof why, "%d ranks share %d GPU%s on a host, and NCCL takes one GPU a "
                     "rank", decomp_local_size(), ndev, ndev == 1 ? "" : "s");
        else
            snprintf(why, sizeof why, "%s", mine ? nccl.why : "NCCL cannot be loaded on another rank");
        if (ask_nccl)
            return seterr(err, errlen, "TEXFDTD_HALO=nccl: %s", why);
        log_info("cuda 3D: halo exchange through the host: %s", why);
        return 0;
    }
    int ver = 0;
    nccl.GetVersion(&ver);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (c->dc.rank == 0)
        NK(nccl.GetUniqueId(&id));
    if (decomp_bcast(&id, sizeof id, err, errlen))
        return -1;
    /* the highest priority: NCCL's kernel then takes SMs as the field
     * kernels' blocks retire, rather than after the whole field kernel */
    int least = 0, greatest = 0;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CK(cudaStreamCreateWithPriority(&c->xs, cudaStreamNonBlocking, greatest));
    ncclComm_t comm = NULL;
    NK(nccl.CommInitRank(&comm, c->dc.size, id, c->dc.rank));
    c->nccl = comm;
    c->halo = HALO_NCCL;
    log_info("cuda 3D: halo exchange through NCCL %d.%d.%d (NCCL_NVLS_ENABLE=0), overlapped "
             "with the interior", ver / 10000, ver / 100 % 100, ver % 100);
    return 0;
#else
    (void)ndev;
    if (ask_nccl)
        return seterr(err, errlen, "TEXFDTD_HALO=nccl: this texfdtd was built without nccl.h "
                                   "(rebuild where the CUDA toolkit has NCCL), or use TEXFDTD_HALO=host");
    return 0;
#endif
}

static int field_index(enum field f);

static int cuda3d_create(const struct model *m, const struct engine_options *o,
                         struct engine **out, char *err, size_t errlen)
{
    *out = NULL;
    if (m->nz < 2)
        return seterr(err, errlen, "cuda 3D engine: the scene is 2D");
    const int P = decomp_size();
    int dev = 0, want = o->device, ndev = 0;
    if (P > 1) { /* one GPU per rank: local rank mod the GPUs of this host (or --device) */
        cudaError_t e = cudaGetDeviceCount(&ndev);
        if (e != cudaSuccess || ndev == 0)
            return seterr(err, errlen, "rank %d of %d: no CUDA device: %s", decomp_rank(), P,
                          e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        if (want < 0)
            want = decomp_local_rank() % ndev;
    }
    cudaDeviceProp prop;
    if (cuda_pick_device(want, &dev, &prop, err, errlen))
        return -1;
    cuda3d_engine *c = (cuda3d_engine *)calloc(1, sizeof *c);
    if (!c)
        return seterr(err, errlen, "cuda 3D engine: out of host memory");
    c->dev = dev;
    snprintf(c->devname, sizeof c->devname, "%s (sm_%d%d, %.1f GiB)", prop.name, prop.major,
             prop.minor, prop.totalGlobalMem / 1073741824.0);
    c->nx = m->nx;
    c->ny = m->ny;
    c->nz = m->nz;
    c->px = (m->nx + 31) / 32 * 32;
    c->N = m->pml_n;
    c->strat = m->scene->cpml_strategy;
    const size_t es = precision_size(o->precision);
    const bool mur = m->scene->boundary == BOUNDARY_MUR;
    /* the slab: one rank holds every plane (kb = k0 = 0, k1 = nz).  Over
     * ranks the planes are split by cost: a plane of a z CPML slab costs
     * SPLIT_W_CPML interior planes (the fused kernel at 1024^3 on H200s,
     * 2026-11-22: 0.0541 against 0.0254 ms; docs/performance.md), so the
     * two end ranks, which hold those slabs, get fewer planes.
     * TEXFDTD_SPLIT = even | a weight overrides (bench/scale.sh). */
    double split_w = c->N > 0 ? SPLIT_W_CPML : 1.0;
    const char *se = getenv("TEXFDTD_SPLIT");
    if (se && *se) {
        char *end = NULL;
        const double w = strtod(se, &end);
        if (!strcmp(se, "even")) {
            split_w = 1.0;
        } else if (end != se && !*end && w >= 1.0 && w <= 100.0) {
            split_w = w;
        } else {
            free(c);
            return seterr(err, errlen, "TEXFDTD_SPLIT=%s: expected even or a weight from 1 to 100", se);
        }
    }
    if (decomp_slab_weighted(&c->dc, m->nx, m->ny, m->nz, es, c->N, split_w, err, errlen)) {
        decomp_free(&c->dc);
        free(c);
        return -1;
    }
    c->kb = decomp_kbase(&c->dc);
    c->k0 = c->dc.k0;
    c->k1 = c->dc.k1;
    c->nzl = (int)decomp_local_planes(&c->dc);
    c->plane = (size_t)c->px * c->ny;
    c->cells = c->plane * c->nzl;
    c->zsides = c->N ? slab3d_cpml_z_sides(c->nz, c->N, c->k0, c->k1, &c->zs0) : 0;
    if (c->N > 16 && c->strat == PML_PER_FACE) {
        const int N = c->N;
        decomp_free(&c->dc);
        free(c);
        return seterr(err, errlen, "cuda 3D: strategy per-face supports CPML up to 16 cells (%d)", N);
    }
    /* the step path: TEXFDTD_CUDA3D = fused (one kernel per step with
     * ping-pong buffers, for A1 and for no CPML) | two (H and E kernels in
     * place, as A2 and A3 always are).  Default: fused without a CPML, and
     * for A1 from 400^3 cells on (measured on the H100, 2026-11-22: A1
     * fused 5.09 vs 5.58 ms/step at 534^3, equal at 406^3, 23 % slower at
     * 278^3; see docs/performance-cuda.md).  TEXFDTD_CUDA3D_KZ = 32
     * (default, fastest), 64 or 128 planes per block.  Under MPI the size
     * that chooses is the rank's slab (both paths give the same bits and
     * exchange in the same order, so ranks may differ). */
    {
        const char *pe = getenv("TEXFDTD_CUDA3D"), *ke = getenv("TEXFDTD_CUDA3D_KZ");
        if (pe && *pe && strcmp(pe, "two") && strcmp(pe, "fused")) {
            decomp_free(&c->dc);
            free(c);
            return seterr(err, errlen, "TEXFDTD_CUDA3D=%s: expected two or fused", pe);
        }
        const bool big = (double)c->nx * c->ny * (c->k1 - c->k0) >= 400.0 * 400.0 * 400.0;
        if (pe && !strcmp(pe, "fused"))
            c->fused = c->N == 0 || c->strat == PML_COMBINED;
        else if (pe && !strcmp(pe, "two"))
            c->fused = false;
        else
            c->fused = c->N == 0 || (c->strat == PML_COMBINED && big);
        c->kz = ke ? atoi(ke) : 32;
        if (c->kz != 64 && c->kz != 128)
            c->kz = 32;
        /* TEXFDTD_CUDA3D_MAP=uncoalesced: the field kernels of the two-kernel
         * path map a warp's lanes along y, a row pitch apart (the coalescing
         * paper's comparison; benchmark only) */
        const char *me = getenv("TEXFDTD_CUDA3D_MAP");
        c->uncoalesced = me && !strcmp(me, "uncoalesced");
        if (c->uncoalesced)
            c->fused = false;
        log_info("cuda 3D: %s%s", c->fused ? "fused path (one kernel per step)" : "two kernels per step",
                 c->uncoalesced ? ", un-coalesced thread mapping" : "");
    }
    /* this rank's source slots: those of planes k0 .. k1-1, a run of the
     * model's list (in cell order) */
    {
        const size_t first = (size_t)c->k0 * c->dc.plane, end = (size_t)c->k1 * c->dc.plane;
        size_t s0 = 0, s1;
        while (s0 < m->nslots && m->slot_cell[s0] < first)
            s0++;
        for (s1 = s0; s1 < m->nslots && m->slot_cell[s1] < end; s1++)
            ;
        c->s0 = s0;
        c->ns = s1 - s0;
    }
    if (m->scene->source_type == SOURCE_POINT) {
        const size_t pcell = model_point_cell(m);
        const int kp = (int)(pcell / c->dc.plane);
        c->point = kp >= c->k0 && kp < c->k1;
        c->pc = (long long)(pcell % (size_t)c->nx)
                + ((long long)(pcell / (size_t)c->nx) - (long long)c->ny * c->kb) * c->px;
    }
    /* memory: 6 fields (twice when fused) + material over the padded local
     * planes, psi (the H psi twice when fused), Mur planes */
    size_t psi = 0, murb = 0;
    if (c->N)
        for (int k = 0; k < PSI_COUNT; k++)
            psi += psi_elems(c, psi_axis_of[k]) * es * (c->fused && k >= PSI_HXY ? 2 : 1);
    if (mur) {
        slab3d_mur_planes(c->mur, c->nx, c->ny, c->nz, c->px, c->k0, c->k1, c->kb);
        for (int q = 0; q < MUR_PLANES; q++)
            murb += slab3d_mur_cells(&c->mur[q]) * es;
    }
    const size_t per_cell = (c->fused ? 12 : 6) * es + 1;
    const size_t need = c->cells * per_cell + psi + murb + c->ns * (8 + 1 + es)
                        + m->nsamples * ((size_t)m->sample_rows * es + 9) /* samples */
                        + (64u << 20) /* context and slack */;
    if (cuda_check_memory("cuda 3D", need, per_cell, err, errlen)) {
        decomp_free(&c->dc);
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
            seterr(err, errlen, "cuda 3D: cannot allocate %zu bytes: %s", (size_t)(bytes),    \
                   cudaGetErrorString(e_));                                                   \
            goto fail;                                                                        \
        }                                                                                     \
    } while (0)
    for (int k = 0; k < 6; k++) {
        ALLOC(c->f[k], c->cells * es);
        if (c->fused)
            ALLOC(c->fb[k], c->cells * es);
    }
    ALLOC(c->mat, c->cells);
    if (!(c->mat_h = (uint8_t *)xcalloc((size_t)c->nzl * c->dc.plane, 1, "E material map", err, errlen))
        || cpu3d_e_materials(m, c->kb, c->nzl, c->mat_h, c->cezh3_f, c->cezh3_d, c->slot_kind, err,
                             errlen))
        goto fail;
    if (cudaMemcpy2D(c->mat, c->px, c->mat_h, m->nx, m->nx, (size_t)m->ny * c->nzl,
                     cudaMemcpyHostToDevice) != cudaSuccess) {
        seterr(err, errlen, "cuda 3D: cannot copy the material map");
        goto fail;
    }
    if (c->N) {
        for (int k = 0; k < PSI_COUNT; k++) {
            ALLOC(c->psi[k], psi_elems(c, psi_axis_of[k]) * es);
            if (c->fused && k >= PSI_HXY)
                ALLOC(c->psib[k], psi_elems(c, psi_axis_of[k]) * es);
        }
        const struct pml_axis *ax[6] = {&m->pml_xe, &m->pml_xh, &m->pml_ye,
                                        &m->pml_yh, &m->pml_ze, &m->pml_zh};
        const int len[6] = {m->nx, m->nx, m->ny, m->ny, m->nz, m->nz};
        for (int a = 0; a < 6; a++) {
            const void *src[3];
            if (es == 4) {
                src[0] = ax[a]->bf; src[1] = ax[a]->cf; src[2] = ax[a]->ikf;
            } else {
                src[0] = ax[a]->b; src[1] = ax[a]->c; src[2] = ax[a]->ik;
            }
            for (int q = 0; q < 3; q++) {
                ALLOC(c->prof[a][q], len[a] * es);
                if (cudaMemcpy(c->prof[a][q], src[q], len[a] * es, cudaMemcpyHostToDevice) != cudaSuccess) {
                    seterr(err, errlen, "cuda 3D: cannot copy CPML profiles");
                    goto fail;
                }
            }
        }
        /* A2's 26 regions: along each axis [0, N), [N, n-1-N), [n-1-N, n);
         * along z cut to this rank's planes, the empty ones dropped */
        const int n3[3] = {c->nx, c->ny, c->nz};
        int lo[3][3], hi[3][3];
        for (int a = 0; a < 3; a++) {
            lo[a][0] = 0; hi[a][0] = c->N;
            lo[a][1] = c->N; hi[a][1] = n3[a] - 1 - c->N;
            lo[a][2] = n3[a] - 1 - c->N; hi[a][2] = n3[a];
        }
        c->regions.n = 0;
        for (int z = 0; z < 3; z++)
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 3; x++) {
                    if (x == 1 && y == 1 && z == 1)
                        continue;
                    Box b = {lo[0][x], hi[0][x], lo[1][y], hi[1][y], lo[2][z], hi[2][z]};
                    b.z0 = b.z0 > c->k0 ? b.z0 : c->k0;
                    b.z1 = b.z1 < c->k1 ? b.z1 : c->k1;
                    if (b.z1 > b.z0)
                        c->regions.box[c->regions.n++] = b;
                }
    }
    if (c->fused && build_tile_sets(c, err, errlen))
        goto fail;
    if (mur)
        for (int q = 0; q < MUR_PLANES; q++)
            ALLOC(c->mur_old[q], slab3d_mur_cells(&c->mur[q]) * es);
    if (c->ns) {
        long long *cell = (long long *)malloc(c->ns * sizeof *cell);
        uint8_t *pec = (uint8_t *)malloc(c->ns);
        if (!cell || !pec) {
            free(cell);
            free(pec);
            seterr(err, errlen, "cuda 3D: out of host memory");
            goto fail;
        }
        for (size_t k = 0; k < c->ns; k++) {
            const size_t s = m->slot_cell[c->s0 + k];
            cell[k] = (long long)(s % (size_t)m->nx)
                      + ((long long)(s / (size_t)m->nx) - (long long)m->ny * c->kb) * c->px;
            pec[k] = c->slot_kind[c->mat_h[s - (size_t)c->kb * c->dc.plane]];
        }
        ALLOC(c->slot_cell, c->ns * sizeof *cell);
        ALLOC(c->slot_pec, c->ns);
        ALLOC(c->slot_v_d, c->ns * es);
        cudaError_t e1 = cudaMemcpy(c->slot_cell, cell, c->ns * sizeof *cell, cudaMemcpyHostToDevice);
        cudaError_t e2 = cudaMemcpy(c->slot_pec, pec, c->ns, cudaMemcpyHostToDevice);
        cudaError_t e3 = cudaMallocHost(&c->slot_v_h, c->ns * es);
        if (e3 == cudaSuccess)
            e3 = cudaEventCreateWithFlags(&c->slot_ev, cudaEventDisableTiming);
        free(cell);
        free(pec);
        if (e1 != cudaSuccess || e2 != cudaSuccess || e3 != cudaSuccess) {
            seterr(err, errlen, "cuda 3D: cannot set up the source slots");
            goto fail;
        }
    }
    if (m->nsamples) { /* this rank's samples: their array indices and fields */
        size_t *own = (size_t *)malloc(m->nsamples * sizeof *own);
        long long *at = (long long *)malloc(m->nsamples * sizeof *at);
        uint8_t *fq = (uint8_t *)malloc(m->nsamples);
        if (!own || !at || !fq) {
            free(own);
            free(at);
            free(fq);
            seterr(err, errlen, "cuda 3D: out of host memory");
            goto fail;
        }
        c->nown = decomp_own_samples(&c->dc, m->samples, m->nsamples, own);
        for (size_t q = 0; q < c->nown; q++) {
            const struct sample *x = &m->samples[own[q]];
            at[q] = (long long)(x->cell % (size_t)m->nx)
                    + ((long long)(x->cell / (size_t)m->nx) - (long long)m->ny * c->kb) * c->px;
            fq[q] = (uint8_t)field_index((enum field)x->field);
        }
        free(own);
        cudaError_t e1 = cudaMalloc((void **)&c->smp_at, (c->nown ? c->nown : 1) * sizeof *at);
        if (e1 == cudaSuccess)
            e1 = cudaMalloc((void **)&c->smp_f, c->nown ? c->nown : 1);
        if (e1 == cudaSuccess)
            e1 = cudaMalloc(&c->smp_rows, (size_t)m->sample_rows * (c->nown ? c->nown : 1) * es);
        if (e1 == cudaSuccess && c->nown)
            e1 = cudaMemcpy(c->smp_at, at, c->nown * sizeof *at, cudaMemcpyHostToDevice);
        if (e1 == cudaSuccess && c->nown)
            e1 = cudaMemcpy(c->smp_f, fq, c->nown, cudaMemcpyHostToDevice);
        free(at);
        free(fq);
        if (e1 != cudaSuccess) {
            seterr(err, errlen, "cuda 3D: cannot set up the monitor samples: %s", cudaGetErrorString(e1));
            goto fail;
        }
        if (c->dc.comm && !(c->smp_h = xcalloc((size_t)m->sample_rows * (c->nown ? c->nown : 1), es,
                                                "monitor sample rows", err, errlen)))
            goto fail;
    }
    if (cudaMemcpyToSymbol(c_cezh_f, c->cezh3_f, sizeof c->cezh3_f) != cudaSuccess
        || cudaMemcpyToSymbol(c_cezh_d, c->cezh3_d, sizeof c->cezh3_d) != cudaSuccess) {
        seterr(err, errlen, "cuda 3D: cannot set the coefficient table");
        goto fail;
    }
    free(c->mat_h);
    c->mat_h = NULL;
#undef ALLOC
    if (P > 1) {
        if (halo_setup(c, o->device >= 0 ? 1 : ndev, err, errlen)) /* --device: all on one */
            goto fail;
        char where[400];
        snprintf(where, sizeof where, "GPU %d of %d (local rank %d): %.250s, halo %s", dev,
                 ndev ? ndev : 1, decomp_local_rank(), c->devname, halo_names[c->halo]);
        decomp_log_map(&c->dc, where);
    }
    *out = &c->base;
    return 0;
fail:
    cuda3d_destroy(&c->base);
    return -1;
}

static int field_index(enum field f)
{
    switch (f) {
    case FIELD_EX: return 0;
    case FIELD_EY: return 1;
    case FIELD_EZ: return 2;
    case FIELD_HX: return 3;
    case FIELD_HY: return 4;
    case FIELD_HZ: return 5;
    default: return -1;
    }
}

/* The sample rows since the last read: one copy out of the device; one
 * rank straight into dst, MPI (collective) through the host to rank 0
 * (decomp_gather_samples). */
static int cuda3d_read_samples(struct engine *e, void *dst, int rows, char *err, size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    const struct model *m = e->model;
    if (rows != c->smp_n)
        return seterr(err, errlen, "monitor samples: %d rows asked for, %d recorded", rows,
                      c->smp_n);
    c->smp_n = 0;
    if (!m->nsamples)
        return 0;
    const size_t bytes = (size_t)rows * c->nown * precision_size(e->opt.precision);
    CK(cudaSetDevice(c->dev));
    if (!c->dc.comm) {
        if (bytes)
            CK(cudaMemcpy(dst, c->smp_rows, bytes, cudaMemcpyDeviceToHost));
        return 0;
    }
    if (bytes) {
        const cudaError_t ce = cudaMemcpy(c->smp_h, c->smp_rows, bytes, cudaMemcpyDeviceToHost);
        if (ce != cudaSuccess) /* the other ranks are on their way into the gather */
            decomp_abort(1, "cuda 3D: reading the monitor samples back: %s", cudaGetErrorString(ce));
    }
    return decomp_gather_samples(&c->dc, m->samples, m->nsamples, c->smp_h, rows, dst, err, errlen);
}

/* One rank: the field straight into dst.  MPI: collective; this rank's
 * planes go to the host (gather_h, laid out as the local planes) and
 * decomp_gather puts every rank's on rank 0. */
static int cuda3d_read(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    const int q = field_index(f);
    if (q < 0)
        return seterr(err, errlen, "cuda 3D engine: no field %s", field_name(f));
    const size_t es = precision_size(e->opt.precision);
    CK(cudaSetDevice(c->dev));
    if (!c->dc.comm) {
        CK(cudaMemcpy2D(dst, c->nx * es, c->f[q], c->px * es, c->nx * es, (size_t)c->ny * c->nz,
                        cudaMemcpyDeviceToHost));
        return 0;
    }
    const size_t up = c->dc.plane * es; /* bytes of an unpadded plane */
    if (!c->gather_h && !(c->gather_h = xcalloc((size_t)c->nzl, up, "read-back planes", err, errlen)))
        decomp_abort(1, "%s", err); /* the other ranks are in the gather already */
    const size_t lo = (size_t)c->dc.lo, nzo = (size_t)(c->k1 - c->k0);
    cudaError_t ce = cudaMemcpy2D((char *)c->gather_h + lo * up, c->nx * es,
                                  (const char *)c->f[q] + lo * c->plane * es, c->px * es,
                                  c->nx * es, (size_t)c->ny * nzo, cudaMemcpyDeviceToHost);
    if (ce != cudaSuccess)
        decomp_abort(1, "cuda 3D: reading %s back: %s", field_name(f), cudaGetErrorString(ce));
    return decomp_gather(&c->dc, c->gather_h, dst, err, errlen);
}

static int cuda3d_write(struct engine *e, enum field f, const void *src, char *err, size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    const int q = field_index(f);
    if (q < 0)
        return seterr(err, errlen, "cuda 3D engine: no field %s", field_name(f));
    const size_t es = precision_size(e->opt.precision);
    CK(cudaSetDevice(c->dev));
    /* src is the whole field on every rank: this rank's planes, halos included */
    src = (const char *)src + (size_t)c->kb * c->dc.plane * es;
    CK(cudaMemcpy2D(c->f[q], c->px * es, src, c->nx * es, c->nx * es, (size_t)c->ny * c->nzl,
                    cudaMemcpyHostToDevice));
    if (c->fb[q]) /* the ping-pong twin: cells a step never updates read the same in both */
        CK(cudaMemcpy2D(c->fb[q], c->px * es, src, c->nx * es, c->nx * es, (size_t)c->ny * c->nz,
                        cudaMemcpyHostToDevice));
    return 0;
}

/* The blow-up check: is a value NaN or Inf?  Its exponent bits are all
 * ones; tested on the bits, which no compiler option can fold away. */
__device__ __forceinline__ bool not_finite3(float v)
{
    return (__float_as_uint(v) & 0x7f800000u) == 0x7f800000u;
}
__device__ __forceinline__ bool not_finite3(double v)
{
    return ((unsigned long long)__double_as_longlong(v) & 0x7ff0000000000000ull)
           == 0x7ff0000000000000ull;
}

/* The lowest unpadded index i + nx (j + ny k) of a NaN or Inf in a
 * [nz][ny][px] array (columns i < nx) into *first by atomicMin; *first
 * starts at ~0.  A row r = j + ny k of px elements holds cells r nx .. r nx +
 * nx - 1.  32 x 8 blocks, rows strided over the grid: a warp is 32
 * consecutive i of one row, so its lowest bad lane holds its lowest bad
 * index and only that lane does the atomic. */
template <typename T>
__global__ void k_first_bad3(const T *a, int nx, long long rows, int px, unsigned long long *first)
{
    const int i = blockIdx.x * 32 + threadIdx.x;
    for (long long r = blockIdx.y * 8LL + threadIdx.y; r < rows; r += gridDim.y * 8LL) {
        const bool bad = i < nx && not_finite3(a[r * px + i]);
        const unsigned m = __ballot_sync(0xffffffffu, bad);
        if (m && (int)threadIdx.x == __ffs(m) - 1)
            atomicMin(first, (unsigned long long)r * (unsigned long long)nx + (unsigned long long)i);
    }
}

/* The blow-up check on the device: one k_first_bad3 launch per field, in
 * scene_fields() order (ex ey ez hx hy hz), into six words, 48 bytes read
 * back; cells in the unpadded [nz][ny][nx] numbering.  Under MPI each rank
 * scans its own planes (halos are another rank's to check) and the ranks
 * agree on the first bad field and cell (decomp_min_u64), as cpu3d does, so
 * that every rank stops at the same step with the same message. */
static int cuda3d_check_finite(struct engine *e, enum field *f, size_t *cell, char *err,
                               size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    enum field order[6];
    const int nf = scene_fields(e->model->scene, order);
    CK(cudaSetDevice(c->dev));
    if (!c->first_bad)
        CK(cudaMalloc((void **)&c->first_bad, 6 * sizeof *c->first_bad));
    CK(cudaMemset(c->first_bad, 0xff, 6 * sizeof *c->first_bad));
    const long long rows = (long long)c->ny * (c->k1 - c->k0), blocks_y = (rows + 7) / 8;
    const dim3 b(32, 8), g((unsigned)((c->nx + 31) / 32), (unsigned)(blocks_y < 65535 ? blocks_y : 65535));
    const size_t skip = (size_t)c->dc.lo * c->plane * c->dc.elem; /* bytes below plane k0 */
    for (int k = 0; k < nf; k++) {
        const void *a = (const char *)c->f[field_index(order[k])] + skip;
        if (e->opt.precision == PRECISION_DOUBLE)
            k_first_bad3<double><<<g, b>>>((const double *)a, c->nx, rows, c->px, c->first_bad + k);
        else
            k_first_bad3<float><<<g, b>>>((const float *)a, c->nx, rows, c->px, c->first_bad + k);
    }
    CK(cudaGetLastError());
    unsigned long long first[6];
    CK(cudaMemcpy(first, c->first_bad, sizeof first, cudaMemcpyDeviceToHost));
    if (!c->dc.comm) {
        for (int k = 0; k < nf; k++)
            if (first[k] != ~0ull) {
                *f = order[k];
                *cell = (size_t)first[k];
                return 1;
            }
        return 0;
    }
    /* field position * ncells + global cell, least over the ranks */
    const size_t ncells = e->model->ncells, below = (size_t)c->k0 * c->dc.plane;
    unsigned long long mine = ~0ull;
    for (int k = 0; k < nf && mine == ~0ull; k++)
        if (first[k] != ~0ull)
            mine = (unsigned long long)k * ncells + below + first[k];
    const unsigned long long all = decomp_min_u64(mine);
    if (all == ~0ull)
        return 0;
    *f = order[all / ncells];
    *cell = (size_t)(all % ncells);
    return 1;
}

static void cuda3d_describe(const struct engine *e, struct engine_info *info)
{
    const cuda3d_engine *c = (const cuda3d_engine *)e;
    static const char *const st[] = {"A1 combined", "A2 regions", "A3 per-face"};
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(info->engine, sizeof info->engine, "cuda");
    snprintf(info->device, sizeof info->device, "%.250s", c->devname);
    snprintf(info->detail, sizeof info->detail,
             "3D Yee, %s%s, CUDA driver %d, runtime %d, row pitch %d, CPML %s, denormals %s",
             c->fused ? "fused z-marching kernel" : "two kernels per step",
             c->uncoalesced ? " (un-coalesced mapping)" : "", drv, rt, c->px,
             c->N ? st[c->strat] : "none",
             e->opt.precision == PRECISION_DOUBLE ? "keep (double)" : denormals_name(e->opt.denormals));
    if (c->dc.size > 1) /* the device line is rank 0's; each rank has its own */
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 "; MPI: %d ranks, z slabs, one GPU each, halo %s, rank 0 gathers", c->dc.size,
                 halo_names[c->halo]);
}

extern "C" const struct engine_ops cuda3d_engine_ops = {
    "cuda",
    ENGINE_CAP_3D | ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_POINT | ENGINE_CAP_MPI
        | ENGINE_CAP_MONITORS,
    "3D CUDA, float or double, CPML strategies combined | regions | per-face, MPI z slabs (a GPU a rank)",
    cuda3d_create,
    cuda3d_step,
    cuda3d_read,
    cuda3d_describe,
    cuda3d_destroy,
    cuda3d_write,
    NULL, /* render_rgba */
    cuda3d_check_finite,
    NULL, /* state: no checkpoints yet */
    cuda3d_read_samples,
};

/* Benchmark support (cuda_api.h). */
extern "C" int texfdtd_cuda_time_steps(struct engine *e, int steps, double *ms, char *err,
                                       size_t errlen)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    if (engine_step(e, steps, err, errlen))
        return -1;
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    *ms = t;
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return 0;
}

extern "C" int texfdtd_cuda_copy_bandwidth(size_t bytes, int reps, double *gbs, char *err,
                                           size_t errlen)
{
    void *x, *y;
    CK(cudaMalloc(&x, bytes));
    CK(cudaMalloc(&y, bytes));
    CK(cudaMemset(x, 1, bytes));
    CK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    for (int r = 0; r < reps; r++)
        CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    /* read + write: 2 bytes moved per byte copied */
    *gbs = 2.0 * (double)bytes * reps / (t * 1e-3) / 1e9;
    cudaFree(x);
    cudaFree(y);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return 0;
}

extern "C" int texfdtd_cuda3d_halo_stats(struct engine *e, int reset, double *ms, long long *n,
                                         char *err, size_t errlen)
{
    if (!e || e->ops != &cuda3d_engine_ops)
        return seterr(err, errlen, "halo statistics: not a cuda 3D engine");
    cuda3d_engine *c = (cuda3d_engine *)e;
    CK(cudaSetDevice(c->dev));
    CK(cudaDeviceSynchronize());
    for (int q = 0; q < RING; q++) /* every exchange queued so far is summed */
        if (halo_timer_take(c, q, err, errlen))
            return -1;
    if (ms)
        *ms = c->halo_ms;
    if (n)
        *n = c->halo_n;
    if (reset) {
        c->halo_ms = 0;
        c->halo_n = 0;
    }
    return 0;
}

extern "C" int texfdtd_cuda3d_halo_alone(struct engine *e, int reps, double *us, char *err,
                                         size_t errlen)
{
    if (!e || e->ops != &cuda3d_engine_ops)
        return seterr(err, errlen, "halo exchange alone: not a cuda 3D engine");
    cuda3d_engine *c = (cuda3d_engine *)e;
    if (c->halo != HALO_HOST && c->halo != HALO_NCCL)
        return seterr(err, errlen, "halo exchange alone: no exchange (%s)", halo_names[c->halo]);
    CK(cudaSetDevice(c->dev));
    double ms0 = 0;
    long long n0 = 0;
    if (texfdtd_cuda3d_halo_stats(e, 0, &ms0, &n0, err, errlen))
        return -1;
    /* the planes sent are those the last step sent, so what arrives is
     * what the halo planes already hold: the fields do not change */
    for (int r = 0; r < reps; r++)
        for (int up = 1; up >= 0; up--)
            if (halo_start(c, up != 0, c->f, 0, err, errlen) || halo_wait(c, up != 0, 0, err, errlen))
                return -1;
    double ms1 = 0;
    long long n1 = 0;
    if (texfdtd_cuda3d_halo_stats(e, 0, &ms1, &n1, err, errlen))
        return -1;
    *us = n1 > n0 ? (ms1 - ms0) * 1e3 / (double)(n1 - n0) : 0;
    return 0;
}
