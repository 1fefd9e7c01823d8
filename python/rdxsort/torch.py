"""torch.sort and torch.argsort through rdxsort, as PyTorch custom operators.

    import rdxsort.torch
    values, indices = rdxsort.torch.sort(t, dim=-1)          # as torch.sort(t, stable=True)
    indices = rdxsort.torch.argsort(t, dim=-1, descending=True)

The operators ``rdxsort::sort`` and ``rdxsort::argsort`` are defined through
``torch.library.Library`` (define, then impl for the CPU and CUDA dispatch keys), with
fake-tensor implementations (``torch.library.register_fake``: ``torch.compile``, also with
``fullgraph=True``, traces them without a graph break) and, for ``sort``, a backward
(``torch.library.register_autograd``: the values' gradient scattered back through the
indices). Library/define/impl rather than ``torch.library.custom_op``: the same operator
to torch, with about 20 us less Python around each call (measured on the CPU), which
counts when a sort of a few million keys takes tens of microseconds on a GPU; in plain
eager mode sort and argsort skip the dispatcher altogether (_plain_eager). Results equal
``torch.sort(t, dim, descending, stable=True)`` for every dtype torch sorts: floats in
PyTorch's order (every NaN after +inf, reversed when descending; -0.0 equal to +0.0),
equal keys in their input order; bool tensors sort as uint8. CPU tensors are sorted by
rdxsort's CPU backend (an argsort, then a gather), CUDA tensors on their GPU, where
``sort``'s values and indices come from one segmented sort
(``rdx_cuda_segmented_sort_with_indices_async``).
"""
import torch

from . import _api
from . import _lib
from ._arrays import TorchAdapter

__all__ = ["sort", "argsort", "DimError"]


class DimError(IndexError, ValueError):
    """A dim out of range: an IndexError, as torch.sort raises, and a ValueError."""


_SIGNED = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _keys(t):
    # torch sorts bool (False < True); rdxsort sorts its bytes as uint8.
    return t.view(torch.uint8) if t.dtype == torch.bool else t


def _gather(t, indices, dim):
    """t's entries at indices along dim, bit for bit: gathered as signed integers of the same
    width, since a float16 gather may quiet a signalling NaN and some PyTorch builds gather
    no unsigned type on the CPU ("scatter_gather_tensor_cpu" not implemented for UInt16).
    torch.gather, not take_along_dim: the shapes are equal, and take_along_dim's
    broadcasting took 30 us of host time per call (cProfile, H200 machine, round 16)."""
    whole = _SIGNED[t.element_size()]
    if t.dtype == torch.bool or t.dtype == whole:
        return torch.gather(t, dim, indices)
    return torch.gather(t.view(whole), dim, indices).view(t.dtype)


def _argsort_impl(t, dim, descending):
    if t.dim() == 0:
        return torch.zeros((), dtype=torch.int64, device=t.device)
    return _api.argsort(_keys(t), dim, descending=descending)


_current_device = getattr(torch._C, "_cuda_getDevice", None)
_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
# The caching allocator's raw blocks (private; the planned path falls back to a tensor):
# an allocation and its return took 1.6 us against 2.6 for a uint8 tensor (H200 machine,
# round 61).
_raw_alloc = getattr(torch._C, "_cuda_cudaCachingAllocator_raw_alloc", None)
_raw_delete = getattr(torch._C, "_cuda_cudaCachingAllocator_raw_delete", None)
if _raw_delete is None:
    _raw_alloc = None


def _sort_cuda_planned(t, dim, descending):
    """(values, indices) of a CUDA tensor whose request (dtype, shape, device, dim, order)
    _api.sort_with_indices has planned before, when it is contiguous along a last dim on
    the current device: the library call alone, without the array adapter's steps. None
    otherwise (then the general path). Those steps took about 10 of the 40 us of host time
    of a sort of 65536 x 32 int32 (cProfile and timers, H200 machine, round 59)."""
    device = t.get_device()
    p = _api._with_indices_plans.get((TorchAdapter, t.dtype, t.shape, device, dim, descending))
    if (p is None or p.ax != p.last or not p.n or not _lib.use_async or _raw_stream is None
            or _current_device is None or device != _current_device() or not t.is_contiguous()
            or t.data_ptr() % p.itemsize):
        return None
    values = torch.empty_like(t)  # t is contiguous, and so are they
    indices = torch.empty_like(t, dtype=torch.int64)
    stream, ctx = _raw_stream(device), _lib.context(p.backend, device)
    args = (t.data_ptr(), values.data_ptr(), p.n, p.key_type, p.rows, indices.data_ptr(), p.idx_type,
            p.opts)
    if _raw_alloc is None:
        owner, temp = TorchAdapter.temp(device, max(p.temp_bytes, 1))
        ctx.rows_sort_with_indices_async(*args, temp, p.temp_bytes, stream)
        return values, indices
    # The temporary storage straight from the caching allocator, on this stream: given back
    # once the sort is enqueued, it is handed out again on this stream only, after the sort.
    temp = _raw_alloc(max(p.temp_bytes, 1), stream)
    try:
        ctx.rows_sort_with_indices_async(*args, temp, p.temp_bytes, stream)
    finally:
        _raw_delete(temp)
    return values, indices


