/* cuda3d.cu - the 3D CUDA engine: the update of cpu/update3d.inc, statement
 * for statement, float or double, with the CPML scheduled three ways
 * (Toivanen et al. 2011, "[boundary] strategy"):
 *   A1 combined:  psi updated inside the field kernels, where the cell lies
 *                 in a slab (one H and one E kernel over the whole grid);
 *   A2 regions:   a plain kernel over the interior box (no psi code) and one
 *                 kernel over the 26 PML regions (full update with psi);
 *   A3 per-face:  first one specialised kernel per face pair and field
 *                 (x, y, z normal) that updates exactly two psi (the psi
 *                 update reads only the other field, final at that point),
 *                 then a field kernel over the whole grid that reads the new
 *                 psi where a cell lies in a slab: d*ik + psi inside the
 *                 update's expression.
 * All three evaluate update3d.inc's expression per cell in its order, so they
 * agree bit for bit with each other and with cpu3d in float/FTZ and double.
 * (Until 2026-11-22 A3 ran the field kernel first with d*ik alone and the
 * face kernels then added ch*psi: ((h - ch*(a - b*ik)) + ch*psi) instead of
 * h - ch*(a - (b*ik + psi)), a different rounding order, rel L2 ~1e-6.)
 *
 * Materials as update3d.inc: each E component by the map of
 * cpu3d_e_materials (cpu/cpu3d.c: the corner's material, vacuum on an edge
 * that leaves a PEC corner for a vacuum one) and cezh[component][index];
 * mu_r (an H-node map) and dispersion poles (entries per E component) in
 * cuda3d_mat.cu, on the two-kernel path.
 * Staggering as update3d.inc: cell (i, j, k) holds Ex(i+1/2, j, k),
 * Ey(i, j+1/2, k), Ez(i, j, k+1/2), Hx(i, j+1/2, k+1/2), Hy(i+1/2, j, k+1/2),
 * Hz(i+1/2, j+1/2, k).  Arrays are [nz][ny][px] with the row pitch px = nx
 * rounded up to 32 elements, so every row starts on a 128-byte (float) line
 * and a warp reads one aligned, coalesced row segment (the coalescing
 * paper); threads map to (i, j) of one plane (32 x 8 blocks, a thread per
 * cell, the thread-mapping excerpt's x-y mapping, z from the grid).
 *
 * This file is the engine_ops glue: create (arrays, materials, profiles,
 * regions, slots, samples), destroy, the step dispatch, read, write, the
 * samples' read-back, the blow-up check, describe, and the benchmark
 * timers of cuda_api.h.  The update itself is in cuda3d_kernels.cu (the
 * two-kernel step, A1 A2 A3) and cuda3d_fused.cu (the fused kernel), the
 * sources and samples of a step in cuda3d_sources.cu, the MPI exchange in
 * cuda3d_halo.cu; cuda3d_internal.cuh holds the engine's struct and lists
 * the files.
 */
#include "cuda3d_internal.cuh"
#include "cuda_api.h"

/* What a plane of a z CPML slab costs against an interior plane when the
 * planes are split over ranks (measured: docs/performance.md). */
#define SPLIT_W_CPML 2.1

/* The step: the fused kernel or the two kernels (each path's file). */
template <typename T, bool F> static int step_t(cuda3d_engine *c, const struct model *m, int n,
                                                char *err, size_t errlen)
{
    if (c->tb)
        return step_tb<T, F>(c, m, n, err, errlen);
    if (c->fused)
        return step_fused<T, F>(c, m, n, err, errlen);
    return step_two<T, F>(c, m, n, err, errlen);
}

static int cuda3d_step(struct engine *e, int n, char *err, size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    CK(cudaSetDevice(c->dev));
    int rc;
    if (e->opt.precision == PRECISION_DOUBLE)
        rc = step_t<double, false>(c, e->model, n, err, errlen);
    else if (e->opt.denormals == DENORMALS_FLUSH)
        rc = step_t<float, true>(c, e->model, n, err, errlen);
    else
        rc = step_t<float, false>(c, e->model, n, err, errlen);
    if (rc) {
        c->failed = true;
        return rc;
    }
    cudaError_t ce = cudaGetLastError();
    if (ce == cudaSuccess)
        ce = cudaDeviceSynchronize(); /* asynchronous faults surface here; callers time whole calls */
    if (ce != cudaSuccess) {
        c->failed = true;
        return seterr(err, errlen, "cuda 3D: step %d: %s", e->step, cudaGetErrorString(ce));
    }
    for (int q = 0; q < RING; q++) /* every exchange has completed: sum their times */
        if (halo_timer_take(c, q, err, errlen))
            return -1;
    return 0;
}

static void cuda3d_destroy(struct engine *e)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    if (!c)
        return;
    for (int k = 0; k < 6; k++) {
        cudaFree(c->f[k]);
        cudaFree(c->fb[k]);
    }
    for (int k = 0; k < PSI_COUNT; k++) {
        cudaFree(c->psi[k]);
        cudaFree(c->psib[k]);
    }
    for (int a = 0; a < 6; a++)
        for (int q = 0; q < 3; q++)
            cudaFree(c->prof[a][q]);
    for (int q = 0; q < MUR_PLANES; q++)
        cudaFree(c->mur_old[q]);
    cudaFree(c->mat);
    free(c->mat_h);
    for (int q = 0; q < TS_COUNT; q++) {
        cudaFree(c->ts[q].t[0]);
        cudaFree(c->ts[q].t[1]);
    }
    tb_free(c);
    cudaFree(c->slot_cell);
    cudaFree(c->slot_pec);
    cudaFree(c->slot_v_d);
    cudaFreeHost(c->slot_v_h);
    if (c->slot_ev)
        cudaEventDestroy(c->slot_ev);
    mat_free(c);
    cudaFree(c->first_bad);
    cudaFree(c->smp_at);
    cudaFree(c->smp_f);
    cudaFree(c->smp_rows);
    free(c->smp_h);
    free(c->gather_h);
    halo_free(c);
    if (c->ps)
        cudaStreamDestroy(c->ps);
    if (c->ev_step)
        cudaEventDestroy(c->ev_step);
    if (c->ev_edges)
        cudaEventDestroy(c->ev_edges);
    decomp_free(&c->dc);
    free(c);
}

