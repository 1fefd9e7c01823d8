/* Key types by name, raw key access, and the key order of rdx.h, for the rdx tool.
 * The tool uses only the public API, so it carries its own small copy of the order
 * (a mapping to unsigned integers) to check results independently of the library. */
#ifndef RDX_TOOL_TYPES_H
#define RDX_TOOL_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "rdx.h"

/* The 12 type names, in rdx_type order, separated by spaces (for help texts). */
#define TOOL_TYPE_NAMES "u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64"

/* Sets *t from a name such as "u32"; returns 0, or -1 for no such name. */
int tool_parse_type(const char *name, rdx_type *t);
const char *tool_type_name(rdx_type t);

/* Inline from here on: these run once per key in checks and generators. */
static inline int tool_type_is_float(rdx_type t)
{
    return t == RDX_F16 || t == RDX_BF16 || t == RDX_F32 || t == RDX_F64;
}

static inline int tool_type_is_signed(rdx_type t)
{
    return t == RDX_I8 || t == RDX_I16 || t == RDX_I32 || t == RDX_I64;
}

/* Bytes per key (rdx_type_size, without a call into the library). */
static inline size_t tool_type_bytes(rdx_type t)
{
    switch (t) {
    case RDX_U8: case RDX_I8: return 1;
    case RDX_U16: case RDX_I16: case RDX_F16: case RDX_BF16: return 2;
    case RDX_U32: case RDX_I32: case RDX_F32: return 4;
    default: return 8;
    }
}

/* Key i of an array of keys of `size` bytes each, as its bit pattern (host byte order,
 * little-endian on the machines rdxsort targets), and the converse. */
static inline uint64_t tool_load_bits(const void *base, size_t i, size_t size)
{
    const unsigned char *p = (const unsigned char *)base + i * size;
    switch (size) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline void tool_store_bits(void *base, size_t i, size_t size, uint64_t bits)
{
    unsigned char *p = (unsigned char *)base + i * size;
    switch (size) {
    case 1: *p = (unsigned char)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p, &v, 4); break; }
    default: memcpy(p, &bits, 8); break;
    }
}

/* All-ones mask of the key's width, and its sign bit. */
static inline uint64_t tool_width_mask(rdx_type t)
{
    size_t w = tool_type_bytes(t) * 8;
    return w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
}

static inline uint64_t tool_sign_bit(rdx_type t)
{
    return (uint64_t)1 << (tool_type_bytes(t) * 8 - 1);
}

/* The key order of rdx.h: maps a key's bits to an unsigned integer of the same width
 * whose unsigned order is the key order (floats: IEEE 754 totalOrder). */
static inline uint64_t tool_order_bits(rdx_type t, uint64_t bits)
{
    const uint64_t mask = tool_width_mask(t), sign = tool_sign_bit(t);
    bits &= mask;
    if (tool_type_is_signed(t))
        return bits ^ sign;
    if (tool_type_is_float(t))
        return (bits & sign) ? (~bits & mask) : (bits ^ sign);
    return bits;
}

/* The inverse of tool_order_bits. */
static inline uint64_t tool_unorder_bits(rdx_type t, uint64_t ordered)
{
    const uint64_t mask = tool_width_mask(t), sign = tool_sign_bit(t);
    ordered &= mask;
    if (tool_type_is_signed(t))
        return ordered ^ sign;
    if (tool_type_is_float(t))
        return (ordered & sign) ? (ordered ^ sign) : (~ordered & mask);
    return ordered;
}

/* 1 unless the bits are a float type's NaN or infinity. */
int tool_bits_finite(rdx_type t, uint64_t bits);

#endif
