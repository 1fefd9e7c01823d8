/* The matrix benchmark's input distributions (DESIGN.md section 5, "The matrix"), one key
 * at a time: gm_key_bits() gives the bit pattern of key i of n from (distribution, key type,
 * seed) alone, so that the device fills 2^32 keys in parallel (bench/gpu_matrix_data.cu) and
 * a host test checks the same function's output (tests/test_matrix_gen.c).
 * Compiles as C11 and as CUDA (host and device). */
#ifndef RDX_GPU_MATRIX_GEN_H
#define RDX_GPU_MATRIX_GEN_H

#include <math.h>
#include <stdint.h>
#include "key_codec.h"

#ifdef __CUDACC__
#define GM_HD __host__ __device__ __forceinline__
#else
#define GM_HD inline
#endif

/* ---- the distributions' constants, all in one place ---- */
/* "bits": uniform over the low (width * 5 / 8) bits: 40 of u64/i64, 20 of u32/i32, 10 of
 * u16, 5 of u8 (integers that use part of their range, as ids do). */
#define GM_BITS_NUM 5
#define GM_BITS_DEN 8
/* "signed": uniform in [-2^(width-2), 2^(width-2)): i64 in +-2^62, i32 in +-2^30. */
#define GM_SIGNED_SPAN_SHIFT 2
/* "zipf": ranks 0 .. GM_ZIPF_RANKS-1 with P(rank k) ~ 1/(k+1) (exponent 1), each rank one
 * random key; rank 0 holds about ln 2 / ln(2^20 + 1) = 5% of the keys. */
#define GM_ZIPF_RANKS ((uint64_t)1 << 20)
/* "lowentropy": the AND of this many random words (each bit set with probability 1/8). */
#define GM_LOWENTROPY_WORDS 3
/* "few": at most this many distinct keys. */
#define GM_FEW_VALUES 16
/* "repeat": n / GM_REPEAT_COPIES + 1 random keys, each about this many times (ids that
 * repeat: events per user, edges per vertex). */
#define GM_REPEAT_COPIES 256
/* "bucket": this share of the keys (in percent) has the same top byte of the key's
 * unsigned image (GM_BUCKET_TOP), the rest of their bits random; the others are random. */
#define GM_BUCKET_PERCENT 90
#define GM_BUCKET_TOP 0xA5u
/* "equal": every key this pattern (integers, truncated to the width) or this value (floats). */
/* "missing": standard normal floats, this share of them (in percent) np.nan's bit pattern
 * (the quiet NaN): data with missing values. */
#define GM_MISSING_PERCENT 1
#define GM_EQUAL_BITS 0x0123456789ABCDEFull
#define GM_EQUAL_FLOAT 3.25

typedef enum gm_dist {
    GM_UNIFORM = 0,  /* every bit random (floats: every pattern, NaNs and infinities too) */
    GM_BITS,         /* integers: uniform over the low GM_BITS_NUM/GM_BITS_DEN of the bits */
    GM_SIGNED,       /* signed integers: uniform in +-2^(width-2) */
    GM_NORMAL,       /* floats: standard normal */
    GM_UNIT,         /* floats: uniform in [0, 1) */
    GM_ZIPF,         /* zipf (exponent 1) over GM_ZIPF_RANKS random keys */
    GM_LOWENTROPY,   /* AND of GM_LOWENTROPY_WORDS random words */
    GM_SORTED,       /* ascending in key order, spread over the range (floats: [-1, 1)) */
    GM_REVERSE,      /* the same, descending */
    GM_EQUAL,        /* every key the same */
    GM_FEW,          /* at most GM_FEW_VALUES distinct random keys */
    GM_BUCKET,       /* GM_BUCKET_PERCENT % of the keys in one top-byte bucket */
    GM_REPEAT,       /* n / GM_REPEAT_COPIES + 1 random keys, each about GM_REPEAT_COPIES times */
    GM_MISSING,      /* floats: standard normal, GM_MISSING_PERCENT % of them the quiet NaN */
    GM_NDIST
} gm_dist;

/* The distribution's name (the matrix's --dist, its table and CSV); "?" for none. */
static inline const char *gm_dist_name(int dist)
{
    static const char *const names[GM_NDIST] = {
        "uniform", "bits", "signed", "normal", "unit", "zipf", "lowentropy",
        "sorted", "reverse", "equal", "few", "bucket", "repeat", "missing"};
    return dist >= 0 && dist < GM_NDIST && names[dist] ? names[dist] : "?";
}

/* 1 when the distribution is defined for keys of type t (see the list above). */
static GM_HD int gm_dist_applies(int dist, rdx_type t)
{
    int cls = (int)rdx_type_class(t);
    switch (dist) {
    case GM_BITS: return cls != RDX_CLASS_FLOAT;
    case GM_SIGNED: return cls == RDX_CLASS_SIGNED;
    case GM_NORMAL: case GM_UNIT: case GM_MISSING: return t == RDX_F32 || t == RDX_F64;
    default: return dist >= 0 && dist < GM_NDIST;
    }
}

/* A 64-bit mix of (index, stream, seed): the splitmix64 finaliser. */
static GM_HD uint64_t gm_hash(uint64_t i, uint64_t stream, uint64_t seed)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ (seed + stream * 0xD1B54A32D192ED03ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return x;
}

/* Uniform in [0, 1) from random bits, exact in the key's float width (24 or 53 bits), so
 * that a float never rounds up to 1.0. */
