/* The key codec (DESIGN.md section 1, "Key order"), shared by both backends.
 *
 * Every key type maps to an unsigned integer of its width whose unsigned order is the
 * key order; descending inverts all bits after that, which reverses the order while a
 * stable sort still keeps equal keys in input order. Both directions are bijections.
 * Compiles as C11 and as CUDA (host and device). */
#ifndef RDX_KEY_CODEC_H
#define RDX_KEY_CODEC_H

#include <stdint.h>
#include "rdx.h"

#ifdef __CUDACC__
#define RDX_HD __host__ __device__ __forceinline__
#else
#define RDX_HD inline
#endif

typedef enum rdx_key_class {
    RDX_CLASS_UNSIGNED = 0,
    RDX_CLASS_SIGNED = 1,
    RDX_CLASS_FLOAT = 2
} rdx_key_class;

static RDX_HD int rdx_type_is_valid(int t) { return t >= RDX_U8 && t <= RDX_F64; }

static RDX_HD rdx_key_class rdx_type_class(rdx_type t)
{
    switch (t) {
    case RDX_I8: case RDX_I16: case RDX_I32: case RDX_I64: return RDX_CLASS_SIGNED;
    case RDX_F16: case RDX_BF16: case RDX_F32: case RDX_F64: return RDX_CLASS_FLOAT;
    default: return RDX_CLASS_UNSIGNED;
    }
}

/* Key width in bytes, 0 for no rdx_type (the public rdx_type_size is this). */
static RDX_HD unsigned rdx_type_bytes(int t)
{
    switch (t) {
    case RDX_U8: case RDX_I8: return 1;
    case RDX_U16: case RDX_I16: case RDX_F16: case RDX_BF16: return 2;
    case RDX_U32: case RDX_I32: case RDX_F32: return 4;
    case RDX_U64: case RDX_I64: case RDX_F64: return 8;
    default: return 0;
    }
}

/* rdx_encode_uW / rdx_decode_uW for W = 8, 16, 32, 64: cls is an rdx_key_class, desc is
 * 0 or 1. decode(encode(x)) == x for every bit pattern. */
