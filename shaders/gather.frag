/* gather.frag - gl: the monitors' gather of one step (gather.glsl) as a tiny
 * fragment pass.  The sample list is an RG32UI texture of W x H texels
 * (sample q at texel (q mod W, q / W): one row, or a band of H rows where
 * NSAMPLES exceeds the widest texture); the rows target is an R32UI texture
 * of W x (rows H) texels, and step r of the batch draws its band, texel rows
 * r H .. r H + H-1, with the viewport on that band.  The host reads the
 * whole batch back with one glReadPixels (gl2d.c, gl_read_samples). */
uniform sampler2D ez_tex;                             /* Ez^t, R32F */
uniform sampler2D h_tex;                              /* (Hx, Hy)^(t-1/2), RG32F */
layout(binding = 14) uniform usampler2D sample_list;  /* (cell, field) per sample, RG32UI */
uniform int row0;                                     /* this step's first texel row */

out uint value;

void main()
{
    const ivec2 p = ivec2(gl_FragCoord.xy);
    value = sample_bits(ez_tex, h_tex, texelFetch(sample_list, ivec2(p.x, p.y - row0), 0).rg);
}
