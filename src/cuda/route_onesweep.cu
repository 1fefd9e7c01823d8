/* The onesweep route: every job the routes before it decline. Histograms of all digits
 * up front, one scan, then one launch of the pass kernel per digit and portion with a
 * decoupled look-back (histogram.cu, scan.cu, onesweep.cu), and a fix-up. The MSD route
 * shares these LSD passes: its layout and enqueue are these with p->msd. */
#include <string.h>

#include "common.cuh"
#include "route.h"
#include "state.h"

void rdx_cuda_lsd_layout(rdx_cuda_plan *p, size_t *end, int msd)
{
    const size_t n = p->n;
    p->msd = msd;
    const size_t cells = p->portions * (size_t)p->passes * RDX_CUDA_MAX_BINS;
    /* The control block, zeroed before the sort. The MSD route's recount (its sample
     * missed the keys' range) counts after the first histogram's counts. */
    p->counts = rdx_cuda_take(end, cells * 4 * (msd ? 2 : 1));
    p->bases = rdx_cuda_take(end, cells * 8);
    p->pass_info = rdx_cuda_take(end, (size_t)p->passes * 4);
    p->active = rdx_cuda_take(end, 4);
    p->unsorted = rdx_cuda_take(end, 4);
    p->np_special = rdx_cuda_take(end, 4);
    p->counters = rdx_cuda_take(end, (size_t)p->passes * p->portions * 4);
    if (msd) {
        p->msd_ctrl = rdx_cuda_take(end, RDX_MSD_CTRL_WORDS * 4);
        p->msd_counts2 = rdx_cuda_take(end, (size_t)256 * 256 * 4);
    }
    p->ctrl_end = *end;
    if (msd) {
        p->msd_bases2 = rdx_cuda_take(end, (size_t)256 * 256 * 4);
        p->msd_first_tile = rdx_cuda_take(end, 257 * 4);
        rdx_cuda_msd_long_layout(p, end);
    }
    /* Level 2 of the MSD route looks back in the second buffer with its own tiles. */
    const size_t l2_rows = msd ? rdx_msd_l2_max_tiles(n, p->kb, p->vb) : 0;
    const size_t rows = l2_rows > p->max_tiles ? l2_rows : p->max_tiles;
    p->status_words = rows * RDX_CUDA_MAX_BINS;
    p->status = rdx_cuda_take(end, 2 * p->status_words * 4);
    p->keys_b = rdx_cuda_take(end, n * (size_t)p->kb);
    if (p->vb)
        p->vals_b = rdx_cuda_take(end, n * (size_t)p->vb);
    /* Packed pairs: B's n words from keys_b on lie inside its keys' and values' arrays
     * (taken back to back); the word A's packed form leaves over after them. */
    if (p->packed)
        p->pack_spare = rdx_cuda_take(end, 8);
}

/* A histogram launch over `count` keys from `keys`, every pass of the plan. */
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
    h.numpy = p->numpy_order; /* (f32 or f64 keys: rdx_cuda_numpy_lsd) */
    h.inf = p->numpy_order ? rdx_float_inf_bits(p->kb == 4 ? RDX_F32 : RDX_F64) : 0;
    return h;
}

rdx_pass_args rdx_cuda_pass_buffers(const rdx_cuda_bufs *b, const rdx_cuda_lsd *l, const rdx_cuda_plan *p)
{
    rdx_pass_args a;
    memset(&a, 0, sizeof a);
    a.keys_a = b->keys_a;
    a.keys_b = l->keys_b;
    a.vals_a = b->vals_a;
    a.vals_b = l->vals_b;
    a.keys_src = b->keys_src;
    a.vals_src = b->vals_src ? b->vals_src : b->vals_a;
    a.cls = p->cls;
    a.desc = p->desc;
    return a;
}

