/* cpu2d.c - the plain-C CPU engine: 2D TMz FDTD in float or double.
 *
 * The update itself, with its exact operation order, is in update2d.inc;
 * its arithmetic in core/yee.h.
 * This file owns the arrays, the denormal mode and the engine interface.
 */
#define _GNU_SOURCE
#include "core/engine.h"
#include "core/util.h"
#include "cpucommon.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xmmintrin.h>
#ifdef _OPENMP
#include <omp.h>
#endif

struct cpu_fields {
    enum cpu_isa isa;   /* the row kernels' instruction set (update2d.inc ROWS) */
    void *ez, *hx, *hy; /* REAL[ny][nx] each */
    void *ez_mem, *hx_mem, *hy_mem; /* their allocations (ARRAY_STAGGER) */
    /* the row pitch of ez, hx, hy and each DFT sum (elements; nx but for
     * the tiled sweep: cpu_create), and their size nxp ny: cell c = i + j nx
     * of the model is element i + j nxp (model arrays: mat, slots, keep nx;
     * the scenes of the row extras and the monitors never run padded) */
    size_t nxp, nfield;
    bool *vacuum_row;   /* row j holds vacuum cells only */
    bool *fuse_row;     /* row j takes the fused row kernel (update2d.inc he_fuse) */
    /* the fused kernel's first and last cells of a row segment as part
     * vectors (rows2d.inc hez_part), not one by one (TEXFDTD_CPU_PART=0:
     * one by one; for measurements) */
    bool part_vec;
    /* the runs of one material along the rows that the fused kernel may
     * take (update2d.inc he_row): row j's runs start at the columns
     * run_at[run_row[j]] .. run_at[run_row[j + 1] - 1], the first at 0, each
     * up to the next (the last to nx); a row without runs here (run_row[j]
     * = run_row[j + 1]) never takes the fused kernel (runs_build) */
    int *run_at;
    size_t *run_row;
    /* CPML memory, only inside the slabs (N = model->pml_n):
     * psi_hxy, psi_ezy: [2 sides][N rows][nx]; psi_hyx, psi_ezx: [2][ny][N] */
    void *psi_hxy, *psi_ezy, *psi_hyx, *psi_ezx;
    void *mur_old, *mur_wall; /* Mur: old rows 1, ny-2 and 0, ny-1: [2][nx] */
    void *dft_re, *dft_im;    /* [nfreq][ny][nx] when the scene has [monitor.dft] */
    void *cut_old, *cut_v;    /* conformal PEC: old H and b^n per cut edge */
    void *tecut_old, *tecut_v; /* TE conformal PEC: Hz^n and b^n per cut cell */
    /* H-node map (core/model.h hmat): row j's Hx and Hy nodes all index 0;
     * the coefficients hmats[].ch in the engine's precision; this step's
     * H-slot values */
    bool *hvac_row;
    const void *hc;
    const void *hca; /* TE lossy edges (model->hlossy): hmats[].ca; NULL otherwise */
    void *hslot_v;
    /* TE off-diagonal edges (core/model.h hoff): this step's w and u [nhoff] */
    void *hoff_v, *hoff_u;
    /* dispersive TE edges (core/model.h hdisp): as disp_* below, [nhdisp] */
    void *hdisp_ds, *hdisp_ei, *hdisp_v, *hdisp_p, *hdisp_pold;
    /* dispersive cells (core/model.h disp_cell): D_s, Ei^n, this step's
     * Ei^{n+1} [ndisp] and P^n, P^{n-1} [ndisp][SCENE_MAX_POLES] */
    void *disp_ds, *disp_ei, *disp_v, *disp_p, *disp_pold;
};

struct cpu_engine {
    struct engine base;
    struct cpu_fields f;
    void *slot_v;       /* REAL[nslots]: this step's slot values */
    struct cpu_samples samples; /* the monitors' gather */
    float cezh_f[MODEL_MAX_MATERIALS]; /* cb: = cezh where sigma = 0 */
    double cezh_d[MODEL_MAX_MATERIALS];
    float hc_f[MODEL_MAX_MATERIALS];
    double hc_d[MODEL_MAX_MATERIALS];
    float hca_f[MODEL_MAX_MATERIALS];
    double hca_d[MODEL_MAX_MATERIALS];
    float ca_f[MODEL_MAX_MATERIALS];   /* ca, used when model->lossy */
    double ca_d[MODEL_MAX_MATERIALS];
    int threads;
    /* temporal blocking (update2d.inc tb_sweep): kk steps a sweep where the
     * scene allows it (tb_ok; TEXFDTD_CPU_TB=K, 1 = off), their slot values
     * [tb_k][nslots], the slots' first index per row [ny + 1] */
    int tb_k;
    int tb_rows; /* rows of a wavefront position (TEXFDTD_CPU_TB_ROWS; tb_default) */
    /* the tiled sweep (update2d.inc tb_tiled_sweep): tiles of about tb_tile
     * columns (TEXFDTD_CPU_TB_TILE; 0: tb_sweep, the full width), shaped
     * TB_SHAPE_SKEW or TB_SHAPE_SPLIT (TEXFDTD_CPU_TB_SHAPE) */
    int tb_tile, tb_shape;
    void *tb_slot_v;
    size_t *slot_row;
};

