/* The public entry points: argument checks, backend choice, error details.
 * No algorithm lives here; a checked rdx_job goes to src/cpu/ or src/cuda/. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "internal.h"
#include "key_codec.h"

#define RDX_STR2(x) #x
#define RDX_STR(x) RDX_STR2(x)

unsigned rdx_version_number(void)
{
    return RDX_VERSION_MAJOR * 10000u + RDX_VERSION_MINOR * 100u + RDX_VERSION_PATCH;
}

const char *rdx_version_string(void)
{
    return RDX_STR(RDX_VERSION_MAJOR) "." RDX_STR(RDX_VERSION_MINOR) "." RDX_STR(RDX_VERSION_PATCH);
}

const char *rdx_status_string(rdx_status s)
{
    switch (s) {
    case RDX_OK: return "ok";
    case RDX_ERR_INVALID_ARGUMENT: return "invalid argument";
    case RDX_ERR_UNSUPPORTED: return "unsupported";
    case RDX_ERR_OUT_OF_MEMORY: return "out of memory";
    case RDX_ERR_NO_DEVICE: return "no usable CUDA device";
    case RDX_ERR_DEVICE: return "CUDA device error";
    case RDX_ERR_TEMP_TOO_SMALL: return "temporary storage too small";
    case RDX_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

size_t rdx_type_size(rdx_type t) { return rdx_type_bytes((int)t); }

rdx_status rdx_fail(rdx_ctx *ctx, rdx_status s, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
        va_end(ap);
    }
    return s;
}

rdx_status rdx_ctx_create(rdx_ctx **out, rdx_backend backend)
{
    if (!out)
        return RDX_ERR_INVALID_ARGUMENT;
    *out = NULL;
    rdx_backend chosen;
    switch (backend) {
    case RDX_BACKEND_AUTO:
        chosen = rdx_cuda_usable() ? RDX_BACKEND_CUDA : RDX_BACKEND_CPU;
        break;
    case RDX_BACKEND_CPU:
        chosen = RDX_BACKEND_CPU;
        break;
    case RDX_BACKEND_CUDA:
        if (!rdx_cuda_built())
            return RDX_ERR_UNSUPPORTED;
        if (!rdx_cuda_usable())
            return RDX_ERR_NO_DEVICE;
        chosen = RDX_BACKEND_CUDA;
        break;
    default:
        return RDX_ERR_INVALID_ARGUMENT;
    }
    rdx_ctx *ctx = (rdx_ctx *)rdx_host_calloc(NULL, 1, sizeof *ctx);
    if (!ctx)
        return RDX_ERR_OUT_OF_MEMORY;
    ctx->backend = chosen;
    /* A CUDA context gets its tuning and the device's facts now; its allocations and CUDA
     * calls are failure points of the injection test, on the thread's counters. */
    rdx_inject_creation_begin(ctx);
    const rdx_status s = chosen == RDX_BACKEND_CUDA ? rdx_cuda_ctx_init(ctx) : RDX_OK;
    rdx_inject_creation_end(ctx);
    if (s != RDX_OK) {
        rdx_cuda_release(ctx);
        free(ctx);
        return s;
    }
    *out = ctx;
    return RDX_OK;
}

void rdx_ctx_destroy(rdx_ctx *ctx)
{
    if (!ctx)
        return;
    rdx_multi_release(ctx);
    rdx_cpu_release(ctx);
    rdx_cuda_release(ctx);
    rdx_host_free(ctx);
}

rdx_backend rdx_ctx_backend(const rdx_ctx *ctx)
{
    return ctx ? ctx->backend : RDX_BACKEND_AUTO;
}

const char *rdx_ctx_route(const rdx_ctx *ctx)
{
    return ctx ? ctx->route : "";
}

const char *rdx_ctx_error(const rdx_ctx *ctx)
{
    return ctx ? ctx->error : "";
}

int rdx_ranges_overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return an && bn && pa < pb + bn && pb < pa + an;
}

/* n * size would not fit in size_t. */
static int product_overflows(size_t n, size_t size)
{
    return size != 0 && n > SIZE_MAX / size;
}

