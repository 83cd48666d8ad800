/* readback.c - moving data between the GL engines' textures and the host:
 * a field read (the current texture of its ping-pong pair: Ez, Hx, Hy, a
 * DFT layer) or written (both textures of the pair), the monitors' rows
 * (the gather passes of frag2d.c and compute2d.c write them each step, one
 * readback here per batch) and the blow-up check (a compute scan of the
 * current Ez and H, 12 bytes read back).  Every transfer first waits for and
 * checks the batches still in flight (gl2d_begin_transfer, batch.c).
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/util.h"
#include "gl/shader.h"

#include <stdlib.h>
#include <string.h>

/* Before moving field data between the GPU and the host: refuse after a
 * failed check, make the context current, wait for and check any batch
 * still in flight, let compute writes land, and set plain pixel transfers
 * (no buffer bound, tight rows). */
int gl2d_begin_transfer(struct gl_engine *g, char *err, size_t errlen)
{
    if (g->failed)
        return seterr(err, errlen, "%s: an earlier check failed; the fields are not trusted",
                      g->base.ops->name);
    if (egl_context_make_current(g->egl, err, errlen) || gl2d_finish_pending(g, err, errlen))
        return -1;
    if (g->compute)
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    return 0;
}

/* The DFT sums of frequency k (the current texture's layer k) as the read
 * framebuffer's attachment. */
void gl2d_bind_dft_layer(struct gl_engine *g, int k)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, g->layer_fbo);
    glFramebufferTextureLayer(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0,
                              g->dft_pp.tex[g->compute ? 0 : g->dft_pp.cur], 0, k);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
}

/* Component c (0 R, 1 G) of the bound read framebuffer's RG texels, in bands
 * of rows, into out[ny][nx]. */
static int read_rg_component(struct gl_engine *g, int c, float *out, char *err, size_t errlen)
{
    const size_t nx = (size_t)g->nx;
    const int band = 64;
    float *tmp = xcalloc(2 * nx * (size_t)band, sizeof(float), "readback band", err, errlen);
    if (!tmp)
        return -1;
    for (int j0 = 0; j0 < g->ny; j0 += band) {
        const int rows = g->ny - j0 < band ? g->ny - j0 : band;
        glReadPixels(0, j0, g->nx, rows, GL_RG, GL_FLOAT, tmp);
        for (size_t q = 0; q < nx * (size_t)rows; q++)
            out[(size_t)j0 * nx + q] = tmp[2 * q + (size_t)c];
    }
    free(tmp);
    return 0;
}

int gl2d_read_field(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    struct gl_engine *g = G(e);
    const int k = field_dft_index(f);
    if (k >= 0 && (!g->dft || k >= g->dft_nf))
        return seterr(err, errlen, "%s: no field %s in this scene (%s)", e->ops->name,
                      field_name(f),
                      g->dft ? "beyond the [monitor.dft] frequencies" : "it has no [monitor.dft]");
    if (gl2d_begin_transfer(g, err, errlen))
        return -1;
    float *out = dst;
    const size_t nx = (size_t)g->nx;
    if (f == FIELD_EZ) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, g->ez.fbo[g->ez.cur]);
        glReadPixels(0, 0, g->nx, g->ny, GL_RED, GL_FLOAT, out);
    } else if (f == FIELD_HX || f == FIELD_HY) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, g->h.fbo[g->h.cur]);
        if (read_rg_component(g, f == FIELD_HX ? 0 : 1, out, err, errlen))
            return -1;
        /* the counter texel is not part of the field: Hx there is never
         * updated, so it is 0 as in the CPU engine */
        if (f == FIELD_HX)
            out[(size_t)(g->ny - 1) * nx + nx - 1] = 0.0f;
    } else if (k >= 0) {
        gl2d_bind_dft_layer(g, k);
        if (read_rg_component(g, f == field_dft(k, 1) ? 1 : 0, out, err, errlen))
            return -1;
    } else {
        return seterr(err, errlen, "%s: no field %d", e->ops->name, (int)f);
    }
    if (gl2d_check_reset("reading a field", err, errlen)
        || gl2d_check_gl("reading a field", err, errlen)) {
        g->failed = true;
        return gl2d_prefix_err(e->ops->name, err, errlen);
    }
    return 0;
}

/* Replace Ez, Hx or Hy with src ([ny][nx] floats, x fastest), in both
 * textures of the pair, so that cells a step never updates (the outer ring,
 * the last Hx row and Hy column) read the same in both.  Each H texture is
 * read back and only the component asked for is replaced; the counter texel
 * keeps its step counter (Hx there is not stored: it reads as 0, and no
 * update reads it). */
int gl2d_write_field(struct engine *e, enum field f, const void *src, char *err, size_t errlen)
{
    struct gl_engine *g = G(e);
    if (f != FIELD_EZ && f != FIELD_HX && f != FIELD_HY)
        return seterr(err, errlen, "%s: cannot write field %s (only ez, hx, hy)", e->ops->name,
                      field_name(f));
    if (gl2d_begin_transfer(g, err, errlen))
        return -1;
    const float *in = src;
    const size_t n = (size_t)g->nx * (size_t)g->ny;
    if (f == FIELD_EZ) {
        for (int k = 0; k < 2; k++) {
            glBindTexture(GL_TEXTURE_2D, g->ez.tex[k]);
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, g->nx, g->ny, GL_RED, GL_FLOAT, in);
        }
    } else {
        float *rg = xcalloc(2 * n, sizeof(float), "H write buffer", err, errlen);
        if (!rg)
            return -1;
        const size_t c = f == FIELD_HX ? 0 : 1;
        for (int k = 0; k < 2; k++) {
            glBindTexture(GL_TEXTURE_2D, g->h.tex[k]);
            glGetTexImage(GL_TEXTURE_2D, 0, GL_RG, GL_FLOAT, rg);
            for (size_t q = 0; q < n; q++)
                if (!(c == 0 && q == n - 1)) /* the counter texel's R */
                    rg[2 * q + c] = in[q];
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, g->nx, g->ny, GL_RG, GL_FLOAT, rg);
        }
        free(rg);
    }
    if (gl2d_check_reset("writing a field", err, errlen)
        || gl2d_check_gl("writing a field", err, errlen)) {
        g->failed = true;
        return gl2d_prefix_err(e->ops->name, err, errlen);
    }
    return 0;
}

