/* sweep.c - texfdtd sweep: see sweep.h and docs/sweeps.md.
 *
 * Each run is `texfdtd run SCENE OPTIONS --set KEY=VALUE... --out DIR/run-NNNN`
 * done in this process (cli_run), so its directory holds exactly what that
 * command writes.  A run is finished when DIR/run-NNNN.done exists: written
 * (atomically) after the run returned 0, so a rerun of the same command
 * skips it; a run without one goes on from the checkpoint its directory
 * holds (`texfdtd resume`), or is removed and done again.  Under mpirun with
 * N >= 2 ranks, rank 0 hands out run indices to ranks 1 .. N-1, whichever
 * asks first (core/decomp.h, the task farm), each of which runs them alone. */
#define _GNU_SOURCE
#include "sweep.h"
#include "args.h"
#include "cli.h"
#include "decomp.h"
#include "engine.h"
#include "h5util.h"
#include "model.h"
#include "output.h"
#include "scene.h"
#include "util.h"

#ifdef TEXFDTD_HAVE_CUDA
#include "cuda/cuda_api.h"
#endif

#ifdef _OPENMP
#include <omp.h>
#endif
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char sweep_usage[] =
    "usage: texfdtd sweep SCENE --vary KEY=SPEC [--vary KEY=SPEC]... [options]\n"
    "\n"
    "Runs SCENE once for every combination of the values (the Cartesian product), each\n"
    "run as `texfdtd run SCENE --set KEY=VALUE... --out DIR/run-NNNN` would, and writes:\n"
    "  DIR/runs.csv      index, directory and the values of each run\n"
    "  DIR/run-NNNN/     each run's outputs (fields.h5, summary.json, far_field.csv, ...)\n"
    "  DIR/run-NNNN.done written last when that run finished (a rerun skips it)\n"
    "  DIR/summary.csv   one row per run: index, dir, the values, status, the results\n"
    "  DIR/summary.h5    the same as datasets (/index, /dir, /status, /vary/KEY,\n"
    "                    /results/NAME)\n"
    "  DIR/sweep.txt     what made DIR (scene text, --vary, engine, run options)\n"
    "\n"
    "SPEC: A:STEP:B (A, A+STEP, ... up to B inclusive; STEP > 0) or a list V1,V2,...\n"
    "KEY:  any scene key as for `run --set`, e.g. source.angle, grid.cells_per_wavelength.\n"
    "Order: the first --vary changes slowest, the last fastest (run 0 takes the first\n"
    "value of each).  Every run's scene is checked before anything runs.\n"
    "\n"
    "options:\n"
    "  --vary KEY=SPEC     a parameter and its values (repeatable, at most 16)\n"
    "  --out DIR           the sweep's directory (default out/sweep-SCENENAME)\n"
    "  --results LIST      the summary's result columns, comma-separated (repeatable):\n"
    "                      far.backscatter, far.forward (sigma_2D/lambda at the first\n"
    "                      frequency, at angle + 180 and angle degrees), far.backscatter_db,\n"
    "                      far.forward_db, flux.NAME (scattered width, m, first frequency),\n"
    "                      flux.NAME.total, probe.NAME.max (largest |value| of the probe),\n"
    "                      steps, seconds (stepping), mcells_per_s, wall (the run's wall\n"
    "                      time, s).  Default: far.backscatter,far.forward with a\n"
    "                      [monitor.far] (2D), then seconds,wall\n"
    "  --engine NAME       as for run, for every run\n"
    "  --only I[,J...]     run only these indices (e.g. a Slurm array task); no summary\n"
    "  --collect           run nothing: write the summary from the finished runs\n"
    "  --list              print the runs (index, directory, values) and exit; no files\n"
    "  --force             use DIR although a different sweep (scene text, --vary, engine\n"
    "                      or run options) made it: every run is done again\n"
    "  --verbose           the runs' own messages too\n"
    "  -q, --quiet         no progress lines\n"
    "  --set, --steps, --precision, --denormals, --device, --shader-dir, --threads,\n"
    "  --checkpoint-every, --movie, --every, --fps, --progress: passed to every run\n"
    "\n"
    "Progress: one line per finished run on stderr (done/to do, directory, values,\n"
    "status, wall time).  Rerunning the same command resumes: finished runs are skipped,\n"
    "a stopped one goes on from its checkpoint, other unfinished ones are done again.\n"
    "SIGINT or SIGTERM stops the sweep once the run under way has stopped (with a\n"
    "checkpoint where its engine writes one): exit status 130.\n"
    "\n"
    "MPI: `mpirun -np N texfdtd sweep ...` (N >= 2) is a task farm: rank 0 hands out the\n"
    "runs, ranks 1 .. N-1 each run them alone; with --engine cuda a rank takes GPU\n"
    "(node-local rank - 1) mod the GPUs of its node, unless --device is given.  Slurm job\n"
    "arrays: --only $SLURM_ARRAY_TASK_ID, then --collect (docs/sweeps.md).\n"
    "\n"
    "exit status: 0 every run finished, 1 a run failed, 2 bad input (nothing written),\n"
    "             130 stopped by SIGINT or SIGTERM\n";

#define MAX_VARY 16
#define MAX_PASS 600
#define MAX_RESULTS 64
#define MAX_RUNS 1000000

struct vary {
    const char *arg; /* KEY=SPEC as given */
    char key[256];
    char **vals;
    int n;
};

struct sweep {
    const char *scene, *engine, *out;
    char outbuf[4096];
    struct vary vary[MAX_VARY];
    int nvary;
    const char *pass[MAX_PASS]; /* run options passed through, values included */
    bool pass_free[MAX_PASS];   /* those that cannot change a result (--threads ...) */
    int npass;
    const char *sets[MAX_PASS]; /* their --set values (and --steps last), for checking */
    int nset;
    char steps_set[64];
    char *results[MAX_RESULTS];
    int nres;
    long *only;
    long nonly;
    bool force, list, collect, verbose, quiet, device_given;
    long total;
    char *file_text;
    size_t file_len;
    double *angle; /* [total]: each run's [source] angle, for far.* */
    char **label;  /* [total]: "KEY=VALUE KEY=VALUE" */
};

static int sweep_bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "texfdtd: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see `texfdtd sweep --help`)\n");
    return EXIT_BADINPUT;
}

/* ---- the values ----------------------------------------------------------------- */

static int add_value(struct vary *v, const char *s)
{
    char **nv = realloc(v->vals, (size_t)(v->n + 1) * sizeof *nv);
    if (!nv || !(nv[v->n] = strdup(s)))
        return -1;
    v->vals = nv;
    v->n++;
    return 0;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return end != s && !*end && !errno && isfinite(*out);
}

