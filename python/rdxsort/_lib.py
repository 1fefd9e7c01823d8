"""The native library: loading librdx.so, the C signatures, errors and the cached contexts.

Only this module talks to ctypes. ctypes releases the GIL around every call, so Python
threads can sort at the same time, each with its own context (an rdx_ctx is not shared
between threads).
"""
import ctypes
import os
import threading
from pathlib import Path

# rdx.h's enums, mirrored.
RDX_OK = 0
STATUS_NAMES = {
    0: "RDX_OK",
    1: "RDX_ERR_INVALID_ARGUMENT",
    2: "RDX_ERR_UNSUPPORTED",
    3: "RDX_ERR_OUT_OF_MEMORY",
    4: "RDX_ERR_NO_DEVICE",
    5: "RDX_ERR_DEVICE",
    6: "RDX_ERR_TEMP_TOO_SMALL",
    7: "RDX_ERR_INTERNAL",
}
(U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64) = range(1, 13)
TYPE_NAMES = {U8: "u8", U16: "u16", U32: "u32", U64: "u64", I8: "i8", I16: "i16",
              I32: "i32", I64: "i64", F16: "f16", BF16: "bf16", F32: "f32", F64: "f64"}
TYPE_BITS = {U8: 8, U16: 16, U32: 32, U64: 64, I8: 8, I16: 16, I32: 32, I64: 64,
             F16: 16, BF16: 16, F32: 32, F64: 64}
BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA = 0, 1, 2
BACKEND_NAMES = {BACKEND_AUTO: "auto", BACKEND_CPU: "cpu", BACKEND_CUDA: "cuda"}
RDX_DESCENDING = 1
RDX_NUMPY_ORDER = 2  # floats as NumPy and PyTorch order them (every NaN last, -0.0 == +0.0)


class RdxError(RuntimeError):
    """A failure reported by the rdxsort library.

    Attributes: ``status`` (the rdx_status number), ``status_name`` (e.g.
    ``"RDX_ERR_OUT_OF_MEMORY"``) and ``detail`` (rdx_ctx_error's text).
    """

    def __init__(self, status, detail):
        self.status = int(status)
        self.status_name = STATUS_NAMES.get(self.status, "RDX_STATUS_%d" % self.status)
        self.detail = detail
        super().__init__("%s (%s)" % (detail or status_string(self.status), self.status_name))


class RdxArgumentError(RdxError, ValueError):
    """RDX_ERR_INVALID_ARGUMENT: the library refused an argument (also a ValueError)."""


class RdxMemoryError(RdxError, MemoryError):
    """RDX_ERR_OUT_OF_MEMORY: host or device memory could not be had (also a MemoryError)."""


def error_for(status, detail):
    if status == 1:
        return RdxArgumentError(status, detail)
    if status == 3:
        return RdxMemoryError(status, detail)
    return RdxError(status, detail)


class Opts(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint), ("begin_bit", ctypes.c_int),
                ("end_bit", ctypes.c_int), ("radix_bits", ctypes.c_int)]


def _library_path():
    """The bundled librdx.so, or RDXSORT_LIBRARY when set (to try a library from a build tree)."""
    override = os.environ.get("RDXSORT_LIBRARY")
    if override:
        return override
    here = Path(__file__).resolve().parent
    for name in ("librdx.so", "librdx.dylib", "rdx.dll"):
        if (here / name).is_file():
            return str(here / name)
    raise ImportError("rdxsort: the native library librdx.so is missing from %s; "
                      "install the package with `pip install ./python` from the repository" % here)


LIBRARY_PATH = _library_path()
_lib = ctypes.CDLL(LIBRARY_PATH)

