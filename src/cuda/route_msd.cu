/* The MSD route for 4- and 8-byte keys (msd.cu): level 1 is the pass kernel on
 * the top digit, levels 2 and 3 sort each top-digit bucket. It is enqueued whole with the LSD
 * passes of the onesweep route behind it; on the device a sample of the keys decides
 * whether it runs (each kernel returns at once where its side is off). */
#include <string.h>

#include "common.cuh"
#include "route.h"
#include "seg_passes.h"
#include "seg_tile.h"

/* The level-2 buckets, and the bits below them (all but the top two digits, of keys with
 * nothing dropped): for 8-byte keys the deep level takes the top 8 of them in the buckets
 * above level 3's capacity, and the segmented passes all of them in the sub-buckets still
 * above it (the deep digit, constant in a sub-bucket where the deep level ran, costs them
 * nothing). 4-byte keys have no deep level: the segmented passes take their long level-2
 * buckets whole. Their 16 low bits are two moves either way (a deep pass and the deep
 * kernel, or two segmented passes), and the deep level's 12 launches, enqueued whatever
 * the keys, cost every 4-byte sort the route plans 10-30 us (H200, round 42: u32 equal
 * keys at 2^28 0.500 -> 0.478 ms, uniform 4.039 -> 4.028 ms). */
#define MSD_L2_BUCKETS ((size_t)RDX_MSD_BUCKETS2)
static int low_bits(const rdx_cuda_plan *p) { return p->kb * 8 - 16; }
static int low_passes(const rdx_cuda_plan *p) { return low_bits(p) / 8; }
static int has_deep(const rdx_cuda_plan *p) { return p->kb == 8; }

static size_t l3_cap(const rdx_cuda_plan *p) { return rdx_msd_l3_cap(p->kb, p->vb, p->msd_l3); }
/* The level-2 buckets of 4-byte keys above this many keys go to the segmented passes: above
 * level 3's capacity, or the wider shape's where one takes the buckets above that
 * (p->msd_l3_long). (8-byte keys' segments are the deep level's sub-buckets above level 3's
 * capacity.) */
static size_t segp_min(const rdx_cuda_plan *p)
{
    return p->msd_l3_long >= 0 && !has_deep(p) ? rdx_msd_l3_cap(p->kb, p->vb, p->msd_l3_long) : l3_cap(p);
}
/* The most buckets above level 3's capacity n keys can hold (level-2 buckets, or
 * sub-buckets of the deep level). */
static size_t most_long(const rdx_cuda_plan *p) { return p->n / (l3_cap(p) + 1); }

/* The most keys the route takes for the plan's job where the keys use every value of the
 * top digit: the level-2 buckets' average (n / 65536) stays below level 3's capacity. */
size_t rdx_cuda_msd_max_n(const rdx_cuda_plan *p, const rdx_cuda_tuning *t)
{
    switch (p->msd_l3) {
    case RDX_MSD_L3_COUNTS: return t->msd4_counts_max_n;
    case RDX_MSD_L3_WIDE: return t->msd4_wide_max_n;
    case RDX_MSD_L3_MID: return t->msd4_pairs_mid_max_n;
    default: return p->vb ? t->msd_pairs_max_n : t->msd_max_n;
    }
}

/* Whether equal keys are alike on the route (keys alone over all their bits: levels 1 and 2
 * may place them in any order, the levels below sort each bucket whole). In NumPy's order
 * too: the route runs only where no key is special there (RDX_MSD_SPECIAL), and equal keys
 * are then equal bit patterns. */
static int levels_alike(const rdx_cuda_plan *p)
{
    return rdx_equal_keys_alike(p->vb == 0, 0, p->begin_bit, p->end_bit, p->kb);
}