/* KEY=A:STEP:B or KEY=V1,V2,... into v; the reason in err otherwise. */
static int parse_vary(const char *arg, struct vary *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->arg = arg;
    const char *eq = strchr(arg, '=');
    const char *dot = strchr(arg, '.');
    if (!eq || !dot || dot > eq || eq == arg || (size_t)(eq - arg) >= sizeof v->key)
        return seterr(err, errlen, "--vary '%s': give SECTION.KEY=SPEC, e.g. source.angle=0:10:350",
                      arg);
    memcpy(v->key, arg, (size_t)(eq - arg));
    const char *spec = eq + 1;
    if (strchr(spec, '\n') || !*spec)
        return seterr(err, errlen, "--vary '%s': no values after '='", arg);
    const char *c1 = strchr(spec, ':');
    if (c1) {
        char a[128], st[128], b[128];
        const char *c2 = strchr(c1 + 1, ':');
        double va, vs, vb;
        if (!c2 || strchr(c2 + 1, ':') || (size_t)(c1 - spec) >= sizeof a
            || (size_t)(c2 - c1 - 1) >= sizeof st || strlen(c2 + 1) >= sizeof b)
            return seterr(err, errlen, "--vary '%s': a range is A:STEP:B, e.g. 0:10:350", arg);
        snprintf(a, sizeof a, "%.*s", (int)(c1 - spec), spec);
        snprintf(st, sizeof st, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
        snprintf(b, sizeof b, "%s", c2 + 1);
        if (!parse_double(a, &va) || !parse_double(st, &vs) || !parse_double(b, &vb))
            return seterr(err, errlen, "--vary '%s': A, STEP and B of A:STEP:B must be numbers",
                          arg);
        if (!(vs > 0))
            return seterr(err, errlen, "--vary '%s': the step must be above 0, not %s", arg, st);
        if (vb < va)
            return seterr(err, errlen, "--vary '%s': the range is empty (B = %s is below A = %s)",
                          arg, b, a);
        const double count = floor((vb - va) / vs * (1 + 1e-12) + 1e-9) + 1;
        if (count > MAX_RUNS)
            return seterr(err, errlen, "--vary '%s': %.0f values, more than %d", arg, count,
                          MAX_RUNS);
        for (long k = 0; k < (long)count; k++) {
            char buf[64];
            snprintf(buf, sizeof buf, "%.10g", va + (double)k * vs);
            if (add_value(v, buf))
                return seterr(err, errlen, "out of memory");
        }
        return 0;
    }
    char *copy = strdup(spec);
    int rc = copy ? 0 : seterr(err, errlen, "out of memory");
    for (char *p = copy, *end; !rc && p; p = end ? end + 1 : NULL) {
        if ((end = strchr(p, ',')))
            *end = 0;
        if (!*p)
            rc = seterr(err, errlen, "--vary '%s': an empty value in the list", arg);
        else if (add_value(v, p))
            rc = seterr(err, errlen, "out of memory");
    }
    free(copy);
    return rc;
}

/* The value index of each --vary for run i: the last --vary changes fastest. */
static void run_values(const struct sweep *sw, long i, int *idx)
{
    for (int k = sw->nvary - 1; k >= 0; k--) {
        idx[k] = (int)(i % sw->vary[k].n);
        i /= sw->vary[k].n;
    }
}

/* "KEY=VALUE" of --vary k for run i, malloc'ed. */
static char *run_set(const struct sweep *sw, long i, int k)
{
    int idx[MAX_VARY];
    run_values(sw, i, idx);
    char *s = NULL;
    return asprintf(&s, "%s=%s", sw->vary[k].key, sw->vary[k].vals[idx[k]]) < 0 ? NULL : s;
}

static void run_dir(const struct sweep *sw, long i, char *buf, size_t len)
{
    snprintf(buf, len, "%s/run-%04ld", sw->out, i);
}

/* ---- the options -------------------------------------------------------------- */

/* run options that take a value, passed to every run */
static bool pass_with_value(const char *arg)
{
    static const char *const names[] = {"--set", "--steps", "--precision", "--denormals",
                                        "--device", "--shader-dir", "--threads",
                                        "--checkpoint-every", "--movie", "--every", "--fps"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (is_opt(arg, names[k]))
            return true;
    return false;
}

static int add_results(struct sweep *sw, const char *list)
{
    char *copy = strdup(list);
    if (!copy)
        return -1;
    for (char *p = copy, *end; p; p = end ? end + 1 : NULL) {
        if ((end = strchr(p, ',')))
            *end = 0;
        bool seen = !*p;
        for (int k = 0; k < sw->nres && !seen; k++)
            seen = !strcmp(sw->results[k], p);
        if (seen) /* empty, or asked for already */
            continue;
        if (sw->nres == MAX_RESULTS) {
            free(copy);
            return sweep_bad("more than %s --results", "64");
        }
        sw->results[sw->nres++] = strdup(p);
    }
    free(copy);
    return 0;
}

static int parse_only(struct sweep *sw, const char *v)
{
    for (const char *p = v; p && *p;) {
        char *end;
        errno = 0;
        const long i = strtol(p, &end, 10);
        if (end == p || errno || i < 0 || (*end && *end != ','))
            return sweep_bad("--only takes run indices such as 3 or 0,5,7, not '%s'", v);
        long *n = realloc(sw->only, (size_t)(sw->nonly + 1) * sizeof *n);
        if (!n)
            return sweep_bad("%s", "out of memory");
        sw->only = n;
        sw->only[sw->nonly++] = i;
        p = *end ? end + 1 : NULL;
    }
    return sw->nonly ? 0 : sweep_bad("--only needs an index, not '%s'", v);
}

static int parse_sweep_args(int argc, char **argv, struct sweep *sw)
{
    char err[ERRLEN];
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(sweep_usage, stdout);
            exit(EXIT_OK);
        } else if (is_opt(arg, "--vary")) {
            if (!(v = opt_value("--vary", argc, argv, &i)))
                return sweep_bad("%s needs KEY=SPEC", arg);
            if (sw->nvary == MAX_VARY)
                return sweep_bad("more than %s --vary", "16");
            const int vrc = parse_vary(v, &sw->vary[sw->nvary], err, sizeof err);
            sw->nvary++; /* sweep_free frees its values, whatever came of it */
            if (vrc)
                return sweep_bad("%s", err);
            for (int k = 0; k < sw->nvary - 1; k++)
                if (!strcmp(sw->vary[k].key, sw->vary[sw->nvary - 1].key))
                    return sweep_bad("--vary %s: the key is varied twice", sw->vary[k].key);
        } else if (is_opt(arg, "--results")) {
            if (!(v = opt_value("--results", argc, argv, &i)) || add_results(sw, v))
                return sweep_bad("%s needs a list such as far.backscatter,wall", arg);
        } else if (is_opt(arg, "--only")) {
            if (!(v = opt_value("--only", argc, argv, &i)))
                return sweep_bad("%s needs run indices", arg);
            if (parse_only(sw, v))
                return EXIT_BADINPUT;
        } else if (is_opt(arg, "--out")) {
            if (!(sw->out = opt_value("--out", argc, argv, &i)) || !*sw->out)
                return sweep_bad("%s needs a directory", arg);
        } else if (is_opt(arg, "--engine")) {
            if (!(sw->engine = opt_value("--engine", argc, argv, &i)))
                return sweep_bad("%s needs a value", arg);
        } else if (!strcmp(arg, "--force")) {
            sw->force = true;
        } else if (!strcmp(arg, "--list")) {
            sw->list = true;
        } else if (!strcmp(arg, "--collect")) {
            sw->collect = true;
        } else if (!strcmp(arg, "--verbose")) {
            sw->verbose = true;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            sw->quiet = true;
        } else if (!strcmp(arg, "--progress")) {
            sw->pass_free[sw->npass] = true;
            sw->pass[sw->npass++] = arg;
        } else if (pass_with_value(arg)) {
            char opt[32];
            snprintf(opt, sizeof opt, "%.*s", (int)strcspn(arg, "="), arg);
            const bool joined = strchr(arg, '=') != NULL; /* --opt=VALUE: one word */
            if (!(v = opt_value(opt, argc, argv, &i)))
                return sweep_bad("%s needs a value", opt);
            if (sw->npass + 2 > MAX_PASS)
                return sweep_bad("too many options (%s)", opt);
            const bool free_opt = !strcmp(opt, "--threads") || !strcmp(opt, "--device")
                                  || !strcmp(opt, "--shader-dir") || !strcmp(opt, "--progress");
            sw->pass_free[sw->npass] = free_opt;
            sw->pass[sw->npass++] = arg;
            if (!joined) {
                sw->pass_free[sw->npass] = free_opt;
                sw->pass[sw->npass++] = v;
            }
            if (!strcmp(opt, "--set"))
                sw->sets[sw->nset++] = v;
            if (!strcmp(opt, "--steps"))
                snprintf(sw->steps_set, sizeof sw->steps_set, "grid.steps=%s", v);
            if (!strcmp(opt, "--device"))
                sw->device_given = true;
        } else if (is_opt(arg, "--dry-run") || is_opt(arg, "--geometry") || is_opt(arg, "--json")
                   || is_opt(arg, "--window")) {
            return sweep_bad("%s: not in a sweep (use `texfdtd run` for one run)", arg);
        } else if (arg[0] == '-' && arg[1]) {
            return sweep_bad("unknown option '%s'", arg);
        } else if (!sw->scene) {
            sw->scene = arg;
        } else {
            return sweep_bad("one scene file only; '%s' is extra", arg);
        }
    }
    if (!sw->scene)
        return sweep_bad("%s", "no scene file given");
    if (!sw->nvary)
        return sweep_bad("%s", "nothing to vary: give --vary KEY=SPEC");
    if (sw->steps_set[0])
        sw->sets[sw->nset++] = sw->steps_set;
    double total = 1;
    for (int k = 0; k < sw->nvary; k++)
        total *= sw->vary[k].n;
    if (total > MAX_RUNS)
        return sweep_bad("%s: more runs than 1000000", "--vary");
    sw->total = (long)total;
    for (long k = 0; k < sw->nonly; k++)
        if (sw->only[k] >= sw->total) {
            char b[64];
            snprintf(b, sizeof b, "%ld (the runs are 0 .. %ld)", sw->only[k], sw->total - 1);
            return sweep_bad("--only: no run %s", b);
        }
    return EXIT_OK;
}

