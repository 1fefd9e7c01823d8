/* CUB and thrust behind the C interface of gpu_bench_peers.h. Each instantiation of CUB's
 * radix sort is a large compile, so only the benchmark's cases are stamped out. */
#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <stdint.h>
#include "gpu_bench_peers.h"

/* The count type of the sorts below (rdx_gb_cub_count_bits). */
static int g_count_bits = 64;

/* Separate input and output buffers (CUB's temporary storage then holds one more copy of
 * the data); temp == NULL asks for the size. */
template <typename K>
static cudaError_t gb_cub_keys(void *temp, size_t *bytes, const void *kin, void *kout, size_t n)
{
    if (g_count_bits == 32 && n <= (size_t)INT32_MAX)
        return cub::DeviceRadixSort::SortKeys(temp, *bytes, (const K *)kin, (K *)kout, (int)n);
    return cub::DeviceRadixSort::SortKeys(temp, *bytes, (const K *)kin, (K *)kout, (int64_t)n);
}

template <typename K, typename V>
static cudaError_t gb_cub_pairs(void *temp, size_t *bytes, const void *kin, void *kout,
                                const void *vin, void *vout, size_t n)
{
    if (g_count_bits == 32 && n <= (size_t)INT32_MAX)
        return cub::DeviceRadixSort::SortPairs(temp, *bytes, (const K *)kin, (K *)kout, (const V *)vin, (V *)vout,
                                               (int)n);
    return cub::DeviceRadixSort::SortPairs(temp, *bytes, (const K *)kin, (K *)kout, (const V *)vin, (V *)vout,
                                           (int64_t)n);
}

/* One dispatch for the size query (temp NULL) and the sort. */
static int gb_cub(rdx_type key, unsigned value_bytes, void *temp, size_t *bytes,
                  const void *kin, void *kout, const void *vin, void *vout, size_t n)
{
    if (value_bytes == 0) {
        switch (key) {
        case RDX_U8: return (int)gb_cub_keys<uint8_t>(temp, bytes, kin, kout, n);
        case RDX_U16: return (int)gb_cub_keys<uint16_t>(temp, bytes, kin, kout, n);
        case RDX_U32: return (int)gb_cub_keys<uint32_t>(temp, bytes, kin, kout, n);
        case RDX_I32: return (int)gb_cub_keys<int32_t>(temp, bytes, kin, kout, n);
        case RDX_F32: return (int)gb_cub_keys<float>(temp, bytes, kin, kout, n);
        case RDX_U64: return (int)gb_cub_keys<uint64_t>(temp, bytes, kin, kout, n);
        case RDX_I64: return (int)gb_cub_keys<int64_t>(temp, bytes, kin, kout, n);
        case RDX_F64: return (int)gb_cub_keys<double>(temp, bytes, kin, kout, n);
        default: return -1;
        }
    }
    if (key == RDX_U32 && value_bytes == 4)
        return (int)gb_cub_pairs<uint32_t, uint32_t>(temp, bytes, kin, kout, vin, vout, n);
    if (key == RDX_U32 && value_bytes == 8)
        return (int)gb_cub_pairs<uint32_t, uint64_t>(temp, bytes, kin, kout, vin, vout, n);
    if (key == RDX_U64 && value_bytes == 4)
        return (int)gb_cub_pairs<uint64_t, uint32_t>(temp, bytes, kin, kout, vin, vout, n);
    if (key == RDX_U64 && value_bytes == 8)
        return (int)gb_cub_pairs<uint64_t, uint64_t>(temp, bytes, kin, kout, vin, vout, n);
    return -1;
}

extern "C" int rdx_gb_cub_supports(rdx_type key, unsigned value_bytes)
{
    if (value_bytes == 0)
        return key == RDX_U8 || key == RDX_U16 || key == RDX_U32 || key == RDX_I32 || key == RDX_F32 || key == RDX_U64 ||
               key == RDX_I64 || key == RDX_F64;
    return (key == RDX_U32 || key == RDX_U64) && (value_bytes == 4 || value_bytes == 8);
}

extern "C" void rdx_gb_cub_count_bits(int bits) { g_count_bits = bits == 32 ? 32 : 64; }

extern "C" int rdx_gb_cub_temp_bytes(rdx_type key, unsigned value_bytes, size_t n, size_t *bytes)
{
    const int was = g_count_bits;
    size_t wide = 0, narrow = 0;
    g_count_bits = 64;
    int rc = gb_cub(key, value_bytes, NULL, &wide, NULL, NULL, NULL, NULL, n);
    g_count_bits = 32;
    if (rc == 0)
        rc = gb_cub(key, value_bytes, NULL, &narrow, NULL, NULL, NULL, NULL, n);
    g_count_bits = was;
    *bytes = wide > narrow ? wide : narrow;
    return rc;
}

extern "C" int rdx_gb_cub_sort(rdx_type key, unsigned value_bytes, void *temp, size_t temp_bytes,
                               const void *kin, void *kout, const void *vin, void *vout, size_t n)
{
    if (temp == NULL) return (int)cudaErrorInvalidValue; /* NULL would be a size query */
    return gb_cub(key, value_bytes, temp, &temp_bytes, kin, kout, vin, vout, n);
}

extern "C" int rdx_gb_thrust_supports(rdx_type key)
{
    return key == RDX_U32 || key == RDX_U64;
}

/* thrust reports failures by throwing; this C interface turns that into an error code. */
extern "C" int rdx_gb_thrust_sort(rdx_type key, void *keys, size_t n)
{
    try {
        if (key == RDX_U32)
            thrust::sort(thrust::device, (uint32_t *)keys, (uint32_t *)keys + n);
        else if (key == RDX_U64)
            thrust::sort(thrust::device, (uint64_t *)keys, (uint64_t *)keys + n);
        else
            return -1;
    } catch (...) {
        cudaError_t e = cudaGetLastError();
        return e != cudaSuccess ? (int)e : (int)cudaErrorUnknown;
    }
    return (int)cudaDeviceSynchronize();
}
