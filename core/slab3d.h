/* slab3d.h - what a 3D engine's z slab holds besides its fields, worked out
 * once for the cpu and cuda engines: the Mur wall planes cut to the slab's
 * planes, and the z CPML sides the slab reaches.  One process: the slab is
 * every plane (k0 = kb = 0, k1 = nz). */
#ifndef TEXFDTD_SLAB3D_H
#define TEXFDTD_SLAB3D_H

#include <stddef.h>

/* One Mur wall of one E component: cell (a, b) of the wall, a0 <= a <= a1,
 * b0 <= b <= b1 (the component's interior update range on the two other
 * axes), is at array index base + a*sa + b*sb, its inward neighbour at
 * +step (inward > 0) or -step.  Empty (a1 < a0) where the wall is not the
 * slab's.  Indices are those of the engine's local arrays: rows of px
 * values, local plane 0 = global plane kb. */
struct mur_plane {
    int comp; /* 0 Ex, 1 Ey, 2 Ez */
    int inward;
    int a0, a1, b0, b1;
    long long base, sa, sb, step;
};
enum { MUR_PLANES = 12 };

/* The 12 walls: x faces Ey, Ez; y faces Ex, Ez; z faces Ex, Ey; cut to the
 * planes k0 <= k < k1 (a z face only on the slab that holds it). */
void slab3d_mur_planes(struct mur_plane p[MUR_PLANES], int nx, int ny, int nz, int px, int k0,
                       int k1, int kb);
/* Cells of a wall (0 when empty). */
size_t slab3d_mur_cells(const struct mur_plane *p);

/* The z CPML sides the planes k0 <= k < k1 reach, N cells thick on an nz
 * grid (H positions 0 .. N-1 and nz-1-N .. nz-2 hold every E position too):
 * the count (0, 1 or 2) and *first, the lower one (0 bottom, 1 top). */
int slab3d_cpml_z_sides(int nz, int N, int k0, int k1, int *first);

#endif
