#!/usr/bin/env bash
# The whole check on a GPU machine (issue 3): build Release with the CUDA backend, run every
# test, the concurrency stress on the GPU, compute-sanitizer (memcheck, racecheck, synccheck,
# initcheck) over every GPU test that fits at small sizes, the Python GPU checks when
# present, then the GPU benchmark (CSV, and a plot when matplotlib imports) and the matrix's
# quick subset (rdx-gpu-bench --matrix=quick, CSV and plots). Prints a summary table (step /
# result / seconds) and the benchmark table last; exits non-zero when any step failed. Needs
# only the CUDA toolkit, CMake and (preferably) ninja. Budget: about 30 minutes in all on an
# H100 or H200 (the sanitizers up to 13 of them); a device call of at most 10 minutes takes
# the steps in parts (GPU_CHECK_STEPS, GPU_CHECK_SAN_TOOLS below).
#
# usage: [GPU_CHECK_STEPS=LIST] scripts/gpu-check.sh [OUTDIR]
#   logs go to OUTDIR, else $OUT, else ./gpu-check-out.
#   GPU_CHECK_STEPS: the steps to run, a comma list of build, ctest, stress, sanitizers,
#   python, bench, matrix (default: all). The build is incremental, so a machine with a
#   shorter limit per command can run the check in parts, each part with the build first
#   (on an H200 the build takes about 110 s and ctest about 400 s: with 10 minutes a
#   command, ctest and the sanitizers go in separate parts):
#     GPU_CHECK_STEPS=build,ctest,stress scripts/gpu-check.sh
#     GPU_CHECK_STEPS=build,python,bench,matrix scripts/gpu-check.sh
#   GPU_CHECK_SAN_TOOLS: the sanitizer step's tools, a comma list of memcheck, racecheck,
#   synccheck, initcheck (default: all). The step takes up to about 12 minutes; where a
#   command may run 10 at most, it goes in two parts:
#     GPU_CHECK_STEPS=build,sanitizers GPU_CHECK_SAN_TOOLS=memcheck,synccheck,initcheck ...
#     GPU_CHECK_STEPS=build,sanitizers GPU_CHECK_SAN_TOOLS=racecheck ...
#   Without build in the list the steps use the build in RDX_BUILD_DIR as it is (the check
#   fails where that folder holds no build: no CMakeCache.txt).
set -uo pipefail

# ---- settings: adjust here ----
BUILD_DIR=${RDX_BUILD_DIR:-build}                 # relative to the repository root
# Every ctest test that uses the GPU, run under each sanitizer: an executable in BUILD_DIR
# (it must exist) and its arguments. Left out: test_cuda_huge (2^32 + 7 keys, far too many
# for the sanitizers; it runs with RDX_TEST_HUGE=1 in the ctest step) and test_dist_mpi
# (two processes under mpiexec; ctest runs it).
GPU_TESTS=(tests/test_cuda_suite tests/test_cuda_stream tests/test_cuda_routes tests/test_cuda_msd
           tests/test_cuda_bad tests/test_cuda_threads tests/test_cuda_cub tests/test_segmented_cuda tests/test_cuda_lowmem
           "tests/test_inject cuda" "tests/test_stress cuda")
# Run under the sanitizers too, when built: the distributed sort (built with NCCL; it exits
# 77, a SKIP here, with fewer than 2 GPUs).
GPU_TESTS_OPTIONAL=(tests/test_dist_gpu)
SAN_TOOLS=(memcheck racecheck synccheck initcheck)
if [[ -n ${GPU_CHECK_SAN_TOOLS:-} ]]; then
    IFS=, read -ra asked_tools <<<"$GPU_CHECK_SAN_TOOLS"
    for w in "${asked_tools[@]}"; do
        [[ " ${SAN_TOOLS[*]} " == *" $w "* ]] || { echo "gpu-check: unknown tool '$w' in GPU_CHECK_SAN_TOOLS (tools: ${SAN_TOOLS[*]})" >&2; exit 2; }
    done
    SAN_TOOLS=("${asked_tools[@]}")
