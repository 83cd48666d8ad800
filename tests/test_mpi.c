/* test_mpi.c - the 3D engines split over MPI ranks (core/decomp.c, docs/mpi.md).
 *
 * `mpirun -np 2` and `-np 3` of `texfdtd run` (oversubscribed: CI has two
 * cores) must write a fields.h5 whose every dataset, final and snapshot, is
 * bit-identical to the one a single process writes: CPML with a point
 * source, Mur with the plane wave, dielectric and PEC objects across the rank
 * boundaries, float and double, even and uneven splits, a z-CPML slab that
 * crosses a rank boundary.  A 2D scene under mpirun is refused (exit 2, one
 * message), and a rank that dies takes the job down within a bounded time.
 * Skipped, not failed, where the build has no MPI or mpirun is missing.
 * Small grids: about a second per mpirun on CI.
 *
 * The 3D CUDA engine (one GPU a rank) is held to the same bits against one
 * process of itself: CPML (combined, regions, per-face), Mur with the plane
 * wave (source slots on every rank), the point source, dielectric and PEC
 * objects across the rank boundary, float and double, both halo exchanges
 * (TEXFDTD_HALO=host and the default, NCCL where it loads), every step path
 * (two kernels, the fused kernel over slabs, the temporal path with K ghost
 * planes, with and without a CPML), 3 ranks with a z-CPML slab across a
 * boundary.  Those tests skip without a usable GPU,
 * unless TEXFDTD_REQUIRE_GPU=1; TEXFDTD_REQUIRE_NCCL=1 also demands that
 * the default exchange be NCCL.
 */
#include "helpers.h"
#include "core/decomp.h"

#include <hdf5.h>
#include <math.h>
#include <sys/stat.h>


static void need_mpi(void)
{
#ifndef TEXFDTD_HAVE_MPI
    cr_skip_test("this build has no MPI (pkg-config ompi-c not found; Debian: libopenmpi-dev)");
#endif
    if (system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("mpirun is not installed here (Debian: openmpi-bin)");
}

/* mpirun with P ranks, oversubscribed, allowed as root; `timeout` turns a
 * hang into a failure rather than a stuck CI job. */
/* mpirun's session directory goes under the test's own directory (TMPDIR):
 * with the default, /tmp/ompi.HOST.UID shared by every job, one mpirun
 * finishing removed it while another, started by the test beside it
 * (--jobs 2), was making its own inside ("mkdir ... No such file or
 * directory", orte_init failed: seen once in a CI run). */
static const char *mpirun_prefix(int P, const char *dir, char *buf, size_t len)
{
    snprintf(buf, len, "TMPDIR=%s timeout 120 mpirun --oversubscribe%s -np %d", dir,
             geteuid() == 0 ? " --allow-run-as-root" : "", P);
    return buf;
}

static char *temp_dir(void) { return temp_dir_tagged("mpi"); }

/* Run `scene` with P ranks (P = 0: a plain process, no mpirun) into
 * dir/run-NAME (NAME: P, or `name` when given), with environment
 * assignments `env` before the command, the output into out. */
static void run_engine_ranks(const char *scene, const char *dir, int P, const char *engine,
                             const char *name, const char *env, const char *extra, char *out,
                             size_t outlen)
{
    char pre[512], sub[600];
    if (name)
        snprintf(sub, sizeof sub, "%s/run-%s", dir, name);
    else
        snprintf(sub, sizeof sub, "%s/run-%d", dir, P);
    const int rc = run_cmd(out, outlen, "%s %s %s run %s --engine %s --threads 1 --out %s %s",
                           env ? env : "", P ? mpirun_prefix(P, dir, pre, sizeof pre) : "",
                           texfdtd_bin(), scene, engine, sub, extra ? extra : "");
    cr_assert_eq(rc, 0, "%s, %d ranks: exit %d\n%s", engine, P, rc, out);
    cr_log_info("%s, %d ranks%s%s: %s", engine, P, env ? ", " : "", env ? env : "",
                strstr(out, "steps in") ? strstr(out, "steps in") - 4 : "?");
    if (P > 1) {
        char want[64];
        snprintf(want, sizeof want, "rank %d of %d: z planes", P - 1, P);
        cr_assert(strstr(out, want), "the rank-to-slab map is printed at start:\n%s", out);
        const char *w = strstr(out, "wrote ");
        cr_assert(w && !strstr(w + 1, "wrote "), "rank 0 alone reports:\n%s", out);
    }
}

static void run_ranks(const char *scene, const char *dir, int P, const char *extra)
{
    char out[16384];
    run_engine_ranks(scene, dir, P, "cpu", NULL, NULL, extra, out, sizeof out);
}

/* Read dataset `name` of file f as raw bytes (its own type) into a malloc'ed
 * buffer; *bytes its size. */
static void *read_dataset(hid_t f, const char *name, size_t *bytes)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    cr_assert(d >= 0, "no dataset %s", name);
    hid_t type = H5Dget_type(d), space = H5Dget_space(d);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    *bytes = (size_t)n * H5Tget_size(type);
    void *buf = malloc(*bytes);
    cr_assert(buf);
    cr_assert(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "read %s", name);
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(d);
    return buf;
}

/* Values (of elem bytes) of a and b whose bits differ. */
static size_t differing(const void *a, const void *b, size_t bytes, size_t elem, size_t *first)
{
    size_t n = 0;
    *first = 0;
    for (size_t c = 0; c < bytes / elem; c++)
        if (memcmp((const char *)a + c * elem, (const char *)b + c * elem, elem) && !n++)
            *first = c;
    return n;
}

static bool any_nonzero(const void *a, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        if (((const unsigned char *)a)[i])
            return true;
    return false;
}

/* Every field of groups "/" and "/snapshots/SNAP" in dir/run-B against
 * dir/run-A, bit for bit.  The comparison is shown able to fail: the final
 * fields differ from the snapshot's in the same file. */
