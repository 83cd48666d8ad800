/* update_k.frag - K time steps in one fragment pass (gl with K > 1).
 *
 * The fragment pass of the H100 is bound by render-target writes (12 bytes
 * per cell and step for Ez, Hx, Hy), not by arithmetic or reads.  Here each
 * fragment advances its own cell K steps and writes Ez and (Hx, Hy) once (two
 * render targets), so the bytes written per step fall K-fold.  To do so it
 * recomputes, from the textures, the small neighbourhood its result depends
 * on, level by level, with the same arithmetic as update2d.glsl's h_cell /
 * ez_cell, so every value has the bits of the one-step passes.
 *
 * Dependencies (offsets (a, b) from the fragment's cell):
 *   Ez^{n+s}(q)     needs Hy^{n+s-1/2} at q, q-(1,0), Hx at q, q-(0,1), Ez^{n+s-1}(q)
 *   Hx^{n+s-1/2}(q) needs Ez^{n+s-1} at q, q+(0,1) and Hx^{n+s-3/2}(q)
 *   Hy^{n+s-1/2}(q) needs Ez^{n+s-1} at q, q+(1,0) and Hy^{n+s-3/2}(q)
 * so Ez^{n+s} is needed on the diamond |a| + |b| <= K - s (Ez reaches its
 * four neighbours through H in one step).  Two paths:
 *
 *   fast_path()  fragments whose whole cone is interior vacuum (most of
 *                them): no bounds, material or slot lookups; straight-line
 *                code generated for this K by gl/kgen.c and appended to this
 *                file, one statement per needed value (docs/gl.md)
 *   border_path() fragments near the grid's edges or an object: the same
 *                diamonds in (2K+1)^2 arrays, row by row, with the edge
 *                rules (no Hx on the last row, no Hy on the last column,
 *                Ez on interior cells only, cells outside the grid
 *                skipped) and the slots; for K > 2 the loops' bound is the
 *                uniform k_rt, so no compiler unrolls them into a huge
 *                shader (K <= 2: constants, small enough to unroll)
 *
 * No `#pragma optionNV(unroll all)`: with it (and the cone in arrays on both
 * paths) K = 3 kept the H100 from finishing (docs/performance.md);
 * KPASS_UNROLL = 1 (TEXFDTD_GL_KPASS_UNROLL=1) rebuilds that configuration,
 * for that experiment only.
 *
 * Generated #defines beyond update2d.glsl's: K (steps per pass), NSLOTS (slot
 * values per step in slot_values), SLOT_X1, SLOT_Y1 (the far corner of the
 * objects' bounding box), KPASS_UNROLL. */
uniform sampler2D ez_tex;          /* Ez^n */
uniform sampler2D h_tex;           /* (Hx, Hy)^{n-1/2} */
uniform usampler2D mat_tex;        /* material index per cell */
uniform usampler2D slot_tex;       /* slot index per cell of the slots' bounding box */
uniform samplerBuffer slot_values; /* this batch's slot values, step-major */
uniform int slot_base;             /* step n's first value in slot_values */

layout(location = 0) out float ez_out; /* Ez^{n+K} */
layout(location = 1) out vec2 h_out;   /* (Hx, Hy)^{n+K-1/2} */

#define D (2 * K + 1)
#define AT(a, b) (((b) + K) * D + ((a) + K))

int sub_step; /* 0 .. K-1: which step's slot values */

float slot_value(uint k) { return texelFetch(slot_values, slot_base + sub_step * NSLOTS + int(k)).r; }

bool in_hex(int a, int b, int r) { return abs(a) <= r && abs(b) <= r && abs(a + b) <= r; }

bool in_hset(int a, int b, int r) { return in_hex(a, b, r) || in_hex(a + 1, b, r) || in_hex(a, b + 1, r); }

bool in_grid(ivec2 q) { return q.x >= 0 && q.y >= 0 && q.x < NX && q.y < NY; }

/* The neighbourhood of p is interior vacuum: |a|, |b| <= K stays within
 * 1 .. N-2 and outside the objects' bounding box. */
bool vacuum_interior(ivec2 p)
{
    return p.x >= K + 1 && p.y >= K + 1 && p.x <= NX - K - 2 && p.y <= NY - K - 2
           && (p.x + K < SLOT_X0 || p.x - K > SLOT_X1 || p.y + K < SLOT_Y0 || p.y - K > SLOT_Y1);
}

