/* Stages 3 and 4, rank and scatter: a thread walks its share of the keys in order and
 * writes each one to the next free slot of its digit (offsets from scan.c). Walking in
 * order is the rank: it keeps equal digits in input order, so every pass is stable. */
#include "cpu.h"
#include "tuning.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One pass for W-bit keys. pb (payload bytes), enc, dec, gen and wkeys are constants at
 * each call site below, so the compiler drops the parts a pass does not use. */
#define RDX_DEFINE_SCATTER(W)                                                                 \
    RDX_CPU_INLINE void scatter_u##W(const rdx_cpu_pass *ps, size_t begin, size_t end,          \
                                     size_t *off, const unsigned pb, const int enc,            \
                                     const int dec, const int gen, const int wkeys)            \
    {                                                                                         \
        const unsigned char *sk = (const unsigned char *)ps->src_keys;                        \
        unsigned char *dk = (unsigned char *)ps->dst_keys;                                    \
        const unsigned char *sp = (const unsigned char *)ps->src_pay;                         \
        unsigned char *dp = (unsigned char *)ps->dst_pay;                                     \
        const int shift = ps->shift, cls = ps->cls, desc = ps->desc;                          \
        const uint##W##_t mask = (uint##W##_t)ps->mask;                                       \
        for (size_t i = begin; i < end; i++) {                                                \
            uint##W##_t k = rdx_ld##W(sk + i * (W / 8));                                      \
            if (enc)                                                                          \
                k = rdx_encode_u##W(k, cls, desc);                                            \
            const size_t o = off[(k >> shift) & mask]++;                                      \
            if (wkeys)                                                                        \
                rdx_st##W(dk + o * (W / 8), dec ? rdx_decode_u##W(k, cls, desc) : k);         \
            if (pb == 4)                                                                      \
                rdx_st32(dp + o * 4, gen ? (uint32_t)i : rdx_ld32(sp + i * 4));               \
            else if (pb == 8)                                                                 \
                rdx_st64(dp + o * 8, gen ? (uint64_t)i : rdx_ld64(sp + i * 8));               \
        }                                                                                     \
    }                                                                                         \
    static void scatter_w##W(const rdx_cpu_pass *ps, unsigned pb, size_t b, size_t e,          \
                             size_t *off)                                                     \
    {                                                                                         \
        /* The middle passes of every sort, and all passes of an unsigned ascending one. */   \
        const int plain = !ps->encode_in && !ps->decode_out && !ps->gen_index && ps->write_keys; \
        const int en = ps->encode_in, de = ps->decode_out, ge = ps->gen_index,                \
                  wk = ps->write_keys;                                                        \
        switch (pb) {                                                                         \
        case 0:                                                                               \
            if (plain)                                                                        \
                scatter_u##W(ps, b, e, off, 0, 0, 0, 0, 1);                                   \
            else                                                                              \
                scatter_u##W(ps, b, e, off, 0, en, de, 0, 1);                                 \
            break;                                                                            \
        case 4:                                                                               \
            if (plain)                                                                        \
                scatter_u##W(ps, b, e, off, 4, 0, 0, 0, 1);                                   \
            else                                                                              \
                scatter_u##W(ps, b, e, off, 4, en, de, ge, wk);                               \
            break;                                                                            \
        default:                                                                              \
            if (plain)                                                                        \
                scatter_u##W(ps, b, e, off, 8, 0, 0, 0, 1);                                   \
            else                                                                              \
                scatter_u##W(ps, b, e, off, 8, en, de, ge, wk);                               \
            break;                                                                            \
        }                                                                                     \
    }
RDX_DEFINE_SCATTER(8)
RDX_DEFINE_SCATTER(16)
RDX_DEFINE_SCATTER(32)
RDX_DEFINE_SCATTER(64)
#undef RDX_DEFINE_SCATTER

/* ---- write-combining ----
 * Each bin collects its keys in a cache-line buffer laid out like the destination line
 * they will land in; a full line leaves with one non-temporal 64-byte store (no read of
 * the destination line, no cache pollution), a partial one (a bin's first and last line)
 * with an ordinary copy of just this thread's elements. On this VM it makes a pass over
 * 2^26 u32 keys about 8x faster than one store per key (bench/cpu_sort_time.c). */

#define RDX_LINE RDX_CPU_WC_BYTES

/* Writes the line that ends at element `last` (inclusive) of dst: all of it when the bin
 * (which starts at element `start`) owns the whole line, else only elements start..last. */
