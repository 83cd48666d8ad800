/* engine.h - the one interface every engine implements (cpu, gl, gl-compute,
 * cuda).  The command, compare/ and the tests use nothing else.
 *
 * An engine owns its fields.  Life cycle:
 *     engine_create(name, model, options) -> step(n) ... read_field() ... destroy()
 * Fields are read in the engine's precision (float or double), [ny][nx],
 * x fastest, exactly as the engine holds them: the scattered field.
 */
#ifndef TEXFDTD_ENGINE_H
#define TEXFDTD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* FIELD_COUNT counts the time-domain fields; the DFT phasors of Ez (only when
 * the scene has [monitor.dft]) follow them. */
enum field {
    FIELD_EZ, FIELD_HX, FIELD_HY, FIELD_COUNT,
    FIELD_EZ_DFT_RE = FIELD_COUNT, FIELD_EZ_DFT_IM,
    FIELD_EX, FIELD_EY, FIELD_HZ, /* 3D only */
    FIELD_DFT_MORE /* the DFT phasors of frequencies 1, 2, ...: see field_dft() */
};
/* The DFT phasor of Ez ([monitor.dft]) at frequency k (scene->dft_freq[k]),
 * real (im = 0) or imaginary part: FIELD_EZ_DFT_RE / _IM for k = 0, then
 * FIELD_DFT_MORE + 2 (k - 1) + im. */
static inline enum field field_dft(int k, int im)
{
    return k == 0 ? (im ? FIELD_EZ_DFT_IM : FIELD_EZ_DFT_RE)
                  : (enum field)(FIELD_DFT_MORE + 2 * (k - 1) + im);
}
/* k of a DFT field, or -1 for a time-domain field. */
static inline int field_dft_index(enum field f)
{
    return f == FIELD_EZ_DFT_RE || f == FIELD_EZ_DFT_IM ? 0
           : f >= FIELD_DFT_MORE                        ? 1 + ((int)f - (int)FIELD_DFT_MORE) / 2
                                                        : -1;
}
/* The time-domain fields of a scene: ez, hx, hy (2D) or ex, ey, ez, hx, hy,
 * hz (3D), in that order; returns how many. */
int scene_fields(const struct scene *s, enum field out[6]);
enum precision { PRECISION_SINGLE, PRECISION_DOUBLE };
/* Denormal treatment of float arithmetic.  FLUSH is x86 SSE with FTZ and DAZ
 * set, which is what the NVIDIA and Mesa fragment shaders do; KEEP is IEEE
 * gradual underflow. */
enum denormals { DENORMALS_FLUSH, DENORMALS_KEEP };

struct engine_options {
    enum precision precision;
    enum denormals denormals;
    int device;             /* GPU index for gl/cuda; -1 = default */
    const char *shader_dir; /* gl: where the .vert/.frag files are; NULL = default */
    int threads;            /* cpu: OpenMP threads; 0 = default */
};

struct engine_info {
    char engine[32];     /* "cpu", "gl", ... */
    char device[256];    /* "x86_64 CPU, 2 threads", "NVIDIA H100 ...", ... */
    char detail[512];    /* driver / GL version and such; may be empty */
    enum precision precision;
    enum denormals denormals;
};

struct engine;

/* A checkpoint's view of an engine's state (everything beyond the step
 * counter that the next step reads): each array is passed to array() once,
 * in a fixed order, named, count values of the engine's precision.  The
 * layouts are the CPU engine's (core/model.h), whatever the engine keeps
 * internally, so a checkpoint written by one engine resumes on another of
 * the same precision.  Saving: data holds the values; loading: array()
 * fills data and the engine takes it over. */
struct state_io {
    bool load;
    int (*array)(struct state_io *io, const char *name, void *data, size_t count, char *err,
                 size_t errlen);
    void *ctx;
};

/* What an engine implements beyond PEC scenes; engine_create() refuses a
 * scene that needs something the engine lacks, rather than run it wrongly.
 * (Precision is the engine's own to check: it knows why it refuses.) */
enum engine_caps {
    ENGINE_CAP_CPML = 1u << 0,
    ENGINE_CAP_MUR = 1u << 1,
    ENGINE_CAP_DFT = 1u << 2,
    ENGINE_CAP_POINT = 1u << 3, /* [source] type = point */
    ENGINE_CAP_3D = 1u << 4,    /* a 3D engine: takes nz > 1 scenes, and only those */
    ENGINE_CAP_CONFORMAL = 1u << 5, /* [grid] conformal_pec */
    ENGINE_CAP_MPI = 1u << 6,   /* splits the grid over the ranks of mpirun (core/decomp.h) */
    ENGINE_CAP_MONITORS = 1u << 7, /* gathers model->samples (read_samples) */
    ENGINE_CAP_DFT_MULTI = 1u << 8, /* [monitor.dft] at more than one frequency */
    ENGINE_CAP_TE = 1u << 9,        /* [grid] polarization = te */
    ENGINE_CAP_MAGNETIC = 1u << 10, /* materials with mu_r != 1 (model->magnetic), 2D or 3D */
    ENGINE_CAP_LOSSY = 1u << 11,   /* a material with sigma != 0 (model->lossy) */
    ENGINE_CAP_DISPERSIVE = 1u << 12, /* dispersion poles (model->dispersive): 2D TM, or 3D
                                       * on a 3D engine (each bit means what the scene's
                                       * dimension needs: 2D and 3D engines are apart) */
    /* TE with a lossy material (sigma on the edges: model->hlossy, hmats[].ca)
     * and with poles (the dispersive edges model->hdisp); beside ENGINE_CAP_TE
     * and ENGINE_CAP_LOSSY / ENGINE_CAP_DISPERSIVE */
    ENGINE_CAP_TE_LOSSY = 1u << 13,
    ENGINE_CAP_TE_DISPERSIVE = 1u << 14,
    ENGINE_CAP_TE_CONFORMAL = 1u << 15, /* [grid] conformal_pec in TE (model->tecut) */
    ENGINE_CAP_TE_OFFDIAG = 1u << 16,   /* TE smoothing's off-diagonal (eps^-1)_xy
                                           (model->hoff, [grid] te_offdiagonal) */
};

