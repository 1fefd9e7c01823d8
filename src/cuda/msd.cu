/* The MSD route for 64-bit keys (docs/cuda-notes.md, "The MSD hybrid for 64-bit keys"):
 * two rankings, a counting step and a few comparisons per key instead of eight LSD passes.
 *
 *   decide   a sample of the keys (msd_decide_kernel, before the up-front histogram)
 *            finds a base to subtract from every key's image (ctrl[RDX_MSD_BASE]; 0 for
 *            keys from near 0) and the leading bits of the images less the base that do
 *            not vary, which the route's digits skip (ctrl[RDX_MSD_DROP]), and arms level 1 (ctrl[RDX_MSD_INFO + 7]) unless the
 *            top digits are skewed (tuning.h: RDX_MSD_SKEW, RDX_MSD_FEW_PREFIXES); the
 *            histogram then counts the top digit only, and checks the drop over all the
 *            keys (a second histogram of every digit follows where it fails, and the LSD
 *            passes run: RDX_MSD_MISSED), or every digit for the LSD passes.
 *            The bit positions below are those of keys with nothing dropped.
 *   level 1  the pass kernel (onesweep.cu) on the top digit, source -> B, encoding and
 *            subtracting the base; its
 *            digit offsets come from the up-front histogram.
 *   level 2  the counts per (level-1 bucket, bits 48-55), taken by the up-front histogram
 *            as it reads the keys (histogram.cu's joint form), then one
 *            block turns it into bases and level-2 tile numbers and counts the level-2
 *            buckets above level 3's capacity (msd_scan_kernel); then the segmented pass
 *            (msd_pass_kernel): tiles are numbered per level-1 bucket, the look-back
 *            stops at the bucket's first tile; B -> A, the base added back, decoded.
 *   level 3  one block per level-2 bucket of at most its capacity (msd_block_kernel):
 *            load it, count it by the next 8-12 bits in shared memory, put each run of
 *            equal digits (a few keys) in order by comparisons, write, in place in A. A
 *            block with a run of more than RDX_MSD_L3_RUN_MAX keys sorts its bucket by
 *            on-chip LSD passes. 4-byte keys alone have at most 16 bits left: a bucket of
 *            enough keys is counted over all of them instead (msd_l3_count_all), and
 *            above the wide shape's sizes (or in it, after 16 equal keys) sorted from
 *            those counts alone (msd_l3_counts_only). Its shape (the template's W,
 *            tuning.h RDX_MSD_L3_*) grows with the buckets: narrow for every job, then for 4-byte keys the
 *            wide and counts-only ones (alone) or the mid and wide ones (with 4-byte
 *            values, a digit of each bucket's own width).
 *   deep     the larger buckets: the segmented passes' first pass (seg_passes.h, launched
 *            by route_msd.cu) splits each by bits 40-47, A -> B; msd_deep_groups_kernel
 *            lists the groups of sub-buckets and msd_deep_kernel sorts them with level 3
 *            into A. A sub-bucket still above its capacity where many of its keys are
 *            one value (a heavy key) is split around it instead (msd_deep_chunk,
 *            msd_deep_copy_kernel): that value's keys are placed, the keys either side
 *            listed. The other sub-buckets still above its capacity go through the same
 *            again on bits 32-39 (the second deep level), and those still above it after
 *            that are sorted over bits 0-47 by the segmented passes (their constant deep
 *            digits cost nothing), in place in A.
 *
 * Keys only (VB = 0): equal keys are indistinguishable and every level sorts each bucket
 * whole, so no level need be stable: levels 1 and 2 place a tile's keys of one digit in
 * any order (rank.cuh, rdx_rank_scatter_any), level 3 in any order among equal keys.
 * Pairs (VB = 4 or 8 bytes of value per key): levels 1 and 2 move the values with the keys
 * (both are stable passes), level 2 with the pass kernel's 16-byte tile shape; level 3
 * keeps each key's value in shared memory and its index within the bucket (its input
 * order among equal keys, levels 1 and 2 being stable) in the key's rank word, so that
 * ties among equal keys follow that index and the sort is stable; its on-chip LSD passes
 * move the values too. Level 3 reads all of its bucket's values before it writes any (in place).
 * Every kernel reads the state word first and returns at once unless it is its turn, so
 * the whole route is enqueued unconditionally (CUDA-graph safe, no host read). */
#include "common.cuh"
#include "kernels.h"
#include "rank.cuh"

/* Keys K: uint32_t or unsigned long long (the images of 4- or 8-byte keys). Level 1 sorts by
 * the top digit, level 2 by the next (bits MSD_SECOND to MSD_SECOND + 7), and level 3 and
 * the segmented passes by the MSD_SECOND bits below. */
#define MSD_TOP(K) ((int)sizeof(K) * 8 - 8)
#define MSD_SECOND(K) ((int)sizeof(K) * 8 - 16)
/* The widest level-3 digit of the narrow shapes, and log2 of the keys per bin it aims at
 * (tuning.h); the mid and wide shapes of pairs take wider ones (msd_shape::L3_MAX_BITS). */
#define MSD_L3_MAX_BITS(K) (sizeof(K) == 4 ? RDX_MSD4_L3_MAX_BITS : RDX_MSD_L3_MAX_BITS)
#define MSD_L3_BIN_KEYS_LOG2(K) (sizeof(K) == 4 ? RDX_MSD4_L3_BIN_KEYS_LOG2 : 0)

#define MSD_BUCKETS1 256u
#define MSD_BUCKETS2 RDX_MSD_BUCKETS2

/* ---- the decision, from a sample ---- */

#define MSD_DECIDE_THREADS 1024
/* The most leading bits the route's digits skip: level 3's widest digit must fit below
 * the second digit. */
#define MSD_MAX_DROP(K) (MSD_SECOND(K) - MSD_L3_MAX_BITS(K))
static_assert(MSD_MAX_DROP(uint32_t) > 0 && MSD_MAX_DROP(unsigned long long) < 256, "the drop fits its 8 bits");

/* The base the route may subtract from every image (msd_decide_kernel says where): the
 * least sampled image lo rounded down to the unit of a top digit that spans the sampled
 * range [lo, hi], so that keys in a range away from 0 (i64 in +-2^62, ids from 10^12 on)
 * fill the top digit as keys from 0 do; 0 for those (lo is below that unit). The images less the base that the sample saw
 * lie below twice the span, so at most one leading bit more varies in them than in the
 * span: the drop is at least the span's leading zeros less one, the second digit's
 * shift at most the unit's less 7, and the base has no bit below it. Level 3 and the
 * segmented passes, which sort a bucket's images below the second digit, see the same
 * bits with the base and without. */
template <typename K> static __device__ __forceinline__ K msd_base(K lo, K hi)
{
    const int w = (int)sizeof(K) * 8;
    const int lead = hi != lo ? __clzll((unsigned long long)(hi - lo)) - (64 - w) : w;
    const int unit = w - 8 - lead;
    return unit > 0 ? lo & (K) ~(((K)1 << unit) - 1u) : (K)0;
}

/* The sampled range [lo, hi] of float images, widened toward zero where every sampled key
 * has one sign and the sample spans RDX_MSD_FLOAT_WIDE binades or more: the least
 * magnitude lowered by RDX_MSD_FLOAT_TAIL binades, or to zero (tuning.h). Images of one
 * sign lie on one side of mid (+0.0 at mid, -0.0 just below it, in either direction of the
 * sort), their magnitude growing away from it. */
template <typename K> static __device__ __forceinline__ void msd_float_tail(K &lo, K &hi)
{
    const int mant = sizeof(K) == 8 ? 52 : 23;
    const K mid = (K)1 << (sizeof(K) * 8 - 1), step = (K)RDX_MSD_FLOAT_TAIL << mant;
    if (lo >= mid) { /* magnitudes lo - mid .. hi - mid */
        const K least = (lo - mid) >> mant, most = (hi - mid) >> mant;
        if (most - least >= (K)RDX_MSD_FLOAT_WIDE)
            lo = least > (K)RDX_MSD_FLOAT_TAIL ? lo - step : mid;
    } else if (hi < mid) { /* magnitudes mid - 1 - hi .. mid - 1 - lo */
        const K least = (mid - 1 - hi) >> mant, most = (mid - 1 - lo) >> mant;
        if (most - least >= (K)RDX_MSD_FLOAT_WIDE)
            hi = least > (K)RDX_MSD_FLOAT_TAIL ? hi + step : mid - 1;
    }
}

/* A multiplicative hash of x into 2^bits bins (x + 1: 0 too spreads). */
static __device__ __forceinline__ uint32_t msd_hash(uint32_t x, uint32_t mult, int bits)
{
    return ((x + 1u) * mult) >> (32 - bits);
}

/* The sample's count of each 16-bit prefix: 16 bits, two to a word of the decide kernel's
 * dynamic shared memory (a count is at most the sample's 16384 keys); after them, 8-byte
 * keys' counts of their 24-bit prefixes hashed into RDX_MSD_DEEP2_BINS bins (the same
 * form). */
#define MSD_PAIR_WORDS 32768u
#define MSD_DEEP2_WORDS (RDX_MSD_DEEP2_BINS / 2u)
#define MSD_DECIDE_SMEM ((MSD_PAIR_WORDS + MSD_DEEP2_WORDS) * 4u)
static_assert((RDX_MSD_DEEP2_BINS & (RDX_MSD_DEEP2_BINS - 1)) == 0 && RDX_MSD_DEEP2_BINS >= 2, "a power of two");
static_assert(RDX_MSD_SAMPLE_CHUNKS * 32 < 65536, "a prefix's count fits 16 bits");

/* The second deep level (route_msd.cu) splits by the 8 bits below the deep digit: bits 24
 * to 31 of 8-byte keys with nothing dropped, at least bit 1 with the drop. */
#define MSD_DEEP2_MAX_DROP(K) (MSD_SECOND(K) - 17)

/* Bit of 24-bit prefix p in the sample's map of them (RDX_MSD_FEW_DEEP). */
static __device__ __forceinline__ uint32_t msd_deep_bit(uint32_t p)
{
    static_assert((RDX_MSD_DEEP_MAP_BITS & (RDX_MSD_DEEP_MAP_BITS - 1)) == 0 && RDX_MSD_DEEP_MAP_BITS >= 32 &&
                      RDX_MSD_DEEP_MAP_BITS / 32 <= MSD_DECIDE_THREADS,
                  "a power of two, one word a thread at most");
    return msd_hash(p, 0x9E3779B1u, __builtin_ctz(RDX_MSD_DEEP_MAP_BITS));
}

/* Key k's bin among the sample's hashed 24-bit prefixes (RDX_MSD_DEEP2_BINS): the top two
 * digits and the deep level's below them. */
template <typename K> static __device__ __forceinline__ uint32_t msd_deep2_bin(K k, int second)
{
    return msd_hash((uint32_t)(k >> (second - 8)) & 0xFFFFFFu, 0x85EBCA6Bu, __builtin_ctz(RDX_MSD_DEEP2_BINS));
}

/* The sample's heavy 24-bit prefixes (bins of more than RDX_MSD_DEEP2_MOST24 keys), up to
 * RDX_MSD_DEEP2_VALUES_MANY of them: each one's count, and its keys' two candidate values
 * with how many keys equal each. */
struct msd_heavy {
    uint32_t n;                                         /* heavy bins found (may exceed the slots) */
    uint32_t count[RDX_MSD_DEEP2_VALUES_MANY];
    uint32_t other[RDX_MSD_DEEP2_VALUES_MANY], eq1[RDX_MSD_DEEP2_VALUES_MANY]; /* keys unlike rep[0]; keys like rep[1] */
    unsigned long long rep[2][RDX_MSD_DEEP2_VALUES_MANY];
};

/* A heavy bin's 16-bit count in s_deep2 is replaced by this mark plus its slot, so that a
 * key finds its slot with one shared load: a count is at most the sample's 16384 keys. */
#define MSD_HEAVY_MARK 0x8000u
static_assert(RDX_MSD_SAMPLE_CHUNKS * 32u < MSD_HEAVY_MARK && RDX_MSD_DEEP2_VALUES <= RDX_MSD_DEEP2_VALUES_MANY &&
                  RDX_MSD_DEEP2_VALUES_MANY <= 0x7FFF, "a count never looks marked; every slot fits");

/* What heavy bin v of the sample holds (its counts complete): 1, one key value but for at
 * most RDX_MSD_DEEP2_MOST24 sampled keys (the more common candidate); 2, the two candidates
 * together but for that many, of two 24-bit prefixes (two heavy keys hashed into one bin:
 * zipf's 45 heavy keys meet in one of the 16384 bins in about 6% of samples, which declined
 * the route, a NumPy model in round 66); 0, neither (two heavy values of one prefix share
 * its sub-buckets, which the segmented passes would sort: declined as before). */
template <typename K>
static __device__ __forceinline__ uint32_t msd_heavy_kind(const msd_heavy *h, uint32_t v, K base, int second)
{
    const uint32_t eq0 = h->count[v] - h->other[v], most = eq0 > h->eq1[v] ? eq0 : h->eq1[v];
    if (h->count[v] - most <= RDX_MSD_DEEP2_MOST24)
        return 1u;
    const uint32_t p0 = (uint32_t)((K)((K)h->rep[0][v] - base) >> (second - 8)) & 0xFFFFFFu; /* as msd_deep2_bin */
    const uint32_t p1 = (uint32_t)((K)((K)h->rep[1][v] - base) >> (second - 8)) & 0xFFFFFFu;
    return h->other[v] - h->eq1[v] <= RDX_MSD_DEEP2_MOST24 && p0 != p1 ? 2u : 0u;
}

/* Whether the sample's heavy 24-bit prefixes are at most slots and each one key value, or
 * two, but for at most RDX_MSD_DEEP2_MOST24 sampled keys (tuning.h): to every thread of
 * the block, which calls this together, s_deep2 counted (heavy bins then marked with their
 * slots) and h zeroed. A bin's value is the more common of two candidates: a key of it
 * (whichever is stored last), and a key unlike that one (the first may be a key of another
 * prefix hashed into the bin, about one a bin for random keys). */
template <typename K, int PER_WARP>
static __device__ bool msd_heavy_single(const K (&key)[PER_WARP], const bool (&have)[PER_WARP], K base, int second,
                                        uint32_t slots, uint32_t *s_deep2, msd_heavy *h)
{
    for (uint32_t j = threadIdx.x; j < RDX_MSD_DEEP2_BINS / 2u; j += blockDim.x)
        for (uint32_t half = 0; half < 2u; ++half) {
            const uint32_t c = half ? s_deep2[j] >> 16 : s_deep2[j] & 0xFFFFu;
            if (c > RDX_MSD_DEEP2_MOST24) {
                const uint32_t slot = atomicAdd(&h->n, 1u);
                if (slot < slots) {
                    h->count[slot] = c;
                    /* the count becomes the mark (the word's other half may change too) */
                    atomicAdd(&s_deep2[j], ((MSD_HEAVY_MARK | slot) - c) << (half << 4));
                }
            }
        }
    __syncthreads();
    const uint32_t heavy = h->n;
    if (heavy == 0u || heavy > slots)
        return heavy == 0u;
    const uint32_t lane = rdx_lane();
    for (int round = 0; round < 3; ++round) {
        for (int j = 0; j < PER_WARP; ++j) {
            uint32_t v = 0xFFFFFFFFu;
            if (have[j]) {
                const uint32_t bin = msd_deep2_bin<K>((K)(key[j] - base), second);
                const uint32_t c = (s_deep2[bin >> 1] >> ((bin & 1u) << 4)) & 0xFFFFu;
                v = c & MSD_HEAVY_MARK ? c & ~MSD_HEAVY_MARK : v;
            }
            /* The lanes of one key act once (its bin, and so its slot, is the key's): a
             * value repeated thousands of times (np.nan, all keys equal) made thousands
             * of atomics on one word. */
            const unsigned heavy_lanes = __ballot_sync(RDX_FULL_WARP, v != 0xFFFFFFFFu);
            if (v == 0xFFFFFFFFu)
                continue;
            const unsigned long long k = (unsigned long long)key[j];
            const unsigned same = __match_any_sync(heavy_lanes, k), many = (unsigned)__popc(same);
            if (lane != (uint32_t)__ffs(same) - 1u)
                continue;
            if (round == 0)
                atomicExch(&h->rep[0][v], k); /* (an atomic: a race the sanitizer need not report) */
            else if (round == 1 && k != h->rep[0][v]) {
                atomicExch(&h->rep[1][v], k);
                atomicAdd(&h->other[v], many);
            } else if (round == 2 && k != h->rep[0][v] && k == h->rep[1][v])
                atomicAdd(&h->eq1[v], many);
        }
        __syncthreads();
    }
    bool single = true;
    for (uint32_t v = 0; v < heavy; ++v)
        single = single && msd_heavy_kind<K>(h, v, base, second) != 0u;
    return single;
}

/* Heavy bin v's value (the more common candidate) and how many sampled keys equal it,
 * where the bin is one value (msd_heavy_kind 1). */
static __device__ __forceinline__ unsigned long long msd_heavy_value(const msd_heavy *h, uint32_t v, uint32_t *count)
{
    const uint32_t eq0 = h->count[v] - h->other[v];
    *count = eq0 >= h->eq1[v] ? eq0 : h->eq1[v];
    return eq0 >= h->eq1[v] ? h->rep[0][v] : h->rep[1][v];
}

/* The largest sampled level-2 bucket without the keys of the heavy values (msd_heavy_single
 * found them, one or two a heavy bin), to every thread of the block (which calls this
 * together, s_bound zeroed): a value that fills a bucket is never split by the deep
 * levels, and needs no sorting either (the segmented passes leave a bucket of one key
 * where it is), so the deep
 * levels' tests take the largest bucket of the other keys. Takes the heavy values' keys
 * out of s_pairs' counts (each is at most its prefix's count: its keys are among them). */
template <typename K>
static __device__ uint32_t msd_pair_bound_less_heavy(uint32_t *s_pairs, const msd_heavy *h, K base, int second,
                                                     uint32_t *s_bound)
{
    for (uint32_t v = threadIdx.x; v < h->n; v += blockDim.x) {
        const bool two = msd_heavy_kind<K>(h, v, base, second) == 2u; /* both candidates, each with its count */
        for (uint32_t c = 0; c < (two ? 2u : 1u); ++c) {
            uint32_t cnt = two ? (c ? h->eq1[v] : h->count[v] - h->other[v]) : 0u;
            const K k = two ? (K)h->rep[c][v] : (K)msd_heavy_value(h, v, &cnt);
            const uint32_t pre = (uint32_t)((K)(k - base) >> second) & 0xFFFFu;
            atomicSub(&s_pairs[pre >> 1], cnt << ((pre & 1u) << 4));
        }
    }
    __syncthreads();
    uint32_t most = 0;
    for (uint32_t j = threadIdx.x; j < MSD_PAIR_WORDS; j += blockDim.x)
        most = max(most, max(s_pairs[j] & 0xFFFFu, s_pairs[j] >> 16));
    atomicMax(s_bound, most);
    __syncthreads();
    return *s_bound;
}

/* A well-mixed 64-bit hash of stratum k, for its sampled key's offset. Mixed, not a plain
 * multiple: the offsets of k * phi are evenly spread, so strata a period apart never meet
 * the same offset and copies of one part of the array would never repeat in the sample. */
