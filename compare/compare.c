/* compare.c - `texfdtd compare`: engines side by side in lockstep, and (with
 * --analytic, see compare_analytic.c) the DFT phasor and the far field
 * against the exact solution.
 *
 * Lockstep: every engine is created on one model and advanced to the same
 * step; every K steps each field (ez, hx, hy) of each engine is read through
 * the engine interface and compared with the reference engine's
 * (compare/metrics.h has the exact definitions).  The history goes to
 * compare.csv and compare.png; the exit status says whether --max-ulp and
 * --max-rel held.
 */
#define _GNU_SOURCE
#include "compare.h"
#include "cmp.h"
#include "metrics.h"
#include "core/engine.h"
#include "core/model.h"
#include "core/output.h"
#include "core/scene.h"
#include "core/util.h"
#include "core/args.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_LIMIT = 3 };

static const char compare_usage[] =
    "usage: texfdtd compare SCENE [options]\n"
    "\n"
    "Runs several engines on SCENE in lockstep and, every K steps, compares each field\n"
    "(ez, hx, hy) of every engine with the reference engine's: max |a-b|, relative L2\n"
    "||a-b||/||b||, max distance in float32 ULPs (a double reference is rounded to float\n"
    "first) and the fraction of bit-identical cells.  Prints a table and writes\n"
    "DIR/compare.csv and DIR/compare.png (error against step, with gnuplot).\n"
    "\n"
    "With --analytic, runs each engine to the end instead and compares it with the exact\n"
    "series of a circular cylinder (the scene must have exactly one object, a circle):\n"
    "  [monitor.dft]  its DFT phasor of Ez against the series for a PEC circle or a\n"
    "                 dielectric one, on the annulus 1.2..2.5 radii and on the ring at 2\n"
    "                 radii (and, for a dielectric, the total field on the disc of 0.8\n"
    "                 radii inside): DIR/analytic.csv,\n"
    "                 DIR/analytic_ring.csv and DIR/analytic_ring.png;\n"
    "  [monitor.far]  its echo width sigma_2D/lambda (PEC or dielectric circle) at every\n"
    "                 angle and frequency of the monitor, error in dB: DIR/far_compare.csv,\n"
    "                 DIR/far_errors.csv (rms and worst per engine and frequency) and\n"
    "                 DIR/far_compare.png (polar, dB, exact series overlaid).\n"
    "A scene with both sections gets both.  A 3D scene with one sphere (PEC, dielectric\n"
    "or a table material: eps(omega), mu_r) and [monitor.far] is compared with the Mie\n"
    "series instead: its RCS on the E-plane and H-plane cuts and its extinction,\n"
    "DIR/far_compare.csv and DIR/far_errors.csv.  See docs/compare.md.\n"
    "\n"
    "engines: cpu (float32, denormals as the GPU engine it is compared with, else flush),\n"
    "         cpu-flush, cpu-keep (float32), cpu-double, gl, gl-compute (float32)\n"
    "\n"
    "options:\n"
    "  --engines A,B,...      engines to run (default cpu,gl; with --analytic: cpu)\n"
    "  --reference E          compare against engine E, run as well (default: the first of\n"
    "                         --engines)\n"
    "  --every K              compare every K steps (default: steps/10)\n"
    "  --steps N              override [grid] steps\n"
    "  --set SECTION.KEY=VAL  override any scene key (repeatable)\n"
    "  --out DIR              output directory (default out/SCENENAME-compare)\n"
    "  --force                write into an existing, non-empty output directory\n"
    "  --max-ulp U            fail (exit 3) when any max ULP distance exceeds U\n"
    "  --max-rel R            fail (exit 3) when any relative L2 difference exceeds R (with\n"
    "                         --analytic: the complex error on the annulus or the ring)\n"
    "  --max-far-db D         with --analytic: fail (exit 3) when the rms error of the echo\n"
    "                         width over the angles exceeds D dB, for any engine and frequency\n"
    "  --analytic             compare the DFT phasor and the far field with the exact\n"
    "                         cylinder series (3D: the far field with the Mie series)\n"
    "  --device N             GPU index for gl engines\n"
    "  --shader-dir DIR       where the GLSL files are\n"
    "  --threads N            cpu: OpenMP threads\n"
    "  --progress             progress lines even when stderr is not a terminal\n"
    "  -q, --quiet            no informational messages\n"
    "  -h, --help             this text\n"
    "\n"
    "exit status: 0 within limits, 1 failure while running, 2 bad input (nothing ran or was\n"
    "written), 3 a --max-ulp, --max-rel or --max-far-db limit exceeded\n";

