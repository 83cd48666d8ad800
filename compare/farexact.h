/* farexact.h - exact far fields (echo width, radar cross section) of a
 * circular cylinder (2D, TMz, PEC or lossless dielectric) and of a PEC sphere
 * (3D, Mie series): the references the near-to-far-field transform is
 * checked against; and (farexact_cyl2) the cylinder of any complex eps and mu,
 * or PEC, in both polarisations, with its near field and absorption width.
 *
 * Convention: time factor exp(+i omega t) as everywhere in the project
 * (analytic.h, core/model.h), outgoing waves H^(2), h^(2).  Every quantity
 * returned is a ratio (sigma / lambda, sigma / lambda^2, or a normalised
 * amplitude), so only the size parameter ka enters.
 *
 * ---- 2D: the circular cylinder, TMz --------------------------------------
 * Incident Ez = exp(-i k rho cos(psi)) = sum_n i^-n J_n(k rho) exp(i n psi)
 * (Jacobi-Anger), a unit phasor at the cylinder's axis, psi = phi - theta the
 * observation angle phi measured from the direction of travel theta (psi = 0
 * forward, psi = pi backscatter).  The scattered field outside is
 *     Es = sum_n i^-n a_n H_n(k rho) exp(i n psi),   H_n = H_n^(2) = J_n - i Y_n,
 * with a_-n = a_n (J_-n = (-1)^n J_n, the same for Y_n and for the interior
 * functions), so the sum is a_0 + 2 sum_{n>=1} a_n cos(n psi) in form.
 *   PEC: Ez_total = 0 on rho = a gives  a_n = -J_n(ka) / H_n(ka)
 *   (Harrington, Time-Harmonic EM Fields, sec. 5-8; Balanis, Advanced
 *   Engineering EM, sec. 11.5, with j -> i).
 *   Dielectric, eps_r real > 0, mu_r = 1, k1 = m k, m = sqrt(eps_r): inside
 *   Ez = sum_n i^-n c_n J_n(k1 rho) exp(i n psi).  Ez and H_phi =
 *   (1 / (i omega mu0)) dEz/drho are continuous at rho = a (mu the same on
 *   both sides, so dEz/drho is), term by term:
 *       c_n J_n(k1 a)        = J_n(ka) + a_n H_n(ka)
 *       m c_n J_n'(k1 a)     = J_n'(ka) + a_n H_n'(ka)
 *   Eliminating c_n (multiply the first by m J_n'(k1 a), the second by
 *   J_n(k1 a), subtract):
 *       a_n = -[m J_n'(k1 a) J_n(ka) - J_n(k1 a) J_n'(ka)]
 *              / [m J_n'(k1 a) H_n(ka) - J_n(k1 a) H_n'(ka)]
 *   (the form of Balanis, Advanced Engineering EM, sec. 11.5-11.6, and
 *   Harrington sec. 5-8, with j -> i).  Checks: m = 1 makes the
 *   numerator J_n' J_n - J_n J_n' = 0, so a_n = 0; m -> infinity at fixed
 *   J_n'(k1 a) != 0 gives -J_n / H_n, the PEC value.  (At an exact zero of
 *   J_n'(k1 a) the limit is -J_n'/H_n' instead: the approach to the PEC
 *   is not uniform in eps_r near the interior resonances.)
 * Far field: H_n(z) ~ sqrt(2 / (pi z)) exp(-i (z - n pi/2 - pi/4))
 * (Abramowitz-Stegun 9.2.4), and i^-n exp(+i n pi/2) = 1, so
 *     Es ~ sqrt(2 / (pi k rho)) exp(-i (k rho - pi/4)) T(psi),
 *     T(psi) = sum_{n=-inf}^{inf} a_n exp(i n psi) = a_0 + 2 sum_{n>=1} a_n cos(n psi)
 * (farexact_cyl_amplitude), times the incident phasor at the axis when that
 * is not 1.  The echo width sigma_2D = lim 2 pi rho |Es|^2 / |Einc|^2 is
 *     sigma_2D / lambda = (4 / (k lambda)) |T|^2 = (2 / pi) |T(psi)|^2.
 * Total scattering width: the scattered power per unit length over the
 * incident power density, sigma_s = integral_0^2pi rho |Es|^2 dphi
 * = (1 / 2 pi) integral_0^2pi sigma_2D dphi; by Parseval on T,
 *     sigma_s / lambda = (2 / pi) sum_{n=-inf}^{inf} |a_n|^2
 *                      = (2 / pi) (|a_0|^2 + 2 sum_{n>=1} |a_n|^2).
 * Extinction (optical theorem): write J_n = (H_n^(1) + H_n^(2)) / 2; for
 * exp(+i omega t) H^(1) comes in and H^(2) goes out, with the same power per
 * unit |amplitude|^2 for every n.  Harmonic n outside carries incoming
 * amplitude 1/2 and outgoing 1/2 + a_n, so the power it absorbs is
 * proportional to 1/4 - |1/2 + a_n|^2 = -(|a_n|^2 + Re a_n), and the scattered
 * power to |a_n|^2 with the same factor.  Extinction = absorbed + scattered:
 *     sigma_ext / lambda = -(2 / pi) sum_n Re a_n = -(2 / pi) Re T(0).
 * Lossless (PEC, real eps_r): |1/2 + a_n| = 1/2 for every n, hence
 * |a_n|^2 = -Re a_n and sigma_ext = sigma_s.  Limits: sigma_ext -> 4a
 * (twice the diameter, the extinction paradox) and the backscatter
 * sigma_2D -> pi a (geometrical optics) as ka -> infinity; as ka -> 0 only
 * a_0 counts, with J_0 -> 1 and Y_0 -> (2/pi)(ln(ka/2) + gamma), so
 * sigma_2D / lambda -> (2/pi) / (1 + (4/pi^2) (ln(ka/2) + gamma)^2) for
 * every psi.
 * Truncation: nmax = analytic_nmax(max(ka, k1 a)) = ceil(x + 8 x^(1/3) + 10)
 * (see analytic.h); the series also stops where Y_n(ka) overflows, since
 * |a_n| is then far below 1e-300.  For a dielectric the terms between ka and
 * k1 a are kept (whispering-gallery resonances live there).
 *
 * ---- 3D: the PEC sphere ---------------------------------------------------
 * Incident E = x^ exp(-i k z): travelling along +z, E along x, unit phasor at
 * the centre.  Observation direction (theta, phi) in the usual spherical
 * coordinates: theta = 0 forward, theta = pi backscatter; phi = 0 is the
 * E-plane (the plane of E and k), phi = pi/2 the H-plane.
 * Bohren & Huffman (Absorption and Scattering of Light by Small Particles,
 * 1983; exp(-i omega t)) sec. 4.4: with the Riccati-Bessel functions
 * psi_n(x) = x j_n(x), chi_n(x) = -x y_n(x), xi_n = psi_n - i chi_n = x h_n^(1),
 *     a_n = [m psi_n(mx) psi_n'(x) - psi_n(x) psi_n'(mx)] / [m psi_n(mx) xi_n'(x) - xi_n(x) psi_n'(mx)]
 *     b_n = [psi_n(mx) psi_n'(x) - m psi_n(x) psi_n'(mx)] / [psi_n(mx) xi_n'(x) - m xi_n(x) psi_n'(mx)]
 * and the perfect conductor is the limit m -> infinity (the m terms win):
 *     a_n = psi_n'(x) / xi_n'(x),   b_n = psi_n(x) / xi_n(x)
 * (the PEC series of Ruck et al., Radar Cross Section Handbook, 1970, ch. 3,
 * in its notation).  This code stores them in the
 * exp(+i omega t) convention, i.e. the complex conjugates:
 *     a_n = psi_n' / (psi_n' + i chi_n'),   b_n = psi_n / (psi_n + i chi_n),
 * psi_n + i chi_n = x h_n^(2)(x).  The amplitude functions (B&H sec. 4.4)
 *     S1 = sum_n (2n+1)/(n(n+1)) (a_n pi_n + b_n tau_n)
 *     S2 = sum_n (2n+1)/(n(n+1)) (a_n tau_n + b_n pi_n)
 * with pi_n = P_n^1(cos theta) / sin theta, tau_n = dP_n^1/dtheta by the
 * upward recurrences pi_0 = 0, pi_1 = 1,
 *     pi_{n+1} = ((2n+1)/n) mu pi_n - ((n+1)/n) pi_{n-1},
 *     tau_n = n mu pi_n - (n+1) pi_{n-1},   mu = cos theta,
 * are then the conjugates of B&H's, and the far field reads
 *     Es ~ exp(-i k r) / (i k r) [cos(phi) S2(theta) theta^ - sin(phi) S1(theta) phi^].
 * The radar cross section sigma = lim 4 pi r^2 |Es|^2 / |Einc|^2:
 *     sigma / lambda^2 = (1 / pi) (|S1|^2 sin^2 phi + |S2|^2 cos^2 phi).
 * Totals (B&H sec. 4.4; Re and |.| are the same in either convention):
 *     sigma_s / lambda^2   = (1 / 2 pi) sum_n (2n+1) (|a_n|^2 + |b_n|^2)
 *     sigma_ext / lambda^2 = (1 / 2 pi) sum_n (2n+1) Re(a_n + b_n)
 *                          = (1 / pi) Re S(0)     (S1(0) = S2(0) = S(0)),
 * equal for a PEC (Re b_n = psi^2 / (psi^2 + chi^2) = |b_n|^2, same for a_n).
 * Limits: Rayleigh a_1 ~ 2i x^3/3, b_1 ~ -i x^3/3 give the backscatter
 * sigma / (pi a^2) -> 9 (ka)^4 and sigma_s / (pi a^2) -> (10/3) (ka)^4;
 * geometrical optics gives backscatter -> pi a^2 as ka -> infinity.
 * Riccati-Bessel functions: psi_n by Miller's downward recurrence
 * z_{n-1} = ((2n+1)/x) z_n - z_{n+1} from an order above nmax, normalised by
 * psi_0 = sin x or psi_1 = sin x / x - cos x (the larger: they never vanish
 * together); chi_n by the same recurrence upward from chi_0 = cos x,
 * chi_1 = cos x / x + sin x (stable: chi_n grows); z_n' = z_{n-1} - n z_n / x.
 * Truncation as for the cylinder: nmax = analytic_nmax(ka), and the series
 * stops where chi_n overflows.
 * The amplitude, RCS and cross-section functions below use only an, bn and
 * nmax: compare/mie.h fills them for a sphere of complex eps and mu.
 */
