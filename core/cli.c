/* cli.c - the texfdtd command: run, devices, help. */
#define _GNU_SOURCE
#include "cli.h"
#include "api_internal.h"
#include "decomp.h"
#include "engine.h"
#include "model.h"
#include "movie.h"
#include "output.h"
#include "scene.h"
#include "util.h"
#include "args.h"
#include "checkpoint.h"
#include "monitor.h"
#include "matmap.h"
#include "compare/compare.h"
#include "sweep.h"

#ifdef TEXFDTD_HAVE_GL
#include "gl/gl.h"
#endif

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
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
    "  resume DIR            continue an interrupted run from DIR/checkpoint.h5\n"
    "  info SCENE [options]  check a scene: grid, stability, memory, estimated time\n"
    "  compare SCENE [opts]  run engines side by side, or against the exact solution\n"
    "  sweep SCENE --vary KEY=SPEC...  runs over the product of parameter values\n"
    "  devices               list the GL devices EGL can open\n"
    "  engines               list the engines in this build\n"
    "  help [COMMAND]        this text, or a command's\n"
    "\n"
    "options:\n"
    "  -h, --help            this text\n"
    "  --version             program version and git hash\n"
    "\n"
    "exit status: 0 success, 1 failure while running, 2 bad input (nothing ran or was written),\n"
    "             130 stopped by SIGINT or SIGTERM (a checkpoint was written)\n";

static const char run_usage[] =
    "usage: texfdtd run SCENE [options]\n"
    "\n"
    "Runs SCENE (an INI file, see scenes/) and writes under --out:\n"
    "  fields.h5        ez, hx, hy at the last step ([ny][nx], scattered field) and\n"
    "                   /snapshots/STEP/{ez,hx,hy}, with provenance attributes; with the\n"
    "                   monitors also /far, /flux, /probes and (several DFT frequencies) /dft\n"
    "  ez_total_STEP.png  the total field Ez (scattered + incident), diverging colour map\n"
    "  summary.json     engine, device, grid, steps, seconds, Mcells/s\n"
    "  far_field.csv    [monitor.far]: 2D echo width sigma_2D (m, /lambda, dB) per frequency\n"
    "                   and angle; 3D radar cross section on two cuts and a grid\n"
    "  far_field.png    [monitor.far]: polar plot of sigma_2D/lambda in dB (with gnuplot)\n"
    "  flux.csv         [monitor.flux.NAME]: scattered and total power per unit length (W/m)\n"
    "                   and over the incident intensity (a width, m), per frequency\n"
    "  probes.csv       [probe.NAME]: step, time, then each probe's fields (total or\n"
    "                   scattered; H at t - dt/2), written as the run goes\n"
    "(docs/scenes.md describes every key and column)\n"
    "\n"
    "options:\n"
    "  --engine NAME          cpu | gl | gl-compute (default: gl where a GL device works, else cpu)\n"
    "  --precision P          single | double (default single; double is cpu only)\n"
    "  --denormals D          cpu: flush | keep (default flush: FTZ+DAZ, as GPU shaders do)\n"
    "  --steps N              override [grid] steps\n"
    "  --set SECTION.KEY=VAL  override any scene key, e.g. --set grid.nx=512 (repeatable);\n"
    "                         SECTION.KEY= (nothing after =) removes the key\n"
    "  --out DIR              output directory (default out/SCENENAME)\n"
    "  --force                write into an existing, non-empty output directory\n"
    "  --device N             GPU index for gl engines (see `texfdtd devices`)\n"
    "  --shader-dir DIR       where the GLSL files are (default: installed copy, or ./shaders)\n"
    "  --threads N            cpu: OpenMP threads (default: all cores)\n"
    "  --checkpoint-every N   write the whole state to DIR/checkpoint.h5 every N steps\n"
    "                         (atomically); `texfdtd resume DIR` continues from it\n"
    "  --dry-run              check the scene and the memory it needs, build the material\n"
    "                         map, run nothing, write nothing\n"
    "  --geometry             a dry run that writes the material map into --out:\n"
    "                         material.png (+y up, reads back as a [map]), its legend\n"
    "                         material_legend.csv, material_map.ini and material.h5\n"
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
    "SIGINT (Ctrl-C) or SIGTERM finishes the steps under way, writes DIR/checkpoint.h5 and\n"
    "exits with status 130; a second one stops at once.  The engines cpu (2D and 3D), gl\n"
    "and gl-compute checkpoint; the others stop without one.\n"
    "\n"
    "MPI: `mpirun -np P texfdtd run SCENE --engine cpu` (or cuda, one GPU a rank) splits a\n"
    "3D grid into P slabs along z (nz >= 2P), one rank each, bit-identical to one process;\n"
    "rank 0 writes the files (docs/mpi.md).  The cuda engine exchanges halos through NCCL\n"
    "where libnccl.so.2 loads (TEXFDTD_HALO=host: through the host) and splits the planes\n"
    "by cost (TEXFDTD_SPLIT=even: evenly).  The 2D engines stay single-device: a 2D scene\n"
    "needs one rank.\n";

