/* gl2d.c - the GL engines `gl` (fragment passes) and `gl-compute` (compute
 * dispatches) as core/engine.h engines: their ops tables, create (sizes and
 * memory checked first, the EGL context, the denormal probe, steps per pass,
 * batch size and fence timeout, then the textures of textures.c and the
 * programs of programs.c), describe and destroy, and the command line's
 * helpers of gl/gl.h.
 *
 * gl2d_internal.h describes the engines (2D TMz FDTD on ping-ponged float
 * textures, bit-identical to the CPU engine), their textures and passes, and
 * lists the files: the step goes through batch.c (fenced batches), step.c
 * (the passes of a step in cpu/update2d.inc's order), frag2d.c and
 * compute2d.c (each engine's passes); readback.c, state.c and colour.c move
 * data back to the host.
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

#define BATCH_FIRST_S 0.05          /* ... of the first batch, from a guessed speed */
#define FENCE_TIMEOUT_S_DEFAULT 60.0
#define SLOT_BUFFER_MAX_FLOATS (16u << 20) /* 64 MiB of slot values per batch */
/* Steps per fragment pass of `gl` (docs/gl.md): on the H100, 2 passes the
 * render-target write cap (4.9 against 4.2 Gcells/s), the default on GPUs
 * until bench/gl_bench.c's roofline has measured 3 .. 6 there; on llvmpipe,
 * a CPU, recomputation only costs, so 1.  TEXFDTD_GL_STEPS_PER_PASS = 1 ..
 * KPASS_MAX overrides, = auto measures 1 .. 6 at create (kchoose.c). */
#define GL_STEPS_PER_PASS_GPU 2
#define GL_STEPS_PER_PASS_SOFTWARE 1
#define LOCAL_X 16
#define LOCAL_Y 16
/* gl-compute's temporal blocking (update_tb.comp, docs/gl.md): steps per
 * dispatch and the tile.  K = 1 is the fused path.  On a GPU, the scenes of
 * the fused dispatch (a PEC box with source slots: no CPML, Mur, DFT or
 * point source; gl2d_has_features) without monitors take the warp
 * wavefront (GLC_PATH_GPU below); asked for tiles (TEXFDTD_GLC_PATH=tiles)
 * they take K = GLC_K_GPU on GLC_TILE_GPU_X x GLC_TILE_GPU_Y tiles (on the
 * H100, 146-147 Gcells/s against the fused dispatch's 81.7 at 16384^2,
 * docs/performance.md); other scenes and llvmpipe (a CPU) keep
 * GLC_K_DEFAULT.  TEXFDTD_GLC_K (1 .. GLC_K_MAX) and TEXFDTD_GLC_TILE (WxH)
 * override. */
#define GLC_K_DEFAULT 1
#define GLC_TILE_X 32
#define GLC_TILE_Y 32
#define GLC_K_GPU 4
#define GLC_K_GPU_MUR 2 /* tiles with Mur walls (below, in gl_create) */
#define GLC_TILE_GPU_X 32
#define GLC_TILE_GPU_Y 16
/* The K-step path of those scenes on a GPU: GLC_PATH_TILES (update_tb.comp)
 * or GLC_PATH_WAVEFRONT (update_wf.comp, the warp wavefront).  Measured on
 * the H100 at 16384^2 (docs/performance.md): the wavefront with subgroup
 * shuffles 299.4 Gcells/s at K = 6 on 128-row strips (300.6 at K = 7,
 * 285.5 at K = 6 on 64 rows, 237.1 with the shared-memory exchange),
 * against the tiles' 146.2 (K = 4, 32 x 16) and the fused dispatch's 81.6:
 * the wavefront, K = GLC_WF_K_GPU, GLC_WF_ROWS rows.  TEXFDTD_GLC_PATH =
 * one | tiles | wavefront overrides for any scene and device; the
 * wavefront takes K = 2 .. GLC_WF_K_MAX (TEXFDTD_GLC_K, default
 * GLC_WF_K_GPU) and strips of TEXFDTD_GLC_ROWS rows (default GLC_WF_ROWS),
 * lanes exchanging through TEXFDTD_GLC_SHUFFLE = auto | subgroup | nv |
 * shared. */
