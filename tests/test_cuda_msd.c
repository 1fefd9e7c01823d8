/* The MSD route for 4- and 8-byte keys, integers and floats (src/cuda/route_msd.cu, msd.cu), reached
 * at moderate sizes by lowering the context's msd_min_n and msd4_min_n: keys and pairs
 * (4- and 8-byte values
 * that must come out as the stable sort's indices), in place and through the out-of-place
 * calls, inputs that make the device run the route, decline it (skew) or send level-2
 * buckets above level 3's capacity to the segmented passes, exactly full and one key over
 * that capacity. The outcome of each sort is read back from the device
 * (rdx_cuda_ctx_msd_state), counted and, where the input decides it, checked, as is
 * rdx_ctx_route's name for it. A sort captured in a CUDA graph is replayed on inputs the
 * route takes and declines.
 *
 * Exits 77 where no GPU is usable. RDX_TEST_SEED replays a run; RDX_TEST_MAX_LOG2_N below
 * 17 (gpu-check.sh, under compute-sanitizer) runs one sort of each outcome. An argument K/N
 * runs the K-th of N shares of the sorts (every N-th, from the K-th), so that
 * compute-sanitizer's racecheck can take them in N processes side by side; the checks
 * that count outcomes over all the sorts run only without it (as ctest runs the test).
 * RDX_TEST_MSD_TRACE=1 prints each sort as it starts, with the seconds since the start (a
 * sanitizer's run that runs out of time names its slow sorts); RDX_TEST_MSD_FILL=TEXT runs
 * only the sorts of the inputs whose name (msd_fill_names) holds TEXT, so that a
 * sanitizer can look at one input's sorts (the counting checks do not run then either). */
#include <limits.h>
#include <math.h>
#include <time.h>

#include "cuda_check.h"
#include "cuda_into.h"

/* Inputs, as 64-bit patterns; 4-byte keys are their top 32 bits (msd_narrow), so that
 * each input puts its keys in the same level-1 and level-2 buckets for both widths. Float
 * keys take the same patterns: the codec maps each sign's keys with one XOR, so every input
 * (but MSD_NORMAL) spreads over the buckets as the integers' do and takes the same route. */
enum {
    MSD_UNIFORM,  /* random bits: the route runs */
    MSD_LOWENT,   /* AND of three random words: top digit skewed, the route declines */
    MSD_TOPEQ,    /* the top 8 bits equal: 8-byte keys drop them (the route's top digit is
                     bits 48-55); 4-byte keys are left with 24 bits, which the LSD passes
                     take in three (the route declines) */
    MSD_SORTED,   /* random, already sorted */
    MSD_FEW,      /* 16 distinct values: few 16-bit prefixes, the route runs and every
                     level-2 bucket goes to the segmented passes */
    MSD_GIANT,    /* 1/64 of the keys share their top 16 bits: a level-2 bucket above the
                     level-3 capacity, sorted by the segmented passes */
    MSD_CAP,      /* n / 256 keys in each level-2 bucket (b, 0): n = 256 * cap fits exactly */
    MSD_SUBBIG,   /* bits 40-47 equal, 4 values of bits 48-55: sub-buckets above 64 keys,
                     level 3's on-chip LSD passes */
    MSD_DUPS,     /* n / 8 distinct random values, each about 8 times: the route runs and
                     level 3's comparisons meet equal keys (stability of pairs) */
    MSD_DUPS_BIG, /* 4096 distinct random values, each n / 4096 times: runs of equal keys
                     longer than RDX_MSD_L3_RUN_MAX (n >= 2^18), the on-chip LSD passes */
    MSD_TAGGED,   /* one of 8 random 16-bit tags on top of 48 random bits: few prefixes, the
                     route runs and the segmented passes sort every key over 48 bits */
    MSD_NARROW,   /* random bits shifted right by 3: both widths drop 3 leading bits */
    MSD_BITS40,   /* 40 random low bits: 8-byte keys drop 24 leading bits; 4-byte keys keep
                     8 bits, and the route declines */
    MSD_OUTLIER,  /* as MSD_NARROW, but keys 32 and 33 (never sampled) use every bit (key
                     32 has its top bit set, so that a dropped bit always varies): the
                     histogram finds the range the sample missed, and the LSD passes sort on
                     a recount */
    MSD_HALFTOP,  /* random bits shifted right by 4, and the last 32 keys (sampled) just above
                     them: the top digit (after the drop) takes 129 of its 256 values */
    MSD_NEGNARROW, /* as MSD_NARROW with the top bit set: negative signed and float keys
                     (floats: the codec inverts every bit) drop 3 leading bits too */
    MSD_NORMAL,   /* the bits of standard normal doubles (4-byte keys: their top 32 bits):
                     a few values of the sign and the exponent's high bits hold every key,
                     and the route declines */
    MSD_SIGNED62, /* signed keys in +-2^62 (4-byte: +-2^30): their images fill half the top
                     digit's values, the images less the base (2^62) all of them */
    MSD_NEARZERO, /* signed keys in +-2^50 (4-byte: +-2^18): images on both sides of 2^63,
                     two top digits; less the base, 8-byte keys drop 12 leading bits and
                     fill the top digit; 4-byte keys would drop more than the route can,
                     take no base, and their two top digits of few prefixes go to the
                     segmented passes */
    MSD_UNDERBASE, /* as MSD_NEARZERO, but keys 32 and 33 (never sampled) are -2^60: below
                     the base, they wrap around; the histogram finds them */
    MSD_HIGHLOW,  /* random bits with a top byte above 0, but keys 32 and 33 (never sampled)
                     small: the images less the base (2^56) would leave no bit to drop and
                     could not show the small keys, so the route takes no base */
    MSD_TOPWRAP,  /* keys in [0xFF81 << 48, 2^64), but keys 32 and 33 (never sampled) 0: the
                     window of the base would pass 2^64 and take 0 in, so the route takes
                     no base; it drops the 9 leading bits, and the histogram finds 0 */
    MSD_DEEPLONG, /* 1/48 of the keys share their top 24 bits, the others random: that
                     level-2 bucket is sorted by level 3's wide shape where it is within its
                     capacity (at 2^19 + 77 keys: 10924 keys, within 18432 keys alone and
                     14336 with 4-byte values), or the deep level's pass runs and its
                     sub-bucket goes to the second deep level, which splits it (at 2^20
                     keys, 21845; with 8-byte values, whose wide capacity is 10240, from
                     2^19) (4-byte keys, which have no deep level: the long level-2 bucket
                     goes to a wider shape or the segmented passes whole) */
    MSD_DEEPLONG32, /* 1/48 of the keys share their top 32 bits, the others random: the
                       second deep level cannot split that sub-bucket either, and it goes to
                       the segmented passes where it is above the wide shape's capacity;
                       within it, the wide shape sorts the level-2 bucket by its on-chip LSD
                       passes (4-byte keys: one long level-2 bucket of equal keys) */
    MSD_TAG24,    /* one of 8 random 24-bit tags on top of random bits: the sample sees 8
                     values of the top three digits and skips the deep level (8-byte keys),
                     and every long bucket goes whole to the segmented passes from A */
    MSD_ONETOP,   /* 90% of the keys share their top 8 bits, the others random: the top
                     digit is skewed, the 16-bit prefixes are not (8-byte keys: the deep
                     level's test takes them where n is small enough beside max_n) */
    MSD_TAGGED40, /* one of 8 16-bit tags (each its own top 3 bits, then 13 random ones)
                     above 24 random bits (keys below 2^40): 8-byte keys drop the 24
                     leading bits, the few prefixes make every level-2 bucket long (each
                     level-1 bucket holds n / 8 keys), and the deep level must split them by
                     the 8 bits below the tags, 24 bits lower than with nothing dropped */
    MSD_TAGGED29, /* one of 8 random 16-bit tags on bits 45-60 above 45 random bits (the top
                     3 bits 0): both widths drop 3 leading bits, every level-2 bucket is
                     long, and the deep level splits them below the drop (8-byte keys; the
                     segmented passes sort 4-byte keys' below the second digit) */
    MSD_CAPNARROW, /* as MSD_CAP (256 level-2 buckets (b, 0)) shifted right by 5: both widths
                      drop 5 bits, and 4-byte keys keep 11 bits below level 2, so that a
                      bucket of 32 keys is counted over all of them (msd_l3_count_all) */
    MSD_CAPNEG,    /* the same with the top bit set: negative signed and float keys, whose
                      codec flips every bit */
    MSD_CAPDUPS,   /* as MSD_CAPNARROW, but 8 values below level 2 in each bucket (4-byte
                      keys; 8-byte keys 4 level-3 digits): 16 equal keys overflow level 3's
                      counters and every bucket of more than 256 keys takes the on-chip LSD
                      passes */
    MSD_SORTED_SWAP, /* as MSD_SORTED, with one pair of neighbours swapped whose top 32 bits
                        differ: out of order for both widths (the route runs) */
    MSD_NP_NEGZERO, /* as MSD_NARROW (positive floats, no NaN), but key 33 (never sampled)
                       -0.0: special in NumPy's order (msd_numpy_tests) */
    MSD_NP_NAN,     /* the same with key 33 a NaN with a payload (not the canonical pattern,
                       the quiet NaN, for either width) */
    MSD_NP_NAN_LAST, /* the same with the last key that NaN: one the histogram's 16-byte
                        loads miss (its tail, counted key by key), and the sample's last run
                        sees (the route may be declined: any outcome, the result checked) */
    MSD_NP_QNAN64,  /* as MSD_NARROW, but 1 key in 64 the quiet NaN of f64 (0x7FF8..., np.nan;
                       the sample sees them): canonical, so the route runs, the NaNs tied */
    MSD_NP_QNAN32,  /* the same for f32 (0x7FC00000 in the top half) */
    MSD_UNIT,       /* doubles uniform in [0, 1), keys 32 and 33 (never sampled) 2^-40 and
                       2^-60: the sample spans many binades (down to about 2^-14), the route
                       keeps the leading bits of a range widened toward zero, and the keys
                       below the sample lie in it (msd_float_tail) */
    MSD_NEGUNIT,    /* the same, negated */
    MSD_UNIT_FAR,   /* as MSD_UNIT, but key 33 2^-200: below the widened range, missed */
    MSD_HEAVY,      /* n / 128 distinct random values, each about 128 times: level 3's runs
                       longer than RDX_MSD_L3_RUN_MAX are one key each, placed without the
                       on-chip LSD passes (but where two values share a level-3 digit) */
    MSD_HEAVYLONG,  /* 1/8 of the keys share their top 16 bits, 512 values below them each
                       about n / 4096 times, the others random: the deep level splits that
                       long bucket into sub-buckets of runs of one key */
    MSD_ZIPF,       /* zipf over 65536 random keys (P(rank k) ~ 1 / (k + 1)): heavy keys, the
                       most frequent 9% of all; at these sizes the deep level's test takes
                       them (8-byte keys): long level-2 buckets of one key and level-3 runs
                       of one key */
    MSD_PREFIXES,   /* one of n / 8192 distinct 16-bit prefixes (128 at 2^20; the 16 of 2^17
                       are too few: the route declines them) above random bits, and every level-2
                       bucket holds about 8192 keys, above level 3's first capacity, within
                       the wider one's of 4-byte keys (msd_long_kernel) */
    MSD_PREFIXES_RUNS, /* the same with 16 values below each prefix, each about 512 times:
                          runs of one key in the wider level 3 (pairs: the mid shape's
                          widest digit leaves no room for their bitmaps: the LSD passes) */
    MSD_RUNS4096,   /* one of n / 4096 prefixes, 16 values below each (their own, drawn
                       afresh for each prefix, each with its own top 4 bits below the
                       prefix, so that no two share a level-3 digit), each about 256 times:
                       level 3's narrow shape at its fullest, pairs placing their runs of
                       one key by teams of several warps (msd_l3_place_runs) */
    MSD_TILED,      /* n / 16 random keys, the array 16 copies of them one after another:
                       keys that repeat with a period (msd_repeats_tests) */
    MSD_DEEPWIDE,   /* 1/24 of the keys share their top 16 bits and have one of two values of
                       the next 8, the others random (8-byte keys): that level-2 bucket is
                       above level 3's wide capacity from 2^19 keys, the deep level's pass
                       runs, and each of its two sub-buckets (10924 keys at 2^19 + 77) is
                       sorted by the wide shape where it lies (keys alone, 4-byte values) or
                       goes to the second deep level (8-byte values, above 10240) */
    MSD_FEW_PAIRED, /* as MSD_FEW, but two of the 16 values share their top 16 bits: one
                       long bucket of two keys among long buckets of one key each (8-byte
                       keys: the segmented passes move that one and leave the others) */
    MSD_NORMAL_NAN, /* as MSD_NORMAL (8-byte keys), but 1 key in 64 the quiet NaN (np.nan's
                       bits): a 24-bit prefix heavy in the sample, one value, which the sample's
                       second deep-level test passes over (RDX_MSD_DEEP2_VALUES) */
    MSD_NORMAL_2NAN, /* the same with half of those NaNs carrying a payload of 1: two values
                        in one heavy prefix, which that test declines */
    MSD_NORMAL_HALFNAN, /* as MSD_NORMAL_NAN, but every other key np.nan: that value's level-2
                           bucket holds half the keys, which the deep levels' tests leave
                           out (msd_pair_bound_less_heavy) */
    MSD_MIXED8,     /* n / 128 groups of 4 random values that differ in their 2 low bits
                       alone, each value about 32 times: a level-3 digit holds a group's 128
                       keys, a long run of 4 keys, which 8-byte keys sort a value at a time
                       (msd_l3_mixed_runs8 alone, msd_l3_place_runs with values), not by the
                       on-chip LSD passes */
    MSD_SPLIT,      /* heavy keys among keys that share their top 24 bits (8-byte keys):
                       h1 19% of the keys, 6% more of h1's top 24 bits and random below;
                       h2 6%, 1 key in 2048 of its top 24 bits; h4 3% and one key of its
                       top 24 bits (key 7); h3 4.7%, 25% of its top 24 bits; the rest
                       random. The deep level splits the sub-buckets of h1, h2 and h4 around
                       them (msd_deep_chunk): h1's sides long (the second deep level), h2's
                       short (the wide shape), h4's one key; h3's keys are too few of its
                       sub-bucket, which the second deep level splits around h3 */
    MSD_TWO,        /* two random values, 3/4 and 1/4 of the keys, with and without the top
                       bit (two top digits: the route takes them; two values that shared
                       the top bits sometimes made one top digit, which it declines): at 2^24
                       keys a level-2 bin of millions, whose 16-bit counters in the
                       histogram's joint form spill to global memory (RDX_HIST_JOINT_SPILL)
                       in every block */
    MSD_REVERSED,   /* random, each value twice, in descending order (the reverse of the
                       ascending sort's): equal neighbours keep their order when reversed */
    MSD_REVERSED_SWAP, /* as MSD_REVERSED, with one pair of neighbours swapped whose top 32
                          bits differ: out of order for both widths (the route runs) */
    MSD_NFILL
};
static const char *const msd_fill_names[] = {
    "uniform",  "low entropy",     "top bits equal", "sorted",         "few distinct",
    "giant bucket", "capacity", "big sub-buckets", "duplicates x8", "duplicates x n/4096", "tagged",
    "narrow", "40 bits", "outliers", "top digit half used", "negative narrow", "normal",
    "signed +-2^62", "signed near 0", "under the base",
    "high, two small", "near the top, two 0", "a long sub-bucket", "a long sub-bucket, 32 bits", "24-bit tags", "one top digit 90%",
    "tagged, 40 bits", "tagged, 3 bits dropped", "capacity, 5 bits dropped", "capacity, negative",
    "capacity, 8 low values", "sorted, one pair swapped", "narrow, one -0.0", "narrow, one NaN", "narrow, the last key NaN",
    "narrow, 1 in 64 np.nan (f64)", "narrow, 1 in 64 np.nan (f32)", "[0, 1)", "(-1, 0]", "[0, 1), one 2^-200",
    "heavy x128", "heavy in a long bucket", "zipf", "n/8192 prefixes", "n/8192 prefixes, runs",
    "n/4096 prefixes, runs", "16 copies", "two long sub-buckets", "few distinct, two sharing 16 bits",
    "normal, 1 in 64 np.nan", "normal, 1 in 64 NaN of two kinds", "normal, every other key np.nan",
    "runs of 4 keys", "heavy keys among neighbours", "two values", "reverse order, pairs of equal keys",
    "reverse order, one pair swapped"};
