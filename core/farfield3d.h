/* farfield3d.h - the 3D near-to-far-field transform on a closed box
 * ([monitor.far] in a 3D scene): which samples it needs, and the bistatic
 * RCS it makes of their DFTs.  See core/monitor.h for the sampling.
 *
 * ---- Angles ------------------------------------------------------------------
 * The observation direction is given in the standard spherical angles of
 * the grid's own axes:
 *     u(theta, phi) = (sin theta cos phi, sin theta sin phi, cos theta),
 * theta from +z (0 .. 180 degrees), phi from +x toward +y (0 .. 360).  The
 * incident plane wave (core/model.h) travels along d = (cos a, sin a, 0), a
 * the [source] angle, with E along +z and eta0 H = d x E in the xy plane.
 * So the forward direction is (theta, phi) = (90, a), the backscatter
 * (90, a + 180), and
 *   the E-plane (the plane of E and d) is the great circle through the
 *     poles at phi = a and a + 180: its point q of n = [monitor.far] angles
 *     is t = 360 q / n degrees along the circle from +z toward d:
 *         theta = t, phi = a            for t <= 180,
 *         theta = 360 - t, phi = a + 180 otherwise
 *     (t = 90 forward, t = 270 backscatter);
 *   the H-plane (the plane of H and d) is the equator theta = 90, its
 *     point q at phi = 360 q / n (phi = a forward, a + 180 backscatter);
 *   the grid is theta = 180 i / (theta_points - 1) (90 when theta_points
 *     = 1), i = 0 .. theta_points - 1, times phi = 360 j / phi_points.
 * The RCS is sigma = lim 4 pi r^2 |E_s|^2 / |E_inc|^2, both polarisations
 * (|E_theta|^2 + |E_phi|^2); sigma_theta and sigma_phi are the two parts.
 * (Against the Mie series of compare/farexact.h, whose wave travels along
 * +z' with E along +x': z' = d, x' = z, y' = d x z.)
 *
 * ---- Output ------------------------------------------------------------------
 * far_field.csv: frequency_hz,theta_deg,phi_deg,rcs_m2,rcs_over_lambda2,
 * rcs_db_lambda2 (dB relative to lambda^2), for each frequency in scene
 * order: the E-plane cut (angles rows), the H-plane cut (angles rows), then
 * the grid (theta_points x phi_points rows, theta the slower).
 * /far in fields.h5: frequency_hz [nf]; groups e_plane and h_plane with
 * theta_deg, phi_deg [angles] and rcs_over_lambda2, rcs_theta_over_lambda2,
 * rcs_phi_over_lambda2 [nf][angles]; group grid with theta_deg
 * [theta_points], phi_deg [phi_points] and the three RCS [nf][theta][phi];
 * attributes: the box (box_lo, box_hi as x0 y0 z0 ...) and the conventions.
 *
 * ---- The transform -------------------------------------------------------------
 * By reciprocity the far field along u, polarisation p, is the reaction of
 * the scattered field with a unit plane wave that comes in from u:
 *     E_p(r u) = -(i k / 4 pi) (exp(-i k r) / r) I_p,
 *     I_p = closed-surface integral of (E_s x H_t - E_t x H_s) . n dS,
 *     E_t = p exp(+i k u.x),   H_t = (-u x p) exp(+i k u.x)   (eta0 H),
 * which is the usual N, L form (Balanis, Advanced Engineering EM, eq.
 * 12-10; Taflove and Hagness, sec. 8.7): I_p = p.N + (u x p).L with
 * J = n x H, M = E x n; exp(+i omega t).  Here both fields are fields of
 * the Yee grid:
 *   - the test wave is the grid's own plane wave at the frequency: its
 *     wavenumber k' along u solves the 3D dispersion relation
 *         sum_a sin^2(k' u_a / 2) = (sin(omega dt / 2) / S)^2,
 *     E_t = p exp(i k' u.x) at the E nodes and H_t = (K x p / W)
 *     exp(i k' u.x) at the H nodes, K_a = -2 sin(k' u_a / 2),
 *     W = 2 sin(omega dt / 2) / S = |K|, p perpendicular to K (theta-hat
 *     and phi-hat made perpendicular to K);
 *   - the surface sum is the discrete reciprocity identity of the Yee
 *     grid (summation by parts of the discrete curls): with V the nodes in
 *     the closed box, sum_V [H2 . curl E1 - E1 . curl H2] leaves, for each
 *     tangential H node on the box (faces and edges), its product with the
 *     tangential E node half a cell outside; with V the nodes strictly
 *     inside, the product of the face's H nodes off the edges with the E
 *     node half a cell inside.  Both are exact; their mean is used:
 *         face node:  (E_in + E_out) / 2 with H, weight 1,
 *         edge node:  E_out / 2 with H, on each of its two faces,
 *     i.e. the midpoint rule along the tangential axis where the H nodes
 *     are on integer positions and the trapezoidal rule (edges at half
 *     weight) along the other, for both E_s (from the samples) and E_t
 *     (evaluated at the two E nodes: for the test wave the mean of E_in
 *     and E_out is cos(k' u_a / 2) times its value at the face).
 * For phasors that solve the grid's equations between the scatterer and
 * the box (a steady state, or a pulse the DFT window holds whole) the sum
 * is then exactly the same for every box around the scatterer, and exactly
 * zero for any wave whose sources lie outside the box: the strong forward
 * scattered wave crossing the box contributes nothing to other directions,
 * and no factor is needed to bring E to the H nodes.  This generalises the
 * two findings of the 2D transform (core/monitor.c far2d_one): the grid's
 * k' along u in the phases, and an E-at-H mean made exact for a plane wave
 * crossing the face (there: normally; here: along any u).
 * Each face has two node sets: on a face of normal a (b, c the next axes
 * in cyclic order) H_c at (a: X, b: m + 1/2, c: n) with E_b beside it, and
 * H_b at (a: X, b: m, c: n + 1/2) with E_c, X = lo_a - 1/2 or hi_a + 1/2;
 *     sum over H_c nodes of  s (E_b H_c)  and over H_b nodes of  -s (E_c H_b)
 * for (E x H) . n, s = +1 / -1 the outward sign.
 * The amplitude -(i k / 4 pi) takes the physical k (as in 2D); then
 *     sigma_p = k^2 |I_p|^2 / (4 pi)   (cells^2),
 * sigma / lambda^2 = k^4 |I_p|^2 / (16 pi^3) in cells.
 * It runs in double on the host from the normalised phasors
 * (monitors_phasor), threads over the directions, each direction's sums in
 * a fixed order: the same phasor bits give the same RCS bits.
 */
