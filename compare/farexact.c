/* farexact.c - exact far fields of a circular cylinder (TMz, PEC or lossless
 * dielectric) and of a PEC sphere.  See farexact.h for the conventions, the
 * derivations and the references.
 *
 * Double precision throughout; the cylinder uses glibc jn() and yn(), the
 * sphere its own Riccati-Bessel recurrences.
 */
#define _GNU_SOURCE
#include "farexact.h"
#include "analytic.h"
#include "cbessel.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* |z|^2 without the square root. */
static double abs2(double complex z)
{
    return creal(z) * creal(z) + cimag(z) * cimag(z);
}

/* ---- cylinder ------------------------------------------------------------ */

/* One cylinder coefficient a_n from J_n, J_n' and Y_n, Y_n' at ka and J_n,
 * J_n' at k1 a.  The exterior values are divided by |H_n(ka)| =
 * hypot(J_n, Y_n) (never zero: J_n and Y_n have no common zero) and the
 * interior ones by hypot(J_n(k1 a), J_n'(k1 a)), so that nothing overflows
 * for n far above ka, where Y_n is huge; a_n is a ratio, unchanged by both
 * scalings.  y_prev = Y_{n-1}(ka) (Y_{-1} = -Y_1), likewise j_prev. */
static double complex cyl_coef(int pec, double m, double ka, int n, double j, double j_prev,
                               double y, double y_prev, double j1, double dj1)
{
    const double nx = (double)n / ka;
    const double h = hypot(j, y);
    const double jn_ = j / h, yn_ = y / h;
    const double djn = j_prev / h - nx * jn_;  /* J_n'(ka) / |H_n| */
    const double dyn = y_prev / h - nx * yn_;  /* Y_n'(ka) / |H_n| */
    const double complex hn = jn_ - I * yn_;
    if (pec)
        return -jn_ / hn;
    const double g = hypot(j1, dj1);
    if (g == 0.0) /* both underflowed: n far above k1 a, a_n negligible */
        return 0.0;
    const double j1n = j1 / g, dj1n = dj1 / g;
    const double complex dhn = djn - I * dyn;
    const double num = m * dj1n * jn_ - j1n * djn;
    const double complex den = m * dj1n * hn - j1n * dhn;
    return -num / den;
}

int farexact_cyl_init(struct farexact_cyl *c, double ka, double eps_r, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!(ka > 0.0) || !isfinite(ka))
        return seterr(err, errlen, "cylinder far field: need k a > 0 (k a = %g)", ka);
    if (!isfinite(eps_r))
        return seterr(err, errlen, "cylinder far field: eps_r = %g is not finite", eps_r);
    const int pec = !(eps_r > 0.0);
    const double m = pec ? 0.0 : sqrt(eps_r);
    const double k1a = pec ? 0.0 : m * ka;
    const int order = analytic_nmax(fmax(ka, k1a));
    c->ka = ka;
    c->eps_r = pec ? 0.0 : eps_r;
    c->pec = pec;
    /* J_{-1} = -J_1, Y_{-1} = -Y_1: then Z_n' = Z_{n-1} - (n/x) Z_n holds at n = 0 */
    double j_prev = -j1(ka), y_prev = -y1(ka), j1_prev = pec ? 0.0 : -j1(k1a);
    int last = -1;
    for (int n = 0; n <= order; n++) {
        const double j = jn(n, ka), y = yn(n, ka);
        if (!isfinite(y) || !isfinite(y_prev))
            break; /* |a_n| ~ J_n / |Y_n| is far below 1e-300 from here on */
        if (n > FAREXACT_MAX_ORDER)
            return seterr(err, errlen,
                          "cylinder far field: k a = %g (k1 a = %g) needs order %d, above the %d "
                          "this build keeps",
                          ka, k1a, order, FAREXACT_MAX_ORDER);
        double j1v = 0.0, dj1v = 0.0;
        if (!pec) {
            j1v = jn(n, k1a);
            dj1v = j1_prev - (double)n / k1a * j1v;
            j1_prev = j1v;
        }
        const double complex a = cyl_coef(pec, m, ka, n, j, j_prev, y, y_prev, j1v, dj1v);
        if (!isfinite(creal(a)) || !isfinite(cimag(a)))
            return seterr(err, errlen,
                          "cylinder far field: a_%d is not finite at k a = %g, eps_r = %g", n, ka,
                          eps_r);
        c->an[n] = a;
        last = n;
        j_prev = j;
        y_prev = y;
    }
    c->nmax = last;
    return 0;
}

