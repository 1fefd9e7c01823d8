/* Key distributions (see dist.h). */
#include "dist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "report.h"
#include "rng.h"
#include "types.h"

#define TOOL_FEW_DISTINCT 16        /* "few": this many distinct values */
#define TOOL_ZIPF_RANKS 65536       /* "zipf": this many distinct values ... */
#define TOOL_ZIPF_EXPONENT 1.0      /* ... the k-th most common with weight 1 / k^s */
#define TOOL_REPEAT_COPIES 256      /* "repeat": n / this + 1 values, each about this many times */
#define TOOL_PROGRESS_STEP (1u << 20) /* keys between progress updates */

static const char *const dist_names[] = {
    "uniform", "sorted", "reverse", "equal", "few", "lowentropy", "zipf", "repeat",
};

int tool_parse_dist(const char *name, tool_dist *d)
{
    for (int i = 0; i < (int)(sizeof dist_names / sizeof dist_names[0]); i++) {
        if (strcmp(name, dist_names[i]) == 0) {
            *d = (tool_dist)i;
            return 0;
        }
    }
    return -1;
}

const char *tool_dist_name(tool_dist d) { return dist_names[d]; }

static uint64_t type_mask(rdx_type t)
{
    size_t w = rdx_type_size(t) * 8;
    return w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
}

/* Random bits of the type's width; for floats drawn again until finite. */
static uint64_t random_key(tool_rng *r, rdx_type t)
{
    uint64_t bits;
    do
        bits = tool_rng_next(r) & type_mask(t);
    while (!tool_bits_finite(t, bits));
    return bits;
}

static uint64_t low_entropy_key(tool_rng *r, rdx_type t)
{
    uint64_t bits;
    do
        bits = tool_rng_next(r) & tool_rng_next(r) & tool_rng_next(r) & type_mask(t);
    while (!tool_bits_finite(t, bits));
    return bits;
}

/* The key-order range of finite keys, as ordered (tool_order_bits) values [lo, hi]. */
static void finite_range(rdx_type t, uint64_t *lo, uint64_t *hi)
{
    *lo = 0;
    *hi = type_mask(t);
    if (tool_type_is_float(t)) {
        const size_t w = rdx_type_size(t) * 8;
        const uint64_t sign = (uint64_t)1 << (w - 1);
        uint64_t inf;
        switch (t) {
        case RDX_F16: inf = 0x7c00u; break;
        case RDX_BF16: inf = 0x7f80u; break;
        case RDX_F32: inf = 0x7f800000u; break;
        default: inf = 0x7ff0000000000000ull; break;
        }
        *lo = tool_order_bits(t, inf | sign) + 1;   /* just above -inf */
        *hi = tool_order_bits(t, inf) - 1;          /* just below +inf */
    }
}

/* Ascending keys spread evenly over the finite range, each jittered inside its own
 * step so that they stay in order: key i lies in [lo + i*span/n, lo + (i+1)*span/n).
 * The step starts are kept as quotient q*i plus a running remainder (no division per
 * key), and the jitter is a multiply-high of a random word by the step's width. */
static void fill_sorted(void *keys, size_t n, rdx_type t, tool_rng *r, int reverse)
{
    __extension__ typedef unsigned __int128 u128;
    const size_t ksize = rdx_type_size(t);
    uint64_t lo, hi;
    finite_range(t, &lo, &hi);
    const u128 span = (u128)(hi - lo) + 1;
    const u128 q = span / n, rem = span % n;
    u128 start = lo, acc = 0;
    for (size_t i = 0; i < n; i++) {
        u128 width = q;
        acc += rem;
        if (acc >= n) {
            acc -= n;
            width++;
        }
        /* width <= 2^64: a random offset in [0, width) */
        uint64_t offset = (uint64_t)(((u128)tool_rng_next(r) * width) >> 64);
        uint64_t ordered = (uint64_t)(start + offset);
        tool_store_bits(keys, reverse ? n - 1 - i : i, ksize, tool_unorder_bits(t, ordered));
        start += width;
        if ((i & (TOOL_PROGRESS_STEP - 1)) == 0)
            tool_progress_set((double)i / (double)n);
    }
}

