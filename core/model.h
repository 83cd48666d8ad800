/* model.h - what every engine needs from a scene, computed once on the host.
 *
 * The scene's objects are painted into a per-cell material index (gprMax
 * style) with a small table of update coefficients per material.  Cells whose
 * update takes an incident-field term (PEC and dielectric cells, in the
 * scattered-field formulation) are listed as "source slots"; their values are
 * computed here, in double, and rounded once to the engine's precision, so
 * every engine (C, GLSL, CUDA) adds exactly the same numbers.
 *
 * Units: E in V/m; H is stored as eta0*H (also V/m), so that the free-space
 * update coefficient is the Courant number S = c dt / dx.  Cell (i, j) holds
 *     Ez(i, j), Hx(i, j+1/2), Hy(i+1/2, j)
 * at times n (E) and n+1/2 (H).  Linear index i + j*nx, x fastest.
 */
#ifndef TEXFDTD_MODEL_H
#define TEXFDTD_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "incident.h"
#include "material.h"
#include "scene.h"

#define MODEL_MAX_MATERIALS 256

/* One value the monitors read after every step (core/monitor.h): a field
 * (enum field of core/engine.h) at a linear cell index. */
struct sample {
    uint8_t field;
    size_t cell;
};
struct monitor_plan;

struct material {
    enum material_kind kind;
    double eps_r;
    double cezh;   /* S / eps_r: multiplies the curl of H in the Ez update */
    float cezh_f;  /* the same, rounded once to float */
    double cinc;   /* -(1 - 1/eps_r): multiplies Einc^{n+1} - Einc^n (dielectric) */
    /* Conductivity (core/material.h, Crank-Nicolson): sigma in S/m and
     *     Ez^{n+1} = ca Ez^n + cb curl H,
     * ca = (1 - s)/(1 + s), cb = (S/eps_r)/(1 + s), s = sigma dt / (2 eps0 eps_r);
     * sigma = 0 (and PEC): ca = 1, cb = cezh exactly.  The slot of a lossy
     * dielectric cell adds cinc_diff (Ei^{n+1} - Ei^n) + cinc_sum (Ei^{n+1} + Ei^n). */
    double sigma;
    double ca, cb;
    float ca_f, cb_f;
    double cinc_diff, cinc_sum;
    /* A dispersive material ([material.NAME] with poles): its D-E
     * coefficients (core/material.h, owned; NULL otherwise), the material
     * they are made from (owned: a copy of the scene table's entry, or in 2D
     * TM with [grid] subpixel the mean of an object's material and the one
     * under it over a boundary cell, material_mix), the scene table index it
     * came from (-1 for such a mean), and cezh = cb = 0, ca = 1, so that the
     * ordinary row update leaves its cells' Ez^n as it is (E = E + 0 curl)
     * for the dispersive pass after the sweep (docs/materials-design.md
     * section 3).  eps_r and sigma are dmat's eps_inf and sigma. */
    struct material_coef *dcoef;
    struct scene_material *dmat;
    int dtable;
    /* 3D: the corner's relative permeability (part of the material's
     * identity there: the H-node map below is made from it); 2D keeps 1 and
     * paints mu_r apart (paint_mu). */
    double mu_r;
};

/* CPML coefficients along one axis, per position index (Ez positions i, or
 * H positions i+1/2), computed in double and rounded once to float:
 *     psi = b psi + c d;   term = d ik + psi      (d: the field difference)
 * Positions outside the slabs have b = c = 0, ik = 1 and are never used. */
struct pml_axis {
    double *b, *c, *ik;
    float *bf, *cf, *ikf;
};

struct model {
    const struct scene *scene;
    int nx, ny, nz; /* nz = 1: a 2D scene */
    size_t ncells;  /* nx * ny * nz */

    /* material index per cell, [nz][ny][nx]: 2D, the cell's Ez point (i, j)
     * lies in the object; 3D, the cell's corner (i, j, k) does */
    uint8_t *mat;
    struct material mats[MODEL_MAX_MATERIALS];
    int nmats;    /* mats[0] is vacuum */
    bool lossy;   /* some material has sigma != 0: the engines run the ca, cb update */

