/* programs.c - the GLSL programs of the update passes, built at create:
 * the #defines that size them (grid, slots, features), the material
 * coefficients as uniforms, each pass's uniform locations, and which program
 * each engine needs: gl the H and E fragment passes (and the psi passes, the
 * multi-step pass update_k.frag, the update_dft passes), gl-compute the H
 * and E dispatches (or the fused update_he.comp; with temporal blocking
 * also update_tb.comp, or the warp wavefront update_wf.comp), both the
 * monitors' gather.
 * The sources are in shaders/, loaded by gl/shader.c.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/model.h"
#include "core/util.h"
#include "gl/shader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gl2d_make_defines(const struct gl_engine *g, const struct model *m, bool flush, char *buf,
                       size_t len)
{
    snprintf(buf, len,
             "#define NX %d\n#define NY %d\n#define NMATS %d\n#define SLOT_X0 %d\n"
             "#define SLOT_Y0 %d\n#define FLUSH_DENORMALS %d\n#define LOCAL_X %d\n"
             "#define LOCAL_Y %d\n#define CPML %d\n#define PML_N %d\n#define PSI_IN_PLACE %d\n"
             "#define MUR %d\n#define POINT_SRC %d\n#define POINT_X %d\n#define POINT_Y %d\n"
             "#define DFT %d\n#define CONFORMAL %d\n#define CUT_X0 %d\n#define CUT_Y0 %d\n"
             "#define CUT_W %d\n#define CUT_H %d\n#define DFT_NF %d\n#define DFT_E %d\n"
             "#define DFT_G %d\n#define LOSSY %d\n#define HMAP %d\n#define NHMATS %d\n"
             "#define HSLOT_X0 %d\n#define HSLOT_Y0 %d\n#define HSLOT_W %d\n#define HSLOT_H %d\n"
             "#define DISP %d\n#define NDISP %zu\n#define DISP_X0 %d\n#define DISP_Y0 %d\n"
             "#define DISP_BW %d\n#define DISP_BH %d\n#define DISP_W %d\n#define DISP_NT %d\n"
             "#define DISP_NP %d\n#define POLE_DEBYE_KIND %du\n#define DISP_EDGES %d\n"
             "#define HLOSSY %d\n#define TECUT %d\n#define TECUT_X0 %d\n#define TECUT_Y0 %d\n"
             "#define TECUT_W %d\n#define TECUT_H %d\n#define HOFF %d\n#define HOFF_X0 %d\n"
             "#define HOFF_Y0 %d\n#define HOFF_W %d\n#define HOFF_H %d\n",
             m->nx, m->ny, m->nmats, g->slot_x0, g->slot_y0, flush ? 1 : 0, g->local_x,
             g->local_y, g->cpml, g->pml_n > 0 ? g->pml_n : 1, g->compute, g->mur, g->point,
             g->point_x, g->point_y, g->dft, g->conformal, g->cut_x0, g->cut_y0, g->cut_w,
             g->cut_h, g->dft ? g->dft_nf : 1, g->dft ? g->dft_e : 1, DFT_G_MAX,
             m->lossy ? 1 : 0, g->hmap, g->hmap ? m->nhmats : 1, g->hslot_x0, g->hslot_y0,
             g->hslot_w, g->hslot_h, g->disp, g->ndisp, g->disp_x0, g->disp_y0, g->disp_bw,
             g->disp_bh, g->disp_w, g->disp_nt, g->disp_np, (int)POLE_DEBYE, g->disp_edges,
             g->hlossy, g->tecut, g->tecut_x0, g->tecut_y0, g->tecut_w, g->tecut_h, g->hoff,
             g->hoff_x0, g->hoff_y0, g->hoff_w, g->hoff_h);
}

bool gl2d_has_features(const struct gl_engine *g)
{
    return g->cpml || g->mur || g->dft || g->point || g->conformal || g->hmap || g->disp
           || g->tecut || g->hoff;
}

void gl2d_set_coefficients(GLuint prog, const struct model *m)
{
    float cezh[MODEL_MAX_MATERIALS], ca[MODEL_MAX_MATERIALS];
    GLuint kind[MODEL_MAX_MATERIALS];
    for (int k = 0; k < m->nmats; k++) {
        cezh[k] = m->mats[k].cb_f; /* = cezh_f where sigma = 0 */
        ca[k] = m->mats[k].ca_f;
        kind[k] = (GLuint)m->mats[k].kind;
    }
    GLint loc;
    if ((loc = glGetUniformLocation(prog, "ch")) >= 0)
        glProgramUniform1f(prog, loc, m->ch_f);
    if ((loc = glGetUniformLocation(prog, "cezh")) >= 0)
        glProgramUniform1fv(prog, loc, m->nmats, cezh);
    if ((loc = glGetUniformLocation(prog, "ca")) >= 0)
        glProgramUniform1fv(prog, loc, m->nmats, ca);
    if ((loc = glGetUniformLocation(prog, "kind")) >= 0)
        glProgramUniform1uiv(prog, loc, m->nmats, kind);
    if ((loc = glGetUniformLocation(prog, "mur_k")) >= 0)
        glProgramUniform1f(prog, loc, m->mur_k_f);
    if (m->hmat) {
        /* the H-node materials: hc[0] is vacuum, = ch */
        float hc[MODEL_MAX_MATERIALS], hca[MODEL_MAX_MATERIALS];
        GLuint hpec[MODEL_MAX_MATERIALS];
        for (int k = 0; k < m->nhmats; k++) {
            hc[k] = m->hmats[k].ch_f;
            hca[k] = m->hmats[k].ca_f; /* TE lossy edges; 1 elsewhere */
            hpec[k] = m->hmats[k].pec ? 1u : 0u;
        }
        if ((loc = glGetUniformLocation(prog, "hc")) >= 0)
            glProgramUniform1fv(prog, loc, m->nhmats, hc);
        if ((loc = glGetUniformLocation(prog, "hca")) >= 0)
            glProgramUniform1fv(prog, loc, m->nhmats, hca);
        if ((loc = glGetUniformLocation(prog, "hpec")) >= 0)
            glProgramUniform1uiv(prog, loc, m->nhmats, hpec);
    }
}

