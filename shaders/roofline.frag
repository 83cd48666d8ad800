/* roofline.frag - bench only (gl_bench roofline): the two fragment-shader
 * rates besides the render-target write cap (write_cap.frag) that bound
 * gl's k-step pass (docs/performance.md):
 *
 *   ARITH  4 independent chains of dependent float multiply-adds,
 *          x = x * b + a, ITER x 8 per chain, each a multiply and an add
 *          rounded apart (`precise`: no FMA contraction, as core/yee.h's
 *          GLSL); 2 x 4 x 8 x ITER = 64 ITER operations per fragment
 *   FETCH  texelFetch of the R32F texture src at every offset of the
 *          diamond |u| + |v| <= RADIUS around the fragment (the shape of the
 *          k-step pass's cone, as cache-friendly as the engine's reads),
 *          summed: fetch_sum(), straight-line code the host appends
 *          (gl/bench.c), 2 RADIUS^2 + 2 RADIUS + 1 fetches per fragment;
 *          src is 2 RADIUS texels wider and taller than the target
 *
 * Generated #defines: ARITH (1 or 0: FETCH), ITER, RADIUS. */
uniform float a;
uniform float b;
uniform sampler2D src;
out float color;

float fetch_sum(ivec2 p);

void main()
{
#if ARITH
    precise float x0 = gl_FragCoord.x * 1e-4, x1 = x0 + a, x2 = x1 + a, x3 = x2 + a;
#define MA8(y) y = y * b + a; y = y * b + a; y = y * b + a; y = y * b + a; \
               y = y * b + a; y = y * b + a; y = y * b + a; y = y * b + a
    for (int i = 0; i < ITER; i++) {
        MA8(x0); MA8(x1); MA8(x2); MA8(x3);
    }
    color = (x0 + x1) + (x2 + x3);
#else
    color = fetch_sum(ivec2(gl_FragCoord.xy) + ivec2(RADIUS));
#endif
}
