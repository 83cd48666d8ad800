/* batch.c - the engines' step(): time steps sent in fenced batches.
 *
 * A batch is a fraction of a second of GPU time (BATCH_TARGET_S, adapted
 * from the fences' wall clock): its source-slot values (and the cut edges'
 * b^n) computed on the GPU (values.c) or on the host and uploaded, into one
 * of two texture buffers used in turn, its passes (step.c), then the H texture's step counter texel
 * read into a pixel buffer and a fence.  At most two batches are in flight;
 * at each fence the host checks that it signalled in time, that the context
 * was not reset, and that the counter equals the steps sent: otherwise
 * step() fails and the engine refuses further work (issue 3, item 7).
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/model.h"
#include "core/util.h"

#include <string.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#define COUNTER_ONE 0x3f800000u     /* counter bits for 0 steps: 1.0f */
#define BATCH_TARGET_S 0.25         /* GPU time per fenced batch */

/* The counter texel starts at COUNTER_ONE (0 steps) in both H textures. */
void gl2d_reset_counter(struct gl_engine *g)
{
    float v[2] = {0, 0};
    const uint32_t one = COUNTER_ONE + g->counted;
    memcpy(&v[0], &one, 4);
    for (int k = 0; k < 2; k++) {
        glBindTexture(GL_TEXTURE_2D, g->h.tex[k]);
        glTexSubImage2D(GL_TEXTURE_2D, 0, g->nx - 1, g->ny - 1, 1, 1, GL_RG, GL_FLOAT, v);
    }
}

/* Slot values of steps t0 .. t0+b-1, step-major (each step's E slots, cut
 * edges' b^n, H slots, dispersive cells' Ei^{n+1} or TE edges' Hi^{n+1/2},
 * TE cut cells' b^n, TE off-diagonal edges' w: the last nhoff), computed in IEEE mode (the
 * OpenMP threads may still carry a CPU engine's FTZ/DAZ).  Short lists: a
 * thread per step.  Long ones (an object of 16384 cells or more): the steps
 * one after another, each list filled by every thread (core/model.c) - the
 * threads of a parallel loop over a batch of one step, as a large object
 * forces, would leave all but one idle and the lists' own loops serial
 * (nested), 0.7 s a step for 13 million slots.  With the values on the GPU
 * (values.c) only the b^n of the cut edges and the TE cut cells and the
 * off-diagonal edges' w, [step][cut edges | TE cut cells | off-diagonal
 * edges]. */
static void compute_slot_values(struct gl_engine *g, const struct model *m, int t0, int b)
{
    const size_t stride = g->dev_values ? m->ncut + g->ntecut + g->nhoff : g->stride;
#pragma omp parallel for schedule(static) if (stride < 16384)
    for (int s = 0; s < b; s++) {
#ifdef __SSE__
        const unsigned csr = _mm_getcsr();
        _mm_setcsr(csr & ~0x8040u);
#endif
        float *v = g->slot_host + (size_t)s * stride;
        if (g->dev_values) {
            /* the lists with a division or a sum of several incident values
             * stay on the host: [cut edges | TE cut cells], then (below)
             * the off-diagonal edges' w */
            if (m->ncut)
                model_cut_values_f(m, t0 + s, v);
            if (g->tecut)
                model_tecut_values_f(m, t0 + s, v + m->ncut);
        } else {
            model_slot_values_f(m, t0 + s, v);
            if (m->ncut)
                model_cut_values_f(m, t0 + s, v + m->nslots);
            if (g->hmap)
                model_hslot_values_f(m, t0 + s, v + m->nslots + m->ncut);
            if (g->disp)
                (g->disp_edges ? model_hdisp_values_f : model_disp_values_f)(
                    m, t0 + s, v + m->nslots + m->ncut + g->nhslots);
            if (g->tecut)
                model_tecut_values_f(m, t0 + s, v + m->nslots + m->ncut + g->nhslots + g->ndisp);
        }
#ifdef __SSE__
        _mm_setcsr(csr);
#endif
    }

    /* the TE off-diagonal edges' w, the last nhoff values of each step (a
     * few edges; model_hoff_values_f computes in IEEE mode itself) */
    for (int s = 0; s < b && g->hoff; s++)
        model_hoff_values_f(m, t0 + s, g->slot_host + (size_t)(s + 1) * stride - g->nhoff);
}

