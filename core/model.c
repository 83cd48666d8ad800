/* model.c - material map, coefficient table and incident-field slots. */
#define _GNU_SOURCE
#include "model.h"
#include "material.h"
#include "monitor.h"
#include "paint.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif

static double cut_value(const struct model *m, size_t k, int n)
{
    const struct cut_edge *e = &m->cut[k];
    const size_t nx = (size_t)m->nx;
    const size_t hi = e->comp == 0 ? e->cell + nx : e->cell + 1;
    const double S = m->scene->courant;
    const double eq = model_incident(m, (double)(e->q % nx), (double)(e->q / nx), n);
    const double ehi = model_incident(m, (double)(hi % nx), (double)(hi / nx), n);
    const double elo = model_incident(m, (double)(e->cell % nx), (double)(e->cell / nx), n);
    return S * e->sigma * eq / e->d - S * (ehi - elo);
}

void model_cut_values_f(const struct model *m, int n, float *out)
{
    for (size_t k = 0; k < m->ncut; k++)
        out[k] = (float)cut_value(m, k, n);
}

void model_cut_values_d(const struct model *m, int n, double *out)
{
    for (size_t k = 0; k < m->ncut; k++)
        out[k] = cut_value(m, k, n);
}

/* Graded CPML profile at position x on an axis of n cells (Roden and Gedney
 * 2000; Taflove and Hagness, sec. 7.9): depth rho in [0, 1] from the inner
 * face to the wall,
 *   sigma = sigma_max rho^m,   kappa = 1 + (kappa_max - 1) rho^m,
 *   alpha = alpha_max (1 - rho),
 *   b = exp(-(sigma / kappa + alpha)),   c = sigma (b - 1) / (sigma kappa + kappa^2 alpha),
 * all in normalised units (sigma dt / eps0, alpha dt / eps0), where the
 * optimal sigma_max = 0.8 (m + 1) / (eta0 dx) becomes 0.8 (m + 1) S. */
static void pml_point(const struct scene *s, int n, double x, double *b, double *c, double *ik)
{
    const int N = s->cpml_cells;
    double rho = 0.0;
    if (x < (double)N)
        rho = ((double)N - x) / N;
    else if (x > (double)(n - 1 - N))
        rho = (x - (double)(n - 1 - N)) / N;
    rho = rho > 1.0 ? 1.0 : rho;
    const double m = s->cpml_order;
    const double sigma = s->cpml_sigma_factor * 0.8 * (m + 1.0) * s->courant * pow(rho, m);
    const double kappa = 1.0 + (s->cpml_kappa_max - 1.0) * pow(rho, m);
    const double alpha = s->cpml_alpha_max * (1.0 - rho);
    *b = exp(-(sigma / kappa + alpha));
    *c = sigma > 0.0 ? sigma * (*b - 1.0) / (sigma * kappa + kappa * kappa * alpha) : 0.0;
    *ik = 1.0 / kappa;
}

static int pml_axis_build(struct pml_axis *a, const struct scene *s, int n, double offset,
                          char *err, size_t errlen)
{
    a->b = xcalloc((size_t)n, sizeof(double), "CPML profile", err, errlen);
    a->c = xcalloc((size_t)n, sizeof(double), "CPML profile", err, errlen);
    a->ik = xcalloc((size_t)n, sizeof(double), "CPML profile", err, errlen);
    a->bf = xcalloc((size_t)n, sizeof(float), "CPML profile", err, errlen);
    a->cf = xcalloc((size_t)n, sizeof(float), "CPML profile", err, errlen);
    a->ikf = xcalloc((size_t)n, sizeof(float), "CPML profile", err, errlen);
    if (!a->b || !a->c || !a->ik || !a->bf || !a->cf || !a->ikf)
        return -1;
    for (int i = 0; i < n; i++) {
        pml_point(s, n, (double)i + offset, &a->b[i], &a->c[i], &a->ik[i]);
        a->bf[i] = (float)a->b[i];
        a->cf[i] = (float)a->c[i];
        a->ikf[i] = (float)a->ik[i];
    }
    return 0;
}

static void pml_axis_free(struct pml_axis *a)
{
    free(a->b);
    free(a->c);
    free(a->ik);
    free(a->bf);
    free(a->cf);
    free(a->ikf);
    memset(a, 0, sizeof *a);
}

int model_check_materials(const struct scene *s, char *err, size_t errlen)
{
    for (int k = 0; k < s->nmaterials; k++) {
        const struct scene_material *t = &s->materials[k];
        if (!t->used)
            continue;
        /* the stability of the update in this material (core/material.h): a
         * lossless dielectric (eps_r >= 1, mu_r = 1) is stable wherever
         * vacuum is; a lossy or magnetic one is checked on the amplification
         * matrix, and an unstable one refused with its largest stable
         * Courant number (mu_r < 1 lowers the limit to sqrt(eps_r mu_r)
         * times the vacuum one) */
        if (t->is_pec || (!t->where_mu[0] && !t->where_sigma[0] && !t->where_poles[0]))
            continue;
        const int dim = s->nz > 1 ? 3 : 2;
        const char *where = t->where_poles[0] ? t->where_poles
                            : t->where_mu[0]  ? t->where_mu
                                              : t->where_sigma;
        char why[512];
        if (material_stable(t, scene_dt(s), s->courant, dim, why, sizeof why))
            return seterr(err, errlen, "%s: %s", where, why);
    }
    return 0;
}

/* Free the H-node table's dispersive edge materials (entries 1 .. nhmats-1). */
static void hmats_free(struct model *m)
{
    for (int k = 0; k < m->nhmats; k++) {
        free(m->hmats[k].dmat);
        free(m->hmats[k].dcoef);
        m->hmats[k].dmat = NULL;
        m->hmats[k].dcoef = NULL;
    }
}

/* hmaterial's return value when the table is full (err set). */
#define HMATS_FULL (-2)

/* The index of an H-node material in m->hmats, added if new: PEC (pec),
 * a dispersive TE edge (dm != NULL, its material), or of mean eps_r / mu_r
 * bar and (TE) mean conductivity sigma. */
