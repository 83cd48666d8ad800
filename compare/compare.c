/* compare.c - placeholder until the compare command lands. */
#include "compare.h"
#include "core/util.h"

#include <stdio.h>

int compare_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "texfdtd: compare is not implemented yet\n");
    return EXIT_RUNTIME;
}
