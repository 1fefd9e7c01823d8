/* What the kernel files (histogram.cu, scan.cu, onesweep.cu, small.cu, cluster.cu,
 * grid.cu, gather.cu) offer the host code (plan.cu): one argument struct and one launcher
 * per kernel. Launchers only enqueue on the given stream (no sync, no allocation:
 * CUDA-graph safe) and return the launch's error. */
#ifndef RDX_CUDA_KERNELS_H
#define RDX_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "seg_passes.h"

/* The (key bytes, value bytes) pairs the kernels are instantiated for, in one list:
 * RDX_FOR_EACH_KV(X) is X(KB, VB) for each pair, in this order (the launchers' switch on
 * kb * 16 + vb, the preparation of each instantiation). */
#define RDX_FOR_EACH_KV(X) \
    X(1, 0) X(1, 4) X(1, 8) X(2, 0) X(2, 4) X(2, 8) X(4, 0) X(4, 4) X(4, 8) X(8, 0) X(8, 4) X(8, 8)
/* Those of the kernels in NumPy's order (4- and 8-byte float keys: the pass kernel, the
 * grid kernel). */
#define RDX_FOR_EACH_NP_KV(X) X(4, 0) X(4, 4) X(4, 8) X(8, 0) X(8, 4) X(8, 8)

/* The MSD route's level 2 looks back over each level-1 bucket with the pass kernel's
 * counts of at most 2^30 - 1 keys: where the keys make more than one portion, a top digit
 * holding more keys than a count holds (a skew its sample missed) sends the sort to the LSD
 * passes (rdx_msd_falls_back, hist.cuh). It is the count's limit, not a portion's size
 * (n / portions), that binds: 90% of 2^30 keys in one top digit take the route. The first
 * histogram's counts of every portion: */
typedef struct rdx_msd_bucket_check {
    const uint32_t *counts;      /* [portions][passes][256], the top pass's row counted */
    size_t portions;             /* 1: no check (no bucket holds more than n) */
    size_t bucket_max;           /* the most keys a count holds (rdx_cuda_plan.count_max) */
    int top;                     /* the top pass */
} rdx_msd_bucket_check;

/* The kinds of neighbouring pair the order check finds (rdx_hist_args.unsorted): keys
 * without a descent are in the sort's order, keys without an ascent in its reverse. */
#define RDX_ORDER_DESCENT 1u /* a pair out of the sort's order */
#define RDX_ORDER_ASCENT 2u  /* a pair in it, its keys not equal */

/* Up-front histogram of one portion: counts[p * 256 + d] += keys with digit d in pass p. */
typedef struct rdx_hist_args {
    const void *keys;        /* the portion's first key */
    size_t count;            /* keys in the portion */
    uint32_t *counts;        /* [passes][256], zeroed before the launch */
    uint32_t *zero;          /* also cleared by this launch (status buffer 0), or NULL */
    size_t zero_words;
    int cls, desc;           /* key codec */
    int begin_bit, end_bit, radix_bits, passes;
    uint32_t *msd_ctrl;          /* NULL, or the MSD route's control words: where the route
                                    is armed (RDX_MSD_LEVEL1) only its top digit is counted
                                    (all level 1 needs) and the bits that vary over the keys
                                    noted (RDX_MSD_RANGE), else every pass */
    int recount;                 /* with msd_ctrl, the launch after those of every portion:
                                    counts every pass, and only where the route falls back
                                    (rdx_msd_falls_back: RDX_MSD_MISSED); else it returns at
                                    once */
    rdx_msd_bucket_check top;    /* with recount, what rdx_msd_falls_back reads */
    uint32_t *joint;             /* with msd_ctrl (4- and 8-byte keys), the route's level-2
                                    counts (rdx_msd_args.counts2, [256][256], zeroed): the
                                    launch of the joint form (rdx_launch_histogram_joint)
                                    counts them where the route is armed, besides the top
                                    digit, and the plain form returns at once there (both
                                    are launched with the same arguments; each runs where
                                    the other does not) */
    uint32_t *unsorted;          /* NULL, or a word (zeroed before the sort) into which a
                                    launch ORs the kinds of neighbouring pair it found
                                    (RDX_ORDER_*, by bits [begin_bit, end_bit) of their
                                    codes): input already in order skips every pass, and the
                                    MSD route; input in reverse order is reversed */
    int next_key;                /* with unsorted: the key after the portion (the next
                                    portion's first) may be read, for the pair across */
    int numpy;                   /* count the keys' canonical codes of NumPy's order
                                    (key_codec.h), inf: the float type's +inf pattern */
    unsigned long long inf;
    uint32_t *special;           /* with numpy, NULL or a word (zeroed before the sort) into
                                    which the launches that read every key OR 1 where one is
                                    special in NumPy's order (a NaN other than the canonical
                                    one, or -0.0; rdx_numpy_special_image): the MSD route's
                                    RDX_MSD_SPECIAL (its top digit counted by the plain
                                    images), else the LSD passes' (rdx_pass_args.np_special) */
    int reverse_ok;              /* with unsorted: look for pairs in order too
                                    (RDX_ORDER_ASCENT), where the scan may reverse the keys */
} rdx_hist_args;

