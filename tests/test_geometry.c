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

/* The fraction of the cell around (i, j) inside object o.  A circle by columns: at
 * each of 2000 x midpoints the chord's overlap with [j - 1/2, j + 1/2] is
 * exact, so only the sum over x errs (by about 1e-5, at the tangents). */
static double circle_cover(const struct obj *o, int i, int j)
{
    if (!o->circle) {
        /* an axis-aligned rectangle: the overlap of the intervals on each axis */
        const double ox = fmin(i + 0.5, o->cx + 0.5 * o->w) - fmax(i - 0.5, o->cx - 0.5 * o->w);
        const double oy = fmin(j + 0.5, o->cy + 0.5 * o->h) - fmax(j - 0.5, o->cy - 0.5 * o->h);
        return ox > 0 && oy > 0 ? ox * oy : 0;
    }
    const int n = 2000;
    double s = 0;
    for (int a = 0; a < n; a++) {
        const double x = i - 0.5 + (a + 0.5) / n - o->cx, h2 = o->r * o->r - x * x;
        if (h2 <= 0)
            continue;
        const double h = sqrt(h2);
        const double lo = fmax(j - 0.5, o->cy - h), hi = fmin(j + 0.5, o->cy + h);
        if (hi > lo)
            s += hi - lo;
    }
    return s / n;
}

/* Subpixel smoothing of separate dielectric rods on vacuum: a cell's eps is
 * f eps_rod + (1 - f), f the cell's covered area (exact for circles and
 * rectangles) rounded
 * to 1/64 (docs/scenes.md); where 64 f lies within 0.01 of a rounding
 * boundary, either neighbour is accepted. */