/* The bit range and digit width of opts for keys of width bits (every entry point's rule). */
rdx_status rdx_check_bits(rdx_ctx *ctx, const char *fn, int width, const rdx_opts *opts)
{
    const int end_bit = opts->end_bit == 0 ? width : opts->end_bit;
    if (opts->begin_bit < 0)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: opts->begin_bit = %d is negative",
                        fn, opts->begin_bit);
    if (end_bit < 0 || end_bit > width)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: opts->end_bit = %d is past the %d-bit key width", fn, opts->end_bit, width);
    if (opts->begin_bit >= end_bit)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: opts->begin_bit = %d is not below end_bit = %d", fn, opts->begin_bit, end_bit);
    if (opts->radix_bits < 0 || opts->radix_bits > 8)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: opts->radix_bits = %d is outside 0..8", fn, opts->radix_bits);
    return RDX_OK;
}

/* Checks what every entry point shares and fills the common part of job. */
static rdx_status check_common(rdx_ctx *ctx, const char *fn, const void *keys, size_t n,
                               rdx_type type, const rdx_opts *opts, rdx_job *job)
{
    static const rdx_opts defaults = {0, 0, 0, 0};
    if (!opts)
        opts = &defaults;
    if (!rdx_type_is_valid((int)type))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: type %d is no rdx_type", fn, (int)type);
    const int width = (int)rdx_type_bytes((int)type) * 8;
    if (n > 0 && !keys)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: keys is NULL but n = %zu", fn, n);
    if (product_overflows(n, (size_t)width / 8))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: n = %zu keys do not fit in memory", fn, n);
    const unsigned known = RDX_DESCENDING | RDX_NUMPY_ORDER | RDX_LOW_MEMORY;
    if (opts->flags & ~known)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: opts->flags has unknown bits 0x%x",
                        fn, opts->flags & ~known);
    rdx_status bs = rdx_check_bits(ctx, fn, width, opts);
    if (bs != RDX_OK)
        return bs;
    const int end_bit = opts->end_bit == 0 ? width : opts->end_bit;

    memset(job, 0, sizeof *job);
    job->type = type;
    job->key_size = (size_t)width / 8;
    job->n = n;
    job->keys = (void *)(uintptr_t)keys;
    job->descending = (opts->flags & RDX_DESCENDING) != 0;
    job->numpy_order = (opts->flags & RDX_NUMPY_ORDER) != 0 && rdx_type_class(type) == RDX_CLASS_FLOAT;
    job->low_memory = (opts->flags & RDX_LOW_MEMORY) != 0;
    job->begin_bit = opts->begin_bit;
    job->end_bit = end_bit;
    job->radix_bits = opts->radix_bits;
    return RDX_OK;
}

/* The CPU backend reads and writes through host pointers only. */
static rdx_status check_host_pointer(rdx_ctx *ctx, const char *fn, const char *name, const void *p)
{
    if (ctx->backend == RDX_BACKEND_CPU && p && rdx_cuda_is_device_pointer(p))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: %s is device memory, which the CPU backend cannot read", fn, name);
    return RDX_OK;
}

/* check_host_pointer for the keys, values and indices of a call. */
static rdx_status check_host_arrays(rdx_ctx *ctx, const char *fn, const void *keys, const void *values,
                                    const void *indices)
{
    rdx_status s = check_host_pointer(ctx, fn, "keys", keys);
    if (s == RDX_OK)
        s = check_host_pointer(ctx, fn, "values", values);
    if (s == RDX_OK)
        s = check_host_pointer(ctx, fn, "indices", indices);
    return s;
}

/* rdx_prepare_job; segmented: RDX_U32 indices are bounded by the segments' lengths, which
 * the segment checks look at, rather than by n. */
