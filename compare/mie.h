/* mie.h - the Mie series of a homogeneous sphere of complex relative
 * permittivity eps and permeability mu (or a perfect conductor) in vacuum:
 * the exact bistatic radar cross section and the extinction, scattering and
 * absorption cross sections the 3D engines are checked against
 * (tests/test_mie.c).
 *
 * Convention: time factor exp(+i omega t) as everywhere in the project
 * (farexact.h, dispersion.h), so a lossy medium has Im eps < 0, Im mu < 0
 * (e.g. eps = eps_r - i sigma / (omega eps0), or dispersion_eps()).  The
 * coefficients are stored as in farexact.h's PEC sphere (the complex
 * conjugates of Bohren & Huffman's exp(-i omega t) ones), in a struct
 * farexact_sphere, so that farexact_sphere_amplitudes(),
 * farexact_sphere_rcs_over_lambda2(), farexact_sphere_total_over_lambda2()
 * and farexact_sphere_extinction_over_lambda2() apply unchanged: they hold
 * for any a_n, b_n (the amplitude functions S1, S2, the RCS and the sums of
 * farexact.h, B&H sec. 4.4).  Only x = k a enters (every quantity returned
 * is a ratio: sigma / lambda^2, or an efficiency Q = sigma / (pi a^2)).
 *
 * ---- The coefficients --------------------------------------------------------
 * With
 *     eta = sqrt(mu / eps)   (relative wave impedance, principal root),
 *     m   = mu / eta         (refractive index sqrt(eps mu), the branch that
 *                             goes with eta; a_n, b_n are even in m anyway),
 * the Riccati-Bessel functions of the real x, psi_n(x) = x j_n(x),
 * chi_n(x) = -x y_n(x), zeta_n = psi_n + i chi_n = x h_n^(2)(x) (outgoing for
 * exp(+i omega t)), and the logarithmic derivative of the interior function
 *     D_n(z) = psi_n'(z) / psi_n(z),   z = m x (complex),
 * the continuity of the tangential E and H on r = a gives (Bohren & Huffman,
 * Absorption and Scattering of Light by Small Particles, 1983, eqs. 4.52-4.53
 * with mu1 / mu = mu, written with D_n as their eq. 4.88, and conjugated)
 *     a_n = [(eta D_n + n/x) psi_n - psi_{n-1}] / [(eta D_n + n/x) zeta_n - zeta_{n-1}]
 *     b_n = [(D_n / eta + n/x) psi_n - psi_{n-1}] / [(D_n / eta + n/x) zeta_n - zeta_{n-1}]
 * (derivation: B&H have a_n = [mu m^2 j_n(mx) [x j_n(x)]' - mu1 j_n(x)
 * [mx j_n(mx)]'] / [... h_n ...]; with j_n(mx) = psi_n(mx) / (mx) and
 * [mx j_n(mx)]' = D_n psi_n(mx), divide by mu1 psi_n(mx) / x: m / mu1 = 1 / eta;
 * b_n the same with mu1 and mu m^2 swapped; psi_n' = psi_{n-1} - (n/x) psi_n).
 * mu = 1 gives B&H 4.88 (eta = 1/m); eps = mu gives eta = 1, a_n = b_n;
 * swapping eps and mu (eta -> 1/eta) swaps a_n and b_n (duality); the
 * perfect conductor is eta -> 0 (|eps| -> infinity): a_n = psi_n' / zeta_n',
 * b_n = psi_n / zeta_n, farexact_sphere_init()'s series.
 * Consequences checked in tests/test_mie.c: eps = mu has zero backscatter
 * (S1(pi) = sum (2n+1)/2 (-1)^(n+1) (a_n - b_n), Kerker, Wang and Giles,
 * JOSA 73, 765 (1983)); the dual sphere's RCS is the original's with the
 * E-plane and H-plane exchanged.
 *
 * ---- The functions -------------------------------------------------------------
 * psi_n(x), chi_n(x): farexact_riccati_bessel() (psi downward by Miller,
 * chi upward).  D_n(z): the downward recurrence
 *     D_{n-1}(z) = n/z - 1 / (D_n(z) + n/z)
 * from D_N = 0 at N = max(nmax, |z|) + 16 (Wiscombe, "Improved Mie
 * scattering algorithms", Appl. Opt. 19, 1505 (1980): stable for
 * every complex z, the error of the start decaying downward; B&H appendix A,
 * BHMIE, uses the same recurrence and start rule).  It follows from the
 * Riccati-Bessel recurrences psi_{n-1} = psi_n' + (n/z) psi_n and
 * psi_n = -psi_{n-1}' + (n/z) psi_{n-1} (z times A&S 10.1.21-22): the second
 * gives D_{n-1} = n/z - psi_n / psi_{n-1}, the first psi_{n-1} / psi_n =
 * D_n + n/z.
 * Truncation: nmax = analytic_nmax(max(x, |m x|)) (the terms between x and
 * |m x| hold the interior resonances of a high-index sphere), stopping where
 * chi_n(x) overflows (|a_n|, |b_n| ~ psi_n / chi_n are then below 1e-300);
 * refused beyond FAREXACT_MAX_ORDER.  D_n never overflows (no limit on
 * Im m x), but the start needs |m x| <= 1e6.
 *
 * ---- The quantities ----------------------------------------------------------------
 * Incident E = x^ exp(-i k z) (Mie's frame: along +z, E along x, unit phasor
 * at the centre); sigma(theta, phi) / lambda^2 = (|S1|^2 sin^2 phi + |S2|^2
 * cos^2 phi) / pi (farexact.h); scattering sigma_s / lambda^2 =
 * (1 / 2 pi) sum (2n+1)(|a_n|^2 + |b_n|^2); extinction (optical theorem)
 * sigma_ext / lambda^2 = (1 / pi) Re S(0) = (1 / 2 pi) sum (2n+1) Re(a_n + b_n);
 * absorption = extinction - scattering.  In the 3D grid's convention
 * (core/farfield3d.h: the wave along d = (cos a, sin a, 0), E along +z,
 * angles theta from +z, phi from +x toward +y) Mie's frame is z' = d,
 * x' = +z, y' = z' x x' = (sin a, -cos a, 0): mie_rcs_grid().
 */
