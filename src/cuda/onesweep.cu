/* The pass kernel: one launch moves every key (and value) of a portion once, by one
 * digit (DESIGN.md section 1, "rank" and "scatter" in one kernel).
 *
 * Each block takes the next tile number from an atomic counter (so it only ever waits on
 * tiles that have started), loads its tile warp-striped, ranks it by digit (rank.cuh),
 * counts its digits and publishes the counts at once, ranks the keys and reorders the
 * tile in shared memory while earlier tiles finish, walks back over earlier tiles' status
 * words for its global offset per digit (decoupled look-back), and writes each digit's
 * keys out as one contiguous run: thread i writes slot i to
 * bases[d] + lookback[d] + (i - tile_start[d]).
 * A full tile whose keys all share one digit (sorted or reverse input, few distinct keys,
 * the later passes of skewed data) is one run already: its counts tell, and it skips the
 * ranking and shared memory, each thread writing its items straight from registers.
 * Tile shapes by size (tuning.h): large for throughput, medium for small inputs, and for
 * 8 bytes per key a mid shape between them.
 * SEG = 1 (the segmented passes, seg_passes.cu): tiles are numbered per segment
 * (a.seg), a segment's first tile publishes its prefix, the look-back stops there, and a
 * digit's slots start at the segment's start plus its own digit base. */
#include "common.cuh"
#include "kernels.h"
#include "rank.cuh"

/* Shape and shared-memory layout of the pass kernel for key bytes KB, value bytes VB, and
 * the size class MED (RDX_OS_LARGE, RDX_OS_MEDIUM, RDX_OS_MID). */
template <int KB, int VB, int MED> struct rdx_os_layout {
    static constexpr int THREADS = RDX_OS_SHAPE_THREADS(KB, VB, MED);
    static constexpr int ITEMS = RDX_OS_SHAPE_ITEMS(KB, VB, MED);
    static constexpr int MIN_BLOCKS = RDX_OS_SHAPE_MIN_BLOCKS(KB, VB, MED);
    static constexpr int TILE = THREADS * ITEMS;
    static constexpr int WARPS = THREADS / 32;
    static constexpr size_t KEYS = 0;
    static constexpr size_t VALS = (KEYS + (size_t)TILE * KB + 15) / 16 * 16;
    static constexpr size_t GOFS = (VALS + (size_t)TILE * VB + 15) / 16 * 16;
    static constexpr size_t WCNT = GOFS + RDX_CUDA_MAX_BINS * 8;
    static constexpr size_t START = WCNT + (size_t)WARPS * RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t SCAN = START + RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t MISC = SCAN + 32 * 4;
    static constexpr size_t BYTES = MISC + 16;
};

/* What a launch writes: keys as they are (every pass but the last), keys decoded (the last
 * pass), or the values alone (an argsort's last pass: its keys are scratch), as they are
 * or widened from 4 to 8 bytes (an argsort into 64-bit indices that moved 32-bit ones). */
enum { OUT_KEYS, OUT_DECODED, OUT_VALUES, OUT_WIDE };

/* Writes one key (and value) to output slot o, in the pass's output mode. */
template <int OUT, int VB, typename K, typename V>
static __device__ __forceinline__ void put_slot(int cls, int desc, K *out, V *vout, unsigned long long o, K k, V v)
{
    if (OUT == OUT_KEYS || OUT == OUT_DECODED)
        out[o] = OUT == OUT_DECODED ? rdx_dec(k, cls, desc) : k;
    if (OUT == OUT_WIDE)
        ((unsigned long long *)vout)[o] = (unsigned long long)v;
    else if (VB)
        vout[o] = v;
}

/* Writes the reordered tile: consecutive threads, consecutive slots. NARROW: every output
 * slot is below 2^32, so the per-digit offsets are 32-bit (fewer instructions and shared
 * loads per key than 64-bit ones). */
template <int OUT, bool FULL, bool NARROW, int VB, typename L, typename K, typename V>
static __device__ __forceinline__ void write_tile(const rdx_pass_args &a, const K *s_keys, const V *s_vals,
                                                  const void *s_gofs, uint32_t count, int shift, uint32_t mask,
                                                  K *out, V *vout)
{
#pragma unroll 4
    for (int j = 0; j < L::ITEMS; ++j) {
        const uint32_t idx = (uint32_t)j * L::THREADS + threadIdx.x;
        if (FULL || idx < count) {
            const K k = s_keys[idx];
            const uint32_t d = rdx_digit(k, shift, mask);
            const unsigned long long o = NARROW ? (unsigned long long)(((const uint32_t *)s_gofs)[d] + idx)
                                                : ((const unsigned long long *)s_gofs)[d] + idx;
            put_slot<OUT, VB>(a.cls, a.desc, out, vout, o, k, VB ? s_vals[idx] : (V)0);
        }
    }
}

/* write_tile for a tile that is full or not, with narrow or wide offsets. The values-only
 * modes come with narrow offsets only (an argsort whose indices fit 32 bits; a larger one
 * writes its keys too). */
template <int OUT, int VB, typename L, typename K, typename V>
static __device__ __forceinline__ void write_tile_any(const rdx_pass_args &a, const K *s_keys, const V *s_vals,
                                                      const void *s_gofs, uint32_t count, int shift, uint32_t mask,
                                                      K *out, V *vout)
{
    const bool full = count == (uint32_t)L::TILE;
    if (a.narrow && full)
        write_tile<OUT, true, true, VB, L>(a, s_keys, s_vals, s_gofs, count, shift, mask, out, vout);
    else if (a.narrow)
        write_tile<OUT, false, true, VB, L>(a, s_keys, s_vals, s_gofs, count, shift, mask, out, vout);
    else if (OUT == OUT_KEYS || OUT == OUT_DECODED) {
        if (full)
            write_tile<OUT, true, false, VB, L>(a, s_keys, s_vals, s_gofs, count, shift, mask, out, vout);
        else
            write_tile<OUT, false, false, VB, L>(a, s_keys, s_vals, s_gofs, count, shift, mask, out, vout);
    }
}

/* Item i of this thread (slot first + 32 i of the tile) from src, or 0 at or past count
 * where the tile is not full. */
