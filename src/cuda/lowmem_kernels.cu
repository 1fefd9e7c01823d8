/* The in-place partition of the low-memory route (lowmem.h: the steps and why they are
 * safe in place). */
#include "common.cuh"
#include "kernels.h"
#include "lowmem.h"
#include "rank.cuh"

#define LM_B RDX_LM_BLOCK
#define LM_BINS (1u << RDX_LM_DIGIT_BITS)

/* Flags of a slot during the permutation (tag, after the layout no longer needs it). */
#define LM_MOVING 1u  /* holds a block that moves */
#define LM_CYCMIN 2u  /* the least slot of a cycle: the cycle is cut before it */
#define LM_HASPRED 4u /* another moving block comes here (after the cut) */

/* The mapped key a record's digits come from: its own key, or for an argsort the key its
 * index names; under RDX_NUMPY_ORDER its canonical code (equal for every NaN, and for the
 * two zeros). */
template <int KB>
static __device__ __forceinline__ typename rdx_uint<KB>::t lm_sort_key(const rdx_lm_level &a, size_t i)
{
    typedef typename rdx_uint<KB>::t K;
    K x;
    if (a.dkeys) {
        const size_t idx = a.vw == 4 ? (size_t)((const uint32_t *)a.vals)[i]
                                     : (size_t)((const unsigned long long *)a.vals)[i];
        x = ((const K *)a.dkeys)[idx];
    } else {
        x = ((const K *)a.keys)[i];
    }
    const K k = rdx_enc(x, a.cls, a.desc);
    return KB >= 2 && a.numpy ? (K)rdx_numpy_canon((uint64_t)k, KB, a.inf, a.desc) : k;
}

/* ---- 0. the bucket counts of the range by one digit ---- */

/* Counts digit [lo, hi) of the sorted keys (lo = max(hi - W, begin_bit)) into hist, and
 * ORs and ANDs the keys into hist[RDX_LM_HIST_OR], hist[RDX_LM_HIST_AND]: when this digit
 * is the same in every key, the host finds the first one that is not from those and counts
 * it in a second read. (Counting every digit in one read cost 8 shared-memory atomics per
 * u32 key: 1.38 ms at 2^28, round 15 device call 7.) */
template <int KB>
__global__ void __launch_bounds__(RDX_COPY_THREADS) lm_hist_kernel(const rdx_lm_level a, int hi)
{
    typedef typename rdx_uint<KB>::t K;
    enum { BINS = 1 << RDX_LM_DIGIT_BITS };
    __shared__ uint32_t cnt[BINS];
    __shared__ unsigned long long s_or, s_and;
    for (uint32_t d = threadIdx.x; d < BINS; d += blockDim.x)
        cnt[d] = 0;
    if (threadIdx.x == 0) {
        s_or = 0ull;
        s_and = ~0ull;
    }
    __syncthreads();
    const int lo = hi - RDX_LM_DIGIT_BITS > a.begin_bit ? hi - RDX_LM_DIGIT_BITS : a.begin_bit;
    const uint32_t mask = (1u << (hi - lo)) - 1u;
    unsigned long long any = 0ull, all = ~0ull;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.len; i += stride) {
        const K k = lm_sort_key<KB>(a, i);
        atomicAdd(&cnt[rdx_digit(k, lo, mask)], 1u);
        any |= (unsigned long long)k;
        all &= (unsigned long long)k;
    }
    any = rdx_warp_or64(any); /* 64-bit shared atomics are CAS loops: one a warp */
    all = rdx_warp_and64(all);
    if (rdx_lane() == 0) {
        atomicOr(&s_or, any);
        atomicAnd(&s_and, all);
    }
    __syncthreads();
    for (uint32_t d = threadIdx.x; d < BINS; d += blockDim.x)
        if (cnt[d])
            atomicAdd(&a.hist[d], (unsigned long long)cnt[d]);
    if (threadIdx.x == 0) {
        atomicOr(&a.hist[RDX_LM_HIST_OR], s_or);
        atomicAnd(&a.hist[RDX_LM_HIST_AND], s_and);
    }
}

/* ---- 1. classify ---- */

/* PARTIALS: the stripe's partial blocks live in shared memory ([16][RDX_LM_BLOCK] keys,
 * then as many value words), and go to the partial buffers in scratch once, at the end. */
template <int KB, int VB, bool PARTIALS> struct lm_classify_smem {
    typedef rdx_rank_layout<KB, VB, RDX_LM_THREADS, RDX_LM_THREADS * RDX_LM_ITEMS> L;
    static constexpr size_t FILL = L::END;                            /* [256] partial records */
    static constexpr size_t NBLK = FILL + 4 * RDX_CUDA_MAX_BINS;      /* [256] blocks so far */
    static constexpr size_t NB = NBLK + 4 * RDX_CUDA_MAX_BINS;        /* [256] this tile's blocks */
    static constexpr size_t OB = NB + 4 * RDX_CUDA_MAX_BINS;          /* [256] their first */
    static constexpr size_t MISC = OB + 4 * RDX_CUDA_MAX_BINS;        /* scan words, written, total */
    static constexpr size_t LIM = MISC + 4 * 64;                      /* [16] per bucket, this tile: */
    static constexpr size_t BPART = LIM + 4 * LM_BINS;                /* see lm_classify_kernel */
    static constexpr size_t BBLK = BPART + 4 * LM_BINS;
    static constexpr size_t PK = BBLK + 8 * LM_BINS;                  /* partial keys */
    static constexpr size_t PARTIAL_RECORDS = PARTIALS ? (size_t)LM_BINS * LM_B : 0;
    static constexpr size_t PV = PK + PARTIAL_RECORDS * KB;           /* partial values */
    static constexpr size_t BYTES = (PV + PARTIAL_RECORDS * VB + 15) / 16 * 16;
};

