/* yee.h - the per-cell arithmetic of every engine, written once.
 *
 * Each function below is one update of one cell (or one lane, or one
 * texel): the values it needs come in as arguments and the new value goes
 * out as the result.  Memory access (arrays, textures, shared memory,
 * vector lanes, psi storage) stays with each engine; this file holds only
 * the arithmetic, in the one operation order that every engine follows,
 * so that float32 results are bit-identical between the C, GLSL and CUDA
 * engines (docs/accuracy.md section 1).
 *
 * The file is written in the common subset of C11, CUDA C++ and GLSL 4.30:
 * no pointers, no literals, no library calls, every intermediate a named
 * value.  A short prelude per language defines the few macros it uses:
 *
 *   Y_REAL        the real type: float or double (GLSL: float)
 *   Y_FN          `static inline` (C), `static __device__ __forceinline__`
 *                 (CUDA, inside struct Yee<T, FTZ>), nothing (GLSL)
 *   Y_NAME(n)     n##_f or n##_d in C (the file is included once per
 *                 precision), n in CUDA and GLSL
 *   Y_LET         declares a rounded intermediate: `const Y_REAL` in C and
 *                 CUDA, `precise float` in GLSL (so the driver neither fuses
 *                 a*b+c into an FMA nor reorders)
 *   Y_ADD(a, b), Y_SUB(a, b), Y_MUL(a, b)
 *                 one IEEE operation, rounded to nearest, with the engine's
 *                 denormal treatment: in C the plain operator (built with
 *                 -ffp-contract=off; FTZ/DAZ is the hardware mode set by
 *                 cpu_set_denormal_mode); in CUDA Ar<T, FTZ> of
 *                 cuda/common.cuh (__fadd_rn or add.rn.ftz.f32); in GLSL the
 *                 operator with F() on operands and result (shaders/
 *                 yee_prelude.glsl: F flushes denormals where the driver
 *                 keeps them)
 *
 * The preludes: core/yee_c.h (C), cuda/yee.cuh (CUDA),
 * shaders/yee_prelude.glsl (GLSL; shaders/update2d.glsl includes the prelude
 * and this file, gl/shader.c splices them in and finds this file beside the
 * shaders once installed, or in ../core of the source tree).  No division appears anywhere: GLSL's is not
 * correctly rounded, so reciprocals come precomputed from the host
 * (core/model.c), in double, rounded once.
 *
 * Units: H is stored as eta0 H, so the free-space coefficient of both
 * updates is the Courant number S = c dt / dx (Takada et al. 2007, eq. 3;
 * Taflove and Hagness, ch. 3).
 */

/* ---- Building blocks ----------------------------------------------------
 * a - b;   a + b c;   a - b c                  (each product rounded, then the sum) */
Y_FN Y_REAL Y_NAME(yee_diff)(Y_REAL a, Y_REAL b)
{
    Y_LET r = Y_SUB(a, b);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_add_mul)(Y_REAL a, Y_REAL b, Y_REAL c)
{
    Y_LET t = Y_MUL(b, c);
    Y_LET r = Y_ADD(a, t);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_sub_mul)(Y_REAL a, Y_REAL b, Y_REAL c)
{
    Y_LET t = Y_MUL(b, c);
    Y_LET r = Y_SUB(a, t);
    return r;
}

/* ---- The Yee updates ----------------------------------------------------
 * A field component from the difference of its two neighbours across it
 * (2D TMz, H from Ez):
 *   Hx(i, j+1/2) -= S [Ez(i, j+1) - Ez(i, j)]      yee_h_sub(hx, S, ez_n, ez_c)
 *   Hy(i+1/2, j) += S [Ez(i+1, j) - Ez(i, j)]      yee_h_add(hy, S, ez_e, ez_c)
 * or from a curl of two differences (2D Ez; every 3D component):
 *   Ez(i, j) += (S / eps_r) {[Hy(i+1/2, j) - Hy(i-1/2, j)] - [Hx(i, j+1/2) - Hx(i, j-1/2)]}
 *                                                yee_curl_add(ez, cezh, hy_c, hy_w, hx_c, hx_s)
 *   3D H:  h -= S [(p1 - p0) - (q1 - q0)]        yee_curl_sub
 * Inside a CPML slab each difference d becomes the stretched t = d ik + psi
 * (below) and the update is yee_add_mul / yee_sub_mul of the terms. */