template <int ITEMS, typename T>
static __device__ __forceinline__ void load_striped(const T *src, uint32_t first, uint32_t count, bool full,
                                                    T (&x)[ITEMS])
{
    if (full) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            x[i] = src[first + (uint32_t)i * 32u];
    } else {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const uint32_t pos = first + (uint32_t)i * 32u;
            x[i] = pos < count ? src[pos] : T();
        }
    }
}

/* Writes a full tile of one digit straight from registers: it is one run in its own order,
 * so item i of this thread (tile slot first + 32 i) goes to run_base + first + 32 i, where
 * run_base is the digit's offset (its tile start is 0). */
template <int OUT, int VB, typename L, typename K, typename V>
static __device__ __forceinline__ void write_run(const rdx_pass_args &a, const K (&key)[L::ITEMS],
                                                 const V (&val)[L::ITEMS], unsigned long long run_base,
                                                 uint32_t first, K *out, V *vout)
{
    K *ko = out + run_base + first;
    V *vo = vout + run_base + first;
    unsigned long long *wo = (unsigned long long *)vout + run_base + first;
#pragma unroll
    for (int i = 0; i < L::ITEMS; ++i) {
        if (OUT == OUT_KEYS || OUT == OUT_DECODED)
            ko[i * 32] = OUT == OUT_DECODED ? rdx_dec(key[i], a.cls, a.desc) : key[i];
        if (OUT == OUT_WIDE)
            wo[i * 32] = (unsigned long long)val[i];
        else if (VB)
            vo[i * 32] = val[i];
    }
}

/* The tile's writes, in the pass's output mode: straight from registers where the tile is
 * one run (ONE), else from the tile reordered in shared memory. */
template <bool ONE, int VB, typename L, typename K, typename V>
static __device__ __forceinline__ void write_mode(const rdx_pass_args &a, uint32_t info, const K (&key)[L::ITEMS],
                                                  const V (&val)[L::ITEMS], const K *s_keys, const V *s_vals,
                                                  const void *s_gofs, uint32_t count, int shift, uint32_t mask,
                                                  uint32_t first, K *out, V *vout)
{
    unsigned long long run_base = 0;
    if (ONE) {
        const uint32_t d = rdx_digit(key[0], shift, mask);
        run_base = a.narrow ? (unsigned long long)((const uint32_t *)s_gofs)[d] : ((const unsigned long long *)s_gofs)[d];
    }
    const bool last = (info & RDX_PASS_LAST) != 0;
#define RDX_WRITE(OUT)                                                                     \
    do {                                                                                   \
        if (ONE)                                                                           \
            write_run<OUT, VB, L>(a, key, val, run_base, first, out, vout);                \
        else                                                                               \
            write_tile_any<OUT, VB, L>(a, s_keys, s_vals, s_gofs, count, shift, mask, out, vout); \
    } while (0)
    if (last && a.keys_scratch && VB == 4 && a.widen)
        RDX_WRITE(OUT_WIDE);
    else if (last && a.keys_scratch && VB && a.narrow)
        RDX_WRITE(OUT_VALUES);
    else if (last && !a.keys_scratch)
        RDX_WRITE(OUT_DECODED);
    else
        RDX_WRITE(OUT_KEYS);
#undef RDX_WRITE
}

/* ---- Packed pairs (rdx_pass_args.packed): 4-byte keys with 4-byte values (or indices)
 * on the 8-byte keys' kernel, each pair one word, the encoded key above the value, so a
 * pass loads and stores one word a pair where the pairs kernel takes two of each. The first
 * active pass reads the pairs apart (or makes the indices) and the last writes them apart
 * (the key decoded, or an argsort's indices alone); the words between live
 * in B (n words from keys_b on: its keys' and values' arrays, back to back) or in A, whose
 * arrays hold n / 2 words each, with an odd n's last word in a spare. */
typedef struct {
    unsigned long long *lo, *hi, *spare;
    size_t h; /* words in lo (and in hi) */
} rdx_pk_buf;

static __device__ __forceinline__ rdx_pk_buf pk_buf(const rdx_pass_args &a, bool in_a)
{
    if (in_a)
        return {(unsigned long long *)a.keys_a, (unsigned long long *)a.vals_a, (unsigned long long *)a.pack_spare,
                a.n / 2};
    return {(unsigned long long *)a.keys_b, nullptr, nullptr, a.n};
}

/* Word i (of the whole array) of a packed buffer. */
static __device__ __forceinline__ unsigned long long *pk_at(const rdx_pk_buf &b, size_t i)
{
    return i < b.h ? b.lo + i : i - b.h < b.h ? b.hi + (i - b.h) : b.spare;
}

/* Item i of this thread (tile slot first + 32 i) as a word: from the pairs apart (the
 * first active pass, encoding the key) or from the packed buffer the pass reads. */
template <int ITEMS>
static __device__ __forceinline__ void load_packed(const rdx_pass_args &a, bool first_pass, bool from_b, size_t g0,
                                                   uint32_t first, uint32_t count, bool full,
                                                   unsigned long long (&w)[ITEMS])
{
    if (first_pass) {
        uint32_t k[ITEMS], v[ITEMS];
        load_striped((const uint32_t *)a.keys_src + g0, first, count, full, k);
        if (a.iota) { /* an argsort's (or a gather's) indices */
#pragma unroll
            for (int i = 0; i < ITEMS; ++i)
                v[i] = (uint32_t)(g0 + first + (uint32_t)i * 32u);
        } else {
            load_striped((const uint32_t *)a.vals_src + g0, first, count, full, v);
        }
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
            w[i] = (unsigned long long)rdx_enc(k[i], a.cls, a.desc) << 32 | v[i];
        return;
    }
    const rdx_pk_buf src = pk_buf(a, !from_b);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t pos = first + (uint32_t)i * 32u;
        w[i] = full || pos < count ? *pk_at(src, g0 + pos) : 0ull;
    }
}

/* Where a packed pass writes: words (dst), or the pairs apart (the last active pass; an
 * argsort's indices alone, widened to 8 bytes where asked: keys_scratch, widen). */