static __device__ __forceinline__ uint64_t msd_place_hash(uint64_t k)
{
    uint64_t z = (k + 1u) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The 4-byte keys of a second sample equal to an earlier key of it (RDX_MSD_PAIRS_REPEATS),
 * to every thread of the block (it calls this together). Its keys are single ones, one a
 * stratum of n / (PER_THREAD x the block's threads) at an offset from msd_place_hash (every key
 * where n is smaller): distinct places, so only equal keys repeat, and keys repeating with
 * any period are met as keys at random places are (the decision's runs of 32 neighbours
 * see a period's copies only by chance). Each key goes into an open-addressed table of
 * MSD_PAIR_WORDS slots (twice the sample; the prefixes' counts, no longer read), linear
 * probing from msd_hash; a key equal to the empty slot's mark is counted
 * apart. s_count: two words, zero on entry. */
template <int PER_THREAD>
__device__ uint32_t msd_sample_repeats(const uint32_t *keys, size_t n, uint32_t *table, uint32_t *s_count)
{
    const uint32_t empty = 0xFFFFFFFFu, slots = MSD_PAIR_WORDS;
    static_assert((MSD_PAIR_WORDS & (MSD_PAIR_WORDS - 1u)) == 0u &&
                      MSD_PAIR_WORDS >= 2u * PER_THREAD * MSD_DECIDE_THREADS,
                  "a table of a power of two slots, at most half full");
    const size_t strata = (size_t)PER_THREAD * blockDim.x, stratum = n / strata;
    uint32_t key[PER_THREAD];
    bool have[PER_THREAD];
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) { /* the loads first, all in flight */
        const size_t k = threadIdx.x + (size_t)j * blockDim.x;
        const size_t at = stratum ? k * stratum + (size_t)__umul64hi(msd_place_hash(k), stratum) : k;
        have[j] = at < n;
        key[j] = have[j] ? keys[at] : 0u;
    }
    for (uint32_t j = threadIdx.x; j < slots; j += blockDim.x)
        table[j] = empty;
    __syncthreads();
    uint32_t repeats = 0u, marks = 0u;
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
        if (!have[j])
            continue;
        if (key[j] == empty) {
            ++marks;
            continue;
        }
        for (uint32_t slot = msd_hash(key[j], 0x9E3779B1u, __builtin_ctz(MSD_PAIR_WORDS));;
             slot = (slot + 1u) & (slots - 1u)) {
            const uint32_t was = atomicCAS(&table[slot], empty, key[j]);
            if (was == empty || was == key[j]) {
                repeats += was == key[j];
                break;
            }
        }
    }
    repeats = __reduce_add_sync(RDX_FULL_WARP, repeats);
    marks = __reduce_add_sync(RDX_FULL_WARP, marks);
    if (rdx_lane() == 0) {
        atomicAdd(&s_count[0], repeats);
        atomicAdd(&s_count[1], marks);
    }
    __syncthreads();
    return s_count[0] + (s_count[1] > 1u ? s_count[1] - 1u : 0u);
}

/* Chunk c of the sample is 32 keys from about c * stride, shifted within its stride by a
 * hash of c so that keys repeating with the stride's period do not fool it (all keys
 * when n is small); the first chunk is the first 32 keys and the last the last 32, where
 * sorted and reversed keys keep their extremes. The images less the base (msd_base) are
 * what the route's digits take (floats of one sign over many binades: their range widened
 * toward zero, msd_float_tail). The leading bits that no sampled key varies in are dropped: the route's
 * top digit is the 8 bits below them (keys that use part of their range, such as ids or
 * 0..n-1, fill its buckets); where more than MSD_MAX_DROP bits lead, the LSD passes, which
 * skip the digits that do not vary, take the keys. Then the counts of the top two digits
 * over the sample decide as the tests of tuning.h say, and where the keys use a share of
 * the top digit's 256 values (half of them where the largest key lies just above a power
 * of two), max_n shrinks by that share: the level-2 buckets grow as it does, and above
 * level 3's capacity the segmented passes would sort them all (u64 i * 65537 at 2^28, 129
 * top digits: 14.9 ms against 10.5 for the LSD passes, H200 round 29 call 3). (The second
 * digit's values are not counted: a sample of runs of sorted keys sees few of them.) The
 * histogram checks the drop over all the keys (rdx_msd_range_missed). With repeats_min (4-byte
 * keys with values), not where that many sampled keys repeat (msd_sample_repeats). */
template <typename K>
__global__ void __launch_bounds__(MSD_DECIDE_THREADS)
    msd_decide_kernel(const K *keys, size_t n, size_t max_n, int cls, int desc, int top_pass, uint32_t repeats_min,
                      uint32_t heavy_values, uint32_t *ctrl)
{
    enum { PER_WARP = RDX_MSD_SAMPLE_CHUNKS / (MSD_DECIDE_THREADS / 32) };
    static_assert(PER_WARP * (MSD_DECIDE_THREADS / 32) == RDX_MSD_SAMPLE_CHUNKS, "whole chunks per warp");
    rdx_chain_enter();
    /* s_sum[5]: the largest level-2 bucket without the heavy values
     * (msd_pair_bound_less_heavy); [6], [7]: msd_sample_repeats' counts */
    __shared__ uint32_t s_top[256], s_second[256], s_sum[8];
    extern __shared__ uint32_t s_pairs[]; /* MSD_PAIR_WORDS: the 16-bit prefixes' counts */
    uint32_t *const s_deep2 = s_pairs + MSD_PAIR_WORDS; /* the 24-bit prefixes' hashed counts */
    __shared__ uint32_t s_deep[RDX_MSD_DEEP_MAP_BITS / 32]; /* the 24-bit prefixes seen, hashed */
    __shared__ unsigned long long s_vary[4], s_ends[2]; /* rdx_or_vary's words; the sampled images' least and greatest */
    __shared__ msd_heavy s_heavy; /* 8-byte keys: the heavy 24-bit prefixes (msd_heavy_single) */
    __shared__ uint32_t s_ascent; /* RDX_MSD_ASCENT */
    const uint32_t t = threadIdx.x, lane = rdx_lane();
    for (uint32_t j = t; j < sizeof(msd_heavy) / 4u; j += MSD_DECIDE_THREADS)
        ((uint32_t *)&s_heavy)[j] = 0u;
    if (t < 256) {
        s_top[t] = 0u;
        s_second[t] = 0u;
    }
    if (t < 8)
        s_sum[t] = 0u;
    if (t < RDX_MSD_DEEP_MAP_BITS / 32)
        s_deep[t] = 0u;
    for (uint32_t j = t; j < MSD_PAIR_WORDS + (sizeof(K) == 8 ? MSD_DEEP2_WORDS : 0u); j += MSD_DECIDE_THREADS)
        s_pairs[j] = 0u;
    if (t < 4)
        s_vary[t] = 0ull;
    if (t < 2)
        s_ends[t] = t ? 0ull : ~0ull;
    if (t == 0)
        s_ascent = 0u;
    __syncthreads();
    const size_t chunks = RDX_MSD_SAMPLE_CHUNKS;
    const size_t stride = n / chunks > 32 ? n / chunks : 32;
    K key[PER_WARP];
    bool have[PER_WARP];
    K lo = (K)~(K)0, hi = (K)0;
#pragma unroll
    for (int j = 0; j < PER_WARP; ++j) {
        const size_t c = (t >> 5) + (size_t)j * (MSD_DECIDE_THREADS / 32);
        /* a hash of c scaled into [0, stride - 31) by a multiply-high: a 64-bit modulo here
         * was a division routine per sampled chunk, in the one block that decides */
        const size_t jitter =
            stride > 32 ? (size_t)__umul64hi(c * 0x9E3779B97F4A7C15ull, (unsigned long long)(stride - 31)) : 0;
        const size_t i = c + 1 == chunks && n > chunks * 32 ? n - 32 + lane : c * stride + jitter + lane;
        have[j] = i < n;
        key[j] = have[j] ? rdx_enc(keys[i], cls, desc) : (K)0;
        if (have[j]) {
            lo = key[j] < lo ? key[j] : lo;
            hi = key[j] > hi ? key[j] : hi;
        }
        /* a chunk's lanes hold consecutive keys: an ascent between neighbours */
        const K next = __shfl_down_sync(RDX_FULL_WARP, key[j], 1);
        const bool next_have = __shfl_down_sync(RDX_FULL_WARP, have[j], 1);
        if (__any_sync(RDX_FULL_WARP, lane < 31 && have[j] && next_have && key[j] < next) && lane == 0)
            s_ascent = 1u; /* (a plain store: every writer writes 1) */
    }
    const unsigned long long warp_lo = rdx_warp_min64(lo), warp_hi = rdx_warp_max64(hi);
    if (lane == 0) { /* (64-bit shared atomics are CAS loops: one a warp) */
        atomicMin(&s_ends[0], warp_lo);
        atomicMax(&s_ends[1], warp_hi);
    }
    __syncthreads();
    K least = (K)s_ends[0], most = (K)s_ends[1]; /* floats: widened toward zero */
    if (cls == RDX_CLASS_FLOAT)
        msd_float_tail<K>(least, most);
    const K based = msd_base<K>(least, most);
    K mine[4] = {(K)0, (K)0, (K)0, (K)0}; /* rdx_or_vary of this thread's sampled images, less the base and not */
#pragma unroll
    for (int j = 0; j < PER_WARP; ++j)
        if (have[j]) {
            rdx_or_vary(mine + 2, key[j]);
            rdx_or_vary(mine, (K)(key[j] - based));
        }
    if (t == 0) /* the range's ends, as sampled keys (floats: the widened one) */
        for (int e = 0; e < 2; ++e) {
            rdx_or_vary(mine + 2, e ? most : least);
            rdx_or_vary(mine, (K)((e ? most : least) - based));
        }
#pragma unroll
    for (int v = 0; v < 4; ++v) {
        const unsigned long long warp_or = rdx_warp_or64(mine[v]);
        if (lane == 0)
            atomicOr(&s_vary[v], warp_or);
    }
    __syncthreads();
    /* The bits that differ between sampled images less the base, and between the images.
     * The base is taken only where the images less it leave a leading bit to drop and the
     * window of keys it allows, [base, base + 2^(bits - drop)), ends below 2^bits: then any
     * key under the base (missed by the sample) varies in a dropped bit, which the
     * histogram sees. Else the route takes the images as they are (base 0). */
    const int w = (int)sizeof(K) * 8;
    const unsigned long long vary_based = s_vary[0] & s_vary[1], vary_raw = s_vary[2] & s_vary[3];
    const int lead_based = vary_based ? __clzll(vary_based) - (64 - w) : 0;
    const bool use_base = based != (K)0 && lead_based >= 1 && lead_based <= MSD_MAX_DROP(K) &&
                          based <= (K)((K)0 - ((K)1 << (w - lead_based)));
    const K base = use_base ? based : (K)0;
    const int lead = use_base ? lead_based : vary_raw ? __clzll(vary_raw) - (64 - w) : w; /* w: every key equal */
    const int drop = lead <= MSD_MAX_DROP(K) ? lead : 0;
    const int second = MSD_SECOND(K) - drop;
    /* One shared atomic a sampled key (its 16-bit prefix; the deep level's map too for
     * 8-byte keys): the top digits' counts and the second digits seen follow from the
     * prefixes' counts (a sample of skewed keys made a count per digit a hot spot). */
#pragma unroll
    for (int j = 0; j < PER_WARP; ++j)
        if (have[j]) {
            const K k = key[j] - base;
            const uint32_t pre = (uint32_t)(k >> second) & 0xFFFFu;
            atomicAdd(&s_pairs[pre >> 1], 1u << ((pre & 1u) << 4));
            if (sizeof(K) == 8) {
                const uint32_t bit = msd_deep_bit((uint32_t)(k >> (second - 8)) & 0xFFFFFFu);
                atomicOr(&s_deep[bit >> 5], 1u << (bit & 31u));
                const uint32_t bin = msd_deep2_bin<K>(k, second);
                atomicAdd(&s_deep2[bin >> 1], 1u << ((bin & 1u) << 4));
            }
        }
    __syncthreads();
    /* Word j holds prefixes 2j and 2j + 1: top digit j >> 7, second digits 2 (j & 127) and
     * one more. Thread t reads words t + 1024 i: one top digit a warp each time (four warps
     * share it), the same two second digits every time. */
    static_assert(MSD_DECIDE_THREADS % 128 == 0 && MSD_PAIR_WORDS % MSD_DECIDE_THREADS == 0, "whole rows a step");
    uint32_t most_pair = 0, seconds_seen = 0; /* the largest sampled level-2 bucket; bit h: second digit 2 (t & 127) + h */
    for (uint32_t j = t; j < MSD_PAIR_WORDS; j += MSD_DECIDE_THREADS) {
        const uint32_t w = s_pairs[j], lo = w & 0xFFFFu, hi = w >> 16;
        most_pair = max(most_pair, max(lo, hi));
        seconds_seen |= (lo != 0u ? 1u : 0u) | (hi != 0u ? 2u : 0u);
        const uint32_t row = __reduce_add_sync(RDX_FULL_WARP, lo + hi);
        if (lane == 0 && row != 0u)
            atomicAdd(&s_top[j >> 7], row);
    }
    if (seconds_seen & 1u)
        s_second[2u * (t & 127u)] = 1u;
    if (seconds_seen & 2u)
        s_second[2u * (t & 127u) + 1u] = 1u;
    atomicMax(&s_sum[3], most_pair);
    __syncthreads();
    uint32_t repeats = 0u; /* the same in every thread: the call is the whole block's */
    if (sizeof(K) == 4 && repeats_min != 0u)
        repeats = msd_sample_repeats<RDX_MSD_SAMPLE_CHUNKS * 32 / MSD_DECIDE_THREADS>((const uint32_t *)keys, n, s_pairs,
                                                                                   s_sum + 6);
    if (sizeof(K) == 8 && t < RDX_MSD_DEEP_MAP_BITS / 32)
        atomicAdd(&s_sum[4], (uint32_t)__popc(s_deep[t]));
    if (t < 256) {
        const uint32_t c = s_top[t];
        atomicMax(&s_sum[0], c);
        atomicAdd(&s_sum[1], c != 0u);
        atomicAdd(&s_sum[2], s_second[t] != 0u);
    }
    __syncthreads();
    /* the same in every thread from here */
    const size_t sampled = n < chunks * 32 ? n : chunks * 32; /* the chunks lie within n */
    const uint32_t most_top = s_sum[0], top_digits = s_sum[1], second_digits = s_sum[2];
    const int spread = (unsigned long long)most_top * 256u <= (unsigned long long)RDX_MSD_SKEW * sampled &&
                       (unsigned long long)n * MSD_BUCKETS1 <= (unsigned long long)max_n * top_digits;
    const int few_prefixes = top_digits > 1 && top_digits * second_digits <= RDX_MSD_FEW_PREFIXES;
    /* many distinct keys that repeat: level 3's runs (tuning.h, RDX_MSD_PAIRS_REPEATS) */
    const int repeated = repeats_min != 0u && repeats >= repeats_min && 2u * (size_t)repeats <= sampled;
    /* the route taken whatever the deep levels' tests say (where the lead allows it) */
    const bool taken = (spread && !repeated) || few_prefixes;
    /* The heavy values (8-byte keys) only where the deep levels' tests decide: not where
     * the lead declines the route or the other tests take it (few values, all keys equal:
     * the analysis took 50 and 35 us of the one block, round 64). */
    const bool decided = lead > MSD_MAX_DROP(K) || taken;
    bool single = false;
    uint32_t most_split = s_sum[3]; /* the largest sampled level-2 bucket, without the heavy values */
    if (sizeof(K) == 8 && !decided) {
        single = msd_heavy_single<K, PER_WARP>(key, have, base, second, heavy_values, s_deep2, &s_heavy);
        if (single && s_heavy.n != 0u)
            most_split = msd_pair_bound_less_heavy<K>(s_pairs, &s_heavy, base, second, &s_sum[5]);
    }
    if (t == 0) {
        /* 8-byte keys also where the deep level would split the largest level-2 bucket
         * into sub-buckets of about the route's average at max_n (max_n / 65536 keys), if it
         * split it RDX_MSD_DEEP_SPLIT ways. The largest sampled count, less
         * RDX_MSD_DEEP_SIGMAS of its noise, stands for the largest bucket: the largest of
         * many noisy counts overstates it. */
        const float noise = RDX_MSD_DEEP_SIGMAS * sqrtf((float)most_split);
        const uint32_t pair_bound = (float)most_split > noise ? most_split - (uint32_t)noise : 0u;
        /* the largest level-2 bucket's keys, against the route's average bucket at max_n
         * times the ways the deep level splits it (both scaled by the sample's size) */
        const unsigned long long largest = (unsigned long long)n * pair_bound * MSD_BUCKETS2,
                                 deep_room = (unsigned long long)max_n * sampled * RDX_MSD_DEEP_SPLIT;
        const int deep = sizeof(K) == 8 && largest <= deep_room;
        /* Few values of the deep level's digit under the top two: its sub-buckets would be
         * as long as its buckets (tuning.h). 8-byte keys only: 4-byte keys have no deep level.
         * The second deep level is skipped with it, and where the drop leaves it no digit. */
        const int skip_deep = sizeof(K) == 8 && s_sum[4] <= RDX_MSD_FEW_DEEP;
        const int skip_deep2 = skip_deep || drop > MSD_DEEP2_MAX_DROP(K);
        /* Or where no 24-bit prefix is heavy in the sample (no key repeats thousands of
         * times: level 3 sorts long runs slowly, tuning.h) but a few that are one value
         * each, and the two deep levels would split the largest level-2 bucket
         * RDX_MSD_DEEP_SPLIT x RDX_MSD_DEEP2_SPLIT ways to about the average at max_n
         * (normal doubles from 2^27 on, with or without np.nan). */
        const int deep2 = sizeof(K) == 8 && !skip_deep2 && single &&
                          largest <= deep_room * RDX_MSD_DEEP2_SPLIT;
        const int on = lead <= MSD_MAX_DROP(K) && (taken || deep || deep2);
        ctrl[RDX_MSD_STATE] = on ? RDX_MSD_LEVEL1 : RDX_MSD_OFF;
        ctrl[RDX_MSD_DROP] = on ? (uint32_t)drop : 0u;
        ctrl[RDX_MSD_SKIP_DEEP] = on && skip_deep ? 1u : 0u;
        ctrl[RDX_MSD_SKIP_DEEP2] = on && skip_deep2 ? 1u : 0u;
        ctrl[RDX_MSD_BASE] = on ? (uint32_t)base : 0u;
        ctrl[RDX_MSD_BASE + 1] = on ? (uint32_t)((unsigned long long)base >> 32) : 0u;
        ctrl[RDX_MSD_INFO + top_pass] =
            on ? RDX_PASS_ACTIVE | RDX_PASS_FIRST | (uint32_t)drop << RDX_PASS_DROP_SHIFT : 0u;
        ctrl[RDX_MSD_ASCENT] = s_ascent;
    }
}

/* ---- level 2: bases, tile numbers, and the decision (one block) ---- */

#define MSD_SCAN_THREADS 1024

/* Level 2's tile shape and level 3's capacity for keys K and value bytes VB (0: keys
 * only); 4-byte keys take the pass kernel's level-2 shape for their bytes (tuning.h). W:
 * level 3's shape (tuning.h, RDX_MSD_L3_*: 0 narrow, 1 wide, 2 counts-only for 4-byte
 * keys alone, 3 mid for 4-byte keys with 4-byte values). */
template <typename K, int VB, int W = 0> struct msd_shape {
    static constexpr bool K4 = sizeof(K) == 4;
    static constexpr int L2_THREADS = K4 ? RDX_MSD4_L2_THREADS(VB) : VB ? RDX_MSD_L2_THREADS_PAIRS : RDX_MSD_L2_THREADS;
    static constexpr int L2_ITEMS = K4 ? RDX_MSD4_L2_ITEMS(VB) : VB ? RDX_MSD_L2_ITEMS_PAIRS : RDX_MSD_L2_ITEMS;
    static constexpr int L2_MIN_BLOCKS = K4   ? RDX_MSD4_L2_MIN_BLOCKS(VB)
                                         : VB ? RDX_MSD_L2_MIN_BLOCKS_PAIRS
                                              : RDX_MSD_L2_MIN_BLOCKS;
    static constexpr int L3_THREADS = W == RDX_MSD_L3_WIDE8 ? RDX_MSD_L3_WIDE8_THREADS
                                      : W == 2 ? RDX_MSD4_L3_COUNTS_THREADS
                                      : W == 3 ? RDX_MSD4_L3_MID_THREADS_PAIRS
                                      : W    ? RDX_MSD4_L3_WIDE_THREADS
                                      : VB   ? RDX_MSD_L3_THREADS_PAIRS
                                             : RDX_MSD_L3_THREADS;
    static constexpr int L3_ITEMS = W == RDX_MSD_L3_WIDE8 ? RDX_MSD_L3_WIDE8_ITEMS(VB)
                                    : W == 2 ? RDX_MSD4_L3_COUNTS_ITEMS
                                    : W == 3 ? RDX_MSD4_L3_MID_ITEMS_PAIRS
                                    : W    ? RDX_MSD4_L3_WIDE_ITEMS
                                    : VB   ? RDX_MSD_L3_ITEMS_PAIRS
                                           : RDX_MSD_L3_ITEMS;
    static constexpr int L3_MIN_BLOCKS = W == RDX_MSD_L3_WIDE8   ? 1 /* 177-201 KB of shared memory */
                                         : W == 2 ? 1 /* its 208 KB of shared memory */
                                         : W == 3 ? RDX_MSD4_L3_MID_MIN_BLOCKS_PAIRS
                                         : W    ? RDX_MSD4_L3_WIDE_MIN_BLOCKS
                                         : VB   ? RDX_MSD_L3_MIN_BLOCKS_PAIRS
                                                : RDX_MSD_L3_MIN_BLOCKS;
    static constexpr int L3_CAP = L3_THREADS * L3_ITEMS;
    /* The widest level-3 digit: pairs in the mid and wide shapes compare each key with
     * the others of its bin, so they keep about two keys a bin in their larger buckets */
    static constexpr int L3_MAX_BITS = W == RDX_MSD_L3_WIDE8   ? RDX_MSD_L3_WIDE8_MAX_BITS
                                       : W == 3 ? RDX_MSD4_L3_MID_MAX_BITS_PAIRS
                                       : W && VB ? RDX_MSD4_L3_WIDE_MAX_BITS_PAIRS
                                                 : MSD_L3_MAX_BITS(K);
    static_assert(!W || (K4 && (VB == 0 ? W <= 2 : VB == 4 && (W == 1 || W == 3))) || (!K4 && W == RDX_MSD_L3_WIDE8),
                  "the wide level 3 is 4-byte keys' alone or with 4-byte values, the counts-only one keys "
                  "alone's, the mid one pairs', and 8-byte keys' wide one (W = RDX_MSD_L3_WIDE8)");
};
/* 8-byte keys' wide shape (level-2 buckets and the deep level's lone sub-buckets) */
template <typename K, int VB> using msd_wide8 = msd_shape<K, VB, RDX_MSD_L3_WIDE8>;
static_assert(msd_shape<unsigned long long, 8>::L3_CAP <= 65535 && msd_shape<uint32_t, 8>::L3_CAP <= 65535 &&
                  msd_shape<uint32_t, 0, 1>::L3_CAP <= 65535 && msd_shape<uint32_t, 4, 1>::L3_CAP <= 65535 &&
                  msd_shape<uint32_t, 4, 3>::L3_CAP <= 65535 &&
                  msd_shape<uint32_t, 0, 2>::L3_CAP <= 65535,
              "level 3's key indices and counts fit 16 bits");

template <typename K, int VB, int W>
__global__ void __launch_bounds__(MSD_SCAN_THREADS) msd_scan_kernel(const rdx_msd_args a)
{
    rdx_chain_enter();
    typedef msd_shape<K, VB, W> S;
    __shared__ uint32_t s_tiles[MSD_BUCKETS1];
    if (a.ctrl[RDX_MSD_STATE] != RDX_MSD_LEVEL1)
        return;
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t tile = (uint32_t)(S::L2_THREADS * S::L2_ITEMS);
    uint32_t big = 0; /* level-2 buckets above level 3's capacity, this thread's */
    /* One warp per level-1 bucket at a time, eight digits per lane. */
    for (uint32_t b1 = warp; b1 < MSD_BUCKETS1; b1 += MSD_SCAN_THREADS / 32) {
        uint32_t c[8], sum = 0;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            c[j] = a.counts2[b1 * 256u + lane * 8u + (uint32_t)j];
            sum += c[j];
            big += c[j] > (uint32_t)S::L3_CAP;
        }
        const uint32_t inc = rdx_warp_incl_scan(sum, lane);
        uint32_t run = (uint32_t)a.top_bases[b1] + inc - sum;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            a.bases2[b1 * 256u + lane * 8u + (uint32_t)j] = run;
            run += c[j];
        }
        if (lane == 31)
            s_tiles[b1] = (inc + tile - 1u) / tile;
    }
    if (big)
        atomicAdd(&a.ctrl[RDX_MSD_LONG], big);
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t t = 0;
        for (uint32_t b1 = 0; b1 < MSD_BUCKETS1; ++b1) {
            a.first_tile[b1] = t;
            t += s_tiles[b1];
        }
        a.first_tile[MSD_BUCKETS1] = t;
        a.ctrl[RDX_MSD_STATE] = RDX_MSD_ON;
        for (int p = 0; p < a.passes; ++p)
            a.pass_info[p] = 0u; /* the LSD passes return at once */
    }
}