/* W: the bytes of a value word (0: no values). Without GEN a record's value is one word
 * (W = 0, 4 or 8) and rides in registers through the ranking; the partial blocks are kept
 * in shared memory, and the next tile is loaded while this one is written out (its records
 * lie past every slot this tile writes). With GEN the ranking carries each record's
 * position in the tile instead, its digit comes from lm_sort_key, and the tile's records
 * (key of a.rkb bytes, a.vm value words) are staged in the stripe's part of stk/stv, from
 * where they are written out in ranked order; the partial blocks are in scratch. */
template <int KB, int W, bool GEN>
__global__ void __launch_bounds__(RDX_LM_THREADS) lm_classify_kernel(const rdx_lm_level a)
{
    typedef typename rdx_uint<KB>::t K;
    enum { RVB = GEN ? 4 : W }; /* what the ranking carries with each key */
    typedef typename rdx_uint<RVB ? RVB : 4>::t V;
    typedef typename rdx_uint<W ? W : 4>::t Wd;
    enum { T = RDX_LM_THREADS, I = RDX_LM_ITEMS, TILE = T * I, WARPS = T / 32 };
    typedef lm_classify_smem<KB, RVB, !GEN> S;
    extern __shared__ __align__(16) unsigned char smem[];
    K *s_keys = (K *)(smem + S::L::KEYS);
    V *s_vals = (V *)(smem + S::L::VALS);
    uint32_t *s_wcnt = (uint32_t *)(smem + S::L::WCNT), *s_start = (uint32_t *)(smem + S::L::START);
    uint32_t *s_scan = (uint32_t *)(smem + S::L::SCAN);
    uint32_t *s_fill = (uint32_t *)(smem + S::FILL), *s_nblk = (uint32_t *)(smem + S::NBLK);
    uint32_t *s_nb = (uint32_t *)(smem + S::NB), *s_ob = (uint32_t *)(smem + S::OB);
    uint32_t *s_misc = (uint32_t *)(smem + S::MISC); /* [0, 32) scan, 32 written, 33 total */
    /* Where a tile's record j of bucket d goes: j < s_lim[d], into the blocks at
     * s_bblk[d] + j; else into the partial block at s_bpart[d] + j (offsets that may wrap
     * below zero before j is added). */
    int *s_lim = (int *)(smem + S::LIM);
    uint32_t *s_bpart = (uint32_t *)(smem + S::BPART);
    size_t *s_bblk = (size_t *)(smem + S::BBLK);

    const uint32_t tid = threadIdx.x, lane = rdx_lane(), warp = tid >> 5;
    const uint32_t s = blockIdx.x, bins = 1u << a.bits, mask = bins - 1u;
    const size_t lo = (size_t)s * a.stripe_len;
    const size_t hi = lo + a.stripe_len < a.len ? lo + a.stripe_len : a.len;
    const bool rk = !GEN || a.rkb != 0; /* records hold keys */
    const uint32_t vm = GEN ? (uint32_t)a.vm : 1u;
    K *keys = (K *)a.keys;
    Wd *vals = (Wd *)a.vals;
    K *const gpk = (K *)a.pkeys + (size_t)s * bins * LM_B;
    Wd *const gpv = W ? (Wd *)a.pvals + (size_t)s * bins * LM_B * vm : NULL;
    K *const s_pk = (K *)(smem + S::PK); /* without GEN */
    Wd *const s_pv = (Wd *)(smem + S::PV);
    K *stk = GEN ? (K *)a.stk + (size_t)s * TILE : NULL;
    Wd *stv = GEN && W ? (Wd *)a.stv + (size_t)s * TILE * vm : NULL;
    const uint32_t slot0 = (uint32_t)(a.stripe_len / LM_B) * s;

    if (tid < RDX_CUDA_MAX_BINS)
        s_fill[tid] = s_nblk[tid] = 0;
    if (tid == 0)
        s_misc[32] = 0;
    __syncthreads();
    const uint32_t first = warp * 32u * I + lane;
    K key[I];
    V val[I];
    if (!GEN && lo < hi)
        rdx_load_tile<RVB>(keys + lo, RVB ? (const V *)(vals + lo) : (const V *)NULL, 0u,
                           hi - lo < (size_t)TILE ? (uint32_t)(hi - lo) : (uint32_t)TILE, first, a.cls, a.desc, key,
                           val);
    for (size_t t0 = lo; t0 < hi; t0 += TILE) {
        const uint32_t count = hi - t0 < (size_t)TILE ? (uint32_t)(hi - t0) : (uint32_t)TILE;
        if (GEN) {
#pragma unroll
            for (int i = 0; i < I; ++i) {
                const uint32_t pos = first + (uint32_t)i * 32u;
                key[i] = pos < count ? lm_sort_key<KB>(a, t0 + pos) : (K)0;
                val[i] = (V)pos;
            }
            /* Staged before any write of this tile (the barriers of the ranking follow). */
            if (rk)
                for (uint32_t j = tid; j < count; j += T)
                    stk[j] = keys[t0 + j];
            if (W)
                for (uint32_t j = tid; j < count * vm; j += T)
                    stv[j] = vals[t0 * vm + j];
        }
        const uint32_t total = rdx_count_tile<K, I, T>(key, count, a.shift, a.bits, s_wcnt);
        rdx_offset_tile<T>(total, a.bits, s_wcnt, s_start, s_scan);
        /* Blocks that fill up with this tile, bucket by bucket, and where they go. */
        const uint32_t nb = tid < bins ? (s_fill[tid] + total) / LM_B : 0u;
        const uint32_t ob = rdx_block_excl_scan<T>(nb, s_misc);
        if (tid < bins) {
            const uint32_t fill = s_fill[tid], start = s_start[tid], full = nb * LM_B;
            s_nb[tid] = nb;
            s_ob[tid] = ob;
            s_lim[tid] = (int)(start + full) - (int)fill;
            s_bblk[tid] = lo + (size_t)(s_misc[32] + ob) * LM_B + fill - start;
            s_bpart[tid] = tid * LM_B + fill - start - full;
        }
        if (tid == T - 1)
            s_misc[33] = ob + nb;
        rdx_rank_scatter_fixed<RDX_LM_DIGIT_BITS, RVB, K, V, I, T>(key, val, count, a.shift, a.bits, s_wcnt, s_keys,
                                                                   s_vals);
        __syncthreads();
        if (!GEN && t0 + TILE < hi) { /* the next tile, in flight while this one goes out */
            const size_t t1 = t0 + TILE;
            rdx_load_tile<RVB>(keys + t1, RVB ? (const V *)(vals + t1) : (const V *)NULL, 0u,
                               hi - t1 < (size_t)TILE ? (uint32_t)(hi - t1) : (uint32_t)TILE, first, a.cls, a.desc,
                               key, val);
        }
        const uint32_t w = s_misc[32];
        /* The partial blocks of the buckets that fill a block open those blocks. */
        for (uint32_t d = warp; d < bins; d += WARPS) {
            const uint32_t nbd = s_nb[d];
            if (nbd == 0)
                continue;
            const size_t out = lo + (size_t)(w + s_ob[d]) * LM_B;
            if (rk)
                for (uint32_t j = lane; j < s_fill[d]; j += 32)
                    keys[out + j] = GEN ? gpk[d * LM_B + j] : s_pk[d * LM_B + j];
            if (W)
                for (uint32_t j = lane; j < s_fill[d] * vm; j += 32)
                    vals[out * vm + j] = GEN ? gpv[d * LM_B * vm + j] : s_pv[d * LM_B + j];
            for (uint32_t i = lane; i < nbd; i += 32)
                a.tag[slot0 + w + s_ob[d] + i] = ((s_nblk[d] + i) << 8) | d;
        }
        __syncthreads();
        /* The tile's records: into those blocks, or into the partial blocks. */
        for (uint32_t j = tid; j < count; j += T) {
            const K k = s_keys[j];
            const uint32_t d = rdx_digit(k, a.shift, mask);
            const bool in_block = (int)j < s_lim[d];
            if (GEN) {
                const size_t o = in_block ? s_bblk[d] + j : (size_t)(s_bpart[d] + j);
                K *kd = in_block ? keys : gpk;
                Wd *vd = in_block ? vals : gpv;
                const uint32_t src = (uint32_t)s_vals[j];
                if (rk)
                    kd[o] = stk[src];
                for (uint32_t m = 0; W && m < vm; ++m)
                    vd[o * vm + m] = stv[(size_t)src * vm + m];
            } else if (in_block) { /* global and shared stores apart, not through one pointer */
                const size_t o = s_bblk[d] + j;
                keys[o] = rdx_dec(k, a.cls, a.desc);
                if (W)
                    vals[o] = (Wd)s_vals[j];
            } else {
                const uint32_t o = s_bpart[d] + j;
                s_pk[o] = rdx_dec(k, a.cls, a.desc);
                if (W)
                    s_pv[o] = (Wd)s_vals[j];
            }
        }
        __syncthreads();
        if (tid < bins) {
            s_fill[tid] = (s_fill[tid] + total) % LM_B;
            s_nblk[tid] += s_nb[tid];
        }
        if (tid == 0)
            s_misc[32] = w + s_misc[33];
        __syncthreads();
    }
    if (!GEN) /* the partial blocks to scratch, where the place step reads them */
        for (uint32_t d = warp; d < bins; d += WARPS) {
            for (uint32_t j = lane; j < s_fill[d]; j += 32)
                gpk[d * LM_B + j] = s_pk[d * LM_B + j];
            if (W)
                for (uint32_t j = lane; j < s_fill[d]; j += 32)
                    gpv[d * LM_B + j] = s_pv[d * LM_B + j];
        }
    if (tid < RDX_CUDA_MAX_BINS) {
        a.nf[(size_t)s * RDX_CUDA_MAX_BINS + tid] = tid < bins ? s_nblk[tid] : 0u;
        a.pc[(size_t)s * RDX_CUDA_MAX_BINS + tid] = tid < bins ? s_fill[tid] : 0u;
    }
    if (tid == 0)
        a.wcount[s] = s_misc[32];
}

