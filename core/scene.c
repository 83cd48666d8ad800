/* scene.c - INI scene files: collect, override, interpret, check.  See scene.h. */
#define _GNU_SOURCE
#include "scene.h"
#include "matmap.h"
#include "util.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <strings.h>

/* ---- phase 1: collect key = value entries with their origin ------------- */

/* Strings live in an arena of fixed blocks that never move, so entries keep
 * plain pointers; lookups go through a hash table of (section, key), and each
 * section's first entry is marked, so a scene of N entries loads in O(N). */
struct entry {
    const char *section, *key, *value;
    const char *origin; /* file path, or "--set" */
    int line;           /* line in the file; 0 for --set */
    int first_line;     /* line of an earlier duplicate, 0 if none */
    bool first_in_section; /* the first entry of its section in entry order */
    int next_in_section;   /* the next entry of the same section, -1 at the end */
    uint32_t hash;         /* entry_hash(section, key) */
};

struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char data[];
};

struct entries {
    struct entry *e;
    int n, cap;
    int *hash;       /* entry index per slot, -1 empty; hcap slots (a power of 2) */
    size_t hcap;
    int cur;         /* first entry of the section being interpreted, or -1: its keys
                        are found along next_in_section, near each other in memory */
    struct arena_block *arena;
    const char *path;
    FILE *f;
    int line; /* lines read so far: the line of the key inih hands over next */
    bool indented; /* the line read last starts with a space or a tab */
    char err[ERRLEN];
};

static const char *arena_strdup(struct entries *es, const char *s)
{
    const size_t n = strlen(s) + 1;
    struct arena_block *b = es->arena;
    if (!b || b->cap - b->used < n) {
        const size_t cap = n > 65536 ? n : 65536;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->next = es->arena;
        b->used = 0;
        b->cap = cap;
        es->arena = b;
    }
    char *p = b->data + b->used;
    memcpy(p, s, n);
    b->used += n;
    return p;
}

static void entries_free(struct entries *es)
{
    while (es->arena) {
        struct arena_block *next = es->arena->next;
        free(es->arena);
        es->arena = next;
    }
    free(es->e);
    free(es->hash);
}

/* FNV-1a over section, a NUL, key. */
static uint32_t entry_hash(const char *section, const char *key)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = section; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return (uint32_t)(h ^ (h >> 32));
}

/* (Re)build the hash table for the entries 0 .. n-1, at least 2n slots. */
static int entries_rehash(struct entries *es, size_t min_slots)
{
    size_t cap = 64;
    while (cap < 2 * min_slots)
        cap *= 2;
    int *h = malloc(cap * sizeof *h);
    if (!h)
        return seterr(es->err, sizeof es->err, "out of memory reading the scene");
    memset(h, 0xff, cap * sizeof *h);
    for (int i = 0; i < es->n; i++) {
        size_t k = es->e[i].hash & (cap - 1);
        while (h[k] >= 0)
            k = (k + 1) & (cap - 1);
        h[k] = i;
    }
    free(es->hash);
    es->hash = h;
    es->hcap = cap;
    return 0;
}

static struct entry *entries_find(const struct entries *es, const char *section, const char *key)
{
    if (es->cur >= 0 && section == es->e[es->cur].section) {
        for (int i = es->cur; i >= 0; i = es->e[i].next_in_section)
            if (es->e[i].key[0] == key[0] && !strcmp(es->e[i].key, key))
                return &es->e[i];
        return NULL;
    }
    if (!es->hash)
        return NULL;
    const uint32_t h = entry_hash(section, key);
    for (size_t k = h & (es->hcap - 1); es->hash[k] >= 0; k = (k + 1) & (es->hcap - 1)) {
        struct entry *x = &es->e[es->hash[k]];
        if (x->hash == h && x->key && !strcmp(x->key, key) && !strcmp(x->section, section))
            return x;
    }
    return NULL;
}

/* Add section.key = value.  While the file is read (no hash table yet) the
 * entry is appended and duplicates are found afterwards by entries_index;
 * later (--set) an existing key's value is replaced. */
static int entries_add(struct entries *es, const char *section, const char *key,
                       const char *value, const char *origin, int line)
{
    if (strlen(section) > 256 || strlen(key) > 64)
        return seterr(es->err, sizeof es->err, "%s:%d: section or key name too long", origin,
                      line);
    struct entry *x = es->hash ? entries_find(es, section, key) : NULL;
    if (!x) {
        if (es->n == es->cap) {
            int cap = es->cap ? 2 * es->cap : 64;
            struct entry *e = realloc(es->e, (size_t)cap * sizeof *e);
            if (!e)
                return seterr(es->err, sizeof es->err, "out of memory reading the scene");
            es->e = e;
            es->cap = cap;
        }
        if (es->hash && (size_t)(es->n + 1) * 2 > es->hcap && entries_rehash(es, (size_t)es->cap))
            return -1;
        x = &es->e[es->n++];
        memset(x, 0, sizeof *x);
        x->section = arena_strdup(es, section);
        x->key = arena_strdup(es, key);
        if (!x->section || !x->key)
            return seterr(es->err, sizeof es->err, "out of memory reading the scene");
        x->hash = entry_hash(section, key);
        if (es->hash) {
            size_t k = x->hash & (es->hcap - 1);
            while (es->hash[k] >= 0)
                k = (k + 1) & (es->hcap - 1);
            es->hash[k] = es->n - 1;
        }
    }
    if (!(x->value = arena_strdup(es, value)))
        return seterr(es->err, sizeof es->err, "out of memory reading the scene");
    x->origin = origin;
    x->line = line;
    return 0;
}

/* The hash table over the entries read from the file, built once.  A key
 * given twice in a section keeps its first place, takes the later value and
 * remembers the first line (check_keys refuses it). */
static int entries_index(struct entries *es)
{
    if (entries_rehash(es, (size_t)es->n))
        return -1;
    int dead = 0;
    for (int i = 0; i < es->n; i++) {
        struct entry *x = &es->e[i];
        if (!x->key)
            continue;
        struct entry *f = entries_find(es, x->section, x->key);
        if (f != x) {
            f->first_line = f->line;
            f->line = x->line;
            f->value = x->value;
            x->key = NULL;
            dead++;
        }
    }
    if (!dead)
        return 0;
    int n = 0;
    for (int i = 0; i < es->n; i++)
        if (es->e[i].key)
            es->e[n++] = es->e[i];
    es->n = n;
    return entries_rehash(es, (size_t)es->n);
}

/* Mark the first entry of each section (sections in the order they first
 * appear) and chain each section's entries, with a hash set of section
 * names: O(n). */
static int entries_mark_sections(struct entries *es)
{
    size_t cap = 64;
    while (cap < 2 * (size_t)es->n)
        cap *= 2;
    int *h = malloc(cap * sizeof *h), *tail = malloc(cap * sizeof *tail);
    if (!h || !tail) {
        free(h);
        free(tail);
        return seterr(es->err, sizeof es->err, "out of memory reading the scene");
    }
    memset(h, 0xff, cap * sizeof *h);
    for (int i = 0; i < es->n; i++) {
        struct entry *x = &es->e[i];
        size_t k = entry_hash(x->section, "") & (cap - 1);
        while (h[k] >= 0 && strcmp(es->e[h[k]].section, x->section))
            k = (k + 1) & (cap - 1);
        x->first_in_section = h[k] < 0;
        x->next_in_section = -1;
        if (h[k] < 0)
            h[k] = i;
        else
            es->e[tail[k]].next_in_section = i;
        tail[k] = i;
    }
    free(h);
    free(tail);
    return 0;
}

/* inih reads line by line through this reader, so the count kept here is the
 * line of the key that the handler receives next.  (Debian's libinih is built
 * without INI_HANDLER_LINENO, so this is how we learn line numbers.) */
static char *counting_reader(char *str, int num, void *stream)
{
    struct entries *es = stream;
    char *r = fgets(str, num, es->f);
    if (r) {
        es->line++;
        es->indented = r[0] == ' ' || r[0] == '\t';
    }
    return r;
}

static int collect_handler(void *user, const char *section, const char *key, const char *value)
{
    struct entries *es = user;
    if (!key) /* a bare [section] line (INI_CALL_HANDLER_ON_NEW_SECTION) */
        return 1;
    if (!*section) {
        seterr(es->err, sizeof es->err, "%s:%d: key '%s' is outside any [section]", es->path,
               es->line, key);
        return 0;
    }
    /* an indented line continues the value of the key above it (inih's
     * multi-line values): the pieces are joined with a space */
    struct entry *x = es->n && es->indented ? &es->e[es->n - 1] : NULL;
    if (x && x->line > 0 && *value && !strcmp(x->key, key) && !strcmp(x->section, section)) {
        char *joined = malloc(strlen(x->value) + strlen(value) + 2);
        if (!joined) {
            seterr(es->err, sizeof es->err, "out of memory reading the scene");
            return 0;
        }
        sprintf(joined, "%s %s", x->value, value);
        x->value = arena_strdup(es, joined);
        free(joined);
        if (!x->value)
            seterr(es->err, sizeof es->err, "out of memory reading the scene");
        return x->value != NULL;
    }
    return entries_add(es, section, key, value, es->path, es->line) == 0;
}

/* Strip spaces at both ends, in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
    return s;
}

static int apply_set(struct entries *es, const char *arg)
{
    char buf[1200];
    if (strlen(arg) >= sizeof buf)
        return seterr(es->err, sizeof es->err, "--set %.40s...: too long", arg);
    strcpy(buf, arg);
    char *eq = strchr(buf, '=');
    char *dot = eq ? memrchr(buf, '.', (size_t)(eq - buf)) : NULL;
    if (!eq || !dot)
        return seterr(es->err, sizeof es->err,
                      "--set %s: expected section.key=value, e.g. --set grid.steps=500", arg);
    *eq = 0;
    *dot = 0;
    char *section = trim(buf), *key = trim(dot + 1), *value = trim(eq + 1);
    if (!*section || !*key)
        return seterr(es->err, sizeof es->err,
                      "--set %s: expected section.key=value, e.g. --set grid.steps=500", arg);
    if (!*value) { /* --set section.key= removes the key: its default applies */
        struct entry *x = entries_find(es, section, key);
        if (x) {
            memmove(x, x + 1, (size_t)(es->e + es->n - (x + 1)) * sizeof *x);
            es->n--;
            return entries_rehash(es, (size_t)es->cap);
        }
        return 0;
    }
    return entries_add(es, section, key, value, "--set", 0);
}

/* ---- phase 2: interpret and check ----------------------------------------- */

/* "scenes/x.ini:12: " or "--set grid.courant: " */
static const char *where(const struct entry *x, char *buf, size_t len)
{
    if (x->line > 0)
        snprintf(buf, len, "%s:%d", x->origin, x->line);
    else
        snprintf(buf, len, "--set %s.%s", x->section, x->key);
    return buf;
}

/* The same, truncated to a short buffer (a long path keeps its end off). */
static void where_to(const struct entry *x, char *buf, size_t len)
{
    if (x->line > 0)
        snprintf(buf, len, "%s:%d", x->origin, x->line);
    else
        snprintf(buf, len, "--set %s.%s", x->section, x->key);
}

#define BAD(x, ...)                                                                              \
    do {                                                                                         \
        char w_[4200], m_[2048];                                                               \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                    \
        return seterr(err, errlen, "%s: %s", where((x), w_, sizeof w_), m_);                     \
    } while (0)

