/* test_sweep.c - `texfdtd sweep` end to end (core/sweep.c, docs/sweeps.md).
 *
 * A 2 x 3 sweep of a small 2D scene (64 x 64, 100 steps, a PEC cylinder
 * with a far-field monitor and a probe) on the cpu engine:
 *   - summary.csv has one row per run, in the documented order (the first
 *     --vary slowest), with the values, and its far.backscatter is the echo
 *     width that the run's own fields.h5 holds at angle + 180 degrees (read
 *     here with the HDF5 library); every run's fields are bit-identical to a
 *     separate `texfdtd run` with the same --set values;
 *   - a rerun skips finished runs: one whose marker is gone (and whose
 *     directory holds leftovers) is the only one done again, and the summary
 *     comes out the same; a different sweep into the same directory is
 *     refused (exit 2) unless --force;
 *   - SIGINT during a run stops the sweep (exit 130) with that run
 *     unfinished, and the same command then does every run, that one going
 *     on from its checkpoint to the same bits;
 *   - --only does just its runs and writes no summary, --collect writes it;
 *   - bad specs, keys and results exit 2 and write nothing;
 *   - under `mpirun -np 3` (a task farm: rank 0 hands out, two workers run)
 *     the summary and every run's fields are the same as the serial sweep's,
 *     and a 3D scene is run whole by each worker, not split over the ranks
 *     (skipped where mpirun or MPI is missing).
 * About 6 s on two cores. */
#include "helpers.h"

#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *scene_text =
    "[grid]\nnx = 64\nny = 64\nsteps = 100\ncourant = 0.5\ncells_per_wavelength = 12\n"
    "[source]\ntype = plane_wave\nangle = 0\nwaveform = modulated_gaussian\nfront_offset = 12\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 31.5\ncenter_y = 31.5\n"
    "radius = 6\n"
    "[monitor.far]\nangles = 72\n"
    "[probe.p]\nx = 12\ny = 40\n";

/* The sweep: source.angle 0, 90 (slowest) times grid.courant 0.4, 0.5, 0.6. */
#define VARY "--vary source.angle=0,90 --vary grid.courant=0.4:0.1:0.6"
#define RESULTS "--results far.backscatter,far.forward,probe.p.max,steps"
static const double angles[] = {0, 90};
static const char *const courants[] = {"0.4", "0.5", "0.6"};

static char *sweep_cmd(const char *scene, const char *out, const char *extra)
{
    char *cmd = NULL;
    cr_assert(asprintf(&cmd, "%s sweep %s " VARY " " RESULTS " --engine cpu --threads 1 --out %s %s",
                       texfdtd_bin(), scene, out, extra ? extra : "") > 0);
    return cmd;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = 0;
    fclose(f);
    return text;
}

/* Dataset `name` of f as raw bytes, *bytes its size (NULL if absent). */
static void *raw(hid_t f, const char *name, size_t *bytes)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    cr_assert(d >= 0, "no dataset %s", name);
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    *bytes = (size_t)H5Sget_simple_extent_npoints(sp) * H5Tget_size(t);
    void *buf = malloc(*bytes);
    cr_assert(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    H5Sclose(sp);
    H5Tclose(t);
    H5Dclose(d);
    return buf;
}

/* The fields and the monitors' datasets of two fields.h5, bit for bit. */
static void same_fields(const char *a, const char *b)
{
    static const char *const names[] = {"/ez", "/hx", "/hy", "/far/sigma_2d_over_lambda",
                                        "/probes/p/ez"};
    hid_t fa = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(b, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(fa >= 0 && fb >= 0, "open %s, %s", a, b);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t na, nb;
        unsigned char *da = raw(fa, names[k], &na), *db = raw(fb, names[k], &nb);
        bool excited = false;
        for (size_t i = 0; i < na; i++)
            excited = excited || da[i];
        cr_assert(excited, "%s %s: all zero", a, names[k]);
        cr_assert(na == nb && !memcmp(da, db, na), "%s: %s differs from %s", names[k], a, b);
        free(da);
        free(db);
    }
    H5Fclose(fa);
    H5Fclose(fb);
}