/* ---- 2. layout ---- */

/* One block, a warp per bucket, its lanes over the stripes: the pieces' packed and final
 * positions. (A thread per bucket, walking the stripes alone, took 153 us at 528 stripes;
 * H200, round 22.) */
__global__ void __launch_bounds__(32 * LM_BINS) lm_layout_kernel(const rdx_lm_level a)
{
    __shared__ unsigned long long s_rec[LM_BINS], s_blk[LM_BINS];
    const uint32_t lane = rdx_lane(), b = threadIdx.x >> 5, bins = 1u << a.bits, P = a.stripes;
    unsigned long long rec = 0, blk = 0;
    if (b < bins)
        for (uint32_t s = lane; s < P; s += 32) {
            const uint32_t f = a.nf[(size_t)s * RDX_CUDA_MAX_BINS + b];
            blk += f;
            rec += (unsigned long long)f * LM_B + a.pc[(size_t)s * RDX_CUDA_MAX_BINS + b];
        }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        blk += __shfl_xor_sync(RDX_FULL_WARP, blk, o);
        rec += __shfl_xor_sync(RDX_FULL_WARP, rec, o);
    }
    if (lane == 0) {
        s_rec[b] = rec;
        s_blk[b] = blk;
    }
    __syncthreads();
    if (threadIdx.x == 0) { /* exclusive scans over the buckets */
        unsigned long long r = 0, k = 0;
        for (uint32_t d = 0; d < bins; ++d) {
            const unsigned long long r1 = s_rec[d], k1 = s_blk[d];
            s_rec[d] = r;
            s_blk[d] = k;
            r += r1;
            k += k1;
        }
        a.dst[(size_t)bins * P] = r;
        a.bpack[bins] = k * LM_B;
    }
    __syncthreads();
    if (b < bins) {
        unsigned long long d = s_blk[b] * LM_B, t = s_rec[b];
        if (lane == 0)
            a.bpack[b] = d;
        for (uint32_t s0 = 0; s0 < P; s0 += 32) {
            const uint32_t s = s0 + lane;
            const unsigned long long f = s < P ? (unsigned long long)a.nf[(size_t)s * RDX_CUDA_MAX_BINS + b] * LM_B : 0;
            const unsigned long long w = s < P ? f + a.pc[(size_t)s * RDX_CUDA_MAX_BINS + b] : 0;
            const unsigned long long fi = rdx_warp_incl_scan(f, lane), wi = rdx_warp_incl_scan(w, lane);
            if (s < P) {
                a.dsrc[(size_t)b * P + s] = d + fi - f;
                a.dst[(size_t)b * P + s] = t + wi - w;
            }
            d += __shfl_sync(RDX_FULL_WARP, fi, 31);
            t += __shfl_sync(RDX_FULL_WARP, wi, 31);
        }
    }
}

