"""lexsort: numpy.lexsort through rdxsort's stable sorts, for NumPy, CuPy and torch arrays."""
from ._api import _axis, _backend, _where, argsort, sort_pairs
from ._arrays import adapt


def lexsort(keys, axis=-1, *, total_order=False, backend=None):
    """Returns the stable permutation that sorts by several keys, the last key primary, as
    ``numpy.lexsort(keys, axis)``.

    ``keys``: a sequence of arrays of one shape (NumPy, CuPy or torch, all of one library
    and device), or one array whose first axis indexes the keys. The result holds int64
    positions along ``axis`` (None: of the flattened keys). Floats order as in
    :func:`sort` (``total_order=True``: IEEE 754 totalOrder).

    The keys are sorted from the least significant: an argsort by the first key, then for
    each next key a stable sort of that key, gathered in the current order, moving the
    current order along.
    """
    fn = "lexsort"
    if isinstance(keys, (list, tuple)):
        seq = list(keys)
    else:
        adapter, arr = adapt(keys)
        if len(arr.shape) < 1:
            raise TypeError("lexsort: keys must be a sequence of arrays, or an array whose "
                            "first axis indexes the keys; got a 0-d array")
        seq = [arr[i] for i in range(int(arr.shape[0]))]
    if not seq:
        raise TypeError("lexsort: need at least one key")
    adapted = [adapt(key) for key in seq]
    adapter, first = adapted[0]
    device = adapter.device(first)
    shape = tuple(first.shape)
    for i, (ad, key) in enumerate(adapted):
        if ad is not adapter or ad.device(key) != device:
            raise TypeError("lexsort: all keys must be arrays of the same library on the same "
                            "device; key 0 is %s, key %d %s" % (_where(adapter, first), i,
                                                                 _where(ad, key)))
        if tuple(key.shape) != shape:
            raise ValueError("lexsort: all keys must have the same shape; key 0 has shape %s, "
                             "key %d shape %s" % (shape, i, tuple(key.shape)))
        ad.key_type(key, "key %d" % i)
    ax = _axis(first, axis, fn)
    _backend(adapter, device, backend, fn)
    if ax is None:
        flat = [adapter.reshape(key, (-1,)) for _, key in adapted]
        ax = 0
    else:
        flat = [key for _, key in adapted]
    order = argsort(flat[0], ax, total_order=total_order, backend=backend)
    with adapter.device_scope(device):
        for key in flat[1:]:
            gathered = adapter.take_along_axis(key, order, ax)
            _, order = sort_pairs(gathered, order, ax, total_order=total_order, backend=backend)
    return order