/* Model cell c (c = i + j nx) in the field arrays (pitch nxp). */
static inline size_t fcell(const struct cpu_fields *f, int nx, size_t c)
{
    return f->nxp == (size_t)nx ? c : c / (size_t)nx * f->nxp + c % (size_t)nx;
}

#define REAL float
#define REAL_SIZE 4
#define SUFFIX _f
#include "update2d.inc"
#undef REAL
#undef REAL_SIZE
#undef SUFFIX
cpu_hez_vac_f cpu2d_hez_vac_f(enum cpu_isa isa)
{
    return rows2d_sets_f[isa]->hez_vac;
}
#define REAL double
#define REAL_SIZE 8
#define SUFFIX _d
#include "update2d.inc"
#undef REAL
#undef REAL_SIZE
#undef SUFFIX

/* The runs of one material along each row that the fused row kernel may
 * take (cpu_fields run_at, run_row): a vacuum row (one run), and, in a
 * scene whose E update has no ca (not a lossy TM scene: the fused kernel
 * computes ez + cb curl, yee_curl_add, as ez_plain does there for every
 * material), a row whose runs are 16 cells long on the average or more
 * (shorter ones cost the fused kernel a call and a scalar head and tail
 * each; the kernels apart take such a row). */
static int runs_build(struct cpu_fields *f, const struct model *m, char *err, size_t errlen)
{
    const int nx = m->nx, ny = m->ny;
    const bool elossy = m->lossy && !m->scene->te;
    if (!(f->run_row = xcalloc((size_t)ny + 1, sizeof *f->run_row, "material runs", err, errlen)))
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = 0;
        for (int j = 0; j < ny; j++) {
            const uint8_t *row = m->mat + (size_t)j * (size_t)nx;
            int runs = 1;
            for (int i = 1; i < nx; i++)
                runs += row[i] != row[i - 1];
            f->run_row[j] = n;
            if (!(runs == 1 && row[0] == 0) && (elossy || (long)runs * 16 > nx))
                continue;
            for (int i = 0; i < nx; i++)
                if (i == 0 || row[i] != row[i - 1]) {
                    if (pass)
                        f->run_at[n] = i;
                    n++;
                }
        }
        f->run_row[ny] = n;
        if (!pass && !(f->run_at = xcalloc(n ? n : 1, sizeof *f->run_at, "material runs", err,
                                          errlen)))
            return -1;
    }
    return 0;
}

static void cpu_destroy(struct engine *e)
{
    struct cpu_engine *c = (struct cpu_engine *)e;
    free(c->f.ez_mem);
    free(c->f.hx_mem);
    free(c->f.hy_mem);
    free(c->f.vacuum_row);
    free(c->f.fuse_row);
    free(c->f.run_at);
    free(c->f.run_row);
    free(c->f.psi_hxy);
    free(c->f.psi_ezy);
    free(c->f.psi_hyx);
    free(c->f.psi_ezx);
    free(c->f.mur_old);
    free(c->f.mur_wall);
    free(c->f.dft_re);
    free(c->f.dft_im);
    free(c->f.cut_old);
    free(c->f.cut_v);
    free(c->f.tecut_old);
    free(c->f.tecut_v);
    free(c->f.hvac_row);
    free(c->f.hslot_v);
    free(c->f.hoff_v);
    free(c->f.hoff_u);
    free(c->f.disp_ds);
    free(c->f.disp_ei);
    free(c->f.disp_v);
    free(c->f.disp_p);
    free(c->f.disp_pold);
    free(c->f.hdisp_ds);
    free(c->f.hdisp_ei);
    free(c->f.hdisp_v);
    free(c->f.hdisp_p);
    free(c->f.hdisp_pold);
    free(c->slot_v);
    free(c->tb_slot_v);
    free(c->slot_row);
    cpu_samples_free(&c->samples);
    free(c);
}

/* Whether the temporally blocked sweep runs this scene: TM without the
 * per-row extras of update_h_row (cut edges, H-node maps, TE edges), without
 * dispersive cells (their pass follows the whole sweep) and without
 * monitors' samples (taken after each whole step); column strips of at
 * least 2 cells a thread. */
static bool tb_ok(const struct model *m, int threads)
{
    return !m->scene->te && !m->hmat && !m->ncut && !m->ntecut && !m->nhoff && !m->ndisp
           && !m->nhdisp && !m->nsamples && m->ny >= 3 && m->nx >= 2 * threads;
}

/* A core's L2 in bytes (sysconf; 1 MiB where it does not say). */
static long l2_bytes(void)
{
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? l2 : 1 << 20;
}

/* The tile width of the tiled sweep (update2d.inc tb_tiled_sweep) at kk
 * steps a sweep: the rows in flight in a tile (kk + 2: one row of lag a
 * level, and the rows on either side) of W + kk columns (the skewed tile's
 * reach) of every array the wavefront touches (Ez, Hx, Hy, the material
 * row; the DFT sums, 2 a frequency) fill half of a core's L2 (sysconf; 1
 * MiB where it does not say), the other half left to the rows streaming in
 * and out; for the split tiles (several threads) at most nx / (2 threads),
 * two sub-tiles to a thread's trapezoid (at 4096² and 8192², two threads,
 * K = 16, 1024 and 2048 columns were the fastest measured, and one
 * sub-tile of 2048 at 4096² was slower: 4.77 against 5.42 Gcells/s,
 * docs/performance.md); a multiple of 16 columns, at least 16, at most nx
 * (one tile: the band of rows alone fits). */
