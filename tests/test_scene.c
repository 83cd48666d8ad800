/* test_scene.c - the scene parser: valid files, defaults, overrides, and each
 * error path with its message. */
#include "helpers.h"

#include <dirent.h>
#include "core/monitor.h"

static const char *base_scene = "[grid]\n"          /* 1 */
                                "nx = 64\n"         /* 2 */
                                "ny = 48\n"         /* 3 */
                                "steps = 100\n"     /* 4 */
                                "\n"                /* 5 */
                                "[source]\n"        /* 6 */
                                "type = plane_wave\n" /* 7 */
                                "\n"                /* 8 */
                                "[object.box]\n"    /* 9 */
                                "shape = rectangle\n" /* 10 */
                                "material = pec\n"  /* 11 */
                                "center_x = 32\n"   /* 12 */
                                "center_y = 24\n"   /* 13 */
                                "width = 10\n"      /* 14 */
                                "height = 6.5\n";   /* 15 */

/* Load text with overrides; expect failure, return the message. */
static void expect_error(const char *text, const char *const *sets, int nset, const char *want)
{
    struct scene s;
    char err[ERRLEN] = "";
    char *path = write_temp_scene(text);
    int rc = scene_load(&s, path, sets, nset, err, sizeof err);
    cr_assert_eq(rc, -1, "expected failure (%s), got success", want);
    char full[ERRLEN + 64];
    /* messages that name a line start with the path */
    snprintf(full, sizeof full, "%s", want);
    if (!strncmp(want, "FILE", 4))
        snprintf(full, sizeof full, "%s%s", path, want + 4);
    cr_assert_str_eq(err, full);
    unlink(path);
    free(path);
}

Test(scene, valid_file_and_defaults)
{
    struct test_setup t;
    setup_from_text(&t, base_scene, NULL, 0);
    const struct scene *s = &t.scene;
    cr_assert_eq(s->nx, 64);
    cr_assert_eq(s->ny, 48);
    cr_assert_eq(s->steps, 100);
    cr_assert_eq(s->courant, 0.5);
    cr_assert_eq(s->cells_per_wavelength, 20.0);
    cr_assert_eq(s->angle_deg, 0.0);
    cr_assert_eq(s->amplitude, 1.0);
    cr_assert_eq(s->ramp_periods, 1.0);
    cr_assert_eq(s->boundary, BOUNDARY_PEC);
    cr_assert_eq(s->nobjects, 1);
    cr_assert_str_eq(s->objects[0].name, "box");
    cr_assert_eq(s->objects[0].height, 6.5);
    cr_assert_eq(s->nsnapshots, 0);
    cr_assert(s->png);
    /* The paper: 20 cells per wavelength at S = 0.5 is a 40-step period. */
    cr_assert_float_eq(2 * M_PI / scene_omega_dt(s), 40.0, 1e-12);
    setup_free(&t);
}

Test(scene, object_painting_and_slots)
{
    struct test_setup t;
    setup_from_text(&t, base_scene, NULL, 0);
    /* width 10 centred on 32: cell centres 27..37; height 6.5 on 24: 21..27 */
    const struct model *m = &t.model;
    size_t n = 0;
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            int in = i >= 27 && i <= 37 && j >= 21 && j <= 27;
            cr_assert_eq(m->mat[i + j * m->nx] != 0, in, "cell %d,%d", i, j);
            n += in;
        }
    cr_assert_eq(m->nslots, n);
    cr_assert_eq(n, 11 * 7);
    setup_free(&t);
}

Test(scene, set_overrides_file_value)
{
    const char *sets[] = {"grid.nx=80", "source.angle = 30", "object.box.width=4"};
    struct test_setup t;
    setup_from_text(&t, base_scene, sets, 3);
    cr_assert_eq(t.scene.nx, 80);
    cr_assert_eq(t.scene.angle_deg, 30.0);
    cr_assert_eq(t.scene.objects[0].width, 4.0);
    setup_free(&t);
}

Test(scene, courant_above_limit_names_file_and_line)
{
    char text[2048];
    snprintf(text, sizeof text, "%s", base_scene);
    /* insert at line 5 */
    char *p = strstr(text, "\n\n[source]");
    memmove(p + 15, p + 1, strlen(p + 1) + 1);
    memcpy(p + 1, "courant = 0.8\n", 14);
    p[15 - 1] = '\n';
    expect_error(text, NULL, 0, "FILE:5: courant = 0.8 is above the 2D stability limit 0.7071");
}

