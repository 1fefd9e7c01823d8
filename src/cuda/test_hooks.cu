/* The hooks of test_hooks.h: a context's tuning, its MSD route's state, its order check. */
#include <string.h>

#include "common.cuh"
#include "kernels.h"
#include "state.h"
#include "test_hooks.h"

rdx_cuda_tuning *rdx_cuda_ctx_tuning(rdx_ctx *ctx)
{
    return ctx && ctx->backend == RDX_BACKEND_CUDA && ctx->cuda ? &ctx->cuda->tuning : NULL;
}

int rdx_cuda_ctx_msd_state(rdx_ctx *ctx, rdx_cuda_msd_counts *c)
{
    rdx_cuda_msd_counts none;
    if (!c)
        c = &none;
    memset(c, 0, sizeof *c);
    if (!ctx || !ctx->cuda || !ctx->cuda->msd_ctrl)
        return -1;
    uint32_t w[RDX_MSD_CTRL_WORDS] = {0};
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(w, ctx->cuda->msd_ctrl, sizeof w, cudaMemcpyDeviceToHost) != cudaSuccess) {
        (void)cudaGetLastError();
        return -2;
    }
    c->slow_blocks = w[RDX_MSD_SLOW];
    c->long_buckets = w[RDX_MSD_LONG];
    c->wider_left = w[RDX_MSD_WIDER_LEFT];
    c->deep_long = w[RDX_MSD_DEEP_LONG];
    c->deep2_long = w[RDX_MSD_DEEP2_LONG];
    c->deep_skipped = w[RDX_MSD_SKIP_DEEP];
    c->deep_wide = w[RDX_MSD_DEEP_WIDE] + w[RDX_MSD_DEEP2_WIDE];
    c->deep_chunks = w[RDX_MSD_DEEP_CHUNKS] + w[RDX_MSD_DEEP2_CHUNKS];
    c->deep_splits = w[RDX_MSD_SPLITS];
    c->joint = w[RDX_MSD_JOINT];
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