/* Every slot's destination (RDX_LM_NONE where it holds no block). */
__global__ void __launch_bounds__(RDX_COPY_THREADS) lm_dest_kernel(const rdx_lm_level a)
{
    const uint32_t per = (uint32_t)(a.stripe_len / LM_B);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.slots; i += gridDim.x * blockDim.x) {
        const uint32_t s = i / per, j = i - s * per;
        uint32_t p = RDX_LM_NONE;
        if (j < a.wcount[s]) {
            const uint32_t tg = a.tag[i];
            p = (uint32_t)(a.dsrc[(size_t)(tg & 255u) * a.stripes + s] / LM_B) + (tg >> 8);
        }
        a.pi[i] = p;
    }
}

/* ---- 3. permute ---- */

static __device__ __forceinline__ bool lm_moving(const uint32_t *pi, uint32_t i)
{
    const uint32_t p = pi[i];
    return p != RDX_LM_NONE && p != i;
}

/* The block after i on its path or cycle (RDX_LM_NONE: i's destination is free). */
static __device__ __forceinline__ uint32_t lm_succ(const uint32_t *pi, uint32_t i)
{
    const uint32_t p = pi[i];
    return lm_moving(pi, p) ? p : RDX_LM_NONE;
}

#define LM_FOR_SLOTS(i)                                                                                       \
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.slots; i += gridDim.x * blockDim.x)

/* Phase 1 starts: jump to the successor, label = own slot. */
__global__ void lm_min_init_kernel(const rdx_lm_level a)
{
    LM_FOR_SLOTS(i)
    {
        const uint32_t n = lm_moving(a.pi, i) ? lm_succ(a.pi, i) : RDX_LM_NONE;
        a.jump[0][i] = n == RDX_LM_NONE ? i : n;
        a.val[0][i] = i;
        a.tag[i] = 0;
    }
}

/* One round of pointer jumping from buffer `from`: min (labels) or sum (distances). */
template <bool MIN> __global__ void lm_jump_kernel(const rdx_lm_level a, int from)
{
    const uint32_t *j0 = a.jump[from], *v0 = a.val[from];
    uint32_t *j1 = a.jump[from ^ 1], *v1 = a.val[from ^ 1];
    LM_FOR_SLOTS(i)
    {
        const uint32_t j = j0[i], vi = v0[i], vj = v0[j];
        v1[i] = MIN ? (vj < vi ? vj : vi) : vi + vj;
        j1[i] = j0[j];
    }
}

/* Phase 1 ended in buffer `from`: cut each cycle before its least slot, set the flags, and
 * start phase 2 (distance to the path's end) in the other buffer. */
__global__ void lm_cut_kernel(const rdx_lm_level a, int from)
{
    const uint32_t *jf = a.jump[from], *lab = a.val[from];
    uint32_t *j2 = a.jump[from ^ 1], *d2 = a.val[from ^ 1];
    LM_FOR_SLOTS(i)
    {
        uint32_t nx = RDX_LM_NONE;
        if (lm_moving(a.pi, i)) {
            const uint32_t succ = lm_succ(a.pi, i);
            /* On a path every jump ends at the path's last block, whose successor is none. */
            const bool cycle = lm_succ(a.pi, jf[i]) != RDX_LM_NONE;
            nx = cycle && succ == lab[i] ? RDX_LM_NONE : succ;
            atomicOr(&a.tag[i], LM_MOVING | (cycle && lab[i] == i ? LM_CYCMIN : 0u));
            if (nx != RDX_LM_NONE)
                atomicOr(&a.tag[nx], LM_HASPRED);
        }
        a.nx[i] = nx;
        j2[i] = nx == RDX_LM_NONE ? i : nx;
        d2[i] = nx == RDX_LM_NONE ? 0u : 1u;
    }
}

/* Phase 2 ended in buffer `from`: list the walks' first blocks, and number those that must
 * be saved (another walk overwrites their slot). */
