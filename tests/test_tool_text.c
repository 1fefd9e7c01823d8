/* Unit tests of the rdx tool's key text and key order (tools/text.c, half.c, types.c):
 * every f16 and bf16 pattern, and random f32, f64 and integer keys, must read back from
 * their printed text to the same bits; ranges and junk must be refused; the tool's key
 * order must agree with numeric order. Fresh random keys each run; the seed is printed
 * on failure (RDX_TEST_SEED=... repeats a run). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "half.h"
#include "rng.h"
#include "text.h"
#include "types.h"
#include "check.h"


static int is_nan_bits(rdx_type t, uint64_t b) { return !tool_bits_finite(t, b) && ((t == RDX_F16 && (b & 0x3ffu)) || (t == RDX_BF16 && (b & 0x7fu)) || (t == RDX_F32 && (b & 0x7fffffu)) || (t == RDX_F64 && (b & 0xfffffffffffffull))); }

/* format -> parse gives the same bits (NaN: a NaN of the same sign). */
static void round_trip(rdx_type t, uint64_t bits)
{
    char buf[TOOL_KEY_TEXT_MAX];
    uint64_t back = ~bits;
    tool_format_key(t, bits, buf);
    tool_parse_result r = tool_parse_key(t, buf, &back);
    const uint64_t sign = tool_sign_bit(t);
    if (is_nan_bits(t, bits))
        CHECK(r == TOOL_PARSE_OK && is_nan_bits(t, back) && (back & sign) == (bits & sign),
              "%s NaN 0x%llx printed '%s' read back as 0x%llx", tool_type_name(t),
              (unsigned long long)bits, buf, (unsigned long long)back);
    else
        CHECK(r == TOOL_PARSE_OK && back == bits, "%s 0x%llx printed '%s' read back as 0x%llx (%d)",
              tool_type_name(t), (unsigned long long)bits, buf, (unsigned long long)back, (int)r);
}

static void test_round_trips(void)
{
    for (uint32_t b = 0; b < 65536; b++) {
        round_trip(RDX_F16, b);
        round_trip(RDX_BF16, b);
        round_trip(RDX_U16, b);
        round_trip(RDX_I16, b);
    }
    for (uint32_t b = 0; b < 256; b++) {
        round_trip(RDX_U8, b);
        round_trip(RDX_I8, b);
    }
    tool_rng r;
    tool_rng_seed(&r, seed);
    for (int i = 0; i < 300000; i++) {
        uint64_t w = tool_rng_next(&r);
        /* also small exponents and denormals: clear some high bits now and then */
        if (i % 3 == 1)
            w &= 0x80000000807fffffull;
        round_trip(RDX_F32, w & 0xffffffffu);
        round_trip(RDX_F64, i % 3 == 1 ? w & 0x800fffffffffffffull : w);
        round_trip(RDX_U32, w & 0xffffffffu);
        round_trip(RDX_I32, w & 0xffffffffu);
        round_trip(RDX_U64, w);
        round_trip(RDX_I64, w);
    }
    const uint64_t f32_edges[] = {0x00000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0x80000000u,
                                  0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u};
    for (size_t i = 0; i < sizeof f32_edges / sizeof f32_edges[0]; i++)
        round_trip(RDX_F32, f32_edges[i]);
    const uint64_t f64_edges[] = {1, 0x000fffffffffffffull, 0x7fefffffffffffffull, 0x8000000000000000ull,
                                  0x7ff0000000000000ull, 0xfff0000000000000ull, 0xfff8000000000000ull};
    for (size_t i = 0; i < sizeof f64_edges / sizeof f64_edges[0]; i++)
        round_trip(RDX_F64, f64_edges[i]);
}

/* f16/bf16 rounding: a value halfway between two neighbours goes to the even one, and
 * anything past halfway to the nearer. */
