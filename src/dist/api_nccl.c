/* The public distributed sort (rdx_dist.h) on NCCL communicators and device memory:
 * argument checks, the temporary storage's layout, then core.c's algorithm with the
 * CUDA engine and the NCCL communicator. */
#include <stdint.h>
#include <string.h>

#include "rdx_dist.h"
#include "rdx_cuda.h"
#include "dist/dist_cuda.h"

rdx_status rdx_dist_unique_id(void *id, size_t id_bytes)
{
    if (!id || id_bytes < RDX_DIST_UNIQUE_ID_BYTES || sizeof(ncclUniqueId) != RDX_DIST_UNIQUE_ID_BYTES)
        return RDX_ERR_INVALID_ARGUMENT;
    if (!rdx_nccl())
        return RDX_ERR_UNSUPPORTED; /* rdx_nccl_why() says why */
    ncclUniqueId u;
    if (rdx_nccl()->GetUniqueId(&u) != ncclSuccess)
        return RDX_ERR_DEVICE;
    memcpy(id, &u, sizeof u);
    return RDX_OK;
}

rdx_status rdx_dist_comm_init_rank(struct ncclComm **comm, int nranks, const void *id, size_t id_bytes, int rank)
{
    if (!comm)
        return RDX_ERR_INVALID_ARGUMENT;
    *comm = NULL;
    if (!id || id_bytes < RDX_DIST_UNIQUE_ID_BYTES || nranks < 1 || rank < 0 || rank >= nranks)
        return RDX_ERR_INVALID_ARGUMENT;
    if (!rdx_nccl())
        return RDX_ERR_UNSUPPORTED;
    ncclUniqueId u;
    memcpy(&u, id, sizeof u);
    ncclComm_t c = NULL;
    if (rdx_nccl()->CommInitRank(&c, nranks, u, rank) != ncclSuccess)
        return RDX_ERR_DEVICE;
    *comm = c;
    return RDX_OK;
}

rdx_status rdx_dist_comm_destroy(struct ncclComm *comm)
{
    if (!comm)
        return RDX_OK;
    if (!rdx_nccl()) /* no communicator can have been made */
        return RDX_ERR_INVALID_ARGUMENT;
    return rdx_nccl()->CommDestroy(comm) == ncclSuccess ? RDX_OK : RDX_ERR_DEVICE;
}

/* Device (or managed) memory that kernels can read. */
static int device_memory(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

/* The local sort's temporary storage for a part of at most out_capacity keys. The part's
 * size is only known during the call, and the single-GPU sort's scratch is not monotone
 * in n (its routes differ by size), so this is the largest need over cap, cap/2, cap/4,
 * ... (engine_cuda.cu checks the actual part's need again before sorting). */
static rdx_status sort_temp(rdx_ctx *ctx, size_t value_size, size_t cap, rdx_type type, const rdx_opts *opts,
                            size_t *bytes)
{
    *bytes = 0;
    for (size_t x = cap; x > 0; x /= 2) {
        size_t b = 0;
        rdx_status s = value_size ? rdx_cuda_sort_pairs_temp_size(ctx, value_size, x, type, opts, &b)
                                  : rdx_cuda_sort_keys_temp_size(ctx, x, type, opts, &b);
        if (s != RDX_OK)
            return s;
        if (b > *bytes)
            *bytes = b;
    }
    return RDX_OK;
}

static rdx_status temp_size(rdx_ctx *ctx, const char *fn, int nranks, size_t value_size, size_t n_local,
                            size_t cap, rdx_type type, const rdx_opts *opts, size_t *temp_bytes)
{
    if (!ctx)
        return RDX_ERR_INVALID_ARGUMENT;
    ctx->error[0] = '\0';
    if (ctx->backend != RDX_BACKEND_CUDA || ctx->multi)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: ctx is not a context of the CUDA backend", fn);
    if (!temp_bytes)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: temp_bytes is NULL", fn);
    if (nranks < 1)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: nranks = %d is below 1", fn, nranks);
    rdx_dist_job job;
    rdx_status s = rdx_dist_prepare(ctx, fn, type, opts, &job);
    size_t sb = 0;
    if (s == RDX_OK)
        s = sort_temp(ctx, value_size, cap, type, opts, &sb);
    if (s != RDX_OK)
        return s;
    rdx_dist_layout l;
    rdx_dist_cuda_layout(nranks, n_local, job.key_size, value_size, sb, &l);
    *temp_bytes = l.total;
    return RDX_OK;
}

rdx_status rdx_dist_sort_keys_temp_size(rdx_ctx *ctx, int nranks, size_t n_local, size_t out_capacity,
                                        rdx_type type, const rdx_opts *opts, size_t *temp_bytes)
{
    return temp_size(ctx, "rdx_dist_sort_keys_temp_size", nranks, 0, n_local, out_capacity, type, opts,
                     temp_bytes);
}

rdx_status rdx_dist_sort_pairs_temp_size(rdx_ctx *ctx, int nranks, size_t value_size, size_t n_local,
                                         size_t out_capacity, rdx_type type, const rdx_opts *opts,
                                         size_t *temp_bytes)
{
    if (ctx && value_size == 0) {
        ctx->error[0] = '\0';
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "rdx_dist_sort_pairs_temp_size: value_size is 0");
    }
    return temp_size(ctx, "rdx_dist_sort_pairs_temp_size", nranks, value_size, n_local, out_capacity, type,
                     opts, temp_bytes);
}