static int hmaterial(struct model *m, int pec, double bar, double sigma,
                     const struct scene_material *dm, char *err, size_t errlen)
{
    if (!pec && !dm && bar == 1.0 && sigma == 0.0)
        return 0;
    for (int k = 1; k < m->nhmats; k++) {
        const struct hmaterial *h = &m->hmats[k];
        if (h->pec == pec && (dm ? h->dmat && material_same(h->dmat, dm)
                                 : !h->dmat && (pec || (h->bar == bar && h->sigma == sigma))))
            return k;
    }
    if (m->nhmats == MODEL_MAX_MATERIALS) {
        seterr(err, errlen, "more than %d distinct H-node materials (mean eps_r or mu_r of two "
               "cells)", MODEL_MAX_MATERIALS);
        return HMATS_FULL;
    }
    struct hmaterial *t = &m->hmats[m->nhmats];
    memset(t, 0, sizeof *t);
    const double S = m->scene->courant;
    t->pec = pec;
    t->ca = 1.0;
    if (dm) {
        /* the D-E pass updates the edge: the H-array update leaves it (ch = 0) */
        t->dmat = malloc(sizeof *t->dmat);
        t->dcoef = malloc(sizeof *t->dcoef);
        if (!t->dmat || !t->dcoef) {
            free(t->dmat);
            free(t->dcoef);
            t->dmat = NULL;
            t->dcoef = NULL;
            return seterr(err, errlen, "out of memory for a dispersive edge material");
        }
        *t->dmat = *dm;
        /* a mean of two checked materials is stable (the condition is linear
         * in eps_inf, delta_eps and omega_p^2, docs/materials-design.md
         * section 3); checked all the same, it costs little */
        char why[512];
        const double dt = scene_dt(m->scene);
        const bool bad = material_stable(dm, dt, S, 2, why, sizeof why) != 0;
        if (bad)
            seterr(err, errlen, "TE edge: %s", why);
        if (bad || material_coef(dm, dt, S, t->dcoef, err, errlen)) {
            free(t->dmat);
            free(t->dcoef);
            t->dmat = NULL;
            t->dcoef = NULL;
            return -1;
        }
        t->bar = dm->eps_inf;
        t->sigma = dm->sigma;
    } else if (!pec && sigma != 0.0) {
        /* a lossy TE edge: the Crank-Nicolson update of eps_bar, sigma_bar */
        struct scene_material sm = {.eps_inf = bar, .mu_r = 1.0, .sigma = sigma};
        snprintf(sm.name, sizeof sm.name, "(edge eps_r %g, sigma %g S/m)", bar, sigma);
        struct material_coef mc;
        if (material_coef(&sm, scene_dt(m->scene), S, &mc, err, errlen))
            return -1;
        t->bar = bar;
        t->sigma = sigma;
        t->ch = mc.cb;
        t->ca = mc.ca;
        t->cinc_diff = mc.cinc_diff;
        t->cinc_sum = mc.cinc_sum;
        m->hlossy = true;
    } else if (!pec) {
        /* TE: the edge's eps_bar may take its dispersion-matched value
         * (paint_coef_eps; TM's mu_bar never does: build_hnodes refuses mu_r
         * with the correction) */
        double bc = bar;
        if (m->scene->te && paint_coef_eps(m, bar, &bc, err, errlen))
            return -1;
        t->bar = bar;
        t->ch = material_ch(bc, S);
        t->hinc = material_hinc(bc);
    }
    t->ch_f = (float)t->ch;
    t->ca_f = (float)t->ca;
    return m->nhmats++;
}

/* The scene material of a cell's material (a dispersive one), or NULL. */
static const struct scene_material *cell_dmat(const struct material *t)
{
    return t->dcoef ? t->dmat : NULL;
}

/* Whether material t (NULL: not dispersive) has a Drude pole: a conductor. */
static bool has_drude(const struct scene_material *t)
{
    for (int p = 0; t && p < t->npoles; p++)
        if (t->poles[p].kind == POLE_DRUDE)
            return true;
    return false;
}

/* The material of a TE edge between cells a and b, one of them dispersive:
 * the mean of their complex permittivities (material_mix, weights 1/2), so
 * that an edge inside one material is that material exactly.  With [grid]
 * te_conductor_edges (the default) an edge between a conductor (a material
 * with a Drude pole) and a cell of another kind is the conductor's: the mean
 * makes the edges of a metal's surface near-zero-eps (Re eps = (eps_metal +
 * 1) / 2 -> 0 at the plasmon, eps_metal = -1), which shifts and distorts the
 * surface plasmon (docs/accuracy.md).  -1 with err where more than
 * SCENE_MAX_POLES remain. */
static int edge_dmat(const struct model *m, const struct material *a, const struct material *b,
                     struct scene_material *out, char *err, size_t errlen)
{
    const struct scene_material *da = cell_dmat(a), *db = cell_dmat(b);
    /* [grid] te_conductor_edges: a conductor's (Drude) cell beside another
     * material's makes the edge the conductor's, as a PEC cell makes it PEC */
    if (m->scene->te_conductor_edges && has_drude(da) != has_drude(db)) {
        if (has_drude(da))
            b = a, db = da;
        else
            a = b, da = db;
    }
    struct scene_material ta, tb;
    if (material_mix(paint_cell_material(a, &ta), 0.5, paint_cell_material(b, &tb), 0.5, out,
                     err, errlen))
        return seterr(err, errlen, "TE: the edge between material %s and %s needs more than %d "
                      "poles (the union of both materials' poles, docs/materials-design.md "
                      "section 3); merge poles or use fewer", da ? da->name : "(a dielectric)",
                      db ? db->name : "(a dielectric)", SCENE_MAX_POLES);
    if (da && db && da == db)
        snprintf(out->name, sizeof out->name, "%s", da->name);
    else
        snprintf(out->name, sizeof out->name, "(edge of %.24s and %.24s)", da ? da->name : "a dielectric",
                 db ? db->name : "a dielectric");
    return 0;
}

/* The rounding of a smoothed TE edge's (eps^-1)_aa: multiples of 2^-12,
 * coarser (down to 2^-6) only where the H-node table would overflow. */
#define HNODE_ROUND_BITS 12
#define HNODE_ROUND_BITS_MIN 6

/* m->hmat and m->nhslots from the cells (and ev / ek of paint_te_edges,
 * NULL without TE smoothing; a mixed edge's 1/eps rounded to multiples of
 * 1/scale).  Each node from its two cells c and c + step: in TE the mean
 * eps_r (a PEC cell makes the edge PEC: its tangential E vanishes) or the
 * edge's own smoothed value (a lossy or dispersive edge: edge_dmat, the
 * means), in TM the mean mu_r (a PEC cell counts as mu_r = 1).  0, or
 * HMATS_FULL or -1 with err. */
static int hnode_map(struct model *m, const double *mu, const double *ev, const uint8_t *ek,
                     const double *lfree, double scale, char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    const size_t n = m->ncells, nx = (size_t)m->nx;
    hmats_free(m);
    m->nhmats = 1;
    m->nhslots = 0;
    m->nhdisp = 0;
    m->hlossy = false;
    for (size_t c = 0; c < n; c++) {
        const size_t i = c % nx, j = c / nx;
        for (int comp = 0; comp < 2; comp++) {
            if (comp == 0 ? j + 1 >= (size_t)m->ny : i + 1 >= nx)
                continue;
            const size_t d = comp == 0 ? c + nx : c + 1, q = (size_t)comp * n + c;
            const struct material *a = &m->mats[m->mat[c]], *b = &m->mats[m->mat[d]];
            int k;
            if (s->te) {
                /* conformal: PEC where the edge's whole length is in the
                 * conductor; a free edge touching a PEC node takes the other
                 * node's eps_r (1 between two PEC nodes); build_hnodes
                 * keeps lossy and dispersive materials out of conformal TE */
                const bool pa = a->kind == MATERIAL_PEC, pb = b->kind == MATERIAL_PEC;
                const int pec = lfree ? lfree[q] == 0.0 : pa || pb;
                const double ea = pa ? (pb ? 1.0 : b->eps_r) : a->eps_r;
                const double eb = pb ? ea : b->eps_r;
                double bar = 0.5 * (ea + eb);
                const double sigma = pec ? 0.0 : 0.5 * (a->sigma + b->sigma);
                if (!pec && (a->dcoef || b->dcoef)) {
                    /* a dispersive edge: the mean of the two cells' eps(omega) */
                    struct scene_material dm;
                    k = edge_dmat(m, a, b, &dm, err, errlen) ? -1
                        : hmaterial(m, 0, 0.0, 0.0, &dm, err, errlen);
                } else {
                    /* a lossy edge takes the two-cell mean, never the smoothed
                     * value (lossy objects are staircases in TE) */
                    if (ek && sigma == 0.0 && ek[q] == PAINT_EDGE_PURE)
                        bar = ev[q];
                    else if (ek && sigma == 0.0 && ek[q] == PAINT_EDGE_MIXED)
                        bar = 1.0 / (round(ev[q] * scale) / scale);
                    k = hmaterial(m, pec, pec ? 0.0 : bar, sigma, NULL, err, errlen);
                }
            } else {
                k = hmaterial(m, 0, 0.5 * (mu[c] + mu[d]), 0.0, NULL, err, errlen);
            }
            if (k < 0)
                return k;
            m->hmat[q] = (uint8_t)k;
            m->nhslots += k != 0 && !m->hmats[k].dcoef;
            m->nhdisp += m->hmats[k].dcoef != NULL;
        }
    }
    return 0;
}

