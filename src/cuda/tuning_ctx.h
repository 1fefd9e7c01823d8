/* The CUDA backend's tuning of one context: the limits that choose a route (their defaults
 * are tuning.h's) and the facts of the device the context sorts on. Filled when a CUDA
 * context is made (rdx_cuda_ctx_init); the device facts again whenever the current device
 * is another one. Tests change their own context's copy (rdx_cuda_ctx_tuning in
 * test_hooks.h), so two contexts never disturb each other. Change a limit only between
 * sorts: the temporary size depends on it. Plain C. */
#ifndef RDX_CUDA_TUNING_CTX_H
#define RDX_CUDA_TUNING_CTX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rdx_cuda_tuning {
    /* ---- limits ---- */
    size_t medium_max_n;        /* up to this many keys the pass kernel uses its medium tile
                                   shape, else the large one (RDX_OS_MEDIUM_MAX_N) */
    size_t mid_max_n;           /* above medium_max_n and up to this many keys, its mid
                                   shape where the key and value bytes have one
                                   (RDX_OS_MID_MAX_N) */
    size_t cluster_max_n;       /* the cluster route serves up to this many keys (above the
                                   small-n limit); 0 turns it off (RDX_CLUSTER_MAX_N) */
    size_t cluster_pairs_max_n; /* the same for sorts that move values
                                   (RDX_CLUSTER_PAIRS_MAX_N) */
    size_t grid_max_n;          /* the grid route serves up to this many keys; 0 turns it
                                   off (RDX_GRID_MAX_N) */
    size_t portion_max_n;       /* the look-back count's limit as the plan takes it: one
                                   launch of the pass kernel covers at most this many keys
                                   (whole tiles, at least one), and the MSD route's top
                                   digit may hold as many; 0: the counts' own limit,
                                   2^30 - 1 (rdx_cuda_plan.count_max) */
    size_t msd_min_n;           /* the MSD route serves from this many 8-byte keys on
                                   (RDX_MSD_MIN_N), */
    size_t msd4_min_n;          /* and from this many 4-byte keys (RDX_MSD4_MIN_N), */
    size_t msd_max_n;           /* up to this many keys alone (RDX_MSD_MAX_N); 4-byte keys
                                   alone above it take level 3's wide shape */
    size_t msd4_wide_max_n;     /* up to this many (RDX_MSD4_WIDE_MAX_N; 4-byte pairs too),
                                   its counts-only shape above it (keys alone) */
    size_t msd4_pairs_mid_max_n; /* 4-byte pairs above msd_pairs_max_n take level 3's mid
                                    shape up to this many (RDX_MSD4_PAIRS_MID_MAX_N), its
                                    wide shape above it */
    size_t msd4_counts_max_n;   /* up to this many (RDX_MSD4_COUNTS_MAX_N) */
    size_t msd_pairs_max_n;     /* or pairs (RDX_MSD_PAIRS_MAX_N); the device scales both
                                   by the share of top-digit values the keys use */
    size_t msd_pairs_repeats;   /* 4-byte keys with values decline the route where this
                                   many sampled keys repeat (RDX_MSD_PAIRS_REPEATS; 0:
                                   never, for tests of level 3's runs) */
    size_t msd_deep_max_n;      /* 8-byte keys above those, up to this many, where the
                                   deep level splits every level-2 bucket
                                   (RDX_MSD_DEEP_MAX_N) */
    size_t msd_many_heavy_min_n; /* 8-byte keys with up to RDX_MSD_DEEP2_VALUES_MANY heavy
                                    prefixes of one value each (zipf) take the route from
                                    this many on (RDX_MSD_MANY_HEAVY_MIN_N) */
    size_t count_min_n;         /* the counting route serves from this many 1-byte keys
                                   on (RDX_COUNT_MIN_N), */
    size_t count16_min_n;       /* and from this many 2-byte keys (RDX_COUNT16_MIN_N) */
    size_t order_min_n;         /* the LSD passes' up-front histogram checks whether the
                                   keys are already in order from this many keys on
                                   (RDX_HIST_ORDER_MIN_N) */
    size_t numpy_lsd_min_n;     /* whole-array sorts in NumPy's order of f32 and f64 keys,
                                   ascending, take the LSD passes from this many keys on
                                   (rdx_cuda_numpy_lsd; RDX_NUMPY_LSD_MIN_N), */
    size_t numpy_plain_min_n;   /* and from this many on run each pass as its plain twin
                                   where no key is special there (RDX_NUMPY_PLAIN_MIN_N) */
    size_t pack_min_n;          /* 4-byte keys with 4-byte values move as one 8-byte word
                                   on the LSD passes from this many pairs on
                                   (RDX_PACK_PAIRS_MIN_N), */
    size_t pack_fast_min_n;     /* on a device with DRAM of RDX_PACK_FAST_DRAM_GBPS or
                                   more, from this many (RDX_PACK_PAIRS_FAST_MIN_N) */
    size_t lowmem_bytes;        /* the low-memory route's temporary bytes; 0: 1/8 of the
                                   arrays plus RDX_LM_SLACK_BYTES (tests set it small to
                                   reach the partition with small inputs) */
    size_t scratch_cap;         /* a test hook: the synchronous calls may hold at most this
                                   many bytes of scratch, as if the device had no more
                                   (0: no cap); for host arrays, all the device memory
                                   they may use */
    size_t outcore_chunk_bytes; /* the out-of-core route's chunk; 0: RDX_OOC_CHUNK_BYTES
                                   (tests set it small for many chunks) */
    int outcore_split;          /* a test hook, how the out-of-core route splits: 0 from a
                                   sample (the exact histogram when the sample cannot
                                   tell), 1 by the histogram alone, 2 from a sample aimed at
                                   twice the class buffer (it overflows: the recovery) */
    /* ---- the device (filled from its properties) ---- */
    int device;                 /* its number; -1 before the facts are known */
    int sms;                    /* multiprocessors */
    size_t smem_optin;          /* shared memory one block may opt in to, bytes */
    int cluster_launch;         /* 1 when it launches thread-block clusters (sm_90+) */
    int dram_gbps;              /* its DRAM's peak, GB/s (0: unknown) */
    unsigned kernels_off;       /* the kernel families (RDX_KERNELS_*) whose shared memory
                                   the device cannot give: their routes decline every job
                                   (rdx_cuda_kernels_off) */
} rdx_cuda_tuning;

/* Kernel families a device may lack the shared memory for (an A100 gives a block 163 KB,
 * an Ada or consumer Ampere card 99 KB; the MSD route's shapes take up to 208 KB). The
 * pass kernel (at most 93 KB) and the segmented sorts' tile kernels up to their sure bin
 * are required: without them the backend is not usable. */
#define RDX_KERNELS_SMALL 1u /* the small route's one-block kernel */
#define RDX_KERNELS_GRID 2u  /* the grid route */
#define RDX_KERNELS_COUNT 4u /* the counting route's 2-byte keys */
#define RDX_KERNELS_MSD 8u   /* the MSD route's levels and the up-front histogram's joint form */

/* The limits of tuning.h; the device facts unknown (device -1). */
void rdx_cuda_tuning_defaults(rdx_cuda_tuning *t);

#ifdef __cplusplus
}
#endif

#endif /* RDX_CUDA_TUNING_CTX_H */
