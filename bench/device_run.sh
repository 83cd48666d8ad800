#!/bin/bash
# bench/device_run.sh - on the GPU machine (this workplace's `run` tool): the
# GPU test suites (what `make test-gpu` runs), and the GL checks and timings
# that need the GPU, in stages, results under $OUT.
#
#   bench/device_run.sh tests   every carried suite with TEXFDTD_REQUIRE_GPU=1
#   bench/device_run.sh speed   gl_bench copy (GL and CUDA copy bandwidth) and the
#                               16384^2 speed of gl and gl-compute, in one run
#   bench/device_run.sh glctbx  gl-compute one step against blocked (K, tile) for
#                               CPML, Mur, DFT and point-source scenes (8192^2)
#   bench/device_run.sh glctb   gl-compute's temporal blocking (issue 14, item 1):
#                               gl_bench speed at 16384^2 of the fused path and of
#                               TEXFDTD_GLC_K = GLC_KS (default 2 .. 8) on each tile
#                               of GLC_TILES (default 32x32; work groups GLC_LOCAL,
#                               default 16x16), the copy bandwidth, the bits of one
#                               K against the cpu engine (gl_bench verify, GLC_VERIFY_K,
#                               default 6), and cuda_bench 2d (the CUDA temporal
#                               kernel, K = 2, 4, 6, 8) in the same run
#   bench/device_run.sh glwf    gl-compute's warp wavefront (update_wf.comp, issue 14,
#                               item 1): the copy bandwidth, gl_bench speed at 16384^2
#                               of the one-step fused dispatch, the tiles (K = 4, 32x16)
#                               and TEXFDTD_GLC_PATH=wavefront for K = WF_KS (default
#                               2 4 6 8) x TEXFDTD_GLC_ROWS = WF_ROWS (default 64 128),
#                               K = 4 again with each exchange (TEXFDTD_GLC_SHUFFLE =
#                               subgroup, nv, shared), the bits against the cpu engine
#                               (gl_bench verify takada_square 1000) of K = 4 with each
#                               exchange and of K = 8, then cuda_bench 2d (k_tb2)
#   bench/device_run.sh texbuf  gl-compute's field access (issue 14, item 1): the copy
#                               bandwidth, then gl_bench texbuf at TEXBUF_NS (8192
#                               16384) x TEXBUF_STEPS (200), 5 repeats: storage buffers,
#                               images and textures for the copy, the fused step and
#                               K = 4 steps per dispatch on 32x16 tiles, bits compared,
#                               and the engine itself (K = 4 on 32x16) beside them
#   bench/device_run.sh glwfsweep  the wavefront's K (WF_KS), rows (WF_ROWS) and exchange
#                               (WF_SHUFFLES) at 16384^2, median of 3, beside the tiles
#   bench/device_run.sh long    the long-run check: 16384^2 x 2000 steps of gl in
#                               adaptive fenced batches against one-step batches
#   bench/device_run.sh cli     texfdtd run on gl, gl-compute and cuda
#   bench/device_run.sh roofline  gl's k steps per fragment pass: bits of k = 3 .. 6
#                               against the cpu (takada_square, 1000 steps), then
#                               gl_bench roofline (write cap, fragment arithmetic and
#                               fetch rates, k = 1 .. 6 with each k's prediction) at
#                               ROOF_N (4096) x ROOF_STEPS (600), again with the inputs
#                               gathered (TEXFDTD_GL_KPASS_GATHER=1), then the withdrawn
#                               unrolled-arrays shader (TEXFDTD_GL_KPASS_UNROLL=1) at
#                               k = 2, 3 under a 60 s compile timeout: its build time
#                               (the hang of 2026-11-22, docs/performance.md)
#   bench/device_run.sh cudatb  cuda_bench temporal: the 3D temporal path's K, TY, TBZ at
#                               512^3 beside the fused kernel (CB_TB_KIND = pec or A1)
#   bench/device_run.sh tbinner the 3D temporal kernel's inner-tile and one-axis psi
#                               kernels against the old launch and the fused kernel, 512^3
#   bench/device_run.sh tbrows  the 3D temporal kernels with 1 or 2 rows of the tile a
#                               thread (k_tb3, k_tb3r; TBR_CASES), 512^3
#   bench/device_run.sh ncu3d   Nsight Compute counters of the 3D kernels at 512^3
#                               (NCU_CASES: which kernels, paths, K, TY)
#   bench/device_run.sh mapping cuda_bench mapping: the 256^3 cavity with the
#                               coalesced and un-coalesced thread mappings
#   bench/device_run.sh monitors bench/monitor_cost.sh: a far-field contour's cost
#                               to cuda, gl-compute and gl at 16384^2 (MONITOR_N)
#   bench/device_run.sh materials bench/material_cost.sh: a 5 % disc of a dielectric, a
#                               lossy dielectric and a Drude metal against vacuum at
#                               16384^2 (MATERIAL_N) on cuda, gl-compute and gl
#   bench/device_run.sh sidebyside  the speed of the current binaries beside those
#                               of an earlier commit (.devbuild/base.tar.xz, made by
#                               BASE=COMMIT bench/device_pack.sh), alternately, in one
#                               run: cuda_bench quick (2D paths at 4096^2 and 16384^2,
#                               3D cubes to 512^3) and gl_bench speed of gl and
#                               gl-compute at 16384^2, each binary with its own shaders
#                               (SIDE_GL: the GL engines to time, "" for none)
#   bench/device_run.sh ab3d    the 3D cube at 512^3 with the current cuda_bench and the
#                               base's (.devbuild/base.tar.xz), alternately, AB_ROUNDS
#                               (default 2) rounds of AB_CASES ("kind N [VAR=value ...]"
#                               lines, N "-" for 512^3 in all; default A1 and pec on
#                               the temporal path)
#
# The device has no GL headers and a newer glibc: everything is built here and
# carried (see bench/device.sh for how .gl and .devbuild/lib are prepared):
#   make all build/bench/gl_bench $(ls tests/test_*.c | sed 's|tests/|build/tests/|; s|\.c$||')
#   bench/device_pack.sh        # -> .devbuild/bins.tar.xz
set -u
stage=${1:-tests}
OUT=${OUT:-/tmp/texfdtd-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export LD_LIBRARY_PATH=$PWD/.devbuild/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=/tmp/devbin
mkdir -p $B && tar -xJf .devbuild/bins.tar.xz -C $B
mkdir -p bin && cp $B/texfdtd bin/ # test_cli and test_compare run ./bin/texfdtd
if ! $B/texfdtd devices 2>&1 | grep -qi nvidia; then
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; $B/texfdtd devices; } \
    >"$OUT/device-$stage.txt" 2>&1
