/* cuda3d_internal.cuh - what the files of the 3D CUDA engine share: the
 * engine's struct (struct cuda3d_engine), its device view (Dev3), the psi,
 * profile and strategy numbering, the fused kernel's tile tables, the halo
 * modes, and the functions one file offers another.  Host code and types
 * only; the device helpers per cell are in cuda3d_cell.cuh.
 *
 * The engine's files (docs/cuda.md):
 *   cuda3d.cu          the engine_ops glue: create, destroy, the step
 *                      dispatch, read, write, the samples' read-back, the
 *                      blow-up check, describe; the benchmark timers
 *   cuda3d_kernels.cu  the two-kernel step: the field kernels of the three
 *                      CPML strategies (A1 combined, A2 regions, A3
 *                      per-face) and Mur
 *   cuda3d_fused.cu    the fused z-marching kernel (A1 or no CPML), its
 *                      tiles and its step
 *   cuda3d_fused.cuh   the fused kernel's per-cell functions (hx3, hy3,
 *                      hz3, e3), shared with the temporal kernel
 *   cuda3d_tb.cu       the temporally blocked kernel (K steps a launch;
 *                      no CPML or A1) and its step
 *   cuda3d_sources.cu  what every step does after the fields: the source
 *                      slots, the point source, the monitors' samples
 *   cuda3d_halo.cu     the MPI halo exchange (host-staged or NCCL)
 *   cuda3d_mat.cu      mu_r (the H-node map, the H slots) and the
 *                      dispersive entries (two-kernel path only)
 *   cuda3d_cell.cuh    the device helpers per cell that the two step paths
 *                      share (psi offsets, the coefficient table, the CPML
 *                      term)
 *
 * The per-cell arithmetic of every kernel is written once, in core/yee.h
 * (shared with cpu/update3d.inc and the 2D engines), and reached through
 * cuda/yee.cuh; these files hold memory access, launches and control.
 *
 * Templates on <T, F> (the real type, denormals flushed) are instantiated
 * in the file that defines them, for the engine's three modes: <double,
 * false>, <float, true>, <float, false> (CUDA3D_INSTANTIATE_TF).  No
 * relocatable device code: a kernel runs only from the file that holds it,
 * and __constant__ memory belongs to one file (cuda3d_cell.cuh).
 */
#ifndef TEXFDTD_CUDA3D_INTERNAL_CUH
#define TEXFDTD_CUDA3D_INTERNAL_CUH

#include "common.cuh"
extern "C" {
#include "core/decomp.h"
#include "core/slab3d.h"
/* The E materials of a slab (cpu/cpu3d.c): the map, the coefficient of each
 * component by map index, and what an Ez's source slot does. */
int cpu3d_e_map_count(const struct model *m);
int cpu3d_e_materials(const struct model *m, int kb, int nzl, uint8_t *map,
                      float cezh_f[3][MODEL_MAX_MATERIALS], double cezh_d[3][MODEL_MAX_MATERIALS],
                      uint8_t slot_kind[MODEL_MAX_MATERIALS], char *err, size_t errlen);
/* ca of each of those indices (a lossy scene: E = ca E + cb curl H, cb in cezh). */
void cpu3d_e_ca(const struct model *m, float ca_f[3][MODEL_MAX_MATERIALS],
                double ca_d[3][MODEL_MAX_MATERIALS]);
/* The run [*a, *b) of a model list (comp * ncells + c, increasing c: the H
 * slots, the dispersive entries) in planes k0 .. k1-1, and the most poles of
 * a dispersive material (cpu/cpu3d.c). */
void cpu3d_plane_run(const size_t *ids, size_t n, size_t ncells, size_t plane, int k0, int k1,
                     size_t *a, size_t *b);
int cpu3d_pole_stride(const struct model *m);
extern const struct engine_ops cuda3d_engine_ops;
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PSI_EXY, PSI_EXZ, PSI_EYX, PSI_EYZ, PSI_EZX, PSI_EZY,
       PSI_HXY, PSI_HXZ, PSI_HYX, PSI_HYZ, PSI_HZX, PSI_HZY, PSI_COUNT };
enum { P_XE, P_XH, P_YE, P_YH, P_ZE, P_ZH };
/* psi code in the field kernels: none; update and use (A1, A2); use the psi
 * the A3 face kernels have just updated (MODE_KAPPA, the 1/kappa term plus
 * the stored psi) */
