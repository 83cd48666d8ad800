/* far_accuracy.c - the convergence tables of docs/accuracy.md for the 2D
 * near-to-far-field transform and the flux: a circular cylinder (PEC, or a
 * dielectric) lit by a continuous plane wave at several resolutions, its
 * echo width against the exact series (compare/farexact.h) and the
 * scattered flux through a box against the exact total scattering width.
 *
 *   build/bench/far_accuracy pec 5.655            PEC, ka = 5.655, staircase and conformal
 *   build/bench/far_accuracy dielectric 3 4       eps_r = 4, ka = 3 (subpixel on and off)
 *
 * FAR_CORRECT=1 in the environment sets [grid] dispersion_correction = true.
 *
 * Every run is the cpu engine in float: 60 periods, the DFT over the last
 * 20; CPML of 12 cells; the far-field contour at the default distance; a
 * flux box halfway between the cylinder and the contour. */
#define _GNU_SOURCE
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/farexact.h"
#include "core/engine.h"
#include "core/monitor.h"
#include "core/scene.h"
#include "core/util.h"

static int run(double ka, double eps, double cpw, bool conformal, bool subpixel, double *rms,
               double *worst, double *flux_err)
{
    char text[4096], err[ERRLEN];
    const double k = 2 * M_PI / cpw, a = ka / k;
    const int room = (int)ceil(0.6 * cpw) + 6; /* about 0.6 wavelength on each side */
    const int n = 2 * ((int)ceil(a) + room + 13) + 1;
    const double c = 0.5 * (n - 1) + 0.5;
    const int period = (int)lround(cpw / 0.5), steps = 60 * period, start = 40 * period;
    const int b0 = (int)floor(c - a) - room / 2, b1 = (int)ceil(c + a) + room / 2;
    char epsline[64] = "";
    if (eps > 0)
        snprintf(epsline, sizeof epsline, "eps_r = %g", eps);
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nsteps = %d\ncells_per_wavelength = %g\n"
             "conformal_pec = %s\nsubpixel = %s\ndispersion_correction = %s\n"
             "[source]\ntype = plane_wave\nramp_periods = 2\n"
             "[boundary]\ntype = cpml\ncells = 12\n"
             "[object.cyl]\nshape = circle\nmaterial = %s\n%s\ncenter_x = %.6f\ncenter_y = %.6f\n"
             "radius = %.6f\n"
             "[monitor.far]\nangles = 360\nstart_step = %d\n"
             "[monitor.flux.box]\nx0 = %d\nx1 = %d\ny0 = %d\ny1 = %d\nstart_step = %d\n"
             "[output]\npng = false\n",
             n, n, steps, cpw, conformal && eps <= 0 ? "true" : "false",
             subpixel ? "true" : "false", getenv("FAR_CORRECT") ? "true" : "false",
             eps > 0 ? "dielectric" : "pec", epsline, c, c, a,
             start, b0, b1, b0, b1, start);
    struct scene s;
    struct model m;
    if (scene_load_text(&s, "far_accuracy", text, strlen(text), NULL, 0, err, sizeof err)
        || model_build(&m, &s, err, sizeof err)) {
        fprintf(stderr, "%s\n%s", err, text);
        return -1;
    }
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    struct engine *e;
    if (engine_create("cpu", &m, &o, &e, err, sizeof err) || engine_step(e, steps, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    double sig[360];
    monitors_far2d(e->mon, 360, sig, err, sizeof err);
    struct farexact_cyl x;
    farexact_cyl_init(&x, ka, eps, err, sizeof err);
    double s2 = 0;
    *worst = 0;
    for (int q = 0; q < 360; q++) {
        const double d = 10 * log10(sig[q] / farexact_cyl_sigma_over_lambda(&x, 2 * M_PI * q / 360));
        s2 += d * d;
        if (fabs(d) > fabs(*worst))
            *worst = d;
    }
    *rms = sqrt(s2 / 360);
    double ps, pt;
    monitors_flux2d(e->mon, 0, 0, &ps, &pt);
    *flux_err = ps / (farexact_cyl_total_over_lambda(&x) * cpw) - 1;
    engine_destroy(e);
    model_free(&m);
    scene_free(&s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: far_accuracy pec KA | dielectric KA EPS_R\n");
        return 2;
    }
    const bool diel = !strcmp(argv[1], "dielectric");
    const double ka = atof(argv[2]), eps = diel && argc > 3 ? atof(argv[3]) : -1;
    const double cpws[] = {10, 20, 40, 80};
    printf("| cells per wavelength | %s: rms dB | worst dB | flux | staircase: rms dB | worst dB | "
           "flux |\n", diel ? "subpixel" : "conformal");
    printf("|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < 4; i++) {
        double r1, w1, f1, r2, w2, f2;
        if (run(ka, eps, cpws[i], !diel, diel, &r1, &w1, &f1)
            || run(ka, eps, cpws[i], false, false, &r2, &w2, &f2))
            return 1;
        printf("| %g | %.3f | %+.3f | %+.2f %% | %.3f | %+.3f | %+.2f %% |\n", cpws[i], r1, w1,
               100 * f1, r2, w2, 100 * f2);
        fflush(stdout);
    }
    return 0;
}
