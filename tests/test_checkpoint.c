/* test_checkpoint.c - interrupted runs: a run killed with SIGKILL at a random
 * step and resumed from its last checkpoint, or stopped by SIGINT/SIGTERM
 * (exit 130, a checkpoint of that very step) and resumed, ends with a
 * fields.h5 bit-identical to that of an uninterrupted run, for the cpu, gl
 * and gl-compute engines, and across engines.
 *
 * The kill is placed without timing: TEXFDTD_TEST_STOP_AT=N makes the run
 * stop itself (SIGSTOP) after step N; the test then sends the signal.  The
 * random step comes from TEXFDTD_TEST_SEED, or the clock, and is printed
 * with every failure so a failing trial can be repeated. */
#include "helpers.h"

#include <errno.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

/* CPML, a dielectric rod, an oblique plane wave, the DFT monitor (two
 * frequencies), the far field, a flux box, two probes and two snapshots:
 * every kind of state a 2D engine keeps. */
static const char *scene_text =
    "[grid]\nnx = 64\nny = 56\nsteps = 240\n"
    "[source]\nangle = 30\n"
    "[boundary]\ntype = cpml\ncells = 8\n"
    "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
    "center_x = 32\ncenter_y = 28\nradius = 8\n"
    "[monitor.dft]\nstart_step = 100\nfrequencies = 1, 1.3\n"
    "[monitor.far]\nstart_step = 100\nangles = 72\nfrequencies = 0.9, 1.1\n"
    "[monitor.flux.box]\nx0 = 20\nx1 = 44\ny0 = 17\ny1 = 39\n"
    "[probe.a]\nx = 12\ny = 40\nevery = 7\n"
    "[probe.b]\nx = 33\ny = 29\nfields = all\ntotal = false\n"
    "[output]\nsnapshots = 60, 150\npng = false\n";
#define STEPS 240
#define EVERY 40
/* in its fields.h5: 5 fields at the root, /dft (3), 3 in each of 2
 * snapshots, /far (3), /flux/box (3), /probes/a (3), /probes/b (5) */
#define DATASETS_2D 28

/* 3D: CPML on all six faces, a dielectric sphere, the plane wave. */
static const char *scene_3d_text =
    "[grid]\nnx = 24\nny = 22\nnz = 20\nsteps = 120\n"
    "[source]\nangle = 20\n"
    "[boundary]\ntype = cpml\ncells = 5\n"
    "[object.ball]\nshape = sphere\nmaterial = dielectric\neps_r = 3\n"
    "center_x = 12\ncenter_y = 11\ncenter_z = 10\nradius = 3\n"
    "[output]\nsnapshots = 60\npng = false\n";

static char *temp_dir(void) { return temp_dir_tagged("ckpt"); }

static unsigned trial_seed(void)
{
    const char *s = getenv("TEXFDTD_TEST_SEED");
    return s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)getpid();
}

/* Does engine `name` open here?  (GL: only where EGL finds a device.) */
static bool engine_works(const char *name)
{
    struct test_setup t;
    setup_from_text(&t, "[grid]\nnx = 16\nny = 16\nsteps = 1\n", NULL, 0);
    char err[ERRLEN];
    struct engine *e = NULL;
    const struct engine_options o = {.precision = PRECISION_SINGLE, .device = -1};
    const bool ok = engine_create(name, &t.model, &o, &e, err, sizeof err) == 0;
    engine_destroy(e);
    setup_free(&t);
    if (!ok && getenv("TEXFDTD_REQUIRE_GPU"))
        cr_assert_fail("%s: %s (TEXFDTD_REQUIRE_GPU is set)", name, err);
    return ok;
}

/* Start `texfdtd run` in the background, stopping itself after step
 * stop_at (0: runs to the end); returns its pid. */
