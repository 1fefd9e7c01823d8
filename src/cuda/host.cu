/* The synchronous CUDA backend behind rdx_sort_keys/rdx_sort_pairs/rdx_argsort: arrays
 * in device memory are sorted in place, host arrays are copied in through pinned staging
 * buffers, sorted, and copied back. Scratch memory lives in the context and grows as
 * needed; everything is allocated before the first write to a caller's array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.cuh"
#include "device.h"
#include "host_copy.h"
#include "kernels.h"
#include "lowmem.h"
#include "outcore.h"
#include "plan.h"
#include "segmented.h"
#include "route.h"
#include "state.h"

void rdx_cuda_release(rdx_ctx *ctx)
{
    if (!ctx || !ctx->cuda)
        return;
    struct rdx_cuda_state *st = ctx->cuda;
    if (st->stream)
        (void)cudaStreamSynchronize(st->stream);
    if (st->scratch)
        (void)cudaFree(st->scratch);
    for (int i = 0; i < 2; ++i) {
        if (st->staging[i])
            (void)cudaFreeHost(st->staging[i]);
        if (st->staged[i])
            (void)cudaEventDestroy(st->staged[i]);
    }
    if (st->stream)
        (void)cudaStreamDestroy(st->stream);
    (void)cudaGetLastError();
    rdx_host_free(st);
    ctx->cuda = NULL;
}

rdx_status rdx_cuda_ctx_init(rdx_ctx *ctx)
{
    struct rdx_cuda_state *st = (struct rdx_cuda_state *)rdx_host_calloc(ctx, 1, sizeof *st);
    if (!st)
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "CUDA backend: no host memory for the context state");
    rdx_cuda_tuning_defaults(&st->tuning);
    ctx->cuda = st;
    rdx_cuda_tuning *t = NULL;
    const rdx_status s = rdx_cuda_tuning_ready(ctx, &t);
    if (s != RDX_OK)
        rdx_cuda_release(ctx);
    return s;
}

/* The context's state with its stream and events, created on first use. */
static rdx_status get_state(rdx_ctx *ctx, struct rdx_cuda_state **out)
{
    struct rdx_cuda_state *st = ctx->cuda;
    if (!st)
        return rdx_fail(ctx, RDX_ERR_DEVICE, "CUDA backend: the context has no CUDA state");
    if (!st->stream) {
        /* A blocking stream: ordered after work the caller put on the legacy default stream.
         * Failure points of the injection test (the first sort of each fresh context). */
        cudaError_t e = RDX_CUDA_CALL(ctx, cudaStreamCreate(&st->stream));
        for (int i = 0; i < 2 && e == cudaSuccess; ++i)
            e = RDX_CUDA_CALL(ctx, cudaEventCreateWithFlags(&st->staged[i], cudaEventDisableTiming));
        if (e != cudaSuccess) {
            for (int i = 0; i < 2; ++i) {
                if (st->staged[i])
                    (void)cudaEventDestroy(st->staged[i]);
                st->staged[i] = NULL;
            }
            if (st->stream)
                (void)cudaStreamDestroy(st->stream);
            st->stream = NULL;
            return rdx_cuda_fail(ctx, e, "creating the context's stream and events", __FILE__, __LINE__);
        }
    }
    *out = st;
    return RDX_OK;
}

static rdx_status ensure_scratch(rdx_ctx *ctx, struct rdx_cuda_state *st, size_t bytes)
{
    if (st->tuning.scratch_cap && bytes > st->tuning.scratch_cap) /* a test's cap (tuning_ctx.h) */
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                        "CUDA backend: cannot allocate %zu bytes of device scratch memory: above the test cap of "
                        "%zu bytes",
                        bytes, st->tuning.scratch_cap);
    if (st->scratch_bytes >= bytes)
        return RDX_OK;
    /* More than the whole GPU holds: say so without asking the driver (a failed cudaMalloc
     * also counts as an API error under compute-sanitizer). */
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess && bytes > total_bytes)
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                        "CUDA backend: the sort needs %zu bytes of device scratch memory, more than the %zu "
                        "bytes of the GPU",
                        bytes, total_bytes);
    (void)cudaGetLastError();
    if (st->scratch) {
        RDX_CUDA_TRY(cudaStreamSynchronize(st->stream));
        RDX_CUDA_TRY(cudaFree(st->scratch));
        st->scratch = NULL;
        st->scratch_bytes = 0;
    }
    const cudaError_t e = RDX_CUDA_ALLOC(ctx, cudaMalloc(&st->scratch, bytes));
    if (e != cudaSuccess) {
        st->scratch = NULL;
        (void)cudaGetLastError();
        return rdx_fail(ctx, e == cudaErrorMemoryAllocation ? RDX_ERR_OUT_OF_MEMORY : RDX_ERR_DEVICE,
                        "CUDA backend: cannot allocate %zu bytes of device scratch memory: %s", bytes,
                        cudaGetErrorString(e));
    }
    st->scratch_bytes = bytes;
    return RDX_OK;
}

