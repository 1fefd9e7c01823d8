"""sort, argsort and sort_pairs: argument checks, then one call into the library.

Every check that can be made in Python is made before anything is copied or written, and
the library itself writes nothing when it fails, so a failed call leaves its input as it
was. Arrays the library cannot take as they are (strided, or in non-native byte order)
are sorted in a packed copy, written back to the caller's array only on success.
"""
import operator

from . import _lib as L
from ._arrays import adapt
from ._dtypes import index_type

_BACKENDS = {"auto": L.BACKEND_AUTO, "cpu": L.BACKEND_CPU, "cuda": L.BACKEND_CUDA}


def _one_d(x, fn, what):
    if len(x.shape) != 1:
        raise ValueError("%s: %s must be a 1-D array, not %d-D (shape %s); sort a flattened "
                         "copy (ravel()) or each row on its own" % (fn, what, len(x.shape),
                                                                    tuple(x.shape)))
    return int(x.shape[0])


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
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s: %s must be an integer, not %r" % (fn, name, value)) from None


def _opts(key_type, descending, begin_bit, end_bit, radix_bits, fn):
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
    return L.Opts(L.RDX_DESCENDING if descending else 0, begin, end, radix)


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
    elif L.use_async:
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


def _keys_request(fn, a, descending, begin_bit, end_bit, radix_bits, backend):
    """Checks a one-array request (sort, argsort): its adapter and array, length, key type,
    device, backend and options, in that order, so errors come in that order too."""
    adapter, x = adapt(a)
    n = _one_d(x, fn, "a")
    key_type = adapter.key_type(x, "a")
    device = adapter.device(x)
    backend = _backend(adapter, device, backend, fn)
    opts = _opts(key_type, descending, begin_bit, end_bit, radix_bits, fn)
    return adapter, x, n, key_type, device, backend, opts


def sort(a, *, descending=False, out=None, begin_bit=0, end_bit=None, radix_bits=0,
         backend=None, inplace=False):
    """Returns a sorted copy of the 1-D array ``a`` (or sorts it in place, or into ``out``).

    The sort is stable, in IEEE 754 totalOrder for floats (-NaN < -inf < ... < -0.0 < +0.0
    < ... < +inf < +NaN), reversed by ``descending=True`` (equal keys keep their order).
    ``begin_bit``/``end_bit`` name the bits [begin_bit, end_bit) of the order-mapped key to
    compare; ``radix_bits`` (1..8, 0 = the backend's choice) the digit width. ``backend``:
    None (NumPy and CPU tensors on the CPU, GPU arrays on the GPU), 'cpu', 'cuda' or 'auto'.
    The result is an array of the same library, device and dtype as ``a``.
    """
    fn = "sort"
    adapter, x, n, key_type, device, backend, opts = _keys_request(
        fn, a, descending, begin_bit, end_bit, radix_bits, backend)
    if inplace and out is not None:
        raise ValueError("sort: give inplace=True or out=, not both")
    if inplace:
        _check_writable(adapter, x, fn, "a")
        dest = x
    elif out is not None:
        dest = _check_out(adapter, x, out, n)
    else:
        dest = None
    # Copies, allocations and the sort all on the array's device (CuPy allocates on the
    # current one) and its current stream there.
    with adapter.device_scope(device):
        return _sort(adapter, x, dest, device, backend, n, key_type, opts)


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


def _check_out(adapter, x, out, n):
    if not adapter.same_place(x, out):
        raise TypeError("sort: out must be a %s array on the same device as a" % adapter.name)
    if tuple(out.shape) != (n,) or out.dtype != x.dtype:
        raise ValueError("sort: out must have shape (%d,) and dtype %s, like a; it has shape %s "
                         "and dtype %s" % (n, x.dtype, tuple(out.shape), out.dtype))
    _check_writable(adapter, out, "sort", "out")
    return out


def argsort(a, *, descending=False, index_dtype=None, begin_bit=0, end_bit=None,
            radix_bits=0, backend=None):
    """Returns the stable permutation that sorts ``a`` (``a[result]`` is sorted); ``a`` is
    not changed. ``index_dtype``: int64 (the default), uint64, int32 or uint32 (a NumPy
    dtype, its name, or a torch dtype). Other keywords as for :func:`sort`."""
    fn = "argsort"
    adapter, x, n, key_type, device, backend, opts = _keys_request(
        fn, a, descending, begin_bit, end_bit, radix_bits, backend)
    idx_type, idx_name = index_type("int64" if index_dtype is None else index_dtype, n)
    with adapter.device_scope(device):
        keys = x if adapter.packed(x) else adapter.copy(x)
        indices = adapter.empty(x, n, idx_name)
        _run(adapter, device, backend, "argsort", adapter.ptr(keys), n, key_type,
             adapter.ptr(indices), idx_type, opts)
    return indices


def sort_pairs(keys, values, *, descending=False, inplace=False, begin_bit=0, end_bit=None,
               radix_bits=0, backend=None):
    """Sorts ``keys`` and moves ``values`` with them; returns (sorted_keys, sorted_values).

    ``values`` has one entry per key along its first axis, of any fixed-size dtype
    (structured dtypes too); each row moves as one block of bytes. New arrays are returned,
    or with ``inplace=True`` both arrays are sorted in place and returned. Other keywords
    as for :func:`sort`.
    """
    fn = "sort_pairs"
    k_adapter, k = adapt(keys)
    v_adapter, v = adapt(values)
    n = _one_d(k, fn, "keys")
    key_type = k_adapter.key_type(k, "keys")
    device = k_adapter.device(k)
    if v_adapter is not k_adapter or v_adapter.device(v) != device:
        raise TypeError("sort_pairs: keys and values must be arrays of the same library on the "
                        "same device; got %s keys and %s values" % (_where(k_adapter, k),
                                                                     _where(v_adapter, v)))
    if len(v.shape) < 1 or int(v.shape[0]) != n:
        raise ValueError("sort_pairs: values must have one entry per key along the first axis; "
                         "got %d keys and values of shape %s" % (n, tuple(v.shape)))
    value_size = v_adapter.value_size(v, "values")
    if value_size == 0:
        raise ValueError("sort_pairs: values have 0 bytes per entry (shape %s, dtype %s)"
                         % (tuple(v.shape), v.dtype))
    backend = _backend(k_adapter, device, backend, fn)
    opts = _opts(key_type, descending, begin_bit, end_bit, radix_bits, fn)
    ad = k_adapter
    if inplace:
        _check_writable(ad, k, fn, "keys")
        _check_writable(ad, v, fn, "values")
    with ad.device_scope(device):
        return _sort_pairs(ad, k, v, inplace, device, backend, n, value_size, key_type, opts)


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
