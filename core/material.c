/* material.c - update coefficients and stability of one material
 * (docs/materials-design.md sections 2 and 3).  See material.h. */
#define _GNU_SOURCE /* M_PI */
#include "material.h"
#include "util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- coefficients --------------------------------------------------------- */

static int check_params(const struct scene_material *m, double dt, double S, char *err,
                        size_t errlen)
{
    if (m->is_pec)
        return seterr(err, errlen, "material %s: pec = true has no update coefficients",
                      m->name);
    if (!(dt > 0.0) || !isfinite(dt))
        return seterr(err, errlen, "material %s: time step dt = %g s, need a finite value > 0",
                      m->name, dt);
    if (!(S > 0.0) || !isfinite(S))
        return seterr(err, errlen, "material %s: courant = %g, need a finite value > 0", m->name,
                      S);
    if (!(m->eps_inf > 0.0) || !isfinite(m->eps_inf))
        return seterr(err, errlen, "material %s: eps_r = %g, need a finite value > 0", m->name,
                      m->eps_inf);
    if (!(m->mu_r > 0.0) || !isfinite(m->mu_r))
        return seterr(err, errlen, "material %s: mu_r = %g, need a finite value > 0", m->name,
                      m->mu_r);
    if (!(m->sigma >= 0.0) || !isfinite(m->sigma))
        return seterr(err, errlen, "material %s: sigma = %g S/m, need a finite value >= 0",
                      m->name, m->sigma);
    if (m->npoles < 0 || m->npoles > SCENE_MAX_POLES)
        return seterr(err, errlen, "material %s: %d poles, allowed 0 to %d", m->name, m->npoles,
                      SCENE_MAX_POLES);
    for (int p = 0; p < m->npoles; p++) {
        const struct scene_pole *q = &m->poles[p];
        const bool bad_kind = q->kind != POLE_DEBYE && q->kind != POLE_LORENTZ
                              && q->kind != POLE_DRUDE;
        if (bad_kind || !isfinite(q->a) || !(q->b > 0.0) || !isfinite(q->b)
            || (q->kind != POLE_DEBYE && (!(q->c >= 0.0) || !isfinite(q->c))))
            return seterr(err, errlen,
                          "material %s: pole %d (kind %d): a = %g, b = %g, c = %g out of range: "
                          "need a finite, b > 0 (tau, omega0 or omega_p), c = gamma >= 0",
                          m->name, p + 1, (int)q->kind, q->a, q->b, q->c);
    }
    return 0;
}

double material_ch(double mu_bar, double S)
{
    /* H^{n+1/2} = H^{n-1/2} -+ (S/mu_bar) curl E */
    return S / mu_bar;
}

double material_hinc(double mu_bar)
{
    /* The incident field obeys the vacuum update, Hi^{n+1/2} - Hi^{n-1/2} =
     * -+ S curl Ei, so the term -+ (S/mu) curl Ei the scattered update lacks is
     * (1/mu)(Hi^{n+1/2} - Hi^{n-1/2}), and the slot adds
     * (1/mu - 1)(Hi^{n+1/2} - Hi^{n-1/2}) = -(1 - 1/mu)(...). */
    return -(1.0 - 1.0 / mu_bar);
}

