/* test_material.c - core/material.c: the update coefficients of
 * docs/materials-design.md against values worked out by hand, the stability
 * check against hand analyses of the Yee, Lorentz, Drude, Debye and
 * Crank-Nicolson updates, and the discrete dispersion of the coefficients
 * against the exact eps(omega) of compare/dispersion.h. */
#include "helpers.h"

#include <complex.h>

#include "compare/dispersion.h"
#include "core/material.h"

static bool close_rel(double got, double want, double tol)
{
    return fabs(got - want) <= tol * fabs(want);
}

/* ---- coefficients ---------------------------------------------------------- */

/* eps_inf 4, mu_r 2, sigma' = sigma dt/(2 eps0) = 0.5 at dt = 1 ps, S = 0.5;
 * a Lorentz pole (delta_eps 3, omega0 dt = 1, gamma dt/2 = 0.1), a Drude pole
 * (omega_p dt = 0.5, gamma 0), a Debye pole (delta_eps 10, tau = 2 dt). */
static struct scene_material hand_material(void)
{
    struct scene_material m = {.name = "hand", .eps_inf = 4.0, .mu_r = 2.0,
                               .sigma = MATERIAL_EPS0 * 1e12, .npoles = 3};
    m.poles[0] = (struct scene_pole){POLE_LORENTZ, 3.0, 1e12, 2e11};
    m.poles[1] = (struct scene_pole){POLE_DRUDE, 0.0, 5e11, 0.0};
    m.poles[2] = (struct scene_pole){POLE_DEBYE, 10.0, 2e-12, 0.0};
    return m;
}

Test(material_coef, hand_computed)
{
    const struct scene_material m = hand_material();
    struct material_coef c;
    char err[ERRLEN];
    cr_assert_eq(material_coef(&m, 1e-12, 0.5, &c, err, sizeof err), 0, "%s", err);
    const double t = 1e-15;
    cr_assert(close_rel(c.sigma_p, 0.5, t));
    /* s = 0.5/4: ca = 0.875/1.125 = 7/9, cb = (0.5/4)/1.125 = 1/9 */
    cr_assert(close_rel(c.ca, 7.0 / 9.0, t), "ca %.17g", c.ca);
    cr_assert(close_rel(c.cb, 1.0 / 9.0, t), "cb %.17g", c.cb);
    /* v = -[3 (Ei1 - Ei0) + 0.5 (Ei1 + Ei0)] / 4.5 */
    cr_assert(close_rel(c.cinc_diff, -2.0 / 3.0, t));
    cr_assert(close_rel(c.cinc_sum, -1.0 / 9.0, t));
    cr_assert_eq(c.ch, 0.25);
    cr_assert_eq(c.hinc, -0.5);
    /* Lorentz: c1 = (2 - 1)/1.1, c2 = 0.9/1.1, c3 = 3/1.1 */
    cr_assert(close_rel(c.poles[0].c1, 1.0 / 1.1, t));
    cr_assert(close_rel(c.poles[0].c2, 0.9 / 1.1, t));
    cr_assert(close_rel(c.poles[0].c3, 3.0 / 1.1, t));
    /* Drude: c1 = 2, c2 = 1, c3 = 0.25 */
    cr_assert_eq(c.poles[1].c1, 2.0);
    cr_assert_eq(c.poles[1].c2, 1.0);
    cr_assert(close_rel(c.poles[1].c3, 0.25, t));
    /* Debye: a = (4 - 1)/(4 + 1), b = 10/5 */
    cr_assert(close_rel(c.poles[2].a, 0.6, t));
    cr_assert(close_rel(c.poles[2].b, 2.0, t));
    /* 1 / (4 + 2 + 0.5) */
    cr_assert(close_rel(c.rdenom, 2.0 / 13.0, t));
    /* float copies: the double rounded once */
    cr_assert_eq(c.ca_f, (float)c.ca);
    cr_assert_eq(c.cb_f, (float)c.cb);
    cr_assert_eq(c.rdenom_f, (float)c.rdenom);
    cr_assert_eq(c.poles[0].c3_f, (float)c.poles[0].c3);
    cr_assert_eq(c.poles[2].a_f, (float)c.poles[2].a);
}