fi
# Largest log2 size the GPU tests try under each tool, through this variable (every GPU test
# reads it). racecheck tracks every shared-memory access, so it gets the smallest.
SAN_SIZE_ENV=RDX_TEST_MAX_LOG2_N
# Under the sanitizers test_cuda_suite leaves out the shared suite (its ~23000 sorts take far
# longer than the time limits there; ctest runs it without them): RDX_TEST_SUITE=0; and
# RDX_TEST_SANITIZER=1 thins the others: test_cuda_stream runs every 8th case of its
# out-of-place matrix, test_cuda_threads two rounds, test_segmented_cuda one payload kind
# per type and order, test_inject its marked cases with at most 4 failure points per walk.
SAN_EXTRA_ENV=(RDX_TEST_SUITE=0 RDX_TEST_SANITIZER=1)
# More environment for one test under the sanitizers (by executable name): the stress runs
# 10 s with 2 threads (n up to 2^(SAN_LOG2N + 1), through RDX_TEST_MAX_LOG2_N; 20 s with 4
# threads ran past racecheck's limit on an H200, beside the other 49 sanitizer runs), and
# prints each sort as it starts (racecheck's run hung once: the log names the sort).
declare -A SAN_TEST_ENV=([test_stress]="RDX_TEST_STRESS_SECONDS=10 RDX_TEST_STRESS_THREADS=2 RDX_TEST_STRESS_TRACE=1"
                         [test_dist_gpu]="NCCL_NVLS_ENABLE=0")
# racecheck at 2^12 ran past 240 s for test_cuda_cub and test_segmented_cuda (H200, all 50
# runs at once): 2^10 and 300 s.
declare -A SAN_LOG2N=([memcheck]=14 [racecheck]=10 [synccheck]=14 [initcheck]=14)
# Runs that go alone, after the others (TOOL-EXECUTABLE): racecheck on the stress test
# failed twice beside the other runs with compute-sanitizer's own "Internal Sanitizer
# Error: Detected a failure to track a kernel launch", and passed alone with 0 hazards
# (round 9, device calls 5, 9 and 10).
# racecheck on test_cuda_lowmem (130 s alone) ran past 300 s beside the others and took
# test_segmented_cuda's racecheck past it with it (round 15, device call 3).
# racecheck on test_cuda_msd (with the deep level's cases) ran past 300 s beside the others,
# and took 202 s alone (round 32, device calls 6 and 7).
SAN_ALONE=(racecheck-test_stress racecheck-test_cuda_lowmem racecheck-test_cuda_msd)
# More environment for one run (TOOL-EXECUTABLE), after the test's own: racecheck runs the
# stress with one host thread. With two it reported compute-sanitizer's internal error
# ("failure to track a kernel launch", round 9 call 5 and round 11 call 9, alone: 213
# sorts, 0 wrong, no hazard) and hung past 300 s twice (round 10 call 5, round 11 call
# 8). racecheck checks shared memory within each block, which the host threads do not
# change; memcheck, synccheck and initcheck keep two threads.
# racecheck on test_segmented_cuda sorts half the key types in each layout (every type in
# about half of them): on the whole set it took 289 of its 300 s (round 19, H200).
declare -A SAN_RUN_ENV=([racecheck-test_stress]="RDX_TEST_STRESS_THREADS=1"
                        [racecheck-test_segmented_cuda]="RDX_TEST_SEG_HALF_TYPES=1")
# Runs split into shares that go side by side (TOOL-EXECUTABLE: shares; the test takes its
# share as the argument K/N): racecheck on test_cuda_msd ran past 400 s beside the other
# tools, past 500 s beside a build (round 48, H100) and past 330 s in 4 shares; in 4 shares
# alone each took 402-438 s (round 49, H100: 75 sorts, 1-68 s each, most 15-45 s whatever
# their size; RDX_TEST_MSD_TRACE=1 times them). 8 shares since round 58 (the test has gained
# sorts since; its 4 shares ran past 285 s beside other runs on an H200, no result; 8 not yet
# timed).
declare -A SAN_SHARDS=([racecheck-test_cuda_msd]=8)
declare -A SAN_TIMEOUT=([memcheck]=180 [racecheck]=300 [synccheck]=180 [initcheck]=180)   # seconds; the runs go in parallel
# The runs of SAN_ALONE (below), together after the others: racecheck on test_cuda_msd took
# 293 s in round 38 (H200 call 9, with level 3's wide shape), 438 s in its slowest of 4
# shares in round 49 (H100).
SAN_ALONE_TIMEOUT=600
CONFIGURE_TIMEOUT=120
BUILD_TIMEOUT=420
CTEST_TIMEOUT=510        # the whole ctest step (with the 2^32 + 7-key test); 420 s ran out in round 30
                         # (inject_cuda_1 239 s with argsorts on the MSD route, cuda_lowmem 197 s alone)