static rdx_status prepare(rdx_ctx *ctx, const char *fn, rdx_job_kind kind, const void *keys,
                          void *values, size_t value_size, void *indices, rdx_type index_type,
                          size_t n, rdx_type type, const rdx_opts *opts, int segmented,
                          rdx_job *job)
{
    ctx->error[0] = '\0';
    rdx_status s = check_common(ctx, fn, keys, n, type, opts, job);
    if (s != RDX_OK)
        return s;
    job->kind = kind;
    if (kind == RDX_JOB_PAIRS) {
        if (value_size == 0)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: value_size is 0", fn);
        if (n > 0 && !values)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: values is NULL but n = %zu", fn, n);
        if (product_overflows(n, value_size))
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: n = %zu values of %zu bytes do not fit in memory", fn, n, value_size);
        if (rdx_ranges_overlap(keys, n * job->key_size, values, n * value_size))
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: keys and values overlap", fn);
        job->values = values;
        job->value_size = value_size;
    } else if (kind == RDX_JOB_ARGSORT) {
        if (index_type != RDX_U32 && index_type != RDX_U64)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: index_type %d is neither RDX_U32 nor RDX_U64", fn, (int)index_type);
        if (!segmented && index_type == RDX_U32 && (uint64_t)n > (uint64_t)UINT32_MAX + 1)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: n = %zu does not fit RDX_U32 indices (at most 2^32)", fn, n);
        if (n > 0 && !indices)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: indices is NULL but n = %zu", fn, n);
        const size_t index_size = rdx_type_bytes((int)index_type);
        if (product_overflows(n, index_size))
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: n = %zu indices do not fit in memory", fn, n);
        if (rdx_ranges_overlap(keys, n * job->key_size, indices, n * index_size))
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: keys and indices overlap", fn);
        job->indices = indices;
        job->index_type = index_type;
    }
    return RDX_OK;
}

rdx_status rdx_prepare_job(rdx_ctx *ctx, const char *fn, rdx_job_kind kind, const void *keys,
                           void *values, size_t value_size, void *indices, rdx_type index_type,
                           size_t n, rdx_type type, const rdx_opts *opts, rdx_job *job)
{
    return prepare(ctx, fn, kind, keys, values, value_size, indices, index_type, n, type, opts, 0,
                   job);
}

/* Checks, then runs the job on the context's backend. */
static rdx_status sort_entry(rdx_ctx *ctx, const char *fn, rdx_job_kind kind, const void *keys,
                             void *values, size_t value_size, void *indices, rdx_type index_type,
                             size_t n, rdx_type type, const rdx_opts *opts)
{
    if (!ctx)
        return RDX_ERR_INVALID_ARGUMENT;
    rdx_job job;
    rdx_status s = rdx_prepare_job(ctx, fn, kind, keys, values, value_size, indices, index_type,
                                   n, type, opts, &job);
    if (s == RDX_OK)
        s = check_host_arrays(ctx, fn, keys, values, indices);
    if (s != RDX_OK || n == 0)
        return s;
    if (ctx->backend == RDX_BACKEND_CUDA && !ctx->multi)
        return rdx_cuda_sort(ctx, &job); /* which names its route on success */
    s = ctx->multi ? rdx_multi_sort(ctx, &job) : rdx_cpu_sort(ctx, &job);
    if (s == RDX_OK)
        snprintf(ctx->route, sizeof ctx->route, ctx->multi ? "dist" : "cpu");
    return s;
}

rdx_status rdx_sort_keys(rdx_ctx *ctx, void *keys, size_t n, rdx_type type, const rdx_opts *opts)
{
    return sort_entry(ctx, "rdx_sort_keys", RDX_JOB_KEYS, keys, NULL, 0, NULL, RDX_U32, n, type, opts);
}

rdx_status rdx_sort_pairs(rdx_ctx *ctx, void *keys, void *values, size_t value_size, size_t n,
                          rdx_type type, const rdx_opts *opts)
{
    return sort_entry(ctx, "rdx_sort_pairs", RDX_JOB_PAIRS, keys, values, value_size, NULL, RDX_U32,
                      n, type, opts);
}

rdx_status rdx_argsort(rdx_ctx *ctx, const void *keys, size_t n, rdx_type type, void *indices,
                       rdx_type index_type, const rdx_opts *opts)
{
    return sort_entry(ctx, "rdx_argsort", RDX_JOB_ARGSORT, keys, NULL, 0, indices, index_type, n,
                      type, opts);
}

/* ---- segmented sorts ---- */

rdx_status rdx_check_offsets(rdx_ctx *ctx, const char *fn, const size_t *offsets,
                             size_t num_segments, size_t n, int index_type)
{
    for (size_t s = 0; s <= num_segments; s++) {
        if (offsets[s] > n)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: offsets[%zu] = %zu is past n = %zu", fn, s, offsets[s], n);
        if (s > 0 && offsets[s] < offsets[s - 1])
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: offsets decrease: offsets[%zu] = %zu < offsets[%zu] = %zu", fn, s,
                            offsets[s], s - 1, offsets[s - 1]);
        if (s > 0 && index_type == RDX_U32 &&
            (uint64_t)(offsets[s] - offsets[s - 1]) > (uint64_t)UINT32_MAX + 1)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: segment %zu holds %zu keys, too many for RDX_U32 indices "
                            "(at most 2^32)", fn, s - 1, offsets[s] - offsets[s - 1]);
    }
    return RDX_OK;
}

