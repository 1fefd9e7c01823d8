/* The out-of-core route's kernels (outcore.h): the split's histogram of one chunk, and the
 * stable two-way partition of one chunk (count per tile, one-block scan, scatter). They
 * run beside copies over PCIe, which bound the route: they are kept simple. */
#include "common.cuh"
#include "kernels.h"
#include "outcore.h"
#include "rank.cuh"

enum { OOC_T = RDX_OOC_THREADS, OOC_I = RDX_OOC_ITEMS, OOC_TILE = OOC_T * OOC_I };

/* v(k): the sorted bits of the mapped key, from bit 0. */
template <typename K> static __device__ __forceinline__ unsigned long long ooc_value(K k, const rdx_ooc_args &a)
{
    return rdx_sort_bits((uint64_t)k, (unsigned)sizeof(K), a.cls, a.desc, a.begin, a.begin + a.width);
}

template <int KB> __global__ void __launch_bounds__(RDX_COPY_THREADS) ooc_hist_kernel(const rdx_ooc_args a)
{
    typedef typename rdx_uint<KB>::t K;
    __shared__ uint32_t cnt[(1 << RDX_OOC_DIGIT_BITS) + 1];
    const uint32_t bins = 1u << (a.pl - a.shift);
    for (uint32_t d = threadIdx.x; d <= bins; d += blockDim.x)
        cnt[d] = 0;
    __syncthreads();
    const K *keys = (const K *)a.keys;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.m; i += stride) {
        const unsigned long long v = ooc_value(keys[i], a);
        const unsigned long long p = a.pl >= 64 ? 0ull : v >> a.pl;
        if (p == a.prefix)
            atomicAdd(&cnt[(uint32_t)(v >> a.shift) & (bins - 1u)], 1u);
        else if (p < a.prefix)
            atomicAdd(&cnt[bins], 1u);
    }
    __syncthreads();
    for (uint32_t d = threadIdx.x; d <= bins; d += blockDim.x)
        if (cnt[d])
            atomicAdd(&a.hist[d], (unsigned long long)cnt[d]);
}

/* A thread's OOC_I consecutive records of tile t: how many are below the boundary key and
 * how many equal to it, as bit masks over its items. */
template <typename K>
static __device__ __forceinline__ void ooc_flags(const rdx_ooc_args &a, size_t first, K *key, uint32_t *below,
                                                 uint32_t *equal)
{
    const K *keys = (const K *)a.keys;
    *below = *equal = 0;
    for (int i = 0; i < OOC_I; ++i) {
        if (first + i >= a.m)
            break;
        key[i] = keys[first + i];
        const unsigned long long v = ooc_value(key[i], a);
        *below |= (uint32_t)(v < a.key) << i;
        *equal |= (uint32_t)(v == a.key) << i;
    }
}

