/* paint.c - objects into the material map: membership, subpixel cover,
 * conformal PEC distances.  See paint.h. */
#define _GNU_SOURCE
#include "paint.h"
#include "material.h"
#include "smooth3d.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- geometry of one object ----------------------------------------------- */

/* (dx, dy) turned into the object's own frame: rotated by -rotation. */
static void to_local(const struct scene_object *o, double dx, double dy, double *lx, double *ly)
{
    if (!o->rotated) {
        *lx = dx;
        *ly = dy;
        return;
    }
    *lx = o->rot_cos * dx + o->rot_sin * dy;
    *ly = -o->rot_sin * dx + o->rot_cos * dy;
}

/* Closed polygon test: a point on an edge or a vertex is inside (so that a
 * polygon tracing a rectangle takes the rectangle's cells, |dx| <= w/2);
 * elsewhere the crossing rule (even-odd). */
static bool polygon_inside(const double *v, int n, double x, double y)
{
    bool in = false;
    for (int a = 0, b = n - 1; a < n; b = a++) {
        const double xa = v[2 * a], ya = v[2 * a + 1], xb = v[2 * b], yb = v[2 * b + 1];
        if (y >= fmin(ya, yb) && y <= fmax(ya, yb) && x >= fmin(xa, xb) && x <= fmax(xa, xb)
            && (xb - xa) * (y - ya) == (yb - ya) * (x - xa))
            return true;
        if ((ya > y) != (yb > y)) {
            const double xc = xa + (y - ya) * (xb - xa) / (yb - ya);
            if (x < xc)
                in = !in;
        }
    }
    return in;
}

/* Inside the ellipse of semi-axes a, b at local offset (lx, ly): y is scaled
 * by a/b, so that a = b is exactly the circle test dx^2 + dy^2 <= r^2. */
static bool ellipse_inside(double a, double b, double lx, double ly)
{
    const double sy = ly * (a / b);
    return lx * lx + sy * sy <= a * a;
}

bool paint_inside(const struct scene_object *o, double x, double y, double z)
{
    const double dx = x - o->center_x, dy = y - o->center_y, dz = z - o->center_z;
    double lx, ly;
    switch (o->shape) {
    case SHAPE_RECTANGLE:
        to_local(o, dx, dy, &lx, &ly);
        return fabs(lx) <= 0.5 * o->width && fabs(ly) <= 0.5 * o->height;
    case SHAPE_CIRCLE:
        return dx * dx + dy * dy <= o->radius * o->radius;
    case SHAPE_ELLIPSE:
        to_local(o, dx, dy, &lx, &ly);
        return ellipse_inside(o->radius_x, o->radius_y, lx, ly);
    case SHAPE_BOX:
        to_local(o, dx, dy, &lx, &ly);
        return fabs(lx) <= 0.5 * o->width && fabs(ly) <= 0.5 * o->height
               && fabs(dz) <= 0.5 * o->depth;
    case SHAPE_SPHERE:
        return dx * dx + dy * dy + dz * dz <= o->radius * o->radius;
    case SHAPE_POLYGON:
        return fabs(dz) <= 0.5 * o->depth /* 2D: dz = depth = 0 */
               && polygon_inside(o->vertices, o->nvertices, x, y);
    }
    return false;
}

/* The corners of a rotated rectangle, counter-clockwise, into v[8]. */
static void rectangle_corners(const struct scene_object *o, double v[8])
{
    static const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
    for (int k = 0; k < 4; k++) {
        const double lx = sx[k] * 0.5 * o->width, ly = sy[k] * 0.5 * o->height;
        v[2 * k] = o->center_x + o->rot_cos * lx - o->rot_sin * ly;
        v[2 * k + 1] = o->center_y + o->rot_sin * lx + o->rot_cos * ly;
    }
}

/* First t > 0 where the axis ray (x, y) + t (ux, uy) meets an edge of the
 * polygon: the exact intersection with each edge; an edge along the ray
 * counts at its nearer end. */
static double polygon_ray(const double *v, int n, double x, double y, double ux, double uy)
{
    const bool along_x = ux != 0;
    const double s = along_x ? ux : uy;    /* +1 or -1 */
    const double p = along_x ? x : y;      /* coordinate along the ray */
    const double q = along_x ? y : x;      /* across */
    double t = INFINITY;
    for (int a = 0, b = n - 1; a < n; b = a++) {
        const double pa = v[2 * a + !along_x], qa = v[2 * a + along_x];
        const double pb = v[2 * b + !along_x], qb = v[2 * b + along_x];
        if (q < fmin(qa, qb) || q > fmax(qa, qb))
            continue;
        double c[2];
        int nc = 0;
        if (qa == qb) { /* along the ray: both ends */
            c[nc++] = s * (pa - p);
            c[nc++] = s * (pb - p);
        } else {
            c[nc++] = s * (pa + (q - qa) * (pb - pa) / (qb - qa) - p);
        }
        for (int k = 0; k < nc; k++)
            if (c[k] > 0 && c[k] < t)
                t = c[k];
    }
    return t;
}

double paint_ray_entry(const struct scene_object *o, double x, double y, double ux, double uy)
{
    if (o->shape == SHAPE_CIRCLE || o->shape == SHAPE_ELLIPSE) {
        /* |p + t u|^2 = a^2 in the frame where the ellipse is a circle of
         * radius a (y scaled by a/b); A = |u|^2 is 1 for the circle */
        const bool circle = o->shape == SHAPE_CIRCLE;
        const double a = circle ? o->radius : o->radius_x, k = circle ? 1.0 : a / o->radius_y;
        double px, py, vx, vy;
        to_local(o, x - o->center_x, y - o->center_y, &px, &py);
        to_local(o, ux, uy, &vx, &vy);
        py *= k;
        vy *= k;
        const double A = vx * vx + vy * vy;
        const double b = px * vx + py * vy, c = px * px + py * py - a * a;
        const double disc = b * b - A * c;
        if (disc < 0)
            return INFINITY;
        const double t = (-b - sqrt(disc)) / A;
        return t > 0 ? t : INFINITY;
    }
    if (o->shape == SHAPE_POLYGON)
        return polygon_ray(o->vertices, o->nvertices, x, y, ux, uy);
    if (o->rotated) {
        double v[8];
        rectangle_corners(o, v);
        return polygon_ray(v, 4, x, y, ux, uy);
    }
    /* rectangle, axis-aligned ray */
    const double hx = 0.5 * o->width, hy = 0.5 * o->height;
    if (ux != 0) {
        if (fabs(y - o->center_y) > hy)
            return INFINITY;
        const double t = ux > 0 ? (o->center_x - hx) - x : x - (o->center_x + hx);
        return t > 0 ? t : INFINITY;
    }
    if (fabs(x - o->center_x) > hx)
        return INFINITY;
    const double t = uy > 0 ? (o->center_y - hy) - y : y - (o->center_y + hy);
    return t > 0 ? t : INFINITY;
}

/* Distance from (x, y) to the segment (xa, ya) - (xb, yb). */
static double segment_distance(double x, double y, double xa, double ya, double xb, double yb)
{
    const double ex = xb - xa, ey = yb - ya, l2 = ex * ex + ey * ey;
    double t = l2 > 0 ? ((x - xa) * ex + (y - ya) * ey) / l2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(x - (xa + t * ex), y - (ya + t * ey));
}