head -3 "$OUT/device-$stage.txt"

# one3d FILE LABEL KIND N [VAR=value ...]: cuda_bench one (warm-up, median of
# 3 x 24 steps) of the 3D cube KIND (pec or A1) with N interior cells a side
# ("" or "-": 510, or 490 with the CPML: 512^3 in all) and the VARs set, its
# lines prefixed with LABEL, appended to FILE
one3d() {
    local f=$1 label=$2 kind=$3 n=$4
    shift 4
    if [ -z "$n" ] || [ "$n" = - ]; then
        n=510
        [ "$kind" = A1 ] && n=490
    fi
    mkdir -p /tmp/one3d
    env "$@" timeout "${TBR_TIMEOUT:-120}" $B/cuda_bench /tmp/one3d one "$kind" "$n" 24 2>&1 |
        grep -v "^device-to-device" | sed "s|^|$label: |" | tee -a "$f"
}

# unpack_base FILE: the base build (.devbuild/base.tar.xz, with its COMMIT)
# into B0, and a line naming both builds' commits written to FILE
unpack_base() {
    B0=/tmp/devbase
    mkdir -p $B0 && tar -xJf .devbuild/base.tar.xz -C $B0
    echo "base: $(cat $B0/COMMIT)  current: $(cat $B/COMMIT 2>/dev/null || echo working tree)" | tee "$1"
}

case $stage in
tests)
    # DEVICE_TESTS: suites (names or globs, space-separated), default all;
    # TEST_FILTER: a Criterion --filter for each
    for t in $(for n in ${DEVICE_TESTS:-test_*}; do ls $B/$n; done); do
        echo "== $t" >>"$OUT/tests.txt"
        # one test at a time: the CPU references use every core (OpenMP), and
        # several at once oversubscribe the cores and crawl through barriers
        TEXFDTD_REQUIRE_GPU=1 timeout ${TEST_TIMEOUT:-300} "$t" --jobs 1 ${TEST_FILTER:+--filter "$TEST_FILTER"} \
            >>"$OUT/tests.txt" 2>&1
        rc=$?
        echo "$(basename $t) rc=$rc" | tee -a "$OUT/tests.txt"
    done
    grep -E '^\[(FAIL|====)' "$OUT/tests.txt"
    ;;
