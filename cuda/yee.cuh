/* yee.cuh - the CUDA prelude of core/yee.h.
 *
 * core/yee.h is included inside the struct below, so its functions become
 * static member functions of Yee<T, FTZ>: Yee<float, true>::yee_h_sub(...)
 * rounds each operation with add.rn.ftz.f32 / mul.rn.ftz.f32, and
 * Yee<float, false> and Yee<double, *> with __fadd_rn / __dadd_rn and their
 * kin (cuda/common.cuh, Ar), which nvcc never contracts into an FMA.
 * A kernel templated on <T, F> writes `typedef Yee<T, F> Y;` and calls
 * Y::yee_h_sub(...).
 */
#ifndef TEXFDTD_CUDA_YEE_CUH
#define TEXFDTD_CUDA_YEE_CUH

#include "cuda/common.cuh"

template <typename T, bool FTZ> struct Yee {
#define Y_REAL T
#define Y_FN static __device__ __forceinline__
#define Y_NAME(n) n
#define Y_LET const T
#define Y_ADD(a, b) Ar<T, FTZ>::add(a, b)
#define Y_SUB(a, b) Ar<T, FTZ>::sub(a, b)
#define Y_MUL(a, b) Ar<T, FTZ>::mul(a, b)
#include "core/yee.h"
#undef Y_REAL
#undef Y_FN
#undef Y_NAME
#undef Y_LET
#undef Y_ADD
#undef Y_SUB
#undef Y_MUL
};

#endif
