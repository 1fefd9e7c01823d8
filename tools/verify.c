/* Checks on sort results (see verify.h). Loops run on all cores through OpenMP when the
 * tool is built with it; a benchmark verifies every run, so this must be quick. */
#include "verify.h"

#include <string.h>

#include "half.h"
#include "rng.h"
#include "types.h"

size_t tool_first_unsorted(const void *keys, size_t n, rdx_type t, int descending)
{
    const size_t ksize = rdx_type_size(t);
    size_t first = n;
    const long long count = (long long)n;
#pragma omp parallel for reduction(min : first) schedule(static)
    for (long long i = 1; i < count; i++) {
        uint64_t a = tool_order_bits(t, tool_load_bits(keys, (size_t)i - 1, ksize));
        uint64_t b = tool_order_bits(t, tool_load_bits(keys, (size_t)i, ksize));
        if (descending ? b > a : b < a)
            first = (size_t)i < first ? (size_t)i : first;
    }
    return first;
}

/* A float key's value (integers never come here). */
static double float_value(rdx_type t, uint64_t bits)
{
    switch (t) {
    case RDX_F16: return tool_f16_to_double((uint16_t)bits);
    case RDX_BF16: return tool_bf16_to_double((uint16_t)bits);
    case RDX_F32: {
        float f;
        uint32_t b = (uint32_t)bits;
        memcpy(&f, &b, 4);
        return f;
    }
    default: {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    }
}

size_t tool_first_unsorted_by_value(const void *keys, size_t n, rdx_type t)
{
    if (!tool_type_is_float(t))
        return tool_first_unsorted(keys, n, t, 0);
    const size_t ksize = rdx_type_size(t);
    size_t first = n;
    const long long count = (long long)n;
#pragma omp parallel for reduction(min : first) schedule(static)
    for (long long i = 1; i < count; i++) {
        double a = float_value(t, tool_load_bits(keys, (size_t)i - 1, ksize));
        double b = float_value(t, tool_load_bits(keys, (size_t)i, ksize));
        if (b < a)
            first = (size_t)i < first ? (size_t)i : first;
    }
    return first;
}

uint64_t tool_checksum_keys(const void *keys, size_t n, size_t key_size)
{
    uint64_t sum = 0;
    const long long count = (long long)n;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long long i = 0; i < count; i++)
        sum += tool_mix64(tool_load_bits(keys, (size_t)i, key_size) + 0x632be59bd9b4e019ull);
    return sum;
}

/* A hash of one value's bytes. */
static uint64_t value_hash(const unsigned char *v, size_t size)
{
    if (size == 4 || size == 8 || size == 2 || size == 1)
        return tool_mix64(tool_load_bits(v, 0, size) ^ 0x9e3779b97f4a7c15ull);
    uint64_t h = 0x84222325cbf29ce4ull;
    for (size_t k = 0; k < size; k++)
        h = tool_mix64(h ^ v[k]);
    return h;
}

uint64_t tool_checksum_pairs(const void *keys, size_t key_size, const void *values,
                             size_t value_size, size_t n)
{
    const unsigned char *vals = values;
    uint64_t sum = 0;
    const long long count = (long long)n;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long long i = 0; i < count; i++) {
        uint64_t k = tool_load_bits(keys, (size_t)i, key_size);
        sum += tool_mix64(tool_mix64(k) ^ value_hash(vals + (size_t)i * value_size, value_size));
    }
    return sum;
}

size_t tool_first_unstable(const void *keys, rdx_type t, const void *values,
                           size_t value_size, size_t n)
{
    const size_t ksize = rdx_type_size(t), vbytes = value_size < 8 ? value_size : 8;
    const unsigned char *vals = values;
    size_t first = n;
    const long long count = (long long)n;
#pragma omp parallel for reduction(min : first) schedule(static)
    for (long long i = 1; i < count; i++) {
        const size_t j = (size_t)i;
        if (tool_load_bits(keys, j - 1, ksize) != tool_load_bits(keys, j, ksize))
            continue;
        uint64_t a = 0, b = 0;
        memcpy(&a, vals + (j - 1) * value_size, vbytes);   /* little-endian positions */
        memcpy(&b, vals + j * value_size, vbytes);
        if (b <= a)
            first = j < first ? j : first;
    }
    return first;
}
