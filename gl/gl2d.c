/* gl2d.c - the GL engines: 2D TMz FDTD as ping-ponged float textures.
 *
 *   gl          per time step one fragment pass for H and one for E, each a
 *               full-screen triangle into the other texture of its pair
 *               (Takada et al. 2007, rebuilt with OpenGL 4.3 core, GLSL, EGL)
 *   gl-compute  the same update as two compute dispatches on the same
 *               textures (texelFetch in, imageStore out)
 *
 * Both run the arithmetic of shaders/update2d.glsl, which is cpu/update2d.inc
 * statement for statement with `precise` everywhere, and add source-slot
 * values tabulated on the host by model_slot_values_f(), so their float32
 * fields equal the CPU engine's bit for bit in the matching denormal mode.
 *
 * Textures:
 *   ez   R32F pair     Ez(i, j)
 *   h    RG32F pair    (Hx(i, j+1/2), Hy(i+1/2, j)); texel (nx-1, ny-1) holds
 *                      the step counter (see update2d.glsl)
 *   mat  R8UI          material index per cell
 *   slot R32UI         slot index per cell of the slots' bounding box
 *   slot_values        R32F texture buffer: a batch of steps' slot values
 *                      (then the conformal cut edges' b^n), two buffers used
 *                      in turn
 * and, where the scene has them (docs/gl.md, "Absorbing boundaries ..."):
 *   psi  4 R32F pairs  CPML memory shaped like the slabs (nx x 2N, 2N x ny);
 *                      gl: small psi passes before the H and E passes;
 *                      gl-compute: updated in place through images
 *   prof RGBA32F       CPML (b, c, ik) per position: rows xe, xh, ye, yh
 *   dft  RG32F array   running DFT sums of Ez, a layer per [monitor.dft]
 *                      frequency (gl: a pair; render targets beside Ez in
 *                      the E pass, the frequencies beyond 7 in update_dft
 *                      passes; gl-compute: one array image, in place)
 *   cut_idx RG32UI + cut_edges RGBA32UI buffer: the conformal cut edges
 * Mur walls and the point source need no texture (uniforms).  Scenes with
 * any of these run one step per fragment pass and, in gl-compute, two
 * dispatches per step.
 *
 * Monitors (core/monitor.h: probes, flux, the far field) need one small pass
 * per step that copies the bits of model->samples into the next row of a
 * batch on the GPU, and one readback per read_samples call (every
 * model->sample_rows steps at most), never one per step:
 *   gl          sample list RG32UI texture (cell, field), W x H texels;
 *               rows target R32UI, W x (sample_rows H): step r of the batch
 *               draws gather.frag into texel rows r H .. r H + H-1; one
 *               glReadPixels reads the batch
 *   gl-compute  sample list and rows in storage buffers; gather.comp, one
 *               invocation per sample, writes rows[r][q]; one
 *               glGetBufferSubData reads the batch
 * (docs/gl.md, "Monitors").  Scenes with monitors run one step per fragment
 * pass.
 *
 * Never a silent wrong answer (issue 3, item 7): the steps are sent in batches
 * of a fraction of a second of GPU time, each closed by a fence; at most two
 * batches are in flight.  At each fence the host checks that it signalled in
 * time, that the context was not reset, and that the step counter the H passes
 * carry equals the steps sent; otherwise step() fails and the engine refuses
 * further work.
 */
#define _GNU_SOURCE
#include <GL/glew.h>

#include "core/util.h"
#include "gl/gl.h"
#include "gl/gl2d_internal.h"
#include "gl/shader.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#define COUNTER_ONE 0x3f800000u     /* counter bits for 0 steps: 1.0f */
#define BATCH_TARGET_S 0.25         /* GPU time per fenced batch */
#define BATCH_FIRST_S 0.05          /* ... of the first batch, from a guessed speed */
#define BATCH_MAX_STEPS 100000
#define FENCE_TIMEOUT_S_DEFAULT 60.0
#define SLOT_BUFFER_MAX_FLOATS (16u << 20) /* 64 MiB of slot values per batch */
/* Steps per fragment pass of `gl`, chosen by measurement (docs/gl.md): on the
 * H100, 2 passes the render-target write cap (4.9 against 4.2 Gcells/s)
 * while 3 and 4 crawl (0.2 and 0.09 Gcells/s, probably local-memory arrays;
 * with full unrolling 3 did not finish at all); on llvmpipe,
 * a CPU, recomputation only costs, so 1.  TEXFDTD_GL_STEPS_PER_PASS (1 or 2)
 * overrides. */
#define GL_STEPS_PER_PASS_GPU 2
#define GL_STEPS_PER_PASS_SOFTWARE 1
#define GL_STEPS_PER_PASS_MAX 2
#define LOCAL_X 16
#define LOCAL_Y 16

/* ---- sizes and memory, checked before anything is allocated ---- */

static double host_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib < 0 ? -1 : kib * 1024.0;
}

/* Free GPU memory in bytes, or -1 if the driver does not say. */
static double gpu_mem_available(const struct gl_engine *g)
{
    if (g->info.software)
        return host_mem_available();
    if (GLEW_NVX_gpu_memory_info) {
        GLint kib = 0;
        glGetIntegerv(GL_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX, &kib);
        return (double)kib * 1024.0;
    }
    if (GLEW_ATI_meminfo) {
        GLint v[4] = {0};
        glGetIntegerv(GL_TEXTURE_FREE_MEMORY_ATI, v);
        return (double)v[0] * 1024.0;
    }
    return -1;
}