/* psi elements of one array along an axis: sides x N x the face's cells,
 * the x and y faces over this rank's own planes (and the temporal path's
 * ghost planes under MPI: psi_lo, psi_hi), the z faces only on the sides
 * this rank's planes reach (cpu3d.c's layout, rows padded to px) */
static size_t psi_elems(const cuda3d_engine *c, int axis)
{
    if (axis == 2)
        return (size_t)c->zsides * c->N * c->px * c->ny;
    return 2 * (size_t)psi_xy_planes(c) * psi_xy_plane(c, axis);
}

/* Does a ghost plane of the temporal path (K below k0, K above k1-1, where
 * a neighbour is) lie in a z CPML slab, E's or H's?  Its z psi are neither
 * held nor exchanged. */
static bool tb_ghost_meets_z_slab(const cuda3d_engine *c, int K)
{
    const int a = c->dc.lo ? c->k0 - K : c->k0, b = c->dc.hi ? c->k1 + K : c->k1;
    int kk;
    for (int k = a; k < b; k++)
        if ((k < c->k0 || k >= c->k1)
            && (dslab_e(c->nz, c->N, k, &kk) >= 0 || dslab_h(c->nz, c->N, k, &kk) >= 0))
            return true;
    return false;
}

static int field_index(enum field f);

/* The source slots of cells first .. end-1: a run *s0, *ns of the model's
 * list (in cell order). */
/* The rows of a tile a thread of the temporal path's tiles without psi
 * computes: 2 (k_tb3r) where asked and the precision is float, else 1. */
static int tb_rows(const cuda3d_engine *c, const struct engine_options *o)
{
    return c->tbr == 2 && o->precision != PRECISION_DOUBLE ? 2 : 1;
}

static void slot_run(const struct model *m, size_t first, size_t end, size_t *s0, size_t *ns)
{
    size_t a = 0, b;
    while (a < m->nslots && m->slot_cell[a] < first)
        a++;
    for (b = a; b < m->nslots && m->slot_cell[b] < end; b++)
        ;
    *s0 = a;
    *ns = b - a;
}

