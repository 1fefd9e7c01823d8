/* Planning a job (the shared fields, the route, the scratch layout) and enqueueing it:
 * the caller's arrays, the gather step of odd value sizes, and the route's kernels. */
#include <string.h>

#include "common.cuh"
#include "kernels.h"
#include "plan.h"
#include "route.h"
#include "state.h"

size_t rdx_cuda_take(size_t *end, size_t bytes)
{
    const size_t at = (*end + RDX_TEMP_ALIGN - 1) / RDX_TEMP_ALIGN * RDX_TEMP_ALIGN;
    *end = at + bytes;
    return at;
}

/* The MSD route's level-3 shape (tuning.h, RDX_MSD_L3_*) for keys of kb bytes with
 * values of vb (0: none) and n keys: the larger the level-2 buckets (n / 65536 keys on
 * average), the more a block holds. */
static int msd_l3_shape(const rdx_cuda_tuning *t, int kb, int vb, size_t n)
{
    if (kb != 4 || (vb != 0 && vb != 4))
        return RDX_MSD_L3_NARROW;
    if (vb == 0)
        return n <= t->msd_max_n ? RDX_MSD_L3_NARROW : n <= t->msd4_wide_max_n ? RDX_MSD_L3_WIDE : RDX_MSD_L3_COUNTS;
    return n <= t->msd_pairs_max_n ? RDX_MSD_L3_NARROW : n <= t->msd4_pairs_mid_max_n ? RDX_MSD_L3_MID : RDX_MSD_L3_WIDE;
}

/* The shape that sorts the level-2 buckets above level 3's capacity in `shape`, or -1 (the
 * segmented passes take them): a bucket a little above the capacity (keys repeated a few
 * hundred times make many: u32/u32 at 2^28, 13% of the buckets; uniform 8-byte keys from
 * 2^29, every bucket) costs a block of a wider shape less than two moves more (two
 * segmented passes and their launches, or the deep level's pass and kernel).
 * 4-byte keys alone go to the counts-only shape, which takes any bucket of up to 40960 keys
 * whatever its values; pairs from the narrow shape to the mid one. (Pairs from the mid
 * shape to the wide one lost 4% (u32/u32 repeated 256 times at 2^29, H100, round 52): the
 * wide shape's widest digits leave no room for runs of one key, and its blocks took the
 * on-chip LSD passes; the wide shape after the narrow one lost 3% to the mid one at 2^28.)
 * 8-byte keys take their wide shape (RDX_MSD_L3_WIDE8), and the deep level the buckets
 * above it; not where the average bucket (n / 65536 keys) is above it: most buckets would
 * be listed again, one at a time (u64/u32 and u64/u64 uniform 2^30, 2% slower, H200 round
 * 57). */
static int msd_l3_long_shape(int kb, int vb, int shape, size_t n)
{
    if (kb == 8)
        return n / RDX_MSD_BUCKETS2 <= rdx_msd_l3_cap(kb, vb, RDX_MSD_L3_WIDE8) ? RDX_MSD_L3_WIDE8 : -1;
    if (kb != 4 || (vb != 0 && vb != 4))
        return -1;
    if (vb == 0)
        return shape == RDX_MSD_L3_COUNTS ? -1 : RDX_MSD_L3_COUNTS;
    return shape == RDX_MSD_L3_NARROW ? RDX_MSD_L3_MID : -1;
}

/* Sizes, digits, the moved values, and the pass kernel's tiles and portions: what every
 * route may look at. */
