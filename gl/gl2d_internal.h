/* gl2d_internal.h - what the files of the GL engines share: the engine
 * struct, the texture units, and the functions one file offers the others
 * (all named gl2d_...).  Not part of any interface outside gl/.
 *
 * The engines, `gl` and `gl-compute`: 2D TMz FDTD as ping-ponged float
 * textures.
 *
 *   gl          per time step one fragment pass for H and one for E, each a
 *               full-screen triangle into the other texture of its pair
 *               (Takada et al. 2007, rebuilt with OpenGL 4.3 core, GLSL, EGL)
 *   gl-compute  the same update as two compute dispatches on the same
 *               textures (texelFetch in, imageStore out), one fused
 *               dispatch per step, or K steps per dispatch in tiles in
 *               shared memory (temporal blocking, update_tb.comp) or as a
 *               warp wavefront (update_wf.comp)
 *
 * Both run the arithmetic of shaders/update2d.glsl, which is cpu/update2d.inc
 * statement for statement with `precise` everywhere, and add source-slot
 * values tabulated on the host by model_slot_values_f(), so their float32
 * fields equal the CPU engine's bit for bit in the matching denormal mode.
 *
 * Where things are (docs/gl.md has the same table):
 *   gl2d.c       the engine ops tables; create (sizes, memory, the denormal
 *                probe, batch and pass settings), describe, destroy; the
 *                CLI's helpers
 *   glutil.c     small GL helpers: errors, textures, framebuffers, ping-pong
 *                pairs
 *   batch.c      step(): the steps in fenced batches, the slot values of a
 *                batch, the fences and the step counter
 *   values.c     the slot values of a batch on the GPU (inc_values.comp:
 *                core/incident.h in GLSL doubles), for both engines
 *   step.c       a batch of steps as passes in cpu/update2d.inc's order, both
 *                engines; what every pass binds
 *   frag2d.c     the fragment passes of `gl` (psi, H, disp, E + DFT, gather,
 *                k steps)
 *   compute2d.c  the compute dispatches of `gl-compute` (H, disp, E, fused,
 *                gather)
 *   programs.c   the update passes' GLSL programs: #defines, coefficients,
 *                uniform locations
 *   textures.c   the textures and buffers beyond the Ez and H pairs, made and
 *                filled at create
 *   readback.c   field reads and writes, the monitors' rows, the blow-up check
 *   state.c      checkpoints: the current textures to and from state_io
 *   colour.c     the picture (colormap.frag into an RGBA8 target)
 *   bench.c      bench/gl_bench.c's helpers (gl/gl.h)
 *   texbuf.c     gl_bench texbuf's runs (gl/texbuf.h): the update over
 *                storage buffers, images or textures
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
 *                      gl-compute: updated in place through images (the
 *                      K-step dispatch: read from tex[cur], written into
 *                      the other, then cur swaps)
 *   prof RGBA32F       CPML (b, c, ik) per position: rows xe, xh, ye, yh
 *   dft  RG32F array   running DFT sums of Ez, a layer per [monitor.dft]
 *                      frequency (gl: a pair; render targets beside Ez in
 *                      the E pass, the frequencies beyond 7 in update_dft
 *                      passes; gl-compute: one array image, in place)
 *   cut_idx RG32UI + cut_edges RGBA32UI buffer: the conformal cut edges
 *   hnode RGBA32UI     the H-node map (core/model.h hmat: TE, or TM with
 *                      mu_r) over the bounding box of its nodes of index != 0:
 *                      (Hx index, Hy index, Hx H-slot, Hy H-slot); the
 *                      H-slot values follow the cut edges' b^n in the
 *                      slot-value buffers
 *   disp_state RGBA32F pair, DISP_NT texels per dispersive cell (core/model.h
 *                      disp_cell): the new stored Ez, D_s, Ei, P, P_old per
 *                      pole; disp_cells RGBA32UI (i, j, material row) in
 *                      the same layout; disp_idx R32UI (k + 1) over the
 *                      cells' bounding box; disp_coef RGBA32F buffer, the
 *                      dispersive materials' coefficients.  gl: a disp pass
 *                      (update_disp.frag) into the other texture between
 *                      the H and E passes; gl-compute: a dispatch updating
 *                      tex[0] in place.  Their Ei^{n+1} follow the H slots
 *                      in the slot-value buffers.  TE dispersive edges
 *                      (core/model.h hdisp) use the same textures with an
 *                      entry per H-array node (disp_idx RG32UI: Hx, Hy
 *                      entry + 1), their pass before the H pass, which
 *                      takes the new value; their Hi^{n+1/2} in place of
 *                      the cells' Ei^{n+1}
 *   tecut_idx R32UI + tecut_k RGBA32F buffer: the TE conformal cut cells
 *                      (core/model.h tecut), k + 1 over their bounding box
 *                      and their four edge coefficients; the E pass
 *                      replaces their update (yee_te_cut from the old Hz of
 *                      its input texture), their b^n last in the slot-value
 *                      buffers
 *   hoff_idx RG32UI + hoff_k RG32F buffer: the TE off-diagonal edges
 *                      (core/model.h hoff), Hx and Hy entry + 1 over their
 *                      bounding box and their k0, k1; the H pass adds
 *                      yee_offd_u from its input Ez^n after the node's own
 *                      update, before its slot; their w after the TE cut
 *                      cells' b^n in the slot-value buffers
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
#ifndef TEXFDTD_GL2D_INTERNAL_H
#define TEXFDTD_GL2D_INTERNAL_H

#include <GL/glew.h>

#include "core/engine.h"
#include "gl/egl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DFT frequencies per fragment pass: the E pass has Ez and 7 sums as its 8
 * render targets (GL 4.3 guarantees 8), update_dft.frag 8 sums */
