/* test_geometry.c - painting: many objects against a brute-force painting
 * written here from the membership rule of docs/scenes.md; new shapes
 * (polygon, ellipse, rotation) against the shapes they reduce to, bit for
 * bit through the cpu engine; material tables and maps. */
#include "helpers.h"

#include <stdint.h>

/* A small deterministic generator (xorshift64*), so failures repeat. */
static uint64_t rng_state = 88172645463325252ull;
static double rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* Text buffer helpers. */
struct text {
    char *s;
    size_t n, cap;
};
__attribute__((format(printf, 2, 3))) static void add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    const int k = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)k + 1 > t->cap) {
        t->cap = 2 * (t->n + (size_t)k + 1);
        t->s = realloc(t->s, t->cap);
    }
    memcpy(t->s + t->n, buf, (size_t)k + 1);
    t->n += (size_t)k;
}

/* The objects of a random scene, as this test knows them. */
struct obj {
    int circle; /* 1 circle, 0 rectangle */
    int pec;
    double eps, cx, cy, r, w, h;
};

/* Membership written from the documentation: a cell belongs when its Ez
 * node (i, j) is inside, boundary included. */
static int obj_inside(const struct obj *o, double x, double y)
{
    if (o->circle)
        return (x - o->cx) * (x - o->cx) + (y - o->cy) * (y - o->cy) <= o->r * o->r;
    return fabs(x - o->cx) <= o->w / 2 && fabs(y - o->cy) <= o->h / 2;
}

/* N random circles and rectangles (PEC and dielectric, overlapping) in an
 * nx x nx grid; objects[] filled; the scene text returned. */
static char *random_scene(int n, int nx, struct obj *objs, bool pec_only, const char *grid_extra)
{
    struct text t = {0};
    add(&t, "[grid]\nnx = %d\nny = %d\nsteps = 10\n%s\n[source]\ntype = plane_wave\n", nx, nx,
        grid_extra);
    for (int k = 0; k < n; k++) {
        struct obj *o = &objs[k];
        o->circle = rnd() < 0.5;
        o->pec = pec_only || rnd() < 0.3;
        o->eps = 1.5 + floor(rnd() * 8);
        /* centres on quarter cells, sizes 1 .. 12 cells */
        o->r = 0.5 + floor(rnd() * 24) / 4;
        o->w = 1 + floor(rnd() * 44) / 4;
        o->h = 1 + floor(rnd() * 44) / 4;
        const double ext = o->circle ? o->r : fmax(o->w, o->h) / 2;
        o->cx = 2 + ext + floor(rnd() * 4 * (nx - 5 - 2 * ext)) / 4;
        o->cy = 2 + ext + floor(rnd() * 4 * (nx - 5 - 2 * ext)) / 4;
        add(&t, "[object.o%d]\nshape = %s\nmaterial = %s\n", k, o->circle ? "circle" : "rectangle",
            o->pec ? "pec" : "dielectric");
        if (!o->pec)
            add(&t, "eps_r = %g\n", o->eps);
        add(&t, "center_x = %.17g\ncenter_y = %.17g\n", o->cx, o->cy);
        if (o->circle)
            add(&t, "radius = %.17g\n", o->r);
        else
            add(&t, "width = %.17g\nheight = %.17g\n", o->w, o->h);
    }
    return t.s;
}

/* 3000 random objects, staircase painting: every one of 5000 random cells
 * takes the material of the last object whose shape holds its Ez node. */
Test(geometry, many_objects_paint_as_brute_force)
{
    enum { N = 3000, NX = 400 };
    static struct obj objs[N];
    char *text = random_scene(N, NX, objs, false, "subpixel = false");
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    for (int q = 0; q < 5000; q++) {
        const int i = (int)(rnd() * NX), j = (int)(rnd() * NX);
        int last = -1;
        for (int k = 0; k < N; k++)
            if (obj_inside(&objs[k], i, j))
                last = k;
        const struct material *mt = &m->mats[m->mat[(size_t)i + (size_t)j * NX]];
        if (last < 0) {
            cr_assert_eq(mt->kind, MATERIAL_VACUUM, "cell (%d, %d)", i, j);
        } else if (objs[last].pec) {
            cr_assert_eq(mt->kind, MATERIAL_PEC, "cell (%d, %d): object %d", i, j, last);
        } else {
            cr_assert_eq(mt->kind, MATERIAL_DIELECTRIC, "cell (%d, %d): object %d", i, j, last);
            cr_assert_eq(mt->eps_r, objs[last].eps, "cell (%d, %d)", i, j);
        }
    }
    setup_free(&t);
    free(text);
}

/* Subpixel smoothing of separate dielectric rods on vacuum: a cell's eps is
 * f eps_rod + (1 - f), f the cover fraction counted here by 16 x 16 midpoint
 * samples and rounded to 1/64 (docs/scenes.md). */