static int cuda3d_create(const struct model *m, const struct engine_options *o,
                         struct engine **out, char *err, size_t errlen)
{
    *out = NULL;
    if (m->nz < 2)
        return seterr(err, errlen, "cuda 3D engine: the scene is 2D");
    const int P = decomp_size();
    int dev = 0, want = o->device, ndev = 0;
    if (P > 1) { /* one GPU per rank: local rank mod the GPUs of this host (or --device) */
        cudaError_t e = cudaGetDeviceCount(&ndev);
        if (e != cudaSuccess || ndev == 0)
            return seterr(err, errlen, "rank %d of %d: no CUDA device: %s", decomp_rank(), P,
                          e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        if (want < 0)
            want = decomp_local_rank() % ndev;
    }
    cudaDeviceProp prop;
    if (cuda_pick_device(want, &dev, &prop, err, errlen))
        return -1;
    cuda3d_engine *c = (cuda3d_engine *)calloc(1, sizeof *c);
    if (!c)
        return seterr(err, errlen, "cuda 3D engine: out of host memory");
    c->dev = dev;
    snprintf(c->devname, sizeof c->devname, "%s (sm_%d%d, %.1f GiB)", prop.name, prop.major,
             prop.minor, prop.totalGlobalMem / 1073741824.0);
    c->nx = m->nx;
    c->ny = m->ny;
    c->nz = m->nz;
    c->px = (m->nx + 31) / 32 * 32;
    c->N = m->pml_n;
    c->strat = m->scene->cpml_strategy;
    const size_t es = precision_size(o->precision);
    const bool mur = m->scene->boundary == BOUNDARY_MUR;
    /* the slab: one rank holds every plane (kb = k0 = 0, k1 = nz).  Over
     * ranks the planes are split by cost: a plane of a z CPML slab costs
     * SPLIT_W_CPML interior planes (the fused kernel at 1024^3 on H200s,
     * 2026-11-22: 0.0541 against 0.0254 ms; docs/performance.md), so the
     * two end ranks, which hold those slabs, get fewer planes.
     * TEXFDTD_SPLIT = even | a weight overrides (bench/scale.sh). */
    double split_w = c->N > 0 ? SPLIT_W_CPML : 1.0;
    const char *se = getenv("TEXFDTD_SPLIT");
    if (se && *se) {
        char *end = NULL;
        const double w = strtod(se, &end);
        if (!strcmp(se, "even")) {
            split_w = 1.0;
        } else if (end != se && !*end && w >= 1.0 && w <= 100.0) {
            split_w = w;
        } else {
            free(c);
            return seterr(err, errlen, "TEXFDTD_SPLIT=%s: expected even or a weight from 1 to 100", se);
        }
    }
    if (decomp_slab_weighted(&c->dc, m->nx, m->ny, m->nz, es, c->N, split_w, err, errlen)) {
        decomp_free(&c->dc);
        free(c);
        return -1;
    }
    c->kb = decomp_kbase(&c->dc);
    c->k0 = c->dc.k0;
    c->k1 = c->dc.k1;
    c->nzl = (int)decomp_local_planes(&c->dc);
    c->plane = (size_t)c->px * c->ny;
    c->cells = c->plane * c->nzl;
    c->zsides = c->N ? slab3d_cpml_z_sides(c->nz, c->N, c->k0, c->k1, &c->zs0) : 0;
    if (c->N > 16 && c->strat == PML_PER_FACE) {
        const int N = c->N;
        decomp_free(&c->dc);
        free(c);
        return seterr(err, errlen, "cuda 3D: strategy per-face supports CPML up to 16 cells (%d)", N);
    }
    /* the step path: TEXFDTD_CUDA3D = fused (one kernel per step with
     * ping-pong buffers, for A1 and for no CPML) | two (H and E kernels in
     * place, as A2 and A3 always are).  Default: fused without a CPML, and
     * for A1 from 400^3 cells on (measured on the H100, 2026-11-22: A1
     * fused 5.09 vs 5.58 ms/step at 534^3, equal at 406^3, 23 % slower at
     * 278^3; see docs/performance-cuda.md).  TEXFDTD_CUDA3D_KZ = 32
     * (default, fastest), 64 or 128 planes per block.  Under MPI the size
     * that chooses is the rank's slab (both paths give the same bits and
     * exchange in the same order, so ranks may differ).
     * TEXFDTD_CUDA3D = temporal: K steps a launch (cuda3d_tb.cu; no CPML
     * or A1) where the scene allows it (tb_refusal), else the fused path (or
     * two kernels, as fused would); TEXFDTD_CUDA3D_K = 2, 3 (default), 4
     * steps a launch, TEXFDTD_CUDA3D_TY = 16 or 32 rows a tile,
     * TEXFDTD_CUDA3D_TBZ = planes a block (0: all).  The defaults are the
     * H100's best at 512^3 with K = 3 (docs/performance.md, with the inner
     * and one-axis kernels): TY 16 and 64-plane chunks without a CPML
     * (57.9 Gcells/s), TY 32 and 64-plane chunks with one (45.5, the z
     * slabs in chunks of their own); with two rows a thread in the tiles
     * without psi (k_tb3r, TEXFDTD_CUDA3D_TBR = 2, float) and the z faces
     * in chunks of their own, and with a CPML the slab parts on streams
     * of their own: 73.8 and 54.2 (2026-11-28); with 32-bit indices and
     * quiet tiles 91 and 62.1 on an H200 (2026-11-29). */
    {
        const char *pe = getenv("TEXFDTD_CUDA3D"), *ke = getenv("TEXFDTD_CUDA3D_KZ");
        if (pe && *pe && strcmp(pe, "two") && strcmp(pe, "fused") && strcmp(pe, "temporal")) {
            decomp_free(&c->dc);
            free(c);
            return seterr(err, errlen, "TEXFDTD_CUDA3D=%s: expected two, fused or temporal", pe);
        }
        /* the default for scenes without a CPML or with the A1 one from
         * 256^3 cells a rank on: the temporal path where it takes the scene
         * (measured on the H100 with 64-plane chunks, temporal against
         * fused: PEC walls 1.16x at 256^3, 1.27x at 320^3, 1.35x at 384^3,
         * 1.41x at 512^3; with a 10-cell A1 CPML 1.01x, 1.03x, 1.22x,
         * 1.34x; 1024^3 PEC 1.19x on an H200, 1.18x on 2; A1 1.31x on an
         * H200, 1.26x on 2; docs/performance.md).  Smaller grids: not
         * measured, the fused kernel.
         * The size is the grid's over the ranks, the same on every rank
         * (the temporal path's choice is collective under MPI). */
        const bool big = (double)c->nx * c->ny * (c->k1 - c->k0) >= 400.0 * 400.0 * 400.0;
        const bool asked = pe && !strcmp(pe, "temporal");
        const bool temporal = asked || ((!pe || !*pe)
                                         && (c->N == 0 || c->strat == PML_COMBINED)
                                         && (double)c->nx * c->ny * c->nz / c->dc.size >= 256.0 * 256.0 * 256.0);
        if (temporal) {
            const char *kk = getenv("TEXFDTD_CUDA3D_K"), *ty = getenv("TEXFDTD_CUDA3D_TY"),
                       *tz = getenv("TEXFDTD_CUDA3D_TBZ");
            c->tbk = kk && *kk ? atoi(kk) : 3;
            c->tby = ty && *ty ? atoi(ty) : c->N > 0 ? 32 : 16;
            /* chunks of 48 planes without a CPML (measured the fastest at
             * 256^3, 512^3 and 1024^3 on the H200, against 40 to 170).
             * With one, the band's chunks are 40 planes (tb_bandz; the
             * fastest at 512^3 on the H200) and the slab parts' longer:
             * fewer blocks marching further, as long as a block's march
             * stays well inside the step (256 planes at 512^3 cells a rank
             * on 132 SMs, in proportion to the cells an SM) and the rank's
             * planes less two z face chunks (tb_faces' N + K each, whether
             * or not the rank holds the faces) make at least two chunks (a
             * block of each slab tile at least twice); at least 40.  All
             * measured in docs/performance.md, "What each CPML part adds,
             * and the slab parts' chunks". */
            int zdef = 48;
            if (c->N > 0) {
                const double per_sm = (double)c->nx * c->ny * (c->k1 - c->k0) / prop.multiProcessorCount;
                const int mid = c->k1 - c->k0 - 2 * (c->N + c->tbk);
                const double byrate = 256.0 * per_sm / (512.0 * 512.0 * 512.0 / 132.0);
                zdef = (int)fmin(byrate, mid / 2);
                if (zdef < 40)
                    zdef = 40;
            }
            c->tbz = tz && *tz ? atoi(tz) : zdef;
            const char *tzb = getenv("TEXFDTD_CUDA3D_TBZB");
            c->tb_bandz = tzb && *tzb ? atoi(tzb) : c->N > 0 ? 40 : 0;
            const char *sc = getenv("TEXFDTD_CUDA3D_SLABCHUNK"); /* bench only: 0 = plain chunks */
            c->tb_slabchunk = !(sc && !strcmp(sc, "0"));
            const char *in = getenv("TEXFDTD_CUDA3D_INNER"); /* bench only: 0 = every tile tested */
            c->tb_inner = !(in && !strcmp(in, "0"));
            /* rows a thread in the tiles without psi: 2 (k_tb3r, float; the
             * default) or 1 (k_tb3) */
            const char *tr = getenv("TEXFDTD_CUDA3D_TBR");
            c->tbr = tr && *tr ? atoi(tr) : 2;
            /* the same in the one-axis slab tiles (float, K 3, TY 32:
             * tb_slab_rows2): 2 (the default) or 1 */
            const char *trs = getenv("TEXFDTD_CUDA3D_TBRS");
            c->tbrs = trs && *trs ? atoi(trs) : 2;
            if (c->tbk < 2 || c->tbk > 4 || (c->tby != 16 && c->tby != 32) || c->tbz < 0 || c->tb_bandz < 0
                || (c->tbr != 1 && c->tbr != 2) || (c->tbrs != 1 && c->tbrs != 2)) {
                decomp_free(&c->dc);
                free(c);
                return seterr(err, errlen, "TEXFDTD_CUDA3D=temporal: expected TEXFDTD_CUDA3D_K = "
                              "2, 3 or 4, TEXFDTD_CUDA3D_TY = 16 or 32, TEXFDTD_CUDA3D_TBZ >= 0 "
                              "(0: all planes), TEXFDTD_CUDA3D_TBZB >= 0 (0: as TBZ), "
                              "TEXFDTD_CUDA3D_TBR and TEXFDTD_CUDA3D_TBRS = 1 or 2");
            }
        }
        if (temporal || (pe && !strcmp(pe, "fused")))
            c->fused = c->N == 0 || c->strat == PML_COMBINED;
        else if (pe && !strcmp(pe, "two"))
            c->fused = false;
        else
            c->fused = c->N == 0 || (c->strat == PML_COMBINED && big);
        c->kz = ke ? atoi(ke) : 32;
        if (c->kz != 64 && c->kz != 128)
            c->kz = 32;
        /* TEXFDTD_CUDA3D_MAP=uncoalesced: the field kernels of the two-kernel
         * path map a warp's lanes along y, a row pitch apart (the coalescing
         * paper's comparison; benchmark only) */
        const char *me = getenv("TEXFDTD_CUDA3D_MAP");
        c->uncoalesced = me && !strcmp(me, "uncoalesced");
        if (c->uncoalesced)
            c->fused = false;
        /* mu_r and the dispersive entries run on the two-kernel path only
         * (cuda3d_mat.cu): the fused kernel declines them */
        if (c->fused && (m->magnetic || m->dispersive)) {
            c->fused = false;
            if (pe && !strcmp(pe, "fused"))
                log_info("cuda 3D: TEXFDTD_CUDA3D=fused: the fused kernel takes no mu_r nor "
                         "dispersion poles; two kernels per step");
        }
        if (temporal) {
            const char *why = c->fused ? tb_refusal(c, m)
                                       : "scene the fused kernel declines (a CPML other than "
                                         "combined, mu_r, poles)";
            c->tb = !why;
            if (why && asked)
                log_info("cuda 3D: TEXFDTD_CUDA3D=temporal: the temporal kernel takes no %s; "
                         "one step a launch", why);
            /* over MPI ranks: K ghost planes each side (exchanged once a
             * block), so every rank needs K planes of its own; with a CPML
             * the ghost planes' x and y psi are held and exchanged too, but
             * not their z psi, so no ghost plane may lie in a z slab.
             * Collective (every rank reaches it alike), so all take the
             * same path */
            if (c->dc.size > 1 && c->tb) {
                const unsigned long long least = decomp_min_u64((unsigned long long)(c->k1 - c->k0));
                const bool zslab = c->N && decomp_min_u64(tb_ghost_meets_z_slab(c, c->tbk) ? 0 : 1) == 0;
                if (least < (unsigned long long)c->tbk) {
                    c->tb = false;
                    log_info("cuda 3D: TEXFDTD_CUDA3D=temporal: a rank holds %llu planes, fewer "
                             "than K = %d; one step a launch", least, c->tbk);
                } else if (zslab) {
                    c->tb = false;
                    log_info("cuda 3D: TEXFDTD_CUDA3D=temporal: the temporal kernel takes no z "
                             "CPML slab in a rank's ghost planes (K = %d each side; their z psi "
                             "are not exchanged); one step a launch", c->tbk);
                } else {
                    decomp_set_halo_depth(&c->dc, c->tbk);
                    c->kb = decomp_kbase(&c->dc);
                    c->nzl = (int)decomp_local_planes(&c->dc);
                    c->cells = c->plane * c->nzl;
                    if (c->N) {
                        c->psi_lo = c->dc.lo;
                        c->psi_hi = c->dc.hi;
                    }
                }
            }
        }
        if (c->tb)
            log_info("cuda 3D: temporal path (%d steps per launch, tiles 32 x %d, %d planes a "
                     "block, %d rows a thread%s)", c->tbk, c->tby, c->tbz > 0 ? c->tbz : c->nz,
                     tb_rows(c, o), c->N ? " without psi" : "");
        else
            log_info("cuda 3D: %s%s", c->fused ? "fused path (one kernel per step)" : "two kernels per step",
                     c->uncoalesced ? ", un-coalesced thread mapping" : "");
    }
    /* this rank's source slots: those of planes k0 .. k1-1; the temporal
     * path's: those of every local plane, ghosts included */
    slot_run(m, (size_t)c->k0 * c->dc.plane, (size_t)c->k1 * c->dc.plane, &c->s0, &c->ns);
    slot_run(m, (size_t)c->kb * c->dc.plane, (size_t)(c->kb + c->nzl) * c->dc.plane, &c->tb_s0,
             &c->tb_ns);
    c->tb_ghosts = true; /* the fields start at zero everywhere */
    if (m->scene->source_type == SOURCE_POINT) {
        const size_t pcell = model_point_cell(m);
        const int kp = (int)(pcell / c->dc.plane);
        c->point = kp >= c->k0 && kp < c->k1;
        c->tb_point = kp >= c->kb && kp < c->kb + c->nzl;
        c->pc = (long long)(pcell % (size_t)c->nx)
                + ((long long)(pcell / (size_t)c->nx) - (long long)c->ny * c->kb) * c->px;
    }
    /* memory: 6 fields (twice when fused) + material over the padded local
     * planes, psi (the H psi twice when fused, the E psi too on the
     * temporal path), Mur planes */
    size_t psi = 0, murb = 0;
    if (c->N)
        for (int k = 0; k < PSI_COUNT; k++)
            psi += psi_elems(c, psi_axis_of(k)) * es * (c->fused && (k >= PSI_HXY || c->tb) ? 2 : 1);
    if (mur) {
        slab3d_mur_planes(c->mur, c->nx, c->ny, c->nz, c->px, c->k0, c->k1, c->kb);
        for (int q = 0; q < MUR_PLANES; q++)
            murb += slab3d_mur_cells(&c->mur[q]) * es;
    }
    const int nmaps = cpu3d_e_map_count(m); /* E maps: 3 with 3D smoothing */
    c->ms = nmaps > 1 ? (long long)c->cells : 0;
    const size_t per_cell = (c->fused ? 12 : 6) * es + (size_t)nmaps
                            + (m->hmat ? 3 : 0) /* + E maps + H-node map */
                            + (c->tb && c->ns ? sizeof(int) : 0) /* the temporal slot map */
                            + (c->tb && m->nsamples ? sizeof(int) : 0); /* and its sample map */
    const size_t need = c->cells * per_cell + psi + murb + c->ns * (8 + 1 + es)
                        + m->nsamples * ((size_t)m->sample_rows * es + 9) /* samples */
                        + (64u << 20) /* context and slack */;
    if (cuda_check_memory("cuda 3D", need, per_cell, err, errlen)) {
        decomp_free(&c->dc);
        free(c);
        return -1;
    }
#define ALLOC(p, bytes)                                                                       \
    do {                                                                                      \
        if (dev_alloc0((void **)&(p), (size_t)(bytes), err, errlen))                          \
            goto fail;                                                                        \
    } while (0)
    for (int k = 0; k < 6; k++) {
        ALLOC(c->f[k], c->cells * es);
        if (c->fused)
            ALLOC(c->fb[k], c->cells * es);
    }
    ALLOC(c->mat, c->cells * nmaps);
    if (!(c->mat_h = (uint8_t *)xcalloc((size_t)c->nzl * c->dc.plane * nmaps, 1, "E material map", err, errlen))
        || cpu3d_e_materials(m, c->kb, c->nzl, c->mat_h, c->cezh3_f, c->cezh3_d, c->slot_kind, err,
                             errlen))
        goto fail;
    cpu3d_e_ca(m, c->ca3_f, c->ca3_d);
    c->lossy = m->lossy;
    for (int a = 0; a < nmaps; a++)
        if (cudaMemcpy2D(c->mat + a * c->cells, c->px, c->mat_h + (size_t)a * c->nzl * c->dc.plane, m->nx,
                         m->nx, (size_t)m->ny * c->nzl, cudaMemcpyHostToDevice) != cudaSuccess) {
            seterr(err, errlen, "cuda 3D: cannot copy the material map");
            goto fail;
        }
    if (c->N) {
        for (int k = 0; k < PSI_COUNT; k++) {
            ALLOC(c->psi[k], psi_elems(c, psi_axis_of(k)) * es);
            if (c->fused && (k >= PSI_HXY || c->tb))
                ALLOC(c->psib[k], psi_elems(c, psi_axis_of(k)) * es);
        }
        const struct pml_axis *ax[6] = {&m->pml_xe, &m->pml_xh, &m->pml_ye,
                                        &m->pml_yh, &m->pml_ze, &m->pml_zh};
        const int len[6] = {m->nx, m->nx, m->ny, m->ny, m->nz, m->nz};
        for (int a = 0; a < 6; a++) {
            const void *src[3];
            if (es == 4) {
                src[0] = ax[a]->bf; src[1] = ax[a]->cf; src[2] = ax[a]->ikf;
            } else {
                src[0] = ax[a]->b; src[1] = ax[a]->c; src[2] = ax[a]->ik;
            }
            for (int q = 0; q < 3; q++) {
                ALLOC(c->prof[a][q], len[a] * es);
                if (cudaMemcpy(c->prof[a][q], src[q], len[a] * es, cudaMemcpyHostToDevice) != cudaSuccess) {
                    seterr(err, errlen, "cuda 3D: cannot copy CPML profiles");
                    goto fail;
                }
            }
        }
        /* A2's 26 regions: along each axis [0, N), [N, n-1-N), [n-1-N, n);
         * along z cut to this rank's planes, the empty ones dropped */
        const int n3[3] = {c->nx, c->ny, c->nz};
        int lo[3][3], hi[3][3];
        for (int a = 0; a < 3; a++) {
            lo[a][0] = 0; hi[a][0] = c->N;
            lo[a][1] = c->N; hi[a][1] = n3[a] - 1 - c->N;
            lo[a][2] = n3[a] - 1 - c->N; hi[a][2] = n3[a];
        }
        c->regions.n = 0;
        for (int z = 0; z < 3; z++)
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 3; x++) {
                    if (x == 1 && y == 1 && z == 1)
                        continue;
                    Box b = {lo[0][x], hi[0][x], lo[1][y], hi[1][y], lo[2][z], hi[2][z]};
                    b.z0 = b.z0 > c->k0 ? b.z0 : c->k0;
                    b.z1 = b.z1 < c->k1 ? b.z1 : c->k1;
                    if (b.z1 > b.z0)
                        c->regions.box[c->regions.n++] = b;
                }
    }
    if (c->fused && build_tile_sets(c, err, errlen))
        goto fail;
    if (mur)
        for (int q = 0; q < MUR_PLANES; q++)
            ALLOC(c->mur_old[q], slab3d_mur_cells(&c->mur[q]) * es);
    if (c->ns) {
        long long *cell = (long long *)malloc(c->ns * sizeof *cell);
        uint8_t *pec = (uint8_t *)malloc(c->ns);
        if (!cell || !pec) {
            free(cell);
            free(pec);
            seterr(err, errlen, "cuda 3D: out of host memory");
            goto fail;
        }
        for (size_t k = 0; k < c->ns; k++) {
            const size_t s = m->slot_cell[c->s0 + k];
            cell[k] = (long long)(s % (size_t)m->nx)
                      + ((long long)(s / (size_t)m->nx) - (long long)m->ny * c->kb) * c->px;
            pec[k] = c->slot_kind[c->mat_h[(nmaps - 1) * (size_t)c->nzl * c->dc.plane
                                           + s - (size_t)c->kb * c->dc.plane]]; /* the Ez map */
        }
        ALLOC(c->slot_cell, c->ns * sizeof *cell);
        ALLOC(c->slot_pec, c->ns);
        ALLOC(c->slot_v_d, c->ns * es);
        cudaError_t e1 = cudaMemcpy(c->slot_cell, cell, c->ns * sizeof *cell, cudaMemcpyHostToDevice);
        cudaError_t e2 = cudaMemcpy(c->slot_pec, pec, c->ns, cudaMemcpyHostToDevice);
        cudaError_t e3 = cudaMallocHost(&c->slot_v_h, c->ns * es);
        if (e3 == cudaSuccess)
            e3 = cudaEventCreateWithFlags(&c->slot_ev, cudaEventDisableTiming);
        free(cell);
        free(pec);
        if (e1 != cudaSuccess || e2 != cudaSuccess || e3 != cudaSuccess) {
            seterr(err, errlen, "cuda 3D: cannot set up the source slots");
            goto fail;
        }
    }
    if (m->nsamples) { /* this rank's samples: their array indices and fields */
        size_t *own = (size_t *)malloc(m->nsamples * sizeof *own);
        long long *at = (long long *)malloc(m->nsamples * sizeof *at);
        uint8_t *fq = (uint8_t *)malloc(m->nsamples);
        if (!own || !at || !fq) {
            free(own);
            free(at);
            free(fq);
            seterr(err, errlen, "cuda 3D: out of host memory");
            goto fail;
        }
        c->nown = decomp_own_samples(&c->dc, m->samples, m->nsamples, own);
        for (size_t q = 0; q < c->nown; q++) {
            const struct sample *x = &m->samples[own[q]];
            at[q] = (long long)(x->cell % (size_t)m->nx)
                    + ((long long)(x->cell / (size_t)m->nx) - (long long)m->ny * c->kb) * c->px;
            fq[q] = (uint8_t)field_index((enum field)x->field);
        }
        free(own);
        cudaError_t e1 = cudaMalloc((void **)&c->smp_at, (c->nown ? c->nown : 1) * sizeof *at);
        if (e1 == cudaSuccess)
            e1 = cudaMalloc((void **)&c->smp_f, c->nown ? c->nown : 1);
        if (e1 == cudaSuccess)
            e1 = cudaMalloc(&c->smp_rows, (size_t)m->sample_rows * (c->nown ? c->nown : 1) * es);
        if (e1 == cudaSuccess && c->nown)
            e1 = cudaMemcpy(c->smp_at, at, c->nown * sizeof *at, cudaMemcpyHostToDevice);
        if (e1 == cudaSuccess && c->nown)
            e1 = cudaMemcpy(c->smp_f, fq, c->nown, cudaMemcpyHostToDevice);
        free(at);
        free(fq);
        if (e1 != cudaSuccess) {
            seterr(err, errlen, "cuda 3D: cannot set up the monitor samples: %s", cudaGetErrorString(e1));
            goto fail;
        }
        if (c->dc.comm && !(c->smp_h = xcalloc((size_t)m->sample_rows * (c->nown ? c->nown : 1), es,
                                                "monitor sample rows", err, errlen)))
            goto fail;
    }
    if (mat_setup(c, m, es, err, errlen) || kernels_set_cezh(c, err, errlen)
        || fused_set_cezh(c, err, errlen) || tb_setup(c, m, es, err, errlen))
        goto fail;
    free(c->mat_h);
    c->mat_h = NULL;
#undef ALLOC
    if (P > 1) {
        if (halo_setup(c, o->device >= 0 ? 1 : ndev, err, errlen)) /* --device: all on one */
            goto fail;
        /* the temporal path's exchange overlapped with the chunks away
         * from the rank's edges (step_tb), with NCCL (or skipped, bench):
         * the same on every rank, as the exchange mode.
         * TEXFDTD_CUDA3D_TBOVERLAP=0: after the block; =1: the same split
         * with the host-staged exchange too, which then runs between the
         * edge chunks and the others, not beside them (tests: the split at
         * a rank with neighbours on both sides, which NCCL gets only from
         * 3 GPUs on) */
        const char *ov = getenv("TEXFDTD_CUDA3D_TBOVERLAP"), *ev = getenv("TEXFDTD_CUDA3D_TBEDGE");
        const bool nccl = c->halo == HALO_NCCL || c->halo == HALO_SKIP;
        const bool force = ov && !strcmp(ov, "1"), off = ov && !strcmp(ov, "0");
        c->tb_overlap = c->tb && (force || (nccl && !off));
        c->tb_edge = ev && *ev ? atoi(ev) : 40;
        if (c->tb_overlap)
            log_info("cuda 3D: temporal path: the exchange %s the chunks inside the ranks "
                     "(edge chunks of %d planes first)", nccl ? "overlapped with" : "before", tb_edge_planes(c));
        char where[400];
        snprintf(where, sizeof where, "GPU %d of %d (local rank %d): %.250s, halo %s", dev,
                 ndev ? ndev : 1, decomp_local_rank(), c->devname, halo_names[c->halo]);
        decomp_log_map(&c->dc, where);
    }
    *out = &c->base;
    return 0;
fail:
    cuda3d_destroy(&c->base);
    return -1;
}

