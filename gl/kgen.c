/* kgen.c - the straight-line GLSL of update_k.frag's vacuum fast path for K
 * steps per fragment pass, and what it costs.
 *
 * A fragment of the K-step pass advances its own cell K steps, so it must
 * recompute the neighbourhood its result depends on (docs/gl.md):
 *   Ez^{n+s}(a, b)     = yee_curl_add(Ez^{n+s-1}(a, b), c, Hy(a, b), Hy(a-1, b),
 *                                     Hx(a, b), Hx(a, b-1))     H at n+s-1/2
 *   Hx^{n+s-1/2}(a, b) = yee_h_sub(Hx^{n+s-3/2}(a, b), S, Ez(a, b+1), Ez(a, b))
 *   Hy^{n+s-1/2}(a, b) = yee_h_add(Hy^{n+s-3/2}(a, b), S, Ez(a+1, b), Ez(a, b))
 *                                                                 Ez at n+s-1
 * Walking these rules back from Ez^{n+K}, Hx and Hy of the fragment's own
 * cell (0, 0) marks every value the result needs: one Ez, Hx or Hy per
 * level s and cell, no more (the Hy of a cell west of the cone is needed,
 * its Hx is not).  Each needed value becomes one GLSL statement with a name
 * of its own (e<s>_<a>_<b>, x.., y..; offsets + K so they are not
 * negative), the inputs at level 0 become texel fetches.  No loops and no
 * arrays: nothing for the driver to unroll, every value a register (or a
 * spill the driver chooses), and a compile time that grows with the number
 * of statements, about K^3.  The earlier update_k.frag kept the cone in
 * (2K+1)^2 arrays and asked the NVIDIA driver to unroll every loop
 * (#pragma optionNV(unroll all)), the border path's with its material and
 * slot lookups included; docs/performance.md tells what that did for K = 3.
 *
 * The statements are ordered by the row they belong to plus twice their
 * level (a wavefront), so that a row's values die soon after they are made;
 * the generator checks that every operand is made before it is read. */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/util.h"
#include "gl/gl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KG_EZ, KG_HX, KG_HY, KG_N };

struct kgen {
    int k, d;          /* steps, and the side 2K+3 of the index box (a margin of 1) */
    bool gather;       /* level-0 inputs by textureGatherOffset, 2 x 2 texels at once */
    unsigned char *need; /* [s][comp][b][a]: 1 needed, 2 made */
    char *out;
    size_t len, cap;
    bool oom;
};

static unsigned char *cell(struct kgen *g, int s, int c, int a, int b)
{
    const int o = g->k + 1;
    return &g->need[(((size_t)s * KG_N + (size_t)c) * (size_t)g->d + (size_t)(b + o))
                        * (size_t)g->d
                    + (size_t)(a + o)];
}

static void emit(struct kgen *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char line[256];
    const int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (g->oom || n < 0 || (size_t)n >= sizeof line) {
        g->oom = true; /* (no statement is that long) */
        return;
    }
    if (g->len + (size_t)n + 1 > g->cap) {
        const size_t cap = (g->cap + (size_t)n + 1) * 2;
        char *p = realloc(g->out, cap);
        if (!p) {
            g->oom = true;
            return;
        }
        g->out = p;
        g->cap = cap;
    }
    memcpy(g->out + g->len, line, (size_t)n + 1);
    g->len += (size_t)n;
}

/* Mark what Ez^{n+K}, Hx and Hy of cell (0, 0) need, level by level. */
static void mark(struct kgen *g)
{
    const int k = g->k;
    *cell(g, k, KG_EZ, 0, 0) = *cell(g, k, KG_HX, 0, 0) = *cell(g, k, KG_HY, 0, 0) = 1;
    for (int s = k; s >= 1; s--) {
        for (int b = -k; b <= k; b++)
            for (int a = -k; a <= k; a++) {
                if (*cell(g, s, KG_EZ, a, b)) {
                    *cell(g, s - 1, KG_EZ, a, b) = 1;
                    *cell(g, s, KG_HY, a, b) = *cell(g, s, KG_HY, a - 1, b) = 1;
                    *cell(g, s, KG_HX, a, b) = *cell(g, s, KG_HX, a, b - 1) = 1;
                }
            }
        for (int b = -k; b <= k; b++)
            for (int a = -k; a <= k; a++) {
                if (*cell(g, s, KG_HX, a, b)) {
                    *cell(g, s - 1, KG_HX, a, b) = 1;
                    *cell(g, s - 1, KG_EZ, a, b + 1) = *cell(g, s - 1, KG_EZ, a, b) = 1;
                }
                if (*cell(g, s, KG_HY, a, b)) {
                    *cell(g, s - 1, KG_HY, a, b) = 1;
                    *cell(g, s - 1, KG_EZ, a + 1, b) = *cell(g, s - 1, KG_EZ, a, b) = 1;
                }
            }
    }
}

