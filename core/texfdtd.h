/* texfdtd.h - the public C API of libtexfdtd (docs/api.md).
 *
 * A small interface over what `texfdtd run` does: load a scene (a file or
 * a string, with `section.key=value` overrides), create a simulation on an
 * engine ("cpu", "gl", "gl-compute", "cuda"), step it, read and write its
 * fields, read its monitors' results (far field, probes, flux, DFT),
 * checkpoint it, describe it, destroy it.  This is the only header that
 * `make install` installs; it includes nothing of the project's.
 *
 * Conventions (chosen so that ctypes and other FFIs can call it directly):
 *   - Opaque handles (tf_scene, tf_sim); plain C types, and one options
 *     struct (tf_sim_options) passed by pointer; no struct is passed by
 *     value, no callback is needed.
 *   - Every function that can fail returns 0 on success and non-zero on
 *     failure, and then writes one line saying what failed into the caller's
 *     buffer err of errlen bytes (NUL-terminated, truncated to fit; err may
 *     be NULL with errlen 0).  On failure the outputs are left unspecified
 *     and the handles keep their previous state.
 *   - Arrays are supplied by the caller, with their element count, which
 *     must be exactly the count the function documents (a wrong count is an
 *     error, nothing is written).
 *   - No global state: any number of scenes and simulations may live in one
 *     process and be called in turns (each GL simulation makes its own
 *     context current).  Calls on one handle must not overlap; distinct
 *     handles may be called from several threads at once (tested with cpu
 *     simulations; GL simulations on several threads are not tested).
 *
 * Grids and units.  A 2D scene has nz = 1; its fields are arrays
 * [ny][nx], row-major (x fastest): element j * nx + i is cell (i, j).  A 3D
 * scene's fields are [nz][ny][nx] (element (k * ny + j) * nx + i).  Each
 * component sits at its own Yee position (docs/scenes.md): Ez(i, j), Hx(i,
 * j+1/2), Hy(i+1/2, j) in 2D TM.  Fields are the scattered field (the
 * total minus the incident plane wave), E in V/m, H stored as eta0 H (also
 * V/m).  After n steps E is at time n dt and H at (n - 1/2) dt.
 *   2D TM:  "ez", "hx", "hy"
 *   2D TE:  "hz" (eta0 Hz), "ex", "ey"
 *   3D:     "ex", "ey", "ez", "hx", "hy", "hz"
 * A simulation computes in single (float32) or double precision; the
 * field functions exist for float and double buffers: a float buffer of a
 * single-precision simulation and a double buffer of either hold the
 * engine's values exactly, a float buffer of a double simulation holds
 * them rounded to the nearest float.
 */
#ifndef TEXFDTD_H
#define TEXFDTD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TEXFDTD_VERSION_MAJOR 0
#define TEXFDTD_VERSION_MINOR 2
#define TEXFDTD_VERSION_PATCH 0

#if defined(__GNUC__)
#define TF_API __attribute__((visibility("default")))
#else
#define TF_API
#endif

typedef struct tf_scene tf_scene;
typedef struct tf_sim tf_sim;

/* ---- version ---------------------------------------------------------------- */

/* The library's version, MAJOR * 10000 + MINOR * 100 + PATCH (compare with
 * the TEXFDTD_VERSION_* macros of the header a program was built with). */
TF_API int tf_version(void);
/* The same as "MAJOR.MINOR.PATCH (git HASH)"; a static string. */
TF_API const char *tf_version_string(void);

/* The engines of this build, comma-separated ("cpu,gl,gl-compute"), into
 * buf (len bytes).  Fails only when buf is too small. */
TF_API int tf_engines(char *buf, size_t len, char *err, size_t errlen);

/* ---- scenes ----------------------------------------------------------------- */

/* Load the scene file `path` (INI, docs/scenes.md) with nsets overrides
 * sets[0 .. nsets) of the form "section.key=value" ("section.key=" removes
 * the key), and check it.  Errors name the file and line, e.g.
 * "scenes/x.ini:12: courant = 0.8 is above the 2D stability limit 0.7071".
 * Files a scene refers to ([map] images) are read relative to the process'
 * working directory, as by the command.  *out is freed by tf_scene_free. */
TF_API int tf_scene_load(const char *path, const char *const *sets, int nsets, tf_scene **out,
                         char *err, size_t errlen);
/* The same from the NUL-terminated text of a scene file; `name` stands for
 * the file in messages (and names the scene). */
TF_API int tf_scene_from_string(const char *name, const char *text, const char *const *sets,
                                int nsets, tf_scene **out, char *err, size_t errlen);
/* Add one override ("section.key=value") to a loaded scene and check the
 * scene again; on failure the scene is unchanged.  Simulations created
 * before are not affected. */
TF_API int tf_scene_set(tf_scene *scene, const char *set, char *err, size_t errlen);
/* Build the scene's model (paint the objects and maps, set up materials,
 * boundary and monitors) and discard it: `texfdtd run --dry-run`. */
TF_API int tf_scene_check(const tf_scene *scene, char *err, size_t errlen);
/* Grid cells (nz = 1 in 2D) and the scene's [grid] steps; any pointer may
 * be NULL. */
