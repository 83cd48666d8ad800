# plot_performance.gp - Mcells/s against grid size for every engine, with the
# figures of Takada et al. (2007) on the same axes.  Run from the repository
# root (docs/figures.sh does, as part of `make docs`):
#     gnuplot docs/plot_performance.gp
# writes docs/images/performance_mcells.png.
#
# Nothing here is measured by this script: every number is copied from a
# table, cited above its block.  Mcells/s = N^2 x steps / seconds, float32,
# 2D TMz, Takada-type scene (PEC square, S = 0.5).

set terminal pngcairo size 1000,620 font "sans,12"
set output "docs/images/performance_mcells.png"
set encoding utf8
set title "2D FDTD update rate against grid size (float32)"
set xlabel "grid N (N × N cells)"
set ylabel "Mcells/s (cells × steps / s)"
set logscale xy 2
set xrange [180:23000]
set yrange [8:600000]
set xtics ("256" 256, "512" 512, "1024" 1024, "2048" 2048, "4096" 4096, "8192" 8192, "16384" 16384)
set ytics ("10" 10, "100" 100, "1 000" 1000, "10 000" 10000, "100 000" 100000)
set grid xtics ytics lc rgb "#dddddd"
set key outside right top box font "sans,10" spacing 1.15

# docs/performance.md, "Speed on the H100", table "N | gl k=1 | gl k=2 |
# gl-compute fused | gl-compute 2 dispatches" (Gcells/s, here x 1000);
# NVIDIA H100 80GB HBM3, 2026-11-22.
$h100 << EOD
1024  4170 4930 69200 55000
4096  4160 4850 79600 61200
8192  4170 4910 81400 63300
16384 4170 4940 81400 62800
EOD

# docs/performance.md ("CUDA engines"), "2D engine (float, vacuum, PEC, 16384^2 and
# 4096^2)": two kernels 61.0 / 62.5, fused (vectors, R = 32, the default)
# 105.0 / 113.5, temporal K = 6 (the default) 288.5 / 356.7 Gcells/s at
# 4096^2 / 16384^2; H100, 2026-11-22.
$cuda << EOD
4096  61000 105000 288500
16384 62500 113500 356700
EOD

# docs/performance.md, "CPU engine" table: 1 thread, 2 threads (AMD EPYC,
# 2-core VM, gcc 12.2, 2026-11-28, 090e838), and Meep 1.25 (one core,
# double) from the first run's paragraph (256, 512, 1024 only).
$cpu << EOD
256  2170 3079 422
512  3196 5275 414
1024 3633 6176 374
2048 3303 4472 NaN
4096 3284 5455 NaN
EOD

# docs/performance.md, "Speed on llvmpipe" (Gcells/s, here x 1000): gl k=1,
# gl-compute fused, gl-compute 2 dispatches; Mesa 22.3.6, 2 busy cores.
$llvmpipe << EOD
256  52 48 69
1024 60 45 62
EOD

# Takada et al. 2007, Table 2, ms per 1000 steps: GeForce 7800 GTX 431 / 1655 /
# 6340, Pentium 4 3.4 GHz (Linux, gcc -O3) 2138 / 14020 / 70230, at 256, 512,
# 1024.  Mcells/s = N^2 x 1000 steps / (ms / 1000) / 1e6 = N^2 / ms.
$paper << EOD
256  431  2138
512  1655 14020
1024 6340 70230
EOD

plot \
  $h100 using 1:4 with linespoints lw 2 pt 7 ps 1.2 lc rgb "#0b6e4f" title "H100 gl-compute, fused", \
  $h100 using 1:5 with linespoints lw 2 pt 6 ps 1.2 lc rgb "#0b6e4f" dt 2 title "H100 gl-compute, 2 dispatches", \
  $cuda using 1:4 with linespoints lw 2 pt 9 ps 1.4 lc rgb "#6a3d9a" title "H100 CUDA 2D, 6 steps per launch", \
  $cuda using 1:3 with linespoints lw 2 pt 8 ps 1.4 lc rgb "#6a3d9a" dt 2 title "H100 CUDA 2D, one fused kernel", \
  $cuda using 1:2 with linespoints lw 1.5 pt 6 ps 1.2 lc rgb "#6a3d9a" dt 3 title "H100 CUDA 2D, two kernels", \
  $h100 using 1:3 with linespoints lw 2 pt 5 ps 1.1 lc rgb "#c0392b" title "H100 gl fragment, 2 steps/pass", \
  $h100 using 1:2 with linespoints lw 2 pt 4 ps 1.1 lc rgb "#c0392b" dt 2 title "H100 gl fragment, 1 step/pass", \
  $cpu using 1:3 with linespoints lw 2 pt 13 ps 1.3 lc rgb "#1f4fbf" title "cpu, 2 threads (EPYC VM)", \
  $cpu using 1:2 with linespoints lw 2 pt 12 ps 1.3 lc rgb "#1f4fbf" dt 2 title "cpu, 1 thread (EPYC VM)", \
  $cpu using 1:4 with linespoints lw 1.5 pt 1 ps 1.3 lc rgb "#7f8c8d" title "Meep 1.25, 1 core, double", \
  $llvmpipe using 1:2 with linespoints lw 2 pt 11 ps 1.3 lc rgb "#d35400" title "llvmpipe gl (2 cores)", \
  $llvmpipe using 1:3 with linespoints lw 2 pt 10 ps 1.3 lc rgb "#d35400" dt 2 title "llvmpipe gl-compute, fused", \
  $paper using 1:($1 * $1 / $2) with linespoints lw 2.5 pt 3 ps 1.5 lc rgb "black" title "Takada 2007: GeForce 7800 GTX", \
  $paper using 1:($1 * $1 / $3) with linespoints lw 2.5 pt 2 ps 1.5 lc rgb "black" dt 3 title "Takada 2007: Pentium 4 3.4 GHz"
