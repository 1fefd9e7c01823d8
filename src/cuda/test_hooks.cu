/* The hooks of test_hooks.h: a context's tuning, its MSD route's state, its order check. */
#include "common.cuh"
#include "kernels.h"
#include "state.h"
#include "test_hooks.h"

rdx_cuda_tuning *rdx_cuda_ctx_tuning(rdx_ctx *ctx)
{
    return ctx && ctx->backend == RDX_BACKEND_CUDA && ctx->cuda ? &ctx->cuda->tuning : NULL;
}

int rdx_cuda_ctx_msd_state(rdx_ctx *ctx, unsigned *slow_blocks, unsigned *long_buckets, unsigned *deep_long,
                           unsigned *deep2_long, unsigned *deep_skipped, unsigned *deep_wide, unsigned *wider_left,
                           unsigned *deep_chunks)
{
    if (slow_blocks)
        *slow_blocks = 0;
    if (long_buckets)
        *long_buckets = 0;
    if (deep_long)
        *deep_long = 0;
    if (deep2_long)
        *deep2_long = 0;
    if (deep_skipped)
        *deep_skipped = 0;
    if (deep_wide)
        *deep_wide = 0;
    if (wider_left)
        *wider_left = 0;
    if (deep_chunks)
        *deep_chunks = 0;
    if (!ctx || !ctx->cuda || !ctx->cuda->msd_ctrl)
        return -1;
    uint32_t w[RDX_MSD_CTRL_WORDS] = {0};
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(w, ctx->cuda->msd_ctrl, sizeof w, cudaMemcpyDeviceToHost) != cudaSuccess) {
        (void)cudaGetLastError();
        return -2;
    }
    if (slow_blocks)
        *slow_blocks = w[RDX_MSD_SLOW];
    if (long_buckets)
        *long_buckets = w[RDX_MSD_LONG];
    if (deep_long)
        *deep_long = w[RDX_MSD_DEEP_LONG];
    if (deep2_long)
        *deep2_long = w[RDX_MSD_DEEP2_LONG];
    if (deep_skipped)
        *deep_skipped = w[RDX_MSD_SKIP_DEEP];
    if (deep_wide)
        *deep_wide = w[RDX_MSD_DEEP_WIDE] + w[RDX_MSD_DEEP2_WIDE];
    if (wider_left)
        *wider_left = w[RDX_MSD_WIDER_LEFT];
    if (deep_chunks)
        *deep_chunks = w[RDX_MSD_DEEP_CHUNKS] + w[RDX_MSD_DEEP2_CHUNKS];
    return (int)w[RDX_MSD_STATE];
}

int rdx_cuda_ctx_order_kinds(rdx_ctx *ctx)
{
    if (!ctx || !ctx->cuda || !ctx->cuda->order_kinds)
        return -1;
    uint32_t w = 0;
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(&w, ctx->cuda->order_kinds, sizeof w, cudaMemcpyDeviceToHost) != cudaSuccess) {
        (void)cudaGetLastError();
        return -2;
    }
    return (int)w;
}

int rdx_cuda_ctx_packed(rdx_ctx *ctx) { return ctx && ctx->cuda ? ctx->cuda->packed : 0; }