Test(material_coef, lossless_is_exact)
{
    /* sigma = 0: ca = 1 exactly (1 E = E in IEEE arithmetic), cb = S/eps,
     * the slot is today's -(1 - 1/eps_r), mu_r = 1 gives ch = S, hinc = 0 */
    const struct scene_material m = {.name = "glass", .eps_inf = 2.25, .mu_r = 1.0};
    struct material_coef c;
    char err[ERRLEN];
    cr_assert_eq(material_coef(&m, 1e-15, 0.7, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.ca, 1.0);
    cr_assert_eq(c.ca_f, 1.0f);
    cr_assert_eq(c.cb, 0.7 / 2.25);
    cr_assert(close_rel(c.cinc_diff, -(1.0 - 1.0 / 2.25), 1e-15));
    cr_assert_eq(c.cinc_sum, 0.0);
    cr_assert_eq(c.ch, 0.7);
    cr_assert_eq(c.hinc, 0.0);
    cr_assert_eq(MATERIAL_EPS0, DISPERSION_EPS0);
}

Test(material_coef, bad_input)
{
    char err[ERRLEN];
    struct material_coef c;
    struct scene_material m = hand_material();
    cr_assert_eq(material_coef(&m, 0.0, 0.5, &c, err, sizeof err), -1);
    cr_assert(strstr(err, "hand") && strstr(err, "dt"), "%s", err);
    m.poles[1].c = -1.0;
    cr_assert_eq(material_coef(&m, 1e-12, 0.5, &c, err, sizeof err), -1);
    cr_assert(strstr(err, "pole 2"), "%s", err);
    m = hand_material();
    m.is_pec = true;
    cr_assert_eq(material_coef(&m, 1e-12, 0.5, &c, err, sizeof err), -1);
    cr_assert(strstr(err, "pec"), "%s", err);
}

/* ---- eigenvalues ------------------------------------------------------------- */

/* A = Q B Q, Q = I - 2 w w^T / (w^T w) (orthogonal and symmetric, w random):
 * the eigenvalues of B, and no longer triangular. */
static void similar(int n, const double *B, double *A)
{
    double w[MATERIAL_MAX_STATE], T[MATERIAL_MAX_STATE * MATERIAL_MAX_STATE], ww = 0.0;
    for (int i = 0; i < n; i++) {
        w[i] = rand() / (double)RAND_MAX - 0.5;
        ww += w[i] * w[i];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int m = 0; m < n; m++)
                s += ((i == m) - 2.0 * w[i] * w[m] / ww) * B[m * n + j];
            T[i * n + j] = s;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int m = 0; m < n; m++)
                s += T[i * n + m] * ((m == j) - 2.0 * w[m] * w[j] / ww);
            A[i * n + j] = s;
        }
}

/* B block diagonal with known eigenvalues, 2 x 2 blocks [r cos t, r sin t;
 * -r sin t, r cos t] (r e^{+-it}) and 1 x 1 blocks, plus a dense coupling
 * above the blocks (block upper triangular keeps the eigenvalues); A = Q B Q. */
