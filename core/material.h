/* material.h - the update coefficients of one [material.NAME] (lossy,
 * magnetic, dispersive) and its stability check, on the host, shared by every
 * engine.  The equations are those of docs/materials-design.md, sections 2
 * and 3; each coefficient is computed in double and rounded once to float
 * (the _f fields), as core/model.h does for cezh.
 *
 * Units as everywhere in texfdtd: E in V/m, H stored as eta0 H, D stored as
 * D / eps0 (V/m), P as the polarisation / eps0 (V/m), S = c dt / dx, time
 * factor exp(+i omega t).  dt in s, sigma in S/m, tau in s, omega0, omega_p,
 * gamma in rad/s.
 *
 * Two E updates, the same algebra where both apply:
 *   - a material without poles (lossy and/or magnetic dielectric): the
 *     Crank-Nicolson form E^{n+1} = ca E^n + cb curl H;
 *   - a dispersive material: the D-E auxiliary-differential-equation form,
 *     D_s and the poles' P stored per cell (docs/materials-design.md sec. 3).
 */
#ifndef TEXFDTD_MATERIAL_H
#define TEXFDTD_MATERIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "scene.h"

/* eps0 in F/m (CODATA 2018, the value of compare/dispersion.h) */
#define MATERIAL_EPS0 8.8541878128e-12

/* The coefficients of one pole p (only those of its kind are set, the others 0). */
struct material_pole_coef {
    enum pole_kind kind;
    /* Lorentz, Drude (central differences at step n, explicit in E^n):
     *     P^{n+1} = c1 P^n - c2 P^{n-1} + c3 E^n */
    double c1, c2, c3;
    float c1_f, c2_f, c3_f;
    /* Debye (trapezoidal):  P^{n+1} = a P^n + b (E^{n+1} + E^n) */
    double a, b;
    float a_f, b_f;
};

struct material_coef {
    double S;       /* Courant number the coefficients were made for */
    double dt;      /* s */
    double eps_inf, mu_r;

    /* sigma' = sigma dt / (2 eps0): the conduction current in the D update */
    double sigma_p;
    float sigma_p_f;

    /* Non-dispersive E update (Crank-Nicolson), s = sigma'/eps_inf:
     *     E^{n+1} = ca E^n + cb curl H,   ca = (1 - s)/(1 + s),  cb = (S/eps_inf)/(1 + s)
     * (sigma = 0: ca = 1 exactly, cb = S/eps_inf, the lossless update). */
    double ca, cb;
    float ca_f, cb_f;

    /* Scattered-field slot of a lossy (non-dispersive) cell: the update adds
     *     v = cinc_diff (Ei^{n+1} - Ei^n) + cinc_sum (Ei^{n+1} + Ei^n),
     *     cinc_diff = -(eps_inf - 1)/(eps_inf + sigma'),  cinc_sum = -sigma'/(eps_inf + sigma')
     * (the v of the design page; the value is computed in double and rounded
     * once, so only the double coefficients are kept). */
    double cinc_diff, cinc_sum;

    /* H update of a node of this material alone (mu_bar = mu_r; a node
     * between two materials takes material_ch / material_hinc of the mean):
     *     H^{n+1/2} = H^{n-1/2} -+ ch curl E,   ch = S/mu_r
     * and its scattered-field slot adds hinc (Hi^{n+1/2} - Hi^{n-1/2}),
     * hinc = -(1 - 1/mu_r). */
    double ch;
    float ch_f;
    double hinc;

    /* Dispersive E update (D-E form), only meaningful where npoles > 0:
     *     D_s^{n+1} = D_s^n + S curl H_s - sigma' (E^{n+1} + E^n)
     *     E^{n+1} = rdenom [D_s^n + S curl H_s + Ei^{n+1} - sigma' E^n
     *                       - sum_Lorentz,Drude P^{n+1} - sum_Debye (a P^n + b E^n)]
     *     rdenom = 1 / (eps_inf + sum_Debye b + sigma') */
    double rdenom;
    float rdenom_f;
    int npoles;
    struct material_pole_coef poles[SCENE_MAX_POLES];
};

