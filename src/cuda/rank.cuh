/* Warp-level ranking of a tile of keys by one digit, shared by the pass kernel
 * (onesweep.cu), the small-n kernel (small.cu), the grid kernel (grid.cu) and the
 * cluster kernel (cluster.cu).
 *
 * Keys are held warp-striped: item i of lane l in warp w is the tile's key
 * w*32*ITEMS + i*32 + l. In step i a warp's 32 lanes hold 32 consecutive keys, so
 * ranking the steps in order, lanes in lane order, keeps equal digits in input order:
 * that is what makes every pass stable. */
#ifndef RDX_CUDA_RANK_CUH
#define RDX_CUDA_RANK_CUH

#include "common.cuh"

/* The lanes that agree with this lane on bit `bit` of d: the ballot of that bit, inverted
 * where this lane's bit is clear. Four instructions; the plain C form compiled to seven. */
static __device__ __forceinline__ uint32_t rdx_agree(uint32_t d, uint32_t bit)
{
    uint32_t m;
    asm("{\n\t.reg .pred p;\n\t"
        "and.b32 %0, %1, %2;\n\t"
        "setp.ne.u32 p, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
        "@!p not.b32 %0, %0;\n\t"
        "}"
        : "=r"(m)
        : "r"(d), "r"(bit));
    return m;
}

/* The lanes of the warp whose digit of BITS bits (known when compiled) equals this
 * lane's: one ballot per bit, each keeping the lanes that agree with this lane on that
 * bit. Every lane takes part. */
template <int BITS> static __device__ __forceinline__ uint32_t rdx_match_fixed(uint32_t d)
{
    uint32_t peers = RDX_FULL_WARP;
#pragma unroll
    for (int b = 0; b < BITS; ++b)
        peers &= rdx_agree(d, 1u << b);
    return peers;
}

/* The same for 8-bit digits. */
static __device__ __forceinline__ uint32_t rdx_match8(uint32_t d)
{
#if RDX_RANK_USE_MATCH_ANY
    return __match_any_sync(RDX_FULL_WARP, d);
#else
    return rdx_match_fixed<8>(d);
#endif
}

/* The same for digits of `bits` bits (1..8), where only lanes with `valid` take part as
 * peers (invalid lanes group among themselves and are ignored by the caller). */
static __device__ __forceinline__ uint32_t rdx_match_bits(uint32_t d, bool valid, int bits)
{
#if RDX_RANK_USE_MATCH_ANY
    (void)bits;
    return __match_any_sync(RDX_FULL_WARP, valid ? d : 0xffffffffu);
#else
    const uint32_t v = __ballot_sync(RDX_FULL_WARP, valid);
    uint32_t peers = valid ? v : ~v;
#pragma unroll
    for (int b = 0; b < 8; ++b) {
        if (b < bits) /* warp-uniform */
            peers &= rdx_agree(d, 1u << b);
    }
    return peers;
#endif
}

/* lo plus how many of the rank words w[lo, en) are below me: where the rank words of a
 * run of equal digits all differ (a key above its tie-break), the slot of me's key in the
 * run (MSD route's level 3, msd.cu; the segmented range sort, seg_range.cuh). Two a step,
 * the second only where it is in the run (else me itself, which counts nothing): a warp
 * steps as often as its longest run needs; the compiler's unrolled loop with a remainder
 * first took twice the instructions (ncu, H200, round 43: u32/u32 2^28). */
template <typename W>
static __device__ __forceinline__ uint32_t rdx_rank_words_below(const W *w, uint32_t lo, uint32_t en, W me)
{
    uint32_t r = lo;
#pragma unroll 1
    for (uint32_t j = lo; j < en; j += 2u) {
        const W o0 = w[j], o1 = j + 1u < en ? w[j + 1u] : me;
        r += (uint32_t)(o0 < me) + (uint32_t)(o1 < me);
    }
    return r;
}

/* Shared memory of a block that ranks a tile of TILE keys with THREADS threads through
 * the functions below: the tile reordered by digit (s_keys, then s_vals), the per-warp
 * digit counters s_wcnt, s_start and s_scan. Byte offsets from the start of the dynamic
 * shared memory; a kernel that needs more puts its own words from END on. */