__global__ void lm_heads_kernel(const rdx_lm_level a, int from)
{
    const uint32_t *dist = a.val[from];
    LM_FOR_SLOTS(i)
    {
        const uint32_t tg = a.tag[i];
        if (!(tg & LM_MOVING))
            continue;
        const uint32_t d = dist[i];
        const bool pred = (tg & LM_HASPRED) != 0;
        if (d % a.seg != a.seg - 1 && pred)
            continue;
        /* With a predecessor, that is the end of the walk before this one; a cut cycle's
         * last block is in another walk when the cycle is longer than one walk. */
        const bool save = pred || ((tg & LM_CYCMIN) && d >= a.seg);
        a.saveidx[i] = save ? atomicAdd(&a.counters[1], 1u) : RDX_LM_NONE;
        a.heads[atomicAdd(&a.counters[0], 1u)] = i;
    }
}

/* The move kernels take a record as a key of RKB bytes (0: none, an argsort's records)
 * and a.vm value words of W bytes (W 0: none); a block of RDX_LM_BLOCK records is
 * RDX_LM_BLOCK keys and RDX_LM_BLOCK * a.vm value words. */
template <int B> struct lm_word { typedef typename rdx_uint<B>::t t; };
template <> struct lm_word<0> { typedef uint32_t t; };

template <int RKB, int W>
__global__ void __launch_bounds__(RDX_LM_MOVE_THREADS) lm_save_kernel(const rdx_lm_level a)
{
    typedef typename lm_word<RKB>::t K;
    typedef typename lm_word<W>::t V;
    const size_t vwords = (size_t)LM_B * a.vm; /* value words per block */
    const uint32_t heads = a.counters[0];
    for (uint32_t h = blockIdx.x; h < heads; h += gridDim.x) {
        const uint32_t i = a.heads[h], at = a.saveidx[i];
        if (at == RDX_LM_NONE)
            continue;
        if (RKB)
            for (uint32_t r = threadIdx.x; r < LM_B; r += RDX_LM_MOVE_THREADS)
                ((K *)a.skeys)[(size_t)at * LM_B + r] = ((const K *)a.keys)[(size_t)i * LM_B + r];
        if (W)
            for (size_t r = threadIdx.x; r < vwords; r += RDX_LM_MOVE_THREADS)
                ((V *)a.svals)[(size_t)at * vwords + r] = ((const V *)a.vals)[(size_t)i * vwords + r];
    }
}

/* One column of a walk's records, keys (MK) and values (MV) together: the key words of
 * each block (RDX_LM_BLOCK of them in ka) and value words [voff, voff + RDX_LM_BLOCK) of
 * each block of vbw words in va (the saved copies in ks, vs), moved along s_walk[0 .. t + 1]
 * as lm_walk_kernel says. Each thread moves the same words of every block, and reads each
 * block RDX_LM_WALK_AHEAD moves before it writes it out: block s_walk[j] is read by move
 * j + AHEAD (or before the first move) and overwritten by move j - 1, so every read of a
 * slot still comes before the write into it in the thread's own order, and AHEAD reads are
 * in flight at once (one at a time, each move waited for its read: 0.85 ms of a 2^28-key
 * u32 sort, H200, round 22). */
template <typename K, typename V, bool MK, bool MV>
static __device__ __forceinline__ void lm_walk_move(K *ka, const K *ks, V *va, const V *vs, size_t vbw, size_t voff,
                                                    uint32_t at, uint32_t i, uint32_t t, const uint32_t *s_walk)
{
    enum { PER = LM_B / RDX_LM_MOVE_THREADS, AHEAD = RDX_LM_WALK_AHEAD };
    K hk[PER], bk[AHEAD][PER];
    V hv[PER], bv[AHEAD][PER];
    const bool saved = at != RDX_LM_NONE;
#pragma unroll
    for (int r = 0; r < PER; ++r) {
        const size_t o = (size_t)(r * RDX_LM_MOVE_THREADS + threadIdx.x);
        if (MK)
            hk[r] = saved ? ks[(size_t)at * LM_B + o] : ka[(size_t)i * LM_B + o];
        if (MV)
            hv[r] = saved ? vs[(size_t)at * vbw + voff + o] : va[(size_t)i * vbw + voff + o];
    }
#pragma unroll
    for (int q = 0; q < AHEAD; ++q) {
        const int j = (int)t - q;
        if (j >= 1) {
            const size_t x = s_walk[j];
#pragma unroll
            for (int r = 0; r < PER; ++r) {
                const size_t o = (size_t)(r * RDX_LM_MOVE_THREADS + threadIdx.x);
                if (MK)
                    bk[q][r] = ka[x * LM_B + o];
                if (MV)
                    bv[q][r] = va[x * vbw + voff + o];
            }
        }
    }
    for (int j0 = (int)t; j0 >= 1; j0 -= AHEAD) {
#pragma unroll
        for (int q = 0; q < AHEAD; ++q) {
            const int j = j0 - q;
            if (j < 1)
                break;
            const size_t y = s_walk[j + 1], x = j > AHEAD ? s_walk[j - AHEAD] : 0;
#pragma unroll
            for (int r = 0; r < PER; ++r) {
                const size_t o = (size_t)(r * RDX_LM_MOVE_THREADS + threadIdx.x);
                if (MK)
                    ka[y * LM_B + o] = bk[q][r];
                if (MV)
                    va[y * vbw + voff + o] = bv[q][r];
                if (j > AHEAD) {
                    if (MK)
                        bk[q][r] = ka[x * LM_B + o];
                    if (MV)
                        bv[q][r] = va[x * vbw + voff + o];
                }
            }
        }
    }
    const size_t y = s_walk[1];
#pragma unroll
    for (int r = 0; r < PER; ++r) {
        const size_t o = (size_t)(r * RDX_LM_MOVE_THREADS + threadIdx.x);
        if (MK)
            ka[y * LM_B + o] = hk[r];
        if (MV)
            va[y * vbw + voff + o] = hv[r];
    }
}