void rdx_cuda_pass_portion(rdx_pass_args *a, const rdx_cuda_lsd *l, const rdx_cuda_plan *p, int pass, size_t k,
                           size_t parity)
{
    const size_t per_portion = (size_t)p->passes * RDX_CUDA_MAX_BINS;
    a->pass = pass;
    a->bases = l->bases + k * per_portion;
    a->bases_next = k + 1 < p->portions ? l->bases + (k + 1) * per_portion : NULL;
    a->status = l->status[parity % 2];
    a->status_next = l->status[(parity + 1) % 2];
    a->tile_counter = l->counters + (size_t)pass * p->portions + k;
    a->portion_begin = k * p->portion;
    a->portion_count = p->n - a->portion_begin < p->portion ? p->n - a->portion_begin : p->portion;
}

/* The fix-up after the passes (gather.cu): the copy back after an odd number of them, the
 * copy of a separate input or an argsort's identity where none ran. */
static cudaError_t enqueue_fixup(const rdx_cuda_plan *p, const rdx_cuda_bufs *b, const rdx_cuda_lsd *l, int apart,
                                 cudaStream_t s)
{
    rdx_fixup_args f;
    memset(&f, 0, sizeof f);
    f.keys_a = b->keys_a;
    f.keys_b = l->keys_b;
    f.keys_src = b->keys_src;
    f.key_bytes = b->argsort ? 0 : p->n * p->kb;
    f.vals_a = b->vals_a;
    f.vals_b = l->vals_b;
    f.vals_src = b->vals_src;
    f.val_bytes = p->vb ? p->n * p->vb : 0;
    f.active = l->active;
    f.msd_ctrl = l->msd_ctrl;
    f.apart = apart;
    f.iota = p->iota;
    f.index_bytes = p->widen ? 8 : p->vb;
    f.n = p->n;
    return rdx_launch_fixup(&f, b->sms, s);
}

