"""rdxsort.torch.sort / argsort (custom operators) against torch.sort / torch.argsort
(stable=True): every dtype torch sorts, NaNs of both signs and both zeros, every dim, both
directions; torch.compile(fullgraph=True); torch.library.opcheck; autograd; bad input.
CPU tensors here; CUDA tensors where a GPU is usable (skipped elsewhere, a failure with
RDXSORT_REQUIRE_GPU=1)."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not hasattr(torch.library, "register_autograd"):  # rdxsort.torch needs PyTorch >= 2.4
    pytest.skip("PyTorch %s has no torch.library.register_autograd" % torch.__version__,
                allow_module_level=True)
import rdxsort  # noqa: E402
import rdxsort.torch as rt  # noqa: E402
from test_gpu import _missing  # noqa: E402

# (2, 20000): rows longer than the GPU's on-chip kernels take (the segmented passes).
SHAPES = [(0,), (1,), (17,), (5, 33), (3, 4, 50), (2, 1, 7), (6, 0, 3), (40, 1100), (2, 20000)]


def dtypes():
    out = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
           torch.float16, torch.bfloat16, torch.float32, torch.float64]
    return out + [getattr(torch, n) for n in ("uint16", "uint32", "uint64") if hasattr(torch, n)]


DTYPES = dtypes()
SIGNED = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


@pytest.fixture(params=["cpu", "cuda"])
def device(request):
    if request.param == "cuda":
        if not torch.cuda.is_available():
            _missing("PyTorch sees no GPU")
        if not rdxsort.cuda_available():
            _missing("rdxsort has no usable CUDA backend")
    return request.param


def random_tensor(rng, dtype, shape, device):
    """Random bit patterns (floats: every class, NaNs of both signs), a fifth of them
    replaced by special values: ±0, ±inf, ±NaN for floats; a few values for integers. On a
    CUDA device NaNs are positive only (positive_nans)."""
    n = int(np.prod(shape))
    if dtype == torch.bool:
        return torch.from_numpy(rng.integers(0, 2, n, dtype=np.uint8)).view(torch.bool) \
                    .reshape(shape).to(device)
    width = torch.empty(0, dtype=dtype).element_size()
    info = np.iinfo({1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[width])
    raw = torch.from_numpy(rng.integers(info.min, info.max, n, dtype=info.dtype, endpoint=True))
    special = torch.from_numpy(rng.random(n) < 0.2)
    if dtype.is_floating_point:
        pool = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"),
                             -float("nan"), 1.0, -1.0], dtype=dtype).view(raw.dtype)
    else:
        pool = raw[:4].clone()
    if n and pool.numel():  # on the signed view: unsigned tensors lack indexed assignment
        raw[special] = pool[torch.from_numpy(rng.integers(0, pool.numel(), int(special.sum())))]
    if dtype.is_floating_point and str(device).startswith("cuda"):
        raw = positive_nans(raw.view(dtype)).view(raw.dtype)
    t = raw.view(dtype)
    return t.reshape(shape).to(device)


def positive_nans(t):
    """t with the sign bit of every NaN cleared. torch.sort on CUDA puts NaNs whose sign bit
    is set first (PyTorch 2.11 on an H200, device call 4 of round 5), unlike torch.sort on
    the CPU, NumPy and rdxsort, which put every NaN last: tensors compared with torch.sort
    on CUDA hold positive NaNs only (NaNs of both signs are checked against NumPy)."""
    whole = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    bits = t.view(whole).clone()
    sign = torch.tensor(-1 << (8 * t.element_size() - 1), dtype=whole)
    bits[torch.isnan(t)] &= ~sign
    return bits.view(t.dtype)


def torch_sorts(dtype, device):
    """Whether this PyTorch's own sort takes dtype on device (some builds lack the unsigned
    types on CUDA): without it there is nothing to compare with."""
    try:
        torch.sort(torch.zeros(2, dtype=dtype, device=device), stable=True)
        return True
    except (RuntimeError, NotImplementedError, TypeError):
        return False


def reference_sort(t, **kw):
    """torch.sort(t, stable=True, **kw) as PyTorch defines it, on t's device. For floats on
    CUDA it is taken on the CPU: there torch.sort orders -0.0 before +0.0 and NaNs by their
    bits (PyTorch 2.11 on an H200, round 6), where its CPU sort, NumPy and rdxsort keep equal
    keys (both zeros, every NaN) in input order."""
    if t.dtype.is_floating_point and t.device.type == "cuda":
        r = torch.sort(t.cpu(), stable=True, **kw)
        return torch.return_types.sort((r.values.to(t.device), r.indices.to(t.device)))
    return torch.sort(t, stable=True, **kw)


def bits(t):
    t = t.contiguous()
    return (t.view(torch.uint8) if t.dtype == torch.bool else t.view(SIGNED[t.element_size()])).cpu()


def assert_same(got, want, what):
    assert got.dtype == want.dtype and got.shape == want.shape, what
    assert got.device == want.device, what
    assert torch.equal(bits(got), bits(want)), what


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).replace("torch.", ""))
def test_sort_equals_torch_sort(rng, device, dtype):
    if not torch_sorts(dtype, device):
        pytest.skip("torch.sort does not take %s on %s in this PyTorch" % (dtype, device))
    for shape in SHAPES:
        t = random_tensor(rng, dtype, shape, device)
        before = t.clone()
        for dim in range(-len(shape), len(shape)):
            for descending in (False, True):
                what = "%s dim=%d descending=%s" % (shape, dim, descending)
                want = reference_sort(t, dim=dim, descending=descending)
                got = rt.sort(t, dim=dim, descending=descending)
                assert isinstance(got, torch.return_types.sort)
                assert_same(got.values, want.values, "values " + what)
                assert_same(got.indices, want.indices, "indices " + what)
                idx = rt.argsort(t, dim, descending)
                assert_same(idx, reference_sort(t, dim=dim, descending=descending).indices,
                            "argsort " + what)
        assert_same(t, before, "the input changed")


def test_zero_dim_and_strided(rng, device):
    s = torch.tensor(2.5, device=device)
    v, i = rt.sort(s)
    assert v.shape == () and float(v) == 2.5 and int(i) == 0 and v.data_ptr() != s.data_ptr()
    assert rt.argsort(s, dim=0).shape == ()
    t = random_tensor(rng, torch.float32, (30, 64), device)
    for view in (t.t(), t[:, ::3], t[::2]):
        for dim in (0, 1, -1):
            want = reference_sort(view, dim=dim)
            got = rt.sort(view, dim=dim)
            assert_same(got.values, want.values, "values")
            assert_same(got.indices, want.indices, "indices")


def test_plans_follow_each_tensor(rng, device):
    """On CUDA, sort keeps what it checked of a request by dtype, shape, device, dim and
    order; the tensor's own layout is looked at in every call: tensors of one shape,
    packed and strided, in turn, each equal to torch.sort."""
    packed = random_tensor(rng, torch.int32, (20, 64), device)
    every_other_row = random_tensor(rng, torch.int32, (40, 64), device)[::2]
    transposed = random_tensor(rng, torch.int32, (64, 20), device).t()
    for t in (packed, every_other_row, transposed, packed, transposed):
        assert t.shape == (20, 64)
        for dim in (-1, 0):
            for descending in (False, True):
                what = "strides %s dim=%d descending=%s" % (t.stride(), dim, descending)
                want = reference_sort(t, dim=dim, descending=descending)
                got = rt.sort(t, dim=dim, descending=descending)
                assert_same(got.values, want.values, "values " + what)
                assert_same(got.indices, want.indices, "indices " + what)


@pytest.mark.parametrize("raw_blocks", [True, False])
def test_planned_path_temporary_storage(rng, device, monkeypatch, raw_blocks):
    """On CUDA, a planned request takes the library call alone (_sort_cuda_planned), its
    temporary storage a raw block of the caching allocator given back right after the
    enqueue, or a tensor where this PyTorch has no raw blocks: back-to-back sorts on a
    side stream, each on other keys, each equal to torch.sort (a block handed out again
    before its sort ran would mix them)."""
    if device != "cuda":
        pytest.skip("the planned path is the CUDA one")
    if not raw_blocks:
        monkeypatch.setattr(rt, "_raw_alloc", None)
    elif rt._raw_alloc is None:
        pytest.skip("this PyTorch has no raw blocks of its caching allocator")
    tensors = [random_tensor(rng, torch.int32, (64, 1000), device) for _ in range(6)]
    rt.sort(tensors[0])  # plans the request
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        got = [rt._sort_cuda_planned(t, -1, False) for t in tensors]
    stream.synchronize()
    for t, both in zip(tensors, got):
        assert both is not None, "the request was planned"
        want = reference_sort(t, dim=-1)
        assert_same(both[0], want.values, "values")
        assert_same(both[1], want.indices, "indices")


def _fn(x):
    values, indices = rt.sort(x, dim=-1)
    return values * 2, indices, rt.argsort(x, dim=0, descending=True)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_fullgraph(rng, device, backend):
    """The custom ops trace without a graph break (fullgraph=True), through fake tensors;
    the compiled function gives torch.sort's results."""
    torch._dynamo.reset()
    x = random_tensor(rng, torch.float32, (8, 300), device)
    compiled = torch.compile(_fn, fullgraph=True, backend=backend)
    values, indices, desc = compiled(x)
    want = reference_sort(x, dim=-1)
    assert torch.equal(bits(values), bits(want.values * 2))
    assert torch.equal(indices, want.indices)
    assert torch.equal(desc, reference_sort(x, dim=0, descending=True).indices)
    y = random_tensor(rng, torch.float32, (8, 300), device)  # the same graph, new data
    assert torch.equal(compiled(y)[1], reference_sort(y, dim=-1).indices)


