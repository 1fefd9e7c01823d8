/* Short segments sorted on chip (seg_tile.h): bins by length, one kernel per bin.
 *
 * Every kernel sorts (code, position) pairs, where code is the key's mapped value
 * (key_codec.h, RDX_NUMPY_ORDER's canonical code with numpy) and position its place in
 * the segment; the outputs are then gathered by position from the segment's own input:
 * the original key bits (so NaN payloads and -0.0 survive RDX_NUMPY_ORDER), the value,
 * the position itself (argsort). Each warp or block reads all of its segment's inputs
 * before it writes any output, so in-place sorts are safe. */
#include "common.cuh"
#include "rank.cuh"
#include "seg_range.cuh"
#include "seg_tile.h"

/* ---- what every bin shares ---- */

/* The bin of a segment of len keys: -1 (empty), a short bin, or RDX_SEG_LONG_BIN (more
 * than max_short keys: seg_passes.cu sorts it). */
static __host__ __device__ __forceinline__ int seg_bin_of(size_t len, size_t max_short)
{
    if (len == 0)
        return -1;
    if (len > max_short)
        return RDX_SEG_LONG_BIN;
    if (len <= 32 * RDX_SEG_WARP_MAX_ITEMS) { /* the warp bins: 32, 64, 128, 256 keys */
        int b = 0;
        while ((size_t)32 << b < len)
            ++b;
        return b;
    }
    /* The block bins: RDX_SEG_BLOCK_MIN_N << b keys. A short segment longer than the last
     * holds (max_short beyond the bins' reach: the MSD route's wide and counts-only level
     * 3, which only list its buckets) goes to the last. */
    int b = 0;
    while (b < RDX_SEG_BLOCK_BINS - 1 && (size_t)RDX_SEG_BLOCK_MIN_N << b < len)
        ++b;
    return 4 + b;
}

/* The bin's segments: with offsets, the bin's part of the list (counts read on the
 * device); without, segment w is w. */
struct seg_work {
    const uint32_t *list;
    size_t items;
};

static __device__ __forceinline__ seg_work seg_work_of(const rdx_seg_tile_args &a, const uint32_t *scratch, int bin)
{
    seg_work w;
    if (!a.off) {
        w.list = NULL;
        w.items = a.S;
        return w;
    }
    uint32_t items;
    w.list = rdx_seg_bin_list(scratch, bin, &items);
    w.items = items;
    return w;
}

static __device__ __forceinline__ void seg_bounds(const rdx_seg_tile_args &a, const seg_work &w, size_t item,
                                                  size_t *base, uint32_t *len)
{
    if (!w.list) {
        *base = item * a.seg_size;
        *len = (uint32_t)a.seg_size;
        return;
    }
    const uint32_t s = w.list[item];
    *base = rdx_seg_lo(a.off, s, a.n);
    *len = (uint32_t)(rdx_seg_hi(a.off, s, a.n) - *base);
}

/* The code a key is ordered by. */
template <typename K>
static __device__ __forceinline__ K seg_code(K raw, const rdx_seg_tile_args &a)
{
    K c = rdx_enc(raw, a.cls, a.desc);
    if (sizeof(K) >= 2 && a.numpy)
        c = (K)rdx_numpy_canon((uint64_t)c, (unsigned)sizeof(K), a.inf, a.desc);
    return c;
}

static __device__ __forceinline__ uint64_t seg_ld_val(const void *v, size_t i, unsigned vs)
{
    return vs == 8 ? ((const uint64_t *)v)[i] : ((const uint32_t *)v)[i];
}

/* Reads what output slot `slot` of the segment at base gets (the key and value at its
 * source position src); seg_put writes it. */
template <typename K> struct seg_out {
    K key;
    uint64_t val;
};

template <typename K>
static __device__ __forceinline__ seg_out<K> seg_get(const rdx_seg_tile_args &a, size_t base, uint32_t src)
{
    seg_out<K> o;
    o.key = a.keys_out ? ((const K *)a.keys_in)[base + src] : (K)0;
    o.val = a.vals_out ? seg_ld_val(a.vals_in, base + src, a.vs) : 0;
    return o;
}

