/* The up-front histogram: the digit counts of every pass in one read of the keys
 * (DESIGN.md section 1, "all histograms up front"). The scan kernel turns them into the
 * first output slot of every digit, and a pass whose counts sit in one bin is skipped.
 *
 * Each block counts into shared memory and adds its bins to global memory once. Keys are
 * read 16 bytes per load, several loads in flight per thread. Each launch also checks
 * whether the keys are already in order (hist.cuh, rdx_hist_order). */
#include "common.cuh"
#include "hist.cuh"
#include "kernels.h"


/* Counts one key (head and tail keys; its top two digits where joint), and ORs its code
 * (less the MSD route's base) and complement into range; with check, *special |= the key
 * is special in NumPy's order and the code is rdx_numpy_checked_code's (the plain image
 * with top_only). */
template <typename K>
static __device__ __forceinline__ void hist_count_key(uint32_t *h, K key, const rdx_hist_digits &g, K *range,
                                                      K msd_base, bool check, bool top_only, bool *special,
                                                      const rdx_hist_joint *joint)
{
    const K c = (check ? rdx_numpy_checked_code(key, top_only, g.inf, special) : rdx_hist_code(key, g)) - msd_base;
    if (joint)
        rdx_hist_joint_count(*joint, c);
    else
        rdx_hist_count_code(h, c, g);
    rdx_or_vary(range, c);
}

/* This thread's rounds of 16-byte loads (rdx_hist_count_round), checking the keys for
 * NumPy's order where check, with the canonical code only where g.numpy. */
template <typename K, int UNROLL, bool BYTES, bool RANGE, bool JOINT = false>
static __device__ __forceinline__ void hist_count_rounds(uint32_t *h, const uint4 *vec, size_t first, size_t stride,
                                                         size_t nvec, const rdx_hist_digits &g, K *range, K msd_base,
                                                         bool check, bool *special,
                                                         const rdx_hist_joint *joint = nullptr)
{
    if (check)
        for (size_t base = first; base < nvec; base += stride * UNROLL)
            rdx_hist_count_round<K, UNROLL, BYTES, RANGE, true, true, JOINT>(h, vec, base, stride, nvec, g, range,
                                                                             msd_base, special, joint);
    else if (g.numpy)
        for (size_t base = first; base < nvec; base += stride * UNROLL)
            rdx_hist_count_round<K, UNROLL, BYTES, RANGE, false, true, JOINT>(h, vec, base, stride, nvec, g, range,
                                                                              msd_base, nullptr, joint);
    else /* (most sorts: no canonical code) */
        for (size_t base = first; base < nvec; base += stride * UNROLL)
            rdx_hist_count_round<K, UNROLL, BYTES, RANGE, false, false, JOINT>(h, vec, base, stride, nvec, g, range,
                                                                               msd_base, nullptr, joint);
}

/* The kind of the pair keys[j], keys[j + 1] (the order check: rdx_order_kind). */
template <typename K>
static __device__ __forceinline__ uint32_t pair_kind(const K *keys, size_t j, const rdx_hist_digits &g,
                                                     const rdx_hist_order<K> &o)
{
    return rdx_order_kind(rdx_order_bits(rdx_hist_code(keys[j], g), o), rdx_order_bits(rdx_hist_code(keys[j + 1], g), o));
}

/* The joint form's threads, and its shared counters (dynamic: 65536 16-bit ones). */
#define HIST_THREADS(KB, JOINT) ((JOINT) ? RDX_HIST_JOINT_THREADS(KB) : RDX_HIST_THREADS)
#define HIST_JOINT_WORDS 32768u
#define HIST_JOINT_BYTES (HIST_JOINT_WORDS * 4u)

/* JOINT: the joint form (rdx_hist_args.joint), which runs only where the plain one does
 * not: the route armed, not the recount. */