/* The sums over a_n shared by farexact_cyl and farexact_cyl2 (a_-n = a_n). */
static double complex series_amplitude(const double complex *an, int nmax, double psi)
{
    double complex t = an[0];
    for (int n = 1; n <= nmax; n++)
        t += 2.0 * an[n] * cos((double)n * psi);
    return t;
}

static double series_total(const double complex *an, int nmax)
{
    double s = 0.0;
    for (int n = nmax; n >= 1; n--) /* small terms first */
        s += 2.0 * abs2(an[n]);
    s += abs2(an[0]);
    return 2.0 / M_PI * s;
}

static double series_extinction(const double complex *an, int nmax)
{
    double s = 0.0;
    for (int n = nmax; n >= 1; n--)
        s += 2.0 * creal(an[n]);
    s += creal(an[0]);
    return -2.0 / M_PI * s;
}

double complex farexact_cyl_amplitude(const struct farexact_cyl *c, double psi)
{
    return series_amplitude(c->an, c->nmax, psi);
}

double farexact_cyl_sigma_over_lambda(const struct farexact_cyl *c, double psi)
{
    return 2.0 / M_PI * abs2(farexact_cyl_amplitude(c, psi));
}

double farexact_cyl_total_over_lambda(const struct farexact_cyl *c)
{
    return series_total(c->an, c->nmax);
}

double farexact_cyl_extinction_over_lambda(const struct farexact_cyl *c)
{
    return series_extinction(c->an, c->nmax);
}

/* ---- the material cylinder, TM and TE ------------------------------------ */

int farexact_cyl2_init(struct farexact_cyl2 *c, enum farexact_pol pol, double ka, int pec,
                       double complex eps, double complex mu, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (pol != FAREXACT_TM && pol != FAREXACT_TE)
        return seterr(err, errlen, "cylinder series: polarisation %d is neither TM (0) nor TE (1)",
                      (int)pol);
    if (!(ka > 0.0) || !isfinite(ka))
        return seterr(err, errlen, "cylinder series: need k a > 0 (k a = %g)", ka);
    c->pol = pol;
    c->ka = ka;
    c->pec = pec != 0;
    double complex *ratio = NULL;
    if (!c->pec) {
        if (!isfinite(creal(eps)) || !isfinite(cimag(eps)) || !isfinite(creal(mu)) ||
            !isfinite(cimag(mu)) || eps == 0.0 || mu == 0.0)
            return seterr(err, errlen,
                          "cylinder series: eps = %g%+gi, mu = %g%+gi must be finite and nonzero",
                          creal(eps), cimag(eps), creal(mu), cimag(mu));
        c->eps = eps;
        c->mu = mu;
        c->eta = csqrt(mu / eps);
        c->index = mu / c->eta;
        c->k1a = c->index * ka;
        c->p = pol == FAREXACT_TM ? 1.0 / c->eta : c->eta;
    }
    const double k1abs = c->pec ? 0.0 : cabs(c->k1a);
    const int order = analytic_nmax(fmax(ka, k1abs));
    if (order > FAREXACT_MAX_ORDER)
        return seterr(err, errlen,
                      "cylinder series: k a = %g (|k1 a| = %g) needs order %d, above the %d this "
                      "build keeps",
                      ka, k1abs, order, FAREXACT_MAX_ORDER);
    if (!c->pec) {
        ratio = xcalloc((size_t)order + 2, sizeof *ratio, "Bessel ratios", err, errlen);
        if (!ratio)
            return -1;
        /* order + 1 >= 1 entries: the pair at n = 0 reads ratio[1] */
        if (cbessel_j(c->k1a, order + 1, c->j1a, NULL, ratio, err, errlen)) {
            free(ratio);
            return -1;
        }
    }
    double j_prev = -j1(ka), y_prev = -y1(ka); /* J_{-1} = -J_1, Y_{-1} = -Y_1 */
    int last = -1;
    for (int n = 0; n <= order; n++) {
        const double j = jn(n, ka), y = yn(n, ka);
        if (!isfinite(y) || !isfinite(y_prev))
            break; /* |a_n| far below 1e-300 from here on */
        /* exterior values over |H_n(ka)| (see cyl_coef) */
        const double h = hypot(j, y);
        const double jn_ = j / h, yn_ = y / h;
        const double djn = j_prev / h - (double)n / ka * jn_;
        const double dyn = y_prev / h - (double)n / ka * yn_;
        const double complex hn = jn_ - I * yn_, dhn = djn - I * dyn;
        double complex a;
        if (c->pec) {
            a = pol == FAREXACT_TM ? -jn_ / hn : -djn / dhn;
        } else {
            double complex jp, djp; /* (J_n(k1 a), J_n'(k1 a)) up to a factor */
            cbessel_j_pair(c->k1a, n, ratio, &jp, &djp);
            a = -(c->p * djp * jn_ - jp * djn) / (c->p * djp * hn - jp * dhn);
        }
        if (!isfinite(creal(a)) || !isfinite(cimag(a))) {
            free(ratio);
            return seterr(err, errlen, "cylinder series: a_%d is not finite at k a = %g", n, ka);
        }
        c->an[n] = a;
        c->hka[n] = j - I * y;
        c->ahn[n] = (a * hn) * h; /* a_n H_n(ka), of the size of J_n(ka) */
        c->tn[n] = j + c->ahn[n];
        last = n;
        j_prev = j;
        y_prev = y;
    }
    free(ratio);
    c->nmax = last;
    return 0;
}

