/* api.c - the public C API (core/texfdtd.h) over the internal modules.
 *
 * A tf_scene keeps the scene's text and overrides beside the parsed scene;
 * a tf_sim parses its own copy from them (so that it outlives the tf_scene
 * and tf_scene_set leaves it alone), builds its model and creates its
 * engine.  Nothing here is global.  Every entry point works with an error
 * buffer of ERRLEN bytes of its own and copies the line out (finish()),
 * so the internal code always has a whole buffer to write into. */
#define _GNU_SOURCE
#include "texfdtd.h"
#include "api_internal.h"
#include "checkpoint.h"
#include "engine.h"
#include "farfield3d.h"
#include "model.h"
#include "monitor.h"
#include "scene.h"
#include "args.h"
#include "util.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C0 299792458.0

struct tf_scene {
    char *name;  /* the file's path, or the name given with a string */
    char *text;  /* the scene file's text */
    char **sets; /* the overrides, in order */
    int nsets;
    bool parsed; /* s holds a scene */
    struct scene s;
};

struct tf_sim {
    struct scene s;
    struct model m;
    struct engine *e;
    bool model_built;
    char *name, *text;
    char **sets;
    int nsets;
};

/* The caller's buffer gets the message of a failure (and "" on success). */
static int finish(int rc, const char *e, char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", rc ? (e[0] ? e : "failed (no message)") : "");
    return rc ? -1 : 0;
}

#define NEED(ptr, what)                                                                      \
    do {                                                                                     \
        if (!(ptr))                                                                          \
            return finish(-1, what " is NULL", err, errlen);                                 \
    } while (0)

/* ---- version ------------------------------------------------------------------ */

int tf_version(void)
{
    return TEXFDTD_VERSION_MAJOR * 10000 + TEXFDTD_VERSION_MINOR * 100 + TEXFDTD_VERSION_PATCH;
}

const char *tf_version_string(void)
{
#ifdef TEXFDTD_GIT_HASH
    return TEXFDTD_VERSION " (git " TEXFDTD_GIT_HASH ")";
#else
    return TEXFDTD_VERSION;
#endif
}

/* Append item to the list buf, after sep unless first; -1 when it does not fit. */
static int list_add(char *buf, size_t len, size_t *used, const char *item, const char *sep)
{
    const int n = snprintf(buf + *used, len - *used, "%s%s", *used ? sep : "", item);
    if (n < 0 || (size_t)n >= len - *used)
        return -1;
    *used += (size_t)n;
    return 0;
}

static int small_buffer(size_t len, char *err, size_t errlen)
{
    char e[ERRLEN];
    snprintf(e, sizeof e, "the buffer of %zu bytes is too small", len);
    return finish(-1, e, err, errlen);
}

int tf_engines(char *buf, size_t len, char *err, size_t errlen)
{
    NEED(buf, "buf");
    if (!len)
        return small_buffer(len, err, errlen);
    size_t used = 0;
    buf[0] = 0;
    const struct engine_ops *const *l = engine_list();
    for (int i = 0; l[i]; i++) {
        bool seen = false; /* "cpu" is there twice, 2D and 3D */
        for (int k = 0; k < i; k++)
            seen |= !strcmp(l[k]->name, l[i]->name);
        if (!seen && list_add(buf, len, &used, l[i]->name, ","))
            return small_buffer(len, err, errlen);
    }
    return finish(0, "", err, errlen);
}

/* ---- scenes ------------------------------------------------------------------- */

static void free_sets(char **sets, int n)
{
    for (int i = 0; i < n; i++)
        free(sets[i]);
    free(sets);
}

/* A copy of sets[0 .. n) with room for `extra` more; NULL when out of memory. */
static char **copy_sets(const char *const *sets, int n, int extra)
{
    char **c = calloc((size_t)(n + extra) + 1, sizeof *c);
    for (int i = 0; c && i < n; i++)
        if (!(c[i] = strdup(sets[i] ? sets[i] : ""))) {
            free_sets(c, i);
            return NULL;
        }
    return c;
}

