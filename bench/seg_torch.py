#!/usr/bin/env python3
"""rdxsort's row sort against torch.sort(dim=-1, stable=True) on CUDA tensors: same run,
same data.

On the GPU machine, from the repository root, after scripts/gpu-check.sh's build step
(`GPU_CHECK_STEPS=build scripts/gpu-check.sh`: build/ configured with -DRDX_CUDA=ON):

    PYTHONPATH=python RDXSORT_LIBRARY=build/src/librdx.so python3 bench/seg_torch.py [--quick] [--repeat N] [--seed S]

(the package from the source tree with the build tree's librdx.so; when those two are not
set and `import rdxsort` fails, the script sets them itself, from $RDX_BUILD_DIR, default
build). After gpu-check.sh's python step, which installs the package into python3 with
python/gpu_check.sh's `pip install --no-build-isolation --no-index --no-deps ... ./python`,
plainly `python3 bench/seg_torch.py` runs it against the installed package.

Cases: rows x cols in 65536x32, 16384x128, 4096x1024, 1024x16384, 64x2^20, 4x2^24, for
torch.int32, torch.float32 and torch.int64, and two operations:
  sort  rdxsort.torch.sort(t, dim=-1) against torch.sort(t, dim=-1, stable=True): values
        and indices (rdxsort: rdx_cuda_segmented_sort_with_indices_async, one sort that
        writes both);
  keys  rdxsort.sort(t, axis=-1) (keys only: rdx_cuda_segmented_sort_keys_async on a
        copy) against torch.sort(t, dim=-1, stable=True).values (torch has no keys-only
        sort, so its time includes the indices it makes).
--quick: 4096x1024, 65536x32 and 64x2^20, int32 only.

First --warmup-seconds (default 1) of both sides' sorts of the first case's shape, so that
the first case does not pay for a cold start. Each case: 3 warm-ups of both sides, then
--repeat (default 10) timed runs, each on fresh random data (made on the GPU by a
torch.Generator seeded from the printed seed; --seed repeats a run), both sides on the
same tensor, their order alternating between runs. A
time is CUDA events recorded on the current stream around the one call, with
torch.cuda.synchronize() before and after, so it includes the host's launch overhead
(Python, dispatch, temporary allocations) where the GPU waits for it; the table shows the
medians. Integers are uniform over the whole range; floats are normal(0, 1e6), without NaN
or -0.0 (their order is the one place torch's CUDA sort and rdxsort may disagree). Every
timed result is checked bit for bit against torch's: values, and indices (both sorts are
stable, so the indices are unique).

Exit status: 0 all equal; 1 a mismatch or an error of rdxsort (every case still runs);
2 no CUDA device (or no PyTorch).
"""
import argparse
import os
import statistics
import sys
import time

SHAPES = [(65536, 32), (16384, 128), (4096, 1024), (1024, 16384), (64, 1 << 20), (4, 1 << 24)]
QUICK_SHAPES = [(4096, 1024), (65536, 32), (64, 1 << 20)]
DTYPES = ["int32", "float32", "int64"]
QUICK_DTYPES = ["int32"]
OPS = ["sort", "keys"]
WARMUP = 3
# Seconds of sorts (both sides, the first case's shape) before the first case: in round 18
# the first case came out up to 2x slower than the same call later in the script (an idle
# GPU and host warming up), so it ran slower than the cases after it for no reason of its own.
WARMUP_SECONDS = 1.0


def shape_name(rows, cols):
    return "x".join("2^%d" % (d.bit_length() - 1) if d >= 1 << 20 and d & (d - 1) == 0 else str(d)
                    for d in (rows, cols))


def import_rdxsort():
    """The installed package, or the source tree's python/ with the build tree's librdx.so."""
    try:
        import rdxsort
        return rdxsort
    except ImportError as first:
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        build = os.path.join(repo, os.environ.get("RDX_BUILD_DIR", "build"))
        lib = os.environ.get("RDXSORT_LIBRARY") or os.path.join(build, "src", "librdx.so")
        if not os.path.isfile(lib):
            sys.exit("seg_torch: cannot import rdxsort (%s), and there is no %s to use; build "
                     "the library (scripts/gpu-check.sh's build step) or install the package "
                     "(pip install ./python)" % (first, lib))
        os.environ["RDXSORT_LIBRARY"] = lib
        sys.path.insert(0, os.path.join(repo, "python"))
        for name in [m for m in sys.modules if m == "rdxsort" or m.startswith("rdxsort.")]:
            del sys.modules[name]
        import rdxsort
        return rdxsort