/* The coefficients of material m at time step dt (s) and Courant number S.
 * Returns 0, or -1 with err naming the material and the bad value (dt, S not
 * above 0, eps_inf, mu_r not above 0, sigma below 0, a pole's parameters out
 * of range, a PEC material, or a non-positive eps_inf + sum b + sigma'). */
int material_coef(const struct scene_material *m, double dt, double S, struct material_coef *c,
                  char *err, size_t errlen);

/* H coefficient S/mu_bar and slot coefficient -(1 - 1/mu_bar) of an H node
 * whose two cells have the mean permeability mu_bar. */
double material_ch(double mu_bar, double S);
double material_hinc(double mu_bar);

/* ---- stability ------------------------------------------------------------ */

/* A plane-wave mode exp(i k.x) of the Yee grid (square or cubic, dx the same
 * on every axis) turns the curl-curl operator into the number
 *     K = S^2 sum_d 4 sin^2(k_d dx / 2),   0 <= K <= K_max = 4 dim S^2
 * (the transverse modes; a longitudinal mode has curl E = 0, K = 0).  The
 * update of one homogeneous, source-free material on that mode is a linear
 * map of the state
 *     x = (H^{n-1/2}, E^n)                       without poles (ca, cb update),
 *     x = (H^{n-1/2}, E^n, D^n, then per pole P^n [, P^{n-1} for Lorentz, Drude])
 * where H stands for the mode's H amplitude scaled so that the H update
 * reads h -= ch sqrt(K)/S e, and the E update sees S curl H = sqrt(K) h.  Its
 * matrix A (n x n, row-major, n = material_state_size(c) <= MATERIAL_MAX_STATE)
 * is built by applying the update of material_coef's coefficients to the unit
 * vectors.  A lossless medium has |lambda| = 1 for every eigenvalue; the
 * redundant D (D = eps_inf E + sum P after one step) adds an eigenvalue 0. */
#define MATERIAL_MAX_STATE (3 + 2 * SCENE_MAX_POLES)
int material_state_size(const struct material_coef *c);
void material_amplification(const struct material_coef *c, double K, double *A);

/* Eigenvalues (wr + i wi) of the real n x n matrix A (row-major; A is
 * overwritten): balancing, Householder reduction to Hessenberg form and
 * Francis double-shift QR.  n <= MATERIAL_MAX_STATE.  Returns 0, or -1 if
 * the QR iteration did not converge. */
int material_eigenvalues(double *A, int n, double *wr, double *wi);

/* Stability tolerance: an update is stable when every eigenvalue has
 * |lambda| <= 1 + MATERIAL_STABILITY_TOL at every K (see material.c). */
#define MATERIAL_STABILITY_TOL 1e-6
/* K values scanned: K_max (j / MATERIAL_NK_SCAN), j = 0 .. MATERIAL_NK_SCAN. */
#define MATERIAL_NK_SCAN 256

/* The largest spectral radius of the amplification matrix of material m over
 * the K scan, at time step dt and Courant number S on a dim-dimensional grid
 * (2 or 3); kworst (if not NULL) gets the K where it is reached.  Returns
 * the radius, or -1 with err filled for bad input. */
double material_growth(const struct scene_material *m, double dt, double S, int dim,
                       double *kworst, char *err, size_t errlen);