/* Checks one array: present when it holds anything, in device memory. */
static rdx_status check_array(rdx_ctx *ctx, const char *fn, const char *name, const void *p, size_t count)
{
    if (count == 0)
        return RDX_OK;
    if (!p)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: %s is NULL but holds %zu elements", fn, name, count);
    if (!device_memory(p))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: %s is not device memory", fn, name);
    return RDX_OK;
}

static rdx_status dist_sort(rdx_ctx *ctx, const char *fn, struct ncclComm *comm, const void *keys,
                            const void *values, size_t vs, size_t n, void *out_keys, void *out_values, size_t cap,
                            size_t *n_out, rdx_type type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                            cudaStream_t stream)
{
    if (!ctx)
        return RDX_ERR_INVALID_ARGUMENT;
    ctx->error[0] = '\0';
    if (ctx->backend != RDX_BACKEND_CUDA || ctx->multi)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: ctx is not a context of the CUDA backend", fn);
    if (!comm)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: comm is NULL", fn);
    if (!n_out)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: n_out is NULL", fn);
    rdx_dist_job job;
    rdx_status s = rdx_dist_prepare(ctx, fn, type, opts, &job);
    if (s != RDX_OK)
        return s;
    const size_t ks = job.key_size;
    if (values && vs == 0)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: value_size is 0", fn);
    if ((s = check_array(ctx, fn, "d_keys", keys, n)) != RDX_OK ||
        (s = check_array(ctx, fn, "d_keys_out", out_keys, cap)) != RDX_OK)
        return s;
    if (vs && ((s = check_array(ctx, fn, "d_values", values, n)) != RDX_OK ||
               (s = check_array(ctx, fn, "d_values_out", out_values, cap)) != RDX_OK))
        return s;
    if (rdx_ranges_overlap(keys, n * ks, out_keys, cap * ks) ||
        (vs && (rdx_ranges_overlap(values, n * vs, out_values, cap * vs) ||
                rdx_ranges_overlap(out_keys, cap * ks, out_values, cap * vs) ||
                rdx_ranges_overlap(keys, n * ks, out_values, cap * vs) ||
                rdx_ranges_overlap(values, n * vs, out_keys, cap * ks))))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: the input and output arrays overlap", fn);
    if (!rdx_nccl())
        return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "%s: %s", fn, rdx_nccl_why());
    int P = 0;
    if (rdx_nccl()->CommCount(comm, &P) != ncclSuccess || P < 1)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: comm is no NCCL communicator NCCL can read", fn);
    size_t sb = 0;
    if ((s = sort_temp(ctx, vs, cap, type, opts, &sb)) != RDX_OK)
        return s;
    rdx_dist_layout l;
    rdx_dist_cuda_layout(P, n, ks, vs, sb, &l);
    if (temp_bytes < l.total)
        return rdx_fail(ctx, RDX_ERR_TEMP_TOO_SMALL, "%s: temp_bytes = %zu, the sort needs %zu", fn, temp_bytes,
                        l.total);
    if (!d_temp || ((uintptr_t)d_temp & 255) || !device_memory(d_temp))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_temp is NULL, not device memory or not "
                        "256-byte aligned (cudaMalloc's alignment)", fn);
    if (rdx_ranges_overlap(d_temp, l.total, keys, n * ks) || rdx_ranges_overlap(d_temp, l.total, out_keys, cap * ks) ||
        (vs && (rdx_ranges_overlap(d_temp, l.total, values, n * vs) ||
                rdx_ranges_overlap(d_temp, l.total, out_values, cap * vs))))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: d_temp overlaps an array", fn);

    unsigned char *t = (unsigned char *)d_temp;
    job.keys = keys;
    job.values = vs ? values : NULL;
    job.value_size = vs;
    job.n = n;
    job.out_keys = out_keys;
    job.out_values = vs ? out_values : NULL;
    job.capacity = cap;
    job.send_keys = t + l.send_keys_off;
    job.send_values = vs ? t + l.send_values_off : NULL;
    rdx_dist_cuda_engine_state es = {stream, P, (uint64_t *)(t + l.words_off), (uint64_t *)(t + l.tiles_off),
                                     l.words, l.ntiles, t + l.sort_off, l.sort_bytes,
                                     (uint64_t *)(t + l.view_off), l.view_cap, 0, 0};
    rdx_dist_nccl_state ns = {comm, stream, (uint64_t *)(t + l.words_off), l.words, ctx};
    rdx_dist_engine eng;
    rdx_dist_comm c;
    rdx_dist_cuda_engine(ctx, &es, &eng);
    if ((s = rdx_dist_nccl_comm(&ns, &c)) != RDX_OK)
        return s;
    const int timing = ctx->dist_times && ctx->dist_times->on;
    rdx_dist_result res;
    s = rdx_dist_run(&c, &eng, &job, timing, &res);
    if (ctx->dist_times)
        memcpy(ctx->dist_times->ms, res.ms, sizeof res.ms);
    *n_out = s == RDX_OK ? res.n_out : 0;
    return s;
}

