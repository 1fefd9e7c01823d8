/* A block's sort of one tile by a single digit taken from the tile's own key range, ties
 * settled by comparison (seg_tile.cu's block bins; the idea of the MSD route's level 3,
 * msd.cu, on keys of any range).
 *
 * The tile's smallest and largest sort key (the code's bits [begin_bit, end_bit)) are
 * found first; the digit of key k is (k - smallest) >> shift, where shift keeps the
 * largest digit below 2^bits and 2^bits is about the number of keys: uniform keys of any
 * range, or of any offset, spread over the bins with a key or two each. The keys are
 * counted by digit, placed at their digit's next free slot (in any order: an atomic), and
 * each then finds its place among the keys of its digit by comparing (key, position)
 * with every one of them: stable, one read and one write of the tile, seven barriers,
 * where the LSD passes over 32 bits take four passes of four. A digit that more than
 * RDX_SEG_RUN_MAX keys share (few distinct keys, a heavy key) would make the comparisons
 * quadratic: then nothing has been moved, and the caller sorts the tile by its passes. */
#ifndef RDX_CUDA_SEG_RANGE_CUH
#define RDX_CUDA_SEG_RANGE_CUH

#include <math_constants.h>

#include "rank.cuh"

/* The least (MAX false) or the greatest key over the warp: one instruction for 4-byte keys. */
template <bool MAX, typename K> static __device__ __forceinline__ K seg_warp_key_extreme(K x)
{
    if (sizeof(K) == 4) {
        x = (K)(MAX ? __reduce_max_sync(RDX_FULL_WARP, (uint32_t)x) : __reduce_min_sync(RDX_FULL_WARP, (uint32_t)x));
    } else {
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            const K y = (K)__shfl_xor_sync(RDX_FULL_WARP, x, o);
            x = (MAX ? y > x : y < x) ? y : x;
        }
    }
    return x;
}

/* The same for the finite values of by-value digits. */
template <bool MAX, typename R> static __device__ __forceinline__ R seg_warp_real_extreme(R x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const R y = __shfl_xor_sync(RDX_FULL_WARP, x, o);
        x = MAX ? fmax(x, y) : fmin(x, y);
    }
    return x;
}

/* Bits of x: 0 for 0, else one more than its highest set bit. */
template <typename K> static __device__ __forceinline__ int seg_bit_length(K x)
{
    return sizeof(K) == 8 ? 64 - __clzll((long long)x) : 32 - __clz((int)(uint32_t)x);
}

/* The value type of by-value digits: float for 4-byte keys, double for 8. */
template <int KB> struct seg_real_b {
    typedef float t;
};
template <> struct seg_real_b<8> {
    typedef double t;
};
template <typename K> struct seg_real : seg_real_b<(int)sizeof(K)> {};

/* How a sort key becomes the digit of an attempt: (k - lo) >> shift, or, for floats over
 * all their bits (by_value), the value's place between the tile's least and greatest
 * finite values (normal data crowds a few exponents, which the bits of the code would
 * put in a few digits): NaN and infinities, which sit at the ends of the code's order,
 * take the first or the last digit. Either is monotone in the code: keys in order have
 * digits in order. */
template <typename K> struct seg_digit {
    typedef typename seg_real<K>::t R;
    int by_value, desc;
    K lo;
    int shift;
    R wmin, scale;
    K zero;       /* +0.0's code: non-finite codes below it take digit 0, above it the last */
    uint32_t top; /* the last digit */
};

template <typename K> static __device__ __forceinline__ typename seg_real<K>::t seg_value(K k, int desc)
{
    typedef typename seg_real<K>::t R;
    const K raw = rdx_dec(k, RDX_CLASS_FLOAT, desc);
    const R v = sizeof(K) == 8 ? (R)__longlong_as_double((long long)raw) : (R)__uint_as_float((uint32_t)raw);
    return desc ? -v : v; /* ascending with the code where finite */
}

