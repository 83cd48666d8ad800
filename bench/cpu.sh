#!/bin/sh
# bench/cpu.sh - time the CPU engine on the takada_square problem at 256^2 ..
# 2048^2 x 1000 steps, on 1 thread and on all cores, and Meep beside it.
# Not a test: it prints a Markdown table (also written to bench/results/cpu.md)
# for docs/performance.md.
#
# Each figure is the median of REPEATS runs after one warm-up run; a run's time
# is the engine's stepping time from summary.json (no output writing in it).
# Usage: bench/cpu.sh [SIZES]     e.g. bench/cpu.sh "256 1024"
# DIM=3: the 3D engine (cpu/update3d.inc) on the CPML cube
# (scenes/cube_cpml.ini: a 10-cell CPML on all six faces, a point source),
# N^3 cells, STEPS default 100, no paper or Meep column:
#   DIM=3 bench/cpu.sh "128"
# BIN=/path/to/texfdtd times another build (before/after a change).
set -eu
cd "$(dirname "$0")/.."
DIM=${DIM:-2}
if [ "$DIM" = 3 ]; then
    SIZES=${1:-"128"}
    STEPS=${STEPS:-100}
else
    SIZES=${1:-"256 512 1024 2048"}
    STEPS=${STEPS:-1000}
fi
REPEATS=${REPEATS:-3}
BIN=${BIN:-bin/texfdtd}
NCORES=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$BIN" ] || make -s all

# The paper's CPU figures (Pentium 4 3.4 GHz, gcc -O3, ms per 1000 steps).
paper_ms() { case $1 in 256) echo 2138;; 512) echo 14020;; 1024) echo 70230;; *) echo "";; esac; }

# run SIZE THREADS -> Mcells/s of one run
run() {
    n=$1; th=$2; c=$(awk "BEGIN{print $n/2-0.5}")
    if [ "$DIM" = 3 ]; then
        "$BIN" run scenes/cube_cpml.ini --engine cpu --threads "$th" --steps "$STEPS" -q \
            --set grid.nx="$n" --set grid.ny="$n" --set grid.nz="$n" --set source.center_x=$((n / 2)) \
            --set source.center_y=$((n / 2)) --set source.center_z=$((n / 2)) \
            --set output.snapshots= --set output.png=false --out "$tmp/r" --force
    else
        "$BIN" run scenes/takada_square.ini --engine cpu --threads "$th" --steps "$STEPS" -q \
            --set grid.nx="$n" --set grid.ny="$n" --set object.square.center_x="$c" \
            --set object.square.center_y="$c" --set source.front_offset="$(awk "BEGIN{print $n/4}")" \
            --set output.snapshots= --set output.png=false --out "$tmp/r" --force
    fi
    sed -n 's/.*"mcells_per_s": \([0-9.]*\).*/\1/p' "$tmp/r/summary.json"
}

median() { sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
[ "$DIM" = 3 ] && what="3D engine, cube_cpml" || what="engine, takada_square"
echo "# CPU $what, $STEPS steps, single precision, denormals flush"
echo "# $(date -u +%Y-%m-%d) on $cpu ($NCORES cores), $(cc --version | head -1)"
echo "# command: DIM=$DIM bench/cpu.sh \"$SIZES\"   (median of $REPEATS after a warm-up)"
echo
echo "| grid | 1 thread Mcells/s | $NCORES threads Mcells/s | paper P4 Mcells/s |"
echo "|---|---|---|---|"
for n in $SIZES; do
    r1=""; rN=""
    for th in 1 "$NCORES"; do
        run "$n" "$th" >/dev/null
        m=$(for k in $(seq "$REPEATS"); do run "$n" "$th"; done | median)
        [ "$th" = 1 ] && r1=$m || rN=$m
    done
    p=$([ "$DIM" = 3 ] || paper_ms "$n")
    pm=$([ -n "$p" ] && awk "BEGIN{printf \"%.1f\", $n*$n*$STEPS/($p/1000)/1e6}" || echo "-")
    echo "| ${n}$([ "$DIM" = 3 ] && echo ³ || echo ²) | $r1 | $rN | $pm |"
done

[ "$DIM" = 3 ] && exit 0
if /usr/bin/python3 -c 'import meep' >/dev/null 2>&1; then
    echo
    echo "Meep, the same problem (bench/peers/meep_takada.py):"
    for n in $SIZES; do
        [ "$n" -le 1024 ] || continue
        /usr/bin/python3 bench/peers/meep_takada.py --n "$n" --steps "$STEPS" 2>/dev/null | grep '^| Meep'
    done
else
    echo
    echo "(Meep not installed: apt-get install python3-meep python3-matplotlib to time the peer)"
fi
