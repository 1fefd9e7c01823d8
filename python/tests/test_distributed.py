"""rdxsort.distributed: argument checks on the CPU (those that need PyTorch skip without it),
and, with 2 GPUs and PyTorch, a 2-process NCCL job against torch.sort of the concatenation.
RDXSORT_REQUIRE_GPU=1 (python/gpu_check.sh) turns the GPU skips into failures."""
import ctypes
import os
import socket

import numpy as np
import pytest

import rdxsort
import rdxsort._lib as L
import rdxsort.distributed as D

REQUIRE_GPU = os.environ.get("RDXSORT_REQUIRE_GPU") == "1"


def test_library_has_the_distributed_sort():
    assert D.HAS_DIST


def test_unique_id_and_queries_without_nccl_or_with():
    uid = ctypes.create_string_buffer(D.UNIQUE_ID_BYTES)
    status = L._lib.rdx_dist_unique_id(uid, D.UNIQUE_ID_BYTES)
    # 0 where NCCL is built in, RDX_ERR_UNSUPPORTED (2) where it is not
    assert status in (0, 2)
    assert L._lib.rdx_dist_unique_id(None, D.UNIQUE_ID_BYTES) in (1, 2)
    assert L._lib.rdx_dist_unique_id(uid, 5) in (1, 2)
    size = ctypes.c_size_t(0)
    # NULL context: refused whatever the build
    assert L._lib.rdx_dist_sort_keys_temp_size(None, 2, 10, 10, L.U32, None, ctypes.byref(size)) == 1


def test_cpu_context_is_refused_for_nccl_calls():
    ctx = L.Context(L.BACKEND_CPU)
    size = ctypes.c_size_t(0)
    status = L._lib.rdx_dist_sort_keys_temp_size(ctx.handle, 2, 10, 10, L.U32, None, ctypes.byref(size))
    assert status in (1, 2)
    assert ctx.error()


def test_numpy_array_is_refused():
    torch_missing = False
    try:
        import torch  # noqa: F401
    except ImportError:
        torch_missing = True
    if torch_missing:
        with pytest.raises(ImportError, match="PyTorch"):
            D.sort(np.arange(4, dtype=np.uint32))
    else:
        with pytest.raises(TypeError, match="torch.Tensor"):
            D.sort(np.arange(4, dtype=np.uint32))


def test_tensor_checks():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="1-D"):
        D.sort(torch.zeros((2, 2), dtype=torch.int32))
    with pytest.raises(ValueError, match="CUDA tensor"):
        D.sort(torch.zeros(4, dtype=torch.int32))
    if torch.cuda.is_available():  # the keys pass their checks only on a GPU
        with pytest.raises(TypeError, match="torch.Tensor"):
            D.sort_pairs(torch.zeros(4, dtype=torch.int32, device="cuda"), [1, 2, 3, 4])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_needs_an_initialized_nccl_group():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA tensor to reach the group checks")
    import torch.distributed as dist
    x = torch.zeros(4, dtype=torch.int32, device="cuda")
    if not dist.is_initialized():
        with pytest.raises(RuntimeError, match="not initialized"):
            D.sort(x)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % _free_port(), rank=0,
                            world_size=1)
    try:
        with pytest.raises(ValueError, match="nccl"):
            D.sort(x)
    finally:
        dist.destroy_process_group()


def _worker(rank, size, port, n_max, result_path):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=size)
    try:
        g = torch.Generator().manual_seed(1234 + rank)
        n = int(torch.randint(0, n_max + 1, (1,), generator=g))
        keys = torch.randint(0, 1000, (n,), generator=g, dtype=torch.int32).cuda()
        counts = [torch.zeros(1, dtype=torch.int64, device="cuda") for _ in range(size)]
        dist.all_gather(counts, torch.tensor([n], device="cuda"))
        start = sum(int(c) for c in counts[:rank])
        values = torch.arange(start, start + n, dtype=torch.int64, device="cuda")
        part_k, part_v = D.sort_pairs(keys, values)
        only_k = D.sort(keys, descending=True)
        torch.cuda.synchronize()
        torch.save({"keys": keys.cpu(), "part_k": part_k.cpu(), "part_v": part_v.cpu(),
                    "desc": only_k.cpu()}, "%s.%d" % (result_path, rank))
        D.release()
    finally:
        dist.destroy_process_group()


def test_two_gpus_against_torch_sort(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not L.cuda_available():
        if REQUIRE_GPU:
            pytest.fail("RDXSORT_REQUIRE_GPU=1 but no GPU with the CUDA backend is here")
        pytest.skip("needs 2 GPUs and the CUDA backend")
    if torch.cuda.device_count() < 2:  # RDXSORT_REQUIRE_GPU asks for a GPU, not for two
        pytest.skip("needs 2 GPUs; this machine has %d" % torch.cuda.device_count())
    import torch.multiprocessing as mp
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    size, path = 2, str(tmp_path / "out")
    mp.spawn(_worker, args=(size, _free_port(), 300000, path), nprocs=size, join=True)
    parts = [torch.load("%s.%d" % (path, r)) for r in range(size)]
    keys = torch.cat([p["keys"] for p in parts])
    want_k, want_v = torch.sort(keys, stable=True)
    got_k = torch.cat([p["part_k"] for p in parts])
    got_v = torch.cat([p["part_v"] for p in parts])
    assert torch.equal(got_k, want_k)
    assert torch.equal(got_v, want_v)
    n = keys.numel()
    for r, p in enumerate(parts):
        assert p["part_k"].numel() == n * (r + 1) // size - n * r // size
    assert torch.equal(torch.cat([p["desc"] for p in parts]),
                       torch.sort(keys, descending=True, stable=True)[0])