rdx_status rdx_cuda_context_scratch(rdx_ctx *ctx, size_t bytes, void **scratch, cudaStream_t *stream)
{
    struct rdx_cuda_state *st = NULL;
    rdx_status s = get_state(ctx, &st);
    if (s == RDX_OK)
        s = ensure_scratch(ctx, st, bytes);
    if (s != RDX_OK)
        return s;
    *scratch = st->scratch;
    *stream = st->stream;
    return RDX_OK;
}

static rdx_status ensure_staging(rdx_ctx *ctx, struct rdx_cuda_state *st)
{
    for (int i = 0; i < 2; ++i) {
        if (st->staging[i])
            continue;
        const cudaError_t e = RDX_CUDA_ALLOC(ctx, cudaMallocHost(&st->staging[i], RDX_STAGING_BYTES));
        if (e != cudaSuccess) {
            st->staging[i] = NULL;
            (void)cudaGetLastError();
            return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "CUDA backend: cannot allocate %zu bytes of pinned memory: %s",
                            (size_t)RDX_STAGING_BYTES, cudaGetErrorString(e));
        }
    }
    return RDX_OK;
}

/* Where a caller's array lives. A device array that is not aligned to its element size
 * cannot be read by the kernels in place; it is copied like a host array, device to
 * device. */
enum { PLACE_HOST = 0, PLACE_DEVICE = 1, PLACE_DEVICE_COPY = 2 };

static int place_of(const void *p, size_t align)
{
    if (!rdx_cuda_is_device_pointer(p))
        return PLACE_HOST;
    return (uintptr_t)p % align == 0 ? PLACE_DEVICE : PLACE_DEVICE_COPY;
}

/* Host -> device through the staging buffers, in chunks (two chunks in flight). */
static rdx_status upload(rdx_ctx *ctx, struct rdx_cuda_state *st, void *dst, const void *src, size_t bytes,
                         int place)
{
    if (place == PLACE_DEVICE_COPY) {
        RDX_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st->stream));
        return RDX_OK;
    }
    int b = 0;
    for (size_t off = 0; off < bytes; off += RDX_STAGING_BYTES, b ^= 1) {
        const size_t c = bytes - off < RDX_STAGING_BYTES ? bytes - off : RDX_STAGING_BYTES;
        RDX_CUDA_TRY(cudaEventSynchronize(st->staged[b])); /* its previous copy is done */
        rdx_host_copy(st->staging[b], (const unsigned char *)src + off, c);
        RDX_CUDA_TRY(cudaMemcpyAsync((unsigned char *)dst + off, st->staging[b], c, cudaMemcpyHostToDevice,
                                     st->stream));
        RDX_CUDA_TRY(cudaEventRecord(st->staged[b], st->stream));
    }
    return RDX_OK;
}

/* Device -> host through the staging buffers; the next chunk's copy runs while the host
 * copies the current one out. */
static rdx_status download(rdx_ctx *ctx, struct rdx_cuda_state *st, void *dst, const void *src, size_t bytes,
                           int place)
{
    rdx_inject_first_write(ctx);
    if (place == PLACE_DEVICE_COPY) {
        RDX_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st->stream));
        return RDX_OK;
    }
    if (bytes == 0)
        return RDX_OK;
    const size_t chunks = (bytes + RDX_STAGING_BYTES - 1) / RDX_STAGING_BYTES;
    for (size_t i = 0; i <= chunks; ++i) {
        if (i < chunks) { /* start chunk i */
            const size_t off = i * RDX_STAGING_BYTES;
            const size_t c = bytes - off < RDX_STAGING_BYTES ? bytes - off : RDX_STAGING_BYTES;
            RDX_CUDA_TRY(cudaMemcpyAsync(st->staging[i % 2], (const unsigned char *)src + off, c,
                                         cudaMemcpyDeviceToHost, st->stream));
            RDX_CUDA_TRY(cudaEventRecord(st->staged[i % 2], st->stream));
        }
        if (i > 0) { /* finish chunk i - 1 */
            const size_t off = (i - 1) * RDX_STAGING_BYTES;
            const size_t c = bytes - off < RDX_STAGING_BYTES ? bytes - off : RDX_STAGING_BYTES;
            RDX_CUDA_TRY(cudaEventSynchronize(st->staged[(i - 1) % 2]));
            rdx_host_copy((unsigned char *)dst + off, st->staging[(i - 1) % 2], c);
        }
    }
    return RDX_OK;
}

/* Scratch of *bytes or, when that cannot be allocated, of what the device has free less
 * RDX_LM_FREE_MARGIN_BYTES (under the test cap) if that is at least `least`: *bytes is
 * what was taken. The context's own scratch counts as free: ensure_scratch gives it back
 * before it allocates. */
