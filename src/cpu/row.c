/* One segment ("row") of a segmented sort, sorted by one thread in its own buffers:
 * the keys' codes (key_codec.h) are loaded once, sorted stably (ranks counted for short
 * rows, merge sort for medium ones, LSD radix for longer ones), and written back. Keys alone on their full bit range
 * sort their codes directly; otherwise the value ordered by (the code, canonicalised under
 * RDX_NUMPY_ORDER, cut to [begin_bit, end_bit)) is sorted with each key's position in the
 * row, and keys, values and indices are then placed by that position, so no key's bits
 * are ever changed. */
#include "cpu.h"
#include "row.h"
#include "tuning.h"

void rdx_cpu_rowjob_init(rdx_cpu_rowjob *rj, const rdx_job *job)
{
    memset(rj, 0, sizeof *rj);
    rj->kind = job->kind;
    rj->kb = (unsigned)job->key_size;
    rj->cls = (int)rdx_type_class(job->type);
    rj->desc = job->descending;
    rj->numpy = job->numpy_order;
    rj->inf = rdx_float_inf_bits(job->type);
    rj->begin_bit = job->begin_bit;
    const int width = job->end_bit - job->begin_bit;
    rj->range = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
    rj->codes_only = job->kind == RDX_JOB_KEYS && !job->numpy_order && job->begin_bit == 0 &&
                     job->end_bit == (int)job->key_size * 8;
    rj->value_size = job->value_size;
    rj->index_bytes = job->kind == RDX_JOB_ARGSORT && job->index_type == RDX_U32 ? 4 : 8;
    const int r = job->radix_bits ? job->radix_bits : RDX_CPU_DEFAULT_RADIX_BITS;
    rj->bins = 1 << r;
    rj->npasses = 0;
    for (int s = 0; s < width; s += r) {
        const int bits = width - s < r ? width - s : r;
        rj->shift[rj->npasses] = s;
        rj->mask[rj->npasses] = ((uint64_t)1 << bits) - 1;
        rj->npasses++;
    }
}

size_t rdx_cpu_row_bytes(const rdx_cpu_rowjob *rj, size_t max_len)
{
    const size_t m = max_len;
    size_t bytes = 2 * m * sizeof(uint64_t) + m * sizeof(uint64_t) + 2 * m * sizeof(uint32_t) +
                   (size_t)rj->npasses * (size_t)rj->bins * sizeof(size_t);
    if (rj->kind == RDX_JOB_PAIRS) {
        /* m * value_size fits (it is at most n * value_size); the sum might not. */
        const size_t v = m * rj->value_size;
        if (v > SIZE_MAX / 2 - bytes)
            return SIZE_MAX / 2;
        bytes += v;
    }
    return bytes + 4 * RDX_CPU_CACHE_LINE;
}

void rdx_cpu_rowbuf_init(rdx_cpu_rowbuf *b, const rdx_cpu_rowjob *rj, void *mem, size_t max_len)
{
    unsigned char *p = (unsigned char *)mem;
    const size_t m = max_len;
    b->sk[0] = (uint64_t *)p;
    b->sk[1] = b->sk[0] + m;
    b->code = b->sk[1] + m;
    b->hist = (size_t *)(b->code + m);
    b->idx[0] = (uint32_t *)(b->hist + (size_t)rj->npasses * (size_t)rj->bins);
    b->idx[1] = b->idx[0] + m;
    b->vcopy = (unsigned char *)(b->idx[1] + m);
}

/* The row's keys, values or indices written in the order perm gives (positions in the
 * row), from the row's codes and a copy of its values. */
static void rdx_cpu_place_row(const rdx_cpu_rowjob *rj, rdx_cpu_rowbuf *b, const uint32_t *perm,
                              unsigned char *keys, unsigned char *values, unsigned char *indices,
                              size_t m)
{
    const unsigned kb = rj->kb;
    if (rj->kind == RDX_JOB_ARGSORT) {
        if (rj->index_bytes == 4)
            for (size_t i = 0; i < m; i++)
                rdx_st32(indices + i * 4, perm[i]);
        else
            for (size_t i = 0; i < m; i++)
                rdx_st64(indices + i * 8, perm[i]);
        return;
    }
    for (size_t i = 0; i < m; i++)
        rdx_cpu_store_key(keys + i * kb, kb, rdx_cpu_unmap(b->code[perm[i]], kb, rj->cls, rj->desc));
    if (rj->kind == RDX_JOB_PAIRS) {
        const size_t vs = rj->value_size;
        memcpy(b->vcopy, values, m * vs);
        if (vs == 4)
            for (size_t i = 0; i < m; i++)
                rdx_st32(values + i * 4, rdx_ld32(b->vcopy + (size_t)perm[i] * 4));
        else if (vs == 8)
            for (size_t i = 0; i < m; i++)
                rdx_st64(values + i * 8, rdx_ld64(b->vcopy + (size_t)perm[i] * 8));
        else
            for (size_t i = 0; i < m; i++)
                memcpy(values + i * vs, b->vcopy + (size_t)perm[i] * vs, vs);
    }
}

#define T uint32_t
#define RDX_ROW_KB 1
#define RDX_ROW_SFX k1
#include "row_impl.h"
#undef RDX_ROW_KB
#undef RDX_ROW_SFX
#define RDX_ROW_KB 2
#define RDX_ROW_SFX k2
#include "row_impl.h"
#undef RDX_ROW_KB
#undef RDX_ROW_SFX
#define RDX_ROW_KB 4
#define RDX_ROW_SFX k4
#include "row_impl.h"
#undef RDX_ROW_KB
#undef RDX_ROW_SFX
#undef T
#define T uint64_t
#define RDX_ROW_KB 8
#define RDX_ROW_SFX k8
#include "row_impl.h"
#undef RDX_ROW_KB
#undef RDX_ROW_SFX
#undef T

void rdx_cpu_sort_row(const rdx_cpu_rowjob *rj, rdx_cpu_rowbuf *b, unsigned char *keys,
                      unsigned char *values, unsigned char *indices, size_t m)
{
    if (m <= 1) {
        if (m == 1 && rj->kind == RDX_JOB_ARGSORT) {
            if (rj->index_bytes == 4)
                rdx_st32(indices, 0);
            else
                rdx_st64(indices, 0);
        }
        return;
    }
    switch (rj->kb) {
    case 1: sort_row_k1(rj, b, keys, values, indices, m); break;
    case 2: sort_row_k2(rj, b, keys, values, indices, m); break;
    case 4: sort_row_k4(rj, b, keys, values, indices, m); break;
    default: sort_row_k8(rj, b, keys, values, indices, m); break;
    }
}
