#!/usr/bin/env python3
"""rdxsort against numpy.sort (CPU), torch.sort and cupy.sort (GPU): same run, same arrays.

    python/bench.py                          # CPU: 2^16, 2^20, 2^24; GPU: 2^16 ... 2^28
    python/bench.py --no-gpu --cpu-log2 24   # the CPU target of issue 5
    python/bench.py --no-cpu --log2 26,28 --dtypes uint32,float32
    python/bench.py --rows                   # rows: torch.sort(dim=-1), numpy.sort(axis=-1)

Every sort is out of place (a new sorted array, as numpy.sort, cupy.sort and torch.sort
return); "rdx inpl" is rdxsort.sort(..., inplace=True) on a fresh copy each run. GPU times
come from CUDA events around the sort alone, median of --reps runs after --warmup runs;
CPU times from perf_counter, median of --cpu-reps runs after one warm-up. Ratios are
throughput ratios: "rdx/torch 2.0" means rdxsort sorts twice as many keys per second.
torch.sort also returns indices (it has no keys-only sort); cupy.sort returns keys only.
Each result is checked against the peer's before timing.

--rows times sorting the rows of matrices instead (issue 14): on the GPU
rdxsort.torch.sort(t, dim=-1) (values and indices, as torch.sort returns) and
rdxsort.sort(t, axis=-1) (keys only) against torch.sort(t, dim=-1), default and stable, for
65536 x 32 ... 4 x 2^24; on the CPU rdxsort.sort(a, axis=-1) against
numpy.sort(a, axis=-1, kind="stable") for 4096 x 4096.
"""
import argparse
import csv
import os
import statistics
import sys
import time

import numpy as np

# Use the installed package (with its librdx.so), not the source folder beside this file.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
import rdxsort  # noqa: E402

DTYPES = ["int32", "uint32", "float32", "int64", "float64"]


def parse_log2(text):
    return [int(v) for v in text.split(",") if v.strip()]


INT_BITS = None  # --int-bits: signed integers uniform in [-2^B, 2^B) instead of the full range


