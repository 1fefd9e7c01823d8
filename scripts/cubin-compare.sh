#!/usr/bin/env bash
# Shows that a change left the kernels alone: compiles each kernel file of src/cuda to an
# sm_90 cubin at two revisions, with the flags CMake uses for a Release build, and compares
# them: "byte-identical" (cmp), "code identical" (every section but the line tables the
# same: the file's lines moved), or "CODE DIFFERS" with the sections. Both revisions are
# compiled from one path with one file time, as the line tables record both. Needs nvcc
# and python3; no GPU. Takes minutes per file on a small machine.
#
# usage: scripts/cubin-compare.sh REV_BEFORE REV_AFTER [file.cu ...]   (default: the kernel files)
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n 2,9p "$0"; exit 2; }
before=$1 after=$2
shift 2
files=("$@")
[[ ${#files[@]} -gt 0 ]] || files=(histogram.cu scan.cu onesweep.cu small.cu cluster.cu grid.cu gather.cu msd.cu)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The flags of src/CMakeLists.txt and CMAKE_BUILD_TYPE=Release for CUDA files.
FLAGS=(-O3 -DNDEBUG -std=c++17 -arch=sm_90 -cubin -Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr -lineinfo)

compile() { # REV OUTDIR
    rm -rf "$WORK/tree" && mkdir -p "$WORK/tree" "$2"
    git -C "$ROOT" archive "$1" src include | tar -x -C "$WORK/tree"
    find "$WORK/tree" -exec touch -h -d "2026-01-01 00:00:00" {} +
    for f in "${files[@]}"; do
        nvcc "${FLAGS[@]}" -I "$WORK/tree/include" -I "$WORK/tree/src" -o "$2/${f%.cu}.cubin" "$WORK/tree/src/cuda/$f"
    done
}
compile "$before" "$WORK/before"
compile "$after" "$WORK/after"

for f in "${files[@]}"; do
    c=${f%.cu}.cubin
    if cmp -s "$WORK/before/$c" "$WORK/after/$c"; then echo "$f: byte-identical"; continue; fi
    python3 - "$WORK/before/$c" "$WORK/after/$c" "$f" <<'PY'
import struct, sys
def sections(path):
    d = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', d, 0x28)
    size, num, strndx = struct.unpack_from('<HHH', d, 0x3A)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * size) for i in range(num)]
    names = hdrs[strndx][4]
    out = {}
    for h in hdrs:
        name = d[names + h[0]:d.index(b'\0', names + h[0])].decode()
        out[name] = d[h[4]:h[4] + h[5]] if h[1] != 8 else b''
    return out
a, b = sections(sys.argv[1]), sections(sys.argv[2])
lines = ('.debug', '.nv_debug', '.rela.debug', '.rela.nv_debug')
diff = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
code = [n for n in diff if not n.startswith(lines)]
print('%s: %s' % (sys.argv[3], 'CODE DIFFERS: ' + ', '.join(code) if code else
                  'code identical; line tables differ (' + ', '.join(diff) + ')'))
PY
done