_Static_assert(sizeof msd_fill_names / sizeof msd_fill_names[0] == MSD_NFILL, "a name for each fill");

/* A random-looking 64-bit value for each index (the splitmix64 finalizer). */
static uint64_t msd_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}
static int cmp_u64_desc(const void *x, const void *y) { return cmp_u64(y, x); }

/* One of n / 8192 (at least 1) distinct 16-bit prefixes, by r, spread over the top digit. */
static uint64_t prefix_of(uint64_t base, uint64_t r, size_t n)
{
    const uint64_t prefixes = n >> 13 ? n >> 13 : 1;
    return (uint64_t)(uint16_t)(base + (r % prefixes) * 509u) << 48;
}

static void msd_fill(uint64_t *k, size_t n, int fill, uint64_t *s)
{
    const uint64_t base = rnd(s), low48 = 0x0000FFFFFFFFFFFFull;
    uint64_t few[16];
    for (int i = 0; i < 16; i++)
        few[i] = rnd(s);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rnd(s);
        switch (fill) {
        case MSD_LOWENT: k[i] = r & rnd(s) & rnd(s); break;
        case MSD_TOPEQ: k[i] = (base & ~(low48 | 0x00FF000000000000ull)) | (r >> 8); break;
        case MSD_FEW: k[i] = few[r % 16]; break;
        case MSD_TWO: k[i] = r % 4 ? few[0] | 1ull << 63 : few[1] & ~(1ull << 63); break;
        case MSD_FEW_PAIRED: k[i] = r % 16 == 1 ? (few[0] & ~low48) | (few[1] & low48) : few[r % 16]; break;
        case MSD_GIANT: k[i] = i < n / 64 ? (r & low48) : r; break;
        case MSD_CAP: k[i] = ((uint64_t)(i % 256) << 56) | (r & low48); break;
        case MSD_SUBBIG: k[i] = (r & 0xFF000000000000FFull) | ((uint64_t)(r % 4) << 48) | (0x5Aull << 40) |
                                (rnd(s) & 0x000000FFFFFFFF00ull); break;
        case MSD_DUPS: k[i] = msd_mix(base ^ (r % (n / 8 + 1))); break;
        case MSD_DUPS_BIG: k[i] = msd_mix(base ^ (r % 4096)); break;
        case MSD_SPLIT: {
            const uint64_t top24 = 0xFFFFFF0000000000ull, sel = r % 64, below = rnd(s) & ~top24;
            const uint64_t h1 = msd_mix(base ^ 0x51), h2 = msd_mix(base ^ 0x52), h3 = msd_mix(base ^ 0x53),
                           h4 = msd_mix(base ^ 0x54) | 1u; /* (h4's neighbour, all 0 below, differs) */
            k[i] = i == 7         ? h4 & top24
                   : sel < 12     ? h1
                   : sel < 16     ? (h1 & top24) | below
                   : sel < 20     ? h2
                   : sel == 20    ? ((r >> 6) % 32 == 0 ? (h2 & top24) | below : rnd(s))
                   : sel < 24     ? h3
                   : sel < 40     ? (h3 & top24) | below
                   : sel < 42     ? h4
                                  : rnd(s);
            break;
        }
        case MSD_MIXED8: k[i] = (msd_mix(base ^ (r % (n / 128 + 1))) & ~3ull) | (r / (n / 128 + 1)) % 4; break;
        case MSD_TILED: k[i] = msd_mix(base ^ (i % (n / 16 + 1))); break;
        case MSD_HEAVY: k[i] = msd_mix(base ^ (r % (n / 128 + 1))); break;
        case MSD_ZIPF: { /* the inverse of the continuous CDF log(1 + k) / log(1 + 65536) */
            const uint64_t rank = (uint64_t)exp((double)(r >> 11) * 0x1p-53 * log(65537.0)) - 1;
            k[i] = msd_mix(base ^ (rank < 65536 ? rank : 65535));
            break;
        }
        case MSD_HEAVYLONG:
            k[i] = r % 8 == 5 ? (base & 0xFFFF000000000000ull) | (msd_mix(base ^ (r >> 3) % 512) >> 16) : r;
            break;
        case MSD_TAGGED: k[i] = (few[r % 8] & ~low48) | (rnd(s) & low48); break;
        case MSD_PREFIXES: k[i] = prefix_of(base, r, n) | (rnd(s) & low48); break;
        case MSD_PREFIXES_RUNS: k[i] = prefix_of(base, r, n) | (msd_mix(base ^ (r >> 17) % 16 ^ 0x5A5A) & low48); break;
        case MSD_RUNS4096: { /* value j of a prefix has j in the 4 bits below it: one run a level-3 bin */
            const uint64_t p = prefix_of(base, r, 2 * n), j = (r >> 17) % 16;
            k[i] = p | j << 44 | (msd_mix(base ^ p ^ j ^ 0x5A5A) & (low48 >> 4));
            break;
        }
        case MSD_NARROW: k[i] = r >> 3; break;
        case MSD_BITS40: k[i] = r >> 24; break;
        case MSD_OUTLIER: k[i] = i == 32 ? r | 1ull << 63 : i == 33 ? r : r >> 3; break;
        case MSD_NP_NEGZERO: k[i] = i == 33 ? 1ull << 63 : r >> 3; break;
        case MSD_NP_NAN: k[i] = i == 33 ? 0x7FF8000000000001ull : r >> 3; break; /* (as f32: 0x7FF80000) */
        case MSD_NP_NAN_LAST: k[i] = i + 1 == n ? 0x7FF8000000000001ull : r >> 3; break;
        case MSD_NP_QNAN64: k[i] = i % 64 == 5 ? 0x7FF8000000000000ull : r >> 3; break;
        case MSD_NP_QNAN32: k[i] = i % 64 == 5 ? 0x7FC0000000000000ull : r >> 3; break;
        case MSD_HALFTOP: k[i] = i + 32 >= n ? (1ull << 60) | (r >> 40) : r >> 4; break;
        case MSD_NEGNARROW: k[i] = (r >> 3) | 1ull << 63; break;
        case MSD_SIGNED62: k[i] = (r >> 1) - (1ull << 62); break;
        case MSD_NEARZERO: k[i] = (r >> 13) - (1ull << 50); break;
        case MSD_HIGHLOW: k[i] = i == 32 || i == 33 ? r >> 20 : r < (1ull << 56) ? r | 1ull << 63 : r; break;
        case MSD_TOPWRAP: k[i] = i == 32 || i == 33 ? 0 : (0xFF81ull << 48) + r % (0ull - (0xFF81ull << 48)); break;
        case MSD_DEEPLONG: k[i] = i % 48 == 5 ? (base & 0xFFFFFF0000000000ull) | (r >> 24) : r; break;
        case MSD_DEEPLONG32: k[i] = i % 48 == 5 ? (base & 0xFFFFFFFF00000000ull) | (r >> 32) : r; break;
        case MSD_DEEPWIDE: k[i] = i % 24 == 5 ? ((base & 0xFFFFFF0000000000ull) ^ (r & 1) << 40) | (r >> 24) : r; break;
        case MSD_ONETOP: k[i] = rnd(s) % 10 ? (base & 0xFF00000000000000ull) | (r >> 8) : r; break;
        case MSD_TAG24: k[i] = (few[r % 8] & 0xFFFFFF0000000000ull) | (rnd(s) >> 24); break;
        case MSD_TAGGED40: k[i] = ((r % 8) << 37 | (few[r % 8] >> 51 << 24)) | (rnd(s) >> 40); break;
        case MSD_TAGGED29: k[i] = (few[r % 8] >> 3 & ~(low48 >> 3)) | (rnd(s) & low48 >> 3); break;
        case MSD_CAPNARROW: k[i] = (((uint64_t)(i % 256) << 56) | (r & low48)) >> 5; break;
        case MSD_CAPNEG: k[i] = ((((uint64_t)(i % 256) << 56) | (r & low48)) >> 5) | 1ull << 63; break;
        case MSD_CAPDUPS: k[i] = (((uint64_t)(i % 256) << 56) | ((r % 8) << 37) | (rnd(s) & 0xFFFFFFFFull)) >> 5; break;
        case MSD_UNDERBASE: k[i] = i == 32 || i == 33 ? 0ull - (1ull << 60) : (r >> 13) - (1ull << 50); break;
        case MSD_UNIT: case MSD_NEGUNIT: case MSD_UNIT_FAR: {
            const double x = i == 32 ? ldexp(1.0, -40)
                             : i == 33 ? ldexp(1.0, fill == MSD_UNIT_FAR ? -200 : -60)
                                       : (double)(r >> 11) / 9007199254740992.0;
            const double y = fill == MSD_NEGUNIT ? -x : x;
            memcpy(&k[i], &y, 8);
            break;
        }
        case MSD_NORMAL:
        case MSD_NORMAL_NAN:
        case MSD_NORMAL_2NAN:
        case MSD_NORMAL_HALFNAN: { /* Box-Muller, u1 in (0, 1] */
            const double u1 = ((double)(r >> 11) + 1.0) / 9007199254740992.0;
            const double u2 = (double)(rnd(s) >> 11) / 9007199254740992.0;
            const double x = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            memcpy(&k[i], &x, 8);
            if (fill == MSD_NORMAL_HALFNAN ? i % 2 == 1 : fill != MSD_NORMAL && i % 64 == 5)
                k[i] = 0x7FF8000000000000ull | (fill == MSD_NORMAL_2NAN && i % 128 == 69);
            break;
        }
        default: k[i] = r; break;
        }
    }
    if (fill == MSD_SORTED || fill == MSD_SORTED_SWAP)
        qsort(k, n, sizeof *k, cmp_u64);
    if (fill == MSD_REVERSED || fill == MSD_REVERSED_SWAP) {
        for (size_t i = 1; i < n; i += 2)
            k[i] = k[i - 1];
        qsort(k, n, sizeof *k, cmp_u64_desc);
    }
    if ((fill == MSD_SORTED_SWAP || fill == MSD_REVERSED_SWAP) && n >= 2) {
        size_t at = rnd(s) % (n - 1);
        while (at + 2 < n && k[at] >> 32 == k[at + 1] >> 32)
            at++;
        const uint64_t x = k[at];
        k[at] = k[at + 1];
        k[at + 1] = x;
    }
}

/* The keys of kb bytes (4 or 8) from the patterns, in place: the top 32 bits for 4. */
static void msd_narrow(uint64_t *k, size_t n, size_t kb)
{
    if (kb == 4)
        for (size_t i = 0; i < n; i++) {
            const uint32_t top = (uint32_t)(k[i] >> 32);
            memcpy((unsigned char *)k + i * 4, &top, 4); /* i * 4 <= i * 8: not yet read */
        }
}

/* Lowers both thresholds of the route (8- and 4-byte keys), or restores the defaults; the
 * histogram's order check off either way, so that sorted keys go through the route's
 * levels (msd_order turns it on). Lowered, 4-byte pairs whose keys repeat keep the
 * route (RDX_MSD_PAIRS_REPEATS off), so that level 3's runs of one key are sorted there
 * (msd_repeats_tests checks the decline). */
static void msd_threshold(rdx_ctx *ctx, int low)
{
    rdx_cuda_ctx_tuning(ctx)->msd_min_n = low ? (size_t)1 << 17 : RDX_MSD_MIN_N;
    rdx_cuda_ctx_tuning(ctx)->msd4_min_n = low ? (size_t)1 << 17 : RDX_MSD4_MIN_N;
    rdx_cuda_ctx_tuning(ctx)->msd_pairs_repeats = low ? 0u : RDX_MSD_PAIRS_REPEATS;
    rdx_cuda_ctx_tuning(ctx)->order_min_n = (size_t)-1;
}

/* A sort's outcome: rdx_cuda_ctx_msd_state (-1 not planned, 0 declined, 1 inconsistent,
 * 2 ran), 3 where the route ran with level-2 buckets above level 3's capacity (8-byte
 * keys: the deep level split them; 4-byte keys, which have no deep level: the segmented
 * passes sorted them), 7 where sub-buckets of the deep level were still above it (the
 * second deep level split them), 5 where sub-buckets of the second deep level were still
 * above it (the segmented passes), 4 where the histogram found the sample's range missed
 * (state 3: the LSD passes on a recount), 6 where it found the keys already in order
 * (state 4: nothing ran), 8 where a sub-bucket of a deep level above it, and within its
 * wide shape's, was sorted by that shape (and no other went further), 9 where it found
 * them in the reverse order (state 5: one LSD pass reversed them). A case's expected
 * outcome may also be MSD_RAN: 2, 3, 5, 7 or 8; msd_segp gives 3 or 5 by the key's width. */
enum { MSD_LONG = 3, MSD_MISSED_RANGE = 4, MSD_SEGP = 5, MSD_IN_ORDER = 6, MSD_DEEP2 = 7, MSD_WIDE = 8,
       MSD_REVERSE_ORDER = 9, MSD_RAN = -8, MSD_LONG_OR_SEGP = -7 };
/* Whether outcome route is one where the route ran. */
static int msd_ran(int route)
{
    return route == 2 || route == MSD_LONG || route == MSD_SEGP || route == MSD_DEEP2 || route == MSD_WIDE;
}
/* The outcome where keys went to the segmented passes: after the deep level (8-byte keys),
 * or as long level-2 buckets (4-byte keys). */
static int msd_segp(size_t kb) { return kb == 8 ? MSD_SEGP : MSD_LONG; }
/* The outcome of keys of few values or tags, about `per` keys a level-2 bucket, moving vb
 * bytes of values with them: 8-byte keys' buckets within level 3's wide capacity are
 * sorted there (MSD_LONG), but where two of the values share a bucket above it (about 1 in
 * 500 inputs), which the segmented passes sort (MSD_SEGP); larger ones msd_segp's. */
static int msd_few(size_t kb, size_t vb, size_t per)
{
    const size_t wide = (size_t)RDX_MSD_L3_WIDE8_THREADS * RDX_MSD_L3_WIDE8_ITEMS(vb);
    return kb == 8 && per <= wide ? MSD_LONG_OR_SEGP : msd_segp(kb);
}
static int msd_routes[11]; /* counted at outcome + 1 */
/* The last outcome's level-2 buckets above the wider level 3's capacity too (the segmented
 * passes sorted 4-byte keys', the deep level 8-byte keys'); UINT_MAX before a sort (a sort
 * of another share). */
static unsigned msd_wider_left = UINT_MAX;
static unsigned msd_last_slow = UINT_MAX; /* the last outcome's level-3 blocks on the LSD passes */
static unsigned msd_last_chunks = 0;       /* its deep levels' chunks copied or split by every block */
static unsigned msd_last_splits = 0;       /* its deep levels' sub-buckets split around a value */
static int counts_shape;   /* msd_case's 4-byte keys take level 3's counts-only shape */
static unsigned msd_deep_skipped; /* the last outcome's: the sample skipped the deep level */
static unsigned shard_k = 1, shard_n = 1; /* this process runs the shard_k-th of shard_n shares */
static const char *fill_filter; /* RDX_TEST_MSD_FILL: only the inputs whose name holds it */
static unsigned case_flags; /* more rdx_opts flags for every sort (RDX_NUMPY_ORDER: msd_numpy_tests) */

/* Whether this process runs every sort of the test (not a share, not a filter), so that
 * the checks that count outcomes over them all hold. */
static int every_sort(void)
{
    return shard_n == 1 && !fill_filter;
}

static double seconds_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether this process runs the next sort of the test (every sort when unsharded): what,
 * of n keys of type filled by fill (-1: several inputs). */