    double ch;    /* S: Hx -= ch*(dEz/dy), Hy += ch*(dEz/dx) */
    float ch_f;

    /* CPML ([boundary] type = cpml): slabs of pml_n cells at each wall.
     * Slab membership and storage column (0 .. pml_n-1 on each side) are
     * given by pml_slab_e / pml_slab_h below. */
    int pml_n;
    struct pml_axis pml_xe, pml_xh, pml_ye, pml_yh;
    struct pml_axis pml_ze, pml_zh; /* 3D only */

    /* Mur first order: (S - 1) / (S + 1) */
    double mur_k;
    float mur_k_f;

    /* Conformal PEC ([grid] conformal_pec): the H edges between a PEC node P
     * and a free node Q, where the surface crosses the edge at distance d
     * (cells) from Q.  Faraday's law on the part of the edge's face outside
     * the conductor, where the total Ez falls to 0 at the surface, gives
     *     Hx_s = Hx_s - (a Es_Q + b^n),   Hy_s = Hy_s + (a Es_Q + b^n),
     *     a = S sigma / d,  b^n = S sigma Ei_Q^n / d - S (Ei_hi^n - Ei_lo^n),
     * sigma = +1 if Q is the upper node of the edge (j+1 or i+1), else -1;
     * lo is the H cell's own node, hi its +y (Hx) or +x (Hy) neighbour.
     * (Dey and Mittra 1997, reduced to TMz; with d = 1 it is the staircase.)
     * cut_row[j] .. cut_row[j+1] index the edges of H row j. */
    size_t ncut;
    struct cut_edge {
        size_t cell;  /* H cell c = i + j nx */
        size_t q;     /* the free Ez node */
        int comp;     /* 0: Hx, 1: Hy */
        int sigma;
        double d, a;
        float a_f;
    } *cut;
    size_t *cut_row;

    /* Conformal PEC in TE ([grid] conformal_pec with polarization = te): the
     * Hz cells cut by a PEC surface.  The Hz cell of ez node c = (i, j) is
     * the dual square [i-1/2, i+1/2] x [j-1/2, j+1/2]; its edges hold
     * -Ey(i+1/2, j) (hy[c], east), -Ey(i-1/2, j) (hy[c-1], west),
     * -Ex(i, j+1/2) (hx[c], north), -Ex(i, j-1/2) (hx[c-nx], south).
     * Faraday's law on the part of the cell outside the conductor (Dey and
     * Mittra 1997, the 2D TE form), with the total tangential E zero on the
     * surface, gives
     *     Hz_s = Hz_s + [(k0 hy[c] - k1 hy[c-1]) - (k2 hx[c] - k3 hx[c-nx])] + b^n,
     *     k_e = S l_e / A_eff,  b^n = sum_e s_e (k_e - S) I_e^{n+1/2}
     * (l_e the free fraction of edge e's length, s_e = +1, -1, -1, +1, I_e the
     * array's incident field -E_inc at the edge), the cut cell's own update
     * after the sweep (yee_te_cut, from its Hz^n kept before it).  An edge
     * whose whole length lies in the conductor (l = 0) is a PEC H node (held
     * at -E_inc); every other edge takes the ordinary update.  The small-cell
     * floor A_eff >= S^2 sum_e l_e / 2 keeps every row of the update's matrix
     * within the free-space Gershgorin bound, so the scheme is stable at
     * every Courant number free space is; the area a cell gains from the
     * floor is taken from its neighbour across its longest free edge (down to
     * that one's floor), which then joins the list with A_eff < A_free
     * (core/model.c te_cut_cells, docs/accuracy.md). */
    size_t ntecut;
    struct te_cut {
        size_t cell;
        double area, aeff; /* A_free and A_eff, in cells */
        double l[4];       /* free fractions of the edges east, west, north, south */
        double k[4];
        float k_f[4];
    } *tecut;

