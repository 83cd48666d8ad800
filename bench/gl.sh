#!/bin/bash
# bench/gl.sh - timings of the GL engines (issue 3, item 6).  Run on the GPU
# machine (bench/device.sh calls it there); never a test.
#
#   bench/gl.sh [SIZES]      default SIZES: 1024 4096 8192 16384
#
# Each case: the takada-like scene (PEC square of 32 cells, S = 0.5) at N x N,
# random-valued fields (a timing never runs on zeros), 1000 steps timed with a
# GL_TIME_ELAPSED query after a warm-up of 100 steps, median of the repeats.
# Also: device-to-device copy bandwidth (glCopyBufferSubData of 1 GiB, bytes
# read + written) and the render-target write rate of a write-only fragment
# pass, the two ceilings the engines are compared with.
#
# The benchmark binary is built here from build/libtexfdtd.a (make first); on
# a machine without GL headers set GL_BENCH to a prebuilt one.
set -u
cd "$(dirname "$0")/.."
BENCH=${GL_BENCH:-build/bench/gl_bench}
STEPS=${GL_BENCH_STEPS:-1000}
SIZES=${*:-1024 4096 8192 16384}
if [ -z "${GL_BENCH:-}" ]; then
    mkdir -p build/bench
    cc -O3 -g -std=c11 -Wall -Wextra -ffp-contract=off -fno-fast-math -fopenmp -I. \
        $(pkg-config --cflags egl glew opengl) -o "$BENCH" bench/gl_bench.c build/libtexfdtd.a \
        $(pkg-config --libs inih hdf5-serial libpng egl glew opengl) -lm -fopenmp || exit 1
fi

# repeats: fewer where one run is long (fragment passes at 16384^2 ~ 1 min)
reps() {
    case "$1:$2" in
    gl*:1024) echo 5 ;;
    gl:4096 | gl-compute*:8192 | gl-compute*:16384 | gl-compute*:4096) echo 3 ;;
    gl:8192) echo 2 ;;
    *) echo 1 ;;
    esac
}

echo "# bench/gl.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) steps $STEPS sizes $SIZES"
"$BENCH" copy 1024 10
"$BENCH" write 8192 5
for n in $SIZES; do
    for v in gl gl-compute gl-compute-2; do
        case $v in
        gl-compute-2) env TEXFDTD_GL_FUSED=0 "$BENCH" speed gl-compute "$n" "$STEPS" "$(reps $v "$n")" |
            sed 's/engine gl-compute/engine gl-compute(2-dispatch)/' ;;
        *) "$BENCH" speed "$v" "$n" "$STEPS" "$(reps $v "$n")" ;;
        esac
    done
done