static int field_index(enum field f)
{
    switch (f) {
    case FIELD_EX: return 0;
    case FIELD_EY: return 1;
    case FIELD_EZ: return 2;
    case FIELD_HX: return 3;
    case FIELD_HY: return 4;
    case FIELD_HZ: return 5;
    default: return -1;
    }
}

/* The sample rows since the last read: one copy out of the device; one
 * rank straight into dst, MPI (collective) through the host to rank 0
 * (decomp_gather_samples). */
static int cuda3d_read_samples(struct engine *e, void *dst, int rows, char *err, size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    const struct model *m = e->model;
    if (rows != c->smp_n)
        return seterr(err, errlen, "monitor samples: %d rows asked for, %d recorded", rows,
                      c->smp_n);
    c->smp_n = 0;
    if (!m->nsamples)
        return 0;
    const size_t bytes = (size_t)rows * c->nown * precision_size(e->opt.precision);
    CK(cudaSetDevice(c->dev));
    if (!c->dc.comm) {
        if (bytes)
            CK(cudaMemcpy(dst, c->smp_rows, bytes, cudaMemcpyDeviceToHost));
        return 0;
    }
    if (bytes) {
        const cudaError_t ce = cudaMemcpy(c->smp_h, c->smp_rows, bytes, cudaMemcpyDeviceToHost);
        if (ce != cudaSuccess) /* the other ranks are on their way into the gather */
            decomp_abort(1, "cuda 3D: reading the monitor samples back: %s", cudaGetErrorString(ce));
    }
    return decomp_gather_samples(&c->dc, m->samples, m->nsamples, c->smp_h, rows, dst, err, errlen);
}

