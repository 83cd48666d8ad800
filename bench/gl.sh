#!/bin/bash
# bench/gl.sh - timings of the GL engines (issue 3, item 6).  Run on the GPU
# machine (bench/device.sh calls it there); never a test.
#
#   bench/gl.sh [SIZES]      default SIZES: 1024 4096 8192 16384
#
# Each case: the takada-like scene (PEC square of 32 cells, S = 0.5) at N x N,
# random-valued fields (a timing never runs on zeros), STEPS (1000) steps
# timed with a GL_TIME_ELAPSED query after a warm-up of STEPS/10, median of
# the repeats.  Variants:
#   gl-kK        fragment passes, K steps per pass (K = 1: two passes a step)
#   gl-compute   one fused compute dispatch a step
#   gl-compute-2 two compute dispatches a step
# K = 2..4 are timed at the two smallest sizes; the best of them is carried
# to the larger sizes.  Also the device-to-device copy bandwidth
# (glCopyBufferSubData of 1 GiB, bytes read + written) and the render-target
# write rate of a write-only fragment pass: the two ceilings.
#
# The benchmark binary is built here from build/libtexfdtd.a (make first); on
# a machine without GL headers set GL_BENCH to a prebuilt one.
set -u
cd "$(dirname "$0")/.."
BENCH=${GL_BENCH:-build/bench/gl_bench}
STEPS=${GL_BENCH_STEPS:-1000}
CASE_TIMEOUT=${GL_BENCH_CASE_TIMEOUT:-100}
SIZES=${*:-1024 4096 8192 16384}
if [ -z "${GL_BENCH:-}" ]; then
    mkdir -p build/bench
    cc -O3 -g -std=c11 -Wall -Wextra -ffp-contract=off -fno-fast-math -fopenmp -I. \
        $(pkg-config --cflags egl glew opengl) -o "$BENCH" bench/gl_bench.c build/libtexfdtd.a \
        $(pkg-config --libs inih hdf5-serial libpng egl glew opengl) -lm -fopenmp || exit 1
fi

LOG=$(mktemp)
# case VARIANT N REPS
case_() {
    local v=$1 n=$2 reps=$3 k=1 fused=1 eng=gl
    case $v in
    gl-k*) k=${v#gl-k} ;;
    gl-compute) eng=gl-compute ;;
    gl-compute-2) eng=gl-compute fused=0 ;;
    esac
    env TEXFDTD_GL_STEPS_PER_PASS=$k TEXFDTD_GL_FUSED=$fused timeout "$CASE_TIMEOUT" \
        "$BENCH" speed "$eng" "$n" "$STEPS" "$reps" | sed "s/^speed engine [^ ]*/speed engine $v/" |
        tee -a "$LOG"
}

echo "# bench/gl.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) steps $STEPS sizes $SIZES"
"$BENCH" copy 1024 10
"$BENCH" write 8192 5
best=1
for n in $SIZES; do
    small=0
    case $n in 256 | 512 | 1024 | 2048 | 4096) small=1 ;; esac
    reps=3
    [ "$n" -ge 8192 ] && reps=1
    [ "$n" -le 1024 ] && reps=5
    case_ gl-k1 "$n" "$reps"
    if [ $small = 1 ]; then
        for k in 2 3 4; do case_ gl-k$k "$n" $((reps > 3 ? 3 : 1)); done
        # the fastest K at this size (gcells_per_s is field 17)
        best=$(awk -v n="$n" '$1 == "speed" && $5 == n && $3 ~ /^gl-k/ {
                   if ($17 > b) { b = $17; k = substr($3, 5) } } END { print k + 0 }' "$LOG")
    elif [ "$best" -gt 1 ]; then
        case_ gl-k$best "$n" 1
    fi
    case_ gl-compute "$n" "$reps"
    case_ gl-compute-2 "$n" "$reps"
done
rm -f "$LOG"