template <int KB, int VB, int THREADS, int TILE> struct rdx_rank_layout {
    static constexpr size_t KEYS = 0;
    static constexpr size_t VALS = (KEYS + (size_t)TILE * KB + 15) / 16 * 16;
    static constexpr size_t WCNT = (VALS + (size_t)TILE * VB + 15) / 16 * 16;
    static constexpr size_t START = WCNT + (size_t)(THREADS / 32) * RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t SCAN = START + RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t END = SCAN + 32 * 4;
};

/* The one-launch kernels (small.cu, grid.cu, cluster.cu) hold a tile in registers,
 * warp-striped: item i of this thread is element chunk + first + 32 i, first =
 * warp * 32 * ITEMS + lane. rdx_load_tile encodes the keys and takes the values from vin,
 * or the element's index where vin is NULL; items at or past count are zero. */
template <int VB, typename K, typename V, int ITEMS>
static __device__ __forceinline__ void rdx_load_tile(const K *kin, const V *vin, uint32_t chunk, uint32_t count,
                                                     uint32_t first, int cls, int desc, K (&key)[ITEMS],
                                                     V (&val)[ITEMS])
{
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t pos = first + (uint32_t)i * 32u;
        key[i] = pos < count ? rdx_enc(kin[chunk + pos], cls, desc) : K{};
        if (VB)
            val[i] = pos < count ? (vin ? vin[chunk + pos] : (V)(chunk + pos)) : (V)0;
    }
}

/* Stores the tile back decoded: keys to kout (unless NULL), values to vout. */
template <int VB, typename K, typename V, int ITEMS>
static __device__ __forceinline__ void rdx_store_tile(K *kout, V *vout, uint32_t chunk, uint32_t count, uint32_t first,
                                                      int cls, int desc, const K (&key)[ITEMS], const V (&val)[ITEMS])
{
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t pos = first + (uint32_t)i * 32u;
        if (pos < count) {
            if (kout)
                kout[chunk + pos] = rdx_dec(key[i], cls, desc);
            if (VB)
                vout[chunk + pos] = val[i];
        }
    }
}

/* Inclusive prefix sum over the warp's lanes (lane: this thread's lane). */
template <typename T> static __device__ __forceinline__ T rdx_warp_incl_scan(T x, uint32_t lane)
{
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const T y = __shfl_up_sync(RDX_FULL_WARP, x, o);
        if (lane >= (uint32_t)o)
            x += y;
    }
    return x;
}

/* Exclusive prefix sum of one value per thread over the block. s_warp holds THREADS/32
 * words; the caller puts a __syncthreads() between two calls that share it. One barrier:
 * each warp sums the totals of the warps before it from shared memory itself (a load and a
 * butterfly), where a scan of the totals by one warp would take a second barrier. H200,
 * round 20: the 1024-key segment bin 3% faster (device call 1); the whole-array benchmark
 * unchanged (call 4: 75 rows, u32 to u64/u64, 2^16 to 2^28, within noise). */
template <int THREADS>
static __device__ __forceinline__ uint32_t rdx_block_excl_scan(uint32_t v, uint32_t *s_warp)
{
    enum { WARPS = THREADS / 32 };
    /* the least power of two of lanes that holds every warp's total */
    enum { SPAN = WARPS <= 1 ? 1 : WARPS <= 2 ? 2 : WARPS <= 4 ? 4 : WARPS <= 8 ? 8 : WARPS <= 16 ? 16 : 32 };
    static_assert(WARPS >= 1 && WARPS <= 32, "1 to 32 warps");
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t x = rdx_warp_incl_scan(v, lane);
    if (lane == 31)
        s_warp[warp] = x;
    __syncthreads();
    uint32_t before = lane < warp ? s_warp[lane] : 0u; /* lanes < warp < WARPS; the rest 0 */
#pragma unroll
    for (int o = SPAN / 2; o > 0; o >>= 1)
        before += __shfl_xor_sync(RDX_FULL_WARP, before, o);
    /* lanes 0 .. SPAN-1 now hold the sum over them */
    return __shfl_sync(RDX_FULL_WARP, before, 0) + x - v;
}