static void same_bits_runs(const char *dir, const char *A, const char *B, int P, int snap,
                           size_t elem)
{
    static const char *const names[] = {"ex", "ey", "ez", "hx", "hy", "hz"};
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/run-%s/fields.h5", dir, A);
    snprintf(pb, sizeof pb, "%s/run-%s/fields.h5", dir, B);
    hid_t fa = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(pb, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(fa >= 0 && fb >= 0, "open %s and %s", pa, pb);
    for (int g = 0; g < 2; g++)
        for (int q = 0; q < 6; q++) {
            char name[64];
            if (g == 0)
                snprintf(name, sizeof name, "/%s", names[q]);
            else
                snprintf(name, sizeof name, "/snapshots/%d/%s", snap, names[q]);
            size_t na, nb, first;
            void *a = read_dataset(fa, name, &na), *b = read_dataset(fb, name, &nb);
            cr_assert_eq(na, nb, "%s: %zu bytes against %zu", name, na, nb);
            cr_assert(any_nonzero(a, na), "%s: the field must be excited", name);
            const size_t n = differing(a, b, na, elem, &first);
            cr_assert_eq(n, 0, "%d ranks (run-%s), %s: %zu values differ from one process, the "
                         "first at cell %zu", P, B, name, n, first);
            if (g == 0) { /* the comparison can fail: step `snap` is not the last step */
                char sname[64];
                size_t ns;
                snprintf(sname, sizeof sname, "/snapshots/%d/%s", snap, names[q]);
                void *s = read_dataset(fa, sname, &ns);
                cr_assert_gt(differing(a, s, na, elem, &first), 0, "%s: snapshot = final?", name);
                free(s);
            }
            free(a);
            free(b);
        }
    H5Fclose(fa);
    H5Fclose(fb);
}

static void same_bits(const char *dir, int P, int snap, size_t elem)
{
    char b[16];
    snprintf(b, sizeof b, "%d", P);
    same_bits_runs(dir, "0", b, P, snap, elem);
}

/* One process, then each P of ranks[], compared. */
static void check_scene(const char *text, const int *ranks, int nranks, int snap, size_t elem,
                        const char *extra)
{
    need_mpi();
    char *scene = write_temp_scene(text), *dir = temp_dir();
    run_ranks(scene, dir, 0, extra);
    for (int k = 0; k < nranks; k++) {
        run_ranks(scene, dir, ranks[k], extra);
        same_bits(dir, ranks[k], snap, elem);
    }
    remove_tree(dir);
    unlink(scene);
    free(scene);
    free(dir);
}

/* ---- the monitors over ranks ------------------------------------------------------- */

/* The bytes of dir/run-A/NAME and dir/run-B/NAME (a CSV file) are the same. */
static void same_file(const char *dir, const char *A, const char *B, const char *name)
{
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/run-%s/%s", dir, A, name);
    snprintf(pb, sizeof pb, "%s/run-%s/%s", dir, B, name);
    FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
    cr_assert(fa && fb, "open %s and %s", pa, pb);
    long n = 0;
    int ca, cb;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
        cr_assert_eq(ca, cb, "%s and %s differ at byte %ld", pa, pb, n);
        n++;
    } while (ca != EOF);
    cr_assert_gt(n, 100, "%s: %ld bytes", pa, n);
    fclose(fa);
    fclose(fb);
}

/* The datasets of the far field and the probes in fields.h5 of run-B
 * against run-A, bit for bit (doubles), each excited. */
