/* gl.h - the GL engines `gl` (fragment passes) and `gl-compute` (compute
 * dispatches): what the command line and the benchmark call beyond the
 * engine interface of core/engine.h.  See docs/gl.md.
 */
#ifndef TEXFDTD_GL_H
#define TEXFDTD_GL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/engine.h"

/* `texfdtd devices`: one line per EGL device (index, vendor, renderer, GL
 * version, CUDA device through EGL_NV_device_cuda) and Mesa's surfaceless
 * fallback.  Returns 0 if at least one device gives a GL context, else -1
 * with err. */
int gl_print_devices(FILE *out, char *err, size_t errlen);

/* 0 if a GL context of the required version (GL_CTX_MAJOR.GL_CTX_MINOR core)
 * can be made on `device` (-1 = default), else -1 with err.  The command uses
 * it to pick the default engine: gl where it works, else cpu. */
int gl_probe(int device, char *err, size_t errlen);

/* ---- for bench/ only (bench/gl_bench.c); not part of the engine interface ---- */

/* Fill Ez, Hx and Hy with random values in [-1, 1) (seeded), so that a
 * timing never runs on zeros; the PEC ring of Ez stays 0. */
int gl_bench_fill_random(struct engine *e, uint64_t seed, char *err, size_t errlen);

/* engine_step(e, n) timed on the GPU with a GL_TIME_ELAPSED query around it. */
int gl_bench_timed_steps(struct engine *e, int n, double *gpu_seconds, char *err, size_t errlen);

/* Device-to-device copy of a buffer of `bytes`, timed with GL_TIME_ELAPSED
 * queries, median of `reps`: bytes read + written per s, bytes_per_s[0] with
 * glCopyBufferSubData, bytes_per_s[1] with a compute shader (copy.comp). */
int gl_bench_copy_bandwidth(struct engine *e, size_t bytes, int reps, double *bytes_per_s,
                            char *err, size_t errlen);

/* Write-only fragment pass into a render target of `w` x `h` texels of
 * `format` (GL_R32F, GL_RG32F or GL_RGBA32F as GLenum value), median of
 * `reps`: bytes written per s (the render-target write cap). */
int gl_bench_write_cap(struct engine *e, int w, int h, unsigned format, int reps,
                       double *bytes_per_s, char *err, size_t errlen);

/* The write cap above with format 0: two targets, R32F and RG32F, 12 bytes a
 * texel, as the k-step pass writes Ez and H. */

/* Two fragment-shader rates, each from full-viewport passes into a w x h
 * R32F target (shaders/roofline.frag), median of `reps`: float operations
 * per s of chains of dependent multiply-adds without FMA contraction (as
 * the engine's arithmetic), and texel fetches per s of an R32F texture in
 * a diamond around each fragment. */
int gl_bench_fragment_rates(struct engine *e, int w, int h, int reps, double *flops_per_s,
                            double *texels_per_s, char *err, size_t errlen);

/* Compile + link seconds of the engine's last update_k.frag (0 if none). */
int gl_bench_kpass_build_seconds(const struct engine *e, double *seconds);

/* core/incident.h's function `what` evaluated by shaders/inc_probe.comp (its
 * comment lists them) at n points of 10 arguments each (args[10 k ..]) on
 * GL device `device`, in a context of its own: the double results' bits
 * (what 6: the float's bits), for the tests that compare them with the
 * host's. */
struct inc_wave;
int gl_incident_probe(int device, const char *shader_dir, const struct inc_wave *w, int what,
                      const double *args, size_t n, uint64_t *bits, char *err, size_t errlen);

/* The arithmetic and texel fetches per cell and step of `gl` at k steps per
 * fragment pass (k = 1: the one-step H and E passes; k > 1: the vacuum fast
 * path of update_k.frag, counted from the statements gl/kgen.c generates):
 * the roofline of bench/gl_bench.c.  0, or -1 with err for a k it lacks. */
int gl_kpass_cost(int k, double *flops_per_cell, double *texels_per_cell, char *err,
                  size_t errlen);

/* Steps per fragment pass (gl: the multi-step path, 1 = plain passes) or
 * per compute dispatch (gl-compute: temporal blocking, 1 = one step per
 * dispatch) in use. */
int gl_engine_steps_per_pass(const struct engine *e);

#endif
