"""Which array dtypes are which rdx key types, and how index dtypes are named."""
import sys

import numpy as np

from . import _lib as L

_NUMPY_KEYS = {
    ("u", 1): L.U8, ("u", 2): L.U16, ("u", 4): L.U32, ("u", 8): L.U64,
    ("i", 1): L.I8, ("i", 2): L.I16, ("i", 4): L.I32, ("i", 8): L.I64,
    ("f", 2): L.F16, ("f", 4): L.F32, ("f", 8): L.F64,
}

_SUPPORTED = ("uint8, uint16, uint32, uint64, int8, int16, int32, int64, float16, "
              "float32, float64 and bfloat16")

_HINTS = {
    "b": "; sort a boolean array as uint8 (a.view(numpy.uint8))",
    "c": "; complex numbers have no order rdxsort knows",
    "M": "; sort datetime64 as int64 (a.view(numpy.int64)), NaT then comes first",
    "m": "; sort timedelta64 as int64 (a.view(numpy.int64)), NaT then comes first",
    "O": "; object arrays cannot be radix sorted",
}


def is_bfloat16(dtype):
    """ml_dtypes' bfloat16 (and any NumPy dtype registered under that name)."""
    return getattr(dtype, "name", None) == "bfloat16" and dtype.itemsize == 2


def numpy_key_type(dtype, what="keys"):
    """The rdx_type of a NumPy (or CuPy) dtype; TypeError for any other dtype."""
    dtype = np.dtype(dtype)
    if is_bfloat16(dtype):
        return L.BF16
    t = _NUMPY_KEYS.get((dtype.kind, dtype.itemsize))
    if t is None:
        raise TypeError("rdxsort cannot sort %s of dtype %s: the key types are %s%s"
                        % (what, dtype, _SUPPORTED, _HINTS.get(dtype.kind, "")))
    return t


_torch_table = {}


def torch_key_type(dtype, what="keys"):
    torch = sys.modules["torch"]
    table = _torch_table
    if not table:
        table.update({torch.uint8: L.U8, torch.int8: L.I8, torch.int16: L.I16,
                      torch.int32: L.I32, torch.int64: L.I64, torch.float16: L.F16,
                      torch.bfloat16: L.BF16, torch.float32: L.F32, torch.float64: L.F64})
        for name, t in (("uint16", L.U16), ("uint32", L.U32), ("uint64", L.U64)):
            if hasattr(torch, name):  # PyTorch 2.3 and later
                table[getattr(torch, name)] = t
    t = table.get(dtype)
    if t is None:
        hint = "; sort a bool tensor as uint8 (t.view(torch.uint8))" if dtype == torch.bool else ""
        raise TypeError("rdxsort cannot sort %s of dtype %s: the key types are %s%s"
                        % (what, dtype, _SUPPORTED, hint))
    return t


_INDEX_TYPES = {"int64": (L.U64, 1 << 63), "uint64": (L.U64, 1 << 64),
                "int32": (L.U32, 1 << 31), "uint32": (L.U32, 1 << 32)}
_names = {}  # index_dtype -> its name, for the hashable ones seen before (a sort's hot path)


def index_type(index_dtype, n):
    """(rdx index type, the NumPy dtype name) for argsort's index_dtype."""
    try:
        name = _names.get(index_dtype)
    except TypeError:  # unhashable
        name = None
    if name is None:
        name = _dtype_name(index_dtype)
        try:
            if len(_names) < 64:
                _names[index_dtype] = name
        except TypeError:
            pass
    table = _INDEX_TYPES
    if name not in table:
        raise TypeError("argsort: index_dtype must be int64, uint64, int32 or uint32, not %s"
                        % (index_dtype,))
    t, limit = table[name]
    if n > limit:
        raise ValueError("argsort: %d keys do not fit indices of dtype %s" % (n, name))
    return t, name


def _dtype_name(dtype):
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(dtype, torch.dtype):
        return str(dtype).replace("torch.", "")
    try:
        return np.dtype(dtype).name
    except TypeError:
        return str(dtype)
