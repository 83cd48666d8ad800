/* incident.h - the incident plane wave in double, written once for the host
 * (C), the CUDA device and the GL engines' shaders (GLSL), with the same
 * bits on all three.
 *
 * Every engine adds the incident field's terms to its object cells (source
 * slots, dispersive cells, H slots): values computed in double and rounded
 * once to the engine's precision (core/model.h).  On the host they cost a
 * sine (and an exponential for pulses) per object cell per step, which for
 * a large object (13 million cells: a disc over 5 % of 16384^2) is 60 ms a
 * step against 0.2 ms for the GPU's own update (docs/performance.md,
 * "What an object costs").  So the CUDA and GL engines compute them on the
 * device, and to keep the bits the same the functions here use only what
 * IEEE 754 defines exactly: +, -, * rounded to nearest (CUDA: __dadd_rn and
 * friends, which are never contracted into a fused multiply-add; C: plain
 * operators, built with -ffp-contract=off; GLSL: each operation in a
 * function of its own whose result is a `precise` double), floor, and exact
 * scalings by powers of two; no division (the host precomputes the
 * reciprocals).  sin and exp are therefore written out here (argument
 * reduction and Taylor polynomials) instead of taken from libm or CUDA's
 * math library, which differ in the last bits.  They are within a few
 * units in the last place of the true values (tests/test_exact_bessel.c
 * compares them with libm), far below the float rounding that follows.
 *
 * The file is written in the common subset of C11, CUDA C++ and GLSL 4.30
 * (as core/yee.h): no pointers (the wave is passed by value), literals
 * through I_K (GLSL needs the LF suffix of a double; decimal with 17
 * digits, which converts to the same double everywhere), every
 * intermediate an I_LET or I_VAR, integers as flags (no bool), constants
 * as #defines.  The C and CUDA prelude is below; GLSL's is
 * shaders/incident.glsl, which defines INC_GLSL and includes this file
 * (gl/shader.c splices it in).
 *
 * The time function g(s) and the delay tau(x, y) are those of core/model.h
 * (its comment on the plane wave); model_incident and model_waveform are
 * these functions. */
#ifndef TEXFDTD_INCIDENT_H
#define TEXFDTD_INCIDENT_H

#ifndef INC_GLSL
#if defined(__CUDACC__)
#define INC_FN static __host__ __device__ __forceinline__
#else
#define INC_FN static inline
#endif

#if defined(__CUDA_ARCH__)
#define I_ADD(a, b) __dadd_rn((a), (b))
#define I_SUB(a, b) __dsub_rn((a), (b))
#define I_MUL(a, b) __dmul_rn((a), (b))
#define I_FLOOR(a) floor(a)
#define I_LDEXP(a, k) ldexp((a), (int)(k))
#else
#include <math.h>
#define I_ADD(a, b) ((a) + (b))
#define I_SUB(a, b) ((a) - (b))
#define I_MUL(a, b) ((a) * (b))
#define I_FLOOR(a) floor(a)
#define I_LDEXP(a, k) ldexp((a), (int)(k))
#endif
#define I_K(x) x          /* a double literal */
#define I_LET const double /* a rounded intermediate */
#define I_VAR double       /* one that changes */
#define INC_WAVE struct inc_wave
#endif

/* What the wave needs, filled by model_build (core/model.c). */
#define INC_NONE 0  /* kind: a point source or none */
#define INC_PLANE 1 /* kind: the plane wave */
#define INC_SINE 0  /* waveform: as enum waveform of core/scene.h */
#define INC_GAUSSIAN 1
#define INC_MODULATED_GAUSSIAN 2
#define INC_RICKER 3
struct inc_wave {
    int kind;     /* INC_NONE or INC_PLANE */
    int waveform; /* INC_SINE .. INC_RICKER */
    double cos_t, sin_t, d0, omega_dt, amplitude, pulse_t0;
    /* reciprocals, computed once on the host, so that the functions below
     * need no division (a GLSL double division need not be correctly
     * rounded): 1/S, 1/ramp_steps (0: no ramp), 1/pulse_tau (0: sine) */
    double inv_courant, inv_ramp, inv_pulse_tau;
    double ramp_steps;
};

