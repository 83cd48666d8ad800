/* texbuf.c - gl_bench texbuf's runs (gl/texbuf.h; issue 14, item 1): the
 * gl-compute update of a vacuum PEC box with its fields in storage buffers,
 * images or textures, built from one pass text (shaders/texbuf.comp or
 * update_tb.comp) over the access functions of shaders/texbuf_access.glsl,
 * which this file prepends after the #defines that choose the path.  The
 * engine given supplies the context, its #defines (grid, work-group size,
 * denormal mode), the material coefficients and, for update_tb.comp, the
 * material and slot textures.
 */
#define _GNU_SOURCE
#include "gl/texbuf.h"

#include "core/util.h"
#include "gl/gl2d_internal.h"
#include "gl/shader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gl_texbuf_access_name(enum gl_texbuf_access a)
{
    return a == GL_TEXBUF_SSBO ? "ssbo" : a == GL_TEXBUF_IMAGE ? "image" : "texture";
}

const char *gl_texbuf_kernel_name(enum gl_texbuf_kernel k)
{
    return k == GL_TEXBUF_STEP ? "step" : k == GL_TEXBUF_COPY ? "copy" : "tb";
}

uint64_t gl_bench_rng_seed(uint64_t seed) { return seed * 0x9E3779B97F4A7C15ull + 1; }

