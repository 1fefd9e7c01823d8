/* A stable bottom-up merge sort of (sort key, position): slow and obviously right. */
#include <stdlib.h>
#include <string.h>

#include "key_codec.h"
#include "reference.h"

uint64_t rdx_ref_sort_key(const void *key, rdx_type type, int desc, int begin_bit, int end_bit)
{
    return rdx_ref_sort_key_flags(key, type, desc ? RDX_DESCENDING : 0u, begin_bit, end_bit);
}

uint64_t rdx_ref_sort_key_flags(const void *key, rdx_type type, unsigned flags, int begin_bit,
                                int end_bit)
{
    const int desc = (flags & RDX_DESCENDING) != 0;
    const int cls = (int)rdx_type_class(type);
    uint64_t m;
    switch (rdx_type_bytes((int)type)) {
    case 1: { uint8_t v; memcpy(&v, key, 1); m = rdx_encode_u8(v, cls, desc); break; }
    case 2: { uint16_t v; memcpy(&v, key, 2); m = rdx_encode_u16(v, cls, desc); break; }
    case 4: { uint32_t v; memcpy(&v, key, 4); m = rdx_encode_u32(v, cls, desc); break; }
    default: { uint64_t v; memcpy(&v, key, 8); m = rdx_encode_u64(v, cls, desc); break; }
    }
    if ((flags & RDX_NUMPY_ORDER) && cls == RDX_CLASS_FLOAT)
        m = rdx_numpy_canon(m, rdx_type_bytes((int)type), rdx_float_inf_bits(type), desc);
    const int bits = end_bit - begin_bit;
    const uint64_t range = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    return (m >> begin_bit) & range;
}

typedef struct item {
    uint64_t key;
    size_t pos;
} item;

int rdx_ref_argsort(const void *keys, size_t n, rdx_type type, const rdx_opts *opts, size_t *perm)
{
    const size_t kb = rdx_type_bytes((int)type);
    const unsigned flags = opts ? opts->flags : 0u;
    const int begin = opts ? opts->begin_bit : 0;
    const int end = opts && opts->end_bit ? opts->end_bit : (int)(8 * kb);
    item *a = (item *)malloc((n ? n : 1) * sizeof *a), *b = (item *)malloc((n ? n : 1) * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        a[i].key = rdx_ref_sort_key_flags((const unsigned char *)keys + i * kb, type, flags, begin, end);
        a[i].pos = i;
    }
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            /* Ties take the left run first: stable. */
            while (i < mid && j < hi)
                b[k++] = a[j].key < a[i].key ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        item *t = a;
        a = b;
        b = t;
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = a[i].pos;
    free(a);
    free(b);
    return 0;
}