/* Turns the histograms into digit offsets and decides, on the device, which passes run. */
typedef struct rdx_scan_args {
    const uint32_t *counts;      /* [portions][passes][256] */
    unsigned long long *bases;   /* out: [passes][256] of portion 0 (the digits' first slots;
                                    the pass kernels fill in the later portions) */
    uint32_t *pass_info;         /* out: [passes], RDX_PASS_* flags */
    uint32_t *active;            /* out: number of active passes */
    size_t n, portions;
    int begin_bit, end_bit, radix_bits, passes;
    int apart;                   /* the first active pass reads a source apart from buffer A
                                    (keys_src != keys_a, and vals_src != vals_a where values
                                    are read): the passes are laid out to end in A */
    uint32_t *msd_ctrl;          /* NULL, or the MSD route's control words: where it falls
                                    back (rdx_msd_falls_back: its sample missed the keys'
                                    range, or a top digit holds more than a count), the
                                    counts are the recount's (after every portion's) and the
                                    route is turned off (RDX_MSD_MISSED) */
    rdx_msd_bucket_check top;    /* what rdx_msd_falls_back reads */
    const uint32_t *unsorted;    /* NULL, or the histogram's order check (rdx_hist_args): with
                                    no RDX_ORDER_DESCENT, no pass runs, the MSD route is
                                    turned off (RDX_MSD_IN_ORDER), and the fix-up leaves the
                                    input as it is; */
    int reverse_ok;              /* the histogram looked for both kinds: with a descent and no
                                    ascent the keys are in the reverse order, and the first
                                    pass reverses them (RDX_PASS_REVERSE), the only one */
} rdx_scan_args;

/* One launch of the pass kernel: one pass over one portion. */
/* The tiles of the segmented passes (seg_passes.cu): tiles numbered per long segment, so
 * that none crosses a segment's edge; a segment's first tile starts its look-back chain,
 * and slots come from the segment's own digit bases. All device arrays. */
typedef struct rdx_seg_tiles {
    const uint4 *tiles;          /* [tiles]: each tile's first key, its keys, the first tile
                                    of its segment, and the segment (one load per tile) */
    const uint32_t *tile_count;  /* the tiles (device): each block takes tiles until they
                                    run out, so the grid need not match them */
    size_t seg_size;             /* equal rows: the row's keys (the tile is computed, not
                                    loaded), or 0 */
    uint32_t row_tiles;          /* equal rows: tiles per row */
    const uint32_t *bases;       /* [long segments][passes][256]: each digit's first slot,
                                    from the segment's start */
    const uint32_t *moves;       /* [long segments]: 0 where a segment has one digit in
                                    every pass (its tiles are skipped: it stays where the
                                    first pass reads), or NULL: every segment moves */
    int passes;
    int iota_rel;                /* indices count from the segment's start (argsort) */
    int numpy;                   /* the first pass orders by RDX_NUMPY_ORDER's code (floats) */
    unsigned long long inf;      /* the float type's +inf pattern, with numpy */
} rdx_seg_tiles;