/* False when the 2D boundary of o certainly stays farther than r from (x, y)
 * (then every point within r is inside, or every one outside, as (x, y)). */
static bool near_boundary(const struct scene_object *o, double x, double y, double r)
{
    const double dx = x - o->center_x, dy = y - o->center_y;
    double lx, ly;
    switch (o->shape) {
    case SHAPE_CIRCLE:
        return fabs(sqrt(dx * dx + dy * dy) - o->radius) <= r;
    case SHAPE_ELLIPSE: {
        /* q = |(lx/a, ly/b)| changes by at most |step| / min(a, b) */
        to_local(o, dx, dy, &lx, &ly);
        const double q = hypot(lx / o->radius_x, ly / o->radius_y);
        return fabs(q - 1.0) * fmin(o->radius_x, o->radius_y) <= r;
    }
    case SHAPE_RECTANGLE: {
        to_local(o, dx, dy, &lx, &ly);
        const double hx = 0.5 * o->width, hy = 0.5 * o->height;
        const bool deep = fabs(lx) < hx - r && fabs(ly) < hy - r;
        const bool far = fabs(lx) > hx + r || fabs(ly) > hy + r;
        return !deep && !far;
    }
    case SHAPE_POLYGON:
        for (int a = 0, b = o->nvertices - 1; a < o->nvertices; b = a++)
            if (segment_distance(x, y, o->vertices[2 * a], o->vertices[2 * a + 1],
                                 o->vertices[2 * b], o->vertices[2 * b + 1]) <= r)
                return true;
        return false;
    default:
        return true;
    }
}

/* int_ta^tb sqrt(r^2 - x^2) dx for ta <= tb within [0, r] or within [-r, 0]:
 * (x h + r^2 asin(x / r)) / 2 between the ends, with the difference of the
 * arcsines taken as one, asin u - asin v = asin(u sqrt(1 - v^2) - v sqrt(1 -
 * u^2)) (u, v of one sign), and h = sqrt((r - x)(r + x)), so that nothing of
 * size r^2 cancels for a large circle. */
static double disc_arc(double r, double ta, double tb)
{
    const double ha = sqrt(fmax(0.0, (r - ta) * (r + ta)));
    const double hb = sqrt(fmax(0.0, (r - tb) * (r + tb)));
    const double z = (tb * ha - ta * hb) / (r * r);
    return 0.5 * (tb * hb - ta * ha + r * r * asin(fmin(1.0, z)));
}

/* The exact area of the disc of radius r about the origin within the box
 * [x0, x1] x [y0, y1]: the integral over x of the length of [y0, y1] within
 * [-h, h], h = sqrt(r^2 - x^2).  Between the x where an end of that overlap
 * changes (x = +-r, and h = |y0|, h = |y1|; and x = 0 for disc_arc) each
 * end is either a box side (a constant) or the circle (+-h, integrated by
 * disc_arc), which the piece's midpoint decides. */
static double disc_box_area(double r, double x0, double x1, double y0, double y1)
{
    const double lo = fmax(x0, -r), hi = fmin(x1, r);
    if (!(lo < hi) || y0 >= r || y1 <= -r)
        return 0.0;
    double t[7] = {lo, hi};
    int n = 2;
    if (lo < 0.0 && hi > 0.0)
        t[n++] = 0.0; /* disc_arc takes one side of the axis at a time */
    const double ys[2] = {y0, y1};
    for (int k = 0; k < 2; k++)
        if (fabs(ys[k]) < r) {
            const double x = sqrt(r * r - ys[k] * ys[k]);
            if (-x > lo && -x < hi)
                t[n++] = -x;
            if (x > lo && x < hi)
                t[n++] = x;
        }
    for (int a = 1; a < n; a++) /* insertion sort of at most 7 */
        for (int b = a; b > 0 && t[b - 1] > t[b]; b--) {
            const double v = t[b];
            t[b] = t[b - 1];
            t[b - 1] = v;
        }
    double area = 0.0;
    for (int k = 0; k + 1 < n; k++) {
        const double ta = t[k], tb = t[k + 1], m = 0.5 * (ta + tb);
        const double h = sqrt(fmax(0.0, r * r - m * m));
        const bool top_is_side = y1 < h, bottom_is_side = y0 > -h;
        if ((top_is_side ? y1 : h) <= (bottom_is_side ? y0 : -h))
            continue;
        const double arc = disc_arc(r, ta, tb);
        area += (top_is_side ? y1 * (tb - ta) : arc) - (bottom_is_side ? y0 * (tb - ta) : -arc);
    }
    return area;
}

/* The exact fraction of the unit square around (x, y) inside a circle, or an
 * ellipse whose axes are x and y (a circle of radius a once y is scaled by
 * a / b; any ellipse with a = b), or -1 where it is sampled instead. */
static double exact_cover(const struct scene_object *o, double x, double y)
{
    const double x0 = x - 0.5 - o->center_x, y0 = y - 0.5 - o->center_y;
    if (o->shape == SHAPE_CIRCLE)
        return disc_box_area(o->radius, x0, x0 + 1.0, y0, y0 + 1.0);
    if (o->shape == SHAPE_ELLIPSE && o->radius_x == o->radius_y)
        return disc_box_area(o->radius_x, x0, x0 + 1.0, y0, y0 + 1.0);
    if (o->shape == SHAPE_ELLIPSE && !o->rotated) {
        const double k = o->radius_x / o->radius_y;
        return disc_box_area(o->radius_x, x0, x0 + 1.0, k * y0, k * (y0 + 1.0)) / k;
    }
    if (o->shape == SHAPE_RECTANGLE && !o->rotated) {
        /* the product of the overlaps of the cell's sides with the rectangle's */
        const double hx = 0.5 * o->width, hy = 0.5 * o->height;
        const double ox = fmin(x0 + 1.0, hx) - fmax(x0, -hx), oy = fmin(y0 + 1.0, hy) - fmax(y0, -hy);
        return ox > 0.0 && oy > 0.0 ? ox * oy : 0.0;
    }
    return -1.0;
}

double paint_cover_fraction(const struct scene_object *o, int i, int j)
{
    /* the cell lies within sqrt(2)/2 of (i, j): away from the boundary
     * it is all inside or all outside, as the node itself */
    if (!near_boundary(o, i, j, 0.75))
        return paint_inside(o, i, j, 0.0) ? 1.0 : 0.0;
    const double f = exact_cover(o, (double)i, (double)j);
    if (f >= 0.0)
        return fmin(f, 1.0);
    int in = 0;
    for (int b = 0; b < PAINT_SUBPIXEL_SAMPLES; b++)
        for (int a = 0; a < PAINT_SUBPIXEL_SAMPLES; a++)
            in += paint_inside(o, i - 0.5 + (a + 0.5) / PAINT_SUBPIXEL_SAMPLES,
                               j - 0.5 + (b + 0.5) / PAINT_SUBPIXEL_SAMPLES, 0.0);
    return (double)in / (PAINT_SUBPIXEL_SAMPLES * PAINT_SUBPIXEL_SAMPLES);
}

