/* The stream-ordered entry points of include/rdx_cuda.h: the same plan and kernels as the
 * synchronous API, on the caller's stream and temporary storage, with no allocation, no
 * synchronization and no host read of device data (CUDA-graph safe). */
#include <stdint.h>
#include <stdio.h>

#include "rdx_cuda.h"
#include "common.cuh"
#include "device.h"
#include "lowmem.h"
#include "plan.h"
#include "segmented.h"
#include "state.h"

static rdx_status check_ctx(rdx_ctx *ctx, const char *fn)
{
    if (!ctx)
        return RDX_ERR_INVALID_ARGUMENT;
    ctx->error[0] = '\0';
    if (ctx->backend != RDX_BACKEND_CUDA)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: ctx is not a context of the CUDA backend", fn);
    return RDX_OK;
}

/* Plans a job whose arrays are all device memory with the context's tuning (its device
 * facts current); *sms: the device's multiprocessors. */
static rdx_status plan_device_job(rdx_ctx *ctx, const rdx_job *job, rdx_cuda_plan *plan, int *sms)
{
    rdx_cuda_tuning *tuning = NULL;
    const rdx_status s = rdx_cuda_tuning_ready(ctx, &tuning);
    if (s != RDX_OK)
        return s;
    rdx_cuda_plan_job(tuning, job, 1, 1, 1, plan);
    *sms = tuning->sms;
    return RDX_OK;
}

/* Whether a job in NumPy's order goes by composition (segmented.cu) rather than the LSD
 * passes (rdx_cuda_numpy_lsd, the one rule): *composed. */
static rdx_status numpy_by_composition(rdx_ctx *ctx, const rdx_job *job, int *composed)
{
    *composed = 0;
    if (!job->numpy_order)
        return RDX_OK;
    rdx_cuda_tuning *tuning = NULL;
    const rdx_status s = rdx_cuda_tuning_ready(ctx, &tuning);
    if (s == RDX_OK)
        *composed = !rdx_cuda_numpy_lsd(tuning, job);
    return s;
}

/* The temporary bytes of a job with device arrays; checks as the sort would, without
 * pointers (n = 0 makes rdx_prepare_job skip the array checks; the n-dependent ones follow). */
static rdx_status temp_size(rdx_ctx *ctx, const char *fn, rdx_job_kind kind, size_t value_size, rdx_type index_type,
                            size_t n, rdx_type type, const rdx_opts *opts, size_t *temp_bytes)
{
    rdx_status s = check_ctx(ctx, fn);
    if (s != RDX_OK)
        return s;
    if (!temp_bytes)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: temp_bytes is NULL", fn);
    rdx_job job;
    s = rdx_prepare_job(ctx, fn, kind, NULL, NULL, value_size, NULL, index_type, 0, type, opts, &job);
    if (s != RDX_OK)
        return s;
    *temp_bytes = 0;
    if (n == 0)
        return RDX_OK;
    if (n > SIZE_MAX / 8 / (value_size > 8 ? value_size : 8))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: n = %zu is too large", fn, n);
    if (kind == RDX_JOB_ARGSORT && index_type == RDX_U32 && (uint64_t)n > (uint64_t)UINT32_MAX + 1)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: n = %zu does not fit RDX_U32 indices (at most 2^32)",
                        fn, n);
    job.n = n;
    if (job.low_memory && rdx_cuda_lowmem_takes(&job)) {
        rdx_cuda_tuning *tuning = NULL;
        s = rdx_cuda_tuning_ready(ctx, &tuning);
        if (s == RDX_OK)
            *temp_bytes = rdx_cuda_lowmem_temp_bytes(tuning, &job);
        return s;
    }
    int composed = 0;
    if ((s = numpy_by_composition(ctx, &job, &composed)) != RDX_OK)
        return s;
    if (composed)
        return rdx_cuda_numpy_temp_size(ctx, &job, temp_bytes);
    rdx_cuda_plan plan;
    int sms = 0;
    s = plan_device_job(ctx, &job, &plan, &sms);
    if (s == RDX_OK)
        *temp_bytes = plan.temp_bytes;
    return s;
}

/* The inputs of an out-of-place (*_into) call; NULL for the in-place calls. */
typedef struct into_args {
    const void *keys_in;
    const void *values_in;
} into_args;

/* An *_into call's own rules: inputs not NULL, each input either the very array of its
 * output (in place) or apart from it, and no key array sharing a byte with a value array. */
