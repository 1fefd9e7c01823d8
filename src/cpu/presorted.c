/* Keys already in the sort's order, or in its reverse (sort.c): found before the radix
 * passes, and then sorted without them. Keys in order are their own stable sort. Keys in
 * the reverse order (no two neighbours ascending) are sorted by reversing the array and then
 * each run of keys that compare equal, which the reversal turned around (stability); keys
 * alone compared by all their bits need no second step, equal keys being equal bit for bit. */
#include "cpu.h"

/* Per key width W: the compared bits of the key at p, (mapped >> begin_bit) & range, and
 * which of RDX_CPU_DESCENT and RDX_CPU_ASCENT occur in keys[begin, end). */
#define RDX_DEFINE_ORDER(W)                                                                   \
    RDX_CPU_INLINE uint##W##_t compared_u##W(const rdx_cpu_plan *plan, const unsigned char *p) \
    {                                                                                         \
        return (uint##W##_t)(rdx_encode_u##W(rdx_ld##W(p), plan->cls, plan->desc) >> plan->begin_bit) & \
               (uint##W##_t)plan->range;                                                      \
    }                                                                                         \
    static unsigned order_u##W(const rdx_cpu_plan *plan, const unsigned char *keys, size_t begin, \
                               size_t end)                                                    \
    {                                                                                         \
        unsigned found = 0;                                                                   \
        uint##W##_t prev = 0;                                                                 \
        for (size_t i = begin; i < end; i++) {                                                \
            const uint##W##_t k = compared_u##W(plan, keys + i * (W / 8));                     \
            if (i > begin) {                                                                  \
                found |= k < prev ? RDX_CPU_DESCENT : k > prev ? RDX_CPU_ASCENT : 0u;         \
                if (found == (RDX_CPU_DESCENT | RDX_CPU_ASCENT))                              \
                    return found;                                                             \
            }                                                                                 \
            prev = k;                                                                         \
        }                                                                                     \
        return found;                                                                         \
    }
RDX_DEFINE_ORDER(8)
RDX_DEFINE_ORDER(16)
RDX_DEFINE_ORDER(32)
RDX_DEFINE_ORDER(64)
#undef RDX_DEFINE_ORDER

unsigned rdx_cpu_order(const rdx_cpu_plan *plan, const void *keys, size_t begin, size_t end)
{
    const unsigned char *k = (const unsigned char *)keys;
    switch (plan->key_bytes) {
    case 1: return order_u8(plan, k, begin, end);
    case 2: return order_u16(plan, k, begin, end);
    case 4: return order_u32(plan, k, begin, end);
    default: return order_u64(plan, k, begin, end);
    }
}

/* The payload's element j and its swaps: moved values or indices of 4 or 8 bytes. */
RDX_CPU_INLINE void swap_pay(const rdx_cpu_reversal *r, size_t lo, size_t hi)
{
    if (r->plan->pay_bytes == 4) {
        const uint32_t a = rdx_ld32(r->pay + lo * 4), b = rdx_ld32(r->pay + hi * 4);
        rdx_st32(r->pay + lo * 4, b);
        rdx_st32(r->pay + hi * 4, a);
    } else {
        const uint64_t a = rdx_ld64(r->pay + lo * 8), b = rdx_ld64(r->pay + hi * 8);
        rdx_st64(r->pay + lo * 8, b);
        rdx_st64(r->pay + hi * 8, a);
    }
}

/* Per key width W: the compared bits of key j in the order the reversal left them (an
 * argsort's keys stay where they are: key n - 1 - j), the swap of elements lo and hi (keys,
 * unless an argsort's, and payload), and the three steps over them. */
#define RDX_DEFINE_REVERSAL(W)                                                                \
    RDX_CPU_INLINE uint##W##_t compared_at_u##W(const rdx_cpu_reversal *r, size_t j)          \
    {                                                                                         \
        return compared_u##W(r->plan, r->keys + (r->argsort ? r->plan->n - 1 - j : j) * (W / 8)); \
    }                                                                                         \
    RDX_CPU_INLINE void swap_u##W(const rdx_cpu_reversal *r, size_t lo, size_t hi)            \
    {                                                                                         \
        if (!r->argsort) {                                                                    \
            const uint##W##_t a = rdx_ld##W(r->keys + lo * (W / 8)), b = rdx_ld##W(r->keys + hi * (W / 8)); \
            rdx_st##W(r->keys + lo * (W / 8), b);                                             \
            rdx_st##W(r->keys + hi * (W / 8), a);                                             \
        }                                                                                     \
        if (r->pay)                                                                           \
            swap_pay(r, lo, hi);                                                              \
    }                                                                                         \
    static void reverse_all_u##W(const rdx_cpu_reversal *r, size_t begin, size_t end)         \
    {                                                                                         \
        const size_t half = r->plan->n / 2;                                                         \
        for (size_t j = begin; j < end && j < half; j++)                                      \
            swap_u##W(r, j, r->plan->n - 1 - j);                                                    \
    }                                                                                         \
    static size_t first_run_u##W(const rdx_cpu_reversal *r, size_t begin, size_t end)         \
    {                                                                                         \
        for (size_t j = begin; j < end; j++)                                                  \
            if (j == 0 || compared_at_u##W(r, j - 1) != compared_at_u##W(r, j))                     \
                return j;                                                                     \
        return end;                                                                           \
    }                                                                                         \
    static void reverse_runs_u##W(const rdx_cpu_reversal *r, size_t first, size_t end)        \
    {                                                                                         \
        size_t j = first;                                                                     \
        while (j < end) {                                                                     \
            const uint##W##_t k = compared_at_u##W(r, j);                                        \
            size_t stop = j + 1;                                                              \
            while (stop < r->plan->n && compared_at_u##W(r, stop) == k)                                \
                stop++;                                                                       \
            for (size_t lo = j, hi = stop - 1; lo < hi; lo++, hi--)                           \
                swap_u##W(r, lo, hi);                                                         \
            j = stop;                                                                         \
        }                                                                                     \
    }
RDX_DEFINE_REVERSAL(8)
RDX_DEFINE_REVERSAL(16)
RDX_DEFINE_REVERSAL(32)
RDX_DEFINE_REVERSAL(64)
#undef RDX_DEFINE_REVERSAL

void rdx_cpu_reverse_all(const rdx_cpu_reversal *r, size_t begin, size_t end)
{
    if (r->argsort) { /* the identity, reversed */
        for (size_t j = begin; j < end; j++) {
            if (r->plan->pay_bytes == 4)
                rdx_st32(r->pay + j * 4, (uint32_t)(r->plan->n - 1 - j));
            else
                rdx_st64(r->pay + j * 8, (uint64_t)(r->plan->n - 1 - j));
        }
        return;
    }
    switch (r->plan->key_bytes) {
    case 1: reverse_all_u8(r, begin, end); break;
    case 2: reverse_all_u16(r, begin, end); break;
    case 4: reverse_all_u32(r, begin, end); break;
    default: reverse_all_u64(r, begin, end); break;
    }
}

size_t rdx_cpu_first_run(const rdx_cpu_reversal *r, size_t begin, size_t end)
{
    switch (r->plan->key_bytes) {
    case 1: return first_run_u8(r, begin, end);
    case 2: return first_run_u16(r, begin, end);
    case 4: return first_run_u32(r, begin, end);
    default: return first_run_u64(r, begin, end);
    }
}

void rdx_cpu_reverse_runs(const rdx_cpu_reversal *r, size_t first, size_t end)
{
    switch (r->plan->key_bytes) {
    case 1: reverse_runs_u8(r, first, end); break;
    case 2: reverse_runs_u16(r, first, end); break;
    case 4: reverse_runs_u32(r, first, end); break;
    default: reverse_runs_u64(r, first, end); break;
    }
}
