/* update2d.glsl - the 2D TMz Yee update of one cell, shared by the fragment
 * passes (update_h.frag, update_e.frag) and the compute passes (update_h.comp,
 * update_e.comp).  The host prepends #version, the generated #defines
 *     NX, NY             grid size
 *     NMATS              materials in the coefficient table
 *     SLOT_X0, SLOT_Y0   origin of the slot-index texture (bounding box of
 *                        the source slots)
 *     FLUSH_DENORMALS    1: flush denormal inputs and results in GLSL (x86
 *                        FTZ+DAZ), for drivers that keep denormals
 * and `#line 1 1` before this file, then `#line 1 2` before the pass itself.
 *
 * This is cpu/update2d.inc statement for statement (Takada et al. 2007,
 * eq. 3; H stored as eta0*H, S = c dt / dx):
 *   Hx^{n+1/2}(i, j+1/2) = Hx^{n-1/2}(i, j+1/2) - S [Ez^n(i, j+1) - Ez^n(i, j)]
 *   Hy^{n+1/2}(i+1/2, j) = Hy^{n-1/2}(i+1/2, j) + S [Ez^n(i+1, j) - Ez^n(i, j)]
 *   Ez^{n+1}(i, j) = Ez^n(i, j) + (S / eps_r) { [Hy(i+1/2, j) - Hy(i-1/2, j)]
 *                                             - [Hx(i, j+1/2) - Hx(i, j-1/2)] }
 * Texel (i, j) holds Ez(i, j) in the R32F pair and (Hx(i, j+1/2), Hy(i+1/2, j))
 * in the RG32F pair.  Every intermediate is a `precise` float rounded where C
 * rounds it, so no a*b+c is fused into a multiply-add (the C side is built with
 * -ffp-contract=off) and the float32 bits equal the CPU engine's.
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

#if FLUSH_DENORMALS
/* x86 SSE with FTZ and DAZ: a denormal input or result becomes a zero of the
 * same sign.  Applied to every operand and every result of arithmetic (never
 * to plain copies, which keep their bits on the CPU too). */
float F(float x)
{
    const uint b = floatBitsToUint(x);
    return (b & 0x7fffffffu) < 0x00800000u ? uintBitsToFloat(b & 0x80000000u) : x;
}
#else
#define F(x) (x)
#endif

uniform float ch;           /* S */
uniform float cezh[NMATS];  /* S / eps_r per material, 0 for PEC */
uniform uint kind[NMATS];   /* KIND_* per material */

/* hx = hx - ch * (ez_n - ez_c);   ez_n = Ez(i, j+1) */
float update_hx(float hx, float ez_n, float ez_c)
{
    precise float d = F(F(ez_n) - F(ez_c));
    precise float t = F(ch * d);
    precise float r = F(F(hx) - t);
    return r;
}

/* hy = hy + ch * (ez_e - ez_c);   ez_e = Ez(i+1, j) */
float update_hy(float hy, float ez_e, float ez_c)
{
    precise float d = F(F(ez_e) - F(ez_c));
    precise float t = F(ch * d);
    precise float r = F(F(hy) + t);
    return r;
}

/* ez = ez + c * ((hy_c - hy_w) - (hx_c - hx_s)) */
float update_ez(float ez, float c, float hy_c, float hy_w, float hx_c, float hx_s)
{
    precise float dy = F(F(hy_c) - F(hy_w));
    precise float dx = F(F(hx_c) - F(hx_s));
    precise float curl = F(dy - dx);
    precise float t = F(c * curl);
    precise float r = F(F(ez) + t);
    return r;
}

/* Source slot: PEC  ez = v;  dielectric  ez = ez + v. */
float apply_slot(float ez, uint k, float v)
{
    if (k == KIND_PEC)
        return v;
    precise float r = F(F(ez) + F(v));
    return r;
}

/* The new (Hx, Hy) of texel p from the previous H and Ez textures. */
vec2 h_cell(sampler2D h_tex, sampler2D ez_tex, ivec2 p)
{
    vec2 h = texelFetch(h_tex, p, 0).rg;
    if (p == COUNTER_TEXEL)
        return vec2(uintBitsToFloat(floatBitsToUint(h.x) + 1u), h.y);
    const float ez_c = texelFetch(ez_tex, p, 0).r;
    if (p.y <= NY - 2)
        h.x = update_hx(h.x, texelFetch(ez_tex, p + ivec2(0, 1), 0).r, ez_c);
    if (p.x <= NX - 2)
        h.y = update_hy(h.y, texelFetch(ez_tex, p + ivec2(1, 0), 0).r, ez_c);
    return h;
}

/* The new Ez of texel p: the ordinary update on interior cells (the outer
 * ring is the PEC wall and keeps its 0), then the source slot if the cell has
 * one.  slot_value(k) is this step's value of slot k. */
float slot_value(uint k);

/* ez_cell() with Ez^n of the cell and the new H of the cell and its west
 * and south neighbours given (update_k.frag keeps them in arrays). */
float ez_k(float ez, usampler2D mat_tex, usampler2D slot_tex, ivec2 p, vec2 h, float hy_w,
           float hx_s)
{
    const uint m = texelFetch(mat_tex, p, 0).r;
    if (p.x >= 1 && p.x <= NX - 2 && p.y >= 1 && p.y <= NY - 2)
        ez = update_ez(ez, cezh[m], h.y, hy_w, h.x, hx_s);
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

float ez_cell(sampler2D ez_tex, sampler2D h_tex, usampler2D mat_tex, usampler2D slot_tex, ivec2 p)
{
    vec2 h = vec2(0.0);
    float hy_w = 0.0, hx_s = 0.0;
    if (p.x >= 1 && p.x <= NX - 2 && p.y >= 1 && p.y <= NY - 2) {
        h = texelFetch(h_tex, p, 0).rg;
        hy_w = texelFetch(h_tex, p - ivec2(1, 0), 0).g;
        hx_s = texelFetch(h_tex, p - ivec2(0, 1), 0).r;
    }
    return ez_cell_h(ez_tex, mat_tex, slot_tex, p, h, hy_w, hx_s);
}
