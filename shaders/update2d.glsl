/* update2d.glsl - the 2D TMz Yee update of one cell, shared by the fragment
 * passes (update_h.frag, update_e.frag, update_k.frag) and the compute passes
 * (update_h.comp, update_e.comp, update_he.comp, update_tb.comp).  The host prepends #version, the generated #defines
 *     NX, NY             grid size
 *     NMATS              materials in the coefficient table
 *     SLOT_X0, SLOT_Y0   origin of the slot-index texture (bounding box of
 *                        the source slots)
 *     FLUSH_DENORMALS    1: flush denormal inputs and results in GLSL (x86
 *                        FTZ+DAZ), for drivers that keep denormals
 *     CPML, PML_N        1 with a CPML of PML_N cells ([boundary] type = cpml)
 *     PSI_IN_PLACE       1: the CPML psi are images updated in place by the
 *                        invocation that owns them (compute); 0: the psi
 *                        passes have already written the new psi (fragment)
 *     MUR                1 with first-order Mur walls
 *     POINT_SRC, POINT_X, POINT_Y   the point source and its cell
 *     DFT                1 with a running DFT of Ez ([monitor.dft])
 *     DFT_NF             its frequencies (layers of the DFT array textures)
 *     DFT_E              how many of them (0 .. DFT_E-1) the E pass or
 *                        dispatch accumulates itself: all in gl-compute, up
 *                        to 7 in gl (its render targets beside Ez)
 *     DFT_G              frequencies per update_dft.frag pass (gl: the rest)
 *     CONFORMAL, CUT_X0, CUT_Y0, CUT_W, CUT_H   conformal PEC cut edges and
 *                        the bounding box of their H cells
 *     LOSSY              1: a material has sigma != 0, every Ez takes
 *                        ca E + cb curl (cezh[] holds cb, = S / eps_r where
 *                        sigma = 0, and ca = 1 there: the same bits)
 *     HMAP, NHMATS       1 with an H-node coefficient map (core/model.h hmat:
 *                        TE, or TM with mu_r != 1) of NHMATS entries
 *     HSLOT_X0, HSLOT_Y0, HSLOT_W, HSLOT_H   the bounding box of the H nodes
 *                        with an index != 0 (the H slots)
 *     DISP, NDISP        1 with NDISP dispersive cells (core/model.h disp_cell)
 *     DISP_X0, DISP_Y0, DISP_BW, DISP_BH   their bounding box
 *     DISP_W, DISP_NT, DISP_NP   the state layout: DISP_W cells per row of
 *                        DISP_NT texels each; DISP_NP poles at most
 *     DISP_EDGES         1: the dispersive entries are TE edges (core/model.h
 *                        hdisp: H-array nodes) instead of cells, NDISP of them
 *     HLOSSY             1: TE lossy edges (core/model.h hlossy): every
 *                        H node of the map takes ca h -+ hc d, ca = hca[k]
 *     TECUT, TECUT_X0, TECUT_Y0, TECUT_W, TECUT_H   TE conformal PEC cut
 *                        cells (core/model.h tecut) and their bounding box
 *     HOFF, HOFF_X0, HOFF_Y0, HOFF_W, HOFF_H   TE off-diagonal edges
 *                        (core/model.h hoff) and their bounding box
 * and `#line 100001 1` before this file, then `#line 1 0` before the pass
 * itself (gl/shader.c; its #include lines below are spliced in there).
 *
 * This is cpu/update2d.inc statement for statement (Takada et al. 2007,
 * eq. 3; H stored as eta0*H, S = c dt / dx), and the arithmetic of every
 * statement is a function of core/yee.h, the one shared with the C and
 * CUDA engines; this file holds only the texture access around it:
 *   Hx^{n+1/2}(i, j+1/2) = Hx^{n-1/2}(i, j+1/2) - S [Ez^n(i, j+1) - Ez^n(i, j)]
 *   Hy^{n+1/2}(i+1/2, j) = Hy^{n-1/2}(i+1/2, j) + S [Ez^n(i+1, j) - Ez^n(i, j)]
 *   Ez^{n+1}(i, j) = Ez^n(i, j) + (S / eps_r) { [Hy(i+1/2, j) - Hy(i-1/2, j)]
 *                                             - [Hx(i, j+1/2) - Hx(i, j-1/2)] }
 * Texel (i, j) holds Ez(i, j) in the R32F pair and (Hx(i, j+1/2), Hy(i+1/2, j))
 * in the RG32F pair.  Every intermediate of core/yee.h is a `precise` float
 * rounded where C rounds it (shaders/yee_prelude.glsl), so no a*b+c is fused
 * into a multiply-add (the C side is built with -ffp-contract=off) and the
 * float32 bits equal the CPU engine's.
 *
 * The H texel (NX-1, NY-1) is never part of the field (Hx of the last row and
 * Hy of the last column are never updated): its Hx holds the step counter,
 * float bits 0x3f800000 + completed H passes, checked by the host at fences.
 */

/* Material kinds, as core/scene.h enum material_kind. */
#define KIND_VACUUM 0u
#define KIND_PEC 1u
#define KIND_DIELECTRIC 2u

#define COUNTER_TEXEL ivec2(NX - 1, NY - 1)

/* The arithmetic: F() (the x86 FTZ/DAZ treatment) and the Y_ macros, then
 * the functions yee_... of core/yee.h. */
#include "yee_prelude.glsl"
#include "yee.h"

