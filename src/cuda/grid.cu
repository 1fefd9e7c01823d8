/* The medium-n path: the whole sort in ONE launch of a grid of co-resident blocks.
 *
 * Between the one-block kernel (small.cu) and the onesweep path (a histogram, a scan and
 * one launch per pass), latency is set by the number of launches, not by bytes. Here each
 * block keeps one tile of keys (one of three shapes by n, tuning.h) in registers for the whole sort; per pass it
 *   1. counts its tile's digits and publishes them (counts[pass][block][digit]),
 *   2. waits at a grid barrier, then adds up the counts of all blocks: the digit's start
 *      over the whole input plus the keys of that digit in the blocks before it,
 *   3. ranks the tile in shared memory (rank.cuh) and writes each key to its global slot
 *      in a scratch buffer (every block's keys of one digit form one run: stable),
 *   4. waits at a grid barrier again and loads its tile of the new order.
 * A pass whose digit is the same for every key is skipped after step 2. Keys are encoded
 * on the first load and decoded on the final store, so the input may be the output.
 * NP: f32 and f64 keys in NumPy's order, ascending (rdx_np_key: the keys move as they are,
 * each digit taken from the key's canonical code), as on the LSD passes.
 *
 * The barrier needs every block resident at once: the launch is cooperative (the runtime
 * refuses a grid that cannot be resident, and places all blocks together, so that two
 * sorts on two streams cannot starve each other), and plan.cu uses this path only when
 * rdx_grid_fits says the grid fits the device. Scratch and counts are read with
 * L2-coherent loads (__ldcg): another block wrote them during this launch. */
#include "common.cuh"
#include "kernels.h"
#include "one_launch.cuh" /* and rank.cuh */
#if RDX_GRID_CG_SYNC
#include <cooperative_groups.h>
#endif

/* Shared memory: the ranking's (rank.cuh), then each digit's first global slot for this
 * block (s_base) and two skip flags. */
template <int KB, int VB, int SH> struct rdx_grid_layout {
    static constexpr int THREADS = RDX_GRID_SHAPE_THREADS(SH);
    static constexpr int ITEMS = RDX_GRID_SHAPE_ITEMS(SH);
    static constexpr int TILE = THREADS * ITEMS;
    typedef rdx_rank_layout<KB, VB, THREADS, TILE> R;
    static constexpr size_t BASE = R::END;
    static constexpr size_t FLAG = BASE + RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t BYTES = FLAG + 2 * 4;
};

/* Every block of the grid arrives, then leaves once `target` arrivals are counted (the
 * counter only grows during a launch: barrier k waits for k * gridDim.x). The fences
 * order this block's global writes before its arrival, and the others' before our reads. */
static __device__ __forceinline__ void rdx_grid_barrier(uint32_t *counter, uint32_t target)
{
#if RDX_GRID_CG_SYNC
    (void)counter;
    (void)target;
    cooperative_groups::this_grid().sync();
    return;
#endif
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(counter, 1u);
        while (rdx_load_status(counter) < target)
            __nanosleep(RDX_GRID_POLL_NS);
        __threadfence();
    }
    __syncthreads();
}

/* For digit d = threadIdx.x < bins: *all = keys of digit d in every block, *before = in
 * the blocks before this one (counts: [blocks][256] of this pass, written by the other
 * blocks before the last grid barrier). Thread t adds the four digits 4 (t % 64) .. + 3
 * over the blocks t / 64, t / 64 + THREADS / 64, ... with 16-byte loads, LOADS of them in
 * flight: one or two L2 round trips instead of blocks / LOADS; shared atomics then gather
 * the partial sums in s_all / s_before (zeroed, behind a barrier, by the caller). */
