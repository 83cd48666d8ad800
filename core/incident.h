/* incident.h - the incident plane wave in double, written once for the host
 * (C) and the CUDA device, with the same bits on both.
 *
 * Every engine adds the incident field's terms to its object cells (source
 * slots, dispersive cells, H slots): values computed in double and rounded
 * once to the engine's precision (core/model.h).  On the host they cost a
 * sine (and an exponential for pulses) per object cell per step, which for
 * a large object (13 million cells: a disc over 5 % of 16384^2) is 60 ms a
 * step against 0.2 ms for the GPU's own update (docs/performance.md,
 * "What an object costs").  So the CUDA engine computes them on the device,
 * and to keep the bits the same the functions here use only what IEEE 754
 * defines exactly: +, -, * rounded to nearest (CUDA: __dadd_rn and
 * friends, which are never contracted into a fused multiply-add; C: plain
 * operators, built with -ffp-contract=off), floor, and exact scalings by
 * powers of two; no division (the host precomputes the reciprocals), so
 * that a GLSL port with `precise` doubles can follow.  sin and exp are therefore written out here (argument
 * reduction and Taylor polynomials) instead of taken from libm or CUDA's
 * math library, which differ in the last bits.  They are within a few
 * units in the last place of the true values (tests/test_exact_bessel.c
 * compares them with libm), far below the float rounding that follows.
 *
 * The time function g(s) and the delay tau(x, y) are those of core/model.h
 * (its comment on the plane wave); model_incident and model_waveform are
 * these functions. */
#ifndef TEXFDTD_INCIDENT_H
#define TEXFDTD_INCIDENT_H

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
#define I_LDEXP(a, k) ldexp((a), (k))
#else
#include <math.h>
#define I_ADD(a, b) ((a) + (b))
#define I_SUB(a, b) ((a) - (b))
#define I_MUL(a, b) ((a) * (b))
#define I_FLOOR(a) floor(a)
#define I_LDEXP(a, k) ldexp((a), (k))
#endif