/* The level-2 buckets as offsets for the segmented passes (seg_passes.h), which sort those
 * above level 3's capacity: off[b] is bucket b's first key, off[65536] = n; all zero (every
 * bucket empty) where the route is not on. Zeroes the counts of list_long (when not NULL),
 * where msd_long_kernel lists the buckets above its shape's capacity too. */
__global__ void __launch_bounds__(RDX_COPY_THREADS) msd_offsets_kernel(const uint32_t *ctrl, const uint32_t *bases2,
                                                                      size_t *off, size_t n, uint32_t *list_long)
{
    rdx_chain_enter();
    const bool on = ctrl[RDX_MSD_STATE] == RDX_MSD_ON;
    for (uint32_t b = blockIdx.x * blockDim.x + threadIdx.x; b <= MSD_BUCKETS2; b += gridDim.x * blockDim.x)
        off[b] = !on ? 0 : b < MSD_BUCKETS2 ? (size_t)bases2[b] : n;
    if (list_long && blockIdx.x == 0 && threadIdx.x < 2 * RDX_SEG_BINS)
        list_long[threadIdx.x] = 0u;
}

/* ---- level 2: the segmented pass ---- */

template <typename K, int VB> struct msd_l2_layout {
    static constexpr int THREADS = msd_shape<K, VB>::L2_THREADS;
    static constexpr int ITEMS = msd_shape<K, VB>::L2_ITEMS;
    static constexpr int TILE = THREADS * ITEMS;
    static constexpr int WARPS = THREADS / 32;
    static constexpr size_t KEYS = 0;
    static constexpr size_t VALS = ((size_t)TILE * sizeof(K) + 15) / 16 * 16;
    static constexpr size_t GOFS = VALS + ((size_t)TILE * VB + 15) / 16 * 16;
    static constexpr size_t WCNT = GOFS + RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t START = WCNT + (size_t)WARPS * RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t SCAN = START + RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t MISC = SCAN + 32 * 4;
    static constexpr size_t BYTES = MISC + 16;
};

/* The mask m that encodes (y ^ m) and decodes (e ^ m) every key y of the same sign as the
 * key x (decoded), under key_codec.h's codec: an integer's m is one constant, a float's
 * depends on its sign bit (and the direction) only. Every key of a level-1 bucket has
 * the same sign bit: the top digit holds it, or the leading bits the route skips, which
 * no key varies in, do (rdx_msd_range_missed checks them). So levels 2 and 3 code a
 * bucket's keys with one XOR, floats too. */
template <typename K> static __device__ __forceinline__ K msd_flip(K x, int cls, int desc)
{
    return rdx_enc(x, cls, desc) ^ x;
}

/* Like the pass kernel (onesweep.cu) on the second digit, with tiles numbered per level-1
 * bucket: tile t belongs to the last bucket whose first tile is <= t, that bucket's first
 * tile publishes its counts as a prefix, and slots come from bases2 of the bucket. With
 * VB > 0 each key's value goes to the key's slot. */
template <typename K, int VB>
static __device__ __forceinline__ void msd_l2_tile(const rdx_msd_args &a, uint32_t tile, int shift, unsigned char *smem)
{
    typedef msd_l2_layout<K, VB> L;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    K *s_keys = (K *)(smem + L::KEYS);
    V *s_vals = (V *)(smem + L::VALS);
    uint32_t *s_gofs = (uint32_t *)(smem + L::GOFS);
    uint32_t *s_wcnt = (uint32_t *)(smem + L::WCNT);
    uint32_t *s_start = (uint32_t *)(smem + L::START);
    uint32_t *s_scan = (uint32_t *)(smem + L::SCAN);
    /* The last level-1 bucket whose first tile is <= tile (empty buckets share their
     * first tile with the next one, so the last is the non-empty one). */
    const uint32_t b1 = rdx_last_at_most(a.first_tile, MSD_BUCKETS1, tile), ft = a.first_tile[b1];
    const size_t bucket_end = b1 + 1u < MSD_BUCKETS1 ? (size_t)a.top_bases[b1 + 1u] : a.n;
    const size_t tile_begin = (size_t)a.top_bases[b1] + (size_t)(tile - ft) * L::TILE;
    const size_t left = bucket_end - tile_begin;
    const uint32_t count = left < (size_t)L::TILE ? (uint32_t)left : (uint32_t)L::TILE;
    const K *in = (const K *)a.keys_b + tile_begin;
    K *out = (K *)a.keys_a;
    V *vout = (V *)a.vals_a;
    const int bits = 8;
    const K base = (K)rdx_u64_of(a.ctrl + RDX_MSD_BASE); /* B holds the images less the base */
    const K flip = msd_flip(rdx_dec(in[0] + base, a.cls, a.desc), a.cls, a.desc); /* the bucket's codec */
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t first = warp * 32u * L::ITEMS + lane;

    K key[L::ITEMS];
    V val[L::ITEMS]; /* keys only: unused by the ranking with VB = 0 */
    const V *vin = (const V *)a.vals_b + tile_begin;
#pragma unroll
    for (int i = 0; i < L::ITEMS; ++i) {
        const uint32_t pos = first + (uint32_t)i * 32u;
        key[i] = pos < count ? in[pos] : (K)0;
        val[i] = VB && pos < count ? vin[pos] : (V)0;
    }

    const uint32_t total = rdx_count_tile<K, L::ITEMS, L::THREADS>(key, count, shift, bits, s_wcnt);
    uint32_t *row = a.status + (size_t)tile * RDX_CUDA_MAX_BINS;
    if (threadIdx.x < 256u)
        rdx_store_status(row + threadIdx.x, (tile == ft ? RDX_STATUS_PREFIX : RDX_STATUS_AGGREGATE) | total);
    rdx_offset_tile<L::THREADS>(total, bits, s_wcnt, s_start, s_scan);
    rdx_rank_scatter<VB, K, V, L::ITEMS, L::THREADS>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals, false,
                                                     true);

    /* Look-back within the bucket: it ends at the bucket's first tile, which published a prefix. */
    if (threadIdx.x < 256u) {
        uint32_t excl = 0;
        if (tile > ft) {
            excl = rdx_look_back(a.status, tile - 1u, false);
            rdx_store_status(row + threadIdx.x, RDX_STATUS_PREFIX | (excl + total));
        }
        s_gofs[threadIdx.x] = a.bases2[b1 * 256u + threadIdx.x] + excl - s_start[threadIdx.x];
        __syncwarp();
    }
    __syncthreads();

#pragma unroll 4
    for (int j = 0; j < L::ITEMS; ++j) {
        const uint32_t idx = (uint32_t)j * L::THREADS + threadIdx.x;
        if (idx < count) {
            const K k = s_keys[idx];
            const uint32_t o = s_gofs[rdx_digit(k, shift, 255u)] + idx;
            out[o] = (k + base) ^ flip; /* decoded */
            if (VB)
                vout[o] = s_vals[idx];
        }
    }
}

/* Each block takes level-2 tiles in start order until they run out (a grid of resident
 * blocks: where the route is not on, a few hundred blocks return at once). */
template <typename K, int VB>
__global__ void __launch_bounds__(msd_shape<K, VB>::L2_THREADS, msd_shape<K, VB>::L2_MIN_BLOCKS)
    msd_pass_kernel(const rdx_msd_args a)
{
    rdx_chain_enter();
    typedef msd_l2_layout<K, VB> L;
    extern __shared__ __align__(16) unsigned char smem[];
    uint32_t *s_misc = (uint32_t *)(smem + L::MISC);
    if (a.ctrl[RDX_MSD_STATE] != RDX_MSD_ON)
        return;
    const uint32_t tiles = a.first_tile[MSD_BUCKETS1];
    const int shift = MSD_SECOND(K) - (int)a.ctrl[RDX_MSD_DROP]; /* the second digit */
    for (;;) {
        if (threadIdx.x == 0)
            s_misc[0] = atomicAdd(&a.ctrl[RDX_MSD_L2_COUNTER], 1u);
        __syncthreads();
        const uint32_t tile = s_misc[0];
        if (tile >= tiles)
            return;
        msd_l2_tile<K, VB>(a, tile, shift, smem);
        __syncthreads(); /* the shared memory is the next tile's */
    }
}

/* ---- level 3: one block per level-2 bucket ---- */

/* Level 3's shared memory: rank.cuh's layout for the bucket (keys, values; the fast path
 * keeps each key's rank word where the keys go). */
template <typename K, int VB, int W>
struct msd_l3_layout
    : rdx_rank_layout<(int)sizeof(K), VB, msd_shape<K, VB, W>::L3_THREADS, msd_shape<K, VB, W>::L3_CAP> {
    typedef rdx_rank_layout<(int)sizeof(K), VB, msd_shape<K, VB, W>::L3_THREADS, msd_shape<K, VB, W>::L3_CAP> R;
    static constexpr size_t BYTES = R::END;
    static_assert(msd_shape<K, VB, W>::L3_CAP <= 65536, "a tie-break (index or slot) fits the rank word's 16 bits");
};
/* 4-byte keys alone, counted over every value below level 2 (msd_l3_count_all): the
 * sorted bucket (OUT, as many words as level 3 holds keys), a 4-bit counter per value
 * (CNT, 8 to a word, 2^16 values), each counter word's first slot (FIRST, 16 bits), and
 * the block scan's words. */
template <int W> struct msd_count_layout {
    static constexpr uint32_t MAX_BITS = 16; /* MSD_SECOND(uint32_t): nothing dropped */
    static constexpr uint32_t WORDS = (1u << MAX_BITS) / 8u;
    static constexpr size_t OUT = 0;
    static constexpr size_t CNT = ((size_t)msd_shape<uint32_t, 0, W>::L3_CAP * 4 + 15) / 16 * 16;
    static constexpr size_t FIRST = CNT + (size_t)WORDS * 4;
    static constexpr size_t SCAN = FIRST + (size_t)WORDS * 2;
    static constexpr size_t BYTES = SCAN + 32 * 4;
};

/* Level 3's counts-only shape (msd_l3_counts_only): a 16-bit count of every value below
 * level 2 (CNT, two to a word, 2^16 values, in 16-byte chunks swizzled: msd_counts_word),
 * the sorted bucket's values below level 2 (OUT, 16 bits, a multiple of 8 a thread: the
 * capacity), each warp's greatest value (WMAX) and the block scan's words. */
struct msd_counts_layout {
    typedef msd_shape<uint32_t, 0, 2> S;
    static_assert(S::L3_THREADS == 1024 && S::L3_ITEMS % 8 == 0, "64 values a thread; whole 16-byte rows of OUT");
    static constexpr size_t CNT = 0;
    static constexpr size_t OUT = CNT + ((size_t)1 << 16) * 2;
    static constexpr size_t WMAX = OUT + (size_t)S::L3_CAP * 2;
    static constexpr size_t SCAN = WMAX + 32 * 4;
    static constexpr size_t BYTES = SCAN + 32 * 4;
};

/* The shared memory of a level-3 block (and of the deep level's, which sorts as level 3
 * does): the count path's too for 4-byte keys alone. */
template <typename K, int VB, int W> static constexpr size_t msd_l3_bytes()
{
    if constexpr (W == 2)
        return msd_counts_layout::BYTES;
    else if constexpr (sizeof(K) == 4 && VB == 0 && W == 1) /* and the counts-only shape's, after 16 equal keys */
        return msd_counts_layout::BYTES;
    else if constexpr (sizeof(K) == 4 && VB == 0)
        return msd_count_layout<W>::BYTES > msd_l3_layout<K, VB, W>::BYTES ? msd_count_layout<W>::BYTES
                                                                           : msd_l3_layout<K, VB, W>::BYTES;
    else
        return msd_l3_layout<K, VB, W>::BYTES;
}
static_assert(msd_counts_layout::BYTES >= msd_count_layout<1>::BYTES &&
                  msd_counts_layout::BYTES >= msd_l3_layout<uint32_t, 0, 1>::BYTES,
              "the counts-only shape's shared memory holds the wide shape's of 4-byte keys alone");

static_assert(msd_l3_bytes<uint32_t, 4, 1>() <= 227u * 1024u && msd_l3_bytes<uint32_t, 0, 2>() <= 227u * 1024u,
              "the wide shapes fit a Hopper block's shared memory");
static_assert(RDX_MSD4_L3_MID_MIN_BLOCKS_PAIRS * (msd_l3_bytes<uint32_t, 4, 3>() + 1024u) <= 228u * 1024u,
              "the mid shape's blocks share a Hopper multiprocessor (1 KB reserved a block)");

/* The fast path's digit counters (one per bin, then the end) live where the slow path's
 * per-warp counters and s_start go. */
template <typename K, int VB, int W> static constexpr bool msd_l3_counters_fit()
{
    return (msd_l3_layout<K, VB, W>::SCAN - msd_l3_layout<K, VB, W>::WCNT) / 4 >=
           (1u << msd_shape<K, VB, W>::L3_MAX_BITS) + 1u;
}
static_assert(msd_l3_counters_fit<unsigned long long, 0, 0>() && msd_l3_counters_fit<unsigned long long, 8, 0>() &&
                  msd_l3_counters_fit<uint32_t, 0, 0>() && msd_l3_counters_fit<uint32_t, 8, 0>() &&
                  msd_l3_counters_fit<uint32_t, 0, 1>() && msd_l3_counters_fit<uint32_t, 4, 1>() &&
                  msd_l3_counters_fit<uint32_t, 4, 3>(),
              "level 3's counters fit in the ranking's counter words");

/* Sorts the m keys of src (decoded, the top two digits equal) into keys, and their values
 * with VB > 0 from vsrc into vals (or wide), with on-chip LSD passes over the bits below
 * the top two digits, 8 at a time (the slow path, for buckets where many keys share the
 * level-3 digit); src may be keys. Keys warp-striped, as rank.cuh's stable ranking needs.
 * Every key and value is read before the first barrier, and written after the last. */