typedef struct {
    rdx_pk_buf dst;
    uint32_t *keys, *vals;
    int cls, desc, keys_scratch, widen;
} rdx_pk_out;

template <bool LAST>
static __device__ __forceinline__ void pk_put(const rdx_pk_out &o, unsigned long long slot, unsigned long long w)
{
    if (LAST) {
        if (!o.keys_scratch)
            o.keys[slot] = rdx_dec((uint32_t)(w >> 32), o.cls, o.desc);
        if (o.widen)
            ((unsigned long long *)o.vals)[slot] = (uint32_t)w;
        else
            o.vals[slot] = (uint32_t)w;
    } else {
        *pk_at(o.dst, slot) = w;
    }
}

/* write_tile and write_run for packed words. */
template <bool LAST, bool FULL, bool NARROW, typename L>
static __device__ __forceinline__ void pk_write_tile(const rdx_pk_out &o, const unsigned long long *s_keys,
                                                     const void *s_gofs, uint32_t count, int shift, uint32_t mask)
{
#pragma unroll 4
    for (int j = 0; j < L::ITEMS; ++j) {
        const uint32_t idx = (uint32_t)j * L::THREADS + threadIdx.x;
        if (FULL || idx < count) {
            const unsigned long long w = s_keys[idx];
            const uint32_t d = rdx_digit(w, shift, mask);
            pk_put<LAST>(o, NARROW ? (unsigned long long)(((const uint32_t *)s_gofs)[d] + idx)
                                   : ((const unsigned long long *)s_gofs)[d] + idx, w);
        }
    }
}

template <bool ONE, bool LAST, typename L>
static __device__ __forceinline__ void pk_write(const rdx_pk_out &o, const rdx_pass_args &a,
                                                const unsigned long long (&w)[L::ITEMS],
                                                const unsigned long long *s_keys, const void *s_gofs,
                                                uint32_t count, int shift, uint32_t mask, uint32_t first)
{
    if (ONE) { /* a full tile of one digit, straight from registers */
        const uint32_t d = rdx_digit(w[0], shift, mask);
        const unsigned long long base =
            (a.narrow ? (unsigned long long)((const uint32_t *)s_gofs)[d] : ((const unsigned long long *)s_gofs)[d]) +
            first;
#pragma unroll
        for (int i = 0; i < L::ITEMS; ++i)
            pk_put<LAST>(o, base + (uint32_t)i * 32u, w[i]);
    } else if (count == (uint32_t)L::TILE) {
        if (a.narrow)
            pk_write_tile<LAST, true, true, L>(o, s_keys, s_gofs, count, shift, mask);
        else
            pk_write_tile<LAST, true, false, L>(o, s_keys, s_gofs, count, shift, mask);
    } else {
        if (a.narrow)
            pk_write_tile<LAST, false, true, L>(o, s_keys, s_gofs, count, shift, mask);
        else
            pk_write_tile<LAST, false, false, L>(o, s_keys, s_gofs, count, shift, mask);
    }
}

/* The packed pass's writes: to B or A (from_b), as words or (the last pass) apart. */
template <bool ONE, typename L>
static __device__ __forceinline__ void pk_write_mode(const rdx_pass_args &a, uint32_t info,
                                                     const unsigned long long (&w)[L::ITEMS],
                                                     const unsigned long long *s_keys, const void *s_gofs,
                                                     uint32_t count, int shift, uint32_t mask, uint32_t first)
{
    const bool to_a = (info & RDX_PASS_FROM_B) != 0;
    rdx_pk_out o;
    o.dst = pk_buf(a, to_a);
    o.keys = (uint32_t *)(to_a ? a.keys_a : a.keys_b);
    o.vals = (uint32_t *)(to_a ? a.vals_a : a.vals_b);
    o.cls = a.cls;
    o.desc = a.desc;
    o.keys_scratch = a.keys_scratch;
    o.widen = a.keys_scratch && a.widen;
    if (info & RDX_PASS_LAST)
        pk_write<ONE, true, L>(o, a, w, s_keys, s_gofs, count, shift, mask, first);
    else
        pk_write<ONE, false, L>(o, a, w, s_keys, s_gofs, count, shift, mask, first);
}

/* Decoupled look-back, one thread per digit (whole warps of them): each digit's offset in
 * the output for this tile, in s_gofs (32-bit where a.narrow). Ends synchronized. */
template <int SEG>
static __device__ __forceinline__ void tile_look_back(const rdx_pass_args &a, uint32_t tile, uint32_t chain,
                                                      uint32_t li, size_t seg_start, uint32_t total, uint32_t bins,
                                                      const uint32_t *s_start, unsigned long long *s_gofs)
{
    if (threadIdx.x < ((bins + 31u) & ~31u)) {
        const bool mine = threadIdx.x < bins;
        uint32_t excl = 0;
        if (tile > chain) {
            excl = rdx_look_back(a.status, tile - 1, !mine);
            if (mine)
                rdx_store_status(a.status + (size_t)tile * RDX_CUDA_MAX_BINS + threadIdx.x,
                                 RDX_STATUS_PREFIX | (excl + total));
        }
        if (mine) {
            /* Slot i of digit d goes to bases[d] + excl + (i - start[d]); unsigned
             * wrap-around makes the subtraction safe. */
            const unsigned long long base =
                SEG ? seg_start + a.seg.bases[((size_t)li * a.seg.passes + a.pass) * RDX_CUDA_MAX_BINS + threadIdx.x]
                    : a.bases[a.pass * RDX_CUDA_MAX_BINS + threadIdx.x];
            const unsigned long long gofs = base + excl - s_start[threadIdx.x];
            if (a.narrow)
                ((uint32_t *)s_gofs)[threadIdx.x] = (uint32_t)gofs;
            else
                s_gofs[threadIdx.x] = gofs;
            /* The last tile knows the portion's count of each digit: the next portion's
             * keys of digit d start after them. */
            if (!SEG && a.bases_next && tile == a.tiles - 1u)
                a.bases_next[a.pass * RDX_CUDA_MAX_BINS + threadIdx.x] = base + excl + total;
        }
        __syncwarp();
    }
    __syncthreads();
}