static void same_monitors(const char *dir, const char *A, const char *B, int P)
{
    static const char *const names[] = {
        "/far/frequency_hz", "/far/e_plane/rcs_over_lambda2", "/far/e_plane/rcs_theta_over_lambda2",
        "/far/e_plane/rcs_phi_over_lambda2", "/far/h_plane/rcs_over_lambda2",
        "/far/h_plane/rcs_phi_over_lambda2", "/far/grid/rcs_over_lambda2",
        "/far/grid/rcs_theta_over_lambda2", "/probes/low/ez", "/probes/low/hx", "/probes/low/ey",
        "/probes/cut/ex", "/probes/cut/hz", "/probes/cut/hy", "/probes/top/ez", "/probes/top/step",
    };
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/run-%s/fields.h5", dir, A);
    snprintf(pb, sizeof pb, "%s/run-%s/fields.h5", dir, B);
    hid_t fa = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(pb, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(fa >= 0 && fb >= 0, "open %s and %s", pa, pb);
    for (size_t q = 0; q < sizeof names / sizeof *names; q++) {
        size_t na, nb, first;
        void *a = read_dataset(fa, names[q], &na), *b = read_dataset(fb, names[q], &nb);
        cr_assert_eq(na, nb, "%s: %zu bytes against %zu", names[q], na, nb);
        cr_assert(any_nonzero(a, na), "%s: all zero", names[q]);
        const size_t n = differing(a, b, na, 8, &first);
        cr_assert_eq(n, 0, "%d ranks (run-%s), %s: %zu values differ from one process, the first "
                     "at %zu", P, B, names[q], n, first);
        free(a);
        free(b);
    }
    H5Fclose(fa);
    H5Fclose(fb);
}

/* A PEC sphere in the plane wave, its far-field box across the rank
 * boundaries (2 ranks: z = 15; 3 ranks: 10 and 20, where the box's lower
 * face lies between planes 9 and 10: its H and outer E on rank 0, its inner
 * E on rank 1), three frequencies, probes on the planes either side of a
 * boundary (total and scattered, every step and every third). */
static const char *far_scene =
    "[grid]\nnx = 28\nny = 26\nnz = 30\nsteps = 90\ncourant = 0.5\ncells_per_wavelength = 10\n"
    "[source]\nangle = 20\nwaveform = modulated_gaussian\nbandwidth = 1\n"
    "[boundary]\ntype = cpml\ncells = 5\n"
    "[object.ball]\nshape = sphere\nmaterial = pec\ncenter_x = 14\ncenter_y = 13\ncenter_z = 15\n"
    "radius = 4\n"
    "[monitor.far]\nfrequencies = 0.8, 1, 1.2\nangles = 24\ntheta_points = 5\nphi_points = 8\n"
    "[probe.low]\nx = 6\ny = 13\nz = 9\nfields = all\n"
    "[probe.cut]\nx = 20\ny = 8\nz = 10\nfields = all\ntotal = false\nevery = 3\n"
    "[probe.top]\nx = 14\ny = 13\nz = 20\nfields = ez, hy\n"
    "[output]\nsnapshots = 40\npng = false\n";

static char far_last_out[16384]; /* the last run's output (check_far) */

/* The temporal path over ranks: over NCCL the exchange overlaps the chunks
 * inside the ranks (step_tb: the rank-edge chunks first, the chunks between
 * them after, the next block after the exchange), host-staged it follows
 * the block; the run's output (out, of P ranks) must say which. */
static void assert_overlap_iff_nccl(const char *out, int P)
{
    const bool nccl = strstr(out, "halo nccl") != NULL;
    cr_assert(nccl == (strstr(out, "the exchange overlapped with the chunks inside") != NULL),
              "%d ranks: the exchange %s:\n%s", P,
              nccl ? "over NCCL but not overlapped" : "overlapped but not over NCCL", out);
}

static void check_far(const char *engine, const char *extra, const int *ranks, int nranks)
{
    char *scene = write_temp_scene(far_scene), *dir = temp_dir();
    char *out = far_last_out;
    run_engine_ranks(scene, dir, 0, engine, "0", NULL, extra, out, sizeof far_last_out);
    for (int k = 0; k < nranks; k++) {
        char name[16];
        snprintf(name, sizeof name, "%d", ranks[k]);
        run_engine_ranks(scene, dir, ranks[k], engine, name, NULL, extra, out, sizeof far_last_out);
        same_monitors(dir, "0", name, ranks[k]);
        same_file(dir, "0", name, "far_field.csv");
        same_file(dir, "0", name, "probes.csv");
    }
    remove_tree(dir);
    unlink(scene);
    free(scene);
    free(dir);
}

Test(mpi, far_field_and_probes_2_and_3_ranks_bit_identical, .timeout = 240)
{
    need_mpi();
    check_far("cpu", NULL, (const int[]){2, 3}, 2);
}

Test(mpi, far_field_and_probes_double_3_ranks_bit_identical, .timeout = 240)
{
    need_mpi();
    check_far("cpu", "--precision double", (const int[]){3}, 1);
}

/* CPML on all faces, a point source, a dielectric box across every rank
 * boundary (2 ranks: z = 15; 3 ranks: 10 and 20), a PEC box across z = 15. */
static const char *cpml_scene =
    "[grid]\nnx = 24\nny = 20\nnz = 30\nsteps = 40\ncourant = 0.5\ncells_per_wavelength = 10\n"
    "[source]\ntype = point\ncenter_x = 9\ncenter_y = 9\ncenter_z = 14\n"
    "[boundary]\ntype = cpml\ncells = 5\n"
    "[object.slab]\nshape = box\nmaterial = dielectric\neps_r = 4\ncenter_x = 14\n"
    "center_y = 10\ncenter_z = 15\nwidth = 4\nheight = 5\ndepth = 15\n"
    "[object.plate]\nshape = box\nmaterial = pec\ncenter_x = 10\ncenter_y = 12\n"
    "center_z = 15.5\nwidth = 3\nheight = 1\ndepth = 6\n"
    "[output]\nsnapshots = 17\npng = false\n";

Test(mpi, cpml_point_source_objects_2_and_3_ranks_bit_identical, .timeout = 180)
{
    check_scene(cpml_scene, (const int[]){2, 3}, 2, 17, 4, NULL);
}

Test(mpi, cpml_double_precision_3_ranks_bit_identical, .timeout = 180)
{
    check_scene(cpml_scene, (const int[]){3}, 1, 17, 8, "--precision double");
}

/* Mur on all faces, the plane wave at an angle (source slots in PEC and
 * dielectric cells on every rank), a sphere across z = 15, an uneven split
 * (31 planes: 16 + 15 and 11 + 10 + 10), PNG pictures on. */
static const char *mur_scene =
    "[grid]\nnx = 24\nny = 20\nnz = 31\nsteps = 45\ncourant = 0.5\ncells_per_wavelength = 10\n"
    "[source]\nangle = 30\nfront_offset = 6\n"
    "[boundary]\ntype = mur\n"
    "[object.ball]\nshape = sphere\nmaterial = dielectric\neps_r = 3\ncenter_x = 12\n"
    "center_y = 10\ncenter_z = 15\nradius = 6\n"
    "[object.block]\nshape = box\nmaterial = pec\ncenter_x = 6\ncenter_y = 6\n"
    "center_z = 10\nwidth = 3\nheight = 3\ndepth = 5\n"
    "[output]\nsnapshots = 20\npng = true\n";

Test(mpi, mur_plane_wave_uneven_split_2_and_3_ranks_bit_identical, .timeout = 180)
{
    check_scene(mur_scene, (const int[]){2, 3}, 2, 20, 4, NULL);
}

/* mu_r and dispersion poles (tests/test_mat3d.c) across the rank
 * boundaries: a sphere of every pole kind with mu_r and sigma (its H slots,
 * H-node map and dispersive entries on every rank; the dispersive Ex, Ey of
 * a rank's bottom plane read Hy, Hx of the plane below from the halo) and a
 * magnetic-only box, Mur, the plane wave, an uneven split. */
static const char *mat_scene =
    "[grid]\nnx = 24\nny = 20\nnz = 31\nsteps = 45\ncourant = 0.5\ncells_per_wavelength = 10\n"
    "[source]\nangle = 30\nfront_offset = 6\nfrequency_hz = 1e9\n"
    "[boundary]\ntype = mur\n"
    "[material.p]\neps_r = 2\nmu_r = 1.5\nsigma = 0.02\ndebye = 1.5 1e-10\n"
    "lorentz = 0.5 2e10 1e9\ndrude = 2e10 3e9\n"
    "[material.mag]\nmu_r = 2.5\n"
    "[object.ball]\nshape = sphere\nmaterial = p\ncenter_x = 12\ncenter_y = 10\n"
    "center_z = 15\nradius = 6\n"
    "[object.block]\nshape = box\nmaterial = mag\ncenter_x = 6\ncenter_y = 6\n"
    "center_z = 10.5\nwidth = 3\nheight = 3\ndepth = 6\n"
    "[output]\nsnapshots = 20\npng = false\n";

Test(mpi, mu_r_and_poles_2_and_3_ranks_bit_identical, .timeout = 180)
{
    check_scene(mat_scene, (const int[]){2, 3}, 2, 20, 4, NULL);
}

Test(mpi, mu_r_and_poles_double_3_ranks_bit_identical, .timeout = 180)
{
    check_scene(mat_scene, (const int[]){3}, 1, 20, 8, "--precision double");
}

/* 16 planes over 3 ranks (6 + 5 + 5) with 6-cell CPML: the upper z slab
 * (planes 9 .. 14) crosses the rank boundary at 11, so the middle rank holds
 * z psi of the upper side only. */
Test(mpi, z_cpml_across_a_rank_boundary_bit_identical, .timeout = 180)
{
    check_scene("[grid]\nnx = 18\nny = 18\nnz = 16\nsteps = 40\ncourant = 0.5\n"
                "cells_per_wavelength = 8\n"
                "[source]\ntype = point\ncenter_x = 9\ncenter_y = 9\ncenter_z = 8\n"
                "waveform = gaussian\n"
                "[boundary]\ntype = cpml\ncells = 6\n"
                "[output]\nsnapshots = 25\npng = false\n",
                (const int[]){3}, 1, 25, 4, NULL);
}

/* The split by cost (decomp_split_weighted; the cuda engine's default with
 * a CPML): planes cover 0 .. nz once, in order, at least 2 a rank; with
 * w = 1 it is the even split; otherwise each rank's cost is within one
 * plane's (w) of its share.  And two splits worked by hand. */
static double cost_of(int nz, int N, double w, int a, int b)
{
    double c = 0;
    for (int k = a; k < b; k++)
        c += (k < N || k >= nz - 1 - N) ? w : 1.0;
    return c;
}

Test(mpi, weighted_split_covers_the_planes_and_balances_their_cost)
{
    static const struct { int nz, P, N; double w; } cases[] = {
        {32, 2, 8, 2.1}, {32, 3, 10, 2.1}, {1024, 4, 10, 2.1}, {1024, 8, 10, 2.1},
        {100, 7, 12, 3.0}, {8, 4, 3, 5.0}, {64, 5, 10, 1.0}, {9, 4, 2, 50.0},
    };
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        const int nz = cases[q].nz, P = cases[q].P, N = cases[q].N;
        const double w = cases[q].w, share = cost_of(nz, N, w, 0, nz) / P;
        int prev = 0;
        bool clamped = false;
        for (int r = 0; r < P; r++) {
            int k0, k1, e0, e1;
            decomp_split_weighted(nz, P, r, N, w, &k0, &k1);
            cr_assert_eq(k0, prev, "case %zu rank %d: starts at %d, not %d", q, r, k0, prev);
            cr_assert(k1 - k0 >= 2, "case %zu rank %d: %d planes", q, r, k1 - k0);
            if (w == 1.0) {
                decomp_split(nz, P, r, &e0, &e1);
                cr_assert(k0 == e0 && k1 == e1, "case %zu rank %d: w = 1 is the even split", q, r);
            }
            clamped = clamped || k1 - k0 == 2;
            if (!clamped)
                cr_assert(fabs(cost_of(nz, N, w, k0, k1) - share) <= w + 1e-9,
                          "case %zu rank %d: planes %d..%d cost %g against a share of %g", q, r,
                          k0, k1 - 1, cost_of(nz, N, w, k0, k1), share);
            prev = k1;
        }
        cr_assert_eq(prev, nz, "case %zu: the last rank ends at %d, not %d", q, prev, nz);
    }
    /* by hand: nz = 32, N = 10, w = 2.1: the cost is 32 + 1.1 x 21 = 55.1, a
     * third 18.37; 2.1 k below plane 10 gives 18.9 at k = 9; above plane 21
     * 32 + 2.1 (k - 21) gives 36.2 at k = 23 (two thirds: 36.73): 9 + 14 + 9 */
    const int want3[4] = {0, 9, 23, 32};
    for (int r = 0; r < 3; r++) {
        int k0, k1;
        decomp_split_weighted(32, 3, r, 10, 2.1, &k0, &k1);
        cr_assert(k0 == want3[r] && k1 == want3[r + 1], "rank %d: %d..%d", r, k0, k1);
    }
    /* 1024 planes over 4, N = 10: 1047.1 / 4 = 261.8 a rank, and k + 11 is
     * the cost below an interior plane k: 251, 262, 261, 250 planes */
    const int want4[5] = {0, 251, 513, 774, 1024};
    for (int r = 0; r < 4; r++) {
        int k0, k1;
        decomp_split_weighted(1024, 4, r, 10, 2.1, &k0, &k1);
        cr_assert(k0 == want4[r] && k1 == want4[r + 1], "rank %d: %d..%d", r, k0, k1);
    }
}

