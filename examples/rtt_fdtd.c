/* rtt_fdtd.c - the whole render-to-texture FDTD technique in one file.
 *
 * A TMz plane wave meets a perfectly conducting square (Takada et al. 2007):
 * the fields live in float textures, every time step is two full-screen
 * fragment-shader passes (one for H, one for E), each writing into the other
 * texture of a ping-pong pair through a framebuffer object.  Headless: EGL
 * with no window.  At the end, the total field Ez is written to a PNG.
 *
 * Build and run (Debian: libegl-dev libopengl-dev libpng-dev):
 *     cc -std=c11 -O2 -o rtt_fdtd examples/rtt_fdtd.c -lEGL -lOpenGL -lpng -lm
 *     ./rtt_fdtd out.png
 * texfdtd itself does the same with checks, options and bit-exact float32
 * (gl/gl2d.c, shaders/); this file leaves all that out so it reads in one go.
 */
#define _GNU_SOURCE
#define GL_GLEXT_PROTOTYPES 1 /* libOpenGL (glvnd) exports every core entry point */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 256, STEPS = 600 };     /* grid N x N cells, time steps */
static const float S = 0.5f;       /* Courant number c dt / dx */
static const float CPW = 20.0f;    /* cells per wavelength */

static void die(const char *what)
{
    fprintf(stderr, "rtt_fdtd: %s (EGL 0x%x, GL 0x%x)\n", what, eglGetError(), glGetError());
    exit(1);
}

/* 1. A GL context with no window: EGL on a GPU device if there is one, else
 *    Mesa's surfaceless platform (llvmpipe, on the CPU). */
static void make_context(void)
{
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy = EGL_NO_DISPLAY;
    EGLDeviceEXT devices[8];
    EGLint ndev = 0;
    if (query_devices && get_display && query_devices(8, devices, &ndev))
        for (int i = 0; i < ndev && dpy == EGL_NO_DISPLAY; i++) {
            dpy = get_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
            if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL))
                dpy = EGL_NO_DISPLAY;
        }
    if (dpy == EGL_NO_DISPLAY && get_display) {
        dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL))
            dpy = EGL_NO_DISPLAY;
    }
    if (dpy == EGL_NO_DISPLAY)
        die("no EGL display");
    /* We never draw to a window or pbuffer, so no config is needed
     * (EGL_KHR_no_config_context); otherwise take any desktop-GL one. */
    EGLConfig cfg = EGL_NO_CONFIG_KHR;
    const EGLint cfg_attr[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLint ncfg;
    if (!strstr(eglQueryString(dpy, EGL_EXTENSIONS), "EGL_KHR_no_config_context")
        && (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &ncfg) || ncfg < 1))
        die("no OpenGL config");
    if (!eglBindAPI(EGL_OPENGL_API))
        die("no desktop OpenGL on this display");
    const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK,
                               EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
    /* no surface at all: we render only into our own textures */
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx))
        die("cannot create a GL 3.3 core context");
    printf("GL: %s | %s | %s\n", (const char *)glGetString(GL_VENDOR),
           (const char *)glGetString(GL_RENDERER), (const char *)glGetString(GL_VERSION));
}

/* 2. The shaders.  One vertex shader draws a triangle that covers the whole
 *    viewport, so the fragment shader runs once per texel: the fragment
 *    shader is the body of the loop over cells.  Texel (i, j) holds Ez(i, j)
 *    in one texture and (Hx(i, j+1/2), Hy(i+1/2, j)) in the other; texelFetch
 *    reads exact texels (no filtering, no normalised coordinates). */
static const char *vs = "#version 330 core\n"
    "void main() {\n"
    "    vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);\n"
    "    gl_Position = vec4(2.0 * p - 1.0, 0.0, 1.0);\n"
    "}\n";

