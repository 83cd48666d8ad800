/* dielectric_near.c - the near-field convergence table of docs/accuracy.md
 * section 6 ("Subpixel smoothing: the near field"): a dielectric circular
 * cylinder lit by a continuous TMz plane wave at several resolutions, the
 * DFT phasor of Ez against the exact series (compare/farexact.h,
 * farexact_cyl2_field via compare/analytic.h), subpixel smoothing on and off.
 *
 *   build/bench/dielectric_near [--match | --correct] [--te [--diag]] [KA [EPS_R [CPW ...]]]
 *                                                                  default 3 4 10 20 40 80
 *
 * --te runs the TE cylinder ([grid] polarization = te: the DFT of eta0 Hz
 * against the TE series); --diag with it takes the diagonal of the TE
 * smoothing only ([grid] te_offdiagonal = false).
 *
 * --correct runs the scenes with [grid] dispersion_correction = true (the
 * engines' coefficients take material_dispersion_eps, the mean over
 * directions) against the exact series of EPS_R.
 *
 * --match runs the cylinder with the permittivity of matched_eps() (the
 * grid's interior wavenumber made n times its vacuum one at the source
 * frequency) against the exact series of EPS_R: what is left is the error
 * of the geometry (the staircase or the smoothing), not of the dispersion.
 *
 * Every run is the cpu engine in float, S = 0.5: 60 periods of a sine
 * ramped over 2, the DFT over the last 20; CPML of 12 cells; the cylinder
 * centred on a cell corner (as bench/far_accuracy.c), the grid wide enough
 * for 2.5 radii plus a quarter wavelength before the CPML.  Relative complex
 * L2 errors ||F - G|| / ||G|| over the Ez nodes of
 *   annulus  1.2 a <= rho <= 2.5 a, scattered field (as for the PEC cylinder)
 *   ring2    |rho - 2 a| < 0.5, scattered field
 *   disc     rho <= 0.8 a, total field (inside the dielectric)
 *   disc_s   rho <= 0.8 a, scattered field
 *   box      |x - xc|, |y - yc| <= 1.5 a, total field
 *   box_s    the same, scattered field
 *   all      every node outside the CPML, total field */
#define _GNU_SOURCE
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/analytic.h"
#include "compare/farexact.h"
#include "core/engine.h"
#include "core/scene.h"
#include "core/util.h"

enum { ANNULUS, RING2, DISC, DISC_S, BOX, BOX_S, ALL, NMETRIC };
static const char *const metric_name[NMETRIC] = {"annulus", "ring2", "disc",  "disc_s",
                                                 "box",     "box_s", "all"};

/* The permittivity whose grid wave, along an axis at the source frequency,
 * has n times the vacuum grid wave's wavenumber (n = sqrt(eps)): the Yee
 * relation sin(w dt / 2) = (S / n') sin(k' dx / 2) with k' = n k0', k0' the
 * vacuum root, solved for n'.  A test of how much of the error is the
 * grid's dispersion, not a scene option. */
static double matched_eps(double eps, double cpw, double S)
{
    const double w2 = M_PI * S / cpw; /* omega dt / 2 */
    const double k0 = 2.0 * asin(sin(w2) / S);
    const double n = S * sin(0.5 * sqrt(eps) * k0) / sin(w2);
    return n * n;
}

static bool match, correct, te, diag;

