/* RDX_NUMPY_ORDER for a whole array on the CPU backend, by composition: a canonical copy
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

rdx_status rdx_cpu_numpy_sort(rdx_ctx *ctx, const rdx_job *job)
{
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