static void known_matrix(int n, unsigned seed, double *A, double complex *want)
{
    double B[MATERIAL_MAX_STATE * MATERIAL_MAX_STATE] = {0};
    srand(seed);
    int k = 0;
    while (k < n) {
        const double r = 0.2 + 1.8 * rand() / (double)RAND_MAX;
        if (k + 1 < n && rand() % 2) {
            const double t = 3.0 * rand() / (double)RAND_MAX;
            B[k * n + k] = B[(k + 1) * n + k + 1] = r * cos(t);
            B[k * n + k + 1] = r * sin(t);
            B[(k + 1) * n + k] = -r * sin(t);
            want[k] = r * cexp(I * t);
            want[k + 1] = r * cexp(-I * t);
            k += 2;
        } else {
            B[k * n + k] = rand() % 2 ? r : -r;
            want[k] = B[k * n + k];
            k += 1;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 2; j < n; j++)
            B[i * n + j] = rand() / (double)RAND_MAX - 0.5;
    similar(n, B, A);
}

Test(material_eigen, known_spectra)
{
    for (int n = 1; n <= MATERIAL_MAX_STATE; n++)
        for (unsigned seed = 1; seed <= 20; seed++) {
            double A[MATERIAL_MAX_STATE * MATERIAL_MAX_STATE], wr[MATERIAL_MAX_STATE],
                wi[MATERIAL_MAX_STATE];
            double complex want[MATERIAL_MAX_STATE];
            known_matrix(n, seed * 100 + (unsigned)n, A, want);
            cr_assert_eq(material_eigenvalues(A, n, wr, wi), 0, "n %d seed %u", n, seed);
            /* every wanted eigenvalue found once (greedy matching); random
             * blocks may nearly coincide, hence 1e-6 rather than 1e-12 */
            bool used[MATERIAL_MAX_STATE] = {false};
            for (int a = 0; a < n; a++) {
                int best = -1;
                double dbest = INFINITY;
                for (int b = 0; b < n; b++)
                    if (!used[b] && cabs(wr[b] + I * wi[b] - want[a]) < dbest)
                        dbest = cabs(wr[b] + I * wi[b] - want[a]), best = b;
                used[best] = true;
                cr_assert_lt(dbest, 1e-6, "n %d seed %u: eigenvalue %g%+gi off by %g", n, seed,
                             creal(want[a]), cimag(want[a]), dbest);
            }
        }
}

Test(material_eigen, companion_and_jordan)
{
    /* companion matrix of (x - 1)(x + 2)(x - 3)(x^2 + 1): x^5 - 2x^4 - 4x^3 + 4x^2 - 5x + 6 */
    double A[25] = {2, 4, -4, 5, -6, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0};
    double wr[5], wi[5];
    cr_assert_eq(material_eigenvalues(A, 5, wr, wi), 0);
    double rmax = 0.0;
    for (int k = 0; k < 5; k++)
        rmax = fmax(rmax, hypot(wr[k], wi[k]));
    cr_assert(close_rel(rmax, 3.0, 1e-13), "%.17g", rmax);
    /* a 2 x 2 Jordan block at 1 (and one at -1) coupled to the rest: the
     * computed radius is 1 + O(sqrt(eps)), inside the stability tolerance */
    const double B[16] = {1, 1, 0.3, 0.2, 0, 1, 0.5, 0.1, 0, 0, -1, 1, 0, 0, 0, -1};
    double J[16];
    srand(7);
    similar(4, B, J);
    cr_assert_eq(material_eigenvalues(J, 4, wr, wi), 0);
    for (int k = 0; k < 4; k++)
        cr_assert_lt(fabs(hypot(wr[k], wi[k]) - 1.0), MATERIAL_STABILITY_TOL);
}

/* ---- stability ------------------------------------------------------------------ */

#define C0 299792458.0

static int check(const struct scene_material *m, double dt, double S, int dim, double *r,
                 double *smax, char *err)
{
    return material_check_stability(m, dt, S, dim, r, smax, err, ERRLEN);
}

/* The Yee update in 3D (Hx, Hy, Hz, Ex, Ey, Ez) on the checkerboard mode
 * k dx = (pi, pi, pi): forward differences (curl E at the faces) give the
 * factor e^{i pi} - 1 = -2 per axis, backward ones (curl H at the edges)
 * 1 - e^{-i pi} = 2, so both curls are real, C_E = [d]x with d = (-2, -2, -2)
 * and C_H = -C_E, and
 *     H' = H - S C_E E,   E' = E + S C_H H'.
 * C_H C_E = |d|^2 I - d d^T: eigenvalues |d|^2 = 12 = 4 dim (transverse, twice)
 * and 0 (longitudinal), so the scalar reduction with K = 4 dim S^2 must give
 * the same spectral radius.  2D (TMz: Ez, Hx, Hy) likewise with 4 dim = 8. */
static double yee_checkerboard_radius(int dim, double S)
{
    double A[36] = {0}, wr[6], wi[6];
    int n;
    if (dim == 3) {
        const double d[3] = {-2, -2, -2};
        /* cross-product matrix [d]x */
        const double CE[9] = {0, -d[2], d[1], d[2], 0, -d[0], -d[1], d[0], 0};
        double CH[9], CHCE[9];
        for (int i = 0; i < 9; i++)
            CH[i] = -CE[i];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                CHCE[i * 3 + j] = 0.0;
                for (int k = 0; k < 3; k++)
                    CHCE[i * 3 + j] += CH[i * 3 + k] * CE[k * 3 + j];
            }
        n = 6;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                A[i * 6 + j] = i == j;                               /* H from H */
                A[i * 6 + 3 + j] = -S * CE[i * 3 + j];               /* H from E */
                A[(3 + i) * 6 + j] = S * CH[i * 3 + j];              /* E from H */
                A[(3 + i) * 6 + 3 + j] = (i == j) - S * S * CHCE[i * 3 + j];
            }
    } else {
        /* Hx -= S (Ez(j+1) - Ez(j)) -> Hx -= S (-2) Ez;  Hy += S (-2) Ez;
         * Ez += S [(Hy(i+1/2) - Hy(i-1/2)) - (Hx(j+1/2) - Hx(j-1/2))] -> Ez += S (2 Hy - 2 Hx) */
        n = 3; /* Hx, Hy, Ez */
        A[0 * 3 + 0] = 1, A[0 * 3 + 2] = 2 * S;
        A[1 * 3 + 1] = 1, A[1 * 3 + 2] = -2 * S;
        /* Ez' = Ez + S (2 Hy' - 2 Hx') = Ez + 2S(Hy - 2S Ez) - 2S(Hx + 2S Ez) */
        A[2 * 3 + 0] = -2 * S, A[2 * 3 + 1] = 2 * S, A[2 * 3 + 2] = 1 - 8 * S * S;
    }
    cr_assert_eq(material_eigenvalues(A, n, wr, wi), 0);
    double r = 0.0;
    for (int k = 0; k < n; k++)
        r = fmax(r, hypot(wr[k], wi[k]));
    return r;
}

Test(material_stability, kmax_is_the_checkerboard_mode)
{
    const struct scene_material vac = {.name = "vacuum", .eps_inf = 1.0, .mu_r = 1.0};
    struct material_coef c;
    char err[ERRLEN];
    for (int dim = 2; dim <= 3; dim++)
        for (double S = 0.3; S < 0.9; S += 0.1) {
            cr_assert_eq(material_coef(&vac, 1e-15, S, &c, err, sizeof err), 0);
            double A[4], wr[2], wi[2];
            material_amplification(&c, 4.0 * dim * S * S, A);
            cr_assert_eq(material_eigenvalues(A, 2, wr, wi), 0);
            const double scalar = fmax(hypot(wr[0], wi[0]), hypot(wr[1], wi[1]));
            const double yee = yee_checkerboard_radius(dim, S);
            cr_assert_lt(fabs(scalar - yee), 1e-12, "dim %d S %g: %.15g vs %.15g", dim, S,
                         scalar, yee);
            /* and it is the scan's worst K */
            double kw;
            const double g = material_growth(&vac, 1e-15, S, dim, &kw, err, sizeof err);
            cr_assert_lt(fabs(g - yee), 1e-12);
            if (yee > 1.0 + 1e-6)
                cr_assert_eq(kw, 4.0 * dim * S * S);
        }
}

/* Lossless, non-dispersive: stable exactly up to sqrt(eps mu / dim); eps mu < 1
 * lowers the limit below the vacuum one, and the message says so. */