static int parse_double(const struct entry *x, double lo, double hi, bool lo_open, double *out,
                        char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(x->value, &end);
    if (end == x->value || *end || errno == ERANGE || !isfinite(v))
        BAD(x, "%s = '%s' is not a number", x->key, x->value);
    if ((lo_open ? v <= lo : v < lo) || v > hi)
        BAD(x, "%s = %s is out of range: allowed %s%g to %g", x->key, x->value,
            lo_open ? "above " : "", lo, hi);
    *out = v;
    return 0;
}

static int parse_int(const struct entry *x, long lo, long hi, int *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long v = strtol(x->value, &end, 10);
    if (end == x->value || *end || errno == ERANGE)
        BAD(x, "%s = '%s' is not a whole number", x->key, x->value);
    if (v < lo || v > hi)
        BAD(x, "%s = %ld is out of range: allowed %ld to %ld", x->key, v, lo, hi);
    *out = (int)v;
    return 0;
}

static int parse_bool(const struct entry *x, bool *out, char *err, size_t errlen)
{
    const char *v = x->value;
    if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1") || !strcasecmp(v, "on"))
        *out = true;
    else if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0")
             || !strcasecmp(v, "off"))
        *out = false;
    else
        BAD(x, "%s = '%s' is not true or false", x->key, v);
    return 0;
}

/* Index of value in a NULL-terminated list of words, or an error naming them. */
static int parse_choice(const struct entry *x, const char *const *words, int *out, char *err,
                        size_t errlen)
{
    char list[256] = "";
    for (int i = 0; words[i]; i++) {
        if (!strcmp(x->value, words[i])) {
            *out = i;
            return 0;
        }
        strncat(list, i ? " | " : "", sizeof list - strlen(list) - 1);
        strncat(list, words[i], sizeof list - strlen(list) - 1);
    }
    BAD(x, "%s = '%s' is not one of: %s", x->key, x->value, list);
}

static int parse_snapshots(const struct entry *x, struct scene *s, char *err, size_t errlen)
{
    char buf[1024];
    if (strlen(x->value) >= sizeof buf)
        BAD(x, "snapshots: the list is longer than %zu characters", sizeof buf - 1);
    strcpy(buf, x->value);
    s->nsnapshots = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok;
         tok = strtok_r(NULL, ", \t", &save)) {
        char *end;
        errno = 0;
        long v = strtol(tok, &end, 10);
        if (end == tok || *end || errno == ERANGE)
            BAD(x, "snapshots: '%s' is not a step number (expected a list such as 600, 900)",
                tok);
        if (v < 1 || v > s->steps)
            BAD(x, "snapshots: step %ld is out of range: allowed 1 to steps = %d", v, s->steps);
        if (s->nsnapshots && v <= s->snapshots[s->nsnapshots - 1])
            BAD(x, "snapshots: steps must be increasing, %ld follows %d", v,
                s->snapshots[s->nsnapshots - 1]);
        if (s->nsnapshots == SCENE_MAX_SNAPSHOTS)
            BAD(x, "snapshots: more than %d steps", SCENE_MAX_SNAPSHOTS);
        s->snapshots[s->nsnapshots++] = (int)v;
    }
    return 0;
}

static const char *const grid_keys[] = {"nx", "ny", "nz", "steps", "courant",
                                        "cells_per_wavelength", "conformal_pec",
                                        "conformal_min", "subpixel", "polarization",
                                        "dispersion_correction", "te_conductor_edges",
                                        "te_offdiagonal", NULL};
static const char *const source_keys[] = {"type", "angle", "amplitude", "ramp_periods",
                                          "frequency_hz", "front_offset", "center_x", "center_y",
                                          "center_z", "waveform", "pulse_width", "bandwidth",
                                          NULL};
static const char *const boundary_keys[] = {"type", "cells", "order", "sigma_factor",
                                            "kappa_max", "alpha_max", "strategy", NULL};
static const char *const output_keys[] = {"snapshots", "png", NULL};
static const char *const dft_keys[] = {"start_step", "frequencies", NULL};
static const char *const far_keys[] = {"frequencies", "start_step", "angles", "distance",
                                       "theta_points", "phi_points", NULL};
static const char *const flux_keys[] = {"frequencies", "start_step", "x0", "y0", "x1", "y1",
                                        NULL};
static const char *const probe_keys[] = {"x", "y", "z", "fields", "total", "every", NULL};
static const char *const object_keys[] = {"shape", "material", "eps_r", "center_x", "center_y",
                                          "center_z", "width", "height", "depth", "radius",
                                          "radius_x", "radius_y", "vertices", "rotation", NULL};

static const char *const map_keys[] = {"png", "colors", "hdf5", "eps_dataset", "sigma_dataset",
                                       "x0", "y0", "z0", "center_z", "depth", NULL};
static const char *const material_keys[] = {"eps_r", "mu_r", "sigma", "pec", "debye", "lorentz",
                                            "drude", "preset", NULL};

static bool in_list(const char *w, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(w, list[i]))
            return true;
    return false;
}

static int check_keys(struct entries *es, char *err, size_t errlen)
{
    for (int i = 0; i < es->n; i++) {
        const struct entry *x = &es->e[i];
        const char *const *keys;
        if (!strcmp(x->section, "grid"))
            keys = grid_keys;
        else if (!strcmp(x->section, "source"))
            keys = source_keys;
        else if (!strcmp(x->section, "boundary"))
            keys = boundary_keys;
        else if (!strcmp(x->section, "output"))
            keys = output_keys;
        else if (!strcmp(x->section, "monitor.dft"))
            keys = dft_keys;
        else if (!strncmp(x->section, "object.", 7) && x->section[7])
            keys = object_keys;
        else if (!strcmp(x->section, "monitor.far"))
            keys = far_keys;
        else if (!strncmp(x->section, "monitor.flux.", 13) && x->section[13])
            keys = flux_keys;
        else if (!strncmp(x->section, "probe.", 6) && x->section[6])
            keys = probe_keys;
        else if (!strncmp(x->section, "material.", 9) && x->section[9])
            keys = material_keys;
        else if (!strncmp(x->section, "map.", 4) && x->section[4])
            keys = map_keys;
        else
            BAD(x, "unknown section [%s]: allowed [grid], [source], [boundary], [output], "
                   "[object.NAME], [material.NAME], [map.NAME], [monitor.dft], "
                   "[monitor.far], [monitor.flux.NAME], [probe.NAME]",
                x->section);
        if (!in_list(x->key, keys)) {
            char list[256] = "";
            for (int k = 0; keys[k]; k++) {
                strncat(list, k ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, keys[k], sizeof list - strlen(list) - 1);
            }
            BAD(x, "unknown key '%s' in [%s]: allowed %s", x->key, x->section, list);
        }
        if (x->first_line)
            BAD(x, "%s is given twice in [%s] (first at line %d)", x->key, x->section,
                x->first_line);
    }
    return 0;
}

/* Look up section.key; NULL if absent. */
#define GET(sec, key) entries_find(es, (sec), (key))

static int interpret_grid(struct entries *es, struct scene *s, const char *path, char *err,
                          size_t errlen)
{
    const struct entry *x;
    static const char *const req[] = {"nx", "ny", "steps"};
    for (int i = 0; i < 3; i++)
        if (!GET("grid", req[i]))
            return seterr(err, errlen, "%s: [grid] %s is missing (a whole number of %s)", path,
                          req[i], i < 2 ? "cells" : "time steps");
    if (parse_int(GET("grid", "nx"), 8, 1 << 20, &s->nx, err, errlen)
        || parse_int(GET("grid", "ny"), 8, 1 << 20, &s->ny, err, errlen)
        || parse_int(GET("grid", "steps"), 0, 1000000000, &s->steps, err, errlen))
        return -1;
    s->nz = 1;
    if ((x = GET("grid", "nz")) && parse_int(x, 1, 1 << 20, &s->nz, err, errlen))
        return -1;
    if (s->nz > 1 && s->nz < 8)
        BAD(x, "nz = %d is out of range: 1 (a 2D scene) or 8 to 1048576 (3D)", s->nz);
    s->courant = 0.5;
    if ((x = GET("grid", "courant"))) {
        if (parse_double(x, 0.0, 1e9, true, &s->courant, err, errlen))
            return -1;
        if (s->nz == 1 && s->courant > COURANT_LIMIT_2D)
            BAD(x, "courant = %s is above the 2D stability limit 0.7071", x->value);
        if (s->nz > 1 && s->courant > COURANT_LIMIT_3D)
            BAD(x, "courant = %s is above the 3D stability limit 0.5774", x->value);
    }
    s->cells_per_wavelength = 20.0;
    if ((x = GET("grid", "cells_per_wavelength"))
        && parse_double(x, 3.0, 1e6, false, &s->cells_per_wavelength, err, errlen))
        return -1;
    s->conformal_pec = false;
    if ((x = GET("grid", "conformal_pec")) && parse_bool(x, &s->conformal_pec, err, errlen))
        return -1;
    if (x && s->conformal_pec && s->nz > 1)
        BAD(x, "conformal_pec applies to 2D scenes only (this one has nz = %d)", s->nz);
    s->subpixel = true;
    if ((x = GET("grid", "subpixel")) && parse_bool(x, &s->subpixel, err, errlen))
        return -1;
    s->dispersion_correction = false;
    if ((x = GET("grid", "dispersion_correction"))
        && parse_bool(x, &s->dispersion_correction, err, errlen))
        return -1;
    /* polarization: tm (Ez, Hx, Hy) or te (Hz, Ex, Ey: the TMz engine on the
     * dual fields, docs/materials-design.md section 1); 2D only */
    s->te = false;
    if ((x = GET("grid", "polarization"))) {
        static const char *const pols[] = {"tm", "te", NULL};
        int t = 0;
        if (parse_choice(x, pols, &t, err, errlen))
            return -1;
        s->te = t == 1;
        if (s->te && s->nz > 1)
            BAD(x, "polarization = te applies to 2D scenes only (this one has nz = %d)", s->nz);
    }
    /* TE: an edge touching a Drude material's cell takes that material whole */
    s->te_conductor_edges = true;
    if ((x = GET("grid", "te_conductor_edges"))) {
        if (parse_bool(x, &s->te_conductor_edges, err, errlen))
            return -1;
        if (!s->te)
            BAD(x, "te_conductor_edges applies with polarization = te only");
    }
    /* TE with subpixel: the smoothed edges' off-diagonal (eps^-1)_xy
     * (core/model.h hoff) */
    s->te_offdiagonal = true;
    if ((x = GET("grid", "te_offdiagonal"))) {
        if (parse_bool(x, &s->te_offdiagonal, err, errlen))
            return -1;
        if (!s->te)
            BAD(x, "te_offdiagonal applies with polarization = te only");
    }
    s->conformal_min = 0.5;
    if ((x = GET("grid", "conformal_min"))) {
        if (!s->conformal_pec)
            BAD(x, "conformal_min applies with conformal_pec = true only");
        if (s->te)
            BAD(x, "conformal_min applies to TM only: the TE conformal boundary keeps every "
                "cut cell and floors its area by the Courant number (docs/accuracy.md)");
        if (parse_double(x, 0.05, 1.0, false, &s->conformal_min, err, errlen))
            return -1;
        /* measured (docs/accuracy.md): stable at 0.1 / 0.2 / 0.3 for S = 0.5 /
         * 0.6 / 0.7, unstable at 0.1 / 0.2 for S = 0.6 / 0.7; 0.8 S^2 keeps a margin */
        if (s->conformal_min < 0.8 * s->courant * s->courant)
            BAD(x, "conformal_min = %s is below the stability bound 0.8*courant^2 = %.3f",
                x->value, 0.8 * s->courant * s->courant);
    }
    return 0;
}