Test(mpi, two_d_scene_is_refused_once_with_exit_2, .timeout = 120)
{
    need_mpi();
    char out[16384], pre[128];
    char *scene = write_temp_scene("[grid]\nnx = 40\nny = 40\nsteps = 10\n");
    char *dir = temp_dir();
    const int rc = run_cmd(out, sizeof out, "%s %s run %s --engine cpu --out %s/run",
                           mpirun_prefix(2, dir, pre, sizeof pre), texfdtd_bin(), scene, dir);
    cr_assert_eq(rc, 2, "exit %d\n%s", rc, out);
    const char *m = strstr(out, "the 2D engines stay single-device");
    cr_assert(m, "%s", out);
    cr_assert(!strstr(m + 1, "the 2D engines stay single-device"), "said once, by rank 0:\n%s",
              out);
    char sub[600];
    snprintf(sub, sizeof sub, "%s/run", dir);
    struct stat st;
    cr_assert(stat(sub, &st) != 0, "nothing may be written");
    /* too few planes for the ranks: refused the same way */
    char *thin = write_temp_scene("[grid]\nnx = 16\nny = 16\nnz = 9\nsteps = 10\n");
    cr_assert_eq(run_cmd(out, sizeof out, "%s %s run %s --engine cpu --out %s/run",
                         mpirun_prefix(5, dir, pre, sizeof pre), texfdtd_bin(), thin, dir), 2, "%s", out);
    cr_assert(strstr(out, "5 ranks need nz >= 10 (2 z planes a rank), not 9"), "%s", out);
    /* checkpoints hold one process's state: refused under mpirun */
    cr_assert_eq(run_cmd(out, sizeof out, "%s %s run %s --engine cpu --out %s/run --set grid.nz=12 "
                         "--checkpoint-every 5",
                         mpirun_prefix(2, dir, pre, sizeof pre), texfdtd_bin(), thin, dir), 2, "%s", out);
    cr_assert(strstr(out, "--checkpoint-every needs one process, not 2 MPI ranks"), "%s", out);
    remove_tree(dir);
    unlink(scene);
    unlink(thin);
    free(scene);
    free(thin);
    free(dir);
}

