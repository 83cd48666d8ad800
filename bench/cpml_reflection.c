/* cpml_reflection.c - CPML and Mur reflection in dB against a larger grid
 * (method in bench/reflection.h).  Not a test: prints a table for
 * docs/accuracy.md.  Usage: build/bench/cpml_reflection [kappa_max alpha_max sigma_factor] */
#include "bench/reflection.h"

int main(int argc, char **argv)
{
    char extra[256] = "";
    if (argc == 4)
        snprintf(extra, sizeof extra, "kappa_max = %s\nalpha_max = %s\nsigma_factor = %s\n",
                 argv[1], argv[2], argv[3]);
    printf("| boundary | cells | reflection (dB) |\n|---|---|---|\n");
    char err[ERRLEN];
    const int cells[] = {5, 10, 20};
    for (int k = 0; k < 3; k++) {
        struct reflection_setup r = {.n = 120, .gap = 10, .radius = 4, .steps = 500, .pad = 160,
                                     .boundary = "cpml", .cells = cells[k], .angle = 0,
                                     .extra = extra};
        double db = reflection_db(&r, err, sizeof err);
        if (db > 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        printf("| cpml | %d | %.1f |\n", cells[k], db);
        fflush(stdout);
    }
    struct reflection_setup r = {.n = 120, .gap = 10, .radius = 4, .steps = 500, .pad = 160,
                                 .boundary = "mur", .angle = 0};
    double db = reflection_db(&r, err, sizeof err);
    if (db > 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("| mur (1st order) | - | %.1f |\n", db);
    return 0;
}