#define DFT_E_MAX 7
#define DFT_G_MAX 8
#define GATHER_LOCAL 64 /* gather.comp's work group */
#define BATCH_MAX_STEPS 100000 /* steps of a batch, at most */
#define GLC_K_MAX 16 /* gl-compute: steps per temporally blocked dispatch, at most */
#define GLC_WF_K_MAX 8 /* ... in the warp wavefront (update_wf.comp): 32 - 2K columns stored */
#define GLC_WF_WARPS 8 /* update_wf.comp: warps (rows of 32 invocations) per work group */

/* gl-compute's step paths (TEXFDTD_GLC_PATH): one step a dispatch (fused or
 * two dispatches), K steps a dispatch in tiles (update_tb.comp) or as a warp
 * wavefront (update_wf.comp) */
enum glc_path { GLC_PATH_ONE, GLC_PATH_TILES, GLC_PATH_WAVEFRONT };
/* update_wf.comp's exchange between lanes (its SHUFFLE #define) */
enum glc_shuffle { GLC_SHUFFLE_SHARED, GLC_SHUFFLE_SUBGROUP, GLC_SHUFFLE_NV };

/* A ping-pong pair (WebGL-Fluid-Simulation's createDoubleFBO): read tex[cur],
 * write tex[1 - cur], then swap. */
struct pingpong {
    GLuint tex[2], fbo[2];
    int cur;
};

/* What a shader stage does with denormals, probed at start. */
struct denormal_probe {
    bool flushes_results, flushes_inputs;
};

struct pass {
    GLuint prog;
    GLint slot_base; /* uniform location, E pass only */
    GLint cut_base;  /* H pass: this step's first cut-edge value */
    GLint hslot_base; /* H pass: this step's first H-slot value */
    GLint disp_base;  /* disp pass: this step's first Ei^{n+1} */
    GLint tecut_base; /* E pass: this step's first TE cut cell b^n */
    GLint hoff_base;  /* H pass: this step's first off-diagonal edge w */
    GLint point_v, dft_wr, dft_wi, dft_on; /* E pass: per-step uniforms */
    GLint dft_first; /* update_dft.frag: its first frequency */
    GLint axis;      /* psi passes */
    GLint row;       /* gather: row0 (gl) or row_base (gl-compute, update_tb.comp) */
    GLint point_vk;  /* update_tb.comp: the point source's K values */
    GLint dft_wk, dft_on_k; /* update_tb.comp: the DFT weights of its K steps, which accumulate */
};

/* The per-step inputs of an E pass beyond the slot values. */
struct step_in {
    int slot_base, cut_base, hslot_base, disp_base, tecut_base, hoff_base;
    float point_v;
    float dft_wr[SCENE_MAX_FREQS], dft_wi[SCENE_MAX_FREQS]; /* per frequency */
    bool dft_on;
};