double complex farexact_cyl2_amplitude(const struct farexact_cyl2 *c, double psi)
{
    return series_amplitude(c->an, c->nmax, psi);
}

double farexact_cyl2_sigma_over_lambda(const struct farexact_cyl2 *c, double psi)
{
    return 2.0 / M_PI * abs2(farexact_cyl2_amplitude(c, psi));
}

double farexact_cyl2_total_over_lambda(const struct farexact_cyl2 *c)
{
    return series_total(c->an, c->nmax);
}

double farexact_cyl2_extinction_over_lambda(const struct farexact_cyl2 *c)
{
    return series_extinction(c->an, c->nmax);
}

double farexact_cyl2_absorption_over_lambda(const struct farexact_cyl2 *c)
{
    if (c->pec)
        return 0.0;
    /* 1/4 - |a + 1/2|^2 = -(Re a + |a|^2), term by term: no difference of totals */
    double s = 0.0;
    for (int n = c->nmax; n >= 0; n--)
        s += (n ? 2.0 : 1.0) * -(creal(c->an[n]) + abs2(c->an[n]));
    return 2.0 / M_PI * s;
}

/* i^-n for n >= 0 */
static double complex i_pow_minus(int n)
{
    static const double complex p[4] = {1.0, -I, -1.0, I};
    return p[n & 3];
}

