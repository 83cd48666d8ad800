/* h5same.c - are two fields.h5 files the same fields, bit for bit?
 *
 *   build/bench/h5same A.h5 B.h5
 *
 * Every dataset of A (the final fields and every snapshot group, whatever
 * the nesting) must exist in B with the same type size and the same bytes;
 * attributes (provenance: date, engine, ranks) are not compared.  Prints a
 * line per dataset (values that differ, the first of them) and a verdict;
 * exit 0 when all are identical, 1 otherwise, 2 on a read error.  Used by
 * bench/device_mpi.sh to hold `mpirun -np 2 texfdtd run` to one process. */
#define _GNU_SOURCE
#include <hdf5.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk {
    hid_t b;
    int datasets, differ, errors;
};

/* The whole dataset `name` of file f as bytes; *bytes, *elem its size. */
static void *read_all(hid_t f, const char *name, size_t *bytes, size_t *elem)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return NULL;
    hid_t type = H5Dget_type(d), space = H5Dget_space(d);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    *elem = H5Tget_size(type);
    *bytes = (size_t)n * *elem;
    void *buf = malloc(*bytes ? *bytes : 1);
    if (buf && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        buf = NULL;
    }
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(d);
    return buf;
}

static herr_t visit(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    struct walk *w = data;
    hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
    if (obj < 0)
        return 0;
    const bool dataset = H5Iget_type(obj) == H5I_DATASET;
    H5Oclose(obj);
    if (!dataset)
        return 0;
    size_t na, nb, ea, eb;
    void *a = read_all(group, name, &na, &ea), *b = read_all(w->b, name, &nb, &eb);
    w->datasets++;
    if (!a || !b || na != nb || ea != eb) {
        printf("h5same: %s: %s\n", name, !a ? "cannot read it in A" : !b ? "missing or unreadable in B"
                                                                        : "sizes differ");
        w->errors++;
    } else {
        size_t n = 0, first = 0;
        for (size_t c = 0; c < na / ea; c++)
            if (memcmp((char *)a + c * ea, (char *)b + c * ea, ea) && !n++)
                first = c;
        printf("h5same: %-24s %zu values, %zu differ%s", name, na / ea, n, n ? " (first at " : "\n");
        if (n)
            printf("%zu)\n", first);
        w->differ += n > 0;
    }
    free(a);
    free(b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: h5same A.h5 B.h5\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fa = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t fb = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (fa < 0 || fb < 0) {
        fprintf(stderr, "h5same: cannot open %s\n", fa < 0 ? argv[1] : argv[2]);
        return 2;
    }
    struct walk w = {.b = fb};
    H5Lvisit(fa, H5_INDEX_NAME, H5_ITER_INC, visit, &w);
    H5Fclose(fa);
    H5Fclose(fb);
    const bool same = w.datasets > 0 && !w.differ && !w.errors;
    printf("h5same: %s: %d datasets, %d differ, %d unreadable\n", same ? "IDENTICAL" : "DIFFERENT",
           w.datasets, w.differ, w.errors);
    return w.errors ? 2 : same ? 0 : 1;
}
