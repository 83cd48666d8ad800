/* textures.c - the textures and buffers of the GL engines beyond the Ez and
 * H pairs, made and filled at create (gl2d_internal.h lists them): the
 * material map, the slots' index map and slot-value buffers, the CPML
 * profiles and psi pairs, the DFT sums and their render targets, the
 * conformal cut edges, the H-node map, the dispersive cells' state and
 * tables, the TE cut cells and off-diagonal edges, the monitors' sample list and rows, the step counter's pixel
 * buffers.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/model.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bounding box (origin x0, y0, size w x h) of the n cells cell(m, k);
 * a 1x1 box at the origin, which nothing reads, when n = 0. */
static void bbox(const struct model *m, size_t n, size_t (*cell)(const struct model *, size_t),
                 int *x0, int *y0, int *w, int *h)
{
    int a0 = m->nx, b0 = m->ny, a1 = -1, b1 = -1;
    for (size_t k = 0; k < n; k++) {
        const size_t c = cell(m, k);
        const int i = (int)(c % (size_t)m->nx), j = (int)(c / (size_t)m->nx);
        a0 = i < a0 ? i : a0;
        a1 = i > a1 ? i : a1;
        b0 = j < b0 ? j : b0;
        b1 = j > b1 ? j : b1;
    }
    if (a1 < 0)
        a0 = b0 = a1 = b1 = 0;
    *x0 = a0;
    *y0 = b0;
    *w = a1 - a0 + 1;
    *h = b1 - b0 + 1;
}

/* The index maps and tables of the lists: a w x h integer texture of
 * format ifmt (pixel format fmt, 4-byte components) filled from data; a
 * texture buffer of format bfmt over `bytes` of bdata (buf, tbo). */
static GLuint int_tex(GLenum ifmt, GLenum fmt, int w, int h, const void *data)
{
    const GLuint t = gl2d_make_tex(ifmt, w, h);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, fmt, GL_UNSIGNED_INT, data);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    return t;
}

static void buffer_tex(GLenum bfmt, const void *bdata, size_t bytes, GLuint *buf, GLuint *tbo)
{
    glGenBuffers(1, buf);
    glBindBuffer(GL_TEXTURE_BUFFER, *buf);
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)bytes, bdata, GL_STATIC_DRAW);
    glGenTextures(1, tbo);
    glBindTexture(GL_TEXTURE_BUFFER, *tbo);
    glTexBuffer(GL_TEXTURE_BUFFER, bfmt, *buf);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

static size_t slot_cell(const struct model *m, size_t k) { return m->slot_cell[k]; }
static size_t cut_cell(const struct model *m, size_t k) { return m->cut[k].cell; }
/* the H-node map's nodes of index != 0: the H slots, then the TE dispersive
 * edges */
static size_t hnode_cell(const struct model *m, size_t k)
{
    return (k < m->nhslots ? m->hslot[k] : m->hdisp[k - m->nhslots]) % m->ncells;
}
static size_t disp_cell(const struct model *m, size_t k) { return m->disp_cell[k]; }
static size_t hdisp_cell(const struct model *m, size_t k) { return m->hdisp[k] % m->ncells; }
static size_t tecut_cell(const struct model *m, size_t k) { return m->tecut[k].cell; }
static size_t hoff_cell(const struct model *m, size_t k) { return m->hoff[k].id % m->ncells; }

void gl2d_slot_bbox(struct gl_engine *g, const struct model *m)
{
    bbox(m, m->nslots, slot_cell, &g->slot_x0, &g->slot_y0, &g->slot_w, &g->slot_h);
}

void gl2d_cut_bbox(struct gl_engine *g, const struct model *m)
{
    bbox(m, m->ncut, cut_cell, &g->cut_x0, &g->cut_y0, &g->cut_w, &g->cut_h);
}

void gl2d_hslot_bbox(struct gl_engine *g, const struct model *m)
{
    bbox(m, g->hmap ? m->nhslots + m->nhdisp : 0, hnode_cell, &g->hslot_x0, &g->hslot_y0,
         &g->hslot_w, &g->hslot_h);
}

void gl2d_tecut_bbox(struct gl_engine *g, const struct model *m)
{
    bbox(m, m->ntecut, tecut_cell, &g->tecut_x0, &g->tecut_y0, &g->tecut_w, &g->tecut_h);
}

