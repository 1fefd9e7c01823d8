/* The stream-ordered segmented sorts of include/rdx_cuda.h: argument checks (no host read
 * of device memory), then the composition of seg_core.h on the caller's stream and
 * temporary storage. */
#include <stdint.h>
#include <string.h>

#include "rdx_cuda.h"
#include "common.cuh"
#include "device.h"
#include "seg_core.h"

typedef struct seg_call {
    const char *fn;
    rdx_job_kind kind;
    const void *keys;
    void *values;
    size_t value_size;
    void *indices;
    rdx_type index_type;
    size_t n;
    rdx_type type;
    const size_t *d_offsets;
    size_t num_segments;
    const rdx_opts *opts;
    int with_keys;            /* an argsort that writes the sorted keys too, to keys_out */
    void *keys_out;
} seg_call;

/* The rules of an argsort's second output: d_keys_out is d_keys_in or shares no byte with
 * it, and shares none with d_indices. */
static rdx_status check_keys_out(rdx_ctx *ctx, const seg_call *c, size_t kb)
{
    const size_t kbytes = c->n * kb, ibytes = c->n * rdx_type_bytes(c->index_type);
    if (!c->keys_out && c->n > 0)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_keys_out is NULL with n = %zu", c->fn, c->n);
    rdx_status s = rdx_cuda_check_array(ctx, c->fn, "d_keys_out", c->keys_out, kb);
    if (s != RDX_OK)
        return s;
    if (c->keys_out != c->keys && rdx_ranges_overlap(c->keys, kbytes, c->keys_out, kbytes))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: d_keys_in and d_keys_out overlap without being the same array (give the same "
                        "pointer to sort in place, or arrays that share no byte)",
                        c->fn);
    if (rdx_ranges_overlap(c->keys_out, kbytes, c->indices, ibytes))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_keys_out and d_indices overlap", c->fn);
    return RDX_OK;
}

/* Checks the call (its arrays too unless size_only) and fills the run and its layout. */
static rdx_status prepare(rdx_ctx *ctx, const seg_call *c, int size_only, rdx_seg_run *r, rdx_seg_layout *L)
{
    if (!ctx)
        return RDX_ERR_INVALID_ARGUMENT;
    ctx->error[0] = '\0';
    if (ctx->backend != RDX_BACKEND_CUDA)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: ctx is not a context of the CUDA backend", c->fn);
    rdx_job job;
    rdx_status s = size_only ? rdx_prepare_job(ctx, c->fn, c->kind, NULL, NULL, c->value_size, NULL, c->index_type,
                                               0, c->type, c->opts, &job)
                             : rdx_prepare_job(ctx, c->fn, c->kind, c->keys, c->values, c->value_size, c->indices,
                                               c->index_type, c->n, c->type, c->opts, &job);
    if (s != RDX_OK)
        return s;
    const size_t n = c->n, S = c->num_segments;
    if (size_only && c->kind == RDX_JOB_ARGSORT && c->index_type == RDX_U32 && (uint64_t)n > (uint64_t)UINT32_MAX + 1)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: n = %zu does not fit RDX_U32 indices (at most 2^32)",
                        c->fn, n);
    if (size_only && n > SIZE_MAX / 16 / (c->value_size > 8 ? c->value_size : 8))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: n = %zu is too large", c->fn, n);
    /* The size queries take no offsets: the size is the same for any layout. */
    if (!size_only && !c->d_offsets && S == 0 && n > 0)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_offsets is NULL and num_segments is 0, but n = %zu",
                        c->fn, n);
    if (!size_only && !c->d_offsets && S > 0 && n % S != 0)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: n = %zu is not a multiple of num_segments = %zu (d_offsets is NULL: equal rows)", c->fn,
                        n, S);
    if (S >= SIZE_MAX / 16)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: num_segments = %zu is too large", c->fn, S);
    if (!size_only) {
        s = rdx_cuda_check_array(ctx, c->fn, "d_keys", c->keys, job.key_size);
        if (s == RDX_OK && c->kind == RDX_JOB_PAIRS)
            s = rdx_cuda_check_array(ctx, c->fn, "d_values", c->values,
                            c->value_size == 4 || c->value_size == 8 ? c->value_size : 1);
        if (s == RDX_OK && c->kind == RDX_JOB_ARGSORT)
            s = rdx_cuda_check_array(ctx, c->fn, "d_indices", c->indices, rdx_type_bytes(c->index_type));
        if (s == RDX_OK && c->with_keys)
            s = check_keys_out(ctx, c, job.key_size);
        if (s == RDX_OK && c->d_offsets && n > 0 && S > 0)
            s = rdx_cuda_check_array(ctx, c->fn, "d_offsets", c->d_offsets, sizeof(size_t));
        if (s != RDX_OK)
            return s;
    }
    if (n == 0 || S == 0) {
        memset(L, 0, sizeof *L);
        return RDX_OK;
    }
    job.n = n;
    job.segmented = 1;
    job.offsets = c->d_offsets;
    job.offsets_on_device = 1;
    job.num_segments = S;
    job.segment_size = c->d_offsets ? 0 : n / S;
    rdx_cuda_seg_run_from_job(&job, r);
    r->d_off = c->d_offsets;
    if (c->with_keys) {
        r->keys_out = c->keys_out;
        r->with_keys = 1;
    }
    return rdx_cuda_seg_plan(ctx, r, L);
}

