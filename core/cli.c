/* cli.c - the texfdtd command: run, devices, help. */
#define _GNU_SOURCE
#include "cli.h"
#include "decomp.h"
#include "engine.h"
#include "model.h"
#include "movie.h"
#include "output.h"
#include "scene.h"
#include "util.h"
#include "args.h"
#include "compare/compare.h"

#ifdef TEXFDTD_HAVE_GL
#include "gl/gl.h"
#endif

#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SETS 256

static const char main_usage[] =
    "usage: texfdtd COMMAND [options]\n"
    "\n"
    "2D TMz FDTD electromagnetics: the Yee scheme as render-to-texture passes on the GPU\n"
    "(OpenGL through EGL, headless) and as plain C on the CPU, bit-identical in float32.\n"
    "\n"
    "commands:\n"
    "  run SCENE [options]   run a scene file (see `texfdtd run --help`)\n"
    "  info SCENE [options]  check a scene: grid, stability, memory, estimated time\n"
    "  compare SCENE [opts]  run engines side by side, or against the exact solution\n"
    "  devices               list the GL devices EGL can open\n"
    "  engines               list the engines in this build\n"
    "  help [COMMAND]        this text, or a command's\n"
    "\n"
    "options:\n"
    "  -h, --help            this text\n"
    "  --version             program version and git hash\n"
    "\n"
    "exit status: 0 success, 1 failure while running, 2 bad input (nothing ran or was written)\n";

static const char run_usage[] =
    "usage: texfdtd run SCENE [options]\n"
    "\n"
    "Runs SCENE (an INI file, see scenes/) and writes under --out:\n"
    "  fields.h5        ez, hx, hy at the last step ([ny][nx], scattered field) and\n"
    "                   /snapshots/STEP/{ez,hx,hy}, with provenance attributes\n"
    "  ez_total_STEP.png  the total field Ez (scattered + incident), diverging colour map\n"
    "  summary.json     engine, device, grid, steps, seconds, Mcells/s\n"
    "\n"
    "options:\n"
    "  --engine NAME          cpu | gl | gl-compute (default: gl where a GL device works, else cpu)\n"
    "  --precision P          single | double (default single; double is cpu only)\n"
    "  --denormals D          cpu: flush | keep (default flush: FTZ+DAZ, as GPU shaders do)\n"
    "  --steps N              override [grid] steps\n"
    "  --set SECTION.KEY=VAL  override any scene key, e.g. --set grid.nx=512 (repeatable)\n"
    "  --out DIR              output directory (default out/SCENENAME)\n"
    "  --force                write into an existing, non-empty output directory\n"
    "  --device N             GPU index for gl engines (see `texfdtd devices`)\n"
    "  --shader-dir DIR       where the GLSL files are (default: installed copy, or ./shaders)\n"
    "  --threads N            cpu: OpenMP threads (default: all cores)\n"
    "  --dry-run              check the scene and the memory it needs, run nothing\n"
    "  --progress             progress lines even when stderr is not a terminal\n"
    "  --json                 print summary.json on stdout at the end\n"
    "  --movie NAME           a movie of the total field, NAME.mp4 or NAME.gif in the --out\n"
    "                         directory (frames coloured by the engine, encoded by ffmpeg)\n"
    "  --window               also show the frames live in a window (needs a display and\n"
    "                         ffplay); the run stays headless, closing the window is fine\n"
    "  --every K              a movie or window frame every K steps (default 10)\n"
    "  --fps F                movie frames per second (default 25)\n"
    "  -q, --quiet            no informational messages\n"
    "  -h, --help             this text\n"
    "\n"
    "MPI: `mpirun -np P texfdtd run SCENE --engine cpu` splits a 3D grid into P slabs along z\n"
    "(nz >= 2P), one rank each, bit-identical to one process; rank 0 writes the files\n"
    "(docs/mpi.md).  The 2D engines stay single-device: a 2D scene needs one rank.\n";

