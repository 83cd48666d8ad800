/* analytic.c - the Bessel-Hankel series of a TMz plane wave scattered by a
 * PEC circular cylinder.  See analytic.h for the convention and the formula.
 *
 * Everything is double precision with glibc jn() and yn().  Each term is
 * evaluated as  coef_n * [H_n(k rho) / H_n(ka)],  the ratio first: for n well
 * above ka both Hankel values are huge (Y_n grows like (2n/ex)^n) while the
 * ratio stays below one for rho >= a, so nothing overflows where the terms
 * still matter; where H_n(ka) itself overflows the series stops, since
 * J_n(ka)/H_n(ka) is then far below double precision.
 */
#define _GNU_SOURCE
#include "analytic.h"
#include "core/util.h"

#include <math.h>
#include <string.h>

int analytic_nmax(double ka)
{
    return (int)ceil(ka + 8.0 * cbrt(ka) + 10.0);
}

/* i^-n for n >= 0: 1, -i, -1, i. */
static double complex i_pow_minus(int n)
{
    static const double complex t[4] = {1.0, -I, -1.0, I};
    return t[n & 3];
}

static double complex hankel2(int n, double x)
{
    return jn(n, x) - I * yn(n, x);
}

int analytic_init(struct analytic_cylinder *c, double k, double a, double xc, double yc,
                  double theta_rad, double d0, int nmax, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    if (!(k > 0.0) || !(a > 0.0) || !isfinite(k * a))
        return seterr(err, errlen, "exact series: need k > 0 and a > 0 (k = %g, a = %g)", k, a);
    const double ka = k * a;
    if (nmax <= 0)
        nmax = analytic_nmax(ka);
    if (nmax > ANALYTIC_MAX_ORDER)
        return seterr(err, errlen,
                      "exact series: k a = %g needs order %d, above the %d this build keeps", ka,
                      nmax, ANALYTIC_MAX_ORDER);
    c->k = k;
    c->a = a;
    c->xc = xc;
    c->yc = yc;
    c->theta = theta_rad;
    c->cos_t = cos(theta_rad);
    c->sin_t = sin(theta_rad);
    c->d0 = d0;
    c->nmax = nmax;
    c->center_phasor = -I * cexp(-I * k * (xc * c->cos_t + yc * c->sin_t - d0));
    for (int n = 0; n <= nmax; n++) {
        const double eps = n == 0 ? 1.0 : 2.0;
        c->coef[n] = -eps * i_pow_minus(n) * jn(n, ka);
        c->hka[n] = hankel2(n, ka);
    }
    return 0;
}

/* The scene's one circle, PEC (pec_only) or either. */
static int init_circle(struct analytic_cylinder *c, const struct model *m, bool pec_only,
                       char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    const struct scene_object *o = s->nobjects == 1 ? &s->objects[0] : NULL;
    const bool ok = o && o->shape == SHAPE_CIRCLE
                    && (o->material == MATERIAL_PEC
                        || (!pec_only && o->material == MATERIAL_DIELECTRIC));
    if (!ok)
        return seterr(err, errlen,
                      "%s: the exact solution needs exactly one object, a PEC circle%s (the scene "
                      "has %d object%s%s)",
                      s->path, pec_only ? "" : " or a dielectric one", s->nobjects,
                      s->nobjects == 1 ? "" : "s",
                      s->nobjects != 1 ? ""
                      : pec_only       ? ", not a PEC circle"
                                       : ", not a PEC or dielectric circle");
    const double k = 2.0 * M_PI / s->cells_per_wavelength;
    if (analytic_init(c, k, o->radius, o->center_x, o->center_y, atan2(m->inc.sin_t, m->inc.cos_t),
                      m->inc.d0, 0, err, errlen))
        return -1;
    c->eps_r = o->material == MATERIAL_DIELECTRIC ? o->eps_r : 0.0;
    return 0;
}

int analytic_init_model(struct analytic_cylinder *c, const struct model *m, char *err,
                        size_t errlen)
{
    return init_circle(c, m, true, err, errlen);
}

int analytic_init_circle(struct analytic_cylinder *c, const struct model *m, char *err,
                         size_t errlen)
{
    return init_circle(c, m, false, err, errlen);
}

int analytic_material_init(const struct analytic_cylinder *c, struct farexact_cyl2 *d, char *err,
                           size_t errlen)
{
    return farexact_cyl2_init(d, FAREXACT_TM, c->k * c->a, 0, c->eps_r, 1.0, err, errlen);
}

double complex analytic_scattered_any(const struct analytic_cylinder *c,
                                      const struct farexact_cyl2 *d, double x, double y)
{
    if (!d)
        return analytic_scattered(c, x, y);
    const double dx = x - c->xc, dy = y - c->yc;
    const double krho = c->k * hypot(dx, dy), psi = atan2(dy, dx) - c->theta;
    struct farexact_field f;
    farexact_cyl2_field(d, krho, psi, &f);
    return c->center_phasor * (f.z - cexp(-I * krho * cos(psi)));
}

double complex analytic_incident(const struct analytic_cylinder *c, double x, double y)
{
    return -I * cexp(-I * c->k * (x * c->cos_t + y * c->sin_t - c->d0));
}

double complex analytic_series(const struct analytic_cylinder *c, double rho, double psi)
{
    const double kr = c->k * rho;
    double complex sum = 0.0;
    for (int n = 0; n <= c->nmax; n++) {
        const double complex h = c->hka[n];
        if (!isfinite(creal(h)) || !isfinite(cimag(h)))
            break;
        const double complex term = c->coef[n] * (hankel2(n, kr) / h);
        sum += term * cos((double)n * psi);
    }
    return sum;
}

double complex analytic_scattered(const struct analytic_cylinder *c, double x, double y)
{
    const double dx = x - c->xc, dy = y - c->yc;
    const double rho = hypot(dx, dy);
    if (rho < c->a)
        return -analytic_incident(c, x, y);
    const double psi = atan2(dy, dx) - c->theta;
    return c->center_phasor * analytic_series(c, rho, psi);
}
