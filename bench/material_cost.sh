#!/bin/bash
# bench/material_cost.sh - what an object of a dielectric, a lossy
# dielectric and a Drude metal covering 5 % of the grid costs the 2D GPU
# engines against vacuum (issue 13, item 7): build/bench/material_bench (see
# its header) for cuda (float and double), gl-compute and gl.  Run on the
# GPU machine; never a test.
#
#   bench/material_cost.sh [N]           default N = 16384
#
# Environment: STEPS (default 100) for cuda and gl-compute, GL_STEPS (10)
# for gl, REPEATS (3), WARMUP (10), COVER (0.05), ENGINES (default "cuda
# gl-compute gl"), CASE_TIMEOUT (seconds per run, 300), GL_HOST_VALUES (1:
# the GL engines also with TEXFDTD_GL_VALUES=host, the slot values from the
# host as before they moved onto the GPU; default 1).  MATERIAL_BENCH
# names a prebuilt binary (bench/device_run.sh materials); otherwise it is
# built here.
set -u
cd "$(dirname "$0")/.."
BENCH=${MATERIAL_BENCH:-build/bench/material_bench}
N=${1:-16384}
STEPS=${STEPS:-100}
GL_STEPS=${GL_STEPS:-10}
REPEATS=${REPEATS:-3}
WARMUP=${WARMUP:-10}
COVER=${COVER:-0.05}
CASE_TIMEOUT=${CASE_TIMEOUT:-300}
if [ -z "${MATERIAL_BENCH:-}" ]; then
    make --no-print-directory build/bench/material_bench >&2 || exit 1
fi
echo "# bench/material_cost.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) n $N cover $COVER steps $STEPS (gl $GL_STEPS) repeats $REPEATS warmup $WARMUP"
status=0
run() { # ENGINE PRECISION STEPS
    timeout "$CASE_TIMEOUT" "$BENCH" --engine "$1" --precision "$2" --repeats "$REPEATS" \
        --warmup "$WARMUP" --cover "$COVER" "$N" "$3" || { echo "# $1 $2: failed (status $?)"; status=1; }
}
for e in ${ENGINES:-cuda gl-compute gl}; do
    case $e in
    cuda) run cuda single "$STEPS"; run cuda double "$STEPS" ;;
    gl) run gl single "$GL_STEPS" ;;
    *) run "$e" single "$STEPS" ;;
    esac
    case $e in
    gl | gl-compute)
        if [ "${GL_HOST_VALUES:-1}" = 1 ]; then
            echo "# $e with TEXFDTD_GL_VALUES=host"
            TEXFDTD_GL_VALUES=host run "$e" single "$([ "$e" = gl ] && echo "$GL_STEPS" || echo "$STEPS")"
        fi ;;
    esac
done
exit $status