Test(scene, courant_above_limit_from_set)
{
    const char *sets[] = {"grid.courant=0.71"};
    expect_error(base_scene, sets, 1,
                 "--set grid.courant: courant = 0.71 is above the 2D stability limit 0.7071");
}

Test(scene, unknown_section)
{
    expect_error("[grid]\nnx=64\nny=64\nsteps=1\n[grdi]\nx=1\n", NULL, 0,
                 "FILE:6: unknown section [grdi]: allowed [grid], [source], [boundary], "
                 "[output], [object.NAME], [material.NAME], [map.NAME], [monitor.dft], "
                 "[monitor.far], [monitor.flux.NAME], [probe.NAME]");
}

Test(scene, unknown_key)
{
    expect_error("[grid]\nnx=64\nny=64\nsteps=1\nnw=3\n", NULL, 0,
                 "FILE:5: unknown key 'nw' in [grid]: allowed nx, ny, nz, steps, courant, "
                 "cells_per_wavelength, conformal_pec, conformal_min, subpixel, polarization, "
                 "dispersion_correction, te_conductor_edges, te_offdiagonal");
}

Test(scene, wrong_type)
{
    expect_error("[grid]\nnx=64.5\nny=64\nsteps=1\n", NULL, 0,
                 "FILE:2: nx = '64.5' is not a whole number");
    expect_error("[grid]\nnx=64\nny=64\nsteps=1\n[source]\namplitude=big\n", NULL, 0,
                 "FILE:6: amplitude = 'big' is not a number");
    expect_error("[grid]\nnx=64\nny=64\nsteps=1\n[output]\npng=maybe\n", NULL, 0,
                 "FILE:6: png = 'maybe' is not true or false");
}

Test(scene, out_of_range)
{
    expect_error("[grid]\nnx=4\nny=64\nsteps=1\n", NULL, 0,
                 "FILE:2: nx = 4 is out of range: allowed 8 to 1048576");
    expect_error("[grid]\nnx=64\nny=64\nsteps=-1\n", NULL, 0,
                 "FILE:4: steps = -1 is out of range: allowed 0 to 1000000000");
    expect_error("[grid]\nnx=64\nny=64\nsteps=1\ncourant=0\n", NULL, 0,
                 "FILE:5: courant = 0 is out of range: allowed above 0 to 1e+09");
}

Test(scene, missing_required_key)
{
    expect_error("[grid]\nnx=64\nsteps=1\n", NULL, 0,
                 "FILE: [grid] ny is missing (a whole number of cells)");
}

Test(scene, object_outside_grid)
{
    const char *sets[] = {"object.box.center_x=60"};
    expect_error(base_scene, sets, 1,
                 "--set object.box.center_x: object.box spans x = 55 to 65, outside the grid "
                 "interior 1 to 62");
}

Test(scene, boundary_keys)
{
    const char *cpml[] = {"boundary.type=cpml", "boundary.cells=5", "object.box.width=8"};
    struct test_setup t;
    setup_from_text(&t, base_scene, cpml, 3);
    cr_assert_eq(t.scene.boundary, BOUNDARY_CPML);
    cr_assert_eq(t.scene.cpml_cells, 5);
    cr_assert_eq(t.model.pml_n, 5);
    /* the profile vanishes at the inner face and grows toward the wall */
    cr_assert_eq(t.model.pml_xe.c[5], 0.0);
    cr_assert_lt(t.model.pml_xe.c[1], t.model.pml_xe.c[3]);
    cr_assert_lt(t.model.pml_xe.b[1], 1.0);
    setup_free(&t);

    const char *pec_cells[] = {"boundary.cells=5"};
    expect_error(base_scene, pec_cells, 1,
                 "--set boundary.cells: cells applies to type = cpml only");
    const char *inside[] = {"boundary.type=cpml", "boundary.cells=22"};
    expect_error(base_scene, inside, 2,
                 "FILE:13: object.box spans y = 20.75 to 27.25, outside the grid interior 23 to "
                 "24 (the CPML slabs take the cells beyond)");
    const char *bad[] = {"boundary.type=upml"};
    expect_error(base_scene, bad, 1,
                 "--set boundary.type: type = 'upml' is not one of: pec | cpml | mur");
    const char *thick[] = {"boundary.type=cpml", "boundary.cells=30"};
    expect_error(base_scene, thick, 2,
                 "--set boundary.type: a 30-cell CPML on each side leaves no interior in a 64 x "
                 "48 grid");
}

