#!/bin/bash
# bench/sweep_scale.sh - `texfdtd sweep` as an MPI task farm on one GPU and on
# two (docs/sweeps.md): a 64-run sweep of a 2D scene (source.angle 0, 5.625,
# ... 354.375 on a PEC cylinder with a far-field monitor) with --engine cuda:
# first run 7 alone with `texfdtd run` (its "times:" line says where a run's
# time goes), then the sweep once under `mpirun -np 2` (rank 0 hands out, one
# worker: one GPU) and once under `mpirun -np 3` (two workers, GPUs 0 and 1),
# into fresh directories.  Prints both wall times and their ratio (the goal:
# at most 0.55), checks that the two summaries agree and that run 7's
# fields.h5 in each sweep is bit-identical to the run alone (h5same: every
# dataset), and exits 0 only if all of that holds.  Both under --bind-to
# none: Open MPI binds each rank to one core when there are at most 2 ranks
# and to a socket beyond, which would give the one-worker case one core for
# its host work and the other many.
#
# On the 2-GPU machine through bench/device_mpi.sh (which brings OpenMPI and
# the prebuilt binaries there): `bench/device_mpi.sh pack` here, then
#   run(command="SWEEP=1 SKIP='cli tests cuda scaling' BUDGET=590 bench/device_mpi.sh",
#       kind="nvidia-h100-x2", carry=[".mpi", ".devmpi"])
# (its sweep.txt is this script's output).  Or by hand, anywhere mpirun works:
#   BIN=build-devmpi/bin/texfdtd H5SAME=build-devmpi/bench/h5same bench/sweep_scale.sh
# Environment:
#   BIN      the texfdtd to run (default bin/texfdtd; built with MPI and CUDA)
#   H5SAME   bench/h5same (default: next to BIN's folder's bench/, then build/bench/h5same)
#   MPIRUN   mpirun (default: mpirun on PATH)
#   ENGINE   default cuda (cpu for a try on a machine without GPUs)
#   NX       grid edge (default 2048: a run of 1.7e11 cell updates, about 1 to 3 s
#            on an H100; the fixed cost (mpirun, checks, summary) is a few s)
#   STEPS    time steps a run (default 40000)
#   RUNS     number of angles (default 64)
#   WORK     where the sweeps go (default a fresh folder under ${TMPDIR:-/tmp})
#   OUT      if set, timings.txt and the summaries are copied there
set -u -o pipefail
BIN=${BIN:-bin/texfdtd}
MPIRUN=${MPIRUN:-mpirun}
ENGINE=${ENGINE:-cuda}
NX=${NX:-2048}
STEPS=${STEPS:-40000}
RUNS=${RUNS:-64}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/sweep-scale-XXXXXX")}
if [ -z "${H5SAME:-}" ]; then
    for c in "$(dirname "$BIN")/../bench/h5same" build/bench/h5same; do
        [ -x "$c" ] && H5SAME=$c && break
    done
fi
[ -x "$BIN" ] || { echo "sweep_scale: no texfdtd at BIN=$BIN" >&2; exit 2; }
[ -n "${H5SAME:-}" ] && [ -x "$H5SAME" ] || { echo "sweep_scale: no h5same (set H5SAME)" >&2; exit 2; }
command -v "$MPIRUN" >/dev/null || { echo "sweep_scale: no $MPIRUN (set MPIRUN)" >&2; exit 2; }
ROOT=; [ "$(id -u)" = 0 ] && ROOT=--allow-run-as-root

mkdir -p "$WORK"
SCENE=$WORK/cylinder.ini
R=$((NX / 20))
C=$(awk "BEGIN { print ($NX - 1) / 2 }")
cat >"$SCENE" <<EOF
; bench/sweep_scale.sh: a PEC cylinder of radius $R cells in a ${NX}^2 grid
[grid]
nx = $NX
ny = $NX
steps = $STEPS
courant = 0.5
cells_per_wavelength = 20
[source]
type = plane_wave
angle = 0
waveform = modulated_gaussian
[boundary]
type = cpml
cells = 10
[object.cylinder]
shape = circle
material = pec
center_x = $C
center_y = $C
radius = $R
[monitor.far]
angles = 360
[output]
png = false
EOF
STEP=$(awk "BEGIN { printf \"%.10g\", 360 / $RUNS }")
LAST=$(awk "BEGIN { printf \"%.10g\", 360 - 360 / $RUNS }")
ARGS=(sweep "$SCENE" --vary "source.angle=0:$STEP:$LAST" --engine "$ENGINE"
      --results far.backscatter,far.forward,steps,seconds,wall)

