/* slab.c - Airy and Fresnel coefficients at normal incidence.  See slab.h. */
#include "slab.h"

#include <math.h>

void halfspace_rt(double complex eps, double complex mu, double complex *r, double complex *t)
{
    const double complex eta = csqrt(mu / eps);
    *r = (eta - 1.0) / (eta + 1.0);
    *t = 2.0 * eta / (eta + 1.0);
}

void slab_rt(double k0d, double complex eps, double complex mu, double complex *r,
             double complex *t)
{
    const double complex eta = csqrt(mu / eps);
    const double complex index = mu / eta;
    const double complex delta = index * k0d;
    const double complex rho = (eta - 1.0) / (eta + 1.0);
    /* exp(-i delta): |.| = exp(Im delta) <= 1 for a passive slab */
    const double complex e1 = cexp(-I * delta), e2 = e1 * e1;
    const double complex den = 1.0 - rho * rho * e2;
    *r = rho * (1.0 - e2) / den;
    *t = (1.0 - rho * rho) * e1 / den;
}

void slab_rt_material(const struct dispersion_material *m, double omega, double d,
                      double complex *r, double complex *t)
{
    slab_rt(omega * d / DISPERSION_C0, dispersion_eps(m, omega), 1.0, r, t);
}
