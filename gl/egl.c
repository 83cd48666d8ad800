/* egl.c - a headless desktop-GL context through EGL, and GLEW on top of it.
 *
 * Order of preference for the default device (-1): an EGL device that is not
 * a software renderer (the NVIDIA driver on a GPU server), then Mesa's
 * surfaceless platform (llvmpipe on CI machines and laptops without a GPU),
 * then a software EGL device.  An explicit index opens exactly that device.
 *
 * GLEW: Debian's libGLEW is built for GLX, so glewInit() returns
 * GLEW_ERROR_NO_GLX_DISPLAY under EGL (GLEW issue #273): it fails in its GLX
 * part, after the GL entry points were loaded.  We accept that one error on
 * purpose and then check every entry point the engines call.
 */
#include <GL/glew.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include "gl/egl.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

#ifndef EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT
#define EGL_CONTEXT_OPENGL_ROBUST_ACCESS_EXT 0x30BF
#endif
#ifndef EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT
#define EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT 0x3138
#endif
#ifndef EGL_LOSE_CONTEXT_ON_RESET_EXT
#define EGL_LOSE_CONTEXT_ON_RESET_EXT 0x31BF
#endif
#ifndef EGL_CUDA_DEVICE_NV
#define EGL_CUDA_DEVICE_NV 0x323A
#endif
#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

#define MAX_DEVICES 32

struct egl_ctx {
    EGLDisplay dpy;
    EGLContext ctx;
    EGLSurface surf; /* a 1x1 pbuffer only where surfaceless contexts are missing */
};

struct egl_fns {
    PFNEGLQUERYDEVICESEXTPROC query_devices;
    PFNEGLQUERYDEVICESTRINGEXTPROC query_device_string;
    PFNEGLQUERYDEVICEATTRIBEXTPROC query_device_attrib;
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display;
};

/* EGL displays are per device and shared by every context on it: count the
 * contexts so that eglTerminate runs only after the last one is gone. */
static struct {
    EGLDisplay dpy;
    int refs;
} displays[MAX_DEVICES + 1];

static void display_ref(EGLDisplay d)
{
    for (int k = 0; k <= MAX_DEVICES; k++)
        if (displays[k].dpy == d) {
            displays[k].refs++;
            return;
        }
    for (int k = 0; k <= MAX_DEVICES; k++)
        if (!displays[k].dpy) {
            displays[k].dpy = d;
            displays[k].refs = 1;
            return;
        }
}

static void display_unref(EGLDisplay d)
{
    for (int k = 0; k <= MAX_DEVICES; k++)
        if (displays[k].dpy == d) {
            if (--displays[k].refs == 0) {
                displays[k].dpy = NULL;
                eglTerminate(d);
            }
            return;
        }
    eglTerminate(d);
}

static bool has_ext(const char *list, const char *name)
{
    if (!list)
        return false;
    const size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return true;
    return false;
}

static const char *egl_error_name(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "EGL error";
    }
}