TF_API int tf_scene_dims(const tf_scene *scene, int *nx, int *ny, int *nz, int *steps,
                         char *err, size_t errlen);
/* Cell size dx (m), time step dt (s) and source frequency f0 (Hz); any
 * pointer may be NULL. */
TF_API int tf_scene_spacing(const tf_scene *scene, double *dx, double *dt, double *f0,
                            char *err, size_t errlen);
/* Frees the scene (NULL is fine).  Simulations made from it live on. */
TF_API void tf_scene_free(tf_scene *scene);

/* ---- simulations ------------------------------------------------------------ */

/* How tf_sim_open creates a simulation.  Start from TF_SIM_OPTIONS_INIT
 * (or set size = sizeof(tf_sim_options) and the rest as there); a library
 * of a later version reads only the first `size` bytes and takes its
 * defaults for the fields it has beyond them. */
typedef struct tf_sim_options {
    size_t size;            /* sizeof(tf_sim_options) */
    const char *engine;     /* NULL: "cpu"; see tf_engines */
    const char *precision;  /* "single" (NULL) or "double" */
    const char *denormals;  /* "flush" (NULL: flush to zero, as GPU shaders do) or "keep"
                             * (IEEE gradual underflow; the cpu engines, and the GL engines
                             * where the driver keeps them) */
    const char *shader_dir; /* GL engines: the folder of the .vert/.frag/.comp files
                             * (NULL: $TEXFDTD_SHADER_DIR, else the installed copy,
                             * else ./shaders) */
    int device;             /* GPU index (gl and cuda engines); -1: the default */
    int threads;            /* OpenMP threads of the cpu engine; 0: all cores */
} tf_sim_options;
#define TF_SIM_OPTIONS_INIT {sizeof(tf_sim_options), NULL, NULL, NULL, NULL, -1, 0}

/* Build the model of `scene` and create a simulation with the options
 * (NULL: TF_SIM_OPTIONS_INIT's).  An engine that cannot run the scene
 * refuses it, saying why; bad options are refused before anything is
 * built.  The simulation keeps its own copy of the scene. */
TF_API int tf_sim_open(const tf_scene *scene, const tf_sim_options *options, tf_sim **out,
                       char *err, size_t errlen);
/* The same with the common options as arguments: engine `engine`
 * (NULL: "cpu"; see tf_engines), precision "single" or "double" (NULL:
 * single), GPU `device` (-1: the default; gl and cuda engines), `threads`
 * OpenMP threads (0: all cores; cpu engine).  An engine that cannot run
 * the scene refuses it, saying why ("engine gl does not support ...").
 * The simulation keeps its own copy of the scene.  GL engines find their
 * shaders as the command does ($TEXFDTD_SHADER_DIR, else the installed
 * copy, else ./shaders). */
TF_API int tf_sim_create(const tf_scene *scene, const char *engine, const char *precision,
                         int device, int threads, tf_sim **out, char *err, size_t errlen);
/* Advance n >= 0 time steps (H then E for each), feeding the monitors.  The
 * monitors' spectra are normalised to the scene's [grid] steps, so a
 * simulation does not step beyond them: set grid.steps to run longer. */
TF_API int tf_sim_step(tf_sim *sim, int n, char *err, size_t errlen);
/* Step to the scene's [grid] steps (nothing if already there). */
TF_API int tf_sim_run(tf_sim *sim, char *err, size_t errlen);
/* Completed time steps so far. */
TF_API int tf_sim_steps_done(const tf_sim *sim, int *steps, char *err, size_t errlen);
/* Are all time-domain fields finite?  *finite = 1 yes, 0 no (then err
 * names the field and cell, and the function still returns 0). */
TF_API int tf_sim_check_finite(tf_sim *sim, int *finite, char *err, size_t errlen);
/* The simulation's fields (the names above), comma-separated, into buf. */
TF_API int tf_sim_field_names(const tf_sim *sim, char *buf, size_t len, char *err,
                              size_t errlen);
/* The number of values of a field: nx * ny * nz. */
TF_API int tf_sim_field_count(const tf_sim *sim, size_t *count, char *err, size_t errlen);
/* Read field `name` (see above) into dst of count = nx * ny * nz values. */
TF_API int tf_sim_read_field_f32(tf_sim *sim, const char *name, float *dst, size_t count,
                                 char *err, size_t errlen);
TF_API int tf_sim_read_field_f64(tf_sim *sim, const char *name, double *dst, size_t count,
                                 char *err, size_t errlen);
/* Replace field `name` with src (count = nx * ny * nz values, rounded to a
 * single-precision simulation's floats), e.g. to start from a mode.
 * Engines that cannot load fields refuse. */
TF_API int tf_sim_write_field_f32(tf_sim *sim, const char *name, const float *src, size_t count,
                                  char *err, size_t errlen);
TF_API int tf_sim_write_field_f64(tf_sim *sim, const char *name, const double *src,
                                  size_t count, char *err, size_t errlen);

/* ---- monitors --------------------------------------------------------------- */