static void test_half_rounding(void)
{
    for (uint32_t b = 0; b < 0x7c00u - 1; b++) {  /* positive finite f16 below the largest */
        double lo = tool_f16_to_double((uint16_t)b), hi = tool_f16_to_double((uint16_t)(b + 1));
        double mid = 0.5 * (lo + hi);
        uint16_t even = (b & 1) ? (uint16_t)(b + 1) : (uint16_t)b;
        CHECK(tool_double_to_f16(mid) == even, "f16 midpoint after 0x%x rounds to 0x%x", b,
              tool_double_to_f16(mid));
        CHECK(tool_double_to_f16(nextafter(mid, 0.0)) == b, "f16 below midpoint after 0x%x", b);
        CHECK(tool_double_to_f16(nextafter(mid, 1e9)) == b + 1, "f16 above midpoint after 0x%x", b);
        CHECK(tool_double_to_f16(-mid) == (even | 0x8000u), "f16 negative midpoint after 0x%x", b);
    }
    for (uint32_t b = 0; b < 0x7f80u - 1; b++) {
        double lo = tool_bf16_to_double((uint16_t)b), hi = tool_bf16_to_double((uint16_t)(b + 1));
        double mid = 0.5 * (lo + hi);
        uint16_t even = (b & 1) ? (uint16_t)(b + 1) : (uint16_t)b;
        CHECK(tool_double_to_bf16(mid) == even, "bf16 midpoint after 0x%x", b);
    }
    CHECK(tool_double_to_f16(65520.0) == 0x7c00u, "65520 rounds to f16 inf");
    CHECK(tool_double_to_f16(65519.0) == 0x7bffu, "65519 rounds to the largest f16");
    /* bf16 agrees with a float's top half for values exactly representable */
    CHECK(tool_double_to_bf16(1.0) == 0x3f80u, "bf16 1.0");
    CHECK(tool_double_to_bf16(-2.0) == 0xc000u, "bf16 -2.0");
}

static void expect(rdx_type t, const char *s, tool_parse_result want, uint64_t want_bits)
{
    uint64_t bits = 0;
    tool_parse_result r = tool_parse_key(t, s, &bits);
    CHECK(r == want, "%s '%s' parsed as %d, not %d", tool_type_name(t), s, (int)r, (int)want);
    if (r == TOOL_PARSE_OK && want == TOOL_PARSE_OK)
        CHECK(bits == want_bits, "%s '%s' gave 0x%llx, not 0x%llx", tool_type_name(t), s,
              (unsigned long long)bits, (unsigned long long)want_bits);
}

static void test_parse_edges(void)
{
    const tool_parse_result OK = TOOL_PARSE_OK, NAN_ = TOOL_PARSE_NOT_A_NUMBER,
                            RANGE = TOOL_PARSE_OUT_OF_RANGE;
    expect(RDX_U8, "255", OK, 255);
    expect(RDX_U8, "256", RANGE, 0);
    expect(RDX_U8, "-1", RANGE, 0);
    expect(RDX_U8, " 7 \r", OK, 7);
    expect(RDX_U8, "1.5", NAN_, 0);
    expect(RDX_U8, "x", NAN_, 0);
    expect(RDX_U8, "", NAN_, 0);
    expect(RDX_U8, "0x10", NAN_, 0);
    expect(RDX_I8, "-128", OK, 0x80);
    expect(RDX_I8, "-129", RANGE, 0);
    expect(RDX_I8, "127", OK, 0x7f);
    expect(RDX_I8, "128", RANGE, 0);
    expect(RDX_I16, "-32768", OK, 0x8000);
    expect(RDX_U32, "4294967295", OK, 0xffffffffu);
    expect(RDX_U32, "4294967296", RANGE, 0);
    expect(RDX_I32, "-2147483649", RANGE, 0);
    expect(RDX_U64, "18446744073709551615", OK, UINT64_MAX);
    expect(RDX_U64, "18446744073709551616", RANGE, 0);
    expect(RDX_I64, "-9223372036854775808", OK, 0x8000000000000000ull);
    expect(RDX_I64, "9223372036854775808", RANGE, 0);
    expect(RDX_I64, "12 34", NAN_, 0);
    expect(RDX_F32, "nan", OK, 0x7fc00000u);
    expect(RDX_F32, "-nan", OK, 0xffc00000u);
    expect(RDX_F32, "-inf", OK, 0xff800000u);
    expect(RDX_F32, "Infinity", OK, 0x7f800000u);
    expect(RDX_F32, "1e39", RANGE, 0);
    expect(RDX_F32, "-0", OK, 0x80000000u);
    expect(RDX_F32, "1e-50", OK, 0);          /* underflow to zero is a rounding, not an error */
    expect(RDX_F32, "abc", NAN_, 0);
    expect(RDX_F32, "1.5x", NAN_, 0);
    expect(RDX_F64, "1e309", RANGE, 0);
    expect(RDX_F64, "-nan", OK, 0xfff8000000000000ull);
    expect(RDX_F16, "65504", OK, 0x7bffu);
    expect(RDX_F16, "70000", RANGE, 0);
    expect(RDX_F16, "-inf", OK, 0xfc00u);
    expect(RDX_F16, "nan", OK, 0x7e00u);
    expect(RDX_BF16, "1", OK, 0x3f80u);
    expect(RDX_BF16, "1e39", RANGE, 0);
    expect(RDX_BF16, "-nan", OK, 0xffc0u);
}

