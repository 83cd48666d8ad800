/* movie.c - see movie.h. */
#define _GNU_SOURCE
#include "movie.h"
#include "output.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct movie {
    FILE *pipe;
    uint8_t *rgba;
    int nx, ny, frames;
    bool window;
    char tmp[4200], final[4200];
};

bool movie_ffmpeg_available(void)
{
    return system("command -v ffmpeg >/dev/null 2>&1") == 0;
}

static bool is_gif(const char *name)
{
    const size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".gif");
}

int movie_check_name(const char *name, char *err, size_t errlen)
{
    const size_t n = strlen(name);
    if (strchr(name, '/'))
        return seterr(err, errlen,
                      "--movie %s: give a file name only; the movie goes into the --out directory",
                      name);
    if (!(n > 4 && (!strcmp(name + n - 4, ".mp4") || is_gif(name))))
        return seterr(err, errlen, "--movie %s: the name must end in .mp4 or .gif", name);
    for (const char *p = name; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9')
              || *p == '.' || *p == '_' || *p == '-'))
            return seterr(err, errlen, "--movie %s: use letters, digits, '.', '_' and '-' only",
                          name);
    return 0;
}

/* A movie or window of nx x ny frames, not started yet. */
static struct movie *movie_new(int nx, int ny, bool window, char *err, size_t errlen)
{
    struct movie *mv = xcalloc(1, sizeof *mv, "movie", err, errlen);
    if (!mv)
        return NULL;
    mv->nx = nx;
    mv->ny = ny;
    mv->window = window;
    mv->rgba = xcalloc((size_t)nx * ny, 4, "movie frame", err, errlen);
    if (!mv->rgba) {
        free(mv);
        return NULL;
    }
    return mv;
}

/* Start `tool` (ffmpeg or ffplay) on cmd, reading frames from our pipe. */
static int movie_start(struct movie *mv, const char *cmd, const char *tool, struct movie **out,
                       char *err, size_t errlen)
{
    signal(SIGPIPE, SIG_IGN); /* a dead encoder or viewer shows up as a write error */
    mv->pipe = popen(cmd, "w");
    if (!mv->pipe) {
        seterr(err, errlen, "cannot start %s: %s", tool, strerror(errno));
        free(mv->rgba);
        free(mv);
        return -1;
    }
    *out = mv;
    return 0;
}

int movie_open(struct movie **out, const char *dir, const char *name, int nx, int ny, int fps,
               char *err, size_t errlen)
{
    struct movie *mv = movie_new(nx, ny, false, err, errlen);
    if (!mv)
        return -1;
    snprintf(mv->final, sizeof mv->final, "%s/%s", dir, name);
    snprintf(mv->tmp, sizeof mv->tmp, "%s/.%s.partial", dir, name);
    /* row 0 of a frame is j = 0: flip so that +y is up; H.264 in yuv420p
     * needs even sizes; a GIF gets its own palette */
    const char *filters = is_gif(name) ? "vflip,split[a][b];[a]palettegen[p];[b][p]paletteuse"
                                       : "vflip,pad=ceil(iw/2)*2:ceil(ih/2)*2";
    char cmd[9000];
    snprintf(cmd, sizeof cmd,
             "ffmpeg -hide_banner -loglevel error -y -f rawvideo -pix_fmt rgba -s %dx%d -r %d "
             "-i - -vf '%s' %s -f %s '%s'",
             nx, ny, fps, filters, is_gif(name) ? "" : "-c:v libx264 -pix_fmt yuv420p",
             is_gif(name) ? "gif" : "mp4", mv->tmp);
    return movie_start(mv, cmd, "ffmpeg", out, err, errlen);
}

bool movie_display_available(void)
{
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return ((x && *x) || (w && *w)) && system("command -v ffplay >/dev/null 2>&1") == 0;
}

int movie_open_window(struct movie **out, const char *title, int nx, int ny, int fps, char *err,
                      size_t errlen)
{
    struct movie *mv = movie_new(nx, ny, true, err, errlen);
    if (!mv)
        return -1;
    char safe[128];
    snprintf(safe, sizeof safe, "%s", title);
    for (char *p = safe; *p; p++)
        if (*p == '\'')
            *p = ' ';
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ffplay -hide_banner -loglevel error -autoexit -window_title 'texfdtd: %s' "
             "-f rawvideo -pixel_format rgba -video_size %dx%d -framerate %d -vf vflip -i -",
             safe, nx, ny, fps);
    return movie_start(mv, cmd, "ffplay", out, err, errlen);
}

int movie_frame(struct movie *mv, struct engine *e, char *err, size_t errlen)
{
    if (render_total_field(e, mv->rgba, err, errlen))
        return -1;
    const size_t bytes = (size_t)mv->nx * mv->ny * 4;
    if (fwrite(mv->rgba, 1, bytes, mv->pipe) != bytes || fflush(mv->pipe))
        return seterr(err, errlen, mv->window ? "the window was closed"
                                              : "ffmpeg stopped taking frames (writing %s)",
                      mv->tmp);
    mv->frames++;
    return 0;
}

int movie_close(struct movie *mv, char *err, size_t errlen)
{
    const int st = pclose(mv->pipe);
    mv->pipe = NULL;
    int rc = 0;
    if (mv->window) { /* the viewer's exit status says nothing about the run */
        free(mv->rgba);
        free(mv);
        return 0;
    }
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        rc = seterr(err, errlen, "ffmpeg failed to encode %s (status %d)", mv->final,
                    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    else if (rename(mv->tmp, mv->final))
        rc = seterr(err, errlen, "cannot rename %s to %s: %s", mv->tmp, mv->final,
                    strerror(errno));
    if (rc)
        unlink(mv->tmp);
    free(mv->rgba);
    free(mv);
    return rc;
}

void movie_abort(struct movie *mv)
{
    if (!mv)
        return;
    if (mv->pipe)
        pclose(mv->pipe);
    if (!mv->window)
        unlink(mv->tmp);
    free(mv->rgba);
    free(mv);
}
