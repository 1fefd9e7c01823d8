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

/* Segment s of the call: [*lo, *hi). */
static void ref_segment(const rdx_ref_call *c, size_t s, size_t *lo, size_t *hi)
{
    if (!c->segmented) {
        *lo = 0;
        *hi = c->n;
    } else if (c->offsets) {
        *lo = c->offsets[s];
        *hi = c->offsets[s + 1];
    } else {
        *lo = s * (c->n / c->num_segments);
        *hi = *lo + c->n / c->num_segments;
    }
}

/* 1 when elements [lo, hi) of a and b (of size bytes each) are the same. */
static int same(const void *a, const void *b, size_t lo, size_t hi, size_t size)
{
    return hi <= lo || memcmp((const unsigned char *)a + lo * size, (const unsigned char *)b + lo * size,
                              (hi - lo) * size) == 0;
}

int rdx_ref_check(const rdx_ref_call *c, const void *keys0, const void *values0, const void *indices0,
                  const void *keys, const void *values, const void *indices)
{
    const size_t n = c->n, kb = rdx_type_bytes((int)c->type), vs = c->value_size;
    const size_t ib = c->kind == RDX_REF_ARGSORT ? rdx_type_bytes((int)c->index_type) : 0;
    const size_t S = c->segmented ? c->num_segments : 1;
    const unsigned char *k0 = (const unsigned char *)keys0, *k1 = (const unsigned char *)keys;
    const unsigned char *v0 = (const unsigned char *)values0, *v1 = (const unsigned char *)values;
    const unsigned char *i1 = (const unsigned char *)indices;
    /* Outside the segments [first, last): nothing changed. */
    size_t first = n, last = n, lo, hi;
    if (S > 0) {
        ref_segment(c, 0, &first, &hi);
        ref_segment(c, S - 1, &lo, &last);
    }
    const int pairs = c->kind == RDX_REF_PAIRS, args = c->kind == RDX_REF_ARGSORT;
    int ok = args ? same(k0, k1, 0, n, kb) : same(k0, k1, 0, first, kb) && same(k0, k1, last, n, kb);
    if (pairs)
        ok = ok && same(v0, v1, 0, first, vs) && same(v0, v1, last, n, vs);
    if (args)
        ok = ok && same(indices0, indices, 0, first, ib) && same(indices0, indices, last, n, ib);
    size_t *perm = (size_t *)malloc((n ? n : 1) * sizeof *perm);
    if (!perm)
        return 0;
    for (size_t s = 0; ok && s < S; s++) {
        ref_segment(c, s, &lo, &hi);
        if (rdx_ref_argsort(k0 + lo * kb, hi - lo, c->type, &c->opts, perm) != 0) {
            ok = 0;
            break;
        }
        for (size_t i = 0; ok && i < hi - lo; i++) {
            const size_t at = lo + i, from = lo + perm[i];
            if (args) {
                uint64_t x = 0;
                memcpy(&x, i1 + at * ib, ib); /* little-endian: the low ib bytes */
                ok = x == perm[i];
            } else {
                ok = memcmp(k1 + at * kb, k0 + from * kb, kb) == 0 &&
                     (!pairs || memcmp(v1 + at * vs, v0 + from * vs, vs) == 0);
            }
        }
    }
    free(perm);
    return ok;
}

int rdx_ref_put_in_order(void *keys, size_t n, rdx_type type, const rdx_opts *opts, size_t swap_at)
{
    const size_t kb = rdx_type_bytes((int)type);
    const unsigned flags = opts ? opts->flags : 0u;
    const int begin = opts ? opts->begin_bit : 0;
    const int end = opts && opts->end_bit ? opts->end_bit : (int)(8 * kb);
    unsigned char *k = (unsigned char *)keys, *copy = (unsigned char *)malloc(n * kb + 1);
    size_t *perm = (size_t *)malloc((n ? n : 1) * sizeof *perm);
    if (!copy || !perm || rdx_ref_argsort(keys, n, type, opts, perm) != 0) {
        free(copy);
        free(perm);
        return -1;
    }
    memcpy(copy, keys, n * kb);
    for (size_t i = 0; i < n; i++)
        memcpy(k + i * kb, copy + perm[i] * kb, kb);
#define SORT_KEY(i) rdx_ref_sort_key_flags(k + (i) * kb, type, flags, begin, end)
    size_t at = n; /* the pair (at, at + 1) to swap; n: none */
    if (n >= 2 && swap_at < n - 1) {
        for (size_t i = swap_at; i + 1 < n && at == n; i++)
            if (SORT_KEY(i) != SORT_KEY(i + 1))
                at = i;
        for (size_t i = swap_at; i-- > 0 && at == n;)
            if (SORT_KEY(i) != SORT_KEY(i + 1))
                at = i;
    }
#undef SORT_KEY
    if (at < n) {
        memcpy(copy, k + at * kb, kb);
        memmove(k + at * kb, k + (at + 1) * kb, kb);
        memcpy(k + (at + 1) * kb, copy, kb);
    }
    free(copy);
    free(perm);
    return 0;
}