enum { MODE_NONE, MODE_INLINE, MODE_KAPPA };

template <typename T> struct Dev3 {
    T *ex, *ey, *ez, *hx, *hy, *hz;
    T *psi[PSI_COUNT];
    /* the E materials: component a of cell c at mat[a * ms + c] (ms = 0
     * without 3D smoothing: one map for all three; ms is the last member) */
    const uint8_t *mat;
    /* mu_r (model->hmat): the node map of Hx, Hy, Hz, padded like the
     * fields, hs apart (NULL without mu_r) */
    const uint8_t *hmat;
    long long hs;
    const T *pb[6], *pc[6], *pik[6]; /* CPML profiles xe xh ye yh ze zh */
    int nx, ny, nz, px, N;
    long long sy, sz;
    T ch;
    int uncoalesced; /* the coalescing paper's un-coalesced thread mapping (bench only) */
    /* MPI z slab (core/decomp.h): the arrays hold planes kb .. (local plane
     * 0 is global plane kb); this rank updates planes k0 .. k0+nzo-1; the x
     * and y psi are held for the pnz planes from pk0 (its own, and on the
     * temporal path with a CPML its ghost planes too: cuda3d_engine psi_lo,
     * psi_hi); the z psi hold the sides zs0 ..  One rank: kb = k0 = pk0 =
     * zs0 = 0, nzo = pnz = nz.  k is global in every kernel. */
    int kb, k0, nzo, zs0, pk0, pnz;
    long long ms; /* the E maps' stride (mat above) */
};

struct Box {
    int x0, x1, y0, y1, z0, z1;
};

/* A2: the 26 PML regions of one launch (k_regions, cuda3d_kernels.cu). */
struct Regions {
    Box box[26];
    int n;
};

/* A tile: x band (32 columns), y band (BY rows), planes [k0, k1).  hb: the
 * H of plane k0-1 is not recomputed but read from the new buffers, where
 * the halo exchange put the rank below's (MPI: the bottom plane of a slab,
 * whose E needs this step's H of a plane another rank updates). */
struct Tile3 {
    int bx, by, k0, k1, hb;
};

/* The fused kernel's tiles of one z range, in two device tables: [0] no
 * CPML cell in the tile or its halo, [1] the others. */
struct TileSet {
    Tile3 *t[2];
    size_t n[2];
};
/* The parts of a slab under MPI (step_fused): the body k0+1 .. k1-2, the
 * top plane k1-1 (its Hx, Hy then go up) and the bottom plane k0 (hb: after
 * the rank below's Hx, Hy have come).  One rank: the body is every plane. */
enum { TS_BODY, TS_TOP, TS_BOTTOM, TS_COUNT };

/* How the halo planes travel between ranks (MPI only). */
enum halo_mode { HALO_NONE, HALO_HOST, HALO_NCCL, HALO_SKIP };

/* The halo exchange timer: pairs of events around each exchange on the
 * stream that runs it, summed once they have completed (a ring, so that the
 * host never waits on an exchange younger than RING exchanges, RING/2 steps). */
enum { RING = 16 };

typedef struct mur_plane MurPlane;

