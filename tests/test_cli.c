/* test_cli.c - the texfdtd command end to end: exit statuses, messages, and
 * the files a run writes (read back with the HDF5 and libpng libraries and
 * checked against an in-process run of the same engine). */
#include "helpers.h"

#include <hdf5.h>
#include <png.h>
#include <sys/stat.h>
#include <sys/wait.h>

static char *temp_dir(void) { return temp_dir_tagged("cli"); }

static const char *small_scene = "[grid]\nnx = 72\nny = 56\nsteps = 120\n"
                                 "[source]\nangle = 20\nfront_offset = 20\n"
                                 "[object.c]\nshape = circle\nmaterial = pec\n"
                                 "center_x = 36\ncenter_y = 28\nradius = 6\n"
                                 "[output]\nsnapshots = 60\npng = true\n";

Test(cli, help_and_version)
{
    char out[16384];
    cr_assert_eq(run_cmd(out, sizeof out, "%s --help", texfdtd_bin()), 0);
    cr_assert(strstr(out, "usage: texfdtd COMMAND"), "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run --help", texfdtd_bin()), 0);
    cr_assert(strstr(out, "--set SECTION.KEY=VAL"), "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out, "%s --version", texfdtd_bin()), 0);
    cr_assert(!strncmp(out, "texfdtd " TEXFDTD_VERSION, strlen("texfdtd " TEXFDTD_VERSION)));
    cr_assert_eq(run_cmd(out, sizeof out, "%s", texfdtd_bin()), 2, "no command is bad input");
    cr_assert_eq(run_cmd(out, sizeof out, "%s frobnicate", texfdtd_bin()), 2);
}

Test(cli, bad_scene_exits_2_and_writes_nothing)
{
    char out[16384];
    char *dir = temp_dir(), sub[512];
    snprintf(sub, sizeof sub, "%s/run", dir);
    char *scene = write_temp_scene("[grid]\nnx = 64\nny = 64\nsteps = 10\ncourant = 0.8\n");
    cr_assert_eq(
        run_cmd(out, sizeof out, "%s run %s --out %s --engine cpu", texfdtd_bin(), scene, sub), 2);
    char want[600];
    snprintf(want, sizeof want, "%s:5: courant = 0.8 is above the 2D stability limit 0.7071\n",
             scene);
    cr_assert_str_eq(out, want);
    cr_assert(!path_exists(sub), "nothing may be written for bad input");
    unlink(scene);
    free(scene);
    rmdir(dir);
    free(dir);
}

Test(cli, bad_options_exit_2)
{
    char out[16384];
    char *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --bogus", texfdtd_bin(), scene), 2);
    cr_assert(strstr(out, "unknown option '--bogus'"), "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --precision half", texfdtd_bin(), scene), 2);
    cr_assert(strstr(out, "--precision takes single or double, not 'half'"), "%s", out);
    cr_assert_eq(
        run_cmd(out, sizeof out, "%s run %s --engine warp --out /tmp/x-nope", texfdtd_bin(), scene),
        2);
    cr_assert(strstr(out, "unknown engine 'warp'"), "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --steps ten", texfdtd_bin(), scene), 2);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run", texfdtd_bin()), 2);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run /nonexistent.ini", texfdtd_bin()), 2);
    cr_assert(strstr(out, "/nonexistent.ini: cannot open scene"), "%s", out);
    unlink(scene);
    free(scene);
}

static void read_dataset(hid_t f, const char *name, float *buf, hsize_t dims[2])
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    cr_assert_geq(d, 0, "dataset %s", name);
    hid_t sp = H5Dget_space(d);
    cr_assert_eq(H5Sget_simple_extent_ndims(sp), 2);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    cr_assert_geq(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
    H5Sclose(sp);
    H5Dclose(d);
}

static long long read_int_attr(hid_t obj, const char *name)
{
    long long v = -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    cr_assert_geq(a, 0, "attribute %s", name);
    H5Aread(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
    return v;
}

static void png_size(const char *path, unsigned *w, unsigned *h)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_init_io(png, f);
    png_read_info(png, info);
    *w = png_get_image_width(png, info);
    *h = png_get_image_height(png, info);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(f);
}

