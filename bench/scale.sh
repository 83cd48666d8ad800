#!/bin/bash
# bench/scale.sh - strong and weak scaling of the 3D CUDA engine over MPI
# ranks, one GPU each (issue 8), on one host of GPUs: the CPML cube of
# scenes/cube_cpml.ini (10-cell CPML on six faces, combined strategy, point
# source in the middle, float) through bench/mpi_bench, median of repeats.
#
#   MPIRUN="mpirun ..." MPI_BENCH=path/to/mpi_bench bench/scale.sh OUTDIR
#
# For each cube edge N of SIZES (default 1024):
#   strong: N^3 on 1 GPU (fused kernel, then the two-kernel path), then on P
#           = 2 .. GPUS ranks: fused with the default exchange (NCCL where it
#           loads), the two-kernel path, fused with the exchange skipped
#           (BENCH_HALO=skip: the same split steps moving nothing, so the
#           difference is the exchange's exposed cost), at P = 2 the
#           host-staged exchange, and from P = 4 on the planes split evenly
#           (TEXFDTD_SPLIT=even) instead of by cost;
#   weak:   N^2 x (P N) on P ranks (each rank holds an N^3 slab), fused,
#           default exchange and skipped.
# TEMPORAL=1 instead: the temporally blocked path (TEXFDTD_CUDA3D=temporal,
# K = TEXFDTD_CUDA3D_K, its default 3) on the PEC cavity of
# scenes/cavity_256.ini at N^3 (PEC walls, no CPML): fused and temporal on 1 GPU, then on P
# ranks temporal with the default exchange (K planes of six fields each way
# once a block: with NCCL overlapped with the chunks inside the ranks), with
# it after the block ("after": TEXFDTD_CUDA3D_TBOVERLAP=0), with it skipped,
# and fused; STEPS a multiple of K.
# TB_SCENE=scenes/cube_cpml.ini: the same runs on the 10-cell A1 CPML cube
# (the ghost planes' x and y psi go with the fields).
# Each line of OUTDIR/scale.csv: case, ranks, nx, ny, nz, path, exchange,
# ms/step (median, the slowest rank's wall clock between barriers), Mcells/s
# over all cells, the median halo time per exchange on rank 0 (us) and its
# share of rank 0's step time, and the exchange alone (no kernel beside it:
# us per exchange and GB/s each way).  OUTDIR/scale.txt has every run's output.
#
# Environment: SIZES (cube edges), STEPS (timed steps a repeat, default 100),
# REPEATS (default 5), GPUS (default: nvidia-smi's count), ONLY_FUSED=1
# (only the fused kernel's runs: default exchange and skipped), NO_WEAK=1 (no
# weak-scaling runs), LIMIT (seconds a
# run may take, default 240), MPIRUN (default: mpirun --oversubscribe),
# MPI_BENCH (default build/bench/mpi_bench).  Device time is dear: the
# defaults take about 4 minutes on 2 H200s.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/texfdtd-scale}
mkdir -p "$OUT"
SIZES=${SIZES:-1024}
STEPS=${STEPS:-100}
REPEATS=${REPEATS:-5}
LIMIT=${LIMIT:-240}
GPUS=${GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
MPIRUN=${MPIRUN:-mpirun --oversubscribe}
MPI_BENCH=${MPI_BENCH:-build/bench/mpi_bench}
[ -x "$MPI_BENCH" ] || { echo "scale.sh: no $MPI_BENCH (make $MPI_BENCH with MPI on)" >&2; exit 2; }
[ "${GPUS:-0}" -ge 1 ] || { echo "scale.sh: no GPU found (set GPUS)" >&2; exit 2; }
TXT=$OUT/scale.txt
CSV=$OUT/scale.csv
echo "case,ranks,nx,ny,nz,path,exchange,ms_per_step,mcells_per_s,halo_us,halo_share_pct,alone_us,alone_gbs" >"$CSV"
{
    date -u
    nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
    echo "SIZES=$SIZES STEPS=$STEPS REPEATS=$REPEATS GPUS=$GPUS MPIRUN=$MPIRUN"
} >"$TXT"

# one CASE P NX NY NZ PATH EXCHANGE: run mpi_bench, append its medians to the csv
one() {
    local case=$1 P=$2 nx=$3 ny=$4 nz=$5 path=$6 ex=$7
    local env=(TEXFDTD_CUDA3D=$path) pre=()
    [ "$ex" = host ] && env+=(TEXFDTD_HALO=host)
    [ "$ex" = skip ] && env+=(BENCH_HALO=skip)
    [ "$ex" = even ] && env+=(TEXFDTD_SPLIT=even)
    [ "$ex" = after ] && env+=(TEXFDTD_CUDA3D_TBOVERLAP=0)
    [ "$P" -gt 1 ] && pre=($MPIRUN -np "$P")
    local log
    log=$(mktemp)
    echo "== $case: $P rank(s), $nx x $ny x $nz, $path, exchange $ex" | tee -a "$TXT"
    env "${env[@]}" timeout -k 10 "$LIMIT" "${pre[@]}" "$MPI_BENCH" "${SCENE:-scenes/cube_cpml.ini}" "$STEPS" \
        --repeats "$REPEATS" grid.nx="$nx" grid.ny="$ny" grid.nz="$nz" \
        source.center_x=$((nx / 2)) source.center_y=$((ny / 2)) source.center_z=$((nz / 2)) \
        >"$log" 2>&1
    local rc=$?
    cat "$log" >>"$TXT"
    echo "rc=$rc" >>"$TXT"
    local med halo
    med=$(grep 'mpi_bench: median of' "$log" | sed -E 's/.*: ([0-9.]+) ms\/step, ([0-9.]+) Mcells\/s.*/\1,\2/')
    halo=$(grep 'mpi_bench: rank 0 of .*halo exchange [0-9]' "$log" |
        sed -E 's/.*halo exchange ([0-9.]+) us each.*, ([0-9.]+) % of.*/\1,\2/')
    alone=$(grep 'mpi_bench: rank 0 of .*halo exchange alone' "$log" |
        sed -E 's/.*alone ([0-9.]+) us each.*\), ([0-9.]+) GB\/s.*/\1,\2/')
    echo "$case,$P,$nx,$ny,$nz,$path,$ex,${med:-,},${halo:-,},${alone:-,}" >>"$CSV"
    grep -E 'median of|halo exchange [0-9a]|copy [0-9]|rc=' "$log" | sed 's/^/   /'
    echo "   rc=$rc"
    rm -f "$log"
}

all() { [ "${ONLY_FUSED:-0}" != 1 ]; }
if [ "${TEMPORAL:-0}" = 1 ]; then
    # PEC walls, a point source (moved to the middle); TB_SCENE=scenes/cube_cpml.ini
    # for the 10-cell A1 CPML (the temporal path's ghost-plane psi exchanged)
    SCENE=${TB_SCENE:-scenes/cavity_256.ini}
    echo "TEMPORAL=1: $SCENE, TEXFDTD_CUDA3D_K=${TEXFDTD_CUDA3D_K:-3}" >>"$TXT"
    SIZES_T=$SIZES
    SIZES=
    for N in $SIZES_T; do
        one strong 1 "$N" "$N" "$N" fused none
        one strong 1 "$N" "$N" "$N" temporal none
        for ((P = 2; P <= GPUS; P *= 2)); do
            one strong "$P" "$N" "$N" "$N" temporal default
            one strong "$P" "$N" "$N" "$N" temporal after
            one strong "$P" "$N" "$N" "$N" temporal skip
            one strong "$P" "$N" "$N" "$N" fused default
        done
    done
fi
for N in $SIZES; do
    one strong 1 "$N" "$N" "$N" fused none
    all && one strong 1 "$N" "$N" "$N" two none
    for ((P = 2; P <= GPUS; P *= 2)); do
        one strong "$P" "$N" "$N" "$N" fused default
        all && one strong "$P" "$N" "$N" "$N" two default
        one strong "$P" "$N" "$N" "$N" fused skip
        all && [ "$P" -eq 2 ] && one strong "$P" "$N" "$N" "$N" fused host
        all && [ "$P" -ge 4 ] && one strong "$P" "$N" "$N" "$N" fused even
        if [ "${NO_WEAK:-0}" != 1 ]; then
            one weak "$P" "$N" "$N" $((P * N)) fused default
            one weak "$P" "$N" "$N" $((P * N)) fused skip
        fi
    done
done

# efficiencies: strong T1 / (P TP) against the 1-GPU run of the same path;
# weak T1(N^3) / TP(N^2 x P N)
awk -F, 'NR > 1 && $2 == 1 { t1[$3 "," $6] = $8 }
    NR > 1 { key = $3 "," $6
             if ($2 > 1 && $1 == "strong" && (key in t1)) eff = 100 * t1[key] / ($2 * $8)
             else if ($2 > 1 && $1 == "weak" && (key in t1)) eff = 100 * t1[key] / $8
             else eff = ""
             rows[NR] = sprintf("%-6s %2d  %5d x %5d x %5d  %-5s %-7s %9.3f ms %9.1f Mcells/s  %s%s",
                 $1, $2, $3, $4, $5, $6, $7, $8, $9,
                 eff == "" ? "" : sprintf("efficiency %5.1f %%", eff),
                 ($10 == "" ? "" : sprintf("  halo %s us, %s %% of rank 0", $10, $11)) \
                 ($12 == "" ? "" : sprintf("; alone %s us, %s GB/s", $12, $13))) }
    END { for (r = 2; r <= NR; r++) print rows[r] }' "$CSV" | tee "$OUT/scale-summary.txt"
