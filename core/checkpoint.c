/* checkpoint.c - see checkpoint.h. */
#define _GNU_SOURCE
#include "checkpoint.h"
#include "h5util.h"
#include "util.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TEXFDTD_GIT_HASH
#define TEXFDTD_GIT_HASH "unknown"
#endif

static void paths(const char *dir, char *tmp, char *final, size_t len)
{
    snprintf(tmp, len, "%s/.checkpoint.h5.partial", dir);
    snprintf(final, len, "%s/checkpoint.h5", dir);
}

/* The state_io of a checkpoint file: its /state group. */
struct h5_state {
    struct state_io io;
    hid_t group;
    enum precision precision;
    const char *path;
};

static hid_t native(enum precision p)
{
    return p == PRECISION_DOUBLE ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
}

static int state_array(struct state_io *io, const char *name, void *data, size_t count, char *err,
                       size_t errlen)
{
    struct h5_state *st = (struct h5_state *)io;
    const hid_t type = native(st->precision);
    int rc = 0;
    if (!io->load) {
        const hsize_t n = count;
        hid_t space = H5Screate_simple(1, &n, NULL);
        hid_t d = H5Dcreate2(st->group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (d < 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
            rc = seterr(err, errlen, "%s: cannot write /state/%s", st->path, name);
        if (d >= 0)
            H5Dclose(d);
        H5Sclose(space);
        return rc;
    }
    hid_t d = H5Dopen2(st->group, name, H5P_DEFAULT);
    if (d < 0)
        return seterr(err, errlen, "%s: no /state/%s (the checkpoint is of another scene?)",
                      st->path, name);
    hid_t space = H5Dget_space(d), ft = H5Dget_type(d);
    hsize_t n = 0;
    const bool shape_ok = H5Sget_simple_extent_ndims(space) == 1
                          && H5Sget_simple_extent_dims(space, &n, NULL) == 1 && n == count;
    const bool type_ok = H5Tget_class(ft) == H5T_FLOAT
                         && H5Tget_size(ft) == precision_size(st->precision);
    if (!shape_ok)
        rc = seterr(err, errlen, "%s: /state/%s holds %llu values, the engine needs %zu",
                    st->path, name, (unsigned long long)n, count);
    else if (!type_ok)
        rc = seterr(err, errlen, "%s: /state/%s is not %s precision", st->path, name,
                    precision_name(st->precision));
    else if (H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        rc = seterr(err, errlen, "%s: cannot read /state/%s", st->path, name);
    H5Tclose(ft);
    H5Sclose(space);
    H5Dclose(d);
    return rc;
}

int checkpoint_write(const char *dir, const struct checkpoint *c, struct engine *e, char *err,
                     size_t errlen)
{
    char tmp[4300], final[4300];
    paths(dir, tmp, final, sizeof tmp);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = h5_create(tmp);
    if (file < 0)
        return seterr(err, errlen, "%s: cannot create HDF5 file", tmp);
    int rc = 0;
    if (h5_attr_string(file, "format", CHECKPOINT_FORMAT)
        | h5_attr_string(file, "version", TEXFDTD_VERSION)
        | h5_attr_string(file, "git_hash", TEXFDTD_GIT_HASH) | h5_attr_int(file, "step", c->step)
        | h5_attr_string(file, "engine", c->engine)
        | h5_attr_string(file, "precision", precision_name(c->precision))
        | h5_attr_string(file, "denormals", denormals_name(c->denormals))
        | h5_attr_string(file, "scene", c->scene_path)
        | h5_attr_string(file, "scene_file", c->scene_file)
        | h5_attr_string(file, "sets", c->sets)
        | h5_attr_int(file, "checkpoint_every", c->checkpoint_every)
        | h5_attr_double(file, "seconds", c->seconds) | h5_attr_int(file, "nx", c->nx)
        | h5_attr_int(file, "ny", c->ny) | h5_attr_int(file, "nz", c->nz))
        rc = seterr(err, errlen, "%s: cannot write attributes", tmp);
    struct h5_state st = {.io = {.load = false, .array = state_array},
                          .precision = e->opt.precision,
                          .path = tmp};
    st.group = rc ? H5I_INVALID_HID
                  : H5Gcreate2(file, "state", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (!rc && st.group < 0)
        rc = seterr(err, errlen, "%s: cannot create /state", tmp);
    if (!rc)
        rc = engine_state(e, &st.io, e->step, err, errlen);
    if (st.group >= 0)
        H5Gclose(st.group);
    return h5_file_finish(file, rc, tmp, final, err, errlen);
}

static int parse_enum(const char *v, const char *a, const char *b, int *out)
{
    if (v && !strcmp(v, a))
        return *out = 0, 0;
    if (v && !strcmp(v, b))
        return *out = 1, 0;
    return -1;
}

int checkpoint_read(const char *dir, struct checkpoint *c, char *err, size_t errlen)
{
    char tmp[4300], path[4300];
    paths(dir, tmp, path, sizeof tmp);
    memset(c, 0, sizeof *c);
    if (access(path, R_OK))
        return seterr(err, errlen, "%s: no checkpoint to resume from (a run writes one with "
                      "--checkpoint-every N, or when stopped by SIGINT or SIGTERM)", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return seterr(err, errlen, "%s: not an HDF5 file", path);
    char *format = NULL, *engine = NULL, *prec = NULL, *den = NULL;
    long long step = -1, every = 0, nx = 0, ny = 0, nz = 0;
    int p = 0, d = 0, rc = 0;
    if (h5_read_attr_string(file, "format", &format) || strcmp(format, CHECKPOINT_FORMAT))
        rc = seterr(err, errlen, "%s: not a texfdtd checkpoint (format '%s', expected '%s')",
                    path, format ? format : "none", CHECKPOINT_FORMAT);
    else if (h5_read_attr_int(file, "step", &step) || h5_read_attr_string(file, "engine", &engine)
             || h5_read_attr_string(file, "precision", &prec)
             || h5_read_attr_string(file, "denormals", &den)
             || h5_read_attr_string(file, "scene", &c->scene_path)
             || h5_read_attr_string(file, "scene_file", &c->scene_file)
             || h5_read_attr_string(file, "sets", &c->sets)
             || h5_read_attr_int(file, "checkpoint_every", &every)
             || h5_read_attr_double(file, "seconds", &c->seconds)
             || h5_read_attr_int(file, "nx", &nx) || h5_read_attr_int(file, "ny", &ny)
             || h5_read_attr_int(file, "nz", &nz))
        rc = seterr(err, errlen, "%s: an attribute of the checkpoint is missing or unreadable",
                    path);
    else if (parse_enum(prec, "single", "double", &p) || parse_enum(den, "flush", "keep", &d)
             || step < 0 || step > 1000000000 || every < 0 || every > 1000000000)
        rc = seterr(err, errlen, "%s: bad values in the checkpoint (step %lld, precision %s, "
                    "denormals %s)", path, step, prec, den);
    H5Fclose(file);
    if (!rc) {
        c->step = (int)step;
        snprintf(c->engine, sizeof c->engine, "%s", engine);
        c->precision = p ? PRECISION_DOUBLE : PRECISION_SINGLE;
        c->denormals = d ? DENORMALS_KEEP : DENORMALS_FLUSH;
        c->checkpoint_every = (int)every;
        c->nx = (int)nx, c->ny = (int)ny, c->nz = (int)nz;
    } else {
        checkpoint_free(c);
    }
    free(format);
    free(engine);
    free(prec);
    free(den);
    return rc;
}

int checkpoint_restore(const char *dir, struct engine *e, char *err, size_t errlen)
{
    struct checkpoint c;
    if (checkpoint_read(dir, &c, err, errlen))
        return -1;
    char tmp[4300], path[4300];
    paths(dir, tmp, path, sizeof tmp);
    const struct model *m = e->model;
    int rc = 0;
    if (c.nx != m->nx || c.ny != m->ny || c.nz != m->nz || c.precision != e->opt.precision)
        rc = seterr(err, errlen, "%s: the checkpoint is of a %d x %d x %d grid in %s "
                    "precision, the engine runs %d x %d x %d in %s", path, c.nx, c.ny, c.nz,
                    precision_name(c.precision), m->nx, m->ny, m->nz,
                    precision_name(e->opt.precision));
    hid_t file = rc ? H5I_INVALID_HID : H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    struct h5_state st = {.io = {.load = true, .array = state_array},
                          .precision = e->opt.precision,
                          .path = path};
    st.group = file >= 0 ? H5Gopen2(file, "state", H5P_DEFAULT) : H5I_INVALID_HID;
    if (!rc && st.group < 0)
        rc = seterr(err, errlen, "%s: no /state group", path);
    if (!rc)
        rc = engine_state(e, &st.io, c.step, err, errlen);
    if (st.group >= 0)
        H5Gclose(st.group);
    if (file >= 0)
        H5Fclose(file);
    checkpoint_free(&c);
    return rc;
}

void checkpoint_free(struct checkpoint *c)
{
    free(c->scene_path);
    free(c->scene_file);
    free(c->sets);
    c->scene_path = c->scene_file = c->sets = NULL;
}

int checkpoint_save(const char *dir, struct engine *e, const char *scene_path,
                    const char *scene_file, const char *const *sets, int nset,
                    int checkpoint_every, double seconds, char *err, size_t errlen)
{
    char *joined = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&joined, &len);
    if (!f)
        return seterr(err, errlen, "%s: out of memory for the checkpoint", dir);
    for (int i = 0; i < nset; i++)
        fprintf(f, "%s\n", sets[i]);
    fclose(f);
    const struct scene *s = e->model->scene;
    struct checkpoint c = {.step = e->step,
                           .precision = e->opt.precision,
                           .denormals = e->opt.denormals,
                           .scene_path = (char *)scene_path,
                           .scene_file = (char *)scene_file,
                           .sets = joined,
                           .checkpoint_every = checkpoint_every,
                           .seconds = seconds,
                           .nx = s->nx,
                           .ny = s->ny,
                           .nz = s->nz};
    snprintf(c.engine, sizeof c.engine, "%s", e->ops->name);
    const int rc = checkpoint_write(dir, &c, e, err, errlen);
    free(joined);
    return rc;
}