/* The tool's key order agrees with numbers: integers by value, floats by value with
 * -0 before +0 and NaNs at the ends by sign. */
static void test_order(void)
{
    tool_rng r;
    tool_rng_seed(&r, seed ^ 0x5bd1e995u);
    for (int i = 0; i < 200000; i++) {
        uint64_t a = tool_rng_next(&r), b = tool_rng_next(&r);
        int64_t sa = (int64_t)a, sb = (int64_t)b;
        CHECK((tool_order_bits(RDX_I64, a) < tool_order_bits(RDX_I64, b)) == (sa < sb), "i64 order");
        int32_t ia = (int32_t)(uint32_t)a, ib = (int32_t)(uint32_t)b;
        CHECK((tool_order_bits(RDX_I32, a & 0xffffffffu) < tool_order_bits(RDX_I32, b & 0xffffffffu)) == (ia < ib),
              "i32 order");
        double da, db;
        memcpy(&da, &a, 8);
        memcpy(&db, &b, 8);
        if (!isnan(da) && !isnan(db) && da != db)
            CHECK((tool_order_bits(RDX_F64, a) < tool_order_bits(RDX_F64, b)) == (da < db), "f64 order");
        float fa, fb;
        uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
        memcpy(&fa, &a32, 4);
        memcpy(&fb, &b32, 4);
        if (!isnan(fa) && !isnan(fb) && fa != fb)
            CHECK((tool_order_bits(RDX_F32, a32) < tool_order_bits(RDX_F32, b32)) == (fa < fb), "f32 order");
        CHECK(tool_unorder_bits(RDX_F32, tool_order_bits(RDX_F32, a32)) == a32, "f32 unorder");
        CHECK(tool_unorder_bits(RDX_I16, tool_order_bits(RDX_I16, a & 0xffff)) == (a & 0xffff), "i16 unorder");
    }
    CHECK(tool_order_bits(RDX_F32, 0x80000000u) < tool_order_bits(RDX_F32, 0), "-0 before +0");
    CHECK(tool_order_bits(RDX_F32, 0xffc00000u) < tool_order_bits(RDX_F32, 0xff800000u), "-nan before -inf");
    CHECK(tool_order_bits(RDX_F32, 0x7f800000u) < tool_order_bits(RDX_F32, 0x7fc00000u), "inf before nan");
    CHECK(tool_order_bits(RDX_F16, 0xfc00u) < tool_order_bits(RDX_F16, 0x8000u), "f16 -inf before -0");
}

int main(void)
{
    const char *env = getenv("RDX_TEST_SEED");
    seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    test_round_trips();
    test_half_rounding();
    test_parse_edges();
    test_order();
    if (failures) {
        fprintf(stderr, "test_tool_text: %d failures (seed %llu)\n", failures, (unsigned long long)seed);
        return 1;
    }
    printf("test_tool_text: all passed (seed %llu)\n", (unsigned long long)seed);
    return 0;
}
