/* monitor.h - what a run is for: probes, flux and the far field.
 *
 * Every monitor reads a few field values after every time step.  The model
 * lists them once (struct sample: a field and a cell, sorted, without
 * repeats), every engine copies them after each step into a row of a batch
 * buffer on its own device (a gather, no read-back per step), and engine_step
 * (core/engine.c) reads the rows in batches and hands them to the functions
 * here, which run on the host, in the engine's precision, in one fixed
 * order.  So every engine that gathers the same bits (they all compute the
 * same fields) gets the same DFT sums, far field, flux and probe series.
 *
 * Times.  After step t the engine holds E^t and H^(t-1/2) (core/model.h):
 * a sample of an E component belongs to time t dt, one of an H component to
 * (t - 1/2) dt.  The running DFT of a monitor at frequency f (omega = 2 pi f)
 * is, per sample,
 *     X(f) = sum_{t = start+1}^{steps} w(t_s) x^t,   w(t_s) = 2/(A N) exp(-i omega t_s),
 * t_s = t for E and t - 1/2 for H, N = steps - start, A = [source] amplitude;
 * w is computed in double and rounded once to the engine's precision, and
 * each sum is accumulated as re = re + wr x; im = im + wi x (no fused
 * multiply-add), sample after sample, step after step.
 *
 * Normalisation.  The incident wave's own DFT at the centre of the monitor,
 *     D(f) = sum_t w(t) Einc(c, t)          (in double, on the host),
 * divides every DFT: the phasors the far field and flux use are X / D, the
 * scattered field per unit incident field at each frequency, whatever the
 * waveform (a continuous wave, a Gaussian pulse, a Ricker wavelet).  The
 * incident field at another point x is that of a plane wave, exp(-i k u.(x -
 * c)), u the direction of travel (the shift theorem of the DFT; exact while
 * the pulse lies inside the sampled steps at both points).
 *
 * Contours.  The far field and the flux integrate over segments of lines on
 * the H nodes: a side x = i + 1/2 holds Hy(i+1/2, j) (stored at cell (i, j))
 * and lies between Ez(i, j) and Ez(i+1, j); a side y = j + 1/2 holds
 * Hx(i, j+1/2) between Ez(i, j) and Ez(i, j+1).  Each cell of a side is one
 * element of length dx, integrated by the midpoint rule.
 */
#ifndef TEXFDTD_MONITOR_H
#define TEXFDTD_MONITOR_H

#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"

/* One element of a 2D contour: the H node hpos (cells), the outward (or, for
 * a line, the +x / +y) normal along axis `axis` with sign `sgn`, and the
 * indices, in its DFT group, of the tangential H sample and of the two Ez
 * samples on either side (ea at the lower index, eb at the upper). */
struct contour_elem {
    double x, y;  /* the H node, cells */
    int axis;     /* 0: normal along x (H sample is Hy), 1: along y (Hx) */
    int sgn;      /* +1 or -1 */
    size_t h, ea, eb;
};

/* Samples whose DFT is kept at a list of frequencies, from start_step on. */
struct dft_group {
    struct scene_freqs fr;
    size_t n;     /* samples in the group */
    size_t *idx;  /* [n]: index into model->samples */
    double cx, cy, cz; /* the centre, cells: the incident wave's phase reference */
    /* 2D contours: */
    size_t nelem;
    struct contour_elem *elem;
};

struct monitor_plan {
    /* the far field: group index or -1; 3D data is kept by core/farfield3d.c */
    int far;
    void *far3d;
    /* flux monitors, in scene order: group index of each */
    int *flux;
    int ngroups;
    struct dft_group *groups;
    /* probes: for each probe, a sample index per field bit (SIZE_MAX: not recorded) */
    size_t (*probe_sample)[8];
    int ncols; /* probe columns */
};

/* Lists the samples of the scene's monitors into m (called by model_build). */
int monitor_plan_build(struct model *m, char *err, size_t errlen);
void monitor_plan_free(struct model *m);

/* The index within group g of the sample (field, cell); SIZE_MAX if absent. */
size_t monitor_group_find(const struct model *m, int g, int field, size_t cell);