template <typename K> static __device__ __forceinline__ uint32_t seg_digit_of(const seg_digit<K> &g, K k)
{
    if (!g.by_value)
        return (uint32_t)((K)(k - g.lo) >> g.shift);
    typedef typename seg_real<K>::t R;
    const R w = seg_value(k, g.desc);
    if (!isfinite(w))
        return k < g.zero ? 0u : g.top;
    return (uint32_t)fmin((w - g.wmin) * g.scale, (R)g.top);
}

/* A position (below 2^16: tiles of at most 65536 keys) with its key's digit (below 2^16: at
 * most the counter words) in the high half, so that placing and ranking the keys do not
 * take the digit again (for floats by value, a decode and a conversion each). Within a digit
 * the words order as the positions. */
static __device__ __forceinline__ uint32_t seg_with_digit(uint32_t pos, uint32_t d) { return __byte_perm(pos, d, 0x5410); }

/* Shared memory of the range sort, from the caller's areas. */
template <typename K> struct seg_range_smem {
    K *keys;        /* the tile's sort keys by digit */
    uint32_t *vals; /* and their positions */
    uint32_t *cnt;  /* cnt_words digit counters */
    uint32_t cnt_words;
    uint32_t *scan; /* THREADS / 32 words */
    unsigned char *red; /* 2 * THREADS / 32 doubles, then one word (the work) */
};

/* One attempt: the digit g of the tile's keys (by value or by code), the keys counted by
 * it and the counts scanned into each digit's first slot. Returns false where a digit
 * holds more than RDX_SEG_RUN_MAX keys or the comparisons would take more than
 * RDX_SEG_RUN_WORK per key (the sum of the squared counts over count). Each counted key's
 * digit goes into the high half of its pos[] word (seg_with_digit). */