static int tb_tile_width(const struct model *m, size_t elem, int kk, int threads, int shape)
{
    const long l2 = l2_bytes();
    const size_t cell = 3 * elem + 1 + (m->scene->dft ? 2 * (size_t)m->scene->dft_nfreq * elem : 0);
    long w = (long)((size_t)l2 / 2 / ((size_t)(kk + 2) * cell)) - kk;
    if (shape == TB_SHAPE_SPLIT && threads > 1 && w > m->nx / (2 * threads))
        w = m->nx / (2 * threads);
    w = w / 16 * 16;
    if (w < 16)
        w = 16;
    return w < m->nx ? (int)w : m->nx;
}

/* The default sweep (TEXFDTD_CPU_TB unset), from the measurements of
 * docs/performance.md ("CPU temporal blocking in tiles", "AVX-512 on an
 * Intel CPU"): where the three field arrays do not fit the last-level
 * cache (TB_DEFAULT_BYTES: 32 MiB, that of the machines measured; the plain
 * sweep then streams them from memory every step), the tiled sweep, K = 16
 * steps, tiles of tb_tile_width (tile = -1), skewed on one thread, split on
 * more: 2.2 to 2.4 times the plain sweep (with the fused row kernel) on
 * one thread, 1.3 to 2.4 on two, at 2048² to 8192² (AMD Zen 4; 1.7 to 2.2
 * on an Intel Cascade Lake).  Where they fit, the plain sweep: in cache it
 * is about as fast on one thread (Zen 4, 1024²: 2.92 against 2.83 Gcells/s)
 * and faster on two (5.83 against 2.50 to 3.8).  But on one thread with
 * the AVX-512 kernels (isa; an Intel CPU's default), the tiled sweep from
 * where the arrays pass 1.5 times the L2: its band of rows stays in the
 * L2 where the plain sweep streams from the L3 (Cascade Lake, 384² to
 * 1024²: 1.06 to 1.18 times the plain sweep; 320², inside: 0.98). */
#define TB_DEFAULT_BYTES ((size_t)32 << 20)
static void tb_default(const struct model *m, size_t elem, enum cpu_isa isa, int threads, int *k,
                       int *rows, int *tile)
{
    const long l2 = l2_bytes();
    const size_t bytes = 3 * m->ncells * elem;
    const bool big = bytes > TB_DEFAULT_BYTES
                     || (threads == 1 && isa == CPU_ISA_AVX512 && bytes > (size_t)l2 * 3 / 2);
    *k = big ? 16 : 1;
    *rows = 1;
    *tile = big ? -1 : 0;
}

/* The three field arrays start staggered (elements from a 64-byte
 * boundary): array k at k (43 KiB + 21 cache lines), so that row j of Ez,
 * Hx and Hy fall in different sets of the L1 (4 KiB a way) and the L2
 * (128 KiB a way at 1 MiB, 8 ways) when nx is a power of two; the tiled
 * sweep keeps a band of a few rows of each live (update2d.inc). */
#define ARRAY_STAGGER(k, elem) ((size_t)(k) * (43 * 1024 + 21 * 64) / (elem))

/* The row pitch for nx elements of elem bytes: nx, or where nx elem lies
 * within 2 cache lines of a multiple of 1 KiB, the next multiple of a
 * cache line that lies 2 lines clear: rows then step through the L1's 64
 * sets (4 KiB a way) and the L2's 2048 (128 KiB a way) instead of landing
 * on a few. */
static size_t row_pitch(int nx, size_t elem)
{
    size_t p = (size_t)nx;
    const size_t line = 64 / elem;
    for (;;) {
        const size_t r = p * elem % 1024;
        if (r >= 128 && r <= 1024 - 128)
            return p;
        p = (p + line) / line * line;
    }
}