void gl2d_hoff_bbox(struct gl_engine *g, const struct model *m)
{
    bbox(m, m->nhoff, hoff_cell, &g->hoff_x0, &g->hoff_y0, &g->hoff_w, &g->hoff_h);
}

/* The dispersive coefficients of entry k: a cell's material or a TE edge's
 * H-node material. */
static const struct material_coef *disp_coef(const struct gl_engine *g, const struct model *m,
                                             size_t k)
{
    return g->disp_edges ? m->hmats[m->hmat[m->hdisp[k]]].dcoef
                         : m->mats[m->mat[m->disp_cell[k]]].dcoef;
}

/* Dispersive cells per row of the state texture: 1024, or more for a
 * square-ish texture (W NT ~ rows) where that would need more rows;
 * TEXFDTD_GL_DISP_ROW_CELLS sets it (tests: layouts of several rows). */
#define DISP_ROW_CELLS 1024

void gl2d_disp_layout(struct gl_engine *g, const struct model *m)
{
    bbox(m, g->ndisp, g->disp_edges ? hdisp_cell : disp_cell, &g->disp_x0, &g->disp_y0,
         &g->disp_bw, &g->disp_bh);
    g->disp_np = 1;
    for (size_t k = 0; k < g->ndisp; k++) {
        const int np = disp_coef(g, m, k)->npoles;
        g->disp_np = np > g->disp_np ? np : g->disp_np;
    }
    /* floats: the new Ez, D_s, Ei, a spare, then P and P_old per pole */
    g->disp_nt = (4 + 2 * g->disp_np + 3) / 4;
    const char *rc = getenv("TEXFDTD_GL_DISP_ROW_CELLS");
    const int sq = (int)ceil(sqrt((double)g->ndisp / g->disp_nt));
    g->disp_w = g->ndisp < DISP_ROW_CELLS ? (int)(g->ndisp ? g->ndisp : 1) : DISP_ROW_CELLS;
    g->disp_w = sq > g->disp_w ? sq : g->disp_w;
    if (rc && atoi(rc) > 0)
        g->disp_w = atoi(rc);
    g->disp_rows = (int)((g->ndisp + (size_t)g->disp_w - 1) / (size_t)g->disp_w);
    if (g->disp_rows < 1)
        g->disp_rows = 1;
}

/* The dispersive cells' tables (docs/gl.md, "Dispersive poles"): the index
 * map k + 1 over their bounding box, each cell's (i, j, material row) in
 * the state layout, the dispersive materials' coefficients (rounded once on
 * the host: core/material.h), and the state pair, zeroed.  TE dispersive
 * edges (disp_edges): the index map's .x the Hx entry, .y the Hy entry,
 * each entry's (i, j, row, comp), the H-node materials' coefficients. */