/* sigma_2D/lambda at angle phi (on the monitor's grid of 72) in file. */
static double sigma_at(const char *file, double phi)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(f >= 0);
    size_t n;
    double *s = raw(f, "/far/sigma_2d_over_lambda", &n);
    cr_assert_eq(n, 72 * sizeof(double));
    const double v = s[(int)(phi / 5.0 + 0.5) % 72];
    free(s);
    H5Fclose(f);
    return v;
}

/* Row `i` of summary.csv (after the header), as fields. */
static int csv_row(const char *csv, int i, char f[][64], int nf)
{
    const char *p = strchr(csv, '\n');
    for (int k = 0; k < i && p; k++)
        p = strchr(p + 1, '\n');
    cr_assert(p && p[1], "no row %d in\n%s", i, csv);
    p++;
    int n = 0;
    while (n < nf) {
        const size_t len = strcspn(p, ",\n");
        snprintf(f[n++], 64, "%.*s", (int)len, p);
        if (p[len] != ',')
            break;
        p += len + 1;
    }
    return n;
}

/* A test's folder, its scene file and the sweep's directory in it. */
struct place {
    char *dir, *scene;
    char out[600];
};

static struct place place_open(void)
{
    struct place p = {temp_dir_tagged("sweep"), write_temp_scene(scene_text), ""};
    snprintf(p.out, sizeof p.out, "%s/s", p.dir);
    return p;
}

static void place_close(struct place *p)
{
    remove_tree(p->dir);
    unlink(p->scene);
    free(p->scene);
    free(p->dir);
}

static void run_sweep(const char *scene, const char *out, const char *extra, char *log,
                      size_t len)
{
    char *cmd = sweep_cmd(scene, out, extra);
    const int rc = run_cmd(log, len, "%s", cmd);
    cr_assert_eq(rc, 0, "%s: exit %d\n%s", cmd, rc, log);
    free(cmd);
}

Test(sweep, product_summary_and_bits_of_single_runs)
{
    char log[16384], path[700], ref[700];
    struct place pl = place_open();
    char *dir = pl.dir, *scene = pl.scene, *out = pl.out;
    run_sweep(scene, out, NULL, log, sizeof log);
    cr_assert(strstr(log, "sweep: 6/6 run-0005 "), "%s", log);
    snprintf(path, sizeof path, "%s/summary.csv", out);
    char *csv = slurp(path);
    cr_assert(!strncmp(csv, "index,dir,source.angle,grid.courant,status,far.backscatter,"
                            "far.forward,probe.p.max,steps\n", 80), "%s", csv);
    int rows = 0;
    for (const char *p = csv; *p; p++)
        rows += *p == '\n';
    cr_assert_eq(rows, 7, "a header and 6 rows:\n%s", csv);
    for (int i = 0; i < 6; i++) {
        char f[12][64];
        cr_assert_eq(csv_row(csv, i, f, 12), 9, "row %d:\n%s", i, csv);
        char want[16];
        snprintf(want, sizeof want, "%d", i);
        cr_assert_str_eq(f[0], want);
        snprintf(want, sizeof want, "run-%04d", i);
        cr_assert_str_eq(f[1], want);
        snprintf(want, sizeof want, "%g", angles[i / 3]);
        cr_assert_str_eq(f[2], want, "row %d: the first --vary changes slowest", i);
        cr_assert_str_eq(f[3], courants[i % 3], "row %d", i);
        cr_assert_str_eq(f[4], "ok");
        cr_assert_str_eq(f[8], "100");
        /* the same run alone, bit for bit */
        snprintf(ref, sizeof ref, "%s/alone-%d", dir, i);
        cr_assert_eq(run_cmd(log, sizeof log, "%s run %s --engine cpu --threads 1 -q --set "
                                              "source.angle=%g --set grid.courant=%s --out %s",
                             texfdtd_bin(), scene, angles[i / 3], courants[i % 3], ref),
                     0, "%s", log);
        snprintf(path, sizeof path, "%s/run-%04d/fields.h5", out, i);
        strncat(ref, "/fields.h5", sizeof ref - strlen(ref) - 1);
        same_fields(path, ref);
        /* backscatter: the run's echo width at angle + 180 degrees */
        const double back = sigma_at(ref, angles[i / 3] + 180), fwd = sigma_at(ref, angles[i / 3]);
        cr_assert(back > 0 && fwd > 0);
        cr_assert_float_eq(strtod(f[5], NULL), back, 1e-9 * back, "row %d: %s vs %.10g", i, f[5],
                           back);
        cr_assert_float_eq(strtod(f[6], NULL), fwd, 1e-9 * fwd, "row %d", i);
    }
    /* the cylinder is symmetric under a quarter turn of the grid: the same
     * echo widths for incidence along +x and along +y */
    for (int c = 0; c < 3; c++) {
        char f0[12][64], f1[12][64];
        csv_row(csv, c, f0, 12);
        csv_row(csv, 3 + c, f1, 12);
        const double b0 = strtod(f0[5], NULL), b1 = strtod(f1[5], NULL);
        cr_assert_float_eq(b0, b1, 1e-4 * b0, "courant %s: %g vs %g", courants[c], b0, b1);
    }
    /* summary.h5 holds the same */
    snprintf(path, sizeof path, "%s/summary.h5", out);
    hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(h >= 0);
    size_t n;
    double *ang = raw(h, "/vary/source.angle", &n), *cou = raw(h, "/vary/grid.courant", &n);
    double *back = raw(h, "/results/far.backscatter", &n);
    cr_assert_eq(n, 6 * sizeof(double));
    for (int i = 0; i < 6; i++) {
        char f[12][64];
        csv_row(csv, i, f, 12);
        cr_assert_eq(ang[i], angles[i / 3]);
        cr_assert_eq(cou[i], strtod(courants[i % 3], NULL));
        cr_assert_float_eq(back[i], strtod(f[5], NULL), 1e-9 * back[i]);
    }
    free(ang), free(cou), free(back);
    H5Fclose(h);
    free(csv);
    place_close(&pl);
}