/* Edge k (east, west, north, south) of cell c: its H-array node and the
 * cell across it. */
static void te_edge(size_t c, size_t n, size_t nx, int k, size_t *q, size_t *nb)
{
    const size_t qs[4] = {n + c, n + c - 1, c, c - nx}, nbs[4] = {c + 1, c - 1, c + nx, c - nx};
    *q = qs[k];
    *nb = nbs[k];
}

/* sum_e l_e over cell c's edges. */
static double te_lsum(const double *lfree, size_t c, size_t n, size_t nx)
{
    double sum = 0.0;
    for (int k = 0; k < 4; k++) {
        size_t q, nb;
        te_edge(c, n, nx, k, &q, &nb);
        sum += lfree[q];
    }
    return sum;
}

struct te_order {
    size_t c;
    double a;
};

static int te_order_cmp(const void *x, const void *y)
{
    const struct te_order *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : (a->c > b->c) - (a->c < b->c);
}

/* The TE cut cells (core/model.h struct te_cut) from the free fractions of
 * paint_te_conformal: every interior Hz cell with some free area and some
 * of its area or edges in the conductor, and the cells that lend them area.
 * With the edges' free lengths as weights the update is the weighted Yee
 * scheme
 *     A_eff dHz/dt = -sum_e s_e l_e E_e,   l_e dE_e/dt = l_e (dHz across e),
 * whose energy sum A_eff Hz^2 + sum l_e E_e^2 is conserved for any
 * A_eff > 0, so leapfrog is stable while S^2 lambda_max(A_eff^-1 L) < 4, L
 * the graph Laplacian of weights l_e.  Gershgorin bounds row c of
 * A_eff^-1 L by 2 sum_e l_e / A_eff(c) (free space: 8), so
 * A_eff >= S^2 sum_e l_e / 2 in every cell keeps the whole matrix within
 * the free-space bound 4 / S^2 for S <= 1/sqrt(2).  A cell below that floor
 * is raised to it, and the area it gains is taken from the neighbour across
 * its longest free edge, as far as that one stays above its own floor
 * (smallest cells first): the pair keeps its total area, so that the
 * floor's O(1) change of one cell's mass does not become an O(dx) error of
 * the surface (measured: second order with it, docs/accuracy.md, about
 * first without). */
static int te_cut_cells(struct model *m, const double *afree, const double *lfree, char *err,
                        size_t errlen)
{
    const size_t n = m->ncells, nx = (size_t)m->nx, ny = (size_t)m->ny;
    const double S = m->scene->courant, h = 0.5 * S * S;
    double *aeff = xcalloc(n, sizeof *aeff, "TE cut cells", err, errlen);
    uint8_t *in = aeff ? xcalloc(n, 1, "TE cut cells", err, errlen) : NULL;
    struct te_order *ord = in ? xcalloc(n / 2 + 1, sizeof *ord, "TE cut cells", err, errlen) : NULL;
    size_t nord = 0;
    int rc = -1;
    if (!ord)
        goto done;
    for (size_t c = 0; c < n; c++) {
        const size_t i = c % nx, j = c / nx;
        aeff[c] = afree[c];
        if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || afree[c] == 0.0)
            continue;
        bool cut = afree[c] < 1.0;
        for (int k = 0; k < 4; k++) {
            size_t q, nb;
            te_edge(c, n, nx, k, &q, &nb);
            cut |= lfree[q] < 1.0;
        }
        if (!cut)
            continue;
        if (m->mat[c] != 0) {
            seterr(err, errlen, "TE conformal PEC: a cut cell at (%zu, %zu) has mu_r != 1 (a "
                   "magnetic material against a conductor is not supported yet)", i, j);
            goto done;
        }
        in[c] = 1;
        if (nord < n / 2 + 1)
            ord[nord++] = (struct te_order){c, afree[c]};
    }
    /* the floor, smallest cells first, each lending cell giving up what it
     * can above its own floor */
    qsort(ord, nord, sizeof *ord, te_order_cmp);
    for (size_t k = 0; k < nord; k++) {
        const size_t c = ord[k].c;
        const double need = h * te_lsum(lfree, c, n, nx);
        if (aeff[c] >= need)
            continue;
        const double deficit = need - aeff[c];
        aeff[c] = need;
        double best = 0.0;
        size_t to = 0;
        for (int e = 0; e < 4; e++) {
            size_t q, nb;
            te_edge(c, n, nx, e, &q, &nb);
            const size_t bi = nb % nx, bj = nb / nx;
            if (lfree[q] > best && bi >= 1 && bi <= nx - 2 && bj >= 1 && bj <= ny - 2
                && afree[nb] > 0.0 && m->mat[nb] == 0) {
                best = lfree[q];
                to = nb;
            }
        }
        if (best > 0.0) {
            const double spare = aeff[to] - h * te_lsum(lfree, to, n, nx);
            const double take = fmin(deficit, fmax(0.0, spare));
            if (take > 0.0) {
                aeff[to] -= take;
                in[to] = 1;
            }
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        m->ntecut = 0;
        for (size_t c = 0; c < n; c++) {
            if (!in[c])
                continue;
            if (pass == 1) {
                struct te_cut *t = &m->tecut[m->ntecut];
                t->cell = c;
                t->area = afree[c];
                t->aeff = aeff[c];
                for (int k = 0; k < 4; k++) {
                    size_t q, nb;
                    te_edge(c, n, nx, k, &q, &nb);
                    t->l[k] = lfree[q];
                    t->k[k] = S * t->l[k] / t->aeff;
                    t->k_f[k] = (float)t->k[k];
                }
            }
            m->ntecut++;
        }
        if (pass == 0 && !(m->tecut = xcalloc(m->ntecut + 1, sizeof *m->tecut,
                                              "TE cut cells", err, errlen)))
            goto done;
    }
    rc = 0;
done:
    free(aeff);
    free(in);
    free(ord);
    return rc;
}

/* The off-diagonal TE edges (core/model.h hoff) from paint_te_edges'
 * node values od (NULL: none).  A node takes part where its (eps^-1)_xy is
 * not 0, it lies inside the grid's ring and its four edges are lossless,
 * not PEC and not dispersive; its kappa is od clamped to 0.999 of
 * sqrt(min(1/bar of its hx edges) min(1/bar of its hy edges)), which keeps
 * the tensor operator positive definite (core/model.h).  Every edge with
 * such a node at either end is listed. */
