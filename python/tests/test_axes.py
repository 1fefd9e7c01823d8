"""N-D arrays sorted along an axis (the library's segmented sort with equal rows), and
lexsort, on NumPy arrays (the CPU backend): against numpy.sort/argsort(axis=...,
kind="stable") and numpy.lexsort, NaNs of both signs and both zeros included."""
import numpy as np
import pytest

import rdxsort
from reference import bfloat16, expected_rows, random_keys
from test_keys import assert_same_bits, special_floats

SHAPES = [(7, 13), (3, 1, 40), (2, 3, 4, 5), (1, 1000), (1000, 1), (0, 5), (4, 0), (64, 2049)]


def keys_of(rng, dtype, shape):
    """Keys with many ties; floats with NaNs of both signs, both zeros and infinities."""
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "f":
        return special_floats(rng, dtype, n).reshape(shape)
    return random_keys(rng, dtype, n, "few").reshape(shape)


def axes_of(shape):
    return [None] + list(range(-len(shape), len(shape)))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64, np.float16,
                                   np.float32, np.float64])
def test_sort_argsort_along_every_axis(rng, dtype, shape):
    a = keys_of(rng, dtype, shape)
    before = a.copy()
    for axis in axes_of(shape):
        what = "axis=%s" % axis
        got = rdxsort.sort(a, axis=axis)
        want = np.sort(a, axis=axis, kind="stable")
        assert_same_bits(got, want, "sort " + what)
        idx = rdxsort.argsort(a, axis)  # axis also positional, as numpy's
        assert idx.dtype == np.int64
        np.testing.assert_array_equal(idx, np.argsort(a, axis=axis, kind="stable"),
                                      err_msg="argsort " + what)
    assert_same_bits(a, before, "the input changed")


@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("total_order", [False, True], ids=["numpy", "total"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, "bfloat16"])
def test_against_reference(rng, dtype, total_order, descending):
    """Both float orders, both directions and bfloat16, against the bit-level reference."""
    if dtype == "bfloat16":
        dtype = bfloat16()
        if dtype is None:
            pytest.skip("ml_dtypes is not installed")
    a = random_keys(rng, dtype, 6 * 50 * 7, "bits").reshape(6, 50, 7)
    for axis in axes_of(a.shape):
        want, perm = expected_rows(a, axis, total_order, descending=descending)
        kw = dict(axis=axis, total_order=total_order, descending=descending)
        assert_same_bits(rdxsort.sort(a, **kw), np.ascontiguousarray(want), "axis=%s" % axis)
        np.testing.assert_array_equal(rdxsort.argsort(a, **kw), perm)


def test_results_are_c_contiguous(rng):
    a = keys_of(rng, np.int32, (20, 30, 4))
    for axis in axes_of(a.shape):
        assert rdxsort.sort(a, axis=axis).flags.c_contiguous
        assert rdxsort.argsort(a, axis=axis).flags.c_contiguous


def test_strided_byteswapped_and_fortran_inputs(rng):
    base = keys_of(rng, np.float32, (40, 90))
    for a in (base[::2, ::3], base.T, np.asfortranarray(base), base.astype(">f4")):
        for axis in (-1, 0, None):
            assert_same_bits(rdxsort.sort(a, axis=axis),
                             np.sort(a, axis=axis, kind="stable").astype(np.float32))
            np.testing.assert_array_equal(rdxsort.argsort(a, axis=axis),
                                          np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_inplace_and_out(rng, axis):
    a = keys_of(rng, np.float64, (30, 200))
    want = np.sort(a, axis=axis, kind="stable")
    out = np.empty_like(a)
    assert rdxsort.sort(a, axis=axis, out=out) is out
    assert_same_bits(out, want, "out")
    view = a[:, ::2]  # in place on a strided view: the rest of a stays as it was
    rest = a[:, 1::2].copy()
    want_view = np.sort(view, axis=axis, kind="stable")
    assert rdxsort.sort(view, axis=axis, inplace=True) is view
    assert_same_bits(a[:, ::2], want_view, "in place, strided")
    assert_same_bits(a[:, 1::2], rest, "beside the view")
    b = keys_of(rng, np.int16, (30, 200))
    want_b = np.sort(b, axis=axis, kind="stable")
    assert rdxsort.sort(b, axis=axis, inplace=True) is b
    assert_same_bits(b, want_b, "in place")
    with pytest.raises(ValueError, match="shape"):
        rdxsort.sort(b, axis=axis, out=np.empty((30, 201), b.dtype))


@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_sort_pairs_along_axes(rng, axis):
    k = keys_of(rng, np.float32, (25, 80))
    v = rng.integers(0, 1 << 60, (25, 80), dtype=np.int64)
    rows = rng.standard_normal((25, 80, 3))  # a 3-vector moves with each key
    perm = np.argsort(k, axis=axis, kind="stable")
    gk, gv = rdxsort.sort_pairs(k, v, axis=axis)
    assert_same_bits(gk, np.sort(k, axis=axis, kind="stable"))
    if axis is None:
        np.testing.assert_array_equal(gv, v.reshape(-1)[perm])
        _, grows = rdxsort.sort_pairs(k, rows, axis=None)
        np.testing.assert_array_equal(grows, rows.reshape(-1, 3)[perm])
        return
    np.testing.assert_array_equal(gv, np.take_along_axis(v, perm, axis))
    _, grows = rdxsort.sort_pairs(k, rows, axis=axis)
    np.testing.assert_array_equal(grows, np.take_along_axis(rows, perm[..., None], axis % 2))
    k2, v2 = k.copy(), v.copy()
    rk, rv = rdxsort.sort_pairs(k2, v2, axis=axis, inplace=True, descending=True)
    assert rk is k2 and rv is v2
    want_perm = np.flip(np.argsort(np.flip(k, axis), axis=axis, kind="stable"), axis)
    want_perm = k.shape[axis] - 1 - want_perm  # stable descending, as test_keys.py
    np.testing.assert_array_equal(v2, np.take_along_axis(v, want_perm, axis))


LEX_SHAPES = [(1000,), (9, 300), (4, 5, 60), (0, 7)]


@pytest.mark.parametrize("shape", LEX_SHAPES, ids=str)
def test_lexsort_equals_numpy(rng, shape):
    primary = keys_of(rng, np.int8, shape)
    middle = keys_of(rng, np.float32, shape)
    least = keys_of(rng, np.uint16, shape)
    keys = [least, middle, primary]  # the last key primary, as numpy.lexsort
    for axis in range(-len(shape), len(shape)):
        want = np.lexsort(keys, axis=axis)
        np.testing.assert_array_equal(rdxsort.lexsort(keys, axis=axis), want,
                                      err_msg="axis=%d" % axis)
        np.testing.assert_array_equal(rdxsort.lexsort(tuple(keys), axis), want)
    if len(shape) == 2:  # one array whose first axis indexes the keys (one dtype)
        stacked = np.stack([least.astype(np.int32), primary.astype(np.int32)])
        np.testing.assert_array_equal(rdxsort.lexsort(stacked), np.lexsort(stacked))
    flat = rdxsort.lexsort(keys, axis=None)
    np.testing.assert_array_equal(flat, np.lexsort([k.reshape(-1) for k in keys]))


def test_lexsort_single_key_and_total_order(rng):
    a = keys_of(rng, np.float64, (500,))
    np.testing.assert_array_equal(rdxsort.lexsort([a]), np.argsort(a, kind="stable"))
    np.testing.assert_array_equal(rdxsort.lexsort([a], total_order=True),
                                  rdxsort.argsort(a, total_order=True))