static int check_sizes(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    GLint max_tex = 0, max_tbo = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_tex);
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_tbo);
    if (m->nx > max_tex || m->ny > max_tex)
        return seterr(err, errlen,
                      "grid %d x %d is too large for this GPU: GL_MAX_TEXTURE_SIZE is %d on "
                      "%s, the grid needs %d; nothing was run",
                      m->nx, m->ny, max_tex,
                      g->info.renderer, m->nx > m->ny ? m->nx : m->ny);
    if (g->stride > (size_t)max_tbo || m->ncut > (size_t)max_tbo)
        return seterr(err, errlen,
                      "%zu source slots (object cells) and %zu cut edges exceed "
                      "GL_MAX_TEXTURE_BUFFER_SIZE %d on %s; nothing was run",
                      m->nslots, m->ncut, max_tbo, g->info.renderer);
    if (g->nsamples && !g->compute
        && (size_t)g->sample_rows * (size_t)g->gather_h > (size_t)max_tex)
        return seterr(err, errlen,
                      "%zu monitor samples in batches of %d steps need a %d x %zu texture, "
                      "above GL_MAX_TEXTURE_SIZE %d on %s; nothing was run",
                      g->nsamples, g->sample_rows, g->gather_w,
                      (size_t)g->sample_rows * (size_t)g->gather_h, max_tex, g->info.renderer);
    if (g->nsamples && g->compute) {
        GLint max_ssbo = 0, max_groups = 0;
        glGetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_ssbo);
        glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_groups);
        const double rows_bytes = 4.0 * (double)g->sample_rows * (double)g->nsamples;
        if (8.0 * (double)g->nsamples > (double)max_ssbo || rows_bytes > (double)max_ssbo
            || (double)g->nsamples > (double)max_groups * GATHER_LOCAL)
            return seterr(err, errlen,
                          "%zu monitor samples in batches of %d steps exceed the storage "
                          "buffers (GL_MAX_SHADER_STORAGE_BLOCK_SIZE %d B) or work groups "
                          "(%d) of %s; nothing was run",
                          g->nsamples, g->sample_rows, max_ssbo, max_groups, g->info.renderer);
    }
    const size_t cells = m->ncells;
    /* two Ez (4 B), two H (8 B), material (1 B) per cell; the DFT sums (8 B
     * per frequency, twice in gl); slot indices over the bounding box; two
     * slot-value buffers; the monitors' sample list and rows */
    const double dft_bytes = g->dft ? 8.0 * g->dft_nf * (g->compute ? 1 : 2) : 0.0;
    const double gathered = g->compute ? (double)g->nsamples
                                       : (double)g->gather_w * (double)g->gather_h;
    const double need = (double)cells * (2 * 4 + 2 * 8 + 1 + dft_bytes)
                        + (double)g->slot_w * g->slot_h * 4
                        + 2.0 * 4 * (double)g->slot_cap_steps * (double)g->stride
                        + 2.0 * 4 * 4 * (double)g->pml_n * ((double)m->nx + m->ny)
                        + (double)g->cut_w * g->cut_h * 8 + 16.0 * (double)m->ncut
                        + gathered * (8.0 + 4.0 * g->sample_rows);
    const double have = gpu_mem_available(g);
    if (have >= 0 && need > have) {
        char a[32], b[32];
        return seterr(err, errlen,
                      "grid %d x %d needs %s of %s memory, %s is available on %s; nothing "
                      "was run",
                      m->nx, m->ny, fmt_bytes(need, a, sizeof a),
                      g->info.software ? "host" : "GPU", fmt_bytes(have, b, sizeof b),
                      g->info.renderer);
    }
    return 0;
}

/* ---- the denormal probe ---- */

static int probe_denormals(struct gl_engine *g, bool compute, struct denormal_probe *out,
                           char *err, size_t errlen)
{
    GLuint prog = 0;
    const char *fs[2] = {"fullscreen.vert", "probe_denormals.frag"};
    const char *cs[1] = {"probe_denormals.comp"};
    if (gl_program_build(g->shader_dir, NULL, compute ? cs : fs, compute ? 1 : 2, "", &prog, err,
                         errlen))
        return -1;
    const uint32_t bits[4] = {0x00800000u, 0x3f000000u, 0x00400000u, 0x00000000u};
    const char *names[4] = {"a", "b", "d", "z"};
    for (int k = 0; k < 4; k++) {
        float v;
        memcpy(&v, &bits[k], 4);
        glProgramUniform1f(prog, glGetUniformLocation(prog, names[k]), v);
    }
    GLuint tex = gl2d_make_tex(GL_RG32UI, 1, 1), fbo = 0;
    if (gl2d_make_fbo(tex, &fbo, "denormal probe", err, errlen)) {
        glDeleteTextures(1, &tex);
        glDeleteProgram(prog);
        return -1;
    }
    glUseProgram(prog);
    if (compute) {
        glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RG32UI);
        glProgramUniform1i(prog, glGetUniformLocation(prog, "bits"), 0);
        glDispatchCompute(1, 1, 1);
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
    } else {
        glViewport(0, 0, 1, 1);
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    GLuint got[2] = {1, 1};
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
    glReadPixels(0, 0, 1, 1, GL_RG_INTEGER, GL_UNSIGNED_INT, got);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &tex);
    glDeleteProgram(prog);
    if (gl2d_check_gl(compute ? "compute denormal probe" : "fragment denormal probe", err, errlen))
        return -1;
    out->flushes_results = got[0] == 0;
    out->flushes_inputs = got[1] == 0;
    return 0;
}

static bool probe_flushes(const struct denormal_probe *p)
{
    return p->flushes_results && p->flushes_inputs;
}

static bool probe_keeps(const struct denormal_probe *p)
{
    return !p->flushes_results && !p->flushes_inputs;
}

/* ---- create / destroy ---- */