CTEST_JOBS=4             # CPU tests use every core through OpenMP anyway
PYTHON_TIMEOUT=600      # the wheel built, 761 tests (171 s on an H100) and bench.py 1-D and rows: 420 s ran out in bench.py --rows (round 49)
BENCH_TIMEOUT=300
BENCH_ARGS=()            # the benchmark's full default set
MATRIX_TIMEOUT=240       # the matrix's quick subset: every case and distribution at 3 sizes, < 3 min on an H200
MATRIX_ARGS=(--matrix=quick)   # the whole matrix (~10 min) is its own command: rdx-gpu-bench --matrix
STRESS_SECONDS=30; STRESS_THREADS=16; STRESS_TIMEOUT=120
# -------------------------------

ALL_STEPS=(build ctest stress sanitizers python bench matrix)
GPU_CHECK_STEPS=${GPU_CHECK_STEPS:-all}
if [[ $GPU_CHECK_STEPS != all ]]; then
    IFS=, read -ra asked <<<"$GPU_CHECK_STEPS"
    for w in "${asked[@]}"; do
        [[ " ${ALL_STEPS[*]} " == *" $w "* ]] || { echo "gpu-check: unknown step '$w' in GPU_CHECK_STEPS (steps: ${ALL_STEPS[*]}; or all)" >&2; exit 2; }
    done