/* Moves tile `tile` of the pass (its number taken from the tile counter): load, count and
 * publish, rank, look back, write. */
template <int KB, int VB, int MED, int SEG, int NP>
static __device__ __forceinline__ void pass_tile(const rdx_pass_args &a, uint32_t info, uint32_t tile,
                                                 unsigned char *smem)
{
    typedef rdx_os_layout<KB, VB, MED> L;
    typedef typename rdx_pass_key<KB, NP>::t K;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    K *s_keys = (K *)(smem + L::KEYS);
    V *s_vals = (V *)(smem + L::VALS);
    unsigned long long *s_gofs = (unsigned long long *)(smem + L::GOFS);
    uint32_t *s_wcnt = (uint32_t *)(smem + L::WCNT);
    uint32_t *s_start = (uint32_t *)(smem + L::START);
    uint32_t *s_scan = (uint32_t *)(smem + L::SCAN);
    /* The tile's first key, its keys, and the first tile of its look-back chain. */
    size_t tile_begin, left, seg_start = 0;
    uint32_t chain = 0, li = 0;
    if (SEG) {
        if (a.seg.seg_size) { /* equal rows: computed */
            li = tile / a.seg.row_tiles;
            chain = li * a.seg.row_tiles;
            seg_start = (size_t)li * a.seg.seg_size;
            tile_begin = seg_start + (size_t)(tile - chain) * L::TILE;
            left = seg_start + a.seg.seg_size - tile_begin;
        } else {
            const uint4 t = a.seg.tiles[tile];
            if (t.y == 0)
                return; /* only with offsets that break the rules */
            tile_begin = t.x;
            left = t.y;
            chain = t.z;
            li = t.w;
            seg_start = tile_begin - (size_t)(tile - chain) * L::TILE;
        }
        if (a.seg.moves && a.seg.moves[li] == 0u)
            return; /* one digit in every pass: the segment stays (seg_passes.cu's fix-up) */
    } else {
        tile_begin = (size_t)tile * L::TILE;
        left = a.portion_count - tile_begin;
    }
    const uint32_t count = left < (size_t)L::TILE ? (uint32_t)left : (uint32_t)L::TILE;
    const bool from_b = (info & RDX_PASS_FROM_B) != 0;
    /* The first active pass reads the sort's source (buffer A when sorting in place). */
    const bool first_pass = (info & RDX_PASS_FIRST) != 0;
    const K *in = (const K *)(first_pass ? a.keys_src : from_b ? a.keys_b : a.keys_a) + a.portion_begin + tile_begin;
    K *out = (K *)(from_b ? a.keys_a : a.keys_b);
    /* Packed pairs: the 8-byte keys' kernel on words whose upper half is the key. */
    constexpr bool PK_FORM = KB == 8 && VB == 0 && !SEG && !NP;
    const bool packed = PK_FORM && a.packed;
    const int shift = a.shift - (int)(info >> RDX_PASS_DROP_SHIFT) + (packed ? 32 : 0), /* (the MSD route's level 1) */
        bits = a.bits;
    const uint32_t bins = 1u << bits, mask = bins - 1u;
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t first = warp * 32u * L::ITEMS + lane;

    const bool full = count == (uint32_t)L::TILE;
    K key[L::ITEMS];
    if constexpr (PK_FORM) {
        if (packed)
            load_packed(a, first_pass, from_b, a.portion_begin + tile_begin, first, count, full, key);
        else
            load_striped(in, first, count, full, key);
    } else {
        load_striped(in, first, count, full, key);
    }
    if (first_pass && !packed) {
#pragma unroll
        for (int i = 0; i < L::ITEMS; ++i)
            key[i] = rdx_enc(key[i], a.cls, a.desc);
        if constexpr (!NP) { /* (NumPy's order on the LSD passes has neither) */
            if (!SEG && KB >= 4 && a.msd_base) { /* the MSD route's level 1 */
                const K base = (K)rdx_u64_of(a.msd_base);
#pragma unroll
                for (int i = 0; i < L::ITEMS; ++i)
                    key[i] -= base;
            }
            if (SEG && KB >= 2 && a.seg.numpy) {
#pragma unroll
                for (int i = 0; i < L::ITEMS; ++i)
                    key[i] = (K)rdx_numpy_canon((uint64_t)key[i], (unsigned)KB, a.seg.inf, a.desc);
            }
        }
    }

    /* Count first and publish at once, so that later tiles can go on; rank afterwards. */
    const uint32_t total = rdx_count_tile<K, L::ITEMS, L::THREADS, true>(key, count, shift, bits, s_wcnt);
    uint32_t *row = a.status + (size_t)tile * RDX_CUDA_MAX_BINS;
    if (threadIdx.x < bins)
        rdx_store_status(row + threadIdx.x, (tile == chain ? RDX_STATUS_PREFIX : RDX_STATUS_AGGREGATE) | total);
    /* The values are loaded after the counting, so that their loads do not queue behind
     * the keys' (the load queue was full at the tile's start), and their latency hides
     * behind the ranking. */
    V val[L::ITEMS];
    if (VB) {
        const V *vin = (const V *)(first_pass ? a.vals_src : from_b ? a.vals_b : a.vals_a) + a.portion_begin +
                       tile_begin;
        if (a.iota && first_pass) { /* an argsort's first pass makes its indices */
            const size_t index0 = a.portion_begin + tile_begin - (SEG && a.seg.iota_rel ? seg_start : 0);
#pragma unroll
            for (int i = 0; i < L::ITEMS; ++i)
                val[i] = (V)(index0 + first + (uint32_t)i * 32u);
        } else {
            load_striped(vin, first, count, full, val);
        }
    }
    const bool one_digit = rdx_offset_tile_one_digit<L::THREADS>(total, bits, s_wcnt, s_start, s_scan,
                                                                 full ? (uint32_t)L::TILE : UINT32_MAX);

    /* Then the look-back, and consecutive threads write consecutive slots: each digit's
     * run leaves as a burst. The two cases are separate paths so that the keys held for
     * the one-run case do not occupy registers through the look-back of the other. */
    V *vout = (V *)(from_b ? a.vals_a : a.vals_b);
    if (one_digit) {
        tile_look_back<SEG>(a, tile, chain, li, seg_start, total, bins, s_start, s_gofs);
        if constexpr (PK_FORM) {
            if (packed) {
                pk_write_mode<true, L>(a, info, key, s_keys, s_gofs, count, shift, mask, first);
                return;
            }
        }
        write_mode<true, VB, L>(a, info, key, val, s_keys, s_vals, s_gofs, count, shift, mask, first, out, vout);
    } else {
        /* Rank, and reorder the tile by digit in shared memory while earlier tiles publish.
         * Where a digit is crowded the segmented passes (each segment its own value) rank
         * stably. */
        const bool crowded = (info & RDX_PASS_CROWDED) != 0;
        rdx_rank_scatter<VB, K, V, L::ITEMS, L::THREADS>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals,
                                                         (info & RDX_PASS_FEW) != 0, a.unordered && !(SEG && crowded),
                                                         SEG ? RDX_RANK_NO_HOT : rdx_pass_hot(info));
        tile_look_back<SEG>(a, tile, chain, li, seg_start, total, bins, s_start, s_gofs);
        if constexpr (PK_FORM) {
            if (packed) {
                pk_write_mode<false, L>(a, info, key, s_keys, s_gofs, count, shift, mask, first);
                return;
            }
        }
        write_mode<false, VB, L>(a, info, key, val, s_keys, s_vals, s_gofs, count, shift, mask, first, out, vout);
    }
}

