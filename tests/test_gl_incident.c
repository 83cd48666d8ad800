/* test_gl_incident.c - the GL engines' source-slot values on the GPU
 * (gl/values.c, shaders/inc_values.comp: core/incident.h compiled as GLSL
 * doubles) against the host's.
 *
 * Two expectations, both independent of the shader:
 *   - core/incident.h compiled as C on the host: the shader's functions
 *     (shaders/inc_probe.comp) give the host's double results bit for bit,
 *     at many arguments, far from zero too (sines of a million radians,
 *     delays across a 16384-cell grid, every waveform, exponentials down to
 *     the cut-off), and their rounding to float is C's (float), subnormal
 *     results and signed zeros included;
 *   - the cpu engine: `gl` and `gl-compute` with the values on the GPU (the
 *     default) and on the host (TEXFDTD_GL_VALUES=host) both give the cpu
 *     engine's float32 fields bit for bit, for dielectric, PEC, lossy,
 *     conformal (cut edges), dispersive and H-node (TE, mu_r) slots, under
 *     a ramped sine, pulses and oblique incidence.
 * Small grids (llvmpipe on 2 cores); skipped without a GL context unless
 * TEXFDTD_REQUIRE_GPU=1.
 */
#include "helpers.h"

#include "core/incident.h"
#include "gl/gl.h"

#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static bool gpu_required(void)
{
    const char *v = getenv("TEXFDTD_REQUIRE_GPU");
    return v && !strcmp(v, "1");
}

static void skip_without_gl(void)
{
    char why[ERRLEN];
    if (gl_probe(-1, why, sizeof why)) {
        if (gpu_required())
            cr_assert_fail("no OpenGL device: %s", why);
        cr_skip_test("no OpenGL device here: %s", why);
    }
}

/* ---- the shader's functions against the host's ------------------------ */

#define NPROBE 6000

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void) /* [0, 1), xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * 0x1p-53;
}

static uint64_t bits_of(double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

/* The host's value of probe function `what` at a[0..9] (inc_probe.comp's
 * list), as bits. */