#ifndef TEXFDTD_FAREXACT_H
#define TEXFDTD_FAREXACT_H

#include <complex.h>
#include <stddef.h>

#define FAREXACT_MAX_ORDER 2000

/* The cylinder: a_n for n = 0..nmax (a_-n = a_n). */
struct farexact_cyl {
    double ka;           /* size parameter k a */
    double eps_r;        /* relative permittivity; 0 for a PEC */
    int pec;             /* 1 for a PEC cylinder */
    int nmax;            /* highest order kept */
    double complex an[FAREXACT_MAX_ORDER + 1];
};

/* Set up the cylinder series for size parameter ka > 0.  eps_r <= 0 means a
 * PEC, eps_r > 0 a lossless dielectric of that relative permittivity
 * (mu_r = 1).  Returns -1 with err for a bad ka or eps_r, or an order above
 * FAREXACT_MAX_ORDER. */
int farexact_cyl_init(struct farexact_cyl *c, double ka, double eps_r, char *err, size_t errlen);

/* The far-field amplitude T(psi) = a_0 + 2 sum a_n cos(n psi), psi = phi - theta:
 * Es ~ sqrt(2 / (pi k rho)) exp(-i (k rho - pi/4)) T(psi) for a unit incident
 * phasor at the axis. */
double complex farexact_cyl_amplitude(const struct farexact_cyl *c, double psi);

