/* The segmented passes (seg_passes.h): the long segments sorted by the pass kernel of
 * onesweep.cu, all in the same launches.
 *
 *   tiles   one block lists the long segments (seg_tile.cu's long bin, or every row),
 *           their keys and their tiles: each segment gets ceil(len / tile) tiles of its
 *           own, numbered in segment order (an exclusive scan); then each tile is given
 *           its first key, its keys, its segment and that segment's first tile (map), all
 *           in one 16-byte word, so that a block learns its tile with one load.
 *   hist    the digit counts of every pass per segment, in one read of the keys: a block
 *           counts a run of tiles in shared memory and adds a segment's counts to global
 *           memory when the run leaves it.
 *   scan    a warp per (segment, pass) turns the counts into each digit's first slot from
 *           the segment's start; a pass in which every segment has one digit only is not
 *           run (plan: rdx_plan_passes, as the whole-array scan kernel does), and a
 *           segment with one digit in every pass is marked to stay (moves).
 *   passes  the pass kernel with SEG = 1: a segment's first tile starts its look-back
 *           chain, so the segments' passes run side by side in one launch per digit; the
 *           tiles of a segment marked to stay return at once (many segments of equal keys
 *           and one that is not: the passes that one needs would else move them all).
 *   fixup   as the whole-array fix-up, over the long segments' keys only; a segment that
 *           stayed takes what every segment takes where no pass ran.
 *
 * Every launch is enqueued whatever the data, with grids sized for the most tiles the
 * segments can need (extra blocks return at once): no host read, CUDA-graph safe. */
#include "common.cuh"
#include "hist.cuh"
#include "kernels.h"
#include "rank.cuh"
#include "seg_passes.h"

/* ---- the scratch ---- */

enum { RDX_SEGP_LONG, RDX_SEGP_TILES, RDX_SEGP_CTL_WORDS }; /* the control words: long segments, tiles */

typedef struct segp_layout {
    size_t lmax, tmax, tile;  /* most long segments, most tiles, keys per tile */
    size_t ctl, act, info, active, counters, zero_end; /* zeroed first */
    size_t bases, moves, status0, status1, first_tile, start, end, tiles, total;
} segp_layout;

/* The buffers of the kernels below, in the scratch. act[p]: bit 0, pass p runs; bit 1, a
 * segment's digit is crowded there (RDX_PASS_CROWDED). moves[i]: long segment i has two
 * digits in some pass. */
typedef struct segp_dev {
    uint32_t *ctl, *act, *info, *active, *counters, *bases, *moves, *status[2], *first_tile;
    uint4 *tiles;
    size_t *start, *end;
    size_t lmax, tmax, tile;
} segp_dev;

static size_t take(size_t *at, size_t bytes)
{
    const size_t here = *at;
    *at += (bytes + 255) / 256 * 256;
    return here;
}

static segp_layout segp_plan(int kb, int vb, size_t n, size_t S, size_t max_short, int passes)
{
    segp_layout L;
    const size_t most = n / (max_short + 1); /* each long segment holds more than max_short keys */
    L.lmax = S < most ? S : most;
    L.tile = rdx_os_tile(kb, vb, RDX_OS_SEG_SHAPE(kb, vb));
    L.tmax = (n + L.tile - 1) / L.tile + L.lmax; /* each segment ends in at most one partial tile */
    const size_t rows = (size_t)passes * RDX_CUDA_MAX_BINS;
    size_t at = 0;
    L.ctl = take(&at, RDX_SEGP_CTL_WORDS * 4);
    L.act = take(&at, (size_t)passes * 4);
    L.info = take(&at, (size_t)passes * 4);
    L.active = take(&at, 4);
    L.counters = take(&at, (size_t)passes * 4);
    L.zero_end = at;
    /* Zeroed by the map kernel, as far as the long segments use them. */
    L.bases = take(&at, L.lmax * rows * 4);
    L.moves = take(&at, L.lmax * 4);
    L.status0 = take(&at, L.tmax * RDX_CUDA_MAX_BINS * 4);
    L.status1 = take(&at, L.tmax * RDX_CUDA_MAX_BINS * 4);
    L.first_tile = take(&at, (L.lmax + 1) * 4);
    L.start = take(&at, L.lmax * sizeof(size_t));
    L.end = take(&at, L.lmax * sizeof(size_t));
    L.tiles = take(&at, L.tmax * sizeof(uint4));
    L.total = at;
    return L;
}

