/* dispersion.h - the relative permittivity eps(omega) of a dispersive,
 * conducting material: the continuous (exact) model an FDTD run with
 * auxiliary differential equations approximates, for the exact solutions
 * (farexact_cyl2, slab.h) at each frequency.
 *
 * Convention: time factor exp(+i omega t), as everywhere in the project, so a
 * lossy medium has Im eps < 0 (eps = eps' - i eps'').  With
 * omega > 0 the angular frequency in rad/s:
 *     eps(omega) = eps_inf - i sigma / (omega eps0) + sum over the poles of
 *       Debye:    delta_eps / (1 + i omega tau)
 *       Lorentz:  delta_eps omega0^2 / (omega0^2 - omega^2 + i gamma omega)
 *       Drude:    -omega_p^2 / (omega^2 - i gamma omega)
 * (the complex conjugates of the exp(-i omega t) forms of Taflove & Hagness,
 * Computational Electrodynamics, 3rd ed., ch. 9, and of Meep's
 * susceptibilities).  Units: sigma in S/m, tau in s, omega0, omega_p, gamma
 * in rad/s, eps0 = DISPERSION_EPS0 F/m.  Limits: omega -> 0 gives
 * eps_inf + delta_eps for a Debye or Lorentz pole; omega -> infinity gives
 * eps_inf; a Drude pole is a Lorentz pole with omega0 -> 0 and
 * delta_eps omega0^2 = omega_p^2; a Lorentz pole with gamma >> omega0 and
 * omega << omega0 is a Debye pole with tau = gamma / omega0^2.  Passive
 * (Im eps <= 0 at every omega) when sigma, tau, gamma >= 0 and delta_eps >= 0.
 * The discrete (FDTD-grid) counterparts are not here.
 */
#ifndef TEXFDTD_DISPERSION_H
#define TEXFDTD_DISPERSION_H

#include <complex.h>
#include <stddef.h>

#define DISPERSION_EPS0 8.8541878128e-12 /* F/m, CODATA 2018 */
#define DISPERSION_C0 299792458.0        /* m/s */

enum dispersion_kind { DISPERSION_DEBYE, DISPERSION_LORENTZ, DISPERSION_DRUDE };

/* One pole; only the fields of its kind are read. */
struct dispersion_pole {
    enum dispersion_kind kind;
    double delta_eps; /* Debye, Lorentz: the pole's static strength */
    double tau;       /* Debye: relaxation time, s */
    double omega0;    /* Lorentz: resonance, rad/s */
    double omega_p;   /* Drude: plasma frequency, rad/s */
    double gamma;     /* Lorentz, Drude: damping, rad/s */
};

struct dispersion_material {
    double eps_inf;                      /* relative permittivity at infinite frequency */
    double sigma;                        /* conductivity, S/m */
    int npoles;
    const struct dispersion_pole *poles; /* npoles of them (NULL if 0) */
};

/* The pole's term of eps(omega), omega > 0 in rad/s. */
double complex dispersion_pole_term(const struct dispersion_pole *p, double omega);

/* eps(omega) = eps_inf - i sigma / (omega eps0) + sum of the pole terms;
 * omega > 0 in rad/s. */
double complex dispersion_eps(const struct dispersion_material *m, double omega);

/* Check the parameters: all finite, eps_inf > 0, sigma >= 0, npoles >= 0,
 * and per pole delta_eps finite, tau > 0 (Debye), omega0 > 0 (Lorentz),
 * omega_p > 0 (Drude), gamma >= 0.  Returns 0, or -1 with err naming the
 * pole, the bad value and the allowed range. */
int dispersion_check(const struct dispersion_material *m, char *err, size_t errlen);

/* eps(omega) of a scene's table material t (its eps_r as eps_inf, sigma and
 * poles: core/scene.h, docs/scenes.md), omega > 0 in rad/s. */
struct scene_material;
double complex dispersion_scene_eps(const struct scene_material *t, double omega);

#endif
