/* cuda3d_tb.cuh - what the two temporally blocked kernels of the 3D CUDA
 * engine share: k_tb3 (cuda3d_tb.cu, a thread per column of the tile) and
 * k_tb3r (cuda3d_tbr.cu, a thread per 2 rows of a column, x neighbours by
 * warp shuffles).  The launch's sources and samples (Tb3Src), the parts of the
 * tiles a launch takes, a block's z chunk, and the per-cell functions with
 * the psi in registers (hx_q .. e_q).  docs/cuda.md, "3D temporal
 * blocking", explains them.
 */
#ifndef TEXFDTD_CUDA3D_TB_CUH
#define TEXFDTD_CUDA3D_TB_CUH

#include "cuda3d_fused.cuh"

template <typename T> struct Tb3Src {
    long long pc; /* the point source's array index, or -1 */
    int pi, pj, pk; /* its column, row and (global) plane (k_tb3r) */
    T pv[4];      /* its values for the launch's K steps */
    /* the source slots (NULL map: none): slot number per padded cell (-1
     * elsewhere), per slot its kind (k_slots: 0 add, 1 set, 2 leave), the
     * values [K][ns] of the launch's steps */
    const int *slot_map;
    const uint8_t *slot_kind;
    const T *slot_v;
    long long ns;
    int kz;   /* planes per block (the z chunk) */
    /* on a rank that holds the low (high) z face the first (last) chunk
     * is the zlo (zhi) planes next to it (tb_faces: with a CPML the z slab
     * and the K planes whose halo reaches it, without one K + 1), and
     * where the exchange is overlapped the same at a side with a
     * neighbour (its edge chunk); zm chunks of kz planes lie between;
     * zlo = zhi = 0: every chunk kz planes from k0 */
    int zlo, zhi, zm;
    /* which of those chunks this launch runs (tb_zb): zsel 0 all; 1 the
     * rank's edge chunks, its first where zelo, its last where zehi (the
     * planes the exchange sends: step_tb, overlapped); 2 the others */
    int zsel, zelo, zehi;
    int part; /* the tiles this launch takes (TB_ALL .. TB_SLABN) */
    int loud; /* k_tb3, k_tb3r: every block runs the per-cell source tail (bench) */
    /* the monitors' samples (NULL map: none this launch): the first sample
     * per padded cell (-1: none) and the next of the same cell, each one's
     * field (0 ex .. 5 hz), and the rows of steps 1 .. srows of this launch
     * (row s-1 at srow + (s-1) sn) */
    const int *smap, *snext;
    const uint8_t *sf;
    T *srow;
    long long sn;
    int srows;
    /* the band of rows yb0 .. yb1 - 1 that launch_tb3r_band tiles with
     * 32 x 16 tiles (tb_band; unused elsewhere) */
    int yb0, yb1;
};

/* Which tiles a launch takes: all; with a CPML those whose cells, halo
 * included, meet no CPML slab (the kernel without psi) or the others;
 * without one the inner tiles (every cell they compute lies inside the
 * faces: the kernel without the face tests) or the others.  (With a CPML
 * of N >= 1 cells a tile that meets no slab is inner too.) */
enum { TB_ALL, TB_INTERIOR, TB_SLAB, TB_INNER, TB_OUTER, TB_SLABX, TB_SLABY, TB_SLABZ, TB_SLABN };

/* ---- CPML inside the block ----------------------------------------------
 * A cell's psi are state like its fields: psi of level s = b (psi of level
 * s-1) + c d, made by the statement that makes the field (update3d.inc),
 * from the cell's own psi of the level before.  So each level keeps, per
 * thread, the 12 psi of the plane it made last (PSI_* order), passed down the
 * levels as H is; level 1 reads them from the old psi, level K stores the
 * own cells' into the new (both H and E psi are pairs on this path: a halo
 * reads the old E psi of cells another block updates).  psi that do not
 * apply to the cell (no slab along their axis, or a component the step
 * leaves) pass through unchanged.  hx_q .. e_q are hx3 .. e3 of
 * cuda3d_fused.cuh with psi from these registers instead of memory: the
 * same statements, terms and roundings (term_q is term_pp's arithmetic). */