/* Check that the update of material m (E, H and all its poles) is stable at
 * time step dt (s) and Courant number S on a dim-dimensional grid: the
 * largest spectral radius over the K scan must be <= 1 + tolerance.
 * radius (if not NULL) gets that radius; s_max (if not NULL) the largest
 * Courant number that is stable with the same cell size dx = c dt / S (dt
 * scaled with S, as lowering [grid] courant does), found by bisection to a
 * relative 1e-9 (with the tolerance's meaning: a strongly lossy medium may
 * pass its exact Courant limit slightly, see material.c); 0 when none down to S/1024
 * is (an active material: it grows at any dt), INFINITY
 * for a PEC material (no update to check).  Returns 0 when stable; -1 when
 * unstable, with err naming the material, the offending pole (the one with
 * the lowest Courant limit alone; or the Courant limit sqrt(eps_r mu_r / dim)
 * when the pole-free medium eps_inf, mu_r, sigma is already unstable), the
 * growth per step and the largest stable Courant number, e.g.
 *   material ag: pole 6 (Lorentz, delta_eps = 1.11334, omega0 = 3.08259e+16
 *   rad/s, gamma = 3.67511e+15 rad/s: omega0 dt = 1.285) makes the update
 *   unstable at courant = 0.5 (growth 2.83565 per step); courant <= 0.4341 is
 *   stable (the same cell size)
 * -1 with a message for bad input.  s_max is the material's own: the grid's
 * vacuum cells keep their limit 1/sqrt(dim).  Costs ~0.2 s (the bisection);
 * more when unstable (each pole's own limit). */
int material_check_stability(const struct scene_material *m, double dt, double S, int dim,
                             double *radius, double *s_max, char *err, size_t errlen);

/* material_check_stability's verdict at the cost of material_growth where
 * the material is stable (the usual case): 0 when stable, -1 with err (the
 * message of material_check_stability, or bad input) otherwise. */
int material_stable(const struct scene_material *m, double dt, double S, int dim, char *err,
                    size_t errlen);

/* ---- mixtures ------------------------------------------------------------- */

/* The same material for the update: eps_inf, sigma and the poles, in order
 * (the name and mu_r aside). */
bool material_same(const struct scene_material *a, const struct scene_material *b);

/* The material whose complex permittivity is the weighted mean
 *     wa eps_a(omega) + wb eps_b(omega)
 * of two materials' (the mean for E tangential to an interface: a TE edge
 * between two cells, wa = wb = 1/2; a TM cell a fraction wa of which an
 * object covers, wb = 1 - wa): eps_inf and sigma the weighted means, each
 * material's poles at its weight (Debye, Lorentz: delta_eps w; Drude:
 * omega_p^2 w), a's poles first then b's, poles of the same kind and
 * constants (tau; omega0 and gamma; gamma for Drude, whose term is linear
 * in omega_p^2) merged into one by adding their strengths, so that the mean
 * of a material with itself is that material.  mu_r = 1 (the callers are
 * 2D, where mu_r is painted apart), the name empty: the caller names it.
 * With wa, wb >= 0 the mixture of two stable materials is stable (the
 * condition is linear in eps_inf, delta_eps and omega_p^2,
 * docs/materials-design.md section 3).  out must not be a or b.  -1 with
 * err where more than SCENE_MAX_POLES poles remain. */
int material_mix(const struct scene_material *a, double wa, const struct scene_material *b,
                 double wb, struct scene_material *out, char *err, size_t errlen);

/* ---- dispersion matching ([grid] dispersion_correction) -------------------- */

/* The permittivity eps' whose Yee-grid wave, at omega_dt = omega dt, has on
 * average over directions sqrt(eps) times the wavenumber of the grid's
 * vacuum wave at the same frequency: so that the grid sees the index
 * contrast of the real interface (docs/accuracy.md section 6).  For a
 * direction u the grid wavenumber k of index n solves the Yee relation
 *     sum_d sin^2(k u_d dx / 2) = (n / S)^2 sin^2(omega dt / 2),
 * and eps' = n'^2 solves  mean_u k(u, n') / k(u, 1) = sqrt(eps), the mean
 * over directions uniform on the circle (dim 2) or the sphere (dim 3).
 * eps' < eps (the grid's waves are slow, the more so at the higher index)
 * and eps' -> eps as omega dt -> 0.  Returns eps' > 0, or -1 where the
 * grid cannot carry the wave of index n' (fewer than about 2 cells per
 * wavelength inside, or eps < 1). */
double material_dispersion_eps(double eps, double S, double omega_dt, int dim);

#endif