int paint_cover_levels(const struct scene_object *o, int i, int j)
{
    return (int)lround(paint_cover_fraction(o, i, j) * PAINT_SUBPIXEL_LEVELS);
}

/* The fraction f of the unit square centred on (x, y) inside o, and a unit
 * normal (*nx, *ny) of o's boundary there ((0, 0) when the square is all
 * inside or all outside).  f exactly where exact_cover has it, else from
 * 16 x 16 midpoint samples; the normal is the gradient of the shape's
 * equation for a circle or an ellipse, otherwise the direction from the
 * covered part's centroid to the square's (the first moment of the samples:
 * along the normal of a straight boundary crossing the square). */
double paint_square_cover(const struct scene_object *o, double x, double y, double *nx,
                          double *ny)
{
    *nx = *ny = 0.0;
    if (!near_boundary(o, x, y, 0.75))
        return paint_inside(o, x, y, 0.0) ? 1.0 : 0.0;
    double f = exact_cover(o, x, y), gx = 0.0, gy = 0.0;
    if (o->shape == SHAPE_CIRCLE) {
        gx = x - o->center_x;
        gy = y - o->center_y;
    } else if (o->shape == SHAPE_ELLIPSE) {
        /* the gradient of (lx/a)^2 + (ly/b)^2 in the local frame, turned back */
        double lx, ly;
        to_local(o, x - o->center_x, y - o->center_y, &lx, &ly);
        const double ux = lx / (o->radius_x * o->radius_x), uy = ly / (o->radius_y * o->radius_y);
        gx = o->rotated ? o->rot_cos * ux - o->rot_sin * uy : ux;
        gy = o->rotated ? o->rot_sin * ux + o->rot_cos * uy : uy;
    }
    if (f < 0.0 || (gx == 0.0 && gy == 0.0)) {
        int in = 0;
        double mx = 0.0, my = 0.0;
        for (int b = 0; b < PAINT_SUBPIXEL_SAMPLES; b++)
            for (int a = 0; a < PAINT_SUBPIXEL_SAMPLES; a++) {
                const double sx = (a + 0.5) / PAINT_SUBPIXEL_SAMPLES - 0.5;
                const double sy = (b + 0.5) / PAINT_SUBPIXEL_SAMPLES - 0.5;
                if (paint_inside(o, x + sx, y + sy, 0.0)) {
                    in++;
                    mx -= sx;
                    my -= sy;
                }
            }
        if (f < 0.0)
            f = (double)in / (PAINT_SUBPIXEL_SAMPLES * PAINT_SUBPIXEL_SAMPLES);
        gx = mx;
        gy = my;
    }
    /* rounding of the closed forms where the square just touches o */
    f = f < 1e-12 ? 0.0 : f > 1.0 - 1e-12 ? 1.0 : f;
    const double g = hypot(gx, gy);
    if (g > 0.0 && f > 0.0 && f < 1.0) {
        *nx = gx / g;
        *ny = gy / g;
    }
    return f;
}

/* The eps_r a cell contributes to an edge's mean (PEC counts as 1: an edge
 * touching a PEC cell is PEC whatever its mean). */
static double cell_eps(const struct model *m, size_t c)
{
    const struct material *t = &m->mats[m->mat[c]];
    return t->kind == MATERIAL_PEC ? 1.0 : t->eps_r;
}

/* A TE object painted as a staircase, without smoothing of its cells or
 * its edges: a lossy or dispersive one (its edges take the two-cell mean of
 * the complex permittivity, core/model.h hmat). */
static bool te_staircase(const struct scene *s, const struct scene_object *o)
{
    return s->te && o->table >= 0
           && (s->materials[o->table].sigma != 0.0 || s->materials[o->table].npoles > 0);
}

/* Edge states while painting (paint_te_edges): nothing painted yet (vacuum),
 * a map's edge (the mean of its two cells), all inside one object (eps), a
 * mix (<eps>, <1/eps>, (a.n)^2 of the last object whose boundary crossed). */
enum { EDGE_VACUUM, EDGE_MAP, EDGE_PURE, EDGE_MIXED };

int paint_te_edges(const struct model *m, double *val, uint8_t *kind, double *offd, char *err,
                   size_t errlen)
{
    const struct scene *s = m->scene;
    const size_t n = m->ncells, nx = (size_t)m->nx;
    const int np = offd ? 3 : 2; /* the edges, and with offd the nodes (2n + c) */
    double *e = xcalloc(np * n, sizeof *e, "TE edge smoothing", err, errlen);
    double *an2 = e ? xcalloc(np * n, sizeof *an2, "TE edge smoothing", err, errlen) : NULL;
    double *nxy = an2 ? xcalloc(np * n, sizeof *nxy, "TE edge smoothing", err, errlen) : NULL;
    if (!nxy) {
        free(e);
        free(an2);
        return -1;
    }
    /* during painting: val holds <1/eps> of a mixed edge, e <eps> (or eps) */
    memset(kind, EDGE_VACUUM, np * n);
    for (int k = 0, next_map = 0; k <= s->nobjects; k++) {
        while (next_map < s->nmaps
               && (k == s->nobjects || s->maps[next_map].order < s->objects[k].order)) {
            /* a map's cells are one material each: its edges and those of its
             * rim take the mean of their two cells, as without smoothing */
            const struct scene_map *mp = &s->maps[next_map++];
            for (int j = mp->y0 - 1; j < mp->y0 + mp->ny; j++)
                for (int i = mp->x0 - 1; i < mp->x0 + mp->nx; i++)
                    for (int comp = 0; comp < np; comp++)
                        if (i >= 0 && j >= 0 && i < m->nx && j < m->ny
                            && (comp != 1 ? i >= mp->x0 : 1) && (comp != 0 ? j >= mp->y0 : 1))
                            kind[(size_t)comp * n + (size_t)i + nx * (size_t)j] = EDGE_MAP;
        }
        if (k == s->nobjects)
            break;
        const struct scene_object *o = &s->objects[k];
        if (o->material != MATERIAL_DIELECTRIC)
            continue; /* PEC: the edges touching its cells are PEC */
        double lo[3], hi[3];
        scene_object_bounds(o, false, lo, hi);
        if (te_staircase(s, o)) {
            /* a lossy or dispersive object: a staircase, its edges and those
             * of its rim take the mean of their two cells, as a map's */
            for (int j = (int)ceil(lo[1]) - 1; j <= (int)floor(hi[1]) + 1; j++)
                for (int i = (int)ceil(lo[0]) - 1; i <= (int)floor(hi[0]) + 1; i++)
                    for (int comp = 0; comp < np; comp++)
                        if (i >= 0 && j >= 0 && i < m->nx && j < m->ny)
                            kind[(size_t)comp * n + (size_t)i + nx * (size_t)j] = EDGE_MAP;
            continue;
        }
        for (int j = (int)ceil(lo[1]) - 1; j <= (int)floor(hi[1]) + 1; j++)
            for (int i = (int)ceil(lo[0]) - 1; i <= (int)floor(hi[0]) + 1; i++) {
                if (i < 0 || j < 0 || i >= m->nx || j >= m->ny)
                    continue;
                const size_t c = (size_t)i + nx * (size_t)j;
                for (int comp = 0; comp < np; comp++) {
                    /* hx (comp 0) holds -Ex(i, j+1/2): a = x; hy holds -Ey(i+1/2, j): a = y;
                     * comp 2 the node (i, j) */
                    const double x = comp == 1 ? i + 0.5 : i, y = comp == 0 ? j + 0.5 : j;
                    double ux, uy;
                    const double f = paint_square_cover(o, x, y, &ux, &uy);
                    const size_t q = (size_t)comp * n + c;
                    if (f == 0.0)
                        continue;
                    if (f == 1.0) {
                        kind[q] = EDGE_PURE;
                        e[q] = o->eps_r;
                        continue;
                    }
                    double eo = 1.0, io = 1.0; /* what lies under o here */
                    if (kind[q] == EDGE_PURE) {
                        eo = e[q];
                        io = 1.0 / e[q];
                    } else if (kind[q] == EDGE_MIXED) {
                        eo = e[q];
                        io = val[q];
                    } else if (kind[q] == EDGE_MAP) {
                        const size_t d = comp == 0 ? c + nx : comp == 1 ? c + 1 : c;
                        const double ea = cell_eps(m, c), eb = d < n ? cell_eps(m, d) : ea;
                        eo = 0.5 * (ea + eb);
                        io = 0.5 * (1.0 / ea + 1.0 / eb);
                    }
                    kind[q] = EDGE_MIXED;
                    e[q] = f * o->eps_r + (1.0 - f) * eo;
                    val[q] = f / o->eps_r + (1.0 - f) * io;
                    an2[q] = comp == 0 ? ux * ux : uy * uy;
                    nxy[q] = ux * uy;
                }
            }
    }
    for (size_t q = 0; q < np * n; q++) {
        if (q >= 2 * n)
            offd[q - 2 * n] = kind[q] == EDGE_MIXED ? nxy[q] * (val[q] - 1.0 / e[q]) : 0.0;
        if (kind[q] == EDGE_MIXED)
            val[q] = an2[q] * val[q] + (1.0 - an2[q]) / e[q];
        else if (kind[q] == EDGE_PURE || kind[q] == EDGE_VACUUM)
            val[q] = kind[q] == EDGE_PURE ? e[q] : 1.0;
        kind[q] = kind[q] == EDGE_MIXED ? PAINT_EDGE_MIXED
                  : kind[q] == EDGE_MAP  ? PAINT_EDGE_CELLS
                                         : PAINT_EDGE_PURE;
    }
    free(e);
    free(an2);
    free(nxy);
    return 0;
}

