/* shader.h - GLSL programs loaded at run time from the shader directory.
 *
 * The host prepends `#version 430 core` and the generated #defines, then
 * `#line 100001 1` before the shared library file (update2d.glsl) and
 * `#line 1 0` before the pass itself.  The library's `#include "file"` lines
 * are spliced in, each file from line (k + 2) 100000 + 1 for the k-th; an
 * included file is looked up in the shader directory, then in ../core beside
 * it (core/yee.h in the source tree; make install copies it beside the
 * shaders).  So the driver's line numbers name the files (per 100000: Mesa's
 * log drops the source-string number) and a compile error comes out as
 * `shaders/update_e.frag:12: message` or `shaders/../core/yee.h:48: message`.
 */
#ifndef TEXFDTD_GL_SHADER_H
#define TEXFDTD_GL_SHADER_H

#include <GL/glew.h>
#include <stddef.h>

#define GLSL_VERSION_LINE "#version 430 core\n"

/* The shader directory: `configured` if not NULL, else $TEXFDTD_SHADER_DIR,
 * else <directory of the executable>/../shaders if it holds update2d.glsl,
 * else TEXFDTD_SHADER_DIR_DEFAULT if compiled in, else "./shaders". */
void gl_shader_dir(const char *configured, char *out, size_t len);

/* Compile and link the stages (file names in `dir`, stage from the extension:
 * .vert .frag .comp) with `lib` (a file name, or NULL; its #include lines
 * spliced in) prepended to each and `defines` (lines of #define) before it
 * (the vertex stage gets no `lib`).  Returns 0, or -1 with the first
 * error as `dir/file:line: message` in err. */
int gl_program_build(const char *dir, const char *lib, const char *const *stages, int nstages,
                     const char *defines, GLuint *out, char *err, size_t errlen);

/* The same with `tail` (GLSL text made by the host, or NULL) appended to the
 * last stage's file: update_k.frag's generated fast path (gl/kgen.c). */
int gl_program_build_tail(const char *dir, const char *lib, const char *const *stages,
                          int nstages, const char *defines, const char *tail, GLuint *out,
                          char *err, size_t errlen);

#endif
