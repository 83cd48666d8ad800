/* update_e.comp - the E pass as a compute dispatch: the same ez_cell() of
 * update2d.glsl as update_e.frag, written with imageStore into the other
 * texture of the R32F pair; the CPML psi of the cell (psi_ezx_img,
 * psi_ezy_img) and its DFT sums (all DFT_E = DFT_NF frequencies, layer k of
 * an rg32f array image) are updated in place by this invocation. */
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

uniform sampler2D ez_tex;          /* Ez^n */
uniform sampler2D h_tex;           /* (Hx, Hy)^{n+1/2} */
uniform usampler2D mat_tex;        /* material index per cell */
uniform usampler2D slot_tex;       /* slot index per cell of the slots' bounding box */
uniform samplerBuffer slot_values; /* this batch's slot values, step-major */
uniform int slot_base;             /* this step's first value in slot_values */
layout(r32f) uniform writeonly image2D ez_out;
#if DFT
layout(binding = 6, rg32f) uniform image2DArray dft_img; /* (re, im) per frequency, in place */
uniform float dft_wr[DFT_E], dft_wi[DFT_E];              /* this step's weights */
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
        for (int k = 0; k < DFT_E; k++) {
            const ivec3 q = ivec3(p, k);
            const vec2 acc = imageLoad(dft_img, q).rg;
            imageStore(dft_img, q, vec4(dft_step(acc, ez, dft_wr[k], dft_wi[k]), 0.0, 0.0));
        }
#endif
}
