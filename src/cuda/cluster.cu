/* The cluster path (sm_90 and later): the whole sort in ONE launch of ONE thread-block
 * cluster, for RDX_SMALL_MAX_N < n <= RDX_CLUSTER_MAX_N.
 *
 * Like the grid path (grid.cu), each block keeps one tile of keys (RDX_CLUSTER_TILE, the
 * last block fewer) in registers for the whole sort, but the blocks meet at the cluster's
 * hardware barrier and talk through distributed shared memory (DSMEM) instead of global
 * memory. Block r of B holds the keys at positions [r * TILE, r * TILE + count) of the
 * current order. Per pass:
 *   1. count the tile's digits (rank.cuh) and store the counts into row r of the count
 *      table of EVERY block (B remote stores per digit; stores do not wait for an answer,
 *      loads would);
 *   2. cluster barrier (release/acquire: the counts are visible);
 *   3. from its own table, thread d adds up digit d over all blocks and over the blocks
 *      before r: this block's first global slot per digit (stable); a pass whose digit is
 *      the same in every key stops here, in every block alike;
 *   4. rank the tile into shared memory in digit order (rank.cuh), then thread j sends key
 *      j (and its value) to its slot: into the receive buffer of the block that owns the
 *      slot (slot / TILE), consecutive threads to consecutive slots;
 *   5. cluster barrier; each block loads its tile of the new order from its receive buffer.
 * The last pass sends each key straight to its slot in the output instead (decoded), and
 * needs no second barrier. Keys are encoded on the first load.
 *
 * Buffers: one receive buffer suffices, because every block has loaded its tile from it
 * before it arrives at the barrier of step 2, and nothing writes into it before that
 * barrier. The count table has two halves by pass parity: after a skipped pass a block may
 * store the next pass's counts while a slower one still reads this pass's.
 * Before its first remote store, each block waits until every block of the cluster has
 * started (a relaxed arrive at the start, the wait before step 1 of the first pass). No
 * block reads another's shared memory, and every remote store into a block's memory comes
 * before a barrier that the block passes, so a block may exit as soon as it is done. */
#include "common.cuh"
#include "kernels.h"
#include "one_launch.cuh" /* and rank.cuh */
#include "test_hooks.h"

static_assert(RDX_CLUSTER_MAX_BLOCKS >= 1 && RDX_CLUSTER_MAX_BLOCKS <= 16, "a cluster holds at most 16 blocks");
static_assert(RDX_CLUSTER_THREADS >= RDX_CUDA_MAX_BINS && RDX_CLUSTER_THREADS <= 1024 &&
                  RDX_CLUSTER_THREADS % 32 == 0,
              "one thread per digit, at most 1024 threads, whole warps");

/* Shared memory: the ranking's (rank.cuh: the tile reordered by digit, the warps'
 * counters), then each digit's first global slot for this block, two skip flags, the
 * receive buffer (keys, values) and the count table [2][MAX_BLOCKS][256]. */