template <int THREADS>
static __device__ __forceinline__ void sum_counts(const uint32_t *counts, uint32_t blocks, uint32_t block,
                                                  uint32_t bins, uint32_t *s_all, uint32_t *s_before,
                                                  uint32_t *all, uint32_t *before)
{
    enum { GROUPS = THREADS / 64, LOADS = RDX_GRID_SUM_LOADS };
    static_assert(THREADS % 64 == 0, "64 threads cover the 256 digits");
    const uint32_t q = threadIdx.x % 64u, g = threadIdx.x / 64u;
    if (4u * q < bins) {
        uint4 sa = make_uint4(0u, 0u, 0u, 0u), sb = sa;
        for (uint32_t b0 = g; b0 < blocks; b0 += GROUPS * LOADS) {
            uint4 c[LOADS];
#pragma unroll
            for (int j = 0; j < LOADS; ++j) {
                const uint32_t b = b0 + (uint32_t)j * GROUPS;
                c[j] = b < blocks ? __ldcg((const uint4 *)(counts + (size_t)b * RDX_CUDA_MAX_BINS + 4u * q))
                                  : make_uint4(0u, 0u, 0u, 0u);
            }
#pragma unroll
            for (int j = 0; j < LOADS; ++j) {
                sa.x += c[j].x, sa.y += c[j].y, sa.z += c[j].z, sa.w += c[j].w;
                if (b0 + (uint32_t)j * GROUPS < block)
                    sb.x += c[j].x, sb.y += c[j].y, sb.z += c[j].z, sb.w += c[j].w;
            }
        }
        const uint32_t va[4] = {sa.x, sa.y, sa.z, sa.w}, vb[4] = {sb.x, sb.y, sb.z, sb.w};
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (4u * q + (uint32_t)k < bins) {
                atomicAdd(&s_all[4u * q + k], va[k]);
                atomicAdd(&s_before[4u * q + k], vb[k]);
            }
    }
    __syncthreads();
    *all = threadIdx.x < bins ? s_all[threadIdx.x] : 0u;
    *before = threadIdx.x < bins ? s_before[threadIdx.x] : 0u;
}

/* An L2-coherent load (another block wrote it in this launch) of a key or value. */
template <typename T> static __device__ __forceinline__ T grid_ldcg(const T *p) { return __ldcg(p); }
template <typename U> static __device__ __forceinline__ rdx_np_key<U> grid_ldcg(const rdx_np_key<U> *p)
{
    return {__ldcg(&p->u)};
}