static uint64_t host_value(const struct inc_wave *w, int what, const double *a)
{
    switch (what) {
    case 0:
        return bits_of(inc_sin(a[0]));
    case 1:
        return bits_of(inc_exp(a[0]));
    case 2:
        return bits_of(inc_at(*w, a[0], a[1], a[2]));
    case 3:
        return bits_of(inc_hnode(*w, (int)a[3], a[0], a[1], a[2]));
    case 4:
        return bits_of(inc_eslot_value(*w, (int)a[3], (int)a[4], a[5], a[6], a[7], a[0], a[1],
                                       a[2]));
    case 5:
        return bits_of(inc_hslot_value(*w, (int)a[3], (int)a[4], (int)a[5], a[6], a[7], a[8],
                                       a[0], a[1], a[2]));
    default: {
        const float f = (float)a[0];
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    }
}

/* Values of the probes below that differ from the host's (this test's). */
static size_t probe_mismatches;
static void expect_gpu_values_or_fallback(void);

/* Probe `what` at the n points of a (10 arguments each); all bits equal, or
 * else counted in probe_mismatches (the test then requires the engines to
 * keep the host's values). */
static void probe_equal(const struct inc_wave *w, int what, const double *a, size_t n,
                        const char *label)
{
    uint64_t *got = calloc(n, sizeof *got);
    char err[ERRLEN];
    cr_assert_eq(gl_incident_probe(-1, NULL, w, what, a, n, got, err, sizeof err), 0, "%s: %s",
                 label, err);
    size_t bad = 0, first = n;
    for (size_t k = 0; k < n; k++)
        if (got[k] != host_value(w, what, a + 10 * k)) {
            bad++;
            first = first < n ? first : k;
        }
    if (bad) {
        double g;
        memcpy(&g, &got[first], 8);
        /* a driver whose doubles differ: the engines must not use them
         * (gl/values.c self_check), which expect_gpu_values_or_fallback
         * checks (cr_log_info, not cr_log_warn: Criterion 2.4 exits 1
         * after a warning even when every test passed) */
        cr_log_info("%s: %zu of %zu values differ from the host's; first at (%.17g, %.17g, "
                    "%.17g): GPU %.17g (0x%016llx), host 0x%016llx",
                    label, bad, n, a[10 * first], a[10 * first + 1], a[10 * first + 2], g,
                    (unsigned long long)got[first],
                    (unsigned long long)host_value(w, what, a + 10 * first));
        probe_mismatches += bad;
    }
    free(got);
}

static struct inc_wave wave(int waveform, double angle_deg, double S, double ppw, double ramp)
{
    const double th = angle_deg * M_PI / 180.0, f0 = S / ppw;
    const double tau = waveform == INC_RICKER ? 1.0 / (M_PI * f0)
                       : waveform == INC_SINE ? 0.0
                                              : sqrt(log(2.0)) / (M_PI * 0.7 * f0);
    return (struct inc_wave){.kind = INC_PLANE,
                             .waveform = waveform,
                             .cos_t = cos(th),
                             .sin_t = sin(th),
                             .d0 = -3.25,
                             .omega_dt = 2.0 * M_PI * f0,
                             .amplitude = 1.7,
                             .pulse_t0 = 5.0 * tau,
                             .inv_courant = 1.0 / S,
                             .inv_ramp = ramp > 0 ? 1.0 / ramp : 0.0,
                             .inv_pulse_tau = tau > 0 ? 1.0 / tau : 0.0,
                             .ramp_steps = ramp};
}

/* inc_sin over |x| < 2^20 (uniform in the exponent: reductions by up to
 * 667544 quarter periods), at multiples of pi/2 and their neighbours, and
 * inc_exp over [-720, 0] (the cut-off at -707 inside). */
Test(gl_incident, sin_and_exp_equal_host_bits, .timeout = 120)
{
    skip_without_gl();
    static double a[NPROBE * 10];
    const struct inc_wave w = wave(INC_SINE, 0, 0.5, 20, 0);
    for (size_t k = 0; k < NPROBE; k++) {
        const double mag = ldexp(1.0, (int)(urand() * 40.0) - 20) * (1.0 + urand());
        a[10 * k] = k % 5 == 0   ? (double)(k / 5) * (M_PI / 2) * 1000.0
                    : k % 5 == 1 ? nextafter((double)(k / 5) * (M_PI / 2) * 1000.0, 0.0)
                    : urand() < 0.5 ? -mag
                                    : mag;
        if (fabs(a[10 * k]) >= 0x1p20)
            a[10 * k] = ldexp(urand(), 20);
    }
    a[0] = 0.0;
    a[10] = -0.0;
    a[20] = 1048575.9;
    probe_equal(&w, 0, a, NPROBE, "inc_sin");
    for (size_t k = 0; k < NPROBE; k++)
        a[10 * k] = -720.0 * urand();
    a[0] = 0.0;
    a[10] = -707.0;
    a[20] = nextafter(-707.0, 0.0);
    a[30] = -706.9999;
    probe_equal(&w, 1, a, NPROBE, "inc_exp");
    expect_gpu_values_or_fallback();
}

/* The incident field, the H nodes' and the E and H slot values of every
 * waveform, ramped and not, at points across a 16384-cell grid and up to
 * 10^5 steps (delays and phases far from zero). */
Test(gl_incident, wave_and_slot_values_equal_host_bits, .timeout = 120)
{
    skip_without_gl();
    static double a[NPROBE * 10];
    const struct inc_wave ws[5] = {
        wave(INC_SINE, 0, 0.5, 20, 40), wave(INC_SINE, 33.7, 0.6, 7.3, 0),
        wave(INC_GAUSSIAN, 71, 0.5, 16, 0), wave(INC_MODULATED_GAUSSIAN, 200, 0.45, 12, 0),
        wave(INC_RICKER, -15, 0.7, 25, 0)};
    const char *names[5] = {"ramped sine", "oblique sine", "gaussian", "modulated gaussian",
                            "ricker"};
    for (int q = 0; q < 5; q++) {
        const bool pulse = ws[q].waveform != INC_SINE;
        for (size_t k = 0; k < NPROBE; k++) {
            double *p = a + 10 * k;
            const double span = k % 2 ? 16384.0 : 200.0;
            p[0] = floor(urand() * span) + (k % 3 == 0 ? 0.5 : 0.0);
            p[1] = floor(urand() * span) + (k % 3 == 1 ? 0.5 : 0.0);
            /* pulses: around the front's passage; sines: up to 10^5 steps */
            const double front = (p[0] * ws[q].cos_t + p[1] * ws[q].sin_t - ws[q].d0)
                                 * ws[q].inv_courant;
            p[2] = pulse ? floor(front + urand() * 12.0 * ws[q].pulse_t0 / 5.0 - 2.0)
                         : floor(urand() * (k % 2 ? 1e5 : 300.0));
            p[3] = (double)(k % 2);  /* inc_hnode: hy; slots: pec / hy */
            p[4] = (double)(k % 3 == 0);
            p[5] = k % 4 == 0 ? -0.75 : (double)(k % 4 == 1);
            p[6] = 0.2 + urand();
            p[7] = -0.4 * urand();
            p[8] = 0.01 * urand();
        }
        char label[96];
        for (int what = 2; what <= 5; what++) {
            static const char *fn[6] = {"", "", "inc_at", "inc_hnode", "inc_eslot_value",
                                        "inc_hslot_value"};
            snprintf(label, sizeof label, "%s, %s", fn[what], names[q]);
            probe_equal(&ws[q], what, a, NPROBE, label);
        }
    }
    expect_gpu_values_or_fallback();
}

/* The rounding to float of the values (inc_to_float): C's (float), to
 * nearest even, for normal and subnormal results, signed zeros, ties. */
Test(gl_incident, rounding_to_float_equals_host, .timeout = 60)
{
    skip_without_gl();
    static double a[NPROBE * 10];
    const struct inc_wave w = wave(INC_SINE, 0, 0.5, 20, 0);
    for (size_t k = 0; k < NPROBE; k++) {
        const double sign = k % 2 ? -1.0 : 1.0;
        const int e = (int)(urand() * 60.0) - 160; /* 2^-160 .. 2^-101: subnormal floats */
        a[10 * k] = k % 3 ? sign * ldexp(1.0 + urand(), e) : sign * urand() * 4.0;
    }
    const double edge[] = {0.0,         -0.0,       0x1p-126,  0x1.fffffep-127, 0x1p-149,
                           0x1.8p-149,  0x1p-150,   0x1.0000000000001p-150, 0x1.fffffe8p-127,
                           0x1.000001p0, 0x1.0000018p0, -0x1.000001p0, 1e-320};
    for (size_t k = 0; k < sizeof edge / sizeof *edge; k++)
        a[10 * k] = edge[k];
    probe_equal(&w, 6, a, NPROBE, "inc_to_float");
}

/* ---- the engines, values on the GPU and on the host, against cpu ------- */

static float *read_field(struct engine *e, enum field f)
{
    char err[ERRLEN];
    float *v = malloc(e->model->ncells * sizeof *v);
    cr_assert_eq(engine_read(e, f, v, err, sizeof err), 0, "read %s: %s", field_name(f), err);
    return v;
}

/* `name` with TEXFDTD_GL_VALUES=mode: its Ez, Hx, Hy after `steps` (in
 * batches of 7 steps: several dispatches, both slot buffers) into f, its
 * denormal mode into dn. */
/* The batch length the GL runs take (TEXFDTD_GL_BATCH_STEPS). */
static const char *batch_steps = "7";

static void run_gl_in(const char *name, const char *mode, const char *shader_dir,
                      const char *want, const struct model *m, int steps, float *f[3],
                      enum denormals *dn)
{
    setenv("TEXFDTD_GL_VALUES", mode, 1);
    setenv("TEXFDTD_GL_BATCH_STEPS", batch_steps, 1);
    struct engine_options o = {0};
    o.precision = PRECISION_SINGLE;
    o.denormals = DENORMALS_FLUSH;
    o.device = -1;
    o.shader_dir = shader_dir;
    struct engine *e = NULL;
    char err[ERRLEN];
    cr_assert_eq(engine_create(name, m, &o, &e, err, sizeof err), 0, "%s: %s", name, err);
    struct engine_info info;
    engine_describe(e, &info);
    cr_log_info("%s, TEXFDTD_GL_VALUES=%s: %s", name, mode, info.detail);
    cr_assert(strstr(info.detail, want), "%s, TEXFDTD_GL_VALUES=%s: no '%s' in %s", name, mode,
              want, info.detail);
    cr_assert_eq(engine_step(e, steps, err, sizeof err), 0, "%s step: %s", name, err);
    for (int k = 0; k < 3; k++)
        f[k] = read_field(e, (enum field)k);
    *dn = info.denormals;
    engine_destroy(e);
    unsetenv("TEXFDTD_GL_VALUES");
    unsetenv("TEXFDTD_GL_BATCH_STEPS");
}

/* What describe says of the values with TEXFDTD_GL_VALUES=device: on the GPU,
 * or on the host where this driver's doubles failed the engine's check
 * (gl/values.c self_check; the probe tests above require that it fails
 * exactly where the shader's functions differ from the host's). */
static const char *device_values_said(void)
{
    static int exact = -1;
    if (exact < 0) {
        const struct inc_wave w = wave(INC_SINE, 33.7, 0.6, 7.3, 20);
        double a[10 * 64] = {0};
        uint64_t got[64];
        char err[ERRLEN];
        for (int k = 0; k < 64; k++) {
            a[10 * k] = 3.5 * k;
            a[10 * k + 1] = 1.5 * k;
            a[10 * k + 2] = 7.0 * k;
        }
        cr_assert_eq(gl_incident_probe(-1, NULL, &w, 2, a, 64, got, err, sizeof err), 0, "%s",
                     err);
        exact = 1;
        for (int k = 0; k < 64; k++)
            exact &= got[k] == host_value(&w, 2, a + 10 * k);
    }
    return exact ? "slot values on the GPU" : "differ from the host's";
}

static void run_gl(const char *name, const char *mode, const struct model *m, int steps,
                   float *f[3], enum denormals *dn)
{
    const bool gpu = !strcmp(mode, "device");
    run_gl_in(name, mode, NULL, gpu ? device_values_said() : "slot values on the host", m,
              steps, f, dn);
}

/* The cpu engine's fields of the scene in denormal mode dn, and a check
 * that the wave has reached the object. */
static void run_cpu(const struct model *m, int steps, enum denormals dn, void *cf[3])
{
#ifdef _OPENMP
    omp_set_num_threads(1); /* small grids: threads only wait for each other */
#endif
    struct engine_options co = {0};
    co.precision = PRECISION_SINGLE;
    co.denormals = dn;
    char err[ERRLEN];
    cr_assert_eq(run_engine("cpu", m, &co, steps, cf, err, sizeof err), 0, "cpu: %s", err);
    double on_object = 0;
    for (size_t k = 0; k < m->nslots; k++)
        on_object = fmax(on_object, fabs(((float *)cf[0])[m->slot_cell[k]]));
    for (size_t k = 0; k < m->ndisp; k++)
        on_object = fmax(on_object, fabs(((float *)cf[0])[m->disp_cell[k]]));
    for (size_t k = 0; k < m->nhslots; k++) /* the H slots (TE edges, mu_r) */
        on_object = fmax(on_object, fabs(((float *)cf[1 + m->hslot[k] / m->ncells])
                                              [m->hslot[k] % m->ncells]));
    for (size_t k = 0; k < m->nhdisp; k++) /* the dispersive TE edges */
        on_object = fmax(on_object, fabs(((float *)cf[1 + m->hdisp[k] / m->ncells])
                                              [m->hdisp[k] % m->ncells]));
    cr_assert_gt(on_object, 0.05, "the wave has not reached the object after %d steps", steps);
}

/* 0 differing bits between f and the cpu engine's cf, field by field. */
static void expect_cpu_bits(const char *what, const struct model *m, float *f[3], void *cf[3])
{
    for (int k = 0; k < 3; k++) {
        uint32_t ulp = 0;
        const size_t d = count_bit_differences(f[k], cf[k], m->ncells, &ulp);
        cr_expect_eq(d, 0, "%s vs cpu: %s, %zu of %zu differ (max %u ulp)", what,
                     field_name((enum field)k), d, m->ncells, ulp);
        free(f[k]);
    }
}

/* The scene through `name` with the values on the GPU and on the host, and
 * through the cpu engine: the three equal bit for bit.  The model must
 * have the lists the test is about (want: slots, cut edges, H slots,
 * dispersive cells), and the wave must have reached the object. */
static void values_agree(const char *name, const char *scene, int steps, bool cut, bool hslots,
                         bool disp)
{
    skip_without_gl();
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    const struct model *m = &t.model;
    cr_assert_eq(m->ncut > 0, cut, "%zu cut edges", m->ncut);
    cr_assert_eq(m->hmat != NULL && m->nhslots > 0, hslots, "%zu H slots", m->nhslots);
    cr_assert_eq(m->ndisp > 0, disp, "%zu dispersive cells", m->ndisp);
    cr_log_info("%zu slots, %zu cut edges, %zu H slots, %zu dispersive cells, %zu TE cut cells, "
                "%zu dispersive TE edges",
                m->nslots, m->ncut, m->nhslots, m->ndisp, m->ntecut, m->nhdisp);
    float *dev[3], *host[3];
    enum denormals dn_dev, dn_host;
    run_gl(name, "device", m, steps, dev, &dn_dev);
    run_gl(name, "host", m, steps, host, &dn_host);
    cr_assert_eq(dn_dev, dn_host);
    void *cf[3];
    run_cpu(m, steps, dn_dev, cf);
    char what[96];
    snprintf(what, sizeof what, "%s, values on the GPU", name);
    expect_cpu_bits(what, m, dev, cf);
    snprintf(what, sizeof what, "%s, values on the host", name);
    expect_cpu_bits(what, m, host, cf);
    free_fields(cf);
    setup_free(&t);
}

#define GRID "[grid]\nnx = 72\nny = 64\nsteps = 130\ncourant = 0.5\ncells_per_wavelength = 14\n"

/* A dielectric cylinder under the ramped sine (the multi-step pass of gl and
 * the fused dispatch of gl-compute read the values). */
static const char *DIEL_SINE = GRID "[source]\ntype = plane_wave\nangle = 0\nramp_periods = 1\n"
                                    "[object.rod]\nshape = circle\nmaterial = dielectric\n"
                                    "eps_r = 4\ncenter_x = 36.3\ncenter_y = 31.6\nradius = 10.5\n";
/* After the probes: where they found this driver's doubles exact, both
 * engines take the values on the GPU for DIEL_SINE; where any differed, both
 * keep the host's, saying why. */
static void expect_gpu_values_or_fallback(void)
{
    struct test_setup t;
    setup_from_text(&t, DIEL_SINE, NULL, 0);
    const char *names[2] = {"gl", "gl-compute"};
    for (int k = 0; k < 2; k++) {
        struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH,
                                   .device = -1};
        struct engine *e = NULL;
        char err[ERRLEN];
        cr_assert_eq(engine_create(names[k], &t.model, &o, &e, err, sizeof err), 0, "%s", err);
        struct engine_info info;
        engine_describe(e, &info);
        const char *want = probe_mismatches ? "differ from the host's" : "slot values on the GPU";
        cr_expect(strstr(info.detail, want), "%s: %zu probe values differ, yet: %s", names[k],
                  probe_mismatches, info.detail);
        if (probe_mismatches)
            cr_log_info("%s keeps the host's values: %s", names[k], info.detail);
        engine_destroy(e);
    }
    setup_free(&t);
}