void gl_bench_rng_fill(uint64_t *state, float *v, size_t n)
{
    uint64_t x = *state;
    for (size_t q = 0; q < n; q++) {
        x ^= x << 13; /* xorshift64 */
        x ^= x >> 7;
        x ^= x << 17;
        v[q] = (float)((double)(x >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    }
    *state = x;
}

/* gl_bench_fill_random's order: the Ez rows, then the (Hx, Hy) rows. */
void gl_bench_random_fields(int nx, int ny, uint64_t seed, float *ez, float *hx, float *hy)
{
    const size_t w = (size_t)nx;
    uint64_t x = gl_bench_rng_seed(seed);
    float *row = malloc(2 * w * sizeof(float));
    for (int j = 0; j < ny; j++) {
        float *r = ez + (size_t)j * w;
        gl_bench_rng_fill(&x, r, w);
        if (j == 0 || j == ny - 1)
            memset(r, 0, w * sizeof(float));
        r[0] = 0;
        r[w - 1] = 0;
    }
    for (int j = 0; j < ny; j++) {
        gl_bench_rng_fill(&x, row, 2 * w);
        for (size_t i = 0; i < w; i++) {
            hx[(size_t)j * w + i] = row[2 * i];
            hy[(size_t)j * w + i] = row[2 * i + 1];
        }
    }
    free(row);
}

/* One access path's fields: obj[side][f], f = 0 Ez, 1 H (Hx if planar),
 * 2 Hy (planar); side cur is read, the other written, then they swap. */
struct store {
    enum gl_texbuf_access access;
    int nf;
    GLuint obj[2][3];
    GLenum fmt[3];
    int comps[3];
    int cur;
};

static void store_free(struct store *s)
{
    for (int k = 0; k < 2; k++) {
        if (s->access == GL_TEXBUF_SSBO)
            glDeleteBuffers(s->nf, s->obj[k]);
        else
            glDeleteTextures(s->nf, s->obj[k]);
    }
    memset(s->obj, 0, sizeof s->obj);
}

/* Field f's host values: Ez, Hx or Hy, or (Hx, Hy) interleaved into tmp. */
static const float *host_field(const struct store *s, int f, size_t n, const float *ez,
                               const float *hx, const float *hy, float *tmp)
{
    if (f == 0)
        return ez;
    if (s->nf == 3)
        return f == 1 ? hx : hy;
    for (size_t q = 0; q < n; q++) {
        tmp[2 * q] = hx[q];
        tmp[2 * q + 1] = hy[q];
    }
    return tmp;
}

static int store_make(struct gl_engine *g, struct store *s, const float *ez, const float *hx,
                      const float *hy, char *err, size_t errlen)
{
    const size_t n = (size_t)g->nx * (size_t)g->ny;
    for (int f = 0; f < s->nf; f++) {
        s->comps[f] = s->nf == 2 && f == 1 ? 2 : 1;
        s->fmt[f] = s->comps[f] == 2 ? GL_RG32F : GL_R32F;
    }
    if (s->access == GL_TEXBUF_SSBO) {
        GLint64 max_block = 0;
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max_block);
        const double need = (double)n * 4.0 * (s->nf == 2 ? 2 : 1);
        if (need > (double)max_block)
            return -seterr(err, errlen,
                          "a field of %.0f bytes exceeds the %lld of "
                          "GL_MAX_SHADER_STORAGE_BLOCK_SIZE; nothing was run",
                          need, (long long)max_block);
    } else {
        GLint max_tex = 0;
        glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_tex);
        if (g->nx > max_tex || g->ny > max_tex)
            return -seterr(err, errlen, "%d x %d exceeds GL_MAX_TEXTURE_SIZE %d; nothing was run",
                          g->nx, g->ny, max_tex);
    }
    float *tmp = s->nf == 2 ? malloc(2 * n * sizeof(float)) : NULL;
    if (s->nf == 2 && !tmp)
        return seterr(err, errlen, "out of host memory for %zu cells", n);
    glActiveTexture(GL_TEXTURE0);
    for (int f = 0; f < s->nf; f++) {
        const float *v = host_field(s, f, n, ez, hx, hy, tmp);
        const size_t row = (size_t)g->nx * (size_t)s->comps[f];
        for (int side = 0; side < 2; side++) {
            if (s->access == GL_TEXBUF_SSBO) {
                glGenBuffers(1, &s->obj[side][f]);
                glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->obj[side][f]);
                glBufferStorage(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(n * s->comps[f] * 4), NULL,
                                GL_DYNAMIC_STORAGE_BIT);
            } else {
                s->obj[side][f] = gl2d_make_tex(s->fmt[f], g->nx, g->ny);
            }
            /* side 0 holds the fields; every dispatch writes every cell of
             * the other */
            for (int j0 = 0; j0 < g->ny && side == 0; j0 += 256) {
                const int rows = g->ny - j0 < 256 ? g->ny - j0 : 256;
                const float *src = v + (size_t)j0 * row;
                if (s->access == GL_TEXBUF_SSBO)
                    glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)((size_t)j0 * row * 4),
                                    (GLsizeiptr)((size_t)rows * row * 4), src);
                else
                    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, j0, g->nx, rows,
                                    s->comps[f] == 2 ? GL_RG : GL_RED, GL_FLOAT, src);
            }
        }
    }
    free(tmp);
    s->cur = 0;
    return gl2d_check_gl("texbuf: the fields", err, errlen);
}

/* Read side cur back into ez, hx, hy. */
static int store_read(struct gl_engine *g, struct store *s, float *ez, float *hx, float *hy,
                      char *err, size_t errlen)
{
    const size_t n = (size_t)g->nx * (size_t)g->ny;
    float *tmp = s->nf == 2 ? malloc(2 * n * sizeof(float)) : NULL;
    if (s->nf == 2 && !tmp)
        return seterr(err, errlen, "out of host memory for %zu cells", n);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    for (int f = 0; f < s->nf; f++) {
        float *v = f == 0 ? ez : s->nf == 2 ? tmp : f == 1 ? hx : hy;
        const size_t row = (size_t)g->nx * (size_t)s->comps[f];
        const GLuint o = s->obj[s->cur][f];
        const GLenum fmt = s->comps[f] == 2 ? GL_RG : GL_RED;
        /* Textures without a framebuffer: on llvmpipe a glReadPixels through
         * one, unbound and deleted, left every later GL_TIME_ELAPSED at 0.
         * In bands of rows where GL 4.5 allows (a 16384^2 RG32F texture is
         * 2^31 bytes), else whole. */
        if (s->access != GL_TEXBUF_SSBO && !glGetTextureSubImage) {
            glActiveTexture(GL_TEXTURE0);
            glBindTexture(GL_TEXTURE_2D, o);
            glGetTexImage(GL_TEXTURE_2D, 0, fmt, GL_FLOAT, v);
            continue;
        }
        if (s->access == GL_TEXBUF_SSBO)
            glBindBuffer(GL_SHADER_STORAGE_BUFFER, o);
        for (int j0 = 0; j0 < g->ny; j0 += 256) {
            const int rows = g->ny - j0 < 256 ? g->ny - j0 : 256;
            const size_t bytes = (size_t)rows * row * 4;
            float *dst = v + (size_t)j0 * row;
            if (s->access == GL_TEXBUF_SSBO)
                glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)((size_t)j0 * row * 4),
                                   (GLsizeiptr)bytes, dst);
            else
                glGetTextureSubImage(o, 0, 0, j0, 0, g->nx, rows, 1, fmt, GL_FLOAT,
                                     (GLsizei)bytes, dst);
        }
    }
    if (tmp)
        for (size_t q = 0; q < n; q++) {
            hx[q] = tmp[2 * q];
            hy[q] = tmp[2 * q + 1];
        }
    free(tmp);
    return gl2d_check_gl("texbuf: reading the fields back", err, errlen);
}