static int load_fns(struct egl_fns *f, char *err, size_t errlen)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    memset(f, 0, sizeof *f);
    if (!client)
        return seterr(err, errlen, "EGL: no client extensions (is libEGL from glvnd installed?)");
    if (has_ext(client, "EGL_EXT_platform_base"))
        f->get_platform_display =
            (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (has_ext(client, "EGL_EXT_device_enumeration") || has_ext(client, "EGL_EXT_device_base")) {
        f->query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        f->query_device_string =
            (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
        f->query_device_attrib =
            (PFNEGLQUERYDEVICEATTRIBEXTPROC)eglGetProcAddress("eglQueryDeviceAttribEXT");
    }
    if (!f->get_platform_display)
        return seterr(err, errlen, "EGL: EGL_EXT_platform_base is missing; client extensions: %s",
                      client);
    return 0;
}

static int list_devices(const struct egl_fns *f, EGLDeviceEXT *dev)
{
    EGLint n = 0;
    if (!f->query_devices || !f->query_devices(MAX_DEVICES, dev, &n))
        return 0;
    return n;
}

static bool device_is_software(const struct egl_fns *f, EGLDeviceEXT d)
{
    const char *ext = f->query_device_string ? f->query_device_string(d, EGL_EXTENSIONS) : NULL;
    return has_ext(ext, "EGL_MESA_device_software");
}

static int device_cuda_index(const struct egl_fns *f, EGLDeviceEXT d)
{
    const char *ext = f->query_device_string ? f->query_device_string(d, EGL_EXTENSIONS) : NULL;
    EGLAttrib v = -1;
    if (has_ext(ext, "EGL_NV_device_cuda") && f->query_device_attrib
        && f->query_device_attrib(d, EGL_CUDA_DEVICE_NV, &v))
        return (int)v;
    return -1;
}

/* GL entry points the engines call beyond GL 1.1, checked after glewInit. */
static int check_entry_points(char *err, size_t errlen)
{
    const struct {
        const char *name;
        const void *fn;
    } need[] = {
        {"glCreateShader", (const void *)glCreateShader},
        {"glShaderSource", (const void *)glShaderSource},
        {"glCompileShader", (const void *)glCompileShader},
        {"glGetShaderInfoLog", (const void *)glGetShaderInfoLog},
        {"glCreateProgram", (const void *)glCreateProgram},
        {"glLinkProgram", (const void *)glLinkProgram},
        {"glGetProgramInfoLog", (const void *)glGetProgramInfoLog},
        {"glUseProgram", (const void *)glUseProgram},
        {"glGetUniformLocation", (const void *)glGetUniformLocation},
        {"glUniform1i", (const void *)glUniform1i},
        {"glUniform1f", (const void *)glUniform1f},
        {"glUniform1fv", (const void *)glUniform1fv},
        {"glUniform1uiv", (const void *)glUniform1uiv},
        {"glGenVertexArrays", (const void *)glGenVertexArrays},
        {"glBindVertexArray", (const void *)glBindVertexArray},
        {"glGenFramebuffers", (const void *)glGenFramebuffers},
        {"glBindFramebuffer", (const void *)glBindFramebuffer},
        {"glFramebufferTexture2D", (const void *)glFramebufferTexture2D},
        {"glCheckFramebufferStatus", (const void *)glCheckFramebufferStatus},
        {"glTexStorage2D", (const void *)glTexStorage2D},
        {"glTexBuffer", (const void *)glTexBuffer},
        {"glGenBuffers", (const void *)glGenBuffers},
        {"glBufferData", (const void *)glBufferData},
        {"glBufferSubData", (const void *)glBufferSubData},
        {"glMapBufferRange", (const void *)glMapBufferRange},
        {"glUnmapBuffer", (const void *)glUnmapBuffer},
        {"glActiveTexture", (const void *)glActiveTexture},
        {"glFenceSync", (const void *)glFenceSync},
        {"glClientWaitSync", (const void *)glClientWaitSync},
        {"glDeleteSync", (const void *)glDeleteSync},
        {"glGenQueries", (const void *)glGenQueries},
        {"glQueryCounter", (const void *)glQueryCounter},
        {"glGetQueryObjectui64v", (const void *)glGetQueryObjectui64v},
        {"glDispatchCompute", (const void *)glDispatchCompute},
        {"glBindImageTexture", (const void *)glBindImageTexture},
        {"glMemoryBarrier", (const void *)glMemoryBarrier},
        {"glCopyBufferSubData", (const void *)glCopyBufferSubData},
        {"glClearTexImage", (const void *)glClearTexImage},
    };
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
        if (!need[k].fn)
            return seterr(err, errlen,
                          "GL: entry point %s is missing after glewInit (driver or loader too old)",
                          need[k].name);
    return 0;
}

static int load_gl(char *err, size_t errlen)
{
    glewExperimental = GL_TRUE;
    const GLenum r = glewInit();
    /* GLEW_ERROR_NO_GLX_DISPLAY: expected under EGL with a GLX-built GLEW;
     * the GL part of the loader has run (GLEW issue #273). */
    if (r != GLEW_OK && r != GLEW_ERROR_NO_GLX_DISPLAY)
        return seterr(err, errlen, "glewInit failed: %s (%u)", glewGetErrorString(r), (unsigned)r);
    while (glGetError() != GL_NO_ERROR) /* glewInit may leave GL_INVALID_ENUM behind */
        ;
    return check_entry_points(err, errlen);
}

static void fill_strings(struct egl_ctx_info *info)
{
    const char *v = (const char *)glGetString(GL_VENDOR);
    const char *r = (const char *)glGetString(GL_RENDERER);
    const char *s = (const char *)glGetString(GL_VERSION);
    snprintf(info->vendor, sizeof info->vendor, "%s", v ? v : "?");
    snprintf(info->renderer, sizeof info->renderer, "%s", r ? r : "?");
    snprintf(info->version, sizeof info->version, "%s", s ? s : "?");
    if (strstr(info->renderer, "llvmpipe") || strstr(info->renderer, "softpipe"))
        info->software = true;
}

/* Open `dpy` (already obtained from a platform) and make a current context. */
static int open_on_display(EGLDisplay dpy, struct egl_ctx *c, struct egl_ctx_info *info,
                           char *err, size_t errlen)
{
    EGLint major = 0, minor = 0;
    if (!eglInitialize(dpy, &major, &minor))
        return seterr(err, errlen, "eglInitialize: %s", egl_error_name(eglGetError()));
    display_ref(dpy);
    c->dpy = dpy;
    if (!eglBindAPI(EGL_OPENGL_API)) {
        seterr(err, errlen, "eglBindAPI(EGL_OPENGL_API): %s (no desktop GL on this display)",
               egl_error_name(eglGetError()));
        goto fail;
    }
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    EGLConfig cfg = EGL_NO_CONFIG_KHR;
    const bool surfaceless = has_ext(ext, "EGL_KHR_surfaceless_context");
    if (!has_ext(ext, "EGL_KHR_no_config_context") || !surfaceless) {
        const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE,
                               EGL_PBUFFER_BIT, EGL_NONE};
        EGLint n = 0;
        if (!eglChooseConfig(dpy, want, &cfg, 1, &n) || n < 1) {
            seterr(err, errlen, "eglChooseConfig: no config with desktop GL and pbuffers");
            goto fail;
        }
    }
    const bool egl15 = major > 1 || (major == 1 && minor >= 5);
    const bool ext_robust = has_ext(ext, "EGL_EXT_create_context_robustness");
    /* Reset notification only: robust buffer access is not asked for, since
     * every fetch of ours is in bounds and bounds checks could cost speed. */
    const EGLint attempts[3][2] = {
        {egl15 ? EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY : EGL_NONE,
         EGL_LOSE_CONTEXT_ON_RESET},
        {ext_robust ? EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT : EGL_NONE,
         EGL_LOSE_CONTEXT_ON_RESET_EXT},
        {EGL_NONE, EGL_NONE},
    };
    EGLint last_error = EGL_SUCCESS;
    for (int a = 0; a < 3 && c->ctx == EGL_NO_CONTEXT; a++) {
        if (a < 2 && attempts[a][0] == EGL_NONE)
            continue;
        const EGLint attr[] = {EGL_CONTEXT_MAJOR_VERSION, GL_CTX_MAJOR,
                               EGL_CONTEXT_MINOR_VERSION, GL_CTX_MINOR,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK,
                               EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                               attempts[a][0], attempts[a][1], EGL_NONE};
        c->ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, attr);
        if (c->ctx == EGL_NO_CONTEXT)
            last_error = eglGetError();
    }
    if (c->ctx == EGL_NO_CONTEXT) {
        seterr(err, errlen, "eglCreateContext: %s: no OpenGL %d.%d core profile context here",
               egl_error_name(last_error), GL_CTX_MAJOR, GL_CTX_MINOR);
        goto fail;
    }
    if (!surfaceless) {
        const EGLint pb[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
        c->surf = eglCreatePbufferSurface(dpy, cfg, pb);
        if (c->surf == EGL_NO_SURFACE) {
            seterr(err, errlen, "eglCreatePbufferSurface: %s", egl_error_name(eglGetError()));
            goto fail;
        }
    }
    if (!eglMakeCurrent(dpy, c->surf, c->surf, c->ctx)) {
        seterr(err, errlen, "eglMakeCurrent: %s", egl_error_name(eglGetError()));
        goto fail;
    }
    if (load_gl(err, errlen))
        goto fail;
    fill_strings(info);
    GLint strategy = 0;
    glGetIntegerv(GL_RESET_NOTIFICATION_STRATEGY, &strategy);
    while (glGetError() != GL_NO_ERROR)
        ;
    info->robust = strategy == GL_LOSE_CONTEXT_ON_RESET;
    GLint gl_major = 0, gl_minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &gl_major);
    glGetIntegerv(GL_MINOR_VERSION, &gl_minor);
    if (gl_major < GL_CTX_MAJOR || (gl_major == GL_CTX_MAJOR && gl_minor < GL_CTX_MINOR)) {
        seterr(err, errlen, "OpenGL %d.%d on %s, need at least %d.%d core profile", gl_major,
               gl_minor, info->renderer, GL_CTX_MAJOR, GL_CTX_MINOR);
        goto fail;
    }
    return 0;
