#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with clang (AddressSanitizer + UBSan) in
# build-fuzz/ and runs each for SECONDS (default 30), FUZZ_JOBS (default 2) at a time, each
# on one core. Prints one line per target: name, execs, crashes, coverage (edges at start ->
# at end, and the corpus size). Exits non-zero when a target crashed (a crash, leak, UB
# report, timeout or out-of-memory); the input that did it is kept under build-fuzz/crashes/.
# The seed corpora in tests/fuzz/corpus/<target>/ are read, never written: new inputs go to
# a scratch copy (FUZZ_KEEP_CORPUS=DIR keeps it in DIR/<target>/, and a later run with the
# same DIR starts from it too).
# Installs clang and its libFuzzer runtime (Debian packages) when missing.
# Usage: bash scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: fuzz_text fuzz_cli fuzz_files fuzz_api)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

SECONDS_EACH=${1:-30}
shift || true
ALL_TARGETS=(fuzz_text fuzz_cli fuzz_files fuzz_api)
targets=("$@")
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")
FUZZ_JOBS=${FUZZ_JOBS:-2}
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_install() {
  echo "fuzz.sh: installing $*"
  local log; log=$(mktemp)
  if ! { DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"; } \
       >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"; echo "fuzz.sh: apt-get failed" >&2; exit 1
  fi
  rm -f "$log"
}
# libFuzzer ships in libclang-rt-<version>-dev; OpenMP for clang in libomp-dev.
links() { # does clang link a fuzz target (with OpenMP)?
  local d; d=$(mktemp -d)
  echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' > "$d/t.c"
  clang -fopenmp -fsanitize=fuzzer,address,undefined "$d/t.c" -o "$d/t" >/dev/null 2>&1
  local r=$?; rm -rf "$d"; return $r
}
command -v clang >/dev/null 2>&1 || apt_install clang
if ! links; then
  v=$(clang -dumpversion | cut -d. -f1)
  apt_install "libclang-rt-$v-dev" libomp-dev
  links || { echo "fuzz.sh: clang cannot link a libFuzzer target" >&2; exit 1; }
fi

FLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
log=$(mktemp)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRDX_CUDA=OFF -DRDX_BUILD_BENCH=OFF \
      -DRDX_FUZZ=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS" >"$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build "$BUILD" -j "${JOBS:-2}" --target "${targets[@]}" >"$log" 2>&1 || { cat "$log"; exit 1; }
rm -f "$log"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$BUILD/crashes"

# Runs one target; writes its summary line to $scratch/<target>.line.
run_one() {
  local t=$1 dir=$scratch/$1
  mkdir -p "$dir/corpus" "$dir/work"
  local seeds=$root/tests/fuzz/corpus/$t
  local kept=()
  [ -n "${FUZZ_KEEP_CORPUS:-}" ] && [ -d "$FUZZ_KEEP_CORPUS/$t" ] && kept=("$FUZZ_KEEP_CORPUS/$t")
  local rc=0
  RDX_FUZZ_WORKDIR=$dir/work OMP_NUM_THREADS=1 \
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$root/$BUILD/tests/fuzz/$t" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=2048 \
      -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$root/$BUILD/crashes/$t-" \
      "$dir/corpus" "$seeds" ${kept[@]+"${kept[@]}"} >"$dir/log" 2>&1 || rc=$?
  local execs cov0 cov1 corp
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' || true)
  cov0=$(grep -m1 -o 'INITED cov: [0-9]*' "$dir/log" | grep -o '[0-9]*$' || true)
  cov1=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*$' || true)
  corp=$(grep -o 'corp: [0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*$' || true)
  local crashes=0
  ((rc == 0)) || crashes=1
  printf '%-11s execs %10s  crashes %d  cov %5s -> %-5s corpus %s\n' "$t" "${execs:-?}" "$crashes" \
    "${cov0:-?}" "${cov1:-?}" "${corp:-?}" > "$dir/line"
  if ((rc != 0)); then
    { echo "---- $t failed (exit $rc); the end of its log:"; grep -v '^#[0-9]' "$dir/log" | tail -40; } >> "$dir/line"
  fi
  if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
    mkdir -p "$FUZZ_KEEP_CORPUS/$t" && cp -n "$dir/corpus/"* "$FUZZ_KEEP_CORPUS/$t/" 2>/dev/null || true
  fi
  return $rc
}

echo "fuzz.sh: ${#targets[@]} targets x ${SECONDS_EACH} s, $FUZZ_JOBS at a time"
failed=0
running=0
for t in "${targets[@]}"; do
  [ -d "tests/fuzz/corpus/$t" ] || { echo "fuzz.sh: no target $t (tests/fuzz/corpus/$t)" >&2; exit 2; }
  if ((running >= FUZZ_JOBS)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
for t in "${targets[@]}"; do cat "$scratch/$t/line"; done
if ((failed)); then
  echo "fuzz.sh: a target crashed; its input is in $BUILD/crashes/ (rerun: $BUILD/tests/fuzz/TARGET FILE)" >&2
  exit 1
fi
