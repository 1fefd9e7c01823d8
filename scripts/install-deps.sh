#!/usr/bin/env bash
# Installs what the build, the tests and the benchmarks need on a fresh Debian machine.
# Idempotent and quiet: packages already present are left alone, and `apt-get update`
# runs only when something is missing. Run as root (or with sudo available).
set -euo pipefail

cd "$(dirname "$0")/.."

# Debian packages, each with the command or file that shows it is already there.
#   cmake, ninja-build: the build; libboost-dev: boost::sort::spreadsort for the CPU peers;
#   pkg-config: the install test compiles the example through rdx.pc once.
declare -A present=(
  [cmake]="command -v cmake"
  [ninja-build]="command -v ninja"
  [g++]="command -v g++"
  [pkg-config]="command -v pkg-config"
  [libboost-dev]="test -f /usr/include/boost/sort/spreadsort/spreadsort.hpp"
)

missing=()
for pkg in "${!present[@]}"; do
  if ! eval "${present[$pkg]}" >/dev/null 2>&1; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "install-deps.sh: need root to install: ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "install-deps.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  log=$(mktemp)
  # apt's output only when something goes wrong
  if ! { $sudo apt-get update -qq && \
         $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "install-deps.sh: apt-get failed" >&2
    exit 1
  fi
  rm -f "$log"
fi

# Hook for the Python package (its own helper writes python/requirements-test.txt).
if [ -f python/requirements-test.txt ]; then
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore \
    -r python/requirements-test.txt
fi