static int hoff_list(struct model *m, const double *od, char *err, size_t errlen)
{
    const size_t n = m->ncells, nx = (size_t)m->nx, ny = (size_t)m->ny;
    const double S = m->scene->courant;
    double *kap = od ? xcalloc(n, sizeof *kap, "off-diagonal edges", err, errlen) : NULL;
    m->hoff_row = xcalloc(ny + 1, sizeof *m->hoff_row, "off-diagonal edges", err, errlen);
    if (!m->hoff_row || (od && !kap)) {
        free(kap);
        return -1;
    }
    for (size_t c = 0; od && c < n; c++) {
        const size_t i = c % nx, j = c / nx;
        if (od[c] == 0.0 || i < 1 || j < 1 || i + 2 > nx || j + 2 > ny)
            continue;
        const size_t e[4] = {c, c - nx, n + c, n + c - 1}; /* hx north, south; hy east, west */
        double d[4];
        bool ok = true;
        for (int q = 0; q < 4; q++) {
            const struct hmaterial *t = &m->hmats[m->hmat[e[q]]];
            ok &= !t->pec && t->sigma == 0.0 && !t->dcoef;
            d[q] = 1.0 / t->bar;
        }
        if (!ok)
            continue;
        const double lim = 0.999 * sqrt(fmin(d[0], d[1]) * fmin(d[2], d[3]));
        kap[c] = fmax(-lim, fmin(lim, od[c]));
    }
    for (int pass = 0; pass < 2 && od; pass++) {
        size_t r = 0;
        for (size_t c = 0; c < n; c++) {
            const size_t j = c / nx;
            for (int comp = 0; comp < 2; comp++) {
                /* the edge's nodes: c and c + nx (hx) or c + 1 (hy) */
                const size_t o = comp == 0 ? nx : 1;
                if (c + o >= n || (kap[c] == 0.0 && kap[c + o] == 0.0))
                    continue;
                if (pass == 1) {
                    struct hoff *h = &m->hoff[r];
                    const double sg = comp == 0 ? 0.25 * S : -0.25 * S;
                    h->id = (size_t)comp * n + c;
                    for (int q = 0; q < 2; q++) {
                        h->kap[q] = kap[c + (q ? o : 0)];
                        h->k[q] = sg * h->kap[q];
                        h->k_f[q] = (float)h->k[q];
                    }
                }
                r++;
            }
            if (pass == 1)
                m->hoff_row[j + 1] = r;
        }
        m->nhoff = r;
        if (pass == 0 && !(m->hoff = xcalloc(r + 1, sizeof *m->hoff, "off-diagonal edges", err,
                                             errlen))) {
            free(kap);
            return -1;
        }
    }
    free(kap);
    return 0;
}

/* The H-node map (core/model.h) of a 2D scene that needs one, its slots,
 * and in TE the ez array's node materials (mu_r) in place of the cells'
 * eps_r.  From the painted cells: eps_r (or PEC) per cell in m->mat, mu_r
 * per cell from paint_mu. */
static int build_hnodes(struct model *m, char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    const size_t n = m->ncells, nx = (size_t)m->nx;
    double *mu = xcalloc(n, sizeof *mu, "mu_r map", err, errlen), *ev = NULL, *od = NULL;
    double *afree = NULL, *lfree = NULL; /* TE conformal: paint_te_conformal */
    uint8_t *ek = NULL;
    if (!mu)
        return -1;
    m->magnetic = paint_mu(m, mu);
    if (m->magnetic && s->dispersion_correction) {
        free(mu);
        return seterr(err, errlen, "[grid] dispersion_correction = true with a magnetic "
                      "material (mu_r != 1) is not supported: it corrects eps_r of lossless, "
                      "non-magnetic dielectrics only");
    }
    bool any = s->te && s->conformal_pec;
    for (size_t c = 0; c < n && s->te; c++)
        any |= m->mat[c] != 0;
    if (!m->magnetic && !any) {
        free(mu);
        return 0;
    }
    if (s->te && s->conformal_pec && (m->lossy || m->dispersive)) {
        /* the TE cut cells take the free edges' eps_r only (hnode_map); a
         * lossy or dispersive edge beside them is not written yet */
        free(mu);
        return seterr(err, errlen, "[grid] conformal_pec = true in TE with a %s material (%s) "
                      "is not supported yet; use conformal_pec = false", m->lossy ? "lossy" : "dispersive",
                      m->lossy ? "sigma != 0" : "Debye, Lorentz or Drude poles");
    }
    if (s->te && s->conformal_pec) {
        afree = xcalloc(n, sizeof *afree, "TE conformal cells", err, errlen);
        lfree = afree ? xcalloc(2 * n, sizeof *lfree, "TE conformal cells", err, errlen) : NULL;
        if (!lfree || paint_te_conformal(m, afree, lfree, err, errlen))
            goto fail;
    }
    m->hmats[0] = (struct hmaterial){.bar = 1.0, .ch = m->ch, .ch_f = m->ch_f, .ca = 1.0,
                                      .ca_f = 1.0f};
    m->nhmats = 1;
    m->hmat = xcalloc(2 * n, 1, "H-node map", err, errlen);
    m->hslot_row = xcalloc((size_t)m->ny + 1, sizeof *m->hslot_row, "H slots", err, errlen);
    if (!m->hmat || !m->hslot_row)
        goto fail;
    /* TE with smoothing: the edges' own permittivities (paint_te_edges),
     * their (eps^-1)_aa rounded to multiples of 2^-bits, the finest rounding
     * whose H-node table fits a byte */
    bool smooth = false;
    for (int k = 0; k < s->nobjects && s->te && s->subpixel; k++)
        smooth |= s->objects[k].material == MATERIAL_DIELECTRIC;
    if (smooth) {
        /* with te_offdiagonal paint_te_edges also takes the nodes (3n) */
        const size_t np = s->te_offdiagonal ? 3 : 2;
        ev = xcalloc(np * n, sizeof *ev, "TE edge smoothing", err, errlen);
        ek = ev ? xcalloc(np * n, 1, "TE edge smoothing", err, errlen) : NULL;
        od = ek && s->te_offdiagonal ? xcalloc(n, sizeof *od, "TE edge smoothing", err, errlen)
                                     : NULL;
        if (!ek || (s->te_offdiagonal && !od) || paint_te_edges(m, ev, ek, od, err, errlen))
            goto fail;
    }
    for (int bits = HNODE_ROUND_BITS;; bits--) {
        const int rc = hnode_map(m, mu, ev, ek, lfree, ldexp(1.0, bits), err, errlen);
        if (!rc)
            break;
        if (!smooth || rc != HMATS_FULL || bits == HNODE_ROUND_BITS_MIN) {
            if (smooth && rc == HMATS_FULL)
                seterr(err, errlen, "TE subpixel smoothing: more than %d distinct edge "
                       "permittivities even with 1/eps rounded to multiples of 1/%d (too many "
                       "distinct eps_r in the scene; [grid] subpixel = false takes the mean "
                       "eps_r of an edge's two cells)", MODEL_MAX_MATERIALS,
                       1 << HNODE_ROUND_BITS_MIN);
            goto fail;
        }
    }
    if (hoff_list(m, od, err, errlen))
        goto fail;
    free(ev);
    free(ek);
    free(od);
    ev = NULL;
    ek = NULL;
    od = NULL;
    m->hslot = xcalloc(m->nhslots, sizeof *m->hslot, "H slots", err, errlen);
    m->hdisp = xcalloc(m->nhdisp, sizeof *m->hdisp, "dispersive edges", err, errlen);
    m->hdisp_row = xcalloc((size_t)m->ny + 1, sizeof *m->hdisp_row, "dispersive edges", err,
                           errlen);
    if (!m->hslot || !m->hdisp || !m->hdisp_row)
        goto fail;
    for (size_t c = 0, q = 0, r = 0; c < n; c++) {
        for (int comp = 0; comp < 2; comp++) {
            const size_t id = (size_t)comp * n + c;
            if (m->hmats[m->hmat[id]].dcoef) {
                /* the dispersive pass takes the plain difference: no CPML */
                int kk;
                const size_t i = c % nx, j = c / nx;
                if (comp == 0 ? pml_slab_h(m->ny, m->pml_n, (int)j, &kk) >= 0
                              : pml_slab_h(m->nx, m->pml_n, (int)i, &kk) >= 0) {
                    seterr(err, errlen, "a dispersive material's edge (%s at i = %zu, j = %zu) "
                           "lies in a CPML slab: keep dispersive objects inside the grid's "
                           "interior (its update has no CPML terms yet)",
                           comp == 0 ? "Ex" : "Ey", i, j);
                    goto fail;
                }
                m->hdisp[r++] = id;
            } else if (m->hmat[id]) {
                m->hslot[q++] = id;
            }
        }
        m->hslot_row[c / nx + 1] = q;
        m->hdisp_row[c / nx + 1] = r;
    }
    /* the cells' own materials: in TE those of the ez array's node (eta0 Hz):
     * S / mu_r and the magnetic slot -(1 - 1/mu_r) (Hi^{n+1} - Hi^n), the
     * dual of a dielectric Ez node; in TM a cell of eps_r = 1 (only
     * magnetic) takes no slot, as vacuum */
    if (s->te) {
        for (int k = 0; k < m->nmats; k++)
            paint_material_free(&m->mats[k]);
        m->nmats = 1;
    }
    int last = 0;
    double last_mu = 1.0;
    for (size_t c = 0; c < n; c++) {
        if (!s->te) {
            /* an only magnetic cell (eps_r = 1, lossless, no poles) */
            const struct material *t = &m->mats[m->mat[c]];
            if (t->kind == MATERIAL_DIELECTRIC && t->eps_r == 1.0 && t->sigma == 0.0 && !t->dcoef)
                m->mat[c] = 0;
            continue;
        }
        if (mu[c] == 1.0) {
            m->mat[c] = 0;
            continue;
        }
        if (mu[c] != last_mu || !last) {
            last = paint_material(m, MATERIAL_DIELECTRIC, mu[c], 0.0, err, errlen);
            last_mu = mu[c];
            if (last < 0)
                goto fail;
        }
        m->mat[c] = (uint8_t)last;
    }
    if (afree && te_cut_cells(m, afree, lfree, err, errlen))
        goto fail;
    free(mu);
    free(afree);
    free(lfree);
    return 0;
fail:
    free(mu);
    free(ev);
    free(ek);
    free(od);
    free(afree);
    free(lfree);
    return -1;
}