/* psi = b o + c d (into q); d ik + psi. */
template <typename T, bool F>
__device__ __forceinline__ T term_q(const Dev3<T> &d, T dd, T o, T &q, int prof, int pos)
{
    typedef Yee<T, F> Y;
    const T b = d.pb[prof][pos], c = d.pc[prof][pos];
    q = Y::yee_psi(o, b, c, dd);
    return Y::yee_pml_term(dd, d.pik[prof][pos], q);
}

/* Which psi a slab tile carries in registers (PM): all 12 (PM 2: a tile
 * that meets the slabs of two or three axes, TB_SLABN), or only the 4 of
 * the one axis whose slab it meets (PM 3, 4, 5: x, y, z; TB_SLABX .. Z:
 * most slab tiles; the others' terms are plain there).  Then psi q sits in
 * slot q / 3 (the 4 of an axis, in the enum's order, are E, E, H, H and
 * q / 3 numbers them 0 .. 3 on every axis), and slot l holds psi
 * tb_psi_of(l, PM - 3).  measured: the 12 psi a level spilled at 1024
 * threads a block (64 registers); the axis known at compile time leaves
 * the other axes' tests out. */
template <int PM> __host__ __device__ constexpr int tb_np() { return PM == 2 ? PSI_COUNT : PM >= 3 ? 4 : 1; }
template <int PM> __device__ __forceinline__ constexpr int tb_slot(int q) { return PM == 2 ? q : q / 3; }
/* Is a tile of part PM inside the faces of axis a (0 x, 1 y, 2 z), halo
 * included?  A one-axis slab tile (PM 3, 4, 5) meets no slab of the other
 * two axes (tb_take), so along them its cells lie in [N, n - 2 - N]: there
 * the face tests compile away, as in an inner tile (IN). */
template <int PM> __host__ __device__ constexpr bool tb_in(int a) { return PM >= 3 && PM - 3 != a; }
/* Does the tile carry psi q? */
template <int PM> __device__ __forceinline__ bool tb_has(int q)
{
    return PM == 2 || (PM >= 3 && psi_axis_of(q) == PM - 3);
}
__device__ __forceinline__ int tb_psi_of(int l, int ax)
{
    const int x[4] = {PSI_EYX, PSI_EZX, PSI_HYX, PSI_HZX}, y[4] = {PSI_EXY, PSI_EZY, PSI_HXY, PSI_HZY},
              z[4] = {PSI_EXZ, PSI_EYZ, PSI_HXZ, PSI_HYZ};
    return ax == 0 ? x[l] : ax == 1 ? y[l] : z[l];
}

/* The array index of psi q of cell (i, j, k), or -1 where the cell lies in
 * no slab along q's axis (H psi: dslab_h, E psi: dslab_e). */
template <typename T>
__device__ __forceinline__ long long psi_index(const Dev3<T> &d, int q, int i, int j, int k)
{
    const int a = psi_axis_of(q), n = a == 0 ? d.nx : a == 1 ? d.ny : d.nz, pos = a == 0 ? i : a == 1 ? j : k;
    int kk = 0;
    const int side = q >= PSI_HXY ? dslab_h(n, d.N, pos, &kk) : dslab_e(n, d.N, pos, &kk);
    if (side < 0)
        return -1;
    return a == 0 ? psi_x(d, side, k, j, kk) : a == 1 ? psi_y(d, side, k, kk, i) : psi_z(d, side, kk, j, i);
}

/* k_tb3r's psi indices, in IX (int where tb_ix32: every psi array is
 * smaller than the fields), found once instead of at every load and store
 * (psi_index).  PM 3, 4: whether the row's cell (column i, row j) has the
 * E (h 0) or H (h 1) psi of the tile's axis (its column, or row, lies in
 * a slab: the same on every plane), and their index at plane 0 (base);
 * plane k lies tb_psi_step k further. */
