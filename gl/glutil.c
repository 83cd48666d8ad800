/* glutil.c - small GL helpers of the GL engines: error and reset checks,
 * the error prefix, textures, framebuffers (one target, two targets) and the
 * ping-pong pairs every field lives in (gl2d_internal.h).  Nothing here knows
 * the engine struct.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/util.h"

#include <stdio.h>

const char *gl2d_error_name(GLenum e)
{
    switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_CONTEXT_LOST: return "GL_CONTEXT_LOST";
    default: return "GL error";
    }
}

/* GL errors are collected at a few places (after creation, after each batch,
 * after each readback) rather than after every call. */
int gl2d_check_gl(const char *where, char *err, size_t errlen)
{
    const GLenum e = glGetError();
    if (e == GL_NO_ERROR)
        return 0;
    while (glGetError() != GL_NO_ERROR)
        ;
    return seterr(err, errlen, "%s: %s (0x%04x)", where, gl2d_error_name(e), e);
}

int gl2d_check_reset(const char *where, char *err, size_t errlen)
{
    GLenum s = GL_NO_ERROR;
    if (glGetGraphicsResetStatus)
        s = glGetGraphicsResetStatus();
    else if (glGetGraphicsResetStatusARB)
        s = glGetGraphicsResetStatusARB();
    if (s == GL_NO_ERROR)
        return 0;
    return seterr(err, errlen,
                  "%s: the GPU context was reset (%s); results are lost and nothing was "
                  "written",
                  where,
                  s == GL_GUILTY_CONTEXT_RESET     ? "caused by this program's work"
                  : s == GL_INNOCENT_CONTEXT_RESET ? "caused by other work on the GPU"
                                                   : "cause unknown");
}

/* "what failed" -> "<engine>: what failed" */
int gl2d_prefix_err(const char *name, char *err, size_t errlen)
{
    char tmp[ERRLEN];
    snprintf(tmp, sizeof tmp, "%s", err ? err : "");
    return seterr(err, errlen, "%s: %s", name, tmp);
}

void gl2d_tex_params(GLenum target)
{
    glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

GLuint gl2d_make_tex(GLenum ifmt, int w, int h)
{
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexStorage2D(GL_TEXTURE_2D, 1, ifmt, w, h);
    gl2d_tex_params(GL_TEXTURE_2D);
    return t;
}

int gl2d_make_fbo(GLuint tex, GLuint *fbo, const char *what, char *err, size_t errlen)
{
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    const GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE)
        return seterr(err, errlen,
                      "%s render target is not complete (status 0x%04x): this driver cannot "
                      "render to it, and half floats are never used instead",
                      what, st);
    return 0;
}

/* A framebuffer rendering into two textures at once (MRT): Ez and H of the
 * multi-step pass. */
int gl2d_make_fbo2(GLuint tex0, GLuint tex1, GLuint *fbo, const char *what, char *err,
                   size_t errlen)
{
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex0, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT1, GL_TEXTURE_2D, tex1, 0);
    const GLenum bufs[2] = {GL_COLOR_ATTACHMENT0, GL_COLOR_ATTACHMENT1};
    glDrawBuffers(2, bufs);
    const GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE)
        return seterr(err, errlen, "%s render targets are not complete (status 0x%04x)", what,
                      st);
    return 0;
}

int gl2d_make_pair(struct pingpong *p, GLenum ifmt, int w, int h, const char *what, char *err,
                   size_t errlen)
{
    for (int k = 0; k < 2; k++) {
        p->tex[k] = gl2d_make_tex(ifmt, w, h);
        if (gl2d_check_gl(what, err, errlen)
            || gl2d_make_fbo(p->tex[k], &p->fbo[k], what, err, errlen))
            return -1;
        const float zero[4] = {0, 0, 0, 0};
        glClearBufferfv(GL_COLOR, 0, zero);
    }
    p->cur = 0;
    return 0;
}

void gl2d_free_pair(struct pingpong *p)
{
    glDeleteFramebuffers(2, p->fbo);
    glDeleteTextures(2, p->tex);
}