/* ---- command line ------------------------------------------------------------ */

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "texfdtd: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see `texfdtd compare --help`)\n");
    return EXIT_BADINPUT;
}

static int parse_args(int argc, char **argv, struct cmp_args *a)
{
    memset(a, 0, sizeof *a);
    a->device = -1;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(compare_usage, stdout);
            exit(EXIT_OK);
        } else if (!strcmp(arg, "--force")) {
            a->force = true;
        } else if (!strcmp(arg, "--analytic")) {
            a->analytic = true;
        } else if (!strcmp(arg, "--progress")) {
            a->progress = true;
        } else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            a->quiet = true;
        } else if (is_opt(arg, "--engines")) {
            if (!(a->engines = opt_value("--engines", argc, argv, &i)) || !*a->engines)
                return bad("%s needs a list such as cpu,gl", arg);
        } else if (is_opt(arg, "--reference")) {
            if (!(a->reference = opt_value("--reference", argc, argv, &i)) || !*a->reference)
                return bad("%s needs an engine such as cpu-double", arg);
        } else if (is_opt(arg, "--out")) {
            if (!(a->out = opt_value("--out", argc, argv, &i)) || !*a->out)
                return bad("%s needs a directory", arg);
        } else if (is_opt(arg, "--shader-dir")) {
            if (!(a->shader_dir = opt_value("--shader-dir", argc, argv, &i)))
                return bad("%s needs a directory", arg);
        } else if (is_opt(arg, "--set")) {
            if (!(v = opt_value("--set", argc, argv, &i)))
                return bad("%s needs SECTION.KEY=VALUE", arg);
            if (a->nset == CMP_MAX_SETS)
                return bad("more than %s --set options", "256");
            a->sets[a->nset++] = v;
        } else if (is_opt(arg, "--steps")) {
            int n;
            if (!(v = opt_value("--steps", argc, argv, &i)) || parse_int_arg(v, 0, 1000000000, &n))
                return bad("--steps takes a whole number from 0 to 1000000000, not '%s'",
                           v ? v : "");
            snprintf(a->steps_set, sizeof a->steps_set, "grid.steps=%d", n);
        } else if (is_opt(arg, "--every")) {
            if (!(v = opt_value("--every", argc, argv, &i))
                || parse_int_arg(v, 1, 1000000000, &a->every))
                return bad("--every takes a whole number of steps from 1, not '%s'", v ? v : "");
        } else if (is_opt(arg, "--max-ulp")) {
            char *end;
            v = opt_value("--max-ulp", argc, argv, &i);
            errno = 0;
            unsigned long long u = v ? strtoull(v, &end, 10) : 0;
            if (!v || !*v || *end || errno || v[0] == '-' || u > 0xffffffffull)
                return bad("--max-ulp takes a whole number of ULPs from 0 to 4294967295, not "
                           "'%s'",
                           v ? v : "");
            a->max_ulp = u;
            a->has_max_ulp = true;
        } else if (is_opt(arg, "--max-rel")) {
            char *end;
            v = opt_value("--max-rel", argc, argv, &i);
            errno = 0;
            double r = v ? strtod(v, &end) : -1;
            if (!v || !*v || *end || errno || !(r >= 0) || !isfinite(r))
                return bad("--max-rel takes a relative error >= 0 such as 1e-6, not '%s'",
                           v ? v : "");
            a->max_rel = r;
            a->has_max_rel = true;
        } else if (is_opt(arg, "--max-far-db")) {
            char *end;
            v = opt_value("--max-far-db", argc, argv, &i);
            errno = 0;
            double d = v ? strtod(v, &end) : -1;
            if (!v || !*v || *end || errno || !(d >= 0) || !isfinite(d))
                return bad("--max-far-db takes an rms error in dB >= 0 such as 0.2, not '%s'",
                           v ? v : "");
            cmp_far_limit.db = d;
            cmp_far_limit.on = true;
        } else if (is_opt(arg, "--device")) {
            if (!(v = opt_value("--device", argc, argv, &i)) || parse_int_arg(v, 0, 1023, &a->device))
                return bad("--device takes a device index (see `texfdtd devices`), not '%s'",
                           v ? v : "");
        } else if (is_opt(arg, "--threads")) {
            if (!(v = opt_value("--threads", argc, argv, &i)) || parse_int_arg(v, 1, 4096, &a->threads))
                return bad("--threads takes a number from 1 to 4096, not '%s'", v ? v : "");
        } else if (arg[0] == '-' && arg[1]) {
            return bad("unknown option '%s'", arg);
        } else if (!a->scene) {
            a->scene = arg;
        } else {
            return bad("one scene file only; '%s' is extra", arg);
        }
    }
    if (!a->scene)
        return bad("%s", "no scene file given");
    if (a->analytic && a->reference)
        return bad("%s", "--reference has no meaning with --analytic (the exact solution is the "
                         "reference)");
    if (a->analytic && a->has_max_ulp)
        return bad("%s", "--max-ulp has no meaning with --analytic; use --max-rel");
    if (!a->analytic && cmp_far_limit.on)
        return bad("%s", "--max-far-db has a meaning with --analytic only (the exact far field "
                         "is the reference)");
    if (a->analytic && a->every)
        return bad("%s", "--every has no meaning with --analytic (the DFT is read at the end)");
    if (a->steps_set[0])
        a->sets[a->nset++] = a->steps_set; /* last, so it wins over --set grid.steps */
    return EXIT_OK;
}

