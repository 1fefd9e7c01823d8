"""rdxsort.sort and rdxsort.argsort on 1-D NumPy arrays (the CPU backend) against the
reference and against numpy.sort/argsort(kind="stable"); N-D arrays: test_axes.py."""
import os

import numpy as np
import pytest

import rdxsort
from reference import bfloat16, bits, expected_sort, kind_of, random_keys, reference_permutation

BASIC = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64,
         np.float16, np.float32, np.float64]
DTYPES = BASIC + ([bfloat16()] if bfloat16() is not None else [])
DTYPE_IDS = [np.dtype(d).name for d in DTYPES]
SIZES = [0, 1, 2, 33, 1000, 10**5, 10**6]


def assert_same_bits(got, want, what=""):
    """Bit-for-bit equality, so NaN payloads and the sign of zero count."""
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    gb, wb = bits(got), bits(want)
    bad = np.flatnonzero(gb != wb)
    assert bad.size == 0, "%s: %d of %d keys differ, first at %d: got bits %#x, want %#x" % (
        what, bad.size, gb.size, bad[0], gb[bad[0]], wb[bad[0]])


def test_bfloat16_is_tested():
    # ml_dtypes (requirements-test.txt) gives NumPy its bfloat16; run_tests.sh insists on it.
    # Elsewhere (the GPU machine) bf16 keys are tested through torch.bfloat16 instead.
    if bfloat16() is None:
        if os.environ.get("RDXSORT_REQUIRE_ML_DTYPES") == "1":
            pytest.fail("ml_dtypes is missing, so NumPy bfloat16 keys go untested")
        pytest.skip("ml_dtypes is not installed: NumPy bfloat16 keys untested")


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_sort_and_argsort(rng, dtype, n, descending):
    # Floats in NumPy's order (the default) and in totalOrder; integers know one order.
    orders = (False, True) if kind_of(dtype) == "f" else (False,)
    for dist in ("bits", "few"):
        for total_order in orders:
            a = random_keys(rng, dtype, n, dist)
            before = a.copy()
            what = "%s keys, total_order=%s" % (dist, total_order)
            want, perm = expected_sort(a, total_order, descending=descending)
            got = rdxsort.sort(a, descending=descending, total_order=total_order)
            assert_same_bits(got, want, "sort, " + what)
            assert got is not a
            idx = rdxsort.argsort(a, descending=descending, total_order=total_order)
            assert idx.dtype == np.int64
            np.testing.assert_array_equal(idx, perm, err_msg="argsort, " + what)
            assert_same_bits(a, before, "the input changed")


def test_reference_agrees_with_numpy_on_integers(rng):
    # The oracle itself, checked against numpy's own stable sort where the orders agree.
    for dtype in (np.uint8, np.int16, np.int32, np.uint64, np.int64):
        a = random_keys(rng, dtype, 5000, "few")
        np.testing.assert_array_equal(reference_permutation(bits(a), kind_of(a.dtype)),
                                      np.argsort(a, kind="stable"))
        perm = reference_permutation(bits(a), kind_of(a.dtype), descending=True)
        s = a[perm]
        assert np.all(s[:-1] >= s[1:])
        ties = s[:-1] == s[1:]
        assert np.all(perm[:-1][ties] < perm[1:][ties])  # stable


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint32, np.int64,
                                   np.uint64, np.float16, np.float32, np.float64])
def test_against_numpy_stable(rng, dtype):
    """Where NumPy's order is rdxsort's (no NaN, no -0.0), numpy.sort/argsort(kind="stable")
    are the oracle, ascending and descending."""
    n = 100_000
    if np.dtype(dtype).kind == "f":
        a = (rng.standard_normal(n) * 1e3).astype(dtype)
        a[rng.integers(0, n, 50)] = np.inf
        a[rng.integers(0, n, 50)] = -np.inf
        a[a == 0] = 1  # no zeros of either sign
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        a[::7] = a[3]  # plenty of ties
    np.testing.assert_array_equal(rdxsort.sort(a), np.sort(a, kind="stable"))
    np.testing.assert_array_equal(rdxsort.argsort(a), np.argsort(a, kind="stable"))
    # Stable descending: the ascending stable order of the reversed array, read backwards.
    want = (n - 1 - np.argsort(a[::-1], kind="stable"))[::-1]
    np.testing.assert_array_equal(rdxsort.argsort(a, descending=True), want)
    np.testing.assert_array_equal(rdxsort.sort(a, descending=True), a[want])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, "bfloat16"])
