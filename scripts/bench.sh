#!/usr/bin/env bash
# Builds rdxsort (Release, in build/) and runs `rdx bench`: rdxsort on every available
# backend against the CPU peers (and, where the CUDA backend is built and a GPU is usable,
# the GPU benchmark against CUB), all results verified; prints the table.
# Installs what it needs first. Arguments go to `rdx bench` (see build/tools/rdx bench --help);
# without any it runs the default set, about a minute on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$JOBS" --target rdx_tool
exec build/tools/rdx bench "$@"