/* ---- the material table --------------------------------------------------- */

int paint_coef_eps(const struct model *m, double eps_r, double *out, char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    *out = eps_r;
    if (!s->dispersion_correction || eps_r == 1.0)
        return 0;
    *out = material_dispersion_eps(eps_r, s->courant, scene_omega_dt(s), m->nz > 1 ? 3 : 2);
    if (!(*out > 0.0))
        return seterr(err, errlen, "[grid] dispersion_correction: eps_r = %g has fewer than "
                      "about 2 cells per wavelength at cells_per_wavelength = %g (need "
                      "cells_per_wavelength above about 2 sqrt(eps_r)); set "
                      "dispersion_correction = false or refine the grid",
                      eps_r, s->cells_per_wavelength);
    return 0;
}

int paint_material(struct model *m, enum material_kind kind, double eps_r, double sigma, char *err,
                   size_t errlen)
{
    return paint_material_mu(m, kind, eps_r, sigma, 1.0, err, errlen);
}

int paint_material_mu(struct model *m, enum material_kind kind, double eps_r, double sigma,
                      double mu_r, char *err, size_t errlen)
{
    for (int k = 0; k < m->nmats; k++)
        if (m->mats[k].kind == kind && m->mats[k].eps_r == eps_r && m->mats[k].sigma == sigma
            && m->mats[k].mu_r == mu_r && !m->mats[k].dcoef)
            return k;
    if (m->nmats == MODEL_MAX_MATERIALS)
        return seterr(err, errlen, "more than %d distinct materials", MODEL_MAX_MATERIALS);
    struct material *t = &m->mats[m->nmats];
    const double S = m->scene->courant;
    t->kind = kind;
    t->eps_r = eps_r;
    t->mu_r = kind == MATERIAL_DIELECTRIC ? mu_r : 1.0;
    /* a lossless dielectric's coefficients may take the dispersion-matched
     * eps' (paint_coef_eps); eps_r stays the scene's value */
    double ec = eps_r;
    if (kind == MATERIAL_DIELECTRIC && sigma == 0.0 && paint_coef_eps(m, eps_r, &ec, err, errlen))
        return -1;
    t->cezh = kind == MATERIAL_PEC ? 0.0 : S / ec;
    t->cezh_f = (float)t->cezh;
    t->cinc = kind == MATERIAL_DIELECTRIC ? -(1.0 - 1.0 / ec) : 0.0;
    /* lossless (and PEC): ca = 1, cb = cezh, the bits of the plain update */
    t->sigma = kind == MATERIAL_PEC ? 0.0 : sigma;
    t->ca = 1.0;
    t->cb = t->cezh;
    if (t->sigma != 0.0) {
        struct scene_material sm = {.eps_inf = eps_r, .mu_r = 1.0, .sigma = t->sigma};
        snprintf(sm.name, sizeof sm.name, "(eps_r %g, sigma %g S/m)", eps_r, t->sigma);
        struct material_coef mc;
        if (material_coef(&sm, scene_dt(m->scene), S, &mc, err, errlen))
            return -1;
        t->ca = mc.ca;
        t->cb = mc.cb;
        t->cinc_diff = mc.cinc_diff;
        t->cinc_sum = mc.cinc_sum;
        m->lossy = true;
    }
    t->ca_f = (float)t->ca;
    t->cb_f = (float)t->cb;
    return m->nmats++;
}

/* Whether table material `table` (-1: a built-in) has dispersion poles. */
static bool table_dispersive(const struct scene *s, int table)
{
    return table >= 0 && s->materials[table].npoles > 0;
}

/* Add dispersive material sm (table index `table`, -1 for a mean) to m->mats. */
static int add_dispersive(struct model *m, const struct scene_material *sm, int table, char *err,
                          size_t errlen)
{
    if (m->nmats == MODEL_MAX_MATERIALS)
        return seterr(err, errlen, "more than %d distinct materials", MODEL_MAX_MATERIALS);
    struct material *t = &m->mats[m->nmats];
    memset(t, 0, sizeof *t);
    t->dcoef = xcalloc(1, sizeof *t->dcoef, "dispersive material", err, errlen);
    t->dmat = t->dcoef ? xcalloc(1, sizeof *t->dmat, "dispersive material", err, errlen) : NULL;
    if (!t->dmat
        || material_coef(sm, scene_dt(m->scene), m->scene->courant, t->dcoef, err, errlen)) {
        paint_material_free(t);
        return -1;
    }
    *t->dmat = *sm;
    /* the row update leaves Ez^n as it is (ca = 1, cb = 0): the dispersive
     * pass after the sweep updates these cells */
    t->kind = MATERIAL_DIELECTRIC;
    t->eps_r = sm->eps_inf;
    t->mu_r = m->nz > 1 ? sm->mu_r : 1.0; /* 2D: paint_mu */
    t->sigma = sm->sigma;
    t->ca = 1.0;
    t->ca_f = 1.0f;
    t->dtable = table;
    m->dispersive = true;
    return m->nmats++;
}

