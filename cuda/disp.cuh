/* disp.cuh - the D-E update of one dispersive entry on the device: the
 * coefficients of a dispersive material in the engine's precision and the
 * per-entry statements of cpu/disp_cell.inc (core/yee.h "Dispersive poles",
 * docs/materials-design.md section 3), in their order.  Used by the 3D
 * CUDA engine (cuda3d_mat.cu) and the 2D engine's k_disp2 (cuda2d.cu: the
 * dispersive cells and TE edges).
 * Memory access only: the arithmetic is core/yee.h's, through yee.cuh. */
#ifndef TEXFDTD_DISP_CUH
#define TEXFDTD_DISP_CUH

#include "yee.cuh"
extern "C" {
#include "core/material.h"
}
#include <string.h>

/* A dispersive material's coefficients (core/material.h) in T: the float
 * fields (_f) in float, as cpu/disp_cell.inc takes them. */
template <typename T> struct DispCoef {
    T sig, rdenom;
    int npoles;
    int kind[SCENE_MAX_POLES]; /* enum pole_kind */
    T c1[SCENE_MAX_POLES], c2[SCENE_MAX_POLES], c3[SCENE_MAX_POLES];
    T a[SCENE_MAX_POLES], b[SCENE_MAX_POLES];
};

template <typename T> static inline void disp_coef_fill(DispCoef<T> *o, const struct material_coef *mc)
{
    const bool f = sizeof(T) == 4;
    memset(o, 0, sizeof *o);
    o->sig = f ? (T)mc->sigma_p_f : (T)mc->sigma_p;
    o->rdenom = f ? (T)mc->rdenom_f : (T)mc->rdenom;
    o->npoles = mc->npoles;
    for (int q = 0; q < mc->npoles; q++) {
        const struct material_pole_coef *pc = &mc->poles[q];
        o->kind[q] = (int)pc->kind;
        o->c1[q] = f ? (T)pc->c1_f : (T)pc->c1;
        o->c2[q] = f ? (T)pc->c2_f : (T)pc->c2;
        o->c3[q] = f ? (T)pc->c3_f : (T)pc->c3;
        o->a[q] = f ? (T)pc->a_f : (T)pc->a;
        o->b[q] = f ? (T)pc->b_f : (T)pc->b;
    }
}

/* cpu/disp_cell.inc on the device: from the stored scattered E^n (e_s),
 * S curl H_s (sc), this step's Ei^{n+1} (v) and the entry's state D_s,
 * Ei^n, P^n, P^{n-1} (ds, ei, p, pold), the new state and the stored
 * scattered E^{n+1}, returned. */
template <typename T, bool F>
__device__ __forceinline__ T disp_entry(const DispCoef<T> &mc, T e_s, T sc, T v, T *ds, T *ei,
                                        T *p, T *pold)
{
    typedef Yee<T, F> Y;
    const T sig = mc.sig;
    const T e0 = Y::yee_add(e_s, *ei);
    T r = Y::yee_disp_rhs(*ds, sc, v, sig, e0);
    for (int q = 0; q < mc.npoles; q++) {
        if (mc.kind[q] == POLE_DEBYE) {
            r = Y::yee_disp_debye_rhs(r, mc.a[q], p[q], mc.b[q], e0);
        } else {
            const T pn = Y::yee_disp_lorentz(p[q], pold[q], mc.c1[q], mc.c2[q], mc.c3[q], e0);
            pold[q] = p[q];
            p[q] = pn;
            r = Y::yee_diff(r, pn);
        }
    }
    const T e1 = Y::yee_disp_e(mc.rdenom, r);
    for (int q = 0; q < mc.npoles; q++)
        if (mc.kind[q] == POLE_DEBYE)
            p[q] = Y::yee_disp_debye(p[q], mc.a[q], mc.b[q], e1, e0);
    *ds = Y::yee_disp_d(*ds, sc, sig, e1, e0);
    *ei = v;
    return Y::yee_diff(e1, v);
}

#endif
