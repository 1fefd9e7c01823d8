/* One stream-ordered call of rdx_cuda.h, as test_inject and test_stress make it: the
 * call's _temp_size query, temporary storage of the test's own (cudaMalloc), the *_async
 * call on the caller's stream, then cudaStreamSynchronize (kernels enqueued before a
 * failure run too) and the storage freed. Whole-array or segmented. */
#ifndef RDX_TEST_CUDA_ASYNC_H
#define RDX_TEST_CUDA_ASYNC_H

#include <cuda_runtime_api.h>
#include "rdx_cuda.h"
#include "reference.h"

typedef struct rdx_test_async {
    rdx_ref_kind kind;
    int segmented;             /* 0: the whole-array call */
    void *keys, *values;       /* device memory */
    size_t value_size;         /* RDX_REF_PAIRS */
    void *indices;             /* RDX_REF_ARGSORT */
    rdx_type index_type;
    size_t n;
    rdx_type type;
    const size_t *d_offsets;   /* segmented: device offsets, or NULL: num_segments equal rows */
    size_t num_segments;
    rdx_opts opts;
} rdx_test_async;

/* The library's status, or -1 when the test's own allocation or synchronization failed. */
static inline int rdx_test_async_call(rdx_ctx *ctx, const rdx_test_async *a, cudaStream_t stream)
{
    const rdx_opts *o = &a->opts;
    const size_t *off = a->d_offsets, S = a->num_segments;
    size_t tb = 0;
    rdx_status st;
    switch (a->kind) {
    case RDX_REF_KEYS:
        st = a->segmented ? rdx_cuda_segmented_sort_keys_temp_size(ctx, a->n, a->type, S, o, &tb)
                          : rdx_cuda_sort_keys_temp_size(ctx, a->n, a->type, o, &tb);
        break;
    case RDX_REF_PAIRS:
        st = a->segmented ? rdx_cuda_segmented_sort_pairs_temp_size(ctx, a->value_size, a->n, a->type, S, o, &tb)
                          : rdx_cuda_sort_pairs_temp_size(ctx, a->value_size, a->n, a->type, o, &tb);
        break;
    default:
        st = a->segmented ? rdx_cuda_segmented_argsort_temp_size(ctx, a->n, a->type, S, a->index_type, o, &tb)
                          : rdx_cuda_argsort_temp_size(ctx, a->n, a->type, a->index_type, o, &tb);
        break;
    }
    if (st != RDX_OK)
        return st;
    void *temp = NULL;
    if (cudaMalloc(&temp, tb ? tb : 1) != cudaSuccess)
        return -1;
    switch (a->kind) {
    case RDX_REF_KEYS:
        st = a->segmented ? rdx_cuda_segmented_sort_keys_async(ctx, a->keys, a->n, a->type, off, S, o, temp, tb, stream)
                          : rdx_cuda_sort_keys_async(ctx, a->keys, a->n, a->type, o, temp, tb, stream);
        break;
    case RDX_REF_PAIRS:
        st = a->segmented ? rdx_cuda_segmented_sort_pairs_async(ctx, a->keys, a->values, a->value_size, a->n, a->type,
                                                                off, S, o, temp, tb, stream)
                          : rdx_cuda_sort_pairs_async(ctx, a->keys, a->values, a->value_size, a->n, a->type, o, temp,
                                                      tb, stream);
        break;
    default:
        st = a->segmented ? rdx_cuda_segmented_argsort_async(ctx, a->keys, a->n, a->type, off, S, a->indices,
                                                             a->index_type, o, temp, tb, stream)
                          : rdx_cuda_argsort_async(ctx, a->keys, a->n, a->type, a->indices, a->index_type, o, temp,
                                                   tb, stream);
        break;
    }
    const int synced = cudaStreamSynchronize(stream) == cudaSuccess;
    (void)cudaFree(temp);
    return synced ? (int)st : -1;
}

#endif