int paint_dispersive(struct model *m, int table, char *err, size_t errlen)
{
    for (int k = 0; k < m->nmats; k++)
        if (m->mats[k].dcoef && m->mats[k].dtable == table)
            return k;
    return add_dispersive(m, &m->scene->materials[table], table, err, errlen);
}

int paint_mixed_dispersive(struct model *m, const struct scene_material *mix, char *err,
                           size_t errlen)
{
    for (int k = 0; k < m->nmats; k++)
        if (m->mats[k].dcoef && material_same(m->mats[k].dmat, mix))
            return k;
    /* a mean of two checked materials is stable (material_mix); checked all
     * the same, it costs a scan */
    if (material_stable(mix, scene_dt(m->scene), m->scene->courant, 2, err, errlen))
        return -1;
    return add_dispersive(m, mix, -1, err, errlen);
}

const struct scene_material *paint_cell_material(const struct material *t,
                                                 struct scene_material *tmp)
{
    if (t->dmat)
        return t->dmat;
    memset(tmp, 0, sizeof *tmp);
    snprintf(tmp->name, sizeof tmp->name, "(eps_r %g, sigma %g S/m)", t->eps_r, t->sigma);
    tmp->eps_inf = t->eps_r;
    tmp->mu_r = 1.0;
    tmp->sigma = t->sigma;
    return tmp;
}

void paint_material_free(struct material *t)
{
    free(t->dcoef);
    free(t->dmat);
    t->dcoef = NULL;
    t->dmat = NULL;
}

/* The mu_r a 3D material index carries (struct material mu_r): the table
 * material's, 1 for the built-ins and in 2D (paint_mu paints it there). */
static double table_mu3(const struct model *m, int table)
{
    return m->nz > 1 && table >= 0 ? m->scene->materials[table].mu_r : 1.0;
}

/* The conductivity (S/m) of a table material, 0 for the built-ins. */
static double table_sigma(const struct scene *s, int table)
{
    return table >= 0 ? s->materials[table].sigma : 0.0;
}

/* ---- painting ------------------------------------------------------------- */

/* The cover levels of the last smoothed object's cells, kept for the next
 * object of the same shape and size whose centre has the same fraction of a
 * cell: when the centre coordinates are multiples of 1/32 (and below 2^20),
 * every sample offset x - center_x is exact, so the levels depend only on the
 * cell's offset from the centre's cell, and a lattice of equal rods samples
 * its rod once.  Rotated shapes and polygons are always sampled. */
struct cover_cache {
    bool valid;
    struct scene_object key; /* shape, sizes, centre's fraction */
    int ni, nj, di, dj;      /* box size; its first cell minus floor(centre) */
    int *lv;
    size_t cap;
};

/* The levels of the cells i0 .. i0+ni-1, j0 .. j0+nj-1 of o into c->lv. */
static int cover_box(struct cover_cache *c, const struct scene_object *o, int i0, int j0, int ni,
                     int nj, char *err, size_t errlen)
{
    const bool cacheable = !o->rotated && o->shape != SHAPE_POLYGON && paint_dyadic(o->center_x)
                           && paint_dyadic(o->center_y);
    const double fx = floor(o->center_x), fy = floor(o->center_y);
    struct scene_object key = {.shape = o->shape, .radius = o->radius, .width = o->width,
                               .height = o->height, .radius_x = o->radius_x,
                               .radius_y = o->radius_y, .center_x = o->center_x - fx,
                               .center_y = o->center_y - fy};
    const int di = i0 - (int)fx, dj = j0 - (int)fy;
    if (cacheable && c->valid && c->ni == ni && c->nj == nj && c->di == di && c->dj == dj
        && c->key.shape == key.shape && c->key.radius == key.radius
        && c->key.width == key.width && c->key.height == key.height
        && c->key.radius_x == key.radius_x && c->key.radius_y == key.radius_y
        && c->key.center_x == key.center_x && c->key.center_y == key.center_y)
        return 0;
    const size_t n = (size_t)ni * (size_t)nj;
    if (n > c->cap) {
        int *lv = realloc(c->lv, n * sizeof *lv);
        if (!lv)
            return seterr(err, errlen, "out of memory painting object %s", o->name);
        c->lv = lv;
        c->cap = n;
    }
    for (int j = 0; j < nj; j++)
        for (int i = 0; i < ni; i++)
            c->lv[(size_t)i + (size_t)j * (size_t)ni] = paint_cover_levels(o, i0 + i, j0 + j);
    c->valid = cacheable;
    c->key = key;
    c->ni = ni;
    c->nj = nj;
    c->di = di;
    c->dj = dj;
    return 0;
}

/* Paint dielectric object o with subpixel smoothing: Ez is tangential to
 * every interface of a TMz scene, so the cell's permittivity is the mean
 * over its area, eps = f eps_o + (1 - f) eps_under (Farjadpour et al., Opt.
 * Lett. 31, 2972 (2006): the mean of eps for E parallel to the interface),
 * and its conductivity the same mean, sigma = f sigma_o + (1 - f) sigma_under
 * (the mean of the complex permittivity eps - i sigma / (omega eps0)).
 * Where o or the material under it is dispersive the mean of the two
 * complex permittivities eps(omega) is again a dispersive material (each
 * one's poles at its weight, material_mix), a material of the table per
 * (level, material under).  A cell under PEC (and in TE one under a
 * dispersive material: TE paints those as staircases) stays as it is
 * unless its Ez node lies inside o, as without smoothing.  Cells of the
 * bounding box grown by one on each side.  `full` is o's own material. */
