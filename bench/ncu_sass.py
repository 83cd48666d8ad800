#!/usr/bin/env python3
"""ncu_sass.py REPORT.csv - where a kernel's instructions go, from Nsight
Compute's SASS page (ncu --import R.ncu-rep --page source --print-source sass
--csv): instructions executed by opcode, and the SASS lines that execute
most and that stall most (bench/device_run.sh ncu3d writes the CSV)."""
import collections
import csv
import sys


def num(x):
    try:
        return float(str(x).replace(",", ""))
    except ValueError:
        return 0.0


def main(path):
    rows = list(csv.reader(open(path, errors="replace")))
    head = next((k for k, r in enumerate(rows) if "Source" in r and any("Instructions Executed" in c for c in r)), None)
    if head is None:
        print("no SASS table in", path)
        return 1
    h = rows[head]
    src = h.index("Source")
    ex = next(k for k, c in enumerate(h) if c.startswith("Instructions Executed"))
    st = next((k for k, c in enumerate(h) if c.startswith("Warp Stall Sampling (All")), None)
    body = [r for r in rows[head + 1:] if len(r) > max(src, ex)]
    total = sum(num(r[ex]) for r in body)
    by = collections.Counter()
    for r in body:
        t = r[src].split()
        op = t[1] if t and t[0].startswith("@") and len(t) > 1 else (t[0] if t else "?")
        by[op.split(".")[0]] += num(r[ex])
    print(f"{path}: {len(body)} SASS lines, {total:.4g} warp instructions executed")
    for op, n in by.most_common(25):
        print(f"  {op:10s} {n:12.4g}  {100 * n / total:5.1f} %")
    print("most executed lines:")
    for r in sorted(body, key=lambda r: -num(r[ex]))[:12]:
        print(f"  {num(r[ex]):10.4g}  {r[src][:90]}")
    if st is not None:
        stall = sum(num(r[st]) for r in body)
        print(f"most stalled lines (of {stall:.4g} samples):")
        for r in sorted(body, key=lambda r: -num(r[st]))[:25]:
            print(f"  {100 * num(r[st]) / max(stall, 1):5.1f} %  {r[src][:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