int material_coef(const struct scene_material *m, double dt, double S, struct material_coef *c,
                  char *err, size_t errlen)
{
    if (check_params(m, dt, S, err, errlen))
        return -1;
    memset(c, 0, sizeof *c);
    c->S = S;
    c->dt = dt;
    c->eps_inf = m->eps_inf;
    c->mu_r = m->mu_r;

    /* Ampere's law for D = eps0 (eps_inf E + sum P) with the conduction
     * current sigma E averaged over the step (Crank-Nicolson), D and P in
     * units of eps0:
     *     D^{n+1} - D^n = S curl H^{n+1/2} - sigma' (E^{n+1} + E^n),
     *     sigma' = sigma dt / (2 eps0). */
    c->sigma_p = m->sigma * dt / (2.0 * MATERIAL_EPS0);

    /* Without poles D = eps_inf E (Taflove and Hagness eq. 3.31):
     *     (eps_inf + sigma') E^{n+1} = (eps_inf - sigma') E^n + S curl H,
     * i.e. with s = sigma'/eps_inf
     *     ca = (1 - s)/(1 + s),  cb = (S/eps_inf)/(1 + s). */
    const double s = c->sigma_p / m->eps_inf;
    c->ca = (1.0 - s) / (1.0 + s);
    c->cb = (S / m->eps_inf) / (1.0 + s);

    /* Scattered field E_s = E - Ei with a vacuum incident field,
     * Ei^{n+1} - Ei^n = S curl Hi: the total update minus the incident one is
     *     E_s^{n+1} = ca E_s^n + cb curl H_s + v,
     *     v = ca Ei^n - Ei^{n+1} + (Ei^{n+1} - Ei^n)/(eps_inf + sigma')
     *       = -[(eps_inf - 1)(Ei^{n+1} - Ei^n) + sigma'(Ei^{n+1} + Ei^n)] / (eps_inf + sigma'). */
    const double den = m->eps_inf + c->sigma_p;
    c->cinc_diff = -(m->eps_inf - 1.0) / den;
    c->cinc_sum = -c->sigma_p / den;

    c->ch = material_ch(m->mu_r, S);
    c->hinc = material_hinc(m->mu_r);

    double sum_b = 0.0;
    c->npoles = m->npoles;
    for (int p = 0; p < m->npoles; p++) {
        const struct scene_pole *q = &m->poles[p];
        struct material_pole_coef *k = &c->poles[p];
        k->kind = q->kind;
        if (q->kind == POLE_DEBYE) {
            /* tau dP/dt + P = delta_eps E, trapezoidal about n+1/2:
             *     (2 tau + dt) P^{n+1} = (2 tau - dt) P^n + delta_eps dt (E^{n+1} + E^n)
             *     a = (2 tau - dt)/(2 tau + dt),  b = delta_eps dt/(2 tau + dt) */
            const double tau = q->b;
            k->a = (2.0 * tau - dt) / (2.0 * tau + dt);
            k->b = q->a * dt / (2.0 * tau + dt);
            sum_b += k->b;
        } else {
            /* Lorentz: P'' + gamma P' + omega0^2 P = delta_eps omega0^2 E,
             * Drude:   P'' + gamma P' = omega_p^2 E,
             * central differences at step n (P'' -> (P^{n+1} - 2P^n + P^{n-1})/dt^2,
             * P' -> (P^{n+1} - P^{n-1})/(2 dt)), g = gamma dt / 2:
             *     c1 = (2 - omega0^2 dt^2)/(1 + g),  c2 = (1 - g)/(1 + g),
             *     c3 = delta_eps omega0^2 dt^2/(1 + g)
             * (Drude: omega0^2 dt^2 -> 0 in c1, delta_eps omega0^2 -> omega_p^2). */
            const double g = q->c * dt / 2.0;
            const double w = q->b * dt; /* omega0 dt or omega_p dt */
            k->c1 = (q->kind == POLE_LORENTZ ? 2.0 - w * w : 2.0) / (1.0 + g);
            k->c2 = (1.0 - g) / (1.0 + g);
            k->c3 = (q->kind == POLE_LORENTZ ? q->a * w * w : w * w) / (1.0 + g);
        }
        k->c1_f = (float)k->c1;
        k->c2_f = (float)k->c2;
        k->c3_f = (float)k->c3;
        k->a_f = (float)k->a;
        k->b_f = (float)k->b;
    }

    /* D^{n+1} = eps_inf E^{n+1} + sum P^{n+1}, with the Debye P^{n+1}
     * implicit in E^{n+1}: the bracket of E^{n+1} is
     *     eps_inf + sum_Debye b + sigma'. */
    const double bracket = m->eps_inf + sum_b + c->sigma_p;
    if (!(bracket > 0.0))
        return seterr(err, errlen, "material %s: eps_inf + sum of the Debye b + sigma' = %g, "
                      "need > 0", m->name, bracket);
    c->rdenom = 1.0 / bracket;

    c->sigma_p_f = (float)c->sigma_p;
    c->ca_f = (float)c->ca;
    c->cb_f = (float)c->cb;
    c->ch_f = (float)c->ch;
    c->rdenom_f = (float)c->rdenom;
    return 0;
}

/* ---- amplification matrix --------------------------------------------------- */

int material_state_size(const struct material_coef *c)
{
    if (!c->npoles)
        return 2;
    int n = 3;
    for (int p = 0; p < c->npoles; p++)
        n += c->poles[p].kind == POLE_DEBYE ? 1 : 2;
    return n;
}

/* One step of the update on the plane-wave mode of spatial factor K (see
 * material.h): x -> y, the order of docs/materials-design.md with the
 * incident field and every source 0. */