static int interpret_source(struct entries *es, struct scene *s, char *err, size_t errlen)
{
    const struct entry *x;
    static const char *const types[] = {"plane_wave", "point", NULL};
    static const char *const waves[] = {"sine", "gaussian", "modulated_gaussian", "ricker", NULL};
    int t = 0;
    if ((x = GET("source", "type")) && parse_choice(x, types, &t, err, errlen))
        return -1;
    s->source_type = (enum source_type)t;
    static const char *const plane_only[] = {"angle", "front_offset", "bandwidth"};
    static const char *const point_only[] = {"center_x", "center_y", "center_z", "pulse_width"};
    for (int k = 0; k < 3; k++)
        if ((x = GET("source", plane_only[k])) && s->source_type != SOURCE_PLANE_WAVE)
            BAD(x, "%s applies to type = plane_wave only", x->key);
    for (int k = 0; k < 4; k++)
        if ((x = GET("source", point_only[k])) && s->source_type != SOURCE_POINT)
            BAD(x, "%s applies to type = point only", x->key);
    int w = 0;
    if ((x = GET("source", "waveform")) && parse_choice(x, waves, &w, err, errlen))
        return -1;
    s->waveform = (enum waveform)w;
    if (x && s->source_type == SOURCE_POINT && w > WAVEFORM_GAUSSIAN)
        BAD(x, "waveform = %s applies to type = plane_wave only (a point source takes sine | "
               "gaussian)", x->value);
    if (s->source_type == SOURCE_POINT) {
        const char *c[3] = {"center_x", "center_y", "center_z"};
        double *v[3] = {&s->point_x, &s->point_y, &s->point_z};
        const int n[3] = {s->nx, s->ny, s->nz};
        for (int k = 0; k < (s->nz > 1 ? 3 : 2); k++) {
            if (!(x = GET("source", c[k])))
                return seterr(err, errlen, "%s: [source] type = point needs %s", es->path, c[k]);
            if (parse_double(x, 1.0, (double)(n[k] - 2), false, v[k], err, errlen))
                return -1;
        }
        if (s->nz == 1 && (x = GET("source", "center_z")))
            BAD(x, "center_z applies to 3D scenes only (this one has nz = 1)");
        s->pulse_width = s->cells_per_wavelength / s->courant / 4.0;
        if ((x = GET("source", "pulse_width")) && parse_double(x, 0.5, 1e6, false, &s->pulse_width, err, errlen))
            return -1;
    }
    /* plane-wave pulses: the spectrum's half-amplitude width, in units of f0 */
    s->bandwidth = 1.0;
    if ((x = GET("source", "bandwidth"))) {
        if (s->waveform != WAVEFORM_GAUSSIAN && s->waveform != WAVEFORM_MODULATED_GAUSSIAN)
            BAD(x, "bandwidth applies to waveform = gaussian | modulated_gaussian only");
        if (parse_double(x, 0.01, 10.0, false, &s->bandwidth, err, errlen))
            return -1;
        if (s->waveform == WAVEFORM_MODULATED_GAUSSIAN && s->bandwidth > 2.0)
            BAD(x, "bandwidth = %s is out of range for a modulated gaussian: allowed 0.01 to 2 "
                   "(the band f0 (1 -+ bandwidth/2) must stay above 0)", x->value);
    }
    s->angle_deg = 0.0;
    s->amplitude = 1.0;
    s->ramp_periods = 1.0;
    s->frequency_hz = 1e9;
    if ((x = GET("source", "angle")) && parse_double(x, -360.0, 360.0, false, &s->angle_deg, err, errlen))
        return -1;
    if ((x = GET("source", "amplitude")) && parse_double(x, 0.0, 1e30, true, &s->amplitude, err, errlen))
        return -1;
    if ((x = GET("source", "ramp_periods"))) {
        if (s->waveform != WAVEFORM_SINE)
            BAD(x, "ramp_periods applies to waveform = sine only");
        if (parse_double(x, 0.0, 1e6, false, &s->ramp_periods, err, errlen))
            return -1;
    }
    if ((x = GET("source", "front_offset"))
        && parse_double(x, -1e7, 1e7, false, &s->front_offset, err, errlen))
        return -1;
    if ((x = GET("source", "frequency_hz")) && parse_double(x, 0.0, 1e30, true, &s->frequency_hz, err, errlen))
        return -1;
    return 0;
}

static int interpret_boundary(struct entries *es, struct scene *s, char *err, size_t errlen)
{
    static const char *const types[] = {"pec", "cpml", "mur", NULL};
    const struct entry *x = GET("boundary", "type");
    int t = 0;
    if (x && parse_choice(x, types, &t, err, errlen))
        return -1;
    s->boundary = (enum boundary_type)t;
    s->cpml_cells = 10;
    s->cpml_order = 3.0;
    s->cpml_sigma_factor = 1.0;
    s->cpml_kappa_max = 1.0;
    s->cpml_alpha_max = 0.0;
    static const char *const cpml_only[] = {"cells", "order", "sigma_factor", "kappa_max",
                                            "alpha_max", "strategy"};
    static const char *const strategies[] = {"combined", "regions", "per-face", NULL};
    for (int k = 0; k < 6; k++)
        if ((x = GET("boundary", cpml_only[k])) && s->boundary != BOUNDARY_CPML)
            BAD(x, "%s applies to type = cpml only", x->key);
    if ((x = GET("boundary", "cells")) && parse_int(x, 1, 1000, &s->cpml_cells, err, errlen))
        return -1;
    s->cpml_strategy = PML_COMBINED;
    if ((x = GET("boundary", "strategy"))) {
        if (s->nz == 1)
            BAD(x, "strategy applies to 3D scenes only (this one has nz = 1)");
        if (parse_choice(x, strategies, &t, err, errlen))
            return -1;
        s->cpml_strategy = (enum pml_strategy)t;
    }
    if ((x = GET("boundary", "order")) && parse_double(x, 0.0, 10.0, false, &s->cpml_order, err, errlen))
        return -1;
    if ((x = GET("boundary", "sigma_factor"))
        && parse_double(x, 0.0, 100.0, false, &s->cpml_sigma_factor, err, errlen))
        return -1;
    if ((x = GET("boundary", "kappa_max"))
        && parse_double(x, 1.0, 1000.0, false, &s->cpml_kappa_max, err, errlen))
        return -1;
    if ((x = GET("boundary", "alpha_max"))
        && parse_double(x, 0.0, 10.0, false, &s->cpml_alpha_max, err, errlen))
        return -1;
    if (s->boundary == BOUNDARY_CPML
        && (2 * s->cpml_cells + 4 > s->nx || 2 * s->cpml_cells + 4 > s->ny
            || (s->nz > 1 && 2 * s->cpml_cells + 4 > s->nz)))
    {
        char dims[64];
        snprintf(dims, sizeof dims, s->nz > 1 ? "%d x %d x %d" : "%d x %d", s->nx, s->ny, s->nz);
        BAD(GET("boundary", "type"), "a %d-cell CPML on each side leaves no interior in a %s grid",
            s->cpml_cells, dims);
    }
    return 0;
}

void scene_object_bounds(const struct scene_object *o, bool d3, double lo[3], double hi[3])
{
    const double c[3] = {o->center_x, o->center_y, o->center_z};
    const double ac = fabs(o->rot_cos), as = fabs(o->rot_sin);
    double h[3] = {o->radius, o->radius, o->radius};
    switch (o->shape) {
    case SHAPE_CIRCLE:
    case SHAPE_SPHERE:
        break;
    case SHAPE_RECTANGLE:
    case SHAPE_BOX:
        h[0] = 0.5 * o->width;
        h[1] = 0.5 * o->height;
        h[2] = 0.5 * o->depth;
        if (o->rotated) {
            h[0] = ac * 0.5 * o->width + as * 0.5 * o->height;
            h[1] = as * 0.5 * o->width + ac * 0.5 * o->height;
        }
        break;
    case SHAPE_ELLIPSE:
        h[0] = o->radius_x;
        h[1] = o->radius_y;
        if (o->rotated) {
            h[0] = sqrt(o->radius_x * o->radius_x * ac * ac + o->radius_y * o->radius_y * as * as);
            h[1] = sqrt(o->radius_x * o->radius_x * as * as + o->radius_y * o->radius_y * ac * ac);
        }
        break;
    case SHAPE_POLYGON:
        h[2] = 0.5 * o->depth;
        break;
    }
    for (int a = 0; a < 3; a++) {
        lo[a] = c[a] - h[a];
        hi[a] = c[a] + h[a];
        /* a turn that is not a multiple of 90 degrees rounds: widen a little */
        if (a < 2 && o->rotated && o->shape != SHAPE_POLYGON && ac != 0 && as != 0) {
            lo[a] -= 1e-9 * (1 + fabs(lo[a]));
            hi[a] += 1e-9 * (1 + fabs(hi[a]));
        }
    }
    if (o->shape == SHAPE_POLYGON)
        for (int k = 0; k < o->nvertices; k++)
            for (int a = 0; a < 2; a++) {
                const double v = o->vertices[2 * k + a];
                lo[a] = k == 0 || v < lo[a] ? v : lo[a];
                hi[a] = k == 0 || v > hi[a] ? v : hi[a];
            }
    if (!d3)
        lo[2] = hi[2] = 0;
}

int scene_interior_margin(const struct scene *s)
{
    return s->boundary == BOUNDARY_CPML ? s->cpml_cells + 1 : s->boundary == BOUNDARY_MUR ? 2 : 1;
}

static int parse_monitor_freqs(struct entries *es, const char *section, const struct scene *s,
                               struct scene_freqs *fr, char *err, size_t errlen);

static int interpret_monitor(struct entries *es, struct scene *s, const char *path, char *err,
                             size_t errlen)
{
    (void)path;
    s->dft_nfreq = 1;
    s->dft_freq[0] = 1.0;
    if (!GET("monitor.dft", "start_step") && !GET("monitor.dft", "frequencies"))
        return 0;
    struct scene_freqs fr;
    if (parse_monitor_freqs(es, "monitor.dft", s, &fr, err, errlen))
        return -1;
    s->dft = true;
    s->dft_start = fr.start_step;
    s->dft_nfreq = fr.n;
    memcpy(s->dft_freq, fr.f, sizeof fr.f);
    return 0;
}

/* A frequency list "0.8, 1, 1.2" (units of the source frequency): each above 0
 * and at least 3 cells per wavelength, at most SCENE_MAX_FREQS. */