/* CPML psi textures, shaped like the slabs (core/model.h storage columns). */
enum { PSI_HXY, PSI_HYX, PSI_EZY, PSI_EZX, PSI_COUNT };

struct gl_engine {
    struct engine base;
    bool compute;
    bool failed; /* a check failed: refuse further work */
    struct egl_ctx *egl;
    struct egl_ctx_info info;
    char shader_dir[4096];
    enum denormals denormals; /* what this engine's arithmetic does */
    bool emulate_flush;       /* FTZ/DAZ done in GLSL (the driver keeps denormals) */
    struct denormal_probe probe_frag, probe_comp;

    int nx, ny;
    int local_x, local_y; /* compute work-group size (TEXFDTD_GL_LOCAL=WxH) */
    struct pingpong ez, h;
    GLuint mat_tex, slot_tex, vao;
    int slot_x0, slot_y0, slot_w, slot_h;
    struct pass hpass, epass;
    bool fused;         /* gl-compute: one dispatch per step (update_he.comp) */
    struct pass hepass;
    /* gl-compute, temporal blocking (update_tb.comp, docs/gl.md): tb_k > 1
     * steps per dispatch in tiles of tile_x x tile_y cells (TEXFDTD_GLC_K,
     * TEXFDTD_GLC_TILE); the steps of a batch beyond a multiple of tb_k
     * take the fused (or two-dispatch) path.  tb_why: why not, when asked. */
    int tb_k, tile_x, tile_y;
    struct pass tbpass; /* update_tb.comp, or (wf) update_wf.comp */
    /* the warp wavefront (update_wf.comp, TEXFDTD_GLC_PATH=wavefront): wf
     * when it runs the K-step dispatches, in strips of wf_rows rows
     * (TEXFDTD_GLC_ROWS), lanes exchanging through wf_shuffle
     * (TEXFDTD_GLC_SHUFFLE; wf_shuffle_why: how it was chosen); wf_why: why
     * the tiles run instead, when it was asked */
    int glc_path;       /* asked: enum glc_path, or -1 (the default) */
    bool wf;
    int wf_rows;
    int wf_shuffle;
    char wf_shuffle_why[96];
    char wf_why[96];
    GLuint tb_tile_buf; /* with monitors: each tile's samples (textures.c) */
    char tb_why[160];
    int k;              /* gl: steps per fragment pass (update_k.frag when > 1) */
    struct pass kpass;
    double kpass_build_s; /* compile + link time of the last kpass (log, bench) */
    GLuint mrt_fbo[2];  /* Ez tex[c] + H tex[c], the multi-step pass's targets */