template <typename K>
static __device__ __forceinline__ void seg_put(const rdx_seg_tile_args &a, size_t base, uint32_t slot, uint32_t src,
                                               const seg_out<K> &o)
{
    if (a.keys_out)
        ((K *)a.keys_out)[base + slot] = o.key;
    if (a.vals_out) {
        if (a.vs == 8)
            ((uint64_t *)a.vals_out)[base + slot] = o.val;
        else
            ((uint32_t *)a.vals_out)[base + slot] = (uint32_t)o.val;
    }
    if (a.idx_out) {
        const uint64_t i = a.idx_abs ? base + src : src;
        if (a.ib == 8)
            ((uint64_t *)a.idx_out)[base + slot] = i;
        else
            ((uint32_t *)a.idx_out)[base + slot] = (uint32_t)i;
    }
}

/* ---- binning (segments given by offsets) ---- */

/* scratch[b] += segments of bin b. */
static __global__ void seg_bin_count_kernel(const size_t *off, size_t S, size_t n, size_t max_short,
                                            uint32_t *scratch)
{
    rdx_chain_enter();
    __shared__ uint32_t c[RDX_SEG_BINS];
    if (threadIdx.x < RDX_SEG_BINS)
        c[threadIdx.x] = 0;
    __syncthreads();
    for (size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x; s < S; s += (size_t)gridDim.x * blockDim.x) {
        const int b = seg_bin_of(rdx_seg_hi(off, s, n) - rdx_seg_lo(off, s, n), max_short);
        if (b >= 0)
            atomicAdd(&c[b], 1u);
    }
    __syncthreads();
    if (threadIdx.x < RDX_SEG_BINS && c[threadIdx.x])
        atomicAdd(&scratch[threadIdx.x], c[threadIdx.x]);
}

/* Lists each segment in its bin's part of the list (order within a bin is free). A block
 * takes a run of slots per bin with one atomic per bin and round. */
static __global__ void seg_bin_place_kernel(const size_t *off, size_t S, size_t n, size_t max_short,
                                            uint32_t *scratch)
{
    rdx_chain_enter();
    __shared__ uint32_t c[RDX_SEG_BINS], at[RDX_SEG_BINS];
    uint32_t *fill = scratch + RDX_SEG_BINS, *list = scratch + 2 * RDX_SEG_BINS;
    uint32_t start = 0; /* the bin's first slot in the list, for thread b */
    if (threadIdx.x < RDX_SEG_BINS)
        for (unsigned b = 0; b < threadIdx.x; ++b)
            start += scratch[b];
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t first = (size_t)blockIdx.x * blockDim.x; first < S; first += step) {
        if (threadIdx.x < RDX_SEG_BINS)
            c[threadIdx.x] = 0;
        __syncthreads();
        const size_t s = first + threadIdx.x;
        const int b = s < S ? seg_bin_of(rdx_seg_hi(off, s, n) - rdx_seg_lo(off, s, n), max_short) : -1;
        const uint32_t mine = b >= 0 ? atomicAdd(&c[b], 1u) : 0u;
        __syncthreads();
        if (threadIdx.x < RDX_SEG_BINS)
            at[threadIdx.x] = start + (c[threadIdx.x] ? atomicAdd(&fill[threadIdx.x], c[threadIdx.x]) : 0u);
        __syncthreads();
        if (b >= 0)
            list[at[b] + mine] = (uint32_t)s;
        __syncthreads();
    }
}

/* ---- a warp per segment: a bitonic network over 32 x ITEMS (code, position) pairs ----
 * The network runs on the blocked arrangement: element e = lane * ITEMS + i sits in item i
 * of lane `lane`, so the steps between elements less than ITEMS apart compare items of one
 * thread and only the wider ones exchange across lanes (with 8 items, 15 of the 36 steps
 * shuffle, where the striped arrangement shuffled in 30). The segment is read and written
 * striped (element i * 32 + lane in item i: coalesced), through the warp's part of shared
 * memory. Positions are unique, so the network's order is a strict total order and the
 * result is the stable sort. Padding (e >= len) has the largest code and a position past
 * every key. */

template <typename K>
static __device__ __forceinline__ bool seg_before(K ka, uint32_t pa, K kb, uint32_t pb)
{
    return ka < kb || (ka == kb && pa < pb);
}