static int my_sort(const char *what, rdx_type type, size_t n, int fill)
{
    static unsigned sort_no;
    static int trace = -1;
    static double t0;
    if (trace < 0) {
        const char *e = getenv("RDX_TEST_MSD_TRACE");
        trace = e && *e && strcmp(e, "0") != 0;
        t0 = seconds_now();
    }
    const unsigned no = sort_no++;
    if (no % shard_n != shard_k - 1)
        return 0;
    if (fill_filter && (fill < 0 || !strstr(msd_fill_names[fill], fill_filter)))
        return 0;
    if (trace) {
        printf("sort %u: %s %s %s n=%zu at %.1f s\n", no, what, type_name(type), fill >= 0 ? msd_fill_names[fill] : "",
               n, seconds_now() - t0);
        fflush(stdout);
    }
    return 1;
}

static int msd_outcome(rdx_ctx *ctx, unsigned *slow)
{
    rdx_cuda_msd_counts c;
    const int state = rdx_cuda_ctx_msd_state(ctx, &c);
    *slow = msd_last_slow = c.slow_blocks;
    msd_deep_skipped = c.deep_skipped;
    msd_wider_left = c.wider_left;
    msd_last_chunks = c.deep_chunks;
    msd_last_splits = c.deep_splits;
    CHECK(state != 2 || c.joint == 1u, "msd: the route ran, but the up-front histogram's joint form did not count "
                                       "its level-2 bins");
    const int route = state == 3                        ? MSD_MISSED_RANGE
                      : state == 4                        ? MSD_IN_ORDER
                      : state == 5                        ? MSD_REVERSE_ORDER
                      : state == 2 && c.deep2_long > 0   ? MSD_SEGP
                      : state == 2 && c.deep_long > 0    ? MSD_DEEP2
                      : state == 2 && c.deep_wide > 0    ? MSD_WIDE
                      : state == 2 && c.long_buckets > 0 ? MSD_LONG
                                                         : state;
    if (route >= -1 && route <= 9)
        msd_routes[route + 1]++;
    return route;
}

/* Where the route ran on 8-byte keys, the sample must skip the deep level for keys with
 * few values of its top three digits (few distinct keys, 24-bit tags), and keep it for
 * keys with many (random bits, the long sub-bucket's input); other inputs may go either
 * way. 4-byte keys have no deep level: the sample never marks it skipped. */
static void check_deep_skip(int route, int fill, size_t kb, const char *what)
{
    if (kb == 4) {
        CHECK(msd_deep_skipped == 0, "%s: the sample skipped the deep level of 4-byte keys", what);
        return;
    }
    if (!msd_ran(route))
        return;
    if (fill == MSD_FEW || fill == MSD_TAG24)
        CHECK(msd_deep_skipped == 1, "%s: the sample kept the deep level (few values of the top 24 bits)", what);
    if (fill == MSD_UNIFORM || fill == MSD_DEEPLONG || fill == MSD_DEEPLONG32 || fill == MSD_DEEPWIDE)
        CHECK(msd_deep_skipped == 0, "%s: the sample skipped the deep level (many values of the top 24 bits)", what);
}

/* Where the route ran on keys repeated about 128 times (MSD_HEAVY), level 3 placed their
 * runs of one key itself: only a bucket where two of its values share the level-3 digit
 * takes the on-chip LSD passes (each of the n / 128 values would, before). */
static void check_heavy_runs(int route, int fill, size_t n, unsigned slow, const char *what)
{
    CHECK(fill != MSD_HEAVY || route < 2 || (size_t)slow * 16 <= n / 128,
          "%s: %u level-3 blocks of runs of one key took the on-chip LSD passes", what, slow);
}

/* Whether outcome route is the expected want (-9: any). */
static int msd_as_expected(int route, int want)
{
    return want == -9 || route == want || (want == MSD_RAN && msd_ran(route)) ||
           (want == MSD_LONG_OR_SEGP && (route == MSD_LONG || route == MSD_SEGP));
}

/* rdx_ctx_route after a successful sort whose outcome is route: the device's outcome
 * after a synchronous call, the planned route after a stream-ordered one, no MSD name
 * where the route was not planned. */
static void check_route_name(rdx_ctx *ctx, int route, int into, const char *what)
{
    const char *name = rdx_ctx_route(ctx);
    if (route == -1) {
        CHECK(strstr(name, "msd") == NULL, "%s: the route was not planned, rdx_ctx_route says \"%s\"", what, name);
        return;
    }
    const char *want = into                              ? "msd (decided on the device)"
                       : msd_ran(route)                  ? "msd"
                       : route == 0                      ? "onesweep (msd declined: skew)"
                       : route == MSD_MISSED_RANGE       ? "onesweep (msd declined: range)"
                       : route == MSD_IN_ORDER           ? "onesweep (msd declined: in order)"
                       : route == MSD_REVERSE_ORDER      ? "onesweep (msd declined: reverse order)"
                                                         : "msd (inconsistent state)";
    CHECK_ROUTE(ctx, want, what);
}

/* Sorts n keys of a 4- or 8-byte type (device arrays; in place, or out of place through
 * the stream-ordered call) and compares with the reference. want: the route the input must
 * take (rdx_cuda_ctx_msd_state), or -9 for any. */
/* The last sort (where this share ran it) listed at least min_chunks chunks of the deep
 * levels' lone sub-buckets and split at least min_splits of them around a value (zipf 2^22:
 * its top key; MSD_SPLIT: h1's, h2's and h4's at the deep level, h3's at either). */
static void msd_deep_check(const char *what, unsigned min_chunks, unsigned min_splits)
{
    if (msd_last_slow == UINT_MAX) /* not this share's sort */
        return;
    CHECK(msd_last_chunks >= min_chunks, "%s: %u chunks of lone sub-buckets listed, expected %u or more", what,
          msd_last_chunks, min_chunks);
    CHECK(msd_last_splits >= min_splits, "%s: %u sub-buckets split around a heavy key, expected %u or more", what,
          msd_last_splits, min_splits);
    msd_last_slow = UINT_MAX; /* the next check's sort sets it */
}

static void msd_case(rdx_ctx *ctx, rdx_type type, size_t n, int desc, int fill, int into, int want, uint64_t *s)
{
    if (!my_sort("keys", type, n, fill))
        return;
    const size_t kb = rdx_type_size(type);
    uint64_t *orig = host_or_die(n * 8), *got = host_or_die(n * 8);
    size_t *perm = host_or_die(n * sizeof *perm);
    msd_fill(orig, n, fill, s);
    msd_narrow(orig, n, kb);
    const rdx_opts opts = {(desc ? RDX_DESCENDING : 0u) | case_flags, 0, 0, 0};
    unsigned char *in = alloc_at(AT_DEVICE, n * kb), *out = into ? alloc_at(AT_DEVICE, n * kb) : in;
    dev_upload(in, orig, n * kb);
    const rdx_status st = into ? into_keys(ctx, in, out, n, type, &opts) : rdx_sort_keys(ctx, in, n, type, &opts);
    unsigned slow = 0;
    const int route = msd_outcome(ctx, &slow);
    CHECK(st == RDX_OK, "msd %s %s n=%zu %s%s: status %d (%s)", type_name(type), msd_fill_names[fill], n,
          desc ? "descending" : "ascending", into ? " into" : "", (int)st, rdx_ctx_error(ctx));
    if (st == RDX_OK) {
        check_route_name(ctx, route, into, msd_fill_names[fill]);
        dev_download(got, out, n * kb);
        CHECK(rdx_ref_argsort(orig, n, type, &opts, perm) == 0, "msd: the reference ran out of memory");
        const size_t bad = first_unlike((const unsigned char *)got, (const unsigned char *)orig, perm, n, kb);
        CHECK(bad == n, "msd %s %s n=%zu %s%s (route %d, %u slow blocks): first wrong key at %zu of %zu",
              type_name(type), msd_fill_names[fill], n, desc ? "descending" : "ascending", into ? " into" : "", route,
              slow, bad, n);
        if (into) {
            dev_download(got, in, n * kb);
            CHECK(memcmp(got, orig, n * kb) == 0, "msd %s %s n=%zu into: the input changed", type_name(type),
                  msd_fill_names[fill], n);
        }
    }
    if (counts_shape) /* it sorts every bucket from its counts, whatever its keys */
        CHECK(slow == 0, "msd %s n=%zu: %u blocks of the counts-only level 3 took the on-chip LSD passes",
              msd_fill_names[fill], n, slow);
    else if (kb == 4) /* a run of several keys is counted by its bits below the digit */
        CHECK(slow == 0, "msd %s %s n=%zu: %u level-3 blocks of 4-byte keys alone took the on-chip LSD passes",
              type_name(type), msd_fill_names[fill], n, slow);
    else if (fill == MSD_MIXED8) /* few keys a run: sorted a key at a time */
        CHECK(route < 2 || slow == 0, "msd %s %s n=%zu: %u level-3 blocks of runs of 4 keys took the on-chip LSD passes",
              type_name(type), msd_fill_names[fill], n, slow);
    else /* runs of many keys: still the on-chip LSD passes */
        CHECK((fill != MSD_SUBBIG && fill != MSD_CAPDUPS) || route < 2 || slow > 0,
              "msd %s n=%zu: no level-3 block took the on-chip LSD passes", msd_fill_names[fill], n);
    check_heavy_runs(route, fill, n, slow, msd_fill_names[fill]);
    CHECK(msd_as_expected(route, want), "msd %s %s n=%zu %s: route %d, expected %d", type_name(type),
          msd_fill_names[fill], n, desc ? "descending" : "ascending", route, want);
    char what[160];
    snprintf(what, sizeof what, "msd %s %s n=%zu %s%s", type_name(type), msd_fill_names[fill], n,
             desc ? "descending" : "ascending", into ? " into" : "");
    check_deep_skip(route, fill, kb, what);
    if (into)
        free_at(AT_DEVICE, out);
    free_at(AT_DEVICE, in);
    free(orig);
    free(got);
    free(perm);
}

/* The same for pairs: n keys of a 4- or 8-byte type with values of vs bytes (4 or 8, or 12:
 * gathered by indices that the route moves), each holding the key's index in the input, so that the values after the sort must be exactly the
 * stable reference's permutation (equal keys in input order): this checks both that the
 * values moved with their keys and that the sort is stable. In place (rdx_sort_pairs) or
 * out of place (rdx_cuda_sort_pairs_into_async; the inputs must come back unchanged). */
static void msd_pairs_case(rdx_ctx *ctx, rdx_type type, size_t n, size_t vs, int desc, int fill, int into, int want,
                           uint64_t *s)
{
    if (!my_sort("pairs", type, n, fill))
        return;
    const size_t kb = rdx_type_size(type);
    uint64_t *orig = host_or_die(n * 8), *got = host_or_die(n * 8);
    unsigned char *vals = host_or_die(n * vs), *gotv = host_or_die(n * vs);
    size_t *perm = host_or_die(n * sizeof *perm);
    msd_fill(orig, n, fill, s);
    msd_narrow(orig, n, kb);
    const size_t vw = vs < 8 ? vs : 8; /* the index's bytes in a value; the rest are 0 */
    memset(vals, 0, n * vs);
    for (size_t i = 0; i < n; i++) {
        const uint64_t v = i;
        memcpy(vals + i * vs, &v, vw); /* little-endian: the low bytes */
    }
    const rdx_opts opts = {(desc ? RDX_DESCENDING : 0u) | case_flags, 0, 0, 0};
    unsigned char *kin = alloc_at(AT_DEVICE, n * kb), *kout = into ? alloc_at(AT_DEVICE, n * kb) : kin;
    unsigned char *vin = alloc_at(AT_DEVICE, n * vs), *vout = into ? alloc_at(AT_DEVICE, n * vs) : vin;
    dev_upload(kin, orig, n * kb);
    dev_upload(vin, vals, n * vs);
    const rdx_status st = into ? into_pairs(ctx, kin, kout, vin, vout, vs, n, type, &opts)
                               : rdx_sort_pairs(ctx, kin, vin, vs, n, type, &opts);
    unsigned slow = 0;
    const int route = msd_outcome(ctx, &slow);
    char desc_text[160];
    snprintf(desc_text, sizeof desc_text, "msd pairs %s/%zu-byte values %s n=%zu %s%s (route %d, %u slow blocks)",
             type_name(type), vs, msd_fill_names[fill], n, desc ? "descending" : "ascending", into ? " into" : "",
             route, slow);
    CHECK(st == RDX_OK, "%s: status %d (%s)", desc_text, (int)st, rdx_ctx_error(ctx));
    if (st == RDX_OK) {
        check_route_name(ctx, route, into, desc_text);
        dev_download(got, kout, n * kb);
        dev_download(gotv, vout, n * vs);
        CHECK(rdx_ref_argsort(orig, n, type, &opts, perm) == 0, "msd: the reference ran out of memory");
        const size_t bad = first_unlike((const unsigned char *)got, (const unsigned char *)orig, perm, n, kb);
        CHECK(bad == n, "%s: first wrong key at %zu of %zu", desc_text, bad, n);
        size_t badv = n;
        for (size_t i = 0; i < n && badv == n; i++) {
            uint64_t v = 0;
            memcpy(&v, gotv + i * vs, vw);
            if (v != (uint64_t)perm[i] || memcmp(gotv + i * vs, vals + perm[i] * vs, vs) != 0)
                badv = i;
        }
        CHECK(badv == n, "%s: first value not the stable sort's index at %zu of %zu", desc_text, badv, n);
        if (into) {
            dev_download(got, kin, n * kb);
            CHECK(memcmp(got, orig, n * kb) == 0, "%s: the input keys changed", desc_text);
            dev_download(gotv, vin, n * vs);
            CHECK(memcmp(gotv, vals, n * vs) == 0, "%s: the input values changed", desc_text);
        }
    }
    CHECK((fill != MSD_SUBBIG && fill != MSD_CAPDUPS) || route < 2 || slow > 0,
          "%s: no level-3 block took the on-chip LSD passes", desc_text);
    CHECK(fill != MSD_MIXED8 || route < 2 || slow == 0, /* few keys a run: placed a key at a time */
          "%s: level-3 blocks of runs of 4 keys took the on-chip LSD passes", desc_text);
    check_heavy_runs(route, fill, n, slow, desc_text);
    CHECK(msd_as_expected(route, want), "%s: route %d, expected %d", desc_text, route, want);
    check_deep_skip(route, fill, kb, desc_text);
    if (into) {
        free_at(AT_DEVICE, kout);
        free_at(AT_DEVICE, vout);
    }
    free_at(AT_DEVICE, kin);
    free_at(AT_DEVICE, vin);
    free(orig);
    free(got);
    free(vals);
    free(gotv);
    free(perm);
}

/* An argsort through the route: n keys of a 4- or 8-byte type, indices of index_type (U32,
 * or U64: above the grid route's sizes the route moves 32-bit indices and the fix-up widens
 * them), synchronous or stream-ordered. The indices must be the stable reference's
 * permutation and the keys must not change. */
