/* util.c - see util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool quiet_logs;

int seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void *xcalloc(size_t n, size_t size, const char *what, char *err, size_t errlen)
{
    char b[32];
    if (size && n > (size_t)-1 / size) {
        seterr(err, errlen, "cannot allocate %s: %zu x %zu bytes overflows", what, n, size);
        return NULL;
    }
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        seterr(err, errlen, "cannot allocate %s: %s (%zu bytes): %s", what,
               fmt_bytes((double)n * (double)size, b, sizeof b), n * size, strerror(errno));
    return p;
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void log_info(const char *fmt, ...)
{
    if (quiet_logs)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog("texfdtd: ", fmt, ap);
    va_end(ap);
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog("texfdtd: warning: ", fmt, ap);
    va_end(ap);
}

void log_set_quiet(bool quiet) { quiet_logs = quiet; }

const char *fmt_bytes(double bytes, char *buf, size_t len)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", bytes, unit[u]);
    return buf;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
