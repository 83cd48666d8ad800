/* h5util.h - the few HDF5 chores that fields.h5 and checkpoint.h5 share:
 * scalar attributes written and read back, and files made durable and
 * renamed into place.  Functions return 0 or -1 (HDF5's own error stack is
 * silenced; callers say what failed).
 */
#ifndef TEXFDTD_H5UTIL_H
#define TEXFDTD_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>

/* Create (truncate) an HDF5 file in the 1.8 format or later, whose dense
 * attribute storage takes attributes over 64 KiB (a long scene file's text;
 * the 1.6 format HDF5 writes by default refuses them).  h5py and every HDF5
 * since 1.8 read it. */
hid_t h5_create(const char *path);

int h5_attr_string(hid_t obj, const char *name, const char *value);
int h5_attr_double(hid_t obj, const char *name, double v);
int h5_attr_int(hid_t obj, const char *name, long long v);

/* Read a scalar attribute; a string comes back malloc'ed in *out. */
int h5_read_attr_string(hid_t obj, const char *name, char **out);
int h5_read_attr_double(hid_t obj, const char *name, double *v);
int h5_read_attr_int(hid_t obj, const char *name, long long *v);

/* Copy every link of group src (datasets, groups) into group dst. */
int h5_copy_members(hid_t src, hid_t dst);

/* A dataset `name` of doubles, shaped dims[rank], under loc: 0 or -1. */
int h5_put_doubles(hid_t loc, const char *name, int rank, const hsize_t *dims, const double *v);

/* Close file (written as tmp) and, if rc is 0, put it in place as final
 * (file_commit); otherwise, or if that fails, remove tmp.  Returns rc, or
 * -1 with err filled. */
int h5_file_finish(hid_t file, int rc, const char *tmp, const char *final, char *err,
                   size_t errlen);

/* fsync path, rename it to final, fsync the directory: after this the file
 * is in place even if the machine goes down a moment later. */
int file_commit(const char *path, const char *final, char *err, size_t errlen);

#endif
