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

/* The value a key with code c is ordered by. */
RDX_CPU_INLINE uint64_t sort_value(const rdx_cpu_rowjob *rj, uint64_t c)
{
    if (rj->numpy)
        c = rdx_numpy_canon(c, rj->kb, rj->inf, rj->desc);
    return (c >> rj->begin_bit) & rj->range;
}

/* A short run src[0..m) written in order to dst (with isrc -> idst when isrc is not
 * NULL): each key's place is counted, the keys before it that are not greater plus the
 * keys after it that are smaller, so equal keys keep their order. The m^2 comparisons
 * carry no branches; an insertion sort's unpredictable loop exits cost more on random
 * short rows. */
static void rank_run(const uint64_t *src, const uint32_t *isrc, uint64_t *dst, uint32_t *idst, size_t m)
{
    for (size_t i = 0; i < m; i++) {
        const uint64_t x = src[i];
        size_t r = 0;
        for (size_t j = 0; j < i; j++)
            r += src[j] <= x;
        for (size_t j = i + 1; j < m; j++)
            r += src[j] < x;
        dst[r] = x;
        if (isrc)
            idst[r] = isrc[i];
    }
}

/* Stable bottom-up merge sort of b->sk[0][0..m) (with b->idx[0] when with_index): runs of
 * RDX_CPU_SEG_MERGE_RUN keys ranked into b->sk[1], then merges (ties from the left run
 * first); returns which buffer holds the result. */
static int merge(rdx_cpu_rowbuf *b, size_t m, int with_index)
{
    const size_t run = RDX_CPU_SEG_MERGE_RUN;
    for (size_t lo = 0; lo < m; lo += run)
        rank_run(b->sk[0] + lo, with_index ? b->idx[0] + lo : NULL, b->sk[1] + lo, b->idx[1] + lo,
                 m - lo < run ? m - lo : run);
    int cur = 1;
    for (size_t w = run; w < m; w *= 2, cur = 1 - cur) {
        const uint64_t *src = b->sk[cur];
        uint64_t *dst = b->sk[1 - cur];
        const uint32_t *isrc = b->idx[cur];
        uint32_t *idst = b->idx[1 - cur];
        for (size_t lo = 0; lo < m; lo += 2 * w) {
            const size_t mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                const int right = src[j] < src[i];
                const size_t from = right ? j : i;
                dst[k] = src[from];
                if (with_index)
                    idst[k] = isrc[from];
                k++;
                i += !right;
                j += right;
            }
            for (; i < mid; i++, k++) {
                dst[k] = src[i];
                if (with_index)
                    idst[k] = isrc[i];
            }
            for (; j < hi; j++, k++) {
                dst[k] = src[j];
                if (with_index)
                    idst[k] = isrc[j];
            }
        }
    }
    return cur;
}

/* Stable LSD radix sort of a[0..m) (with ia, when not NULL) over the row job's digits;
 * the result lands in b->sk[0] / b->idx[0] or b->sk[1] / b->idx[1]: returns which. */
static int radix(const rdx_cpu_rowjob *rj, rdx_cpu_rowbuf *b, size_t m, int with_index)
{
    const int bins = rj->bins, np = rj->npasses;
    size_t *h = b->hist;
    memset(h, 0, (size_t)np * (size_t)bins * sizeof *h);
    const uint64_t *a0 = b->sk[0];
    for (size_t i = 0; i < m; i++) {
        const uint64_t k = a0[i];
        for (int p = 0; p < np; p++)
            h[(size_t)p * bins + ((k >> rj->shift[p]) & rj->mask[p])]++;
    }
    int cur = 0;
    for (int p = 0; p < np; p++) {
        size_t *hp = h + (size_t)p * bins;
        size_t at = 0;
        int moves = 1;
        for (int d = 0; d < bins; d++) {
            const size_t c = hp[d];
            if (c == m)
                moves = 0;
            hp[d] = at;
            at += c;
        }
        if (!moves)
            continue;
        const uint64_t *src = b->sk[cur];
        uint64_t *dst = b->sk[1 - cur];
        const int shift = rj->shift[p];
        const uint64_t mask = rj->mask[p];
        if (with_index) {
            const uint32_t *isrc = b->idx[cur];
            uint32_t *idst = b->idx[1 - cur];
            for (size_t i = 0; i < m; i++) {
                const uint64_t k = src[i];
                const size_t o = hp[(k >> shift) & mask]++;
                dst[o] = k;
                idst[o] = isrc[i];
            }
        } else {
            for (size_t i = 0; i < m; i++) {
                const uint64_t k = src[i];
                dst[hp[(k >> shift) & mask]++] = k;
            }
        }
        cur = 1 - cur;
    }
    return cur;
}

void rdx_cpu_sort_row(const rdx_cpu_rowjob *rj, rdx_cpu_rowbuf *b, unsigned char *keys,
                      unsigned char *values, unsigned char *indices, size_t m)
{
    const unsigned kb = rj->kb;
    if (m <= 1) {
        if (m == 1 && rj->kind == RDX_JOB_ARGSORT) {
            if (rj->index_bytes == 4)
                rdx_st32(indices, 0);
            else
                rdx_st64(indices, 0);
        }
        return;
    }
    if (rj->codes_only) {
        uint64_t *a = b->sk[0];
        for (size_t i = 0; i < m; i++)
            a[i] = rdx_cpu_load_mapped(keys + i * kb, kb, rj->cls, rj->desc);
        int cur = 1;
        if (m <= RDX_CPU_SEG_RANK_MAX)
            rank_run(a, NULL, b->sk[1], NULL, m);
        else if (m <= RDX_CPU_SEG_MERGE_MAX)
            cur = merge(b, m, 0);
        else
            cur = radix(rj, b, m, 0);
        const uint64_t *r = b->sk[cur];
        for (size_t i = 0; i < m; i++)
            rdx_cpu_store_key(keys + i * kb, kb, rdx_cpu_unmap(r[i], kb, rj->cls, rj->desc));
        return;
    }

    uint64_t *a = b->sk[0];
    uint32_t *ia = b->idx[0];
    for (size_t i = 0; i < m; i++) {
        const uint64_t c = rdx_cpu_load_mapped(keys + i * kb, kb, rj->cls, rj->desc);
        b->code[i] = c;
        a[i] = sort_value(rj, c);
        ia[i] = (uint32_t)i;
    }
    int cur = 1;
    if (m <= RDX_CPU_SEG_RANK_MAX)
        rank_run(a, ia, b->sk[1], b->idx[1], m);
    else if (m <= RDX_CPU_SEG_MERGE_MAX)
        cur = merge(b, m, 1);
    else
        cur = radix(rj, b, m, 1);
    const uint32_t *perm = b->idx[cur];

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