/* One block per walk: the walk's slots e0 .. et (t = distance mod seg) are followed from
 * its first; e0's block is held (from its saved copy where another walk overwrites its
 * slot), then et's block moves to its destination, e(t-1)'s to et, ..., and the held one
 * to e1. Keys and the first value word move together; further value words (a.vm > 1)
 * column after column. */
template <int RKB, int W>
__global__ void __launch_bounds__(RDX_LM_MOVE_THREADS) lm_walk_kernel(const rdx_lm_level a, int from)
{
    typedef typename lm_word<RKB>::t K;
    typedef typename lm_word<W>::t V;
    extern __shared__ uint32_t s_walk[]; /* [seg + 1] */
    K *keys = (K *)a.keys;
    V *vals = (V *)a.vals;
    const K *sk = (const K *)a.skeys;
    const V *sv = (const V *)a.svals;
    const size_t vw = (size_t)LM_B * a.vm; /* value words per block */
    const uint32_t heads = a.counters[0];
    for (uint32_t h = blockIdx.x; h < heads; h += gridDim.x) {
        const uint32_t i = a.heads[h];
        const uint32_t t = a.val[from][i] % a.seg;
        if (threadIdx.x == 0) {
            uint32_t e = i;
            s_walk[0] = e;
            for (uint32_t j = 1; j <= t; ++j)
                s_walk[j] = e = a.nx[e];
            s_walk[t + 1] = a.pi[e];
        }
        __syncthreads();
        const uint32_t at = a.saveidx[i];
        lm_walk_move<K, V, RKB != 0, W != 0>(keys, sk, vals, sv, vw, 0, at, i, t, s_walk);
        for (uint32_t c = 1; W && c < (uint32_t)a.vm; ++c)
            lm_walk_move<K, V, false, true>(keys, sk, vals, sv, vw, (size_t)c * LM_B, at, i, t, s_walk);
        __syncthreads(); /* s_walk is reused */
    }
}

/* ---- 4. place ---- */

/* The piece of a final position: the last that starts at or before it (empty pieces start
 * where the next one does). Each block takes chunks of RDX_COPY_THREADS *
 * RDX_LM_GATHER_ITEMS consecutive final positions: the pieces at its two ends are searched
 * once, and a record searches only between them (most chunks lie in one piece). A search
 * per record over the whole table, 13 dependent loads at 2^28 keys, took 3.1 ms of 15.3
 * (H200, round 22). */
template <int RKB, int W>
__global__ void __launch_bounds__(RDX_COPY_THREADS) lm_gather_kernel(const rdx_lm_level a, size_t at, size_t count)
{
    typedef typename lm_word<RKB>::t K;
    typedef typename lm_word<W>::t V;
    enum { CHUNK = RDX_COPY_THREADS * RDX_LM_GATHER_ITEMS };
    __shared__ uint32_t s_ends[2];
    const uint32_t P = a.stripes, pieces = (1u << a.bits) * P;
    const size_t vm = (size_t)a.vm;
    for (size_t c0 = (size_t)blockIdx.x * CHUNK; c0 < count; c0 += (size_t)gridDim.x * CHUNK) {
        const size_t c1 = c0 + CHUNK < count ? c0 + CHUNK : count;
        if (threadIdx.x < 2)
            s_ends[threadIdx.x] = rdx_last_at_most_in(a.dst, 0u, pieces - 1u, (unsigned long long)(at + (threadIdx.x ? c1 - 1 : c0)));
        __syncthreads();
        const uint32_t p0 = s_ends[0], p1 = s_ends[1];
        for (size_t x = c0 + threadIdx.x; x < c1; x += RDX_COPY_THREADS) {
            const unsigned long long pos = at + x;
            const uint32_t pc = p0 == p1 ? p0 : rdx_last_at_most_in(a.dst, p0, p1, pos);
            const uint32_t b = pc / P, s = pc - b * P;
            const size_t cell = (size_t)s * RDX_CUDA_MAX_BINS + b, part = (size_t)s * (pieces / P) + b;
            const unsigned long long off = pos - a.dst[pc], full = (unsigned long long)a.nf[cell] * LM_B;
            const bool in_block = off < full;
            const size_t from = in_block ? (size_t)(a.dsrc[pc] + off) : (size_t)(part * LM_B + (off - full));
            const K *ks = (const K *)(in_block ? a.keys : a.pkeys);
            const V *vs = (const V *)(in_block ? a.vals : a.pvals);
            if (RKB)
                ((K *)a.skeys)[x] = ks[from];
            for (size_t m = 0; W && m < vm; ++m)
                ((V *)a.svals)[x * vm + m] = vs[from * vm + m];
        }
        __syncthreads(); /* s_ends is reused */
    }
}

/* The bucket of mover x: the last b with m.first[b] <= x (empty buckets start where the
 * next one does). */
static __device__ __forceinline__ uint32_t lm_mover_bucket(const rdx_lm_free_map &m, unsigned long long x,
                                                           uint32_t bins)
{
    uint32_t b = 0;
    for (uint32_t c = 1; c < bins; ++c)
        b = m.first[c] <= x ? c : b;
    return b;
}

/* Movers [at, at + count) into skeys: a bucket's head from its packed blocks, then its
 * partial records, stripe after stripe (stripe s's partial records of bucket b start at
 * dst - dsrc - shift[b] of piece (b, s) in the bucket's partial numbering). */