static int paint_smoothed(struct model *m, struct cover_cache *cc, const struct scene_object *o,
                          int full, int i0, int i1, int j0, int j1, char *err, size_t errlen)
{
    const int ni = i1 - i0 + 3, nj = j1 - j0 + 3;
    if (ni <= 0 || nj <= 0)
        return 0;
    if (cover_box(cc, o, i0 - 1, j0 - 1, ni, nj, err, errlen))
        return -1;
    struct scene_material obuf;
    const struct scene_material *om = paint_cell_material(&m->mats[full], &obuf);
    /* the mixed material of each level over each material under it: the
     * last one found, per level (paint_material searches the table) */
    int memo_under[PAINT_SUBPIXEL_LEVELS], memo_idx[PAINT_SUBPIXEL_LEVELS];
    for (int f = 0; f < PAINT_SUBPIXEL_LEVELS; f++)
        memo_under[f] = -1;
    for (int j = j0 - 1; j <= j1 + 1; j++)
        for (int i = i0 - 1; i <= i1 + 1; i++) {
            if (i < 0 || j < 0 || i >= m->nx || j >= m->ny)
                continue;
            const int f = cc->lv[(size_t)(i - i0 + 1) + (size_t)(j - j0 + 1) * (size_t)ni];
            const size_t c = (size_t)i + (size_t)m->nx * (size_t)j;
            const struct material *under = &m->mats[m->mat[c]];
            if (f == 0)
                continue;
            if (f == PAINT_SUBPIXEL_LEVELS || under->kind == MATERIAL_PEC
                || (under->dcoef && m->scene->te)) {
                if (f < PAINT_SUBPIXEL_LEVELS && !paint_inside(o, i, j, 0.0))
                    continue;
                m->mat[c] = (uint8_t)full;
                continue;
            }
            if (memo_under[f] != m->mat[c]) {
                const double w = (double)f / PAINT_SUBPIXEL_LEVELS;
                struct scene_material ubuf, mix;
                const struct scene_material *um = paint_cell_material(under, &ubuf);
                if (material_mix(om, w, um, 1.0 - w, &mix, err, errlen))
                    return seterr(err, errlen, "object %s: subpixel smoothing: a boundary cell "
                                  "of material %s over %s needs more than %d poles (the union "
                                  "of both materials' poles); set [grid] subpixel = false (a "
                                  "staircase) or use fewer poles", o->name, om->name, um->name,
                                  SCENE_MAX_POLES);
                snprintf(mix.name, sizeof mix.name, "(%d/%d of %.20s over %.20s)", f,
                         PAINT_SUBPIXEL_LEVELS, om->name, um->name);
                const int idx = mix.npoles ? paint_mixed_dispersive(m, &mix, err, errlen)
                                : mix.eps_inf == 1.0 && mix.sigma == 0.0
                                    ? 0
                                    : paint_material(m, MATERIAL_DIELECTRIC, mix.eps_inf,
                                                     mix.sigma, err, errlen);
                if (idx < 0 && m->nmats == MODEL_MAX_MATERIALS)
                    return seterr(err, errlen, "object %s: subpixel smoothing needs more than %d "
                                  "distinct materials (one per covered fraction, in 64ths, of "
                                  "a boundary cell over each material under it; the material "
                                  "index per cell is one byte); set [grid] subpixel = false",
                                  o->name, MODEL_MAX_MATERIALS);
                if (idx < 0)
                    return -1;
                memo_under[f] = m->mat[c];
                memo_idx[f] = idx;
            }
            m->mat[c] = (uint8_t)memo_idx[f];
        }
    return 0;
}

/* A map's cells, one material per cell (no smoothing). */
static int paint_map(struct model *m, const struct scene_map *mp, char *err, size_t errlen)
{
    int idx[SCENE_MAP_MAX_VALUES];
    for (int v = 0; v < mp->nvalues; v++) {
        const struct scene_map_value *t = &mp->values[v];
        const double sig = t->table >= 0 ? table_sigma(m->scene, t->table) : t->sigma;
        const double mu = t->kind == MATERIAL_DIELECTRIC ? table_mu3(m, t->table) : 1.0;
        idx[v] = t->kind == MATERIAL_VACUUM ? 0
                 : table_dispersive(m->scene, t->table)
                     ? paint_dispersive(m, t->table, err, errlen)
                     : paint_material_mu(m, t->kind, t->eps_r, sig, mu, err, errlen);
        if (idx[v] < 0)
            return seterr(err, errlen, "map.%s: more than %d distinct materials in the scene, "
                          "objects and maps together (the material index per cell is one byte)",
                          mp->name, MODEL_MAX_MATERIALS);
    }
    const bool d3 = m->nz > 1;
    const int nk = d3 ? (mp->nz > 1 ? mp->nz : mp->k1 - mp->k0 + 1) : 1;
    for (int kk = 0; kk < nk; kk++) {
        const size_t src_k = mp->nz > 1 ? (size_t)kk : 0;
        const size_t z = d3 ? (size_t)(mp->z0 + kk) : 0;
        for (int j = 0; j < mp->ny; j++) {
            const uint8_t *src = mp->cell + (size_t)mp->nx * ((size_t)j + (size_t)mp->ny * src_k);
            uint8_t *dst = m->mat + (size_t)mp->x0
                           + (size_t)m->nx * ((size_t)(mp->y0 + j) + (size_t)m->ny * z);
            for (int i = 0; i < mp->nx; i++)
                dst[i] = (uint8_t)idx[src[i]];
        }
    }
    return 0;
}

int paint_objects(struct model *m, char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    const bool d3 = m->nz > 1;
    struct cover_cache cc = {0};
    /* 3D smoothing: the edges' own permittivities (core/smooth3d.h) */
    struct smooth3d *sm = NULL;
    if (d3 && s->subpixel && !(sm = smooth3d_new(err, errlen)))
        return -1;
    for (int k = 0, next_map = 0; k <= s->nobjects; k++) {
        /* the maps that come before object k in the file */
        while (next_map < s->nmaps
               && (k == s->nobjects || s->maps[next_map].order < s->objects[k].order)) {
            const struct scene_map *mp = &s->maps[next_map++];
            if (sm) {
                const int lo[3] = {mp->x0 - 1, mp->y0 - 1, mp->z0 - 1};
                const int hi[3] = {mp->x0 + mp->nx, mp->y0 + mp->ny,
                                   (mp->nz > 1 ? mp->z0 + mp->nz - 1 : mp->k1) + 1};
                smooth3d_clear(sm, m, lo, hi);
            }
            if (paint_map(m, mp, err, errlen))
                goto fail;
        }
        if (k == s->nobjects)
            break;
        const struct scene_object *o = &s->objects[k];
        const bool disp = table_dispersive(s, o->table);
        const int idx = disp ? paint_dispersive(m, o->table, err, errlen)
                             : paint_material_mu(m, o->material,
                                                 o->material == MATERIAL_PEC ? 0.0 : o->eps_r,
                                                 table_sigma(s, o->table),
                                                 o->material == MATERIAL_DIELECTRIC
                                                     ? table_mu3(m, o->table)
                                                     : 1.0,
                                                 err, errlen);
        if (idx < 0)
            goto fail;
        double lo[3], hi[3];
        scene_object_bounds(o, d3, lo, hi);
        const int i0 = (int)ceil(lo[0]), i1 = (int)floor(hi[0]);
        const int j0 = (int)ceil(lo[1]), j1 = (int)floor(hi[1]);
        /* in TE a lossy or dispersive object is painted as a staircase
         * (te_staircase) */
        if (s->subpixel && !d3 && o->material == MATERIAL_DIELECTRIC && !te_staircase(s, o)) {
            if (paint_smoothed(m, &cc, o, idx, i0, i1, j0, j1, err, errlen))
                goto fail;
            continue;
        }
        const int k0 = d3 ? (int)ceil(lo[2]) : 0, k1 = d3 ? (int)floor(hi[2]) : 0;
        if (sm && smooth3d_takes(m, o, idx)) {
            if (smooth3d_object(sm, m, o, idx, err, errlen))
                goto fail;
        } else if (sm) {
            const int blo[3] = {i0 - 1, j0 - 1, k0 - 1}, bhi[3] = {i1 + 1, j1 + 1, k1 + 1};
            smooth3d_clear(sm, m, blo, bhi);
        }
        for (int kk = k0; kk <= k1; kk++)
            for (int j = j0; j <= j1; j++)
                for (int i = i0; i <= i1; i++)
                    if (paint_inside(o, i, j, kk))
                        m->mat[(size_t)i + (size_t)m->nx * ((size_t)j + (size_t)m->ny * (size_t)kk)] =
                            (uint8_t)idx;
    }
    free(cc.lv);
    if (sm && smooth3d_finish(sm, m, err, errlen)) {
        smooth3d_free(sm);
        return -1;
    }
    smooth3d_free(sm);
    return 0;
fail:
    free(cc.lv);
    smooth3d_free(sm);
    return -1;
}