Test(gl_incident, dielectric_sine_gl_equals_cpu, .timeout = 120)
{
    values_agree("gl", DIEL_SINE, 110, false, false, false);
}
Test(gl_incident, dielectric_sine_gl_compute_equals_cpu, .timeout = 120)
{
    values_agree("gl-compute", DIEL_SINE, 110, false, false, false);
}

/* Pulses at oblique incidence, CPML: a Gaussian onto a dielectric and a PEC
 * cylinder; a modulated Gaussian (front offset) and a Ricker pulse onto a
 * lossy and a lossless one. */
Test(gl_incident, gaussian_oblique_pec_dielectric_gl_compute_equals_cpu, .timeout = 120)
{
    values_agree("gl-compute",
                 GRID "[source]\ntype = plane_wave\nangle = 35\nwaveform = gaussian\n"
                      "[boundary]\ntype = cpml\ncells = 8\n"
                      "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\n"
                      "center_x = 30.2\ncenter_y = 28.7\nradius = 8\n"
                      "[object.pec]\nshape = circle\nmaterial = pec\ncenter_x = 50\n"
                      "center_y = 40\nradius = 5.5\n",
                 120, false, false, false);
}
Test(gl_incident, modulated_gaussian_lossy_gl_equals_cpu, .timeout = 120)
{
    values_agree("gl",
                 GRID "[source]\ntype = plane_wave\nangle = 160\nfront_offset = 4\n"
                      "waveform = modulated_gaussian\nbandwidth = 1\n"
                      "[boundary]\ntype = cpml\ncells = 8\n"
                      "[material.wet]\neps_r = 4\nsigma = 0.1\n"
                      "[object.cyl]\nshape = circle\nmaterial = wet\ncenter_x = 40.3\n"
                      "center_y = 30.1\nradius = 9.5\n"
                      "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 2\n"
                      "center_x = 20\ncenter_y = 20\nradius = 4\n",
                 130, false, false, false);
}
Test(gl_incident, ricker_lossy_gl_compute_equals_cpu, .timeout = 120)
{
    values_agree("gl-compute",
                 GRID "[source]\ntype = plane_wave\nangle = 20\nwaveform = ricker\n"
                      "[material.wet]\neps_r = 2.5\nsigma = 0.05\n"
                      "[object.cyl]\nshape = circle\nmaterial = wet\ncenter_x = 36.3\n"
                      "center_y = 31.1\nradius = 10.2\n",
                 120, false, false, false);
}

