"""sort, argsort and sort_pairs: argument checks, then calls into the library.

Every check that can be made in Python is made before anything is copied or written, and
the library itself writes nothing when it fails, so a failed call leaves its input as it
was. Arrays the library cannot take as they are (strided, or in non-native byte order)
are sorted in a packed copy, written back to the caller's array only on success.

An N-D array is sorted along one axis as rows: with that axis last in a C-contiguous array
(the array itself when it already is one, else a copy with the axis moved last), each row
is one segment of the library's segmented sort with equal rows (offsets NULL). 1-D arrays
(and axis=None, which sorts a flattened copy) go through the whole-array calls.
"""
import math
import operator

import numpy as np

from . import _lib as L
from ._arrays import adapt
from ._dtypes import index_type

_AxisError = getattr(np, "exceptions", np).AxisError  # a ValueError (and an IndexError)

_BACKENDS = {"auto": L.BACKEND_AUTO, "cpu": L.BACKEND_CPU, "cuda": L.BACKEND_CUDA}


def _axis(x, axis, fn):
    """The axis to sort along, in 0..ndim-1, or None (sort a flattened copy)."""
    if axis is None:
        return None
    ax = _int_arg(axis, "axis", fn)
    ndim = len(x.shape)
    if not -ndim <= ax < ndim:
        raise _AxisError(ax, ndim, fn)
    return ax % ndim


def _flatten(adapter, x, ax, inplace, fn):
    """(array, axis) with axis=None resolved: a flattened view or copy of x, along axis 0."""
    if ax is not None:
        return x, ax
    if len(x.shape) != 1:
        if inplace:
            raise ValueError("%s: axis=None sorts a flattened copy, so it cannot be in place; "
                             "give an axis" % fn)
        x = adapter.reshape(x, (-1,))
    return x, 0


