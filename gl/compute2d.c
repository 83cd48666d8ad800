/* compute2d.c - the passes of the `gl-compute` engine: compute dispatches
 * over the same textures as `gl` (frag2d.c), texelFetch from the current
 * texture of a pair, imageStore into the other, then swap; the CPML psi and
 * the DFT sums are updated in place through images (bound by step.c).
 *
 * One step (step.c): the H dispatch, (dispersive cells) the disp dispatch,
 * then the E dispatch (update_h.comp, update_disp.comp, update_e.comp; TE
 * dispersive edges: their disp dispatch before the H dispatch), or,
 * for a PEC box with slots only, one fused dispatch (update_he.comp), or
 * with TEXFDTD_GLC_K = K > 1, K steps per dispatch (update_tb.comp; PEC,
 * CPML or Mur edges, slots, the point source, the DFT, gathering the
 * monitors itself; or, TEXFDTD_GLC_PATH=wavefront, update_wf.comp for a
 * PEC box with slots and the point source; the last steps of a batch short
 * of K one at a time);
 * then, with monitors, gather.comp into the batch's next row of the rows
 * buffer.
 * Each update dispatch ends with the barrier that makes its imageStores
 * visible to the next pass's texelFetch.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

/* One invocation per cell in local_x x local_y work groups, then the
 * barrier for the next pass's texelFetch and image access. */
static void dispatch_cells(const struct gl_engine *g)
{
    glDispatchCompute((GLuint)((g->nx + g->local_x - 1) / g->local_x),
                      (GLuint)((g->ny + g->local_y - 1) / g->local_y), 1);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
}

void gl2d_compute_h(struct gl_engine *g, const struct step_in *in)
{
    gl2d_use_pass(g, g->hpass.prog);
    gl2d_h_uniforms(g, in);
    glBindImageTexture(0, g->h.tex[1 - g->h.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RG32F);
    dispatch_cells(g);
    g->h.cur ^= 1;
}

void gl2d_compute_e(struct gl_engine *g, const struct step_in *in)
{
    gl2d_use_pass(g, g->epass.prog);
    gl2d_e_uniforms(g, in);
    glBindImageTexture(0, g->ez.tex[1 - g->ez.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
    dispatch_cells(g);
    g->ez.cur ^= 1;
}

/* H and E of one step in one dispatch (gl-compute, fused). */
void gl2d_compute_he(struct gl_engine *g, int slot_base)
{
    gl2d_use_pass(g, g->hepass.prog);
    glUniform1i(g->hepass.slot_base, slot_base);
    glBindImageTexture(0, g->h.tex[1 - g->h.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RG32F);
    glBindImageTexture(1, g->ez.tex[1 - g->ez.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
    dispatch_cells(g);
    g->h.cur ^= 1;
    g->ez.cur ^= 1;
}

/* tb_k steps in one dispatch (gl-compute, temporal blocking): a work group
 * per tile, ceil(nx / tile_x) x ceil(ny / tile_y) of them; with monitors
 * they gather each step's samples of their tiles themselves.  Or (wf) the
 * warp wavefront, update_wf.comp, with the same inputs and outputs (a PEC
 * box with slots and the point source: no psi, DFT or monitors). */
void gl2d_compute_tb(struct gl_engine *g, int slot_base, const float *point_v, const float *dft_w,
                     unsigned dft_on)
{
    gl2d_use_pass(g, g->tbpass.prog);
    glUniform1i(g->tbpass.slot_base, slot_base);
    if (g->point)
        glUniform1fv(g->tbpass.point_vk, g->tb_k, point_v);
    if (g->dft) {
        glUniform2fv(g->tbpass.dft_wk, g->tb_k * g->dft_nf, dft_w);
        glUniform1ui(g->tbpass.dft_on_k, dft_on);
    }
    if (g->nsamples) {
        /* the samples of each of the K steps into rows rows_taken .. + K-1 */
        glUniform1ui(g->tbpass.row, (GLuint)((size_t)g->rows_taken * g->nsamples));
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SAMPLES, g->sample_buf);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_ROWS, g->rows_buf);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_TILE_SAMPLES, g->tb_tile_buf);
        g->rows_taken += g->tb_k;
    }
    glBindImageTexture(0, g->h.tex[1 - g->h.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RG32F);
    glBindImageTexture(1, g->ez.tex[1 - g->ez.cur], 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_R32F);
    /* the CPML psi: the current texture of each pair in, the other out */
    for (int k = 0; k < PSI_COUNT && g->cpml; k++) {
        bind_tex(UNIT_PSI0 + k, GL_TEXTURE_2D, g->psi[k].tex[g->psi[k].cur]);
        glBindImageTexture(IMAGE_PSI0 + k, g->psi[k].tex[1 - g->psi[k].cur], 0, GL_FALSE, 0,
                           GL_WRITE_ONLY, GL_R32F);
    }
    if (g->wf) {
        /* update_wf.comp: a group per band of 32 - 2K columns and
         * GLC_WF_WARPS strips of wf_rows rows */
        const int w = 32 - 2 * g->tb_k, strips = (g->ny + g->wf_rows - 1) / g->wf_rows;
        glDispatchCompute((GLuint)((g->nx + w - 1) / w),
                          (GLuint)((strips + GLC_WF_WARPS - 1) / GLC_WF_WARPS), 1);
    } else {
        glDispatchCompute((GLuint)((g->nx + g->tile_x - 1) / g->tile_x),
                          (GLuint)((g->ny + g->tile_y - 1) / g->tile_y), 1);
    }
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    g->h.cur ^= 1;
    g->ez.cur ^= 1;
    /* the one-step dispatches update the new current psi in place */
    for (int k = 0; k < PSI_COUNT && g->cpml; k++) {
        g->psi[k].cur ^= 1;
        glBindImageTexture(IMAGE_PSI0 + k, g->psi[k].tex[g->psi[k].cur], 0, GL_FALSE, 0,
                           GL_READ_WRITE, GL_R32F);
    }
}

/* The dispersive cells (update_disp.comp): one invocation per cell updates
 * its state in place (the image at IMAGE_DISP, bound by step.c), then the
 * barrier for the E dispatch's texelFetch of the new stored Ez. */
void gl2d_compute_disp(struct gl_engine *g, const struct step_in *in)
{
    gl2d_use_pass(g, g->disppass.prog);
    glUniform1i(g->disppass.disp_base, in->disp_base);
    glDispatchCompute((GLuint)((g->disp_w + 63) / 64), (GLuint)g->disp_rows, 1);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
}

/* The monitors' gather after a step: one invocation per sample writes
 * rows[r][q], r = rows_taken (gather.comp, docs/gl.md). */
void gl2d_compute_gather(struct gl_engine *g)
{
    const int r = g->rows_taken++;
    gl2d_use_pass(g, g->gather.prog);
    glUniform1ui(g->gather.row, (GLuint)((size_t)r * g->nsamples));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_SAMPLES, g->sample_buf);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_ROWS, g->rows_buf);
    glDispatchCompute((GLuint)((g->nsamples + GATHER_LOCAL - 1) / GATHER_LOCAL), 1, 1);
}
