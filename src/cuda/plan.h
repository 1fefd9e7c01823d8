/* A sort job laid out for the GPU: which path (small-n, cluster, grid or onesweep), how the keys are
 * cut into portions and tiles, and where every scratch buffer lives inside one block of
 * temporary device memory. Both the synchronous API (host.cu, temporary memory from the
 * context) and the stream-ordered API (async.cu, temporary memory from the caller) plan
 * a job here and enqueue it with rdx_cuda_enqueue. */
#ifndef RDX_CUDA_PLAN_H
#define RDX_CUDA_PLAN_H

#include <stddef.h>
#include <cuda_runtime.h>
#include "internal.h"

#define RDX_NO_SLOT ((size_t)-1)
/* Temporary storage is aligned to this inside the caller's block. */
#define RDX_TEMP_ALIGN 256

typedef struct rdx_cuda_plan {
    size_t n;
    rdx_job_kind kind;
    int kb;                /* key bytes */
    int vb;                /* value bytes moved by the passes: 0, 4 or 8 */
    int iota;              /* the moved values start as indices (argsort, gather) */
    int widen;             /* argsort into 64-bit indices that moves 32-bit ones through the
                              passes and widens them as the last pass writes them */
    size_t gather_size;    /* pairs of another value size: bytes per value; else 0 */
    int cls, desc, begin_bit, end_bit, radix_bits, passes;
    int small;             /* one block sorts everything (n <= RDX_SMALL_MAX_N) */
    int medium;            /* the pass kernel's medium tile shape (else large) */
    int cluster;           /* the one-cluster path may serve it (if the device can place it) */
    int grid;              /* the one-launch grid path may serve it (if it fits the device) */
    int grid_shape;        /* its tile shape (tuning.h) */
    size_t grid_blocks;    /* its blocks */
    size_t tile, portion, portions, max_tiles;
    int msd;               /* the MSD route for 64-bit keys is enqueued (msd.cu); whether it
                              runs is decided on the device */
    int keys_dev, vals_dev, idx_dev; /* the caller's arrays are device memory */

    /* Byte offsets in temporary storage (RDX_NO_SLOT where absent). */
    size_t counts, bases, pass_info, active, counters, ctrl_end; /* control block */
    size_t status, status_words; /* two look-back buffers of status_words each */
    size_t msd_ctrl, msd_counts2; /* MSD route: control words and level-2 counts (in the
                                     control block, zeroed), */
    size_t msd_bases2, msd_first_tile; /* level-2 bases and tile numbers */
    size_t keys_a;  /* keys sorted in place when the caller's are not usable (host
                       arrays), or an argsort's working copy */
    size_t keys_b;  /* ping-pong partner of the keys */
    size_t vals_a;  /* moved values, when not the caller's array */
    size_t vals_b;  /* ping-pong partner of the values */
    size_t grid_counts, grid_barrier; /* grid path: per-block digit counts, barrier word */
    size_t grid_clear_bytes;          /* from the barrier word to the end of the counts */
    size_t gsrc;    /* gather path: a copy of the values to gather from */
    size_t gdst;    /* gather path with host values: the gathered values */
    size_t temp_bytes; /* includes RDX_TEMP_ALIGN slack */
} rdx_cuda_plan;

/* Inputs up to this many keys use the medium tile shape: RDX_OS_MEDIUM_MAX_N, unless a
 * test changed it (test_hooks.h) to reach the large shape with small inputs. */
extern size_t rdx_cuda_medium_max_n;
/* Inputs up to this many keys (above the small-n limit) may take the grid path:
 * RDX_GRID_MAX_N unless a test changed it. */
extern size_t rdx_cuda_grid_max_n;
/* Inputs up to this many keys (above the small-n limit) may take the cluster path:
 * RDX_CLUSTER_MAX_N unless a test changed it. */
extern size_t rdx_cuda_cluster_max_n;
/* The same with values: RDX_CLUSTER_PAIRS_MAX_N unless a test changed it. */
extern size_t rdx_cuda_cluster_pairs_max_n;
/* Keys per portion (one launch of the pass kernel) at most: 0 = the look-back count limit
 * (about 2^30), unless a test lowered it to reach the multi-portion path with small inputs. */
extern size_t rdx_cuda_portion_max_n;

/* Inputs of at least this many keys may take the MSD route (8-byte keys only, default
 * radix and bit range): RDX_MSD_MIN_N unless a test changed it. */
extern size_t rdx_cuda_msd_min_n;

/* Plans a checked job; *_dev say where the caller's arrays live. Never fails. */
void rdx_cuda_plan_job(const rdx_job *job, int keys_dev, int vals_dev, int idx_dev, rdx_cuda_plan *plan);

/* The aligned start of temporary storage. */
unsigned char *rdx_cuda_temp_base(void *temp);

/* Enqueues the sort on stream s: no allocation, no synchronization, no read of device
 * data on the host. Host arrays must have been uploaded to their slots (keys_a, vals_a or
 * gsrc) first. temp holds plan->temp_bytes. sms: multiprocessors of the device.
 * job->keys_in / job->values_in (device memory, apart from job->keys / job->values) make
 * it an out-of-place sort: they are read and never written, the result goes to
 * job->keys / job->values, and the temporary storage is the same. */
rdx_status rdx_cuda_enqueue(rdx_ctx *ctx, const rdx_cuda_plan *plan, const rdx_job *job, void *temp, int sms,
                            cudaStream_t s);

#endif /* RDX_CUDA_PLAN_H */
