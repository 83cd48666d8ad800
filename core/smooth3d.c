/* smooth3d.c - subpixel smoothing of 3D dielectric objects.  See smooth3d.h. */
#include "smooth3d.h"
#include "paint.h"
#include "util.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An edge's state: back to its corner's material (the staircase), inside
 * one object whole, or a mix: <eps>, <1/eps> and n_a^2 of the last object
 * whose boundary crossed its cube. */
enum { SM_STAIR, SM_PURE, SM_MIXED };

struct sm_edge {
    size_t key; /* edge q + 1 (q = comp * ncells + c); 0: an empty slot */
    int state;
    int idx;    /* SM_PURE: the object's material */
    double e, v, an2;
};

/* Open addressing, linear probing; an edge once added stays (SM_STAIR
 * stands for a removed one). */
struct smooth3d {
    struct sm_edge *t;
    size_t cap, used; /* cap a power of two */
};

struct smooth3d *smooth3d_new(char *err, size_t errlen)
{
    struct smooth3d *sm = xcalloc(1, sizeof *sm, "3D subpixel smoothing", err, errlen);
    if (sm && !(sm->t = xcalloc(sm->cap = 1024, sizeof *sm->t, "3D subpixel smoothing", err, errlen))) {
        free(sm);
        return NULL;
    }
    return sm;
}

void smooth3d_free(struct smooth3d *sm)
{
    if (sm)
        free(sm->t);
    free(sm);
}

