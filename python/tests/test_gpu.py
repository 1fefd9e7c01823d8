"""CuPy arrays and PyTorch tensors: sorted on the GPU, zero-copy, on the current stream.

Skipped where CuPy/PyTorch, a GPU or the CUDA backend is missing; with
RDXSORT_REQUIRE_GPU=1 (python/gpu_check.sh sets it) a missing piece fails instead.
PyTorch CPU tensors are tested here too, wherever PyTorch is installed.
"""
import os

import numpy as np
import pytest

import rdxsort
from reference import bits, expected_sort, random_keys, reference_permutation

REQUIRE_GPU = os.environ.get("RDXSORT_REQUIRE_GPU") == "1"
NP_DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64,
             np.float16, np.float32, np.float64]
SIZES = [0, 1, 2, 33, 1000, 10**5, 10**6, (1 << 22) + 3]


def _missing(why):
    if REQUIRE_GPU:
        pytest.fail("RDXSORT_REQUIRE_GPU=1 but " + why)
    pytest.skip(why)


def _need_cuda_backend():
    if not rdxsort.cuda_available():
        _missing("rdxsort has no usable CUDA backend (built without nvcc, or no GPU)")


@pytest.fixture(scope="module")
def cupy():
    try:
        import cupy
    except ImportError:
        _missing("CuPy is not installed")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            _missing("CuPy sees no GPU")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        _missing("CuPy sees no GPU (%s)" % e)
    _need_cuda_backend()
    return cupy


@pytest.fixture(scope="module")
def torch_any():
    try:
        import torch
    except ImportError:
        _missing("PyTorch is not installed")
    return torch


@pytest.fixture(scope="module")
def torch(torch_any):
    if not torch_any.cuda.is_available():
        _missing("PyTorch sees no GPU")
    _need_cuda_backend()
    return torch_any


def assert_same_bits(got, want, what=""):
    gb, wb = bits(got), bits(want)
    assert gb.shape == wb.shape, what
    bad = np.flatnonzero(gb != wb)
    assert bad.size == 0, "%s: %d keys differ, first at %d" % (what, bad.size, bad[0])


def _lib_switch(request, flag, on, has, why):
    """Sets _lib.<flag> for one test: True for the parameter `on`, False for the other;
    skips the `on` case where the library lacks `has`."""
    from rdxsort import _lib
    if request.param == on and not getattr(_lib, has):
        _missing(why)
    saved = getattr(_lib, flag)
    setattr(_lib, flag, request.param == on)
    yield request.param
    setattr(_lib, flag, saved)


@pytest.fixture(params=["async", "sync"])
def entry_points(request):
    """Runs a test with the stream-ordered entry points of rdx_cuda.h (the default), then
    with the synchronous ones that wait for the stream first."""
    yield from _lib_switch(request, "use_async", "async", "HAS_ASYNC",
                           "this librdx has no rdx_cuda.h entry points")


@pytest.fixture(params=["into", "copy"])
def out_of_place(request):
    """Runs a test with out-of-place GPU sorts through the *_into entry points (the
    default), then through a copy followed by an in-place sort."""
    yield from _lib_switch(request, "use_into", "into", "HAS_INTO",
                           "this librdx has no rdx_cuda_*_into_async entry points")


def count_calls(monkeypatch, names):
    """Counts calls of these Context methods (still running them)."""
    from rdxsort import _lib
    calls = dict.fromkeys(names, 0)
    for name in names:
        original = getattr(_lib.Context, name)

        def counted(self, *args, _name=name, _original=original, **kwargs):
            calls[_name] += 1
            return _original(self, *args, **kwargs)
        monkeypatch.setattr(_lib.Context, name, counted)
    return calls


# ---- CuPy ----

gpu = pytest.mark.gpu


