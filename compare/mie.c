/* mie.c - the Mie series of a sphere of complex eps and mu (or PEC).  See
 * mie.h for the conventions, the formulas and the references.  Double
 * precision; the real-argument Riccati-Bessel functions are farexact.c's,
 * the interior logarithmic derivative D_n(m x) is computed here. */
#define _GNU_SOURCE
#include "mie.h"
#include "analytic.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* D_n(z) = psi_n'(z) / psi_n(z) for n = 0..nmax into d[], by the downward
 * recurrence D_{n-1} = n/z - 1 / (D_n + n/z) from D_N = 0 (mie.h). */
static int log_derivative(double complex z, int nmax, double complex *d, char *err,
                          size_t errlen)
{
    const double az = cabs(z);
    const int start = (nmax > (int)ceil(az) ? nmax : (int)ceil(az)) + 16;
    double complex dn = 0.0;
    for (int n = start; n >= 1; n--) {
        if (n <= nmax)
            d[n] = dn;
        const double complex nz = n / z;
        dn = nz - 1.0 / (dn + nz);
        if (!isfinite(creal(dn)) || !isfinite(cimag(dn)))
            return seterr(err, errlen, "Mie series: D_%d(m x) is not finite (m x = %g%+gi)",
                          n - 1, creal(z), cimag(z));
    }
    d[0] = dn;
    return 0;
}

int mie_init(struct mie_sphere *s, double x, int pec, double complex eps, double complex mu,
             char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!(x > 0.0) || !isfinite(x))
        return seterr(err, errlen, "Mie series: need k a > 0 (k a = %g)", x);
    s->x = x;
    s->pec = pec ? 1 : 0;
    double complex z = 0.0;
    double az = 0.0;
    if (!s->pec) {
        if (!isfinite(creal(eps)) || !isfinite(cimag(eps)) || !isfinite(creal(mu)) ||
            !isfinite(cimag(mu)) || eps == 0.0 || mu == 0.0)
            return seterr(err, errlen, "Mie series: need finite, nonzero eps and mu (eps = "
                          "%g%+gi, mu = %g%+gi)", creal(eps), cimag(eps), creal(mu), cimag(mu));
        s->eps = eps;
        s->mu = mu;
        s->eta = csqrt(mu / eps);
        s->m = mu / s->eta;
        z = s->m * x;
        az = cabs(z);
        if (!(az <= 1e6))
            return seterr(err, errlen, "Mie series: |m k a| = %g is above 1e6", az);
    }
    int order = analytic_nmax(az > x ? az : x);
    const int need_x = analytic_nmax(x);
    if (need_x > FAREXACT_MAX_ORDER)
        return seterr(err, errlen, "Mie series: k a = %g needs order %d, above the %d this build "
                      "keeps", x, need_x, FAREXACT_MAX_ORDER);
    /* beyond FAREXACT_MAX_ORDER only if chi_n(x) overflows before it (checked below) */
    const int capped = order > FAREXACT_MAX_ORDER;
    if (capped)
        order = FAREXACT_MAX_ORDER;
    double *psi = xcalloc(2 * ((size_t)order + 1), sizeof *psi, "Riccati-Bessel values", err,
                          errlen);
    double complex *d = s->pec ? NULL
                               : xcalloc((size_t)order + 1, sizeof *d, "Mie D_n values", err,
                                         errlen);
    if (!psi || (!s->pec && !d)) {
        free(psi);
        free(d);
        return -1;
    }
    double *chi = psi + order + 1;
    if (farexact_riccati_bessel(order, x, psi, chi, err, errlen) ||
        (!s->pec && log_derivative(z, order, d, err, errlen))) {
        free(psi);
        free(d);
        return -1;
    }
    s->c.ka = x;
    int last = 0, overflowed = 0;
    for (int n = 1; n <= order; n++) {
        if (!isfinite(chi[n]) || !isfinite(chi[n - 1])) {
            overflowed = 1; /* |a_n|, |b_n| ~ psi_n / chi_n, far below 1e-300 from here on */
            break;
        }
        const double complex zn = psi[n] + I * chi[n], zn1 = psi[n - 1] + I * chi[n - 1];
        double complex A, B;
        if (s->pec) {
            A = n / x; /* eta D_n -> 0 */
            s->c.an[n] = (A * psi[n] - psi[n - 1]) / (A * zn - zn1);
            s->c.bn[n] = psi[n] / zn; /* D_n / eta -> infinity */
        } else {
            A = s->eta * d[n] + n / x;
            B = d[n] / s->eta + n / x;
            s->c.an[n] = (A * psi[n] - psi[n - 1]) / (A * zn - zn1);
            s->c.bn[n] = (B * psi[n] - psi[n - 1]) / (B * zn - zn1);
        }
        last = n;
    }
    free(psi);
    free(d);
    if (capped && !overflowed)
        return seterr(err, errlen, "Mie series: |m k a| = %g needs orders above the %d this "
                      "build keeps", az, FAREXACT_MAX_ORDER);
    s->c.nmax = last;
    return 0;
}

double mie_rcs(const struct mie_sphere *s, double theta, double phi)
{
    return farexact_sphere_rcs_over_lambda2(&s->c, theta, phi);
}

double mie_rcs_grid(const struct mie_sphere *s, double angle, double theta, double phi)
{
    const double u[3] = {sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta)};
    const double ca = cos(angle), sa = sin(angle);
    const double cz = ca * u[0] + sa * u[1]; /* along z' = d */
    const double cx = u[2];                  /* along x' = +z */
    const double cy = sa * u[0] - ca * u[1]; /* along y' = z' x x' */
    return mie_rcs(s, acos(fmax(-1.0, fmin(1.0, cz))), atan2(cy, cx));
}

double mie_extinction(const struct mie_sphere *s)
{
    return farexact_sphere_extinction_over_lambda2(&s->c);
}

double mie_scattering(const struct mie_sphere *s)
{
    return farexact_sphere_total_over_lambda2(&s->c);
}

double mie_absorption(const struct mie_sphere *s)
{
    return mie_extinction(s) - mie_scattering(s);
}

double mie_efficiency(const struct mie_sphere *s, double sigma_over_lambda2)
{
    /* lambda^2 / (pi a^2) = 4 pi / x^2 */
    return sigma_over_lambda2 * 4.0 * M_PI / (s->x * s->x);
}
