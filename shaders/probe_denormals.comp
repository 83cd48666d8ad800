/* probe_denormals.comp - the same probe as probe_denormals.frag, in the
 * compute stage, written with imageStore. */
layout(local_size_x = 1, local_size_y = 1) in;

uniform float a, b, d, z;
layout(rg32ui) uniform writeonly uimage2D bits;

void main()
{
    precise float r0 = a * b;
    precise float r1 = d + z;
    imageStore(bits, ivec2(0, 0), uvec4(floatBitsToUint(r0), floatBitsToUint(r1), 0u, 0u));
}