    /* 3D with [grid] subpixel (core/smooth3d.h): the E edges whose
     * material is not their corner's, edge q = comp * ncells + c in
     * increasing q; edge esm_q[k] takes m->mats[esm_mat[k]] (a dielectric of
     * the edge's own (eps^-1)_aa, rounded, or an object's material where
     * its cube lies inside the object but the corner does not).  The
     * engines' E maps start from their corner's (cpu3d_e_materials) and
     * take these; nesm = 0 otherwise. */
    size_t nesm;
    size_t *esm_q;
    uint8_t *esm_mat;

    /* Source slots in increasing cell order; slot_mat[k], 3D with nesm,
     * the index in mats of the slot's Ez edge (NULL otherwise: the cell's
     * m->mat). */
    size_t nslots;
    size_t *slot_cell;
    uint8_t *slot_mat;
    /* Where the plane wave travels along +x (sin theta = 0: its value at a
     * cell does not depend on j), slot_rep[k] is the first slot of slot k's
     * column and material, whose value slot k shares, bit for bit
     * (model_slot_values_*); NULL where few slots would share.  Made by
     * model_index_cells for the nslot_rep slots of that moment: code that
     * changes slot_cell or the materials afterwards calls it again (or
     * frees slot_rep and sets it NULL); a count that no longer matches
     * turns the sharing off. */
    size_t *slot_rep;
    size_t nslot_rep;

    /* Dispersive cells (materials with dcoef), in increasing cell order; they
     * are no source slots: the dispersive pass takes Ei^{n+1} itself
     * (model_disp_values_*).  Never in a CPML slab nor on the outer ring.
     * 3D: one entry per E component the sweep updates at a dispersive
     * corner, comp * ncells + c (comp 0 Ex, 1 Ey, 2 Ez; increasing c, then
     * comp), each its own state; never an E component whose curl meets a
     * CPML slab (the pass takes the plain curl). */
    bool dispersive;
    size_t ndisp;
    size_t *disp_cell;