static int parse(struct scene *s, const char *name, const char *text, char *const *sets,
                 int nsets, char *e)
{
    return scene_load_text(s, name, text, strlen(text), (const char *const *)sets, nsets, e,
                           ERRLEN);
}

static int scene_new(const char *name, char *text, const char *const *sets, int nsets,
                     tf_scene **out, char *e)
{
    tf_scene *sc = calloc(1, sizeof *sc);
    if (sc)
        sc->text = text;
    else
        free(text);
    if (!sc || !(sc->name = strdup(name)) || !(sc->sets = copy_sets(sets, nsets, 0))) {
        tf_scene_free(sc);
        return seterr(e, ERRLEN, "out of memory for the scene");
    }
    sc->nsets = nsets;
    if (parse(&sc->s, sc->name, sc->text, sc->sets, nsets, e)) {
        tf_scene_free(sc);
        return -1;
    }
    sc->parsed = true;
    *out = sc;
    return 0;
}

int tf_scene_load(const char *path, const char *const *sets, int nsets, tf_scene **out,
                  char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(path, "path");
    NEED(out, "out");
    *out = NULL;
    if (nsets < 0 || (nsets > 0 && !sets))
        return finish(-1, "nsets < 0, or sets is NULL", err, errlen);
    size_t len;
    char *text = scene_read_file(path, &len, e, sizeof e);
    if (!text)
        return finish(-1, e, err, errlen);
    if (strlen(text) != len) {
        free(text);
        snprintf(e, sizeof e, "%s: the scene file holds a NUL byte", path);
        return finish(-1, e, err, errlen);
    }
    return finish(scene_new(path, text, sets, nsets, out, e), e, err, errlen);
}

int tf_scene_from_string(const char *name, const char *text, const char *const *sets, int nsets,
                         tf_scene **out, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(text, "text");
    NEED(out, "out");
    *out = NULL;
    if (nsets < 0 || (nsets > 0 && !sets))
        return finish(-1, "nsets < 0, or sets is NULL", err, errlen);
    char *copy = strdup(text);
    if (!copy)
        return finish(-1, "out of memory for the scene text", err, errlen);
    return finish(scene_new(name && *name ? name : "scene", copy, sets, nsets, out, e), e, err,
                  errlen);
}

int tf_scene_set(tf_scene *scene, const char *set, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(scene, "scene");
    NEED(set, "set");
    char **sets = copy_sets((const char *const *)scene->sets, scene->nsets, 1);
    if (!sets || !(sets[scene->nsets] = strdup(set))) {
        free_sets(sets, scene->nsets);
        return finish(-1, "out of memory for the override", err, errlen);
    }
    struct scene s;
    if (parse(&s, scene->name, scene->text, sets, scene->nsets + 1, e)) {
        free_sets(sets, scene->nsets + 1);
        return finish(-1, e, err, errlen);
    }
    scene_free(&scene->s);
    scene->s = s;
    free_sets(scene->sets, scene->nsets);
    scene->sets = sets;
    scene->nsets++;
    return finish(0, e, err, errlen);
}

int tf_scene_check(const tf_scene *scene, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(scene, "scene");
    struct model m;
    const int rc = model_build(&m, &scene->s, e, sizeof e);
    if (!rc)
        model_free(&m);
    return finish(rc, e, err, errlen);
}

int tf_scene_dims(const tf_scene *scene, int *nx, int *ny, int *nz, int *steps, char *err,
                  size_t errlen)
{
    NEED(scene, "scene");
    if (nx)
        *nx = scene->s.nx;
    if (ny)
        *ny = scene->s.ny;
    if (nz)
        *nz = scene->s.nz;
    if (steps)
        *steps = scene->s.steps;
    return finish(0, "", err, errlen);
}

int tf_scene_spacing(const tf_scene *scene, double *dx, double *dt, double *f0, char *err,
                     size_t errlen)
{
    NEED(scene, "scene");
    if (dx)
        *dx = scene_dx(&scene->s);
    if (dt)
        *dt = scene_dt(&scene->s);
    if (f0)
        *f0 = scene->s.frequency_hz;
    return finish(0, "", err, errlen);
}