static void pass_locations(struct pass *p)
{
    p->slot_base = glGetUniformLocation(p->prog, "slot_base");
    p->cut_base = glGetUniformLocation(p->prog, "cut_base");
    p->hslot_base = glGetUniformLocation(p->prog, "hslot_base");
    p->disp_base = glGetUniformLocation(p->prog, "disp_base");
    p->tecut_base = glGetUniformLocation(p->prog, "tecut_base");
    p->hoff_base = glGetUniformLocation(p->prog, "hoff_base");
    p->point_v = glGetUniformLocation(p->prog, "point_v");
    p->dft_wr = glGetUniformLocation(p->prog, "dft_wr");
    p->dft_wi = glGetUniformLocation(p->prog, "dft_wi");
    p->dft_on = glGetUniformLocation(p->prog, "dft_on");
    p->dft_first = glGetUniformLocation(p->prog, "dft_first");
    p->axis = glGetUniformLocation(p->prog, "axis");
    p->point_vk = glGetUniformLocation(p->prog, "point_vk");
    p->dft_wk = glGetUniformLocation(p->prog, "dft_wk");
    p->dft_on_k = glGetUniformLocation(p->prog, "dft_on_k");
    p->row = glGetUniformLocation(p->prog, "row0");
    if (p->row < 0)
        p->row = glGetUniformLocation(p->prog, "row_base");
}

/* The samplers of the PEC-box passes (update_k.frag, update_he.comp,
 * update_tb.comp). */