/* One rank: the field straight into dst.  MPI: collective; this rank's
 * planes go to the host (gather_h, laid out as the local planes) and
 * decomp_gather puts every rank's on rank 0. */
static int cuda3d_read(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    const int q = field_index(f);
    if (q < 0)
        return seterr(err, errlen, "cuda 3D engine: no field %s", field_name(f));
    const size_t es = precision_size(e->opt.precision);
    CK(cudaSetDevice(c->dev));
    if (!c->dc.comm) {
        CK(cudaMemcpy2D(dst, c->nx * es, c->f[q], c->px * es, c->nx * es, (size_t)c->ny * c->nz,
                        cudaMemcpyDeviceToHost));
        return 0;
    }
    const size_t up = c->dc.plane * es; /* bytes of an unpadded plane */
    if (!c->gather_h && !(c->gather_h = xcalloc((size_t)c->nzl, up, "read-back planes", err, errlen)))
        decomp_abort(1, "%s", err); /* the other ranks are in the gather already */
    const size_t lo = (size_t)c->dc.lo, nzo = (size_t)(c->k1 - c->k0);
    cudaError_t ce = cudaMemcpy2D((char *)c->gather_h + lo * up, c->nx * es,
                                  (const char *)c->f[q] + lo * c->plane * es, c->px * es,
                                  c->nx * es, (size_t)c->ny * nzo, cudaMemcpyDeviceToHost);
    if (ce != cudaSuccess)
        decomp_abort(1, "cuda 3D: reading %s back: %s", field_name(f), cudaGetErrorString(ce));
    return decomp_gather(&c->dc, c->gather_h, dst, err, errlen);
}