fail:
    if (c->ctx != EGL_NO_CONTEXT) {
        eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(dpy, c->ctx);
        c->ctx = EGL_NO_CONTEXT;
    }
    if (c->surf != EGL_NO_SURFACE)
        eglDestroySurface(dpy, c->surf);
    c->surf = EGL_NO_SURFACE;
    display_unref(dpy);
    c->dpy = EGL_NO_DISPLAY;
    return -1;
}

static int open_device(const struct egl_fns *f, EGLDeviceEXT d, int index, struct egl_ctx *c,
                       struct egl_ctx_info *info, char *err, size_t errlen)
{
    EGLDisplay dpy = f->get_platform_display(EGL_PLATFORM_DEVICE_EXT, d, NULL);
    if (dpy == EGL_NO_DISPLAY)
        return seterr(err, errlen, "EGL device %d: eglGetPlatformDisplay: %s", index,
                      egl_error_name(eglGetError()));
    char e2[ERRLEN];
    if (open_on_display(dpy, c, info, e2, sizeof e2))
        return seterr(err, errlen, "EGL device %d: %s", index, e2);
    info->device = index;
    info->cuda_device = device_cuda_index(f, d);
    info->software = info->software || device_is_software(f, d);
    snprintf(info->platform, sizeof info->platform, "EGL device %d", index);
    return 0;
}

