/* scene_eps.h - eps(omega) of a scene's material (its eps_inf, sigma and
 * poles) by compare/dispersion.h: the exact permittivity the tests' exact
 * solutions take (header-only, for the Criterion suites). */
#ifndef TEXFDTD_TEST_SCENE_EPS_H
#define TEXFDTD_TEST_SCENE_EPS_H

#include <complex.h>

#include "compare/dispersion.h"
#include "core/scene.h"

/* eps(omega) of material t, omega > 0 in rad/s. */
static inline double complex scene_material_eps(const struct scene_material *t, double omega)
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

#endif
