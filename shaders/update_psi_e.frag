/* update_psi_e.frag - gl only, CPML: the new E psi of one slab texel, drawn
 * after the H pass and before the E pass (see update_psi_h.frag for why psi
 * has passes of its own).  cpu/update2d.inc, update_e_row, with the new H:
 *   axis 0, psi_ezy (NX x 2 PML_N), texel (i, side PML_N + k), row j:
 *       dx = Hx(i, j+1/2) - Hx(i, j-1/2);   psi = by psi + cy dx  (ye at j)
 *   axis 1, psi_ezx (2 PML_N x NY), texel (side PML_N + k, j), column i:
 *       dy = Hy(i+1/2, j) - Hy(i-1/2, j);   psi = bx psi + cx dy  (xe at i)
 * E slabs use storage columns k = 1 .. PML_N-1 and only the interior
 * 1 .. n-2 across; other texels keep their 0. */
uniform sampler2D h_tex;                     /* (Hx, Hy)^{n+1/2} */
layout(binding = 10) uniform sampler2D psi_old; /* psi^n of this axis */
uniform int axis;                            /* 0: psi_ezy, 1: psi_ezx */

out float psi_out;

float slot_value(uint k) { return 0.0; }

void main()
{
    const ivec2 t = ivec2(gl_FragCoord.xy);
    float psi = texelFetch(psi_old, t, 0).r;
    if (axis == 0) {
        const int side = t.y / PML_N, k = t.y - side * PML_N;
        const int j = side == 0 ? k : k + NY - 1 - PML_N;
        if (k >= 1 && t.x >= 1 && t.x <= NX - 2) {
            const float hx_c = texelFetch(h_tex, ivec2(t.x, j), 0).r;
            const float hx_s = texelFetch(h_tex, ivec2(t.x, j - 1), 0).r;
            const vec3 bci = pml_coef(PROF_YE, j);
            psi = yee_psi(psi, bci.x, bci.y, yee_diff(hx_c, hx_s));
        }
    } else {
        const int side = t.x / PML_N, k = t.x - side * PML_N;
        const int i = side == 0 ? k : k + NX - 1 - PML_N;
        if (k >= 1 && t.y >= 1 && t.y <= NY - 2) {
            const float hy_c = texelFetch(h_tex, ivec2(i, t.y), 0).g;
            const float hy_w = texelFetch(h_tex, ivec2(i - 1, t.y), 0).g;
            const vec3 bci = pml_coef(PROF_XE, i);
            psi = yee_psi(psi, bci.x, bci.y, yee_diff(hy_c, hy_w));
        }
    }
    psi_out = psi;
}
