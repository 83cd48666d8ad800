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
