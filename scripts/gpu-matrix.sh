#!/usr/bin/env bash
# The whole GPU matrix (issue 11, DESIGN.md section 5) on a GPU machine: builds
# rdx-gpu-bench (Release, this GPU's architecture), runs `rdx-gpu-bench --matrix` with its
# CSV, and plots rdx/CUB against n per case when matplotlib imports. About 10 minutes on an
# H200. Extra arguments go to rdx-gpu-bench, e.g. --matrix=quick, --max-log2 30, -t u64.
#
# usage: scripts/gpu-matrix.sh [OUTDIR] [rdx-gpu-bench options...]
#        OUTDIR defaults to $OUT, else ./gpu-matrix-out; it gets matrix.txt (the table, the
#        worst ratio last), matrix.csv, progress.log and plots/.
set -uo pipefail

# ---- settings ----
BUILD_DIR=${RDX_BUILD_DIR:-build}   # relative to the repository root
BUILD_TIMEOUT=900                   # a fresh CUDA build of the benchmark
MATRIX_TIMEOUT=1200                 # the run itself: ~10 minutes expected
# ------------------

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
OUTDIR=${OUT:-./gpu-matrix-out}
if (($# > 0)) && [[ $1 != -* ]]; then OUTDIR=$1; shift; fi
mkdir -p "$OUTDIR" || exit 2
ARGS=("$@")
(( ${#ARGS[@]} )) || ARGS=(--matrix)
[[ " ${ARGS[*]} " == *" --matrix"* ]] || ARGS=(--matrix "${ARGS[@]}")

ARCH=${RDX_CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')}
[[ $ARCH =~ ^[0-9]+$ ]] || ARCH=90
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)

echo "== build ($BUILD_DIR, sm_$ARCH)" >&2
{ cmake -S "$ROOT" -B "$ROOT/$BUILD_DIR" ${GEN[@]+"${GEN[@]}"} -DCMAKE_BUILD_TYPE=Release -DRDX_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES="$ARCH" &&
    timeout "$BUILD_TIMEOUT" cmake --build "$ROOT/$BUILD_DIR" -j"$(nproc)" --target rdx-gpu-bench; } \
    >"$OUTDIR/build.log" 2>&1 || { echo "gpu-matrix: build failed, see $OUTDIR/build.log" >&2; exit 2; }

echo "== rdx-gpu-bench ${ARGS[*]} (progress in $OUTDIR/progress.log)" >&2
timeout --kill-after=15 "$MATRIX_TIMEOUT" "$ROOT/$BUILD_DIR/bench/rdx-gpu-bench" "${ARGS[@]}" \
    --csv "$OUTDIR/matrix.csv" >"$OUTDIR/matrix.txt" 2>"$OUTDIR/progress.log"
rc=$?

if [[ -s $OUTDIR/matrix.csv ]] && python3 -c 'import matplotlib' 2>/dev/null; then
    python3 bench/plot_matrix.py "$OUTDIR/matrix.csv" -o "$OUTDIR/plots" >"$OUTDIR/plot.log" 2>&1 \
        || echo "gpu-matrix: plotting failed, see $OUTDIR/plot.log" >&2
else
    echo "gpu-matrix: no plots (no CSV, or matplotlib does not import)" >&2
fi
tail -n 40 "$OUTDIR/matrix.txt"
((rc == 124 || rc == 137)) && echo "gpu-matrix: timed out after $MATRIX_TIMEOUT s" >&2
exit $rc