template <int KB, bool JOINT>
__global__ void __launch_bounds__(HIST_THREADS(KB, JOINT), JOINT ? 1 : RDX_HIST_MIN_BLOCKS(KB))
    rdx_histogram_kernel(const rdx_hist_args a)
{
    typedef typename rdx_uint<KB>::t K;
    enum { VEC = 16 / KB, UNROLL = RDX_HIST_KEYS / VEC > 0 ? RDX_HIST_KEYS / VEC : 1, THREADS = HIST_THREADS(KB, JOINT) };
    __shared__ uint32_t s_hist[JOINT ? 1 : RDX_HIST_MAX_CELLS];
    __shared__ uint32_t s_found; /* the kinds of pair the order check found (RDX_ORDER_*) */
    extern __shared__ uint4 s_dynamic[]; /* JOINT: the counters */
    rdx_chain_enter();
    /* Where the MSD route is armed, level 1 needs the counts of its top digit only (the 8
     * bits below the leading bits its sample found constant), and the bits that vary over
     * all the keys, which tell whether they were. The recount launch counts every digit, and
     * only where they were not, or where a top digit holds too many keys for level 2
     * (rdx_msd_falls_back). */
    const uint32_t state = a.msd_ctrl ? a.msd_ctrl[RDX_MSD_STATE] : RDX_MSD_OFF;
    if (a.recount && !(state == RDX_MSD_LEVEL1 && rdx_msd_falls_back(a.msd_ctrl, 8 * KB, a.top)))
        return;
    const bool top_only = KB >= 4 && !a.recount && state == RDX_MSD_LEVEL1; /* (4- and 8-byte keys only) */
    if (JOINT != (top_only && a.joint != NULL)) /* the other form's turn */
        return;
    /* Floats in NumPy's order: the MSD route sorts by the plain images, and the LSD passes
     * may run as their plain twins, both where no key is special there; a launch that reads
     * every key looks for one (a recount follows one that did). */
    const bool check_special = KB >= 4 && a.special && !a.recount;
    bool special = false;
    const int drop = top_only ? (int)a.msd_ctrl[RDX_MSD_DROP] : 0;
    const int skip = top_only ? a.passes - 1 : 0;
    const int passes = a.passes - skip;
    const uint32_t bins = 1u << a.radix_bits;
    const uint32_t cells = (uint32_t)passes * bins;
    uint32_t *const counts = a.counts + (size_t)skip * RDX_CUDA_MAX_BINS;
    if constexpr (JOINT)
        for (uint32_t j = threadIdx.x; j < HIST_JOINT_WORDS / 4u; j += THREADS)
            s_dynamic[j] = make_uint4(0u, 0u, 0u, 0u);
    else
        for (uint32_t j = threadIdx.x; j < cells; j += THREADS)
            s_hist[j] = 0u;
    if (threadIdx.x == 0)
        s_found = 0u;
    /* The first pass launch expects zeroed look-back words. */
    if (a.zero) {
        const size_t stride = (size_t)gridDim.x * THREADS;
        for (size_t j = (size_t)blockIdx.x * THREADS + threadIdx.x; j < a.zero_words; j += stride)
            a.zero[j] = 0u;
    }
    __syncthreads();

    const int begin = a.begin_bit + skip * a.radix_bits - drop;
    const rdx_hist_digits g = {passes, begin, a.end_bit, a.radix_bits, a.cls, a.desc, a.numpy, a.inf};
    /* JOINT: the second digit lies 8 bits below the top one (begin) */
    const rdx_hist_joint joint = {(uint32_t *)s_dynamic, a.joint, counts, begin - 8};
    const rdx_hist_joint *const jp = JOINT ? &joint : nullptr;
    const K *keys = (const K *)a.keys;
    size_t head = ((16u - ((uintptr_t)keys & 15u)) & 15u) / KB; /* keys before 16-byte alignment */
    if (head > a.count)
        head = a.count;
    const size_t nvec = (a.count - head) / VEC;
    const size_t tail = head + nvec * VEC;
    K range[2] = {(K)0, (K)0}; /* top_only: OR of the codes, and of their complements */
    /* The order check: pairs (j, j + 1) for j + 1 below `limit` (the next portion's first key
     * included), by the sort's bits (the MSD route's top digit counts other ones). */
    const size_t limit = a.count + (a.next_key ? 1u : 0u);
    const int compared = a.end_bit - a.begin_bit;
    rdx_hist_order<K> order = {keys + head, limit - head, a.begin_bit,
                               compared >= 8 * KB ? (K)~(K)0 : (K)(((K)1 << compared) - 1u),
                               a.unsorted ? RDX_ORDER_DESCENT | (a.reverse_ok ? RDX_ORDER_ASCENT : 0u) : 0u, 0u,
                               &s_found};
    if (blockIdx.x == 0) { /* head and tail keys that miss the 16-byte loads */
        const K msd_base = top_only ? (K)rdx_u64_of(a.msd_ctrl + RDX_MSD_BASE) : (K)0; /* the route's codes are less it */
        for (size_t j = threadIdx.x; j < head; j += THREADS) {
            hist_count_key(s_hist, keys[j], g, range, msd_base, check_special, top_only, &special, jp);
            if (rdx_order_checking(order) && j + 1 < limit)
                atomicOr(&s_found, pair_kind(keys, j, g, order) & order.want);
        }
        for (size_t j = tail + threadIdx.x; j < a.count; j += THREADS) {
            hist_count_key(s_hist, keys[j], g, range, msd_base, check_special, top_only, &special, jp);
            if (rdx_order_checking(order) && j + 1 < limit)
                atomicOr(&s_found, pair_kind(keys, j, g, order) & order.want);
        }
    }

    /* UNROLL 16-byte loads in flight per thread, then count them pass by pass. */
    const uint4 *vec = (const uint4 *)(keys + head);
    const size_t stride = (size_t)gridDim.x * THREADS;
    const size_t first = (size_t)blockIdx.x * THREADS + threadIdx.x;
    /* The order check first, while the warp finds the keys in order. (After the counting,
     * with each warp's find stored to global memory, it cost u32 uniform keys at 2^22 7%
     * against 2% here: H100, round 45.) */
    if (rdx_order_checking(order)) {
        const size_t lane = rdx_lane();
        for (size_t base = first; rdx_order_checking(order) && base - lane < nvec; base += stride * RDX_HIST_ORDER_VECS)
            rdx_hist_order_round<K, RDX_HIST_ORDER_VECS>(vec, base, stride, nvec, g, &order);
    }
    if constexpr (JOINT)
        hist_count_rounds<K, UNROLL, false, true, true>(s_hist, vec, first, stride, nvec, g, range,
                                                        (K)rdx_u64_of(a.msd_ctrl + RDX_MSD_BASE), check_special,
                                                        &special, jp);
    else if (top_only) /* (the base is loaded where it is used: held over the whole kernel it
                          spills at the 4-byte keys' 40-register cap) */
        hist_count_rounds<K, UNROLL, false, true>(s_hist, vec, first, stride, nvec, g, range,
                                                  (K)rdx_u64_of(a.msd_ctrl + RDX_MSD_BASE), check_special, &special);
    else if (passes == KB && g.begin_bit == 0 && g.end_bit == 8 * KB && g.radix_bits == 8 &&
             nvec >= stride * UNROLL * RDX_HIST_BYTES_MIN_ROUNDS)
        hist_count_rounds<K, UNROLL, true, false>(s_hist, vec, first, stride, nvec, g, range, 0, check_special,
                                                  &special);
    else
        hist_count_rounds<K, UNROLL, false, false>(s_hist, vec, first, stride, nvec, g, range, 0, check_special,
                                                   &special);
    __syncwarp();
    __syncthreads();
    if (threadIdx.x == 0 && s_found)
        atomicOr(a.unsorted, s_found); /* (set only where a.unsorted is) */

    if constexpr (!JOINT) {
        for (uint32_t j = threadIdx.x; j < cells; j += THREADS) {
            const uint32_t c = s_hist[j];
            if (c)
                atomicAdd(&counts[(j / bins) * RDX_CUDA_MAX_BINS + j % bins], c);
        }
    } else {
        /* The block's counters to the level-2 counts, two bins an 8-byte atomic (neither
         * total reaches 2^32: n is below it), and each top digit's sum to its count: PER
         * words a thread, ROW threads a top digit (a row of 128 words). */
        enum { PER = HIST_JOINT_WORDS / THREADS, ROW = 128 / PER };
        static_assert(PER % 4 == 0 && ROW >= 1 && ROW <= 32 && 128 % PER == 0, "whole vectors, rows within a warp");
        const uint32_t w0 = threadIdx.x * PER;
        uint32_t sum = 0;
#pragma unroll
        for (int q = 0; q < PER / 4; ++q) {
            const uint4 v = s_dynamic[w0 / 4u + (uint32_t)q];
            const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int e = 0; e < 4; ++e)
                if (w[e]) {
                    const uint32_t lo = w[e] & 0xffffu, hi = w[e] >> 16;
                    atomicAdd((unsigned long long *)(a.joint + 2u * (w0 + 4u * (uint32_t)q + (uint32_t)e)),
                              (unsigned long long)lo | (unsigned long long)hi << 32);
                    sum += lo + hi;
                }
        }
#pragma unroll
        for (int o = ROW / 2; o > 0; o /= 2)
            sum += __shfl_xor_sync(RDX_FULL_WARP, sum, o);
        if (threadIdx.x % ROW == 0 && sum)
            atomicAdd(&counts[w0 / 128u], sum);
        if (blockIdx.x == 0 && threadIdx.x == 0)
            a.msd_ctrl[RDX_MSD_JOINT] = 1u;
    }
    if (top_only) { /* each warp's ORs into the route's range words */
        const unsigned long long ones = rdx_warp_or64(range[0]), zeros = rdx_warp_or64(range[1]);
        const uint32_t w[4] = {(uint32_t)ones, (uint32_t)(ones >> 32), (uint32_t)zeros, (uint32_t)(zeros >> 32)};
#pragma unroll
        for (int i = 0; i < 4; ++i)
            if (rdx_lane() == 0 && w[i])
                atomicOr(&a.msd_ctrl[RDX_MSD_RANGE + i], w[i]);
    }
    if (check_special && __any_sync(RDX_FULL_WARP, special) && rdx_lane() == 0) /* (check_special: the block's) */
        atomicOr(a.special, 1u);
}