/* 4- or 8-byte keys (integers or floats) alone, or with 4- or 8-byte values that move
 * with them: a pair's values, or indices (an argsort's, or those that gather values of
 * another size at the end: level 1 makes them); the whole key with 8-bit digits; n below
 * 2^32 (32-bit slots); up to RDX_MSD_MAX_N keys, pairs up to RDX_MSD_PAIRS_MAX_N (their
 * level-3 capacity is smaller), 4-byte keys above those (alone or with 4-byte values) up to
 * RDX_MSD4_WIDE_MAX_N with level 3 in a wider shape (plan.cu, msd_l3_shape), keys alone
 * above that up to RDX_MSD4_COUNTS_MAX_N in its counts-only shape, and 8-byte keys above those up to
 * RDX_MSD_DEEP_MAX_N, which the sample takes only where the deep level splits every
 * level-2 bucket or the keys have few 16-bit prefixes (every bucket long, the segmented
 * passes skip the digits each shares). Level 1 runs a launch per portion of the pass
 * kernel, as an LSD pass does (2^30 keys and more); level 2's look-back counts are per
 * level-1 bucket. Floats whose values lie within a few orders of magnitude (normal,
 * [0, 1)) put nearly all keys in a few top-digit buckets (the sign and the exponent's
 * high bits): the sample declines them. Floats in NumPy's order (ascending: the plan's
 * only such jobs, rdx_cuda_numpy_lsd) are sorted by their plain images, which order them
 * alike where no key is a NaN other than the canonical one or -0.0; the histogram finds
 * such a key (RDX_MSD_SPECIAL) and sends the sort to the LSD passes in NumPy's order. */
static const char *accepts(const rdx_cuda_plan *p, const rdx_cuda_tuning *t)
{
    if (p->kb != 4 && p->kb != 8)
        return "keys not 4 or 8 bytes";
    if (t->kernels_off & RDX_KERNELS_MSD)
        return "too little shared memory on the device for the MSD levels";
    if (p->numpy_order && (p->cls != RDX_CLASS_FLOAT || p->desc))
        return "NumPy's order, descending or not floats";
    if (p->vb != 0 && p->vb != 4 && p->vb != 8)
        return "values of another width";
    if (p->begin_bit != 0 || p->end_bit != p->kb * 8 || p->radix_bits != 8)
        return "a bit range or digit width of the caller's";
    if (p->n < (p->kb == 4 ? t->msd4_min_n : t->msd_min_n) || p->n <= RDX_SMALL_MAX_N)
        return "n below the context's MSD minimum";
    const size_t most = rdx_cuda_msd_max_n(p, t);
    if (p->n > (p->kb == 8 && t->msd_deep_max_n > most ? t->msd_deep_max_n : most) ||
        (unsigned long long)p->n >= 0x100000000ull)
        return "n above the MSD maximum";
    return NULL;
}

/* An argsort into 64-bit indices moves 32-bit ones (p->widen): levels 2 and 3 and the
 * segmented passes sort them in a buffer of their own, and level 3 and the segmented
 * passes' fix-up write them widened into the result. */
static void layout(rdx_cuda_plan *p, size_t *end)
{
    rdx_cuda_lsd_layout(p, end, 1);
    if (p->widen)
        p->msd_vals4 = rdx_cuda_take(end, p->n * (size_t)4);
}

