#!/usr/bin/env python3
"""Host time per call of rdxsort's PyTorch entry points against torch.sort, on CUDA tensors.

    PYTHONPATH=python RDXSORT_LIBRARY=build/src/librdx.so python3 bench/torch_host_time.py

For int32 tensors of each shape (rows x cols, uniform over the whole range), each entry
point is timed two ways: "host", the host's time per call over a loop of calls without a
synchronization (what the Python layers, the dispatcher and the library's enqueue cost);
"events", CUDA events around one call with torch.cuda.synchronize() before and after
(median of 30 after 5 warm-ups), where the GPU waits on the host before the first kernel.
Entry points: torch.sort(stable=True); rdxsort.torch.sort and argsort; the operator
torch.ops.rdxsort.argsort; rdxsort.argsort and rdxsort.sort (the generic calls); and
torch.empty of the indices, for scale. Results are not checked here (seg_torch.py and the
tests do). Exit status 2 without a CUDA device.
"""
import statistics
import sys
import time

SHAPES = [(1, 32), (4096, 1024), (16384, 128), (65536, 32)]


def host_us(f, reps):
    import torch
    for _ in range(50):
        f()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        f()
    us = (time.perf_counter() - t0) / reps * 1e6
    torch.cuda.synchronize()
    return us


def event_ms(f, reps=30):
    import torch
    for _ in range(5):
        f()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        f()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    try:
        import torch
    except ImportError:
        sys.exit(2)
    if not torch.cuda.is_available():
        print("torch_host_time: no CUDA device")
        return 2
    import rdxsort
    import rdxsort.torch as rt
    print("%-12s %-22s %10s %11s" % ("shape", "call", "host us", "events ms"))
    for shape in SHAPES:
        t = torch.randint(-2**31, 2**31 - 1, shape, dtype=torch.int32, device="cuda")
        calls = [("torch.sort", lambda: torch.sort(t, dim=-1, stable=True)),
                 ("rdxsort.torch.sort", lambda: rt.sort(t)),
                 ("rdxsort.torch.argsort", lambda: rt.argsort(t)),
                 ("ops.rdxsort.argsort", lambda: torch.ops.rdxsort.argsort(t, -1, False)),
                 ("rdxsort.argsort", lambda: rdxsort.argsort(t, -1)),
                 ("rdxsort.sort", lambda: rdxsort.sort(t, -1)),
                 ("torch.empty", lambda: torch.empty(shape, dtype=torch.int64, device="cuda"))]
        for name, f in calls:
            print("%-12s %-22s %10.1f %11.4f" % ("x".join(map(str, shape)), name,
                                                 host_us(f, 300 if shape[0] > 1 else 2000),
                                                 event_ms(f)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
