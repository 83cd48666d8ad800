/* check_finite.comp - the blow-up check of gl and gl-compute: the first
 * cell of Ez, Hx and Hy whose value is NaN or Inf, without reading the
 * fields back.  The host prepends #version and
 *     NX, NY        grid size
 *     CHECK_LOCAL   the work group is CHECK_LOCAL x CHECK_LOCAL invocations
 * and clears first[] to 0xffffffff before the dispatch; afterwards first[f]
 * is the lowest linear index i + NX j of a bad value of field f (0 Ez,
 * 1 Hx, 2 Hy), or 0xffffffff where there is none.  NX NY is at most
 * GL_MAX_TEXTURE_SIZE^2, far below 0xffffffff.
 *
 * NaN and Inf are the values whose exponent bits are all ones; the test is on
 * the bits, which no driver can optimise away as it may isnan() and isinf().
 *
 * The H texel (NX-1, NY-1) holds the step counter in its R channel (float
 * bits 0x3f800000 + H passes, update2d.glsl): it is not Hx, and Hx there is 0
 * in the CPU engine, so it is skipped.  Its G channel is Hy of the last
 * column, never updated, read back as it is by gl_read_field: checked.
 *
 * Each work group takes the minimum in shared memory first, so a field that
 * is NaN everywhere costs one buffer atomic per group and field, not one per
 * cell.
 */
layout(local_size_x = CHECK_LOCAL, local_size_y = CHECK_LOCAL) in;

uniform sampler2D ez_tex; /* R32F: Ez */
uniform sampler2D h_tex;  /* RG32F: (Hx, Hy), counter texel (NX-1, NY-1) */

layout(std430, binding = 0) buffer FirstBad { uint first[3]; };

shared uint group_first[3];

bool not_finite(float v) { return (floatBitsToUint(v) & 0x7f800000u) == 0x7f800000u; }

void main()
{
    if (gl_LocalInvocationIndex < 3u)
        group_first[gl_LocalInvocationIndex] = 0xffffffffu;
    memoryBarrierShared();
    barrier();
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x < NX && p.y < NY) {
        const uint q = uint(p.x) + uint(NX) * uint(p.y);
        if (not_finite(texelFetch(ez_tex, p, 0).r))
            atomicMin(group_first[0], q);
        const vec2 h = texelFetch(h_tex, p, 0).rg;
        if (p != ivec2(NX - 1, NY - 1) && not_finite(h.x))
            atomicMin(group_first[1], q);
        if (not_finite(h.y))
            atomicMin(group_first[2], q);
    }
    memoryBarrierShared();
    barrier();
    if (gl_LocalInvocationIndex < 3u && group_first[gl_LocalInvocationIndex] != 0xffffffffu)
        atomicMin(first[gl_LocalInvocationIndex], group_first[gl_LocalInvocationIndex]);
}