/* Bistatic echo width sigma_2D / lambda = (2/pi) |T(psi)|^2; psi = pi is backscatter. */
double farexact_cyl_sigma_over_lambda(const struct farexact_cyl *c, double psi);

/* Total scattering width sigma_s / lambda = (2/pi) sum_n |a_n|^2 (n from -inf to inf),
 * the mean of sigma_2D / lambda over phi. */
double farexact_cyl_total_over_lambda(const struct farexact_cyl *c);

/* Extinction width sigma_ext / lambda = -(2/pi) Re sum_n a_n = -(2/pi) Re T(0). */
double farexact_cyl_extinction_over_lambda(const struct farexact_cyl *c);

/* ---- 2D: the material cylinder, TMz and TEz ------------------------------
 * A circular cylinder of radius a, relative permittivity eps and permeability
 * mu (complex; exp(+i omega t), so a lossy medium has eps = eps' - i eps'',
 * mu = mu' - i mu'', e.g. eps = eps_r - i sigma / (omega eps0) or the eps(omega)
 * of compare/dispersion.h), or a PEC, in vacuum; both polarisations:
 *   TM: the field F = Ez, incident Ez = exp(-i k rho cos psi);
 *   TE: the field F = Hz, incident Hz = exp(-i k rho cos psi);
 * a unit phasor at the axis, psi = phi - theta as for farexact_cyl above.
 * Outside F = sum_n i^-n [J_n(k rho) + a_n H_n(k rho)] exp(i n psi); inside
 * F = sum_n i^-n c_n J_n(k1 rho) exp(i n psi), with
 *     eta = sqrt(mu / eps)   (relative wave impedance, principal root, Re >= 0),
 *     N = mu / eta           (refractive index sqrt(eps mu), Im N <= 0 when
 *                             passive: the branch that goes with eta),
 *     k1 = N k.
 * Continuity at rho = a of F and of the tangential field (TM: H_phi =
 * (1 / (i omega mu0 mu)) dEz/drho; TE: E_phi = -(1 / (i omega eps0 eps)) dHz/drho)
 * gives, term by term,
 *     c_n J_n(k1 a)     = J_n(ka) + a_n H_n(ka)
 *     p c_n J_n'(k1 a)  = J_n'(ka) + a_n H_n'(ka),
 *     p = k1 / (k mu) = 1 / eta (TM),   p = k1 / (k eps) = eta (TE),
 * and, with D_n = J_n'(k1 a) / J_n(k1 a),
 *     a_n = -[p D_n J_n(ka) - J_n'(ka)] / [p D_n H_n(ka) - H_n'(ka)]
 * (Balanis, Advanced Engineering EM, sec. 11.5-11.6; Harrington,
 * Time-Harmonic EM Fields, sec. 5-8; both with j -> i; the TE form is the
 * dual: eps <-> mu, E -> H, H -> -E).  mu = 1, real eps gives the TM
 * coefficients of farexact_cyl; p and k1 swap their roles under the duality
 * TM(eps, mu) = TE(mu, eps) exactly.  PEC: TM a_n = -J_n(ka) / H_n(ka) (Ez = 0
 * on the surface), TE a_n = -J_n'(ka) / H_n'(ka) (E_phi = 0, i.e. dHz/drho = 0);
 * they are the limits of a good conductor (|eps| -> infinity: p D_n -> infinity
 * for TM, -> 0 for TE, the surface impedance eta -> 0).
 * The interior Bessel functions are compare/cbessel.h's (complex k1 a,
 * |Im k1 a| <= 700); the exterior ones glibc jn() and yn() at the real ka,
 * scaled as in farexact_cyl (a_n is a ratio; the pair (J_n(k1 a), J_n'(k1 a))
 * is taken up to a factor from the ratios, so nothing overflows or underflows).
 * Far field, echo width, total scattering and extinction widths: the formulas
 * of farexact_cyl with these a_n (for TE, sigma_2D = lim 2 pi rho |Hs|^2 /
 * |Hinc|^2, the same normalisation).  Absorption width: the incident power
 * the cylinder takes, per unit length, over the incident intensity:
 *     sigma_abs / lambda = sigma_ext / lambda - sigma_s / lambda
 *                        = -(2 / pi) sum_{n=-inf}^{inf} (Re a_n + |a_n|^2)
 *                        = (2 / pi) sum_n (1/4 - |a_n + 1/2|^2),
 * zero for a lossless cylinder (each |a_n + 1/2| = 1/2) and equal to the
 * volume integral k int (eps''|E|^2 + mu''|eta0 H|^2) dA over the cylinder
 * for a unit incident field (|Einc| = 1 for TM; |eta0 Hinc| = 1 for TE),
 * which tests/test_exact_cyl.c checks by quadrature of the near field.
 * Truncation: nmax = analytic_nmax(max(ka, |k1 a|)), and the series stops
 * where Y_n(ka) overflows, as for farexact_cyl.
 * Impedance matching (eps = mu): p = 1 and TM = TE, but the backscatter is NOT
 * zero for a circular cylinder (Weston's theorem needs a body invariant under
 * a 90-degree rotation about the incident direction, which an infinite
 * cylinder across the wave is not).  In the small-ka limit (a_0 from the
 * eps term, a_1 from the mu term)
 *     T(pi) = a_0 - 2 a_1 -> -(i pi (ka)^2 / 4) [(eps - 1) - 2 (mu - 1) / (mu + 1)],
 * nonzero for eps = mu != 1 (the in-plane magnetic dipole is depolarised,
 * the axial electric one is not).  At larger ka it is smaller than a
 * dielectric's of the same k1 but not small: eps = mu = 2 against eps = 4,
 * mu = 1 (TM), sigma_2D(pi) / lambda = 0.891 against 3.655 at ka = 3, 0.691
 * against 7.80 at ka = 10, 1.54 against 149 at ka = 100 (tests/test_exact_cyl.c,
 * docs/accuracy.md section 8).  An FDTD test must compare it with this series,
 * not with zero.
 */