def host_keys(rng, dtype, n):
    """Uniform keys: the full range for integers (or [-2^B, 2^B) with --int-bits B, as
    issue 11's int64 row in +-2^62), normal(0, 1e6) for floats (no NaN)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(n) * 1e6).astype(dtype)
    info = np.iinfo(dtype)
    if INT_BITS is not None and dtype.kind == "i" and INT_BITS < 8 * dtype.itemsize - 1:
        return rng.integers(-(1 << INT_BITS), 1 << INT_BITS, n, dtype=dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def median_ms(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def bench_cpu(args, rng, rows):
    for dtype in args.dtypes:
        for k in args.cpu_log2:
            n = 1 << k
            x = host_keys(rng, dtype, n)
            want = np.sort(x, kind="stable")
            if not np.array_equal(rdxsort.sort(x), want):
                sys.exit("bench: rdxsort.sort disagrees with numpy.sort for %s n=2^%d" % (dtype, k))
            r = {"side": "cpu", "dtype": dtype, "n": n}
            r["rdx"] = median_ms(lambda: rdxsort.sort(x), args.cpu_reps, 1)
            r["numpy stable"] = median_ms(lambda: np.sort(x, kind="stable"), args.cpu_reps, 1)
            r["numpy default"] = median_ms(lambda: np.sort(x), args.cpu_reps, 1)
            rows.append(r)
            print_progress(r)


class GpuTimer:
    """CUDA events on the current stream of CuPy or PyTorch."""

    def __init__(self, lib):
        self.lib = lib

    def time_ms(self, fn, prepare, reps, warmup):
        times = []
        for i in range(warmup + reps):
            arg = prepare()
            if self.lib == "cupy":
                import cupy
                start, end = cupy.cuda.Event(), cupy.cuda.Event()
                start.record()
                fn(arg)
                end.record()
                end.synchronize()
                ms = cupy.cuda.get_elapsed_time(start, end)
            else:
                import torch
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn(arg)
                end.record()
                end.synchronize()
                ms = start.elapsed_time(end)
            if i >= warmup:
                times.append(ms)
        return statistics.median(times)


def bench_gpu(args, rng, rows):
    try:
        import cupy
    except ImportError:
        cupy = None
    try:
        import torch
        if not torch.cuda.is_available():
            torch = None
    except ImportError:
        torch = None
    if cupy is None and torch is None:
        print("bench: no GPU peers (neither CuPy nor PyTorch with CUDA); GPU part skipped")
        return
    if not rdxsort.cuda_available():
        sys.exit("bench: rdxsort has no usable CUDA backend; GPU part impossible")
    for dtype in args.dtypes:
        for k in args.log2:
            r = gpu_case(args, rng, cupy, torch, dtype, k)
            rows.append(r)
            print_progress(r)
            if cupy is not None:
                cupy.get_default_memory_pool().free_all_blocks()
            if torch is not None:
                torch.cuda.empty_cache()


def gpu_case(args, rng, cupy, torch, dtype, k):
    """Times one dtype and size: rdxsort on a CuPy array (or a tensor, without CuPy), and
    torch.sort and cupy.sort on the very same device memory."""
    n = 1 << k
    host = host_keys(rng, dtype, n)
    if cupy is not None:
        x = cupy.asarray(host)
        t = torch.from_dlpack(x) if torch is not None else None  # shares x's memory
        mine, fresh_copy = x, x.copy
    else:
        x, t = None, torch.from_numpy(host).cuda()
        mine, fresh_copy = t, t.clone
    got = rdxsort.sort(mine)
    want = cupy.sort(x) if cupy is not None else torch.sort(t).values
    if not bool((got == want).all()):
        sys.exit("bench: rdxsort.sort disagrees with the GPU peer for %s n=2^%d" % (dtype, k))
    del got, want
    timer = GpuTimer("cupy" if cupy is not None else "torch")
    r = {"side": "gpu", "dtype": dtype, "n": n}
    r["rdx"] = timer.time_ms(lambda _: rdxsort.sort(mine), _nothing, args.reps, args.warmup)
    r["rdx inpl"] = timer.time_ms(lambda y: rdxsort.sort(y, inplace=True), fresh_copy,
                                  args.reps, args.warmup)
    if torch is not None and torch_sorts(torch, t):
        r["torch"] = GpuTimer("torch").time_ms(lambda _: torch.sort(t), _nothing,
                                               args.reps, args.warmup)
    if cupy is not None:
        r["cupy"] = GpuTimer("cupy").time_ms(lambda _: cupy.sort(x), _nothing,
                                             args.reps, args.warmup)
    return r


def torch_sorts(torch, t):
    """Whether torch.sort handles t's dtype on the GPU (some builds lack uint32 there);
    the row then shows '-' for torch instead of stopping the benchmark."""
    try:
        torch.sort(t[:2])
        return True
    except (RuntimeError, NotImplementedError, TypeError) as e:
        print("  torch.sort cannot sort %s here (%s); no torch column for it"
              % (t.dtype, str(e).splitlines()[0]), flush=True)
        return False


def _nothing():
    return None


def print_progress(r):
    parts = ["%s %.3f ms" % (k, v) for k, v in r.items() if isinstance(v, float)]
    size = r["shape"] if "shape" in r else "2^%-2d" % (r["n"].bit_length() - 1)
    print("  %s %-7s %s  %s" % (r["side"], r["dtype"], size, ", ".join(parts)), flush=True)


# --rows: the shapes of issue 14 (rows x columns).
GPU_ROW_SHAPES = [(65536, 32), (16384, 128), (4096, 1024), (1024, 16384), (64, 1 << 20),
                  (4, 1 << 24)]
CPU_ROW_SHAPES = [(4096, 4096)]


def shape_name(shape):
    return "x".join("2^%d" % (d.bit_length() - 1) if d >= 1 << 20 else str(d) for d in shape)


def bench_rows_cpu(args, rng, rows):
    for dtype in args.dtypes:
        for shape in CPU_ROW_SHAPES:
            x = host_keys(rng, dtype, shape[0] * shape[1]).reshape(shape)
            if not np.array_equal(rdxsort.sort(x), np.sort(x, axis=-1, kind="stable")):
                sys.exit("bench: rdxsort.sort(axis=-1) disagrees with numpy.sort for %s %s"
                         % (dtype, shape))
            r = {"side": "cpu rows", "dtype": dtype, "n": x.size, "shape": shape_name(shape)}
            r["rdx"] = median_ms(lambda: rdxsort.sort(x, axis=-1), args.cpu_reps, 1)
            r["numpy stable"] = median_ms(lambda: np.sort(x, axis=-1, kind="stable"),
                                          args.cpu_reps, 1)
            r["numpy default"] = median_ms(lambda: np.sort(x, axis=-1), args.cpu_reps, 1)
            rows.append(r)
            print_progress(r)


def bench_rows_gpu(args, rng, rows):
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available():
        print("bench: --rows on the GPU needs PyTorch with CUDA; GPU part skipped")
        return
    if not rdxsort.cuda_available():
        sys.exit("bench: rdxsort has no usable CUDA backend; GPU part impossible")
    import rdxsort.torch as rt
    timer = GpuTimer("torch")
    for dtype in args.dtypes:
        for shape in GPU_ROW_SHAPES:
            host = host_keys(rng, dtype, shape[0] * shape[1]).reshape(shape)
            t = torch.from_numpy(host).cuda()
            want = torch.sort(t, dim=-1, stable=True)
            got = rt.sort(t, dim=-1)
            if not (torch.equal(got.values, want.values) and torch.equal(got.indices, want.indices)):
                sys.exit("bench: rdxsort.torch.sort disagrees with torch.sort for %s %s"
                         % (dtype, shape))
            del want, got
            r = {"side": "gpu rows", "dtype": dtype, "n": t.numel(), "shape": shape_name(shape)}
            r["rdx.torch"] = timer.time_ms(lambda _: rt.sort(t, dim=-1), _nothing, args.reps,
                                           args.warmup)
            r["rdx keys"] = timer.time_ms(lambda _: rdxsort.sort(t, axis=-1), _nothing,
                                          args.reps, args.warmup)
            r["torch"] = timer.time_ms(lambda _: torch.sort(t, dim=-1), _nothing, args.reps,
                                       args.warmup)
            r["torch stable"] = timer.time_ms(lambda _: torch.sort(t, dim=-1, stable=True),
                                              _nothing, args.reps, args.warmup)
            rows.append(r)
            print_progress(r)
            torch.cuda.empty_cache()


def rows_table(rows, side, mine, peers):
    rows = [r for r in rows if r["side"] == side]
    if not rows:
        return
    cols = [c for c in mine + peers if any(c in r for r in rows)]
    print("\n" + side.upper() + " (ms, median; ratio = the peer's time / rdxsort's)")
    print("%-8s %-12s" % ("dtype", "shape") + "".join(" %14s" % c for c in cols)
          + "".join(" %20s" % ("%s/%s" % (p, mine[0])) for p in peers))
    for r in rows:
        line = "%-8s %-12s" % (r["dtype"], r["shape"])
        line += "".join(" %14s" % ("%.3f" % r[c] if c in r else "-") for c in cols)
        line += "".join(" %20s" % ("%.2fx" % (r[p] / r[mine[0]]) if p in r else "-")
                        for p in peers)
        print(line)


def table(rows, side, peers, ratios):
    rows = [r for r in rows if r["side"] == side]
    if not rows:
        return
    cols = [c for c in ["rdx", "rdx inpl"] + peers if any(c in r for r in rows)]
    unit, scale = ("Gkey/s", 1e6) if side == "gpu" else ("Mkey/s", 1e3)  # n / ms / scale
    head = "%-8s %6s" % ("dtype", "n") + "".join(" %15s %7s" % (c + " ms", unit) for c in cols)
    head += "".join(" %17s" % ("rdx/" + p) for p in ratios if any(p in r for r in rows))
    print("\n" + side.upper() + " (ratio = rdxsort's throughput / the peer's)")
    print(head)
    for r in rows:
        line = "%-8s 2^%-4d" % (r["dtype"], r["n"].bit_length() - 1)
        for c in cols:
            if c in r:
                line += " %15.3f %7.1f" % (r[c], r["n"] / r[c] / scale)
            else:
                line += " %15s %7s" % ("-", "-")
        for p in ratios:
            if any(p in q for q in rows):
                line += " %17s" % ("%.2fx" % (r[p] / r["rdx"]) if p in r else "-")
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log2", type=parse_log2, default=list(range(16, 29, 2)),
                    help="GPU sizes as powers of two, comma-separated (default 16,18,...,28)")
    ap.add_argument("--cpu-log2", type=parse_log2, default=[16, 20, 24],
                    help="CPU sizes as powers of two (default 16,20,24)")
    ap.add_argument("--dtypes", type=lambda s: s.split(","), default=DTYPES,
                    help="comma-separated (default %s)" % ",".join(DTYPES))
    ap.add_argument("--reps", type=int, default=15, help="timed GPU runs (median; >= 10)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed GPU runs first")
    ap.add_argument("--cpu-reps", type=int, default=5, help="timed CPU runs (median)")
    ap.add_argument("--no-cpu", action="store_true", help="skip the CPU comparison")
    ap.add_argument("--no-gpu", action="store_true", help="skip the GPU comparison")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--csv", help="also write the rows to this CSV file")
    ap.add_argument("--rows", action="store_true",
                    help="sort the rows of matrices (issue 14's shapes) instead of 1-D arrays; "
                         "dtypes default to int32,float32")
    ap.add_argument("--int-bits", type=int, default=None,
                    help="signed integer keys uniform in [-2^B, 2^B) instead of the whole range")
    args = ap.parse_args()
    global INT_BITS
    INT_BITS = args.int_bits
    if args.rows and "--dtypes" not in sys.argv:
        args.dtypes = ["int32", "float32"]
    for d in args.dtypes:
        if d not in DTYPES:
            ap.error("unknown dtype %r (choose from %s)" % (d, ",".join(DTYPES)))
    seed = args.seed if args.seed is not None else int(time.time())
    rng = np.random.default_rng(seed)
    print("rdxsort %s (%s), seed %d" % (rdxsort.__version__, rdxsort.LIBRARY_PATH, seed))

    rows = []
    if not args.no_cpu:
        (bench_rows_cpu if args.rows else bench_cpu)(args, rng, rows)
    if not args.no_gpu:
        (bench_rows_gpu if args.rows else bench_gpu)(args, rng, rows)
    if args.csv:
        keys = ["side", "dtype", "n", "shape", "rdx", "rdx inpl", "rdx.torch", "rdx keys",
                "numpy stable", "numpy default", "torch", "torch stable", "cupy"]
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
    table(rows, "cpu", ["numpy stable", "numpy default"], ["numpy stable", "numpy default"])
    table(rows, "gpu", ["torch", "cupy"], ["torch", "cupy"])
    rows_table(rows, "cpu rows", ["rdx"], ["numpy stable", "numpy default"])
    rows_table(rows, "gpu rows", ["rdx.torch", "rdx keys"], ["torch", "torch stable"])


if __name__ == "__main__":
    main()