template <int KB, int VB, int SH, int NP>
__global__ void __launch_bounds__(RDX_GRID_SHAPE_THREADS(SH), RDX_GRID_SHAPE_MIN_BLOCKS(SH)) rdx_grid_kernel(const rdx_grid_args a)
{
    typedef rdx_grid_layout<KB, VB, SH> L;
    typedef typename rdx_pass_key<KB, NP>::t K;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    RDX_RANK_SMEM(L::R, K, V);
    uint32_t *s_base = (uint32_t *)(smem + L::BASE);
    volatile uint32_t *s_skip = (volatile uint32_t *)(smem + L::FLAG);

    const uint32_t blocks = gridDim.x, block = blockIdx.x;
    const uint32_t n = (uint32_t)a.n;
    const uint32_t chunk = block * (uint32_t)L::TILE;
    const uint32_t count = min((uint32_t)L::TILE, n - chunk);
    const uint32_t first = (threadIdx.x >> 5) * 32u * L::ITEMS + rdx_lane();
    const K *kin = (const K *)a.keys_in;
    const V *vin = (const V *)a.vals_in;
    K *tk = (K *)a.keys_tmp;
    V *tv = (V *)a.vals_tmp;

    K key[L::ITEMS];
    V val[L::ITEMS];
    rdx_load_tile<VB>(kin, vin, chunk, count, first, a.cls, a.desc, key, val);

    uint32_t arrivals = 0;
    bool counted = false; /* this pass's counts were added up during the last scatter */
    const int passes = (a.end_bit - a.begin_bit + a.radix_bits - 1) / a.radix_bits;
    for (int p = 0; p < passes; ++p) {
        const int shift = a.begin_bit + p * a.radix_bits;
        const int bits = min(a.radix_bits, a.end_bit - shift);
        const uint32_t bins = 1u << bits;
        if (threadIdx.x == 0) /* last read two passes ago, many barriers back */
            s_skip[p & 1] = 0;
        /* sum_counts adds into these; their last readers (the previous scatter) are behind
         * the last grid barrier, and rdx_count_tile's barriers order this before it. */
        for (uint32_t d = threadIdx.x; d < RDX_CUDA_MAX_BINS; d += L::THREADS)
            s_start[d] = s_base[d] = 0u;
        const uint32_t total = rdx_count_tile<K, L::ITEMS, L::THREADS>(key, count, shift, bits, s_wcnt);
        uint32_t *counts = a.counts + (size_t)p * blocks * RDX_CUDA_MAX_BINS;
        if (!counted) {
            /* Up to a multiple of 4 digits (0 past bins): sum_counts reads them 4 at a time. */
            if (threadIdx.x < ((bins + 3u) & ~3u))
                counts[block * RDX_CUDA_MAX_BINS + threadIdx.x] = total;
            arrivals += blocks;
            rdx_grid_barrier(a.barrier, arrivals);
        }
        counted = false;

        uint32_t all, before;
        sum_counts<L::THREADS>(counts, blocks, block, bins, s_start, s_base, &all, &before);
        RDX_RANK_PLACE_OR_CONTINUE(VB, K, V, L::ITEMS, L::THREADS, key, val, count, n, shift, bits, bins, total, all,
                                   before, s_skip[p & 1], s_base, s_wcnt, s_start, s_scan, s_keys, s_vals);
        const uint32_t mask = bins - 1u;
        /* RDX_GRID_ONE_BARRIER: each key also counts itself, by the next pass's digit, in
         * the row of the block that will hold it (counts zeroed before the launch), so
         * the barrier after the scatter serves the next pass's counts as well. */
        const bool count_next = RDX_GRID_ONE_BARRIER && p + 1 < passes;
        const int shift2 = shift + a.radix_bits;
        const uint32_t mask2 = count_next ? (1u << min(a.radix_bits, a.end_bit - shift2)) - 1u : 0u;
        uint32_t *counts2 = counts + (size_t)blocks * RDX_CUDA_MAX_BINS;
        for (uint32_t j = threadIdx.x; j < count; j += L::THREADS) {
            const K k = s_keys[j];
            const uint32_t d = rdx_digit(k, shift, mask);
            const uint32_t slot = s_base[d] + j - s_start[d];
            tk[slot] = k;
            if (VB)
                tv[slot] = s_vals[j];
            if (count_next)
                atomicAdd(&counts2[(slot / (uint32_t)L::TILE) * RDX_CUDA_MAX_BINS + rdx_digit(k, shift2, mask2)], 1u);
        }
        counted = count_next;
        arrivals += blocks;
        rdx_grid_barrier(a.barrier, arrivals);
#pragma unroll
        for (int i = 0; i < L::ITEMS; ++i) {
            const uint32_t pos = first + (uint32_t)i * 32u;
            if (pos < count) {
                key[i] = grid_ldcg(&tk[chunk + pos]);
                if (VB)
                    val[i] = grid_ldcg(&tv[chunk + pos]);
            }
        }
    }

    K *kout = (K *)a.keys_out;
    V *vout = (V *)a.vals_out;
    rdx_store_tile<VB>(kout, vout, chunk, count, first, a.cls, a.desc, key, val);
}

/* Blocks of each instantiation one SM can hold, per device (0: not known yet). Written
 * once per device by rdx_grid_init; a race only repeats the same query. Kinds: the 12
 * (key, value) sizes, then the 6 of NumPy's order (4- and 8-byte keys). */
#define RDX_GRID_DEVICES 64
#define RDX_GRID_KINDS 18
static volatile int g_per_sm[RDX_GRID_DEVICES][RDX_GRID_KINDS][RDX_GRID_SHAPES];

static int kind_index(int kb, int vb, int np)
{
    const int k = kb == 1 ? 0 : kb == 2 ? 1 : kb == 4 ? 2 : kb == 8 ? 3 : -1;
    const int v = vb == 0 ? 0 : vb == 4 ? 1 : vb == 8 ? 2 : -1;
    if (k < 0 || v < 0 || (np && k < 2))
        return -1;
    return np ? 12 + (k - 2) * 3 + v : k * 3 + v;
}