struct cuda3d_engine {
    struct engine base;
    int dev;
    char devname[320];
    int nx, ny, nz, px, N;
    size_t plane, cells; /* padded; cells: the local planes (all nz on one rank) */
    /* MPI z slab (core/decomp.h; plane = nx*ny values, the unpadded plane
     * the host-staged exchange and the gather carry): arrays hold nzl
     * planes from global plane kb; the rank updates k0 <= k < k1 */
    struct decomp dc;
    int kb, k0, k1, nzl;
    int zs0, zsides; /* the z psi hold sides zs0 .. zs0+zsides-1 */
    size_t s0, ns;   /* source slots s0 .. s0+ns-1 are this rank's */
    bool point;      /* this rank owns the point source cell ... */
    long long pc;    /* ... at this array index */
    enum halo_mode halo;
    void *stage[4];  /* host-staged: pinned planes, send Hx/Ex, Hy/Ey, receive the same */
    void *gather_h;  /* read_field under MPI: the local planes on the host */
    cudaStream_t xs; /* NCCL: the exchange stream (non-blocking) */
    cudaEvent_t ev_ready[2], ev_done[2]; /* [0] after H (Hx, Hy up), [1] after E (Ex, Ey down) */
    cudaEvent_t tm[RING][2];
    bool tm_pend[RING];
    int tm_next;
    double halo_ms;   /* exchange time so far (ms) */
    long long halo_n; /* exchanges so far */
    bool failed;      /* a step failed: leave NCCL alone in destroy */
    void *nccl;       /* ncclComm_t when halo == HALO_NCCL */
    enum pml_strategy strat;
    void *f[6];
    void *psi[PSI_COUNT];
    /* fused path: the other buffer of each ping-pong pair (fields, H psi);
     * f[] and psi[] always name the current ones */
    bool fused;
    int kz; /* planes per block */
    bool uncoalesced; /* TEXFDTD_CUDA3D_MAP=uncoalesced (two-kernel path, bench only) */
    /* the temporal path (TEXFDTD_CUDA3D=temporal, cuda3d_tb.cu; fused is set
     * too: it takes the ping-pong buffers and the steps left over): K steps
     * a launch, TY rows a tile, tbz planes a block (0: all), the slot
     * number per padded cell (-1 elsewhere) and the K steps' slot values
     * (device, pinned host); with a CPML the E psi are pairs too (psib) */
    bool tb;
    int tbk, tby, tbz;
    /* rows of the tile a thread in the tiles without psi: 1 (k_tb3,
     * cuda3d_tb.cu) or 2 (k_tb3r, cuda3d_tbr.cu; float only) */
    int tbr;
    int tbrs; /* the same in the one-axis slab tiles, float (TEXFDTD_CUDA3D_TBRS: tb_slab_rows2) */
    /* k_tb3r's array indices in 32 bits: where every index it forms (the
     * padded local cells and K + 1 planes either side) fits, and not asked
     * otherwise (TEXFDTD_CUDA3D_IX64=1, bench only); tb_setup */
    bool tb_ix32;
    /* k_tb3 and k_tb3r: every block runs the per-cell source tail, quiet
     * or not (TEXFDTD_CUDA3D_QUIET=0, bench only) */
    bool tb_loud;
    /* bench only, TEXFDTD_CUDA3D_TBSKIP: a mask of the CPML step's parts
     * left out (1 x, 2 y, 4 z, 8 the 12-psi tiles, 16 the tiles clear of
     * the slabs), to time what each adds beside the others; the fields are
     * then wrong (the description says so) */
    int tb_skip;
    /* with a CPML: the slab tiles' launches (one-axis x, y, z, and the
     * others) each on a stream of its own beside the tiles clear of the
     * slabs on the default stream, forked from it and joined back
     * (cuda3d_tb.cu launch_tb3_k); TEXFDTD_CUDA3D_TBSTREAMS=0: all on the
     * default stream (bench) */
    bool tb_streams;
    cudaStream_t tb_st[4];
    cudaEvent_t tb_fork, tb_join[4];
    bool tb_slabchunk; /* a CPML: the z slabs in chunks of their own (cuda3d_tb.cu) */
    /* under MPI with NCCL: a block's exchange overlapped with its chunks
     * away from the rank's edges, which go first in edge chunks of
     * tb_edge planes (tb_faces, step_tb; TEXFDTD_CUDA3D_TBOVERLAP=0: after
     * the block, =1: split so with the host-staged exchange too, tests;
     * TEXFDTD_CUDA3D_TBEDGE: the planes, default 40) */
    bool tb_overlap;
    int tb_edge;
    bool tb_inner;     /* inner tiles without the face tests (cuda3d_tb.cu launch_tb3_k) */
    /* with a CPML (tb_band_on): the tiles clear of the slabs as 32 x 16
     * tiles in the band of rows tb_yb0 .. tb_yb1 - 1, the rows of the
     * 32 x 32 tiles clear of the y slabs (tb_setup; empty: none);
     * TEXFDTD_CUDA3D_TBBAND=0: 32 x 32 as the slab tiles (bench);
     * tb_bandz: the band's planes a block where its chunks may
     * differ from the slab parts' (tb_band_kz; 0: the same; the
     * default 40 with a CPML, TEXFDTD_CUDA3D_TBZB) */
    bool tb_band;
    int tb_yb0, tb_yb1, tb_bandz;
    /* with a CPML at TY 32, float: k_tb3 keeps the 12-psi tiles' psi in
     * shared memory (PSS), where the device gives a block that much
     * (tb_setup); TEXFDTD_CUDA3D_TBPSS=0: in registers (bench) */
    bool tb_pss;
    int *tb_slot_map;
    void *tb_slot_vd, *tb_slot_vh;
    /* MPI: the blocks recompute K ghost planes each side (dc.lo, dc.hi = K
     * where a neighbour is), so the slots and the point source of those
     * planes are the temporal path's too: slots tb_s0 .. +tb_ns (their kinds
     * tb_slot_pec, device), the point source where tb_point.  One rank: the
     * same as s0, ns and point. */
    size_t tb_s0, tb_ns;
    bool tb_point;
    uint8_t *tb_slot_pec;
    /* MPI: the ghost planes (K each side, all six fields) hold the
     * neighbours' values of the current step (after a block's exchange, or
     * at create and after write_field); a one-step launch clears it */
    bool tb_ghosts;
    /* the ghost planes the x and y psi hold below k0 and above k1-1: dc.lo
     * and dc.hi on the temporal path under MPI with a CPML (halo_deep
     * exchanges their psi with the fields), else 0 (Dev3 pk0, pnz) */
    int psi_lo, psi_hi;
    /* host-staged exchange: pinned, send and receive, 6 K planes and the
     * K planes' x and y psi (tb_psi_bytes) */
    void *tb_stage[2];
    int *tb_smap, *tb_snext; /* the samples: first per padded cell, next (cuda3d_tb.cu) */
    /* the fused kernel's tiles (build_tiles): on one rank ts[TS_BODY] holds
     * them all; under MPI the three parts of a slab step_fused launches */
    TileSet ts[TS_COUNT];
    /* fused under MPI: the top and bottom planes' stream, of the highest
     * priority, beside the body on the default stream; ev_step: the step so
     * far on the default stream, ev_edges: both edge planes done */
    cudaStream_t ps;
    cudaEvent_t ev_step, ev_edges;
    void *fb[6];
    void *psib[PSI_COUNT];
    void *prof[6][3];
    uint8_t *mat;      /* the E materials (cpu3d_e_materials), padded like the fields;
                        * with 3D smoothing one map per component, ms apart */
    long long ms;      /* 0 without 3D smoothing (one map), else cells */
    uint8_t *mat_h;    /* the same on the host while the engine is made, [maps][nzl][ny][nx] */
    float cezh3_f[3][MODEL_MAX_MATERIALS]; /* cb: = cezh where sigma = 0 */
    double cezh3_d[3][MODEL_MAX_MATERIALS];
    float ca3_f[3][MODEL_MAX_MATERIALS];   /* lossy: E = ca E + cb curl H */
    double ca3_d[3][MODEL_MAX_MATERIALS];
    bool lossy;                            /* model->lossy: the E kernels' flag L */
    uint8_t slot_kind[MODEL_MAX_MATERIALS];
    /* mu_r (model->hmat; cuda3d_mat.cu): the node map (3 x cells, padded),
     * the coefficients hmats[].ch, this rank's H slots (nhs from hs0 of the
     * model's: array index, component 0 Hx or 1 Hy, values) */
    bool magnetic;
    uint8_t *hmat;
    float hc_f[MODEL_MAX_MATERIALS];
    double hc_d[MODEL_MAX_MATERIALS];
    size_t hs0, nhs;
    long long *hslot_at;
    uint8_t *hslot_comp;
    void *hslot_v_d, *hslot_v_h;
    /* dispersive entries (model->disp_cell; cuda3d_mat.cu): nd from dd0 of
     * the model's, per entry its array index, component and row of the
     * coefficient table disp_tab (one per dispersive material, float and
     * double), its state D_s, Ei^n [nd], P^n, P^{n-1} [nd][pstride] and this
     * step's Ei^{n+1} */
    size_t dd0, nd;
    int pstride;
    long long *disp_at;
    uint8_t *disp_comp, *disp_row;
    void *disp_tab_f, *disp_tab_d;
    void *disp_ds, *disp_ei, *disp_p, *disp_pold, *disp_v_d, *disp_v_h;
    cudaEvent_t mat_ev; /* after the copies out of hslot_v_h, disp_v_h */
    MurPlane mur[MUR_PLANES];
    void *mur_old[MUR_PLANES];
    long long *slot_cell;
    uint8_t *slot_pec; /* per slot: k_slots's kind */
    void *slot_v_d, *slot_v_h;
    /* recorded after each copy out of the pinned slot_v_h / slot_vk_h: a
     * cudaMemcpyAsync from pinned memory reads it when the copy runs, not
     * when it is queued, so the host waits on it before refilling */
    cudaEvent_t slot_ev;
    Regions regions;
    unsigned long long *first_bad; /* the blow-up check's words (cuda_first_bad) */
    /* the monitors' samples in this rank's planes (decomp_own_samples, in
     * the model's order): a gather kernel after each step copies them into
     * the next row of smp_rows; read_samples copies the rows out at once */
    size_t nown;
    long long *smp_at; /* per sample: its array index (padded, local planes) */
    uint8_t *smp_f;    /* per sample: its field, as an index of f[] */
    void *smp_rows;    /* [model->sample_rows][nown] */
    void *smp_h;       /* MPI: the rows on the host, for the gather on rank 0 */
    int smp_n;         /* rows recorded since the last read */
};

