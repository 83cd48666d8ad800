/* reflection.h - CPML (or Mur) reflection, measured against a larger grid.
 *
 * A small PEC cylinder sits `gap` cells from the left absorbing layer of an
 * n x n grid and scatters the plane wave.  The same object, at the same place
 * relative to the incident wave, is run in a grid padded by `pad` cells on
 * every side, so large that nothing comes back from its walls within `steps`.
 * The reflection is the largest |Ez_small - Ez_big| over the small grid's
 * interior (outside its absorbing layer) and all steps, relative to the
 * largest |Ez_big| there:  R = 20 log10(max diff / max field)  in dB.
 * Header-only: used by tests/test_boundary.c and bench/cpml_reflection.c.
 */
#ifndef TEXFDTD_REFLECTION_H
#define TEXFDTD_REFLECTION_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>

#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"

struct reflection_setup {
    int n, gap, radius, steps, pad;
    const char *boundary; /* "cpml" or "mur" */
    int cells;            /* CPML cells */
    double angle;
    const char *extra;    /* more [boundary] lines, e.g. "kappa_max = 2\n" */
};

static int reflection_load(struct scene *s, struct model *m, const struct reflection_setup *r,
                           int pad, const char *boundary, char *err, size_t errlen)
{
    const int n = r->n + 2 * pad;
    const int margin = !strcmp(r->boundary, "cpml") ? r->cells + 1 : 2;
    const double cx = pad + margin + r->gap + r->radius, cy = pad + r->n / 2.0;
    /* the reference grid (pad > 0) always has a 20-cell CPML */
    const bool cpml = !strcmp(boundary, "cpml");
    char cells[64] = "";
    if (cpml)
        snprintf(cells, sizeof cells, "cells = %d\n", pad ? 20 : r->cells);
    char text[2048];
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nsteps = %d\n"
             "[source]\nangle = %g\nfront_offset = %g\nramp_periods = 1\n"
             "[boundary]\ntype = %s\n%s%s"
             "[object.rod]\nshape = circle\nmaterial = pec\ncenter_x = %g\ncenter_y = %g\n"
             "radius = %d\n",
             n, n, r->steps, r->angle, (double)pad, boundary, cells,
             r->extra && !pad && cpml ? r->extra : "", cx, cy, r->radius);
    const int rc = scene_load_text(s, "reflection.ini", text, strlen(text), NULL, 0, err, errlen);
    if (rc)
        return -1;
    if (model_build(m, s, err, errlen)) {
        scene_free(s);
        return -1;
    }
    return 0;
}

/* Reflection in dB (double precision runs); returns 1 on failure. */
static double reflection_db(const struct reflection_setup *r, char *err, size_t errlen)
{
    struct scene ss, sb;
    struct model ms, mb;
    struct engine *es = NULL, *eb = NULL;
    struct engine_options o = {.precision = PRECISION_DOUBLE, .denormals = DENORMALS_KEEP};
    double result = 1.0;
    if (reflection_load(&ss, &ms, r, 0, r->boundary, err, errlen))
        return 1.0;
    if (reflection_load(&sb, &mb, r, r->pad, "cpml", err, errlen)) {
        model_free(&ms);
        scene_free(&ss);
        return 1.0;
    }
    const int nb = r->n + 2 * r->pad;
    double *a = malloc(ms.ncells * sizeof *a), *b = malloc(mb.ncells * sizeof *b);
    if (!a || !b || engine_create("cpu", &ms, &o, &es, err, errlen)
        || engine_create("cpu", &mb, &o, &eb, err, errlen))
        goto out;
    const int k = !strcmp(r->boundary, "cpml") ? r->cells + 1 : 1; /* interior starts here */
    double maxdiff = 0, maxfield = 0;
    for (int n = 0; n < r->steps; n++) {
        if (engine_step(es, 1, err, errlen) || engine_step(eb, 1, err, errlen)
            || engine_read(es, FIELD_EZ, a, err, errlen) || engine_read(eb, FIELD_EZ, b, err, errlen))
            goto out;
        for (int j = k; j < r->n - k; j++)
            for (int i = k; i < r->n - k; i++) {
                const double va = a[i + (size_t)j * r->n];
                const double vb = b[(i + r->pad) + (size_t)(j + r->pad) * nb];
                maxdiff = fmax(maxdiff, fabs(va - vb));
                maxfield = fmax(maxfield, fabs(vb));
            }
    }
    result = 20.0 * log10(maxdiff / maxfield);
out:
    engine_destroy(es);
    engine_destroy(eb);
    free(a);
    free(b);
    model_free(&ms);
    model_free(&mb);
    scene_free(&ss);
    scene_free(&sb);
    return result;
}

#endif