#ifndef TEXFDTD_FARFIELD3D_H
#define TEXFDTD_FARFIELD3D_H

#include <stddef.h>

#include "model.h"

struct monitors;

/* The samples of the box of m->scene->far (as (field, cell) pairs in *pairs,
 * *npairs of them, malloc'ed; any order, repeats allowed) and the private
 * plan (*plan) that later maps them, by the same pair order, to the
 * transform's elements.  Returns -1 with err on failure. */
int farfield3d_plan_build(const struct model *m, void **plan, struct sample **pairs,
                          size_t *npairs, char *err, size_t errlen);
void farfield3d_plan_free(void *plan);

/* sigma / lambda^2 at far-field frequency index k (m->scene->far.fr.f[k])
 * for n directions (theta[q], phi[q], radians, the angles above): the
 * total into rcs[q], and, where not NULL, the theta and phi polarised parts
 * into rcs_theta[q], rcs_phi[q]. */
int farfield3d_rcs(const struct model *m, const struct monitors *mo, int k, int n,
                   const double *theta, const double *phi, double *rcs, double *rcs_theta,
                   double *rcs_phi, char *err, size_t errlen);

/* The reactions themselves, I_theta and I_phi (cells^2, the phase
 * reference at the box's centre, where the incident phasor is 1), of the
 * same n directions into amp[2 q] and amp[2 q + 1]:
 *     E_p(r u) = -(i k / 4 pi) (exp(-i k r) / r) I_p   (unit incident field),
 * so that the forward one gives the extinction (the optical theorem):
 * sigma_ext = Re I_e (cells^2), e = the incident E's direction (+z), in
 * the forward direction, where theta-hat = -z: sigma_ext = -Re I_theta. */
int farfield3d_reactions(const struct model *m, const struct monitors *mo, int k, int n,
                         const double *theta, const double *phi, double _Complex *amp,
                         char *err, size_t errlen);

/* The directions of the cuts (radians, the conventions above): point q of
 * n of the E-plane (cut 0) or H-plane (cut 1) cut of scene s. */
void farfield3d_cut_angles(const struct scene *s, int cut, int q, int n, double *theta,
                           double *phi);

/* far_field.csv and /far in fields.h5 (an open hid_t). */
int farfield3d_write_csv(const struct model *m, struct monitors *mo, const char *dir, char *err,
                         size_t errlen);
int farfield3d_write_h5(const struct model *m, struct monitors *mo, long long file, char *err,
                        size_t errlen);

#endif