/* What the wave needs, filled by model_build (core/model.c). */
enum { INC_NONE = 0, INC_PLANE = 1 };
enum { INC_SINE = 0, INC_GAUSSIAN, INC_MODULATED_GAUSSIAN, INC_RICKER };
struct inc_wave {
    int kind;     /* INC_NONE (a point source or none) or INC_PLANE */
    int waveform; /* INC_SINE .. INC_RICKER, as enum waveform of core/scene.h */
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
 * sin r or cos r to the 23rd / 22nd power (truncation below 1e-24). */
INC_FN double inc_sin(double x)
{
    const double pio2_1 = 0x1.921fb544p+0, pio2_2 = 0x1.0b4611a6p-34,
                 pio2_3 = 0x1.3198a2e037073p-69, two_over_pi = 0x1.45f306dc9c883p-1;
    const double q = I_FLOOR(I_ADD(I_MUL(x, two_over_pi), 0.5));
    const double r = I_SUB(I_SUB(I_SUB(x, I_MUL(q, pio2_1)), I_MUL(q, pio2_2)), I_MUL(q, pio2_3));
    const double r2 = I_MUL(r, r);
    /* 1/n! for odd n (sin) and even n (cos), correctly rounded */
    const double s3 = 0x1.5555555555555p-3, s5 = 0x1.1111111111111p-7,
                 s7 = 0x1.a01a01a01a01ap-13, s9 = 0x1.71de3a556c734p-19,
                 s11 = 0x1.ae64567f544e4p-26, s13 = 0x1.6124613a86d09p-33,
                 s15 = 0x1.ae7f3e733b81fp-41, s17 = 0x1.952c77030ad4ap-49,
                 s19 = 0x1.2f49b46814157p-57, s21 = 0x1.71b8ef6dcf572p-66,
                 s23 = 0x1.761b41316381ap-75;
    const double c2 = 0x1.0p-1, c4 = 0x1.5555555555555p-5, c6 = 0x1.6c16c16c16c17p-10,
                 c8 = 0x1.a01a01a01a01ap-16, c10 = 0x1.27e4fb7789f5cp-22,
                 c12 = 0x1.1eed8eff8d898p-29, c14 = 0x1.93974a8c07c9dp-37,
                 c16 = 0x1.ae7f3e733b81fp-45, c18 = 0x1.6827863b97d97p-53,
                 c20 = 0x1.e542ba4020225p-62, c22 = 0x1.0ce396db7f853p-70;
    /* the quadrant q mod 4 (q is an exact integer below 2^21): sin r for
     * 0 and 2, cos r for 1 and 3, only the one needed */
    const double q4 = I_SUB(q, I_MUL(4.0, I_FLOOR(I_MUL(q, 0.25))));
    double v;
    if (q4 == 0.0 || q4 == 2.0) {
        /* sin r = r (1 - r2/3! + r2^2/5! - ...), Horner in r2 */
        double ps = I_SUB(s21, I_MUL(r2, s23));
        ps = I_SUB(s19, I_MUL(r2, ps));
        ps = I_SUB(s17, I_MUL(r2, ps));
        ps = I_SUB(s15, I_MUL(r2, ps));
        ps = I_SUB(s13, I_MUL(r2, ps));
        ps = I_SUB(s11, I_MUL(r2, ps));
        ps = I_SUB(s9, I_MUL(r2, ps));
        ps = I_SUB(s7, I_MUL(r2, ps));
        ps = I_SUB(s5, I_MUL(r2, ps));
        ps = I_SUB(s3, I_MUL(r2, ps));
        v = I_SUB(r, I_MUL(I_MUL(r, r2), ps));
    } else {
        /* cos r = 1 - r2/2! + r2^2/4! - ... */
        double pc = I_SUB(c20, I_MUL(r2, c22));
        pc = I_SUB(c18, I_MUL(r2, pc));
        pc = I_SUB(c16, I_MUL(r2, pc));
        pc = I_SUB(c14, I_MUL(r2, pc));
        pc = I_SUB(c12, I_MUL(r2, pc));
        pc = I_SUB(c10, I_MUL(r2, pc));
        pc = I_SUB(c8, I_MUL(r2, pc));
        pc = I_SUB(c6, I_MUL(r2, pc));
        pc = I_SUB(c4, I_MUL(r2, pc));
        pc = I_SUB(c2, I_MUL(r2, pc));
        v = I_SUB(1.0, I_MUL(r2, pc));
    }
    return q4 < 2.0 ? v : -v;
}

/* exp(x): 0 below -707 (2^-1020: nothing a float holds after the
 * amplitude), else x = k ln 2 + r with ln 2 in two parts (the first of 42
 * bits: k times it is exact), |r| <= ln2/2, the Taylor series to r^17
 * (truncation below 1e-24), scaled by 2^k exactly. */
INC_FN double inc_exp(double x)
{
    if (!(x >= -707.0))
        return 0.0;
    const double ln2_hi = 0x1.62e42fefa38p-1, ln2_lo = 0x1.ef35793c76730p-45,
                 inv_ln2 = 0x1.71547652b82fep+0;
    const double k = I_FLOOR(I_ADD(I_MUL(x, inv_ln2), 0.5));
    const double r = I_SUB(I_SUB(x, I_MUL(k, ln2_hi)), I_MUL(k, ln2_lo));
    const double f[18] = {1.0,
                          1.0,
                          0x1.0p-1,
                          0x1.5555555555555p-3,
                          0x1.5555555555555p-5,
                          0x1.1111111111111p-7,
                          0x1.6c16c16c16c17p-10,
                          0x1.a01a01a01a01ap-13,
                          0x1.a01a01a01a01ap-16,
                          0x1.71de3a556c734p-19,
                          0x1.27e4fb7789f5cp-22,
                          0x1.ae64567f544e4p-26,
                          0x1.1eed8eff8d898p-29,
                          0x1.6124613a86d09p-33,
                          0x1.93974a8c07c9dp-37,
                          0x1.ae7f3e733b81fp-41,
                          0x1.ae7f3e733b81fp-45,
                          0x1.952c77030ad4ap-49};
    double p = f[17];
    for (int n = 16; n >= 0; n--)
        p = I_ADD(f[n], I_MUL(r, p));
    return I_LDEXP(p, (int)k);
}

/* A g(s): the plane wave's time function s steps after its front passed
 * (core/model.h), 0 for s <= 0.  (u = (s - t0)/tau_p and the ramp s/R as
 * products with the host's reciprocals.) */
INC_FN double inc_waveform(const struct inc_wave *w, double s)
{
    if (!(s > 0.0))
        return 0.0;
    if (w->waveform != INC_SINE) {
        const double u = I_MUL(I_SUB(s, w->pulse_t0), w->inv_pulse_tau), u2 = I_MUL(u, u);
        switch (w->waveform) {
        case INC_GAUSSIAN:
            return I_MUL(w->amplitude, inc_exp(-u2));
        case INC_MODULATED_GAUSSIAN:
            return I_MUL(I_MUL(w->amplitude, inc_exp(-u2)),
                         inc_sin(I_MUL(w->omega_dt, I_SUB(s, w->pulse_t0))));
        default: /* INC_RICKER */
            return I_MUL(I_MUL(w->amplitude, I_SUB(1.0, I_MUL(2.0, u2))), inc_exp(-u2));
        }
    }
    const double r = (w->ramp_steps > 0.0 && s < w->ramp_steps) ? I_MUL(s, w->inv_ramp) : 1.0;
    return I_MUL(I_MUL(w->amplitude, r), inc_sin(I_MUL(w->omega_dt, s)));
}

/* The incident Ez (TM; the ez array's field in TE) at grid point (i, j)
 * (cells, may be half-integers) and time t (steps): A g(t - tau),
 * tau = (i cos theta + j sin theta - d0) (1/S).  0 without a plane wave. */
INC_FN double inc_at(const struct inc_wave *w, double i, double j, double t)
{
    if (w->kind != INC_PLANE)
        return 0.0;
    const double tau = I_MUL(I_SUB(I_ADD(I_MUL(i, w->cos_t), I_MUL(j, w->sin_t)), w->d0),
                             w->inv_courant);
    return inc_waveform(w, I_SUB(t, tau));
}

/* The value of an E source slot for the update from step n to n+1, from
 * e1 = Ei^{n+1} and e0 = Ei^n (core/model.h model_slot_values):
 *   PEC -e1;  lossy cdiff (e1 - e0) + csum (e1 + e0);  dielectric cinc (e1 - e0). */
INC_FN double inc_slot(int pec, int lossy, double cinc, double cdiff, double csum, double e1,
                       double e0)
{
    if (pec)
        return -e1;
    if (lossy)
        return I_ADD(I_MUL(cdiff, I_SUB(e1, e0)), I_MUL(csum, I_ADD(e1, e0)));
    return I_MUL(cinc, I_SUB(e1, e0));
}

#endif