def test_special_floats_in_total_order(rng, dtype):
    if dtype == "bfloat16":
        dtype = bfloat16()
        if dtype is None:
            pytest.skip("ml_dtypes is not installed")
    dtype = np.dtype(dtype)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    width = dtype.itemsize * 8
    sign = 1 << (width - 1)
    mant = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52}[dtype.name]
    inf = ((1 << (width - 1 - mant)) - 1) << mant
    quiet_nan, payload_nan = inf | (1 << (mant - 1)), inf | 1
    max_finite, one = inf - 1, (((1 << (width - 2 - mant)) - 1) << mant)
    positives = [0, 1, one, max_finite, inf, payload_nan, quiet_nan]  # ascending as bits
    # totalOrder: negatives by decreasing magnitude (so -NaN first), then positives.
    order = [p | sign for p in reversed(positives)] + positives
    ordered = np.array(order, dtype=u).view(dtype)
    a = np.repeat(ordered, 3)
    rng.shuffle(a)
    got = rdxsort.sort(a, total_order=True)
    assert_same_bits(got, np.repeat(ordered, 3), "ascending")
    assert_same_bits(rdxsort.sort(a, descending=True, total_order=True),
                     np.repeat(ordered[::-1], 3), "descending")
    assert np.signbit(got[0]) and np.isnan(got[0]) and np.isnan(got[-1]) and not np.signbit(got[-1])


def special_floats(rng, dtype, n):
    """n floats of dtype, a third of them special: NaNs of both signs and with payloads,
    both zeros, both infinities, denormals; the rest normal numbers with many ties."""
    dtype = np.dtype(dtype)
    a = rng.integers(-20, 20, n).astype(dtype) / dtype.type(4)
    info = np.finfo(dtype)
    nan_bits = np.array(np.nan, dtype).view(UINT_OF[dtype.itemsize])
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, info.smallest_subnormal,
                         -info.smallest_subnormal, info.max, -info.max], dtype)
    payload = (nan_bits | 1).view(dtype)  # a NaN with a payload, both signs
    specials = np.concatenate([specials, [payload], [-payload]]).astype(dtype)
    where = rng.random(n) < 1 / 3
    a[where] = specials[rng.integers(0, specials.size, int(where.sum()))]
    return a


UINT_OF = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@pytest.mark.parametrize("n", [1, 2, 100, 5000, 300_000])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_numpy_order_equals_numpy(rng, dtype, n):
    """The default float order is NumPy's: rdxsort.sort and argsort give exactly what
    numpy.sort/argsort(kind="stable") give, NaNs of both signs and both zeros included
    (compared bit for bit: NaNs and zeros keep their input order)."""
    a = special_floats(rng, dtype, n)
    before = a.copy()
    assert_same_bits(rdxsort.sort(a), np.sort(a, kind="stable"), "sort")
    np.testing.assert_array_equal(rdxsort.argsort(a), np.argsort(a, kind="stable"))
    # Descending: NaNs first, as torch.sort(descending=True); ties keep their input order.
    want = (n - 1 - np.argsort(a[::-1], kind="stable"))[::-1]
    np.testing.assert_array_equal(rdxsort.argsort(a, descending=True), want)
    assert_same_bits(a, before, "the input changed")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, "bfloat16"])
def test_numpy_order_reference(rng, dtype):
    """The reference's NumPy order agrees with numpy.argsort (for bfloat16 through float32,
    which holds every bfloat16 exactly)."""
    if dtype == "bfloat16":
        dtype = bfloat16()
        if dtype is None:
            pytest.skip("ml_dtypes is not installed")
        a = special_floats(rng, np.float32, 20_000).astype(dtype)
        wide = a.astype(np.float32)
    else:
        a = wide = special_floats(rng, dtype, 20_000)
    want = np.argsort(wide, kind="stable")
    np.testing.assert_array_equal(expected_sort(a)[1], want)
    np.testing.assert_array_equal(rdxsort.argsort(a), want)


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("dtype,begin,end", [
    (np.uint8, 0, 4), (np.uint8, 3, 8), (np.int16, 4, 12), (np.uint32, 0, 8),
    (np.uint32, 13, 29), (np.int32, 24, 32), (np.float32, 23, 32), (np.uint64, 0, 33),
    (np.int64, 40, 64), (np.float64, 1, 63), (np.float16, 10, 16),
])
def test_bit_ranges(rng, dtype, begin, end, descending):
    a = random_keys(rng, dtype, 20_000)
    for total_order in (False, True):
        want, perm = expected_sort(a, total_order, descending=descending, begin_bit=begin,
                                   end_bit=end)
        kw = dict(descending=descending, begin_bit=begin, end_bit=end, total_order=total_order)
        assert_same_bits(rdxsort.sort(a, **kw), want, "total_order=%s" % total_order)
        np.testing.assert_array_equal(rdxsort.argsort(a, **kw), perm)


