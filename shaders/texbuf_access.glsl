/* texbuf_access.glsl - bench only (gl_bench texbuf, gl/texbuf.c; issue 14,
 * item 1): the compute passes' field access as four functions,
 *     float ld_ez(ivec2 p)            Ez^n of cell p
 *     vec2  ld_h(ivec2 p)             (Hx, Hy)^{n-1/2} of cell p
 *     void  st_ez(ivec2 p, float v)   the new Ez of cell p
 *     void  st_h(ivec2 p, vec2 v)     the new (Hx, Hy) of cell p
 * over one of three access paths, so that one pass text (texbuf.comp, and
 * update_tb.comp, whose own definitions are the engine's ACCESS_TEX) runs on
 * each of them with the same arithmetic:
 *   ACCESS_SSBO   shader storage buffers: float (or vec2) arrays, cell
 *                 (x, y) at y NX + x; read from one buffer of each pair,
 *                 written into the other
 *   ACCESS_IMAGE  imageLoad from the current image of each pair (readonly),
 *                 imageStore into the other (writeonly)
 *   ACCESS_TEX    texelFetch from the current texture (a sampler: the
 *                 texture cache), imageStore into the other: the engine's
 *                 path (update_he.comp, update_tb.comp)
 * and one of two layouts: H_PLANAR 0, Ez one R32F field and (Hx, Hy) one
 * RG32F field (the engine's: 4 + 8 bytes a cell); 1, three R32F fields.
 * The host (gl/texbuf.c) prepends this file after the #defines of ACCESS
 * and H_PLANAR.  Bindings (SSBO blocks, image units; samplers on texture
 * units 8 .. 10, clear of the engine's material and slot units):
 *   inputs  0 Ez, 1 H (or Hx), 2 Hy;   outputs 3 Ez, 4 H (or Hx), 5 Hy.
 * All of them are `restrict`: no two names alias within a dispatch.
 */
#define TEXBUF_ACCESS 1
#define ACCESS_SSBO 0
#define ACCESS_IMAGE 1
#define ACCESS_TEX 2
#define CELL(p) ((p).y * NX + (p).x)

#if ACCESS == ACCESS_SSBO
layout(std430, binding = 0) restrict readonly buffer EzIn { float ez_in[]; };
layout(std430, binding = 3) restrict writeonly buffer EzOut { float ez_out[]; };
float ld_ez(ivec2 p) { return ez_in[CELL(p)]; }
void st_ez(ivec2 p, float v) { ez_out[CELL(p)] = v; }
#if H_PLANAR
layout(std430, binding = 1) restrict readonly buffer HxIn { float hx_in[]; };
layout(std430, binding = 2) restrict readonly buffer HyIn { float hy_in[]; };
layout(std430, binding = 4) restrict writeonly buffer HxOut { float hx_out[]; };
layout(std430, binding = 5) restrict writeonly buffer HyOut { float hy_out[]; };
vec2 ld_h(ivec2 p) { return vec2(hx_in[CELL(p)], hy_in[CELL(p)]); }
void st_h(ivec2 p, vec2 v)
{
    hx_out[CELL(p)] = v.x;
    hy_out[CELL(p)] = v.y;
}
#else
layout(std430, binding = 1) restrict readonly buffer HIn { vec2 h_in[]; };
layout(std430, binding = 4) restrict writeonly buffer HOut { vec2 h_out[]; };
vec2 ld_h(ivec2 p) { return h_in[CELL(p)]; }
void st_h(ivec2 p, vec2 v) { h_out[CELL(p)] = v; }
#endif

#else /* the images and textures */
layout(binding = 3, r32f) restrict writeonly uniform image2D ez_out;
void st_ez(ivec2 p, float v) { imageStore(ez_out, p, vec4(v, 0.0, 0.0, 0.0)); }
#if H_PLANAR
layout(binding = 4, r32f) restrict writeonly uniform image2D hx_out;
layout(binding = 5, r32f) restrict writeonly uniform image2D hy_out;
void st_h(ivec2 p, vec2 v)
{
    imageStore(hx_out, p, vec4(v.x, 0.0, 0.0, 0.0));
    imageStore(hy_out, p, vec4(v.y, 0.0, 0.0, 0.0));
}
#else
layout(binding = 4, rg32f) restrict writeonly uniform image2D h_out;
void st_h(ivec2 p, vec2 v) { imageStore(h_out, p, vec4(v, 0.0, 0.0)); }
#endif

#if ACCESS == ACCESS_IMAGE
layout(binding = 0, r32f) restrict readonly uniform image2D ez_in;
float ld_ez(ivec2 p) { return imageLoad(ez_in, p).x; }
#if H_PLANAR
layout(binding = 1, r32f) restrict readonly uniform image2D hx_in;
layout(binding = 2, r32f) restrict readonly uniform image2D hy_in;
vec2 ld_h(ivec2 p) { return vec2(imageLoad(hx_in, p).x, imageLoad(hy_in, p).x); }
#else
layout(binding = 1, rg32f) restrict readonly uniform image2D h_in;
vec2 ld_h(ivec2 p) { return imageLoad(h_in, p).xy; }
#endif

#else /* ACCESS_TEX */
layout(binding = 8) uniform sampler2D ez_in;
float ld_ez(ivec2 p) { return texelFetch(ez_in, p, 0).r; }
#if H_PLANAR
layout(binding = 9) uniform sampler2D hx_in;
layout(binding = 10) uniform sampler2D hy_in;
vec2 ld_h(ivec2 p) { return vec2(texelFetch(hx_in, p, 0).r, texelFetch(hy_in, p, 0).r); }
#else
layout(binding = 9) uniform sampler2D h_in;
vec2 ld_h(ivec2 p) { return texelFetch(h_in, p, 0).rg; }
#endif
#endif
#endif
