/* The counting route's kernels (route_count.cu): a sort of 1- and 2-byte keys alone over
 * all their bits needs no scatter. Equal keys are then identical bit patterns, so the
 * sorted array is each key value repeated as often as it occurs: count every value once
 * (rdx_count_hist_kernel), turn the counts into first positions (rdx_count_scan_kernel),
 * and write the runs (rdx_count_fill_kernel). One read and one write of the keys, instead
 * of a histogram read and a read and a write per digit pass; no scratch but the counts.
 *
 * Values are counted in the mapped (encoded) order, so the runs come out in the sort's
 * order for every key class and direction, and are written back decoded. */
#include "common.cuh"
#include "kernels.h"
#include "rank.cuh" /* rdx_warp_incl_scan */

/* Bins counted by one block: every value of a 1-byte key; half of the 2-byte values (the
 * block's blockIdx.y says which half), 128 KB of shared memory. */
template <int KB> struct rdx_count_shape {
    static constexpr uint32_t BINS = 1u << (8 * KB);
    static constexpr uint32_t BLOCK_BINS = BINS < RDX_COUNT_BLOCK_BINS ? BINS : RDX_COUNT_BLOCK_BINS;
    static constexpr uint32_t PARTS = BINS / BLOCK_BINS;
    static constexpr size_t SMEM = (size_t)BLOCK_BINS * 4;
};

template <int KB>
static __device__ __forceinline__ void count_key(uint32_t *s_bins, typename rdx_uint<KB>::t k, uint32_t part,
                                                 const rdx_count_args &a)
{
    typedef rdx_count_shape<KB> S;
    const uint32_t e = rdx_enc(k, a.cls, a.desc);
    if (S::PARTS == 1)
        atomicAdd(&s_bins[e], 1u);
    else if (e / S::BLOCK_BINS == part)
        atomicAdd(&s_bins[e % S::BLOCK_BINS], 1u);
}

template <int KB>
__global__ void __launch_bounds__(RDX_COUNT_THREADS) rdx_count_hist_kernel(const rdx_count_args a)
{
    rdx_chain_enter();
    typedef rdx_count_shape<KB> S;
    typedef typename rdx_uint<KB>::t K;
    enum { VEC = 16 / KB };
    extern __shared__ uint32_t s_bins[];
    const uint32_t part = blockIdx.y;
    for (uint32_t j = threadIdx.x; j < S::BLOCK_BINS; j += RDX_COUNT_THREADS)
        s_bins[j] = 0u;
    __syncthreads();

    const K *keys = (const K *)a.keys_in;
    /* Keys before the first 16-byte boundary and after the last whole vector: block 0 of
     * each part counts them one by one. */
    size_t head = ((16u - ((uintptr_t)keys & 15u)) & 15u) / KB;
    if (head > a.n)
        head = a.n;
    const size_t nvec = (a.n - head) / VEC;
    if (blockIdx.x == 0) {
        for (size_t j = threadIdx.x; j < head; j += RDX_COUNT_THREADS)
            count_key<KB>(s_bins, keys[j], part, a);
        for (size_t j = head + nvec * VEC + threadIdx.x; j < a.n; j += RDX_COUNT_THREADS)
            count_key<KB>(s_bins, keys[j], part, a);
    }
    /* Two vectors in flight per thread (one block per SM where the bins take 128 KB). */
    const uint4 *vec = (const uint4 *)(keys + head);
    const size_t stride = (size_t)gridDim.x * RDX_COUNT_THREADS;
    for (size_t v = (size_t)blockIdx.x * RDX_COUNT_THREADS + threadIdx.x; v < nvec; v += 2 * stride) {
        const bool second = v + stride < nvec;
        union { uint4 raw[2]; K k[2 * VEC]; } u;
        u.raw[0] = vec[v];
        u.raw[1] = second ? vec[v + stride] : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
        for (int j = 0; j < VEC; ++j)
            count_key<KB>(s_bins, u.k[j], part, a);
        if (second) {
#pragma unroll
            for (int j = VEC; j < 2 * VEC; ++j)
                count_key<KB>(s_bins, u.k[j], part, a);
        }
    }
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < S::BLOCK_BINS; j += RDX_COUNT_THREADS) {
        const uint32_t c = s_bins[j];
        if (c)
            atomicAdd(&a.counts[part * S::BLOCK_BINS + j], (unsigned long long)c);
    }
}

