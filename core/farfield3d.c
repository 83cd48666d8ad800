/* farfield3d.c - the 3D near-to-far-field transform (see farfield3d.h). */
#define _GNU_SOURCE
#include "farfield3d.h"
#include "engine.h"
#include "h5util.h"
#include "monitor.h"
#include "util.h"

#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define C0 299792458.0

/* One node set: the H_hc nodes of one face, each with the E_ec node half a
 * cell inside (interior nodes) and half a cell outside.  Node (i1, i2) lies
 * at x0 + i1 e_b + i2 e_c (b = (a+1) % 3, c = (a+2) % 3); the rows along
 * edge_axis (1: i1, 2: i2) at 0 and n - 1 are the box's edges. */
struct ff3_set {
    int a, s;      /* the face: normal axis, outward sign */
    int hc, ec;    /* the H component (c for H_c nodes, b for H_b) and its E partner */
    int n1, n2;    /* nodes along b and c */
    double x0[3];  /* node (0, 0), cells */
    int edge_axis; /* 1 or 2 */
    size_t first;  /* its first node in the plan's arrays */
};

struct ff3_plan {
    int nsets;
    struct ff3_set set[12];
    size_t nnodes;
    /* per node: the H sample and the E samples outside and inside (the
     * inside one only for nodes off the edges: field 0xff otherwise) */
    struct sample *h, *eout, *ein;
};

static const int h_field[3] = {FIELD_HX, FIELD_HY, FIELD_HZ};
static const int e_field[3] = {FIELD_EX, FIELD_EY, FIELD_EZ};

static bool is_edge(const struct ff3_set *st, int i1, int i2)
{
    return st->edge_axis == 1 ? (i1 == 0 || i1 == st->n1 - 1) : (i2 == 0 || i2 == st->n2 - 1);
}

static size_t cell_of(const struct model *m, const int c[3])
{
    return (size_t)c[0] + (size_t)m->nx * ((size_t)c[1] + (size_t)m->ny * (size_t)c[2]);
}

void farfield3d_plan_free(void *plan)
{
    struct ff3_plan *p = plan;
    if (!p)
        return;
    free(p->h);
    free(p->eout);
    free(p->ein);
    free(p);
}