typedef struct rdx_pass_args {
    void *keys_a, *keys_b;       /* ping-pong buffers, whole arrays; A holds the result */
    void *vals_a, *vals_b;       /* NULL when no values move */
    const void *keys_src;        /* what the first active pass reads instead of its input
                                    buffer: keys_a when sorting in place, else the caller's
                                    input (never written) */
    const void *vals_src;        /* the same for the values (vals_a in place; unused with iota) */
    const uint32_t *pass_info;   /* [passes] */
    const unsigned long long *bases; /* [passes][256]: first slot of each digit in this portion */
    unsigned long long *bases_next;  /* the same for the next portion, written by this launch's
                                        last tile; NULL for the last portion */
    uint32_t *status;            /* [tiles][256] look-back words of this launch, zeroed */
    uint32_t *status_next;       /* the other status buffer: cleared for the next launch */
    size_t zero_rows;            /* rows of status_next to clear */
    int passes;                  /* the LSD passes: pass_info's length, and a launch clears
                                    status_next only where a launch after it is active (the
                                    next portion of its pass, or a later pass); 0 (the MSD
                                    route's level 1, whose next user is level 2): always */
    uint32_t *tile_counter;      /* zeroed; hands out tile numbers in start order */
    uint32_t tiles;              /* the launch's tiles (rdx_launch_pass sets it) */
    size_t portion_begin, portion_count;
    int pass, shift, bits;
    int cls, desc;
    int iota;                    /* values start as the key's index (argsort, gather) */
    int keys_scratch;            /* keys are not part of the result (argsort): the last
                                    pass writes only the values */
    int widen;                   /* with keys_scratch and 4-byte values: the last pass writes
                                    them as 8-byte indices */
    int narrow;                  /* every output slot is below 2^32 (32-bit offsets) */
    const uint32_t *msd_base;    /* the MSD route's level 1: ctrl + RDX_MSD_BASE, which its
                                    first pass subtracts from every image; else NULL */
    int unordered;               /* keys alone, equal keys alike in every bit, and a pass whose
                                    order within a digit nobody sees: the lowest digit's
                                    (the stable passes above it decide the rest) or a split
                                    whose pieces are sorted whole afterwards (the MSD route's
                                    levels). A tile's keys of one digit may leave in any
                                    order (rank.cuh) */
    rdx_seg_tiles seg;           /* rdx_launch_seg_pass only */
    int numpy;                   /* float keys of 4 or 8 bytes in NumPy's order, ascending:
                                    digits of their canonical codes (rdx_np_key) */
    const uint32_t *np_special;  /* with numpy, NULL or the histogram's word (rdx_hist_args.
                                    special): then each pass is launched twice, the kernel in
                                    NumPy's order running where a key is special and its
                                    plain twin (the same digits then, fewer instructions)
                                    where none is */
    int packed;                  /* 4-byte keys with 4-byte values (or indices: iota), moved
                                    by the 8-byte keys' kernel as one word a pair, key above
                                    value: the first active pass reads them apart and the
                                    last writes them apart; between, B holds n words from
                                    keys_b on, A words [0, n/2) in keys_a, [n/2, 2 (n/2)) in
                                    vals_a and an odd n's last one in *pack_spare
                                    (onesweep.cu, pk_buf) */
    void *pack_spare;
    size_t n;                    /* the sort's keys (every portion's), and the end of its */
    int end_bit;                 /* compared bits (the first is pass 0's shift): what the
                                    reversal (RDX_PASS_REVERSE) reads */
} rdx_pass_args;

/* Keys alone (keys_alone), sorted over every bit of their kb bytes and not in NumPy's order
 * (where -0.0 equals +0.0): equal keys are alike in every bit, so the lowest digit's pass
 * may rank unordered (rdx_pass_args.unordered, rdx_seg_passes_args.unordered). */
static inline int rdx_equal_keys_alike(int keys_alone, int numpy_order, int begin_bit, int end_bit, int kb)
{
    return keys_alone && !numpy_order && begin_bit == 0 && end_bit == kb * 8;
}

/* One block sorts n <= RDX_SMALL_MAX_N keys on chip (small.cu); also the cluster path's. */
typedef struct rdx_small_args {
    const void *keys_in;
    void *keys_out;              /* may equal keys_in; NULL: keys are not written */
    const void *vals_in;         /* NULL with values: the values are the indices (iota) */
    void *vals_out;              /* NULL when no values move */
    int n;
    int cls, desc;
    int begin_bit, end_bit, radix_bits;
} rdx_small_args;

/* A grid of co-resident blocks sorts n <= RDX_GRID_MAX_N keys in one launch (grid.cu). */
typedef struct rdx_grid_args {
    const void *keys_in;
    void *keys_out;              /* may equal keys_in; NULL: keys are not written */
    const void *vals_in;         /* NULL with values: the values are the indices (iota) */
    void *vals_out;              /* NULL when no values move */
    void *keys_tmp, *vals_tmp;   /* scratch of n keys and n values (vals_tmp NULL without) */
    uint32_t *counts;            /* [passes][blocks][256], written before read */
    uint32_t *barrier;           /* one word, zeroed before the launch */
    size_t n;
    int cls, desc;
    int begin_bit, end_bit, radix_bits;
} rdx_grid_args;

/* One thread-block cluster sorts RDX_SMALL_MAX_N < n <= RDX_CLUSTER_MAX_N keys in one
 * launch (cluster.cu, sm_90+); no scratch memory: the same arguments as one block. */
