/* update_tb.comp - K whole time steps per compute dispatch (gl-compute,
 * temporal blocking; docs/gl.md, "Temporal blocking").
 *
 * Each work group owns a tile of TILE_X x TILE_Y cells.  It loads the tile
 * and a halo of K cells on every side (a region of RX x RY cells) from the
 * textures once: Ez^n, (Hx, Hy)^{n-1/2}, the material index and slot
 * number, each invocation those of the region cells it owns, into
 * registers.  Then it runs K steps on chip, each one H half (h_box),
 * barrier(), E half (ez_box, the source slot, the point source), barrier(),
 * in cpu/update2d.inc's order and with the arithmetic of update2d.glsl
 * (core/yee.h, `precise`).  What a cell's neighbours read goes through
 * shared memory: Ez (ez_s, written by the load and each E half), Hx and Hy
 * (hx_s, hy_s, written by each H half).  At the end it writes the tile's
 * Ez^{n+K} and H^{n+K-1/2} with imageStore into the other texture of each
 * pair: 12 bytes written per cell per K steps, 13 read per region cell.
 *
 * Why a K-cell halo is enough.  Region coordinates x in [0, RX):
 *   H(x) needs Ez(x), Ez(x+1) (and Ez one row up), so H is right on one
 *   cell fewer at the east (north) edge than the Ez it came from;
 *   Ez(x) needs H(x), H(x-1) (and H one row down), so Ez is right on one
 *   cell fewer at the west (south) edge than that H.
 * Starting from everything right on [0, RX), step s (1..K) gives the right
 *   H on [s-1, RX-s)   and the right Ez on [s, RX-s),
 * so after K steps both are right on [K, RX-K) = the tile.  Each half-step
 * updates exactly that range (cells outside it keep stale values that no
 * right value reads).  Neighbouring groups recompute each other's halo
 * with the same functions of the same inputs, hence the same bits.
 *
 * Cells outside the grid hold 0 and are never updated: the update rules (no
 * Hx on the last row, no Hy on the last column, Ez on interior cells only)
 * never read them.  No group writes what another reads (ping-pong pairs).
 *
 * Beyond a PEC box with slots (each under its #if below): the point source,
 * CPML (each node's psi in registers, ping-ponged), Mur walls (a halo of
 * K + 1), the DFT (accumulated at the end, in step order) and the monitors
 * (gathered from shared memory after each step).
 *
 * Generated #defines beyond update2d.glsl's: K (steps per dispatch),
 * TILE_X, TILE_Y (the tile), STRIDE (slot values per step in slot_values),
 * MONITORS (1: gather the monitors' samples), NSAMPLES, FIELD_EZ, FIELD_HX
 * (core/engine.h's enum field). */
/* Full unrolling only for the plain PEC box: with the CPML, Mur, the DFT or
 * the monitors inside, the NVIDIA driver (580.159.04, H100) was still
 * compiling the unrolled shader after 120 s (the k-step fragment pass's
 * hang of 2026-11-22 had the same cause: docs/performance.md). */
#if !(CPML || MUR || DFT || MONITORS)
#pragma optionNV(unroll all)
#endif
layout(local_size_x = LOCAL_X, local_size_y = LOCAL_Y) in;

#ifndef TEXBUF_ACCESS
/* The field access: texelFetch from the current texture of each pair,
 * imageStore into the other (gl_bench texbuf builds this file with
 * texbuf_access.glsl's storage-buffer and image versions of these four
 * functions instead: issue 14, item 1). */
uniform sampler2D ez_tex;          /* Ez^n */
uniform sampler2D h_tex;           /* (Hx, Hy)^{n-1/2} */
layout(rg32f) uniform writeonly image2D h_out;
layout(r32f) uniform writeonly image2D ez_out;
float ld_ez(ivec2 p) { return texelFetch(ez_tex, p, 0).r; }
vec2 ld_h(ivec2 p) { return texelFetch(h_tex, p, 0).rg; }
void st_ez(ivec2 p, float v) { imageStore(ez_out, p, vec4(v, 0.0, 0.0, 0.0)); }
void st_h(ivec2 p, vec2 v) { imageStore(h_out, p, vec4(v, 0.0, 0.0)); }
#endif
uniform usampler2D mat_tex;        /* material index per cell */
uniform usampler2D slot_tex;       /* slot index per cell of the slots' bounding box */
uniform samplerBuffer slot_values; /* this batch's slot values, step-major */
uniform int slot_base;             /* step n's first value in slot_values */
#if POINT_SRC
uniform float point_vk[K];         /* the point source's value of steps n .. n+K-1 */
#endif
#if MONITORS
/* The monitors (docs/gl.md, "Monitors"): after each of the K steps the
 * group copies the bits of the samples that lie in its tile from shared
 * memory into that step's row of the batch, as gather.comp does from the
 * textures after a one-step dispatch.  sample_list: model->samples as
 * (cell, field); rows: [rows][NSAMPLES]; tile_samples: words [0, ntiles]
 * the first entry of each tile g (g = row of tiles * tiles per row + column;
 * the last word: the end), then the entries, sample numbers q. */