static rdx_status scratch_or_what_is_free(rdx_ctx *ctx, struct rdx_cuda_state *st, size_t *bytes, size_t least)
{
    rdx_status s = ensure_scratch(ctx, st, *bytes);
    size_t free_b = 0, total_b = 0;
    if (s == RDX_ERR_OUT_OF_MEMORY && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
        const size_t have = free_b + st->scratch_bytes;
        if (have > RDX_LM_FREE_MARGIN_BYTES && have - RDX_LM_FREE_MARGIN_BYTES < *bytes &&
            have - RDX_LM_FREE_MARGIN_BYTES >= least) {
            *bytes = have - RDX_LM_FREE_MARGIN_BYTES;
            if (st->tuning.scratch_cap && *bytes > st->tuning.scratch_cap)
                *bytes = st->tuning.scratch_cap;
            ctx->error[0] = '\0';
            s = ensure_scratch(ctx, st, *bytes);
        }
    }
    (void)cudaGetLastError();
    return s;
}

static rdx_status sort_low_memory(rdx_ctx *ctx, struct rdx_cuda_state *st, const rdx_cuda_tuning *tuning,
                                  const rdx_job *job)
{
    size_t free_b = 0, total_b = 0;
    const size_t arrays = job->n * rdx_cuda_lowmem_record_bytes(job);
    /* Device arrays larger than the device cannot be: n is wrong, and nothing is read. */
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess && arrays > total_b)
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                        "CUDA backend: %zu bytes of arrays are more than the %zu bytes of the GPU", arrays, total_b);
    (void)cudaGetLastError();
    size_t bytes = rdx_cuda_lowmem_temp_bytes(tuning, job);
    /* Less than the preferred size works too (shorter runs of buckets, more levels): arrays
     * of 90% of the device leave less than 1/8 of them free. At least half of it, though
     * (an n far beyond the device fails); none less than a test's own size. */
    rdx_status s = scratch_or_what_is_free(ctx, st, &bytes, tuning->lowmem_bytes ? (size_t)-1 : bytes / 2);
    if (s == RDX_OK)
        s = rdx_cuda_lowmem_sort(ctx, job, tuning, st->scratch, bytes, st->stream);
    if (s != RDX_OK) {
        (void)cudaStreamSynchronize(st->stream);
        (void)cudaGetLastError();
        return s;
    }
    RDX_CUDA_TRY(cudaStreamSynchronize(st->stream));
    snprintf(ctx->route, sizeof ctx->route, "low-memory");
    return RDX_OK;
}

/* Host arrays through the out-of-core route: with the device memory that holds them at
 * once if it can be had (or the test cap), else with what the device has free. */
static rdx_status sort_out_of_core(rdx_ctx *ctx, struct rdx_cuda_state *st, const rdx_cuda_tuning *tuning,
                                   const rdx_job *job)
{
    size_t bytes = rdx_cuda_outcore_full_bytes(job);
    if (tuning->scratch_cap && bytes > tuning->scratch_cap)
        bytes = tuning->scratch_cap;
    rdx_status s = scratch_or_what_is_free(ctx, st, &bytes, 0);
    if (s == RDX_OK)
        s = rdx_cuda_outcore_sort(ctx, job, tuning, st->scratch, bytes, st->stream);
    if (s == RDX_OK)
        snprintf(ctx->route, sizeof ctx->route, "out-of-core");
    return s;
}