/* sin(x) for |x| < 2^20 (a million radians: far more than any run needs):
 * x = q pi/2 + r with pi/2 in three parts (the first two of 33 bits, so that
 * q times them is exact), |r| <= pi/4 + a little, then the Taylor series of
 * sin r or cos r to the 23rd / 22nd power (truncation below 1e-24).  The
 * constants are the doubles 0x1.921fb544p+0, 0x1.0b4611a6p-34,
 * 0x1.3198a2e037073p-69 and 2/pi = 0x1.45f306dc9c883p-1; the series' 1/n!
 * correctly rounded. */
INC_FN double inc_sin(double x)
{
    I_LET pio2_1 = I_K(1.5707963267341256);
    I_LET pio2_2 = I_K(6.077100506303966e-11);
    I_LET pio2_3 = I_K(2.0222662487959506e-21);
    I_LET two_over_pi = I_K(0.63661977236758138);
    I_LET q = I_FLOOR(I_ADD(I_MUL(x, two_over_pi), I_K(0.5)));
    I_LET r = I_SUB(I_SUB(I_SUB(x, I_MUL(q, pio2_1)), I_MUL(q, pio2_2)), I_MUL(q, pio2_3));
    I_LET r2 = I_MUL(r, r);
    /* the quadrant q mod 4 (q is an exact integer below 2^21): sin r for
     * 0 and 2, cos r for 1 and 3, only the one needed */
    I_LET q4 = I_SUB(q, I_MUL(I_K(4.0), I_FLOOR(I_MUL(q, I_K(0.25)))));
    I_VAR v;
    if (q4 == I_K(0.0) || q4 == I_K(2.0)) {
        /* sin r = r (1 - r2/3! + r2^2/5! - ...), Horner in r2, 1/3! .. 1/23! */
        I_VAR ps = I_SUB(I_K(1.9572941063391263e-20), I_MUL(r2, I_K(3.8681701706306841e-23)));
        ps = I_SUB(I_K(8.2206352466243295e-18), I_MUL(r2, ps));
        ps = I_SUB(I_K(2.8114572543455206e-15), I_MUL(r2, ps));
        ps = I_SUB(I_K(7.6471637318198164e-13), I_MUL(r2, ps));
        ps = I_SUB(I_K(1.6059043836821613e-10), I_MUL(r2, ps));
        ps = I_SUB(I_K(2.505210838544172e-08), I_MUL(r2, ps));
        ps = I_SUB(I_K(2.7557319223985893e-06), I_MUL(r2, ps));
        ps = I_SUB(I_K(0.00019841269841269841), I_MUL(r2, ps));
        ps = I_SUB(I_K(0.0083333333333333332), I_MUL(r2, ps));
        ps = I_SUB(I_K(0.16666666666666666), I_MUL(r2, ps));
        v = I_SUB(r, I_MUL(I_MUL(r, r2), ps));
    } else {
        /* cos r = 1 - r2/2! + r2^2/4! - ..., 1/2! .. 1/22! */
        I_VAR pc = I_SUB(I_K(4.1103176233121648e-19), I_MUL(r2, I_K(8.8967913924505741e-22)));
        pc = I_SUB(I_K(1.5619206968586225e-16), I_MUL(r2, pc));
        pc = I_SUB(I_K(4.7794773323873853e-14), I_MUL(r2, pc));
        pc = I_SUB(I_K(1.1470745597729725e-11), I_MUL(r2, pc));
        pc = I_SUB(I_K(2.08767569878681e-09), I_MUL(r2, pc));
        pc = I_SUB(I_K(2.7557319223985888e-07), I_MUL(r2, pc));
        pc = I_SUB(I_K(2.4801587301587302e-05), I_MUL(r2, pc));
        pc = I_SUB(I_K(0.0013888888888888889), I_MUL(r2, pc));
        pc = I_SUB(I_K(0.041666666666666664), I_MUL(r2, pc));
        pc = I_SUB(I_K(0.5), I_MUL(r2, pc));
        v = I_SUB(I_K(1.0), I_MUL(r2, pc));
    }
    I_LET res = q4 < I_K(2.0) ? v : -v;
    return res;
}

