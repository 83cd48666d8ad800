/* api_internal.h - what the command (core/cli.c) needs of the API beyond
 * core/texfdtd.h.  `texfdtd run` and `texfdtd resume` load their scenes,
 * create and step their simulations through tf_*; the writers of their
 * files (HDF5 snapshots, PNG pictures, the movie, checkpoints with the
 * command's provenance) work on the model and engine inside a tf_sim.
 * None of this is exported from libtexfdtd.so (hidden visibility). */
#ifndef TEXFDTD_API_INTERNAL_H
#define TEXFDTD_API_INTERNAL_H

#include "texfdtd.h"

struct scene;
struct model;
struct engine;

/* tf_sim_open in two halves, so that the command can look at the model
 * (which engine takes it) before it chooses the engine: api_sim_prepare
 * parses the simulation's copy of the scene and builds the model;
 * api_sim_start creates the engine.  Between the two only api_sim_model,
 * api_sim_start and tf_sim_destroy may be called. */
int api_sim_prepare(const tf_scene *scene, tf_sim **out, char *err, size_t errlen);
int api_sim_start(tf_sim *sim, const tf_sim_options *options, char *err, size_t errlen);

const struct scene *api_scene_parsed(const tf_scene *scene);
const char *api_scene_text(const tf_scene *scene); /* the scene file's text */
struct model *api_sim_model(tf_sim *sim);
struct engine *api_sim_engine(tf_sim *sim);

#endif