static pid_t start_run(const char *scene, const char *engine, const char *out, int stop_at)
{
    char every[16], stop[16];
    snprintf(every, sizeof every, "%d", EVERY);
    snprintf(stop, sizeof stop, "%d", stop_at);
    const pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (stop_at > 0)
            setenv("TEXFDTD_TEST_STOP_AT", stop, 1);
        freopen("/dev/null", "w", stdout);
        execl(texfdtd_bin(), texfdtd_bin(), "run", scene, "--engine", engine, "--out", out,
              "--checkpoint-every", every, "-q", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Wait until the run has stopped itself; fails if it ended instead. */
static void wait_stopped(pid_t pid, unsigned seed)
{
    int st;
    cr_assert_eq(waitpid(pid, &st, WUNTRACED), pid);
    cr_assert(WIFSTOPPED(st), "the run ended (status 0x%x) before its stop step (seed %u)", st,
              seed);
}

static long long checkpoint_step(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/checkpoint.h5", dir);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(f >= 0, "%s: cannot open", path);
    hid_t a = H5Aopen(f, "step", H5P_DEFAULT);
    long long step = -1;
    cr_assert(a >= 0 && H5Aread(a, H5T_NATIVE_LLONG, &step) >= 0);
    H5Aclose(a);
    H5Fclose(f);
    return step;
}

/* Every object under group path `g` of file fb is in fa, and the other way
 * round; datasets are equal byte for byte.  (Walked with H5Gopen/H5Dopen,
 * which read the same on every HDF5 version.)  Returns the datasets seen. */
static int compare_group(hid_t fa, hid_t fb, const char *g, const char *what)
{
    hid_t ga = H5Gopen2(fa, g, H5P_DEFAULT), gb = H5Gopen2(fb, g, H5P_DEFAULT);
    cr_assert(ga >= 0 && gb >= 0, "%s: group %s missing", what, g);
    H5G_info_t ia, ib;
    cr_assert(H5Gget_info(ga, &ia) >= 0 && H5Gget_info(gb, &ib) >= 0);
    cr_assert_eq(ia.nlinks, ib.nlinks, "%s: %s holds %llu objects, the uninterrupted run's %llu",
                 what, g, (unsigned long long)ib.nlinks, (unsigned long long)ia.nlinks);
    int seen = 0;
    for (hsize_t k = 0; k < ia.nlinks; k++) {
        char name[128], path[600];
        cr_assert(H5Lget_name_by_idx(ga, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name,
                                     H5P_DEFAULT) > 0);
        snprintf(path, sizeof path, "%s%s%s", g, strcmp(g, "/") ? "/" : "", name);
        H5E_BEGIN_TRY { /* a group or a dataset */
            hid_t sub = H5Gopen2(fa, path, H5P_DEFAULT);
            if (sub >= 0) {
                H5Gclose(sub);
                seen += compare_group(fa, fb, path, what);
                continue;
            }
        } H5E_END_TRY;
        hid_t da = H5Dopen2(fa, path, H5P_DEFAULT), db = H5Dopen2(fb, path, H5P_DEFAULT);
        cr_assert(da >= 0 && db >= 0, "%s: dataset %s missing", what, path);
        const size_t na = (size_t)H5Dget_storage_size(da), nb = (size_t)H5Dget_storage_size(db);
        cr_assert_eq(na, nb, "%s: %s sizes differ", what, path);
        unsigned char *a = malloc(na + 1), *b = malloc(nb + 1);
        hid_t ta = H5Dget_type(da);
        cr_assert(H5Dread(da, ta, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) >= 0
                  && H5Dread(db, ta, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0);
        const size_t es = H5Tget_size(ta);
        size_t diff = 0;
        for (size_t q = 0; q < na / es; q++)
            diff += memcmp(a + es * q, b + es * q, es) != 0;
        cr_assert_eq(diff, 0, "%s: %s: %zu of %zu values differ from the uninterrupted run", what,
                     path, diff, na / es);
        H5Tclose(ta);
        H5Dclose(da);
        H5Dclose(db);
        free(a);
        free(b);
        seen++;
    }
    H5Gclose(ga);
    H5Gclose(gb);
    return seen;
}

/* dir_b/fields.h5 holds exactly the datasets of dir_a/fields.h5 (`expect`
 * of them), bit for bit. */
static void assert_same_fields(const char *dir_a, const char *dir_b, int expect, const char *what)
{
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/fields.h5", dir_a);
    snprintf(pb, sizeof pb, "%s/fields.h5", dir_b);
    hid_t fa = H5Fopen(pa, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(pb, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(fa >= 0 && fb >= 0, "%s: cannot open %s or %s", what, pa, pb);
    cr_assert_eq(compare_group(fa, fb, "/", what), expect, "%s: datasets compared", what);
    H5Fclose(fa);
    H5Fclose(fb);
}

/* dir_b/name is dir_a/name byte for byte, or neither exists. */
static void assert_same_file(const char *dir_a, const char *dir_b, const char *name,
                             const char *what)
{
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/%s", dir_a, name);
    snprintf(pb, sizeof pb, "%s/%s", dir_b, name);
    FILE *a = fopen(pa, "rb"), *b = fopen(pb, "rb");
    cr_assert_eq(!a, !b, "%s: %s exists in one run only", what, name);
    if (!a)
        return;
    long line = 1;
    int ca, cb;
    do {
        ca = fgetc(a), cb = fgetc(b);
        cr_assert_eq(ca, cb, "%s: %s differs from the uninterrupted run's at line %ld", what, name,
                     line);
        line += ca == '\n';
    } while (ca != EOF);
    fclose(a);
    fclose(b);
}

static void reference_run(const char *scene, const char *engine, const char *out)
{
    char cmd_out[16384];
    cr_assert_eq(run_cmd(cmd_out, sizeof cmd_out, "%s run %s --engine %s --out %s -q", texfdtd_bin(),
                         scene, engine, out),
                 0, "%s", cmd_out);
}

static void resume(const char *dir, const char *engine, unsigned seed)
{
    char out[16384];
    const int rc = engine ? run_cmd(out, sizeof out, "%s resume %s --engine %s -q", texfdtd_bin(), dir,
                                    engine)
                          : run_cmd(out, sizeof out, "%s resume %s -q", texfdtd_bin(), dir);
    cr_assert_eq(rc, 0, "resume (seed %u): %s", seed, out);
    char path[600];
    snprintf(path, sizeof path, "%s/checkpoint.h5", dir);
    cr_assert(!path_exists(path), "a finished run removes its checkpoint");
    snprintf(path, sizeof path, "%s/.parts", dir);
    cr_assert(!path_exists(path), "a finished run removes its parts");
}

/* One trial: a temporary folder with an uninterrupted reference run of
 * `text` in ref/, and the run under test in run/, started with checkpoints
 * and stopped by itself at a random step in [lo, hi]; returns its pid. */
struct trial {
    unsigned seed;
    int stop_at;
    char *dir, *scene;
    char ref[600], run[600];
};

static pid_t trial_start(struct trial *tr, const char *engine, const char *text, int lo, int hi)
{
    tr->seed = trial_seed();
    srand(tr->seed);
    tr->stop_at = lo + rand() % (hi - lo + 1);
    tr->dir = temp_dir();
    tr->scene = write_temp_scene(text);
    snprintf(tr->ref, sizeof tr->ref, "%s/ref", tr->dir);
    snprintf(tr->run, sizeof tr->run, "%s/run", tr->dir);
    reference_run(tr->scene, engine, tr->ref);
    const pid_t pid = start_run(tr->scene, engine, tr->run, tr->stop_at);
    wait_stopped(pid, tr->seed);
    return pid;
}

/* Kill `engine` with SIGKILL at a random step of `text` (steps long,
 * `datasets` in its fields.h5), resume it on `resume_on` (NULL: the same
 * engine), compare with an uninterrupted run of `engine`. */
static void kill_and_resume_scene(const char *engine, const char *resume_on, const char *text,
                                  int steps, int datasets)
{
    if (!engine_works(engine) || (resume_on && !engine_works(resume_on)))
        cr_skip_test("no %s engine here", resume_on ? resume_on : engine);
    struct trial tr;
    const pid_t pid = trial_start(&tr, engine, text, EVERY + 1, steps - 1); /* after the first checkpoint */
    const unsigned seed = tr.seed;
    const int stop_at = tr.stop_at;
    char *dir = tr.dir, *ref = tr.ref, *run = tr.run, *scene = tr.scene;
    cr_assert_eq(kill(pid, SIGKILL), 0);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    char fields[700];
    snprintf(fields, sizeof fields, "%s/fields.h5", run);
    cr_assert(!path_exists(fields), "a killed run leaves no fields.h5");
    cr_assert_eq(checkpoint_step(run), stop_at / EVERY * EVERY,
                 "the last checkpoint before step %d (seed %u)", stop_at, seed);

    resume(run, resume_on, seed);
    char what[200];
    snprintf(what, sizeof what, "%s killed at step %d, resumed on %s (seed %u)", engine, stop_at,
             resume_on ? resume_on : engine, seed);
    assert_same_fields(ref, run, datasets, what);
    assert_same_file(ref, run, "probes.csv", what);
    assert_same_file(ref, run, "far_field.csv", what);
    assert_same_file(ref, run, "flux.csv", what);
    unlink(scene);
    free(scene);
    remove_tree(dir);
    free(dir);
}

static void kill_and_resume(const char *engine, const char *resume_on)
{
    kill_and_resume_scene(engine, resume_on, scene_text, STEPS, DATASETS_2D);
}

Test(checkpoint, cpu_3d_sigkill_at_a_random_step_then_resume)
{
    /* 6 final fields and 6 of the snapshot */
    kill_and_resume_scene("cpu", NULL, scene_3d_text, 120, 12);
}
Test(checkpoint, cpu_sigkill_at_a_random_step_then_resume) { kill_and_resume("cpu", NULL); }
Test(checkpoint, gl_sigkill_at_a_random_step_then_resume) { kill_and_resume("gl", NULL); }
Test(checkpoint, gl_compute_sigkill_at_a_random_step_then_resume)
{
    kill_and_resume("gl-compute", NULL);
}
/* The checkpoint layout is the CPU engine's whatever the engine: a GL run
 * resumes on the CPU engine and ends bit-identical to the GL run. */
Test(checkpoint, gl_run_resumed_on_cpu) { kill_and_resume("gl", "cpu"); }

/* The 2D cuda engine (skipped without a CUDA device, unless
 * TEXFDTD_REQUIRE_GPU): its padded, ping-pong device arrays (this scene runs
 * its fused path) checkpoint in the CPU engine's layout, resume on itself
 * and on the CPU engine, bit-identical to the uninterrupted cuda run. */
Test(checkpoint, cuda_sigkill_at_a_random_step_then_resume) { kill_and_resume("cuda", NULL); }
Test(checkpoint, cuda_run_resumed_on_cpu) { kill_and_resume("cuda", "cpu"); }

/* SIGINT or SIGTERM: the run finishes the step under way, writes a
 * checkpoint of exactly that step and exits with status 130. */
static void signal_and_resume_scene(const char *engine, int sig, const char *text)
{
    if (!engine_works(engine))
        cr_skip_test("no %s engine here", engine);
    struct trial tr;
    const pid_t pid = trial_start(&tr, engine, text, 1, STEPS - 1);
    const unsigned seed = tr.seed;
    const int stop_at = tr.stop_at;
    char *dir = tr.dir, *ref = tr.ref, *run = tr.run, *scene = tr.scene;
    cr_assert_eq(kill(pid, sig), 0);
    cr_assert_eq(kill(pid, SIGCONT), 0);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130,
              "%s at step %d: status 0x%x, expected exit 130 (seed %u)", strsignal(sig), stop_at,
              st, seed);
    const long long got = checkpoint_step(run);
    cr_assert_eq(got, stop_at, "the checkpoint is of step %lld, the signal ended step %d (seed %u)",
                 got, stop_at, seed);

    resume(run, NULL, seed);
    char what[200];
    snprintf(what, sizeof what, "%s stopped by %s at step %d (seed %u)", engine, strsignal(sig),
             stop_at, seed);
    assert_same_fields(ref, run, DATASETS_2D, what);
    assert_same_file(ref, run, "probes.csv", what);
    unlink(scene);
    free(scene);
    remove_tree(dir);
    free(dir);
}

static void signal_and_resume(const char *engine, int sig)
{
    signal_and_resume_scene(engine, sig, scene_text);
}

/* A scene file over 64 KiB (HDF5's limit for an attribute in its default
 * file format): its text goes into checkpoint.h5 and fields.h5 whole. */
Test(checkpoint, a_scene_file_over_64_kib_checkpoints_and_resumes)
{
    const char *pad = "# a comment line that makes the scene file long, as generated scenes are\n";
    const size_t n = 1000;
    char *text = malloc(strlen(scene_text) + n * strlen(pad) + 1);
    strcpy(text, scene_text);
    for (size_t k = 0; k < n; k++)
        strcat(text, pad);
    cr_assert_gt(strlen(text), 65536);
    signal_and_resume_scene("cpu", SIGINT, text);
    free(text);
}

Test(checkpoint, cpu_sigint_writes_a_checkpoint_and_exits_130)
{
    signal_and_resume("cpu", SIGINT);
}
Test(checkpoint, gl_sigterm_writes_a_checkpoint_and_exits_130)
{
    signal_and_resume("gl", SIGTERM);
}
Test(checkpoint, cuda_sigterm_writes_a_checkpoint_and_exits_130)
{
    signal_and_resume("cuda", SIGTERM);
}

Test(checkpoint, resume_refuses_what_cannot_be_resumed)
{
    char out[16384], *dir = temp_dir();
    cr_assert_eq(run_cmd(out, sizeof out, "%s resume %s", texfdtd_bin(), dir), 2);
    cr_assert(strstr(out, "checkpoint.h5: no checkpoint to resume from"), "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out, "%s resume %s --set grid.steps=5", texfdtd_bin(), dir), 2);
    cr_assert(strstr(out, "--set: the checkpoint fixes this"), "%s", out);
    /* not a checkpoint */
    char path[600];
    snprintf(path, sizeof path, "%s/checkpoint.h5", dir);
    FILE *f = fopen(path, "w");
    fputs("not HDF5\n", f);
    fclose(f);
    cr_assert_eq(run_cmd(out, sizeof out, "%s resume %s", texfdtd_bin(), dir), 2);
    cr_assert(strstr(out, "not an HDF5 file"), "%s", out);
    /* an engine that cannot checkpoint (CUDA 3D, where built; the 2D one can):
     * refused before anything runs */
    if (engine_find("cuda", 3)) {
        char *scene = write_temp_scene("[grid]\nnx = 12\nny = 12\nnz = 12\nsteps = 4\n");
        char sub[600];
        snprintf(sub, sizeof sub, "%s/cuda", dir);
        cr_assert_eq(run_cmd(out, sizeof out,
                             "%s run %s --engine cuda --out %s --checkpoint-every 2", texfdtd_bin(),
                             scene, sub),
                     2);
        cr_assert(strstr(out, "cannot write checkpoints"), "%s", out);
        cr_assert(!path_exists(sub), "nothing written");
        unlink(scene);
        free(scene);
    }
    remove_tree(dir);
    free(dir);
}

/* A blow-up (a NaN put into Ez at the centre after step 50, as an unstable
 * update would) stops the run with exit 1, the step, the field, the cell and
 * the likely cause, writes no fields, and keeps the last checkpoint, which
 * was finite: resuming from it gives the uninterrupted run's fields. */
Test(checkpoint, blowup_stops_the_run_and_keeps_the_last_checkpoint)
{
    char *dir = temp_dir(), ref[600], run[600], out[16384], path[700];
    char *scene = write_temp_scene(scene_text);
    snprintf(ref, sizeof ref, "%s/ref", dir);
    snprintf(run, sizeof run, "%s/run", dir);
    reference_run(scene, "cpu", ref);
    cr_assert_eq(run_cmd(out, sizeof out,
                         "TEXFDTD_TEST_POISON_AT=50 %s run %s --engine cpu --out %s "
                         "--checkpoint-every %d -q",
                         texfdtd_bin(), scene, run, EVERY),
                 1, "%s", out);
    cr_assert(strstr(out, "step 50: ez is not finite at cell (32, 28): the run blew up; likely "
                          "cause: the cell is in a dielectric (eps_r 4)"),
              "%s", out);
    snprintf(path, sizeof path, "%s/fields.h5", run);
    cr_assert(!path_exists(path), "no fields after a blow-up");
    cr_assert_eq(checkpoint_step(run), EVERY);
    resume(run, NULL, 0);
    assert_same_fields(ref, run, DATASETS_2D, "resumed after a blow-up");
    assert_same_file(ref, run, "probes.csv", "resumed after a blow-up");
    unlink(scene);
    free(scene);
    remove_tree(dir);
    free(dir);
}
