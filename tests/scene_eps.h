/* scene_eps.h - eps(omega) of a scene's material (its eps_inf, sigma and
 * poles) by compare/dispersion.h: the exact permittivity the tests' exact
 * solutions take (header-only, for the Criterion suites). */
#ifndef TEXFDTD_TEST_SCENE_EPS_H
#define TEXFDTD_TEST_SCENE_EPS_H

#include <complex.h>

#include "compare/dispersion.h"
#include "core/scene.h"

/* eps(omega) of material t, omega > 0 in rad/s (compare/dispersion.c). */
static inline double complex scene_material_eps(const struct scene_material *t, double omega)
{
    return dispersion_scene_eps(t, omega);
}

#endif
