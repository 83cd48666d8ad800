/* values.c - the source-slot values of a batch computed on the GPU, for
 * both GL engines (shaders/inc_values.comp, one compute dispatch per batch
 * writing the slot-value buffer the passes read).
 *
 * The host's values (batch.c, model_slot_values_f and friends) cost a sine
 * (and an exponential for pulses) in double per object cell per step: for
 * a large object (13 million slots) 78 ms a step on 16 cores, more than
 * gl-compute's whole step.  The dispatch computes the same values with the
 * same functions, core/incident.h compiled as GLSL doubles (only +, -, *
 * rounded to nearest, `precise`, no division: shaders/incident.glsl), so
 * they carry the host's bits.  The b^n of the cut edges (few, with a
 * division) and of the TE cut cells (few, a sum of four incident values),
 * and the TE off-diagonal edges' w (few, a sum of eight), still come from
 * the host and are copied into place by the dispatch.
 *
 * TEXFDTD_GL_VALUES=host keeps the host's computation (for the bench's
 * comparison); a driver without doubles in compute shaders (GL 4.0 made them
 * core, but a driver may still fail to build the program) or with storage
 * buffers too small falls back to it, and describe says why.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/incident.h"
#include "core/model.h"
#include "core/util.h"
#include "gl/gl.h"
#include "gl/shader.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define INC_LOCAL 64 /* inc_values.comp's work group */
#define COEF_ROW 5   /* doubles per material row: pec, lossy, cinc, cinc_diff, cinc_sum */
enum { ENTRY_E = 0, ENTRY_HX = 1, ENTRY_HY = 2, ENTRY_DISP = 3, ENTRY_HOST = 4, ENTRY_HDISP = 5 };
/* the storage buffers' bindings in inc_values.comp and inc_probe.comp */
enum { SSBO_INC_COEF = 3, SSBO_INC_ENTRY = 4, SSBO_INC_HOST = 5, SSBO_INC_OUT = 6 };

/* std430 lays struct inc_wave out as C does on the hosts we build for: two
 * ints, then the doubles from offset 8; the coefficient rows follow. */
_Static_assert(offsetof(struct inc_wave, cos_t) == 8 && sizeof(struct inc_wave) == 88,
               "struct inc_wave is not laid out as std430 lays it out");

/* The wave and the material rows (E materials, then H-node materials), as
 * one buffer's bytes; NULL when out of memory. */
static void *coef_bytes(const struct model *m, size_t *bytes)
{
    const int rows = m->nmats + (m->hmat ? m->nhmats : 0);
    *bytes = sizeof(struct inc_wave) + (size_t)(rows ? rows : 1) * COEF_ROW * sizeof(double);
    unsigned char *p = calloc(1, *bytes);
    if (!p)
        return NULL;
    memcpy(p, &m->inc, sizeof m->inc);
    double *c = (double *)(p + sizeof(struct inc_wave));
    for (int k = 0; k < m->nmats; k++, c += COEF_ROW) {
        const struct material *t = &m->mats[k];
        c[0] = t->kind == MATERIAL_PEC;
        c[1] = t->sigma != 0.0;
        c[2] = t->cinc;
        c[3] = t->cinc_diff;
        c[4] = t->cinc_sum;
    }
    for (int k = 0; m->hmat && k < m->nhmats; k++, c += COEF_ROW) {
        c[0] = m->hmats[k].pec != 0;
        c[1] = m->hmats[k].sigma != 0.0;
        c[2] = m->hmats[k].hinc;
        c[3] = m->hmats[k].cinc_diff;
        c[4] = m->hmats[k].cinc_sum;
    }
    return p;
}

/* Entry k of the slot-value layout (gl2d_internal.h: E slots, cut edges, H
 * slots, dispersive cells or TE edges, TE cut cells), as inc_values.comp
 * reads it; the host's values per step are [cut edges | TE cut cells |
 * off-diagonal edges]. */
