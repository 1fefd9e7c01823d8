/* A sort job laid out for the GPU: which route takes it (route.h, routes.cu), how the keys
 * are cut into portions and tiles, and where every scratch buffer lives inside one block of
 * temporary device memory. Both the synchronous API (host.cu, temporary memory from the
 * context) and the stream-ordered API (async.cu, temporary memory from the caller) plan
 * a job here and enqueue it with rdx_cuda_enqueue. */
#ifndef RDX_CUDA_PLAN_H
#define RDX_CUDA_PLAN_H

#include <stddef.h>
#include <cuda_runtime.h>
#include "internal.h"
#include "tuning_ctx.h"

#define RDX_NO_SLOT ((size_t)-1)
/* Temporary storage is aligned to this inside the caller's block. */
#define RDX_TEMP_ALIGN 256
/* Rows of the route table (routes.cu). */
#define RDX_CUDA_ROUTES 6

struct rdx_cuda_route;

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
    int numpy_order;       /* RDX_NUMPY_ORDER on float keys: equal keys may differ in bits */
    int packed;            /* the LSD passes move each 4-byte key and its 4-byte value (or
                              index) as one 8-byte word (rdx_pass_args.packed) where A's
                              arrays allow */
    int medium;            /* the pass kernel's size class: RDX_OS_LARGE, RDX_OS_MEDIUM or
                              RDX_OS_MID (tuning.h) */
    size_t tile, portion, portions, max_tiles; /* the pass kernel's tiles and portions */
    size_t count_max;      /* the most keys one look-back count holds (2^30 - 1, or a test's
                              smaller portion_max_n): a portion's cap, and the most keys a
                              top digit may hold for the MSD route's level 2 */
    const struct rdx_cuda_route *route; /* the route that takes the job */
    const char *declined[RDX_CUDA_ROUTES]; /* why each route before it in the table did
                                              not take it; NULL from the route on */
    int grid_shape;        /* grid route: its tile shape (tuning.h) */
    size_t grid_blocks;    /* grid route: its blocks */
    int msd;               /* the MSD route: whether it runs is decided on the device */
    int msd_l3;            /* its level 3's shape (tuning.h, RDX_MSD_L3_*) */
    int msd_l3_long;       /* the wider shape that sorts the level-2 buckets above msd_l3's
                              capacity, or -1: the segmented passes take them all (those
                              above its capacity too: 4-byte keys' the segmented passes,
                              8-byte keys' the deep level) */
    int keys_dev, vals_dev, idx_dev; /* the caller's arrays are device memory */

    /* Byte offsets in temporary storage (RDX_NO_SLOT where absent). */
    size_t counts, bases, pass_info, active, counters, ctrl_end; /* control block */
    size_t unsorted;       /* in the control block: the histogram's order check (kernels.h,
                              rdx_hist_args.unsorted) */
    size_t np_special;     /* in the control block: the LSD passes' word of a key special in
                              NumPy's order (rdx_hist_args.special) */
    size_t status, status_words; /* two look-back buffers of status_words each */
    size_t msd_ctrl, msd_counts2; /* MSD route: control words and level-2 counts (in the
                                     control block, zeroed), */
    size_t msd_bases2, msd_first_tile; /* level-2 bases and tile numbers */
    size_t msd_off, msd_bins, msd_segp; /* the level-2 buckets above level 3's capacity:
                                           their offsets, bins and segmented passes */
    size_t msd_bins_long; /* those above msd_l3_long's capacity too: their list */
    size_t msd_off3, msd_bins3; /* the deep level's sub-buckets above it: offsets, list */
    size_t msd_off4, msd_bins4; /* the second deep level's: the same */
    size_t msd_groups;          /* the deep level's groups of sub-buckets (msd.cu) */
    size_t msd_wide;            /* both deep levels' lone sub-buckets and split sides for
                                   level 3's wide shape, 2 subs entries each (msd.cu) */
    size_t msd_chunks;          /* the chunks of a deep level's lone sub-buckets that
                                   msd_deep_copy_kernel copies or splits (one level at a
                                   time) */
    size_t msd_vals4; /* MSD route, argsort into 64-bit indices: its 32-bit indices */
    size_t keys_a;  /* keys sorted in place when the caller's are not usable (host
                       arrays), or an argsort's working copy */
    size_t keys_b;  /* ping-pong partner of the keys */
    size_t vals_a;  /* moved values, when not the caller's array */
    size_t vals_b;  /* ping-pong partner of the values */
    size_t pack_spare; /* packed pairs: the word of A's packed form that an odd n leaves over */
    size_t grid_counts, grid_barrier; /* grid route: per-block digit counts, barrier word */
    size_t grid_clear_bytes;          /* from the barrier word to the end of the counts */
    size_t count_counts, count_starts; /* counting route: per-value counts, run starts */
    size_t gsrc;    /* gather step: a copy of the values to gather from */
    size_t gdst;    /* gather step with host values: the gathered values */
    size_t temp_bytes; /* includes RDX_TEMP_ALIGN slack */
} rdx_cuda_plan;

/* Plans a checked job with a context's tuning (its device facts current): the first
 * route of the table that accepts it, and the layout. *_dev say where the caller's
 * arrays live. Never fails (the last route takes any job). */
void rdx_cuda_plan_job(const rdx_cuda_tuning *t, const rdx_job *job, int keys_dev, int vals_dev, int idx_dev,
                       rdx_cuda_plan *plan);

/* rdx_equal_keys_alike (kernels.h) for the plan's job: equal keys may leave a split in
 * any order, so the pass on the lowest digit (and a split whose pieces are sorted whole
 * after it) may rank unordered (rank.cuh, rdx_rank_scatter_any); the stable passes above
 * it decide the rest. */
int rdx_cuda_equal_keys_alike(const rdx_cuda_plan *plan);

/* The name of the plan's route for rdx_ctx_route, as planned (the MSD route's outcome is
 * decided on the device: "msd (decided on the device)"; NumPy's order on the LSD passes:
 * "onesweep (numpy order)"). */
const char *rdx_cuda_plan_route_name(const rdx_cuda_plan *plan);

/* 1 where a whole-array sort in NumPy's order takes the LSD passes, ordering by the keys'
 * canonical codes (the onesweep route; the other routes decline such jobs): f32 and f64
 * keys, ascending, from t->numpy_lsd_min_n keys on; 0 where it goes by composition
 * (segmented.cu). The one place that decides it, for the synchronous and the
 * stream-ordered calls. */
int rdx_cuda_numpy_lsd(const rdx_cuda_tuning *t, const rdx_job *job);

/* The aligned start of temporary storage. */
unsigned char *rdx_cuda_temp_base(void *temp);

/* Enqueues the sort on stream s: no allocation, and with host_waits 0 (the stream-ordered
 * calls) no synchronization and no read of device data on the host; with host_waits 1 (the
 * synchronous calls) the MSD route's decision is read back as soon as it is made, and only
 * the route taken is enqueued. Host arrays must have been uploaded to their slots (keys_a,
 * vals_a or gsrc) first. temp holds plan->temp_bytes. sms: multiprocessors of the device.
 * Notes the MSD route's control words on ctx (state.h) where it is planned.
 * job->keys_in / job->values_in (device memory, apart from job->keys / job->values) make
 * it an out-of-place sort: they are read and never written, the result goes to
 * job->keys / job->values, and the temporary storage is the same. */
rdx_status rdx_cuda_enqueue(rdx_ctx *ctx, const rdx_cuda_plan *plan, const rdx_job *job, void *temp, int sms,
                            int host_waits, cudaStream_t s);

#endif /* RDX_CUDA_PLAN_H */