Y_FN Y_REAL Y_NAME(yee_h_sub)(Y_REAL h, Y_REAL c, Y_REAL e1, Y_REAL e0)
{
    return Y_NAME(yee_sub_mul)(h, c, Y_NAME(yee_diff)(e1, e0));
}

Y_FN Y_REAL Y_NAME(yee_h_add)(Y_REAL h, Y_REAL c, Y_REAL e1, Y_REAL e0)
{
    return Y_NAME(yee_add_mul)(h, c, Y_NAME(yee_diff)(e1, e0));
}

Y_FN Y_REAL Y_NAME(yee_curl_add)(Y_REAL f, Y_REAL c, Y_REAL p1, Y_REAL p0, Y_REAL q1, Y_REAL q0)
{
    Y_LET dp = Y_SUB(p1, p0);
    Y_LET dq = Y_SUB(q1, q0);
    Y_LET curl = Y_SUB(dp, dq);
    return Y_NAME(yee_add_mul)(f, c, curl);
}

Y_FN Y_REAL Y_NAME(yee_curl_sub)(Y_REAL f, Y_REAL c, Y_REAL p1, Y_REAL p0, Y_REAL q1, Y_REAL q0)
{
    Y_LET dp = Y_SUB(p1, p0);
    Y_LET dq = Y_SUB(q1, q0);
    Y_LET curl = Y_SUB(dp, dq);
    return Y_NAME(yee_sub_mul)(f, c, curl);
}

/* ---- CPML (Roden and Gedney 2000; coefficients b, c, ik per position from
 * core/model.c) ----
 *   psi = b psi + c d                              yee_psi(psi, b, c, d)
 *   t = d ik + psi                                 yee_pml_term(d, ik, psi) */
Y_FN Y_REAL Y_NAME(yee_psi)(Y_REAL psi, Y_REAL b, Y_REAL c, Y_REAL d)
{
    Y_LET t = Y_MUL(b, psi);
    Y_LET u = Y_MUL(c, d);
    Y_LET r = Y_ADD(t, u);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_pml_term)(Y_REAL d, Y_REAL ik, Y_REAL psi)
{
    Y_LET t = Y_MUL(d, ik);
    Y_LET r = Y_ADD(t, psi);
    return r;
}

/* ---- Mur, first order: the wall from its old value e0, its neighbour's
 * old value e1 and the neighbour's new value n1, k = (S - 1) / (S + 1):
 *   wall = e1 + k (n1 - e0)                        yee_mur(e1, k, n1, e0) */
Y_FN Y_REAL Y_NAME(yee_mur)(Y_REAL e1, Y_REAL k, Y_REAL n1, Y_REAL e0)
{
    return Y_NAME(yee_add_mul)(e1, k, Y_NAME(yee_diff)(n1, e0));
}

/* ---- 2D ------------------------------------------------------------------
 * The 2D TMz engines' remaining per-cell arithmetic (cpu/update2d.inc and
 * cpu/cpu2d.c, shaders/update2d.glsl, cuda/cuda2d.cu).  The H and Ez
 * updates themselves are yee_h_sub, yee_h_add and yee_curl_add above; in a
 * CPML slab, with the stretched terms t of yee_pml_term,
 *   Hx -= S t   yee_sub_mul;   Hy += S t   yee_add_mul;
 *   Ez += c (tx - ty)          yee_add_mul(ez, c, yee_diff(tx, ty)).
 * The running DFT of Ez at each frequency (weights wr, wi from the host):
 *   re = re + wr Ez;  im = im + wi Ez          yee_add_mul(re, wr, ez)
 *
 * A soft source, a dielectric source slot and the point source:
 *   ez = ez + v                                yee_add(ez, v)
 * (a PEC source slot is the plain copy ez = v, no arithmetic). */
Y_FN Y_REAL Y_NAME(yee_add)(Y_REAL a, Y_REAL b)
{
    Y_LET r = Y_ADD(a, b);
    return r;
}

/* Conformal PEC cut edge (core/model.h struct cut_edge), from the edge's
 * old H, its coefficient a, Ez at its cell q and this step's b^n:
 *   u = a Ez_q + b^n;   Hx = old - u,   Hy = old + u
 *                                              yee_cut_sub(old, a, ez_q, bn)
 *                                              yee_cut_add(old, a, ez_q, bn) */