static const char resume_usage[] =
    "usage: texfdtd resume DIR [options]\n"
    "\n"
    "Continues the run whose output directory is DIR from DIR/checkpoint.h5 (written by\n"
    "--checkpoint-every N, or when a run is stopped by SIGINT or SIGTERM): the same scene,\n"
    "overrides, steps, precision and outputs.  The fields at the end are bit-identical to\n"
    "those of an uninterrupted run; the snapshots taken before the checkpoint are kept.\n"
    "\n"
    "options:\n"
    "  --engine NAME          continue on another engine of the same precision (cpu, gl,\n"
    "                         gl-compute: they are bit-identical); default: the checkpoint's\n"
    "  --checkpoint-every N   default: the interval of the interrupted run\n"
    "  --device N, --shader-dir DIR, --threads N, --progress, --json, -q, -h: as for run\n";

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
    int device, threads, checkpoint_every;
    bool checkpoint_given;
    bool force, dry_run, geometry, progress, quiet, precision_given, json, window;
};

static int bad(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "texfdtd: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see `texfdtd %s --help`)\n", cmd);
    return EXIT_BADINPUT;
}

/* The options of `run` that a checkpoint fixes, refused by `resume`. */
static bool fixed_on_resume(const char *arg)
{
    static const char *const names[] = {"--set", "--steps", "--precision", "--denormals",
                                        "--out", "--force", "--dry-run", "--geometry", "--movie", "--window",
                                        "--every", "--fps"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (is_opt(arg, names[k]))
            return true;
    return false;
}

/* `run` options, or (resume) those `resume` takes, with the directory as
 * the one positional argument in a->scene. */
static int parse_run_args(int argc, char **argv, struct run_args *a, bool resume)
{
    const char *cmd = resume ? "resume" : "run";
    memset(a, 0, sizeof *a);
    a->device = -1;
    a->every = 10;
    a->fps = 25;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(resume ? resume_usage : run_usage, stdout);
            exit(EXIT_OK);
        } else if (resume && fixed_on_resume(arg)) {
            return bad(cmd, "%s: the checkpoint fixes this; `resume` continues the run as it was",
                       arg);
        } else if (is_opt(arg, "--checkpoint-every")) {
            if (!(v = opt_value("--checkpoint-every", argc, argv, &i))
                || parse_int_arg(v, 1, 1000000000, &a->checkpoint_every))
                return bad(cmd, "--checkpoint-every takes a whole number of steps from 1, not '%s'",
                           v ? v : "");
            a->checkpoint_given = true;
        } else if (!strcmp(arg, "--force")) {
            a->force = true;
        } else if (!strcmp(arg, "--dry-run")) {
            a->dry_run = true;
        } else if (!strcmp(arg, "--geometry")) {
            a->dry_run = a->geometry = true;
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
                return bad(cmd, "%s needs a value", arg);
        } else if (is_opt(arg, "--out")) {
            if (!(a->out = opt_value("--out", argc, argv, &i)) || !*a->out)
                return bad(cmd, "%s needs a directory", arg);
        } else if (is_opt(arg, "--movie")) {
            char merr[ERRLEN];
            if (!(a->movie = opt_value("--movie", argc, argv, &i)))
                return bad(cmd, "%s needs a file name such as wave.mp4", arg);
            if (movie_check_name(a->movie, merr, sizeof merr))
                return bad(cmd, "%s", merr);
        } else if (is_opt(arg, "--every")) {
            if (!(v = opt_value("--every", argc, argv, &i)) || parse_int_arg(v, 1, 1000000000, &a->every))
                return bad(cmd, "--every takes a whole number of steps from 1, not '%s'", v ? v : "");
        } else if (is_opt(arg, "--fps")) {
            if (!(v = opt_value("--fps", argc, argv, &i)) || parse_int_arg(v, 1, 240, &a->fps))
                return bad(cmd, "--fps takes a number from 1 to 240, not '%s'", v ? v : "");
        } else if (is_opt(arg, "--shader-dir")) {
            if (!(a->shader_dir = opt_value("--shader-dir", argc, argv, &i)))
                return bad(cmd, "%s needs a directory", arg);
        } else if (is_opt(arg, "--set")) {
            if (!(v = opt_value("--set", argc, argv, &i)))
                return bad(cmd, "%s needs SECTION.KEY=VALUE", arg);
            if (strchr(v, '\n'))
                return bad(cmd, "--set '%s': a value cannot span lines", v);
            if (a->nset == MAX_SETS)
                return bad(cmd, "more than %s --set options", "256");
            a->sets[a->nset++] = v;
        } else if (is_opt(arg, "--steps")) {
            int n;
            if (!(v = opt_value("--steps", argc, argv, &i)) || parse_int_arg(v, 0, 1000000000, &n))
                return bad(cmd, "--steps takes a whole number from 0 to 1000000000, not '%s'",
                           v ? v : "");
            snprintf(a->steps_set, sizeof a->steps_set, "grid.steps=%d", n);
        } else if (is_opt(arg, "--precision")) {
            v = opt_value("--precision", argc, argv, &i);
            if (v && !strcmp(v, "single"))
                a->precision = PRECISION_SINGLE;
            else if (v && !strcmp(v, "double"))
                a->precision = PRECISION_DOUBLE;
            else
                return bad(cmd, "--precision takes single or double, not '%s'", v ? v : "");
            a->precision_given = true;
        } else if (is_opt(arg, "--denormals")) {
            v = opt_value("--denormals", argc, argv, &i);
            if (v && !strcmp(v, "flush"))
                a->denormals = DENORMALS_FLUSH;
            else if (v && !strcmp(v, "keep"))
                a->denormals = DENORMALS_KEEP;
            else
                return bad(cmd, "--denormals takes flush or keep, not '%s'", v ? v : "");
        } else if (is_opt(arg, "--device")) {
            if (!(v = opt_value("--device", argc, argv, &i)) || parse_int_arg(v, 0, 1023, &a->device))
                return bad(cmd, "--device takes a device index (see `texfdtd devices`), not '%s'",
                           v ? v : "");
        } else if (is_opt(arg, "--threads")) {
            if (!(v = opt_value("--threads", argc, argv, &i)) || parse_int_arg(v, 1, 4096, &a->threads))
                return bad(cmd, "--threads takes a number from 1 to 4096, not '%s'", v ? v : "");
        } else if (arg[0] == '-' && arg[1]) {
            return bad(cmd, "unknown option '%s'", arg);
        } else if (!a->scene) {
            a->scene = arg;
        } else {
            return bad(cmd, "one scene file only; '%s' is extra", arg);
        }
    }
    if (!a->scene)
        return bad(cmd, "%s", resume ? "no output directory given" : "no scene file given");
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
static char *scene_text(const char *file_text, const char *const *sets, int nset)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    fputs(file_text, out);
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