def rdx_path(rdxsort):
    """Which entry points rdxsort takes for a CUDA tensor's rows, as its _lib says."""
    L = getattr(rdxsort, "_lib", None)
    if L is None:
        return "unknown"
    if getattr(L, "use_async", False) and "rows_argsort" in getattr(L, "ASYNC_KINDS", ()):
        return ("stream-ordered: rdx_cuda_segmented_argsort_async / _sort_keys_async on "
                "torch's current stream, temporary storage from torch's caching allocator")
    return ("synchronous: rdx_segmented_argsort / rdx_segmented_sort_keys (the library "
            "cudaMallocs and synchronizes in every call; this librdx has no segmented async "
            "entry points)")


class Timer:
    """CUDA events around one call, torch.cuda.synchronize() before and after; with
    --cpu-smoke, perf_counter."""

    def __init__(self, torch, cuda):
        self.torch, self.cuda = torch, cuda

    def __call__(self, fn):
        torch = self.torch
        if not self.cuda:
            t0 = time.perf_counter()
            out = fn()
            return (time.perf_counter() - t0) * 1e3, out
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        out = fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end), out


def make_data(torch, gen, rows, cols, dtype, device):
    """Fresh keys: integers uniform over the dtype's range, floats normal(0, 1e6) without
    NaN or -0.0."""
    shape = (rows, cols)
    if dtype == torch.int32:
        return torch.randint(-(1 << 31), 1 << 31, shape, dtype=torch.int32, device=device,
                             generator=gen)
    if dtype == torch.int64:
        # Two 32-bit halves: hi * 2^32 + lo covers [-2^63, 2^63) and cannot overflow.
        hi = torch.randint(-(1 << 31), 1 << 31, shape, dtype=torch.int64, device=device,
                           generator=gen)
        lo = torch.randint(0, 1 << 32, shape, dtype=torch.int64, device=device, generator=gen)
        return hi * (1 << 32) + lo
    x = torch.randn(shape, dtype=dtype, device=device, generator=gen) * 1e6
    return x + 0.0  # -0.0 + 0.0 is +0.0; randn makes no NaN


def bits(torch, t):
    """t as integers of its width, for bit-for-bit comparison."""
    if t.is_floating_point():
        return t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])
    return t


def first_difference(torch, got, want):
    """'' when equal bit for bit, else a short description of how they differ."""
    if tuple(got.shape) != tuple(want.shape) or got.dtype != want.dtype:
        return "shape/dtype %s %s, expected %s %s" % (tuple(got.shape), got.dtype,
                                                       tuple(want.shape), want.dtype)
    diff = bits(torch, got) != bits(torch, want)
    count = int(diff.sum().item())
    if count == 0:
        return ""
    where = torch.nonzero(diff)[0].tolist()
    return "%d entries differ, the first at %s: %s, expected %s" % (
        count, tuple(where), got[tuple(where)].item(), want[tuple(where)].item())


def warm_up(torch, rt, gen, device, rows, cols, dtype_name, seconds):
    """Both sides' sorts of fresh (rows, cols) tensors, one at a time, for `seconds`."""
    dtype = getattr(torch, dtype_name)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        x = make_data(torch, gen, rows, cols, dtype, device)
        torch.sort(x, dim=-1, stable=True)
        rt.sort(x, dim=-1)
        torch.cuda.synchronize()


