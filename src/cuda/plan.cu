/* Planning a job (path, portions, scratch layout) and enqueueing its kernels. */
#include <string.h>

#include "common.cuh"
#include "kernels.h"
#include "plan.h"
#include "test_hooks.h"

size_t rdx_cuda_medium_max_n = RDX_OS_MEDIUM_MAX_N;

size_t rdx_cuda_grid_max_n = RDX_GRID_MAX_N;

size_t rdx_cuda_cluster_max_n = RDX_CLUSTER_MAX_N;
size_t rdx_cuda_cluster_pairs_max_n = RDX_CLUSTER_PAIRS_MAX_N;

size_t rdx_cuda_portion_max_n = 0;

size_t rdx_cuda_msd_min_n = RDX_MSD_MIN_N;

/* The MSD control words of the last job enqueued with the route planned, for the test hook. */
static const uint32_t *last_msd_ctrl;

void rdx_cuda_set_medium_max_n(size_t n) { rdx_cuda_medium_max_n = n; }
void rdx_cuda_set_grid_max_n(size_t n) { rdx_cuda_grid_max_n = n; }
void rdx_cuda_set_cluster_max_n(size_t n) { rdx_cuda_cluster_max_n = n; }
void rdx_cuda_set_cluster_pairs_max_n(size_t n) { rdx_cuda_cluster_pairs_max_n = n; }
void rdx_cuda_set_portion_max_n(size_t n) { rdx_cuda_portion_max_n = n; }
void rdx_cuda_set_msd_min_n(size_t n) { rdx_cuda_msd_min_n = n ? n : RDX_MSD_MIN_N; }

int rdx_cuda_last_msd_route(unsigned *slow_blocks)
{
    if (slow_blocks)
        *slow_blocks = 0;
    if (!last_msd_ctrl)
        return -1;
    uint32_t w[2] = {0, 0};
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(w, last_msd_ctrl, sizeof w, cudaMemcpyDeviceToHost) != cudaSuccess) {
        (void)cudaGetLastError();
        return -2;
    }
    if (slow_blocks)
        *slow_blocks = w[RDX_MSD_SLOW];
    return (int)w[RDX_MSD_STATE];
}

/* Reserves bytes at *end (aligned) and returns the slot's offset. */
static size_t take(size_t *end, size_t bytes)
{
    const size_t at = (*end + RDX_TEMP_ALIGN - 1) / RDX_TEMP_ALIGN * RDX_TEMP_ALIGN;
    *end = at + bytes;
    return at;
}