Test(material_stability, lossless_courant_limit)
{
    const double em[][2] = {{1.0, 1.0}, {2.25, 1.0}, {1.0, 3.0}, {1.5, 0.5}, {1.0, 0.01}};
    char err[ERRLEN];
    for (size_t k = 0; k < sizeof em / sizeof em[0]; k++)
        for (int dim = 2; dim <= 3; dim++) {
            const struct scene_material m = {.name = "diel", .eps_inf = em[k][0],
                                             .mu_r = em[k][1]};
            const double lim = sqrt(em[k][0] * em[k][1] / dim);
            double r, smax;
            cr_assert_eq(check(&m, 1e-15, 0.999 * lim, dim, &r, &smax, err), 0, "%s", err);
            cr_assert_lt(fabs(r - 1.0), 1e-12, "lossless: |lambda| = 1, got %.17g", r);
            cr_assert(close_rel(smax, lim, 1e-6), "s_max %.12g, limit %.12g", smax, lim);
            cr_assert_eq(check(&m, 1e-15, 1.001 * lim, dim, &r, &smax, err), -1);
            cr_assert_gt(r, 1.05); /* -1 - 4d -+ sqrt(8d), d = 1e-3: 1.093 */
            cr_assert(strstr(err, "material diel: courant") && strstr(err, "above the limit"),
                      "%s", err);
        }
}

/* A single undamped Lorentz pole, alone (delta_eps 1e-9: the field hardly
 * feels it): P^{n+1} = (2 - w) P^n - P^{n-1}, w = omega0^2 dt^2, has roots
 * lambda^2 - (2 - w) lambda + 1 = 0, on the unit circle iff |2 - w| <= 2,
 * i.e. omega0 dt <= 2. */
Test(material_stability, lorentz_alone_omega0_dt_2)
{
    const double dt = 1e-16;
    char err[ERRLEN];
    for (int dim = 2; dim <= 3; dim++) {
        struct scene_material m = {.name = "lz", .eps_inf = 1.0, .mu_r = 1.0, .npoles = 1};
        m.poles[0] = (struct scene_pole){POLE_LORENTZ, 1e-9, 1.999 / dt, 0.0};
        double r, smax;
        cr_assert_eq(check(&m, dt, 0.5, dim, &r, &smax, err), 0, "%s", err);
        cr_assert_lt(fabs(r - 1.0), 1e-9);
        m.poles[0].b = 2.001 / dt;
        cr_assert_eq(check(&m, dt, 0.5, dim, &r, &smax, err), -1);
        /* lambda = -(1 + 2e-3 - 2e-6) - sqrt((1.002)^2 - 1) ~ 1.065 */
        const double h = (2.001 * 2.001 - 2.0) / 2.0;
        cr_assert(close_rel(r, h + sqrt(h * h - 1.0), 1e-6), "growth %.9g", r);
        cr_assert(strstr(err, "material lz: pole 1 (Lorentz") && strstr(err, "omega0 dt = 2.001"),
                  "%s", err);
        /* at the same dx, omega0 dt scales with S: stable below S = 0.5 * 2/2.001 */
        cr_assert(close_rel(smax, 0.5 * 2.0 / 2.001, 1e-6), "s_max %.12g", smax);
    }
}

/* The coupled undamped or damped Lorentz medium.  On a mode, with z =
 * -(lambda - 1)^2 / lambda (= 4 sin^2(omega dt/2) on the unit circle), the
 * update gives K / mu = z eps_num(lambda), and the pole
 *     (1 + g) (lambda - c1 + c2/lambda) P = c3 E  ->  P = delta_eps w0 E / (w0 - z + g (lambda - 1/lambda)),
 * g = gamma dt/2, w0 = omega0^2 dt^2.  A root leaves the unit circle where
 * lambda = -1 (z = 4, lambda - 1/lambda = 0, the damping drops out):
 *     K_max / mu = 4 (eps_inf + delta_eps w0 / (w0 - 4)).
 * With K_max = 4 dim S^2, w0 = alpha S^2 (dt = S dx / c, alpha = (omega0 dx / c)^2),
 * r = (eps_inf + delta_eps) / eps_inf, beta = dim / (mu eps_inf), u = S^2:
 *     alpha beta u^2 - (4 beta + alpha r) u + 4 = 0,
 * the smaller root is S_max^2 (both damped and undamped). */
Test(material_stability, lorentz_coupled_hand_limit)
{
    const double dx = 10e-9;
    char err[ERRLEN];
    const double params[][4] = {/* eps_inf, delta_eps, omega0 dx/c, gamma/omega0 */
                                {1.0, 3.0, 1.0, 0.0},  {1.0, 3.0, 1.0, 0.2},
                                {2.0, 10.0, 0.3, 0.0}, {1.5, 0.5, 2.0, 1.0}};
    for (size_t k = 0; k < sizeof params / sizeof params[0]; k++)
        for (int dim = 2; dim <= 3; dim++) {
            const double ei = params[k][0], de = params[k][1], w0 = params[k][2] * C0 / dx;
            struct scene_material m = {.name = "lz", .eps_inf = ei, .mu_r = 1.0, .npoles = 1};
            m.poles[0] = (struct scene_pole){POLE_LORENTZ, de, w0, params[k][3] * w0};
            const double alpha = pow(params[k][2], 2), r = (ei + de) / ei, beta = dim / ei;
            const double bq = 4.0 * beta + alpha * r;
            const double u = (bq - sqrt(bq * bq - 16.0 * alpha * beta)) / (2.0 * alpha * beta);
            double rad, smax;
            const double S = 0.6; /* above the limit in some cases, below in others */
            const int rc = check(&m, S * dx / C0, S, dim, &rad, &smax, err);
            cr_assert(close_rel(smax, sqrt(u), 1e-6), "case %zu dim %d: s_max %.10g, hand %.10g",
                      k, dim, smax, sqrt(u));
            cr_assert_eq(rc, S <= sqrt(u) ? 0 : -1, "case %zu dim %d", k, dim);
        }
}