template <typename K, int ITEMS>
static __device__ __forceinline__ void seg_bitonic(K (&key)[ITEMS], uint32_t (&pos)[ITEMS], uint32_t lane)
{
    const uint32_t e0 = lane * (uint32_t)ITEMS; /* this lane's first element */
#pragma unroll
    for (int k = 2; k <= 32 * ITEMS; k <<= 1) {
        /* The run of element e ascends where e & k is clear; past ITEMS that bit is the
         * lane's (every item of the lane shares it). */
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            if (j < ITEMS) { /* partners in this thread: items i and i + j */
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    if (i & j)
                        continue;
                    const bool up = ((e0 + (uint32_t)i) & (uint32_t)k) == 0;
                    if (seg_before(key[i | j], pos[i | j], key[i], pos[i]) == up) {
                        const K tk = key[i];
                        const uint32_t tp = pos[i];
                        key[i] = key[i | j];
                        pos[i] = pos[i | j];
                        key[i | j] = tk;
                        pos[i | j] = tp;
                    }
                }
            } else { /* partners across lanes: lane ^ (j / ITEMS), same item */
                const int lj = j / ITEMS;
                const bool up = (e0 & (uint32_t)k) == 0;
                const bool lower = (lane & (uint32_t)lj) == 0;
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const K ok = (K)__shfl_xor_sync(RDX_FULL_WARP, key[i], lj);
                    const uint32_t op = __shfl_xor_sync(RDX_FULL_WARP, pos[i], lj);
                    /* the lower slot keeps the smaller in an ascending run */
                    if (seg_before(ok, op, key[i], pos[i]) == (lower == up)) {
                        key[i] = ok;
                        pos[i] = op;
                    }
                }
            }
        }
    }
}

/* The network's key type: __shfl_xor_sync has no 8- and 16-bit forms. */
template <int KB> struct seg_warp_key {
    typedef typename rdx_uint<(KB < 4 ? 4 : KB)>::t t;
};

/* Element e's word in a warp's exchange buffer: one word of padding per 32, so that both
 * the striped and the blocked accesses hit 32 different banks. */
static __device__ __forceinline__ uint32_t seg_xchg_at(uint32_t e) { return e + (e >> 5); }

/* A warp's items from the striped arrangement to the blocked one (TO_BLOCKED) or back,
 * through its exchange buffer buf. Starts with a __syncwarp: every lane's earlier reads of
 * buf come before it is written again. */
template <bool TO_BLOCKED, typename T, int ITEMS>
static __device__ __forceinline__ void seg_exchange(T (&v)[ITEMS], T *buf, uint32_t lane)
{
    if (ITEMS == 1) /* one arrangement */
        return;
    __syncwarp();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        buf[seg_xchg_at(TO_BLOCKED ? (uint32_t)i * 32u + lane : lane * ITEMS + (uint32_t)i)] = v[i];
    __syncwarp();
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        v[i] = buf[seg_xchg_at(TO_BLOCKED ? lane * ITEMS + (uint32_t)i : (uint32_t)i * 32u + lane)];
}

template <int KB, int ITEMS> struct seg_warp_layout {
    typedef typename seg_warp_key<KB>::t W;
    enum { WARPS = RDX_SEG_WARP_THREADS / 32, WORDS = ITEMS * 33 };
    static constexpr size_t BYTES = ITEMS == 1 ? 0 : (size_t)WARPS * WORDS * sizeof(W);
};

