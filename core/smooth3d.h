/* smooth3d.h - subpixel smoothing of 3D dielectric objects ([grid] subpixel).
 *
 * A 3D engine gives each E edge the material of its corner (cpu/cpu3d.c,
 * cpu3d_e_materials): an object is a staircase.  With smoothing, an edge
 * whose unit cube (centred on the edge's midpoint, e.g. [i, i+1] x
 * [j-1/2, j+1/2] x [k-1/2, k+1/2] for Ex(i+1/2, j, k)) is crossed by the
 * boundary of a lossless dielectric object takes its own permittivity, the
 * diagonal element of the smoothed tensor along the edge (Farjadpour et al.,
 * Opt. Lett. 31, 2972 (2006); Kottke, Farjadpour and Johnson, Phys. Rev. E
 * 77, 036611 (2008); Meep):
 *     (eps^-1)_aa = n_a^2 <1/eps> + (1 - n_a^2) / <eps>,
 * <.> the means over the cube, n the unit normal of the boundary there.
 * The off-diagonal elements are left out (in 2D TE they are kept,
 * core/model.h hoff): the scheme stays the plain Yee update with a
 * coefficient per edge, and the error falls from the staircase's first
 * order to a much smaller first order (docs/accuracy.md, section 9).
 *
 * Painting calls smooth3d_object for each such object before its staircase
 * is painted (the material under it is then the map's), smooth3d_clear for
 * every other object and map (its box returns to the staircase), and
 * smooth3d_finish at the end, which puts the edges into the model
 * (core/model.h esm_q, esm_mat).  Only the edges near a boundary are kept
 * (a hash of edges): memory and time go as the objects' surfaces, not the
 * grid's volume.
 */
#ifndef TEXFDTD_SMOOTH3D_H
#define TEXFDTD_SMOOTH3D_H

#include <stddef.h>

#include "model.h"

struct smooth3d;

/* An empty set of smoothed edges; NULL with err when out of memory. */
struct smooth3d *smooth3d_new(char *err, size_t errlen);
void smooth3d_free(struct smooth3d *sm);

/* Whether object o (painted with material idx) is smoothed: a dielectric
 * without conductivity, poles or mu_r. */
bool smooth3d_takes(const struct model *m, const struct scene_object *o, int idx);

/* Object o (material idx, smooth3d_takes) over the edges of its bounding
 * box grown by one cell, before its staircase is painted into m->mat.
 * 0, or -1 with err when out of memory. */
int smooth3d_object(struct smooth3d *sm, const struct model *m, const struct scene_object *o,
                    int idx, char *err, size_t errlen);

/* The edges of corners lo .. hi (inclusive, per axis; clipped to the grid)
 * return to the staircase: an object that is not smoothed, or a map. */
void smooth3d_clear(struct smooth3d *sm, const struct model *m, const int lo[3], const int hi[3]);

/* The smoothed edges into m->nesm, m->esm_q, m->esm_mat (each edge's
 * permittivity rounded, its material added to m->mats), after every object
 * is painted.  0, or -1 with err (the material table full). */
int smooth3d_finish(struct smooth3d *sm, struct model *m, char *err, size_t errlen);

#endif