static void set_pec_box_samplers(GLuint p)
{
    set_sampler(p, "ez_tex", UNIT_EZ);
    set_sampler(p, "h_tex", UNIT_H);
    set_sampler(p, "mat_tex", UNIT_MAT);
    set_sampler(p, "slot_tex", UNIT_SLOT);
    set_sampler(p, "slot_values", UNIT_SLOTVAL);
}

/* A compute pass of H and E together (update_he.comp, fused;
 * update_tb.comp, K steps) from its stages st[0 .. n): the coefficients,
 * the samplers of the fields, materials and slots, H into image unit 0 and
 * Ez into 1. */
static int build_he_pass(struct gl_engine *g, const struct model *m, const char *const *st, int n,
                         const char *defs, struct pass *ps, char *err, size_t errlen)
{
    if (gl_program_build(g->shader_dir, "update2d.glsl", st, n, defs, &ps->prog, err, errlen))
        return -1;
    const GLuint p = ps->prog;
    gl2d_set_coefficients(p, m);
    set_pec_box_samplers(p);
    glProgramUniform1i(p, glGetUniformLocation(p, "h_out"), 0);
    glProgramUniform1i(p, glGetUniformLocation(p, "ez_out"), 1);
    pass_locations(ps);
    return 0;
}

/* The warp wavefront (update_wf.comp) into g->tbpass: K, the strip's rows,
 * the warps per group and the exchange between lanes (with its #extension
 * lines, which must come before the library's first declaration). */
int gl2d_build_wf_pass(struct gl_engine *g, const struct model *m, const char *defs, char *err,
                       size_t errlen)
{
    static const char *const ext[3] = {
        "", /* shared memory */
        "#extension GL_KHR_shader_subgroup_basic : require\n"
        "#extension GL_KHR_shader_subgroup_shuffle_relative : require\n",
        "#extension GL_NV_shader_thread_shuffle : require\n"};
    char wdefs[3072];
    snprintf(wdefs, sizeof wdefs,
             "%s%s#define K %d\n#define ROWS %d\n#define WF_WARPS %d\n#define STRIDE %zu\n"
             "#define SHUFFLE %d\n",
             ext[g->wf_shuffle], defs, g->tb_k, g->wf_rows, GLC_WF_WARPS, g->stride,
             g->wf_shuffle);
    const char *wf[1] = {"update_wf.comp"};
    if (build_he_pass(g, m, wf, 1, wdefs, &g->tbpass, err, errlen))
        return -1;
    const GLuint p = g->tbpass.prog;
    glProgramUniform1i(p, glGetUniformLocation(p, "iters"), g->wf_rows + 2 * g->tb_k - 1);
    return 0;
}

/* The multi-step pass update_k.frag for k steps into g->kpass (replacing
 * any earlier one), with its generated fast path (kgen.c), and the two-target
 * framebuffers it renders into.  TEXFDTD_GL_KPASS_UNROLL=1 builds the
 * withdrawn configuration of 2026-11-22 instead (the cone in (2k+1)^2 arrays
 * on every path, the loops' bounds constants and #pragma optionNV(unroll
 * all)), for the H100 experiment docs/performance.md describes. */
