"""rdxsort: stable radix sort for NumPy, CuPy and PyTorch arrays.

    >>> import numpy as np, rdxsort
    >>> rdxsort.sort(np.array([3, 1, 2], dtype=np.int32))
    array([1, 2, 3], dtype=int32)

NumPy arrays (and PyTorch CPU tensors) are sorted by the multi-threaded CPU backend, or on
the GPU with backend="cuda"; CuPy arrays and PyTorch CUDA tensors are sorted on their GPU,
without copies to the host. Floats are ordered by IEEE 754 totalOrder, so unlike NumPy,
-NaN comes first and +NaN last, and -0.0 comes before +0.0.
"""
from ._api import argsort, sort, sort_pairs
from ._lib import (LIBRARY_PATH, RdxArgumentError, RdxError, RdxMemoryError,
                   cuda_available, release_contexts as release_memory, version)

__version__ = "0.2.0"

__all__ = ["sort", "argsort", "sort_pairs", "RdxError", "RdxArgumentError", "RdxMemoryError",
           "cuda_available", "release_memory", "version", "LIBRARY_PATH", "__version__"]
