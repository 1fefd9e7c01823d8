/* The grid route: a grid of co-resident blocks sorts up to the context's grid_max_n keys
 * in one launch, passes separated by a grid-wide barrier (grid.cu); f32 and f64 keys in
 * NumPy's order too (ascending: the digits of their canonical codes). Scratch: a ping-pong
 * partner of the keys and values, the barrier word and per-block digit counts. */
#include <string.h>

#include "common.cuh"
#include "route.h"

static size_t grid_blocks(size_t n, int shape) { return (n + rdx_grid_tile(shape) - 1) / rdx_grid_tile(shape); }

static const char *accepts(const rdx_cuda_plan *p, const rdx_cuda_tuning *t)
{
    if (t->kernels_off & RDX_KERNELS_GRID)
        return "too little shared memory on the device for the grid kernel";
    if (p->numpy_order && (p->kb < 4 || p->desc))
        return "NumPy's order on keys of 2 bytes or descending (by composition)";
    if (p->n > t->grid_max_n)
        return "n above the context's grid limit";
    const int shape = rdx_grid_shape(p->n);
    if (!rdx_grid_fits(p->kb, p->vb, p->numpy_order, shape, grid_blocks(p->n, shape), t->sms))
        return "the grid is not co-resident on the device";
    return NULL;
}

static void layout(rdx_cuda_plan *p, size_t *end)
{
    p->grid_shape = rdx_grid_shape(p->n);
    p->grid_blocks = grid_blocks(p->n, p->grid_shape);
    p->keys_b = rdx_cuda_take(end, p->n * (size_t)p->kb);
    if (p->vb)
        p->vals_b = rdx_cuda_take(end, p->n * (size_t)p->vb);
    /* The barrier word, then the counts: one clear covers both. */
    p->grid_barrier = rdx_cuda_take(end, 4);
    p->grid_counts = rdx_cuda_take(end, (size_t)p->passes * p->grid_blocks * RDX_CUDA_MAX_BINS * 4);
    p->grid_clear_bytes = *end - p->grid_barrier;
}

static rdx_status enqueue(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, const rdx_cuda_bufs *b,
                          cudaStream_t s)
{
    (void)job;
    rdx_grid_args a;
    memset(&a, 0, sizeof a);
    a.keys_in = b->keys_src;
    a.keys_out = b->argsort ? NULL : b->keys_a;
    a.vals_in = b->vals_src;
    a.vals_out = b->vals_a;
    a.keys_tmp = b->t + p->keys_b;
    a.vals_tmp = p->vb ? (void *)(b->t + p->vals_b) : NULL;
    a.counts = (uint32_t *)(b->t + p->grid_counts);
    a.barrier = (uint32_t *)(b->t + p->grid_barrier);
    a.n = p->n;
    a.cls = p->cls;
    a.desc = p->desc;
    a.begin_bit = p->begin_bit;
    a.end_bit = p->end_bit;
    a.radix_bits = p->radix_bits;
    /* The barrier word and the counts (RDX_GRID_ONE_BARRIER adds into them) after it. */
    if (!RDX_GRID_CG_SYNC || RDX_GRID_ONE_BARRIER)
        RDX_CUDA_TRY(cudaMemsetAsync(a.barrier, 0, RDX_GRID_ONE_BARRIER ? p->grid_clear_bytes : 4, s));
    rdx_cuda_mark_write(ctx, b);
    RDX_CUDA_TRY(rdx_launch_grid(p->kb, p->vb, p->numpy_order, p->grid_shape, &a, (unsigned)p->grid_blocks, s));
    return RDX_OK;
}

const rdx_cuda_route rdx_route_grid = {"grid", accepts, layout, enqueue, 0, "grid (numpy order)"};
