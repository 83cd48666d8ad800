/* gather.comp - gl-compute: the monitors' gather of one step (gather.glsl)
 * as one small dispatch, an invocation per sample: sample q's bits go to
 * rows[row_base + q] of a storage buffer of [rows][NSAMPLES] words, the
 * layout read_samples hands out, so the host reads a batch back with one
 * glGetBufferSubData straight into its destination (gl2d.c). */
layout(local_size_x = GATHER_LOCAL) in;

uniform sampler2D ez_tex; /* Ez^t */
uniform sampler2D h_tex;  /* (Hx, Hy)^(t-1/2) */
layout(std430, binding = 1) readonly buffer SampleList { uvec2 sample_list[]; }; /* (cell, field) */
layout(std430, binding = 2) writeonly buffer Rows { uint rows[]; };
uniform uint row_base; /* this step's row times NSAMPLES */

void main()
{
    const uint q = gl_GlobalInvocationID.x;
    if (q >= uint(NSAMPLES))
        return;
    rows[row_base + q] = sample_bits(ez_tex, h_tex, sample_list[q]);
}
