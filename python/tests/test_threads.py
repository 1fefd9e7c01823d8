"""Concurrency from Python: threads sort at once (the library call releases the GIL), each
with random dtypes, sizes, options and entry points, every result checked against the
reference. RDXSORT_TEST_THREADS_SECONDS sets how long (default 3 s)."""
import os
import threading
import time

import numpy as np

import rdxsort
from reference import bfloat16, expected_sort

DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64,
          np.float16, np.float32, np.float64] + ([bfloat16()] if bfloat16() is not None else [])
SECONDS = float(os.environ.get("RDXSORT_TEST_THREADS_SECONDS", "3"))


def random_array(rng, dtype, n):
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, size=n * dtype.itemsize, dtype=np.uint8)
    if rng.random() < 0.3:  # many duplicates
        raw = np.tile(raw[:dtype.itemsize * 3], n)[:n * dtype.itemsize]
    return raw.view(dtype)


def one_sort(rng):
    """One random request; returns None when right, else a description of what went wrong."""
    dtype = DTYPES[rng.integers(len(DTYPES))]
    n = int(rng.integers(0, 1 << int(rng.integers(0, 17))))
    a = random_array(rng, dtype, n)
    desc = bool(rng.integers(2))
    which = int(rng.integers(3))
    _, perm = expected_sort(a, descending=desc)
    if which == 0:
        got = rdxsort.sort(a, descending=desc)
        ok = got.tobytes() == a[perm].tobytes()
    elif which == 1:
        idx = rdxsort.argsort(a, descending=desc,
                              index_dtype=("int64", "uint32")[int(rng.integers(2))])
        ok = np.array_equal(idx.astype(np.int64), perm)
    else:
        v = rng.integers(0, 1 << 30, size=(n, int(rng.integers(1, 4))), dtype=np.int32)
        k2, v2 = rdxsort.sort_pairs(a, v, descending=desc)
        ok = k2.tobytes() == a[perm].tobytes() and np.array_equal(v2, v[perm])
    return None if ok else "%s n=%d descending=%s call %d" % (np.dtype(dtype), n, desc, which)


def test_threads_sort_at_once(rng):
    seeds = rng.integers(0, 1 << 62, size=8)
    stop = time.monotonic() + SECONDS
    counts, wrong, errors = [0] * len(seeds), [], []

    def work(i):
        r = np.random.default_rng(int(seeds[i]))
        try:
            while time.monotonic() < stop:
                bad = one_sort(r)
                counts[i] += 1
                if bad:
                    wrong.append(bad)
        except Exception as e:  # reported below, with the thread's seed
            errors.append("thread %d (seed %d): %r" % (i, seeds[i], e))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(seeds))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("python threads: %d sorts, %d wrong" % (sum(counts), len(wrong)))
    assert not errors, errors[:5]
    assert not wrong, wrong[:5]
    assert all(c > 0 for c in counts)