/* Conformal PEC (cut edges: their b^n from the host, copied into place by
 * the dispatch) beside a dielectric rod. */
Test(gl_incident, conformal_pec_gl_compute_equals_cpu, .timeout = 120)
{
    values_agree("gl-compute",
                 GRID "conformal_pec = true\n"
                      "[source]\ntype = plane_wave\nangle = 15\n"
                      "[boundary]\ntype = cpml\ncells = 8\n"
                      "[object.pec]\nshape = circle\nmaterial = pec\ncenter_x = 40.3\n"
                      "center_y = 31.1\nradius = 9.4\n"
                      "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\n"
                      "center_x = 20\ncenter_y = 22\nradius = 5\n",
                 120, true, false, false);
}
/* The same with batches of one step: the host's b^n of the next batch are
 * uploaded while the batch before may not have run its values dispatch yet
 * (two batches in flight), 120 times.  With one host-value buffer for both
 * batch slots the upload reached that dispatch's inputs on the H100 and
 * the H200 (gl/values.c); each slot has its own now. */
Test(gl_incident, conformal_pec_batches_of_one_equal_cpu, .timeout = 120)
{
    batch_steps = "1";
    for (int k = 0; k < 2; k++)
        values_agree(k ? "gl" : "gl-compute",
                     GRID "conformal_pec = true\n"
                          "[source]\ntype = plane_wave\nangle = 15\n"
                          "[boundary]\ntype = cpml\ncells = 8\n"
                          "[object.pec]\nshape = circle\nmaterial = pec\ncenter_x = 40.3\n"
                          "center_y = 31.1\nradius = 9.4\n",
                     120, true, false, false);
}
Test(gl_incident, conformal_pec_gl_equals_cpu, .timeout = 120)
{
    values_agree("gl",
                 GRID "conformal_pec = true\n"
                      "[source]\ntype = plane_wave\nangle = 0\nwaveform = gaussian\n"
                      "[object.pec]\nshape = circle\nmaterial = pec\ncenter_x = 36.3\n"
                      "center_y = 31.1\nradius = 10.4\n",
                 110, true, false, false);
}