/* ---- the checks before anything runs ---------------------------------------- */

static bool has_prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* The NAME of probe.NAME.max or flux.NAME[.total] into name (len), or false. */
static bool result_name(const char *r, const char *pre, const char *suf, char *name, size_t len)
{
    const size_t lp = strlen(pre), ls = strlen(r), lsuf = strlen(suf);
    if (!has_prefix(r, pre) || ls <= lp + lsuf || strcmp(r + ls - lsuf, suf))
        return false;
    snprintf(name, len, "%.*s", (int)(ls - lp - lsuf), r + lp);
    return true;
}

/* A result this scene can give; the reason in err otherwise. */
static int check_result(const char *r, const struct scene *s, char *err, size_t errlen)
{
    static const char *const plain[] = {"steps", "seconds", "mcells_per_s", "wall"};
    static const char *const far[] = {"far.backscatter", "far.forward", "far.backscatter_db",
                                      "far.forward_db"};
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++)
        if (!strcmp(r, plain[k]))
            return 0;
    for (size_t k = 0; k < sizeof far / sizeof far[0]; k++)
        if (!strcmp(r, far[k])) {
            if (!s->far.on || scene_is_3d(s))
                return seterr(err, errlen, "--results %s needs a 2D scene with [monitor.far]", r);
            return 0;
        }
    char name[SCENE_NAME_MAX + 8];
    if (result_name(r, "probe.", ".max", name, sizeof name)) {
        for (int k = 0; k < s->nprobes; k++)
            if (!strcmp(s->probes[k].name, name))
                return 0;
        return seterr(err, errlen, "--results %s: the scene has no [probe.%s]", r, name);
    }
    if (result_name(r, "flux.", ".total", name, sizeof name)
        || result_name(r, "flux.", "", name, sizeof name)) {
        for (int k = 0; k < s->nflux; k++)
            if (!strcmp(s->flux[k].name, name))
                return 0;
        return seterr(err, errlen, "--results %s: the scene has no [monitor.flux.%s]", r, name);
    }
    return seterr(err, errlen, "--results %s: unknown result (known: far.backscatter, "
                               "far.forward, far.backscatter_db, far.forward_db, flux.NAME, "
                               "flux.NAME.total, probe.NAME.max, steps, seconds, mcells_per_s, "
                               "wall)", r);
}

/* Load every run's scene (the --set options, then its values, then --steps,
 * as `run` applies them) and check the results against it. */