Test(scene, dielectric_needs_eps_r)
{
    const char *sets[] = {"object.box.material=dielectric"};
    expect_error(base_scene, sets, 1, "FILE: [object.box] is dielectric but has no eps_r");
}

Test(scene, circle_rejects_width)
{
    const char *sets[] = {"object.box.shape=circle", "object.box.radius=3"};
    expect_error(base_scene, sets, 2, "FILE:14: width does not apply to a circle");
}

Test(scene, snapshots_checked_against_steps)
{
    const char *sets[] = {"output.snapshots=10, 200"};
    expect_error(base_scene, sets, 1,
                 "--set output.snapshots: snapshots: step 200 is out of range: allowed 1 to "
                 "steps = 100");
    const char *ok[] = {"output.snapshots=10, 20 30"};
    struct test_setup t;
    setup_from_text(&t, base_scene, ok, 1);
    cr_assert_eq(t.scene.nsnapshots, 3);
    cr_assert_eq(t.scene.snapshots[2], 30);
    setup_free(&t);
}

Test(scene, dft_monitor)
{
    const char *sets[] = {"monitor.dft.start_step=40"};
    struct test_setup t;
    setup_from_text(&t, base_scene, sets, 1);
    cr_assert(t.scene.dft);
    cr_assert_eq(t.scene.dft_start, 40);
    /* w(n) = 2/(A N) exp(-i w n dt): at n = 10 of a 40-step period, -i * 2/60 */
    double re, im;
    model_dft_weight(&t.model, 10, &re, &im);
    cr_assert(fabs(re) < 1e-15 && fabs(im + 2.0 / 60.0) < 1e-15, "%g %g", re, im);
    setup_free(&t);
    const char *bad[] = {"monitor.dft.start_step=100"};
    expect_error(base_scene, bad, 1,
                 "--set monitor.dft.start_step: start_step = 100 must be below steps = 100 (the "
                 "DFT needs samples)");
}

static const char *scene3d = "[grid]\nnx = 40\nny = 32\nnz = 24\nsteps = 50\n"
                             "[source]\ntype = point\ncenter_x = 20\ncenter_y = 16\ncenter_z = 12\n"
                             "waveform = gaussian\n"
                             "[boundary]\ntype = cpml\ncells = 4\nstrategy = per-face\n"
                             "[object.b]\nshape = box\nmaterial = pec\ncenter_x = 10\n"
                             "center_y = 16\ncenter_z = 12\nwidth = 4\nheight = 6\ndepth = 8\n"
                             "[object.s]\nshape = sphere\nmaterial = dielectric\neps_r = 2\n"
                             "center_x = 28\ncenter_y = 16\ncenter_z = 12\nradius = 3\n";

Test(scene, three_d_scene)
{
    struct test_setup t;
    setup_from_text(&t, scene3d, NULL, 0);
    const struct scene *s = &t.scene;
    cr_assert(scene_is_3d(s));
    cr_assert_eq(s->nz, 24);
    cr_assert_eq(s->source_type, SOURCE_POINT);
    cr_assert_eq(s->point_z, 12.0);
    cr_assert_eq(s->waveform, WAVEFORM_GAUSSIAN);
    cr_assert_eq(s->cpml_strategy, PML_PER_FACE);
    cr_assert_eq(s->objects[0].shape, SHAPE_BOX);
    cr_assert_eq(s->objects[0].depth, 8.0);
    cr_assert_eq(s->objects[1].shape, SHAPE_SPHERE);
    setup_free(&t);

    const char *c[] = {"grid.courant=0.6"};
    expect_error(scene3d, c, 1, "--set grid.courant: courant = 0.6 is above the 3D stability "
                                "limit 0.5774");
    const char *rect[] = {"object.b.shape=rectangle"};
    expect_error(scene3d, rect, 1, "--set object.b.shape: shape = rectangle is a 2D shape, and "
                                   "this scene is 3D (nz = 24): use box | sphere");
    const char *deep[] = {"object.b.center_z=3"};
    expect_error(scene3d, deep, 1, "--set object.b.center_z: object.b spans z = -1 to 7, outside "
                                   "the grid interior 5 to 18 (the CPML slabs take the cells "
                                   "beyond)");
    const char *angle[] = {"source.angle=30"};
    expect_error(scene3d, angle, 1, "--set source.angle: angle applies to type = plane_wave only");
    const char *strat[] = {"boundary.strategy=clever"};
    expect_error(scene3d, strat, 1, "--set boundary.strategy: strategy = 'clever' is not one of: "
                                    "combined | regions | per-face");
}

