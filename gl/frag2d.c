/* frag2d.c - the passes of the `gl` engine: full-screen triangles drawn into
 * the other texture of a ping-pong pair (read tex[cur], render into
 * tex[1 - cur], swap), so that no pass samples a texture it renders to.
 *
 * One step (step.c calls them in cpu/update2d.inc's order):
 *   psi H   (CPML) the new psi of the H slabs, a small pass per texture
 *   H       update_h.frag into the other H texture
 *   psi E   (CPML) the new psi of the E slabs
 *   disp    (dispersive cells) update_disp.frag into the other state texture
 *           (TE dispersive edges: the same pass first, before psi H and H)
 *   E       update_e.frag into the other Ez texture, with the DFT sums of
 *           up to DFT_E_MAX frequencies as further render targets, then
 *           update_dft.frag passes for the rest
 *   gather  (monitors) gather.frag into the batch's next rows
 * or, for a PEC box with slots only, k steps in one pass (update_k.frag)
 * into both pairs at once.  compute2d.c holds gl-compute's dispatches.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

/* gl, CPML: the new psi of the H slabs (first) or the E slabs, one small
 * pass per texture into the other texture of its pair; the H or E pass then
 * samples the new ones (UNIT_PSI0 + k). */
void gl2d_frag_psi(struct gl_engine *g, bool e_slabs)
{
    const struct pass *ps = e_slabs ? &g->psi_epass : &g->psi_hpass;
    gl2d_use_pass(g, ps->prog);
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

void gl2d_frag_h(struct gl_engine *g, const struct step_in *in)
{
    gl2d_use_pass(g, g->hpass.prog);
    gl2d_h_uniforms(g, in);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->h.fbo[1 - g->h.cur]);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    g->h.cur ^= 1;
}

void gl2d_frag_e(struct gl_engine *g, const struct step_in *in)
{
    gl2d_use_pass(g, g->epass.prog);
    gl2d_e_uniforms(g, in);
    if (g->dft) {
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

/* The monitors' gather after a step: the bits of every sample into texel
 * rows r H .. r H + H-1 of the rows target, r = rows_taken (gather.frag,
 * docs/gl.md). */
void gl2d_frag_gather(struct gl_engine *g)
{
    const int r = g->rows_taken++;
    gl2d_use_pass(g, g->gather.prog);
    bind_tex(UNIT_SAMPLES, GL_TEXTURE_2D, g->sample_tex);
    glUniform1i(g->gather.row, r * g->gather_h);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->rows_fbo);
    glViewport(0, r * g->gather_h, g->gather_w, g->gather_h);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glViewport(0, 0, g->nx, g->ny);
}

/* The dispersive cells (update_disp.frag): the new state from the old into
 * the other texture of the disp_state pair, which the E pass then samples
 * (UNIT_DISP_STATE); TE dispersive edges: the same before the H pass, which
 * samples it. */
void gl2d_frag_disp(struct gl_engine *g, const struct step_in *in)
{
    struct pingpong *pp = &g->disp_pp;
    gl2d_use_pass(g, g->disppass.prog);
    glUniform1i(g->disppass.disp_base, in->disp_base);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, pp->fbo[1 - pp->cur]);
    glViewport(0, 0, g->disp_w * g->disp_nt, g->disp_rows);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    pp->cur ^= 1;
    bind_tex(UNIT_DISP_STATE, GL_TEXTURE_2D, pp->tex[pp->cur]);
    glViewport(0, 0, g->nx, g->ny);
}

/* k steps in one fragment pass into both pairs (update_k.frag). */
void gl2d_frag_k(struct gl_engine *g, int slot_base)
{
    gl2d_use_pass(g, g->kpass.prog);
    glUniform1i(g->kpass.slot_base, slot_base);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->mrt_fbo[1 - g->ez.cur]);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    g->h.cur ^= 1;
    g->ez.cur ^= 1;
}
