/* copy.comp - bench only: device-to-device copy through a compute shader,
 * 16 bytes per invocation, grid-stride loop; the memory-bandwidth ceiling the
 * compute engine is compared with. */
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
uniform uint n; /* vec4s */

void main()
{
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < n; i += stride)
        dst[i] = src[i];
}