typedef rdx_small_args rdx_cluster_args;

/* After the passes. Sorting in place (not apart): copies B back to A after an odd number
 * of active passes. With a source apart from A the last active pass wrote A already.
 * When no pass ran (every key has the same sorted bits): copies a source that is not A
 * to A (keys and values), and writes the indices when the values are indices. */
typedef struct rdx_fixup_args {
    void *keys_a;
    const void *keys_b;
    const void *keys_src;        /* the sort's input keys (keys_a in place) */
    size_t key_bytes;            /* 0: the keys need no copy */
    void *vals_a;
    const void *vals_b;
    const void *vals_src;        /* the input values (vals_a in place; unused with iota) */
    size_t val_bytes;            /* 0: no values */
    const uint32_t *active;
    const uint32_t *msd_ctrl;    /* NULL, or the MSD route's control words: when the route
                                    ran, the result is in A already and nothing is done */
    int apart;                   /* as rdx_scan_args.apart */
    int iota, index_bytes;
    size_t n;
} rdx_fixup_args;

/* The MSD route for 4- and 8-byte keys (msd.cu). Control words, u32, RDX_MSD_CTRL_WORDS of them,
 * zeroed before the sort: */
#define RDX_MSD_STATE 0       /* RDX_MSD_OFF / _LEVEL1 / _ON */
#define RDX_MSD_SLOW 1        /* level-3 blocks that took the on-chip LSD fallback */
#define RDX_MSD_GROUPS 2      /* the deep level's groups of sub-buckets (msd_deep_groups_kernel) */
#define RDX_MSD_L2_COUNTER 3  /* level 2's tile counter */
#define RDX_MSD_LONG 4        /* level-2 buckets above level 3's capacity (RDX_MSD_L3_CAP,
                                 RDX_MSD_L3_CAP_PAIRS with values): the segmented passes
                                 (seg_passes.h) sort them */
#define RDX_MSD_DROP 5        /* the keys' leading bits that do not vary in the sample, which
                                 the route's digits skip (its top digit is the 8 bits below
                                 them); at most MSD_MAX_DROP of msd.cu. The bits are those
                                 of the image less the base */
#define RDX_MSD_BASE 6        /* [2] (low, high word) the base the route subtracts from every
                                 key's image before it takes its top two digits (msd_base of
                                 msd.cu: 0 for keys whose least lies near 0); level 2 adds it
                                 back as it decodes */
#define RDX_MSD_INFO 8        /* [8] pass_info words for level 1 (the pass kernel reads
                                 [RDX_MSD_INFO + the top pass]; it carries the drop, see
                                 RDX_PASS_DROP_SHIFT) */
#define RDX_MSD_RANGE 16      /* [4] where the route is armed, the histogram's OR of every
                                 encoded key (low, high word) and of its complement: the bits
                                 that vary over all the keys (rdx_msd_range_missed) */
#define RDX_MSD_DEEP_LONG 20  /* sub-buckets of the deep level above level 3's capacity
                                 (msd_deep_kernel): the second deep level splits them */
#define RDX_MSD_SKIP_DEEP 21  /* 1 where the sample of 8-byte keys (4-byte keys have no deep
                                 level) saw few values of the bits the deep level
                                 splits by (msd_decide_kernel): its pass (and the second
                                 deep level's) takes every long level-2 bucket as one
                                 sub-bucket without reading a key, and the segmented
                                 passes sort those over all their low bits */
#define RDX_MSD_GROUPS2 22     /* the second deep level's groups (as RDX_MSD_GROUPS) */
#define RDX_MSD_DEEP2_LONG 23  /* sub-buckets of the second deep level above level 3's
                                  capacity: the segmented passes sort them */
#define RDX_MSD_SKIP_DEEP2 24  /* 1 where the second deep level's pass takes each long
                                  sub-bucket as one (as RDX_MSD_SKIP_DEEP): where the deep
                                  level is skipped, or the drop leaves no digit below the
                                  deep digit */
#define RDX_MSD_SPECIAL 25     /* 1 where a job in NumPy's order has a key whose canonical code
                                  differs from its plain image (a NaN other than the
                                  canonical one, or -0.0; the up-front histogram finds
                                  them as it counts the top digit): the route, which sorts
                                  by the plain images, falls back to the LSD passes in
                                  NumPy's order (rdx_msd_range_missed) */
#define RDX_MSD_DEEP_WIDE 26   /* lone sub-buckets of the deep level above level 3's
                                  capacity and within its wide shape's for 8-byte keys
                                  (RDX_MSD_L3_WIDE8_*): msd_deep_wide_kernel sorts them
                                  where they lie, not the second deep level */
#define RDX_MSD_DEEP2_WIDE 27  /* the same of the second deep level (not the segmented
                                  passes) */
