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
#include <stdint.h>

#define SCENE_MAX_SNAPSHOTS 256
#define SCENE_NAME_MAX 64
#define SCENE_MAX_FREQS 64

/* A frequency list of a monitor: values in units of the source frequency
 * ([source] frequency_hz, i.e. cells_per_wavelength / value cells per
 * wavelength), in the order given, and the step after which sampling starts. */
struct scene_freqs {
    int n;
    double f[SCENE_MAX_FREQS];
    int start_step; /* samples steps start_step+1 .. steps */
};

/* [monitor.far]: the near-to-far-field transform.  The closed contour (2D)
 * or box (3D) has its faces on the H nodes half a cell beyond the cells
 * lo[a] .. hi[a]: faces at x = lo[0] - 1/2 and x = hi[0] + 1/2, and so on
 * (core/monitor.h). */
struct scene_far {
    bool on;
    struct scene_freqs fr;
    int angles;         /* 2D: angles over [0, 360); 3D: points of each cut */
    int theta_points;   /* 3D grid: theta over [0, 180] */
    int phi_points;     /* 3D grid: phi over [0, 360) */
    int distance;       /* cells between the objects' bounding box and the contour; -1: default */
    int lo[3], hi[3];   /* the contour's cells (resolved when the scene loads) */
};

/* [monitor.flux.NAME]: Poynting flux through a closed rectangle (box) or
 * an open segment (line); faces and lines lie on H nodes, as for the far
 * field: a box of cells lo .. hi has its sides at lo - 1/2 and hi + 1/2; a
 * line at x = x0 + 1/2 (x0 = x1) or y = y0 + 1/2 (y0 = y1) runs over the
 * cells of the other axis from its 0 to its 1 coordinate. */
enum flux_kind { FLUX_BOX, FLUX_LINE_X, FLUX_LINE_Y }; /* line normal +x / +y */
struct scene_flux {
    char name[SCENE_NAME_MAX];
    enum flux_kind kind;
    int x0, y0, x1, y1;
    struct scene_freqs fr;
};

/* [probe.NAME]: the time series of some fields at one cell.  The field bits
 * are the values of core/engine.h's enum field (checked there). */
enum { FIELD_EZ_BIT = 0, FIELD_HX_BIT = 1, FIELD_HY_BIT = 2, FIELD_EX_BIT = 5, FIELD_EY_BIT = 6,
       FIELD_HZ_BIT = 7 };
struct scene_probe {
    char name[SCENE_NAME_MAX];
    int i, j, k;
    unsigned fields; /* bit (1 << enum field) for each field recorded, in enum order */
    bool total;      /* add the incident field (known exactly, on the host) */
    int every;       /* record every K steps */
};

/* 2D, 2D, 3D, 3D; a polygon is 2D, or in 3D a prism along z; an ellipse is 2D */
enum shape { SHAPE_RECTANGLE, SHAPE_CIRCLE, SHAPE_BOX, SHAPE_SPHERE, SHAPE_POLYGON, SHAPE_ELLIPSE };
enum material_kind { MATERIAL_VACUUM = 0, MATERIAL_PEC, MATERIAL_DIELECTRIC };
enum boundary_type { BOUNDARY_PEC, BOUNDARY_CPML, BOUNDARY_MUR };
enum source_type { SOURCE_PLANE_WAVE, SOURCE_POINT };
/* sine: a ramped continuous wave at the source frequency f0; the others are
 * pulses for broadband runs (core/model.h gives each formula). */
enum waveform { WAVEFORM_SINE, WAVEFORM_GAUSSIAN, WAVEFORM_MODULATED_GAUSSIAN, WAVEFORM_RICKER };
enum pml_strategy { PML_COMBINED, PML_REGIONS, PML_PER_FACE }; /* the CPML paper's A1, A2, A3 */

/* [material.NAME]: a material that objects (and maps) name.  Poles in the
 * exp(+i omega t) convention, eps(omega) = eps_inf + sum of the poles
 * + sigma / (i omega eps0):
 *   Debye:   delta_eps / (1 + i omega tau)                        a = delta_eps, b = tau (s)
 *   Lorentz: delta_eps w0^2 / (w0^2 - omega^2 + i gamma omega)    a, b = w0, c = gamma (rad/s)
 *   Drude:   -wp^2 / (omega^2 - i gamma omega)                    b = wp, c = gamma (rad/s) */
#define SCENE_MAX_POLES 8
enum pole_kind { POLE_DEBYE, POLE_LORENTZ, POLE_DRUDE };
struct scene_pole {
    enum pole_kind kind;
    double a, b, c;
};
struct scene_material {
    char name[SCENE_NAME_MAX];
    double eps_inf; /* eps_r: relative permittivity at infinite frequency, >= 1 */
    double mu_r;    /* relative permeability */
    double sigma;   /* electric conductivity, S/m */
    bool is_pec;
    int npoles;
    struct scene_pole poles[SCENE_MAX_POLES];
    bool used;      /* an object or a map refers to it */
    /* where each property the engines do not take yet was set: "file:line"
     * or "--set material.NAME.key" (empty where it was not) */
    char where_sigma[160], where_mu[160], where_poles[160];
};