static void step_mode(const struct material_coef *c, double K, const double *x, double *y)
{
    const double rk = sqrt(K);
    /* H^{n+1/2} = H^{n-1/2} - (S/mu) curl E^n, curl E^n -> (sqrt(K)/S) E^n */
    const double h1 = x[0] - c->ch * (rk / c->S) * x[1];
    y[0] = h1;
    if (!c->npoles) {
        /* E^{n+1} = ca E^n + cb curl H^{n+1/2}, curl H -> (sqrt(K)/S) H */
        y[1] = c->ca * x[1] + c->cb * (rk / c->S) * h1;
        return;
    }
    const double e = x[1], d = x[2];
    const double curl = rk * h1; /* S curl H^{n+1/2} */
    /* E^{n+1} = rdenom [D^n + S curl H - sigma' E^n - sum_LD P^{n+1}
     *                   - sum_Debye (a P^n + b E^n)],
     * P^{n+1} = c1 P^n - c2 P^{n-1} + c3 E^n (Lorentz, Drude) */
    double rhs = d + curl - c->sigma_p * e;
    for (int p = 0, k = 3; p < c->npoles; p++) {
        const struct material_pole_coef *q = &c->poles[p];
        if (q->kind == POLE_DEBYE) {
            rhs -= q->a * x[k] + q->b * e;
            k += 1;
        } else {
            const double p1 = q->c1 * x[k] - q->c2 * x[k + 1] + q->c3 * e;
            y[k] = p1;
            y[k + 1] = x[k];
            rhs -= p1;
            k += 2;
        }
    }
    const double e1 = c->rdenom * rhs;
    y[1] = e1;
    /* Debye: P^{n+1} = a P^n + b (E^{n+1} + E^n) */
    for (int p = 0, k = 3; p < c->npoles; p++) {
        const struct material_pole_coef *q = &c->poles[p];
        if (q->kind == POLE_DEBYE)
            y[k] = q->a * x[k] + q->b * (e1 + e);
        k += q->kind == POLE_DEBYE ? 1 : 2;
    }
    /* D^{n+1} = D^n + S curl H - sigma' (E^{n+1} + E^n) */
    y[2] = d + curl - c->sigma_p * (e1 + e);
}

void material_amplification(const struct material_coef *c, double K, double *A)
{
    const int n = material_state_size(c);
    double x[MATERIAL_MAX_STATE], y[MATERIAL_MAX_STATE];
    for (int j = 0; j < n; j++) { /* column j: the image of the unit vector j */
        memset(x, 0, sizeof x);
        memset(y, 0, sizeof y);
        x[j] = 1.0;
        step_mode(c, K, x, y);
        for (int i = 0; i < n; i++)
            A[(size_t)i * n + j] = y[i];
    }
}

/* ---- eigenvalues of a small real matrix --------------------------------------- */

#define AT(i, j) A[(size_t)(i) * (size_t)n + (size_t)(j)]

/* Balancing (Parlett and Reinsch 1969): a diagonal similarity D^-1 A D with
 * powers of 2 (exact), chosen so that each row and column have about the same
 * norm; the fields of different units (H, E, P) otherwise spread the entries
 * over many decades and the eigenvalues lose accuracy. */
static void balance(double *A, int n)
{
    for (int sweep = 0, done = 0; !done && sweep < 100; sweep++) {
        done = 1;
        for (int i = 0; i < n; i++) {
            double c = 0.0, r = 0.0;
            for (int j = 0; j < n; j++)
                if (j != i) {
                    c += fabs(AT(j, i));
                    r += fabs(AT(i, j));
                }
            if (c == 0.0 || r == 0.0)
                continue;
            const double s = c + r;
            double f = 1.0; /* c tracks c f^2 below */
            while (c < r / 2.0) {
                f *= 2.0;
                c *= 4.0;
            }
            while (c > r * 2.0) {
                f /= 2.0;
                c /= 4.0;
            }
            /* the row and column norms become c f and r / f */
            if ((c + r) / f < 0.95 * s) {
                done = 0;
                for (int j = 0; j < n; j++) {
                    AT(i, j) /= f;
                    AT(j, i) *= f;
                }
            }
        }
    }
}

/* Householder reflector P = I - beta v v^T with P u = (alpha, 0, ..., 0),
 * alpha = -sign(u0) |u|, v = u - alpha e1, for m = 2 or 3 components.
 * Returns beta, 0 when u = 0 (P = I). */