template <typename K, int VB, int W>
static __device__ __forceinline__ void msd_block_lsd_body(const K *src, const void *vsrc_p, K *keys, void *vals_p,
                                                          unsigned long long *wide, uint32_t m, int cls, int desc,
                                                          unsigned char *smem)
{
    typedef msd_l3_layout<K, VB, W> R;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    enum { THREADS = msd_shape<K, VB, W>::L3_THREADS, ITEMS = msd_shape<K, VB, W>::L3_ITEMS };
    K *s_keys = (K *)(smem + R::KEYS);
    V *s_vals = (V *)(smem + R::VALS);
    V *vals = (V *)vals_p;
    const V *vsrc = (const V *)vsrc_p;
    uint32_t *s_wcnt = (uint32_t *)(smem + R::WCNT);
    uint32_t *s_start = (uint32_t *)(smem + R::START);
    uint32_t *s_scan = (uint32_t *)(smem + R::SCAN);
    const uint32_t first = (threadIdx.x >> 5) * 32u * ITEMS + rdx_lane();
    K key[ITEMS];
    V val[ITEMS]; /* keys only: unused */
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t pos = first + (uint32_t)i * 32u;
        key[i] = pos < m ? rdx_enc(src[pos], cls, desc) : (K)0;
        val[i] = VB && pos < m ? vsrc[pos] : (V)0;
    }
    for (int shift = 0; shift < MSD_SECOND(K); shift += 8) {
        const uint32_t total = rdx_count_tile<K, ITEMS, THREADS>(key, m, shift, 8, s_wcnt);
        if (__syncthreads_or(threadIdx.x < 256u && total == m))
            continue; /* one digit holds every key */
        rdx_offset_tile<THREADS>(total, 8, s_wcnt, s_start, s_scan);
        rdx_rank_scatter<VB, K, V, ITEMS, THREADS>(key, val, m, shift, 8, s_wcnt, s_keys, s_vals);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const uint32_t pos = first + (uint32_t)i * 32u;
            if (pos < m) {
                key[i] = s_keys[pos];
                if (VB)
                    val[i] = s_vals[pos];
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t pos = first + (uint32_t)i * 32u;
        if (pos < m) {
            keys[pos] = rdx_dec(key[i], cls, desc);
            if (VB == 4 && wide)
                wide[pos] = val[i];
            else if (VB)
                vals[pos] = val[i];
        }
    }
}

/* Out of line, so that the fast path keeps its registers; keys only with the signature
 * (and so the code) it had before values were added. */
template <typename K, int W>
static __device__ __noinline__ void msd_block_lsd(const K *src, K *keys, uint32_t m, int cls, int desc,
                                                  unsigned char *smem)
{
    msd_block_lsd_body<K, 0, W>(src, (const void *)0, keys, (void *)0, (unsigned long long *)0, m, cls, desc, smem);
}
template <typename K, int VB, int W>
static __device__ __noinline__ void msd_block_lsd_pairs(const K *src, const void *vsrc, K *keys, void *vals,
                                                        unsigned long long *wide, uint32_t m, int cls, int desc,
                                                        unsigned char *smem)
{
    msd_block_lsd_body<K, VB, W>(src, vsrc, keys, vals, wide, m, cls, desc, smem);
}

/* A level-3 block whose bucket has a long run of several keys: the on-chip LSD passes
 * (msd_block_lsd), counted. Every thread calls it after a barrier that ends the fast
 * path's use of the shared memory; the slow path reads the keys and values again,
 * warp-striped (nothing has been written yet). */
template <typename K, int VB, int W>
static __device__ __forceinline__ void msd_l3_fallback(const rdx_msd_args &a, const K *src, const void *vsrc_p, K *keys,
                                                       void *vals, unsigned long long *wide, uint32_t m,
                                                       unsigned char *smem)
{
    if (threadIdx.x == 0)
        atomicAdd(&a.ctrl[RDX_MSD_SLOW], 1u);
    if constexpr (VB != 0)
        msd_block_lsd_pairs<K, VB, W>(src, vsrc_p, keys, vals, wide, m, a.cls, a.desc, smem);
    else
        msd_block_lsd<K, W>(src, keys, m, a.cls, a.desc, smem);
}

/* The word of level 3's count of long runs (msd_runs_at): after the bins' counters and the
 * end; the runs' digits follow it. */
static constexpr __host__ __device__ uint32_t msd_runs_count(uint32_t bins) { return (bins + 1u + 3u) & ~3u; }

/* Level 3's long runs of one key (more than RDX_MSD_L3_RUN_MAX keys share the level-3
 * digit, and all of them are equal: ids that repeat, a heavy key) with values, in the
 * counter words after the bucket's bins counters (one a bin and the end) up to the block
 * scan's: the number of long runs and their digits, and for each of `batch` teams of warps
 * (a run at a time each: msd_l3_place_runs), a bitmap of its run's keys' indices in the
 * bucket and its words' exclusive prefix counts.
 * Where the bucket's bins leave no room for one run's (the widest digits of the mid and
 * wide shapes of 4-byte pairs), its block takes the on-chip LSD passes: faster there than
 * a narrower digit with room for a few maps (u32/u32 repeated at 2^30 41.7 -> 51.8 ms,
 * H100 round 53). Keys alone need none of it (equal keys go to any slot of their run). */
struct msd_runs_room {
    uint32_t count, maps, words, batch; /* word offsets from the counters (the runs' digits at count + 1); bitmap words a run; teams with a bitmap */
};
template <typename K, int VB, int W>
static constexpr __host__ __device__ msd_runs_room msd_runs_at(uint32_t bins, uint32_t m)
{
    typedef msd_l3_layout<K, VB, W> R;
    const uint32_t avail = (uint32_t)((R::SCAN - R::WCNT) / 4), warps = msd_shape<K, VB, W>::L3_THREADS / 32;
    msd_runs_room r{};
    r.count = msd_runs_count(bins);
    r.maps = (r.count + 1u + m / (RDX_MSD_L3_RUN_MAX + 1u) + 1u + 3u) & ~3u; /* the most long runs m keys hold */
    r.words = (m + 31u) / 32u;
    const uint32_t fit = avail > r.maps ? (avail - r.maps) / (2u * r.words) : 0u;
    r.batch = fit < warps ? fit : warps; /* a team has a warp at least */
    return r;
}
static_assert(msd_runs_count(1u << RDX_MSD4_L3_WIDE_MAX_BITS_PAIRS) < (msd_l3_layout<uint32_t, 4, 1>::SCAN - msd_l3_layout<uint32_t, 4, 1>::WCNT) / 4 &&
                  msd_runs_count(1u << RDX_MSD4_L3_MID_MAX_BITS_PAIRS) < (msd_l3_layout<uint32_t, 4, 3>::SCAN - msd_l3_layout<uint32_t, 4, 3>::WCNT) / 4 &&
                  msd_runs_count(1u << RDX_MSD4_L3_MAX_BITS) < (msd_l3_layout<uint32_t, 8, 0>::SCAN - msd_l3_layout<uint32_t, 8, 0>::WCNT) / 4,
              "the runs' count has a word in every shape of pairs");
static_assert(msd_runs_at<unsigned long long, 8, 0>(1u << RDX_MSD_L3_MAX_BITS, RDX_MSD_L3_CAP_PAIRS).batch >= 1u &&
                  msd_runs_at<unsigned long long, 4, 0>(1u << RDX_MSD_L3_MAX_BITS, RDX_MSD_L3_CAP_PAIRS).batch >= 1u &&
                  msd_runs_at<uint32_t, 8, 0>(1u << RDX_MSD4_L3_MAX_BITS, RDX_MSD_L3_CAP_PAIRS).batch >= 1u &&
                  msd_runs_at<uint32_t, 4, 0>(1u << RDX_MSD4_L3_MAX_BITS, RDX_MSD_L3_CAP_PAIRS).batch >= 1u,
              "the narrow shapes of pairs place runs of one key in every bucket");

/* The least of the warp's 8-byte values. */
static __device__ __forceinline__ unsigned long long msd_warp_min64(unsigned long long x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long y = __shfl_xor_sync(RDX_FULL_WARP, x, o);
        x = y < x ? y : x;
    }
    return x;
}

/* The least key of run [st, en) of the rank words s_keys (8-byte keys: the key's low 48
 * bits above its 16-bit tie-break) that is at least lo, over the warp; ~0 where there is
 * none. */
static __device__ __forceinline__ unsigned long long msd_run_least(const unsigned long long *s_keys, uint32_t st,
                                                                   uint32_t en, unsigned long long lo, uint32_t lane)
{
    unsigned long long least = ~0ull;
    for (uint32_t j = st + lane; j < en; j += 32u) {
        const unsigned long long v = s_keys[j] >> 16;
        least = v >= lo && v < least ? v : least;
    }
    return msd_warp_min64(least);
}

/* The flag of a listed long run (its digit below) that holds several keys. */
#define MSD_RUN_SEVERAL 0x80000000u

/* Synchronizes a team of `size` warps (msd_l3_place_runs): a warp alone, or named barrier
 * team + 1 (0 is __syncthreads') of size * 32 threads. */
static __device__ __forceinline__ void msd_team_sync(uint32_t team, uint32_t size)
{
    if (size == 1u)
        __syncwarp();
    else
        asm volatile("bar.sync %0, %1;" ::"r"(team + 1u), "r"(size * 32u) : "memory");
}

/* Places level 3's long runs of one key with values (msd_runs_at), and those of a few 8-byte
 * keys (MSD_RUN_SEVERAL) a key at a time, each key's copies at the run's next slots, in the
 * order of its keys' indices in the bucket (their input order: the sort is stable), which the tie-breaks
 * of their rank words in s_keys are: a bitmap of the run's indices, its words' exclusive
 * prefix counts (by the team's first warp), then a key's place is the run's start plus the
 * count of the run's indices below its own. The block's warps share out into room.batch
 * teams (one a map; at most 15 of several warps: the named barriers), a run at a time each
 * with no barrier of the block: a warp a team where every warp has a map, two where the
 * narrow shape's fullest buckets leave a map for every other warp. (The whole block a run,
 * a batch of runs between block barriers: u32/u32 repeated at 2^28 9.65 ms, teams 9.12,
 * H100 round 53.) bins, m, high and flip are msd_l3_sort's. Every thread calls it; the
 * block's shared memory is free again after the caller's next barrier. */
template <typename K, int VB, int W, typename V>
static __device__ __noinline__ void msd_l3_place_runs(uint32_t *s_cnt, const K *s_keys, const V *s_vals, K *keys,
                                                      V *vals, unsigned long long *wide, uint32_t bins, uint32_t m,
                                                      K high, K flip)
{
    enum { WARPS = msd_shape<K, VB, W>::L3_THREADS / 32 };
    const msd_runs_room room = msd_runs_at<K, VB, W>(bins, m);
    const uint32_t size = WARPS / room.batch, teams = size > 1u && room.batch > 15u ? 15u : room.batch;
    const uint32_t team = (threadIdx.x >> 5) / size, me_in = threadIdx.x - team * size * 32u, step = size * 32u;
    if (team >= teams)
        return;
    const uint32_t words = room.words, per_lane = (words + 31u) / 32u;
    const uint32_t runs = s_cnt[room.count], lane = rdx_lane();
    uint32_t *const map = s_cnt + room.maps + team * words, *const pre = s_cnt + room.maps + (room.batch + team) * words;
    for (uint32_t k = team; k < runs; k += teams) {
        const uint32_t e = s_cnt[room.count + 1u + k], d = e & ~MSD_RUN_SEVERAL;
        const uint32_t st = d ? s_cnt[d - 1u] : 0u, en = s_cnt[d];
        /* A run of several keys (8-byte ones, msd_l3_runs_many): a key at a time, the least
         * first, each warp of the team finding it over the whole run (no team reduction) */
        bool several = false;
        K v = s_keys[st] >> 16;
        if constexpr (sizeof(K) == 8) {
            several = (e & MSD_RUN_SEVERAL) != 0u;
            if (several)
                v = msd_run_least(s_keys, st, en, 0ull, lane);
        }
        uint32_t base = st; /* where key v's copies start */
        for (;;) {
            for (uint32_t w = me_in; w < words; w += step)
                map[w] = 0u;
            msd_team_sync(team, size);
            for (uint32_t j = st + me_in; j < en; j += step) {
                const K me = s_keys[j];
                const uint32_t at = (uint32_t)me & 0xFFFFu;
                if (me >> 16 == v)
                    atomicOr(&map[at >> 5], 1u << (at & 31u));
            }
            msd_team_sync(team, size);
            if (me_in < 32u) { /* lane l: words l * per_lane .. (l + 1) * per_lane - 1 */
                const uint32_t w0 = lane * per_lane < words ? lane * per_lane : words;
                const uint32_t w1 = w0 + per_lane < words ? w0 + per_lane : words;
                uint32_t total = 0;
                for (uint32_t w = w0; w < w1; ++w)
                    total += (uint32_t)__popc(map[w]);
                uint32_t before = rdx_warp_incl_scan(total, lane) - total;
                for (uint32_t w = w0; w < w1; ++w) {
                    pre[w] = before;
                    before += (uint32_t)__popc(map[w]);
                }
            }
            msd_team_sync(team, size);
            for (uint32_t j = st + me_in; j < en; j += step) {
                const K me = s_keys[j];
                if (me >> 16 != v)
                    continue;
                const uint32_t at = (uint32_t)me & 0xFFFFu, w = at >> 5;
                const uint32_t place = base + pre[w] + (uint32_t)__popc(map[w] & ((1u << (at & 31u)) - 1u));
                keys[place] = (high | me >> 16) ^ flip;
                if (wide)
                    wide[place] = s_vals[j];
                else
                    vals[place] = s_vals[j];
            }
            const uint32_t copies = pre[words - 1u] + (uint32_t)__popc(map[words - 1u]);
            msd_team_sync(team, size); /* the map is the next key's or run's */
            if constexpr (sizeof(K) == 8) {
                if (several) {
                    base += copies;
                    v = msd_run_least(s_keys, st, en, (unsigned long long)v + 1u, lane);
                    if (v != ~0ull)
                        continue;
                }
            }
            (void)copies;
            break;
        }
    }
}

/* Level 3's long runs of several keys, keys alone (msd_l3_mixed_runs, msd_l3_mixed_runs8):
 * in the counter words after the bucket's bins counters, the number of such runs and their
 * digits, a bitmap of the digits listed, and (4-byte keys) 32 counters a warp. */
struct msd_mixed_room {
    uint32_t count, map, warp; /* word offsets from the counters (the runs' digits at count + 1) */
};
template <typename K, int W> static constexpr __host__ __device__ msd_mixed_room msd_mixed_at(uint32_t bins, uint32_t m)
{
    msd_mixed_room r{};
    r.count = msd_runs_count(bins);
    r.map = r.count + 1u + m / (RDX_MSD_L3_RUN_MAX + 1u) + 1u; /* the most long runs m keys hold */
    r.warp = r.map + (bins + 31u) / 32u;
    return r;
}
template <int W> static constexpr bool msd_mixed_fits()
{
    typedef msd_l3_layout<uint32_t, 0, W> R;
    typedef msd_shape<uint32_t, 0, W> S;
    return msd_mixed_at<uint32_t, W>(1u << S::L3_MAX_BITS, S::L3_CAP).warp + S::L3_THREADS <= (R::SCAN - R::WCNT) / 4;
}
static_assert(msd_mixed_fits<0>() && msd_mixed_fits<1>(), "the mixed runs' words fit in level 3's counter words");
/* 8-byte keys alone list their long runs of several keys the same way (msd_l3_mixed_runs8
 * needs no counters of its own). */
template <int W> static constexpr bool msd_mixed8_fits()
{
    typedef msd_l3_layout<unsigned long long, 0, W> R;
    typedef msd_shape<unsigned long long, 0, W> S;
    return msd_mixed_at<unsigned long long, W>(1u << S::L3_MAX_BITS, S::L3_CAP).warp <= (R::SCAN - R::WCNT) / 4;
}
static_assert(msd_mixed8_fits<0>() && msd_mixed8_fits<RDX_MSD_L3_WIDE8>(), "8-byte keys' mixed runs fit in level 3's counter words");

/* Sorts the long runs of several keys that msd_l3_sort listed (4-byte keys alone), a warp a
 * run: the keys of a run share every bit from `shift` up, and it counts them by the bits
 * below, 32 of their values a round (one a lane), then writes each key, decoded, at the
 * next slot of its value (equal keys in any order). In production the digit leaves at
 * most 5 bits below it (one round); a lowered route minimum (tests) leaves up to 8. */
template <typename K, int W>
static __device__ __noinline__ void msd_l3_mixed_runs(uint32_t *s_cnt, const K *s_keys, K *keys, uint32_t bins,
                                                      uint32_t m, int shift, K high, K flip)
{
    static_assert(sizeof(K) == 4, "4-byte keys: few bits below the digit");
    enum { WARPS = msd_shape<K, 0, W>::L3_THREADS / 32 };
    const msd_mixed_room room = msd_mixed_at<K, W>(bins, m);
    const uint32_t runs = s_cnt[room.count], lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t values = 1u << shift, low = values - 1u;
    uint32_t *cnt = s_cnt + room.warp + warp * 32u;
    for (uint32_t k = warp; k < runs; k += WARPS) {
        const uint32_t d = s_cnt[room.count + 1u + k], st = d ? s_cnt[d - 1u] : 0u, en = s_cnt[d];
        uint32_t at = st;
        for (uint32_t first = 0; first < values; first += 32u) {
            cnt[lane] = 0u;
            __syncwarp();
            for (uint32_t j = st + lane; j < en; j += 32u) {
                const uint32_t v = ((uint32_t)(s_keys[j] >> 16) & low) - first;
                if (v < 32u)
                    atomicAdd(&cnt[v], 1u);
            }
            __syncwarp();
            const uint32_t c = cnt[lane], incl = rdx_warp_incl_scan(c, lane);
            cnt[lane] = at + incl - c;
            at += __shfl_sync(RDX_FULL_WARP, incl, 31);
            __syncwarp();
            for (uint32_t j = st + lane; j < en; j += 32u) {
                const K me = s_keys[j];
                const uint32_t v = ((uint32_t)(me >> 16) & low) - first;
                if (v < 32u)
                    keys[atomicAdd(&cnt[v], 1u)] = (high | me >> 16) ^ flip;
            }
            __syncwarp();
        }
    }
}

/* Whether a long run of 8-byte keys that msd_l3_sort listed at word `list` (the count, then
 * the digits) holds more than RDX_MSD_L3_MIXED_VALUES distinct keys, a warp a run:
 * msd_l3_mixed_runs8 and msd_l3_place_runs take one pass over a run for each of its keys,
 * so such a bucket goes to the on-chip LSD passes (nothing has been written yet). A run of
 * several keys (but not too many) gets MSD_RUN_SEVERAL in its list word. */
template <int WARPS>
static __device__ __noinline__ bool msd_l3_runs_many(uint32_t *s_cnt, const unsigned long long *s_keys,
                                                     uint32_t list)
{
    const uint32_t runs = s_cnt[list], lane = rdx_lane(), warp = threadIdx.x >> 5;
    for (uint32_t k = warp; k < runs; k += WARPS) {
        const uint32_t d = s_cnt[list + 1u + k], st = d ? s_cnt[d - 1u] : 0u, en = s_cnt[d];
        unsigned long long lo = 0;
        uint32_t values = 0;
        for (;; ++values) {
            const unsigned long long least = msd_run_least(s_keys, st, en, lo, lane);
            if (least == ~0ull)
                break;
            if (values == (uint32_t)RDX_MSD_L3_MIXED_VALUES)
                return true;
            lo = least + 1u;
        }
        __syncwarp(); /* every lane has read the word */
        if (values > 1u && lane == 0u)
            s_cnt[list + 1u + k] = d | MSD_RUN_SEVERAL;
    }
    return false;
}

/* Sorts the long runs of several keys that msd_l3_sort listed (8-byte keys alone, at most
 * RDX_MSD_L3_MIXED_VALUES distinct keys a run: msd_l3_runs_many), a warp a run: the least
 * key not yet written, all its copies at the run's next slots (a ballot a round of 32), then
 * the next, each pass over the run also finding the key after the one it writes. Run k
 * goes to warp k (and on): k < runs <= m / (RUN_MAX + 1) keeps every lane below m, where
 * `high` holds the bucket's shared top bits (msd_l3_sort). */