rdx_status rdx_cuda_lsd_enqueue(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, const rdx_cuda_bufs *b,
                                cudaStream_t s)
{
    (void)job;
    unsigned char *t = b->t;
    const size_t n = p->n;
    rdx_cuda_lsd l;
    memset(&l, 0, sizeof l);
    l.counts = (uint32_t *)(t + p->counts);
    l.bases = (unsigned long long *)(t + p->bases);
    l.pass_info = (uint32_t *)(t + p->pass_info);
    l.active = (uint32_t *)(t + p->active);
    /* the histogram checks whether the keys are in order already (also where the MSD route
     * is armed), and the scan turns every pass (and the route) off where they are */
    l.unsorted = n >= ctx->cuda->tuning.order_min_n ? (uint32_t *)(t + p->unsorted) : NULL;
    /* Keys in the reverse of the sort's order are reversed by one pass, also where the MSD
     * route is armed (the scan turns it off: RDX_MSD_REVERSED). */
    const int reverse_ok = l.unsorted && !p->numpy_order;
    if (ctx->cuda)
        ctx->cuda->order_kinds = l.unsorted;
    l.counters = (uint32_t *)(t + p->counters);
    l.status[0] = (uint32_t *)(t + p->status);
    l.status[1] = (uint32_t *)(t + p->status) + p->status_words;
    l.keys_b = t + p->keys_b;
    l.vals_b = p->vb ? (void *)(t + p->vals_b) : NULL;
    l.msd_ctrl = p->msd ? (uint32_t *)(t + p->msd_ctrl) : NULL;
    /* Where the route is armed, the histogram's joint form counts its level-2 bins too. */
    uint32_t *const joint = p->msd ? (uint32_t *)(t + p->msd_counts2) : NULL;
    /* NumPy's order: the word where the histogram notes a key special there (kernels.h,
     * rdx_hist_args.special): the MSD route's, which the route needs, else from
     * numpy_plain_min_n keys on the LSD passes' own; from there on the passes run as their
     * plain twins where it stays 0. */
    const int plain_twins = p->numpy_order && n >= ctx->cuda->tuning.numpy_plain_min_n;
    uint32_t *const special = !p->numpy_order ? NULL
                              : l.msd_ctrl    ? l.msd_ctrl + RDX_MSD_SPECIAL
                              : plain_twins   ? (uint32_t *)(t + p->np_special)
                                              : NULL;
    const size_t per_portion = (size_t)p->passes * RDX_CUDA_MAX_BINS;
    /* Every array the first pass reads lies apart from A: the passes can end in A
     * (scan.cu), with no copy back. */
    const int apart = b->keys_src != b->keys_a && (!b->vals_src || b->vals_src != b->vals_a);

    RDX_CUDA_TRY(cudaMemsetAsync(t, 0, p->ctrl_end, s));
    /* Where the MSD route is planned, a sample of the keys decides whether it is taken;
     * the histogram then counts the top digit only (taken) or every digit (not). */
    int msd_levels = p->msd, lsd_passes = 1; /* what is enqueued (each kernel checks the state) */
    int sample_ascent = 0; /* a synchronous call's sample saw keys in order (RDX_MSD_ASCENT) */
    if (p->msd) {
        const size_t max_n = rdx_cuda_msd_max_n(p, &ctx->cuda->tuning);
        const size_t repeats = p->kb == 4 && p->vb ? ctx->cuda->tuning.msd_pairs_repeats : 0u;
        const unsigned repeats_min = repeats < UINT32_MAX ? (unsigned)repeats : UINT32_MAX; /* above the sample: never */
        const unsigned heavy_values = p->kb != 8                                          ? 0u
                                      : n >= ctx->cuda->tuning.msd_many_heavy_min_n ? RDX_MSD_DEEP2_VALUES_MANY
                                                                                        : RDX_MSD_DEEP2_VALUES;
        RDX_CUDA_TRY(rdx_launch_msd_decide(p->kb, b->keys_src, n, max_n, p->cls, p->desc, p->passes - 1, repeats_min,
                                           heavy_values, l.msd_ctrl, s));
        if (b->host_waits) {
            /* A synchronous call waits for the decision and leaves out the other route's
             * launches, which would return at once but cost a few us each: about 80 us
             * where the MSD route is declined, about 25 us where it is taken (H200).
             * Where the sample dropped leading bits the histogram may still find them
             * varying, where the keys make several portions a top digit may hold too
             * many, and in NumPy's order the histogram may find a key special there
             * (RDX_MSD_SPECIAL): both routes are enqueued. */
            uint32_t w[RDX_MSD_ASCENT + 1];
            RDX_CUDA_TRY(cudaMemcpyAsync(w, l.msd_ctrl, sizeof w, cudaMemcpyDeviceToHost, s));
            RDX_CUDA_TRY(cudaStreamSynchronize(s));
            msd_levels = w[RDX_MSD_STATE] == RDX_MSD_LEVEL1;
            lsd_passes = !msd_levels || w[RDX_MSD_DROP] != 0u || p->portions > 1 || p->numpy_order;
            sample_ascent = w[RDX_MSD_ASCENT] != 0u;
        }
    }
    /* Where the LSD passes are left out but the histogram looks for keys in the reverse
     * order and the sample saw none in order, their first pass is enqueued, the reversal's
     * (it returns at once where the route runs), and no recount. */
    const int reverse_only = msd_levels && !lsd_passes && reverse_ok && !sample_ascent;
    if (reverse_only)
        lsd_passes = 1;
    /* Where the MSD route falls back (rdx_msd_falls_back), the recount after every
     * portion's histogram counts every digit for the LSD passes. */
    rdx_msd_bucket_check top;
    top.counts = l.counts;
    top.portions = p->portions;
    top.bucket_max = p->count_max;
    top.top = p->passes - 1;
    for (int recount = 0; recount <= (msd_levels && lsd_passes && !reverse_only); ++recount)
        for (size_t k = 0; k < p->portions; ++k) {
            const size_t begin = k * p->portion;
            rdx_hist_args h = hist_args((const unsigned char *)b->keys_src + begin * p->kb,
                                        n - begin < p->portion ? n - begin : p->portion,
                                        l.counts + ((recount ? p->portions : 0) + k) * per_portion, p);
            h.zero = k == 0 && !recount ? l.status[0] : NULL;
            h.zero_words = k == 0 && !recount ? p->status_words : 0;
            h.msd_ctrl = l.msd_ctrl;
            h.special = special;
            h.recount = recount;
            h.top = top;
            h.unsorted = l.unsorted;
            h.next_key = k + 1 < p->portions;
            h.reverse_ok = reverse_ok;
            h.joint = joint;
            /* where the route is armed the joint form counts (the plain one returns at
             * once), elsewhere the plain one: a synchronous call knows which */
            if (!recount && joint && msd_levels)
                RDX_CUDA_TRY(rdx_launch_histogram_joint(p->kb, &h, b->sms, s));
            if (recount || !joint || !b->host_waits || !msd_levels)
                RDX_CUDA_TRY(rdx_launch_histogram(p->kb, &h, b->sms, s));
        }

    rdx_scan_args sc;
    memset(&sc, 0, sizeof sc);
    sc.counts = l.counts;
    sc.bases = l.bases;
    sc.pass_info = l.pass_info;
    sc.active = l.active;
    sc.n = n;
    sc.portions = p->portions;
    sc.begin_bit = p->begin_bit;
    sc.end_bit = p->end_bit;
    sc.radix_bits = p->radix_bits;
    sc.passes = p->passes;
    sc.apart = apart;
    sc.msd_ctrl = l.msd_ctrl;
    sc.top = top;
    sc.unsorted = l.unsorted;
    sc.reverse_ok = reverse_ok;
    RDX_CUDA_TRY(rdx_launch_scan(&sc, s));

    if (msd_levels) {
        const rdx_status st = rdx_cuda_msd_levels(ctx, p, b, &l, s);
        if (st != RDX_OK)
            return st;
    }
    if (!lsd_passes) { /* the MSD route leaves the result in A */
        /* Keys already in order turn the route off (RDX_MSD_IN_ORDER): an argsort then
         * needs the identity written (a synchronous call sorts in place: nothing else). */
        if (p->iota)
            RDX_CUDA_TRY(enqueue_fixup(p, b, &l, apart, s));
        return RDX_OK;
    }

    /* Pairs packed in words where A's arrays hold words (8-byte aligned). */
    const int packed = p->packed && ((uintptr_t)b->keys_a | (uintptr_t)b->vals_a) % 8 == 0;
    if (ctx->cuda)
        ctx->cuda->packed = packed;
    /* Launch j = pass * portions + portion uses status buffer j % 2 and clears the other. */
    rdx_cuda_mark_write(ctx, b);
    for (int pass = 0; pass < (reverse_only ? 1 : p->passes); ++pass) {
        for (size_t k = 0; k < p->portions; ++k) {
            const size_t j = (size_t)pass * p->portions + k;
            rdx_pass_args a = rdx_cuda_pass_buffers(b, &l, p);
            rdx_cuda_pass_portion(&a, &l, p, pass, k, j);
            a.pass_info = l.pass_info;
            a.passes = p->passes; /* a launch clears a status buffer only for an active one after it */
            a.zero_rows = p->max_tiles;
            a.shift = p->begin_bit + pass * p->radix_bits;
            a.bits = p->end_bit - a.shift < p->radix_bits ? p->end_bit - a.shift : p->radix_bits;
            a.iota = p->iota;
            a.keys_scratch = b->argsort;
            a.widen = p->widen;
            a.narrow = (unsigned long long)n <= 0x100000000ull; /* 32-bit slot offsets */
            a.unordered = pass == 0 && rdx_cuda_equal_keys_alike(p);
            a.n = n;
            a.end_bit = p->end_bit;
            a.numpy = p->numpy_order;
            a.np_special = plain_twins ? special : NULL;
            a.packed = packed;
            a.pack_spare = packed ? t + p->pack_spare : NULL;
            RDX_CUDA_TRY(rdx_launch_pass(packed ? 8 : p->kb, packed ? 0 : p->vb, p->medium, &a, b->sms, s));
        }
    }

    RDX_CUDA_TRY(enqueue_fixup(p, b, &l, apart, s));
    return RDX_OK;
}

static const char *accepts(const rdx_cuda_plan *p, const rdx_cuda_tuning *t)
{
    (void)p;
    (void)t;
    return NULL; /* every job */
}

static void layout(rdx_cuda_plan *p, size_t *end) { rdx_cuda_lsd_layout(p, end, 0); }

const rdx_cuda_route rdx_route_onesweep = {"onesweep", accepts, layout, rdx_cuda_lsd_enqueue, 1,
                                             "onesweep (numpy order)"};