/* ---- The reversal (RDX_PASS_REVERSE): keys in the reverse of the sort's order ----
 * Each run of keys that compare equal, slots [s, e] of the whole array, goes to
 * [n - 1 - e, n - 1 - s] in its own order (stable): slot g to n - 1 - e + (g - s). A warp
 * finds the runs' edges among its slots by ballots of heads (a run's first slot) and tails
 * (its last); a run that reaches past its warp takes the edge of another warp of the tile
 * (shared memory), and one that reaches past the tile follows the keys in global memory
 * (run_reach). One read and one write of every key and value, where the passes take one
 * of each per pass. */

/* How the reversal compares keys: bits [shift, shift + bits) of their codes. */
template <typename K> struct rdx_rev_order {
    const K *keys; /* the whole array (the sort's source) */
    int cls, desc, shift;
    K mask;        /* the compared bits, shifted down */
};

/* The compared bits of a key as the caller holds it, and of the key at slot g of the whole
 * array. */
template <typename K>
static __device__ __forceinline__ K compared_bits(const rdx_rev_order<K> &o, K key)
{
    return (K)(rdx_enc(key, o.cls, o.desc) >> o.shift) & o.mask;
}
template <typename K>
static __device__ __forceinline__ K compared_at(const rdx_rev_order<K> &o, size_t g)
{
    return compared_bits(o, o.keys[g]);
}

/* How far the run of keys whose compared bits are c reaches from slot `from` (one of them)
 * in direction dir (-1 or +1), at most max_d slots: the largest d <= max_d with slot
 * from + dir * d in the run (the keys are monotone, so every slot between is too). The
 * whole warp: probes at doubling distances, then the interval narrowed 32 ways a round,
 * so a run of r keys costs about 1 + log32(r) rounds of loads. */
template <typename K>
static __device__ __noinline__ size_t run_reach(const rdx_rev_order<K> o, size_t from, int dir, size_t max_d, K c)
{
    const uint32_t lane = rdx_lane();
    size_t in_d = 0, out_d = max_d + 1; /* in the run at in_d; not at out_d (or past max_d) */
#define RDX_PROBE(d) ((d) < out_d && compared_at(o, dir < 0 ? from - (d) : from + (d)) == c)
    for (;;) {
        const size_t base = in_d, d = base + ((size_t)1 << lane);
        const bool valid = d < out_d, in = RDX_PROBE(d);
        const uint32_t inside = __ballot_sync(RDX_FULL_WARP, in), outside = __ballot_sync(RDX_FULL_WARP, valid && !in);
        if (inside) /* a prefix of the lanes */
            in_d = base + ((size_t)1 << (31 - __clz((int)inside)));
        if (outside) {
            out_d = base + ((size_t)1 << (__ffs((int)outside) - 1));
            break;
        }
        if (inside != RDX_FULL_WARP)
            break; /* the probes passed max_d */
    }
    while (out_d - in_d > 1) {
        const size_t base = in_d, step = (out_d - in_d + 31) / 32, d = base + step * (lane + 1);
        const bool valid = d < out_d, in = RDX_PROBE(d);
        const uint32_t inside = __ballot_sync(RDX_FULL_WARP, in), outside = __ballot_sync(RDX_FULL_WARP, valid && !in);
        if (inside)
            in_d = base + step * (size_t)(32 - __clz((int)inside));
        if (outside)
            out_d = base + step * (size_t)__ffs((int)outside);
    }
#undef RDX_PROBE
    return in_d;
}

/* One tile of the reversal: what it reads and writes (built where it runs, so that the
 * pass kernel's parameters need no copy in local memory for a call). */
typedef struct rdx_rev_tile {
    const void *keys, *vals;     /* the sort's source, whole arrays (vals: NULL with iota) */
    void *keys_out, *vals_out;   /* the pass's output buffers */
    size_t n, g0;                /* the sort's keys; the tile's first slot in the whole array */
    uint32_t count;              /* the tile's keys */
    int cls, desc, shift, end_bit; /* the codec; the compared bits [shift, end_bit) */
} rdx_rev_tile;

/* Reverses one tile into the pass's output (mode OUT, as write_mode picks it). The tile's
 * keys go to shared memory; a warp takes rows of 32 slots (its row i: slots w0 + 32 i +
 * lane), whose heads and tails are ballots; a slot's run starts at the last head at or
 * before it and ends at the first tail at or after it, in its row, else in the warp's
 * rows before or after (carried), else in the tile's other warps, else beyond the tile.
 * Not inlined: the pass kernel's own path keeps its registers. */
