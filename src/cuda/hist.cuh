/* Counting keys by digit for the up-front histograms (histogram.cu for whole arrays,
 * seg_passes.cu per segment): every pass's digits of a key in one go, and a round of
 * 16-byte loads, several in flight per thread. */
#ifndef RDX_CUDA_HIST_CUH
#define RDX_CUDA_HIST_CUH

#include "common.cuh"
#include "kernels.h"

/* What a histogram counts: the digits of every pass, of keys mapped by the codec (and by
 * RDX_NUMPY_ORDER's canonical code with numpy). */
typedef struct rdx_hist_digits {
    int passes, begin_bit, end_bit, radix_bits;
    int cls, desc, numpy;
    unsigned long long inf;   /* the float type's +inf pattern, with numpy */
} rdx_hist_digits;

template <typename K>
static __device__ __forceinline__ K rdx_hist_code(K k, const rdx_hist_digits &g)
{
    k = rdx_enc(k, g.cls, g.desc);
    if (sizeof(K) >= 2 && g.numpy)
        k = (K)rdx_numpy_canon((uint64_t)k, (unsigned)sizeof(K), g.inf, g.desc);
    return k;
}

/* Whether a float key's plain image c is special in NumPy's order (a NaN other than the
 * canonical one, or -0.0). The MSD route takes such keys only ascending (route_msd.cu) and
 * sorts them by their plain images, which are the canonical codes of every key that is not
 * special. In codes: +inf's is hi and -inf's lo, the canonical NaN's (the quiet one) hi +
 * half inf's lowest bit, every other NaN's outside [lo, hi], and -0.0's sign - 1. Range
 * and equality tests on the code, where the canonical code and the canonical pattern's
 * round trip took about 30 instructions an 8-byte key and made this read of the keys
 * compute-bound (f64 2^28 in NumPy's order: its histogram 1388 us against 659 us in
 * totalOrder, ncu, H200, round 61). */
template <typename K> static __device__ __forceinline__ bool rdx_numpy_special_image(K c)
{
    if constexpr (sizeof(K) < 4) {
        return false; /* (never called: the check reads 4- and 8-byte keys) */
    } else {
        const K sign = (K)((K)1 << (8 * sizeof(K) - 1));
        const K inf = (K)rdx_float_inf_bits(sizeof(K) == 4 ? RDX_F32 : RDX_F64);
        const K hi = (K)(inf ^ sign), lo = (K)~(inf | sign), nan = (K)(rdx_float_qnan_bits(inf) ^ sign);
        return ((K)(c - lo) > (K)(hi - lo) && c != nan) || c == (K)(sign - 1u);
    }
}

/* A filter for it on the key's bits, of 32-bit operations on its top word: a special key
 * has an all-ones exponent (a NaN) or is -0.0 (top word 0x80000000). The exact test, of
 * 64-bit ones, only where a key of the warp passes the filter: in the histogram's rounds
 * the test on every key held the loads of the next keys back (f64 2^28 in NumPy's order,
 * its histogram 714 us against 558 in totalOrder: ncu, H200, round 63). */
template <typename K> static __device__ __forceinline__ bool rdx_numpy_maybe_special(K key)
{
    if constexpr (sizeof(K) < 4) {
        return false; /* (never called: the check reads 4- and 8-byte keys) */
    } else {
        const uint32_t top = (uint32_t)(key >> (8 * sizeof(K) - 32));
        const uint32_t expo = sizeof(K) == 8 ? 0x7FF00000u : 0x7F800000u;
        return (top & expo) == expo || top == 0x80000000u;
    }
}

/* The code the histogram counts for a key it checks, and *special |= the key is special:
 * the plain image for the MSD route's top digit (plain), else the canonical code (the LSD
 * passes' digits where a key is special; the plain image where none is). One key (the
 * head and tail keys); the rounds take the filter first. */
