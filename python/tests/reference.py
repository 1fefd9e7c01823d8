"""The oracle the tests compare rdxsort with: a stable NumPy argsort of the keys' bits
mapped to unsigned integers whose order is rdxsort's documented key order (rdx.h):
unsigned as is, signed with the sign bit flipped, floats in IEEE 754 totalOrder (negative:
all bits flipped; positive: the sign bit flipped), or in NumPy's order (RDX_NUMPY_ORDER,
the Python default): the same mapping, then every NaN mapped to the code just above
+inf's and -0.0 to +0.0's. Working on bits, it covers bfloat16 and NaN payloads, and its
NumPy order is checked against numpy.sort itself (test_keys.py).
"""
import numpy as np

UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bfloat16():
    """ml_dtypes' bfloat16 dtype, or None."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


def kind_of(dtype):
    """'u', 'i' or 'f' (bfloat16 counts as 'f')."""
    dtype = np.dtype(dtype)
    return "f" if dtype.name == "bfloat16" else dtype.kind


def bits(a):
    """The keys' bit patterns, as unsigned integers of the same width (a packed copy)."""
    a = np.ascontiguousarray(a)
    return a.view(UINT[a.dtype.itemsize]).copy()


def order_bits(raw, kind):
    """Maps bit patterns of keys of this kind to integers in key order."""
    width = raw.dtype.itemsize * 8
    sign = raw.dtype.type(1 << (width - 1))
    if kind == "u":
        return raw.copy()
    if kind == "i":
        return raw ^ sign
    negative = (raw & sign) != 0
    return np.where(negative, ~raw, raw | sign)


# Mantissa bits of each float format.
MANTISSA = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52}


def numpy_order_bits(raw, float_name):
    """order_bits for floats in NumPy's order: every NaN the positive quiet NaN (above +inf),
    -0.0 as +0.0."""
    width = raw.dtype.itemsize * 8
    mant = MANTISSA[float_name]
    t = raw.dtype.type
    sign = t(1 << (width - 1))
    inf = t(((1 << (width - 1 - mant)) - 1) << mant)
    magnitude = raw & t(~(1 << (width - 1)) & ((1 << width) - 1))
    mapped = order_bits(raw, "f")
    mapped[magnitude > inf] = t(int(inf) | int(sign) | 1 << (mant - 1))  # every NaN
    mapped[magnitude == 0] = sign                            # both zeros: +0.0's code
    return mapped


def reference_permutation(raw, kind, descending=False, begin_bit=0, end_bit=None,
                          float_name=None):
    """The stable permutation that sorts keys with bit patterns raw, as rdxsort defines it:
    floats in totalOrder, or in NumPy's order when float_name names their format
    ("float16", "bfloat16", "float32", "float64")."""
    width = raw.dtype.itemsize * 8
    end_bit = width if end_bit is None else end_bit
    if kind == "f" and float_name is not None:
        mapped = numpy_order_bits(raw, float_name).astype(np.uint64)
    else:
        mapped = order_bits(raw, kind).astype(np.uint64)
    mask = np.uint64((1 << (end_bit - begin_bit)) - 1)
    digits = (mapped >> np.uint64(begin_bit)) & mask
    if descending:
        digits = mask - digits  # reverses the order; equal keys stay equal, so stay in order
    return np.argsort(digits, kind="stable")


def float_name(dtype, total_order=False):
    """The float format's name for reference_permutation: None for totalOrder or integers."""
    return None if total_order or kind_of(dtype) != "f" else np.dtype(dtype).name


def expected_sort(a, total_order=False, **kw):
    """(sorted keys, permutation) that rdxsort must give for the 1-D NumPy array a (floats
    in NumPy's order, as rdxsort's default, or in totalOrder)."""
    perm = reference_permutation(bits(a), kind_of(a.dtype),
                                 float_name=float_name(a.dtype, total_order), **kw)
    return a[perm], perm


def expected_rows(a, axis=-1, total_order=False, **kw):
    """(sorted array, argsort) that rdxsort must give for the N-D NumPy array a along axis
    (None: flattened), each row by expected_sort."""
    if axis is None:
        return expected_sort(a.reshape(-1), total_order, **kw)
    moved = np.ascontiguousarray(np.moveaxis(a, axis, -1))
    rows = moved.reshape(-1, moved.shape[-1]) if moved.size else moved.reshape(0, moved.shape[-1])
    perms = np.empty(rows.shape, np.int64)
    for r in range(rows.shape[0]):
        perms[r] = expected_sort(rows[r], total_order, **kw)[1]
    perms = perms.reshape(moved.shape)
    sorted_moved = np.take_along_axis(moved, perms, -1)
    return np.moveaxis(sorted_moved, -1, axis), np.moveaxis(perms, -1, axis)


def random_keys(rng, dtype, n, dist="bits"):
    """n keys of dtype: 'bits' = uniform random bit patterns (for floats: NaNs of both signs,
    infinities, denormals, zeros of both signs all occur, many of them for 16-bit types);
    'few' = drawn from five random bit patterns, so nearly every key has equal twins."""
    dtype = np.dtype(dtype)
    u = UINT[dtype.itemsize]
    if dist == "bits":
        raw = rng.integers(0, np.iinfo(u).max, size=n, dtype=u, endpoint=True)
    elif dist == "few":
        pool = rng.integers(0, np.iinfo(u).max, size=5, dtype=u, endpoint=True)
        raw = pool[rng.integers(0, 5, size=n)]
    else:
        raise ValueError(dist)
    return raw.view(dtype)