speed)
    $B/gl_bench copy 1024 10 | tee "$OUT/speed.txt"
    for e in gl gl-compute; do
        timeout 200 $B/gl_bench speed $e 16384 1000 1 | tee -a "$OUT/speed.txt"
    done
    $B/gl_bench copy 1024 10 | tee -a "$OUT/speed.txt"
    ;;
glctb)
    f="$OUT/glctb.txt"
    $B/gl_bench copy 1024 10 | tee "$f"
    TEXFDTD_GLC_K=1 timeout 120 $B/gl_bench speed gl-compute 16384 1000 1 2>&1 | sed "s/^/fused /" | tee -a "$f"
    for tile in ${GLC_TILES:-32x32}; do
        for k in ${GLC_KS:-2 3 4 5 6 7 8}; do
            TEXFDTD_GLC_K=$k TEXFDTD_GLC_TILE=$tile TEXFDTD_GL_LOCAL=${GLC_LOCAL:-16x16} \
                timeout 120 $B/gl_bench speed gl-compute 16384 1000 1 2>&1 |
                sed "s/^/temporal K=$k tile=$tile local=${GLC_LOCAL:-16x16} /" | tee -a "$f"
        done
    done
    TEXFDTD_GLC_K=1 timeout 120 $B/gl_bench speed gl-compute 16384 1000 1 2>&1 | sed "s/^/fused-again /" | tee -a "$f"
    TEXFDTD_GLC_K=${GLC_VERIFY_K:-6} TEXFDTD_GLC_TILE=${GLC_TILES%% *} timeout 200 \
        $B/gl_bench verify scenes/takada_square.ini 1000 2>&1 | sed "s/^/verify K=${GLC_VERIFY_K:-6} /" |
        tee -a "$f"
    mkdir -p "$OUT/cuda-glctb"
    timeout 240 $B/cuda_bench "$OUT/cuda-glctb" 2d 2>&1 | tee -a "$f"
    ;;
glctbx)
    # the scenes gl-compute's GPU default leaves at one step a dispatch (a
    # CPML, Mur, the whole-grid DFT, a point source), one step against the
    # blocked kernel, each at 8192^2 (GLCX_N)
    f="$OUT/glctbx.txt"
    n=${GLCX_N:-8192}
    : >"$f"
    for sc in cpml mur dft point; do
        case $sc in
        cpml) ex=$'[boundary]\ntype = cpml\ncells = 10\n' so= ;;
        mur) ex=$'[boundary]\ntype = mur\n' so= ;;
        dft) ex=$'[monitor.dft]\nfrequencies = 1\n' so= ;;
        point) ex='' so=$'type = point\ncenter_x = 100\ncenter_y = 100' ;;
        esac
        for kt in 1:32x16 ${GLCX_KT:-2:32x16 4:32x16 4:32x32}; do
            GL_BENCH_EXTRA="$ex" GL_BENCH_SOURCE="$so" TEXFDTD_GLC_K=${kt%%:*} TEXFDTD_GLC_TILE=${kt#*:} \
                timeout 100 $B/gl_bench speed gl-compute $n 600 3 2>&1 | sed "s/^/$sc K=${kt%%:*} tile=${kt#*:} /" |
                tee -a "$f"
        done
    done
    ;;
glwf)
    f="$OUT/glwf.txt"
    sp() { timeout 60 $B/gl_bench speed gl-compute 16384 1000 1 2>&1; }
    $B/gl_bench copy 1024 10 | tee "$f"
    TEXFDTD_GLC_PATH=one sp | sed "s/^/fused /" | tee -a "$f"
    TEXFDTD_GLC_PATH=tiles TEXFDTD_GLC_K=4 TEXFDTD_GLC_TILE=32x16 sp | sed "s/^/tiles K=4 tile=32x16 /" |
        tee -a "$f"
    for rows in ${WF_ROWS:-64 128}; do
        for k in ${WF_KS:-2 4 6 8}; do
            TEXFDTD_GLC_PATH=wavefront TEXFDTD_GLC_K=$k TEXFDTD_GLC_ROWS=$rows sp |
                sed "s/^/wavefront K=$k rows=$rows shuffle=auto /" | tee -a "$f"
        done
    done
    for sh in subgroup nv shared; do
        TEXFDTD_GLC_PATH=wavefront TEXFDTD_GLC_K=4 TEXFDTD_GLC_SHUFFLE=$sh sp |
            sed "s/^/wavefront K=4 rows=64 shuffle=$sh /" | tee -a "$f"
    done
    for v in "4 subgroup" "4 nv" "4 shared" "8 auto"; do
        set -- $v
        TEXFDTD_GLC_PATH=wavefront TEXFDTD_GLC_K=$1 TEXFDTD_GLC_SHUFFLE=$2 timeout 90 \
            $B/gl_bench verify scenes/takada_square.ini 1000 2>&1 |
            sed "s/^/verify wavefront K=$1 shuffle=$2 /" | tee -a "$f"
    done
    mkdir -p "$OUT/cuda-glwf"
    timeout 150 $B/cuda_bench "$OUT/cuda-glwf" 2d 2>&1 | tee -a "$f"
    ;;