/* Dispersive cells (their Ei^{n+1}) beside a PEC plate and a dielectric rod. */
Test(gl_incident, debye_cylinder_gl_equals_cpu, .timeout = 120)
{
    values_agree("gl",
                 GRID "[source]\ntype = plane_wave\nangle = 25\n"
                      "[boundary]\ntype = cpml\ncells = 8\n"
                      "[material.m]\neps_r = 2\ndebye = 6 1.6e-10\nsigma = 0.02\n"
                      "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 33\n"
                      "center_y = 32\nradius = 9\n"
                      "[object.plate]\nshape = rectangle\nmaterial = pec\ncenter_x = 52\n"
                      "center_y = 32\nwidth = 3\nheight = 14\n",
                 120, false, false, true);
}
Test(gl_incident, drude_cylinder_gl_compute_equals_cpu, .timeout = 120)
{
    values_agree("gl-compute",
                 GRID "[source]\ntype = plane_wave\nangle = 30\nwaveform = gaussian\n"
                      "[material.m]\neps_r = 1\ndrude = 1e10 5e8\n"
                      "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 36.3\n"
                      "center_y = 31.2\nradius = 10\n",
                 120, false, false, true);
}

/* H slots: TE (a dielectric and a PEC cylinder: hinc and PEC edges; TE
 * smoothing's diagonal: the off-diagonal edges' w below) and TM with mu_r. */