static time_t mtime(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s", path);
    return st.st_mtime;
}

Test(sweep, resume_redoes_only_unfinished_runs)
{
    char log[16384], path[700], path2[700];
    struct place pl = place_open();
    char *scene = pl.scene, *out = pl.out;
    run_sweep(scene, out, NULL, log, sizeof log);
    snprintf(path, sizeof path, "%s/summary.csv", out);
    char *first = slurp(path);
    /* run 4 stopped half-way: no marker, leftovers in its directory */
    snprintf(path, sizeof path, "%s/run-0004.done", out);
    cr_assert_eq(unlink(path), 0);
    snprintf(path, sizeof path, "%s/run-0004/leftover", out);
    FILE *f = fopen(path, "w");
    fclose(f);
    snprintf(path2, sizeof path2, "%s/run-0001/fields.h5", out);
    const time_t before = mtime(path2);
    sleep(1); /* mtimes in whole seconds */
    run_sweep(scene, out, NULL, log, sizeof log);
    cr_assert(strstr(log, "6 runs, 5 finished before, 1 to do"), "%s", log);
    cr_assert(strstr(log, "sweep: 1/1 run-0004 source.angle=90 grid.courant=0.5: ok"), "%s", log);
    cr_assert(!strstr(log, "run-0001 "), "finished runs are not run again:\n%s", log);
    cr_assert(!path_exists(path), "the unfinished run's directory is made anew");
    cr_assert_eq(mtime(path2), before, "run 1's fields are not rewritten");
    snprintf(path, sizeof path, "%s/summary.csv", out);
    char *second = slurp(path);
    cr_assert_str_eq(second, first, "the same summary after the resume");
    /* the same again: nothing to do */
    run_sweep(scene, out, NULL, log, sizeof log);
    cr_assert(strstr(log, "6 finished before, 0 to do"), "%s", log);
    /* a different sweep into the same directory: refused, then --force */
    char *cmd = NULL;
    cr_assert(asprintf(&cmd, "%s sweep %s --vary source.angle=0,45 --engine cpu --threads 1 "
                             "--out %s", texfdtd_bin(), scene, out) > 0);
    cr_assert_eq(run_cmd(log, sizeof log, "%s", cmd), 2, "%s", log);
    cr_assert(strstr(log, "made by a different sweep"), "%s", log);
    cr_assert_eq(run_cmd(log, sizeof log, "%s --force", cmd), 0, "%s", log);
    cr_assert(strstr(log, "2 runs, 0 finished before, 2 to do"), "%s", log);
    free(cmd);
    free(first);
    free(second);
    place_close(&pl);
}