static int cpu_create(const struct model *m, const struct engine_options *o, struct engine **out,
                      char *err, size_t errlen)
{
    struct cpu_engine *c = xcalloc(1, sizeof *c, "cpu engine", err, errlen);
    if (!c)
        return -1;
    const size_t elem = precision_size(o->precision);
    if (cpu_isa_choose(&c->f.isa, true, err, errlen)) {
        cpu_destroy(&c->base);
        return -1;
    }
    c->threads = cpu_threads(o->threads);
    /* the sweep: TEXFDTD_CPU_TB = K (1: the plain one),
     * TEXFDTD_CPU_TB_TILE = W (0: the untiled sweep, tb_sweep; "auto": the
     * width of tb_tile_width) and TEXFDTD_CPU_TB_ROWS = B (the untiled
     * sweep's rows a position; set without W: the untiled sweep) where set,
     * else tb_default's choice (K set alone: the tiled sweep, width auto);
     * TEXFDTD_CPU_TB_SHAPE = skew or split (default: skew on one thread,
     * split on more) */
    const char *tb = getenv("TEXFDTD_CPU_TB"), *tr = getenv("TEXFDTD_CPU_TB_ROWS");
    const char *tt = getenv("TEXFDTD_CPU_TB_TILE"), *ts = getenv("TEXFDTD_CPU_TB_SHAPE");
    tb_default(m, elem, c->f.isa, c->threads, &c->tb_k, &c->tb_rows, &c->tb_tile);
    if (tb && *tb) {
        c->tb_k = atoi(tb);
        c->tb_rows = 1;
        c->tb_tile = -1;
    }
    if (tr && *tr) {
        c->tb_rows = atoi(tr);
        c->tb_tile = 0;
    }
    if (c->tb_k < 1 || c->tb_k > 64)
        c->tb_k = 1;
    if (c->tb_rows < 1 || c->tb_rows > 64)
        c->tb_rows = 1;
    c->tb_shape = c->threads == 1 ? TB_SHAPE_SKEW : TB_SHAPE_SPLIT;
    if (ts && !strcmp(ts, "skew"))
        c->tb_shape = TB_SHAPE_SKEW;
    else if (ts && !strcmp(ts, "split"))
        c->tb_shape = TB_SHAPE_SPLIT;
    else if (ts && *ts) {
        seterr(err, errlen, "TEXFDTD_CPU_TB_SHAPE=%s: not skew or split", ts);
        cpu_destroy(&c->base);
        return -1;
    }
    if (tt && *tt)
        c->tb_tile = !strcmp(tt, "auto") ? -1 : atoi(tt);
    if (c->tb_tile < 0)
        c->tb_tile = tb_tile_width(m, elem, c->tb_k, c->threads, c->tb_shape);
    /* the row pitch of the field arrays: nx, or for the tiled sweep, where
     * nx elements come within 2 cache lines of a multiple of 1 KiB (a power
     * of two: every row of a tile's band in the same L1 sets, every 8th or
     * 4th in the same L2 sets), the next pitch clear of that (row_pitch) */
    c->f.nxp = (size_t)m->nx;
    if (c->tb_k > 1 && c->tb_tile && tb_ok(m, c->threads))
        c->f.nxp = row_pitch(m->nx, elem);
    c->f.nfield = c->f.nxp * (size_t)m->ny;
    const size_t nf = c->f.nfield;
    if (!(c->f.ez_mem = cpu_alloc_huge(nf + ARRAY_STAGGER(0, elem), elem, "Ez", err, errlen))
        || !(c->f.hx_mem = cpu_alloc_huge(nf + ARRAY_STAGGER(1, elem), elem, "Hx", err, errlen))
        || !(c->f.hy_mem = cpu_alloc_huge(nf + ARRAY_STAGGER(2, elem), elem, "Hy", err, errlen))
        || !(c->f.ez = (char *)c->f.ez_mem + ARRAY_STAGGER(0, elem) * elem)
        || !(c->f.hx = (char *)c->f.hx_mem + ARRAY_STAGGER(1, elem) * elem)
        || !(c->f.hy = (char *)c->f.hy_mem + ARRAY_STAGGER(2, elem) * elem)
        || !(c->f.vacuum_row = xcalloc((size_t)m->ny, 1, "row flags", err, errlen))
        || !(c->slot_v = xcalloc(m->nslots, elem, "slot values", err, errlen))
        || (m->pml_n
            && (!(c->f.psi_hxy = xcalloc(2 * (size_t)m->pml_n * m->nx, elem, "CPML psi", err, errlen))
                || !(c->f.psi_ezy = xcalloc(2 * (size_t)m->pml_n * m->nx, elem, "CPML psi", err, errlen))
                || !(c->f.psi_hyx = xcalloc(2 * (size_t)m->pml_n * m->ny, elem, "CPML psi", err, errlen))
                || !(c->f.psi_ezx = xcalloc(2 * (size_t)m->pml_n * m->ny, elem, "CPML psi", err, errlen))))
        || (m->scene->boundary == BOUNDARY_MUR
            && (!(c->f.mur_old = xcalloc(2 * (size_t)m->nx, elem, "Mur rows", err, errlen))
                || !(c->f.mur_wall = xcalloc(2 * (size_t)m->nx, elem, "Mur rows", err, errlen))))
        || (m->ncut
            && (!(c->f.cut_old = xcalloc(m->ncut, elem, "cut edges", err, errlen))
                || !(c->f.cut_v = xcalloc(m->ncut, elem, "cut edges", err, errlen))))
        || (m->ntecut
            && (!(c->f.tecut_old = xcalloc(m->ntecut, elem, "TE cut cells", err, errlen))
                || !(c->f.tecut_v = xcalloc(m->ntecut, elem, "TE cut cells", err, errlen))))
        || (m->scene->dft
            && (!(c->f.dft_re = cpu_alloc_huge(nf * (size_t)m->scene->dft_nfreq, elem, "DFT", err, errlen))
                || !(c->f.dft_im = cpu_alloc_huge(nf * (size_t)m->scene->dft_nfreq, elem, "DFT", err, errlen))))
        || (m->hmat
            && (!(c->f.hvac_row = xcalloc((size_t)m->ny, 1, "row flags", err, errlen))
                || !(c->f.hslot_v = xcalloc(m->nhslots, elem, "H slot values", err, errlen))))
        || (m->nhoff
            && (!(c->f.hoff_v = xcalloc(m->nhoff, elem, "off-diagonal edges", err, errlen))
                || !(c->f.hoff_u = xcalloc(m->nhoff, elem, "off-diagonal edges", err, errlen))))
        || (m->ndisp
            && (!(c->f.disp_ds = xcalloc(m->ndisp, elem, "dispersive cells", err, errlen))
                || !(c->f.disp_ei = xcalloc(m->ndisp, elem, "dispersive cells", err, errlen))
                || !(c->f.disp_v = xcalloc(m->ndisp, elem, "dispersive cells", err, errlen))
                || !(c->f.disp_p = xcalloc(m->ndisp * SCENE_MAX_POLES, elem, "dispersive cells", err, errlen))
                || !(c->f.disp_pold = xcalloc(m->ndisp * SCENE_MAX_POLES, elem, "dispersive cells", err, errlen))))
        || (m->nhdisp
            && (!(c->f.hdisp_ds = xcalloc(m->nhdisp, elem, "dispersive edges", err, errlen))
                || !(c->f.hdisp_ei = xcalloc(m->nhdisp, elem, "dispersive edges", err, errlen))
                || !(c->f.hdisp_v = xcalloc(m->nhdisp, elem, "dispersive edges", err, errlen))
                || !(c->f.hdisp_p = xcalloc(m->nhdisp * SCENE_MAX_POLES, elem, "dispersive edges", err, errlen))
                || !(c->f.hdisp_pold = xcalloc(m->nhdisp * SCENE_MAX_POLES, elem, "dispersive edges", err, errlen))))
        || cpu_samples_init(&c->samples, m, elem, err, errlen)) {
        cpu_destroy(&c->base);
        return -1;
    }
    for (int j = 0; j < m->ny; j++) {
        const uint8_t *row = m->mat + (size_t)j * (size_t)m->nx;
        bool vac = true;
        for (int i = 0; i < m->nx && vac; i++)
            vac = row[i] == 0;
        c->f.vacuum_row[j] = vac;
    }
    if (!(c->f.fuse_row = xcalloc((size_t)m->ny, 1, "row flags", err, errlen))
        || runs_build(&c->f, m, err, errlen)) {
        cpu_destroy(&c->base);
        return -1;
    }
    /* the fused row kernel where a row allows it (TEXFDTD_CPU_FUSE=0: never,
     * the three row kernels apart; for tests and measurements) */
    const char *fz = getenv("TEXFDTD_CPU_FUSE"), *pv = getenv("TEXFDTD_CPU_PART");
    c->f.part_vec = !(pv && !strcmp(pv, "0"));
    for (int j = 0; j < m->ny && !(fz && !strcmp(fz, "0")); j++)
        c->f.fuse_row[j] = elem == 4 ? he_fuse_f(&c->f, m, j) : he_fuse_d(&c->f, m, j);
    for (int k = 0; k < m->nmats; k++) {
        c->cezh_f[k] = m->mats[k].cb_f;
        c->cezh_d[k] = m->mats[k].cb;
        c->ca_f[k] = m->mats[k].ca_f;
        c->ca_d[k] = m->mats[k].ca;
    }
    for (int j = 0; m->hmat && j < m->ny; j++) {
        const uint8_t *hx = m->hmat + (size_t)j * (size_t)m->nx, *hy = hx + m->ncells;
        bool vac = true;
        for (int i = 0; i < m->nx && vac; i++)
            vac = hx[i] == 0 && hy[i] == 0;
        c->f.hvac_row[j] = vac;
    }
    for (int k = 0; k < m->nhmats; k++) {
        c->hc_f[k] = m->hmats[k].ch_f;
        c->hc_d[k] = m->hmats[k].ch;
        c->hca_f[k] = m->hmats[k].ca_f;
        c->hca_d[k] = m->hmats[k].ca;
    }
    const bool single = o->precision == PRECISION_SINGLE;
    c->f.hc = single ? (const void *)c->hc_f : (const void *)c->hc_d;
    c->f.hca = !m->hlossy ? NULL : single ? (const void *)c->hca_f : (const void *)c->hca_d;
    if (c->tb_k > 1 && tb_ok(m, c->threads)) {
        if (!(c->tb_slot_v = xcalloc((size_t)c->tb_k * (m->nslots ? m->nslots : 1), elem,
                                     "slot values", err, errlen))
            || !(c->slot_row = xcalloc((size_t)m->ny + 1, sizeof *c->slot_row, "slot rows", err,
                                       errlen))) {
            cpu_destroy(&c->base);
            return -1;
        }
        for (size_t k = 0, j = 0; j <= (size_t)m->ny; j++) {
            while (k < m->nslots && m->slot_cell[k] < j * (size_t)m->nx)
                k++;
            c->slot_row[j] = k;
        }
    } else {
        c->tb_k = 1;
    }
    *out = &c->base;
    return 0;
}

