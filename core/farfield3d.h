/* farfield3d.h - the 3D near-to-far-field transform on a closed box
 * ([monitor.far] in a 3D scene): which samples it needs, and the bistatic
 * RCS it makes of their DFTs.  See core/monitor.h for the sampling. */
#ifndef TEXFDTD_FARFIELD3D_H
#define TEXFDTD_FARFIELD3D_H

#include <stddef.h>

#include "model.h"

struct monitors;

/* The samples of the box of m->scene->far (as (field, cell) pairs in *pairs,
 * *npairs of them, malloc'ed; any order, repeats allowed) and the private
 * plan (*plan) that later maps them, by the same pair order, to the
 * transform's elements.  Returns -1 with err on failure. */
int farfield3d_plan_build(const struct model *m, void **plan, struct sample **pairs,
                          size_t *npairs, char *err, size_t errlen);
void farfield3d_plan_free(void *plan);

/* far_field.csv and /far in fields.h5 (an open hid_t). */
int farfield3d_write_csv(struct monitors *mo, const char *dir, char *err, size_t errlen);
int farfield3d_write_h5(struct monitors *mo, long long file, char *err, size_t errlen);

#endif