#define GLC_PATH_GPU GLC_PATH_WAVEFRONT
#define GLC_WF_K_GPU 6
#define GLC_WF_ROWS 128
#define GLC_WF_ROWS_MAX 8192

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
                      "%zu source slots (object cells), %zu cut edges, %zu H slots, %zu "
                      "dispersive cells or edges, %zu TE cut cells and %zu off-diagonal "
                      "edges exceed GL_MAX_TEXTURE_BUFFER_SIZE %d on %s; nothing was run",
                      m->nslots, m->ncut, g->nhslots, g->ndisp, g->ntecut, g->nhoff, max_tbo,
                      g->info.renderer);
    if (g->disp) {
        GLint units = 0, rows = (GLint)g->disp_rows;
        glGetIntegerv(g->compute ? GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS : GL_MAX_TEXTURE_IMAGE_UNITS,
                      &units);
        if (units < UNITS_DISP || rows > max_tex || g->disp_w * g->disp_nt > max_tex)
            return seterr(err, errlen,
                          "%zu dispersive cells need %d texture units and a %d x %d state "
                          "texture; %s has %d units and GL_MAX_TEXTURE_SIZE %d; nothing was run",
                          g->ndisp, UNITS_DISP, g->disp_w * g->disp_nt, g->disp_rows,
                          g->info.renderer, units, max_tex);
    }
    const struct {
        bool on;
        size_t n;
        const char *what, *hint;
        int units;
    } lists[2] = {{g->tecut, g->ntecut, "TE conformal cut cells", "", UNITS_TECUT},
                  {g->hoff, g->nhoff, "TE off-diagonal edges",
                   " (set [grid] te_offdiagonal = false for the diagonal only)", UNITS_HOFF}};
    for (int q = 0; q < 2; q++) {
        GLint units = 0;
        glGetIntegerv(g->compute ? GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS : GL_MAX_TEXTURE_IMAGE_UNITS,
                      &units);
        if (lists[q].on && units < lists[q].units)
            return seterr(err, errlen,
                          "%zu %s need %d texture units; %s has %d; nothing was run%s",
                          lists[q].n, lists[q].what, lists[q].units, g->info.renderer, units,
                          lists[q].hint);
    }
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
     * slot-value buffers (and, for the values on the GPU, their entries and
     * the cut edges' values); the monitors' sample list and rows */
    const double dft_bytes = g->dft ? 8.0 * g->dft_nf * (g->compute ? 1 : 2) : 0.0;
    const double gathered = g->compute ? (double)g->nsamples
                                       : (double)g->gather_w * (double)g->gather_h;
    const double need = (double)cells * (2 * 4 + 2 * 8 + 1 + dft_bytes)
                        + (double)g->slot_w * g->slot_h * 4
                        + 2.0 * 4 * (double)g->slot_cap_steps * (double)g->stride
                        + 8.0 * (double)g->stride
                        + 4.0 * g->slot_cap_steps * (double)(m->ncut + g->ntecut)
                        + 2.0 * 4 * 4 * (double)g->pml_n * ((double)m->nx + m->ny)
                        + (double)g->cut_w * g->cut_h * 8 + 16.0 * (double)m->ncut
                        + (g->hmap ? 16.0 * g->hslot_w * g->hslot_h : 0.0)
                        + (g->tecut ? 4.0 * g->tecut_w * g->tecut_h + 16.0 * (double)g->ntecut
                                    : 0.0)
                        + (g->hoff ? 8.0 * g->hoff_w * g->hoff_h + 8.0 * (double)g->nhoff : 0.0)
                        + (g->disp ? 8.0 * g->disp_bw * g->disp_bh
                                         + (double)g->ndisp * (32.0 * g->disp_nt + 16.0)
                                   : 0.0)
                        + gathered * (8.0 + 4.0 * g->sample_rows)
                        + (g->tb_k > 1 && g->nsamples
                               ? 4.0 * (1.0 + (double)g->nsamples
                                        + ceil((double)m->nx / g->tile_x)
                                              * ceil((double)m->ny / g->tile_y))
                               : 0.0);
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
        glDeleteProgram(g->tbpass.prog);
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
        glDeleteBuffers(1, &g->tb_tile_buf);
        glDeleteTextures(1, &g->prof_tex);
        glDeleteTextures(1, &g->cut_idx_tex);
        glDeleteTextures(1, &g->hnode_tex);
        gl2d_free_pair(&g->disp_pp);
        glDeleteTextures(1, &g->disp_idx_tex);
        glDeleteTextures(1, &g->disp_cells_tex);
        glDeleteTextures(1, &g->disp_coef_tbo);
        glDeleteBuffers(1, &g->disp_coef_buf);
        glDeleteProgram(g->disppass.prog);
        glDeleteTextures(1, &g->tecut_idx_tex);
        glDeleteTextures(1, &g->tecut_k_tbo);
        glDeleteBuffers(1, &g->tecut_k_buf);
        glDeleteTextures(1, &g->hoff_idx_tex);
        glDeleteTextures(1, &g->hoff_k_tbo);
        glDeleteBuffers(1, &g->hoff_k_buf);
        glDeleteTextures(1, &g->cut_edge_tbo);
        glDeleteBuffers(1, &g->cut_edge_buf);
        glDeleteProgram(g->color_prog);
        glDeleteFramebuffers(1, &g->color_fbo);
        glDeleteTextures(1, &g->color_tex);
        glDeleteProgram(g->check_prog);
        glDeleteBuffers(1, &g->check_buf);
        gl2d_values_free(g);
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

/* The warp wavefront's settings (TEXFDTD_GLC_PATH, TEXFDTD_GLC_ROWS,
 * TEXFDTD_GLC_SHUFFLE's spelling): -1 for a bad one. */
static int wf_settings(struct gl_engine *g, char *err, size_t errlen)
{
    static const char *const paths[3] = {"one", "tiles", "wavefront"};
    const char *pe = getenv("TEXFDTD_GLC_PATH"), *re = getenv("TEXFDTD_GLC_ROWS"),
               *se = getenv("TEXFDTD_GLC_SHUFFLE");
    g->glc_path = -1;
    g->wf_rows = GLC_WF_ROWS;
    for (int q = 0; pe && *pe && q < 3; q++)
        if (!strcmp(pe, paths[q]))
            g->glc_path = q;
    if (pe && *pe && g->glc_path < 0)
        return seterr(err, errlen, "TEXFDTD_GLC_PATH=%s: expected one, tiles or wavefront", pe);
    if (re && *re) {
        char *end;
        const long v = strtol(re, &end, 10);
        if (*end || v < 1 || v > GLC_WF_ROWS_MAX)
            return seterr(err, errlen, "TEXFDTD_GLC_ROWS=%s: expected 1 to %d rows per strip", re,
                          GLC_WF_ROWS_MAX);
        g->wf_rows = (int)v;
    }
    if (se && *se && strcmp(se, "auto") && strcmp(se, "subgroup") && strcmp(se, "nv")
        && strcmp(se, "shared"))
        return seterr(err, errlen, "TEXFDTD_GLC_SHUFFLE=%s: expected auto, subgroup, nv or shared",
                      se);
    return 0;
}

/* Whether the warp wavefront runs a scene whose tiles run: a PEC box with
 * source slots (lossy or not) and a point source, without monitors (k_tb2's
 * scope); else wf_why says what it lacks. */
static bool wf_takes(struct gl_engine *g)
{
    snprintf(g->wf_why, sizeof g->wf_why, "%s%s%s%s", g->cpml ? " CPML" : "",
             g->mur ? " Mur" : "", g->dft ? " DFT" : "", g->nsamples ? " monitors" : "");
    return !g->wf_why[0];
}

/* Whether update_tb.comp runs the scene: no conformal PEC, H-node maps,
 * poles or TE cuts; else `why` says what it has. */
static bool tb_takes(const struct gl_engine *g, char *why, size_t len)
{
    snprintf(why, len, "%s%s%s%s%s", g->conformal ? " conformal-PEC" : "",
             g->hmap ? " H-node-map" : "", g->disp ? " dispersive" : "",
             g->tecut ? " TE-conformal-PEC" : "", g->hoff ? " TE-off-diagonal" : "");
    return !why[0];
}

/* Temporal blocking's settings (TEXFDTD_GLC_K, TEXFDTD_GLC_TILE, and the
 * path: wf_settings) and scope: tb_k > 1 for a gl-compute scene that
 * update_tb.comp runs (PEC, CPML or Mur edges, source slots, lossy or not, a
 * point source, monitors, the DFT), else 1 with tb_why saying why not; wf
 * where the wavefront was asked and takes the scene.  -1 for a bad
 * setting. */
static int tb_settings(struct gl_engine *g, char *err, size_t errlen)
{
    g->tb_k = 1;
    g->tile_x = GLC_TILE_X;
    g->tile_y = GLC_TILE_Y;
    if (wf_settings(g, err, errlen))
        return -1;
    const bool wave = g->glc_path == GLC_PATH_WAVEFRONT;
    const char *ke = getenv("TEXFDTD_GLC_K"), *te = getenv("TEXFDTD_GLC_TILE");
    int k = wave ? GLC_WF_K_GPU : g->glc_path == GLC_PATH_TILES ? GLC_K_GPU : GLC_K_DEFAULT, tx, ty;
    char *end;
    if (ke && *ke) {
        const long v = strtol(ke, &end, 10);
        if (*end || v < 1 || v > GLC_K_MAX)
            return seterr(err, errlen, "TEXFDTD_GLC_K=%s: expected 1 (one step per dispatch) "
                                       "to %d", ke, GLC_K_MAX);
        if (wave && (v < 2 || v > GLC_WF_K_MAX))
            return seterr(err, errlen, "TEXFDTD_GLC_K=%s: the warp wavefront "
                                       "(TEXFDTD_GLC_PATH=wavefront) takes 2 to %d steps per "
                                       "dispatch", ke, GLC_WF_K_MAX);
        k = (int)v;
    }
    if (g->glc_path == GLC_PATH_ONE)
        k = 1;
    if (te && *te) {
        char c;
        if (sscanf(te, "%dx%d%c", &tx, &ty, &c) != 2 || tx < 1 || ty < 1 || tx > 1024
            || ty > 1024)
            return seterr(err, errlen, "TEXFDTD_GLC_TILE=%s: expected WxH, e.g. 32x32", te);
        g->tile_x = tx;
        g->tile_y = ty;
    }
    if (!g->compute || k < 2)
        return 0;
    if (tb_takes(g, g->tb_why, sizeof g->tb_why))
        g->tb_k = k;
    g->wf = wave && g->tb_k > 1 && wf_takes(g);
    return 0;
}

/* Whether the driver has GL_KHR_shader_subgroup's relative shuffles in
 * compute shaders, in subgroups of 32 (why not in `why`).  (For
 * GL_NV_shader_thread_shuffle the extension is enough: NVIDIA's warps are
 * 32 wide.) */
static bool has_subgroup32(char *why, size_t len)
{
    if (!GLEW_KHR_shader_subgroup) {
        snprintf(why, len, "no GL_KHR_shader_subgroup");
        return false;
    }
    GLint size = 0, stages = 0, feats = 0;
    glGetIntegerv(GL_SUBGROUP_SIZE_KHR, &size);
    glGetIntegerv(GL_SUBGROUP_SUPPORTED_STAGES_KHR, &stages);
    glGetIntegerv(GL_SUBGROUP_SUPPORTED_FEATURES_KHR, &feats);
    while (glGetError() != GL_NO_ERROR)
        ;
    if (!(stages & GL_COMPUTE_SHADER_BIT) || !(feats & GL_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT_KHR)
        || !(feats & GL_SUBGROUP_FEATURE_BASIC_BIT_KHR)) {
        snprintf(why, len, "GL_KHR_shader_subgroup without relative shuffles in compute shaders");
        return false;
    }
    if (size != 32) {
        snprintf(why, len, "subgroups of %d, not 32", (int)size);
        return false;
    }
    return true;
}

/* update_wf.comp's exchange between lanes: TEXFDTD_GLC_SHUFFLE, or (auto)
 * the subgroup shuffles, else NVIDIA's, else shared memory; a variant the
 * driver lacks is refused. */
static int wf_choose_shuffle(struct gl_engine *g, char *err, size_t errlen)
{
    const char *se = getenv("TEXFDTD_GLC_SHUFFLE");
    char why[96];
    const bool sub = has_subgroup32(why, sizeof why), nv = GLEW_NV_shader_thread_shuffle;
    if (se && !strcmp(se, "subgroup")) {
        if (!sub)
            return seterr(err, errlen,
                          "TEXFDTD_GLC_SHUFFLE=subgroup: %s has %s; choose nv, shared or auto; "
                          "nothing was run", g->info.renderer, why);
        g->wf_shuffle = GLC_SHUFFLE_SUBGROUP;
        snprintf(g->wf_shuffle_why, sizeof g->wf_shuffle_why, "TEXFDTD_GLC_SHUFFLE=subgroup");
    } else if (se && !strcmp(se, "nv")) {
        if (!nv)
            return seterr(err, errlen,
                          "TEXFDTD_GLC_SHUFFLE=nv: %s has no GL_NV_shader_thread_shuffle; choose "
                          "subgroup, shared or auto; nothing was run", g->info.renderer);
        g->wf_shuffle = GLC_SHUFFLE_NV;
        snprintf(g->wf_shuffle_why, sizeof g->wf_shuffle_why, "TEXFDTD_GLC_SHUFFLE=nv");
    } else if (se && !strcmp(se, "shared")) {
        g->wf_shuffle = GLC_SHUFFLE_SHARED;
        snprintf(g->wf_shuffle_why, sizeof g->wf_shuffle_why, "TEXFDTD_GLC_SHUFFLE=shared");
    } else {
        g->wf_shuffle = sub ? GLC_SHUFFLE_SUBGROUP : nv ? GLC_SHUFFLE_NV : GLC_SHUFFLE_SHARED;
        snprintf(g->wf_shuffle_why, sizeof g->wf_shuffle_why, "%s",
                 sub ? "auto" : nv ? "auto: no usable subgroup shuffles"
                                   : "auto: the driver has no subgroup or NV shuffles");
    }
    return 0;
}

/* The group's shared memory (Ez and H of the tile and its halo) within the
 * device's limit: else refused, never run on a smaller tile than asked.
 * The DFT weights of K steps (a uniform array) beyond the uniforms a
 * compute shader may have: declined. */
static int tb_check_device(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    GLint max_uniforms = 0;
    glGetIntegerv(GL_MAX_COMPUTE_UNIFORM_COMPONENTS, &max_uniforms);
    if (g->dft && 2 * g->tb_k * g->dft_nf + 4 * m->nmats + 64 > max_uniforms) {
        snprintf(g->tb_why, sizeof g->tb_why,
                 " DFT of %d frequencies (the weights of K = %d steps exceed the %d uniform "
                 "components of %.60s)",
                 g->dft_nf, g->tb_k, max_uniforms, g->info.renderer);
        g->tb_k = 1;
        return 0;
    }
    GLint max_shared = 0;
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &max_shared);
    const double halo = g->tb_k + (g->mur ? 1.0 : 0.0); /* update_tb.comp's HALO */
    const double bytes = 12.0 * (g->tile_x + 2.0 * halo) * (g->tile_y + 2.0 * halo);
    if (bytes > (double)max_shared)
        return seterr(err, errlen,
                      "temporal blocking with K = %d on %d x %d tiles needs %.0f B of shared "
                      "memory per work group, %s has %d (GL_MAX_COMPUTE_SHARED_MEMORY_SIZE): "
                      "choose a smaller TEXFDTD_GLC_TILE or TEXFDTD_GLC_K; nothing was run",
                      g->tb_k, g->tile_x, g->tile_y, bytes, g->info.renderer, max_shared);
    return 0;
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
    g->hmap = m->hmat != NULL;
    g->nhslots = g->hmap ? m->nhslots : 0;
    /* dispersive cells (TM) or TE edges: never both (TE's ez array has no
     * dispersive node) */
    g->disp_edges = g->hmap && m->nhdisp > 0;
    g->disp = m->ndisp > 0 || g->disp_edges;
    g->ndisp = g->disp_edges ? m->nhdisp : m->ndisp;
    g->hlossy = g->hmap && m->hlossy;
    g->tecut = m->ntecut > 0;
    g->ntecut = m->ntecut;
    g->hoff = m->nhoff > 0;
    g->nhoff = m->nhoff;
    gl2d_cut_bbox(g, m);
    gl2d_hslot_bbox(g, m);
    gl2d_disp_layout(g, m);
    gl2d_tecut_bbox(g, m);
    gl2d_hoff_bbox(g, m);
    g->stride = m->nslots + m->ncut + g->nhslots + g->ndisp + g->ntecut + g->nhoff;
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
    if (tb_settings(g, err, errlen)) {
        gl2d_prefix_err(name, err, errlen);
        free(g);
        return -1;
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

    /* gl-compute's measured defaults on a GPU (GLC_PATH_GPU, GLC_K_GPU ...
     * above), without monitors and for scenes the tiles run: the fused
     * dispatch's scenes (a PEC box with source slots) on the wavefront, or
     * asked for tiles on the tiles; with Mur walls, the DFT or the point
     * source (no CPML: blocked it was slower, 48.8-54.1 against 60.7) on
     * the tiles, measured on the H100 at 8192^2 (docs/performance.md)
     * against one step a dispatch: Mur K = 2 86.8 against 63.3 (K = 4
     * 79.8), the DFT K = 4 82.0 against 44.6, the point source K = 4 142.0
     * against 63.4 */
    const char *gk = getenv("TEXFDTD_GLC_K"), *gt = getenv("TEXFDTD_GLC_TILE");
    char tbw[sizeof g->tb_why];
    if (compute && !(gk && *gk) && !g->info.software && !g->nsamples && tb_takes(g, tbw, sizeof tbw)
        && (g->glc_path == GLC_PATH_TILES ? g->fused : g->glc_path < 0 && !g->cpml)) {
        g->wf = g->glc_path < 0 && g->fused && GLC_PATH_GPU == GLC_PATH_WAVEFRONT && wf_takes(g);
        g->tb_k = g->wf ? GLC_WF_K_GPU : g->mur ? GLC_K_GPU_MUR : GLC_K_GPU;
        if (!(gt && *gt)) {
            g->tile_x = GLC_TILE_GPU_X;
            g->tile_y = GLC_TILE_GPU_Y;
        }
    }
    if (compute && (g->wf || g->glc_path == GLC_PATH_WAVEFRONT)
        && wf_choose_shuffle(g, err, errlen)) {
        gl_destroy(&g->base);
        return gl2d_prefix_err(name, err, errlen);
    }
    const char *kz = getenv("TEXFDTD_GL_STEPS_PER_PASS");
    bool k_auto = false;
    if (!compute) {
        g->k = g->info.software ? GL_STEPS_PER_PASS_SOFTWARE : GL_STEPS_PER_PASS_GPU;
        if (kz && !strcmp(kz, "auto")) {
            k_auto = true;
        } else if (kz && *kz) {
            char *end;
            const long k = strtol(kz, &end, 10);
            if (*end || k < 1 || k > KPASS_MAX) {
                seterr(err, errlen,
                       "%s: TEXFDTD_GL_STEPS_PER_PASS=%s: expected 1 .. %d or auto", name, kz,
                       KPASS_MAX);
                gl_destroy(&g->base);
                return -1;
            }
            g->k = (int)k;
        }
    }
    /* update_k.frag knows PEC boxes with slots only, and the monitors
     * gather after every step */
    if (gl2d_has_features(g) || g->nsamples) {
        g->k = 1;
        k_auto = false;
    }
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
    if (check_sizes(g, m, err, errlen)
        || (g->tb_k > 1 && !g->wf && tb_check_device(g, m, err, errlen))) {
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
        || gl2d_upload_static(g, m, err, errlen) || gl2d_values_init(g, m, err, errlen)
        || gl2d_build_update_programs(g, m, err, errlen)) {
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
        /* cells per second; k steps per pass cost more arithmetic a step */
        double guess = g->info.software ? 5e7 : 2e9;
        double flops = 11, texels;
        if (g->k > 2 && !gl_kpass_cost(g->k, &flops, &texels, err, errlen))
            guess *= 45.0 / flops; /* k = 2 (45 flops a step) ran faster than 2e9 */
        const double b = BATCH_FIRST_S * guess / (double)m->ncells;
        g->batch_steps = b < 1 ? 1 : b > 1000 ? 1000 : (int)b;
    }
    g->fence_timeout_s = env_double("TEXFDTD_GL_FENCE_TIMEOUT_S", FENCE_TIMEOUT_S_DEFAULT);
    if (k_auto && gl2d_choose_k(g, m, err, errlen)) {
        gl_destroy(&g->base);
        return gl2d_prefix_err(name, err, errlen);
    }
    gl2d_round_batch(g);
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
    char cuda[32] = "", kdesc[64], feat[224] = "", dft[64] = "", mon[128] = "";
    snprintf(kdesc, sizeof kdesc, "%d steps per fragment pass", g->k);
    static const char *const shuffles[3] = {
        "shared memory and barriers", "subgroup shuffles (GL_KHR_shader_subgroup)",
        "NV shuffles (GL_NV_shader_thread_shuffle)"};
    char tdesc[320], how[224];
    if (g->wf)
        snprintf(how, sizeof how,
                 "warp wavefront, strips of %d rows, %d of a warp's 32 columns stored, x "
                 "neighbours by %s (%s)",
                 g->wf_rows, 32 - 2 * g->tb_k, shuffles[g->wf_shuffle], g->wf_shuffle_why);
    else
        snprintf(how, sizeof how, "%dx%d tiles%s%s", g->tile_x, g->tile_y,
                 g->wf_why[0] ? "; the warp wavefront declined, the scene has" : "", g->wf_why);
    snprintf(tdesc, sizeof tdesc,
             "%d steps per compute dispatch (temporal blocking, %s, the rest %s)", g->tb_k, how,
             g->fused ? "fused" : "two dispatches per step");
    if (g->dft && g->dft_nf > 1)
        snprintf(dft, sizeof dft, " DFT(%d frequencies%s)", g->dft_nf,
                 g->dft_groups ? g->dft_groups > 1 ? ", update_dft passes" : ", an update_dft pass"
                               : "");
    else if (g->dft)
        snprintf(dft, sizeof dft, " DFT");
    if (g->nsamples)
        snprintf(mon, sizeof mon, "; monitors: %zu samples gathered per step (%s), read every %d",
                 g->nsamples,
                 g->tb_k > 1  ? "inside the tiles of the K-step dispatch"
                 : g->compute ? "a compute dispatch"
                              : "a fragment pass",
                 g->sample_rows);
    if (gl2d_has_features(g))
        snprintf(feat, sizeof feat, " with%s%s%s%s%s%s%s%s%s%s%s", g->cpml ? " CPML" : "",
                 g->mur ? " Mur" : "", dft, g->point ? " point-source" : "",
                 g->conformal ? " conformal-PEC" : "", g->tecut ? " TE-conformal-PEC" : "",
                 g->hmap ? " H-node-map" : "", g->hlossy ? " lossy-TE-edges" : "",
                 g->disp_edges ? " dispersive-TE-edges" : g->disp ? " dispersive" : "",
                 g->hoff ? " TE-off-diagonal" : "",
                 g->compute ? g->tb_k > 1 ? "" : " (not fused)"
                 : g->cpml  ? " (+4 psi passes; 1 step per pass)"
                            : " (1 step per pass)");
    if (g->info.cuda_device >= 0)
        snprintf(cuda, sizeof cuda, ", CUDA device %d", g->info.cuda_device);
    /* The context and the way of stepping (at most 432 characters: it always
     * fits), then the features and the monitors in what is left: the bytes
     * one snprintf of it all would give, without a bound the compiler has to
     * assume may cut the first part (-Wformat-truncation at -O1). */
    const int n = snprintf(
        info->detail, sizeof info->detail,
        "%.60s; %.100s; %s%s; denormals %s (%s; driver %s them in %s shaders); %s",
        g->info.vendor, g->info.version,
        g->info.robust ? "robust context" : "no reset notification",
        cuda, denormals_name(g->denormals),
        g->emulate_flush ? "flushed in GLSL" : "as the driver does",
        probe_words(g->compute ? &g->probe_comp : &g->probe_frag),
        g->compute ? "compute" : "fragment",
        g->tb_k > 1  ? tdesc
        : g->fused   ? "one fused compute dispatch per step"
        : g->compute ? "two compute dispatches per step"
        : g->k > 1   ? kdesc
                     : "two fragment passes per step");
    char val[300] = "";
    if (g->stride)
        snprintf(val, sizeof val, "; slot values %s%.200s%s",
                 g->dev_values ? "on the GPU (fp64 compute)" : "on the host (",
                 g->dev_values ? "" : g->values_why, g->dev_values ? "" : ")");
    if (n >= 0 && (size_t)n < sizeof info->detail)
        snprintf(info->detail + n, sizeof info->detail - (size_t)n, "%s%s%s%s%s", feat, mon, val,
                 g->tb_why[0] ? "; temporal blocking declined, the scene has" : "", g->tb_why);
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
    const struct gl_engine *g = (const struct gl_engine *)e;
    return g->compute ? g->tb_k : g->k;
}

/* What both GL engines run (one texture layout, one physics: only the
 * passes differ), and the functions they share but create. */
#define GL2D_CAPS                                                                                 \
    (ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_DFT | ENGINE_CAP_POINT | ENGINE_CAP_CONFORMAL \
     | ENGINE_CAP_MONITORS | ENGINE_CAP_DFT_MULTI | ENGINE_CAP_LOSSY | ENGINE_CAP_TE             \
     | ENGINE_CAP_MAGNETIC | ENGINE_CAP_DISPERSIVE | ENGINE_CAP_TE_LOSSY                         \
     | ENGINE_CAP_TE_DISPERSIVE | ENGINE_CAP_TE_CONFORMAL | ENGINE_CAP_TE_OFFDIAG)
#define GL2D_OPS                                                                                  \
    .step = gl2d_step, .read_field = gl2d_read_field, .write_field = gl2d_write_field,           \
    .describe = gl_describe, .destroy = gl_destroy, .render_rgba = gl2d_render_rgba,             \
    .check_finite = gl2d_check_finite, .state = gl2d_state, .read_samples = gl2d_read_samples

const struct engine_ops gl_engine_ops = {
    .name = "gl",
    .caps = GL2D_CAPS,
    .summary = "OpenGL fragment passes over float textures (EGL, headless), float32",
    .create = gl_create,
    GL2D_OPS,
};

const struct engine_ops gl_compute_engine_ops = {
    .name = "gl-compute",
    .caps = GL2D_CAPS,
    .summary = "OpenGL 4.3 compute dispatches on the same textures, float32",
    .create = gl_compute_create,
    GL2D_OPS,
};
