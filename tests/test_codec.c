/* The key codec (src/key_codec.h): every mapping is a bijection that decodes back, its
 * unsigned order is the key order (checked against C's own comparisons of the decoded
 * numbers, not against another bit trick), floats follow IEEE totalOrder at the special
 * values, and descending reverses the order. Also end to end: the library sorts a
 * shuffled chain of special values into the chain. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key_codec.h"
#include "suite.h"
#include "check.h"


typedef struct ftype {
    rdx_type type;
    const char *name;
    int width, exp_bits, mant_bits;
} ftype;
static const ftype floats[] = {{RDX_F16, "f16", 16, 5, 10},
                               {RDX_BF16, "bf16", 16, 8, 7},
                               {RDX_F32, "f32", 32, 8, 23},
                               {RDX_F64, "f64", 64, 11, 52}};

static uint64_t width_mask(int w) { return w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1); }

/* The codec at width w, on a pattern in the low w bits. */
static uint64_t encode(uint64_t x, int w, int cls, int desc)
{
    switch (w) {
    case 8: return rdx_encode_u8((uint8_t)x, cls, desc);
    case 16: return rdx_encode_u16((uint16_t)x, cls, desc);
    case 32: return rdx_encode_u32((uint32_t)x, cls, desc);
    default: return rdx_encode_u64(x, cls, desc);
    }
}
static uint64_t decode(uint64_t x, int w, int cls, int desc)
{
    switch (w) {
    case 8: return rdx_decode_u8((uint8_t)x, cls, desc);
    case 16: return rdx_decode_u16((uint16_t)x, cls, desc);
    case 32: return rdx_decode_u32((uint32_t)x, cls, desc);
    default: return rdx_decode_u64(x, cls, desc);
    }
}

/* A float pattern as a C double, by the format's definition (not by bit tricks). */
static double float_value(uint64_t x, const ftype *f)
{
    const int neg = (int)(x >> (f->width - 1)) & 1;
    const uint64_t e = (x >> f->mant_bits) & (((uint64_t)1 << f->exp_bits) - 1);
    const uint64_t m = x & (((uint64_t)1 << f->mant_bits) - 1);
    const int bias = (1 << (f->exp_bits - 1)) - 1;
    double v;
    if (e == (((uint64_t)1 << f->exp_bits) - 1))
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - f->mant_bits);
    else
        v = ldexp((double)(m | ((uint64_t)1 << f->mant_bits)), (int)e - bias - f->mant_bits);
    return neg ? -v : v;
}

/* Signed value of a w-bit two's complement pattern. */
static int64_t signed_value(uint64_t x, int w)
{
    if (w == 64)
        return (int64_t)x;
    const uint64_t sign = (uint64_t)1 << (w - 1);
    return (int64_t)((x ^ sign) - sign);
}

/* Expected order of two patterns, -1/0/1, from the numbers they stand for. */
static int expected_order(uint64_t a, uint64_t b, int w, int cls, const ftype *f)
{
    if (cls == RDX_CLASS_UNSIGNED)
        return (a > b) - (a < b);
    if (cls == RDX_CLASS_SIGNED) {
        int64_t x = signed_value(a, w), y = signed_value(b, w);
        return (x > y) - (x < y);
    }
    const double x = float_value(a, f), y = float_value(b, f);
    const int sa = (int)(a >> (w - 1)) & 1, sb = (int)(b >> (w - 1)) & 1;
    if (isnan(x) || isnan(y)) {
        /* totalOrder: -NaN below everything, +NaN above; NaNs of one sign by payload. */
        const int rank_a = isnan(x) ? (sa ? -1 : 1) : 0, rank_b = isnan(y) ? (sb ? -1 : 1) : 0;
        if (rank_a != rank_b)
            return (rank_a > rank_b) - (rank_a < rank_b);
        const uint64_t pa = a & (((uint64_t)1 << f->mant_bits) - 1);
        const uint64_t pb = b & (((uint64_t)1 << f->mant_bits) - 1);
        const int c = (pa > pb) - (pa < pb);
        return sa ? -c : c;
    }
    if (x != y)
        return (x > y) - (x < y);
    return sb - sa; /* -0 < +0; otherwise the same number */
}