template <typename K>
static __device__ __forceinline__ K rdx_numpy_checked_code(K key, bool plain, unsigned long long inf, bool *special)
{
    const K c = rdx_enc(key, RDX_CLASS_FLOAT, 0);
    *special |= rdx_numpy_special_image(c);
    return plain ? c : (K)rdx_numpy_canon((uint64_t)c, (unsigned)sizeof(K), inf, 0);
}

/* h[pass][digit] += 1 for every pass of the mapped key k (h: shared, 2^radix_bits bins a pass). */
template <typename K>
static __device__ __forceinline__ void rdx_hist_count_code(uint32_t *h, K k, const rdx_hist_digits &g)
{
    const uint32_t bins = 1u << g.radix_bits;
    for (int p = 0; p < g.passes; ++p) {
        const int shift = g.begin_bit + p * g.radix_bits;
        const uint32_t mask = (1u << min(g.radix_bits, g.end_bit - shift)) - 1u;
        atomicAdd(&h[p * bins + rdx_digit(k, shift, mask)], 1u);
    }
}

/* The joint form's counts of the MSD route's top two digits (rdx_hist_args.joint): 65536
 * 16-bit counters, two to a word of shared memory (bin b in word b / 2, half b % 2), each
 * key's bin bits [shift, shift + 16) of its code less the route's base (level 2's bins of
 * level-1 bucket d1: d1 * 256 + d2). A counter that reaches
 * RDX_HIST_JOINT_SPILL moves that many to the global counts of its bin and of its top
 * digit (the one increment that reaches it does so, then takes it off): so it never
 * carries into its neighbour, unless the block's other threads added 2^15 more to that
 * one counter between an atomic and the same thread's next few instructions. */
#define RDX_HIST_JOINT_SPILL 0x8000u
struct rdx_hist_joint {
    uint32_t *s;      /* shared: 32768 words */
    uint32_t *bins;   /* global: [256][256] */
    uint32_t *top;    /* global: the launch's top-digit counts [256] */
    int shift;        /* the second digit's lowest bit */
};

template <typename K> static __device__ __forceinline__ uint32_t rdx_hist_joint_bin(const rdx_hist_joint &j, K code)
{
    return (uint32_t)(code >> j.shift) & 0xffffu;
}

/* What a count adds to its word: 1 in the bin's half. */
static __device__ __forceinline__ uint32_t rdx_hist_joint_one(uint32_t bin)
{
    return (bin & 1u) * 0xffffu + 1u;
}

/* Adds 1 to bin's counter (count: 1, or 0 to add nothing); returns nonzero where that made
 * it reach RDX_HIST_JOINT_SPILL (the half's bit 15 turned on: it never turns off by a
 * count), for rdx_hist_joint_spill. */
static __device__ __forceinline__ uint32_t rdx_hist_joint_add(const rdx_hist_joint &j, uint32_t bin,
                                                              uint32_t count = 1u)
{
    const uint32_t one = rdx_hist_joint_one(bin) * count, old = atomicAdd(&j.s[bin >> 1], one);
    return (old ^ (old + one)) & (one << 15);
}

/* (Out of line, rarely run; its arguments by value: a reference would put the struct in
 * local memory for every call.) */
static __device__ __noinline__ void rdx_hist_joint_spill(uint32_t *s, uint32_t *bins, uint32_t *top, uint32_t bin)
{
    atomicSub(&s[bin >> 1], rdx_hist_joint_one(bin) * RDX_HIST_JOINT_SPILL);
    atomicAdd(&bins[bin], RDX_HIST_JOINT_SPILL);
    atomicAdd(&top[bin >> 8], RDX_HIST_JOINT_SPILL);
}

template <typename K> static __device__ __forceinline__ void rdx_hist_joint_count(const rdx_hist_joint &j, K code)
{
    const uint32_t bin = rdx_hist_joint_bin(j, code);
    if (rdx_hist_joint_add(j, bin))
        rdx_hist_joint_spill(j.s, j.bins, j.top, bin);
}

