/* The small-n path: one block sorts up to RDX_SMALL_MAX_N keys (and their values) with
 * every pass on chip, in one launch: load once (encoding), rank and reorder through
 * shared memory once per digit, store once (decoding). Below a few thousand keys launch
 * overhead is the whole cost of a sort, so one launch is what matters. */
#include "common.cuh"
#include "kernels.h"
#include "one_launch.cuh" /* and rank.cuh */

/* Shared memory: the ranking's (rank.cuh) for a tile of RDX_SMALL_MAX_N keys, nothing else. */
template <int KB, int VB> struct rdx_small_layout {
    typedef rdx_rank_layout<KB, VB, RDX_SMALL_THREADS, RDX_SMALL_MAX_N> R;
    static constexpr int THREADS = RDX_SMALL_THREADS;
    static constexpr int ITEMS = RDX_SMALL_ITEMS;
    static constexpr size_t BYTES = R::END;
};

template <int KB, int VB>
__global__ void __launch_bounds__(RDX_SMALL_THREADS, 1) rdx_small_kernel(const rdx_small_args a)
{
    typedef rdx_small_layout<KB, VB> L;
    typedef typename rdx_uint<KB>::t K;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    RDX_RANK_SMEM(L::R, K, V);

    const uint32_t count = (uint32_t)a.n;
    const uint32_t first = (threadIdx.x >> 5) * 32u * L::ITEMS + rdx_lane();
    const K *kin = (const K *)a.keys_in;
    const V *vin = (const V *)a.vals_in;

    K key[L::ITEMS];
    V val[L::ITEMS];
    rdx_load_tile<VB>(kin, vin, 0u, count, first, a.cls, a.desc, key, val);

    const int passes = (a.end_bit - a.begin_bit + a.radix_bits - 1) / a.radix_bits;
    for (int p = 0; p < passes; ++p) {
        const int shift = a.begin_bit + p * a.radix_bits;
        const int bits = min(a.radix_bits, a.end_bit - shift);
        const uint32_t total = rdx_count_tile<K, L::ITEMS, L::THREADS>(key, count, shift, bits, s_wcnt);
        /* One digit holds every key: the pass would move nothing. */
        if (__syncthreads_or(threadIdx.x < (1u << bits) && total == count))
            continue;
        rdx_offset_tile<L::THREADS>(total, bits, s_wcnt, s_start, s_scan);
        rdx_rank_scatter<VB, K, V, L::ITEMS, L::THREADS>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < L::ITEMS; ++i) {
            const uint32_t pos = first + (uint32_t)i * 32u;
            if (pos < count) {
                key[i] = s_keys[pos];
                if (VB)
                    val[i] = s_vals[pos];
            }
        }
        __syncthreads();
    }

    K *kout = (K *)a.keys_out;
    V *vout = (V *)a.vals_out;
    rdx_store_tile<VB>(kout, vout, 0u, count, first, a.cls, a.desc, key, val);
}

template <int KB, int VB>
static cudaError_t launch_small(const rdx_small_args *a, cudaStream_t s)
{
    rdx_small_kernel<KB, VB><<<1, RDX_SMALL_THREADS, rdx_small_layout<KB, VB>::BYTES, s>>>(*a);
    return cudaGetLastError();
}

template <int KB, int VB>
static cudaError_t init_small(void)
{
    return cudaFuncSetAttribute((const void *)rdx_small_kernel<KB, VB>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)rdx_small_layout<KB, VB>::BYTES);
}

cudaError_t rdx_launch_small(int kb, int vb, const rdx_small_args *a, cudaStream_t s)
{
#define RDX_SMALL_CASE(KB, VB) \
    case KB * 16 + VB: return launch_small<KB, VB>(a, s);
    switch (kb * 16 + vb) {
        RDX_FOR_EACH_KV(RDX_SMALL_CASE)
    default: return cudaErrorInvalidValue;
    }
}

cudaError_t rdx_small_init(void)
{
    cudaError_t e = cudaSuccess;
#define RDX_SMALL_INIT(KB, VB) init_small<KB, VB>(),
    const cudaError_t r[12] = {RDX_FOR_EACH_KV(RDX_SMALL_INIT)};
    for (int i = 0; i < 12; ++i)
        if (r[i] != cudaSuccess && e == cudaSuccess)
            e = r[i];
    return e;
}