/* Steps t .. t+kk-1 through the temporally blocked sweep: the values of each
 * step as the plain path computes them (slot values and DFT weights in IEEE
 * mode, the point source's in the engine's), then one tb_sweep. */
#define TB_STEPS(REAL, SUFFIX)                                                                   \
    static void tb_steps##SUFFIX(struct cpu_engine *c, const struct model *m, int t, int kk,      \
                                 unsigned ieee_csr, bool point, size_t pc, bool elossy)           \
    {                                                                                             \
        struct tb_level##SUFFIX lv[64];                                                           \
        _mm_setcsr(ieee_csr);                                                                     \
        for (int l = 0; l < kk; l++) {                                                            \
            REAL *v = (REAL *)c->tb_slot_v + (size_t)l * m->nslots;                               \
            model_slot_values##SUFFIX(m, t + l, v);                                               \
            lv[l].slot_v = v;                                                                     \
            lv[l].dft = m->scene->dft && t + l + 1 > m->scene->dft_start;                         \
            for (int q = 0; lv[l].dft && q < m->scene->dft_nfreq; q++) {                          \
                double wr, wi;                                                                    \
                model_dft_weight_k(m, q, t + l + 1, &wr, &wi);                                    \
                lv[l].wr[q] = (REAL)wr;                                                           \
                lv[l].wi[q] = (REAL)wi;                                                           \
            }                                                                                     \
        }                                                                                         \
        cpu_set_denormal_mode(c->base.opt.denormals);                                             \
        for (int l = 0; l < kk; l++)                                                              \
            lv[l].point = point ? (REAL)model_point_value(m, t + l) : 0;                          \
        const bool f32 = sizeof(REAL) == 4;                                                       \
        const REAL ch = f32 ? (REAL)m->ch_f : (REAL)m->ch;                                        \
        const REAL mur_k = f32 ? (REAL)m->mur_k_f : (REAL)m->mur_k;                               \
        const REAL *cezh = f32 ? (const REAL *)c->cezh_f : (const REAL *)c->cezh_d;               \
        const REAL *ca = !elossy ? NULL : f32 ? (const REAL *)c->ca_f : (const REAL *)c->ca_d;    \
        if (c->tb_tile)                                                                           \
            tb_tiled_sweep##SUFFIX(&c->f, m, ch, cezh, ca, mur_k, c->base.opt.denormals, kk,      \
                                   c->tb_shape, c->tb_tile, lv, c->slot_row, point, pc);          \
        else                                                                                      \
            tb_sweep##SUFFIX(&c->f, m, ch, cezh, ca, mur_k, c->base.opt.denormals, kk,            \
                             c->tb_rows, lv, c->slot_row, point, pc);                             \
    }