/* The up-front histogram's order check (rdx_hist_args.unsorted): whether two neighbouring
 * keys are out of the sort's order (RDX_ORDER_DESCENT) and, where asked, whether two are in
 * it (RDX_ORDER_ASCENT: keys with none are in the reverse order), compared by bits
 * [begin_bit, end_bit) of their codes. A warp stops checking once it has seen every kind it
 * looks for, so that keys in no order pay one round of it; keys in order (or in reverse)
 * pay it throughout, and then skip every pass (or are reversed). */
template <typename K> struct rdx_hist_order {
    const K *keys;   /* the first vector's first key */
    size_t limit;    /* keys readable from there, the next portion's first key included */
    int shift;       /* begin_bit */
    K mask;          /* the compared bits, shifted down */
    uint32_t want;   /* the kinds of pair looked for: RDX_ORDER_DESCENT, and RDX_ORDER_ASCENT */
    uint32_t seen;   /* warp-uniform: the kinds the warp has found */
    uint32_t *found; /* shared: the kinds found in the block (atomicOr) */
};

/* Whether the warp still checks. */
template <typename K> static __device__ __forceinline__ bool rdx_order_checking(const rdx_hist_order<K> &o)
{
    return (o.seen & o.want) != o.want;
}

/* The kinds of pair (prev, next) is: RDX_ORDER_DESCENT, RDX_ORDER_ASCENT, or 0 (equal). */
template <typename K> static __device__ __forceinline__ uint32_t rdx_order_kind(K prev, K next)
{
    return (prev > next ? RDX_ORDER_DESCENT : 0u) | (prev < next ? RDX_ORDER_ASCENT : 0u);
}

template <typename K>
static __device__ __forceinline__ K rdx_order_bits(K code, const rdx_hist_order<K> &o)
{
    return (K)(code >> o.shift) & o.mask;
}

/* The order check over one round of this thread's vectors (as rdx_hist_count_round reads
 * them), entered by the whole warp: lane i takes vector base + i, so that the next vector's
 * first key is the next lane's. The histogram runs these rounds before it counts, while the
 * warp checks, so that the counting rounds hold none of the check's registers. */
template <typename K, int UNROLL>
static __device__ __forceinline__ void rdx_hist_order_round(const uint4 *vec, size_t base, size_t stride, size_t nvec,
                                                            const rdx_hist_digits &g, rdx_hist_order<K> *order)
{
    enum { VEC = 16 / sizeof(K) };
    union { uint4 raw[UNROLL]; K k[UNROLL * VEC]; } u;
    int loaded = 0; /* vectors of this round that exist (a prefix) */
    const bool last_lane = rdx_lane() == 31u;
    K after[UNROLL]; /* the key after vector r where the next lane does not hold it */
#pragma unroll
    for (int r = 0; r < UNROLL; ++r) {
        const size_t v = base + r * stride;
        const bool ok = v < nvec;
        u.raw[r] = ok ? vec[v] : make_uint4(0u, 0u, 0u, 0u);
        loaded += ok;
        /* loaded beside the vectors, not after them: one wait for both */
        after[r] = ok && (last_lane || v + 1 >= nvec) && (v + 1) * VEC < order->limit ? order->keys[(v + 1) * VEC]
                                                                                      : (K)0;
    }
    uint32_t kinds = 0;
#pragma unroll
    for (int r = 0; r < UNROLL; ++r) {
        const size_t v = base + r * stride; /* loaded where r < loaded */
        K prev = rdx_order_bits(rdx_hist_code(u.k[r * VEC], g), *order);
        const K next_lanes = __shfl_down_sync(RDX_FULL_WARP, prev, 1); /* vector v + 1's first */
        if (r < loaded) {
#pragma unroll
            for (int j = 1; j < VEC; ++j) {
                const K cur = rdx_order_bits(rdx_hist_code(u.k[r * VEC + j], g), *order);
                kinds |= rdx_order_kind(prev, cur);
                prev = cur;
            }
            if (v + 1 < nvec && !last_lane)
                kinds |= rdx_order_kind(prev, next_lanes);
            else if ((v + 1) * VEC < order->limit) /* the next warp's, or past the vectors */
                kinds |= rdx_order_kind(prev, rdx_order_bits(rdx_hist_code(after[r], g), *order));
        }
    }
    const uint32_t warp_kinds = __reduce_or_sync(RDX_FULL_WARP, kinds) & order->want;
    if (warp_kinds & ~order->seen && rdx_lane() == 0)
        atomicOr(order->found, warp_kinds);
    order->seen |= warp_kinds;
}