/* Drude, hand analysis.  The recursion alone, P^{n+1} = c1 P^n - c2 P^{n-1}
 * (c1 = 2/(1 + g), c2 = (1 - g)/(1 + g), g = gamma dt/2), has the roots
 * lambda = 1 (1 - c1 + c2 = 0) and lambda = c2, in (-1, 1] for every g >= 0:
 * stable for gamma >= 0 (the root 1 is the DC current, marginal; gamma = 0
 * makes it double).  Coupled to the field, with z = -(lambda - 1)^2/lambda:
 *     (1 + g)(lambda - c1 + c2/lambda) = -z + g (lambda - 1/lambda),
 *     P = -w_p E / (z - g (lambda - 1/lambda)),  w_p = omega_p^2 dt^2,
 * and K/mu = z eps_num.  Undamped: K/mu = z eps_inf - w_p, so
 * z = (K/mu + w_p)/eps_inf must stay in [0, 4] for every K <= K_max; with
 * damping a root can only leave the unit circle at lambda = -1 (elsewhere on
 * the circle eps_num is not real, so K would not be), where
 * lambda - 1/lambda = 0 and the damping drops out.  Either way the coupled
 * scheme needs
 *     4 dim S^2 / mu + omega_p^2 dt^2 <= 4 eps_inf,
 * stricter than the Courant limit: at the same dx (dt = S dx / c)
 *     S_max = sqrt(4 eps_inf / (4 dim / mu + (omega_p dx / c)^2)). */
