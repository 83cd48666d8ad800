/* matmap.h - the files behind material maps ([map.NAME], core/scene.c):
 * reading a PNG as RGB pixels and an HDF5 dataset as doubles.  Functions
 * return 0, or -1 with one line in err. */
#ifndef TEXFDTD_MATMAP_H
#define TEXFDTD_MATMAP_H

#include <stddef.h>
#include <stdint.h>

/* The pixels of a PNG file as 8-bit RGB, rows as in the file (the top row
 * first), malloc'ed in *rgb (3 w h bytes).  Palette, grey and 16-bit images
 * are converted; alpha is dropped. */
int matmap_read_png(const char *path, int *w, int *h, uint8_t **rgb, char *err, size_t errlen);

/* Dataset `name` of the HDF5 file `path`, of rank 2 or 3, converted to
 * double, malloc'ed in *v in C order; dims[0 .. rank-1] its shape. */
int matmap_read_h5(const char *path, const char *name, int *rank, size_t dims[3], double **v,
                   char *err, size_t errlen);

#endif