static int passes_of(int begin_bit, int end_bit, int radix_bits)
{
    return (end_bit - begin_bit + radix_bits - 1) / radix_bits;
}

size_t rdx_seg_passes_scratch_bytes(int kb, int vb, size_t n, size_t S, size_t max_short, int passes)
{
    return segp_plan(kb, vb, n, S, max_short, passes).total;
}

/* The buffers of layout L in the scratch. */
static segp_dev segp_dev_at(const segp_layout *L, void *scratch)
{
    unsigned char *t = (unsigned char *)scratch;
    segp_dev d;
    d.ctl = (uint32_t *)(t + L->ctl);
    d.act = (uint32_t *)(t + L->act);
    d.info = (uint32_t *)(t + L->info);
    d.active = (uint32_t *)(t + L->active);
    d.counters = (uint32_t *)(t + L->counters);
    d.bases = (uint32_t *)(t + L->bases);
    d.moves = (uint32_t *)(t + L->moves);
    d.status[0] = (uint32_t *)(t + L->status0);
    d.status[1] = (uint32_t *)(t + L->status1);
    d.first_tile = (uint32_t *)(t + L->first_tile);
    d.tiles = (uint4 *)(t + L->tiles);
    d.start = (size_t *)(t + L->start);
    d.end = (size_t *)(t + L->end);
    d.lmax = L->lmax;
    d.tmax = L->tmax;
    d.tile = L->tile;
    return d;
}

rdx_seg_passes_view rdx_seg_passes_view_of(const rdx_seg_passes_args *a, const void *scratch)
{
    const segp_layout L = segp_plan(a->kb, a->vb, a->n, a->S, a->max_short,
                                    passes_of(a->begin_bit, a->end_bit, a->radix_bits));
    const segp_dev d = segp_dev_at(&L, (void *)scratch);
    rdx_seg_passes_view v;
    v.long_count = d.ctl + RDX_SEGP_LONG;
    v.start = d.start;
    v.end = d.end;
    v.bases = d.bases;
    v.active = d.active;
    return v;
}

/* ---- kernels ---- */

/* Long segment li's keys [*lo, *hi). */
static __device__ __forceinline__ void segp_bounds(const rdx_seg_passes_args &a, const uint32_t *list, size_t li,
                                                   size_t *lo, size_t *hi)
{
    if (!a.off) {
        *lo = li * a.seg_size;
        *hi = *lo + a.seg_size;
        return;
    }
    const size_t s = list[li];
    *lo = rdx_seg_lo(a.off, s, a.n);
    *hi = rdx_seg_hi(a.off, s, a.n);
}

/* One block: the long segments, their keys and first tiles, and the count of each. It
 * first zeroes the control words, the pass words and the tile counters (the scratch up to
 * zero_words), which the kernels after it use: the first kernel of an enqueue, it runs
 * when every kernel before has finished (a memset in its place cost the launches' chain
 * its overlap, three times in each sort of 8-byte keys on the MSD route). */