texbuf)
    f="$OUT/texbuf.txt"
    $B/gl_bench copy 1024 10 | tee "$f"
    for n in ${TEXBUF_NS:-8192 16384}; do
        TEXFDTD_GLC_K=4 TEXFDTD_GLC_TILE=32x16 timeout ${TEXBUF_TIMEOUT:-$((n > 8192 ? 150 : 60))} $B/gl_bench texbuf $n \
            ${TEXBUF_STEPS:-200} 5 2>&1 | tee -a "$f"
        echo "texbuf n $n rc=${PIPESTATUS[0]}" | tee -a "$f"
    done
    ;;
glwfsweep)
    # the warp wavefront's K, rows a strip and lane exchange at 16384^2,
    # median of 3 each, beside the tiles' best (K = 4, 32 x 16)
    f="$OUT/glwfsweep.txt"
    : >"$f"
    TEXFDTD_GLC_PATH=tiles TEXFDTD_GLC_K=4 TEXFDTD_GLC_TILE=32x16 timeout 60 \
        $B/gl_bench speed gl-compute 16384 1000 3 2>&1 | sed "s/^/tiles K=4 tile=32x16 /" | tee -a "$f"
    for sh in ${WF_SHUFFLES:-subgroup shared}; do
        for k in ${WF_KS:-5 6 7}; do
            for rows in ${WF_ROWS:-32 64 128}; do
                TEXFDTD_GLC_PATH=wavefront TEXFDTD_GLC_K=$k TEXFDTD_GLC_ROWS=$rows TEXFDTD_GLC_SHUFFLE=$sh \
                    timeout 60 $B/gl_bench speed gl-compute 16384 1000 3 2>&1 |
                    sed "s/^/wavefront K=$k rows=$rows shuffle=$sh /" | tee -a "$f"
            done
        done
    done
    ;;
long)
    timeout 560 $B/gl_bench batches scenes/takada_square.ini 2000 grid.nx=16384 grid.ny=16384 \
        object.square.center_x=600 object.square.center_y=8192 source.front_offset=0 \
        output.snapshots= | tee "$OUT/long.txt"
    echo "rc=${PIPESTATUS[0]}" | tee -a "$OUT/long.txt"
    ;;
cudatb)
    # the 3D temporal path at 512^3 (cuda_bench temporal; CB_TB_KIND = pec or A1)
    mkdir -p "$OUT/cudatb"
    $B/cuda_bench "$OUT/cudatb" temporal | tee "$OUT/cudatb.txt"
    ;;
tbinner)
    # the 3D temporal kernel with and without the inner tiles' kernel and
    # the one-axis psi kernel (TEXFDTD_CUDA3D_INNER=0: as before), beside the
    # fused kernel, 512^3, one process each (cuda_bench one: warm-up, median
    # of 3 x 24 steps); TBI_CASES: "kind path K TY INNER [N]" lines (N: the
    # interior cells a side, default 510, or 490 with the CPML: 512^3 in all)
    f="$OUT/tbinner.txt"
    : >"$f"
    while read -r kind path k ty inner nn; do
        [ -n "$kind" ] || continue
        one3d "$f" "$kind $path K=$k TY=$ty INNER=$inner" "$kind" "$nn" TEXFDTD_CUDA3D="$path" \
            TEXFDTD_CUDA3D_K="$k" TEXFDTD_CUDA3D_TY="$ty" TEXFDTD_CUDA3D_INNER="$inner"
    done <<<"${TBI_CASES:-pec fused 3 16 1