template <int KB, int VB, int SH, int NP>
static cudaError_t launch_grid(const rdx_grid_args *a, unsigned grid, cudaStream_t s)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1] = {};
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(RDX_GRID_SHAPE_THREADS(SH));
    cfg.dynamicSmemBytes = rdx_grid_layout<KB, VB, SH>::BYTES;
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, rdx_grid_kernel<KB, VB, SH, NP>, *a);
}

template <int KB, int VB, int NP>
static cudaError_t launch_kv(int shape, const rdx_grid_args *a, unsigned grid, cudaStream_t s)
{
    switch (shape) {
    case 0: return launch_grid<KB, VB, 0, NP>(a, grid, s);
    case 1: return launch_grid<KB, VB, 1, NP>(a, grid, s);
    case 2: return launch_grid<KB, VB, 2, NP>(a, grid, s);
    default: return cudaErrorInvalidValue;
    }
}

template <int KB, int VB, int SH, int NP>
static cudaError_t init_grid(int dev)
{
    const void *f = (const void *)rdx_grid_kernel<KB, VB, SH, NP>;
    const int bytes = (int)rdx_grid_layout<KB, VB, SH>::BYTES;
    cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    int per_sm = 0;
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, RDX_GRID_SHAPE_THREADS(SH), (size_t)bytes);
    if (e == cudaSuccess && dev >= 0 && dev < RDX_GRID_DEVICES)
        g_per_sm[dev][kind_index(KB, VB, NP)][SH] = per_sm > 0 ? per_sm : -1;
    return e;
}

template <int KB, int VB, int NP>
static cudaError_t init_kv(int dev)
{
    cudaError_t e = init_grid<KB, VB, 0, NP>(dev);
    if (e == cudaSuccess)
        e = init_grid<KB, VB, 1, NP>(dev);
    if (e == cudaSuccess)
        e = init_grid<KB, VB, 2, NP>(dev);
    return e;
}

cudaError_t rdx_grid_init(void)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
#define RDX_GRID_INIT(KB, VB) init_kv<KB, VB, 0>(dev),
#define RDX_GRID_INIT_NP(KB, VB) init_kv<KB, VB, 1>(dev),
    const cudaError_t r[RDX_GRID_KINDS] = {RDX_FOR_EACH_KV(RDX_GRID_INIT) RDX_FOR_EACH_NP_KV(RDX_GRID_INIT_NP)};
    for (int i = 0; i < RDX_GRID_KINDS; ++i)
        if (r[i] != cudaSuccess && e == cudaSuccess)
            e = r[i];
    return e;
}

int rdx_grid_shape(size_t n) { return n <= RDX_GRID_S_MAX_N ? 0 : n <= RDX_GRID_M_MAX_N ? 1 : 2; }

size_t rdx_grid_tile(int shape) { return (size_t)RDX_GRID_SHAPE_THREADS(shape) * RDX_GRID_SHAPE_ITEMS(shape); }

int rdx_grid_fits(int kb, int vb, int np, int shape, size_t blocks, int sms)
{
    int dev = 0;
    const int k = kind_index(kb, vb, np);
    if (k < 0 || shape < 0 || shape >= RDX_GRID_SHAPES || cudaGetDevice(&dev) != cudaSuccess || dev < 0 ||
        dev >= RDX_GRID_DEVICES)
        return 0;
    const int per_sm = g_per_sm[dev][k][shape];
    return per_sm > 0 && blocks <= (size_t)per_sm * (size_t)sms;
}

cudaError_t rdx_launch_grid(int kb, int vb, int np, int shape, const rdx_grid_args *a, unsigned grid, cudaStream_t s)
{
#define RDX_GRID_CASE(KB, VB) \
    case KB * 16 + VB: return launch_kv<KB, VB, 0>(shape, a, grid, s);
#define RDX_GRID_CASE_NP(KB, VB) \
    case KB * 16 + VB: return launch_kv<KB, VB, 1>(shape, a, grid, s);
    if (np) {
        switch (kb * 16 + vb) {
            RDX_FOR_EACH_NP_KV(RDX_GRID_CASE_NP)
        default: return cudaErrorInvalidValue;
        }
    }
    switch (kb * 16 + vb) {
        RDX_FOR_EACH_KV(RDX_GRID_CASE)
    default: return cudaErrorInvalidValue;
    }
}