static void progress_show(struct progress *p, const struct scene *s, int step, int start_step,
                          double busy, bool final)
{
    const double t = now_seconds();
    if (!p->tty && !p->lines)
        return;
    if (!final && t - p->last < (p->tty ? 0.5 : 10.0))
        return;
    p->last = t;
    const double cells = (double)s->nx * s->ny * s->nz;
    const double rate = busy > 0 ? cells * step / busy / 1e6 : 0;
    const double left =
        step > start_step ? (t - p->start) * (s->steps - step) / (step - start_step) : 0;
    fprintf(stderr, "%sstep %d/%d  %.0f Mcells/s  %.1f s left%s", p->tty ? "\r" : "", step,
            s->steps, rate, left, p->tty ? "   " : "\n");
    if (p->tty && final)
        fputc('\n', stderr);
}

/* SIGINT and SIGTERM ask the run to stop after the batch under way.  They
 * are blocked from the start of a run, in the main thread and so in every
 * thread the engines start later (OpenMP workers, the GL driver's), and
 * taken with sigtimedwait between batches: a signal sent before that check
 * is always seen there, whichever thread the kernel would have chosen.  Once
 * one is taken they are unblocked, so a second one stops the program at
 * once (the default action). */
static sigset_t stop_signals;

void block_stop_signals(void)
{
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
}

/* The pending SIGINT or SIGTERM, taken; 0 if none. */
int take_stop_signal(void)
{
    const struct timespec now = {0, 0};
    const int sig = sigtimedwait(&stop_signals, NULL, &now);
    if (sig > 0)
        pthread_sigmask(SIG_UNBLOCK, &stop_signals, NULL);
    return sig > 0 ? sig : 0;
}

/* The likely cause of a blow-up first seen at `cell`, from where that cell
 * is: in the CPML, next to a conformal cut edge, in a dielectric, or in the
 * open grid (the time step against the stability limit). */
static void blowup_cause(const struct model *m, size_t cell, char *buf, size_t len)
{
    const struct scene *s = m->scene;
    const size_t nx = (size_t)m->nx, ny = (size_t)m->ny;
    const size_t i = cell % nx, j = cell / nx % ny, k = cell / (nx * ny);
    const size_t N = (size_t)m->pml_n;
    const bool in_pml = N && (i < N || j < N || i + N >= nx || j + N >= ny
                              || (m->nz > 1 && (k < N || k + N >= (size_t)m->nz)));
    bool near_cut = false;
    for (size_t q = 0; q < m->ncut && !near_cut; q++) {
        const size_t ci = m->cut[q].cell % nx, cj = m->cut[q].cell / nx;
        near_cut = (ci > i ? ci - i : i - ci) <= 2 && (cj > j ? cj - j : j - cj) <= 2;
    }
    const struct material *mat = m->mat && cell < m->ncells ? &m->mats[m->mat[cell]] : NULL;
    const double limit = scene_is_3d(s) ? COURANT_LIMIT_3D : COURANT_LIMIT_2D;
    if (in_pml)
        snprintf(buf, len, "the cell is in the CPML (%d cells): check [boundary] sigma_factor, "
                 "kappa_max, alpha_max and order", m->pml_n);
    else if (near_cut)
        snprintf(buf, len, "the cell is next to a conformal PEC cut edge: raise [grid] "
                 "conformal_min (now %g)", s->conformal_min);
    else if (mat && mat->kind == MATERIAL_DIELECTRIC)
        snprintf(buf, len, "the cell is in a dielectric (eps_r %g) with courant %g (limit %.4f)",
                 mat->eps_r, s->courant, limit);
    else
        snprintf(buf, len, "courant %g against the stability limit %.4f", s->courant, limit);
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
    if (a->checkpoint_every)
        return seterr(err, errlen, "--checkpoint-every needs one process, not %d MPI ranks", P);
    if (s->nz < 2 * P)
        return seterr(err, errlen, "%s: %d ranks need nz >= %d (2 z planes a rank), not %d",
                      s->path, P, 2 * P, s->nz);
    return 0;
}

/* One run, fresh or resumed: everything after the arguments are parsed. */
struct job {
    const struct run_args *a;
    const char *engine;
    tf_scene *ts;      /* the scene, loaded through the API */
    const char *file_text; /* the scene file as read (ts's) */
    const char *const *sets;
    int nset;
    char outdir[4096];
    int resume_step;   /* -1: a fresh run */
    double busy;       /* seconds of stepping, those before the checkpoint included */
};

