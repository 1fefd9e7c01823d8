/* What the one-launch kernels (small.cu, cluster.cu, grid.cu) share around the ranking of
 * rank.cuh: the carving of their shared memory, and the rank-and-place step of the
 * kernels whose blocks sort one array together (cluster, grid). Macros only: they expand
 * in the kernels as the code they replace, so the kernels compile as before. */
#ifndef RDX_CUDA_ONE_LAUNCH_CUH
#define RDX_CUDA_ONE_LAUNCH_CUH

#include "rank.cuh"

/* The top of a one-launch kernel (small.cu, cluster.cu, grid.cu): the dynamic shared
 * memory smem and the ranking's pointers into it at the offsets of its layout R
 * (rdx_rank_layout): s_keys, s_vals, s_wcnt, s_start, s_scan. */
#define RDX_RANK_SMEM(R, K, V)                                                                 \
    extern __shared__ __align__(16) unsigned char smem[];                                      \
    K *s_keys = (K *)(smem + R::KEYS);                                                         \
    V *s_vals = (V *)(smem + R::VALS);                                                         \
    uint32_t *s_wcnt = (uint32_t *)(smem + R::WCNT);                                           \
    uint32_t *s_start = (uint32_t *)(smem + R::START);                                         \
    uint32_t *s_scan = (uint32_t *)(smem + R::SCAN)

/* The step the cluster and grid kernels share once every block's digit counts are in:
 * thread d holds all (keys of digit d in all blocks, bins of them) and before (in the
 * blocks before this one); total is rdx_count_tile's result for this block's count keys.
 * When one digit holds all n keys the pass moves nothing: the same decision in every
 * block, through the flag skip in shared memory (not __syncthreads_or: ptxas 13.0 failed
 * on that in the grid kernel), and the kernel's pass loop continues. Else s_base[d] is the
 * first output slot of this block's keys of digit d and the tile is ranked by the digit
 * into s_keys / s_vals (s_start[d]: the first place of digit d there), synchronized.
 * A macro, not a function: as an inlined function the same steps compiled to other
 * instructions in both kernels (sm_90 cubins compared); this keeps them as they were. */
#define RDX_RANK_PLACE_OR_CONTINUE(VB, K, V, ITEMS, THREADS, key, val, count, n, shift, bits, bins, total, all,    \
                                   before, skip, s_base, s_wcnt, s_start, s_scan, s_keys, s_vals)               \
    if (threadIdx.x < bins && all == n)                                                                        \
        skip = 1;                                                                                               \
    __syncthreads();                                                                                            \
    if (skip)                                                                                                   \
        continue;                                                                                               \
    const uint32_t digit_start = rdx_block_excl_scan<THREADS>(threadIdx.x < bins ? all : 0u, s_scan);          \
    if (threadIdx.x < bins)                                                                                     \
        s_base[threadIdx.x] = digit_start + before;                                                             \
    __syncthreads();                                                                                            \
    rdx_offset_tile<THREADS>(total, bits, s_wcnt, s_start, s_scan);                                             \
    rdx_rank_scatter<VB, K, V, ITEMS, THREADS>(key, val, count, shift, bits, s_wcnt, s_keys, s_vals);            \
    __syncthreads()

#endif /* RDX_CUDA_ONE_LAUNCH_CUH */