void rdx_cuda_plan_job(const rdx_job *job, int keys_dev, int vals_dev, int idx_dev, rdx_cuda_plan *p)
{
    memset(p, 0, sizeof *p);
    const size_t n = job->n;
    p->n = n;
    p->kind = job->kind;
    p->kb = (int)job->key_size;
    p->cls = (int)rdx_type_class(job->type);
    p->desc = job->descending;
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
        p->widen = p->vb == 8 && index_bytes == 4 && keys_dev && n > RDX_SMALL_MAX_N && n > rdx_cuda_grid_max_n &&
                   n > rdx_cuda_cluster_max_n;
        if (p->widen)
            p->vb = 4;
    }

    p->small = n <= RDX_SMALL_MAX_N;
    p->medium = n <= rdx_cuda_medium_max_n;
    p->cluster = !p->small && n <= rdx_cuda_cluster_max_n && (p->vb == 0 || n <= rdx_cuda_cluster_pairs_max_n);
    p->grid = !p->small && n <= rdx_cuda_grid_max_n;
    p->grid_shape = rdx_grid_shape(n);
    p->grid_blocks = (n + rdx_grid_tile(p->grid_shape) - 1) / rdx_grid_tile(p->grid_shape);
    p->tile = rdx_os_tile(p->kb, p->vb, p->medium);
    size_t portion_max = RDX_STATUS_COUNT_MASK;
    if (rdx_cuda_portion_max_n && rdx_cuda_portion_max_n < portion_max)
        portion_max = rdx_cuda_portion_max_n;
    /* Portions of equal size (whole tiles): each launch of the pass kernel clears the next
     * launch's look-back rows with its own blocks (rdx_clear_status_rows), so a launch of a
     * few tiles after a full one (2^30 keys cut as 2^30 - 1 and a remainder) left one block
     * clearing ~120 MB: that was the 2.6x cliff from 2^30 to 2^32 keys. */
    const size_t portion_cap = portion_max < p->tile ? p->tile : portion_max / p->tile * p->tile;
    p->portions = n ? (n + portion_cap - 1) / portion_cap : 1;
    const size_t per_portion = (n + p->portions - 1) / p->portions;
    p->portion = per_portion ? (per_portion + p->tile - 1) / p->tile * p->tile : p->tile;
    p->max_tiles = ((n < p->portion ? n : p->portion) + p->tile - 1) / p->tile;
    /* The MSD route: 8-byte integer keys, keys only or pairs whose 4- or 8-byte values
     * move with the keys (not argsort, not values gathered by index at the end), the whole
     * key with 8-bit digits, one portion (level 2's look-back counts per bucket), n below
     * 2^32 (32-bit slots), pairs up to RDX_MSD_PAIRS_MAX_N (their level-3 capacity is
     * smaller). Anything else takes the LSD passes. It replaces the cluster and grid paths
     * where planned.
     * Not for floats: their top digit is the sign and most of the exponent, which puts
     * nearly all keys of real data (values within a few orders of magnitude) in a few
     * top-digit buckets; the skew test would decline after an extra read of the keys. */
    const int msd_keys = job->kind == RDX_JOB_KEYS && p->vb == 0 && n <= RDX_MSD_MAX_N;
    const int msd_pairs = job->kind == RDX_JOB_PAIRS && !p->iota && (p->vb == 4 || p->vb == 8) &&
                          n <= RDX_MSD_PAIRS_MAX_N;
    p->msd = (msd_keys || msd_pairs) && p->kb == 8 && p->cls != RDX_CLASS_FLOAT && p->begin_bit == 0 &&
             p->end_bit == 64 && p->radix_bits == 8 && !p->small && n >= rdx_cuda_msd_min_n &&
             (unsigned long long)n < 0x100000000ull && p->portions == 1;
    if (p->msd)
        p->cluster = p->grid = 0;

    const int argsort = job->kind == RDX_JOB_ARGSORT;
    const int gather = p->gather_size != 0;
    size_t end = 0;
    p->counts = p->bases = p->pass_info = p->active = p->counters = p->status = RDX_NO_SLOT;
    p->keys_a = p->keys_b = p->vals_a = p->vals_b = p->gsrc = p->gdst = RDX_NO_SLOT;
    p->grid_counts = p->grid_barrier = RDX_NO_SLOT;
    if (!p->small) {
        const size_t cells = p->portions * (size_t)p->passes * RDX_CUDA_MAX_BINS;
        p->counts = take(&end, cells * 4);
        p->bases = take(&end, cells * 8);
        p->pass_info = take(&end, (size_t)p->passes * 4);
        p->active = take(&end, 4);
        p->counters = take(&end, (size_t)p->passes * p->portions * 4);
        p->msd_ctrl = p->msd_counts2 = p->msd_bases2 = p->msd_first_tile = RDX_NO_SLOT;
        if (p->msd) {
            p->msd_ctrl = take(&end, RDX_MSD_CTRL_WORDS * 4);
            p->msd_counts2 = take(&end, (size_t)256 * 256 * 4);
        }
        p->ctrl_end = end;
        if (p->msd) {
            p->msd_bases2 = take(&end, (size_t)256 * 256 * 4);
            p->msd_first_tile = take(&end, 257 * 4);
        }
        /* Level 2 of the MSD route looks back in the second buffer with its own tiles. */
        size_t rows = p->max_tiles;
        if (p->msd && rdx_msd_l2_max_tiles(n, p->vb) > rows)
            rows = rdx_msd_l2_max_tiles(n, p->vb);
        p->status_words = rows * RDX_CUDA_MAX_BINS;
        p->status = take(&end, 2 * p->status_words * 4);
        p->keys_b = take(&end, n * (size_t)p->kb);
        if (p->vb)
            p->vals_b = take(&end, n * (size_t)p->vb);
    }
    /* The grid path uses keys_b / vals_b as its scratch, the cluster path no scratch;
     * whether either runs is decided when the job is enqueued (it must fit the device), so
     * the onesweep slots stay. */
    if (p->grid) {
        p->grid_barrier = take(&end, 4);
        p->grid_counts = take(&end, (size_t)p->passes * p->grid_blocks * RDX_CUDA_MAX_BINS * 4);
        p->grid_clear_bytes = end - p->grid_barrier;
    }
    /* An argsort's keys must not change: the passes after the first move them between
     * keys_a and keys_b (the first reads the caller's keys where they are device memory). */
    if (!keys_dev || (argsort && !p->small))
        p->keys_a = take(&end, n * (size_t)p->kb);
    if (p->vb && (gather || (job->kind == RDX_JOB_PAIRS && !p->vals_dev) || (argsort && !p->idx_dev)))
        p->vals_a = take(&end, n * (size_t)(p->widen ? 8 : p->vb));
    if (gather) {
        p->gsrc = take(&end, n * job->value_size);
        if (!p->vals_dev)
            p->gdst = take(&end, n * job->value_size);
    }
    p->temp_bytes = end + RDX_TEMP_ALIGN;
}