/* Rank 1 exits at step 5 (the test hook of core/decomp.c) while rank 0
 * waits for its halo: mpirun must end the job, non-zero, saying which rank,
 * well within the 120 s `timeout` (exit 124 would mean a hang), and no
 * fields.h5 appears. */
Test(mpi, a_dying_rank_takes_the_job_down, .timeout = 150)
{
    need_mpi();
    char out[16384], pre[128];
    char *scene = write_temp_scene(cpml_scene), *dir = temp_dir();
    const double t0 = now_seconds();
    const int rc = run_cmd(out, sizeof out, "TEXFDTD_TEST_RANK_EXIT=1:5 %s %s run %s "
                           "--engine cpu --threads 1 --out %s/run --steps 400",
                           mpirun_prefix(2, dir, pre, sizeof pre), texfdtd_bin(), scene, dir);
    const double dt = now_seconds() - t0;
    cr_log_info("a dying rank: mpirun exit %d after %.1f s", rc, dt);
    cr_assert_neq(rc, 0, "%s", out);
    cr_assert_neq(rc, 124, "the job hung until timeout killed it:\n%s", out);
    cr_assert_lt(dt, 60, "took %.0f s", dt);
    cr_assert(strstr(out, "rank 1 of 2: exiting at step 5"), "%s", out);
    char path[700];
    snprintf(path, sizeof path, "%s/run/fields.h5", dir);
    struct stat st;
    cr_assert(stat(path, &st) != 0, "no fields.h5 from a failed job");
    remove_tree(dir);
    unlink(scene);
    free(scene);
    free(dir);
}

/* ---- the 3D CUDA engine, one GPU a rank --------------------------------------- */

/* Skip (or fail, with TEXFDTD_REQUIRE_GPU=1) where this build has no 3D CUDA
 * engine or no GPU can be opened; then MPI as need_mpi(). */
static void need_gpu_and_mpi(void)
{
    const bool required = getenv("TEXFDTD_REQUIRE_GPU") && !strcmp(getenv("TEXFDTD_REQUIRE_GPU"), "1");
    if (!engine_find("cuda", 3)) {
        if (required)
            cr_assert_fail("TEXFDTD_REQUIRE_GPU=1 but this build has no CUDA engine (no nvcc?)");
        cr_skip_test("this build has no CUDA engine (nvcc not found)");
    }
    struct test_setup t;
    setup_from_text(&t, "[grid]\nnx = 8\nny = 8\nnz = 8\nsteps = 1\n", NULL, 0);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                               .device = -1};
    struct engine *e = NULL;
    char err[ERRLEN];
    const int rc = engine_create("cuda", &t.model, &o, &e, err, sizeof err);
    if (!rc)
        engine_destroy(e);
    setup_free(&t);
    if (rc) {
        if (required)
            cr_assert_fail("TEXFDTD_REQUIRE_GPU=1 but the CUDA engine fails: %s", err);
        cr_skip_test("no usable CUDA device: %s", err);
    }
#ifndef TEXFDTD_HAVE_MPI
    if (required)
        cr_assert_fail("TEXFDTD_REQUIRE_GPU=1 but this build has no MPI (build with MPI on for "
                       "the GPU machine: bench/device_mpi.sh)");
#endif
    need_mpi();
}

/* One process of the cuda engine, then each (P, halo) of the list, compared
 * bit for bit.  halo: NULL for the default exchange (NCCL where it loads,
 * demanded with TEXFDTD_REQUIRE_NCCL=1), "host" for TEXFDTD_HALO=host. */
struct cuda_run {
    int P;
    const char *halo;
    const char *path; /* TEXFDTD_CUDA3D: NULL (the default), "fused" or "two" */
};

/* The output of check_cuda_scene's last run (for a test to read the split). */
static char cuda_last_out[16384];