TB_STEPS(float, _f)
TB_STEPS(double, _d)
#undef TB_STEPS

static int cpu_step(struct engine *e, int n, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct cpu_engine *c = (struct cpu_engine *)e;
    const struct model *m = e->model;
    const unsigned saved_csr = _mm_getcsr();
#ifdef _OPENMP
    omp_set_num_threads(c->threads);
#endif
    const bool point = m->scene->source_type == SOURCE_POINT;
    const size_t pc = point ? model_point_cell(m) : 0;
    /* the ez array's ca, E = ca E + cb curl: TM with a lossy material (in TE
     * sigma lives on the edges, model->hlossy, and the ez array's nodes are
     * the mu_r ones, ca = 1) */
    const bool elossy = m->lossy && !m->scene->te;
    for (int k = 0; c->tb_k > 1 && k < n;) {
        const int kk = n - k < c->tb_k ? n - k : c->tb_k;
        if (e->opt.precision == PRECISION_SINGLE)
            tb_steps_f(c, m, e->step + k, kk, saved_csr, point, pc, elossy);
        else
            tb_steps_d(c, m, e->step + k, kk, saved_csr, point, pc, elossy);
        k += kk;
        if (k == n) {
            _mm_setcsr(saved_csr);
            return 0;
        }
    }
    for (int k = 0; k < n; k++) {
        const int t = e->step + k;
        /* slot values are computed in IEEE mode (see model.h), then the
         * sweep and the slot update run in the engine's denormal mode */
        _mm_setcsr(saved_csr);
        const bool dft = m->scene->dft && t + 1 > m->scene->dft_start;
        const int nf = m->scene->dft_nfreq;
        double wr[SCENE_MAX_FREQS], wi[SCENE_MAX_FREQS];
        for (int q = 0; dft && q < nf; q++)
            model_dft_weight_k(m, q, t + 1, &wr[q], &wi[q]);
        if (e->opt.precision == PRECISION_SINGLE) {
            model_slot_values_f(m, t, c->slot_v);
            model_disp_values_f(m, t, c->f.disp_v);
            model_hslot_values_f(m, t, c->f.hslot_v);
            model_hdisp_values_f(m, t, c->f.hdisp_v);
            if (m->ncut)
                model_cut_values_f(m, t, c->f.cut_v);
            if (m->ntecut)
                model_tecut_values_f(m, t, c->f.tecut_v);
            model_hoff_values_f(m, t, c->f.hoff_v);
            save_tecut_f(&c->f, m);
            cpu_set_denormal_mode(e->opt.denormals);
            hoff_prepass_f(&c->f, m);
            sweep_f(&c->f, m, m->ch_f, c->cezh_f, elossy ? c->ca_f : NULL, m->mur_k_f,
                    e->opt.denormals);
            cpu_set_denormal_mode(e->opt.denormals);
            update_tecut_f(&c->f, m);
            update_disp_f(&c->f, m, m->ch_f);
            apply_slots_f(&c->f, m, c->slot_v);
            if (point) {
                float *ez = c->f.ez;
                ez[fcell(&c->f, m->nx, pc)] = yee_add_f(ez[fcell(&c->f, m->nx, pc)],
                                                        (float)model_point_value(m, t));
            }
            for (int q = 0; dft && q < nf; q++)
                dft_accumulate_f(&c->f, q, c->f.nfield, (float)wr[q], (float)wi[q], e->opt.denormals);
        } else {
            model_slot_values_d(m, t, c->slot_v);
            model_disp_values_d(m, t, c->f.disp_v);
            model_hslot_values_d(m, t, c->f.hslot_v);
            model_hdisp_values_d(m, t, c->f.hdisp_v);
            if (m->ncut)
                model_cut_values_d(m, t, c->f.cut_v);
            if (m->ntecut)
                model_tecut_values_d(m, t, c->f.tecut_v);
            model_hoff_values_d(m, t, c->f.hoff_v);
            save_tecut_d(&c->f, m);
            cpu_set_denormal_mode(e->opt.denormals);
            hoff_prepass_d(&c->f, m);
            sweep_d(&c->f, m, m->ch, c->cezh_d, elossy ? c->ca_d : NULL, m->mur_k,
                    e->opt.denormals);
            cpu_set_denormal_mode(e->opt.denormals);
            update_tecut_d(&c->f, m);
            update_disp_d(&c->f, m, m->ch);
            apply_slots_d(&c->f, m, c->slot_v);
            if (point) {
                double *ez = c->f.ez;
                ez[fcell(&c->f, m->nx, pc)] = yee_add_d(ez[fcell(&c->f, m->nx, pc)],
                                                        model_point_value(m, t));
            }
            for (int q = 0; dft && q < nf; q++)
                dft_accumulate_d(&c->f, q, c->f.nfield, wr[q], wi[q], e->opt.denormals);
        }
        void *const fields[8] = {[FIELD_EZ] = c->f.ez, [FIELD_HX] = c->f.hx, [FIELD_HY] = c->f.hy};
        cpu_samples_take(&c->samples, m, fields, 0, precision_size(e->opt.precision));
    }
    _mm_setcsr(saved_csr);
    return 0;
}

