/* update_wf.comp - K whole time steps per compute dispatch as a warp
 * wavefront (gl-compute, TEXFDTD_GLC_PATH=wavefront; docs/gl.md, "The warp
 * wavefront"): the GLSL version of cuda/cuda2d.cu's k_tb2 (TB2_ALL), for a
 * PEC box with source slots (PEC, dielectric, lossy) and the point source.
 *
 * A warp of 32 invocations (lanes, along x) walks up a strip of ROWS rows.
 * In iteration t, step s (1..K) works on row r1 - (s-1), r1 = j0 - K + t:
 * H then E, in cpu/update2d.inc's order and with the arithmetic of
 * update2d.glsl (h_box, ez_box, apply_slot, yee_add: core/yee.h,
 * `precise`), from what step s-1 made in this iteration (the row above) and
 * the previous one (this row).  So the K steps' rows live in registers: Ez
 * of the last two rows and H of the last row per step (EP, HX, HY).  The x
 * neighbours come from the next lane (H needs Ez of lane + 1: SHFL_DOWN)
 * and the previous one (E needs Hy of lane - 1: SHFL_UP); each step loses a
 * lane on each side, so a warp covers 32 columns and stores the middle
 * 32 - 2K; the rows likewise start K below the strip.  Cells outside the
 * grid compute garbage that no stored cell depends on (the update rules
 * never read them: no Hx on the last row, no Hy on the last column, Ez on
 * interior cells only).  No barrier between warps, no tile in shared
 * memory, no recomputed 2D halo: each cell is loaded once (13 bytes) and
 * stored once (12 bytes) per K steps, and a warp recomputes 2K of its 32
 * columns.
 *
 * The exchange between lanes, chosen at build time (SHUFFLE):
 *   1  GL_KHR_shader_subgroup (shuffle_relative), subgroup size 32 (checked
 *      by the host): subgroupShuffleDown/Up; lane and warp are
 *      gl_SubgroupInvocationID and gl_SubgroupID, so the lanes follow the
 *      subgroup's order whatever the driver's layout;
 *   2  GL_NV_shader_thread_shuffle: shuffleDownNV/UpNV(v, 1, 32); lane
 *      gl_LocalInvocationID.x, warp gl_LocalInvocationID.y (a row of 32 is a
 *      warp on NVIDIA: local_size_x = 32, warps in gl_LocalInvocationIndex
 *      order; assumed, as CUDA's blockDim.x = 32 is);
 *   0  no shuffles (Mesa's llvmpipe, other drivers): each exchange writes
 *      the value into a `shared` array, barrier(), reads the neighbour's
 *      (two arrays used in turn, so one barrier per exchange: the next
 *      write into an array follows the barrier of the other one, which
 *      every invocation reaches after its read).  The barriers need uniform
 *      control flow: every invocation of the group runs the same iterations
 *      (no early return; rows and columns outside the grid are not loaded
 *      or stored).  Lane 31's SHFL_DOWN and lane 0's SHFL_UP read their own
 *      value, as CUDA's; with the real shuffles they are undefined, and
 *      only feed lanes that are not stored.
 * The same statements either way, so llvmpipe tests the algorithm of the
 * GPU bit for bit.
 *
 * Generated #defines beyond update2d.glsl's: K (steps per dispatch), ROWS
 * (rows per strip), WF_WARPS (warps per work group), STRIDE (slot values per
 * step in slot_values), SHUFFLE (above; its #extension lines come before the
 * library, with the #defines).  Work group (32, WF_WARPS); group (b, g):
 * band b of 32 - 2K columns, strips g WF_WARPS .. + WF_WARPS - 1. */
/* the K steps unrolled (EP, HX, HY, MT indexed by constants: registers) */
#pragma optionNV(unroll all)
layout(local_size_x = 32, local_size_y = WF_WARPS) in;

uniform sampler2D ez_tex;          /* Ez^n */
uniform sampler2D h_tex;           /* (Hx, Hy)^{n-1/2} */
uniform usampler2D mat_tex;        /* material index per cell */
uniform usampler2D slot_tex;       /* slot index per cell of the slots' bounding box */
uniform samplerBuffer slot_values; /* this batch's slot values, step-major */
uniform int slot_base;             /* step n's first value in slot_values */
#if POINT_SRC
uniform float point_vk[K];         /* the point source's value of steps n .. n+K-1 */
#endif
layout(rg32f) uniform writeonly image2D h_out;
layout(r32f) uniform writeonly image2D ez_out;
/* ROWS + 2K - 1, set once by the host: a uniform, so that `unroll all`
 * (meant for the K steps, whose arrays must stay in registers) leaves the
 * walk up the strip a loop */
uniform int iters;

