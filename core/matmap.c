/* matmap.c - PNG and HDF5 files of material maps.  See matmap.h. */
#define _GNU_SOURCE
#include "matmap.h"
#include "util.h"

#include <errno.h>
#include <hdf5.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int matmap_read_png(const char *path, int *w, int *h, uint8_t **rgb, char *err, size_t errlen)
{
    *rgb = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
    unsigned char sig[8];
    if (fread(sig, 1, 8, f) != 8 || png_sig_cmp(sig, 0, 8)) {
        fclose(f);
        return seterr(err, errlen, "%s is not a PNG file", path);
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *rows = NULL;
    uint8_t *volatile out = NULL;
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        free(out);
        fclose(f);
        return seterr(err, errlen, "%s: cannot decode the PNG", path);
    }
    png_init_io(png, f);
    png_set_sig_bytes(png, 8);
    png_set_user_limits(png, 1u << 20, 1u << 20);
    png_read_info(png, info);
    const int ct = png_get_color_type(png, info);
    png_set_expand(png); /* palette and low-bit grey to 8-bit, tRNS to alpha */
    png_set_strip_16(png);
    png_set_strip_alpha(png);
    if (ct == PNG_COLOR_TYPE_GRAY || ct == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    png_read_update_info(png, info);
    const png_uint_32 W = png_get_image_width(png, info), H = png_get_image_height(png, info);
    if (png_get_rowbytes(png, info) != 3 * (size_t)W)
        png_error(png, "unexpected row size");
    out = malloc(3 * (size_t)W * H);
    rows = malloc(H * sizeof *rows);
    if (!out || !rows)
        png_error(png, "out of memory");
    for (png_uint_32 r = 0; r < H; r++)
        rows[r] = out + 3 * (size_t)W * r;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    fclose(f);
    *w = (int)W;
    *h = (int)H;
    *rgb = out;
    return 0;
}

int matmap_read_h5(const char *path, const char *name, int *rank, size_t dims[3], double **v,
                   char *err, size_t errlen)
{
    *v = NULL;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (access(path, R_OK))
        return seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
    const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return seterr(err, errlen, "%s is not an HDF5 file", path);
    int rc = -1;
    hid_t d = H5I_INVALID_HID, sp = H5I_INVALID_HID;
    if (!H5Lexists(f, name, H5P_DEFAULT) || (d = H5Dopen2(f, name, H5P_DEFAULT)) < 0) {
        seterr(err, errlen, "%s has no dataset %s", path, name);
        goto out;
    }
    sp = H5Dget_space(d);
    const int r = H5Sget_simple_extent_ndims(sp);
    hsize_t hd[3];
    if (r != 2 && r != 3) {
        seterr(err, errlen, "%s %s has rank %d: expected 2 ([ny][nx]) or 3 ([nz][ny][nx])", path,
               name, r);
        goto out;
    }
    H5Sget_simple_extent_dims(sp, hd, NULL);
    size_t n = 1;
    for (int a = 0; a < r; a++) {
        dims[a] = (size_t)hd[a];
        n *= dims[a];
    }
    *v = malloc(n * sizeof **v);
    if (!*v) {
        seterr(err, errlen, "out of memory reading %s %s", path, name);
        goto out;
    }
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *v) < 0) {
        seterr(err, errlen, "%s %s: cannot read it as numbers", path, name);
        free(*v);
        *v = NULL;
        goto out;
    }
    *rank = r;
    rc = 0;
out:
    if (sp >= 0)
        H5Sclose(sp);
    if (d >= 0)
        H5Dclose(d);
    H5Fclose(f);
    return rc;
}