    /* H-node coefficients, only where the scene needs them (TE with an
     * object, or TM with mu_r != 1; NULL otherwise, and every H node takes
     * ch): hmat[c] is the index into hmats of Hx(i, j+1/2), hmat[ncells + c]
     * of Hy(i+1/2, j), c = i + j nx.  The node joins cells c and c + nx (Hx)
     * or c and c + 1 (Hy); the nodes of the last row (Hx) and column (Hy)
     * are never updated and take 0.  hmats[0] is vacuum (ch = S).
     *   TM: ch = S / mu_bar, mu_bar the mean mu_r of the two cells;
     *   TE: ch = S / eps_bar, eps_bar the mean eps_r of the two cells (the
     *       arrays hold -Ex, -Ey: docs/materials-design.md section 1), and a
     *       node touching a PEC cell is PEC (ch = 0, a slot holds -E_inc);
     *       with [grid] subpixel, near a dielectric object's boundary
     *       1 / eps_bar is the edge's own (eps^-1)_aa (paint_te_edges),
     *       rounded to multiples of 2^-12 (coarser where the table would
     *       overflow); an edge with a lossy or dispersive cell takes the
     *       two-cell mean of the complex permittivity (eps_inf, sigma and
     *       the poles at half strength, never smoothed: such objects are
     *       painted as staircases in TE).
     * In TE, mat / mats describe the ez array's nodes (eta0 Hz): their eps_r,
     * cezh, cinc are those of the node's mu_r (S / mu_r, -(1 - 1/mu_r)).
     * CPML slabs never meet a node of index != 0 (objects keep out of them:
     * scene_interior_margin), so the engines' CPML paths use ch.
     * 3D (TM only, only with mu_r != 1): hmat[comp * ncells + c], comp 0 Hx,
     * 1 Hy, 2 Hz of cell c, mu_bar the mean mu_r (struct material mu_r) of
     * the four corners of the node's face, 0.5 (0.5 (a + b) + 0.5 (a' + b'))
     * with (a, b) the 2D pair (Hx(i, j+1/2, k+1/2): corners (i, j, k) and
     * (i, j+1, k); Hy: (i, j, k), (i+1, j, k); Hz: (i, j, k), (i+1, j, k))
     * and (a', b') the same pair one corner up (z for Hx, Hy; y for Hz),
     * so that a z-invariant scene gives the 2D mean exactly; nodes not
     * updated take 0; the CPML rows take the map's coefficient too. */
    uint8_t *hmat;
    struct hmaterial {
        int pec;       /* TE: a PEC edge, H-array slot = value (a copy) */
        double bar;    /* mu_bar (TM) or eps_bar (TE) */
        double ch;     /* S / bar, 0 for PEC */
        float ch_f;
        double hinc;   /* -(1 - 1/bar): multiplies Hi^{n+1/2} - Hi^{n-1/2} */
        /* TE lossy edge (sigma_bar != 0, the mean sigma of the two cells):
         * the Crank-Nicolson update of the edge's eps_bar, sigma_bar
         * (material_coef), h = ca h -+ ch (e1 - e0) with ch = cb
         * (yee_h_sub_lossy / yee_h_add_lossy), and its slot adds
         * cinc_diff (Hi^{n+1/2} - Hi^{n-1/2}) + cinc_sum (Hi^{n+1/2} + Hi^{n-1/2}).
         * ca = 1 (exactly) elsewhere. */
        double sigma;
        double ca;
        float ca_f;
        double cinc_diff, cinc_sum;
        /* TE dispersive edge (a cell of the edge has poles): the edge's own
         * material (owned; eps_inf and sigma the means of the two cells',
         * the poles the union of both cells' poles at half strength, equal
         * poles merged: the mean of the two eps(omega)) and its D-E
         * coefficients (owned); ch = 0, ca = 1, so that the H-array update
         * leaves the node as it is for the pass of hdisp below.  NULL
         * otherwise. */
        struct scene_material *dmat;
        struct material_coef *dcoef;
    } hmats[MODEL_MAX_MATERIALS];
    int nhmats;
    int magnetic;      /* some cell has mu_r != 1 */
    bool hlossy;       /* some H node has ca != 1 (TE lossy edges) */
    /* TE dispersive edges (hmats[hmat[q]].dcoef), as comp * ncells + c in
     * increasing c (Hx before Hy at a cell), hdisp_row[j] .. hdisp_row[j+1]
     * those of row j: right after row j's H update (and its slots) the D-E
     * update of cpu/update2d.inc update_hdisp runs on them with the new
     * "curl" of the edge (hx: -(ez(j+1) - ez(j)), hy: ez(i+1) - ez(i), the
     * ez array at n) and the arrays' incident field (-E_inc) at n+1/2
     * (model_hdisp_values_*).  They are no H slots and never in a CPML slab. */
    size_t nhdisp;
    size_t *hdisp, *hdisp_row;
    /* The H nodes that take an incident-field term (hmat != 0), as
     * comp * ncells + c, in increasing c (Hx before Hy at a cell);
     * hslot_row[j] .. hslot_row[j+1] are those of row j (applied right after
     * row j's H update, like the cut edges).  3D: Hx and Hy nodes only (the
     * incident wave has no Hz), applied after the whole H sweep; no
     * hslot_row. */
    size_t nhslots;
    size_t *hslot, *hslot_row;
    /* TE with [grid] subpixel and te_offdiagonal (the default): the
     * off-diagonal (eps^-1)_xy of the smoothed permittivity tensor
     * (Farjadpour et al. 2006; Meep), so that d(-E)/dt = S (eps^-1) g takes
     * the whole tensor, g the curl (g_x = -(ez(j+1) - ez(j)) at an hx edge,
     * g_y = ez(i+1) - ez(i) at an hy edge).  The coupling of an x edge and a
     * y edge lives at the ez node they share (Werner and Cary, J. Comput.
     * Phys. 226 (2007) 1085: a symmetric coupling, so the operator stays
     * symmetric and positive definite and the scheme stable; Meep's mean
     * of each edge's own (eps^-1)_xy over its four neighbours is not
     * symmetric and grows, docs/accuracy.md): node p = (i, j) has
     *   kappa_p = n_x n_y (<1/eps> - 1/<eps>)
     * over its unit square (paint_te_edges), clamped to 0.999
     * sqrt(min d_x min d_y) (d the 1/bar of its two hx and two hy edges: the
     * local 2 x 2 form stays positive definite), and each edge adds, per
     * node at its ends, kappa_p / 4 times the sum of the node's two edges of
     * the other direction:
     *   hx edge c = (i, j+1/2): nodes c (hy c-1, c) and c+nx (hy c+nx-1, c+nx)
     *     u = [k0 (ez(c+1) - ez(c-1)) + k1 (ez(c+nx+1) - ez(c+nx-1))] + w,
     *     k_q = S kappa_q / 4,   s = 1, o = nx
     *   hy edge c = (i+1/2, j): nodes c (hx c-nx, c) and c+1 (hx c+1-nx, c+1)
     *     u = [k0 (ez(c+nx) - ez(c-nx)) + k1 (ez(c+nx+1) - ez(c-nx+1))] + w,
     *     k_q = -S kappa_q / 4,  s = nx, o = 1
     * i.e. u = [k0 (ez(c+s) - ez(c-s)) + k1 (ez(c+o+s) - ez(c+o-s))] + w
     * (yee_offd_u; the two differences of each node are the sums of its two
     * edges' g), then h = h + u (yee_add), right after row j's H update
     * (and its cut edges) and before its H slots; u from the ez array at n
     * (the cpu engine computes every u before its fused sweep, which
     * overwrites row j-1's ez before row j's H).  w is the scattered-field
     * term of the incident wave, the same sums of the neighbours' array
     * incident values (-E_inc): w = sum_q (kappa_q / 4) sum_2 (Hi^{n+1/2} -
     * Hi^{n-1/2}) (model_hoff_values_*), in double, rounded once.  A node
     * takes part only where its four edges are lossless, not PEC, not
     * dispersive and inside the grid's ring.  id = comp * ncells + c as
     * hslot, increasing; hoff_row[j] .. hoff_row[j+1] those of row j.
     * Never in a CPML slab. */
    size_t nhoff;
    struct hoff {
        size_t id;
        double kap[2]; /* kappa of the edge's nodes c and c + o */
        double k[2];   /* -+ S kappa / 4 (above) */
        float k_f[2];
    } *hoff;
    size_t *hoff_row;

