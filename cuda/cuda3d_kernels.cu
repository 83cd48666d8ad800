/* cuda3d_kernels.cu - the two-kernel step of the 3D CUDA engine: an H and an
 * E launch per step over the arrays in place, with the CPML scheduled three
 * ways ("[boundary] strategy", Toivanen et al. 2011; cuda3d.cu says how
 * each works): A1 combined (k_field with the psi inline), A2 regions
 * (k_field over the interior box, k_regions over the 26 PML regions), A3
 * per-face (k_face per face pair, then k_field reading the new psi); then
 * Mur (k_mur), the sources and samples (cuda3d_sources.cu), and under MPI
 * the halo exchange (cuda3d_halo.cu) overlapped with the interior.  The
 * statements per cell are cpu/update3d.inc's.
 */
#include "cuda3d_cell.cuh"

/* H of cell (i, j, k): Hx, Hy, Hz in update3d.inc's order; M (mu_r): each
 * node's coefficient from the map (d.hmat), in the slabs too. */
template <typename T, bool F, int MODE, bool M>
__device__ __forceinline__ void h_cell(const Dev3<T> &d, int i, int j, int k)
{
    typedef Yee<T, F> Y;
    const long long c = cell3(d, i, j, k);
    int kx = 0, ky = 0, kz = 0, xs = -1, ys = -1, zs = -1;
    if (MODE != MODE_NONE) {
        xs = dslab_h(d.nx, d.N, i, &kx);
        ys = dslab_h(d.ny, d.N, j, &ky);
        zs = dslab_h(d.nz, d.N, k, &kz);
    }
    const T ch = d.ch;
    if (j <= d.ny - 2 && k <= d.nz - 2) {
        const T dy = Y::yee_diff(d.ez[c + d.sy], d.ez[c]), dz = Y::yee_diff(d.ey[c + d.sz], d.ey[c]);
        const T ty = term<T, F, MODE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_HXY] + psi_y(d, ys, k, ky, i), P_YH, j);
        const T tz = term<T, F, MODE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_HXZ] + psi_z(d, zs, kz, j, i), P_ZH, k);
        d.hx[c] = Y::yee_sub_mul(d.hx[c], M ? hcoef<T>(d.hmat[c]) : ch, Y::yee_diff(ty, tz));
    }
    if (i <= d.nx - 2 && k <= d.nz - 2) {
        const T dz = Y::yee_diff(d.ex[c + d.sz], d.ex[c]), dx = Y::yee_diff(d.ez[c + 1], d.ez[c]);
        const T tz = term<T, F, MODE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_HYZ] + psi_z(d, zs, kz, j, i), P_ZH, k);
        const T tx = term<T, F, MODE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_HYX] + psi_x(d, xs, k, j, kx), P_XH, i);
        d.hy[c] = Y::yee_sub_mul(d.hy[c], M ? hcoef<T>(d.hmat[d.hs + c]) : ch, Y::yee_diff(tz, tx));
    }
    if (i <= d.nx - 2 && j <= d.ny - 2) {
        const T dx = Y::yee_diff(d.ey[c + 1], d.ey[c]), dy = Y::yee_diff(d.ex[c + d.sy], d.ex[c]);
        const T tx = term<T, F, MODE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_HZX] + psi_x(d, xs, k, j, kx), P_XH, i);
        const T ty = term<T, F, MODE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_HZY] + psi_y(d, ys, k, ky, i), P_YH, j);
        d.hz[c] = Y::yee_sub_mul(d.hz[c], M ? hcoef<T>(d.hmat[2 * d.hs + c]) : ch, Y::yee_diff(tx, ty));
    }
}

/* What a field kernel updates (its template argument E): H, E, or E with
 * the lossy update (a scene with sigma != 0: E = ca E + cb curl H), or H
 * with the node map (a scene with mu_r != 1). */
enum { E_NONE = 0, E_PLAIN = 1, E_LOSSY = 2, H_MAG = 3 };
#define IS_E(E) ((E) == E_PLAIN || (E) == E_LOSSY)