/* Digit d's column of the per-warp counters (s_wcnt, a row of RDX_CUDA_MAX_BINS words
 * per warp): rdx_warps_excl_scan turns each warp's count of d into the count of d in the
 * warps before it and returns the tile's count of d; rdx_warps_add adds d's first slot in
 * the tile to each. */
template <int WARPS> static __device__ __forceinline__ uint32_t rdx_warps_excl_scan(uint32_t *s_wcnt, uint32_t d)
{
    uint32_t total = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        const uint32_t c = s_wcnt[w * RDX_CUDA_MAX_BINS + d];
        s_wcnt[w * RDX_CUDA_MAX_BINS + d] = total;
        total += c;
    }
    return total;
}

template <int WARPS> static __device__ __forceinline__ void rdx_warps_add(uint32_t *s_wcnt, uint32_t d, uint32_t start)
{
#pragma unroll
    for (int w = 0; w < WARPS; ++w)
        s_wcnt[w * RDX_CUDA_MAX_BINS + d] += start;
}

/* Ranking a tile takes three steps, so that the pass kernel can publish its digit counts
 * for the look-back as early as possible (after the first):
 *   rdx_count_tile   per-warp digit counts (shared-memory atomics, no dependency between
 *                    items), then, for thread t < 2^bits, the exclusive scan of digit t
 *                    over the warps; returns the tile's count of digit t;
 *   rdx_offset_tile  the exclusive scan over digits (s_start[d], the first slot of digit
 *                    d), folded into each warp's offsets;
 *   rdx_rank_scatter each item's slot: the lanes holding the same digit find each other,
 *                    the lowest bumps the warp's offset for the whole group, and each lane
 *                    adds the number of its peers below it; the item goes to shared
 *                    memory at once (no array of ranks held in registers).
 * Items at or past `count` are left out and get meaningless slots. Shared memory: s_wcnt
 * WARPS*256 words, s_start 256, s_scan WARPS. */
template <typename K, int ITEMS, int THREADS, bool ZEROED = false>
static __device__ __forceinline__ uint32_t rdx_count_tile(const K (&key)[ITEMS], uint32_t count, int shift,
                                                          int bits, uint32_t *s_wcnt)
{
    enum { WARPS = THREADS / 32 };
    static_assert(THREADS >= RDX_CUDA_MAX_BINS, "one thread per digit in the scans");
    const uint32_t warp = threadIdx.x >> 5;
    const uint32_t bins = 1u << bits, mask = bins - 1u;
    if (!ZEROED) { /* (ZEROED: the caller keeps the counters zero between tiles, rdx_zero_warp_row) */
        for (uint32_t j = threadIdx.x; j < WARPS * RDX_CUDA_MAX_BINS; j += THREADS)
            s_wcnt[j] = 0;
        __syncthreads();
    }
    uint32_t *wc = s_wcnt + warp * RDX_CUDA_MAX_BINS;
    if (count == (uint32_t)(ITEMS * THREADS)) { /* a full tile: no test per item */
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            atomicAdd(&wc[rdx_digit(key[i], shift, mask)], 1u);
    } else {
        const uint32_t first = warp * 32u * ITEMS + rdx_lane();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (first + (uint32_t)i * 32u < count)
                atomicAdd(&wc[rdx_digit(key[i], shift, mask)], 1u);
    }
    __syncthreads();
    return threadIdx.x < bins ? rdx_warps_excl_scan<WARPS>(s_wcnt, threadIdx.x) : 0u;
}

/* Zeroes this warp's row of the counters (s_wcnt), for a caller of rdx_count_tile<ZEROED>: after
 * the tile's last use of the row by its own warp, and after the block's last scan over the
 * rows (rdx_offset_tile's closing barrier), so that the next tile needs no barrier for it. */
