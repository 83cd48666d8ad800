#!/bin/sh
# bench/device_pack.sh - pack the binaries bench/device_run.sh carries to the GPU
# machine into .devbuild/bins.tar.xz (stripped, compressed: the carry limit is
# 64 MiB).
#
# The binaries are built for the device in build-dev/ without MPI (its image
# has no OpenMPI): make BUILD=build-dev BIN=build-dev/bin MPI=0 ...
set -eu
cd "$(dirname "$0")/.."
D=${BUILD:-build-dev}
make --no-print-directory BUILD=$D BIN=$D/bin MPI=0 $D/bin/texfdtd $D/bench/gl_bench \
    $D/bench/monitor_bench \
    $(ls tests/test_*.c | sed "s|tests/|$D/tests/|; s|\.c\$||") >/dev/null
[ -z "$(command -v nvcc || true)" ] || make --no-print-directory BUILD=$D BIN=$D/bin MPI=0 $D/bench/cuda_bench >/dev/null
tmp=$(mktemp -d)
cp $D/bin/texfdtd $D/bench/gl_bench $D/bench/monitor_bench "$tmp"/
[ -x $D/bench/cuda_bench ] && cp $D/bench/cuda_bench "$tmp"/
for t in $D/tests/test_*; do
    case $t in *.d) ;; *) cp "$t" "$tmp"/ ;; esac
done
strip --strip-debug "$tmp"/*
mkdir -p .devbuild
tar -cJf .devbuild/bins.tar.xz -C "$tmp" .
rm -rf "$tmp"
ls -la .devbuild/bins.tar.xz