template <typename T, int PM, typename IX>
__device__ __forceinline__ bool tb_psi_row(const Dev3<T> &d, int h, int i, int j, IX *base)
{
    int kk = 0;
    const int n = PM == 3 ? d.nx : d.ny, pos = PM == 3 ? i : j;
    const int side = h ? dslab_h(n, d.N, pos, &kk) : dslab_e(n, d.N, pos, &kk);
    /* psi_x, psi_y at plane 0 (once a thread: their 64-bit arithmetic) */
    *base = side < 0 ? IX(0) : PM == 3 ? (IX)psi_x(d, side, 0, j, kk) : (IX)psi_y(d, side, 0, kk, i);
    return side >= 0;
}
template <typename T, int PM, typename IX> __device__ __forceinline__ IX tb_psi_step(const Dev3<T> &d)
{
    return PM == 3 ? (IX)d.ny * d.N : (IX)d.N * d.px;
}
/* PM 5: the z psi's term of plane k, E (h 0) or H (h 1) (psi_z less
 * j px + i), or -1 where plane k lies in no z slab of that kind. */
template <typename T, typename IX> __device__ __forceinline__ IX tb_psi_plane(const Dev3<T> &d, int h, int k)
{
    int kk = 0;
    const int side = h ? dslab_h(d.nz, d.N, k, &kk) : dslab_e(d.nz, d.N, k, &kk);
    return side < 0 ? IX(-1) : ((IX)(side - d.zs0) * d.N + kk) * d.ny * d.px;
}

/* psi = b o + c d (into q); d ik + psi: term_q, where PM 3 and 4 (x, y)
 * take b, c, ik from pc6, the thread's entries of its column's (x) or
 * row's (y) profile loaded once (E: 0 .. 2, H: 3 .. 5), since only that
 * axis' terms occur in such a tile; and PM 5 (z) where pc6 is given, the
 * entries of the level's plane (k_tb3r loads them once a level for both
 * rows; k_tb3 passes NULL: term_q). */
template <typename T, bool F, int PM>
__device__ __forceinline__ T term_c(const Dev3<T> &d, T dd, T o, T &q, int prof, int pos, const T *pc6)
{
    if constexpr (PM == 3 || PM == 4 || PM == 5) {
        if (PM == 5 && !pc6)
            return term_q<T, F>(d, dd, o, q, prof, pos);
        typedef Yee<T, F> Y;
        const int h = prof == P_XH || prof == P_YH || prof == P_ZH ? 3 : 0;
        q = Y::yee_psi(o, pc6[h], pc6[h + 1], dd);
        return Y::yee_pml_term(dd, pc6[h + 2], q);
    } else {
        (void)pc6;
        return term_q<T, F>(d, dd, o, q, prof, pos);
    }
}

/* pc6 for term_c: PM 3 (4, 5) the entries of the x (y, z) profiles at
 * column (row, plane) pos, E then H, where pos lies in the grid; zeros
 * elsewhere and for the other parts.  (k_tb3 and k_tb3r, once a thread or
 * a row; k_tb3r's z tiles once a level.) */
template <typename T, int PM>
__device__ __forceinline__ void tb_profile6(const Dev3<T> &d, int pos, T *pc6)
{
#pragma unroll
    for (int h = 0; h < 6; h++)
        pc6[h] = T(0);
    if constexpr (PM == 3 || PM == 4 || PM == 5) {
        const int pe = PM == 3 ? P_XE : PM == 4 ? P_YE : P_ZE;
        if (pos >= 0 && pos < (PM == 3 ? d.nx : PM == 4 ? d.ny : d.nz))
#pragma unroll
            for (int h = 0; h < 2; h++) {
                pc6[3 * h] = d.pb[pe + h][pos];
                pc6[3 * h + 1] = d.pc[pe + h][pos];
                pc6[3 * h + 2] = d.pik[pe + h][pos];
            }
    }
}

/* hx_q .. e_q: hx3 .. e3 with the psi of the PM slots (o: the level
 * before's, q: this level's); pc6: term_c. */
