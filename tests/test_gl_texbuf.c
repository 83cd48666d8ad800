/* test_gl_texbuf.c - gl_bench texbuf's passes (gl/texbuf.c; issue 14, item
 * 1): the gl-compute update of a vacuum PEC box with its fields in storage
 * buffers, in images (imageLoad/imageStore) and in textures (texelFetch,
 * imageStore), in the engine's layout and in three R32F fields, one step per
 * dispatch (shaders/texbuf.comp) and K steps per dispatch in tiles
 * (shaders/update_tb.comp over the same access functions), must give the
 * cpu engine's bits (cpu/update2d.inc, the independent expectation, in the
 * GL engine's denormal mode) from the same random fields, and the copy
 * kernel must leave them as they were.  The fields are the bench's own
 * (gl_bench_random_fields, seed 12345: gl_bench_fill_random's stream).
 * The H texel (nx-1, ny-1) is no field value on the GL side: h_box counts
 * steps in its Hx (update2d.glsl), so that one value is left out against
 * the cpu.  The grid is not a multiple of the work group (16 x 16) or of
 * any tile.  Without any GL context the tests are skipped, unless
 * TEXFDTD_REQUIRE_GPU=1.  No timing here.
 */
#include "gl_helpers.h"

#include "gl/texbuf.h"

static const char *BOX = "[grid]\nnx = 67\nny = 53\nsteps = 12\ncourant = 0.5\n"
                         "cells_per_wavelength = 20\n[source]\ntype = plane_wave\n";

enum { STEPS = 12 };

struct fixture {
    struct test_setup t;
    struct engine *g; /* gl-compute of the box: context, #defines, denormal mode */
    float *f0[3];     /* the random fields */
    float *cpu[3];    /* the cpu engine's after STEPS steps from them */
};

static void fixture_open(struct fixture *x)
{
    char err[ERRLEN];
    setup_from_text(&x->t, BOX, NULL, 0);
    const struct model *m = &x->t.model;
    cr_assert_eq(m->nslots, 0, "the box has no objects, hence no slots");
    x->g = gl_test_engine("gl-compute", m, DENORMALS_FLUSH, 0);
    for (int f = 0; f < 3; f++) {
        x->f0[f] = malloc(m->ncells * sizeof(float));
        x->cpu[f] = malloc(m->ncells * sizeof(float));
    }
    gl_bench_random_fields(m->nx, m->ny, 12345, x->f0[0], x->f0[1], x->f0[2]);
    struct engine_info info;
    engine_describe(x->g, &info);
    struct engine *c = gl_test_engine("cpu", m, info.denormals, 1);
    for (int f = 0; f < 3; f++)
        cr_assert_eq(engine_write(c, (enum field)f, x->f0[f], err, sizeof err), 0, "%s", err);
    cr_assert_eq(engine_step(c, STEPS, err, sizeof err), 0, "%s", err);
    for (int f = 0; f < 3; f++)
        cr_assert_eq(engine_read(c, (enum field)f, x->cpu[f], err, sizeof err), 0, "%s", err);
    engine_destroy(c);
}

static void fixture_close(struct fixture *x)
{
    for (int f = 0; f < 3; f++) {
        free(x->f0[f]);
        free(x->cpu[f]);
    }
    engine_destroy(x->g);
    setup_free(&x->t);
}

/* Case c from the random fields for `steps` steps (or copies), into w. */
static void run_case(struct fixture *x, const struct gl_texbuf_case *c, int steps, float *w[3])
{
    char err[ERRLEN];
    const size_t n = x->t.model.ncells;
    for (int f = 0; f < 3; f++) {
        w[f] = malloc(n * sizeof(float));
        memcpy(w[f], x->f0[f], n * sizeof(float));
    }
    cr_assert_eq(gl_texbuf_run(x->g, &x->t.model, c, steps, 0, 0, w[0], w[1], w[2], NULL, err,
                               sizeof err),
                 0, "%s %s: %s", gl_texbuf_kernel_name(c->kernel),
                 gl_texbuf_access_name(c->access), err);
}

