#!/bin/sh
# figures.sh - the figures of docs/tutorial.md and docs/performance.md, made
# by the project itself.  Run by `make docs` after bin/texfdtd is built; from
# the repository root.  Needs gnuplot (Debian gnuplot-nox, pngcairo terminal).
#
# Writes docs/images/tutorial_*.png and docs/images/performance_mcells.png;
# scratch output goes to build/docs/.  On a 2-core machine with Mesa llvmpipe
# (no GPU) the whole script takes about 3 to 4 minutes, most of it the two
# 1024 x 1024 x 1000-step runs of the gl engine and the two 2000-step cpu
# runs of the far field.  TEXFDTD_BIN=path runs another build of the
# command (default bin/texfdtd).
#
# Each step below is a command the tutorial shows; the tutorial says which
# figure comes from which step.
set -eu

cd "$(dirname "$0")/.."
T=build/docs
IMG=docs/images
mkdir -p "$T" "$IMG"
BIN=${TEXFDTD_BIN:-bin/texfdtd}
[ -x "$BIN" ] || { echo "figures.sh: $BIN missing: run make first" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "figures.sh: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 1; }
say() { printf 'figures.sh: %s\n' "$*" >&2; }

# side_by_side OUT SIZE TOP TITLE_A PNG_A TITLE_B PNG_B: two PNG pictures
# side by side in one, each scaled to half the width, titled; SIZE is
# gnuplot's "width,height", TOP the top of the pictures (screen fraction).
side_by_side() {
    gnuplot <<EOF
set terminal pngcairo size $2 font "sans,13"
set output "$1"
set multiplot layout 1,2
unset key; unset tics; unset border; unset colorbox
set size ratio -1
set lmargin at screen 0.01
set rmargin at screen 0.49
set tmargin at screen $3
set bmargin at screen 0.01
set title "$4"
plot "$5" binary filetype=png with rgbimage
set lmargin at screen 0.51
set rmargin at screen 0.99
set title "$6"
plot "$7" binary filetype=png with rgbimage
unset multiplot
EOF
}

# The engine for the pictures: gl where a GL device works (Mesa llvmpipe
# counts), as in the tutorial; cpu otherwise, and the output says so.
ENGINE=gl
if ! $BIN engines 2>/dev/null | grep -q '^gl '; then
    ENGINE=cpu
    say "no gl engine in this build: the pictures come from the cpu engine"
fi

# 1. Takada et al. Fig. 2: the total field at steps 600 and 900 of
#    scenes/takada_square.ini (1024 x 1024), as the tutorial's run command.
say "1/6 takada_square.ini on $ENGINE (1024 x 1024, 1000 steps)"
$BIN run scenes/takada_square.ini --engine "$ENGINE" --out "$T/takada" --force -q
# The 1024-pixel pictures, halved (10 pixels per wavelength) side by side.
side_by_side "$IMG/tutorial_takada_600_900.png" 1040,560 0.93 \
    "(a) step 600" "$T/takada/ez_total_000600.png" \
    "(b) step 900" "$T/takada/ez_total_000900.png"

# 2. The texture layout: which texel holds which field component, and what
#    each pass reads.  Physical coordinates in cells; texel (a, b) holds
#    Ez(a, b) in the R32F texture and (Hx(a, b+1/2), Hy(a+1/2, b)) in RG32F.
say "2/6 texture layout drawing"
gnuplot <<'EOF'
set terminal pngcairo size 1100,580 font "sans,12"
set output "docs/images/tutorial_texel_layout.png"
set encoding utf8
unset key; unset tics; unset border
set size ratio -1
set xrange [-1.55:1.95]; set yrange [-1.55:1.95]
# datablocks: Ez at (a, b), Hx at (a, b+1/2), Hy at (a+1/2, b), a, b = -1..1
$ez << END
-1 -1
0 -1
1 -1
-1 0
0 0
1 0
-1 1
0 1
1 1
END
set multiplot layout 1,2
do for [panel = 1:2] {
    unset object; unset label; unset arrow
    # texels: one shaded box per (a, b), holding Ez, Hx above and Hy to the right
    n = 0
    do for [a = -1:1] {
        do for [b = -1:1] {
            n = n + 1
            c = (a == 0 && b == 0) ? "#ffe9a8" : "#eef1f6"
            set object n rectangle from a - 0.3, b - 0.3 to a + 0.72, b + 0.72 \
                fc rgb c fs solid 1.0 border lc rgb "#9aa3b5" behind
            set label 100 + n sprintf("(%d,%d)", a, b) at a - 0.27, b - 0.2 \
                font "sans,9" tc rgb "#6b7385"
        }
    }
    if (panel == 1) {
        set title "(a) H pass: new Hx, Hy of texel (i,j) read Ez of 3 texels"
        set label 1 "Ez(i,j+1)" at 0.06, 1.1
        set label 2 "Ez(i+1,j)" at 1.06, 0.1
        set label 3 "Ez(i,j)" at 0.06, -0.12
        set label 4 "Hx(i,j+½)" at -0.05, 0.5 right tc rgb "#1a7f37"
        set label 5 "Hy(i+½,j)" at 0.5, 0.13 center tc rgb "#1f4fbf"
        set arrow 1 from 0, 0.93 to 0, 0.58 lw 2.5 lc rgb "#1a7f37" filled
        set arrow 2 from 0, 0.07 to 0, 0.42 lw 2.5 lc rgb "#1a7f37" filled
        set arrow 3 from 0.93, 0 to 0.58, 0 lw 2.5 lc rgb "#1f4fbf" filled
        set arrow 4 from 0.07, 0 to 0.42, 0 lw 2.5 lc rgb "#1f4fbf" filled
    } else {
        set title "(b) E pass: new Ez of texel (i,j) reads H of 3 texels"
        set label 1 "Hy(i-½,j)" at -0.5, -0.12 center tc rgb "#1f4fbf"
        set label 2 "Hx(i,j-½)" at 0.05, -0.5 left tc rgb "#1a7f37"
        set label 3 "Hy(i+½,j)" at 0.5, -0.12 center tc rgb "#1f4fbf"
        set label 4 "Hx(i,j+½)" at 0.05, 0.5 left tc rgb "#1a7f37"
        set label 6 "Ez(i,j)" at -0.06, 0.12 right
        set arrow 1 from -0.45, 0 to -0.08, 0 lw 2.5 lc rgb "#1f4fbf" filled
        set arrow 2 from 0.45, 0 to 0.08, 0 lw 2.5 lc rgb "#1f4fbf" filled
        set arrow 3 from 0, -0.45 to 0, -0.08 lw 2.5 lc rgb "#1a7f37" filled
        set arrow 4 from 0, 0.45 to 0, 0.08 lw 2.5 lc rgb "#1a7f37" filled
    }
    set label 50 "texel (i,j) = yellow: R32F holds Ez(i,j), RG32F holds (Hx(i,j+½), Hy(i+½,j))" \
        at -1.5, -1.45 font "sans,10"
    plot $ez using 1:2 with points pt 7 ps 1.6 lc rgb "#c0392b", \
         $ez using 1:($2 + 0.5) with points pt 9 ps 1.5 lc rgb "#1a7f37", \
         $ez using ($1 + 0.5):2 with points pt 5 ps 1.2 lc rgb "#1f4fbf"
}
unset multiplot
EOF

# 3. GPU against CPU: the tutorial's compare command (1024 x 1024, 1000
#    steps, every field compared every 100 steps).
say "3/6 compare takada_square.ini --engines cpu,$ENGINE"
$BIN compare scenes/takada_square.ini --engines "cpu,$ENGINE" --out "$T/compare" --force -q \
    > "$T/compare.txt"
cat "$T/compare.txt"

# 4. float32 against float64 over many steps, on a smaller grid so that it
#    runs in seconds on llvmpipe: the Takada scene at 256 x 256 (square
#    centred, front starting at the left wall), 4000 steps, both float32
#    engines against the float64 CPU engine.
say "4/6 float32 (cpu, $ENGINE) against float64 (cpu-double), 256 x 256, 4000 steps"
SMALL="--set grid.nx=256 --set grid.ny=256 --set object.square.center_x=127.5 \
--set object.square.center_y=127.5 --set source.front_offset=0"
# shellcheck disable=SC2086
$BIN compare scenes/takada_square.ini --engines "cpu,$ENGINE" --reference cpu-double \
    --steps 4000 --every 100 $SMALL --out "$T/f32f64" --force -q > "$T/f32f64.txt"
# one file per curve (gnuplot breaks a line at every skipped row)
for e in cpu "$ENGINE"; do
    grep "^[0-9]*,$e,cpu-double,ez," "$T/f32f64/compare.csv" > "$T/f32f64_$e.csv"
done
grep "^[0-9]*,$ENGINE,cpu,ez," "$T/compare/compare.csv" > "$T/compare_ez.csv"
gnuplot <<EOF
set terminal pngcairo size 900,560 font "sans,12"
set output "$IMG/tutorial_errors.png"
set datafile separator ","
set multiplot layout 1,2
set key top left
set grid
set xlabel "time step"
set title "GPU against CPU, float32, 1024², Ez"
set ylabel "max distance in float32 ULPs"
set yrange [-0.5:5]
plot "$T/compare_ez.csv" using 1:7 with linespoints pt 7 lc rgb "#c0392b" \
     title "$ENGINE vs cpu: max ULP"
set title "float32 against float64, 256², Ez"
set ylabel "||Ez32 - Ez64|| / ||Ez64||"
set logscale y
set format y "10^{%L}"
set yrange [*:*]
plot "$T/f32f64_cpu.csv" using 1:6 with lines lw 5 lc rgb "#9aa3b5" title "cpu (float32)", \
     "$T/f32f64_$ENGINE.csv" using 1:6 with points pt 7 ps 0.7 lc rgb "#c0392b" \
     title "$ENGINE (float32)"
unset multiplot
EOF

# 5. The echo width of the square (tutorial section 17): the scene with a
#    CPML and a far-field monitor, a continuous wave (with a flux box around
#    the square) and a modulated Gaussian pulse at 0.5, 1 and 1.5 f0, on the
#    cpu engine as the tutorial's commands; then one polar plot, dB.
say "5/6 takada_square.ini with a CPML and [monitor.far]: continuous wave and pulse (cpu)"
$BIN run scenes/takada_square.ini --engine cpu --out "$T/far_cw" --force -q \
    --set boundary.type=cpml --steps 2000 --set monitor.far.start_step=1600 \
    --set monitor.flux.box.x0=440 --set monitor.flux.box.x1=583 \
    --set monitor.flux.box.y0=440 --set monitor.flux.box.y1=583 \
    --set monitor.flux.box.start_step=1600
$BIN run scenes/takada_square.ini --engine cpu --out "$T/far_pulse" --force -q \
    --set source.ramp_periods= --set boundary.type=cpml --steps 2000 --set source.waveform=modulated_gaussian \
    --set source.bandwidth=1.2 --set monitor.far.frequencies=0.5,1,1.5
cat "$T/far_cw/flux.csv" >&2
# one file per curve, closed (the first row again at 360 degrees)
for f in 500000000 1000000000 1500000000; do
    grep "^$f," "$T/far_pulse/far_field.csv" | awk -F, '{print} NR == 1 {first = $0}
        END {split(first, c, ","); print c[1] ",360," c[3] "," c[4] "," c[5]}' \
        > "$T/far_pulse_$f.csv"
done
gnuplot <<EOF
set terminal pngcairo size 900,960 font "sans,12"
set output "$IMG/tutorial_takada_far.png"
set encoding utf8
set datafile separator ","
set polar
set angles degrees
set theta counterclockwise
set size square
unset border; unset xtics; unset ytics; unset raxis
set grid polar 30 lc rgb "#9aa3b5" dt 3
set rrange [-10:20]
set rtics 10 format "%g dB" font "sans,10"
set ttics 0, 30 format "%g°"
set key bmargin center horizontal maxrows 2 width 3
set title "Echo width σ_{2D}/λ of the square (dB), φ from +x; the wave comes from the left"
plot "$T/far_pulse_500000000.csv" using 2:5 with lines lw 2 lc rgb "#1f4fbf" \\
         title "0.5 f_0 (k·A = 5)", \\
     "$T/far_pulse_1000000000.csv" using 2:5 with lines lw 2 lc rgb "#c0392b" \\
         title "f_0 (k·A = 10)", \\
     "$T/far_pulse_1500000000.csv" using 2:5 with lines lw 2 lc rgb "#1a7f37" \\
         title "1.5 f_0 (k·A = 15)", \\
     "$T/far_cw/far_field.csv" every 5::1 using 2:5 with points pt 6 ps 0.9 lc rgb "#000000" \\
         title "f_0, continuous wave"
EOF

# 6. Materials and shapes (tutorial section 18): scenes/shapes.ini's
#    material map from `run --geometry` beside the total field of its run
#    (cpu engine, step 400), each 160 x 120 cells shown 3 pixels a cell.
say "6/6 shapes.ini: --geometry and a 400-step run (cpu)"
$BIN run scenes/shapes.ini --geometry --out "$T/shapes_geometry" --force -q
$BIN run scenes/shapes.ini --engine cpu --out "$T/shapes" --force -q
side_by_side "$IMG/tutorial_shapes.png" 980,410 0.92 \
    "(a) run --geometry: material.png" "$T/shapes_geometry/material.png" \
    "(b) total Ez, step 400" "$T/shapes/ez_total_000400.png"

# The performance plot of docs/performance.md (data copied from its tables).
gnuplot docs/plot_performance.gp

ls -l "$IMG"/tutorial_*.png "$IMG"/performance_mcells.png >&2
