#!/usr/bin/python3
"""bench/plot_k.py - Gcells/s against K for each path (issue 14, item 5).

Reads docs/data/gcells_vs_k.csv (path, grid, K, Gcells/s; K = 1 is each
path's one-step kernel; for the 3D rows each K's best tile and chunk) and
writes docs/images/gcells_vs_k.png.  Debian: python3-matplotlib.
    /usr/bin/python3 bench/plot_k.py [CSV] [PNG]
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

src = sys.argv[1] if len(sys.argv) > 1 else "docs/data/gcells_vs_k.csv"
dst = sys.argv[2] if len(sys.argv) > 2 else "docs/images/gcells_vs_k.png"
series = defaultdict(list)
with open(src) as f:
    for row in csv.reader(line for line in f if not line.startswith("#")):
        path, grid, k, g = row
        series[f"{path}, {grid}"].append((int(k), float(g)))
plt.figure(figsize=(7.2, 4.6))
for name, pts in series.items():
    pts.sort()
    plt.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=name)
plt.yscale("log")
plt.xlabel("K: steps per pass, dispatch or launch (1: the one-step kernel)")
plt.ylabel("Gcells/s (log scale)")
plt.title("Temporal blocking against K: NVIDIA H100, 2026-11-27;\n3D rows \"on the H200\": the kernels of 2026-11-29", fontsize=10)
plt.grid(alpha=0.3, which="both")
plt.legend(fontsize=7)
plt.tight_layout()
plt.savefig(dst, dpi=110)
print("wrote", dst)