struct engine_ops {
    const char *name;
    unsigned caps; /* enum engine_caps */
    const char *summary; /* one line for --help */
    int (*create)(const struct model *m, const struct engine_options *o, struct engine **out,
                  char *err, size_t errlen);
    /* Advance n time steps (H then E for each). */
    int (*step)(struct engine *e, int n, char *err, size_t errlen);
    /* Copy a field into dst: nx*ny elements of the engine's precision.  An
     * ENGINE_CAP_MPI engine under mpirun: collective (every rank calls it, in
     * the same order), and only rank 0's dst receives the whole field.  A
     * TE scene's hz, ex, ey never reach it: engine_read reads the arrays
     * ez, hx, hy and applies the signs (core/engine.c). */
    int (*read_field)(struct engine *e, enum field f, void *dst, char *err, size_t errlen);
    void (*describe)(const struct engine *e, struct engine_info *info);
    void (*destroy)(struct engine *e);
    /* Optional: replace a field with src (nx*ny elements of the engine's
     * precision), e.g. to start from a cavity mode.  NULL if unsupported. */
    int (*write_field)(struct engine *e, enum field f, const void *src, char *err, size_t errlen);
    /* Optional: the total field Ez (scattered + incident) coloured with the
     * diverging map of core/colormap.h into rgba[ny][nx][4], row 0 = j = 0.
     * NULL: the caller colours a read-back field on the host. */
    int (*render_rgba)(struct engine *e, uint8_t *rgba, char *err, size_t errlen);
    /* Optional (new members go last: the CUDA files initialise in order):
     * is every value of the time-domain fields finite?  0 yes, 1 no
     * (the first bad field and cell in *f, *cell), -1 on error.  Engines
     * whose fields live on the host scan them in place. */
    int (*check_finite)(struct engine *e, enum field *f, size_t *cell, char *err, size_t errlen);
    /* Optional: save or load the whole state through io (checkpoints).
     * NULL: the engine cannot checkpoint. */
    int (*state)(struct engine *e, struct state_io *io, char *err, size_t errlen);
    /* Monitors (ENGINE_CAP_MONITORS, core/monitor.h): after every step the
     * engine copies the values of model->samples (the scattered fields,
     * E^t and H^(t-1/2) after step t) into the next row of a buffer of
     * model->sample_rows rows on its device; engine_step never steps more
     * than that many steps between two calls of read_samples, which copies
     * the `rows` rows recorded since the previous call into dst
     * ([rows][nsamples], the engine's precision) and starts over.  Under
     * mpirun (ENGINE_CAP_MPI): collective, and rank 0's dst gets them all. */
    int (*read_samples)(struct engine *e, void *dst, int rows, char *err, size_t errlen);
};

struct monitors;

/* Every engine begins with this header. */
struct engine {
    const struct engine_ops *ops;
    const struct model *model;
    struct engine_options opt;
    int step; /* completed time steps */
    struct monitors *mon; /* the monitors' running state (engine.c); NULL without */
};

/* Engines known to this build, NULL-terminated.  A name may appear twice,
 * once as a 2D and once as a 3D engine (ENGINE_CAP_3D): "cpu" runs both. */
const struct engine_ops *const *engine_list(void);
/* The engine called name for a scene of that dimension (2 or 3); with dims =
 * 0, any engine of that name.  NULL if there is none. */
const struct engine_ops *engine_find(const char *name, int dims);

/* Convenience wrappers that keep e->step in sync.  engine_step also feeds
 * the monitors (core/monitor.h): it steps at most model->sample_rows steps
 * at a time and hands each batch of samples to e->mon. */
/* What of m's scene engine `name` cannot run (a line such as "[grid]
 * polarization = te"), or NULL when it takes the scene. */
const char *engine_refuses(const char *name, const struct model *m);
int engine_create(const char *name, const struct model *m, const struct engine_options *o,
                  struct engine **out, char *err, size_t errlen);
int engine_step(struct engine *e, int n, char *err, size_t errlen);
int engine_read(struct engine *e, enum field f, void *dst, char *err, size_t errlen);
int engine_write(struct engine *e, enum field f, const void *src, char *err, size_t errlen);
void engine_describe(const struct engine *e, struct engine_info *info);
/* 0: finite (or the engine cannot tell cheaply); 1: a NaN or Inf, where. */
int engine_check_finite(struct engine *e, enum field *f, size_t *cell, char *err, size_t errlen);
/* Save or load e's state through io; loading also sets e->step = step.
 * Fails with a clear message where the engine cannot checkpoint. */
int engine_state(struct engine *e, struct state_io *io, int step, char *err, size_t errlen);
void engine_destroy(struct engine *e);

const char *field_name(enum field f);
const char *precision_name(enum precision p);
const char *denormals_name(enum denormals d);
size_t precision_size(enum precision p);

#endif