def test_opcheck(rng, device):
    """torch.library.opcheck: schema, fake tensors, autograd registration, AOT dispatch
    (on finite floats: its comparisons take NaN for a mismatch)."""
    x = torch.from_numpy(rng.standard_normal((4, 40))).to(device).requires_grad_()
    torch.library.opcheck(torch.ops.rdxsort.sort.default, (x, -1, False))
    torch.library.opcheck(torch.ops.rdxsort.sort.default, (x.detach(), 0, True))
    torch.library.opcheck(torch.ops.rdxsort.argsort.default, (x.detach(), 1, True))
    torch.library.opcheck(torch.ops.rdxsort.argsort.default,
                          (random_tensor(rng, torch.int16, (3, 5, 9), device), 1, False))


def test_autograd(rng, device):
    x = torch.randn(6, 50, device=device, dtype=torch.float64, requires_grad=True)
    y = x.detach().clone().requires_grad_()
    w = torch.randn(6, 50, device=device, dtype=torch.float64)
    for dim in (0, 1):
        (rt.sort(x, dim=dim, descending=True).values * w).sum().backward()
        (torch.sort(y, dim=dim, descending=True, stable=True).values * w).sum().backward()
        assert torch.equal(x.grad, y.grad)
    # gradcheck on keys at least 1 apart, so its finite differences never reorder them.
    spread = torch.from_numpy(rng.permutation(14).astype(np.float64)).reshape(2, 7).to(device)
    assert torch.autograd.gradcheck(lambda a: rt.sort(a, dim=1).values,
                                    (spread.requires_grad_(),))