static void plan_shared(const rdx_cuda_tuning *t, const rdx_job *job, int keys_dev, int vals_dev, int idx_dev,
                        rdx_cuda_plan *p)
{
    const size_t n = job->n;
    p->n = n;
    p->kind = job->kind;
    p->kb = (int)job->key_size;
    p->cls = (int)rdx_type_class(job->type);
    p->desc = job->descending;
    p->numpy_order = job->numpy_order;
    p->begin_bit = job->begin_bit;
    p->end_bit = job->end_bit;
    p->radix_bits = job->radix_bits ? job->radix_bits : RDX_CUDA_DEFAULT_RADIX_BITS;
    p->passes = (p->end_bit - p->begin_bit + p->radix_bits - 1) / p->radix_bits;
    p->keys_dev = keys_dev;
    p->vals_dev = job->kind == RDX_JOB_PAIRS ? vals_dev : 0;
    p->idx_dev = job->kind == RDX_JOB_ARGSORT ? idx_dev : 0;

    /* Values of 4 and 8 bytes move with the keys; any other size is gathered once at the
     * end by the sorted indices; argsort moves the indices. */
    const int index_bytes = (unsigned long long)n <= 0x100000000ull ? 4 : 8;
    if (job->kind == RDX_JOB_PAIRS) {
        if (job->value_size == 4 || job->value_size == 8) {
            p->vb = (int)job->value_size;
        } else {
            p->vb = index_bytes;
            p->iota = 1;
            p->gather_size = job->value_size;
        }
    } else if (job->kind == RDX_JOB_ARGSORT) {
        p->vb = (int)rdx_type_bytes(job->index_type);
        p->iota = 1;
        /* 64-bit indices on the pass kernel's route (above the one-launch paths), device
         * keys (so the last pass writes A) and n <= 2^32: the passes move 32-bit indices
         * (the 8-byte class's tile shape, 4 bytes less per key each way) and the last
         * pass writes them as 64-bit ones. */
        p->widen = p->vb == 8 && index_bytes == 4 && keys_dev && n > RDX_SMALL_MAX_N && n > t->grid_max_n &&
                   n > t->cluster_max_n;
        if (p->widen)
            p->vb = 4;
    }

    /* Pairs of 4-byte keys and values (or indices: argsort, gather) move as one 8-byte word
     * on the LSD passes: one load and one store a pair, where apart they take two of each;
     * from a size that depends on the device's memory (tuning.h). */
    const size_t pack_from = t->dram_gbps < RDX_PACK_FAST_DRAM_GBPS ? t->pack_min_n : t->pack_fast_min_n;
    p->packed = p->kb == 4 && p->vb == 4 && !p->numpy_order && n >= pack_from;
    p->msd_l3 = msd_l3_shape(t, p->kb, p->vb, n);
    p->msd_l3_long = msd_l3_long_shape(p->kb, p->vb, p->msd_l3, n);
    p->medium = n <= t->medium_max_n ? RDX_OS_MEDIUM : n <= t->mid_max_n ? RDX_OS_MID : RDX_OS_LARGE;
    p->tile = rdx_os_tile(p->kb, p->vb, p->medium);
    p->count_max = RDX_STATUS_COUNT_MASK;
    if (t->portion_max_n && t->portion_max_n < p->count_max)
        p->count_max = t->portion_max_n;
    /* Portions of equal size (whole tiles): each launch of the pass kernel clears the next
     * launch's look-back rows with its own blocks (rdx_clear_status_rows), so a launch of a
     * few tiles after a full one (2^30 keys cut as 2^30 - 1 and a remainder) left one block
     * clearing ~120 MB: that was the 2.6x cliff from 2^30 to 2^32 keys. */
    const size_t portion_cap = p->count_max < p->tile ? p->tile : p->count_max / p->tile * p->tile;
    p->portions = n ? (n + portion_cap - 1) / portion_cap : 1;
    const size_t per_portion = (n + p->portions - 1) / p->portions;
    p->portion = per_portion ? (per_portion + p->tile - 1) / p->tile * p->tile : p->tile;
    p->max_tiles = ((n < p->portion ? n : p->portion) + p->tile - 1) / p->tile;
}

void rdx_cuda_plan_job(const rdx_cuda_tuning *t, const rdx_job *job, int keys_dev, int vals_dev, int idx_dev,
                       rdx_cuda_plan *p)
{
    memset(p, 0, sizeof *p);
    plan_shared(t, job, keys_dev, vals_dev, idx_dev, p);

    /* The first route that accepts the job takes it; the last accepts every job. */
    for (int r = 0; r < RDX_CUDA_ROUTES && !p->route; ++r) {
        const char *why = rdx_cuda_routes[r]->accepts(p, t);
        if (why)
            p->declined[r] = why;
        else
            p->route = rdx_cuda_routes[r];
    }

    const int argsort = job->kind == RDX_JOB_ARGSORT;
    const int gather = p->gather_size != 0;
    size_t end = 0;
    p->counts = p->bases = p->pass_info = p->active = p->counters = p->status = RDX_NO_SLOT;
    p->msd_ctrl = p->msd_counts2 = p->msd_bases2 = p->msd_first_tile = p->msd_vals4 = RDX_NO_SLOT;
    p->keys_a = p->keys_b = p->vals_a = p->vals_b = p->gsrc = p->gdst = p->pack_spare = RDX_NO_SLOT;
    p->grid_counts = p->grid_barrier = RDX_NO_SLOT;
    p->count_counts = p->count_starts = RDX_NO_SLOT;
    /* The route's scratch first: the LSD passes clear their control block from offset 0. */
    p->route->layout(p, &end);
    /* The caller's arrays where they cannot be used in place. An argsort's keys must not
     * change: the LSD passes after the first move them between keys_a and keys_b (the first
     * reads the caller's keys where they are device memory). */
    if (!keys_dev || (argsort && p->route->argsort_key_copy))
        p->keys_a = rdx_cuda_take(&end, p->n * (size_t)p->kb);
    if (p->vb && (gather || (job->kind == RDX_JOB_PAIRS && !p->vals_dev) || (argsort && !p->idx_dev)))
        p->vals_a = rdx_cuda_take(&end, p->n * (size_t)(p->widen ? 8 : p->vb));
    if (gather) {
        p->gsrc = rdx_cuda_take(&end, p->n * job->value_size);
        if (!p->vals_dev)
            p->gdst = rdx_cuda_take(&end, p->n * job->value_size);
    }
    p->temp_bytes = end + RDX_TEMP_ALIGN;
}