static void gl_destroy(struct engine *e)
{
    struct gl_engine *g = G(e);
    if (g->egl && !egl_context_make_current(g->egl, NULL, 0)) {
        for (int k = 0; k < 2; k++)
            if (g->fence[k])
                glDeleteSync(g->fence[k]);
        gl2d_free_pair(&g->ez);
        gl2d_free_pair(&g->h);
        glDeleteTextures(1, &g->mat_tex);
        glDeleteTextures(1, &g->slot_tex);
        glDeleteTextures(2, g->slot_tbo);
        glDeleteBuffers(2, g->slot_buf);
        glDeleteBuffers(2, g->counter_pbo);
        glDeleteVertexArrays(1, &g->vao);
        glDeleteProgram(g->hpass.prog);
        glDeleteProgram(g->epass.prog);
        glDeleteProgram(g->hepass.prog);
        glDeleteProgram(g->kpass.prog);
        glDeleteFramebuffers(2, g->mrt_fbo);
        glDeleteProgram(g->psi_hpass.prog);
        glDeleteProgram(g->psi_epass.prog);
        for (int k = 0; k < PSI_COUNT; k++)
            gl2d_free_pair(&g->psi[k]);
        glDeleteTextures(2, g->dft_pp.tex);
        glDeleteFramebuffers(2, g->dft_mrt_fbo);
        if (g->dft_group_fbo)
            glDeleteFramebuffers(2 * g->dft_groups, g->dft_group_fbo);
        glDeleteFramebuffers(1, &g->layer_fbo);
        glDeleteProgram(g->dftpass.prog);
        glDeleteProgram(g->gather.prog);
        glDeleteTextures(1, &g->sample_tex);
        glDeleteTextures(1, &g->rows_tex);
        glDeleteFramebuffers(1, &g->rows_fbo);
        glDeleteBuffers(1, &g->sample_buf);
        glDeleteBuffers(1, &g->rows_buf);
        glDeleteTextures(1, &g->prof_tex);
        glDeleteTextures(1, &g->cut_idx_tex);
        glDeleteTextures(1, &g->cut_edge_tbo);
        glDeleteBuffers(1, &g->cut_edge_buf);
        glDeleteProgram(g->color_prog);
        glDeleteFramebuffers(1, &g->color_fbo);
        glDeleteTextures(1, &g->color_tex);
        glDeleteProgram(g->check_prog);
        glDeleteBuffers(1, &g->check_buf);
    }
    egl_context_destroy(g->egl);
    free(g->slot_host);
    free(g->dft_group_fbo);
    free(g->rows_host);
    free(g);
}

static double env_double(const char *name, double dflt)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return dflt;
    const double d = strtod(v, &end);
    return *end ? dflt : d;
}

/* The counter texel starts at COUNTER_ONE (0 steps) in both H textures. */
void gl2d_reset_counter(struct gl_engine *g)
{
    float v[2] = {0, 0};
    const uint32_t one = COUNTER_ONE + g->counted;
    memcpy(&v[0], &one, 4);
    for (int k = 0; k < 2; k++) {
        glBindTexture(GL_TEXTURE_2D, g->h.tex[k]);
        glTexSubImage2D(GL_TEXTURE_2D, 0, g->nx - 1, g->ny - 1, 1, 1, GL_RG, GL_FLOAT, v);
    }
}

static int gl_create_common(const struct model *m, const struct engine_options *o, bool compute,
                            struct engine **out, char *err, size_t errlen)
{
    const char *name = compute ? "gl-compute" : "gl";
    if (o->precision != PRECISION_SINGLE)
        return seterr(err, errlen,
                      "%s: the GL engines compute in single precision only (float32 textures); "
                      "use --precision single, or --engine cpu for double",
                      name);
    struct gl_engine *g = xcalloc(1, sizeof *g, "gl engine", err, errlen);
    if (!g)
        return -1;
    g->compute = compute;
    g->cpml = m->scene->boundary == BOUNDARY_CPML && m->pml_n > 0;
    g->pml_n = g->cpml ? m->pml_n : 0;
    g->mur = m->scene->boundary == BOUNDARY_MUR;
    g->dft = m->scene->dft;
    if (g->dft) {
        /* gl: the E pass takes up to DFT_E_MAX frequencies, update_dft
         * passes DFT_G_MAX each after it; gl-compute: the E dispatch all */
        g->dft_nf = m->scene->dft_nfreq;
        g->dft_e = compute || g->dft_nf < DFT_E_MAX ? g->dft_nf : DFT_E_MAX;
        g->dft_groups = (g->dft_nf - g->dft_e + DFT_G_MAX - 1) / DFT_G_MAX;
    }
    g->nsamples = m->nsamples;
    g->sample_rows = m->sample_rows;
    g->point = m->scene->source_type == SOURCE_POINT;
    g->conformal = m->ncut > 0;
    if (g->point) {
        const size_t pc = model_point_cell(m);
        g->point_x = (int)(pc % (size_t)m->nx);
        g->point_y = (int)(pc / (size_t)m->nx);
    }
    gl2d_cut_bbox(g, m);
    g->stride = m->nslots + m->ncut;
    /* The fused dispatch recomputes halo H (psi would be updated twice) and
     * cannot see a Mur wall's neighbour across tiles: scenes with any of the
     * features run two dispatches. */
    const char *fz = getenv("TEXFDTD_GL_FUSED");
    g->fused = compute && !(fz && !strcmp(fz, "0")) && !gl2d_has_features(g);
    g->local_x = LOCAL_X;
    g->local_y = LOCAL_Y;
    const char *lz = getenv("TEXFDTD_GL_LOCAL");
    int lx, ly;
    if (lz && sscanf(lz, "%dx%d", &lx, &ly) == 2 && lx > 0 && ly > 0 && lx * ly <= 1024) {
        g->local_x = lx;
        g->local_y = ly;
    }
    g->k = 1; /* until the device is known */
    g->nx = m->nx;
    g->ny = m->ny;
    g->nslots = m->nslots;
    gl_shader_dir(o->shader_dir, g->shader_dir, sizeof g->shader_dir);
    char e2[ERRLEN];
    if (egl_context_create(o->device, &g->egl, &g->info, e2, sizeof e2)) {
        seterr(err, errlen, "%s: %s", name, e2);
        free(g);
        return -1;
    }
    log_info("%s: %s | %s | %s (%s%s)", name, g->info.vendor, g->info.renderer, g->info.version,
             g->info.platform, g->info.robust ? ", robust context" : ", no reset notification");