int gl2d_build_kpass(struct gl_engine *g, const struct model *m, int k, char *err, size_t errlen)
{
    char defs[2560], kdefs[3072];
    gl2d_make_defines(g, m, g->emulate_flush, defs, sizeof defs);
    const char *un = getenv("TEXFDTD_GL_KPASS_UNROLL");
    const bool unroll = un && !strcmp(un, "1");
    snprintf(kdefs, sizeof kdefs,
             "%s#define K %d\n#define NSLOTS %zu\n#define SLOT_X1 %d\n#define SLOT_Y1 %d\n"
             "#define KPASS_UNROLL %d\n",
             defs, k, m->nslots, g->slot_x0 + g->slot_w - 1, g->slot_y0 + g->slot_h - 1,
             unroll ? 1 : 0);
    const char *st[2] = {"fullscreen.vert", "update_k.frag"};
    const bool gather = gl2d_kpass_gather();
    char *fast = unroll ? NULL : gl2d_kpass_fast_path(k, gather, NULL);
    if (!unroll && !fast)
        return seterr(err, errlen, "cannot generate the fast path of %d steps per pass (1 .. %d)",
                      k, KPASS_MAX);
    if (g->kpass.prog)
        glDeleteProgram(g->kpass.prog);
    g->kpass.prog = 0;
    const double t0 = now_seconds();
    const int rc = gl_program_build_tail(g->shader_dir, "update2d.glsl", st, 2, kdefs, fast,
                                         &g->kpass.prog, err, errlen);
    free(fast);
    if (rc)
        return -1;
    g->kpass_build_s = now_seconds() - t0;
    log_info("gl: update_k.frag for %d steps per pass%s compiled and linked in %.2f s", k,
             unroll ? " (withdrawn unrolled arrays)" : gather ? " (inputs gathered)" : "",
             g->kpass_build_s);
    const GLuint p = g->kpass.prog;
    glProgramUniform1i(p, glGetUniformLocation(p, "k_rt"), k);
    gl2d_set_coefficients(p, m);
    set_pec_box_samplers(p);
    g->kpass.slot_base = glGetUniformLocation(p, "slot_base");
    for (int c = 0; c < 2 && !g->mrt_fbo[c]; c++)
        if (gl2d_make_fbo2(g->ez.tex[c], g->h.tex[c], &g->mrt_fbo[c],
                           "Ez + H of the multi-step pass", err, errlen))
            return -1;
    return 0;
}