@gpu
@pytest.mark.parametrize("descending", [False, True], ids=["asc", "desc"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NP_DTYPES, ids=[np.dtype(d).name for d in NP_DTYPES])
def test_cupy_sort_argsort(cupy, rng, dtype, n, descending):
    host = random_keys(rng, dtype, n, "bits" if n % 2 else "few")
    want, perm = expected_sort(host, descending=descending)
    a = cupy.asarray(host)
    got = rdxsort.sort(a, descending=descending)
    assert isinstance(got, cupy.ndarray) and got.dtype == a.dtype
    assert n == 0 or got.data.ptr != a.data.ptr
    assert_same_bits(cupy.asnumpy(got), want, "sort")
    idx = rdxsort.argsort(a, descending=descending, index_dtype=np.uint32)
    assert isinstance(idx, cupy.ndarray) and idx.dtype == np.uint32
    np.testing.assert_array_equal(cupy.asnumpy(idx), perm)
    assert_same_bits(cupy.asnumpy(a), host, "input changed")
    assert rdxsort.sort(a, inplace=True, descending=descending) is a
    assert_same_bits(cupy.asnumpy(a), want, "in place")


@gpu
@pytest.mark.parametrize("value_kind", ["u32", "u64", "u8", "rows"])
def test_cupy_pairs(cupy, rng, value_kind, entry_points):
    n = 300_001
    keys = random_keys(rng, np.uint32, n, "few")
    values = {"u32": lambda: np.arange(n, dtype=np.uint32),
              "u64": lambda: rng.integers(0, 1 << 63, n, dtype=np.uint64),
              "u8": lambda: rng.integers(0, 256, n, dtype=np.uint8),
              "rows": lambda: rng.standard_normal((n, 3)).astype(np.float32)}[value_kind]()
    want_keys, perm = expected_sort(keys, descending=True)
    k, v = cupy.asarray(keys), cupy.asarray(values)
    gk, gv = rdxsort.sort_pairs(k, v, descending=True)
    assert_same_bits(cupy.asnumpy(gk), want_keys)
    assert cupy.asnumpy(gv).tobytes() == values[perm].tobytes()
    rk, rv = rdxsort.sort_pairs(k, v, inplace=True, descending=True)
    assert rk is k and rv is v
    assert cupy.asnumpy(v).tobytes() == values[perm].tobytes()


@gpu
def test_cupy_on_a_non_default_stream(cupy, rng, entry_points):
    """Keys made by a kernel still running on a non-blocking stream: the sort must wait for it,
    and work queued after it on that stream must see the sorted keys."""
    n = 1 << 24
    for _ in range(3):
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            a = cupy.arange(n, dtype=cupy.int64)
            a = (a * 2654435761) % 1000003 - 500000  # produced on `stream`
            b = rdxsort.sort(a)
            c = a.copy()
            rdxsort.sort(c, inplace=True, descending=True)
            first_b, last_c = b[:1].copy(), c[-1:].copy()  # consumed on `stream`
        stream.synchronize()
        host = cupy.asnumpy(a)
        want = np.sort(host, kind="stable")
        np.testing.assert_array_equal(cupy.asnumpy(b), want)
        np.testing.assert_array_equal(cupy.asnumpy(c), want[::-1])
        assert int(first_b[0]) == want[0] and int(last_c[0]) == want[0]


@gpu
@pytest.mark.parametrize("n", [1, 1000, 4097, 300_001, (1 << 21) + 7])
def test_cupy_out_of_place(cupy, rng, n, out_of_place, monkeypatch):
    """sort(a), sort(a, out=...) and sort_pairs(k, v): new results, inputs unchanged; with
    the *_into entry points and no in-place sort of a copy."""
    host = random_keys(rng, np.int32, n, "few")
    values = rng.integers(0, 1 << 62, n, dtype=np.int64)
    want, perm = expected_sort(host)
    a, v = cupy.asarray(host), cupy.asarray(values)
    calls = count_calls(monkeypatch, ["sort_keys_async", "sort_keys_into_async",
                                      "sort_pairs_async", "sort_pairs_into_async"])
    got = rdxsort.sort(a)
    out = cupy.empty_like(a)
    assert rdxsort.sort(a, out=out) is out
    gk, gv = rdxsort.sort_pairs(a, v)
    monkeypatch.undo()
    into = out_of_place == "into"
    assert calls == {"sort_keys_async": 0 if into else 2, "sort_keys_into_async": 2 if into else 0,
                     "sort_pairs_async": 0 if into else 1, "sort_pairs_into_async": 1 if into else 0}
    for result in (got, out, gk):
        assert result.data.ptr != a.data.ptr
        assert_same_bits(cupy.asnumpy(result), want)
    np.testing.assert_array_equal(cupy.asnumpy(gv), values[perm])
    assert_same_bits(cupy.asnumpy(a), host, "input keys changed")
    np.testing.assert_array_equal(cupy.asnumpy(v), values, "input values changed")
    # out= naming a's own memory through another object sorts in place.
    view = a[:]
    assert rdxsort.sort(a, out=view) is view
    assert_same_bits(cupy.asnumpy(a), want, "out=a[:]")
    # All keys equal: no pass has anything to do, the result is a copy of the input.
    same = cupy.full(n, -7, dtype=cupy.int32)
    assert_same_bits(cupy.asnumpy(rdxsort.sort(same)), np.full(n, -7, np.int32))
    sk, sv = rdxsort.sort_pairs(same, v)
    np.testing.assert_array_equal(cupy.asnumpy(sv), values)


@gpu
def test_cupy_strided_and_errors(cupy, rng, entry_points):
    host = random_keys(rng, np.float32, 30_001)
    a = cupy.asarray(host)
    view = a[::3]
    want, _ = expected_sort(host[::3])
    assert_same_bits(cupy.asnumpy(rdxsort.sort(view)), want)
    rdxsort.sort(view, inplace=True)
    assert_same_bits(cupy.asnumpy(a[::3]), want)
    assert_same_bits(cupy.asnumpy(a[1::3]), host[1::3])
    before = cupy.asnumpy(a)
    with pytest.raises(ValueError, match="backend='cpu'"):
        rdxsort.sort(a, backend="cpu", inplace=True)
    with pytest.raises(ValueError, match="out of bounds"):
        rdxsort.sort(a[:30_000].reshape(100, 300), axis=2, inplace=True)
    with pytest.raises(TypeError, match="complex"):
        rdxsort.sort(cupy.zeros(4, cupy.complex64))
    with pytest.raises(TypeError, match="same library"):
        rdxsort.sort_pairs(a, np.arange(a.size), inplace=True)
    with pytest.raises(ValueError, match="radix_bits"):
        rdxsort.sort(a, radix_bits=9, inplace=True)
    assert_same_bits(cupy.asnumpy(a), before, "input changed")


@gpu
def test_host_arrays_on_the_cuda_backend(cupy, rng):
    for dtype in (np.uint32, np.float64, np.int8):
        a = random_keys(rng, dtype, 1_000_003)
        want, perm = expected_sort(a)
        assert_same_bits(rdxsort.sort(a, backend="cuda"), want)
        np.testing.assert_array_equal(rdxsort.argsort(a, backend="cuda"), perm)


# ---- PyTorch ----

def torch_dtypes(torch):
    out = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
           torch.bfloat16, torch.float32, torch.float64]
    return out + [getattr(torch, n) for n in ("uint16", "uint32", "uint64") if hasattr(torch, n)]