static void msd_argsort_case(rdx_ctx *ctx, rdx_type type, size_t n, rdx_type index_type, int desc, int fill,
                             int async, int want, uint64_t *s)
{
    if (!my_sort("argsort", type, n, fill))
        return;
    const size_t kb = rdx_type_size(type), ib = rdx_type_size(index_type);
    uint64_t *orig = host_or_die(n * 8), *got = host_or_die(n * 8);
    unsigned char *idx = host_or_die(n * ib);
    size_t *perm = host_or_die(n * sizeof *perm);
    msd_fill(orig, n, fill, s);
    msd_narrow(orig, n, kb);
    const rdx_opts opts = {(desc ? RDX_DESCENDING : 0u) | case_flags, 0, 0, 0};
    unsigned char *keys = alloc_at(AT_DEVICE, n * kb), *dev_idx = alloc_at(AT_DEVICE, n * ib);
    dev_upload(keys, orig, n * kb);
    const rdx_status st = async ? async_argsort(ctx, keys, n, type, dev_idx, index_type, &opts)
                                : rdx_argsort(ctx, keys, n, type, dev_idx, index_type, &opts);
    unsigned slow = 0;
    const int route = msd_outcome(ctx, &slow);
    char what[160];
    snprintf(what, sizeof what, "msd argsort %s to %s %s n=%zu %s%s (route %d, %u slow blocks)", type_name(type),
             type_name(index_type), msd_fill_names[fill], n, desc ? "descending" : "ascending",
             async ? " stream-ordered" : "", route, slow);
    CHECK(st == RDX_OK, "%s: status %d (%s)", what, (int)st, rdx_ctx_error(ctx));
    if (st == RDX_OK) {
        check_route_name(ctx, route, async, what);
        dev_download(idx, dev_idx, n * ib);
        CHECK(rdx_ref_argsort(orig, n, type, &opts, perm) == 0, "msd: the reference ran out of memory");
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++) {
            uint64_t v = 0;
            memcpy(&v, idx + i * ib, ib);
            if (v != (uint64_t)perm[i])
                bad = i;
        }
        CHECK(bad == n, "%s: first index not the stable sort's at %zu of %zu", what, bad, n);
        dev_download(got, keys, n * kb);
        CHECK(memcmp(got, orig, n * kb) == 0, "%s: the keys changed", what);
    }
    CHECK(msd_as_expected(route, want), "%s: route %d, expected %d", what, route, want);
    check_heavy_runs(route, fill, n, slow, what);
    check_deep_skip(route, fill, kb, what);
    free_at(AT_DEVICE, keys);
    free_at(AT_DEVICE, dev_idx);
    free(orig);
    free(got);
    free(idx);
    free(perm);
}

/* Level-2 buckets above level 3's capacity: the wider level 3 (4-byte keys alone:
 * counts-only, 40960 keys; pairs: mid, 9216; 8-byte keys: wide, 18432 keys alone, 14336
 * with 4-byte values, 10240 with 8-byte ones) sorts those within its own capacity, and
 * leaves the others (msd_wider_left counts them) to the segmented passes (4-byte keys) or
 * the deep level (8-byte keys). */
static void msd_wider_check(const char *what, size_t n, unsigned want_left)
{
    if (msd_wider_left == UINT_MAX) /* not this share's sort */
        return;
    CHECK(msd_wider_left == want_left,
          "%s n=%zu: %u level-2 buckets left to the segmented passes by the wider level 3, expected %u", what, n,
          msd_wider_left, want_left);
    msd_wider_left = UINT_MAX;
}

static void msd_wider_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x3D1E;
    /* about 8192 keys a bucket (16384 in MSD_GIANT's at 2^20); 64-bit indices widen above
     * the grid route's n. Fewer keys are too few prefixes for the route (declined: skew). */
    const size_t n = (size_t)1 << 20, widen = n + 77, big = ((size_t)1 << 21) + 77;
    msd_wider_left = UINT_MAX;
    if (max_log2 < 20)
        return;
    msd_case(ctx, RDX_U32, n, 0, MSD_PREFIXES, 0, MSD_LONG, &s);
    msd_wider_check("keys u32, n/8192 prefixes", n, 0);
    msd_case(ctx, RDX_F32, n, 1, MSD_PREFIXES_RUNS, 1, MSD_LONG, &s);
    msd_wider_check("keys f32, n/8192 prefixes with runs", n, 0);
    msd_pairs_case(ctx, RDX_U32, n, 4, 0, MSD_PREFIXES, 1, MSD_LONG, &s);
    msd_wider_check("pairs u32/u32, n/8192 prefixes", n, 0);
    msd_pairs_case(ctx, RDX_I32, n, 4, 1, MSD_PREFIXES_RUNS, 0, MSD_LONG, &s);
    msd_wider_check("pairs i32/u32, n/8192 prefixes with runs", n, 0);
    msd_argsort_case(ctx, RDX_U32, n, RDX_U32, 1, MSD_PREFIXES_RUNS, 1, MSD_LONG, &s);
    msd_wider_check("argsort u32, n/8192 prefixes with runs", n, 0);
    msd_pairs_case(ctx, RDX_U32, n, 4, 1, MSD_GIANT, 0, MSD_LONG, &s); /* 16384 pairs: above the mid shape */
    msd_wider_check("pairs u32/u32, one bucket of 16384", n, 1);
    msd_pairs_case(ctx, RDX_U32, n, 8, 0, MSD_PREFIXES, 0, MSD_LONG, &s); /* no wider shape: the passes */
    msd_wider_left = UINT_MAX;
    msd_case(ctx, RDX_U64, n, 1, MSD_PREFIXES, 0, MSD_LONG, &s);
    msd_wider_check("keys u64, n/8192 prefixes", n, 0);
    msd_pairs_case(ctx, RDX_I64, n, 4, 0, MSD_PREFIXES, 1, MSD_LONG, &s);
    msd_wider_check("pairs i64/u32, n/8192 prefixes", n, 0);
    msd_pairs_case(ctx, RDX_F64, n, 8, 1, MSD_PREFIXES, 0, MSD_LONG, &s);
    msd_wider_check("pairs f64/u64, n/8192 prefixes", n, 0);
    msd_argsort_case(ctx, RDX_U64, n, RDX_U32, 0, MSD_PREFIXES_RUNS, 1, MSD_LONG, &s);
    msd_wider_check("argsort u64, n/8192 prefixes with runs", n, 0);
    msd_case(ctx, RDX_U64, n, 0, MSD_GIANT, 1, MSD_LONG, &s); /* one bucket of 16384 keys: the wide shape */
    msd_wider_check("keys u64, one bucket of 16384", n, 0);
    msd_pairs_case(ctx, RDX_U64, n, 8, 0, MSD_GIANT, 1, MSD_LONG, &s); /* above the wide shape: the deep level */
    msd_wider_check("pairs u64/u64, one bucket of 16384", n, 1);
    if (max_log2 >= 21) {
        msd_argsort_case(ctx, RDX_F32, widen, RDX_U64, 0, MSD_PREFIXES, 0, MSD_LONG, &s);
        msd_wider_check("argsort f32 to u64, n/8192 prefixes", widen, 0);
        msd_case(ctx, RDX_I32, big, 1, MSD_PREFIXES_RUNS, 0, MSD_LONG, &s);
        msd_wider_check("keys i32, n/8192 prefixes with runs", big, 0);
        msd_pairs_case(ctx, RDX_U32, big, 4, 0, MSD_PREFIXES_RUNS, 1, MSD_LONG, &s);
        msd_wider_check("pairs u32/u32, n/8192 prefixes with runs", big, 0);
    }
}

/* Argsorts and gathered values through the route: both index types, keys that run the
 * route, send buckets to the segmented passes, decline it and miss the sample's range. */
static void msd_argsort_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0xA125;
    const size_t big = ((size_t)1 << 20) + 77; /* above the grid route: 64-bit indices widen */
    msd_argsort_case(ctx, RDX_U32, (size_t)1 << 17, RDX_U32, 0, MSD_UNIFORM, 0, 2, &s);
    msd_argsort_case(ctx, RDX_I64, ((size_t)1 << 17) + 3, RDX_U64, 1, MSD_DUPS, 1, 2, &s);
    msd_argsort_case(ctx, RDX_I32, (size_t)1 << 18, RDX_U32, 1, MSD_FEW, 0, MSD_LONG, &s);
    msd_argsort_case(ctx, RDX_U64, (size_t)1 << 18, RDX_U32, 0, MSD_LOWENT, 1, MSD_RAN, &s);
    msd_argsort_case(ctx, RDX_U32, (size_t)1 << 18, RDX_U32, 0, MSD_LOWENT, 1, 0, &s);
    msd_argsort_case(ctx, RDX_U32, (size_t)1 << 18, RDX_U64, 1, MSD_OUTLIER, 0, MSD_MISSED_RANGE, &s);
    if (max_log2 >= 21) {
        msd_argsort_case(ctx, RDX_U32, big, RDX_U64, 0, MSD_UNIFORM, 0, 2, &s);
        msd_argsort_case(ctx, RDX_I32, big, RDX_U64, 1, MSD_SORTED, 1, 2, &s);
        msd_argsort_case(ctx, RDX_U64, big, RDX_U64, 0, MSD_GIANT, 0, MSD_LONG, &s);
        msd_argsort_case(ctx, RDX_I64, big, RDX_U64, 0, MSD_SUBBIG, 1, 2, &s);
        msd_argsort_case(ctx, RDX_U32, big, RDX_U64, 1, MSD_LOWENT, 0, 0, &s);
        msd_argsort_case(ctx, RDX_U64, big, RDX_U64, 0, MSD_OUTLIER, 1, MSD_MISSED_RANGE, &s);
        msd_argsort_case(ctx, RDX_U32, big, RDX_U32, 1, MSD_DUPS_BIG, 0, -9, &s);
        msd_argsort_case(ctx, RDX_U64, big, RDX_U64, 0, MSD_HEAVY, 1, MSD_RAN, &s); /* runs' indices widened */
        msd_argsort_case(ctx, RDX_I64, big, RDX_U32, 1, MSD_HEAVYLONG, 0, MSD_RAN, &s);
        msd_argsort_case(ctx, RDX_F64, big, RDX_U64, 0, MSD_ZIPF, 1, MSD_RAN, &s);
        msd_argsort_case(ctx, RDX_F32, big, RDX_U64, 0, MSD_UNIFORM, 1, 2, &s);
        msd_argsort_case(ctx, RDX_F64, big, RDX_U64, 1, MSD_FEW, 0, MSD_SEGP, &s);
        msd_argsort_case(ctx, RDX_U64, big, RDX_U64, 1, MSD_DEEPLONG, 1, MSD_DEEP2, &s);
        msd_argsort_case(ctx, RDX_U64, big, RDX_U64, 1, MSD_DEEPLONG32, 1, MSD_SEGP, &s);
        msd_argsort_case(ctx, RDX_I32, big, RDX_U64, 0, MSD_TAG24, 0, MSD_LONG, &s);
        msd_argsort_case(ctx, RDX_F64, big, RDX_U32, 0, MSD_NORMAL, 1, MSD_RAN, &s);
        msd_argsort_case(ctx, RDX_F32, big, RDX_U32, 1, MSD_SUBBIG, 0, 2, &s);
    }
    /* 64-bit indices at 2^17 keys (the grid route's limit lowered): about two keys a
     * level-2 bucket, many of one key, which level 3 widens without sorting. */
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    const size_t grid_max_n = t->grid_max_n;
    t->grid_max_n = (size_t)1 << 16;
    msd_argsort_case(ctx, RDX_U32, (size_t)1 << 17, RDX_U64, 0, MSD_UNIFORM, 1, 2, &s);
    msd_argsort_case(ctx, RDX_I64, ((size_t)1 << 17) + 3, RDX_U64, 1, MSD_UNIFORM, 0, 2, &s);
    msd_argsort_case(ctx, RDX_U64, (size_t)1 << 17, RDX_U64, 0, MSD_FEW, 0, msd_few(8, 4, ((size_t)1 << 17) / 16), &s);
    msd_argsort_case(ctx, RDX_I64, (size_t)1 << 17, RDX_U64, 1, MSD_TAG24, 1, MSD_SEGP, &s);
    msd_argsort_case(ctx, RDX_F64, (size_t)1 << 17, RDX_U64, 1, MSD_NEGNARROW, 1, 2, &s);
    t->grid_max_n = grid_max_n;
    msd_pairs_case(ctx, RDX_U32, (size_t)1 << 18, 12, 0, MSD_UNIFORM, 0, 2, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 18, 12, 1, MSD_FEW, 1, MSD_SEGP, &s);
}

/* Pairs through the route: the 8- and 4-byte integer types, 8-byte values (and 4-byte
 * ones on a few cases), in place and out of place, both orders; few distinct keys check stability (many
 * equal keys per level-3 run), big sub-buckets level 3's on-chip LSD passes, few distinct
 * keys and the giant bucket the segmented passes; pairs level 3 holds
 * RDX_MSD_L3_CAP_PAIRS keys. */
/* The sample's repeats (RDX_MSD_PAIRS_REPEATS): 4-byte keys with values or indices, many
 * distinct keys each about 8 times at random places or 16 times as copies of the array's
 * first sixteenth, decline the route (the LSD passes sort them); the same keys alone, 8-byte
 * pairs, uniform keys, and few distinct keys (most of the sample repeats) keep it. */
static void msd_repeats_tests(rdx_ctx *ctx, int max_log2)
{
    if (max_log2 < 20)
        return;
    uint64_t s = seed ^ 0x4E9EA7;
    const size_t n = (size_t)1 << 20;
    msd_threshold(ctx, 1);
    rdx_cuda_ctx_tuning(ctx)->msd_pairs_repeats = RDX_MSD_PAIRS_REPEATS;
    msd_pairs_case(ctx, RDX_U32, n, 4, 0, MSD_DUPS, 0, 0, &s);
    msd_pairs_case(ctx, RDX_F32, n + 5, 8, 1, MSD_DUPS, 1, 0, &s);
    msd_argsort_case(ctx, RDX_I32, n, RDX_U32, 0, MSD_DUPS, 1, 0, &s);
    msd_pairs_case(ctx, RDX_U32, n + 3, 4, 1, MSD_TILED, 1, 0, &s);
    msd_argsort_case(ctx, RDX_F32, n, RDX_U64, 0, MSD_TILED, 0, 0, &s);
    msd_case(ctx, RDX_U32, n, 0, MSD_DUPS, 0, 2, &s);
    msd_pairs_case(ctx, RDX_U64, n, 8, 0, MSD_DUPS, 1, 2, &s);
    msd_pairs_case(ctx, RDX_U32, n, 4, 1, MSD_UNIFORM, 0, 2, &s);
    msd_pairs_case(ctx, RDX_I32, n, 4, 0, MSD_FEW, 1, msd_segp(4), &s);
    msd_threshold(ctx, 0);
}