template <int W>
static __device__ __noinline__ void msd_l3_mixed_runs8(const uint32_t *s_cnt, const unsigned long long *s_keys,
                                                        unsigned long long *keys, uint32_t bins, uint32_t m,
                                                        unsigned long long high, unsigned long long flip)
{
    enum { WARPS = msd_shape<unsigned long long, 0, W>::L3_THREADS / 32 };
    const msd_mixed_room room = msd_mixed_at<unsigned long long, W>(bins, m);
    const uint32_t runs = s_cnt[room.count], lane = rdx_lane(), warp = threadIdx.x >> 5;
    const uint32_t below = (1u << lane) - 1u;
    for (uint32_t k = warp; k < runs; k += WARPS) {
        const uint32_t d = s_cnt[room.count + 1u + k] & ~MSD_RUN_SEVERAL, st = d ? s_cnt[d - 1u] : 0u, en = s_cnt[d];
        uint32_t at = st;
        unsigned long long key = msd_run_least(s_keys, st, en, 0, lane);
        while (key != ~0ull) {
            unsigned long long next = ~0ull;
            for (uint32_t base = st; base < en; base += 32u) {
                const uint32_t j = base + lane;
                const unsigned long long v = j < en ? s_keys[j] >> 16 : ~0ull;
                const unsigned mask = __ballot_sync(RDX_FULL_WARP, v == key);
                if (v == key)
                    keys[at + __popc(mask & below)] = (high | key) ^ flip;
                at += __popc(mask);
                next = v > key && v < next ? v : next;
            }
            key = msd_warp_min64(next);
        }
    }
}

/* Sorts a bucket of m keys (the top two digits equal, and with the deep level's digit that
 * too) from src into keys_a + begin, and with VB > 0 its values from vsrc into vals_a +
 * begin (or vals_wide), src and vsrc being keys_a + begin and vals_a + begin or of B
 * (m <= level 3's capacity), by one block:
 *   1. count the keys by the level-3 digit (((key >> shift) & mask) - sub: bins of them,
 *      about as many as the bucket has keys) with shared-memory atomics;
 *   2. scan the counts, place every key's rank word at the next free slot of its digit
 *      (another atomic), with VB > 0 its value there too: the key shifted up 16 bits (the
 *      top 16, which every key of a level-2 bucket shares, fall out) and below them the
 *      key's tie-break, its slot (keys only) or its index within the bucket (pairs);
 *   3. each key's final place within its run of equal digits (a few keys) is the number
 *      of rank words of the run below its own: write the key, decoded, and its value.
 * Keys only, the order within a digit after step 2 does not matter (equal keys are
 * indistinguishable); with values the index makes the result stable whatever that order.
 * One compare of rank words replaced a key compare, a tie test and a second shared load
 * (H200, round 43: docs/performance.md, "Round 43").
 * The layout is row-striped so that short buckets keep every warp busy. Every key and value
 * is read before the first barrier (src may be the destination).
 * A run longer than RDX_MSD_L3_RUN_MAX keys is placed without comparisons where it is one
 * key repeated (msd_runs_at); one of several keys is counted by its bits below the digit
 * where the keys are 4 bytes alone (msd_l3_mixed_runs), taken a key at a time where they
 * are 8 bytes and few (msd_l3_runs_many; msd_l3_mixed_runs8 alone, msd_l3_place_runs
 * with values), and otherwise sends the block to msd_block_lsd. */
template <typename K, int VB, int W>
static __device__ __forceinline__ void msd_l3_sort(const rdx_msd_args &a, const K *src, const void *vsrc_p,
                                                   size_t begin, uint32_t m, int shift, uint32_t mask, uint32_t sub,
                                                   uint32_t bins, unsigned char *smem)
{
    typedef msd_l3_layout<K, VB, W> R;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    enum {
        THREADS = msd_shape<K, VB, W>::L3_THREADS,
        ITEMS = msd_shape<K, VB, W>::L3_ITEMS,
        PER = ((1 << msd_shape<K, VB, W>::L3_MAX_BITS) + THREADS - 1) / THREADS
    };
    /* long runs of several keys, keys alone: 4-byte ones counted by their low bits
     * (msd_l3_mixed_runs), 8-byte ones taken a key at a time (msd_l3_mixed_runs8) */
    constexpr bool MIXED = VB == 0;
    K *s_keys = (K *)(smem + R::KEYS);
    V *s_vals = (V *)(smem + R::VALS);
    uint32_t *s_cnt = (uint32_t *)(smem + R::WCNT);
    uint32_t *s_scan = (uint32_t *)(smem + R::SCAN);

    K *keys = (K *)a.keys_a + begin;
    V *vals = (V *)a.vals_a + begin; /* keys only: unused */
    const V *vsrc = (const V *)vsrc_p;
    /* 64-bit indices (an argsort): the result, where this block writes the 4-byte ones */
    unsigned long long *wide = VB == 4 && a.vals_wide ? (unsigned long long *)a.vals_wide + begin : NULL;
    if (m == 1) {
        if (threadIdx.x == 0) {
            keys[0] = src[0];
            if (wide)
                wide[0] = vsrc[0];
            else if (VB)
                vals[0] = vsrc[0];
        }
        return;
    }
    /* The loads are issued before the counters are cleared, so that their latency and the
     * codec's (src[0]) overlap the clearing and its barrier. */
    K key[ITEMS];
    V val[ITEMS]; /* keys only: unused */
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t pos = (uint32_t)i * THREADS + threadIdx.x;
        key[i] = pos < m ? src[pos] : (K)0;
        if (VB)
            val[i] = pos < m ? vsrc[pos] : (V)0;
    }
    const K flip = msd_flip(src[0], a.cls, a.desc); /* the bucket's codec */
    for (uint32_t j = threadIdx.x; j < bins; j += THREADS)
        s_cnt[j] = 0u;
    if (VB != 0 && threadIdx.x == 0)
        s_cnt[msd_runs_count(bins)] = 0u; /* the long runs listed (msd_runs_at) */
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        key[i] ^= flip;
    __syncthreads();

#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
        if ((uint32_t)i * THREADS + threadIdx.x < m)
            atomicAdd(&s_cnt[rdx_digit(key[i], shift, mask) - sub], 1u);
    __syncthreads();

    /* Exclusive scan of the bins, PER consecutive bins per thread; a run too long for the
     * comparisons is noticed here (with values, its digit listed: msd_runs_at). */
    uint32_t c[PER], sum = 0;
    bool long_run = false;
    const uint32_t lo = threadIdx.x * PER;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        c[j] = lo + (uint32_t)j < bins ? s_cnt[lo + (uint32_t)j] : 0u;
        sum += c[j];
        long_run |= c[j] > (uint32_t)RDX_MSD_L3_RUN_MAX;
    }
    uint32_t run = rdx_block_excl_scan<THREADS>(sum, s_scan);
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        if (lo + (uint32_t)j < bins)
            s_cnt[lo + (uint32_t)j] = run;
        run += c[j];
        if (VB != 0 && c[j] > (uint32_t)RDX_MSD_L3_RUN_MAX && msd_runs_at<K, VB, W>(bins, m).batch >= 1u)
            s_cnt[msd_runs_count(bins) + 1u + atomicAdd(&s_cnt[msd_runs_count(bins)], 1u)] = lo + (uint32_t)j;
    }
    const bool any_long = __syncthreads_or(long_run);
    if (VB != 0 && any_long && msd_runs_at<K, VB, W>(bins, m).batch == 0u) { /* no room for the runs */
        msd_l3_fallback<K, VB, W>(a, src, vsrc_p, keys, (void *)vals, wide, m, smem);
        return;
    }

    /* Placing a key bumps its digit's start: afterwards s_cnt[d] is where digit d ends.
     * What goes to the slot is the key's rank word: the key shifted up by 16 bits (the top
     * 16 bits, which every key of the bucket shares, fall out), its tie-break below: the
     * index within the bucket (pairs: its input order among equal keys), or the slot
     * (keys alone). Every rank word of a bucket differs from the others, and they order as
     * the keys and their ties do. */
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t pos = (uint32_t)i * THREADS + threadIdx.x;
        if (pos < m) {
            const uint32_t slot = atomicAdd(&s_cnt[rdx_digit(key[i], shift, mask) - sub], 1u);
            s_keys[slot] = key[i] << 16 | (K)(VB ? pos : slot);
            if (VB)
                s_vals[slot] = val[i];
        }
    }
    const K high = key[0] & ~(~(K)0 >> 16); /* the bits every key of the bucket shares */
    if constexpr (MIXED) {
        if (any_long) { /* no mixed run listed yet */
            const msd_mixed_room room = msd_mixed_at<K, W>(bins, m);
            for (uint32_t j = threadIdx.x; j <= (bins + 31u) / 32u; j += THREADS)
                s_cnt[j ? room.map + j - 1u : room.count] = 0u;
        }
    }
    __syncthreads();

    /* A long run is placed without comparisons where it is one key repeated (its rank
     * words differ only in their tie-breaks); one of several keys is listed for
     * msd_l3_mixed_runs (4-byte keys alone), taken a key at a time where it holds few
     * 8-byte keys, or sends the block to the on-chip LSD passes (nothing has been written
     * yet). */
    if (any_long) {
        bool mixed = false;
        for (uint32_t pos = threadIdx.x; pos < m; pos += THREADS) {
            const K me = s_keys[pos];
            const uint32_t d = rdx_digit(high | me >> 16, shift, mask) - sub;
            const uint32_t st = d ? s_cnt[d - 1u] : 0u;
            const bool here = s_cnt[d] - st > (uint32_t)RDX_MSD_L3_RUN_MAX && (me >> 16) != (s_keys[st] >> 16);
            if constexpr (MIXED) {
                if (here) { /* the first key to find the run mixed lists it */
                    const msd_mixed_room room = msd_mixed_at<K, W>(bins, m);
                    const uint32_t bit = 1u << (d & 31u);
                    if (!(atomicOr(&s_cnt[room.map + (d >> 5)], bit) & bit))
                        s_cnt[room.count + 1u + atomicAdd(&s_cnt[room.count], 1u)] = d;
                }
            }
            mixed |= here;
        }
        if constexpr (sizeof(K) == 8) { /* a few keys a run: a key at a time (the list as msd_l3_sort made it) */
            const uint32_t list = MIXED ? msd_mixed_at<K, W>(bins, m).count : msd_runs_count(bins);
            if (__syncthreads_or(mixed) && __syncthreads_or(msd_l3_runs_many<THREADS / 32>(s_cnt, (const unsigned long long *)s_keys, list))) {
                msd_l3_fallback<K, VB, W>(a, src, vsrc_p, keys, (void *)vals, wide, m, smem);
                return;
            }
        } else if (__syncthreads_or(mixed) && !MIXED) {
            msd_l3_fallback<K, VB, W>(a, src, vsrc_p, keys, (void *)vals, wide, m, smem);
            return;
        }
    }

    for (uint32_t pos = threadIdx.x; pos < m; pos += THREADS) {
        const K me = s_keys[pos], k = high | me >> 16;
        const uint32_t d = rdx_digit(k, shift, mask) - sub;
        const uint32_t st = d ? s_cnt[d - 1u] : 0u, en = s_cnt[d];
        /* The key's place in its run is how many rank words of the run are smaller
         * (rdx_rank_words_below). A long run (one key) keeps its slots, keys alone; with
         * values it is placed below. */
        uint32_t r = st;
        if (en - st > (uint32_t)RDX_MSD_L3_RUN_MAX) {
            if (VB)
                continue;
            if constexpr (MIXED)
                if (s_cnt[msd_mixed_at<K, W>(bins, m).map + (d >> 5)] >> (d & 31u) & 1u)
                    continue; /* a run of several keys: msd_l3_mixed_runs */
            r = pos;
        } else {
            r = rdx_rank_words_below<K>(s_keys, st, en, me);
        }
        keys[r] = k ^ flip;
        if (VB) {
            if (wide)
                wide[r] = s_vals[pos];
            else
                vals[r] = s_vals[pos];
        }
    }
    if constexpr (VB != 0)
        if (any_long)
            msd_l3_place_runs<K, VB, W>(s_cnt, s_keys, (const V *)s_vals, keys, vals, wide, bins, m, high, flip);
    if constexpr (MIXED && sizeof(K) == 4)
        if (any_long)
            msd_l3_mixed_runs<K, W>(s_cnt, s_keys, keys, bins, m, shift, high, flip);
    if constexpr (MIXED && sizeof(K) == 8)
        if (any_long)
            msd_l3_mixed_runs8<W>(s_cnt, s_keys, keys, bins, m, high, flip);
}

/* The sum of the eight 4-bit counters of x. */
static __device__ __forceinline__ uint32_t msd_nibble_sum(uint32_t x)
{
    const uint32_t bytes = (x & 0x0f0f0f0fu) + ((x >> 4) & 0x0f0f0f0fu); /* each at most 30 */
    return (bytes * 0x01010101u) >> 24;
}

/* Sorts a bucket of m 4-byte keys alone (m <= level 3's capacity, every key's code equal
 * above its low `rem` bits: rem = 16 less the drop) from src into dst (src may be dst) by
 * counting every value of those bits, where msd_l3_sort takes a digit of them and
 * comparisons (about 128 instructions a key, ncu round 35):
 *   1. each key adds 1 to its value's 4-bit counter (8 to a word); the counter's old
 *      value is the key's place among the equal keys counted before it (keys alone: equal
 *      keys are interchangeable, so that order does not matter);
 *   2. a scan of the words gives each word's first slot;
 *   3. a key's slot: its word's first, the counters of the smaller values in its word,
 *      and its place; the keys go to shared memory there and out in order.
 * 16 equal keys would overflow a counter: then nothing is written and false returned
 * (the caller sorts the bucket by msd_l3_counts_only in the wide shape, msd_l3_sort in
 * the narrow one). Every key is read before the first
 * barrier. */
template <int THREADS, int ITEMS, int W>
static __device__ __forceinline__ bool msd_l3_count_all(const uint32_t *src, uint32_t *dst, uint32_t m, int rem,
                                                        uint32_t flip, unsigned char *smem)
{
    typedef msd_count_layout<W> L;
    enum { PER = L::WORDS / THREADS }; /* counter words a thread scans, at most */
    static_assert(PER % 4 == 0 && PER <= 16, "whole 16-byte loads, a few per thread");
    uint32_t *s_out = (uint32_t *)(smem + L::OUT);
    uint32_t *s_cnt = (uint32_t *)(smem + L::CNT);
    uint16_t *s_first = (uint16_t *)(smem + L::FIRST);
    uint32_t *s_scan = (uint32_t *)(smem + L::SCAN);
    const uint32_t words = 1u << (rem - 3), vmask = (1u << rem) - 1u;
    for (uint32_t j = threadIdx.x; j < words / 4u; j += THREADS)
        ((uint4 *)s_cnt)[j] = make_uint4(0u, 0u, 0u, 0u);
    /* the value below level 2 of each key, then from bit 16 its place among equal keys */
    uint32_t item[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const uint32_t pos = (uint32_t)i * THREADS + threadIdx.x;
        item[i] = pos < m ? (src[pos] ^ flip) & vmask : 0u;
    }
    const uint32_t high = (src[0] ^ flip) & ~vmask; /* the bits every key shares */
    __syncthreads();
    bool full = false;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        if ((uint32_t)i * THREADS + threadIdx.x < m) {
            const uint32_t v = item[i], sh = (v & 7u) * 4u;
            const uint32_t place = (atomicAdd(&s_cnt[v >> 3], 1u << sh) >> sh) & 15u;
            full |= place == 15u;
            item[i] = v | (place << 16);
        }
    }
    if (__syncthreads_or(full))
        return false;

    /* Each thread's run of PER words (those below `words`): their sums, two 16-bit sums to
     * a register, then each word's first slot. */
    const uint32_t w0 = threadIdx.x * PER;
    uint32_t sums[PER / 2], total = 0;
#pragma unroll
    for (int q = 0; q < PER / 4; ++q) {
        const uint4 c = w0 < words ? ((const uint4 *)s_cnt)[w0 / 4u + (uint32_t)q] : make_uint4(0u, 0u, 0u, 0u);
        const uint32_t a = msd_nibble_sum(c.x), b = msd_nibble_sum(c.y), d = msd_nibble_sum(c.z), e = msd_nibble_sum(c.w);
        sums[2 * q] = a | (b << 16);
        sums[2 * q + 1] = d | (e << 16);
        total += a + b + d + e;
    }
    uint32_t at = rdx_block_excl_scan<THREADS>(total, s_scan);
    if (w0 < words) {
#pragma unroll
        for (int q = 0; q < PER / 2; ++q) {
            const uint32_t lo = at, hi = at + (sums[q] & 0xffffu);
            at = hi + (sums[q] >> 16);
            ((uint32_t *)s_first)[w0 / 2u + (uint32_t)q] = lo | (hi << 16);
        }
    }
    __syncthreads();

#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        if ((uint32_t)i * THREADS + threadIdx.x < m) {
            const uint32_t v = item[i] & 0xffffu, w = v >> 3, sh = (v & 7u) * 4u;
            const uint32_t below = msd_nibble_sum(s_cnt[w] & ((1u << sh) - 1u)); /* smaller values, this word */
            s_out[s_first[w] + below + (item[i] >> 16)] = v;
        }
    }
    __syncthreads();
    for (uint32_t pos = threadIdx.x; pos < m; pos += THREADS)
        dst[pos] = (high | s_out[pos]) ^ flip;
    return true;
}

/* The word of msd_counts_layout's counters that holds value pair w (values 2w and 2w + 1):
 * thread t scans the 16-byte chunks 8t to 8t + 7 (values 64t to 64t + 63), and chunk c
 * lies at 8 (c / 8) + ((c ^ c / 8) % 8), so that the j-th chunks of 8 threads fall in
 * different banks. */
static __device__ __forceinline__ uint32_t msd_counts_word(uint32_t w)
{
    const uint32_t c = w >> 2;
    return ((c & ~7u) | ((c ^ (c >> 3)) & 7u)) << 2 | (w & 3u);
}

/* The running maximum of the eight 16-bit values of x in order, from run (updated). */
static __device__ __forceinline__ uint4 msd_run_max8(uint4 x, uint32_t &run)
{
    uint32_t w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const uint32_t lo = run = max(run, w[q] & 0xffffu);
        run = max(run, w[q] >> 16);
        w[q] = lo | run << 16;
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Level 3's counts-only shape: sorts a bucket of m 4-byte keys alone (m <= the shape's
 * capacity, every key's code equal above its low `rem` bits) from src into dst (src may
 * be dst) from the counts of those bits' values alone, which is all a bucket of keys alone
 * holds; no key is kept, so a bucket can be twice the wide shape's:
 *   1. each key adds 1 to its value's 16-bit counter (none can overflow: the capacity is
 *      below 2^16);
 *   2. a scan of the counters (64 values a thread) gives each value present its first
 *      slot, where the value is written (the other slots were zeroed);
 *   3. every slot's value is the greatest written at or before it: a running maximum over
 *      each thread's rows of 8 slots, then over the block; then the slots go out in order
 *      with the bits every key shares.
 * Each step costs the same whatever the keys (a value repeated thousands of times costs
 * one slot in step 2), and every key is read before the first write. */
