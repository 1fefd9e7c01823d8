#!/usr/bin/env bash
# Builds and installs the rdxsort Python package from this checkout (pip install ./python,
# which compiles librdx), then runs its pytest suite on the CPU, then checks the sdist
# (python/check_sdist.sh). GPU tests skip cleanly here; python/gpu_check.sh runs them on a
# GPU machine. scripts/test.sh calls this.
#
#   python/run_tests.sh [pytest arguments...]
#
# Environment: PYTHON (default python3); CMAKE_BUILD_PARALLEL_LEVEL (default 2);
# RDXSORT_CUDA=AUTO|ON|OFF (default AUTO: the CUDA backend is compiled when nvcc is found,
# as on a user's machine; about a minute more on 2 cores. OFF skips it where time matters).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${PYTHON:-python3}"

"$py" -m pip install -q --disable-pip-version-check -r "$here/requirements-test.txt"

export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
export SKBUILD_CMAKE_DEFINE="RDX_CUDA=${RDXSORT_CUDA:-AUTO}"
echo "python/run_tests.sh: pip install $here ($SKBUILD_CMAKE_DEFINE)"
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$here"

# Run from an empty folder, so that `import rdxsort` is the installed package (with its
# librdx.so), not the source folder python/rdxsort.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$py" -c 'import rdxsort, rdxsort._lib as L; print("rdxsort", rdxsort.__version__, "from",
          rdxsort.LIBRARY_PATH, "| CUDA backend built:", L.HAS_ASYNC, "usable:", rdxsort.cuda_available())'
RDXSORT_REQUIRE_ML_DTYPES=1 "$py" -m pytest -q -ra -p no:cacheprovider "$here/tests" "$@"

# The packaging: an sdist that carries the C sources, a wheel built from it alone, and
# that wheel installed into a fresh venv (RDXSORT_SKIP_SDIST=1 skips this while iterating).
if [ "${RDXSORT_SKIP_SDIST:-0}" != 1 ]; then
  PYTHON="$py" bash "$here/check_sdist.sh"
fi