_vp, _sz, _int = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
_signatures = {
    "rdx_version_string": ([], ctypes.c_char_p),
    "rdx_status_string": ([_int], ctypes.c_char_p),
    "rdx_ctx_create": ([ctypes.POINTER(_vp), _int], _int),
    "rdx_ctx_destroy": ([_vp], None),
    "rdx_ctx_backend": ([_vp], _int),
    "rdx_ctx_error": ([_vp], ctypes.c_char_p),
    "rdx_sort_keys": ([_vp, _vp, _sz, _int, ctypes.POINTER(Opts)], _int),
    "rdx_sort_pairs": ([_vp, _vp, _vp, _sz, _sz, _int, ctypes.POINTER(Opts)], _int),
    "rdx_argsort": ([_vp, _vp, _sz, _int, _vp, _int, ctypes.POINTER(Opts)], _int),
    # Version 0.2: segmented sorts (here always equal rows: offsets NULL).
    "rdx_segmented_sort_keys": ([_vp, _vp, _sz, _int, _vp, _sz, ctypes.POINTER(Opts)], _int),
    "rdx_segmented_sort_pairs": ([_vp, _vp, _vp, _sz, _sz, _int, _vp, _sz,
                                  ctypes.POINTER(Opts)], _int),
    "rdx_segmented_argsort": ([_vp, _vp, _sz, _int, _vp, _sz, _vp, _int,
                               ctypes.POINTER(Opts)], _int),
}
for _name, (_args, _res) in _signatures.items():
    _fn = getattr(_lib, _name)
    _fn.argtypes, _fn.restype = _args, _res

# The stream-ordered entry points of rdx_cuda.h, in a library built with the CUDA backend.
_szp, _stream = ctypes.POINTER(_sz), ctypes.c_void_p
_async_signatures = {
    "rdx_cuda_sort_keys_temp_size": ([_vp, _sz, _int, ctypes.POINTER(Opts), _szp], _int),
    "rdx_cuda_sort_keys_async": ([_vp, _vp, _sz, _int, ctypes.POINTER(Opts), _vp, _sz, _stream], _int),
    "rdx_cuda_sort_pairs_temp_size": ([_vp, _sz, _sz, _int, ctypes.POINTER(Opts), _szp], _int),
    "rdx_cuda_sort_pairs_async": ([_vp, _vp, _vp, _sz, _sz, _int, ctypes.POINTER(Opts), _vp, _sz,
                                   _stream], _int),
    "rdx_cuda_argsort_temp_size": ([_vp, _sz, _int, _int, ctypes.POINTER(Opts), _szp], _int),
    "rdx_cuda_argsort_async": ([_vp, _vp, _sz, _int, _vp, _int, ctypes.POINTER(Opts), _vp, _sz,
                                _stream], _int),
}
HAS_ASYNC = all(hasattr(_lib, name) for name in _async_signatures)
if HAS_ASYNC:
    for _name, (_args, _res) in _async_signatures.items():
        _fn = getattr(_lib, _name)
        _fn.argtypes, _fn.restype = _args, _res

# Their out-of-place variants (input unchanged, result in another array, no extra copy);
# a librdx from before them has only the in-place calls.
_into_signatures = {
    "rdx_cuda_sort_keys_into_async": ([_vp, _vp, _vp, _sz, _int, ctypes.POINTER(Opts), _vp, _sz,
                                       _stream], _int),
    "rdx_cuda_sort_pairs_into_async": ([_vp, _vp, _vp, _vp, _vp, _sz, _sz, _int,
                                        ctypes.POINTER(Opts), _vp, _sz, _stream], _int),
}
HAS_INTO = HAS_ASYNC and all(hasattr(_lib, name) for name in _into_signatures)
if HAS_INTO:
    for _name, (_args, _res) in _into_signatures.items():
        _fn = getattr(_lib, _name)
        _fn.argtypes, _fn.restype = _args, _res