/* Side cur as the inputs, the other side as the outputs (the bindings of
 * texbuf_access.glsl: inputs 0 .. 2, outputs 3 .. 5; samplers 8 .. 10). */
static void store_bind(struct store *s)
{
    for (int f = 0; f < s->nf; f++) {
        const GLuint in = s->obj[s->cur][f], out = s->obj[1 - s->cur][f];
        if (s->access == GL_TEXBUF_SSBO) {
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)f, in);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)(3 + f), out);
            continue;
        }
        if (s->access == GL_TEXBUF_IMAGE)
            glBindImageTexture((GLuint)f, in, 0, GL_FALSE, 0, GL_READ_ONLY, s->fmt[f]);
        else
            bind_tex(8 + f, GL_TEXTURE_2D, in);
        glBindImageTexture((GLuint)(3 + f), out, 0, GL_FALSE, 0, GL_WRITE_ONLY, s->fmt[f]);
    }
}

/* The file `name` of the shader directory, NUL-terminated, or NULL. */
static char *read_shader(const char *dir, const char *name, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long len = -1;
    if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)
        && (text = malloc((size_t)len + 1)) && fread(text, 1, (size_t)len, f) == (size_t)len)
        text[len] = 0;
    else {
        free(text);
        text = NULL;
        seterr(err, errlen, "cannot read %s", path);
    }
    if (f)
        fclose(f);
    return text;
}

static int build(struct gl_engine *g, const struct model *m, const struct gl_texbuf_case *c,
                 GLuint *prog, char *err, size_t errlen)
{
    char *layer = read_shader(g->shader_dir, "texbuf_access.glsl", err, errlen);
    if (!layer)
        return -1;
    char defs[2560], head[512];
    gl2d_make_defines(g, m, g->emulate_flush, defs, sizeof defs);
    snprintf(head, sizeof head,
             "#define ACCESS %d\n#define H_PLANAR %d\n#define KERNEL %d\n#define K %d\n"
             "#define TILE_X %d\n#define TILE_Y %d\n#define STRIDE %zu\n#define MONITORS 0\n"
             "#define NSAMPLES 1\n#define FIELD_EZ %d\n#define FIELD_HX %d\n",
             (int)c->access, c->planar ? 1 : 0, c->kernel == GL_TEXBUF_COPY ? 1 : 0,
             c->kernel == GL_TEXBUF_TB ? c->tb_k : 1, c->tile_x, c->tile_y, g->stride,
             (int)FIELD_EZ, (int)FIELD_HX);
    const size_t len = strlen(defs) + strlen(head) + strlen(layer) + 1;
    char *all = malloc(len);
    if (all)
        snprintf(all, len, "%s%s%s", defs, head, layer);
    free(layer);
    if (!all)
        return seterr(err, errlen, "out of host memory for the shader text");
    const char *st[1] = {c->kernel == GL_TEXBUF_TB ? "update_tb.comp" : "texbuf.comp"};
    const int rc = gl_program_build(g->shader_dir, "update2d.glsl", st, 1, all, prog, err, errlen);
    free(all);
    if (rc)
        return -1;
    gl2d_set_coefficients(*prog, m);
    set_sampler(*prog, "mat_tex", UNIT_MAT);
    set_sampler(*prog, "slot_tex", UNIT_SLOT);
    set_sampler(*prog, "slot_values", UNIT_SLOTVAL);
    return 0;
}