pec temporal 3 16 0
pec temporal 3 16 1
pec temporal 2 16 1
pec temporal 3 32 1
A1 fused 3 32 1
A1 temporal 3 32 0
A1 temporal 3 32 1
A1 temporal 2 32 1
A1 temporal 4 32 1
A1 temporal 3 16 1
pec fused 3 16 1}"
    ;;
tbrows)
    # the 3D temporal kernels with 1 (k_tb3) or 2 (k_tb3r) rows of the tile
    # a thread in the tiles without psi (TBR; in the one-axis slab tiles
    # TEXFDTD_CUDA3D_TBRS, default 2), beside the fused kernel,
    # 512^3, one process each (cuda_bench one: warm-up, median of 3 x 24
    # steps); TBR_CASES: "kind K TY TBR [N [VAR=value ...]]" lines (TBR
    # "fused": the fused kernel; N as tbinner, "-" for its default; the VARs
    # set for that case only)
    f="$OUT/tbrows.txt"
    : >"$f"
    while read -r kind k ty tbr nn extra; do
        [ -n "$kind" ] || continue
        path=temporal
        [ "$tbr" = fused ] && path=fused tbr=1
        # shellcheck disable=SC2086 # extra: VAR=value words
        one3d "$f" "$kind $path K=$k TY=$ty rows=$tbr $extra" "$kind" "$nn" TEXFDTD_CUDA3D=$path \
            TEXFDTD_CUDA3D_K="$k" TEXFDTD_CUDA3D_TY="$ty" TEXFDTD_CUDA3D_TBR="$tbr" $extra
    done <<<"${TBR_CASES:-pec 3 16 1
pec 3 16 2
pec 3 16 2 - TEXFDTD_CUDA3D_SLABCHUNK=0
pec 3 32 2
A1 3 32 1
A1 3 32 2
A1 3 32 2 - TEXFDTD_CUDA3D_TBRS=1
pec 3 16 fused
A1 3 32 fused}"
    ;;
ncu3d)
    # hardware counters (Nsight Compute, clocks left alone) of the 3D
    # kernels at 512^3, one launch each after the warm-up: NCU_CASES of
    # "name kind path K TY regex skip count" (kind pec or A1; path temporal
    # or fused); reports in $OUT/ncu-NAME.{ncu-rep,txt}
    f="$OUT/ncu3d.txt"
    : >"$f"
    mkdir -p /tmp/ncu3d
    while read -r name kind path k ty rx skip count; do
        [ -n "$name" ] || continue
        n=510
        [ "$kind" = A1 ] && n=490
        echo "== $name: $kind $path K=$k TY=$ty kernel $rx skip $skip count $count" | tee -a "$f"
        TEXFDTD_CUDA3D=$path TEXFDTD_CUDA3D_K=$k TEXFDTD_CUDA3D_TY=$ty timeout ${NCU_TIMEOUT:-150} \
            ncu --clock-control none --set full -k "regex:$rx" --launch-skip $skip --launch-count $count \
            -f -o "$OUT/ncu-$name" $B/cuda_bench /tmp/ncu3d one $kind $n 12 >>"$f" 2>&1
        echo "$name rc=$?" | tee -a "$f"
        ncu --import "$OUT/ncu-$name.ncu-rep" --page details >"$OUT/ncu-$name.txt" 2>&1
        ncu --import "$OUT/ncu-$name.ncu-rep" --page source --print-source sass --csv >/tmp/ncu3d/sass.csv 2>&1
        python3 bench/ncu_sass.py /tmp/ncu3d/sass.csv >>"$OUT/ncu-$name.txt" 2>&1
        [ -n "${NCU_KEEP:-}" ] || rm -f "$OUT/ncu-$name.ncu-rep"
        grep -E "^  k_|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Issue Slots Busy|Executed Ipc Active|No Eligible|Block Limit" \
            "$OUT/ncu-$name.txt" | tee -a "$f"
    done <<<"${NCU_CASES:-pec-tb pec temporal 3 16 k_tb3 3 1