layout(std430, binding = 1) readonly buffer SampleList { uvec2 sample_list[]; };
layout(std430, binding = 2) writeonly buffer Rows { uint rows[]; };
layout(std430, binding = 3) readonly buffer TileSamples { uint tile_samples[]; };
uniform uint row_base; /* step n+1's row times NSAMPLES */
#endif

#if CPML
/* The CPML psi: each invocation keeps those of its cells in registers like
 * their fields (they are the cell's own state: no neighbour reads them),
 * loaded from the current texture of each psi pair (update2d.glsl's
 * samplers psi_*_tex: this pass is built with PSI_IN_PLACE 0) and written
 * for the tile's cells into the other one (these images).  Texels of nodes
 * that are never updated (the walls, a slab's unused column) are written by
 * no one and hold 0 in both textures. */
layout(binding = 2, r32f) uniform writeonly image2D psi_hxy_out;
layout(binding = 3, r32f) uniform writeonly image2D psi_hyx_out;
layout(binding = 4, r32f) uniform writeonly image2D psi_ezy_out;
layout(binding = 5, r32f) uniform writeonly image2D psi_ezx_out;

bool interior(ivec2 p) { return p.x >= 1 && p.x <= NX - 2 && p.y >= 1 && p.y <= NY - 2; }

/* Whether node p has a psi of each kind, and its texel t (update2d.glsl's
 * slab_h, slab_e: as h_cell and ez_sweep select them). */
bool hxy_at(ivec2 p, out ivec2 t)
{
    int k = 0;
    const int s = p.y <= NY - 2 ? slab_h(NY, p.y, k) : -1;
    t = psi_y_texel(p.x, s, k);
    return s >= 0;
}
bool hyx_at(ivec2 p, out ivec2 t)
{
    int k = 0;
    const int s = p.x <= NX - 2 ? slab_h(NX, p.x, k) : -1;
    t = psi_x_texel(p.y, s, k);
    return s >= 0;
}
bool ezx_at(ivec2 p, out ivec2 t)
{
    int k = 0;
    const int s = interior(p) ? slab_e(NX, p.x, k) : -1;
    t = psi_x_texel(p.y, s, k);
    return s >= 0;
}
bool ezy_at(ivec2 p, out ivec2 t)
{
    int k = 0;
    const int s = interior(p) ? slab_e(NY, p.y, k) : -1;
    t = psi_y_texel(p.x, s, k);
    return s >= 0;
}
#endif

#if DFT
/* The running DFT of Ez ([monitor.dft]; update_e.comp's, cpu/update2d.inc's
 * order): the sums of a cell are touched by the invocation that owns it in
 * its tile only, so they are updated in place, once per dispatch: each
 * owned tile cell keeps its K new Ez (ez_hist), and at the end every
 * frequency's sums take them in step order.  dft_wk: (wr, wi) of step s
 * (1..K), frequency k at (s-1) DFT_NF + k; bit s-1 of dft_on_k: step s
 * accumulates (n+s > start). */
layout(binding = 6, rg32f) uniform image2DArray dft_img;
uniform vec2 dft_wk[K * DFT_NF];
uniform uint dft_on_k;
#endif

#if MUR
/* Mur walls: a wall node's new value needs its neighbour's new sweep, which
 * needs H one cell further in: an east or north wall reaches two cells
 * west or south in one step, so the halo is one cell wider (docs/gl.md). */
#define HALO (K + 1)
#else
#define HALO K                      /* the halo's width: K cells, see above */
#endif
#define RX (TILE_X + 2 * HALO)       /* the region: the tile and its halo */
#define RY (TILE_Y + 2 * HALO)
#define NT (LOCAL_X * LOCAL_Y)       /* invocations per group */
#define CPT ((RX * RY + NT - 1) / NT) /* region cells per invocation */

/* the region, row-major: cell (x, y) at y RX + x; what the neighbours read
 * (each invocation keeps its own cells' values in registers) */
shared float ez_s[RX * RY], hx_s[RX * RY], hy_s[RX * RY];

