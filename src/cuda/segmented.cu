/* Segmented sorts on the CUDA backend. */
#include "common.cuh"

rdx_status rdx_cuda_segmented_sort(rdx_ctx *ctx, const rdx_job *job)
{
    (void)job;
    return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "segmented sorts: not implemented yet on the CUDA backend");
}
