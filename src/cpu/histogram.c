/* Stage 1, histogram: digit counts. All passes are counted in one read of the caller's
 * keys up front (which also shows which passes can be skipped); later passes count their
 * own thread's share of the current array, since which keys a thread holds changes
 * after every pass. */
#include "cpu.h"

/* One counter update for pass P of key k (an unrolled step below). */
#define RDX_COUNT(P) c##P[(k >> s##P) & m##P]++

#define RDX_DEFINE_HIST(W)                                                                    \
    /* Up to 8 passes with shifts, masks and tables in registers, unrolled (for digit     \
     * widths other than whole bytes): fewer loads per key than the loop further below. */   \
    static void hist_upto8_u##W(const rdx_cpu_plan *plan, const unsigned char *keys,           \
                                size_t begin, size_t end, size_t *counts)                      \
    {                                                                                         \
        const int np = plan->npasses, bins = plan->bins, cls = plan->cls, desc = plan->desc;    \
        int sh[8] = {0};                                                                      \
        uint##W##_t mk[8] = {0};                                                              \
        for (int p = 0; p < np; p++) {                                                        \
            sh[p] = plan->shift[p];                                                           \
            mk[p] = (uint##W##_t)plan->mask[p];                                               \
        }                                                                                     \
        const int s0 = sh[0], s1 = sh[1], s2 = sh[2], s3 = sh[3], s4 = sh[4], s5 = sh[5],       \
                  s6 = sh[6], s7 = sh[7];                                                     \
        const uint##W##_t m0 = mk[0], m1 = mk[1], m2 = mk[2], m3 = mk[3], m4 = mk[4],          \
                          m5 = mk[5], m6 = mk[6], m7 = mk[7];                                 \
        size_t *c0 = counts, *c1 = c0 + bins, *c2 = c1 + bins, *c3 = c2 + bins,                 \
               *c4 = c3 + bins, *c5 = c4 + bins, *c6 = c5 + bins, *c7 = c6 + bins;              \
        for (size_t i = begin; i < end; i++) {                                                \
            const uint##W##_t k = rdx_encode_u##W(rdx_ld##W(keys + i * (W / 8)), cls, desc);  \
            switch (np) {                                                                     \
            case 8: RDX_COUNT(7); /* fall through */                                          \
            case 7: RDX_COUNT(6); /* fall through */                                          \
            case 6: RDX_COUNT(5); /* fall through */                                          \
            case 5: RDX_COUNT(4); /* fall through */                                          \
            case 4: RDX_COUNT(3); /* fall through */                                          \
            case 3: RDX_COUNT(2); /* fall through */                                          \
            case 2: RDX_COUNT(1); /* fall through */                                          \
            default: RDX_COUNT(0);                                                            \
            }                                                                                 \
        }                                                                                     \
    }                                                                                         \
    /* 8-bit digits on byte boundaries (the default): every byte counted with constant \
     * shifts, into a stack table whose wanted rows are then copied out. */                 \
    static void hist_bytes_u##W(const rdx_cpu_plan *plan, const unsigned char *keys,           \
                                size_t begin, size_t end, size_t *counts)                      \
    {                                                                                         \
        const int cls = plan->cls, desc = plan->desc;                                         \
        size_t c[W / 8][256];                                                                 \
        memset(c, 0, sizeof c);                                                               \
        for (size_t i = begin; i < end; i++) {                                                \
            const uint##W##_t k = rdx_encode_u##W(rdx_ld##W(keys + i * (W / 8)), cls, desc);  \
            for (int b = 0; b < W / 8; b++)                                                   \
                c[b][(k >> (8 * b)) & 0xFF]++;                                                \
        }                                                                                     \
        const int first = plan->shift[0] / 8;                                                 \
        for (int p = 0; p < plan->npasses; p++)                                               \
            memcpy(counts + (size_t)p * 256, c[first + p], sizeof c[0]);                      \
    }                                                                                         \
    static void hist_all_u##W(const rdx_cpu_plan *plan, const unsigned char *keys, size_t begin, \
                              size_t end, size_t *counts)                                     \
    {                                                                                         \
        const int np = plan->npasses, bins = plan->bins, cls = plan->cls, desc = plan->desc;    \
        if (bins == 256 && plan->shift[0] % 8 == 0 && plan->mask[np - 1] == 0xFF) {        \
            hist_bytes_u##W(plan, keys, begin, end, counts);                                  \
            return;                                                                           \
        }                                                                                     \
        if (np <= 8) {                                                                        \
            hist_upto8_u##W(plan, keys, begin, end, counts);                                  \
            return;                                                                           \
        }                                                                                     \
        int shift[RDX_CPU_MAX_PASSES];                                                        \
        uint##W##_t mask[RDX_CPU_MAX_PASSES];                                                 \
        for (int p = 0; p < np; p++) {                                                        \
            shift[p] = plan->shift[p];                                                        \
            mask[p] = (uint##W##_t)plan->mask[p];                                             \
        }                                                                                     \
        for (size_t i = begin; i < end; i++) {                                                \
            const uint##W##_t k = rdx_encode_u##W(rdx_ld##W(keys + i * (W / 8)), cls, desc);  \
            size_t *c = counts;                                                               \
            for (int p = 0; p < np; p++, c += bins)                                           \
                c[(k >> shift[p]) & mask[p]]++;                                               \
        }                                                                                     \
    }                                                                                         \
    static void hist_pass_u##W(const unsigned char *keys, size_t begin, size_t end, int shift,  \
                               uint##W##_t mask, size_t *counts)                               \
    {                                                                                         \
        for (size_t i = begin; i < end; i++)                                                  \
            counts[(rdx_ld##W(keys + i * (W / 8)) >> shift) & mask]++;                        \
    }
RDX_DEFINE_HIST(8)
RDX_DEFINE_HIST(16)
RDX_DEFINE_HIST(32)
RDX_DEFINE_HIST(64)
#undef RDX_DEFINE_HIST
#undef RDX_COUNT

void rdx_cpu_histogram_all(const rdx_cpu_plan *plan, const void *keys, size_t begin, size_t end,
                           size_t *counts)
{
    memset(counts, 0, (size_t)plan->npasses * (size_t)plan->bins * sizeof *counts);
    const unsigned char *k = (const unsigned char *)keys;
    switch (plan->key_bytes) {
    case 1: hist_all_u8(plan, k, begin, end, counts); break;
    case 2: hist_all_u16(plan, k, begin, end, counts); break;
    case 4: hist_all_u32(plan, k, begin, end, counts); break;
    default: hist_all_u64(plan, k, begin, end, counts); break;
    }
}

void rdx_cpu_histogram_pass(const rdx_cpu_plan *plan, int pass, const void *keys, size_t begin,
                            size_t end, size_t *counts)
{
    memset(counts, 0, (size_t)plan->bins * sizeof *counts);
    const unsigned char *k = (const unsigned char *)keys;
    const int s = plan->shift[pass];
    const uint64_t m = plan->mask[pass];
    switch (plan->key_bytes) {
    case 1: hist_pass_u8(k, begin, end, s, (uint8_t)m, counts); break;
    case 2: hist_pass_u16(k, begin, end, s, (uint16_t)m, counts); break;
    case 4: hist_pass_u32(k, begin, end, s, (uint32_t)m, counts); break;
    default: hist_pass_u64(k, begin, end, s, m, counts); break;
    }
}