/* 3D: the H-node map of a scene with mu_r != 1 (core/model.h hmat: the mean
 * mu_r of the four corners of each node's face) and its slots (Hx, Hy). */
static int build_hnodes_3d(struct model *m, char *err, size_t errlen)
{
    const size_t n = m->ncells, nx = (size_t)m->nx, ny = (size_t)m->ny, nz = (size_t)m->nz;
    const size_t sy = nx, sz = nx * ny;
    free(m->hmat);
    free(m->hslot);
    m->hmat = NULL;
    m->hslot = NULL;
    m->nhslots = 0;
    m->magnetic = 0;
    for (size_t c = 0; c < n && !m->magnetic; c++)
        m->magnetic = m->mats[m->mat[c]].mu_r != 1.0;
    if (!m->magnetic)
        return 0;
    if (m->scene->dispersion_correction) /* as build_hnodes */
        return seterr(err, errlen, "[grid] dispersion_correction = true with a magnetic "
                      "material (mu_r != 1) is not supported: it corrects eps_r of lossless, "
                      "non-magnetic dielectrics only");
    m->hmats[0] = (struct hmaterial){.bar = 1.0, .ch = m->ch, .ch_f = m->ch_f};
    m->nhmats = 1;
    if (!(m->hmat = xcalloc(3 * n, 1, "H-node map", err, errlen)))
        return -1;
    for (size_t c = 0; c < n; c++) {
        const size_t i = c % nx, j = c / nx % ny, k = c / sz;
        for (int comp = 0; comp < 3; comp++) {
            /* the node's 2D pair (step a) and the step to the pair one corner up */
            const size_t a = comp == 0 ? sy : 1, up = comp == 2 ? sy : sz;
            if ((comp != 0 && i + 1 >= nx) || (comp != 1 && j + 1 >= ny)
                || (comp != 2 && k + 1 >= nz))
                continue;
            const double m0 = 0.5 * (m->mats[m->mat[c]].mu_r + m->mats[m->mat[c + a]].mu_r);
            const double m1 = 0.5 * (m->mats[m->mat[c + up]].mu_r
                                     + m->mats[m->mat[c + up + a]].mu_r);
            const int q = hmaterial(m, 0, 0.5 * (m0 + m1), 0.0, NULL, err, errlen);
            if (q < 0)
                return -1;
            m->hmat[(size_t)comp * n + c] = (uint8_t)q;
            m->nhslots += q != 0 && comp != 2;
        }
    }
    if (!(m->hslot = xcalloc(m->nhslots, sizeof *m->hslot, "H slots", err, errlen)))
        return -1;
    for (size_t c = 0, q = 0; c < n; c++)
        for (int comp = 0; comp < 2; comp++)
            if (m->hmat[(size_t)comp * n + c])
                m->hslot[q++] = (size_t)comp * n + c;
    return 0;
}

/* Whether E component comp of 3D cell (i, j, k) is updated by the sweep
 * (update3d.inc's ranges), and (*slab) whether its curl meets a CPML slab. */
static bool e_updated_3d(const struct model *m, int comp, int i, int j, int k, bool *slab)
{
    const int n[3] = {m->nx, m->ny, m->nz}, p[3] = {i, j, k};
    const int N = m->scene->boundary == BOUNDARY_CPML ? m->scene->cpml_cells : 0;
    int kk;
    *slab = false;
    for (int a = 0; a < 3; a++) {
        if (a == comp ? p[a] > n[a] - 2 : p[a] < 1 || p[a] > n[a] - 2)
            return false;
        *slab |= a != comp && pml_slab_e(n[a], N, p[a], &kk) >= 0;
    }
    return true;
}

/* An E slot at a cell of material t: PEC and dielectrics (the incident
 * field's term), not a dispersive cell (its pass takes Ei itself) nor, in
 * 3D, a magnetic-only one (eps_r = 1, sigma = 0: its term is 0, and 2D
 * remaps such cells to vacuum). */
static bool has_e_slot(const struct material *t)
{
    return t->kind != MATERIAL_VACUUM && !t->dcoef
           && !(t->mu_r != 1.0 && t->kind == MATERIAL_DIELECTRIC && t->eps_r == 1.0
                && t->sigma == 0.0);
}

/* m->slot_rep (model.h), where the plane wave's sin theta is 0: then
 * inc_at's phase i cos + j sin is i cos + 0 for every j >= 0, so the slots
 * of one column i and one material (the only other inputs of slot_value)
 * have the same value at every step.  A hash of (material, i) finds each
 * slot's first; kept only where at most half the slots are firsts (else
 * the values are computed one by one, in parallel, as before). */