static int check_runs(struct sweep *sw)
{
    char err[ERRLEN];
    sw->angle = calloc((size_t)sw->total, sizeof *sw->angle);
    sw->label = calloc((size_t)sw->total, sizeof *sw->label);
    if (!sw->angle || !sw->label)
        return sweep_bad("%s", "out of memory");
    for (long i = 0; i < sw->total; i++) {
        const char *sets[MAX_PASS + MAX_VARY];
        char *mine[MAX_VARY];
        int n = 0;
        for (int k = 0; k < sw->nset - (sw->steps_set[0] ? 1 : 0); k++)
            sets[n++] = sw->sets[k];
        char *label = NULL;
        size_t llen = 0;
        FILE *lf = open_memstream(&label, &llen);
        for (int k = 0; k < sw->nvary; k++) {
            sets[n++] = mine[k] = run_set(sw, i, k);
            fprintf(lf, "%s%s", k ? " " : "", mine[k]);
        }
        fclose(lf);
        sw->label[i] = label;
        if (sw->steps_set[0])
            sets[n++] = sw->steps_set;
        struct scene s;
        int rc = scene_load_text(&s, sw->scene, sw->file_text, sw->file_len, sets, n, err,
                                 sizeof err);
        for (int k = 0; k < sw->nvary; k++)
            free(mine[k]);
        if (rc) {
            fprintf(stderr, "texfdtd: sweep run %ld (%s): %s\n", i, label, err);
            return EXIT_BADINPUT;
        }
        sw->angle[i] = s.angle_deg;
        if (!sw->nres && i == 0) { /* the default results */
            if (s.far.on && !scene_is_3d(&s))
                add_results(sw, "far.backscatter,far.forward");
            add_results(sw, "seconds,wall");
        }
        for (int k = 0; k < sw->nres && !rc; k++)
            rc = check_result(sw->results[k], &s, err, sizeof err);
        if (!rc && sw->engine && !engine_find(sw->engine, scene_is_3d(&s) ? 3 : 2))
            rc = seterr(err, sizeof err, "--engine %s: %s", sw->engine,
                        engine_find(sw->engine, 0) ? "does not run this scene's dimension"
                                                   : "no such engine in this build "
                                                     "(see `texfdtd engines`)");
        if (!rc && i == 0 && sw->engine) { /* what the engine lacks (run 0: one model) */
            struct model m;
            const char *what;
            if (!(rc = model_build(&m, &s, err, sizeof err))) {
                if ((what = engine_refuses(sw->engine, &m)))
                    rc = seterr(err, sizeof err, "the %s engine does not take %s", sw->engine,
                                what);
                model_free(&m);
            }
        }
        scene_free(&s);
        if (rc) {
            fprintf(stderr, "texfdtd: sweep run %ld (%s): %s\n", i, label, err);
            return EXIT_BADINPUT;
        }
    }
    return EXIT_OK;
}

/* ---- the directory ------------------------------------------------------------ */

/* What made the sweep's directory: a rerun must match it (or --force). */
static char *identity_text(const struct sweep *sw)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f, "# texfdtd sweep: what made this directory; a rerun must match it\n");
    fprintf(f, "engine %s\n", sw->engine ? sw->engine : "(default)");
    for (int k = 0; k < sw->nvary; k++)
        fprintf(f, "vary %s\n", sw->vary[k].arg);
    for (int k = 0; k < sw->npass; k++)
        if (!sw->pass_free[k])
            fprintf(f, "option %s\n", sw->pass[k]);
    fprintf(f, "scene %s\n", sw->scene);
    fwrite(sw->file_text, 1, sw->file_len, f);
    fclose(f);
    return text;
}

/* path (atomically) from a name of this process's own, so that several
 * processes (Slurm array tasks) may write the same file at once. */
static int put_file(const char *path, const char *text, char *err, size_t errlen)
{
    char tmp[4400], host[256] = "";
    gethostname(host, sizeof host - 1);
    snprintf(tmp, sizeof tmp, "%s.%s.%ld", path, host, (long)getpid());
    if (write_file_atomic(tmp, text, strlen(text), err, errlen))
        return -1;
    if (rename(tmp, path)) {
        unlink(tmp);
        return seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    }
    return 0;
}

