/* step.c - a batch of time steps as passes, in cpu/update2d.inc's order,
 * for both engines: what every pass reads (bound once per step() call), the
 * start every pass shares (the current Ez and H as inputs), the per-step
 * inputs of the E pass (slot base, point-source value, DFT weights), and
 * the sequence of one step:
 *   gl          [disp edges] [psi H] H [psi E] [disp cells] E [gather]
 *               (frag2d.c), or k steps in one pass (update_k.frag) for a PEC
 *               box with slots only
 *   gl-compute  [disp edges] H [disp cells] E [gather]   (compute2d.c), or
 *               one fused dispatch (update_he.comp) for a PEC box with slots
 *               only, or K steps per dispatch (update_tb.comp, TEXFDTD_GLC_K)
 *               for scenes of PEC, CPML or Mur edges, slots, the point
 *               source, the DFT, gathering the monitors' samples itself
 *               (or update_wf.comp, the warp wavefront, for a PEC box with
 *               slots and the point source: TEXFDTD_GLC_PATH=wavefront):
 *               the batch's steps beyond a multiple of K one at a time
 * (the disp pass of TE dispersive edges goes before the H pass, which takes
 * their new values: update_h_row updates them right after their row's H,
 * from H^{n-1/2} and Ez^n; the TE conformal cut cells are the E pass's,
 * from its input Hz^n: update_tecut after the sweep, before the slots; the
 * TE off-diagonal edges are the H pass's, from its input Ez^n: the cpu's
 * hoff_prepass, added after the node's own update, before its slot)
 * Every pass reads the current texture of a ping-pong pair and writes the
 * other, then swaps (cur ^= 1).  batch.c sends the batches and checks them.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/model.h"

void gl2d_bind_inputs(struct gl_engine *g)
{
    glBindVertexArray(g->vao);
    glViewport(0, 0, g->nx, g->ny);
    bind_tex(UNIT_MAT, GL_TEXTURE_2D, g->mat_tex);
    bind_tex(UNIT_SLOT, GL_TEXTURE_2D, g->slot_tex);
    if (g->cpml)
        bind_tex(UNIT_PROF, GL_TEXTURE_2D, g->prof_tex);
    if (g->hmap)
        bind_tex(UNIT_HNODE, GL_TEXTURE_2D, g->hnode_tex);
    if (g->disp) {
        bind_tex(UNIT_DISP_STATE, GL_TEXTURE_2D, g->disp_pp.tex[g->disp_pp.cur]);
        bind_tex(UNIT_DISP_IDX, GL_TEXTURE_2D, g->disp_idx_tex);
        bind_tex(UNIT_DISP_CELLS, GL_TEXTURE_2D, g->disp_cells_tex);
        bind_tex(UNIT_DISP_COEF, GL_TEXTURE_BUFFER, g->disp_coef_tbo);
        if (g->compute)
            glBindImageTexture(IMAGE_DISP, g->disp_pp.tex[0], 0, GL_FALSE, 0, GL_READ_WRITE,
                               GL_RGBA32F);
    }
    if (g->tecut) {
        bind_tex(UNIT_TECUT_IDX, GL_TEXTURE_2D, g->tecut_idx_tex);
        bind_tex(UNIT_TECUT_K, GL_TEXTURE_BUFFER, g->tecut_k_tbo);
    }
    if (g->hoff) {
        bind_tex(UNIT_HOFF_IDX, GL_TEXTURE_2D, g->hoff_idx_tex);
        bind_tex(UNIT_HOFF_K, GL_TEXTURE_BUFFER, g->hoff_k_tbo);
    }
    if (g->conformal) {
        bind_tex(UNIT_CUT_IDX, GL_TEXTURE_2D, g->cut_idx_tex);
        bind_tex(UNIT_CUT_EDGES, GL_TEXTURE_BUFFER, g->cut_edge_tbo);
    }
    for (int k = 0; k < PSI_COUNT && g->cpml; k++) {
        if (g->compute)
            glBindImageTexture(IMAGE_PSI0 + k, g->psi[k].tex[g->psi[k].cur], 0, GL_FALSE, 0,
                               GL_READ_WRITE, GL_R32F);
        else
            bind_tex(UNIT_PSI0 + k, GL_TEXTURE_2D, g->psi[k].tex[g->psi[k].cur]);
    }
    if (g->dft && g->compute)
        glBindImageTexture(IMAGE_DFT, g->dft_pp.tex[0], 0, GL_TRUE, 0, GL_READ_WRITE, GL_RG32F);
}

void gl2d_use_pass(struct gl_engine *g, GLuint prog)
{
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_H, GL_TEXTURE_2D, g->h.tex[g->h.cur]);
    glUseProgram(prog);
}

void gl2d_h_uniforms(const struct gl_engine *g, const struct step_in *in)
{
    if (g->conformal)
        glUniform1i(g->hpass.cut_base, in->cut_base);
    if (g->hmap)
        glUniform1i(g->hpass.hslot_base, in->hslot_base);
    if (g->hoff)
        glUniform1i(g->hpass.hoff_base, in->hoff_base);
}

void gl2d_e_uniforms(const struct gl_engine *g, const struct step_in *in)
{
    glUniform1i(g->epass.slot_base, in->slot_base);
    if (g->tecut)
        glUniform1i(g->epass.tecut_base, in->tecut_base);
    if (g->point)
        glUniform1f(g->epass.point_v, in->point_v);
    if (g->dft) {
        glUniform1i(g->epass.dft_on, in->dft_on);
        glUniform1fv(g->epass.dft_wr, g->dft_e, in->dft_wr);
        glUniform1fv(g->epass.dft_wi, g->dft_e, in->dft_wi);
    }
}

void gl2d_run_steps(struct gl_engine *g, const struct model *m, int t0, int b)
{
    for (int s = 0; s < b; s++) {
        const int base = (int)((size_t)s * g->stride);
        if (g->k > 1 && b - s >= g->k) {
            gl2d_frag_k(g, base);
            s += g->k - 1;
        } else if (g->tb_k > 1 && b - s >= g->tb_k) {
            /* steps t0+s .. t0+s+K-1 in one dispatch */
            float pv[GLC_K_MAX] = {0}, dw[2 * GLC_K_MAX * SCENE_MAX_FREQS] = {0};
            unsigned on = 0;
            for (int q = 0; q < g->tb_k; q++) {
                const int t = t0 + s + q; /* the step from t to t+1 */
                if (g->point)
                    pv[q] = (float)model_point_value(m, t);
                if (g->dft && t + 1 > m->scene->dft_start) {
                    on |= 1u << q;
                    for (int f = 0; f < g->dft_nf; f++) {
                        double wr, wi;
                        model_dft_weight_k(m, f, t + 1, &wr, &wi);
                        dw[2 * (q * g->dft_nf + f)] = (float)wr;
                        dw[2 * (q * g->dft_nf + f) + 1] = (float)wi;
                    }
                }
            }
            gl2d_compute_tb(g, base, pv, dw, on);
            s += g->tb_k - 1;
            continue; /* the dispatch gathered its steps' samples */
        } else if (g->fused) {
            gl2d_compute_he(g, base);
        } else {
            /* the step from t to t+1: update2d.inc's order, the values
             * rounded to float as cpu_step rounds them */
            const int t = t0 + s;
            struct step_in in = {
                .slot_base = base, .cut_base = base + (int)m->nslots,
                .hslot_base = base + (int)(m->nslots + m->ncut),
                .disp_base = base + (int)(m->nslots + m->ncut + g->nhslots),
                .tecut_base = base + (int)(m->nslots + m->ncut + g->nhslots + g->ndisp),
                .hoff_base =
                    base + (int)(m->nslots + m->ncut + g->nhslots + g->ndisp + g->ntecut)};
            const bool edges = g->disp_edges, cells = g->disp && !edges;
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
            if (g->compute) {
                if (edges)
                    gl2d_compute_disp(g, &in);
                gl2d_compute_h(g, &in);
                if (cells)
                    gl2d_compute_disp(g, &in);
                gl2d_compute_e(g, &in);
            } else {
                if (edges)
                    gl2d_frag_disp(g, &in);
                if (g->cpml)
                    gl2d_frag_psi(g, false);
                gl2d_frag_h(g, &in);
                if (g->cpml)
                    gl2d_frag_psi(g, true);
                if (cells)
                    gl2d_frag_disp(g, &in);
                gl2d_frag_e(g, &in);
            }
        }
        if (g->nsamples) {
            if (g->compute)
                gl2d_compute_gather(g);
            else
                gl2d_frag_gather(g);
        }
    }
}