/* The slot values of steps t0 .. t0+b-1 into slot buffer k, for the batch
 * that will bind it: computed on the host and uploaded, or on the GPU. */
static void upload_slot_values(struct gl_engine *g, const struct model *m, int k, int t0, int b)
{
    if (!g->dev_values || m->ncut || g->tecut || g->hoff)
        compute_slot_values(g, m, t0, b);
    if (g->dev_values) {
        gl2d_values_dispatch(g, m, k, t0, b);
        return;
    }
    glBindBuffer(GL_TEXTURE_BUFFER, g->slot_buf[k]);
    glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)((size_t)b * g->stride * 4), g->slot_host);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

/* Wait for batch slot k and check it: in time, no reset, counter right. */
static int finish_batch(struct gl_engine *g, int k, char *err, size_t errlen)
{
    if (!g->pending[k])
        return 0;
    g->pending[k] = false;
    /* The limit holds from the moment the batch began to be sent: drivers
     * that block while queueing (llvmpipe) spend the batch's time there. */
    double left = g->fence_timeout_s - (now_seconds() - g->batch_start[k]);
    const GLuint64 timeout = left > 0 ? (GLuint64)(left * 1e9) : 0;
    const GLenum r = glClientWaitSync(g->fence[k], GL_SYNC_FLUSH_COMMANDS_BIT, timeout);
    glDeleteSync(g->fence[k]);
    g->fence[k] = 0;
    const double took = now_seconds() - g->batch_start[k];
    if (r == GL_TIMEOUT_EXPIRED || (r != GL_WAIT_FAILED && took > g->fence_timeout_s))
        return seterr(err, errlen,
                      "a batch of %d steps did not finish within %.3g s (fence timeout; %s "
                      "after %.3g s): the GPU is hung or far slower than measured, results are "
                      "discarded",
                      g->batch_len[k], g->fence_timeout_s,
                      r == GL_TIMEOUT_EXPIRED ? "still running" : "done", took);
    if (r == GL_WAIT_FAILED)
        return seterr(err, errlen, "waiting for a fence failed (%s)",
                      gl2d_error_name(glGetError()));
    if (gl2d_check_reset("at a fence", err, errlen))
        return -1;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, g->counter_pbo[k]);
    const uint32_t *p = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, 8, GL_MAP_READ_BIT);
    uint32_t got = 0;
    if (p) {
        got = p[0];
        glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (!p)
        return seterr(err, errlen, "cannot map the step counter (%s)",
                      gl2d_error_name(glGetError()));
    if (got != g->expect[k])
        return seterr(err, errlen,
                      "the GPU step counter reads %ld steps where %ld were sent: work was "
                      "dropped or the readback is stale; results are discarded",
                      (long)got - (long)COUNTER_ONE, (long)g->expect[k] - (long)COUNTER_ONE);
    return gl2d_check_gl("after a batch", err, errlen);
}
static void adapt_batch(struct gl_engine *g, int k);

/* Wait for and check every batch still in flight, the older first (the
 * slot the next batch would use, batch_no & 1, holds the older). */
int gl2d_finish_pending(struct gl_engine *g, char *err, size_t errlen)
{
    int rc = 0;
    for (int a = 0; a < 2 && !rc; a++) {
        const int k = (g->batch_no + a) & 1;
        if (g->pending[k]) {
            rc = finish_batch(g, k, err, errlen);
            adapt_batch(g, k);
        }
    }
    if (rc) {
        g->failed = true;
        gl2d_prefix_err(g->base.ops->name, err, errlen);
    }
    return rc;
}

static void adapt_batch(struct gl_engine *g, int k)
{
    const double now = now_seconds();
    const double dt = now - g->last_fence_wall;
    g->last_fence_wall = now;
    if (g->batch_fixed || dt <= 0)
        return;
    double b = g->batch_len[k] * BATCH_TARGET_S / dt;
    if (b > 4.0 * g->batch_steps)
        b = 4.0 * g->batch_steps;
    g->batch_steps = b < 1 ? 1 : b > BATCH_MAX_STEPS ? BATCH_MAX_STEPS : (int)b;
    gl2d_round_batch(g);
}

/* gl with k steps per pass: an adaptive batch is a whole number of passes,
 * at least one (a batch shorter than k would run one-step passes only, and
 * the remainder of every batch runs as one-step passes). */