Test(scene, two_d_rejects_3d_keys)
{
    const char *z[] = {"object.box.center_z=3"};
    expect_error(base_scene, z, 1,
                 "--set object.box.center_z: center_z applies to 3D scenes only (this one has nz "
                 "= 1)");
    const char *s[] = {"boundary.type=cpml", "boundary.cells=4", "boundary.strategy=regions"};
    expect_error(base_scene, s, 3,
                 "--set boundary.strategy: strategy applies to 3D scenes only (this one has nz = "
                 "1)");
}

Test(scene, duplicate_key)
{
    expect_error("[grid]\nnx=64\nny=64\nnx=32\nsteps=1\n", NULL, 0,
                 "FILE:4: nx is given twice in [grid] (first at line 2)");
}

Test(scene, bad_set_syntax)
{
    const char *sets[] = {"gridnx64"};
    expect_error(base_scene, sets, 1,
                 "--set gridnx64: expected section.key=value, e.g. --set grid.steps=500");
}

Test(scene, missing_file)
{
    struct scene s;
    char err[ERRLEN];
    cr_assert_eq(scene_load(&s, "/nonexistent/x.ini", NULL, 0, err, sizeof err), -1);
    cr_assert_str_eq(err, "/nonexistent/x.ini: cannot open scene: No such file or directory");
}

Test(scene, syntax_error_line)
{
    expect_error("[grid]\nnx=64\nthis is not ini\n", NULL, 0,
                 "FILE:3: not a 'key = value' line or a [section] header");
}

/* Every scene shipped in scenes/ loads and builds its model (materials
 * checked for stability, maps read, objects painted): the examples the docs
 * point at cannot rot unseen. */
Test(scene, shipped_scenes_are_valid, .timeout = 120)
{
    DIR *d = opendir("scenes");
    cr_assert_not_null(d, "run from the repository root");
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ini"))
            continue;
        char path[512], err[ERRLEN];
        snprintf(path, sizeof path, "scenes/%s", e->d_name);
        struct scene s;
        struct model m;
        cr_assert_eq(scene_load(&s, path, NULL, 0, err, sizeof err), 0, "%s", err);
        const int rc = model_build(&m, &s, err, sizeof err);
        cr_expect_eq(rc, 0, "%s: %s", path, err);
        if (!rc)
            model_free(&m);
        scene_free(&s);
        n++;
    }
    closedir(d);
    cr_expect_geq(n, 10, "%d scenes", n);
}

/* The monitors of issue 12: defaults, the contour they resolve, and the
 * refusals (file:line, the value, what is allowed). */
static const char *far_scene = "[grid]\nnx = 100\nny = 80\nsteps = 400\n"   /* 1-4 */
                               "[boundary]\ntype = cpml\ncells = 10\n"       /* 5-7 */
                               "[object.c]\nshape = circle\nmaterial = pec\n" /* 8-10 */
                               "center_x = 50\ncenter_y = 40\nradius = 10\n" /* 11-13 */
                               "[monitor.far]\nangles = 180\n"               /* 14-15 */
                               "frequencies = 0.8, 1, 1.25\n"                /* 16 */
                               "[probe.p]\nx = 20\ny = 30\nfields = all\n"   /* 17-20 */
                               "[monitor.flux.f]\nx0 = 30\nx1 = 70\ny0 = 25\ny1 = 25\n"; /* 21-25 */