void tf_scene_free(tf_scene *scene)
{
    if (!scene)
        return;
    if (scene->parsed)
        scene_free(&scene->s);
    free_sets(scene->sets, scene->nsets);
    free(scene->name);
    free(scene->text);
    free(scene);
}

/* ---- simulations -------------------------------------------------------------- */

/* The first half of a simulation: its own copy of the scene, parsed, and
 * the model built; no engine yet (api_internal.h). */
int api_sim_prepare(const tf_scene *scene, tf_sim **out, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(scene, "scene");
    NEED(out, "out");
    *out = NULL;
    tf_sim *sim = calloc(1, sizeof *sim);
    if (!sim || !(sim->name = strdup(scene->name)) || !(sim->text = strdup(scene->text))
        || !(sim->sets = copy_sets((const char *const *)scene->sets, scene->nsets, 0))) {
        if (sim)
            free(sim->name), free(sim->text), free(sim);
        return finish(-1, "out of memory for the simulation", err, errlen);
    }
    sim->nsets = scene->nsets;
    if (parse(&sim->s, sim->name, sim->text, sim->sets, sim->nsets, e)) {
        free_sets(sim->sets, sim->nsets);
        free(sim->name), free(sim->text), free(sim);
        return finish(-1, e, err, errlen);
    }
    const int rc = model_build(&sim->m, &sim->s, e, sizeof e);
    sim->model_built = rc == 0;
    if (rc) {
        tf_sim_destroy(sim);
        return finish(-1, e, err, errlen);
    }
    *out = sim;
    return finish(0, e, err, errlen);
}

/* The options as this version reads them: the caller's first opt->size
 * bytes over the defaults (a caller built against an older, shorter
 * struct leaves the newer fields at their defaults). */
static int read_options(const tf_sim_options *opt, struct engine_options *o, const char **engine,
                        char *e)
{
    tf_sim_options d = TF_SIM_OPTIONS_INIT;
    if (opt) {
        if (opt->size < offsetof(tf_sim_options, precision))
            return seterr(e, ERRLEN, "options.size is %zu: set it to sizeof(tf_sim_options) "
                          "(or start from TF_SIM_OPTIONS_INIT)", opt->size);
        memcpy(&d, opt, opt->size < sizeof d ? opt->size : sizeof d);
    }
    *o = (struct engine_options){.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                                 .device = d.device, .shader_dir = d.shader_dir,
                                 .threads = d.threads > 0 ? d.threads : 0};
    if (d.precision && !strcmp(d.precision, "double"))
        o->precision = PRECISION_DOUBLE;
    else if (d.precision && strcmp(d.precision, "single"))
        return seterr(e, ERRLEN, "precision is single or double, not '%s'", d.precision);
    if (d.denormals && !strcmp(d.denormals, "keep"))
        o->denormals = DENORMALS_KEEP;
    else if (d.denormals && strcmp(d.denormals, "flush"))
        return seterr(e, ERRLEN, "denormals is flush or keep, not '%s'", d.denormals);
    if (d.device < -1)
        return seterr(e, ERRLEN, "device is -1 (the default) or a GPU index, not %d", d.device);
    *engine = d.engine && *d.engine ? d.engine : "cpu";
    return 0;
}

/* The engine of a prepared simulation, from options already read. */
static int sim_start(tf_sim *sim, const char *engine, const struct engine_options *o, char *err,
                     size_t errlen)
{
    char e[ERRLEN] = "";
    if (sim->e)
        return finish(-1, "the simulation has its engine already", err, errlen);
    return finish(engine_create(engine, &sim->m, o, &sim->e, e, sizeof e), e, err, errlen);
}

/* The second half: the engine (api_internal.h). */
int api_sim_start(tf_sim *sim, const tf_sim_options *opt, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    struct engine_options o;
    const char *engine = "cpu";
    if (read_options(opt, &o, &engine, e))
        return finish(-1, e, err, errlen);
    return sim_start(sim, engine, &o, err, errlen);
}