RDX_CPU_INLINE void wc_flush(unsigned char *dst, size_t esz, const unsigned char *line,
                             size_t start, size_t last)
{
    const size_t per_line = RDX_LINE / esz;
    const size_t have = last + 1 - start;
    if (have >= per_line) {
        unsigned char *to = dst + (last + 1 - per_line) * esz;
#if defined(__SSE2__)
        for (int j = 0; j < RDX_LINE / 16; j++)
            _mm_stream_si128((__m128i *)(void *)(to + 16 * j),
                             _mm_load_si128((const __m128i *)(const void *)(line + 16 * j)));
#else
        memcpy(to, line, RDX_LINE);
#endif
    } else {
        memcpy(dst + start * esz, line + (per_line - have) * esz, have * esz);
    }
}

/* At the end of a pass: the elements still buffered in bin lines, up to element `next`. */
RDX_CPU_INLINE void wc_drain(unsigned char *dst, size_t esz, unsigned skew,
                             const unsigned char *line, size_t start, size_t next)
{
    const size_t per_line = RDX_LINE / esz;
    const size_t slot = (next + skew) & (per_line - 1);
    const size_t count = slot < next - start ? slot : next - start;
    if (count)
        memcpy(dst + (next - count) * esz, line + (slot - count) * esz, count * esz);
}

/* Where in its destination line element 0 of an array falls (the array must be aligned to
 * its element size). */
static unsigned line_skew(const void *p, size_t esz)
{
    return (unsigned)(((uintptr_t)p % RDX_LINE) / esz);
}

#define RDX_DEFINE_WC_SCATTER(W)                                                              \
    RDX_CPU_INLINE void wc_scatter_u##W(const rdx_cpu_pass *ps, size_t begin, size_t end,       \
                                        size_t *off, const size_t *start, int bins,            \
                                        const unsigned pb, const int enc, const int dec,       \
                                        const int gen, const int wkeys)                        \
    {                                                                                         \
        enum { KB = W / 8, KE = RDX_LINE / KB };                                              \
        const unsigned char *sk = (const unsigned char *)ps->src_keys;                        \
        unsigned char *dk = (unsigned char *)ps->dst_keys;                                    \
        const unsigned char *sp = (const unsigned char *)ps->src_pay;                         \
        unsigned char *dp = (unsigned char *)ps->dst_pay;                                     \
        const int shift = ps->shift, cls = ps->cls, desc = ps->desc;                          \
        const uint##W##_t mask = (uint##W##_t)ps->mask;                                       \
        unsigned char *kline = (unsigned char *)ps->wc;                                       \
        unsigned char *pline = kline + (size_t)bins * RDX_LINE;                               \
        const unsigned kskew = wkeys ? line_skew(dk, KB) : 0;                                 \
        const unsigned pskew = pb ? line_skew(dp, pb) : 0;                                    \
        const size_t PE = pb ? RDX_LINE / pb : 1;                                             \
        for (size_t i = begin; i < end; i++) {                                                \
            uint##W##_t k = rdx_ld##W(sk + i * KB);                                           \
            if (enc)                                                                          \
                k = rdx_encode_u##W(k, cls, desc);                                            \
            const size_t d = (size_t)((k >> shift) & mask);                                   \
            const size_t o = off[d]++;                                                        \
            if (wkeys) {                                                                      \
                const size_t s = (o + kskew) & (KE - 1);                                      \
                rdx_st##W(kline + d * RDX_LINE + s * KB, dec ? rdx_decode_u##W(k, cls, desc) : k); \
                if (s == KE - 1)                                                              \
                    wc_flush(dk, KB, kline + d * RDX_LINE, start[d], o);                      \
            }                                                                                 \
            if (pb) {                                                                         \
                const size_t s = (o + pskew) & (PE - 1);                                      \
                unsigned char *pl = pline + d * RDX_LINE;                                     \
                if (pb == 4)                                                                  \
                    rdx_st32(pl + s * 4, gen ? (uint32_t)i : rdx_ld32(sp + i * 4));           \
                else                                                                          \
                    rdx_st64(pl + s * 8, gen ? (uint64_t)i : rdx_ld64(sp + i * 8));           \
                if (s == PE - 1)                                                              \
                    wc_flush(dp, pb, pl, start[d], o);                                        \
            }                                                                                 \
        }                                                                                     \
        for (int d = 0; d < bins; d++) {                                                      \
            if (wkeys)                                                                        \
                wc_drain(dk, KB, kskew, kline + (size_t)d * RDX_LINE, start[d], off[d]);      \
            if (pb)                                                                           \
                wc_drain(dp, pb, pskew, pline + (size_t)d * RDX_LINE, start[d], off[d]);      \
        }                                                                                     \
    }                                                                                         \
    static void wc_scatter_w##W(const rdx_cpu_pass *ps, unsigned pb, size_t b, size_t e,       \
                                size_t *off, const size_t *start, int bins)                    \
    {                                                                                         \
        const int plain = !ps->encode_in && !ps->decode_out && !ps->gen_index && ps->write_keys; \
        const int en = ps->encode_in, de = ps->decode_out, ge = ps->gen_index,                \
                  wk = ps->write_keys;                                                        \
        switch (pb) {                                                                         \
        case 0:                                                                               \
            if (plain)                                                                        \
                wc_scatter_u##W(ps, b, e, off, start, bins, 0, 0, 0, 0, 1);                   \
            else                                                                              \
                wc_scatter_u##W(ps, b, e, off, start, bins, 0, en, de, 0, 1);                 \
            break;                                                                            \
        case 4:                                                                               \
            if (plain)                                                                        \
                wc_scatter_u##W(ps, b, e, off, start, bins, 4, 0, 0, 0, 1);                   \
            else                                                                              \
                wc_scatter_u##W(ps, b, e, off, start, bins, 4, en, de, ge, wk);               \
            break;                                                                            \
        default:                                                                              \
            if (plain)                                                                        \
                wc_scatter_u##W(ps, b, e, off, start, bins, 8, 0, 0, 0, 1);                   \
            else                                                                              \
                wc_scatter_u##W(ps, b, e, off, start, bins, 8, en, de, ge, wk);               \
            break;                                                                            \
        }                                                                                     \
    }