/* ---- conformal PEC -------------------------------------------------------- */

/* The PEC objects that may lie within 2 cells of a node, per tile of
 * TILE x TILE nodes (CSR: start[t] .. start[t+1] index obj). */
#define TILE 16
struct tiles {
    int tx, ty;
    size_t *start;
    int *obj;
};

static int tiles_build(struct tiles *t, const struct model *m, char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    t->tx = (m->nx + TILE - 1) / TILE;
    t->ty = (m->ny + TILE - 1) / TILE;
    const size_t nt = (size_t)t->tx * (size_t)t->ty;
    t->start = xcalloc(nt + 1, sizeof *t->start, "conformal tiles", err, errlen);
    if (!t->start)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < s->nobjects; k++) {
            const struct scene_object *o = &s->objects[k];
            if (o->material != MATERIAL_PEC)
                continue;
            double lo[3], hi[3];
            scene_object_bounds(o, false, lo, hi);
            const int a0 = (int)fmax(0, floor((lo[0] - 2) / TILE));
            const int a1 = (int)fmin(t->tx - 1, floor((hi[0] + 2) / TILE));
            const int b0 = (int)fmax(0, floor((lo[1] - 2) / TILE));
            const int b1 = (int)fmin(t->ty - 1, floor((hi[1] + 2) / TILE));
            for (int b = b0; b <= b1; b++)
                for (int a = a0; a <= a1; a++) {
                    const size_t c = (size_t)a + (size_t)b * (size_t)t->tx;
                    if (pass == 0)
                        t->start[c + 1]++;
                    else
                        t->obj[t->start[c]++] = k;
                }
        }
        if (pass == 0) {
            for (size_t c = 0; c < nt; c++)
                t->start[c + 1] += t->start[c];
            t->obj = xcalloc(t->start[nt] + 1, sizeof *t->obj, "conformal tiles", err, errlen);
            if (!t->obj)
                return -1;
        } else { /* start[c] has moved to the next tile's start: shift back */
            for (size_t c = nt; c > 0; c--)
                t->start[c] = t->start[c - 1];
            t->start[0] = 0;
        }
    }
    return 0;
}

/* Distance from free node (i, j) toward its neighbour in direction (ux, uy)
 * to the nearest PEC surface, within 2 cells; 1 (the staircase) if none. */
static double pec_distance(const struct model *m, const struct tiles *t, int i, int j, int ux,
                           int uy)
{
    const struct scene *s = m->scene;
    const size_t c = (size_t)(i / TILE) + (size_t)(j / TILE) * (size_t)t->tx;
    double d = INFINITY;
    for (size_t k = t->start[c]; k < t->start[c + 1]; k++)
        d = fmin(d, paint_ray_entry(&s->objects[t->obj[k]], i, j, ux, uy));
    return d < 2.0 ? d : 1.0;
}

static bool is_pec(const struct model *m, size_t c)
{
    return m->mats[m->mat[c]].kind == MATERIAL_PEC;
}

/* Free nodes closer than conformal_min to a PEC surface along an axis become
 * PEC (the 1/d of the cut edges stays bounded); then list the cut edges. */
static int cut_edges(struct model *m, const struct tiles *t, char *err, size_t errlen)
{
    const int nx = m->nx, ny = m->ny;
    const double dmin = m->scene->conformal_min;
    static const int dir[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    uint8_t pec_idx = 0;
    for (int k = 0; k < m->nmats; k++)
        if (m->mats[k].kind == MATERIAL_PEC)
            pec_idx = (uint8_t)k;
    uint8_t *promote = xcalloc(m->ncells, 1, "conformal map", err, errlen);
    if (!promote)
        return -1;
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < nx - 1; i++) {
            const size_t c = (size_t)i + (size_t)j * nx;
            if (is_pec(m, c))
                continue;
            for (int k = 0; k < 4; k++) {
                const size_t p = c + dir[k][0] + (ptrdiff_t)dir[k][1] * nx;
                if (is_pec(m, p) && pec_distance(m, t, i, j, dir[k][0], dir[k][1]) < dmin)
                    promote[c] = 1;
            }
        }
    for (size_t c = 0; c < m->ncells; c++)
        if (promote[c])
            m->mat[c] = pec_idx;
    free(promote);

    size_t cap = 4 * m->ncells / (size_t)nx + 16 * (size_t)(nx + ny);
    m->cut_row = xcalloc((size_t)ny + 1, sizeof *m->cut_row, "cut edges", err, errlen);
    m->cut = xcalloc(cap, sizeof *m->cut, "cut edges", err, errlen);
    if (!m->cut_row || !m->cut)
        return -1;
    for (int j = 0; j < ny - 1; j++) {
        m->cut_row[j] = m->ncut;
        for (int i = 0; i < nx - 1; i++) {
            const size_t c = (size_t)i + (size_t)j * nx;
            for (int comp = 0; comp < 2; comp++) {
                const size_t hi = comp == 0 ? c + nx : c + 1;
                if (is_pec(m, c) == is_pec(m, hi))
                    continue;
                if (m->ncut == cap) {
                    cap *= 2;
                    struct cut_edge *n = realloc(m->cut, cap * sizeof *n);
                    if (!n)
                        return seterr(err, errlen, "out of memory listing cut edges");
                    m->cut = n;
                }
                struct cut_edge *e = &m->cut[m->ncut++];
                const bool q_hi = is_pec(m, c); /* the free node is the upper one */
                e->cell = c;
                e->comp = comp;
                e->q = q_hi ? hi : c;
                e->sigma = q_hi ? 1 : -1;
                const int qi = (int)(e->q % nx), qj = (int)(e->q / nx);
                const int ux = comp == 1 ? -e->sigma : 0, uy = comp == 0 ? -e->sigma : 0;
                e->d = pec_distance(m, t, qi, qj, ux, uy);
                e->a = m->scene->courant * e->sigma / e->d;
                e->a_f = (float)e->a;
            }
        }
    }
    m->cut_row[ny - 1] = m->cut_row[ny] = m->ncut;
    return 0;
}

int paint_cut_edges(struct model *m, char *err, size_t errlen)
{
    struct tiles t = {0};
    const int rc = tiles_build(&t, m, err, errlen) ? -1 : cut_edges(m, &t, err, errlen);
    free(t.start);
    free(t.obj);
    return rc;
}

/* ---- conformal PEC, TE ------------------------------------------------------ */

/* The fraction of the unit segment centred on (x, y), along x (along_x) or
 * along y, inside o: exact for a circle, an ellipse with its axes along x
 * and y (or equal axes) and an axis-aligned rectangle (the chord's overlap
 * with the segment), otherwise from PAINT_SEGMENT_SAMPLES midpoint samples. */