Test(cli, run_writes_fields_pictures_and_summary)
{
    char out[16384], path[1024];
    char *dir = temp_dir();
    char *scene = write_temp_scene(small_scene);
    cr_assert_eq(
        run_cmd(out, sizeof out, "%s run %s --engine cpu --out %s/r", texfdtd_bin(), scene, dir), 0,
        "%s", out);
    cr_assert(!strchr(out, '\r'), "no carriage returns when stderr is not a terminal");

    /* the same run in process, through the engine interface */
    struct test_setup t;
    setup_from_text(&t, small_scene, NULL, 0);
    struct engine_options o = {.precision = PRECISION_SINGLE, .denormals = DENORMALS_FLUSH};
    void *f[3];
    char err[ERRLEN];
    cr_assert_eq(run_engine("cpu", &t.model, &o, 120, f, err, sizeof err), 0);

    snprintf(path, sizeof path, "%s/r/fields.h5", dir);
    hid_t h5 = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert_geq(h5, 0, "open %s", path);
    float *buf = malloc(t.model.ncells * sizeof *buf);
    for (int k = 0; k < 3; k++) {
        hsize_t dims[2];
        read_dataset(h5, field_name(k), buf, dims);
        cr_assert_eq(dims[0], 56, "[ny][nx]");
        cr_assert_eq(dims[1], 72);
        cr_assert_eq(memcmp(buf, f[k], t.model.ncells * 4), 0, "%s differs", field_name(k));
        hid_t d = H5Dopen2(h5, field_name(k), H5P_DEFAULT);
        cr_assert_eq(read_int_attr(d, "step"), 120);
        H5Dclose(d);
    }
    cr_assert_eq(read_int_attr(h5, "nx"), 72);
    hsize_t dims[2];
    read_dataset(h5, "/snapshots/60/ez", buf, dims);
    size_t nz = 0;
    for (size_t c = 0; c < t.model.ncells; c++)
        nz += buf[c] != 0;
    cr_assert_gt(nz, 0, "snapshot at 60 holds the scattered wave");
    H5Fclose(h5);
    free(buf);
    free_fields(f);

    unsigned w, h;
    snprintf(path, sizeof path, "%s/r/ez_total_000060.png", dir);
    png_size(path, &w, &h);
    cr_assert(w == 72 && h == 56, "png %ux%u", w, h);
    snprintf(path, sizeof path, "%s/r/ez_total_000120.png", dir);
    png_size(path, &w, &h);

    snprintf(path, sizeof path, "%s/r/summary.json", dir);
    FILE *sj = fopen(path, "r");
    cr_assert(sj);
    size_t n = fread(out, 1, sizeof out - 1, sj);
    out[n] = 0;
    fclose(sj);
    cr_assert(strstr(out, "\"engine\": \"cpu\""), "%s", out);
    cr_assert(strstr(out, "\"steps\": 120"), "%s", out);
    cr_assert(strstr(out, "\"mcells_per_s\": "), "%s", out);
    snprintf(path, sizeof path, "%s/r/.fields.h5.partial", dir);
    cr_assert(!path_exists(path), "no partial file is left behind");

    /* a second run into the same directory is refused without --force */
    snprintf(path, sizeof path, "%s/r/summary.json", dir);
    struct stat before, after;
    stat(path, &before);
    cr_assert_eq(
        run_cmd(out, sizeof out, "%s run %s --engine cpu --out %s/r", texfdtd_bin(), scene, dir),
        2);
    cr_assert(strstr(out, "exists and is not empty: use --force"), "%s", out);
    stat(path, &after);
    cr_assert_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec, "nothing overwritten");
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --engine cpu --out %s/r --force -q",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);

    cr_assert_eq(run_cmd(out, sizeof out, "rm -rf %s", dir), 0);
    unlink(scene);
    free(scene);
    free(dir);
    setup_free(&t);
}

Test(cli, dry_run_and_progress_lines)
{
    char out[16384];
    char *dir = temp_dir(), sub[512];
    snprintf(sub, sizeof sub, "%s/d", dir);
    char *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --engine cpu --dry-run --out %s",
                         texfdtd_bin(), scene, sub),
                 0);
    cr_assert(strstr(out, "dry run"), "%s", out);
    cr_assert(!path_exists(sub));
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --engine cpu --progress --out %s",
                         texfdtd_bin(), scene, sub),
                 0);
    cr_assert(strstr(out, "step 120/120"), "%s", out);
    cr_assert(!strchr(out, '\r'));
    run_cmd(out, sizeof out, "rm -rf %s", dir);
    unlink(scene);
    free(scene);
    free(dir);
}

Test(cli, info_checks_and_describes_a_scene)
{
    char out[16384];
    char *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out, "%s info %s", texfdtd_bin(), scene), 0, "%s", out);
    cr_assert(strstr(out, "grid        72 x 56 cells, 120 steps"), "%s", out);
    cr_assert(strstr(out, "courant 0.5 (stability limit 0.7071)"), "%s", out);
    cr_assert(strstr(out, "object      c: pec circle at (36, 28)"), "%s", out);
    /* 3 float fields + material byte: 72*56*13 = 52416 bytes */
    cr_assert_eq(run_cmd(out, sizeof out, "%s info %s --json", texfdtd_bin(), scene), 0, "%s", out);
    cr_assert(strstr(out, "\"cpu_single\": 52416"), "%s", out);
    cr_assert(strstr(out, "\"dimensions\": 2,"), "%s", out);
    cr_assert_eq(
        run_cmd(out, sizeof out, "%s info %s --set grid.courant=0.9", texfdtd_bin(), scene), 2);
    cr_assert(strstr(out, "courant = 0.9 is above the 2D stability limit 0.7071"), "%s", out);
    unlink(scene);
    free(scene);
}

Test(cli, run_json_prints_the_summary)
{
    char out[16384];
    char *dir = temp_dir();
    char *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --engine cpu --json -q --out %s/r",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);
    cr_assert_eq(out[0], '{', "%s", out);
    cr_assert(strstr(out, "\"steps\": 120"), "%s", out);
    run_cmd(out, sizeof out, "rm -rf %s", dir);
    unlink(scene);
    free(scene);
    free(dir);
}

