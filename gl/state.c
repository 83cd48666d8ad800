/* state.c - checkpoints of the GL engines: the current textures of the
 * ping-pong pairs (Ez, H, the CPML psi, the dispersive cells' state, the DFT
 * sums) read back or uploaded whole, in the CPU engine's array layout,
 * through core/engine.h's state_io.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* A whole texture to or from the host: w x h texels of 1 (GL_RED) or 2
 * (GL_RG) floats, row 0 first. */
static void tex_io(bool load, GLuint tex, GLenum fmt, int w, int h, float *buf)
{
    glBindTexture(GL_TEXTURE_2D, tex);
    if (load)
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, fmt, GL_FLOAT, buf);
    else
        glGetTexImage(GL_TEXTURE_2D, 0, fmt, GL_FLOAT, buf);
}

/* One RG texture as two arrays in the CPU engine's layout, through io.
 * counter: the texture is H, whose last texel's R holds the step counter,
 * saved as Hx = 0 (which it is in the CPU engine). */
static int rg_io(struct state_io *io, GLuint tex, int w, int h, bool counter, const char *n0,
                 const char *n1, float *rg, float *a, float *b, char *err, size_t errlen)
{
    const size_t n = (size_t)w * (size_t)h;
    if (!io->load) {
        tex_io(false, tex, GL_RG, w, h, rg);
        for (size_t q = 0; q < n; q++)
            a[q] = rg[2 * q], b[q] = rg[2 * q + 1];
        if (counter)
            a[n - 1] = 0.0f;
    }
    if (io->array(io, n0, a, n, err, errlen) || io->array(io, n1, b, n, err, errlen))
        return -1;
    if (io->load) {
        for (size_t q = 0; q < n; q++)
            rg[2 * q] = a[q], rg[2 * q + 1] = b[q];
        tex_io(true, tex, GL_RG, w, h, rg);
    }
    return 0;
}

/* One CPML psi texture through io.  psi_hxy and psi_ezy textures (nx x 2N,
 * texel (i, side N + k)) are stored as the CPU engine stores them; psi_hyx
 * and psi_ezx (2N x ny, texel (side N + k, j)) are transposed to the CPU's
 * [2 sides][ny][N]. */
static int psi_io(struct gl_engine *g, struct state_io *io, int k, const char *name, float *tex,
                  float *cpu, char *err, size_t errlen)
{
    const int N = g->pml_n, ny = g->ny;
    const bool along_y = k == PSI_HXY || k == PSI_EZY;
    const int w = along_y ? g->nx : 2 * N, h = along_y ? 2 * N : ny;
    const size_t n = (size_t)w * (size_t)h;
    const GLuint t = g->psi[k].tex[g->psi[k].cur];
    float *host = along_y ? tex : cpu;
    if (!io->load)
        tex_io(false, t, GL_RED, w, h, tex);
    for (int side = 0; side < 2 && !along_y && !io->load; side++)
        for (int j = 0; j < ny; j++)
            memcpy(cpu + ((size_t)side * ny + j) * N, tex + (size_t)j * 2 * N + side * N,
                   (size_t)N * sizeof(float));
    if (io->array(io, name, host, n, err, errlen))
        return -1;
    for (int side = 0; side < 2 && !along_y && io->load; side++)
        for (int j = 0; j < ny; j++)
            memcpy(tex + (size_t)j * 2 * N + side * N, cpu + ((size_t)side * ny + j) * N,
                   (size_t)N * sizeof(float));
    if (io->load)
        tex_io(true, t, GL_RED, w, h, tex);
    return 0;
}

/* The DFT sums through io as the CPU engine lays them out: "ez_dft_re" and
 * "ez_dft_im", nx ny values per frequency, frequency-major (layer k of the
 * current texture is frequency k).  rg: 2 nx ny floats of scratch.  A load
 * fills both textures of gl's pair, so that the layers update_dft.frag has
 * not written yet (before start_step) read the same whichever is current. */