uniform float ch;           /* S */
uniform float cezh[NMATS];  /* S / eps_r per material (cb if LOSSY), 0 for PEC */
uniform uint kind[NMATS];   /* KIND_* per material */
#if LOSSY
uniform float ca[NMATS];    /* (1 - s) / (1 + s) per material, 1 where sigma = 0 */
#endif

/* The Ez update of material m from the curl's four H values, or (CPML) from
 * d = tx - ty: ez + cezh d, or with LOSSY ca ez + cb d (core/yee.h). */
float ez_curl(float ez, uint m, float p1, float p0, float q1, float q0)
{
#if LOSSY
    return yee_curl_lossy(ez, ca[m], cezh[m], p1, p0, q1, q0);
#else
    return yee_curl_add(ez, cezh[m], p1, p0, q1, q0);
#endif
}

float ez_term(float ez, uint m, float d)
{
#if LOSSY
    return yee_lossy(ez, ca[m], cezh[m], d);
#else
    return yee_add_mul(ez, cezh[m], d);
#endif
}

#if CPML
/* ---- CPML (Roden and Gedney 2000; cpu/update2d.inc, core/model.h) ----
 * psi = b psi + c d (yee_psi);  term = d ik + psi (yee_pml_term), where d
 * is the field difference of the ordinary update.  The coefficient profiles
 * (b, c, ik) per position are one RGBA32F texture, a row per profile: Ez
 * positions along x (PROF_XE), H positions i+1/2 along x (PROF_XH), then the
 * same along y.  psi lives only in the slabs: psi_hxy and psi_ezy are
 * NX x 2 PML_N textures, texel (i, side PML_N + k); psi_hyx and psi_ezx are
 * 2 PML_N x NY, texel (side PML_N + k, j); side and storage column k as
 * pml_slab_h / pml_slab_e. */
#define PROF_XE 0
#define PROF_XH 1
#define PROF_YE 2
#define PROF_YH 3
layout(binding = 5) uniform sampler2D pml_prof;

vec3 pml_coef(int prof, int i) { return texelFetch(pml_prof, ivec2(i, prof), 0).rgb; }

/* pml_slab_e / pml_slab_h of core/model.h */
int slab_e(int n, int i, out int k)
{
    k = 0;
    if (i >= 1 && i <= PML_N - 1) {
        k = i;
        return 0;
    }
    if (i >= n - PML_N && i <= n - 2) {
        k = i - (n - 1 - PML_N);
        return 1;
    }
    return -1;
}

int slab_h(int n, int i, out int k)
{
    k = 0;
    if (i >= 0 && i <= PML_N - 1) {
        k = i;
        return 0;
    }
    if (i >= n - 1 - PML_N && i <= n - 2) {
        k = i - (n - 1 - PML_N);
        return 1;
    }
    return -1;
}

ivec2 psi_y_texel(int i, int side, int k) { return ivec2(i, side * PML_N + k); }
ivec2 psi_x_texel(int j, int side, int k) { return ivec2(side * PML_N + k, j); }

/* The new psi of slab texel t, whose field difference is d. */
#if PSI_IN_PLACE
/* compute: read, update and write back by the one invocation that owns it */
layout(binding = 2, r32f) uniform image2D psi_hxy_img;
layout(binding = 3, r32f) uniform image2D psi_hyx_img;
layout(binding = 4, r32f) uniform image2D psi_ezy_img;
layout(binding = 5, r32f) uniform image2D psi_ezx_img;
float psi_hxy_new(ivec2 t, vec3 bci, float d)
{
    const float r = yee_psi(imageLoad(psi_hxy_img, t).r, bci.x, bci.y, d);
    imageStore(psi_hxy_img, t, vec4(r, 0.0, 0.0, 0.0));
    return r;
}
float psi_hyx_new(ivec2 t, vec3 bci, float d)
{
    const float r = yee_psi(imageLoad(psi_hyx_img, t).r, bci.x, bci.y, d);
    imageStore(psi_hyx_img, t, vec4(r, 0.0, 0.0, 0.0));
    return r;
}
float psi_ezy_new(ivec2 t, vec3 bci, float d)
{
    const float r = yee_psi(imageLoad(psi_ezy_img, t).r, bci.x, bci.y, d);
    imageStore(psi_ezy_img, t, vec4(r, 0.0, 0.0, 0.0));
    return r;
}
float psi_ezx_new(ivec2 t, vec3 bci, float d)
{
    const float r = yee_psi(imageLoad(psi_ezx_img, t).r, bci.x, bci.y, d);
    imageStore(psi_ezx_img, t, vec4(r, 0.0, 0.0, 0.0));
    return r;
}
#else
/* fragment: update_psi_h.frag / update_psi_e.frag wrote the new psi (with
 * the same d) into these textures just before this pass.  The psi recursion
 * is split off into passes of its own only because a render target must
 * match the size of the others drawn with it (psi textures are slab-shaped);
 * its arithmetic is still yee_psi of the same yee_diff, so only d is
 * computed twice, with the same bits. */