static void msd_pairs_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x9A125;
    const size_t cap = (size_t)RDX_MSD_L3_CAP_PAIRS;
    const size_t sizes[] = {((size_t)1 << 17), ((size_t)1 << 17) + 3, ((size_t)1 << 19) + 77, ((size_t)1 << 20)};
    static const rdx_type types[4] = {RDX_U64, RDX_I64, RDX_U32, RDX_I32};
    static const int fills[] = {MSD_UNIFORM, MSD_DUPS, MSD_FEW, MSD_SORTED, MSD_LOWENT, MSD_DUPS_BIG, MSD_HEAVY, MSD_ZIPF};
    for (int t = 0; t < 4; t++)
        for (int desc = 0; desc < 2; desc++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                if (sizes[i] > ((size_t)1 << max_log2) + 100)
                    continue;
                for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
                    const int fill = fills[f];
                    const int wide = rdx_type_size(types[t]) == 8;
                    const int want = fill == MSD_UNIFORM || fill == MSD_SORTED || fill == MSD_DUPS ? 2
                                     : fill == MSD_FEW ? msd_few(rdx_type_size(types[t]), 8, sizes[i] / 16)
                                     : fill == MSD_LOWENT                                       ? (wide ? MSD_RAN : 0)
                                     : (fill == MSD_HEAVY || fill == MSD_ZIPF) && wide          ? MSD_RAN
                                                                                                : -9;
                    /* 4-byte keys alternate 4- and 8-byte values */
                    const size_t vs = rdx_type_size(types[t]) == 4 && ((i + f) & 2) ? 4 : 8;
                    msd_pairs_case(ctx, types[t], sizes[i], vs, desc, fill, (int)((i + f) & 1), want, &s);
                }
            }
    if (max_log2 >= 20) {
        /* Level 3's narrow shape at its fullest (about 4096 pairs a bucket, 16 runs of one
         * key, each in its own level-3 bin): teams of two warps place the runs, and no
         * block takes the on-chip LSD passes. (Two values sharing the 8-bit digit, as 16
         * random ones do in 37% of buckets, make a run of two keys: those passes.) */
        const size_t n = (size_t)1 << 20;
        msd_last_slow = UINT_MAX;
        msd_pairs_case(ctx, RDX_U32, n, 4, 0, MSD_RUNS4096, 0, 2, &s);
        CHECK(msd_last_slow == UINT_MAX || msd_last_slow == 0,
              "pairs u32/u32, n/4096 prefixes with runs: %u of 256 level-3 blocks took the on-chip LSD passes",
              msd_last_slow);
        msd_pairs_case(ctx, RDX_I32, n + 77, 4, 1, MSD_RUNS4096, 1, 2, &s);
        msd_argsort_case(ctx, RDX_F32, n, RDX_U32, 0, MSD_RUNS4096, 0, 2, &s);
    }
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 17, 4, 0, MSD_UNIFORM, 0, 2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 18, 4, 1, MSD_DUPS, 1, 2, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 18, 4, 0, MSD_DUPS_BIG, 0, -9, &s);
    msd_pairs_case(ctx, RDX_I64, ((size_t)1 << 17) + 3, 4, 1, MSD_FEW, 1, msd_few(8, 4, ((size_t)1 << 17) / 16), &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 1, MSD_DEEPLONG, 0, MSD_DEEP2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 1, MSD_DEEPLONG32, 0, MSD_SEGP, &s);
    msd_pairs_case(ctx, RDX_I64, ((size_t)1 << 19) + 77, 4, 0, MSD_DEEPWIDE, 1, MSD_WIDE, &s);
    msd_pairs_case(ctx, RDX_I64, ((size_t)1 << 19) + 77, 4, 0, MSD_DEEPLONG32, 1, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_U64, ((size_t)1 << 19) + 77, 8, 1, MSD_DEEPWIDE, 0, MSD_DEEP2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_TAG24, 1, MSD_SEGP, &s);
    msd_pairs_case(ctx, RDX_U32, (size_t)1 << 20, 4, 1, MSD_DEEPLONG, 0, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_I32, ((size_t)1 << 19) + 77, 8, 0, MSD_TAG24, 1, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_SUBBIG, 0, 2, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 20, 8, 1, MSD_SUBBIG, 1, 2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 4, 1, MSD_SUBBIG, 0, 2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_GIANT, 0, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 20, 8, 1, MSD_GIANT, 1, -9, &s);
    msd_pairs_case(ctx, RDX_U64, ((size_t)1 << 19) + 77, 4, 1, MSD_GIANT, 0, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_TOPEQ, 1, 2, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 20, 8, 1, MSD_TAGGED, 0, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_U64, ((size_t)1 << 19) + 77, 4, 0, MSD_TAGGED, 1, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_U32, (size_t)1 << 20, 4, 0, MSD_SUBBIG, 1, 2, &s);
    msd_pairs_case(ctx, RDX_I32, (size_t)1 << 20, 8, 1, MSD_SUBBIG, 0, 2, &s);
    msd_pairs_case(ctx, RDX_U32, (size_t)1 << 20, 4, 0, MSD_GIANT, 0, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_I32, ((size_t)1 << 19) + 77, 4, 1, MSD_TAGGED, 1, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_U32, (size_t)1 << 20, 8, 0, MSD_TOPEQ, 0, 0, &s);
    /* Leading bits dropped, and a range the sample missed (pairs stay stable on both). */
    msd_pairs_case(ctx, RDX_U64, ((size_t)1 << 19) + 77, 8, 1, MSD_NARROW, 0, 2, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 20, 4, 0, MSD_BITS40, 1, 2, &s);
    msd_pairs_case(ctx, RDX_U32, (size_t)1 << 20, 4, 1, MSD_NARROW, 1, 2, &s);
    msd_pairs_case(ctx, RDX_I32, ((size_t)1 << 19) + 77, 8, 0, MSD_NARROW, 0, 2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_OUTLIER, 0, MSD_MISSED_RANGE, &s);
    msd_pairs_case(ctx, RDX_I32, (size_t)1 << 20, 4, 1, MSD_OUTLIER, 1, MSD_MISSED_RANGE, &s);
    /* Floats: both signs, duplicates (stability), level 3's on-chip LSD passes, the
     * segmented passes, negative keys with bits dropped, normal doubles declined. */
    msd_pairs_case(ctx, RDX_F64, (size_t)1 << 20, 8, 0, MSD_UNIFORM, 1, 2, &s);
    msd_pairs_case(ctx, RDX_F32, ((size_t)1 << 19) + 77, 4, 1, MSD_DUPS, 0, 2, &s);
    msd_pairs_case(ctx, RDX_F64, (size_t)1 << 20, 4, 1, MSD_SUBBIG, 0, 2, &s);
    msd_pairs_case(ctx, RDX_F32, (size_t)1 << 20, 8, 0, MSD_SUBBIG, 1, 2, &s);
    msd_pairs_case(ctx, RDX_F64, ((size_t)1 << 19) + 77, 8, 1, MSD_TAGGED, 1, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_F32, (size_t)1 << 20, 4, 0, MSD_GIANT, 0, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_F64, (size_t)1 << 20, 8, 0, MSD_NEGNARROW, 0, 2, &s);
    msd_pairs_case(ctx, RDX_F32, (size_t)1 << 20, 4, 1, MSD_NEGNARROW, 1, 2, &s);
    msd_pairs_case(ctx, RDX_F64, (size_t)1 << 20, 4, 0, MSD_NORMAL, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_F32, (size_t)1 << 20, 8, 1, MSD_NORMAL, 0, 0, &s);
    msd_pairs_case(ctx, RDX_F64, (size_t)1 << 20, 8, 1, MSD_DEEPLONG, 1, MSD_DEEP2, &s);
    msd_pairs_case(ctx, RDX_F64, (size_t)1 << 20, 8, 1, MSD_DEEPLONG32, 1, MSD_SEGP, &s);
    /* Doubles of one sign over many binades: keys below the sample's least, within the
     * range widened toward zero (both signs, both directions), and one below it. */
    msd_case(ctx, RDX_F64, (size_t)1 << 20, 0, MSD_UNIT, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_F64, ((size_t)1 << 19) + 77, 1, MSD_UNIT, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_F64, (size_t)1 << 20, 1, MSD_NEGUNIT, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_F64, (size_t)1 << 20, 8, 0, MSD_NEGUNIT, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_F64, ((size_t)1 << 19) + 77, 4, 1, MSD_UNIT, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_F64, (size_t)1 << 20, 0, MSD_UNIT_FAR, 1, MSD_MISSED_RANGE, &s);
    /* 256 level-2 buckets of 4-byte keys with values, with bits dropped, negative, and
     * with 16 equal keys (the on-chip LSD passes); argsorts into 64-bit indices (written
     * widened). */
    for (int f = MSD_CAPNARROW; f <= MSD_CAPDUPS; f++) {
        msd_pairs_case(ctx, f == MSD_CAPNEG ? RDX_F32 : RDX_U32, (size_t)1 << 17, 4, f % 2, f, f % 2, 2, &s);
        msd_pairs_case(ctx, RDX_I32, ((size_t)1 << 17) + 3, 8, (f + 1) % 2, f, (f + 1) % 2, 2, &s);
        msd_argsort_case(ctx, f == MSD_CAPNEG ? RDX_I32 : RDX_U32, (size_t)1 << 17, RDX_U64, f % 2, f, f % 2, 2, &s);
    }
    /* The pairs capacity of a level-3 block: exactly full, and one key over. */
    if (max_log2 >= 21) {
        msd_pairs_case(ctx, RDX_U64, 256 * cap, 8, 0, MSD_CAP, 0, 2, &s);
        msd_pairs_case(ctx, RDX_I64, 256 * cap, 8, 1, MSD_CAP, 1, 2, &s);
        msd_pairs_case(ctx, RDX_U64, 256 * cap + 1, 8, 0, MSD_CAP, 1, MSD_LONG, &s);
        msd_pairs_case(ctx, RDX_U32, 256 * cap, 4, 0, MSD_CAP, 1, 2, &s);
        msd_pairs_case(ctx, RDX_I32, 256 * cap + 1, 4, 1, MSD_CAP, 0, -9, &s);
    }
}