Test(geometry, many_rods_smoothed_as_brute_force)
{
    enum { R = 40, NX = 10 * R + 20 };
    struct text t = {0};
    add(&t, "[grid]\nnx = %d\nny = %d\nsteps = 10\n[source]\ntype = plane_wave\n", NX, NX);
    static struct obj objs[R * R];
    for (int k = 0; k < R * R; k++) {
        struct obj *o = &objs[k];
        *o = (struct obj){.circle = 1, .eps = 2 + k % 5, .r = 1.5 + 2.5 * rnd(),
                          .cx = 10 + 10 * (k % R) + rnd(), .cy = 10 + 10 * (k / R) + rnd()};
        add(&t, "[object.r%d]\nshape = circle\nmaterial = dielectric\neps_r = %g\n"
                "center_x = %.17g\ncenter_y = %.17g\nradius = %.17g\n",
            k, o->eps, o->cx, o->cy, o->r);
    }
    struct test_setup s;
    setup_from_text(&s, t.s, NULL, 0);
    for (int q = 0; q < 4000; q++) {
        const int i = 5 + (int)(rnd() * (NX - 10)), j = 5 + (int)(rnd() * (NX - 10));
        /* the rod of this pitch cell; neighbours are at least 1 cell away */
        double eps = 1.0;
        for (int k = 0; k < R * R; k++) {
            const struct obj *o = &objs[k];
            if (fabs(o->cx - i) > 6 || fabs(o->cy - j) > 6)
                continue;
            int in = 0;
            for (int b = 0; b < 16; b++)
                for (int a = 0; a < 16; a++)
                    in += obj_inside(o, i - 0.5 + (a + 0.5) / 16, j - 0.5 + (b + 0.5) / 16);
            const long f = lround(in * 64.0 / 256);
            if (f)
                eps = f == 64 ? o->eps : (f / 64.0) * o->eps + (1.0 - f / 64.0) * 1.0;
        }
        const struct material *mt = &s.model.mats[s.model.mat[(size_t)i + (size_t)j * NX]];
        cr_assert_eq(mt->eps_r, eps, "cell (%d, %d): eps %.17g, expected %.17g", i, j, mt->eps_r,
                     eps);
    }
    setup_free(&s);
    free(t.s);
}

/* Conformal PEC among 1500 random PEC circles and rectangles: every cut
 * edge's distance is the nearest surface along the edge from its free node,
 * found here by trying every object (circle: the quadratic's smaller root;
 * rectangle: the near side), or 1 beyond 2 cells. */
static double brute_ray(const struct obj *o, double x, double y, int ux, int uy)
{
    double best = INFINITY;
    for (int step = 1; step <= 2000; step++) { /* march in 1/1000 cells, then refine */
        const double s = step / 1000.0;
        if (obj_inside(o, x + s * ux, y + s * uy)) {
            double lo = s - 1e-3, hi = s;
            for (int it = 0; it < 60; it++) {
                const double mid = 0.5 * (lo + hi);
                if (obj_inside(o, x + mid * ux, y + mid * uy))
                    hi = mid;
                else
                    lo = mid;
            }
            best = hi;
            break;
        }
    }
    return best;
}

Test(geometry, many_pec_objects_conformal_distances, .timeout = 120)
{
    enum { N = 1500, NX = 400 };
    static struct obj objs[N];
    char *text = random_scene(N, NX, objs, true, "conformal_pec = true\nconformal_min = 0.25");
    struct test_setup t;
    setup_from_text(&t, text, NULL, 0);
    const struct model *m = &t.model;
    cr_assert_gt(m->ncut, 1000);
    for (size_t k = 0; k < m->ncut; k += m->ncut / 2000 + 1) {
        const struct cut_edge *e = &m->cut[k];
        const int qi = (int)(e->q % NX), qj = (int)(e->q / NX);
        const int ux = e->comp == 1 ? -e->sigma : 0, uy = e->comp == 0 ? -e->sigma : 0;
        double d = INFINITY;
        for (int o = 0; o < N; o++) {
            const double ex = objs[o].circle ? objs[o].r : objs[o].w / 2;
            const double ey = objs[o].circle ? objs[o].r : objs[o].h / 2;
            if (fabs(objs[o].cx - qi) <= ex + 2.5 && fabs(objs[o].cy - qj) <= ey + 2.5)
                d = fmin(d, brute_ray(&objs[o], qi, qj, ux, uy));
        }
        if (fabs(d - 2.0) < 1e-6) /* a surface at 2 cells: either side of the cutoff */
            continue;
        d = d < 2.0 ? d : 1.0;
        cr_assert(fabs(e->d - d) < 2e-3, "edge at node (%d, %d) dir (%d, %d): d = %.6f, brute %.6f",
                  qi, qj, ux, uy, e->d, d);
    }
    setup_free(&t);
    free(text);
}
