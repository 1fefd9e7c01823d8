/* The CUDA backend's entry points in a build without CUDA: no GPU is ever usable. */
#include "internal.h"

int rdx_cuda_built(void) { return 0; }

int rdx_cuda_usable(void) { return 0; }

int rdx_cuda_is_device_pointer(const void *p)
{
    (void)p;
    return 0;
}

rdx_status rdx_cuda_sort(rdx_ctx *ctx, const rdx_job *job)
{
    (void)job;
    return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "this build of rdxsort has no CUDA backend");
}

rdx_status rdx_cuda_segmented_sort(rdx_ctx *ctx, const rdx_job *job)
{
    (void)job;
    return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "this build of rdxsort has no CUDA backend");
}

void rdx_cuda_release(rdx_ctx *ctx) { (void)ctx; }

rdx_status rdx_cuda_ctx_init(rdx_ctx *ctx)
{
    return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "this build of rdxsort has no CUDA backend");
}