template <int KB, bool JOINT>
static cudaError_t launch_hist(const rdx_hist_args *a, int sms, cudaStream_t s)
{
    const size_t vecs = a->count / (16 / KB) + 1;
    size_t grid = (vecs + HIST_THREADS(KB, JOINT) - 1) / HIST_THREADS(KB, JOINT);
    const size_t cap = (size_t)(sms > 0 ? sms : 1) * (JOINT ? 1 : RDX_HIST_BLOCKS_PER_SM);
    if (grid > cap)
        grid = cap;
    if (grid < 1)
        grid = 1;
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, (unsigned)grid, HIST_THREADS(KB, JOINT), JOINT ? HIST_JOINT_BYTES : 0, s),
                              rdx_histogram_kernel<KB, JOINT>, *a);
}

cudaError_t rdx_launch_histogram(int kb, const rdx_hist_args *a, int sms, cudaStream_t s)
{
    if ((uint32_t)a->passes << a->radix_bits > RDX_HIST_MAX_CELLS)
        return cudaErrorInvalidValue;
    switch (kb) {
    case 1: return launch_hist<1, false>(a, sms, s);
    case 2: return launch_hist<2, false>(a, sms, s);
    case 4: return launch_hist<4, false>(a, sms, s);
    case 8: return launch_hist<8, false>(a, sms, s);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t rdx_launch_histogram_joint(int kb, const rdx_hist_args *a, int sms, cudaStream_t s)
{
    if (!a->joint || !a->msd_ctrl || a->recount)
        return cudaErrorInvalidValue;
    switch (kb) {
    case 4: return launch_hist<4, true>(a, sms, s);
    case 8: return launch_hist<8, true>(a, sms, s);
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t rdx_hist_init(void)
{
    cudaError_t e = cudaFuncSetAttribute((const void *)rdx_histogram_kernel<4, true>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)HIST_JOINT_BYTES);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute((const void *)rdx_histogram_kernel<8, true>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)HIST_JOINT_BYTES);
    return e;
}