    /* Incident plane wave Ez_inc(x, y, n) = A g(s), s = n - tau(x, y),
     * tau = (x cos(theta) + y sin(theta) - d0) / S, where d0 puts the front
     * at the entry corner plus [source] front_offset at n = 0; g = 0 for
     * s <= 0 and, with omega = omega_dt (the source frequency f0, radians
     * per step) and s' = s - t0:
     *   sine:               g = r(s) sin(omega s), r the linear ramp of ramp_steps
     *   gaussian:           g = exp(-(s'/tau_p)^2)
     *   modulated_gaussian: g = exp(-(s'/tau_p)^2) sin(omega s')
     *   ricker:             g = (1 - 2 (pi f0 s')^2) exp(-(pi f0 s')^2)
     * The Gaussians' spectra fall to half their peak at f = B f0 (gaussian)
     * and f = f0 (1 -+ B/2) (modulated), B = [source] bandwidth:
     * tau_p = sqrt(ln 2) / (pi B f0) and 2 sqrt(ln 2) / (pi B f0); the
     * Ricker wavelet's spectrum peaks at f0.  The delay t0 (5 tau_p, or
     * 5 / (pi f0) for the Ricker wavelet) starts each pulse at about 1e-10
     * of its peak.
     * These numbers live in inc (core/incident.h: cos_t, sin_t, d0,
     * omega_dt, amplitude, ramp_steps, pulse_t0 and the reciprocals of S,
     * ramp_steps and tau_p), the one place every engine's incident values
     * come from (model_incident, and the CUDA engines on the device). */
    struct inc_wave inc;

    /* Monitors (core/monitor.h): the samples every engine gathers after each
     * step, sorted by field then cell, and the most steps an engine steps
     * between two reads of them. */
    size_t nsamples;
    struct sample *samples;
    int sample_rows;
    struct monitor_plan *plan; /* NULL without monitors */
};