Test(scene, monitors_parse_and_resolve)
{
    struct test_setup t;
    setup_from_text(&t, far_scene, NULL, 0);
    const struct scene *s = &t.scene;
    cr_assert(s->far.on);
    cr_assert_eq(s->far.angles, 180);
    cr_assert_eq(s->far.fr.n, 3);
    cr_assert_eq(s->far.fr.f[2], 1.25);
    cr_assert_eq(s->far.fr.start_step, 0);
    /* objects span cells 40..60 x 30..50; interior margin 11: room in y is
     * 30 - 1 - 11 = 18 below and 80 - 1 - 11 - 51 = 17 above; half: 9 */
    cr_assert_eq(s->far.distance, 9);
    cr_assert_eq(s->far.lo[0], 31);
    cr_assert_eq(s->far.hi[0], 69);
    cr_assert_eq(s->far.lo[1], 21);
    cr_assert_eq(s->far.hi[1], 59);
    cr_assert_eq(s->nprobes, 1);
    cr_assert_eq(s->probes[0].fields, 7u);
    cr_assert(s->probes[0].total);
    cr_assert_eq(s->probes[0].every, 1);
    cr_assert_eq(s->nflux, 1);
    cr_assert_eq(s->flux[0].kind, FLUX_LINE_Y);
    /* the model samples: a contour of 39 x 39 cells reads 4 * 39 H values
     * and 2 * (41 + 41) + 4 * 39 - 4 ... counted by the plan, not here; the
     * probe's three fields are among them */
    cr_assert(t.model.nsamples > 0 && t.model.plan);
    cr_assert_eq(t.model.plan->ncols, 3);
    setup_free(&t);
}

Test(scene, monitors_refused_with_file_and_line)
{
    expect_error("[grid]\nnx = 100\nny = 80\nsteps = 400\n[monitor.far]\nangles = 10\n", NULL, 0,
                 "FILE:6: [monitor.far] needs an open boundary ([boundary] "
                                    "type = cpml | mur): inside a PEC box the scattered field "
                                    "never leaves, and there is no far field");
    const char *far[] = {"monitor.far.distance=18"};
    expect_error(far_scene, far, 1,
                 "--set monitor.far.distance: distance = 18 puts the contour into the CPML: at "
                 "most 17 here (the objects span cells 40 .. 60 in x, 30 .. 50 in y)");
    const char *three_d[] = {"monitor.far.theta_points=10"};
    expect_error(far_scene, three_d, 1, "--set monitor.far.theta_points: theta_points applies to "
                                        "3D scenes only (this one has nz = 1)");
    const char *freq[] = {"monitor.far.frequencies=1, 9"};
    expect_error(far_scene, freq, 1,
                 "--set monitor.far.frequencies: frequencies: 9 is out of range: allowed above 0 "
                 "to 6.66667 (3 cells per wavelength at cells_per_wavelength = 20)");
    const char *probe[] = {"probe.p.x=100"};
    expect_error(far_scene, probe, 1,
                 "--set probe.p.x: x = 100 is out of range: allowed 0 to 99");
    const char *fields[] = {"probe.p.fields=ez, hz"};
    expect_error(far_scene, fields, 1, "--set probe.p.fields: fields: 'hz' is not a field of a 2D "
                                       "scene: allowed ez, hx, hy, or all");
    const char *flux[] = {"monitor.flux.f.x1=20"};
    expect_error(far_scene, flux, 1, "--set monitor.flux.f.x1: x1 = 20 is below x0 = 30");
    const char *layer[] = {"monitor.flux.f.y0=5", "monitor.flux.f.y1=5"};
    expect_error(far_scene, layer, 2,
                 "--set monitor.flux.f.y0: y0 = 5 is out of range: allowed 12 to 67");
    const char *pulse[] = {"source.waveform=ricker", "source.bandwidth=1"};
    expect_error(far_scene, pulse, 2, "--set source.bandwidth: bandwidth applies to waveform = "
                                      "gaussian | modulated_gaussian only");
    /* --set section.key= removes a key from the file: its default applies */
    struct test_setup t;
    const char *unset[] = {"source.waveform=gaussian", "source.ramp_periods=", "probe.p.fields="};
    setup_from_text(&t, "[grid]\nnx = 64\nny = 64\nsteps = 10\n[source]\nramp_periods = 3\n"
                        "[probe.p]\nx = 3\ny = 4\nfields = all\n", unset, 3);
    cr_assert_eq(t.scene.waveform, WAVEFORM_GAUSSIAN);
    cr_assert_eq(t.scene.probes[0].fields, 1u);
    setup_free(&t);
    const char *ramp[] = {"source.waveform=gaussian", "source.ramp_periods=2"};
    expect_error(far_scene, ramp, 2,
                 "--set source.ramp_periods: ramp_periods applies to waveform = sine only");
}