static __device__ __forceinline__ void rdx_zero_warp_row(uint32_t *s_wcnt)
{
    uint32_t *wc = s_wcnt + (threadIdx.x >> 5) * RDX_CUDA_MAX_BINS;
    __syncwarp(); /* the warp's lanes are done with the row */
#pragma unroll
    for (uint32_t j = rdx_lane(); j < RDX_CUDA_MAX_BINS; j += 32)
        wc[j] = 0u;
}

/* total: rdx_count_tile's result. Ends synchronized. ASK: returns, in every thread,
 * whether one digit holds `whole` keys (from the barrier it ends with). */
template <int THREADS, bool ASK>
static __device__ __forceinline__ bool rdx_offset_tile_impl(uint32_t total, int bits, uint32_t *s_wcnt,
                                                            uint32_t *s_start, uint32_t *s_scan, uint32_t whole)
{
    enum { WARPS = THREADS / 32 };
    const uint32_t bins = 1u << bits;
    const uint32_t start = rdx_block_excl_scan<THREADS>(threadIdx.x < bins ? total : 0u, s_scan);
    if (threadIdx.x < bins) {
        s_start[threadIdx.x] = start;
        rdx_warps_add<WARPS>(s_wcnt, threadIdx.x, start);
    }
    if (ASK)
        return __syncthreads_or(threadIdx.x < bins && total == whole) != 0;
    __syncthreads();
    return false;
}

template <int THREADS>
static __device__ __forceinline__ void rdx_offset_tile(uint32_t total, int bits, uint32_t *s_wcnt,
                                                       uint32_t *s_start, uint32_t *s_scan)
{
    rdx_offset_tile_impl<THREADS, false>(total, bits, s_wcnt, s_start, s_scan, 0u);
}

/* rdx_offset_tile, and whether the tile of `whole` keys (a full one) has one digit only:
 * then every key already sits at its slot (digit d starts at 0) and needs no ranking. */
template <int THREADS>
static __device__ __forceinline__ bool rdx_offset_tile_one_digit(uint32_t total, int bits, uint32_t *s_wcnt,
                                                                 uint32_t *s_start, uint32_t *s_scan, uint32_t whole)
{
    return rdx_offset_tile_impl<THREADS, true>(total, bits, s_wcnt, s_start, s_scan, whole);
}

/* One step of a warp's ranking: this lane's item's slot among the warp's items of digit d
 * counted so far in its counters wc is the result plus *below_out. The lanes holding the same digit find each other,
 * the group's leader (its highest lane) adds the group to wc[d], and each lane adds the
 * number of its peers below it. FAST: a full tile and 8-bit digits, the case that decides
 * the speed (no validity test, no per-bit branch). MA: equal digits found by MATCH.ANY,
 * whose cost grows with the distinct digits in the warp (cheaper than the ballots with a
 * few of them). The shuffle also keeps the warp's steps in order: the next step's leader
 * adds after this one. lane: this thread's lane, below_mask the lanes below it (the caller
 * keeps both for the whole tile). Meaningless where !valid. */
template <bool FAST, bool MA, int FIXED = 0>
static __device__ __forceinline__ uint32_t rdx_rank_step(uint32_t d, bool valid, int bits, uint32_t *wc,
                                                         uint32_t lane, uint32_t below_mask, uint32_t *below_out)
{
    const uint32_t peers = MA      ? __match_any_sync(RDX_FULL_WARP, valid ? d : 0xffffffffu)
                           : FIXED ? rdx_match_fixed<FIXED>(d)
                           : FAST  ? rdx_match8(d)
                                   : rdx_match_bits(d, valid, bits);
    const uint32_t below = __popc(peers & below_mask);
    const uint32_t leader = 31u - __clz(peers);
    uint32_t base = 0;
    if (valid && lane == leader) /* the group's highest lane: the group has below + 1 */
        base = atomicAdd(&wc[d], below + 1u);
    *below_out = below;
    return __shfl_sync(RDX_FULL_WARP, base, leader);
}

