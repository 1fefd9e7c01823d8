"""Bad (and good) input from Python, by property tests: random dtypes (every NumPy kind,
both byte orders, structured), shapes (0-D to 3-D, zero-size; sorted along the last axis), strides (steps, negative,
transposed), read-only arrays and random keywords (right and wrong types, out of range,
unknown). Every call must either give the reference's result or raise TypeError or
ValueError (rdxsort's errors are ValueErrors too) with a message; never crash, and never
change its input unless asked to sort in place and successful."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import rdxsort
from reference import bfloat16, expected_rows

EXPECTED = (TypeError, ValueError, rdxsort.RdxError)
KEY_KINDS = "uif"

_BASE = ["u1", "u2", "u4", "u8", "i1", "i2", "i4", "i8", "f2", "f4", "f8",
         "b1", "c8", "c16", "M8[s]", "m8[ms]", "U3", "S2", "V3", "O"]


def dtypes():
    plain = st.sampled_from(_BASE).flatmap(
        lambda d: st.sampled_from([np.dtype(d), np.dtype(d).newbyteorder(">"),
                                   np.dtype(d).newbyteorder("<")]))
    structured = st.just(np.dtype([("a", "<i4"), ("b", "u1")]))
    extra = [st.just(bfloat16())] if bfloat16() is not None else []
    return st.one_of(plain, structured, *extra)


@st.composite
def arrays(draw):
    dtype = draw(dtypes())
    shape = draw(st.sampled_from([(), (0,), (1,), (2,), (7,), (33,), (200,), (0, 3), (3, 4),
                                  (2, 3, 2)]))
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.frombuffer(draw(st.binary(min_size=size, max_size=size)), dtype=np.uint8)
    if dtype.kind == "O":
        a = np.array(list(raw[:int(np.prod(shape, dtype=np.int64))]), dtype=object).reshape(shape)
    else:
        a = raw.copy().view(dtype).reshape(shape) if shape else raw.copy().view(dtype)[0:1].reshape(())
    view = draw(st.sampled_from(["as is", "step", "reverse", "transpose", "offset"]))
    if view == "step" and a.ndim:
        a = a[::2]
    elif view == "reverse" and a.ndim:
        a = a[::-1]
    elif view == "transpose":
        a = a.T
    elif view == "offset" and a.ndim == 1 and a.dtype.kind != "O":
        # a view one byte into a buffer: misaligned for every multi-byte dtype
        buf = np.zeros(a.nbytes + 1, np.uint8)
        a2 = buf[1:].view(a.dtype)
        a2[...] = a
        a = a2
    if draw(st.booleans()):
        a.flags.writeable = False
    return a


def keywords(fn):
    anything = st.one_of(st.none(), st.booleans(), st.integers(-5, 80), st.integers(-2**70, 2**70),
                         st.floats(allow_nan=True), st.text(max_size=4),
                         st.sampled_from(["cpu", "cuda", "auto", "CPU", "gpu", "int32", "uint64"]),
                         st.just(np.int32(3)), st.just(np.zeros(2)), st.just(object()))
    names = ["descending", "begin_bit", "end_bit", "radix_bits", "backend", "bogus"]
    if fn == "argsort":
        names.append("index_dtype")
    if fn in ("sort", "sort_pairs"):
        names.append("inplace")
    return st.dictionaries(st.sampled_from(names), anything, max_size=3)


def supported(a):
    """Arrays rdxsort sorts (along the last axis by default): 1-D and up, integer and float
    keys of 1, 2, 4 or 8 bytes, bfloat16."""
    return (a.ndim >= 1 and (a.dtype.kind in KEY_KINDS and a.dtype.itemsize in (1, 2, 4, 8)
                             or a.dtype.name == "bfloat16")
            and not (a.dtype.kind == "f" and a.dtype.itemsize == 1))


def expected_rows_of(a, kw):
    """(sorted, permutation along the last axis) by the reference: NumPy's float order (the
    default), the keywords' order and bit range."""
    native = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("=")))
    return expected_rows(native, axis=-1, descending=bool(kw.get("descending", False)),
                         begin_bit=kw.get("begin_bit", 0), end_bit=kw.get("end_bit"))


def call(fn, *args, **kw):
    """Calls fn; returns (result, None) or (None, exception) for an expected exception."""
    try:
        return fn(*args, **kw), None
    except EXPECTED as e:
        assert str(e), "an exception without a message"
        return None, e


def native_bytes(x):
    """The values of x as bytes in native byte order (a sort of a big-endian array returns
    its result in native order)."""
    x = np.asarray(x)
    return np.ascontiguousarray(x.astype(x.dtype.newbyteorder("="))).tobytes()


# No example database: nothing is written into the source tree.
COMMON = settings(max_examples=250, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow])


@COMMON
@given(a=arrays(), kw=keywords("sort"))
def test_sort(a, kw):
    before, writeable = a.tobytes(), a.flags.writeable
    got, err = call(rdxsort.sort, a, backend=kw.pop("backend", "cpu"), **kw)
    assert a.flags.writeable == writeable
    if err is not None:
        assert a.tobytes() == before, "a failed sort changed its input"
        return
    assert supported(a), "sorted an unsupported array"
    src = np.frombuffer(before, dtype=a.dtype).reshape(a.shape)
    want, _ = expected_rows_of(src, kw)
    assert native_bytes(got) == native_bytes(want)
    if not kw.get("inplace"):
        assert a.tobytes() == before


@COMMON
@given(a=arrays(), kw=keywords("argsort"))
def test_argsort(a, kw):
    before, writeable = a.tobytes(), a.flags.writeable
    got, err = call(rdxsort.argsort, a, backend=kw.pop("backend", "cpu"), **kw)
    assert a.tobytes() == before and a.flags.writeable == writeable
    if err is None:
        assert supported(a)
        assert np.array_equal(np.asarray(got).astype(np.int64), expected_rows_of(a, kw)[1])


@COMMON
@given(k=arrays(), v=arrays(), kw=keywords("sort_pairs"))
def test_sort_pairs(k, v, kw):
    kb, vb = k.tobytes(), v.tobytes()
    got, err = call(rdxsort.sort_pairs, k, v, backend=kw.pop("backend", "cpu"), **kw)
    if err is not None or not kw.get("inplace"):
        assert k.tobytes() == kb and v.tobytes() == vb, "the inputs changed"
    if err is None:
        assert supported(k)
        src_k = np.frombuffer(kb, dtype=k.dtype).reshape(k.shape)
        want_k, perm = expected_rows_of(src_k, kw)
        assert native_bytes(got[0]) == native_bytes(want_k)
        if v.dtype.kind != "O":
            src_v = np.frombuffer(vb, dtype=v.dtype).reshape(v.shape)
            # values have the keys' shape, maybe with more axes after it: each moves with its key
            idx = perm.reshape(perm.shape + (1,) * (src_v.ndim - perm.ndim))
            assert native_bytes(got[1]) == native_bytes(np.take_along_axis(src_v, idx, perm.ndim - 1))


@pytest.mark.parametrize("fn", [rdxsort.sort, rdxsort.argsort])
def test_not_an_array(fn):
    for bad in (None, 3, "abc", ["a", "b"], [[1, 2], [3]], [None], object(), b"\x01\x02"):
        with pytest.raises(EXPECTED):
            fn(bad)
