/* colormap.c - see colormap.h. */
#include "colormap.h"

#include <math.h>
#include <stddef.h>

void colormap_rgb(double v, uint8_t rgb[3])
{
    static const double lo[3] = COLORMAP_LOW, mid[3] = COLORMAP_MID, hi[3] = COLORMAP_HIGH;
    if (!(v >= -1.0)) /* also NaN */
        v = -1.0;
    if (v > 1.0)
        v = 1.0;
    const double *a = v < 0 ? lo : mid, *b = v < 0 ? mid : hi;
    const double t = v < 0 ? v + 1.0 : v;
    for (int k = 0; k < 3; k++)
        rgb[k] = (uint8_t)lround(a[k] + (b[k] - a[k]) * t);
}

void colormap_total_field(const struct model *m, const void *ez, int is_double, int n, int k,
                          uint8_t *rgba)
{
    const double scale = 1.0 / (2.0 * m->inc.amplitude);
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            const size_t c = (size_t)i + (size_t)j * (size_t)m->nx;
            uint8_t *p = rgba + 4 * c;
            const struct material *t = &m->mats[m->mat[c + (size_t)k * m->nx * m->ny]];
            p[3] = 255;
            if (t->kind == MATERIAL_PEC) {
                p[0] = p[1] = p[2] = 0;
                continue;
            }
            const double es = is_double ? ((const double *)ez)[c] : ((const float *)ez)[c];
            colormap_rgb((es + model_incident(m, i, j, n)) * scale, p);
            if (t->kind == MATERIAL_DIELECTRIC)
                for (int k = 0; k < 3; k++)
                    p[k] = (uint8_t)(p[k] * 3 / 4);
        }
}
