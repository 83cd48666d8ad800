/* slab.h - normal-incidence reflection and transmission of a planar slab and
 * of a half-space of complex eps and mu in vacuum: the exact expectation for
 * a 1D-like FDTD test (a Debye slab's reflection at several frequencies of
 * one pulsed run, with eps(omega) from dispersion.h).
 *
 * Convention: exp(+i omega t).  Vacuum on both sides, the wave travels along
 * +z: incident E = exp(-i k0 z) (E along x, eta0 H along y, equal to E for
 * the incident wave), the slab fills 0 <= z <= d.
 *     reflected    E = r exp(+i k0 z)           (z <= 0; r referred to z = 0),
 *     transmitted  E = t exp(-i k0 (z - d))     (z >= d; t referred to z = d),
 * so t includes the phase of the crossing; the transmitted field against the
 * incident one with no slab, at the same point beyond, is t exp(+i k0 d).
 * With the relative impedance eta = sqrt(mu / eps) (principal root: Re >= 0
 * for a passive medium), the index N = mu / eta (= sqrt(eps mu) on the branch
 * with Im N <= 0: the wave exp(-i N k0 z) decays), delta = N k0 d and the
 * interface coefficient rho = (eta - 1) / (eta + 1) (Fresnel, E field), the
 * Airy sums of the multiple reflections give (Born & Wolf, Principles of
 * Optics, sec. 7.6.1 and 1.6.4; Orfanidis, Electromagnetic Waves and
 * Antennas, ch. 6, with j -> i):
 *     r = rho (1 - exp(-2 i delta)) / (1 - rho^2 exp(-2 i delta))
 *     t = (1 - rho^2) exp(-i delta) / (1 - rho^2 exp(-2 i delta))
 * Checks: d -> 0 gives r = 0, t = 1; a half-wave slab (delta = pi) r = 0,
 * t = -1; lossless (real eps, mu > 0) |r|^2 + |t|^2 = 1; lossy, the absorbed
 * fraction 1 - |r|^2 - |t|^2 = k0 int_0^d (eps'' |E|^2 + mu'' |eta0 H|^2) dz
 * (tests/test_exact_media.c).  Half-space (d -> infinity with any loss):
 *     r = rho = (eta - 1) / (eta + 1),   t = 1 + r = 2 eta / (eta + 1)
 * (t: E just inside the interface).
 */
#ifndef TEXFDTD_SLAB_H
#define TEXFDTD_SLAB_H

#include <complex.h>
#include <stddef.h>

#include "dispersion.h"

/* r and t of a slab of optical thickness k0 d >= 0 (k0 = omega / c, the
 * vacuum wavenumber) and relative eps, mu (nonzero). */
void slab_rt(double k0d, double complex eps, double complex mu, double complex *r,
             double complex *t);

/* r and t (E just inside) of the half-space z >= 0 of relative eps, mu. */
void halfspace_rt(double complex eps, double complex mu, double complex *r, double complex *t);

/* The slab of a dispersive material (mu = 1) of thickness d in m at angular
 * frequency omega > 0 in rad/s: slab_rt(omega d / c0, dispersion_eps(m, omega), 1). */
void slab_rt_material(const struct dispersion_material *m, double omega, double d,
                      double complex *r, double complex *t);

#endif