template <int OUT, int VB, typename L, typename K, typename V>
static __device__ __noinline__ void reverse_tile(const rdx_rev_tile t, unsigned char *smem)
{
    enum { ROWS = L::ITEMS };
    static_assert(4 * ROWS <= RDX_CUDA_MAX_BINS && 2 * L::WARPS <= RDX_CUDA_MAX_BINS, "the regions hold the rows' "
                                                                                       "edges and the warps'");
    K *s_keys = (K *)(smem + L::KEYS);                     /* the tile's keys as they are */
    uint32_t *s_rows = (uint32_t *)(smem + L::WCNT);       /* per warp: ROWS heads, tails (ballots), and the */
    int *s_edges = (int *)(smem + L::START);               /* warps' last head, then first tail (or -1) */
    unsigned long long *s_tile_edge = (unsigned long long *)(smem + L::GOFS); /* the tile's first run's start,
                                                                                 its last run's end */
    const uint32_t count = t.count;
    const size_t g0 = t.g0, n = t.n;
    const int bits = t.end_bit - t.shift;
    const rdx_rev_order<K> o = {(const K *)t.keys, t.cls, t.desc, t.shift,
                                bits >= 8 * (int)sizeof(K) ? (K)~(K)0 : (K)(((K)1 << bits) - 1u)};
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5, w0 = warp * 32u * ROWS;
    {
        K key[ROWS];
        load_striped(o.keys + g0, w0 + lane, count, count == (uint32_t)L::TILE, key);
#pragma unroll
        for (int i = 0; i < ROWS; ++i)
            s_keys[w0 + 32u * i + lane] = key[i];
    }
    const K before = g0 > 0 ? compared_at(o, g0 - 1) : (K)0, after = g0 + count < n ? compared_at(o, g0 + count) : (K)0;
    __syncthreads();
    /* Each row's heads and tails; the warp's last head and first tail. */
    uint32_t *heads = s_rows + warp * 4u * ROWS, *tails = heads + ROWS;
    int *head_before = (int *)(tails + ROWS), *tail_after = head_before + ROWS; /* per row: the warp's last head
                                                                                    before it, first tail after */
    int last_head = -1;
    for (int i = 0; i < ROWS; ++i) {
        const uint32_t j = w0 + 32u * (uint32_t)i + lane;
        const bool valid = j < count;
        const K c = valid ? compared_bits(o, s_keys[j]) : (K)0;
        const K prev = j == 0 ? before : valid ? compared_bits(o, s_keys[j - 1]) : (K)0;
        const K next = j + 1 == count ? after : valid ? compared_bits(o, s_keys[j + 1]) : (K)0;
        const uint32_t h = __ballot_sync(RDX_FULL_WARP, valid && (g0 + j == 0 || prev != c));
        const uint32_t tl = __ballot_sync(RDX_FULL_WARP, valid && (g0 + j + 1 == n || next != c));
        if (lane == 0) {
            heads[i] = h;
            tails[i] = tl;
            head_before[i] = last_head;
        }
        if (h)
            last_head = 32 * i + 31 - __clz((int)h);
    }
    __syncwarp(); /* lane 0's rows are the warp's */
    int first_tail = -1;
    for (int i = ROWS - 1; i >= 0; --i) {
        const uint32_t tl = tails[i];
        if (lane == 0)
            tail_after[i] = first_tail;
        if (tl)
            first_tail = 32 * i + __ffs((int)tl) - 1;
    }
    if (lane == 0) {
        s_edges[warp] = last_head;
        s_edges[L::WARPS + warp] = first_tail;
    }
    __syncthreads();
    /* The runs across the tile's edges, followed in global memory: warp 0 the first slot's,
     * the last warp the last slot's. */
    if (warp == 0) {
        const bool crosses = g0 > 0 && before == compared_bits(o, s_keys[0]);
        const size_t start = crosses ? g0 - run_reach(o, g0, -1, g0, before) : g0;
        if (lane == 0)
            s_tile_edge[0] = start;
    }
    if (warp == L::WARPS - 1) {
        const size_t last = g0 + count - 1;
        const bool crosses = last + 1 < n && after == compared_bits(o, s_keys[count - 1]);
        const size_t end = crosses ? last + run_reach(o, last, 1, n - 1 - last, after) : last;
        if (lane == 0)
            s_tile_edge[1] = end;
    }
    __syncthreads();
    /* The run reaching into the warp from before it, and out of it after it. */
    size_t run_in = s_tile_edge[0], run_out = s_tile_edge[1];
    for (int w = (int)warp - 1; w >= 0; --w)
        if (s_edges[w] >= 0) {
            run_in = g0 + (size_t)w * 32u * ROWS + (size_t)s_edges[w];
            break;
        }
    for (int w = (int)warp + 1; w < L::WARPS; ++w)
        if (s_edges[L::WARPS + w] >= 0) {
            run_out = g0 + (size_t)w * 32u * ROWS + (size_t)s_edges[L::WARPS + w];
            break;
        }
    /* Slot g of run [s, e] goes to n - 1 - e + (g - s). */
    K *out = (K *)t.keys_out;
    V *vout = (V *)t.vals_out;
    const V *vin = (const V *)t.vals;
    const uint32_t at_or_before = 0xFFFFFFFFu >> (31 - lane), at_or_after = 0xFFFFFFFFu << lane;
    const size_t wg = g0 + w0;
#pragma unroll 4
    for (int i = 0; i < ROWS; ++i) {
        const uint32_t j = w0 + 32u * (uint32_t)i + lane;
        const uint32_t h = heads[i] & at_or_before, tl = tails[i] & at_or_after;
        const int start = h ? 32 * i + 31 - __clz((int)h) : head_before[i];
        const int end = tl ? 32 * i + __ffs((int)tl) - 1 : tail_after[i];
        if (j < count) {
            const size_t g = g0 + j;
            const size_t s = start >= 0 ? wg + (size_t)start : run_in, e = end >= 0 ? wg + (size_t)end : run_out;
            const V v = VB ? (vin ? vin[g] : (V)g) : (V)0;
            put_slot<OUT, VB>(t.cls, t.desc, out, vout, (unsigned long long)(n - 1 - e + (g - s)),
                              rdx_enc(s_keys[j], t.cls, t.desc), v);
        }
    }
}

