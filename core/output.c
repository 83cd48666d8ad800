/* output.c - fields.h5 (HDF5), PNG pictures (libpng), summary.json. */
#define _GNU_SOURCE
#include "output.h"
#include "colormap.h"
#include "decomp.h"
#include "util.h"

#include <errno.h>
#include <hdf5.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef TEXFDTD_GIT_HASH
#define TEXFDTD_GIT_HASH "unknown"
#endif

void provenance_init(struct provenance *p, const struct scene *s, const char *scene_text,
                     const struct engine *e)
{
    memset(p, 0, sizeof *p);
    p->scene = s;
    p->scene_text = scene_text;
    engine_describe(e, &p->info);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- HDF5 ------------------------------------------------------------------ */

/* MPI (core/decomp.h): rank 0 writes the files.  The other ranks hold an
 * h5out with no file (file < 0) and go through the same calls, because
 * reading a field back is collective: they send their planes to rank 0. */
struct h5out {
    hid_t file;
    char tmp[4200], final[4200];
    const struct provenance *p;
};

static int attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, strlen(value) ? strlen(value) : 1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, type, value);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return rc < 0 ? -1 : 0;
}

static int attr_double(hid_t obj, const char *name, double v)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc < 0 ? -1 : 0;
}

static int attr_int(hid_t obj, const char *name, long long v)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_LLONG, &v);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc < 0 ? -1 : 0;
}