#define CHECK_LOCAL 16 /* check_finite.comp's work group: CHECK_LOCAL^2 invocations */

/* The blow-up check on the GPU: check_finite.comp scans the current Ez and H
 * textures and leaves, per field, the lowest linear index of a NaN or Inf in
 * a buffer of three words; those 12 bytes are all that is read back.  The
 * same compute program serves gl (whose context is GL 4.3 too) and
 * gl-compute.  Fields in scene_fields() order: Ez, Hx, Hy. */
int gl2d_check_finite(struct engine *e, enum field *f, size_t *cell, char *err, size_t errlen)
{
    struct gl_engine *g = G(e);
    if (g->failed)
        return seterr(err, errlen, "%s: an earlier check failed; the fields are not trusted",
                      e->ops->name);
    if (egl_context_make_current(g->egl, err, errlen) || gl2d_finish_pending(g, err, errlen))
        return -1;
    if (!g->check_prog) {
        char defs[128];
        snprintf(defs, sizeof defs, "#define NX %d\n#define NY %d\n#define CHECK_LOCAL %d\n",
                 g->nx, g->ny, CHECK_LOCAL);
        const char *cs[1] = {"check_finite.comp"};
        if (gl_program_build(g->shader_dir, NULL, cs, 1, defs, &g->check_prog, err, errlen)) {
            g->check_prog = 0;
            return gl2d_prefix_err(e->ops->name, err, errlen);
        }
        set_sampler(g->check_prog, "ez_tex", UNIT_EZ);
        set_sampler(g->check_prog, "h_tex", UNIT_H);
        glGenBuffers(1, &g->check_buf);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->check_buf);
        glBufferData(GL_SHADER_STORAGE_BUFFER, 3 * sizeof(GLuint), NULL, GL_DYNAMIC_READ);
    }
    /* gl-compute wrote the textures with imageStore: make them visible to
     * texelFetch (the fragment passes' render targets need nothing) */
    if (g->compute)
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
    const GLuint none[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu};
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->check_buf);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof none, none);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, g->check_buf);
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_H, GL_TEXTURE_2D, g->h.tex[g->h.cur]);
    glUseProgram(g->check_prog);
    glDispatchCompute((GLuint)((g->nx + CHECK_LOCAL - 1) / CHECK_LOCAL),
                      (GLuint)((g->ny + CHECK_LOCAL - 1) / CHECK_LOCAL), 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    GLuint first[3] = {0, 0, 0};
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof first, first);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
    if (gl2d_check_reset("the blow-up check", err, errlen)
        || gl2d_check_gl("the blow-up check", err, errlen)) {
        g->failed = true;
        return gl2d_prefix_err(e->ops->name, err, errlen);
    }
    static const enum field order[3] = {FIELD_EZ, FIELD_HX, FIELD_HY};
    for (int k = 0; k < 3; k++)
        if (first[k] != 0xffffffffu) {
            if ((size_t)first[k] >= (size_t)g->nx * (size_t)g->ny)
                return seterr(err, errlen, "%s: the blow-up check returned cell %u of %d x %d",
                              e->ops->name, first[k], g->nx, g->ny);
            *f = order[k];
            *cell = first[k];
            return 1;
        }
    return 0;
}

/* The `rows` rows gathered since the last call into dst ([rows][nsamples]
 * floats), with one readback: gl reads the rows target's first rows H texel
 * rows (GL_RED_INTEGER: the bits as gathered) and, where the list is a band
 * (H > 1), moves each step's nsamples values together; gl-compute reads the
 * storage buffer, already in that layout.  The batch step() left in flight
 * is waited for and checked first (gl2d_begin_transfer). */
int gl2d_read_samples(struct engine *e, void *dst, int rows, char *err, size_t errlen)
{
    struct gl_engine *g = G(e);
    if (rows != g->rows_taken)
        return seterr(err, errlen, "%s: monitor samples: %d rows asked for, %d recorded",
                      e->ops->name, rows, g->rows_taken);
    if (!rows || !g->nsamples) {
        g->rows_taken = 0;
        return 0;
    }
    if (gl2d_begin_transfer(g, err, errlen))
        return -1;
    const size_t n = g->nsamples;
    if (g->compute) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->rows_buf);
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)((size_t)rows * n * 4), dst);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    } else {
        const size_t band = (size_t)g->gather_w * (size_t)g->gather_h;
        uint32_t *buf = g->gather_h > 1 ? g->rows_host : dst;
        glBindFramebuffer(GL_READ_FRAMEBUFFER, g->rows_fbo);
        glReadPixels(0, 0, g->gather_w, rows * g->gather_h, GL_RED_INTEGER, GL_UNSIGNED_INT, buf);
        for (size_t r = 0; r < (size_t)rows && g->gather_h > 1; r++)
            memcpy((uint32_t *)dst + r * n, buf + r * band, n * sizeof *buf);
    }
    g->rows_taken = 0;
    if (gl2d_check_reset("reading monitor samples", err, errlen)
        || gl2d_check_gl("reading monitor samples", err, errlen)) {
        g->failed = true;
        return gl2d_prefix_err(e->ops->name, err, errlen);
    }
    return 0;
}
