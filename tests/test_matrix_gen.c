/* The matrix benchmark's input distributions (bench/gpu_matrix_gen.h), on the host: the
 * function the GPU benchmark runs on the device, checked here for the property each
 * distribution promises (range, bit density, order, number of distinct keys, skew), for
 * every key type the matrix measures, on a fresh seed each run. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_matrix_gen.h"
#include "suite.h"
#include "check.h"

/* An odd size, so that sorted/reverse keys are not only multiples of a power of two. */
#define N ((size_t)1 << 16 | 3)

static const struct { rdx_type t; const char *name; } types[] = {
    {RDX_U8, "u8"}, {RDX_U16, "u16"}, {RDX_U32, "u32"}, {RDX_I32, "i32"},
    {RDX_F32, "f32"}, {RDX_U64, "u64"}, {RDX_I64, "i64"}, {RDX_F64, "f64"}};

static uint64_t image(uint64_t x, rdx_type t)
{
    int cls = (int)rdx_type_class(t);
    switch (rdx_type_bytes(t)) {
    case 1: return rdx_encode_u8((uint8_t)x, cls, 0);
    case 2: return rdx_encode_u16((uint16_t)x, cls, 0);
    case 4: return rdx_encode_u32((uint32_t)x, cls, 0);
    default: return rdx_encode_u64(x, cls, 0);
    }
}

static double as_double(uint64_t x, rdx_type t)
{
    if (t == RDX_F32) {
        uint32_t u = (uint32_t)x;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    } else {
        double d;
        memcpy(&d, &x, sizeof d);
        return d;
    }
}