layout(binding = 6) uniform sampler2D psi_hxy_tex;
layout(binding = 7) uniform sampler2D psi_hyx_tex;
layout(binding = 8) uniform sampler2D psi_ezy_tex;
layout(binding = 9) uniform sampler2D psi_ezx_tex;
float psi_hxy_new(ivec2 t, vec3 bci, float d) { return texelFetch(psi_hxy_tex, t, 0).r; }
float psi_hyx_new(ivec2 t, vec3 bci, float d) { return texelFetch(psi_hyx_tex, t, 0).r; }
float psi_ezy_new(ivec2 t, vec3 bci, float d) { return texelFetch(psi_ezy_tex, t, 0).r; }
float psi_ezx_new(ivec2 t, vec3 bci, float d) { return texelFetch(psi_ezx_tex, t, 0).r; }
#endif
#endif /* CPML */

#if MUR
/* ---- Mur first order: ez[wall] = e1 + k (ez1 - e0), with the old wall e0,
 * the old neighbour e1 and the new neighbour ez1 (k = (S - 1) / (S + 1)):
 * yee_mur ---- */
uniform float mur_k;

/* Whether p is a Mur wall node (the outer ring without its corners), and
 * its neighbour n one cell inwards. */
bool mur_wall(ivec2 p, out ivec2 n)
{
    const bool col = (p.x == 0 || p.x == NX - 1) && p.y >= 1 && p.y <= NY - 2;
    const bool row = (p.y == 0 || p.y == NY - 1) && p.x >= 1 && p.x <= NX - 2;
    n = col ? ivec2(p.x == 0 ? 1 : NX - 2, p.y) : ivec2(p.x, p.y == 0 ? 1 : NY - 2);
    return col || row;
}
#endif

#if POINT_SRC
/* ---- the soft point source: ez = ez + v (yee_add) at (POINT_X, POINT_Y)
 * after the slots; v = (float) model_point_value(m, n), a uniform per step ---- */
uniform float point_v;
#endif

#if DFT
/* ---- running DFT at each frequency k of [monitor.dft] (cpu/update2d.inc,
 * dft_range):  re_k = re_k + wr_k ez;  im_k = im_k + wi_k ez (yee_add_mul), with the final
 * Ez; wr_k, wi_k = (float) model_dft_weight_k(m, k, n+1), uniform arrays of
 * the pass that accumulates frequency k; dft_on when n+1 > start.  The sums
 * are RG32F array textures, layer k = frequency k. */
uniform bool dft_on;
vec2 dft_step(vec2 acc, float ez, float wr, float wi)
{
    return vec2(yee_add_mul(acc.x, wr, ez), yee_add_mul(acc.y, wi, ez));
}
#endif

#if CONFORMAL
/* ---- conformal PEC cut edges (core/model.h struct cut_edge):
 *   t = a Ez_q;  u = t + b^n;  Hx = old - u,  Hy = old + u   (yee_cut_sub, yee_cut_add)
 * cut_idx (RG32UI over the cut cells' bounding box): edge index + 1 of the
 * cell's Hx and Hy edge, 0 for none; cut_edges (RGBA32UI buffer): float bits
 * of a, then q = (i, j); b^n from the batch buffer of slot values, after this
 * step's slot values (model_cut_values_f, tabulated on the host). */
layout(binding = 12) uniform usampler2D cut_idx;
layout(binding = 13) uniform usamplerBuffer cut_edges;
layout(binding = 4) uniform samplerBuffer cut_values; /* the slot-value buffer */
uniform int cut_base;                                 /* this step's first b^n */

/* The new Hx (hy false) or Hy (hy true) of cut edge e, from its old value. */
float cut_h(sampler2D ez_tex, uint e, float old, bool hy)
{
    const uvec4 c = texelFetch(cut_edges, int(e));
    const float a = uintBitsToFloat(c.x);
    const float eq = texelFetch(ez_tex, ivec2(c.yz), 0).r;
    const float bn = texelFetch(cut_values, cut_base + int(e)).r;
    return hy ? yee_cut_add(old, a, eq, bn) : yee_cut_sub(old, a, eq, bn);
}
#endif

#if HMAP
/* ---- the H-node map (core/model.h hmat; docs/materials-design.md 1-2):
 * TE (the arrays hold eta0 Hz, -Ex, -Ey, and an H node is an E edge) or TM
 * with mu_r.  Outside the bounding box of the nodes with an index != 0 every
 * node is vacuum and takes ch = hc[0] (the same bits); inside, hnode_tex
 * (RGBA32UI over the box) holds per texel the index into hc[] of its Hx and
 * Hy node (.xy) and, where that index is not 0, the node's H-slot index
 * (.zw), whose value this step is hslot_values[hslot_base + slot]:
 *   H = H - hc[k] dEz (Hx) or H + hc[k] dEz (Hy)   (yee_h_sub, yee_h_add)
 *   then PEC node (hpec[k], TE):  H = v;  other node:  H = H + v (yee_add)
 * as update_h_row applies them right after the row's H (and cut edges).
 * The CPML slabs hold no node of index != 0 (core/model.h): their update
 * keeps ch. */
layout(binding = 15) uniform usampler2D hnode_tex;
layout(binding = 4) uniform samplerBuffer hslot_values; /* the slot-value buffer */
uniform int hslot_base;                                 /* this step's first H-slot value */
uniform float hc[NHMATS];                               /* S / bar per H-node material */
uniform uint hpec[NHMATS];                              /* 1: a PEC edge (TE) */

/* The map entry of texel p: indices (.xy) and slots (.zw), 0 outside the box. */
uvec4 hnode(ivec2 p)
{
    const ivec2 q = p - ivec2(HSLOT_X0, HSLOT_Y0);
    if (q.x < 0 || q.y < 0 || q.x >= HSLOT_W || q.y >= HSLOT_H)
        return uvec4(0u);
    return texelFetch(hnode_tex, q, 0);
}