int farfield3d_plan_build(const struct model *m, void **plan, struct sample **pairs,
                          size_t *npairs, char *err, size_t errlen)
{
    const struct scene_far *f = &m->scene->far;
    *plan = NULL;
    *pairs = NULL;
    *npairs = 0;
    struct ff3_plan *p = xcalloc(1, sizeof *p, "far-field plan", err, errlen);
    if (!p)
        return -1;
    /* the sets: per face (x-, x+, y-, y+, z-, z+) the H_c nodes, then the H_b nodes */
    size_t n = 0;
    for (int a = 0; a < 3; a++)
        for (int side = 0; side < 2; side++)
            for (int type = 0; type < 2; type++) {
                struct ff3_set *st = &p->set[p->nsets++];
                const int b = (a + 1) % 3, c = (a + 2) % 3;
                st->a = a;
                st->s = side ? +1 : -1;
                st->x0[a] = side ? f->hi[a] + 0.5 : f->lo[a] - 0.5;
                if (type == 0) { /* H_c at (b: m + 1/2, c: n), m = lo_b - 1 .. hi_b: edges along b */
                    st->hc = c;
                    st->ec = b;
                    st->n1 = f->hi[b] - f->lo[b] + 2;
                    st->n2 = f->hi[c] - f->lo[c] + 1;
                    st->x0[b] = f->lo[b] - 0.5;
                    st->x0[c] = f->lo[c];
                    st->edge_axis = 1;
                } else { /* H_b at (b: m, c: n + 1/2), n = lo_c - 1 .. hi_c: edges along c */
                    st->hc = b;
                    st->ec = c;
                    st->n1 = f->hi[b] - f->lo[b] + 1;
                    st->n2 = f->hi[c] - f->lo[c] + 2;
                    st->x0[b] = f->lo[b];
                    st->x0[c] = f->lo[c] - 0.5;
                    st->edge_axis = 2;
                }
                st->first = n;
                n += (size_t)st->n1 * (size_t)st->n2;
            }
    p->nnodes = n;
    p->h = malloc(n * sizeof *p->h);
    p->eout = malloc(n * sizeof *p->eout);
    p->ein = malloc(n * sizeof *p->ein);
    struct sample *v = malloc(3 * n * sizeof *v);
    if (!p->h || !p->eout || !p->ein || !v) {
        free(v);
        farfield3d_plan_free(p);
        return seterr(err, errlen, "out of memory planning the far-field box (%zu nodes)", n);
    }
    size_t np = 0;
    for (int q = 0; q < p->nsets; q++) {
        const struct ff3_set *st = &p->set[q];
        const int a = st->a, b = (a + 1) % 3, c = (a + 2) % 3;
        /* cells: H of the face at lo_a - 1 or hi_a; E outside at lo_a - 1 or
         * hi_a + 1, inside at lo_a or hi_a */
        const int kh = st->s > 0 ? f->hi[a] : f->lo[a] - 1;
        const int kout = st->s > 0 ? f->hi[a] + 1 : f->lo[a] - 1;
        const int kin = st->s > 0 ? f->hi[a] : f->lo[a];
        for (int i2 = 0; i2 < st->n2; i2++)
            for (int i1 = 0; i1 < st->n1; i1++) {
                const size_t e = st->first + (size_t)i2 * st->n1 + i1;
                int cc[3];
                /* the stored cell of a node half a cell off along an axis is the floor */
                cc[b] = (int)floor(st->x0[b] + i1);
                cc[c] = (int)floor(st->x0[c] + i2);
                cc[a] = kh;
                p->h[e] = (struct sample){.field = (uint8_t)h_field[st->hc], .cell = cell_of(m, cc)};
                v[np++] = p->h[e];
                cc[a] = kout;
                p->eout[e] = (struct sample){.field = (uint8_t)e_field[st->ec], .cell = cell_of(m, cc)};
                v[np++] = p->eout[e];
                if (is_edge(st, i1, i2)) {
                    p->ein[e] = (struct sample){.field = 0xff, .cell = 0};
                } else {
                    cc[a] = kin;
                    p->ein[e] = (struct sample){.field = (uint8_t)e_field[st->ec], .cell = cell_of(m, cc)};
                    v[np++] = p->ein[e];
                }
            }
    }
    *plan = p;
    *pairs = v;
    *npairs = np;
    return 0;
}

/* ---- the transform ----------------------------------------------------------- */

static void cross(const double x[3], const double y[3], double out[3])
{
    out[0] = x[1] * y[2] - x[2] * y[1];
    out[1] = x[2] * y[0] - x[0] * y[2];
    out[2] = x[0] * y[1] - x[1] * y[0];
}