static double house(const double *u, int m, double *v)
{
    double nrm = 0.0;
    for (int i = 0; i < m; i++)
        nrm = hypot(nrm, u[i]);
    if (nrm == 0.0)
        return 0.0;
    const double alpha = u[0] > 0.0 ? -nrm : nrm;
    double vv = 0.0;
    for (int i = 0; i < m; i++) {
        v[i] = u[i] - (i == 0 ? alpha : 0.0);
        vv += v[i] * v[i];
    }
    return 2.0 / vv;
}

/* Reduction to upper Hessenberg form by Householder similarities
 * (Golub and Van Loan, Matrix Computations, 4th ed., alg. 7.4.2). */
static void hessenberg(double *A, int n)
{
    double v[MATERIAL_MAX_STATE];
    for (int k = 0; k + 2 < n; k++) {
        double nrm = 0.0;
        for (int i = k + 1; i < n; i++)
            nrm = hypot(nrm, AT(i, k));
        if (nrm == 0.0)
            continue;
        const double alpha = AT(k + 1, k) > 0.0 ? -nrm : nrm;
        double vv = 0.0;
        for (int i = k + 1; i < n; i++) {
            v[i] = AT(i, k) - (i == k + 1 ? alpha : 0.0);
            vv += v[i] * v[i];
        }
        const double beta = 2.0 / vv;
        for (int j = k; j < n; j++) { /* A = P A */
            double s = 0.0;
            for (int i = k + 1; i < n; i++)
                s += v[i] * AT(i, j);
            s *= beta;
            for (int i = k + 1; i < n; i++)
                AT(i, j) -= s * v[i];
        }
        for (int i = 0; i < n; i++) { /* A = A P */
            double s = 0.0;
            for (int j = k + 1; j < n; j++)
                s += AT(i, j) * v[j];
            s *= beta;
            for (int j = k + 1; j < n; j++)
                AT(i, j) -= s * v[j];
        }
        AT(k + 1, k) = alpha;
        for (int i = k + 2; i < n; i++)
            AT(i, k) = 0.0;
    }
}

/* Eigenvalues of the 2 x 2 block [a b; c d]: with p = (a - d)/2 and
 * disc = p^2 + b c, lambda = d + p +- sqrt(disc); for real roots the larger
 * one in magnitude first and the other from the product, without
 * cancellation (z = p + sign(p) sqrt(disc): d + z and d - b c / z). */
static void eig2(double a, double b, double c, double d, double *wr, double *wi)
{
    const double p = 0.5 * (a - d), disc = p * p + b * c;
    if (disc >= 0.0) {
        const double z = p + copysign(sqrt(disc), p);
        wr[0] = d + z;
        wr[1] = z != 0.0 ? d - b * c / z : d;
        wi[0] = wi[1] = 0.0;
    } else {
        wr[0] = wr[1] = d + p;
        wi[0] = sqrt(-disc);
        wi[1] = -wi[0];
    }
}

/* Apply the reflector (v, beta) of m = 2 or 3 rows/columns starting at k to
 * rows k.. from the left over columns c0..c1, and to columns k.. from the
 * right over rows r0..r1. */
static void reflect(double *A, int n, int k, int m, const double *v, double beta, int c0, int c1,
                    int r0, int r1)
{
    for (int j = c0; j <= c1; j++) {
        double s = 0.0;
        for (int i = 0; i < m; i++)
            s += v[i] * AT(k + i, j);
        s *= beta;
        for (int i = 0; i < m; i++)
            AT(k + i, j) -= s * v[i];
    }
    for (int i = r0; i <= r1; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++)
            s += AT(i, k + j) * v[j];
        s *= beta;
        for (int j = 0; j < m; j++)
            AT(i, k + j) -= s * v[j];
    }
}

/* Francis double-shift QR on the upper Hessenberg A (Golub and Van Loan,
 * alg. 7.5.1, eigenvalues only: each sweep works on the unreduced window
 * l..hi; a subdiagonal below eps (|a_{l-1,l-1}| + |a_{l,l}|) is set to 0 and
 * splits the matrix; 1 x 1 and 2 x 2 windows give their eigenvalues;
 * exceptional shifts after 10 and 20 sweeps without a split). */
