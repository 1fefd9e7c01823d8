#!/usr/bin/env python3
"""Plots the GPU matrix's CSV (rdx-gpu-bench --matrix --csv FILE): one PNG per case (key
type, pairs or argsort), rdxsort's throughput over CUB's against n, one line per input
distribution, with the 1.0x line (below it CUB is faster). Rows that failed are marked x.

usage: python3 bench/plot_matrix.py matrix.csv [-o OUTDIR]     (default OUTDIR: docs/plots)
"""
import argparse
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("check") in ("ok", "WRONG", "ERROR")]
    if not rows:
        sys.exit(f"plot_matrix.py: {path}: no measurements")
    return rows


def file_name(case):
    return "matrix_" + case.replace("/", "_") + ".png"


def plot_case(case, rows, gpu, outdir):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    markers = "os^vD<>pPh*X"
    dists = list(dict.fromkeys(r["dist"] for r in rows))  # the CSV's order
    for i, dist in enumerate(dists):
        pts = sorted((int(r["log2n"]), r) for r in rows if r["dist"] == dist)
        ok = [(x, float(r["rdx_over_cub"])) for x, r in pts if r["check"] == "ok" and float(r["rdx_over_cub"]) > 0]
        bad = [x for x, r in pts if r["check"] != "ok"]
        style = dict(color=colors[i % len(colors)], marker=markers[i % len(markers)])
        if ok:
            ax.plot([x for x, _ in ok], [y for _, y in ok], label=dist, linewidth=1.2, markersize=4, **style)
        if bad:
            ax.plot(bad, [1.0] * len(bad), linestyle="none", marker="x", markersize=9,
                    color=style["color"], label=f"{dist}: FAILED")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    xs = sorted({int(r["log2n"]) for r in rows})
    ax.set_xticks(range(xs[0] - xs[0] % 2, xs[-1] + 1, 2))
    ax.set_xlabel("log2 n")
    ax.set_ylabel("rdxsort / CUB throughput")
    ax.set_title(f"{case}: rdxsort over CUB DeviceRadixSort, same run\n{gpu}", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    name = os.path.join(outdir, file_name(case))
    fig.savefig(name, dpi=120)
    plt.close(fig)
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--outdir", default=os.path.join("docs", "plots"))
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
