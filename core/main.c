#include "core/cli.h"
#include "core/decomp.h"

#include <stdio.h>

/* MPI starts (under mpirun only) before anything else and ends last:
 * core/decomp.h. */
int main(int argc, char **argv)
{
    char err[512];
    if (decomp_init(&argc, &argv, err, sizeof err)) {
        fprintf(stderr, "texfdtd: %s\n", err);
        decomp_finalize(1);
        return 1;
    }
    const int rc = cli_main(argc, argv);
    decomp_finalize(rc);
    return rc;
}
