/* probe_denormals.frag - what the fragment stage does with denormals.  Output
 * (R32UI pair): the bits of a * b (a = 2^-126, b = 0.5: 2^-127 if denormal
 * results are kept, 0 if flushed) and of d + z (d = 2^-127, z = 0: d if
 * denormal inputs are kept, 0 if treated as zero).  Uniforms, so nothing is
 * folded at compile time. */
uniform float a, b, d, z;

out uvec2 bits;

void main()
{
    precise float r0 = a * b;
    precise float r1 = d + z;
    bits = uvec2(floatBitsToUint(r0), floatBitsToUint(r1));
}