/* ---- engine specs ------------------------------------------------------------ */

int cmp_parse_spec(const char *text, struct cmp_spec *sp, char *err, size_t errlen)
{
    static const struct {
        const char *label, *engine;
        enum precision p;
        enum denormals d;
        bool automatic;
    } known[] = {
        {"cpu", "cpu", PRECISION_SINGLE, DENORMALS_FLUSH, true},
        {"cpu-flush", "cpu", PRECISION_SINGLE, DENORMALS_FLUSH, false},
        {"cpu-keep", "cpu", PRECISION_SINGLE, DENORMALS_KEEP, false},
        {"cpu-double", "cpu", PRECISION_DOUBLE, DENORMALS_FLUSH, false},
        {"gl", "gl", PRECISION_SINGLE, DENORMALS_FLUSH, false},
        {"gl-compute", "gl-compute", PRECISION_SINGLE, DENORMALS_FLUSH, false},
    };
    memset(sp, 0, sizeof *sp);
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        if (strcmp(text, known[k].label))
            continue;
        if (!engine_find(known[k].engine, 0)) {
            seterr(err, errlen, "engine %s is not in this build", known[k].engine);
            return EXIT_BADINPUT;
        }
        snprintf(sp->label, sizeof sp->label, "%s", known[k].label);
        sp->engine = known[k].engine;
        sp->precision = known[k].p;
        sp->denormals = known[k].d;
        sp->denormals_auto = known[k].automatic;
        return 0;
    }
    /* any other engine of this build (e.g. cuda), in single precision */
    const struct engine_ops *ops = engine_find(text, 0);
    if (ops && strlen(text) < sizeof sp->label) {
        snprintf(sp->label, sizeof sp->label, "%s", text);
        sp->engine = ops->name;
        sp->precision = PRECISION_SINGLE;
        sp->denormals = DENORMALS_FLUSH;
        return 0;
    }
    seterr(err, errlen,
           "unknown engine '%s': use cpu, cpu-flush, cpu-keep, cpu-double, gl or gl-compute",
           text);
    return EXIT_BADINPUT;
}