static int open_surfaceless(const struct egl_fns *f, struct egl_ctx *c, struct egl_ctx_info *info,
                            char *err, size_t errlen)
{
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!has_ext(client, "EGL_MESA_platform_surfaceless"))
        return seterr(err, errlen, "EGL_MESA_platform_surfaceless is not offered");
    EGLDisplay dpy = f->get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY,
                                             NULL);
    if (dpy == EGL_NO_DISPLAY)
        return seterr(err, errlen, "surfaceless platform: %s", egl_error_name(eglGetError()));
    char e2[ERRLEN];
    if (open_on_display(dpy, c, info, e2, sizeof e2))
        return seterr(err, errlen, "surfaceless platform: %s", e2);
    info->device = -1;
    info->cuda_device = -1;
    snprintf(info->platform, sizeof info->platform, "EGL surfaceless (Mesa)");
    return 0;
}

int egl_context_create(int device, struct egl_ctx **out, struct egl_ctx_info *info, char *err,
                       size_t errlen)
{
    struct egl_fns f;
    *out = NULL;
    memset(info, 0, sizeof *info);
    if (load_fns(&f, err, errlen))
        return -1;
    struct egl_ctx *c = xcalloc(1, sizeof *c, "EGL context", err, errlen);
    if (!c)
        return -1;
    c->dpy = EGL_NO_DISPLAY;
    c->ctx = EGL_NO_CONTEXT;
    c->surf = EGL_NO_SURFACE;
    EGLDeviceEXT dev[MAX_DEVICES];
    const int n = list_devices(&f, dev);
    if (device >= 0) {
        if (device >= n) {
            seterr(err, errlen, "no EGL device %d: this machine has %d (see `texfdtd devices`)",
                   device, n);
            free(c);
            return -1;
        }
        if (open_device(&f, dev[device], device, c, info, err, errlen)) {
            free(c);
            return -1;
        }
        *out = c;
        return 0;
    }
    /* Default: GPUs first, then Mesa surfaceless, then software devices.
     * Keep the reasons, so that "no device" says what was tried. */
    char why[ERRLEN] = "", e2[ERRLEN / 2];
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1) {
            if (!open_surfaceless(&f, c, info, e2, sizeof e2)) {
                *out = c;
                return 0;
            }
            snprintf(why + strlen(why), sizeof why - strlen(why), "%s%.200s", *why ? "; " : "",
                     e2);
            continue;
        }
        for (int k = 0; k < n; k++) {
            if (device_is_software(&f, dev[k]) != (pass == 2))
                continue;
            if (!open_device(&f, dev[k], k, c, info, e2, sizeof e2)) {
                *out = c;
                return 0;
            }
            snprintf(why + strlen(why), sizeof why - strlen(why), "%s%.200s", *why ? "; " : "",
                     e2);
        }
    }
    free(c);
    return seterr(err, errlen, "no OpenGL %d.%d device: %s", GL_CTX_MAJOR, GL_CTX_MINOR,
                  *why ? why : "EGL lists no devices");
}