int tf_sim_open(const tf_scene *scene, const tf_sim_options *opt, tf_sim **out, char *err,
                size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(scene, "scene");
    NEED(out, "out");
    *out = NULL;
    struct engine_options o;
    const char *engine = "cpu";
    if (read_options(opt, &o, &engine, e)) /* bad options: nothing is built */
        return finish(-1, e, err, errlen);
    tf_sim *sim;
    if (api_sim_prepare(scene, &sim, err, errlen))
        return -1;
    if (sim_start(sim, engine, &o, err, errlen)) {
        tf_sim_destroy(sim);
        return -1;
    }
    *out = sim;
    return 0;
}

int tf_sim_create(const tf_scene *scene, const char *engine, const char *precision, int device,
                  int threads, tf_sim **out, char *err, size_t errlen)
{
    tf_sim_options o = TF_SIM_OPTIONS_INIT;
    o.engine = engine;
    o.precision = precision;
    o.device = device;
    o.threads = threads;
    return tf_sim_open(scene, &o, out, err, errlen);
}

/* ---- for the command (api_internal.h) ---------------------------------------- */

const struct scene *api_scene_parsed(const tf_scene *scene) { return &scene->s; }
const char *api_scene_text(const tf_scene *scene) { return scene->text; }
struct model *api_sim_model(tf_sim *sim) { return &sim->m; }
struct engine *api_sim_engine(tf_sim *sim) { return sim->e; }

int tf_sim_step(tf_sim *sim, int n, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    if (n < 0 || n > sim->s.steps - sim->e->step) {
        snprintf(e, sizeof e, "%d steps from step %d: a simulation runs 0 .. %d steps in all "
                 "([grid] steps; set grid.steps to run longer)", n, sim->e->step, sim->s.steps);
        return finish(-1, e, err, errlen);
    }
    return finish(engine_step(sim->e, n, e, sizeof e), e, err, errlen);
}

int tf_sim_run(tf_sim *sim, char *err, size_t errlen)
{
    NEED(sim, "sim");
    return tf_sim_step(sim, sim->s.steps - sim->e->step, err, errlen);
}

int tf_sim_steps_done(const tf_sim *sim, int *steps, char *err, size_t errlen)
{
    NEED(sim, "sim");
    NEED(steps, "steps");
    *steps = sim->e->step;
    return finish(0, "", err, errlen);
}

/* The time-domain fields of the simulation, by their public names. */
static int sim_fields(const tf_sim *sim, enum field f[6], const char *names[6])
{
    static const char *const tm[] = {"ez", "hx", "hy"}, *const te[] = {"hz", "ex", "ey"};
    static const enum field tef[] = {FIELD_HZ, FIELD_EX, FIELD_EY};
    const int n = scene_fields(&sim->s, f);
    for (int k = 0; k < n; k++)
        names[k] = n == 6 ? field_name(f[k]) : sim->s.te ? te[k] : tm[k];
    if (n == 3 && sim->s.te)
        memcpy(f, tef, sizeof tef);
    return n;
}

static int field_lookup(const tf_sim *sim, const char *name, enum field *f, char *e)
{
    enum field fl[6];
    const char *names[6];
    const int n = sim_fields(sim, fl, names);
    char list[64];
    size_t used = 0;
    for (int k = 0; k < n; k++) {
        if (name && !strcmp(name, names[k])) {
            *f = fl[k];
            return 0;
        }
        list_add(list, sizeof list, &used, names[k], ", ");
    }
    return seterr(e, ERRLEN, "field '%s' is not one of %s (the fields of this %s simulation)",
                  name ? name : "(null)", list,
                  n == 6 ? "3D" : sim->s.te ? "2D TE" : "2D TM");
}

