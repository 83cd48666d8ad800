/* update_e.frag - the E pass: Ez^{n+1} from Ez^n and (Hx, Hy)^{n+1/2}, one
 * fragment per cell into the other texture of the R32F pair, then this step's
 * source-slot value (tabulated on the host, in double, rounded once to float:
 * model_slot_values_f) for PEC and dielectric cells.  The arithmetic is
 * ez_cell() in update2d.glsl (cpu/update2d.inc, update_e_row + apply_slots),
 * with the CPML terms (psi from update_psi_e.frag), Mur walls and the point
 * source where the scene has them, and the DFT samples of the result at the
 * first DFT_E frequencies (update_dft.frag does the others, if any). */
uniform sampler2D ez_tex;          /* Ez^n, R32F */
uniform sampler2D h_tex;           /* (Hx, Hy)^{n+1/2}, RG32F */
uniform usampler2D mat_tex;        /* material index per cell, R8UI */
uniform usampler2D slot_tex;       /* slot index per cell of the slots' bounding box, R32UI */
uniform samplerBuffer slot_values; /* this batch's slot values, R32F, step-major */
uniform int slot_base;             /* this step's first value in slot_values */

layout(location = 0) out float ez_out;
#if DFT
/* the running DFT as render targets 1 .. DFT_E beside Ez: (re, im) of the
 * final Ez at frequencies 0 .. DFT_E-1, layers of the other array texture */
layout(binding = 11) uniform sampler2DArray dft_tex; /* (re, im) so far, RG32F, layer k */
uniform float dft_wr[DFT_E], dft_wi[DFT_E];         /* this step's weights */
layout(location = 1) out vec2 dft_out[DFT_E];
#endif

float slot_value(uint k) { return texelFetch(slot_values, slot_base + int(k)).r; }

void main()
{
    const ivec2 p = ivec2(gl_FragCoord.xy);
    const float ez = ez_cell(ez_tex, h_tex, mat_tex, slot_tex, p);
    ez_out = ez;
#if DFT
    for (int k = 0; k < DFT_E; k++) {
        const vec2 acc = texelFetch(dft_tex, ivec3(p, k), 0).rg;
        dft_out[k] = dft_on ? dft_step(acc, ez, dft_wr[k], dft_wi[k]) : acc;
    }
#endif
}