Y_FN Y_REAL Y_NAME(yee_cut_u)(Y_REAL a, Y_REAL ez_q, Y_REAL bn)
{
    Y_LET t = Y_MUL(a, ez_q);
    Y_LET u = Y_ADD(t, bn);
    return u;
}

Y_FN Y_REAL Y_NAME(yee_cut_sub)(Y_REAL old, Y_REAL a, Y_REAL ez_q, Y_REAL bn)
{
    return Y_NAME(yee_diff)(old, Y_NAME(yee_cut_u)(a, ez_q, bn));
}

Y_FN Y_REAL Y_NAME(yee_cut_add)(Y_REAL old, Y_REAL a, Y_REAL ez_q, Y_REAL bn)
{
    return Y_NAME(yee_add)(old, Y_NAME(yee_cut_u)(a, ez_q, bn));
}

/* Conformal PEC cut cell in TE (core/model.h struct te_cut): the eta0 Hz
 * of a dual cell cut by the surface, from its old value, the coefficients
 * k = S l / A_eff of its four edges (hy east, hy west, hx north, hx south,
 * holding -Ey, -Ex; l the edge's free fraction) and this step's b^n:
 *   Hz = (old + [(kr hr - kl hl) - (kn hn - ks hs)]) + b^n
 *                                   yee_te_cut(old, kr, hr, kl, hl, kn, hn, ks, hs, bn) */
Y_FN Y_REAL Y_NAME(yee_te_cut)(Y_REAL old, Y_REAL kr, Y_REAL hr, Y_REAL kl, Y_REAL hl, Y_REAL kn,
                               Y_REAL hn, Y_REAL ks, Y_REAL hs, Y_REAL bn)
{
    Y_LET a = Y_MUL(kr, hr);
    Y_LET b = Y_MUL(kl, hl);
    Y_LET dp = Y_SUB(a, b);
    Y_LET c = Y_MUL(kn, hn);
    Y_LET d = Y_MUL(ks, hs);
    Y_LET dq = Y_SUB(c, d);
    Y_LET curl = Y_SUB(dp, dq);
    Y_LET u = Y_ADD(old, curl);
    Y_LET r = Y_ADD(u, bn);
    return r;
}

/* ---- 3D ----------------------------------------------------------------
 * The 3D engines (cpu/update3d.inc, cuda/cuda3d_*.cu) need nothing more:
 * every component of a 3D cell is yee_curl_add / yee_curl_sub, or in a
 * CPML slab yee_add_mul / yee_sub_mul of yee_diff(t1, t2) with
 * t = yee_pml_term(d, ik, yee_psi(...)); Mur is yee_mur; the source slot of
 * a dielectric cell and the point source are yee_add (e = e + v). */

/* ---- H-node coefficients / TE ---------------------------------------------
 * TE is the 2D TMz update run on the dual fields (docs/materials-design.md
 * section 1): the array ez holds eta0 Hz(i, j), hx holds -Ex(i, j+1/2), hy
 * holds -Ey(i+1/2, j).  From Maxwell's equations in the stored units
 * (S = c dt / dx, 1/eps0 = c eta0):
 *   dEx/dt = (1/eps) dHz/dy   ->  (-Ex) -= (S/eps_r) [eta0Hz(i, j+1) - eta0Hz(i, j)]
 *   dEy/dt = -(1/eps) dHz/dx  ->  (-Ey) += (S/eps_r) [eta0Hz(i+1, j) - eta0Hz(i, j)]
 *   dHz/dt = -(1/mu)(dEy/dx - dEx/dy)
 *          ->  eta0Hz += (S/mu_r) {[(-Ey)(i+1/2) - (-Ey)(i-1/2)] - [(-Ex)(j+1/2) - (-Ex)(j-1/2)]}
 * which are, term for term, the TMz updates yee_h_sub, yee_h_add and
 * yee_curl_add with the coefficients moved: an H-array node takes S/eps_bar
 * of its edge, an ez-array node S/mu_r.  So TE and mu_r need no new
 * arithmetic: an H node of the map (core/model.h hmat) is yee_h_sub /
 * yee_h_add with its own coefficient in place of S, and its source slot is
 * yee_add (a PEC edge's slot is the plain copy h = v). */