    /* what the scene needs beyond a PEC box (docs/gl.md, "Absorbing
     * boundaries, DFT, point source, conformal PEC") */
    bool cpml, mur, dft, point, conformal;
    bool hmap;                     /* the H-node map (core/model.h hmat) */
    size_t nhslots;                /* its H slots (0 without the map) */
    int pml_n;
    GLuint prof_tex;               /* RGBA32F (b, c, ik): rows xe, xh, ye, yh */
    struct pingpong psi[PSI_COUNT]; /* R32F; compute uses tex[0] in place */
    struct pass psi_hpass, psi_epass; /* gl: the psi passes */
    /* [monitor.dft]: RG32F 2D array textures, layer k = frequency k; gl
     * ping-pongs the pair (cur follows ez.cur), gl-compute updates tex[0]
     * in place */
    int dft_nf;                    /* frequencies */
    int dft_e;                     /* gl: how many the E pass accumulates */
    int dft_groups;                /* gl: update_dft passes for the rest */
    struct {
        GLuint tex[2];
        int cur;
    } dft_pp;
    GLuint dft_mrt_fbo[2];         /* gl: Ez tex[c] + layers 0 .. dft_e-1 of DFT tex[c] */
    GLuint *dft_group_fbo;         /* gl: [group][c], the group's layers of DFT tex[c] */
    struct pass dftpass;           /* gl: update_dft.frag */
    GLuint layer_fbo;              /* one layer of a DFT texture, to clear or read it */
    int point_x, point_y;
    GLuint cut_idx_tex, cut_edge_buf, cut_edge_tbo;
    int cut_x0, cut_y0, cut_w, cut_h;
    GLuint hnode_tex;              /* RGBA32UI over the H slots' (and TE dispersive
                                    * edges') bounding box */
    int hslot_x0, hslot_y0, hslot_w, hslot_h;
    /* dispersive cells (docs/gl.md, "Dispersive poles"), or TE edges */
    bool disp;
    bool disp_edges;               /* the entries are TE edges (model->hdisp) */
    size_t ndisp;                  /* entries: model->ndisp or model->nhdisp */
    int disp_w, disp_rows;         /* cells per state row, rows */
    int disp_nt, disp_np;          /* texels per cell, poles at most */
    int disp_x0, disp_y0, disp_bw, disp_bh; /* the cells' bounding box */
    struct pingpong disp_pp;       /* RGBA32F state; gl-compute uses tex[0] in place */
    GLuint disp_idx_tex, disp_cells_tex, disp_coef_buf, disp_coef_tbo;
    struct pass disppass;
    bool hlossy;                   /* TE lossy edges (model->hlossy) */
    /* TE conformal PEC cut cells (model->tecut) */
    bool tecut;
    size_t ntecut;
    int tecut_x0, tecut_y0, tecut_w, tecut_h;
    GLuint tecut_idx_tex, tecut_k_buf, tecut_k_tbo;
    /* TE off-diagonal edges (model->hoff) */
    bool hoff;
    size_t nhoff;
    int hoff_x0, hoff_y0, hoff_w, hoff_h;
    GLuint hoff_idx_tex, hoff_k_buf, hoff_k_tbo;

    size_t nslots;
    size_t stride;       /* values per step in the slot buffers: slots, cut edges, H slots,
                          * dispersive cells' Ei^{n+1} (or TE edges' Hi^{n+1/2}),
                          * TE cut cells' b^n, TE off-diagonal edges' w */
    int slot_cap_steps;  /* steps of slot values one buffer holds */
    GLuint slot_buf[2], slot_tbo[2];
    float *slot_host;    /* host values: all of a batch, or (dev_values) its cut edges' */
    /* the slot values computed on the GPU (values.c, inc_values.comp) or,
     * where values_why says why not, on the host */
    bool dev_values;
    char values_why[256];
    GLuint val_prog, val_coef_buf, val_entry_buf;
    /* the host's values of the batch of slot k (cut edges, TE cut cells,
     * off-diagonal edges), one buffer per batch slot as slot_buf: the
     * upload for batch n + 1 must not reach the buffer that batch n's
     * values dispatch, maybe still queued, reads (values.c) */
    GLuint val_host_buf[2];
    GLint val_t_first, val_s_first, val_max_z;
    GLuint val_gx, val_gy; /* work groups per step */
    /* slot_buf[ahead_k] already holds the slot values of steps ahead_t0 ..
     * ahead_t0 + ahead_b - 1 (ahead_b = 0: none) */
    int ahead_k, ahead_t0, ahead_b;

    /* fenced batches */
    GLuint counter_pbo[2];
    GLsync fence[2];
    uint32_t expect[2]; /* counter value the batch must leave */
    int batch_len[2];
    double batch_start[2]; /* wall clock when the batch began to be sent */
    bool pending[2];
    int batch_no;
    uint32_t counted;   /* H passes sent so far */
    int batch_steps;
    bool batch_fixed;   /* TEXFDTD_GL_BATCH_STEPS */
    double fence_timeout_s;
    double last_fence_wall;

    /* monitors (core/monitor.h): the gather of model->samples per step */
    size_t nsamples;
    int sample_rows;     /* model->sample_rows: rows a batch holds */
    int rows_taken;      /* rows gathered since the last read_samples */
    int gather_w, gather_h; /* gl: the sample list's texture, W x H */
    GLuint sample_tex, rows_tex, rows_fbo; /* gl */
    GLuint sample_buf, rows_buf;           /* gl-compute */
    uint32_t *rows_host; /* gl with H > 1: a batch as read, before compaction */
    struct pass gather;

    GLuint color_prog, color_tex, color_fbo;
    GLuint check_prog, check_buf; /* the blow-up check (check_finite.comp), built on first use */
};