class _SeenOps(torch.utils._python_dispatch.TorchDispatchMode):
    """Records the operators dispatched under it."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def test_eager_calls_and_the_operator(rng, device):
    """In plain eager mode sort and argsort call the implementation themselves (no
    rdxsort:: operator dispatched); under a dispatch mode, with gradients, and under vmap
    they go through the operators, and every way gives torch.sort's results."""
    x = random_tensor(rng, torch.float32, (5, 70), device)
    want = reference_sort(x, dim=-1)
    with _SeenOps() as seen:
        got = rt.sort(x)
        idx = rt.argsort(x)
    assert_same(got.values, want.values, "values under a dispatch mode")
    assert_same(idx, want.indices, "argsort under a dispatch mode")
    assert "rdxsort.sort.default" in seen.names and "rdxsort.argsort.default" in seen.names
    assert rt._plain_eager(x) and not rt._plain_eager(x.clone().requires_grad_())
    with torch.no_grad():
        assert rt._plain_eager(x.clone().requires_grad_())
    got = rt.sort(x)
    assert_same(got.values, want.values, "values, eager")
    assert_same(got.indices, want.indices, "indices, eager")
    g = x.clone().requires_grad_()
    v = rt.sort(g).values
    assert v.grad_fn is not None  # the operator's autograd recorded it
    assert_same(v.detach(), want.values, "values with a gradient")
    with warnings.catch_warnings():  # vmap's fallback for an operator without a batching rule
        warnings.simplefilter("ignore", UserWarning)
        batched = torch.vmap(lambda row: rt.argsort(row, dim=-1))(x)
    assert_same(batched, want.indices, "argsort under vmap")