struct run_args {
    const char *scene;
    const char *engine;
    const char *out;
    const char *shader_dir;
    const char *movie;
    int every, fps;
    const char *sets[MAX_SETS];
    int nset;
    char steps_set[64];
    enum precision precision;
    enum denormals denormals;
    int device, threads;
    bool force, dry_run, progress, quiet, precision_given, json, window;
};

static int bad(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "texfdtd: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see `texfdtd %s --help`)\n", cmd);
    return EXIT_BADINPUT;
}

static int parse_run_args(int argc, char **argv, struct run_args *a)
{
    memset(a, 0, sizeof *a);
    a->device = -1;
    a->every = 10;
    a->fps = 25;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(run_usage, stdout);
            exit(EXIT_OK);
        } else if (!strcmp(arg, "--force")) {
            a->force = true;
        } else if (!strcmp(arg, "--dry-run")) {
            a->dry_run = true;
        } else if (!strcmp(arg, "--progress")) {
            a->progress = true;
        } else if (!strcmp(arg, "--json")) {
            a->json = true;
        } else if (!strcmp(arg, "--window")) {
            a->window = true;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = true;
        } else if (is_opt(arg, "--engine")) {
            if (!(a->engine = opt_value("--engine", argc, argv, &i)))
                return bad("run", "%s needs a value", arg);
        } else if (is_opt(arg, "--out")) {
            if (!(a->out = opt_value("--out", argc, argv, &i)) || !*a->out)
                return bad("run", "%s needs a directory", arg);
        } else if (is_opt(arg, "--movie")) {
            char merr[ERRLEN];
            if (!(a->movie = opt_value("--movie", argc, argv, &i)))
                return bad("run", "%s needs a file name such as wave.mp4", arg);
            if (movie_check_name(a->movie, merr, sizeof merr))
                return bad("run", "%s", merr);
        } else if (is_opt(arg, "--every")) {
            if (!(v = opt_value("--every", argc, argv, &i)) || parse_int_arg(v, 1, 1000000000, &a->every))
                return bad("run", "--every takes a whole number of steps from 1, not '%s'", v ? v : "");
        } else if (is_opt(arg, "--fps")) {
            if (!(v = opt_value("--fps", argc, argv, &i)) || parse_int_arg(v, 1, 240, &a->fps))
                return bad("run", "--fps takes a number from 1 to 240, not '%s'", v ? v : "");
        } else if (is_opt(arg, "--shader-dir")) {
            if (!(a->shader_dir = opt_value("--shader-dir", argc, argv, &i)))
                return bad("run", "%s needs a directory", arg);
        } else if (is_opt(arg, "--set")) {
            if (!(v = opt_value("--set", argc, argv, &i)))
                return bad("run", "%s needs SECTION.KEY=VALUE", arg);
            if (a->nset == MAX_SETS)
                return bad("run", "more than %s --set options", "256");
            a->sets[a->nset++] = v;
        } else if (is_opt(arg, "--steps")) {
            int n;
            if (!(v = opt_value("--steps", argc, argv, &i)) || parse_int_arg(v, 0, 1000000000, &n))
                return bad("run", "--steps takes a whole number from 0 to 1000000000, not '%s'",
                           v ? v : "");
            snprintf(a->steps_set, sizeof a->steps_set, "grid.steps=%d", n);
        } else if (is_opt(arg, "--precision")) {
            v = opt_value("--precision", argc, argv, &i);
            if (v && !strcmp(v, "single"))
                a->precision = PRECISION_SINGLE;
            else if (v && !strcmp(v, "double"))
                a->precision = PRECISION_DOUBLE;
            else
                return bad("run", "--precision takes single or double, not '%s'", v ? v : "");
            a->precision_given = true;
        } else if (is_opt(arg, "--denormals")) {
            v = opt_value("--denormals", argc, argv, &i);
            if (v && !strcmp(v, "flush"))
                a->denormals = DENORMALS_FLUSH;
            else if (v && !strcmp(v, "keep"))
                a->denormals = DENORMALS_KEEP;
            else
                return bad("run", "--denormals takes flush or keep, not '%s'", v ? v : "");
        } else if (is_opt(arg, "--device")) {
            if (!(v = opt_value("--device", argc, argv, &i)) || parse_int_arg(v, 0, 1023, &a->device))
                return bad("run", "--device takes a device index (see `texfdtd devices`), not '%s'",
                           v ? v : "");
        } else if (is_opt(arg, "--threads")) {
            if (!(v = opt_value("--threads", argc, argv, &i)) || parse_int_arg(v, 1, 4096, &a->threads))
                return bad("run", "--threads takes a number from 1 to 4096, not '%s'", v ? v : "");
        } else if (arg[0] == '-' && arg[1]) {
            return bad("run", "unknown option '%s'", arg);
        } else if (!a->scene) {
            a->scene = arg;
        } else {
            return bad("run", "one scene file only; '%s' is extra", arg);
        }
    }
    if (!a->scene)
        return bad("run", "%s", "no scene file given");
    /* --steps goes last so that it wins over a --set of the same key */
    if (a->steps_set[0])
        a->sets[a->nset++] = a->steps_set;
    return EXIT_OK;
}