static int job_checkpoint(struct job *j, struct engine *e, char *err, size_t errlen)
{
    return checkpoint_save(j->outdir, e, api_scene_parsed(j->ts)->path, j->file_text, j->sets, j->nset,
                           j->a->checkpoint_every, j->busy, err, errlen);
}

/* TEXFDTD_TEST_STOP_AT=N (tests only): the run stops itself with SIGSTOP
 * once step N is done and its outputs are written, so that a test can kill
 * it at a step of its choosing. */
static int test_hook_step(const char *name)
{
    const char *v = getenv(name);
    int n;
    return v && !parse_int_arg(v, 1, 1000000000, &n) ? n : -1;
}

/* TEXFDTD_TEST_POISON_AT=N (tests only): a NaN is put into Ez at the centre
 * cell after step N, through the engine interface, as a blow-up would. */
static int test_poison(struct engine *e, char *err, size_t errlen)
{
    const struct model *m = e->model;
    const size_t es = precision_size(e->opt.precision);
    unsigned char *ez = xcalloc(m->ncells, es, "Ez", err, errlen);
    int rc = ez ? engine_read(e, FIELD_EZ, ez, err, errlen) : -1;
    if (!rc) {
        const size_t c = (size_t)m->nz / 2 * m->nx * m->ny + (size_t)m->ny / 2 * m->nx + m->nx / 2;
        const double nan = NAN;
        const float nanf = NAN;
        memcpy(ez + c * es, es == sizeof nan ? (const void *)&nan : (const void *)&nanf, es);
        rc = engine_write(e, FIELD_EZ, ez, err, errlen);
    }
    free(ez);
    return rc;
}