def to_bits_and_kind(t):
    """(NumPy unsigned bit patterns, key kind) of a tensor; bfloat16 has no NumPy dtype."""
    import torch
    width = t.element_size()
    signed = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[width]
    raw = t.contiguous().view(signed).cpu().numpy().copy()  # a copy: CPU tensors share memory
    raw = raw.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[width])
    name = str(t.dtype).replace("torch.", "")
    kind = "f" if name.startswith(("float", "bfloat")) else ("u" if name.startswith("uint") else "i")
    return raw, kind


def float_name_of(t):
    """The reference's float_name for the default (NumPy) order: None for integers."""
    name = str(t.dtype).replace("torch.", "")
    return name if name.startswith(("float", "bfloat")) else None


def random_tensor(torch, rng, dtype, n, device):
    width = torch.empty(0, dtype=dtype).element_size()
    raw = random_keys(rng, {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[width], n, "bits")
    return torch.from_numpy(raw.copy()).to(device).view(dtype)


def _run_torch_suite(torch, rng, device, sizes):
    for dtype in torch_dtypes(torch):
        for n in sizes:
            for descending in (False, True):
                t = random_tensor(torch, rng, dtype, n, device)
                raw, kind = to_bits_and_kind(t)
                perm = reference_permutation(raw, kind, descending=descending,
                                             float_name=float_name_of(t))
                what = "%s n=%d desc=%s" % (dtype, n, descending)
                got = rdxsort.sort(t, descending=descending)
                assert got.device == t.device and got.dtype == dtype, what
                np.testing.assert_array_equal(to_bits_and_kind(got)[0], raw[perm], err_msg=what)
                idx = rdxsort.argsort(t, descending=descending)
                assert idx.dtype == torch.int64 and idx.device == t.device, what
                np.testing.assert_array_equal(idx.cpu().numpy(), perm, err_msg=what)
                np.testing.assert_array_equal(to_bits_and_kind(t)[0], raw, err_msg="input: " + what)
                assert rdxsort.sort(t, descending=descending, inplace=True) is t
                np.testing.assert_array_equal(to_bits_and_kind(t)[0], raw[perm], err_msg=what)


@gpu
def test_torch_cuda_all_dtypes(torch, rng):
    _run_torch_suite(torch, rng, "cuda", [0, 1, 33, 1000, 10**5, 10**6 + 1])


def test_torch_cpu_tensors(torch_any, rng):
    _run_torch_suite(torch_any, rng, "cpu", [0, 2, 1000, 10**5])


@gpu
def test_torch_pairs_and_non_default_stream(torch, rng, entry_points):
    n = 1 << 23
    side = torch.cuda.Stream()
    for _ in range(3):
        with torch.cuda.stream(side):
            keys = torch.randint(-1000, 1000, (n,), device="cuda", dtype=torch.int32)
            keys = keys * 3 + 1  # still running on `side` when the sort is called
            values = torch.arange(n, device="cuda", dtype=torch.int64)
            k, v = rdxsort.sort_pairs(keys, values)
            k2 = keys.clone()
            rdxsort.sort(k2, inplace=True, descending=True)
            check = (k[1:] >= k[:-1]).all()  # consumed on `side`
        side.synchronize()
        assert bool(check)
        host = keys.cpu().numpy()
        perm = np.argsort(host, kind="stable")
        np.testing.assert_array_equal(k.cpu().numpy(), host[perm])
        np.testing.assert_array_equal(v.cpu().numpy(), perm)
        np.testing.assert_array_equal(k2.cpu().numpy(), host[perm][::-1])


@gpu
def test_torch_out_of_place(torch, rng, out_of_place):
    n = (1 << 20) + 5
    keys = torch.from_numpy(random_keys(rng, np.float32, n).copy()).cuda()
    values = torch.randn(n, 3, dtype=torch.float32, device="cuda")  # 12-byte rows: gathered
    raw, kind = to_bits_and_kind(keys)
    perm = reference_permutation(raw, kind, descending=True, float_name="float32")
    before_k, before_v = keys.clone(), values.clone()
    got = rdxsort.sort(keys, descending=True)
    k, v = rdxsort.sort_pairs(keys, values, descending=True)
    np.testing.assert_array_equal(to_bits_and_kind(got)[0], raw[perm])
    np.testing.assert_array_equal(to_bits_and_kind(k)[0], raw[perm])
    assert torch.equal(v, values[torch.from_numpy(perm).cuda()])
    assert torch.equal(keys.view(torch.int32), before_k.view(torch.int32))
    assert torch.equal(values, before_v)
    assert got.data_ptr() != keys.data_ptr() and v.data_ptr() != values.data_ptr()


@gpu
def test_torch_errors_leave_input(torch, rng):
    t = random_tensor(torch, rng, torch.float32, 10_000, "cuda")
    before = t.clone()
    with pytest.raises(TypeError, match="bool"):
        rdxsort.sort(torch.zeros(4, dtype=torch.bool, device="cuda"))
    with pytest.raises(ValueError, match="out of bounds"):
        rdxsort.sort(t.view(100, 100), axis=-3, inplace=True)
    with pytest.raises(ValueError, match="end_bit"):
        rdxsort.sort(t, end_bit=40, inplace=True)
    with pytest.raises(TypeError, match="same library"):
        rdxsort.sort_pairs(t, t.cpu(), inplace=True)
    assert torch.equal(t.view(torch.int32), before.view(torch.int32))


def test_torch_cpu_pairs_index_dtypes_and_errors(torch_any, rng):
    torch = torch_any
    keys = torch.from_numpy(random_keys(rng, np.int16, 20_000, "few").copy())
    values = torch.randn(20_000, 2, dtype=torch.float64)
    raw, kind = to_bits_and_kind(keys)
    perm = reference_permutation(raw, kind, descending=True)
    k, v = rdxsort.sort_pairs(keys, values, descending=True)
    assert isinstance(k, torch.Tensor) and isinstance(v, torch.Tensor)
    np.testing.assert_array_equal(k.numpy(), keys.numpy()[perm])
    assert torch.equal(v, values[torch.from_numpy(perm)])
    for index_dtype in (torch.int32, torch.int64, np.uint32, "int32"):
        idx = rdxsort.argsort(keys, descending=True, index_dtype=index_dtype)
        assert isinstance(idx, torch.Tensor)
        np.testing.assert_array_equal(idx.numpy().astype(np.int64), perm)
    before = keys.clone()
    with pytest.raises(TypeError, match="bool"):
        rdxsort.sort(torch.zeros(3, dtype=torch.bool))
    with pytest.raises(TypeError, match="same library"):
        rdxsort.sort_pairs(keys, values.numpy(), inplace=True)
    with pytest.raises(ValueError, match="one entry per key"):
        rdxsort.sort_pairs(keys, values[:-1], inplace=True)
    assert torch.equal(keys, before)
    g = torch.randn(100, requires_grad=True)
    np.testing.assert_array_equal(rdxsort.sort(g).numpy(), np.sort(g.detach().numpy(), kind="stable"))
