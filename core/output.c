/* output.c - fields.h5 (HDF5), PNG pictures (libpng), summary.json. */
#define _GNU_SOURCE
#include "output.h"
#include "monitor.h"
#include "colormap.h"
#include "decomp.h"
#include "h5util.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef TEXFDTD_GIT_HASH
#define TEXFDTD_GIT_HASH "unknown"
#endif

void provenance_init(struct provenance *p, const struct scene *s, const char *scene_text,
                     const struct engine *e)
{
    memset(p, 0, sizeof *p);
    p->resumed_from = -1;
    p->scene = s;
    p->scene_text = scene_text;
    engine_describe(e, &p->info);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- HDF5 ------------------------------------------------------------------ */

/* fields.h5 is put together at the end from parts written while running:
 * DIR/.parts/snapshot_STEP.h5 as each snapshot is taken, DIR/.parts/final.h5
 * at the last step, each under a temporary name and renamed when complete.
 * A run killed at any moment therefore leaves every snapshot it finished
 * intact on disk, which is what `texfdtd resume` continues from. */
/* MPI (core/decomp.h): rank 0 writes the files.  The other ranks hold an
 * h5out that writes nothing and go through the same calls, because reading
 * a field back is collective: they send their planes to rank 0. */
struct h5out {
    bool writer; /* MPI: rank 0 (always, without MPI) */
    char dir[4096], parts[4200];
    const struct provenance *p;
    int steps[SCENE_MAX_SNAPSHOTS]; /* snapshots in parts/, in order */
    int nsteps;
};

static void part_path(const struct h5out *h, int step, char *buf, size_t len)
{
    if (step < 0)
        snprintf(buf, len, "%s/final.h5", h->parts);
    else
        snprintf(buf, len, "%s/snapshot_%d.h5", h->parts, step);
}

static int file_attrs(hid_t file, const struct provenance *p)
{
    const struct scene *s = p->scene;
    return h5_attr_string(file, "program", "texfdtd")
           | h5_attr_string(file, "version", TEXFDTD_VERSION)
           | h5_attr_string(file, "git_hash", TEXFDTD_GIT_HASH)
           | h5_attr_string(file, "scene", s->path)
           | h5_attr_string(file, "scene_text", p->scene_text ? p->scene_text : "")
           | h5_attr_string(file, "engine", p->info.engine)
           | h5_attr_string(file, "device", p->info.device)
           | h5_attr_string(file, "engine_detail", p->info.detail)
           | h5_attr_string(file, "precision", precision_name(p->info.precision))
           | h5_attr_string(file, "denormals", denormals_name(p->info.denormals))
           | h5_attr_string(file, "date", p->date)
           | h5_attr_string(file, "layout",
                            "datasets [ny][nx], x fastest; cell (i,j) holds Ez(i,j), "
                            "Hx(i,j+1/2), Hy(i+1/2,j); H stored as eta0*H in V/m; "
                            "fields are the scattered field")
           | h5_attr_int(file, "nx", s->nx) | h5_attr_int(file, "ny", s->ny)
           | h5_attr_int(file, "nz", s->nz) | h5_attr_double(file, "courant", s->courant)
           | h5_attr_double(file, "cells_per_wavelength", s->cells_per_wavelength)
           | h5_attr_double(file, "dx", scene_dx(s)) | h5_attr_double(file, "dt", scene_dt(s))
           | (p->resumed_from >= 0 ? h5_attr_int(file, "resumed_from_step", p->resumed_from)
                                   : 0);
}

/* Remove DIR/.parts and every file in it (parts, and the .partial files a
 * killed run may have left); the folder holds nothing else. */
static void remove_parts(struct h5out *h)
{
    DIR *d = opendir(h->parts);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char path[4600];
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", h->parts, de->d_name);
            unlink(path);
        }
    }
    if (d)
        closedir(d);
    rmdir(h->parts);
}

int h5out_open(struct h5out **out, const char *dir, const struct provenance *p, int resume_step,
               char *err, size_t errlen)
{
    struct h5out *h = xcalloc(1, sizeof *h, "HDF5 writer", err, errlen);
    if (!h)
        return -1;
    snprintf(h->dir, sizeof h->dir, "%s", dir);
    snprintf(h->parts, sizeof h->parts, "%s/.parts", dir);
    h->p = p;
    h->writer = decomp_rank() == 0;
    if (!h->writer) { /* MPI: no files here */
        *out = h;
        return 0;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors are reported by us, once */
    const struct scene *s = p->scene;
    if (resume_step < 0) {
        /* a fresh run: parts left by an earlier run (with --force) go */
        remove_parts(h);
        if (mkdir(h->parts, 0777) && errno != EEXIST) {
            seterr(err, errlen, "%s: cannot create: %s", h->parts, strerror(errno));
            free(h);
            return -1;
        }
    } else {
        /* resuming: the snapshots up to the checkpoint are on disk */
        for (int k = 0; k < s->nsnapshots && s->snapshots[k] <= resume_step; k++) {
            char path[4300];
            part_path(h, s->snapshots[k], path, sizeof path);
            if (access(path, R_OK)) {
                seterr(err, errlen, "%s: missing (the snapshot of step %d, taken before the "
                       "checkpoint of step %d)", path, s->snapshots[k], resume_step);
                free(h);
                return -1;
            }
            h->steps[h->nsteps++] = s->snapshots[k];
        }
    }
    *out = h;
    return 0;
}

/* [monitor.dft] at several frequencies: /dft/ez_re and /dft/ez_im shaped
 * [frequencies][ny][nx] and /dft/frequency_hz (the root's ez_dft_re and
 * ez_dft_im are the first frequency, as with one). */
static int write_dft_all(struct h5out *h, struct engine *e, hid_t file, char *err, size_t errlen)
{
    const struct model *m = e->model;
    const struct scene *s = m->scene;
    const enum precision prec = e->opt.precision;
    const size_t es = precision_size(prec), n = m->ncells;
    const int nf = s->dft_nfreq;
    void *buf = xcalloc(n * (size_t)nf, es, "DFT read-back buffer", err, errlen);
    if (!buf)
        return -1;
    int rc = 0;
    hid_t g = h->writer ? H5Gcreate2(file, "dft", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                        : H5I_INVALID_HID;
    if (h->writer && g < 0)
        rc = seterr(err, errlen, "cannot create /dft");
    const hid_t type = prec == PRECISION_DOUBLE ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
    for (int im = 0; im < 2 && !rc; im++) {
        for (int k = 0; k < nf && !rc; k++)
            if (engine_read(e, field_dft(k, im), (char *)buf + (size_t)k * n * es, err, errlen))
                rc = -1;
        if (rc || !h->writer)
            continue;
        const hsize_t d[3] = {(hsize_t)nf, (hsize_t)m->ny, (hsize_t)m->nx};
        hid_t sp = H5Screate_simple(3, d, NULL);
        hid_t ds = H5Dcreate2(g, im ? "ez_im" : "ez_re", type, sp, H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT);
        if (ds < 0 || H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
            rc = seterr(err, errlen, "cannot write /dft/%s", im ? "ez_im" : "ez_re");
        if (ds >= 0)
            H5Dclose(ds);
        H5Sclose(sp);
    }
    if (!rc && h->writer) {
        double f[SCENE_MAX_FREQS];
        for (int k = 0; k < nf; k++)
            f[k] = s->dft_freq[k] * s->frequency_hz;
        const hsize_t d = (hsize_t)nf;
        hid_t sp = H5Screate_simple(1, &d, NULL);
        hid_t ds = H5Dcreate2(g, "frequency_hz", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT);
        if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, f) < 0)
            rc = seterr(err, errlen, "cannot write /dft/frequency_hz");
        if (ds >= 0)
            H5Dclose(ds);
        H5Sclose(sp);
    }
    if (g >= 0)
        H5Gclose(g);
    free(buf);
    return rc;
}

/* The fields of e into the root of a new file `path` (written as
 * path.partial, then renamed). */
static int write_part(struct h5out *h, struct engine *e, bool final, const char *path, char *err,
                      size_t errlen)
{
    const struct model *m = e->model;
    const enum precision prec = e->opt.precision;
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    void *buf = xcalloc(m->ncells, precision_size(prec), "field read-back buffer", err, errlen);
    if (!buf)
        return -1;
    hid_t file = h->writer ? h5_create(tmp)
                           : H5I_INVALID_HID;
    if (h->writer && file < 0) {
        free(buf);
        return seterr(err, errlen, "%s: cannot create HDF5 file", tmp);
    }
    int rc = 0;
    const hsize_t dims[3] = {(hsize_t)m->nz, (hsize_t)m->ny, (hsize_t)m->nx};
    const int rank = m->nz > 1 ? 3 : 2;
    enum field list[8];
    int nfields = scene_fields(m->scene, list);
    /* the DFT phasors go with the final fields, once the sum is complete */
    if (final && m->scene->dft) {
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
        if (!h->writer) /* MPI: the read was this rank's part of a gather */
            continue;
        hid_t space = H5Screate_simple(rank, rank == 3 ? dims : dims + 1, NULL);
        hid_t d = H5Dcreate2(file, field_name(f), type, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        if (d < 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0
            || h5_attr_int(d, "step", e->step) || h5_attr_double(d, "dx", scene_dx(m->scene))
            || h5_attr_double(d, "dt", scene_dt(m->scene))
            || h5_attr_string(d, "engine", h->p->info.engine)
            || h5_attr_string(d, "precision", precision_name(prec)))
            rc = seterr(err, errlen, "%s: cannot write dataset %s", tmp, field_name(f));
        if (d >= 0)
            H5Dclose(d);
        H5Sclose(space);
    }
    free(buf);
    if (!rc && final && m->scene->dft && m->scene->dft_nfreq > 1
        && write_dft_all(h, e, file, err, errlen))
        rc = -1;
    if (!h->writer)
        return rc;
    /* the monitors' results: /far, /flux, /probes (core/monitor.h) */
    if (!rc && final && e->mon && monitors_write_h5(e->mon, file, err, errlen))
        rc = -1;
    return h5_file_finish(file, rc, tmp, path, err, errlen);
}

int h5out_write_snapshot(struct h5out *h, struct engine *e, char *err, size_t errlen)
{
    char path[4300];
    if (h->nsteps == SCENE_MAX_SNAPSHOTS)
        return seterr(err, errlen, "more than %d snapshots", SCENE_MAX_SNAPSHOTS);
    part_path(h, e->step, path, sizeof path);
    if (write_part(h, e, false, path, err, errlen))
        return -1;
    if (!h->nsteps || h->steps[h->nsteps - 1] != e->step)
        h->steps[h->nsteps++] = e->step;
    return 0;
}

int h5out_write_final(struct h5out *h, struct engine *e, char *err, size_t errlen)
{
    char path[4300];
    part_path(h, -1, path, sizeof path);
    return write_part(h, e, true, path, err, errlen);
}

/* fields.h5 from the parts: the final fields at the root, the snapshots
 * under /snapshots/STEP, then the parts go. */
int h5out_close(struct h5out *h, char *err, size_t errlen)
{
    char tmp[4300], final[4300], path[4300];
    if (!h->writer) { /* MPI, not rank 0 */
        free(h);
        return 0;
    }
    snprintf(tmp, sizeof tmp, "%s/.fields.h5.partial", h->dir);
    snprintf(final, sizeof final, "%s/fields.h5", h->dir);
    hid_t file = h5_create(tmp);
    if (file < 0)
        return seterr(err, errlen, "%s: cannot create HDF5 file", tmp);
    int rc = file_attrs(file, h->p) ? seterr(err, errlen, "%s: cannot write attributes", tmp) : 0;
    hid_t snaps = h->nsteps && !rc
                      ? H5Gcreate2(file, "snapshots", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                      : H5I_INVALID_HID;
    for (int k = -1; k < h->nsteps && !rc; k++) {
        const int step = k < 0 ? -1 : h->steps[k];
        part_path(h, step, path, sizeof path);
        hid_t src = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t dst = H5I_INVALID_HID;
        if (src >= 0) {
            char name[32];
            snprintf(name, sizeof name, "%d", step);
            dst = step < 0 ? H5Gopen2(file, "/", H5P_DEFAULT)
                           : H5Gcreate2(snaps, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        }
        if (src < 0 || dst < 0 || h5_copy_members(src, dst))
            rc = seterr(err, errlen, "cannot copy %s into %s", path, tmp);
        if (dst >= 0)
            H5Gclose(dst);
        if (src >= 0)
            H5Fclose(src);
    }
    if (snaps >= 0)
        H5Gclose(snaps);
    rc = h5_file_finish(file, rc, tmp, final, err, errlen);
    if (!rc)
        remove_parts(h);
    free(h);
    return rc;
}

void h5out_abort(struct h5out *h)
{
    if (!h)
        return;
    if (h->writer)
        remove_parts(h);
    free(h);
}

void h5out_detach(struct h5out *h)
{
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