template <typename K, int THREADS, int ITEMS>
static __device__ __forceinline__ bool seg_range_count(const K (&key)[ITEMS], uint32_t (&pos)[ITEMS], uint32_t count,
                                                       int begin_bit, K wmask, int by_value, int desc, int bits,
                                                       const seg_range_smem<K> &m, seg_digit<K> *g)
{
    enum { WARPS = THREADS / 32 };
    typedef typename seg_real<K>::t R;
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t first = warp * 32u * ITEMS + lane, bins = 1u << bits;
    K *s_red = (K *)m.red;
    R *s_dred = (R *)m.red;
    uint32_t *s_work = (uint32_t *)(m.red + 2 * WARPS * sizeof(double));
    g->by_value = by_value;
    g->desc = desc;
    g->top = bins - 1u;
    g->zero = rdx_enc((K)0, RDX_CLASS_FLOAT, desc);
    if (!by_value) { /* the tile's range of sort keys */
        K lo = (K)~(K)0, hi = 0;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            if (first + (uint32_t)i * 32u < count) {
                const K k = (key[i] >> begin_bit) & wmask;
                lo = k < lo ? k : lo;
                hi = k > hi ? k : hi;
            }
        }
        lo = seg_warp_key_extreme<false>(lo);
        hi = seg_warp_key_extreme<true>(hi);
        if (lane == 0) {
            s_red[warp] = lo;
            s_red[WARPS + warp] = hi;
        }
    } else { /* the tile's finite values */
        R lo = (R)CUDART_INF, hi = (R)-CUDART_INF;
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            if (first + (uint32_t)i * 32u < count) {
                const R w = seg_value(key[i], desc);
                if (isfinite(w)) {
                    lo = fmin(lo, w);
                    hi = fmax(hi, w);
                }
            }
        }
        lo = seg_warp_real_extreme<false>(lo);
        hi = seg_warp_real_extreme<true>(hi);
        if (lane == 0) {
            s_dred[warp] = lo;
            s_dred[WARPS + warp] = hi;
        }
    }
    for (uint32_t j = threadIdx.x; j < bins; j += THREADS)
        m.cnt[j] = 0u;
    if (threadIdx.x == 0)
        *s_work = 0u;
    __syncthreads();
    if (!by_value) {
        const K lo = seg_warp_key_extreme<false>(lane < WARPS ? s_red[lane] : (K)~(K)0);
        const K hi = seg_warp_key_extreme<true>(lane < WARPS ? s_red[WARPS + lane] : (K)0);
        const int span = seg_bit_length((K)(hi - lo));
        g->lo = lo;
        g->shift = span > bits ? span - bits : 0;
        /* Fewer distinct keys than count / RUN_WORK: the runs would be too long; known
         * without counting (the barrier: every thread's reads of the reduction before
         * another attempt writes it). */
        if ((K)(hi - lo) < (K)(count / (uint32_t)RDX_SEG_RUN_WORK)) {
            __syncthreads();
            return false;
        }
    } else {
        const R lo = seg_warp_real_extreme<false>(lane < WARPS ? s_dred[lane] : (R)CUDART_INF);
        const R hi = seg_warp_real_extreme<true>(lane < WARPS ? s_dred[WARPS + lane] : (R)-CUDART_INF);
        g->wmin = lo;
        /* No finite values, or all equal, or a range that overflows: a scale of 0 puts every
         * finite key in digit 0, and the run test sends the tile to the passes. */
        const R scale = (R)bins / (hi - lo);
        g->scale = hi > lo && isfinite(scale) ? scale : (R)0;
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        if (first + (uint32_t)i * 32u < count) {
            const uint32_t d = seg_digit_of(*g, (K)((key[i] >> begin_bit) & wmask));
            pos[i] = seg_with_digit(pos[i], d);
            atomicAdd(&m.cnt[d], 1u);
        }
    }
    __syncthreads();

    /* Exclusive scan of the bins, `per` consecutive ones per thread (read twice rather
     * than held: registers); the runs' work is summed on the way. */
    const uint32_t per = (bins + THREADS - 1) / THREADS, at = threadIdx.x * per;
    const uint32_t end = min(at + per, bins);
    uint32_t sum = 0, work = 0;
    bool long_run = false;
    for (uint32_t j = at; j < end; ++j) {
        const uint32_t c = m.cnt[j];
        sum += c;
        work += c * c;
        long_run |= c > (uint32_t)RDX_SEG_RUN_MAX;
    }
    work = __reduce_add_sync(RDX_FULL_WARP, work);
    if (lane == 0)
        atomicAdd(s_work, work);
    uint32_t run = rdx_block_excl_scan<THREADS>(sum, m.scan);
    /* Every warp added its work before the scan's barrier; read the total before the last
     * barrier, which a next attempt's thread 0 may pass and clear it (racecheck, round 23). */
    const uint32_t total_work = *s_work;
    for (uint32_t j = at; j < end; ++j) {
        const uint32_t c = m.cnt[j];
        m.cnt[j] = run;
        run += c;
    }
    long_run = __syncthreads_or(long_run) != 0;
    return !long_run && total_work <= (uint32_t)RDX_SEG_RUN_WORK * count;
}

/* Sorts the tile of `count` keys that the block holds warp-striped (item i of this thread
 * is position first + 32 i, first = warp * 32 * ITEMS + lane; key[] the codes, pos[] the
 * positions) by the code's bits [begin_bit, end_bit). Returns true when it did: then
 * pos[i] is the source position of output slot first + 32 i (slots below count). Returns
 * false, with key[] and pos[] unchanged and every counter word zero, when neither digit
 * spreads the keys enough: the code's, and before it, for floats over all their bits
 * (FLOAT_BITS), the value's (normal or uniform values spread by value and crowd a few
 * exponents by code; a wide exponent range spreads by code only; a failed attempt costs
 * a count of the tile). FLOAT_BITS is a template argument: an attempt whose kind is
 * chosen at run time spilled registers in the 1024-key bin (ptxas). Every thread's reads
 * of m before the call are done when its first barrier passes, and every thread has read
 * what it needs when it returns. */