static uint32_t *make_entries(const struct gl_engine *g, const struct model *m, char *err,
                              size_t errlen)
{
    uint32_t *e = xcalloc(g->stride, 2 * sizeof *e, "slot-value entries", err, errlen);
    if (!e)
        return NULL;
    uint32_t *p = e;
    for (size_t k = 0; k < m->nslots; k++, p += 2) {
        const size_t c = m->slot_cell[k];
        p[0] = (uint32_t)c;
        p[1] = (uint32_t)ENTRY_E << 16 | m->mat[c];
    }
    for (size_t q = 0; q < m->ncut; q++, p += 2) {
        p[0] = (uint32_t)q;
        p[1] = (uint32_t)ENTRY_HOST << 16;
    }
    for (size_t k = 0; k < g->nhslots; k++, p += 2) {
        const size_t id = m->hslot[k];
        p[0] = (uint32_t)(id % m->ncells);
        p[1] = (uint32_t)(id < m->ncells ? ENTRY_HX : ENTRY_HY) << 16
               | (uint32_t)(m->nmats + m->hmat[id]);
    }
    for (size_t k = 0; k < g->ndisp; k++, p += 2) {
        if (g->disp_edges) { /* TE: the edge's H-array node, bit 0 Hy */
            p[0] = (uint32_t)(m->hdisp[k] % m->ncells);
            p[1] = (uint32_t)ENTRY_HDISP << 16 | (m->hdisp[k] >= m->ncells ? 1u : 0u);
        } else {
            p[0] = (uint32_t)(m->disp_cell[k] % m->ncells);
            p[1] = (uint32_t)ENTRY_DISP << 16;
        }
    }
    for (size_t q = 0; q < g->ntecut + g->nhoff; q++, p += 2) {
        p[0] = (uint32_t)(m->ncut + q);
        p[1] = (uint32_t)ENTRY_HOST << 16;
    }
    return e;
}

static int self_check(const struct gl_engine *g, const struct model *m, char *why, size_t whylen,
                      char *err, size_t errlen);

/* Why the values cannot be computed on this device ("" when they can). */
static void device_limits(struct gl_engine *g)
{
    GLint max_ssbo = 0, max_x = 0, max_y = 0;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_ssbo);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_x);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &max_y);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 2, &g->val_max_z);
    const double big = 8.0 * (double)g->stride > 4.0 * (double)g->slot_cap_steps * g->stride
                           ? 8.0 * (double)g->stride
                           : 4.0 * (double)g->slot_cap_steps * (double)g->stride;
    const size_t groups = (g->stride + INC_LOCAL - 1) / INC_LOCAL;
    g->val_gx = groups < (size_t)max_x ? (GLuint)groups : (GLuint)max_x;
    g->val_gy = g->val_gx ? (GLuint)((groups + g->val_gx - 1) / g->val_gx) : 1;
    if (big > (double)max_ssbo)
        snprintf(g->values_why, sizeof g->values_why,
                 "%.0f B of slot values exceed GL_MAX_SHADER_STORAGE_BLOCK_SIZE %d", big,
                 max_ssbo);
    else if (g->val_gy > (GLuint)max_y || g->val_max_z < 1)
        snprintf(g->values_why, sizeof g->values_why, "%zu entries exceed the work groups",
                 g->stride);
}

int gl2d_values_init(struct gl_engine *g, const struct model *m, char *err, size_t errlen)
{
    g->dev_values = false;
    g->values_why[0] = 0;
    const char *v = getenv("TEXFDTD_GL_VALUES");
    if (v && *v && strcmp(v, "host") && strcmp(v, "device"))
        return seterr(err, errlen, "TEXFDTD_GL_VALUES=%s: expected host or device", v);
    if (!g->stride)
        return 0;
    if (v && !strcmp(v, "host")) {
        snprintf(g->values_why, sizeof g->values_why, "TEXFDTD_GL_VALUES=host");
        return 0;
    }
    /* the layout make_entries knows; a list added to the slot-value
     * buffers without an entry type here takes the host path */
    const size_t nhost = m->ncut + g->ntecut + g->nhoff;
    if (g->stride != m->nslots + m->ncut + g->nhslots + g->ndisp + g->ntecut + g->nhoff) {
        snprintf(g->values_why, sizeof g->values_why,
                 "the slot-value layout has lists gl/values.c does not know");
        return 0;
    }
    device_limits(g);
    if (g->values_why[0])
        return 0;
    const char *unchecked = getenv("TEXFDTD_GL_VALUES_UNCHECKED");
    const int chk = unchecked && !strcmp(unchecked, "1")
                        ? 0
                        : self_check(g, m, g->values_why, sizeof g->values_why, err, errlen);
    if (chk < 0)
        return -1;
    if (chk) {
        log_warn("%s: the source-slot values are computed on the host: %s",
                 g->compute ? "gl-compute" : "gl", g->values_why);
        return 0;
    }
    char defs[256], e2[ERRLEN];
    snprintf(defs, sizeof defs, "#define NX %d\n#define INC_LOCAL %d\n#define STRIDE %zu\n"
                                "#define NHOST %zu\n",
             m->nx, INC_LOCAL, g->stride, nhost ? nhost : (size_t)1);
    const char *st[1] = {"inc_values.comp"};
    if (gl_program_build(g->shader_dir, "incident.glsl", st, 1, defs, &g->val_prog, e2,
                         sizeof e2)) {
        /* a driver without (working) doubles in compute shaders */
        while (glGetError() != GL_NO_ERROR)
            ;
        snprintf(g->values_why, sizeof g->values_why, "no fp64 compute program: %.200s", e2);
        log_warn("%s: the source-slot values are computed on the host: %s",
                 g->compute ? "gl-compute" : "gl", g->values_why);
        return 0;
    }
    g->val_t_first = glGetUniformLocation(g->val_prog, "t_first");
    g->val_s_first = glGetUniformLocation(g->val_prog, "s_first");
    glProgramUniform1ui(g->val_prog, glGetUniformLocation(g->val_prog, "groups_x"), g->val_gx);

    size_t cb = 0;
    void *coef = coef_bytes(m, &cb);
    uint32_t *ent = coef ? make_entries(g, m, err, errlen) : NULL;
    if (!coef || !ent) {
        free(coef);
        return coef ? -1 : seterr(err, errlen, "out of memory for the slot-value coefficients");
    }
    glGenBuffers(1, &g->val_coef_buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->val_coef_buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)cb, coef, GL_STATIC_DRAW);
    glGenBuffers(1, &g->val_entry_buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->val_entry_buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(g->stride * 8), ent, GL_STATIC_DRAW);
    if (nhost) {
        glGenBuffers(2, g->val_host_buf);
        for (int k = 0; k < 2; k++) {
            glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->val_host_buf[k]);
            glBufferData(GL_SHADER_STORAGE_BUFFER,
                         (GLsizeiptr)((size_t)g->slot_cap_steps * nhost * 4), NULL, GL_STREAM_DRAW);
        }
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    free(coef);
    free(ent);
    g->dev_values = true;
    return gl2d_check_gl("setting up the slot values on the GPU", err, errlen);
}

