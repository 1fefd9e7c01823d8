import os
import secrets
import zlib

import numpy as np
import pytest

# Fresh data on every run; RDXSORT_TEST_SEED=<n> repeats a run.
BASE_SEED = int(os.environ.get("RDXSORT_TEST_SEED", secrets.randbits(32)))


def pytest_report_header(config):
    return "rdxsort test seed: RDXSORT_TEST_SEED=%d" % BASE_SEED


@pytest.fixture
def rng(request):
    """A generator seeded from the run's seed and the test's name; the seed is printed, so
    pytest shows it with any failure."""
    seed = (BASE_SEED * 1000003 + zlib.crc32(request.node.nodeid.encode())) % (1 << 63)
    print("seed: rerun with RDXSORT_TEST_SEED=%d (this test's generator: %d)" % (BASE_SEED, seed))
    return np.random.default_rng(seed)
