/* update_disp.comp - gl-compute, dispersive cells: the disp dispatch,
 * between the H and the E dispatch.  One invocation per dispersive cell k
 * (a DISP_W x rows grid of them) loads the cell's DISP_NT state texels from
 * the disp_state image, runs the D-E update (disp_update of update2d.glsl,
 * cpu/update2d.inc update_disp) from Ez^n and the new H, and stores the new
 * state in place: no other invocation touches these texels.  The E dispatch
 * then reads the new stored Ez (float 0 of texel 0) through disp_state. */
layout(local_size_x = 64, local_size_y = 1) in;

uniform sampler2D ez_tex;    /* Ez^n */
uniform sampler2D h_tex;     /* (Hx, Hy)^{n+1/2} */
uniform usampler2D mat_tex;  /* material index per cell */

float slot_value(uint k) { return 0.0; }

void main()
{
    const ivec2 g = ivec2(gl_GlobalInvocationID.xy);
    const int k = g.x + g.y * DISP_W;
    if (g.x >= DISP_W || k >= NDISP)
        return;
    float s[DISP_NS];
    disp_load(k, s);
    disp_update(k, ez_tex, h_tex, mat_tex, s);
    for (int u = 0; u < DISP_NT; u++)
        imageStore(disp_img, disp_texel(k, u),
                   vec4(s[4 * u], s[4 * u + 1], s[4 * u + 2], s[4 * u + 3]));
}