void farexact_cyl2_field(const struct farexact_cyl2 *c, double krho, double psi,
                         struct farexact_field *f)
{
    /* F = sum_n eps_n i^-n g_n(rho) cos(n psi) (eps_0 = 1, eps_n = 2): dF/drho
     * takes g_n' (times k), dF/dphi = -sum eps_n i^-n g_n n sin(n psi). */
    double complex F = 0.0, dFr = 0.0, dFp = 0.0; /* dF/d(k rho), dF/dphi */
    double complex medium; /* mu (TM) or eps (TE) at the point */
    if (krho >= c->ka) {
        /* incident, closed form */
        const double complex e = cexp(-I * krho * cos(psi));
        F = e;
        dFr = -I * cos(psi) * e;
        dFp = I * krho * sin(psi) * e;
        double hprev_re = -j1(krho), hprev_im = y1(krho); /* H_{-1} = -H_1 */
        for (int n = 0; n <= c->nmax; n++) {
            const double jr = jn(n, krho), yr = yn(n, krho);
            const double complex hr = jr - I * yr;
            const double complex hprev = hprev_re + I * hprev_im;
            hprev_re = jr;
            hprev_im = -yr;
            if (!isfinite(yr) || c->ahn[n] == 0.0)
                break;
            const double complex q = c->ahn[n] / c->hka[n]; /* a_n */
            const double complex g = q * hr, dg = q * (hprev - (double)n / krho * hr);
            const double complex w = (n ? 2.0 : 1.0) * i_pow_minus(n);
            F += w * g * cos(n * psi);
            dFr += w * dg * cos(n * psi);
            dFp -= w * g * (double)n * sin(n * psi);
        }
        medium = 1.0;
    } else if (c->pec) {
        f->z = f->rho = f->phi = 0.0;
        return;
    } else {
        /* c_n J_n(k1 rho) = tn (J_n(k1 rho) / J_n(k1 a)); d/d(k rho) brings N */
        const double complex z = c->index * krho;
        double complex *jz = malloc(((size_t)c->nmax + 2) * sizeof *jz);
        if (!jz || cbessel_j(z, c->nmax + 1, jz, NULL, NULL, NULL, 0)) {
            free(jz);
            f->z = f->rho = f->phi = NAN;
            return;
        }
        for (int n = 0; n <= c->nmax; n++) {
            if (c->j1a[n] == 0.0)
                break; /* underflowed: the term is negligible */
            const double complex q = c->tn[n] / c->j1a[n]; /* c_n */
            const double complex jprev = n ? jz[n - 1] : -jz[1];
            const double complex djz = z == 0.0 ? (n == 1 ? 0.5 : 0.0)
                                                : jprev - (double)n / z * jz[n];
            const double complex w = (n ? 2.0 : 1.0) * i_pow_minus(n);
            F += w * q * jz[n] * cos(n * psi);
            dFr += w * q * c->index * djz * cos(n * psi);
            /* dF/dphi / (k rho): J_n(z) / (k rho) -> N / 2 at rho = 0 for n = 1 */
            const double complex jr = krho > 0.0 ? jz[n] / krho : (n == 1 ? c->index / 2.0 : 0.0);
            dFp -= w * q * jr * (double)n * sin(n * psi);
        }
        free(jz);
        medium = c->pol == FAREXACT_TM ? c->mu : c->eps;
        /* dFp holds (1 / k rho) dF/dphi here */
        const double complex s = c->pol == FAREXACT_TM ? 1.0 : -1.0;
        f->z = F;
        f->rho = s * I / medium * dFp;
        f->phi = -s * I / medium * dFr;
        return;
    }
    const double complex s = c->pol == FAREXACT_TM ? 1.0 : -1.0;
    f->z = F;
    f->rho = s * I / medium * (dFp / krho);
    f->phi = -s * I / medium * dFr;
}

/* ---- sphere -------------------------------------------------------------- */

int farexact_riccati_bessel(int nmax, double x, double *psi, double *chi, char *err,
                            size_t errlen)
{
    if (!(x > 0.0) || !isfinite(x))
        return seterr(err, errlen, "Riccati-Bessel: need x > 0 (x = %g)", x);
    if (nmax < 1 || nmax > FAREXACT_MAX_ORDER)
        return seterr(err, errlen, "Riccati-Bessel: order %d outside 1..%d", nmax,
                      FAREXACT_MAX_ORDER);
    const double s = sin(x), co = cos(x);

    /* chi upward: the growing solution, stable. */
    chi[0] = co;
    chi[1] = co / x + s;
    for (int n = 1; n < nmax; n++)
        chi[n + 1] = (2.0 * n + 1.0) / x * chi[n] - chi[n - 1];

    /* psi downward (Miller).  Starting at order N with (0, tiny) leaves a
     * relative error of about (psi_N / chi_N) / (psi_n / chi_n) at order n.
     * Above n = x that ratio falls by exp(-2 acosh(n / x)) an order, and
     * 2 acosh(n / x) >= 8 x^(-1/3) (about) beyond analytic_nmax(x); starting
     * 16 + 6 x^(1/3) orders above both nmax and analytic_nmax(x) puts the
     * error far below rounding (the Wronskian check in tests/test_farexact.c
     * measures it). */
    const int top = nmax > analytic_nmax(x) ? nmax : analytic_nmax(x);
    const int start = top + 16 + (int)ceil(6.0 * cbrt(x));
    double up = 0.0, cur = 1e-30; /* z_{n+1} and z_n, n = start */
    for (int n = start; n >= 1; n--) {
        if (n <= nmax)
            psi[n] = cur;
        const double down = (2.0 * n + 1.0) / x * cur - up; /* z_{n-1} */
        up = cur;
        cur = down;
        if (fabs(cur) > 1e200) { /* rescale everything kept so far */
            cur *= 1e-200;
            up *= 1e-200;
            for (int q = n; q <= nmax; q++)
                psi[q] *= 1e-200;
        }
    }
    psi[0] = cur;
    /* normalise by the larger of psi_0 = sin x, psi_1 = sin x / x - cos x:
     * they never vanish together */
    const double p0 = s, p1 = s / x - co;
    const double scale = fabs(p0) >= fabs(p1) ? p0 / psi[0] : p1 / psi[1];
    for (int n = 0; n <= nmax; n++)
        psi[n] *= scale;
    psi[0] = p0; /* exact, where the recurrence cancels (sin x near 0) */
    return 0;
}