    const char *kz = getenv("TEXFDTD_GL_STEPS_PER_PASS");
    if (!compute)
        g->k = g->info.software ? GL_STEPS_PER_PASS_SOFTWARE : GL_STEPS_PER_PASS_GPU;
    if (!compute && kz && atoi(kz) >= 1)
        g->k = atoi(kz) > GL_STEPS_PER_PASS_MAX ? GL_STEPS_PER_PASS_MAX : atoi(kz);
    /* update_k.frag knows PEC boxes with slots only, and the monitors
     * gather after every step */
    if (gl2d_has_features(g) || g->nsamples)
        g->k = 1;
    if (g->nsamples) {
        /* gl: the sample list is one texture row, or a band of rows of the
         * widest texture (TEXFDTD_GL_GATHER_WIDTH narrows it, for tests) */
        GLint max_tex = 0;
        glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_tex);
        const char *gw = getenv("TEXFDTD_GL_GATHER_WIDTH");
        if (gw && atoi(gw) > 0 && atoi(gw) < max_tex)
            max_tex = atoi(gw);
        g->gather_w = g->nsamples < (size_t)max_tex ? (int)g->nsamples : max_tex;
        g->gather_h = (int)((g->nsamples + (size_t)g->gather_w - 1) / (size_t)g->gather_w);
    }
    gl2d_slot_bbox(g, m);
    g->slot_cap_steps = BATCH_MAX_STEPS;
    if (g->stride) {
        GLint max_tbo = 0;
        glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_tbo);
        size_t cap = SLOT_BUFFER_MAX_FLOATS < (size_t)max_tbo ? SLOT_BUFFER_MAX_FLOATS
                                                              : (size_t)max_tbo;
        cap /= g->stride;
        g->slot_cap_steps = cap < 1 ? 1 : cap > BATCH_MAX_STEPS ? BATCH_MAX_STEPS : (int)cap;
    }
    if (check_sizes(g, m, err, errlen)) {
        gl_destroy(&g->base);
        return gl2d_prefix_err(name, err, errlen);
    }

    /* Denormals: probe the stage this engine computes in; FLUSH is asked
     * for -> flush in hardware, or emulate it in GLSL where the driver keeps
     * them; KEEP is asked for -> only where the driver keeps them. */
    glGenVertexArrays(1, &g->vao);
    glBindVertexArray(g->vao);
    struct denormal_probe *pr = compute ? &g->probe_comp : &g->probe_frag;
    if (probe_denormals(g, false, &g->probe_frag, err, errlen)
        || probe_denormals(g, true, &g->probe_comp, err, errlen)) {
        gl_destroy(&g->base);
        return gl2d_prefix_err(name, err, errlen);
    }
    if (o->denormals == DENORMALS_KEEP && probe_keeps(pr)) {
        g->denormals = DENORMALS_KEEP;
        g->emulate_flush = false;
    } else {
        g->denormals = DENORMALS_FLUSH;
        g->emulate_flush = !probe_flushes(pr);
        if (o->denormals == DENORMALS_KEEP)
            log_warn("%s: denormals 'keep' was asked for, but %s flushes them in %s shaders: "
                     "running with 'flush'",
                     name, g->info.renderer, compute ? "compute" : "fragment");
    }

    if (gl2d_make_pair(&g->ez, GL_R32F, m->nx, m->ny, "Ez (R32F)", err, errlen)
        || gl2d_make_pair(&g->h, GL_RG32F, m->nx, m->ny, "H (RG32F)", err, errlen)
        || gl2d_make_feature_targets(g, m, err, errlen)
        || (g->nsamples && gl2d_make_gather_targets(g, m, err, errlen))
        || gl2d_upload_static(g, m, err, errlen) || gl2d_build_update_programs(g, m, err, errlen)) {
        gl_destroy(&g->base);
        return gl2d_prefix_err(name, err, errlen);
    }
    gl2d_reset_counter(g);
    if (gl2d_check_gl("allocating the field textures", err, errlen)) {
        gl_destroy(&g->base);
        return gl2d_prefix_err(name, err, errlen);
    }

    const char *fixed = getenv("TEXFDTD_GL_BATCH_STEPS");
    if (fixed && atoi(fixed) > 0) {
        g->batch_steps = atoi(fixed);
        g->batch_fixed = true;
    } else {
        const double guess = g->info.software ? 5e7 : 2e9; /* cells per second */
        const double b = BATCH_FIRST_S * guess / (double)m->ncells;
        g->batch_steps = b < 1 ? 1 : b > 1000 ? 1000 : (int)b;
    }
    g->fence_timeout_s = env_double("TEXFDTD_GL_FENCE_TIMEOUT_S", FENCE_TIMEOUT_S_DEFAULT);
    *out = &g->base;
    return 0;
}

static int gl_create(const struct model *m, const struct engine_options *o, struct engine **out,
                     char *err, size_t errlen)
{
    return gl_create_common(m, o, false, out, err, errlen);
}