int model_build(struct model *m, const struct scene *s, char *err, size_t errlen);
/* Refuse (file:line of the key, the material's name) a material that objects
 * or maps use and the engines cannot run yet: dispersion poles with mu_r != 1
 * in 2D (2D TM and TE and 3D poles are taken by the engines with
 * ENGINE_CAP_DISPERSIVE, in TE also ENGINE_CAP_TE_DISPERSIVE; sigma != 0 is
 * taken by the engines with ENGINE_CAP_LOSSY, in TE also ENGINE_CAP_TE_LOSSY;
 * mu_r and TE by those with ENGINE_CAP_MAGNETIC and ENGINE_CAP_TE;
 * engine_create refuses them on the others), and an unstable one
 * (core/material.h, on the scene's 2 or 3 dimensions).  model_build calls
 * it first. */
int model_check_materials(const struct scene *s, char *err, size_t errlen);
/* (Re)derive from m->mat what model_build lists from it: the source slots,
 * the dispersive cells and, in 3D, the H-node map and its slots (any earlier
 * lists freed).  model_build calls it; a test that edits m->mat calls it
 * again.  -1 with err (a dispersive cell where its pass cannot run), the
 * model left for model_free. */
int model_index_cells(struct model *m, char *err, size_t errlen);
void model_free(struct model *m);

/* The soft point source ([source] type = point): the value added to Ez at
 * the source cell in the E update from step n to n+1 (time n+1):
 *   sine:     A r(n+1) sin(omega dt (n+1)),  r the linear ramp of ramp_periods
 *   gaussian: A exp(-((n+1 - 4w) / w)^2),    w = pulse_width (steps)
 * Zero for a plane-wave scene. */
double model_point_value(const struct model *m, int n);
/* Linear index of the point source cell (rounded centre). */
size_t model_point_cell(const struct model *m);

/* Ez_inc at cell (i, j) (Ez position) and time n*dt, in double; 0 without a plane wave. */
double model_incident(const struct model *m, double i, double j, double n);
/* The plane wave's time function A g(s) at s steps after the front passes. */
double model_waveform(const struct model *m, double s);

/* Slot values for the E update from step n to n+1:
 *   PEC cell:        Ez^{n+1} = v,             v = -Einc^{n+1}
 *   dielectric cell: Ez^{n+1} = Ez* + v,       v = cinc * (Einc^{n+1} - Einc^n)
 *   lossy cell:      Ez^{n+1} = Ez* + v,       v = cinc_diff (Einc^{n+1} - Einc^n)
 *                                                + cinc_sum (Einc^{n+1} + Einc^n)
 * where Ez* is the ordinary update.  Computed in double, rounded once. */
void model_slot_values_f(const struct model *m, int n, float *out);
void model_slot_values_d(const struct model *m, int n, double *out);
/* The same for slots first .. first+count-1 only, into out[0 ..] (a rank of
 * an MPI run computes the slots of its own planes). */
void model_slot_range_f(const struct model *m, int n, size_t first, size_t count, float *out);
void model_slot_range_d(const struct model *m, int n, size_t first, size_t count, double *out);

/* The incident field Ei^{n+1} (total field = stored scattered + incident) at
 * each dispersive cell, for the E update from step n to n+1, in double,
 * rounded once. */
void model_disp_values_f(const struct model *m, int n, float *out);
void model_disp_values_d(const struct model *m, int n, double *out);
/* The same for entries first .. first+count-1 (3D: 0 for the Ex and Ey
 * entries, the incident wave's E being Ez alone). */
void model_disp_range_f(const struct model *m, int n, size_t first, size_t count, float *out);
void model_disp_range_d(const struct model *m, int n, size_t first, size_t count, double *out);