int tf_sim_check_finite(tf_sim *sim, int *finite, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(finite, "finite");
    enum field f;
    size_t c;
    const int r = engine_check_finite(sim->e, &f, &c, e, sizeof e);
    if (r < 0)
        return finish(-1, e, err, errlen);
    *finite = r == 0;
    if (r > 0 && err && errlen) {
        const size_t nx = (size_t)sim->s.nx, ny = (size_t)sim->s.ny;
        char at[96];
        if (sim->s.nz > 1)
            snprintf(at, sizeof at, "(%zu, %zu, %zu)", c % nx, c / nx % ny, c / (nx * ny));
        else
            snprintf(at, sizeof at, "(%zu, %zu)", c % nx, c / nx);
        /* TE: the arrays ez, hx, hy hold hz, ex, ey */
        const char *name = !sim->s.te ? field_name(f)
                           : f == FIELD_EZ ? "hz" : f == FIELD_HX ? "ex" : f == FIELD_HY ? "ey"
                                                                            : field_name(f);
        snprintf(err, errlen, "step %d: %s is not finite at cell %s", sim->e->step, name, at);
        return 0;
    }
    return finish(0, e, err, errlen);
}

int tf_sim_field_names(const tf_sim *sim, char *buf, size_t len, char *err, size_t errlen)
{
    NEED(sim, "sim");
    NEED(buf, "buf");
    enum field fl[6];
    const char *names[6];
    const int n = sim_fields(sim, fl, names);
    size_t used = 0;
    if (len)
        buf[0] = 0;
    for (int k = 0; k < n; k++)
        if (!len || list_add(buf, len, &used, names[k], ","))
            return small_buffer(len, err, errlen);
    return finish(0, "", err, errlen);
}

int tf_sim_field_count(const tf_sim *sim, size_t *count, char *err, size_t errlen)
{
    NEED(sim, "sim");
    NEED(count, "count");
    *count = sim->m.ncells;
    return finish(0, "", err, errlen);
}

static int check_count(const tf_sim *sim, size_t count, size_t want, const char *what, char *e)
{
    (void)sim;
    if (count != want)
        return seterr(e, ERRLEN, "%s: the buffer holds %zu values, %zu are needed", what, count,
                      want);
    return 0;
}

/* Read field f into dst, count values of `size` bytes (4 or 8). */
static int read_any(tf_sim *sim, enum field f, void *dst, size_t size, size_t count,
                    const char *what, char *e)
{
    const size_t n = sim->m.ncells;
    const enum precision p = sim->e->opt.precision;
    if (check_count(sim, count, n, what, e))
        return -1;
    if (size == precision_size(p))
        return engine_read(sim->e, f, dst, e, ERRLEN);
    void *tmp = xcalloc(n, precision_size(p), "field", e, ERRLEN);
    int rc = tmp ? engine_read(sim->e, f, tmp, e, ERRLEN) : -1;
    for (size_t q = 0; !rc && q < n; q++)
        if (size == 4) /* a double engine into floats: rounded */
            ((float *)dst)[q] = (float)((const double *)tmp)[q];
        else /* floats into doubles: exact */
            ((double *)dst)[q] = ((const float *)tmp)[q];
    free(tmp);
    return rc;
}

static int read_field(tf_sim *sim, const char *name, void *dst, size_t size, size_t count,
                      char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(dst, "dst");
    enum field f;
    if (field_lookup(sim, name, &f, e))
        return finish(-1, e, err, errlen);
    return finish(read_any(sim, f, dst, size, count, name, e), e, err, errlen);
}

int tf_sim_read_field_f32(tf_sim *sim, const char *name, float *dst, size_t count, char *err,
                          size_t errlen)
{
    return read_field(sim, name, dst, sizeof *dst, count, err, errlen);
}

int tf_sim_read_field_f64(tf_sim *sim, const char *name, double *dst, size_t count, char *err,
                          size_t errlen)
{
    return read_field(sim, name, dst, sizeof *dst, count, err, errlen);
}

/* Write src (count values of `size` bytes) into field `name`.  In TE the
 * arrays hold eta0 Hz, -Ex, -Ey (core/engine.c read_te): ex and ey go in
 * with the sign turned. */