Test(gl_incident, te_hslots_gl_compute_equals_cpu, .timeout = 120)
{
    values_agree("gl-compute",
                 GRID "polarization = te\nte_offdiagonal = false\n"
                      "[source]\ntype = plane_wave\nangle = 30\nwaveform = gaussian\n"
                      "[boundary]\ntype = cpml\ncells = 8\n"
                      "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 4\n"
                      "center_x = 30.2\ncenter_y = 30.7\nradius = 9\n"
                      "[object.pec]\nshape = circle\nmaterial = pec\ncenter_x = 52\n"
                      "center_y = 36\nradius = 5\n",
                 120, false, true, false);
}
Test(gl_incident, tm_mu_hslots_gl_equals_cpu, .timeout = 120)
{
    values_agree("gl",
                 GRID "[source]\ntype = plane_wave\nangle = 200\n"
                      "[material.mag]\neps_r = 2\nmu_r = 3\n"
                      "[object.cyl]\nshape = circle\nmaterial = mag\ncenter_x = 36.4\n"
                      "center_y = 31\nradius = 10\n",
                 120, false, true, false);
}

/* TE's own lists: the TE cut cells' b^n (from the host, copied into place
 * after the dispersive entries) beside a dielectric rod's H slots; the
 * dispersive TE edges' Hi^{n+1/2} (inc_hnode on the GPU) beside lossy H
 * slots (cinc_diff, cinc_sum). */