template <int KB, int VB> struct rdx_cluster_layout {
    static constexpr int THREADS = RDX_CLUSTER_THREADS;
    static constexpr int ITEMS = RDX_CLUSTER_ITEMS;
    static constexpr int TILE = THREADS * ITEMS;
    typedef rdx_rank_layout<KB, VB, THREADS, TILE> R;
    static constexpr size_t BASE = R::END;
    static constexpr size_t FLAG = BASE + RDX_CUDA_MAX_BINS * 4;
    static constexpr size_t RECV_KEYS = FLAG + 16;
    static constexpr size_t RECV_VALS = (RECV_KEYS + (size_t)TILE * KB + 15) / 16 * 16;
    static constexpr size_t CNT = (RECV_VALS + (size_t)TILE * VB + 15) / 16 * 16;
    static constexpr size_t CNT_HALF = (size_t)RDX_CLUSTER_MAX_BLOCKS * RDX_CUDA_MAX_BINS; /* words */
    static constexpr size_t NEED = CNT + 2 * CNT_HALF * 4;
    static constexpr size_t BYTES = NEED > RDX_CLUSTER_SMEM_FLOOR ? NEED : RDX_CLUSTER_SMEM_FLOOR;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* This block's rank in the cluster, and the cluster's blocks. */
static __device__ __forceinline__ uint32_t rdx_cluster_rank(void)
{
    uint32_t r;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
static __device__ __forceinline__ uint32_t rdx_cluster_size(void)
{
    uint32_t r;
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}

/* The address of the same shared-memory word in block `rank` of the cluster. */
static __device__ __forceinline__ uint32_t rdx_mapa(const void *local, uint32_t rank)
{
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(local);
    uint32_t r;
    asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}

/* Stores into another block's shared memory, one per width. */
static __device__ __forceinline__ void rdx_st_cluster(uint32_t addr, uint8_t v)
{
    asm volatile("st.shared::cluster.u8 [%0], %1;" ::"r"(addr), "r"((uint32_t)v) : "memory");
}
static __device__ __forceinline__ void rdx_st_cluster(uint32_t addr, uint16_t v)
{
    asm volatile("st.shared::cluster.u16 [%0], %1;" ::"r"(addr), "h"(v) : "memory");
}
static __device__ __forceinline__ void rdx_st_cluster(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
static __device__ __forceinline__ void rdx_st_cluster(uint32_t addr, unsigned long long v)
{
    asm volatile("st.shared::cluster.u64 [%0], %1;" ::"r"(addr), "l"(v) : "memory");
}

/* Cluster barrier: every thread of every block arrives (release: its shared-memory stores,
 * local and remote, become visible) and waits for all (acquire). Also a block barrier. */
static __device__ __forceinline__ void rdx_cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
/* The same in two halves, without ordering: "this block has started". */
static __device__ __forceinline__ void rdx_cluster_arrive_relaxed(void)
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
static __device__ __forceinline__ void rdx_cluster_wait(void)
{
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}
#endif

template <int KB, int VB>
__global__ void __launch_bounds__(RDX_CLUSTER_THREADS, 1) rdx_cluster_kernel(const rdx_cluster_args a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef rdx_cluster_layout<KB, VB> L;
    typedef typename rdx_uint<KB>::t K;
    typedef typename rdx_uint<(VB ? VB : 4)>::t V;
    RDX_RANK_SMEM(L::R, K, V);
    uint32_t *s_base = (uint32_t *)(smem + L::BASE);
    volatile uint32_t *s_skip = (volatile uint32_t *)(smem + L::FLAG);
    K *r_keys = (K *)(smem + L::RECV_KEYS);
    V *r_vals = (V *)(smem + L::RECV_VALS);
    uint32_t *s_cnt = (uint32_t *)(smem + L::CNT);

    const uint32_t blocks = rdx_cluster_size(), rank = rdx_cluster_rank();
    const uint32_t n = (uint32_t)a.n;
    const uint32_t chunk = rank * (uint32_t)L::TILE;
    const uint32_t count = min((uint32_t)L::TILE, n - chunk);
    const uint32_t first = (threadIdx.x >> 5) * 32u * L::ITEMS + rdx_lane();
    const K *kin = (const K *)a.keys_in;
    const V *vin = (const V *)a.vals_in;
    K *kout = (K *)a.keys_out;
    V *vout = (V *)a.vals_out;

    K key[L::ITEMS];
    V val[L::ITEMS];
    rdx_load_tile<VB>(kin, vin, chunk, count, first, a.cls, a.desc, key, val);
    rdx_cluster_arrive_relaxed();

    bool stored = false; /* the last pass wrote the output */
    const int passes = (a.end_bit - a.begin_bit + a.radix_bits - 1) / a.radix_bits;
    for (int p = 0; p < passes; ++p) {
        const int shift = a.begin_bit + p * a.radix_bits;
        const int bits = min(a.radix_bits, a.end_bit - shift);
        const uint32_t bins = 1u << bits;
        if (threadIdx.x == 0) /* last read two passes ago, many barriers back */
            s_skip[p & 1] = 0;
        const uint32_t total = rdx_count_tile<K, L::ITEMS, L::THREADS>(key, count, shift, bits, s_wcnt);
        if (p == 0)
            rdx_cluster_wait(); /* every block has started: its shared memory can be written */
        uint32_t *cnt = s_cnt + (size_t)(p & 1) * L::CNT_HALF;
        if (threadIdx.x < bins) {
            const uint32_t *mine = &cnt[rank * RDX_CUDA_MAX_BINS + threadIdx.x];
            for (uint32_t t = 0; t < blocks; ++t)
                rdx_st_cluster(rdx_mapa(mine, t), total);
        }
        rdx_cluster_sync();

        /* Thread d: keys of digit d in all blocks, and in the blocks before this one. */
        uint32_t all = 0, before = 0;
        if (threadIdx.x < bins) {
            for (uint32_t t = 0; t < blocks; ++t) {
                const uint32_t c = cnt[t * RDX_CUDA_MAX_BINS + threadIdx.x];
                all += c;
                before += t < rank ? c : 0u;
            }
        }
        RDX_RANK_PLACE_OR_CONTINUE(VB, K, V, L::ITEMS, L::THREADS, key, val, count, n, shift, bits, bins, total, all,
                                   before, s_skip[p & 1], s_base, s_wcnt, s_start, s_scan, s_keys, s_vals);
        const uint32_t mask = bins - 1u;

        if (p + 1 == passes) {
            /* The last pass: every key to its slot in the output. Every block loaded its
             * input before the barrier above, so the output may be the input. */
            for (uint32_t j = threadIdx.x; j < count; j += L::THREADS) {
                const K k = s_keys[j];
                const uint32_t d = rdx_digit(k, shift, mask);
                const uint32_t slot = s_base[d] + j - s_start[d];
                if (kout)
                    kout[slot] = rdx_dec(k, a.cls, a.desc);
                if (VB)
                    vout[slot] = s_vals[j];
            }
            stored = true;
            break;
        }

        /* Every key to the receive buffer of the block that owns its slot. */
        for (uint32_t j = threadIdx.x; j < count; j += L::THREADS) {
            const K k = s_keys[j];
            const uint32_t d = rdx_digit(k, shift, mask);
            const uint32_t slot = s_base[d] + j - s_start[d];
            const uint32_t owner = slot / (uint32_t)L::TILE;
            const uint32_t at = slot - owner * (uint32_t)L::TILE;
            rdx_st_cluster(rdx_mapa(&r_keys[at], owner), k);
            if (VB)
                rdx_st_cluster(rdx_mapa(&r_vals[at], owner), s_vals[j]);
        }
        rdx_cluster_sync();
#pragma unroll
        for (int i = 0; i < L::ITEMS; ++i) {
            const uint32_t pos = first + (uint32_t)i * 32u;
            if (pos < count) {
                key[i] = r_keys[pos];
                if (VB)
                    val[i] = r_vals[pos];
            }
        }
    }

    if (!stored) { /* the last passes were skipped: the tile in registers is in order */
        rdx_store_tile<VB>(kout, vout, chunk, count, first, a.cls, a.desc, key, val);
    }
#else
    (void)a; /* no clusters before sm_90: never launched there (rdx_cluster_init) */
#endif
}

/* Most blocks of a cluster of each instantiation that the device can place, per device:
 * 0 not known yet, -1 the path is off. Written once per device by rdx_cluster_init; a
 * race only repeats the same queries. */
#define RDX_CLUSTER_DEVICES 64
#define RDX_CLUSTER_KINDS 12
static volatile int g_max_blocks[RDX_CLUSTER_DEVICES][RDX_CLUSTER_KINDS];

static int kind_index(int kb, int vb)
{
    const int k = kb == 1 ? 0 : kb == 2 ? 1 : kb == 4 ? 2 : kb == 8 ? 3 : -1;
    const int v = vb == 0 ? 0 : vb == 4 ? 1 : vb == 8 ? 2 : -1;
    return k < 0 || v < 0 ? -1 : k * 3 + v;
}

static size_t cluster_blocks(size_t n) { return (n + RDX_CLUSTER_TILE - 1) / RDX_CLUSTER_TILE; }

template <int KB, int VB>
static cudaError_t launch_cluster(const rdx_cluster_args *a, cudaStream_t s)
{
    const unsigned blocks = (unsigned)cluster_blocks((size_t)a->n);
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1] = {};
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = blocks;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(RDX_CLUSTER_THREADS);
    cfg.dynamicSmemBytes = rdx_cluster_layout<KB, VB>::BYTES;
    cfg.stream = s;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, rdx_cluster_kernel<KB, VB>, *a);
}

/* The largest cluster (RDX_CLUSTER_MAX_BLOCKS, else 8) of this kernel that the current
 * device can place, or -1. Any failure means -1; its error is cleared. */
template <int KB, int VB>
static int probe_cluster(void)
{
    const void *f = (const void *)rdx_cluster_kernel<KB, VB>;
    const size_t bytes = rdx_cluster_layout<KB, VB>::BYTES;
    cudaFuncAttributes fa;
    /* An image built for sm_90 or later: a kernel JIT-compiled from older PTX is empty. */
    if (cudaFuncGetAttributes(&fa, f) != cudaSuccess || fa.ptxVersion < 90 || fa.binaryVersion < 90 ||
        cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    int sizes[2] = {RDX_CLUSTER_MAX_BLOCKS, RDX_CLUSTER_MAX_BLOCKS < 8 ? RDX_CLUSTER_MAX_BLOCKS : 8};
    if (sizes[0] > 8 && cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
        (void)cudaGetLastError();
        sizes[0] = sizes[1];
    }
    for (int i = 0; i < 2; ++i) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1] = {};
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = (unsigned)sizes[i];
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3((unsigned)sizes[i]);
        cfg.blockDim = dim3(RDX_CLUSTER_THREADS);
        cfg.dynamicSmemBytes = bytes;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, f, &cfg) != cudaSuccess) {
            (void)cudaGetLastError();
            clusters = 0;
        }
        if (clusters >= 1)
            return sizes[i];
    }
    return -1;
}

