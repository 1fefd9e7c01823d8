/* Warp-level ranking of a tile of keys by one digit, shared by the pass kernel
 * (onesweep.cu) and the small-n kernel (small.cu).
 *
 * Keys are held warp-striped: item i of lane l in warp w is the tile's key
 * w*32*ITEMS + i*32 + l. In step i a warp's 32 lanes hold 32 consecutive keys, so
 * ranking the steps in order, lanes in lane order, keeps equal digits in input order:
 * that is what makes every pass stable. */
#ifndef RDX_CUDA_RANK_CUH
#define RDX_CUDA_RANK_CUH

#include "common.cuh"

#define RDX_FULL_WARP 0xffffffffu

/* The lanes of the warp whose digit equals this lane's (valid lanes match only valid
 * lanes; invalid ones group among themselves and are ignored by the caller). */
static __device__ __forceinline__ uint32_t rdx_match_digit(uint32_t d, bool valid, int bits)
{
#if RDX_RANK_USE_MATCH_ANY
    (void)bits;
    return __match_any_sync(RDX_FULL_WARP, valid ? d : 0xffffffffu);
#else
    uint32_t peers = __ballot_sync(RDX_FULL_WARP, valid);
    if (!valid)
        peers = ~peers;
#pragma unroll
    for (int b = 0; b < 8; ++b) {
        if (b < bits) { /* warp-uniform */
            const bool set = (d >> b) & 1u;
            const uint32_t m = __ballot_sync(RDX_FULL_WARP, set);
            peers &= set ? m : ~m;
        }
    }
    return peers;
#endif
}

/* Exclusive prefix sum of one value per thread over the block. s_warp holds THREADS/32
 * words; the caller puts a __syncthreads() between two calls that share it. */
template <int THREADS>
static __device__ __forceinline__ uint32_t rdx_block_excl_scan(uint32_t v, uint32_t *s_warp)
{
    enum { WARPS = THREADS / 32 };
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    uint32_t x = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const uint32_t y = __shfl_up_sync(RDX_FULL_WARP, x, o);
        if (lane >= (uint32_t)o)
            x += y;
    }
    if (lane == 31)
        s_warp[warp] = x;
    __syncthreads();
    if (warp == 0) {
        const uint32_t w = lane < WARPS ? s_warp[lane] : 0u;
        uint32_t inc = w;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const uint32_t y = __shfl_up_sync(RDX_FULL_WARP, inc, o);
            if (lane >= (uint32_t)o)
                inc += y;
        }
        if (lane < WARPS)
            s_warp[lane] = inc - w;
    }
    __syncthreads();
    return s_warp[warp] + x - v;
}

/* Ranks the first `count` keys of a tile (warp-striped in key[]) by the digit
 * [shift, shift + bits). On return rank[i] is the slot of item i in the tile stably
 * sorted by that digit (meaningless for items at or past count), s_start[d] is the first
 * slot of digit d, and thread t < 2^bits gets the tile's count of digit t (0 elsewhere).
 * Shared memory: s_wcnt WARPS*256 words, s_start 256, s_scan WARPS. The last step reads
 * s_wcnt and s_start after the last barrier: sync before writing them again. */
template <typename K, int ITEMS, int THREADS>
static __device__ __forceinline__ uint32_t rdx_rank_tile(const K (&key)[ITEMS], uint32_t (&rank)[ITEMS],
                                                         uint32_t count, int shift, int bits,
                                                         uint32_t *s_wcnt, uint32_t *s_start,
                                                         uint32_t *s_scan)
{
    enum { WARPS = THREADS / 32 };
    static_assert(THREADS >= RDX_CUDA_MAX_BINS, "one thread per digit in the scans");
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t bins = 1u << bits, mask = bins - 1u;

    for (uint32_t j = threadIdx.x; j < WARPS * RDX_CUDA_MAX_BINS; j += THREADS)
        s_wcnt[j] = 0;
    __syncthreads();

    /* Per warp: how many keys of each digit came before, in this warp's share. The lowest
     * lane of each group of equal digits bumps the warp's counter for the whole group. */
    uint32_t *wc = s_wcnt + warp * RDX_CUDA_MAX_BINS;
    const uint32_t below_mask = (1u << lane) - 1u;
    const uint32_t first = warp * 32u * ITEMS + lane;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const bool valid = first + (uint32_t)i * 32u < count;
        const uint32_t d = valid ? rdx_digit(key[i], shift, mask) : 0u;
        const uint32_t peers = rdx_match_digit(d, valid, bits);
        const uint32_t below = __popc(peers & below_mask);
        const uint32_t prev = wc[d];
        __syncwarp();
        if (valid && below == 0)
            wc[d] = prev + __popc(peers);
        __syncwarp();
        rank[i] = prev + below;
    }
    __syncthreads();

    /* Per digit: exclusive scan of the warps' counts (so each warp knows how many keys of
     * the digit earlier warps hold), then an exclusive scan over digits. */
    uint32_t total = 0;
    if (threadIdx.x < bins) {
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const uint32_t c = s_wcnt[w * RDX_CUDA_MAX_BINS + threadIdx.x];
            s_wcnt[w * RDX_CUDA_MAX_BINS + threadIdx.x] = total;
            total += c;
        }
    }
    const uint32_t start = rdx_block_excl_scan<THREADS>(threadIdx.x < bins ? total : 0u, s_scan);
    if (threadIdx.x < bins)
        s_start[threadIdx.x] = start;
    __syncthreads();

#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t d = rdx_digit(key[i], shift, mask);
        rank[i] += s_start[d] + wc[d];
    }
    return total;
}

#endif /* RDX_CUDA_RANK_CUH */
