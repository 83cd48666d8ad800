/* yee_prelude_es.glsl - the GLSL ES 3.00 (WebGL2) prelude of core/yee.h, the
 * counterpart of yee_prelude.glsl for the web page (web/).
 *
 * web/shader.js splices this file and core/yee.h into shaders/update2d.glsl
 * in place of its two #include lines, as gl/shader.c does with the desktop
 * prelude.  GLSL ES 3.00 has no `precise`, so nothing forbids the compiler to
 * fuse a product into a following add (an FMA rounds once where C rounds
 * twice).  Instead every product goes through R(): its bits, XORed with a
 * uniform that is always 0 (y_zero, set by the page), back to a float.  The
 * compiler cannot know the uniform, so it has to produce the rounded product
 * before the integer operation, and the add sees that rounded value.  The
 * cost: one integer XOR per product (the bit casts are free), in a pass whose
 * time goes to texture fetches.  Sums and differences need no barrier (GPU
 * compilers do not reassociate them).  F() is the x86 FTZ/DAZ treatment, as
 * in yee_prelude.glsl, compiled in where the browser's fragment stage keeps
 * denormals (FLUSH_DENORMALS, from the page's probe).
 */
#if FMA_BARRIER
uniform uint y_zero; /* always 0 */

float R(float x) { return uintBitsToFloat(floatBitsToUint(x) ^ y_zero); }
#else
/* without the barrier (the page's ?fma_barrier=0, to see what it guards) */
#define R(x) (x)
#endif

#if FLUSH_DENORMALS
float F(float x)
{
    uint b = floatBitsToUint(x);
    return (b & 0x7fffffffu) < 0x00800000u ? uintBitsToFloat(b & 0x80000000u) : x;
}
#else
#define F(x) (x)
#endif

#define Y_REAL float
#define Y_FN
#define Y_NAME(n) n
#define Y_LET float
#define Y_ADD(a, b) F(F(a) + F(b))
#define Y_SUB(a, b) F(F(a) - F(b))
#define Y_MUL(a, b) R(F(F(a) * F(b)))
