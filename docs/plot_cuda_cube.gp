# plot_cuda_cube.gp - the CPML paper's Figure 7 (simulation speed against the
# size of a vacuum cube with a 10-cell CPML on all six faces), redrawn for the
# NVIDIA H100 from the measured table (a) of docs/performance.md ("CUDA engines")
# (2026-11-22; effective Gcells/s: the CPML cells are not counted).  The A1
# row takes the default path at each size (the kernel pair below 400^3, the
# fused z-marching kernel from 400^3, KZ = 32 at 512^3).  The paper's own
# Figure 7 values (Tesla C1060) are not in the text we have, only its Mur
# figure in the MRI example: 500 Mcells/s.
# Run: gnuplot docs/plot_cuda_cube.gp  (from the repository root)
set terminal pngcairo size 900,560 font "sans,11"
set output "docs/images/cuda_cube_cpml.png"
set title "3D FDTD, vacuum cube, 10-cell CPML on six faces (float32), NVIDIA H100"
set xlabel "interior edge N (N^3 cells, CPML cells not counted)"
set ylabel "effective Gcells/s"
set key outside right top
set grid
set xrange [100:540]
set yrange [0:45]
$cube << EOD
# N  A1  A2  A3  Mur  PEC
256 18.9 15.3 18.2 27.4 31.2
384 22.0 18.2 21.9 33.7 36.5
512 26.4 20.1 24.1 36.1 38.6
EOD
plot \
  $cube using 1:6 with linespoints lw 2 pt 7 lc rgb "#7f8c8d" title "no absorbing boundary (PEC)", \
  $cube using 1:5 with linespoints lw 2 pt 9 lc rgb "#d35400" title "first-order Mur", \
  $cube using 1:2 with linespoints lw 2.5 pt 5 lc rgb "#1f4fbf" title "A1 combined", \
  $cube using 1:4 with linespoints lw 2 pt 13 lc rgb "#0b7a4b" title "A3 per face", \
  $cube using 1:3 with linespoints lw 2 pt 11 lc rgb "#c0392b" title "A2 regions", \
  0.5 with lines dt 2 lw 1.5 lc rgb "black" title "paper: Mur on a Tesla C1060 (0.5)"