Test(sweep, bad_input_exits_2_and_writes_nothing)
{
    static const struct {
        const char *args, *says;
    } cases[] = {
        {"--vary source.angle=0:0:10", "the step must be above 0"},
        {"--vary source.angle=10:5:0", "the range is empty"},
        {"--vary source.angle=0:5", "a range is A:STEP:B"},
        {"--vary source.angle=0,,5", "an empty value"},
        {"--vary source.bogus=1,2", "unknown key 'bogus'"},
        {"--vary source.angle=0,90 --vary grid.courant=0.5,0.9",
         "sweep run 1 (source.angle=0 grid.courant=0.9)"},
        {"--vary source.angle=0,90 --results far.bogus", "--results far.bogus: unknown result"},
        {"--vary source.angle=0,90 --results probe.q.max", "the scene has no [probe.q]"},
        {"--vary source.angle=0,90 --only 2", "--only: no run 2"},
        {"--vary source.angle=0,90 --threads 0", "--threads takes a number"},
        {"--vary source.angle=0,90 --vary source.angle=1,2", "varied twice"},
        {"", "nothing to vary"},
    };
    char log[16384];
    struct place pl = place_open();
    const char *scene = pl.scene, *out = pl.out;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int rc = run_cmd(log, sizeof log, "%s sweep %s %s --engine cpu --out %s",
                               texfdtd_bin(), scene, cases[k].args, out);
        cr_assert_eq(rc, 2, "%s: exit %d\n%s", cases[k].args, rc, log);
        cr_assert(strstr(log, cases[k].says), "%s: want '%s' in\n%s", cases[k].args,
                  cases[k].says, log);
        cr_assert(!path_exists(out), "%s: nothing may be written", cases[k].args);
    }
    /* --list writes nothing either */
    cr_assert_eq(run_cmd(log, sizeof log, "%s sweep %s " VARY " --list --out %s", texfdtd_bin(),
                         scene, out), 0, "%s", log);
    cr_assert(strstr(log, "4 run-0004 source.angle=90 grid.courant=0.5\n"), "%s", log);
    cr_assert(!path_exists(out));
    place_close(&pl);
}