Test(material_stability, drude_hand_limit)
{
    char err[ERRLEN];
    /* the recursion alone */
    for (double g = 0.0; g < 2000.0; g = g == 0.0 ? 1e-3 : g * 3.0) {
        double A[4] = {2.0 / (1.0 + g), -(1.0 - g) / (1.0 + g), 1.0, 0.0}, wr[2], wi[2];
        cr_assert_eq(material_eigenvalues(A, 2, wr, wi), 0);
        for (int k = 0; k < 2; k++)
            cr_assert_leq(hypot(wr[k], wi[k]), 1.0 + MATERIAL_STABILITY_TOL, "g = %g", g);
    }
    /* coupled */
    const double dx = 20e-9;
    const double cases[][4] = {/* eps_inf, mu_r, omega_p dx / c, gamma / omega_p */
                               {1.0, 1.0, 0.5, 0.0}, {1.0, 1.0, 0.5, 0.01}, {1.0, 1.0, 2.0, 3.0},
                               {4.0, 1.0, 1.0, 0.0}, {2.0, 2.0, 1.5, 0.1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int dim = 2; dim <= 3; dim++) {
            const double wp = cases[k][2] * C0 / dx;
            struct scene_material m = {.name = "metal", .eps_inf = cases[k][0],
                                       .mu_r = cases[k][1], .npoles = 1};
            m.poles[0] = (struct scene_pole){POLE_DRUDE, 0.0, wp, cases[k][3] * wp};
            const double hand = sqrt(4.0 * cases[k][0]
                                     / (4.0 * dim / cases[k][1] + pow(cases[k][2], 2)));
            double r, smax;
            const double S = 0.5;
            const int rc = check(&m, S * dx / C0, S, dim, &r, &smax, err);
            cr_assert(close_rel(smax, hand, 1e-6), "case %zu dim %d: s_max %.10g hand %.10g", k,
                      dim, smax, hand);
            cr_assert_eq(rc, S <= hand ? 0 : -1, "case %zu dim %d: %s", k, dim, err);
            if (rc)
                cr_assert(strstr(err, "pole 1 (Drude"), "%s", err);
            else
                cr_assert_leq(r, 1.0 + MATERIAL_STABILITY_TOL);
        }
}

/* Debye, trapezoidal: |a| = |2 tau - dt|/(2 tau + dt) < 1 at every dt/tau,
 * and on the coupled mode P = b (lambda + 1) E / (lambda - a) vanishes at
 * lambda = -1, so the limit stays the Courant limit of eps_inf:
 * sqrt(eps_inf mu / dim) at any dt/tau (water: eps_inf 5.2, delta_eps 73.16). */
Test(material_stability, debye_any_dt)
{
    char err[ERRLEN];
    const double tau = 8.27e-12;
    for (double ratio = 1e-4; ratio < 1e5; ratio *= 10.0)
        for (int dim = 2; dim <= 3; dim++) {
            struct scene_material m = {.name = "water", .eps_inf = 5.2, .mu_r = 1.0, .npoles = 1};
            m.poles[0] = (struct scene_pole){POLE_DEBYE, 78.36 - 5.2, tau, 0.0};
            double r, smax;
            const double lim = sqrt(5.2 / dim);
            cr_assert_eq(check(&m, ratio * tau, 0.999 * lim, dim, &r, &smax, err), 0,
                         "dt/tau %g: %s", ratio, err);
            cr_assert_leq(r, 1.0 + MATERIAL_STABILITY_TOL);
            /* past the limit a root does leave the unit circle ... */
            cr_assert_eq(check(&m, ratio * tau, 1.001 * lim, dim, &r, NULL, err),
                         r > 1.0 + MATERIAL_STABILITY_TOL ? -1 : 0);
            cr_assert_gt(r, 1.0, "dt/tau %g: %.17g", ratio, r);
            /* ... but slowly where the pole damps the Nyquist mode (see
             * conductivity_any_sigma): s_max is the limit to 1e-6 only for
             * dt/tau <= 1 */
            cr_assert_geq(smax, lim * (1.0 - 1e-6), "dt/tau %g: s_max %.10g", ratio, smax);
            if (ratio <= 1.0)
                cr_assert_leq(smax, lim * (1.0 + 1e-5), "dt/tau %g: s_max %.10g", ratio, smax);
        }
}

/* Conductivity, Crank-Nicolson: K/mu = z (eps + sigma' (lambda + 1)/(lambda - 1));
 * the amplification of the lossy update, |lambda| <= 1, for every sigma' >= 0
 * up to the Courant limit sqrt(eps mu / dim), and no further. */
Test(material_stability, conductivity_any_sigma)
{
    char err[ERRLEN];
    const double dt = 1e-12;
    for (double sp = 1e-6; sp < 1e7; sp *= 10.0) /* sigma' = sigma dt / (2 eps0) */
        for (int dim = 2; dim <= 3; dim++) {
            const struct scene_material m = {.name = "lossy", .eps_inf = 3.0, .mu_r = 1.5,
                                             .sigma = sp * 2.0 * MATERIAL_EPS0 / dt};
            const double lim = sqrt(3.0 * 1.5 / dim);
            double r, smax;
            cr_assert_eq(check(&m, dt, 0.999 * lim, dim, &r, &smax, err), 0, "%s", err);
            cr_assert_leq(r, 1.0 + 1e-12, "sigma' %g: %.17g", sp, r);
            /* Past the limit, S = (1 + d) lim, the root near lambda = -1 is
             * lambda = -(1 + delta) with K/mu = z (eps + sigma' (lambda + 1)/(lambda - 1))
             * ~ (4 + delta^2)(eps + sigma' delta / 2): delta ~ 4 eps d / sigma'
             * for large sigma' (linear in d, not the lossless sqrt(8 d)).  The
             * check calls a growth under 1e-6 per step stable, so s_max may
             * pass the limit by d ~ 1e-6 sigma' / (4 eps) (harmless: 1e-6 per
             * step); it is the limit to 1e-5 while sigma' <= 1. */
            cr_assert_geq(smax, lim * (1.0 - 1e-6), "sigma' %g: s_max %.10g", sp, smax);
            if (sp <= 1.0)
                cr_assert_leq(smax, lim * (1.0 + 1e-5), "sigma' %g: s_max %.10g", sp, smax);
            const int rc = check(&m, dt, 1.001 * lim, dim, &r, NULL, err);
            cr_assert_eq(rc, r > 1.0 + MATERIAL_STABILITY_TOL ? -1 : 0);
            const double d = 1.001 * 1.001 - 1.0; /* K/mu - 4 eps = 4 eps d */
            if (sp >= 100.0) /* delta ~ 4 eps d / (2 sigma') to first order */
                cr_assert(close_rel(r - 1.0, 4.0 * 3.0 * d / (2.0 * sp), 0.02),
                          "sigma' %g: growth - 1 = %.6g", sp, r - 1.0);
            else
                cr_assert_eq(rc, -1, "sigma' %g: growth %.17g", sp, r);
        }
}

/* ---- presets at the dt of a typical scene ------------------------------------------ */

/* The hand criterion of the Lorentz and Drude tests for a passive material of
 * any poles: stable when every Lorentz w0 = omega0^2 dt^2 < 4 and the root at
 * lambda = -1 stays out of K <= K_max,
 *     dim S^2 / mu <= eps_num(-1) = eps_inf + sum_L delta_eps w0 / (w0 - 4)
 *                                   - sum_D omega_p^2 dt^2 / 4
 * (Debye poles and sigma vanish at lambda = -1); the largest such S at the
 * cell size dx by bisection (both sides are monotonic in S). */
static bool nyquist_stable(const struct scene_material *m, double dx, double S, int dim)
{
    const double dt = S * dx / C0;
    double eps = m->eps_inf;
    for (int p = 0; p < m->npoles; p++) {
        const struct scene_pole *q = &m->poles[p];
        const double w = q->b * dt * q->b * dt;
        if (q->kind == POLE_LORENTZ) {
            if (w >= 4.0)
                return false;
            eps += q->a * w / (w - 4.0);
        } else if (q->kind == POLE_DRUDE) {
            eps -= w / 4.0;
        }
    }
    return dim * S * S / m->mu_r <= eps;
}

static double nyquist_smax(const struct scene_material *m, double dx, int dim)
{
    double lo = 0.0, hi = 2.0;
    for (int k = 0; k < 100; k++) {
        const double mid = 0.5 * (lo + hi);
        if (nyquist_stable(m, dx, mid, dim))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* gold and silver (Rakic et al. 1998, Drude + 5 Lorentz) at 500 nm and water
 * (Kaatze 1989, Debye) at 10 GHz, 20 cells per (vacuum) wavelength, the
 * default courant 0.5, in 2D and 3D: the check's s_max against the hand
 * criterion, its verdict at 0.5 against s_max, and the numbers in the log. */
Test(material_stability, presets_typical_scene)
{
    static const char *text = "[grid]\nnx = 64\nny = 48\nsteps = 10\ncells_per_wavelength = 20\n"
                              "[source]\nfrequency_hz = 5.99584916e14\n"
                              "[material.au]\npreset = gold\n[material.ag]\npreset = silver\n"
                              "[material.w]\npreset = water\n";
    for (int dim = 2; dim <= 3; dim++) {
        const char *sets[2] = {dim == 3 ? "grid.nz=32" : "grid.nz=1", "source.frequency_hz=1e10"};
        for (int which = 0; which < 3; which++) {
            struct scene s;
            char err[ERRLEN];
            cr_assert_eq(scene_load_text(&s, "presets", text, strlen(text), sets,
                                         which == 2 ? 2 : 1, err, sizeof err),
                         0, "%s", err);
            const struct scene_material *m = &s.materials[which];
            const double dx = scene_dx(&s), dt = scene_dt(&s);
            double r, smax;
            const int rc = check(m, dt, s.courant, dim, &r, &smax, err);
            const double hand = nyquist_smax(m, dx, dim);
            cr_assert(close_rel(smax, hand, 1e-5), "%s %dD: s_max %.8g, hand %.8g", m->name, dim,
                      smax, hand);
            cr_assert_eq(rc, s.courant <= smax ? 0 : -1);
            if (rc) /* the 13.3 eV (gold) and 20.3 eV (silver) Lorentz terms restrict most */
                cr_assert(strstr(err, "pole 6 (Lorentz") && strstr(err, "courant = 0.5 (growth"),
                          "%s", err);
            cr_log_info("preset %s (%s) %dD, dx = %.4g m, courant %.2g: %s (growth %.6g per "
                        "step), largest stable courant %.4f%s%s",
                        m->name, which == 0 ? "gold" : which == 1 ? "silver" : "water", dim, dx,
                        s.courant, rc ? "UNSTABLE" : "stable", r, smax, rc ? ": " : "",
                        rc ? err : "");
            scene_free(&s);
        }
    }
}

/* ---- discrete dispersion ------------------------------------------------------------ */

/* det(M) of a complex n x n matrix (row-major), Gaussian elimination with
 * partial pivoting. */
static double complex cdet(double complex *M, int n)
{
    double complex det = 1.0;
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (cabs(M[i * n + k]) > cabs(M[p * n + k]))
                p = i;
        if (M[p * n + k] == 0.0)
            return 0.0;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                const double complex t = M[k * n + j];
                M[k * n + j] = M[p * n + j];
                M[p * n + j] = t;
            }
            det = -det;
        }
        det *= M[k * n + k];
        for (int i = k + 1; i < n; i++) {
            const double complex f = M[i * n + k] / M[k * n + k];
            for (int j = k; j < n; j++)
                M[i * n + j] -= f * M[k * n + j];
        }
    }
    return det;
}