static double dot(const double x[3], const double y[3])
{
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

/* The per-frequency node data: A = the E_s of the node (mean of inside and
 * outside, or outside / 2 on an edge), B = H_s. */
struct ff3_data {
    double complex *A, *B;
};

static int node_data(const struct model *m, const struct monitors *mo, const struct ff3_plan *p,
                     int k, struct ff3_data *d, char *err, size_t errlen)
{
    const int g = m->plan->far;
    d->A = malloc(p->nnodes * sizeof *d->A);
    d->B = malloc(p->nnodes * sizeof *d->B);
    if (!d->A || !d->B)
        return seterr(err, errlen, "out of memory for the far-field transform");
    for (size_t e = 0; e < p->nnodes; e++) {
        const size_t qh = monitor_group_find(m, g, p->h[e].field, p->h[e].cell);
        const size_t qo = monitor_group_find(m, g, p->eout[e].field, p->eout[e].cell);
        if (qh == SIZE_MAX || qo == SIZE_MAX)
            return seterr(err, errlen, "far-field transform: a sample of the box is missing");
        const double complex eo = monitors_phasor(mo, g, k, qo);
        d->B[e] = monitors_phasor(mo, g, k, qh);
        if (p->ein[e].field == 0xff) {
            d->A[e] = 0.5 * eo;
        } else {
            const size_t qi = monitor_group_find(m, g, p->ein[e].field, p->ein[e].cell);
            if (qi == SIZE_MAX)
                return seterr(err, errlen, "far-field transform: a sample of the box is missing");
            d->A[e] = 0.5 * (monitors_phasor(mo, g, k, qi) + eo);
        }
    }
    return 0;
}

/* The separable sum over a set of exp(i k' u.(x - centre)) v(node), the
 * rows along b first: pa exp along a, pb[i1], pc[i2]. */
static double complex set_sum(const struct ff3_set *st, const double complex *v,
                              double complex pa, const double complex *pb,
                              const double complex *pc)
{
    double complex s = 0;
    for (int i2 = 0; i2 < st->n2; i2++) {
        const double complex *row = v + st->first + (size_t)i2 * st->n1;
        double complex r = 0;
        for (int i1 = 0; i1 < st->n1; i1++)
            r += pb[i1] * row[i1];
        s += pc[i2] * r;
    }
    return pa * s;
}

/* The same over the set's two edge rows only. */
static double complex edge_sum(const struct ff3_set *st, const double complex *v,
                               double complex pa, const double complex *pb,
                               const double complex *pc)
{
    double complex s = 0;
    if (st->edge_axis == 1) {
        for (int i2 = 0; i2 < st->n2; i2++) {
            const double complex *row = v + st->first + (size_t)i2 * st->n1;
            s += pc[i2] * (pb[0] * row[0] + pb[st->n1 - 1] * row[st->n1 - 1]);
        }
    } else {
        const double complex *r0 = v + st->first, *r1 = v + st->first + (size_t)(st->n2 - 1) * st->n1;
        double complex s0 = 0, s1 = 0;
        for (int i1 = 0; i1 < st->n1; i1++) {
            s0 += pb[i1] * r0[i1];
            s1 += pb[i1] * r1[i1];
        }
        s = pc[0] * s0 + pc[st->n2 - 1] * s1;
    }
    return pa * s;
}

/* I_theta and I_phi (farfield3d.h) of direction (theta, phi). */
static void reaction(const struct model *m, const struct ff3_plan *p, const struct ff3_data *d,
                     double f, double theta, double phi, double complex *pb, double complex *pc,
                     double complex out[2])
{
    const struct dft_group *gr = &m->plan->groups[m->plan->far];
    const double ctr[3] = {gr->cx, gr->cy, gr->cz};
    const double S = m->scene->courant, w = m->inc.omega_dt * f;
    const double u[3] = {sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta)};
    const double kp = yee_wavenumber(S, w, u);
    /* the test wave: K, W, and the polarisations made perpendicular to K */
    double K[3], Kh[3];
    for (int a = 0; a < 3; a++)
        K[a] = -2.0 * sin(0.5 * kp * u[a]);
    const double W = 2.0 * sin(0.5 * w) / S, nK = sqrt(dot(K, K));
    for (int a = 0; a < 3; a++)
        Kh[a] = K[a] / nK;
    const double th[3] = {cos(theta) * cos(phi), cos(theta) * sin(phi), -sin(theta)};
    double pol[2][3], ht[2][3];
    const double c = dot(th, Kh);
    for (int a = 0; a < 3; a++)
        pol[0][a] = th[a] - c * Kh[a];
    const double n0 = sqrt(dot(pol[0], pol[0]));
    for (int a = 0; a < 3; a++)
        pol[0][a] /= n0;
    cross(pol[0], Kh, pol[1]); /* ~ phi-hat: -u x theta-hat with K ~ -k' u */
    for (int q = 0; q < 2; q++) {
        cross(K, pol[q], ht[q]);
        for (int a = 0; a < 3; a++)
            ht[q][a] /= W;
    }
    out[0] = out[1] = 0;
    for (int q = 0; q < p->nsets; q++) {
        const struct ff3_set *st = &p->set[q];
        const int a = st->a, b = (a + 1) % 3, c3 = (a + 2) % 3;
        for (int i1 = 0; i1 < st->n1; i1++)
            pb[i1] = cexp(I * kp * u[b] * (st->x0[b] + i1 - ctr[b]));
        for (int i2 = 0; i2 < st->n2; i2++)
            pc[i2] = cexp(I * kp * u[c3] * (st->x0[c3] + i2 - ctr[c3]));
        const double complex pa = cexp(I * kp * u[a] * (st->x0[a] - ctr[a]));
        const double complex sA = set_sum(st, d->A, pa, pb, pc);
        const double complex sB = set_sum(st, d->B, pa, pb, pc);
        const double complex sE = edge_sum(st, d->B, pa, pb, pc);
        /* E_t at the two E nodes against its value at the face: cos(k' u_a / 2)
         * for the mean of both, exp(i k' u_a s / 2) / 2 for the outer one */
        const double gi = cos(0.5 * kp * u[a]);
        const double complex ge = 0.5 * cexp(I * 0.5 * kp * u[a] * st->s);
        const double complex tB = gi * sB + (ge - gi) * sE;
        /* s (E_b H_c) for the H_c nodes, -s (E_c H_b) for the H_b nodes,
         * as E_s x H_t - E_t x H_s */
        const double sg = st->hc == c3 ? st->s : -st->s;
        for (int k = 0; k < 2; k++)
            out[k] += sg * (ht[k][st->hc] * sA - pol[k][st->ec] * tB);
    }
}