int farexact_sphere_init(struct farexact_sphere *s, double ka, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!(ka > 0.0) || !isfinite(ka))
        return seterr(err, errlen, "sphere far field: need k a > 0 (k a = %g)", ka);
    const int order = analytic_nmax(ka);
    if (order > FAREXACT_MAX_ORDER)
        return seterr(err, errlen,
                      "sphere far field: k a = %g needs order %d, above the %d this build keeps",
                      ka, order, FAREXACT_MAX_ORDER);
    double *psi = xcalloc(2 * ((size_t)order + 1), sizeof *psi, "Riccati-Bessel values", err,
                          errlen);
    if (!psi)
        return -1;
    double *chi = psi + order + 1;
    if (farexact_riccati_bessel(order, ka, psi, chi, err, errlen)) {
        free(psi);
        return -1;
    }
    s->ka = ka;
    int last = 0;
    for (int n = 1; n <= order; n++) {
        const double dpsi = psi[n - 1] - n / ka * psi[n];
        const double dchi = chi[n - 1] - n / ka * chi[n];
        if (!isfinite(chi[n]) || !isfinite(dchi))
            break; /* |a_n|, |b_n| ~ psi_n / chi_n, far below 1e-300 from here on */
        s->an[n] = dpsi / (dpsi + I * dchi);
        s->bn[n] = psi[n] / (psi[n] + I * chi[n]);
        last = n;
    }
    free(psi);
    s->nmax = last;
    return 0;
}

void farexact_sphere_amplitudes(const struct farexact_sphere *s, double theta, double complex *S1,
                                double complex *S2)
{
    const double mu = cos(theta);
    double pi_prev = 0.0, pi_n = 1.0; /* pi_0, pi_1 */
    double complex s1 = 0.0, s2 = 0.0;
    for (int n = 1; n <= s->nmax; n++) {
        const double tau_n = n * mu * pi_n - (n + 1) * pi_prev;
        const double w = (2.0 * n + 1.0) / ((double)n * (n + 1));
        s1 += w * (s->an[n] * pi_n + s->bn[n] * tau_n);
        s2 += w * (s->an[n] * tau_n + s->bn[n] * pi_n);
        const double pi_next = (2.0 * n + 1.0) / n * mu * pi_n - (n + 1.0) / n * pi_prev;
        pi_prev = pi_n;
        pi_n = pi_next;
    }
    *S1 = s1;
    *S2 = s2;
}

double farexact_sphere_rcs_over_lambda2(const struct farexact_sphere *s, double theta, double phi)
{
    double complex s1, s2;
    farexact_sphere_amplitudes(s, theta, &s1, &s2);
    const double sp = sin(phi), cp = cos(phi);
    return (abs2(s1) * sp * sp + abs2(s2) * cp * cp) / M_PI;
}

double farexact_sphere_total_over_lambda2(const struct farexact_sphere *s)
{
    double sum = 0.0;
    for (int n = s->nmax; n >= 1; n--)
        sum += (2.0 * n + 1.0) * (abs2(s->an[n]) + abs2(s->bn[n]));
    return sum / (2.0 * M_PI);
}

double farexact_sphere_extinction_over_lambda2(const struct farexact_sphere *s)
{
    double sum = 0.0;
    for (int n = s->nmax; n >= 1; n--)
        sum += (2.0 * n + 1.0) * creal(s->an[n] + s->bn[n]);
    return sum / (2.0 * M_PI);
}