Test(geometry, many_rods_smoothed_as_brute_force)
{
    enum { R = 40, NX = 10 * R + 20 };
    struct text t = {0};
    add(&t, "[grid]\nnx = %d\nny = %d\nsteps = 10\n[source]\ntype = plane_wave\n", NX, NX);
    static struct obj objs[R * R];
    for (int k = 0; k < R * R; k++) {
        struct obj *o = &objs[k];
        /* circles and rectangles; pairs of equal objects on the lattice (the
         * second reuses the first's cover levels), the others anywhere */
        const bool lattice = k % 4 < 2;
        *o = (struct obj){.circle = (k / 4) % 2, .eps = 2 + k % 5,
                          .r = lattice ? 3.25 : 1.5 + 2.5 * rnd(),
                          .w = lattice ? 5.5 : 1 + 6 * rnd(), .h = lattice ? 3 : 1 + 6 * rnd(),
                          .cx = 10 + 10 * (k % R) + (lattice ? 0.25 : rnd()),
                          .cy = 10 + 10 * (k / R) + (lattice ? 0.5 : rnd())};
        add(&t, "[object.r%d]\nshape = %s\nmaterial = dielectric\neps_r = %g\n"
                "center_x = %.17g\ncenter_y = %.17g\n",
            k, o->circle ? "circle" : "rectangle", o->eps, o->cx, o->cy);
        if (o->circle)
            add(&t, "radius = %.17g\n", o->r);
        else
            add(&t, "width = %.17g\nheight = %.17g\n", o->w, o->h);
    }
    struct test_setup s;
    setup_from_text(&s, t.s, NULL, 0);
    for (int q = 0; q < 4000; q++) {
        const int i = 5 + (int)(rnd() * (NX - 10)), j = 5 + (int)(rnd() * (NX - 10));
        /* the rod of this pitch cell; neighbours are at least 1 cell away */
        double eps[2] = {1.0, 1.0};
        for (int k = 0; k < R * R; k++) {
            const struct obj *o = &objs[k];
            if (fabs(o->cx - i) > 6 || fabs(o->cy - j) > 6)
                continue;
            const double x = 64.0 * circle_cover(o, i, j);
            for (int c = 0; c < 2; c++) {
                const long f = lround(x + (c ? 0.01 : -0.01));
                if (f)
                    eps[c] = f == 64 ? o->eps : (f / 64.0) * o->eps + (1.0 - f / 64.0) * 1.0;
            }
        }
        const struct material *mt = &s.model.mats[s.model.mat[(size_t)i + (size_t)j * NX]];
        cr_assert(mt->eps_r == eps[0] || mt->eps_r == eps[1],
                  "cell (%d, %d): eps %.17g, expected %.17g or %.17g", i, j, mt->eps_r, eps[0],
                  eps[1]);
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

/* ---- new shapes: bit-identical to the shapes they trace ------------------ */

/* Run scene text a and b (with the same overrides) through the cpu engine in
 * float, flush, and require the three fields to be bit-identical, and the
 * material maps to be equal. */
static void same_fields(const char *a, const char *b, const char *const *sets, int nset)
{
    struct test_setup ta, tb;
    setup_from_text(&ta, a, sets, nset);
    setup_from_text(&tb, b, sets, nset);
    cr_assert_eq(ta.model.ncells, tb.model.ncells);
    cr_assert_eq(ta.model.nmats, tb.model.nmats);
    for (size_t c = 0; c < ta.model.ncells; c++)
        cr_assert_eq(ta.model.mats[ta.model.mat[c]].eps_r, tb.model.mats[tb.model.mat[c]].eps_r,
                     "cell %zu", c);
    cr_assert_eq(ta.model.ncut, tb.model.ncut);
    for (size_t k = 0; k < ta.model.ncut; k++)
        cr_assert_eq(ta.model.cut[k].d, tb.model.cut[k].d, "cut edge %zu", k);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH};
    void *fa[3], *fb[3];
    char err[ERRLEN];
    cr_assert_eq(run_engine("cpu", &ta.model, &o, 150, fa, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run_engine("cpu", &tb.model, &o, 150, fb, err, sizeof err), 0, "%s", err);
    for (int k = 0; k < 3; k++)
        cr_assert_eq(memcmp(fa[k], fb[k], ta.model.ncells * sizeof(float)), 0, "field %d differs",
                     k);
    free_fields(fa);
    free_fields(fb);
    setup_free(&ta);
    setup_free(&tb);
}

#define GRID "[grid]\nnx = 72\nny = 64\nsteps = 150\n[source]\nangle = 30\nfront_offset = 10\n" \
             "[boundary]\ntype = cpml\ncells = 6\n"

/* A rectangle with faces on and between nodes (width 10 on a node, height
 * 7.5 between), PEC and dielectric, and the polygon of its corners. */
static const char *rect_scene = GRID "[object.r]\nshape = rectangle\nmaterial = pec\n"
                                     "center_x = 30\ncenter_y = 28.25\nwidth = 10\nheight = 7.5\n"
                                     "[object.d]\nshape = rectangle\nmaterial = dielectric\n"
                                     "eps_r = 3\ncenter_x = 50.5\ncenter_y = 34\nwidth = 9\n"
                                     "height = 13\n";
static const char *poly_scene = GRID "[object.r]\nshape = polygon\nmaterial = pec\n"
                                     "vertices = 25 24.5, 35 24.5, 35 32, 25 32\n"
                                     "[object.d]\nshape = polygon\nmaterial = dielectric\n"
                                     "eps_r = 3\nvertices = 46 27.5, 46 40.5,\n"
                                     "   55 40.5, 55 27.5\n"; /* clockwise, continued */

Test(geometry, polygon_tracing_a_rectangle_is_the_rectangle)
{
    const char *off[] = {"grid.subpixel=false"};
    same_fields(rect_scene, poly_scene, off, 1);
}

Test(geometry, polygon_tracing_a_rectangle_smoothed)
{
    same_fields(rect_scene, poly_scene, NULL, 0); /* subpixel on: the default in 2D */
}

Test(geometry, polygon_tracing_a_rectangle_conformal)
{
    const char *on[] = {"grid.conformal_pec=true"};
    same_fields(rect_scene, poly_scene, on, 1);
}

Test(geometry, ellipse_with_equal_axes_is_the_circle)
{
    const char *circle = GRID "[object.c]\nshape = circle\nmaterial = pec\ncenter_x = 30.3\n"
                              "center_y = 31.7\nradius = 8.6\n[object.e]\nshape = circle\n"
                              "material = dielectric\neps_r = 4\ncenter_x = 52\ncenter_y = 30\n"
                              "radius = 6.2\n";
    const char *ellipse = GRID "[object.c]\nshape = ellipse\nmaterial = pec\ncenter_x = 30.3\n"
                               "center_y = 31.7\nradius_x = 8.6\nradius_y = 8.6\n[object.e]\n"
                               "shape = ellipse\nmaterial = dielectric\neps_r = 4\n"
                               "center_x = 52\ncenter_y = 30\nradius_x = 6.2\nradius_y = 6.2\n"
                               "rotation = 17\n";
    const char *on[] = {"grid.conformal_pec=true"};
    same_fields(circle, ellipse, NULL, 0);
    same_fields(circle, ellipse, on, 1);
}

Test(geometry, rectangle_turned_90_degrees_is_the_transposed_rectangle)
{
    const char *wh = GRID "[object.r]\nshape = rectangle\nmaterial = pec\ncenter_x = 30\n"
                          "center_y = 28\nwidth = 6.5\nheight = 13\n[object.d]\n"
                          "shape = rectangle\nmaterial = dielectric\neps_r = 2.5\ncenter_x = 52\n"
                          "center_y = 33\nwidth = 5\nheight = 9.5\n";
    const char *hw = GRID "[object.r]\nshape = rectangle\nmaterial = pec\ncenter_x = 30\n"
                          "center_y = 28\nwidth = 13\nheight = 6.5\nrotation = 90\n[object.d]\n"
                          "shape = rectangle\nmaterial = dielectric\neps_r = 2.5\ncenter_x = 52\n"
                          "center_y = 33\nwidth = 9.5\nheight = 5\nrotation = -270\n";
    const char *on[] = {"grid.conformal_pec=true"};
    same_fields(wh, hw, NULL, 0);
    same_fields(wh, hw, on, 1);
    /* and a polygon turned 180 degrees about its mean is itself */
    const char *tri = GRID "[object.r]\nshape = polygon\nmaterial = pec\n"
                           "vertices = 20 20, 40 20, 40 36, 20 36\n";
    const char *tri_turned = GRID "[object.r]\nshape = polygon\nmaterial = pec\n"
                                  "vertices = 20 20, 40 20, 40 36, 20 36\nrotation = 180\n";
    same_fields(tri, tri_turned, on, 1);
}

/* A rotated rectangle and an ellipse against this file's own membership:
 * the Ez node turned back into the shape's frame. */
Test(geometry, rotated_shapes_paint_their_nodes)
{
    const double th = 30 * M_PI / 180, c = cos(th), s = sin(th);
    const char *text = GRID "[object.r]\nshape = rectangle\nmaterial = pec\n"
                            "center_x = 25\ncenter_y = 30\nwidth = 14\nheight = 6\nrotation = 30\n"
                            "[object.e]\nshape = ellipse\nmaterial = dielectric\neps_r = 2\n"
                            "center_x = 52\ncenter_y = 32\nradius_x = 9\nradius_y = 4\n"
                            "rotation = 30\n";
    const char *sets[] = {"grid.subpixel=false"};
    struct test_setup t;
    setup_from_text(&t, text, sets, 1);
    int nr = 0, ne = 0;
    for (int j = 0; j < 64; j++)
        for (int i = 0; i < 72; i++) {
            double dx = i - 25, dy = j - 30;
            double lx = c * dx + s * dy, ly = -s * dx + c * dy;
            const bool in_r = fabs(lx) <= 7 + 1e-9 && fabs(ly) <= 3 + 1e-9;
            const bool sure_r = fabs(fabs(lx) - 7) > 1e-6 && fabs(fabs(ly) - 3) > 1e-6;
            dx = i - 52, dy = j - 32;
            lx = c * dx + s * dy, ly = -s * dx + c * dy;
            const double q = lx * lx / 81 + ly * ly / 16;
            const struct material *mt = &t.model.mats[t.model.mat[(size_t)i + (size_t)j * 72]];
            if (fabs(q - 1) > 1e-9)
                cr_assert_eq(mt->kind == MATERIAL_DIELECTRIC, q < 1, "ellipse node (%d, %d)", i, j);
            if (sure_r)
                cr_assert_eq(mt->kind == MATERIAL_PEC, in_r, "rectangle node (%d, %d)", i, j);
            nr += in_r;
            ne += q < 1;
        }
    cr_assert_gt(nr, 60);
    cr_assert_gt(ne, 90);
    setup_free(&t);
}

/* 3D: a polygon prism (vertices in x, y; center_z and depth in z) tracing a
 * box paints the box's cells; a box turned 90 degrees, the transposed box. */
Test(geometry, prism_and_turned_box_in_3d)
{
#define G3 "[grid]\nnx = 40\nny = 36\nnz = 30\nsteps = 20\n[source]\ntype = point\n" \
           "center_x = 5\ncenter_y = 5\ncenter_z = 5\n"
    const char *box = G3 "[object.b]\nshape = box\nmaterial = pec\ncenter_x = 20\n"
                         "center_y = 17.5\ncenter_z = 14\nwidth = 10\nheight = 7\ndepth = 9\n"
                         "[object.c]\nshape = box\nmaterial = dielectric\neps_r = 2\n"
                         "center_x = 12\ncenter_y = 12\ncenter_z = 14\nwidth = 4\nheight = 9\n"
                         "depth = 6\n";
    const char *prism = G3 "[object.b]\nshape = polygon\nmaterial = pec\n"
                           "vertices = 15 14, 25 14, 25 21, 15 21\ncenter_z = 14\ndepth = 9\n"
                           "[object.c]\nshape = box\nmaterial = dielectric\neps_r = 2\n"
                           "center_x = 12\ncenter_y = 12\ncenter_z = 14\nwidth = 9\n"
                           "height = 4\ndepth = 6\nrotation = 90\n";
    struct test_setup a, b;
    setup_from_text(&a, box, NULL, 0);
    setup_from_text(&b, prism, NULL, 0);
    for (size_t c = 0; c < a.model.ncells; c++)
        cr_assert_eq(a.model.mats[a.model.mat[c]].eps_r, b.model.mats[b.model.mat[c]].eps_r,
                     "cell %zu", c);
    setup_free(&a);
    setup_free(&b);
#undef G3
}

/* ---- material maps ---------------------------------------------------------- */

#include <hdf5.h>
#include <png.h>

/* Write an RGB PNG of w x h pixels with libpng; rgb rows top first. */
static void write_png(const char *path, const uint8_t *rgb, int w, int h)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    cr_assert(png && info && !setjmp(png_jmpbuf(png)));
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int r = 0; r < h; r++)
        png_write_row(png, (png_const_bytep)(rgb + 3 * (size_t)w * r));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
}