/* FIXED: a full tile of digits of FIXED bits (0: not known when compiled). */
template <bool FAST, bool MA, int VB, int FIXED = 0, typename K, typename V, int ITEMS>
static __device__ __forceinline__ void rdx_rank_scatter_impl(const K (&key)[ITEMS], const V (&val)[ITEMS],
                                                             uint32_t count, int shift, int bits, uint32_t *s_wcnt,
                                                             K *s_keys, V *s_vals)
{
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t mask = (1u << bits) - 1u;
    uint32_t *wc = s_wcnt + warp * RDX_CUDA_MAX_BINS;
    const uint32_t below_mask = (1u << lane) - 1u;
    const uint32_t first = warp * 32u * ITEMS + lane;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const bool valid = FAST || FIXED || first + (uint32_t)i * 32u < count;
        const uint32_t d = valid ? rdx_digit(key[i], shift, mask) : 0u;
        uint32_t below;
        const uint32_t base = rdx_rank_step<FAST, MA, FIXED>(d, valid, bits, wc, lane, below_mask, &below);
        if (valid) {
            s_keys[base + below] = key[i];
            if (VB)
                s_vals[base + below] = val[i];
        }
    }
}

/* Keys alone, in any order within a digit: each item takes the next slot of its digit in
 * its warp's counters by an atomic with return, with no search for the lanes that share
 * it. Lanes of one atomic that hit the same counter queue on it, so where a full warp
 * holds one digit (sorted keys, a bucket of equal ones) its first lane takes 32 slots for
 * all (one MATCH.ALL a step), and where one digit value `hot` holds many of the keys (hot <
 * 256: the pass's crowded digit, RDX_PASS_CROWDED) one ballot finds the lanes that hold it
 * and the first of them takes their slots. */
template <bool HOT, typename K, int ITEMS>
static __device__ __forceinline__ void rdx_rank_scatter_any_full(const K (&key)[ITEMS], int shift, uint32_t mask,
                                                                 uint32_t *wc, uint32_t hot, K *s_keys)
{
    const uint32_t lane = rdx_lane(), below_mask = (1u << lane) - 1u;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t d = rdx_digit(key[i], shift, mask);
        uint32_t slot;
        if (HOT) {
            const uint32_t on = __ballot_sync(RDX_FULL_WARP, d == hot);
            uint32_t base = 0;
            if (on != 0u && lane == (uint32_t)__ffs(on) - 1u)
                base = atomicAdd(&wc[hot], (uint32_t)__popc(on));
            base = __shfl_sync(RDX_FULL_WARP, base, on ? __ffs(on) - 1 : 0);
            slot = d == hot ? base + (uint32_t)__popc(on & below_mask) : atomicAdd(&wc[d], 1u);
        } else {
            int same;
            __match_all_sync(RDX_FULL_WARP, d, &same);
            if (same) { /* the same in every lane */
                uint32_t base = 0;
                if (lane == 0)
                    base = atomicAdd(&wc[d], 32u);
                slot = __shfl_sync(RDX_FULL_WARP, base, 0) + lane;
            } else {
                slot = atomicAdd(&wc[d], 1u);
            }
        }
        s_keys[slot] = key[i];
    }
}

template <typename K, int ITEMS>
static __device__ __forceinline__ void rdx_rank_scatter_any(const K (&key)[ITEMS], uint32_t count, int shift,
                                                            int bits, uint32_t *s_wcnt, K *s_keys, bool full,
                                                            uint32_t hot)
{
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5, mask = (1u << bits) - 1u;
    uint32_t *wc = s_wcnt + warp * RDX_CUDA_MAX_BINS;
    const uint32_t first = warp * 32u * ITEMS + lane;
    if (full && hot <= mask) {
        rdx_rank_scatter_any_full<true>(key, shift, mask, wc, hot, s_keys);
    } else if (full) {
        rdx_rank_scatter_any_full<false>(key, shift, mask, wc, hot, s_keys);
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (first + (uint32_t)i * 32u < count)
                s_keys[atomicAdd(&wc[rdx_digit(key[i], shift, mask)], 1u)] = key[i];
    }
}