static const ftype *float_of(rdx_type t)
{
    for (int i = 0; i < 4; i++)
        if (floats[i].type == t)
            return &floats[i];
    return NULL;
}

static const rdx_type all_types[] = {RDX_U8,  RDX_U16, RDX_U32,  RDX_U64, RDX_I8,  RDX_I16,
                                     RDX_I32, RDX_I64, RDX_F16,  RDX_BF16, RDX_F32, RDX_F64};

/* A pattern worth trying: random, or one with all bits but a few equal. */
static uint64_t interesting(uint64_t *s, int w)
{
    const uint64_t r = rnd(s);
    switch (r % 6) {
    case 0: return 0;
    case 1: return width_mask(w);
    case 2: return (uint64_t)1 << (rnd(s) % (uint64_t)w);
    case 3: return width_mask(w) ^ ((uint64_t)1 << (rnd(s) % (uint64_t)w));
    case 4: return rnd(s) & rnd(s) & width_mask(w);
    default: return rnd(s) & width_mask(w);
    }
}

/* decode(encode(x)) == x; for 8 and 16 bits over every pattern, with the encoding a
 * bijection; for 32 and 64 bits over many random and edge patterns. */
static void round_trips(void)
{
    uint64_t s = seed;
    static unsigned char seen[1 << 16];
    for (int t = 0; t < 12; t++) {
        const rdx_type type = all_types[t];
        const int w = (int)rdx_type_bytes((int)type) * 8, cls = (int)rdx_type_class(type);
        for (int desc = 0; desc < 2; desc++) {
            if (w <= 16) {
                memset(seen, 0, sizeof seen);
                for (uint64_t x = 0; x <= width_mask(w); x++) {
                    const uint64_t e = encode(x, w, cls, desc);
                    CHECK(e <= width_mask(w), "type %d: encode(0x%" PRIx64 ") is too wide", type, x);
                    CHECK(!seen[e & 0xFFFF], "type %d desc %d: two keys encode to 0x%" PRIx64,
                          type, desc, e);
                    seen[e & 0xFFFF] = 1;
                    CHECK(decode(e, w, cls, desc) == x, "type %d desc %d: 0x%" PRIx64
                          " does not round-trip", type, desc, x);
                }
            } else {
                for (int i = 0; i < 200000; i++) {
                    const uint64_t x = interesting(&s, w);
                    CHECK(decode(encode(x, w, cls, desc), w, cls, desc) == x,
                          "type %d desc %d: 0x%" PRIx64 " does not round-trip", type, desc, x);
                }
            }
        }
    }
}

/* enc(a) < enc(b) exactly when a comes before b in key order; descending reverses. */
static void order_matches_numbers(void)
{
    uint64_t s = seed ^ 0xABCDEF;
    for (int t = 0; t < 12; t++) {
        const rdx_type type = all_types[t];
        const int w = (int)rdx_type_bytes((int)type) * 8, cls = (int)rdx_type_class(type);
        const ftype *f = float_of(type);
        for (int i = 0; i < 300000; i++) {
            uint64_t a = interesting(&s, w), b = interesting(&s, w);
            if (i % 7 == 0)
                b = a;
            const int want = expected_order(a, b, w, cls, f);
            const uint64_t ea = encode(a, w, cls, 0), eb = encode(b, w, cls, 0);
            const int got = (ea > eb) - (ea < eb);
            CHECK(got == want, "type %d: order of 0x%" PRIx64 " and 0x%" PRIx64 " is %d, want %d",
                  type, a, b, got, want);
            const uint64_t da = encode(a, w, cls, 1), db = encode(b, w, cls, 1);
            CHECK(((da > db) - (da < db)) == -want,
                  "type %d descending: 0x%" PRIx64 " vs 0x%" PRIx64 " not reversed", type, a, b);
        }
    }
}

/* -NaN < -inf < -max < -1 < -min normal < -denormal < -0 < +0 < ... < +inf < +NaN, as
 * bit patterns of format f. n receives the count. */