/* One round of this thread: the vectors vec[base + r * stride] for r < UNROLL that lie
 * below nvec, loaded first (all in flight), then counted pass by pass. Equal digits in a
 * warp (sorted or low-entropy keys) cost little: the hardware merges same-address
 * increments of one instruction. BYTES: the digits are the key's bytes, every pass
 * (8-bit digits from bit 0 to the top): in a round of UNROLL vectors, shifts, masks and
 * pass offsets are known when compiled and no vector is tested, 3 instructions a count
 * where the general loop takes about 6 (the counting, not the loads, bounds this kernel).
 * SPECIAL (floats in NumPy's order, rdx_hist_args.special): *special |= a key is special
 * there (rdx_numpy_special_image), so that the MSD route, which sorts by the plain images
 * (RANGE: its top digit, the images counted), and the LSD passes' plain twins are checked
 * in this read of the keys. CANON false: g.numpy is 0, and the canonical code's branch is
 * left out of the rounds (predicated, it took issue slots and registers from every key).
 * JOINT (with RANGE): the top two digits counted (rdx_hist_joint), not the top one. */
template <typename K, int UNROLL, bool BYTES = false, bool RANGE = false, bool SPECIAL = false, bool CANON = true,
          bool JOINT = false>
static __device__ __forceinline__ void rdx_hist_count_round(uint32_t *h, const uint4 *vec, size_t base, size_t stride,
                                                            size_t nvec, const rdx_hist_digits &g, K *range = nullptr,
                                                            K msd_base = 0, bool *special = nullptr,
                                                            const rdx_hist_joint *joint = nullptr)
{
    enum { VEC = 16 / sizeof(K) };
    union { uint4 raw[UNROLL]; K k[UNROLL * VEC]; } u;
    int loaded = 0; /* vectors of this round that exist (a prefix) */
#pragma unroll
    for (int r = 0; r < UNROLL; ++r) {
        const bool ok = base + r * stride < nvec;
        u.raw[r] = ok ? vec[base + r * stride] : make_uint4(0u, 0u, 0u, 0u);
        loaded += ok;
    }
    if (SPECIAL) { /* (vectors past nvec read as +0.0, not special) */
        bool maybe = false;
#pragma unroll
        for (int j = 0; j < UNROLL * VEC; ++j) {
            maybe |= rdx_numpy_maybe_special(u.k[j]);
            u.k[j] = rdx_enc(u.k[j], RDX_CLASS_FLOAT, 0); /* the plain image */
        }
        if (__any_sync(__activemask(), maybe))
#pragma unroll
            for (int j = 0; j < UNROLL * VEC; ++j)
                *special |= rdx_numpy_special_image(u.k[j]);
    }
#pragma unroll
    for (int j = 0; j < UNROLL * VEC; ++j) {
        if (SPECIAL && !RANGE)
            u.k[j] = (K)rdx_numpy_canon((uint64_t)u.k[j], (unsigned)sizeof(K), g.inf, 0);
        else if (!SPECIAL)
            u.k[j] = CANON ? rdx_hist_code(u.k[j], g) : rdx_enc(u.k[j], g.cls, g.desc);
        if (RANGE) /* the MSD route's top digit: the code less its base (ctrl[RDX_MSD_BASE]) */
            u.k[j] -= msd_base;
        if (RANGE && j / VEC < loaded) /* RANGE: range[2], rdx_or_vary of every code */
            rdx_or_vary(range, u.k[j]);
    }
    if constexpr (JOINT) { /* RANGE: the MSD route's top two digits (rdx_hist_joint) */
        /* Every count of the round before any spill test, and no branch among them: each
         * test waits for its atomic's old value, and ptxas ran the atomics one at a time
         * behind per-key tests or branches (u32 at 2^28, ncu: this kernel 593 us, now 484,
         * the plain one 391). */
        uint32_t bin[UNROLL * VEC], hit[UNROLL * VEC]; /* (the keys no longer held: 8-byte ones spilled) */
#pragma unroll
        for (int j = 0; j < UNROLL * VEC; ++j)
            bin[j] = rdx_hist_joint_bin(*joint, u.k[j]);
        uint32_t any = 0;
#pragma unroll
        for (int j = 0; j < UNROLL * VEC; ++j) /* (no branch: a key past the end adds 0) */
            hit[j] = rdx_hist_joint_add(*joint, bin[j], j / VEC < loaded);
#pragma unroll
        for (int j = 0; j < UNROLL * VEC; ++j)
            any |= hit[j];
        if (any)
#pragma unroll
            for (int j = 0; j < UNROLL * VEC; ++j)
                if (hit[j])
                    rdx_hist_joint_spill(joint->s, joint->bins, joint->top, bin[j]);
        return;
    }
    if (BYTES && loaded == UNROLL) {
#pragma unroll
        for (int p = 0; p < (int)sizeof(K); ++p)
#pragma unroll
            for (int j = 0; j < UNROLL * VEC; ++j)
                atomicAdd(&h[p * 256 + rdx_digit(u.k[j], 8 * p, 0xffu)], 1u);
        return;
    }
    const uint32_t bins = 1u << g.radix_bits;
    for (int p = 0; p < g.passes; ++p) {
        const int shift = g.begin_bit + p * g.radix_bits;
        const uint32_t mask = (1u << min(g.radix_bits, g.end_bit - shift)) - 1u;
        uint32_t *hp = h + p * bins;
#pragma unroll
        for (int j = 0; j < UNROLL * VEC; ++j)
            if (j / VEC < loaded)
                atomicAdd(&hp[rdx_digit(u.k[j], shift, mask)], 1u);
    }
}