static int upload_disp(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    const size_t bw = (size_t)g->disp_bw, bh = (size_t)g->disp_bh, nx = (size_t)m->nx;
    const size_t cw = (size_t)g->disp_w, ch = (size_t)g->disp_rows, row = 1 + (size_t)g->disp_np;
    const int nm = g->disp_edges ? m->nhmats : m->nmats;
    uint32_t *idx = xcalloc(bw * bh * 2, sizeof *idx, "dispersive cells", err, errlen);
    uint32_t *cells = xcalloc(cw * ch * 4, sizeof *cells, "dispersive cells", err, errlen);
    float *coef = xcalloc((size_t)nm * row * 4, sizeof *coef, "dispersive cells", err, errlen);
    int drow[MODEL_MAX_MATERIALS], nd = 0;
    int rc = idx && cells && coef ? 0 : -1;
    for (int q = 0; q < nm && !rc; q++) {
        const struct material_coef *mc = g->disp_edges ? m->hmats[q].dcoef : m->mats[q].dcoef;
        drow[q] = -1;
        if (!mc)
            continue;
        float *t = coef + (size_t)nd * row * 4;
        const uint32_t np = (uint32_t)mc->npoles;
        t[0] = mc->rdenom_f;
        t[1] = mc->sigma_p_f;
        memcpy(&t[2], &np, 4);
        for (int p = 0; p < mc->npoles; p++) {
            const struct material_pole_coef *pc = &mc->poles[p];
            const uint32_t kind = (uint32_t)pc->kind;
            float *u = t + 4 * (size_t)(1 + p);
            memcpy(&u[0], &kind, 4);
            u[1] = pc->kind == POLE_DEBYE ? pc->a_f : pc->c1_f;
            u[2] = pc->kind == POLE_DEBYE ? pc->b_f : pc->c2_f;
            u[3] = pc->kind == POLE_DEBYE ? 0.0f : pc->c3_f;
        }
        drow[q] = nd++;
    }
    for (size_t k = 0; k < g->ndisp && !rc; k++) {
        const size_t id = g->disp_edges ? m->hdisp[k] : m->disp_cell[k];
        const size_t c = id % m->ncells, comp = id / m->ncells, i = c % nx, j = c / nx;
        idx[((i - (size_t)g->disp_x0) + (j - (size_t)g->disp_y0) * bw) * 2 + comp] =
            (uint32_t)k + 1;
        uint32_t *t = cells + 4 * k; /* texel (k % cw, k / cw) of the row-major layout */
        t[0] = (uint32_t)i;
        t[1] = (uint32_t)j;
        t[2] = (uint32_t)drow[g->disp_edges ? m->hmat[id] : m->mat[c]];
        t[3] = (uint32_t)comp;
    }
    if (!rc) {
        g->disp_idx_tex = int_tex(GL_RG32UI, GL_RG_INTEGER, g->disp_bw, g->disp_bh, idx);
        g->disp_cells_tex = int_tex(GL_RGBA32UI, GL_RGBA_INTEGER, g->disp_w, g->disp_rows, cells);
        buffer_tex(GL_RGBA32F, coef, (size_t)(nd ? nd : 1) * row * 16, &g->disp_coef_buf,
                   &g->disp_coef_tbo);
        rc = gl2d_make_pair(&g->disp_pp, GL_RGBA32F, g->disp_w * g->disp_nt, g->disp_rows,
                            "dispersive state (RGBA32F)", err, errlen);
    }
    free(idx);
    free(cells);
    free(coef);
    return rc;
}

/* The H-node map over the bounding box of its nodes of index != 0 (docs/gl.md,
 * "The H-node map"): per texel the hmat index of its Hx and Hy node, then
 * the H-slot index of each (0 where the index is 0: no slot, and for a TE
 * dispersive edge, whose index the disp pass reads). */
static int upload_hnodes(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    const size_t bw = (size_t)g->hslot_w, bh = (size_t)g->hslot_h, n = m->ncells;
    uint32_t *map = xcalloc(bw * bh * 4, sizeof *map, "H-node map", err, errlen);
    if (!map)
        return -1;
    for (size_t q = 0; q < m->nhslots; q++) {
        const size_t id = m->hslot[q], c = id % n, comp = id / n;
        const size_t i = c % (size_t)m->nx - (size_t)g->hslot_x0;
        const size_t j = c / (size_t)m->nx - (size_t)g->hslot_y0;
        map[(i + j * bw) * 4 + comp] = m->hmat[id];
        map[(i + j * bw) * 4 + 2 + comp] = (uint32_t)q;
    }
    for (size_t q = 0; q < m->nhdisp; q++) {
        const size_t id = m->hdisp[q], c = id % n, comp = id / n;
        const size_t i = c % (size_t)m->nx - (size_t)g->hslot_x0;
        const size_t j = c / (size_t)m->nx - (size_t)g->hslot_y0;
        map[(i + j * bw) * 4 + comp] = m->hmat[id];
    }
    g->hnode_tex = int_tex(GL_RGBA32UI, GL_RGBA_INTEGER, g->hslot_w, g->hslot_h, map);
    free(map);
    return 0;
}

/* A list's index map and coefficient table: entry q of n at the node
 * id(m, q) = comp * ncells + cell gets q + 1 in component comp (< nc: 1
 * R32UI, 2 RG32UI) of the w x h map at (x0, y0), 0 elsewhere, and its nf
 * floats coef(m, q) (2 RG32F, 4 RGBA32F; rounded once on the host) in a
 * buffer. */