__global__ void __launch_bounds__(RDX_SEGP_TILES_THREADS) segp_tiles_kernel(const rdx_seg_passes_args a,
                                                                            const segp_dev d, size_t zero_words)
{
    rdx_chain_enter();
    for (size_t w = threadIdx.x; w < zero_words; w += RDX_SEGP_TILES_THREADS)
        d.ctl[w] = 0u; /* (the scratch's first words: segp_plan) */
    __syncthreads();
    __shared__ uint32_t s_warp[RDX_SEGP_TILES_THREADS / 32];
    const uint32_t *list = NULL;
    size_t L = a.S;
    if (a.off) {
        uint32_t longs;
        list = rdx_seg_bin_list(a.bins, RDX_SEG_LONG_BIN, &longs);
        L = longs;
    }
    if (L > d.lmax) /* only with offsets that break the rules (overlapping segments) */
        L = d.lmax;
    const size_t per = (L + RDX_SEGP_TILES_THREADS - 1) / RDX_SEGP_TILES_THREADS;
    const size_t first = threadIdx.x * per < L ? threadIdx.x * per : L;
    const size_t last = first + per < L ? first + per : L;
    uint32_t mine = 0;
    for (size_t li = first; li < last; ++li) {
        size_t lo, hi;
        segp_bounds(a, list, li, &lo, &hi);
        mine += (uint32_t)((hi - lo + d.tile - 1) / d.tile);
    }
    uint32_t tile = rdx_block_excl_scan<RDX_SEGP_TILES_THREADS>(mine, s_warp);
    for (size_t li = first; li < last; ++li) {
        size_t lo, hi;
        segp_bounds(a, list, li, &lo, &hi);
        d.first_tile[li] = tile;
        d.start[li] = lo;
        d.end[li] = hi;
        tile += (uint32_t)((hi - lo + d.tile - 1) / d.tile);
    }
    if (threadIdx.x == RDX_SEGP_TILES_THREADS - 1) {
        d.ctl[RDX_SEGP_LONG] = (uint32_t)L;
        /* More tiles than the grids have only with overlapping segments: those sort wrong,
         * never outside the arrays. */
        d.ctl[RDX_SEGP_TILES] = tile < d.tmax ? tile : (uint32_t)d.tmax;
    }
}

/* tiles[t] = (first key, keys, first tile of its segment, segment) of tile t: its segment
 * is the last whose first tile is <= t (every long segment has a tile, so first tiles
 * increase). n < 2^32: a key's index fits 32 bits. The first pass's look-back row of each
 * tile, and each long segment's digit counts and moves word (at its first tile), are
 * zeroed here: only what the segments use, not the most they could. */
__global__ void __launch_bounds__(RDX_COPY_THREADS) segp_map_kernel(const segp_dev d, int passes)
{
    rdx_chain_enter();
    const uint32_t tiles = d.ctl[RDX_SEGP_TILES], L = d.ctl[RDX_SEGP_LONG];
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < tiles; t += (size_t)gridDim.x * blockDim.x) {
        const uint32_t lo = rdx_last_at_most(d.first_tile, L, (uint32_t)t);
        const uint32_t first = d.first_tile[lo];
        const size_t begin = d.start[lo] + (size_t)(t - first) * d.tile;
        const size_t left = d.end[lo] - begin;
        d.tiles[t] = make_uint4((uint32_t)begin, (uint32_t)(left < d.tile ? left : d.tile), first, lo);
        uint4 *row = (uint4 *)(d.status[0] + t * RDX_CUDA_MAX_BINS);
        for (int j = 0; j < RDX_CUDA_MAX_BINS / 4; ++j)
            row[j] = zero;
        if (t == first) {
            uint4 *b = (uint4 *)(d.bases + (size_t)lo * passes * RDX_CUDA_MAX_BINS);
            for (int j = 0; j < passes * RDX_CUDA_MAX_BINS / 4; ++j)
                b[j] = zero;
            d.moves[lo] = 0u;
        }
    }
}

/* Every pass's digit counts per long segment: block b counts its run of tiles, 16 bytes
 * per load (the whole-array histogram's way), several loads in flight per thread. */