static int cuda3d_write(struct engine *e, enum field f, const void *src, char *err, size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    const int q = field_index(f);
    if (q < 0)
        return seterr(err, errlen, "cuda 3D engine: no field %s", field_name(f));
    const size_t es = precision_size(e->opt.precision);
    CK(cudaSetDevice(c->dev));
    /* src is the whole field on every rank: this rank's planes, halos included */
    src = (const char *)src + (size_t)c->kb * c->dc.plane * es;
    CK(cudaMemcpy2D(c->f[q], c->px * es, src, c->nx * es, c->nx * es, (size_t)c->ny * c->nzl,
                    cudaMemcpyHostToDevice));
    if (c->fb[q]) /* the ping-pong twin: cells a step never updates read the same in both */
        CK(cudaMemcpy2D(c->fb[q], c->px * es, src, c->nx * es, c->nx * es, (size_t)c->ny * c->nz,
                        cudaMemcpyHostToDevice));
    return 0;
}

/* The blow-up check on the device (cuda_first_bad), the fields in
 * scene_fields() order (ex ey ez hx hy hz), the rows of a field its
 * planes' (cells in the unpadded [nz][ny][nx] numbering).  Under MPI each rank
 * scans its own planes (halos are another rank's to check) and the ranks
 * agree on the first bad field and cell (decomp_min_u64), as cpu3d does, so
 * that every rank stops at the same step with the same message. */