def test_bad_input(rng, device):
    t = random_tensor(rng, torch.float32, (4, 9), device)
    before = t.clone()
    for fn in (rt.sort, rt.argsort):
        for dim in (2, -3):
            with pytest.raises(IndexError, match="out of range") as e:
                fn(t, dim=dim)
            assert isinstance(e.value, ValueError)
        with pytest.raises(TypeError, match="complex"):
            fn(torch.zeros(3, dtype=torch.complex64, device=device))
        with pytest.raises(TypeError, match="Tensor"):
            fn(np.zeros(3))
    assert_same(t, before, "the input changed")


def test_generic_calls_on_tensors(rng, device):
    """rdxsort.sort/argsort/sort_pairs/lexsort (not the custom ops) on N-D tensors: the
    results of torch.sort(dim, stable=True) and numpy.lexsort, as tensors on the device."""
    t = random_tensor(rng, torch.float32, (30, 70), device)
    v = torch.arange(t.numel(), device=device).reshape(t.shape)
    for dim in (-1, 0, 1):
        want = reference_sort(t, dim=dim)
        assert_same(rdxsort.sort(t, axis=dim), want.values, "sort dim=%d" % dim)
        assert_same(rdxsort.argsort(t, axis=dim), want.indices, "argsort dim=%d" % dim)
        k, moved = rdxsort.sort_pairs(t, v, axis=dim)
        assert_same(k, want.values, "sort_pairs keys")
        assert torch.equal(moved, torch.take_along_dim(v, want.indices, dim))
        inplace = t.clone()
        assert rdxsort.sort(inplace, axis=dim, inplace=True) is inplace
        assert_same(inplace, want.values, "in place dim=%d" % dim)
    keys = [random_tensor(rng, dt, (12, 300), device) for dt in (torch.int16, torch.uint8)]
    keys = [k % 3 if not k.is_floating_point() else k for k in keys] + [t[:12, :1].expand(12, 300)]
    host = [k.cpu().numpy() for k in keys]
    for axis in (-1, 0):
        got = rdxsort.lexsort(keys, axis=axis)
        assert got.device == t.device and got.dtype == torch.int64
        np.testing.assert_array_equal(got.cpu().numpy(), np.lexsort(host, axis=axis))
    with pytest.raises(TypeError, match="same library"):
        rdxsort.lexsort([keys[0], host[1]])