int cmp_parse_specs(const char *list, struct cmp_spec *specs, int max, char *err, size_t errlen)
{
    int n = 0;
    const char *p = list;
    for (;;) {
        const size_t len = strcspn(p, ",");
        char one[64];
        if (len == 0 || len >= sizeof one)
            return seterr(err, errlen, "--engines '%s': give names separated by commas, such as "
                                       "cpu,gl",
                          list);
        memcpy(one, p, len);
        one[len] = 0;
        if (n == max)
            return seterr(err, errlen, "--engines '%s': at most %d engines", list, max);
        if (cmp_parse_spec(one, &specs[n], err, errlen))
            return -1;
        for (int k = 0; k < n; k++)
            if (!strcmp(specs[k].label, one))
                return seterr(err, errlen, "--engines '%s': %s is listed twice", list, one);
        n++;
        if (!p[len])
            break;
        p += len + 1;
    }
    return n;
}

/* ---- output directory, progress, provenance, gnuplot --------------------------- */

int cmp_check_outdir(const char *dir, bool force)
{
    char err[ERRLEN];
    if (outdir_check(dir, force, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_BADINPUT;
    }
    return 0;
}

void cmp_progress_init(struct cmp_progress *p, bool quiet, bool lines)
{
    p->tty = isatty(2) && !quiet;
    p->on = p->tty || lines;
    p->start = p->last = now_seconds();
}

void cmp_progress_show(struct cmp_progress *p, const char *what, int step, int steps, bool final)
{
    if (!p->on)
        return;
    const double t = now_seconds();
    if (!final && t - p->last < (p->tty ? 0.5 : 10.0))
        return;
    p->last = t;
    const double left = step > 0 ? (t - p->start) * (steps - step) / step : 0;
    fprintf(stderr, "%s%s: step %d/%d  %.1f s left%s", p->tty ? "\r" : "", what, step, steps,
            left, p->tty ? "   " : "\n");
    if (p->tty && final)
        fputc('\n', stderr);
}

void cmp_write_provenance(FILE *f, const struct cmp_args *a, const struct scene *s)
{
    char date[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "# program: texfdtd %s (git %s)\n", TEXFDTD_VERSION,
#ifdef TEXFDTD_GIT_HASH
            TEXFDTD_GIT_HASH
#else
            "unknown"
#endif
    );
    fprintf(f, "# date: %s\n# scene: %s (%d x %d cells, %d steps, courant %g, %g cells per "
               "wavelength)\n",
            date, s->path, s->nx, s->ny, s->steps, s->courant, s->cells_per_wavelength);
    for (int k = 0; k < a->nset; k++)
        fprintf(f, "# --set %s\n", a->sets[k]);
}

void cmp_write_engine_line(FILE *f, const char *label, struct engine *e)
{
    struct engine_info info;
    engine_describe(e, &info);
    /* the cpu engine's detail is its denormal mode, said already */
    const bool detail = info.detail[0] && strncmp(info.detail, "denormals", 9);
    fprintf(f, "# engine %s: %s on %s; %s precision, denormals %s%s%s\n", label, info.engine,
            info.device, precision_name(info.precision), denormals_name(info.denormals),
            detail ? "; " : "", detail ? info.detail : "");
}

static bool gnuplot_accepts(const char *terminal)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "gnuplot -e 'set terminal %s' >/dev/null 2>&1 </dev/null", terminal);
    const int st = system(cmd);
    return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

const char *cmp_gnuplot_terminal(void)
{
    if (gnuplot_accepts("pngcairo"))
        return "pngcairo";
    if (gnuplot_accepts("png"))
        return "png";
    return NULL;
}

int cmp_gnuplot(const char *script_path, char *err, size_t errlen)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>&1 </dev/null", script_path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return seterr(err, errlen, "cannot start gnuplot: %s", strerror(errno));
    char out[512] = "", line[512];
    while (fgets(line, sizeof line, p))
        if (!out[0])
            snprintf(out, sizeof out, "%s", line);
    const int st = pclose(p);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        out[strcspn(out, "\n")] = 0;
        return seterr(err, errlen, "gnuplot %s failed%s%s", script_path, out[0] ? ": " : "",
                      out);
    }
    return 0;
}