@pytest.mark.parametrize("radix_bits", range(0, 9))
def test_radix_bits(rng, radix_bits):
    for dtype in (np.uint16, np.int32, np.float64):
        a = random_keys(rng, dtype, 30_000, "bits")
        want, perm = expected_sort(a)
        assert_same_bits(rdxsort.sort(a, radix_bits=radix_bits), want, np.dtype(dtype).name)
        np.testing.assert_array_equal(rdxsort.argsort(a, radix_bits=radix_bits), perm)


@pytest.mark.parametrize("index_dtype", [None, np.int64, np.uint64, np.int32, np.uint32,
                                         "int32", "uint64"])
def test_argsort_index_dtypes(rng, index_dtype):
    a = random_keys(rng, np.int16, 50_000, "few")
    idx = rdxsort.argsort(a, index_dtype=index_dtype)
    assert idx.dtype == np.dtype("int64" if index_dtype is None else index_dtype)
    np.testing.assert_array_equal(idx, reference_permutation(bits(a), "i"))


def test_inplace(rng):
    a = random_keys(rng, np.float32, 100_000)
    want, _ = expected_sort(a)
    assert rdxsort.sort(a, inplace=True) is a
    assert_same_bits(a, want)


def test_out(rng):
    a = random_keys(rng, np.int64, 10_000)
    want, _ = expected_sort(a, descending=True)
    out = np.empty_like(a)
    assert rdxsort.sort(a, out=out, descending=True) is out
    assert_same_bits(out, want)
    big = np.zeros(2 * a.size, dtype=a.dtype)
    rdxsort.sort(a, out=big[::2])  # a strided out is filled through a packed copy
    assert_same_bits(big[::2], expected_sort(a)[0])
    assert not big[1::2].any()


def test_strided_and_byteswapped_inputs(rng):
    base = random_keys(rng, np.int32, 20_001)
    view = base[::3]
    want, perm = expected_sort(np.ascontiguousarray(view))
    assert_same_bits(rdxsort.sort(view), want)
    np.testing.assert_array_equal(rdxsort.argsort(view), perm)
    swapped = view.astype(">i4")
    got = rdxsort.sort(swapped)
    np.testing.assert_array_equal(got, want)  # equal values, in native byte order
    assert got.dtype.isnative
    # In place on a view: the sorted keys land in the view, the rest of base is untouched.
    other = base.copy()
    rdxsort.sort(view, inplace=True)
    assert_same_bits(base[::3], want)
    mask = np.ones(base.size, bool)
    mask[::3] = False
    assert_same_bits(base[mask], other[mask])


def test_array_likes():
    np.testing.assert_array_equal(rdxsort.sort([3, -1, 2]), [-1, 2, 3])
    np.testing.assert_array_equal(rdxsort.argsort((2.5, 1.5, -0.5)), [2, 1, 0])


def test_backend_auto_and_cuda_on_host_arrays(rng):
    a = random_keys(rng, np.uint32, 100_000)
    want, _ = expected_sort(a)
    assert_same_bits(rdxsort.sort(a, backend="auto"), want)
    assert_same_bits(rdxsort.sort(a, backend="CPU"), want)
    if rdxsort.cuda_available():
        assert_same_bits(rdxsort.sort(a, backend="cuda"), want)
    else:
        with pytest.raises(rdxsort.RdxError) as e:
            rdxsort.sort(a, backend="cuda")
        assert e.value.status_name in ("RDX_ERR_UNSUPPORTED", "RDX_ERR_NO_DEVICE")
