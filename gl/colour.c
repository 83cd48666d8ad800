/* colour.c - the picture of the GL engines: colormap.frag maps the current
 * Ez (and the material map) to RGBA8 in one full-screen pass into its own
 * target, read back for the PNG or the movie frame.  The program and target
 * are made on the first picture.
 */
#define _GNU_SOURCE
#include "gl/gl2d_internal.h"

#include "core/colormap.h"
#include "core/util.h"
#include "gl/shader.h"

#include <stdlib.h>

int gl2d_render_rgba(struct engine *e, uint8_t *rgba, char *err, size_t errlen)
{
    struct gl_engine *g = G(e);
    const struct model *m = e->model;
    if (g->failed)
        return seterr(err, errlen, "%s: an earlier check failed", e->ops->name);
    /* colormap.frag adds the ramped sine plane wave of a TM scene; a point
     * source (no incident wave), the pulsed waveforms and TE are coloured
     * on the host from the field read back (the pass once drew a plane
     * wave into a point-source scene's picture) */
    if (m->inc.kind != INC_PLANE || m->inc.waveform != INC_SINE || m->scene->te) {
        float *ez = xcalloc(m->ncells, sizeof *ez, "Ez", err, errlen);
        const int rc = ez ? engine_read(e, FIELD_EZ, ez, err, errlen) : -1;
        if (!rc)
            colormap_total_field(m, ez, 0, e->step, 0, rgba);
        free(ez);
        return rc;
    }
    if (egl_context_make_current(g->egl, err, errlen) || gl2d_finish_pending(g, err, errlen))
        return -1;
    if (!g->color_prog) {
        char defs[2560];
        gl2d_make_defines(g, m, false, defs, sizeof defs);
        const char *st[2] = {"fullscreen.vert", "colormap.frag"};
        if (gl_program_build(g->shader_dir, NULL, st, 2, defs, &g->color_prog, err, errlen))
            return -1;
        gl2d_set_coefficients(g->color_prog, m);
        set_sampler(g->color_prog, "ez_tex", UNIT_EZ);
        set_sampler(g->color_prog, "mat_tex", UNIT_MAT);
        const struct {
            const char *n;
            double v;
        } u[] = {{"omega_dt", m->inc.omega_dt},  {"cos_t", m->inc.cos_t},
                 {"sin_t", m->inc.sin_t},        {"d0", m->inc.d0},
                 {"courant", m->scene->courant}, {"ramp_steps", m->inc.ramp_steps},
                 {"amplitude", m->inc.amplitude}};
        for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
            glProgramUniform1f(g->color_prog, glGetUniformLocation(g->color_prog, u[k].n),
                               (float)u[k].v);
        g->color_tex = gl2d_make_tex(GL_RGBA8, g->nx, g->ny);
        if (gl2d_make_fbo(g->color_tex, &g->color_fbo, "picture (RGBA8)", err, errlen))
            return -1;
    }
    if (g->compute)
        glMemoryBarrier(GL_ALL_BARRIER_BITS);
    glBindVertexArray(g->vao);
    glViewport(0, 0, g->nx, g->ny);
    glUseProgram(g->color_prog);
    glProgramUniform1f(g->color_prog, glGetUniformLocation(g->color_prog, "step_n"),
                       (float)e->step);
    bind_tex(UNIT_EZ, GL_TEXTURE_2D, g->ez.tex[g->ez.cur]);
    bind_tex(UNIT_MAT, GL_TEXTURE_2D, g->mat_tex);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, g->color_fbo);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, g->color_fbo);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, g->nx, g->ny, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    if (gl2d_check_reset("drawing a picture", err, errlen)
        || gl2d_check_gl("drawing a picture", err, errlen))
        return gl2d_prefix_err(e->ops->name, err, errlen);
    return 0;
}