#if SHUFFLE == 1
#define LANE int(gl_SubgroupInvocationID)
#define WARP int(gl_SubgroupID)
#define SHFL_DOWN(v) subgroupShuffleDown(v, 1u)
#define SHFL_UP(v) subgroupShuffleUp(v, 1u)
#elif SHUFFLE == 2
#define LANE int(gl_LocalInvocationID.x)
#define WARP int(gl_LocalInvocationID.y)
#define SHFL_DOWN(v) shuffleDownNV(v, 1u, 32u)
#define SHFL_UP(v) shuffleUpNV(v, 1u, 32u)
#else
#define LANE int(gl_LocalInvocationID.x)
#define WARP int(gl_LocalInvocationID.y)
shared float xs_down[32 * WF_WARPS], xs_up[32 * WF_WARPS];
/* v of lane + 1 (lane 31: its own) */
float shfl_down(float v)
{
    const int me = int(gl_LocalInvocationIndex), lane = me & 31;
    xs_down[me] = v;
    memoryBarrierShared();
    barrier();
    return xs_down[me - lane + min(lane + 1, 31)];
}
/* v of lane - 1 (lane 0: its own) */
float shfl_up(float v)
{
    const int me = int(gl_LocalInvocationIndex), lane = me & 31;
    xs_up[me] = v;
    memoryBarrierShared();
    barrier();
    return xs_up[me - lane + max(lane - 1, 0)];
}
#define SHFL_DOWN(v) shfl_down(v)
#define SHFL_UP(v) shfl_up(v)
#endif

int sub_step; /* 0 .. K-1: which step's slot values */

float slot_value(uint k) { return texelFetch(slot_values, slot_base + sub_step * STRIDE + int(k)).r; }

void main()
{
    const int lane = LANE;
    const int band = int(gl_WorkGroupID.x);
    const int i = band * (32 - 2 * K) - K + lane;
    const int j0 = (int(gl_WorkGroupID.y) * WF_WARPS + WARP) * ROWS;
    const bool iin = i >= 0 && i < NX;
    const bool own = iin && lane >= K && lane < 32 - K;
    /* step s's results of the previous iteration: Ez^{n+s} of its row, H^{n+s-1/2} */
    float EP[K + 1], HX[K + 1], HY[K + 1];
    uint MT[K]; /* material of the rows steps 1..K work on */
    for (int s = 0; s <= K; s++) {
        EP[s] = 0.0;
        HX[s] = 0.0;
        HY[s] = 0.0;
    }
    for (int s = 0; s < K; s++)
        MT[s] = 0u;
    const int jstart = j0 - K, jend = min(j0 + ROWS, NY);
    float e0 = iin && jstart >= 0 && jstart < NY ? texelFetch(ez_tex, ivec2(i, jstart), 0).r : 0.0;
    /* the same count in every invocation (the barriers of SHUFFLE 0) */
    for (int t = 0; t < iters; t++) {
        const int r1 = jstart + t;
        const bool rok = iin && r1 >= 0 && r1 < NY;
        const float eup = iin && r1 + 1 >= 0 && r1 + 1 < NY ? texelFetch(ez_tex, ivec2(i, r1 + 1), 0).r
                                                            : 0.0;
        vec2 ho = rok ? texelFetch(h_tex, ivec2(i, r1), 0).rg : vec2(0.0);
        for (int s = K - 1; s > 0; s--)
            MT[s] = MT[s - 1];
        MT[0] = rok ? texelFetch(mat_tex, ivec2(i, r1), 0).r : 0u;
        float elo = e0, ehi = eup, en = 0.0;
        vec2 h = vec2(0.0);
        for (int s = 1; s <= K; s++) {
            sub_step = s - 1;
            const ivec2 p = ivec2(i, r1 - (s - 1));
            /* H^{n+s-1/2}: Ez of the cell, its north (this iteration's step
             * s-1) and its east (the next lane) */
            const float er = SHFL_DOWN(elo);
            h = h_box(ho, p, elo, ehi, er);
            /* Ez^{n+s}: H of the cell, Hy of its west (the previous lane),
             * Hx of its south (step s's previous row) */
            const float hyl = SHFL_UP(h.y);
            en = ez_box(elo, MT[s - 1], p, h, hyl, HX[s]);
            const uint m = MT[s - 1];
            if (m != 0u) /* a slot (only cells inside the grid have m > 0) */
                en = apply_slot(en, kind[m], slot_value(texelFetch(slot_tex, p - ivec2(SLOT_X0, SLOT_Y0), 0).r));
#if POINT_SRC
            if (p == ivec2(POINT_X, POINT_Y))
                en = yee_add(en, point_vk[s - 1]);
#endif
            /* what step s+1 reads: this step's previous row and this row */
            const float nlo = EP[s];
            const vec2 nh = vec2(HX[s], HY[s]);
            EP[s] = en;
            HX[s] = h.x;
            HY[s] = h.y;
            elo = nlo;
            ehi = en;
            ho = nh;
        }
        /* step K's row: Ez^{n+K}, H^{n+K-1/2} */
        const int rk = r1 - (K - 1);
        if (own && rk >= j0 && rk < jend) {
            imageStore(h_out, ivec2(i, rk), vec4(h, 0.0, 0.0));
            imageStore(ez_out, ivec2(i, rk), vec4(en, 0.0, 0.0, 0.0));
        }
        e0 = eup;
    }
}