static void special_chain(const ftype *f, uint64_t *chain, int *n)
{
    const uint64_t sign = (uint64_t)1 << (f->width - 1);
    const uint64_t mant = ((uint64_t)1 << f->mant_bits) - 1;
    const uint64_t exp_all = (((uint64_t)1 << f->exp_bits) - 1) << f->mant_bits;
    const uint64_t one = (uint64_t)((1 << (f->exp_bits - 1)) - 1) << f->mant_bits;
    const uint64_t min_normal = (uint64_t)1 << f->mant_bits;
    const uint64_t max_finite = (exp_all - min_normal) | mant;
    const uint64_t pos[] = {0,       1,          mant,      min_normal, one,
                            max_finite, exp_all, exp_all | 1, exp_all | ((mant >> 1) + 1),
                            exp_all | mant};
    const int np = (int)(sizeof pos / sizeof pos[0]);
    int k = 0;
    for (int i = np - 1; i >= 0; i--)
        chain[k++] = pos[i] | sign; /* negatives: the largest magnitude first */
    for (int i = 0; i < np; i++)
        chain[k++] = pos[i];
    *n = k;
}

static void special_floats(void)
{
    rdx_ctx *ctx = NULL;
    CHECK(rdx_ctx_create(&ctx, RDX_BACKEND_CPU) == RDX_OK, "cannot create a CPU context");
    uint64_t s = seed ^ 0x5151;
    for (int i = 0; i < 4; i++) {
        const ftype *f = &floats[i];
        uint64_t chain[32];
        int n;
        special_chain(f, chain, &n);
        for (int j = 1; j < n; j++) {
            CHECK(encode(chain[j - 1], f->width, RDX_CLASS_FLOAT, 0) <
                      encode(chain[j], f->width, RDX_CLASS_FLOAT, 0),
                  "%s: 0x%" PRIx64 " should come before 0x%" PRIx64, f->name, chain[j - 1],
                  chain[j]);
            CHECK(encode(chain[j - 1], f->width, RDX_CLASS_FLOAT, 1) >
                      encode(chain[j], f->width, RDX_CLASS_FLOAT, 1),
                  "%s descending: 0x%" PRIx64 " should come after 0x%" PRIx64, f->name,
                  chain[j - 1], chain[j]);
            CHECK(expected_order(chain[j - 1], chain[j], f->width, RDX_CLASS_FLOAT, f) < 0,
                  "%s: the test's own chain is out of order at %d", f->name, j);
        }
        if (!ctx)
            continue;
        /* End to end: shuffled copies of the chain, sorted both ways by the library. */
        const size_t kb = (size_t)f->width / 8, copies = 5, m = (size_t)n * copies;
        unsigned char buf[32 * 5 * 8];
        for (int desc = 0; desc < 2; desc++) {
            size_t order[32 * 5];
            for (size_t j = 0; j < m; j++)
                order[j] = j % (size_t)n;
            for (size_t j = m - 1; j > 0; j--) {
                size_t r = (size_t)(rnd(&s) % (j + 1)), tmp = order[j];
                order[j] = order[r];
                order[r] = tmp;
            }
            for (size_t j = 0; j < m; j++)
                memcpy(buf + j * kb, &chain[order[j]], kb); /* little-endian low bytes */
            rdx_opts o = {desc ? RDX_DESCENDING : 0u, 0, 0, 0};
            CHECK(rdx_sort_keys(ctx, buf, m, f->type, &o) == RDX_OK, "%s: %s", f->name,
                  rdx_ctx_error(ctx));
            for (size_t j = 0; j < m; j++) {
                uint64_t got = 0;
                memcpy(&got, buf + j * kb, kb);
                const size_t rank = j / copies;
                const uint64_t want = chain[desc ? (size_t)n - 1 - rank : rank];
                CHECK(got == want, "%s %s: position %zu holds 0x%" PRIx64 ", want 0x%" PRIx64,
                      f->name, desc ? "descending" : "ascending", j, got, want);
            }
        }
    }
    rdx_ctx_destroy(ctx);
}

