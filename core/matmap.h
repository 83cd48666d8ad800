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

/* The material map of a built model, for checking geometry before a run
 * (texfdtd run --geometry, texfdtd info --out), into folder dir:
 *   material.png         the grid interior (the cells objects and maps may
 *                        paint; 3D: the plane k = nz/2), one colour per
 *                        material, +y up; it reads back as a [map] png
 *   material_legend.csv  index, colour, kind, eps_r, sigma, cells
 *   material_map.ini     [material.mK] and [map.geometry] sections that paint
 *                        material.png back (colors as in the legend)
 *   material.h5          /material (uint8 index per cell), /eps_r (0 in PEC
 *                        cells), /sigma, [ny][nx] or [nz][ny][nx], and the
 *                        table /table/{kind, eps_r, sigma, color}
 * Returns 0, or -1 with err. */
struct model;
int matmap_write_outputs(const struct model *m, const char *dir, char *err, size_t errlen);