/* ---- lockstep comparison --------------------------------------------------------- */

struct row {
    int step, engine; /* engine index; the reference is ctx.ref */
    enum field field;
    struct field_metrics m;
};

struct ctx {
    const struct cmp_args *a;
    struct scene *s;
    struct model m;
    struct cmp_spec spec[CMP_MAX_ENGINES + 1];
    struct engine *e[CMP_MAX_ENGINES + 1];
    int n, ref;
    void *buf_ref, *buf_eng;
    struct row *rows;
    size_t nrows, caprows;
    char outdir[4096];
};

static int add_row(struct ctx *c, const struct row *r, char *err, size_t errlen)
{
    if (c->nrows == c->caprows) {
        size_t cap = c->caprows ? 2 * c->caprows : 256;
        struct row *p = realloc(c->rows, cap * sizeof *p);
        if (!p)
            return seterr(err, errlen, "cannot allocate %zu comparison rows", cap);
        c->rows = p;
        c->caprows = cap;
    }
    c->rows[c->nrows++] = *r;
    return 0;
}

/* Compare every field of every engine with the reference at the current step. */
static int compare_now(struct ctx *c, char *err, size_t errlen)
{
    for (int f = 0; f < FIELD_COUNT; f++) {
        if (engine_read(c->e[c->ref], (enum field)f, c->buf_ref, err, errlen))
            return -1;
        for (int k = 0; k < c->n; k++) {
            if (k == c->ref)
                continue;
            if (engine_read(c->e[k], (enum field)f, c->buf_eng, err, errlen))
                return -1;
            struct row r = {.step = c->e[k]->step, .engine = k, .field = (enum field)f};
            field_metrics(c->buf_eng, c->spec[k].precision, c->buf_ref, c->spec[c->ref].precision,
                          c->m.ncells, &r.m);
            if (add_row(c, &r, err, errlen))
                return -1;
        }
    }
    return 0;
}

static bool any_double(const struct ctx *c)
{
    for (int k = 0; k < c->n; k++)
        if (c->spec[k].precision == PRECISION_DOUBLE)
            return true;
    return false;
}

static char *csv_text(const struct ctx *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    cmp_write_provenance(f, c->a, c->s);
    for (int k = 0; k < c->n; k++)
        cmp_write_engine_line(f, c->spec[k].label, c->e[k]);
    fprintf(f, "# reference: %s; max_ulp in float32 ULPs%s\n", c->spec[c->ref].label,
            any_double(c) ? ", double values rounded to float first" : "");
    fprintf(f, "step,engine,reference,field,max_abs,rel_l2,max_ulp,identical_fraction\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const struct row *r = &c->rows[i];
        fprintf(f, "%d,%s,%s,%s,%.9g,%.9g,%llu,%.9g\n", r->step, c->spec[r->engine].label,
                c->spec[c->ref].label, field_name(r->field), r->m.max_abs, r->m.rel_l2,
                (unsigned long long)r->m.max_ulp, r->m.identical_fraction);
    }
    fclose(f);
    return text;
}

/* compare.gp and compare.png: relative L2 and max ULP against step, one line
 * per engine and field, the data inline (datablocks) so that the script stands
 * alone.  Values of 0 cannot go on a log axis: they are left out, and an axis
 * with nothing else is drawn linear. */