static int gl_compute_create(const struct model *m, const struct engine_options *o,
                             struct engine **out, char *err, size_t errlen)
{
    return gl_create_common(m, o, true, out, err, errlen);
}

/* ---- stepping ---- */

/* gl, CPML: the new psi of the H slabs (first) or the E slabs, one small
 * pass per texture into the other texture of its pair; the H or E pass then
 * samples the new ones (UNIT_PSI0 + k). */
static void pass_psi(struct gl_engine *g, bool e_slabs)
{
    const struct pass *ps = e_slabs ? &g->psi_epass : &g->psi_hpass;
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_H, GL_TEXTURE_2D, g->h.tex[g->h.cur]);
    glUseProgram(ps->prog);
    for (int a = 0; a < 2; a++) {
        const int k = (e_slabs ? PSI_EZY : PSI_HXY) + a;
        struct pingpong *pp = &g->psi[k];
        glUniform1i(ps->axis, a);
        bind_tex(UNIT_PSI_OLD, GL_TEXTURE_2D, pp->tex[pp->cur]);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, pp->fbo[1 - pp->cur]);
        glViewport(0, 0, a == 0 ? g->nx : 2 * g->pml_n, a == 0 ? 2 * g->pml_n : g->ny);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        pp->cur ^= 1;
        bind_tex(UNIT_PSI0 + k, GL_TEXTURE_2D, pp->tex[pp->cur]);
    }
    glViewport(0, 0, g->nx, g->ny);
}

static void pass_h(struct gl_engine *g, int cut_base)
{
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_H, GL_TEXTURE_2D, g->h.tex[g->h.cur]);
    glUseProgram(g->hpass.prog);
    if (g->conformal)
        glUniform1i(g->hpass.cut_base, cut_base);
    if (g->compute) {
        glBindImageTexture(0, g->h.tex[1 - g->h.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RG32F);
        glDispatchCompute((GLuint)((g->nx + g->local_x - 1) / g->local_x),
                          (GLuint)((g->ny + g->local_y - 1) / g->local_y), 1);
        glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    } else {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->h.fbo[1 - g->h.cur]);
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    g->h.cur ^= 1;
}

static void pass_e(struct gl_engine *g, const struct step_in *in)
{
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_H, GL_TEXTURE_2D, g->h.tex[g->h.cur]);
    glUseProgram(g->epass.prog);
    glUniform1i(g->epass.slot_base, in->slot_base);
    if (g->point)
        glUniform1f(g->epass.point_v, in->point_v);
    if (g->dft) {
        glUniform1i(g->epass.dft_on, in->dft_on);
        glUniform1fv(g->epass.dft_wr, g->dft_e, in->dft_wr);
        glUniform1fv(g->epass.dft_wi, g->dft_e, in->dft_wi);
    }
    if (g->compute) {
        glBindImageTexture(0, g->ez.tex[1 - g->ez.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
        glDispatchCompute((GLuint)((g->nx + g->local_x - 1) / g->local_x),
                          (GLuint)((g->ny + g->local_y - 1) / g->local_y), 1);
        glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    } else if (g->dft) {
        /* Ez and the DFT sums swap together, so their cur stay equal */
        const int c = g->dft_pp.cur;
        bind_tex(UNIT_DFT, GL_TEXTURE_2D_ARRAY, g->dft_pp.tex[c]);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->dft_mrt_fbo[1 - c]);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        /* the frequencies beyond the E pass's targets, from the new Ez; before
         * start_step every sum is 0 in both textures and stays so */
        if (in->dft_on && g->dft_groups) {
            bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[1 - g->ez.cur]);
            glUseProgram(g->dftpass.prog);
            for (int q = 0; q < g->dft_groups; q++) {
                const int l0 = g->dft_e + q * DFT_G_MAX;
                float wr[DFT_G_MAX] = {0}, wi[DFT_G_MAX] = {0};
                for (int k = 0; k < DFT_G_MAX && l0 + k < g->dft_nf; k++) {
                    wr[k] = in->dft_wr[l0 + k];
                    wi[k] = in->dft_wi[l0 + k];
                }
                glUniform1i(g->dftpass.dft_first, l0);
                glUniform1fv(g->dftpass.dft_wr, DFT_G_MAX, wr);
                glUniform1fv(g->dftpass.dft_wi, DFT_G_MAX, wi);
                glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->dft_group_fbo[2 * q + 1 - c]);
                glDrawArrays(GL_TRIANGLES, 0, 3);
            }
        }
        g->dft_pp.cur ^= 1;
    } else {
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->ez.fbo[1 - g->ez.cur]);
        glDrawArrays(GL_TRIANGLES, 0, 3);
    }
    g->ez.cur ^= 1;
}

/* The monitors' gather after a step: the bits of every sample into row
 * rows_taken of the batch (gather.frag / gather.comp, docs/gl.md). */
static void pass_gather(struct gl_engine *g)
{
    const int r = g->rows_taken++;
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_H, GL_TEXTURE_2D, g->h.tex[g->h.cur]);
    glUseProgram(g->gather.prog);
    if (g->compute) {
        glUniform1ui(g->gather.row, (GLuint)((size_t)r * g->nsamples));
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SAMPLES, g->sample_buf);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_ROWS, g->rows_buf);
        glDispatchCompute((GLuint)((g->nsamples + GATHER_LOCAL - 1) / GATHER_LOCAL), 1, 1);
    } else {
        bind_tex(UNIT_SAMPLES, GL_TEXTURE_2D, g->sample_tex);
        glUniform1i(g->gather.row, r * g->gather_h);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->rows_fbo);
        glViewport(0, r * g->gather_h, g->gather_w, g->gather_h);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        glViewport(0, 0, g->nx, g->ny);
    }
}

