"""N-D CuPy arrays and CUDA tensors sorted along an axis (the segmented sort on the GPU),
against cupy.sort/argsort and torch.sort(dim=..., stable=True), with NaNs of both signs
and both zeros; lexsort on the GPU. Skipped without a GPU (RDXSORT_REQUIRE_GPU=1: failed).
"""
import numpy as np
import pytest

import rdxsort
from test_gpu import cupy, entry_points, gpu, torch, torch_any  # noqa: F401 (fixtures)
from test_keys import assert_same_bits, special_floats
from reference import random_keys

SHAPES = [(7, 13), (3, 1, 40), (1, 5000), (5000, 1), (0, 5), (4096, 33), (64, 2049),
          (3, 1 << 18)]
NP_DTYPES = [np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64, np.float16,
             np.float32, np.float64]


def host_keys(rng, dtype, shape):
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "f":
        return special_floats(rng, dtype, n).reshape(shape)
    return random_keys(rng, dtype, n, "few").reshape(shape)


@gpu
@pytest.mark.parametrize("dtype", NP_DTYPES, ids=[np.dtype(d).name for d in NP_DTYPES])
def test_cupy_axes_equal_cupy_and_numpy(cupy, rng, dtype, entry_points):  # noqa: F811
    for shape in SHAPES:
        host = host_keys(rng, dtype, shape)
        a = cupy.asarray(host)
        for axis in [None] + list(range(-len(shape), len(shape))):
            what = "%s axis=%s" % (shape, axis)
            got = rdxsort.sort(a, axis=axis)
            assert isinstance(got, cupy.ndarray) and got.flags.c_contiguous, what
            want = np.sort(host, axis=axis, kind="stable")
            assert_same_bits(cupy.asnumpy(got), want, "sort " + what)
            # cupy.sort (not stable): the same values, NaNs last (zeros equal whatever sign),
            # on positive NaNs only: like torch.sort on CUDA it puts NaNs whose sign bit is set
            # first (CuPy 14 on an H200, device call 4 of round 5); float16 left to NumPy,
            # whose order for it is the documented one.
            if dtype != np.float16:
                pos = cupy.asarray(np.where(np.isnan(host), np.abs(host), host))
                np.testing.assert_array_equal(cupy.asnumpy(cupy.sort(pos, axis=axis)),
                                              cupy.asnumpy(rdxsort.sort(pos, axis=axis)),
                                              err_msg="cupy.sort " + what)
            idx = rdxsort.argsort(a, axis=axis)
            np.testing.assert_array_equal(cupy.asnumpy(idx),
                                          np.argsort(host, axis=axis, kind="stable"),
                                          err_msg="argsort " + what)
        assert_same_bits(cupy.asnumpy(a), host, "input changed")


@gpu
def test_cupy_pairs_inplace_and_lexsort(cupy, rng, entry_points):  # noqa: F811
    k = host_keys(rng, np.float32, (300, 700))
    v = rng.integers(0, 1 << 62, (300, 700), dtype=np.int64)
    for axis in (-1, 0):
        perm = np.argsort(k, axis=axis, kind="stable")
        gk, gv = rdxsort.sort_pairs(cupy.asarray(k), cupy.asarray(v), axis=axis)
        assert_same_bits(cupy.asnumpy(gk), np.sort(k, axis=axis, kind="stable"))
        np.testing.assert_array_equal(cupy.asnumpy(gv), np.take_along_axis(v, perm, axis))
        dk, dv = cupy.asarray(k), cupy.asarray(v)
        assert rdxsort.sort_pairs(dk, dv, axis=axis, inplace=True)[0] is dk
        np.testing.assert_array_equal(cupy.asnumpy(dv), np.take_along_axis(v, perm, axis))
        d = cupy.asarray(k)
        assert rdxsort.sort(d, axis=axis, inplace=True) is d
        assert_same_bits(cupy.asnumpy(d), np.sort(k, axis=axis, kind="stable"))
    keys = [host_keys(rng, np.uint16, (50, 400)), host_keys(rng, np.float64, (50, 400)),
            host_keys(rng, np.int8, (50, 400))]
    for axis in (-1, 0):
        got = rdxsort.lexsort([cupy.asarray(x) for x in keys], axis=axis)
        assert isinstance(got, cupy.ndarray)
        np.testing.assert_array_equal(cupy.asnumpy(got), np.lexsort(keys, axis=axis))
    before = cupy.asnumpy(d)
    with pytest.raises(ValueError, match="out of bounds"):
        rdxsort.sort(d, axis=2, inplace=True)
    with pytest.raises(ValueError, match="one entry per key"):
        rdxsort.sort_pairs(d, cupy.asarray(v[:, :-1]), inplace=True)
    assert_same_bits(cupy.asnumpy(d), before, "input changed")


def torch_dtypes(torch):  # noqa: F811
    out = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
           torch.float16, torch.bfloat16, torch.float32, torch.float64]
    return out + [getattr(torch, n) for n in ("uint16", "uint32", "uint64") if hasattr(torch, n)]


@gpu
def test_torch_sort_dims_equal_torch_sort(torch, rng, entry_points):  # noqa: F811
    """rdxsort.torch.sort and rdxsort.sort on CUDA tensors: torch.sort(dim, stable=True)'s
    values (bit for bit) and indices, every dtype, both zeros, positive NaNs (random_tensor:
    torch.sort on CUDA puts negative NaNs first; both signs are checked against NumPy)."""
    import rdxsort.torch as rt
    from test_torch_ops import bits, random_tensor, reference_sort, torch_sorts
    for dtype in torch_dtypes(torch):
        if not torch_sorts(dtype, "cuda"):
            continue
        for shape in [(7, 13), (3, 4, 50), (4096, 33), (16, 5000), (2, 1 << 17)]:
            t = random_tensor(rng, dtype, shape, "cuda")
            for dim in range(-len(shape), len(shape)):
                for descending in (False, True):
                    what = "%s %s dim=%d desc=%s" % (dtype, shape, dim, descending)
                    want = reference_sort(t, dim=dim, descending=descending)
                    got = rt.sort(t, dim=dim, descending=descending)
                    assert torch.equal(bits(got.values), bits(want.values)), what
                    assert torch.equal(got.indices, want.indices), what
                    if dtype != torch.bool:
                        plain = rdxsort.sort(t, axis=dim, descending=descending)
                        assert torch.equal(bits(plain), bits(want.values)), what


@gpu
def test_torch_cuda_lexsort_and_pairs(torch, rng):  # noqa: F811
    keys = [torch.randint(0, 4, (64, 999), device="cuda", dtype=dt)
            for dt in (torch.int32, torch.float32, torch.int64)]
    host = [k.cpu().numpy() for k in keys]
    for axis in (-1, 0):
        got = rdxsort.lexsort(keys, axis=axis)
        assert got.device == keys[0].device and got.dtype == torch.int64
        np.testing.assert_array_equal(got.cpu().numpy(), np.lexsort(host, axis=axis))
    k = keys[1]
    v = torch.arange(k.numel(), device="cuda").reshape(k.shape)
    for dim in (-1, 0):
        gk, gv = rdxsort.sort_pairs(k, v, axis=dim)
        want = torch.sort(k, dim=dim, stable=True)
        assert torch.equal(gk, want.values)
        assert torch.equal(gv, torch.take_along_dim(v, want.indices, dim))
