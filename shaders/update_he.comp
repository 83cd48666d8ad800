/* update_he.comp - one time step in one compute dispatch (gl-compute, fused):
 * each work group computes the new H of its tile and of a one-cell halo to
 * the west and south (recomputed, with the same h_cell() and so the same bits
 * as the neighbouring group's own), keeps it in shared memory, writes its own
 * H, then the new Ez of its tile from the shared H.  Reads Ez^n, H^{n-1/2},
 * material; writes H^{n+1/2}, Ez^{n+1}: 25 bytes per cell instead of the 37 of
 * two dispatches.  No group writes what another reads (ping-pong pairs). */
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

uniform sampler2D ez_tex;          /* Ez^n */
uniform sampler2D h_tex;           /* (Hx, Hy)^{n-1/2} */
uniform usampler2D mat_tex;        /* material index per cell */
uniform usampler2D slot_tex;       /* slot index per cell of the slots' bounding box */
uniform samplerBuffer slot_values; /* this batch's slot values, step-major */
uniform int slot_base;             /* this step's first value in slot_values */
layout(rg32f) uniform writeonly image2D h_out;
layout(r32f) uniform writeonly image2D ez_out;

/* new H of the tile at [1 + y][1 + x]; row 0 / column 0 are the halo */
shared vec2 hs[LOCAL_Y + 1][LOCAL_X + 1];

float slot_value(uint k) { return texelFetch(slot_values, slot_base + int(k)).r; }

void main()
{
    const ivec2 l = ivec2(gl_LocalInvocationID.xy);
    const ivec2 p = ivec2(gl_WorkGroupID.xy) * ivec2(LOCAL_X, LOCAL_Y) + l;
    const bool inside = p.x < NX && p.y < NY;
    if (inside)
        hs[l.y + 1][l.x + 1] = h_cell(h_tex, ez_tex, p);
    if (l.x == 0 && p.x >= 1 && p.y < NY)
        hs[l.y + 1][0] = h_cell(h_tex, ez_tex, p - ivec2(1, 0));
    if (l.y == 0 && p.y >= 1 && p.x < NX)
        hs[0][l.x + 1] = h_cell(h_tex, ez_tex, p - ivec2(0, 1));
    barrier();
    if (!inside)
        return;
    const vec2 h = hs[l.y + 1][l.x + 1];
    imageStore(h_out, p, vec4(h, 0.0, 0.0));
    const float ez = ez_cell_h(ez_tex, mat_tex, slot_tex, p, h, hs[l.y + 1][l.x].y, hs[l.y][l.x + 1].x);
    imageStore(ez_out, p, vec4(ez, 0.0, 0.0, 0.0));
}