#define TE_CONFORMAL TE_CONFORMAL_WITH("te_offdiagonal = false\n")
#define TE_CONFORMAL_WITH(offd)                                                                \
    GRID "polarization = te\nconformal_pec = true\n" offd                                       \
         "[source]\ntype = plane_wave\nangle = 25\nwaveform = gaussian\n"                       \
         "[boundary]\ntype = cpml\ncells = 8\n"                                                  \
         "[object.cyl]\nshape = circle\nmaterial = pec\ncenter_x = 30.3\ncenter_y = 31.6\n"     \
         "radius = 7.4\n"                                                                        \
         "[object.rod]\nshape = circle\nmaterial = dielectric\neps_r = 3\ncenter_x = 50.2\n"    \
         "center_y = 30\nradius = 5\n"
#define TE_DISP                                                                                \
    GRID "polarization = te\n"                                                                 \
         "[source]\ntype = plane_wave\nangle = 30\nwaveform = gaussian\n"                       \
         "[boundary]\ntype = cpml\ncells = 8\n"                                                  \
         "[material.m]\neps_r = 2\ndrude = 2e10 1e9\n"                                          \
         "[material.l]\neps_r = 3\nsigma = 0.05\n"                                              \
         "[object.cyl]\nshape = circle\nmaterial = m\ncenter_x = 28.5\ncenter_y = 30\n"        \
         "radius = 8\n"                                                                          \
         "[object.rod]\nshape = circle\nmaterial = l\ncenter_x = 50.3\ncenter_y = 30.6\n"      \
         "radius = 5.2\n"

/* The scene's model holds TE cut cells / dispersive TE edges as the test
 * says. */
static void expect_te_lists(const char *scene, bool tecut, bool hdisp)
{
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    cr_assert_eq(t.model.ntecut > 0, tecut, "%zu TE cut cells", t.model.ntecut);
    cr_assert_eq(t.model.nhdisp > 0, hdisp, "%zu dispersive TE edges", t.model.nhdisp);
    setup_free(&t);
}

Test(gl_incident, te_conformal_pec_gl_compute_equals_cpu, .timeout = 120)
{
    expect_te_lists(TE_CONFORMAL, true, false);
    values_agree("gl-compute", TE_CONFORMAL, 120, false, true, false);
}
Test(gl_incident, te_lossy_dispersive_edges_gl_equals_cpu, .timeout = 120)
{
    expect_te_lists(TE_DISP, false, true);
    values_agree("gl", TE_DISP, 120, false, true, false);
}
/* The TE off-diagonal edges (the default te_offdiagonal: the rod's
 * smoothing takes them) beside the TE cut cells: their w, from the host,
 * after the cut cells' b^n in the host's values. */
Test(gl_incident, te_offdiagonal_conformal_gl_compute_equals_cpu, .timeout = 120)
{
    const char *scene = TE_CONFORMAL_WITH("");
    expect_te_lists(scene, true, false);
    struct test_setup t;
    setup_from_text(&t, scene, NULL, 0);
    cr_assert_gt(t.model.nhoff, 20, "%zu off-diagonal edges", t.model.nhoff);
    setup_free(&t);
    values_agree("gl-compute", scene, 120, false, true, false);
}
Test(gl_incident, te_offdiagonal_gl_equals_cpu, .timeout = 120)
{
    values_agree("gl", TE_CONFORMAL_WITH(""), 120, false, true, false);
}
/* TEXFDTD_GL_VALUES takes host or device only. */
Test(gl_incident, bad_values_setting_is_refused)
{
    skip_without_gl();
    struct test_setup t;
    setup_from_text(&t, DIEL_SINE, NULL, 0);
    setenv("TEXFDTD_GL_VALUES", "gpu", 1);
    struct engine_options o = {0};
    o.precision = PRECISION_SINGLE;
    o.device = -1;
    struct engine *e = NULL;
    char err[ERRLEN] = "";
    cr_assert_neq(engine_create("gl-compute", &t.model, &o, &e, err, sizeof err), 0);
    cr_expect(strstr(err, "TEXFDTD_GL_VALUES=gpu"), "%s", err);
    unsetenv("TEXFDTD_GL_VALUES");
    setup_free(&t);
}