void gl_texbuf_local(const struct engine *e, int *local_x, int *local_y)
{
    const struct gl_engine *g = (const struct gl_engine *)e;
    *local_x = g->local_x;
    *local_y = g->local_y;
}

int gl_texbuf_run(struct engine *e, const struct model *m, const struct gl_texbuf_case *c,
                  int warm, int steps, int reps, float *ez, float *hx, float *hy, double *seconds,
                  char *err, size_t errlen)
{
    if (!e || strcmp(e->ops->name, "gl-compute"))
        return seterr(err, errlen, "texbuf: needs a gl-compute engine");
    struct gl_engine *g = G(e);
    if (m->nslots || gl2d_has_features(g) || m->nx != g->nx || m->ny != g->ny)
        return seterr(err, errlen, "texbuf: the engine's model is no vacuum PEC box of %d x %d",
                      m->nx, m->ny);
    const int k = c->kernel == GL_TEXBUF_TB ? c->tb_k : 1;
    if (k < 1 || warm % k || steps % k)
        return seterr(err, errlen, "texbuf: %d and %d steps are no multiples of K = %d", warm,
                      steps, k);
    if (gl2d_begin_transfer(g, err, errlen))
        return -1;
    GLuint prog = 0;
    if (build(g, m, c, &prog, err, errlen))
        return -1;
    struct store s = {.access = c->access, .nf = c->planar ? 3 : 2};
    const int made = store_make(g, &s, ez, hx, hy, err, errlen);
    if (made) {
        store_free(&s);
        glDeleteProgram(prog);
        return made > 0 ? 1 : -1;
    }
    gl2d_bind_inputs(g); /* update_tb.comp's material and slot textures */
    glUseProgram(prog);
    const GLint base = glGetUniformLocation(prog, "slot_base");
    if (base >= 0)
        glUniform1i(base, 0);
    const int wx = k > 1 ? c->tile_x : g->local_x, wy = k > 1 ? c->tile_y : g->local_y;
    const GLbitfield bar = c->access == GL_TEXBUF_SSBO ? GL_SHADER_STORAGE_BARRIER_BIT
                           : c->access == GL_TEXBUF_IMAGE
                               ? GL_SHADER_IMAGE_ACCESS_BARRIER_BIT
                               : GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;
    GLuint q;
    glGenQueries(1, &q);
    for (int r = -1; r < reps; r++) { /* r = -1: the warm-up, untimed */
        const int n = (r < 0 ? warm : steps) / k;
        if (r >= 0)
            glBeginQuery(GL_TIME_ELAPSED, q);
        for (int d = 0; d < n; d++) {
            store_bind(&s);
            glDispatchCompute((GLuint)((g->nx + wx - 1) / wx), (GLuint)((g->ny + wy - 1) / wy), 1);
            glMemoryBarrier(bar);
            s.cur ^= 1;
        }
        if (r < 0) {
            glFinish();
            continue;
        }
        glEndQuery(GL_TIME_ELAPSED);
        GLuint64 ns = 0;
        glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
        seconds[r] = (double)ns * 1e-9;
    }
    glDeleteQueries(1, &q);
    glUseProgram(0);
    int rc = gl2d_check_gl("texbuf: the dispatches", err, errlen);
    if (!rc)
        rc = store_read(g, &s, ez, hx, hy, err, errlen);
    store_free(&s);
    glDeleteProgram(prog);
    return rc;
}