/* The H slot of a node of map index k != 0 and slot s. */
float apply_hslot(float h, uint k, uint s)
{
    const float v = texelFetch(hslot_values, hslot_base + int(s)).r;
    return hpec[k] != 0u ? v : yee_add(h, v);
}

/* The ordinary update of an Hx (hx_node) or Hy (hy_node) node of map index
 * k outside the CPML slabs: H -+ hc[k] (e1 - e0), or with HLOSSY (TE lossy
 * edges, cpu/update2d.inc hx_map_lossy / hy_map_lossy) ca H -+ hc[k]
 * (e1 - e0), ca = hca[k] (1 exactly where sigma = 0: the same bits). */
#if HLOSSY
uniform float hca[NHMATS]; /* (1 - s) / (1 + s) per H-node material */
float hx_node(float h, uint k, float e1, float e0) { return yee_h_sub_lossy(h, hca[k], hc[k], e1, e0); }
float hy_node(float h, uint k, float e1, float e0) { return yee_h_add_lossy(h, hca[k], hc[k], e1, e0); }
#else
float hx_node(float h, uint k, float e1, float e0) { return yee_h_sub(h, hc[k], e1, e0); }
float hy_node(float h, uint k, float e1, float e0) { return yee_h_add(h, hc[k], e1, e0); }
#endif
#endif

#if DISP
/* ---- dispersive cells (core/model.h disp_cell; cpu/update2d.inc
 * update_disp; core/yee.h "Dispersive poles"; docs/gl.md "Dispersive
 * poles").  Only the NDISP cells of dispersive objects have state: cell k
 * owns DISP_NT RGBA32F texels of disp_state, (k % DISP_W) DISP_NT + t,
 * k / DISP_W, t = 0 .. DISP_NT-1, holding the floats
 *     s[0] Ez_s^{n+1} (the new stored E, for the E pass)   s[1] D_s
 *     s[2] Ei^n                                            s[3] unused
 *     s[4 + 2q] P_q^n      s[5 + 2q] P_q^{n-1}             (q < DISP_NP)
 * disp_cells (RGBA32UI, same layout, one texel per cell): (i, j, the
 * dispersive material's row in disp_coef).  disp_coef (RGBA32F buffer), per
 * dispersive material 1 + DISP_NP texels: (rdenom, sigma', npoles bits, 0),
 * then per pole (kind bits, c1 or a, c2 or b, c3).  disp_idx (RG32UI over the
 * cells' bounding box): k + 1, 0 for a cell without state.  Ei^{n+1} of cell
 * k is slot value disp_base + k of the step.
 * DISP_EDGES (TE, core/model.h hdisp; docs/gl.md): entry k is an H-array
 * node, disp_cells (i, j, row, comp: 0 Hx, 1 Hy), disp_idx (.x the Hx
 * entry + 1, .y the Hy entry + 1), s[0] the new stored -Ex or -Ey, the
 * coefficient rows those of the dispersive H-node materials; the disp pass
 * runs before the H pass (from H^{n-1/2} and Ez^n), the H pass takes s[0]
 * for the entry's node, and the incident value is Hi^{n+1/2}
 * (model_hdisp_values_f). */
#define DISP_NS (4 * DISP_NT)
layout(binding = 16) uniform sampler2D disp_state;
layout(binding = 17) uniform usampler2D disp_idx;
layout(binding = 18) uniform usampler2D disp_cells;
layout(binding = 19) uniform samplerBuffer disp_coef;
layout(binding = 4) uniform samplerBuffer disp_values; /* the slot-value buffer */
uniform int disp_base;

ivec2 disp_texel(int k, int t) { return ivec2((k % DISP_W) * DISP_NT + t, k / DISP_W); }

/* k + 1 for a dispersive cell p (.x), or for its dispersive Hx (.x) and Hy
 * (.y) edges, else 0 */
uvec2 disp_index(ivec2 p)
{
    const ivec2 q = p - ivec2(DISP_X0, DISP_Y0);
    if (q.x < 0 || q.y < 0 || q.x >= DISP_BW || q.y >= DISP_BH)
        return uvec2(0u);
    return texelFetch(disp_idx, q, 0).rg;
}

/* The new stored value of entry k after the disp pass (float 0 of texel 0). */
float disp_new(int k) { return texelFetch(disp_state, disp_texel(k, 0), 0).r; }

float ez_sweep(sampler2D ez_tex, sampler2D h_tex, usampler2D mat_tex, ivec2 p);

/* Texel u of cell k's state before the step: gl samples the old texture of
 * the pair, gl-compute (PSI_IN_PLACE: the engine that updates in place)
 * loads the image that the disp dispatch updates. */
#if PSI_IN_PLACE
layout(binding = 7, rgba32f) uniform image2D disp_img;
vec4 disp_fetch(int k, int u) { return imageLoad(disp_img, disp_texel(k, u)); }
#else
vec4 disp_fetch(int k, int u) { return texelFetch(disp_state, disp_texel(k, u), 0); }
#endif

/* Cell k's state before the step, as floats. */
void disp_load(int k, out float s[DISP_NS])
{
    for (int u = 0; u < DISP_NT; u++) {
        const vec4 q = disp_fetch(k, u);
        s[4 * u] = q.x;
        s[4 * u + 1] = q.y;
        s[4 * u + 2] = q.z;
        s[4 * u + 3] = q.w;
    }
}