template <int KB, int ITEMS>
__global__ void __launch_bounds__(RDX_SEG_WARP_THREADS, RDX_SEG_WARP_MIN_BLOCKS(ITEMS)) rdx_seg_warp_kernel(const rdx_seg_tile_args a,
                                                                           const uint32_t *scratch, int bin)
{
    rdx_chain_enter();
    typedef typename rdx_uint<KB>::t K;
    typedef seg_warp_layout<KB, ITEMS> L;
    typedef typename L::W W;
    extern __shared__ __align__(16) unsigned char smem[];
    W *xk = (W *)smem + (threadIdx.x >> 5) * L::WORDS; /* this warp's exchange buffer */
    uint32_t *xp = (uint32_t *)xk;
    const uint32_t lane = rdx_lane();
    const seg_work work = seg_work_of(a, scratch, bin);
    const int bits = a.end_bit - a.begin_bit;
    const W mask = bits >= 8 * (int)sizeof(W) ? (W)~(W)0 : (W)(((W)1 << bits) - 1u);
    const size_t warps = (size_t)gridDim.x * (RDX_SEG_WARP_THREADS / 32);
    for (size_t item = (size_t)blockIdx.x * (RDX_SEG_WARP_THREADS / 32) + (threadIdx.x >> 5); item < work.items;
         item += warps) {
        size_t base;
        uint32_t len;
        seg_bounds(a, work, item, &base, &len);
        W key[ITEMS];
        uint32_t pos[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) { /* striped */
            const uint32_t e = (uint32_t)i * 32u + lane;
            key[i] = (W)~(W)0;
            if (e < len)
                key[i] = ((W)seg_code(((const K *)a.keys_in)[base + e], a) >> a.begin_bit) & mask;
        }
        seg_exchange<true>(key, xk, lane);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            pos[i] = lane * ITEMS + (uint32_t)i;
        seg_bitonic<W, ITEMS>(key, pos, lane);
        seg_exchange<false>(pos, xp, lane); /* slot i * 32 + lane in item i */
        seg_out<K> o[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if ((uint32_t)i * 32u + lane < len)
                o[i] = seg_get<K>(a, base, pos[i]);
        __syncwarp(); /* every read of the segment, and of the buffer, before any write */
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const uint32_t e = (uint32_t)i * 32u + lane;
            if (e < len)
                seg_put<K>(a, base, e, pos[i], o[i]);
        }
    }
}

/* ---- a block per segment: radix passes through shared memory (rank.cuh) ---- */

/* Block bin B's shape (tuning.h): THREADS x ITEMS keys, MIN_BLOCKS per SM. */
static constexpr int seg_block_shapes[RDX_SEG_BLOCK_BINS][3] = RDX_SEG_BLOCK_SHAPES;
template <int B> struct seg_block_shape {
    static constexpr int THREADS = seg_block_shapes[B][0], ITEMS = seg_block_shapes[B][1],
                         MIN_BLOCKS = seg_block_shapes[B][2];
    static_assert(THREADS * ITEMS == RDX_SEG_BLOCK_MIN_N << B, "bin B holds RDX_SEG_BLOCK_MIN_N << B keys");
};

template <int KB, int THREADS, int ITEMS> struct seg_block_layout {
    typedef rdx_rank_layout<KB, 4, THREADS, THREADS * ITEMS> R;
    static constexpr size_t BYTES = R::END + 16; /* + the one-digit flag */
    static_assert(KB != 4 || R::VALS == (size_t)THREADS * ITEMS * 4, "the range sort's rank words (seg_range.cuh) span the keys' and positions' areas");
};