template <int KB> __global__ void __launch_bounds__(OOC_T) ooc_count_kernel(const rdx_ooc_args a)
{
    typedef typename rdx_uint<KB>::t K;
    __shared__ uint32_t s_sum[2];
    if (threadIdx.x < 2)
        s_sum[threadIdx.x] = 0;
    __syncthreads();
    K key[OOC_I];
    uint32_t below, equal;
    ooc_flags(a, (size_t)blockIdx.x * OOC_TILE + (size_t)threadIdx.x * OOC_I, key, &below, &equal);
    const uint32_t b = __reduce_add_sync(0xffffffffu, (uint32_t)__popc(below));
    const uint32_t e = __reduce_add_sync(0xffffffffu, (uint32_t)__popc(equal));
    if (rdx_lane() == 0) {
        atomicAdd(&s_sum[0], b);
        atomicAdd(&s_sum[1], e);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        a.tiles[blockIdx.x] = ((unsigned long long)s_sum[0] << 32) | s_sum[1];
}

/* One block: the tiles' exclusive scan, the chunk's totals, and the state for the next
 * chunk (outcore.h, RDX_OOC_*). */
__global__ void __launch_bounds__(RDX_OOC_SCAN_THREADS) ooc_scan_kernel(const rdx_ooc_args a, uint32_t tiles)
{
    enum { T = RDX_OOC_SCAN_THREADS };
    __shared__ uint32_t s_warp[T / 32];
    const uint32_t per = (tiles + T - 1) / T, t0 = threadIdx.x * per;
    const uint32_t t1 = t0 + per < tiles ? t0 + per : tiles;
    uint32_t b = 0, e = 0;
    for (uint32_t t = t0; t < t1; ++t) {
        b += (uint32_t)(a.tiles[t] >> 32);
        e += (uint32_t)a.tiles[t];
    }
    const uint32_t bx = rdx_block_excl_scan<T>(b, s_warp);
    __syncthreads();
    const uint32_t ex = rdx_block_excl_scan<T>(e, s_warp);
    uint32_t bp = bx, ep = ex;
    for (uint32_t t = t0; t < t1; ++t) {
        const unsigned long long w = a.tiles[t];
        a.tiles[t] = ((unsigned long long)bp << 32) | ep;
        bp += (uint32_t)(w >> 32);
        ep += (uint32_t)w;
    }
    if (threadIdx.x == T - 1) {
        unsigned long long *st = a.state;
        const unsigned long long eq_before = a.count - st[RDX_OOC_EQ_DONE] - ep;
        const unsigned long long want = a.take > eq_before ? a.take - eq_before : 0ull;
        const unsigned long long taken = want < ep ? want : ep;
        const unsigned long long cls0 = bp + taken;
        if (st[RDX_OOC_OVER] || cls0 > st[RDX_OOC_FILL]) { /* class 0 outgrew its buffer */
            st[RDX_OOC_OVER] = 1;
            st[RDX_OOC_REST] = RDX_OOC_NOT_SPLIT;
            return;
        }
        st[RDX_OOC_EQ_DONE] += ep;
        st[RDX_OOC_FILL] -= cls0;
        st[RDX_OOC_BASE] = st[RDX_OOC_FILL];
        st[RDX_OOC_REST] = a.m - cls0;
        st[RDX_OOC_TAKEN] = taken;
    }
}

template <int KB, int VB> __global__ void __launch_bounds__(OOC_T) ooc_scatter_kernel(const rdx_ooc_args a)
{
    typedef typename rdx_uint<KB>::t K;
    typedef typename rdx_uint<VB ? VB : 4>::t V;
    __shared__ uint32_t s_warp[OOC_T / 32];
    if (a.state[RDX_OOC_OVER])
        return;
    const size_t first = (size_t)blockIdx.x * OOC_TILE + (size_t)threadIdx.x * OOC_I;
    K key[OOC_I];
    uint32_t below, equal;
    ooc_flags(a, first, key, &below, &equal);
    /* Counts before this thread's items within the tile: below in the high half. */
    const uint32_t before = rdx_block_excl_scan<OOC_T>(((uint32_t)__popc(below) << 16) | (uint32_t)__popc(equal),
                                                       s_warp);
    const unsigned long long tile = a.tiles[blockIdx.x];
    size_t nb = (size_t)(tile >> 32) + (before >> 16), ne = (size_t)(uint32_t)tile + (before & 0xffffu);
    const size_t base = (size_t)a.state[RDX_OOC_BASE], taken = (size_t)a.state[RDX_OOC_TAKEN];
    const V *vals = (const V *)a.vals;
    for (int i = 0; i < OOC_I; ++i) {
        const size_t pos = first + i;
        if (pos >= a.m)
            break;
        const size_t r0 = nb + (ne < taken ? ne : taken); /* class-0 records before this one */
        const int is_below = (below >> i) & 1, is_equal = (equal >> i) & 1;
        if (is_below || (is_equal && ne < taken)) {
            ((K *)a.cls_keys)[base + r0] = key[i];
            if (VB)
                ((V *)a.cls_vals)[base + r0] = vals[pos];
        } else {
            ((K *)a.out_keys)[pos - r0] = key[i];
            if (VB)
                ((V *)a.out_vals)[pos - r0] = vals[pos];
        }
        nb += is_below;
        ne += is_equal;
    }
}

/* ---- launchers ---- */

cudaError_t rdx_ooc_histogram(const rdx_ooc_args *a, int sms, cudaStream_t s)
{
    const unsigned grid = rdx_copy_grid(a->m, sms);
    switch (a->kb) {
    case 1: ooc_hist_kernel<1><<<grid, RDX_COPY_THREADS, 0, s>>>(*a); break;
    case 2: ooc_hist_kernel<2><<<grid, RDX_COPY_THREADS, 0, s>>>(*a); break;
    case 4: ooc_hist_kernel<4><<<grid, RDX_COPY_THREADS, 0, s>>>(*a); break;
    default: ooc_hist_kernel<8><<<grid, RDX_COPY_THREADS, 0, s>>>(*a); break;
    }
    return cudaGetLastError();
}

cudaError_t rdx_ooc_partition(const rdx_ooc_args *a, cudaStream_t s)
{
    const uint32_t tiles = (uint32_t)((a->m + OOC_TILE - 1) / OOC_TILE);
    switch (a->kb) {
    case 1: ooc_count_kernel<1><<<tiles, OOC_T, 0, s>>>(*a); break;
    case 2: ooc_count_kernel<2><<<tiles, OOC_T, 0, s>>>(*a); break;
    case 4: ooc_count_kernel<4><<<tiles, OOC_T, 0, s>>>(*a); break;
    default: ooc_count_kernel<8><<<tiles, OOC_T, 0, s>>>(*a); break;
    }
    ooc_scan_kernel<<<1, RDX_OOC_SCAN_THREADS, 0, s>>>(*a, tiles);
#define OOC_SCATTER(KB, VB)                                                                                   \
    case KB * 16 + VB: ooc_scatter_kernel<KB, VB><<<tiles, OOC_T, 0, s>>>(*a); break;
    switch (a->kb * 16 + a->vb) {
        RDX_FOR_EACH_KV(OOC_SCATTER)
    default: return cudaErrorInvalidValue;
    }
#undef OOC_SCATTER
    return cudaGetLastError();
}