void gl2d_values_dispatch(struct gl_engine *g, const struct model *m, int k, int t0, int b)
{
    const size_t nhost = m->ncut + g->ntecut + g->nhoff;
    if (nhost) {
        /* the batch's b^n of the cut edges and TE cut cells from the host,
         * [step][cut edges | TE cut cells | off-diagonal edges] (batch.c),
         * into the buffer of batch slot k: the other one may still be read
         * by the batch in flight's dispatch.  (With one buffer for both,
         * measured on the H100 and the H200, driver 580.159.04: the upload
         * for the next batch reached it before that dispatch had read it,
         * and a TM conformal scene's fields went wrong in 4 to 6 runs of
         * 12 to 15; glMemoryBarrier(GL_ALL_BARRIER_BITS) did not help, a
         * glFinish before or after the dispatch did.) */
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->val_host_buf[k]);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)((size_t)b * nhost * 4),
                        g->slot_host);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    }
    glUseProgram(g->val_prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_INC_COEF, g->val_coef_buf);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_INC_ENTRY, g->val_entry_buf);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_INC_HOST,
                     nhost ? g->val_host_buf[k] : g->val_coef_buf);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, SSBO_INC_OUT, g->slot_buf[k], 0,
                      (GLsizeiptr)((size_t)b * g->stride * 4));
    /* the passes of the batch before last read this buffer through texture
     * fetches; the uploads of the cut edges' values go through the buffer */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    for (int z0 = 0; z0 < b; z0 += g->val_max_z) {
        const int nz = b - z0 < g->val_max_z ? b - z0 : g->val_max_z;
        glUniform1i(g->val_t_first, t0 + z0);
        glUniform1i(g->val_s_first, z0);
        glDispatchCompute(g->val_gx, g->val_gy, (GLuint)nz);
    }
    /* the passes read the values through the slot-value texture buffer */
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    for (int q = SSBO_INC_COEF; q <= SSBO_INC_OUT; q++)
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)q, 0);
}

void gl2d_values_free(struct gl_engine *g)
{
    glDeleteProgram(g->val_prog);
    glDeleteBuffers(1, &g->val_coef_buf);
    glDeleteBuffers(1, &g->val_entry_buf);
    glDeleteBuffers(2, g->val_host_buf);
}

/* ---- the probe: core/incident.h's functions at given points ---- */

/* shaders/inc_probe.comp's program prog (built) at the n points args (10
 * doubles each) of function `what`, the results' bits into bits (what 6:
 * the float's bits); in the current context. */
