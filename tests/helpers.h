/* helpers.h - small helpers shared by the Criterion suites (header-only). */
#ifndef TEXFDTD_TEST_HELPERS_H
#define TEXFDTD_TEST_HELPERS_H

#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/engine.h"
#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"

/* Write `text` to a fresh temporary .ini file; returns its malloc'ed path. */
static inline char *write_temp_scene(const char *text)
{
    char *path = strdup("/tmp/texfdtd-test-XXXXXX.ini");
    int fd = mkstemps(path, 4);
    cr_assert(fd >= 0, "mkstemps failed");
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* A loaded scene plus its model, for tests. */
struct test_setup {
    struct scene scene;
    struct model model;
    char *path;
};

static inline void setup_from_text(struct test_setup *t, const char *text, const char *const *sets,
                                   int nset)
{
    char err[ERRLEN];
    t->path = write_temp_scene(text);
    cr_assert_eq(scene_load(&t->scene, t->path, sets, nset, err, sizeof err), 0, "scene: %s", err);
    cr_assert_eq(model_build(&t->model, &t->scene, err, sizeof err), 0, "model: %s", err);
}

static inline void setup_free(struct test_setup *t)
{
    model_free(&t->model);
    scene_free(&t->scene);
    unlink(t->path);
    free(t->path);
}

/* Create engine `name`, run `steps`, read all three fields into f[3]
 * (malloc'ed, engine precision).  Returns 0, or -1 with err filled if the
 * engine cannot be created (e.g. no GL device). */
static inline int run_engine(const char *name, const struct model *m,
                             const struct engine_options *o, int steps, void *f[3], char *err,
                             size_t errlen)
{
    struct engine *e;
    if (engine_create(name, m, o, &e, err, errlen))
        return -1;
    cr_assert_eq(engine_step(e, steps, err, errlen), 0, "%s step: %s", name, err);
    size_t bytes = m->ncells * precision_size(o->precision);
    for (int k = 0; k < FIELD_COUNT; k++) {
        f[k] = malloc(bytes);
        cr_assert_eq(engine_read(e, (enum field)k, f[k], err, errlen), 0, "%s read: %s", name,
                     err);
    }
    engine_destroy(e);
    return 0;
}

static inline void free_fields(void *f[3])
{
    for (int k = 0; k < 3; k++)
        free(f[k]);
}

/* Distance in units in the last place between two floats (same sign
 * convention as compare/): 0 for bit-identical values. */
static inline uint32_t ulp_distance_f(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0)
        ia = (int32_t)0x80000000 - ia;
    if (ib < 0)
        ib = (int32_t)0x80000000 - ib;
    int64_t d = (int64_t)ia - (int64_t)ib;
    return (uint32_t)(d < 0 ? -d : d);
}

/* Count cells whose bits differ; also the largest ULP distance. */
static inline size_t count_bit_differences(const float *a, const float *b, size_t n,
                                           uint32_t *max_ulp)
{
    size_t diff = 0;
    *max_ulp = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], 4)) {
            diff++;
            uint32_t u = ulp_distance_f(a[i], b[i]);
            if (u > *max_ulp)
                *max_ulp = u;
        }
    return diff;
}

/* A fresh temporary folder /tmp/texfdtd-TAG-XXXXXX (malloc'ed path). */
static inline char *temp_dir_tagged(const char *tag)
{
    char *d = NULL;
    cr_assert(asprintf(&d, "/tmp/texfdtd-%s-XXXXXX", tag) > 0);
    cr_assert(mkdtemp(d), "mkdtemp %s", d);
    return d;
}

/* rm -rf dir. */
static inline void remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static inline bool path_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* The texfdtd command the suites run: $TEXFDTD_BIN if set (make test-asan
 * points it at the sanitized build), else ./bin/texfdtd. */
static inline const char *texfdtd_bin(void)
{
    const char *b = getenv("TEXFDTD_BIN");
    return b && *b ? b : "./bin/texfdtd";
}

/* Run a shell command (printf-style); its stdout and stderr into out;
 * returns the exit status. */
__attribute__((format(printf, 3, 4)))
static inline int run_cmd(char *out, size_t len, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    strncat(cmd, " 2>&1 </dev/null", sizeof cmd - strlen(cmd) - 1);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "popen %s", cmd);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A PEC cavity mode of the 3D Yee grid (kx = pi 4/(nx-1), ky = pi 3/(ny-1),
 * kz = pi 2/(nz-1)):
 *   Ex(i+1/2, j, k) = A cos(kx (i+1/2)) sin(ky j) sin(kz k)
 *   Ey(i, j+1/2, k) = B sin(kx i) cos(ky (j+1/2)) sin(kz k)
 *   Ez(i, j, k+1/2) = C sin(kx i) sin(ky j) cos(kz (k+1/2))
 * with sx A + sy B + sz C = 0 (sa = 2 sin(ka/2): zero discrete divergence),
 * an eigenvector of the discrete curl curl with eigenvalue
 * L = sx^2 + sy^2 + sz^2 (tests/test_3d.c, tests/test_mat3d.c). */
struct cavity3 {
    int nx, ny, nz;
    double kx, ky, kz, A, B, C, L;
};

static inline struct cavity3 cavity3_mode(int nx, int ny, int nz)
{
    struct cavity3 c = {nx, ny, nz, M_PI * 4 / (nx - 1), M_PI * 3 / (ny - 1), M_PI * 2 / (nz - 1),
                        0, 0, 0, 0};
    const double sx = 2 * sin(c.kx / 2), sy = 2 * sin(c.ky / 2), sz = 2 * sin(c.kz / 2);
    c.A = sz;
    c.B = sz;
    c.C = -(sx + sy);
    c.L = sx * sx + sy * sy + sz * sz;
    return c;
}

/* E component q (0 x, 1 y, 2 z) of the mode at cell (i, j, k); 0 where the
 * component lies on the last plane along its own axis. */
static inline double cavity3_e(const struct cavity3 *c, int q, int i, int j, int k)
{
    if (q == 0 && i <= c->nx - 2)
        return c->A * cos(c->kx * (i + 0.5)) * sin(c->ky * j) * sin(c->kz * k);
    if (q == 1 && j <= c->ny - 2)
        return c->B * sin(c->kx * i) * cos(c->ky * (j + 0.5)) * sin(c->kz * k);
    if (q == 2 && k <= c->nz - 2)
        return c->C * sin(c->kx * i) * sin(c->ky * j) * cos(c->kz * (k + 0.5));
    return 0;
}

#endif
