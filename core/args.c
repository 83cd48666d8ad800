/* args.c - see args.h. */
#define _GNU_SOURCE
#include "args.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *opt_value(const char *name, int argc, char **argv, int *i)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n))
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

bool is_opt(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(arg, name, n) && (arg[n] == 0 || arg[n] == '=');
}

int parse_int_arg(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int make_dirs(const char *path, char *err, size_t errlen)
{
    char buf[4096];
    if (strlen(path) >= sizeof buf)
        return seterr(err, errlen, "%s: path too long", path);
    strcpy(buf, path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) && errno != EEXIST)
                return seterr(err, errlen, "cannot create directory %s: %s", buf, strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}

int dir_nonempty(const char *dir)
{
    struct stat st;
    if (stat(dir, &st))
        return 0;
    if (!S_ISDIR(st.st_mode))
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n > 0;
}

int outdir_check(const char *dir, bool force, char *err, size_t errlen)
{
    const int ne = dir_nonempty(dir);
    if (ne < 0)
        return seterr(err, errlen, "%s exists and is not a directory", dir);
    if (ne > 0 && !force)
        return seterr(err, errlen,
                      "%s exists and is not empty: use --force to write into it, or --out DIR",
                      dir);
    return 0;
}
