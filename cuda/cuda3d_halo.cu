/* cuda3d_halo.cu - the MPI halo exchange of the 3D CUDA engine (core/decomp.h
 * slabs along z, a GPU a rank): its set-up (host-staged or NCCL, loaded at
 * run time), halo_start / halo_wait, its timer, its teardown, and the
 * benchmark hooks of cuda_api.h (texfdtd_cuda3d_halo_stats, _alone).
 */
#include "cuda3d_internal.cuh"
#include "cuda_api.h"

const char *const halo_names[] = {"none", "host-staged", "nccl", "SKIPPED (benchmark only: fields wrong)"};

/* ---- the halo exchange (MPI, core/decomp.h) ----------------------------
 * After H the rank above needs this rank's top plane k1-1 of Hx, Hy (its E
 * update of plane k0' reads H at k0'-1); after E the rank below needs the
 * bottom plane k0 of Ex, Ey (its H update of plane k1'-1 reads E at k1').
 * halo_start(up = true) sends Hx, Hy plane k1-1 up and receives plane k0-1
 * from below; halo_start(up = false) sends Ex, Ey plane k0 down and receives
 * plane k1 from above.  HALO_HOST: the whole exchange at once, staged
 * through pinned host planes (copy out, decomp_exchange_planes, copy in);
 * the default stream is idle when it returns.  HALO_NCCL: ncclSend/ncclRecv
 * of the (padded, contiguous) device planes queued on the exchange stream
 * after the work queued so far; halo_wait() makes the default stream wait
 * for it. */
#ifdef TEXFDTD_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>
/* NCCL is loaded at run time (dlopen of libnccl.so.2), not linked: a
 * texfdtd built with nccl.h still starts where the library is missing, and
 * then exchanges through the host (or says why it cannot, when
 * TEXFDTD_HALO=nccl asks for NCCL). */
static struct {
    bool tried, ok;
    char why[256];
    ncclResult_t (*GetVersion)(int *);
    ncclResult_t (*GetUniqueId)(ncclUniqueId *);
    ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
    ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    const char *(*GetErrorString)(ncclResult_t);
} nccl;

static bool nccl_load(void)
{
    if (nccl.tried)
        return nccl.ok;
    nccl.tried = true;
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(nccl.why, sizeof nccl.why, "cannot load libnccl.so.2 (%.180s); put its folder "
                 "on LD_LIBRARY_PATH", dlerror());
        return false;
    }
