/* The sort key of one key for the distributed sort: the key mapped as key_codec.h does
 * (with RDX_NUMPY_ORDER: every NaN one value above +inf, -0.0 as +0.0), inverted for
 * descending, bits [begin_bit, end_bit) as a w-bit unsigned integer. C11 and CUDA. */
#ifndef RDX_DIST_KEYSPEC_H
#define RDX_DIST_KEYSPEC_H

#include <stdint.h>
#include <string.h>
#include "key_codec.h"
#include "dist/dist.h"

/* The raw bits of key i of width key_size (1, 2, 4, 8 bytes). */
static RDX_HD uint64_t rdx_dist_load(const void *keys, size_t i, unsigned key_size)
{
    const unsigned char *p = (const unsigned char *)keys + i * key_size;
    switch (key_size) {
    case 1: return *p;
    case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
    default: { uint64_t x; memcpy(&x, p, 8); return x; }
    }
}

/* NumPy's float order: every NaN the same (the positive quiet NaN), -0.0 as +0.0. */
static RDX_HD uint64_t rdx_dist_numpy_canon(uint64_t x, int type)
{
    uint64_t sign, expo, mant, qnan;
    switch (type) {
    case RDX_F16: sign = 0x8000u; expo = 0x7c00u; mant = 0x03ffu; qnan = 0x7e00u; break;
    case RDX_BF16: sign = 0x8000u; expo = 0x7f80u; mant = 0x007fu; qnan = 0x7fc0u; break;
    case RDX_F32: sign = 0x80000000u; expo = 0x7f800000u; mant = 0x007fffffu; qnan = 0x7fc00000u; break;
    case RDX_F64: sign = 0x8000000000000000ull; expo = 0x7ff0000000000000ull;
                  mant = 0x000fffffffffffffull; qnan = 0x7ff8000000000000ull; break;
    default: return x;
    }
    if ((x & expo) == expo && (x & mant))
        return qnan;
    if (x == sign)
        return 0;
    return x;
}

/* The w-bit sort key of raw key bits x. */
static RDX_HD uint64_t rdx_dist_sort_key(uint64_t x, int type, unsigned key_size, int cls,
                                         int desc, int numpy, int begin_bit, int end_bit)
{
    if (numpy)
        x = rdx_dist_numpy_canon(x, type);
    return rdx_sort_bits(x, key_size, cls, desc, begin_bit, end_bit);
}

/* The top `depth` bits of a w-bit sort key (0 for depth 0). */
static RDX_HD uint64_t rdx_dist_prefix(uint64_t sk, int w, int depth)
{
    return depth == 0 ? 0 : sk >> (w - depth);
}

/* The destination rank of the key with sort key sk at local index i: the number of
 * split points (ordered, dist.h) it comes at or after, found by a binary search. */
static RDX_HD int rdx_dist_destination(const rdx_dist_split *sp, int ns, uint64_t sk, size_t i, int w)
{
    int lo = 0, hi = ns;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        const uint64_t q = rdx_dist_prefix(sk, w, sp[mid].depth);
        if (q > sp[mid].prefix || (q == sp[mid].prefix && i >= sp[mid].pos))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