static void plot(const struct ctx *c)
{
    char err[ERRLEN], path[4200];
    const char *term = cmp_gnuplot_terminal();
    if (!term) {
        log_warn("gnuplot (with the pngcairo or png terminal) is not available: no compare.png");
        return;
    }
    bool rel_pos = false, ulp_pos = false;
    for (size_t i = 0; i < c->nrows; i++) {
        rel_pos |= c->rows[i].m.rel_l2 > 0;
        ulp_pos |= c->rows[i].m.max_ulp > 0;
    }
    snprintf(path, sizeof path, "%s/compare.gp", c->outdir);
    FILE *f = fopen(path, "w");
    if (!f) {
        log_warn("cannot write %s: %s; no compare.png", path, strerror(errno));
        return;
    }
    fprintf(f, "# gnuplot script written by texfdtd compare (data as in compare.csv)\n");
    fprintf(f, "set terminal %s size 1000,900 noenhanced\nset output '%s/compare.png'\n", term, c->outdir);
    for (int panel = 0; panel < 2; panel++)
        for (int k = 0; k < c->n; k++)
            for (int fl = 0; fl < FIELD_COUNT && k != c->ref; fl++) {
                const bool pos = panel == 0 ? rel_pos : ulp_pos;
                fprintf(f, "$d%d_%d_%d << EOD\n", panel, k, fl);
                for (size_t i = 0; i < c->nrows; i++) {
                    const struct row *r = &c->rows[i];
                    if (r->engine != k || (int)r->field != fl)
                        continue;
                    const double v = panel == 0 ? r->m.rel_l2 : (double)r->m.max_ulp;
                    if (!pos || v > 0)
                        fprintf(f, "%d %.9g\n", r->step, v);
                }
                fprintf(f, "EOD\n");
            }
    fprintf(f, "set key outside right\nset grid\nset xlabel 'step'\n");
    fprintf(f, "set multiplot layout 2,1 title '%s: engines against %s'\n", c->s->name,
            c->spec[c->ref].label);
    for (int panel = 0; panel < 2; panel++) {
        const bool pos = panel == 0 ? rel_pos : ulp_pos;
        fprintf(f, "set ylabel '%s'\n",
                panel == 0 ? "relative L2 ||a-b||/||b||" : "max ULP distance (float32)");
        fprintf(f, pos ? "set logscale y\nset format y '%%.0e'\nset autoscale y\n"
                       : "unset logscale y\nset format y '%%g'\nset yrange [-1:1]\n");
        fprintf(f, "plot ");
        int nseries = 0;
        for (int k = 0; k < c->n; k++)
            for (int fl = 0; fl < FIELD_COUNT && k != c->ref; fl++)
                fprintf(f, "%s$d%d_%d_%d using 1:2 with linespoints title '%s %s'",
                        nseries++ ? ", \\\n     " : "", panel, k, fl, c->spec[k].label,
                        field_name((enum field)fl));
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    fclose(f);
    if (cmp_gnuplot(path, err, sizeof err))
        log_warn("%s; no compare.png", err);
}

static void print_table(const struct ctx *c)
{
    const int last = c->nrows ? c->rows[c->nrows - 1].step : 0;
    printf("against %s%s; at step %d, and the worst over all %zu comparisons:\n",
           c->spec[c->ref].label,
           any_double(c) ? " (float32 ULPs: double values are rounded to float first)" : "",
           last, c->nrows / (size_t)((c->n - 1) * FIELD_COUNT));
    printf("%-12s %-5s %12s %12s %10s %10s   %12s %6s %10s %6s\n", "engine", "field", "max_abs",
           "rel_l2", "max_ulp", "identical", "worst_rel", "step", "worst_ulp", "step");
    for (int k = 0; k < c->n; k++) {
        if (k == c->ref)
            continue;
        for (int fl = 0; fl < FIELD_COUNT; fl++) {
            const struct row *fin = NULL, *wr = NULL, *wu = NULL;
            for (size_t i = 0; i < c->nrows; i++) {
                const struct row *r = &c->rows[i];
                if (r->engine != k || (int)r->field != fl)
                    continue;
                fin = r;
                if (!wr || r->m.rel_l2 > wr->m.rel_l2 || isnan(r->m.rel_l2))
                    wr = r;
                if (!wu || r->m.max_ulp > wu->m.max_ulp)
                    wu = r;
            }
            if (!fin)
                continue;
            printf("%-12s %-5s %12.4e %12.4e %10llu %9.4f%%   %12.4e %6d %10llu %6d\n",
                   c->spec[k].label, field_name((enum field)fl), fin->m.max_abs, fin->m.rel_l2,
                   (unsigned long long)fin->m.max_ulp, 100.0 * fin->m.identical_fraction,
                   wr->m.rel_l2, wr->step, (unsigned long long)wu->m.max_ulp, wu->step);
        }
    }
}

/* Exit status of the limits, with one line per exceeded limit. */
static int check_limits(const struct ctx *c)
{
    const struct row *wu = NULL, *wr = NULL;
    for (size_t i = 0; i < c->nrows; i++) {
        const struct row *r = &c->rows[i];
        if (c->a->has_max_ulp && r->m.max_ulp > c->a->max_ulp && (!wu || r->m.max_ulp > wu->m.max_ulp))
            wu = r;
        if (c->a->has_max_rel && !(r->m.rel_l2 <= c->a->max_rel)
            && (!wr || r->m.rel_l2 > wr->m.rel_l2 || isnan(r->m.rel_l2)))
            wr = r;
    }
    if (wu) {
        const size_t cell = wu->m.max_ulp_cell;
        fprintf(stderr,
                "texfdtd: --max-ulp %llu exceeded: %s against %s, field %s, step %d: %llu ULPs "
                "at cell (%zu, %zu)\n",
                (unsigned long long)c->a->max_ulp, c->spec[wu->engine].label,
                c->spec[c->ref].label, field_name(wu->field), wu->step,
                (unsigned long long)wu->m.max_ulp, cell % (size_t)c->m.nx,
                cell / (size_t)c->m.nx);
    }
    if (wr)
        fprintf(stderr,
                "texfdtd: --max-rel %g exceeded: %s against %s, field %s, step %d: relative L2 "
                "%.4e\n",
                c->a->max_rel, c->spec[wr->engine].label, c->spec[c->ref].label,
                field_name(wr->field), wr->step, wr->m.rel_l2);
    return wu || wr ? EXIT_LIMIT : EXIT_OK;
}

static int create_engines(struct ctx *c, char *err, size_t errlen)
{
    const struct cmp_args *a = c->a;
    /* engines with a fixed denormal mode first, so that plain "cpu" can
     * follow the first GPU engine */
    for (int pass = 0; pass < 2; pass++) {
        enum denormals gpu = DENORMALS_FLUSH;
        bool have_gpu = false;
        for (int k = 0; k < c->n && pass == 1; k++)
            if (c->e[k] && strcmp(c->spec[k].engine, "cpu") && !have_gpu) {
                struct engine_info info;
                engine_describe(c->e[k], &info);
                gpu = info.denormals;
                have_gpu = true;
            }
        for (int k = 0; k < c->n; k++) {
            struct cmp_spec *sp = &c->spec[k];
            if (sp->denormals_auto != (pass == 1))
                continue;
            if (sp->denormals_auto)
                sp->denormals = gpu;
            struct engine_options eo = {.precision = sp->precision,
                                        .denormals = sp->denormals,
                                        .device = a->device,
                                        .shader_dir = a->shader_dir,
                                        .threads = a->threads};
            if (engine_create(sp->engine, &c->m, &eo, &c->e[k], err, errlen)) {
                char tmp[ERRLEN];
                snprintf(tmp, sizeof tmp, "%s", err);
                return seterr(err, errlen, "engine %s: %s", sp->label, tmp);
            }
        }
    }
    return 0;
}

static int compare_engines(const struct cmp_args *a, struct scene *s)
{
    char err[ERRLEN];
    struct ctx c = {.a = a, .s = s};
    int rc = EXIT_BADINPUT;
    const int n = cmp_parse_specs(a->engines ? a->engines : "cpu,gl", c.spec, CMP_MAX_ENGINES,
                                  err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_BADINPUT;
    }
    c.n = n;
    c.ref = 0;
    if (a->reference) {
        struct cmp_spec r;
        if (cmp_parse_spec(a->reference, &r, err, sizeof err)) {
            fprintf(stderr, "texfdtd: --reference: %s\n", err);
            return EXIT_BADINPUT;
        }
        c.ref = -1;
        for (int k = 0; k < c.n; k++)
            if (!strcmp(c.spec[k].label, r.label))
                c.ref = k;
        if (c.ref < 0) {
            c.spec[c.n] = r;
            c.ref = c.n++;
        }
    }
    if (c.n < 2) {
        fprintf(stderr, "texfdtd: compare needs two engines (--engines A,B or --reference E), "
                        "or --analytic\n");
        return EXIT_BADINPUT;
    }
    snprintf(c.outdir, sizeof c.outdir, "%s", a->out ? a->out : "");
    if (!a->out)
        snprintf(c.outdir, sizeof c.outdir, "out/%s-compare", s->name);
    if ((rc = cmp_check_outdir(c.outdir, a->force)))
        return rc;
    const int every = a->every ? a->every : (s->steps + 9) / 10 > 0 ? (s->steps + 9) / 10 : 1;

    rc = EXIT_RUNTIME;
    if (model_build(&c.m, s, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        return EXIT_RUNTIME;
    }
    if (create_engines(&c, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    for (int k = 0; k < c.n; k++) {
        struct engine_info info;
        engine_describe(c.e[k], &info);
        log_info("%s%s: %s on %s; %s precision, denormals %s", c.spec[k].label,
                 k == c.ref ? " (reference)" : "", info.engine, info.device,
                 precision_name(info.precision), denormals_name(info.denormals));
    }
    c.buf_ref = xcalloc(c.m.ncells, 8, "reference field", err, sizeof err);
    c.buf_eng = c.buf_ref ? xcalloc(c.m.ncells, 8, "engine field", err, sizeof err) : NULL;
    if (!c.buf_eng) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }

    struct cmp_progress pr;
    cmp_progress_init(&pr, a->quiet, a->progress);
    int step = 0, batch = 1;
    while (step < s->steps) {
        const int pause = step / every * every + every < s->steps ? step / every * every + every
                                                                  : s->steps;
        const int chunk = pause - step < batch ? pause - step : batch;
        const double t0 = now_seconds();
        for (int k = 0; k < c.n; k++)
            if (engine_step(c.e[k], chunk, err, sizeof err)) {
                fprintf(stderr, "%stexfdtd: %s, step %d: %s\n", pr.tty ? "\n" : "",
                        c.spec[k].label, step, err);
                goto out;
            }
        step += chunk;
        const double dt = now_seconds() - t0;
        if (dt < 0.1 && batch < (1 << 20))
            batch *= 2;
        else if (dt > 0.4 && batch > 1)
            batch /= 2;
        if (step == pause && compare_now(&c, err, sizeof err)) {
            fprintf(stderr, "%stexfdtd: step %d: %s\n", pr.tty ? "\n" : "", step, err);
            goto out;
        }
        cmp_progress_show(&pr, "compare", step, s->steps, false);
    }
    cmp_progress_show(&pr, "compare", step, s->steps, true);

    if (make_dirs(c.outdir, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        goto out;
    }
    char *text = csv_text(&c);
    char path[4200];
    snprintf(path, sizeof path, "%s/compare.csv", c.outdir);
    if (!text || write_file_atomic(path, text, strlen(text), err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", text ? err : "cannot format compare.csv");
        free(text);
        goto out;
    }
    free(text);
    if (c.nrows)
        print_table(&c);
    plot(&c);
    log_info("wrote %s/compare.csv%s", c.outdir, "");
    rc = check_limits(&c);
out:
    for (int k = 0; k < c.n; k++)
        engine_destroy(c.e[k]);
    free(c.buf_ref);
    free(c.buf_eng);
    free(c.rows);
    model_free(&c.m);
    return rc;
}

int compare_main(int argc, char **argv)
{
    struct cmp_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    log_set_quiet(a.quiet);
    char err[ERRLEN];
    struct scene s;
    if (scene_load(&s, a.scene, a.sets, a.nset, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_BADINPUT;
    }
    rc = a.analytic ? compare_analytic(&a, &s) : compare_engines(&a, &s);
    scene_free(&s);
    return rc;
}