static int cuda3d_check_finite(struct engine *e, enum field *f, size_t *cell, char *err,
                               size_t errlen)
{
    cuda3d_engine *c = (cuda3d_engine *)e;
    enum field order[6];
    const int nf = scene_fields(e->model->scene, order);
    const size_t skip = (size_t)c->dc.lo * c->plane * c->dc.elem; /* bytes below plane k0 */
    const void *a[6];
    for (int k = 0; k < nf; k++)
        a[k] = (const char *)c->f[field_index(order[k])] + skip;
    unsigned long long first[6];
    CK(cudaSetDevice(c->dev));
    if (cuda_first_bad(a, nf, c->nx, (long long)c->ny * (c->k1 - c->k0), c->px, precision_size(e->opt.precision),
                       &c->first_bad, first, err, errlen))
        return -1;
    if (!c->dc.comm) {
        for (int k = 0; k < nf; k++)
            if (first[k] != ~0ull) {
                *f = order[k];
                *cell = (size_t)first[k];
                return 1;
            }
        return 0;
    }
    /* field position * ncells + global cell, least over the ranks */
    const size_t ncells = e->model->ncells, below = (size_t)c->k0 * c->dc.plane;
    unsigned long long mine = ~0ull;
    for (int k = 0; k < nf && mine == ~0ull; k++)
        if (first[k] != ~0ull)
            mine = (unsigned long long)k * ncells + below + first[k];
    const unsigned long long all = decomp_min_u64(mine);
    if (all == ~0ull)
        return 0;
    *f = order[all / ncells];
    *cell = (size_t)(all % ncells);
    return 1;
}