struct scene_object {
    char name[SCENE_NAME_MAX];
    enum shape shape;
    enum material_kind material; /* PEC or DIELECTRIC (VACUUM: material = vacuum) */
    int table;                 /* index into scene.materials, -1 for pec | dielectric | vacuum */
    int order;                 /* paint order among objects and maps (file order) */
    double eps_r;              /* relative permittivity (dielectric only) */
    double center_x, center_y, center_z; /* cell indices, may be fractional */
    double width, height, depth;         /* rectangle / box extents (x, y, z) in cells */
    double radius;                       /* circle / sphere radius in cells */
    double radius_x, radius_y;           /* ellipse semi-axes along its own x and y, cells */
    /* rotation about z, counter-clockwise, about (center_x, center_y): a
     * rectangle, box or ellipse turns its own axes; a polygon's vertices are
     * stored already turned.  rot_cos, rot_sin are exact at multiples of 90. */
    double rotation_deg, rot_cos, rot_sin;
    bool rotated;                        /* rotation_deg is not a multiple of 360 */
    /* polygon: nvertices points (x, y) in cells, vertices[2k], vertices[2k+1];
     * (center_x, center_y) is their mean, the centre of rotation */
    int nvertices;
    double *vertices;
};

/* The object's extent (cells): lo[a] <= every point inside <= hi[a] on the
 * axes x, y, z (z: 0 .. 0 in 2D).  Exact for unrotated shapes. */
void scene_object_bounds(const struct scene_object *o, bool d3, double lo[3], double hi[3]);

/* [map.NAME]: a material per cell from a file.  Element [k][j][i] of cell
 * (x0 + i, y0 + j, z0 + k), x fastest, j upward: a PNG's top row is its
 * highest j (as the field pictures texfdtd writes); an HDF5 dataset
 * [ny][nx] or [nz][ny][nx] (C order, as h5py / numpy write it) has row 0 at
 * y0.  In 3D a 2D map is extruded over cells k0 .. k1.  Each distinct
 * colour or (eps_r, sigma) value is one entry of values[]. */
#define SCENE_MAP_MAX_VALUES 255
enum map_kind { MAP_PNG, MAP_HDF5 };
struct scene_map_value {
    enum material_kind kind; /* VACUUM, PEC or DIELECTRIC */
    int table;               /* scene.materials index, or -1 */
    double eps_r, sigma;     /* sigma S/m: HDF5 maps only */
    uint32_t rgb;            /* PNG: 0xrrggbb */
};
struct scene_map {
    char name[SCENE_NAME_MAX];
    enum map_kind kind;
    int order;
    int x0, y0, z0;
    int nx, ny, nz;       /* extent in cells; nz = 1: a 2D map */
    int k0, k1;           /* 3D scene and a 2D map: the z cells it fills */
    int nvalues;
    struct scene_map_value values[SCENE_MAP_MAX_VALUES];
    uint8_t *cell;        /* [nz][ny][nx] index into values */
    char where_sigma[160]; /* HDF5: where a sigma != 0 came from (model_check_materials) */
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
    bool subpixel;               /* 2D: dielectric cells on an interface take the mean eps */
    bool dispersion_correction;  /* lossless dielectrics take the eps' that cancels the grid's
                                    dispersion contrast at f0 (material_dispersion_eps) */
    bool te;                     /* 2D [grid] polarization = te: the arrays ez, hx, hy hold
                                    eta0 Hz, -Ex, -Ey (docs/materials-design.md section 1) */
    bool te_conductor_edges;     /* TE: an E edge touching a cell of a material with a Drude
                                    pole takes that material whole (core/model.h hmat);
                                    false: the mean of its two cells */
    bool te_offdiagonal;         /* TE with subpixel: the smoothed edges also take the
                                    off-diagonal (eps^-1)_xy of the anisotropic average
                                    (core/model.h hoff); false: the diagonal only */

    /* [source] */
    enum source_type source_type;
    double angle_deg;    /* propagation direction, from +x toward +y */
    double amplitude;    /* E0 in V/m */
    double ramp_periods; /* linear ramp-up over this many periods */
    double frequency_hz; /* sets the physical dx and dt only */
    /* type = point: a soft z-directed source Ez += f(n) at one cell */
    double point_x, point_y, point_z;
    enum waveform waveform;
    double pulse_width;  /* point source, gaussian: exp(-((n - 4 w) / w)^2), w in steps */
    double bandwidth;    /* plane-wave pulses: see core/model.h; units of the source frequency */
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

    /* [material.NAME] in file order */
    struct scene_material *materials;
    int nmaterials;

    /* [object.NAME] and [map.NAME] in file order; later objects and maps
     * paint over earlier ones (each has its place in `order`) */
    struct scene_object *objects;
    int nobjects;
    struct scene_map *maps;
    int nmaps;

    /* [monitor.dft]: a running DFT of Ez at the source frequency */
    bool dft;
    int dft_start; /* samples Ez^n for n = dft_start+1 .. steps */
    int dft_nfreq; /* frequencies (units of f0), default one: 1 */
    double dft_freq[SCENE_MAX_FREQS];

    /* [monitor.far], [monitor.flux.NAME] (in file order), [probe.NAME] */
    struct scene_far far;
    struct scene_flux *flux;
    int nflux;
    struct scene_probe *probes;
    int nprobes;

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
/* The whole text of the scene file `path`, NUL-terminated, malloc'ed; *len
 * without the NUL.  NULL with err on failure. */
char *scene_read_file(const char *path, size_t *len, char *err, size_t errlen);

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