Test(sweep, mpirun_task_farm_matches_serial)
{
#ifndef TEXFDTD_HAVE_MPI
    cr_skip_test("this build has no MPI (pkg-config ompi-c not found; Debian: libopenmpi-dev)");
#endif
    if (system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("mpirun is not installed here (Debian: openmpi-bin)");
    char log[16384], a[700], b[700], serial[600], farm[600], pre[700];
    struct place pl = place_open();
    const char *dir = pl.dir, *scene = pl.scene;
    snprintf(serial, sizeof serial, "%s/serial", dir);
    snprintf(farm, sizeof farm, "%s/farm", dir);
    run_sweep(scene, serial, NULL, log, sizeof log);
    /* mpirun's session directory under the test's own (tests/test_mpi.c says
     * why); no leak detection in the ranks under ASan (OpenMPI's plugins:
     * the Makefile's test-asan says why) */
    const char *asan = getenv("ASAN_OPTIONS");
    snprintf(pre, sizeof pre, "ASAN_OPTIONS=%s%sdetect_leaks=0 TMPDIR=%s timeout 120 mpirun "
             "--oversubscribe%s -np 3", asan ? asan : "", asan ? ":" : "", dir,
             geteuid() == 0 ? " --allow-run-as-root" : "");
    char *cmd = sweep_cmd(scene, farm, NULL);
    const int rc = run_cmd(log, sizeof log, "%s %s", pre, cmd);
    cr_assert_eq(rc, 0, "%s %s: exit %d\n%s", pre, cmd, rc, log);
    cr_assert(strstr(log, "by a farm of MPI ranks"), "%s", log);
    cr_assert(strstr(log, "sweep: 6/6 run-"), "%s", log);
    free(cmd);
    snprintf(a, sizeof a, "%s/summary.csv", serial);
    snprintf(b, sizeof b, "%s/summary.csv", farm);
    char *sa = slurp(a), *sb = slurp(b);
    cr_assert_str_eq(sb, sa, "the farm's summary is the serial one");
    for (int i = 0; i < 6; i++) {
        snprintf(a, sizeof a, "%s/run-%04d/fields.h5", serial, i);
        snprintf(b, sizeof b, "%s/run-%04d/fields.h5", farm, i);
        same_fields(a, b);
    }
    free(sa);
    free(sb);
    place_close(&pl);
}

/* A 3D scene in the farm: each worker runs it whole (the grid is not split
 * over the farm's ranks, which would print the rank-to-slab map), with the
 * fields of the same runs done by the serial sweep, bit for bit. */
Test(sweep, mpirun_task_farm_runs_3d_scenes_whole)
{
#ifndef TEXFDTD_HAVE_MPI
    cr_skip_test("this build has no MPI (pkg-config ompi-c not found; Debian: libopenmpi-dev)");
#endif
    if (system("command -v mpirun >/dev/null 2>&1") != 0)
        cr_skip_test("mpirun is not installed here (Debian: openmpi-bin)");
    static const char *const names[] = {"/ex", "/ey", "/ez", "/hx", "/hy", "/hz"};
    char log[16384], a[700], b[700], pre[700];
    char *dir = temp_dir_tagged("sweep");
    char *scene = write_temp_scene("[grid]\nnx = 24\nny = 24\nnz = 24\nsteps = 30\n"
                                   "[source]\ntype = point\ncenter_x = 12\ncenter_y = 12\n"
                                   "center_z = 12\nwaveform = gaussian\n"
                                   "[boundary]\ntype = cpml\ncells = 6\n");
    const char *vary = "--vary source.center_x=10,13 --engine cpu --threads 1 -q";
    cr_assert_eq(run_cmd(log, sizeof log, "%s sweep %s %s --out %s/serial", texfdtd_bin(), scene,
                         vary, dir), 0, "%s", log);
    const char *asan = getenv("ASAN_OPTIONS");
    snprintf(pre, sizeof pre, "ASAN_OPTIONS=%s%sdetect_leaks=0 TMPDIR=%s timeout 120 mpirun "
             "--oversubscribe%s -np 3", asan ? asan : "", asan ? ":" : "", dir,
             geteuid() == 0 ? " --allow-run-as-root" : "");
    cr_assert_eq(run_cmd(log, sizeof log, "%s %s sweep %s %s --verbose --out %s/farm", pre,
                         texfdtd_bin(), scene, vary, dir), 0, "%s", log);
    cr_assert(strstr(log, "steps in"), "--verbose shows the runs' own lines:\n%s", log);
    cr_assert(!strstr(log, "z planes"), "a run in the farm is not split:\n%s", log);
    for (int i = 0; i < 2; i++) {
        snprintf(a, sizeof a, "%s/serial/run-%04d/fields.h5", dir, i);
        snprintf(b, sizeof b, "%s/farm/run-%04d/fields.h5", dir, i);
        hid_t fa = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(b, H5F_ACC_RDONLY, H5P_DEFAULT);
        cr_assert(fa >= 0 && fb >= 0, "open %s, %s", a, b);
        for (size_t k = 0; k < 6; k++) {
            size_t na, nb;
            void *da = raw(fa, names[k], &na), *db = raw(fb, names[k], &nb);
            cr_assert(na == nb && !memcmp(da, db, na), "run %d %s differs", i, names[k]);
            free(da);
            free(db);
        }
        H5Fclose(fa);
        H5Fclose(fb);
    }
    remove_tree(dir);
    unlink(scene);
    free(scene);
    free(dir);
}

/* SIGINT while run 0 steps (placed without timing: TEXFDTD_TEST_STOP_AT
 * makes the run stop itself at step 50): the run stops with a checkpoint,
 * the sweep writes the summary of what finished (nothing) and exits 130;
 * the same command then does every run, run 0 going on from its
 * checkpoint, with the fields of run 0 done alone, bit for bit. */
Test(sweep, sigint_stops_the_sweep_and_a_rerun_finishes_it)
{
    char log[16384], path[700];
    struct place pl = place_open();
    char *dir = pl.dir, *scene = pl.scene, *out = pl.out;
    const pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setenv("TEXFDTD_TEST_STOP_AT", "50", 1);
        freopen("/dev/null", "w", stdout);
        snprintf(path, sizeof path, "%s/log", dir);
        freopen(path, "w", stderr);
        execl(texfdtd_bin(), texfdtd_bin(), "sweep", scene, "--vary", "source.angle=0,90",
              "--vary", "grid.courant=0.4:0.1:0.6", "--results",
              "far.backscatter,far.forward,probe.p.max,steps", "--engine", "cpu", "--threads",
              "1", "--out", out, (char *)NULL);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, WUNTRACED), pid);
    cr_assert(WIFSTOPPED(st), "the sweep ended (status 0x%x) before run 0's step 50", st);
    cr_assert_eq(kill(pid, SIGINT), 0);
    cr_assert_eq(kill(pid, SIGCONT), 0);
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    snprintf(path, sizeof path, "%s/log", dir);
    char *text = slurp(path);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "status 0x%x\n%s", st, text);
    cr_assert(strstr(text, "run-0000 source.angle=0 grid.courant=0.4: stopped"), "%s", text);
    cr_assert(!strstr(text, "run-0001"), "no run after the signal:\n%s", text);
    free(text);
    snprintf(path, sizeof path, "%s/run-0000.done", out);
    cr_assert(!path_exists(path), "a stopped run is not finished");
    snprintf(path, sizeof path, "%s/summary.csv", out);
    text = slurp(path);
    cr_assert(strstr(text, "\n0,run-0000,0,0.4,not run,,,,\n"), "%s", text);
    free(text);
    snprintf(path, sizeof path, "%s/run-0000/checkpoint.h5", out);
    cr_assert(path_exists(path), "the stopped run wrote its checkpoint");
    run_sweep(scene, out, NULL, log, sizeof log);
    cr_assert(strstr(log, "6 runs, 0 finished before, 6 to do"), "%s", log);
    cr_assert(strstr(log, "run-0000 source.angle=0 grid.courant=0.4: ok") &&
                  strstr(log, "(went on from its checkpoint)\n"), "%s", log);
    cr_assert(strstr(log, "sweep: 6 of 6 runs finished"), "%s", log);
    /* run 0, stopped and resumed, against the same run done alone */
    char ref[700];
    snprintf(ref, sizeof ref, "%s/alone", pl.dir);
    cr_assert_eq(run_cmd(log, sizeof log, "%s run %s --engine cpu --threads 1 -q --set "
                                          "source.angle=0 --set grid.courant=0.4 --out %s",
                         texfdtd_bin(), scene, ref), 0, "%s", log);
    strncat(ref, "/fields.h5", sizeof ref - strlen(ref) - 1);
    snprintf(path, sizeof path, "%s/run-0000/fields.h5", out);
    same_fields(path, ref);
    place_close(&pl);
}

