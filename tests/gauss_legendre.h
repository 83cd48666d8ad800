/* gauss_legendre.h - Gauss-Legendre nodes and weights for the exact-solution
 * suites (header-only). */
#ifndef TEXFDTD_TEST_GAUSS_LEGENDRE_H
#define TEXFDTD_TEST_GAUSS_LEGENDRE_H

#include <math.h>

/* n nodes x and weights w on [-1, 1]: Newton on P_n from the usual guess
 * cos(pi (i + 3/4) / (n + 1/2)), P_n by its three-term recurrence. */
static inline void gauss_legendre(int n, double *x, double *w)
{
    for (int i = 0; i < n; i++) {
        double z = cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 0.0;
        for (int it = 0; it < 100; it++) {
            double p0 = 1.0, p1 = z;
            for (int k = 2; k <= n; k++) {
                const double p2 = ((2.0 * k - 1.0) * z * p1 - (k - 1.0) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            dp = n * (z * p1 - p0) / (z * z - 1.0);
            const double dz = p1 / dp;
            z -= dz;
            if (fabs(dz) < 1e-16)
                break;
        }
        x[i] = z;
        w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
}

#endif