static int francis(double *A, int n, double *wr, double *wi)
{
    double norm = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = i > 0 ? i - 1 : 0; j < n; j++)
            norm += fabs(AT(i, j));
    int hi = n - 1, its = 0, total = 0;
    while (hi >= 0) {
        int l = hi;
        for (; l > 0; l--) {
            double s = fabs(AT(l - 1, l - 1)) + fabs(AT(l, l));
            if (s == 0.0)
                s = norm;
            if (fabs(AT(l, l - 1)) <= DBL_EPSILON * s) {
                AT(l, l - 1) = 0.0;
                break;
            }
        }
        if (l == hi) {
            wr[hi] = AT(hi, hi);
            wi[hi] = 0.0;
            hi -= 1;
            its = 0;
            continue;
        }
        if (l == hi - 1) {
            eig2(AT(hi - 1, hi - 1), AT(hi - 1, hi), AT(hi, hi - 1), AT(hi, hi), &wr[hi - 1],
                 &wi[hi - 1]);
            hi -= 2;
            its = 0;
            continue;
        }
        if (++total > 30 * n)
            return -1;
        its++;
        /* shifts: the eigenvalues of the trailing 2 x 2 block, through their
         * sum and product */
        double sum, prod;
        if (its == 10 || its == 20) {
            const double t = fabs(AT(hi, hi - 1)) + fabs(AT(hi - 1, hi - 2));
            sum = 1.5 * t + AT(hi, hi);
            prod = t * t;
        } else {
            sum = AT(hi - 1, hi - 1) + AT(hi, hi);
            prod = AT(hi - 1, hi - 1) * AT(hi, hi) - AT(hi - 1, hi) * AT(hi, hi - 1);
        }
        /* first column of (A - s1)(A - s2) = A^2 - sum A + prod */
        double u[3] = {
            AT(l, l) * AT(l, l) + AT(l, l + 1) * AT(l + 1, l) - sum * AT(l, l) + prod,
            AT(l + 1, l) * (AT(l, l) + AT(l + 1, l + 1) - sum),
            AT(l + 1, l) * AT(l + 2, l + 1)};
        double v[3];
        for (int k = l; k <= hi - 2; k++) { /* chase the bulge down */
            const double beta = house(u, 3, v);
            if (beta != 0.0) {
                const int r1 = k + 3 < hi ? k + 3 : hi;
                reflect(A, n, k, 3, v, beta, k > l ? k - 1 : l, hi, l, r1);
                if (k > l)
                    AT(k + 1, k - 1) = AT(k + 2, k - 1) = 0.0;
            }
            u[0] = AT(k + 1, k);
            u[1] = AT(k + 2, k);
            u[2] = k + 3 <= hi ? AT(k + 3, k) : 0.0;
        }
        const double beta = house(u, 2, v);
        if (beta != 0.0) {
            reflect(A, n, hi - 1, 2, v, beta, hi - 2, hi, l, hi);
            AT(hi, hi - 2) = 0.0;
        }
    }
    return 0;
}

int material_eigenvalues(double *A, int n, double *wr, double *wi)
{
    balance(A, n);
    hessenberg(A, n);
    return francis(A, n, wr, wi);
}

#undef AT

/* ---- stability ------------------------------------------------------------------ */

/* The tolerance MATERIAL_STABILITY_TOL = 1e-6 on |lambda| - 1:
 *   - marginal modes are exact in the scheme: a lossless medium has
 *     |lambda| = 1 at every K, a Drude pole a root lambda = 1 (the DC
 *     current), double (a 2 x 2 Jordan block, P growing linearly while E
 *     stays 0) when gamma = 0.  The QR iteration is backward stable, with a
 *     perturbation of about n eps |A| ~ 1e-14 for these matrices (n <= 19,
 *     balanced |A| of order 1 to 10); a simple eigenvalue moves by as much,
 *     a double one by its square root, ~1e-7 (measured: 3e-8 to 6e-8 for one
 *     or two undamped Drude poles).  1e-6 is above both.
 *   - the price: a lossy medium just past its Courant limit, S = (1 + d)
 *     S_lim, grows only linearly in d, by about 4 eps_inf d / sigma' per step
 *     for a large sigma' (similarly a Debye pole with dt >> tau), so s_max
 *     may exceed the exact limit by d ~ 1e-6 sigma' / (4 eps_inf), where the
 *     growth is still below 1e-6 per step.
 *   - a growth of 1 + 1e-6 per step amplifies by at most e^0.1 = 1.1 over
 *     1e5 steps, longer than the scenes run: a mode that slow is harmless.
 *   - real instabilities grow much faster: just above the Courant limit,
 *     S = (1 + d) S_lim, the Yee roots are lambda = -1 - 4d +- sqrt(8d),
 *     so the check sees d down to about 1e-13. */