template <int KB>
__global__ void __launch_bounds__(RDX_SEGP_HIST_THREADS) segp_hist_kernel(const rdx_seg_passes_args a,
                                                                          const segp_dev d, int passes)
{
    rdx_chain_enter();
    typedef typename rdx_uint<KB>::t K;
    enum { VEC = 16 / KB, UNROLL = RDX_HIST_KEYS / VEC > 0 ? RDX_HIST_KEYS / VEC : 1 };
    __shared__ uint32_t s_hist[RDX_HIST_MAX_CELLS];
    const uint32_t tiles = d.ctl[RDX_SEGP_TILES];
    const uint32_t bins = 1u << a.radix_bits, cells = (uint32_t)passes * bins;
    const uint32_t run = (tiles + gridDim.x - 1) / gridDim.x;
    const uint32_t t0 = blockIdx.x * run, t1 = t0 + run < tiles ? t0 + run : tiles;
    const int less = a.bit_less ? (int)*a.bit_less : 0;
    const rdx_hist_digits g = {passes, a.begin_bit - less, a.end_bit - less, a.radix_bits, a.cls, a.desc, a.numpy, a.inf};
    const bool one_digit = a.one_digit && *a.one_digit; /* the same in every thread */
    for (uint32_t j = threadIdx.x; j < cells; j += RDX_SEGP_HIST_THREADS)
        s_hist[j] = 0u;
    __syncthreads();
    for (uint32_t t = t0; t < t1; ++t) {
        const uint4 ti = d.tiles[t];
        if (one_digit) {
            if (threadIdx.x < (uint32_t)passes)
                s_hist[threadIdx.x * bins] += ti.y;
        } else {
            const K *keys = (const K *)a.keys_src + ti.x;
            uint32_t head = (uint32_t)(((16u - ((uintptr_t)keys & 15u)) & 15u) / KB); /* keys before alignment */
            if (head > ti.y)
                head = ti.y;
            const uint32_t nvec = (ti.y - head) / VEC, tail = head + nvec * VEC;
            for (uint32_t j = threadIdx.x; j < head; j += RDX_SEGP_HIST_THREADS)
                rdx_hist_count_code(s_hist, rdx_hist_code(keys[j], g), g);
            for (uint32_t j = tail + threadIdx.x; j < ti.y; j += RDX_SEGP_HIST_THREADS)
                rdx_hist_count_code(s_hist, rdx_hist_code(keys[j], g), g);
            const uint4 *vec = (const uint4 *)(keys + head);
            for (uint32_t base = threadIdx.x; base < nvec; base += RDX_SEGP_HIST_THREADS * UNROLL)
                rdx_hist_count_round<K, UNROLL>(s_hist, vec, base, RDX_SEGP_HIST_THREADS, nvec, g);
        }
        if (t + 1u == t1 || d.tiles[t + 1u].w != ti.w) { /* the run leaves the segment */
            __syncthreads();
            for (uint32_t j = threadIdx.x; j < cells; j += RDX_SEGP_HIST_THREADS) {
                const uint32_t c = s_hist[j];
                if (c) {
                    atomicAdd(&d.bases[((size_t)ti.w * passes + j / bins) * RDX_CUDA_MAX_BINS + j % bins], c);
                    s_hist[j] = 0u;
                }
            }
            __syncthreads();
        }
    }
}

/* Segment li's pass p, by one warp. */
static __device__ __forceinline__ void segp_scan_one(const rdx_seg_passes_args &a, const segp_dev &d, int passes,
                                                     size_t li, int p, uint32_t lane)
{
    enum { PER_LANE = RDX_CUDA_MAX_BINS / 32 };
    const int shift = a.begin_bit + p * a.radix_bits;
    const uint32_t bins = 1u << min(a.radix_bits, a.end_bit - shift);
    const uint32_t len = (uint32_t)(d.end[li] - d.start[li]);
    uint32_t *row = d.bases + (li * (size_t)passes + (size_t)p) * RDX_CUDA_MAX_BINS;
    uint32_t v[PER_LANE], sum = 0;
    bool one_digit = false, crowded = false; /* (RDX_PASS_CROWDED) */
#pragma unroll
    for (int i = 0; i < PER_LANE; ++i) {
        const uint32_t dg = lane * PER_LANE + (uint32_t)i;
        v[i] = dg < bins ? row[dg] : 0u;
        one_digit |= dg < bins && v[i] == len;
        crowded |= v[i] > len >> RDX_RANK_ANY_CROWD_LOG2;
        sum += v[i];
    }
    uint32_t slot = rdx_warp_incl_scan(sum, lane) - sum;
#pragma unroll
    for (int i = 0; i < PER_LANE; ++i) {
        const uint32_t dg = lane * PER_LANE + (uint32_t)i;
        if (dg < bins)
            row[dg] = slot;
        slot += v[i];
    }
    crowded = __any_sync(RDX_FULL_WARP, crowded);
    if (!__any_sync(RDX_FULL_WARP, one_digit) && lane == 0) {
        atomicOr(&d.act[p], crowded ? 3u : 1u); /* bit 1: crowded */
        atomicOr(&d.moves[li], 1u);
    }
}