static rdx_status check_into(rdx_ctx *ctx, const char *fn, const into_args *in, const rdx_job *job)
{
    const size_t kbytes = job->n * job->key_size, vbytes = job->n * job->value_size;
    const int pairs = job->kind == RDX_JOB_PAIRS;
    if (rdx_ranges_overlap(in->keys_in, kbytes, job->keys, kbytes) && in->keys_in != job->keys)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: d_keys_in and d_keys_out overlap without being the same array (give the same "
                        "pointer to sort in place, or arrays that share no byte)",
                        fn);
    if (pairs && rdx_ranges_overlap(in->values_in, vbytes, job->values, vbytes) && in->values_in != job->values)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: d_values_in and d_values_out overlap without being the same array (give the same "
                        "pointer to sort in place, or arrays that share no byte)",
                        fn);
    if (pairs && rdx_ranges_overlap(in->keys_in, kbytes, job->values, vbytes))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_keys_in and d_values_out overlap", fn);
    if (pairs && rdx_ranges_overlap(in->values_in, vbytes, job->keys, kbytes))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_values_in and d_keys_out overlap", fn);
    if (pairs && rdx_ranges_overlap(in->keys_in, kbytes, in->values_in, vbytes))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_keys_in and d_values_in overlap", fn);
    return RDX_OK;
}

/* RDX_LOW_MEMORY on the caller's stream: the route reads each level's bucket counts on
 * the host, so it waits for the stream (not capturable in a CUDA graph). A separate input
 * is copied to the output first, then sorted there. */
static rdx_status low_memory_async(rdx_ctx *ctx, const char *fn, const rdx_job *job, void *d_temp, size_t temp_bytes,
                                   cudaStream_t stream)
{
    rdx_cuda_tuning *tuning = NULL;
    rdx_status s = rdx_cuda_tuning_ready(ctx, &tuning);
    if (s != RDX_OK)
        return s;
    const size_t need = rdx_cuda_lowmem_temp_bytes(tuning, job);
    if (temp_bytes < need)
        return rdx_fail(ctx, RDX_ERR_TEMP_TOO_SMALL, "%s: temporary storage of %zu bytes is below the %zu needed", fn,
                        temp_bytes, need);
    if (!d_temp)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_temp is NULL", fn);
    rdx_inject_first_write(ctx);
    if (job->keys_in)
        RDX_CUDA_TRY(cudaMemcpyAsync(job->keys, job->keys_in, job->n * job->key_size, cudaMemcpyDeviceToDevice, stream));
    if (job->values_in)
        RDX_CUDA_TRY(cudaMemcpyAsync(job->values, job->values_in, job->n * job->value_size, cudaMemcpyDeviceToDevice,
                                     stream));
    rdx_job in_place = *job;
    in_place.keys_in = in_place.values_in = NULL;
    s = rdx_cuda_lowmem_sort(ctx, &in_place, tuning, d_temp, temp_bytes, stream);
    if (s == RDX_OK)
        snprintf(ctx->route, sizeof ctx->route, "low-memory");
    return s;
}

/* keys/values are the arrays the result goes to; `into` names separate inputs (the *_into
 * calls) or is NULL (in place). */
static rdx_status sort_async(rdx_ctx *ctx, const char *fn, rdx_job_kind kind, const void *keys, void *values,
                             size_t value_size, void *indices, rdx_type index_type, size_t n, rdx_type type,
                             const rdx_opts *opts, const into_args *into, void *d_temp, size_t temp_bytes,
                             cudaStream_t stream)
{
    rdx_status s = check_ctx(ctx, fn);
    if (s != RDX_OK)
        return s;
    /* NULL arrays are named as the caller knows them. */
    if (into && n > 0) {
        const char *null = !into->keys_in                             ? "d_keys_in"
                           : !keys                                    ? "d_keys_out"
                           : kind == RDX_JOB_PAIRS && !into->values_in ? "d_values_in"
                           : kind == RDX_JOB_PAIRS && !values          ? "d_values_out"
                                                                       : NULL;
        if (null)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: %s is NULL but n = %zu", fn, null, n);
    }
    rdx_job job;
    s = rdx_prepare_job(ctx, fn, kind, keys, values, value_size, indices, index_type, n, type, opts, &job);
    if (s != RDX_OK || n == 0)
        return s;
    if (into) {
        s = check_into(ctx, fn, into, &job);
        if (s != RDX_OK)
            return s;
    }
    /* Values of other sizes than 4 and 8 bytes are gathered, at any alignment. */
    const size_t value_align = value_size == 4 || value_size == 8 ? value_size : 1;
    s = rdx_cuda_check_array(ctx, fn, into ? "d_keys_out" : "d_keys", keys, job.key_size);
    if (s == RDX_OK && into)
        s = rdx_cuda_check_array(ctx, fn, "d_keys_in", into->keys_in, job.key_size);
    if (s == RDX_OK && kind == RDX_JOB_PAIRS)
        s = rdx_cuda_check_array(ctx, fn, into ? "d_values_out" : "d_values", values, value_align);
    if (s == RDX_OK && kind == RDX_JOB_PAIRS && into)
        s = rdx_cuda_check_array(ctx, fn, "d_values_in", into->values_in, value_align);
    if (s == RDX_OK && kind == RDX_JOB_ARGSORT)
        s = rdx_cuda_check_array(ctx, fn, "d_indices", indices, rdx_type_bytes(index_type));
    if (s != RDX_OK)
        return s;
    /* An input that is its output is an in-place sort. */
    if (into) {
        job.keys_in = into->keys_in != job.keys ? into->keys_in : NULL;
        job.values_in = kind == RDX_JOB_PAIRS && into->values_in != job.values ? into->values_in : NULL;
    }
    if (job.low_memory && rdx_cuda_lowmem_takes(&job))
        return low_memory_async(ctx, fn, &job, d_temp, temp_bytes, stream);
    int composed = 0;
    if ((s = numpy_by_composition(ctx, &job, &composed)) != RDX_OK)
        return s;
    if (composed)
        return rdx_cuda_numpy_enqueue(ctx, fn, &job, d_temp, temp_bytes, stream);
    rdx_cuda_plan plan;
    int sms = 0;
    s = plan_device_job(ctx, &job, &plan, &sms);
    if (s != RDX_OK)
        return s;
    if (temp_bytes < plan.temp_bytes)
        return rdx_fail(ctx, RDX_ERR_TEMP_TOO_SMALL, "%s: temporary storage of %zu bytes is below the %zu needed",
                        fn, temp_bytes, plan.temp_bytes);
    if (!d_temp)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_temp is NULL", fn);
    s = rdx_cuda_enqueue(ctx, &plan, &job, d_temp, sms, 0, stream);
    if (s == RDX_OK) /* the route as planned: the sort has not run yet */
        snprintf(ctx->route, sizeof ctx->route, "%s", rdx_cuda_plan_route_name(&plan));
    return s;
}