static size_t sm_hash(size_t q, size_t cap)
{
    uint64_t h = (uint64_t)q * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static struct sm_edge *sm_find(const struct smooth3d *sm, size_t q)
{
    for (size_t s = sm_hash(q, sm->cap);; s = (s + 1) & (sm->cap - 1)) {
        if (sm->t[s].key == q + 1)
            return &sm->t[s];
        if (sm->t[s].key == 0)
            return NULL;
    }
}

/* Edge q's entry, added (SM_STAIR) if new; NULL when out of memory. */
static struct sm_edge *sm_get(struct smooth3d *sm, size_t q)
{
    struct sm_edge *x = sm_find(sm, q);
    if (x)
        return x;
    if (2 * (sm->used + 1) > sm->cap) {
        struct sm_edge *old = sm->t;
        const size_t oc = sm->cap;
        if (!(sm->t = calloc(2 * oc, sizeof *sm->t))) {
            sm->t = old;
            return NULL;
        }
        sm->cap = 2 * oc;
        for (size_t k = 0; k < oc; k++)
            if (old[k].key) {
                size_t s = sm_hash(old[k].key - 1, sm->cap);
                while (sm->t[s].key)
                    s = (s + 1) & (sm->cap - 1);
                sm->t[s] = old[k];
            }
        free(old);
    }
    size_t s = sm_hash(q, sm->cap);
    while (sm->t[s].key)
        s = (s + 1) & (sm->cap - 1);
    sm->t[s] = (struct sm_edge){.key = q + 1, .state = SM_STAIR};
    sm->used++;
    return &sm->t[s];
}

/* A material a smoothed edge may mix over: vacuum or a lossless,
 * non-dispersive, non-magnetic dielectric. */
static bool smoothable(const struct material *t)
{
    return t->kind == MATERIAL_VACUUM
           || (t->kind == MATERIAL_DIELECTRIC && t->sigma == 0.0 && !t->dcoef && t->mu_r == 1.0);
}

bool smooth3d_takes(const struct model *m, const struct scene_object *o, int idx)
{
    return o->material == MATERIAL_DIELECTRIC && m->mats[idx].kind == MATERIAL_DIELECTRIC
           && smoothable(&m->mats[idx]);
}

/* The overlap of [a0, a1] with [b0, b1] (0 when they do not meet). */
static double overlap(double a0, double a1, double b0, double b1)
{
    const double v = fmin(a1, b1) - fmax(a0, b0);
    return v > 0.0 ? v : 0.0;
}

/* The fraction of the unit cube centred on (x, y, z) inside o (a sphere, a
 * box or an extruded polygon), and a unit normal n of o's boundary there
 * (0 when the cube is all inside or all outside).
 *   sphere: the mean over 16 x 16 rows along x (midpoints in y and z) of
 *           each row's exact chord within the cube; n along the radius;
 *   box, polygon: the 2D cover of the cross-section (paint_square_cover:
 *           exact for an unturned box) times the overlap along z; n the 2D
 *           normal where only the sides cross the cube, z where only a cap
 *           does, and between them (weighted by the other factor's cover)
 *           at a rim. */
static double cube_cover(const struct scene_object *o, double x, double y, double z, double n[3])
{
    n[0] = n[1] = n[2] = 0.0;
    if (o->shape == SHAPE_SPHERE) {
        const double dx = x - o->center_x, dy = y - o->center_y, dz = z - o->center_z;
        const double d = sqrt(dx * dx + dy * dy + dz * dz), r = o->radius;
        if (d - r >= 0.87) /* sqrt(3)/2: the cube lies within that of its centre */
            return 0.0;
        if (r - d >= 0.87)
            return 1.0;
        double f = 0.0;
        for (int b = 0; b < PAINT_SUBPIXEL_SAMPLES; b++)
            for (int a = 0; a < PAINT_SUBPIXEL_SAMPLES; a++) {
                const double sy = dy - 0.5 + (a + 0.5) / PAINT_SUBPIXEL_SAMPLES;
                const double sz = dz - 0.5 + (b + 0.5) / PAINT_SUBPIXEL_SAMPLES;
                const double h2 = r * r - sy * sy - sz * sz;
                if (h2 > 0.0)
                    f += overlap(dx - 0.5, dx + 0.5, -sqrt(h2), sqrt(h2));
            }
        f /= PAINT_SUBPIXEL_SAMPLES * PAINT_SUBPIXEL_SAMPLES;
        if (d > 0.0 && f > 0.0 && f < 1.0) {
            n[0] = dx / d;
            n[1] = dy / d;
            n[2] = dz / d;
        }
        return f;
    }
    /* the cross-section as a 2D shape: a box's is its rectangle, a polygon
     * is its own (paint_inside at z = 0 with depth 0) */
    struct scene_object s = *o;
    s.shape = o->shape == SHAPE_BOX ? SHAPE_RECTANGLE : o->shape;
    s.center_z = 0.0;
    s.depth = 0.0;
    double ux, uy;
    const double f2 = paint_square_cover(&s, x, y, &ux, &uy);
    const double fz = overlap(z - 0.5, z + 0.5, o->center_z - 0.5 * o->depth,
                              o->center_z + 0.5 * o->depth);
    const double f = f2 * fz;
    if (f > 0.0 && f < 1.0) {
        const double uz = fz < 1.0 ? (z > o->center_z ? 1.0 : -1.0) : 0.0;
        const bool side = f2 < 1.0, cap = fz < 1.0;
        const double wx = side ? (cap ? fz : 1.0) : 0.0, wz = cap ? (side ? f2 : 1.0) : 0.0;
        const double g[3] = {wx * ux, wx * uy, wz * uz}, l = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        if (l > 0.0)
            for (int a = 0; a < 3; a++)
                n[a] = g[a] / l;
    }
    return f;
}

/* The corners lo .. hi of o's bounding box grown by one, clipped. */
static void box_of(const struct model *m, const struct scene_object *o, int lo[3], int hi[3])
{
    double l[3], h[3];
    scene_object_bounds(o, true, l, h);
    const int n[3] = {m->nx, m->ny, m->nz};
    for (int a = 0; a < 3; a++) {
        lo[a] = (int)fmax(0.0, ceil(l[a]) - 1.0);
        hi[a] = (int)fmin(n[a] - 1.0, floor(h[a]) + 1.0);
    }
}

int smooth3d_object(struct smooth3d *sm, const struct model *m, const struct scene_object *o,
                    int idx, char *err, size_t errlen)
{
    const size_t nx = (size_t)m->nx, plane = nx * (size_t)m->ny, n = m->ncells;
    const size_t step[3] = {1, nx, plane};
    const int nn[3] = {m->nx, m->ny, m->nz};
    const double eps_o = m->mats[idx].eps_r;
    int lo[3], hi[3];
    box_of(m, o, lo, hi);
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++) {
                const size_t c = (size_t)i + nx * (size_t)j + plane * (size_t)k;
                const int ijk[3] = {i, j, k};
                int corner_in = -1; /* paint_inside(o, i, j, k), once needed */
                for (int a = 0; a < 3; a++) {
                    const double x = i + (a == 0 ? 0.5 : 0.0), y = j + (a == 1 ? 0.5 : 0.0),
                                 z = k + (a == 2 ? 0.5 : 0.0);
                    double nv[3];
                    const double f = cube_cover(o, x, y, z, nv);
                    const size_t q = (size_t)a * n + c;
                    /* the staircase gives the corner o's material where
                     * the corner is inside o; where that disagrees with
                     * the cube's cover (a corner on o's surface) the
                     * edge keeps what the cover says */
                    struct sm_edge *t = sm_find(sm, q);
                    if (f == 0.0 || f == 1.0) {
                        const bool stair = !t || t->state == SM_STAIR;
                        if (corner_in < 0)
                            corner_in = paint_inside(o, i, j, k);
                        if (f == 1.0 && (!stair || !corner_in))
                            t = sm_get(sm, q);
                        else if (f == 0.0 && stair && corner_in && smoothable(&m->mats[m->mat[c]]))
                            t = sm_get(sm, q);
                        else
                            continue;
                        if (!t)
                            return seterr(err, errlen, "out of memory smoothing object %s", o->name);
                        if (f == 1.0 || t->state == SM_STAIR)
                            *t = (struct sm_edge){.key = q + 1, .state = SM_PURE,
                                                  .idx = f == 1.0 ? idx : m->mat[c]};
                        continue;
                    }
                    if (!t && !(t = sm_get(sm, q)))
                        return seterr(err, errlen, "out of memory smoothing object %s", o->name);
                    double eo, io; /* what lies under o here */
                    if (t->state == SM_MIXED) {
                        eo = t->e;
                        io = t->v;
                    } else if (t->state == SM_PURE) {
                        eo = m->mats[t->idx].eps_r;
                        io = 1.0 / eo;
                    } else {
                        /* the staircase: the corner's material, if both
                         * ends of the edge may mix */
                        const size_t d = ijk[a] + 1 < nn[a] ? c + step[a] : c;
                        const struct material *u = &m->mats[m->mat[c]];
                        if (!smoothable(u) || !smoothable(&m->mats[m->mat[d]]))
                            continue;
                        eo = u->eps_r;
                        io = 1.0 / eo;
                    }
                    t->state = SM_MIXED;
                    t->e = f * eps_o + (1.0 - f) * eo;
                    t->v = f / eps_o + (1.0 - f) * io;
                    t->an2 = nv[a] * nv[a];
                }
            }
    return 0;
}