/* A warp per (long segment, pass): the counts become each digit's first slot from the
 * segment's start, in place; a pass runs when some segment has two digits in it. */
__global__ void __launch_bounds__(256) segp_scan_kernel(const rdx_seg_passes_args a, const segp_dev d, int passes)
{
    rdx_chain_enter();
    const uint32_t lane = rdx_lane();
    const size_t warps = (size_t)d.ctl[RDX_SEGP_LONG] * (size_t)passes;
    for (size_t w = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < warps;
         w += ((size_t)gridDim.x * blockDim.x) >> 5) /* whole warps */
        segp_scan_one(a, d, passes, w / (size_t)passes, (int)(w % (size_t)passes), lane);
}

/* Which passes run and from which buffer; the pass kernel takes each digit bit_less bits
 * lower from its pass word (the drop field, as the MSD route's level 1 does). */
__global__ void segp_plan_kernel(const segp_dev d, int passes, int apart, const uint32_t *bit_less)
{
    rdx_chain_enter();
    if (threadIdx.x == 0) {
        rdx_plan_passes(d.act, passes, apart, d.info, d.active);
        const uint32_t less = bit_less ? *bit_less : 0u;
        for (int p = 0; p < passes; ++p)
            if (d.info[p])
                d.info[p] |= less << RDX_PASS_DROP_SHIFT | ((d.act[p] & 2u) ? RDX_PASS_CROWDED : 0u);
    }
}

/* dst[i] = src[i] for i in [begin, end), elements of `bytes` bytes, over the block. */
static __device__ __forceinline__ void segp_copy(void *dst, const void *src, size_t begin, size_t end, int bytes)
{
    switch (bytes) {
    case 1: rdx_block_copy((uint8_t *)dst, (const uint8_t *)src, begin, end); break;
    case 2: rdx_block_copy((uint16_t *)dst, (const uint16_t *)src, begin, end); break;
    case 4: rdx_block_copy((uint32_t *)dst, (const uint32_t *)src, begin, end); break;
    default: rdx_block_copy((unsigned long long *)dst, (const unsigned long long *)src, begin, end); break;
    }
}

/* keys_a[i] for i in [begin, end) of the segment starting at seg_start, where the last
 * pass wrote a pattern that several keys share under RDX_NUMPY_ORDER (zeros, NaNs): the
 * key's own bits again, from orig_keys at the 4-byte index in vals_a (the fix-up's
 * threads take the same i as segp_copy, so each reads what it copied back). */
template <typename K>
static __device__ __forceinline__ void segp_restore_k(const rdx_seg_passes_args &a, size_t begin, size_t seg_start,
                                                      size_t end)
{
    K *keys = (K *)a.keys_a;
    for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x)
        if (rdx_numpy_canon_shared(keys[i], a.inf))
            keys[i] = ((const K *)a.orig_keys)[seg_start + ((const uint32_t *)a.vals_a)[i]];
}

static __device__ __forceinline__ void segp_restore(const rdx_seg_passes_args &a, size_t begin, size_t seg_start,
                                                    size_t end)
{
    switch (a.kb) {
    case 2: segp_restore_k<uint16_t>(a, begin, seg_start, end); break;
    case 4: segp_restore_k<uint32_t>(a, begin, seg_start, end); break;
    default: segp_restore_k<unsigned long long>(a, begin, seg_start, end); break;
    }
}

/* 4-byte indices [begin, end) widened into 8-byte ones, a block's threads striding. */
static __device__ __forceinline__ void segp_widen(void *wide, const void *idx, size_t begin, size_t end)
{
    for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x)
        ((unsigned long long *)wide)[i] = ((const uint32_t *)idx)[i];
}

/* The whole-array fix-up (gather.cu) over the long segments' tiles: with no pass run, the
 * source (or the indices) to A where they differ; in place after an odd number of passes,
 * B back to A; shared canonical keys restored (orig_keys); and 4-byte indices widened into
 * wide_out. A segment that stayed through the passes (moves, not with leave_in_b) is
 * treated as if no pass had run. */
