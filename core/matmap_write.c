/* matmap_write.c - the material map of a built model, written for checking
 * geometry before a run.  See matmap.h. */
#define _GNU_SOURCE
#include "h5util.h"
#include "matmap.h"
#include "model.h"
#include "output.h"
#include "util.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the material map of a model, written out ---------------------------- */

/* A colour per material: vacuum white, PEC black, dielectrics from blue (low
 * eps_r) to red (high), each distinct. */
static void material_colors(const struct model *m, uint32_t *col)
{
    int order[MODEL_MAX_MATERIALS], nd = 0;
    for (int k = 0; k < m->nmats; k++)
        if (m->mats[k].kind == MATERIAL_DIELECTRIC)
            order[nd++] = k;
    for (int a = 1; a < nd; a++) /* by eps_r */
        for (int b = a; b > 0 && m->mats[order[b]].eps_r < m->mats[order[b - 1]].eps_r; b--) {
            const int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int k = 0; k < m->nmats; k++)
        col[k] = m->mats[k].kind == MATERIAL_PEC ? 0x000000u : 0xffffffu;
    for (int r = 0; r < nd; r++) {
        const double t = nd > 1 ? (double)r / (nd - 1) : 0.0;
        uint32_t c = (uint32_t)lround(40 + 200 * t) << 16
                     | (uint32_t)lround(90 + 60 * (1 - fabs(2 * t - 1))) << 8
                     | (uint32_t)lround(230 - 200 * t);
        /* distinct from vacuum, PEC and the dielectrics coloured so far */
        for (int q = 0; q < r + 2;) {
            const uint32_t other = q == 0 ? 0xffffffu : q == 1 ? 0x000000u : col[order[q - 2]];
            if (c == other) {
                c = (c + 0x010203u) & 0xffffffu;
                q = 0;
            } else {
                q++;
            }
        }
        col[order[r]] = c;
    }
}