/* The MSD route's leading bits that its sample found constant (ctrl[RDX_MSD_DROP]) vary in
 * some key after all: the histogram's ORs of every key and its complement
 * (ctrl[RDX_MSD_RANGE]) have a common bit above the route's top digit. Or, in NumPy's
 * order, a key the route's plain images would misplace is there (ctrl[RDX_MSD_SPECIAL]).
 * key_bits: 32 or 64. */
static __device__ __forceinline__ bool rdx_msd_range_missed(const uint32_t *ctrl, int key_bits)
{
    if (ctrl[RDX_MSD_SPECIAL])
        return true;
    const int drop = (int)ctrl[RDX_MSD_DROP];
    if (drop == 0)
        return false;
    const unsigned long long ones = rdx_u64_of(ctrl + RDX_MSD_RANGE), zeros = rdx_u64_of(ctrl + RDX_MSD_RANGE + 2);
    return ((ones & zeros) >> (key_bits - drop)) != 0ull;
}

/* Whether the MSD route, armed, falls back to the LSD passes (RDX_MSD_MISSED): its sample
 * missed the keys' range, or a top digit holds more keys than a look-back count (kernels.h,
 * rdx_msd_bucket_check). The same answer in every thread: a barrier, for the whole block. */
static __device__ __forceinline__ bool rdx_msd_falls_back(const uint32_t *ctrl, int key_bits,
                                                          const rdx_msd_bucket_check &c)
{
    bool big = false;
    if (c.portions > 1)
        for (uint32_t d = threadIdx.x; d < RDX_CUDA_MAX_BINS; d += blockDim.x) {
            size_t keys = 0;
            for (size_t k = 0; k < c.portions; ++k)
                keys += c.counts[(k * (size_t)(c.top + 1) + (size_t)c.top) * RDX_CUDA_MAX_BINS + d];
            big |= keys > c.bucket_max;
        }
    return __syncthreads_or(big) || rdx_msd_range_missed(ctrl, key_bits);
}

#endif /* RDX_CUDA_HIST_CUH */
