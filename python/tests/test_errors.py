"""Bad input: the right exception, a message that names the problem, and no change to any
array passed in."""
import math
import threading

import numpy as np
import pytest

import rdxsort
from rdxsort import _lib
from reference import expected_sort, random_keys
from test_keys import assert_same_bits


@pytest.fixture
def keys(rng):
    return random_keys(rng, np.int32, 1000)


def unchanged(fn, *arrays):
    """Runs fn and checks that it leaves every array as it was (whatever fn raises)."""
    before = [a.tobytes() for a in arrays]
    try:
        fn()
    finally:
        for a, b in zip(arrays, before):
            assert a.tobytes() == b, "an input array changed"


@pytest.mark.parametrize("fn", [rdxsort.sort, rdxsort.argsort,
                                lambda a, **kw: rdxsort.sort(a, inplace=True, **kw),
                                lambda a, **kw: rdxsort.sort_pairs(a, a.copy(), inplace=True, **kw)])
def test_axis_out_of_range(fn, rng):
    a = random_keys(rng, np.uint32, 60).reshape(6, 10)
    for axis in (2, -3, 100):
        with pytest.raises(ValueError, match="axis %d is out of bounds" % axis) as e:
            unchanged(lambda: fn(a, axis=axis), a)
        assert isinstance(e.value, IndexError)  # numpy's AxisError is both
    with pytest.raises(TypeError, match="axis"):
        unchanged(lambda: fn(a, axis=1.0), a)
    scalar = np.uint32(5) + np.zeros((), np.uint32)  # 0-d: no axis -1, as numpy.sort
    with pytest.raises(ValueError, match="out of bounds"):
        fn(scalar)


def test_axis_none_is_not_in_place(rng):
    a = random_keys(rng, np.int16, 60).reshape(6, 10)
    with pytest.raises(ValueError, match="axis=None"):
        unchanged(lambda: rdxsort.sort(a, axis=None, inplace=True), a)
    v = np.arange(60).reshape(6, 10)
    with pytest.raises(ValueError, match="axis=None"):
        unchanged(lambda: rdxsort.sort_pairs(a, v, axis=None, inplace=True), a, v)


def test_keys_and_values_of_different_shapes(rng):
    k = random_keys(rng, np.int32, 60).reshape(6, 10)
    for shape in [(10, 6), (6, 9), (6,), (60,), (6, 1, 10)]:
        v = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
        for axis in (-1, 0, None):
            with pytest.raises(ValueError, match="one entry per key"):
                unchanged(lambda: rdxsort.sort_pairs(k, v, axis=axis, inplace=axis is not None),
                          k, v)


def test_lexsort_bad_keys(rng):
    a = random_keys(rng, np.int32, 60).reshape(6, 10)
    b = random_keys(rng, np.int32, 60).reshape(10, 6)
    with pytest.raises(ValueError, match="same shape"):
        unchanged(lambda: rdxsort.lexsort([a, b]), a, b)
    with pytest.raises(TypeError, match="at least one key"):
        rdxsort.lexsort([])
    with pytest.raises(TypeError, match="complex"):
        unchanged(lambda: rdxsort.lexsort([a, a.astype(np.complex64)]), a)
    with pytest.raises(ValueError, match="out of bounds"):
        unchanged(lambda: rdxsort.lexsort([a, a], axis=2), a)


@pytest.mark.parametrize("a,match", [
    (np.array([1, "x", None], dtype=object), "object"),
    (np.array([True, False]), "bool"),
    (np.array([1 + 2j, 3j]), "complex"),
    (np.array(["b", "a"]), "<U1"),
    (np.array([1, 2], dtype="datetime64[s]"), "datetime64"),
    (np.array([1.5, 2.5], dtype=np.longdouble), "float128|longdouble"),
])
def test_unsupported_dtypes(a, match):
    for fn in (rdxsort.sort, rdxsort.argsort, lambda x: rdxsort.sort(x, inplace=True)):
        with pytest.raises(TypeError, match=match):
            unchanged(lambda: fn(a), a)
    with pytest.raises(TypeError, match=match):
        unchanged(lambda: rdxsort.sort_pairs(a, np.arange(a.size)), a)


def test_mismatched_lengths(keys):
    values = np.arange(keys.size + 1)
    with pytest.raises(ValueError, match="one entry per key"):
        unchanged(lambda: rdxsort.sort_pairs(keys, values, inplace=True), keys, values)
    with pytest.raises(ValueError, match="one entry per key"):
        rdxsort.sort_pairs(keys, np.int64(3))


def test_bad_values(keys):
    obj = np.array([object()] * keys.size)
    with pytest.raises(TypeError, match="Python objects"):
        unchanged(lambda: rdxsort.sort_pairs(keys, obj, inplace=True), keys)
    empty_rows = np.zeros((keys.size, 0), np.float32)
    with pytest.raises(ValueError, match="0 bytes"):
        unchanged(lambda: rdxsort.sort_pairs(keys, empty_rows, inplace=True), keys)