/* Spectral radius at one K. */
static double radius_at(const struct material_coef *c, double K)
{
    const int n = material_state_size(c);
    double A[MATERIAL_MAX_STATE * MATERIAL_MAX_STATE], wr[MATERIAL_MAX_STATE],
        wi[MATERIAL_MAX_STATE];
    material_amplification(c, K, A);
    if (material_eigenvalues(A, n, wr, wi))
        return INFINITY; /* not converged: report it unstable rather than guess */
    double r = 0.0;
    for (int k = 0; k < n; k++)
        r = fmax(r, hypot(wr[k], wi[k]));
    return r;
}

double material_growth(const struct scene_material *m, double dt, double S, int dim,
                       double *kworst, char *err, size_t errlen)
{
    if (dim != 2 && dim != 3)
        return seterr(err, errlen, "material %s: dimension %d, need 2 or 3", m->name, dim);
    struct material_coef c;
    if (material_coef(m, dt, S, &c, err, errlen))
        return -1;
    /* K = S^2 sum_d 4 sin^2(k_d dx/2) is largest, 4 dim S^2, for the
     * checkerboard mode k_d dx = pi on every axis. */
    const double kmax = 4.0 * dim * S * S;
    double worst = 0.0, kw = 0.0;
    for (int j = 0; j <= MATERIAL_NK_SCAN; j++) {
        const double K = j == MATERIAL_NK_SCAN ? kmax : kmax * j / MATERIAL_NK_SCAN;
        const double r = radius_at(&c, K);
        if (!(r <= worst)) {
            worst = r;
            kw = K;
        }
    }
    if (kworst)
        *kworst = kw;
    return worst;
}

/* Stable at Courant number s2 with the cell size of (dt, S): dt2 = dt s2 / S. */
static bool stable_at(const struct scene_material *m, double dt, double S, double s2, int dim)
{
    char e[ERRLEN];
    const double g = material_growth(m, dt * (s2 / S), s2, dim, NULL, e, sizeof e);
    return g >= 0.0 && g <= 1.0 + MATERIAL_STABILITY_TOL;
}

/* The largest stable Courant number at the cell size of (dt, S), relative
 * precision 1e-9; INFINITY when all up to 2^40 S are; 0 when none down to
 * S/1024 is: a growth that persists as dt -> 0 is a growth rate in time (an
 * active medium), which any dt small enough hides under the per-step
 * tolerance, not a stability limit. */