/* --movie: ffmpeg is one of the packages scripts/deps.sh installs, so `make
 * test` has it; elsewhere (the GPU machine) the test is skipped, saying so. */
Test(cli, movie_frames_every_k_steps)
{
    char out[16384];
    if (run_cmd(out, sizeof out, "command -v ffmpeg ffprobe") != 0)
        cr_skip_test("ffmpeg is not installed here (Debian: apt-get install ffmpeg)");
    char *dir = temp_dir();
    char *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out,
                         "%s run %s --engine cpu -q --movie wave.mp4 "
                         "--every 20 --out %s/r",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);
    /* 120 steps, a frame every 20: 6 frames */
    cr_assert_eq(run_cmd(out, sizeof out, "ffprobe -v error -count_frames -select_streams v:0 "
                                          "-show_entries stream=nb_read_frames,width,height "
                                          "-of csv=p=0 %s/r/wave.mp4", dir), 0, "%s", out);
    cr_assert_str_eq(out, "72,56,6\n");
    cr_assert_eq(run_cmd(out, sizeof out,
                         "%s run %s --engine cpu -q --movie wave.gif "
                         "--every 40 --out %s/g",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out, "ffprobe -v error -count_frames -select_streams v:0 "
                                          "-show_entries stream=nb_read_frames -of csv=p=0 "
                                          "%s/g/wave.gif", dir), 0, "%s", out);
    cr_assert_str_eq(out, "3\n");
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --movie ../x.mp4", texfdtd_bin(), scene), 2);
    cr_assert(strstr(out, "give a file name only"), "%s", out);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --movie x.avi", texfdtd_bin(), scene), 2);
    run_cmd(out, sizeof out, "rm -rf %s", dir);
    unlink(scene);
    free(scene);
    free(dir);
}

/* --window: a live view through ffplay, tried on a virtual X display (xvfb,
 * from scripts/deps.sh); refused with a clear message where there is no
 * display. */
Test(cli, live_window)
{
    char out[16384];
    char *dir = temp_dir();
    char *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out, "DISPLAY= WAYLAND_DISPLAY= %s run %s --window --out %s/n",
                         texfdtd_bin(), scene, dir),
                 2);
    cr_assert(strstr(out, "--window needs a display"), "%s", out);
    if (run_cmd(out, sizeof out, "command -v xvfb-run ffplay") != 0)
        cr_skip_test("xvfb-run or ffplay is not installed here (Debian: xvfb, ffmpeg)");
    cr_assert_eq(run_cmd(out, sizeof out,
                         "xvfb-run -a %s run %s --engine cpu --window "
                         "--every 30 --fps 50 --out %s/w",
                         texfdtd_bin(), scene, dir),
                 0, "%s", out);
    cr_assert(strstr(out, "live window: a frame every 30 steps"), "%s", out);
    cr_assert(!strstr(out, "the window was closed"), "%s", out);
    run_cmd(out, sizeof out, "rm -rf %s", dir);
    unlink(scene);
    free(scene);
    free(dir);
}

Test(cli, double_precision_run)
{
    char out[16384];
    char *dir = temp_dir();
    char *scene = write_temp_scene(small_scene);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --precision double --out %s/r", texfdtd_bin(),
                         scene, dir),
                 0, "%s", out);
    cr_assert(strstr(out, "engine cpu"), "double precision runs on the cpu engine: %s", out);
    run_cmd(out, sizeof out, "rm -rf %s", dir);
    unlink(scene);
    free(scene);
    free(dir);
}

/* Without --engine, a scene only the cpu engine runs (a 3D one here: gl
 * runs every 2D scene the cpu engine runs) runs there, with a line saying
 * so; naming another engine still refuses it (exit 2, nothing run).  Where
 * no GL device answers the default is cpu anyway, and the run must still
 * succeed. */
Test(cli, default_engine_gives_way_for_a_cpu_only_scene, .timeout = 120)
{
    char out[16384];
    char *dir = temp_dir();
    char *scene = write_temp_scene("[grid]\nnx = 16\nny = 16\nnz = 16\nsteps = 10\n"
                                   "[source]\ntype = plane_wave\n"
                                   "[object.c]\nshape = sphere\nmaterial = pec\ncenter_x = 8\n"
                                   "center_y = 8\ncenter_z = 8\nradius = 3\n"
                                   "[output]\npng = false\n");
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --out %s/a", texfdtd_bin(), scene, dir), 0,
                 "%s", out);
    char path[1024];
    snprintf(path, sizeof path, "%s/a/summary.json", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    char js[8192] = "";
    fread(js, 1, sizeof js - 1, f);
    fclose(f);
    cr_expect(strstr(js, "\"engine\": \"cpu\"") || strstr(js, "\"engine\":\"cpu\""), "%s", js);
    cr_assert_eq(run_cmd(out, sizeof out, "%s run %s --engine gl --out %s/b", texfdtd_bin(), scene,
                         dir),
                 2, "%s", out);
}