#if KPASS_UNROLL
/* The withdrawn configuration of 2026-11-22 (TEXFDTD_GL_KPASS_UNROLL=1, for
 * the experiment of docs/performance.md only): the cone in (2K+1)^2 arrays
 * on both paths, constant loop bounds, and the NVIDIA driver asked to unroll
 * every loop, the border path's with its lookups included. */
#pragma optionNV(unroll all)
void fast_path(ivec2 p)
{
    float ez[D * D];
    vec2 h[D * D];
    for (int b = -K; b <= K; b++)
        for (int a = -K; a <= K; a++) {
            if (in_hex(a, b, K))
                ez[AT(a, b)] = texelFetch(ez_tex, p + ivec2(a, b), 0).r;
            if (in_hset(a, b, K - 1))
                h[AT(a, b)] = texelFetch(h_tex, p + ivec2(a, b), 0).rg;
        }
    for (int s = 1; s <= K; s++) {
        const int r = K - s;
        for (int b = -K; b <= K; b++)
            for (int a = -K; a <= K; a++)
                if (in_hset(a, b, r)) {
                    const float ez_c = ez[AT(a, b)];
                    h[AT(a, b)].x = yee_h_sub(h[AT(a, b)].x, ch, ez[AT(a, b + 1)], ez_c);
                    h[AT(a, b)].y = yee_h_add(h[AT(a, b)].y, ch, ez[AT(a + 1, b)], ez_c);
                }
        for (int b = -K; b <= K; b++)
            for (int a = -K; a <= K; a++)
                if (in_hex(a, b, r))
                    ez[AT(a, b)] = ez_curl(ez[AT(a, b)], 0u, h[AT(a, b)].y, h[AT(a - 1, b)].y,
                                           h[AT(a, b)].x, h[AT(a, b - 1)].x);
    }
    ez_out = ez[AT(0, 0)];
    h_out = h[AT(0, 0)];
}
/* The border path as it was: the hexagons, in arrays. */
void border_path(ivec2 p, out float ez_p, out vec2 h_p)
{
    float ez[D * D];
    vec2 h[D * D];
    for (int b = -K; b <= K; b++)
        for (int a = -K; a <= K; a++) {
            const ivec2 q = p + ivec2(a, b);
            const bool g = in_grid(q);
            ez[AT(a, b)] = g && in_hex(a, b, K) ? texelFetch(ez_tex, q, 0).r : 0.0;
            h[AT(a, b)] = g && in_hset(a, b, K - 1) ? texelFetch(h_tex, q, 0).rg : vec2(0.0);
        }
    for (int s = 1; s <= K; s++) {
        const int r = K - s;
        sub_step = s - 1;
        /* H^{n+s-1/2} on HSET(r): h_cell() of update2d.glsl, from the arrays */
        for (int b = -K; b <= K; b++)
            for (int a = -K; a <= K; a++) {
                const ivec2 q = p + ivec2(a, b);
                if (!in_hset(a, b, r) || !in_grid(q) || q == COUNTER_TEXEL)
                    continue;
                const float ez_c = ez[AT(a, b)];
                if (q.y <= NY - 2)
                    h[AT(a, b)].x = yee_h_sub(h[AT(a, b)].x, ch, ez[AT(a, b + 1)], ez_c);
                if (q.x <= NX - 2)
                    h[AT(a, b)].y = yee_h_add(h[AT(a, b)].y, ch, ez[AT(a + 1, b)], ez_c);
            }
        /* Ez^{n+s} on HEX(r): ez_cell_h() of update2d.glsl */
        for (int b = -K; b <= K; b++)
            for (int a = -K; a <= K; a++) {
                const ivec2 q = p + ivec2(a, b);
                if (!in_hex(a, b, r) || !in_grid(q))
                    continue;
                const bool interior = q.x >= 1 && q.x <= NX - 2 && q.y >= 1 && q.y <= NY - 2;
                ez[AT(a, b)] = ez_k(ez[AT(a, b)], mat_tex, slot_tex, q, h[AT(a, b)],
                                    interior ? h[AT(a - 1, b)].y : 0.0,
                                    interior ? h[AT(a, b - 1)].x : 0.0);
            }
    }
    ez_p = ez[AT(0, 0)];
    h_p = h[AT(0, 0)];
}
#else
#if K <= 2
#define k_rt K /* a border path small enough for a driver to unroll if it likes */
#else
uniform int k_rt; /* K as a uniform: the compiler cannot unroll the border path */
#endif
/* fast_path(p): the same updates with no bounds, material or slot lookups,
 * as straight-line code that gl/kgen.c generates for this K and appends to
 * this file: one statement per needed value, no arrays, no loops. */