/* Write dataset name = v (doubles, rank 2 or 3) into a new HDF5 file. */
static void write_h5(const char *path, const char *name, int rank, const hsize_t *dims,
                     const double *v, const char *name2, const double *v2)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(f >= 0);
    for (int k = 0; k < (name2 ? 2 : 1); k++) {
        hid_t sp = H5Screate_simple(rank, dims, NULL);
        hid_t d = H5Dcreate2(f, k ? name2 : name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        cr_assert(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                     k ? v2 : v) >= 0);
        H5Dclose(d);
        H5Sclose(sp);
    }
    H5Fclose(f);
}

#define MAP_GRID "[grid]\nnx = 72\nny = 64\nsteps = 150\nsubpixel = false\n[source]\n" \
                 "angle = 30\nfront_offset = 10\n[boundary]\ntype = cpml\ncells = 6\n" \
                 "[material.glass]\neps_r = 3\n"
/* two circles, as objects */
static const char *circles = MAP_GRID "[object.c]\nshape = circle\nmaterial = glass\n"
                                      "center_x = 30.5\ncenter_y = 31\nradius = 9.3\n"
                                      "[object.p]\nshape = circle\nmaterial = pec\n"
                                      "center_x = 52\ncenter_y = 30\nradius = 5\n";
static int in_c(int i, int j) { return (i - 30.5) * (i - 30.5) + (j - 31.0) * (j - 31.0) <= 9.3 * 9.3; }
static int in_p(int i, int j) { return (i - 52.0) * (i - 52.0) + (j - 30.0) * (j - 30.0) <= 25.0; }