#define RDX_MSD_WIDER_LEFT 28  /* level-2 buckets above level 3's capacity in the wider shape
                                  that takes the long ones (msd_long_kernel) too: the
                                  segmented passes sort 4-byte keys', the deep level 8-byte
                                  keys' */
#define RDX_MSD_DEEP_CHUNKS 29  /* chunks of the deep level's lone sub-buckets in B
                                  (rdx_msd_deep_args.chunks), which go to A */
#define RDX_MSD_DEEP2_CHUNKS 30 /* the same of the second deep level */
#define RDX_MSD_SPLITS 31      /* lone sub-buckets of both deep levels split around a value
                                  that many of their keys hold (msd_deep_chunk): that
                                  value's keys are placed once and sorted no further */
#define RDX_MSD_JOINT 32       /* 1 where the up-front histogram counted the level-2 bins
                                  (its joint form ran: rdx_hist_args.joint) */
#define RDX_MSD_ASCENT 33      /* 1 where the sample saw two neighbouring keys in the sort's
                                  order (strictly): the keys are not in the reverse order,
                                  and a synchronous call leaves out the reversal's pass */
#define RDX_MSD_CTRL_WORDS 34
#define RDX_MSD_BUCKETS2 (256u * 256u) /* level-2 buckets: (top digit, next digit) */
#define RDX_MSD_OFF 0u        /* not taken (skew), or not decided */
#define RDX_MSD_LEVEL1 1u     /* the sample armed level 1 (rdx_launch_msd_decide) */
#define RDX_MSD_ON 2u         /* levels 2 and 3 run (and the segmented passes on the
                                 buckets above level 3's capacity); the LSD passes and the
                                 fix-up do nothing */
#define RDX_MSD_MISSED 3u     /* the sample dropped leading bits that vary in some key (the
                                 histogram saw them): the LSD passes run, on a second histogram
                                 of every digit (rdx_scan_kernel turns the route off) */
#define RDX_MSD_IN_ORDER 4u   /* the histogram found the keys already in the sort's order
                                 (rdx_hist_args.unsorted): no level and no LSD pass runs
                                 (rdx_scan_kernel turns the route off) */
#define RDX_MSD_REVERSED 5u   /* it found them in the reverse of the sort's order: no level
                                 runs, one LSD pass reverses them (RDX_PASS_REVERSE;
                                 rdx_scan_kernel turns the route off) */

/* Levels 2 and 3 of the MSD route (level 1 is rdx_launch_pass with pass_info
 * ctrl + RDX_MSD_INFO, source -> keys_b / vals_b, encoding). 4- or 8-byte keys (kb of the
 * launchers), keys only or with 4- or 8-byte values (vb), n < 2^32. */
typedef struct rdx_msd_args {
    void *keys_a;                /* level 2 writes it, level 3 sorts in place and decodes */
    const void *keys_b;          /* level 1's output: encoded keys partitioned by the top digit */
    const unsigned long long *top_bases; /* [256] first slot of each top digit (scan's bases of
                                            the top pass) */
    uint32_t *ctrl;              /* RDX_MSD_CTRL_WORDS control words */
    uint32_t *counts2;           /* [256][256]: level-2 digit counts per level-1 bucket (the
                                    up-front histogram's joint form counts them) */
    uint32_t *bases2;            /* [256][256] first slot of each level-2 bucket */
    uint32_t *first_tile;        /* [257] level 2's first tile number of each level-1 bucket */
    uint32_t *pass_info;         /* the LSD passes' words, cleared when the route commits
                                    (passes of them) */
    uint32_t *status;            /* level 2's look-back words, zeroed by level 1 (the first
                                    LSD pass's, status buffer 0, stay as the histogram
                                    zeroed them: level 1 uses them only when the route is
                                    taken, and then no LSD pass runs) */
    size_t n;
    int cls, desc;
    int l3_bits;                 /* level 3's digit: the l3_bits bits below the second
                                    digit; set by rdx_launch_msd_sort from n (the wide
                                    shape of pairs takes each bucket's own) */
    int passes;                  /* here, not after pass_info: the struct stays within 128
                                    bytes with the two value pointers (one byte more changed
                                    the keys-only kernels' register allocation) */
    void *vals_a;                /* values (pairs), moved with the keys as keys_a; NULL:
                                    keys only */
    const void *vals_b;          /* level 1's output values, as keys_b; NULL: keys only */
    void *vals_wide;             /* an argsort into 64-bit indices (4-byte values in vals_a
                                    and vals_b): level 3 writes its buckets' indices here as
                                    8-byte ones, the result; else NULL */
} rdx_msd_args;