/* E of cell (i, j, k): Ex, Ey, Ez in update3d.inc's order; L: the lossy update. */
template <typename T, bool F, int MODE, bool L>
__device__ __forceinline__ void e_cell(const Dev3<T> &d, int i, int j, int k)
{
    typedef Yee<T, F> Y;
    const long long c = cell3(d, i, j, k);
    int kx = 0, ky = 0, kz = 0, xs = -1, ys = -1, zs = -1;
    if (MODE != MODE_NONE) {
        xs = dslab_e(d.nx, d.N, i, &kx);
        ys = dslab_e(d.ny, d.N, j, &ky);
        zs = dslab_e(d.nz, d.N, k, &kz);
    }
    const uint8_t *mc = d.mat + c; /* component a at mc[a * d.ms] */
    const bool jin = j >= 1 && j <= d.ny - 2, kin = k >= 1 && k <= d.nz - 2,
               iin = i >= 1 && i <= d.nx - 2;
    if (i <= d.nx - 2 && jin && kin) {
        const T dy = Y::yee_diff(d.hz[c], d.hz[c - d.sy]), dz = Y::yee_diff(d.hy[c], d.hy[c - d.sz]);
        const T ty = term<T, F, MODE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_EXY] + psi_y(d, ys, k, ky, i), P_YE, j);
        const T tz = term<T, F, MODE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_EXZ] + psi_z(d, zs, kz, j, i), P_ZE, k);
        d.ex[c] = e_upd<T, F, L>(d.ex[c], 0, mc[0], Y::yee_diff(ty, tz));
    }
    if (iin && j <= d.ny - 2 && kin) {
        const T dz = Y::yee_diff(d.hx[c], d.hx[c - d.sz]), dx = Y::yee_diff(d.hz[c], d.hz[c - 1]);
        const T tz = term<T, F, MODE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_EYZ] + psi_z(d, zs, kz, j, i), P_ZE, k);
        const T tx = term<T, F, MODE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_EYX] + psi_x(d, xs, k, j, kx), P_XE, i);
        d.ey[c] = e_upd<T, F, L>(d.ey[c], 1, mc[d.ms], Y::yee_diff(tz, tx));
    }
    if (iin && jin && k <= d.nz - 2) {
        const T dx = Y::yee_diff(d.hy[c], d.hy[c - 1]), dy = Y::yee_diff(d.hx[c], d.hx[c - d.sy]);
        const T tx = term<T, F, MODE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_EZX] + psi_x(d, xs, k, j, kx), P_XE, i);
        const T ty = term<T, F, MODE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_EZY] + psi_y(d, ys, k, ky, i), P_YE, j);
        d.ez[c] = e_upd<T, F, L>(d.ez[c], 2, mc[2 * d.ms], Y::yee_diff(tx, ty));
    }
}

/* Field kernels over a box: a thread per (i, j), blockIdx.z = plane.  The
 * lanes of a warp take consecutive i (x is the fastest index in memory), so
 * its loads are coalesced; with U (the coalescing paper's counter-example,
 * for the benchmark) they take consecutive j instead, a row pitch apart.
 * The cell's arithmetic, and so its bits, is the same either way. */
template <typename T, bool F, int MODE, int E, bool U = false>
__global__ void __launch_bounds__(256) k_field(Dev3<T> d, Box b)
{
    const int i = b.x0 + (U ? blockIdx.x * blockDim.y + threadIdx.y : blockIdx.x * blockDim.x + threadIdx.x);
    const int j = b.y0 + (U ? blockIdx.y * blockDim.x + threadIdx.x : blockIdx.y * blockDim.y + threadIdx.y);
    const int k = b.z0 + blockIdx.z;
    if (i >= b.x1 || j >= b.y1)
        return;
    if (IS_E(E))
        e_cell<T, F, MODE, E == E_LOSSY>(d, i, j, k);
    else
        h_cell<T, F, MODE, E == H_MAG>(d, i, j, k);
}

/* A2: the 26 PML regions in one launch; blockIdx.y picks the region, whose
 * cells the blocks walk x fastest (grid-stride). */
template <typename T, bool F, int E> __global__ void k_regions(Dev3<T> d, Regions r)
{
    const Box b = r.box[blockIdx.y];
    const int wx = b.x1 - b.x0, wy = b.y1 - b.y0;
    const long long n = (long long)wx * wy * (b.z1 - b.z0);
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
         t += (long long)gridDim.x * blockDim.x) {
        const int i = b.x0 + (int)(t % wx), j = b.y0 + (int)(t / wx % wy), k = b.z0 + (int)(t / wx / wy);
        if (IS_E(E))
            e_cell<T, F, MODE_INLINE, E == E_LOSSY>(d, i, j, k);
        else
            h_cell<T, F, MODE_INLINE, E == H_MAG>(d, i, j, k);
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
    typedef Yee<T, F> Y;
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
        const T d1 = E ? Y::yee_diff(s1[t], s1[t - 1]) : Y::yee_diff(s1[t + 1], s1[t]);
        const T d2 = E ? Y::yee_diff(s2[t], s2[t - 1]) : Y::yee_diff(s2[t + 1], s2[t]);
        (void)d1;
        (void)d2;
        /* fall through with the staged differences */
        int kk;
        const int sd = E ? dslab_e(d.nx, N, i, &kk) : dslab_h(d.nx, N, i, &kk);
        (void)sd;
        const int prof = E ? P_XE : P_XH;
        const T b = d.pb[prof][i], cc = d.pc[prof][i];
        const long long pidx = psi_x(d, side, k, j, kk);
        const T q1 = Y::yee_psi(d.psi[p1][pidx], b, cc, d1);
        const T q2 = Y::yee_psi(d.psi[p2][pidx], b, cc, d2);
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
    const T d1 = E ? Y::yee_diff(g1[c], g1[c - off]) : Y::yee_diff(g1[c + off], g1[c]);
    const T d2 = E ? Y::yee_diff(g2[c], g2[c - off]) : Y::yee_diff(g2[c + off], g2[c]);
    const T q1 = Y::yee_psi(d.psi[p1][pidx], b, cc, d1);
    const T q2 = Y::yee_psi(d.psi[p2][pidx], b, cc, d2);
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
template <typename T, bool F, bool APPLY>
__global__ void k_mur(T *e, MurPlane p, T *old, T kmur)
{
    typedef Yee<T, F> Y;
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
        e[w] = Y::yee_mur(old[t], kmur, e[nb], e[w]);
}


static int field_launch_box(const Box &b, dim3 *grid, dim3 *block)
{
    *block = dim3(32, 8, 1);
    *grid = dim3((unsigned)((b.x1 - b.x0 + 31) / 32), (unsigned)((b.y1 - b.y0 + 7) / 8),
                 (unsigned)(b.z1 - b.z0));
    return b.x1 > b.x0 && b.y1 > b.y0 && b.z1 > b.z0;
}

template <typename T, bool F, int MODE, int E>
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

/* H (E = E_NONE) or E over planes za <= k < zb (global, a part of this
 * rank's k0 .. k1-1) with the scene's CPML strategy.  Every strategy takes
 * any z range: combined one field kernel; regions the interior box and the
 * 26 regions, each cut to the range (on the host, per launch); per-face the
 * face kernels over the range, then the field kernel. */
template <typename T, bool F, int E>
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
        launch_faces<T, F, IS_E(E)>(d, c->zsides, za, zb); /* psi first, then the field reads them */
        launch_field<T, F, MODE_KAPPA, E>(d, box);
    }
}