/* The reactions I_theta, I_phi (farfield3d.h) of n directions, or, with
 * amp = NULL, the RCS: one of the two outputs. */
static int transform(const struct model *m, const struct monitors *mo, int k, int n,
                     const double *theta, const double *phi, double complex *amp, double *rcs,
                     double *rcs_theta, double *rcs_phi, char *err, size_t errlen)
{
    const struct monitor_plan *mp = m->plan;
    if (!mp || mp->far < 0 || !mp->far3d || m->nz < 2)
        return seterr(err, errlen, "the scene has no 3D far-field monitor");
    const struct ff3_plan *p = mp->far3d;
    const struct scene_far *far = &m->scene->far;
    if (k < 0 || k >= far->fr.n)
        return seterr(err, errlen, "far field: no frequency %d", k);
    struct ff3_data d = {0};
    if (node_data(m, mo, p, k, &d, err, errlen)) {
        free(d.A);
        free(d.B);
        return -1;
    }
    const double f = far->fr.f[k];
    const double kk = 2.0 * M_PI * f / m->scene->cells_per_wavelength; /* physical, per cell */
    const double scale = pow(kk, 4.0) / (16.0 * pow(M_PI, 3.0));    /* |I|^2 -> sigma / lambda^2 */
    int nmax = 1;
    for (int q = 0; q < p->nsets; q++) {
        nmax = p->set[q].n1 > nmax ? p->set[q].n1 : nmax;
        nmax = p->set[q].n2 > nmax ? p->set[q].n2 : nmax;
    }
    int bad = 0;
#pragma omp parallel reduction(| : bad)
    {
        double complex *pb = malloc((size_t)nmax * sizeof *pb), *pc = malloc((size_t)nmax * sizeof *pc);
        bad = !pb || !pc;
#pragma omp for schedule(dynamic, 4)
        for (int q = 0; q < n; q++) {
            double complex I2[2] = {NAN, NAN};
            if (!bad)
                reaction(m, p, &d, f, theta[q], phi[q], pb, pc, I2);
            if (amp) {
                amp[2 * q] = I2[0];
                amp[2 * q + 1] = I2[1];
                continue;
            }
            const double st = scale * creal(I2[0] * conj(I2[0]));
            const double sp = scale * creal(I2[1] * conj(I2[1]));
            rcs[q] = st + sp;
            if (rcs_theta)
                rcs_theta[q] = st;
            if (rcs_phi)
                rcs_phi[q] = sp;
        }
        free(pb);
        free(pc);
    }
    free(d.A);
    free(d.B);
    if (bad)
        return seterr(err, errlen, "out of memory for the far-field transform");
    return 0;
}

int farfield3d_rcs(const struct model *m, const struct monitors *mo, int k, int n,
                   const double *theta, const double *phi, double *rcs, double *rcs_theta,
                   double *rcs_phi, char *err, size_t errlen)
{
    return transform(m, mo, k, n, theta, phi, NULL, rcs, rcs_theta, rcs_phi, err, errlen);
}

int farfield3d_reactions(const struct model *m, const struct monitors *mo, int k, int n,
                         const double *theta, const double *phi, double complex *amp, char *err,
                         size_t errlen)
{
    return transform(m, mo, k, n, theta, phi, amp, NULL, NULL, NULL, err, errlen);
}