fi
# want STEP: whether GPU_CHECK_STEPS asks for it.
want() { [[ $GPU_CHECK_STEPS == all || ,$GPU_CHECK_STEPS, == *,$1,* ]]; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
LOGDIR=${1:-${OUT:-./gpu-check-out}}
mkdir -p "$LOGDIR" || exit 2
LOGDIR=$(cd "$LOGDIR" && pwd)
BUILD="$ROOT/$BUILD_DIR"
JOBS=$(nproc 2>/dev/null || echo 4)
START=$SECONDS

STEPS=() RESULTS=() SECS=() NOTES=()
# record NAME RESULT SECONDS [NOTE]: a step's result for the summary, and a line at once (a
# device call cut off by its time limit still shows the steps that ended).
record() {
    STEPS+=("$1") RESULTS+=("$2") SECS+=("$3") NOTES+=("${4:-}")
    printf -- '-- %s: %s (%s s) %s\n' "$1" "$2" "$3" "${4:-}" >&2
}
failed_any() { local r; for r in "${RESULTS[@]}"; do [[ $r == FAIL ]] && return 0; done; return 1; }

# run_step NAME TIMEOUT CMD...: runs CMD with a time limit, output to LOGDIR/NAME.log.
run_step() {
    local name=$1 limit=$2 t0=$SECONDS rc note=""
    shift 2
    echo "== $name: $*" >&2
    timeout --kill-after=15 "$limit" "$@" >"$LOGDIR/$name.log" 2>&1
    rc=$?
    if ((rc == 124 || rc == 137)); then note="timed out after ${limit} s"; fi
    if ((rc == 0)); then record "$name" PASS $((SECONDS - t0)) "$note"
    else record "$name" FAIL $((SECONDS - t0)) "${note:-exit $rc, see $name.log}"; fi
    echo "   -> ${RESULTS[-1]} (${SECS[-1]} s) ${NOTES[-1]}" >&2
    return $rc
}
skip_step() { record "$1" SKIP 0 "$2"; }

# start_bg NAME TIMEOUT CMD...: as run_step, in the background; collect_bg NAME records it
# after `wait`. The sanitizer runs are independent, so they share the GPU at once.
start_bg() {
    local name=$1 limit=$2
    shift 2
    echo "== $name (in the background): $*" >&2
    ( t0=$SECONDS
      timeout --kill-after=15 "$limit" "$@" >"$LOGDIR/$name.log" 2>&1
      echo "$? $((SECONDS - t0)) $limit" >"$LOGDIR/$name.rc" ) &
}
collect_bg() {
    local name=$1 rc secs limit note=""
    read -r rc secs limit <"$LOGDIR/$name.rc" || { rc=1; secs=0; limit=0; }
    if ((rc == 124 || rc == 137)); then note="timed out after ${limit} s"; fi
    if ((rc == 0)); then record "$name" PASS "$secs" "$note"
    elif ((rc == 77)); then record "$name" SKIP "$secs" "the test skipped itself (exit 77), see $name.log"
    else record "$name" FAIL "$secs" "${note:-exit $rc, see $name.log}"; fi
    echo "== $name -> ${RESULTS[-1]} (${SECS[-1]} s) ${NOTES[-1]}" >&2
    rm -f "$LOGDIR/$name.rc"
}

# ---- the machine ----
{
    echo "date: $(date -u)"; echo "host: $(hostname)"; echo "commit: $(git rev-parse HEAD 2>/dev/null)"
    nvidia-smi 2>&1; nvcc --version 2>&1; cmake --version 2>&1 | head -1
} >"$LOGDIR/machine.log"
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
ARCH=${RDX_CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')}
[[ $ARCH =~ ^[0-9]+$ ]] || ARCH=90
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
SANITIZER=$(command -v compute-sanitizer || true)
for d in "${CUDA_HOME:-}" /usr/local/cuda; do
    [[ -z $SANITIZER && -n $d && -x $d/bin/compute-sanitizer ]] && SANITIZER=$d/bin/compute-sanitizer
done
echo "gpu-check: ${GPU_NAME:-no GPU found} (sm_$ARCH), logs in $LOGDIR" >&2

echo "gpu-check: steps: $GPU_CHECK_STEPS" >&2

# ---- build ----
built=0
if ! want build; then
    # The build of an earlier part, as it is; none there fails the check (its steps would
    # all be skipped, and a check of nothing must not pass).
    if [[ -f $BUILD/CMakeCache.txt ]]; then built=1
    else record build FAIL 0 "no build in $BUILD_DIR (no CMakeCache.txt): add build to GPU_CHECK_STEPS or set RDX_BUILD_DIR"; fi
elif run_step configure "$CONFIGURE_TIMEOUT" cmake -S "$ROOT" -B "$BUILD" ${GEN[@]+"${GEN[@]}"} \
        -DCMAKE_BUILD_TYPE=Release -DRDX_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$ARCH"; then
    run_step build "$BUILD_TIMEOUT" cmake --build "$BUILD" -j"$JOBS" && built=1
else
    skip_step build "configure failed"
fi

# ---- every test, the huge one included ----
if ! want ctest; then :
elif ((built)); then
    if run_step ctest "$CTEST_TIMEOUT" env RDX_TEST_HUGE=1 \
            ctest --test-dir "$BUILD" --output-on-failure -j"$CTEST_JOBS"; then
        # On a GPU machine a skipped GPU test means the GPU was not usable: a failure.
        skipped=$(grep -E '\*\*\*Skipped|Not Run' "$LOGDIR/ctest.log" || true)
        if grep -qi cuda <<<"$skipped"; then
            RESULTS[-1]=FAIL; NOTES[-1]="GPU tests skipped: $(grep -ci cuda <<<"$skipped")"
        elif [[ -n $skipped ]]; then
            NOTES[-1]="$(grep -c . <<<"$skipped") non-GPU test(s) skipped"
        fi
    fi
else
    skip_step ctest "not built"
fi

# ---- concurrency stress: threads with a context each, a third of the calls on their own streams ----
if ! want stress; then :
elif ((built)) && [[ -x $BUILD/tests/test_stress ]]; then
    run_step stress-cuda "$STRESS_TIMEOUT" env RDX_TEST_STRESS_SECONDS="$STRESS_SECONDS" \
        RDX_TEST_STRESS_THREADS="$STRESS_THREADS" "$BUILD/tests/test_stress" cuda
else
    skip_step stress-cuda "not built"
fi

# ---- compute-sanitizer over the GPU tests at small sizes, all runs at once ----
bins=()
for t in "${GPU_TESTS[@]}"; do bins+=("$t"); done
for t in ${GPU_TESTS_OPTIONAL[@]+"${GPU_TESTS_OPTIONAL[@]}"}; do
    read -ra words <<<"$t"
    [[ -x $BUILD/${words[0]} ]] && bins+=("$t")
done
started=()
want sanitizers || bins=()
# start_sanitizer_runs ALONE: the runs listed in SAN_ALONE (1) or all the others (0).
start_sanitizer_runs() {
    local alone=$1 tool t words b base more_env name listed limit shares k share
    for tool in "${SAN_TOOLS[@]}"; do
        for t in ${bins[@]+"${bins[@]}"}; do
            read -ra words <<<"$t"            # the executable, then its arguments
            b=${words[0]} base=$(basename "${words[0]}")
            listed=0
            [[ " ${SAN_ALONE[*]} " == *" $tool-$base "* ]] && listed=1
            ((listed == alone)) || continue
            read -ra more_env <<<"${SAN_TEST_ENV[$base]:-} ${SAN_RUN_ENV[$tool-$base]:-}"
            limit=${SAN_TIMEOUT[$tool]}
            ((alone)) && limit=$SAN_ALONE_TIMEOUT
            shares=${SAN_SHARDS[$tool-$base]:-1}
            for ((k = 1; k <= shares; k++)); do
                name="sanitizer-$tool-$base" share=()
                ((shares > 1)) && name+="-$k-of-$shares" share=("$k/$shares")
                if ((!built)); then skip_step "$name" "not built"
                elif [[ -z $SANITIZER ]]; then record "$name" FAIL 0 "compute-sanitizer not found"
                elif [[ ! -x $BUILD/$b ]]; then record "$name" FAIL 0 "$BUILD_DIR/$b missing (fix GPU_TESTS at the top)"
                else
                    start_bg "$name" "$limit" env "$SAN_SIZE_ENV=${SAN_LOG2N[$tool]}" "${SAN_EXTRA_ENV[@]}" \
                        ${more_env[@]+"${more_env[@]}"} "$SANITIZER" --tool "$tool" --error-exitcode 1 "$BUILD/$b" \
                        "${words[@]:1}" ${share[@]+"${share[@]}"}
                    started+=("$name")
                fi
            done
        done
    done
}
start_sanitizer_runs 0
wait
start_sanitizer_runs 1
wait
for name in ${started[@]+"${started[@]}"}; do collect_bg "$name"; done

# ---- the Python package's GPU checks ----
if ! want python; then :
elif [[ -f python/gpu_check.sh ]]; then
    mkdir -p "$LOGDIR/python"
    run_step python "$PYTHON_TIMEOUT" env OUT="$LOGDIR/python" RDX_BUILD_DIR="$BUILD" \
        bash python/gpu_check.sh "$LOGDIR/python"
else
    skip_step python "python/gpu_check.sh not present"
fi

# ---- the GPU benchmark, and its plot ----
BENCH="$BUILD/bench/rdx-gpu-bench"
CSV="$LOGDIR/gpu_bench.csv"
if ! want bench; then :
elif ((!built)); then skip_step bench "not built"
elif [[ ! -x $BENCH ]]; then record bench FAIL 0 "$BENCH missing"
else
    run_step bench "$BENCH_TIMEOUT" "$BENCH" --csv "$CSV" ${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"}
fi
if ! want bench; then :
elif [[ ! -s $CSV ]]; then skip_step plot "no benchmark CSV"
elif ! python3 -c 'import matplotlib' 2>/dev/null; then skip_step plot "matplotlib does not import"
else run_step plot 120 python3 bench/plot.py "$CSV" -o "$LOGDIR"
fi

# ---- the matrix's quick subset (issue 11), and its plots ----
MCSV="$LOGDIR/matrix_quick.csv"
if ! want matrix; then :
elif ((!built)); then skip_step matrix "not built"
elif [[ ! -x $BENCH ]]; then record matrix FAIL 0 "$BENCH missing"
else run_step matrix "$MATRIX_TIMEOUT" "$BENCH" --csv "$MCSV" "${MATRIX_ARGS[@]}"
fi
if want matrix && [[ -s $MCSV ]] && python3 -c 'import matplotlib' 2>/dev/null; then
    run_step matrix-plot 120 python3 bench/plot_matrix.py "$MCSV" -o "$LOGDIR/matrix_plots"
fi

# ---- summary ----
total=$((SECONDS - START))
{
    echo
    echo "# gpu-check summary: ${GPU_NAME:-no GPU} (sm_$ARCH), $(git rev-parse --short HEAD 2>/dev/null), ${total} s, steps: $GPU_CHECK_STEPS"
    printf '%-40s %-6s %7s  %s\n' step result seconds note
    for i in "${!STEPS[@]}"; do
        printf '%-40s %-6s %7s  %s\n' "${STEPS[$i]}" "${RESULTS[$i]}" "${SECS[$i]}" "${NOTES[$i]}"
    done
    if [[ -f $LOGDIR/bench.log ]] && grep -q '^# rdxsort GPU benchmark results' "$LOGDIR/bench.log"; then
        echo
        sed -n '/^# rdxsort GPU benchmark results/,$p' "$LOGDIR/bench.log"
    fi
    if [[ -f $LOGDIR/matrix.log ]]; then echo; grep -E '^(worst rdx/CUB|[0-9]+ of [0-9]+ rows)' "$LOGDIR/matrix.log"; fi
    echo
    if failed_any; then echo "gpu-check: FAILED (logs in $LOGDIR)"; else echo "gpu-check: all steps passed (logs in $LOGDIR)"; fi
} | tee "$LOGDIR/summary.txt"
failed_any && exit 1
exit 0
