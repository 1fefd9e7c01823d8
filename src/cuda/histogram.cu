/* The up-front histogram: the digit counts of every pass in one read of the keys
 * (DESIGN.md section 1, "all histograms up front"). The scan kernel turns them into the
 * first output slot of every digit, and a pass whose counts sit in one bin is skipped.
 *
 * Each block counts into shared memory and adds its bins to global memory once. Keys are
 * read 16 bytes per load, several loads in flight per thread. */
#include "common.cuh"
#include "kernels.h"


/* Counts one key in every pass (head and tail keys that miss the 16-byte loads). */
template <typename K>
static __device__ __forceinline__ void count_one(uint32_t *h, K k, const rdx_hist_args &a, uint32_t bins)
{
    k = rdx_enc(k, a.cls, a.desc);
    for (int p = 0; p < a.passes; ++p) {
        const int shift = a.begin_bit + p * a.radix_bits;
        const uint32_t mask = (1u << min(a.radix_bits, a.end_bit - shift)) - 1u;
        atomicAdd(&h[p * bins + rdx_digit(k, shift, mask)], 1u);
    }
}

template <int KB>
__global__ void __launch_bounds__(RDX_HIST_THREADS) rdx_histogram_kernel(const rdx_hist_args a)
{
    typedef typename rdx_uint<KB>::t K;
    enum { VEC = 16 / KB, UNROLL = RDX_HIST_KEYS / VEC > 0 ? RDX_HIST_KEYS / VEC : 1 };
    __shared__ uint32_t s_hist[RDX_HIST_MAX_CELLS];
    if (a.msd_gate && a.msd_gate[RDX_MSD_STATE] == RDX_MSD_ON)
        return;
    const uint32_t bins = 1u << a.radix_bits;
    const uint32_t cells = (uint32_t)a.passes * bins;
    for (uint32_t j = threadIdx.x; j < cells; j += RDX_HIST_THREADS)
        s_hist[j] = 0u;
    /* The first pass launch expects zeroed look-back words. */
    if (a.zero) {
        const size_t stride = (size_t)gridDim.x * RDX_HIST_THREADS;
        for (size_t j = (size_t)blockIdx.x * RDX_HIST_THREADS + threadIdx.x; j < a.zero_words; j += stride)
            a.zero[j] = 0u;
    }
    __syncthreads();

    const K *keys = (const K *)a.keys;
    size_t head = ((16u - ((uintptr_t)keys & 15u)) & 15u) / KB; /* keys before 16-byte alignment */
    if (head > a.count)
        head = a.count;
    const size_t nvec = (a.count - head) / VEC;
    const size_t tail = head + nvec * VEC;
    if (blockIdx.x == 0) {
        for (size_t j = threadIdx.x; j < head; j += RDX_HIST_THREADS)
            count_one(s_hist, keys[j], a, bins);
        for (size_t j = tail + threadIdx.x; j < a.count; j += RDX_HIST_THREADS)
            count_one(s_hist, keys[j], a, bins);
    }

    /* UNROLL 16-byte loads in flight per thread, then count them pass by pass.
     * Equal digits in a warp (sorted or low-entropy keys) cost little: the hardware merges
     * same-address increments of one instruction. */
    const uint4 *vec = (const uint4 *)(keys + head);
    const size_t stride = (size_t)gridDim.x * RDX_HIST_THREADS;
    for (size_t base = (size_t)blockIdx.x * RDX_HIST_THREADS + threadIdx.x; base < nvec;
         base += stride * UNROLL) {
        union { uint4 raw[UNROLL]; K k[UNROLL * VEC]; } u;
        int loaded = 0; /* vectors of this round that exist (a prefix) */
#pragma unroll
        for (int r = 0; r < UNROLL; ++r) {
            const bool ok = base + r * stride < nvec;
            u.raw[r] = ok ? vec[base + r * stride] : make_uint4(0u, 0u, 0u, 0u);
            loaded += ok;
        }
#pragma unroll
        for (int j = 0; j < UNROLL * VEC; ++j)
            u.k[j] = rdx_enc(u.k[j], a.cls, a.desc);
        for (int p = 0; p < a.passes; ++p) {
            const int shift = a.begin_bit + p * a.radix_bits;
            const uint32_t mask = (1u << min(a.radix_bits, a.end_bit - shift)) - 1u;
            uint32_t *h = s_hist + p * bins;
#pragma unroll
            for (int j = 0; j < UNROLL * VEC; ++j)
                if (j / VEC < loaded)
                    atomicAdd(&h[rdx_digit(u.k[j], shift, mask)], 1u);
        }
    }
    __syncwarp();
    __syncthreads();

    for (uint32_t j = threadIdx.x; j < cells; j += RDX_HIST_THREADS) {
        const uint32_t c = s_hist[j];
        if (c)
            atomicAdd(&a.counts[(j / bins) * RDX_CUDA_MAX_BINS + j % bins], c);
    }
}

template <int KB>
static cudaError_t launch_hist(const rdx_hist_args *a, int sms, cudaStream_t s)
{
    const size_t vecs = a->count / (16 / KB) + 1;
    size_t grid = (vecs + RDX_HIST_THREADS - 1) / RDX_HIST_THREADS;
    const size_t cap = (size_t)(sms > 0 ? sms : 1) * RDX_HIST_BLOCKS_PER_SM;
    if (grid > cap)
        grid = cap;
    if (grid < 1)
        grid = 1;
    rdx_histogram_kernel<KB><<<(unsigned)grid, RDX_HIST_THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}

cudaError_t rdx_launch_histogram(int kb, const rdx_hist_args *a, int sms, cudaStream_t s)
{
    if ((uint32_t)a->passes << a->radix_bits > RDX_HIST_MAX_CELLS)
        return cudaErrorInvalidValue;
    switch (kb) {
    case 1: return launch_hist<1>(a, sms, s);
    case 2: return launch_hist<2>(a, sms, s);
    case 4: return launch_hist<4>(a, sms, s);
    case 8: return launch_hist<8>(a, sms, s);
    default: return cudaErrorInvalidValue;
    }
}
