/* cuda3d_cell.cuh - the device helpers per cell that both step paths of the
 * 3D CUDA engine use (cuda3d_kernels.cu, cuda3d_fused.cu): the psi offsets,
 * the array index of a cell, the E coefficient table, the CPML term.
 * The arithmetic of every 3D kernel is core/yee.h's (through cuda/yee.cuh:
 * `typedef Yee<T, F> Y; Y::yee_xxx(...)`); the kernels only load, store and
 * choose.
 *
 * The coefficient table lives in __constant__ memory, and without
 * relocatable device code a __constant__ variable belongs to the module of
 * its translation unit: each file that includes this header has its own
 * (static) copy, filled at create by that file's *_set_cezh through
 * cezh_upload.  Include it only where kernels read the table.
 */
#ifndef TEXFDTD_CUDA3D_CELL_CUH
#define TEXFDTD_CUDA3D_CELL_CUH

#include "cuda3d_internal.cuh"
#include "yee.cuh"

/* cezh of E component a (0 x, 1 y, 2 z) by the cell's E material
 * (cpu3d_e_materials: the corner's material, but vacuum on an edge that
 * leaves a PEC corner for a vacuum one) */
static __constant__ float c_cezh_f[3][MODEL_MAX_MATERIALS];
static __constant__ double c_cezh_d[3][MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T cezh(int a, uint8_t m);
template <> __device__ __forceinline__ float cezh<float>(int a, uint8_t m) { return c_cezh_f[a][m]; }
template <> __device__ __forceinline__ double cezh<double>(int a, uint8_t m) { return c_cezh_d[a][m]; }
/* ca of the lossy update (cpu3d_e_ca), read only with the kernels' flag L */
static __constant__ float c_ca_f[3][MODEL_MAX_MATERIALS];
static __constant__ double c_ca_d[3][MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T ca3(int a, uint8_t m);
template <> __device__ __forceinline__ float ca3<float>(int a, uint8_t m) { return c_ca_f[a][m]; }
template <> __device__ __forceinline__ double ca3<double>(int a, uint8_t m) { return c_ca_d[a][m]; }

/* mu_r: the H coefficient S / mu_bar of a node by its map index (model->hmats) */
static __constant__ float c_hc_f[MODEL_MAX_MATERIALS];
static __constant__ double c_hc_d[MODEL_MAX_MATERIALS];
template <typename T> __device__ __forceinline__ T hcoef(uint8_t q);
template <> __device__ __forceinline__ float hcoef<float>(uint8_t q) { return c_hc_f[q]; }
template <> __device__ __forceinline__ double hcoef<double>(uint8_t q) { return c_hc_d[q]; }

/* E component a of material m from the difference d of its two terms:
 * e + cb d (yee_add_mul), or with L (a lossy scene) ca e + cb d (yee_lossy);
 * cb is the cezh table's entry. */
template <typename T, bool F, bool L>
__device__ __forceinline__ T e_upd(T e, int a, uint8_t m, T d)
{
    typedef Yee<T, F> Y;
    if (L)
        return Y::yee_lossy(e, ca3<T>(a, m), cezh<T>(a, m), d);
    return Y::yee_add_mul(e, cezh<T>(a, m), d);
}

/* This file's copy of the tables, from the engine's (cpu3d_e_materials, cpu3d_e_ca). */
static inline int cezh_upload(const cuda3d_engine *c, char *err, size_t errlen)
{
    if (cudaMemcpyToSymbol(c_cezh_f, c->cezh3_f, sizeof c->cezh3_f) != cudaSuccess
        || cudaMemcpyToSymbol(c_cezh_d, c->cezh3_d, sizeof c->cezh3_d) != cudaSuccess
        || cudaMemcpyToSymbol(c_ca_f, c->ca3_f, sizeof c->ca3_f) != cudaSuccess
        || cudaMemcpyToSymbol(c_ca_d, c->ca3_d, sizeof c->ca3_d) != cudaSuccess
        || cudaMemcpyToSymbol(c_hc_f, c->hc_f, sizeof c->hc_f) != cudaSuccess
        || cudaMemcpyToSymbol(c_hc_d, c->hc_d, sizeof c->hc_d) != cudaSuccess)
        return seterr(err, errlen, "cuda 3D: cannot set the coefficient table");
    return 0;
}

/* psi offsets (see update3d.inc), with the pitch px for rows; x and y psi
 * over the pnz planes from pk0 (this rank's planes k0 .., and the temporal
 * path's ghost planes under MPI with a CPML), z psi over the sides zs0 ..
 * it holds */
template <typename T>
__device__ __forceinline__ long long psi_x(const Dev3<T> &d, int side, int k, int j, int kx)
{
    return (((long long)side * d.pnz + (k - d.pk0)) * d.ny + j) * d.N + kx;
}
template <typename T>
__device__ __forceinline__ long long psi_y(const Dev3<T> &d, int side, int k, int ky, int i)
{
    return (((long long)side * d.pnz + (k - d.pk0)) * d.N + ky) * d.px + i;
}
template <typename T>
__device__ __forceinline__ long long psi_z(const Dev3<T> &d, int side, int kz, int j, int i)
{
    return (((long long)(side - d.zs0) * d.N + kz) * d.ny + j) * d.px + i;
}
/* The array index of cell (i, j, k), k global. */
template <typename T> __device__ __forceinline__ long long cell3(const Dev3<T> &d, int i, int j, int k)
{
    return i + j * d.sy + (long long)(k - d.kb) * d.sz;
}

/* One CPML term: psi = b psi + c d; d ik + psi (MODE_INLINE), d ik (KAPPA). */
template <typename T, bool F, int MODE>
__device__ __forceinline__ T term(const Dev3<T> &d, T dd, int side, T *psi, int prof, int pos)
{
    typedef Yee<T, F> Y;
    if (MODE == MODE_NONE || side < 0)
        return dd;
    if (MODE == MODE_KAPPA) /* A3: psi already updated by the face kernels */
        return Y::yee_pml_term(dd, d.pik[prof][pos], *psi);
    /* named first so that the loads keep their order of before core/yee.h
     * (the float kernels' SASS is unchanged) */
    const T b = d.pb[prof][pos], o = *psi, c = d.pc[prof][pos];
    const T p = Y::yee_psi(o, b, c, dd);
    *psi = p;
    return Y::yee_pml_term(dd, d.pik[prof][pos], p);
}


#endif