struct list_tables {
    const char *what;
    size_t n;
    size_t (*id)(const struct model *, size_t);
    const float *(*coef)(const struct model *, size_t);
    int nc, nf, x0, y0, w, h;
};

static int upload_list(const struct model *m, const struct list_tables *l, GLuint *tex,
                       GLuint *buf, GLuint *tbo, char *err, size_t errlen)
{
    const size_t bw = (size_t)l->w, bh = (size_t)l->h, nx = (size_t)m->nx;
    const size_t nc = (size_t)l->nc, nf = (size_t)l->nf;
    uint32_t *idx = xcalloc(bw * bh * nc, sizeof *idx, l->what, err, errlen);
    float *k = idx ? xcalloc(l->n * nf, sizeof *k, l->what, err, errlen) : NULL;
    if (!k) {
        free(idx);
        return -1;
    }
    for (size_t q = 0; q < l->n; q++) {
        const size_t id = l->id(m, q), c = id % m->ncells, comp = id / m->ncells;
        idx[((c % nx - (size_t)l->x0) + (c / nx - (size_t)l->y0) * bw) * nc + comp] =
            (uint32_t)q + 1;
        memcpy(&k[nf * q], l->coef(m, q), nf * sizeof(float));
    }
    *tex = nc == 1 ? int_tex(GL_R32UI, GL_RED_INTEGER, l->w, l->h, idx)
                   : int_tex(GL_RG32UI, GL_RG_INTEGER, l->w, l->h, idx);
    buffer_tex(nf == 4 ? GL_RGBA32F : GL_RG32F, k, l->n * nf * sizeof(float), buf, tbo);
    free(idx);
    free(k);
    return 0;
}

/* The TE conformal cut cells (docs/gl.md): k + 1 over their bounding box
 * (R32UI) and their four edge coefficients k_f (east, west, north, south)
 * per cell, an RGBA32F buffer. */
static const float *tecut_k(const struct model *m, size_t q) { return m->tecut[q].k_f; }

static int upload_tecut(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    const struct list_tables l = {"TE cut cells", m->ntecut, tecut_cell, tecut_k, 1, 4,
                                  g->tecut_x0, g->tecut_y0, g->tecut_w, g->tecut_h};
    return upload_list(m, &l, &g->tecut_idx_tex, &g->tecut_k_buf, &g->tecut_k_tbo, err, errlen);
}

/* The TE off-diagonal edges (docs/gl.md): over their bounding box the Hx
 * (.r) and Hy (.g) entry + 1 (RG32UI, 0: none), and per entry its k_f[0],
 * k_f[1] (the coefficients of its two nodes), an RG32F buffer. */
static size_t hoff_id(const struct model *m, size_t q) { return m->hoff[q].id; }
static const float *hoff_k(const struct model *m, size_t q) { return m->hoff[q].k_f; }

static int upload_hoff(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    const struct list_tables l = {"off-diagonal edges", m->nhoff, hoff_id, hoff_k, 2, 2,
                                  g->hoff_x0, g->hoff_y0, g->hoff_w, g->hoff_h};
    return upload_list(m, &l, &g->hoff_idx_tex, &g->hoff_k_buf, &g->hoff_k_tbo, err, errlen);
}

/* A framebuffer with `first` (a 2D texture, if not 0) as attachment 0 and
 * layers l0 .. l0+nl-1 of the array texture `arr` after it, all drawn. */
static int make_layers_fbo(GLuint first, GLuint arr, int l0, int nl, GLuint *fbo, const char *what,
                           char *err, size_t errlen)
{
    GLenum bufs[1 + DFT_G_MAX];
    int n = 0;
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    if (first) {
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, first, 0);
        bufs[n] = GL_COLOR_ATTACHMENT0;
        n++;
    }
    for (int k = 0; k < nl; k++, n++) {
        glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0 + (GLenum)n, arr, 0, l0 + k);
        bufs[n] = GL_COLOR_ATTACHMENT0 + (GLenum)n;
    }
    glDrawBuffers(n, bufs);
    const GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE)
        return seterr(err, errlen, "%s render targets are not complete (status 0x%04x)", what,
                      st);
    return 0;
}