template <int KB>
__global__ void __launch_bounds__(RDX_COPY_THREADS)
    lm_free_gather_kernel(const rdx_lm_level a, const rdx_lm_free_map m, size_t at, size_t count)
{
    typedef typename rdx_uint<KB>::t K;
    const uint32_t P = a.stripes, bins = 1u << a.bits;
    const K *keys = (const K *)a.keys, *pk = (const K *)a.pkeys;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += stride) {
        const uint32_t b = lm_mover_bucket(m, at + x, bins);
        const unsigned long long j = at + x - m.first[b];
        K k;
        if (j < m.head[b]) {
            k = keys[m.pack[b] + j];
        } else {
            const unsigned long long r = j - m.head[b], sh = m.shift[b];
            const unsigned long long *dst = a.dst + (size_t)b * P, *dsrc = a.dsrc + (size_t)b * P;
            uint32_t lo = 0, hi = P - 1u; /* the last stripe whose partial records start at or before r */
            while (lo < hi) {
                const uint32_t mid = (lo + hi + 1u) >> 1;
                if (dst[mid] - dsrc[mid] - sh <= r)
                    lo = mid;
                else
                    hi = mid - 1u;
            }
            k = pk[((size_t)lo * bins + b) * LM_B + (r - (dst[lo] - dsrc[lo] - sh))];
        }
        ((K *)a.skeys)[x] = k;
    }
}

/* Movers [at, at + count) from skeys to their places. */
template <int KB>
__global__ void __launch_bounds__(RDX_COPY_THREADS)
    lm_free_scatter_kernel(const rdx_lm_level a, const rdx_lm_free_map m, size_t at, size_t count)
{
    typedef typename rdx_uint<KB>::t K;
    const uint32_t bins = 1u << a.bits;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += stride) {
        const uint32_t b = lm_mover_bucket(m, at + x, bins);
        ((K *)a.keys)[m.dest[b] + (at + x - m.first[b])] = ((const K *)a.skeys)[x];
    }
}

/* ---- an argsort's indices and key copies ---- */

__global__ void __launch_bounds__(RDX_COPY_THREADS) lm_iota_kernel(void *idx, int ib, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (ib == 4)
            ((uint32_t *)idx)[i] = (uint32_t)i;
        else
            ((unsigned long long *)idx)[i] = i;
    }
}

template <int KB>
__global__ void __launch_bounds__(RDX_COPY_THREADS)
    lm_gather_keys_kernel(void *out, const void *keys, const void *idx, int ib, size_t n, int numpy,
                          unsigned long long inf)
{
    typedef typename rdx_uint<KB>::t K;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const size_t p = ib == 4 ? (size_t)((const uint32_t *)idx)[i] : (size_t)((const unsigned long long *)idx)[i];
        const K x = ((const K *)keys)[p];
        ((K *)out)[i] = KB >= 2 && numpy ? (K)rdx_numpy_canon_pattern(x, KB, inf) : x;
    }
}

/* ---- launchers ---- */

/* The (record key bytes, value word bytes) pairs of the move kernels and of the classify
 * kernel's GEN form (the key bytes there are the sort key's), switched on kb * 16 + w. */
#define LM_FOR_EACH_KW(X)                                                                                     \
    X(1, 0) X(1, 1) X(1, 4) X(1, 8) X(2, 0) X(2, 1) X(2, 4) X(2, 8) X(4, 0) X(4, 1) X(4, 4) X(4, 8) X(8, 0) X(8, 1) \
        X(8, 4) X(8, 8)
#define LM_SWITCH(key, LIST, CALL)                                                                            \
    switch (key) {                                                                                            \
        LIST(CALL)                                                                                            \
    default: return cudaErrorInvalidValue;                                                                    \
    }
/* The move kernels also take an argsort's records: indices alone. */
#define LM_FOR_EACH_MOVE(X) LM_FOR_EACH_KW(X) X(0, 4) X(0, 8)

static unsigned lm_slot_grid(uint32_t slots, int sms)
{
    return rdx_resident_grid(((size_t)slots + RDX_COPY_THREADS - 1) / RDX_COPY_THREADS, sms, RDX_COPY_BLOCKS_PER_SM,
                             1);
}

cudaError_t rdx_lm_histogram(const rdx_lm_level *a, int hi, int sms, cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(a->hist, 0, RDX_LM_HIST_AND * sizeof *a->hist, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(a->hist + RDX_LM_HIST_AND, 0xff, sizeof *a->hist, s);
    if (e != cudaSuccess)
        return e;
    const unsigned grid = rdx_copy_grid(a->len, sms);
    switch (a->kb) {
    case 1: lm_hist_kernel<1><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, hi); break;
    case 2: lm_hist_kernel<2><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, hi); break;
    case 4: lm_hist_kernel<4><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, hi); break;
    default: lm_hist_kernel<8><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, hi); break;
    }
    return cudaGetLastError();
}

/* Launches the classification kernel of a's record shape on s, or (per_sm not NULL) sets
 * its shared memory up and says how many of its blocks fit on one SM. */
template <int KB, int W, bool GEN>
static cudaError_t lm_classify_call(const rdx_lm_level *a, cudaStream_t s, int *per_sm)
{
    const size_t bytes = lm_classify_smem<KB, GEN ? 4 : W, !GEN>::BYTES;
    if (per_sm) {
        const void *f = (const void *)lm_classify_kernel<KB, W, GEN>;
        const cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        return e != cudaSuccess ? e : cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, f, RDX_LM_THREADS, bytes);
    }
    lm_classify_kernel<KB, W, GEN><<<a->stripes, RDX_LM_THREADS, bytes, s>>>(*a);
    return cudaGetLastError();
}

