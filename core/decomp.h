/* decomp.h - a 3D grid split over MPI ranks in slabs along z, engine-independent.
 *
 * `mpirun -np P texfdtd run SCENE` gives each rank the z planes k0 <= k < k1
 * of the [nz][ny][nx] grid (the slowest axis, so that a plane is one
 * contiguous block of nx*ny values) plus one halo plane on each side where a
 * neighbour is.  The Yee stencil along z reaches one plane each way, and only
 * through the tangential components (cpu/update3d.inc):
 *     H at plane k reads Ex, Ey at k+1   -> after E: fill the upper halo of Ex, Ey
 *     E at plane k reads Hx, Hy at k-1   -> after H: fill the lower halo of Hx, Hy
 * so every cell sees exactly the inputs it sees on one rank, and P ranks give
 * bit-identical fields.  read_field gathers the owned planes on rank 0
 * (MPI_Gatherv): output files come from rank 0 alone (docs/mpi.md says why).
 *
 * Every MPI call of texfdtd is in decomp.c.  Built without MPI
 * (TEXFDTD_HAVE_MPI unset), or run without mpirun, this is one rank holding
 * every plane: the halo calls do nothing and the gather is a copy, so the
 * single-process path is today's path.  The functions take host arrays and
 * know nothing of fields or engines: the CUDA engine can reuse the split, the
 * halo bookkeeping and the gather (staging planes through the host, or its own
 * exchange over NCCL with the same plane offsets).
 */
#ifndef TEXFDTD_DECOMP_H
#define TEXFDTD_DECOMP_H

#include <stdbool.h>
#include <stddef.h>

/* ---- the job ----------------------------------------------------------------- */

/* MPI_Init (threads: FUNNELED, the calls come from the main thread) only when
 * mpirun started this process (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK in
 * the environment); otherwise one rank and no MPI at all.  MPI errors are
 * fatal to the whole job (MPI_ERRORS_ARE_FATAL).  Ranks other than 0 send
 * stdout to /dev/null and keep stderr muted until decomp_unmute(), so that
 * messages every rank would print alike (bad input) come once, from rank 0. */
int decomp_init(int *argc, char ***argv, char *err, size_t errlen);
/* The end of the job, with the process's exit status: MPI_Finalize on
 * success.  With more than one rank and rc != 0 it returns without finalising
 * (MPI_Finalize waits for every rank, and another may be stepping or blocked
 * in a halo exchange): the process exits with rc and mpirun takes the job down. */
void decomp_finalize(int rc);
int decomp_rank(void);  /* 0 .. size-1; 0 without MPI */
int decomp_size(void);  /* ranks in the job; 1 without MPI */
bool decomp_built_with_mpi(void);
/* Restore stderr on ranks other than 0 (from here on, their failures are their own). */
void decomp_unmute(void);
/* Collective: the largest of every rank's rc (rank 0's verdict reaches all). */
int decomp_agree(int rc);
/* Collective: the least of every rank's v. */
unsigned long long decomp_min_u64(unsigned long long v);
/* For a failure of one rank that cannot be returned: prints "texfdtd: rank R
 * of P: MESSAGE; stopping every rank" and ends the job (MPI_Abort; exit
 * without MPI). */
__attribute__((format(printf, 2, 3), noreturn))
void decomp_abort(int rc, const char *fmt, ...);
/* Tests only: TEXFDTD_TEST_RANK_EXIT=R:N makes rank R exit(1) at the start of
 * time step N, the way a crashed rank leaves the job. */
void decomp_test_hook(int step);

/* ---- the task farm of `texfdtd sweep` (core/sweep.c) ----------------------------
 * A sweep under mpirun is not one grid split over the ranks but many whole
 * runs handed out by rank 0: each worker runs its runs alone.  After
 * decomp_go_solo() every rank is a job of its own for everything above and
 * below (decomp_rank() 0, decomp_size() 1, collectives reach no other rank,
 * a 3D grid is not split, stderr is its own); the ranks still talk through
 * the farm calls, which address the world (MPI_COMM_WORLD) by world rank,
 * and every rank calls MPI_Finalize at the end whatever its status.
 * Without MPI: world rank 0 of 1, and the farm calls fail. */
void decomp_go_solo(void);
int decomp_world_rank(void);
int decomp_world_size(void);
/* n doubles to world rank `to` (blocking send). */
int decomp_farm_send(int to, const double *msg, int n);
/* n doubles from world rank `from`, or from any rank when from < 0: the
 * sender's rank; with wait false, -1 at once when nothing has arrived. */
int decomp_farm_recv(int from, double *msg, int n, bool wait);

/* ---- the slabs ----------------------------------------------------------------- */

/* Planes of rank r of P over nz planes: as even as can be, the first
 * nz mod P ranks one plane more. */
void decomp_split(int nz, int P, int r, int *k0, int *k1);
/* The same, when a plane of the z CPML slabs (the N planes at the bottom,
 * the N+1 at the top: H's slab and the boundary plane) costs w times an
 * interior plane: each boundary where the cost below it is nearest to its
 * share, every rank at least 2 planes.  N = 0 or w = 1: decomp_split. */
void decomp_split_weighted(int nz, int P, int r, int N, double w, int *k0, int *k1);

struct decomp_comm; /* MPI state (a plane datatype), decomp.c only */

struct decomp {
    int rank, size;
    int nz, k0, k1; /* this rank updates planes k0 <= k < k1 */
    int lo, hi;     /* halo planes held below k0 and above k1-1: 1 (or the depth
                     * decomp_set_halo_depth gave) where a neighbour is, else 0 */
    size_t plane;   /* values per z plane: nx*ny */
    size_t elem;    /* bytes per value */
    int pml_n;      /* the split's weights (decomp_split_weighted): N and w */
    double pml_w;
    struct decomp_comm *comm; /* NULL on one rank */
};

