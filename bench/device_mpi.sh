#!/bin/bash
# bench/device_mpi.sh - the 3D CUDA engine over MPI ranks (one GPU a rank) on
# a machine of several GPUs (the `run` tool's nvidia-h200-x2 or -x4; on one
# GPU, as nvidia-h200, the ranks share it: the tests' bits still), every
# step under `timeout`, results under $OUT.  The tests take about 4 minutes
# and the scaling about 4 more: one `run` call may take 10, so make two on
# the warm machine (SKIP=scaling, then SKIP="cli tests cuda"):
#   setup.txt     what was unpacked, mpirun and NCCL found, nvidia-smi
#   test_mpi.txt  tests/test_mpi.c with TEXFDTD_REQUIRE_GPU=1 (its CUDA cases:
#                 2 and 3 ranks against one process, bit for bit; and the CPU ones)
#   cli.txt       texfdtd run scenes/cube_cpml.ini --engine cuda: one process
#                 against mpirun -np 2 (two kernels, then the fused kernel), every
#                 dataset of fields.h5 compared (h5same)
#   test_cuda.txt tests/test_cuda.c (the single-process CUDA path, unchanged)
#   scale/        bench/scale.sh: strong (N^3 on 1 GPU, then 2, 4 ..) and weak
#                 (N^2 x P N on P GPUs) scaling, medians of repeats, Mcells/s,
#                 efficiency, the halo exchange's time and exposed cost
#                 (scale.csv, scale.txt, scale-summary.txt; scaling.txt its log)
#   sweep.txt     with SWEEP=1: bench/sweep_scale.sh (a 64-run cuda sweep as an
#                 MPI task farm on one GPU, then two; the time ratio, the bits)
#   summary.txt   one line per step: what ran, its exit status, seconds
#
# Two halves.  Here, on the build machine (Debian 12), once:
#   bench/device_mpi.sh pack
# builds the binaries in build-devmpi/ with MPI on and GL off (the device has
# a newer glibc and no OpenMPI; GL is not needed here), packs them into
# .devmpi/bins.tar.xz with the shared libraries Ubuntu 24.04 lacks in
# .devmpi/lib, and downloads Debian 12's OpenMPI with the libraries it needs
# into .mpi/ (.deb files, about 6 MiB; never committed: .mpi is in
# .git/info/exclude, .devmpi in .gitignore).  Then, on the device:
#   run(command="bench/device_mpi.sh", kind="nvidia-h200-x2", carry=[".mpi", ".devmpi"])
# There the .debs are unpacked with `dpkg -x` and copied into / (a file the
# system already has is left alone), mpirun is Debian's orterun, NCCL is Python's
# nvidia-nccl-cu13 package (found through python3, else a search; its folder
# goes on LD_LIBRARY_PATH: texfdtd dlopens libnccl.so.2 and falls back to the
# host-staged exchange without it), and NCCL_NVLS_ENABLE=0 is exported
# (texfdtd forces it too: NVLink multicast stays off on these machines).
#
# Environment: BENCH_SIZES (cube edges of the scaling runs, default 1024),
# BENCH_STEPS (default 100), BENCH_REPEATS (default 5), BENCH_ONLY_FUSED=1
# (scale.sh's ONLY_FUSED), BENCH_NO_WEAK=1 (its NO_WEAK), SKIP (words of steps to skip: cli tests cuda
# scaling tbscaling), TEST_MPI_FILTER (a Criterion --filter for test_mpi), TB_SCALE=1 (the temporal path's scaling, step 4b; TB_SCENE=scenes/cube_cpml.ini: with the CPML), BUDGET (seconds for the whole script, default 420: a step gets at
# most what is left, and none starts with less than 15 s left).
set -u -o pipefail
cd "$(dirname "$0")/.."

MPI_DEBS="openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7
    libevent-pthreads-2.1-7 libfabric1 libucx0 libibverbs1 librdmacm1 libnl-3-200
    libnl-route-3-200 libpsm-infinipath1 libpsm2-2 libxnvctrl0 libmunge2
    ibverbs-providers libnuma1 libatomic1"

