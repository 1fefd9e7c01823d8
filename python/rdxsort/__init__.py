"""rdxsort: stable radix sort for NumPy, CuPy and PyTorch arrays.

    >>> import numpy as np, rdxsort
    >>> rdxsort.sort(np.array([[3, 1, 2], [0, 5, 4]], dtype=np.int32))
    array([[1, 2, 3],
           [0, 4, 5]], dtype=int32)

sort, argsort, sort_pairs and lexsort take N-D arrays and an axis, and give what
numpy.sort(kind="stable"), numpy.argsort(kind="stable") and numpy.lexsort give: floats in
NumPy's (and PyTorch's) order, every NaN last and -0.0 equal to +0.0, unless
total_order=True asks for IEEE 754 totalOrder. NumPy arrays (and PyTorch CPU tensors) are
sorted by the multi-threaded CPU backend, or on the GPU with backend="cuda"; CuPy arrays
and PyTorch CUDA tensors are sorted on their GPU, without copies to the host.
rdxsort.torch (imported on first use) has torch.sort and torch.argsort as custom ops that
torch.compile traces.
"""
import importlib

from ._api import argsort, sort, sort_pairs
from ._lexsort import lexsort
from ._lib import (LIBRARY_PATH, RdxArgumentError, RdxError, RdxMemoryError,
                   cuda_available, release_contexts as release_memory, version)

__version__ = "0.2.0"

__all__ = ["sort", "argsort", "sort_pairs", "lexsort", "RdxError", "RdxArgumentError",
           "RdxMemoryError", "cuda_available", "release_memory", "version", "LIBRARY_PATH",
           "__version__"]


def __getattr__(name):
    # rdxsort.torch imports PyTorch, so only when asked for.
    if name == "torch":
        return importlib.import_module(".torch", __name__)
    raise AttributeError("module 'rdxsort' has no attribute %r" % name)