/* Writes each valid item (and its value when VB > 0) to its slot in the tile stably
 * sorted by digit: s_keys[slot], s_vals[slot]. Consumes the offsets in s_wcnt (they end
 * as the next free slot of each digit per warp). No barrier at the end. few: the digit
 * takes few values over the whole input (RDX_PASS_FEW). unordered: keys alone (VB = 0)
 * may leave in any order within a digit (the lowest digit's pass, or a level of the MSD
 * route: the passes above or the levels below decide the rest, and equal keys are
 * alike); hot: then the digit value that holds many of the keys (RDX_PASS_CROWDED), or
 * RDX_RANK_NO_HOT. */
template <int VB, typename K, typename V, int ITEMS, int THREADS>
static __device__ __forceinline__ void rdx_rank_scatter(const K (&key)[ITEMS], const V (&val)[ITEMS], uint32_t count,
                                                        int shift, int bits, uint32_t *s_wcnt, K *s_keys, V *s_vals,
                                                        bool few = false, bool unordered = false,
                                                        uint32_t hot = RDX_RANK_NO_HOT)
{
    if (VB == 0 && unordered && !few) {
        rdx_rank_scatter_any<K, ITEMS>(key, count, shift, bits, s_wcnt, s_keys, count == (uint32_t)(ITEMS * THREADS),
                                       hot);
        return;
    }
    /* Keys of 4 and 8 bytes alone: with values the pass kernel spilled, and with 2-byte
     * keys the other passes lost 10% at 2^22 (code placement, not the flag). Pairs too
     * were slower again in round 20 (H200, device call 2, rdx/CUB: u32/u32 few 2^22
     * 0.95x -> 0.93x, uniform 2^22 1.08x -> 1.04x, lowentropy 2^26 1.13x -> 1.10x). */
    if (VB == 0 && sizeof(K) >= 4 && RDX_RANK_FEW_DIGITS && few)
        rdx_rank_scatter_impl<false, true, VB>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals);
    else if (bits == 8 && count == (uint32_t)(ITEMS * THREADS))
        rdx_rank_scatter_impl<true, false, VB>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals);
    else
        rdx_rank_scatter_impl<false, false, VB>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals);
}

/* rdx_rank_scatter for digits of at most FIXED bits (the pass kernel's case analysis left
 * out): full tiles of FIXED-bit digits with FIXED ballots and no test per item. */
template <int FIXED, int VB, typename K, typename V, int ITEMS, int THREADS>
static __device__ __forceinline__ void rdx_rank_scatter_fixed(const K (&key)[ITEMS], const V (&val)[ITEMS],
                                                              uint32_t count, int shift, int bits, uint32_t *s_wcnt,
                                                              K *s_keys, V *s_vals)
{
    if (bits == FIXED && count == (uint32_t)(ITEMS * THREADS))
        rdx_rank_scatter_impl<false, false, VB, FIXED>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals);
    else
        rdx_rank_scatter_impl<false, false, VB>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals);
}

/* ---- ranking in one sweep, for a block that sorts a tile it holds alone ----
 * The block sorts of seg_tile.cu need no digit counts before the ranking (nothing is
 * published for a look-back), so each item's rank within its warp is found while the
 * warp's counters are counted: the leader of each group of equal digits adds the group
 * and gets the count before it. Per pass: rdx_rank_local, a barrier, rdx_rank_offsets
 * (its own two barriers), then rdx_rank_place, which also zeroes the warp's counters for
 * the next pass; a barrier before the tile is read back. Four barriers per pass where the
 * three steps above take seven. s_wcnt: WARPS rows of RDX_CUDA_MAX_BINS words, all zero
 * before the first pass. */

/* Item i's slot among the warp's items of its digit, counted in the warp's row of s_wcnt:
 * below 32 * ITEMS, so two ranks share a word (rank[i / 2], the low half for even i), which
 * keeps the largest bin's 16 items from spilling more. Items at or past count are left
 * out (rank meaningless). */
#define RDX_RANK_WORDS(items) (((items) + 1) / 2)

static __device__ __forceinline__ uint32_t rdx_rank_get(const uint32_t *rank, int i)
{
    return (rank[i >> 1] >> ((i & 1) * 16)) & 0xffffu;
}