static int parse_freqs(const struct entry *x, const struct scene *s, struct scene_freqs *fr,
                       char *err, size_t errlen)
{
    char buf[1024];
    if (strlen(x->value) >= sizeof buf)
        BAD(x, "frequencies: the list is longer than %zu characters", sizeof buf - 1);
    strcpy(buf, x->value);
    const double fmax = s->cells_per_wavelength / 3.0;
    fr->n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok;
         tok = strtok_r(NULL, ", \t", &save)) {
        char *end;
        errno = 0;
        const double v = strtod(tok, &end);
        if (end == tok || *end || errno == ERANGE || !isfinite(v))
            BAD(x, "frequencies: '%s' is not a number (expected a list such as 0.8, 1, 1.2, in "
                   "units of the source frequency)", tok);
        if (v <= 0.0 || v > fmax)
            BAD(x, "frequencies: %s is out of range: allowed above 0 to %g (3 cells per "
                   "wavelength at cells_per_wavelength = %g)", tok, fmax,
                s->cells_per_wavelength);
        if (fr->n == SCENE_MAX_FREQS)
            BAD(x, "frequencies: more than %d", SCENE_MAX_FREQS);
        fr->f[fr->n++] = v;
    }
    if (fr->n == 0)
        BAD(x, "frequencies is empty (expected a list such as 0.8, 1, 1.2)");
    return 0;
}

/* frequencies and start_step of a monitor section; defaults 1 and 0. */
static int parse_monitor_freqs(struct entries *es, const char *section, const struct scene *s,
                               struct scene_freqs *fr, char *err, size_t errlen)
{
    const struct entry *x;
    fr->n = 1;
    fr->f[0] = 1.0;
    fr->start_step = 0;
    if ((x = GET(section, "frequencies")) && parse_freqs(x, s, fr, err, errlen))
        return -1;
    if ((x = GET(section, "start_step"))) {
        if (parse_int(x, 0, 1000000000, &fr->start_step, err, errlen))
            return -1;
        if (fr->start_step >= s->steps)
            BAD(x, "start_step = %d must be below steps = %d (the DFT needs samples)",
                fr->start_step, s->steps);
    }
    return 0;
}

/* The cells the objects may paint, per axis (conformal promotion included);
 * the grid's centre cell when there is no object. */
static void objects_bbox(const struct scene *s, int lo[3], int hi[3])
{
    const int n[3] = {s->nx, s->ny, s->nz};
    for (int a = 0; a < 3; a++)
        lo[a] = hi[a] = n[a] / 2;
    for (int k = 0; k < s->nobjects; k++) {
        double l[3], u[3];
        scene_object_bounds(&s->objects[k], s->nz > 1, l, u);
        for (int a = 0; a < (s->nz > 1 ? 3 : 2); a++) {
            if (k == 0 || (int)floor(l[a]) < lo[a])
                lo[a] = (int)floor(l[a]);
            if (k == 0 || (int)ceil(u[a]) > hi[a])
                hi[a] = (int)ceil(u[a]);
        }
    }
    for (int k = 0; k < s->nmaps; k++) {
        const struct scene_map *mp = &s->maps[k];
        const int l[3] = {mp->x0, mp->y0, mp->z0};
        const int u[3] = {mp->x0 + mp->nx - 1, mp->y0 + mp->ny - 1,
                          mp->nz > 1 ? mp->z0 + mp->nz - 1 : mp->k1};
        for (int a = 0; a < (s->nz > 1 ? 3 : 2); a++) {
            if ((k == 0 && s->nobjects == 0) || l[a] < lo[a])
                lo[a] = l[a];
            if ((k == 0 && s->nobjects == 0) || u[a] > hi[a])
                hi[a] = u[a];
        }
    }
    if (s->nz == 1)
        lo[2] = hi[2] = 0;
}

/* The far-field contour: cells lo .. hi, faces at lo - 1/2 and hi + 1/2, so it
 * reads Ez (E) on cells lo - 1 .. hi + 1; those must lie outside the
 * absorbing layer (the interior margin) and, by at least one cell, outside
 * every object. */
static int interpret_far(struct entries *es, struct scene *s, char *err, size_t errlen)
{
    const char *sec = "monitor.far";
    struct scene_far *f = &s->far;
    const struct entry *x = NULL;
    bool any = false;
    for (int i = 0; far_keys[i]; i++)
        if ((x = GET(sec, far_keys[i])))
            any = true;
    if (!any)
        return 0;
    f->on = true;
    const bool d3 = s->nz > 1;
    const struct entry *first = NULL;
    for (int i = 0; i < es->n; i++)
        if (!strcmp(es->e[i].section, sec) && (!first || (es->e[i].line && es->e[i].line < first->line)))
            first = &es->e[i];
    if (s->boundary == BOUNDARY_PEC)
        BAD(first, "[monitor.far] needs an open boundary ([boundary] type = cpml | mur): inside "
                   "a PEC box the scattered field never leaves, and there is no far field");
    if (parse_monitor_freqs(es, sec, s, &f->fr, err, errlen))
        return -1;
    for (int i = 0; i < 2; i++)
        if ((x = GET(sec, i ? "phi_points" : "theta_points")) && !d3)
            BAD(x, "%s applies to 3D scenes only (this one has nz = 1)", x->key);
    f->angles = 360;
    if ((x = GET(sec, "angles")) && parse_int(x, 1, 1000000, &f->angles, err, errlen))
        return -1;
    f->theta_points = d3 ? 37 : 0;
    f->phi_points = d3 ? 72 : 0;
    if ((x = GET(sec, "theta_points")) && parse_int(x, 0, 100000, &f->theta_points, err, errlen))
        return -1;
    if ((x = GET(sec, "phi_points")) && parse_int(x, 0, 100000, &f->phi_points, err, errlen))
        return -1;
    int blo[3], bhi[3];
    objects_bbox(s, blo, bhi);
    const int margin = scene_interior_margin(s), n[3] = {s->nx, s->ny, s->nz};
    const int na = d3 ? 3 : 2;
    /* the room between the objects and the layer: the contour's Ez at lo - 1
     * must be >= margin, and lo <= blo - 1 */
    int room = 1 << 30;
    for (int a = 0; a < na; a++) {
        const int r = blo[a] - 1 - margin < n[a] - 1 - margin - (bhi[a] + 1)
                          ? blo[a] - 1 - margin : n[a] - 1 - margin - (bhi[a] + 1);
        room = r < room ? r : room;
    }
    f->distance = -1;
    if ((x = GET(sec, "distance"))) {
        if (parse_int(x, 1, 1 << 20, &f->distance, err, errlen))
            return -1;
        if (f->distance > room)
            BAD(x, "distance = %d puts the contour into the %s: at most %d here (the objects "
                   "span cells %d .. %d in x, %d .. %d in y%s)", f->distance,
                s->boundary == BOUNDARY_CPML ? "CPML" : "Mur layer", room < 1 ? 0 : room,
                blo[0], bhi[0], blo[1], bhi[1], d3 ? " and more in z" : "");
    } else {
        if (room < 1)
            BAD(first, "no room for the far-field contour: it needs one vacuum cell between "
                       "the objects (cells %d .. %d in x, %d .. %d in y) and the %s, and "
                       "another inside the layer's edge; enlarge the grid",
                blo[0], bhi[0], blo[1], bhi[1],
                s->boundary == BOUNDARY_CPML ? "CPML" : "Mur layer");
        f->distance = (room + 1) / 2;
    }
    for (int a = 0; a < 3; a++) {
        f->lo[a] = a < na ? blo[a] - f->distance : 0;
        f->hi[a] = a < na ? bhi[a] + f->distance : 0;
    }
    return 0;
}

static int interpret_flux(struct entries *es, const char *section, struct scene *s,
                          struct scene_flux *fl, char *err, size_t errlen)
{
    const struct entry *x;
    const char *name = section + 13;
    memset(fl, 0, sizeof *fl);
    if (strlen(name) >= sizeof fl->name)
        return seterr(err, errlen, "%s: [%s]: name longer than %zu characters", es->path,
                      section, sizeof fl->name - 1);
    strcpy(fl->name, name);
    if (s->nz > 1)
        return seterr(err, errlen, "%s: [%s]: flux monitors are 2D only (this scene has nz = %d)",
                      es->path, section, s->nz);
    const char *keys[4] = {"x0", "x1", "y0", "y1"};
    int *v[4] = {&fl->x0, &fl->x1, &fl->y0, &fl->y1};
    const int margin = scene_interior_margin(s);
    for (int k = 0; k < 4; k++) {
        const int n = k < 2 ? s->nx : s->ny;
        if (!(x = GET(section, keys[k])))
            return seterr(err, errlen, "%s: [%s] needs %s (cells; see docs/scenes.md)", es->path,
                          section, keys[k]);
        /* a box reads Ez one cell beyond its cells, a line one cell beyond x0 or y0 */
        if (parse_int(x, margin + 1, n - 2 - margin, v[k], err, errlen))
            return -1;
    }
    if (fl->x1 < fl->x0 || fl->y1 < fl->y0)
        BAD(GET(section, fl->x1 < fl->x0 ? "x1" : "y1"), "%s = %d is below %s = %d",
            fl->x1 < fl->x0 ? "x1" : "y1", fl->x1 < fl->x0 ? fl->x1 : fl->y1,
            fl->x1 < fl->x0 ? "x0" : "y0", fl->x1 < fl->x0 ? fl->x0 : fl->y0);
    fl->kind = fl->x0 == fl->x1 ? FLUX_LINE_X : fl->y0 == fl->y1 ? FLUX_LINE_Y : FLUX_BOX;
    if (fl->x0 == fl->x1 && fl->y0 == fl->y1)
        BAD(GET(section, "x1"), "x0 = x1 and y0 = y1: a flux line needs a length (a box needs "
                                "x0 < x1 and y0 < y1)");
    return parse_monitor_freqs(es, section, s, &fl->fr, err, errlen);
}

static int interpret_probe(struct entries *es, const char *section, struct scene *s,
                           struct scene_probe *p, char *err, size_t errlen)
{
    const struct entry *x;
    const char *name = section + 6;
    const bool d3 = s->nz > 1;
    memset(p, 0, sizeof *p);
    if (strlen(name) >= sizeof p->name)
        return seterr(err, errlen, "%s: [%s]: name longer than %zu characters", es->path,
                      section, sizeof p->name - 1);
    strcpy(p->name, name);
    const char *keys[3] = {"x", "y", "z"};
    int *v[3] = {&p->i, &p->j, &p->k};
    const int n[3] = {s->nx, s->ny, s->nz};
    for (int a = 0; a < 3; a++) {
        x = GET(section, keys[a]);
        if (a == 2 && !d3) {
            if (x)
                BAD(x, "z applies to 3D scenes only (this one has nz = 1)");
            break;
        }
        if (!x)
            return seterr(err, errlen, "%s: [%s] needs %s (a cell index)", es->path, section,
                          keys[a]);
        if (parse_int(x, 0, n[a] - 1, v[a], err, errlen))
            return -1;
    }
    /* the fields of the scene's polarisation, with their bits (enum field) */
    static const char *const f2[] = {"ez", "hx", "hy", NULL};
    static const char *const fte[] = {"hz", "ex", "ey", NULL};
    static const char *const f3[] = {"ex", "ey", "ez", "hx", "hy", "hz", NULL};
    static const int bit2[] = {FIELD_EZ_BIT, FIELD_HX_BIT, FIELD_HY_BIT};
    static const int bitte[] = {FIELD_HZ_BIT, FIELD_EX_BIT, FIELD_EY_BIT};
    static const int bit3[] = {FIELD_EX_BIT, FIELD_EY_BIT, FIELD_EZ_BIT, FIELD_HX_BIT,
                               FIELD_HY_BIT, FIELD_HZ_BIT};
    const char *const *names = d3 ? f3 : s->te ? fte : f2;
    const int *bits = d3 ? bit3 : s->te ? bitte : bit2;
    const char *what = d3 ? "3D scene" : s->te ? "TE scene ([grid] polarization = te)" : "2D scene";
    const char *allowed = d3 ? "ex, ey, ez, hx, hy, hz" : s->te ? "hz, ex, ey" : "ez, hx, hy";
    p->fields = 1u << (s->te ? FIELD_HZ_BIT : FIELD_EZ_BIT);
    if ((x = GET(section, "fields"))) {
        char buf[1024];
        if (strlen(x->value) >= sizeof buf)
            BAD(x, "fields: the list is longer than %zu characters", sizeof buf - 1);
        strcpy(buf, x->value);
        p->fields = 0;
        for (char *save = NULL, *tok = strtok_r(buf, ", \t", &save); tok;
             tok = strtok_r(NULL, ", \t", &save)) {
            if (!strcmp(tok, "all")) {
                for (int i = 0; names[i]; i++)
                    p->fields |= 1u << bits[i];
                continue;
            }
            int i = 0;
            while (names[i] && strcmp(tok, names[i]))
                i++;
            if (!names[i])
                BAD(x, "fields: '%s' is not a field of a %s: allowed %s, or all", tok, what,
                    allowed);
            p->fields |= 1u << bits[i];
        }
        if (!p->fields)
            BAD(x, "fields is empty (expected %s, a list such as %s, or all)", names[0],
                s->te ? "hz, ex" : "ez, hx");
    }
    p->total = true;
    if ((x = GET(section, "total")) && parse_bool(x, &p->total, err, errlen))
        return -1;
    p->every = 1;
    if ((x = GET(section, "every")) && parse_int(x, 1, 1000000000, &p->every, err, errlen))
        return -1;
    return 0;
}

