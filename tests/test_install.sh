#!/usr/bin/env bash
# The installed package works for a user: `cmake --install` this build into a temporary
# prefix, build examples/ against it with find_package(rdx) and run it; then compile the
# same example through pkg-config (when present) and run that too. The example sorts
# float keys with ids; its output must be the stable totalOrder order of its input.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR C_COMPILER "C_FLAGS"
set -euo pipefail

BUILD=$(realpath "$1")
SRC=$(realpath "$2")
CC_=${3:-cc}
CFLAGS_=${4:-}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PREFIX=$WORK/prefix

cmake --install "$BUILD" --prefix "$PREFIX" > "$WORK/install.log" ||
  { cat "$WORK/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in include/rdx.h bin/rdx; do
  [ -e "$PREFIX/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
LIBDIR=$(dirname "$(find "$PREFIX" -name 'librdx.so' | head -1)")
[ -f "$LIBDIR/librdx.a" ] || { echo "FAIL: librdx.a not installed beside librdx.so"; exit 1; }
[ -f "$LIBDIR/pkgconfig/rdx.pc" ] || { echo "FAIL: rdx.pc not installed"; exit 1; }
[ -f "$LIBDIR/cmake/rdx/rdxConfig.cmake" ] || { echo "FAIL: rdxConfig.cmake not installed"; exit 1; }

# What the example must print: its keys in totalOrder (-0 before +0), equal keys (2.25)
# in input order.
expected='-1 (id 1)
-0 (id 3)
0 (id 4)
2.25 (id 2)
2.25 (id 5)
3.5 (id 0)'

# 1. find_package(rdx)
cmake -S "$SRC/examples" -B "$WORK/example" -DCMAKE_PREFIX_PATH="$PREFIX" \
      -DCMAKE_C_COMPILER="$CC_" -DCMAKE_C_FLAGS="$CFLAGS_" > "$WORK/example.log" 2>&1 ||
  { cat "$WORK/example.log"; echo "FAIL: configuring examples/ with find_package(rdx)"; exit 1; }
cmake --build "$WORK/example" >> "$WORK/example.log" 2>&1 ||
  { cat "$WORK/example.log"; echo "FAIL: building examples/"; exit 1; }
got=$("$WORK/example/sort_example")
[ "$got" = "$expected" ] || { printf 'FAIL: find_package example printed\n%s\n' "$got"; exit 1; }
echo "find_package(rdx) example: ok"

# 2. pkg-config (the .pc names the configured prefix, so point it at the temporary one)
if command -v pkg-config > /dev/null; then
  flags=$(PKG_CONFIG_PATH="$LIBDIR/pkgconfig" pkg-config --define-variable=prefix="$PREFIX" \
          --cflags --libs rdx)
  # shellcheck disable=SC2086
  "$CC_" $CFLAGS_ -std=c11 "$SRC/examples/sort_example.c" $flags -o "$WORK/pc_example"
  got=$(LD_LIBRARY_PATH="$LIBDIR" "$WORK/pc_example")
  [ "$got" = "$expected" ] || { printf 'FAIL: pkg-config example printed\n%s\n' "$got"; exit 1; }
  echo "pkg-config example: ok"
else
  echo "pkg-config not installed: only the find_package(rdx) build was tested"
fi
echo "install test: passed"
