/* update_h.frag - the H pass: (Hx, Hy)^{n+1/2} from (Hx, Hy)^{n-1/2} and Ez^n,
 * one fragment per cell into the other texture of the RG32F pair.  The
 * arithmetic is h_cell() in update2d.glsl (cpu/update2d.inc, update_h_row),
 * with the new CPML psi from update_psi_h.frag and the conformal cut edges
 * where the scene has them. */
uniform sampler2D h_tex;  /* (Hx, Hy)^{n-1/2}, RG32F */
uniform sampler2D ez_tex; /* Ez^n, R32F */

out vec2 h_out;

float slot_value(uint k) { return 0.0; }

void main()
{
    h_out = h_cell(h_tex, ez_tex, ivec2(gl_FragCoord.xy));
}