static double largest_stable(const struct scene_material *m, double dt, double S, int dim)
{
    double lo, hi;
    if (stable_at(m, dt, S, S, dim)) {
        lo = S;
        hi = 2.0 * S;
        for (int k = 0; stable_at(m, dt, S, hi, dim); k++) {
            if (k == 40)
                return INFINITY;
            lo = hi;
            hi *= 2.0;
        }
    } else {
        hi = S;
        lo = S / 2.0;
        for (int k = 0; !stable_at(m, dt, S, lo, dim); k++) {
            if (k == 10)
                return 0.0;
            hi = lo;
            lo /= 2.0;
        }
    }
    while (hi - lo > 1e-9 * hi) {
        const double mid = 0.5 * (lo + hi);
        if (stable_at(m, dt, S, mid, dim))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* x rounded down to 4 significant digits, for messages that must not
 * promise more than is stable. */
static double floor4(double x)
{
    if (!(x > 0.0) || !isfinite(x))
        return x;
    const double scale = pow(10.0, 3.0 - floor(log10(x)));
    return floor(x * scale) / scale;
}

static void describe_pole(const struct scene_pole *q, int index, double dt, char *buf,
                          size_t len)
{
    switch (q->kind) {
    case POLE_DEBYE:
        snprintf(buf, len, "pole %d (Debye, delta_eps = %g, tau = %g s: dt/tau = %.4g)", index,
                 q->a, q->b, dt / q->b);
        break;
    case POLE_LORENTZ:
        snprintf(buf, len,
                 "pole %d (Lorentz, delta_eps = %g, omega0 = %g rad/s, gamma = %g rad/s: "
                 "omega0 dt = %.4g)",
                 index, q->a, q->b, q->c, q->b * dt);
        break;
    case POLE_DRUDE:
        snprintf(buf, len,
                 "pole %d (Drude, omega_p = %g rad/s, gamma = %g rad/s: omega_p dt = %.4g)",
                 index, q->b, q->c, q->b * dt);
        break;
    }
}

int material_check_stability(const struct scene_material *m, double dt, double S, int dim,
                             double *radius, double *s_max, char *err, size_t errlen)
{
    if (m->is_pec) { /* no update: nothing to check */
        if (radius)
            *radius = 0.0;
        if (s_max)
            *s_max = INFINITY;
        return 0;
    }
    const double g = material_growth(m, dt, S, dim, NULL, err, errlen);
    if (g < 0.0)
        return -1;
    if (radius)
        *radius = g;
    const bool stable = g <= 1.0 + MATERIAL_STABILITY_TOL;
    if (stable && !s_max)
        return 0;
    const double smax = largest_stable(m, dt, S, dim);
    if (s_max)
        *s_max = smax;
    if (stable)
        return 0;

    char tail[160];
    if (smax > 0.0)
        snprintf(tail, sizeof tail, "courant <= %.4g is stable (the same cell size)",
                 floor4(smax));
    else
        snprintf(tail, sizeof tail, "no courant number is stable (an active material)");

    /* Who is to blame: the medium without poles (its Courant limit), else
     * the pole with the lowest Courant limit alone (with eps_inf, mu_r,
     * sigma): unstable alone, or the one that restricts most together with
     * the others. */
    struct scene_material sub = *m;
    sub.npoles = 0;
    if (!stable_at(&sub, dt, S, S, dim))
        return seterr(err, errlen,
                      "material %s: courant = %g is above the limit sqrt(eps_r mu_r / %d) = %.6g "
                      "of its eps_r = %g, mu_r = %g (growth %.6g per step); %s",
                      m->name, S, dim, sqrt(m->eps_inf * m->mu_r / dim), m->eps_inf, m->mu_r, g,
                      tail);
    int worst = 0;
    double sworst = INFINITY;
    sub.npoles = 1;
    for (int p = 0; p < m->npoles; p++) {
        sub.poles[0] = m->poles[p];
        const double s1 = largest_stable(&sub, dt, S, dim);
        if (s1 < sworst)
            sworst = s1, worst = p;
    }
    char what[256];
    describe_pole(&m->poles[worst], worst + 1, dt, what, sizeof what);
    if (sworst < S)
        return seterr(err, errlen,
                      "material %s: %s makes the update unstable at courant = %g (growth %.6g "
                      "per step); %s",
                      m->name, what, S, g, tail);
    return seterr(err, errlen,
                  "material %s: %s (stable alone up to courant %.4g), with the other poles, makes "
                  "the update unstable at courant = %g (growth %.6g per step); %s",
                  m->name, what, floor4(sworst), S, g, tail);
}

int material_stable(const struct scene_material *m, double dt, double S, int dim, char *err,
                    size_t errlen)
{
    /* the scan alone where it passes (~ms); the full check (the Courant
     * limits, ~0.2 s) only for the message of a material that fails it */
    const double g = material_growth(m, dt, S, dim, NULL, err, errlen);
    if (g < 0.0)
        return -1;
    if (g <= 1.0 + MATERIAL_STABILITY_TOL)
        return 0;
    return material_check_stability(m, dt, S, dim, NULL, NULL, err, errlen) ? -1 : 0;
}

/* ---- mixtures ------------------------------------------------------------- */

bool material_same(const struct scene_material *a, const struct scene_material *b)
{
    if (a->eps_inf != b->eps_inf || a->sigma != b->sigma || a->npoles != b->npoles)
        return false;
    for (int p = 0; p < a->npoles; p++)
        if (a->poles[p].kind != b->poles[p].kind || a->poles[p].a != b->poles[p].a
            || a->poles[p].b != b->poles[p].b || a->poles[p].c != b->poles[p].c)
            return false;
    return true;
}

int material_mix(const struct scene_material *a, double wa, const struct scene_material *b,
                 double wb, struct scene_material *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->eps_inf = wa * a->eps_inf + wb * b->eps_inf;
    out->mu_r = 1.0;
    out->sigma = wa * a->sigma + wb * b->sigma;
    double w2[SCENE_MAX_POLES] = {0}; /* Drude: the summed weighted omega_p^2 */
    const struct scene_material *src[2] = {a, b};
    const double w[2] = {wa, wb};
    for (int s = 0; s < 2; s++)
        for (int p = 0; p < src[s]->npoles; p++) {
            const struct scene_pole *q = &src[s]->poles[p];
            int k = 0;
            while (k < out->npoles
                   && !(out->poles[k].kind == q->kind
                        && (q->kind == POLE_DRUDE || out->poles[k].b == q->b)
                        && (q->kind == POLE_DEBYE || out->poles[k].c == q->c)))
                k++;
            if (k == out->npoles) {
                if (k == SCENE_MAX_POLES)
                    return seterr(err, errlen, "the mean of material %s and %s needs more than "
                                  "%d poles (the union of both materials' poles)", a->name,
                                  b->name, SCENE_MAX_POLES);
                out->poles[k] = (struct scene_pole){.kind = q->kind, .b = q->b, .c = q->c};
                out->npoles++;
            }
            if (q->kind == POLE_DRUDE)
                w2[k] += w[s] * (q->b * q->b);
            else
                out->poles[k].a += w[s] * q->a;
        }
    for (int k = 0; k < out->npoles; k++)
        if (out->poles[k].kind == POLE_DRUDE)
            out->poles[k].b = sqrt(w2[k]);
    return 0;
}

/* ---- dispersion matching -------------------------------------------------- */

/* The grid wavenumber k dx along unit vector u (dim components) of the wave
 * of sin^2(omega dt / 2) (n / S)^2 = r: the root in (0, k_max] of
 * f(k) = sum_d sin^2(k u_d / 2) - r, by Newton's method from the
 * continuum value, kept in the bracket where f rises (k u_d <= pi).
 * -1 where r is out of reach along u. */
static double grid_k(const double *u, int dim, double r)
{
    double umax = 0.0, fcap = 0.0;
    for (int d = 0; d < dim; d++)
        umax = fmax(umax, fabs(u[d]));
    const double kmax = M_PI / umax;
    for (int d = 0; d < dim; d++) {
        const double sd = sin(0.5 * kmax * u[d]);
        fcap += sd * sd;
    }
    if (!(r > 0.0) || r > fcap)
        return -1.0;
    double lo = 0.0, hi = kmax, k = 2.0 * sqrt(r);
    for (int it = 0; it < 100; it++) {
        if (!(k > lo && k < hi))
            k = 0.5 * (lo + hi);
        double f = -r, df = 0.0;
        for (int d = 0; d < dim; d++) {
            const double sd = sin(0.5 * k * u[d]);
            f += sd * sd;
            df += 0.5 * u[d] * sin(k * u[d]);
        }
        if (f < 0.0)
            lo = k;
        else
            hi = k;
        const double step = df > 0.0 ? f / df : 0.5 * (hi - lo);
        k -= step;
        if (fabs(step) < 1e-15 * k || hi - lo < 1e-15 * hi)
            break;
    }
    return k;
}

/* mean over directions of k(u, n) / k(u, 1); -1 where a direction has no
 * wave.  dim 2: the midpoint rule over phi in [0, pi/4] (the grid's
 * symmetry); dim 3: midpoints over mu = cos theta in [0, 1] and phi in
 * [0, pi/2] (uniform on the octant of the sphere). */
#define DMATCH_N2 64
#define DMATCH_N3 24
static double mean_ratio(double n, double S, double omega_dt, int dim)
{
    const double s2 = sin(0.5 * omega_dt), r1 = s2 * s2 / (S * S), rn = r1 * n * n;
    double sum = 0.0;
    int count = 0;
    const int na = dim == 2 ? DMATCH_N2 : DMATCH_N3, nb = dim == 2 ? 1 : DMATCH_N3;
    for (int a = 0; a < na; a++)
        for (int b = 0; b < nb; b++) {
            double u[3];
            if (dim == 2) {
                const double phi = (a + 0.5) * (M_PI / 4) / na;
                u[0] = cos(phi);
                u[1] = sin(phi);
            } else {
                const double mu = (a + 0.5) / na, phi = (b + 0.5) * (M_PI / 2) / nb;
                const double st = sqrt(1.0 - mu * mu);
                u[0] = st * cos(phi);
                u[1] = st * sin(phi);
                u[2] = mu;
            }
            const double k1 = grid_k(u, dim, r1), kn = grid_k(u, dim, rn);
            if (k1 <= 0.0 || kn <= 0.0)
                return -1.0;
            sum += kn / k1;
            count++;
        }
    return sum / count;
}

double material_dispersion_eps(double eps, double S, double omega_dt, int dim)
{
    if (!(eps >= 1.0) || !(S > 0.0) || !(omega_dt > 0.0) || (dim != 2 && dim != 3))
        return -1.0;
    if (eps == 1.0)
        return 1.0;
    const double n = sqrt(eps);
    /* the ratio rises with n'; the grid's slowness makes n' < n */
    double lo = 0.5 * n, hi = n;
    if (mean_ratio(hi, S, omega_dt, dim) < 0.0)
        return -1.0;
    for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; it++) {
        const double mid = 0.5 * (lo + hi), q = mean_ratio(mid, S, omega_dt, dim);
        if (q >= 0.0 && q < n)
            lo = mid;
        else
            hi = mid;
    }
    const double np = 0.5 * (lo + hi);
    return np * np;
}