/* The map covers cells 15 .. 60 x 12 .. 50: pixel (c, r) is cell (15 + c, 50 - r). */
enum { MX0 = 15, MY0 = 12, MW = 46, MH = 39 };

static char *map_dir(void) { return temp_dir_tagged("map"); }

Test(geometry, png_map_of_circles_is_the_circles)
{
    char *dir = map_dir(), png[512], ini[512];
    uint8_t *rgb = malloc(3 * MW * MH);
    for (int r = 0; r < MH; r++)
        for (int c = 0; c < MW; c++) {
            const int i = MX0 + c, j = MY0 + MH - 1 - r;
            const uint32_t v = in_p(i, j) ? 0x000000 : in_c(i, j) ? 0x3366cc : 0xffffff;
            rgb[3 * (r * MW + c)] = v >> 16;
            rgb[3 * (r * MW + c) + 1] = (v >> 8) & 255;
            rgb[3 * (r * MW + c) + 2] = v & 255;
        }
    snprintf(png, sizeof png, "%s/circles.png", dir);
    write_png(png, rgb, MW, MH);
    char text[2048];
    snprintf(text, sizeof text, "%s[map.drawing]\npng = circles.png\nx0 = %d\ny0 = %d\n"
             "colors = #ffffff vacuum, #3366cc glass, #000000 pec\n", MAP_GRID, MX0, MY0);
    /* the map's file is found beside the scene: write the scene there */
    snprintf(ini, sizeof ini, "%s/map.ini", dir);
    FILE *f = fopen(ini, "w");
    fputs(text, f);
    fclose(f);
    struct scene sm;
    char err[ERRLEN];
    cr_assert_eq(scene_load(&sm, ini, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(sm.nmaps, 1);
    cr_assert_eq(sm.maps[0].nvalues, 3);
    scene_free(&sm);
    /* same_fields reads text through a temporary file: give it the absolute path */
    snprintf(text, sizeof text, "%s[map.drawing]\npng = %s\nx0 = %d\ny0 = %d\n"
             "colors = #ffffff vacuum, #3366cc glass, #000000 pec\n", MAP_GRID, png, MX0, MY0);
    same_fields(circles, text, NULL, 0);
    /* a map paints in file order: an object after it paints over it */
    free(rgb);
    remove_tree(dir);
    free(dir);
}

Test(geometry, hdf5_map_of_a_circle_is_the_circle)
{
    char *dir = map_dir(), h5[512];
    const hsize_t dims[2] = {MH, MW};
    double *eps = malloc(sizeof(double) * MW * MH);
    for (int j = 0; j < MH; j++)
        for (int i = 0; i < MW; i++)
            eps[j * MW + i] = in_c(MX0 + i, MY0 + j) ? 3.0 : 1.0; /* [j][i]: row 0 at y0 */
    snprintf(h5, sizeof h5, "%s/eps.h5", dir);
    write_h5(h5, "/eps_r", 2, dims, eps, NULL, NULL);
    const char *one = MAP_GRID "[object.c]\nshape = circle\nmaterial = glass\n"
                               "center_x = 30.5\ncenter_y = 31\nradius = 9.3\n";
    char text[2048];
    snprintf(text, sizeof text, "%s[map.eps]\nhdf5 = %s\nx0 = %d\ny0 = %d\n", MAP_GRID, h5, MX0,
             MY0);
    same_fields(one, text, NULL, 0);
    free(eps);
    remove_tree(dir);
    free(dir);
}

/* Each error of a map through the command: exit 2, file:line, nothing run. */
Test(geometry, map_errors_through_the_command)
{
    char *dir = map_dir(), path[600], out[4096];
    uint8_t rgb[3 * 4 * 3];
    memset(rgb, 255, sizeof rgb);
    rgb[3 * 5 + 1] = 0; /* pixel (1, 1): #ff00ff */
    snprintf(path, sizeof path, "%s/small.png", dir);
    write_png(path, rgb, 4, 3);
    double many[2 * 20 * 20]; /* the 2D map takes the first 400, the 3D one all */
    for (int k = 0; k < 800; k++)
        many[k] = 1.0 + k % 400;
    const hsize_t dims[2] = {20, 20};
    snprintf(path, sizeof path, "%s/many.h5", dir);
    write_h5(path, "/eps_r", 2, dims, many, NULL, NULL);
    const hsize_t dims3[3] = {2, 20, 20};
    snprintf(path, sizeof path, "%s/cube.h5", dir);
    write_h5(path, "/eps_r", 3, dims3, many, "/sigma", many);
    struct {
        const char *map, *want;
    } cases[] = {
        {"png = none.png\nx0 = 20\ny0 = 20\ncolors = #ffffff vacuum\n",
         "s.ini:6: cannot open none.png: No such file or directory"},
        {"png = small.png\nx0 = 20\ny0 = 20\ncolors = #ffffff vacuum\n",
         "s.ini:9: map.m: pixel (1, 1) of small.png (column, row from the top; cell (21, 21)) has "
         "colour #ff00ff, which colors does not map"},
        {"png = small.png\nx0 = 60\ny0 = 20\ncolors = #ffffff vacuum, #ff00ff pec\n",
         "s.ini:7: map.m spans x = 60 to 63, outside the grid interior 1 to 62"},
        {"png = small.png\nx0 = 20\ny0 = 20\ncolors = #ffffff vacuum, #ff00ff glas\n",
         "s.ini:9: colors: entry 2: 'glas' is not one of: pec, dielectric, vacuum"},
        {"hdf5 = many.h5\nx0 = 10\ny0 = 10\n",
         "s.ini:6: map.m: many.h5 /eps_r has 400 distinct values, and at most 255 fit the "
         "one-byte material index per cell (256 materials, vacuum included)"},
        {"hdf5 = many.h5\neps_dataset = /eps\nx0 = 10\ny0 = 10\n",
         "s.ini:7: many.h5 has no dataset /eps"},
        {"hdf5 = cube.h5\nx0 = 10\ny0 = 10\n",
         "s.ini:6: cube.h5 /eps_r is 3D ([nz][ny][nx]) and this scene is 2D"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(path, sizeof path, "%s/s.ini", dir);
        FILE *f = fopen(path, "w");
        fprintf(f, "[grid]\nnx = 64\nny = 64\nsteps = 10\n[map.m]\n%s", cases[k].map);
        fclose(f);
        char cwd[4096], bin[4200];
        cr_assert(getcwd(cwd, sizeof cwd));
        snprintf(bin, sizeof bin, "%s%s%s", texfdtd_bin()[0] == '/' ? "" : cwd,
                 texfdtd_bin()[0] == '/' ? "" : "/", texfdtd_bin());
        const int rc = run_cmd(out, sizeof out, "cd %s && %s run s.ini --dry-run --engine cpu",
                               dir, bin);
        cr_assert_eq(rc, 2, "case %zu: rc %d: %s", k, rc, out);
        const char *want = cases[k].want;
        cr_assert(strstr(out, want), "case %zu: got\n%s\nwant\n%s", k, out, want);
    }
    remove_tree(dir);
    free(dir);
}

/* ---- run --geometry: the material map written, and read back ------------- */

/* texfdtd run --geometry writes material.png and material_map.ini; a scene of
 * the same grid with only that fragment paints the same eps_r in every cell
 * of the picture's plane (2D: all cells; 3D: k = nz/2). */
static void geometry_round_trip(const char *scene_text, const char *grid_text)
{
    char *dir = temp_dir_tagged("geo"), path[600], out[8192], cwd[4096], bin[4200];
    snprintf(path, sizeof path, "%s/scene.ini", dir);
    FILE *f = fopen(path, "w");
    fputs(scene_text, f);
    fclose(f);
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(bin, sizeof bin, "%s%s%s", texfdtd_bin()[0] == '/' ? "" : cwd,
             texfdtd_bin()[0] == '/' ? "" : "/", texfdtd_bin());
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --geometry --engine cpu --out %s/out", bin, path, dir), 0,
                 "%s", out);
    char legend[600];
    snprintf(legend, sizeof legend, "%s/out/material_legend.csv", dir);
    cr_assert(path_exists(legend));
    snprintf(legend, sizeof legend, "%s/out/material.h5", dir);
    cr_assert(path_exists(legend));
    /* the fragment beside the PNG, after the grid */
    char frag[600], back[600];
    snprintf(frag, sizeof frag, "%s/out/material_map.ini", dir);
    snprintf(back, sizeof back, "%s/out/back.ini", dir);
    f = fopen(back, "w");
    fputs(grid_text, f);
    FILE *g = fopen(frag, "r");
    cr_assert(g);
    int ch;
    while ((ch = fgetc(g)) != EOF)
        fputc(ch, f);
    fclose(g);
    fclose(f);
    struct scene sa, sb;
    struct model ma, mb;
    char err[ERRLEN];
    cr_assert_eq(scene_load(&sa, path, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(model_build(&ma, &sa, err, sizeof err), 0, "%s", err);
    cr_assert_eq(scene_load(&sb, back, NULL, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(model_build(&mb, &sb, err, sizeof err), 0, "%s", err);
    const size_t plane = (size_t)ma.nx * ma.ny, k0 = ma.nz > 1 ? (size_t)ma.nz / 2 : 0;
    for (size_t c = k0 * plane; c < (k0 + 1) * plane; c++)
    {
        cr_assert_eq(ma.mats[ma.mat[c]].eps_r, mb.mats[mb.mat[c]].eps_r, "cell %zu", c);
        cr_assert_eq(ma.mats[ma.mat[c]].sigma, mb.mats[mb.mat[c]].sigma, "cell %zu: sigma", c);
    }
    model_free(&ma);
    model_free(&mb);
    scene_free(&sa);
    scene_free(&sb);
    remove_tree(dir);
    free(dir);
}

Test(geometry, geometry_png_reads_back_as_a_map)
{
    /* smoothed dielectrics (many intermediate eps_r), a smoothed lossy
     * cylinder (its sigma too: material_map.ini once wrote none), PEC, a
     * polygon, CPML */
    geometry_round_trip(MAP_GRID "[object.c]\nshape = circle\nmaterial = glass\n"
                                 "center_x = 30.5\ncenter_y = 31\nradius = 9.3\n"
                                 "[object.p]\nshape = polygon\nmaterial = pec\n"
                                 "vertices = 48 24, 58 26, 52 38\n"
                                 "[object.e]\nshape = ellipse\nmaterial = dielectric\neps_r = 6\n"
                                 "center_x = 40\ncenter_y = 45\nradius_x = 6\nradius_y = 3\n"
                                 "rotation = 20\n"
                                 "[material.wet]\neps_r = 3\nsigma = 0.2\n"
                                 "[object.w]\nshape = circle\nmaterial = wet\ncenter_x = 18.4\n"
                                 "center_y = 46\nradius = 5.5\n",
                        "[grid]\nnx = 72\nny = 64\nsteps = 150\n[source]\nangle = 30\n"
                        "[boundary]\ntype = cpml\ncells = 6\n");
    geometry_round_trip("[grid]\nnx = 40\nny = 36\nnz = 30\nsteps = 20\n[source]\ntype = point\n"
                        "center_x = 5\ncenter_y = 5\ncenter_z = 5\n[object.s]\nshape = sphere\n"
                        "material = dielectric\neps_r = 2\ncenter_x = 20\ncenter_y = 18\n"
                        "center_z = 15\nradius = 7\n[object.b]\nshape = box\nmaterial = pec\n"
                        "center_x = 10\ncenter_y = 10\ncenter_z = 15\nwidth = 4\nheight = 4\n"
                        "depth = 4\n",
                        "[grid]\nnx = 40\nny = 36\nnz = 30\nsteps = 20\n[source]\ntype = point\n"
                        "center_x = 5\ncenter_y = 5\ncenter_z = 5\n");
}