/* The off-diagonal (eps^-1)_xy of a smoothed TE edge (core/model.h hoff):
 * from the ez array at n around the edge, the coefficients k0, k1 of its two
 * nodes (-+ S kappa / 4) and the incident term w,
 *   u = [k0 (p1 - p0) + k1 (q1 - q0)] + w        yee_offd_u(k0, p1, p0, k1, q1, q0, w)
 * then h = h + u (yee_add), after the edge's own update and before its slot. */
Y_FN Y_REAL Y_NAME(yee_offd_u)(Y_REAL k0, Y_REAL p1, Y_REAL p0, Y_REAL k1, Y_REAL q1, Y_REAL q0,
                               Y_REAL w)
{
    Y_LET dp = Y_SUB(p1, p0);
    Y_LET dq = Y_SUB(q1, q0);
    Y_LET a = Y_MUL(k0, dp);
    Y_LET b = Y_MUL(k1, dq);
    Y_LET t = Y_ADD(a, b);
    Y_LET u = Y_ADD(t, w);
    return u;
}

/* ---- Conductivity ------------------------------------------------------
 * A lossy dielectric (sigma, Crank-Nicolson form; docs/materials-design.md
 * section 2), ca = (1 - s)/(1 + s), cb = (S/eps_r)/(1 + s), s = sigma dt/(2 eps0 eps_r):
 *   E = ca E + cb {[p1 - p0] - [q1 - q0]}        yee_curl_lossy(f, ca, cb, p1, p0, q1, q0)
 *   E = ca E + cb d   (CPML: d = tx - ty)        yee_lossy(f, ca, cb, d)
 * each product rounded, then the sum.  A lossless material has ca = 1 and
 * cb = cezh: ca E = E exactly (also with denormals flushed: 1 x a denormal
 * flushes to the zero the add would see), so its bits are yee_curl_add's. */
Y_FN Y_REAL Y_NAME(yee_lossy)(Y_REAL f, Y_REAL ca, Y_REAL cb, Y_REAL d)
{
    Y_LET a = Y_MUL(ca, f);
    Y_LET t = Y_MUL(cb, d);
    Y_LET r = Y_ADD(a, t);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_curl_lossy)(Y_REAL f, Y_REAL ca, Y_REAL cb, Y_REAL p1, Y_REAL p0, Y_REAL q1,
                                   Y_REAL q0)
{
    Y_LET dp = Y_SUB(p1, p0);
    Y_LET dq = Y_SUB(q1, q0);
    Y_LET curl = Y_SUB(dp, dq);
    return Y_NAME(yee_lossy)(f, ca, cb, curl);
}

/* A lossy TE edge (an H-array node, core/model.h hmats[].ca; the arrays hold
 * -Ex, -Ey), the TE dual of the lossy Ez update with the edge's ca and
 * cb = ch:
 *   hx = ca hx - cb [ez(j+1) - ez(j)]            yee_h_sub_lossy(h, ca, cb, e1, e0)
 *   hy = ca hy + cb [ez(i+1) - ez(i)]            yee_h_add_lossy(h, ca, cb, e1, e0)
 * each product rounded, then the sum; ca = 1 gives yee_h_sub's / yee_h_add's
 * bits (1 h = h). */
Y_FN Y_REAL Y_NAME(yee_h_sub_lossy)(Y_REAL h, Y_REAL ca, Y_REAL cb, Y_REAL e1, Y_REAL e0)
{
    Y_LET a = Y_MUL(ca, h);
    Y_LET d = Y_SUB(e1, e0);
    Y_LET t = Y_MUL(cb, d);
    Y_LET r = Y_SUB(a, t);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_h_add_lossy)(Y_REAL h, Y_REAL ca, Y_REAL cb, Y_REAL e1, Y_REAL e0)
{
    Y_LET a = Y_MUL(ca, h);
    Y_LET d = Y_SUB(e1, e0);
    Y_LET t = Y_MUL(cb, d);
    Y_LET r = Y_ADD(a, t);
    return r;
}

