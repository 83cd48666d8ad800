/* material.c - update coefficients and stability of one material
 * (docs/materials-design.md sections 2 and 3).  See material.h. */
#include "material.h"
#include "util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- coefficients --------------------------------------------------------- */

static int check_params(const struct scene_material *m, double dt, double S, char *err,
                        size_t errlen)
{
    if (m->is_pec)
        return seterr(err, errlen, "material %s: pec = true has no update coefficients",
                      m->name);
    if (!(dt > 0.0) || !isfinite(dt))
        return seterr(err, errlen, "material %s: time step dt = %g s, need a finite value > 0",
                      m->name, dt);
    if (!(S > 0.0) || !isfinite(S))
        return seterr(err, errlen, "material %s: courant = %g, need a finite value > 0", m->name,
                      S);
    if (!(m->eps_inf > 0.0) || !isfinite(m->eps_inf))
        return seterr(err, errlen, "material %s: eps_r = %g, need a finite value > 0", m->name,
                      m->eps_inf);
    if (!(m->mu_r > 0.0) || !isfinite(m->mu_r))
        return seterr(err, errlen, "material %s: mu_r = %g, need a finite value > 0", m->name,
                      m->mu_r);
    if (!(m->sigma >= 0.0) || !isfinite(m->sigma))
        return seterr(err, errlen, "material %s: sigma = %g S/m, need a finite value >= 0",
                      m->name, m->sigma);
    if (m->npoles < 0 || m->npoles > SCENE_MAX_POLES)
        return seterr(err, errlen, "material %s: %d poles, allowed 0 to %d", m->name, m->npoles,
                      SCENE_MAX_POLES);
    for (int p = 0; p < m->npoles; p++) {
        const struct scene_pole *q = &m->poles[p];
        const bool bad_kind = q->kind != POLE_DEBYE && q->kind != POLE_LORENTZ
                              && q->kind != POLE_DRUDE;
        if (bad_kind || !isfinite(q->a) || !(q->b > 0.0) || !isfinite(q->b)
            || (q->kind != POLE_DEBYE && (!(q->c >= 0.0) || !isfinite(q->c))))
            return seterr(err, errlen,
                          "material %s: pole %d (kind %d): a = %g, b = %g, c = %g out of range: "
                          "need a finite, b > 0 (tau, omega0 or omega_p), c = gamma >= 0",
                          m->name, p + 1, (int)q->kind, q->a, q->b, q->c);
    }
    return 0;
}

double material_ch(double mu_bar, double S)
{
    /* H^{n+1/2} = H^{n-1/2} -+ (S/mu_bar) curl E */
    return S / mu_bar;
}

double material_hinc(double mu_bar)
{
    /* The incident field obeys the vacuum update, Hi^{n+1/2} - Hi^{n-1/2} =
     * -+ S curl Ei, so the term -+ (S/mu) curl Ei the scattered update lacks is
     * (1/mu)(Hi^{n+1/2} - Hi^{n-1/2}), and the slot adds
     * (1/mu - 1)(Hi^{n+1/2} - Hi^{n-1/2}) = -(1 - 1/mu)(...). */
    return -(1.0 - 1.0 / mu_bar);
}