/* H^{n+1/2} = H^{n-1/2} + S * (spatial differences of Ez^n) */
static const char *fs_h = "#version 330 core\n"
    "uniform sampler2D ez, h; uniform float S; uniform int n;\n"
    "out vec2 h_out;\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
    "    float e = texelFetch(ez, p, 0).r;\n"
    "    float e_n = texelFetch(ez, min(p + ivec2(0, 1), ivec2(n - 1)), 0).r;\n"
    "    float e_e = texelFetch(ez, min(p + ivec2(1, 0), ivec2(n - 1)), 0).r;\n"
    "    vec2 hv = texelFetch(h, p, 0).rg;\n"
    "    h_out = vec2(hv.x - S * (e_n - e), hv.y + S * (e_e - e));\n"
    "}\n";

/* Ez^{n+1} = Ez^n + S * (curl H); PEC walls; the square holds -Ez_inc(t) */
static const char *fs_e = "#version 330 core\n"
    "uniform sampler2D ez, h; uniform float S, w, t, ramp; uniform int n; uniform ivec4 box;\n"
    "out float ez_out;\n"
    "float incident(float x, float t) {         /* the exact plane wave, +x */\n"
    "    float s = t - x / S;                    /* steps since the front passed */\n"
    "    return s <= 0.0 ? 0.0 : min(s / ramp, 1.0) * sin(w * s);\n"
    "}\n"
    "void main() {\n"
    "    ivec2 p = ivec2(gl_FragCoord.xy);\n"
    "    if (p.x == 0 || p.y == 0 || p.x == n - 1 || p.y == n - 1) { ez_out = 0.0; return; }\n"
    "    vec2 hc = texelFetch(h, p, 0).rg;\n"
    "    float hy_w = texelFetch(h, p - ivec2(1, 0), 0).g;\n"
    "    float hx_s = texelFetch(h, p - ivec2(0, 1), 0).r;\n"
    "    ez_out = texelFetch(ez, p, 0).r + S * ((hc.y - hy_w) - (hc.x - hx_s));\n"
    "    if (all(greaterThanEqual(p, box.xy)) && all(lessThanEqual(p, box.zw)))\n"
    "        ez_out = -incident(float(p.x), t);  /* scattered = -incident on PEC */\n"
    "}\n";

static GLuint program(const char *frag)
{
    const char *src[2] = {vs, frag};
    GLuint prog = glCreateProgram();
    for (int k = 0; k < 2; k++) {
        GLuint sh = glCreateShader(k ? GL_FRAGMENT_SHADER : GL_VERTEX_SHADER);
        glShaderSource(sh, 1, &src[k], NULL);
        glCompileShader(sh);
        GLint ok;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        if (!ok) {
            char log[2048];
            glGetShaderInfoLog(sh, sizeof log, NULL, log);
            fprintf(stderr, "%s", log);
            die("shader compile error");
        }
        glAttachShader(prog, sh);
    }
    glLinkProgram(prog);
    return prog;
}

/* 3. A ping-pong pair: two textures, each attached to its own framebuffer.
 *    A pass reads tex[cur] and renders into fbo[1 - cur]; then cur flips.
 *    Never read a texture that is attached to the framebuffer being drawn. */
struct pair {
    GLuint tex[2], fbo[2];
    int cur;
};

static void make_pair(struct pair *p, GLenum format)
{
    glGenTextures(2, p->tex);
    glGenFramebuffers(2, p->fbo);
    for (int k = 0; k < 2; k++) {
        glBindTexture(GL_TEXTURE_2D, p->tex[k]);
        glTexStorage2D(GL_TEXTURE_2D, 1, format, N, N); /* float32 texels, never half */
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, p->fbo[k]);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, p->tex[k], 0);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            die("float render target not supported");
        const float zero[4] = {0, 0, 0, 0};
        glClearBufferfv(GL_COLOR, 0, zero); /* fields start at zero */
    }
    p->cur = 0;
}

/* One full-screen pass of prog: read ez and h (current textures), write out. */
static void pass(GLuint prog, struct pair *ez, struct pair *h, struct pair *out)
{
    glBindFramebuffer(GL_FRAMEBUFFER, out->fbo[1 - out->cur]);
    glUseProgram(prog);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, ez->tex[ez->cur]);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, h->tex[h->cur]);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    out->cur = 1 - out->cur; /* the texture just written becomes current */
}