/* The D-E update of entry k (update_disp, statement for statement): s
 * holds its state before the step and gets the state after it, s[0] the
 * new stored value.  A cell (TM): from Ez at the cell as the sweep leaves
 * it (ez_sweep: Ez^n, as cb = 0, ca = 1 there) and the new H.  An edge
 * (DISP_EDGES; the end of update_h_row): from the node's value as its
 * ordinary update leaves it (hx_node / hy_node: H^{n-1/2}, as hc = 0,
 * ca = 1 there) and the edge's one Ez difference at n (yee_disp_curl1). */
void disp_update(int k, sampler2D ez_tex, sampler2D h_tex, usampler2D mat_tex,
                 inout float s[DISP_NS])
{
    const uvec4 c = texelFetch(disp_cells, ivec2(k % DISP_W, k / DISP_W), 0);
    const ivec2 p = ivec2(c.xy);
#if DISP_EDGES
    const float ez_c = texelFetch(ez_tex, p, 0).r;
    const uvec4 hn = hnode(p);
    float ez_n, sc; /* the node's value (named as a cell's Ez^n) and S curl */
    if (c.w == 0u) {
        const float ez_u = texelFetch(ez_tex, p + ivec2(0, 1), 0).r;
        ez_n = hx_node(texelFetch(h_tex, p, 0).r, hn.x, ez_u, ez_c);
        sc = yee_disp_curl1(ch, ez_c, ez_u);
    } else {
        const float ez_e = texelFetch(ez_tex, p + ivec2(1, 0), 0).r;
        ez_n = hy_node(texelFetch(h_tex, p, 0).g, hn.y, ez_e, ez_c);
        sc = yee_disp_curl1(ch, ez_e, ez_c);
    }
#else
    const float ez_n = ez_sweep(ez_tex, h_tex, mat_tex, p);
    const vec2 h = texelFetch(h_tex, p, 0).rg;
    const float sc = yee_disp_curl(ch, h.y, texelFetch(h_tex, p - ivec2(1, 0), 0).g, h.x,
                                   texelFetch(h_tex, p - ivec2(0, 1), 0).r);
#endif
    const int row = int(c.z) * (1 + DISP_NP);
    const vec4 mc = texelFetch(disp_coef, row);
    const float rdenom = mc.x, sig = mc.y;
    const int np = int(floatBitsToUint(mc.z));
    const float v = texelFetch(disp_values, disp_base + k).r;
    const float e0 = yee_add(ez_n, s[2]);
    float r = yee_disp_rhs(s[1], sc, v, sig, e0);
    for (int q = 0; q < DISP_NP && q < np; q++) {
        const vec4 pc = texelFetch(disp_coef, row + 1 + q);
        if (floatBitsToUint(pc.x) == POLE_DEBYE_KIND) {
            r = yee_disp_debye_rhs(r, pc.y, s[4 + 2 * q], pc.z, e0);
        } else {
            const float pn = yee_disp_lorentz(s[4 + 2 * q], s[5 + 2 * q], pc.y, pc.z, pc.w, e0);
            s[5 + 2 * q] = s[4 + 2 * q];
            s[4 + 2 * q] = pn;
            r = yee_diff(r, pn);
        }
    }
    const float e1 = yee_disp_e(rdenom, r);
    for (int q = 0; q < DISP_NP && q < np; q++) {
        const vec4 pc = texelFetch(disp_coef, row + 1 + q);
        if (floatBitsToUint(pc.x) == POLE_DEBYE_KIND)
            s[4 + 2 * q] = yee_disp_debye(s[4 + 2 * q], pc.y, pc.z, e1, e0);
    }
    s[1] = yee_disp_d(s[1], sc, sig, e1, e0);
    s[0] = yee_diff(e1, v);
    s[2] = v;
}
#endif

#if TECUT
/* ---- TE conformal PEC cut cells (core/model.h struct te_cut; cpu/update2d.inc
 * save_tecut / update_tecut): after the sweep and Mur, before the slots, a
 * cut cell's Hz^{n+1} is replaced by
 *   Hz = (old + [(k0 hy_e - k1 hy_w) - (k2 hx_n - k3 hx_s)]) + b^n   (yee_te_cut)
 * from its Hz^n (the E pass's input texture: the cpu engine's kept copy),
 * the new H of its four edges, the coefficients k (RGBA32F buffer
 * tecut_k, rounded once on the host) and this step's b^n (slot value
 * tecut_base + k, model_tecut_values_f).  tecut_idx (R32UI over the cut
 * cells' bounding box): k + 1, 0 elsewhere. */
layout(binding = 20) uniform usampler2D tecut_idx;
layout(binding = 21) uniform samplerBuffer tecut_k;
layout(binding = 4) uniform samplerBuffer tecut_values; /* the slot-value buffer */
uniform int tecut_base;                                 /* this step's first b^n */

uint tecut_index(ivec2 p)
{
    const ivec2 q = p - ivec2(TECUT_X0, TECUT_Y0);
    if (q.x < 0 || q.y < 0 || q.x >= TECUT_W || q.y >= TECUT_H)
        return 0u;
    return texelFetch(tecut_idx, q, 0).r;
}

