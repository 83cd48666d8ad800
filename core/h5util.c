/* h5util.c - see h5util.h. */
#define _GNU_SOURCE
#include "h5util.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

hid_t h5_create(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return H5I_INVALID_HID;
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    const hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    return f;
}

static int attr_scalar(hid_t obj, const char *name, hid_t type, const void *v)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, type, v);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc < 0 ? -1 : 0;
}

int h5_attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(value) ? strlen(value) : 1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    const int rc = attr_scalar(obj, name, type, value);
    H5Tclose(type);
    return rc;
}

int h5_attr_double(hid_t obj, const char *name, double v)
{
    return attr_scalar(obj, name, H5T_NATIVE_DOUBLE, &v);
}

int h5_attr_int(hid_t obj, const char *name, long long v)
{
    return attr_scalar(obj, name, H5T_NATIVE_LLONG, &v);
}

int h5_read_attr_string(hid_t obj, const char *name, char **out)
{
    *out = NULL;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return -1;
    hid_t ft = H5Aget_type(a);
    int rc = -1;
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && !H5Tis_variable_str(ft)) {
        const size_t n = H5Tget_size(ft);
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, n + 1);
        H5Tset_strpad(mt, H5T_STR_NULLTERM);
        char *s = calloc(n + 2, 1);
        if (s && H5Aread(a, mt, s) >= 0) {
            *out = s;
            rc = 0;
        } else {
            free(s);
        }
        H5Tclose(mt);
    }
    if (ft >= 0)
        H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

static int read_scalar(hid_t obj, const char *name, hid_t type, void *v)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return -1;
    const herr_t rc = H5Aread(a, type, v);
    H5Aclose(a);
    return rc < 0 ? -1 : 0;
}

int h5_read_attr_double(hid_t obj, const char *name, double *v)
{
    return read_scalar(obj, name, H5T_NATIVE_DOUBLE, v);
}

int h5_read_attr_int(hid_t obj, const char *name, long long *v)
{
    return read_scalar(obj, name, H5T_NATIVE_LLONG, v);
}

int h5_copy_members(hid_t src, hid_t dst)
{
    H5G_info_t gi;
    if (H5Gget_info(src, &gi) < 0)
        return -1;
    for (hsize_t k = 0; k < gi.nlinks; k++) {
        char name[256];
        if (H5Lget_name_by_idx(src, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name,
                               H5P_DEFAULT)
                < 0
            || H5Ocopy(src, name, dst, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
            return -1;
    }
    return 0;
}

static int fsync_path(const char *path, int flags)
{
    const int fd = open(path, flags);
    if (fd < 0)
        return -1;
    const int rc = fsync(fd);
    close(fd);
    return rc;
}

int file_commit(const char *path, const char *final, char *err, size_t errlen)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", final);
    if (fsync_path(path, O_RDONLY) || rename(path, final))
        return seterr(err, errlen, "cannot put %s in place as %s: %s", path, final,
                      strerror(errno));
    fsync_path(dirname(dir), O_RDONLY | O_DIRECTORY); /* best effort */
    return 0;
}

int h5_file_finish(hid_t file, int rc, const char *tmp, const char *final, char *err,
                   size_t errlen)
{
    if (H5Fclose(file) < 0 && !rc)
        rc = seterr(err, errlen, "%s: cannot close HDF5 file", tmp);
    if (!rc)
        rc = file_commit(tmp, final, err, errlen);
    if (rc)
        unlink(tmp);
    return rc;
}

int h5_put_doubles(hid_t loc, const char *name, int rank, const hsize_t *dims, const double *v)
{
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(loc, name, H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int rc = d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0;
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(sp);
    return rc ? -1 : 0;
}