/* k steps in one fragment pass into both pairs (update_k.frag). */
static void pass_k(struct gl_engine *g, int slot_base)
{
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_H, GL_TEXTURE_2D, g->h.tex[g->h.cur]);
    glUseProgram(g->kpass.prog);
    glUniform1i(g->kpass.slot_base, slot_base);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->mrt_fbo[1 - g->ez.cur]);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    g->h.cur ^= 1;
    g->ez.cur ^= 1;
}

/* H and E of one step in one dispatch (gl-compute, fused). */
static void pass_he(struct gl_engine *g, int slot_base)
{
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_H, GL_TEXTURE_2D, g->h.tex[g->h.cur]);
    glUseProgram(g->hepass.prog);
    glUniform1i(g->hepass.slot_base, slot_base);
    glBindImageTexture(0, g->h.tex[1 - g->h.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RG32F);
    glBindImageTexture(1, g->ez.tex[1 - g->ez.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
    glDispatchCompute((GLuint)((g->nx + g->local_x - 1) / g->local_x),
                      (GLuint)((g->ny + g->local_y - 1) / g->local_y), 1);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    g->h.cur ^= 1;
    g->ez.cur ^= 1;
}

/* Slot values of steps t0 .. t0+b-1, step-major, computed in IEEE mode (the
 * OpenMP threads may still carry a CPU engine's FTZ/DAZ). */
static void compute_slot_values(struct gl_engine *g, const struct model *m, int t0, int b)
{
#pragma omp parallel for schedule(static)
    for (int s = 0; s < b; s++) {
#ifdef __SSE__
        const unsigned csr = _mm_getcsr();
        _mm_setcsr(csr & ~0x8040u);
#endif
        model_slot_values_f(m, t0 + s, g->slot_host + (size_t)s * g->stride);
        if (m->ncut)
            model_cut_values_f(m, t0 + s, g->slot_host + (size_t)s * g->stride + m->nslots);
#ifdef __SSE__
        _mm_setcsr(csr);
#endif
    }
}

/* Wait for batch slot k and check it: in time, no reset, counter right. */
static int finish_batch(struct gl_engine *g, int k, char *err, size_t errlen)
{
    if (!g->pending[k])
        return 0;
    g->pending[k] = false;
    /* The limit holds from the moment the batch began to be sent: drivers
     * that block while queueing (llvmpipe) spend the batch's time there. */
    double left = g->fence_timeout_s - (now_seconds() - g->batch_start[k]);
    const GLuint64 timeout = left > 0 ? (GLuint64)(left * 1e9) : 0;
    const GLenum r = glClientWaitSync(g->fence[k], GL_SYNC_FLUSH_COMMANDS_BIT, timeout);
    glDeleteSync(g->fence[k]);
    g->fence[k] = 0;
    const double took = now_seconds() - g->batch_start[k];
    if (r == GL_TIMEOUT_EXPIRED || (r != GL_WAIT_FAILED && took > g->fence_timeout_s))
        return seterr(err, errlen,
                      "a batch of %d steps did not finish within %.3g s (fence timeout; %s "
                      "after %.3g s): the GPU is hung or far slower than measured, results are "
                      "discarded",
                      g->batch_len[k], g->fence_timeout_s,
                      r == GL_TIMEOUT_EXPIRED ? "still running" : "done", took);
    if (r == GL_WAIT_FAILED)
        return seterr(err, errlen, "waiting for a fence failed (%s)",
                      gl2d_error_name(glGetError()));
    if (gl2d_check_reset("at a fence", err, errlen))
        return -1;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, g->counter_pbo[k]);
    const uint32_t *p = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, 8, GL_MAP_READ_BIT);
    uint32_t got = 0;
    if (p) {
        got = p[0];
        glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (!p)
        return seterr(err, errlen, "cannot map the step counter (%s)",
                      gl2d_error_name(glGetError()));
    if (got != g->expect[k])
        return seterr(err, errlen,
                      "the GPU step counter reads %ld steps where %ld were sent: work was "
                      "dropped or the readback is stale; results are discarded",
                      (long)got - (long)COUNTER_ONE, (long)g->expect[k] - (long)COUNTER_ONE);
    return gl2d_check_gl("after a batch", err, errlen);
}

static void adapt_batch(struct gl_engine *g, int k);

/* Wait for and check every batch still in flight, the older first (the
 * slot the next batch would use, batch_no & 1, holds the older). */
int gl2d_finish_pending(struct gl_engine *g, char *err, size_t errlen)
{
    int rc = 0;
    for (int a = 0; a < 2 && !rc; a++) {
        const int k = (g->batch_no + a) & 1;
        if (g->pending[k]) {
            rc = finish_batch(g, k, err, errlen);
            adapt_batch(g, k);
        }
    }
    if (rc) {
        g->failed = true;
        gl2d_prefix_err(g->base.ops->name, err, errlen);
    }
    return rc;
}

static void adapt_batch(struct gl_engine *g, int k)
{
    const double now = now_seconds();
    const double dt = now - g->last_fence_wall;
    g->last_fence_wall = now;
    if (g->batch_fixed || dt <= 0)
        return;
    double b = g->batch_len[k] * BATCH_TARGET_S / dt;
    if (b > 4.0 * g->batch_steps)
        b = 4.0 * g->batch_steps;
    g->batch_steps = b < 1 ? 1 : b > BATCH_MAX_STEPS ? BATCH_MAX_STEPS : (int)b;
}

static int gl_step(struct engine *e, int n, char *err, size_t errlen)
{
    struct gl_engine *g = G(e);
    const struct model *m = e->model;
    if (g->failed)
        return seterr(err, errlen, "%s: an earlier check failed; the fields are not trusted",
                      e->ops->name);
    if (egl_context_make_current(g->egl, err, errlen))
        return -1;
    glBindVertexArray(g->vao);
    glViewport(0, 0, g->nx, g->ny);
    bind_tex(UNIT_MAT, GL_TEXTURE_2D, g->mat_tex);
    bind_tex(UNIT_SLOT, GL_TEXTURE_2D, g->slot_tex);
    if (g->cpml)
        bind_tex(UNIT_PROF, GL_TEXTURE_2D, g->prof_tex);
    if (g->conformal) {
        bind_tex(UNIT_CUT_IDX, GL_TEXTURE_2D, g->cut_idx_tex);
        bind_tex(UNIT_CUT_EDGES, GL_TEXTURE_BUFFER, g->cut_edge_tbo);
    }
    for (int k = 0; k < PSI_COUNT && g->cpml; k++) {
        if (g->compute)
            glBindImageTexture(IMAGE_PSI0 + k, g->psi[k].tex[0], 0, GL_FALSE, 0, GL_READ_WRITE,
                               GL_R32F);
        else
            bind_tex(UNIT_PSI0 + k, GL_TEXTURE_2D, g->psi[k].tex[g->psi[k].cur]);
    }
    if (g->dft && g->compute)
        glBindImageTexture(IMAGE_DFT, g->dft_pp.tex[0], 0, GL_TRUE, 0, GL_READ_WRITE, GL_RG32F);
    if (g->nsamples && g->rows_taken + n > g->sample_rows)
        return seterr(err, errlen,
                      "%s: %d steps would gather %d rows of monitor samples, the batch holds "
                      "%d: read_samples must come first (engine_step does it)",
                      e->ops->name, n, g->rows_taken + n, g->sample_rows);
    g->last_fence_wall = now_seconds();
    int done = 0, rc = 0;
    while (done < n && !rc) {
        int b = n - done;
        b = b < g->batch_steps ? b : g->batch_steps;
        b = b < g->slot_cap_steps ? b : g->slot_cap_steps;
        const int k = g->batch_no & 1;
        if ((rc = finish_batch(g, k, err, errlen)))
            break;
        const int t0 = e->step + done;
        g->batch_start[k] = now_seconds();
        if (g->stride && !(k == g->ahead_k && t0 == g->ahead_t0 && b <= g->ahead_b)) {
            compute_slot_values(g, m, t0, b);
            glBindBuffer(GL_TEXTURE_BUFFER, g->slot_buf[k]);
            glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)((size_t)b * g->stride * 4),
                            g->slot_host);
            glBindBuffer(GL_TEXTURE_BUFFER, 0);
        }
        g->ahead_b = 0;
        bind_tex(UNIT_SLOTVAL, GL_TEXTURE_BUFFER, g->slot_tbo[k]);
        for (int s = 0; s < b; s++) {
            const int base = (int)((size_t)s * g->stride);
            if (g->k > 1 && b - s >= g->k) {
                pass_k(g, base);
                s += g->k - 1;
            } else if (g->fused) {
                pass_he(g, base);
            } else {
                /* the step from t to t+1: update2d.inc's order, the values
                 * rounded to float as cpu_step rounds them */
                const int t = t0 + s;
                struct step_in in = {.slot_base = base, .cut_base = base + (int)m->nslots};
                if (g->point)
                    in.point_v = (float)model_point_value(m, t);
                if (g->dft && t + 1 > m->scene->dft_start) {
                    in.dft_on = true;
                    for (int q = 0; q < g->dft_nf; q++) {
                        double wr, wi;
                        model_dft_weight_k(m, q, t + 1, &wr, &wi);
                        in.dft_wr[q] = (float)wr;
                        in.dft_wi[q] = (float)wi;
                    }
                }
                if (g->cpml && !g->compute)
                    pass_psi(g, false);
                pass_h(g, in.cut_base);
                if (g->cpml && !g->compute)
                    pass_psi(g, true);
                pass_e(g, &in);
            }
            if (g->nsamples)
                pass_gather(g);
        }
        g->counted += (uint32_t)b;
        /* the counter texel of the newest H texture, into this batch's PBO */
        if (g->compute)
            glMemoryBarrier(GL_ALL_BARRIER_BITS);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, g->h.fbo[g->h.cur]);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, g->counter_pbo[k]);
        glReadPixels(g->nx - 1, g->ny - 1, 1, 1, GL_RG, GL_FLOAT, NULL);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        g->fence[k] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        glFlush();
        g->expect[k] = COUNTER_ONE + g->counted;
        g->batch_len[k] = b;
        g->pending[k] = true;
        g->batch_no++;
        done += b;
        /* at most two batches in flight: wait for the older one */
        if (g->pending[1 - k]) {
            rc = finish_batch(g, 1 - k, err, errlen);
            adapt_batch(g, 1 - k);
        }
    }
    /* With monitors engine_step calls step() for at most sample_rows steps,
     * often one batch, and reads the samples in between: the slot values of
     * the next call's first batch are computed and uploaded now, while the
     * GPU runs this call's last batch, rather than at the start of the next
     * with the GPU idle.  They go into the buffer that batch will use, whose
     * previous batch has finished (at most the last batch is in flight). */
    if (!rc && g->stride && g->nsamples) {
        const int k = g->batch_no & 1;
        int b = g->sample_rows < g->batch_steps ? g->sample_rows : g->batch_steps;
        b = b < g->slot_cap_steps ? b : g->slot_cap_steps;
        compute_slot_values(g, m, e->step + n, b);
        glBindBuffer(GL_TEXTURE_BUFFER, g->slot_buf[k]);
        glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)((size_t)b * g->stride * 4),
                        g->slot_host);
        glBindBuffer(GL_TEXTURE_BUFFER, 0);
        glFlush();
        g->ahead_k = k;
        g->ahead_t0 = e->step + n;
        g->ahead_b = b;
    }
    if (rc) {
        g->failed = true;
        return gl2d_prefix_err(e->ops->name, err, errlen);
    }
    /* Without monitors step() returns with its work done and checked.  With
     * them, engine_step reads this call's samples next and meanwhile sums
     * the previous call's on the host: the last batch stays in flight, and
     * read_samples (or any other read) waits for it and checks its fence
     * and step counter first (gl2d_finish_pending). */
    return g->nsamples ? 0 : gl2d_finish_pending(g, err, errlen);
}