@pytest.mark.parametrize("kw,exc,match", [
    (dict(backend="gpu"), ValueError, "backend"),
    (dict(backend=2), ValueError, "backend"),
    (dict(radix_bits=9), ValueError, "radix_bits"),
    (dict(radix_bits=-1), ValueError, "radix_bits"),
    (dict(radix_bits=4.0), TypeError, "radix_bits"),
    (dict(begin_bit=-1), ValueError, "begin_bit"),
    (dict(begin_bit=8, end_bit=8), ValueError, "begin_bit"),
    (dict(end_bit=33), ValueError, "end_bit"),
    (dict(end_bit=0), ValueError, "end_bit"),
    (dict(begin_bit=32), ValueError, "begin_bit"),
])
def test_bad_options(keys, kw, exc, match):
    values = np.arange(keys.size)
    for call in (lambda: rdxsort.sort(keys, inplace=True, **kw),
                 lambda: rdxsort.argsort(keys, **kw),
                 lambda: rdxsort.sort_pairs(keys, values, inplace=True, **kw)):
        with pytest.raises(exc, match=match):
            unchanged(call, keys, values)


def test_bad_index_dtype(keys):
    with pytest.raises(TypeError, match="index_dtype"):
        rdxsort.argsort(keys, index_dtype=np.float32)
    with pytest.raises(TypeError, match="index_dtype"):
        rdxsort.argsort(keys, index_dtype=np.int16)


def test_bad_out_and_inplace(keys):
    with pytest.raises(ValueError, match="not both"):
        unchanged(lambda: rdxsort.sort(keys, inplace=True, out=np.empty_like(keys)), keys)
    with pytest.raises(ValueError, match="dtype"):
        rdxsort.sort(keys, out=np.empty(keys.size, np.int64))
    with pytest.raises(ValueError, match="shape"):
        rdxsort.sort(keys, out=np.empty(keys.size - 1, np.int32))
    with pytest.raises(TypeError, match="out"):
        rdxsort.sort(keys, out=[0] * keys.size)


def test_read_only_inplace(keys):
    keys.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        unchanged(lambda: rdxsort.sort(keys, inplace=True), keys)
    with pytest.raises(ValueError, match="read-only"):
        unchanged(lambda: rdxsort.sort_pairs(keys, np.arange(keys.size), inplace=True), keys)
    # Not in place, a read-only array is fine.
    assert_same_bits(rdxsort.sort(keys), expected_sort(keys)[0])


def test_library_refusal_is_an_rdx_error(keys):
    """An argument only the C library checks: keys and values that overlap in memory."""
    buf = np.arange(2 * keys.size, dtype=np.int32)
    k, v = buf[:keys.size], buf[keys.size // 2: keys.size // 2 + keys.size]
    with pytest.raises(rdxsort.RdxError) as e:
        unchanged(lambda: rdxsort.sort_pairs(k, v, inplace=True), buf)
    err = e.value
    assert isinstance(err, RuntimeError) and isinstance(err, ValueError)
    assert err.status == 1 and err.status_name == "RDX_ERR_INVALID_ARGUMENT"
    assert "overlap" in err.detail and err.detail in str(err)
    assert err.status_name in str(err)


def test_error_text_comes_from_the_library():
    ctx = _lib.context(_lib.BACKEND_CPU)
    with pytest.raises(rdxsort.RdxArgumentError) as e:
        ctx.sort_keys(None, 5, _lib.U32, _lib.Opts(0, 0, 0, 0))  # NULL keys, n = 5
    assert "keys" in e.value.detail and e.value.detail == ctx.error()
    ctx.sort_keys(None, 0, _lib.U32, _lib.Opts(0, 0, 0, 0))  # n = 0 with NULL is fine
    assert ctx.error() == ""


def test_threads_each_get_their_own_context(rng):
    arrays = [random_keys(rng, np.uint64, 200_000) for _ in range(4)]
    wants = [expected_sort(a)[0] for a in arrays]
    results, contexts = [None] * 4, [None] * 4

    def work(i):
        for _ in range(3):
            results[i] = rdxsort.sort(arrays[i])
        contexts[i] = _lib.context(_lib.BACKEND_CPU).handle

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, wants):
        assert_same_bits(got, want)
    assert len(set(contexts)) == 4


def test_version_and_library():
    assert rdxsort.version() == rdxsort.__version__
    assert rdxsort.LIBRARY_PATH.endswith("librdx.so")
    rdxsort.release_memory()  # drops this thread's contexts; the next sort makes a new one
    assert_same_bits(rdxsort.sort(np.array([3, 1], np.uint8)), np.array([1, 3], np.uint8))