void smooth3d_clear(struct smooth3d *sm, const struct model *m, const int lo[3], const int hi[3])
{
    if (!sm->used)
        return;
    const size_t nx = (size_t)m->nx, plane = nx * (size_t)m->ny, n = m->ncells;
    int l[3], h[3];
    const int nn[3] = {m->nx, m->ny, m->nz};
    size_t box = 1;
    for (int a = 0; a < 3; a++) {
        l[a] = lo[a] < 0 ? 0 : lo[a];
        h[a] = hi[a] >= nn[a] ? nn[a] - 1 : hi[a];
        if (h[a] < l[a])
            return;
        box *= (size_t)(h[a] - l[a] + 1);
    }
    if (3 * box > sm->cap) {
        /* a box larger than the table: walk the table */
        for (size_t s = 0; s < sm->cap; s++) {
            if (!sm->t[s].key)
                continue;
            const size_t c = (sm->t[s].key - 1) % n;
            const int i = (int)(c % nx), j = (int)(c / nx % (size_t)m->ny), k = (int)(c / plane);
            if (i >= l[0] && i <= h[0] && j >= l[1] && j <= h[1] && k >= l[2] && k <= h[2])
                sm->t[s].state = SM_STAIR;
        }
        return;
    }
    for (int k = l[2]; k <= h[2]; k++)
        for (int j = l[1]; j <= h[1]; j++)
            for (int i = l[0]; i <= h[0]; i++)
                for (int a = 0; a < 3; a++) {
                    struct sm_edge *t = sm_find(sm, (size_t)a * n + (size_t)i + nx * (size_t)j
                                                        + plane * (size_t)k);
                    if (t)
                        t->state = SM_STAIR;
                }
}

/* The rounding of a mixed edge's (eps^-1)_aa: multiples of 2^-12, coarser
 * (down to 2^-6) only where the material table would overflow (as TE's
 * edges, core/model.c). */
