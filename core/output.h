/* output.h - what a run leaves under --out: fields.h5, PNG pictures and
 * summary.json.  Every file is written under a temporary name in the same
 * directory and renamed when complete, so an interrupted run never leaves a
 * truncated file under a final name.
 */
#ifndef TEXFDTD_OUTPUT_H
#define TEXFDTD_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"

/* Provenance carried by every output file. */
struct provenance {
    const struct scene *scene;
    const char *scene_text; /* the scene file as read, plus the --set lines */
    struct engine_info info;
    char date[32];          /* ISO 8601, UTC */
    int resumed_from;       /* the checkpoint's step, or -1 */
};

void provenance_init(struct provenance *p, const struct scene *s, const char *scene_text,
                     const struct engine *e);

/* fields.h5 --------------------------------------------------------------- */
/* fields.h5 is assembled by h5out_close from parts written as the run goes
 * (DIR/.parts/, each file complete once renamed into place), so that a run
 * killed at any moment keeps the snapshots it took. */
struct h5out;
/* resume_step < 0: a fresh run (stale parts are removed); otherwise the
 * snapshots up to resume_step must already be in DIR/.parts. */
int h5out_open(struct h5out **out, const char *dir, const struct provenance *p, int resume_step,
               char *err, size_t errlen);
/* The time-domain fields of engine e at e->step: /snapshots/STEP in fields.h5. */
int h5out_write_snapshot(struct h5out *h, struct engine *e, char *err, size_t errlen);
/* The fields at the last step (and the DFT phasors): the root of fields.h5. */
int h5out_write_final(struct h5out *h, struct engine *e, char *err, size_t errlen);
/* Assemble DIR/fields.h5 (atomically) and remove the parts. */
int h5out_close(struct h5out *h, char *err, size_t errlen);
void h5out_abort(struct h5out *h);  /* remove the parts: the run failed */
void h5out_detach(struct h5out *h); /* keep the parts: the run will be resumed */

/* PNG --------------------------------------------------------------------- */
/* rgba[ny][nx][4] with row 0 = j = 0; written with +y up (flipped). */
int png_write_rgba(const char *path, const uint8_t *rgba, int nx, int ny, char *err,
                   size_t errlen);
/* The total field Ez of engine e at its current step, coloured
 * (core/colormap.h) into rgba[ny][nx][4]: on the GPU where the engine can
 * (one small read-back, no field read-back), else on the host; 3D: the
 * slice z = nz/2. */
int render_total_field(struct engine *e, uint8_t *rgba, char *err, size_t errlen);
/* The total field Ez of engine e at its current step as DIR/ez_total_STEP.png,
 * coloured on the GPU where the engine can, else on the host. */
int png_write_total_field(struct engine *e, const char *dir, char *path_out, size_t path_len,
                          char *err, size_t errlen);

/* summary.json -------------------------------------------------------------- */
int summary_write(const char *dir, const struct provenance *p, int steps, double seconds,
                  char *err, size_t errlen);

/* A JSON string literal (quoted, escaped) of s to f. */
void json_string(FILE *f, const char *s);

/* Write `len` bytes to path atomically (temp file + rename). */
int write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
