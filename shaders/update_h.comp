/* update_h.comp - the H pass as a compute dispatch: the same h_cell() of
 * update2d.glsl as update_h.frag, read through texelFetch, written with
 * imageStore into the other texture of the RG32F pair; the CPML psi of the
 * cell (psi_hxy_img, psi_hyx_img) is updated in place by this invocation. */
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

uniform sampler2D h_tex;  /* (Hx, Hy)^{n-1/2} */
uniform sampler2D ez_tex; /* Ez^n */
layout(rg32f) uniform writeonly image2D h_out;

float slot_value(uint k) { return 0.0; }

void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= NX || p.y >= NY)
        return;
    imageStore(h_out, p, vec4(h_cell(h_tex, ez_tex, p), 0.0, 0.0));
}