def _sort_impl(t, dim, descending):
    if t.dim() == 0:
        return t.clone(), torch.zeros((), dtype=torch.int64, device=t.device)
    if t.is_cuda:  # one sort writes both results
        both = _sort_cuda_planned(t, dim, descending)
        if both is not None:
            return both
        both = _api.sort_with_indices(_keys(t), dim, descending)
        if both is not None:
            values, indices = both
            return values.view(t.dtype), indices
    indices = _api.argsort(_keys(t), dim, descending=descending)
    return _gather(t, indices, dim), indices


def _argsort_fake(t, dim, descending):
    return t.new_empty(t.shape, dtype=torch.int64)


def _sort_fake(t, dim, descending):
    return t.new_empty(t.shape), t.new_empty(t.shape, dtype=torch.int64)


_ops = torch.library.Library("rdxsort", "DEF")
_ops.define("sort(Tensor t, int dim, bool descending) -> (Tensor, Tensor)")
_ops.define("argsort(Tensor t, int dim, bool descending) -> Tensor")
for _key in ("CPU", "CUDA"):
    _ops.impl("sort", _sort_impl, _key)
    _ops.impl("argsort", _argsort_impl, _key)
torch.library.register_fake("rdxsort::sort", _sort_fake, lib=_ops)
torch.library.register_fake("rdxsort::argsort", _argsort_fake, lib=_ops)


def _sort_setup_context(ctx, inputs, output):
    t, dim, _ = inputs
    ctx.dim = dim
    ctx.shape = t.shape
    ctx.save_for_backward(output[1])


def _sort_backward(ctx, grad_values, grad_indices):
    (indices,) = ctx.saved_tensors
    if indices.dim() == 0:
        return grad_values, None, None
    grad = grad_values.new_zeros(ctx.shape).scatter(ctx.dim, indices, grad_values)
    return grad, None, None


torch.library.register_autograd("rdxsort::sort", _sort_backward,
                                setup_context=_sort_setup_context, lib=_ops)


def _check(t, dim, fn):
    if not isinstance(t, torch.Tensor):
        raise TypeError("rdxsort.torch.%s: expected a torch.Tensor, got %s"
                        % (fn, type(t).__name__))
    ndim = max(t.dim(), 1)  # a 0-d tensor takes dim 0 or -1, as torch.sort
    if not -ndim <= dim < ndim:
        raise DimError("rdxsort.torch.%s: dim %d is out of range for a tensor of %d "
                         "dimension(s)" % (fn, dim, t.dim()))
    if t.is_complex():
        raise TypeError("rdxsort.torch.%s: complex tensors have no order (dtype %s)"
                        % (fn, t.dtype))


_dispatch_stack = getattr(torch._C, "_len_torch_dispatch_stack", None)
_function_modes = getattr(torch._C, "_is_torch_function_mode_enabled", None)
_functorch = getattr(getattr(torch._C, "_functorch", None), "is_functorch_wrapped_tensor", None)
_HAS_PROBES = None not in (_dispatch_stack, _function_modes, _functorch)


def _plain_eager(t):
    """True when the operator's dispatch would only call its implementation: a plain tensor
    in eager mode, no autograd to record, no torch function or dispatch mode, no functorch
    transform. Then sort and argsort call the implementation themselves: the dispatcher
    and the autograd wrapper cost 10-30 us of host time per call (H200 machine, round 16),
    as much as sorting a few million keys. Anything else (torch.compile, fake tensors,
    tensor subclasses, gradients, modes, vmap) goes through torch.ops.rdxsort, as before;
    when this PyTorch lacks one of the private probes, always."""
    return (_HAS_PROBES and type(t) is torch.Tensor
            and not (t.requires_grad and torch.is_grad_enabled())
            and not torch.compiler.is_compiling()
            and _dispatch_stack() == 0 and not _function_modes()
            and not _functorch(t))


def sort(t, dim=-1, descending=False, stable=True):
    """As ``torch.sort(t, dim, descending, stable=True)``: returns (values, indices), a
    ``torch.return_types.sort``. The sort is always stable (``stable=False`` allows any
    order of equal keys, so the stable one is a right answer too)."""
    eager = _plain_eager(t)
    if eager and type(dim) is int and t.is_cuda:
        both = _sort_cuda_planned(t, dim, bool(descending))
        if both is not None:  # (a planned request had its dim checked)
            return torch.return_types.sort(both)
    _check(t, dim, "sort")
    if eager:
        values, indices = _sort_impl(t, dim, bool(descending))
    else:
        values, indices = torch.ops.rdxsort.sort(t, dim, bool(descending))
    return torch.return_types.sort((values, indices))


def argsort(t, dim=-1, descending=False, stable=True):
    """As ``torch.argsort(t, dim, descending, stable=True)``: the int64 indices that sort
    ``t`` along ``dim``."""
    _check(t, dim, "argsort")
    if _plain_eager(t):
        return _argsort_impl(t, dim, bool(descending))
    return torch.ops.rdxsort.argsort(t, dim, bool(descending))