template <int KB, int THREADS, int ITEMS, int MIN_BLOCKS>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS) rdx_seg_block_kernel(const rdx_seg_tile_args a, const uint32_t *scratch,
                                                               int bin)
{
    rdx_chain_enter();
    typedef typename rdx_uint<KB>::t K;
    typedef seg_block_layout<KB, THREADS, ITEMS> L;
    extern __shared__ __align__(16) unsigned char smem[];
    K *s_keys = (K *)(smem + L::R::KEYS);
    uint32_t *s_vals = (uint32_t *)(smem + L::R::VALS);
    uint32_t *s_wcnt = (uint32_t *)(smem + L::R::WCNT);
    uint32_t *s_start = (uint32_t *)(smem + L::R::START);
    uint32_t *s_scan = (uint32_t *)(smem + L::R::SCAN);
    volatile uint32_t *s_one = (volatile uint32_t *)(smem + L::R::END); /* one digit only */

    /* The keys the passes rank: the whole tile, padded (tuning.h, RDX_SEG_PAD_MAX_ITEMS), or
     * the segment's. */
    enum { TILE = THREADS * ITEMS, PADDED = ITEMS <= RDX_SEG_PAD_MAX_ITEMS };
    const seg_work work = seg_work_of(a, scratch, bin);
    const uint32_t first = (threadIdx.x >> 5) * 32u * ITEMS + rdx_lane();
    const int passes = (a.end_bit - a.begin_bit + 7) / 8;
    /* The counters start at zero; every one-sweep pass leaves them so (rank.cuh,
     * rdx_rank_place); rdx_count_tile zeroes them itself. */
    for (uint32_t j = threadIdx.x; j < (THREADS / 32) * RDX_CUDA_MAX_BINS; j += THREADS)
        s_wcnt[j] = 0u;
    __syncthreads();
    /* The range sort's shared memory: the passes' areas (s_start is free while it runs). */
    seg_range_smem<K> rm;
    rm.keys = s_keys;
    rm.vals = s_vals;
    rm.cnt = s_wcnt;
    rm.cnt_words = (THREADS / 32) * RDX_CUDA_MAX_BINS;
    rm.scan = s_scan;
    rm.red = (unsigned char *)s_start;
    /* Floats over all their bits: the range sort's first digit by value (seg_range.cuh). */
    const bool float_bits = RDX_SEG_BY_VALUE && a.cls == RDX_CLASS_FLOAT && a.end_bit - a.begin_bit == 8 * KB;
    for (size_t item = blockIdx.x; item < work.items; item += gridDim.x) {
        size_t base;
        uint32_t count;
        seg_bounds(a, work, item, &base, &count);
        K key[ITEMS];
        uint32_t pos[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const uint32_t p = first + (uint32_t)i * 32u;
            pos[i] = p;
            /* Padding past the segment has the largest code: it follows every key in the
             * tile's order, so the stable passes leave it after them, and the whole tile
             * takes the full tile's ranking (no test per item). */
            key[i] = p < count ? seg_code(((const K *)a.keys_in)[base + p], a) : PADDED ? (K) ~(K)0 : (K)0;
        }
        /* Keys of 4 and 8 bytes over enough bits first try one digit from the tile's range
         * (seg_range.cuh); few distinct keys fall through to the passes. */
        const bool by_range =
            KB >= 4 && ITEMS <= RDX_SEG_RANGE_MAX_ITEMS && passes >= RDX_SEG_RANGE_MIN_PASSES &&
            (float_bits ? seg_range_sort<K, THREADS, ITEMS, true>(key, pos, count, a.desc, a.begin_bit, a.end_bit, rm)
                        : seg_range_sort<K, THREADS, ITEMS, false>(key, pos, count, a.desc, a.begin_bit, a.end_bit, rm));
        const uint32_t ranked = PADDED ? (uint32_t)TILE : count;
        for (int pass = 0; pass < (by_range ? 0 : passes); ++pass) {
            const int shift = a.begin_bit + pass * 8;
            const int bits = min(8, a.end_bit - shift);
            bool move;
            /* The flag was last read before the previous pass's final barrier. */
            if (threadIdx.x == 0)
                *s_one = 0u;
            if (ITEMS <= RDX_SEG_ONE_SWEEP_MAX_ITEMS) {
                uint32_t rank[RDX_RANK_WORDS(ITEMS)];
                rdx_rank_local<THREADS>(key, ranked, shift, bits, s_wcnt, rank);
                __syncthreads();
                /* One digit holds every key: each is already at its slot, nothing moves. */
                move = !rdx_rank_offsets<THREADS>(ranked, bits, s_wcnt, s_scan, s_one);
                rdx_rank_place<4, K, uint32_t, ITEMS>(key, pos, rank, ranked, shift, bits, move, s_wcnt, s_keys,
                                                      s_vals);
            } else {
                const uint32_t total = rdx_count_tile<K, ITEMS, THREADS>(key, ranked, shift, bits, s_wcnt);
                if (threadIdx.x < (1u << bits) && total == ranked)
                    *s_one = 1u;
                __syncthreads();
                move = *s_one == 0u;
                if (move) {
                    rdx_offset_tile<THREADS>(total, bits, s_wcnt, s_start, s_scan);
                    rdx_rank_scatter<4, K, uint32_t, ITEMS, THREADS>(key, pos, ranked, shift, bits, s_wcnt, s_keys,
                                                                     s_vals);
                }
            }
            __syncthreads();
            if (move) {
#pragma unroll
                for (int i = 0; i < ITEMS; ++i) {
                    const uint32_t p = first + (uint32_t)i * 32u;
                    if (PADDED || p < count) {
                        key[i] = s_keys[p];
                        pos[i] = s_vals[p];
                    }
                }
            }
        }
        seg_out<K> o[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            if (first + (uint32_t)i * 32u < count)
                o[i] = seg_get<K>(a, base, pos[i]);
        __syncthreads(); /* every read of the segment before any write */
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const uint32_t p = first + (uint32_t)i * 32u;
            if (p < count)
                seg_put<K>(a, base, p, pos[i], o[i]);
        }
    }
}