static int slot_reps(struct model *m, char *err, size_t errlen)
{
    free(m->slot_rep);
    m->slot_rep = NULL;
    m->nslot_rep = 0;
    if (m->inc.kind != INC_PLANE || m->inc.sin_t != 0.0 || m->nslots < 2)
        return 0;
    size_t cap = 16;
    while (cap < 2 * m->nslots)
        cap *= 2;
    size_t *key = xcalloc(cap, sizeof *key, "source slots", err, errlen);
    size_t *first = xcalloc(cap, sizeof *first, "source slots", err, errlen);
    size_t *rep = xcalloc(m->nslots, sizeof *rep, "source slots", err, errlen);
    if (!key || !first || !rep) {
        free(key);
        free(first);
        free(rep);
        return -1;
    }
    size_t nfirst = 0;
    const size_t nx = (size_t)m->nx;
    for (size_t k = 0; k < m->nslots; k++) {
        const size_t c = m->slot_cell[k], mat = m->slot_mat ? m->slot_mat[k] : m->mat[c];
        const size_t kv = (mat * nx + c % nx) + 1; /* 0: an empty entry */
        size_t h = (kv * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (key[h] && key[h] != kv)
            h = (h + 1) & (cap - 1);
        if (!key[h]) {
            key[h] = kv;
            first[h] = k;
            nfirst++;
        }
        rep[k] = first[h];
    }
    free(key);
    free(first);
    if (2 * nfirst > m->nslots) {
        free(rep);
    } else {
        m->slot_rep = rep;
        m->nslot_rep = m->nslots;
    }
    return 0;
}

int model_index_cells(struct model *m, char *err, size_t errlen)
{
    const struct scene *s = m->scene;
    const bool d3 = m->nz > 1;
    const size_t n = m->ncells, nx = (size_t)m->nx, ny = (size_t)m->ny;
    if (d3 && build_hnodes_3d(m, err, errlen))
        return -1;
    free(m->slot_cell);
    free(m->slot_mat);
    free(m->disp_cell);
    m->slot_cell = m->disp_cell = NULL;
    m->slot_mat = NULL;
    m->nslots = m->ndisp = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass
            && (!(m->slot_cell = xcalloc(m->nslots, sizeof *m->slot_cell, "source slots", err, errlen))
                || !(m->disp_cell = xcalloc(m->ndisp, sizeof *m->disp_cell, "dispersive cells", err,
                                            errlen))
                || (m->nesm && !(m->slot_mat = xcalloc(m->nslots, 1, "source slots", err, errlen)))))
            return -1;
        size_t ns = 0, nd = 0;
        size_t ez = 0; /* 3D smoothing: the first esm_q entry of an Ez edge at c or beyond */
        while (ez < m->nesm && m->esm_q[ez] < 2 * n)
            ez++;
        for (size_t c = 0; c < n; c++) {
            const struct material *t = &m->mats[m->mat[c]];
            /* the Ez edge's material (3D: its own where smoothed) */
            while (ez < m->nesm && m->esm_q[ez] < 2 * n + c)
                ez++;
            const uint8_t zq = ez < m->nesm && m->esm_q[ez] == 2 * n + c ? m->esm_mat[ez] : m->mat[c];
            const int i = (int)(c % nx), j = (int)(c / nx % ny), k = (int)(c / (nx * ny));
            if (t->dcoef && d3) {
                /* the E components at the corner that the sweep updates */
                for (int comp = 0; comp < 3; comp++) {
                    bool slab;
                    if (!e_updated_3d(m, comp, i, j, k, &slab))
                        continue;
                    if (slab)
                        return seterr(err, errlen, "a dispersive material's cell (%d, %d, %d) "
                                      "lies in a CPML slab: keep dispersive objects out of the "
                                      "CPML (their update has no CPML terms yet)", i, j, k);
                    if (pass)
                        m->disp_cell[nd] = (size_t)comp * n + c;
                    nd++;
                }
            } else if (t->dcoef) {
                /* the dispersive pass takes the plain curl: no CPML, no wall */
                const int lo = s->boundary == BOUNDARY_CPML ? s->cpml_cells : 1;
                if (i < lo || j < lo || i > m->nx - 1 - lo || j > m->ny - 1 - lo)
                    return seterr(err, errlen, "a dispersive material's cell lies %s: keep "
                                  "dispersive objects inside the grid's interior (its update "
                                  "has no CPML terms yet)",
                                  s->boundary == BOUNDARY_CPML ? "in a CPML slab"
                                                               : "on the grid's outer ring");
                if (pass)
                    m->disp_cell[nd] = c;
                nd++;
            } else if (zq && has_e_slot(&m->mats[zq])) {
                if (pass)
                    m->slot_cell[ns] = c;
                if (pass && m->slot_mat)
                    m->slot_mat[ns] = zq;
                ns++;
            }
        }
        m->nslots = ns;
        m->ndisp = nd;
    }
    return slot_reps(m, err, errlen);
}

/* m->inc, the plane wave (core/incident.h): the scene's angle, waveform and
 * timing; the wave front enters at the grid corner it meets first. */
static void incident_build(struct model *m, const struct scene *s)
{
    const double th = s->angle_deg * M_PI / 180.0, cos_t = cos(th), sin_t = sin(th);
    const double xs[2] = {0.0, (double)(m->nx - 1)}, ys[2] = {0.0, (double)(m->ny - 1)};
    double d0 = INFINITY;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            d0 = fmin(d0, xs[a] * cos_t + ys[b] * sin_t);
    const double ramp_steps = s->ramp_periods * s->cells_per_wavelength / s->courant;
    const double f0 = s->courant / s->cells_per_wavelength; /* cycles per step */
    double pulse_tau = 0.0; /* steps */
    if (s->waveform == WAVEFORM_GAUSSIAN)
        pulse_tau = sqrt(log(2.0)) / (M_PI * s->bandwidth * f0);
    else if (s->waveform == WAVEFORM_MODULATED_GAUSSIAN)
        pulse_tau = 2.0 * sqrt(log(2.0)) / (M_PI * s->bandwidth * f0);
    else if (s->waveform == WAVEFORM_RICKER)
        pulse_tau = 1.0 / (M_PI * f0);
    m->inc = (struct inc_wave){
        .kind = s->source_type == SOURCE_PLANE_WAVE ? INC_PLANE : INC_NONE,
        .waveform = s->waveform == WAVEFORM_GAUSSIAN             ? INC_GAUSSIAN
                    : s->waveform == WAVEFORM_MODULATED_GAUSSIAN ? INC_MODULATED_GAUSSIAN
                    : s->waveform == WAVEFORM_RICKER             ? INC_RICKER
                                                                 : INC_SINE,
        .cos_t = cos_t,
        .sin_t = sin_t,
        .d0 = d0 + s->front_offset,
        .omega_dt = scene_omega_dt(s),
        .amplitude = s->amplitude,
        .pulse_t0 = 5.0 * pulse_tau,
        .inv_courant = 1.0 / s->courant,
        .inv_ramp = ramp_steps > 0.0 ? 1.0 / ramp_steps : 0.0,
        .inv_pulse_tau = pulse_tau > 0.0 ? 1.0 / pulse_tau : 0.0,
        .ramp_steps = ramp_steps,
    };
}

