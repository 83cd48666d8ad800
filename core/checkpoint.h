/* checkpoint.h - DIR/checkpoint.h5: everything a run needs to continue where
 * it stopped (`texfdtd resume DIR`).
 *
 * Root attributes: format "texfdtd checkpoint 1", step, engine, precision,
 * denormals, the scene file's path and text as read when the run began, the
 * --set overrides (one per line), checkpoint_every, seconds of stepping so
 * far, nx/ny/nz.  Group /state: one 1D dataset per array of the engine's
 * state (core/engine.h, struct state_io), in the engine's precision.
 * Written as DIR/.checkpoint.h5.partial, flushed and renamed, so a run killed
 * while writing one keeps the previous checkpoint intact.
 */
#ifndef TEXFDTD_CHECKPOINT_H
#define TEXFDTD_CHECKPOINT_H

#include <stddef.h>

#include "engine.h"

#define CHECKPOINT_FORMAT "texfdtd checkpoint 1"

struct checkpoint {
    int step;
    char engine[32];
    enum precision precision;
    enum denormals denormals;
    char *scene_path; /* as given to `texfdtd run` */
    char *scene_file; /* the scene file's text */
    char *sets;       /* the --set overrides, one per line ("" for none) */
    int checkpoint_every;
    double seconds;   /* stepping time so far */
    int nx, ny, nz;
};

/* Write c and e's state (at e->step, which c->step must equal). */
int checkpoint_write(const char *dir, const struct checkpoint *c, struct engine *e, char *err,
                     size_t errlen);
/* Read the description (not the state) of DIR/checkpoint.h5 into c. */
int checkpoint_read(const char *dir, struct checkpoint *c, char *err, size_t errlen);
/* Load the state of DIR/checkpoint.h5 into e (built from the same scene and
 * precision) and set e->step. */
int checkpoint_restore(const char *dir, struct engine *e, char *err, size_t errlen);
void checkpoint_free(struct checkpoint *c);
/* checkpoint_write of e at e->step, the description made from the scene
 * file's path and text, its nset overrides, the interval and the seconds
 * of stepping so far. */
int checkpoint_save(const char *dir, struct engine *e, const char *scene_path,
                    const char *scene_file, const char *const *sets, int nset,
                    int checkpoint_every, double seconds, char *err, size_t errlen);

#endif