/* ---- launches ---- */

static unsigned seg_grid(size_t items, size_t per_block, int sms)
{
    size_t blocks = (items + per_block - 1) / per_block;
    const size_t most = (size_t)(sms > 0 ? sms : 1) * RDX_SEG_BLOCKS_PER_SM;
    if (blocks > most)
        blocks = most;
    return (unsigned)(blocks ? blocks : 1);
}

template <int KB, int ITEMS>
static cudaError_t launch_warp_bin(int bin, const rdx_seg_tile_args *a, const uint32_t *scratch, unsigned grid,
                                   cudaStream_t s)
{
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, grid, RDX_SEG_WARP_THREADS, seg_warp_layout<KB, ITEMS>::BYTES, s),
                              rdx_seg_warp_kernel<KB, ITEMS>, *a, scratch, bin);
}

template <int KB, int B>
static cudaError_t launch_block_bin(const rdx_seg_tile_args *a, const uint32_t *scratch, unsigned grid, cudaStream_t s)
{
    typedef seg_block_shape<B> S;
    rdx_chain_launch l;
    return cudaLaunchKernelEx(
        rdx_chain_config(&l, grid, S::THREADS, seg_block_layout<KB, S::THREADS, S::ITEMS>::BYTES, s),
        rdx_seg_block_kernel<KB, S::THREADS, S::ITEMS, S::MIN_BLOCKS>, *a, scratch, 4 + B);
}

template <int KB>
static cudaError_t launch_bin(int bin, const rdx_seg_tile_args *a, const uint32_t *scratch, unsigned warp_grid,
                              unsigned block_grid, cudaStream_t s)
{
    enum { WT = RDX_SEG_WARP_THREADS };
    static_assert(RDX_SEG_BLOCK_BINS == 5, "one case per block bin below");
    switch (bin) {
    case 0: return launch_warp_bin<KB, 1>(0, a, scratch, warp_grid, s);
    case 1: return launch_warp_bin<KB, 2>(1, a, scratch, warp_grid, s);
    case 2: return launch_warp_bin<KB, 4>(2, a, scratch, warp_grid, s);
    case 3: return launch_warp_bin<KB, RDX_SEG_WARP_MAX_ITEMS>(3, a, scratch, warp_grid, s);
    case 4: return launch_block_bin<KB, 0>(a, scratch, block_grid, s);
    case 5: return launch_block_bin<KB, 1>(a, scratch, block_grid, s);
    case 6: return launch_block_bin<KB, 2>(a, scratch, block_grid, s);
    case 7: return launch_block_bin<KB, 3>(a, scratch, block_grid, s);
    default: return launch_block_bin<KB, 4>(a, scratch, block_grid, s);
    }
}

template <int KB>
static cudaError_t enqueue_kb(const rdx_seg_tile_args *a, const void *scratch, int sms, cudaStream_t s)
{
    const size_t S = a->S;
    const unsigned warp_grid = seg_grid(S, RDX_SEG_WARP_THREADS / 32, sms);
    const unsigned block_grid = seg_grid(S, 1, sms);
    if (!a->off) { /* equal rows: one bin, or none when the rows are long */
        const int bin = seg_bin_of(a->seg_size, a->max_short);
        return bin < 0 || bin == RDX_SEG_LONG_BIN ? cudaSuccess
                                                   : launch_bin<KB>(bin, a, NULL, warp_grid, block_grid, s);
    }
    /* Every short bin's kernel; one with no segments in its bin returns at once. */
    cudaError_t e = cudaSuccess;
    for (int bin = 0; bin < RDX_SEG_SHORT_BINS && e == cudaSuccess; ++bin)
        e = launch_bin<KB>(bin, a, (const uint32_t *)scratch, warp_grid, block_grid, s);
    return e;
}