int matmap_write_outputs(const struct model *m, const char *dir, char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    static const char *const kinds[] = {"vacuum", "pec", "dielectric"};
    uint32_t col[MODEL_MAX_MATERIALS];
    material_colors(m, col);
    const int g = scene_interior_margin(s);
    const int w = m->nx - 2 * g, h = m->ny - 2 * g;
    const size_t kmid = m->nz > 1 ? (size_t)(m->nz / 2) : 0;
    char path[4200];
    /* material.png: the interior of plane kmid */
    uint8_t *rgba = malloc(4 * (size_t)w * (size_t)h);
    size_t *count = calloc(MODEL_MAX_MATERIALS, sizeof *count);
    double *eps = malloc(m->ncells * sizeof *eps), *sig = calloc(m->ncells, sizeof *sig);
    int rc = -1;
    if (!rgba || !count || !eps || !sig) {
        seterr(err, errlen, "out of memory writing the material map");
        goto out;
    }
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            const uint32_t c = col[m->mat[(size_t)(i + g) + (size_t)m->nx * ((size_t)(j + g)
                                                                   + (size_t)m->ny * kmid)]];
            uint8_t *p = rgba + 4 * ((size_t)j * w + i);
            p[0] = (uint8_t)(c >> 16);
            p[1] = (uint8_t)(c >> 8);
            p[2] = (uint8_t)c;
            p[3] = 255;
        }
    snprintf(path, sizeof path, "%s/material.png", dir);
    if (png_write_rgba(path, rgba, w, h, err, errlen))
        goto out;
    for (size_t c = 0; c < m->ncells; c++) {
        count[m->mat[c]]++;
        eps[c] = m->mats[m->mat[c]].eps_r;
        sig[c] = m->mats[m->mat[c]].sigma;
    }
    /* the legend and the scene fragment that paints material.png back */
    snprintf(path, sizeof path, "%s/material_legend.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        seterr(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    fprintf(f, "# texfdtd %s material map of %s: index, colour, kind, eps_r, sigma (S/m), cells "
               "(3D: all planes; material.png shows k = %zu)\n", TEXFDTD_VERSION, s->path, kmid);
    fprintf(f, "index,color,kind,eps_r,sigma,cells\n");
    for (int k = 0; k < m->nmats; k++)
        fprintf(f, "%d,#%06x,%s,%.17g,%.17g,%zu\n", k, col[k], kinds[m->mats[k].kind],
                m->mats[k].eps_r, m->mats[k].sigma, count[k]);
    if (fclose(f)) {
        seterr(err, errlen, "cannot write %s", path);
        goto out;
    }
    snprintf(path, sizeof path, "%s/material_map.ini", dir);
    if (!(f = fopen(path, "w"))) {
        seterr(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    fprintf(f, "; the material map of %s (texfdtd %s), painted from material.png:\n"
               "; add these sections to a scene with the same [grid] and [boundary]\n", s->path,
            TEXFDTD_VERSION);
    for (int k = 0; k < m->nmats; k++)
        if (m->mats[k].kind == MATERIAL_DIELECTRIC) {
            fprintf(f, "\n[material.m%d]\neps_r = %.17g\n", k, m->mats[k].eps_r);
            if (m->mats[k].sigma != 0.0)
                fprintf(f, "sigma = %.17g\n", m->mats[k].sigma);
        }
    fprintf(f, "\n[map.geometry]\npng = material.png\nx0 = %d\ny0 = %d\n", g, g);
    if (m->nz > 1)
        fprintf(f, "center_z = %zu\ndepth = 0.5\n", kmid);
    /* one colour a line; a continuation line must not start with '#' (inih
     * takes it for a comment), so each starts with the previous name */
    fprintf(f, "colors =");
    for (int k = 0; k < m->nmats; k++) {
        if (!count[k] && k)
            continue;
        fprintf(f, " #%06x", col[k]);
        if (m->mats[k].kind == MATERIAL_DIELECTRIC)
            fprintf(f, "\n    m%d,", k);
        else
            fprintf(f, "\n    %s,", kinds[m->mats[k].kind]);
    }
    fseek(f, -1, SEEK_CUR); /* the last comma */
    fprintf(f, "\n");
    if (fclose(f)) {
        seterr(err, errlen, "cannot write %s", path);
        goto out;
    }
    /* material.h5 */
    snprintf(path, sizeof path, "%s/material.h5", dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const hid_t file = h5_create(path);
    if (file < 0) {
        seterr(err, errlen, "cannot create %s", path);
        goto out;
    }
    const int rank = m->nz > 1 ? 3 : 2;
    const hsize_t dims[3] = {m->nz > 1 ? (hsize_t)m->nz : (hsize_t)m->ny,
                             m->nz > 1 ? (hsize_t)m->ny : (hsize_t)m->nx, (hsize_t)m->nx};
    int bad = h5_attr_string(file, "program", "texfdtd") | h5_attr_string(file, "version", TEXFDTD_VERSION)
              | h5_attr_string(file, "scene", s->path)
              | h5_attr_string(file, "layout", rank == 3 ? "[nz][ny][nx], x fastest"
                                                         : "[ny][nx], x fastest")
              | h5_put_doubles(file, "eps_r", rank, dims, eps) | h5_put_doubles(file, "sigma", rank, dims, sig);
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(file, "material", H5T_STD_U8LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad |= d < 0 || H5Dwrite(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, m->mat) < 0;
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(sp);
    hid_t t = H5Gcreate2(file, "table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    double tk[MODEL_MAX_MATERIALS], te[MODEL_MAX_MATERIALS], ts[MODEL_MAX_MATERIALS],
           tc[MODEL_MAX_MATERIALS];
    for (int k = 0; k < m->nmats; k++) {
        tk[k] = m->mats[k].kind;
        te[k] = m->mats[k].eps_r;
        ts[k] = m->mats[k].sigma;
        tc[k] = col[k];
    }
    const hsize_t nm = (hsize_t)m->nmats;
    bad |= t < 0 || h5_put_doubles(t, "kind", 1, &nm, tk) || h5_put_doubles(t, "eps_r", 1, &nm, te)
           || h5_put_doubles(t, "sigma", 1, &nm, ts) || h5_put_doubles(t, "color", 1, &nm, tc)
           || h5_attr_string(t, "kind_values", "0 vacuum, 1 pec, 2 dielectric")
           || h5_attr_string(t, "color_values", "0xrrggbb as in material.png");
    if (t >= 0)
        H5Gclose(t);
    if (H5Fclose(file) < 0 || bad) {
        seterr(err, errlen, "cannot write %s", path);
        goto out;
    }
    rc = 0;
out:
    free(rgba);
    free(count);
    free(eps);
    free(sig);
    return rc;
}
