/* inc_probe.comp - core/incident.h's functions at given arguments, their
 * double results' bits out (gl/values.c gl_incident_probe, for the tests
 * that compare them with the host's).  Point k: arg[10 k ..] (what: 0
 * inc_sin(a0), 1 inc_exp(a0), 2 inc_at(w, a0, a1, a2), 3 inc_hnode(w,
 * int(a3), a0, a1, a2), 4 inc_eslot_value(w, int(a3), int(a4), a5, a6, a7,
 * a0, a1, a2), 5 inc_hslot_value(w, int(a3), int(a4), int(a5), a6, a7, a8,
 * a0, a1, a2), 6 inc_to_float(a0) (its bits in the low word)). */
layout(local_size_x = 64) in;
layout(std430, binding = 3) readonly buffer ProbeIn {
    inc_wave w;
    double arg[];
};
layout(std430, binding = 6) writeonly buffer ProbeOut { uvec2 res[]; };
uniform uint npoints;
uniform int what;

void main()
{
    const uint k = gl_GlobalInvocationID.x;
    if (k >= npoints)
        return;
    const uint b = 10u * k;
    precise double v = 0.0LF;
    if (what == 0)
        v = inc_sin(arg[b]);
    else if (what == 1)
        v = inc_exp(arg[b]);
    else if (what == 2)
        v = inc_at(w, arg[b], arg[b + 1u], arg[b + 2u]);
    else if (what == 3)
        v = inc_hnode(w, int(arg[b + 3u]), arg[b], arg[b + 1u], arg[b + 2u]);
    else if (what == 4)
        v = inc_eslot_value(w, int(arg[b + 3u]), int(arg[b + 4u]), arg[b + 5u], arg[b + 6u],
                            arg[b + 7u], arg[b], arg[b + 1u], arg[b + 2u]);
    else if (what == 5)
        v = inc_hslot_value(w, int(arg[b + 3u]), int(arg[b + 4u]), int(arg[b + 5u]),
                            arg[b + 6u], arg[b + 7u], arg[b + 8u], arg[b], arg[b + 1u],
                            arg[b + 2u]);
    if (what == 6)
        res[k] = uvec2(floatBitsToUint(inc_to_float(arg[b])), 0u);
    else
        res[k] = unpackDouble2x32(v);
}
