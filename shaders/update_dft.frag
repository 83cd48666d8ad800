/* update_dft.frag - gl only: the running DFT of Ez ([monitor.dft]) at the
 * frequencies the E pass has no render target for.  The E pass writes Ez and
 * the sums of frequencies 0 .. DFT_E-1 (8 render targets in all, the most
 * every GL 4.3 driver has); each pass of this shader then reads the new
 * Ez^{n+1} and the old sums of frequencies dft_first .. dft_first+DFT_G-1
 * (layers of one RG32F array texture) and writes their new sums, one render
 * target per layer of the other array texture:
 *     re_k = re_k + wr_k Ez^{n+1};   im_k = im_k + wi_k Ez^{n+1}
 * (dft_step() in update2d.glsl, cpu/update2d.inc's dft_range, same rounding).
 * It runs only on steps with n+1 > start_step: before that every sum is 0 in
 * both textures of the pair and needs no copying.  Targets beyond the last
 * frequency are not attached (their outputs go nowhere). */
uniform sampler2D ez_tex;                            /* Ez^{n+1}, R32F */
layout(binding = 11) uniform sampler2DArray dft_tex; /* the sums so far, layer k */
uniform int dft_first;                               /* this pass's first frequency */
uniform float dft_wr[DFT_G], dft_wi[DFT_G];          /* weights of dft_first + k */

layout(location = 0) out vec2 dft_out[DFT_G];

float slot_value(uint k) { return 0.0; }

void main()
{
    const ivec2 p = ivec2(gl_FragCoord.xy);
    const float ez = texelFetch(ez_tex, p, 0).r;
    for (int k = 0; k < DFT_G; k++) {
        const int layer = dft_first + k;
        const vec2 acc = layer < DFT_NF ? texelFetch(dft_tex, ivec3(p, layer), 0).rg : vec2(0.0);
        dft_out[k] = dft_step(acc, ez, dft_wr[k], dft_wi[k]);
    }
}