/* The signed value of a w-bit two's complement pattern. */
static int64_t as_signed(uint64_t x, unsigned width)
{
    return width == 64 ? (int64_t)x : (int64_t)(x << (64 - width)) >> (64 - width);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Number of distinct keys and the largest count of one key, from a sorted copy. */
static void distinct(const uint64_t *k, size_t n, uint64_t *tmp, size_t *ndist, size_t *top)
{
    size_t i, run = 1;
    memcpy(tmp, k, n * sizeof *k);
    qsort(tmp, n, sizeof *tmp, cmp_u64);
    *ndist = 1;
    *top = 1;
    for (i = 1; i < n; i++) {
        if (tmp[i] == tmp[i - 1]) run++;
        else { (*ndist)++; run = 1; }
        if (run > *top) *top = run;
    }
}

/* Share of set bits over all keys' low `width` bits. */
static double bit_density(const uint64_t *k, size_t n, unsigned width)
{
    size_t i, ones = 0;
    unsigned b;
    for (i = 0; i < n; i++)
        for (b = 0; b < width; b++) ones += (k[i] >> b) & 1;
    return (double)ones / ((double)n * width);
}

static void check_one(rdx_type t, const char *tn, int dist, uint64_t *k, uint64_t *tmp)
{
    const unsigned width = 8 * rdx_type_bytes(t);
    const char *dn = gm_dist_name(dist);
    size_t i, nd, top, count = 0;
    double sum = 0, sum2 = 0;
    for (i = 0; i < N; i++) {
        k[i] = gm_key_bits(dist, t, i, N, seed);
        CHECK(width == 64 || k[i] >> width == 0, "%s %s: key %zu has bits past the width", tn, dn, i);
    }
    CHECK(gm_key_bits(dist, t, N / 2, N, seed) == k[N / 2], "%s %s: not a function of (i, seed)", tn, dn);
    distinct(k, N, tmp, &nd, &top);

    switch (dist) {
    case GM_UNIFORM: {
        double d = bit_density(k, N, width);
        CHECK(d > 0.49 && d < 0.51, "%s %s: bit density %.4f", tn, dn, d);
        /* n draws from 2^width values: all but a few distinct for wide keys, else about
         * 1 - 1/e of the values for u16 and all of them for u8 */
        CHECK(width >= 32 ? nd > N - 10 : width == 16 ? nd > 0.6 * 65536 : nd == 256,
              "%s %s: only %zu distinct keys", tn, dn, nd);
        break;
    }
    case GM_BITS: {
        unsigned bits = width * GM_BITS_NUM / GM_BITS_DEN;
        uint64_t mx = 0;
        for (i = 0; i < N; i++) {
            CHECK(k[i] >> bits == 0, "%s %s: key %zu = 0x%" PRIx64 " uses more than %u bits", tn, dn, i, k[i], bits);
            if (k[i] > mx) mx = k[i];
        }
        CHECK(mx >> (bits - 1) == 1, "%s %s: bit %u never set", tn, dn, bits - 1);
        break;
    }
    case GM_SIGNED: {
        int64_t lim = (int64_t)1 << (width - GM_SIGNED_SPAN_SHIFT), mn = 0, mx = 0;
        for (i = 0; i < N; i++) {
            int64_t v = as_signed(k[i], width);
            CHECK(v >= -lim && v < lim, "%s %s: key %zu = %" PRId64 " outside +-2^%u", tn, dn, i, v,
                  width - GM_SIGNED_SPAN_SHIFT);
            if (v < mn) mn = v;
            if (v > mx) mx = v;
        }
        CHECK(mn < -lim / 2 && mx > lim / 2, "%s %s: range [%" PRId64 ", %" PRId64 "] does not fill +-2^%u", tn,
              dn, mn, mx, width - GM_SIGNED_SPAN_SHIFT);
        break;
    }
    case GM_NORMAL:
    case GM_MISSING: { /* the NaNs np.nan's pattern, about GM_MISSING_PERCENT %; the others normal */
        const uint64_t qnan = width == 32 ? 0x7FC00000ull : 0x7FF8000000000000ull;
        size_t nans = 0, finite;
        double mean, var;
        for (i = 0; i < N; i++) {
            double v = as_double(k[i], t);
            if (dist == GM_MISSING && isnan(v)) {
                CHECK(k[i] == qnan, "%s %s: key %zu a NaN other than the quiet NaN", tn, dn, i);
                nans++;
                continue;
            }
            CHECK(isfinite(v), "%s %s: key %zu not finite", tn, dn, i);
            sum += v;
            sum2 += v * v;
            count += fabs(v) < 1.0;
        }
        finite = N - nans;
        mean = sum / finite;
        var = sum2 / finite - mean * mean;
        CHECK(fabs(mean) < 0.03 && var > 0.95 && var < 1.05, "%s %s: mean %.4f variance %.4f", tn, dn, mean, var);
        CHECK(count > 0.67 * finite && count < 0.70 * finite, "%s %s: %.4f of the keys within one sigma", tn, dn,
              (double)count / finite);
        /* binomial: sd about 0.1% of N at 1%; 0.3% is 3 of them */
        CHECK(dist == GM_NORMAL ? nans == 0 : fabs((double)nans / N - GM_MISSING_PERCENT / 100.0) < 0.003,
              "%s %s: %.4f of the keys NaN", tn, dn, (double)nans / N);
        break;
    }
    case GM_UNIT:
        for (i = 0; i < N; i++) {
            double v = as_double(k[i], t);
            CHECK(v >= 0.0 && v < 1.0, "%s %s: key %zu = %g outside [0, 1)", tn, dn, i, v);
            sum += v;
        }
        CHECK(fabs(sum / N - 0.5) < 0.01, "%s %s: mean %.4f", tn, dn, sum / N);
        break;
    case GM_ZIPF:
        /* Rank 0 alone holds ln 2 / ln(2^20 + 1) = 5% of the keys; ranks spread widely. */
        CHECK(top > 0.04 * N, "%s %s: the most frequent key holds only %.4f", tn, dn, (double)top / N);
        CHECK(top < (width >= 16 ? 0.07 : 0.12) * N, "%s %s: the most frequent key holds %.4f", tn, dn,
              (double)top / N);
        CHECK(nd > (width >= 16 ? 1000u : 100u), "%s %s: only %zu distinct keys", tn, dn, nd);
        break;
    case GM_LOWENTROPY: {
        double d = bit_density(k, N, width);
        CHECK(d > 0.115 && d < 0.135, "%s %s: bit density %.4f (1/8 expected)", tn, dn, d);
        break;
    }
    case GM_SORTED:
    case GM_REVERSE:
        for (i = 1; i < N; i++) {
            uint64_t a = image(k[i - 1], t), b = image(k[i], t);
            CHECK(dist == GM_SORTED ? a <= b : a >= b, "%s %s: keys %zu, %zu out of order", tn, dn, i - 1, i);
        }
        if (t == RDX_F32 || t == RDX_F64)
            for (i = 0; i < N; i++)
                CHECK(as_double(k[i], t) >= -1.0 && as_double(k[i], t) < 1.0, "%s %s: key %zu outside [-1, 1)", tn,
                      dn, i);
        else /* spread over the range: first and last keys in opposite halves of the images */
            CHECK((image(k[0], t) >> (width - 1)) != (image(k[N - 1], t) >> (width - 1)),
                  "%s %s: keys do not span the range", tn, dn);
        CHECK(nd >= (width >= 32 ? N : (size_t)1 << width), "%s %s: only %zu distinct keys", tn, dn, nd);
        break;
    case GM_EQUAL:
        CHECK(nd == 1, "%s %s: %zu distinct keys", tn, dn, nd);
        break;
    case GM_FEW:
        CHECK(nd <= GM_FEW_VALUES && nd >= (width >= 32 ? GM_FEW_VALUES : 4), "%s %s: %zu distinct keys", tn,
              dn, nd);
        break;
    case GM_REPEAT: { /* about N / 256 values (fewer where the width folds them), each ~256 times */
        const size_t values = N / GM_REPEAT_COPIES + 1;
        CHECK(nd <= values && (width < 32 || nd * 100 >= values * 99), "%s %s: %zu distinct keys of %zu", tn, dn,
              nd, values);
        CHECK(width < 32 || (top > GM_REPEAT_COPIES && top < 2 * GM_REPEAT_COPIES),
              "%s %s: the most frequent key %zu times", tn, dn, top);
        break;
    }
    case GM_BUCKET: {
        double share;
        for (i = 0; i < N; i++) count += (image(k[i], t) >> (width - 8)) == GM_BUCKET_TOP;
        share = (double)count / N;
        CHECK(share > GM_BUCKET_PERCENT / 100.0 - 0.01 && share < GM_BUCKET_PERCENT / 100.0 + 0.015,
              "%s %s: %.4f of the keys in the big bucket", tn, dn, share);
        break;
    }
    default:
        CHECK(0, "unknown distribution %d", dist);
    }
}

/* Which type gets which distribution: every type all but the type-specific ones. */
static void applicability(void)
{
    CHECK(gm_dist_applies(GM_SIGNED, RDX_I64) && gm_dist_applies(GM_SIGNED, RDX_I32) &&
              !gm_dist_applies(GM_SIGNED, RDX_U64) && !gm_dist_applies(GM_SIGNED, RDX_F64),
          "signed applies to signed integers only");
    CHECK(gm_dist_applies(GM_NORMAL, RDX_F32) && gm_dist_applies(GM_UNIT, RDX_F64) &&
              gm_dist_applies(GM_MISSING, RDX_F64) && !gm_dist_applies(GM_NORMAL, RDX_U32) &&
              !gm_dist_applies(GM_UNIT, RDX_I64) && !gm_dist_applies(GM_MISSING, RDX_I32),
          "normal, unit and missing apply to f32 and f64 only");
    CHECK(gm_dist_applies(GM_BITS, RDX_U8) && gm_dist_applies(GM_BITS, RDX_I64) && !gm_dist_applies(GM_BITS, RDX_F32),
          "bits applies to integers only");
    CHECK(!gm_dist_applies(GM_NDIST, RDX_U32) && !gm_dist_applies(-1, RDX_U32), "out-of-range distributions");
}

/* Every distribution has a name of its own (the matrix's --dist takes them). */
static void names(void)
{
    int d, e;
    for (d = 0; d < GM_NDIST; d++) {
        CHECK(strcmp(gm_dist_name(d), "?") != 0, "distribution %d has no name", d);
        for (e = 0; e < d; e++)
            CHECK(strcmp(gm_dist_name(d), gm_dist_name(e)) != 0, "distributions %d and %d share a name", e, d);
    }
    CHECK(strcmp(gm_dist_name(GM_NDIST), "?") == 0 && strcmp(gm_dist_name(-1), "?") == 0,
          "out-of-range distributions have a name");
}

int main(void)
{
    uint64_t *k = (uint64_t *)malloc(N * sizeof *k), *tmp = (uint64_t *)malloc(N * sizeof *tmp);
    size_t ti;
    int d;
    seed = rdx_test_seed();
    if (!k || !tmp) {
        printf("test_matrix_gen: out of memory\n");
        return 1;
    }
    applicability();
    names();
    for (ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (d = 0; d < GM_NDIST; d++)
            if (gm_dist_applies(d, types[ti].t)) check_one(types[ti].t, types[ti].name, d, k, tmp);
    free(k);
    free(tmp);
    printf("test_matrix_gen: %s (%d failures, seed 0x%016" PRIx64 ")\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