/* Polygons, ellipses, rotation: values, --set overrides and each error. */
Test(scene, polygon_ellipse_rotation_keys)
{
    const char *poly[] = {"object.box.shape=polygon", "object.box.width=", "object.box.height=",
                          "object.box.center_x=", "object.box.center_y=",
                          "object.box.vertices=10 10, 14 10, 14 16", "object.box.rotation=45"};
    struct test_setup t;
    setup_from_text(&t, base_scene, poly, 7);
    const struct scene_object *o = &t.scene.objects[0];
    cr_assert_eq(o->shape, SHAPE_POLYGON);
    cr_assert_eq(o->nvertices, 3);
    cr_assert_float_eq(o->center_x, 38.0 / 3, 1e-12);
    cr_assert_float_eq(o->center_y, 12.0, 1e-12);
    /* the first vertex turned 45 degrees about the mean */
    const double dx = 10 - 38.0 / 3, dy = -2, c = cos(M_PI / 4);
    cr_assert_float_eq(o->vertices[0], 38.0 / 3 + c * dx - c * dy, 1e-12);
    cr_assert_float_eq(o->vertices[1], 12 + c * dx + c * dy, 1e-12);
    setup_free(&t);

    const char *ell[] = {"object.box.shape=ellipse", "object.box.width=", "object.box.height=",
                         "object.box.radius_x=5", "object.box.radius_y=2", "object.box.rotation=90"};
    setup_from_text(&t, base_scene, ell, 6);
    o = &t.scene.objects[0];
    cr_assert_eq(o->shape, SHAPE_ELLIPSE);
    cr_assert(o->rotated && o->rot_cos == 0.0 && o->rot_sin == 1.0);
    setup_free(&t);

    const char *few[] = {poly[0], poly[1], poly[2], poly[3], poly[4], "object.box.vertices=1 1, 2 2"};
    expect_error(base_scene, few, 6, "--set object.box.vertices: vertices: a polygon needs at "
                                     "least 3 points, found 2");
    const char *odd[] = {poly[0], poly[1], poly[2], poly[3], poly[4],
                         "object.box.vertices=10 10, 14, 14 16"};
    expect_error(base_scene, odd, 6, "--set object.box.vertices: vertices: point 2 is not two "
                                     "numbers 'x y' (expected a list such as 0 0, 4 0, 4 3, in "
                                     "cells)");
    const char *ctr[] = {poly[0], poly[1], poly[2], poly[5]};
    expect_error(base_scene, ctr, 4, "FILE:12: center_x does not apply to a polygon (its "
                                     "vertices place it; it turns about their mean)");
    const char *none[] = {poly[0], poly[1], poly[2], poly[3], poly[4]};
    expect_error(base_scene, none, 5, "FILE: [object.box] is a polygon and needs vertices (x0 "
                                      "y0, x1 y1, ..., in cells)");
    const char *out[] = {poly[0], poly[1], poly[2], poly[3], poly[4],
                         "object.box.vertices=10 10, 70 10, 14 16"};
    expect_error(base_scene, out, 6, "--set object.box.vertices: object.box spans x = 10 to 70, "
                                     "outside the grid interior 1 to 62");
    const char *circ[] = {"object.box.shape=circle", "object.box.width=", "object.box.height=",
                          "object.box.radius=3", "object.box.rotation=10"};
    expect_error(base_scene, circ, 5, "--set object.box.rotation: rotation does not apply to a "
                                      "circle (it looks the same at any angle)");
    const char *vr[] = {"object.box.vertices=1 1, 2 2, 3 1"};
    expect_error(base_scene, vr, 1, "--set object.box.vertices: vertices apply to a polygon only, "
                                    "not a rectangle");
    const char *half[] = {ell[0], ell[1], ell[2], ell[3]};
    expect_error(base_scene, half, 4, "FILE: [object.box] is an ellipse and needs radius_y");
}

/* [material.NAME]: the table, presets from the papers' numbers, overrides and
 * each error; model_build refuses what the engines cannot run yet. */
static const char *mat_scene = "[grid]\nnx = 64\nny = 48\nsteps = 100\n" /* 1-4 */
                               "[material.glass]\neps_r = 2.25\n"        /* 5-6 */
                               "[material.au]\npreset = gold\n"          /* 7-8 */
                               "[material.wall]\npec = true\n"           /* 9-10 */
                               "[object.a]\nshape = circle\nmaterial = glass\n" /* 11-13 */
                               "center_x = 20\ncenter_y = 20\nradius = 5\n"     /* 14-16 */
                               "[object.b]\nshape = rectangle\nmaterial = wall\n" /* 17-19 */
                               "center_x = 40\ncenter_y = 30\nwidth = 6\nheight = 4\n";

