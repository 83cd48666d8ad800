#!/bin/sh
# deps.sh - install the Debian packages texfdtd needs, if any are missing.
# As root it runs apt-get; otherwise it prints the line to run and fails.
# Usage: scripts/deps.sh [--check]   (--check: only report, never install)
set -u
pkgs="gcc make pkg-config libinih-dev libhdf5-dev libpng-dev libglew-dev libegl-dev libgl-dev
      libopengl-dev libegl-mesa0 libgl1-mesa-dri libcriterion-dev gnuplot-nox ffmpeg xvfb xauth clang libclang-rt-14-dev
      libopenmpi-dev openmpi-bin hdf5-tools python3 python3-numpy python3-h5py python3-pytest
      chromium nodejs"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "${1:-}" = "--check" ]; then
    echo "missing Debian packages:$missing"
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "texfdtd needs these Debian packages:$missing" >&2
    echo "run:  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing
