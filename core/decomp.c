/* decomp.c - see decomp.h.  The only file of texfdtd that calls MPI. */
#define _GNU_SOURCE
#include "decomp.h"
#include "model.h"
#include "util.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TEXFDTD_HAVE_MPI
#include <mpi.h>
#endif

static struct {
    bool mpi;        /* MPI_Init was called */
    int rank, size;
    int saved_stderr; /* the real stderr of a muted rank, else -1 */
    int world_rank, world_size; /* the world, also after decomp_go_solo */
} job = {.rank = 0, .size = 1, .saved_stderr = -1, .world_rank = 0, .world_size = 1};

#ifdef TEXFDTD_HAVE_MPI
struct decomp_comm {
    MPI_Datatype plane; /* one z plane: plane*elem contiguous bytes */
};
#endif

static bool launched_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

#ifndef TEXFDTD_HAVE_MPI
/* The size mpirun announces (Open MPI, or MPICH's PMI_SIZE); 1 if none. */
static int mpirun_size(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v)
        v = getenv("PMI_SIZE");
    return v ? atoi(v) : 1;
}
#endif

int decomp_init(int *argc, char ***argv, char *err, size_t errlen)
{
#ifdef TEXFDTD_HAVE_MPI
    if (!launched_by_mpirun())
        return 0;
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return seterr(err, errlen, "MPI_Init_thread failed");
    job.mpi = true;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_rank(MPI_COMM_WORLD, &job.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &job.size);
    job.world_rank = job.rank;
    job.world_size = job.size;
    if (provided < MPI_THREAD_FUNNELED)
        return seterr(err, errlen, "this MPI gives no thread support (MPI_THREAD_FUNNELED "
                                   "is needed: OpenMP threads step, the main thread exchanges)");
    if (job.rank != 0) {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            fflush(stdout);
            fflush(stderr);
            dup2(null, 1);
            job.saved_stderr = dup(2);
            dup2(null, 2);
            close(null);
        }
    }
    return 0;
#else
    (void)argc;
    (void)argv;
    /* every process would run the whole scene into the same directory */
    if (launched_by_mpirun() && mpirun_size() > 1)
        return seterr(err, errlen, "this texfdtd was built without MPI (pkg-config ompi-c not "
                                   "found), so it cannot run as %d ranks of mpirun: rebuild with "
                                   "libopenmpi-dev installed, or run one process", mpirun_size());
    return 0;
#endif
}

void decomp_finalize(int rc)
{
#ifdef TEXFDTD_HAVE_MPI
    int done = 0;
    if (!job.mpi || (MPI_Finalized(&done), done))
        return;
    if (job.size > 1 && rc != 0)
        return; /* see decomp.h: mpirun ends the others (a solo rank has size 1) */
    MPI_Finalize();
#else
    (void)rc;
#endif
}

int decomp_rank(void) { return job.rank; }
int decomp_size(void) { return job.size; }

bool decomp_built_with_mpi(void)
{
#ifdef TEXFDTD_HAVE_MPI
    return true;
#else
    return false;
#endif
}

void decomp_unmute(void)
{
    if (job.saved_stderr < 0)
        return;
    fflush(stderr);
    dup2(job.saved_stderr, 2);
    close(job.saved_stderr);
    job.saved_stderr = -1;
}

int decomp_agree(int rc)
{
#ifdef TEXFDTD_HAVE_MPI
    if (job.mpi && job.size > 1) {
        int worst = rc;
        MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return worst;
    }
#endif
    return rc;
}