/* *found = 1 (set, never cleared) where one of the n keys of kb bytes is not its canonical
 * pattern in NumPy's order (a NaN other than the canonical one, or -0.0: the only keys that
 * order otherwise there than under totalOrder); inf: the float type's +inf pattern.
 * (segmented.cu; the MSD route checks its keys in its histogram instead.) */
cudaError_t rdx_launch_numpy_special(const void *keys, size_t n, unsigned kb, unsigned long long inf, uint32_t *found,
                                     cudaStream_t s);

/* The MSD route's decision, before the up-front histogram: from a sample of the n integer
 * keys of kb bytes (4 or 8; RDX_MSD_SAMPLE_CHUNKS runs of 32), the leading bits to drop
 * and whether the route is taken (RDX_MSD_SKEW, RDX_MSD_FEW_PREFIXES, and n at most
 * max_n, the route's limit for keys that use every top digit, times the share of them
 * the sample uses; and with repeats_min > 0, 4-byte keys only, not where that many keys
 * of a second sample, 16384 single keys at scattered places, repeat: RDX_MSD_PAIRS_REPEATS;
 * 8-byte keys: the second deep level takes at most heavy_values heavy 24-bit prefixes of
 * one value each, RDX_MSD_DEEP2_VALUES or _VALUES_MANY);
 * if so it arms level 1 (ctrl[RDX_MSD_STATE] = RDX_MSD_LEVEL1, ctrl[RDX_MSD_DROP],
 * ctrl[RDX_MSD_INFO + top_pass]). One block; no extra read of the keys. */
cudaError_t rdx_launch_msd_decide(int kb, const void *keys, size_t n, size_t max_n, int cls, int desc, int top_pass,
                                  unsigned repeats_min, unsigned heavy_values, uint32_t *ctrl, cudaStream_t s);

/* Level 2's tile (keys) and the most tiles it launches for n keys, with key bytes kb (4,
 * 8) and value bytes vb (0: keys only, 4, 8: each has its own tile shape). */
size_t rdx_msd_l2_tile(int kb, int vb);
size_t rdx_msd_l2_max_tiles(size_t n, int kb, int vb);
/* Level 3's capacity (keys of one level-2 bucket) with key bytes kb and value bytes vb, in
 * the given shape (RDX_MSD_L3_WIDE8: 8-byte keys). */
size_t rdx_msd_l3_cap(int kb, int vb, int shape);
/* Enqueue level 2's scan of its counts (which turns the route on), and level 2 and level 3,
 * for key bytes kb (4, 8) and value bytes vb (0, 4, 8; the args' vals_a / vals_b set when
 * vb > 0), level 3 in the given shape; each kernel returns at once on the device unless it
 * is its turn. Levels 2 and 3 loop over their tiles and buckets on grids sized for sms
 * multiprocessors. */
cudaError_t rdx_launch_msd_counts(int kb, int vb, int shape, const rdx_msd_args *a, cudaStream_t s);
cudaError_t rdx_launch_msd_sort(int kb, int vb, int shape, const rdx_msd_args *a, int sms, cudaStream_t s);
/* The level-2 buckets as the S = 65536 offsets (65537 words) of the segmented passes,
 * which take the buckets above level 3's capacity; all zero unless the route is on. Zeroes
 * the bin counts of list_long (seg_tile.h's scratch) unless it is NULL. */
cudaError_t rdx_launch_msd_offsets(const rdx_msd_args *a, size_t *off, uint32_t *list_long, int sms, cudaStream_t s);
/* Level 3 in a wider shape (4-byte keys: wide or counts-only alone, mid or wide with 4-byte
 * values; 8-byte keys: RDX_MSD_L3_WIDE8 with any values) over the level-2 buckets listed in
 * bins' long bin (rdx_seg_tile_bin over the offsets above, with level 3's first capacity);
 * those above this shape's capacity too are listed in list_long's long bin (zeroed by
 * rdx_launch_msd_offsets) for the segmented passes (4-byte keys) or the deep level (8-byte
 * keys), and counted in RDX_MSD_WIDER_LEFT. */
cudaError_t rdx_launch_msd_long(int kb, int vb, int shape, const rdx_msd_args *a, const uint32_t *bins,
                                uint32_t *list_long, int sms, cudaStream_t s);