template <int THREADS>
static __device__ __forceinline__ void msd_l3_counts_only(const uint32_t *src, uint32_t *dst, uint32_t m, int rem,
                                                          uint32_t flip, unsigned char *smem)
{
    typedef msd_counts_layout L;
    enum { BATCH = RDX_MSD4_L3_COUNTS_BATCH, ROWS = L::S::L3_ITEMS / 8 }; /* the most 16-byte rows of OUT a thread */
    static_assert(ROWS % 2 == 1, "an odd number of rows: 8 threads' rows in different banks");
    uint32_t *s_cnt = (uint32_t *)(smem + L::CNT);
    uint16_t *s_out = (uint16_t *)(smem + L::OUT);
    uint32_t *s_wmax = (uint32_t *)(smem + L::WMAX);
    uint32_t *s_scan = (uint32_t *)(smem + L::SCAN);
    const uint32_t t = threadIdx.x, lane = rdx_lane(), warp = t >> 5, vmask = (1u << rem) - 1u;
    const uint32_t high = (src[0] ^ flip) & ~vmask; /* the bits every key shares */
#pragma unroll
    for (int j = 0; j < 8; ++j)
        ((uint4 *)s_cnt)[(uint32_t)j * THREADS + t] = make_uint4(0u, 0u, 0u, 0u);
    for (uint32_t j = t; j < (m + 1u) / 2u; j += THREADS)
        ((uint32_t *)s_out)[j] = 0u;
    __syncthreads();

    for (uint32_t p0 = t; p0 < m; p0 += THREADS * BATCH) {
        uint32_t k[BATCH];
#pragma unroll
        for (int i = 0; i < BATCH; ++i) {
            const uint32_t pos = p0 + (uint32_t)i * THREADS;
            k[i] = pos < m ? src[pos] : 0u;
        }
#pragma unroll
        for (int i = 0; i < BATCH; ++i)
            if (p0 + (uint32_t)i * THREADS < m) {
                const uint32_t v = (k[i] ^ flip) & vmask;
                atomicAdd(&s_cnt[msd_counts_word(v >> 1)], 1u << ((v & 1u) << 4));
            }
    }
    __syncthreads();

    const uint4 *my_cnt = (const uint4 *)s_cnt + t * 8u;
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        const uint4 c = my_cnt[(uint32_t)j ^ (t & 7u)];
        sum += (c.x & 0xffffu) + (c.x >> 16) + (c.y & 0xffffu) + (c.y >> 16) + (c.z & 0xffffu) + (c.z >> 16) +
               (c.w & 0xffffu) + (c.w >> 16);
    }
    uint32_t slot = rdx_block_excl_scan<THREADS>(sum, s_scan);
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        const uint4 c = my_cnt[(uint32_t)j ^ (t & 7u)];
        const uint32_t cw[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
        for (int q = 0; q < 4; ++q)
            if (cw[q]) {
                const uint32_t v = t * 64u + (uint32_t)(j * 8 + q * 2), lo = cw[q] & 0xffffu;
                if (lo)
                    s_out[slot] = (uint16_t)v;
                slot += lo;
                if (cw[q] >> 16)
                    s_out[slot] = (uint16_t)(v + 1u);
                slot += cw[q] >> 16;
            }
    }
    __syncthreads();

    /* Thread t's rows of 8 slots: an odd number of them (slots past m are never written
     * out and lie after every slot that is). */
    const uint32_t rows = ((m + THREADS * 8u - 1u) / (THREADS * 8u)) | 1u;
    uint4 *my_out = (uint4 *)s_out + t * rows;
    uint32_t top = 0;
    for (uint32_t r = 0; r < rows; ++r)
        msd_run_max8(my_out[r], top);
    uint32_t incl = top; /* the block's running maximum of the threads' greatest values */
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const uint32_t y = __shfl_up_sync(RDX_FULL_WARP, incl, o);
        if (lane >= (uint32_t)o)
            incl = max(incl, y);
    }
    if (lane == 31)
        s_wmax[warp] = incl;
    __syncthreads();
    uint32_t run = __reduce_max_sync(RDX_FULL_WARP, lane < warp ? s_wmax[lane] : 0u);
    const uint32_t before = __shfl_up_sync(RDX_FULL_WARP, incl, 1);
    run = lane ? max(run, before) : run;
    for (uint32_t r = 0; r < rows; ++r)
        my_out[r] = msd_run_max8(my_out[r], run);
    __syncthreads();
    for (uint32_t pos = t; pos < m; pos += THREADS)
        dst[pos] = (high | s_out[pos]) ^ flip;
}

/* ceil(log2(x)) for x >= 1 */
static __device__ __forceinline__ int msd_ceil_log2(uint32_t x) { return x > 1u ? 32 - __clz((int)(x - 1u)) : 0; }

/* Where level-2 bucket b (< MSD_BUCKETS2) ends in A. */
static __device__ __forceinline__ uint32_t msd_bucket_end(const rdx_msd_args &a, uint32_t b)
{
    return b + 1u < MSD_BUCKETS2 ? a.bases2[b + 1u] : (uint32_t)a.n;
}

/* Level-2 bucket b's bounds (both 0 past the last bucket) into bounds[0..1] in shared
 * memory, copied without waiting (cp.async; cp.async.wait_all before they are read). Past
 * the last bucket nothing is copied, so no copy is in flight when a block leaves its loop
 * (its last bucket b has b + 2 * grid beyond the last). */
static __device__ __forceinline__ void msd_bounds_async(const rdx_msd_args &a, uint32_t b, uint32_t *bounds)
{
    const uint32_t to = (uint32_t)__cvta_generic_to_shared(bounds);
    if (b >= MSD_BUCKETS2) {
        bounds[0] = bounds[1] = 0u;
        return;
    }
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(to), "l"(a.bases2 + b) : "memory");
    if (b + 1u < MSD_BUCKETS2)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(to + 4u), "l"(a.bases2 + b + 1u) : "memory");
    else
        bounds[1] = (uint32_t)a.n;
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Level-2 bucket b in place in A, unless it is empty or above level 3's capacity (the
 * deep level's); `below` bits lie below level 2 (16 less the drop for 4-byte keys). */
template <typename K, int VB, int W>
static __device__ __forceinline__ void msd_l3_bucket(const rdx_msd_args &a, uint32_t b, int below,
                                                     unsigned char *smem)
{
    const uint32_t begin = a.bases2[b];
    const uint32_t end = msd_bucket_end(a, b);
    const uint32_t m = end - begin;
    if (m == 0 || m > (uint32_t)msd_shape<K, VB, W>::L3_CAP)
        return;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    /* The level-3 digit: the route's for its n (a.l3_bits), or in the mid and wide shapes
     * of pairs and 8-byte keys' wide shape the bucket's own, about 2^MSD_L3_BIN_KEYS_LOG2
     * keys a bin (a shape serves buckets of several sizes); never more bits than lie below
     * level 2 (MSD_MAX_DROP keeps the narrow shapes' digits within them, not the wider
     * ones). */
    int bits = a.l3_bits;
    if constexpr (W != 0 && (VB != 0 || sizeof(K) == 8)) {
        bits = msd_ceil_log2(((m - 1u) >> MSD_L3_BIN_KEYS_LOG2(K)) + 1u);
        bits = bits < 8 ? 8 : bits > msd_shape<K, VB, W>::L3_MAX_BITS ? msd_shape<K, VB, W>::L3_MAX_BITS : bits;
        bits = bits < below ? bits : below;
    }
    const int shift = below - bits;
    const uint32_t bins = 1u << bits;
    const int rem = shift + bits; /* the bits below level 2 */
    if constexpr (sizeof(K) == 4 && VB == 0) {
        const uint32_t *src = (const uint32_t *)a.keys_a + begin, flip = (uint32_t)msd_flip(src[0], a.cls, a.desc);
        /* The counts-only shape counts every bucket; the others first try 4-bit counters.
         * After 16 equal keys overflow them, the wide shape (whose block holds the
         * counts-only one's 16-bit counters, which no run overflows: u32 repeated at 2^29
         * 11.55 -> 10.27 ms, H100 round 53) counts again; the narrow shape's blocks share
         * a multiprocessor, so it keeps msd_l3_sort. */
        bool counts = W == 2;
        if constexpr (W != 2) {
            if (m >= (1u << rem) >> RDX_MSD4_L3_COUNT_VALUES_LOG2) {
                if (msd_l3_count_all<msd_shape<K, VB, W>::L3_THREADS, msd_shape<K, VB, W>::L3_ITEMS, W>(
                        src, (uint32_t *)a.keys_a + begin, m, rem, flip, smem))
                    return;
                __syncthreads(); /* 16 equal keys: the shared memory is the next step's */
                counts = W == 1;
            }
        }
        if constexpr (W != 0) {
            if (counts) {
                msd_l3_counts_only<msd_shape<K, VB, W>::L3_THREADS>(src, (uint32_t *)a.keys_a + begin, m, rem, flip,
                                                                    smem);
                return;
            }
        }
    }
    if constexpr (W != 2)
        msd_l3_sort<K, VB, W>(a, (const K *)a.keys_a + begin, (const V *)a.vals_a + begin, begin, m, shift,
                              bins - 1u, 0u, bins, smem);
}

/* Asks the L2 cache for bytes at p (rounded out to 16-byte chunks, within the pages that
 * hold p's bytes), without waiting. */
static __device__ __forceinline__ void msd_prefetch_l2(const void *p, size_t bytes)
{
    const size_t lo = (size_t)p & ~(size_t)15, hi = ((size_t)p + bytes + 15) & ~(size_t)15;
    if (hi > lo)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(lo), "r"((uint32_t)(hi - lo)) : "memory");
}

/* Level-2 buckets b, b + grid, ... per block (a grid of RDX_MSD_L3_WAVES times the
 * resident blocks: where the route is not on, a few thousand blocks return at once). A
 * block waits for each bucket's bounds and then its keys: with RDX_MSD_L3_PREFETCH its
 * first thread asks the L2 cache for the block's next bucket (whose bounds it read a
 * bucket earlier, and where level 3 sorts it) as a bucket begins, in the wide shape (one
 * block a multiprocessor, nothing else to do while it waits) and, where the buckets are
 * small enough that the L2 cache holds the next ones beside the current ones, in the
 * narrow shape of pairs (tuning.h). */
template <typename K, int VB, int W>
__global__ void __launch_bounds__(msd_shape<K, VB, W>::L3_THREADS, msd_shape<K, VB, W>::L3_MIN_BLOCKS)
    msd_block_kernel(const rdx_msd_args a)
{
    rdx_chain_enter();
    extern __shared__ __align__(16) unsigned char smem[];
    if (a.ctrl[RDX_MSD_STATE] != RDX_MSD_ON)
        return;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    const int below = MSD_SECOND(K) - (int)a.ctrl[RDX_MSD_DROP];
    /* The narrow shape of pairs (4-byte keys alone are counted; 8-byte keys alone, at 40
     * registers, spilled in the sort's loops with the prefetch's state and lost 2-5% at
     * 2^26), where the buckets are small enough. */
    constexpr bool may_prefetch = RDX_MSD_L3_PREFETCH && (W == 1 || (W == 0 && VB != 0));
    const bool prefetch =
        may_prefetch && (W == 1 || a.n / MSD_BUCKETS2 * (sizeof(K) + VB) <= RDX_MSD_L3_PREFETCH_BYTES);
    /* The next bucket's bounds, the first thread's: copied from global memory a bucket
     * ahead, asynchronously (cp.async), so that they are in no register across the sort and
     * the first thread does not wait for them (a bucket of no keys costs a load's latency
     * otherwise: few distinct keys, 1% at 2^26). */
    __shared__ uint32_t s_next[2];
    const uint32_t step = gridDim.x;
    if (prefetch && threadIdx.x == 0)
        msd_bounds_async(a, blockIdx.x + step, s_next);
    for (uint32_t b = blockIdx.x; b < MSD_BUCKETS2; b += step) {
        if (prefetch && threadIdx.x == 0) {
            asm volatile("cp.async.wait_all;" ::: "memory");
            const uint32_t lo = s_next[0], hi = s_next[1];
            if (hi > lo && hi - lo <= (uint32_t)msd_shape<K, VB, W>::L3_CAP) {
                msd_prefetch_l2((const K *)a.keys_a + lo, (size_t)(hi - lo) * sizeof(K));
                if (VB)
                    msd_prefetch_l2((const V *)a.vals_a + lo, (size_t)(hi - lo) * sizeof(V));
            }
            msd_bounds_async(a, b + 2u * step, s_next);
        }
        msd_l3_bucket<K, VB, W>(a, b, below, smem);
        __syncthreads(); /* the shared memory is the next bucket's */
    }
}

/* Level 3 in a wider shape W (4-byte keys' wide, counts-only or mid; 8-byte keys'
 * RDX_MSD_L3_WIDE8) over the level-2 buckets above the first shape's capacity, which
 * rdx_seg_tile_bin listed in bins' long bin: each block takes every grid-th of them; those
 * above W's capacity too go to the long bin of list_long (its counts zeroed by
 * msd_offsets_kernel), counted in RDX_MSD_WIDER_LEFT: the segmented passes sort 4-byte
 * keys', the deep level 8-byte keys'. The list holds only long buckets, so a grid of
 * resident blocks finds its work with no pass over the 65536. */
template <typename K, int VB, int W>
__global__ void __launch_bounds__(msd_shape<K, VB, W>::L3_THREADS, msd_shape<K, VB, W>::L3_MIN_BLOCKS)
    msd_long_kernel(const rdx_msd_args a, const uint32_t *bins, uint32_t *list_long)
{
    static_assert((sizeof(K) == 4 && W != 0) || (sizeof(K) == 8 && W == RDX_MSD_L3_WIDE8), "a wider shape");
    rdx_chain_enter();
    extern __shared__ __align__(16) unsigned char smem[];
    if (a.ctrl[RDX_MSD_STATE] != RDX_MSD_ON)
        return;
    uint32_t longs;
    const uint32_t *list = rdx_seg_bin_list(bins, RDX_SEG_LONG_BIN, &longs);
    const int below = MSD_SECOND(K) - (int)a.ctrl[RDX_MSD_DROP];
    for (uint32_t i = blockIdx.x; i < longs; i += gridDim.x) {
        const uint32_t b = list[i];
        if (msd_bucket_end(a, b) - a.bases2[b] > (uint32_t)msd_shape<K, VB, W>::L3_CAP) {
            if (threadIdx.x == 0) {
                atomicAdd(&a.ctrl[RDX_MSD_WIDER_LEFT], 1u);
                const uint32_t at = atomicAdd(&list_long[RDX_SEG_LONG_BIN], 1u);
                list_long[2 * RDX_SEG_BINS + at] = b;
            }
            continue;
        }
        msd_l3_bucket<K, VB, W>(a, b, below, smem);
        __syncthreads(); /* the shared memory is the next bucket's */
    }
}

/* ---- the deep level (8-byte keys): the long level-2 buckets one digit further ---- */

static_assert(msd_l3_bytes<unsigned long long, 0, RDX_MSD_L3_WIDE8>() <= 227u * 1024u &&
                  msd_l3_bytes<unsigned long long, 4, RDX_MSD_L3_WIDE8>() <= 227u * 1024u &&
                  msd_l3_bytes<unsigned long long, 8, RDX_MSD_L3_WIDE8>() <= 227u * 1024u,
              "the deep level's wide shape fits a Hopper block's shared memory");
static_assert(msd_l3_counters_fit<unsigned long long, 0, RDX_MSD_L3_WIDE8>() &&
                  msd_l3_counters_fit<unsigned long long, 4, RDX_MSD_L3_WIDE8>() &&
                  msd_l3_counters_fit<unsigned long long, 8, RDX_MSD_L3_WIDE8>(),
              "the deep level's wide shape's counters fit in the ranking's counter words");
static_assert(msd_wide8<unsigned long long, 0>::L3_CAP < 65536 &&
                  msd_wide8<unsigned long long, 0>::L3_CAP > msd_shape<unsigned long long, 0>::L3_CAP &&
                  msd_wide8<unsigned long long, 4>::L3_CAP > msd_shape<unsigned long long, 4>::L3_CAP &&
                  msd_wide8<unsigned long long, 8>::L3_CAP > msd_shape<unsigned long long, 8>::L3_CAP,
              "a sub-bucket's keys fit the list's 16 bits, and the wide shape holds more than the narrow one");

/* The level-3 digit of a sub-bucket group whose deep digits are dg .. e - 1, m keys, in a
 * shape of at most `wid` bits with `low8` bits below the deep digit: about
 * 2^MSD_L3_BIN_KEYS_LOG2 keys a bin, at least 1 bit for a lone sub-bucket, the digit of
 * msd_l3_sort being the deep digits less dg above the b bits below them. */
template <typename K> static __device__ __forceinline__ int msd_deep_bits(uint32_t dg, uint32_t e, uint32_t m, int wid,
                                                                         int low8)
{
    const int group = msd_ceil_log2(e - dg);
    const int need = msd_ceil_log2(((m - 1u) >> MSD_L3_BIN_KEYS_LOG2(K)) + 1u) - group;
    const int most = wid - group < low8 ? wid - group : low8;
    return need < (e - dg == 1u) ? (int)(e - dg == 1u) : need < most ? need : most;
}

/* A sub-bucket listed for the next level (thread 0): counted in o.long_word, its offsets
 * at the next level's slot (segment 2 x slot of the offsets; the odd ones are never listed)
 * in its list's long bin, the only one listed. */
#define MSD_WIDE_IN_A (1u << 24) /* a wide list entry's mark: a split's side, in A */
struct msd_lone_out {
    uint32_t *ctrl, *bins3; /* the route's control words; the next level's list */
    size_t *off3;           /* its offsets */
    rdx_msd_chunk *chunks;  /* the chunks to copy or split */
    int long_word;
};
static __device__ __forceinline__ void msd_list_next(const msd_lone_out &o, size_t begin, size_t end)
{
    atomicAdd(&o.ctrl[o.long_word], 1u);
    const uint32_t at = atomicAdd(&o.bins3[RDX_SEG_LONG_BIN], 1u);
    o.off3[2 * (size_t)at] = begin;
    o.off3[2 * (size_t)at + 1] = end;
    o.bins3[2 * RDX_SEG_BINS + at] = 2u * at;
}

/* The deep level's groups of sub-buckets. The segmented passes' first pass (route_msd.cu)
 * partitioned each long level-2 bucket by the deep digit, the 8 bits below the second
 * digit (bits low8 to low8 + 7 of keys with nothing dropped), in place in A with the result
 * left in B where the pass ran. Level 3 sorts, as one bucket, each group of consecutive
 * sub-buckets of at most half its capacity whose starts lie in the same window of half its
 * capacity (at most its capacity in all), and each larger sub-bucket alone. So a sub-bucket
 * starts a group unless it and the one before it are both small and start in the same
 * window: a block of 256 threads decides that for a long bucket's 256 sub-buckets at once
 * and lists its groups, one word each: the long bucket's index in the view (bits 16-31),
 * the first sub-bucket (bits 8-15) and the sub-buckets less one (bits 0-7). The groups of
 * all long buckets are then sorted by all blocks alike (msd_deep_kernel): a few long
 * buckets holding most keys (f64 normal, 90% of the keys in one top digit) would leave most
 * blocks idle if a block took a long bucket. */