static void *cpu_field(struct cpu_engine *c, enum field f)
{
    const int k = field_dft_index(f);
    const size_t es = precision_size(c->base.opt.precision), n = c->f.nfield;
    if (k >= 0)
        return !c->f.dft_re || k >= c->base.model->scene->dft_nfreq ? NULL
               : (char *)(f == field_dft(k, 1) ? c->f.dft_im : c->f.dft_re) + (size_t)k * n * es;
    switch (f) {
    case FIELD_EZ: return c->f.ez;
    case FIELD_HX: return c->f.hx;
    case FIELD_HY: return c->f.hy;
    case FIELD_EZ_DFT_RE: return c->f.dft_re;
    case FIELD_EZ_DFT_IM: return c->f.dft_im;
    default: return NULL; /* 3D fields */
    }
}

/* A field between the engine's array (row pitch nxp) and a plain
 * [ny][nx] one: out = 1 from the engine's to plain, 0 back. */
static void copy_field(const struct cpu_engine *c, void *plain, void *field, int out)
{
    const struct model *m = c->base.model;
    const size_t es = precision_size(c->base.opt.precision), row = (size_t)m->nx * es;
    if (c->f.nxp == (size_t)m->nx) {
        memcpy(out ? plain : field, out ? field : plain, m->ncells * es);
        return;
    }
    for (int j = 0; j < m->ny; j++) {
        char *p = (char *)plain + (size_t)j * row, *q = (char *)field + (size_t)j * c->f.nxp * es;
        memcpy(out ? p : q, out ? q : p, row);
    }
}

static int cpu_read_field(struct engine *e, enum field f, void *dst, char *err, size_t errlen)
{
    void *src = cpu_field((struct cpu_engine *)e, f);
    if (!src)
        return seterr(err, errlen, "cpu engine: no field %s in this scene%s", field_name(f),
                      f >= FIELD_EZ_DFT_RE ? " (it has no [monitor.dft])" : "");
    copy_field((struct cpu_engine *)e, dst, src, 1);
    return 0;
}

static int cpu_write_field(struct engine *e, enum field f, const void *src, char *err,
                           size_t errlen)
{
    void *dst = cpu_field((struct cpu_engine *)e, f);
    if (!dst)
        return seterr(err, errlen, "cpu engine: no field %d", (int)f);
    copy_field((struct cpu_engine *)e, (void *)src, dst, 0);
    return 0;
}

static int cpu_check_finite(struct engine *e, enum field *f, size_t *cell, char *err,
                            size_t errlen)
{
    (void)err;
    (void)errlen;
    struct cpu_engine *c = (struct cpu_engine *)e;
    /* the padding of a pitched array stays 0 (nothing writes it) */
    const size_t n = c->f.nfield;
    for (int k = 0; k < FIELD_COUNT; k++) {
        const size_t q = cpu_first_bad(cpu_field(c, (enum field)k), n, e->opt.precision,
                                       c->threads);
        if (q < n) {
            *f = (enum field)k;
            *cell = q / c->f.nxp * (size_t)e->model->nx + q % c->f.nxp;
            return 1;
        }
    }
    return 0;
}

/* The checkpointed state: the fields, the CPML psi, the dispersive cells'
 * and TE edges' D_s, Ei and poles, and the DFT sums, in
 * place (Mur's rows and the cut edges' old H are scratch within a step). */