pec-fused pec fused 3 16 k_fused3 10 1
a1-tb A1 temporal 3 32 k_tb3 6 2
a1-fused A1 fused 3 32 k_fused3 20 2}"
    ;;
mapping)
    $B/cuda_bench "$OUT" mapping | tee "$OUT/mapping.txt"
    ;;
monitors)
    MONITOR_BENCH=$B/monitor_bench bench/monitor_cost.sh ${MONITOR_N:-16384} | tee "$OUT/monitors.txt"
    ;;
materials)
    MATERIAL_BENCH=$B/material_bench bench/material_cost.sh ${MATERIAL_N:-16384} | tee "$OUT/materials.txt"
    ;;
sidebyside)
    unpack_base "$OUT/sidebyside.txt"
    $B/gl_bench copy 1024 10 | tee -a "$OUT/sidebyside.txt"
    for r in 1 2; do
        for b in $B0 $B; do
            name=current
            [ $b = $B0 ] && name=base
            echo "== round $r: $name" | tee -a "$OUT/sidebyside.txt"
            mkdir -p "$OUT/cuda-$name-$r"
            timeout 240 $b/cuda_bench "$OUT/cuda-$name-$r" quick 2>&1 | tee -a "$OUT/sidebyside.txt"
            for e in ${SIDE_GL-gl gl-compute}; do
                TEXFDTD_SHADER_DIR=$b/shaders timeout 120 $b/gl_bench speed $e 16384 1000 1 2>&1 |
                    sed "s/^/$name /" | tee -a "$OUT/sidebyside.txt"
            done
        done
    done
    ;;
ab3d)
    f="$OUT/ab3d.txt"
    unpack_base "$f"
    for r in $(seq "${AB_ROUNDS:-2}"); do
        while read -r kind nn extra; do
            [ -n "$kind" ] || continue
            for b in $B0 $B; do
                name=current
                [ $b = $B0 ] && name=base
                # shellcheck disable=SC2086 # extra: VAR=value words
                B=$b one3d "$f" "round $r $name $kind $extra" "$kind" "$nn" $extra
            done
        done <<<"${AB_CASES:-A1 - TEXFDTD_CUDA3D=temporal
pec - TEXFDTD_CUDA3D=temporal}"
    done
    ;;
roofline)
    for k in 3 4 5 6; do
        TEXFDTD_GL_STEPS_PER_PASS=$k timeout 120 $B/gl_bench verify scenes/takada_square.ini 1000 2>&1 |
            grep -v gl-compute | sed "s/^verify/verify k=$k/" | tee -a "$OUT/roofline.txt"
    done
    timeout 300 $B/gl_bench roofline ${ROOF_N:-4096} ${ROOF_STEPS:-600} ${ROOF_KMAX:-6} 3 2>&1 |
        tee -a "$OUT/roofline.txt"
    # the same with the fast path's inputs gathered (textureGatherOffset, 4 texels each)
    TEXFDTD_GL_KPASS_GATHER=1 timeout 200 $B/gl_bench roofline ${ROOF_N:-4096} ${ROOF_STEPS:-600} \
        ${ROOF_KMAX:-6} 3 2>&1 | tee -a "$OUT/roofline.txt"
    echo "== withdrawn shader (TEXFDTD_GL_KPASS_UNROLL=1), 1024^2" | tee -a "$OUT/roofline.txt"
    TEXFDTD_GL_KPASS_UNROLL=1 TEXFDTD_GL_COMPILE_TIMEOUT_S=60 timeout 200 \
        $B/gl_bench roofline 1024 60 3 1 2>&1 | tee -a "$OUT/roofline.txt"
    echo "rc=${PIPESTATUS[0]}" | tee -a "$OUT/roofline.txt"
    ;;
cli)
    for e in gl gl-compute cuda; do
        timeout 60 ./bin/texfdtd run scenes/takada_square.ini --engine $e --out /tmp/run-$e --force \
            2>&1 | tail -2 | tee -a "$OUT/cli.txt"
    done
    timeout 120 ./bin/texfdtd run scenes/cube_cpml.ini --engine cuda --out /tmp/cube --force 2>&1 |
        tail -2 | tee -a "$OUT/cli.txt"
    ;;
esac