__global__ void __launch_bounds__(RDX_COPY_THREADS) segp_fixup_kernel(const rdx_seg_passes_args a, const segp_dev d,
                                                                     int apart)
{
    rdx_chain_enter();
    const uint32_t active = *d.active, tiles = d.ctl[RDX_SEGP_TILES];
    const bool none = active == 0, back = (active & 1u) && !apart && !a.leave_in_b;
    /* what a segment that stayed needs: the source to A, or its indices written */
    const bool stayed_work = !a.leave_in_b && ((!a.keys_scratch && a.keys_src != a.keys_a) ||
                                               (a.vb && (!a.vals_src || a.vals_src != a.vals_a)));
    if (!none && !back && !a.wide_out && !a.orig_keys && !stayed_work)
        return;
    for (uint32_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const uint4 ti = d.tiles[t];
        const size_t begin = ti.x, end = begin + ti.y;
        if (!none && (a.leave_in_b || d.moves[ti.w] != 0u)) { /* the segment went through the passes */
            if (back) {
                if (!a.keys_scratch)
                    segp_copy(a.keys_a, a.keys_b, begin, end, a.kb);
                if (a.vb)
                    segp_copy(a.vals_a, a.vals_b, begin, end, a.vb);
            }
            if (a.orig_keys)
                segp_restore(a, begin, begin - (size_t)(t - ti.z) * d.tile, end);
            if (a.wide_out)
                segp_widen(a.wide_out, a.vals_a, begin, end);
            continue;
        }
        if (!a.keys_scratch && a.keys_src != a.keys_a)
            segp_copy(a.keys_a, a.keys_src, begin, end, a.kb);
        if (a.vb && !a.vals_src) { /* the permutation is the identity */
            const size_t from = a.iota_rel ? begin - (size_t)(t - ti.z) * d.tile : 0;
            for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
                if (a.wide_out)
                    ((unsigned long long *)a.wide_out)[i] = i - from;
                else if (a.vb == 8)
                    ((unsigned long long *)a.vals_a)[i] = i - from;
                else
                    ((uint32_t *)a.vals_a)[i] = (uint32_t)(i - from);
            }
        } else if (a.wide_out) { /* the indices as they were */
            segp_widen(a.wide_out, a.vals_src, begin, end);
        } else if (a.vb && a.vals_src != a.vals_a) {
            segp_copy(a.vals_a, a.vals_src, begin, end, a.vb);
        }
    }
}

/* ---- the enqueue ---- */

template <int KB>
static cudaError_t launch_hist(const rdx_seg_passes_args *a, const segp_dev *d, int passes, unsigned grid, cudaStream_t s)
{
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, grid, RDX_SEGP_HIST_THREADS, 0, s), segp_hist_kernel<KB>, *a, *d, passes);
}

