#!/usr/bin/env bash
# On a GPU machine (no network needed): installs the package offline with the CUDA backend,
# runs the whole pytest suite with the GPU tests required (CuPy and PyTorch), then the
# benchmark against numpy.sort, torch.sort and cupy.sort, 1-D and rows (--rows).
# scripts/gpu-check.sh calls this.
#
#   python/gpu_check.sh [LOG_DIR]      (logs: python-build.log, python-tests.log,
#                                       python-bench.log, python-bench-rows.log)
#
# Needs, installed: scikit-build-core, CMake, ninja, a C compiler, nvcc, numpy, pytest,
# cupy, torch. Environment: PYTHON (default python3); RDXSORT_BENCH_ARGS (default:
# 2^16, 2^20, 2^24, 2^26, 2^28 on the GPU, median of 10; 2^24 on the CPU, median of 2).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
py="${PYTHON:-python3}"
logs="${1:-$repo/build-py/logs}"
mkdir -p "$logs"
status=0

step() { echo "== python/gpu_check.sh: $*"; }

step "pip install --no-build-isolation (CUDA backend required) -> $logs/python-build.log"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
if ! "$py" -m pip install --no-build-isolation --no-index --no-deps --force-reinstall \
      --disable-pip-version-check -v \
      --config-settings=build-dir="$repo/build-py/gpu-wheel" \
      --config-settings=cmake.define.RDX_CUDA=ON "$here" > "$logs/python-build.log" 2>&1; then
  tail -40 "$logs/python-build.log"
  step "FAILED: the package did not build"
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"  # import the installed package, not the source folder
"$py" -c 'import rdxsort, sys
print("rdxsort", rdxsort.__version__, rdxsort.LIBRARY_PATH)
sys.exit(0 if rdxsort.cuda_available() else "the installed rdxsort cannot use the GPU")'

step "pytest (GPU tests required) -> $logs/python-tests.log"
if RDXSORT_REQUIRE_GPU=1 "$py" -m pytest -q -ra -p no:cacheprovider "$here/tests" \
     > "$logs/python-tests.log" 2>&1; then
  tests="passed"
else
  tests="FAILED"
  status=1
fi
tail -25 "$logs/python-tests.log"

step "bench.py -> $logs/python-bench.log"
# shellcheck disable=SC2086
if "$py" "$here/bench.py" ${RDXSORT_BENCH_ARGS:---log2 16,20,24,26,28 --reps 10 --cpu-log2 24 --cpu-reps 2} \
     --csv "$logs/python-bench.csv" > "$logs/python-bench.log" 2>&1; then
  bench="ran"
else
  bench="FAILED"
  status=1
fi
sed -n '/^CPU (/,$p' "$logs/python-bench.log"
[ "$bench" = ran ] || tail -20 "$logs/python-bench.log"

step "bench.py --rows -> $logs/python-bench-rows.log"
if "$py" "$here/bench.py" --rows --reps 10 --cpu-reps 3 --csv "$logs/python-bench-rows.csv" \
     > "$logs/python-bench-rows.log" 2>&1; then
  :
else
  bench="FAILED"
  status=1
  tail -20 "$logs/python-bench-rows.log"
fi
sed -n '/^CPU ROWS/,$p' "$logs/python-bench-rows.log"

step "summary: tests $tests, bench $bench"
exit $status