void farfield3d_cut_angles(const struct scene *s, int cut, int q, int n, double *theta,
                           double *phi)
{
    const double a = s->angle_deg * M_PI / 180.0, t = 2.0 * M_PI * q / n;
    if (cut == 0) {
        if (t <= M_PI) {
            *theta = t;
            *phi = a;
        } else {
            *theta = 2.0 * M_PI - t;
            *phi = a + M_PI;
        }
        *phi = fmod(*phi, 2.0 * M_PI);
        if (*phi < 0)
            *phi += 2.0 * M_PI;
    } else {
        *theta = 0.5 * M_PI;
        *phi = t;
    }
}

/* ---- the directions written and their RCS --------------------------------------- */

/* Every direction written, in CSV order per frequency: E-plane, H-plane,
 * grid; and for each frequency the three RCS. */
struct ff3_out {
    int na, nt, np, ndir, nf;
    double *theta, *phi;           /* [ndir] radians */
    double *tot, *pth, *pph;       /* [nf][ndir] sigma / lambda^2 */
};

static void out_free(struct ff3_out *o)
{
    free(o->theta);
    free(o->phi);
    free(o->tot);
    free(o->pth);
    free(o->pph);
}

static double grid_theta(const struct scene_far *f, int i)
{
    return f->theta_points > 1 ? M_PI * i / (f->theta_points - 1) : 0.5 * M_PI;
}

static int out_compute(const struct model *m, const struct monitors *mo, struct ff3_out *o,
                       char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    const struct scene_far *f = &s->far;
    memset(o, 0, sizeof *o);
    o->na = f->angles;
    o->nt = f->phi_points > 0 ? f->theta_points : 0;
    o->np = f->theta_points > 0 ? f->phi_points : 0;
    o->ndir = 2 * o->na + o->nt * o->np;
    o->nf = f->fr.n;
    const size_t nd = (size_t)(o->ndir ? o->ndir : 1), all = nd * (size_t)o->nf;
    o->theta = malloc(nd * sizeof *o->theta);
    o->phi = malloc(nd * sizeof *o->phi);
    o->tot = malloc(all * sizeof *o->tot);
    o->pth = malloc(all * sizeof *o->pth);
    o->pph = malloc(all * sizeof *o->pph);
    if (!o->theta || !o->phi || !o->tot || !o->pth || !o->pph) {
        out_free(o);
        return seterr(err, errlen, "out of memory for the far field");
    }
    int q = 0;
    for (int cut = 0; cut < 2; cut++)
        for (int a = 0; a < o->na; a++, q++)
            farfield3d_cut_angles(s, cut, a, o->na, &o->theta[q], &o->phi[q]);
    for (int i = 0; i < o->nt; i++)
        for (int j = 0; j < o->np; j++, q++) {
            o->theta[q] = grid_theta(f, i);
            o->phi[q] = 2.0 * M_PI * j / o->np;
        }
    for (int k = 0; k < o->nf; k++) {
        const size_t off = (size_t)k * nd;
        if (farfield3d_rcs(m, mo, k, o->ndir, o->theta, o->phi, o->tot + off, o->pth + off,
                           o->pph + off, err, errlen)) {
            out_free(o);
            return -1;
        }
    }
    return 0;
}


static void out_release(void *p)
{
    out_free(p);
    free(p);
}

/* The transform at every output direction, made once for far_field.csv,
 * its plot and /far in fields.h5 (kept in the monitors' cache). */
static const struct ff3_out *out_get(const struct model *m, struct monitors *mo, char *err,
                                     size_t errlen)
{
    struct ff3_out *o = monitors_cache_get(mo, MONITOR_CACHE_FAR3D);
    if (o)
        return o;
    if (!(o = malloc(sizeof *o))) {
        seterr(err, errlen, "out of memory for the far field");
        return NULL;
    }
    if (out_compute(m, mo, o, err, errlen)) {
        free(o);
        return NULL;
    }
    monitors_cache_put(mo, MONITOR_CACHE_FAR3D, o, out_release);
    return o;
}

static double deg(double r) { return r * 180.0 / M_PI; }

/* far_field.png by gnuplot: the two cuts, sigma / lambda^2 in dB (first
 * frequency), each in its own plane with the forward direction to the
 * right: the E-plane with +z up (polar angle 90 - t), the H-plane with the
 * direction a + 90 degrees up (polar angle phi - a). */