/* cudaMalloc of bytes (1 at least), zeroed: 0, or -1 with err. */
static inline int dev_alloc0(void **p, size_t bytes, char *err, size_t errlen)
{
    const size_t b = bytes > 0 ? bytes : 1;
    cudaError_t e = cudaMalloc(p, b);
    if (e == cudaSuccess)
        e = cudaMemset(*p, 0, b);
    if (e != cudaSuccess)
        return seterr(err, errlen, "cuda 3D: cannot allocate %zu bytes: %s", bytes,
                      cudaGetErrorString(e));
    return 0;
}

/* The planes the x and y psi arrays hold (from k0 - psi_lo): this rank's
 * own, and the temporal path's ghost planes under MPI with a CPML. */
static inline int psi_xy_planes(const cuda3d_engine *c)
{
    return c->k1 - c->k0 + c->psi_lo + c->psi_hi;
}

/* The kernels' view of the engine: its current arrays, sizes and slab. */
template <typename T> static inline Dev3<T> dev_view(const cuda3d_engine *c, const struct model *m)
{
    Dev3<T> d;
    memset(&d, 0, sizeof d);
    d.ex = (T *)c->f[0];
    d.ey = (T *)c->f[1];
    d.ez = (T *)c->f[2];
    d.hx = (T *)c->f[3];
    d.hy = (T *)c->f[4];
    d.hz = (T *)c->f[5];
    for (int k = 0; k < PSI_COUNT; k++)
        d.psi[k] = (T *)c->psi[k];
    d.mat = c->mat;
    d.ms = c->ms;
    d.hmat = c->hmat;
    d.hs = (long long)c->cells;
    for (int k = 0; k < 6; k++) {
        d.pb[k] = (const T *)c->prof[k][0];
        d.pc[k] = (const T *)c->prof[k][1];
        d.pik[k] = (const T *)c->prof[k][2];
    }
    d.nx = c->nx;
    d.ny = c->ny;
    d.nz = c->nz;
    d.px = c->px;
    d.N = c->N;
    d.sy = c->px;
    d.sz = (long long)c->px * c->ny;
    d.ch = sizeof(T) == 4 ? (T)m->ch_f : (T)m->ch;
    d.uncoalesced = c->uncoalesced;
    d.kb = c->kb;
    d.k0 = c->k0;
    d.nzo = c->k1 - c->k0;
    d.zs0 = c->zs0;
    d.pk0 = c->k0 - c->psi_lo;
    d.pnz = psi_xy_planes(c);
    return d;
}