/* Operand (s, c, a, b) is made; false (a generator bug) if not. */
static bool made(struct kgen *g, int s, int c, int a, int b)
{
    return *cell(g, s, c, a, b) == 2;
}

#define NM(s, a, b) (s), (a) + g->k, (b) + g->k

/* Gather mode: the level-0 values of component c (Ez, Hx or Hy) in the 2 x 2
 * block of a fixed tiling from (-K, -K) that holds (a, b), by one
 * textureGatherOffset (its footprint at pc, the corner between the
 * fragment's texel and the next, is texels (0, 0) .. (1, 1) from the
 * offset; components x, y, z, w = (0, 1), (1, 1), (1, 0), (0, 0)). */
static void gather_block(struct kgen *g, int c, int a, int b, struct kpass_cost *cost)
{
    const int a0 = a - (((a + g->k) % 2) + 2) % 2, b0 = b - (((b + g->k) % 2) + 2) % 2;
    const char *tex = c == KG_EZ ? "ez_tex" : "h_tex", nm = "exy"[c];
    emit(g, "    const vec4 g%c_%d_%d = textureGatherOffset(%s, pc, ivec2(%d, %d)%s);\n", nm,
         a0 + g->k, b0 + g->k, tex, a0, b0, c == KG_EZ ? "" : c == KG_HX ? ", 0" : ", 1");
    const int da[4] = {0, 1, 1, 0}, db[4] = {1, 1, 0, 0};
    for (int q = 0; q < 4; q++) {
        const int x = a0 + da[q], y = b0 + db[q];
        if (*cell(g, 0, c, x, y) == 1) {
            emit(g, "    const float %c0_%d_%d = g%c_%d_%d.%c;\n", nm, x + g->k, y + g->k, nm,
                 a0 + g->k, b0 + g->k, "xyzw"[q]);
            *cell(g, 0, c, x, y) = 2;
        }
    }
    if (c == KG_EZ)
        cost->ez_texels++;
    else
        cost->h_texels++;
}

/* One statement: the value (s, c, a, b), its operands checked. */
static bool statement(struct kgen *g, int s, int c, int a, int b, struct kpass_cost *cost)
{
    bool ok = true;
    if (s == 0 && g->gather) {
        gather_block(g, c, a, b, cost);
        return true;
    } else if (s == 0 && c == KG_EZ) {
        emit(g, "    const float e%d_%d_%d = texelFetch(ez_tex, p + ivec2(%d, %d), 0).r;\n",
             NM(0, a, b), a, b);
        cost->ez_texels++;
    } else if (s == 0) {
        /* one fetch of the H texel gives both, whichever is needed */
        if (made(g, 0, KG_HX, a, b) || made(g, 0, KG_HY, a, b))
            return true;
        emit(g, "    const vec2 t_%d_%d = texelFetch(h_tex, p + ivec2(%d, %d), 0).rg;\n",
             a + g->k, b + g->k, a, b);
        if (*cell(g, 0, KG_HX, a, b))
            emit(g, "    const float x0_%d_%d = t_%d_%d.x;\n", a + g->k, b + g->k, a + g->k,
                 b + g->k);
        if (*cell(g, 0, KG_HY, a, b))
            emit(g, "    const float y0_%d_%d = t_%d_%d.y;\n", a + g->k, b + g->k, a + g->k,
                 b + g->k);
        cost->h_texels++;
        if (*cell(g, 0, KG_HX, a, b))
            *cell(g, 0, KG_HX, a, b) = 2;
        if (*cell(g, 0, KG_HY, a, b))
            *cell(g, 0, KG_HY, a, b) = 2;
        return true;
    } else if (c == KG_HX) {
        ok = made(g, s - 1, KG_HX, a, b) && made(g, s - 1, KG_EZ, a, b + 1)
             && made(g, s - 1, KG_EZ, a, b);
        emit(g, "    const float x%d_%d_%d = yee_h_sub(x%d_%d_%d, ch, e%d_%d_%d, e%d_%d_%d);\n",
             NM(s, a, b), NM(s - 1, a, b), NM(s - 1, a, b + 1), NM(s - 1, a, b));
        cost->flops += 3;
    } else if (c == KG_HY) {
        ok = made(g, s - 1, KG_HY, a, b) && made(g, s - 1, KG_EZ, a + 1, b)
             && made(g, s - 1, KG_EZ, a, b);
        emit(g, "    const float y%d_%d_%d = yee_h_add(y%d_%d_%d, ch, e%d_%d_%d, e%d_%d_%d);\n",
             NM(s, a, b), NM(s - 1, a, b), NM(s - 1, a + 1, b), NM(s - 1, a, b));
        cost->flops += 3;
    } else {
        ok = made(g, s - 1, KG_EZ, a, b) && made(g, s, KG_HY, a, b)
             && made(g, s, KG_HY, a - 1, b) && made(g, s, KG_HX, a, b)
             && made(g, s, KG_HX, a, b - 1);
        emit(g,
             "    const float e%d_%d_%d = ez_curl(e%d_%d_%d, 0u, y%d_%d_%d, y%d_%d_%d, "
             "x%d_%d_%d, x%d_%d_%d);\n",
             NM(s, a, b), NM(s - 1, a, b), NM(s, a, b), NM(s, a - 1, b), NM(s, a, b),
             NM(s, a, b - 1));
        cost->flops += 5;
    }
    cost->statements++;
    *cell(g, s, c, a, b) = 2;
    return ok;
}

