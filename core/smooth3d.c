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
    uint64_t key;  /* edge q + 1 (q = comp * ncells + c); 0: an empty slot */
    float e, v, an2; /* float: the result is rounded to 2^-12 in 1/eps */
    uint8_t state;
    uint8_t idx;   /* SM_PURE: the object's material */
};

/* The cover of the last object's box (its corners lo .. lo + nb - 1, clipped
 * to the grid): per edge [a][box] the fraction f of its cube inside the
 * object and n_a^2, per corner whether it is inside.  Kept for the next
 * object of the same shape and size whose centre has the same fraction of a
 * cell (a lattice of equal spheres or boxes is sampled once): with centre
 * coordinates multiples of 1/32 (below 2^20) every offset from the centre
 * is exact, and the cover depends on the offsets only. */
struct sm_cover {
    bool valid;
    struct scene_object key; /* shape, sizes, the centre's fraction */
    int d[3], nb[3];         /* box start minus floor(centre); box size */
    float *f, *an2;          /* [3][box] */
    uint8_t *in;             /* [box] */
    size_t cap;
};

/* Open addressing, linear probing; an edge once added stays (SM_STAIR
 * stands for a removed one).  has: a bit per edge of the grid (3 ncells),
 * set for the edges in the table, so that the many edges never added cost
 * no probe. */
#define SM_COVERS 8 /* a lattice's centres fall on up to 8 fractions (2 per axis) */
struct smooth3d {
    struct sm_edge *t;
    size_t cap, used; /* cap a power of two */
    uint8_t *has;
    struct sm_cover cv[SM_COVERS];
    int next_cv; /* the one to replace next */
    double *rows; /* a sphere's half chords (cover_of) */
    size_t rows_cap;
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
    if (sm) {
        free(sm->t);
        free(sm->has);
        free(sm->rows);
        for (int k = 0; k < SM_COVERS; k++) {
            free(sm->cv[k].f);
            free(sm->cv[k].an2);
            free(sm->cv[k].in);
        }
    }
    free(sm);
}