/* Slurm array tasks: --only runs just its indices and writes no summary;
 * --collect runs nothing and writes it from the finished runs. */
Test(sweep, only_and_collect)
{
    char log[16384], path[700];
    struct place pl = place_open();
    char *scene = pl.scene, *out = pl.out;
    run_sweep(scene, out, "--only 4", log, sizeof log);
    run_sweep(scene, out, "--only 1,4", log, sizeof log);
    cr_assert(strstr(log, "1/1 run-0001 "), "run 4 is finished already:\n%s", log);
    snprintf(path, sizeof path, "%s/summary.csv", out);
    cr_assert(!path_exists(path), "--only writes no summary");
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/run-%04d", out, i);
        cr_assert_eq(path_exists(path), i == 1 || i == 4, "run %d", i);
    }
    run_sweep(scene, out, "--collect", log, sizeof log);
    cr_assert(strstr(log, "2 of 6 runs finished"), "%s", log);
    snprintf(path, sizeof path, "%s/summary.csv", out);
    char *csv = slurp(path);
    for (int i = 0; i < 6; i++) {
        char f[12][64];
        csv_row(csv, i, f, 12);
        cr_assert_str_eq(f[4], i == 1 || i == 4 ? "ok" : "not run", "row %d", i);
        cr_assert_eq(f[5][0] != 0, i == 1 || i == 4, "row %d: results only for finished runs", i);
    }
    free(csv);
    place_close(&pl);
}
