"""Sorting across the ranks of a torch.distributed job (NCCL backend, one GPU per rank).

    >>> import torch, torch.distributed as dist, rdxsort.distributed
    >>> dist.init_process_group("nccl")            # one process per GPU
    >>> local = torch.randint(0, 1 << 30, (n,), device="cuda", dtype=torch.int32)
    >>> part = rdxsort.distributed.sort(local)     # this rank's part of the global order

Every rank passes its shard (a 1-D CUDA tensor; shards may differ in size, or be empty) and
gets back its part of the stable global order: rank r of P holds positions
[floor(r N / P), floor((r + 1) N / P)) of the N keys, equal keys ordered by rank, then by
position. The call is collective over `group` (default: the whole job) and runs on the
current CUDA stream.

PyTorch does not hand out its own NCCL communicator, so rdxsort makes one for each group:
rank 0 of the group makes an NCCL unique id (rdx_dist_unique_id), torch.distributed
broadcasts it, and every rank joins (rdx_dist_comm_init_rank). That happens once per group
and device, on first use; release() destroys them.
"""
import ctypes
import sys

from . import _lib as L
from ._dtypes import torch_key_type

_vp, _sz, _int = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
_OPTS = ctypes.POINTER(L.Opts)
_signatures = {
    "rdx_dist_unique_id": ([_vp, _sz], _int),
    "rdx_dist_comm_init_rank": ([ctypes.POINTER(_vp), _int, _vp, _sz, _int], _int),
    "rdx_dist_comm_destroy": ([_vp], _int),
    "rdx_dist_sort_keys_temp_size": ([_vp, _int, _sz, _sz, _int, _OPTS, ctypes.POINTER(_sz)], _int),
    "rdx_dist_sort_pairs_temp_size": ([_vp, _int, _sz, _sz, _sz, _int, _OPTS, ctypes.POINTER(_sz)],
                                      _int),
    "rdx_dist_sort_keys": ([_vp, _vp, _vp, _sz, _vp, _sz, ctypes.POINTER(_sz), _int, _OPTS, _vp, _sz,
                            _vp], _int),
    "rdx_dist_sort_pairs": ([_vp, _vp, _vp, _vp, _sz, _sz, _vp, _vp, _sz, ctypes.POINTER(_sz), _int,
                             _OPTS, _vp, _sz, _vp], _int),
}
HAS_DIST = all(hasattr(L._lib, name) for name in _signatures)
if HAS_DIST:
    for _name, (_args, _res) in _signatures.items():
        _fn = getattr(L._lib, _name)
        _fn.argtypes, _fn.restype = _args, _res

UNIQUE_ID_BYTES = 128  # RDX_DIST_UNIQUE_ID_BYTES

# (group key, device index) -> NCCL communicator handle
_comms = {}


def _torch():
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch  # noqa: F401 (imported for its module object)
        except ImportError:
            raise ImportError("rdxsort.distributed needs PyTorch (torch.distributed)") from None
        torch = sys.modules["torch"]
    return torch


def _check_tensor(x, what, fn):
    torch = _torch()
    if not isinstance(x, torch.Tensor):
        raise TypeError("%s: %s must be a torch.Tensor, not %s" % (fn, what, type(x).__name__))
    if x.dim() != 1:
        raise ValueError("%s: %s must be a 1-D tensor (this rank's shard), not %d-D (shape %s)"
                         % (fn, what, x.dim(), tuple(x.shape)))
    if not x.is_cuda:
        raise ValueError("%s: %s must be a CUDA tensor (the NCCL backend sorts device memory), "
                         "not on %s" % (fn, what, x.device))


def _group_info(group, fn):
    dist = _torch().distributed
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("%s: torch.distributed is not initialized "
                           "(call torch.distributed.init_process_group('nccl') first)" % fn)
    backend = str(dist.get_backend(group)).lower()
    if backend != "nccl":
        raise ValueError("%s: the process group's backend is %r; rdxsort.distributed needs 'nccl'"
                         % (fn, backend))
    return dist.get_rank(group), dist.get_world_size(group)


def _group_key(group):
    dist = _torch().distributed
    if group is None:
        return ("world",)
    return ("group", tuple(dist.get_process_group_ranks(group)))


def _communicator(group, rank, size, device):
    """This rank's NCCL communicator for (group, device), made on first use (collective)."""
    key = (_group_key(group), device.index)
    comm = _comms.get(key)
    if comm is not None:
        return comm
    torch = _torch()
    dist = torch.distributed
    status = 0
    uid = ctypes.create_string_buffer(UNIQUE_ID_BYTES)
    if rank == 0:
        status = L._lib.rdx_dist_unique_id(uid, UNIQUE_ID_BYTES)
    # Rank 0's status travels with the id, so that every rank fails alike.
    payload = [bytes(uid.raw), int(status)]
    src = 0 if group is None else dist.get_global_rank(group, 0)
    dist.broadcast_object_list(payload, src=src, group=group, device=device)
    if payload[1] != 0:
        raise L.error_for(payload[1], "rdx_dist_unique_id failed on rank 0 (%s)"
                          % L.status_string(payload[1]))
    uid = ctypes.create_string_buffer(payload[0], UNIQUE_ID_BYTES)
    handle = ctypes.c_void_p()
    with torch.cuda.device(device):
        status = L._lib.rdx_dist_comm_init_rank(ctypes.byref(handle), size, uid, UNIQUE_ID_BYTES, rank)
    if status != 0:
        raise L.error_for(status, "rdx_dist_comm_init_rank failed (%s)" % L.status_string(status))
    _comms[key] = handle.value
    return handle.value


