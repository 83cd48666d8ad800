#!/bin/sh
# bench/killresume.sh - kill runs with SIGKILL at random moments (not at
# chosen steps: wherever the run is, writing a checkpoint or a snapshot
# included), resume them, perhaps kill the resumed run too, and check that
# the final fields.h5 equals an uninterrupted run's, bit for bit (h5diff).
#
#   bench/killresume.sh [TRIALS] [ENGINE]      (defaults: 20 cpu)
#
# Needs h5diff (Debian: hdf5-tools).  Prints one line per trial and a count;
# docs/reliability.md has the figures.  The tests (tests/test_checkpoint.c)
# kill at chosen steps instead, so that they never depend on timing.
set -eu
trials=${1:-20}
engine=${2:-cpu}
bin=${TEXFDTD_BIN:-./bin/texfdtd}
command -v h5diff >/dev/null && command -v h5ls >/dev/null || { echo "killresume: needs h5diff and h5ls (apt-get install hdf5-tools)" >&2; exit 2; }
# the same objects, and every dataset equal (the files' date attributes differ)
same_fields() {
    [ "$(h5ls -r "$1" | sort)" = "$(h5ls -r "$2" | sort)" ] || return 1
    for d in $(h5ls -r "$1" | awk '$2 == "Dataset" { print $1 }'); do
        h5diff "$1" "$2" "$d" "$d" >/dev/null 2>&1 || return 1
    done
}
work=$(mktemp -d /tmp/texfdtd-killresume-XXXXXX)
trap 'rm -rf "$work"' EXIT
cat > "$work/scene.ini" <<'INI'
[grid]
nx = 256
ny = 224
steps = 1200
[source]
angle = 30
[boundary]
type = cpml
cells = 10
[object.rod]
shape = circle
material = dielectric
eps_r = 4
center_x = 128
center_y = 112
radius = 30
[monitor.dft]
start_step = 600
[output]
snapshots = 200, 500, 800, 1100
png = true
INI
"$bin" run "$work/scene.ini" --engine "$engine" --out "$work/ref" -q --threads 1
# the uninterrupted run's wall time sets the range of kill moments
t0=$(date +%s.%N)
"$bin" run "$work/scene.ini" --engine "$engine" --out "$work/timing" -q --threads 1
wall=$(echo "$(date +%s.%N) - $t0" | bc)
echo "engine $engine, uninterrupted run ${wall}s, checkpoint every 25 steps, $trials trials"
ok=0; bad=0; kills=0
for t in $(seq 1 "$trials"); do
    out="$work/t$t"
    "$bin" run "$work/scene.ini" --engine "$engine" --out "$out" -q --threads 1 \
        --checkpoint-every 25 2>/dev/null &
    pid=$!
    # one to three kills per trial, each at a random moment of the run or of its resumption
    nk=$(( (t % 3) + 1 )); k=0; log=""
    while :; do
        delay=$(awk -v s="$(od -An -N2 -tu2 /dev/urandom)" -v w="$wall" 'BEGIN { srand(s + 0); printf "%.3f", rand() * w * 0.9 }')
        sleep "$delay"
        kill -9 "$pid" 2>/dev/null || true
        st=0; wait "$pid" 2>/dev/null || st=$?
        if [ "$st" -eq 137 ]; then
            kills=$((kills + 1))
            step=$(h5dump -a /step "$out/checkpoint.h5" 2>/dev/null | sed -n 's/^ *(0): //p' || true)
            log="$log killed@${delay}s(checkpoint ${step:-none})"
        else
            log="$log finished(status $st)"; break
        fi
        k=$((k + 1))
        [ -f "$out/checkpoint.h5" ] || break   # killed before the first checkpoint
        if [ $k -ge $nk ]; then
            "$bin" resume "$out" -q >/dev/null 2>&1; log="$log resumed"; break
        fi
        "$bin" resume "$out" -q >/dev/null 2>&1 &
        pid=$!
    done
    if [ ! -f "$out/fields.h5" ]; then
        # killed before any checkpoint: start again, as a user would
        rm -rf "$out"
        "$bin" run "$work/scene.ini" --engine "$engine" --out "$out" -q --threads 1
        log="$log rerun"
    fi
    if same_fields "$work/ref/fields.h5" "$out/fields.h5" \
       && [ ! -e "$out/checkpoint.h5" ] && [ ! -e "$out/.parts" ]; then
        ok=$((ok + 1)); echo "trial $t: identical;$log"
    else
        bad=$((bad + 1)); echo "trial $t: DIFFERENT;$log"
    fi
    rm -rf "$out"
done
echo "killresume: $ok identical, $bad different, $kills SIGKILLs ($engine)"
[ "$bad" -eq 0 ]