#define RDX_DEFINE_CODEC(W)                                                            \
    static RDX_HD uint##W##_t rdx_encode_u##W(uint##W##_t x, int cls, int desc)        \
    {                                                                                  \
        const uint##W##_t sign = (uint##W##_t)((uint##W##_t)1 << (W - 1));             \
        if (cls == RDX_CLASS_SIGNED)                                                   \
            x = (uint##W##_t)(x ^ sign);                                               \
        else if (cls == RDX_CLASS_FLOAT)                                               \
            x = (x & sign) ? (uint##W##_t)~x : (uint##W##_t)(x ^ sign);                \
        return desc ? (uint##W##_t)~x : x;                                             \
    }                                                                                  \
    static RDX_HD uint##W##_t rdx_decode_u##W(uint##W##_t x, int cls, int desc)        \
    {                                                                                  \
        const uint##W##_t sign = (uint##W##_t)((uint##W##_t)1 << (W - 1));             \
        if (desc)                                                                      \
            x = (uint##W##_t)~x;                                                       \
        if (cls == RDX_CLASS_SIGNED)                                                   \
            x = (uint##W##_t)(x ^ sign);                                               \
        else if (cls == RDX_CLASS_FLOAT)                                               \
            x = (x & sign) ? (uint##W##_t)(x ^ sign) : (uint##W##_t)~x;                \
        return x;                                                                      \
    }

RDX_DEFINE_CODEC(8)
RDX_DEFINE_CODEC(16)
RDX_DEFINE_CODEC(32)
RDX_DEFINE_CODEC(64)
#undef RDX_DEFINE_CODEC

/* ---- RDX_NUMPY_ORDER ----
 *
 * NumPy's and PyTorch's float order is totalOrder with two kinds of ties: every NaN
 * (either sign, any payload) is equal to every other and greater than +inf, and -0.0 is
 * equal to +0.0. Keys are still stored by the bijective mapping above (so no key is ever
 * rewritten); only the value a sort orders by is canonicalised: every NaN's code becomes
 * that of the positive quiet NaN without payload (0x7FC00000 for f32, 0x7FF8000000000000
 * for f64: the NaN NumPy, Python and PyTorch make, so that arrays holding only that NaN
 * have no key whose code changes) and -0.0's code becomes +0.0's. rdx_numpy_canon_uW
 * takes a code made by rdx_encode_uW (desc as given there) and returns the code to order
 * by, in the same direction; a stable sort by it is NumPy's stable order (or its reverse
 * with desc, NaNs first). inf is the type's +inf pattern (rdx_float_inf_bits). Codes that
 * are no NaN and no -0.0 are returned as they are. */

/* The +inf bit pattern of a float type, 0 for an integer type. */
static RDX_HD uint64_t rdx_float_inf_bits(rdx_type t)
{
    switch (t) {
    case RDX_F16: return 0x7C00u;
    case RDX_BF16: return 0x7F80u;
    case RDX_F32: return 0x7F800000u;
    case RDX_F64: return 0x7FF0000000000000ull;
    default: return 0;
    }
}

/* The positive quiet NaN's pattern for a float type's +inf pattern inf: the mantissa's top
 * bit (half inf's lowest bit) set. */
static RDX_HD uint64_t rdx_float_qnan_bits(uint64_t inf)
{
    return inf | ((inf & (~inf + 1)) >> 1);
}

#define RDX_DEFINE_CANON(W)                                                            \
    static RDX_HD uint##W##_t rdx_numpy_canon_u##W(uint##W##_t code, uint##W##_t inf,   \
                                                   int desc)                           \
    {                                                                                  \
        const uint##W##_t sign = (uint##W##_t)((uint##W##_t)1 << (W - 1));             \
        const uint##W##_t hi = (uint##W##_t)(inf ^ sign);     /* +inf's code */        \
        const uint##W##_t lo = (uint##W##_t)~(inf | sign);    /* -inf's code */        \
        uint##W##_t a = desc ? (uint##W##_t)~code : code;                              \
        if (a > hi || a < lo)                                                          \
            a = (uint##W##_t)(rdx_float_qnan_bits(inf) ^ sign); /* the quiet NaN's */  \
        else if (a == (uint##W##_t)(sign - 1))                                         \
            a = sign;                                                                  \
        return desc ? (uint##W##_t)~a : a;                                             \
    }

RDX_DEFINE_CANON(16)
RDX_DEFINE_CANON(32)
RDX_DEFINE_CANON(64)
#undef RDX_DEFINE_CANON

/* The canonical code, widened, for a float type of key_bytes 2, 4 or 8. */
static RDX_HD uint64_t rdx_numpy_canon(uint64_t code, unsigned key_bytes, uint64_t inf, int desc)
{
    switch (key_bytes) {
    case 2: return rdx_numpy_canon_u16((uint16_t)code, (uint16_t)inf, desc);
    case 4: return rdx_numpy_canon_u32((uint32_t)code, (uint32_t)inf, desc);
    default: return rdx_numpy_canon_u64(code, inf, desc);
    }
}

/* Bits [begin_bit, end_bit) of key bits x (key_bytes 1, 2, 4 or 8 wide, in the low bytes)
 * mapped for class cls and order desc, from bit 0: what a sort compares. */
static RDX_HD uint64_t rdx_sort_bits(uint64_t x, unsigned key_bytes, int cls, int desc, int begin_bit, int end_bit)
{
    uint64_t m;
    switch (key_bytes) {
    case 1: m = rdx_encode_u8((uint8_t)x, cls, desc); break;
    case 2: m = rdx_encode_u16((uint16_t)x, cls, desc); break;
    case 4: m = rdx_encode_u32((uint32_t)x, cls, desc); break;
    default: m = rdx_encode_u64(x, cls, desc); break;
    }
    const int w = end_bit - begin_bit;
    m >>= begin_bit;
    return w >= 64 ? m : (m & ((1ull << w) - 1));
}

/* The canonical bit pattern of float key bits x (key_bytes 2, 4 or 8) under
 * RDX_NUMPY_ORDER: every NaN becomes the positive quiet NaN and -0.0 becomes
 * +0.0; any other key is its own. A plain sort of canonical patterns is NumPy's order. */
static RDX_HD uint64_t rdx_numpy_canon_pattern(uint64_t x, unsigned key_bytes, uint64_t inf)
{
    if (key_bytes == 2)
        return rdx_decode_u16(rdx_numpy_canon_u16(rdx_encode_u16((uint16_t)x, RDX_CLASS_FLOAT, 0), (uint16_t)inf, 0),
                              RDX_CLASS_FLOAT, 0);
    if (key_bytes == 4)
        return rdx_decode_u32(rdx_numpy_canon_u32(rdx_encode_u32((uint32_t)x, RDX_CLASS_FLOAT, 0), (uint32_t)inf, 0),
                              RDX_CLASS_FLOAT, 0);
    return rdx_decode_u64(rdx_numpy_canon_u64(rdx_encode_u64(x, RDX_CLASS_FLOAT, 0), inf, 0), RDX_CLASS_FLOAT, 0);
}

/* True for the two patterns that a canonical code decodes to where several keys share the
 * code: +0.0 (for both zeros) and the canonical NaN (the positive quiet NaN, for every NaN).
 * Every other decoded code is the key's own pattern. */
static RDX_HD int rdx_numpy_canon_shared(uint64_t pattern, uint64_t inf)
{
    return pattern == 0 || pattern == rdx_float_qnan_bits(inf);
}

#endif /* RDX_KEY_CODEC_H */