static void msd_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0xABCD;
    const size_t cap = (size_t)RDX_MSD_L3_CAP;
    msd_threshold(ctx, 1);
    if (max_log2 < 17) {
        /* Under compute-sanitizer (gpu-check.sh lowers the sizes): one sort of each route
         * and of level 3's on-chip LSD passes, at the smallest size that plans the route. */
        const size_t n = (size_t)1 << 17;
        msd_case(ctx, RDX_U64, n, 0, MSD_UNIFORM, 0, 2, &s);
        msd_case(ctx, RDX_I64, n + 3, 1, MSD_UNIFORM, 1, 2, &s);
        msd_case(ctx, RDX_U64, n, 0, MSD_SUBBIG, 0, 2, &s);
        msd_case(ctx, RDX_U64, n, 0, MSD_TOPEQ, 0, 2, &s);
        msd_case(ctx, RDX_U32, n, 1, MSD_LOWENT, 0, 0, &s);
        msd_case(ctx, RDX_U64, ((size_t)1 << 19) + 77, 1, MSD_DEEPWIDE, 0, MSD_WIDE, &s);
        msd_case(ctx, RDX_U64, ((size_t)1 << 19) + 77, 1, MSD_DEEPLONG32, 0, MSD_LONG, &s);
        msd_case(ctx, RDX_I32, n, 0, MSD_TAG24, 1, MSD_LONG, &s);
        msd_case(ctx, RDX_I64, n, 0, MSD_BITS40, 1, 2, &s);
        msd_case(ctx, RDX_U64, n, 1, MSD_OUTLIER, 0, MSD_MISSED_RANGE, &s);
        msd_case(ctx, RDX_U32, n, 1, MSD_NARROW, 1, 2, &s);
        msd_case(ctx, RDX_I32, n, 0, MSD_OUTLIER, 0, MSD_MISSED_RANGE, &s);
        msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_GIANT, 0, MSD_LONG, &s); /* 8-byte keys' wide shape */
        msd_case(ctx, RDX_F64, n, 1, MSD_NORMAL_NAN, 0, MSD_RAN, &s); /* the sample's heavy prefix of one value */
        msd_pairs_case(ctx, RDX_U64, ((size_t)1 << 19) + 77, 8, 1, MSD_GIANT, 0, MSD_LONG, &s); /* its pairs' */
        msd_case(ctx, RDX_U32, n, 0, MSD_UNIFORM, 1, 2, &s);
        msd_case(ctx, RDX_I32, n + 3, 1, MSD_SUBBIG, 0, 2, &s);
        msd_case(ctx, RDX_U32, (size_t)1 << 20, 0, MSD_GIANT, 0, MSD_LONG, &s);
        msd_case(ctx, RDX_F64, n, 1, MSD_UNIFORM, 0, 2, &s);
        msd_case(ctx, RDX_F32, n, 0, MSD_SUBBIG, 1, 2, &s);
        msd_case(ctx, RDX_F64, n, 0, MSD_NEGNARROW, 1, 2, &s);
        msd_pairs_case(ctx, RDX_F32, n, 4, 1, MSD_FEW, 0, MSD_LONG, &s);
        msd_pairs_case(ctx, RDX_F64, ((size_t)1 << 19) + 77, 8, 0, MSD_DEEPLONG, 1, MSD_DEEP2, &s);
        msd_pairs_case(ctx, RDX_U64, n, 8, 0, MSD_UNIFORM, 0, 2, &s);
        msd_pairs_case(ctx, RDX_I64, n, 8, 1, MSD_FEW, 0, msd_few(8, 8, n / 16), &s);
        msd_pairs_case(ctx, RDX_I64, n + 3, 8, 1, MSD_DUPS, 1, 2, &s);
        msd_pairs_case(ctx, RDX_U32, n, 4, 0, MSD_DUPS, 1, 2, &s);
        rdx_cuda_ctx_tuning(ctx)->msd_pairs_repeats = RDX_MSD_PAIRS_REPEATS; /* the sample's repeats: declined */
        msd_pairs_case(ctx, RDX_U32, n, 4, 1, MSD_DUPS, 0, 0, &s);
        rdx_cuda_ctx_tuning(ctx)->msd_pairs_repeats = 0u;
        msd_pairs_case(ctx, RDX_I32, n + 3, 8, 1, MSD_FEW, 0, MSD_LONG, &s);
        msd_pairs_case(ctx, RDX_I64, n + 3, 4, 0, MSD_TAG24, 1, MSD_SEGP, &s);
        msd_pairs_case(ctx, RDX_U64, n, 8, 0, MSD_OUTLIER, 1, MSD_MISSED_RANGE, &s);
        msd_argsort_case(ctx, RDX_U32, n, RDX_U32, 1, MSD_UNIFORM, 1, 2, &s);
        msd_argsort_case(ctx, RDX_U64, (size_t)1 << 20, RDX_U32, 0, MSD_GIANT, 0, MSD_LONG, &s);
        msd_argsort_case(ctx, RDX_U32, ((size_t)1 << 20) + 77, RDX_U64, 0, MSD_UNIFORM, 0, 2, &s);
        msd_argsort_case(ctx, RDX_U64, ((size_t)1 << 20) + 77, RDX_U64, 1, MSD_FEW, 1, MSD_SEGP, &s);
        msd_argsort_case(ctx, RDX_F64, n, RDX_U32, 0, MSD_DUPS, 0, 2, &s);
        msd_case(ctx, RDX_I64, n, 0, MSD_NEARZERO, 1, 2, &s);
        msd_pairs_case(ctx, RDX_I32, n, 4, 1, MSD_SIGNED62, 0, -9, &s);
        msd_case(ctx, RDX_I64, n, 1, MSD_UNDERBASE, 0, MSD_MISSED_RANGE, &s);
        msd_case(ctx, RDX_U64, n, 0, MSD_TOPWRAP, 1, MSD_MISSED_RANGE, &s);
        msd_case(ctx, RDX_U64, n, 1, MSD_TAGGED40, 0, MSD_LONG, &s);
        msd_case(ctx, RDX_I32, n, 1, MSD_TAGGED29, 0, MSD_LONG, &s);
        msd_case(ctx, RDX_U32, n, 0, MSD_CAPNARROW, 1, 2, &s);
        msd_case(ctx, RDX_F32, n + 3, 1, MSD_CAPNEG, 0, 2, &s);
        msd_case(ctx, RDX_I32, n, 0, MSD_CAPDUPS, 0, 2, &s);
        msd_pairs_case(ctx, RDX_U32, n, 8, 1, MSD_CAPNARROW, 0, 2, &s);
        msd_argsort_case(ctx, RDX_F32, n + 3, RDX_U64, 0, MSD_CAPNEG, 1, 2, &s);
        rdx_cuda_ctx_tuning(ctx)->portion_max_n = n / 4; /* level 1 in portions, and its fallback */
        msd_case(ctx, RDX_U64, n + 3, 0, MSD_UNIFORM, 1, 2, &s);
        msd_pairs_case(ctx, RDX_U32, n, 4, 1, MSD_UNIFORM, 0, 2, &s);
        msd_case(ctx, RDX_I64, n, 0, MSD_ONETOP, 0, MSD_MISSED_RANGE, &s);
        rdx_cuda_ctx_tuning(ctx)->portion_max_n = 0;
        /* the wider level 3 of 4-byte keys (msd_long_kernel): keys alone, then pairs */
        msd_case(ctx, RDX_F32, (size_t)1 << 20, 1, MSD_PREFIXES_RUNS, 1, MSD_LONG, &s);
        msd_pairs_case(ctx, RDX_I32, (size_t)1 << 20, 4, 1, MSD_PREFIXES_RUNS, 0, MSD_LONG, &s);
        msd_threshold(ctx, 0);
        if (!every_sort())
            return;
        CHECK(msd_routes[3] > 0, "msd: the route never ran");
        CHECK(msd_routes[4] > 0, "msd: no level-2 bucket above level 3's capacity (the deep level, or 4-byte keys' segmented passes)");
        CHECK(msd_routes[5] > 0, "msd: no sample missed the keys' range");
        CHECK(msd_routes[6] > 0, "msd: no sub-bucket of the second deep level went to the segmented passes");
        CHECK(msd_routes[8] > 0, "msd: no sub-bucket of the deep level went to the second deep level");
        CHECK(msd_routes[9] > 0, "msd: no sub-bucket of the deep level went to its wide shape");
        return;
    }
    static const rdx_type types[6] = {RDX_U64, RDX_I64, RDX_F64, RDX_U32, RDX_I32, RDX_F32};
    const size_t sizes[] = {((size_t)1 << 17), ((size_t)1 << 17) + 3, ((size_t)1 << 19) + 77, ((size_t)1 << 20)};
    for (int t = 0; t < 6; t++)
        for (int desc = 0; desc < 2; desc++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                if (sizes[i] > ((size_t)1 << max_log2) + 100)
                    continue;
                /* Uniform bits take the route for every type and order. */
                msd_case(ctx, types[t], sizes[i], desc, MSD_UNIFORM, (int)(i & 1), 2, &s);
                const int wide = rdx_type_size(types[t]) == 8;
                for (int f = MSD_LOWENT; f <= MSD_FEW; f++)
                    msd_case(ctx, types[t], sizes[i], desc, f, (int)((i + f) & 1),
                             f == MSD_TOPEQ    ? (wide ? 2 : 0)
                             : f == MSD_LOWENT ? (wide ? MSD_RAN : 0)
                             : f == MSD_SORTED ? 2
                                               : msd_few(rdx_type_size(types[t]), 0, sizes[i] / 16), &s);
                /* Leading bits that do not vary: dropped (both widths, both signs), too
                 * many for 4-byte keys (declined), and missed by the sample (the recount);
                 * normal doubles' bits, declined. */
                if (i % 2 == 0) {
                    for (int f = MSD_NARROW; f <= MSD_OUTLIER; f++)
                        msd_case(ctx, types[t], sizes[i], desc, f, (int)((i + f + desc) & 1),
                                 f == MSD_NARROW   ? 2
                                 : f == MSD_BITS40 ? (wide ? 2 : 0)
                                                   : MSD_MISSED_RANGE, &s);
                    msd_case(ctx, types[t], sizes[i], desc, MSD_NEGNARROW, (int)((i + desc) & 1), 2, &s);
                    msd_case(ctx, types[t], sizes[i], desc, MSD_NORMAL, (int)((i + desc + 1) & 1), wide ? MSD_RAN : 0,
                             &s);
                    msd_case(ctx, types[t], sizes[i], desc, MSD_TAG24, (int)((i + desc) & 1),
                             msd_few(rdx_type_size(types[t]), 0, sizes[i] / 8), &s);
                    msd_case(ctx, types[t], sizes[i], desc, MSD_FEW_PAIRED, (int)((i + desc + 1) & 1), MSD_RAN, &s);
                }
                msd_case(ctx, types[t], sizes[i], desc, MSD_HEAVY, (int)((i + desc + 1) & 1), wide ? MSD_RAN : -9, &s);
                msd_case(ctx, types[t], sizes[i], desc, MSD_ZIPF, (int)((i + desc) & 1), wide ? MSD_RAN : -9, &s);
                /* 256 level-2 buckets: counted over every low bit (4-byte keys), and with
                 * 16 equal keys not (the on-chip LSD passes). */
                for (int f = MSD_CAPNARROW; f <= MSD_CAPDUPS; f++)
                    msd_case(ctx, types[t], sizes[i], desc, f, (int)((i + f + desc) & 1), 2, &s);
            }
    /* The capacity of a level-3 block: exactly full, and one key over (that bucket goes to
     * the segmented passes). */
    if (max_log2 >= 21) {
        msd_case(ctx, RDX_U64, 256 * cap, 0, MSD_CAP, 0, 2, &s);
        msd_case(ctx, RDX_U64, 256 * cap, 1, MSD_CAP, 1, 2, &s);
        msd_case(ctx, RDX_U64, 256 * cap + 1, 0, MSD_CAP, 0, MSD_LONG, &s);
        msd_case(ctx, RDX_I64, 256 * cap + 1, 1, MSD_CAP, 1, -9, &s);
        msd_case(ctx, RDX_U32, 256 * cap, 1, MSD_CAP, 0, 2, &s);
        msd_case(ctx, RDX_U32, 256 * cap + 1, 0, MSD_CAP, 1, MSD_LONG, &s);
        msd_case(ctx, RDX_F32, 256 * cap, 1, MSD_CAP, 1, 2, &s);
        msd_case(ctx, RDX_I32, 256 * cap - 5, 0, MSD_CAP, 0, 2, &s);
    }
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_GIANT, 0, MSD_LONG, &s);
    msd_case(ctx, RDX_I64, (size_t)1 << 20, 1, MSD_GIANT, 1, -9, &s);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_SUBBIG, 0, 2, &s);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 1, MSD_SUBBIG, 1, 2, &s);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_TAGGED, 1, MSD_LONG, &s);
    msd_case(ctx, RDX_I64, ((size_t)1 << 19) + 77, 1, MSD_TAGGED, 0, MSD_LONG, &s);
    msd_case(ctx, RDX_U32, (size_t)1 << 20, 0, MSD_GIANT, 1, MSD_LONG, &s);
    msd_case(ctx, RDX_I32, (size_t)1 << 20, 1, MSD_SUBBIG, 0, 2, &s);
    msd_case(ctx, RDX_U32, (size_t)1 << 20, 1, MSD_TAGGED, 0, MSD_LONG, &s);
    msd_case(ctx, RDX_I32, (size_t)1 << 20, 0, MSD_DUPS_BIG, 1, -9, &s);
    if (max_log2 >= 21) {
        msd_case(ctx, RDX_U64, (size_t)1 << 21, 0, MSD_TAGGED29, 0, MSD_LONG, &s);
        msd_case(ctx, RDX_I32, (size_t)1 << 21, 1, MSD_TAGGED29, 1, MSD_LONG, &s);
    }
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_DEEPLONG, 0, MSD_DEEP2, &s);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 1, MSD_HEAVYLONG, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 20, 8, 0, MSD_HEAVYLONG, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_U64, ((size_t)1 << 20) + 5, 4, 1, MSD_HEAVYLONG, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_DEEPLONG32, 0, MSD_SEGP, &s);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_MIXED8, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_F64, ((size_t)1 << 19) + 3, 1, MSD_MIXED8, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_MIXED8, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_F64, ((size_t)1 << 19) + 5, 4, 1, MSD_MIXED8, 1, MSD_RAN, &s);
    msd_argsort_case(ctx, RDX_I64, ((size_t)1 << 20) + 77, RDX_U64, 0, MSD_MIXED8, 0, MSD_RAN, &s);
    if (max_log2 >= 22) {
        /* zipf's top key (9%) in a lone sub-bucket of the deep level: split around it in
         * chunks by every block (msd_deep_chunk, msd_deep_copy_kernel) */
        msd_last_slow = UINT_MAX;
        msd_case(ctx, RDX_U64, ((size_t)1 << 22) + 9, 0, MSD_ZIPF, 1, MSD_RAN, &s);
        msd_deep_check("zipf 2^22, u64 keys", 1, 1);
        msd_pairs_case(ctx, RDX_F64, (size_t)1 << 22, 8, 1, MSD_ZIPF, 0, MSD_RAN, &s);
        msd_deep_check("zipf 2^22, f64 / 8-byte pairs", 1, 1);
        msd_pairs_case(ctx, RDX_I64, ((size_t)1 << 22) + 1, 4, 0, MSD_ZIPF, 1, MSD_RAN, &s);
        msd_deep_check("zipf 2^22, i64 / 4-byte pairs", 1, 1);
    }
    /* heavy keys among neighbours: split sub-buckets (keys, pairs of both widths, an
     * argsort into 8-byte indices, which the split writes for h's keys and sides of one) */
    msd_last_slow = UINT_MAX;
    msd_case(ctx, RDX_U64, ((size_t)1 << 20) + 77, 0, MSD_SPLIT, 0, MSD_RAN, &s);
    msd_deep_check("heavy keys among neighbours, u64 keys", 0, 3);
    msd_pairs_case(ctx, RDX_F64, (size_t)1 << 20, 8, 1, MSD_SPLIT, 1, MSD_RAN, &s);
    msd_deep_check("f64 / 8-byte pairs, descending", 0, 3);
    msd_pairs_case(ctx, RDX_I64, ((size_t)1 << 20) + 5, 4, 0, MSD_SPLIT, 0, MSD_RAN, &s);
    msd_deep_check("i64 / 4-byte pairs", 0, 3);
    msd_argsort_case(ctx, RDX_U64, ((size_t)1 << 20) + 3, RDX_U64, 1, MSD_SPLIT, 0, MSD_RAN, &s);
    msd_deep_check("argsort u64 into 8-byte indices, descending", 0, 3);
    msd_case(ctx, RDX_F64, ((size_t)1 << 19) + 77, 1, MSD_DEEPWIDE, 1, MSD_WIDE, &s);
    msd_case(ctx, RDX_F64, ((size_t)1 << 19) + 77, 1, MSD_DEEPLONG, 0, MSD_LONG, &s);
    msd_case(ctx, RDX_F64, ((size_t)1 << 19) + 77, 1, MSD_DEEPLONG32, 1, MSD_LONG, &s);
    msd_case(ctx, RDX_I32, (size_t)1 << 20, 1, MSD_DEEPLONG, 0, MSD_LONG, &s);
    msd_case(ctx, RDX_F32, ((size_t)1 << 19) + 77, 0, MSD_DEEPLONG, 1, MSD_LONG, &s);
    msd_pairs_tests(ctx, max_log2);
    msd_argsort_tests(ctx, max_log2);
    msd_wider_tests(ctx, max_log2);
    /* A top digit half used shrinks the route's largest n by that share: declined where the
     * context's largest n is n, taken where it is 4n (uniform keys, every top digit: taken
     * at n). */
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    const size_t half_n = (size_t)1 << 20;
    t->msd_max_n = t->msd_pairs_max_n = half_n;
    msd_case(ctx, RDX_U64, half_n, 0, MSD_HALFTOP, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_I32, half_n, 1, MSD_HALFTOP, 1, 0, &s);
    msd_pairs_case(ctx, RDX_U32, half_n, 4, 0, MSD_HALFTOP, 0, 0, &s);
    msd_case(ctx, RDX_U64, half_n, 1, MSD_UNIFORM, 0, 2, &s);
    /* Skew the deep level would split (8-byte keys: taken at max_n = 2n; 90% of 16384
     * sampled keys over 256 prefixes, about 58 a prefix, pass while under 128), and skew it
     * would not (low entropy: declined at max_n = 2n). */
    t->msd_max_n = t->msd_pairs_max_n = 2 * half_n;
    msd_case(ctx, RDX_U64, half_n, 0, MSD_ONETOP, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_F64, half_n, 1, MSD_ONETOP, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_I64, half_n, 8, 0, MSD_ONETOP, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_U32, half_n, 0, MSD_ONETOP, 0, 0, &s);
    msd_case(ctx, RDX_U64, half_n, 0, MSD_LOWENT, 0, 0, &s);
    msd_case(ctx, RDX_I64, half_n, 1, MSD_LOWENT, 1, 0, &s);
    /* Skew only the two deep levels split (8-byte keys at max_n = n / 2: normal doubles,
     * whose largest level-2 bucket holds about 1.5% of the keys, would be declined by the
     * deep test alone; no 24-bit prefix is heavy), and skew with heavy 24-bit prefixes
     * (low entropy: declined); 4-byte keys have no deep level (declined). */
    t->msd_max_n = t->msd_pairs_max_n = half_n / 2;
    msd_case(ctx, RDX_F64, half_n, 0, MSD_NORMAL, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_F64, half_n + 3, 1, MSD_NORMAL, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_F64, half_n, 8, 1, MSD_NORMAL, 0, MSD_RAN, &s);
    msd_argsort_case(ctx, RDX_F64, half_n, RDX_U32, 0, MSD_NORMAL, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_U64, half_n, 0, MSD_LOWENT, 1, 0, &s);
    msd_case(ctx, RDX_F32, half_n, 0, MSD_NORMAL, 0, 0, &s);
    /* The same doubles with 1 key in 64 one NaN: that heavy prefix is one value (taken);
     * with two values in it, or dozens of heavy keys (zipf), declined. */
    msd_case(ctx, RDX_F64, half_n, 0, MSD_NORMAL_NAN, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_F64, half_n + 5, 4, 1, MSD_NORMAL_NAN, 0, MSD_RAN, &s);
    case_flags = RDX_NUMPY_ORDER;
    msd_argsort_case(ctx, RDX_F64, half_n, RDX_U32, 0, MSD_NORMAL_NAN, 0, MSD_RAN, &s);
    case_flags = 0;
    msd_case(ctx, RDX_F64, half_n, 0, MSD_NORMAL_2NAN, 0, 0, &s);
    msd_case(ctx, RDX_U64, half_n, 1, MSD_ZIPF, 0, 0, &s);
    /* Zipf's dozens of heavy keys from the context's msd_many_heavy_min_n keys on: taken. */
    t->msd_many_heavy_min_n = half_n;
    msd_case(ctx, RDX_U64, half_n, 1, MSD_ZIPF, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_F64, half_n + 3, 8, 0, MSD_ZIPF, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_I64, half_n, 4, 1, MSD_ZIPF, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_U64, half_n, 0, MSD_LOWENT, 0, 0, &s); /* heavy prefixes of many keys: still declined */
    t->msd_many_heavy_min_n = RDX_MSD_MANY_HEAVY_MIN_N;
    /* Half the keys np.nan: its bucket is left out of the deep levels' tests (taken). */
    msd_case(ctx, RDX_F64, half_n, 0, MSD_NORMAL_HALFNAN, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_F64, half_n + 3, 8, 1, MSD_NORMAL_HALFNAN, 0, MSD_RAN, &s);
    t->msd_max_n = t->msd_pairs_max_n = 4 * half_n;
    msd_case(ctx, RDX_U64, half_n, 1, MSD_HALFTOP, 1, 2, &s);
    msd_case(ctx, RDX_U32, half_n, 0, MSD_HALFTOP, 0, 2, &s);
    msd_pairs_case(ctx, RDX_I64, half_n, 8, 0, MSD_HALFTOP, 1, 2, &s);
    /* Signed keys away from 0 in their images: the base (less which the images fill the top
     * digit) takes them where the context's largest n is 1.5 n (without it, half the top
     * digit's values would shrink it to 0.75 n; near 0, two top digits would be skewed);
     * unsigned keys of the same bits sit at both ends (+-2^62: declined; near 0: 8
     * prefixes of 16 bits, which the few-prefixes test takes to the segmented passes);
     * keys under the base are found by the histogram. */
    t->msd_max_n = t->msd_pairs_max_n = half_n + half_n / 2;
    msd_case(ctx, RDX_I64, half_n, 0, MSD_SIGNED62, 0, 2, &s);
    msd_case(ctx, RDX_I64, half_n, 1, MSD_SIGNED62, 1, 2, &s);
    msd_case(ctx, RDX_I32, half_n, 0, MSD_SIGNED62, 1, 2, &s);
    msd_case(ctx, RDX_I32, half_n + 3, 1, MSD_SIGNED62, 0, 2, &s);
    msd_case(ctx, RDX_U64, half_n, 0, MSD_SIGNED62, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_U32, half_n, 0, MSD_SIGNED62, 0, 0, &s);
    msd_case(ctx, RDX_I64, half_n, 0, MSD_NEARZERO, 1, 2, &s);
    msd_case(ctx, RDX_I64, half_n + 3, 1, MSD_NEARZERO, 0, 2, &s);
    msd_case(ctx, RDX_I32, half_n, 0, MSD_NEARZERO, 0, MSD_LONG, &s);
    msd_case(ctx, RDX_U64, half_n, 1, MSD_NEARZERO, 1, MSD_LONG, &s);
    msd_case(ctx, RDX_I64, half_n, 0, MSD_UNDERBASE, 0, MSD_MISSED_RANGE, &s);
    msd_case(ctx, RDX_I64, half_n, 1, MSD_UNDERBASE, 1, MSD_MISSED_RANGE, &s);
    msd_case(ctx, RDX_U64, half_n, 0, MSD_HIGHLOW, 0, 2, &s);
    msd_case(ctx, RDX_U64, half_n + 3, 0, MSD_HIGHLOW, 1, 2, &s);
    msd_case(ctx, RDX_U64, half_n, 0, MSD_TOPWRAP, 0, MSD_MISSED_RANGE, &s);
    msd_case(ctx, RDX_U64, half_n + 3, 0, MSD_TOPWRAP, 1, MSD_MISSED_RANGE, &s);
    msd_pairs_case(ctx, RDX_U64, half_n, 8, 0, MSD_TOPWRAP, 0, MSD_MISSED_RANGE, &s);
    msd_pairs_case(ctx, RDX_I64, half_n, 8, 1, MSD_SIGNED62, 0, 2, &s);
    msd_pairs_case(ctx, RDX_I32, half_n, 4, 0, MSD_SIGNED62, 1, 2, &s);
    msd_pairs_case(ctx, RDX_I64, half_n + 3, 4, 0, MSD_NEARZERO, 1, 2, &s);
    msd_pairs_case(ctx, RDX_I64, half_n, 8, 1, MSD_UNDERBASE, 0, MSD_MISSED_RANGE, &s);
    msd_argsort_case(ctx, RDX_I64, half_n, RDX_U64, 0, MSD_SIGNED62, 1, 2, &s);
    msd_argsort_case(ctx, RDX_I64, half_n, RDX_U32, 1, MSD_NEARZERO, 0, 2, &s);
    /* 8-byte keys above the context's largest n take the route up to msd_deep_max_n where
     * the deep level's test passes (at full size every level-2 bucket is long): uniform
     * keys at 8 times max_n, where the test allows 8 sampled keys a 16-bit prefix (the
     * sample's counts are exact; a sketch's noise would decline them). 4-byte keys are not
     * planned there. The deep level takes the drop into account. */
    t->msd_max_n = t->msd_pairs_max_n = half_n / 8;
    msd_case(ctx, RDX_U64, half_n, 0, MSD_UNIFORM, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_F64, half_n + 3, 1, MSD_UNIFORM, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_U64, half_n, 8, 0, MSD_UNIFORM, 1, MSD_RAN, &s);
    msd_argsort_case(ctx, RDX_I64, half_n, RDX_U64, 1, MSD_UNIFORM, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_U32, half_n, 0, MSD_UNIFORM, 0, 2, &s); /* level 3's wide shape (msd_wide_tests) */
    msd_case(ctx, RDX_U64, half_n, 1, MSD_LOWENT, 1, 0, &s); /* neither the deep nor the few-prefixes test */
    msd_case(ctx, RDX_U64, half_n, 0, MSD_TAGGED40, 0, MSD_LONG, &s);
    msd_pairs_case(ctx, RDX_I64, half_n + 3, 4, 1, MSD_TAGGED40, 1, MSD_LONG, &s);
    t->msd_deep_max_n = half_n - 1;
    msd_case(ctx, RDX_U64, half_n, 0, MSD_UNIFORM, 0, -1, &s);
    t->msd_deep_max_n = RDX_MSD_DEEP_MAX_N;
    /* Several portions (one launch of the pass kernel looks back over at most 2^30 - 1 keys;
     * here a small portion): level 1 takes a launch per portion, and a top digit holding
     * more than a portion's keys (a skew the sample let through) sends the sort to the LSD
     * passes on a recount. */
    t->msd_max_n = t->msd_pairs_max_n = 2 * half_n;
    t->portion_max_n = half_n / 4;
    msd_case(ctx, RDX_U64, half_n, 0, MSD_UNIFORM, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_I64, half_n + 77, 1, MSD_UNIFORM, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_U32, half_n, 1, MSD_UNIFORM, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_I64, half_n, 1, MSD_SIGNED62, 0, MSD_RAN, &s); /* the base, with portions */
    msd_pairs_case(ctx, RDX_U64, half_n, 8, 1, MSD_UNIFORM, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_U32, half_n + 5, 4, 0, MSD_DUPS, 1, MSD_RAN, &s);
    msd_argsort_case(ctx, RDX_U64, half_n, RDX_U64, 0, MSD_UNIFORM, 1, MSD_RAN, &s);
    msd_case(ctx, RDX_U64, half_n, 0, MSD_TAGGED40, 1, MSD_LONG, &s);
    msd_case(ctx, RDX_U64, half_n, 0, MSD_OUTLIER, 0, MSD_MISSED_RANGE, &s);
    msd_case(ctx, RDX_U64, half_n, 1, MSD_ONETOP, 0, MSD_MISSED_RANGE, &s);
    msd_case(ctx, RDX_F64, half_n + 3, 0, MSD_ONETOP, 1, MSD_MISSED_RANGE, &s);
    msd_pairs_case(ctx, RDX_I64, half_n, 8, 0, MSD_ONETOP, 1, MSD_MISSED_RANGE, &s);
    /* The limit is a count's, not a portion's size: with counts of at most 31/32 n the keys
     * are two portions of n / 2, and a top digit holding 90% of them takes the route (the
     * 90% of 2^30 keys in one top digit of the benchmark's "bucket" rows). */
    t->portion_max_n = half_n - half_n / 32;
    msd_case(ctx, RDX_U64, half_n, 0, MSD_ONETOP, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_I64, half_n + 5, 8, 1, MSD_ONETOP, 0, MSD_RAN, &s);
    msd_argsort_case(ctx, RDX_F64, half_n, RDX_U32, 0, MSD_ONETOP, 1, MSD_RAN, &s);
    t->portion_max_n = half_n / 4;
    /* above the context's largest n (the deep level on every bucket) with portions */
    t->msd_max_n = t->msd_pairs_max_n = half_n / 8;
    msd_case(ctx, RDX_U64, half_n + 3, 1, MSD_UNIFORM, 0, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_U64, half_n, 4, 0, MSD_UNIFORM, 1, MSD_RAN, &s);
    t->portion_max_n = 0;
    t->msd_max_n = RDX_MSD_MAX_N;
    t->msd_pairs_max_n = RDX_MSD_PAIRS_MAX_N;
    /* Below the threshold (keys and pairs): not planned. */
    msd_case(ctx, RDX_U64, ((size_t)1 << 17) - 1, 0, MSD_UNIFORM, 0, -1, &s);
    msd_pairs_case(ctx, RDX_U64, ((size_t)1 << 17) - 1, 8, 0, MSD_UNIFORM, 1, -1, &s);
    msd_case(ctx, RDX_U32, ((size_t)1 << 17) - 1, 1, MSD_UNIFORM, 0, -1, &s);
    msd_threshold(ctx, 0);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_UNIFORM, 0, (size_t)RDX_MSD_MIN_N <= ((size_t)1 << 20) ? 2 : -1,
             &s);
    msd_case(ctx, RDX_U32, (size_t)1 << 20, 0, MSD_UNIFORM, 0, (size_t)RDX_MSD4_MIN_N <= ((size_t)1 << 20) ? 2 : -1,
             &s);
    printf("msd: outcomes: none planned %d, declined (skew) %d, ran %d, ran with long level-2 buckets %d, with "
           "sub-buckets for the deep level's wide shape %d, for the second deep level %d, for the segmented passes "
           "%d, range missed by the sample %d, in order %d, in reverse order %d, inconsistent %d\n",
           msd_routes[0], msd_routes[1], msd_routes[3], msd_routes[4], msd_routes[9], msd_routes[8], msd_routes[6],
           msd_routes[5], msd_routes[7], msd_routes[10], msd_routes[2]);
    if (!every_sort())
        return;
    CHECK(msd_routes[3] > 0, "msd: the route never ran without long buckets");
    CHECK(msd_routes[4] > 0, "msd: no level-2 bucket above level 3's capacity (the deep level, or 4-byte keys' segmented passes)");
    CHECK(msd_routes[8] > 0, "msd: no sub-bucket of the deep level went to the second deep level");
    CHECK(msd_routes[9] > 0, "msd: no sub-bucket of the deep level went to its wide shape");
    CHECK(msd_routes[6] > 0, "msd: no sub-bucket of the second deep level went to the segmented passes");
    CHECK(msd_routes[5] > 0, "msd: no sample missed the keys' range");
}