cudaError_t rdx_seg_tile_bin(const rdx_seg_tile_args *a, void *scratch, int sms, cudaStream_t s)
{
    uint32_t *sc = (uint32_t *)scratch;
    cudaError_t e = cudaMemsetAsync(sc, 0, 2 * RDX_SEG_BINS * sizeof *sc, s);
    if (e != cudaSuccess)
        return e;
    const unsigned bin_grid = seg_grid(a->S, RDX_COPY_THREADS, sms);
    rdx_chain_launch l;
    e = cudaLaunchKernelEx(rdx_chain_config(&l, bin_grid, RDX_COPY_THREADS, 0, s), seg_bin_count_kernel, a->off, a->S,
                           a->n, a->max_short, sc);
    return e != cudaSuccess ? e
                            : cudaLaunchKernelEx(rdx_chain_config(&l, bin_grid, RDX_COPY_THREADS, 0, s),
                                                 seg_bin_place_kernel, a->off, a->S, a->n, a->max_short, sc);
}

template <int KB, int B> static size_t block_bin_bytes(void)
{
    return seg_block_layout<KB, seg_block_shape<B>::THREADS, seg_block_shape<B>::ITEMS>::BYTES;
}

/* Bin B's shared memory for kb-byte keys. */
template <int B> static size_t block_bin_bytes_kb(int kb)
{
    switch (kb) {
    case 1: return block_bin_bytes<1, B>();
    case 2: return block_bin_bytes<2, B>();
    case 4: return block_bin_bytes<4, B>();
    default: return block_bin_bytes<8, B>();
    }
}

size_t rdx_seg_tile_max_len(int kb, size_t smem_optin)
{
    const size_t bytes[RDX_SEG_BLOCK_BINS] = {block_bin_bytes_kb<0>(kb), block_bin_bytes_kb<1>(kb),
                                              block_bin_bytes_kb<2>(kb), block_bin_bytes_kb<3>(kb),
                                              block_bin_bytes_kb<4>(kb)};
    int b = RDX_SEG_BLOCK_BINS - 1;
    while (b > RDX_SEG_BLOCK_SURE_BIN && bytes[b] > smem_optin)
        --b;
    return (size_t)RDX_SEG_BLOCK_MIN_N << b;
}

size_t rdx_seg_tile_scratch_bytes(size_t S) { return (2 * RDX_SEG_BINS + S) * sizeof(uint32_t); }

cudaError_t rdx_seg_tile_enqueue(int kb, const rdx_seg_tile_args *a, const void *scratch, int sms, cudaStream_t s)
{
    switch (kb) {
    case 1: return enqueue_kb<1>(a, scratch, sms, s);
    case 2: return enqueue_kb<2>(a, scratch, sms, s);
    case 4: return enqueue_kb<4>(a, scratch, sms, s);
    case 8: return enqueue_kb<8>(a, scratch, sms, s);
    default: return cudaErrorInvalidValue;
    }
}

template <int KB, int B> static cudaError_t init_block_bin(void)
{
    typedef seg_block_shape<B> S;
    return cudaFuncSetAttribute((const void *)rdx_seg_block_kernel<KB, S::THREADS, S::ITEMS, S::MIN_BLOCKS>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)seg_block_layout<KB, S::THREADS, S::ITEMS>::BYTES);
}

/* The bins up to RDX_SEG_BLOCK_SURE_BIN must get their shared memory; the larger ones only
 * where the device has it (rdx_seg_tile_max_len keeps segments off them elsewhere). */
template <int KB>
static cudaError_t init_kb(void)
{
    const cudaError_t e[RDX_SEG_BLOCK_BINS] = {init_block_bin<KB, 0>(), init_block_bin<KB, 1>(),
                                               init_block_bin<KB, 2>(), init_block_bin<KB, 3>(),
                                               init_block_bin<KB, 4>()};
    (void)cudaGetLastError();
    for (int b = 0; b <= RDX_SEG_BLOCK_SURE_BIN; ++b)
        if (e[b] != cudaSuccess)
            return e[b];
    return cudaSuccess;
}

cudaError_t rdx_seg_tile_init(void)
{
    cudaError_t e = init_kb<1>();
    if (e == cudaSuccess)
        e = init_kb<2>();
    if (e == cudaSuccess)
        e = init_kb<4>();
    if (e == cudaSuccess)
        e = init_kb<8>();
    return e;
}