/* starts[v] = the keys below value v (exclusive scan of the counts), starts[BINS] = n.
 * One block, ROUNDS rounds of RDX_COUNT_THREADS consecutive bins: every count is loaded
 * up front (coalesced, all in flight at once), then each round is a block-wide scan plus
 * the total of the rounds before. (A thread per run of 64 bins, loaded one by one, took
 * ~0.15 ms for 65536 bins: each load waited for the one before.) */
template <int KB> __global__ void __launch_bounds__(RDX_COUNT_THREADS) rdx_count_scan_kernel(const rdx_count_args a)
{
    rdx_chain_enter();
    typedef rdx_count_shape<KB> S;
    enum { ROUNDS = (S::BINS + RDX_COUNT_THREADS - 1) / RDX_COUNT_THREADS, WARPS = RDX_COUNT_THREADS / 32 };
    __shared__ unsigned long long s_warp[WARPS];
    __shared__ unsigned long long s_carry;
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    unsigned long long c[ROUNDS];
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
        const uint32_t bin = (uint32_t)r * RDX_COUNT_THREADS + threadIdx.x;
        c[r] = bin < S::BINS ? a.counts[bin] : 0ull;
    }
    if (threadIdx.x == 0)
        s_carry = 0;
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
        const unsigned long long x = rdx_warp_incl_scan(c[r], lane);
        if (lane == 31)
            s_warp[warp] = x;
        __syncthreads();
        if (warp == 0) { /* exclusive scan of the warps' totals */
            const unsigned long long w = lane < WARPS ? s_warp[lane] : 0ull;
            const unsigned long long inc = rdx_warp_incl_scan(w, lane);
            if (lane < WARPS)
                s_warp[lane] = inc - w;
        }
        __syncthreads();
        const unsigned long long excl = s_carry + s_warp[warp] + x - c[r];
        const uint32_t bin = (uint32_t)r * RDX_COUNT_THREADS + threadIdx.x;
        if (bin < S::BINS)
            a.starts[bin] = excl;
        __syncthreads(); /* every thread has read s_carry and s_warp */
        if (threadIdx.x == RDX_COUNT_THREADS - 1)
            s_carry = excl + c[r];
    }
    if (threadIdx.x == RDX_COUNT_THREADS - 1)
        a.starts[S::BINS] = a.n;
}

/* The last value v in [lo, BINS) whose run starts at or before position i (starts[lo] <= i
 * is known): its run holds i. */