/* What the scene's monitors give: the frequencies of [monitor.far], the
 * number of [monitor.flux.NAME] monitors, the columns of the probe series
 * (step and time included: 2 + one per probe field) and the frequencies of
 * [monitor.dft]; 0 for an absent monitor.  Any pointer may be NULL. */
TF_API int tf_sim_monitors(const tf_sim *sim, int *far_freqs, int *nflux, int *probe_columns,
                           int *dft_freqs, char *err, size_t errlen);
/* The far-field frequencies in Hz (count = far_freqs). */
TF_API int tf_sim_far_frequencies(const tf_sim *sim, double *hz, size_t count, char *err,
                                  size_t errlen);
/* 2D: the echo width over the wavelength sigma_2D / lambda (multiply by
 * lambda = c / f for metres) at nangles angles phi = 360 a / nangles
 * degrees from +x toward +y, a = 0 .. nangles - 1, for every far-field
 * frequency: out[k * nangles + a], count = far_freqs * nangles.  From the
 * DFT sums so far; the values of far_field.csv once the scene's steps are
 * done. */
TF_API int tf_sim_far2d(tf_sim *sim, int nangles, double *out, size_t count, char *err,
                        size_t errlen);
/* 3D: the radar cross section over the wavelength squared sigma / lambda^2
 * at far-field frequency index k, in n directions (theta[q], phi[q]) in
 * degrees (theta from +z, phi from +x toward +y): out[q], count = n. */
TF_API int tf_sim_far3d(tf_sim *sim, int k, const double *theta_deg, const double *phi_deg,
                        double *out, size_t count, char *err, size_t errlen);
/* Flux monitor i (0 .. nflux - 1, scene order): its name into name (len
 * bytes) and its number of frequencies; either may be NULL. */
TF_API int tf_sim_flux_info(const tf_sim *sim, int i, char *name, size_t len, int *nfreqs,
                            char *err, size_t errlen);
/* Flux monitor i at each of its frequencies (count = nfreqs): the
 * frequency in Hz, and the scattered and total power per unit length over
 * the incident intensity E0^2 / (2 eta0) (a width, m; flux.csv's columns
 * scattered_over_intensity_m and total_over_intensity_m).  Any of the three
 * arrays may be NULL. */
TF_API int tf_sim_flux(tf_sim *sim, int i, double *hz, double *scattered, double *total,
                       size_t count, char *err, size_t errlen);
/* The probe series' column names, comma-separated as probes.csv's header:
 * "step,time_s,NAME_FIELD,...". */
TF_API int tf_sim_probe_names(const tf_sim *sim, char *buf, size_t len, char *err,
                              size_t errlen);
/* The rows recorded so far (one per step on which some probe records). */
TF_API int tf_sim_probe_rows(const tf_sim *sim, size_t *rows, char *err, size_t errlen);
/* The series, out[r * probe_columns + c], count = rows * probe_columns:
 * step, time (s), then each probe's fields (V/m; H at (step - 1/2) dt;
 * NaN where a probe does not record that step), as probes.csv.  The series
 * is not in checkpoints: after tf_sim_checkpoint_load the rows this
 * simulation recorded stay, and the steps after the checkpoint's follow. */
TF_API int tf_sim_probe_data(const tf_sim *sim, double *out, size_t count, char *err,
                             size_t errlen);
/* The [monitor.dft] frequencies in Hz (count = dft_freqs). */
TF_API int tf_sim_dft_frequencies(const tf_sim *sim, double *hz, size_t count, char *err,
                                  size_t errlen);
/* The running DFT of the ez array (Ez; TE: eta0 Hz) at frequency index k,
 * real and imaginary parts (count = nx * ny * nz each; either may be NULL):
 * the phasor over the source amplitude, exp(+i omega t), not divided by the
 * incident spectrum (docs/scenes.md, [monitor.dft]); in the engine's
 * precision widened to double (fields.h5's ez_dft_re, ez_dft_im, /dft).
 * Complete once the scene's steps are done. */
TF_API int tf_sim_read_dft(tf_sim *sim, int k, double *re, double *im, size_t count, char *err,
                           size_t errlen);

/* ---- checkpoints, description ------------------------------------------------ */

/* Write the whole state (fields, boundary, DFT sums) to dir/checkpoint.h5
 * (dir is created; the file is replaced atomically): the format of `texfdtd
 * run --checkpoint-every`. */
TF_API int tf_sim_checkpoint_save(tf_sim *sim, const char *dir, char *err, size_t errlen);
/* Load dir/checkpoint.h5 (of the same grid and precision, from any engine
 * that checkpoints) into sim, and its step count. */
TF_API int tf_sim_checkpoint_load(tf_sim *sim, const char *dir, char *err, size_t errlen);
/* One line: the scene, grid, steps done, engine, device (and the engine's
 * details) and precision; into buf. */
TF_API int tf_sim_describe(const tf_sim *sim, char *buf, size_t len, char *err, size_t errlen);
/* Frees the simulation and everything it holds (NULL is fine). */
TF_API void tf_sim_destroy(tf_sim *sim);

#ifdef __cplusplus
}
#endif

#endif