/* Every access path and layout of `kernel` against the cpu engine. */
static void all_paths_give_cpu_bits(enum gl_texbuf_kernel kernel, int k, int tx, int ty)
{
    struct fixture x;
    fixture_open(&x);
    const struct model *m = &x.t.model;
    const size_t counter = m->ncells - 1; /* Hx of texel (nx-1, ny-1) */
    size_t moved = 0;
    for (size_t q = 0; q < m->ncells; q++)
        moved += x.cpu[0][q] != x.f0[0][q];
    cr_assert_gt(moved, m->ncells / 2, "the cpu's steps changed %zu Ez values only", moved);
    for (int planar = 0; planar < 2; planar++)
        for (int a = 0; a < GL_TEXBUF_ACCESSES; a++) {
            const struct gl_texbuf_case c = {.access = (enum gl_texbuf_access)a,
                                             .kernel = kernel, .planar = planar, .tb_k = k,
                                             .tile_x = tx, .tile_y = ty};
            float *w[3];
            run_case(&x, &c, STEPS, w);
            w[1][counter] = x.cpu[1][counter];
            for (int f = 0; f < 3; f++) {
                uint32_t ulp = 0;
                const size_t d = count_bit_differences(w[f], x.cpu[f], m->ncells, &ulp);
                cr_expect_eq(d, 0,
                             "%s over %s (%s): %s after %d steps: %zu of %zu values differ "
                             "from cpu (max %u ulp)",
                             gl_texbuf_kernel_name(kernel), gl_texbuf_access_name(c.access),
                             planar ? "planar" : "rg", field_name((enum field)f), STEPS, d,
                             m->ncells, ulp);
            }
            for (int f = 0; f < 3; f++)
                free(w[f]);
        }
    fixture_close(&x);
}

Test(gl_texbuf, step_on_every_path_gives_the_cpu_bits)
{
    all_paths_give_cpu_bits(GL_TEXBUF_STEP, 1, 0, 0);
}

Test(gl_texbuf, four_steps_per_dispatch_on_every_path_give_the_cpu_bits)
{
    all_paths_give_cpu_bits(GL_TEXBUF_TB, 4, 32, 16);
}

Test(gl_texbuf, three_steps_per_dispatch_on_odd_tiles_give_the_cpu_bits)
{
    all_paths_give_cpu_bits(GL_TEXBUF_TB, 3, 13, 7);
}

/* The copy reads and writes every value once: an odd and an even number
 * of copies give the fields back, bit for bit, on every path. */
Test(gl_texbuf, copy_keeps_every_value_on_every_path)
{
    struct fixture x;
    fixture_open(&x);
    const size_t n = x.t.model.ncells;
    for (int copies = 1; copies <= 2; copies++)
        for (int planar = 0; planar < 2; planar++)
            for (int a = 0; a < GL_TEXBUF_ACCESSES; a++) {
                const struct gl_texbuf_case c = {.access = (enum gl_texbuf_access)a,
                                                 .kernel = GL_TEXBUF_COPY, .planar = planar};
                float *w[3];
                run_case(&x, &c, copies, w);
                for (int f = 0; f < 3; f++) {
                    cr_expect_eq(memcmp(w[f], x.f0[f], n * sizeof(float)), 0,
                                 "copy over %s (%s), %d copies: %s changed",
                                 gl_texbuf_access_name(c.access), planar ? "planar" : "rg",
                                 copies, field_name((enum field)f));
                    free(w[f]);
                }
            }
    fixture_close(&x);
}

/* Steps that are no multiple of K are refused, nothing run. */
Test(gl_texbuf, refuses_steps_short_of_k)
{
    struct fixture x;
    fixture_open(&x);
    char err[ERRLEN];
    const struct gl_texbuf_case c = {.access = GL_TEXBUF_SSBO, .kernel = GL_TEXBUF_TB,
                                     .tb_k = 4, .tile_x = 32, .tile_y = 16};
    float *w[3];
    for (int f = 0; f < 3; f++)
        w[f] = x.f0[f];
    cr_assert_eq(gl_texbuf_run(x.g, &x.t.model, &c, 6, 0, 0, w[0], w[1], w[2], NULL, err,
                               sizeof err),
                 -1);
    cr_assert(strstr(err, "no multiples of K = 4") != NULL, "%s", err);
    fixture_close(&x);
}