# The stream-ordered segmented sorts (version 0.2; offsets NULL here: equal rows).
_segmented_async_signatures = {
    "rdx_cuda_segmented_sort_keys_temp_size": ([_vp, _sz, _int, _sz, ctypes.POINTER(Opts), _szp],
                                               _int),
    "rdx_cuda_segmented_sort_keys_async": ([_vp, _vp, _sz, _int, _vp, _sz, ctypes.POINTER(Opts),
                                           _vp, _sz, _stream], _int),
    "rdx_cuda_segmented_sort_pairs_temp_size": ([_vp, _sz, _sz, _int, _sz, ctypes.POINTER(Opts),
                                                 _szp], _int),
    "rdx_cuda_segmented_sort_pairs_async": ([_vp, _vp, _vp, _sz, _sz, _int, _vp, _sz,
                                            ctypes.POINTER(Opts), _vp, _sz, _stream], _int),
    "rdx_cuda_segmented_argsort_temp_size": ([_vp, _sz, _int, _sz, _int, ctypes.POINTER(Opts),
                                              _szp], _int),
    "rdx_cuda_segmented_argsort_async": ([_vp, _vp, _sz, _int, _vp, _sz, _vp, _int,
                                         ctypes.POINTER(Opts), _vp, _sz, _stream], _int),
}
HAS_SEGMENTED_ASYNC = all(hasattr(_lib, name) for name in _segmented_async_signatures)
if HAS_SEGMENTED_ASYNC:
    for _name, (_args, _res) in _segmented_async_signatures.items():
        _fn = getattr(_lib, _name)
        _fn.argtypes, _fn.restype = _args, _res

# The segmented argsort that writes the sorted keys too (torch.sort's two results in one
# sort); a librdx from before it has not.
_with_indices_signature = ([_vp, _vp, _vp, _sz, _int, _vp, _sz, _vp, _int, ctypes.POINTER(Opts),
                            _vp, _sz, _stream], _int)
HAS_WITH_INDICES = (HAS_SEGMENTED_ASYNC
                    and hasattr(_lib, "rdx_cuda_segmented_sort_with_indices_async"))
if HAS_WITH_INDICES:
    _fn = _lib.rdx_cuda_segmented_sort_with_indices_async
    _fn.argtypes, _fn.restype = _with_indices_signature

# The Context methods that have a stream-ordered variant (<name>_async) in this library.
ASYNC_KINDS = (({"sort_keys", "sort_pairs", "argsort"} if HAS_ASYNC else set())
               | ({"rows_sort_keys", "rows_sort_pairs", "rows_argsort"}
                  if HAS_SEGMENTED_ASYNC else set()))

# GPU arrays are sorted with the stream-ordered entry points when the library has them
# (no host synchronization); False selects the synchronous ones (tests flip it).
use_async = HAS_ASYNC
# Out-of-place sorts of GPU arrays (a new result array, or out=) read the input and write
# the result with the *_into entry points, when the library has them and use_async is on;
# False: copy the input into the result, then sort that in place (tests flip it).
use_into = HAS_INTO


def status_string(status):
    return _lib.rdx_status_string(int(status)).decode("utf-8", "replace")


def version():
    """The native library's version, "MAJOR.MINOR.PATCH"."""
    return _lib.rdx_version_string().decode()


# How many temporary sizes a context keeps (Context._temp); past that it forgets them all.
_TEMP_SIZES_KEPT = 256


