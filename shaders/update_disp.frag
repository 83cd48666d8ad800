/* update_disp.frag - gl, dispersive cells: the disp pass, between the H pass
 * and the E pass.  The render target is the other texture of the
 * disp_state pair (RGBA32F, DISP_NT texels per dispersive cell, DISP_W cells
 * per row; update2d.glsl, "dispersive cells"): each fragment is texel t of
 * cell k, computes the whole D-E update of the cell (disp_update, the
 * statements of cpu/update2d.inc update_disp) from the old state, Ez^n and
 * the new H, and writes its own four floats of the new state.  The update
 * is so done DISP_NT times per cell, with the same bits each time: a
 * fragment has one output texel per target, and one target keeps the pass
 * simple whatever the number of poles (a few cells, a few flops).  The E
 * pass then takes the new stored Ez (float 0 of texel 0) for the cell. */
uniform sampler2D ez_tex;    /* Ez^n */
uniform sampler2D h_tex;     /* (Hx, Hy)^{n+1/2} */
uniform usampler2D mat_tex;  /* material index per cell */

out vec4 state_out;

float slot_value(uint k) { return 0.0; }

void main()
{
    const ivec2 f = ivec2(gl_FragCoord.xy);
    const int t = f.x % DISP_NT, k = f.x / DISP_NT + f.y * DISP_W;
    if (k >= NDISP) {
        state_out = vec4(0.0);
        return;
    }
    float s[DISP_NS];
    disp_load(k, s);
    disp_update(k, ez_tex, h_tex, mat_tex, s);
    state_out = vec4(s[4 * t], s[4 * t + 1], s[4 * t + 2], s[4 * t + 3]);
}