static GM_HD double gm_unit(uint64_t r, unsigned bytes)
{
    return bytes == 4 ? (double)(r >> 40) * (1.0 / 16777216.0)
                      : (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

/* The bit pattern of v as an f32 (bytes 4) or f64. */
static GM_HD uint64_t gm_float_bits(double v, unsigned bytes)
{
    if (bytes == 4) {
        union { float f; uint32_t u; } c;
        c.f = (float)v;
        return c.u;
    } else {
        union { double d; uint64_t u; } c;
        c.d = v;
        return c.u;
    }
}

/* All-ones in the low `bits` bits (bits 1..64). */
static GM_HD uint64_t gm_mask(unsigned bits) { return bits >= 64 ? ~0ull : ((uint64_t)1 << bits) - 1; }

/* The key whose unsigned image (rdx.h's key order) is `image`, as a bit pattern. */
static GM_HD uint64_t gm_from_image(uint64_t image, unsigned bytes, int cls)
{
    switch (bytes) {
    case 1: return rdx_decode_u8((uint8_t)image, cls, 0);
    case 2: return rdx_decode_u16((uint16_t)image, cls, 0);
    case 4: return rdx_decode_u32((uint32_t)image, cls, 0);
    default: return rdx_decode_u64(image, cls, 0);
    }
}

/* Key `pos` of a sorted sequence of n: ascending in key order over the whole range. */
static GM_HD uint64_t gm_sorted_key(uint64_t pos, uint64_t n, unsigned bytes, int cls)
{
    double f = (double)pos / (double)n, image;
    if (cls == RDX_CLASS_FLOAT) /* n evenly spaced values in [-1, 1) */
        return gm_float_bits(-1.0 + 2.0 * f, bytes);
    /* image = floor(pos * 2^width / n): monotone in pos (exact for powers of two) */
    image = ldexp(f, 8 * (int)bytes);
    return gm_from_image(image >= ldexp(1.0, 8 * (int)bytes) ? gm_mask(8 * bytes) : (uint64_t)image, bytes, cls);
}

/* The bit pattern of key i of n (its low 8 * sizeof(key) bits) in distribution dist. */
static GM_HD uint64_t gm_key_bits(int dist, rdx_type t, uint64_t i, uint64_t n, uint64_t seed)
{
    const unsigned bytes = rdx_type_bytes(t), width = 8 * bytes;
    const int cls = (int)rdx_type_class(t);
    const uint64_t r = gm_hash(i, 0, seed);
    uint64_t x;
    switch (dist) {
    case GM_BITS:
        x = r & gm_mask(width * GM_BITS_NUM / GM_BITS_DEN);
        break;
    case GM_SIGNED: /* (r mod 2^(w-1)) - 2^(w-2), in two's complement */
        x = (r & gm_mask(width - 1)) - ((uint64_t)1 << (width - GM_SIGNED_SPAN_SHIFT));
        break;
    case GM_NORMAL:
    case GM_MISSING: { /* Box-Muller; u1 in (0, 1] keeps the log finite */
        double u1 = ((double)(r >> 11) + 1.0) * (1.0 / 9007199254740992.0);
        double u2 = gm_unit(gm_hash(i, 1, seed), 8);
        x = gm_float_bits(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2), bytes);
        if (dist == GM_MISSING && gm_hash(i, 8, seed) % 100 < GM_MISSING_PERCENT)
            x = bytes == 4 ? 0x7FC00000ull : 0x7FF8000000000000ull;
        break;
    }
    case GM_UNIT:
        x = gm_float_bits(gm_unit(r, bytes), bytes);
        break;
    case GM_ZIPF: { /* inverse of the continuous CDF log(1 + k) / log(1 + ranks) */
        double u = gm_unit(r, 8);
        uint64_t rank = (uint64_t)exp(u * log((double)GM_ZIPF_RANKS + 1.0)) - 1;
        if (rank >= GM_ZIPF_RANKS) rank = GM_ZIPF_RANKS - 1;
        x = gm_hash(rank, 2, seed);
        break;
    }
    case GM_LOWENTROPY: {
        int k;
        x = r;
        for (k = 1; k < GM_LOWENTROPY_WORDS; k++) x &= gm_hash(i, (uint64_t)k, seed);
        break;
    }
    case GM_SORTED:
        x = gm_sorted_key(i, n, bytes, cls);
        break;
    case GM_REVERSE:
        x = gm_sorted_key(n - 1 - i, n, bytes, cls);
        break;
    case GM_EQUAL:
        x = cls == RDX_CLASS_FLOAT ? gm_float_bits(GM_EQUAL_FLOAT, bytes) : GM_EQUAL_BITS;
        break;
    case GM_FEW:
        x = gm_hash(gm_hash(i, 3, seed) % GM_FEW_VALUES, 4, seed);
        break;
    case GM_REPEAT:
        x = gm_hash(gm_hash(i, 6, seed) % (n / GM_REPEAT_COPIES + 1), 7, seed);
        break;
    case GM_BUCKET:
        if (gm_hash(i, 5, seed) % 100 < GM_BUCKET_PERCENT)
            x = gm_from_image(((uint64_t)GM_BUCKET_TOP << (width - 8)) | (r & gm_mask(width - 8)), bytes, cls);
        else
            x = r;
        break;
    default: /* GM_UNIFORM */
        x = r;
        break;
    }
    return x & gm_mask(width);
}

#endif
