/* scene.h - a scene file (INI, parsed by inih) turned into checked values.
 *
 * Parsing has two phases.  First every `key = value` line is collected with
 * the file and line it came from, and `--set section.key=value` overrides are
 * applied on top.  Then the entries are interpreted and checked; the first bad
 * one gives a single line such as
 *     scenes/x.ini:12: courant = 0.8 is above the 2D stability limit 0.7071
 * Nothing is run or written by the caller when scene_load() fails.
 */
#ifndef TEXFDTD_SCENE_H
#define TEXFDTD_SCENE_H

#include <stdbool.h>
#include <stddef.h>

#define SCENE_MAX_SNAPSHOTS 256
#define SCENE_NAME_MAX 64

enum shape { SHAPE_RECTANGLE, SHAPE_CIRCLE, SHAPE_BOX, SHAPE_SPHERE }; /* 2D, 2D, 3D, 3D */
enum material_kind { MATERIAL_VACUUM = 0, MATERIAL_PEC, MATERIAL_DIELECTRIC };
enum boundary_type { BOUNDARY_PEC, BOUNDARY_CPML, BOUNDARY_MUR };
enum source_type { SOURCE_PLANE_WAVE, SOURCE_POINT };
enum waveform { WAVEFORM_SINE, WAVEFORM_GAUSSIAN };
enum pml_strategy { PML_COMBINED, PML_REGIONS, PML_PER_FACE }; /* the CPML paper's A1, A2, A3 */

struct scene_object {
    char name[SCENE_NAME_MAX];
    enum shape shape;
    enum material_kind material;
    double eps_r;              /* relative permittivity (dielectric only) */
    double center_x, center_y, center_z; /* cell indices, may be fractional */
    double width, height, depth;         /* rectangle / box extents (x, y, z) in cells */
    double radius;                       /* circle / sphere radius in cells */
};

struct scene {
    char path[4096]; /* file it came from */
    char name[SCENE_NAME_MAX]; /* file name without directory and .ini */

    /* [grid]; nz = 1 is a 2D (TMz) scene, nz > 1 a 3D one */
    int nx, ny, nz, steps;
    double courant;              /* S = c dt / dx */
    double cells_per_wavelength; /* N_lambda = lambda / dx */
    bool conformal_pec;          /* 2D: H edges cut by a PEC surface see its true distance */
    double conformal_min;        /* cut closer than this (cells) to a free node: node -> PEC */

    /* [source] */
    enum source_type source_type;
    double angle_deg;    /* propagation direction, from +x toward +y */
    double amplitude;    /* E0 in V/m */
    double ramp_periods; /* linear ramp-up over this many periods */
    double frequency_hz; /* sets the physical dx and dt only */
    /* type = point: a soft z-directed source Ez += f(n) at one cell */
    double point_x, point_y, point_z;
    enum waveform waveform;
    double pulse_width;  /* gaussian: exp(-((n - 4 w) / w)^2), w in steps */
    double front_offset; /* cells along the propagation direction from the
                            entry corner to the ramp front at step 0 */

    /* [boundary] */
    enum boundary_type boundary;
    /* CPML (Roden and Gedney 2000), graded over `cpml_cells` cells next to
     * the outer wall; see core/model.h for the profiles */
    int cpml_cells;
    double cpml_order;        /* m: sigma and kappa grow as depth^m */
    double cpml_sigma_factor; /* sigma_max / sigma_opt, sigma_opt = 0.8 (m+1) / (eta0 dx) */
    double cpml_kappa_max;
    double cpml_alpha_max;    /* alpha dt / eps0 at the inner face, falling linearly to 0 */
    enum pml_strategy cpml_strategy; /* 3D GPU engines: how the psi updates are scheduled */

    /* [object.NAME] in file order; later objects paint over earlier ones */
    struct scene_object *objects;
    int nobjects;

    /* [monitor.dft]: a running DFT of Ez at the source frequency */
    bool dft;
    int dft_start; /* samples Ez^n for n = dft_start+1 .. steps */

    /* [output] */
    int snapshots[SCENE_MAX_SNAPSHOTS];
    int nsnapshots;
    bool png;
};

/* Load `path`, apply `nset` overrides of the form "section.key=value", check
 * everything.  On failure returns -1 with one line in err. */
int scene_load(struct scene *s, const char *path, const char *const *sets, int nset,
               char *err, size_t errlen);
/* The same from text in memory (len bytes, need not end in a NUL), named
 * `name` in messages; used by the fuzz target. */
int scene_load_text(struct scene *s, const char *name, const char *text, size_t len,
                    const char *const *sets, int nset, char *err, size_t errlen);
void scene_free(struct scene *s);

/* omega * dt = 2 pi S / N_lambda (radians per step). */
double scene_omega_dt(const struct scene *s);
/* The stability limits 1/sqrt(2), 1/sqrt(3) of the square and cubic Yee grids. */
#define COURANT_LIMIT_2D 0.70710678118654752440
#define COURANT_LIMIT_3D 0.57735026918962576451
static inline int scene_is_3d(const struct scene *s) { return s->nz > 1; }
/* First and last cell index (per axis) an object may occupy: outside the
 * outer PEC ring, the Mur layer or the CPML slabs. */
int scene_interior_margin(const struct scene *s);

/* Physical cell size and time step in metres and seconds. */
double scene_dx(const struct scene *s);
double scene_dt(const struct scene *s);

#endif
