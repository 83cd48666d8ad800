/* dispersion.c - eps(omega) of Debye, Lorentz and Drude poles plus a
 * conductivity, exp(+i omega t).  See dispersion.h. */
#include "dispersion.h"
#include "core/scene.h"
#include "core/util.h"

#include <math.h>

double complex dispersion_pole_term(const struct dispersion_pole *p, double omega)
{
    switch (p->kind) {
    case DISPERSION_DEBYE:
        /* delta_eps / (1 + i omega tau) */
        return p->delta_eps / (1.0 + I * omega * p->tau);
    case DISPERSION_LORENTZ: {
        /* delta_eps omega0^2 / (omega0^2 - omega^2 + i gamma omega) */
        const double w02 = p->omega0 * p->omega0;
        return p->delta_eps * w02 / (w02 - omega * omega + I * p->gamma * omega);
    }
    case DISPERSION_DRUDE:
        /* -omega_p^2 / (omega^2 - i gamma omega) */
        return -p->omega_p * p->omega_p / (omega * omega - I * p->gamma * omega);
    }
    return NAN;
}

double complex dispersion_eps(const struct dispersion_material *m, double omega)
{
    /* - i sigma / (omega eps0) */
    double complex eps = m->eps_inf - I * m->sigma / (omega * DISPERSION_EPS0);
    for (int q = 0; q < m->npoles; q++)
        eps += dispersion_pole_term(&m->poles[q], omega);
    return eps;
}

int dispersion_check(const struct dispersion_material *m, char *err, size_t errlen)
{
    if (!(m->eps_inf > 0.0) || !isfinite(m->eps_inf))
        return seterr(err, errlen, "dispersion: eps_inf = %g, need a finite value > 0", m->eps_inf);
    if (!(m->sigma >= 0.0) || !isfinite(m->sigma))
        return seterr(err, errlen, "dispersion: sigma = %g S/m, need a finite value >= 0",
                      m->sigma);
    if (m->npoles < 0 || (m->npoles > 0 && !m->poles))
        return seterr(err, errlen, "dispersion: %d poles without a pole array", m->npoles);
    for (int q = 0; q < m->npoles; q++) {
        const struct dispersion_pole *p = &m->poles[q];
        if (!(p->gamma >= 0.0) || !isfinite(p->gamma))
            return seterr(err, errlen, "dispersion: pole %d: gamma = %g rad/s, need >= 0", q,
                          p->gamma);
        switch (p->kind) {
        case DISPERSION_DEBYE:
            if (!isfinite(p->delta_eps) || !(p->tau > 0.0) || !isfinite(p->tau))
                return seterr(err, errlen,
                              "dispersion: Debye pole %d: delta_eps = %g (finite), tau = %g s "
                              "(need > 0)",
                              q, p->delta_eps, p->tau);
            break;
        case DISPERSION_LORENTZ:
            if (!isfinite(p->delta_eps) || !(p->omega0 > 0.0) || !isfinite(p->omega0))
                return seterr(err, errlen,
                              "dispersion: Lorentz pole %d: delta_eps = %g (finite), omega0 = %g "
                              "rad/s (need > 0)",
                              q, p->delta_eps, p->omega0);
            break;
        case DISPERSION_DRUDE:
            if (!(p->omega_p > 0.0) || !isfinite(p->omega_p))
                return seterr(err, errlen,
                              "dispersion: Drude pole %d: omega_p = %g rad/s, need > 0", q,
                              p->omega_p);
            break;
        default:
            return seterr(err, errlen, "dispersion: pole %d has kind %d, not Debye (0), Lorentz "
                                       "(1) or Drude (2)",
                          q, (int)p->kind);
        }
    }
    return 0;
}

double complex dispersion_scene_eps(const struct scene_material *t, double omega)
{
    struct dispersion_pole p[SCENE_MAX_POLES];
    for (int q = 0; q < t->npoles; q++) {
        const struct scene_pole *sp = &t->poles[q];
        if (sp->kind == POLE_DEBYE)
            p[q] = (struct dispersion_pole){.kind = DISPERSION_DEBYE, .delta_eps = sp->a,
                                            .tau = sp->b};
        else if (sp->kind == POLE_LORENTZ)
            p[q] = (struct dispersion_pole){.kind = DISPERSION_LORENTZ, .delta_eps = sp->a,
                                            .omega0 = sp->b, .gamma = sp->c};
        else
            p[q] = (struct dispersion_pole){.kind = DISPERSION_DRUDE, .omega_p = sp->b,
                                            .gamma = sp->c};
    }
    const struct dispersion_material dm = {.eps_inf = t->eps_inf, .sigma = t->sigma,
                                           .npoles = t->npoles, .poles = p};
    return dispersion_eps(&dm, omega);
}