unsigned char *rdx_cuda_temp_base(void *temp)
{
    const uintptr_t t = (uintptr_t)temp;
    return (unsigned char *)((t + RDX_TEMP_ALIGN - 1) / RDX_TEMP_ALIGN * RDX_TEMP_ALIGN);
}

/* A histogram launch over `count` keys from `keys`, every pass of the plan; the caller
 * narrows it (the MSD route counts the top digit, then the others). */
static rdx_hist_args hist_args(const void *keys, size_t count, uint32_t *counts, const rdx_cuda_plan *p)
{
    rdx_hist_args h;
    memset(&h, 0, sizeof h);
    h.keys = keys;
    h.count = count;
    h.counts = counts;
    h.cls = p->cls;
    h.desc = p->desc;
    h.begin_bit = p->begin_bit;
    h.end_bit = p->end_bit;
    h.radix_bits = p->radix_bits;
    h.passes = p->passes;
    return h;
}

/* The buffers and codec of a pass launch (level 1 of the MSD route or an LSD pass); the
 * caller fills in the rest. vals_src NULL: the values start in vals_a (or as indices). */
static rdx_pass_args pass_buffers(void *keys_a, void *keys_b, void *vals_a, void *vals_b, const void *keys_src,
                                  const void *vals_src, const rdx_cuda_plan *p)
{
    rdx_pass_args a;
    memset(&a, 0, sizeof a);
    a.keys_a = keys_a;
    a.keys_b = keys_b;
    a.vals_a = vals_a;
    a.vals_b = vals_b;
    a.keys_src = keys_src;
    a.vals_src = vals_src ? vals_src : vals_a;
    a.cls = p->cls;
    a.desc = p->desc;
    return a;
}