void rdx_cuda_msd_long_layout(rdx_cuda_plan *p, size_t *end)
{
    const size_t cap = l3_cap(p);
    p->msd_off = rdx_cuda_take(end, (MSD_L2_BUCKETS + 1) * sizeof(size_t));
    p->msd_bins = rdx_cuda_take(end, rdx_seg_tile_scratch_bytes(MSD_L2_BUCKETS));
    if (p->msd_l3_long >= 0)
        p->msd_bins_long = rdx_cuda_take(end, rdx_seg_tile_scratch_bytes(MSD_L2_BUCKETS));
    if (!has_deep(p)) {
        p->msd_segp = rdx_cuda_take(
            end, rdx_seg_passes_scratch_bytes(p->kb, p->vb, p->n, MSD_L2_BUCKETS, segp_min(p), low_passes(p)));
        return;
    }
    const size_t subs = most_long(p); /* each deep level's sub-buckets above level 3's capacity */
    p->msd_off3 = rdx_cuda_take(end, (2 * subs + 1) * sizeof(size_t));
    p->msd_bins3 = rdx_cuda_take(end, rdx_seg_tile_scratch_bytes(subs));
    p->msd_off4 = rdx_cuda_take(end, (2 * subs + 1) * sizeof(size_t));
    p->msd_bins4 = rdx_cuda_take(end, rdx_seg_tile_scratch_bytes(subs));
    const size_t longs = subs < MSD_L2_BUCKETS ? subs : MSD_L2_BUCKETS; /* long level-2 buckets */
    /* At most 256 groups a long bucket. The second deep level's long sub-buckets may be more
     * (up to subs), but its groups are fewer than 2 subs + 2 n / (capacity / 2) all told
     * (a group is a segment's first, one sub-bucket above half the capacity, or the first
     * in a window of half the capacity), within this for every n. */
    p->msd_groups = rdx_cuda_take(end, longs * 256 * sizeof(uint32_t));
    /* Each deep level's lone sub-buckets above the narrow capacity (at most subs of them)
     * and the two sides of each it splits: at most 2 subs. */
    p->msd_wide = rdx_cuda_take(end, 2 * 2 * subs * sizeof(uint2));
    /* The chunks of a deep level's lone sub-buckets above the wide capacity: each a whole
     * RDX_MSD_DEEP_COPY_CHUNK keys but its last. */
    p->msd_chunks = rdx_cuda_take(end, (p->n / RDX_MSD_DEEP_COPY_CHUNK + subs) * sizeof(rdx_msd_chunk));
    /* The deep levels' passes and then the segmented passes share the scratch (each deep
     * kernel reads its pass's view before the next pass starts). */
    const size_t first = rdx_seg_passes_scratch_bytes(p->kb, p->vb, p->n, MSD_L2_BUCKETS, cap, 1);
    const size_t rest = rdx_seg_passes_scratch_bytes(p->kb, p->vb, p->n, 2 * subs, cap, low_passes(p));
    p->msd_segp = rdx_cuda_take(end, first > rest ? first : rest);
}