#define MSD_DEEP_GROUPS_THREADS 256 /* a thread per sub-bucket */
template <typename K, int VB, int W>
__global__ void __launch_bounds__(MSD_DEEP_GROUPS_THREADS) msd_deep_groups_kernel(const rdx_msd_args a,
                                                                                 const rdx_msd_deep_args d)
{
    rdx_chain_enter();
    enum {
        CAP = msd_shape<K, VB, W>::L3_CAP, HALF = CAP / 2, WIDE = msd_wide8<K, VB>::L3_CAP,
        WARPS = MSD_DEEP_GROUPS_THREADS / 32
    };
    __shared__ uint32_t s_start[257]; /* sub-bucket x starts at s_start[x] from the bucket's start */
    __shared__ uint32_t s_first[257]; /* the groups' first sub-buckets, then 256 */
    __shared__ uint32_t s_warp[WARPS], s_at;
    if (a.ctrl[RDX_MSD_STATE] != RDX_MSD_ON)
        return;
    const rdx_seg_passes_view &v = d.first;
    const uint32_t longs = *v.long_count, x = threadIdx.x;
    const bool in_b = *v.active != 0u, skip = a.ctrl[d.skip_word] != 0u;
    for (uint32_t li = blockIdx.x; li < longs; li += gridDim.x) {
        s_start[x] = v.bases[(size_t)li * 256u + x];
        if (x == 0u)
            s_start[256] = (uint32_t)(v.end[li] - v.start[li]);
        __syncthreads();
        const uint32_t lo = s_start[x], m = s_start[x + 1u] - lo;
        const bool first = x == 0u || m > (uint32_t)HALF || lo - s_start[x - 1u] > (uint32_t)HALF ||
                           s_start[x - 1u] / HALF != lo / HALF;
        const uint32_t at = rdx_block_excl_scan<MSD_DEEP_GROUPS_THREADS>(first ? 1u : 0u, s_warp);
        if (first)
            s_first[at] = x;
        if (x == MSD_DEEP_GROUPS_THREADS - 1u) { /* the last thread's scan holds the count */
            s_first[at + first] = 256u;
            s_at = atomicAdd(&a.ctrl[d.groups_word], at + first);
        }
        __syncthreads();
        if (first)
            d.groups[s_at + at] = li << 16 | x << 8 | (s_first[at + 1u] - x - 1u);
        /* A sub-bucket above level 3's capacity (a group of its own, which msd_deep_kernel
         * passes over): within the wide shape's, the pass split by the deep digit (not
         * skipped: then no digit was counted), it is listed for the wide shape (the
         * level's last launch); else (lone) in B, where the pass ran, its chunks are
         * listed for the deep kernel (msd_deep_chunk), else it is listed for the next level
         * as it lies. */
        const bool lone = m > (uint32_t)CAP && (m > (uint32_t)WIDE || skip);
        if (lone && !in_b) {
            const msd_lone_out o = {a.ctrl, d.bins3, d.off3, d.chunks, d.long_word};
            msd_list_next(o, v.start[li] + lo, v.start[li] + lo + m);
        } else if (m > (uint32_t)CAP && !lone) { /* for the wide shape, which sorts it where it lies */
            const uint32_t wat = atomicAdd(&a.ctrl[d.wide_word], 1u);
            d.wide[wat] = make_uint2((uint32_t)(v.start[li] + lo), m | x << 16);
        }
        const uint32_t mine = lone && in_b ? (m + RDX_MSD_DEEP_COPY_CHUNK - 1u) / RDX_MSD_DEEP_COPY_CHUNK : 0u;
        __syncthreads(); /* s_warp and s_first read */
        const uint32_t cum = rdx_block_excl_scan<MSD_DEEP_GROUPS_THREADS>(mine, s_warp);
        s_first[x] = cum; /* now the chunks before sub-bucket x's */
        if (x == MSD_DEEP_GROUPS_THREADS - 1u) {
            s_first[256] = cum + mine;
            s_at = cum + mine ? atomicAdd(&a.ctrl[d.chunks_word], cum + mine) : 0u;
        }
        __syncthreads();
        for (uint32_t j = x; j < s_first[256]; j += MSD_DEEP_GROUPS_THREADS) {
            uint32_t sb = 0; /* the last sub-bucket whose chunks start at or before j */
            for (uint32_t step = 128; step; step >>= 1)
                sb += s_first[sb + step] <= j ? step : 0u;
            const uint32_t k = j - s_first[sb], count = s_first[sb + 1u] - s_first[sb];
            const size_t b = v.start[li] + s_start[sb], e = v.start[li] + s_start[sb + 1u];
            rdx_msd_chunk c;
            c.lo = b + (size_t)k * RDX_MSD_DEEP_COPY_CHUNK;
            c.hi = k + 1u < count ? c.lo + RDX_MSD_DEEP_COPY_CHUNK : e;
            c.h = 0u;
            c.first = s_at + s_first[sb];
            c.count = count;
            c.digit = sb;
            c.lt = c.eq = 0u;
            d.chunks[s_at + j] = c;
        }
        __syncthreads(); /* the shared words are the next bucket's */
    }
}

/* The value that the most of 32 keys of [begin, end) taken at even steps hold, and how
 * many of them hold it (a warp). */
template <typename K>
static __device__ __forceinline__ uint32_t msd_mode32(const K *src, size_t begin, size_t end, K *mode)
{
    const uint32_t lane = rdx_lane();
    const K k = src[begin + (size_t)(((unsigned long long)(end - begin) * (2u * lane + 1u)) / 64u)];
    const uint32_t same = (uint32_t)__popc(__match_any_sync(RDX_FULL_WARP, k));
    const uint32_t best = __reduce_max_sync(RDX_FULL_WARP, same << 5 | lane);
    *mode = __shfl_sync(RDX_FULL_WARP, k, best & 31u);
    return best >> 5;
}

/* A key's class in a split around h: 0 before it in the sort's order, 1 equal, 2 after. */
template <typename K> static __device__ __forceinline__ uint32_t msd_split_class(K k, K h, int cls, int desc)
{
    return k == h ? 1u : rdx_enc(k, cls, desc) < rdx_enc(h, cls, desc) ? 0u : 2u;
}

/* Chunk c of a lone sub-bucket in B (msd_deep_groups_kernel listed it), by the whole block
 * of msd_deep_kernel. Where at least RDX_MSD_SPLIT_SAMPLE_MIN of 32 keys of the sub-bucket
 * taken at even steps hold one value (every chunk's block finds the same), the chunk is
 * marked split around it with its counts of keys before and equal to it, for
 * msd_deep_copy_kernel; else copied to A, and the sub-bucket listed for the next level by
 * its first chunk's block. Out of line, and given words rather than the kernel's arguments
 * by reference (which moves those to local memory): the deep kernel's level-3 sort spilled
 * 80-104 bytes where the lone sub-buckets' code was inlined (ptxas, keys alone). coded:
 * the key codec's class, and its direction in bit 8. s_word: 6 shared words. */
template <typename K, int VB>
static __device__ __noinline__ void msd_deep_chunk(const msd_lone_out o, K *keys_a, void *vals_a, const K *keys_b,
                                                   const void *vals_b, uint32_t c, uint32_t coded, uint32_t *s_word)
{
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    const rdx_msd_chunk ch = o.chunks[c];
    const size_t begin = o.chunks[ch.first].lo, end = o.chunks[ch.first + ch.count - 1u].hi;
    K *s_mode = (K *)(s_word + 2);
    if (threadIdx.x < 32u) {
        K h;
        const uint32_t same = msd_mode32<K>(keys_b, begin, end, &h);
        if (threadIdx.x == 0) {
            s_word[0] = same >= (uint32_t)RDX_MSD_SPLIT_SAMPLE_MIN;
            *s_mode = h;
            s_word[4] = s_word[5] = 0u;
        }
    }
    __syncthreads();
    if (s_word[0] == 0u) {
        rdx_block_copy<K>(keys_a, keys_b, ch.lo, ch.hi);
        if (VB)
            rdx_block_copy<V>((V *)vals_a, (const V *)vals_b, ch.lo, ch.hi);
        if (threadIdx.x == 0 && c == ch.first)
            msd_list_next(o, begin, end);
        __syncthreads(); /* the words are the next work's */
        return;
    }
    const K h = *s_mode;
    uint32_t lt = 0, eq = 0;
    for (size_t i = ch.lo + threadIdx.x; i < ch.hi; i += blockDim.x) {
        const uint32_t x = msd_split_class<K>(keys_b[i], h, (int)(coded & 255u), (int)(coded >> 8));
        lt += x == 0u;
        eq += x == 1u;
    }
    lt = __reduce_add_sync(RDX_FULL_WARP, lt);
    eq = __reduce_add_sync(RDX_FULL_WARP, eq);
    if (rdx_lane() == 0u) {
        atomicAdd(&s_word[4], lt);
        atomicAdd(&s_word[5], eq);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        o.chunks[c].h = (unsigned long long)h;
        o.chunks[c].digit = ch.digit | RDX_MSD_CHUNK_SPLIT;
        o.chunks[c].lt = s_word[4];
        o.chunks[c].eq = s_word[5];
        if (c == ch.first)
            atomicAdd(&o.ctrl[RDX_MSD_SPLITS], 1u);
    }
    __syncthreads(); /* the words are the next work's */
}

/* Level 3 on a deep level's groups (msd_deep_groups_kernel), a block taking every grid-th:
 * each group into A (its digit: the group's deep digits, less the first, above as many bits
 * below the deep digit as the group needs). A sub-bucket above level 3's capacity was
 * listed by msd_deep_groups_kernel: within its wide shape's (RDX_MSD_L3_WIDE8) for that
 * shape, which sorts it where it lies (msd_deep_wide_kernel, the level's last launch); a
 * larger one (dense values, or a key that repeats thousands of times) for the next level
 * where it lies in A, else as chunks, which blocks of this launch take before the groups
 * (msd_deep_chunk: copied to A and listed for the next level, or split around a value
 * many of its keys hold). The next level is the
 * second deep level, and after it the segmented passes over the bits below the
 * second digit (its deep digits are constant, so those passes cost it nothing). Where the
 * sample skipped the deep level (RDX_MSD_SKIP_DEEP, RDX_MSD_SKIP_DEEP2), the pass counted
 * every key of a long bucket as digit 0: each is one sub-bucket, in A, listed whole. The
 * second deep level runs the same kernels with its own digit (d.low8), lists and counters
 * (d.groups_word, d.long_word). */
template <typename K, int VB, int W>
__global__ void __launch_bounds__(msd_shape<K, VB, W>::L3_THREADS, msd_shape<K, VB, W>::L3_MIN_BLOCKS)
    msd_deep_kernel(const rdx_msd_args a, const rdx_msd_deep_args d)
{
    static_assert(sizeof(K) == 8 && W == 0, "the deep level is 8-byte keys' (level 3's narrow shape)");
    rdx_chain_enter();
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    enum { CAP = msd_shape<K, VB, W>::L3_CAP, THREADS = msd_shape<K, VB, W>::L3_THREADS };
    extern __shared__ __align__(16) unsigned char smem[];
    if (a.ctrl[RDX_MSD_STATE] != RDX_MSD_ON)
        return;
    const rdx_seg_passes_view &v = d.first;
    const uint32_t groups = a.ctrl[d.groups_word];
    const int low8 = d.low8 - (int)a.ctrl[RDX_MSD_DROP]; /* the deep digit's lowest bit */
    const bool in_b = *v.active != 0u;
    const K *src = (const K *)(in_b ? a.keys_b : a.keys_a);
    const V *vsrc = (const V *)(in_b ? a.vals_b : a.vals_a);
    const uint32_t chunks = a.ctrl[d.chunks_word];
    for (uint32_t g = blockIdx.x; g < chunks + groups; g += gridDim.x) {
        if (g < chunks) { /* the chunks first: they read the most keys */
            const msd_lone_out o = {a.ctrl, d.bins3, d.off3, d.chunks, d.long_word};
            msd_deep_chunk<K, VB>(o, (K *)a.keys_a, a.vals_a, (const K *)a.keys_b, a.vals_b, g,
                                  (uint32_t)a.cls | (uint32_t)a.desc << 8, (uint32_t *)smem);
            continue;
        }
        const uint32_t w = d.groups[g - chunks], li = w >> 16, dg = (w >> 8) & 255u, e = dg + (w & 255u) + 1u;
        const uint32_t *row = v.bases + (size_t)li * 256u;
        const size_t seg = v.start[li];
        const uint32_t lo = row[dg], m = (e < 256u ? row[e] : (uint32_t)(v.end[li] - seg)) - lo;
        const size_t begin = seg + lo;
        if (m == 0u)
            continue;
        if (m > (uint32_t)CAP) /* a sub-bucket alone: listed by msd_deep_groups_kernel */
            continue;
        /* (e - dg) deep digits, each split by the b bits below the deep digit */
        const int b = msd_deep_bits<K>(dg, e, m, msd_shape<K, VB, W>::L3_MAX_BITS, low8);
        msd_l3_sort<K, VB, W>(a, src + begin, vsrc + begin, begin, m, low8 - b, (256u << b) - 1u, dg << b,
                              (e - dg) << b, smem);
        __syncthreads(); /* the shared memory is the next group's */
    }
}

/* A side of a split sub-bucket (thread 0, msd_deep_copy_kernel): m keys from begin, in A,
 * of deep digit dg. One key is in place; up to the wide capacity it is listed for the wide
 * shape (msd_deep_wide_kernel, after this launch), above it for the next level. */
template <typename K, int VB>
static __device__ __forceinline__ void msd_split_side(const rdx_msd_args &a, const rdx_msd_deep_args &d,
                                                      size_t begin, uint32_t m, uint32_t dg)
{
    if (m <= 1u)
        return;
    if (m <= (uint32_t)msd_wide8<K, VB>::L3_CAP) {
        const uint32_t at = atomicAdd(&a.ctrl[d.wide_word], 1u);
        d.wide[at] = make_uint2((uint32_t)begin, m | dg << 16 | MSD_WIDE_IN_A);
        return;
    }
    const msd_lone_out o = {a.ctrl, d.bins3, d.off3, d.chunks, d.long_word};
    msd_list_next(o, begin, begin + m);
}

/* A split chunk (msd_deep_chunk) from B into A, a block: its keys below h to the sub-bucket's
 * start, h's after all of those, the keys above h after all of h's, each part in the order
 * of B (stable), at the places the chunks before it leave (their counts, msd_deep_chunk).
 * h's keys are final:
 * with 4-byte indices widened (vals_wide) their indices are written there too, as are
 * those of a side of one key; the sides are listed by the sub-bucket's first chunk. */
template <typename K, int VB>
static __device__ __forceinline__ void msd_split_chunk(const rdx_msd_args &a, const rdx_msd_deep_args &d,
                                                    const rdx_msd_chunk ch, uint32_t c, uint32_t *s_words)
{
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    enum { ITEMS = 4, TILE = RDX_COPY_THREADS * ITEMS };
    const K *ksrc = (const K *)a.keys_b;
    const V *vsrc = (const V *)a.vals_b;
    K *kdst = (K *)a.keys_a;
    V *vdst = (V *)a.vals_a;
    unsigned long long *wide = VB == 4 ? (unsigned long long *)a.vals_wide : NULL;
    /* the keys below h and equal to it in the sub-bucket, and in its chunks before this one */
    if (threadIdx.x < 4u)
        s_words[threadIdx.x] = 0u;
    __syncthreads();
    uint32_t lt = 0, eq = 0, lt_before = 0, eq_before = 0;
    for (uint32_t j = ch.first + threadIdx.x; j < ch.first + ch.count; j += RDX_COPY_THREADS) {
        const uint32_t x = d.chunks[j].lt, y = d.chunks[j].eq;
        lt += x;
        eq += y;
        lt_before += j < c ? x : 0u;
        eq_before += j < c ? y : 0u;
    }
    lt = __reduce_add_sync(RDX_FULL_WARP, lt);
    eq = __reduce_add_sync(RDX_FULL_WARP, eq);
    lt_before = __reduce_add_sync(RDX_FULL_WARP, lt_before);
    eq_before = __reduce_add_sync(RDX_FULL_WARP, eq_before);
    if (rdx_lane() == 0u) {
        atomicAdd(&s_words[0], lt);
        atomicAdd(&s_words[1], eq);
        atomicAdd(&s_words[2], lt_before);
        atomicAdd(&s_words[3], eq_before);
    }
    __syncthreads();
    const size_t begin = d.chunks[ch.first].lo, end = d.chunks[ch.first + ch.count - 1u].hi;
    const uint32_t all_lt = s_words[0], all_eq = s_words[1];
    const uint32_t all_gt = (uint32_t)(end - begin) - all_lt - all_eq;
    /* this chunk's next slot of each class */
    size_t at_lt = begin + s_words[2], at_eq = begin + all_lt + s_words[3];
    size_t at_gt = begin + all_lt + all_eq + ((ch.lo - begin) - s_words[2] - s_words[3]);
    const bool wide_lt = wide && all_lt <= 1u, wide_gt = wide && all_gt <= 1u;
    if (threadIdx.x == 0 && c == ch.first) {
        msd_split_side<K, VB>(a, d, begin, all_lt, ch.digit & 255u);
        msd_split_side<K, VB>(a, d, begin + all_lt + all_eq, all_gt, ch.digit & 255u);
    }
    /* A tile of ITEMS rows of the block's threads at a time, a key a thread a row (loads and
     * the dominant class's stores coalesced): each warp's ballots rank its keys of a row,
     * its counts (below | equal << 16) go to shared memory, one barrier, and each thread
     * adds the counts before its warp and row. The counts of two tiles alternate. */
    enum { WARPS = RDX_COPY_THREADS / 32 };
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5, lanes_below = (1u << lane) - 1u;
    const K h = (K)ch.h;
    uint32_t parity = 0;
    for (size_t t = ch.lo; t < ch.hi; t += TILE, parity ^= 1u) {
        uint32_t *cnt = s_words + 4 + parity * ITEMS * WARPS;
        K k[ITEMS];
        V v[ITEMS];
        uint32_t x[ITEMS], rank[ITEMS];
#pragma unroll
        for (int u = 0; u < ITEMS; ++u) {
            const size_t i = t + (size_t)u * RDX_COPY_THREADS + threadIdx.x;
            const bool have = i < ch.hi;
            k[u] = have ? ksrc[i] : h;
            if (VB && have)
                v[u] = vsrc[i];
            x[u] = have ? msd_split_class<K>(k[u], h, a.cls, a.desc) : 3u;
            const uint32_t below = __ballot_sync(RDX_FULL_WARP, x[u] == 0u), equal = __ballot_sync(RDX_FULL_WARP, x[u] == 1u);
            rank[u] = (uint32_t)__popc(below & lanes_below) | (uint32_t)__popc(equal & lanes_below) << 16;
            if (lane == 0u)
                cnt[u * WARPS + warp] = (uint32_t)__popc(below) | (uint32_t)__popc(equal) << 16;
        }
        __syncthreads();
        uint32_t tile_all = 0; /* the tile's rows before this one */
#pragma unroll
        for (int u = 0; u < ITEMS; ++u) {
            uint32_t row = 0, before = 0;
#pragma unroll
            for (uint32_t w = 0; w < (uint32_t)WARPS; ++w) {
                const uint32_t c4 = cnt[u * WARPS + w];
                row += c4;
                before += w < warp ? c4 : 0u;
            }
            before += tile_all + rank[u];
            tile_all += row;
            if (x[u] == 3u)
                continue;
            const uint32_t n_lt = before & 0xFFFFu, n_eq = before >> 16;
            const uint32_t idx = (uint32_t)u * RDX_COPY_THREADS + threadIdx.x; /* keys of the tile before it */
            const size_t to = x[u] == 0u ? at_lt + n_lt : x[u] == 1u ? at_eq + n_eq : at_gt + (idx - n_lt - n_eq);
            kdst[to] = k[u];
            if (VB) {
                vdst[to] = v[u];
                if (wide && (x[u] == 1u || (x[u] == 0u ? wide_lt : wide_gt)))
                    wide[to] = (unsigned long long)v[u];
            }
        }
        const uint32_t tile_lt = tile_all & 0xFFFFu, tile_eq = tile_all >> 16;
        const uint32_t tile_keys = (uint32_t)(ch.hi - t < (size_t)TILE ? ch.hi - t : (size_t)TILE);
        at_lt += tile_lt;
        at_eq += tile_eq;
        at_gt += tile_keys - tile_lt - tile_eq;
    }
}

/* The chunks that msd_deep_chunk marked split, placed by every block, each taking every
 * grid-th chunk (msd_split_chunk). (A block copying a whole sub-bucket held a heavy key's,
 * 5% of zipf keys, to one multiprocessor's bandwidth: 3.2 ms of u64 zipf 2^26 forced onto
 * the route, H200 round 60: hence chunks.) Launched after msd_deep_kernel, before
 * msd_deep_wide_kernel (which sorts a split's short sides) and the next level's pass,
 * which read A. */
template <typename K, int VB>
__global__ void __launch_bounds__(RDX_COPY_THREADS) msd_deep_copy_kernel(const rdx_msd_args a,
                                                                        const rdx_msd_deep_args d)
{
    static_assert(sizeof(K) == 8, "the deep level is 8-byte keys'");
    rdx_chain_enter();
    __shared__ uint32_t s_words[4 + 2 * 4 * (RDX_COPY_THREADS / 32)]; /* msd_split_chunk's */
    if (a.ctrl[RDX_MSD_STATE] != RDX_MSD_ON)
        return;
    const uint32_t chunks = a.ctrl[d.chunks_word];
    for (uint32_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        const rdx_msd_chunk ch = d.chunks[c];
        if (ch.digit & RDX_MSD_CHUNK_SPLIT) {
            msd_split_chunk<K, VB>(a, d, ch, c, s_words);
            __syncthreads(); /* the words are the next chunk's */
        }
    }
}