static int dft_io(struct gl_engine *g, struct state_io *io, float *rg, char *err, size_t errlen)
{
    const size_t n = (size_t)g->nx * (size_t)g->ny, nf = (size_t)g->dft_nf;
    float *re = xcalloc(n * nf, sizeof(float), "checkpoint buffer", err, errlen);
    float *im = re ? xcalloc(n * nf, sizeof(float), "checkpoint buffer", err, errlen) : NULL;
    int rc = im ? 0 : -1;
    for (size_t k = 0; k < nf && !rc && !io->load; k++) {
        gl2d_bind_dft_layer(g, (int)k);
        glReadPixels(0, 0, g->nx, g->ny, GL_RG, GL_FLOAT, rg);
        for (size_t q = 0; q < n; q++)
            re[k * n + q] = rg[2 * q], im[k * n + q] = rg[2 * q + 1];
    }
    if (!rc)
        rc = io->array(io, "ez_dft_re", re, n * nf, err, errlen)
             || io->array(io, "ez_dft_im", im, n * nf, err, errlen) ? -1 : 0;
    for (size_t k = 0; k < nf && !rc && io->load; k++) {
        for (size_t q = 0; q < n; q++)
            rg[2 * q] = re[k * n + q], rg[2 * q + 1] = im[k * n + q];
        for (int c = 0; c < (g->compute ? 1 : 2); c++) {
            glBindTexture(GL_TEXTURE_2D_ARRAY, g->dft_pp.tex[c]);
            glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, (GLint)k, g->nx, g->ny, 1, GL_RG,
                            GL_FLOAT, rg);
        }
    }
    free(re);
    free(im);
    return rc;
}

/* Between the state texture's floats (tex: the texture's texels, row 0
 * first) and the cpu engine's arrays, in the direction to_tex: float f of
 * cell k is component f % 4 of texel (k % w) nt + f / 4 of row k / w, with
 * D_s at 1, Ei at 2, P_q at 4 + 2q, P_q^{n-1} at 5 + 2q. */
static void disp_copy(const struct gl_engine *g, bool to_tex, float *tex, float *ds, float *ei,
                      float *p, float *po)
{
    const size_t per = 4 * (size_t)g->disp_nt;
    for (size_t k = 0; k < g->ndisp; k++) {
        float *c = tex + k * per; /* rows of w cells, row-major: cell k at k * per */
        float *v[2 + 2 * SCENE_MAX_POLES], *t[2 + 2 * SCENE_MAX_POLES];
        int n = 0;
        v[n] = &ds[k], t[n++] = &c[1];
        v[n] = &ei[k], t[n++] = &c[2];
        for (int q = 0; q < g->disp_np; q++) {
            v[n] = &p[k * SCENE_MAX_POLES + (size_t)q], t[n++] = &c[4 + 2 * q];
            v[n] = &po[k * SCENE_MAX_POLES + (size_t)q], t[n++] = &c[5 + 2 * q];
        }
        for (int q = 0; q < n; q++)
            if (to_tex)
                *t[q] = *v[q];
            else
                *v[q] = *t[q];
    }
}

/* The dispersive cells' state through io with the cpu engine's names and
 * layout (cpu/cpu2d.c): "disp_ds", "disp_ei" [ndisp], "disp_p", "disp_pold"
 * [ndisp][SCENE_MAX_POLES], from and to the current state texture (the new
 * stored Ez, float 0, is rewritten by every step's disp pass before the E
 * pass reads it, so it is no state); TE dispersive edges the same as
 * "hdisp_ds", "hdisp_ei", "hdisp_p", "hdisp_pold" [nhdisp]. */
