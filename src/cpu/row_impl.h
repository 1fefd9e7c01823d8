/* The row sort of row.c for one key width, included once per width with
 *   T            the code type (uint32_t for keys of up to 4 bytes, else uint64_t),
 *   RDX_ROW_KB   the key bytes (a constant, so loads and the codec fold),
 *   RDX_ROW_SFX  a suffix for the function names.
 * Not a header of its own: no include guard on purpose. */
#define RDX_ROW_CAT2(a, b) a##_##b
#define RDX_ROW_CAT(a, b) RDX_ROW_CAT2(a, b)
#define RDX_ROW_FN(name) RDX_ROW_CAT(name, RDX_ROW_SFX)

/* The value a key with code c is ordered by. */
RDX_CPU_INLINE T RDX_ROW_FN(sort_value)(const rdx_cpu_rowjob *rj, uint64_t c)
{
    if (rj->numpy)
        c = rdx_numpy_canon(c, RDX_ROW_KB, rj->inf, rj->desc);
    return (T)((c >> rj->begin_bit) & rj->range);
}

/* A short run src[0..m) written in order to dst (with isrc -> idst when isrc is not
 * NULL): each key's place is counted, the keys before it that are not greater plus the
 * keys after it that are smaller, so equal keys keep their order. The m^2 comparisons
 * carry no branches; an insertion sort's unpredictable loop exits cost more on random
 * short rows. */
static void RDX_ROW_FN(rank_run)(const T *src, const uint32_t *isrc, T *dst, uint32_t *idst, size_t m)
{
    for (size_t i = 0; i < m; i++) {
        const T x = src[i];
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
static int RDX_ROW_FN(merge)(rdx_cpu_rowbuf *b, size_t m, int with_index)
{
    const size_t run = RDX_CPU_SEG_MERGE_RUN;
    for (size_t lo = 0; lo < m; lo += run)
        RDX_ROW_FN(rank_run)((T *)b->sk[0] + lo, with_index ? b->idx[0] + lo : NULL, (T *)b->sk[1] + lo,
                             b->idx[1] + lo, m - lo < run ? m - lo : run);
    int cur = 1;
    for (size_t w = run; w < m; w *= 2, cur = 1 - cur) {
        const T *src = (const T *)b->sk[cur];
        T *dst = (T *)b->sk[1 - cur];
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
static int RDX_ROW_FN(radix)(const rdx_cpu_rowjob *rj, rdx_cpu_rowbuf *b, size_t m, int with_index)
{
    const int bins = rj->bins, np = rj->npasses;
    size_t *h = b->hist;
    memset(h, 0, (size_t)np * (size_t)bins * sizeof *h);
    const T *a0 = (const T *)b->sk[0];
    for (size_t i = 0; i < m; i++) {
        const T k = a0[i];
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
        const T *src = (const T *)b->sk[cur];
        T *dst = (T *)b->sk[1 - cur];
        const int shift = rj->shift[p];
        const T mask = (T)rj->mask[p];
        if (with_index) {
            const uint32_t *isrc = b->idx[cur];
            uint32_t *idst = b->idx[1 - cur];
            for (size_t i = 0; i < m; i++) {
                const T k = src[i];
                const size_t o = hp[(k >> shift) & mask]++;
                dst[o] = k;
                idst[o] = isrc[i];
            }
        } else {
            for (size_t i = 0; i < m; i++) {
                const T k = src[i];
                dst[hp[(k >> shift) & mask]++] = k;
            }
        }
        cur = 1 - cur;
    }
    return cur;
}

/* One row of m >= 2 keys of RDX_ROW_KB bytes (rdx_cpu_sort_row). */
static void RDX_ROW_FN(sort_row)(const rdx_cpu_rowjob *rj, rdx_cpu_rowbuf *b, unsigned char *keys,
                                 unsigned char *values, unsigned char *indices, size_t m)
{
    const unsigned kb = RDX_ROW_KB;
    T *s0 = (T *)b->sk[0], *s1 = (T *)b->sk[1];
    if (rj->codes_only) {
        for (size_t i = 0; i < m; i++)
            s0[i] = (T)rdx_cpu_load_mapped(keys + i * kb, kb, rj->cls, rj->desc);
        int cur = 1;
        if (m <= RDX_CPU_SEG_RANK_MAX)
            RDX_ROW_FN(rank_run)(s0, NULL, s1, NULL, m);
        else if (m <= RDX_CPU_SEG_MERGE_MAX)
            cur = RDX_ROW_FN(merge)(b, m, 0);
        else
            cur = RDX_ROW_FN(radix)(rj, b, m, 0);
        const T *r = (const T *)b->sk[cur];
        for (size_t i = 0; i < m; i++)
            rdx_cpu_store_key(keys + i * kb, kb, rdx_cpu_unmap(r[i], kb, rj->cls, rj->desc));
        return;
    }

    uint32_t *ia = b->idx[0];
    for (size_t i = 0; i < m; i++) {
        const uint64_t c = rdx_cpu_load_mapped(keys + i * kb, kb, rj->cls, rj->desc);
        b->code[i] = c;
        s0[i] = RDX_ROW_FN(sort_value)(rj, c);
        ia[i] = (uint32_t)i;
    }
    int cur = 1;
    if (m <= RDX_CPU_SEG_RANK_MAX)
        RDX_ROW_FN(rank_run)(s0, ia, s1, b->idx[1], m);
    else if (m <= RDX_CPU_SEG_MERGE_MAX)
        cur = RDX_ROW_FN(merge)(b, m, 1);
    else
        cur = RDX_ROW_FN(radix)(rj, b, m, 1);
    rdx_cpu_place_row(rj, b, b->idx[cur], keys, values, indices, m);
}

#undef RDX_ROW_FN
#undef RDX_ROW_CAT
#undef RDX_ROW_CAT2
