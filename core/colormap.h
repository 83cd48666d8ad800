/* colormap.h - the diverging colour map of every picture texfdtd makes.
 *
 * v = Ez_total / (2 * amplitude) clamped to [-1, 1] (a standing wave in front
 * of a PEC reaches twice the incident amplitude), mapped linearly through
 * three stops: blue (v = -1), near-white (v = 0), red (v = +1).  PEC cells are
 * drawn black, dielectric cells are darkened by a quarter so the object shows.
 * shaders/colormap.frag implements the same map.
 */
#ifndef TEXFDTD_COLORMAP_H
#define TEXFDTD_COLORMAP_H

#include <stdint.h>

#include "model.h"

#define COLORMAP_LOW   {59, 76, 192}
#define COLORMAP_MID   {242, 242, 242}
#define COLORMAP_HIGH  {180, 4, 38}

void colormap_rgb(double v, uint8_t rgb[3]);

/* Colour the total field Ez_total = ez (scattered, float or double as the
 * precision says) + Ez_inc at step n, into rgba[ny][nx][4], row 0 = j = 0.
 * ez is the z slice k ([ny][nx]); k = 0 for a 2D scene. */
void colormap_total_field(const struct model *m, const void *ez, int is_double, int n, int k,
                          uint8_t *rgba);

#endif