/* The DFT sums: RG32F array textures of dft_nf layers, zeroed (both of the
 * pair in gl, one in gl-compute), and in gl the E pass's render targets
 * (Ez + layers 0 .. dft_e-1) and each update_dft pass's (DFT_G_MAX layers,
 * fewer in the last). */
static int make_dft_targets(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    const float zero[4] = {0, 0, 0, 0};
    glGenFramebuffers(1, &g->layer_fbo);
    for (int c = 0; c < (g->compute ? 1 : 2); c++) {
        glGenTextures(1, &g->dft_pp.tex[c]);
        glBindTexture(GL_TEXTURE_2D_ARRAY, g->dft_pp.tex[c]);
        glTexStorage3D(GL_TEXTURE_2D_ARRAY, 1, GL_RG32F, m->nx, m->ny, g->dft_nf);
        gl2d_tex_params(GL_TEXTURE_2D_ARRAY);
        if (gl2d_check_gl("allocating the DFT sums (RG32F array)", err, errlen))
            return -1;
        glBindFramebuffer(GL_FRAMEBUFFER, g->layer_fbo);
        for (int k = 0; k < g->dft_nf; k++) {
            glFramebufferTextureLayer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, g->dft_pp.tex[c], 0, k);
            const GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
            if (st != GL_FRAMEBUFFER_COMPLETE)
                return seterr(err, errlen,
                              "DFT (RG32F array layer) render target is not complete (status "
                              "0x%04x)",
                              st);
            glClearBufferfv(GL_COLOR, 0, zero);
        }
    }
    g->dft_pp.cur = 0;
    if (g->compute)
        return 0;
    for (int c = 0; c < 2; c++)
        if (make_layers_fbo(g->ez.tex[c], g->dft_pp.tex[c], 0, g->dft_e, &g->dft_mrt_fbo[c],
                            "Ez + DFT of the E pass", err, errlen))
            return -1;
    g->dft_group_fbo = xcalloc(2 * (size_t)(g->dft_groups ? g->dft_groups : 1),
                               sizeof *g->dft_group_fbo, "DFT framebuffers", err, errlen);
    if (!g->dft_group_fbo)
        return -1;
    for (int q = 0; q < g->dft_groups; q++) {
        const int l0 = g->dft_e + q * DFT_G_MAX;
        const int nl = g->dft_nf - l0 < DFT_G_MAX ? g->dft_nf - l0 : DFT_G_MAX;
        for (int c = 0; c < 2; c++)
            if (make_layers_fbo(0, g->dft_pp.tex[c], l0, nl, &g->dft_group_fbo[2 * q + c],
                                "DFT of an update_dft pass", err, errlen))
                return -1;
    }
    return 0;
}

/* gl-compute's temporal blocking gathers the samples inside its tiles
 * (update_tb.comp): the samples of each tile, g = tile row * tiles per row +
 * tile column, in one storage buffer of words: [0, ntiles] the first entry
 * of each tile (the last: the end), then the entries, sample numbers q into
 * model->samples (counting sort, in q order within a tile). */