/* RDX_NUMPY_ORDER: NumPy's order of two float patterns, -1/0/1: every NaN equal to every
 * other and above everything else, then the numbers as C compares them (-0 == +0). */
static int numpy_order(uint64_t a, uint64_t b, const ftype *f)
{
    const double x = float_value(a, f), y = float_value(b, f);
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

/* A float pattern likely to matter for the NumPy order: NaNs of both signs with random
 * payloads, both zeros, both infinities, or anything interesting(). */
static uint64_t numpy_pattern(uint64_t *s, const ftype *f)
{
    const uint64_t sign = (uint64_t)1 << (f->width - 1);
    const uint64_t mant = ((uint64_t)1 << f->mant_bits) - 1;
    const uint64_t exp_all = (((uint64_t)1 << f->exp_bits) - 1) << f->mant_bits;
    const uint64_t sg = (rnd(s) & 1) ? sign : 0;
    switch (rnd(s) % 5) {
    case 0: return sg | exp_all | ((rnd(s) & mant) | 1);
    case 1: return sg;
    case 2: return sg | exp_all;
    default: return interesting(s, f->width);
    }
}

/* rdx_numpy_canon_uW of the codes orders as NumPy orders the numbers (descending: the
 * reverse), maps every code that is no NaN and no -0 to itself and every NaN to the quiet
 * NaN's, and is idempotent; for
 * 16-bit types over every pair class exhaustively per pattern, for all over random pairs. */
static void numpy_canonical_order(void)
{
    uint64_t s = seed ^ 0x4e554d50;
    for (int i = 0; i < 4; i++) {
        const ftype *f = &floats[i];
        const int w = f->width;
        const uint64_t inf = rdx_float_inf_bits(f->type);
        CHECK(inf == ((((uint64_t)1 << f->exp_bits) - 1) << f->mant_bits),
              "%s: rdx_float_inf_bits is 0x%" PRIx64, f->name, inf);
        const unsigned kb = (unsigned)w / 8;
        for (int k = 0; k < 400000; k++) {
            const uint64_t a = numpy_pattern(&s, f), b = k % 5 == 0 ? a : numpy_pattern(&s, f);
            const int want = numpy_order(a, b, f);
            for (int desc = 0; desc < 2; desc++) {
                const uint64_t ca = rdx_numpy_canon(encode(a, w, RDX_CLASS_FLOAT, desc), kb, inf, desc);
                const uint64_t cb = rdx_numpy_canon(encode(b, w, RDX_CLASS_FLOAT, desc), kb, inf, desc);
                const int got = (ca > cb) - (ca < cb);
                CHECK(got == (desc ? -want : want),
                      "%s desc %d: canonical order of 0x%" PRIx64 " and 0x%" PRIx64
                      " is %d, want %d", f->name, desc, a, b, got, desc ? -want : want);
                CHECK(ca <= width_mask(w), "%s: canonical code too wide", f->name);
                CHECK(rdx_numpy_canon(ca, kb, inf, desc) == ca, "%s: canon not idempotent at 0x%" PRIx64,
                      f->name, a);
                const double x = float_value(a, f);
                if (isnan(x)) /* every NaN becomes the positive quiet NaN, np.nan's pattern */
                    CHECK(rdx_numpy_canon_pattern(a, kb, inf) == (inf | (uint64_t)1 << (f->mant_bits - 1)),
                          "%s: NaN 0x%" PRIx64 " canonical pattern 0x%" PRIx64, f->name, a,
                          rdx_numpy_canon_pattern(a, kb, inf));
                if (!isnan(x) && !(x == 0 && (a >> (w - 1))))
                    CHECK(ca == encode(a, w, RDX_CLASS_FLOAT, desc),
                          "%s: 0x%" PRIx64 " (no NaN, no -0) changed its code", f->name, a);
            }
        }
    }
}

int main(void)
{
    seed = rdx_test_seed();
    round_trips();
    order_matches_numbers();
    special_floats();
    numpy_canonical_order();
    printf("test_codec: %s (%d failures, seed 0x%016" PRIx64 ")\n", failures ? "FAILED" : "passed",
           failures, seed);
    return failures ? 1 : 0;
}