#define SYM(name)                                                                             \
    if (!(*(void **)&nccl.name = dlsym(h, "nccl" #name))) {                                   \
        snprintf(nccl.why, sizeof nccl.why, "libnccl.so.2 has no nccl" #name);                \
        return false;                                                                         \
    }
    SYM(GetVersion) SYM(GetUniqueId) SYM(CommInitRank) SYM(CommAbort) SYM(GroupStart)
    SYM(GroupEnd) SYM(Send) SYM(Recv) SYM(GetErrorString)
#undef SYM
    nccl.ok = true;
    return true;
}

#define NK(call)                                                                              \
    do {                                                                                      \
        ncclResult_t r_ = (call);                                                             \
        if (r_ != ncclSuccess)                                                                \
            return seterr(err, errlen, "%s:%d: %s: %s", __FILE__, __LINE__, #call,            \
                          nccl.GetErrorString(r_));                                           \
    } while (0)
#endif

/* Sum the exchange timed in ring slot q once it has completed. */
int halo_timer_take(cuda3d_engine *c, int q, char *err, size_t errlen)
{
    if (!c->tm_pend[q])
        return 0;
    c->tm_pend[q] = false;
    float ms = 0;
    CK(cudaEventSynchronize(c->tm[q][1]));
    CK(cudaEventElapsedTime(&ms, c->tm[q][0], c->tm[q][1]));
    c->halo_ms += ms;
    c->halo_n++;
    return 0;
}

#ifdef TEXFDTD_HAVE_NCCL
/* An NCCL exchange's frame, shared by halo_start and halo_deep: the next
 * timer slot (*q, its previous exchange summed first), the exchange stream
 * waiting for stream `after` (event ev_ready[w]) and its start event; then,
 * after the sends and receives, the end event and ev_done[w]. */
static int nccl_open(cuda3d_engine *c, int w, cudaStream_t after, int *q, char *err, size_t errlen)
{
    *q = c->tm_next;
    c->tm_next = (*q + 1) % RING;
    if (halo_timer_take(c, *q, err, errlen))
        return -1;
    CK(cudaEventRecord(c->ev_ready[w], after));
    CK(cudaStreamWaitEvent(c->xs, c->ev_ready[w], 0));
    CK(cudaEventRecord(c->tm[*q][0], c->xs));
    return 0;
}
static int nccl_close(cuda3d_engine *c, int w, int q, char *err, size_t errlen)
{
    CK(cudaEventRecord(c->tm[q][1], c->xs));
    c->tm_pend[q] = true;
    CK(cudaEventRecord(c->ev_done[w], c->xs));
    return 0;
}
#endif

int halo_start(cuda3d_engine *c, bool up, void *const *fld, cudaStream_t after, char *err,
               size_t errlen)
{
    const struct decomp *dc = &c->dc;
    const size_t es = dc->elem;
    const int q0 = up ? 3 : 0; /* Hx, Hy or Ex, Ey */
    const int send = up ? c->k1 - 1 - c->kb : c->k0 - c->kb;
    const int recv = up ? c->k0 - 1 - c->kb : c->k1 - c->kb;
    const bool to = up ? dc->hi : dc->lo, from = up ? dc->lo : dc->hi;
    char *sp[2], *rp[2];
    for (int q = 0; q < 2; q++) {
        sp[q] = (char *)fld[q0 + q] + (size_t)send * c->plane * es;
        rp[q] = (char *)fld[q0 + q] + (size_t)recv * c->plane * es;
    }
    if (c->halo == HALO_SKIP)
        return 0;
    if (c->halo == HALO_HOST) {
        CK(cudaStreamSynchronize(after)); /* the planes are final: time the exchange alone */
        const double t0 = now_seconds();
        for (int q = 0; q < 2 && to; q++)
            CK(cudaMemcpy2D(c->stage[q], c->nx * es, sp[q], c->px * es, c->nx * es, c->ny,
                            cudaMemcpyDeviceToHost));
        const void *const out[2] = {c->stage[0], c->stage[1]};
        void *const in[2] = {c->stage[2], c->stage[3]};
        if (decomp_exchange_planes(dc, up, out, in, 2, err, errlen))
            return -1;
        for (int q = 0; q < 2 && from; q++)
            CK(cudaMemcpy2D(rp[q], c->px * es, c->stage[2 + q], c->nx * es, c->nx * es, c->ny,
                            cudaMemcpyHostToDevice));
        c->halo_ms += (now_seconds() - t0) * 1e3;
        c->halo_n++;
        return 0;
    }
#ifdef TEXFDTD_HAVE_NCCL
    if (c->halo == HALO_NCCL) {
        const int w = up ? 0 : 1;
        int q;
        if (nccl_open(c, w, after, &q, err, errlen))
            return -1;
        const ncclComm_t comm = (ncclComm_t)c->nccl;
        const size_t bytes = c->plane * es;
        const int peer_to = up ? dc->rank + 1 : dc->rank - 1;
        const int peer_from = up ? dc->rank - 1 : dc->rank + 1;
        NK(nccl.GroupStart());
        for (int k = 0; k < 2 && to; k++)
            NK(nccl.Send(sp[k], bytes, ncclUint8, peer_to, comm, c->xs));
        for (int k = 0; k < 2 && from; k++)
            NK(nccl.Recv(rp[k], bytes, ncclUint8, peer_from, comm, c->xs));
        NK(nccl.GroupEnd());
        return nccl_close(c, w, q, err, errlen);
    }
#endif
    return seterr(err, errlen, "cuda 3D: halo exchange %s is not built in", halo_names[c->halo]);
}

/* halo_deep's psi: the K planes from plane p (of the pnz the x and y psi
 * hold, from k0 - psi_lo) of side `side` of psi array q (axis x or y), in
 * the current buffer psi[q]: one contiguous run of *bytes. */
static char *psi_planes(const cuda3d_engine *c, int q, int side, int p, size_t *bytes)
{
    const size_t pl = psi_xy_plane(c, psi_axis_of(q)) * c->dc.elem;
    *bytes = (size_t)c->tbk * pl;
    return (char *)c->psi[q] + ((size_t)side * psi_xy_planes(c) + (size_t)p) * pl;
}

/* The host-staged exchange's psi: the K planes from plane p of both sides
 * of the 8 x and y psi arrays out of the device into host (out), or from
 * host into the device, one after the other (tb_psi_bytes in all). */
static int psi_stage(const cuda3d_engine *c, int p, char *host, bool out, char *err, size_t errlen)
{
    size_t at = 0;
    for (int q = 0; q < PSI_COUNT; q++)
        for (int side = 0; side < 2 && psi_axis_of(q) != 2; side++) {
            size_t b;
            char *dev = psi_planes(c, q, side, p, &b);
            if (out)
                CK(cudaMemcpy(host + at, dev, b, cudaMemcpyDeviceToHost));
            else
                CK(cudaMemcpy(dev, host + at, b, cudaMemcpyHostToDevice));
            at += b;
        }
    return 0;
}

/* The temporal path's exchange (cuda3d_tb.cu): K planes of all six fields
 * each way, from the current buffers f[]: up, this rank's top planes
 * k1-K .. k1-1 into the lower ghost planes of the rank above, and down, its
 * bottom planes k0 .. k0+K-1 into the upper ghost planes of the rank below.
 * K padded planes lie one after the other, so each is one message per field
 * and direction.  With a CPML the same planes of the x and y psi go along
 * (the current buffers psi[], both sides of the 8 arrays whose axis is x or
 * y; K planes of a side are contiguous: one message each), at the same
 * moments.  After the work queued so far on the default stream, which
 * waits for it (NCCL) or finds it done (host-staged). */
int halo_deep(cuda3d_engine *c, const cudaEvent_t *after, int nafter, bool defer, char *err, size_t errlen)
{
    const struct decomp *dc = &c->dc;
    const size_t es = dc->elem, span = (size_t)c->tbk * c->plane * es; /* K padded planes */
    const int K = c->tbk;
    /* local plane indices: [0] up, [1] down */
    const int send[2] = {c->k1 - K - c->kb, c->k0 - c->kb}, recv[2] = {c->k0 - K - c->kb, c->k1 - c->kb};
    const bool to[2] = {dc->hi != 0, dc->lo != 0}, from[2] = {dc->lo != 0, dc->hi != 0};
    /* with a CPML the psi's plane indices (from k0 - psi_lo), as send, recv */
    const bool psi = c->N > 0;
    const int nzo = c->k1 - c->k0;
    const int psend[2] = {c->psi_lo + nzo - K, c->psi_lo}, precv[2] = {c->psi_lo - K, c->psi_lo + nzo};
    if (c->halo == HALO_SKIP)
        return 0;
    if (c->halo == HALO_HOST) {
        for (int e = 0; e < nafter; e++)
            CK(cudaEventSynchronize(after[e]));
        CK(cudaStreamSynchronize(0));
        const double t0 = now_seconds();
        const size_t up = dc->plane * es; /* an unpadded plane */
        char *out = (char *)c->tb_stage[0], *in = (char *)c->tb_stage[1];
        /* the psi after the fields' 6 K planes */
        char *pout = out + (size_t)6 * K * up, *pin = in + (size_t)6 * K * up;
        for (int w = 0; w < 2; w++) {
            for (int q = 0; q < 6 && to[w]; q++)
                CK(cudaMemcpy2D(out + (size_t)q * K * up, c->nx * es,
                                (const char *)c->f[q] + (size_t)send[w] * c->plane * es, c->px * es,
                                c->nx * es, (size_t)c->ny * K, cudaMemcpyDeviceToHost));
            if (psi && to[w] && psi_stage(c, psend[w], pout, true, err, errlen))
                return -1;
            for (int q = 0; q < 6; q++) { /* a field's K planes in one call (K <= 8 arrays) */
                const void *o[4];
                void *i[4];
                for (int k = 0; k < K; k++) {
                    o[k] = out + ((size_t)q * K + k) * up;
                    i[k] = in + ((size_t)q * K + k) * up;
                }
                if (decomp_exchange_planes(dc, w == 0, o, i, K, err, errlen))
                    return -1;
            }
            if (psi && decomp_exchange_bytes(dc, w == 0, pout, pin, tb_psi_bytes(c, es), err, errlen))
                return -1;
            for (int q = 0; q < 6 && from[w]; q++)
                CK(cudaMemcpy2D((char *)c->f[q] + (size_t)recv[w] * c->plane * es, c->px * es,
                                in + (size_t)q * K * up, c->nx * es, c->nx * es, (size_t)c->ny * K,
                                cudaMemcpyHostToDevice));
            if (psi && from[w] && psi_stage(c, precv[w], pin, false, err, errlen))
                return -1;
        }
        c->halo_ms += (now_seconds() - t0) * 1e3;
        c->halo_n++;
        return 0;
    }
#ifdef TEXFDTD_HAVE_NCCL
    if (c->halo == HALO_NCCL) {
        int q;
        for (int e = 0; e < nafter; e++)
            CK(cudaStreamWaitEvent(c->xs, after[e], 0));
        if (nccl_open(c, 0, 0, &q, err, errlen))
            return -1;
        const ncclComm_t comm = (ncclComm_t)c->nccl;
        const int peer_to[2] = {dc->rank + 1, dc->rank - 1}, peer_from[2] = {dc->rank - 1, dc->rank + 1};
        NK(nccl.GroupStart());
        for (int w = 0; w < 2; w++) {
            for (int f = 0; f < 6; f++) {
                char *base = (char *)c->f[f];
                if (to[w])
                    NK(nccl.Send(base + (size_t)send[w] * c->plane * es, span, ncclUint8, peer_to[w], comm, c->xs));
                if (from[w])
                    NK(nccl.Recv(base + (size_t)recv[w] * c->plane * es, span, ncclUint8, peer_from[w], comm,
                                 c->xs));
            }
            /* the psi, in the same order on every rank (a pair's messages
             * match in the order they are queued) */
            for (int q = 0; q < PSI_COUNT && psi; q++)
                for (int side = 0; side < 2 && psi_axis_of(q) != 2; side++) {
                    size_t b;
                    if (to[w]) {
                        const char *sp = psi_planes(c, q, side, psend[w], &b);
                        NK(nccl.Send(sp, b, ncclUint8, peer_to[w], comm, c->xs));
                    }
                    if (from[w]) {
                        char *rp = psi_planes(c, q, side, precv[w], &b);
                        NK(nccl.Recv(rp, b, ncclUint8, peer_from[w], comm, c->xs));
                    }
                }
        }
        NK(nccl.GroupEnd());
        if (nccl_close(c, 0, q, err, errlen))
            return -1;
        if (!defer)
            CK(cudaStreamWaitEvent(0, c->ev_done[0], 0));
        return 0;
    }
#endif
    (void)span;
    (void)defer;
    return seterr(err, errlen, "cuda 3D: halo exchange %s is not built in", halo_names[c->halo]);
}

/* Stream st waits for the exchange halo_start(up) queued last. */
int halo_wait(cuda3d_engine *c, bool up, cudaStream_t st, char *err, size_t errlen)
{
    if (c->halo == HALO_NCCL)
        CK(cudaStreamWaitEvent(st, c->ev_done[up ? 0 : 1], 0));
    return 0;
}

/* Under mpirun: how the halo planes travel (TEXFDTD_HALO = host | nccl;
 * default nccl where this build has nccl.h and every rank can load
 * libnccl.so.2, else host), and its set-up.  Collective: every rank calls
 * it, and every rank gets the same mode. */
int halo_setup(cuda3d_engine *c, int ndev /* GPUs the ranks of a host use */, char *err,
               size_t errlen)
{
    const char *want = getenv("TEXFDTD_HALO");
    if (want && *want && strcmp(want, "host") && strcmp(want, "nccl") && strcmp(want, "skip"))
        return seterr(err, errlen, "TEXFDTD_HALO=%s: expected host or nccl", want);
    /* skip: the steps split as with NCCL, but nothing moves (the halo planes
     * go stale, the fields are wrong).  bench/mpi_bench times the exchange's
     * cost as the difference; nothing else may ask for it. */
    if (want && !strcmp(want, "skip")) {
        if (!getenv("TEXFDTD_BENCH_HALO_SKIP"))
            return seterr(err, errlen, "TEXFDTD_HALO=skip is for bench/mpi_bench only: it leaves "
                          "the halo planes stale, so the fields are wrong");
        c->halo = HALO_SKIP;
        log_info("cuda 3D: rank %d: halo exchange SKIPPED (benchmark only: the fields are wrong)",
                 c->dc.rank);
        return 0;
    }
    const bool ask_nccl = want && !strcmp(want, "nccl"), ask_host = want && !strcmp(want, "host");
    const size_t es = c->dc.elem;
    for (int w = 0; w < 2; w++) {
        CK(cudaEventCreateWithFlags(&c->ev_ready[w], cudaEventDisableTiming));
        CK(cudaEventCreateWithFlags(&c->ev_done[w], cudaEventDisableTiming));
    }
    for (int q = 0; q < RING; q++)
        for (int w = 0; w < 2; w++)
            CK(cudaEventCreate(&c->tm[q][w]));
    /* the host-staged planes exist either way: they are also the fallback */
    for (int q = 0; q < 4; q++)
        CK(cudaMallocHost(&c->stage[q], c->dc.plane * es));
    c->halo = HALO_HOST;
    if (ask_host)
        return 0;
#ifdef TEXFDTD_HAVE_NCCL
    /* NVLink multicast (NVLS) stays off: forced, whatever the environment
     * says, before NCCL reads it */
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    if (nvls && strcmp(nvls, "0"))
        log_info("cuda 3D: NCCL_NVLS_ENABLE=%s overridden to 0", nvls);
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    /* NCCL refuses two ranks on one GPU: more ranks on this host than GPUs
     * exchange through the host */
    const bool shared = decomp_local_size() > ndev;
    const int mine = shared ? 2 : nccl_load() ? 0 : 1;
    const int bad = decomp_agree(mine); /* the same mode on every rank */
    if (bad) {
        char why[300];
        if (bad == 2)
            snprintf(why, sizeof why, "%d ranks share %d GPU%s on a host, and NCCL takes one GPU a "
                     "rank", decomp_local_size(), ndev, ndev == 1 ? "" : "s");
        else
            snprintf(why, sizeof why, "%s", mine ? nccl.why : "NCCL cannot be loaded on another rank");
        if (ask_nccl)
            return seterr(err, errlen, "TEXFDTD_HALO=nccl: %s", why);
        log_info("cuda 3D: halo exchange through the host: %s", why);
        return 0;
    }
    int ver = 0;
    nccl.GetVersion(&ver);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (c->dc.rank == 0)
        NK(nccl.GetUniqueId(&id));
    if (decomp_bcast(&id, sizeof id, err, errlen))
        return -1;
    /* the highest priority: NCCL's kernel then takes SMs as the field
     * kernels' blocks retire, rather than after the whole field kernel */
    int least = 0, greatest = 0;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CK(cudaStreamCreateWithPriority(&c->xs, cudaStreamNonBlocking, greatest));
    ncclComm_t comm = NULL;
    NK(nccl.CommInitRank(&comm, c->dc.size, id, c->dc.rank));
    c->nccl = comm;
    c->halo = HALO_NCCL;
    log_info("cuda 3D: halo exchange through NCCL %d.%d.%d (NCCL_NVLS_ENABLE=0), overlapped "
             "with the interior", ver / 10000, ver / 100 % 100, ver % 100);
    return 0;
#else
    (void)ndev;
    if (ask_nccl)
        return seterr(err, errlen, "TEXFDTD_HALO=nccl: this texfdtd was built without nccl.h "
                                   "(rebuild where the CUDA toolkit has NCCL), or use TEXFDTD_HALO=host");
    return 0;
#endif
}

void halo_free(cuda3d_engine *c)
{
    if (c->halo != HALO_NONE && c->halo_n > 0 && !c->failed)
        log_info("cuda 3D: rank %d of %d: halo exchange (%s) %.3f s in all, %lld exchanges, "
                 "%.1f us each", c->dc.rank, c->dc.size, halo_names[c->halo], c->halo_ms * 1e-3,
                 c->halo_n, c->halo_ms * 1e3 / (double)c->halo_n);
    for (int q = 0; q < 4; q++)
        cudaFreeHost(c->stage[q]);
    for (int w = 0; w < 2; w++) {
        if (c->ev_ready[w])
            cudaEventDestroy(c->ev_ready[w]);
        if (c->ev_done[w])
            cudaEventDestroy(c->ev_done[w]);
    }
    for (int q = 0; q < RING; q++)
        for (int w = 0; w < 2; w++)
            if (c->tm[q][w])
                cudaEventDestroy(c->tm[q][w]);
#ifdef TEXFDTD_HAVE_NCCL
    /* Abort, not Destroy: every exchange has completed (each step ends
     * synchronised), and ncclCommDestroy may wait for the other ranks,
     * which a failing rank must not (mpirun ends the job when it exits).
     * After a failed step NCCL is not touched at all. */
    if (c->nccl && !c->failed)
        nccl.CommAbort((ncclComm_t)c->nccl);
#endif
    if (c->xs)
        cudaStreamDestroy(c->xs);
}

extern "C" int texfdtd_cuda3d_halo_stats(struct engine *e, int reset, double *ms, long long *n,
                                         char *err, size_t errlen)
{
    if (!e || e->ops != &cuda3d_engine_ops)
        return seterr(err, errlen, "halo statistics: not a cuda 3D engine");
    cuda3d_engine *c = (cuda3d_engine *)e;
    CK(cudaSetDevice(c->dev));
    CK(cudaDeviceSynchronize());
    for (int q = 0; q < RING; q++) /* every exchange queued so far is summed */
        if (halo_timer_take(c, q, err, errlen))
            return -1;
    if (ms)
        *ms = c->halo_ms;
    if (n)
        *n = c->halo_n;
    if (reset) {
        c->halo_ms = 0;
        c->halo_n = 0;
    }
    return 0;
}

extern "C" int texfdtd_cuda3d_halo_alone(struct engine *e, int reps, double *us, char *err,
                                         size_t errlen)
{
    if (!e || e->ops != &cuda3d_engine_ops)
        return seterr(err, errlen, "halo exchange alone: not a cuda 3D engine");
    cuda3d_engine *c = (cuda3d_engine *)e;
    if (c->halo != HALO_HOST && c->halo != HALO_NCCL)
        return seterr(err, errlen, "halo exchange alone: no exchange (%s)", halo_names[c->halo]);
    CK(cudaSetDevice(c->dev));
    double ms0 = 0;
    long long n0 = 0;
    if (texfdtd_cuda3d_halo_stats(e, 0, &ms0, &n0, err, errlen))
        return -1;
    /* the planes sent are those the last step sent, so what arrives is
     * what the halo planes already hold: the fields do not change */
    for (int r = 0; r < reps; r++)
        for (int up = 1; up >= 0; up--)
            if (halo_start(c, up != 0, c->f, 0, err, errlen) || halo_wait(c, up != 0, 0, err, errlen))
                return -1;
    double ms1 = 0;
    long long n1 = 0;
    if (texfdtd_cuda3d_halo_stats(e, 0, &ms1, &n1, err, errlen))
        return -1;
    *us = n1 > n0 ? (ms1 - ms0) * 1e3 / (double)(n1 - n0) : 0;
    return 0;
}