RDX_DEFINE_WC_SCATTER(8)
RDX_DEFINE_WC_SCATTER(16)
RDX_DEFINE_WC_SCATTER(32)
RDX_DEFINE_WC_SCATTER(64)
#undef RDX_DEFINE_WC_SCATTER

size_t rdx_cpu_wc_bytes(const rdx_cpu_plan *plan)
{
    if (plan->n * (plan->key_bytes + plan->pay_bytes) < RDX_CPU_WC_MIN_BYTES)
        return 0;
    return 2 * (size_t)plan->bins * RDX_LINE; /* key lines and payload lines */
}

/* The destination arrays are aligned to their element size (needed to line them up). */
static int wc_usable(const rdx_cpu_plan *plan, const rdx_cpu_pass *pass)
{
    if (!pass->wc)
        return 0;
    if (pass->write_keys && (uintptr_t)pass->dst_keys % plan->key_bytes != 0)
        return 0;
    if (plan->pay_bytes && (uintptr_t)pass->dst_pay % plan->pay_bytes != 0)
        return 0;
    return 1;
}

void rdx_cpu_scatter(const rdx_cpu_plan *plan, const rdx_cpu_pass *pass, size_t begin, size_t end,
                     size_t *offsets)
{
    /* A private copy of the slots: the compiler can then see that key stores never
     * change them. */
    size_t off[256];
    memcpy(off, offsets, (size_t)plan->bins * sizeof *off);
    if (wc_usable(plan, pass)) {
        const int bins = plan->bins;
        switch (plan->key_bytes) {
        case 1: wc_scatter_w8(pass, plan->pay_bytes, begin, end, off, offsets, bins); break;
        case 2: wc_scatter_w16(pass, plan->pay_bytes, begin, end, off, offsets, bins); break;
        case 4: wc_scatter_w32(pass, plan->pay_bytes, begin, end, off, offsets, bins); break;
        default: wc_scatter_w64(pass, plan->pay_bytes, begin, end, off, offsets, bins); break;
        }
#if defined(__SSE2__)
        _mm_sfence(); /* non-temporal stores are visible to the other threads after this */
#endif
        return;
    }
    switch (plan->key_bytes) {
    case 1: scatter_w8(pass, plan->pay_bytes, begin, end, off); break;
    case 2: scatter_w16(pass, plan->pay_bytes, begin, end, off); break;
    case 4: scatter_w32(pass, plan->pay_bytes, begin, end, off); break;
    default: scatter_w64(pass, plan->pay_bytes, begin, end, off); break;
    }
}