/* A chunk of at most RDX_MSD_DEEP_COPY_CHUNK keys of a deep level's lone sub-bucket in B
 * (above level 3's wide capacity), listed by msd_deep_groups_kernel. The deep kernel
 * copies it to A, or (for all chunks of a sub-bucket alike) marks it split around the value
 * h and counts its keys below and equal to h; msd_deep_copy_kernel then places a split
 * sub-bucket's keys into A stably: those below h, h's, those above. */
#define RDX_MSD_CHUNK_SPLIT 256u /* in rdx_msd_chunk.digit: split */
typedef struct rdx_msd_chunk {
    size_t lo, hi;               /* its keys [lo, hi) */
    unsigned long long h;        /* the value it is split around (the key as in B) */
    uint32_t first, count;       /* its sub-bucket's first chunk and chunks */
    uint32_t digit;              /* its sub-bucket's deep digit, | RDX_MSD_CHUNK_SPLIT */
    uint32_t lt, eq;             /* its keys below h and equal to it (split chunks) */
} rdx_msd_chunk;

/* The deep level (msd.cu, msd_deep_kernel): the sub-buckets of the long level-2 buckets,
 * which the segmented passes' first pass partitioned by the digit of bits low8 to low8 + 7
 * in place in A (the result left in B where it ran: seg_passes.h, leave_in_b): level 3
 * sorts those of at most its capacity into A; the longer ones are copied to A and listed
 * for the next level (the second deep level, then the segmented passes over the bits below
 * low8), or split around a value most of their keys hold, whose keys are then placed, and
 * the keys either side listed as sub-buckets of their own. */
typedef struct rdx_msd_deep_args {
    rdx_seg_passes_view first;   /* the first pass's (one pass: its bases are 256 words a
                                    long bucket) */
    int low8;                    /* the deep digit's lowest bit, of keys with nothing dropped */
    uint32_t *groups;            /* scratch: 256 words a long bucket of the view, the groups
                                    of sub-buckets that level 3 sorts (msd.cu) */
    size_t *off3;                /* out: long sub-bucket i is [off3[2i], off3[2i + 1]) */
    uint32_t *bins3;             /* out: their list in seg_tile.h's bin layout (only the long
                                    bin; its header zeroed before) */
    int groups_word, long_word;  /* the control words that count its groups and its long
                                    sub-buckets: RDX_MSD_GROUPS and RDX_MSD_DEEP_LONG for the
                                    deep level, RDX_MSD_GROUPS2 and RDX_MSD_DEEP2_LONG for the
                                    second */
    int skip_word;               /* RDX_MSD_SKIP_DEEP, RDX_MSD_SKIP_DEEP2: where it is set the
                                    pass took every long bucket as one sub-bucket (no digit) */
    uint2 *wide;                 /* out: the lone sub-buckets within the wide shape's
                                    capacity, {first key, keys | deep digit << 16}, and bit
                                    24 set for a split's side in A, sorted where they lie by
                                    msd_deep_wide_kernel, the level's last launch (2 x
                                    sub-buckets above level 3's capacity, at most) */
    int wide_word;               /* the control word that counts them: RDX_MSD_DEEP_WIDE,
                                    RDX_MSD_DEEP2_WIDE */
    rdx_msd_chunk *chunks;       /* scratch: the chunks of the lone sub-buckets above the
                                    wide capacity that lie in B, at most
                                    n / RDX_MSD_DEEP_COPY_CHUNK + (sub-buckets) */
    int chunks_word;             /* the control word that counts them: RDX_MSD_DEEP_CHUNKS,
                                    RDX_MSD_DEEP2_CHUNKS */
} rdx_msd_deep_args;
cudaError_t rdx_launch_msd_deep(int kb, int vb, const rdx_msd_args *a, const rdx_msd_deep_args *d, int sms,
                                cudaStream_t s); /* 8-byte keys (level 3's narrow shape) */
cudaError_t rdx_msd_init(void);

/* Counting route (counting.cu): 1- and 2-byte keys alone, sorted over all their bits. */
typedef struct rdx_count_args {
    const void *keys_in;         /* read once */
    void *keys_out;              /* written once (may be keys_in) */
    size_t n;
    int cls, desc;               /* the key codec */
    unsigned long long *counts;  /* [bins]: keys of each mapped value (zeroed by the launch) */
    unsigned long long *starts;  /* [bins + 1]: the first position of each value's run */
} rdx_count_args;
/* Bins (key values) of kb-byte keys: 256 or 65536. */
size_t rdx_count_bins(int kb);
/* Zeroes the counts, counts, scans and writes the runs: four operations on s. */
cudaError_t rdx_launch_count(int kb, const rdx_count_args *a, int sms, cudaStream_t s);
cudaError_t rdx_count_init(void);