rdx_status rdx_cuda_sort(rdx_ctx *ctx, const rdx_job *job)
{
    struct rdx_cuda_state *st = NULL;
    rdx_cuda_tuning *tuning = NULL;
    rdx_status s = get_state(ctx, &st);
    if (s == RDX_OK)
        s = rdx_cuda_tuning_ready(ctx, &tuning);
    if (s != RDX_OK)
        return s;

    const int pairs = job->kind == RDX_JOB_PAIRS, argsort = job->kind == RDX_JOB_ARGSORT;
    const size_t index_size = argsort ? rdx_type_bytes(job->index_type) : 0;
    /* Values of other sizes are gathered, which works at any alignment. */
    const size_t value_align = pairs && (job->value_size == 4 || job->value_size == 8) ? job->value_size : 1;
    const int keys_at = place_of(job->keys, job->key_size);
    const int vals_at = pairs ? place_of(job->values, value_align) : PLACE_DEVICE;
    const int idx_at = argsort ? place_of(job->indices, index_size) : PLACE_DEVICE;

    /* Device arrays take the low-memory route, host arrays the out-of-core route, when
     * asked to or when the normal route's scratch cannot be had. Everything is allocated
     * before anything is written. */
    const int low_memory_ok = keys_at == PLACE_DEVICE && vals_at == PLACE_DEVICE && idx_at == PLACE_DEVICE &&
                              rdx_cuda_lowmem_takes(job);
    const int out_of_core_ok = keys_at == PLACE_HOST && (!pairs || vals_at == PLACE_HOST) &&
                               rdx_cuda_outcore_takes(job);
    if (low_memory_ok && job->low_memory)
        return sort_low_memory(ctx, st, tuning, job);
    if (out_of_core_ok && job->low_memory)
        return sort_out_of_core(ctx, st, tuning, job);
    if (job->numpy_order && rdx_cuda_numpy_special_keys(job) == 0) {
        /* No NaN but the canonical one and no -0.0 (the usual data): NumPy's order is
         * totalOrder, which every route (the MSD route among them) sorts by. */
        rdx_job plain = *job;
        plain.numpy_order = 0;
        return rdx_cuda_sort(ctx, &plain);
    }
    if (job->numpy_order && !rdx_cuda_numpy_lsd(tuning, job)) {
        /* by composition (segmented.cu), which allocates its own copies; else the LSD passes
         * order by the canonical codes */
        s = rdx_cuda_numpy_sort(ctx, job);
        if (s == RDX_ERR_OUT_OF_MEMORY && low_memory_ok) {
            ctx->error[0] = '\0';
            return sort_low_memory(ctx, st, tuning, job);
        }
        return s;
    }
    rdx_cuda_plan plan;
    rdx_cuda_tuning plan_tuning = *tuning;
    if (job->numpy_order) {
        /* A key special in NumPy's order is there (found above): the MSD route, which
         * sorts by the plain images, would find it again and fall back. */
        plan_tuning.msd_min_n = plan_tuning.msd4_min_n = SIZE_MAX;
    }
    rdx_cuda_plan_job(&plan_tuning, job, keys_at == PLACE_DEVICE, vals_at == PLACE_DEVICE, idx_at == PLACE_DEVICE, &plan);
    s = ensure_scratch(ctx, st, plan.temp_bytes);
    if (s == RDX_ERR_OUT_OF_MEMORY && (low_memory_ok || out_of_core_ok)) {
        ctx->error[0] = '\0';
        return low_memory_ok ? sort_low_memory(ctx, st, tuning, job) : sort_out_of_core(ctx, st, tuning, job);
    }
    if (s == RDX_OK && (keys_at == PLACE_HOST || vals_at == PLACE_HOST || idx_at == PLACE_HOST))
        s = ensure_staging(ctx, st);
    if (s != RDX_OK)
        return s;

    unsigned char *t = rdx_cuda_temp_base(st->scratch);
    const size_t n = job->n;
    const size_t key_bytes = n * job->key_size;
    const size_t val_bytes = pairs ? n * job->value_size : 0;
    if (keys_at != PLACE_DEVICE)
        s = upload(ctx, st, t + plan.keys_a, job->keys, key_bytes, keys_at);
    if (s == RDX_OK && vals_at != PLACE_DEVICE)
        s = upload(ctx, st, t + (plan.gather_size ? plan.gsrc : plan.vals_a), job->values, val_bytes, vals_at);
    if (s == RDX_OK)
        s = rdx_cuda_enqueue(ctx, &plan, job, st->scratch, tuning->sms, 1, st->stream);
    if (s == RDX_OK && keys_at != PLACE_DEVICE && !argsort)
        s = download(ctx, st, job->keys, t + plan.keys_a, key_bytes, keys_at);
    if (s == RDX_OK && vals_at != PLACE_DEVICE)
        s = download(ctx, st, job->values, t + (plan.gather_size ? plan.gdst : plan.vals_a), val_bytes, vals_at);
    if (s == RDX_OK && idx_at != PLACE_DEVICE)
        s = download(ctx, st, job->indices, t + plan.vals_a, n * index_size, idx_at);
    if (s != RDX_OK) {
        (void)cudaStreamSynchronize(st->stream);
        (void)cudaGetLastError();
        return s;
    }
    RDX_CUDA_TRY(cudaStreamSynchronize(st->stream));
    /* The route report: the MSD route's outcome was decided on the device. */
    const char *route = rdx_cuda_plan_route_name(&plan);
    if (plan.msd) {
        uint32_t state = 0;
        /* The sort is done: a failed read of the outcome (a report, not part of the sort;
         * no failure point of the injection test) is not its failure. */
        if (cudaMemcpy(&state, st->msd_ctrl + RDX_MSD_STATE, sizeof state, cudaMemcpyDeviceToHost) == cudaSuccess) {
            route = rdx_cuda_msd_outcome(state);
        } else {
            route = "msd (outcome not read back)";
            (void)cudaGetLastError();
        }
    }
    snprintf(ctx->route, sizeof ctx->route, "%s", route);
    return RDX_OK;
}
