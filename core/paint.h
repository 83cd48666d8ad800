/* paint.h - the scene's objects painted into the model's material map.
 *
 * The geometry every engine inherits: which cells an object covers
 * (membership at the Ez node (i, j), the corner (i, j, k) in 3D), the cover
 * fraction of a cell for subpixel smoothing, and the distance along an axis
 * from a free node to a PEC surface for the conformal boundary.
 *
 * Cost: each object visits the cells of its bounding box only (grown by one
 * for smoothing), and a cell's cover fraction is sampled only where the
 * shape's boundary passes near it; the conformal boundary finds the PEC
 * objects near a node through a grid of tiles.  Painting N objects on C cells
 * costs about C + sum of the bounding boxes, never C x N.
 */
#ifndef TEXFDTD_PAINT_H
#define TEXFDTD_PAINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Point (x, y, z), cells, is inside the object; closed: a point on the
 * boundary is inside (rectangle |dx| <= w/2; polygon: on an edge or vertex). */
bool paint_inside(const struct scene_object *o, double x, double y, double z);

/* Distance t > 0 along the ray (x, y) + t (ux, uy), (ux, uy) an axis
 * direction, at which it first meets the object's boundary, or INFINITY. */
double paint_ray_entry(const struct scene_object *o, double x, double y, double ux, double uy);

/* Subpixel smoothing: the fraction of the cell around Ez node (i, j), the
 * square [i - 1/2, i + 1/2] x [j - 1/2, j + 1/2], inside o.  Exact (the
 * area in closed form) for a circle and an ellipse with its axes along x and
 * y (or equal axes); from 16 x 16 midpoint samples for the other shapes. */
#define PAINT_SUBPIXEL_SAMPLES 16
double paint_cover_fraction(const struct scene_object *o, int i, int j);
/* The same in PAINT_SUBPIXEL_LEVELS-ths, rounded (the smoothed materials are
 * the multiples of 1/64 between two permittivities: each one is a material,
 * and a cell holds a one-byte material index). */
#define PAINT_SUBPIXEL_LEVELS 64

/* The length of [a0, a1] within [b0, b1] (0 when they do not meet). */
static inline double paint_overlap(double a0, double a1, double b0, double b1)
{
    const double v = (a1 < b1 ? a1 : b1) - (a0 > b0 ? a0 : b0);
    return v > 0.0 ? v : 0.0;
}

/* A coordinate whose offsets from the cells are exact (a multiple of 1/32
 * below 2^20): equal shapes whose centres have the same fraction of a cell
 * then have the same cover, which painting keeps instead of sampling again
 * (paint.c's cover_cache, smooth3d.c's sm_cover). */
static inline bool paint_dyadic(double v)
{
    return v < 1048576.0 && v > -1048576.0 && v * 32.0 == (double)(long long)(v * 32.0);
}
int paint_cover_levels(const struct scene_object *o, int i, int j);

/* The fraction of the unit square centred on (x, y) inside 2D object o
 * (exact where paint_cover_fraction is, else 16 x 16 samples), and a unit
 * normal (*nx, *ny) of o's boundary there ((0, 0) when the square is all
 * inside or all outside): the shape's gradient for a circle or an ellipse,
 * otherwise the direction of the covered part's first moment. */
double paint_square_cover(const struct scene_object *o, double x, double y, double *nx,
                          double *ny);

/* The permittivity a lossless dielectric of eps_r puts into the update
 * coefficients: eps_r itself, or with [grid] dispersion_correction the
 * dispersion-matched eps' of material_dispersion_eps (core/material.h).
 * 0 with *out set, -1 with err where the grid is too coarse for it. */
int paint_coef_eps(const struct model *m, double eps_r, double *out, char *err, size_t errlen);

/* The index of material (kind, eps_r, sigma) in m->mats, added if new (with
 * its coefficients; sigma != 0 sets m->lossy); -1 with err when the table is
 * full.  sigma in S/m, ignored for PEC. */
int paint_material(struct model *m, enum material_kind kind, double eps_r, double sigma,
                   char *err, size_t errlen);
/* The same with a permeability (3D: struct material mu_r, part of the
 * material's identity; paint_material is mu_r = 1; ignored but for
 * dielectrics). */
int paint_material_mu(struct model *m, enum material_kind kind, double eps_r, double sigma,
                      double mu_r, char *err, size_t errlen);