/* The axis of psi q: 0 x, 1 y, 2 z (its derivative's; PSI_EXY: y), for
 * the host and the kernels: {1, 2, 0, 2, 0, 1} for the E psi, the same for
 * the H psi. */
__host__ __device__ __forceinline__ static int psi_axis_of(int q)
{
    return (q % 6 == 2 || q % 6 == 4) ? 0 : (q % 6 == 0 || q % 6 == 5) ? 1 : 2;
}

/* Elements of one plane of one side of an x (axis 0) or y (1) psi array:
 * ny x N, N x px (cuda3d_cell.cuh psi_x, psi_y). */
static inline size_t psi_xy_plane(const cuda3d_engine *c, int axis)
{
    return (size_t)c->N * (axis == 0 ? (size_t)c->ny : (size_t)c->px);
}

/* The temporal path under MPI with a CPML: bytes of the x and y psi of K
 * planes (both sides of the 8 such arrays) that halo_deep sends one way;
 * 0 without a CPML. */
static inline size_t tb_psi_bytes(const cuda3d_engine *c, size_t es)
{
    size_t n = 0;
    for (int q = 0; q < PSI_COUNT && c->N; q++)
        if (psi_axis_of(q) != 2)
            n += 2 * (size_t)c->tbk * psi_xy_plane(c, psi_axis_of(q));
    return n * es;
}