int sub_step; /* 0 .. K-1: which step's slot values */

float slot_value(uint k) { return texelFetch(slot_values, slot_base + sub_step * STRIDE + int(k)).r; }

bool in_grid(ivec2 p) { return p.x >= 0 && p.y >= 0 && p.x < NX && p.y < NY; }

/* region cell l lies in [a, RX - b) x [a, RY - b) */
bool in_range(ivec2 l, int a, int b) { return l.x >= a && l.y >= a && l.x < RX - b && l.y < RY - b; }

void main()
{
    /* invocation t owns region cells t, t + NT, t + 2 NT, ... */
    const int t = int(gl_LocalInvocationIndex);
    /* the grid cell of region cell (0, 0) */
    const ivec2 o = ivec2(gl_WorkGroupID.xy) * ivec2(TILE_X, TILE_Y) - ivec2(HALO);
    /* the owned cells: Ez, H, material index and slot number */
    float ez_r[CPT];
    vec2 h_r[CPT];
    uint mt[CPT], sl[CPT];
#if CPML
    vec2 psi_h[CPT], psi_e[CPT]; /* (hxy, hyx), (ezx, ezy) */
#endif
#if DFT
    float ez_hist[CPT][K]; /* the owned tile cells' Ez^{n+s}, s = 1..K */
#endif
#if MUR
    /* Mur walls: the neighbour's material and its old Ez (taken in the H
     * half, before its owner writes the new one) */
    uint mnb[CPT];
    float e1[CPT];
#endif
    for (int q = 0; q < CPT; q++) {
        const int c = t + q * NT;
        ez_r[q] = 0.0;
        h_r[q] = vec2(0.0);
        mt[q] = 0u;
        sl[q] = 0u;
#if MUR
        mnb[q] = 0u;
        e1[q] = 0.0;
#endif
#if CPML
        psi_h[q] = vec2(0.0);
        psi_e[q] = vec2(0.0);
#endif
        if (c < RX * RY) {
            const ivec2 p = o + ivec2(c % RX, c / RX);
            if (in_grid(p)) {
                ez_r[q] = ld_ez(p);
                h_r[q] = ld_h(p);
                mt[q] = texelFetch(mat_tex, p, 0).r;
                if (mt[q] != 0u)
                    sl[q] = texelFetch(slot_tex, p - ivec2(SLOT_X0, SLOT_Y0), 0).r;
#if MUR
                ivec2 n;
                if (mur_wall(p, n))
                    mnb[q] = texelFetch(mat_tex, n, 0).r;
#endif
#if CPML
                ivec2 u;
                if (hxy_at(p, u))
                    psi_h[q].x = texelFetch(psi_hxy_tex, u, 0).r;
                if (hyx_at(p, u))
                    psi_h[q].y = texelFetch(psi_hyx_tex, u, 0).r;
                if (ezx_at(p, u))
                    psi_e[q].x = texelFetch(psi_ezx_tex, u, 0).r;
                if (ezy_at(p, u))
                    psi_e[q].y = texelFetch(psi_ezy_tex, u, 0).r;
#endif
            }
            ez_s[c] = ez_r[q];
        }
    }
    barrier();
#if MONITORS
    const uint g = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    const uint s_first = tile_samples[g], s_end = tile_samples[g + 1u];
#endif
    for (int s = 1; s <= K; s++) {
        sub_step = s - 1;
        /* H^{n+s-1/2} on [s-1, R-s): reads Ez of the cell, its east and north */
        for (int q = 0; q < CPT; q++) {
            const int c = t + q * NT;
            const ivec2 l = ivec2(c % RX, c / RX);
            const ivec2 p = o + l;
            if (c < RX * RY && in_range(l, s - 1, s) && in_grid(p)) {
#if CPML
                h_r[q] = h_box_pml(h_r[q], p, ez_r[q], ez_s[c + RX], ez_s[c + 1], psi_h[q]);
#else
                h_r[q] = h_box(h_r[q], p, ez_r[q], ez_s[c + RX], ez_s[c + 1]);
#endif
#if MUR
                /* a wall the E half updates: its neighbour's old Ez */
                ivec2 n;
                if (in_range(l, s, s) && mur_wall(p, n))
                    e1[q] = ez_s[c + (n.y - p.y) * RX + (n.x - p.x)];
#endif
                hx_s[c] = h_r[q].x;
                hy_s[c] = h_r[q].y;
            }
        }
        barrier();
        /* Ez^{n+s} on [s, R-s): reads H of the cell, its west and south */
        for (int q = 0; q < CPT; q++) {
            const int c = t + q * NT;
            const ivec2 l = ivec2(c % RX, c / RX);
            const ivec2 p = o + l;
            if (c < RX * RY && in_range(l, s, s) && in_grid(p)) {
#if CPML
                float ez = ez_box_pml(ez_r[q], mt[q], p, h_r[q], hy_s[c - 1], hx_s[c - RX], psi_e[q]);
#else
                float ez = ez_box(ez_r[q], mt[q], p, h_r[q], hy_s[c - 1], hx_s[c - RX]);
#endif
#if MUR
                /* a wall: from its neighbour's old and new Ez, the new one
                 * its sweep (before its slot), recomputed here from the
                 * new H around it (ez_cell's ez_sweep of n) */
                ivec2 n;
                if (mur_wall(p, n)) {
                    const int cn = c + (n.y - p.y) * RX + (n.x - p.x);
                    /* (max: in the array also where n lies on the region's
                     * edge, a wall no right cell reads) */
                    const float en = ez_box(e1[q], mnb[q], n, vec2(hx_s[cn], hy_s[cn]),
                                            hy_s[max(cn - 1, 0)], hx_s[max(cn - RX, 0)]);
                    ez = yee_mur(e1[q], mur_k, en, ez_r[q]);
                }
#endif
                if (mt[q] != 0u)
                    ez = apply_slot(ez, kind[mt[q]], slot_value(sl[q]));
#if POINT_SRC
                if (p == ivec2(POINT_X, POINT_Y))
                    ez = yee_add(ez, point_vk[s - 1]);
#endif
                ez_r[q] = ez;
                ez_s[c] = ez;
#if DFT
                ez_hist[q][s - 1] = ez;
#endif
            }
        }
        barrier();
#if MONITORS
        /* the samples of the tile after step s: Ez^{n+s} and H^{n+s-1/2},
         * right on the tile (the counter texel's Hx reads 0, as in
         * gather.glsl); the same branch for the whole group */
        if (s_first < s_end) {
            for (uint i = s_first + uint(t); i < s_end; i += uint(NT)) {
                const uint q = tile_samples[i];
                const uvec2 smp = sample_list[q];
                const ivec2 p = ivec2(int(smp.x % uint(NX)), int(smp.x / uint(NX)));
                const int c = (p.y - o.y) * RX + (p.x - o.x);
                const uint v = smp.y == uint(FIELD_EZ) ? floatBitsToUint(ez_s[c])
                               : smp.y != uint(FIELD_HX) ? floatBitsToUint(hy_s[c])
                               : p == COUNTER_TEXEL    ? 0u
                                                       : floatBitsToUint(hx_s[c]);
                rows[row_base + uint(s - 1) * uint(NSAMPLES) + q] = v;
            }
            barrier(); /* read before the next H half writes hx_s, hy_s */
        }
#endif
    }
    /* the tile, [HALO, R-HALO): its Ez^{n+K} and H^{n+K-1/2} */
    for (int q = 0; q < CPT; q++) {
        const int c = t + q * NT;
        const ivec2 l = ivec2(c % RX, c / RX);
        const ivec2 p = o + l;
        if (c < RX * RY && in_range(l, HALO, HALO) && in_grid(p)) {
            st_h(p, h_r[q]);
            st_ez(p, ez_r[q]);
#if DFT
            for (int k = 0; k < DFT_NF; k++) {
                const ivec3 u = ivec3(p, k);
                vec2 acc = imageLoad(dft_img, u).rg;
                for (int s = 0; s < K; s++)
                    if ((dft_on_k & (1u << uint(s))) != 0u)
                        acc = dft_step(acc, ez_hist[q][s], dft_wk[s * DFT_NF + k].x,
                                       dft_wk[s * DFT_NF + k].y);
                imageStore(dft_img, u, vec4(acc, 0.0, 0.0));
            }
#endif
#if CPML
            ivec2 u;
            if (hxy_at(p, u))
                imageStore(psi_hxy_out, u, vec4(psi_h[q].x, 0.0, 0.0, 0.0));
            if (hyx_at(p, u))
                imageStore(psi_hyx_out, u, vec4(psi_h[q].y, 0.0, 0.0, 0.0));
            if (ezx_at(p, u))
                imageStore(psi_ezx_out, u, vec4(psi_e[q].x, 0.0, 0.0, 0.0));
            if (ezy_at(p, u))
                imageStore(psi_ezy_out, u, vec4(psi_e[q].y, 0.0, 0.0, 0.0));
#endif
        }
    }
}