enum farexact_pol { FAREXACT_TM = 0, FAREXACT_TE = 1 };

struct farexact_cyl2 {
    enum farexact_pol pol;
    double ka;                  /* k a, k the vacuum wavenumber */
    int pec;                    /* 1: perfect conductor (eps, mu unused) */
    double complex eps, mu;     /* relative, exp(+i omega t) */
    double complex eta, index;  /* sqrt(mu / eps) and N = mu / eta */
    double complex k1a;         /* N k a */
    double complex p;           /* 1 / eta (TM) or eta (TE) */
    int nmax;                   /* highest order kept */
    double complex an[FAREXACT_MAX_ORDER + 1];  /* a_n, a_-n = a_n */
    double complex ahn[FAREXACT_MAX_ORDER + 1]; /* a_n H_n(ka) */
    double complex hka[FAREXACT_MAX_ORDER + 1]; /* H_n(ka) (0 where not needed) */
    double complex tn[FAREXACT_MAX_ORDER + 1];  /* c_n J_n(k1 a) = J_n(ka) + a_n H_n(ka) */
    double complex j1a[FAREXACT_MAX_ORDER + 1]; /* J_n(k1 a) (0 where it underflows) */
};

/* Set up the series for polarisation pol, size parameter ka > 0, and either a
 * PEC (pec = 1; eps, mu ignored) or a material of relative eps and mu
 * (finite, nonzero, |Im k1 a| <= 700).  Returns -1 with err for bad input or
 * an order above FAREXACT_MAX_ORDER.  The struct is large (~160 kB): keep it
 * off the stack. */