static char *slurp(const char *path)
{
    char err[ERRLEN];
    size_t len;
    return access(path, R_OK) ? NULL : scene_read_file(path, &len, err, sizeof err);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* rm -rf path (a run's unfinished directory). */
static void remove_tree(const char *path)
{
    if (access(path, F_OK) == 0)
        nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void marker_path(const struct sweep *sw, long i, const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "%s/run-%04ld.%s", sw->out, i, what);
}

/* DIR is absent, empty, or holds nothing but the temporary files of another
 * process starting the same sweep (a Slurm array task beside this one). */
static bool sweep_temps_only(const char *dir)
{
    if (!dir_nonempty(dir))
        return true;
    DIR *d = opendir(dir);
    struct dirent *e;
    bool only = d != NULL;
    while (only && (e = readdir(d)))
        only = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")
               || has_prefix(e->d_name, "sweep.txt.") || has_prefix(e->d_name, "runs.csv");
    if (d)
        closedir(d);
    return only;
}

/* DIR: new, or made by this same sweep (with --force: by any, and every
 * run is done again).  Writes sweep.txt and runs.csv. */
static int prepare_dir(struct sweep *sw)
{
    char err[ERRLEN], path[4300];
    char *id = identity_text(sw);
    snprintf(path, sizeof path, "%s/sweep.txt", sw->out);
    char *old = slurp(path);
    int rc = 0;
    if (old && strcmp(old, id) && !sw->force) {
        fprintf(stderr, "texfdtd: %s was made by a different sweep (scene text, --vary, engine "
                        "or run options differ from %s): use --force to do every run again "
                        "there, or another --out\n", sw->out, path);
        rc = EXIT_BADINPUT;
    } else if (!old && !sweep_temps_only(sw->out) && !sw->force) {
        fprintf(stderr, "texfdtd: %s exists and holds no sweep (no sweep.txt): use --force to "
                        "write into it, or another --out\n", sw->out);
        rc = EXIT_BADINPUT;
    } else if (old && strcmp(old, id)) { /* --force: forget the other sweep's runs */
        for (long i = 0; i < sw->total; i++) {
            marker_path(sw, i, "done", path, sizeof path);
            unlink(path);
            run_dir(sw, i, path, sizeof path);
            remove_tree(path); /* its checkpoints too */
        }
    }
    free(old);
    if (!rc && !sw->list) {
        char *index = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&index, &len);
        fprintf(f, "index,dir");
        for (int k = 0; k < sw->nvary; k++)
            fprintf(f, ",%s", sw->vary[k].key);
        fputc('\n', f);
        for (long i = 0; i < sw->total; i++) {
            int idx[MAX_VARY];
            run_values(sw, i, idx);
            fprintf(f, "%ld,run-%04ld", i, i);
            for (int k = 0; k < sw->nvary; k++)
                fprintf(f, ",%s", sw->vary[k].vals[idx[k]]);
            fputc('\n', f);
        }
        fclose(f);
        char ipath[4300];
        snprintf(path, sizeof path, "%s/sweep.txt", sw->out);
        snprintf(ipath, sizeof ipath, "%s/runs.csv", sw->out);
        if (make_dirs(sw->out, err, sizeof err) || put_file(path, id, err, sizeof err)
            || put_file(ipath, index, err, sizeof err)) {
            fprintf(stderr, "texfdtd: %s\n", err);
            rc = EXIT_RUNTIME;
        }
        free(index);
    }
    free(id);
    return rc;
}

static bool run_finished(const struct sweep *sw, long i, double *wall)
{
    char path[4300];
    marker_path(sw, i, "done", path, sizeof path);
    char *t = slurp(path);
    run_dir(sw, i, path, sizeof path);
    strncat(path, "/summary.json", sizeof path - strlen(path) - 1);
    const bool ok = t && access(path, F_OK) == 0;
    if (ok && wall && sscanf(t, "%lf", wall) != 1)
        *wall = NAN;
    free(t);
    return ok;
}

/* ---- one run ---------------------------------------------------------------------- */

#define RUN_ARGV (MAX_PASS + 2 * MAX_VARY + 16)

/* The arguments of `texfdtd run` for run i (--out and after to be added):
 * the scene, the run options, --engine, --device (device >= 0), then
 * --set KEY=VALUE of each --vary, their strings in mine[] to be freed. */
static int run_argv(const struct sweep *sw, long i, int device, char **argv, char **mine)
{
    static char devbuf[16];
    int argc = 0;
    argv[argc++] = (char *)sw->scene;
    for (int k = 0; k < sw->npass; k++)
        argv[argc++] = (char *)sw->pass[k];
    if (sw->engine) {
        argv[argc++] = "--engine";
        argv[argc++] = (char *)sw->engine;
    }
    if (device >= 0) {
        snprintf(devbuf, sizeof devbuf, "%d", device);
        argv[argc++] = "--device";
        argv[argc++] = devbuf;
    }
    for (int k = 0; k < sw->nvary; k++) {
        argv[argc++] = "--set";
        argv[argc++] = mine[k] = run_set(sw, i, k);
    }
    return argc;
}

/* `texfdtd resume` of run i's directory, where a stopped run left a
 * checkpoint (the options resume takes: those that change no result). */
static int resume_run(const struct sweep *sw, const char *dir, int device)
{
    char *argv[RUN_ARGV], devbuf[16];
    int argc = 0;
    argv[argc++] = (char *)dir;
    for (int k = 0; k < sw->npass; k++)
        if (sw->pass_free[k])
            argv[argc++] = (char *)sw->pass[k];
    if (device >= 0) {
        snprintf(devbuf, sizeof devbuf, "%d", device);
        argv[argc++] = "--device";
        argv[argc++] = devbuf;
    }
    if (!sw->verbose)
        argv[argc++] = "-q";
    argv[argc] = NULL;
    return cli_resume(argc, argv);
}

/* Run i in this process: `texfdtd resume` where a stopped run left a
 * checkpoint in its directory, else (or if that fails) `texfdtd run` from
 * the start.  Its exit status; *wall its seconds, *resumed whether it went
 * on from a checkpoint. */
static int run_one(const struct sweep *sw, long i, int device, double *wall, bool *resumed)
{
    char dir[4200], path[4300], err[ERRLEN];
    run_dir(sw, i, dir, sizeof dir);
    marker_path(sw, i, "failed", path, sizeof path);
    unlink(path);
    const double t0 = now_seconds();
    snprintf(path, sizeof path, "%s/checkpoint.h5", dir);
    int rc = -1;
    *resumed = access(path, R_OK) == 0;
    if (*resumed && (rc = resume_run(sw, dir, device)) != EXIT_OK && rc != EXIT_INTERRUPTED) {
        fprintf(stderr, "sweep: run %ld could not go on from %s: running it from the start\n", i,
                path);
        *resumed = false;
    }
    if (!*resumed) {
        remove_tree(dir); /* an unfinished run's leftovers */
        char *argv[RUN_ARGV], *mine[MAX_VARY];
        int argc = run_argv(sw, i, device, argv, mine);
        argv[argc++] = "--out";
        argv[argc++] = dir;
        if (!sw->verbose)
            argv[argc++] = "-q";
        argv[argc] = NULL;
        rc = cli_run(argc, argv);
        for (int k = 0; k < sw->nvary; k++)
            free(mine[k]);
    }
    *wall = now_seconds() - t0;
    char text[64];
    if (rc == EXIT_OK) {
        snprintf(text, sizeof text, "%.6f\n", *wall);
        marker_path(sw, i, "done", path, sizeof path);
    } else if (rc != EXIT_INTERRUPTED) {
        snprintf(text, sizeof text, "%d\n", rc);
        marker_path(sw, i, "failed", path, sizeof path);
    } else {
        return rc;
    }
    if (put_file(path, text, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return rc ? rc : EXIT_RUNTIME;
    }
    return rc;
}

static void report(const struct sweep *sw, long done, long todo, long i, int rc, double wall,
                   bool resumed)
{
    if (sw->quiet)
        return;
    const char *what = rc == EXIT_OK ? "ok" : rc == EXIT_INTERRUPTED ? "stopped" : "FAILED";
    fprintf(stderr, "sweep: %ld/%ld run-%04ld %s: %s", done, todo, i, sw->label[i], what);
    if (rc != EXIT_OK && rc != EXIT_INTERRUPTED)
        fprintf(stderr, " (exit %d)", rc);
    if (wall >= 0)
        fprintf(stderr, ", %.2f s%s\n", wall, resumed ? " (went on from its checkpoint)" : "");
    else
        fprintf(stderr, ", not started\n");
}

/* SIGINT and SIGTERM are blocked for the whole sweep (core/cli.c) and taken
 * between runs; a run under way takes them itself. */
static bool stop_pending(void) { return take_stop_signal() != 0; }

/* The runs this invocation is to do: not finished, among --only if given. */
static long runs_to_do(const struct sweep *sw, long *todo)
{
    long n = 0;
    for (long i = 0; i < sw->total; i++) {
        bool want = !sw->nonly;
        for (long k = 0; k < sw->nonly && !want; k++)
            want = sw->only[k] == i;
        if (want && !run_finished(sw, i, NULL))
            todo[n++] = i;
    }
    return n;
}

/* The runs one after another in this process. */
static int sweep_serial(const struct sweep *sw, const long *todo, long n)
{
    int worst = EXIT_OK;
    for (long k = 0; k < n; k++) {
        if (stop_pending())
            return EXIT_INTERRUPTED;
        double wall;
        bool resumed;
        const int rc = run_one(sw, todo[k], -1, &wall, &resumed);
        report(sw, k + 1, n, todo[k], rc, wall, resumed);
        if (rc == EXIT_INTERRUPTED)
            return rc;
        if (rc)
            worst = EXIT_RUNTIME;
    }
    return worst;
}

/* Rank 0 of the farm: the next run to whichever worker asks.  A worker's
 * message: {run it finished or -1, its exit status, its wall time, 1 if it
 * went on from a checkpoint}; the
 * answer: {run to do, or -1: stop}. */
static int farm_master(const struct sweep *sw, const long *todo, long n)
{
    long next = 0, done = 0;
    int active = decomp_world_size() - 1, worst = EXIT_OK;
    bool stopping = false;
    while (active > 0) {
        if (!stopping && stop_pending()) {
            stopping = true;
            fprintf(stderr, "sweep: stopping: the runs under way finish or stop, no new ones\n");
        }
        double msg[4];
        const int from = decomp_farm_recv(-1, msg, 4, false);
        if (from < 0) {
            const struct timespec nap = {0, 2000000};
            nanosleep(&nap, NULL);
            continue;
        }
        if (msg[0] >= 0) {
            const int rc = (int)msg[1];
            report(sw, ++done, n, (long)msg[0], rc, msg[2], msg[3] != 0);
            if (rc == EXIT_INTERRUPTED)
                stopping = true;
            else if (rc)
                worst = EXIT_RUNTIME;
        }
        double answer = -1;
        if (!stopping && next < n)
            answer = (double)todo[next++];
        else
            active--;
        decomp_farm_send(from, &answer, 1);
    }
    return stopping ? EXIT_INTERRUPTED : worst;
}

/* Did the sweep's options name --threads (which each run then takes)? */
static bool threads_given(const struct sweep *sw)
{
    for (int k = 0; k < sw->npass; k++)
        if (!strncmp(sw->pass[k], "--threads", 9))
            return true;
    return false;
}

/* The OpenMP threads of a worker: the node's cores shared among the
 * workers on it (its ranks but rank 0, which only hands out runs), unless
 * OMP_NUM_THREADS or --threads says otherwise.  Each worker left at the
 * default would start a team as large as the node for its host work (the
 * monitors' sums, the cpu engine), and two such teams on one node's cores
 * slow both down. */
static void worker_threads(const struct sweep *sw)
{
#ifdef _OPENMP
    if (getenv("OMP_NUM_THREADS") || threads_given(sw))
        return;
    /* rank 0 is on this node when the node's first rank is world rank 0
     * (mpirun's default mapping by slot fills node after node) */
    const bool master_here = decomp_world_rank() - decomp_local_rank() == 0;
    const int workers = decomp_local_size() - (master_here ? 1 : 0);
    if (workers < 1)
        return;
    const int t = omp_get_num_procs() / workers;
    omp_set_num_threads(t > 1 ? t : 1);
#else
    (void)sw;
#endif
}

/* A worker: asks rank 0 for runs until told to stop. */
static void farm_worker(const struct sweep *sw, int device)
{
    double msg[4] = {-1, 0, 0, 0};
    for (;;) {
        double answer;
        decomp_farm_send(0, msg, 4);
        decomp_farm_recv(0, &answer, 1, true);
        if (answer < 0)
            return;
        msg[0] = answer;
        if (stop_pending()) {
            msg[1] = EXIT_INTERRUPTED;
            msg[2] = -1;
            continue;
        }
        bool resumed;
        msg[1] = run_one(sw, (long)answer, device, &msg[2], &resumed);
        msg[3] = resumed;
    }
}

/* The GPU of a worker: (node-local rank - 1) mod the GPUs of its node, for
 * the cuda engines without --device; -1 (the engine's default) otherwise. */
static int worker_device(const struct sweep *sw, int local_rank)
{
    if (sw->device_given || !sw->engine || strcmp(sw->engine, "cuda"))
        return -1;
#ifdef TEXFDTD_HAVE_CUDA
    const int n = texfdtd_cuda_device_count();
    if (n > 0)
        return ((local_rank - 1) % n + n) % n;
#else
    (void)local_rank;
#endif
    return -1;
}

/* ---- the results ---------------------------------------------------------------- */

/* A dataset of doubles, malloc'ed, *n values; NULL if absent. */
static double *read_doubles(hid_t file, const char *name, size_t *n)
{
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
        return NULL;
    const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0)
        return NULL;
    const hid_t sp = H5Dget_space(d);
    const hssize_t np = H5Sget_simple_extent_npoints(sp);
    double *v = np > 0 ? malloc((size_t)np * sizeof *v) : NULL;
    if (v && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
        free(v);
        v = NULL;
    }
    H5Sclose(sp);
    H5Dclose(d);
    *n = v ? (size_t)np : 0;
    return v;
}

/* sigma_2D/lambda at the first frequency and angle phi (degrees), linear in
 * phi between the monitor's angles 360 a / angles. */
static double far_at(hid_t file, double phi)
{
    size_t na = 0, ns = 0;
    double *ang = read_doubles(file, "/far/phi_deg", &na);
    double *sig = read_doubles(file, "/far/sigma_2d_over_lambda", &ns);
    double v = NAN;
    if (ang && sig && na >= 1 && ns >= na) {
        phi = fmod(phi, 360.0);
        if (phi < 0)
            phi += 360.0;
        const double x = phi / (360.0 / (double)na);
        const size_t a0 = (size_t)floor(x) % na, a1 = (a0 + 1) % na;
        const double t = x - floor(x);
        v = t < 1e-9 ? sig[a0] : sig[a0] * (1 - t) + sig[a1] * t;
    }
    free(ang);
    free(sig);
    return v;
}

static double probe_max(hid_t file, const char *name)
{
    static const char *const fields[] = {"ez", "hx", "hy", "ex", "ey", "hz"};
    double m = NAN;
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
        char path[SCENE_NAME_MAX + 32];
        snprintf(path, sizeof path, "/probes/%s/%s", name, fields[f]);
        size_t n = 0;
        double *v = read_doubles(file, path, &n);
        for (size_t k = 0; k < n; k++)
            if (isnan(m) || fabs(v[k]) > m)
                m = fabs(v[k]);
        free(v);
    }
    return m;
}