if [ "${1:-}" = pack ]; then
    set -e
    D=build-devmpi
    T="$D/bin/texfdtd $D/tests/test_mpi $D/tests/test_cuda $D/tests/test_3d $D/bench/mpi_bench $D/bench/h5same"
    # GL_SRC= leaves the GL engines out (no EGL/GL libraries to carry)
    make --no-print-directory BUILD=$D BIN=$D/bin GL_SRC= $T
    for flag in TEXFDTD_HAVE_MPI TEXFDTD_HAVE_CUDA TEXFDTD_HAVE_NCCL; do
        grep -q -- "-D$flag" $D/cflags || { echo "pack: $D was built without $flag" >&2; exit 1; }
    done
    tmp=$(mktemp -d)
    cp $T "$tmp"/
    strip --strip-debug "$tmp"/*
    rm -rf .devmpi && mkdir -p .devmpi/lib
    tar -cJf .devmpi/bins.tar.xz -C "$tmp" .
    # the libraries the binaries need, less glibc's, the compiler runtime's
    # (the device's are newer) and OpenMPI's own (from .mpi, in their place)
    ldd "$tmp"/* | awk '$3 ~ /^\// {print $3}' | sort -u |
        grep -vE '/(libc|libm|libresolv|libpthread|libdl|librt|ld-linux-x86-64|libstdc\+\+|libgcc_s|libmpi|libopen-rte|libopen-pal|libhwloc|libevent[a-z_]*|libpmix|libudev)[.-]' |
        xargs -I{} cp -L {} .devmpi/lib/
    rm -rf "$tmp"
    mkdir -p .mpi
    (cd .mpi && ls ./*.deb >/dev/null 2>&1 || apt-get download $MPI_DEBS)
    du -sh .mpi .devmpi
    ls .devmpi/lib
    exit 0
fi

OUT=${OUT:-/tmp/texfdtd-mpi-out}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
say() { echo "== $*" | tee -a "$OUT/setup.txt"; }
skip() { case " ${SKIP:-} " in *" $1 "*) return 0 ;; esac; return 1; }
BUDGET=${BUDGET:-420}
# step NAME LIMIT COMMAND...: run under timeout (LIMIT, or what is left of
# BUDGET), log its status and seconds
step() {
    local name=$1 limit=$2
    shift 2
    local left=$((BUDGET - SECONDS))
    if [ $left -lt 15 ]; then
        echo "$name skipped: ${left}s of the ${BUDGET}s budget left" | tee -a "$SUMMARY"
        return 125
    fi
    [ "$limit" -le "$left" ] || limit=$left
    local t0=$SECONDS
    echo "== $name: $*"
    timeout -k 10 "$limit" "$@"
    local rc=$?
    local line="$name rc=$rc $((SECONDS - t0))s"
    [ $rc -eq 124 ] && line="$line (timed out after ${limit}s)"
    echo "$line" | tee -a "$SUMMARY"
    return $rc
}

{
    date -u
    nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>&1
    nvidia-smi topo -m 2>&1 | head -8
} >"$OUT/setup.txt" 2>&1
cat "$OUT/setup.txt"

# ---- OpenMPI from Debian 12's .debs.  Each is unpacked with `dpkg -x` into
# a scratch root, and that tree is copied into / by tar keeping /'s directory
# symlinks (Ubuntu's merged /usr: /lib -> usr/lib; a plain `dpkg -x` into /
# of a .deb with ./lib/ files could replace that link with a directory and
# break every program) and every file the system already has (its newer
# libraries stay; the list is in mpi-kept.txt).
if ! command -v mpirun >/dev/null 2>&1; then
    [ -d .mpi ] || { say "no .mpi folder carried and no mpirun here: nothing MPI can run"; exit 1; }
    R=/tmp/mpiroot
    rm -rf $R && mkdir -p $R
    for f in .mpi/*.deb; do
        dpkg -x "$f" $R && echo "unpacked $(basename "$f")" >>"$OUT/setup.txt"
    done
    (cd $R && find . ! -type d) | while read -r p; do
        [ -e "/${p#./}" ] || [ -L "/${p#./}" ] && echo "${p#.}"
    done >"$OUT/mpi-kept.txt"
    say "OpenMPI: $(wc -l <"$OUT/mpi-kept.txt") files the system already has are kept"
    tar -C $R -cf - $(cd $R && ls -A) |
        tar -C / -xf - --keep-directory-symlink --skip-old-files
    ldconfig
    [ -e /usr/bin/mpirun ] || ln -s mpirun.openmpi /usr/bin/mpirun
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shared memory and TCP only (no UCX/verbs probing), no single-copy (CMA is
# often barred in containers), segments in /tmp (a container's /dev/shm is small)
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl_vader_backing_directory=/tmp OMPI_MCA_btl_base_warn_component_unused=0
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
if ! timeout -k 5 30 $MPIRUN -np 2 true >>"$OUT/setup.txt" 2>&1; then
    say "mpirun -np 2 true failed; again with OMPI_MCA_plm=isolated (no ssh needed)"
    export OMPI_MCA_plm=isolated
    timeout -k 5 30 $MPIRUN -np 2 true >>"$OUT/setup.txt" 2>&1 || say "mpirun still fails: see above"
fi
say "mpirun: $(command -v mpirun) $(mpirun --version 2>&1 | head -1)"

# ---- NCCL: Python's nvidia-nccl-cu13 (found before our LD_LIBRARY_PATH is set)
export NCCL_NVLS_ENABLE=0
NCCL_DIR=$(timeout 20 python3 -c 'import os, nvidia.nccl as m; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null)
if [ ! -e "${NCCL_DIR:-/nonexistent}/libnccl.so.2" ]; then
    p=$(timeout 40 find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libnccl.so.2' -print 2>/dev/null | head -1)
    NCCL_DIR=${p:+$(dirname "$p")}
fi
if [ -n "${NCCL_DIR:-}" ] && [ -e "$NCCL_DIR/libnccl.so.2" ]; then
    say "NCCL: $NCCL_DIR/libnccl.so.2"
    if ldd "$NCCL_DIR/libnccl.so.2" | grep -q 'not found'; then
        # its own dependencies, from the sibling packages of Python's nvidia/*
        for d in "$NCCL_DIR"/../../*/lib; do [ -d "$d" ] && NCCL_DIR=$NCCL_DIR:$(cd "$d" && pwd); done
        say "libnccl.so.2 misses: $(ldd "${NCCL_DIR%%:*}/libnccl.so.2" | grep 'not found' | tr -s ' \t\n' ' '); with $NCCL_DIR:"
        LD_LIBRARY_PATH=$NCCL_DIR ldd "${NCCL_DIR%%:*}/libnccl.so.2" | grep 'not found' | tee -a "$OUT/setup.txt"
    fi
    # the tests then demand NCCL where the library loads, on two GPUs or
    # more (on one, the ranks share it: NCCL takes no two ranks on one
    # device, and the engine exchanges through the host)
    if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -lt 2 ]; then
        say "one GPU: the ranks share it, NCCL is not demanded (host-staged exchange)"
    elif ! LD_LIBRARY_PATH=$NCCL_DIR ldd "${NCCL_DIR%%:*}/libnccl.so.2" | grep -q 'not found'; then
        export TEXFDTD_REQUIRE_NCCL=1
    fi