#ifndef TEXFDTD_MIE_H
#define TEXFDTD_MIE_H

#include <complex.h>
#include <stddef.h>

#include "farexact.h"

struct mie_sphere {
    double x;                    /* k a */
    int pec;                     /* 1: perfect conductor */
    double complex eps, mu;      /* relative, exp(+i omega t) */
    double complex eta, m;       /* sqrt(mu / eps), mu / eta */
    struct farexact_sphere c;    /* a_n, b_n (exp(+i omega t)), nmax, ka = x */
};

/* Set up the series for size parameter x = k a > 0 and either a PEC (pec = 1;
 * eps, mu ignored) or relative eps, mu (finite, nonzero, |m x| <= 1e6).
 * Returns -1 with err for bad input or an order above FAREXACT_MAX_ORDER.
 * The struct is large (~64 kB): keep it off the stack. */
int mie_init(struct mie_sphere *s, double x, int pec, double complex eps, double complex mu,
             char *err, size_t errlen);

/* sigma / lambda^2 in Mie's frame (theta from the direction of travel, phi
 * from the plane of E): farexact_sphere_rcs_over_lambda2 of the coefficients. */
double mie_rcs(const struct mie_sphere *s, double theta, double phi);

/* sigma / lambda^2 in the 3D grid's angles (core/farfield3d.h) for the plane
 * wave of [source] angle `angle` (radians). */
double mie_rcs_grid(const struct mie_sphere *s, double angle, double theta, double phi);

/* Cross sections over lambda^2: extinction, scattering, absorption (= ext - sca). */
double mie_extinction(const struct mie_sphere *s);
double mie_scattering(const struct mie_sphere *s);
double mie_absorption(const struct mie_sphere *s);

/* An efficiency Q = sigma / (pi a^2) of a cross section sigma / lambda^2. */
double mie_efficiency(const struct mie_sphere *s, double sigma_over_lambda2);

#endif