static double mem_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    double kb = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024.0;
}

/* The scene file as read, plus the overrides: stored with every output. */
static char *scene_text(const char *path, const char *const *sets, int nset)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    FILE *in = fopen(path, "r");
    char buf[4096];
    size_t n;
    while (in && (n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    if (in)
        fclose(in);
    for (int i = 0; i < nset; i++)
        fprintf(out, "\n# --set %s", sets[i]);
    fclose(out);
    return text;
}

static const char *default_engine(const struct run_args *a)
{
    if (a->precision == PRECISION_DOUBLE)
        return "cpu";
#ifdef TEXFDTD_HAVE_GL
    char err[ERRLEN];
    if (gl_probe(a->device, err, sizeof err) == 0)
        return "gl";
    log_info("no usable GL device (%s): using the cpu engine", err);
#endif
    return "cpu";
}

struct progress {
    bool tty, lines;
    double start, last;
};

static void progress_show(struct progress *p, const struct scene *s, int step, double busy,
                          bool final)
{
    const double t = now_seconds();
    if (!p->tty && !p->lines)
        return;
    if (!final && t - p->last < (p->tty ? 0.5 : 10.0))
        return;
    p->last = t;
    const double cells = (double)s->nx * s->ny * s->nz;
    const double rate = busy > 0 ? cells * step / busy / 1e6 : 0;
    const double left = step > 0 ? (t - p->start) * (s->steps - step) / step : 0;
    fprintf(stderr, "%sstep %d/%d  %.0f Mcells/s  %.1f s left%s", p->tty ? "\r" : "", step,
            s->steps, rate, left, p->tty ? "   " : "\n");
    if (p->tty && final)
        fputc('\n', stderr);
}

/* What a run split over several MPI ranks cannot do, said before anything
 * runs; the same answer on every rank. */
static int mpi_refuse(const struct run_args *a, const struct scene *s, const char *engine,
                      char *err, size_t errlen)
{
    const int P = decomp_size();
    const struct engine_ops *ops = engine_find(engine, scene_is_3d(s) ? 3 : 2);
    if (!scene_is_3d(s))
        return seterr(err, errlen, "%s is a 2D scene: the 2D engines stay single-device, run it "
                                   "as one process, not under mpirun with %d ranks", s->path, P);
    if (!ops || !(ops->caps & ENGINE_CAP_MPI))
        return seterr(err, errlen, "engine %s does not split 3D grids over MPI ranks; under "
                                   "mpirun with %d ranks use --engine cpu (docs/mpi.md)", engine, P);
    if (a->movie || a->window)
        return seterr(err, errlen, "--movie and --window need one process, not %d MPI ranks", P);
    if (s->nz < 2 * P)
        return seterr(err, errlen, "%s: %d ranks need nz >= %d (2 z planes a rank), not %d",
                      s->path, P, 2 * P, s->nz);
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    struct run_args a;
    int rc = parse_run_args(argc, argv, &a);
    if (rc)
        return rc;
    log_set_quiet(a.quiet || decomp_rank() != 0); /* MPI: rank 0 speaks for the job */

    char err[ERRLEN], b1[32], b2[32];
    struct scene s;
    if (scene_load(&s, a.scene, a.sets, a.nset, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BADINPUT;
    }
    rc = EXIT_BADINPUT;
    struct model m = {0};
    struct engine *e = NULL;
    struct h5out *h5 = NULL;
    struct movie *mv = NULL, *win = NULL;
    char *text = NULL;
    char outdir[4096];
    snprintf(outdir, sizeof outdir, "%s", a.out ? a.out : "");
    if (!a.out)
        snprintf(outdir, sizeof outdir, "out/%s", s.name);

    const char *engine = a.engine ? a.engine : default_engine(&a);
    const struct engine_ops *ops = engine_find(engine, 0);
    if (!ops) {
        engine_create(engine, NULL, NULL, &e, err, sizeof err); /* fills the message */
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (decomp_size() > 1 && mpi_refuse(&a, &s, engine, err, sizeof err)) { /* MPI */
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }

    /* memory, before allocating anything large */
    const double cells = (double)s.nx * (double)s.ny * (double)s.nz;
    enum field fl[6];
    const double need = cells * (scene_fields(&s, fl) * (double)precision_size(a.precision) + 1.0);
    const double avail = mem_available_bytes();
    char dims[64];
    snprintf(dims, sizeof dims, s.nz > 1 ? "%d x %d x %d" : "%d x %d", s.nx, s.ny, s.nz);
    log_info("%s: %s cells, %d steps, %s precision, engine %s; host memory %s (%.0f bytes "
             "per cell)",
             a.scene, dims, s.steps, precision_name(a.precision), engine,
             fmt_bytes(need, b1, sizeof b1), need / cells);
    if (avail > 0 && need > avail) {
        fprintf(stderr, "texfdtd: %s: the grid needs %s of host memory, %s is available\n",
                a.scene, fmt_bytes(need, b1, sizeof b1), fmt_bytes(avail, b2, sizeof b2));
        goto out;
    }
    if (a.window && !movie_display_available()) {
        fprintf(stderr, "texfdtd: --window needs a display ($DISPLAY or $WAYLAND_DISPLAY) and "
                        "ffplay (Debian: apt-get install ffmpeg); without them, use --movie\n");
        goto out;
    }
    if (a.movie && !movie_ffmpeg_available()) {
        fprintf(stderr, "texfdtd: --movie needs ffmpeg, which is not installed "
                        "(Debian: apt-get install ffmpeg)\n");
        goto out;
    }
    if (a.dry_run) {
        log_info("dry run: the scene is valid; nothing run, nothing written");
        rc = EXIT_OK;
        goto out;
    }
    /* MPI: rank 0 owns the output directory, every rank follows its verdict;
     * from here on a rank's failure is its own (decomp.h) */
    const int dir_rc = decomp_rank() == 0 ? outdir_check(outdir, a.force, err, sizeof err) : 0;
    if (dir_rc)
        fprintf(stderr, "texfdtd: %s\n", err);
    if (decomp_agree(dir_rc))
        goto out;
    decomp_unmute();
    if (model_build(&m, &s, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    struct engine_options eo = {.precision = a.precision,
                                .denormals = a.denormals,
                                .device = a.device,
                                .shader_dir = a.shader_dir,
                                .threads = a.threads};
    if (engine_create(engine, &m, &eo, &e, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    struct engine_info info;
    engine_describe(e, &info);
    log_info("engine %s on %s%s%s", info.engine, info.device, info.detail[0] ? "; " : "",
             info.detail);

    /* from here on, failures are failures while running */
    rc = EXIT_RUNTIME;
    if (make_dirs(outdir, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    text = scene_text(a.scene, a.sets, a.nset);
    struct provenance prov;
    provenance_init(&prov, &s, text, e);
    if (h5out_open(&h5, outdir, &prov, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }

    if (a.movie && movie_open(&mv, outdir, a.movie, s.nx, s.ny, a.fps, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (a.window && movie_open_window(&win, s.name, s.nx, s.ny, a.fps, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (win)
        log_info("live window: a frame every %d steps (closing it does not stop the run)",
                 a.every);
    struct progress pr = {.tty = isatty(2) && !a.quiet && decomp_rank() == 0,
                          .lines = a.progress && decomp_rank() == 0}; /* MPI: rank 0 only */
    pr.start = pr.last = now_seconds();
    double busy = 0;
    int batch = 1, next_snap = 0;
    while (e->step < s.steps || next_snap < s.nsnapshots) {
        int stop = next_snap < s.nsnapshots ? s.snapshots[next_snap] : s.steps;
        if (mv || win) {
            const int frame = (e->step / a.every + 1) * a.every;
            stop = frame < stop ? frame : stop;
        }
        if (e->step < stop) {
            int n = stop - e->step < batch ? stop - e->step : batch;
            const double t0 = now_seconds();
            if (engine_step(e, n, err, sizeof err)) {
                fprintf(stderr, "\ntexfdtd: step %d: %s\n", e->step, err);
                goto out;
            }
            const double dt = now_seconds() - t0;
            busy += dt;
            /* a blow-up stops the run at once, saying where (fields on the
             * host are scanned in place, a small cost next to a batch) */
            enum field badf;
            size_t badc;
            const int fin = engine_check_finite(e, &badf, &badc, err, sizeof err);
            if (fin) {
                if (fin > 0)
                    fprintf(stderr,
                            "\ntexfdtd: step %d: %s is not finite at cell (%zu, %zu): the run "
                            "blew up (an unstable scene: check courant against the stability "
                            "limit, conformal_min, and the CPML parameters); nothing is "
                            "written\n",
                            e->step, field_name(badf), badc % (size_t)s.nx,
                            badc / (size_t)s.nx % (size_t)s.ny);
                else
                    fprintf(stderr, "\ntexfdtd: step %d: %s\n", e->step, err);
                goto out;
            }
            /* aim at about 0.2 s per batch, so progress and snapshots stay responsive */
            if (dt < 0.1 && batch < (1 << 20))
                batch *= 2;
            else if (dt > 0.4 && batch > 1)
                batch /= 2;
            progress_show(&pr, &s, e->step, busy, false);
            const bool frame = e->step % a.every == 0 || e->step == s.steps;
            if (mv && frame && movie_frame(mv, e, err, sizeof err)) {
                fprintf(stderr, "\ntexfdtd: %s\n", err);
                goto out;
            }
            if (win && frame && movie_frame(win, e, err, sizeof err)) {
                log_info("%s; the run goes on", err);
                movie_abort(win);
                win = NULL;
            }
            continue;
        }
        /* at a snapshot step */
        char group[64], png[4200];
        snprintf(group, sizeof group, "/snapshots/%d", e->step);
        if (h5out_write_fields(h5, e, group, err, sizeof err)
            || (s.png && png_write_total_field(e, outdir, png, sizeof png, err, sizeof err))) {
            fprintf(stderr, "\ntexfdtd: %s\n", err);
            goto out;
        }
        next_snap++;
    }
    progress_show(&pr, &s, e->step, busy, true);
    char png[4200] = "";
    if (h5out_write_fields(h5, e, "/", err, sizeof err)
        || (s.png && png_write_total_field(e, outdir, png, sizeof png, err, sizeof err))) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (win) {
        struct movie *w2 = win;
        win = NULL;
        movie_close(w2, err, sizeof err);
    }
    if (mv) {
        struct movie *m2 = mv;
        mv = NULL;
        if (movie_close(m2, err, sizeof err)) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
    }
    struct h5out *closing = h5;
    h5 = NULL;
    if (h5out_close(closing, err, sizeof err)
        || summary_write(outdir, &prov, s.steps, busy, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (a.json) {
        char path[4200], buf[4096];
        snprintf(path, sizeof path, "%s/summary.json", outdir);
        FILE *f = fopen(path, "r");
        size_t n;
        while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, n, stdout);
        if (f)
            fclose(f);
    }
    log_info("%d steps in %.3f s: %.1f Mcells/s; wrote %s/fields.h5, summary.json%s", s.steps,
             busy, busy > 0 ? cells * s.steps / busy / 1e6 : 0.0, outdir,
             s.png ? " and PNG pictures" : "");
    rc = EXIT_OK;
out:
    movie_abort(mv);
    movie_abort(win);
    h5out_abort(h5);
    engine_destroy(e);
    model_free(&m);
    scene_free(&s);
    free(text);
    return rc;
}

static const char info_usage[] =
    "usage: texfdtd info SCENE [--set SECTION.KEY=VAL]... [--steps N] [--json]\n"
    "\n"
    "Checks SCENE and prints what a run would be: grid, time step and stability, source,\n"
    "boundary, objects, memory per engine, and an estimate of the CPU engine's time\n"
    "(from a short timed run on this machine).  Runs nothing else, writes nothing.\n"
    "  --json    the same as one JSON object on stdout\n";

/* Mcells/s of the CPU engine on this machine: 200 steps of a 256^2 vacuum
 * (2D) or 50 steps of a 64^3 one (3D). */
static double cpu_rate_here(bool d3)
{
    char err[ERRLEN];
    const char *text = d3 ? "[grid]\nnx = 64\nny = 64\nnz = 64\nsteps = 50\n"
                          : "[grid]\nnx = 256\nny = 256\nsteps = 200\n";
    const int steps = d3 ? 50 : 200;
    const double cells = d3 ? 64.0 * 64 * 64 : 256.0 * 256;
    struct scene s;
    struct model m;
    struct engine *e = NULL;
    double rate = 0;
    const struct engine_options o = {.precision = PRECISION_SINGLE};
    if (scene_load_text(&s, "calibration", text, strlen(text), NULL, 0, err, sizeof err) == 0) {
        if (model_build(&m, &s, err, sizeof err) == 0) {
            if (engine_create("cpu", &m, &o, &e, err, sizeof err) == 0) {
                engine_step(e, 10, err, sizeof err); /* warm-up */
                const double t0 = now_seconds();
                engine_step(e, steps, err, sizeof err);
                const double dt = now_seconds() - t0;
                rate = dt > 0 ? cells * steps / dt / 1e6 : 0;
                engine_destroy(e);
            }
            model_free(&m);
        }
        scene_free(&s);
    }
    return rate;
}

static int cmd_info(int argc, char **argv)
{
    const char *scene = NULL, *sets[MAX_SETS];
    char steps_set[64] = "";
    int nset = 0;
    bool json = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(info_usage, stdout);
            return EXIT_OK;
        } else if (!strcmp(arg, "--json")) {
            json = true;
        } else if (is_opt(arg, "--set")) {
            if (!(v = opt_value("--set", argc, argv, &i)))
                return bad("info", "%s needs SECTION.KEY=VALUE", arg);
            if (nset == MAX_SETS - 1)
                return bad("info", "more than %s --set options", "255");
            sets[nset++] = v;
        } else if (is_opt(arg, "--steps")) {
            int n;
            if (!(v = opt_value("--steps", argc, argv, &i)) || parse_int_arg(v, 0, 1000000000, &n))
                return bad("info", "--steps takes a whole number from 0 to 1000000000, not '%s'",
                           v ? v : "");
            snprintf(steps_set, sizeof steps_set, "grid.steps=%d", n);
        } else if (arg[0] == '-' && arg[1]) {
            return bad("info", "unknown option '%s'", arg);
        } else if (!scene) {
            scene = arg;
        } else {
            return bad("info", "one scene file only; '%s' is extra", arg);
        }
    }
    if (!scene)
        return bad("info", "%s", "no scene file given");
    if (steps_set[0])
        sets[nset++] = steps_set;
    char err[ERRLEN];
    struct scene s;
    if (scene_load(&s, scene, sets, nset, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BADINPUT;
    }
    static const char *const btype[] = {"pec", "cpml", "mur"};
    static const char *const shapes[] = {"rectangle", "circle", "box", "sphere"};
    const bool d3 = scene_is_3d(&s);
    const double cells = (double)s.nx * s.ny * s.nz, updates = cells * s.steps;
    enum field fl[6];
    const int nf = scene_fields(&s, fl);
    const double limit = d3 ? COURANT_LIMIT_3D : COURANT_LIMIT_2D;
    const double period = s.cells_per_wavelength / s.courant;
    /* memory: fields (+ CPML psi, DFT) per engine; the GL engines keep two of
     * each texture (ping-pong) */
    const double psi = s.boundary == BOUNDARY_CPML
                           ? (d3 ? 12.0 : 4.0) * 2.0 * s.cpml_cells
                                 * (d3 ? (double)s.nx * s.ny + (double)s.ny * s.nz
                                             + (double)s.nx * s.nz
                                       : (double)s.nx + s.ny)
                           : 0.0;
    const double dft = s.dft ? 2.0 * cells : 0.0;
    const double cpu1 = cells * (nf + 1.0 / 4) * 4 + psi * 4 + dft * 4;
    const double cpu2 = cells * (nf * 8 + 1.0) + psi * 8 + dft * 8;
    const double gl = d3 ? 0 : cells * (2 * 12 + 1) + psi * 8 + dft * 8;
    const double rate = cpu_rate_here(d3);
    const double est = rate > 0 ? updates / (rate * 1e6) : 0;
    char b1[32], b2[32], b3[32];
    if (json) {
        printf("{\n  \"scene\": ");
        json_string(stdout, s.path);
        printf(",\n  \"dimensions\": %d,\n  \"nx\": %d,\n  \"ny\": %d,\n  \"nz\": %d,\n"
               "  \"steps\": %d,\n  \"cells\": %.0f,\n  \"courant\": %g,\n"
               "  \"courant_limit\": %.6f,\n  \"cells_per_wavelength\": %g,\n"
               "  \"period_steps\": %g,\n  \"boundary\": \"%s\",\n  \"objects\": %d,\n"
               "  \"dft\": %s,\n  \"memory_bytes\": {\"cpu_single\": %.0f, \"cpu_double\": %.0f%s",
               d3 ? 3 : 2, s.nx, s.ny, s.nz, s.steps, cells, s.courant, limit,
               s.cells_per_wavelength, period, btype[s.boundary], s.nobjects,
               s.dft ? "true" : "false", cpu1, cpu2, d3 ? "" : ", \"gl\": ");
        if (!d3)
            printf("%.0f", gl);
        printf("},\n  \"cpu_mcells_per_s_here\": %.1f,\n  \"cpu_seconds_estimate\": %.3f\n}\n",
               rate, est);
    } else {
        printf("scene       %s (%s)\n", s.path, d3 ? "3D" : "2D TMz");
        char dims[64];
        snprintf(dims, sizeof dims, d3 ? "%d x %d x %d" : "%d x %d", s.nx, s.ny, s.nz);
        printf("grid        %s cells, %d steps, %.3g cell updates\n", dims, s.steps, updates);
        printf("time step   courant %g (stability limit %.4f), %g cells per wavelength, "
               "period %g steps\n",
               s.courant, limit, s.cells_per_wavelength, period);
        printf("            dx = %.4g m, dt = %.4g s at %.4g Hz\n", scene_dx(&s), scene_dt(&s),
               s.frequency_hz);
        if (s.source_type == SOURCE_PLANE_WAVE)
            printf("source      plane wave, angle %g deg, amplitude %g, ramp %g periods\n",
                   s.angle_deg, s.amplitude, s.ramp_periods);
        else
            printf("source      point at (%g, %g%s), %s\n", s.point_x, s.point_y, d3 ? ", z" : "",
                   s.waveform == WAVEFORM_GAUSSIAN ? "gaussian" : "sine");
        printf("boundary    %s", btype[s.boundary]);
        if (s.boundary == BOUNDARY_CPML)
            printf(", %d cells", s.cpml_cells);
        printf("%s\n", s.conformal_pec ? "; conformal PEC objects" : "");
        for (int k = 0; k < s.nobjects; k++) {
            const struct scene_object *o = &s.objects[k];
            printf("object      %s: %s %s", o->name,
                   o->material == MATERIAL_PEC ? "pec" : "dielectric", shapes[o->shape]);
            if (o->material == MATERIAL_DIELECTRIC)
                printf(" eps_r %g", o->eps_r);
            printf(" at (%g, %g)\n", o->center_x, o->center_y);
        }
        if (s.dft)
            printf("monitor     DFT of Ez over steps %d .. %d\n", s.dft_start + 1, s.steps);
        printf("memory      cpu single %s, cpu double %s", fmt_bytes(cpu1, b1, sizeof b1),
               fmt_bytes(cpu2, b2, sizeof b2));
        if (!d3)
            printf(", gl %s (on the GPU)", fmt_bytes(gl, b3, sizeof b3));
        printf("\n");
        if (rate > 0)
            printf("estimate    cpu engine: %.1f s at %.0f Mcells/s (measured here just now on a "
                   "%s vacuum; GPU engines: see docs/performance.md)\n",
                   est, rate, d3 ? "64^3" : "256^2");
    }
    scene_free(&s);
    return EXIT_OK;
}

static int cmd_devices(int argc, char **argv)
{
    (void)argv;
    if (argc > 0 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
        puts("usage: texfdtd devices\n\nLists the GPU devices EGL can open (index, vendor, "
             "renderer, GL version, CUDA device).\nPick one with `texfdtd run --device N`.");
        return EXIT_OK;
    }
#ifdef TEXFDTD_HAVE_GL
    char err[ERRLEN];
    if (gl_print_devices(stdout, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
#else
    fprintf(stderr, "texfdtd: this build has no GL engine\n");
    return EXIT_RUNTIME;
#endif
}

static int cmd_engines(void)
{
    for (const struct engine_ops *const *p = engine_list(); *p; p++)
        printf("%-12s %s\n", (*p)->name, (*p)->summary);
    return EXIT_OK;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(main_usage, stderr);
        return EXIT_BADINPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        fputs(main_usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("texfdtd %s (git %s)\n", TEXFDTD_VERSION,
#ifdef TEXFDTD_GIT_HASH
               TEXFDTD_GIT_HASH
#else
               "unknown"
#endif
        );
        return EXIT_OK;
    }
    if (!strcmp(cmd, "help")) {
        if (argc > 2 && !strcmp(argv[2], "run"))
            fputs(run_usage, stdout);
        else if (argc > 2 && !strcmp(argv[2], "info"))
            fputs(info_usage, stdout);
        else
            fputs(main_usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 2, argv + 2);
    if (decomp_size() > 1 && (!strcmp(cmd, "compare") || !strcmp(cmd, "info"))) { /* MPI */
        fprintf(stderr, "texfdtd: under mpirun (%d ranks) only `run` splits the grid; run "
                        "`texfdtd %s` as one process\n", decomp_size(), cmd);
        return EXIT_BADINPUT;
    }
    if (!strcmp(cmd, "compare"))
        return compare_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "devices"))
        return cmd_devices(argc - 2, argv + 2);
    if (!strcmp(cmd, "info"))
        return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "engines"))
        return cmd_engines();
    fprintf(stderr, "texfdtd: unknown command '%s'\n\n%s", cmd, main_usage);
    return EXIT_BADINPUT;
}