/* A driver that cannot build the values' program (here: a shader directory
 * whose incident.glsl does not compile, as a driver without doubles would
 * refuse it) falls back to the host's values, says so, and still gives the
 * cpu engine's bits. */
/* A shader directory with the project's shaders and core headers linked in,
 * and incident.glsl replaced by `text` (the caller's driver stand-in). */
static void shader_dir_with(char *dir, const char *text)
{
    cr_assert(mkdtemp(dir));
    DIR *d = opendir("shaders");
    cr_assert(d, "no shaders/ here");
    char from[PATH_MAX], to[PATH_MAX + 300];
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' || !strcmp(de->d_name, "incident.glsl"))
            continue;
        snprintf(from, sizeof from, "shaders/%s", de->d_name);
        char *abs = realpath(from, NULL);
        snprintf(to, sizeof to, "%s/%s", dir, de->d_name);
        cr_assert_eq(symlink(abs, to), 0, "%s", to);
        free(abs);
    }
    closedir(d);
    /* the installed layout: core/yee.h and core/incident.h beside them */
    const char *core[2] = {"yee.h", "incident.h"};
    for (int k = 0; k < 2; k++) {
        snprintf(from, sizeof from, "core/%s", core[k]);
        char *abs = realpath(from, NULL);
        snprintf(to, sizeof to, "%s/%s", dir, core[k]);
        cr_assert_eq(symlink(abs, to), 0, "%s", to);
        free(abs);
    }
    snprintf(to, sizeof to, "%s/incident.glsl", dir);
    FILE *f = fopen(to, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

static void shader_dir_remove(const char *dir)
{
    char to[PATH_MAX + 300];
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(to, sizeof to, "%s/%s", dir, de->d_name);
        unlink(to);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* DIEL_SINE on gl-compute with the shader directory dir: describe names the
 * host's values with `want`, and the fields are the cpu engine's. */
static void falls_back(const char *dir, const char *want)
{
    struct test_setup t;
    setup_from_text(&t, DIEL_SINE, NULL, 0);
    float *v[3];
    enum denormals dn;
    run_gl_in("gl-compute", "device", dir, want, &t.model, 110, v, &dn);
    void *cf[3];
    run_cpu(&t.model, 110, dn, cf);
    expect_cpu_bits("gl-compute, values on the host after the fallback", &t.model, v, cf);
    free_fields(cf);
    setup_free(&t);
}

Test(gl_incident, no_fp64_program_falls_back_to_host_values, .timeout = 120)
{
    skip_without_gl();
    char dir[] = "/tmp/texfdtd-shaders-XXXXXX";
    shader_dir_with(dir, "#error this driver has no doubles (a test)\n");
    falls_back(dir, "slot values on the host (no fp64 compute program");
    shader_dir_remove(dir);
}

/* A driver whose double products are a little off (the real prelude with
 * i_mul's result scaled by 1 + 2^-50, a stand-in for a compiler that
 * contracts or reorders in spite of `precise`): the engine's check finds
 * it before the run and keeps the host's values, so the fields are still
 * the cpu engine's. */
Test(gl_incident, inexact_driver_doubles_fall_back_to_host_values, .timeout = 120)
{
    skip_without_gl();
    FILE *f = fopen("shaders/incident.glsl", "r");
    cr_assert(f);
    static char text[1 << 16];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *from = "    precise double r = a * b;\n";
    char *at = strstr(text, from);
    cr_assert(at, "i_mul's statement not found in shaders/incident.glsl");
    static char bent[sizeof text + 128];
    snprintf(bent, sizeof bent, "%.*s    precise double r = (a * b) * 1.0000000000000009LF;\n%s",
             (int)(at - text), text, at + strlen(from));
    char dir[] = "/tmp/texfdtd-shaders-XXXXXX";
    shader_dir_with(dir, bent);
    falls_back(dir, "differ from the host's");
    shader_dir_remove(dir);
}
