#!/usr/bin/env bash
# Builds the sdist with `python -m build --sdist`, builds a wheel from that sdist alone
# (outside the repository, so only the C sources the sdist carries are there), installs
# the wheel into a fresh virtual environment and sorts with it. python/run_tests.sh calls
# this; it needs PyPI (numpy, build, scikit-build-core, and CMake where the machine's is
# older than 3.25).
#
#   python/check_sdist.sh [OUT_DIR]     (default: a temporary folder, removed afterwards)
#
# Environment: PYTHON (default python3); RDXSORT_CUDA=AUTO|ON|OFF for the wheel (default
# OFF: the CUDA build is checked by the main install; this checks the packaging).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
out="${1:-$work/dist}"
mkdir -p "$out"
pipq=(-q --disable-pip-version-check)

step() { echo "python/check_sdist.sh: $*"; }

step "python -m build --sdist -> $out"
"$py" -m venv "$work/build-env"
"$work/build-env/bin/python" -m pip install "${pipq[@]}" build
"$work/build-env/bin/python" -m build --sdist --outdir "$out" "$here" > "$work/sdist.log" 2>&1 ||
  { cat "$work/sdist.log"; exit 1; }
sdist=("$out"/rdxsort-*.tar.gz)
tar tzf "${sdist[0]}" > "$work/sdist.txt"
grep -q "/native/src/api.c$" "$work/sdist.txt" ||
  { step "FAILED: the sdist lacks the C sources (native/src/api.c)"; exit 1; }

step "wheel from the unpacked sdist (RDX_CUDA=${RDXSORT_CUDA:-OFF})"
mkdir "$work/unpacked"
tar xzf "${sdist[0]}" -C "$work/unpacked"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
SKBUILD_CMAKE_DEFINE="RDX_CUDA=${RDXSORT_CUDA:-OFF}" "$work/build-env/bin/python" -m build \
  --wheel --outdir "$out" "$work/unpacked"/rdxsort-* > "$work/wheel.log" 2>&1 ||
  { tail -40 "$work/wheel.log"; exit 1; }
wheel=("$out"/rdxsort-*.whl)

step "install $(basename "${wheel[0]}") into a fresh venv and sort"
"$py" -m venv "$work/fresh"
"$work/fresh/bin/python" -m pip install "${pipq[@]}" "${wheel[0]}"
cd "$work"
"$work/fresh/bin/python" - <<'EOF'
import numpy as np
import rdxsort

rng = np.random.default_rng()
a = rng.integers(-1000, 1000, 10_000, dtype=np.int32)
assert np.array_equal(rdxsort.sort(a), np.sort(a, kind="stable"))
assert np.array_equal(rdxsort.argsort(a), np.argsort(a, kind="stable"))
m = rng.standard_normal((100, 300)).astype(np.float32)
m[::7, ::5] = np.nan
m[1::9, ::3] = -np.nan
for axis in (-1, 0):  # the segmented sort, in NumPy's float order
    assert np.array_equal(rdxsort.argsort(m, axis), np.argsort(m, axis, kind="stable"))
print("python/check_sdist.sh: the wheel built from the sdist sorts (rdxsort %s, %s)"
      % (rdxsort.__version__, rdxsort.LIBRARY_PATH))
EOF
