/* update_psi_h.frag - gl only, CPML: the new H psi of one slab texel, drawn
 * before the H pass into the other texture of a small ping-pong pair shaped
 * like the slabs (a render target must match the size of the others drawn
 * with it, so psi gets passes of its own).  cpu/update2d.inc, update_h_row:
 *   axis 0, psi_hxy (NX x 2 PML_N), texel (i, side PML_N + k), Hx row j:
 *       d = Ez(i, j+1) - Ez(i, j);   psi = by psi + cy d   (profile yh at j)
 *   axis 1, psi_hyx (2 PML_N x NY), texel (side PML_N + k, j), Hy column i:
 *       d = Ez(i+1, j) - Ez(i, j);   psi = bx psi + cx d   (profile xh at i)
 * with j (or i) = k on the left or bottom side and k + n-1-PML_N on the
 * other; every texel of these textures is a slab cell.  The H pass then
 * reads the new psi (psi_hxy_new in update2d.glsl) and computes the same d
 * with the same statement. */
uniform sampler2D ez_tex;                    /* Ez^n */
layout(binding = 10) uniform sampler2D psi_old; /* psi^{n-1/2} of this axis */
uniform int axis;                            /* 0: psi_hxy, 1: psi_hyx */

out float psi_out;

float slot_value(uint k) { return 0.0; }

void main()
{
    const ivec2 t = ivec2(gl_FragCoord.xy);
    float psi = texelFetch(psi_old, t, 0).r;
    if (axis == 0) {
        const int side = t.y / PML_N, k = t.y - side * PML_N;
        const int j = side == 0 ? k : k + NY - 1 - PML_N;
        const float ez_c = texelFetch(ez_tex, ivec2(t.x, j), 0).r;
        const float ez_n = texelFetch(ez_tex, ivec2(t.x, j + 1), 0).r;
        const vec3 bci = pml_coef(PROF_YH, j);
        psi = yee_psi(psi, bci.x, bci.y, yee_diff(ez_n, ez_c));
    } else {
        const int side = t.x / PML_N, k = t.x - side * PML_N;
        const int i = side == 0 ? k : k + NX - 1 - PML_N;
        const float ez_c = texelFetch(ez_tex, ivec2(i, t.y), 0).r;
        const float ez_e = texelFetch(ez_tex, ivec2(i + 1, t.y), 0).r;
        const vec3 bci = pml_coef(PROF_XH, i);
        psi = yee_psi(psi, bci.x, bci.y, yee_diff(ez_e, ez_c));
    }
    psi_out = psi;
}