template <typename T, bool F, int PM>
__device__ __forceinline__ T hx_q(const Dev3<T> &d, int i, int j, int k, T dy, T dz, T h, const T *o, T *q, const T *pc6)
{
    typedef Yee<T, F> Y;
    (void)i;
    if ((!tb_in<PM>(1) && j > d.ny - 2) || (!tb_in<PM>(2) && k > d.nz - 2))
        return h;
    int kk;
    const T ty = tb_has<PM>(PSI_HXY) && dslab_h(d.ny, d.N, j, &kk) >= 0
                     ? term_c<T, F, PM>(d, dy, o[tb_slot<PM>(PSI_HXY)], q[tb_slot<PM>(PSI_HXY)], P_YH, j, pc6) : dy;
    const T tz = tb_has<PM>(PSI_HXZ) && dslab_h(d.nz, d.N, k, &kk) >= 0
                     ? term_c<T, F, PM>(d, dz, o[tb_slot<PM>(PSI_HXZ)], q[tb_slot<PM>(PSI_HXZ)], P_ZH, k, pc6) : dz;
    return Y::yee_sub_mul(h, d.ch, Y::yee_diff(ty, tz));
}
template <typename T, bool F, int PM>
__device__ __forceinline__ T hy_q(const Dev3<T> &d, int i, int j, int k, T dz, T dx, T h, const T *o, T *q, const T *pc6)
{
    typedef Yee<T, F> Y;
    (void)j;
    if ((!tb_in<PM>(0) && i > d.nx - 2) || (!tb_in<PM>(2) && k > d.nz - 2))
        return h;
    int kk;
    const T tz = tb_has<PM>(PSI_HYZ) && dslab_h(d.nz, d.N, k, &kk) >= 0
                     ? term_c<T, F, PM>(d, dz, o[tb_slot<PM>(PSI_HYZ)], q[tb_slot<PM>(PSI_HYZ)], P_ZH, k, pc6) : dz;
    const T tx = tb_has<PM>(PSI_HYX) && dslab_h(d.nx, d.N, i, &kk) >= 0
                     ? term_c<T, F, PM>(d, dx, o[tb_slot<PM>(PSI_HYX)], q[tb_slot<PM>(PSI_HYX)], P_XH, i, pc6) : dx;
    return Y::yee_sub_mul(h, d.ch, Y::yee_diff(tz, tx));
}
template <typename T, bool F, int PM>
__device__ __forceinline__ T hz_q(const Dev3<T> &d, int i, int j, int k, T dx, T dy, T h, const T *o, T *q, const T *pc6)
{
    typedef Yee<T, F> Y;
    (void)k;
    if ((!tb_in<PM>(0) && i > d.nx - 2) || (!tb_in<PM>(1) && j > d.ny - 2))
        return h;
    int kk;
    const T tx = tb_has<PM>(PSI_HZX) && dslab_h(d.nx, d.N, i, &kk) >= 0
                     ? term_c<T, F, PM>(d, dx, o[tb_slot<PM>(PSI_HZX)], q[tb_slot<PM>(PSI_HZX)], P_XH, i, pc6) : dx;
    const T ty = tb_has<PM>(PSI_HZY) && dslab_h(d.ny, d.N, j, &kk) >= 0
                     ? term_c<T, F, PM>(d, dy, o[tb_slot<PM>(PSI_HZY)], q[tb_slot<PM>(PSI_HZY)], P_YH, j, pc6) : dy;
    return Y::yee_sub_mul(h, d.ch, Y::yee_diff(tx, ty));
}
/* e3's E of a cell (its arguments), psi from o into q. */
template <typename T, bool F, bool L, bool S, int PM>
__device__ __forceinline__ void e_q(const Dev3<T> &d, int i, int j, int k, uint8_t m0, const uint8_t *mc,
                                    T &ex, T &ey, T &ez, T hx, T hy, T hz, T hz_jm, T hy_km, T hx_km,
                                    T hz_im, T hy_im, T hx_jm, const T *o, T *q, const T *pc6)
{
    typedef Yee<T, F> Y;
    int kk;
    const bool xs = dslab_e(d.nx, d.N, i, &kk) >= 0, ys = dslab_e(d.ny, d.N, j, &kk) >= 0,
               zs = dslab_e(d.nz, d.N, k, &kk) >= 0;
    const bool jin = tb_in<PM>(1) || (j >= 1 && j <= d.ny - 2), kin = tb_in<PM>(2) || (k >= 1 && k <= d.nz - 2),
               iin = tb_in<PM>(0) || (i >= 1 && i <= d.nx - 2);
    if ((tb_in<PM>(0) || i <= d.nx - 2) && jin && kin) {
        const T dy = Y::yee_diff(hz, hz_jm), dz = Y::yee_diff(hy, hy_km);
        const T ty = tb_has<PM>(PSI_EXY) && ys
                         ? term_c<T, F, PM>(d, dy, o[tb_slot<PM>(PSI_EXY)], q[tb_slot<PM>(PSI_EXY)], P_YE, j, pc6) : dy;
        const T tz = tb_has<PM>(PSI_EXZ) && zs
                         ? term_c<T, F, PM>(d, dz, o[tb_slot<PM>(PSI_EXZ)], q[tb_slot<PM>(PSI_EXZ)], P_ZE, k, pc6) : dz;
        ex = e_upd<T, F, L>(ex, 0, m0, Y::yee_diff(ty, tz));
    }
    if (iin && (tb_in<PM>(1) || j <= d.ny - 2) && kin) {
        const T dz = Y::yee_diff(hx, hx_km), dx = Y::yee_diff(hz, hz_im);
        const T tz = tb_has<PM>(PSI_EYZ) && zs
                         ? term_c<T, F, PM>(d, dz, o[tb_slot<PM>(PSI_EYZ)], q[tb_slot<PM>(PSI_EYZ)], P_ZE, k, pc6) : dz;
        const T tx = tb_has<PM>(PSI_EYX) && xs
                         ? term_c<T, F, PM>(d, dx, o[tb_slot<PM>(PSI_EYX)], q[tb_slot<PM>(PSI_EYX)], P_XE, i, pc6) : dx;
        ey = e_upd<T, F, L>(ey, 1, S ? mc[d.ms] : m0, Y::yee_diff(tz, tx));
    }
    if (iin && jin && (tb_in<PM>(2) || k <= d.nz - 2)) {
        const T dx = Y::yee_diff(hy, hy_im), dy = Y::yee_diff(hx, hx_jm);
        const T tx = tb_has<PM>(PSI_EZX) && xs
                         ? term_c<T, F, PM>(d, dx, o[tb_slot<PM>(PSI_EZX)], q[tb_slot<PM>(PSI_EZX)], P_XE, i, pc6) : dx;
        const T ty = tb_has<PM>(PSI_EZY) && ys
                         ? term_c<T, F, PM>(d, dy, o[tb_slot<PM>(PSI_EZY)], q[tb_slot<PM>(PSI_EZY)], P_YE, j, pc6) : dy;
        ez = e_upd<T, F, L>(ez, 2, S ? mc[2 * d.ms] : m0, Y::yee_diff(tx, ty));
    }
}

