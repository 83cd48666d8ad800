/* gl_texbuf.h - `gl_bench texbuf N STEPS [REPS]` (issue 14, item 1): what
 * the texture path (texelFetch, imageLoad/imageStore) costs against storage
 * buffers in gl-compute's update, measured in one run.  Included once, by
 * bench/gl_bench.c; the runs themselves are gl/texbuf.c's.
 *
 * On the same random fields of an N x N vacuum PEC box (gl_bench_fill_random's
 * seed 12345), each case runs one pass text over each access path
 * (shaders/texbuf_access.glsl): ssbo (storage buffers), image (imageLoad
 * from readonly images, imageStore into writeonly ones), texture (texelFetch
 * from samplers, imageStore: the engine's path), in the engine's layout
 * (rg: Ez R32F, (Hx, Hy) RG32F) and in three R32F fields (planar):
 *   copy  Ez, Hx, Hy read and written once a cell (the memory floor)
 *   step  the fused one-step dispatch (update_he.comp's scheme, vacuum)
 *   tb    K steps per dispatch in tiles (update_tb.comp; K and the tile from
 *         TEXFDTD_GLC_K and TEXFDTD_GLC_TILE, default 4 and 32x16)
 * with the engine's work-group size (TEXFDTD_GL_LOCAL, default 16x16).  Each
 * case: a warm-up of STEPS/10 steps, then REPS (5) timed runs of STEPS
 * (GL_TIME_ELAPSED), the median; STEPS and the warm-up rounded up to
 * multiples of K.  Bytes: 24 a cell and step (Ez, Hx, Hy read once and
 * written once, 4 bytes each; the neighbours' re-reads ignored), 24 / K for
 * tb.  Then the fields read back: `differ` counts the float32 values (of Ez,
 * Hx, Hy) whose bits differ from ssbo/rg of the same run after the same
 * steps (step and tb; the first step case run if the device refused
 * ssbo/rg: a vec2 array of 16384^2 is 2^31 bytes, over NVIDIA's
 * GL_MAX_SHADER_STORAGE_BLOCK_SIZE if it is 2^31 - 1) or from the initial
 * fields (copy: an even or odd number of copies, all the same fields);
 * then the engine itself (gl-compute, its default path) from
 * gl_bench_fill_random's fields, as many steps timed the same way (but
 * over engine_step, fenced batches and all, as gl_bench speed times it):
 * the same bits but for its step counter's texel;
 * `changed`: the values that differ from the initial fields (a step moves
 * most of them).  Exit 2 if any differ (or a case failed); a case the device
 * refuses is skipped.
 */
#include "gl/texbuf.h"