#define SM_ROUND_BITS 12
#define SM_ROUND_BITS_MIN 6

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_size(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The number of distinct values of v[0 .. n-1] rounded to multiples of
 * 1/scale (tmp: n doubles). */
static size_t distinct(const double *v, size_t n, double scale, double *tmp)
{
    for (size_t k = 0; k < n; k++)
        tmp[k] = round(v[k] * scale);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    size_t d = 0;
    for (size_t k = 0; k < n; k++)
        d += k == 0 || tmp[k] != tmp[k - 1];
    return d;
}

int smooth3d_finish(struct smooth3d *sm, struct model *m, char *err, size_t errlen)
{
    const size_t nx = (size_t)m->nx, plane = nx * (size_t)m->ny, n = m->ncells;
    const size_t step[3] = {1, nx, plane};
    const int nn[3] = {m->nx, m->ny, m->nz};
    /* the edges that stay smoothed: both ends' final materials may mix */
    size_t ne = 0, nmix = 0;
    for (size_t s = 0; s < sm->cap; s++) {
        struct sm_edge *t = &sm->t[s];
        if (!t->key || t->state == SM_STAIR)
            continue;
        const size_t q = t->key - 1, c = q % n;
        const int a = (int)(q / n);
        const int ijk[3] = {(int)(c % nx), (int)(c / nx % (size_t)m->ny), (int)(c / plane)};
        const size_t d = ijk[a] + 1 < nn[a] ? c + step[a] : c;
        if (!smoothable(&m->mats[m->mat[c]]) || !smoothable(&m->mats[m->mat[d]])) {
            t->state = SM_STAIR;
            continue;
        }
        if (t->state == SM_MIXED) /* (eps^-1)_aa into v */
            t->v = t->an2 * t->v + (1.0 - t->an2) / t->e;
        ne++;
        nmix += t->state == SM_MIXED;
    }
    if (!ne)
        return 0;
    size_t *key = xcalloc(ne, sizeof *key, "3D subpixel smoothing", err, errlen);
    double *inv = key ? xcalloc(2 * nmix + 1, sizeof *inv, "3D subpixel smoothing", err, errlen) : NULL;
    if (!inv) {
        free(key);
        return -1;
    }
    ne = nmix = 0;
    for (size_t s = 0; s < sm->cap; s++)
        if (sm->t[s].key && sm->t[s].state != SM_STAIR) {
            key[ne++] = sm->t[s].key - 1;
            if (sm->t[s].state == SM_MIXED)
                inv[nmix++] = sm->t[s].v;
        }
    /* the finest rounding whose materials fit the table (room for the 7
     * PEC variants of cpu3d_e_materials) */
    bool pec = false;
    for (int q = 0; q < m->nmats; q++)
        pec |= m->mats[q].kind == MATERIAL_PEC;
    const size_t room = MODEL_MAX_MATERIALS - (size_t)m->nmats - (pec ? 7 : 0);
    int bits = SM_ROUND_BITS;
    while (bits > SM_ROUND_BITS_MIN && distinct(inv, nmix, ldexp(1.0, bits), inv + nmix) > room)
        bits--;
    const double scale = ldexp(1.0, bits);
    qsort(key, ne, sizeof *key, cmp_size);
    m->esm_q = xcalloc(ne, sizeof *m->esm_q, "3D subpixel smoothing", err, errlen);
    m->esm_mat = m->esm_q ? xcalloc(ne, 1, "3D subpixel smoothing", err, errlen) : NULL;
    int rc = m->esm_mat ? 0 : -1;
    size_t kept = 0;
    for (size_t k = 0; k < ne && !rc; k++) {
        const struct sm_edge *t = sm_find(sm, key[k]);
        int idx = t->idx;
        if (t->state == SM_MIXED) {
            const double r = round(t->v * scale) / scale;
            idx = r == 1.0 ? 0 : paint_material(m, MATERIAL_DIELECTRIC, 1.0 / r, 0.0, err, errlen);
            if (idx < 0 && m->nmats == MODEL_MAX_MATERIALS)
                rc = seterr(err, errlen, "3D subpixel smoothing needs more than %d distinct "
                            "materials (the edges' own permittivities, rounded to 1/%g in 1/eps, "
                            "and the scene's; the material index per edge is one byte); set "
                            "[grid] subpixel = false", MODEL_MAX_MATERIALS, scale);
            else if (idx < 0)
                rc = -1;
        }
        const size_t c = key[k] % n;
        if (!rc && idx != m->mat[c]) {
            m->esm_q[kept] = key[k];
            m->esm_mat[kept++] = (uint8_t)idx;
        }
    }
    m->nesm = kept;
    free(key);
    free(inv);
    return rc;
}
