/* egl.h - a headless OpenGL context through EGL, and the GL loader (GLEW).
 *
 * gl/egl.c is the only file that includes EGL.  It enumerates the EGL devices
 * (EGL_EXT_device_enumeration) and opens one with EGL_PLATFORM_DEVICE_EXT, so
 * that a GPU server uses its NVIDIA driver with no X or Wayland; where no
 * device can give a context it falls back to EGL_MESA_platform_surfaceless
 * (Mesa llvmpipe on a machine without a GPU).
 *
 * The context is desktop GL, core profile, at least GL_CTX_MAJOR.GL_CTX_MINOR,
 * robust (reset notification) where the driver offers
 * EGL_EXT_create_context_robustness or EGL 1.5.
 */
#ifndef TEXFDTD_GL_EGL_H
#define TEXFDTD_GL_EGL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The minimum: compute shaders and image load/store are GL 4.3; `precise`,
 * texelFetch on usampler2D and floatBitsToUint are older. */
#define GL_CTX_MAJOR 4
#define GL_CTX_MINOR 3

struct egl_ctx;

struct egl_ctx_info {
    int device;            /* EGL device index, -1 = the surfaceless platform */
    bool software;         /* a CPU renderer (llvmpipe) */
    bool robust;           /* created with reset notification LOSE_CONTEXT_ON_RESET */
    int cuda_device;       /* EGL_NV_device_cuda, -1 if unknown */
    char vendor[128];      /* GL_VENDOR */
    char renderer[256];    /* GL_RENDERER */
    char version[256];     /* GL_VERSION */
    char platform[64];     /* "EGL device 0", "EGL surfaceless (Mesa)" */
};

/* Make a context on EGL device `device` (-1: the first GPU device that works,
 * else Mesa's surfaceless platform), make it current and load GL entry points
 * through GLEW.  Returns 0, or -1 with a line in err. */
int egl_context_create(int device, struct egl_ctx **out, struct egl_ctx_info *info, char *err,
                       size_t errlen);
int egl_context_make_current(struct egl_ctx *c, char *err, size_t errlen);
void egl_context_destroy(struct egl_ctx *c);

/* One line per EGL device (and the surfaceless fallback): index, vendor,
 * renderer, GL version, CUDA device.  Returns the number of devices that gave
 * a context, or -1 with err when EGL itself is unusable. */
int egl_print_devices(FILE *out, char *err, size_t errlen);

#endif
