#!/bin/sh
# bench/device_pack.sh - pack the binaries bench/device_run.sh carries to the GPU
# machine into .devbuild/bins.tar.xz (stripped, compressed: the carry limit is
# 64 MiB).
#
# The binaries are built for the device in build-dev/ without MPI (its image
# has no OpenMPI): make BUILD=build-dev BIN=build-dev/bin MPI=0 ...
#
# BASE=COMMIT instead packs the texfdtd, gl_bench and cuda_bench of that
# commit, with its shaders, into .devbuild/base.tar.xz (built in a temporary
# git worktree), for `bench/device_run.sh sidebyside`.
set -eu
cd "$(dirname "$0")/.."
if [ -n "${BASE:-}" ]; then
    wt=$(mktemp -d)
    git worktree add -q --detach "$wt" "$BASE"
    (cd "$wt" && make --no-print-directory -j2 BUILD=build-dev BIN=build-dev/bin MPI=0 \
        build-dev/bin/texfdtd build-dev/bench/gl_bench build-dev/bench/cuda_bench >/dev/null)
    tmp=$(mktemp -d)
    cp "$wt"/build-dev/bin/texfdtd "$wt"/build-dev/bench/gl_bench "$wt"/build-dev/bench/cuda_bench "$tmp"/
    strip --strip-debug "$tmp"/*
    cp -r "$wt"/shaders "$tmp"/
    for h in yee.h incident.h; do [ ! -f "$wt/core/$h" ] || cp "$wt/core/$h" "$tmp"/shaders/; done
    git -C "$wt" rev-parse --short=12 HEAD >"$tmp"/COMMIT
    mkdir -p .devbuild
    tar -cJf .devbuild/base.tar.xz -C "$tmp" .
    rm -rf "$tmp"
    git worktree remove --force "$wt"
    ls -la .devbuild/base.tar.xz
    exit 0
fi
D=${BUILD:-build-dev}
make --no-print-directory BUILD=$D BIN=$D/bin MPI=0 $D/bin/texfdtd $D/bench/gl_bench \
    $D/bench/monitor_bench $D/bench/material_bench \
    $(ls tests/test_*.c | sed "s|tests/|$D/tests/|; s|\.c\$||") >/dev/null
[ -z "$(command -v nvcc || true)" ] || make --no-print-directory BUILD=$D BIN=$D/bin MPI=0 $D/bench/cuda_bench >/dev/null
tmp=$(mktemp -d)
cp $D/bin/texfdtd $D/bench/gl_bench $D/bench/monitor_bench $D/bench/material_bench "$tmp"/
[ -x $D/bench/cuda_bench ] && cp $D/bench/cuda_bench "$tmp"/
for t in $D/tests/test_*; do
    case $t in *.d) ;; *) cp "$t" "$tmp"/ ;; esac
done
strip --strip-debug "$tmp"/*
cp -r shaders "$tmp"/
for h in core/yee.h core/incident.h; do [ ! -f "$h" ] || cp "$h" "$tmp"/shaders/; done
git rev-parse --short=12 HEAD >"$tmp"/COMMIT
mkdir -p .devbuild
tar -cJf .devbuild/bins.tar.xz -C "$tmp" .
rm -rf "$tmp"
ls -la .devbuild/bins.tar.xz
