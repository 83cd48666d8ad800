#!/bin/bash
# scenes/photonic_crystal_png.sh - makes scenes/photonic_crystal.png, the
# drawing that scenes/photonic_crystal_png.ini paints from, with texfdtd
# itself: a scene of the same grid holds the 11 x 11 rods (eps_r 8.9, radius
# 2 cells, pitch 10) without the middle row as circles, subpixel smoothing
# off (a pixel is a cell), and `texfdtd run --geometry` writes its material
# map.  The legend gives vacuum #ffffff and the one dielectric #285ae6 (the
# blue end of the ramp), the colours photonic_crystal_png.ini maps.
#
#   scenes/photonic_crystal_png.sh [TEXFDTD]     (default bin/texfdtd)
set -euo pipefail
TEXFDTD=${1:-bin/texfdtd}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
    printf '[grid]\nnx = 160\nny = 160\nsteps = 1\nsubpixel = false\n'
    printf '[boundary]\ntype = cpml\ncells = 10\n'
    for j in $(seq 0 10); do
        [ "$j" = 5 ] && continue # the line defect: a waveguide along x
        for i in $(seq 0 10); do
            printf '[object.rod_%d_%d]\nshape = circle\nmaterial = dielectric\neps_r = 8.9\n' "$i" "$j"
            printf 'center_x = %d\ncenter_y = %d\nradius = 2\n' $((30 + 10 * i)) $((30 + 10 * j))
        done
    done
} > "$tmp/rods.ini"
"$TEXFDTD" run "$tmp/rods.ini" --geometry --engine cpu --out "$tmp/out" -q
grep -q '^1,#285ae6,dielectric,8.9000000000000004,' "$tmp/out/material_legend.csv" \
    || { echo "unexpected legend:"; cat "$tmp/out/material_legend.csv"; exit 1; }
cp "$tmp/out/material.png" "$here/photonic_crystal.png"
echo "wrote $here/photonic_crystal.png ($(stat -c %s "$here/photonic_crystal.png") bytes)"