echo "sweep_scale: $RUNS runs of ${NX}^2 x $STEPS steps, engine $ENGINE, in $WORK"
command -v nvidia-smi >/dev/null && nvidia-smi -L
t_of() { # ranks dir: runs the sweep, prints its wall seconds
    local t0 t1
    t0=$(date +%s.%N)
    "$MPIRUN" $ROOT --oversubscribe --bind-to none -np "$1" "$BIN" "${ARGS[@]}" --out "$2" >"$2.log" 2>&1 ||
        { echo "sweep_scale: mpirun -np $1 failed (exit $?): see $2.log" >&2; tail -5 "$2.log" >&2; exit 1; }
    t1=$(date +%s.%N)
    awk "BEGIN { printf \"%.2f\", $t1 - $t0 }"
}
# run 7 alone first (the same angle as the sweeps' run-0007): where a run's
# time goes (its "times:" line), and the fields every sweep's run 7 must equal
PICK_I=$((RUNS > 7 ? 7 : RUNS - 1))
PICK=$(printf "run-%04d" $PICK_I)
A7=$(awk "BEGIN { printf \"%.10g\", $PICK_I * 360 / $RUNS }")
t0=$(date +%s.%N)
"$BIN" run "$SCENE" --engine "$ENGINE" --set "source.angle=$A7" --out "$WORK/alone" >"$WORK/alone.log" 2>&1 ||
    { echo "sweep_scale: the run alone failed (exit $?)" >&2; tail -5 "$WORK/alone.log" >&2; exit 1; }
t1=$(date +%s.%N)
echo "run alone (angle $A7): wall $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s; $(grep -h 'times:' "$WORK/alone.log" | sed 's/^texfdtd: //')"
# where a run's time goes beside the sweep (DIAG=0 leaves it out): the same
# run without its far-field monitor, and two runs at once, one on each GPU
# (as the two workers run), each with the node's OpenMP threads and then
# with half of them
if [ "${DIAG:-1}" = 1 ]; then
    sed '/^\[monitor.far\]/,/^angles/d' "$SCENE" >"$WORK/nofar.ini"
    "$BIN" run "$WORK/nofar.ini" --engine "$ENGINE" --set "source.angle=$A7" --out "$WORK/nofar" >"$WORK/nofar.log" 2>&1
    echo "run alone, no far-field monitor: $(grep -h 'times:' "$WORK/nofar.log" | sed 's/^texfdtd: //')"
    NP=$(nproc)
    for th in "$NP" $((NP / 2)); do
        for g in 0 1; do
            OMP_NUM_THREADS=$th "$BIN" run "$SCENE" --engine "$ENGINE" --device $g --set "source.angle=$A7" \
                --out "$WORK/pair$th-$g" >"$WORK/pair$th-$g.log" 2>&1 &
        done
        wait
        for g in 0 1; do
            echo "two at once, $th threads each, GPU $g: $(grep -h 'times:' "$WORK/pair$th-$g.log" | sed 's/^texfdtd: //')"
        done
    done
fi
T1=$(t_of 2 "$WORK/one") || exit 1
echo "1 worker  (mpirun -np 2): $T1 s"
T2=$(t_of 3 "$WORK/two") || exit 1
echo "2 workers (mpirun -np 3): $T2 s"
RATIO=$(awk "BEGIN { printf \"%.3f\", $T2 / $T1 }")
echo "ratio 2 workers / 1 worker: $RATIO (goal <= 0.55)"
grep -h "runs on CUDA device" "$WORK/one.log" "$WORK/two.log"
for d in one two; do # the runs' own wall time and stepping time, means over the runs
    awk -F, -v d=$d 'FNR > 1 { w += $9; s += $8; n++ } END { if (n) printf "%s: mean run wall %.3f s, stepping %.3f s, over %d runs\n", d, w / n, s / n, n }' "$WORK/$d/summary.csv"
done

ok=0
if ! awk -F, 'FNR > 1 && $4 != "ok" { bad = 1 } END { exit bad }' "$WORK/one/summary.csv" "$WORK/two/summary.csv"; then
    echo "FAIL: a run did not finish (summary.csv status)"; ok=1
fi
# the results but wall time and stepping seconds (columns far.backscatter, far.forward, steps)
if ! diff <(cut -d, -f1-7 "$WORK/one/summary.csv") <(cut -d, -f1-7 "$WORK/two/summary.csv") >/dev/null; then
    echo "FAIL: the two sweeps' summaries differ"; ok=1
fi
for d in one two; do
    if "$H5SAME" "$WORK/alone/fields.h5" "$WORK/$d/$PICK/fields.h5" >"$WORK/h5same-$d.txt"; then
        echo "$d/$PICK fields.h5: bit-identical to the run alone ($(tail -1 "$WORK/h5same-$d.txt"))"
    else
        echo "FAIL: $d/$PICK fields.h5 differs from the run alone:"; cat "$WORK/h5same-$d.txt"; ok=1
    fi
done
if awk "BEGIN { exit !($RATIO > 0.55) }"; then
    echo "FAIL: ratio $RATIO above 0.55"; ok=1
fi
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    { echo "runs $RUNS nx $NX steps $STEPS engine $ENGINE"; echo "one $T1"; echo "two $T2"; echo "ratio $RATIO"; } >"$OUT/timings.txt"
    cp "$WORK/one/summary.csv" "$OUT/summary-one.csv"
    cp "$WORK/two/summary.csv" "$OUT/summary-two.csv"
fi
[ $ok = 0 ] && echo "sweep_scale: PASS" || echo "sweep_scale: FAIL"
exit $ok