int farexact_cyl2_init(struct farexact_cyl2 *c, enum farexact_pol pol, double ka, int pec,
                       double complex eps, double complex mu, char *err, size_t errlen);

/* T(psi) = a_0 + 2 sum a_n cos(n psi), Fs ~ sqrt(2 / (pi k rho)) exp(-i (k rho - pi/4)) T. */
double complex farexact_cyl2_amplitude(const struct farexact_cyl2 *c, double psi);

/* sigma_2D / lambda = (2 / pi) |T(psi)|^2 (psi = pi: backscatter). */
double farexact_cyl2_sigma_over_lambda(const struct farexact_cyl2 *c, double psi);

/* sigma_s / lambda = (2 / pi) sum_n |a_n|^2 (n from -inf to inf). */
double farexact_cyl2_total_over_lambda(const struct farexact_cyl2 *c);

/* sigma_ext / lambda = -(2 / pi) Re T(0). */
double farexact_cyl2_extinction_over_lambda(const struct farexact_cyl2 *c);

/* sigma_abs / lambda = (2 / pi) sum_n (1/4 - |a_n + 1/2|^2) = ext - sca; 0 for PEC. */
double farexact_cyl2_absorption_over_lambda(const struct farexact_cyl2 *c);

/* The total field at (rho, psi), rho >= 0 in units of 1 / k (i.e. the point
 * is at distance rho / k from the axis: pass k rho), inside or outside, for a
 * unit incident phasor at the axis, in polar components about the axis
 * (phi = psi + theta the absolute polar angle; Fx = F_rho cos phi - F_phi sin
 * phi, Fy = F_rho sin phi + F_phi cos phi):
 *   TM: z = Ez, rho = eta0 H_rho, phi = eta0 H_phi, with
 *       eta0 H_rho = (i / (mu k rho)) dEz/dphi,  eta0 H_phi = -(i / (mu k)) dEz/drho;
 *   TE: z = Hz, rho = E_rho / eta0, phi = E_phi / eta0, with
 *       E_rho / eta0 = -(i / (eps k rho)) dHz/dphi,  E_phi / eta0 = (i / (eps k)) dHz/drho;
 * (mu, eps those of the medium at the point; Faraday's and Ampere's laws
 * with exp(+i omega t)).  Outside the incident part is the closed form
 * exp(-i k rho cos psi), the scattered part the series; a point on the
 * surface (k rho = ka) is taken outside.  Inside a PEC all is 0. */