/* This rank's slab of an nx x ny x nz grid of elem-byte values.  Fails
 * (same answer on every rank) when a rank would get fewer than 2 planes:
 * Mur's z walls read the plane next to them, which must be the same rank's. */
int decomp_slab(struct decomp *d, int nx, int ny, int nz, size_t elem, char *err, size_t errlen);
/* The same with the planes split by cost (decomp_split_weighted). */
int decomp_slab_weighted(struct decomp *d, int nx, int ny, int nz, size_t elem, int pml_n,
                         double pml_w, char *err, size_t errlen);
void decomp_free(struct decomp *d);
/* Hold `depth` halo planes on each side where a neighbour is, instead of 1
 * (the cuda engine's temporal path: K steps between exchanges, K planes
 * each).  Call before anything is laid out by decomp_kbase. */
void decomp_set_halo_depth(struct decomp *d, int depth);

/* Local storage: planes k0-lo .. k1-1+hi; local plane 0 is global plane kbase. */
static inline int decomp_kbase(const struct decomp *d) { return d->k0 - d->lo; }
static inline size_t decomp_local_planes(const struct decomp *d)
{
    return (size_t)(d->k1 - d->k0 + d->lo + d->hi);
}
static inline size_t decomp_local_cells(const struct decomp *d)
{
    return decomp_local_planes(d) * d->plane;
}
static inline bool decomp_owns(const struct decomp *d, int k) { return k >= d->k0 && k < d->k1; }

/* Halo exchange of n local arrays at once (nonblocking send/receive, then
 * wait), every rank with both neighbours:
 *   lower: plane k1-1 goes up, the plane k0-1 below comes in (after H: Hx, Hy)
 *   upper: plane k0 goes down, the plane k1 above comes in  (after E: Ex, Ey) */
int decomp_fill_lower_halo(const struct decomp *d, void *const *local, int n, char *err,
                           size_t errlen);
int decomp_fill_upper_halo(const struct decomp *d, void *const *local, int n, char *err,
                           size_t errlen);
/* The same exchanges for planes held apart from a local array (an engine
 * whose fields live on a GPU stages its boundary planes through the host):
 * n planes send[q] go to the neighbour above (up) or below (!up), and n
 * planes recv[q] come from the neighbour below (up) or above (!up), each
 * d->plane values of d->elem bytes.  Where that neighbour is missing nothing
 * is sent, or received, on that side.  up: the lower-halo moment (after H),
 * !up: the upper-halo moment (after E). */
int decomp_exchange_planes(const struct decomp *d, bool up, const void *const *send,
                           void *const *recv, int n, char *err, size_t errlen);

/* One buffer of `bytes` each way at the same moments: send goes to the
 * neighbour above (up) or below (!up), recv comes from the other one (a
 * missing neighbour: nothing sent, or received, on that side). */
int decomp_exchange_bytes(const struct decomp *d, bool up, const void *send, void *recv, size_t bytes,
                          char *err, size_t errlen);

/* Collective: the owned planes of every rank's local array into global
 * ([nz][ny][nx]) on rank 0; global is not touched on other ranks. */
int decomp_gather(const struct decomp *d, const void *local, void *global, char *err,
                  size_t errlen);
/* No communication: this rank's planes, halos included, from a global array
 * every rank holds (engine write_field). */
void decomp_copy_from_global(const struct decomp *d, const void *global, void *local);

/* ---- the monitors' samples (core/monitor.h) over the slabs -------------------------
 * The model lists the samples (struct sample: a field at a global cell,
 * sorted by field, then cell).  Each rank records, after every step, the
 * values of those in its own planes k0 <= k < k1, in the list's order, one
 * row per step; read_samples gathers the rows on rank 0 into rows of the
 * whole list.  Every sample lies in exactly one rank's planes, so rank 0
 * gets each value from the rank that updated it, bit for bit what one
 * process records.  One rank: every sample is its own, and the gather is a
 * copy. */
struct sample;
/* The indices, in list order, of the samples s[0 .. n) in this rank's
 * planes into own[] (room for n); returns how many. */
size_t decomp_own_samples(const struct decomp *d, const struct sample *s, size_t n, size_t *own);
/* Collective: every rank's rows of its own samples, mine = [rows][its own
 * count] values of d->elem bytes in the order of decomp_own_samples, into
 * all = [rows][n] on rank 0 (all is not touched on other ranks). */
int decomp_gather_samples(const struct decomp *d, const struct sample *s, size_t n,
                          const void *mine, int rows, void *all, char *err, size_t errlen);

/* Collective: rank 0 logs one line per rank (its planes, host and device). */
void decomp_log_map(const struct decomp *d, const char *device);

/* This rank's index among the ranks on its host (Open MPI's
 * OMPI_COMM_WORLD_LOCAL_RANK, else MPI_LOCALRANKID, SLURM_LOCALID, else the
 * rank): the CUDA engine takes GPU local rank mod the device count. */
int decomp_local_rank(void);
/* The number of ranks on this host (OMPI_COMM_WORLD_LOCAL_SIZE, else
 * MPI_LOCALNRANKS, else the job's size). */
int decomp_local_size(void);
/* Collective: rank 0's `bytes` bytes at buf reach every rank (the NCCL
 * unique id).  One rank: nothing to do. */
int decomp_bcast(void *buf, size_t bytes, char *err, size_t errlen);

#endif