/* Checks the segment arguments of a prepared job and fills its segment fields. */
static rdx_status check_segments(rdx_ctx *ctx, const char *fn, const size_t *offsets,
                                 size_t num_segments, rdx_job *job)
{
    const size_t n = job->n;
    const int u32 = job->kind == RDX_JOB_ARGSORT && job->index_type == RDX_U32 ? RDX_U32 : 0;
    job->segmented = 1;
    job->num_segments = num_segments;
    if (!offsets) {
        if (num_segments == 0 && n > 0)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: offsets is NULL and num_segments is 0, but n = %zu", fn, n);
        if (num_segments > 0 && n % num_segments != 0)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: n = %zu is not a multiple of num_segments = %zu (offsets is NULL: "
                            "equal rows)", fn, n, num_segments);
        job->segment_size = num_segments ? n / num_segments : 0;
        if (u32 && (uint64_t)job->segment_size > (uint64_t)UINT32_MAX + 1)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: rows of %zu keys are too long for RDX_U32 indices (at most 2^32)",
                            fn, job->segment_size);
        return RDX_OK;
    }
    if (num_segments == SIZE_MAX)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                        "%s: num_segments = %zu leaves no room for num_segments + 1 offsets", fn,
                        num_segments);
    job->offsets = offsets;
    if (rdx_cuda_is_device_pointer(offsets)) {
        if (ctx->backend == RDX_BACKEND_CPU)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                            "%s: offsets is device memory, which the CPU backend cannot read", fn);
        job->offsets_on_device = 1; /* the CUDA backend reads them back and checks them */
        return RDX_OK;
    }
    return rdx_check_offsets(ctx, fn, offsets, num_segments, n, u32);
}

static rdx_status segmented_entry(rdx_ctx *ctx, const char *fn, rdx_job_kind kind,
                                  const void *keys, void *values, size_t value_size,
                                  void *indices, rdx_type index_type, size_t n, rdx_type type,
                                  const size_t *offsets, size_t num_segments,
                                  const rdx_opts *opts)
{
    if (!ctx)
        return RDX_ERR_INVALID_ARGUMENT;
    rdx_job job;
    rdx_status s = prepare(ctx, fn, kind, keys, values, value_size, indices, index_type, n, type,
                           opts, 1, &job);
    if (s == RDX_OK)
        s = check_host_arrays(ctx, fn, keys, values, indices);
    if (s == RDX_OK)
        s = check_segments(ctx, fn, offsets, num_segments, &job);
    if (s != RDX_OK || n == 0 || num_segments == 0)
        return s;
    return ctx->backend == RDX_BACKEND_CUDA ? rdx_cuda_segmented_sort(ctx, &job)
                                            : rdx_cpu_segmented_sort(ctx, &job);
}

rdx_status rdx_segmented_sort_keys(rdx_ctx *ctx, void *keys, size_t n, rdx_type type,
                                   const size_t *offsets, size_t num_segments,
                                   const rdx_opts *opts)
{
    return segmented_entry(ctx, "rdx_segmented_sort_keys", RDX_JOB_KEYS, keys, NULL, 0, NULL,
                           RDX_U32, n, type, offsets, num_segments, opts);
}

rdx_status rdx_segmented_sort_pairs(rdx_ctx *ctx, void *keys, void *values, size_t value_size,
                                    size_t n, rdx_type type, const size_t *offsets,
                                    size_t num_segments, const rdx_opts *opts)
{
    return segmented_entry(ctx, "rdx_segmented_sort_pairs", RDX_JOB_PAIRS, keys, values,
                           value_size, NULL, RDX_U32, n, type, offsets, num_segments, opts);
}

rdx_status rdx_segmented_argsort(rdx_ctx *ctx, const void *keys, size_t n, rdx_type type,
                                 const size_t *offsets, size_t num_segments, void *indices,
                                 rdx_type index_type, const rdx_opts *opts)
{
    return segmented_entry(ctx, "rdx_segmented_argsort", RDX_JOB_ARGSORT, keys, NULL, 0, indices,
                           index_type, n, type, offsets, num_segments, opts);
}