static int probe_run(GLuint prog, const struct inc_wave *w, int what, const double *args, size_t n,
                     uint64_t *bits, char *err, size_t errlen)
{
    const size_t in_bytes = sizeof *w + n * 10 * sizeof(double);
    unsigned char *in = calloc(1, in_bytes);
    if (!in)
        return seterr(err, errlen, "out of memory for the probe's arguments");
    GLuint buf[2] = {0, 0};
    memcpy(in, w, sizeof *w);
    memcpy(in + sizeof *w, args, n * 10 * sizeof(double));
    glGenBuffers(2, buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[0]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)in_bytes, in, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[1]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(n * 8), NULL, GL_STREAM_READ);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_INC_COEF, buf[0]);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_INC_OUT, buf[1]);
    glUseProgram(prog);
    glUniform1ui(glGetUniformLocation(prog, "npoints"), (GLuint)n);
    glUniform1i(glGetUniformLocation(prog, "what"), what);
    glDispatchCompute((GLuint)((n + 63) / 64), 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf[1]);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(n * 8), bits);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_INC_COEF, 0);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, SSBO_INC_OUT, 0);
    glUseProgram(0);
    free(in);
    glDeleteBuffers(2, buf);
    return gl2d_check_gl("the incident-wave probe", err, errlen);
}

/* The engine's check of this driver's doubles before it trusts them: the
 * probe's sin, exp and the scene's own wave at SELF_N points spread over
 * the arguments the run reaches (the grid, the steps, sines to the largest
 * phase, exponentials down to their cut-off), each against the host's bits.
 * A driver whose compiler contracts or reorders a double expression in
 * spite of `precise` (seen on the NVIDIA driver 580: the sine's reduction
 * and the Horner steps differ in the last bits, docs/gl.md) fails it, and
 * the engine keeps the host's values: slower, never other bits.  0 when
 * every bit agrees; 1 with why set; -1 with err on a GL error. */
#define SELF_N 1536
static int self_check(const struct gl_engine *g, const struct model *m, char *why, size_t whylen,
                      char *err, size_t errlen)
{
    GLuint prog = 0;
    const char *st[1] = {"inc_probe.comp"};
    char e2[ERRLEN];
    if (gl_program_build(g->shader_dir, "incident.glsl", st, 1, "", &prog, e2, sizeof e2)) {
        while (glGetError() != GL_NO_ERROR)
            ;
        snprintf(why, whylen, "no fp64 compute program: %.200s", e2);
        return 1;
    }
    double *a = calloc((size_t)SELF_N * 10, sizeof *a);
    uint64_t *bits = calloc(SELF_N, sizeof *bits);
    int rc = a && bits ? 0 : seterr(err, errlen, "out of memory for the fp64 check");
    const double steps = (double)m->scene->steps + 1.0, span = (double)(m->nx + m->ny);
    const double phase = fabs(m->inc.omega_dt) * (steps + span * m->inc.inv_courant) + 10.0;
    static const char *const name[3] = {"sin", "exp", "the wave"};
    for (int what = 0; what < 3 && !rc; what++) {
        for (size_t k = 0; k < SELF_N; k++) {
            const double u = ((double)k + 0.5) / SELF_N; /* (0, 1) */
            double *p = a + 10 * k;
            p[0] = what == 0 ? phase * u * (k % 2 ? 1.0 : -1.0)
                   : what == 1 ? -707.0 * u
                               : (double)m->nx * u;
            p[1] = (double)m->ny * fmod(u * 7.3, 1.0);
            p[2] = steps * fmod(u * 3.7, 1.0);
        }
        rc = probe_run(prog, &m->inc, what, a, SELF_N, bits, err, errlen);
        size_t bad = 0;
        for (size_t k = 0; k < SELF_N && !rc; k++) {
            const double *p = a + 10 * k;
            const double h = what == 0   ? inc_sin(p[0])
                             : what == 1 ? inc_exp(p[0])
                                         : inc_at(m->inc, p[0], p[1], p[2]);
            uint64_t hb;
            memcpy(&hb, &h, 8);
            bad += hb != bits[k];
        }
        if (!rc && bad) {
            snprintf(why, whylen, "this driver's doubles differ from the host's (%s: %zu of %d "
                     "points)", name[what], bad, SELF_N);
            rc = 1;
        }
    }
    free(a);
    free(bits);
    glDeleteProgram(prog);
    return rc;
}

/* ---- the tests' probe (gl/gl.h) ---- */

int gl_incident_probe(int device, const char *shader_dir, const struct inc_wave *w, int what,
                      const double *args, size_t n, uint64_t *bits, char *err, size_t errlen)
{
    struct egl_ctx *ctx = NULL;
    struct egl_ctx_info info;
    if (egl_context_create(device, &ctx, &info, err, errlen))
        return -1;
    char dir[4096];
    gl_shader_dir(shader_dir, dir, sizeof dir);
    GLuint prog = 0;
    const char *st[1] = {"inc_probe.comp"};
    int rc = gl_program_build(dir, "incident.glsl", st, 1, "", &prog, err, errlen);
    if (!rc)
        rc = probe_run(prog, w, what, args, n, bits, err, errlen);
    glDeleteProgram(prog);
    egl_context_destroy(ctx);
    return rc;
}
