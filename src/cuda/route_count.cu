/* The counting route (counting.cu): keys alone, 1 or 2 bytes, sorted over all their bits.
 * Equal keys are then identical, so counting each value and writing the runs is the whole
 * sort. Not for RDX_NUMPY_ORDER on floats (NaNs of several patterns and both zeros
 * compare equal there, and each must keep its bits and its place). Scratch: the counts
 * and the run starts, 4 KB or 1 MB, whatever n is. */
#include <string.h>

#include "common.cuh"
#include "route.h"

static const char *accepts(const rdx_cuda_plan *p, const rdx_cuda_tuning *t)
{
    if (p->kind != RDX_JOB_KEYS)
        return "values or indices to move";
    if (p->kb > 2)
        return "keys wider than 2 bytes";
    if (p->begin_bit != 0 || p->end_bit != 8 * p->kb)
        return "a bit range that leaves bits out";
    if (p->numpy_order)
        return "NumPy's order (equal keys may differ in their bits)";
    if (p->kb == 2 && (t->kernels_off & RDX_KERNELS_COUNT))
        return "too little shared memory on the device for 2-byte keys' counts";
    if (p->n < (p->kb == 1 ? t->count_min_n : t->count16_min_n))
        return "n below the context's counting limit";
    return NULL;
}

static void layout(rdx_cuda_plan *p, size_t *end)
{
    const size_t bins = rdx_count_bins(p->kb);
    p->count_counts = rdx_cuda_take(end, bins * sizeof(unsigned long long));
    p->count_starts = rdx_cuda_take(end, (bins + 1) * sizeof(unsigned long long));
}

static rdx_status enqueue(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, const rdx_cuda_bufs *b,
                          cudaStream_t s)
{
    (void)job;
    rdx_count_args a;
    memset(&a, 0, sizeof a);
    a.keys_in = b->keys_src;
    a.keys_out = b->keys_a;
    a.n = p->n;
    a.cls = p->cls;
    a.desc = p->desc;
    a.counts = (unsigned long long *)(b->t + p->count_counts);
    a.starts = (unsigned long long *)(b->t + p->count_starts);
    rdx_cuda_mark_write(ctx, b);
    RDX_CUDA_TRY(rdx_launch_count(p->kb, &a, b->sms, s));
    return RDX_OK;
}

const rdx_cuda_route rdx_route_count = {"count", accepts, layout, enqueue, 0, NULL};