rdx_status rdx_cuda_msd_levels(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_cuda_bufs *b, rdx_cuda_lsd *l,
                               cudaStream_t s)
{
    unsigned char *t = b->t;
    const size_t n = p->n;
    void *vals_a = p->widen ? (void *)(t + p->msd_vals4) : b->vals_a; /* NULL for keys only */
    /* Level 1: the pass kernel on the top digit, source -> B (keys and values; its pass
     * word is ACTIVE | FIRST: it reads keys_src / vals_src, in place or not, and writes B),
     * a launch per portion as the LSD passes have, portion k looking back in status buffer
     * k % 2 (buffer 0 zeroed by the histogram) and clearing the other, which the next
     * launch, or level 2, uses. Launch k counts its tiles in the LSD pass's counter of the
     * same portion: one of the two launches returns before it counts (its pass word is
     * zero: the scan clears level 1's where the route is not taken, the route the LSD
     * passes' where it is). */
    const int top = p->passes - 1;
    rdx_pass_args a = rdx_cuda_pass_buffers(b, l, p);
    a.pass_info = l->msd_ctrl + RDX_MSD_INFO;
    a.zero_rows = p->status_words / RDX_CUDA_MAX_BINS;
    a.shift = p->begin_bit + top * p->radix_bits;
    a.bits = p->radix_bits;
    a.narrow = 1;
    a.iota = p->iota; /* an argsort's indices, made as level 1 reads the keys */
    a.msd_base = l->msd_ctrl + RDX_MSD_BASE; /* level 1 writes the images less the sample's base */
    a.unordered = levels_alike(p); /* levels 2 and 3 sort each bucket whole */
    for (size_t k = 0; k < p->portions; ++k) {
        rdx_cuda_pass_portion(&a, l, p, top, k, k);
        RDX_CUDA_TRY(rdx_launch_pass(p->kb, p->vb, p->medium, &a, b->sms, s));
    }

    /* Levels 2 and 3: B -> A -> A. Level 2 looks back in the status buffer that level 1's
     * last launch cleared. */
    rdx_msd_args m;
    memset(&m, 0, sizeof m);
    m.keys_a = b->keys_a;
    m.keys_b = l->keys_b;
    m.vals_a = vals_a;
    m.vals_wide = p->widen ? b->vals_a : NULL;
    m.vals_b = l->vals_b;
    m.top_bases = l->bases + (size_t)top * RDX_CUDA_MAX_BINS;
    m.ctrl = l->msd_ctrl;
    m.counts2 = (uint32_t *)(t + p->msd_counts2);
    m.bases2 = (uint32_t *)(t + p->msd_bases2);
    m.first_tile = (uint32_t *)(t + p->msd_first_tile);
    m.pass_info = l->pass_info;
    m.passes = p->passes;
    m.status = l->status[p->portions % 2];
    m.n = n;
    m.cls = p->cls;
    m.desc = p->desc;
    RDX_CUDA_TRY(rdx_launch_msd_counts(p->kb, p->vb, p->msd_l3, &m, s));
    rdx_cuda_mark_write(ctx, b); /* levels 2 and 3 write A */
    RDX_CUDA_TRY(rdx_launch_msd_sort(p->kb, p->vb, p->msd_l3, &m, b->sms, s));

    /* The level-2 buckets above level 3's capacity (few distinct keys, a heavy key, skew
     * below the top digit, keys repeated a few hundred times, 8-byte keys from 2^29), as
     * offsets and a list of the long ones; where a wider shape of level 3 takes them, the
     * list of those it leaves. */
    size_t *off = (size_t *)(t + p->msd_off);
    uint32_t *bins = (uint32_t *)(t + p->msd_bins);
    uint32_t *bins_long = p->msd_l3_long >= 0 ? (uint32_t *)(t + p->msd_bins_long) : NULL;
    RDX_CUDA_TRY(rdx_launch_msd_offsets(&m, off, bins_long, b->sms, s));
    rdx_seg_tile_args g;
    memset(&g, 0, sizeof g);
    g.n = n;
    g.off = off;
    g.S = MSD_L2_BUCKETS;
    g.max_short = l3_cap(p);
    RDX_CUDA_TRY(rdx_seg_tile_bin(&g, bins, b->sms, s));
    if (bins_long) {
        RDX_CUDA_TRY(rdx_launch_msd_long(p->kb, p->vb, p->msd_l3_long, &m, bins, bins_long, b->sms, s));
        bins = bins_long;
    }
    rdx_seg_passes_args q;
    memset(&q, 0, sizeof q);
    q.kb = p->kb;
    q.vb = p->vb;
    q.keys_src = b->keys_a;
    q.keys_a = b->keys_a;
    q.keys_b = l->keys_b;
    q.vals_src = vals_a;
    q.vals_a = vals_a;
    q.vals_b = l->vals_b;
    q.n = n;
    q.off = off;
    q.S = MSD_L2_BUCKETS;
    q.bins = bins;
    q.max_short = segp_min(p);
    q.cls = p->cls;
    q.desc = p->desc;
    void *segp = t + p->msd_segp;
    if (has_deep(p)) {
        /* The deep level: the segmented passes' first pass on the 8 bits below the top two digits
         * partitions each long bucket the wide shape left, in place in A with B (free after level
         * 2) as the other buffer, leaving them in B where it runs; the deep kernel sorts the
         * sub-buckets within level 3's capacity into A; those within its wide shape's
         * (RDX_MSD_L3_WIDE8_*) are listed for a kernel of that shape, which sorts them from where
         * they lie, and the others are split around a heavy key or copied to A and listed
         * (msd.cu). Level 2 wrote the keys decoded. Then the second deep level does
         * the same on the next 8 bits over those listed sub-buckets (normal doubles at 2^28 left
         * 60% of their keys in sub-buckets of up to 3 times level 3's capacity before the wide
         * shape took them). Each level's list holds offset pairs, segment 2i being sub-bucket i
         * (the odd ones are never listed). Where the sample skips a level (RDX_MSD_SKIP_DEEP, and
         * with it RDX_MSD_SKIP_DEEP2), its pass reads nothing and every long bucket is one
         * sub-bucket, listed whole. */
        static const struct { int skip_word, groups_word, long_word, wide_word, chunks_word; } levels[2] = {
            {RDX_MSD_SKIP_DEEP, RDX_MSD_GROUPS, RDX_MSD_DEEP_LONG, RDX_MSD_DEEP_WIDE, RDX_MSD_DEEP_CHUNKS},
            {RDX_MSD_SKIP_DEEP2, RDX_MSD_GROUPS2, RDX_MSD_DEEP2_LONG, RDX_MSD_DEEP2_WIDE, RDX_MSD_DEEP2_CHUNKS}};
        q.leave_in_b = 1;
        q.radix_bits = 8;
        q.bit_less = l->msd_ctrl + RDX_MSD_DROP; /* the deep digits lie below the second digit */
        q.unordered = levels_alike(p); /* each sub-bucket is sorted whole below */
        rdx_msd_deep_args d;
        memset(&d, 0, sizeof d);
        d.groups = (uint32_t *)(t + p->msd_groups);
        d.chunks = (rdx_msd_chunk *)(t + p->msd_chunks);
        for (int k = 0; k < 2; ++k) {
            q.begin_bit = low_bits(p) - 8 * (k + 1);
            q.end_bit = q.begin_bit + 8;
            q.one_digit = l->msd_ctrl + levels[k].skip_word;
            RDX_CUDA_TRY(rdx_seg_passes_enqueue(&q, segp, b->sms, s));
            d.first = rdx_seg_passes_view_of(&q, segp);
            d.low8 = q.begin_bit;
            d.off3 = (size_t *)(t + (k ? p->msd_off4 : p->msd_off3));
            d.bins3 = (uint32_t *)(t + (k ? p->msd_bins4 : p->msd_bins3));
            d.groups_word = levels[k].groups_word;
            d.long_word = levels[k].long_word;
            d.skip_word = levels[k].skip_word;
            d.wide = (uint2 *)(t + p->msd_wide) + (size_t)k * 2 * most_long(p);
            d.wide_word = levels[k].wide_word;
            d.chunks_word = levels[k].chunks_word;
            RDX_CUDA_TRY(cudaMemsetAsync(d.bins3, 0, rdx_seg_tile_scratch_bytes(0), s));
            RDX_CUDA_TRY(rdx_launch_msd_deep(p->kb, p->vb, &m, &d, b->sms, s));
            q.off = d.off3;
            q.S = 2 * most_long(p);
            q.bins = d.bins3;
        }
        /* The segmented passes below take the second level's sub-buckets still above the
         * capacity (a heavy key: their deep digits are constant, and cost nothing), or
         * the long buckets where the deep levels were skipped. */
        q.one_digit = NULL;
    }

    /* The segmented passes over all the bits below the top two digits, in place in A: the
     * long level-2 buckets (4-byte keys), or the deep level's long sub-buckets. */
    q.keys_scratch = b->argsort; /* an argsort's keys are scratch: the last pass writes indices only */
    q.wide_out = p->widen ? b->vals_a : NULL;
    q.leave_in_b = 0;
    q.unordered = levels_alike(p); /* their lowest digit's pass */
    q.bit_less = NULL; /* bits 0 to low_bits: the dropped ones, constant, cost nothing */
    q.begin_bit = 0;
    q.end_bit = low_bits(p);
    q.radix_bits = 8;
    RDX_CUDA_TRY(rdx_seg_passes_enqueue(&q, segp, b->sms, s));
    return RDX_OK;
}

const rdx_cuda_route rdx_route_msd = {"msd", accepts, layout, rdx_cuda_lsd_enqueue, 1,
                                        "msd (decided on the device)"};
