/* cuda3d_fused.cuh - the per-cell functions of the fused step of the 3D
 * CUDA engine (cuda3d_fused.cu), shared with the temporally blocked step
 * (cuda3d_tb.cu): the ping-pong view PP3, the three H components of a cell
 * (hx3, hy3, hz3) and its E (e3), cpu/update3d.inc's statements through
 * core/yee.h.  Both kernels call these same functions for every cell, so
 * what one computes for a cell the other computes with the same roundings.
 */
#ifndef TEXFDTD_CUDA3D_FUSED_CUH
#define TEXFDTD_CUDA3D_FUSED_CUH

#include "cuda3d_cell.cuh"

template <typename T> struct PP3 {
    Dev3<T> o;                              /* old fields, E psi (in place), old H psi */
    T *ex1, *ey1, *ez1, *hx1, *hy1, *hz1;   /* new fields */
    T *hpsi1[PSI_COUNT];                    /* new H psi (indices PSI_HXY..PSI_HZY; the
                                             * temporal path: the new E psi too) */
};

#define FULL_MASK3 0xffffffffu

/* The fused and temporal kernels' view of the engine: the current buffers
 * (old fields, E psi, old H psi) and the other one of each pair (new). */
template <typename T> static inline PP3<T> pp3_view(const cuda3d_engine *c, const struct model *m)
{
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
    return p;
}

/* After a fused or temporal launch the new buffers become the current ones
 * (f[] and psi[] always name the current ones). */
static inline void pp3_swap(cuda3d_engine *c)
{
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
}

/* psi = b psi + c d; d ik + psi, with the old psi from `old`, the new one
 * stored into `nw` when given (the owner). */
template <typename T, bool F>
__device__ __forceinline__ T term_pp(const Dev3<T> &d, T dd, const T *old, T *nw, long long p,
                                     int prof, int pos)
{
    typedef Yee<T, F> Y;
    const T b = d.pb[prof][pos], o = old[p], c = d.pc[prof][pos]; /* load order: term() */
    const T q = Y::yee_psi(o, b, c, dd);
    if (nw)
        nw[p] = q;
    return Y::yee_pml_term(dd, d.pik[prof][pos], q);
}

/* The three H components of cell (i, j, k), update3d.inc's statements; dy..
 * are the differences, h the old value; returns the new value.  rd: the cell
 * lies in the grid (psi may be read); own: this thread owns it (psi written).
 * IN: the caller knows the cell lies inside the faces (1 .. n-2 on every
 * axis), so the tests for them compile away (the temporal kernel's inner
 * blocks). */
template <typename T, bool F, bool PML, bool IN = false>
__device__ __forceinline__ T hx3(const PP3<T> &p, int i, int j, int k, bool rd, T dy, T dz, T h, bool own)
{
    typedef Yee<T, F> Y;
    const Dev3<T> &d = p.o;
    if (!IN && (j > d.ny - 2 || k > d.nz - 2))
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
    return Y::yee_sub_mul(h, d.ch, Y::yee_diff(ty, tz));
}
template <typename T, bool F, bool PML, bool IN = false>
__device__ __forceinline__ T hy3(const PP3<T> &p, int i, int j, int k, bool rd, T dz, T dx, T h, bool own)
{
    typedef Yee<T, F> Y;
    const Dev3<T> &d = p.o;
    if (!IN && (i > d.nx - 2 || k > d.nz - 2))
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
    return Y::yee_sub_mul(h, d.ch, Y::yee_diff(tz, tx));
}
template <typename T, bool F, bool PML, bool IN = false>
__device__ __forceinline__ T hz3(const PP3<T> &p, int i, int j, int k, bool rd, T dx, T dy, T h, bool own)
{
    typedef Yee<T, F> Y;
    const Dev3<T> &d = p.o;
    if (!IN && (i > d.nx - 2 || j > d.ny - 2))
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
    return Y::yee_sub_mul(h, d.ch, Y::yee_diff(tx, ty));
}

/* E of cell (i, j, k) from the new H around it; E psi in place (owner only);
 * m0 its E material map entry, loaded by the caller, for all three
 * components; with S (3D smoothing's three maps) components 1 and 2 at
 * mc[d.ms] and mc[2 d.ms].  (Loading all three from mc, though L1 hits
 * where ms = 0, cost this kernel 0.7 % at 512^3 on the H100, and a
 * run-time test of ms 1.0-1.4 %.)  L: the lossy update (cuda3d_cell.cuh
 * e_upd). */
template <typename T, bool F, bool PML, bool L, bool S, bool IN = false>
__device__ __forceinline__ void e3(const PP3<T> &p, int i, int j, int k, uint8_t m0, const uint8_t *mc, T &ex, T &ey, T &ez,
                                   T hx, T hy, T hz, T hz_jm, T hy_km, T hx_km, T hz_im, T hy_im,
                                   T hx_jm)
{
    typedef Yee<T, F> Y;
    const Dev3<T> &d = p.o;
    int kx = 0, ky = 0, kz = 0, xs = -1, ys = -1, zs = -1;
    if (PML) {
        xs = dslab_e(d.nx, d.N, i, &kx);
        ys = dslab_e(d.ny, d.N, j, &ky);
        zs = dslab_e(d.nz, d.N, k, &kz);
    }
    const bool jin = IN || (j >= 1 && j <= d.ny - 2), kin = IN || (k >= 1 && k <= d.nz - 2),
               iin = IN || (i >= 1 && i <= d.nx - 2);
    if ((IN || i <= d.nx - 2) && jin && kin) {
        const T dy = Y::yee_diff(hz, hz_jm), dz = Y::yee_diff(hy, hy_km);
        const T ty = term<T, F, MODE_INLINE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_EXY] + psi_y(d, ys, k, ky, i), P_YE, j);
        const T tz = term<T, F, MODE_INLINE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_EXZ] + psi_z(d, zs, kz, j, i), P_ZE, k);
        ex = e_upd<T, F, L>(ex, 0, m0, Y::yee_diff(ty, tz));
    }
    if (iin && (IN || j <= d.ny - 2) && kin) {
        const T dz = Y::yee_diff(hx, hx_km), dx = Y::yee_diff(hz, hz_im);
        const T tz = term<T, F, MODE_INLINE>(d, dz, zs, zs < 0 ? 0 : d.psi[PSI_EYZ] + psi_z(d, zs, kz, j, i), P_ZE, k);
        const T tx = term<T, F, MODE_INLINE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_EYX] + psi_x(d, xs, k, j, kx), P_XE, i);
        ey = e_upd<T, F, L>(ey, 1, S ? mc[d.ms] : m0, Y::yee_diff(tz, tx));
    }
    if (iin && jin && (IN || k <= d.nz - 2)) {
        const T dx = Y::yee_diff(hy, hy_im), dy = Y::yee_diff(hx, hx_jm);
        const T tx = term<T, F, MODE_INLINE>(d, dx, xs, xs < 0 ? 0 : d.psi[PSI_EZX] + psi_x(d, xs, k, j, kx), P_XE, i);
        const T ty = term<T, F, MODE_INLINE>(d, dy, ys, ys < 0 ? 0 : d.psi[PSI_EZY] + psi_y(d, ys, k, ky, i), P_YE, j);
        ez = e_upd<T, F, L>(ez, 2, S ? mc[2 * d.ms] : m0, Y::yee_diff(tx, ty));
    }
}

#endif