/* det(lambda I - A(K)) */
static double complex char_poly(const struct material_coef *c, double K, double complex lambda)
{
    const int n = material_state_size(c);
    double A[MATERIAL_MAX_STATE * MATERIAL_MAX_STATE];
    double complex M[MATERIAL_MAX_STATE * MATERIAL_MAX_STATE];
    material_amplification(c, K, A);
    for (int i = 0; i < n * n; i++)
        M[i] = (i % (n + 1) == 0 ? lambda : 0.0) - A[i];
    return cdet(M, n);
}

/* The numerical eps(omega) of the update, from the amplification matrix
 * alone: a wave exp(i omega t) on the grid is an eigenvalue lambda =
 * exp(i omega dt) of A(K) for the (complex) K of its wavenumber.  In the
 * scaled variable sqrt(K) H the matrix is A0 + K (rank one), so
 * det(lambda I - A(K)) = alpha + beta K is affine in K: two real K give the
 * root K(omega).  The exact update then satisfies K/mu = z eps_num with
 * z = -(lambda - 1)^2/lambda = 4 sin^2(omega dt/2) (the H-E leapfrog), so
 *     eps_num(omega) = K(omega) / (mu z),
 * which must tend to the exact eps(omega) as dt -> 0, to second order
 * (central differences, trapezoid, Crank-Nicolson). */
static double complex eps_num(const struct scene_material *m, double dt, double omega)
{
    struct material_coef c;
    char err[ERRLEN];
    cr_assert_eq(material_coef(m, dt, 0.5, &c, err, sizeof err), 0, "%s", err);
    const double complex lambda = cexp(I * omega * dt);
    const double k1 = omega * dt * omega * dt, k2 = 2.0 * k1;
    const double complex q1 = char_poly(&c, k1, lambda), q2 = char_poly(&c, k2, lambda);
    const double complex beta = (q2 - q1) / (k2 - k1), alpha = q1 - beta * k1;
    const double complex K = -alpha / beta;
    const double z = 4.0 * pow(sin(omega * dt / 2.0), 2);
    return K / (m->mu_r * z);
}