int h5out_open(struct h5out **out, const char *dir, const struct provenance *p, char *err,
               size_t errlen)
{
    struct h5out *h = xcalloc(1, sizeof *h, "HDF5 writer", err, errlen);
    if (!h)
        return -1;
    snprintf(h->tmp, sizeof h->tmp, "%s/.fields.h5.partial", dir);
    snprintf(h->final, sizeof h->final, "%s/fields.h5", dir);
    h->p = p;
    if (decomp_rank() != 0) { /* MPI: no file here */
        h->file = H5I_INVALID_HID;
        *out = h;
        return 0;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported by us, once */
    h->file = H5Fcreate(h->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (h->file < 0) {
        seterr(err, errlen, "%s: cannot create HDF5 file", h->tmp);
        free(h);
        return -1;
    }
    const struct scene *s = p->scene;
    int rc = attr_string(h->file, "program", "texfdtd")
             | attr_string(h->file, "version", TEXFDTD_VERSION)
             | attr_string(h->file, "git_hash", TEXFDTD_GIT_HASH)
             | attr_string(h->file, "scene", s->path)
             | attr_string(h->file, "scene_text", p->scene_text ? p->scene_text : "")
             | attr_string(h->file, "engine", p->info.engine)
             | attr_string(h->file, "device", p->info.device)
             | attr_string(h->file, "engine_detail", p->info.detail)
             | attr_string(h->file, "precision", precision_name(p->info.precision))
             | attr_string(h->file, "denormals", denormals_name(p->info.denormals))
             | attr_string(h->file, "date", p->date)
             | attr_string(h->file, "layout",
                           "datasets [ny][nx], x fastest; cell (i,j) holds Ez(i,j), "
                           "Hx(i,j+1/2), Hy(i+1/2,j); H stored as eta0*H in V/m; "
                           "fields are the scattered field")
             | attr_int(h->file, "nx", s->nx) | attr_int(h->file, "ny", s->ny)
             | attr_int(h->file, "nz", s->nz)
             | attr_double(h->file, "courant", s->courant)
             | attr_double(h->file, "cells_per_wavelength", s->cells_per_wavelength)
             | attr_double(h->file, "dx", scene_dx(s)) | attr_double(h->file, "dt", scene_dt(s));
    if (rc) {
        seterr(err, errlen, "%s: cannot write HDF5 attributes", h->tmp);
        h5out_abort(h);
        return -1;
    }
    *out = h;
    return 0;
}

/* Create every group along `path` that does not exist yet. */
static hid_t open_group_path(hid_t file, const char *path)
{
    if (!strcmp(path, "/"))
        return H5Gopen2(file, "/", H5P_DEFAULT);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (H5Lexists(file, buf, H5P_DEFAULT) <= 0) {
                hid_t g = H5Gcreate2(file, buf, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
                if (g < 0)
                    return -1;
                H5Gclose(g);
            }
            *p = c;
            if (!c)
                break;
        }
    }
    return H5Gopen2(file, path, H5P_DEFAULT);
}

int h5out_write_fields(struct h5out *h, struct engine *e, const char *group, char *err,
                       size_t errlen)
{
    const struct model *m = e->model;
    const enum precision prec = e->opt.precision;
    const bool writer = h->file >= 0; /* MPI: ranks other than 0 only read (collective) */
    void *buf = xcalloc(m->ncells, precision_size(prec), "field read-back buffer", err, errlen);
    if (!buf)
        return -1;
    hid_t g = writer ? open_group_path(h->file, group) : H5I_INVALID_HID;
    if (writer && g < 0) {
        free(buf);
        return seterr(err, errlen, "%s: cannot create group %s", h->tmp, group);
    }
    int rc = 0;
    const hsize_t dims[3] = {(hsize_t)m->nz, (hsize_t)m->ny, (hsize_t)m->nx};
    const int rank = m->nz > 1 ? 3 : 2;
    enum field list[8];
    int nfields = scene_fields(m->scene, list);
    /* the DFT phasors go with the final fields, once the sum is complete */
    if (!strcmp(group, "/") && m->scene->dft) {
        list[nfields++] = FIELD_EZ_DFT_RE;
        list[nfields++] = FIELD_EZ_DFT_IM;
    }
    const hid_t type = prec == PRECISION_DOUBLE ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
    for (int k = 0; k < nfields && !rc; k++) {
        const enum field f = list[k];
        if (engine_read(e, f, buf, err, errlen)) {
            rc = -1;
            break;
        }
        if (!writer)
            continue;
        hid_t space = H5Screate_simple(rank, rank == 3 ? dims : dims + 1, NULL);
        hid_t d = H5Dcreate2(g, field_name(f), type, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        if (d < 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0
            || attr_int(d, "step", e->step) || attr_double(d, "dx", scene_dx(m->scene))
            || attr_double(d, "dt", scene_dt(m->scene))
            || attr_string(d, "engine", h->p->info.engine)
            || attr_string(d, "precision", precision_name(prec)))
            rc = seterr(err, errlen, "%s: cannot write dataset %s/%s", h->tmp, group,
                        field_name(f));
        if (d >= 0)
            H5Dclose(d);
        H5Sclose(space);
    }
    if (writer)
        H5Gclose(g);
    free(buf);
    return rc;
}

int h5out_close(struct h5out *h, char *err, size_t errlen)
{
    int rc = 0;
    if (h->file < 0) { /* MPI, not rank 0 */
        free(h);
        return 0;
    }
    if (H5Fclose(h->file) < 0)
        rc = seterr(err, errlen, "%s: cannot close HDF5 file", h->tmp);
    else if (rename(h->tmp, h->final))
        rc = seterr(err, errlen, "cannot rename %s to %s: %s", h->tmp, h->final, strerror(errno));
    if (rc)
        unlink(h->tmp);
    free(h);
    return rc;
}

void h5out_abort(struct h5out *h)
{
    if (!h)
        return;
    if (h->file >= 0) { /* MPI: only rank 0 has the file */
        H5Fclose(h->file);
        unlink(h->tmp);
    }
    free(h);
}

/* ---- PNG ------------------------------------------------------------------- */

int png_write_rgba(const char *path, const uint8_t *rgba, int nx, int ny, char *err,
                   size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return seterr(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *rows = calloc((size_t)ny, sizeof *rows);
    if (!png || !info || !rows || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(rows);
        fclose(f);
        unlink(tmp);
        return seterr(err, errlen, "%s: libpng failed to write the picture", path);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)nx, (png_uint_32)ny, 8, PNG_COLOR_TYPE_RGBA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_text text = {.compression = PNG_TEXT_COMPRESSION_NONE, .key = "Software",
                     .text = "texfdtd " TEXFDTD_VERSION};
    png_set_text(png, info, &text, 1);
    for (int r = 0; r < ny; r++) /* +y up: the top image row is j = ny-1 */
        rows[r] = (png_bytep)(rgba + 4 * (size_t)nx * (size_t)(ny - 1 - r));
    png_set_rows(png, info, rows);
    png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    png_destroy_write_struct(&png, &info);
    free(rows);
    if (fclose(f) || rename(tmp, path)) {
        unlink(tmp);
        return seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    }
    return 0;
}

int render_total_field(struct engine *e, uint8_t *rgba, char *err, size_t errlen)
{
    const struct model *m = e->model;
    int rc;
    if (e->ops->render_rgba) {
        rc = e->ops->render_rgba(e, rgba, err, errlen);
    } else {
        /* 3D: the slice k = nz/2 */
        const size_t es = precision_size(e->opt.precision);
        const int k = m->nz / 2;
        uint8_t *ez = xcalloc(m->ncells, es, "Ez", err, errlen);
        rc = ez ? engine_read(e, FIELD_EZ, ez, err, errlen) : -1;
        if (!rc)
            colormap_total_field(m, ez + es * (size_t)k * m->nx * m->ny,
                                 e->opt.precision == PRECISION_DOUBLE, e->step, k, rgba);
        free(ez);
    }
    return rc;
}

int png_write_total_field(struct engine *e, const char *dir, char *path_out, size_t path_len,
                          char *err, size_t errlen)
{
    const struct model *m = e->model;
    uint8_t *rgba = xcalloc((size_t)m->nx * m->ny, 4, "picture", err, errlen);
    if (!rgba)
        return -1;
    int rc = render_total_field(e, rgba, err, errlen);
    if (!rc && decomp_rank() == 0) { /* MPI: every rank renders (collective read), rank 0 writes */
        snprintf(path_out, path_len, "%s/ez_total_%06d.png", dir, e->step);
        rc = png_write_rgba(path_out, rgba, m->nx, m->ny, err, errlen);
    }
    free(rgba);
    return rc;
}

/* ---- summary.json ------------------------------------------------------------ */

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int summary_write(const char *dir, const struct provenance *p, int steps, double seconds,
                  char *err, size_t errlen)
{
    if (decomp_rank() != 0) /* MPI: rank 0 writes */
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return seterr(err, errlen, "out of memory");
    const struct scene *s = p->scene;
    const double cells = (double)s->nx * (double)s->ny * (double)s->nz;
    fprintf(f, "{\n  \"program\": \"texfdtd\",\n  \"version\": \"%s\",\n  \"git_hash\": ",
            TEXFDTD_VERSION);
    json_string(f, TEXFDTD_GIT_HASH);
    fprintf(f, ",\n  \"scene\": ");
    json_string(f, s->path);
    fprintf(f, ",\n  \"engine\": ");
    json_string(f, p->info.engine);
    fprintf(f, ",\n  \"device\": ");
    json_string(f, p->info.device);
    fprintf(f, ",\n  \"precision\": \"%s\",\n  \"denormals\": \"%s\",\n",
            precision_name(p->info.precision), denormals_name(p->info.denormals));
    fprintf(f, "  \"nx\": %d,\n  \"ny\": %d,\n  \"nz\": %d,\n  \"steps\": %d,\n", s->nx,
            s->ny, s->nz, steps);
    fprintf(f, "  \"seconds\": %.6f,\n  \"mcells_per_s\": %.3f,\n  \"date\": \"%s\"\n}\n",
            seconds, seconds > 0 ? cells * steps / seconds / 1e6 : 0.0, p->date);
    fclose(f);
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    int rc = write_file_atomic(path, text, len, err, errlen);
    free(text);
    return rc;
}

int write_file_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return seterr(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
    size_t w = fwrite(data, 1, len, f);
    if (fclose(f) || w != len || rename(tmp, path)) {
        unlink(tmp);
        return seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    }
    return 0;
}