/* Do the one-axis slab tiles of the temporal path run k_tb3r (2 rows a
 * thread) in float?  Built only for K 3 at TY 32 with 32-bit indices, the
 * CPML's defaults (compile time); otherwise, and in double, k_tb3.  (Such
 * tiles are launched only where the tiles go by part, tb_inner: without
 * it, TEXFDTD_CUDA3D_INNER=0, every slab tile takes the 12 psi.) */
static inline bool tb_slab_rows2(const cuda3d_engine *c)
{
    return c->tbrs == 2 && c->tbk == 3 && c->tby == 32 && c->tb_ix32 && c->tb_inner;
}

/* With a CPML at TY 32, the tiles by part (tb_inner): do the slab tiles
 * run in parts of their own, by axis (launch_tb3_k), on streams of their
 * own (tb_fork, tb_setup)? */
static inline bool tb_split(const cuda3d_engine *c)
{
    return c->N && c->tby == 32 && c->tb_inner;
}

/* Do the tiles clear of the slabs run as 32 x 16 tiles of k_tb3r (the
 * band: tb_yb0, tb_yb1) beside 32 x 32 slab tiles, in float?  Built for K
 * 3 with 32-bit indices, where the tiles clear of the slabs take two rows
 * a thread; with a CPML at TY 32 (the slab tiles' shape) only. */
static inline bool tb_band_on(const cuda3d_engine *c)
{
    return c->tb_band && c->N && c->tbr == 2 && c->tbk == 3 && c->tby == 32 && c->tb_ix32 && c->tb_inner
           && c->tb_yb1 > c->tb_yb0;
}

/* Does [a, b] (positions along an axis of n cells) meet a CPML slab of N
 * cells, E or H: [0, N-1] or [n-1-N, n-2]?  (As the fused path's tiles.) */
__host__ __device__ __forceinline__ bool tb_meets(int a, int b, int n, int N)
{
    return a <= N - 1 || b >= n - 1 - N;
}

/* The planes of a rank-edge chunk (tb_faces): tb_edge, at most the chunk,
 * at least K (it makes the K planes the exchange sends). */
static inline int tb_edge_planes(const cuda3d_engine *c)
{
    const int kz = c->tbz > 0 ? c->tbz : c->k1 - c->k0, e = c->tb_edge < kz ? c->tb_edge : kz;
    return e < c->tbk ? c->tbk : e;
}

/* The rank's z face chunks (step_tb): with a CPML N + K planes at a z face
 * (the next chunk's z halo, K planes below it, stays clear of the slab),
 * without one K + 1 (the next chunk's tiles then lie inside the faces);
 * none where the rank holds no face, or with TEXFDTD_CUDA3D_SLABCHUNK=0
 * (bench).  Where a neighbour rank is and the exchange is overlapped
 * (tb_overlap), an edge chunk (tb_edge_planes).  None at all where no
 * plane would be left between them. */
static inline void tb_faces(const cuda3d_engine *c, int *zlo, int *zhi)
{
    const int face = c->N ? c->N + c->tbk : c->tbk + 1, edge = c->tb_overlap ? tb_edge_planes(c) : 0;
    *zlo = c->k0 > 0 ? edge : c->tb_slabchunk ? face : 0;
    *zhi = c->k1 < c->nz ? edge : c->tb_slabchunk ? face : 0;
    if (c->k1 - c->k0 - *zlo - *zhi < 1)
        *zlo = *zhi = 0;
}

/* The band's planes a block where they differ from the slab parts'
 * (c->tb_bandz), else 0: where the planes that no z face chunk holds (all
 * of the rank's without them) lie, z halo included, clear of the z slabs,
 * every chunk of them, of any length, is whole in the band's x-y tiles
 * (tb_take), and the z part takes none of them.  (The corner columns'
 * 12-psi tiles could take chunks of their own the same way: measured
 * slower, docs/performance.md.) */
static inline int tb_band_kz(const cuda3d_engine *c)
{
    int zlo, zhi;
    tb_faces(c, &zlo, &zhi);
    const int a = c->k0 + zlo, b = c->k1 - zhi;
    if (c->tb_bandz <= 0 || b - a < 1 || tb_meets(a - c->tbk, b + c->tbk - 2, c->nz, c->N))
        return 0;
    return c->tb_bandz;
}

