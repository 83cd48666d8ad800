/* kchoose.c - `gl`'s steps per fragment pass chosen by a quick measurement
 * at create (TEXFDTD_GL_STEPS_PER_PASS=auto): for k = 1 .. KPASS_AUTO_MAX
 * the pass of this grid timed on this device (k = 1: an H and an E pass;
 * k > 1: update_k.frag, each k compiled in turn), the k of the most cells
 * per second kept.  The passes run on the zero fields of a new engine and
 * scribble on them (the slot values are whatever the buffer holds), so the
 * fields and the step counter are cleared again afterwards.
 *
 * Every measurement is fenced and bounded: a pass that does not finish
 * within the engine's fence timeout fails create with the k it was at,
 * instead of hanging (docs/gl.md).
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/util.h"

#include <string.h>

#define KPASS_AUTO_MAX 6
#define KCHOOSE_MIN_S 0.02 /* wall time per k, at least ... */
#define KCHOOSE_MAX_PASSES 64

/* Run `passes` passes of k steps (k = 1: H then E) and wait for them, at
 * most timeout_s; their wall time in *s. */
static int timed_passes(struct gl_engine *g, int k, int passes, double timeout_s, double *s,
                        char *err, size_t errlen)
{
    const struct step_in in = {0};
    const double t0 = now_seconds();
    for (int q = 0; q < passes; q++) {
        if (k == 1) {
            gl2d_frag_h(g, &in);
            gl2d_frag_e(g, &in);
        } else {
            gl2d_frag_k(g, 0);
        }
    }
    GLsync f = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    const GLenum r = glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, (GLuint64)(timeout_s * 1e9));
    glDeleteSync(f);
    *s = now_seconds() - t0;
    if (r == GL_TIMEOUT_EXPIRED || *s > timeout_s)
        return seterr(err, errlen,
                      "choosing the steps per pass: %d pass(es) of %d steps did not finish "
                      "within %.3g s (fence timeout); set TEXFDTD_GL_STEPS_PER_PASS to a number",
                      passes, k, timeout_s);
    if (r == GL_WAIT_FAILED)
        return seterr(err, errlen, "choosing the steps per pass: waiting for a fence failed");
    return gl2d_check_gl("choosing the steps per pass", err, errlen);
}

int gl2d_choose_k(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    gl2d_bind_inputs(g);
    bind_tex(UNIT_SLOTVAL, GL_TEXTURE_BUFFER, g->slot_tbo[0]);
    const double cells = (double)m->ncells;
    double best = 0;
    int best_k = 1;
    for (int k = 1; k <= KPASS_AUTO_MAX; k++) {
        if (k > 1 && gl2d_build_kpass(g, m, k, err, errlen))
            return -1;
        double s = 0;
        /* the first pass compiles what the driver left for the first draw */
        if (timed_passes(g, k, 1, g->fence_timeout_s, &s, err, errlen))
            return -1;
        int passes = 1;
        do {
            passes = passes * 2 > KCHOOSE_MAX_PASSES ? KCHOOSE_MAX_PASSES : passes * 2;
            if (timed_passes(g, k, passes, g->fence_timeout_s, &s, err, errlen))
                return -1;
        } while (s < KCHOOSE_MIN_S && passes < KCHOOSE_MAX_PASSES);
        const double rate = cells * k * passes / s;
        log_info("gl: %d steps per pass: %.4g Gcells/s (%d passes, %.3f s)", k, rate * 1e-9,
                 passes, s);
        if (rate > best) {
            best = rate;
            best_k = k;
        }
    }
    g->k = best_k;
    if (best_k > 1 && best_k != KPASS_AUTO_MAX && gl2d_build_kpass(g, m, best_k, err, errlen))
        return -1;
    log_info("gl: %d steps per fragment pass (measured, TEXFDTD_GL_STEPS_PER_PASS=auto)", g->k);
    /* the fields and the counter as create made them */
    const float zero[4] = {0, 0, 0, 0};
    struct pingpong *pp[2] = {&g->ez, &g->h};
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < 2; c++) {
            glBindFramebuffer(GL_DRAW_FRAMEBUFFER, pp[f]->fbo[c]);
            glClearBufferfv(GL_COLOR, 0, zero);
        }
    g->ez.cur = g->h.cur = 0;
    gl2d_reset_counter(g);
    return gl2d_check_gl("clearing the fields after choosing the steps per pass", err, errlen);
}
