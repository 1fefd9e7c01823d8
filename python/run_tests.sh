#!/usr/bin/env bash
# Builds and installs the rdxsort Python package from this checkout (pip install ./python,
# which compiles librdx), then runs its pytest suite on the CPU. GPU tests skip cleanly
# here; python/gpu_check.sh runs them on a GPU machine. scripts/test.sh calls this.
#
#   python/run_tests.sh [pytest arguments...]
#
# Environment: PYTHON (default python3); CMAKE_BUILD_PARALLEL_LEVEL (default 2).
# In CI (CI=true) the CUDA backend is left out of this build to save compile time (no GPU
# there to use it; the C tests compile it); RDXSORT_CI_CUDA=1 builds it anyway.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${PYTHON:-python3}"

"$py" -m pip install -q --disable-pip-version-check -r "$here/requirements-test.txt"

export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
if [ "${CI:-}" = "true" ] && [ "${RDXSORT_CI_CUDA:-0}" != "1" ]; then
  export SKBUILD_CMAKE_DEFINE="RDX_CUDA=OFF"
fi
echo "python/run_tests.sh: pip install $here${SKBUILD_CMAKE_DEFINE:+ ($SKBUILD_CMAKE_DEFINE)}"
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$here"

# Run from an empty folder, so that `import rdxsort` is the installed package (with its
# librdx.so), not the source folder python/rdxsort.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$py" -c 'import rdxsort; print("rdxsort", rdxsort.__version__, "from", rdxsort.LIBRARY_PATH,
          "| CUDA backend usable:", rdxsort.cuda_available())'
RDXSORT_REQUIRE_ML_DTYPES=1 "$py" -m pytest -q -ra -p no:cacheprovider "$here/tests" "$@"