static int cpu_state(struct engine *e, struct state_io *io, char *err, size_t errlen)
{
    struct cpu_engine *c = (struct cpu_engine *)e;
    const struct model *m = e->model;
    const size_t n = m->ncells, ns = 2 * (size_t)m->pml_n;
    const struct {
        const char *name;
        void *data;
        size_t count;
    } a[] = {
        {"ez", c->f.ez, n},
        {"hx", c->f.hx, n},
        {"hy", c->f.hy, n},
        {"psi_hxy", c->f.psi_hxy, ns * (size_t)m->nx},
        {"psi_ezy", c->f.psi_ezy, ns * (size_t)m->nx},
        {"psi_hyx", c->f.psi_hyx, ns * (size_t)m->ny},
        {"psi_ezx", c->f.psi_ezx, ns * (size_t)m->ny},
        {"disp_ds", c->f.disp_ds, m->ndisp},
        {"disp_ei", c->f.disp_ei, m->ndisp},
        {"disp_p", c->f.disp_p, m->ndisp * SCENE_MAX_POLES},
        {"disp_pold", c->f.disp_pold, m->ndisp * SCENE_MAX_POLES},
        {"hdisp_ds", c->f.hdisp_ds, m->nhdisp},
        {"hdisp_ei", c->f.hdisp_ei, m->nhdisp},
        {"hdisp_p", c->f.hdisp_p, m->nhdisp * SCENE_MAX_POLES},
        {"hdisp_pold", c->f.hdisp_pold, m->nhdisp * SCENE_MAX_POLES},
        {"ez_dft_re", c->f.dft_re, n * (size_t)m->scene->dft_nfreq},
        {"ez_dft_im", c->f.dft_im, n * (size_t)m->scene->dft_nfreq},
    };
    const size_t es = precision_size(e->opt.precision);
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) {
        if (!a[k].data)
            continue;
        /* the pitched arrays (ez, hx, hy, the DFT sums; cpu_fields nxp)
         * go through a plain copy, out and back in */
        const bool pitched = c->f.nxp != (size_t)m->nx
                             && (k < 3 || !strncmp(a[k].name, "ez_dft", 6));
        if (!pitched) {
            if (io->array(io, a[k].name, a[k].data, a[k].count, err, errlen))
                return -1;
            continue;
        }
        char *tmp = xcalloc(a[k].count, es, "state", err, errlen);
        if (!tmp)
            return -1;
        const size_t blocks = a[k].count / n;
        for (size_t b = 0; b < blocks; b++)
            copy_field(c, tmp + b * n * es, (char *)a[k].data + b * c->f.nfield * es, 1);
        const int rc = io->array(io, a[k].name, tmp, a[k].count, err, errlen);
        for (size_t b = 0; rc == 0 && b < blocks; b++)
            copy_field(c, tmp + b * n * es, (char *)a[k].data + b * c->f.nfield * es, 0);
        free(tmp);
        if (rc)
            return -1;
    }
    return 0;
}

static int cpu_read_samples(struct engine *e, void *dst, int rows, char *err, size_t errlen)
{
    struct cpu_engine *c = (struct cpu_engine *)e;
    return cpu_samples_read(&c->samples, e->model, precision_size(e->opt.precision), dst, rows,
                            err, errlen);
}

static void cpu_describe(const struct engine *e, struct engine_info *info)
{
    const struct cpu_engine *c = (const struct cpu_engine *)e;
    char name[200], blocking[160] = "";
    cpu_model_name(name, sizeof name);
    snprintf(info->engine, sizeof info->engine, "cpu");
    snprintf(info->device, sizeof info->device, "%s, %d thread%s", name, c->threads,
             c->threads == 1 ? "" : "s");
    if (c->tb_k > 1 && c->tb_tile)
        snprintf(blocking, sizeof blocking,
                 "; temporal blocking, %d steps a sweep, tiles of %d columns, %s", c->tb_k,
                 c->tb_tile, c->tb_shape == TB_SHAPE_SKEW ? "skewed" : "split");
    else if (c->tb_k > 1)
        snprintf(blocking, sizeof blocking, "; temporal blocking, %d steps a sweep, %d row%s a position",
                 c->tb_k, c->tb_rows, c->tb_rows == 1 ? "" : "s");
    /* the rows the fused row kernel takes, and those of them with objects */
    int fused = 0, objects = 0;
    for (int j = 0; j < e->model->ny; j++) {
        fused += c->f.fuse_row[j];
        objects += c->f.fuse_row[j] && !c->f.vacuum_row[j];
    }
    snprintf(info->detail, sizeof info->detail,
             "denormals %s; row kernels %s%s; fused rows %d of %d, %d with objects",
             denormals_name(e->opt.denormals), cpu_isa_name(c->f.isa), blocking, fused,
             e->model->ny, objects);
}

const struct engine_ops cpu_engine_ops = {
    .name = "cpu",
    .caps = ENGINE_CAP_CPML | ENGINE_CAP_MUR | ENGINE_CAP_DFT | ENGINE_CAP_POINT
            | ENGINE_CAP_CONFORMAL | ENGINE_CAP_MONITORS | ENGINE_CAP_DFT_MULTI | ENGINE_CAP_TE
            | ENGINE_CAP_MAGNETIC | ENGINE_CAP_LOSSY | ENGINE_CAP_DISPERSIVE
            | ENGINE_CAP_TE_LOSSY | ENGINE_CAP_TE_DISPERSIVE | ENGINE_CAP_TE_CONFORMAL
            | ENGINE_CAP_TE_OFFDIAG,
    .summary = "plain C, float or double, OpenMP over rows",
    .create = cpu_create,
    .step = cpu_step,
    .read_field = cpu_read_field,
    .write_field = cpu_write_field,
    .check_finite = cpu_check_finite,
    .state = cpu_state,
    .read_samples = cpu_read_samples,
    .describe = cpu_describe,
    .destroy = cpu_destroy,
};