/* Instantiate X(T, F) for the engine's three modes (cuda3d_step). */
#define CUDA3D_INSTANTIATE_TF(X) X(double, false) X(float, true) X(float, false)

/* ---- cuda3d_kernels.cu: the two-kernel step (H, E kernels in place) ---- */
template <typename T, bool F>
int step_two(cuda3d_engine *c, const struct model *m, int n, char *err, size_t errlen);
/* Its copy of the coefficient table (cuda3d_cell.cuh), from c->cezh3_*. */
int kernels_set_cezh(const cuda3d_engine *c, char *err, size_t errlen);

/* ---- cuda3d_fused.cu: the fused kernel's step, its tiles, its table ---- */
template <typename T, bool F>
int step_fused(cuda3d_engine *c, const struct model *m, int n, char *err, size_t errlen);
int build_tile_sets(cuda3d_engine *c, char *err, size_t errlen);
int fused_set_cezh(const cuda3d_engine *c, char *err, size_t errlen);

/* ---- cuda3d_tb.cu: the temporal path ---- */
template <typename T, bool F>
int step_tb(cuda3d_engine *c, const struct model *m, int n, char *err, size_t errlen);
/* Why the temporal kernel cannot run this scene, or NULL (c's sizes, N and
 * slab set). */
const char *tb_refusal(const cuda3d_engine *c, const struct model *m);
/* Its coefficient table; with c->tb, its slot map and buffers (es bytes a value). */
int tb_setup(cuda3d_engine *c, const struct model *m, size_t es, char *err, size_t errlen);
/* cuda3d_halo.cu: the temporal path's exchange of K planes of the six fields
 * each way (the current buffers f[]), with a CPML their x and y psi too
 * (psi[]), after the work queued so far on the default stream and, with
 * NCCL, on the streams where the events `after` are recorded; the default
 * stream then waits for it, unless `defer` (the caller makes it wait,
 * halo_wait(c, true, 0, ..), once it has queued the work to overlap). */
int halo_deep(cuda3d_engine *c, const cudaEvent_t *after, int nafter, bool defer, char *err, size_t errlen);
void tb_free(cuda3d_engine *c);

/* ---- cuda3d_sources.cu: after the fields, every step and path ---- */
/* The slot values of step t into the device (waits for the last copy out
 * of the pinned buffer first); nothing without slots. */
template <typename T> int slots_upload(cuda3d_engine *c, const struct model *m, int t, char *err,
                                       size_t errlen);
/* The source slots (values from slots_upload), then the point source, into ez. */
template <typename T, bool F> void sources_apply(cuda3d_engine *c, const struct model *m, int t, T *ez);
/* The step's samples into the next row (f[] names the current fields). */
template <typename T> void take_samples(cuda3d_engine *c);

/* ---- cuda3d_mat.cu: mu_r and the dispersive entries ---- */
/* At create: the node map, the H slots, the entries, their table and state
 * (nothing for a scene without them). */
int mat_setup(cuda3d_engine *c, const struct model *m, size_t es, char *err, size_t errlen);
void mat_free(cuda3d_engine *c);
/* The H slots' and the entries' values of step t into the device. */
template <typename T> int mat_upload(cuda3d_engine *c, const struct model *m, int t, char *err,
                                     size_t errlen);
/* The H slots (after the H update, before Hx, Hy go to another rank). */
template <typename T, bool F> void hslots_apply(cuda3d_engine *c);
/* The dispersive entries (after E and Mur, before the source slots). */
template <typename T, bool F> void disp_apply(cuda3d_engine *c, const Dev3<T> &d);

/* ---- cuda3d_halo.cu: the MPI halo exchange ---- */
extern const char *const halo_names[];
int halo_setup(cuda3d_engine *c, int ndev, char *err, size_t errlen);
int halo_start(cuda3d_engine *c, bool up, void *const *fld, cudaStream_t after, char *err,
               size_t errlen);
int halo_wait(cuda3d_engine *c, bool up, cudaStream_t st, char *err, size_t errlen);
int halo_timer_take(cuda3d_engine *c, int q, char *err, size_t errlen);
/* The exchange's log line, staging planes, events, NCCL communicator, stream. */
void halo_free(cuda3d_engine *c);

#endif