/* True if entry i is the first one of a section beginning with prefix. */
static bool first_of(const struct entries *es, int i, const char *prefix)
{
    return es->e[i].first_in_section && !strncmp(es->e[i].section, prefix, strlen(prefix));
}

/* [monitor.far], [monitor.flux.NAME] and [probe.NAME]: after the objects. */
static int interpret_monitors(struct entries *es, struct scene *s, char *err, size_t errlen)
{
    if (interpret_far(es, s, err, errlen))
        return -1;
    int nf = 0, np = 0;
    for (int i = 0; i < es->n; i++) {
        nf += first_of(es, i, "monitor.flux.");
        np += first_of(es, i, "probe.");
    }
    s->flux = nf ? calloc((size_t)nf, sizeof *s->flux) : NULL;
    s->probes = np ? calloc((size_t)np, sizeof *s->probes) : NULL;
    if ((nf && !s->flux) || (np && !s->probes))
        return seterr(err, errlen, "out of memory");
    for (int i = 0; i < es->n; i++) {
        if (first_of(es, i, "monitor.flux.")
            && interpret_flux(es, es->e[i].section, s, &s->flux[s->nflux++], err, errlen))
            return -1;
        if (first_of(es, i, "probe.")
            && interpret_probe(es, es->e[i].section, s, &s->probes[s->nprobes++], err, errlen))
            return -1;
    }
    return 0;
}

static int interpret_output(struct entries *es, struct scene *s, char *err, size_t errlen)
{
    const struct entry *x;
    s->png = true;
    if ((x = GET("output", "png")) && parse_bool(x, &s->png, err, errlen))
        return -1;
    if ((x = GET("output", "snapshots")) && parse_snapshots(x, s, err, errlen))
        return -1;
    return 0;
}

/* The object must lie inside the grid's interior: not on the outer PEC ring,
 * the Mur layer or the CPML slabs (scene_interior_margin). */
static int check_extent(const struct entry *x, const struct scene *s, const char *kind,
                        const char *name, char axis, double lo, double hi, int n, char *err,
                        size_t errlen)
{
    static const char *const layer[] = {"", " (the CPML slabs take the cells beyond)",
                                        " (Mur needs a free cell inside each wall)"};
    const int k = scene_interior_margin(s);
    if (lo < (double)k || hi > (double)(n - 1 - k))
        BAD(x, "%s%s spans %c = %g to %g, outside the grid interior %d to %d%s",
            kind, name, axis,
            lo, hi, k, n - 1 - k, layer[s->boundary]);
    return 0;
}

/* ---- [material.NAME] ----------------------------------------------------- */

/* Published fits for `preset`, converted to the poles of scene.h (eV to
 * rad/s: omega = E / hbar, 1 eV = 1.519267447e15 rad/s).
 *   gold, silver: the Lorentz-Drude (LD) model of A. D. Rakic, A. B.
 *     Djurisic, J. M. Elazar and M. L. Majewski, "Optical properties of
 *     metallic films for vertical-cavity optoelectronic devices", Appl. Opt.
 *     37, 5271 (1998), Table 1 (LD): eps_inf = 1, a Drude term of
 *     omega_p = sqrt(f0) wp and gamma = Gamma0, and all five Lorentz terms,
 *     delta_eps = f_j wp^2 / w_j^2, w0 = w_j, gamma = Gamma_j (valid from
 *     about 0.1 to 5 eV, 0.25 to 12 um).  Their Brendel-Bormann fits have no
 *     auxiliary-differential form and are not used.
 *   water: one Debye pole at 25 C, U. Kaatze, "Complex permittivity of water
 *     as a function of frequency and temperature", J. Chem. Eng. Data 34, 371
 *     (1989): eps_s = 78.36, eps_inf = 5.2, tau = 8.27 ps (no conductivity:
 *     pure water). */
#define EV_RAD_S 1.519267447e15
struct preset_ld {
    const char *name;
    double wp, f0, g0, f[5], g[5], w[5]; /* eV */
};
static const struct preset_ld presets_ld[] = {
    {"gold", 9.03, 0.760, 0.053, {0.024, 0.010, 0.071, 0.601, 4.384},
     {0.241, 0.345, 0.870, 2.494, 2.214}, {0.415, 0.830, 2.969, 4.304, 13.32}},
    {"silver", 9.01, 0.845, 0.048, {0.065, 0.124, 0.011, 0.840, 5.646},
     {3.886, 0.452, 0.065, 0.916, 2.419}, {0.816, 4.481, 8.185, 9.083, 20.29}},
};

static void apply_preset(struct scene_material *m, int which)
{
    m->eps_inf = 1.0;
    m->npoles = 0;
    if (which < 2) {
        const struct preset_ld *p = &presets_ld[which];
        m->poles[m->npoles++] = (struct scene_pole){POLE_DRUDE, 0.0, sqrt(p->f0) * p->wp * EV_RAD_S,
                                                    p->g0 * EV_RAD_S};
        for (int j = 0; j < 5; j++)
            m->poles[m->npoles++] = (struct scene_pole){
                POLE_LORENTZ, p->f[j] * p->wp * p->wp / (p->w[j] * p->w[j]), p->w[j] * EV_RAD_S,
                p->g[j] * EV_RAD_S};
    } else { /* water */
        m->eps_inf = 5.2;
        m->poles[m->npoles++] = (struct scene_pole){POLE_DEBYE, 78.36 - 5.2, 8.27e-12, 0.0};
    }
}

/* debye = delta_eps tau, ... | lorentz = delta_eps omega0 gamma, ... | drude =
 * omega_p gamma, ...: poles of one kind, appended to m (replacing the
 * preset's poles of that kind). */
static int parse_poles(const struct entry *x, enum pole_kind kind, struct scene_material *m,
                       char *err, size_t errlen)
{
    static const char *const form[] = {"delta_eps tau_s", "delta_eps omega0 gamma",
                                       "omega_p gamma"};
    static const int nv[] = {2, 3, 2};
    int n = 0;
    for (int k = 0; k < m->npoles; k++) /* drop the preset's poles of this kind */
        if (m->poles[k].kind != kind)
            m->poles[n++] = m->poles[k];
    m->npoles = n;
    const char *p = x->value;
    for (int k = 1;; k++) {
        double v[3] = {0, 0, 0};
        for (int a = 0; a < nv[kind]; a++) {
            char *end;
            errno = 0;
            v[a] = strtod(p, &end);
            if (end == p || errno == ERANGE || !isfinite(v[a]))
                BAD(x, "%s: pole %d is not %d numbers '%s' (a list such as %s)", x->key, k,
                    nv[kind], form[kind],
                    kind == POLE_DEBYE ? "70 8e-12" : kind == POLE_LORENTZ ? "2 3e15 1e14, 1 5e15 2e14"
                                                                            : "1.3e16 1e14");
            p = end;
        }
        /* ranges: delta_eps, tau, frequencies above 0 (Lorentz delta_eps may be negative,
         * as in some fits, but not 0); gamma >= 0 */
        const double mag = 1e20;
        if (kind == POLE_DEBYE && (v[0] <= 0 || v[0] > 1e6 || v[1] <= 0 || v[1] > 1.0))
            BAD(x, "debye: pole %d: delta_eps = %g, tau = %g s out of range: allowed delta_eps above "
                   "0 to 1e6, tau above 0 to 1 s", k, v[0], v[1]);
        if (kind == POLE_LORENTZ
            && (v[0] == 0 || fabs(v[0]) > 1e6 || v[1] <= 0 || v[1] > mag || v[2] < 0 || v[2] > mag))
            BAD(x, "lorentz: pole %d: delta_eps = %g, omega0 = %g, gamma = %g out of range: "
                   "allowed delta_eps not 0, |delta_eps| <= 1e6, omega0 above 0 to 1e20 rad/s, "
                   "gamma 0 to 1e20 rad/s", k, v[0], v[1], v[2]);
        if (kind == POLE_DRUDE && (v[0] <= 0 || v[0] > mag || v[1] < 0 || v[1] > mag))
            BAD(x, "drude: pole %d: omega_p = %g, gamma = %g out of range: allowed omega_p above "
                   "0 to 1e20 rad/s, gamma 0 to 1e20 rad/s", k, v[0], v[1]);
        if (m->npoles == SCENE_MAX_POLES)
            BAD(x, "%s: more than %d poles in material %s (all kinds together)", x->key,
                SCENE_MAX_POLES, m->name);
        m->poles[m->npoles++] = kind == POLE_DRUDE
                                    ? (struct scene_pole){kind, 0.0, v[0], v[1]}
                                    : (struct scene_pole){kind, v[0], v[1], v[2]};
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        if (*p != ',')
            BAD(x, "%s: expected ',' after pole %d, found '%.20s'", x->key, k, p);
        p++;
    }
    return 0;
}