unsigned long long decomp_min_u64(unsigned long long v)
{
#ifdef TEXFDTD_HAVE_MPI
    if (job.mpi && job.size > 1) {
        unsigned long long least = v;
        MPI_Allreduce(&v, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        return least;
    }
#endif
    return v;
}

void decomp_abort(int rc, const char *fmt, ...)
{
    decomp_unmute();
    char msg[ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "texfdtd: rank %d of %d: %s; stopping every rank\n", job.rank, job.size, msg);
    fflush(stderr);
#ifdef TEXFDTD_HAVE_MPI
    if (job.mpi)
        MPI_Abort(MPI_COMM_WORLD, rc);
#endif
    exit(rc);
}

void decomp_test_hook(int step)
{
    static int rank = -2, at = -1;
    if (rank == -2) {
        const char *v = getenv("TEXFDTD_TEST_RANK_EXIT");
        rank = -1;
        if (v && sscanf(v, "%d:%d", &rank, &at) != 2)
            rank = -1;
    }
    if (rank == job.rank && step == at) {
        decomp_unmute();
        fprintf(stderr, "texfdtd: rank %d of %d: exiting at step %d (TEXFDTD_TEST_RANK_EXIT, a "
                        "test hook)\n", job.rank, job.size, step);
        fflush(stderr);
        exit(1);
    }
}

/* ---- the task farm ------------------------------------------------------------ */

void decomp_go_solo(void)
{
    decomp_unmute();
    job.rank = 0;
    job.size = 1;
}

int decomp_world_rank(void) { return job.world_rank; }
int decomp_world_size(void) { return job.world_size; }

int decomp_farm_send(int to, const double *msg, int n)
{
#ifdef TEXFDTD_HAVE_MPI
    if (job.mpi && job.world_size > 1)
        return MPI_Send(msg, n, MPI_DOUBLE, to, 7, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
#endif
    (void)to, (void)msg, (void)n;
    return -1;
}

int decomp_farm_recv(int from, double *msg, int n, bool wait)
{
#ifdef TEXFDTD_HAVE_MPI
    if (job.mpi && job.world_size > 1) {
        const int src = from < 0 ? MPI_ANY_SOURCE : from;
        MPI_Status st;
        if (!wait) {
            int flag = 0;
            MPI_Iprobe(src, 7, MPI_COMM_WORLD, &flag, &st);
            if (!flag)
                return -1;
        }
        MPI_Recv(msg, n, MPI_DOUBLE, src, 7, MPI_COMM_WORLD, &st);
        return st.MPI_SOURCE;
    }
#endif
    (void)from, (void)msg, (void)n, (void)wait;
    return -1;
}

/* ---- the slabs ------------------------------------------------------------------ */

void decomp_split(int nz, int P, int r, int *k0, int *k1)
{
    const int base = nz / P, extra = nz % P;
    *k0 = r * base + (r < extra ? r : extra);
    *k1 = *k0 + base + (r < extra);
}

/* The cost of planes 0 .. k-1 (decomp_split_weighted). */
static double planes_cost(int nz, int N, double w, int k)
{
    const int low = k < N ? k : N;
    const int high = k > nz - 1 - N ? k - (nz - 1 - N) : 0;
    return (double)k + (w - 1.0) * (double)(low + high);
}

void decomp_split_weighted(int nz, int P, int r, int N, double w, int *k0, int *k1)
{
    if (N <= 0 || w == 1.0 || P <= 1 || nz < 2 * P || 2 * N + 1 >= nz) {
        decomp_split(nz, P, r, k0, k1);
        return;
    }
    /* boundaries b_0 = 0 < b_1 < .. < b_P = nz, in turn */
    const double total = planes_cost(nz, N, w, nz);
    int b = 0;
    for (int q = 1; q <= r + 1 && q <= P; q++) {
        int next = nz;
        if (q < P) {
            const double share = total * q / P;
            double best = -1;
            for (int k = 0; k <= nz; k++) {
                const double dist = fabs(planes_cost(nz, N, w, k) - share);
                if (best < 0 || dist < best) {
                    best = dist;
                    next = k;
                }
            }
            if (next < b + 2) /* at least 2 planes below, and 2 for each rank above */
                next = b + 2;
            if (next > nz - 2 * (P - q))
                next = nz - 2 * (P - q);
        }
        if (q == r)
            *k0 = next;
        if (q == r + 1)
            *k1 = next;
        b = next;
    }
    if (r == 0)
        *k0 = 0;
}

int decomp_slab(struct decomp *d, int nx, int ny, int nz, size_t elem, char *err, size_t errlen)
{
    return decomp_slab_weighted(d, nx, ny, nz, elem, 0, 1.0, err, errlen);
}

int decomp_slab_weighted(struct decomp *d, int nx, int ny, int nz, size_t elem, int pml_n,
                         double pml_w, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->rank = job.rank;
    d->size = job.size;
    d->nz = nz;
    d->plane = (size_t)nx * (size_t)ny;
    d->elem = elem;
    d->pml_n = pml_n;
    d->pml_w = pml_w;
    decomp_split_weighted(nz, d->size, d->rank, pml_n, pml_w, &d->k0, &d->k1);
    if (d->size == 1)
        return 0;
    d->lo = d->rank > 0;
    d->hi = d->rank < d->size - 1;
    if (nz < 2 * d->size)
        return seterr(err, errlen, "%d ranks need nz >= %d (2 z planes a rank), not %d", d->size,
                      2 * d->size, nz);
    if (d->plane * elem > (size_t)INT_MAX)
        return seterr(err, errlen, "a z plane of %d x %d values is over 2 GiB, more than one MPI "
                                   "message carries", nx, ny);
#ifdef TEXFDTD_HAVE_MPI
    d->comm = xcalloc(1, sizeof *d->comm, "MPI state", err, errlen);
    if (!d->comm)
        return -1;
    MPI_Type_contiguous((int)(d->plane * elem), MPI_BYTE, &d->comm->plane);
    MPI_Type_commit(&d->comm->plane);
    return 0;
#else
    return seterr(err, errlen, "this build has no MPI");
#endif
}

void decomp_free(struct decomp *d)
{
    if (!d->comm)
        return;
#ifdef TEXFDTD_HAVE_MPI
    int done = 0;
    MPI_Finalized(&done);
    if (!done)
        MPI_Type_free(&d->comm->plane);
#endif
    free(d->comm);
    d->comm = NULL;
}

void decomp_set_halo_depth(struct decomp *d, int depth)
{
    d->lo = d->rank > 0 ? depth : 0;
    d->hi = d->rank < d->size - 1 ? depth : 0;
}

#ifdef TEXFDTD_HAVE_MPI
/* Local plane p of array a. */
static char *plane_at(const struct decomp *d, void *a, int p)
{
    return (char *)a + (size_t)p * d->plane * d->elem;
}
#endif

enum { MAXN = 8 }; /* arrays in one exchange */

/* One exchange of n planes: send[q] goes to rank `to`, recv[q] comes from
 * rank `from` (a missing neighbour is MPI_PROC_NULL).  The tag is the
 * plane's position, so the messages of one exchange never mix. */
static int exchange_planes(const struct decomp *d, const void *const *send, int to,
                           void *const *recv, int from, int n, char *err, size_t errlen)
{
#ifdef TEXFDTD_HAVE_MPI
    if (n > MAXN)
        return seterr(err, errlen, "halo exchange of %d arrays at once (at most %d)", n, MAXN);
    MPI_Request req[2 * MAXN];
    const int dst = to < 0 || to >= d->size ? MPI_PROC_NULL : to;
    const int src = from < 0 || from >= d->size ? MPI_PROC_NULL : from;
    for (int q = 0; q < n; q++)
        MPI_Irecv(recv[q], 1, d->comm->plane, src, q, MPI_COMM_WORLD, &req[q]);
    for (int q = 0; q < n; q++)
        MPI_Isend(send[q], 1, d->comm->plane, dst, q, MPI_COMM_WORLD, &req[n + q]);
    MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE);
    return 0;
#else
    (void)d, (void)send, (void)to, (void)recv, (void)from, (void)n;
    return seterr(err, errlen, "this build has no MPI");
#endif
}

/* The same for n local arrays: plane `send` of each goes to `to`, plane
 * `recv` of each comes from `from` (local plane indices). */
static int exchange(const struct decomp *d, void *const *local, int n, int send, int to, int recv,
                    int from, char *err, size_t errlen)
{
#ifdef TEXFDTD_HAVE_MPI
    if (n > MAXN)
        return seterr(err, errlen, "halo exchange of %d arrays at once (at most %d)", n, MAXN);
    const void *sp[MAXN];
    void *rp[MAXN];
    for (int q = 0; q < n; q++) {
        sp[q] = plane_at(d, local[q], send);
        rp[q] = plane_at(d, local[q], recv);
    }
    return exchange_planes(d, sp, to, rp, from, n, err, errlen);
#else
    (void)d, (void)local, (void)n, (void)send, (void)to, (void)recv, (void)from;
    return seterr(err, errlen, "this build has no MPI");
#endif
}

int decomp_fill_lower_halo(const struct decomp *d, void *const *local, int n, char *err,
                           size_t errlen)
{
    if (!d->comm)
        return 0;
    const int top = d->lo + (d->k1 - d->k0) - 1; /* local index of plane k1-1 */
    /* local index of plane k0-1 (none on the first rank: nothing comes) */
    return exchange(d, local, n, top, d->rank + 1, d->lo ? d->lo - 1 : 0, d->rank - 1, err, errlen);
}

int decomp_fill_upper_halo(const struct decomp *d, void *const *local, int n, char *err,
                           size_t errlen)
{
    if (!d->comm)
        return 0;
    const int bottom = d->lo, above = d->lo + (d->k1 - d->k0); /* planes k0 and k1 */
    return exchange(d, local, n, bottom, d->rank - 1, above, d->rank + 1, err, errlen);
}

int decomp_exchange_planes(const struct decomp *d, bool up, const void *const *send,
                           void *const *recv, int n, char *err, size_t errlen)
{
    if (!d->comm)
        return 0;
    return up ? exchange_planes(d, send, d->rank + 1, recv, d->rank - 1, n, err, errlen)
              : exchange_planes(d, send, d->rank - 1, recv, d->rank + 1, n, err, errlen);
}

int decomp_exchange_bytes(const struct decomp *d, bool up, const void *send, void *recv, size_t bytes,
                          char *err, size_t errlen)
{
    if (!d->comm)
        return 0;
#ifdef TEXFDTD_HAVE_MPI
    if (bytes > (size_t)INT_MAX)
        return seterr(err, errlen, "halo exchange of %zu bytes at once (at most %d)", bytes, INT_MAX);
    const int to = up ? d->rank + 1 : d->rank - 1, from = up ? d->rank - 1 : d->rank + 1;
    const int dst = to < 0 || to >= d->size ? MPI_PROC_NULL : to;
    const int src = from < 0 || from >= d->size ? MPI_PROC_NULL : from;
    MPI_Sendrecv(send, (int)bytes, MPI_BYTE, dst, 0, recv, (int)bytes, MPI_BYTE, src, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return 0;
#else
    (void)up, (void)send, (void)recv, (void)bytes;
    return seterr(err, errlen, "this build has no MPI");
#endif
}

int decomp_gather(const struct decomp *d, const void *local, void *global, char *err,
                  size_t errlen)
{
    const char *own = (const char *)local + (size_t)d->lo * d->plane * d->elem;
    const int mine = d->k1 - d->k0;
    if (!d->comm) {
        memcpy(global, own, (size_t)mine * d->plane * d->elem);
        return 0;
    }
#ifdef TEXFDTD_HAVE_MPI
    int *counts = NULL, *displs = NULL;
    if (d->rank == 0) {
        counts = xcalloc((size_t)d->size, sizeof *counts, "gather counts", err, errlen);
        displs = xcalloc((size_t)d->size, sizeof *displs, "gather offsets", err, errlen);
        if (!counts || !displs)
            decomp_abort(1, "%s", err); /* the others are already in the gather */
        for (int r = 0; r < d->size; r++) {
            int k0, k1;
            decomp_split_weighted(d->nz, d->size, r, d->pml_n, d->pml_w, &k0, &k1);
            counts[r] = k1 - k0;
            displs[r] = k0;
        }
    }
    MPI_Gatherv(own, mine, d->comm->plane, global, counts, displs, d->comm->plane, 0,
                MPI_COMM_WORLD);
    free(counts);
    free(displs);
    return 0;
#else
    (void)global;
    return seterr(err, errlen, "this build has no MPI");
#endif
}

void decomp_copy_from_global(const struct decomp *d, const void *global, void *local)
{
    const size_t bytes = decomp_local_planes(d) * d->plane * d->elem;
    memcpy(local, (const char *)global + (size_t)decomp_kbase(d) * d->plane * d->elem, bytes);
}

/* Does sample cell c lie in planes k0 <= k < k1? */
static bool in_planes(const struct decomp *d, size_t c, int k0, int k1)
{
    return c >= (size_t)k0 * d->plane && c < (size_t)k1 * d->plane;
}

size_t decomp_own_samples(const struct decomp *d, const struct sample *s, size_t n, size_t *own)
{
    size_t k = 0;
    for (size_t q = 0; q < n; q++)
        if (in_planes(d, s[q].cell, d->k0, d->k1))
            own[k++] = q;
    return k;
}

int decomp_gather_samples(const struct decomp *d, const struct sample *s, size_t n,
                          const void *mine, int rows, void *all, char *err, size_t errlen)
{
    const size_t es = d->elem;
    if (rows <= 0)
        return 0;
    if (!d->comm) {
        memcpy(all, mine, (size_t)rows * n * es);
        return 0;
    }
#ifdef TEXFDTD_HAVE_MPI
    size_t nown = 0;
    for (size_t q = 0; q < n; q++)
        nown += in_planes(d, s[q].cell, d->k0, d->k1);
    if ((size_t)rows * n * es > (size_t)INT_MAX)
        decomp_abort(1, "monitor samples: %d rows of %zu samples are over 2 GiB, more than one "
                        "MPI gather carries", rows, n); /* the same on every rank */
    int *counts = NULL, *displs = NULL;
    char *buf = NULL;
    int *kr = NULL;
    if (d->rank == 0) {
        counts = xcalloc((size_t)d->size, sizeof *counts, "gather counts", err, errlen);
        displs = xcalloc((size_t)d->size, sizeof *displs, "gather offsets", err, errlen);
        kr = xcalloc(2 * (size_t)d->size, sizeof *kr, "gather planes", err, errlen);
        buf = xcalloc((size_t)rows * (n ? n : 1), es, "gathered samples", err, errlen);
        if (!counts || !displs || !kr || !buf)
            decomp_abort(1, "%s", err); /* the others are already in the gather */
        int off = 0;
        for (int r = 0; r < d->size; r++) {
            decomp_split_weighted(d->nz, d->size, r, d->pml_n, d->pml_w, &kr[2 * r], &kr[2 * r + 1]);
            size_t c = 0;
            for (size_t q = 0; q < n; q++)
                c += in_planes(d, s[q].cell, kr[2 * r], kr[2 * r + 1]);
            counts[r] = (int)(c * (size_t)rows * es);
            displs[r] = off;
            off += counts[r];
        }
    }
    MPI_Gatherv(mine, (int)(nown * (size_t)rows * es), MPI_BYTE, buf, counts, displs, MPI_BYTE, 0,
                MPI_COMM_WORLD);
    if (d->rank == 0) {
        /* rank r's block is [rows][its own count], its samples in list order */
        size_t *idx = xcalloc(n ? n : 1, sizeof *idx, "gather indices", err, errlen);
        if (!idx)
            decomp_abort(1, "%s", err);
        for (int r = 0; r < d->size; r++) {
            const char *src = buf + displs[r];
            size_t cnt = 0;
            for (size_t q = 0; q < n; q++)
                if (in_planes(d, s[q].cell, kr[2 * r], kr[2 * r + 1]))
                    idx[cnt++] = q;
            for (int t = 0; t < rows; t++) {
                char *row = (char *)all + (size_t)t * n * es;
                for (size_t j = 0; j < cnt; j++)
                    memcpy(row + idx[j] * es, src + ((size_t)t * cnt + j) * es, es);
            }
        }
        free(idx);
    }
    free(counts);
    free(displs);
    free(kr);
    free(buf);
    return 0;
#else
    (void)s, (void)mine, (void)all;
    return seterr(err, errlen, "this build has no MPI");
#endif
}

void decomp_log_map(const struct decomp *d, const char *device)
{
    enum { LINE = 256 };
    char line[LINE], host[64] = "?";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = 0;
    snprintf(line, sizeof line, "rank %d of %d: z planes %d..%d (%d) on %s, %s", d->rank,
             d->size, d->k0, d->k1 - 1, d->k1 - d->k0, host, device);
    if (!d->comm)
        return; /* one rank: the engine line says it all */
#ifdef TEXFDTD_HAVE_MPI
    char err[ERRLEN], *all = NULL;
    if (d->rank == 0 && !(all = xcalloc((size_t)d->size, LINE, "rank map", err, sizeof err)))
        decomp_abort(1, "%s", err); /* the others are already in the gather */
    MPI_Gather(line, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (all) {
        for (int r = 0; r < d->size; r++)
            log_info("%s", all + (size_t)r * LINE);
        free(all);
    }
#endif
}

int decomp_local_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                        "SLURM_LOCALID"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const char *v = getenv(names[k]);
        if (v && *v)
            return atoi(v);
    }
    return job.rank;
}

int decomp_local_size(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const char *v = getenv(names[k]);
        if (v && atoi(v) > 0)
            return atoi(v);
    }
    return job.size;
}

int decomp_bcast(void *buf, size_t bytes, char *err, size_t errlen)
{
#ifdef TEXFDTD_HAVE_MPI
    if (!job.mpi || job.size == 1)
        return 0;
    if (bytes > (size_t)INT_MAX)
        return seterr(err, errlen, "broadcast of %zu bytes (at most 2 GiB)", bytes);
    MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    return 0;
#else
    (void)buf, (void)bytes, (void)err, (void)errlen;
    return 0;
#endif
}