static int disp_io(struct gl_engine *g, struct state_io *io, char *err, size_t errlen)
{
    const size_t n = g->ndisp, np = n * SCENE_MAX_POLES;
    const size_t all = (size_t)g->disp_w * (size_t)g->disp_rows * 4 * (size_t)g->disp_nt;
    float *tex = xcalloc(all, sizeof(float), "checkpoint buffer", err, errlen);
    float *d = tex ? xcalloc(2 * n + 2 * np, sizeof(float), "checkpoint buffer", err, errlen)
                   : NULL;
    if (!d) {
        free(tex);
        return -1;
    }
    float *ei = d + n, *p = d + 2 * n, *po = p + np;
    const GLuint t = g->disp_pp.tex[g->disp_pp.cur];
    const int tw = g->disp_w * g->disp_nt;
    if (!io->load) {
        tex_io(false, t, GL_RGBA, tw, g->disp_rows, tex);
        disp_copy(g, false, tex, d, ei, p, po);
    }
    const bool h = g->disp_edges;
    int rc = io->array(io, h ? "hdisp_ds" : "disp_ds", d, n, err, errlen)
                     || io->array(io, h ? "hdisp_ei" : "disp_ei", ei, n, err, errlen)
                     || io->array(io, h ? "hdisp_p" : "disp_p", p, np, err, errlen)
                     || io->array(io, h ? "hdisp_pold" : "disp_pold", po, np, err, errlen)
                 ? -1
                 : 0;
    if (!rc && io->load) {
        disp_copy(g, true, tex, d, ei, p, po);
        tex_io(true, t, GL_RGBA, tw, g->disp_rows, tex);
    }
    free(tex);
    free(d);
    return rc;
}

/* The state of gl and gl-compute: the current textures of the ping-pong
 * pairs (Ez, H, psi, DFT), read back or uploaded whole.  The H texture's
 * counter texel is not state: it reads as Hx = 0 (as gl2d_read_field) and is
 * set again after a load. */
int gl2d_state(struct engine *e, struct state_io *io, char *err, size_t errlen)
{
    struct gl_engine *g = G(e);
    if (gl2d_begin_transfer(g, err, errlen))
        return -1;
    const size_t n = (size_t)g->nx * (size_t)g->ny;
    float *rg = xcalloc(2 * n, sizeof(float), "checkpoint buffer", err, errlen);
    float *a = rg ? xcalloc(n, sizeof(float), "checkpoint buffer", err, errlen) : NULL;
    float *b = a ? xcalloc(n, sizeof(float), "checkpoint buffer", err, errlen) : NULL;
    int rc = b ? 0 : -1;
    if (!rc && !io->load)
        tex_io(false, g->ez.tex[g->ez.cur], GL_RED, g->nx, g->ny, a);
    if (!rc && (rc = io->array(io, "ez", a, n, err, errlen)) == 0 && io->load)
        tex_io(true, g->ez.tex[g->ez.cur], GL_RED, g->nx, g->ny, a);
    if (!rc)
        rc = rg_io(io, g->h.tex[g->h.cur], g->nx, g->ny, true, "hx", "hy", rg, a, b, err, errlen);
    if (!rc && io->load)
        gl2d_reset_counter(g);
    static const char *const psi_names[PSI_COUNT] = {"psi_hxy", "psi_hyx", "psi_ezy", "psi_ezx"};
    static const int psi_order[PSI_COUNT] = {PSI_HXY, PSI_EZY, PSI_HYX, PSI_EZX};
    for (int q = 0; q < PSI_COUNT && g->cpml && !rc; q++)
        rc = psi_io(g, io, psi_order[q], psi_names[psi_order[q]], a, b, err, errlen);
    if (!rc && g->disp)
        rc = disp_io(g, io, err, errlen);
    if (!rc && g->dft)
        rc = dft_io(g, io, rg, err, errlen);
    /* a state is taken between engine_step calls, when every gathered row
     * has been read: a load starts a fresh batch */
    if (!rc && io->load)
        g->rows_taken = 0;
    free(rg);
    free(a);
    free(b);
    if (!rc
        && (gl2d_check_reset("checkpoint", err, errlen)
            || gl2d_check_gl("checkpoint", err, errlen))) {
        g->failed = true;
        rc = gl2d_prefix_err(e->ops->name, err, errlen);
    }
    return rc;
}