/* The wavenumber k' (radians per cell) of the Yee grid's plane wave of
 * omega dt = w along the unit vector u (u[2] = 0 in 2D): the root of
 *     sum_a sin^2(k' u_a / 2) = (sin(w / 2) / S)^2
 * (Taflove and Hagness, eqs. 4.12 and 4.28) by Newton's method from w / S. */
double yee_wavenumber(double S, double w, const double u[3]);

/* Run gnuplot on script (which draws png), warn if it fails, remove script. */
void monitor_gnuplot(const char *script, const char *png);

/* 10 log10(x), -infinity for x <= 0: the dB of the outputs. */
static inline double monitor_db10(double x) { return x > 0 ? 10.0 * log10(x) : -INFINITY; }

/* Is field f sampled at H times (t - 1/2)? */
static inline bool sample_is_h(int f) { return f == FIELD_HX || f == FIELD_HY || f == FIELD_HZ; }

/* ---- the running state, one per engine ----------------------------------- */
struct monitors;

struct monitors *monitors_create(const struct model *m, enum precision p, char *err,
                                 size_t errlen);
void monitors_free(struct monitors *mo);
/* Two batch buffers of model->sample_rows rows of model->nsamples values
 * of the engine's precision, so that engine_step can sum one batch on the
 * host while the device runs the next: monitors_rows is the one read last,
 * monitors_rows_next the other (where read_samples puts the next batch),
 * monitors_flip makes the next one the last. */
void *monitors_rows(struct monitors *mo);
void *monitors_rows_next(struct monitors *mo);
void monitors_flip(struct monitors *mo);
/* Take in the rows of steps first+1 .. first+rows (monitors_rows). */
void monitors_consume(struct monitors *mo, int first, int rows);
/* Checkpoints: the DFT sums through io (the probe series lives in probes.csv),
 * at step `step`. */
int monitors_state(struct monitors *mo, struct state_io *io, int step, char *err, size_t errlen);

/* ---- results ------------------------------------------------------------- */
/* Results made from the DFT sums (the far fields), kept for every output
 * (far_field.csv, the plot, /far in fields.h5) until the sums change:
 * monitors_cache_get returns NULL when there is none or the sums have moved
 * on since; monitors_cache_put hands data over (free_fn frees it). */
enum { MONITOR_CACHE_FAR2D, MONITOR_CACHE_FAR3D, MONITOR_CACHE_COUNT };
void *monitors_cache_get(const struct monitors *mo, int slot);
void monitors_cache_put(struct monitors *mo, int slot, void *data, void (*free_fn)(void *));
/* The incident DFT D(f) of group g at frequency index k (see above). */
double complex monitors_incident_dft(const struct monitors *mo, int g, int k);
/* The normalised phasor X / D of sample q (index within group g), frequency k. */
double complex monitors_phasor(const struct monitors *mo, int g, int k, size_t q);
/* 2D echo width sigma_2D / lambda at nang angles phi = 360 a / nang degrees,
 * out[k * nang + a] for each far-field frequency k. */
int monitors_far2d(const struct monitors *mo, int nang, double *out, char *err, size_t errlen);
/* 2D flux of flux monitor i at its frequency k: scattered and total power
 * over the incident intensity (a width, in cells); out: scat, tot. */
void monitors_flux2d(const struct monitors *mo, int i, int k, double *scat, double *tot);
/* The probe series recorded so far: rows of 2 + ncols doubles (step, time,
 * the columns in scene order). */
const double *monitors_probe_rows(const struct monitors *mo, size_t *nrows);
/* The names of those columns, probes.csv's header line: "step,time_s,NAME_FIELD,...\n". */
void monitors_probe_header(const struct monitors *mo, FILE *f);

/* ---- outputs (rank 0 of an MPI run writes) -------------------------------- */
/* Open DIR/probes.csv: a fresh file, or, resuming at step `resume`, the file
 * cut back to the rows up to that step (read back into the series). */
int monitors_open_probes(struct monitors *mo, const char *dir, int resume, char *err,
                         size_t errlen);
/* far_field.csv, flux.csv and far_field.png (gnuplot, where it is installed). */
int monitors_write_files(struct monitors *mo, const char *dir, char *err, size_t errlen);
/* /far, /flux and /probes into an open HDF5 file (hid_t). */
int monitors_write_h5(struct monitors *mo, long long file, char *err, size_t errlen);

#endif
