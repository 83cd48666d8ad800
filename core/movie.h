/* movie.h - `texfdtd run --movie NAME` and `--window`: frames of the total
 * field, coloured by the engine (on the GPU for the GL engines: only the
 * RGBA8 picture is read back, never the float fields), piped as raw RGBA to
 * ffmpeg (a file) or to ffplay (a live window, where a display exists; the
 * run itself stays headless). */
#ifndef TEXFDTD_MOVIE_H
#define TEXFDTD_MOVIE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"

struct movie;

/* Is ffmpeg on the PATH?  (Checked before a run starts.) */
bool movie_ffmpeg_available(void);
/* name ends in .mp4 (H.264) or .gif; written as DIR/name, atomically. */
int movie_check_name(const char *name, char *err, size_t errlen);
int movie_open(struct movie **out, const char *dir, const char *name, int nx, int ny, int fps,
               char *err, size_t errlen);
/* A live window instead of a file: ffplay on $DISPLAY or $WAYLAND_DISPLAY. */
bool movie_display_available(void);
int movie_open_window(struct movie **out, const char *title, int nx, int ny, int fps, char *err,
                      size_t errlen);
int movie_frame(struct movie *mv, struct engine *e, char *err, size_t errlen);
int movie_close(struct movie *mv, char *err, size_t errlen); /* renames into place */
void movie_abort(struct movie *mv);                            /* removes the partial file */

#endif
