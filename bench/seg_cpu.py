"""The CPU backend's segmented sort against numpy.sort(axis=-1, kind="stable"), same data,
same run (issue 14's CPU target: 2 threads, 4096 x 4096 int32 rows, >= 3x NumPy).

    OMP_NUM_THREADS=2 python3 bench/seg_cpu.py build-cpu/src/librdx.so [rows cols dtype ...]

Loads librdx through ctypes (no package needed, only numpy), sorts a fresh random copy of
the matrix each repeat with rdx_segmented_sort_keys (offsets NULL: equal rows, CPU backend)
and with numpy.sort, checks the results are equal, and prints the median wall time of each
and their ratio. Default cases: 4096 x 4096 int32, float32 (RDX_NUMPY_ORDER), 65536 x 32
int32, 64 x 2^18 int32."""
import ctypes
import statistics
import sys
import time

import numpy as np

RDX_BACKEND_CPU = 1
RDX_NUMPY_ORDER = 2
TYPES = {"int32": 7, "uint32": 3, "int64": 8, "float32": 11, "float64": 12, "int16": 6}


class Opts(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint), ("begin_bit", ctypes.c_int), ("end_bit", ctypes.c_int),
                ("radix_bits", ctypes.c_int)]


def main():
    lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "build-cpu/src/librdx.so")
    lib.rdx_segmented_sort_keys.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                            ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(Opts)]
    lib.rdx_ctx_error.restype = ctypes.c_char_p
    ctx = ctypes.c_void_p()
    assert lib.rdx_ctx_create(ctypes.byref(ctx), RDX_BACKEND_CPU) == 0
    args = sys.argv[2:]
    cases = [(int(args[i]), int(args[i + 1]), args[i + 2]) for i in range(0, len(args), 3)] or [
        (4096, 4096, "int32"), (4096, 4096, "float32"), (65536, 32, "int32"), (64, 1 << 18, "int32")]
    rng = np.random.default_rng()
    repeats = 7
    print(f"{'rows x cols':>16} {'dtype':>8} {'numpy ms':>10} {'rdx ms':>9} {'speed-up':>9}")
    for rows, cols, dt in cases:
        if dt.startswith("float"):
            base = rng.standard_normal((rows, cols)).astype(dt)
        else:
            info = np.iinfo(dt)
            base = rng.integers(info.min, info.max, (rows, cols), dtype=dt, endpoint=True)
        opts = Opts(RDX_NUMPY_ORDER if dt.startswith("float") else 0, 0, 0, 0)
        tn, tr = [], []
        for _ in range(repeats):
            a = base.copy()
            t0 = time.perf_counter()
            want = np.sort(a, axis=-1, kind="stable")
            tn.append(time.perf_counter() - t0)
            b = base.copy()
            t0 = time.perf_counter()
            st = lib.rdx_segmented_sort_keys(ctx, b.ctypes.data, b.size, TYPES[dt], None, rows, ctypes.byref(opts))
            tr.append(time.perf_counter() - t0)
            if st != 0:
                raise SystemExit(f"rdx failed: {lib.rdx_ctx_error(ctx).decode()}")
            if not np.array_equal(b.view(np.uint8), want.view(np.uint8)):
                raise SystemExit(f"{rows} x {cols} {dt}: rdx result differs from numpy")
        mn, mr = statistics.median(tn) * 1e3, statistics.median(tr) * 1e3
        print(f"{rows:>7} x {cols:<7} {dt:>8} {mn:>10.1f} {mr:>9.1f} {mn / mr:>8.2f}x")
    lib.rdx_ctx_destroy(ctx)


if __name__ == "__main__":
    main()