/* n / TOOL_REPEAT_COPIES + 1 random values, each key one of them drawn uniformly (ids that
 * repeat: events per user, edges per vertex). */
static int fill_repeat(void *keys, size_t n, rdx_type t, tool_rng *r)
{
    const size_t ksize = rdx_type_size(t), values = n / TOOL_REPEAT_COPIES + 1;
    uint64_t *value = malloc(values * sizeof *value);
    if (!value) {
        tool_error("out of memory");
        return -1;
    }
    for (size_t k = 0; k < values; k++)
        value[k] = random_key(r, t);
    for (size_t i = 0; i < n; i++) {
        tool_store_bits(keys, i, ksize, value[tool_rng_next(r) % values]);
        if ((i & (TOOL_PROGRESS_STEP - 1)) == 0)
            tool_progress_set((double)i / (double)n);
    }
    free(value);
    return 0;
}

static int fill_zipf(void *keys, size_t n, rdx_type t, tool_rng *r)
{
    const size_t ksize = rdx_type_size(t);
    double *cdf = malloc(TOOL_ZIPF_RANKS * sizeof *cdf);
    uint64_t *value = malloc(TOOL_ZIPF_RANKS * sizeof *value);
    if (!cdf || !value) {
        free(cdf);
        free(value);
        tool_error("out of memory");
        return -1;
    }
    double total = 0.0;
    for (size_t k = 0; k < TOOL_ZIPF_RANKS; k++) {
        total += 1.0 / pow((double)(k + 1), TOOL_ZIPF_EXPONENT);
        cdf[k] = total;
        value[k] = random_key(r, t);
    }
    for (size_t i = 0; i < n; i++) {
        double u = tool_rng_unit(r) * total;
        size_t a = 0, b = TOOL_ZIPF_RANKS - 1;   /* the first rank whose cdf exceeds u */
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (cdf[mid] > u)
                b = mid;
            else
                a = mid + 1;
        }
        tool_store_bits(keys, i, ksize, value[a]);
        if ((i & (TOOL_PROGRESS_STEP - 1)) == 0)
            tool_progress_set((double)i / (double)n);
    }
    free(cdf);
    free(value);
    return 0;
}

int tool_generate(void *keys, size_t n, rdx_type t, tool_dist d, uint64_t seed)
{
    const size_t ksize = rdx_type_size(t);
    tool_rng r;
    tool_rng_seed(&r, seed);
    switch (d) {
    case TOOL_DIST_SORTED:
    case TOOL_DIST_REVERSE:
        fill_sorted(keys, n, t, &r, d == TOOL_DIST_REVERSE);
        return 0;
    case TOOL_DIST_ZIPF:
        return fill_zipf(keys, n, t, &r);
    case TOOL_DIST_REPEAT:
        return fill_repeat(keys, n, t, &r);
    case TOOL_DIST_EQUAL: {
        uint64_t v = random_key(&r, t);
        for (size_t i = 0; i < n; i++)
            tool_store_bits(keys, i, ksize, v);
        return 0;
    }
    case TOOL_DIST_FEW: {
        uint64_t v[TOOL_FEW_DISTINCT];
        for (int k = 0; k < TOOL_FEW_DISTINCT; k++)
            v[k] = random_key(&r, t);
        for (size_t i = 0; i < n; i++)
            tool_store_bits(keys, i, ksize, v[tool_rng_next(&r) % TOOL_FEW_DISTINCT]);
        return 0;
    }
    case TOOL_DIST_LOWENTROPY:
        for (size_t i = 0; i < n; i++) {
            tool_store_bits(keys, i, ksize, low_entropy_key(&r, t));
            if ((i & (TOOL_PROGRESS_STEP - 1)) == 0)
                tool_progress_set((double)i / (double)n);
        }
        return 0;
    case TOOL_DIST_UNIFORM:
    default:
        for (size_t i = 0; i < n; i++) {
            tool_store_bits(keys, i, ksize, random_key(&r, t));
            if ((i & (TOOL_PROGRESS_STEP - 1)) == 0)
                tool_progress_set((double)i / (double)n);
        }
        return 0;
    }
}