static void cuts_plot(const char *dir, const struct ff3_out *o, double fhz, double a_deg)
{
    if (o->na < 2 || system("gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1 </dev/null") != 0)
        return; /* no gnuplot: the CSV and HDF5 carry the numbers */
    char dat[4400], script[4400], png[4400];
    snprintf(dat, sizeof dat, "%s/.far_field_cuts.dat", dir);
    snprintf(script, sizeof script, "%s/.far_field.gp", dir);
    snprintf(png, sizeof png, "%s/far_field.png", dir);
    FILE *d = fopen(dat, "w");
    if (!d)
        return;
    double lo = INFINITY, hi = -INFINITY;
    for (int q = 0; q <= o->na; q++) { /* closed curves: the first point again */
        const int p = q % o->na;
        const double t = 360.0 * q / o->na;
        const double e = monitor_db10(o->tot[p]), h = monitor_db10(o->tot[o->na + p]);
        fprintf(d, "%.6f %.6f %.6f %.6f\n", 90.0 - t, e, t - a_deg, h);
        if (isfinite(e))
            lo = fmin(lo, e), hi = fmax(hi, e);
        if (isfinite(h))
            lo = fmin(lo, h), hi = fmax(hi, h);
    }
    fclose(d);
    FILE *f = isfinite(lo) ? fopen(script, "w") : NULL;
    if (!f) {
        unlink(dat);
        return;
    }
    hi = ceil(hi / 5.0) * 5.0;
    lo = fmax(floor(lo / 5.0) * 5.0, hi - 40.0);
    fprintf(f, "set terminal pngcairo size 800,800\nset output '%s'\nset polar\n"
               "set angles degrees\nset size square\nunset border\nunset xtics\nunset ytics\n"
               "set grid polar 30\nset rrange [%g:%g]\nset rtics 5\n"
               "set title \"bistatic RCS {/Symbol s}/{/Symbol l}^2 (dB) at %.6g GHz\\nforward to "
               "the right; up: +z (E-plane), the direction of travel + 90 degrees (H-plane)\"\n"
               "set key bottom right\n"
               "plot '%s' using 1:($2 < %g ? %g : $2) with lines lw 2 title 'E-plane', "
               "'' using 3:($4 < %g ? %g : $4) with lines lw 2 title 'H-plane'\n",
            png, lo, hi, fhz * 1e-9, dat, lo, lo, lo, lo);
    fclose(f);
    monitor_gnuplot(script, png);
    unlink(dat);
}