/* H-node slot values for the H update from n-1/2 to n+1/2 (Ez at n), with
 * the arrays' incident fields (TM: eta0 H_inc; TE: -E_inc, the same numbers):
 *   hx: sin(theta) A g at (i, j+1/2),  hy: -cos(theta) A g at (i+1/2, j)
 *   PEC node (TE):   H^{n+1/2} = v,         v = -Hi^{n+1/2}
 *   lossy edge (TE): H^{n+1/2} = H* + v,    v = cinc_diff (Hi^{n+1/2} - Hi^{n-1/2})
 *                                              + cinc_sum (Hi^{n+1/2} + Hi^{n-1/2})
 *   other node:      H^{n+1/2} = H* + v,    v = hinc (Hi^{n+1/2} - Hi^{n-1/2})
 * Computed in double, rounded once. */
void model_hslot_values_f(const struct model *m, int n, float *out);
void model_hslot_values_d(const struct model *m, int n, double *out);
void model_hslot_range_f(const struct model *m, int n, size_t first, size_t count, float *out);
void model_hslot_range_d(const struct model *m, int n, size_t first, size_t count, double *out);

/* The arrays' incident field Hi^{n+1/2} (TE: -E_inc) at each dispersive H
 * node (hdisp), for the H update from n-1/2 to n+1/2, in double, rounded once. */
void model_hdisp_values_f(const struct model *m, int n, float *out);
void model_hdisp_values_d(const struct model *m, int n, double *out);

/* b^n of every cut edge for the H update from step n (Ez at n), double,
 * rounded once for float. */
void model_cut_values_f(const struct model *m, int n, float *out);
void model_cut_values_d(const struct model *m, int n, double *out);

/* b^n of every TE cut cell for the Hz update from step n to n+1 (the
 * edges' incident fields at n+1/2), double, rounded once for float. */
void model_tecut_values_f(const struct model *m, int n, float *out);
void model_tecut_values_d(const struct model *m, int n, double *out);

/* Weights of the running DFT of Ez at the source frequency ([monitor.dft]):
 *     Ez_dft = sum_{n = start+1}^{steps} w(n) Ez^n,
 *     w(n) = 2 / (A N) exp(-i omega n dt),  N = steps - start,
 * so that a steady field E(t) = Re[P exp(+i omega t)] gives Ez_dft = P / A:
 * the phasor normalised to the incident amplitude A, time convention
 * exp(+i omega t), time origin at step 0.  The incident plane wave itself has
 * the phasor -i exp(-i k (x cos(theta) + y sin(theta) - d0)), k = 2 pi / N_lambda.
 * Computed in double; engines round once to their precision. */
void model_dft_weight(const struct model *m, int n, double *re, double *im);
/* The same at [monitor.dft] frequency k (omega = omega_dt * dft_freq[k]);
 * k = 0 with the default frequency list is model_dft_weight. */
void model_dft_weight_k(const struct model *m, int k, int n, double *re, double *im);

/* CPML slab membership along an axis of n positions with N-cell slabs.
 * E positions i: left slab 1 .. N-1, right slab n-N .. n-2.
 * H positions i+1/2: left 0 .. N-1, right n-1-N .. n-2.
 * Return the side (0 left, 1 right) or -1, and the storage column in *k:
 * i on the left, i - (n-1-N) on the right (E uses columns 1 .. N-1). */
static inline int pml_slab_e(int n, int N, int i, int *k)
{
    if (N <= 0)
        return -1;
    if (i >= 1 && i <= N - 1)
        return *k = i, 0;
    if (i >= n - N && i <= n - 2)
        return *k = i - (n - 1 - N), 1;
    return -1;
}

static inline int pml_slab_h(int n, int N, int i, int *k)
{
    if (N <= 0)
        return -1;
    if (i >= 0 && i <= N - 1)
        return *k = i, 0;
    if (i >= n - 1 - N && i <= n - 2)
        return *k = i - (n - 1 - N), 1;
    return -1;
}

/* The incident-field term w of each off-diagonal TE edge (hoff above) for
 * the H update from n-1/2 to n+1/2, in double, rounded once. */
void model_hoff_values_f(const struct model *m, int n, float *out);
void model_hoff_values_d(const struct model *m, int n, double *out);

/* Bytes of field storage a 2D engine needs per cell: 3 fields. */
size_t model_field_bytes(const struct model *m, size_t elem_size);

#endif
