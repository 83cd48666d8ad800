/* yee_prelude.glsl - the GLSL prelude of core/yee.h.
 *
 * shaders/update2d.glsl includes this file, then core/yee.h, and gl/shader.c
 * splices them in (GLSL has no #include of its own), between the generated
 * #defines and the pass.  Every intermediate of core/yee.h is a `precise`
 * float, so the driver neither fuses a*b+c into an FMA nor reorders, and
 * each operation rounds where the C reference rounds.  F() applies the x86
 * FTZ/DAZ treatment where the driver keeps denormals (FLUSH_DENORMALS):
 * a denormal operand or result becomes a zero of the same sign.
 */
#if FLUSH_DENORMALS
float F(float x)
{
    const uint b = floatBitsToUint(x);
    return (b & 0x7fffffffu) < 0x00800000u ? uintBitsToFloat(b & 0x80000000u) : x;
}
#else
#define F(x) (x)
#endif

#define Y_REAL float
#define Y_FN
#define Y_NAME(n) n
#define Y_LET precise float
#define Y_ADD(a, b) F(F(a) + F(b))
#define Y_SUB(a, b) F(F(a) - F(b))
#define Y_MUL(a, b) F(F(a) * F(b))