static void check_cuda_scene(const char *text, const struct cuda_run *runs, int nruns, int snap,
                             size_t elem, const char *extra)
{
    need_gpu_and_mpi();
    const bool want_nccl = getenv("TEXFDTD_REQUIRE_NCCL") && !strcmp(getenv("TEXFDTD_REQUIRE_NCCL"), "1");
    char *scene = write_temp_scene(text), *dir = temp_dir();
    char *out = cuda_last_out;
    const size_t outlen = sizeof cuda_last_out;
    run_engine_ranks(scene, dir, 0, "cuda", "0", NULL, extra, out, outlen);
    for (int k = 0; k < nruns; k++) {
        char name[48], env[96];
        snprintf(name, sizeof name, "%d-%s-%s", runs[k].P, runs[k].halo ? runs[k].halo : "default",
                 runs[k].path ? runs[k].path : "default");
        snprintf(env, sizeof env, "%s%s %s%s", runs[k].halo ? "TEXFDTD_HALO=" : "",
                 runs[k].halo ? runs[k].halo : "", runs[k].path ? "TEXFDTD_CUDA3D=" : "",
                 runs[k].path ? runs[k].path : "");
        run_engine_ranks(scene, dir, runs[k].P, "cuda", name, env, extra, out, outlen);
        char want[64];
        snprintf(want, sizeof want, "rank %d of %d: z planes", runs[k].P - 1, runs[k].P);
        cr_assert(strstr(out, want) && strstr(out, "GPU "), "the rank-to-GPU map:\n%s", out);
        same_bits_runs(dir, "0", name, runs[k].P, snap, elem);
        if (runs[k].path && !strcmp(runs[k].path, "fused"))
            cr_assert(strstr(out, "fused path (one kernel per step)"), "TEXFDTD_CUDA3D=fused:\n%s", out);
        if (runs[k].path && !strcmp(runs[k].path, "temporal")) /* taken, or declined saying why */
            cr_assert(strstr(out, "cuda 3D: temporal path (") || strstr(out, "the temporal kernel takes no"),
                      "TEXFDTD_CUDA3D=temporal:\n%s", out);
        if (runs[k].halo)
            cr_assert(strstr(out, "halo host-staged"), "TEXFDTD_HALO=host:\n%s", out);
        else if (want_nccl)
            cr_assert(strstr(out, "halo nccl"), "TEXFDTD_REQUIRE_NCCL=1 but the exchange is not "
                      "NCCL (the fields agree):\n%s", out);
    }
    remove_tree(dir);
    unlink(scene);
    free(scene);
    free(dir);
}

/* The CPML cube: 8-cell CPML, a point source, a dielectric sphere across the
 * rank boundary (2 ranks: z = 16) and a PEC plate across it. */
static const char *cuda_cpml_scene =
    "[grid]\nnx = 40\nny = 36\nnz = 32\nsteps = 60\ncourant = 0.5\ncells_per_wavelength = 10\n"
    "[source]\ntype = point\ncenter_x = 17\ncenter_y = 15\ncenter_z = 14\n"
    "[boundary]\ntype = cpml\ncells = 8\nstrategy = combined\n"
    "[object.ball]\nshape = sphere\nmaterial = dielectric\neps_r = 4\ncenter_x = 21\n"
    "center_y = 18\ncenter_z = 16\nradius = 6\n"
    "[object.plate]\nshape = box\nmaterial = pec\ncenter_x = 12\ncenter_y = 12\n"
    "center_z = 15.5\nwidth = 3\nheight = 1\ndepth = 6\n"
    "[output]\nsnapshots = 31\npng = false\n";

Test(mpi, cuda_cpml_point_sphere_2_ranks_both_halos_bit_identical, .timeout = 240)
{
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{2, NULL, NULL}, {2, "host", NULL}}, 2, 31, 4,
                     NULL);
}

/* The fused z-marching kernel over slabs: the top plane's tiles first (its
 * new Hx, Hy go up while the body runs), the bottom plane's last, reading
 * the H of plane k0-1 that came from below instead of recomputing it.
 * Both exchanges, and 3 ranks with a z CPML slab across a boundary. */
Test(mpi, cuda_fused_path_over_ranks_bit_identical, .timeout = 300)
{
    check_cuda_scene(cuda_cpml_scene,
                     (const struct cuda_run[]){{2, NULL, "fused"}, {2, "host", "fused"}}, 2, 31, 4,
                     NULL);
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{3, "host", "fused"}}, 1, 31, 4,
                     "--set boundary.cells=10 --set object.ball.radius=4 "
                     "--set object.plate.center_x=14");
}

/* The temporal path over slabs (cuda/cuda3d_tb.cu): each rank holds K ghost
 * planes each side, recomputes them in every block (their sources too) and
 * exchanges K planes of all six fields each way after every block.  Against
 * one process on the fused path, bit for bit: a PEC box (with a CPML: the
 * test after), a plane wave across every plane from step 0 (source
 * slots in the ghost planes: PEC plate, dielectric ball, lossy box), then a
 * point source one plane below a rank boundary; K = 3 and 4, chunks of 5
 * planes inside each slab, 61 steps with a snapshot at 31 (one-step
 * launches between blocks: the ghost planes refreshed before the next). */
static const char *cuda_tb_fmt =
    "[grid]\nnx = 45\nny = 37\nnz = 29\nsteps = 61\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "%s"
    "[boundary]\ntype = pec\n"
    "[object.ball]\nshape = sphere\nmaterial = dielectric\neps_r = 3\ncenter_x = 24\n"
    "center_y = 16\ncenter_z = 14.5\nradius = 6\n"
    "[object.plate]\nshape = box\nmaterial = pec\ncenter_x = 14\ncenter_y = 25\n"
    "center_z = 10\nwidth = 9\nheight = 3\ndepth = 7\n"
    "[material.wet]\neps_r = 2\nsigma = 0.15\n"
    "[object.wet]\nshape = box\nmaterial = wet\ncenter_x = 34\ncenter_y = 12\ncenter_z = 19\n"
    "width = 8\nheight = 5\ndepth = 8\n"
    "[output]\nsnapshots = 31\npng = false\n";

/* Scene `text` (with `extra`) on the temporal path over 2 ranks (the
 * default exchange) and 3 (host-staged), K steps a launch, chunks of 5
 * planes, each against one process, bit for bit, and each run's log saying
 * it took the path. */
static void check_cuda_tb_runs(const char *text, const char *K, const char *extra)
{
    static const struct cuda_run runs[] = {{2, NULL, "temporal"}, {3, "host", "temporal"}};
    setenv("TEXFDTD_CUDA3D_K", K, 1); /* the ranks inherit them through mpirun */
    setenv("TEXFDTD_CUDA3D_TBZ", "5", 1);
    for (int q = 0; q < 2; q++) {
        check_cuda_scene(text, &runs[q], 1, 31, 4, extra);
        cr_assert(strstr(cuda_last_out, "cuda 3D: temporal path ("),
                  "%d ranks, K = %s: not on the temporal path:\n%s", runs[q].P, K, cuda_last_out);
        assert_overlap_iff_nccl(cuda_last_out, runs[q].P);
    }
    unsetenv("TEXFDTD_CUDA3D_K");
    unsetenv("TEXFDTD_CUDA3D_TBZ");
}

