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
 * shaders/yee_prelude.glsl (GLSL; gl/shader.c concatenates the prelude,
 * this file and the pass).  No division appears anywhere: GLSL's is not
 * correctly rounded, so reciprocals come precomputed from the host
 * (core/model.c), in double, rounded once.
 *
 * Units: H is stored as eta0 H, so the free-space coefficient of both
 * updates is the Courant number S = c dt / dx (Takada et al. 2007, eq. 3;
 * Taflove and Hagness, ch. 3).
 */

/* ---- The Yee updates ----------------------------------------------------
 * An H component from the difference d = e1 - e0 of the E components on
 * either side of it:
 *   Hx(i, j+1/2) -= S [Ez(i, j+1) - Ez(i, j)]      yee_h_sub(hx, S, ez_n, ez_c)
 *   Hy(i+1/2, j) += S [Ez(i+1, j) - Ez(i, j)]      yee_h_add(hy, S, ez_e, ez_c)
 * and, inside a CPML slab, with the stretched difference t = d ik + psi:
 *   h -= c t,  h += c t                           yee_sub_ct, yee_add_ct */
Y_FN Y_REAL Y_NAME(yee_sub_ct)(Y_REAL h, Y_REAL c, Y_REAL t)
{
    Y_LET ct = Y_MUL(c, t);
    Y_LET r = Y_SUB(h, ct);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_add_ct)(Y_REAL h, Y_REAL c, Y_REAL t)
{
    Y_LET ct = Y_MUL(c, t);
    Y_LET r = Y_ADD(h, ct);
    return r;
}

Y_FN Y_REAL Y_NAME(yee_h_sub)(Y_REAL h, Y_REAL c, Y_REAL e1, Y_REAL e0)
{
    Y_LET d = Y_SUB(e1, e0);
    return Y_NAME(yee_sub_ct)(h, c, d);
}

Y_FN Y_REAL Y_NAME(yee_h_add)(Y_REAL h, Y_REAL c, Y_REAL e1, Y_REAL e0)
{
    Y_LET d = Y_SUB(e1, e0);
    return Y_NAME(yee_add_ct)(h, c, d);
}