/* zm: the chunks of kz planes between the rank's zlo and zhi planes. */
template <typename T> static inline int tb_mid_chunks(const Tb3Src<T> &src, int nzo)
{
    return (nzo - src.zlo - src.zhi + src.kz - 1) / src.kz;
}

/* The chunks of a rank of nzo planes (tb_chunk). */
template <typename T> __host__ __device__ __forceinline__ int tb_nchunks(const Tb3Src<T> &src, int nzo)
{
    return src.zlo || src.zhi ? src.zm + (src.zlo > 0) + (src.zhi > 0) : (nzo + src.kz - 1) / src.kz;
}

/* The chunk of this block (blockIdx.z) among the launch's (src.zsel). */
template <typename T> __device__ __forceinline__ int tb_zb(const Dev3<T> &d, const Tb3Src<T> &src)
{
    const int b = (int)blockIdx.z;
    return src.zsel == 0 ? b : src.zsel == 2 ? b + src.zelo : b < src.zelo ? 0 : tb_nchunks(src, d.nzo) - 1;
}

/* The planes z0 .. z1-1 of block z-index b: this rank's planes k0 ..
 * k0+nzo-1 (one rank: all) in chunks of kz (or zlo, zm x kz, zhi). */
template <typename T>
__device__ __forceinline__ void tb_chunk(const Dev3<T> &d, const Tb3Src<T> &src, int b, int *z0, int *z1)
{
    const int zend = d.k0 + d.nzo;
    if (src.zlo == 0 && src.zhi == 0) {
        *z0 = d.k0 + b * src.kz;
        *z1 = min(*z0 + src.kz, zend);
    } else if (src.zlo && b == 0) {
        *z0 = d.k0;
        *z1 = d.k0 + src.zlo;
    } else if (b - (src.zlo ? 1 : 0) < src.zm) {
        *z0 = d.k0 + src.zlo + (b - (src.zlo ? 1 : 0)) * src.kz;
        *z1 = min(*z0 + src.kz, zend - src.zhi);
    } else {
        *z0 = zend - src.zhi;
        *z1 = zend;
    }
}