#define PAINT_SEGMENT_SAMPLES 256
static double segment_cover(const struct scene_object *o, double x, double y, bool along_x)
{
    const double dx = x - o->center_x, dy = y - o->center_y;
    const double p = along_x ? dx : dy, q = along_x ? dy : dx; /* along, across */
    const bool round = o->shape == SHAPE_CIRCLE
                       || (o->shape == SHAPE_ELLIPSE && (o->radius_x == o->radius_y || !o->rotated));
    if (round) {
        /* the circle of radius a once y is scaled by k = a / b */
        const double a = o->shape == SHAPE_CIRCLE ? o->radius : o->radius_x;
        const double k = o->shape == SHAPE_CIRCLE ? 1.0 : a / o->radius_y;
        const double qs = along_x ? q * k : q; /* across, in the circle's frame */
        if (fabs(qs) >= a)
            return 0.0;
        double h = sqrt((a - qs) * (a + qs)); /* half chord, in the circle's frame */
        if (!along_x)
            h /= k;
        return paint_overlap(p - 0.5, p + 0.5, -h, h);
    }
    if (o->shape == SHAPE_RECTANGLE && !o->rotated) {
        const double ha = 0.5 * (along_x ? o->width : o->height);
        const double hq = 0.5 * (along_x ? o->height : o->width);
        return fabs(q) <= hq ? paint_overlap(p - 0.5, p + 0.5, -ha, ha) : 0.0;
    }
    int in = 0;
    for (int a = 0; a < PAINT_SEGMENT_SAMPLES; a++) {
        const double t = (a + 0.5) / PAINT_SEGMENT_SAMPLES - 0.5;
        in += paint_inside(o, along_x ? x + t : x, along_x ? y : y + t, 0.0);
    }
    return (double)in / PAINT_SEGMENT_SAMPLES;
}

/* The fraction of the unit square (shape 0) or the unit segment along x (1)
 * or y (2) centred on (x, y) inside the union of the PEC objects listed for
 * node (i, j)'s tile: exact where one object's boundary passes near (its
 * exact_cover or segment_cover), sampled where several do. */
static double pec_cover(const struct model *m, const struct tiles *t, int i, int j, double x,
                        double y, int shape)
{
    const struct scene *s = m->scene;
    const size_t c = (size_t)(i / TILE) + (size_t)(j / TILE) * (size_t)t->tx;
    int near = 0, one = -1;
    for (size_t k = t->start[c]; k < t->start[c + 1]; k++) {
        const struct scene_object *o = &s->objects[t->obj[k]];
        if (!near_boundary(o, x, y, 0.75)) {
            if (paint_inside(o, x, y, 0.0))
                return 1.0;
            continue;
        }
        near++;
        one = t->obj[k];
    }
    if (!near)
        return 0.0;
    double f;
    if (near == 1) {
        const struct scene_object *o = &s->objects[one];
        f = shape ? segment_cover(o, x, y, shape == 1) : exact_cover(o, x, y);
        if (f < 0.0) /* a shape exact_cover does not take */
            f = paint_cover_fraction(o, i, j);
    } else {
        const int ns = shape ? PAINT_SEGMENT_SAMPLES : 32;
        int in = 0;
        for (int b = 0; b < (shape ? 1 : ns); b++)
            for (int a = 0; a < ns; a++) {
                const double u = (a + 0.5) / ns - 0.5, v = shape ? 0.0 : (b + 0.5) / ns - 0.5;
                const double px = shape == 2 ? x + v : x + u, py = shape == 2 ? y + u : y + v;
                bool inside = false;
                for (size_t k = t->start[c]; k < t->start[c + 1] && !inside; k++)
                    inside = paint_inside(&s->objects[t->obj[k]], px, py, 0.0);
                in += inside;
            }
        f = (double)in / (shape ? ns : ns * ns);
    }
    /* rounding of the closed forms where the square or segment just touches */
    return f < 1e-12 ? 0.0 : f > 1.0 - 1e-12 ? 1.0 : f;
}

int paint_te_conformal(const struct model *m, double *afree, double *lfree, char *err,
                       size_t errlen)
{
    struct tiles t = {0};
    if (tiles_build(&t, m, err, errlen)) {
        free(t.start);
        free(t.obj);
        return -1;
    }
    const size_t n = m->ncells, nx = (size_t)m->nx;
    for (size_t c = 0; c < n; c++) {
        const int i = (int)(c % nx), j = (int)(c / nx);
        afree[c] = 1.0 - pec_cover(m, &t, i, j, i, j, 0);
        lfree[c] = 1.0 - pec_cover(m, &t, i, j, i, j + 0.5, 1);
        lfree[n + c] = 1.0 - pec_cover(m, &t, i, j, i + 0.5, j, 2);
    }
    /* a PEC node that no PEC object holds (a map's cell): its cell and its
     * four edges are in the conductor, as in the staircase */
    for (size_t c = 0; c < n; c++) {
        if (!is_pec(m, c) || afree[c] == 0.0)
            continue;
        const int i = (int)(c % nx), j = (int)(c / nx);
        const size_t tc = (size_t)(i / TILE) + (size_t)(j / TILE) * (size_t)t.tx;
        bool held = false;
        for (size_t k = t.start[tc]; k < t.start[tc + 1] && !held; k++)
            held = paint_inside(&m->scene->objects[t.obj[k]], i, j, 0.0);
        if (held)
            continue;
        afree[c] = lfree[c] = lfree[n + c] = 0.0;
        if (c >= nx)
            lfree[c - nx] = 0.0;
        if (i > 0)
            lfree[n + c - 1] = 0.0;
    }
    free(t.start);
    free(t.obj);
    return 0;
}

/* ---- permeability (2D) ------------------------------------------------------ */

static double object_mu(const struct scene *s, int table)
{
    return table >= 0 ? s->materials[table].mu_r : 1.0;
}

int paint_mu(const struct model *m, double *mu)
{
    const struct scene *s = m->scene;
    const size_t nx = (size_t)m->nx;
    int magnetic = 0;
    for (size_t c = 0; c < m->ncells; c++)
        mu[c] = 1.0;
    for (int k = 0, next_map = 0; k <= s->nobjects; k++) {
        while (next_map < s->nmaps
               && (k == s->nobjects || s->maps[next_map].order < s->objects[k].order)) {
            const struct scene_map *mp = &s->maps[next_map++];
            for (int j = 0; j < mp->ny; j++)
                for (int i = 0; i < mp->nx; i++) {
                    const struct scene_map_value *t = &mp->values[mp->cell[(size_t)i + (size_t)mp->nx * (size_t)j]];
                    const double v = t->kind == MATERIAL_DIELECTRIC ? object_mu(s, t->table) : 1.0;
                    mu[(size_t)(mp->x0 + i) + nx * (size_t)(mp->y0 + j)] = v;
                    magnetic |= v != 1.0;
                }
        }
        if (k == s->nobjects)
            break;
        const struct scene_object *o = &s->objects[k];
        const double v = o->material == MATERIAL_DIELECTRIC ? object_mu(s, o->table) : 1.0;
        double lo[3], hi[3];
        scene_object_bounds(o, false, lo, hi);
        for (int j = (int)ceil(lo[1]); j <= (int)floor(hi[1]); j++)
            for (int i = (int)ceil(lo[0]); i <= (int)floor(hi[0]); i++)
                if (paint_inside(o, i, j, 0.0)) {
                    mu[(size_t)i + nx * (size_t)j] = v;
                    magnetic |= v != 1.0;
                }
    }
    return magnetic;
}
