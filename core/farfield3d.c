/* farfield3d.c - the 3D near-to-far-field transform (see farfield3d.h). */
#include "farfield3d.h"
#include "monitor.h"
#include "util.h"

int farfield3d_plan_build(const struct model *m, void **plan, struct sample **pairs,
                          size_t *npairs, char *err, size_t errlen)
{
    (void)m;
    *plan = NULL;
    *pairs = NULL;
    *npairs = 0;
    return seterr(err, errlen, "[monitor.far] in 3D scenes is not built yet");
}

void farfield3d_plan_free(void *plan) { (void)plan; }

int farfield3d_write_csv(struct monitors *mo, const char *dir, char *err, size_t errlen)
{
    (void)mo;
    (void)dir;
    return seterr(err, errlen, "[monitor.far] in 3D scenes is not built yet");
}

int farfield3d_write_h5(struct monitors *mo, long long file, char *err, size_t errlen)
{
    (void)mo;
    (void)file;
    return seterr(err, errlen, "[monitor.far] in 3D scenes is not built yet");
}