/* ---- Dispersive poles ----------------------------------------------------
 * The D-E update of a dispersive cell (docs/materials-design.md section 3;
 * coefficients from core/material.h, in the engine's precision), total
 * fields E = E_s + E_i, S curl H_s from the scattered H:
 *   sc  = S [(Hy(i+1/2) - Hy(i-1/2)) - (Hx(j+1/2) - Hx(j-1/2))]   yee_disp_curl
 *   r   = ((D_s^n + sc) + Ei^{n+1}) - sigma' E^n                  yee_disp_rhs
 *   Lorentz, Drude pole:  P^{n+1} = (c1 P^n - c2 P^{n-1}) + c3 E^n   yee_disp_lorentz
 *                         r = r - P^{n+1}                            yee_diff
 *   Debye pole:           r = r - (a P^n + b E^n)                    yee_disp_debye_rhs
 *   E^{n+1} = rdenom r,   rdenom = 1 / (eps_inf + sum_Debye b + sigma')   (host)
 *   Debye pole:           P^{n+1} = a P^n + b (E^{n+1} + E^n)        yee_disp_debye
 *   D_s^{n+1} = (D_s^n + sc) - sigma' (E^{n+1} + E^n)                yee_disp_d
 *   stored Ez_s^{n+1} = E^{n+1} - Ei^{n+1}                           yee_diff
 * (poles in the material's order, each intermediate rounded as written). */
Y_FN Y_REAL Y_NAME(yee_disp_curl)(Y_REAL s, Y_REAL p1, Y_REAL p0, Y_REAL q1, Y_REAL q0)
{
    Y_LET dp = Y_SUB(p1, p0);
    Y_LET dq = Y_SUB(q1, q0);
    Y_LET curl = Y_SUB(dp, dq);
    Y_LET r = Y_MUL(s, curl);
    return r;
}

/* A dispersive TE edge (core/model.h hdisp) runs the same D-E update on its
 * H-array value (-Ex or -Ey, linear: D, P and the incident field change sign
 * with it), with the edge's one difference for the curl:
 *   sc = S (p1 - p0)     hx: p1 = ez(i, j), p0 = ez(i, j+1)   (-(ez(j+1) - ez(j)))
 *                        hy: p1 = ez(i+1, j), p0 = ez(i, j)   yee_disp_curl1 */
Y_FN Y_REAL Y_NAME(yee_disp_curl1)(Y_REAL s, Y_REAL p1, Y_REAL p0)
{
    Y_LET d = Y_SUB(p1, p0);
    Y_LET r = Y_MUL(s, d);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_disp_rhs)(Y_REAL ds, Y_REAL sc, Y_REAL ei1, Y_REAL sig, Y_REAL e0)
{
    Y_LET d = Y_ADD(ds, sc);
    Y_LET u = Y_ADD(d, ei1);
    Y_LET t = Y_MUL(sig, e0);
    Y_LET r = Y_SUB(u, t);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_disp_lorentz)(Y_REAL p, Y_REAL pold, Y_REAL c1, Y_REAL c2, Y_REAL c3,
                                     Y_REAL e0)
{
    Y_LET a = Y_MUL(c1, p);
    Y_LET b = Y_MUL(c2, pold);
    Y_LET c = Y_MUL(c3, e0);
    Y_LET d = Y_SUB(a, b);
    Y_LET r = Y_ADD(d, c);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_disp_debye_rhs)(Y_REAL r, Y_REAL a, Y_REAL p, Y_REAL b, Y_REAL e0)
{
    Y_LET t = Y_MUL(a, p);
    Y_LET u = Y_MUL(b, e0);
    Y_LET v = Y_ADD(t, u);
    Y_LET w = Y_SUB(r, v);
    return w;
}

Y_FN Y_REAL Y_NAME(yee_disp_e)(Y_REAL rdenom, Y_REAL r)
{
    Y_LET e = Y_MUL(rdenom, r);
    return e;
}

Y_FN Y_REAL Y_NAME(yee_disp_debye)(Y_REAL p, Y_REAL a, Y_REAL b, Y_REAL e1, Y_REAL e0)
{
    Y_LET t = Y_MUL(a, p);
    Y_LET s = Y_ADD(e1, e0);
    Y_LET u = Y_MUL(b, s);
    Y_LET r = Y_ADD(t, u);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_disp_d)(Y_REAL ds, Y_REAL sc, Y_REAL sig, Y_REAL e1, Y_REAL e0)
{
    Y_LET d = Y_ADD(ds, sc);
    Y_LET s = Y_ADD(e1, e0);
    Y_LET t = Y_MUL(sig, s);
    Y_LET r = Y_SUB(d, t);
    return r;
}