/* 5. Blue-white-red, -2..+2 times the amplitude; written with +y up. */
static void write_png(const char *path, const float *ez, const float *inc)
{
    static unsigned char rgb[N * N * 3];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            float v = (ez[i + j * N] + inc[i]) / 2.0f;
            v = v < -1 ? -1 : v > 1 ? 1 : v;
            const float lo[3] = {59, 76, 192}, mid[3] = {242, 242, 242}, hi[3] = {180, 4, 38};
            unsigned char *px = rgb + 3 * (i + (N - 1 - j) * N);
            for (int k = 0; k < 3; k++)
                px[k] = (unsigned char)(v < 0 ? mid[k] + (mid[k] - lo[k]) * v
                                              : mid[k] + (hi[k] - mid[k]) * v);
        }
    png_image img = {.version = PNG_IMAGE_VERSION, .width = N, .height = N,
                     .format = PNG_FORMAT_RGB};
    if (!png_image_write_to_file(&img, path, 0, rgb, 0, NULL))
        die("cannot write the PNG");
}

int main(int argc, char **argv)
{
    const char *out = argc > 1 ? argv[1] : "rtt_fdtd.png";
    make_context();

    struct pair ez, h;
    make_pair(&ez, GL_R32F);  /* Ez */
    make_pair(&h, GL_RG32F);  /* (Hx, Hy) */
    GLuint vao, ph = program(fs_h), pe = program(fs_e);
    glGenVertexArrays(1, &vao); /* core profile: a VAO must be bound to draw */
    glBindVertexArray(vao);
    glViewport(0, 0, N, N);

    const float w = 2.0f * (float)M_PI * S / CPW;     /* omega dt */
    const int side = (int)lroundf(10.0f * CPW / (2.0f * (float)M_PI)); /* k As = 10 */
    const int b0 = N / 2 - side / 2;
    for (int k = 0; k < 2; k++) {
        GLuint p = k ? pe : ph;
        glUseProgram(p);
        glUniform1i(glGetUniformLocation(p, "ez"), 0);
        glUniform1i(glGetUniformLocation(p, "h"), 1);
        glUniform1f(glGetUniformLocation(p, "S"), S);
        glUniform1i(glGetUniformLocation(p, "n"), N);
    }
    glUseProgram(pe);
    glUniform1f(glGetUniformLocation(pe, "w"), w);
    glUniform1f(glGetUniformLocation(pe, "ramp"), CPW / S); /* one period */
    glUniform4i(glGetUniformLocation(pe, "box"), b0, b0, b0 + side - 1, b0 + side - 1);

    /* 4. The time loop: the algorithm, two passes a step. */
    for (int n = 0; n < STEPS; n++) {
        pass(ph, &ez, &h, &h); /* H^{n+1/2} from Ez^n */
        glUseProgram(pe);
        glUniform1f(glGetUniformLocation(pe, "t"), (float)(n + 1));
        pass(pe, &ez, &h, &ez); /* Ez^{n+1} from H^{n+1/2} */
    }

    /* Read back only at the end: the field never left the GPU until now. */
    static float field[N * N], inc[N];
    glBindFramebuffer(GL_FRAMEBUFFER, ez.fbo[ez.cur]);
    glReadPixels(0, 0, N, N, GL_RED, GL_FLOAT, field);
    for (int i = 0; i < N; i++) { /* the incident wave, for the total field */
        const float s = STEPS - i / S;
        inc[i] = s <= 0 ? 0 : fminf(s / (CPW / S), 1) * sinf(w * s);
    }
    float peak = 0;
    for (int c = 0; c < N * N; c++)
        peak = fmaxf(peak, fabsf(field[c]));
    if (glGetError() != GL_NO_ERROR || !(peak > 0.1f && peak < 10.0f))
        die("the run went wrong");
    write_png(out, field, inc);
    printf("%d x %d cells, %d steps: max |Ez scattered| = %.3f; wrote %s\n", N, N, STEPS, peak, out);
    return 0;
}
