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
# K in GL_BENCH_KS (default 1 2; the engine takes 1 .. 8, see
# docs/gl.md).  gl-compute is also timed with the work-group shapes in
# GL_BENCH_LOCALS at 4096 and 8192 (gl-compute@WxH, TEXFDTD_GL_LOCAL).  Also the device-to-device copy bandwidth
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
    make --no-print-directory build/bench/gl_bench >&2 || exit 1
fi

LOG=$(mktemp)
# case VARIANT N REPS
case_() {
    local v=$1 n=$2 reps=$3 k=1 fused=1 eng=gl local=16x16
    case $v in
    gl-k*) k=${v#gl-k} ;;
    gl-compute@*) eng=gl-compute local=${v#gl-compute@} ;;
    gl-compute) eng=gl-compute ;;
    gl-compute-2) eng=gl-compute fused=0 ;;
    esac
    env TEXFDTD_GL_STEPS_PER_PASS=$k TEXFDTD_GL_FUSED=$fused TEXFDTD_GL_LOCAL=$local \
        timeout "$CASE_TIMEOUT" \
        "$BENCH" speed "$eng" "$n" "$STEPS" "$reps" | sed "s/^speed engine [^ ]*/speed engine $v/" |
        tee -a "$LOG"
}

echo "# bench/gl.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) steps $STEPS sizes $SIZES"
"$BENCH" copy 1024 10
"$BENCH" write 8192 5
KS=${GL_BENCH_KS:-1 2}
LOCALS=${GL_BENCH_LOCALS:-32x8 64x4}
for n in $SIZES; do
    reps=3
    [ "$n" -ge 8192 ] && reps=1
    [ "$n" -le 1024 ] && reps=5
    for k in $KS; do case_ gl-k$k "$n" "$reps"; done
    case_ gl-compute "$n" "$reps"
    if [ "$n" -ge 4096 ] && [ "$n" -le 8192 ]; then
        for l in $LOCALS; do case_ gl-compute@$l "$n" "$reps"; done
    fi
    case_ gl-compute-2 "$n" "$reps"
done
rm -f "$LOG"