float tecut_ez(sampler2D ez_tex, sampler2D h_tex, ivec2 p, int k)
{
    const vec4 kk = texelFetch(tecut_k, k);
    const vec2 h = texelFetch(h_tex, p, 0).rg;
    const float hy_w = texelFetch(h_tex, p - ivec2(1, 0), 0).g;
    const float hx_s = texelFetch(h_tex, p - ivec2(0, 1), 0).r;
    const float old = texelFetch(ez_tex, p, 0).r;
    const float bn = texelFetch(tecut_values, tecut_base + k).r;
    return yee_te_cut(old, kk.x, h.y, kk.y, hy_w, kk.z, h.x, kk.w, hx_s, bn);
}
#endif

#if HOFF
/* ---- TE off-diagonal edges (core/model.h hoff; cpu/update2d.inc
 * hoff_prepass and update_h_row): after the edge's own update (and cut
 * edges), before its H slot,
 *   u = [k0 (ez(p+s) - ez(p-s)) + k1 (ez(p+o+s) - ez(p+o-s))] + w   (yee_offd_u)
 *   h = h + u                                                        (yee_add)
 * with s = (1, 0), o = (0, 1) for an Hx edge and s = (0, 1), o = (1, 0) for
 * an Hy edge, from Ez^n (the H pass's input texture: the cpu engine's
 * prepass before its sweep).  hoff_idx (RG32UI over the edges' bounding
 * box): Hx (.r) and Hy (.g) entry + 1, 0 for none; hoff_k (RG32F buffer):
 * k_f of the entry's two nodes; w this step's slot value hoff_base + entry
 * (model_hoff_values_f).  The edges never lie in a CPML slab and are never
 * PEC, lossy or dispersive. */
layout(binding = 22) uniform usampler2D hoff_idx;
layout(binding = 23) uniform samplerBuffer hoff_k;
layout(binding = 4) uniform samplerBuffer hoff_values; /* the slot-value buffer */
uniform int hoff_base;                                 /* this step's first w */

uvec2 hoff_index(ivec2 p)
{
    const ivec2 q = p - ivec2(HOFF_X0, HOFF_Y0);
    if (q.x < 0 || q.y < 0 || q.x >= HOFF_W || q.y >= HOFF_H)
        return uvec2(0u);
    return texelFetch(hoff_idx, q, 0).rg;
}

/* h + u of off-diagonal entry e at texel p, s and o as above. */
float hoff_add(sampler2D ez_tex, ivec2 p, int e, ivec2 s, ivec2 o, float h)
{
    const vec2 k = texelFetch(hoff_k, e).rg;
    const float w = texelFetch(hoff_values, hoff_base + e).r;
    const float u = yee_offd_u(k.x, texelFetch(ez_tex, p + s, 0).r, texelFetch(ez_tex, p - s, 0).r,
                               k.y, texelFetch(ez_tex, p + o + s, 0).r,
                               texelFetch(ez_tex, p + o - s, 0).r, w);
    return yee_add(h, u);
}
#endif

/* Source slot: PEC  ez = v;  dielectric  ez = ez + v (yee_add). */
float apply_slot(float ez, uint k, float v) { return k == KIND_PEC ? v : yee_add(ez, v); }

/* The new (Hx, Hy) of texel p from the previous H and Ez textures. */
vec2 h_cell(sampler2D h_tex, sampler2D ez_tex, ivec2 p)
{
    vec2 h = texelFetch(h_tex, p, 0).rg;
    if (p == COUNTER_TEXEL)
        return vec2(uintBitsToFloat(floatBitsToUint(h.x) + 1u), h.y);
#if CONFORMAL
    const vec2 old = h;
#endif
    const float ez_c = texelFetch(ez_tex, p, 0).r;
#if HMAP
    const uvec4 hn = hnode(p);
#endif
    if (p.y <= NY - 2) {
        const float ez_n = texelFetch(ez_tex, p + ivec2(0, 1), 0).r;
#if CPML
        int k;
        const int s = slab_h(NY, p.y, k);
        if (s >= 0) {
            const float d = yee_diff(ez_n, ez_c);
            const vec3 bci = pml_coef(PROF_YH, p.y);
            const float psi = psi_hxy_new(psi_y_texel(p.x, s, k), bci, d);
            h.x = yee_sub_mul(h.x, ch, yee_pml_term(d, bci.z, psi));
        } else
#endif
#if HMAP
            h.x = hx_node(h.x, hn.x, ez_n, ez_c);
#else
            h.x = yee_h_sub(h.x, ch, ez_n, ez_c);
#endif
    }
    if (p.x <= NX - 2) {
        const float ez_e = texelFetch(ez_tex, p + ivec2(1, 0), 0).r;
#if CPML
        int k;
        const int s = slab_h(NX, p.x, k);
        if (s >= 0) {
            const float d = yee_diff(ez_e, ez_c);
            const vec3 bci = pml_coef(PROF_XH, p.x);
            const float psi = psi_hyx_new(psi_x_texel(p.y, s, k), bci, d);
            h.y = yee_add_mul(h.y, ch, yee_pml_term(d, bci.z, psi));
        } else
#endif
#if HMAP
            h.y = hy_node(h.y, hn.y, ez_e, ez_c);
#else
            h.y = yee_h_add(h.y, ch, ez_e, ez_c);
#endif
    }
#if CONFORMAL
    /* the cut edges replace the ordinary update (the psi above still ran) */
    const ivec2 cq = p - ivec2(CUT_X0, CUT_Y0);
    if (cq.x >= 0 && cq.y >= 0 && cq.x < CUT_W && cq.y < CUT_H) {
        const uvec2 e = texelFetch(cut_idx, cq, 0).rg;
        if (e.x != 0u)
            h.x = cut_h(ez_tex, e.x - 1u, old.x, false);
        if (e.y != 0u)
            h.y = cut_h(ez_tex, e.y - 1u, old.y, true);
    }
#endif
#if HOFF
    /* the off-diagonal term, after the node's own update, before its slot */
    const uvec2 ho = hoff_index(p);
    if (ho.x != 0u)
        h.x = hoff_add(ez_tex, p, int(ho.x) - 1, ivec2(1, 0), ivec2(0, 1), h.x);
    if (ho.y != 0u)
        h.y = hoff_add(ez_tex, p, int(ho.y) - 1, ivec2(0, 1), ivec2(1, 0), h.y);
#endif
#if HMAP
    /* the H slots, after the update and the cut edges; a dispersive TE edge
     * (no slot) takes the disp pass's new value instead */
#if DISP && DISP_EDGES
    const uvec2 de = disp_index(p);
    if (de.x != 0u)
        h.x = disp_new(int(de.x) - 1);
    else
#endif
    if (hn.x != 0u)
        h.x = apply_hslot(h.x, hn.x, hn.z);
#if DISP && DISP_EDGES
    if (de.y != 0u)
        h.y = disp_new(int(de.y) - 1);
    else
#endif
    if (hn.y != 0u)
        h.y = apply_hslot(h.y, hn.y, hn.w);
#endif
    return h;
}

