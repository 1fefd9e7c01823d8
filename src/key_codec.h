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

#endif /* RDX_KEY_CODEC_H */
