/* Hooks for tests/test_cuda.c, never for users: plain C, no CUDA header. */
#ifndef RDX_CUDA_TEST_HOOKS_H
#define RDX_CUDA_TEST_HOOKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Inputs up to n keys use the pass kernel's medium tile shape from now on (default
 * RDX_OS_MEDIUM_MAX_N); 0 makes every input above the small-n limit use the large shape,
 * so that the suite's sizes reach it. Not thread-safe; for tests only. */
void rdx_cuda_set_medium_max_n(size_t n);
/* Inputs up to n keys (above the small-n limit) take the one-launch grid path when it
 * fits the device (default RDX_GRID_MAX_N); 0 turns it off. Tests only. */
void rdx_cuda_set_grid_max_n(size_t n);
/* Inputs up to n keys (above the small-n limit) take the one-cluster path (sm_90+) when
 * the device can place the cluster (default RDX_CLUSTER_MAX_N); 0 turns it off, and the
 * grid path serves them. Tests only. */
void rdx_cuda_set_cluster_max_n(size_t n);
/* The same limit for sorts with values (default RDX_CLUSTER_PAIRS_MAX_N). Tests only. */
void rdx_cuda_set_cluster_pairs_max_n(size_t n);
/* The most blocks of one cluster the current device can place for key_bytes keys with
 * value_bytes values (0, 4, 8); 0 when the cluster path is off there (before sm_90, or
 * before the first sort on this device prepared it). */
int rdx_cuda_cluster_max_blocks(size_t key_bytes, size_t value_bytes);
/* One launch of the pass kernel covers at most n keys (rounded down to whole tiles, at
 * least one tile) from now on; 0 restores the default (the look-back count limit, about
 * 2^30), so that small inputs reach the multi-portion path. Change it only between sorts
 * (the temporary size depends on it). Tests only. */
void rdx_cuda_set_portion_max_n(size_t n);

/* 8-byte integer key sorts (keys only, or pairs with 4- or 8-byte values; the whole
 * key, default digits) of at least n keys take the MSD route (msd.cu) when the device's
 * skew test lets them (default RDX_MSD_MIN_N;
 * 0 restores it). Change it only between sorts (the temporary size depends on it). Tests
 * only. */
void rdx_cuda_set_msd_min_n(size_t n);
/* The route the last sort enqueued with the MSD route planned took, read from the device
 * after a device-wide synchronization (so: after that sort finished, before the next
 * sort): -1 none was planned (the LSD passes or another path ran), 0 the skew test
 * declined it (LSD), 2 MSD ran, 3 it fell back to LSD after level 2's histogram (a level-2
 * bucket above level 3's capacity, RDX_MSD_L3_CAP or RDX_MSD_L3_CAP_PAIRS), 1 an
 * inconsistent state, -2 the read failed.
 * *slow_blocks (if not NULL): level-3 blocks that sorted their bucket by on-chip LSD
 * passes (a sub-bucket above 64 keys). Tests only. */
int rdx_cuda_last_msd_route(unsigned *slow_blocks);

#ifdef __cplusplus
}
#endif

#endif /* RDX_CUDA_TEST_HOOKS_H */