/* exp(x): 0 below -707 (2^-1020: nothing a float holds after the
 * amplitude), else x = k ln 2 + r with ln 2 in two parts (the first of 42
 * bits, 0x1.62e42fefa38p-1: k times it is exact; 0x1.ef35793c76730p-45),
 * 1/ln 2 = 0x1.71547652b82fep+0, |r| <= ln2/2, the Taylor series to r^17
 * (truncation below 1e-24; 1/n! correctly rounded), scaled by 2^k
 * exactly. */
INC_FN double inc_exp(double x)
{
    if (!(x >= I_K(-707.0)))
        return I_K(0.0);
    I_LET ln2_hi = I_K(0.69314718055989033);
    I_LET ln2_lo = I_K(5.4979230187083712e-14);
    I_LET inv_ln2 = I_K(1.4426950408889634);
    I_LET k = I_FLOOR(I_ADD(I_MUL(x, inv_ln2), I_K(0.5)));
    I_LET r = I_SUB(I_SUB(x, I_MUL(k, ln2_hi)), I_MUL(k, ln2_lo));
    /* Horner in r, 1/17! .. 1/0! */
    I_VAR p = I_ADD(I_K(4.7794773323873853e-14), I_MUL(r, I_K(2.8114572543455206e-15)));
    p = I_ADD(I_K(7.6471637318198164e-13), I_MUL(r, p));
    p = I_ADD(I_K(1.1470745597729725e-11), I_MUL(r, p));
    p = I_ADD(I_K(1.6059043836821613e-10), I_MUL(r, p));
    p = I_ADD(I_K(2.08767569878681e-09), I_MUL(r, p));
    p = I_ADD(I_K(2.505210838544172e-08), I_MUL(r, p));
    p = I_ADD(I_K(2.7557319223985888e-07), I_MUL(r, p));
    p = I_ADD(I_K(2.7557319223985893e-06), I_MUL(r, p));
    p = I_ADD(I_K(2.4801587301587302e-05), I_MUL(r, p));
    p = I_ADD(I_K(0.00019841269841269841), I_MUL(r, p));
    p = I_ADD(I_K(0.0013888888888888889), I_MUL(r, p));
    p = I_ADD(I_K(0.0083333333333333332), I_MUL(r, p));
    p = I_ADD(I_K(0.041666666666666664), I_MUL(r, p));
    p = I_ADD(I_K(0.16666666666666666), I_MUL(r, p));
    p = I_ADD(I_K(0.5), I_MUL(r, p));
    p = I_ADD(I_K(1.0), I_MUL(r, p));
    p = I_ADD(I_K(1.0), I_MUL(r, p));
    I_LET res = I_LDEXP(p, k);
    return res;
}

/* A g(s): the plane wave's time function s steps after its front passed
 * (core/model.h), 0 for s <= 0.  (u = (s - t0)/tau_p and the ramp s/R as
 * products with the host's reciprocals.) */
INC_FN double inc_waveform(INC_WAVE w, double s)
{
    if (!(s > I_K(0.0)))
        return I_K(0.0);
    if (w.waveform != INC_SINE) {
        I_LET u = I_MUL(I_SUB(s, w.pulse_t0), w.inv_pulse_tau);
        I_LET u2 = I_MUL(u, u);
        I_LET g = inc_exp(-u2);
        if (w.waveform == INC_GAUSSIAN) {
            I_LET v = I_MUL(w.amplitude, g);
            return v;
        }
        if (w.waveform == INC_MODULATED_GAUSSIAN) {
            I_LET c = inc_sin(I_MUL(w.omega_dt, I_SUB(s, w.pulse_t0)));
            I_LET v = I_MUL(I_MUL(w.amplitude, g), c);
            return v;
        }
        /* INC_RICKER */
        I_LET v = I_MUL(I_MUL(w.amplitude, I_SUB(I_K(1.0), I_MUL(I_K(2.0), u2))), g);
        return v;
    }
    I_LET r = (w.ramp_steps > I_K(0.0) && s < w.ramp_steps) ? I_MUL(s, w.inv_ramp) : I_K(1.0);
    I_LET c = inc_sin(I_MUL(w.omega_dt, s));
    I_LET v = I_MUL(I_MUL(w.amplitude, r), c);
    return v;
}