/* The index in m->mats of dispersive table material `table` (scene
 * materials index, with poles), added if new with its D-E coefficients
 * (core/material.h) and cb = 0, ca = 1; sets m->dispersive.  -1 with err. */
int paint_dispersive(struct model *m, int table, char *err, size_t errlen);

/* The index in m->mats of dispersive material mix (the mean material of a
 * smoothed boundary cell, material_mix of core/material.h: no table entry),
 * the first material the same for the update (material_same), else added
 * with its D-E coefficients after the stability check a table material
 * gets (material_stable); sets m->dispersive.  -1 with err (unstable, or
 * the table full). */
int paint_mixed_dispersive(struct model *m, const struct scene_material *mix, char *err,
                           size_t errlen);

/* Material t as a scene material: a dispersive one's own (t->dmat), else
 * *tmp filled with t's eps_r and sigma (no poles) and returned. */
const struct scene_material *paint_cell_material(const struct material *t,
                                                 struct scene_material *tmp);

/* Free what material t owns (a dispersive material's dcoef and dmat). */
void paint_material_free(struct material *t);

/* Paint every object into m->mat (allocated by the caller, zero = vacuum),
 * in file order, later over earlier; then, with [grid] conformal_pec, list
 * the cut edges (m->cut, m->cut_row). */
int paint_objects(struct model *m, char *err, size_t errlen);
int paint_cut_edges(struct model *m, char *err, size_t errlen);

/* 2D TE with [grid] conformal_pec: outside the union of the PEC objects,
 * the free fraction of each Hz cell's area (afree[c], the unit square
 * centred on ez node c) and of each E edge's length (lfree[c]: the unit
 * segment along x centred on Ex(i, j+1/2), the hx node; lfree[ncells + c]:
 * along y centred on Ey(i+1/2, j), the hy node).  Exact where one object's
 * boundary crosses and the object is a circle, an ellipse with its axes
 * along x and y, or an axis-aligned rectangle (disc_box_area, the chord);
 * sampled for other shapes and where two objects' boundaries cross. */
int paint_te_conformal(const struct model *m, double *afree, double *lfree, char *err,
                       size_t errlen);

/* 2D: mu_r of each cell into mu[ncells], painted in the order of
 * paint_objects (a cell takes the mu_r of the last object whose node holds
 * it, or of its map value; PEC and vacuum 1; no smoothing).  Returns 1 if
 * some cell has mu_r != 1. */
int paint_mu(const struct model *m, double *mu);

/* 2D TE with [grid] subpixel: the permittivity of each E edge (hx array:
 * Ex(i, j+1/2), q = c; hy array: Ey(i+1/2, j), q = ncells + c) from the unit
 * square centred on the edge, objects painted in file order (Farjadpour et
 * al., Opt. Lett. 31, 2972 (2006); Meep's subpixel averaging, diagonal part
 * only): where a dielectric object's boundary crosses the square, with
 * fill f, <eps> = f eps_o + (1 - f) eps_under, <1/eps> likewise, n the
 * boundary's unit normal and a the edge's direction,
 *     (eps^-1)_aa = (a.n)^2 <1/eps> + (1 - (a.n)^2) / <eps>
 * and, where offd is not NULL, the off-diagonal part of the same tensor
 * over the unit square centred on each ez node (i, j) (the Hz cell),
 *     offd[c] = (eps^-1)_xy = n_x n_y (<1/eps> - 1/<eps>)
 * (0 where the node's square is not mixed or lies in a map or a staircase
 * object; core/model.h hoff takes it); val and kind then have 3 ncells
 * entries, the nodes' at 2 ncells + c (the same meaning as an edge's).
 * kind[q] says what val[q] is:
 *   PAINT_EDGE_PURE  val = eps_r of the edge's whole square (1 = vacuum);
 *   PAINT_EDGE_MIXED val = (eps^-1)_aa;
 *   PAINT_EDGE_CELLS val unset: take the mean eps_r of the edge's two cells
 *                    (a map's edges, as without smoothing; and the edges of
 *                    a lossy or dispersive object and of its rim: such an
 *                    object is a staircase in TE, core/model.h hmat).
 * PEC objects change nothing here (an edge touching a PEC cell is PEC). */
enum { PAINT_EDGE_PURE, PAINT_EDGE_MIXED, PAINT_EDGE_CELLS };
int paint_te_edges(const struct model *m, double *val, uint8_t *kind, double *offd, char *err,
                   size_t errlen);

#endif
