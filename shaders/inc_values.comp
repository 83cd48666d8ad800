/* inc_values.comp - a batch's source-slot values on the GPU, for both GL
 * engines (gl/values.c): entry k of the slot-value buffers' layout (E slots,
 * cut edges, H slots, dispersive cells; gl2d_internal.h) for step n, in
 * double with core/incident.h's functions (shaders/incident.glsl), rounded
 * once to float as the host's (float) rounds: the host's bits
 * (model_slot_values_f and friends).  One invocation per entry and step:
 * x, y the entry (y only where one dimension has too few work groups),
 * z the step.
 *
 * #defines: NX, INC_LOCAL (work group), STRIDE (entries per step), NHOST
 * (host values per step: the b^n of the cut edges, with a division, and of
 * the TE cut cells, copied into place).
 *
 * Entry k is (cell i + NX j, type << 16 | row): type 0 an E slot (row: its
 * material's coefficients), 1 and 2 an H slot at the Hx / Hy node (row: the
 * H-node material's, after the E materials'), 3 a dispersive cell's
 * Ei^{n+1}, 4 host value `cell` of the step, 5 a dispersive TE edge's
 * Hi^{n+1/2} at the Hx (row 0) or Hy (row 1) node.  A row of coef[] is pec,
 * lossy, cinc (hinc), cinc_diff, cinc_sum.
 */
layout(local_size_x = INC_LOCAL) in;

layout(std430, binding = 3) readonly buffer IncCoef {
    inc_wave w;
    double coef[];
};
layout(std430, binding = 4) readonly buffer IncEntries { uvec2 entry[]; };
layout(std430, binding = 5) readonly buffer IncHost { float host_v[]; };
layout(std430, binding = 6) writeonly buffer IncOut { float out_v[]; };

uniform int t_first; /* the step of work group z = 0 */
uniform int s_first; /* its row in the batch */
uniform uint groups_x;

void main()
{
    const uint k = (gl_WorkGroupID.y * groups_x + gl_WorkGroupID.x) * uint(INC_LOCAL)
                   + gl_LocalInvocationID.x;
    if (k >= uint(STRIDE))
        return;
    const uint s = uint(s_first) + gl_WorkGroupID.z;
    const uvec2 e = entry[k];
    const uint type = e.y >> 16u, row = (e.y & 0xffffu) * 5u;
    const uint o = s * uint(STRIDE) + k;
    if (type == 4u) {
        out_v[o] = host_v[s * uint(NHOST) + e.x];
        return;
    }
    const double n = double(t_first + int(gl_WorkGroupID.z));
    const double i = double(e.x % uint(NX)), j = double(e.x / uint(NX));
    precise double v;
    if (type == 0u)
        v = inc_eslot_value(w, int(coef[row]), int(coef[row + 1u]), coef[row + 2u],
                            coef[row + 3u], coef[row + 4u], i, j, n);
    else if (type == 3u)
        v = inc_at(w, i, j, i_add(n, 1.0LF));
    else if (type == 5u)
        v = inc_hnode(w, int(e.y & 1u), i, j, i_add(n, 0.5LF));
    else
        v = inc_hslot_value(w, int(type - 1u), int(coef[row]), int(coef[row + 1u]),
                            coef[row + 2u], coef[row + 3u], coef[row + 4u], i, j, n);
    out_v[o] = inc_to_float(v);
}