int material_coef(const struct scene_material *m, double dt, double S, struct material_coef *c,
                  char *err, size_t errlen)
{
    if (check_params(m, dt, S, err, errlen))
        return -1;
    memset(c, 0, sizeof *c);
    c->S = S;
    c->dt = dt;
    c->eps_inf = m->eps_inf;
    c->mu_r = m->mu_r;

    /* Ampere's law for D = eps0 (eps_inf E + sum P) with the conduction
     * current sigma E averaged over the step (Crank-Nicolson), D and P in
     * units of eps0:
     *     D^{n+1} - D^n = S curl H^{n+1/2} - sigma' (E^{n+1} + E^n),
     *     sigma' = sigma dt / (2 eps0). */
    c->sigma_p = m->sigma * dt / (2.0 * MATERIAL_EPS0);

    /* Without poles D = eps_inf E (Taflove and Hagness eq. 3.31):
     *     (eps_inf + sigma') E^{n+1} = (eps_inf - sigma') E^n + S curl H,
     * i.e. with s = sigma'/eps_inf
     *     ca = (1 - s)/(1 + s),  cb = (S/eps_inf)/(1 + s). */
    const double s = c->sigma_p / m->eps_inf;
    c->ca = (1.0 - s) / (1.0 + s);
    c->cb = (S / m->eps_inf) / (1.0 + s);

    /* Scattered field E_s = E - Ei with a vacuum incident field,
     * Ei^{n+1} - Ei^n = S curl Hi: the total update minus the incident one is
     *     E_s^{n+1} = ca E_s^n + cb curl H_s + v,
     *     v = ca Ei^n - Ei^{n+1} + (Ei^{n+1} - Ei^n)/(eps_inf + sigma')
     *       = -[(eps_inf - 1)(Ei^{n+1} - Ei^n) + sigma'(Ei^{n+1} + Ei^n)] / (eps_inf + sigma'). */
    const double den = m->eps_inf + c->sigma_p;
    c->cinc_diff = -(m->eps_inf - 1.0) / den;
    c->cinc_sum = -c->sigma_p / den;

    c->ch = material_ch(m->mu_r, S);
    c->hinc = material_hinc(m->mu_r);

    double sum_b = 0.0;
    c->npoles = m->npoles;
    for (int p = 0; p < m->npoles; p++) {
        const struct scene_pole *q = &m->poles[p];
        struct material_pole_coef *k = &c->poles[p];
        k->kind = q->kind;
        if (q->kind == POLE_DEBYE) {
            /* tau dP/dt + P = delta_eps E, trapezoidal about n+1/2:
             *     (2 tau + dt) P^{n+1} = (2 tau - dt) P^n + delta_eps dt (E^{n+1} + E^n)
             *     a = (2 tau - dt)/(2 tau + dt),  b = delta_eps dt/(2 tau + dt) */
            const double tau = q->b;
            k->a = (2.0 * tau - dt) / (2.0 * tau + dt);
            k->b = q->a * dt / (2.0 * tau + dt);
            sum_b += k->b;
        } else {
            /* Lorentz: P'' + gamma P' + omega0^2 P = delta_eps omega0^2 E,
             * Drude:   P'' + gamma P' = omega_p^2 E,
             * central differences at step n (P'' -> (P^{n+1} - 2P^n + P^{n-1})/dt^2,
             * P' -> (P^{n+1} - P^{n-1})/(2 dt)), g = gamma dt / 2:
             *     c1 = (2 - omega0^2 dt^2)/(1 + g),  c2 = (1 - g)/(1 + g),
             *     c3 = delta_eps omega0^2 dt^2/(1 + g)
             * (Drude: omega0^2 dt^2 -> 0 in c1, delta_eps omega0^2 -> omega_p^2). */
            const double g = q->c * dt / 2.0;
            const double w = q->b * dt; /* omega0 dt or omega_p dt */
            k->c1 = (q->kind == POLE_LORENTZ ? 2.0 - w * w : 2.0) / (1.0 + g);
            k->c2 = (1.0 - g) / (1.0 + g);
            k->c3 = (q->kind == POLE_LORENTZ ? q->a * w * w : w * w) / (1.0 + g);
        }
        k->c1_f = (float)k->c1;
        k->c2_f = (float)k->c2;
        k->c3_f = (float)k->c3;
        k->a_f = (float)k->a;
        k->b_f = (float)k->b;
    }

    /* D^{n+1} = eps_inf E^{n+1} + sum P^{n+1}, with the Debye P^{n+1}
     * implicit in E^{n+1}: the bracket of E^{n+1} is
     *     eps_inf + sum_Debye b + sigma'. */
    const double bracket = m->eps_inf + sum_b + c->sigma_p;
    if (!(bracket > 0.0))
        return seterr(err, errlen, "material %s: eps_inf + sum of the Debye b + sigma' = %g, "
                      "need > 0", m->name, bracket);
    c->rdenom = 1.0 / bracket;

    c->sigma_p_f = (float)c->sigma_p;
    c->ca_f = (float)c->ca;
    c->cb_f = (float)c->cb;
    c->ch_f = (float)c->ch;
    c->rdenom_f = (float)c->rdenom;
    return 0;
}