rdx_status rdx_cuda_sort_keys_temp_size(rdx_ctx *ctx, size_t n, rdx_type type, const rdx_opts *opts,
                                        size_t *temp_bytes)
{
    return temp_size(ctx, "rdx_cuda_sort_keys_temp_size", RDX_JOB_KEYS, 0, RDX_U32, n, type, opts, temp_bytes);
}

rdx_status rdx_cuda_sort_keys_async(rdx_ctx *ctx, void *d_keys, size_t n, rdx_type type, const rdx_opts *opts,
                                    void *d_temp, size_t temp_bytes, cudaStream_t stream)
{
    return sort_async(ctx, "rdx_cuda_sort_keys_async", RDX_JOB_KEYS, d_keys, NULL, 0, NULL, RDX_U32, n, type, opts,
                      NULL, d_temp, temp_bytes, stream);
}

rdx_status rdx_cuda_sort_keys_into_async(rdx_ctx *ctx, const void *d_keys_in, void *d_keys_out, size_t n,
                                         rdx_type type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                         cudaStream_t stream)
{
    const into_args in = {d_keys_in, NULL};
    return sort_async(ctx, "rdx_cuda_sort_keys_into_async", RDX_JOB_KEYS, d_keys_out, NULL, 0, NULL, RDX_U32, n,
                      type, opts, &in, d_temp, temp_bytes, stream);
}

rdx_status rdx_cuda_sort_pairs_temp_size(rdx_ctx *ctx, size_t value_size, size_t n, rdx_type type,
                                         const rdx_opts *opts, size_t *temp_bytes)
{
    return temp_size(ctx, "rdx_cuda_sort_pairs_temp_size", RDX_JOB_PAIRS, value_size, RDX_U32, n, type, opts,
                     temp_bytes);
}

rdx_status rdx_cuda_sort_pairs_async(rdx_ctx *ctx, void *d_keys, void *d_values, size_t value_size, size_t n,
                                     rdx_type type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                     cudaStream_t stream)
{
    return sort_async(ctx, "rdx_cuda_sort_pairs_async", RDX_JOB_PAIRS, d_keys, d_values, value_size, NULL, RDX_U32,
                      n, type, opts, NULL, d_temp, temp_bytes, stream);
}

rdx_status rdx_cuda_sort_pairs_into_async(rdx_ctx *ctx, const void *d_keys_in, void *d_keys_out,
                                          const void *d_values_in, void *d_values_out, size_t value_size, size_t n,
                                          rdx_type type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                          cudaStream_t stream)
{
    const into_args in = {d_keys_in, d_values_in};
    return sort_async(ctx, "rdx_cuda_sort_pairs_into_async", RDX_JOB_PAIRS, d_keys_out, d_values_out, value_size,
                      NULL, RDX_U32, n, type, opts, &in, d_temp, temp_bytes, stream);
}

rdx_status rdx_cuda_argsort_temp_size(rdx_ctx *ctx, size_t n, rdx_type type, rdx_type index_type,
                                      const rdx_opts *opts, size_t *temp_bytes)
{
    return temp_size(ctx, "rdx_cuda_argsort_temp_size", RDX_JOB_ARGSORT, 0, index_type, n, type, opts, temp_bytes);
}

rdx_status rdx_cuda_argsort_async(rdx_ctx *ctx, const void *d_keys, size_t n, rdx_type type, void *d_indices,
                                  rdx_type index_type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                  cudaStream_t stream)
{
    return sort_async(ctx, "rdx_cuda_argsort_async", RDX_JOB_ARGSORT, d_keys, NULL, 0, d_indices, index_type, n,
                      type, opts, NULL, d_temp, temp_bytes, stream);
}