Test(scene, material_table)
{
    struct test_setup t;
    const char *sets[] = {"material.glass.eps_r=3.5"};
    setup_from_text(&t, mat_scene, sets, 1);
    const struct scene *s = &t.scene;
    cr_assert_eq(s->nmaterials, 3);
    cr_assert_str_eq(s->materials[0].name, "glass");
    cr_assert_eq(s->materials[0].eps_inf, 3.5);
    cr_assert_eq(s->objects[0].table, 0);
    cr_assert_eq(s->objects[0].material, MATERIAL_DIELECTRIC);
    cr_assert_eq(s->objects[0].eps_r, 3.5);
    cr_assert_eq(s->objects[1].material, MATERIAL_PEC);
    cr_assert(!s->materials[1].used);
    /* gold: Rakic et al. 1998 LD, Table 1: wp = 9.03 eV, f0 = 0.760, Gamma0 = 0.053 eV,
     * the fifth oscillator f = 4.384, Gamma = 2.214 eV, w = 13.32 eV; hbar = 6.582119569e-16 eV s */
    const struct scene_material *au = &s->materials[1];
    const double ev = 1.0 / 6.582119569e-16;
    cr_assert_eq(au->npoles, 6);
    cr_assert_eq(au->eps_inf, 1.0);
    cr_assert_eq(au->poles[0].kind, POLE_DRUDE);
    cr_assert_float_eq(au->poles[0].b, sqrt(0.760) * 9.03 * ev, 1e-6 * 9.03 * ev);
    cr_assert_float_eq(au->poles[0].c, 0.053 * ev, 1e-6 * ev);
    cr_assert_eq(au->poles[5].kind, POLE_LORENTZ);
    cr_assert_float_eq(au->poles[5].a, 4.384 * 9.03 * 9.03 / (13.32 * 13.32), 1e-12);
    cr_assert_float_eq(au->poles[5].b, 13.32 * ev, 1e-6 * 13.32 * ev);
    cr_assert_float_eq(au->poles[5].c, 2.214 * ev, 1e-6 * ev);
    setup_free(&t);

    /* a preset's poles of one kind replaced by the key; explicit eps_r kept */
    const char *w[] = {"material.au.preset=water", "material.au.debye=10 1e-9, 5 2e-10",
                       "material.au.eps_r=4"};
    struct scene sc;
    char err[ERRLEN];
    char *path = write_temp_scene(mat_scene);
    cr_assert_eq(scene_load(&sc, path, w, 3, err, sizeof err), 0, "%s", err);
    cr_assert_eq(sc.materials[1].npoles, 2);
    cr_assert_eq(sc.materials[1].poles[1].a, 5.0);
    cr_assert_eq(sc.materials[1].poles[1].b, 2e-10);
    cr_assert_eq(sc.materials[1].eps_inf, 4.0);
    scene_free(&sc);
    /* water alone: Kaatze 1989 at 25 C */
    const char *wa[] = {"material.au.preset=water"};
    cr_assert_eq(scene_load(&sc, path, wa, 1, err, sizeof err), 0, "%s", err);
    cr_assert_eq(sc.materials[1].eps_inf, 5.2);
    cr_assert_float_eq(sc.materials[1].poles[0].a, 78.36 - 5.2, 1e-12);
    cr_assert_eq(sc.materials[1].poles[0].b, 8.27e-12);
    scene_free(&sc);
    unlink(path);
    free(path);

    /* model_build refuses what the engines do not take, naming key and material */
    const char *use_au[] = {"object.a.material=au"};
    cr_assert_eq(scene_load(&sc, (path = write_temp_scene(mat_scene)), use_au, 1, err, sizeof err), 0);
    struct model m;
    cr_assert_eq(model_build(&m, &sc, err, sizeof err), -1);
    char want[ERRLEN];
    /* 2D TM takes poles, but gold's plasma frequency at this grid's time
     * step (1 GHz, 20 cells per wavelength) is far past its stability limit */
    snprintf(want, sizeof want, "%s:8: material au: ", path);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
    cr_assert(strstr(err, "unstable"), "%s", err);
    scene_free(&sc);
    /* TE takes poles too (on the edges), with the same stability check */
    char tm_err[ERRLEN];
    snprintf(tm_err, sizeof tm_err, "%s", err);
    const char *au_te[] = {"object.a.material=au", "grid.polarization=te"};
    cr_assert_eq(scene_load(&sc, path, au_te, 2, err, sizeof err), 0, "%s", err);
    cr_assert_eq(model_build(&m, &sc, err, sizeof err), -1);
    cr_assert_str_eq(err, tm_err);
    scene_free(&sc);
    const char *au_mu[] = {"object.a.material=au", "material.au.mu_r=2"};
    cr_assert_eq(scene_load(&sc, path, au_mu, 2, err, sizeof err), 0, "%s", err);
    /* poles with mu_r are taken too, with the same stability check (gold
     * with mu_r = 2 is still unstable here, at the same key) */
    cr_assert_eq(model_build(&m, &sc, err, sizeof err), -1);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
    cr_assert(strstr(err, "unstable"), "%s", err);
    scene_free(&sc);
    const char *lossy[] = {"material.glass.sigma=0.5"};
    cr_assert_eq(scene_load(&sc, path, lossy, 1, err, sizeof err), 0);
    /* sigma is taken (the engines with ENGINE_CAP_LOSSY run it) */
    cr_assert_eq(model_build(&m, &sc, err, sizeof err), 0, "%s", err);
    cr_assert(m.lossy);
    model_free(&m);
    scene_free(&sc);
    const char *mag[] = {"material.glass.mu_r=2"};
    cr_assert_eq(scene_load(&sc, path, mag, 1, err, sizeof err), 0);
    /* 2D takes mu_r (the cpu engine: tests/test_te.c) */
    cr_assert_eq(model_build(&m, &sc, err, sizeof err), 0, "%s", err);
    cr_assert(m.magnetic && m.hmat);
    model_free(&m);
    scene_free(&sc);
    unlink(path);
    free(path);

    const char *builtin[] = {"material.pec.eps_r=2"};
    expect_error(mat_scene, builtin, 1, "--set material.pec.eps_r: [material.pec]: 'pec' is a "
                                        "built-in material (pec, dielectric, vacuum): give the "
                                        "table's material another name");
    const char *pe[] = {"material.wall.eps_r=2"};
    expect_error(mat_scene, pe, 1, "--set material.wall.eps_r: eps_r does not apply to material "
                                   "wall, which is pec = true");
    const char *un[] = {"object.a.material=glas"};
    expect_error(mat_scene, un, 1, "--set object.a.material: material = 'glas' is not one of: "
                                   "pec, dielectric, vacuum, glass, au, wall (the built-ins and "
                                   "this scene's [material.NAME] sections)");
    const char *own[] = {"object.a.eps_r=3"};
    expect_error(mat_scene, own, 1, "--set object.a.eps_r: eps_r applies to material = dielectric "
                                    "only; object.a is material = glass, which gives its own eps_r");
    const char *many[] = {"material.glass.drude=1 0, 1 0, 1 0, 1 0, 1 0, 1 0, 1 0, 1 0, 1 0"};
    expect_error(mat_scene, many, 1, "--set material.glass.drude: drude: more than 8 poles in "
                                     "material glass (all kinds together)");
    const char *neg[] = {"material.glass.debye=-1 1e-9"};
    expect_error(mat_scene, neg, 1, "--set material.glass.debye: debye: pole 1: delta_eps = -1, "
                                    "tau = 1e-09 s out of range: allowed delta_eps above 0 to "
                                    "1e6, tau above 0 to 1 s");
}

/* An object of a table material paints as the same dielectric given inline;
 * material = vacuum carves. */
Test(scene, table_material_paints_as_inline_dielectric)
{
    const char *inl[] = {"object.a.material=dielectric", "object.a.eps_r=2.25",
                         "object.b.material=vacuum"};
    const char *vac[] = {"object.b.material=vacuum"};
    struct test_setup a, b;
    setup_from_text(&a, mat_scene, vac, 1);
    setup_from_text(&b, mat_scene, inl, 3);
    for (size_t c = 0; c < a.model.ncells; c++)
        cr_assert_eq(a.model.mats[a.model.mat[c]].eps_r, b.model.mats[b.model.mat[c]].eps_r);
    cr_assert_eq(a.model.mat[40 + 30 * 64], 0);
    setup_free(&a);
    setup_free(&b);
}