static int job_execute(struct job *j)
{
    const struct run_args *a = j->a;
    const struct scene *sp = api_scene_parsed(j->ts);
    const struct scene s = *sp;
    const bool resuming = j->resume_step >= 0;
    char err[ERRLEN], b1[32], b2[32];
    int rc = EXIT_BADINPUT;
    tf_sim *sim = NULL; /* the model and the engine, through the API */
    struct model *mp = NULL;
    struct engine *e = NULL;
    struct h5out *h5 = NULL;
    struct movie *mv = NULL, *win = NULL;
    char *text = NULL;
    const char *outdir = j->outdir;
    block_stop_signals(); /* before any engine starts a thread */

    const struct engine_ops *ops = engine_find(j->engine, scene_is_3d(sp) ? 3 : 2);
    if (!ops && !a->engine && strcmp(j->engine, "cpu")
        && (ops = engine_find("cpu", scene_is_3d(sp) ? 3 : 2))) {
        /* no --engine: the default (gl where a GPU answers) gives way to cpu
         * for a scene of a dimension it does not run, as for a feature below */
        log_info("the default engine %s does not run %dD scenes: using the cpu engine",
                 j->engine, scene_is_3d(sp) ? 3 : 2);
        j->engine = "cpu";
    }
    if (!ops) {
        if (!engine_find(j->engine, 0))
            engine_create(j->engine, NULL, NULL, &e, err, sizeof err); /* fills the message */
        else
            snprintf(err, sizeof err, "the %s engine does not run %dD scenes", j->engine,
                     scene_is_3d(sp) ? 3 : 2);
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (decomp_size() > 1 && mpi_refuse(a, sp, j->engine, err, sizeof err)) { /* MPI */
        fprintf(stderr, "texfdtd: %s\n", err);
        /* every rank refuses alike; none leaves before rank 0 has said why
         * (a rank that exits first has mpirun take the job down, rank 0's
         * line with it) */
        decomp_agree(2);
        goto out;
    }
    if (a->checkpoint_every && !ops->state) {
        fprintf(stderr, "texfdtd: --checkpoint-every: the %s engine cannot write checkpoints "
                        "(the cpu engine, 2D and 3D, the gl and gl-compute engines and the 2D cuda engine can)\n", ops->name);
        goto out;
    }

    /* memory, before allocating anything large */
    const double cells = (double)s.nx * (double)s.ny * (double)s.nz;
    enum field fl[6];
    const double need = cells * (scene_fields(&s, fl) * (double)precision_size(a->precision) + 1.0);
    const double avail = mem_available_bytes();
    char dims[64];
    snprintf(dims, sizeof dims, s.nz > 1 ? "%d x %d x %d" : "%d x %d", s.nx, s.ny, s.nz);
    log_info("%s: %s cells, %d steps, %s precision, engine %s; host memory %s (%.0f bytes "
             "per cell)",
             s.path, dims, s.steps, precision_name(a->precision), j->engine,
             fmt_bytes(need, b1, sizeof b1), need / cells);
    if (avail > 0 && need > avail) {
        fprintf(stderr, "texfdtd: %s: the grid needs %s of host memory, %s is available\n",
                s.path, fmt_bytes(need, b1, sizeof b1), fmt_bytes(avail, b2, sizeof b2));
        goto out;
    }
    if (a->window && !movie_display_available()) {
        fprintf(stderr, "texfdtd: --window needs a display ($DISPLAY or $WAYLAND_DISPLAY) and "
                        "ffplay (Debian: apt-get install ffmpeg); without them, use --movie\n");
        goto out;
    }
    if (a->movie && !movie_ffmpeg_available()) {
        fprintf(stderr, "texfdtd: --movie needs ffmpeg, which is not installed "
                        "(Debian: apt-get install ffmpeg)\n");
        goto out;
    }
    if (a->dry_run) {
        const double t0 = now_seconds();
        if (api_sim_prepare(j->ts, &sim, err, sizeof err)) {
            fprintf(stderr, "texfdtd: %s\n", err);
            goto out;
        }
        mp = api_sim_model(sim);
        log_info("model: %d objects and %d maps painted, %d materials, %zu source slots in "
                 "%.3f s", s.nobjects, s.nmaps, mp->nmats, mp->nslots, now_seconds() - t0);
        if (a->geometry) {
            if (outdir_check(outdir, a->force, err, sizeof err) || make_dirs(outdir, err, sizeof err)
                || matmap_write_outputs(mp, outdir, err, sizeof err)) {
                fprintf(stderr, "texfdtd: %s\n", err);
                goto out;
            }
            log_info("wrote %s/material.png, material_legend.csv, material_map.ini, material.h5; "
                     "nothing run", outdir);
            rc = EXIT_OK;
            goto out;
        }
        log_info("dry run: the scene is valid; nothing run, nothing written");
        rc = EXIT_OK;
        goto out;
    }
    /* MPI: rank 0 owns the output directory, every rank follows its verdict;
     * from here on a rank's failure is its own (decomp.h) */
    const int dir_rc = decomp_rank() == 0 && !resuming
                           ? outdir_check(outdir, a->force, err, sizeof err)
                           : 0;
    if (dir_rc)
        fprintf(stderr, "texfdtd: %s\n", err);
    if (decomp_agree(dir_rc))
        goto out;
    decomp_unmute();
    const double t_model = now_seconds();
    if (api_sim_prepare(j->ts, &sim, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    mp = api_sim_model(sim);
    /* no --engine: the default (gl where a GPU answers) gives way to cpu
     * for a scene only cpu runs (a feature the default lacks) */
    const char *refused = a->engine ? NULL : engine_refuses(j->engine, mp);
    if (refused && strcmp(j->engine, "cpu") && !engine_refuses("cpu", mp)) {
        log_info("the default engine %s does not take %s: using the cpu engine", j->engine,
                 refused);
        j->engine = "cpu";
    }
    tf_sim_options so = TF_SIM_OPTIONS_INIT;
    so.engine = j->engine;
    so.precision = precision_name(a->precision);
    so.denormals = denormals_name(a->denormals);
    so.shader_dir = a->shader_dir;
    so.device = a->device;
    so.threads = a->threads;
    const double t_engine = now_seconds();
    if (api_sim_start(sim, &so, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    e = api_sim_engine(sim);
    const double t_opened = now_seconds();
    if (resuming && checkpoint_restore(outdir, e, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    struct engine_info info;
    engine_describe(e, &info);
    log_info("engine %s on %s%s%s", info.engine, info.device, info.detail[0] ? "; " : "",
             info.detail);
    if (resuming)
        log_info("resuming %s at step %d of %d", outdir, e->step, s.steps);

    /* from here on, failures are failures while running */
    rc = EXIT_RUNTIME;
    if (make_dirs(outdir, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    text = scene_text(j->file_text, j->sets, j->nset);
    struct provenance prov;
    provenance_init(&prov, &s, text, e);
    prov.resumed_from = j->resume_step;
    if (h5out_open(&h5, outdir, &prov, j->resume_step, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }

    if (e->mon && monitors_open_probes(e->mon, outdir, j->resume_step, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (a->movie && movie_open(&mv, outdir, a->movie, s.nx, s.ny, a->fps, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (a->window && movie_open_window(&win, s.name, s.nx, s.ny, a->fps, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    if (win)
        log_info("live window: a frame every %d steps (closing it does not stop the run)",
                 a->every);
    struct progress pr = {.tty = isatty(2) && !a->quiet && decomp_rank() == 0,
                          .lines = a->progress && decomp_rank() == 0}; /* MPI: rank 0 only */
    pr.start = pr.last = now_seconds();
    const int start_step = e->step, every = a->checkpoint_every;
    const int test_stop = test_hook_step("TEXFDTD_TEST_STOP_AT");
    const int test_nan = test_hook_step("TEXFDTD_TEST_POISON_AT");
    int batch = 1, next_snap = 0;
    while (next_snap < s.nsnapshots && s.snapshots[next_snap] <= e->step)
        next_snap++; /* taken before the checkpoint */
    for (;;) {
        const int stop_signal = take_stop_signal();
        if (stop_signal) {
            const char *sig = stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
            rc = EXIT_INTERRUPTED;
            if (!e->ops->state || decomp_size() > 1) {
                fprintf(stderr, "\ntexfdtd: %s at step %d of %d: stopped; the %s engine "
                                "cannot write checkpoints\n", sig, e->step, s.steps,
                        e->ops->name);
                goto out;
            }
            if (job_checkpoint(j, e, err, sizeof err)) {
                fprintf(stderr, "\ntexfdtd: %s at step %d: %s\n", sig, e->step, err);
                goto out;
            }
            fprintf(stderr, "\ntexfdtd: %s at step %d of %d: the state is in %s/checkpoint.h5; "
                            "continue with: texfdtd resume %s\n", sig, e->step, s.steps, outdir,
                    outdir);
            h5out_detach(h5);
            h5 = NULL;
            goto out;
        }
        if (e->step >= s.steps)
            break;
        /* the batch ends at the next step that has something to do */
        int stop = next_snap < s.nsnapshots ? s.snapshots[next_snap] : s.steps;
        if (mv || win) {
            const int frame = (e->step / a->every + 1) * a->every;
            stop = frame < stop ? frame : stop;
        }
        if (every && (e->step / every + 1) * every < stop)
            stop = (e->step / every + 1) * every;
        if (test_stop > e->step && test_stop < stop)
            stop = test_stop;
        if (test_nan > e->step && test_nan < stop)
            stop = test_nan;
        const int n = stop - e->step < batch ? stop - e->step : batch;
        const double t0 = now_seconds();
        if (tf_sim_step(sim, n, err, sizeof err)) {
            fprintf(stderr, "\ntexfdtd: step %d: %s\n", e->step, err);
            goto out;
        }
        const double dt = now_seconds() - t0;
        j->busy += dt;
        if (e->step == test_nan && test_poison(e, err, sizeof err)) {
            fprintf(stderr, "\ntexfdtd: step %d: %s\n", e->step, err);
            goto out;
        }
        /* a blow-up stops the run at once, saying where (fields on the
         * host are scanned in place, a small cost next to a batch) */
        enum field badf;
        size_t badc;
        const int fin = engine_check_finite(e, &badf, &badc, err, sizeof err);
        if (fin) {
            if (fin > 0) {
                char cause[300], at[64];
                blowup_cause(mp, badc, cause, sizeof cause);
                if (s.nz > 1)
                    snprintf(at, sizeof at, "(%zu, %zu, %zu)", badc % (size_t)s.nx,
                             badc / (size_t)s.nx % (size_t)s.ny,
                             badc / ((size_t)s.nx * (size_t)s.ny));
                else
                    snprintf(at, sizeof at, "(%zu, %zu)", badc % (size_t)s.nx,
                             badc / (size_t)s.nx);
                fprintf(stderr,
                        "\ntexfdtd: step %d: %s is not finite at cell %s: the run blew up; "
                        "likely cause: %s. No fields are written%s\n",
                        e->step, field_name(badf), at, cause,
                        every ? "; the last checkpoint (finite) is kept" : "");
            } else
                fprintf(stderr, "\ntexfdtd: step %d: %s\n", e->step, err);
            if (every) {
                h5out_detach(h5); /* the snapshots the checkpoint needs */
                h5 = NULL;
            }
            goto out;
        }
        /* aim at about 0.2 s per batch, so progress and snapshots stay responsive */
        if (dt < 0.1 && batch < (1 << 20))
            batch *= 2;
        else if (dt > 0.4 && batch > 1)
            batch /= 2;
        /* MPI: every rank must step the same batches, since the blow-up check
         * and the reads between them are collective (a rank that timed its
         * batch over 0.1 s while another did not would step on alone and
         * wait for a halo its neighbour never sends) */
        batch = decomp_agree(batch);
        progress_show(&pr, &s, e->step, start_step, j->busy, false);
        const bool frame = e->step % a->every == 0 || e->step == s.steps;
        if (mv && frame && movie_frame(mv, e, err, sizeof err)) {
            fprintf(stderr, "\ntexfdtd: %s\n", err);
            goto out;
        }
        if (win && frame && movie_frame(win, e, err, sizeof err)) {
            log_info("%s; the run goes on", err);
            movie_abort(win);
            win = NULL;
        }
        if (next_snap < s.nsnapshots && s.snapshots[next_snap] == e->step) {
            char png[4200];
            if (h5out_write_snapshot(h5, e, err, sizeof err)
                || (s.png && png_write_total_field(e, outdir, png, sizeof png, err, sizeof err))) {
                fprintf(stderr, "\ntexfdtd: %s\n", err);
                goto out;
            }
            next_snap++;
        }
        if (every && e->step % every == 0 && e->step < s.steps
            && job_checkpoint(j, e, err, sizeof err)) {
            fprintf(stderr, "\ntexfdtd: step %d: %s\n", e->step, err);
            goto out;
        }
        if (e->step == test_stop)
            raise(SIGSTOP);
    }
    progress_show(&pr, &s, e->step, start_step, j->busy, true);
    const double t_results = now_seconds();
    char png[4200] = "";
    if (h5out_write_final(h5, e, err, sizeof err)
        || (e->mon && monitors_write_files(e->mon, outdir, err, sizeof err))
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
        || summary_write(outdir, &prov, s.steps, j->busy, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    /* the results are complete: the checkpoint has served */
    char ckpt[4200];
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint.h5", outdir);
    unlink(ckpt);
    if (a->json) {
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
             j->busy, j->busy > 0 ? cells * s.steps / j->busy / 1e6 : 0.0, outdir,
             s.png ? " and PNG pictures" : "");
    /* where a run's time goes besides the stepping (a sweep of many short
     * runs is made of these) */
    log_info("times: model %.3f s, engine start %.3f s, stepping %.3f s, results and files %.3f s",
             t_engine - t_model, t_opened - t_engine, j->busy, now_seconds() - t_results);
    rc = EXIT_OK;
out:
    movie_abort(mv);
    movie_abort(win);
    h5out_abort(h5);
    tf_sim_destroy(sim);
    free(text);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    struct run_args a;
    int rc = parse_run_args(argc, argv, &a, false);
    if (rc)
        return rc;
    log_set_quiet(a.quiet || decomp_rank() != 0); /* MPI: rank 0 speaks for the job */
    char err[ERRLEN];
    struct job j = {.a = &a, .sets = a.sets, .nset = a.nset, .resume_step = -1};
    if (tf_scene_load(a.scene, a.sets, a.nset, &j.ts, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BADINPUT;
    }
    j.file_text = api_scene_text(j.ts);
    snprintf(j.outdir, sizeof j.outdir, "%s", a.out ? a.out : "");
    if (!a.out)
        snprintf(j.outdir, sizeof j.outdir, "out/%s", api_scene_parsed(j.ts)->name);
    j.engine = a.engine ? a.engine : default_engine(&a);
    rc = job_execute(&j);
    tf_scene_free(j.ts);
    return rc;
}

int cli_run(int argc, char **argv) { return cmd_run(argc, argv); }

static int cmd_resume(int argc, char **argv)
{
    struct run_args a;
    int rc = parse_run_args(argc, argv, &a, true);
    if (rc)
        return rc;
    log_set_quiet(a.quiet);
    char err[ERRLEN];
    struct checkpoint c;
    if (checkpoint_read(a.scene, &c, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_BADINPUT;
    }
    /* the overrides, one per line, as the array scene_load_text takes */
    const char *sets[MAX_SETS + 1];
    int nset = 0;
    for (char *p = c.sets, *nl; p && *p && nset < MAX_SETS + 1; p = nl + 1) {
        if (!(nl = strchr(p, '\n')))
            break;
        *nl = 0;
        sets[nset++] = p;
    }
    a.precision = c.precision;
    a.denormals = c.denormals;
    if (!a.checkpoint_given)
        a.checkpoint_every = c.checkpoint_every;
    struct job j = {.a = &a,
                    .engine = a.engine ? a.engine : c.engine,
                    .sets = sets,
                    .nset = nset,
                    .resume_step = c.step,
                    .busy = c.seconds};
    snprintf(j.outdir, sizeof j.outdir, "%s", a.scene);
    if (tf_scene_from_string(c.scene_path, c.scene_file, sets, nset, &j.ts, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s/checkpoint.h5: its scene no longer loads: %s\n", a.scene,
                err);
        checkpoint_free(&c);
        return EXIT_BADINPUT;
    }
    j.file_text = api_scene_text(j.ts);
    rc = job_execute(&j);
    tf_scene_free(j.ts);
    checkpoint_free(&c);
    return rc;
}

int cli_resume(int argc, char **argv) { return cmd_resume(argc, argv); }

static const char info_usage[] =
    "usage: texfdtd info SCENE [--set SECTION.KEY=VAL]... [--steps N] [--json] [--out DIR]\n"
    "\n"
    "Checks SCENE and prints what a run would be: grid, time step and stability, source,\n"
    "boundary, objects, memory per engine, and an estimate of the CPU engine's time\n"
    "(from a short timed run on this machine).  Runs nothing else, writes nothing.\n"
    "  --json    the same as one JSON object on stdout\n"
    "  --out DIR also build the material map and write it into DIR (material.png,\n"
    "            material_legend.csv, material_map.ini, material.h5; as run --geometry)\n"
    "  --force   write into an existing, non-empty DIR\n";

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
    bool json = false, force = false;
    const char *outdir = NULL;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(info_usage, stdout);
            return EXIT_OK;
        } else if (!strcmp(arg, "--json")) {
            json = true;
        } else if (!strcmp(arg, "--force")) {
            force = true;
        } else if (is_opt(arg, "--out")) {
            if (!(outdir = opt_value("--out", argc, argv, &i)))
                return bad("info", "%s needs a directory", arg);
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
    if (outdir) {
        struct model m;
        if (model_build(&m, &s, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            scene_free(&s);
            return EXIT_BADINPUT;
        }
        const int wrc = outdir_check(outdir, force, err, sizeof err)
                        || make_dirs(outdir, err, sizeof err)
                        || matmap_write_outputs(&m, outdir, err, sizeof err);
        model_free(&m);
        if (wrc) {
            fprintf(stderr, "texfdtd: %s\n", err);
            scene_free(&s);
            return EXIT_BADINPUT;
        }
    }
    static const char *const btype[] = {"pec", "cpml", "mur"};
    static const char *const shapes[] = {"rectangle", "circle", "box", "sphere", "polygon",
                                         "ellipse"};
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
               "  \"period_steps\": %g,\n  \"boundary\": \"%s\",\n  \"objects\": %d,\n  \"maps\": %d,\n"
               "  \"dft\": %s,\n  \"memory_bytes\": {\"cpu_single\": %.0f, \"cpu_double\": %.0f%s",
               d3 ? 3 : 2, s.nx, s.ny, s.nz, s.steps, cells, s.courant, limit,
               s.cells_per_wavelength, period, btype[s.boundary], s.nobjects, s.nmaps,
               s.dft ? "true" : "false", cpu1, cpu2, d3 ? "" : ", \"gl\": ");
        if (!d3)
            printf("%.0f", gl);
        printf("},\n  \"cpu_mcells_per_s_here\": %.1f,\n  \"cpu_seconds_estimate\": %.3f\n}\n",
               rate, est);
    } else {
        printf("scene       %s (%s)\n", s.path, d3 ? "3D" : s.te ? "2D TE (Hz, Ex, Ey)" : "2D TMz");
        char dims[64];
        snprintf(dims, sizeof dims, d3 ? "%d x %d x %d" : "%d x %d", s.nx, s.ny, s.nz);
        printf("grid        %s cells, %d steps, %.3g cell updates\n", dims, s.steps, updates);
        printf("time step   courant %g (stability limit %.4f), %g cells per wavelength, "
               "period %g steps\n",
               s.courant, limit, s.cells_per_wavelength, period);
        printf("            dx = %.4g m, dt = %.4g s at %.4g Hz\n", scene_dx(&s), scene_dt(&s),
               s.frequency_hz);
        if (s.source_type == SOURCE_PLANE_WAVE)
        {
            static const char *const wf[] = {"sine", "gaussian", "modulated_gaussian", "ricker"};
            printf("source      plane wave, angle %g deg, amplitude %g, ", s.angle_deg, s.amplitude);
            if (s.waveform == WAVEFORM_SINE)
                printf("sine, ramp %g periods\n", s.ramp_periods);
            else if (s.waveform == WAVEFORM_RICKER)
                printf("ricker wavelet peaking at f0\n");
            else
                printf("%s pulse, bandwidth %g f0\n", wf[s.waveform], s.bandwidth);
        }
        else
            printf("source      point at (%g, %g%s), %s\n", s.point_x, s.point_y, d3 ? ", z" : "",
                   s.waveform == WAVEFORM_GAUSSIAN ? "gaussian" : "sine");
        printf("boundary    %s", btype[s.boundary]);
        if (s.boundary == BOUNDARY_CPML)
            printf(", %d cells", s.cpml_cells);
        printf("%s\n", s.conformal_pec ? "; conformal PEC objects" : "");
        static const char *const pole_names[] = {"debye", "lorentz", "drude"};
        for (int k = 0; k < s.nmaterials; k++) {
            const struct scene_material *t = &s.materials[k];
            printf("material    %s: ", t->name);
            if (t->is_pec)
                printf("pec");
            else
                printf("eps_r %g, mu_r %g, sigma %g S/m", t->eps_inf, t->mu_r, t->sigma);
            for (int p = 0; p < t->npoles; p++)
                printf("%s%s", p ? ", " : "; poles ", pole_names[t->poles[p].kind]);
            printf("%s\n", t->used ? "" : " (unused)");
        }
        for (int k = 0; k < s.nobjects; k++) {
            const struct scene_object *o = &s.objects[k];
            if (k == 20 && s.nobjects > 21) {
                printf("object      ... and %d more\n", s.nobjects - 20);
                break;
            }
            printf("object      %s: %s %s", o->name,
                   o->table >= 0 ? s.materials[o->table].name
                   : o->material == MATERIAL_PEC ? "pec"
                   : o->material == MATERIAL_VACUUM ? "vacuum" : "dielectric",
                   shapes[o->shape]);
            if (o->material == MATERIAL_DIELECTRIC)
                printf(" eps_r %g", o->eps_r);
            printf(" at (%g, %g)\n", o->center_x, o->center_y);
        }
        for (int k = 0; k < s.nmaps; k++) {
            const struct scene_map *mp = &s.maps[k];
            printf("map         %s: %s, %d x %d", mp->name, mp->kind == MAP_PNG ? "png" : "hdf5",
                   mp->nx, mp->ny);
            if (mp->nz > 1)
                printf(" x %d", mp->nz);
            printf(" cells from (%d, %d", mp->x0, mp->y0);
            printf(d3 ? ", %d), " : "), ", mp->z0);
            printf("%d material%s\n", mp->nvalues, mp->nvalues == 1 ? "" : "s");
        }
        if (s.dft)
            printf("monitor     DFT of Ez over steps %d .. %d at %d frequenc%s\n", s.dft_start + 1,
                   s.steps, s.dft_nfreq, s.dft_nfreq == 1 ? "y" : "ies");
        if (s.far.on) {
            printf("monitor     far field: contour around cells %d .. %d x %d .. %d", s.far.lo[0],
                   s.far.hi[0], s.far.lo[1], s.far.hi[1]);
            if (d3)
                printf(" x %d .. %d", s.far.lo[2], s.far.hi[2]);
            printf(" (%d cells beyond the objects), %d frequenc%s, steps %d .. %d\n",
                   s.far.distance, s.far.fr.n, s.far.fr.n == 1 ? "y" : "ies",
                   s.far.fr.start_step + 1, s.steps);
        }
        for (int k = 0; k < s.nflux; k++)
            printf("monitor     flux %s: %s x %d .. %d, y %d .. %d, %d frequenc%s\n",
                   s.flux[k].name, s.flux[k].kind == FLUX_BOX ? "box" : "line", s.flux[k].x0,
                   s.flux[k].x1, s.flux[k].y0, s.flux[k].y1, s.flux[k].fr.n,
                   s.flux[k].fr.n == 1 ? "y" : "ies");
        for (int k = 0; k < s.nprobes; k++)
            printf("probe       %s at (%d, %d", s.probes[k].name, s.probes[k].i, s.probes[k].j),
            printf(d3 ? ", %d), " : "), ", s.probes[k].k),
            printf("%s field, every %d step%s\n",
                   s.probes[k].total ? "total" : "scattered", s.probes[k].every,
                   s.probes[k].every == 1 ? "" : "s");
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
        else if (argc > 2 && !strcmp(argv[2], "resume"))
            fputs(resume_usage, stdout);
        else if (argc > 2 && !strcmp(argv[2], "info"))
            fputs(info_usage, stdout);
        else if (argc > 2 && !strcmp(argv[2], "sweep"))
            fputs(sweep_usage, stdout);
        else
            fputs(main_usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "sweep")) /* MPI: a task farm of whole runs (core/sweep.c) */
        return sweep_main(argc - 2, argv + 2);
    if (decomp_size() > 1 && strcmp(cmd, "run")) { /* MPI */
        fprintf(stderr, "texfdtd: under mpirun (%d ranks) only `run` splits the grid; run "
                        "`texfdtd %s` as one process\n", decomp_size(), cmd);
        return EXIT_BADINPUT;
    }
    if (!strcmp(cmd, "resume"))
        return cmd_resume(argc - 2, argv + 2);
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
