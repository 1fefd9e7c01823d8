"""The oracle the tests compare rdxsort with: a stable NumPy argsort of the keys' bits
mapped to unsigned integers whose order is rdxsort's documented key order (rdx.h):
unsigned as is, signed with the sign bit flipped, floats in IEEE 754 totalOrder (negative:
all bits flipped; positive: the sign bit flipped). numpy.sort itself orders NaNs after +inf
whatever their sign and ties -0.0 with +0.0, so it is only the oracle where neither occurs.
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


def reference_permutation(raw, kind, descending=False, begin_bit=0, end_bit=None):
    """The stable permutation that sorts keys with bit patterns raw, as rdxsort defines it."""
    width = raw.dtype.itemsize * 8
    end_bit = width if end_bit is None else end_bit
    mapped = order_bits(raw, kind).astype(np.uint64)
    mask = np.uint64((1 << (end_bit - begin_bit)) - 1)
    digits = (mapped >> np.uint64(begin_bit)) & mask
    if descending:
        digits = mask - digits  # reverses the order; equal keys stay equal, so stay in order
    return np.argsort(digits, kind="stable")


def expected_sort(a, **kw):
    """(sorted keys, permutation) that rdxsort must give for the NumPy array a."""
    perm = reference_permutation(bits(a), kind_of(a.dtype), **kw)
    return a[perm], perm


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