static size_t sm_hash(size_t q, size_t cap)
{
    uint64_t h = (uint64_t)q * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static struct sm_edge *sm_find(const struct smooth3d *sm, size_t q)
{
    if (!sm->has || !(sm->has[q >> 3] >> (q & 7) & 1))
        return NULL;
    for (size_t s = sm_hash(q, sm->cap);; s = (s + 1) & (sm->cap - 1)) {
        if (sm->t[s].key == q + 1)
            return &sm->t[s];
        if (sm->t[s].key == 0)
            return NULL;
    }
}

/* Edge q's entry, added (SM_STAIR) if new; NULL when out of memory.
 * nedges: 3 ncells (the bit per edge). */
static struct sm_edge *sm_get(struct smooth3d *sm, size_t q, size_t nedges)
{
    struct sm_edge *x = sm_find(sm, q);
    if (x)
        return x;
    if (!sm->has && !(sm->has = calloc(nedges / 8 + 1, 1)))
        return NULL;
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
    sm->has[q >> 3] |= (uint8_t)(1u << (q & 7));
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

/* The fraction of the unit cube of E component a at corner (i, j, k)
 * inside sphere o, and the unit normal n there (along the radius; 0 when
 * the cube is all inside or all outside): the mean over 16 x 16 rows along
 * x (midpoints in y and z) of each row's exact chord within the cube, the
 * rows' half chords h from cover_of (lattice ry wide from the box's corner
 * lo). */
static double sphere_cover(const struct scene_object *o, const double *h, int ry, int i, int j,
                           int k, const int lo[3], int a, double n[3])
{
    n[0] = n[1] = n[2] = 0.0;
    const double dx = i + (a == 0 ? 0.5 : 0.0) - o->center_x;
    const double dy = j + (a == 1 ? 0.5 : 0.0) - o->center_y;
    const double dz = k + (a == 2 ? 0.5 : 0.0) - o->center_z;
    const double d = sqrt(dx * dx + dy * dy + dz * dz), r = o->radius;
    if (d - r >= 0.87) /* sqrt(3)/2: the cube lies within that of its centre */
        return 0.0;
    if (r - d >= 0.87)
        return 1.0;
    /* the cube's rows: y = j + (a == 1)/2 - 1/2 + (u + 1/2)/16, the lattice's
     * row (j - lo_y) 16 + 8 (a == 1) + u */
    const int u0 = (j - lo[1]) * PAINT_SUBPIXEL_SAMPLES + (a == 1 ? PAINT_SUBPIXEL_SAMPLES / 2 : 0);
    const int t0 = (k - lo[2]) * PAINT_SUBPIXEL_SAMPLES + (a == 2 ? PAINT_SUBPIXEL_SAMPLES / 2 : 0);
    const double x0 = dx - 0.5, x1 = dx + 0.5;
    /* four sums side by side (no branch: a missing row's h = -1 overlaps
     * by at most -2, taken as 0) */
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
    for (int t = 0; t < PAINT_SUBPIXEL_SAMPLES; t++) {
        const double *row = h + (size_t)(t0 + t) * ry + u0;
        for (int u = 0; u < PAINT_SUBPIXEL_SAMPLES; u++)
            acc[u & 3] += paint_overlap(x0, x1, -row[u], row[u]);
    }
    double f = ((acc[0] + acc[1]) + (acc[2] + acc[3])) / (PAINT_SUBPIXEL_SAMPLES * PAINT_SUBPIXEL_SAMPLES);
    if (d > 0.0 && f > 0.0 && f < 1.0) {
        n[0] = dx / d;
        n[1] = dy / d;
        n[2] = dz / d;
    }
    return f;
}

/* The fraction of the unit cube centred on (x, y, z) inside o (a box or an
 * extruded polygon), and a unit normal n of o's boundary there (0 when the
 * cube is all inside or all outside): the 2D cover of the cross-section
 * (paint_square_cover: exact for an unturned box) times the overlap along
 * z; n the 2D normal where only the sides cross the cube, z where only a
 * cap does, and between them (weighted by the other factor's cover) at a
 * rim. */
static double cube_cover(const struct scene_object *o, double x, double y, double z, double n[3])
{
    n[0] = n[1] = n[2] = 0.0;
    /* the cross-section as a 2D shape: a box's is its rectangle, a polygon
     * is its own (paint_inside at z = 0 with depth 0) */
    struct scene_object s = *o;
    s.shape = o->shape == SHAPE_BOX ? SHAPE_RECTANGLE : o->shape;
    s.center_z = 0.0;
    s.depth = 0.0;
    double ux, uy;
    const double f2 = paint_square_cover(&s, x, y, &ux, &uy);
    const double dz = z - o->center_z; /* offsets only (struct sm_cover) */
    const double fz = paint_overlap(dz - 0.5, dz + 0.5, -0.5 * o->depth, 0.5 * o->depth);
    const double f = f2 * fz;
    if (f > 0.0 && f < 1.0) {
        const double uz = fz < 1.0 ? (dz > 0.0 ? 1.0 : -1.0) : 0.0;
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

/* The cover of o over the corners lo .. hi into *out: one of sm->cv, kept
 * from an earlier object where it may be (struct sm_cover).  0, or -1 when
 * out of memory. */
static int cover_of(struct smooth3d *sm, const struct scene_object *o, const int lo[3],
                    const int hi[3], const struct sm_cover **out)
{
    const bool cacheable = (o->shape == SHAPE_SPHERE || (o->shape == SHAPE_BOX && !o->rotated))
                           && paint_dyadic(o->center_x) && paint_dyadic(o->center_y) && paint_dyadic(o->center_z);
    const double fc[3] = {floor(o->center_x), floor(o->center_y), floor(o->center_z)};
    const struct scene_object key = {.shape = o->shape, .radius = o->radius, .width = o->width,
                                     .height = o->height, .depth = o->depth,
                                     .center_x = o->center_x - fc[0],
                                     .center_y = o->center_y - fc[1],
                                     .center_z = o->center_z - fc[2]};
    int d[3], nb[3];
    for (int a = 0; a < 3; a++) {
        d[a] = lo[a] - (int)fc[a];
        nb[a] = hi[a] - lo[a] + 1;
    }
    for (int q = 0; q < SM_COVERS && cacheable; q++) {
        const struct sm_cover *cv = &sm->cv[q];
        if (cv->valid && !memcmp(d, cv->d, sizeof d) && !memcmp(nb, cv->nb, sizeof nb)
            && key.shape == cv->key.shape && key.radius == cv->key.radius
            && key.width == cv->key.width && key.height == cv->key.height
            && key.depth == cv->key.depth && key.center_x == cv->key.center_x
            && key.center_y == cv->key.center_y && key.center_z == cv->key.center_z) {
            *out = cv;
            return 0;
        }
    }
    struct sm_cover *cv = &sm->cv[sm->next_cv];
    sm->next_cv = (sm->next_cv + 1) % SM_COVERS;
    *out = cv;
    const size_t box = (size_t)nb[0] * (size_t)nb[1] * (size_t)nb[2];
    if (box > cv->cap) {
        free(cv->f);
        free(cv->an2);
        free(cv->in);
        cv->f = malloc(3 * box * sizeof *cv->f);
        cv->an2 = malloc(3 * box * sizeof *cv->an2);
        cv->in = malloc(box);
        cv->cap = box;
        if (!cv->f || !cv->an2 || !cv->in) {
            cv->cap = 0;
            cv->valid = false;
            return -1;
        }
    }
    /* a sphere: the half chords along x of the rows y = lo_y - 1/2 + (s + 1/2)/16,
     * z likewise (every edge's cube takes 16 x 16 of them: cube_cover's
     * rows, shared by the edges), -1 where a row misses */
    const int ry = 16 * nb[1] + 8, rz = 16 * nb[2] + 8;
    const bool sphere = o->shape == SHAPE_SPHERE;
    if (sphere) {
        const size_t nr = (size_t)ry * (size_t)rz;
        if (nr > sm->rows_cap) {
            free(sm->rows);
            if (!(sm->rows = malloc(nr * sizeof *sm->rows))) {
                sm->rows_cap = 0;
                cv->valid = false;
                return -1;
            }
            sm->rows_cap = nr;
        }
        const double r2 = o->radius * o->radius;
        for (int t = 0; t < rz; t++) {
            const double dz = (lo[2] - o->center_z) - 0.5 + (t + 0.5) / PAINT_SUBPIXEL_SAMPLES;
            for (int u = 0; u < ry; u++) {
                const double dy = (lo[1] - o->center_y) - 0.5 + (u + 0.5) / PAINT_SUBPIXEL_SAMPLES;
                const double h2 = r2 - dy * dy - dz * dz;
                sm->rows[(size_t)t * ry + u] = h2 > 0.0 ? sqrt(h2) : -1.0;
            }
        }
    }
    /* the rows (j, k) of the box over the threads: an object's cover is
     * independent of every other's, and a box of a few hundred corners is
     * already worth it (a sphere of radius 3: 0.6 ms on one core) */
    const int nrow = nb[1] * nb[2];
    const double *rows = sm->rows;
#pragma omp parallel for schedule(static) if (box >= 512)
    for (int r = 0; r < nrow; r++) {
        const int j = lo[1] + r % nb[1], k = lo[2] + r / nb[1];
        size_t b = (size_t)r * (size_t)nb[0];
        for (int i = lo[0]; i <= hi[0]; i++, b++) {
                cv->in[b] = paint_inside(o, i, j, k);
                for (int a = 0; a < 3; a++) {
                    double nv[3];
                    const double f = sphere ? sphere_cover(o, rows, ry, i, j, k, lo, a, nv)
                                            : cube_cover(o, i + (a == 0 ? 0.5 : 0.0),
                                                         j + (a == 1 ? 0.5 : 0.0),
                                                         k + (a == 2 ? 0.5 : 0.0), nv);
                    /* f exactly 0 and 1 kept as such (the states below) */
                    cv->f[(size_t)a * box + b] = f == 0.0 || f == 1.0 ? (float)f
                                                 : fminf(fmaxf((float)f, 0x1p-24f), 1.0f - 0x1p-24f);
                    cv->an2[(size_t)a * box + b] = (float)(nv[a] * nv[a]);
                }
        }
    }
    cv->valid = cacheable;
    cv->key = key;
    memcpy(cv->d, d, sizeof d);
    memcpy(cv->nb, nb, sizeof nb);
    return 0;
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
    const struct sm_cover *cv;
    if (cover_of(sm, o, lo, hi, &cv))
        return seterr(err, errlen, "out of memory smoothing object %s", o->name);
    const size_t box = (size_t)cv->nb[0] * (size_t)cv->nb[1] * (size_t)cv->nb[2];
    size_t b = 0;
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++, b++) {
                const size_t c = (size_t)i + nx * (size_t)j + plane * (size_t)k;
                const int ijk[3] = {i, j, k};
                const bool corner_in = cv->in[b];
                for (int a = 0; a < 3; a++) {
                    const double f = cv->f[(size_t)a * box + b];
                    const size_t q = (size_t)a * n + c;
                    /* the staircase gives the corner o's material where
                     * the corner is inside o; where that disagrees with
                     * the cube's cover (a corner on o's surface) the
                     * edge keeps what the cover says */
                    struct sm_edge *t = sm_find(sm, q);
                    if (f == 0.0 || f == 1.0) {
                        const bool stair = !t || t->state == SM_STAIR;
                        if (f == 1.0 && (!stair || !corner_in))
                            t = sm_get(sm, q, 3 * n);
                        else if (f == 0.0 && stair && corner_in && smoothable(&m->mats[m->mat[c]]))
                            t = sm_get(sm, q, 3 * n);
                        else
                            continue;
                        if (!t)
                            return seterr(err, errlen, "out of memory smoothing object %s", o->name);
                        if (f == 1.0 || t->state == SM_STAIR)
                            *t = (struct sm_edge){.key = q + 1, .state = SM_PURE,
                                                  .idx = (uint8_t)(f == 1.0 ? idx : m->mat[c])};
                        continue;
                    }
                    if (!t && !(t = sm_get(sm, q, 3 * n)))
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
                        const size_t dn = ijk[a] + 1 < nn[a] ? c + step[a] : c;
                        const struct material *u = &m->mats[m->mat[c]];
                        if (!smoothable(u) || !smoothable(&m->mats[m->mat[dn]]))
                            continue;
                        eo = u->eps_r;
                        io = 1.0 / eo;
                    }
                    t->state = SM_MIXED;
                    t->e = (float)(f * eps_o + (1.0 - f) * eo);
                    t->v = (float)(f / eps_o + (1.0 - f) * io);
                    t->an2 = cv->an2[(size_t)a * box + b];
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

/* The number of distinct multiples of 1/2^bits among the (eps^-1)_aa of
 * the mixed edges (values in [1e-4, 1], eps_r in [1, 1e4]; rounded to at
 * least one step). */
static size_t distinct(struct sm_edge *const *e, size_t ne, int bits, uint8_t *seen)
{
    const double scale = ldexp(1.0, bits);
    memset(seen, 0, ((size_t)1 << bits) + 1);
    size_t d = 0;
    for (size_t k = 0; k < ne; k++)
        if (e[k]->state == SM_MIXED) {
            const size_t u = (size_t)fmax(1.0, round(e[k]->v * scale));
            d += !seen[u];
            seen[u] = 1;
        }
    return d;
}

int smooth3d_finish(struct smooth3d *sm, struct model *m, char *err, size_t errlen)
{
    const size_t nx = (size_t)m->nx, plane = nx * (size_t)m->ny, n = m->ncells;
    const size_t step[3] = {1, nx, plane};
    const int nn[3] = {m->nx, m->ny, m->nz};
    if (!sm->used)
        return 0;
    /* the edges that stay smoothed, in increasing q (the bit per edge walked
     * in order): both ends' final materials may mix */
    struct sm_edge **e = xcalloc(sm->used, sizeof *e, "3D subpixel smoothing", err, errlen);
    uint8_t *seen = e ? xcalloc(((size_t)1 << SM_ROUND_BITS) + 1, 1, "3D subpixel smoothing", err,
                                errlen)
                      : NULL;
    if (!seen) {
        free(e);
        return -1;
    }
    size_t ne = 0;
    const size_t words = (3 * n) / 8 + 1;
    for (size_t w = 0; w < words; w++) {
        if (!sm->has[w])
            continue;
        for (int bit = 0; bit < 8; bit++) {
            if (!(sm->has[w] >> bit & 1))
                continue;
            const size_t q = 8 * w + (size_t)bit, c = q % n;
            struct sm_edge *t = sm_find(sm, q);
            if (t->state == SM_STAIR)
                continue;
            const int a = (int)(q / n);
            const int ijk[3] = {(int)(c % nx), (int)(c / nx % (size_t)m->ny), (int)(c / plane)};
            const size_t d = ijk[a] + 1 < nn[a] ? c + step[a] : c;
            if (!smoothable(&m->mats[m->mat[c]]) || !smoothable(&m->mats[m->mat[d]]))
                continue;
            if (t->state == SM_MIXED) /* (eps^-1)_aa into v */
                t->v = (float)(t->an2 * (double)t->v + (1.0 - t->an2) / t->e);
            e[ne++] = t;
        }
    }
    /* the finest rounding whose materials fit the table (room for the 7
     * PEC variants of cpu3d_e_materials) */
    bool pec = false;
    for (int q = 0; q < m->nmats; q++)
        pec |= m->mats[q].kind == MATERIAL_PEC;
    const size_t room = MODEL_MAX_MATERIALS - (size_t)m->nmats - (pec ? 7 : 0);
    int bits = SM_ROUND_BITS;
    while (bits > SM_ROUND_BITS_MIN && distinct(e, ne, bits, seen) > room)
        bits--;
    const double scale = ldexp(1.0, bits);
    m->esm_q = ne ? xcalloc(ne, sizeof *m->esm_q, "3D subpixel smoothing", err, errlen) : NULL;
    m->esm_mat = m->esm_q ? xcalloc(ne, 1, "3D subpixel smoothing", err, errlen) : NULL;
    int rc = m->esm_mat || !ne ? 0 : -1;
    size_t kept = 0;
    /* the material of each rounded value, once (paint_material searches) */
    int memo[(1 << SM_ROUND_BITS) + 1];
    for (int v = 0; v <= (1 << SM_ROUND_BITS); v++)
        memo[v] = -1;
    for (size_t k = 0; k < ne && !rc; k++) {
        const struct sm_edge *t = e[k];
        const size_t q = t->key - 1;
        int idx = t->idx;
        if (t->state == SM_MIXED) {
            /* at least one step: eps_r up to 1e4 would round to 1/eps = 0 */
            const size_t u = (size_t)fmax(1.0, round(t->v * scale));
            idx = memo[u] >= 0 ? memo[u]
                  : u == (size_t)scale
                      ? 0
                      : paint_material(m, MATERIAL_DIELECTRIC, scale / (double)u, 0.0, err, errlen);
            if (idx < 0 && m->nmats == MODEL_MAX_MATERIALS)
                rc = seterr(err, errlen, "3D subpixel smoothing needs more than %d distinct "
                            "materials (the edges' own permittivities, rounded to 1/%g in 1/eps, "
                            "and the scene's; the material index per edge is one byte); set "
                            "[grid] subpixel = false", MODEL_MAX_MATERIALS, scale);
            else if (idx < 0)
                rc = -1;
            else
                memo[u] = idx;
        }
        if (!rc && idx != m->mat[q % n]) {
            m->esm_q[kept] = q;
            m->esm_mat[kept++] = (uint8_t)idx;
        }
    }
    m->nesm = kept;
    free(e);
    free(seen);
    return rc;
}
