/* Tiny inputs (n < RDX_CPU_SMALL_N): a stable insertion sort of (sort key, position),
 * then the keys, values or indices are written in that order. */
#include "cpu.h"
#include "tuning.h"

rdx_status rdx_cpu_small_sort(rdx_ctx *ctx, const rdx_job *job)
{
    const size_t n = job->n;
    const unsigned kb = (unsigned)job->key_size;
    const int cls = (int)rdx_type_class(job->type);
    const int bits = job->end_bit - job->begin_bit;
    const uint64_t range = bits == 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    uint64_t key[RDX_CPU_SMALL_N];
    size_t perm[RDX_CPU_SMALL_N];
    unsigned char *vcopy = NULL;

    /* The only scratch, taken before anything is written. */
    if (job->kind == RDX_JOB_PAIRS) {
        vcopy = (unsigned char *)rdx_cpu_reserve(ctx, RDX_CPU_BUF_GATHER, n, job->value_size,
                                                 "values");
        if (!vcopy)
            return RDX_ERR_OUT_OF_MEMORY;
    }

    const unsigned char *keys = (const unsigned char *)job->keys;
    for (size_t i = 0; i < n; i++) {
        const uint64_t k = rdx_cpu_load_mapped(keys + i * kb, kb, cls, job->descending);
        key[i] = (k >> job->begin_bit) & range;
        perm[i] = i;
    }
    /* Strictly greater moves right, so equal keys keep their order. */
    for (size_t i = 1; i < n; i++) {
        const uint64_t k = key[i];
        const size_t p = perm[i];
        size_t j = i;
        for (; j > 0 && key[j - 1] > k; j--) {
            key[j] = key[j - 1];
            perm[j] = perm[j - 1];
        }
        key[j] = k;
        perm[j] = p;
    }

    if (job->kind == RDX_JOB_ARGSORT) {
        unsigned char *idx = (unsigned char *)job->indices;
        for (size_t i = 0; i < n; i++) {
            if (job->index_type == RDX_U32)
                rdx_st32(idx + i * 4, (uint32_t)perm[i]);
            else
                rdx_st64(idx + i * 8, (uint64_t)perm[i]);
        }
        return RDX_OK;
    }
    unsigned char kcopy[RDX_CPU_SMALL_N * 8];
    memcpy(kcopy, keys, n * kb);
    for (size_t i = 0; i < n; i++)
        memcpy((unsigned char *)job->keys + i * kb, kcopy + perm[i] * kb, kb);
    if (vcopy) {
        const size_t vs = job->value_size;
        memcpy(vcopy, job->values, n * vs);
        for (size_t i = 0; i < n; i++)
            memcpy((unsigned char *)job->values + i * vs, vcopy + perm[i] * vs, vs);
    }
    return RDX_OK;
}