else
    NCCL_DIR=
    say "NCCL: libnccl.so.2 not found: the halo exchange goes through the host"
fi

# ---- the binaries (built on Debian 12 with MPI on: bench/device_mpi.sh pack)
B=/tmp/devmpi
rm -rf $B && mkdir -p $B && tar -xJf .devmpi/bins.tar.xz -C $B || { say "no .devmpi/bins.tar.xz"; exit 1; }
export LD_LIBRARY_PATH=$PWD/.devmpi/lib${NCCL_DIR:+:$NCCL_DIR}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p bin && cp $B/texfdtd bin/texfdtd # the suites run ./bin/texfdtd
./bin/texfdtd engines >>"$OUT/setup.txt" 2>&1
ldd ./bin/texfdtd | grep -i 'not found' | tee -a "$OUT/setup.txt"
export TEXFDTD_REQUIRE_GPU=1

# ---- 1. the CLI: scenes/cube_cpml.ini (128^3, CPML, 300 steps), one process
# against two ranks (NCCL where found), every dataset of fields.h5 bit for bit
if ! skip cli; then
    {
        step cli-1 60 ./bin/texfdtd run scenes/cube_cpml.ini --engine cuda --out /tmp/cube-1 --force
        step cli-2 90 $MPIRUN -np 2 ./bin/texfdtd run scenes/cube_cpml.ini --engine cuda \
            --out /tmp/cube-2 --force
        step cli-h5same 30 $B/h5same /tmp/cube-1/fields.h5 /tmp/cube-2/fields.h5
        TEXFDTD_CUDA3D=fused step cli-2-fused 90 $MPIRUN -np 2 ./bin/texfdtd run scenes/cube_cpml.ini \
            --engine cuda --out /tmp/cube-2f --force
        step cli-h5same-fused 30 $B/h5same /tmp/cube-1/fields.h5 /tmp/cube-2f/fields.h5
    } >"$OUT/cli.txt" 2>&1
    grep -E 'rank|engine cuda|steps in|halo|IDENTICAL|DIFFERENT|differ \(|rc=' "$OUT/cli.txt"