class Context:
    """One rdx_ctx; destroyed (with its scratch memory) when the object goes."""

    __slots__ = ("handle", "backend", "_temp_sizes")

    def __init__(self, backend):
        handle = ctypes.c_void_p()
        status = _lib.rdx_ctx_create(ctypes.byref(handle), backend)
        if status != RDX_OK:
            if status == 2:
                why = "this build of rdxsort has no CUDA backend (it was built without nvcc)"
            elif status == 4:
                why = "no usable CUDA GPU was found"
            else:
                why = "could not create a %s context: %s" % (BACKEND_NAMES.get(backend, backend),
                                                            status_string(status))
            raise error_for(status, why)
        self.handle = handle.value
        self.backend = _lib.rdx_ctx_backend(self.handle)
        self._temp_sizes = {}

    def error(self):
        return _lib.rdx_ctx_error(self.handle).decode("utf-8", "replace")

    def check(self, status):
        if status != RDX_OK:
            raise error_for(status, self.error())

    def sort_keys(self, keys, n, key_type, opts):
        self.check(_lib.rdx_sort_keys(self.handle, keys, n, key_type, ctypes.byref(opts)))

    def sort_pairs(self, keys, values, value_size, n, key_type, opts):
        self.check(_lib.rdx_sort_pairs(self.handle, keys, values, value_size, n, key_type,
                                       ctypes.byref(opts)))

    def argsort(self, keys, n, key_type, indices, index_type, opts):
        self.check(_lib.rdx_argsort(self.handle, keys, n, key_type, indices, index_type,
                                    ctypes.byref(opts)))

    # Segmented sorts of `rows` equal rows of n / rows keys each (a C-contiguous matrix).
    def rows_sort_keys(self, keys, n, key_type, rows, opts):
        self.check(_lib.rdx_segmented_sort_keys(self.handle, keys, n, key_type, None, rows,
                                                ctypes.byref(opts)))

    def rows_sort_pairs(self, keys, values, value_size, n, key_type, rows, opts):
        self.check(_lib.rdx_segmented_sort_pairs(self.handle, keys, values, value_size, n,
                                                 key_type, None, rows, ctypes.byref(opts)))

    def rows_argsort(self, keys, n, key_type, rows, indices, index_type, opts):
        self.check(_lib.rdx_segmented_argsort(self.handle, keys, n, key_type, None, rows,
                                              indices, index_type, ctypes.byref(opts)))

    # The stream-ordered variants: temp(nbytes) gives (owner, device pointer) of temporary
    # storage from the array library's allocator on the current stream; the owner is held
    # until the sort is enqueued, and the allocator's stream ordering keeps the memory from
    # being reused before the sort has run.
    def _temp(self, temp, query, *args):
        """temp(size) for the temporary storage of rdx.h's `query`, called with this context,
        args (their last one the options) and the size's address. A query's answer depends
        only on its arguments (and the context's device, fixed per cached context): kept,
        to spare a library call per sort of small arrays."""
        opts = args[-1]
        key = (query, args[:-1], opts.flags, opts.begin_bit, opts.end_bit, opts.radix_bits)
        size = self._temp_sizes.get(key)
        if size is None:
            out = ctypes.c_size_t(0)
            self.check(getattr(_lib, query)(self.handle, *args[:-1], ctypes.byref(opts),
                                            ctypes.byref(out)))
            size = out.value
            if len(self._temp_sizes) >= _TEMP_SIZES_KEPT:
                self._temp_sizes.clear()
            self._temp_sizes[key] = size
        return temp(max(size, 1)), size

    def sort_keys_async(self, keys, n, key_type, opts, temp, stream):
        (owner, ptr), size = self._temp(temp, "rdx_cuda_sort_keys_temp_size", n, key_type, opts)
        self.check(_lib.rdx_cuda_sort_keys_async(self.handle, keys, n, key_type,
                                                 ctypes.byref(opts), ptr, size, stream))
        del owner

    def sort_pairs_async(self, keys, values, value_size, n, key_type, opts, temp, stream):
        (owner, ptr), size = self._temp(temp, "rdx_cuda_sort_pairs_temp_size",
                                        value_size, n, key_type, opts)
        self.check(_lib.rdx_cuda_sort_pairs_async(self.handle, keys, values, value_size, n,
                                                  key_type, ctypes.byref(opts), ptr, size, stream))
        del owner

    def sort_keys_into_async(self, keys_in, keys_out, n, key_type, opts, temp, stream):
        (owner, ptr), size = self._temp(temp, "rdx_cuda_sort_keys_temp_size", n, key_type, opts)
        self.check(_lib.rdx_cuda_sort_keys_into_async(self.handle, keys_in, keys_out, n, key_type,
                                                      ctypes.byref(opts), ptr, size, stream))
        del owner

    def sort_pairs_into_async(self, keys_in, keys_out, values_in, values_out, value_size, n,
                              key_type, opts, temp, stream):
        (owner, ptr), size = self._temp(temp, "rdx_cuda_sort_pairs_temp_size",
                                        value_size, n, key_type, opts)
        self.check(_lib.rdx_cuda_sort_pairs_into_async(self.handle, keys_in, keys_out, values_in,
                                                       values_out, value_size, n, key_type,
                                                       ctypes.byref(opts), ptr, size, stream))
        del owner

    def argsort_async(self, keys, n, key_type, indices, index_type, opts, temp, stream):
        (owner, ptr), size = self._temp(temp, "rdx_cuda_argsort_temp_size",
                                        n, key_type, index_type, opts)
        self.check(_lib.rdx_cuda_argsort_async(self.handle, keys, n, key_type, indices,
                                               index_type, ctypes.byref(opts), ptr, size, stream))
        del owner

    def rows_sort_keys_async(self, keys, n, key_type, rows, opts, temp, stream):
        (owner, ptr), size = self._temp(temp, "rdx_cuda_segmented_sort_keys_temp_size",
                                        n, key_type, rows, opts)
        self.check(_lib.rdx_cuda_segmented_sort_keys_async(
            self.handle, keys, n, key_type, None, rows, ctypes.byref(opts), ptr, size, stream))
        del owner

    def rows_sort_pairs_async(self, keys, values, value_size, n, key_type, rows, opts, temp,
                              stream):
        (owner, ptr), size = self._temp(temp, "rdx_cuda_segmented_sort_pairs_temp_size",
                                        value_size, n, key_type, rows, opts)
        self.check(_lib.rdx_cuda_segmented_sort_pairs_async(
            self.handle, keys, values, value_size, n, key_type, None, rows, ctypes.byref(opts),
            ptr, size, stream))
        del owner

    def rows_argsort_async(self, keys, n, key_type, rows, indices, index_type, opts, temp,
                           stream):
        (owner, ptr), size = self._temp(temp, "rdx_cuda_segmented_argsort_temp_size",
                                        n, key_type, rows, index_type, opts)
        self.check(_lib.rdx_cuda_segmented_argsort_async(
            self.handle, keys, n, key_type, None, rows, indices, index_type, ctypes.byref(opts),
            ptr, size, stream))
        del owner

    # The segmented argsort that writes the sorted keys too. Its temporary storage: the
    # argsort's (rdx_cuda.h); the caller holds it until the sort is enqueued.
    def rows_sort_with_indices_temp_bytes(self, n, key_type, rows, index_type, opts):
        out = ctypes.c_size_t(0)
        self.check(_lib.rdx_cuda_segmented_argsort_temp_size(
            self.handle, n, key_type, rows, index_type, ctypes.byref(opts), ctypes.byref(out)))
        return out.value

    def rows_sort_with_indices_async(self, keys_in, keys_out, n, key_type, rows, indices,
                                     index_type, opts, temp, temp_bytes, stream):
        self.check(_lib.rdx_cuda_segmented_sort_with_indices_async(
            self.handle, keys_in, keys_out, n, key_type, None, rows, indices, index_type,
            ctypes.byref(opts), temp, temp_bytes, stream))

    def __del__(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle and _lib is not None:
            _lib.rdx_ctx_destroy(handle)


# One context per (thread, backend, CUDA device), made on first use.
_local = threading.local()


def context(backend, device=None):
    cache = getattr(_local, "contexts", None)
    if cache is None:
        cache = _local.contexts = {}
    key = (backend, device)
    ctx = cache.get(key)
    if ctx is None:
        ctx = cache[key] = Context(backend)
    return ctx


def release_contexts():
    """Destroys this thread's cached contexts, freeing the scratch memory they hold."""
    cache = getattr(_local, "contexts", None)
    if cache:
        cache.clear()


_cuda_state = {}


def cuda_available():
    """True when this build has the CUDA backend and a GPU is usable."""
    if "ok" not in _cuda_state:
        try:
            context(BACKEND_CUDA, None)
            _cuda_state["ok"] = True
        except RdxError:
            _cuda_state["ok"] = False
    return _cuda_state["ok"]