/* Tile `tile` of the portion reversed, in the output mode write_mode would pick for the
 * pass (the only one, first and last). */
template <int KB, int VB, int MED>
static __device__ __forceinline__ void reverse_tile_any(const rdx_pass_args &a, uint32_t info, uint32_t tile,
                                                        unsigned char *smem)
{
    typedef rdx_os_layout<KB, VB, MED> L;
    typedef typename rdx_uint<KB>::t K;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    if constexpr (KB == 8 && VB == 0) { /* packed pairs are reversed apart, as pairs */
        static_assert(rdx_os_layout<4, 4, MED>::TILE == L::TILE && rdx_os_layout<4, 4, MED>::BYTES <= L::BYTES,
                      "packed pairs take the pairs' tile");
        if (a.packed) {
            reverse_tile_any<4, 4, MED>(a, info, tile, smem);
            return;
        }
    }
    const size_t tile_begin = (size_t)tile * L::TILE, left = a.portion_count - tile_begin;
    const bool from_b = (info & RDX_PASS_FROM_B) != 0;
    const rdx_rev_tile t = {a.keys_src, a.iota ? nullptr : a.vals_src, from_b ? a.keys_a : a.keys_b,
                            from_b ? a.vals_a : a.vals_b, a.n, a.portion_begin + tile_begin,
                            left < (size_t)L::TILE ? (uint32_t)left : (uint32_t)L::TILE,
                            a.cls, a.desc, a.shift, a.end_bit};
    if (a.keys_scratch && VB == 4 && a.widen)
        reverse_tile<OUT_WIDE, VB, L, K, V>(t, smem);
    else if (a.keys_scratch && VB && a.narrow)
        reverse_tile<OUT_VALUES, VB, L, K, V>(t, smem);
    else if (!a.keys_scratch)
        reverse_tile<OUT_DECODED, VB, L, K, V>(t, smem);
    else
        reverse_tile<OUT_KEYS, VB, L, K, V>(t, smem);
}

/* Whether a launch after this one looks back in status_next (rdx_pass_args.passes). Every
 * pass word is final before the first pass starts (the scan, or the MSD route's levels,
 * wrote them). Where none does, the launch leaves the buffer as it is: behind the MSD route
 * that it took, eight passes that each returned at once still cleared a row a tile (13 MB
 * at 2^26 u64/u64 pairs: 6.1-6.6 us each on an H100, round 50), and the last pass of any
 * sort cleared a buffer for nobody. */
static __device__ __forceinline__ bool rdx_status_wanted_later(const rdx_pass_args &a, uint32_t info)
{
    if (a.passes == 0)
        return true;
    if (a.bases_next && (info & RDX_PASS_ACTIVE))
        return true;
    for (int q = a.pass + 1; q < a.passes; ++q)
        if (a.pass_info[q] & RDX_PASS_ACTIVE)
            return true;
    return false;
}

/* NP: keys in NumPy's order (rdx_pass_args.numpy; 4- and 8-byte keys, not SEG). */
template <int KB, int VB, int MED, int SEG, int NP>
__global__ void __launch_bounds__(RDX_OS_SHAPE_THREADS(KB, VB, MED), RDX_OS_SHAPE_MIN_BLOCKS(KB, VB, MED))
    rdx_onesweep_kernel(const rdx_pass_args a)
{
    typedef rdx_os_layout<KB, VB, MED> L;
    extern __shared__ __align__(16) unsigned char smem[];
    uint32_t *s_misc = (uint32_t *)(smem + L::MISC);
    rdx_chain_enter();
    /* Floats in NumPy's order launched as twins: the kernel of canonical digits runs where
     * the histogram found a key special there, its plain twin where it found none; the
     * other returns before it touches anything. */
    if (!SEG && a.np_special && (*a.np_special != 0u) != (NP != 0))
        return;

    /* The next launch's status words must be zero; this launch clears them (past
     * rdx_chain_enter it is the only one running, and the previous user of that buffer has
     * finished), where a later launch will use them. The segmented passes use as many rows
     * as they have tiles. */
    const uint32_t tiles = SEG ? *a.seg.tile_count : a.tiles;
    const uint32_t info = a.pass_info[a.pass];
    if (SEG || rdx_status_wanted_later(a, info))
        rdx_clear_status_rows<L::THREADS>(a.status_next, SEG && tiles < a.zero_rows ? (size_t)tiles : a.zero_rows);

    if (!(info & RDX_PASS_ACTIVE))
        return; /* every key has the same digit: nothing moves */
    /* The digit counters start zero (before the first tile's barrier); each tile leaves its
     * warps' rows zero (pass_tile counts without zeroing them first). */
    rdx_zero_warp_row((uint32_t *)(smem + L::WCNT));

    /* A block takes the next tile number (so it only waits on tiles that have started),
     * until they run out: the grid need not match the tiles (the segmented passes count
     * theirs on the device). */
    for (;;) {
        if (threadIdx.x == 0)
            s_misc[0] = atomicAdd(a.tile_counter, 1u);
        __syncthreads();
        const uint32_t tile = s_misc[0];
        if (tile >= tiles)
            return;
        if (!SEG && !NP && (info & RDX_PASS_REVERSE)) {
            reverse_tile_any<KB, VB, MED>(a, info, tile, smem);
        } else {
            pass_tile<KB, VB, MED, SEG, NP>(a, info, tile, smem);
            rdx_zero_warp_row((uint32_t *)(smem + L::WCNT));
        }
        __syncthreads(); /* the shared memory is the next tile's */
    }
}

template <int KB, int VB, int MED, int SEG, int NP = 0>
static cudaError_t launch_pass(const rdx_pass_args *a, unsigned grid, cudaStream_t s)
{
    typedef rdx_os_layout<KB, VB, MED> L;
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, grid, L::THREADS, L::BYTES, s),
                              rdx_onesweep_kernel<KB, VB, MED, SEG, NP>, *a);
}

/* Blocks of the pass kernel resident per multiprocessor, per shape (large, medium, mid,
 * segmented: SHAPE_SEG) and (key, value) bytes as RDX_FOR_EACH_KV lists them; set by
 * rdx_onesweep_init (the same on every device of one architecture). */
