"""One adapter per array library: NumPy (host), PyTorch (host or CUDA), CuPy (CUDA).

An adapter answers, for arrays of its library: the key type, whether an array can be
handed to the C library as it is (C-contiguous, native byte order), where its memory
starts, how to copy it, move an axis or gather along one, how to make an index or result
array beside it, which CUDA device it is on and which stream is current there. Neither CuPy nor PyTorch is imported unless the
caller passes one of their arrays.
"""
import contextlib
import math
import sys

import numpy as np

from . import _dtypes


def _rows_bytes(shape, itemsize, key_ndim):
    """Bytes per entry of a values array of this shape whose first key_ndim axes are the
    keys' axes (an entry: the rest of the axes, moved with its key as one block)."""
    return itemsize * math.prod(shape[key_ndim:])


class NumpyAdapter:
    name = "numpy"

    @staticmethod
    def device(x):
        return None

    @staticmethod
    def key_type(x, what):
        return _dtypes.numpy_key_type(x.dtype, what)

    @staticmethod
    def value_size(x, what, key_ndim):
        if x.dtype.hasobject:
            raise TypeError("rdxsort cannot move %s of dtype %s: it holds Python objects"
                            % (what, x.dtype))
        return _rows_bytes(x.shape, x.dtype.itemsize, key_ndim)

    @staticmethod
    def packed(x):
        return x.flags.c_contiguous and x.dtype.isnative

    @staticmethod
    def writable(x):
        return x.flags.writeable

    @staticmethod
    def copy(x):
        dtype = x.dtype if x.dtype.isnative else x.dtype.newbyteorder("=")
        return np.array(x, dtype=dtype, order="C", copy=True)

    @staticmethod
    def assign(dst, src):
        np.copyto(dst, src)

    @staticmethod
    def ptr(x):
        return x.ctypes.data

    @staticmethod
    def empty(like, shape, dtype_name):
        return np.empty(shape, dtype=dtype_name)

    @staticmethod
    def empty_like(x):
        dtype = x.dtype if x.dtype.isnative else x.dtype.newbyteorder("=")
        return np.empty(x.shape, dtype=dtype)

    @staticmethod
    def moveaxis(x, source, destination):
        return np.moveaxis(x, source, destination)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)

    @staticmethod
    def take_along_axis(x, indices, axis):
        return np.take_along_axis(x, indices, axis)

    @staticmethod
    def same_place(x, y):
        return isinstance(y, np.ndarray)

    @staticmethod
    def device_scope(device):
        return contextlib.nullcontext()

    @staticmethod
    def stream(device):
        return 0

    @staticmethod
    def synchronize(device):
        pass


_TORCH_DEVICES = {}  # CUDA device index -> torch.device, made once