void fast_path(ivec2 p);

/* The border path: the diamond cone of kgen.c in arrays, row by row with
 * each row's bounds (no test per cell of the square), with the edge rules
 * and the slots.  At level s, r = K - s:
 *   Hx on D(r) and D(r) - (0, 1): rows -r-1 .. r, |a| <= r - min(|b|, |b+1|)
 *   Hy on D(r) and D(r) - (1, 0): rows -r .. r, -(r - |b|) - 1 <= a <= r - |b|
 *   Ez on D(r):                   rows -r .. r, |a| <= r - |b|
 * (D(r) the diamond |a| + |b| <= r); the inputs on D(K), which holds all
 * that level 1 reads. */
void border_path(ivec2 p, out float ez_p, out vec2 h_p)
{
    float ez[D * D];
    vec2 h[D * D];
    for (int b = -k_rt; b <= k_rt; b++)
        for (int a = abs(b) - k_rt; a <= k_rt - abs(b); a++) {
            const ivec2 q = p + ivec2(a, b);
            const bool g = in_grid(q);
            ez[AT(a, b)] = g ? texelFetch(ez_tex, q, 0).r : 0.0;
            h[AT(a, b)] = g ? texelFetch(h_tex, q, 0).rg : vec2(0.0);
        }
    for (int s = 1; s <= k_rt; s++) {
        const int r = k_rt - s;
        sub_step = s - 1;
        /* H^{n+s-1/2}: h_cell() of update2d.glsl, from the arrays */
        for (int b = -r - 1; b <= r; b++) {
            const int w = r - min(abs(b), abs(b + 1));
            for (int a = -w; a <= w; a++) {
                const ivec2 q = p + ivec2(a, b);
                if (in_grid(q) && q != COUNTER_TEXEL && q.y <= NY - 2)
                    h[AT(a, b)].x = yee_h_sub(h[AT(a, b)].x, ch, ez[AT(a, b + 1)], ez[AT(a, b)]);
            }
        }
        for (int b = -r; b <= r; b++)
            for (int a = abs(b) - r - 1; a <= r - abs(b); a++) {
                const ivec2 q = p + ivec2(a, b);
                if (in_grid(q) && q != COUNTER_TEXEL && q.x <= NX - 2)
                    h[AT(a, b)].y = yee_h_add(h[AT(a, b)].y, ch, ez[AT(a + 1, b)], ez[AT(a, b)]);
            }
        /* Ez^{n+s}: ez_cell_h() of update2d.glsl */
        for (int b = -r; b <= r; b++)
            for (int a = abs(b) - r; a <= r - abs(b); a++) {
                const ivec2 q = p + ivec2(a, b);
                if (!in_grid(q))
                    continue;
                const bool interior = q.x >= 1 && q.x <= NX - 2 && q.y >= 1 && q.y <= NY - 2;
                ez[AT(a, b)] = ez_k(ez[AT(a, b)], mat_tex, slot_tex, q, h[AT(a, b)],
                                    interior ? h[AT(a - 1, b)].y : 0.0,
                                    interior ? h[AT(a, b - 1)].x : 0.0);
            }
    }
    ez_p = ez[AT(0, 0)];
    h_p = h[AT(0, 0)];
}
#endif

void main()
{
    const ivec2 p = ivec2(gl_FragCoord.xy);
    if (vacuum_interior(p)) {
        fast_path(p);
        return;
    }
    float e;
    vec2 hp;
    border_path(p, e, hp);
    ez_out = e;
    if (p == COUNTER_TEXEL) /* K more H passes */
        hp.x = uintBitsToFloat(floatBitsToUint(hp.x) + uint(K));
    h_out = hp;
}