/* ---- describe ---- */

static const char *probe_words(const struct denormal_probe *p)
{
    return probe_flushes(p) ? "flushes" : probe_keeps(p) ? "keeps" : "partly flushes";
}

static void gl_describe(const struct engine *e, struct engine_info *info)
{
    const struct gl_engine *g = (const struct gl_engine *)e;
    snprintf(info->engine, sizeof info->engine, "%s", g->compute ? "gl-compute" : "gl");
    snprintf(info->device, sizeof info->device, "%.180s (%.60s)", g->info.renderer,
             g->info.platform);
    char cuda[32] = "", kdesc[64], feat[160] = "", dft[64] = "", mon[128] = "";
    snprintf(kdesc, sizeof kdesc, "%d steps per fragment pass", g->k);
    if (g->dft && g->dft_nf > 1)
        snprintf(dft, sizeof dft, " DFT(%d frequencies%s)", g->dft_nf,
                 g->dft_groups ? g->dft_groups > 1 ? ", update_dft passes" : ", an update_dft pass"
                               : "");
    else if (g->dft)
        snprintf(dft, sizeof dft, " DFT");
    if (g->nsamples)
        snprintf(mon, sizeof mon, "; monitors: %zu samples gathered per step (%s), read every %d",
                 g->nsamples, g->compute ? "a compute dispatch" : "a fragment pass",
                 g->sample_rows);
    if (gl2d_has_features(g))
        snprintf(feat, sizeof feat, " with%s%s%s%s%s%s", g->cpml ? " CPML" : "",
                 g->mur ? " Mur" : "", dft, g->point ? " point-source" : "",
                 g->conformal ? " conformal-PEC" : "",
                 g->compute ? " (not fused)"
                 : g->cpml  ? " (+4 psi passes; 1 step per pass)"
                            : " (1 step per pass)");
    if (g->info.cuda_device >= 0)
        snprintf(cuda, sizeof cuda, ", CUDA device %d", g->info.cuda_device);
    snprintf(info->detail, sizeof info->detail,
             "%.60s; %.100s; %s%s; denormals %s (%s; driver %s them in %s shaders); %s%s%s",
             g->info.vendor, g->info.version, g->info.robust ? "robust context" : "no reset notification",
             cuda, denormals_name(g->denormals),
             g->emulate_flush ? "flushed in GLSL" : "as the driver does",
             probe_words(g->compute ? &g->probe_comp : &g->probe_frag),
             g->compute ? "compute" : "fragment",
             g->fused     ? "one fused compute dispatch per step"
             : g->compute ? "two compute dispatches per step"
             : g->k > 1   ? kdesc
                          : "two fragment passes per step",
             feat, mon);
    info->precision = PRECISION_SINGLE;
    info->denormals = g->denormals;
}