def _rows(shape, ax):
    """(number of keys, number of rows) of an array of this shape sorted along axis ax."""
    n = math.prod(shape)
    return n, (n // shape[ax] if shape[ax] else 0)


def _backend(adapter, device, backend, fn):
    """The rdx_backend for this call; a GPU array always goes to the CUDA backend."""
    if backend is None:
        backend = "cpu" if device is None else "cuda"
    code = _BACKENDS.get(backend.lower()) if isinstance(backend, str) else None
    if code is None:
        raise ValueError("%s: backend must be 'auto', 'cpu', 'cuda' or None, not %r"
                         % (fn, backend))
    if device is not None:
        if code == L.BACKEND_CPU:
            raise ValueError("%s: backend='cpu' cannot sort a %s array that lives on GPU %d; "
                             "copy it to the host first" % (fn, adapter.name, device))
        code = L.BACKEND_CUDA
    return code


def _int_arg(value, name, fn):
    if type(value) is int:  # the common case, without operator.index's exception machinery
        return value
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s: %s must be an integer, not %r" % (fn, name, value)) from None


def _opts(key_type, descending, total_order, begin_bit, end_bit, radix_bits, fn):
    width = L.TYPE_BITS[key_type]
    begin = _int_arg(begin_bit, "begin_bit", fn)
    end = width if end_bit is None else _int_arg(end_bit, "end_bit", fn)
    radix = _int_arg(radix_bits, "radix_bits", fn)
    if not 0 <= begin < end <= width:
        raise ValueError("%s: the bit range must satisfy 0 <= begin_bit < end_bit <= %d for %s "
                         "keys; got begin_bit=%d, end_bit=%s"
                         % (fn, width, L.TYPE_NAMES[key_type], begin, end_bit))
    if not 0 <= radix <= 8:
        raise ValueError("%s: radix_bits must be 0 (the backend's choice) or 1..8, not %d"
                         % (fn, radix))
    flags = (L.RDX_DESCENDING if descending else 0) | (0 if total_order else L.RDX_NUMPY_ORDER)
    return L.Opts(flags, begin, end, radix)


def _check_writable(adapter, x, fn, what):
    if not adapter.writable(x):
        raise ValueError("%s: %s is read-only, so it cannot be sorted in place" % (fn, what))


def _run(adapter, device, backend, kind, *args):
    """Runs ctx.<kind>(*args); the caller has made the array's device current.

    Host arrays: the synchronous entry point. GPU arrays: the stream-ordered entry point on
    the array library's current stream, with temporary storage from that library's
    allocator; or, in a library without it, the synchronous entry point after waiting for
    the current stream (it returns when the sort is done).
    """
    ctx = L.context(backend, device)
    if device is None:
        getattr(ctx, kind)(*args)
    elif L.use_async and kind in L.ASYNC_KINDS:
        _run_async(adapter, device, ctx, kind, *args)
    else:
        adapter.synchronize(device)
        getattr(ctx, kind)(*args)


def _run_async(adapter, device, ctx, kind, *args):
    getattr(ctx, kind + "_async")(*args, temp=lambda nbytes: adapter.temp(device, nbytes),
                                  stream=adapter.stream(device))


def _into_ok(adapter, device, x, align):
    """True when a GPU array x can be read in place by an out-of-place (*_into) sort: the
    library has those entry points, x is packed and aligned to `align` bytes."""
    return (device is not None and L.use_async and L.use_into and adapter.packed(x)
            and adapter.ptr(x) % align == 0)


def _same_or_apart(adapter, x, y, nbytes):
    """x and y (packed, nbytes each) are one array, or share no byte."""
    px, py = adapter.ptr(x), adapter.ptr(y)
    return px == py or px + nbytes <= py or py + nbytes <= px


def _keys_request(fn, a, axis, descending, total_order, begin_bit, end_bit, radix_bits,
                  backend):
    """Checks a one-array request (sort, argsort): its adapter and array, axis, key type,
    device, backend and options, in that order, so errors come in that order too."""
    adapter, x = adapt(a)
    ax = _axis(x, axis, fn)
    key_type = adapter.key_type(x, "a")
    device = adapter.device(x)
    backend = _backend(adapter, device, backend, fn)
    opts = _opts(key_type, descending, total_order, begin_bit, end_bit, radix_bits, fn)
    return adapter, x, ax, key_type, device, backend, opts


def sort(a, axis=-1, *, descending=False, total_order=False, out=None, begin_bit=0,
         end_bit=None, radix_bits=0, backend=None, inplace=False):
    """Returns a copy of ``a`` sorted along ``axis`` (or sorts it in place, or into ``out``),
    as ``numpy.sort(a, axis, kind="stable")``.

    ``axis``: -1 (the last, the default), any axis, or None (a sorted flattened copy). The
    sort is stable, and orders floats as NumPy and PyTorch do (every NaN after +inf, -0.0
    equal to +0.0); ``total_order=True`` orders them by IEEE 754 totalOrder instead (-NaN <
    -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN). ``descending=True`` reverses the order
    (equal keys keep theirs). ``begin_bit``/``end_bit`` name the bits [begin_bit, end_bit)
    of the order-mapped key to compare; ``radix_bits`` (1..8, 0 = the backend's choice) the
    digit width. ``backend``: None (NumPy and CPU tensors on the CPU, GPU arrays on the
    GPU), 'cpu', 'cuda' or 'auto'. The result is an array of the same library, device and
    dtype as ``a``.
    """
    fn = "sort"
    adapter, x, ax, key_type, device, backend, opts = _keys_request(
        fn, a, axis, descending, total_order, begin_bit, end_bit, radix_bits, backend)
    if inplace and out is not None:
        raise ValueError("sort: give inplace=True or out=, not both")
    x, ax = _flatten(adapter, x, ax, inplace, fn)
    if inplace:
        _check_writable(adapter, x, fn, "a")
        dest = x
    elif out is not None:
        dest = _check_out(adapter, x, out)
    else:
        dest = None
    # Copies, allocations and the sort all on the array's device (CuPy allocates on the
    # current one) and its current stream there.
    with adapter.device_scope(device):
        if len(x.shape) == 1:
            return _sort(adapter, x, dest, device, backend, int(x.shape[0]), key_type, opts)
        return _sort_rows(adapter, x, dest, ax, device, backend, key_type, opts)


def _sort_rows(adapter, x, dest, ax, device, backend, key_type, opts):
    last = len(x.shape) - 1
    n, rows = _rows(tuple(x.shape), ax)
    if dest is not None and ax == last and adapter.packed(dest):
        work = dest
        if dest is not x:
            adapter.assign(work, x)
    else:
        work = adapter.copy(adapter.moveaxis(x, ax, last))
    if n:
        _run(adapter, device, backend, "rows_sort_keys", adapter.ptr(work), n, key_type, rows,
             opts)
    if dest is None:
        return work if ax == last else adapter.copy(adapter.moveaxis(work, last, ax))
    if work is not dest:
        adapter.assign(adapter.moveaxis(dest, ax, last), work)
    return dest


def _sort(adapter, x, dest, device, backend, n, key_type, opts):
    # GPU arrays out of place: the sort reads x and writes the result array, no copy first.
    itemsize = L.TYPE_BITS[key_type] // 8
    if dest is not x and _into_ok(adapter, device, x, itemsize):
        out = adapter.empty_like(x) if dest is None else dest
        if out is not dest or (adapter.packed(dest) and adapter.ptr(dest) % itemsize == 0
                               and _same_or_apart(adapter, x, dest, n * itemsize)):
            _run_async(adapter, device, L.context(backend, device), "sort_keys_into",
                       adapter.ptr(x), adapter.ptr(out), n, key_type, opts)
            return out
    if dest is not None and adapter.packed(dest):
        work = dest
        if dest is not x:
            adapter.assign(work, x)
    else:
        work = adapter.copy(x)
    _run(adapter, device, backend, "sort_keys", adapter.ptr(work), n, key_type, opts)
    if dest is None:
        return work
    if work is not dest:
        adapter.assign(dest, work)
    return dest


def _check_out(adapter, x, out):
    if not adapter.same_place(x, out):
        raise TypeError("sort: out must be a %s array on the same device as a" % adapter.name)
    if tuple(out.shape) != tuple(x.shape) or out.dtype != x.dtype:
        raise ValueError("sort: out must have shape %s and dtype %s, like the result; it has "
                         "shape %s and dtype %s" % (tuple(x.shape), x.dtype, tuple(out.shape),
                                                    out.dtype))
    _check_writable(adapter, out, "sort", "out")
    return out


def argsort(a, axis=-1, *, descending=False, total_order=False, index_dtype=None,
            begin_bit=0, end_bit=None, radix_bits=0, backend=None):
    """Returns the stable permutation that sorts ``a`` along ``axis``, as
    ``numpy.argsort(a, axis, kind="stable")``: each entry is a position along that axis
    (``take_along_axis(a, result, axis)`` is sorted); ``a`` is not changed. ``axis=None``
    sorts a flattened copy. ``index_dtype``: int64 (the default), uint64, int32 or uint32 (a
    NumPy dtype, its name, or a torch dtype). Other keywords as for :func:`sort`."""
    fn = "argsort"
    adapter, x, ax, key_type, device, backend, opts = _keys_request(
        fn, a, axis, descending, total_order, begin_bit, end_bit, radix_bits, backend)
    x, ax = _flatten(adapter, x, ax, False, fn)
    shape = tuple(x.shape)
    idx_type, idx_name = index_type("int64" if index_dtype is None else index_dtype,
                                    int(shape[ax]))
    n, rows = _rows(shape, ax)
    last = len(shape) - 1
    with adapter.device_scope(device):
        keys = x if ax == last and adapter.packed(x) else adapter.copy(adapter.moveaxis(x, ax, last))
        indices = adapter.empty(x, tuple(keys.shape), idx_name)
        if last == 0:
            _run(adapter, device, backend, "argsort", adapter.ptr(keys), n, key_type,
                 adapter.ptr(indices), idx_type, opts)
            return indices
        if n:
            _run(adapter, device, backend, "rows_argsort", adapter.ptr(keys), n, key_type, rows,
                 adapter.ptr(indices), idx_type, opts)
    return indices if ax == last else adapter.copy(adapter.moveaxis(indices, last, ax))


class _WithIndicesPlan:
    """sort_with_indices' checked request: what the library call takes besides the arrays,
    for one array library, dtype, shape, device, axis and order (the checks and the temp-
    size query depend on nothing else)."""

    __slots__ = ("ax", "last", "backend", "key_type", "itemsize", "n", "rows", "idx_type",
                 "idx_name", "opts", "temp_bytes")


# Plans of sort_with_indices by request; past _PLANS_KEPT, all forgotten at once. Kept, they
# save 7-16 us of the 40-65 us of host time of a sort of a few thousand rows, which the GPU
# sorts in 30-100 us (H200 machine, round 19, device call 9).
_with_indices_plans = {}
_PLANS_KEPT = 256


def _plan_with_indices(x, axis, descending, device):
    _, x, ax, key_type, device, backend, opts = _keys_request(
        "sort", x, axis, descending, False, 0, None, 0, None)
    p = _WithIndicesPlan()
    shape = tuple(x.shape)
    p.ax, p.last, p.backend, p.key_type, p.opts = ax, len(shape) - 1, backend, key_type, opts
    p.itemsize = L.TYPE_BITS[key_type] // 8
    p.idx_type, p.idx_name = index_type("int64", int(shape[ax]))
    p.n, p.rows = _rows(shape, ax)
    p.temp_bytes = L.context(backend, device).rows_sort_with_indices_temp_bytes(
        p.n, key_type, p.rows, p.idx_type, opts) if p.n else 0
    return p


def sort_with_indices(a, axis, descending):
    """(a sorted along axis, the int64 indices argsort returns) of a GPU array in one sort,
    as torch.sort returns them (rdx_cuda_segmented_sort_with_indices_async: no argsort and
    gather); None where this library has no such call or a is no GPU array (then argsort
    and gather). Floats in NumPy's order, their bits kept."""
    adapter, x = adapt(a)
    device = adapter.device(x)
    if device is None or not (L.use_async and L.HAS_WITH_INDICES):
        return None
    key = (adapter, x.dtype, tuple(x.shape), device, axis, bool(descending))
    p = _with_indices_plans.get(key)
    if p is None:
        p = _plan_with_indices(x, axis, descending, device)
        if len(_with_indices_plans) >= _PLANS_KEPT:
            _with_indices_plans.clear()
        _with_indices_plans[key] = p
    ax, last = p.ax, p.last
    with adapter.device_scope(device):
        if ax == last and adapter.packed(x) and adapter.ptr(x) % p.itemsize == 0:
            keys, out = x, adapter.empty_like(x)
        else:  # a packed copy with the axis last, sorted in place
            keys = out = adapter.copy(adapter.moveaxis(x, ax, last))
        indices = adapter.empty(x, tuple(keys.shape), p.idx_name)
        if p.n:
            owner, ptr = adapter.temp(device, max(p.temp_bytes, 1))
            L.context(p.backend, device).rows_sort_with_indices_async(
                adapter.ptr(keys), adapter.ptr(out), p.n, p.key_type, p.rows,
                adapter.ptr(indices), p.idx_type, p.opts, ptr, p.temp_bytes,
                adapter.stream(device))
            del owner
    if ax == last:
        return out, indices
    return (adapter.copy(adapter.moveaxis(out, last, ax)),
            adapter.copy(adapter.moveaxis(indices, last, ax)))


def sort_pairs(keys, values, axis=-1, *, descending=False, total_order=False, inplace=False,
               begin_bit=0, end_bit=None, radix_bits=0, backend=None):
    """Sorts ``keys`` along ``axis`` and moves ``values`` with them; returns (sorted_keys,
    sorted_values).

    ``values`` has the keys' shape, optionally followed by more axes: each key's entry (of
    any fixed-size dtype, structured dtypes too) moves with it as one block of bytes.
    ``axis=None`` sorts flattened copies. New arrays are returned, or with ``inplace=True``
    both arrays are sorted in place and returned. Other keywords as for :func:`sort`.
    """
    fn = "sort_pairs"
    k_adapter, k = adapt(keys)
    v_adapter, v = adapt(values)
    ax = _axis(k, axis, fn)
    key_type = k_adapter.key_type(k, "keys")
    device = k_adapter.device(k)
    if v_adapter is not k_adapter or v_adapter.device(v) != device:
        raise TypeError("sort_pairs: keys and values must be arrays of the same library on the "
                        "same device; got %s keys and %s values" % (_where(k_adapter, k),
                                                                     _where(v_adapter, v)))
    kshape = tuple(k.shape)
    if tuple(v.shape[:len(kshape)]) != kshape or len(v.shape) < len(kshape):
        raise ValueError("sort_pairs: values must have one entry per key: the keys' shape %s, "
                         "optionally followed by more axes; got values of shape %s"
                         % (kshape, tuple(v.shape)))
    value_size = v_adapter.value_size(v, "values", len(kshape))
    if value_size == 0:
        raise ValueError("sort_pairs: values have 0 bytes per entry (shape %s, dtype %s)"
                         % (tuple(v.shape), v.dtype))
    backend = _backend(k_adapter, device, backend, fn)
    opts = _opts(key_type, descending, total_order, begin_bit, end_bit, radix_bits, fn)
    ad = k_adapter
    if ax is None and len(kshape) != 1:
        if inplace:
            raise ValueError("sort_pairs: axis=None sorts flattened copies, so it cannot be in "
                             "place; give an axis")
        n = math.prod(kshape)
        k = ad.reshape(k, (n,))
        v = ad.reshape(v, (n,) + tuple(v.shape[len(kshape):]))
    ax = 0 if ax is None else ax
    if inplace:
        _check_writable(ad, k, fn, "keys")
        _check_writable(ad, v, fn, "values")
    with ad.device_scope(device):
        if len(k.shape) == 1:
            return _sort_pairs(ad, k, v, inplace, device, backend, int(k.shape[0]), value_size,
                               key_type, opts)
        return _sort_pairs_rows(ad, k, v, ax, inplace, device, backend, value_size, key_type,
                                opts)


def _sort_pairs_rows(ad, k, v, ax, inplace, device, backend, value_size, key_type, opts):
    last = len(k.shape) - 1
    n, rows = _rows(tuple(k.shape), ax)
    in_place_ok = inplace and ax == last
    wk = k if in_place_ok and ad.packed(k) else ad.copy(ad.moveaxis(k, ax, last))
    aligned = device is None or value_size not in (4, 8) or ad.ptr(v) % value_size == 0
    wv = v if in_place_ok and ad.packed(v) and aligned else ad.copy(ad.moveaxis(v, ax, last))
    if n:
        _run(ad, device, backend, "rows_sort_pairs", ad.ptr(wk), ad.ptr(wv), value_size, n,
             key_type, rows, opts)
    if not inplace:
        if ax == last:
            return wk, wv
        return ad.copy(ad.moveaxis(wk, last, ax)), ad.copy(ad.moveaxis(wv, last, ax))
    if wk is not k:
        ad.assign(ad.moveaxis(k, ax, last), wk)
    if wv is not v:
        ad.assign(ad.moveaxis(v, ax, last), wv)
    return k, v


def _sort_pairs(ad, k, v, inplace, device, backend, n, value_size, key_type, opts):
    if inplace:
        wk = k if ad.packed(k) else ad.copy(k)
        # The GPU kernels move 4- and 8-byte values as words: those need aligned rows.
        aligned = device is None or value_size not in (4, 8) or ad.ptr(v) % value_size == 0
        wv = v if ad.packed(v) and aligned else ad.copy(v)
    elif (_into_ok(ad, device, k, L.TYPE_BITS[key_type] // 8)
          and _into_ok(ad, device, v, value_size if value_size in (4, 8) else 1)):
        # GPU arrays: the sort reads k and v and writes new arrays, no copies first.
        ok, ov = ad.empty_like(k), ad.empty_like(v)
        _run_async(ad, device, L.context(backend, device), "sort_pairs_into", ad.ptr(k),
                   ad.ptr(ok), ad.ptr(v), ad.ptr(ov), value_size, n, key_type, opts)
        return ok, ov
    else:
        wk, wv = ad.copy(k), ad.copy(v)
    _run(ad, device, backend, "sort_pairs", ad.ptr(wk), ad.ptr(wv), value_size, n, key_type, opts)
    if not inplace:
        return wk, wv
    if wk is not k:
        ad.assign(k, wk)
    if wv is not v:
        ad.assign(v, wv)
    return k, v


def _where(adapter, x):
    device = adapter.device(x)
    return adapter.name + ("" if device is None else " (GPU %d)" % device)