rdx_status rdx_cuda_enqueue(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, void *temp, int sms,
                            cudaStream_t s)
{
    unsigned char *t = rdx_cuda_temp_base(temp);
    const size_t n = p->n;
    const int argsort = p->kind == RDX_JOB_ARGSORT;
    void *keys_a = p->keys_a != RDX_NO_SLOT ? (void *)(t + p->keys_a) : job->keys;
    void *vals_a = NULL;
    if (p->vb)
        vals_a = p->vals_a != RDX_NO_SLOT ? (void *)(t + p->vals_a) : (argsort ? job->indices : job->values);
    /* Buffer A (keys_a, vals_a) receives the result; the source is what the sort reads:
     * A itself for an in-place sort, the caller's input for the *_into calls (job->keys_in,
     * job->values_in) and the caller's device keys for an argsort. Sources are never
     * written. vals_src is NULL where the moved values start as indices. */
    const void *keys_src = job->keys_in ? job->keys_in : argsort && p->keys_dev ? (const void *)job->keys : keys_a;
    const void *vals_src = !p->vb || p->iota ? NULL : job->values_in ? job->values_in : vals_a;
    /* Values of other sizes are gathered at the end from a copy (the gather cannot read
     * and write one array), or straight from a separate input. */
    const void *gsrc = job->values_in ? job->values_in : (const void *)(t + p->gsrc);

    last_msd_ctrl = p->msd ? (const uint32_t *)(t + p->msd_ctrl) : NULL;
    const int cluster = p->cluster && rdx_cluster_fits(p->kb, p->vb, n);
    const int grid = !cluster && p->grid && rdx_grid_fits(p->kb, p->vb, p->grid_shape, p->grid_blocks, sms);
    if (p->gather_size && p->vals_dev && !job->values_in)
        RDX_CUDA_TRY(cudaMemcpyAsync(t + p->gsrc, job->values, n * p->gather_size, cudaMemcpyDeviceToDevice, s));

    if (p->small || cluster) { /* one launch, everything on chip: the same arguments */
        rdx_small_args a;
        memset(&a, 0, sizeof a);
        a.keys_in = keys_src;
        a.keys_out = argsort ? NULL : keys_a;
        a.vals_in = vals_src;
        a.vals_out = vals_a;
        a.n = (int)n;
        a.cls = p->cls;
        a.desc = p->desc;
        a.begin_bit = p->begin_bit;
        a.end_bit = p->end_bit;
        a.radix_bits = p->radix_bits;
        RDX_CUDA_TRY(p->small ? rdx_launch_small(p->kb, p->vb, &a, s) : rdx_launch_cluster(p->kb, p->vb, &a, s));
    } else if (grid) {
        rdx_grid_args a;
        memset(&a, 0, sizeof a);
        a.keys_in = keys_src;
        a.keys_out = argsort ? NULL : keys_a;
        a.vals_in = vals_src;
        a.vals_out = vals_a;
        a.keys_tmp = t + p->keys_b;
        a.vals_tmp = p->vb ? (void *)(t + p->vals_b) : NULL;
        a.counts = (uint32_t *)(t + p->grid_counts);
        a.barrier = (uint32_t *)(t + p->grid_barrier);
        a.n = n;
        a.cls = p->cls;
        a.desc = p->desc;
        a.begin_bit = p->begin_bit;
        a.end_bit = p->end_bit;
        a.radix_bits = p->radix_bits;
        /* The barrier word and the counts (RDX_GRID_ONE_BARRIER adds into them) after it. */
        if (!RDX_GRID_CG_SYNC || RDX_GRID_ONE_BARRIER)
            RDX_CUDA_TRY(cudaMemsetAsync(a.barrier, 0, RDX_GRID_ONE_BARRIER ? p->grid_clear_bytes : 4, s));
        RDX_CUDA_TRY(rdx_launch_grid(p->kb, p->vb, p->grid_shape, &a, (unsigned)p->grid_blocks, s));
    } else {
        uint32_t *counts = (uint32_t *)(t + p->counts);
        unsigned long long *bases = (unsigned long long *)(t + p->bases);
        uint32_t *pass_info = (uint32_t *)(t + p->pass_info);
        uint32_t *active = (uint32_t *)(t + p->active);
        uint32_t *counters = (uint32_t *)(t + p->counters);
        uint32_t *status[2] = {(uint32_t *)(t + p->status), (uint32_t *)(t + p->status) + p->status_words};
        void *keys_b = t + p->keys_b;
        void *vals_b = p->vb ? (void *)(t + p->vals_b) : NULL;
        const size_t per_portion = (size_t)p->passes * RDX_CUDA_MAX_BINS;
        /* Every array the first pass reads lies apart from A: the passes can end in A
         * (scan.cu), with no copy back. */
        const int apart = keys_src != keys_a && (!vals_src || vals_src != vals_a);

        RDX_CUDA_TRY(cudaMemsetAsync(t, 0, p->ctrl_end, s));
        uint32_t *msd_ctrl = p->msd ? (uint32_t *)(t + p->msd_ctrl) : NULL;
        /* Where the MSD route is planned this counts the top digit only (all the route
         * needs); the other digits are counted later if the route is not taken. */
        for (size_t k = 0; k < p->portions; ++k) {
            const size_t begin = k * p->portion;
            rdx_hist_args h = hist_args((const unsigned char *)keys_src + begin * p->kb,
                                        n - begin < p->portion ? n - begin : p->portion, counts + k * per_portion, p);
            h.zero = k == 0 ? status[0] : NULL;
            h.zero_words = k == 0 ? p->status_words : 0;
            if (p->msd) {
                h.counts += (size_t)(p->passes - 1) * RDX_CUDA_MAX_BINS;
                h.begin_bit = p->begin_bit + (p->passes - 1) * p->radix_bits;
                h.passes = 1;
            }
            RDX_CUDA_TRY(rdx_launch_histogram(p->kb, &h, sms, s));
        }

        rdx_scan_args sc;
        memset(&sc, 0, sizeof sc);
        sc.counts = counts;
        sc.bases = bases;
        sc.pass_info = pass_info;
        sc.active = active;
        sc.n = n;
        sc.portions = p->portions;
        sc.begin_bit = p->begin_bit;
        sc.end_bit = p->end_bit;
        sc.radix_bits = p->radix_bits;
        sc.passes = p->passes;
        sc.apart = apart;
        sc.msd_ctrl = msd_ctrl;
        RDX_CUDA_TRY(rdx_launch_scan(&sc, s));

        if (p->msd) {
            /* The MSD route (msd.cu), enqueued whole; on the device each kernel returns at
             * once unless the route is on. Level 1: the pass kernel on the top digit,
             * source -> B (keys and values; its pass word is ACTIVE | FIRST: it reads
             * keys_src / vals_src, in place or not, and writes B), look-back in status
             * buffer 0 (zeroed by the histogram), clearing buffer 1 for level 2. */
            const int top = p->passes - 1;
            rdx_pass_args a = pass_buffers(keys_a, keys_b, vals_a, vals_b, keys_src, vals_src, p);
            a.pass_info = msd_ctrl + RDX_MSD_INFO;
            a.bases = bases;
            a.bases_next = NULL;
            a.status = status[0];
            a.status_next = status[1];
            a.zero_rows = p->status_words / RDX_CUDA_MAX_BINS;
            a.tile_counter = msd_ctrl + RDX_MSD_L1_COUNTER;
            a.portion_begin = 0;
            a.portion_count = n;
            a.pass = top;
            a.shift = p->begin_bit + top * p->radix_bits;
            a.bits = p->radix_bits;
            a.narrow = 1;
            RDX_CUDA_TRY(rdx_launch_pass(p->kb, p->vb, p->medium, &a, (unsigned)((n + p->tile - 1) / p->tile), s));

            /* Levels 2 and 3: B -> A -> A. Level 2 looks back in buffer 1 and clears buffer
             * 0 for the first LSD pass (which runs after a fallback). */
            rdx_msd_args m;
            memset(&m, 0, sizeof m);
            m.keys_a = keys_a;
            m.keys_b = keys_b;
            m.vals_a = vals_a; /* NULL for keys only */
            m.vals_b = vals_b;
            m.top_bases = bases + (size_t)top * RDX_CUDA_MAX_BINS;
            m.ctrl = msd_ctrl;
            m.counts2 = (uint32_t *)(t + p->msd_counts2);
            m.bases2 = (uint32_t *)(t + p->msd_bases2);
            m.first_tile = (uint32_t *)(t + p->msd_first_tile);
            m.pass_info = pass_info;
            m.passes = p->passes;
            m.status = status[1];
            m.status_next = status[0];
            m.zero_rows = p->max_tiles;
            m.n = n;
            m.cls = p->cls;
            m.desc = p->desc;
            RDX_CUDA_TRY(rdx_launch_msd_counts(p->vb, &m, s));

            /* Unless the route is on now, the LSD passes need the other digits' counts
             * and the scan of them all. */
            rdx_hist_args h = hist_args(keys_src, n, counts, p);
            h.end_bit = p->begin_bit + top * p->radix_bits;
            h.passes = top;
            h.msd_gate = msd_ctrl;
            RDX_CUDA_TRY(rdx_launch_histogram(p->kb, &h, sms, s));
            sc.msd_ctrl = NULL;
            sc.msd_gate = msd_ctrl;
            RDX_CUDA_TRY(rdx_launch_scan(&sc, s));
            RDX_CUDA_TRY(rdx_launch_msd_sort(p->vb, &m, s));
        }

        /* Launch j = pass * portions + portion uses status buffer j % 2 and clears the other. */
        for (int pass = 0; pass < p->passes; ++pass) {
            for (size_t k = 0; k < p->portions; ++k) {
                const size_t j = (size_t)pass * p->portions + k;
                rdx_pass_args a = pass_buffers(keys_a, keys_b, vals_a, vals_b, keys_src, vals_src, p);
                a.pass_info = pass_info;
                a.bases = bases + k * per_portion;
                a.bases_next = k + 1 < p->portions ? bases + (k + 1) * per_portion : NULL;
                a.status = status[j % 2];
                a.status_next = status[(j + 1) % 2];
                a.zero_rows = p->max_tiles;
                a.tile_counter = counters + j;
                a.portion_begin = k * p->portion;
                a.portion_count = n - a.portion_begin < p->portion ? n - a.portion_begin : p->portion;
                a.pass = pass;
                a.shift = p->begin_bit + pass * p->radix_bits;
                a.bits = p->end_bit - a.shift < p->radix_bits ? p->end_bit - a.shift : p->radix_bits;
                a.iota = p->iota;
                a.keys_scratch = argsort;
                a.widen = p->widen;
                a.narrow = (unsigned long long)n <= 0x100000000ull; /* 32-bit slot offsets */
                const size_t grid = (a.portion_count + p->tile - 1) / p->tile;
                RDX_CUDA_TRY(rdx_launch_pass(p->kb, p->vb, p->medium, &a, (unsigned)grid, s));
            }
        }

        rdx_fixup_args f;
        memset(&f, 0, sizeof f);
        f.keys_a = keys_a;
        f.keys_b = keys_b;
        f.keys_src = keys_src;
        f.key_bytes = argsort ? 0 : n * p->kb;
        f.vals_a = vals_a;
        f.vals_b = vals_b;
        f.vals_src = vals_src;
        f.val_bytes = p->vb ? n * p->vb : 0;
        f.active = active;
        f.msd_ctrl = msd_ctrl;
        f.apart = apart;
        f.iota = p->iota;
        f.index_bytes = p->widen ? 8 : p->vb;
        f.n = n;
        RDX_CUDA_TRY(rdx_launch_fixup(&f, sms, s));
    }

    if (p->gather_size) {
        void *dst = p->vals_dev ? job->values : (void *)(t + p->gdst);
        RDX_CUDA_TRY(rdx_launch_gather(dst, gsrc, vals_a, p->vb, n, p->gather_size, sms, s));
    }
    return RDX_OK;
}
