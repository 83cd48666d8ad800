/* metrics.h - how two fields, or a computed and an exact phasor, differ.
 *
 * Field against reference (texfdtd compare), over all nx*ny cells, a the
 * engine's field and b the reference's, each float or double:
 *   max_abs            max |a - b|, in double
 *   rel_l2             ||a - b||_2 / ||b||_2 in double; 0 when both norms are
 *                      0, +inf when only ||b|| is 0
 *   max_ulp            max over cells of the distance in float32 units in the
 *                      last place between a and b, each rounded to float first
 *                      (a double reference is compared as the float nearest
 *                      to it): the number of floats between them, +0 and -0
 *                      at distance 0, adjacent floats at 1.  A NaN against
 *                      anything else counts as ULP_NAN.
 *   identical_fraction the fraction of cells whose values have the same bits,
 *                      in float32 when either side is float, else in double.
 *
 * Computed phasor F against exact G over a set of cells (texfdtd compare
 * --analytic), sums in double:
 *   rel_complex        ||F - G|| / ||G||
 *   rel_magnitude      || |F| - |G| || / ||G||
 *   factor             alpha = sum conj(G) F / sum |G|^2, the single complex
 *                      number that best maps G onto F (least squares)
 *   rel_shape          ||F - alpha G|| / ||alpha G||: what is left once a
 *                      global gain |alpha| and phase arg(alpha) are removed.
 */
#ifndef TEXFDTD_METRICS_H
#define TEXFDTD_METRICS_H

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/engine.h"

#define ULP_NAN ((uint64_t)1 << 32)

uint64_t ulp_distance(float a, float b);

struct field_metrics {
    double max_abs, rel_l2, identical_fraction;
    uint64_t max_ulp;
    size_t max_ulp_cell; /* where max_ulp occurs (first such cell) */
};

/* a has precision pa, b precision pb, n elements each. */
void field_metrics(const void *a, enum precision pa, const void *b, enum precision pb, size_t n,
                   struct field_metrics *out);

struct phasor_errors {
    size_t cells;
    double rel_complex, rel_magnitude, rel_shape;
    double complex factor;
};

/* F and G: n values each.  Returns -1 when n is 0 or ||G|| is 0. */
int phasor_errors(const double complex *F, const double complex *G, size_t n,
                  struct phasor_errors *out);

#endif
