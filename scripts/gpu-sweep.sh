#!/usr/bin/env bash
# Variant sweep on a GPU machine (issue 4): builds the GPU benchmark once per variant of the
# tuning constants (every constant in src/cuda/tuning.h can be set on the compiler line),
# runs the same cases with each, and prints one table: rdx ms, CUB ms and rdx/CUB per
# variant and case. Builds run in parallel, benchmarks one after another.
#
# usage: scripts/gpu-sweep.sh OUTDIR 'NAME=FLAGS' ['NAME=FLAGS' ...]
#   e.g. scripts/gpu-sweep.sh /tmp/sw 'base=' 'i20=-DRDX_OS_ITEMS_4=20 -DRDX_OS_MIN_BLOCKS_4=2'
# env:   SWEEP_BENCH   rdx-gpu-bench options, matrix mode (default below; every variant gets
#                      the same seed, so the same inputs)
#        SWEEP_SEED    that seed (default: a random one)
#        SWEEP_NCU=1   also profile the first variant's pass kernel with ncu (stall reasons)
# The table: one row per (case, distribution, n), each variant's rdx ms and rdx/CUB, CUB's
# median over the variants' runs. Route limits need no rebuild: rdx-gpu-bench --tune.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUTDIR=${1:?usage: gpu-sweep.sh OUTDIR NAME=FLAGS ...}
shift
mkdir -p "$OUTDIR"
BENCH_OPTS=${SWEEP_BENCH:---matrix -t u32,f32,u64,u32/u32 -n 28 --dist uniform --repeat 10}
SEED=${SWEEP_SEED:-$RANDOM$RANDOM}
ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d . || true)
ARCH=${ARCH:-90}
JOBS=$(nproc 2>/dev/null || echo 4)
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)

names=()
for spec in "$@"; do
    name=${spec%%=*} flags=${spec#*=}
    names+=("$name")
    ( cmake -S "$ROOT" -B "$ROOT/build-sweep-$name" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DRDX_CUDA=ON \
          -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DCMAKE_CUDA_FLAGS="$flags" -DRDX_BUILD_TESTS=OFF \
          -DRDX_BUILD_TOOLS=OFF >"$OUTDIR/$name.build.log" 2>&1 &&
      cmake --build "$ROOT/build-sweep-$name" --target rdx_gpu_bench -j$((JOBS / $# + 1)) \
          >>"$OUTDIR/$name.build.log" 2>&1 ) &
done
wait

for name in "${names[@]}"; do
    exe=$(find "$ROOT/build-sweep-$name" -name rdx-gpu-bench -type f | head -1)
    if [[ -z $exe ]]; then echo "$name: build failed (see $name.build.log)"; tail -5 "$OUTDIR/$name.build.log"; continue; fi
    # shellcheck disable=SC2086
    "$exe" $BENCH_OPTS --seed "$SEED" --csv "$OUTDIR/$name.csv" >"$OUTDIR/$name.bench.log" 2>&1 ||
        echo "$name: benchmark failed (see $name.bench.log)"
done

if [[ ${SWEEP_NCU:-0} == 1 ]]; then
    exe=$(find "$ROOT/build-sweep-${names[0]}" -name rdx-gpu-bench -type f | head -1)
    timeout 240 ncu --clock-control none -k regex:rdx_onesweep_kernel --launch-skip 3 -c 1 \
        --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
        --section LaunchStats --section MemoryWorkloadAnalysis \
        "$exe" -t u32 -n 28 --dist uniform --repeat 1 --warmup 0 >"$OUTDIR/ncu.log" 2>&1 || echo "ncu failed"
fi

python3 - "$OUTDIR" "${names[@]}" <<'PY'
import csv, os, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
rows, keys = {}, []
for v in names:
    path = os.path.join(out, v + ".csv")
    if not os.path.exists(path):
        continue
    for r in csv.DictReader(open(path)):
        k = (r["case"], r["dist"], int(r["log2n"]))
        if k not in rows:
            rows[k] = {}
            keys.append(k)
        rows[k][v] = (float(r["rdx_ms"]), float(r["cub_ms"]))
print("%-12s %-10s %4s %9s" % ("case", "dist", "n", "CUB ms") + "".join(" %17s" % v[:17] for v in names))
for k in keys:
    got = rows[k]
    cub = statistics.median(c for _, c in got.values())
    cells = "".join(" %9.3f %6.3fx" % (got[v][0], cub / got[v][0]) if v in got else " %17s" % "-" for v in names)
    print("%-12s %-10s 2^%-2d %9.3f" % (k[0], k[1], k[2], cub) + cells)
PY