static int write_field(tf_sim *sim, const char *name, const void *src, size_t size,
                       size_t count, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(src, "src");
    enum field f;
    if (field_lookup(sim, name, &f, e) || check_count(sim, count, sim->m.ncells, name, e))
        return finish(-1, e, err, errlen);
    const enum precision p = sim->e->opt.precision;
    const bool te = sim->s.te, neg = te && (f == FIELD_EX || f == FIELD_EY);
    if (te)
        f = f == FIELD_HZ ? FIELD_EZ : f == FIELD_EX ? FIELD_HX : FIELD_HY;
    if (size == precision_size(p) && !neg)
        return finish(engine_write(sim->e, f, src, e, sizeof e), e, err, errlen);
    void *tmp = xcalloc(count, precision_size(p), "field", e, sizeof e);
    if (!tmp)
        return finish(-1, e, err, errlen);
    const double sg = neg ? -1.0 : 1.0;
    for (size_t q = 0; q < count; q++) {
        const double v = size == 4 ? ((const float *)src)[q] : ((const double *)src)[q];
        if (p == PRECISION_SINGLE)
            ((float *)tmp)[q] = (float)v * (float)sg;
        else
            ((double *)tmp)[q] = v * sg;
    }
    const int rc = engine_write(sim->e, f, tmp, e, sizeof e);
    free(tmp);
    return finish(rc, e, err, errlen);
}

int tf_sim_write_field_f32(tf_sim *sim, const char *name, const float *src, size_t count,
                           char *err, size_t errlen)
{
    return write_field(sim, name, src, sizeof *src, count, err, errlen);
}

int tf_sim_write_field_f64(tf_sim *sim, const char *name, const double *src, size_t count,
                           char *err, size_t errlen)
{
    return write_field(sim, name, src, sizeof *src, count, err, errlen);
}

/* ---- monitors ------------------------------------------------------------------ */

static int probe_columns(const tf_sim *sim)
{
    return sim->m.plan && sim->s.nprobes ? 2 + sim->m.plan->ncols : 0;
}

int tf_sim_monitors(const tf_sim *sim, int *far_freqs, int *nflux, int *probe_cols,
                    int *dft_freqs, char *err, size_t errlen)
{
    NEED(sim, "sim");
    const struct scene *s = &sim->s;
    if (far_freqs)
        *far_freqs = s->far.on ? s->far.fr.n : 0;
    if (nflux)
        *nflux = s->nflux;
    if (probe_cols)
        *probe_cols = probe_columns(sim);
    if (dft_freqs)
        *dft_freqs = s->dft ? s->dft_nfreq : 0;
    return finish(0, "", err, errlen);
}

/* hz[k] = f[k] f0 for k < n, after checking count. */
static int frequencies(const tf_sim *sim, const double *f, int n, double *hz, size_t count,
                       const char *what, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    if (check_count(sim, count, (size_t)n, what, e))
        return finish(-1, e, err, errlen);
    for (int k = 0; k < n && hz; k++)
        hz[k] = f[k] * sim->s.frequency_hz;
    return finish(0, e, err, errlen);
}

int tf_sim_far_frequencies(const tf_sim *sim, double *hz, size_t count, char *err, size_t errlen)
{
    NEED(sim, "sim");
    NEED(hz, "hz");
    return frequencies(sim, sim->s.far.fr.f, sim->s.far.on ? sim->s.far.fr.n : 0, hz, count,
                       "far-field frequencies", err, errlen);
}

/* The monitors, or an error saying the scene has none of `what`. */
static struct monitors *monitors_of(const tf_sim *sim, bool has, const char *what, char *e)
{
    if (!has || !sim->e->mon) {
        seterr(e, ERRLEN, "%.300s has no %s", sim->s.path, what);
        return NULL;
    }
    return sim->e->mon;
}

int tf_sim_far2d(tf_sim *sim, int nangles, double *out, size_t count, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(out, "out");
    const struct monitors *mo =
        monitors_of(sim, sim->s.far.on && sim->s.nz == 1, "2D far-field monitor ([monitor.far])", e);
    if (!mo)
        return finish(-1, e, err, errlen);
    if (nangles < 1)
        return finish(-1, "nangles must be 1 or more", err, errlen);
    if (check_count(sim, count, (size_t)sim->s.far.fr.n * (size_t)nangles, "far field", e))
        return finish(-1, e, err, errlen);
    return finish(monitors_far2d(mo, nangles, out, e, sizeof e), e, err, errlen);
}

