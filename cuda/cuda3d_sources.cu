/* cuda3d_sources.cu - what every step of the 3D CUDA engine does after its
 * fields, on either path (cuda3d_kernels.cu, cuda3d_fused.cu): the source
 * slots' values into the device and their kernel (k_slots), the point
 * source (k_point), and the monitors' samples (k_gather into the next row).
 */
#include "cuda3d_internal.cuh"
#include "yee.cuh"

/* The source slots: kind 1 (PEC) sets Ez, 0 (dielectric) adds, 2 (an Ez
 * edge that leaves a PEC corner for vacuum, cpu3d_e_materials) leaves it. */
template <typename T, bool F>
__global__ void k_slots(T *ez, const long long *cell, const uint8_t *kind, const T *v, long long n)
{
    typedef Yee<T, F> Y;
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < n && kind[t] != 2)
        ez[cell[t]] = kind[t] ? v[t] : Y::yee_add(ez[cell[t]], v[t]);
}

template <typename T, bool F> __global__ void k_point(T *ez, long long c, T v)
{
    typedef Yee<T, F> Y;
    ez[c] = Y::yee_add(ez[c], v);
}

/* The monitors' samples (core/monitor.h) of this step into one row: value
 * t is field f[q[t]] at array index at[t].  A plain copy: the bits the
 * fields hold. */
template <typename T> struct Six {
    const T *f[6];
};
template <typename T>
__global__ void k_gather(Six<T> s, const long long *at, const uint8_t *q, T *row, long long n)
{
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < n)
        row[t] = s.f[q[t]][at[t]];
}

/* After a step (every path): its samples into the next row, on the default
 * stream after the step's last kernel (f[] names the current fields). */
template <typename T> void take_samples(cuda3d_engine *c)
{
    const struct model *m = c->base.model;
    if (!m->nsamples || c->smp_n >= m->sample_rows)
        return;
    if (c->nown) {
        Six<T> sx;
        for (int q = 0; q < 6; q++)
            sx.f[q] = (const T *)c->f[q];
        k_gather<T><<<(unsigned)((c->nown + 255) / 256), 256>>>(
            sx, c->smp_at, c->smp_f, (T *)c->smp_rows + (size_t)c->smp_n * c->nown, (long long)c->nown);
    }
    c->smp_n++;
}

template <typename T> int slots_upload(cuda3d_engine *c, const struct model *m, int t, char *err,
                                       size_t errlen)
{
    if (c->ns) {
        CK(cudaEventSynchronize(c->slot_ev));
        if (sizeof(T) == 4)
            model_slot_range_f(m, t, c->s0, c->ns, (float *)c->slot_v_h);
        else
            model_slot_range_d(m, t, c->s0, c->ns, (double *)c->slot_v_h);
        CK(cudaMemcpyAsync(c->slot_v_d, c->slot_v_h, c->ns * sizeof(T), cudaMemcpyHostToDevice));
        CK(cudaEventRecord(c->slot_ev));
    }
    return 0;
}

template <typename T, bool F> void sources_apply(cuda3d_engine *c, const struct model *m, int t, T *ez)
{
    if (c->ns)
        k_slots<T, F><<<(unsigned)((c->ns + 255) / 256), 256>>>(
            ez, c->slot_cell, c->slot_pec, (const T *)c->slot_v_d, (long long)c->ns);
    if (c->point)
        k_point<T, F><<<1, 1>>>(ez, c->pc, (T)(sizeof(T) == 4 ? (double)(float)model_point_value(m, t)
                                                              : model_point_value(m, t)));
}

#define INST(T, F)                                                                            \
    template void sources_apply<T, F>(cuda3d_engine *, const struct model *, int, T *);
CUDA3D_INSTANTIATE_TF(INST)
#undef INST
template int slots_upload<float>(cuda3d_engine *, const struct model *, int, char *, size_t);
template int slots_upload<double>(cuda3d_engine *, const struct model *, int, char *, size_t);
template void take_samples<float>(cuda3d_engine *);
template void take_samples<double>(cuda3d_engine *);