int egl_context_make_current(struct egl_ctx *c, char *err, size_t errlen)
{
    if (eglGetCurrentContext() == c->ctx)
        return 0;
    if (!eglMakeCurrent(c->dpy, c->surf, c->surf, c->ctx))
        return seterr(err, errlen, "eglMakeCurrent: %s", egl_error_name(eglGetError()));
    return 0;
}

void egl_context_destroy(struct egl_ctx *c)
{
    if (!c)
        return;
    if (c->ctx != EGL_NO_CONTEXT) {
        if (eglGetCurrentContext() == c->ctx)
            eglMakeCurrent(c->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(c->dpy, c->ctx);
    }
    if (c->surf != EGL_NO_SURFACE)
        eglDestroySurface(c->dpy, c->surf);
    if (c->dpy != EGL_NO_DISPLAY)
        display_unref(c->dpy);
    free(c);
}

static void print_one(FILE *out, const char *index, const struct egl_ctx_info *info)
{
    char cuda[32] = "-";
    if (info->cuda_device >= 0)
        snprintf(cuda, sizeof cuda, "%d", info->cuda_device);
    fprintf(out, "%-6s %-20s %-44s %-32s %s%s\n", index, info->vendor, info->renderer,
            info->version, cuda, info->robust ? "" : "  (no reset notification)");
}

int egl_print_devices(FILE *out, char *err, size_t errlen)
{
    struct egl_fns f;
    if (load_fns(&f, err, errlen))
        return -1;
    EGLDeviceEXT dev[MAX_DEVICES];
    const int n = list_devices(&f, dev);
    int ok = 0;
    fprintf(out, "%-6s %-20s %-44s %-32s %s\n", "device", "vendor", "renderer", "GL version",
            "CUDA device");
    for (int k = 0; k <= n; k++) {
        struct egl_ctx c = {EGL_NO_DISPLAY, EGL_NO_CONTEXT, EGL_NO_SURFACE};
        struct egl_ctx_info info;
        char e2[ERRLEN], idx[16];
        memset(&info, 0, sizeof info);
        int r;
        if (k < n) {
            snprintf(idx, sizeof idx, "%d", k);
            r = open_device(&f, dev[k], k, &c, &info, e2, sizeof e2);
        } else {
            snprintf(idx, sizeof idx, "-");
            r = open_surfaceless(&f, &c, &info, e2, sizeof e2);
            if (r && k > 0)
                break; /* the fallback is optional where devices exist */
        }
        if (r) {
            fprintf(out, "%-6s unusable: %s\n", idx, e2);
            continue;
        }
        ok++;
        print_one(out, idx, &info);
        eglMakeCurrent(c.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(c.dpy, c.ctx);
        if (c.surf != EGL_NO_SURFACE)
            eglDestroySurface(c.dpy, c.surf);
        display_unref(c.dpy);
    }
    if (n == 0)
        fprintf(out, "(EGL lists no devices; \"-\" is Mesa's surfaceless platform, the default "
                     "when no GPU device works)\n");
    else
        fprintf(out, "(\"-\" is Mesa's surfaceless platform, used by default only when no GPU "
                     "device works)\n");
    return ok;
}