/* The new Ez of texel p: the ordinary update on interior cells (the outer
 * ring is the PEC wall and keeps its 0), then the source slot if the cell has
 * one.  slot_value(k) is this step's value of slot k. */
float slot_value(uint k);

/* The new (Hx, Hy) of texel p in a PEC box (none of h_cell's CPML, H-node
 * map, cut or off-diagonal edges), from its old value h and Ez^n of the
 * cell, its north and its east neighbour: h_cell's statements for such a
 * scene, with the values given (update_tb.comp keeps them in shared
 * memory).  The counter texel counts the update instead. */
vec2 h_box(vec2 h, ivec2 p, float ez_c, float ez_n, float ez_e)
{
    if (p == COUNTER_TEXEL)
        return vec2(uintBitsToFloat(floatBitsToUint(h.x) + 1u), h.y);
    if (p.y <= NY - 2)
        h.x = yee_h_sub(h.x, ch, ez_n, ez_c);
    if (p.x <= NX - 2)
        h.y = yee_h_add(h.y, ch, ez_e, ez_c);
    return h;
}

/* The sweep's Ez^{n+1} of texel p of material m in a PEC box, before the
 * slots: the curl on interior cells, the wall ring keeps its value. */
float ez_box(float ez, uint m, ivec2 p, vec2 h, float hy_w, float hx_s)
{
    if (p.x >= 1 && p.x <= NX - 2 && p.y >= 1 && p.y <= NY - 2)
        ez = ez_curl(ez, m, h.y, hy_w, h.x, hx_s);
    return ez;
}

#if CPML
/* h_box() in a CPML grid: in a slab the stretched update of h_cell, with
 * the node's psi given and updated (.x psi_hxy, .y psi_hyx; read only in
 * their slabs): update_tb.comp keeps them in registers. */
vec2 h_box_pml(vec2 h, ivec2 p, float ez_c, float ez_n, float ez_e, inout vec2 psi)
{
    if (p == COUNTER_TEXEL)
        return vec2(uintBitsToFloat(floatBitsToUint(h.x) + 1u), h.y);
    int k;
    if (p.y <= NY - 2) {
        if (slab_h(NY, p.y, k) >= 0) {
            const float d = yee_diff(ez_n, ez_c);
            const vec3 bci = pml_coef(PROF_YH, p.y);
            psi.x = yee_psi(psi.x, bci.x, bci.y, d);
            h.x = yee_sub_mul(h.x, ch, yee_pml_term(d, bci.z, psi.x));
        } else {
            h.x = yee_h_sub(h.x, ch, ez_n, ez_c);
        }
    }
    if (p.x <= NX - 2) {
        if (slab_h(NX, p.x, k) >= 0) {
            const float d = yee_diff(ez_e, ez_c);
            const vec3 bci = pml_coef(PROF_XH, p.x);
            psi.y = yee_psi(psi.y, bci.x, bci.y, d);
            h.y = yee_add_mul(h.y, ch, yee_pml_term(d, bci.z, psi.y));
        } else {
            h.y = yee_h_add(h.y, ch, ez_e, ez_c);
        }
    }
    return h;
}

/* ez_box() in a CPML grid: ez_sweep's update with the cell's psi given and
 * updated (.x psi_ezx, .y psi_ezy; read only in their slabs). */
