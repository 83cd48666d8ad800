/* args.h - small pieces shared by the subcommands' option parsers and their
 * output directories (texfdtd run, texfdtd compare). */
#ifndef TEXFDTD_ARGS_H
#define TEXFDTD_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/* "--name value" or "--name=value" at argv[*i] (advancing *i past a separate
 * value); the value, or NULL when it is missing. */
const char *opt_value(const char *name, int argc, char **argv, int *i);
/* arg is --name or --name=... */
bool is_opt(const char *arg, const char *name);
/* A whole number in [lo, hi]; -1 if s is not one. */
int parse_int_arg(const char *s, int lo, int hi, int *out);

/* mkdir -p */
int make_dirs(const char *path, char *err, size_t errlen);
/* 1 if dir exists and holds anything, 0 if absent or empty, -1 if it is not
 * a directory. */
int dir_nonempty(const char *dir);

/* An output directory may be written to: absent, empty, or non-empty with
 * force.  -1 with the reason otherwise (nothing is created). */
int outdir_check(const char *dir, bool force, char *err, size_t errlen);

#endif
