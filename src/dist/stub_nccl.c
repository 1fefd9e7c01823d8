/* The NCCL entry points in a build without NCCL (or without the CUDA backend). */
#include "rdx_dist.h"
#include "dist/dist.h"

#define NO_NCCL "this build of rdxsort has no NCCL (the CUDA backend and nccl.h are needed)"

rdx_status rdx_dist_unique_id(void *id, size_t id_bytes)
{
    (void)id;
    (void)id_bytes;
    return RDX_ERR_UNSUPPORTED;
}

rdx_status rdx_dist_comm_init_rank(struct ncclComm **comm, int nranks, const void *id, size_t id_bytes,
                                   int rank)
{
    (void)nranks;
    (void)id;
    (void)id_bytes;
    (void)rank;
    if (comm)
        *comm = NULL;
    return RDX_ERR_UNSUPPORTED;
}

rdx_status rdx_dist_comm_destroy(struct ncclComm *comm)
{
    return comm ? RDX_ERR_UNSUPPORTED : RDX_OK;
}

rdx_status rdx_dist_sort_keys_temp_size(rdx_ctx *ctx, int nranks, size_t n_local, size_t out_capacity,
                                        rdx_type type, const rdx_opts *opts, size_t *temp_bytes)
{
    (void)nranks, (void)n_local, (void)out_capacity, (void)type, (void)opts, (void)temp_bytes;
    return ctx ? rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "rdx_dist_sort_keys_temp_size: " NO_NCCL)
               : RDX_ERR_INVALID_ARGUMENT;
}

rdx_status rdx_dist_sort_pairs_temp_size(rdx_ctx *ctx, int nranks, size_t value_size, size_t n_local,
                                         size_t out_capacity, rdx_type type, const rdx_opts *opts,
                                         size_t *temp_bytes)
{
    (void)nranks, (void)value_size, (void)n_local, (void)out_capacity, (void)type, (void)opts,
        (void)temp_bytes;
    return ctx ? rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "rdx_dist_sort_pairs_temp_size: " NO_NCCL)
               : RDX_ERR_INVALID_ARGUMENT;
}

rdx_status rdx_dist_sort_keys(rdx_ctx *ctx, struct ncclComm *comm, const void *d_keys, size_t n_local,
                              void *d_keys_out, size_t out_capacity, size_t *n_out, rdx_type type,
                              const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                              struct CUstream_st *stream)
{
    (void)comm, (void)d_keys, (void)n_local, (void)d_keys_out, (void)out_capacity, (void)n_out,
        (void)type, (void)opts, (void)d_temp, (void)temp_bytes, (void)stream;
    return ctx ? rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "rdx_dist_sort_keys: " NO_NCCL)
               : RDX_ERR_INVALID_ARGUMENT;
}

rdx_status rdx_dist_sort_pairs(rdx_ctx *ctx, struct ncclComm *comm, const void *d_keys,
                               const void *d_values, size_t value_size, size_t n_local,
                               void *d_keys_out, void *d_values_out, size_t out_capacity,
                               size_t *n_out, rdx_type type, const rdx_opts *opts, void *d_temp,
                               size_t temp_bytes, struct CUstream_st *stream)
{
    (void)comm, (void)d_keys, (void)d_values, (void)value_size, (void)n_local, (void)d_keys_out,
        (void)d_values_out, (void)out_capacity, (void)n_out, (void)type, (void)opts, (void)d_temp,
        (void)temp_bytes, (void)stream;
    return ctx ? rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "rdx_dist_sort_pairs: " NO_NCCL)
               : RDX_ERR_INVALID_ARGUMENT;
}

rdx_status rdx_multi_cuda_create(rdx_ctx *ctx, const int *devices, int count, struct rdx_multi_cuda **out)
{
    (void)devices, (void)count;
    *out = NULL;
    return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "rdx_ctx_create_devices: " NO_NCCL);
}

void rdx_multi_cuda_destroy(struct rdx_multi_cuda *m) { (void)m; }

rdx_status rdx_multi_cuda_sort(rdx_ctx *ctx, struct rdx_multi_cuda *m, const rdx_job *job)
{
    (void)m, (void)job;
    return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "rdx_sort: " NO_NCCL);
}