template <typename K, int THREADS, int ITEMS, bool FLOAT_BITS>
static __device__ __forceinline__ bool seg_range_sort(const K (&key)[ITEMS], uint32_t (&pos)[ITEMS], uint32_t count,
                                                      int desc, int begin_bit, int end_bit,
                                                      const seg_range_smem<K> &m)
{
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t first = warp * 32u * ITEMS + lane;
    /* 4-byte keys rank by 8-byte words where the keys' and positions' areas are contiguous
     * (seg_tile.cu: rdx_rank_layout) and the counters hold the tile (the range sort's tiles). */
    constexpr bool SEG_RANK_WORDS = sizeof(K) == 4 && ITEMS <= RDX_CUDA_MAX_BINS / 32;
    const int width = end_bit - begin_bit;
    const K wmask = width >= (int)(8 * sizeof(K)) ? (K)~(K)0 : (K)(((K)1 << width) - 1u);
    /* As many bins as keys (a power of two), at most the counter words. */
    int bits = 32 - __clz((int)(count - 1u));
    while ((1u << bits) > m.cnt_words)
        --bits;
    seg_digit<K> g;
    bool ok = false;
    if (FLOAT_BITS)
        ok = seg_range_count<K, THREADS, ITEMS>(key, pos, count, 0, wmask, 1, desc, bits, m, &g);
    if (!ok)
        ok = seg_range_count<K, THREADS, ITEMS>(key, pos, count, begin_bit, wmask, 0, desc, bits, m, &g);
    if (!ok) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            pos[i] &= 0xffffu;
        for (uint32_t j = threadIdx.x; j < m.cnt_words; j += THREADS)
            m.cnt[j] = 0u;
        __syncthreads();
        return false;
    }

    /* Placing a key bumps its digit's start: afterwards cnt[d] is where digit d ends. A
     * 4-byte key goes with its pos[] word (digit and position) as one rank word, in the keys'
     * and the positions' areas (8 bytes a slot): within a digit the rank words order as (key,
     * position), so one compare of them ranks a key stably. */
    unsigned long long *s_rank = (unsigned long long *)m.keys;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        if (first + (uint32_t)i * 32u < count) {
            const uint32_t slot = atomicAdd(&m.cnt[pos[i] >> 16], 1u);
            const K k = (key[i] >> begin_bit) & wmask;
            if constexpr (SEG_RANK_WORDS) {
                s_rank[slot] = (unsigned long long)k << 32 | pos[i];
            } else {
                m.keys[slot] = k;
                m.vals[slot] = pos[i];
            }
        }
    }
    __syncthreads();

    /* Each placed key's final slot: its digit's first slot plus the keys of the digit
     * before it in (key, position) order; two 16-bit slots a word (registers). Rank words
     * are compared two a step (a warp steps as often as its longest digit needs). */
    uint32_t to[(ITEMS + 1) / 2];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t slot = (uint32_t)i * THREADS + threadIdx.x;
        uint32_t r = 0;
        if (slot < count) {
            if constexpr (SEG_RANK_WORDS) {
                const unsigned long long me = s_rank[slot];
                const uint32_t d = (uint32_t)me >> 16, en = m.cnt[d];
                r = rdx_rank_words_below<unsigned long long>(s_rank, d ? m.cnt[d - 1u] : 0u, en, me);
            } else {
                const K k = m.keys[slot];
                const uint32_t p = m.vals[slot], d = p >> 16;
                const uint32_t en = m.cnt[d];
                r = d ? m.cnt[d - 1u] : 0u;
                for (uint32_t j = r; j < en; ++j) {
                    const K o = m.keys[j];
                    r += (o < k) | ((o == k) & (m.vals[j] < p));
                }
            }
        }
        if (i & 1)
            to[i >> 1] |= r << 16;
        else
            to[i >> 1] = r;
    }
    __syncthreads();
    /* The source position of each slot: over the keys, or for rank words in the counters (at
     * least the tile's words), which no thread reads any more. */
    uint32_t *s_src = SEG_RANK_WORDS ? m.cnt : (uint32_t *)m.keys;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t slot = (uint32_t)i * THREADS + threadIdx.x;
        if (slot < count)
            s_src[(to[i >> 1] >> ((i & 1) * 16)) & 0xffffu] =
                (SEG_RANK_WORDS ? (uint32_t)s_rank[slot] : m.vals[slot]) & 0xffffu;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t p = first + (uint32_t)i * 32u;
        if (p < count)
            pos[i] = s_src[p];
    }
    return true;
}

#endif /* RDX_CUDA_SEG_RANGE_CUH */
