#!/usr/bin/env bash
# The distributed sort's benchmark on a machine with several GPUs (bench/dist_bench.c):
# builds build/ (Release, CUDA + NCCL), then N keys over 1, 2 (and 4 where present) GPUs
# against one GPU, for u32 and u64 keys and four distributions, and the one-host sort of a
# pinned host array. NVLink SHARP stays off (NCCL_NVLS_ENABLE=0: the lent machines do not
# allow multicast objects). CSV files go to out/.
#   scripts/dist-bench.sh [log2 n, default 31] [host log2 n, default 33]
set -euo pipefail
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0
LOG2N=${1:-31}
HOST_LOG2N=${2:-33}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDX_CUDA=ON > /dev/null
cmake --build build -j "$JOBS" --target rdx_dist_bench
mkdir -p out
nvidia-smi topo -m || true
for t in u32 u64; do
  build/bench/rdx-dist-bench --log2n "$LOG2N" --type "$t" --csv "out/dist_bench_$t.csv"
done
build/bench/rdx-dist-bench --host --log2n "$HOST_LOG2N" --type u32 --runs 3