def run_case(args, torch, rdxsort, rt, gen, timer, device, rows, cols, dtype_name, op):
    """(torch median ms, rdx median ms, errors) of one case."""
    dtype = getattr(torch, dtype_name)
    if op == "sort":
        def torch_fn(x):
            return torch.sort(x, dim=-1, stable=True)

        def rdx_fn(x):
            return rt.sort(x, dim=-1)

        def check(got, want):
            why = first_difference(torch, got.values, want.values)
            if why:
                return "values: " + why
            why = first_difference(torch, got.indices, want.indices)
            return "indices: " + why if why else ""
    else:
        def torch_fn(x):
            return torch.sort(x, dim=-1, stable=True).values

        def rdx_fn(x):
            return rdxsort.sort(x, axis=-1)

        def check(got, want):
            why = first_difference(torch, got, want)
            return "values: " + why if why else ""

    errors = []
    x = make_data(torch, gen, rows, cols, dtype, device)
    try:
        for _ in range(WARMUP):
            torch_fn(x)
            rdx_fn(x)
    except Exception as e:  # an RdxError, say: the case fails, the others still run
        return None, None, ["warm-up: %s: %s" % (type(e).__name__, e)]
    t_torch, t_rdx = [], []
    for rep in range(args.repeat):
        x = make_data(torch, gen, rows, cols, dtype, device)
        try:
            if rep % 2 == 0:
                ms_t, want = timer(lambda: torch_fn(x))
                ms_r, got = timer(lambda: rdx_fn(x))
            else:
                ms_r, got = timer(lambda: rdx_fn(x))
                ms_t, want = timer(lambda: torch_fn(x))
        except Exception as e:
            errors.append("run %d: %s: %s" % (rep, type(e).__name__, e))
            break
        t_torch.append(ms_t)
        t_rdx.append(ms_r)
        why = check(got, want)
        del got, want
        if why:
            errors.append("run %d: %s" % (rep, why))
            break  # one mismatch is enough; the time is not worth reporting
    del x
    if errors:
        return None, None, errors
    return statistics.median(t_torch), statistics.median(t_rdx), errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="4096x1024, 65536x32 and 64x2^20, int32 only")
    ap.add_argument("--repeat", type=int, default=10,
                    help="timed runs per case, each on fresh data (median; default 10)")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of the data (default: from the clock; printed either way)")
    ap.add_argument("--warmup-seconds", type=float, default=WARMUP_SECONDS,
                    help="seconds of sorts before the first case (default %.1f)" % WARMUP_SECONDS)
    ap.add_argument("--cpu-smoke", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    try:
        import torch
    except ImportError:
        print("seg_torch: no CUDA device: PyTorch is not installed, so no CUDA tensor can be "
              "made", file=sys.stderr)
        return 2
    cuda = not args.cpu_smoke  # --cpu-smoke: the script's logic on CPU tensors (no timing worth reading)
    if cuda and not (torch.cuda.is_available() and torch.cuda.device_count() > 0):
        print("seg_torch: no CUDA device (torch %s, torch.cuda.is_available() is False); "
              "nothing to compare" % torch.__version__, file=sys.stderr)
        return 2
    rdxsort = import_rdxsort()
    if cuda and not rdxsort.cuda_available():
        print("seg_torch: rdxsort (%s) cannot use the GPU: a library built without the CUDA "
              "backend, or one without an image for this GPU" % rdxsort.LIBRARY_PATH,
              file=sys.stderr)
        return 1
    import rdxsort.torch as rt

    device = torch.device("cuda", torch.cuda.current_device()) if cuda else torch.device("cpu")
    seed = args.seed if args.seed is not None else time.time_ns() % (1 << 31)
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    timer = Timer(torch, cuda)
    shapes, dtypes = (QUICK_SHAPES, QUICK_DTYPES) if args.quick else (SHAPES, DTYPES)

    print("rdxsort %s (librdx %s, %s)" % (rdxsort.__version__, rdxsort.version(),
                                          rdxsort.LIBRARY_PATH))
    print("torch %s, %s" % (torch.__version__, torch.cuda.get_device_name(device) if cuda
                            else "CPU (--cpu-smoke: rdxsort's CPU backend, perf_counter times)"))
    if cuda:
        print("rdxsort path: " + rdx_path(rdxsort))
    print("seed %d (--seed %d repeats this data), %.1f s of sorts first, %d warm-ups a case, "
          "median of %d runs" % (seed, seed, args.warmup_seconds if cuda else 0, WARMUP,
                                  args.repeat))
    if cuda and args.warmup_seconds > 0:
        warm_up(torch, rt, gen, device, shapes[0][0], shapes[0][1], dtypes[0],
                args.warmup_seconds)

    head = "%-12s %-8s %-5s %10s %10s %9s" % ("shape", "dtype", "op", "torch ms", "rdx ms",
                                              "speed-up")
    print("\n" + head, flush=True)
    results, failures = [], []
    for dtype_name in dtypes:
        for rows, cols in shapes:
            for op in OPS:
                name = shape_name(rows, cols)
                ms_t, ms_r, errors = run_case(args, torch, rdxsort, rt, gen, timer, device,
                                              rows, cols, dtype_name, op)
                if errors:
                    failures.append((name, dtype_name, op, errors))
                    print("%-12s %-8s %-5s %10s %10s %9s" % (name, dtype_name, op, "-", "-",
                                                             "MISMATCH"), flush=True)
                    for e in errors:
                        print("    " + e, flush=True)
                else:
                    results.append((name, dtype_name, op, ms_t, ms_r))
                    print("%-12s %-8s %-5s %10.3f %10.3f %8.2fx"
                          % (name, dtype_name, op, ms_t, ms_r, ms_t / ms_r), flush=True)
                if cuda:
                    torch.cuda.empty_cache()

    print()
    if results:
        worst = min(results, key=lambda r: r[3] / r[4])
        print("worst speed-up (torch ms / rdx ms): %.2fx, %s %s %s (torch %.3f ms, rdx %.3f ms)"
              % (worst[3] / worst[4], worst[0], worst[1], worst[2], worst[3], worst[4]))
    if failures:
        print("seg_torch: FAILED: %d case(s) where rdxsort differs from torch.sort or failed: %s"
              % (len(failures), ", ".join("%s %s %s" % f[:3] for f in failures)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