/* ---- the CLI's helpers ---- */

int gl_print_devices(FILE *out, char *err, size_t errlen)
{
    const int n = egl_print_devices(out, err, errlen);
    if (n < 0)
        return -1;
    if (n == 0)
        return seterr(err, errlen, "no EGL device gives an OpenGL %d.%d core context",
                      GL_CTX_MAJOR, GL_CTX_MINOR);
    return 0;
}

int gl_probe(int device, char *err, size_t errlen)
{
    struct egl_ctx *c;
    struct egl_ctx_info info;
    if (egl_context_create(device, &c, &info, err, errlen))
        return -1;
    egl_context_destroy(c);
    return 0;
}

int gl_engine_steps_per_pass(const struct engine *e)
{
    return ((const struct gl_engine *)e)->k;
}

const struct engine_ops gl_engine_ops = {
    .name = "gl",
    .caps = ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_DFT | ENGINE_CAP_POINT
            | ENGINE_CAP_CONFORMAL | ENGINE_CAP_MONITORS | ENGINE_CAP_DFT_MULTI,
    .summary = "OpenGL fragment passes over float textures (EGL, headless), float32",
    .create = gl_create,
    .step = gl_step,
    .read_field = gl2d_read_field,
    .write_field = gl2d_write_field,
    .describe = gl_describe,
    .destroy = gl_destroy,
    .render_rgba = gl2d_render_rgba,
    .check_finite = gl2d_check_finite,
    .state = gl2d_state,
    .read_samples = gl2d_read_samples,
};

const struct engine_ops gl_compute_engine_ops = {
    .name = "gl-compute",
    .caps = ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_DFT | ENGINE_CAP_POINT
            | ENGINE_CAP_CONFORMAL | ENGINE_CAP_MONITORS | ENGINE_CAP_DFT_MULTI,
    .summary = "OpenGL 4.3 compute dispatches on the same textures, float32",
    .create = gl_compute_create,
    .step = gl_step,
    .read_field = gl2d_read_field,
    .write_field = gl2d_write_field,
    .describe = gl_describe,
    .destroy = gl_destroy,
    .render_rgba = gl2d_render_rgba,
    .check_finite = gl2d_check_finite,
    .state = gl2d_state,
    .read_samples = gl2d_read_samples,
};