template <bool FAST, typename K, int ITEMS>
static __device__ __forceinline__ void rdx_rank_local_impl(const K (&key)[ITEMS], uint32_t count, int shift,
                                                           int bits, uint32_t *s_wcnt, uint32_t (&rank)[RDX_RANK_WORDS(ITEMS)])
{
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t mask = (1u << bits) - 1u, below_mask = (1u << lane) - 1u;
    const uint32_t first = warp * 32u * ITEMS + lane;
    uint32_t *wc = s_wcnt + warp * RDX_CUDA_MAX_BINS;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const bool valid = FAST || first + (uint32_t)i * 32u < count;
        const uint32_t d = valid ? rdx_digit(key[i], shift, mask) : 0u;
        uint32_t below;
        const uint32_t r = rdx_rank_step<FAST, false>(d, valid, bits, wc, lane, below_mask, &below) + below;
        if (i & 1)
            rank[i >> 1] |= r << 16;
        else
            rank[i >> 1] = r;
    }
}

template <int THREADS, typename K, int ITEMS>
static __device__ __forceinline__ void rdx_rank_local(const K (&key)[ITEMS], uint32_t count, int shift, int bits,
                                                      uint32_t *s_wcnt, uint32_t (&rank)[RDX_RANK_WORDS(ITEMS)])
{
    if (bits == 8 && count == (uint32_t)(ITEMS * THREADS))
        rdx_rank_local_impl<true>(key, count, shift, bits, s_wcnt, rank);
    else
        rdx_rank_local_impl<false>(key, count, shift, bits, s_wcnt, rank);
}

/* After rdx_rank_local and a barrier: each warp's counters become the first slot of its
 * items of each digit in the tile (over digits, then warps). Returns, in every thread,
 * whether one digit holds all count keys (the pass moves nothing); *s_one is that flag's
 * word, which the caller clears before the barrier that precedes this call. Ends
 * synchronized. */
template <int THREADS>
static __device__ __forceinline__ bool rdx_rank_offsets(uint32_t count, int bits, uint32_t *s_wcnt,
                                                        uint32_t *s_scan, volatile uint32_t *s_one)
{
    enum { WARPS = THREADS / 32 };
    static_assert(THREADS >= RDX_CUDA_MAX_BINS, "one thread per digit in the scans");
    const uint32_t t = threadIdx.x, bins = 1u << bits;
    uint32_t total = 0;
    if (t < bins) {
        total = rdx_warps_excl_scan<WARPS>(s_wcnt, t);
        if (total == count)
            *s_one = 1u;
    }
    const uint32_t start = rdx_block_excl_scan<THREADS>(t < bins ? total : 0u, s_scan);
    if (t < bins)
        rdx_warps_add<WARPS>(s_wcnt, t, start);
    __syncthreads();
    return *s_one != 0u;
}

/* Writes each valid item and its value to its slot (the warp's offset of its digit plus
 * its rank), unless `move` is false, then zeroes the warp's counters. No barrier at the
 * end. */
template <int VB, typename K, typename V, int ITEMS>
static __device__ __forceinline__ void rdx_rank_place(const K (&key)[ITEMS], const V (&val)[ITEMS],
                                                      const uint32_t (&rank)[RDX_RANK_WORDS(ITEMS)], uint32_t count, int shift,
                                                      int bits, bool move, uint32_t *s_wcnt, K *s_keys, V *s_vals)
{
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t mask = (1u << bits) - 1u, first = warp * 32u * ITEMS + lane;
    uint32_t *wc = s_wcnt + warp * RDX_CUDA_MAX_BINS;
    if (move) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            if (first + (uint32_t)i * 32u < count) {
                const uint32_t slot = wc[rdx_digit(key[i], shift, mask)] + rdx_rank_get(rank, i);
                s_keys[slot] = key[i];
                if (VB)
                    s_vals[slot] = val[i];
            }
        }
    }
    __syncwarp(); /* the warp's reads of its counters before they are cleared */
#pragma unroll
    for (uint32_t j = lane; j < RDX_CUDA_MAX_BINS; j += 32)
        wc[j] = 0u;
}

#endif /* RDX_CUDA_RANK_CUH */