int model_build(struct model *m, const struct scene *s, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->scene = s;
    m->nx = s->nx;
    m->ny = s->ny;
    m->nz = s->nz;
    m->ncells = (size_t)s->nx * (size_t)s->ny * (size_t)s->nz;
    m->pml_n = s->boundary == BOUNDARY_CPML ? s->cpml_cells : 0;
    m->ch = s->courant;
    m->ch_f = (float)m->ch;
    if (paint_material(m, MATERIAL_VACUUM, 1.0, 0.0, err, errlen) < 0)
        return -1;

    m->mat = xcalloc(m->ncells, 1, "material map", err, errlen);
    if (!m->mat)
        return -1;
    if (model_check_materials(s, err, errlen) || paint_objects(m, err, errlen))
        goto fail;
    if (s->conformal_pec && !s->te && paint_cut_edges(m, err, errlen))
        goto fail;
    if (m->nz == 1 && build_hnodes(m, err, errlen))
        goto fail;
    incident_build(m, s); /* before the cells' index: slot_reps reads it */
    if (model_index_cells(m, err, errlen))
        goto fail;

    m->mur_k = (s->courant - 1.0) / (s->courant + 1.0);
    m->mur_k_f = (float)m->mur_k;
    if (s->boundary == BOUNDARY_CPML) {
        m->pml_n = s->cpml_cells;
        if (pml_axis_build(&m->pml_xe, s, m->nx, 0.0, err, errlen)
            || pml_axis_build(&m->pml_xh, s, m->nx, 0.5, err, errlen)
            || pml_axis_build(&m->pml_ye, s, m->ny, 0.0, err, errlen)
            || pml_axis_build(&m->pml_yh, s, m->ny, 0.5, err, errlen)
            || (m->nz > 1 && (pml_axis_build(&m->pml_ze, s, m->nz, 0.0, err, errlen)
                              || pml_axis_build(&m->pml_zh, s, m->nz, 0.5, err, errlen))))
            goto fail;
    }
    if (monitor_plan_build(m, err, errlen))
        goto fail;
    return 0;
fail:
    model_free(m);
    return -1;
}

void model_free(struct model *m)
{
    monitor_plan_free(m);
    free(m->mat);
    free(m->slot_cell);
    free(m->slot_mat);
    free(m->slot_rep);
    m->slot_rep = NULL;
    m->nslot_rep = 0;
    free(m->esm_q);
    free(m->esm_mat);
    free(m->disp_cell);
    m->disp_cell = NULL;
    for (int k = 0; k < m->nmats; k++)
        paint_material_free(&m->mats[k]);
    free(m->cut);
    free(m->cut_row);
    hmats_free(m);
    free(m->tecut);
    m->tecut = NULL;
    free(m->hmat);
    free(m->hslot);
    free(m->hslot_row);
    free(m->hdisp);
    free(m->hdisp_row);
    free(m->hoff);
    free(m->hoff_row);
    m->hoff = NULL;
    m->hoff_row = NULL;
    m->nhoff = 0;
    m->hmat = NULL;
    m->hslot = m->hslot_row = NULL;
    m->hdisp = m->hdisp_row = NULL;
    m->cut = NULL;
    m->cut_row = NULL;
    pml_axis_free(&m->pml_xe);
    pml_axis_free(&m->pml_xh);
    pml_axis_free(&m->pml_ye);
    pml_axis_free(&m->pml_yh);
    pml_axis_free(&m->pml_ze);
    pml_axis_free(&m->pml_zh);
    m->mat = NULL;
    m->slot_cell = NULL;
    m->slot_mat = m->esm_mat = NULL;
    m->esm_q = NULL;
    m->nesm = 0;
}

double model_waveform(const struct model *m, double s)
{
    return inc_waveform(m->inc, s);
}

double model_incident(const struct model *m, double i, double j, double n)
{
    return inc_at(m->inc, i, j, n);
}

double model_point_value(const struct model *m, int n)
{
    const struct scene *s = m->scene;
    if (s->source_type != SOURCE_POINT)
        return 0.0;
    const double t = (double)n + 1.0;
    if (s->waveform == WAVEFORM_GAUSSIAN) {
        const double w = s->pulse_width, a = (t - 4.0 * w) / w;
        return m->inc.amplitude * exp(-a * a);
    }
    const double r = (m->inc.ramp_steps > 0.0 && t < m->inc.ramp_steps) ? t / m->inc.ramp_steps : 1.0;
    return m->inc.amplitude * r * sin(m->inc.omega_dt * t);
}

size_t model_point_cell(const struct model *m)
{
    const struct scene *s = m->scene;
    const size_t i = (size_t)lround(s->point_x), j = (size_t)lround(s->point_y);
    const size_t k = m->nz > 1 ? (size_t)lround(s->point_z) : 0;
    return i + (size_t)m->nx * (j + (size_t)m->ny * k);
}

/* The one place the slot values are computed, in double (core/incident.h,
 * which the CUDA and GL engines' device values use too). */
static double slot_value(const struct model *m, size_t k, int n)
{
    const size_t c = m->slot_cell[k];
    const double i = (double)(c % (size_t)m->nx), j = (double)(c / (size_t)m->nx % (size_t)m->ny);
    const struct material *t = &m->mats[m->slot_mat ? m->slot_mat[k] : m->mat[c]];
    return inc_eslot_value(m->inc, t->kind == MATERIAL_PEC, t->sigma != 0.0, t->cinc,
                           t->cinc_diff, t->cinc_sum, i, j, (double)n);
}

/* The H-array incident field of H node q (comp * ncells + c) at time t
 * (steps): TM eta0 H_inc, TE -E_inc (the same numbers,
 * docs/materials-design.md section 1). */
static double hnode_incident(const struct model *m, size_t q, double t)
{
    const size_t n = m->ncells, c = q % n, nx = (size_t)m->nx;
    return inc_hnode(m->inc, q >= n, (double)(c % nx), (double)(c / nx % (size_t)m->ny), t);
}

/* b^n of TE cut cell k: sum_e s_e (k_e - S) I_e^{n+1/2}. */
static double tecut_value(const struct model *m, size_t k, int n)
{
    const struct te_cut *t = &m->tecut[k];
    const size_t c = t->cell, nc = m->ncells, nx = (size_t)m->nx;
    const size_t e[4] = {nc + c, nc + c - 1, c, c - nx};
    static const double sgn[4] = {1.0, -1.0, -1.0, 1.0};
    const double S = m->scene->courant;
    double b = 0.0;
    for (int q = 0; q < 4; q++)
        b += sgn[q] * (t->k[q] - S) * hnode_incident(m, e[q], (double)n + 0.5);
    return b;
}

void model_tecut_values_f(const struct model *m, int n, float *out)
{
    for (size_t k = 0; k < m->ntecut; k++)
        out[k] = (float)tecut_value(m, k, n);
}

void model_tecut_values_d(const struct model *m, int n, double *out)
{
    for (size_t k = 0; k < m->ntecut; k++)
        out[k] = tecut_value(m, k, n);
}

static double hslot_value(const struct model *m, size_t k, int n)
{
    const size_t q = m->hslot[k], c = q % m->ncells, nx = (size_t)m->nx;
    const struct hmaterial *t = &m->hmats[m->hmat[q]];
    /* PEC -h1, a lossy TE edge cinc_diff (h1 - h0) + cinc_sum (h1 + h0),
     * otherwise hinc (h1 - h0): core/incident.h's inc_hslot_value, which
     * the CUDA and GL engines' device values call too */
    return inc_hslot_value(m->inc, q >= m->ncells, t->pec, t->sigma != 0.0, t->hinc,
                           t->cinc_diff, t->cinc_sum, (double)(c % nx),
                           (double)(c / nx % (size_t)m->ny), (double)n);
}


/* w of off-diagonal TE edge k (core/model.h hoff): per node of the edge,
 * kappa / 4 times the sum of its two other-direction edges'
 * Hi^{n+1/2} - Hi^{n-1/2}. */