/* E over planes za <= k < zb: the lossy kernels where the scene has a lossy
 * material, the lossless ones (today's code) elsewhere. */
template <typename T, bool F>
static void launch_e(const cuda3d_engine *c, const Dev3<T> &d, int za, int zb)
{
    if (c->lossy)
        launch_half<T, F, E_LOSSY>(c, d, za, zb);
    else
        launch_half<T, F, E_PLAIN>(c, d, za, zb);
}

/* H over planes za <= k < zb: with the node map where the scene has mu_r. */
template <typename T, bool F>
static void launch_h(const cuda3d_engine *c, const Dev3<T> &d, int za, int zb)
{
    if (c->magnetic)
        launch_half<T, F, H_MAG>(c, d, za, zb);
    else
        launch_half<T, F, E_NONE>(c, d, za, zb);
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

/* The two-kernel step (update3d.inc's order): H, H slots, [halo Hx Hy],
 * Mur save, E, Mur, dispersive entries, slots, point source, [halo Ex Ey].  Under MPI with NCCL (every
 * strategy's kernels take any z range) the exchanges overlap the interior:
 *   H on k0 .. k1-2 | wait for Ex, Ey plane k1 | H on k1-1 | start Hx, Hy
 *   Mur save | E on k0+1 .. k1-1 | wait for Hx, Hy plane k0-1 | E on k0
 *   Mur, slots, point | start Ex, Ey
 * Each cell runs the same statements on the same inputs either way: only
 * the order in which cells are visited changes, so the bits do not. */
template <typename T, bool F> int step_two(cuda3d_engine *c, const struct model *m, int n,
                                          char *err, size_t errlen)
{
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
        if (slots_upload<T>(c, m, t, err, errlen) || mat_upload<T>(c, m, t, err, errlen))
            return -1;
        /* H */
        if (split) {
            launch_h<T, F>(c, d, k0, k1 - 1);
            if (halo_wait(c, false, 0, err, errlen))
                return -1;
            launch_h<T, F>(c, d, k1 - 1, k1);
        } else {
            launch_h<T, F>(c, d, k0, k1);
        }
        hslots_apply<T, F>(c);
        if (mpi && halo_start(c, true, c->f, 0, err, errlen))
            return -1;
        if (mur)
            launch_mur<T, F, false>(c, d, kmur);
        /* E */
        if (split) {
            launch_e<T, F>(c, d, k0 + 1, k1);
            if (halo_wait(c, true, 0, err, errlen))
                return -1;
            launch_e<T, F>(c, d, k0, k0 + 1);
        } else {
            if (mpi && halo_wait(c, true, 0, err, errlen))
                return -1;
            launch_e<T, F>(c, d, k0, k1);
        }
        if (mur)
            launch_mur<T, F, true>(c, d, kmur);
        disp_apply<T, F>(c, d);
        sources_apply<T, F>(c, m, t, d.ez);
        take_samples<T>(c);
        CK(cudaGetLastError());
        if (mpi && halo_start(c, false, c->f, 0, err, errlen)) /* waited for before the next top H plane */
            return -1;
    }
    if (mpi && halo_wait(c, false, 0, err, errlen)) /* reads after the step see plane k1 */
        return -1;
    return 0;
}

int kernels_set_cezh(const cuda3d_engine *c, char *err, size_t errlen)
{
    return cezh_upload(c, err, errlen);
}

#define INST(T, F) template int step_two<T, F>(cuda3d_engine *, const struct model *, int, char *, size_t);
CUDA3D_INSTANTIATE_TF(INST)
#undef INST