rdx_status rdx_dist_sort_keys(rdx_ctx *ctx, struct ncclComm *comm, const void *d_keys, size_t n_local,
                              void *d_keys_out, size_t out_capacity, size_t *n_out, rdx_type type,
                              const rdx_opts *opts, void *d_temp, size_t temp_bytes, struct CUstream_st *stream)
{
    return dist_sort(ctx, "rdx_dist_sort_keys", comm, d_keys, NULL, 0, n_local, d_keys_out, NULL, out_capacity,
                     n_out, type, opts, d_temp, temp_bytes, stream);
}

rdx_status rdx_dist_sort_pairs(rdx_ctx *ctx, struct ncclComm *comm, const void *d_keys, const void *d_values,
                               size_t value_size, size_t n_local, void *d_keys_out, void *d_values_out,
                               size_t out_capacity, size_t *n_out, rdx_type type, const rdx_opts *opts,
                               void *d_temp, size_t temp_bytes, struct CUstream_st *stream)
{
    if (ctx && value_size == 0) {
        ctx->error[0] = '\0';
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "rdx_dist_sort_pairs: value_size is 0");
    }
    return dist_sort(ctx, "rdx_dist_sort_pairs", comm, d_keys, d_values, value_size, n_local, d_keys_out,
                     d_values_out, out_capacity, n_out, type, opts, d_temp, temp_bytes, stream);
}
