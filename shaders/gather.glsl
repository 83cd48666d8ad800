/* gather.glsl - the monitors' gather (core/monitor.h): after every time step
 * the values of model->samples are copied into the next row of a batch on
 * the GPU, and the host reads the rows back in batches (read_samples), never
 * once per step.  Shared by gather.frag (gl) and gather.comp (gl-compute).
 * The host prepends #version and the #defines
 *     NX, NY                         grid size
 *     NSAMPLES                       model->nsamples
 *     FIELD_EZ, FIELD_HX, FIELD_HY   core/engine.h's enum field values
 *     GATHER_LOCAL                   gather.comp's work-group size
 * and `#line 100001 1` before this file, `#line 1 0` before the pass.
 *
 * A sample (struct sample of core/model.h: a field and a linear cell
 * c = i + NX j) is one uvec2 (c, field); field > FIELD_HY marks the padding
 * of the last texture row of gather.frag's sample list, which reads 0.  The
 * value is copied as its bits (floatBitsToUint) into an integer target: no
 * float operation touches it, so nothing can flush a denormal or change a
 * NaN, and the row holds the same bits as the CPU engine's memcpy
 * (cpu_samples_take).  After step t the textures hold the scattered fields
 * Ez^t and (Hx, Hy)^(t-1/2), as the CPU engine's arrays do.
 *
 * The H texel (NX-1, NY-1) holds the step counter in its R channel
 * (update2d.glsl), not Hx: Hx there is never updated and is 0 in the CPU
 * engine, so a probe of Hx at that cell reads 0, as gl_read_field does. */
uint sample_bits(sampler2D ez_tex, sampler2D h_tex, uvec2 s)
{
    if (s.y > uint(FIELD_HY))
        return 0u;
    const ivec2 c = ivec2(int(s.x % uint(NX)), int(s.x / uint(NX)));
    if (s.y == uint(FIELD_EZ))
        return floatBitsToUint(texelFetch(ez_tex, c, 0).r);
    const vec2 h = texelFetch(h_tex, c, 0).rg;
    if (s.y == uint(FIELD_HX))
        return c == ivec2(NX - 1, NY - 1) ? 0u : floatBitsToUint(h.x);
    return floatBitsToUint(h.y);
}