int tf_sim_far3d(tf_sim *sim, int k, const double *theta_deg, const double *phi_deg,
                 double *out, size_t count, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(theta_deg, "theta_deg");
    NEED(phi_deg, "phi_deg");
    NEED(out, "out");
    const struct monitors *mo =
        monitors_of(sim, sim->s.far.on && sim->s.nz > 1, "3D far-field monitor ([monitor.far])", e);
    if (!mo)
        return finish(-1, e, err, errlen);
    if (k < 0 || k >= sim->s.far.fr.n) {
        snprintf(e, sizeof e, "far-field frequency index %d is not in 0 .. %d", k,
                 sim->s.far.fr.n - 1);
        return finish(-1, e, err, errlen);
    }
    if (count > (size_t)1 << 30)
        return finish(-1, "too many directions", err, errlen);
    double *th = malloc((count ? count : 1) * 2 * sizeof *th);
    if (!th)
        return finish(-1, "out of memory for the directions", err, errlen);
    for (size_t q = 0; q < count; q++) {
        th[q] = theta_deg[q] * (M_PI / 180.0);
        th[count + q] = phi_deg[q] * (M_PI / 180.0);
    }
    const int rc =
        farfield3d_rcs(&sim->m, mo, k, (int)count, th, th + count, out, NULL, NULL, e, sizeof e);
    free(th);
    return finish(rc, e, err, errlen);
}

static int flux_index(const tf_sim *sim, int i, char *e)
{
    if (i < 0 || i >= sim->s.nflux)
        return seterr(e, ERRLEN, "flux monitor %d is not in 0 .. %d (%s has %d)", i,
                      sim->s.nflux - 1, sim->s.path, sim->s.nflux);
    return 0;
}

int tf_sim_flux_info(const tf_sim *sim, int i, char *name, size_t len, int *nfreqs, char *err,
                     size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    if (flux_index(sim, i, e))
        return finish(-1, e, err, errlen);
    const struct scene_flux *f = &sim->s.flux[i];
    if (name && (!len || strlen(f->name) >= len))
        return small_buffer(len, err, errlen);
    if (name)
        snprintf(name, len, "%s", f->name);
    if (nfreqs)
        *nfreqs = f->fr.n;
    return finish(0, e, err, errlen);
}

int tf_sim_flux(tf_sim *sim, int i, double *hz, double *scattered, double *total, size_t count,
                char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    const struct monitors *mo = monitors_of(sim, sim->s.nflux > 0, "flux monitor", e);
    if (!mo || flux_index(sim, i, e))
        return finish(-1, e, err, errlen);
    const struct scene_flux *f = &sim->s.flux[i];
    if (check_count(sim, count, (size_t)f->fr.n, f->name, e))
        return finish(-1, e, err, errlen);
    const double dx = scene_dx(&sim->s);
    for (int k = 0; k < f->fr.n; k++) {
        double ps, pt;
        monitors_flux2d(mo, i, k, &ps, &pt);
        if (hz)
            hz[k] = f->fr.f[k] * sim->s.frequency_hz;
        if (scattered)
            scattered[k] = ps * dx;
        if (total)
            total[k] = pt * dx;
    }
    return finish(0, e, err, errlen);
}

int tf_sim_probe_names(const tf_sim *sim, char *buf, size_t len, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(buf, "buf");
    const struct monitors *mo = monitors_of(sim, sim->s.nprobes > 0, "probe", e);
    if (!mo)
        return finish(-1, e, err, errlen);
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return finish(-1, "out of memory for the probe names", err, errlen);
    monitors_probe_header(mo, f);
    fclose(f);
    if (n && text[n - 1] == '\n')
        text[--n] = 0;
    const int rc = n < len ? 0 : -1;
    if (!rc)
        memcpy(buf, text, n + 1);
    free(text);
    return rc ? small_buffer(len, err, errlen) : finish(0, e, err, errlen);
}

int tf_sim_probe_rows(const tf_sim *sim, size_t *rows, char *err, size_t errlen)
{
    NEED(sim, "sim");
    NEED(rows, "rows");
    *rows = 0;
    if (sim->e->mon && sim->s.nprobes)
        monitors_probe_rows(sim->e->mon, rows);
    return finish(0, "", err, errlen);
}