void gl2d_round_batch(struct gl_engine *g)
{
    if (g->k > 1 && !g->batch_fixed) {
        const int b = g->batch_steps / g->k * g->k;
        g->batch_steps = b < g->k ? g->k : b > BATCH_MAX_STEPS ? BATCH_MAX_STEPS / g->k * g->k : b;
    }
}

int gl2d_step(struct engine *e, int n, char *err, size_t errlen)
{
    struct gl_engine *g = G(e);
    const struct model *m = e->model;
    if (g->failed)
        return seterr(err, errlen, "%s: an earlier check failed; the fields are not trusted",
                      e->ops->name);
    if (egl_context_make_current(g->egl, err, errlen))
        return -1;
    gl2d_bind_inputs(g);
    if (g->nsamples && g->rows_taken + n > g->sample_rows)
        return seterr(err, errlen,
                      "%s: %d steps would gather %d rows of monitor samples, the batch holds "
                      "%d: read_samples must come first (engine_step does it)",
                      e->ops->name, n, g->rows_taken + n, g->sample_rows);
    g->last_fence_wall = now_seconds();
    int done = 0, rc = 0;
    while (done < n && !rc) {
        int b = n - done;
        b = b < g->batch_steps ? b : g->batch_steps;
        b = b < g->slot_cap_steps ? b : g->slot_cap_steps;
        /* temporal blocking: a batch short of the call's end ends on a
         * whole dispatch of tb_k steps (fewer single steps between them) */
        if (g->tb_k > 1 && b < n - done && b > g->tb_k)
            b -= b % g->tb_k;
        const int k = g->batch_no & 1;
        if ((rc = finish_batch(g, k, err, errlen)))
            break;
        const int t0 = e->step + done;
        g->batch_start[k] = now_seconds();
        if (g->stride && !(k == g->ahead_k && t0 == g->ahead_t0 && b <= g->ahead_b))
            upload_slot_values(g, m, k, t0, b);
        g->ahead_b = 0;
        bind_tex(UNIT_SLOTVAL, GL_TEXTURE_BUFFER, g->slot_tbo[k]);
        gl2d_run_steps(g, m, t0, b);
        g->counted += (uint32_t)b;
        /* the counter texel of the newest H texture, into this batch's PBO */
        if (g->compute)
            glMemoryBarrier(GL_ALL_BARRIER_BITS);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, g->h.fbo[g->h.cur]);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, g->counter_pbo[k]);
        glReadPixels(g->nx - 1, g->ny - 1, 1, 1, GL_RG, GL_FLOAT, NULL);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        g->fence[k] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        glFlush();
        g->expect[k] = COUNTER_ONE + g->counted;
        g->batch_len[k] = b;
        g->pending[k] = true;
        g->batch_no++;
        done += b;
        /* at most two batches in flight: wait for the older one */
        if (g->pending[1 - k]) {
            rc = finish_batch(g, 1 - k, err, errlen);
            adapt_batch(g, 1 - k);
        }
    }
    /* With monitors engine_step calls step() for at most sample_rows steps,
     * often one batch, and reads the samples in between: the slot values of
     * the next call's first batch are computed and uploaded now, while the
     * GPU runs this call's last batch, rather than at the start of the next
     * with the GPU idle.  They go into the buffer that batch will use, whose
     * previous batch has finished (at most the last batch is in flight). */
    if (!rc && g->stride && g->nsamples) {
        const int k = g->batch_no & 1;
        int b = g->sample_rows < g->batch_steps ? g->sample_rows : g->batch_steps;
        b = b < g->slot_cap_steps ? b : g->slot_cap_steps;
        upload_slot_values(g, m, k, e->step + n, b);
        glFlush();
        g->ahead_k = k;
        g->ahead_t0 = e->step + n;
        g->ahead_b = b;
    }
    if (rc) {
        g->failed = true;
        return gl2d_prefix_err(e->ops->name, err, errlen);
    }
    /* Without monitors step() returns with its work done and checked.  With
     * them, engine_step reads this call's samples next and meanwhile sums
     * the previous call's on the host: the last batch stays in flight, and
     * read_samples (or any other read) waits for it and checks its fence
     * and step counter first (gl2d_finish_pending). */
    return g->nsamples ? 0 : gl2d_finish_pending(g, err, errlen);
}
