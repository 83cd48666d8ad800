#!/bin/bash
# bench/scene_scale.sh - how long a scene of many objects takes to load and
# paint (issue 13, item 5): a photonic crystal of ROWS x ROWS dielectric rods
# (default 316 x 316 = 99 856 circles, radius 3, pitch 10 cells) on a grid of
# (10 ROWS + 40)^2 cells (3200^2), CPML, written by this script, then
#
#   texfdtd run SCENE --dry-run --engine cpu   (parse, check, build the model)
#
# timed with /usr/bin/time (wall clock, one core: OMP_NUM_THREADS=1), REPEATS
# times (default 3), and the model line of the log (objects, materials, the
# painting's own seconds).  Options through the environment: ROWS, REPEATS,
# SUBPIXEL (true | false, default true: the rods are smoothed), MATERIAL
# (dielectric | pec, default dielectric), CONFORMAL (true: PEC rods with the
# conformal boundary), JITTER (1: each centre moved by a random fraction of a
# cell, so no two rods sample alike), TEXFDTD (default bin/texfdtd).
#
#   bench/scene_scale.sh [OUTDIR]      (default /tmp/scene_scale)
set -euo pipefail
ROWS=${ROWS:-316}
REPEATS=${REPEATS:-3}
SUBPIXEL=${SUBPIXEL:-true}
MATERIAL=${MATERIAL:-dielectric}
CONFORMAL=${CONFORMAL:-false}
JITTER=${JITTER:-0}
TEXFDTD=${TEXFDTD:-bin/texfdtd}
OUT=${1:-/tmp/scene_scale}
mkdir -p "$OUT"
N=$((10 * ROWS + 40))
SCENE="$OUT/crystal_${ROWS}.ini"
{
    echo "[grid]"
    echo "nx = $N"
    echo "ny = $N"
    echo "steps = 100"
    echo "subpixel = $SUBPIXEL"
    [ "$CONFORMAL" = true ] && echo "conformal_pec = true"
    echo "[source]"
    echo "type = plane_wave"
    echo "[boundary]"
    echo "type = cpml"
    awk -v rows="$ROWS" -v mat="$MATERIAL" -v jitter="$JITTER" 'BEGIN {
        srand(1)
        for (j = 0; j < rows; j++)
            for (i = 0; i < rows; i++) {
                printf "[object.rod_%d_%d]\nshape = circle\nmaterial = %s\n", i, j, mat
                if (mat == "dielectric") printf "eps_r = 9\n"
                printf "center_x = %.6f\ncenter_y = %.6f\nradius = 3\n", 25 + 10 * i + jitter * rand(),
                       25 + 10 * j + jitter * rand()
            }
    }'
} > "$SCENE"
echo "scene: $SCENE ($((ROWS * ROWS)) rods, ${N}^2 cells, $(wc -c < "$SCENE") bytes)"
for r in $(seq "$REPEATS"); do
    OMP_NUM_THREADS=1 /usr/bin/time -f "repeat $r: %e s wall, %U s user, %S s sys, %M KiB max resident" \
        "$TEXFDTD" run "$SCENE" --dry-run --engine cpu --out "$OUT/run" 2>&1 | grep -E "repeat|model:"
done