static double first_value(hid_t file, const char *path)
{
    size_t n = 0;
    double *v = read_doubles(file, path, &n);
    const double x = n ? v[0] : NAN;
    free(v);
    return x;
}

/* "key": number of summary.json. */
static double json_number(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = json ? strstr(json, pat) : NULL;
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* The results of finished run i into v[sw->nres]. */
static void run_results(const struct sweep *sw, long i, double wall, double *v)
{
    char dir[4200], path[4300], name[SCENE_NAME_MAX + 8];
    run_dir(sw, i, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *json = slurp(path);
    snprintf(path, sizeof path, "%s/fields.h5", dir);
    const hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    for (int k = 0; k < sw->nres; k++) {
        const char *r = sw->results[k];
        double x = NAN;
        if (!strcmp(r, "wall"))
            x = wall;
        else if (!strcmp(r, "steps") || !strcmp(r, "seconds") || !strcmp(r, "mcells_per_s"))
            x = json_number(json, r);
        else if (file < 0)
            x = NAN;
        else if (has_prefix(r, "far.backscatter"))
            x = far_at(file, sw->angle[i] + 180.0);
        else if (has_prefix(r, "far.forward"))
            x = far_at(file, sw->angle[i]);
        else if (result_name(r, "probe.", ".max", name, sizeof name))
            x = probe_max(file, name);
        else if (result_name(r, "flux.", ".total", name, sizeof name)) {
            snprintf(path, sizeof path, "/flux/%s/total_over_intensity_m", name);
            x = first_value(file, path);
        } else if (result_name(r, "flux.", "", name, sizeof name)) {
            snprintf(path, sizeof path, "/flux/%s/scattered_over_intensity_m", name);
            x = first_value(file, path);
        }
        if (has_prefix(r, "far.") && strstr(r, "_db"))
            x = 10.0 * log10(x);
        v[k] = x;
    }
    if (file >= 0)
        H5Fclose(file);
    free(json);
}

/* A dataset of n fixed-length strings. */
static int put_strings(hid_t loc, const char *name, char *const *s, long n)
{
    size_t w = 1;
    for (long i = 0; i < n; i++)
        if (strlen(s[i]) + 1 > w)
            w = strlen(s[i]) + 1;
    char *buf = n > 0 ? calloc((size_t)n, w) : NULL;
    if (!buf)
        return -1;
    for (long i = 0; i < n; i++)
        memcpy(buf + (size_t)i * w, s[i], strlen(s[i]));
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, w);
    H5Tset_strpad(t, H5T_STR_NULLTERM);
    const hsize_t dim = (hsize_t)n;
    const hid_t sp = H5Screate_simple(1, &dim, NULL);
    const hid_t d = H5Dcreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const int rc = d < 0 || H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0;
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(t);
    free(buf);
    return rc ? -1 : 0;
}

/* summary.h5: /index, /dir, /status, /vary/KEY (numbers where every value
 * is one, else strings), /results/NAME. */
static int write_summary_h5(const struct sweep *sw, char **dirs, char **status, const double *res,
                            char *err, size_t errlen)
{
    char path[4300], tmp[4400];
    snprintf(path, sizeof path, "%s/summary.h5", sw->out);
    snprintf(tmp, sizeof tmp, "%s.%ld.partial", path, (long)getpid());
    const long n = sw->total;
    const hsize_t dim = (hsize_t)n;
    const hid_t file = h5_create(tmp);
    if (file < 0)
        return seterr(err, errlen, "%s: cannot create", tmp);
    double *col = malloc((size_t)n * sizeof *col);
    char **str = malloc((size_t)n * sizeof *str);
    int rc = !col || !str;
    for (long i = 0; !rc && i < n; i++)
        col[i] = (double)i;
    rc = rc || h5_put_doubles(file, "index", 1, &dim, col) || put_strings(file, "dir", dirs, n)
         || put_strings(file, "status", status, n);
    const hid_t gv = H5Gcreate2(file, "vary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t gr = H5Gcreate2(file, "results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    rc = rc || gv < 0 || gr < 0;
    for (int k = 0; !rc && k < sw->nvary; k++) {
        bool numeric = true;
        for (long i = 0; i < n; i++) {
            int idx[MAX_VARY];
            run_values(sw, i, idx);
            str[i] = sw->vary[k].vals[idx[k]];
            numeric = numeric && parse_double(str[i], &col[i]);
        }
        rc = numeric ? h5_put_doubles(gv, sw->vary[k].key, 1, &dim, col)
                     : put_strings(gv, sw->vary[k].key, str, n);
    }
    for (int k = 0; !rc && k < sw->nres; k++) {
        for (long i = 0; i < n; i++)
            col[i] = res[(size_t)i * sw->nres + k];
        rc = h5_put_doubles(gr, sw->results[k], 1, &dim, col);
    }
    rc = rc || h5_attr_string(file, "scene", sw->scene)
         || h5_attr_string(file, "engine", sw->engine ? sw->engine : "(default)");
    if (gv >= 0)
        H5Gclose(gv);
    if (gr >= 0)
        H5Gclose(gr);
    free(col);
    free(str);
    if (rc)
        seterr(err, errlen, "%s: cannot write", tmp);
    return h5_file_finish(file, rc ? -1 : 0, tmp, path, err, errlen);
}

/* summary.csv and summary.h5 from the runs' directories. */
static int write_summary(const struct sweep *sw)
{
    char err[ERRLEN], path[4300];
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* a missing dataset is a missing value */
    const long n = sw->total;
    double *res = calloc((size_t)n * (size_t)(sw->nres ? sw->nres : 1), sizeof *res);
    char **dirs = calloc((size_t)n, sizeof *dirs), **status = calloc((size_t)n, sizeof *status);
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    if (!res || !dirs || !status || !f)
        return fprintf(stderr, "texfdtd: out of memory\n"), EXIT_RUNTIME;
    fprintf(f, "index,dir");
    for (int k = 0; k < sw->nvary; k++)
        fprintf(f, ",%s", sw->vary[k].key);
    fprintf(f, ",status");
    for (int k = 0; k < sw->nres; k++)
        fprintf(f, ",%s", sw->results[k]);
    fputc('\n', f);
    long ok = 0;
    for (long i = 0; i < n; i++) {
        double wall = NAN;
        double *v = res + (size_t)i * sw->nres;
        const bool fin = run_finished(sw, i, &wall);
        marker_path(sw, i, "failed", path, sizeof path);
        status[i] = fin ? "ok" : access(path, F_OK) == 0 ? "failed" : "not run";
        for (int k = 0; k < sw->nres; k++)
            v[k] = NAN;
        if (fin) {
            run_results(sw, i, wall, v);
            ok++;
        }
        asprintf(&dirs[i], "run-%04ld", i);
        int idx[MAX_VARY];
        run_values(sw, i, idx);
        fprintf(f, "%ld,%s", i, dirs[i]);
        for (int k = 0; k < sw->nvary; k++)
            fprintf(f, ",%s", sw->vary[k].vals[idx[k]]);
        fprintf(f, ",%s", status[i]);
        for (int k = 0; k < sw->nres; k++)
            if (isnan(v[k]))
                fprintf(f, ",");
            else
                fprintf(f, ",%.10g", v[k]);
        fputc('\n', f);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/summary.csv", sw->out);
    int rc = put_file(path, csv, err, sizeof err)
             || write_summary_h5(sw, dirs, status, res, err, sizeof err);
    if (rc)
        fprintf(stderr, "texfdtd: %s\n", err);
    else if (!sw->quiet)
        fprintf(stderr, "sweep: %ld of %ld runs finished; wrote %s/summary.csv and summary.h5\n",
                ok, n, sw->out);
    for (long i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    free(status);
    free(res);
    free(csv);
    return rc ? EXIT_RUNTIME : EXIT_OK;
}

/* ---- the command ---------------------------------------------------------------- */

/* --out, or out/sweep-SCENENAME. */
static void choose_out(struct sweep *sw)
{
    char err[ERRLEN];
    struct scene s;
    if (sw->out)
        return;
    if (scene_load_text(&s, sw->scene, sw->file_text, sw->file_len, NULL, 0, err, sizeof err)
        == 0) {
        snprintf(sw->outbuf, sizeof sw->outbuf, "out/sweep-%s", s.name);
        scene_free(&s);
    } else {
        snprintf(sw->outbuf, sizeof sw->outbuf, "out/sweep");
    }
    sw->out = sw->outbuf;
}

/* Everything rank 0 (or the one process) checks and prepares before any
 * run: EXIT_OK to go on. */
static int sweep_prepare(struct sweep *sw)
{
    FILE *in = fopen(sw->scene, "r");
    if (!in) {
        fprintf(stderr, "texfdtd: %s: cannot open scene: %s\n", sw->scene, strerror(errno));
        return EXIT_BADINPUT;
    }
    fclose(in);
    sw->file_text = slurp(sw->scene);
    sw->file_len = sw->file_text ? strlen(sw->file_text) : 0;
    int rc = sw->file_text ? check_runs(sw) : EXIT_BADINPUT;
    if (rc)
        return rc;
    choose_out(sw);
    if (sw->list) {
        for (long i = 0; i < sw->total; i++)
            printf("%ld run-%04ld %s\n", i, i, sw->label[i]);
        return EXIT_OK;
    }
    /* the run options and the engine, as run itself checks them: a dry run
     * of run 0 (builds its model, writes nothing) */
    char *argv[RUN_ARGV], *mine[MAX_VARY];
    int argc = run_argv(sw, 0, -1, argv, mine);
    argv[argc++] = "--dry-run";
    argv[argc++] = "-q";
    argv[argc] = NULL;
    rc = cli_run(argc, argv);
    for (int k = 0; k < sw->nvary; k++)
        free(mine[k]);
    if (rc) {
        fprintf(stderr, "texfdtd: sweep run 0 (%s) would fail as above; nothing run\n",
                sw->label[0]);
        return EXIT_BADINPUT;
    }
    return prepare_dir(sw);
}

static void sweep_free(struct sweep *sw)
{
    for (int k = 0; k < sw->nvary; k++) {
        for (int v = 0; v < sw->vary[k].n; v++)
            free(sw->vary[k].vals[v]);
        free(sw->vary[k].vals);
    }
    for (int k = 0; k < sw->nres; k++)
        free(sw->results[k]);
    for (long i = 0; sw->label && i < sw->total; i++)
        free(sw->label[i]);
    free(sw->label);
    free(sw->angle);
    free(sw->only);
    free(sw->file_text);
}

int sweep_main(int argc, char **argv)
{
    struct sweep sw;
    memset(&sw, 0, sizeof sw);
    int rc = parse_sweep_args(argc, argv, &sw);
    if (rc) {
        sweep_free(&sw);
        return rc;
    }
    /* MPI: a farm of whole runs, each rank a job of its own from here on */
    const int world = decomp_world_size(), me = decomp_world_rank();
    const int local = decomp_local_rank();
    decomp_go_solo();
    block_stop_signals();
    double verdict = 0;
    if (me == 0) {
        rc = sweep_prepare(&sw);
        verdict = rc || sw.list ? -1 : 0;
        for (int r = 1; r < world; r++)
            decomp_farm_send(r, &verdict, 1);
    } else {
        decomp_farm_recv(0, &verdict, 1, true);
    }
    if (rc || verdict < 0 || (me == 0 && sw.list)) {
        sweep_free(&sw);
        return rc;
    }
    if (me != 0) { /* a worker: it knows the sweep from the same arguments */
        sw.file_text = slurp(sw.scene);
        sw.file_len = sw.file_text ? strlen(sw.file_text) : 0;
        choose_out(&sw); /* rank 0's choice */
        const int device = worker_device(&sw, local);
        worker_threads(&sw);
        if (device >= 0 && !sw.quiet)
            fprintf(stderr, "sweep: rank %d of %d (node-local rank %d) runs on CUDA device %d\n",
                    me, world, local, device);
        farm_worker(&sw, device);
        sweep_free(&sw);
        return EXIT_OK;
    }
    long *todo = malloc((size_t)sw.total * sizeof *todo);
    const long n = sw.collect ? 0 : runs_to_do(&sw, todo);
    if (!sw.quiet && !sw.collect)
        fprintf(stderr, "sweep: %ld runs, %ld finished before, %ld to do%s in %s\n", sw.total,
                sw.nonly ? sw.nonly - n : sw.total - n, n,
                world > 1 ? " by a farm of MPI ranks" : "", sw.out);
    rc = world > 1 ? farm_master(&sw, todo, n) : sweep_serial(&sw, todo, n);
    free(todo);
    if (rc == EXIT_INTERRUPTED)
        fprintf(stderr, "sweep: stopped by a signal; run the same command again to go on\n");
    if (!sw.nonly || sw.collect) {
        const int src = write_summary(&sw);
        rc = rc ? rc : src;
    }
    sweep_free(&sw);
    return rc;
}
