#!/bin/bash
# bench/cuda.sh - on the GPU machine: the CUDA tests (GPU required), then the
# benchmarks of issue 5 item 7 (build/bench/cuda_bench), with the device,
# driver and date.  Results go to $OUT (or out/bench-cuda).
#
# TESTS overrides the test binaries run (default test_cuda and test_3d);
# QUICK=quick shortens the bench.  Build everything first on the build machine:
#   make all build/tests/test_cuda build/tests/test_3d build/bench/cuda_bench
# Libraries missing on the device: unpack the carried .debs into /tmp/deb
# (dpkg -x, never into /) and put /tmp/deb/usr/lib/x86_64-linux-gnu on
# LD_LIBRARY_PATH (DEBDIR=.cudadeb by default).
set -u -o pipefail
OUT=${OUT:-out/bench-cuda}
mkdir -p "$OUT"
DEBDIR=${DEBDIR:-.cudadeb}
if [ -d "$DEBDIR" ]; then
    mkdir -p /tmp/deb
    for f in "$DEBDIR"/*.deb; do dpkg -x "$f" /tmp/deb; done
    export LD_LIBRARY_PATH=/tmp/deb/usr/lib/x86_64-linux-gnu:/tmp/deb/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
{
    date -u +"date %Y-%m-%dT%H:%M:%SZ"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
} 2>&1 | tee "$OUT/device.txt"
echo "== tests (TEXFDTD_REQUIRE_GPU=1)"
status=0
for t in ${TESTS:-build/tests/test_cuda build/tests/test_3d}; do
    TEXFDTD_REQUIRE_GPU=1 $t --jobs 1 --verbose >"$OUT/$(basename $t).txt" 2>&1 || status=1
    grep -E 'PASS|FAIL|SKIP|Synthesis|Assert|rel L2|dB|refusal' "$OUT/$(basename $t).txt" | grep -v ' 0 cells differ' | head -60
done
echo "== bench"
build/bench/cuda_bench "$OUT" ${QUICK:-} 2>&1 | tee "$OUT/bench.txt"
echo "== CLI: texfdtd run scenes/cube_cpml.ini --engine cuda"
./bin/texfdtd run scenes/cube_cpml.ini --engine cuda --out /tmp/cube --force 2>&1 | tail -4 | tee "$OUT/cli.txt"
exit $status
