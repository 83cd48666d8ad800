/* metrics.c - field differences and phasor errors; definitions in metrics.h. */
#include "metrics.h"

#include <math.h>
#include <string.h>

/* Map a float's bits onto integers that are ordered like the values:
 * -0 and +0 both map to 0, adjacent floats to adjacent integers. */
static int64_t ordered_bits(float x)
{
    int32_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? -(int64_t)(i & 0x7fffffff) : (int64_t)i;
}

uint64_t ulp_distance(float a, float b)
{
    if (isnan(a) || isnan(b)) {
        uint32_t ia, ib;
        memcpy(&ia, &a, 4);
        memcpy(&ib, &b, 4);
        return ia == ib ? 0 : ULP_NAN;
    }
    const int64_t d = ordered_bits(a) - ordered_bits(b);
    return (uint64_t)(d < 0 ? -d : d);
}

static double value(const void *p, enum precision prec, size_t k)
{
    return prec == PRECISION_DOUBLE ? ((const double *)p)[k] : (double)((const float *)p)[k];
}

void field_metrics(const void *a, enum precision pa, const void *b, enum precision pb, size_t n,
                   struct field_metrics *out)
{
    const bool both_double = pa == PRECISION_DOUBLE && pb == PRECISION_DOUBLE;
    double max_abs = 0, diff2 = 0, ref2 = 0;
    uint64_t max_ulp = 0;
    size_t max_ulp_cell = 0, same = 0;
    for (size_t k = 0; k < n; k++) {
        const double x = value(a, pa, k), y = value(b, pb, k);
        const double d = x - y;
        const double ad = fabs(d);
        if (ad > max_abs || (isnan(ad) && !isnan(max_abs)))
            max_abs = ad;
        diff2 += d * d;
        ref2 += y * y;
        const float xf = (float)x, yf = (float)y;
        const uint64_t u = ulp_distance(xf, yf);
        if (u > max_ulp) {
            max_ulp = u;
            max_ulp_cell = k;
        }
        if (both_double)
            same += memcmp((const double *)a + k, (const double *)b + k, sizeof(double)) == 0;
        else
            same += memcmp(&xf, &yf, sizeof xf) == 0;
    }
    out->max_abs = max_abs;
    out->rel_l2 = ref2 > 0 ? sqrt(diff2) / sqrt(ref2) : (diff2 == 0 ? 0.0 : INFINITY);
    if (isnan(diff2))
        out->rel_l2 = NAN;
    out->max_ulp = max_ulp;
    out->max_ulp_cell = max_ulp_cell;
    out->identical_fraction = n ? (double)same / (double)n : 1.0;
}

int phasor_errors(const double complex *F, const double complex *G, size_t n,
                  struct phasor_errors *out)
{
    memset(out, 0, sizeof *out);
    out->cells = n;
    double g2 = 0, d2 = 0, m2 = 0;
    double complex gf = 0;
    for (size_t k = 0; k < n; k++) {
        const double complex d = F[k] - G[k];
        const double dm = cabs(F[k]) - cabs(G[k]);
        g2 += creal(G[k]) * creal(G[k]) + cimag(G[k]) * cimag(G[k]);
        d2 += creal(d) * creal(d) + cimag(d) * cimag(d);
        m2 += dm * dm;
        gf += conj(G[k]) * F[k];
    }
    if (n == 0 || !(g2 > 0))
        return -1;
    const double complex alpha = gf / g2;
    double s2 = 0;
    for (size_t k = 0; k < n; k++) {
        const double complex d = F[k] - alpha * G[k];
        s2 += creal(d) * creal(d) + cimag(d) * cimag(d);
    }
    const double a2 = creal(alpha) * creal(alpha) + cimag(alpha) * cimag(alpha);
    out->rel_complex = sqrt(d2 / g2);
    out->rel_magnitude = sqrt(m2 / g2);
    out->factor = alpha;
    out->rel_shape = a2 > 0 ? sqrt(s2 / (a2 * g2)) : INFINITY;
    return 0;
}