/* The lone sub-buckets that msd_deep_groups_kernel listed for the wide shape (d.wide, counted in
 * d.wide_word), and the short sides of split sub-buckets (msd_split_side), a block each
 * (every grid-th), sorted into A from where they lie (the pass left the first in B where it
 * ran; the sides, marked MSD_WIDE_IN_A, are in A), with the digit msd_deep_kernel gives a
 * lone sub-bucket, in the wide shape's bits. The level's last launch: the next segmented-pass
 * enqueue clears the view (d.first.active) that says where they lie, and the next level's
 * pass uses B; neither touches these sub-buckets before this kernel has ended. */
template <typename K, int VB>
__global__ void __launch_bounds__(msd_wide8<K, VB>::L3_THREADS, msd_wide8<K, VB>::L3_MIN_BLOCKS)
    msd_deep_wide_kernel(const rdx_msd_args a, const rdx_msd_deep_args d)
{
    static_assert(sizeof(K) == 8, "the deep level is 8-byte keys'");
    rdx_chain_enter();
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    extern __shared__ __align__(16) unsigned char smem[];
    if (a.ctrl[RDX_MSD_STATE] != RDX_MSD_ON)
        return;
    const uint32_t count = a.ctrl[d.wide_word];
    const int low8 = d.low8 - (int)a.ctrl[RDX_MSD_DROP]; /* the deep digit's lowest bit */
    const bool pass_ran = *d.first.active != 0u;
    for (uint32_t i = blockIdx.x; i < count; i += gridDim.x) {
        const uint2 w = d.wide[i];
        const uint32_t m = w.y & 0xFFFFu, dg = (w.y >> 16) & 255u;
        const bool in_b = pass_ran && !(w.y & MSD_WIDE_IN_A);
        const K *src = (const K *)(in_b ? a.keys_b : a.keys_a);
        const V *vsrc = (const V *)(in_b ? a.vals_b : a.vals_a);
        const int b = msd_deep_bits<K>(dg, dg + 1u, m, msd_wide8<K, VB>::L3_MAX_BITS, low8);
        msd_l3_sort<K, VB, RDX_MSD_L3_WIDE8>(a, src + w.x, vsrc + w.x, w.x, m, low8 - b, (256u << b) - 1u, dg << b,
                                             1u << b, smem);
        __syncthreads(); /* the shared memory is the next sub-bucket's */
    }
}

/* ---- host side ---- */

typedef unsigned long long msd_k8;

/* Calls f<K, VB>(args) for key bytes kb (4, 8) and value bytes vb (0, 4, 8). */
#define MSD_DISPATCH(kb, vb, f, ...)                                                                     \
    ((kb) == 4 ? ((vb) == 0 ? f<uint32_t, 0>(__VA_ARGS__) : (vb) == 4 ? f<uint32_t, 4>(__VA_ARGS__)        \
                                                                      : f<uint32_t, 8>(__VA_ARGS__))       \
               : ((vb) == 0 ? f<msd_k8, 0>(__VA_ARGS__) : (vb) == 4 ? f<msd_k8, 4>(__VA_ARGS__)            \
                                                                    : f<msd_k8, 8>(__VA_ARGS__)))
/* And with level 3's shape (RDX_MSD_L3_*; msd_args_ok checks it against kb and vb). */
#define MSD_DISPATCH_W(kb, vb, shape, f, ...)                                                       \
    ((shape) == RDX_MSD_L3_COUNTS ? f<uint32_t, 0, 2>(__VA_ARGS__)                                  \
     : (shape) == RDX_MSD_L3_MID  ? f<uint32_t, 4, 3>(__VA_ARGS__)                                  \
     : (shape) == RDX_MSD_L3_WIDE ? ((vb) ? f<uint32_t, 4, 1>(__VA_ARGS__) : f<uint32_t, 0, 1>(__VA_ARGS__)) \
                                  : MSD_DISPATCH(kb, vb, f, __VA_ARGS__))

template <typename K, int VB> static size_t l2_tile(void) { return (size_t)msd_l2_layout<K, VB>::TILE; }
template <typename K, int VB, int W = 0> static size_t l3_cap(void) { return (size_t)msd_shape<K, VB, W>::L3_CAP; }

size_t rdx_msd_l2_tile(int kb, int vb) { return MSD_DISPATCH(kb, vb, l2_tile); }

size_t rdx_msd_l2_max_tiles(size_t n, int kb, int vb)
{
    /* Each level-1 bucket's last tile may be partial: at most one more tile per bucket. */
    const size_t tile = rdx_msd_l2_tile(kb, vb);
    return (n + tile - 1) / tile + MSD_BUCKETS1;
}

size_t rdx_msd_l3_cap(int kb, int vb, int shape)
{
    if (shape == RDX_MSD_L3_WIDE8) /* (not in MSD_DISPATCH_W: no level 3 of its own) */
        return vb == 0 ? l3_cap<msd_k8, 0, RDX_MSD_L3_WIDE8>()
                       : vb == 4 ? l3_cap<msd_k8, 4, RDX_MSD_L3_WIDE8>() : l3_cap<msd_k8, 8, RDX_MSD_L3_WIDE8>();
    return MSD_DISPATCH_W(kb, vb, shape, l3_cap);
}

template <typename K, int VB, int W = 0> static cudaError_t launch_counts(const rdx_msd_args *a, cudaStream_t s)
{
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, 1, MSD_SCAN_THREADS, 0, s), msd_scan_kernel<K, VB, W>, *a);
}

/* Level 3's digit width for n keys: about log2 of the average level-2 bucket (n / 2^16)
 * less bin_keys_log2 (2^bin_keys_log2 keys a bin), from 8 to max_bits. */
static int l3_bits(size_t n, int max_bits, int bin_keys_log2)
{
    int bits = 8;
    while (bits < max_bits && ((size_t)1 << (bits + 16 + bin_keys_log2)) < n)
        ++bits;
    return bits;
}

/* Blocks of levels 2 and 3 resident per multiprocessor, for 4- and 8-byte keys and
 * VB = 0, 4, 8, and of level 3's other shapes: 4-byte keys alone's wide and counts-only,
 * pairs' mid and wide, 8-byte keys' wide for VB = 0, 4, 8 (rdx_msd_init). */
static int l2_per_sm[2][3], l3_per_sm[2][3], l3_other_per_sm[4], l3_wide8_per_sm[3];
template <typename K, int VB, int W> static int *l3_resident(void)
{
    return W == RDX_MSD_L3_WIDE8 ? &l3_wide8_per_sm[VB / 4]
           : W                   ? &l3_other_per_sm[VB ? (W == 3 ? 3 : 2) : W - 1]
                                 : &l3_per_sm[sizeof(K) / 8][VB / 4];
}

template <typename K, int VB, int W = 0> static cudaError_t launch_sort(const rdx_msd_args *a, int sms, cudaStream_t s)
{
    const int k = sizeof(K) / 8, v = VB / 4;
    rdx_chain_launch l;
    const cudaError_t e = cudaLaunchKernelEx(
        rdx_chain_config(&l, rdx_resident_grid(rdx_msd_l2_max_tiles(a->n, (int)sizeof(K), VB), sms, l2_per_sm[k][v], 1),
                         msd_l2_layout<K, VB>::THREADS, msd_l2_layout<K, VB>::BYTES, s),
        msd_pass_kernel<K, VB>, *a);
    if (e != cudaSuccess)
        return e;
    rdx_msd_args b = *a;
    b.l3_bits = l3_bits(a->n, msd_shape<K, VB, W>::L3_MAX_BITS, MSD_L3_BIN_KEYS_LOG2(K));
    return cudaLaunchKernelEx(
        rdx_chain_config(&l, rdx_resident_grid(MSD_BUCKETS2, sms, *l3_resident<K, VB, W>(), RDX_MSD_L3_WAVES),
                         msd_shape<K, VB, W>::L3_THREADS, msd_l3_bytes<K, VB, W>(), s),
        msd_block_kernel<K, VB, W>, b);
}

/* 4- or 8-byte keys, alone or with values of 4 or 8 bytes (which need vals_a and vals_b);
 * level 3's wide shape for 4-byte keys alone or with 4-byte values, its counts-only shape
 * for 4-byte keys alone, its mid shape for 4-byte keys with 4-byte values. */
static int msd_args_ok(int kb, int vb, int shape, const rdx_msd_args *a)
{
    const int shape_ok = shape == RDX_MSD_L3_NARROW ||
                         (kb == 4 && (vb == 0 ? shape == RDX_MSD_L3_WIDE || shape == RDX_MSD_L3_COUNTS
                                              : vb == 4 && (shape == RDX_MSD_L3_WIDE || shape == RDX_MSD_L3_MID)));
    if ((kb != 4 && kb != 8) || a->n == 0 || a->n > 0xffffffffull || !shape_ok)
        return 0;
    if (vb == 0)
        return 1;
    return (vb == 4 || vb == 8) && a->vals_a && a->vals_b;
}

cudaError_t rdx_launch_msd_counts(int kb, int vb, int shape, const rdx_msd_args *a, cudaStream_t s)
{
    if (!msd_args_ok(kb, vb, shape, a))
        return cudaErrorInvalidValue;
    return MSD_DISPATCH_W(kb, vb, shape, launch_counts, a, s);
}

cudaError_t rdx_launch_msd_sort(int kb, int vb, int shape, const rdx_msd_args *a, int sms, cudaStream_t s)
{
    if (!msd_args_ok(kb, vb, shape, a))
        return cudaErrorInvalidValue;
    return MSD_DISPATCH_W(kb, vb, shape, launch_sort, a, sms, s);
}

/* 8-byte keys only (4-byte keys have no deep level: route_msd.cu). */
template <typename K, int VB>
static cudaError_t launch_deep(const rdx_msd_args *a, const rdx_msd_deep_args *d, int sms, cudaStream_t s)
{
    enum { W = 0 };
    rdx_chain_launch l;
    /* the most long level-2 buckets, then the most groups: 256 a long bucket */
    size_t longs = a->n / ((size_t)msd_shape<K, VB, W>::L3_CAP + 1);
    longs = longs < MSD_BUCKETS2 ? longs : MSD_BUCKETS2;
    const unsigned list_grid = rdx_resident_grid(longs > 0 ? longs : 1, sms, RDX_COPY_BLOCKS_PER_SM, 1);
    cudaError_t e = cudaLaunchKernelEx(rdx_chain_config(&l, list_grid, MSD_DEEP_GROUPS_THREADS, 0, s),
                                       msd_deep_groups_kernel<K, VB, W>, *a, *d);
    if (e != cudaSuccess)
        return e;
    const unsigned grid =
        rdx_resident_grid(longs > 0 ? longs * 256 : 1, sms, *l3_resident<K, VB, W>(), RDX_MSD_L3_WAVES);
    e = cudaLaunchKernelEx(rdx_chain_config(&l, grid, msd_shape<K, VB, W>::L3_THREADS, msd_l3_bytes<K, VB, W>(), s),
                           msd_deep_kernel<K, VB, W>, *a, *d);
    if (e != cudaSuccess)
        return e;
    if ((e = cudaLaunchKernelEx(rdx_chain_config(&l, rdx_copy_grid(a->n, sms), RDX_COPY_THREADS, 0, s),
                                msd_deep_copy_kernel<K, VB>, *a, *d)) != cudaSuccess)
        return e;
    /* at most two listed sub-buckets per CAP + 1 keys (a lone one above the narrow
     * capacity, or a split's two sides) */
    const unsigned wide_grid =
        rdx_resident_grid(longs > 0 ? longs : 1, sms, *l3_resident<K, VB, RDX_MSD_L3_WIDE8>(), 1);
    return cudaLaunchKernelEx(rdx_chain_config(&l, wide_grid, msd_wide8<K, VB>::L3_THREADS,
                                               msd_l3_bytes<K, VB, RDX_MSD_L3_WIDE8>(), s),
                              msd_deep_wide_kernel<K, VB>, *a, *d);
}

cudaError_t rdx_launch_msd_deep(int kb, int vb, const rdx_msd_args *a, const rdx_msd_deep_args *d, int sms,
                                cudaStream_t s)
{
    if (kb != 8 || !msd_args_ok(kb, vb, RDX_MSD_L3_NARROW, a) || d->low8 < 1 || !d->wide)
        return cudaErrorInvalidValue;
    return vb == 0 ? launch_deep<msd_k8, 0>(a, d, sms, s)
           : vb == 4 ? launch_deep<msd_k8, 4>(a, d, sms, s)
                     : launch_deep<msd_k8, 8>(a, d, sms, s);
}

template <typename K>
static cudaError_t launch_decide(const void *keys, size_t n, size_t max_n, int cls, int desc, int top_pass,
                                 unsigned repeats_min, unsigned heavy_values, uint32_t *ctrl, cudaStream_t s)
{
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, 1, MSD_DECIDE_THREADS, MSD_DECIDE_SMEM, s), msd_decide_kernel<K>,
                              (const K *)keys, n, max_n, cls, desc, top_pass, (uint32_t)repeats_min,
                              (uint32_t)heavy_values, ctrl);
}

cudaError_t rdx_launch_msd_decide(int kb, const void *keys, size_t n, size_t max_n, int cls, int desc, int top_pass,
                                  unsigned repeats_min, unsigned heavy_values, uint32_t *ctrl, cudaStream_t s)
{
    if ((kb != 4 && kb != 8) || n == 0 || top_pass < 0 || top_pass >= 8 || (kb == 8 && repeats_min != 0u) ||
        (kb == 4 && heavy_values != 0u) || heavy_values > RDX_MSD_DEEP2_VALUES_MANY)
        return cudaErrorInvalidValue;
    return kb == 4 ? launch_decide<uint32_t>(keys, n, max_n, cls, desc, top_pass, repeats_min, 0u, ctrl, s)
                   : launch_decide<msd_k8>(keys, n, max_n, cls, desc, top_pass, 0u, heavy_values, ctrl, s);
}

cudaError_t rdx_launch_msd_offsets(const rdx_msd_args *a, size_t *off, uint32_t *list_long, int sms, cudaStream_t s)
{
    static_assert(2 * RDX_SEG_BINS <= RDX_COPY_THREADS, "one block zeroes the list's counts");
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, rdx_copy_grid(MSD_BUCKETS2 + 1u, sms), RDX_COPY_THREADS, 0, s),
                              msd_offsets_kernel, (const uint32_t *)a->ctrl, (const uint32_t *)a->bases2, off, a->n,
                              list_long);
}

template <typename K, int VB, int W = 0>
static cudaError_t launch_long(const rdx_msd_args *a, const uint32_t *bins, uint32_t *list_long, int sms,
                               cudaStream_t s)
{
    if constexpr (W == 0 || (sizeof(K) == 8) != (W == RDX_MSD_L3_WIDE8)) {
        return cudaErrorInvalidValue; /* (rdx_launch_msd_long checks) */
    } else {
        /* the most level-2 buckets above the smallest first shape's capacity */
        size_t longs = a->n / ((size_t)msd_shape<K, VB, 0>::L3_CAP + 1);
        longs = longs < MSD_BUCKETS2 ? longs : MSD_BUCKETS2;
        rdx_msd_args b = *a;
        /* 4-byte keys alone's digit where counting every value cannot serve (16 equal
         * keys): the route's for buckets of the first shape's capacity, the smallest listed
         * (the other shapes take each bucket's own, msd_l3_bucket) */
        b.l3_bits = l3_bits((size_t)msd_shape<K, VB, 0>::L3_CAP * MSD_BUCKETS2, msd_shape<K, VB, W>::L3_MAX_BITS,
                            MSD_L3_BIN_KEYS_LOG2(K));
        rdx_chain_launch l;
        return cudaLaunchKernelEx(
            rdx_chain_config(&l, rdx_resident_grid(longs > 0 ? longs : 1, sms, *l3_resident<K, VB, W>(), 1),
                             msd_shape<K, VB, W>::L3_THREADS, msd_l3_bytes<K, VB, W>(), s),
            msd_long_kernel<K, VB, W>, b, bins, list_long);
    }
}

cudaError_t rdx_launch_msd_long(int kb, int vb, int shape, const rdx_msd_args *a, const uint32_t *bins,
                                uint32_t *list_long, int sms, cudaStream_t s)
{
    if (kb == 8 && shape == RDX_MSD_L3_WIDE8 && msd_args_ok(kb, vb, RDX_MSD_L3_NARROW, a) && bins && list_long)
        return vb == 0 ? launch_long<msd_k8, 0, RDX_MSD_L3_WIDE8>(a, bins, list_long, sms, s)
               : vb == 4 ? launch_long<msd_k8, 4, RDX_MSD_L3_WIDE8>(a, bins, list_long, sms, s)
                         : launch_long<msd_k8, 8, RDX_MSD_L3_WIDE8>(a, bins, list_long, sms, s);
    if (kb != 4 || shape == RDX_MSD_L3_NARROW || !msd_args_ok(kb, vb, shape, a) || !bins || !list_long)
        return cudaErrorInvalidValue;
    return MSD_DISPATCH_W(kb, vb, shape, launch_long, a, bins, list_long, sms, s);
}

template <typename K, int VB, int W = 0> static cudaError_t init_shape(void)
{
    typedef msd_l2_layout<K, VB> L2;
    const int k = sizeof(K) / 8, v = VB / 4;
    const void *l2 = (const void *)msd_pass_kernel<K, VB>, *l3 = (const void *)msd_block_kernel<K, VB, W>;
    cudaError_t e = cudaFuncSetAttribute(l2, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L2::BYTES);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(l3, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)msd_l3_bytes<K, VB, W>());
    if constexpr (sizeof(K) == 8 && W == 0) {
        /* the wide shape's two kernels (the same block: their occupancy is one) */
        const void *wide = (const void *)msd_deep_wide_kernel<K, VB>;
        const void *wide_long = (const void *)msd_long_kernel<K, VB, RDX_MSD_L3_WIDE8>;
        const int wide_bytes = (int)msd_l3_bytes<K, VB, RDX_MSD_L3_WIDE8>();
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute((const void *)msd_deep_kernel<K, VB, W>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)msd_l3_bytes<K, VB, W>());
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(wide, cudaFuncAttributeMaxDynamicSharedMemorySize, wide_bytes);
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute(wide_long, cudaFuncAttributeMaxDynamicSharedMemorySize, wide_bytes);
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(l3_resident<K, VB, RDX_MSD_L3_WIDE8>(), wide,
                                                              msd_wide8<K, VB>::L3_THREADS, wide_bytes);
    }
    if constexpr (sizeof(K) == 4 && W != 0)
        if (e == cudaSuccess)
            e = cudaFuncSetAttribute((const void *)msd_long_kernel<K, VB, W>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)msd_l3_bytes<K, VB, W>());
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&l2_per_sm[k][v], l2, L2::THREADS, L2::BYTES);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(l3_resident<K, VB, W>(), l3, msd_shape<K, VB, W>::L3_THREADS,
                                                          msd_l3_bytes<K, VB, W>());
    return e;
}

cudaError_t rdx_msd_init(void)
{
    cudaError_t e = cudaFuncSetAttribute((const void *)msd_decide_kernel<uint32_t>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)MSD_DECIDE_SMEM);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute((const void *)msd_decide_kernel<msd_k8>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)MSD_DECIDE_SMEM);
    for (int kb = 4; kb <= 8 && e == cudaSuccess; kb += 4)
        for (int vb = 0; vb <= 8 && e == cudaSuccess; vb += 4)
            e = MSD_DISPATCH(kb, vb, init_shape);
    if (e == cudaSuccess)
        e = init_shape<uint32_t, 0, 1>();
    if (e == cudaSuccess)
        e = init_shape<uint32_t, 4, 1>();
    if (e == cudaSuccess)
        e = init_shape<uint32_t, 4, 3>();
    return e == cudaSuccess ? init_shape<uint32_t, 0, 2>() : e;
}