static double complex eps_exact(const struct scene_material *m, double omega)
{
    struct dispersion_pole p[SCENE_MAX_POLES];
    for (int k = 0; k < m->npoles; k++) {
        const struct scene_pole *q = &m->poles[k];
        p[k] = (struct dispersion_pole){.gamma = q->c};
        if (q->kind == POLE_DEBYE)
            p[k].kind = DISPERSION_DEBYE, p[k].delta_eps = q->a, p[k].tau = q->b, p[k].gamma = 0;
        else if (q->kind == POLE_LORENTZ)
            p[k].kind = DISPERSION_LORENTZ, p[k].delta_eps = q->a, p[k].omega0 = q->b;
        else
            p[k].kind = DISPERSION_DRUDE, p[k].omega_p = q->b;
    }
    const struct dispersion_material d = {.eps_inf = m->eps_inf, .sigma = m->sigma,
                                          .npoles = m->npoles, .poles = p};
    return dispersion_eps(&d, omega);
}

/* The 3-pole lossy magnetic material of hand_material at omega = 0.7e12 and
 * 1.7e12 rad/s (below and above its Lorentz resonance at 1e12), and gold at
 * 500 nm: the error falls 4 times per halving of dt, and is small. */
Test(material_dispersion, second_order_to_exact)
{
    struct scene_material hand = hand_material();
    struct scene_material pure = hand; /* each ingredient alone too */
    const double omegas[] = {0.7e12, 1.7e12};
    for (int which = -1; which <= 3; which++) {
        struct scene_material m = hand;
        if (which >= 0) { /* 0..2: one pole alone, 3: conductivity alone */
            m = pure;
            m.npoles = which < 3 ? 1 : 0;
            if (which < 3)
                m.poles[0] = hand.poles[which];
            else
                m.sigma = hand.sigma;
            if (which < 3)
                m.sigma = 0.0;
        }
        for (int w = 0; w < 2; w++) {
            const double omega = omegas[w];
            double prev = 0.0;
            for (int h = 0; h < 4; h++) {
                const double dt = 0.05 / omega / pow(2.0, h); /* omega dt = 0.05 .. 0.00625 */
                const double complex got = eps_num(&m, dt, omega), want = eps_exact(&m, omega);
                const double e = cabs(got - want) / cabs(want);
                cr_assert_lt(e, 0.01, "case %d omega %g dt %g: eps_num %g%+gi, exact %g%+gi", which,
                             omega, dt, creal(got), cimag(got), creal(want), cimag(want));
                if (h > 0)
                    cr_assert(prev / e > 3.8 && prev / e < 4.2,
                              "case %d omega %g: error ratio %.4g (%.3g -> %.3g), not 4", which,
                              omega, prev / e, prev, e);
                prev = e;
            }
        }
    }
}

Test(material_dispersion, gold_at_500nm)
{
    static const char *text = "[grid]\nnx = 64\nny = 48\nsteps = 10\ncells_per_wavelength = 20\n"
                              "[source]\nfrequency_hz = 5.99584916e14\n"
                              "[material.au]\npreset = gold\n";
    struct scene s;
    char err[ERRLEN];
    cr_assert_eq(scene_load_text(&s, "gold", text, strlen(text), NULL, 0, err, sizeof err), 0,
                 "%s", err);
    const double omega = 2.0 * M_PI * s.frequency_hz;
    double prev = 0.0;
    for (int h = 0; h < 4; h++) {
        const double dt = 0.4 * scene_dx(&s) / C0 / pow(2.0, h); /* courant 0.4 and below */
        const double complex got = eps_num(&s.materials[0], dt, omega);
        const double complex want = eps_exact(&s.materials[0], omega);
        const double e = cabs(got - want) / cabs(want);
        if (h == 0)
            cr_log_info("gold at 500 nm, 20 cells per wavelength, courant 0.4: eps_num = %.4f%+.4fi, "
                        "exact %.4f%+.4fi (relative error %.2g)",
                        creal(got), cimag(got), creal(want), cimag(want), e);
        if (h > 0)
            cr_assert(prev / e > 3.5 && prev / e < 4.5, "error ratio %.4g", prev / e);
        prev = e;
    }
    scene_free(&s);
}

/* An active pole: a Lorentz delta_eps = -2 on eps_inf = 1 has a negative
 * static eps; the longitudinal (K = 0) mode obeys
 * P'' + omega0^2 (1 + delta_eps/eps_inf) P = 0 and grows at every dt. */
Test(material_stability, active_material_never_stable)
{
    struct scene_material m = {.name = "gain", .eps_inf = 1.0, .mu_r = 1.0, .npoles = 1};
    m.poles[0] = (struct scene_pole){POLE_LORENTZ, -2.0, 1e15, 1e13};
    char err[ERRLEN];
    double r, smax;
    cr_assert_eq(check(&m, 1e-17, 0.5, 2, &r, &smax, err), -1);
    cr_assert_eq(smax, 0.0);
    cr_assert(strstr(err, "material gain: pole 1 (Lorentz") && strstr(err, "no courant number"),
              "%s", err);
    /* a PEC material has no update: stable, no limit */
    const struct scene_material pec = {.name = "wall", .is_pec = true};
    cr_assert_eq(check(&pec, 1e-17, 0.5, 2, &r, &smax, err), 0);
    cr_assert_eq(smax, INFINITY);
    /* bad input */
    cr_assert_eq(check(&m, 1e-17, 0.5, 4, &r, &smax, err), -1);
    cr_assert(strstr(err, "dimension 4"), "%s", err);
}