def release():
    """Destroys the NCCL communicators rdxsort.distributed made (call on every rank)."""
    for key, handle in list(_comms.items()):
        L._lib.rdx_dist_comm_destroy(handle)
        del _comms[key]


def _bound(n, r, p):
    return n // p * r + n % p * r // p


def _run(fn, keys, values, group, descending, begin_bit, end_bit):
    torch = _torch()
    if not HAS_DIST:
        raise L.RdxError(2, "%s: this librdx has no distributed sort" % fn)
    _check_tensor(keys, "keys", fn)
    if values is not None:
        _check_tensor(values, "values", fn)
        if values.shape[0] != keys.shape[0]:
            raise ValueError("%s: keys has %d elements but values has %d"
                             % (fn, keys.shape[0], values.shape[0]))
        if values.device != keys.device:
            raise ValueError("%s: keys are on %s but values on %s" % (fn, keys.device, values.device))
    key_type = torch_key_type(keys.dtype)
    width = L.TYPE_BITS[key_type]
    begin = int(begin_bit)
    end = width if end_bit is None else int(end_bit)
    if not 0 <= begin < end <= width:
        raise ValueError("%s: the bit range must satisfy 0 <= begin_bit < end_bit <= %d for %s keys; "
                         "got begin_bit=%d, end_bit=%s" % (fn, width, L.TYPE_NAMES[key_type], begin,
                                                           end_bit))
    rank, size = _group_info(group, fn)
    device = keys.device
    keys = keys.contiguous()
    values = values.contiguous() if values is not None else None
    comm = _communicator(group, rank, size, device)
    opts = L.Opts(L.RDX_DESCENDING if descending else 0, begin, end, 0)
    n = int(keys.shape[0])
    # N, and so this rank's part; one small all-reduce of torch's own.
    total = torch.tensor([n], dtype=torch.int64, device=device)
    torch.distributed.all_reduce(total, group=group)
    total = int(total.item())
    cap = _bound(total, rank + 1, size) - _bound(total, rank, size)
    out_keys = torch.empty(cap, dtype=keys.dtype, device=device)
    out_values = None if values is None else torch.empty(cap, dtype=values.dtype, device=device)
    vs = 0 if values is None else values.element_size()
    with torch.cuda.device(device):
        ctx = L.context(L.BACKEND_CUDA, device.index)
        stream = torch.cuda.current_stream(device).cuda_stream
        temp_bytes = ctypes.c_size_t(0)
        if values is None:
            ctx.check(L._lib.rdx_dist_sort_keys_temp_size(ctx.handle, size, n, cap, key_type,
                                                          ctypes.byref(opts), ctypes.byref(temp_bytes)))
        else:
            ctx.check(L._lib.rdx_dist_sort_pairs_temp_size(ctx.handle, size, vs, n, cap, key_type,
                                                           ctypes.byref(opts), ctypes.byref(temp_bytes)))
        temp = torch.empty(max(temp_bytes.value, 1), dtype=torch.uint8, device=device)
        n_out = ctypes.c_size_t(0)
        if values is None:
            status = L._lib.rdx_dist_sort_keys(ctx.handle, comm, keys.data_ptr(), n, out_keys.data_ptr(),
                                               cap, ctypes.byref(n_out), key_type, ctypes.byref(opts),
                                               temp.data_ptr(), temp_bytes.value, stream)
        else:
            status = L._lib.rdx_dist_sort_pairs(ctx.handle, comm, keys.data_ptr(), values.data_ptr(), vs, n,
                                                out_keys.data_ptr(), out_values.data_ptr(), cap,
                                                ctypes.byref(n_out), key_type, ctypes.byref(opts),
                                                temp.data_ptr(), temp_bytes.value, stream)
        ctx.check(status)
        # temp is freed on this stream after the sort: the caching allocator's stream order
        # keeps it from being reused before the sort has run.
        del temp
    if n_out.value != cap:
        raise L.RdxError(7, "%s: rank %d received %d keys, not %d" % (fn, rank, n_out.value, cap))
    return out_keys if values is None else (out_keys, out_values)


def sort(tensor, group=None, *, descending=False, begin_bit=0, end_bit=None):
    """This rank's part of the stable global sort of every rank's `tensor` (see the module).

    tensor: this rank's shard, a 1-D CUDA tensor of an integer or float dtype (uint8..uint64,
    int8..int64, float16, bfloat16, float32, float64); group: a torch.distributed process
    group of the NCCL backend (None: the default group). Returns a new tensor on the same
    device. Collective: every rank of the group calls it, with the same dtype and options.
    """
    return _run("rdxsort.distributed.sort", tensor, None, group, descending, begin_bit, end_bit)


def sort_pairs(keys, values, group=None, *, descending=False, begin_bit=0, end_bit=None):
    """As sort(), and values[i] (a 1-D CUDA tensor of any dtype, as long as keys) travels
    with keys[i]. Returns (keys, values), this rank's part."""
    return _run("rdxsort.distributed.sort_pairs", keys, values, group, descending, begin_bit, end_bit)
