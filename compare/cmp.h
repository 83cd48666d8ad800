/* cmp.h - what compare.c (engines side by side) and compare_analytic.c (the
 * exact cylinder solution) share: the parsed command line, engine specs, the
 * output directory rule, progress lines and provenance comments.  Private to
 * compare/. */
#ifndef TEXFDTD_CMP_H
#define TEXFDTD_CMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/engine.h"
#include "core/scene.h"

#define CMP_MAX_SETS 256
#define CMP_MAX_ENGINES 8

/* One engine as named on the command line: "cpu", "cpu-double", "gl"... */
struct cmp_spec {
    char label[32];      /* as given */
    const char *engine;  /* engine_find() name */
    enum precision precision;
    enum denormals denormals;
    bool denormals_auto; /* plain "cpu": match the GPU engine, else flush */
};

struct cmp_args {
    const char *scene;
    const char *engines; /* comma-separated specs */
    const char *reference;
    const char *out;
    const char *shader_dir;
    const char *sets[CMP_MAX_SETS + 1];
    int nset;
    char steps_set[64];
    int every; /* 0 = default */
    int device, threads;
    bool has_max_ulp, has_max_rel;
    uint64_t max_ulp;
    double max_rel;
    bool analytic, force, quiet, progress;
};

/* "cpu" and friends; returns 0, or EXIT_BADINPUT with the message in err. */
int cmp_parse_spec(const char *text, struct cmp_spec *sp, char *err, size_t errlen);
/* A comma-separated list into specs[]; returns the count or -1 with err. */
int cmp_parse_specs(const char *list, struct cmp_spec *specs, int max, char *err, size_t errlen);

/* Exit status of the no-overwrite check, after printing the message; 0 = go on. */
int cmp_check_outdir(const char *dir, bool force);

struct cmp_progress {
    bool on, tty;
    double start, last;
};
void cmp_progress_init(struct cmp_progress *p, bool quiet, bool lines);
void cmp_progress_show(struct cmp_progress *p, const char *what, int step, int steps, bool final);

/* '# key: value' lines: program, git, scene (with --set lines), date. */
void cmp_write_provenance(FILE *f, const struct cmp_args *a, const struct scene *s);
void cmp_write_engine_line(FILE *f, const char *label, struct engine *e);

/* Run gnuplot on `script` (a file); returns 0, or -1 with err (the caller
 * warns and goes on). */
int cmp_gnuplot(const char *script_path, char *err, size_t errlen);
/* "pngcairo" or "png", or NULL when gnuplot or both terminals are missing. */
const char *cmp_gnuplot_terminal(void);

/* --max-far-db, set by compare.c's option parser, read by the --analytic
 * paths (it belongs in struct cmp_args; kept apart until that takes it). */
struct cmp_far_limit {
    bool on;
    double db;
};
extern struct cmp_far_limit cmp_far_limit;

int compare_analytic(const struct cmp_args *a, struct scene *s);
/* The 3D --analytic: one sphere against the Mie series (compare_mie.c). */
int compare_analytic_sphere(const struct cmp_args *a, struct scene *s);

/* cmp_write_provenance and an engine line for each of the n engines
 * (compare_analytic.c). */
void cmp_write_heading(FILE *f, const struct cmp_args *a, const struct scene *s,
                       const struct cmp_spec *spec, struct engine **e, int n);

/* 10 log10(num[q] / exact[q]) over q = 0..n-1 (a zero or NaN: infinite): its
 * rms, its largest value (signed) and where (compare_analytic.c). */
void cmp_db_errors(const double *num, const double *exact, int n, double *rms, double *worst,
                   int *worst_q);

struct model;
/* Create engine sp on model m and step it to the scene's end with progress
 * lines; *eout is set once created (the caller destroys it).  0, or -1 with
 * err. */
int cmp_run_to_end(const struct cmp_args *a, const struct scene *s, const struct model *m,
                   const struct cmp_spec *sp, struct engine **eout, char *err, size_t errlen);

#endif
