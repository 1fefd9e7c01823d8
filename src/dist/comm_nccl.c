/* The collectives of dist.h over NCCL on device memory: the u64 all-reduce goes through a
 * small device buffer (ncclAllReduce, then a copy back and a stream synchronization, as
 * the splitter search needs the sums on the host); the all-to-all-v is a group of
 * ncclSend/ncclRecv, enqueued on the stream and not waited for. */
#include <string.h>

#include "dist/dist_cuda.h"

#define NCCL_TRY(st, call)                                                                    \
    do {                                                                                      \
        ncclResult_t r_ = (call);                                                             \
        if (r_ != ncclSuccess)                                                                \
            return rdx_fail((st)->ctx, RDX_ERR_DEVICE, "NCCL: %s failed: %s", #call,          \
                            rdx_nccl()->GetErrorString(r_));                                          \
    } while (0)

#define CUDA_TRY(st, call)                                                                    \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            (void)cudaGetLastError();                                                         \
            return rdx_fail((st)->ctx, e_ == cudaErrorMemoryAllocation ? RDX_ERR_OUT_OF_MEMORY \
                                                                       : RDX_ERR_DEVICE,      \
                            "CUDA: %s failed: %s", #call, cudaGetErrorString(e_));           \
        }                                                                                     \
    } while (0)

static rdx_status nccl_allreduce(rdx_dist_comm *c, const uint64_t *send, uint64_t *recv, size_t count)
{
    rdx_dist_nccl_state *st = c->impl;
    if (count > st->words)
        return rdx_fail(st->ctx, RDX_ERR_INTERNAL, "rdx_dist: an all-reduce of %zu words > %zu", count,
                        st->words);
    if (count == 0)
        return RDX_OK;
    CUDA_TRY(st, cudaMemcpyAsync(st->d_words, send, count * sizeof *send, cudaMemcpyHostToDevice, st->stream));
    NCCL_TRY(st, rdx_nccl()->AllReduce(st->d_words, st->d_words, count, ncclUint64, ncclSum, st->comm, st->stream));
    CUDA_TRY(st, cudaMemcpyAsync(recv, st->d_words, count * sizeof *recv, cudaMemcpyDeviceToHost, st->stream));
    CUDA_TRY(st, cudaStreamSynchronize(st->stream));
    return RDX_OK;
}

static rdx_status nccl_alltoallv(rdx_dist_comm *c, const void *send, const size_t *send_bytes,
                                 const size_t *send_off, void *recv, const size_t *recv_bytes,
                                 const size_t *recv_off)
{
    rdx_dist_nccl_state *st = c->impl;
    NCCL_TRY(st, rdx_nccl()->GroupStart());
    for (int k = 0; k < c->size; k++) {
        if (send_bytes[k]) {
            ncclResult_t r = rdx_nccl()->Send((const char *)send + send_off[k], send_bytes[k], ncclChar, k, st->comm,
                                      st->stream);
            if (r != ncclSuccess) {
                (void)rdx_nccl()->GroupEnd();
                return rdx_fail(st->ctx, RDX_ERR_DEVICE, "NCCL: ncclSend to rank %d failed: %s", k,
                                rdx_nccl()->GetErrorString(r));
            }
        }
        if (recv_bytes[k]) {
            ncclResult_t r = rdx_nccl()->Recv((char *)recv + recv_off[k], recv_bytes[k], ncclChar, k, st->comm,
                                      st->stream);
            if (r != ncclSuccess) {
                (void)rdx_nccl()->GroupEnd();
                return rdx_fail(st->ctx, RDX_ERR_DEVICE, "NCCL: ncclRecv from rank %d failed: %s", k,
                                rdx_nccl()->GetErrorString(r));
            }
        }
    }
    NCCL_TRY(st, rdx_nccl()->GroupEnd());
    return RDX_OK;
}

rdx_status rdx_dist_nccl_comm(rdx_dist_nccl_state *st, rdx_dist_comm *out)
{
    int rank = 0, size = 0;
    NCCL_TRY(st, rdx_nccl()->CommUserRank(st->comm, &rank));
    NCCL_TRY(st, rdx_nccl()->CommCount(st->comm, &size));
    memset(out, 0, sizeof *out);
    out->rank = rank;
    out->size = size;
    out->impl = st;
    out->allreduce_u64 = nccl_allreduce;
    out->alltoallv = nccl_alltoallv;
    return RDX_OK;
}
