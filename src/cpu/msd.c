/* The most-significant-digit-first half of the hybrid: after one parallel pass on the top
 * digit (sort.c), each bucket is sorted by one thread, top digit down, with the same
 * histogram and scatter stages as the LSD passes. A bucket stops splitting once it is
 * small (each key's place counted) or its digits run out (all its keys are equal in the
 * sort bits), so uniform wide keys are done after a few digits. Every split is a stable
 * partition and the small-bucket placement is stable, so the whole sort is. */
#include "cpu.h"
#include "tuning.h"

/* Bucket [lo, hi) of set cur is in order: move it home (unmapping keys on the way). */
static void finish_bucket(const rdx_cpu_plan *plan, const rdx_cpu_sets *s, int cur, size_t lo,
                          size_t hi)
{
    const size_t kb = plan->key_bytes, pb = plan->pay_bytes;
    if (s->write_home_keys) {
        if (s->decode_home)
            rdx_cpu_copy_unmapped(plan, s->keys[cur], s->keys[1], lo, hi);
        else if (cur != 1)
            memcpy((unsigned char *)s->keys[1] + lo * kb,
                   (const unsigned char *)s->keys[cur] + lo * kb, (hi - lo) * kb);
    }
    if (pb && cur != 1)
        memcpy((unsigned char *)s->pay[1] + lo * pb, (const unsigned char *)s->pay[cur] + lo * pb,
               (hi - lo) * pb);
}

/* A small bucket (at most RDX_CPU_MSD_LEAF keys), written home in order. Each key's
 * place is counted rather than searched for: the keys before it that are not greater,
 * plus the keys after it that are smaller (so equal keys keep their order). The m^2
 * comparisons carry no branches; an insertion sort's unpredictable loop exits cost more
 * on the few-key buckets that dominate here (measured: u64 2^25, one thread, 1.25 s with
 * insertion sort). */
static void leaf_bucket(const rdx_cpu_plan *plan, const rdx_cpu_sets *s, int cur, size_t lo,
                             size_t hi)
{
    const unsigned kb = plan->key_bytes, pb = plan->pay_bytes;
    const size_t m = hi - lo;
    uint64_t key[RDX_CPU_MSD_LEAF], sk[RDX_CPU_MSD_LEAF], pay[RDX_CPU_MSD_LEAF];
    const unsigned char *ck = (const unsigned char *)s->keys[cur] + lo * kb;
    const unsigned char *cp = pb ? (const unsigned char *)s->pay[cur] + lo * pb : NULL;
    for (size_t i = 0; i < m; i++) {
        key[i] = rdx_cpu_load_key(ck + i * kb, kb);
        sk[i] = (key[i] >> plan->begin_bit) & plan->range;
        pay[i] = pb == 4 ? rdx_ld32(cp + i * 4) : pb == 8 ? rdx_ld64(cp + i * 8) : 0;
    }
    unsigned char *hk = s->write_home_keys ? (unsigned char *)s->keys[1] + lo * kb : NULL;
    unsigned char *hp = pb ? (unsigned char *)s->pay[1] + lo * pb : NULL;
    for (size_t i = 0; i < m; i++) {
        size_t r = 0;
        for (size_t j = 0; j < i; j++)
            r += sk[j] <= sk[i];
        for (size_t j = i + 1; j < m; j++)
            r += sk[j] < sk[i];
        if (hk)
            rdx_cpu_store_key(hk + r * kb, kb,
                              s->decode_home ? rdx_cpu_unmap(key[i], kb, plan->cls, plan->desc)
                                             : key[i]);
        if (pb == 4)
            rdx_st32(hp + r * 4, (uint32_t)pay[i]);
        else if (pb == 8)
            rdx_st64(hp + r * 8, pay[i]);
    }
}

void rdx_cpu_msd_bucket(const rdx_cpu_plan *plan, const rdx_cpu_sets *s, int cur, size_t lo,
                        size_t hi, int level, size_t *msd, void *wc)
{
    const int bins = plan->bins;
    for (;;) {
        if (hi - lo <= RDX_CPU_MSD_LEAF) {
            leaf_bucket(plan, s, cur, lo, hi);
            return;
        }
        if (level == 0) {
            finish_bucket(plan, s, cur, lo, hi);
            return;
        }
        const int p = plan->active[level - 1];
        size_t *bound = msd + (size_t)(level - 1) * (size_t)(bins + 1);
        rdx_cpu_histogram_pass(plan, p, s->keys[cur], lo, hi, bound);
        int split = 1;
        for (int b = 0; b < bins; b++)
            if (bound[b] == hi - lo)
                split = 0;
        if (!split) { /* every key has the same digit here: nothing to move */
            level--;
            continue;
        }
        size_t at = lo;
        for (int b = 0; b < bins; b++) {
            const size_t c = bound[b];
            bound[b] = at;
            at += c;
        }
        bound[bins] = hi;

        /* A bucket that fits in cache takes ordinary stores (it stays there for the next
         * level); a larger one (a narrow top digit, skewed data) write-combines like the
         * parallel passes (tuning.h). */
        rdx_cpu_pass ps;
        memset(&ps, 0, sizeof ps);
        ps.src_keys = s->keys[cur];
        ps.dst_keys = s->keys[1 - cur];
        ps.src_pay = s->pay[cur];
        ps.dst_pay = s->pay[1 - cur];
        ps.shift = plan->shift[p];
        ps.mask = plan->mask[p];
        ps.write_keys = 1;
        ps.cls = plan->cls;
        ps.desc = plan->desc;
        ps.wc = (hi - lo) * (plan->key_bytes + plan->pay_bytes) >= RDX_CPU_MSD_WC_MIN_BYTES ? wc : NULL;
        rdx_cpu_scatter(plan, &ps, lo, hi, bound);
        /* Sub-buckets that need no further split are finished here, without a call per
         * bucket: at the last levels most hold a few keys or one. */
        for (int b = 0; b < bins; b++) {
            const size_t sl = bound[b], sh = bound[b + 1];
            if (sh - sl == 1)
                finish_bucket(plan, s, 1 - cur, sl, sh);
            else if (sh - sl > 1 && sh - sl <= RDX_CPU_MSD_LEAF)
                leaf_bucket(plan, s, 1 - cur, sl, sh);
            else if (sh > sl)
                rdx_cpu_msd_bucket(plan, s, 1 - cur, sl, sh, level - 1, msd, wc);
        }
        return;
    }
}