float ez_box_pml(float ez, uint m, ivec2 p, vec2 h, float hy_w, float hx_s, inout vec2 psi)
{
    if (!(p.x >= 1 && p.x <= NX - 2 && p.y >= 1 && p.y <= NY - 2))
        return ez;
    int kx, ky;
    const int sx = slab_e(NX, p.x, kx), sy = slab_e(NY, p.y, ky);
    if (sx < 0 && sy < 0)
        return ez_curl(ez, m, h.y, hy_w, h.x, hx_s);
    const float dy = yee_diff(h.y, hy_w);
    const float dx = yee_diff(h.x, hx_s);
    float tx = dy, ty = dx;
    if (sx >= 0) {
        const vec3 bci = pml_coef(PROF_XE, p.x);
        psi.x = yee_psi(psi.x, bci.x, bci.y, dy);
        tx = yee_pml_term(dy, bci.z, psi.x);
    }
    if (sy >= 0) {
        const vec3 bci = pml_coef(PROF_YE, p.y);
        psi.y = yee_psi(psi.y, bci.x, bci.y, dx);
        ty = yee_pml_term(dx, bci.z, psi.y);
    }
    return ez_term(ez, m, yee_diff(tx, ty));
}
#endif

/* ez_cell() with Ez^n of the cell and the new H of the cell and its west
 * and south neighbours given (update_k.frag keeps them in arrays). */
float ez_k(float ez, usampler2D mat_tex, usampler2D slot_tex, ivec2 p, vec2 h, float hy_w,
           float hx_s)
{
    const uint m = texelFetch(mat_tex, p, 0).r;
    ez = ez_box(ez, m, p, h, hy_w, hx_s);
    if (m != 0u) {
        const uint s = texelFetch(slot_tex, p - ivec2(SLOT_X0, SLOT_Y0), 0).r;
        ez = apply_slot(ez, kind[m], slot_value(s));
    }
    return ez;
}

/* ez_cell() with the new H of the cell and its west and south neighbours
 * given (the fused compute pass keeps them in shared memory). */
float ez_cell_h(sampler2D ez_tex, usampler2D mat_tex, usampler2D slot_tex, ivec2 p, vec2 h,
                float hy_w, float hx_s)
{
    return ez_k(texelFetch(ez_tex, p, 0).r, mat_tex, slot_tex, p, h, hy_w, hx_s);
}

/* Ez^{n+1} of an interior cell as the sweep of update_e_row leaves it (before
 * slots and point source): the ordinary update, or in a CPML slab
 *   tx = dy or dy ikx + psi_x;  ty = dx or dx iky + psi_y;  ez + c (tx - ty) */
float ez_sweep(sampler2D ez_tex, sampler2D h_tex, usampler2D mat_tex, ivec2 p)
{
    const vec2 h = texelFetch(h_tex, p, 0).rg;
    const float hy_w = texelFetch(h_tex, p - ivec2(1, 0), 0).g;
    const float hx_s = texelFetch(h_tex, p - ivec2(0, 1), 0).r;
    const float ez = texelFetch(ez_tex, p, 0).r;
    const uint m = texelFetch(mat_tex, p, 0).r;
#if CPML
    int kx, ky;
    const int sx = slab_e(NX, p.x, kx), sy = slab_e(NY, p.y, ky);
    if (sx >= 0 || sy >= 0) {
        const float dy = yee_diff(h.y, hy_w);
        const float dx = yee_diff(h.x, hx_s);
        float tx = dy, ty = dx;
        if (sx >= 0) {
            const vec3 bci = pml_coef(PROF_XE, p.x);
            tx = yee_pml_term(dy, bci.z, psi_ezx_new(psi_x_texel(p.y, sx, kx), bci, dy));
        }
        if (sy >= 0) {
            const vec3 bci = pml_coef(PROF_YE, p.y);
            ty = yee_pml_term(dx, bci.z, psi_ezy_new(psi_y_texel(p.x, sy, ky), bci, dx));
        }
        return ez_term(ez, m, yee_diff(tx, ty));
    }
#endif
    return ez_curl(ez, m, h.y, hy_w, h.x, hx_s);
}

/* The new Ez of texel p, in update2d.inc's order: the sweep (interior cells;
 * Mur on the walls from the recomputed new neighbour, which objects never
 * touch; PEC walls and the corners keep their 0), the source slot, the point
 * source.  The DFT of the result is the pass's own (it has its own target). */
float ez_cell(sampler2D ez_tex, sampler2D h_tex, usampler2D mat_tex, usampler2D slot_tex, ivec2 p)
{
    float ez;
    if (p.x >= 1 && p.x <= NX - 2 && p.y >= 1 && p.y <= NY - 2) {
        ez = ez_sweep(ez_tex, h_tex, mat_tex, p);
    } else {
        ez = texelFetch(ez_tex, p, 0).r;
#if MUR
        ivec2 n;
        if (mur_wall(p, n))
            ez = yee_mur(texelFetch(ez_tex, n, 0).r, mur_k, ez_sweep(ez_tex, h_tex, mat_tex, n), ez);
#endif
    }
#if TECUT
    /* a TE cut cell's own update replaces the sweep's, before the slots */
    const uint tc = tecut_index(p);
    if (tc != 0u)
        ez = tecut_ez(ez_tex, h_tex, p, int(tc) - 1);
#endif
    const uint m = texelFetch(mat_tex, p, 0).r;
#if DISP && !DISP_EDGES
    /* a dispersive cell takes the disp pass's E (it has no slot) */
    const uint di = disp_index(p).x;
    if (di != 0u)
        ez = disp_new(int(di) - 1);
    else
#endif
    if (m != 0u) {
        const uint s = texelFetch(slot_tex, p - ivec2(SLOT_X0, SLOT_Y0), 0).r;
        ez = apply_slot(ez, kind[m], slot_value(s));
    }
#if POINT_SRC
    if (p == ivec2(POINT_X, POINT_Y))
        ez = yee_add(ez, point_v);
#endif
    return ez;
}
