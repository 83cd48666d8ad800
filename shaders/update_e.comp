/* update_e.comp - the E pass as a compute dispatch: the same ez_cell() of
 * update2d.glsl as update_e.frag, written with imageStore into the other
 * texture of the R32F pair; the CPML psi of the cell (psi_ezx_img,
 * psi_ezy_img) and its DFT sums are updated in place by this invocation. */
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

uniform sampler2D ez_tex;          /* Ez^n */
uniform sampler2D h_tex;           /* (Hx, Hy)^{n+1/2} */
uniform usampler2D mat_tex;        /* material index per cell */
uniform usampler2D slot_tex;       /* slot index per cell of the slots' bounding box */
uniform samplerBuffer slot_values; /* this batch's slot values, step-major */
uniform int slot_base;             /* this step's first value in slot_values */
layout(r32f) uniform writeonly image2D ez_out;
#if DFT
layout(binding = 6, rg32f) uniform image2D dft_img; /* (re, im), in place */
#endif

float slot_value(uint k) { return texelFetch(slot_values, slot_base + int(k)).r; }

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= NX || p.y >= NY)
        return;
    const float ez = ez_cell(ez_tex, h_tex, mat_tex, slot_tex, p);
    imageStore(ez_out, p, vec4(ez, 0.0, 0.0, 0.0));
#if DFT
    if (dft_on)
        imageStore(dft_img, p, vec4(dft_step(imageLoad(dft_img, p).rg, ez), 0.0, 0.0));
#endif
}