template <int KB>
static __device__ __forceinline__ uint32_t value_at(const unsigned long long *starts, uint32_t lo, size_t i)
{
    uint32_t hi = rdx_count_shape<KB>::BINS; /* starts[hi] = n > i */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (__ldg(starts + mid) <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The key at position i, given the value v found for an earlier position. */
template <int KB>
static __device__ __forceinline__ typename rdx_uint<KB>::t key_at(const rdx_count_args &a, uint32_t &v, size_t i)
{
    typedef typename rdx_uint<KB>::t K;
    if (__ldg(a.starts + v + 1) <= i)
        v = value_at<KB>(a.starts, v + 1, i);
    return rdx_dec((K)v, a.cls, a.desc);
}

/* Each thread writes 16 bytes of the output (one vector); the misaligned head and the
 * tail go one key at a time. */
template <int KB> __global__ void __launch_bounds__(RDX_COUNT_THREADS) rdx_count_fill_kernel(const rdx_count_args a)
{
    rdx_chain_enter();
    typedef typename rdx_uint<KB>::t K;
    enum { VEC = 16 / KB };
    K *out = (K *)a.keys_out;
    size_t head = ((16u - ((uintptr_t)out & 15u)) & 15u) / KB;
    if (head > a.n)
        head = a.n;
    const size_t nvec = (a.n - head) / VEC;
    const size_t stride = (size_t)gridDim.x * RDX_COUNT_THREADS;
    const size_t t0 = (size_t)blockIdx.x * RDX_COUNT_THREADS + threadIdx.x;
    for (size_t v = t0; v < nvec; v += stride) {
        const size_t i0 = head + v * VEC;
        uint32_t val = value_at<KB>(a.starts, 0, i0);
        union { uint4 raw; K k[VEC]; } u;
#pragma unroll
        for (int j = 0; j < VEC; ++j)
            u.k[j] = key_at<KB>(a, val, i0 + j);
        ((uint4 *)(out + head))[v] = u.raw;
    }
    const size_t tail = a.n - head - nvec * VEC;
    if (t0 < head + tail) {
        const size_t i = t0 < head ? t0 : head + nvec * VEC + (t0 - head);
        uint32_t val = value_at<KB>(a.starts, 0, i);
        out[i] = key_at<KB>(a, val, i);
    }
}

template <int KB> static unsigned hist_blocks(size_t n, int sms)
{
    /* enough blocks to fill the device, each counting at least RDX_COUNT_KEYS_PER_BIN keys
     * per bin it holds; with at most n / sms keys each, 32-bit counters never overflow */
    size_t blocks = (size_t)(sms > 0 ? sms : 1) * RDX_COUNT_BLOCKS_PER_SM;
    const size_t need = n / ((size_t)rdx_count_shape<KB>::BLOCK_BINS * RDX_COUNT_KEYS_PER_BIN);
    if (blocks > need)
        blocks = need ? need : 1;
    return (unsigned)blocks;
}

template <int KB> static cudaError_t launch(const rdx_count_args *a, int sms, cudaStream_t s)
{
    typedef rdx_count_shape<KB> S;
    cudaError_t e = cudaMemsetAsync(a->counts, 0, (size_t)S::BINS * sizeof *a->counts, s);
    const dim3 grid(hist_blocks<KB>(a->n, sms), S::PARTS);
    /* one thread per output vector, plus the head and tail keys (fewer than 2 vectors) */
    const size_t threads = (a->n * KB + 15) / 16 + 32 / KB;
    const unsigned blocks = rdx_resident_grid((threads + RDX_COUNT_THREADS - 1) / RDX_COUNT_THREADS, sms,
                                              RDX_COUNT_FILL_BLOCKS_PER_SM, 1);
    rdx_chain_launch l;
    if (e == cudaSuccess)
        e = cudaLaunchKernelEx(rdx_chain_config(&l, grid, RDX_COUNT_THREADS, S::SMEM, s), rdx_count_hist_kernel<KB>,
                               *a);
    if (e == cudaSuccess)
        e = cudaLaunchKernelEx(rdx_chain_config(&l, 1, RDX_COUNT_THREADS, 0, s), rdx_count_scan_kernel<KB>, *a);
    if (e == cudaSuccess)
        e = cudaLaunchKernelEx(rdx_chain_config(&l, blocks, RDX_COUNT_THREADS, 0, s), rdx_count_fill_kernel<KB>, *a);
    return e;
}

size_t rdx_count_bins(int kb) { return kb == 1 ? rdx_count_shape<1>::BINS : rdx_count_shape<2>::BINS; }

cudaError_t rdx_launch_count(int kb, const rdx_count_args *a, int sms, cudaStream_t s)
{
    return kb == 1 ? launch<1>(a, sms, s) : kb == 2 ? launch<2>(a, sms, s) : cudaErrorInvalidValue;
}

cudaError_t rdx_count_init(void)
{
    return cudaFuncSetAttribute((const void *)rdx_count_hist_kernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)rdx_count_shape<2>::SMEM);
}