static int interpret_material(struct entries *es, const char *section, struct scene_material *m,
                              char *err, size_t errlen)
{
    const char *name = section + 9;
    const struct entry *x;
    memset(m, 0, sizeof *m);
    m->eps_inf = 1.0;
    m->mu_r = 1.0;
    const struct entry *first = NULL;
    for (int i = es->cur; i >= 0; i = es->e[i].next_in_section)
        if (!first || (es->e[i].line && es->e[i].line < first->line))
            first = &es->e[i];
    if (strlen(name) >= sizeof m->name)
        BAD(first, "[%s]: material name longer than %zu characters", section, sizeof m->name - 1);
    if (!strcmp(name, "pec") || !strcmp(name, "dielectric") || !strcmp(name, "vacuum"))
        BAD(first, "[%s]: '%s' is a built-in material (pec, dielectric, vacuum): give the table's "
                   "material another name", section, name);
    strcpy(m->name, name);

    if ((x = GET(section, "pec"))) {
        if (parse_bool(x, &m->is_pec, err, errlen))
            return -1;
        if (m->is_pec)
            for (int k = 0; material_keys[k]; k++)
                if (strcmp(material_keys[k], "pec") && GET(section, material_keys[k]))
                    BAD(GET(section, material_keys[k]), "%s does not apply to material %s, which "
                        "is pec = true", material_keys[k], name);
    }
    static const char *const presets[] = {"gold", "silver", "water", NULL};
    int pr;
    if ((x = GET(section, "preset"))) {
        if (parse_choice(x, presets, &pr, err, errlen))
            return -1;
        apply_preset(m, pr);
        where_to(x, m->where_poles, sizeof m->where_poles);
    }
    if ((x = GET(section, "eps_r")) && parse_double(x, 1.0, 1e4, false, &m->eps_inf, err, errlen))
        return -1;
    if ((x = GET(section, "mu_r"))) {
        if (parse_double(x, 0.01, 1e4, false, &m->mu_r, err, errlen))
            return -1;
        if (m->mu_r != 1.0)
            where_to(x, m->where_mu, sizeof m->where_mu);
    }
    if ((x = GET(section, "sigma"))) {
        if (parse_double(x, 0.0, 1e9, false, &m->sigma, err, errlen))
            return -1;
        if (m->sigma != 0.0)
            where_to(x, m->where_sigma, sizeof m->where_sigma);
    }
    static const char *const pole_keys[] = {"debye", "lorentz", "drude"};
    for (int k = 0; k < 3; k++)
        if ((x = GET(section, pole_keys[k]))) {
            if (parse_poles(x, (enum pole_kind)k, m, err, errlen))
                return -1;
            where_to(x, m->where_poles, sizeof m->where_poles);
        }
    if (!m->npoles)
        m->where_poles[0] = 0;
    return 0;
}

static int interpret_materials(struct entries *es, struct scene *s, char *err, size_t errlen)
{
    int n = 0;
    for (int i = 0; i < es->n; i++)
        n += first_of(es, i, "material.");
    s->materials = n ? calloc((size_t)n, sizeof *s->materials) : NULL;
    if (n && !s->materials)
        return seterr(err, errlen, "out of memory");
    for (int i = 0; i < es->n; i++) {
        if (!first_of(es, i, "material."))
            continue;
        es->cur = i;
        const int rc = interpret_material(es, es->e[i].section, &s->materials[s->nmaterials++],
                                          err, errlen);
        es->cur = -1;
        if (rc)
            return -1;
    }
    return 0;
}

/* The material a name refers to: 0 pec, 1 dielectric, 2 vacuum, 3 + k the
 * table's material k; -1 if none. */
static int find_material(const struct scene *s, const char *name)
{
    static const char *const builtin[] = {"pec", "dielectric", "vacuum"};
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, builtin[k]))
            return k;
    for (int k = 0; k < s->nmaterials; k++)
        if (!strcmp(name, s->materials[k].name))
            return 3 + k;
    return -1;
}

/* "pec, dielectric, vacuum, glass, gold" into buf. */
static const char *material_names(const struct scene *s, char *buf, size_t len)
{
    snprintf(buf, len, "pec, dielectric, vacuum");
    for (int k = 0; k < s->nmaterials && strlen(buf) + 8 < len; k++) {
        if (k == 8) {
            strncat(buf, ", ...", len - strlen(buf) - 1);
            break;
        }
        strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, s->materials[k].name, len - strlen(buf) - 1);
    }
    return buf;
}

/* vertices = x0 y0, x1 y1, ...: at least 3 points (cells), each finite. */
#define SCENE_MAX_VERTICES 100000
static int parse_vertices(const struct entry *x, struct scene_object *o, char *err, size_t errlen)
{
    int cap = 16, n = 0;
    double *v = malloc((size_t)cap * 2 * sizeof *v);
    if (!v)
        return seterr(err, errlen, "out of memory reading vertices");
    const char *p = x->value;
    for (int k = 0;; k++) {
        char *end;
        double xy[2];
        for (int a = 0; a < 2; a++) {
            errno = 0;
            xy[a] = strtod(p, &end);
            if (end == p || errno == ERANGE || !isfinite(xy[a]) || fabs(xy[a]) > 1e9) {
                free(v);
                BAD(x, "vertices: point %d is not two numbers 'x y' (expected a list such as "
                       "0 0, 4 0, 4 3, in cells)", k + 1);
            }
            p = end;
        }
        if (n == cap) {
            cap *= 2;
            double *w = realloc(v, (size_t)cap * 2 * sizeof *v);
            if (!w) {
                free(v);
                return seterr(err, errlen, "out of memory reading vertices");
            }
            v = w;
        }
        v[2 * n] = xy[0];
        v[2 * n + 1] = xy[1];
        n++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        if (*p != ',' || n == SCENE_MAX_VERTICES) {
            free(v);
            if (n == SCENE_MAX_VERTICES)
                BAD(x, "vertices: more than %d points", SCENE_MAX_VERTICES);
            BAD(x, "vertices: expected ',' after point %d, found '%.20s'", n, p);
        }
        p++;
    }
    if (n < 3) {
        free(v);
        BAD(x, "vertices: a polygon needs at least 3 points, found %d", n);
    }
    o->vertices = v;
    o->nvertices = n;
    return 0;
}

/* rotation = DEG: cos and sin, exact at multiples of 90 degrees. */
static void set_rotation(struct scene_object *o, double deg)
{
    double r = fmod(deg, 360.0);
    if (r < 0)
        r += 360.0;
    o->rotation_deg = deg;
    o->rotated = r != 0.0;
    static const double c4[4] = {1, 0, -1, 0}, s4[4] = {0, 1, 0, -1};
    if (r == 0.0 || r == 90.0 || r == 180.0 || r == 270.0) {
        o->rot_cos = c4[(int)(r / 90.0)];
        o->rot_sin = s4[(int)(r / 90.0)];
    } else {
        o->rot_cos = cos(r * M_PI / 180.0);
        o->rot_sin = sin(r * M_PI / 180.0);
    }
}

static int interpret_object(struct entries *es, const char *section, struct scene *s,
                            struct scene_object *o, const char *path, char *err, size_t errlen)
{
    const char *name = section + 7;
    const struct entry *x;
    static const char *const shapes[] = {"rectangle", "circle", "box", "sphere", "polygon",
                                         "ellipse", NULL};
    /* the size keys each shape takes (a polygon: depth in 3D only); the rest are refused */
    static const char *const size_keys[6][3] = {
        {"width", "height", NULL}, {"radius", NULL, NULL}, {"width", "height", "depth"},
        {"radius", NULL, NULL}, {"depth", NULL, NULL}, {"radius_x", "radius_y", NULL}};
    static const char *const all_sizes[] = {"width", "height", "depth", "radius", "radius_x",
                                            "radius_y"};
    const bool d3 = s->nz > 1;
    int k;

    memset(o, 0, sizeof *o);
    o->rot_cos = 1.0;
    if (strlen(name) >= sizeof o->name)
        return seterr(err, errlen, "%s: [%s]: object name longer than %zu characters", path,
                      section, sizeof o->name - 1);
    strcpy(o->name, name);

    if (!(x = GET(section, "shape")))
        return seterr(err, errlen, "%s: [%s] has no shape (%s)", path, section,
                      d3 ? "box | sphere | polygon" : "rectangle | circle | ellipse | polygon");
    if (parse_choice(x, shapes, &k, err, errlen))
        return -1;
    o->shape = (enum shape)k;
    const struct entry *shape_x = x;
    const bool polygon = o->shape == SHAPE_POLYGON;
    const bool shape3d = o->shape == SHAPE_BOX || o->shape == SHAPE_SPHERE;
    if (!polygon && shape3d != d3)
        BAD(x, "shape = %s is a %s shape, and this scene is %s (nz = %d): use %s", x->value,
            shape3d ? "3D" : "2D", d3 ? "3D" : "2D", s->nz, d3 ? "box | sphere" : "rectangle | circle");

    char names[512];
    if (!(x = GET(section, "material")))
        return seterr(err, errlen, "%s: [%s] has no material (%s)", path, section,
                      material_names(s, names, sizeof names));
    const int mi = find_material(s, x->value);
    if (mi < 0)
        BAD(x, "material = '%s' is not one of: %s (the built-ins and this scene's "
               "[material.NAME] sections)", x->value, material_names(s, names, sizeof names));
    o->table = mi >= 3 ? mi - 3 : -1;
    o->material = mi == 0 ? MATERIAL_PEC : mi == 2 ? MATERIAL_VACUUM : MATERIAL_DIELECTRIC;
    const struct entry *mat_x = x;

    x = GET(section, "eps_r");
    if (mi == 1) {
        if (!x)
            return seterr(err, errlen, "%s: [%s] is dielectric but has no eps_r", path, section);
        if (parse_double(x, 1.0, 1e4, false, &o->eps_r, err, errlen))
            return -1;
    } else if (x) {
        if (mi >= 3)
            BAD(x, "eps_r applies to material = dielectric only; object.%s is material = %s, "
                   "which gives its own eps_r", name, mat_x->value);
        BAD(x, "eps_r applies to dielectric objects only; object.%s is %s", name, mat_x->value);
    }
    if (mi == 2)
        o->eps_r = 1.0;
    if (mi >= 3) {
        struct scene_material *t = &s->materials[mi - 3];
        t->used = true;
        o->material = t->is_pec ? MATERIAL_PEC : MATERIAL_DIELECTRIC;
        o->eps_r = t->is_pec ? 0.0 : t->eps_inf;
    }

    /* centre */
    const char *centre[3] = {"center_x", "center_y", "center_z"};
    double *cv[3] = {&o->center_x, &o->center_y, &o->center_z};
    for (int i = 0; i < 3; i++) {
        if (i == 2 && !d3) {
            if ((x = GET(section, centre[2])))
                BAD(x, "center_z applies to 3D scenes only (this one has nz = 1)");
            break;
        }
        if (polygon && i < 2) { /* the mean of the vertices */
            if ((x = GET(section, centre[i])))
                BAD(x, "%s does not apply to a polygon (its vertices place it; it turns about "
                       "their mean)", x->key);
            continue;
        }
        if (!(x = GET(section, centre[i])))
            return seterr(err, errlen, "%s: [%s] has no %s", path, section, centre[i]);
        if (parse_double(x, -1e9, 1e9, false, cv[i], err, errlen))
            return -1;
    }

    /* polygon vertices, their mean the centre */
    x = GET(section, "vertices");
    if (polygon) {
        if (!x)
            return seterr(err, errlen, "%s: [%s] is a polygon and needs vertices (x0 y0, x1 y1, "
                                       "..., in cells)", path, section);
        if (parse_vertices(x, o, err, errlen))
            return -1;
        double sx = 0, sy = 0;
        for (int v = 0; v < o->nvertices; v++)
            sx += o->vertices[2 * v], sy += o->vertices[2 * v + 1];
        o->center_x = sx / o->nvertices;
        o->center_y = sy / o->nvertices;
    } else if (x) {
        BAD(x, "vertices apply to a polygon only, not a %s", shape_x->value);
    }

