/* The small route: up to RDX_SMALL_MAX_N keys, one block sorts everything on chip
 * (small.cu). No scratch. Also the cluster route's enqueue. */
#include <string.h>

#include "common.cuh"
#include "route.h"

void rdx_cuda_no_scratch(rdx_cuda_plan *p, size_t *end)
{
    (void)p;
    (void)end;
}

rdx_status rdx_cuda_enqueue_on_chip(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_cuda_bufs *b,
                                    cudaError_t (*launch)(int kb, int vb, const rdx_small_args *a, cudaStream_t s),
                                    cudaStream_t s)
{
    rdx_small_args a;
    memset(&a, 0, sizeof a);
    a.keys_in = b->keys_src;
    a.keys_out = b->argsort ? NULL : b->keys_a;
    a.vals_in = b->vals_src;
    a.vals_out = b->vals_a;
    a.n = (int)p->n;
    a.cls = p->cls;
    a.desc = p->desc;
    a.begin_bit = p->begin_bit;
    a.end_bit = p->end_bit;
    a.radix_bits = p->radix_bits;
    rdx_cuda_mark_write(ctx, b);
    RDX_CUDA_TRY(launch(p->kb, p->vb, &a, s));
    return RDX_OK;
}

static const char *accepts(const rdx_cuda_plan *p, const rdx_cuda_tuning *t)
{
    if (t->kernels_off & RDX_KERNELS_SMALL)
        return "too little shared memory on the device for the small kernel";
    if (p->numpy_order)
        return "NumPy's order (the LSD passes order by its canonical codes)";
    return p->n <= RDX_SMALL_MAX_N ? NULL : "n above RDX_SMALL_MAX_N";
}

static rdx_status enqueue(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, const rdx_cuda_bufs *b,
                          cudaStream_t s)
{
    (void)job;
    return rdx_cuda_enqueue_on_chip(ctx, p, b, rdx_launch_small, s);
}

const rdx_cuda_route rdx_route_small = {"small", accepts, rdx_cuda_no_scratch, enqueue, 0, NULL};