/* Does the block of the tile whose columns are i0 .. i0+31 and rows j0 ..
 * j0+TY-1 take part in this launch (src.part)?  Every cell the block
 * computes counts: its columns, rows, and planes zs .. z1 + K - 2 (level
 * 1's last; it reads E of z1 + K - 1).  The same for the whole block. */
template <typename T, int K, int TY>
__device__ __forceinline__ bool tb_take(const Dev3<T> &d, int part, int i0, int j0, int zs, int z1)
{
    if (part == TB_ALL)
        return true;
    if (part != TB_INNER && part != TB_OUTER) {
        const bool mx = tb_meets(i0, i0 + 31, d.nx, d.N), my = tb_meets(j0, j0 + TY - 1, d.ny, d.N),
                   mz = tb_meets(zs, z1 + K - 2, d.nz, d.N);
        const int axes = mx + my + mz;
        return part == TB_INTERIOR ? axes == 0 : part == TB_SLAB ? axes > 0 : part == TB_SLABN ? axes > 1
               : axes == 1 && (part == TB_SLABX ? mx : part == TB_SLABY ? my : mz);
    }
    const bool inner = i0 >= 1 && i0 + 31 <= d.nx - 2 && j0 >= 1 && j0 + TY - 1 <= d.ny - 2
                       && zs >= 1 && z1 + K - 1 <= d.nz - 2;
    return inner == (part == TB_INNER);
}


/* k_tb3's dynamic shared memory where the 12-psi tiles keep their psi
 * there (PSS: K levels of 12 a thread, 32 x ty threads, es bytes each). */
static inline size_t tb_pss_bytes(int K, int ty, size_t es) { return (size_t)K * PSI_COUNT * 32 * ty * es; }

/* The tiles along x and y of one launch (tiles width cells wide). */
static inline int tb_tiles(int n, int width, int K) { return (n + width - 2 * K - 1) / (width - 2 * K); }

/* The blocks along z of one launch: its chunks (tb_chunk) of those
 * src.zsel takes (tb_zb; one chunk that is both edges, once). */
template <typename T> static inline unsigned tb_zblocks(const cuda3d_engine *c, const Tb3Src<T> &src)
{
    const int n = tb_nchunks(src, c->k1 - c->k0), e = src.zelo + src.zehi < n ? src.zelo + src.zehi : n;
    return (unsigned)(src.zsel == 0 ? n : src.zsel == 1 ? e : n - e);
}

/* cuda3d_tbr.cu (float only): k_tb3r over the tiles of src.part, which
 * carry no psi, 2 rows a thread (c->tbk steps, tiles 32 x c->tby), inner
 * tiles without the face tests (in); and that file's copy of the
 * coefficient table. */
template <typename T, bool F>
void launch_tb3r(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, bool in);
template <typename T, bool F>
void launch_tb3r_band(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src);
template <typename T, bool F, int PM>
void launch_tb3r_slab(const cuda3d_engine *c, const PP3<T> &p, const Tb3Src<T> &src, cudaStream_t st);
int tbr_set_cezh(const cuda3d_engine *c, char *err, size_t errlen);

#endif
