/* Hooks for the GPU tests, never for users: plain C, no CUDA header. */
#ifndef RDX_CUDA_TEST_HOOKS_H
#define RDX_CUDA_TEST_HOOKS_H

#include <stddef.h>

#include "rdx.h"
#include "tuning_ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tuning of a CUDA context (tuning_ctx.h), NULL for any other. A test changes its
 * own context's limits through it (between sorts: the temporary size depends on them),
 * e.g. grid_max_n = 0 turns the grid route off, medium_max_n = mid_max_n = 0 makes every
 * input above the small-n limit use the pass kernel's large tile shape (mid_max_n = SIZE_MAX
 * its mid shape where it has one), a small portion_max_n reaches
 * the multi-portion LSD passes and msd_min_n = msd4_min_n = 2^17 the MSD route with small inputs
 * (and a small msd_max_n its rule for keys that use part of the top digit's values).
 * Other contexts keep theirs. rdx_cuda_tuning_defaults restores tuning.h's limits (and
 * forgets the device facts: the next sort fills them in again). */
rdx_cuda_tuning *rdx_cuda_ctx_tuning(rdx_ctx *ctx);

/* The most blocks of one cluster the current device can place for key_bytes keys with
 * value_bytes values (0, 4, 8); 0 when the cluster route is off there (before sm_90, or
 * before the first context on this device prepared it). */
int rdx_cuda_cluster_max_blocks(size_t key_bytes, size_t value_bytes);

/* The MSD route's state after the last sort enqueued on ctx with the route planned, read
 * from the device after a device-wide synchronization (so: after that sort finished,
 * before the next sort on ctx): -1 none was planned (another route ran), 0 the skew test
 * declined it (LSD), 2 MSD ran, 3 the histogram found leading bits varying that the
 * sample had dropped (LSD, on a recount), 4 the histogram found the keys in order
 * (nothing ran), 5 in the reverse order (one LSD pass reversed them), 1 an inconsistent
 * state, -2 the read failed.
 * *c (if not NULL; all 0 unless read) gets what the route counted: */
typedef struct rdx_cuda_msd_counts {
    unsigned slow_blocks;  /* level-3 blocks that sorted their bucket by on-chip LSD passes (a
                              sub-bucket above 64 keys) */
    unsigned long_buckets; /* level-2 buckets above level 3's capacity (RDX_MSD_L3_CAP or
                              RDX_MSD_L3_CAP_PAIRS), which a wider shape of level 3 sorted, or
                              the deep level split (8-byte keys) or the segmented passes sorted
                              (4-byte keys, which have no deep level) */
    unsigned wider_left;   /* those above the wider shape's capacity too (RDX_MSD_WIDER_LEFT;
                              0 where no wider shape ran) */
    unsigned deep_long;    /* the deep level's sub-buckets still above it, which the second
                              deep level split */
    unsigned deep2_long;   /* the second deep level's sub-buckets still above it, which the
                              segmented passes sorted */
    unsigned deep_skipped; /* 1 where the sample skipped the deep level (8-byte keys with few
                              values of its digit: the long buckets went whole to the
                              segmented passes), else 0 */
    unsigned deep_wide;    /* the lone sub-buckets of both deep levels, and the sides of their
                              splits, that level 3's wide shape of 8-byte keys sorted (above
                              the narrow shape's capacity, or a split's side, within its own) */
    unsigned deep_chunks;  /* the chunks in which every block copied or split both deep
                              levels' lone sub-buckets from B to A (msd_deep_copy_kernel) */
    unsigned deep_splits;  /* the lone sub-buckets of both deep levels split around a value
                              that most of their keys hold (RDX_MSD_SPLITS) */
    unsigned joint;        /* 1 where the up-front histogram counted the level-2 bins (its
                              joint form, RDX_MSD_JOINT), 0 where level 2 counted them */
} rdx_cuda_msd_counts;
int rdx_cuda_ctx_msd_state(rdx_ctx *ctx, rdx_cuda_msd_counts *c);

/* The kinds of neighbouring pair the order check of the last sort enqueued on ctx found,
 * read after a device-wide synchronization: a bit mask of 1 (a pair out of the sort's
 * order) and 2 (a pair in it, looked for only where the route may reverse the keys;
 * kernels.h, RDX_ORDER_*): 0 the keys were in order, 1 in the reverse order (reversed where
 * 2 was looked for); -1 no check ran, -2 the read failed. */
int rdx_cuda_ctx_order_kinds(rdx_ctx *ctx);

/* 1 where the last sort enqueued on ctx enqueued its LSD passes packed: 4-byte keys and
 * values (or indices) as one word a pair (rdx_pass_args.packed; where the MSD route was
 * planned, they run only if it is declined), else 0. */
int rdx_cuda_ctx_packed(rdx_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* RDX_CUDA_TEST_HOOKS_H */