static int tb_tile_samples(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    const size_t n = g->nsamples;
    const size_t tx = (size_t)((g->nx + g->tile_x - 1) / g->tile_x);
    const size_t ntiles = tx * (size_t)((g->ny + g->tile_y - 1) / g->tile_y);
    uint32_t *w = xcalloc(ntiles + 1 + n, sizeof *w, "the tiles' monitor samples", err, errlen);
    if (!w)
        return -1;
    uint32_t *first = w;
    for (size_t q = 0; q < n; q++) {
        const size_t c = m->samples[q].cell, i = c % (size_t)g->nx, j = c / (size_t)g->nx;
        first[(j / (size_t)g->tile_y) * tx + i / (size_t)g->tile_x + 1]++;
    }
    first[0] = (uint32_t)(ntiles + 1);
    for (size_t t = 1; t <= ntiles; t++)
        first[t] += first[t - 1];
    /* fill each tile's entries, first[t] moving up to first[t + 1] */
    for (size_t q = 0; q < n; q++) {
        const size_t c = m->samples[q].cell, i = c % (size_t)g->nx, j = c / (size_t)g->nx;
        const size_t t = (j / (size_t)g->tile_y) * tx + i / (size_t)g->tile_x;
        w[first[t]++] = (uint32_t)q;
    }
    /* and back: first[t] is where tile t's entries begin */
    for (size_t t = ntiles; t > 0; t--)
        first[t] = first[t - 1];
    first[0] = (uint32_t)(ntiles + 1);
    glGenBuffers(1, &g->tb_tile_buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->tb_tile_buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(4 * (ntiles + 1 + n)), w, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    free(w);
    return 0;
}

/* The monitors' gather (docs/gl.md, "Monitors"): the sample list and the
 * rows of one batch.  gl: textures, the list W x H texels of (cell, field),
 * the padding of its last row marked by field 0xffffffff; gl-compute:
 * storage buffers. */
int gl2d_make_gather_targets(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    const size_t n = g->nsamples;
    const size_t cap = g->compute ? n : (size_t)g->gather_w * (size_t)g->gather_h;
    uint32_t *list = xcalloc(2 * cap, sizeof *list, "monitor sample list", err, errlen);
    if (!list)
        return -1;
    for (size_t q = 0; q < cap; q++) {
        list[2 * q] = q < n ? (uint32_t)m->samples[q].cell : 0;
        list[2 * q + 1] = q < n ? (uint32_t)m->samples[q].field : 0xffffffffu;
    }
    if (g->compute) {
        glGenBuffers(1, &g->sample_buf);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->sample_buf);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(8 * n), list, GL_STATIC_DRAW);
        glGenBuffers(1, &g->rows_buf);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->rows_buf);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(4 * n * (size_t)g->sample_rows),
                     NULL, GL_DYNAMIC_READ);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    } else {
        g->sample_tex = gl2d_make_tex(GL_RG32UI, g->gather_w, g->gather_h);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, g->gather_w, g->gather_h, GL_RG_INTEGER,
                        GL_UNSIGNED_INT, list);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        g->rows_tex = gl2d_make_tex(GL_R32UI, g->gather_w, g->gather_h * g->sample_rows);
        if (gl2d_make_fbo(g->rows_tex, &g->rows_fbo, "monitor rows (R32UI)", err, errlen)) {
            free(list);
            return -1;
        }
        if (g->gather_h > 1
            && !(g->rows_host = xcalloc(cap * (size_t)g->sample_rows, sizeof *g->rows_host,
                                        "monitor rows", err, errlen))) {
            free(list);
            return -1;
        }
    }
    free(list);
    if (g->compute && g->tb_k > 1 && tb_tile_samples(g, m, err, errlen))
        return -1;
    return gl2d_check_gl("allocating the monitors' gather", err, errlen);
}

/* The CPML psi pairs (shaped like the slabs), the DFT sums and, for `gl`,
 * their render targets. */
int gl2d_make_feature_targets(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    if (g->cpml) {
        const int N2 = 2 * g->pml_n;
        const int w[PSI_COUNT] = {m->nx, N2, m->nx, N2}, h[PSI_COUNT] = {N2, m->ny, N2, m->ny};
        for (int k = 0; k < PSI_COUNT; k++)
            if (gl2d_make_pair(&g->psi[k], GL_R32F, w[k], h[k], "CPML psi (R32F)", err, errlen))
                return -1;
    }
    if (g->dft && make_dft_targets(g, m, err, errlen))
        return -1;
    return gl2d_check_gl("allocating the CPML and DFT textures", err, errlen);
}