int tf_sim_probe_data(const tf_sim *sim, double *out, size_t count, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(out, "out");
    const struct monitors *mo = monitors_of(sim, sim->s.nprobes > 0, "probe", e);
    if (!mo)
        return finish(-1, e, err, errlen);
    size_t rows;
    const double *v = monitors_probe_rows(mo, &rows);
    const size_t n = rows * (size_t)probe_columns(sim);
    if (check_count(sim, count, n, "probe series", e))
        return finish(-1, e, err, errlen);
    if (n)
        memcpy(out, v, n * sizeof *out);
    return finish(0, e, err, errlen);
}

int tf_sim_dft_frequencies(const tf_sim *sim, double *hz, size_t count, char *err, size_t errlen)
{
    NEED(sim, "sim");
    NEED(hz, "hz");
    return frequencies(sim, sim->s.dft_freq, sim->s.dft ? sim->s.dft_nfreq : 0, hz, count,
                       "DFT frequencies", err, errlen);
}

int tf_sim_read_dft(tf_sim *sim, int k, double *re, double *im, size_t count, char *err,
                    size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    if (!sim->s.dft) {
        snprintf(e, sizeof e, "%.300s has no [monitor.dft]", sim->s.path);
        return finish(-1, e, err, errlen);
    }
    if (k < 0 || k >= sim->s.dft_nfreq) {
        snprintf(e, sizeof e, "DFT frequency index %d is not in 0 .. %d", k,
                 sim->s.dft_nfreq - 1);
        return finish(-1, e, err, errlen);
    }
    double *part[2] = {re, im};
    for (int p = 0; p < 2; p++)
        if (part[p] && read_any(sim, field_dft(k, p), part[p], sizeof(double), count,
                                p ? "DFT (imaginary part)" : "DFT (real part)", e))
            return finish(-1, e, err, errlen);
    return finish(0, e, err, errlen);
}

/* ---- checkpoints, description -------------------------------------------------- */

int tf_sim_checkpoint_save(tf_sim *sim, const char *dir, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(dir, "dir");
    const int rc = make_dirs(dir, e, sizeof e)
                   || checkpoint_save(dir, sim->e, sim->name, sim->text,
                                      (const char *const *)sim->sets, sim->nsets, 0, 0.0, e,
                                      sizeof e);
    return finish(rc, e, err, errlen);
}

int tf_sim_checkpoint_load(tf_sim *sim, const char *dir, char *err, size_t errlen)
{
    char e[ERRLEN] = "";
    NEED(sim, "sim");
    NEED(dir, "dir");
    return finish(checkpoint_restore(dir, sim->e, e, sizeof e), e, err, errlen);
}

int tf_sim_describe(const tf_sim *sim, char *buf, size_t len, char *err, size_t errlen)
{
    NEED(sim, "sim");
    NEED(buf, "buf");
    struct engine_info info;
    engine_describe(sim->e, &info);
    const struct scene *s = &sim->s;
    char grid[64];
    snprintf(grid, sizeof grid, s->nz > 1 ? "%d x %d x %d" : "%d x %d", s->nx, s->ny, s->nz);
    const int n = snprintf(buf, len, "%s: %s %s cells, step %d of %d; engine %s on %s%s%s; %s "
                           "precision",
                           s->path, s->nz > 1 ? "3D" : s->te ? "2D TE" : "2D TM", grid,
                           sim->e->step, s->steps, info.engine, info.device,
                           info.detail[0] ? "; " : "", info.detail,
                           precision_name(info.precision));
    if (n < 0 || (size_t)n >= len)
        return small_buffer(len, err, errlen);
    return finish(0, "", err, errlen);
}

void tf_sim_destroy(tf_sim *sim)
{
    if (!sim)
        return;
    engine_destroy(sim->e);
    if (sim->model_built)
        model_free(&sim->m);
    scene_free(&sim->s);
    free_sets(sim->sets, sim->nsets);
    free(sim->name);
    free(sim->text);
    free(sim);
}