static void check_cuda_tb(const char *source, const char *K)
{
    char text[2048];
    snprintf(text, sizeof text, cuda_tb_fmt, source);
    check_cuda_tb_runs(text, K, NULL);
}

Test(mpi, cuda_temporal_path_over_ranks_bit_identical, .timeout = 400)
{
    check_cuda_tb("[source]\ntype = plane_wave\nangle = 30\nfront_offset = 60\n", "3");
    check_cuda_tb("[source]\ntype = point\ncenter_x = 20\ncenter_y = 17\ncenter_z = 13\n", "4");
}

/* The temporal path with an A1 CPML over slabs: the x and y psi arrays
 * hold the K ghost planes each side and halo_deep sends their K planes
 * with the fields (in NCCL's group, overlapped with the chunks inside the
 * ranks, or staged through the host), so a block's halo planes carry the
 * psi of one process.  The CPML cube with a
 * 3-cell CPML, so that no rank's ghost planes reach a z slab (2 ranks:
 * planes 0..16 and 17..31; 3: 0..9, 10..22, 23..31; the z slabs 0..2 and
 * 28..30), the x and y slabs through every plane; K = 3 and 4, chunks of 5
 * planes, 60 steps with a snapshot at 31 (one-step launches between blocks:
 * the ghost planes' psi refreshed before the next), against one process.
 * At 40 x 36 every tile meets the x and the y slabs (the 12-psi kernel);
 * then at 80 x 80, K 3, where tiles meet the slabs of one axis only (the
 * one-axis kernels, in float two rows a thread: tb_slab_rows2) beside
 * those of two and the ones clear of the slabs (32 x 16 tiles in the band
 * of rows 26 .. 51: tb_band_on). */
Test(mpi, cuda_temporal_cpml_over_ranks_bit_identical, .timeout = 400)
{
    /* edge chunks (over NCCL) of 4 planes, and of K = 4 (2 asked for: at
     * least K, so that they make the K planes sent); then of 5 (the chunk) */
    setenv("TEXFDTD_CUDA3D_TBEDGE", "4", 1);
    check_cuda_tb_runs(cuda_cpml_scene, "3", "--set boundary.cells=3");
    setenv("TEXFDTD_CUDA3D_TBEDGE", "2", 1);
    check_cuda_tb_runs(cuda_cpml_scene, "4", "--set boundary.cells=3");
    unsetenv("TEXFDTD_CUDA3D_TBEDGE");
    /* the same split at a rank with neighbours on both sides (the middle of
     * 3: NCCL has that only from 3 GPUs on), through the host-staged
     * exchange, which then runs between the edge chunks and the others */
    setenv("TEXFDTD_CUDA3D_TBOVERLAP", "1", 1);
    setenv("TEXFDTD_CUDA3D_K", "3", 1);
    setenv("TEXFDTD_CUDA3D_TBZ", "4", 1);
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{3, "host", "temporal"}}, 1, 31, 4,
                     "--set boundary.cells=3");
    unsetenv("TEXFDTD_CUDA3D_TBOVERLAP");
    unsetenv("TEXFDTD_CUDA3D_K");
    unsetenv("TEXFDTD_CUDA3D_TBZ");
    cr_assert(strstr(cuda_last_out, "the exchange before the chunks inside the ranks (edge chunks of 4 "),
              "TEXFDTD_CUDA3D_TBOVERLAP=1, host-staged:\n%s", cuda_last_out);
    cr_assert(strstr(cuda_last_out, "cuda 3D: temporal path ("), "not on the temporal path:\n%s", cuda_last_out);
    check_cuda_tb_runs(cuda_cpml_scene, "3", "--set boundary.cells=3 --set grid.nx=80 --set grid.ny=80");
    cr_assert(strstr(cuda_last_out, ", 2 in the one-axis slab tiles"), "not two rows a thread there:\n%s",
              cuda_last_out);
    cr_assert(strstr(cuda_last_out, "; the tiles clear of the slabs 32 x 16"),
              "the tiles clear of the slabs not 32 x 16:\n%s", cuda_last_out);
}

/* A ghost plane in a z CPML slab (its z psi are neither held nor
 * exchanged): the 10-cell CPML over 3 ranks (planes 9..22 in the middle,
 * whose K = 3 ghost planes below, 6..8, lie in the lower slab 0..9).  Every
 * rank declines alike, saying why, and steps one step a launch, with the
 * bits of one process. */
Test(mpi, cuda_temporal_declines_a_z_slab_in_the_ghost_planes, .timeout = 240)
{
    setenv("TEXFDTD_CUDA3D_K", "3", 1);
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{3, "host", "temporal"}}, 1, 31, 4,
                     "--set boundary.cells=10 --set object.ball.radius=4 "
                     "--set object.plate.center_x=14");
    unsetenv("TEXFDTD_CUDA3D_K");
    cr_assert(strstr(cuda_last_out, "rank 1 of 3: z planes 9..22 (14)"), "split by cost:\n%s",
              cuda_last_out);
    cr_assert(strstr(cuda_last_out, "the temporal kernel takes no z CPML slab in a rank's ghost "
                                    "planes"), "%s", cuda_last_out);
    cr_assert(!strstr(cuda_last_out, "cuda 3D: temporal path ("), "%s", cuda_last_out);
}

Test(mpi, cuda_cpml_double_2_ranks_bit_identical, .timeout = 240)
{
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{2, NULL, NULL}, {2, NULL, "fused"}}, 2, 31, 8,
                     "--precision double");
}

/* The other two CPML strategies over ranks: regions (the interior box and
 * the 26 regions cut to the rank's planes and to each overlapped part) and
 * per-face (the face kernels over a z range), with NCCL and the host
 * exchange.  A first version let these two update H without waiting for
 * the Ex, Ey plane still in flight, and on 2 H200s regions differed from one
 * process in 39 754 Ex values: this is the test that caught it. */
