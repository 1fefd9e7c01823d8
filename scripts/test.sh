#!/usr/bin/env bash
# Builds rdxsort and runs every test, from a fresh clone, installing what it needs:
#   1. Release build in build/ (the CUDA backend too where nvcc is found), then ctest;
#   2. a CPU-only build in build-asan/ with AddressSanitizer and UBSan, then ctest again;
#   3. the libFuzzer targets of tests/fuzz/ (scripts/fuzz.sh, clang), 30 s each, 2 at a time;
#   4. the Python package's tests (python/run_tests.sh), where that script exists.
# Exits non-zero when any step fails. Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
start=$SECONDS
log=$(mktemp)
trap 'rm -f "$log"' EXIT
step() { printf '\n== %s (%d s so far)\n' "$*" $((SECONDS - start)); }

step "installing dependencies"
bash scripts/install-deps.sh

step "Release build (build/)"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > "$log" 2>&1 || { cat "$log"; exit 1; }
grep -E "^-- rdx:" "$log" || true
cmake --build build -j "$JOBS"

step "tests (build/)"
(cd build && ctest --output-on-failure -j2)

step "AddressSanitizer + UBSan build, CPU only (build-asan/)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDX_CUDA=OFF \
      -DCMAKE_C_FLAGS="$SANITIZE" -DCMAKE_CXX_FLAGS="$SANITIZE" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
      -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" > "$log" 2>&1 ||
  { cat "$log"; exit 1; }
cmake --build build-asan -j "$JOBS"

step "tests under the sanitizers (build-asan/)"
(cd build-asan && ctest --output-on-failure -j2)

step "fuzzing (scripts/fuzz.sh, ${FUZZ_SECONDS:-30} s per target)"
FUZZ_JOBS=2 bash scripts/fuzz.sh "${FUZZ_SECONDS:-30}"

if [ -f python/run_tests.sh ]; then
  step "Python package tests"
  bash python/run_tests.sh
fi

step "all tests passed"