/* 4-byte keys alone above the context's msd_max_n: level 3 in its wide shape (shape 1,
 * RDX_MSD4_L3_WIDE_*) up to msd4_wide_max_n, and above that in its counts-only shape
 * (shape 2, RDX_MSD4_L3_COUNTS_*) up to msd4_counts_max_n; lowered here so that they sort
 * small inputs: level-2 buckets of a few keys (the wide shape's comparisons), 256 buckets
 * of n / 256 (narrowed, with the drop; negative; with 16 and more equal keys, which send
 * the wide shape from its 4-bit counters to the counts-only counting), a bucket
 * exactly at the capacity and one key above it (the segmented passes), the deep level,
 * and the shape's limit (past which the counts-only shape follows the wide one and nothing
 * follows the counts-only one). Pairs and 8-byte keys keep their shapes. */
static void msd_wide_tests(rdx_ctx *ctx, int max_log2, int shape)
{
    uint64_t s = seed ^ 0x5EED ^ (uint64_t)shape;
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    const size_t cap = shape == 2 ? (size_t)RDX_MSD4_L3_COUNTS_THREADS * RDX_MSD4_L3_COUNTS_ITEMS
                                  : (size_t)RDX_MSD4_L3_WIDE_THREADS * RDX_MSD4_L3_WIDE_ITEMS;
    const size_t n = (size_t)1 << 17;
    msd_threshold(ctx, 1);
    t->msd_max_n = shape == 2 ? n / 4 : n / 2;
    if (shape == 2)
        t->msd4_wide_max_n = n / 2;
    counts_shape = shape == 2;
    static const rdx_type types[3] = {RDX_U32, RDX_I32, RDX_F32};
    /* Under compute-sanitizer: two sorts of u32, and none of uniform keys in the
     * counts-only shape (it clears 2^16 counters for each of 65536 level-2 buckets). */
    const int few = max_log2 < 17;
    for (int k = 0; k < (few ? 1 : 3); k++)
        for (int desc = 0; desc < (few ? 1 : 2); desc++) {
            const size_t m = max_log2 >= 20 ? (size_t)1 << 20 : n + 3 * (size_t)k;
            if (!few || shape == 1)
                msd_case(ctx, types[k], m, desc, MSD_UNIFORM, (k + desc) & 1, 2, &s);
            for (int f = few ? MSD_CAPDUPS : MSD_CAPNARROW; f <= MSD_CAPDUPS; f++)
                msd_case(ctx, types[k], m, desc, f, (k + f + desc) & 1, 2, &s);
            if (max_log2 < 20)
                continue;
            msd_case(ctx, types[k], n + 5, desc, MSD_SORTED, desc, 2, &s);
            msd_case(ctx, types[k], m, desc, MSD_LOWENT, 0, 0, &s);
            /* level-2 buckets of n / 16 and n / 8 keys, above the capacity */
            msd_case(ctx, types[k], m, desc, MSD_FEW, 1, msd_segp(rdx_type_size(types[k])), &s);
            msd_case(ctx, types[k], m, desc, MSD_TAG24, desc, msd_segp(rdx_type_size(types[k])), &s);
        }
    msd_pairs_case(ctx, RDX_U32, n, 4, 1, MSD_UNIFORM, 0, 2, &s); /* the narrow shape */
    if (max_log2 >= 21) {
        /* n / 64 keys in one bucket, above the capacity */
        msd_case(ctx, RDX_U32, (size_t)1 << (shape == 2 ? 22 : 21), 0, MSD_GIANT, 0, MSD_LONG, &s);
        msd_case(ctx, RDX_U32, 256 * cap, 1, MSD_CAP, 0, 2, &s);
        msd_case(ctx, RDX_U32, 256 * cap + 1, 0, MSD_CAP, 1, MSD_LONG, &s);
        msd_case(ctx, RDX_F32, 256 * cap - 7, 0, MSD_CAP, 1, 2, &s);
    }
    /* Above the shape's limit: the counts-only shape above the wide one's, nothing above its own. */
    counts_shape = 1;
    *(shape == 2 ? &t->msd4_counts_max_n : &t->msd4_wide_max_n) = n - 1;
    msd_case(ctx, RDX_U32, n, 0, few ? MSD_CAPNARROW : MSD_UNIFORM, 0, shape == 2 ? -1 : 2, &s);
    t->msd4_counts_max_n = RDX_MSD4_COUNTS_MAX_N;
    t->msd4_wide_max_n = RDX_MSD4_WIDE_MAX_N;
    t->msd_max_n = RDX_MSD_MAX_N;
    counts_shape = 0;
    msd_threshold(ctx, 0);
}

/* 4-byte keys with 4-byte values (pairs, argsorts, 12-byte values gathered by index)
 * above the context's msd_pairs_max_n: level 3 in its mid shape (shape RDX_MSD_L3_MID,
 * RDX_MSD4_L3_MID_*_PAIRS) up to msd4_pairs_mid_max_n and in its wide one (RDX_MSD_L3_WIDE,
 * RDX_MSD4_L3_WIDE_*) above it up to msd4_wide_max_n, each with a digit of each bucket's
 * own width; the limits lowered here so that they sort small inputs. Every result is the
 * stable sort's (the values are the input's indices): level-2 buckets of a few keys, equal
 * keys (comparisons by index, runs long enough for the on-chip LSD passes, and runs of one
 * key repeated 128 times, placed in index order without them), 256
 * buckets of n / 256 narrowed by 5 bits (the sample's drop: in buckets of about the
 * capacity the shape's digit would be wider than the 11 bits below level 2), few distinct
 * keys (the deep level), exactly the capacity and one key above it, and the shape's limit
 * (the wide shape follows the mid one, nothing the wide one); 8-byte values are not
 * planned above msd_pairs_max_n. */