static int run(double ka, double eps, double cpw, bool subpixel, double out[NMETRIC])
{
    char text[4096], err[ERRLEN];
    const double k = 2 * M_PI / cpw, a = ka / k;
    const int pml = 12, margin = (int)ceil(0.25 * cpw) + 2;
    const int n = 2 * ((int)ceil(2.5 * a) + margin + pml) + 1;
    const double c = 0.5 * (n - 1) + 0.5;
    const int period = (int)lround(cpw / 0.5), steps = 60 * period, start = 40 * period;
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nsteps = %d\ncells_per_wavelength = %g\nsubpixel = %s\n"
             "dispersion_correction = %s\npolarization = %s\n%s[source]\ntype = plane_wave\nramp_periods = 2\n"
             "[boundary]\ntype = cpml\ncells = %d\n"
             "[object.cyl]\nshape = circle\nmaterial = dielectric\neps_r = %g\n"
             "center_x = %.6f\ncenter_y = %.6f\nradius = %.6f\n"
             "[monitor.dft]\nstart_step = %d\n[output]\npng = false\n",
             n, n, steps, cpw, subpixel ? "true" : "false", correct ? "true" : "false",
             te ? "te" : "tm", te && diag ? "te_offdiagonal = false\n" : "", pml,
             match ? matched_eps(eps, cpw, 0.5) : eps, c, c, a, start);
    struct scene s;
    struct model m;
    if (scene_load_text(&s, "dielectric_near", text, strlen(text), NULL, 0, err, sizeof err)
        || model_build(&m, &s, err, sizeof err)) {
        fprintf(stderr, "%s\n%s", err, text);
        return -1;
    }
    static struct analytic_cylinder cy;
    static struct farexact_cyl2 d;
    if (analytic_init_circle(&cy, &m, err, sizeof err)
        || !(cy.eps_r = eps)
        || farexact_cyl2_init(&d, te ? FAREXACT_TE : FAREXACT_TM, cy.k * cy.a, 0, eps, 1.0, err,
                              sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    struct engine *e;
    float *re = malloc(m.ncells * sizeof *re), *im = malloc(m.ncells * sizeof *im);
    if (!re || !im || engine_create("cpu", &m, &o, &e, err, sizeof err)
        || engine_step(e, steps, err, sizeof err)
        || engine_read(e, field_dft(0, 0), re, err, sizeof err)
        || engine_read(e, field_dft(0, 1), im, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    double num[NMETRIC] = {0}, den[NMETRIC] = {0};
    for (int j = pml; j < n - pml; j++)
        for (int i = pml; i < n - pml; i++) {
            const double dx = i - c, dy = j - c, rho = hypot(dx, dy);
            const size_t q = (size_t)i + (size_t)j * (size_t)n;
            const double complex es = analytic_scattered_any(&cy, &d, i, j);
            const double complex fs = re[q] + I * im[q];
            const double complex inc = analytic_incident(&cy, i, j);
            const double ds = cabs(fs - es) * cabs(fs - es);
            const double gs = cabs(es) * cabs(es), gt = cabs(es + inc) * cabs(es + inc);
            const bool in[NMETRIC] = {rho >= 1.2 * a && rho <= 2.5 * a,
                                      fabs(rho - 2 * a) < 0.5,
                                      rho <= 0.8 * a,
                                      rho <= 0.8 * a,
                                      fabs(dx) <= 1.5 * a && fabs(dy) <= 1.5 * a,
                                      fabs(dx) <= 1.5 * a && fabs(dy) <= 1.5 * a,
                                      true};
            const bool total[NMETRIC] = {false, false, true, false, true, false, true};
            for (int t = 0; t < NMETRIC; t++)
                if (in[t]) {
                    num[t] += ds;
                    den[t] += total[t] ? gt : gs;
                }
        }
    for (int t = 0; t < NMETRIC; t++)
        out[t] = sqrt(num[t] / den[t]);
    free(re);
    free(im);
    engine_destroy(e);
    model_free(&m);
    scene_free(&s);
    return 0;
}

int main(int argc, char **argv)
{
    while (argc > 1 && !strncmp(argv[1], "--", 2)) {
        match |= !strcmp(argv[1], "--match");
        correct |= !strcmp(argv[1], "--correct");
        te |= !strcmp(argv[1], "--te");
        diag |= !strcmp(argv[1], "--diag");
        argc--;
        argv++;
    }
    const double ka = argc > 1 ? atof(argv[1]) : 3.0, eps = argc > 2 ? atof(argv[2]) : 4.0;
    double cpws[16] = {10, 20, 40, 80};
    int ncpw = 4;
    if (argc > 3)
        for (ncpw = 0; ncpw < 16 && 3 + ncpw < argc; ncpw++)
            cpws[ncpw] = atof(argv[3 + ncpw]);
    printf("# dielectric cylinder eps_r = %g, ka = %g%s: relative complex L2 error of the DFT "
           "phasor\n| cells per wavelength | smoothing |", eps, ka,
           match     ? " (the scene's eps_r dispersion-matched)"
           : correct ? " ([grid] dispersion_correction = true)"
                     : "");
    for (int t = 0; t < NMETRIC; t++)
        printf(" %s |", metric_name[t]);
    printf("\n|---|---|");
    for (int t = 0; t < NMETRIC; t++)
        printf("---|");
    printf("\n");
    for (int i = 0; i < ncpw; i++)
        for (int sp = 1; sp >= 0; sp--) {
            double r[NMETRIC];
            if (run(ka, eps, cpws[i], sp, r))
                return 1;
            printf("| %g | %s |", cpws[i], sp ? "subpixel" : "staircase");
            for (int t = 0; t < NMETRIC; t++)
                printf(" %.4f |", r[t]);
            printf("\n");
            fflush(stdout);
        }
    return 0;
}