fi

# ---- 2. the CUDA cases of test_mpi (and its CPU cases, a few seconds)
if ! skip tests; then
    step test_mpi 300 $B/test_mpi --jobs 1 --verbose ${TEST_MPI_FILTER:+--filter "$TEST_MPI_FILTER"} \
        >"$OUT/test_mpi.txt" 2>&1
    grep -E '^\[(PASS|FAIL|SKIP|====|----)' "$OUT/test_mpi.txt" | head -80
fi

# ---- 3. the single-process CUDA suite: one rank must be the old path, bit for bit
if ! skip cuda; then
    step test_cuda 120 $B/test_cuda --jobs 1 >"$OUT/test_cuda.txt" 2>&1
    grep -E '^\[(FAIL|====)' "$OUT/test_cuda.txt"
fi

# ---- 4. scaling: bench/scale.sh (strong N^3 on 1 .. GPUS ranks, weak N^2 x P N,
# the exchange skipped for its exposed cost, host-staged at 2), medians of repeats
if ! skip scaling; then
    step scaling 590 env MPIRUN="$MPIRUN" MPI_BENCH=$B/mpi_bench SIZES="${BENCH_SIZES:-1024}" \
        ONLY_FUSED="${BENCH_ONLY_FUSED:-0}" NO_WEAK="${BENCH_NO_WEAK:-0}" \
        STEPS="${BENCH_STEPS:-100}" REPEATS="${BENCH_REPEATS:-5}" bash bench/scale.sh "$OUT/scale" \
        >"$OUT/scaling.txt" 2>&1
    grep -E 'rc=[1-9]' "$OUT/scaling.txt"
    cat "$OUT/scale/scale-summary.txt" 2>/dev/null
fi

# ---- 4b. the temporally blocked path over ranks (TB_SCALE=1): scale.sh with
# TEMPORAL=1 (PEC walls; fused and temporal on 1 GPU, temporal with the
# default exchange and skipped, and fused, on 2 .. GPUS), STEPS a multiple of K
if [ "${TB_SCALE:-0}" = 1 ] && ! skip tbscaling; then
    step tbscaling 590 env MPIRUN="$MPIRUN" MPI_BENCH=$B/mpi_bench SIZES="${BENCH_SIZES:-1024}" \
        TEMPORAL=1 STEPS="${BENCH_TB_STEPS:-96}" REPEATS="${BENCH_REPEATS:-5}" \
        bash bench/scale.sh "$OUT/scale-tb" >"$OUT/tbscaling.txt" 2>&1
    grep -E 'rc=[1-9]' "$OUT/tbscaling.txt"
    cat "$OUT/scale-tb/scale-summary.txt" 2>/dev/null
fi

# ---- 5. the sweep's task farm: bench/sweep_scale.sh (64 cuda runs on one GPU,
# then on two: the wall-time ratio, and run 7's fields bit for bit); opt-in
# (SWEEP=1), as it takes about as long as the scaling
if [ "${SWEEP:-0}" = 1 ] && ! skip sweep; then
    step sweep 590 env BIN=$B/texfdtd H5SAME=$B/h5same MPIRUN=mpirun OUT="$OUT/sweep" \
        bash bench/sweep_scale.sh >"$OUT/sweep.txt" 2>&1
    cat "$OUT/sweep.txt"
fi

echo "== summary"
cat "$SUMMARY"