template <int KB, int VB>
static void init_cluster(int dev, int usable)
{
    g_max_blocks[dev][kind_index(KB, VB)] = usable ? probe_cluster<KB, VB>() : -1;
}

cudaError_t rdx_cluster_init(void)
{
    int dev = 0, major = 0, cluster_launch = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, dev);
    if (e != cudaSuccess || dev < 0 || dev >= RDX_CLUSTER_DEVICES) {
        (void)cudaGetLastError();
        return e;
    }
    const int usable = RDX_CLUSTER_MAX_N > 0 && major >= 9 && cluster_launch;
#define RDX_CLUSTER_INIT(KB, VB) init_cluster<KB, VB>(dev, usable);
    RDX_FOR_EACH_KV(RDX_CLUSTER_INIT)
    return cudaSuccess;
}

/* The most blocks per cluster found for (kb, vb) on the current device; 0: path off. */
static int max_blocks(int kb, int vb)
{
    int dev = 0;
    const int k = kind_index(kb, vb);
    if (k < 0 || cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= RDX_CLUSTER_DEVICES)
        return 0;
    const int m = g_max_blocks[dev][k];
    return m > 0 ? m : 0;
}

int rdx_cluster_fits(int kb, int vb, size_t n)
{
    return n > 0 && cluster_blocks(n) <= (size_t)max_blocks(kb, vb);
}

int rdx_cuda_cluster_max_blocks(size_t key_bytes, size_t value_bytes)
{
    return max_blocks((int)key_bytes, (int)value_bytes);
}

cudaError_t rdx_launch_cluster(int kb, int vb, const rdx_cluster_args *a, cudaStream_t s)
{
#define RDX_CLUSTER_CASE(KB, VB) \
    case KB * 16 + VB: return launch_cluster<KB, VB>(a, s);
    switch (kb * 16 + vb) {
        RDX_FOR_EACH_KV(RDX_CLUSTER_CASE)
    default: return cudaErrorInvalidValue;
    }
}
