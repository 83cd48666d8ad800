/* gl_helpers.h - helpers of the GL engines' suites (header-only): an engine
 * created, or the test skipped where no GL context exists at all (unless
 * TEXFDTD_REQUIRE_GPU=1, make test-gpu), and an in-memory checkpoint. */
#ifndef TEXFDTD_TEST_GL_HELPERS_H
#define TEXFDTD_TEST_GL_HELPERS_H

#include "helpers.h"

#include "gl/gl.h"

static inline bool gpu_required(void)
{
    const char *v = getenv("TEXFDTD_REQUIRE_GPU");
    return v && !strcmp(v, "1");
}

/* Engine `name` in float32 and denormal mode dn, the cpu engine on
 * `threads` threads (its bits do not depend on the number); a GL engine
 * that cannot be created skips the test when no GL device exists. */
static inline struct engine *gl_test_engine(const char *name, const struct model *m,
                                            enum denormals dn, int threads)
{
    struct engine_options o = {0};
    o.precision = PRECISION_SINGLE;
    o.denormals = dn;
    o.device = -1;
    o.threads = threads;
    char err[ERRLEN];
    struct engine *e = NULL;
    if (engine_create(name, m, &o, &e, err, sizeof err)) {
        char why[ERRLEN];
        if (strcmp(name, "cpu") && gl_probe(o.device, why, sizeof why) && !gpu_required())
            cr_skip_test("no OpenGL device here: %s", why);
        cr_assert_fail("%s: %s", name, err);
    }
    return e;
}

/* An in-memory struct state_io of float32 arrays: saving keeps a copy of
 * each array by name; loading hands them back by name and demands the same
 * count, so a layout that differed between engines would fail here. */
struct mem_state {
    struct state_io io;
    int n;
    struct {
        char name[64];
        float *v;
        size_t count;
    } a[64];
};

static inline int mem_array(struct state_io *io, const char *name, void *data, size_t count,
                            char *err, size_t errlen)
{
    struct mem_state *s = io->ctx;
    if (!io->load) {
        cr_assert_lt(s->n, 64);
        snprintf(s->a[s->n].name, sizeof s->a[s->n].name, "%s", name);
        s->a[s->n].v = malloc((count ? count : 1) * sizeof(float));
        memcpy(s->a[s->n].v, data, count * sizeof(float));
        s->a[s->n].count = count;
        s->n++;
        return 0;
    }
    for (int k = 0; k < s->n; k++)
        if (!strcmp(s->a[k].name, name)) {
            if (s->a[k].count != count)
                return seterr(err, errlen, "state %s: %zu values saved, %zu loaded", name,
                              s->a[k].count, count);
            memcpy(data, s->a[k].v, count * sizeof(float));
            return 0;
        }
    return seterr(err, errlen, "state %s: not saved", name);
}

static inline void mem_free(struct mem_state *s)
{
    for (int k = 0; k < s->n; k++)
        free(s->a[k].v);
    s->n = 0;
}

#endif
