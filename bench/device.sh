#!/bin/bash
# bench/device.sh - everything the GL engines need from one call on the GPU
# machine (the `run` tool of this workplace), results under $OUT:
#   device.txt   nvidia-smi, date, `texfdtd devices`
#   tests.txt    every Criterion suite with TEXFDTD_REQUIRE_GPU=1 (make test-gpu)
#   verify.txt   scenes/takada_square.ini (1024^2 x 1000 steps) and a 4096^2 x 2000
#                run: every gl / gl-compute variant vs the cpu engine, bits
#   bench.txt    bench/gl.sh
#   run.txt      texfdtd run scenes/takada_square.ini --engine gl / gl-compute
# The machine has no compiler for GL code and no GL headers: binaries are built
# here (Debian 12, older glibc) into .devbuild/ and carried, with the shared
# libraries Ubuntu 24.04 lacks in .devbuild/lib (on LD_LIBRARY_PATH, never
# unpacked into /) and the glvnd loader .debs in .gl (unpacked into /).
#
# Prepared here, from the repository root (.gl and .devbuild are listed in
# .git/info/exclude; the run tool's `carry` takes both, 64 MiB in all):
#   o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#   mkdir -p .gl /tmp/amd64/partial; apt-get $o update
#   (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
#   make bin/texfdtd build/bench/gl_bench build/tests/test_gl   # and any other suites
#   mkdir -p .devbuild/bin .devbuild/tests .devbuild/lib
#   cp bin/texfdtd build/bench/gl_bench .devbuild/bin; cp build/tests/test_gl .devbuild/tests
#   strip --strip-debug .devbuild/bin/* .devbuild/tests/*
#   ldd .devbuild/bin/* .devbuild/tests/* | awk '$3 ~ /^\// {print $3}' | sort -u |
#     grep -vE '/(libc|libm|libresolv|libpthread|libdl|librt|ld-linux|libEGL|libGL|libGLX|libGLdispatch|libOpenGL|libstdc\+\+|libgcc_s)\.so' |
#     xargs -I{} cp -L {} .devbuild/lib/
# Environment: DEVICE_TESTS (glob of suites, default test_*), DEVICE_VERIFY=short,
# BENCH_SIZES, BENCH_TIMEOUT (seconds for bench/gl.sh).
set -u
OUT=${OUT:-/tmp/texfdtd-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export LD_LIBRARY_PATH=$PWD/.devbuild/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=.devbuild
mkdir -p bin && cp $B/bin/texfdtd bin/ # test_cli and test_compare run ./bin/texfdtd
{ date -u; uname -a; nvidia-smi; } >"$OUT/device.txt" 2>&1
$B/bin/texfdtd devices >/tmp/devices.txt 2>&1
cat /tmp/devices.txt >>"$OUT/device.txt"
if ! grep -qi nvidia /tmp/devices.txt; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
    echo "== with __EGL_VENDOR_LIBRARY_FILENAMES=$__EGL_VENDOR_LIBRARY_FILENAMES" >>"$OUT/device.txt"
    $B/bin/texfdtd devices >>"$OUT/device.txt" 2>&1
fi
tail -4 "$OUT/device.txt"

# bit-identity at the size first (fast, and the point of the project):
# takada-like 1024^2 x 1000 steps and a long 4096^2 x 2000 run of adaptive
# fenced batches, every GL variant against the CPU engine in its denormal mode
# DEVICE_VERIFY=short: the default variants on takada_square only
VARIANTS="1 1|2 1|1 0"
[ "${DEVICE_VERIFY:-full}" = short ] && VARIANTS="2 1"
IFS='|'
for v in $VARIANTS; do
    unset IFS
    set -- $v
    TEXFDTD_GL_STEPS_PER_PASS=$1 TEXFDTD_GL_FUSED=$2 timeout 90 \
        $B/bin/gl_bench verify scenes/takada_square.ini 1000 | sed "s/^verify/verify k=$1 fused=$2/" |
        tee -a "$OUT/verify.txt"
done
unset IFS
[ "${DEVICE_VERIFY:-full}" = short ] ||
TEXFDTD_GL_STEPS_PER_PASS=2 timeout 150 $B/bin/gl_bench verify scenes/takada_square.ini 2000 \
    grid.nx=4096 grid.ny=4096 object.square.center_x=600 object.square.center_y=2048 \
    source.front_offset=0 output.snapshots=1000 | sed "s/^verify/verify long k=2 fused=1/" |
    tee -a "$OUT/verify.txt"

for t in $B/tests/${DEVICE_TESTS:-test_*}; do
    case $t in *.d) continue ;; esac
    echo "== $t" >>"$OUT/tests.txt"
    TEXFDTD_REQUIRE_GPU=1 timeout 240 "$t" --jobs 1 --verbose >>"$OUT/tests.txt" 2>&1
    echo "$t rc=$?" | tee -a "$OUT/tests.txt"
done
grep -E '^\[(FAIL|====)' "$OUT/tests.txt"

for e in gl gl-compute; do
    timeout 60 $B/bin/texfdtd run scenes/takada_square.ini --engine "$e" --out "/tmp/run-$e" --force \
        >>"$OUT/run.txt" 2>&1
    echo "run $e rc=$?" | tee -a "$OUT/run.txt"
done
cp /tmp/run-gl/ez_total_000900.png "$OUT/" 2>/dev/null
GL_BENCH=$B/bin/gl_bench timeout ${BENCH_TIMEOUT:-400} bench/gl.sh ${BENCH_SIZES:-} | tee "$OUT/bench.txt"