static inline struct gl_engine *G(struct engine *e) { return (struct gl_engine *)e; }

/* Texture units of the update passes. */
enum { UNIT_EZ = 0, UNIT_H, UNIT_MAT, UNIT_SLOT, UNIT_SLOTVAL };
/* ... and of the features, fixed by layout(binding) in update2d.glsl and the
 * passes; images (compute): 0 the pass's output, 2-5 psi, 6 DFT; storage
 * buffers (gather.comp): 1 the sample list, 2 the rows */
enum { UNIT_PROF = 5, UNIT_PSI0 = 6, UNIT_PSI_OLD = 10, UNIT_DFT = 11, UNIT_CUT_IDX = 12,
       UNIT_CUT_EDGES = 13, UNIT_SAMPLES = 14, UNIT_HNODE = 15, UNIT_DISP_STATE = 16,
       UNIT_DISP_IDX = 17, UNIT_DISP_CELLS = 18, UNIT_DISP_COEF = 19, UNIT_TECUT_IDX = 20,
       UNIT_TECUT_K = 21, UNIT_HOFF_IDX = 22, UNIT_HOFF_K = 23 };
#define UNITS_DISP 20 /* texture units a dispersive scene needs */
#define UNITS_TECUT 22 /* ... and a scene with TE conformal cut cells */
#define UNITS_HOFF 24  /* ... and a scene with TE off-diagonal edges */
enum { IMAGE_PSI0 = 2, IMAGE_DFT = 6, IMAGE_DISP = 7 };
enum { SSBO_SAMPLES = 1, SSBO_ROWS = 2, SSBO_TILE_SAMPLES = 3 };

static inline void bind_tex(int unit, GLenum target, GLuint tex)
{
    glActiveTexture(GL_TEXTURE0 + (GLenum)unit);
    glBindTexture(target, tex);
}

/* Sampler `name` of prog reads texture unit `unit` (if prog has it). */
static inline void set_sampler(GLuint prog, const char *name, int unit)
{
    const GLint loc = glGetUniformLocation(prog, name);
    if (loc >= 0)
        glProgramUniform1i(prog, loc, unit);
}

/* ---- glutil.c: errors, textures, framebuffers ---- */

/* The name of a glGetError() value. */
const char *gl2d_error_name(GLenum e);
/* GL errors are collected at a few places (after creation, after each batch,
 * after each readback) rather than after every call: 0, or -1 with the first
 * pending error in err as "where: NAME (0x....)". */
int gl2d_check_gl(const char *where, char *err, size_t errlen);
/* 0, or -1 with err if the context was reset (robust contexts). */
int gl2d_check_reset(const char *where, char *err, size_t errlen);
/* "what failed" -> "<name>: what failed"; returns -1. */
int gl2d_prefix_err(const char *name, char *err, size_t errlen);
/* GL_NEAREST, GL_CLAMP_TO_EDGE on the bound texture of target. */
void gl2d_tex_params(GLenum target);
/* An immutable w x h 2D texture of format ifmt, left bound. */
GLuint gl2d_make_tex(GLenum ifmt, int w, int h);
/* A framebuffer with tex as its colour attachment 0, checked complete. */
int gl2d_make_fbo(GLuint tex, GLuint *fbo, const char *what, char *err, size_t errlen);
/* A framebuffer rendering into tex0 and tex1 at once (MRT). */
int gl2d_make_fbo2(GLuint tex0, GLuint tex1, GLuint *fbo, const char *what, char *err,
                   size_t errlen);
/* Both textures of a pair, with their framebuffers, cleared to 0; cur = 0. */
int gl2d_make_pair(struct pingpong *p, GLenum ifmt, int w, int h, const char *what, char *err,
                   size_t errlen);
void gl2d_free_pair(struct pingpong *p);

/* ---- programs.c: the update passes' programs ---- */

/* The GLSL #defines of the update passes (grid, slots, features). */
void gl2d_make_defines(const struct gl_engine *g, const struct model *m, bool flush, char *buf,
                       size_t len);
/* The scene needs more than a PEC box with slots (CPML, Mur, DFT, point
 * source, conformal PEC, the H-node map, dispersive cells): one step per
 * fragment pass, two dispatches. */