static void msd_wide_pairs_tests(rdx_ctx *ctx, int max_log2, int shape)
{
    uint64_t s = seed ^ 0x5EED4 ^ (uint64_t)shape;
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    const int mid = shape == RDX_MSD_L3_MID;
    const size_t cap = mid ? (size_t)RDX_MSD4_L3_MID_THREADS_PAIRS * RDX_MSD4_L3_MID_ITEMS_PAIRS
                           : (size_t)RDX_MSD4_L3_WIDE_THREADS * RDX_MSD4_L3_WIDE_ITEMS;
    const size_t n = (size_t)1 << 17;
    msd_threshold(ctx, 1);
    t->msd_pairs_max_n = n / 2;
    if (!mid)
        t->msd4_pairs_mid_max_n = n / 2;
    static const rdx_type types[3] = {RDX_U32, RDX_I32, RDX_F32};
    if (max_log2 < 17) { /* under compute-sanitizer: one sort, the comparisons or the on-chip LSD passes */
        if (mid)
            msd_pairs_case(ctx, RDX_U32, n, 4, 1, MSD_UNIFORM, 0, 2, &s);
        else
            msd_argsort_case(ctx, RDX_I32, n + 3, RDX_U32, 1, MSD_CAPDUPS, 1, 2, &s);
    } else {
        static const int fills[] = {MSD_UNIFORM, MSD_DUPS, MSD_CAPNARROW, MSD_CAPNEG, MSD_CAPDUPS, MSD_SORTED, MSD_HEAVY};
        for (int k = 0; k < 3; k++)
            for (int desc = 0; desc < 2; desc++)
                for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++)
                    msd_pairs_case(ctx, types[k], n + 3 * (size_t)k, 4, desc, fills[f], (int)((k + f + desc) & 1), 2,
                                   &s);
        msd_pairs_case(ctx, RDX_U32, n, 4, 0, MSD_LOWENT, 1, 0, &s);
        /* 16 distinct keys: level-2 buckets of n / 16 pairs, within the capacity at 2^17 (runs of
         * equal keys: the on-chip LSD passes), above it at 2^20 (the deep level). At 2^17 two
         * of the values share a 16-bit prefix in about 1 input in 500, and their bucket of
         * n / 8 goes above the capacity (MSD_LONG: H200 round 57, seed 0x1c01dbf4a0f774e8,
         * 14 blocks of the other 14 values on the on-chip LSD passes). */
        msd_pairs_case(ctx, RDX_I32, n, 4, 1, MSD_FEW, 0, MSD_RAN, &s);
        if (max_log2 >= 20)
            msd_pairs_case(ctx, RDX_U32, (size_t)1 << 20, 4, 0, MSD_FEW, 1, MSD_LONG, &s);
        msd_pairs_case(ctx, RDX_U32, n + 1, 12, 1, MSD_UNIFORM, 1, 2, &s);
        msd_pairs_case(ctx, RDX_F32, n, 12, 0, MSD_DUPS_BIG, 0, -9, &s);
        msd_pairs_case(ctx, RDX_U32, n, 8, 0, MSD_UNIFORM, 0, -1, &s); /* 8-byte values: no mid or wide shape */
        msd_argsort_case(ctx, RDX_U32, n, RDX_U32, 0, MSD_UNIFORM, 1, 2, &s);
        msd_argsort_case(ctx, RDX_F32, n + 7, RDX_U32, 1, MSD_DUPS, 0, 2, &s);
        msd_argsort_case(ctx, RDX_I32, n, RDX_U32, 0, MSD_CAPDUPS, 0, 2, &s);
    }
    if (max_log2 >= 21) {
        const size_t big = (size_t)1 << (mid ? 21 : 22); /* 256 level-2 buckets of 8192 or 16384 keys */
        msd_pairs_case(ctx, RDX_U32, big, 4, 0, MSD_CAPNARROW, 0, 2, &s);
        msd_pairs_case(ctx, RDX_I32, big, 4, 1, MSD_CAPNEG, 1, 2, &s);
        msd_argsort_case(ctx, RDX_U32, big + 77, RDX_U64, 0, MSD_UNIFORM, 0, 2, &s); /* 64-bit indices widened */
        msd_argsort_case(ctx, RDX_F32, big, RDX_U64, 1, MSD_CAP, 1, 2, &s);
        msd_pairs_case(ctx, RDX_U32, 256 * cap, 4, 1, MSD_CAP, 0, 2, &s);
        msd_pairs_case(ctx, RDX_U32, 256 * cap + 1, 4, 0, MSD_CAP, 1, MSD_LONG, &s);
        msd_pairs_case(ctx, RDX_F32, (size_t)1 << 21, 4, 0, MSD_GIANT, 0, MSD_LONG, &s);
    }
    /* Above the shape's limit: the wide shape above the mid one's, nothing above its own. */
    *(mid ? &t->msd4_pairs_mid_max_n : &t->msd4_wide_max_n) = n - 1;
    msd_pairs_case(ctx, RDX_U32, n, 4, 0, MSD_UNIFORM, 1, mid ? 2 : -1, &s);
    t->msd4_wide_max_n = RDX_MSD4_WIDE_MAX_N;
    t->msd4_pairs_mid_max_n = RDX_MSD4_PAIRS_MID_MAX_N;
    t->msd_pairs_max_n = RDX_MSD_PAIRS_MAX_N;
    msd_threshold(ctx, 0);
}

/* Floats in NumPy's order (RDX_NUMPY_ORDER: every NaN last, -0.0 equal to +0.0). The
 * stream-ordered call plans the route, which sorts by the plain images: where no key is
 * special there (a NaN other than the canonical one, np.nan's quiet NaN, or -0.0) it runs,
 * its NaNs tied; where one is (key 33, never sampled) the check before the histogram sends
 * the sort to the LSD passes in NumPy's order (outcome MSD_MISSED_RANGE). The synchronous call looks for special keys
 * first: without them it sorts as without the flag (the route), with them the route is
 * not planned. Keys, pairs (stable: equal keys keep their order) and argsorts, each against
 * the reference in NumPy's order. */
static void msd_numpy_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x4E50;
    const size_t n = ((size_t)1 << 17) + 3;
    msd_threshold(ctx, 1);
    rdx_cuda_ctx_tuning(ctx)->numpy_lsd_min_n = RDX_SMALL_MAX_N + 1; /* (below: by composition) */
    case_flags = RDX_NUMPY_ORDER;
    if (max_log2 < 17) { /* under compute-sanitizer: the route, its fallback, the synchronous check */
        msd_case(ctx, RDX_F64, n, 0, MSD_NARROW, 1, 2, &s);
        msd_pairs_case(ctx, RDX_F32, n, 4, 0, MSD_NP_NEGZERO, 1, MSD_MISSED_RANGE, &s);
        msd_case(ctx, RDX_F64, n, 0, MSD_NP_NAN, 0, -1, &s);
        msd_pairs_case(ctx, RDX_F64, n, 8, 0, MSD_NP_QNAN64, 1, MSD_RAN, &s);
    } else {
        msd_case(ctx, RDX_F64, n, 0, MSD_NARROW, 1, 2, &s);
        msd_case(ctx, RDX_F32, n, 0, MSD_NARROW, 1, 2, &s);
        msd_pairs_case(ctx, RDX_F64, n, 8, 0, MSD_NARROW, 1, 2, &s);
        msd_argsort_case(ctx, RDX_F32, n, RDX_U32, 0, MSD_NARROW, 1, 2, &s);
        msd_case(ctx, RDX_F64, n, 0, MSD_NP_NEGZERO, 1, MSD_MISSED_RANGE, &s);
        msd_case(ctx, RDX_F32, n, 0, MSD_NP_NAN, 1, MSD_MISSED_RANGE, &s);
        msd_pairs_case(ctx, RDX_F32, n, 4, 0, MSD_NP_NEGZERO, 1, MSD_MISSED_RANGE, &s);
        msd_argsort_case(ctx, RDX_F64, n, RDX_U64, 0, MSD_NP_NAN, 1, MSD_MISSED_RANGE, &s);
        msd_case(ctx, RDX_F32, n, 0, MSD_NP_NAN_LAST, 1, -9, &s);
        msd_pairs_case(ctx, RDX_F64, n, 8, 0, MSD_NP_NAN_LAST, 1, -9, &s);
        msd_case(ctx, RDX_F64, n, 0, MSD_UNIFORM, 1, -9, &s); /* random bits: NaNs of every kind */
        msd_case(ctx, RDX_F64, n, 0, MSD_NARROW, 0, 2, &s);
        msd_case(ctx, RDX_F64, n, 0, MSD_NP_NEGZERO, 0, -1, &s);
        msd_pairs_case(ctx, RDX_F32, n, 4, 0, MSD_NP_NAN, 0, -1, &s);
        /* np.nan's pattern is the canonical NaN: the route runs, its NaNs tied (stable) */
        msd_pairs_case(ctx, RDX_F64, n, 8, 0, MSD_NP_QNAN64, 1, MSD_RAN, &s);
        msd_pairs_case(ctx, RDX_F32, n, 4, 0, MSD_NP_QNAN32, 1, MSD_RAN, &s);
        msd_case(ctx, RDX_F64, n, 0, MSD_NP_QNAN64, 0, MSD_RAN, &s);
        msd_argsort_case(ctx, RDX_F32, n, RDX_U32, 0, MSD_NP_QNAN32, 0, MSD_RAN, &s);
    }
    case_flags = 0;
    rdx_cuda_ctx_tuning(ctx)->numpy_lsd_min_n = RDX_NUMPY_LSD_MIN_N;
    msd_threshold(ctx, 0);
}

/* The route enqueued on a stream being captured (both routes, each kernel reading the
 * device's decision), the graph replayed on keys the route takes and on keys it
 * declines. */
/* Keys already in order, or in the reverse order, where the route is armed: the
 * histogram's order check turns it off. In order (outcome MSD_IN_ORDER): no level and no
 * LSD pass runs; the fix-up copies a separate input and writes an argsort's identity, also
 * after a synchronous call, which leaves out the LSD passes. Reversed (MSD_REVERSE_ORDER):
 * one LSD pass reverses them, also after a synchronous call, which enqueues that pass
 * alone; each value twice, so that the reversal keeps equal keys in order (pairs,
 * argsorts). With one pair of neighbours swapped the route runs. Keys, pairs (values moved
 * and gathered) and argsorts, in place and out of place, at the route's lowered threshold. */
static void msd_order(rdx_ctx *ctx, int reverse)
{
    uint64_t s = seed ^ (reverse ? 0x5454 : 0x4545);
    const size_t n = ((size_t)1 << 17) + 5;
    const int outcome = reverse ? MSD_REVERSE_ORDER : MSD_IN_ORDER;
    const int found_before = msd_routes[outcome + 1], ran_before = msd_routes[3];
    msd_threshold(ctx, 1);
    rdx_cuda_ctx_tuning(ctx)->order_min_n = 0;
    for (int swap = 0; swap < 2; swap++) {
        const int fill = reverse ? (swap ? MSD_REVERSED_SWAP : MSD_REVERSED) : (swap ? MSD_SORTED_SWAP : MSD_SORTED);
        const int want = swap ? MSD_RAN : outcome;
        msd_case(ctx, RDX_U64, n, 0, fill, 0, want, &s);
        msd_case(ctx, RDX_U32, n, 0, fill, 1, want, &s);
        msd_pairs_case(ctx, RDX_U64, n, 8, 0, fill, 0, want, &s);
        msd_pairs_case(ctx, RDX_U32, n, 4, 0, fill, 1, want, &s);
        msd_pairs_case(ctx, RDX_U64, n, 4, 0, fill, 1, want, &s);
        msd_pairs_case(ctx, RDX_U32, n, 12, 0, fill, 0, want, &s);
        msd_argsort_case(ctx, RDX_U64, n, RDX_U64, 0, fill, 0, want, &s);
        msd_argsort_case(ctx, RDX_U32, n, RDX_U32, 0, fill, 1, want, &s);
        msd_argsort_case(ctx, RDX_U32, n, RDX_U64, 0, fill, 0, want, &s);
    }
    msd_threshold(ctx, 0);
    printf("msd %s: %d sorts found so, %d ran the route (this share's)\n", reverse ? "reverse order" : "in order",
           msd_routes[outcome + 1] - found_before, msd_routes[3] - ran_before);
}

/* The up-front histogram's joint form (the route's level-2 counts, as it reads the keys)
 * where one level-2 bin holds millions of keys (MSD_TWO at 2^24: each block's counter of it
 * spills to global memory, RDX_HIST_JOINT_SPILL), keys, pairs and an argsort of both
 * widths; in the synchronous call and the stream-ordered one (both forms enqueued).
 * Smaller under compute-sanitizer (no spill). */
static void msd_joint_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x2047;
    const size_t n = max_log2 >= 21 ? ((size_t)1 << 24) + 3 : ((size_t)1 << 17) + 3;
    msd_threshold(ctx, 1);
    msd_case(ctx, RDX_U64, n, 0, MSD_TWO, 0, MSD_RAN, &s);
    msd_case(ctx, RDX_U32, n, 1, MSD_TWO, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_U32, n, 4, 0, MSD_TWO, 1, MSD_RAN, &s);
    msd_pairs_case(ctx, RDX_I64, n, 8, 1, MSD_TWO, 0, MSD_RAN, &s);
    msd_argsort_case(ctx, RDX_F32, n, RDX_U64, 0, MSD_TWO, 1, MSD_RAN, &s);
    msd_threshold(ctx, 0);
}

static void msd_graph_test(int max_log2)
{
    const size_t n = ((size_t)1 << (max_log2 < 17 ? 17 : 18)) + 3;
    if (!my_sort("graph", RDX_U32, n, -1))
        return;
    uint64_t s = seed ^ 0x64A9;
    rdx_ctx *ctx = rdx_test_cuda_context();
    msd_threshold(ctx, 1);
    uint64_t *orig = host_or_die(n * 8), *got = host_or_die(n * 8);
    size_t *perm = host_or_die(n * sizeof *perm);
    unsigned char *in = alloc_at(AT_DEVICE, n * 4), *out = alloc_at(AT_DEVICE, n * 4);
    size_t tb = 0;
    CHECK(rdx_cuda_sort_keys_temp_size(ctx, n, RDX_U32, NULL, &tb) == RDX_OK, "msd graph: temp size: %s",
          rdx_ctx_error(ctx));
    void *t = alloc_at(AT_DEVICE, tb);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStream_t gs = capture_begin();
    const rdx_status c = rdx_cuda_sort_keys_into_async(ctx, in, out, n, RDX_U32, NULL, t, tb, gs);
    cuda_or_die(cudaStreamEndCapture(gs, &graph), "end capture");
    CHECK(c == RDX_OK, "msd graph: enqueue during capture failed: %s", rdx_ctx_error(ctx));
    cuda_or_die(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    static const int fills[] = {MSD_UNIFORM, MSD_LOWENT, MSD_FEW, MSD_UNIFORM};
    for (int r = 0; r < (max_log2 < 17 ? 2 : 4); r++) { /* under compute-sanitizer: taken, declined */
        msd_fill(orig, n, fills[r], &s);
        msd_narrow(orig, n, 4);
        dev_upload(in, orig, n * 4);
        cuda_or_die(cudaMemset(out, 0xA5, n * 4), "cudaMemset");
        cuda_or_die(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        cuda_or_die(cudaGraphLaunch(exec, gs), "cudaGraphLaunch");
        cuda_or_die(cudaStreamSynchronize(gs), "graph replay");
        unsigned slow = 0;
        const int route = msd_outcome(ctx, &slow);
        CHECK(rdx_ref_argsort(orig, n, RDX_U32, NULL, perm) == 0, "msd: the reference ran out of memory");
        dev_download(got, out, n * 4);
        const size_t bad = first_unlike((const unsigned char *)got, (const unsigned char *)orig, perm, n, 4);
        CHECK(bad == n, "msd graph, replay %d (%s, route %d): first wrong key at %zu of %zu", r,
              msd_fill_names[fills[r]], route, bad, n);
        CHECK(fills[r] != MSD_UNIFORM || msd_as_expected(route, MSD_RAN), "msd graph, replay %d: route %d", r, route);
        CHECK(fills[r] != MSD_LOWENT || route == 0, "msd graph, replay %d (low entropy): route %d, expected 0", r,
              route);
    }
    capture_release(gs, graph, exec);
    free_at(AT_DEVICE, t);
    free_at(AT_DEVICE, out);
    free_at(AT_DEVICE, in);
    free(orig);
    free(got);
    free(perm);
    rdx_ctx_destroy(ctx);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (sscanf(argv[1], "%u/%u", &shard_k, &shard_n) != 2 || shard_k < 1 || shard_k > shard_n)) {
        fprintf(stderr, "usage: test_cuda_msd [K/N] (the K-th of N shares of the sorts, 1 <= K <= N)\n");
        return 2;
    }
    const char *only = getenv("RDX_TEST_MSD_FILL");
    fill_filter = only && *only ? only : NULL;
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    into_begin();
    msd_tests(ctx, rdx_test_max_log2(21));
    msd_repeats_tests(ctx, rdx_test_max_log2(21));
    msd_wide_tests(ctx, rdx_test_max_log2(21), 1);
    msd_wide_tests(ctx, rdx_test_max_log2(21), 2);
    msd_wide_pairs_tests(ctx, rdx_test_max_log2(21), RDX_MSD_L3_MID);
    msd_wide_pairs_tests(ctx, rdx_test_max_log2(21), RDX_MSD_L3_WIDE);
    msd_order(ctx, 0);
    msd_order(ctx, 1);
    msd_numpy_tests(ctx, rdx_test_max_log2(21));
    msd_joint_tests(ctx, rdx_test_max_log2(21));
    msd_graph_test(rdx_test_max_log2(21));
    into_end();
    rdx_ctx_destroy(ctx);
    printf("test_cuda_msd%s%s: %s (%d failures), seed 0x%016" PRIx64 "\n", argc > 1 ? " " : "", argc > 1 ? argv[1] : "",
           failures ? "FAILED" : "passed", failures, seed);
    return failures ? 1 : 0;
}
