#!/usr/bin/env python3
"""bench/kpass_unroll.py - the withdrawn update_k.frag (the cone in arrays on
both paths, KPASS_UNROLL) with every loop written out in the text, constants
folded: what `#pragma optionNV(unroll all)` asks the NVIDIA driver to do, for
drivers that ignore the pragma (Mesa), to time the build of such a shader
(docs/performance.md, "k > 2 steps per fragment pass").  Never a test.

    bench/kpass_unroll.py K shaders/update_k.frag > DIR/update_k.frag
    (DIR a copy of shaders/ with core/yee.h and core/incident.h beside it)
    TEXFDTD_SHADER_DIR=DIR TEXFDTD_GL_KPASS_UNROLL=1 TEXFDTD_GL_STEPS_PER_PASS=K ...
"""
import sys, re
K = int(sys.argv[1]); src = open(sys.argv[2]).read()
def hexs(a, b, r): return abs(a) <= r and abs(b) <= r and abs(a + b) <= r
def hset(a, b, r): return hexs(a, b, r) or hexs(a + 1, b, r) or hexs(a, b + 1, r)
def AT(a, b): return (b + K) * (2 * K + 1) + (a + K)
o = []
o.append('void fast_path(ivec2 p)\n{\n    float ez[D * D];\n    vec2 h[D * D];\n')
for b in range(-K, K + 1):
    for a in range(-K, K + 1):
        if hexs(a, b, K): o.append(f'    ez[{AT(a,b)}] = texelFetch(ez_tex, p + ivec2({a}, {b}), 0).r;\n')
        if hset(a, b, K - 1): o.append(f'    h[{AT(a,b)}] = texelFetch(h_tex, p + ivec2({a}, {b}), 0).rg;\n')
for s in range(1, K + 1):
    r = K - s
    for b in range(-K, K + 1):
        for a in range(-K, K + 1):
            if hset(a, b, r):
                o.append(f'    {{ const float ez_c = ez[{AT(a,b)}]; h[{AT(a,b)}].x = yee_h_sub(h[{AT(a,b)}].x, ch, ez[{AT(a,b+1)}], ez_c); h[{AT(a,b)}].y = yee_h_add(h[{AT(a,b)}].y, ch, ez[{AT(a+1,b)}], ez_c); }}\n')
    for b in range(-K, K + 1):
        for a in range(-K, K + 1):
            if hexs(a, b, r):
                o.append(f'    ez[{AT(a,b)}] = ez_curl(ez[{AT(a,b)}], 0u, h[{AT(a,b)}].y, h[{AT(a-1,b)}].y, h[{AT(a,b)}].x, h[{AT(a,b-1)}].x);\n')
o.append('    ez_out = ez[AT(0, 0)];\n    h_out = h[AT(0, 0)];\n}\n\n')
o.append('void main()\n{\n    const ivec2 p = ivec2(gl_FragCoord.xy);\n    if (vacuum_interior(p)) {\n        fast_path(p);\n        return;\n    }\n    float ez[D * D];\n    vec2 h[D * D];\n')
for b in range(-K, K + 1):
    for a in range(-K, K + 1):
        o.append(f'    {{ const ivec2 q = p + ivec2({a}, {b}); const bool g = in_grid(q); ez[{AT(a,b)}] = g && {str(hexs(a,b,K)).lower()} ? texelFetch(ez_tex, q, 0).r : 0.0; h[{AT(a,b)}] = g && {str(hset(a,b,K-1)).lower()} ? texelFetch(h_tex, q, 0).rg : vec2(0.0); }}\n')
for s in range(1, K + 1):
    r = K - s
    o.append(f'    sub_step = {s-1};\n')
    for b in range(-K, K + 1):
        for a in range(-K, K + 1):
            if not hset(a, b, r): continue
            o.append(f'    {{ const ivec2 q = p + ivec2({a}, {b}); if (in_grid(q) && q != COUNTER_TEXEL) {{ const float ez_c = ez[{AT(a,b)}]; if (q.y <= NY - 2) h[{AT(a,b)}].x = yee_h_sub(h[{AT(a,b)}].x, ch, ez[{AT(a,b+1)}], ez_c); if (q.x <= NX - 2) h[{AT(a,b)}].y = yee_h_add(h[{AT(a,b)}].y, ch, ez[{AT(a+1,b)}], ez_c); }} }}\n')
    for b in range(-K, K + 1):
        for a in range(-K, K + 1):
            if not hexs(a, b, r): continue
            o.append(f'    {{ const ivec2 q = p + ivec2({a}, {b}); if (in_grid(q)) {{ const bool interior = q.x >= 1 && q.x <= NX - 2 && q.y >= 1 && q.y <= NY - 2; ez[{AT(a,b)}] = ez_k(ez[{AT(a,b)}], mat_tex, slot_tex, q, h[{AT(a,b)}], interior ? h[{AT(a-1,b)}].y : 0.0, interior ? h[{AT(a,b-1)}].x : 0.0); }} }}\n')
o.append('    ez_out = ez[AT(0, 0)];\n    vec2 hp = h[AT(0, 0)];\n    if (p == COUNTER_TEXEL)\n        hp.x = uintBitsToFloat(floatBitsToUint(hp.x) + uint(K));\n    h_out = hp;\n}\n')
head = src[:src.index('#if KPASS_UNROLL')]
print(head + ''.join(o))
