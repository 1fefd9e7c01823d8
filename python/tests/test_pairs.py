"""rdxsort.sort_pairs on NumPy arrays: values of any size move with their keys."""
import numpy as np
import pytest

import rdxsort
from reference import bfloat16, bits, expected_sort, random_keys
from test_keys import assert_same_bits

RECORD = np.dtype([("id", "<u4"), ("weight", "<f8"), ("tag", "S3")])  # 15 bytes, packed


def random_values(rng, kind, n):
    if kind == "u32":
        return rng.integers(0, 1 << 32, n, dtype=np.uint32)
    if kind == "u64":
        return rng.integers(0, 1 << 63, n, dtype=np.uint64)
    if kind == "u8":
        return rng.integers(0, 256, n, dtype=np.uint8)
    if kind == "record":
        v = np.zeros(n, RECORD)
        v["id"] = np.arange(n)
        v["weight"] = rng.standard_normal(n)
        v["tag"] = [b"abc", b"xy", b"z"] * (n // 3) + [b"q"] * (n % 3)
        return v
    if kind == "rows":
        return rng.standard_normal((n, 3)).astype(np.float32)  # 12-byte rows
    raise ValueError(kind)


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("n", [0, 1, 2, 33, 1000, 10**5, 10**6])
@pytest.mark.parametrize("key_dtype,value_kind", [
    (np.uint32, "u32"), (np.uint64, "u64"), (np.float32, "record"), (np.int16, "rows"),
    (np.int8, "u8"), (np.float64, "u32"), (np.float16, "u64"), ("bfloat16", "u32"),
])
def test_sort_pairs(rng, key_dtype, value_kind, n, descending):
    if key_dtype == "bfloat16":
        key_dtype = bfloat16()
        if key_dtype is None:
            pytest.skip("ml_dtypes is not installed")
    keys = random_keys(rng, key_dtype, n, "few")  # many ties: the values show stability
    values = random_values(rng, value_kind, n)
    k0, v0 = keys.copy(), values.copy()
    want_keys, perm = expected_sort(keys, descending=descending)
    got_keys, got_values = rdxsort.sort_pairs(keys, values, descending=descending)
    assert_same_bits(got_keys, want_keys, "keys")
    assert got_values.dtype == values.dtype and got_values.shape == values.shape
    assert got_values.tobytes() == values[perm].tobytes(), "values"
    assert_same_bits(keys, k0, "keys changed")
    assert values.tobytes() == v0.tobytes(), "values changed"


def test_sort_pairs_inplace(rng):
    keys = random_keys(rng, np.int32, 50_000, "few")
    values = random_values(rng, "record", keys.size)
    want_keys, perm = expected_sort(keys, begin_bit=8, end_bit=24)
    want_values = values[perm]
    k, v = rdxsort.sort_pairs(keys, values, inplace=True, begin_bit=8, end_bit=24)
    assert k is keys and v is values
    assert_same_bits(keys, want_keys)
    assert values.tobytes() == want_values.tobytes()


def test_sort_pairs_strided_inplace(rng):
    keys = random_keys(rng, np.uint16, 3 * 4000, "few")[::3]
    values = np.arange(2 * keys.size, dtype=np.int64)[::2].copy()[::-1]  # negative stride
    want_keys, perm = expected_sort(keys)
    want_values = values[perm].copy()
    rdxsort.sort_pairs(keys, values, inplace=True)
    assert_same_bits(keys, want_keys)
    np.testing.assert_array_equal(values, want_values)


def test_argsort_then_gather_equals_sort_pairs(rng):
    keys = random_keys(rng, np.float64, 100_000, "bits")
    values = np.arange(keys.size, dtype=np.uint64)
    _, v = rdxsort.sort_pairs(keys, values, descending=True)
    np.testing.assert_array_equal(v, rdxsort.argsort(keys, descending=True, index_dtype=np.uint64))
    assert bits(keys).size == keys.size
