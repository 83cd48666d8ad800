/* slab3d.c - see slab3d.h. */
#include "slab3d.h"

void slab3d_mur_planes(struct mur_plane p[MUR_PLANES], int nx, int ny, int nz, int px, int k0,
                       int k1, int kb)
{
    const long long s[3] = {1, px, (long long)px * ny};
    const int n[3] = {nx, ny, nz};
    int q = 0;
    for (int axis = 0; axis < 3; axis++)
        for (int comp = 0; comp < 3; comp++) {
            if (comp == axis)
                continue;
            const int a = (axis + 1) % 3, b = (axis + 2) % 3; /* the other two axes */
            for (int side = 0; side < 2; side++, q++) {
                struct mur_plane *m = &p[q];
                m->comp = comp;
                m->inward = side == 0 ? 1 : -1;
                m->base = side == 0 ? 0 : (long long)(n[axis] - 1) * s[axis];
                m->step = s[axis];
                m->sa = s[a];
                m->sb = s[b];
                /* interior range: the component's own axis runs 0 .. n-2, the others 1 .. n-2 */
                m->a0 = a == comp ? 0 : 1;
                m->a1 = n[a] - 2;
                m->b0 = b == comp ? 0 : 1;
                m->b1 = n[b] - 2;
                const int wall = side == 0 ? 0 : nz - 1;
                if (axis == 2 && (wall < k0 || wall >= k1))
                    m->a1 = m->a0 - 1; /* not ours: empty */
                if (a == 2) {
                    m->a0 = m->a0 > k0 ? m->a0 : k0;
                    m->a1 = m->a1 < k1 - 1 ? m->a1 : k1 - 1;
                }
                if (b == 2) {
                    m->b0 = m->b0 > k0 ? m->b0 : k0;
                    m->b1 = m->b1 < k1 - 1 ? m->b1 : k1 - 1;
                }
                m->base -= (long long)kb * s[2];
            }
        }
}

size_t slab3d_mur_cells(const struct mur_plane *p)
{
    return p->a1 >= p->a0 && p->b1 >= p->b0
               ? (size_t)(p->a1 - p->a0 + 1) * (size_t)(p->b1 - p->b0 + 1)
               : 0;
}

int slab3d_cpml_z_sides(int nz, int N, int k0, int k1, int *first)
{
    const int low = k0 <= N - 1, high = k1 - 1 >= nz - 1 - N && k0 <= nz - 2;
    *first = low ? 0 : 1;
    return low + high;
}
