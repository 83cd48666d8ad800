/* yee_prelude_es.glsl - what the GLSL ES 3.00 (WebGL2) page (web/) adds to
 * yee_prelude.glsl, the GLSL prelude of core/yee.h.
 *
 * web/shader.js splices yee_prelude.glsl, this file and core/yee.h into
 * shaders/update2d.glsl in place of its two #include lines, as gl/shader.c
 * does with the desktop prelude alone, and drops the keywords GLSL ES lacks
 * (`precise`, `const` with a run-time value).  Without `precise` nothing
 * forbids the compiler to fuse a product into a following add (an FMA rounds
 * once where C rounds twice).  So here every product goes through R(): its
 * bits, XORed with a uniform that is always 0 (y_zero, set by the page),
 * back to a float.  The compiler cannot know the uniform, so it has to
 * produce the rounded product before the integer operation, and the add
 * sees that rounded value.  The cost: one integer XOR per product (the bit
 * casts are free), in passes whose time goes to texture fetches.  Sums and
 * differences need no barrier (GPU compilers do not reassociate them).
 * FMA_BARRIER 0 (the page's ?fma_barrier=0) leaves it out, to show what it
 * guards.
 */
#if FMA_BARRIER
uniform uint y_zero; /* always 0 */

float R(float x) { return uintBitsToFloat(floatBitsToUint(x) ^ y_zero); }
#else
#define R(x) (x)
#endif

#undef Y_MUL
#define Y_MUL(a, b) R(F(F(a) * F(b)))
