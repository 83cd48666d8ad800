/* texbuf.comp - bench only (gl_bench texbuf, gl/texbuf.c; issue 14, item 1):
 * the engine's fused one-step dispatch (update_he.comp) for a vacuum PEC box,
 * and a plain copy of the three fields, written once over the access
 * functions ld_ez, ld_h, st_ez, st_h of texbuf_access.glsl (which the host
 * prepends), so that storage buffers, images and textures run the same text.
 *   KERNEL 0  one step: update_he.comp's scheme (each group's new H and a
 *             one-cell halo to the west and south in shared memory, then
 *             its Ez) and arithmetic (update2d.glsl's h_box and ez_box:
 *             h_cell and ez_k of a vacuum cell, material 0, no slot)
 *   KERNEL 1  copy: Ez, Hx, Hy of each cell read once and written once, the
 *             memory floor of each access path (24 bytes a cell)
 */
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

/* no slots (update2d.glsl declares it, ez_k calls it) */
float slot_value(uint k) { return 0.0; }

#if KERNEL == 0
/* new H of the tile at [1 + y][1 + x]; row 0 / column 0 are the halo */
shared vec2 hs[LOCAL_Y + 1][LOCAL_X + 1];

/* h_cell() of a vacuum PEC box: the loads it makes, then h_box(). */
vec2 h_new(ivec2 p)
{
    const float ez_c = ld_ez(p);
    const float ez_n = p.y <= NY - 2 ? ld_ez(p + ivec2(0, 1)) : 0.0;
    const float ez_e = p.x <= NX - 2 ? ld_ez(p + ivec2(1, 0)) : 0.0;
    return h_box(ld_h(p), p, ez_c, ez_n, ez_e);
}

void main()
{
    const ivec2 l = ivec2(gl_LocalInvocationID.xy);
    const ivec2 p = ivec2(gl_WorkGroupID.xy) * ivec2(LOCAL_X, LOCAL_Y) + l;
    const bool inside = p.x < NX && p.y < NY;
    if (inside)
        hs[l.y + 1][l.x + 1] = h_new(p);
    if (l.x == 0 && p.x >= 1 && p.y < NY)
        hs[l.y + 1][0] = h_new(p - ivec2(1, 0));
    if (l.y == 0 && p.y >= 1 && p.x < NX)
        hs[0][l.x + 1] = h_new(p - ivec2(0, 1));
    barrier();
    if (!inside)
        return;
    const vec2 h = hs[l.y + 1][l.x + 1];
    st_h(p, h);
    st_ez(p, ez_box(ld_ez(p), 0u, p, h, hs[l.y + 1][l.x].y, hs[l.y][l.x + 1].x));
}

#else
void main()
{
    const ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x < NX && p.y < NY) {
        st_ez(p, ld_ez(p));
        st_h(p, ld_h(p));
    }
}
#endif