static int texbuf_box(int n, struct scene *s, struct model *m)
{
    char text[256], err[ERRLEN];
    snprintf(text, sizeof text,
             "[grid]\nnx = %d\nny = %d\nsteps = 1\ncourant = 0.5\ncells_per_wavelength = 20\n"
             "[source]\ntype = plane_wave\n",
             n, n);
    if (scene_load_text(s, "texbuf_box.ini", text, strlen(text), NULL, 0, err, sizeof err)
        || model_build(m, s, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return -1;
    }
    return 0;
}

/* The values of the three fields whose bits differ (as words: the loop
 * vectorizes, 16384^2 cells take a fraction of a second). */
static size_t texbuf_differ(const float *const a[3], const float *const b[3], size_t n)
{
    size_t d = 0;
    for (int f = 0; f < 3; f++)
        for (size_t q = 0; q < n; q++) {
            uint32_t x, y;
            memcpy(&x, &a[f][q], 4);
            memcpy(&y, &b[f][q], 4);
            d += x != y;
        }
    return d;
}

static int texbuf_bench(int n, int steps, int reps)
{
    struct scene s;
    struct model m;
    char err[ERRLEN];
    reps = reps < 1 ? 1 : reps;
    if (n < 8 || texbuf_box(n, &s, &m))
        return 1;
    int k = 4, tx = 32, ty = 16;
    const char *kz = getenv("TEXFDTD_GLC_K"), *tz = getenv("TEXFDTD_GLC_TILE");
    if (kz && atoi(kz) > 1)
        k = atoi(kz);
    if (tz)
        sscanf(tz, "%dx%d", &tx, &ty);
    steps = (steps < k ? k : steps + k - 1) / k * k;
    const int warm = (steps / 10 < k ? k : steps / 10 + k - 1) / k * k;
    struct engine *e;
    const struct engine_options o = gl_opts();
    if (engine_create("gl-compute", &m, &o, &e, err, sizeof err)) {
        fprintf(stderr, "gl_bench: %s\n", err);
        return 1;
    }
    struct engine_info info;
    engine_describe(e, &info);
    int lx, ly;
    gl_texbuf_local(e, &lx, &ly);
    const size_t nc = m.ncells;
    float *f0[3], *ref[3], *w[3];
    for (int f = 0; f < 3; f++) {
        f0[f] = malloc(nc * 4);
        ref[f] = malloc(nc * 4);
        w[f] = malloc(nc * 4);
        if (!f0[f] || !ref[f] || !w[f]) {
            fprintf(stderr, "gl_bench: out of host memory for %zu cells\n", nc);
            return 1;
        }
    }
    gl_bench_random_fields(n, n, 12345, f0[0], f0[1], f0[2]);
    double *t = calloc((size_t)reps, sizeof *t);
    double best[3][2][GL_TEXBUF_ACCESSES] = {{{0}}};
    int bad = 0, have_ref = 0;
    char ref_name[64] = "";
    printf("texbuf n %d steps %d warm %d reps %d local %dx%d K %d tile %dx%d device \"%s\"\n",
           n, steps, warm, reps, lx, ly, k, tx, ty, info.device);
    fflush(stdout);
    const enum gl_texbuf_kernel order[3] = {GL_TEXBUF_COPY, GL_TEXBUF_STEP, GL_TEXBUF_TB};
    /* TEXBUF_ONLY = copy, step or tb: that kernel only (the blocked cases
     * alone fit a stage's time limit) */
    const char *only = getenv("TEXBUF_ONLY");
    for (int ki = 0; ki < 3; ki++)
        for (int planar = 0; planar < 2 && !(only && *only && strcmp(only, gl_texbuf_kernel_name(order[ki])));
             planar++)
            for (int a = 0; a < GL_TEXBUF_ACCESSES; a++) {
                const struct gl_texbuf_case c = {.access = (enum gl_texbuf_access)a,
                                                 .kernel = order[ki], .planar = planar,
                                                 .tb_k = k, .tile_x = tx, .tile_y = ty};
                for (int f = 0; f < 3; f++)
                    memcpy(w[f], f0[f], nc * 4);
                const char *kname = gl_texbuf_kernel_name(c.kernel);
                printf("texbuf kernel %s access %s layout %s ", kname,
                       gl_texbuf_access_name(c.access), planar ? "planar" : "rg");
                const int rc = gl_texbuf_run(e, &m, &c, warm, steps, reps, w[0], w[1], w[2], t,
                                             err, sizeof err);
                if (rc) {
                    printf("%s: %s\n", rc > 0 ? "skipped" : "failed", err);
                    fflush(stdout);
                    bad |= rc < 0;
                    continue;
                }
                /* the reference: the initial fields for copy, the first
                 * step case run (ssbo/rg unless the device refused it), or
                 * with TEXBUF_ONLY the first case (the same steps' bits) */
                if ((c.kernel == GL_TEXBUF_STEP || (only && *only && c.kernel != GL_TEXBUF_COPY))
                    && !have_ref) {
                    for (int f = 0; f < 3; f++)
                        memcpy(ref[f], w[f], nc * 4);
                    snprintf(ref_name, sizeof ref_name, "%s/%s/%s", kname,
                             gl_texbuf_access_name(c.access), planar ? "planar" : "rg");
                    have_ref = 1;
                }
                float *const *want = c.kernel == GL_TEXBUF_COPY ? f0 : ref;
                const size_t d = texbuf_differ((const float *const *)w,
                                               (const float *const *)want, nc);
                /* the cells a step or tb run changed (of 3 N^2 values): most */
                const size_t moved = texbuf_differ((const float *const *)w,
                                                   (const float *const *)f0, nc);
                const double med = bench_median(t, reps);
                const double bytes = c.kernel == GL_TEXBUF_TB ? 24.0 / k : 24.0;
                const double cells = (double)nc * steps / med;
                best[ki][planar][a] = cells;
                printf("median_s %.6f min_s %.6f max_s %.6f mcells_per_s %.1f gb_per_s %.1f "
                       "bytes_per_cell %.1f changed %zu differ: %zu (against %s)\n",
                       med, t[0], t[reps - 1], cells * 1e-6, cells * bytes * 1e-9, bytes, moved,
                       d, c.kernel == GL_TEXBUF_COPY ? "the initial fields" : ref_name);
                fflush(stdout);
                bad |= d != 0;
            }
    /* the engine itself from gl_bench_fill_random's fields, as many steps:
     * the reference's bits but for its step counter's texel (nx-1, ny-1) */
    if (have_ref) {
        int rc = gl_bench_fill_random(e, 12345, err, sizeof err)
                 || engine_step(e, warm, err, sizeof err);
        for (int r = 0; r < reps && !rc; r++) /* timed as gl_bench speed times it */
            rc = gl_bench_timed_steps(e, steps, &t[r], err, sizeof err);
        for (int f = 0; f < 3 && !rc; f++)
            rc = engine_read(e, (enum field)f, w[f], err, sizeof err);
        if (rc) {
            printf("texbuf engine gl-compute failed: %s\n", err);
            bad = 1;
        } else {
            w[1][nc - 1] = ref[1][nc - 1]; /* the counter texel: its Hx counts, */
            w[2][nc - 1] = ref[2][nc - 1]; /* its Hy was set to 0 by the fill */
            const size_t d = texbuf_differ((const float *const *)w, (const float *const *)ref, nc);
            const double med = bench_median(t, reps), cells = (double)nc * steps / med;
            printf("texbuf engine gl-compute median_s %.6f min_s %.6f max_s %.6f mcells_per_s "
                   "%.1f differ: %zu (against %s) path \"%s\"\n",
                   med, t[0], t[reps - 1], cells * 1e-6, d, ref_name, info.detail);
            bad |= d != 0;
        }
        fflush(stdout);
    }
    for (int ki = 0; ki < 3; ki++)
        for (int planar = 0; planar < 2; planar++) {
            const double *b = best[ki][planar];
            int fast = 0;
            for (int a = 1; a < GL_TEXBUF_ACCESSES; a++)
                fast = b[a] > b[fast] ? a : fast;
            printf("texbuf summary kernel %s layout %s image/ssbo %.3f texture/ssbo %.3f "
                   "fastest %s\n",
                   gl_texbuf_kernel_name(order[ki]), planar ? "planar" : "rg",
                   b[0] > 0 ? b[1] / b[0] : 0.0, b[0] > 0 ? b[2] / b[0] : 0.0,
                   gl_texbuf_access_name((enum gl_texbuf_access)fast));
        }
    for (int f = 0; f < 3; f++) {
        free(f0[f]);
        free(ref[f]);
        free(w[f]);
    }
    free(t);
    engine_destroy(e);
    model_free(&m);
    scene_free(&s);
    return bad || !have_ref ? 2 : 0;
}