int gl2d_build_update_programs(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    char defs[2560];
    gl2d_make_defines(g, m, g->emulate_flush, defs, sizeof defs);
    const char *hs[2] = {"fullscreen.vert", "update_h.frag"};
    const char *es[2] = {"fullscreen.vert", "update_e.frag"};
    const char *hc[1] = {"update_h.comp"}, *ec[1] = {"update_e.comp"};
    if (gl_program_build(g->shader_dir, "update2d.glsl", g->compute ? hc : hs, g->compute ? 1 : 2,
                         defs, &g->hpass.prog, err, errlen)
        || gl_program_build(g->shader_dir, "update2d.glsl", g->compute ? ec : es,
                            g->compute ? 1 : 2, defs, &g->epass.prog, err, errlen))
        return -1;
    const GLuint progs[2] = {g->hpass.prog, g->epass.prog};
    for (int k = 0; k < 2; k++) {
        gl2d_set_coefficients(progs[k], m);
        set_sampler(progs[k], "ez_tex", UNIT_EZ);
        set_sampler(progs[k], "h_tex", UNIT_H);
        set_sampler(progs[k], "mat_tex", UNIT_MAT);
        set_sampler(progs[k], "slot_tex", UNIT_SLOT);
        set_sampler(progs[k], "slot_values", UNIT_SLOTVAL);
        const GLint img = glGetUniformLocation(progs[k], k == 0 ? "h_out" : "ez_out");
        if (g->compute && img >= 0)
            glProgramUniform1i(progs[k], img, 0); /* image unit 0 */
    }
    pass_locations(&g->hpass);
    pass_locations(&g->epass);
    if (g->cpml && !g->compute) {
        const char *ph[2] = {"fullscreen.vert", "update_psi_h.frag"};
        const char *pe[2] = {"fullscreen.vert", "update_psi_e.frag"};
        if (gl_program_build(g->shader_dir, "update2d.glsl", ph, 2, defs, &g->psi_hpass.prog, err,
                             errlen)
            || gl_program_build(g->shader_dir, "update2d.glsl", pe, 2, defs, &g->psi_epass.prog,
                                err, errlen))
            return -1;
        struct pass *pp[2] = {&g->psi_hpass, &g->psi_epass};
        for (int k = 0; k < 2; k++) {
            gl2d_set_coefficients(pp[k]->prog, m);
            set_sampler(pp[k]->prog, "ez_tex", UNIT_EZ);
            set_sampler(pp[k]->prog, "h_tex", UNIT_H);
            pass_locations(pp[k]);
        }
    }
    if (g->disp) {
        const char *df[2] = {"fullscreen.vert", "update_disp.frag"}, *dc[1] = {"update_disp.comp"};
        if (gl_program_build(g->shader_dir, "update2d.glsl", g->compute ? dc : df,
                             g->compute ? 1 : 2, defs, &g->disppass.prog, err, errlen))
            return -1;
        gl2d_set_coefficients(g->disppass.prog, m);
        set_sampler(g->disppass.prog, "ez_tex", UNIT_EZ);
        set_sampler(g->disppass.prog, "h_tex", UNIT_H);
        set_sampler(g->disppass.prog, "mat_tex", UNIT_MAT);
        pass_locations(&g->disppass);
    }
    if (g->k > 1 && gl2d_build_kpass(g, m, g->k, err, errlen))
        return -1;
    const char *he[1] = {"update_he.comp"}, *tb[1] = {"update_tb.comp"};
    if (g->fused && build_he_pass(g, m, he, 1, defs, &g->hepass, err, errlen))
        return -1;
    if (g->tb_k > 1 && g->wf) {
        if (gl2d_build_wf_pass(g, m, defs, err, errlen))
            return -1;
    } else if (g->tb_k > 1) {
        char tdefs[3072];
        snprintf(tdefs, sizeof tdefs,
                 "%s#define K %d\n#define TILE_X %d\n#define TILE_Y %d\n#define STRIDE %zu\n"
                 "#define MONITORS %d\n#define NSAMPLES %zu\n#define FIELD_EZ %d\n"
                 "#define FIELD_HX %d\n",
                 defs, g->tb_k, g->tile_x, g->tile_y, g->stride, g->nsamples > 0,
                 g->nsamples ? g->nsamples : (size_t)1, (int)FIELD_EZ, (int)FIELD_HX);
        /* the CPML psi: read from the current texture of each pair, written
         * into the other (update_tb.comp), not in place */
        char *inplace = strstr(tdefs, "#define PSI_IN_PLACE 1\n");
        if (inplace)
            inplace[strlen("#define PSI_IN_PLACE ")] = '0';
        if (build_he_pass(g, m, tb, 1, tdefs, &g->tbpass, err, errlen))
            return -1;
    }
    if (g->dft_groups) {
        const char *st[2] = {"fullscreen.vert", "update_dft.frag"};
        if (gl_program_build(g->shader_dir, "update2d.glsl", st, 2, defs, &g->dftpass.prog, err,
                             errlen))
            return -1;
        set_sampler(g->dftpass.prog, "ez_tex", UNIT_EZ);
        pass_locations(&g->dftpass);
    }
    if (g->nsamples) {
        char gdefs[512];
        snprintf(gdefs, sizeof gdefs,
                 "#define NX %d\n#define NY %d\n#define NSAMPLES %zu\n#define FIELD_EZ %d\n"
                 "#define FIELD_HX %d\n#define FIELD_HY %d\n#define GATHER_LOCAL %d\n",
                 m->nx, m->ny, g->nsamples, (int)FIELD_EZ, (int)FIELD_HX, (int)FIELD_HY,
                 GATHER_LOCAL);
        const char *gf[2] = {"fullscreen.vert", "gather.frag"}, *gc[1] = {"gather.comp"};
        if (gl_program_build(g->shader_dir, "gather.glsl", g->compute ? gc : gf,
                             g->compute ? 1 : 2, gdefs, &g->gather.prog, err, errlen))
            return -1;
        set_sampler(g->gather.prog, "ez_tex", UNIT_EZ);
        set_sampler(g->gather.prog, "h_tex", UNIT_H);
        pass_locations(&g->gather);
    }
    return gl2d_check_gl("building the update programs", err, errlen);
}