/* Keys per tile of the pass kernel for key bytes kb, value bytes vb (0, 4, 8) and the
 * size class `medium` (RDX_OS_LARGE, RDX_OS_MEDIUM, RDX_OS_MID of tuning.h). */
size_t rdx_os_tile(int kb, int vb, int medium);

/* Raises the dynamic shared-memory limit of every kernel on the current device. The
 * families whose limit the device cannot give (RDX_KERNELS_* of tuning_ctx.h) go in *off,
 * and their routes stay off; an error only where a required kernel cannot be prepared. */
cudaError_t rdx_kernels_init(unsigned *off);

cudaError_t rdx_launch_histogram(int kb, const rdx_hist_args *a, int sms, cudaStream_t s);
/* The joint form of the up-front histogram (a->joint set): runs only where the MSD route
 * is armed and the launch is not the recount, one block a multiprocessor. */
cudaError_t rdx_launch_histogram_joint(int kb, const rdx_hist_args *a, int sms, cudaStream_t s);
cudaError_t rdx_hist_init(void);
cudaError_t rdx_launch_scan(const rdx_scan_args *a, cudaStream_t s);
/* The pass kernel over a->portion_count keys: each block takes tiles until they run out,
 * on a grid of at most RDX_OS_RESIDENT_WAVES times the blocks that fit on the device's
 * sms multiprocessors at once (0: one block per tile). */
cudaError_t rdx_launch_pass(int kb, int vb, int medium, const rdx_pass_args *a, int sms, cudaStream_t s);
/* The pass kernel on the tiles of a->seg (large tile shape; a->portion_begin 0, n < 2^32):
 * at most max_tiles blocks, no more than fit on the device's sms multiprocessors at once
 * (each block loops over tiles). */
cudaError_t rdx_launch_seg_pass(int kb, int vb, const rdx_pass_args *a, size_t max_tiles, int sms, cudaStream_t s);
cudaError_t rdx_launch_small(int kb, int vb, const rdx_small_args *a, cudaStream_t s);
/* Grid path: the tile shape for n keys (0, 1, 2: tuning.h), its keys per block, and a
 * cooperative launch of `grid` blocks of that shape; np: f32 or f64 keys (kb 4 or 8) in
 * NumPy's order, ascending (grid.cu). */
int rdx_grid_shape(size_t n);
size_t rdx_grid_tile(int shape);
cudaError_t rdx_launch_grid(int kb, int vb, int np, int shape, const rdx_grid_args *a, unsigned grid, cudaStream_t s);
/* 1 when `blocks` blocks of the grid kernel for (kb, vb, np, shape) can all be resident at
 * once on the current device (sms multiprocessors); needs rdx_grid_init there first. */
int rdx_grid_fits(int kb, int vb, int np, int shape, size_t blocks, int sms);
/* Cluster path: 1 when n keys of key bytes kb and value bytes vb fit one cluster that the
 * current device can place (needs rdx_cluster_init there first; 0 before sm_90); the
 * launch of ceil(n / RDX_CLUSTER_TILE) blocks as one cluster. */
int rdx_cluster_fits(int kb, int vb, size_t n);
cudaError_t rdx_launch_cluster(int kb, int vb, const rdx_cluster_args *a, cudaStream_t s);
cudaError_t rdx_launch_fixup(const rdx_fixup_args *a, int sms, cudaStream_t s);

/* The grid of a grid-stride kernel of RDX_COPY_THREADS over `work` items: one item per
 * thread, at most RDX_COPY_BLOCKS_PER_SM blocks per SM, at least one block. */
unsigned rdx_copy_grid(size_t work, int sms);
/* dst[i] = src[idx[i]] for n values of value_size bytes; idx is u32 or u64. */
cudaError_t rdx_launch_gather(void *dst, const void *src, const void *idx, int index_bytes, size_t n,
                              size_t value_size, int sms, cudaStream_t s);

/* Per-kernel init hooks behind rdx_kernels_init. */
cudaError_t rdx_onesweep_init(void);
cudaError_t rdx_small_init(void);
cudaError_t rdx_grid_init(void);
/* Finds, per kernel, the largest cluster the current device can place (16 or 8 blocks),
 * or leaves the path off (before sm_90, no sm_90 image, too little shared memory). An
 * error here only turns the path off. */
cudaError_t rdx_cluster_init(void);

#endif /* RDX_CUDA_KERNELS_H */
