#!/bin/sh
# bench/cpu_isa.sh - the cpu engine's row kernels per instruction set
# (TEXFDTD_CPU_ISA) and its temporally blocked sweep (TEXFDTD_CPU_TB = K,
# TEXFDTD_CPU_TB_ROWS = B) against the plain sweep, on bench/cpu.sh's
# takada_square problem, 1 and all threads (build/bench/cpu_isa_bench; median
# of REPEATS rounds, each configuration once a round).  Not a test: it prints
# Markdown tables for docs/performance.md, with the STREAM-like copy
# bandwidth measured in the same run.
#
# Usage: bench/cpu_isa.sh [SIZES]        e.g. bench/cpu_isa.sh "1024 4096 8192"
#   ISAS="sse2 avx2 avx512"  KS="4 8"  BS="1 8 16"  REPEATS=5  THREADS="1 2"
#   STEPS_N: steps at size N (default 2^29 / N^2, at least 16)
#   CONFIGS="avx2:unfused avx2 avx2:8:1 avx2:16:wauto avx2:default": the
#   configurations themselves (cpu_isa_bench's syntax: ISA, ISA:K:B,
#   ISA:K:wW[:skew|split], ISA:unfused, ISA:default), in place of the
#   ISAS x KS x BS product
set -eu
cd "$(dirname "$0")/.."
SIZES=${1:-"1024 4096 8192"}
ISAS=${ISAS:-"sse2 avx2 avx512"}
KS=${KS:-"4 8"}
BS=${BS:-"1 8 16"}
REPEATS=${REPEATS:-5}
THREADS=${THREADS:-"1 $(nproc)"}
BENCH=build/bench/cpu_isa_bench
[ -x "$BENCH" ] || make -s "$BENCH"

configs=${CONFIGS:-}
[ -n "$configs" ] || for isa in $ISAS; do
    configs="$configs $isa"
    for k in $KS; do
        for b in $BS; do
            configs="$configs $isa:$k:$b"
        done
    done
done

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
echo "# cpu engine, takada_square, single precision, denormals flush"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') on $cpu ($(nproc) cores), $(cc --version | head -1)"
echo "# command: bench/cpu_isa.sh \"$SIZES\" (median of $REPEATS rounds); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $SIZES; do
    steps=$(eval echo "\${STEPS_$n:-}")
    [ -n "$steps" ] || steps=$(( (1 << 29) / (n * n) ))
    [ "$steps" -ge 16 ] || steps=16
    for th in $THREADS; do
        echo
        echo "## ${n}², $steps steps, $th thread(s)"
        $BENCH --threads "$th" --repeats "$REPEATS" "$n" "$steps" $configs
        echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    done
done
