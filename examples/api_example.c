/* api_example.c - the C API of libtexfdtd (docs/api.md) in a few lines: run a
 * scene on the cpu engine and print its echo width at a few angles and the
 * power it absorbs.  Build it against the installed library:
 *
 *     cc -o api_example examples/api_example.c $(pkg-config --cflags --libs texfdtd)
 *     ./api_example scenes/lossy_cylinder.ini
 */
#include <texfdtd.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "scenes/lossy_cylinder.ini";
    const char *sets[] = {"output.png=false"}; /* any section.key=value */
    char err[512];
    tf_scene *scene = NULL;
    tf_sim *sim = NULL;
    double *sigma = NULL;

    printf("libtexfdtd %s\n", tf_version_string());
    if (tf_scene_load(path, sets, 1, &scene, err, sizeof err)
        || tf_sim_create(scene, "cpu", "single", -1, 0, &sim, err, sizeof err)
        || tf_sim_run(sim, err, sizeof err))
        goto fail;
    char line[1024];
    if (tf_sim_describe(sim, line, sizeof line, err, sizeof err))
        goto fail;
    printf("%s\n", line);

    int nfar = 0, nflux = 0;
    if (tf_sim_monitors(sim, &nfar, &nflux, NULL, NULL, err, sizeof err))
        goto fail;
    if (nfar > 0) {
        /* sigma_2D / lambda at 8 angles, for each far-field frequency */
        const int nang = 8;
        sigma = malloc((size_t)nfar * nang * sizeof *sigma);
        if (!sigma || tf_sim_far2d(sim, nang, sigma, (size_t)nfar * nang, err, sizeof err))
            goto fail;
        for (int a = 0; a < nang; a++)
            printf("phi %5.1f deg: echo width %.6f wavelengths\n", 360.0 * a / nang, sigma[a]);
    }
    for (int i = 0; i < nflux; i++) {
        char name[64];
        double hz, scat, tot;
        int nf;
        if (tf_sim_flux_info(sim, i, name, sizeof name, &nf, err, sizeof err) || nf < 1)
            goto fail;
        if (nf == 1 && tf_sim_flux(sim, i, &hz, &scat, &tot, 1, err, sizeof err))
            goto fail;
        if (nf == 1) /* the total power flows in: -tot is what the object absorbs */
            printf("flux %s at %g Hz: scattered %.6g m, absorbed %.6g m (over the incident "
                   "intensity)\n", name, hz, scat, -tot);
    }
    free(sigma);
    tf_sim_destroy(sim);
    tf_scene_free(scene);
    return 0;
fail:
    fprintf(stderr, "api_example: %s\n", err);
    free(sigma);
    tf_sim_destroy(sim);
    tf_scene_free(scene);
    return 1;
}
