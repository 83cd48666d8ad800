/* texbuf.h - for bench/ and tests/ only (gl_bench texbuf; issue 14, item 1):
 * the gl-compute update over storage buffers, images or textures.
 *
 * One pass text (shaders/texbuf.comp, and update_tb.comp for K steps per
 * dispatch) is built over each access path of shaders/texbuf_access.glsl:
 *   GL_TEXBUF_SSBO   shader storage buffers (std430 float / vec2 arrays)
 *   GL_TEXBUF_IMAGE  imageLoad / imageStore on R32F (RG32F) images
 *   GL_TEXBUF_TEX    texelFetch from samplers, imageStore (the engine's path)
 * in the engine's layout (Ez R32F, (Hx, Hy) RG32F) or three R32F fields
 * (planar), on the fields of a vacuum PEC box (a gl-compute engine of its
 * model gives the context, the #defines, the work-group size and the
 * material texture).  Not part of the engine interface.
 */
#ifndef TEXFDTD_GL_TEXBUF_H
#define TEXFDTD_GL_TEXBUF_H

#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"
#include "core/model.h"

enum gl_texbuf_access { GL_TEXBUF_SSBO, GL_TEXBUF_IMAGE, GL_TEXBUF_TEX, GL_TEXBUF_ACCESSES };
enum gl_texbuf_kernel {
    GL_TEXBUF_STEP, /* the fused one-step dispatch (update_he.comp's scheme) */
    GL_TEXBUF_COPY, /* Ez, Hx, Hy read and written once: the memory floor */
    GL_TEXBUF_TB    /* K steps per dispatch in tiles (update_tb.comp) */
};

/* "ssbo", "image", "texture"; "step", "copy", "tb" */
const char *gl_texbuf_access_name(enum gl_texbuf_access a);
const char *gl_texbuf_kernel_name(enum gl_texbuf_kernel k);

struct gl_texbuf_case {
    enum gl_texbuf_access access;
    enum gl_texbuf_kernel kernel;
    int planar;         /* 1: Hx and Hy as two R32F fields (float arrays) */
    int tb_k;           /* GL_TEXBUF_TB: steps per dispatch (> 1) */
    int tile_x, tile_y; /* GL_TEXBUF_TB: the tile */
};

/* The random fields gl_bench_fill_random(seed) puts into an engine, as
 * arrays ez, hx, hy of nx * ny (cell i + j nx): the same xorshift64 stream,
 * values in [-1, 1), Ez 0 on the PEC ring.  (The engine's H texel
 * (nx-1, ny-1) then holds its step counter instead: update2d.glsl.) */
void gl_bench_random_fields(int nx, int ny, uint64_t seed, float *ez, float *hx, float *hy);
/* The stream itself: the state of a seed, and n values from the state. */
uint64_t gl_bench_rng_seed(uint64_t seed);
void gl_bench_rng_fill(uint64_t *state, float *v, size_t n);

/* Case c on the fields ez, hx, hy (nx * ny each, replaced by the result):
 * `warm` steps (or copies), then `reps` times `steps`, each rep timed with a
 * GL_TIME_ELAPSED query into seconds[rep] (seconds may be NULL when reps is
 * 0).  e: a gl-compute engine of the vacuum PEC box m (no objects, so no
 * slots).  With GL_TEXBUF_TB, warm and steps must be multiples of c->tb_k.
 * 0, or -1 with err, or 1 with err where the device cannot hold the fields
 * that way (nothing run). */
int gl_texbuf_run(struct engine *e, const struct model *m, const struct gl_texbuf_case *c,
                  int warm, int steps, int reps, float *ez, float *hx, float *hy, double *seconds,
                  char *err, size_t errlen);

/* The work-group size of e (gl-compute): the one-step passes' (TEXFDTD_GL_LOCAL,
 * default 16 x 16, gl/gl2d.c). */
void gl_texbuf_local(const struct engine *e, int *local_x, int *local_y);

#endif