bool gl2d_has_features(const struct gl_engine *g);
/* The material coefficients (ch, cezh[], kind[], mur_k) as uniforms of prog. */
void gl2d_set_coefficients(GLuint prog, const struct model *m);
/* Every program the engine's passes need, with their samplers, uniforms and
 * (gl, multi-step) render targets. */
int gl2d_build_update_programs(struct gl_engine *g, const struct model *m, char *err,
                               size_t errlen);

/* The warp wavefront update_wf.comp into g->tbpass (g->tb_k, wf_rows,
 * wf_shuffle), on top of the passes' #defines defs. */
int gl2d_build_wf_pass(struct gl_engine *g, const struct model *m, const char *defs, char *err,
                       size_t errlen);

/* ---- textures.c: the textures and buffers beyond the Ez and H pairs ---- */

/* Bounding boxes of the source slots' cells, of the cut edges' H cells and
 * of the H slots' cells (1 x 1 at the origin, read by nothing, when there
 * are none). */
void gl2d_slot_bbox(struct gl_engine *g, const struct model *m);
void gl2d_cut_bbox(struct gl_engine *g, const struct model *m);
void gl2d_hslot_bbox(struct gl_engine *g, const struct model *m);
/* The TE conformal cut cells' bounding box. */
void gl2d_tecut_bbox(struct gl_engine *g, const struct model *m);
/* The TE off-diagonal edges' bounding box. */
void gl2d_hoff_bbox(struct gl_engine *g, const struct model *m);
/* The dispersive cells' state layout and bounding box. */
void gl2d_disp_layout(struct gl_engine *g, const struct model *m);
/* The CPML psi pairs and the DFT sums (with gl's render targets), zeroed. */
int gl2d_make_feature_targets(struct gl_engine *g, const struct model *m, char *err, size_t errlen);
/* The monitors' sample list and the rows of one batch (and with temporal
 * blocking each tile's samples). */
int gl2d_make_gather_targets(struct gl_engine *g, const struct model *m, char *err, size_t errlen);
/* The material map, slot index map, slot-value buffers, CPML profiles, cut
 * edges and the step counter's pixel buffers. */
int gl2d_upload_static(struct gl_engine *g, const struct model *m, char *err, size_t errlen);

/* ---- batch.c: step() in fenced batches ---- */

/* Wait for and check every batch still in flight; on failure the engine
 * refuses further work. */
int gl2d_finish_pending(struct gl_engine *g, char *err, size_t errlen);
/* The step counter texel of both H textures, for the steps sent so far. */
void gl2d_reset_counter(struct gl_engine *g);
/* The engine op (core/engine.h): n steps in fenced batches. */
int gl2d_step(struct engine *e, int n, char *err, size_t errlen);

/* ---- values.c: the slot values on the GPU ---- */

/* Decide where the slot values are computed (TEXFDTD_GL_VALUES, the
 * driver's doubles and limits) and, on the GPU, build inc_values.comp and
 * its buffers.  -1 only for a bad TEXFDTD_GL_VALUES or a GL failure. */
int gl2d_values_init(struct gl_engine *g, const struct model *m, char *err, size_t errlen);
/* The slot values of steps t0 .. t0+b-1 into slot buffer k (dev_values),
 * with the cut edges' b^n of the batch taken from slot_host ([step][edge]). */
void gl2d_values_dispatch(struct gl_engine *g, const struct model *m, int k, int t0, int b);
void gl2d_values_free(struct gl_engine *g);

/* ---- step.c: a batch of steps as passes, both engines ---- */

/* What every pass reads, bound once per step() call: the vertex array, the
 * viewport, the material and slot maps, the CPML profiles and psi textures
 * (gl-compute: images, updated in place), the cut edges, gl-compute's DFT
 * image. */
void gl2d_bind_inputs(struct gl_engine *g);
/* The start of every update pass: the current Ez and H at UNIT_EZ and
 * UNIT_H, and prog in use. */
void gl2d_use_pass(struct gl_engine *g, GLuint prog);
/* The E and H passes' per-step uniforms (both engines). */
void gl2d_e_uniforms(const struct gl_engine *g, const struct step_in *in);
void gl2d_h_uniforms(const struct gl_engine *g, const struct step_in *in);
/* Steps t0 .. t0+b-1, with the batch's slot values bound at UNIT_SLOTVAL
 * (step s at s * stride); with monitors, a gather after each. */
