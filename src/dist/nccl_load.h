/* NCCL, loaded on first use (dlopen of libnccl.so.2) instead of linked: a process that has
 * loaded another NCCL already (PyTorch's, from its nvidia-nccl wheel) shares that one,
 * where a linked librdx would bring a second, older NCCL in first and break the other's
 * symbols; and librdx loads without NCCL installed. The calls that need NCCL ask for it
 * through rdx_nccl() and fail with RDX_ERR_UNSUPPORTED and the loader's message without. */
#ifndef RDX_DIST_NCCL_LOAD_H
#define RDX_DIST_NCCL_LOAD_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The NCCL functions librdx calls, with nccl.h's signatures. */
typedef struct rdx_nccl_fns {
    ncclResult_t (*GetUniqueId)(ncclUniqueId *id);
    ncclResult_t (*CommInitRank)(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
    ncclResult_t (*CommInitAll)(ncclComm_t *comms, int ndev, const int *devlist);
    ncclResult_t (*CommDestroy)(ncclComm_t comm);
    ncclResult_t (*CommCount)(const ncclComm_t comm, int *count);
    ncclResult_t (*CommUserRank)(const ncclComm_t comm, int *rank);
    const char *(*GetErrorString)(ncclResult_t result);
    ncclResult_t (*AllReduce)(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                              ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
    ncclResult_t (*Send)(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                         cudaStream_t stream);
    ncclResult_t (*Recv)(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                         cudaStream_t stream);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
} rdx_nccl_fns;

/* NCCL's functions, loaded once (thread-safe); NULL when NCCL cannot be loaded. */
const rdx_nccl_fns *rdx_nccl(void);
/* Why rdx_nccl() returned NULL ("" otherwise). */
const char *rdx_nccl_why(void);

#ifdef __cplusplus
}
#endif

#endif /* RDX_DIST_NCCL_LOAD_H */