int rdx_cuda_equal_keys_alike(const rdx_cuda_plan *p)
{
    return rdx_equal_keys_alike(p->vb == 0, p->numpy_order, p->begin_bit, p->end_bit, p->kb);
}

int rdx_cuda_numpy_lsd(const rdx_cuda_tuning *t, const rdx_job *job)
{
    return job->numpy_order && !job->descending && (job->type == RDX_F32 || job->type == RDX_F64) &&
           job->n >= t->numpy_lsd_min_n;
}

const char *rdx_cuda_plan_route_name(const rdx_cuda_plan *p)
{
    if (p->msd)
        return "msd (decided on the device)";
    return p->numpy_order ? p->route->numpy_name : p->route->name;
}

unsigned char *rdx_cuda_temp_base(void *temp)
{
    const uintptr_t t = (uintptr_t)temp;
    return (unsigned char *)((t + RDX_TEMP_ALIGN - 1) / RDX_TEMP_ALIGN * RDX_TEMP_ALIGN);
}

rdx_status rdx_cuda_enqueue(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, void *temp, int sms,
                            int host_waits, cudaStream_t s)
{
    rdx_cuda_bufs b;
    b.t = rdx_cuda_temp_base(temp);
    b.sms = sms;
    b.host_waits = host_waits;
    b.argsort = p->kind == RDX_JOB_ARGSORT;
    b.callers = p->keys_a == RDX_NO_SLOT || (p->vb && p->vals_a == RDX_NO_SLOT);
    b.keys_a = p->keys_a != RDX_NO_SLOT ? (void *)(b.t + p->keys_a) : job->keys;
    b.vals_a = NULL;
    if (p->vb)
        b.vals_a = p->vals_a != RDX_NO_SLOT ? (void *)(b.t + p->vals_a) : (b.argsort ? job->indices : job->values);
    /* The source: A itself for an in-place sort, the caller's input for the *_into calls
     * (job->keys_in, job->values_in) and the caller's device keys for an argsort. */
    b.keys_src = job->keys_in                ? job->keys_in
                 : b.argsort && p->keys_dev ? (const void *)job->keys
                                             : b.keys_a;
    b.vals_src = !p->vb || p->iota ? NULL : job->values_in ? job->values_in : b.vals_a;
    /* Values of other sizes are gathered at the end from a copy (the gather cannot read
     * and write one array), or straight from a separate input. */
    const void *gsrc = job->values_in ? job->values_in : (const void *)(b.t + p->gsrc);

    if (ctx->cuda) {
        ctx->cuda->msd_ctrl = p->msd ? (const uint32_t *)(b.t + p->msd_ctrl) : NULL;
        ctx->cuda->order_kinds = NULL; /* (the LSD passes set it where they check) */
        ctx->cuda->packed = 0;
    }
    if (p->gather_size && p->vals_dev && !job->values_in)
        RDX_CUDA_TRY(cudaMemcpyAsync(b.t + p->gsrc, job->values, p->n * p->gather_size, cudaMemcpyDeviceToDevice, s));
    const rdx_status st = p->route->enqueue(ctx, p, job, &b, s);
    if (st != RDX_OK)
        return st;
    if (p->gather_size) {
        void *dst = p->vals_dev ? job->values : (void *)(b.t + p->gdst);
        if (p->vals_dev)
            rdx_inject_first_write(ctx);
        RDX_CUDA_TRY(rdx_launch_gather(dst, gsrc, b.vals_a, p->vb, p->n, p->gather_size, sms, s));
    }
    return RDX_OK;
}