void gl2d_run_steps(struct gl_engine *g, const struct model *m, int t0, int b);

/* ---- frag2d.c: the passes of `gl` ---- */

void gl2d_frag_psi(struct gl_engine *g, bool e_slabs);
void gl2d_frag_h(struct gl_engine *g, const struct step_in *in);
void gl2d_frag_e(struct gl_engine *g, const struct step_in *in);
void gl2d_frag_gather(struct gl_engine *g);
void gl2d_frag_k(struct gl_engine *g, int slot_base);
void gl2d_frag_disp(struct gl_engine *g, const struct step_in *in);

/* ---- kgen.c: update_k.frag's generated fast path ---- */

#define KPASS_MAX 8 /* steps per fragment pass, at most */
struct kpass_cost {
    long flops;     /* float operations per fragment (K steps of its cell) */
    int ez_texels;  /* texels fetched per fragment */
    int h_texels;
    int statements; /* values computed per fragment */
};
/* The GLSL of fast_path() for k = 1 .. KPASS_MAX steps, malloc'd (NULL when
 * out of memory or k is out of range), and its cost if cost is not NULL;
 * gather: the inputs by textureGatherOffset, four texels an instruction
 * (the texel counts of cost are then instructions). */
char *gl2d_kpass_fast_path(int k, bool gather, struct kpass_cost *cost);
/* TEXFDTD_GL_KPASS_GATHER=1: the fast path gathers its inputs. */
bool gl2d_kpass_gather(void);
/* programs.c: update_k.frag for k steps into g->kpass (and its framebuffers). */
int gl2d_build_kpass(struct gl_engine *g, const struct model *m, int k, char *err, size_t errlen);
/* kchoose.c: g->k by timing k = 1 .. 6 on this grid (TEXFDTD_GL_STEPS_PER_PASS=auto). */
int gl2d_choose_k(struct gl_engine *g, const struct model *m, char *err, size_t errlen);
/* batch.c: an adaptive batch of gl rounded to whole k-step passes. */
void gl2d_round_batch(struct gl_engine *g);

/* ---- compute2d.c: the dispatches of `gl-compute` ---- */

void gl2d_compute_h(struct gl_engine *g, const struct step_in *in);
void gl2d_compute_e(struct gl_engine *g, const struct step_in *in);
void gl2d_compute_he(struct gl_engine *g, int slot_base);
/* tb_k steps in one dispatch (update_tb.comp), the point source's value of
 * each in point_v (read only with a point source), with a DFT the weights
 * (wr, wi) of step s and frequency k at dft_w[2 (s dft_nf + k)] and bit s
 * of dft_on set where step s accumulates. */
void gl2d_compute_tb(struct gl_engine *g, int slot_base, const float *point_v, const float *dft_w,
                     unsigned dft_on);
void gl2d_compute_disp(struct gl_engine *g, const struct step_in *in);
void gl2d_compute_gather(struct gl_engine *g);

/* ---- readback.c: fields, monitor rows, the blow-up check ---- */

/* Before moving field data between the GPU and the host: refuse after a
 * failed check, make the context current, finish the batches in flight,
 * plain pixel transfers. */
int gl2d_begin_transfer(struct gl_engine *g, char *err, size_t errlen);
/* Layer k of the current DFT texture as the read framebuffer. */
void gl2d_bind_dft_layer(struct gl_engine *g, int k);
/* The engine ops (core/engine.h). */
int gl2d_read_field(struct engine *e, enum field f, void *dst, char *err, size_t errlen);
int gl2d_write_field(struct engine *e, enum field f, const void *src, char *err, size_t errlen);
int gl2d_check_finite(struct engine *e, enum field *f, size_t *cell, char *err, size_t errlen);
int gl2d_read_samples(struct engine *e, void *dst, int rows, char *err, size_t errlen);

/* ---- state.c: checkpoints ---- */

int gl2d_state(struct engine *e, struct state_io *io, char *err, size_t errlen);

/* ---- colour.c: the picture ---- */

int gl2d_render_rgba(struct engine *e, uint8_t *rgba, char *err, size_t errlen);

#endif