    /* rotation about z, counter-clockwise, degrees */
    if ((x = GET(section, "rotation"))) {
        if (o->shape == SHAPE_CIRCLE || o->shape == SHAPE_SPHERE)
            BAD(x, "rotation does not apply to a %s (it looks the same at any angle)",
                shape_x->value);
        double deg;
        if (parse_double(x, -360.0, 360.0, false, &deg, err, errlen))
            return -1;
        set_rotation(o, deg);
        if (polygon && o->rotated) /* the vertices turn about their mean, once, here */
            for (int v = 0; v < o->nvertices; v++) {
                const double dx = o->vertices[2 * v] - o->center_x;
                const double dy = o->vertices[2 * v + 1] - o->center_y;
                o->vertices[2 * v] = o->center_x + (o->rot_cos * dx - o->rot_sin * dy);
                o->vertices[2 * v + 1] = o->center_y + (o->rot_sin * dx + o->rot_cos * dy);
            }
    }

    /* sizes */
    const char *const *want = size_keys[o->shape];
    if (polygon && !d3)
        want = size_keys[1] + 1; /* none */
    for (int i = 0; i < 6; i++) {
        bool wanted = false;
        for (int w = 0; w < 3 && want[w]; w++)
            wanted |= !strcmp(want[w], all_sizes[i]);
        if (!wanted && (x = GET(section, all_sizes[i])))
            BAD(x, "%s does not apply to a%s %s", x->key, shape_x->value[0] == 'e' ? "n" : "",
                shape_x->value);
    }
    double *sv[6] = {&o->width, &o->height, &o->depth, &o->radius, &o->radius_x, &o->radius_y};
    for (int w = 0; w < 3 && want[w]; w++) {
        if (!(x = GET(section, want[w])))
            return seterr(err, errlen, "%s: [%s] is a%s %s and needs %s", path, section,
                          shape_x->value[0] == 'e' ? "n" : "", shape_x->value, want[w]);
        int i = 0;
        while (strcmp(want[w], all_sizes[i]))
            i++;
        if (parse_double(x, 0.0, 1e9, true, sv[i], err, errlen))
            return -1;
    }

    /* extent along each axis */
    double lo[3], hi[3];
    scene_object_bounds(o, d3, lo, hi);
    const int n[3] = {s->nx, s->ny, s->nz};
    for (int i = 0; i < (d3 ? 3 : 2); i++)
        if (check_extent(GET(section, polygon && i < 2 ? "vertices" : centre[i]), s, "object.", name,
                         "xyz"[i], lo[i], hi[i], n[i], err, errlen))
            return -1;
    return 0;
}


/* ---- [map.NAME] ---------------------------------------------------------- */

/* A file named in the scene: relative to the scene file's folder. */
static void scene_relative(const struct scene *s, const char *file, char *out, size_t len)
{
    const char *slash = strrchr(s->path, '/');
    if (file[0] == '/' || !slash)
        snprintf(out, len, "%s", file);
    else
        snprintf(out, len, "%.*s/%s", (int)(slash - s->path), s->path, file);
}

/* colors = #rrggbb NAME, ...: one value per colour, in the order given. */
static int parse_colors(const struct entry *x, struct scene *s, struct scene_map *mp, char *err,
                        size_t errlen)
{
    const char *p = x->value;
    char names[512];
    for (int k = 1;; k++) {
        while (*p == ' ' || *p == '\t')
            p++;
        unsigned rgb;
        int used = 0;
        char name[SCENE_NAME_MAX + 1];
        if (sscanf(p, "#%6x %64[^, \t]%n", &rgb, name, &used) != 2 || p[7] != ' ')
            BAD(x, "colors: entry %d is not '#rrggbb NAME' (a list such as #000000 pec, "
                   "#ffffff vacuum, #3366cc glass)", k);
        p += used;
        const int mi = find_material(s, name);
        if (mi < 0)
            BAD(x, "colors: entry %d: '%s' is not one of: %s", k, name,
                material_names(s, names, sizeof names));
        if (mi == 1)
            BAD(x, "colors: entry %d: 'dielectric' has no eps_r here: name a [material.NAME] "
                   "with its eps_r", k);
        for (int v = 0; v < mp->nvalues; v++)
            if (mp->values[v].rgb == rgb)
                BAD(x, "colors: #%06x is given twice (entries %d and %d)", rgb, v + 1, k);
        if (mp->nvalues == SCENE_MAP_MAX_VALUES)
            BAD(x, "colors: more than %d colours", SCENE_MAP_MAX_VALUES);
        struct scene_map_value *v = &mp->values[mp->nvalues++];
        v->rgb = rgb;
        v->table = mi >= 3 ? mi - 3 : -1;
        v->kind = mi == 0 ? MATERIAL_PEC : mi == 2 ? MATERIAL_VACUUM : MATERIAL_DIELECTRIC;
        v->eps_r = mi == 0 ? 0.0 : 1.0;
        if (mi >= 3) {
            struct scene_material *t = &s->materials[mi - 3];
            t->used = true;
            v->kind = t->is_pec ? MATERIAL_PEC : MATERIAL_DIELECTRIC;
            v->eps_r = t->is_pec ? 0.0 : t->eps_inf;
        }
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return 0;
        if (*p != ',')
            BAD(x, "colors: expected ',' after entry %d, found '%.20s'", k, p);
        p++;
    }
}

static int map_png(struct entries *es, const char *section, struct scene *s, struct scene_map *mp,
                   const struct entry *file_x, char *err, size_t errlen)
{
    const struct entry *x = GET(section, "colors");
    if (!x)
        return seterr(err, errlen, "%s: [%s] needs colors (#rrggbb NAME, ...: the material of "
                                   "each colour)", es->path, section);
    if (parse_colors(x, s, mp, err, errlen))
        return -1;
    const struct entry *colors_x = x;
    char path[4200], e2[ERRLEN];
    scene_relative(s, file_x->value, path, sizeof path);
    int w, h;
    uint8_t *rgb;
    if (matmap_read_png(path, &w, &h, &rgb, e2, sizeof e2))
        BAD(file_x, "%s", e2);
    mp->nx = w;
    mp->ny = h;
    mp->nz = 1;
    mp->cell = malloc((size_t)w * (size_t)h);
    if (!mp->cell) {
        free(rgb);
        return seterr(err, errlen, "out of memory reading %s", path);
    }
    int last = 0;
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
            const uint8_t *q = rgb + 3 * ((size_t)r * w + c);
            const uint32_t v = (uint32_t)q[0] << 16 | (uint32_t)q[1] << 8 | q[2];
            if (mp->values[last].rgb != v) {
                last = 0;
                while (last < mp->nvalues && mp->values[last].rgb != v)
                    last++;
                if (last == mp->nvalues) {
                    free(rgb);
                    BAD(colors_x, "map.%s: pixel (%d, %d) of %s (column, row from the top; cell "
                        "(%d, %d)) has colour #%06x, which colors does not map", mp->name, c, r,
                        file_x->value, mp->x0 + c, mp->y0 + h - 1 - r, v);
                }
            }
            mp->cell[(size_t)c + (size_t)(h - 1 - r) * w] = (uint8_t)last;
        }
    free(rgb);
    return 0;
}

/* The value index of (eps, sigma), added if new. */
static int map_value(struct scene_map *mp, double eps, double sigma, int *last)
{
    const struct scene_map_value *v = &mp->values[*last];
    if (*last < mp->nvalues && v->eps_r == eps && v->sigma == sigma)
        return *last;
    for (int k = 0; k < mp->nvalues; k++)
        if (mp->values[k].eps_r == eps && mp->values[k].sigma == sigma)
            return *last = k;
    if (mp->nvalues == SCENE_MAP_MAX_VALUES)
        return -1;
    mp->values[mp->nvalues] = (struct scene_map_value){
        eps == 1.0 && sigma == 0.0 ? MATERIAL_VACUUM : MATERIAL_DIELECTRIC, -1, eps, sigma, 0};
    return *last = mp->nvalues++;
}

static int map_hdf5(struct entries *es, const char *section, struct scene *s, struct scene_map *mp,
                    const struct entry *file_x, char *err, size_t errlen)
{
    const struct entry *x;
    if ((x = GET(section, "colors")))
        BAD(x, "colors applies to png maps only");
    const struct entry *eps_x = GET(section, "eps_dataset"), *sig_x = GET(section, "sigma_dataset");
    const char *eps_name = eps_x ? eps_x->value : "/eps_r";
    char path[4200], e2[ERRLEN];
    scene_relative(s, file_x->value, path, sizeof path);
    int rank, srank = 0;
    size_t dims[3], sdims[3];
    double *eps = NULL, *sig = NULL;
    if (matmap_read_h5(path, eps_name, &rank, dims, &eps, e2, sizeof e2))
        BAD(eps_x ? eps_x : file_x, "%s", e2);
    if (sig_x && matmap_read_h5(path, sig_x->value, &srank, sdims, &sig, e2, sizeof e2)) {
        free(eps);
        BAD(sig_x, "%s", e2);
    }
    int rc = -1;
    if (sig_x && (srank != rank || memcmp(dims, sdims, (size_t)rank * sizeof *dims))) {
        seterr(err, errlen, "%s: %s %s and %s differ in shape", where(sig_x, path, sizeof path),
               file_x->value, eps_name, sig_x->value);
        goto out;
    }
    if (rank == 3 && s->nz == 1) {
        seterr(err, errlen, "%s: %s %s is 3D ([nz][ny][nx]) and this scene is 2D",
               where(eps_x ? eps_x : file_x, path, sizeof path), file_x->value, eps_name);
        goto out;
    }
    if (dims[rank - 1] > (1u << 20) || dims[rank - 2] > (1u << 20) || (rank == 3 && dims[0] > (1u << 20))) {
        seterr(err, errlen, "%s: %s %s is larger than any grid", where(file_x, path, sizeof path),
               file_x->value, eps_name);
        goto out;
    }
    mp->nx = (int)dims[rank - 1];
    mp->ny = (int)dims[rank - 2];
    mp->nz = rank == 3 ? (int)dims[0] : 1;
    const size_t n = (size_t)mp->nx * mp->ny * mp->nz;
    mp->cell = malloc(n ? n : 1);
    if (!mp->cell) {
        seterr(err, errlen, "out of memory reading %s", path);
        goto out;
    }
    int last = 0, distinct = 0;
    for (size_t c = 0; c < n; c++) {
        const double e = eps[c], sg = sig ? sig[c] : 0.0;
        if (!isfinite(e) || e < 1.0 || e > 1e4 || !isfinite(sg) || sg < 0 || sg > 1e9) {
            const size_t i = c % mp->nx, j = c / mp->nx % mp->ny, k = c / mp->nx / mp->ny;
            const struct entry *bad = !(e >= 1.0 && e <= 1e4) ? (eps_x ? eps_x : file_x) : sig_x;
            char at[64];
            if (rank == 3)
                snprintf(at, sizeof at, "[%zu][%zu][%zu]", k, j, i);
            else
                snprintf(at, sizeof at, "[%zu][%zu]", j, i);
            seterr(err, errlen, "%s: map.%s: element %s has eps_r = %g, sigma = %g: allowed eps_r "
                   "1 to 10000, sigma 0 to 1e9 S/m", where(bad, path, sizeof path), mp->name, at,
                   e, sg);
            goto out;
        }
        const int v = map_value(mp, e, sg, &last);
        if (v < 0) {
            /* count them all for the message */
            double *seen = malloc(2 * n * sizeof *seen);
            if (seen) {
                for (size_t d = 0; d < n; d++) {
                    size_t q = 0;
                    const double ed = eps[d], sd = sig ? sig[d] : 0.0;
                    for (int u = 0; u < distinct; u++)
                        if (seen[2 * u] == ed && seen[2 * u + 1] == sd) {
                            q = 1;
                            break;
                        }
                    if (!q && distinct < 100000)
                        seen[2 * distinct] = ed, seen[2 * distinct + 1] = sd, distinct++;
                }
                free(seen);
            }
            seterr(err, errlen, "%s: map.%s: %s %s%s%s has %s%d distinct %s, and at most %d fit "
                   "the one-byte material index per cell (%d materials, vacuum included)",
                   where(file_x, path, sizeof path), mp->name, file_x->value, eps_name,
                   sig_x ? " with " : "", sig_x ? sig_x->value : "", distinct >= 100000 ? "over " : "",
                   distinct, sig_x ? "(eps_r, sigma) pairs" : "values", SCENE_MAP_MAX_VALUES, 256);
            goto out;
        }
        mp->cell[c] = (uint8_t)v;
        if (sg != 0.0 && !mp->where_sigma[0])
            where_to(sig_x, mp->where_sigma, sizeof mp->where_sigma);
    }
    rc = 0;
out:
    free(eps);
    free(sig);
    return rc;
}