int farfield3d_write_csv(const struct model *m, struct monitors *mo, const char *dir, char *err,
                         size_t errlen)
{
    const struct scene *s = m->scene;
    const struct ff3_out *o = out_get(m, mo, err, errlen);
    if (!o)
        return -1;
    char path[4300];
    snprintf(path, sizeof path, "%s/far_field.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return seterr(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    fprintf(f, "frequency_hz,theta_deg,phi_deg,rcs_m2,rcs_over_lambda2,rcs_db_lambda2\n");
    for (int k = 0; k < o->nf; k++) {
        const double fhz = s->far.fr.f[k] * s->frequency_hz, lam = C0 / fhz;
        for (int q = 0; q < o->ndir; q++) {
            const double v = o->tot[(size_t)k * o->ndir + q];
            fprintf(f, "%.10g,%.10g,%.10g,%.10g,%.10g,%.6f\n", fhz, deg(o->theta[q]), deg(o->phi[q]),
                    v * lam * lam, v, monitor_db10(v));
        }
    }
    if (fclose(f))
        return seterr(err, errlen, "%s: cannot write", path);
    cuts_plot(dir, o, s->far.fr.f[0] * s->frequency_hz, s->angle_deg);
    return 0;
}

/* The three RCS of directions first .. first + count - 1 of every
 * frequency into group g, shaped [nf] x dims. */
static int put_rcs(hid_t g, const struct ff3_out *o, int first, int count, int rank,
                   const hsize_t *dims)
{
    double *buf = malloc((size_t)(o->nf ? o->nf : 1) * (size_t)(count ? count : 1) * sizeof *buf);
    if (!buf)
        return -1;
    const double *src[3] = {o->tot, o->pth, o->pph};
    static const char *const names[3] = {"rcs_over_lambda2", "rcs_theta_over_lambda2",
                                         "rcs_phi_over_lambda2"};
    int rc = 0;
    for (int w = 0; w < 3 && !rc; w++) {
        for (int k = 0; k < o->nf; k++)
            memcpy(buf + (size_t)k * count, src[w] + (size_t)k * o->ndir + first,
                   (size_t)count * sizeof *buf);
        rc = h5_put_doubles(g, names[w], rank, dims, buf);
    }
    free(buf);
    return rc;
}

int farfield3d_write_h5(const struct model *m, struct monitors *mo, long long file_id, char *err,
                        size_t errlen)
{
    const hid_t file = (hid_t)file_id;
    const struct scene *s = m->scene;
    const struct scene_far *f = &s->far;
    const struct ff3_out *o = out_get(m, mo, err, errlen);
    if (!o)
        return -1;
    int rc = 0;
    double *fhz = malloc((size_t)o->nf * sizeof *fhz), *ang = malloc((size_t)(o->ndir + 1) * sizeof *ang);
    hid_t g = H5Gcreate2(file, "far", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (!fhz || !ang || g < 0)
        rc = -1;
    if (!rc) {
        for (int k = 0; k < o->nf; k++)
            fhz[k] = f->fr.f[k] * s->frequency_hz;
        const hsize_t df = (hsize_t)o->nf;
        rc = h5_put_doubles(g, "frequency_hz", 1, &df, fhz);
        for (int a = 0; a < 3 && !rc; a++) {
            static const char *const lo[3] = {"box_x0", "box_y0", "box_z0"};
            static const char *const hi[3] = {"box_x1", "box_y1", "box_z1"};
            rc = h5_attr_int(g, lo[a], f->lo[a]) || h5_attr_int(g, hi[a], f->hi[a]);
        }
        if (!rc)
            rc = h5_attr_string(g, "box", "faces on the H nodes x0-1/2, x1+1/2, y0-1/2, y1+1/2, "
                                          "z0-1/2, z1+1/2 (cells)")
                 || h5_attr_string(g, "angles", "u = (sin theta cos phi, sin theta sin phi, cos "
                                                "theta): theta from +z, phi from +x toward +y; "
                                                "incidence along (cos a, sin a, 0), E along +z "
                                                "(core/farfield3d.h)")
                 || h5_attr_string(g, "rcs", "sigma / lambda^2 = lim 4 pi r^2 |Es|^2 / |Einc|^2 "
                                             "/ lambda^2; theta and phi polarised parts");
    }
    static const char *const cuts[2] = {"e_plane", "h_plane"};
    for (int c = 0; c < 2 && !rc && o->na > 0; c++) {
        hid_t gc = H5Gcreate2(g, cuts[c], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dn = (hsize_t)o->na, d2[2] = {(hsize_t)o->nf, (hsize_t)o->na};
        rc = gc < 0;
        for (int a = 0; a < o->na && !rc; a++)
            ang[a] = deg(o->theta[c * o->na + a]);
        if (!rc)
            rc = h5_put_doubles(gc, "theta_deg", 1, &dn, ang);
        for (int a = 0; a < o->na && !rc; a++)
            ang[a] = deg(o->phi[c * o->na + a]);
        if (!rc)
            rc = h5_put_doubles(gc, "phi_deg", 1, &dn, ang) || put_rcs(gc, o, c * o->na, o->na, 2, d2);
        if (gc >= 0)
            H5Gclose(gc);
    }
    if (!rc && o->nt > 0 && o->np > 0) {
        hid_t gg = H5Gcreate2(g, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dt = (hsize_t)o->nt, dp = (hsize_t)o->np;
        const hsize_t d3[3] = {(hsize_t)o->nf, (hsize_t)o->nt, (hsize_t)o->np};
        rc = gg < 0;
        for (int i = 0; i < o->nt && !rc; i++)
            ang[i] = deg(grid_theta(f, i));
        if (!rc)
            rc = h5_put_doubles(gg, "theta_deg", 1, &dt, ang);
        for (int j = 0; j < o->np && !rc; j++)
            ang[j] = 360.0 * j / o->np;
        if (!rc)
            rc = h5_put_doubles(gg, "phi_deg", 1, &dp, ang) || put_rcs(gg, o, 2 * o->na, o->nt * o->np, 3, d3);
        if (gg >= 0)
            H5Gclose(gg);
    }
    if (g >= 0)
        H5Gclose(g);
    free(fhz);
    free(ang);
    if (rc && !err[0])
        seterr(err, errlen, "cannot write /far into fields.h5");
    return rc;
}
