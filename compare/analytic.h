/* analytic.h - the exact scattered field of a TMz plane wave on an infinite
 * PEC circular cylinder (Bessel-Hankel series), in the phasor convention of
 * core/model.h.
 *
 * Convention (the same as model_dft_weight): time factor exp(+i omega t), a
 * field E(t) = Re[P exp(+i omega t)] has the phasor P, normalised to the
 * incident amplitude.  The incident plane wave of the model has the phasor
 *     Einc(x, y) = -i exp(-i k (x cos(theta) + y sin(theta) - d0)),
 * k = 2 pi / N_lambda (radians per cell), x and y in cells (Ez positions).
 *
 * For a cylinder of radius a centred at (xc, yc) write rho, phi for the polar
 * coordinates of (x - xc, y - yc) and psi = phi - theta.  With an incident
 * wave of unit phasor at the centre, exp(-i k rho cos(psi)) =
 * sum_n i^-n J_n(k rho) exp(i n psi) (Jacobi-Anger), and Ez_total = 0 on
 * rho = a gives (Harrington, Time-Harmonic EM Fields, sec. 5-8; Balanis,
 * Advanced Engineering EM, sec. 11.5, with j -> i):
 *     Es(rho, psi) = - sum_{n=0}^{nmax} eps_n i^-n J_n(ka) / H_n(ka) H_n(k rho) cos(n psi)
 * eps_0 = 1, eps_n = 2, H_n = H_n^(2) = J_n - i Y_n (outgoing for exp(+i omega t)).
 * The model's scattered phasor is Einc(xc, yc) times that.
 *
 * Truncation: nmax = ceil(ka + 8 (ka)^(1/3) + 10), see analytic_nmax().  This is
 * Wiscombe's (1980) form n = x + C x^(1/3) + c with a larger C: beyond
 * n = ka the terms fall like J_n(ka), faster than exponentially.  Measured on
 * the surface residual |Einc + Es| at rho = a (max over angles, unit incident
 * field): Wiscombe's C = 4.05 (+10) leaves 3e-12 at ka = 10 and 2.5e-8 at
 * ka = 100; C = 8 reaches the rounding floor of the sum (3e-15 at ka = 10,
 * 5e-14 at ka = 100, 5e-13 at ka = 1000), and more terms change nothing.
 */
#ifndef TEXFDTD_ANALYTIC_H
#define TEXFDTD_ANALYTIC_H

#include <complex.h>
#include <stddef.h>

#include "core/model.h"
#include "farexact.h"

#define ANALYTIC_MAX_ORDER 2000

struct analytic_cylinder {
    double k;            /* wavenumber, radians per cell */
    double a;            /* radius in cells */
    double xc, yc;       /* centre in cells */
    double theta;        /* propagation angle in radians */
    double cos_t, sin_t;
    double d0;           /* phase reference of the incident wave, cells */
    int nmax;            /* highest order kept */
    double eps_r;        /* 0: a PEC; > 0 a lossless dielectric (see analytic_init_circle) */
    double complex center_phasor;             /* Einc(xc, yc) */
    double complex coef[ANALYTIC_MAX_ORDER + 1]; /* -eps_n i^-n J_n(ka) */
    double complex hka[ANALYTIC_MAX_ORDER + 1];  /* H_n^(2)(ka) */
};

/* The truncation order for a given k*a: ceil(ka + 8 (ka)^(1/3) + 10). */
int analytic_nmax(double ka);

/* Set up the series.  nmax <= 0 picks analytic_nmax(k a).  Fails (returns -1
 * with err) for a non-positive k or a, or an order above ANALYTIC_MAX_ORDER. */
int analytic_init(struct analytic_cylinder *c, double k, double a, double xc, double yc,
                  double theta_rad, double d0, int nmax, char *err, size_t errlen);

/* The same for a model whose scene has exactly one object, a PEC circle:
 * k = 2 pi / N_lambda, theta, d0 and the circle from the model. */
int analytic_init_model(struct analytic_cylinder *c, const struct model *m, char *err,
                        size_t errlen);

/* The same for a model whose one object is a circle, PEC or dielectric
 * (c->eps_r = its eps_r, TMz); analytic_init_model refuses the dielectric. */
int analytic_init_circle(struct analytic_cylinder *c, const struct model *m, char *err,
                         size_t errlen);

/* The dielectric circle's series (farexact_cyl2, TM, mu = 1) for c (c->eps_r > 0). */
int analytic_material_init(const struct analytic_cylinder *c, struct farexact_cyl2 *d, char *err,
                           size_t errlen);

/* The model's scattered phasor at (x, y), inside or outside the circle:
 * d = NULL for a PEC (analytic_scattered), else the dielectric's series,
 *     Es = Einc(xc, yc) [F(k rho, psi) - exp(-i k rho cos psi)],
 * F the total field of farexact_cyl2_field for a unit phasor at the axis
 * (inside the cylinder the scattered-field formulation holds total minus
 * incident, as outside). */
double complex analytic_scattered_any(const struct analytic_cylinder *c,
                                      const struct farexact_cyl2 *d, double x, double y);

/* Incident phasor at (x, y), closed form. */
double complex analytic_incident(const struct analytic_cylinder *c, double x, double y);

/* Scattered phasor at (x, y).  Inside the cylinder (rho < a), where the
 * scattered-field formulation holds -Einc, returns -Einc. */
double complex analytic_scattered(const struct analytic_cylinder *c, double x, double y);

/* The bare series for a unit incident phasor at the centre, at polar
 * coordinates (rho, psi) relative to the propagation direction, rho >= a. */
double complex analytic_series(const struct analytic_cylinder *c, double rho, double psi);

#endif