static int interpret_map(struct entries *es, const char *section, struct scene *s,
                         struct scene_map *mp, char *err, size_t errlen)
{
    const char *name = section + 4;
    const bool d3 = s->nz > 1;
    const struct entry *x, *png_x = GET(section, "png"), *h5_x = GET(section, "hdf5");
    memset(mp, 0, sizeof *mp);
    if (strlen(name) >= sizeof mp->name)
        return seterr(err, errlen, "%s: [%s]: map name longer than %zu characters", es->path,
                      section, sizeof mp->name - 1);
    strcpy(mp->name, name);
    if (!png_x == !h5_x) {
        if (png_x)
            BAD(h5_x, "a map takes png or hdf5, not both");
        return seterr(err, errlen, "%s: [%s] needs png = FILE (with colors) or hdf5 = FILE (with "
                                   "eps_dataset)", es->path, section);
    }
    mp->kind = png_x ? MAP_PNG : MAP_HDF5;
    if (png_x)
        for (int k = 0; k < 2; k++)
            if ((x = GET(section, k ? "sigma_dataset" : "eps_dataset")))
                BAD(x, "%s applies to hdf5 maps only", x->key);
    /* placement */
    const char *const pos[3] = {"x0", "y0", "z0"};
    int *pv[3] = {&mp->x0, &mp->y0, &mp->z0};
    for (int a = 0; a < 2; a++) {
        if (!(x = GET(section, pos[a])))
            return seterr(err, errlen, "%s: [%s] needs %s (the cell of the map's %s)", es->path,
                          section, pos[a], png_x ? "lower-left pixel" : "element [0][0]");
        if (parse_int(x, 0, 1 << 20, pv[a], err, errlen))
            return -1;
    }
    if (png_x ? map_png(es, section, s, mp, png_x, err, errlen)
              : map_hdf5(es, section, s, mp, h5_x, err, errlen))
        return -1;
    /* z: a 3D dataset takes z0; a 2D map in 3D takes center_z and depth */
    const struct entry *z0_x = GET(section, "z0"), *cz_x = GET(section, "center_z"),
                       *dp_x = GET(section, "depth");
    if (!d3 && (z0_x || cz_x || dp_x))
        BAD(z0_x ? z0_x : cz_x ? cz_x : dp_x, "%s applies to 3D scenes only (this one has nz = 1)",
            (z0_x ? z0_x : cz_x ? cz_x : dp_x)->key);
    if (mp->nz > 1) {
        if (cz_x || dp_x)
            BAD(cz_x ? cz_x : dp_x, "%s applies to a 2D map extruded along z; this map is 3D "
                "(use z0)", (cz_x ? cz_x : dp_x)->key);
        if (!z0_x)
            return seterr(err, errlen, "%s: [%s] is 3D and needs z0 (the cell of element "
                          "[0][0][0])", es->path, section);
        if (parse_int(z0_x, 0, 1 << 20, &mp->z0, err, errlen))
            return -1;
    } else if (d3) {
        if (z0_x)
            BAD(z0_x, "z0 applies to a 3D dataset; a 2D map is extruded over center_z and depth");
        double cz, dp;
        if (!cz_x || !dp_x)
            return seterr(err, errlen, "%s: [%s] is a 2D map in a 3D scene and needs center_z "
                          "and depth (its extent along z, cells, as a box)", es->path, section);
        if (parse_double(cz_x, -1e9, 1e9, false, &cz, err, errlen)
            || parse_double(dp_x, 0.0, 1e9, true, &dp, err, errlen))
            return -1;
        mp->k0 = (int)ceil(cz - 0.5 * dp);
        mp->k1 = (int)floor(cz + 0.5 * dp);
        mp->z0 = mp->k0;
    }
    /* extent: inside the interior, as the objects */
    const double lo[3] = {mp->x0, mp->y0, d3 ? mp->z0 : 0};
    const double hi[3] = {mp->x0 + mp->nx - 1, mp->y0 + mp->ny - 1,
                          d3 ? (mp->nz > 1 ? mp->z0 + mp->nz - 1 : mp->k1) : 0};
    const int n[3] = {s->nx, s->ny, s->nz};
    for (int a = 0; a < (d3 ? 3 : 2); a++)
        if (check_extent(a == 2 && mp->nz == 1 ? cz_x : a == 2 ? z0_x : GET(section, pos[a]), s,
                         "map.", name, "xyz"[a], lo[a], hi[a], n[a], err, errlen))
            return -1;
    return 0;
}

static int interpret_paintings(struct entries *es, struct scene *s, char *err, size_t errlen)
{
    int nobj = 0, nmap = 0;
    for (int i = 0; i < es->n; i++) {
        nobj += first_of(es, i, "object.");
        nmap += first_of(es, i, "map.");
    }
    s->objects = nobj ? calloc((size_t)nobj, sizeof *s->objects) : NULL;
    s->maps = nmap ? calloc((size_t)nmap, sizeof *s->maps) : NULL;
    if ((nobj && !s->objects) || (nmap && !s->maps))
        return seterr(err, errlen, "out of memory");
    for (int i = 0, order = 0; i < es->n; i++) {
        const bool obj = first_of(es, i, "object."), map = first_of(es, i, "map.");
        if (!obj && !map)
            continue;
        es->cur = i;
        int rc;
        if (obj) {
            struct scene_object *o = &s->objects[s->nobjects++];
            rc = interpret_object(es, es->e[i].section, s, o, es->path, err, errlen);
            o->order = order++;
        } else {
            struct scene_map *mp = &s->maps[s->nmaps++];
            rc = interpret_map(es, es->e[i].section, s, mp, err, errlen);
            mp->order = order++;
        }
        es->cur = -1;
        if (rc)
            return -1;
    }
    return 0;
}

static int interpret(struct entries *es, struct scene *s, char *err, size_t errlen)
{
    if (check_keys(es, err, errlen) || interpret_grid(es, s, es->path, err, errlen)
        || interpret_source(es, s, err, errlen) || interpret_boundary(es, s, err, errlen)
        || interpret_output(es, s, err, errlen) || interpret_monitor(es, s, es->path, err, errlen)
        || interpret_materials(es, s, err, errlen))
        return -1;

    /* objects and maps, in the order their sections first appear */
    if (interpret_paintings(es, s, err, errlen))
        return -1;
    return interpret_monitors(es, s, err, errlen);
}

/* The scene read from the open stream f, named path in messages. */
static int scene_load_stream(struct scene *s, FILE *f, const char *path, const char *const *sets,
                             int nset, char *err, size_t errlen)
{
    struct entries es = {.path = path, .f = f, .cur = -1};
    int rc = -1;

    int perr = ini_parse_stream(counting_reader, &es, collect_handler, &es);
    if (perr != 0) {
        if (es.err[0])
            seterr(err, errlen, "%s", es.err);
        else if (perr > 0)
            seterr(err, errlen, "%s:%d: not a 'key = value' line or a [section] header", path,
                   perr);
        else
            seterr(err, errlen, "%s: cannot read the scene", path);
        goto out;
    }
    if (entries_index(&es)) {
        seterr(err, errlen, "%s", es.err);
        goto out;
    }
    for (int i = 0; i < nset; i++)
        if (apply_set(&es, sets[i])) {
            seterr(err, errlen, "%s", es.err);
            goto out;
        }
    if (entries_mark_sections(&es)) {
        seterr(err, errlen, "%s", es.err);
        goto out;
    }
    rc = interpret(&es, s, err, errlen);
out:
    entries_free(&es);
    if (rc)
        scene_free(s);
    return rc;
}

/* Path and name first (messages and outputs use them), then the text. */
static int scene_set_path(struct scene *s, const char *path, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (strlen(path) >= sizeof s->path)
        return seterr(err, errlen, "%s: path too long", path);
    strcpy(s->path, path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(s->name, sizeof s->name, "%.*s", (int)sizeof s->name - 1, base);
    char *dot = strrchr(s->name, '.');
    if (dot && dot != s->name)
        *dot = 0;
    return 0;
}

int scene_load(struct scene *s, const char *path, const char *const *sets, int nset, char *err,
               size_t errlen)
{
    if (scene_set_path(s, path, err, errlen))
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return seterr(err, errlen, "%s: cannot open scene: %s", path, strerror(errno));
    const int rc = scene_load_stream(s, f, s->path, sets, nset, err, errlen);
    fclose(f);
    return rc;
}

int scene_load_text(struct scene *s, const char *name, const char *text, size_t len,
                    const char *const *sets, int nset, char *err, size_t errlen)
{
    if (scene_set_path(s, name, err, errlen))
        return -1;
    if (len == 0)
        text = "\n", len = 1; /* fmemopen needs a buffer */
    FILE *f = fmemopen((void *)text, len, "r");
    if (!f)
        return seterr(err, errlen, "%s: cannot read the scene text: %s", name, strerror(errno));
    const int rc = scene_load_stream(s, f, s->path, sets, nset, err, errlen);
    fclose(f);
    return rc;
}

void scene_free(struct scene *s)
{
    for (int k = 0; k < s->nobjects; k++)
        free(s->objects[k].vertices);
    free(s->objects);
    for (int k = 0; k < s->nmaps; k++)
        free(s->maps[k].cell);
    free(s->maps);
    s->maps = NULL;
    s->nmaps = 0;
    free(s->materials);
    s->materials = NULL;
    s->nmaterials = 0;
    free(s->flux);
    free(s->probes);
    s->objects = NULL;
    s->flux = NULL;
    s->probes = NULL;
    s->nobjects = s->nflux = s->nprobes = 0;
}

double scene_omega_dt(const struct scene *s)
{
    return 2.0 * M_PI * s->courant / s->cells_per_wavelength;
}

#define C0 299792458.0

double scene_dx(const struct scene *s) { return C0 / (s->frequency_hz * s->cells_per_wavelength); }

double scene_dt(const struct scene *s) { return s->courant * scene_dx(s) / C0; }

/* The scene file's whole text, NUL-terminated; *len without the NUL. */
char *scene_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        seterr(err, errlen, "%s: cannot open scene: %s", path, strerror(errno));
        return NULL;
    }
    char *text = NULL;
    *len = 0;
    FILE *out = open_memstream(&text, len);
    char buf[4096];
    size_t n;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    const bool failed = ferror(in) || !out;
    fclose(in);
    if (out)
        fclose(out);
    if (failed) {
        free(text);
        seterr(err, errlen, "%s: cannot read scene: %s", path, strerror(errno));
        return NULL;
    }
    return text;
}