/* The incident Ez (TM; the ez array's field in TE) at grid point (i, j)
 * (cells, may be half-integers) and time t (steps): A g(t - tau),
 * tau = (i cos theta + j sin theta - d0) (1/S).  0 without a plane wave. */
INC_FN double inc_at(INC_WAVE w, double i, double j, double t)
{
    if (w.kind != INC_PLANE)
        return I_K(0.0);
    I_LET tau = I_MUL(I_SUB(I_ADD(I_MUL(i, w.cos_t), I_MUL(j, w.sin_t)), w.d0), w.inv_courant);
    I_LET v = inc_waveform(w, I_SUB(t, tau));
    return v;
}

/* The H arrays' incident field at the Hx node (hy = 0: (i, j+1/2)) or the
 * Hy node (hy = 1: (i+1/2, j)) of cell (i, j) at time t: TM eta0 H_inc, TE
 * -E_inc, the same numbers (docs/materials-design.md section 1):
 * sin(theta) Ei(i, j+1/2), -cos(theta) Ei(i+1/2, j). */
INC_FN double inc_hnode(INC_WAVE w, int hy, double i, double j, double t)
{
    if (hy != 0) {
        I_LET v = I_MUL(-w.cos_t, inc_at(w, I_ADD(i, I_K(0.5)), j, t));
        return v;
    }
    I_LET v = I_MUL(w.sin_t, inc_at(w, i, I_ADD(j, I_K(0.5)), t));
    return v;
}

/* The value of an E source slot for the update from step n to n+1, from
 * e1 = Ei^{n+1} and e0 = Ei^n (core/model.h model_slot_values):
 *   PEC -e1;  lossy cdiff (e1 - e0) + csum (e1 + e0);  dielectric cinc (e1 - e0).
 * (H slots the same with h1 = Hi^{n+1/2}, h0 = Hi^{n-1/2} and hinc.) */
INC_FN double inc_slot(int pec, int lossy, double cinc, double cdiff, double csum, double e1,
                       double e0)
{
    if (pec != 0)
        return -e1;
    if (lossy != 0) {
        I_LET v = I_ADD(I_MUL(cdiff, I_SUB(e1, e0)), I_MUL(csum, I_ADD(e1, e0)));
        return v;
    }
    I_LET v = I_MUL(cinc, I_SUB(e1, e0));
    return v;
}

/* E slot of cell (i, j), step n (to n+1): inc_slot of Ei^{n+1} and Ei^n
 * (no Ei^n for PEC). */
INC_FN double inc_eslot_value(INC_WAVE w, int pec, int lossy, double cinc, double cdiff,
                              double csum, double i, double j, double n)
{
    I_LET e1 = inc_at(w, i, j, I_ADD(n, I_K(1.0)));
    I_LET e0 = pec != 0 ? I_K(0.0) : inc_at(w, i, j, n);
    I_LET v = inc_slot(pec, lossy, cinc, cdiff, csum, e1, e0);
    return v;
}

/* H slot at the Hx (hy = 0) or Hy node of cell (i, j), step n: inc_slot of
 * Hi^{n+1/2} and Hi^{n-1/2} with the H-node material's coefficients. */
INC_FN double inc_hslot_value(INC_WAVE w, int hy, int pec, int lossy, double hinc, double cdiff,
                              double csum, double i, double j, double n)
{
    I_LET h1 = inc_hnode(w, hy, i, j, I_ADD(n, I_K(0.5)));
    I_LET h0 = pec != 0 ? I_K(0.0) : inc_hnode(w, hy, i, j, I_SUB(n, I_K(0.5)));
    I_LET v = inc_slot(pec, lossy, hinc, cdiff, csum, h1, h0);
    return v;
}

#endif
