#!/bin/bash
# bench/monitor_cost.sh - what a [monitor.far] contour (3 frequencies) costs
# the 2D GPU engines: build/bench/monitor_bench (see its header) for cuda
# (float and double), gl-compute and gl.  Run on the GPU machine; never a
# test.
#
#   bench/monitor_cost.sh [N]            default N = 16384
#
# Environment: STEPS (default 200) for cuda and gl-compute, GL_STEPS (20)
# for gl (fragment passes run at about 5 Gcells/s: 54 ms a step at 16384^2),
# REPEATS (5), WARMUP (20), ENGINES (default "cuda gl-compute gl"),
# CASE_TIMEOUT (seconds per run, 300).  The binary is built here unless
# MONITOR_BENCH names a prebuilt one (the GPU machine has no compiler for
# the GL code: build it with `make build/bench/monitor_bench` and carry it,
# as bench/device.sh does).
set -u
cd "$(dirname "$0")/.."
BENCH=${MONITOR_BENCH:-build/bench/monitor_bench}
N=${1:-16384}
STEPS=${STEPS:-200}
GL_STEPS=${GL_STEPS:-20}
REPEATS=${REPEATS:-5}
WARMUP=${WARMUP:-20}
CASE_TIMEOUT=${CASE_TIMEOUT:-300}
if [ -z "${MONITOR_BENCH:-}" ]; then
    make --no-print-directory build/bench/monitor_bench >&2 || exit 1
fi

echo "# bench/monitor_cost.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) n $N steps $STEPS (gl $GL_STEPS) repeats $REPEATS warmup $WARMUP"
status=0
run() { # ENGINE PRECISION STEPS
    timeout "$CASE_TIMEOUT" "$BENCH" --engine "$1" --precision "$2" --repeats "$REPEATS" \
        --warmup "$WARMUP" "$N" "$3" || { echo "# $1 $2: failed or refused (status $?)"; status=1; }
}
for e in ${ENGINES:-cuda gl-compute gl}; do
    case $e in
    cuda) run cuda single "$STEPS"; run cuda double "$STEPS" ;;
    gl) run gl single "$GL_STEPS" ;;
    *) run "$e" single "$STEPS" ;;
    esac
done
exit $status