static void cuda3d_describe(const struct engine *e, struct engine_info *info)
{
    const cuda3d_engine *c = (const cuda3d_engine *)e;
    static const char *const st[] = {"A1 combined", "A2 regions", "A3 per-face"};
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(info->engine, sizeof info->engine, "cuda");
    snprintf(info->device, sizeof info->device, "%.250s", c->devname);
    snprintf(info->detail, sizeof info->detail,
             "3D Yee, %s%s, CUDA driver %d, runtime %d, row pitch %d, CPML %s, denormals %s",
             c->tb ? "temporally blocked kernel" : c->fused ? "fused z-marching kernel" : "two kernels per step",
             c->uncoalesced ? " (un-coalesced mapping)" : "", drv, rt, c->px,
             c->N ? st[c->strat] : "none",
             e->opt.precision == PRECISION_DOUBLE ? "keep (double)" : denormals_name(e->opt.denormals));
    if (c->tb)
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 "; %d steps per launch, tiles 32 x %d, %d planes a block, %d rows a thread%s", c->tbk,
                 c->tby, c->tbz > 0 ? c->tbz : c->nz, tb_rows(c, &e->opt), c->N ? " in the tiles without psi" : "");
    if (c->tb && c->N && e->opt.precision != PRECISION_DOUBLE && tb_slab_rows2(c))
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 ", 2 in the one-axis slab tiles");
    if (c->tb && e->opt.precision != PRECISION_DOUBLE && tb_band_on(c)) {
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 "; the tiles clear of the slabs 32 x 16");
        if (tb_band_kz(c))
            snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                     " in chunks of %d planes", tb_band_kz(c));
    }
    if (c->tb && c->tb_skip)
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 "; parts left out (TEXFDTD_CUDA3D_TBSKIP=%d): timing only, the fields wrong", c->tb_skip);
    if (c->tb && e->opt.precision != PRECISION_DOUBLE && c->tb_pss)
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 "; the 12-psi tiles' psi in shared memory");
    if (c->tb && tb_rows(c, &e->opt) == 2 && !c->tb_ix32)
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 ", 64-bit array indices");
    if (c->dc.size > 1) /* the device line is rank 0's; each rank has its own */
        snprintf(info->detail + strlen(info->detail), sizeof info->detail - strlen(info->detail),
                 "; MPI: %d ranks, z slabs, one GPU each, halo %s%s, rank 0 gathers", c->dc.size,
                 halo_names[c->halo],
                 !c->tb_overlap ? "" : c->halo == HALO_HOST ? " (before the chunks inside)"
                                                            : " (overlapped with the chunks inside)");
}

extern "C" const struct engine_ops cuda3d_engine_ops = {
    "cuda",
    ENGINE_CAP_3D | ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_POINT | ENGINE_CAP_MPI
        | ENGINE_CAP_MONITORS | ENGINE_CAP_LOSSY | ENGINE_CAP_MAGNETIC | ENGINE_CAP_DISPERSIVE,
    "3D CUDA, float or double, CPML strategies combined | regions | per-face, MPI z slabs (a GPU a rank)",
    cuda3d_create,
    cuda3d_step,
    cuda3d_read,
    cuda3d_describe,
    cuda3d_destroy,
    cuda3d_write,
    NULL, /* render_rgba */
    cuda3d_check_finite,
    NULL, /* state: no checkpoints yet */
    cuda3d_read_samples,
};

/* Benchmark support (cuda_api.h). */
extern "C" int texfdtd_cuda_time_steps(struct engine *e, int steps, double *ms, char *err,
                                       size_t errlen)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    if (engine_step(e, steps, err, errlen))
        return -1;
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    *ms = t;
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return 0;
}

extern "C" int texfdtd_cuda_copy_bandwidth(size_t bytes, int reps, double *gbs, char *err,
                                           size_t errlen)
{
    void *x, *y;
    CK(cudaMalloc(&x, bytes));
    CK(cudaMalloc(&y, bytes));
    CK(cudaMemset(x, 1, bytes));
    CK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    for (int r = 0; r < reps; r++)
        CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    /* read + write: 2 bytes moved per byte copied */
    *gbs = 2.0 * (double)bytes * reps / (t * 1e-3) / 1e9;
    cudaFree(x);
    cudaFree(y);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return 0;
}
