/* What a CUDA context holds (ctx->cuda): made with the context (rdx_cuda_ctx_init), its
 * stream and buffers on first use; shared by host.cu, async.cu and plan.cu. */
#ifndef RDX_CUDA_STATE_H
#define RDX_CUDA_STATE_H

#include <stdint.h>
#include <cuda_runtime.h>

#include "internal.h"
#include "tuning_ctx.h"

struct rdx_cuda_state {
    rdx_cuda_tuning tuning;   /* this context's limits and device facts */
    cudaStream_t stream;      /* the context's own stream, synchronized before returning */
    void *scratch;            /* temporary device memory of the last plans */
    size_t scratch_bytes;
    void *staging[2];         /* pinned host buffers, RDX_STAGING_BYTES each */
    cudaEvent_t staged[2];    /* the last copy through each staging buffer */
    const uint32_t *msd_ctrl; /* the MSD control words of the last sort enqueued on this
                                 context with the MSD route planned, else NULL (in the
                                 context's scratch, or the caller's temporary storage) */
    const uint32_t *order_kinds; /* the order check's word of the last sort enqueued on this
                                    context where the LSD passes' histogram checked the
                                    keys' order (kernels.h, rdx_hist_args.unsorted), else
                                    NULL (a test hook reads it) */
    int packed;               /* the last sort enqueued its LSD passes packed (pairs as
                                 words, rdx_pass_args.packed; where the MSD route was
                                 planned they run only if it is declined; a test hook
                                 reads it) */
};

/* The tuning of a CUDA context, with its device facts brought up to date for the current
 * device (and the device prepared); records a failure on ctx. */
rdx_status rdx_cuda_tuning_ready(rdx_ctx *ctx, rdx_cuda_tuning **out);

/* The context's stream and at least `bytes` of its scratch (host.cu), for synchronous calls
 * outside host.cu (segmented.cu); records a failure on ctx. */
rdx_status rdx_cuda_context_scratch(rdx_ctx *ctx, size_t bytes, void **scratch, cudaStream_t *stream);

/* The route report of rdx_ctx_route: the MSD route's outcome from its control words. */
const char *rdx_cuda_msd_outcome(uint32_t state);

#endif /* RDX_CUDA_STATE_H */
