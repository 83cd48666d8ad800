#!/bin/sh
# bench/device_pack.sh - pack the binaries bench/device_run.sh carries to the GPU
# machine into .devbuild/bins.tar.xz (stripped, compressed: the carry limit is
# 64 MiB).
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
cp bin/texfdtd build/bench/gl_bench "$tmp"/
[ -x build/bench/cuda_bench ] && cp build/bench/cuda_bench "$tmp"/
for t in build/tests/test_*; do
    case $t in *.d) ;; *) cp "$t" "$tmp"/ ;; esac
done
strip --strip-debug "$tmp"/*
mkdir -p .devbuild
tar -cJf .devbuild/bins.tar.xz -C "$tmp" .
rm -rf "$tmp"
ls -la .devbuild/bins.tar.xz
