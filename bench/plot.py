#!/usr/bin/env python3
"""Plots the GPU benchmark's CSV (rdx-gpu-bench --csv): throughput against n, one PNG per
case (key type, or key/value pair), rdxsort (solid) beside CUB (dashed) and thrust (dotted),
one colour per input distribution.

usage: python3 bench/plot.py gpu_bench.csv [-o OUTDIR]
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

SORTERS = (("rdx_gkeys", "rdxsort", "-", "o"),
           ("cub_gkeys", "CUB", "--", "s"),
           ("thrust_gkeys", "thrust", ":", "^"))


def read_rows(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("check") in ("ok", "WRONG", "ERROR")]
    if not rows:
        sys.exit(f"plot.py: {path}: no measurements")
    return rows


def plot_case(case, rows, gpu, outdir):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    dists = sorted({r["dist"] for r in rows})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, dist in enumerate(dists):
        pts = sorted((int(r["n"]), r) for r in rows if r["dist"] == dist)
        for col, label, style, marker in SORTERS:
            xy = [(math.log2(n), float(r[col])) for n, r in pts if float(r[col] or 0) > 0]
            if not xy:
                continue
            ax.plot([x for x, _ in xy], [y for _, y in xy], linestyle=style, marker=marker,
                    color=colors[i % len(colors)], label=f"{label}, {dist}")
    ax.set_yscale("log")  # 2^16 keys run at ~1 G keys/s, 2^28 at ~50
    ax.set_xlabel("log2 n")
    ax.set_ylabel("G keys/s" if "/" not in case else "G pairs/s")
    ax.set_title(f"{case}: throughput against n\n{gpu}", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    name = os.path.join(outdir, "gpu_bench_" + case.replace("/", "_") + ".png")
    fig.savefig(name, dpi=120)
    plt.close(fig)
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--outdir", default=".")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    os.makedirs(args.outdir, exist_ok=True)
    by_case = defaultdict(list)
    for r in rows:
        by_case[r["case"]].append(r)
    gpu = rows[0].get("gpu", "")
    for case, case_rows in by_case.items():
        print(plot_case(case, case_rows, gpu, args.outdir))


if __name__ == "__main__":
    main()