static double hoff_value(const struct model *m, size_t k, int n)
{
    const struct hoff *h = &m->hoff[k];
    const size_t nc = m->ncells, nx = (size_t)m->nx, c = h->id % nc;
    /* hx: node c has the hy edges c-1, c, node c+nx the hy edges c+nx-1, c+nx;
     * hy: node c the hx edges c-nx, c, node c+1 the hx edges c+1-nx, c+1 */
    const size_t s = h->id < nc ? 1 : nx, o = h->id < nc ? nx : 1;
    const size_t base = h->id < nc ? nc + c - 1 : c - nx;
    double w = 0.0;
    for (int q = 0; q < 2; q++) {
        const size_t a = base + (q ? o : 0), b = a + s;
        const double t1 = (double)n + 0.5, t0 = (double)n - 0.5;
        w += 0.25 * h->kap[q]
             * ((hnode_incident(m, a, t1) - hnode_incident(m, a, t0))
                + (hnode_incident(m, b, t1) - hnode_incident(m, b, t0)));
    }
    return w;
}

/* The per-step value lists below hold one independent value per entry (a
 * few exp and sin in double each): large lists (a dielectric or dispersive
 * object of millions of cells) are filled by every OpenMP thread, which
 * changes no bit.  Each thread computes in IEEE mode (FTZ and DAZ cleared:
 * a worker may still carry a CPU engine's flush mode), as the calling
 * thread does. */
#define PARALLEL_VALUES 16384

typedef double (*value_fn)(const struct model *m, size_t k, int n);

/* out[q] = v, in float (rounded once) or double. */
static inline void put_value(void *out, size_t q, double v, bool single)
{
    if (single)
        ((float *)out)[q] = (float)v;
    else
        ((double *)out)[q] = v;
}

/* out[q] = f(m, first + q, n) for q < count, as float (single) or double. */
static void fill_values(const struct model *m, value_fn f, int n, size_t first, size_t count,
                        void *out, bool single)
{
#pragma omp parallel if (count >= PARALLEL_VALUES)
    {
#ifdef __SSE__
        const unsigned csr = _mm_getcsr();
        _mm_setcsr(csr & ~0x8040u);
#endif
#pragma omp for schedule(static)
        for (size_t q = 0; q < count; q++)
            put_value(out, q, f(m, first + q, n), single);
#ifdef __SSE__
        _mm_setcsr(csr);
#endif
    }
}

/* Ei^{n+1} at dispersive entry k (3D: the Ez entries; Ex, Ey have none). */
static double disp_value(const struct model *m, size_t k, int n)
{
    const size_t id = m->disp_cell[k], c = id % m->ncells, nx = (size_t)m->nx;
    if (m->nz > 1 && id / m->ncells != 2)
        return 0.0;
    return model_incident(m, (double)(c % nx), (double)(c / nx % (size_t)m->ny), (double)n + 1.0);
}

/* Hi^{n+1/2} at dispersive TE edge k. */
static double hdisp_value(const struct model *m, size_t k, int n)
{
    return hnode_incident(m, m->hdisp[k], (double)n + 0.5);
}

void model_disp_range_f(const struct model *m, int n, size_t first, size_t count, float *out)
{
    fill_values(m, disp_value, n, first, count, out, true);
}

void model_disp_range_d(const struct model *m, int n, size_t first, size_t count, double *out)
{
    fill_values(m, disp_value, n, first, count, out, false);
}

void model_disp_values_f(const struct model *m, int n, float *out)
{
    model_disp_range_f(m, n, 0, m->ndisp, out);
}

void model_disp_values_d(const struct model *m, int n, double *out)
{
    model_disp_range_d(m, n, 0, m->ndisp, out);
}

void model_hslot_range_f(const struct model *m, int n, size_t first, size_t count, float *out)
{
    fill_values(m, hslot_value, n, first, count, out, true);
}

void model_hslot_range_d(const struct model *m, int n, size_t first, size_t count, double *out)
{
    fill_values(m, hslot_value, n, first, count, out, false);
}

void model_hdisp_values_f(const struct model *m, int n, float *out)
{
    fill_values(m, hdisp_value, n, 0, m->nhdisp, out, true);
}

void model_hdisp_values_d(const struct model *m, int n, double *out)
{
    fill_values(m, hdisp_value, n, 0, m->nhdisp, out, false);
}

void model_hoff_values_f(const struct model *m, int n, float *out)
{
    fill_values(m, hoff_value, n, 0, m->nhoff, out, true);
}

void model_hoff_values_d(const struct model *m, int n, double *out)
{
    fill_values(m, hoff_value, n, 0, m->nhoff, out, false);
}

void model_hslot_values_f(const struct model *m, int n, float *out)
{
    model_hslot_range_f(m, n, 0, m->nhslots, out);
}

void model_hslot_values_d(const struct model *m, int n, double *out)
{
    model_hslot_range_d(m, n, 0, m->nhslots, out);
}

/* The slot values of slots first .. first+count-1: fill_values, or with
 * m->slot_rep each column and material's value once, copied to the slots
 * that share it (the same value, so the same bits).  (Measured with the
 * takada_square scene's PEC square, about 1 000 slots in 32 columns: the
 * cpu engine's step at 256^2 from 60 to 37 us; docs/performance.md.) */
static void fill_slots(const struct model *m, int n, size_t first, size_t count, void *out, bool single)
{
    if (!m->slot_rep || m->nslot_rep != m->nslots) {
        fill_values(m, slot_value, n, first, count, out, single);
        return;
    }
#ifdef __SSE__
    const unsigned csr = _mm_getcsr(); /* as fill_values */
    _mm_setcsr(csr & ~0x8040u);
#endif
    for (size_t q = 0; q < count; q++) {
        const size_t k = first + q, r = m->slot_rep[k];
        if (r >= first && r < k) { /* its first, computed above */
            if (single)
                ((float *)out)[q] = ((float *)out)[r - first];
            else
                ((double *)out)[q] = ((double *)out)[r - first];
            continue;
        }
        put_value(out, q, slot_value(m, k, n), single);
    }
#ifdef __SSE__
    _mm_setcsr(csr);
#endif
}

void model_slot_values_f(const struct model *m, int n, float *out)
{
    fill_slots(m, n, 0, m->nslots, out, true);
}

void model_slot_values_d(const struct model *m, int n, double *out)
{
    fill_slots(m, n, 0, m->nslots, out, false);
}

void model_slot_range_f(const struct model *m, int n, size_t first, size_t count, float *out)
{
    fill_slots(m, n, first, count, out, true);
}

void model_slot_range_d(const struct model *m, int n, size_t first, size_t count, double *out)
{
    fill_slots(m, n, first, count, out, false);
}

void model_dft_weight_k(const struct model *m, int k, int n, double *re, double *im)
{
    const struct scene *s = m->scene;
    const double scale = 2.0 / (m->inc.amplitude * (double)(s->steps - s->dft_start));
    const double w = s->dft_nfreq > 0 ? m->inc.omega_dt * s->dft_freq[k] : m->inc.omega_dt;
    *re = scale * cos(w * (double)n);
    *im = -scale * sin(w * (double)n);
}

void model_dft_weight(const struct model *m, int n, double *re, double *im)
{
    model_dft_weight_k(m, 0, n, re, im);
}

size_t model_field_bytes(const struct model *m, size_t elem_size)
{
    return 3 * m->ncells * elem_size;
}