static cudaError_t lm_classify_dispatch(const rdx_lm_level *a, cudaStream_t s, int *per_sm)
{
#define LM_CLASSIFY(KB, W) \
    case KB * 16 + W: return lm_classify_call<KB, W, false>(a, s, per_sm);
#define LM_CLASSIFY_GEN(KB, W) \
    case KB * 16 + W: return lm_classify_call<KB, W, true>(a, s, per_sm);
    if (a->gen) {
        LM_SWITCH(a->kb * 16 + a->vw, LM_FOR_EACH_KW, LM_CLASSIFY_GEN)
    } else {
        LM_SWITCH(a->kb * 16 + a->vw, RDX_FOR_EACH_KV, LM_CLASSIFY)
    }
#undef LM_CLASSIFY
#undef LM_CLASSIFY_GEN
}

cudaError_t rdx_lm_classify(const rdx_lm_level *a, cudaStream_t s) { return lm_classify_dispatch(a, s, NULL); }

cudaError_t rdx_lm_classify_resident(const rdx_lm_level *a, int *per_sm)
{
    *per_sm = 0;
    return lm_classify_dispatch(a, 0, per_sm);
}

cudaError_t rdx_lm_layout(const rdx_lm_level *a, int sms, cudaStream_t s)
{
    lm_layout_kernel<<<1, 32 * LM_BINS, 0, s>>>(*a);
    lm_dest_kernel<<<lm_slot_grid(a->slots, sms), RDX_COPY_THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}

cudaError_t rdx_lm_permute(const rdx_lm_level *a, int sms, cudaStream_t s)
{
    const unsigned grid = lm_slot_grid(a->slots, sms);
    cudaError_t e = cudaMemsetAsync(a->counters, 0, 2 * sizeof *a->counters, s);
    if (e != cudaSuccess)
        return e;
    lm_min_init_kernel<<<grid, RDX_COPY_THREADS, 0, s>>>(*a);
    int from = 0;
    for (int r = 0; r < a->rounds; ++r, from ^= 1)
        lm_jump_kernel<true><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, from);
    lm_cut_kernel<<<grid, RDX_COPY_THREADS, 0, s>>>(*a, from);
    from ^= 1;
    for (int r = 0; r < a->rounds; ++r, from ^= 1)
        lm_jump_kernel<false><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, from);
    lm_heads_kernel<<<grid, RDX_COPY_THREADS, 0, s>>>(*a, from);
    const unsigned blocks = rdx_resident_grid(a->slots, sms, RDX_LM_MOVE_BLOCKS_PER_SM, 1);
    const size_t walk_smem = (a->seg + 2) * sizeof(uint32_t);
#define LM_MOVE(KB, W)                                                                                        \
    case KB * 16 + W:                                                                                         \
        lm_save_kernel<KB, W><<<blocks, RDX_LM_MOVE_THREADS, 0, s>>>(*a);                                    \
        lm_walk_kernel<KB, W><<<blocks, RDX_LM_MOVE_THREADS, walk_smem, s>>>(*a, from);                      \
        break;
    LM_SWITCH(a->rkb * 16 + a->vw, LM_FOR_EACH_MOVE, LM_MOVE)
#undef LM_MOVE
    return cudaGetLastError();
}

cudaError_t rdx_lm_gather_window(const rdx_lm_level *a, size_t at, size_t count, int sms, cudaStream_t s)
{
    const unsigned grid = rdx_copy_grid((count + RDX_LM_GATHER_ITEMS - 1) / RDX_LM_GATHER_ITEMS, sms);
#define LM_GATHER(KB, W)                                                                                      \
    case KB * 16 + W: lm_gather_kernel<KB, W><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, at, count); break;
    LM_SWITCH(a->rkb * 16 + a->vw, LM_FOR_EACH_MOVE, LM_GATHER)
#undef LM_GATHER
    return cudaGetLastError();
}

cudaError_t rdx_lm_free_window(const rdx_lm_level *a, const rdx_lm_free_map *m, size_t at, size_t count, int sms,
                               cudaStream_t s)
{
    const unsigned grid = rdx_copy_grid(count, sms);
#define LM_FREE(KB)                                                                                          \
    case KB:                                                                                                  \
        lm_free_gather_kernel<KB><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, *m, at, count);                      \
        lm_free_scatter_kernel<KB><<<grid, RDX_COPY_THREADS, 0, s>>>(*a, *m, at, count);                     \
        break;
    switch (a->kb) {
        LM_FREE(1)
        LM_FREE(2)
        LM_FREE(4)
        LM_FREE(8)
    default: return cudaErrorInvalidValue;
    }
#undef LM_FREE
    return cudaGetLastError();
}

cudaError_t rdx_lm_iota(void *indices, int ib, size_t n, int sms, cudaStream_t s)
{
    lm_iota_kernel<<<rdx_copy_grid(n, sms), RDX_COPY_THREADS, 0, s>>>(indices, ib, n);
    return cudaGetLastError();
}

cudaError_t rdx_lm_gather_keys(void *keys_out, const void *keys, int kb, const void *idx, int ib, size_t n, int numpy,
                               unsigned long long inf, int sms, cudaStream_t s)
{
    const unsigned grid = rdx_copy_grid(n, sms);
    switch (kb) {
    case 1: lm_gather_keys_kernel<1><<<grid, RDX_COPY_THREADS, 0, s>>>(keys_out, keys, idx, ib, n, 0, 0); break;
    case 2: lm_gather_keys_kernel<2><<<grid, RDX_COPY_THREADS, 0, s>>>(keys_out, keys, idx, ib, n, numpy, inf); break;
    case 4: lm_gather_keys_kernel<4><<<grid, RDX_COPY_THREADS, 0, s>>>(keys_out, keys, idx, ib, n, numpy, inf); break;
    default: lm_gather_keys_kernel<8><<<grid, RDX_COPY_THREADS, 0, s>>>(keys_out, keys, idx, ib, n, numpy, inf); break;
    }
    return cudaGetLastError();
}