cudaError_t rdx_seg_passes_enqueue(const rdx_seg_passes_args *a, void *scratch, int sms, cudaStream_t s)
{
    const int passes = passes_of(a->begin_bit, a->end_bit, a->radix_bits);
    if (a->n == 0 || a->S == 0 || passes < 1 || ((uint32_t)passes << a->radix_bits) > RDX_HIST_MAX_CELLS ||
        (uint64_t)a->n >= ((uint64_t)1 << 32))
        return a->n == 0 || a->S == 0 ? cudaSuccess : cudaErrorInvalidValue;
    const segp_layout L = segp_plan(a->kb, a->vb, a->n, a->S, a->max_short, passes);
    const segp_dev d = segp_dev_at(&L, scratch);
    const size_t zero_words = L.zero_end / 4; /* from d.ctl, the scratch's start */
    cudaError_t e;
    rdx_chain_launch l;
    if ((e = cudaLaunchKernelEx(rdx_chain_config(&l, 1, RDX_SEGP_TILES_THREADS, 0, s), segp_tiles_kernel, *a, d,
                                zero_words)) != cudaSuccess ||
        (e = cudaLaunchKernelEx(rdx_chain_config(&l, rdx_copy_grid(L.tmax, sms), RDX_COPY_THREADS, 0, s),
                                segp_map_kernel, d, passes)) != cudaSuccess)
        return e;
    /* The histogram and the scan loop over what the device counted: a few blocks per SM. */
    size_t busy_grid = (size_t)(sms > 0 ? sms : 1) * RDX_SEGP_HIST_BLOCKS_PER_SM;
    if (busy_grid > L.tmax)
        busy_grid = L.tmax;
    switch (a->kb) {
    case 1: e = launch_hist<1>(a, &d, passes, (unsigned)busy_grid, s); break;
    case 2: e = launch_hist<2>(a, &d, passes, (unsigned)busy_grid, s); break;
    case 4: e = launch_hist<4>(a, &d, passes, (unsigned)busy_grid, s); break;
    default: e = launch_hist<8>(a, &d, passes, (unsigned)busy_grid, s); break;
    }
    const size_t scan_blocks = (L.lmax * (size_t)passes + 7) / 8; /* 8 warps a block */
    const unsigned scan_grid = (unsigned)(scan_blocks < busy_grid ? scan_blocks : busy_grid);
    const int apart = a->keys_src != a->keys_a && (!a->vals_src || a->vals_src != a->vals_a);
    if (e != cudaSuccess ||
        (e = cudaLaunchKernelEx(rdx_chain_config(&l, scan_grid, 256, 0, s), segp_scan_kernel, *a, d, passes)) !=
            cudaSuccess ||
        (e = cudaLaunchKernelEx(rdx_chain_config(&l, 1, 32, 0, s), segp_plan_kernel, d, passes, apart,
                                a->bit_less)) != cudaSuccess)
        return e;

    /* The launches differ in the pass and its look-back buffers only. */
    rdx_pass_args pa;
    memset(&pa, 0, sizeof pa);
    pa.keys_a = a->keys_a;
    pa.keys_b = a->keys_b;
    pa.vals_a = a->vals_a;
    pa.vals_b = a->vals_b;
    pa.keys_src = a->keys_src;
    pa.vals_src = a->vals_src ? a->vals_src : a->vals_a;
    pa.pass_info = d.info;
    pa.zero_rows = L.tmax;
    pa.portion_count = a->n;
    pa.cls = a->cls;
    pa.desc = a->desc;
    pa.iota = a->vals_src == NULL;
    pa.keys_scratch = a->keys_scratch;
    pa.narrow = 1; /* widen 0: the fix-up widens (wide_out) */
    pa.seg.tiles = d.tiles;
    pa.seg.tile_count = d.ctl + RDX_SEGP_TILES;
    pa.seg.bases = d.bases;
    pa.seg.moves = a->leave_in_b ? NULL : d.moves; /* (the deep level reads every segment from B) */
    pa.seg.passes = passes;
    pa.seg.iota_rel = a->iota_rel;
    pa.seg.numpy = a->numpy;
    pa.seg.inf = a->inf;
    if (!a->off) { /* equal rows: each block computes its tile */
        pa.seg.seg_size = a->seg_size;
        pa.seg.row_tiles = (uint32_t)((a->seg_size + L.tile - 1) / L.tile);
    }
    const size_t max_tiles = a->off ? L.tmax : a->S * (size_t)pa.seg.row_tiles;
    for (int p = 0; p < passes; ++p) {
        pa.status = d.status[p % 2];
        pa.status_next = d.status[(p + 1) % 2];
        pa.tile_counter = d.counters + p;
        pa.pass = p;
        pa.unordered = a->unordered && p == 0;
        pa.shift = a->begin_bit + p * a->radix_bits;
        pa.bits = a->end_bit - pa.shift < a->radix_bits ? a->end_bit - pa.shift : a->radix_bits;
        if ((e = rdx_launch_seg_pass(a->kb, a->vb, &pa, max_tiles, sms, s)) != cudaSuccess)
            return e;
    }
    return cudaLaunchKernelEx(
        rdx_chain_config(&l, rdx_resident_grid(L.tmax, sms, RDX_COPY_BLOCKS_PER_SM, 1), RDX_COPY_THREADS, 0, s),
        segp_fixup_kernel, *a, d, apart);
}
