/* util.h - error buffers, allocation and logging shared by every part of texfdtd.
 *
 * Convention (after redis anet.c): a function that can fail returns 0 on
 * success and -1 on failure, and writes one line saying what failed, where and
 * why into the caller's buffer `err` of size `errlen`.  Only main() prints and
 * exits.
 */
#ifndef TEXFDTD_UTIL_H
#define TEXFDTD_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "texfdtd.h"

/* "MAJOR.MINOR.PATCH" of core/texfdtd.h */
#define TEXFDTD_STR_(x) #x
#define TEXFDTD_STR(x) TEXFDTD_STR_(x)
#define TEXFDTD_VERSION                                                                  \
    TEXFDTD_STR(TEXFDTD_VERSION_MAJOR) "." TEXFDTD_STR(TEXFDTD_VERSION_MINOR) "." TEXFDTD_STR(TEXFDTD_VERSION_PATCH)

#define ERRLEN 512

/* Exit statuses of the command. */
enum {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1, /* failure while running */
    EXIT_BADINPUT = 2, /* bad input: nothing ran, nothing written */
    EXIT_INTERRUPTED = 130 /* SIGINT or SIGTERM: stopped, a checkpoint written */
};

__attribute__((format(printf, 3, 4)))
int seterr(char *err, size_t errlen, const char *fmt, ...);

/* Allocation that reports the bytes it asked for; returns NULL and fills err. */
void *xcalloc(size_t n, size_t size, const char *what, char *err, size_t errlen);

__attribute__((format(printf, 1, 2)))
void log_info(const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void log_warn(const char *fmt, ...);
void log_set_quiet(bool quiet);

/* Human-readable byte counts ("1.50 GiB"), into buf. */
const char *fmt_bytes(double bytes, char *buf, size_t len);

/* Monotonic wall clock in seconds. */
double now_seconds(void);

#endif