class TorchAdapter:
    name = "torch"

    @staticmethod
    def device(x):
        # is_cuda and get_device() before x.device, which makes a new torch.device each time.
        if x.is_cuda:
            return x.get_device()
        if x.device.type == "cpu":
            return None
        raise TypeError("rdxsort sorts CPU and CUDA tensors, not tensors on %s" % x.device)

    @staticmethod
    def key_type(x, what):
        return _dtypes.torch_key_type(x.dtype, what)

    @staticmethod
    def value_size(x, what, key_ndim):
        return _rows_bytes(tuple(x.shape), x.element_size(), key_ndim)

    @staticmethod
    def packed(x):
        return x.is_contiguous()

    @staticmethod
    def writable(x):
        return True

    @staticmethod
    def copy(x):
        torch = sys.modules["torch"]
        return x.detach().clone(memory_format=torch.contiguous_format)

    @staticmethod
    def assign(dst, src):
        torch = sys.modules["torch"]
        with torch.no_grad():
            dst.copy_(src)

    @staticmethod
    def ptr(x):
        return x.data_ptr()

    @staticmethod
    def empty(like, shape, dtype_name):
        torch = sys.modules["torch"]
        dtype = getattr(torch, dtype_name, None)
        if dtype is None:
            raise TypeError("argsort: this PyTorch has no dtype %s" % dtype_name)
        if like.shape == shape:  # one call into torch, not three (a sort's host time counts)
            return torch.empty_like(like, dtype=dtype, memory_format=torch.contiguous_format)
        return torch.empty(shape, dtype=dtype, device=like.device)

    @staticmethod
    def empty_like(x):
        torch = sys.modules["torch"]
        return torch.empty_like(x, memory_format=torch.contiguous_format)

    @staticmethod
    def moveaxis(x, source, destination):
        return x.movedim(source, destination)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)

    @staticmethod
    def take_along_axis(x, indices, axis):
        return sys.modules["torch"].take_along_dim(x, indices, axis)

    @staticmethod
    def same_place(x, y):
        torch = sys.modules["torch"]
        return isinstance(y, torch.Tensor) and y.device == x.device

    @staticmethod
    def device_scope(device):
        torch = sys.modules["torch"]
        if device is None or device == torch.cuda.current_device():
            return contextlib.nullcontext()  # no device switch there and back (~3 us)
        return torch.cuda.device(device)

    @staticmethod
    def stream(device):
        # The raw handle without a Stream object: 0.5 us where current_stream() takes 8 us
        # (H200 machine, round 16), of a sort of a few thousand keys that takes 30 us.
        raw = getattr(sys.modules["torch"]._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw(device)
        return sys.modules["torch"].cuda.current_stream(device).cuda_stream

    @staticmethod
    def synchronize(device):
        sys.modules["torch"].cuda.current_stream(device).synchronize()

    @staticmethod
    def temp(device, nbytes):
        torch = sys.modules["torch"]
        where = _TORCH_DEVICES.get(device)
        if where is None:
            where = _TORCH_DEVICES[device] = torch.device("cuda", device)
        t = torch.empty(nbytes, dtype=torch.uint8, device=where)
        return t, t.data_ptr()


class CupyAdapter:
    name = "cupy"

    @staticmethod
    def device(x):
        return x.device.id

    @staticmethod
    def key_type(x, what):
        return _dtypes.numpy_key_type(x.dtype, what)

    @staticmethod
    def value_size(x, what, key_ndim):
        return _rows_bytes(x.shape, x.dtype.itemsize, key_ndim)

    @staticmethod
    def packed(x):
        return x.flags.c_contiguous

    @staticmethod
    def writable(x):
        return True

    @staticmethod
    def copy(x):
        return x.copy(order="C")

    @staticmethod
    def assign(dst, src):
        dst[...] = src

    @staticmethod
    def ptr(x):
        return x.data.ptr

    @staticmethod
    def empty(like, shape, dtype_name):
        return sys.modules["cupy"].empty(shape, dtype=dtype_name)

    @staticmethod
    def empty_like(x):
        return sys.modules["cupy"].empty(x.shape, dtype=x.dtype)

    @staticmethod
    def moveaxis(x, source, destination):
        return sys.modules["cupy"].moveaxis(x, source, destination)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)

    @staticmethod
    def take_along_axis(x, indices, axis):
        return sys.modules["cupy"].take_along_axis(x, indices, axis)

    @staticmethod
    def same_place(x, y):
        cupy = sys.modules["cupy"]
        return isinstance(y, cupy.ndarray) and y.device.id == x.device.id

    @staticmethod
    def device_scope(device):
        return sys.modules["cupy"].cuda.Device(device)

    @staticmethod
    def stream(device):
        return sys.modules["cupy"].cuda.get_current_stream().ptr

    @staticmethod
    def synchronize(device):
        sys.modules["cupy"].cuda.get_current_stream().synchronize()

    @staticmethod
    def temp(device, nbytes):
        t = sys.modules["cupy"].empty(nbytes, dtype="uint8")
        return t, t.data.ptr


def adapt(a):
    """(adapter, array) for whatever the caller passed; other array-likes become NumPy."""
    if isinstance(a, np.ndarray):
        return NumpyAdapter, a
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor):
        return TorchAdapter, (a.detach() if a.requires_grad else a)
    cupy = sys.modules.get("cupy")
    if cupy is not None and isinstance(a, cupy.ndarray):
        return CupyAdapter, a
    if hasattr(a, "__cuda_array_interface__"):
        # Another library's GPU array (Numba, ...): a zero-copy CuPy view of it, which
        # also waits for the stream the producer names.
        try:
            import cupy
        except ImportError:
            raise TypeError("rdxsort sorts other libraries' GPU arrays (%s) through CuPy, "
                            "which is not installed" % type(a).__name__) from None
        return CupyAdapter, cupy.asarray(a)
    return NumpyAdapter, np.asarray(a)