int gl2d_upload_static(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    g->mat_tex = gl2d_make_tex(GL_R8UI, m->nx, m->ny);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, m->nx, m->ny, GL_RED_INTEGER, GL_UNSIGNED_BYTE, m->mat);

    const size_t bb = (size_t)g->slot_w * (size_t)g->slot_h;
    uint32_t *idx = xcalloc(bb, sizeof *idx, "slot index map", err, errlen);
    if (!idx)
        return -1;
    for (size_t k = 0; k < m->nslots; k++) {
        const int i = (int)(m->slot_cell[k] % (size_t)m->nx) - g->slot_x0;
        const int j = (int)(m->slot_cell[k] / (size_t)m->nx) - g->slot_y0;
        idx[(size_t)i + (size_t)j * (size_t)g->slot_w] = (uint32_t)k;
    }
    g->slot_tex = gl2d_make_tex(GL_R32UI, g->slot_w, g->slot_h);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, g->slot_w, g->slot_h, GL_RED_INTEGER, GL_UNSIGNED_INT,
                    idx);
    free(idx);

    const size_t floats = (size_t)g->slot_cap_steps * (g->stride ? g->stride : 1);
    glGenBuffers(2, g->slot_buf);
    glGenTextures(2, g->slot_tbo);
    for (int k = 0; k < 2; k++) {
        glBindBuffer(GL_TEXTURE_BUFFER, g->slot_buf[k]);
        glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)(floats * 4), NULL, GL_STREAM_DRAW);
        glBindTexture(GL_TEXTURE_BUFFER, g->slot_tbo[k]);
        glTexBuffer(GL_TEXTURE_BUFFER, GL_R32F, g->slot_buf[k]);
    }
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    g->slot_host = xcalloc(floats, sizeof(float), "slot values", err, errlen);
    if (!g->slot_host)
        return -1;

    if (g->cpml) {
        /* the CPML profiles, rounded once on the host (core/model.h) */
        const int w = m->nx > m->ny ? m->nx : m->ny;
        float *prof = xcalloc((size_t)w * 4 * 4, sizeof(float), "CPML profiles", err, errlen);
        if (!prof)
            return -1;
        const struct pml_axis *ax[4] = {&m->pml_xe, &m->pml_xh, &m->pml_ye, &m->pml_yh};
        for (int r = 0; r < 4; r++) {
            const int n = r < 2 ? m->nx : m->ny;
            for (int i = 0; i < n; i++) {
                float *t = prof + ((size_t)r * (size_t)w + (size_t)i) * 4;
                t[0] = ax[r]->bf[i];
                t[1] = ax[r]->cf[i];
                t[2] = ax[r]->ikf[i];
            }
        }
        g->prof_tex = gl2d_make_tex(GL_RGBA32F, w, 4);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, 4, GL_RGBA, GL_FLOAT, prof);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        free(prof);
    }
    if (g->conformal) {
        /* index map over the cut cells' bounding box, and the static part of
         * each edge: a (float bits) and the free node q = (i, j) */
        const size_t bw = (size_t)g->cut_w, bh = (size_t)g->cut_h;
        uint32_t *map = xcalloc(bw * bh * 2, sizeof *map, "cut-edge map", err, errlen);
        uint32_t *edges = xcalloc(m->ncut * 4, sizeof *edges, "cut edges", err, errlen);
        if (!map || !edges) {
            free(map);
            free(edges);
            return -1;
        }
        for (size_t q = 0; q < m->ncut; q++) {
            const struct cut_edge *ce = &m->cut[q];
            const size_t i = ce->cell % (size_t)m->nx - (size_t)g->cut_x0;
            const size_t j = ce->cell / (size_t)m->nx - (size_t)g->cut_y0;
            map[(i + j * bw) * 2 + (ce->comp ? 1 : 0)] = (uint32_t)q + 1;
            memcpy(&edges[4 * q], &ce->a_f, 4);
            edges[4 * q + 1] = (uint32_t)(ce->q % (size_t)m->nx);
            edges[4 * q + 2] = (uint32_t)(ce->q / (size_t)m->nx);
        }
        g->cut_idx_tex = int_tex(GL_RG32UI, GL_RG_INTEGER, g->cut_w, g->cut_h, map);
        buffer_tex(GL_RGBA32UI, edges, m->ncut * 16, &g->cut_edge_buf, &g->cut_edge_tbo);
        free(map);
        free(edges);
    }

    if (g->hmap && upload_hnodes(g, m, err, errlen))
        return -1;
    if (g->disp && upload_disp(g, m, err, errlen))
        return -1;
    if (g->tecut && upload_tecut(g, m, err, errlen))
        return -1;
    if (g->hoff && upload_hoff(g, m, err, errlen))
        return -1;

    glGenBuffers(2, g->counter_pbo);
    for (int k = 0; k < 2; k++) {
        glBindBuffer(GL_PIXEL_PACK_BUFFER, g->counter_pbo[k]);
        glBufferData(GL_PIXEL_PACK_BUFFER, 8, NULL, GL_STREAM_READ);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    return gl2d_check_gl("uploading the material map and slot tables", err, errlen);
}