char *gl2d_kpass_fast_path(int k, bool gather, struct kpass_cost *cost)
{
    struct kpass_cost dummy;
    if (!cost)
        cost = &dummy;
    memset(cost, 0, sizeof *cost);
    if (k < 1 || k > KPASS_MAX)
        return NULL;
    struct kgen g = {.k = k, .d = 2 * k + 3, .gather = gather};
    g.need = calloc((size_t)(k + 1) * KG_N * (size_t)g.d * (size_t)g.d, 1);
    if (!g.need)
        return NULL;
    mark(&g);
    emit(&g, "/* generated by gl/kgen.c: K = %d%s */\nvoid fast_path(ivec2 p)\n{\n", k,
         gather ? ", inputs gathered" : "");
    if (gather)
        emit(&g, "    const vec2 pc = (vec2(p) + 1.0) / vec2(NX, NY);\n");
    /* the wavefront: key 4b + 8s for Ez, 4b + 8s - 2 for H (H of a row right
     * before its Ez; Ez^{n+s-1} of row b+1, which H of row b reads, has key
     * 4b + 8s - 4); the fetches first in their row, Ez at 4b, H at 4b + 1 */
    bool ok = true;
    for (int key = -4 * k; key <= 12 * k; key++)
        for (int s = 0; s <= k; s++)
            for (int c = 0; c < KG_N; c++) {
                const int off = s == 0 ? (c == KG_EZ ? 0 : 1) : (c == KG_EZ ? 8 * s : 8 * s - 2);
                if ((key - off) % 4)
                    continue;
                const int b = (key - off) / 4;
                if (b < -k || b > k)
                    continue;
                for (int a = -k; a <= k; a++)
                    if (*cell(&g, s, c, a, b) == 1)
                        ok = statement(&g, s, c, a, b, cost) && ok;
            }
    emit(&g, "    ez_out = e%d_%d_%d;\n    h_out = vec2(x%d_%d_%d, y%d_%d_%d);\n}\n", k, k, k,
         k, k, k, k, k, k);
    /* every needed value made (one outside |a|, |b| <= K would be left) */
    for (size_t q = 0; q < (size_t)(k + 1) * KG_N * (size_t)g.d * (size_t)g.d; q++)
        ok = ok && g.need[q] != 1;
    free(g.need);
    if (!ok || g.oom) {
        free(g.out);
        return NULL;
    }
    return g.out;
}

bool gl2d_kpass_gather(void)
{
    const char *v = getenv("TEXFDTD_GL_KPASS_GATHER");
    return v && !strcmp(v, "1");
}

int gl_kpass_cost(int k, double *flops_per_cell, double *texels_per_cell, char *err,
                  size_t errlen)
{
    struct kpass_cost c;
    if (k == 1) { /* the one-step H and E passes */
        *flops_per_cell = 11;
        *texels_per_cell = 9; /* H pass: H, Ez x 3; E pass: Ez, H x 3, material */
        return 0;
    }
    char *text = gl2d_kpass_fast_path(k, gl2d_kpass_gather(), &c);
    if (!text)
        return seterr(err, errlen, "no fast path for %d steps per pass (1 .. %d)", k, KPASS_MAX);
    free(text);
    *flops_per_cell = (double)c.flops / k;
    *texels_per_cell = (double)(c.ez_texels + c.h_texels) / k;
    return 0;
}