Test(mpi, cuda_cpml_regions_2_ranks_both_halos_bit_identical, .timeout = 240)
{
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{2, NULL, NULL}, {2, "host", NULL}}, 2, 31, 4,
                     "--set boundary.strategy=regions");
}

Test(mpi, cuda_cpml_per_face_2_ranks_both_halos_bit_identical, .timeout = 240)
{
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{2, NULL, NULL}, {2, "host", NULL}}, 2, 31, 4,
                     "--set boundary.strategy=per-face");
}

/* 3 ranks with a 10-cell CPML, split by cost (9 + 14 + 9 planes, the CPML
 * planes counted 2.1 times) and evenly (TEXFDTD_SPLIT=even: 11 + 11 + 10).
 * Either way the z slabs cross rank boundaries: by cost the middle rank
 * holds planes of both (9 and 21, 22), evenly the upper slab (H planes
 * 21 .. 30) crosses 22, so the middle rank, with neighbours on both sides,
 * holds upper z psi (the objects shrunk into the smaller interior).  More
 * ranks than GPUs share them: the host-staged exchange. */
Test(mpi, cuda_3_ranks_z_cpml_across_a_boundary_bit_identical, .timeout = 300)
{
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{3, "host", NULL}}, 1, 31, 4,
                     "--set boundary.cells=10 --set object.ball.radius=4 "
                     "--set object.plate.center_x=14");
    cr_assert(strstr(cuda_last_out, "rank 1 of 3: z planes 9..22 (14)"), "split by cost:\n%s",
              cuda_last_out);
    setenv("TEXFDTD_SPLIT", "even", 1); /* the ranks inherit it through mpirun */
    check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{3, "host", NULL}}, 1, 31, 4,
                     "--set boundary.cells=10 --set object.ball.radius=4 "
                     "--set object.plate.center_x=14");
    unsetenv("TEXFDTD_SPLIT");
    cr_assert(strstr(cuda_last_out, "rank 1 of 3: z planes 11..21 (11)"), "even split:\n%s",
              cuda_last_out);
}

/* The same split with the other two strategies: the middle rank's regions
 * and z faces are cut to its planes. */
Test(mpi, cuda_3_ranks_regions_and_per_face_bit_identical, .timeout = 300)
{
    static const char *const extra[] = {"regions", "per-face"};
    for (int q = 0; q < 2; q++) {
        char opt[256];
        snprintf(opt, sizeof opt, "--set boundary.cells=10 --set object.ball.radius=4 "
                 "--set object.plate.center_x=14 --set boundary.strategy=%s", extra[q]);
        check_cuda_scene(cuda_cpml_scene, (const struct cuda_run[]){{3, "host", NULL}}, 1, 31, 4, opt);
    }
}

/* Mur on all faces, the plane wave at an angle (source slots in PEC and
 * dielectric cells on both ranks), a sphere across the boundary, an uneven
 * split (31 planes: 16 + 15). */
Test(mpi, cuda_mur_plane_wave_uneven_2_ranks_bit_identical, .timeout = 240)
{
    check_cuda_scene("[grid]\nnx = 40\nny = 36\nnz = 31\nsteps = 60\ncourant = 0.5\n"
                     "cells_per_wavelength = 10\n"
                     "[source]\nangle = 30\nfront_offset = 6\n"
                     "[boundary]\ntype = mur\n"
                     "[object.ball]\nshape = sphere\nmaterial = dielectric\neps_r = 3\n"
                     "center_x = 20\ncenter_y = 18\ncenter_z = 15.5\nradius = 7\n"
                     "[object.block]\nshape = box\nmaterial = pec\ncenter_x = 8\ncenter_y = 8\n"
                     "center_z = 14\nwidth = 3\nheight = 3\ndepth = 6\n"
                     "[output]\nsnapshots = 30\npng = false\n",
                     (const struct cuda_run[]){{2, NULL, NULL}, {2, NULL, "fused"}}, 2, 30, 4, NULL);
}

/* mu_r and poles over ranks on the cuda engine (cuda3d_mat.cu: the H slots
 * before Hx, Hy go up, the dispersive entries of a rank's bottom plane
 * after the Hx, Hy of the plane below have come), both exchanges. */
Test(mpi, cuda_mu_r_and_poles_2_ranks_bit_identical, .timeout = 240)
{
    check_cuda_scene(mat_scene, (const struct cuda_run[]){{2, NULL, NULL}, {2, "host", NULL}}, 2,
                     20, 4, NULL);
}

/* The monitors of the cuda engine over ranks (the gather kernel on each
 * rank, the rows through the host to rank 0): the far field and probes of
 * one process, bit for bit, every step path.  On the temporal path (K 3,
 * 4-plane chunks) the samples are written by the kernels, level by level,
 * each by its owner; over NCCL the rank-edge chunks and the chunks between
 * them are separate launches, each writing its own cells' rows; the
 * snapshot at step 40 cuts a block (one step then runs on the fused
 * path). */
Test(mpi, cuda_far_field_and_probes_2_ranks_bit_identical, .timeout = 300)
{
    need_gpu_and_mpi();
    check_far("cuda", NULL, (const int[]){2}, 1);
    setenv("TEXFDTD_CUDA3D", "fused", 1); /* the ranks inherit it through mpirun */
    check_far("cuda", NULL, (const int[]){2}, 1);
    setenv("TEXFDTD_CUDA3D", "temporal", 1);
    setenv("TEXFDTD_CUDA3D_K", "3", 1);
    setenv("TEXFDTD_CUDA3D_TBZ", "4", 1);
    check_far("cuda", NULL, (const int[]){2}, 1);
    unsetenv("TEXFDTD_CUDA3D");
    unsetenv("TEXFDTD_CUDA3D_K");
    unsetenv("TEXFDTD_CUDA3D_TBZ");
    cr_assert(strstr(far_last_out, "cuda 3D: temporal path ("), "not on the temporal path:\n%s", far_last_out);
    assert_overlap_iff_nccl(far_last_out, 2);
}