struct farexact_field {
    double complex z, rho, phi;
};
void farexact_cyl2_field(const struct farexact_cyl2 *c, double krho, double psi,
                         struct farexact_field *f);

/* The PEC sphere: a_n, b_n for n = 1..nmax (index 0 unused), exp(+i omega t). */
struct farexact_sphere {
    double ka;
    int nmax;
    double complex an[FAREXACT_MAX_ORDER + 1];
    double complex bn[FAREXACT_MAX_ORDER + 1];
};

/* Set up the Mie series of a PEC sphere of size parameter ka > 0.  Returns -1
 * with err for a bad ka or an order above FAREXACT_MAX_ORDER. */
int farexact_sphere_init(struct farexact_sphere *s, double ka, char *err, size_t errlen);

/* The amplitude functions S1(theta), S2(theta), exp(+i omega t) convention
 * (the conjugates of Bohren & Huffman's). */
void farexact_sphere_amplitudes(const struct farexact_sphere *s, double theta, double complex *S1,
                                double complex *S2);

/* Bistatic RCS sigma / lambda^2 at (theta, phi): theta = pi backscatter,
 * phi = 0 the E-plane, phi = pi/2 the H-plane. */
double farexact_sphere_rcs_over_lambda2(const struct farexact_sphere *s, double theta, double phi);

/* Total scattering cross section sigma_s / lambda^2 (the mean of sigma over
 * the directions, i.e. (1 / 4 pi) times its integral over the sphere). */
double farexact_sphere_total_over_lambda2(const struct farexact_sphere *s);

/* Extinction cross section sigma_ext / lambda^2 = (1 / pi) Re S(0). */
double farexact_sphere_extinction_over_lambda2(const struct farexact_sphere *s);

/* Riccati-Bessel psi_n(x) = x j_n(x) and chi_n(x) = -x y_n(x) for n = 0..nmax
 * (arrays of nmax + 1), x > 0.  chi_n is not finite (inf, then NaN) where
 * it overflows (n far above x).  Returns -1 with err for x <= 0 or nmax < 1. */
int farexact_riccati_bessel(int nmax, double x, double *psi, double *chi, char *err,
                            size_t errlen);

#endif