enum { SHAPE_SEG = 3 };
static int per_sm_of[4][12];

template <int KB, int VB, int MED, int SEG, int NP = 0>
static cudaError_t init_pass(int *per_sm)
{
    typedef rdx_os_layout<KB, VB, MED> L;
    const void *f = (const void *)rdx_onesweep_kernel<KB, VB, MED, SEG, NP>;
    cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L::BYTES);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, f, L::THREADS, L::BYTES);
    return e;
}

/* At most `waves` times the blocks of this shape that fit on sms multiprocessors. */
static unsigned pass_grid(size_t tiles, int shape, int kb, int vb, int sms, int waves)
{
    /* RDX_FOR_EACH_KV's order: key bytes 1, 2, 4, 8, each with value bytes 0, 4, 8. */
    const int per_sm = per_sm_of[shape][(kb == 1 ? 0 : kb == 2 ? 1 : kb == 4 ? 2 : 3) * 3 + (vb == 0 ? 0 : vb == 4 ? 1 : 2)];
    return rdx_resident_grid(tiles, sms, per_sm, waves);
}

/* The size class whose kernel serves (KB, VB) at class MED, or in the segmented passes
 * (SEG: RDX_OS_SEG_SHAPE, whatever MED): the mid shape is stamped out only for the (key,
 * value) bytes that have one (RDX_OS_HAS_MID), the others take their large kernel there. */
template <int KB, int VB, int MED, int SEG> struct stamped {
    static constexpr int WANT = SEG ? RDX_OS_SEG_SHAPE(KB, VB) : MED;
    static constexpr int SHAPE = WANT == RDX_OS_MID && !RDX_OS_HAS_MID(KB, VB) ? RDX_OS_LARGE : WANT;
};

template <int MED, int SEG>
static cudaError_t launch_shape(int kb, int vb, const rdx_pass_args *a, unsigned grid, cudaStream_t s)
{
#define RDX_PASS_CASE(KB, VB) \
    case KB * 16 + VB: return launch_pass<KB, VB, stamped<KB, VB, MED, SEG>::SHAPE, SEG>(a, grid, s);
#define RDX_NP_PASS_CASE(KB, VB) \
    case KB * 16 + VB: return launch_pass<KB, VB, stamped<KB, VB, MED, 0>::SHAPE, 0, 1>(a, grid, s);
    if (!SEG && a->numpy) {
        if (a->np_special) { /* its plain twin first (the kernel's gate: one of the two runs) */
            rdx_pass_args plain = *a;
            plain.numpy = 0;
            const cudaError_t e = launch_shape<MED, SEG>(kb, vb, &plain, grid, s);
            if (e != cudaSuccess)
                return e;
        }
        switch (kb * 16 + vb) {
            RDX_FOR_EACH_NP_KV(RDX_NP_PASS_CASE)
        default: return cudaErrorInvalidValue;
        }
    }
    switch (kb * 16 + vb) {
        RDX_FOR_EACH_KV(RDX_PASS_CASE)
    default: return cudaErrorInvalidValue;
    }
}

/* The kernels of one shape ready on the current device, and their blocks per SM noted (the
 * kernels in NumPy's order take their plain twins' grid). */
template <int MED, int SEG>
static cudaError_t init_shape(void)
{
    int *per_sm = per_sm_of[SEG ? SHAPE_SEG : MED], np_per_sm = 0;
#define RDX_PASS_INIT(KB, VB) init_pass<KB, VB, stamped<KB, VB, MED, SEG>::SHAPE, SEG>(per_sm++),
#define RDX_NP_PASS_INIT(KB, VB) init_pass<KB, VB, stamped<KB, VB, MED, 0>::SHAPE, 0, 1>(&np_per_sm),
    const cudaError_t r[12] = {RDX_FOR_EACH_KV(RDX_PASS_INIT)};
    for (int i = 0; i < 12; ++i)
        if (r[i] != cudaSuccess)
            return r[i];
    if (!SEG) {
        const cudaError_t q[6] = {RDX_FOR_EACH_NP_KV(RDX_NP_PASS_INIT)};
        for (int i = 0; i < 6; ++i)
            if (q[i] != cudaSuccess)
                return q[i];
    }
    return cudaSuccess;
}

cudaError_t rdx_launch_pass(int kb, int vb, int medium, const rdx_pass_args *a, int sms, cudaStream_t s)
{
    rdx_pass_args b = *a;
    const size_t tile = rdx_os_tile(kb, vb, medium), tiles = (a->portion_count + tile - 1) / tile;
    b.tiles = (uint32_t)tiles;
    const unsigned grid = pass_grid(tiles, medium, kb, vb, sms, RDX_OS_RESIDENT_WAVES);
    switch (medium) {
    case RDX_OS_MEDIUM: return launch_shape<RDX_OS_MEDIUM, 0>(kb, vb, &b, grid, s);
    case RDX_OS_MID: return launch_shape<RDX_OS_MID, 0>(kb, vb, &b, grid, s);
    default: return launch_shape<RDX_OS_LARGE, 0>(kb, vb, &b, grid, s);
    }
}

cudaError_t rdx_launch_seg_pass(int kb, int vb, const rdx_pass_args *a, size_t max_tiles, int sms, cudaStream_t s)
{
    return launch_shape<RDX_OS_LARGE, 1>(kb, vb, a, pass_grid(max_tiles, SHAPE_SEG, kb, vb, sms, 1), s);
}

size_t rdx_os_tile(int kb, int vb, int medium)
{
    return (size_t)RDX_OS_SHAPE_THREADS(kb, vb, medium) * (size_t)RDX_OS_SHAPE_ITEMS(kb, vb, medium);
}

cudaError_t rdx_onesweep_init(void)
{
    cudaError_t e = init_shape<RDX_OS_LARGE, 0>();
    if (e == cudaSuccess)
        e = init_shape<RDX_OS_MEDIUM, 0>();
    if (e == cudaSuccess)
        e = init_shape<RDX_OS_MID, 0>();
    return e != cudaSuccess ? e : init_shape<RDX_OS_LARGE, 1>();
}