static rdx_status temp_size(rdx_ctx *ctx, const seg_call *c, size_t *temp_bytes)
{
    if (ctx && !temp_bytes)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: temp_bytes is NULL", c->fn);
    rdx_seg_run r;
    rdx_seg_layout L;
    const rdx_status s = prepare(ctx, c, 1, &r, &L);
    if (s == RDX_OK)
        *temp_bytes = L.total;
    return s;
}

static rdx_status run(rdx_ctx *ctx, const seg_call *c, void *d_temp, size_t temp_bytes, cudaStream_t stream)
{
    rdx_seg_run r;
    rdx_seg_layout L;
    rdx_status s = prepare(ctx, c, 0, &r, &L);
    if (s != RDX_OK || c->n == 0 || c->num_segments == 0)
        return s;
    if (temp_bytes < L.total)
        return rdx_fail(ctx, RDX_ERR_TEMP_TOO_SMALL, "%s: temporary storage of %zu bytes is below the %zu needed",
                        c->fn, temp_bytes, L.total);
    if (!d_temp)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_temp is NULL", c->fn);
    return rdx_cuda_seg_enqueue(ctx, &r, &L, d_temp, stream);
}

rdx_status rdx_cuda_segmented_sort_keys_temp_size(rdx_ctx *ctx, size_t n, rdx_type type, size_t num_segments,
                                                  const rdx_opts *opts, size_t *temp_bytes)
{
    const seg_call c = {"rdx_cuda_segmented_sort_keys_temp_size", RDX_JOB_KEYS, NULL, NULL, 0, NULL, RDX_U32,
                        n, type, NULL, num_segments, opts, 0, NULL};
    return temp_size(ctx, &c, temp_bytes);
}

rdx_status rdx_cuda_segmented_sort_keys_async(rdx_ctx *ctx, void *d_keys, size_t n, rdx_type type,
                                              const size_t *d_offsets, size_t num_segments, const rdx_opts *opts,
                                              void *d_temp, size_t temp_bytes, cudaStream_t stream)
{
    const seg_call c = {"rdx_cuda_segmented_sort_keys_async", RDX_JOB_KEYS, d_keys, NULL, 0, NULL, RDX_U32,
                        n, type, d_offsets, num_segments, opts, 0, NULL};
    return run(ctx, &c, d_temp, temp_bytes, stream);
}

rdx_status rdx_cuda_segmented_sort_pairs_temp_size(rdx_ctx *ctx, size_t value_size, size_t n, rdx_type type,
                                                   size_t num_segments, const rdx_opts *opts, size_t *temp_bytes)
{
    const seg_call c = {"rdx_cuda_segmented_sort_pairs_temp_size", RDX_JOB_PAIRS, NULL, NULL, value_size, NULL,
                        RDX_U32, n, type, NULL, num_segments, opts, 0, NULL};
    return temp_size(ctx, &c, temp_bytes);
}

rdx_status rdx_cuda_segmented_sort_pairs_async(rdx_ctx *ctx, void *d_keys, void *d_values, size_t value_size,
                                               size_t n, rdx_type type, const size_t *d_offsets,
                                               size_t num_segments, const rdx_opts *opts, void *d_temp,
                                               size_t temp_bytes, cudaStream_t stream)
{
    const seg_call c = {"rdx_cuda_segmented_sort_pairs_async", RDX_JOB_PAIRS, d_keys, d_values, value_size, NULL,
                        RDX_U32, n, type, d_offsets, num_segments, opts, 0, NULL};
    return run(ctx, &c, d_temp, temp_bytes, stream);
}

rdx_status rdx_cuda_segmented_argsort_temp_size(rdx_ctx *ctx, size_t n, rdx_type type, size_t num_segments,
                                                rdx_type index_type, const rdx_opts *opts, size_t *temp_bytes)
{
    const seg_call c = {"rdx_cuda_segmented_argsort_temp_size", RDX_JOB_ARGSORT, NULL, NULL, 0, NULL, index_type,
                        n, type, NULL, num_segments, opts, 0, NULL};
    return temp_size(ctx, &c, temp_bytes);
}

rdx_status rdx_cuda_segmented_argsort_async(rdx_ctx *ctx, const void *d_keys, size_t n, rdx_type type,
                                            const size_t *d_offsets, size_t num_segments, void *d_indices,
                                            rdx_type index_type, const rdx_opts *opts, void *d_temp,
                                            size_t temp_bytes, cudaStream_t stream)
{
    const seg_call c = {"rdx_cuda_segmented_argsort_async", RDX_JOB_ARGSORT, d_keys, NULL, 0, d_indices,
                        index_type, n, type, d_offsets, num_segments, opts, 0, NULL};
    return run(ctx, &c, d_temp, temp_bytes, stream);
}

rdx_status rdx_cuda_segmented_sort_with_indices_async(rdx_ctx *ctx, const void *d_keys_in, void *d_keys_out,
                                                      size_t n, rdx_type type, const size_t *d_offsets,
                                                      size_t num_segments, void *d_indices, rdx_type index_type,
                                                      const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                                      cudaStream_t stream)
{
    const seg_call c = {"rdx_cuda_segmented_sort_with_indices_async", RDX_JOB_ARGSORT, d_keys_in, NULL, 0,
                        d_indices, index_type, n, type, d_offsets, num_segments, opts, 1, d_keys_out};
    return run(ctx, &c, d_temp, temp_bytes, stream);
}
