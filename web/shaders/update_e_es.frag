/* update_e_es.frag - the page's E pass: shaders/update_e.frag without the
 * texture buffer (GLSL ES 3.00 has no samplerBuffer) and without the DFT.
 * Ez^{n+1} from Ez^n and (Hx, Hy)^{n+1/2}, one fragment per cell into the
 * other texture of the R32F pair, then this step's source-slot value
 * (computed by the page in double, rounded once to float, as
 * model_slot_values_f) for PEC and dielectric cells: ez_cell() of
 * shaders/update2d.glsl, the same function the desktop pass calls.  The
 * slot values of the step lie in a 2D R32F texture, SLOT_W per row. */
uniform sampler2D ez_tex;      /* Ez^n, R32F */
uniform sampler2D h_tex;       /* (Hx, Hy)^{n+1/2}, RG32F */
uniform usampler2D mat_tex;    /* material index per cell, R8UI */
uniform usampler2D slot_tex;   /* slot index per cell of the slots' bounding box, R32UI */
uniform sampler2D slot_values; /* this step's slot values, R32F, SLOT_W a row */

layout(location = 0) out float ez_out;

float slot_value(uint k)
{
    return texelFetch(slot_values, ivec2(int(k) % SLOT_W, int(k) / SLOT_W), 0).r;
}

void main()
{
    ez_out = ez_cell(ez_tex, h_tex, mat_tex, slot_tex, ivec2(gl_FragCoord.xy));
}
