/* RDX_NUMPY_ORDER for a whole array on the CPU backend.
 *
 * Keys alone on their full bit range: the ordinary sort, then a fix-up. TotalOrder and
 * NumPy's order differ only where NumPy has ties between different patterns: the NaNs
 * (totalOrder puts the negative ones first and orders them by payload) and the two
 * zeros (totalOrder puts -0.0 before +0.0). One read before the sort saves the NaNs and
 * the zeros in input order and counts the numbers below and above zero; after it, the
 * numbers slide over the NaNs' places and the saved zeros and NaNs are written back as
 * their blocks. Measured (one thread, 2^22 f32): 46 ms totalOrder, 166 ms by the
 * composition below, 63 ms with the fix-up.
 *
 * Everything else by composition: a canonical copy
 * of the keys (every NaN becomes the smallest positive NaN pattern, -0.0 becomes +0.0:
 * key_codec.h's canonical code, decoded) is argsorted by the ordinary sort, whose
 * totalOrder is then NumPy's order with its ties kept in input order; the caller's keys
 * and values are gathered by that permutation, so their bits are never changed.
 * Every buffer is taken before the first write to a caller's array. */
#include <omp.h>

#include "cpu.h"
#include "tuning.h"

/* Parallel loops over n elements use this many threads. */
static int threads_for(size_t n)
{
    const size_t most = n / RDX_CPU_MIN_KEYS_PER_THREAD;
    const int t = omp_get_max_threads();
    return (size_t)t > most ? (most > 0 ? (int)most : 1) : t;
}

/* Keys alone, full bit range: the sort and the fix-up described above. */
static rdx_status numpy_keys(rdx_ctx *ctx, const rdx_job *job)
{
    const size_t n = job->n, kb = job->key_size;
    const unsigned k = (unsigned)kb;
    const uint64_t inf = rdx_float_inf_bits(job->type);
    const uint64_t sign = (uint64_t)1 << (8 * kb - 1);
    unsigned char *save = (unsigned char *)rdx_cpu_reserve(ctx, RDX_CPU_BUF_CANON, n, kb, "key");
    if (!save)
        return RDX_ERR_OUT_OF_MEMORY;
    /* NaNs forward from save[0], zeros backward from save[n - 1], both in input order. */
    unsigned char *keys = (unsigned char *)job->keys;
    size_t neg_nan = 0, pos_nan = 0, zeros = 0, below = 0, above = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = rdx_cpu_load_key(keys + i * kb, k), a = x & ~sign;
        if (a > inf) {
            rdx_cpu_store_key(save + (neg_nan + pos_nan) * kb, k, x);
            if (x & sign)
                neg_nan++;
            else
                pos_nan++;
        } else if (a == 0) {
            rdx_cpu_store_key(save + (n - 1 - zeros) * kb, k, x);
            zeros++;
        } else if (x & sign) {
            below++;
        } else {
            above++;
        }
    }
    rdx_job sub = *job;
    sub.numpy_order = 0;
    const rdx_status s = rdx_cpu_sort(ctx, &sub);
    if (s != RDX_OK)
        return s;
    const size_t nans = neg_nan + pos_nan;
    size_t zero_at, nan_at;
    if (!job->descending) { /* -NaN | below | -0 +0 | above | +NaN */
        memmove(keys, keys + neg_nan * kb, (n - nans) * kb);
        zero_at = below;
        nan_at = n - nans;
    } else {                /* +NaN | above | +0 -0 | below | -NaN */
        memmove(keys + nans * kb, keys + pos_nan * kb, (n - nans) * kb);
        zero_at = nans + above;
        nan_at = 0;
    }
    for (size_t j = 0; j < zeros; j++)
        memcpy(keys + (zero_at + j) * kb, save + (n - 1 - j) * kb, kb);
    memcpy(keys + nan_at * kb, save, nans * kb);
    return RDX_OK;
}

rdx_status rdx_cpu_numpy_sort(rdx_ctx *ctx, const rdx_job *job)
{
    if (job->kind == RDX_JOB_KEYS && job->begin_bit == 0 && job->end_bit == (int)job->key_size * 8)
        return numpy_keys(ctx, job);

    const size_t n = job->n, kb = job->key_size;
    const unsigned k = (unsigned)kb;
    const uint64_t inf = rdx_float_inf_bits(job->type);
    const int u32 = (uint64_t)n <= (uint64_t)UINT32_MAX + 1;
    const size_t pb = u32 ? 4 : 8;

    unsigned char *canon = (unsigned char *)rdx_cpu_reserve(ctx, RDX_CPU_BUF_CANON, n, kb, "key");
    if (!canon)
        return RDX_ERR_OUT_OF_MEMORY;
    unsigned char *perm = NULL, *orig = NULL;
    if (job->kind != RDX_JOB_ARGSORT) {
        perm = (unsigned char *)rdx_cpu_reserve(ctx, RDX_CPU_BUF_PERM, n, pb, "index");
        if (!perm)
            return RDX_ERR_OUT_OF_MEMORY;
    }
    if (job->kind == RDX_JOB_PAIRS) {
        orig = (unsigned char *)rdx_cpu_reserve(ctx, RDX_CPU_BUF_ORIG, n, job->value_size, "value");
        if (!orig)
            return RDX_ERR_OUT_OF_MEMORY;
    }

    const unsigned char *keys = (const unsigned char *)job->keys;
    const int nt = threads_for(n);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (size_t i = 0; i < n; i++) {
        const uint64_t c = rdx_numpy_canon(rdx_cpu_load_mapped(keys + i * kb, k, RDX_CLASS_FLOAT, 0),
                                           k, inf, 0);
        rdx_cpu_store_key(canon + i * kb, k, rdx_cpu_unmap(c, k, RDX_CLASS_FLOAT, 0));
    }

    rdx_job sub = *job;
    sub.kind = RDX_JOB_ARGSORT;
    sub.numpy_order = 0;
    sub.keys = canon;
    sub.values = NULL;
    sub.value_size = 0;
    if (job->kind != RDX_JOB_ARGSORT) {
        sub.indices = perm;
        sub.index_type = u32 ? RDX_U32 : RDX_U64;
    }
    rdx_status s = rdx_cpu_sort(ctx, &sub);
    if (s != RDX_OK || job->kind == RDX_JOB_ARGSORT)
        return s;

    /* The canonical copy is no longer needed: it becomes the copy of the keys. */
    unsigned char *dk = (unsigned char *)job->keys;
    memcpy(canon, dk, n * kb);
    if (orig)
        memcpy(orig, job->values, n * job->value_size);
#pragma omp parallel num_threads(nt)
    {
        size_t b, e;
        rdx_cpu_chunk(n, omp_get_num_threads(), omp_get_thread_num(), &b, &e);
        rdx_cpu_gather(canon, dk, kb, perm, (unsigned)pb, b, e);
        if (orig)
            rdx_cpu_gather(orig, job->values, job->value_size, perm, (unsigned)pb, b, e);
    }
    return RDX_OK;
}
