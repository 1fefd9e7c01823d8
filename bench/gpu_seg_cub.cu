/* The segmented benchmark's CUB peers behind the C interface of gpu_seg.h. Each
 * instantiation is a large compile, so only the benchmark's cases are stamped out. */
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <limits.h>
#include <stdint.h>
#include "gpu_seg.h"

/* DeviceSegmentedSort takes 64-bit counts; DeviceSegmentedRadixSort takes int counts (and
 * int offsets inside), hence the int offsets for both and the INT_MAX check below. */
template <typename K>
static cudaError_t gs_cub_keys(int algo, void *temp, size_t *bytes, const void *kin, void *kout, size_t n,
                               size_t segs, const int *off)
{
    if (algo == RDX_GS_CUB_SEGSORT)
        return cub::DeviceSegmentedSort::StableSortKeys(temp, *bytes, (const K *)kin, (K *)kout, (int64_t)n,
                                                        (int64_t)segs, off, off + 1);
    return cub::DeviceSegmentedRadixSort::SortKeys(temp, *bytes, (const K *)kin, (K *)kout, (int)n, (int)segs, off,
                                                   off + 1);
}

template <typename K, typename V>
static cudaError_t gs_cub_pairs(int algo, void *temp, size_t *bytes, const void *kin, void *kout, const void *vin,
                                void *vout, size_t n, size_t segs, const int *off)
{
    if (algo == RDX_GS_CUB_SEGSORT)
        return cub::DeviceSegmentedSort::StableSortPairs(temp, *bytes, (const K *)kin, (K *)kout, (const V *)vin,
                                                         (V *)vout, (int64_t)n, (int64_t)segs, off, off + 1);
    return cub::DeviceSegmentedRadixSort::SortPairs(temp, *bytes, (const K *)kin, (K *)kout, (const V *)vin,
                                                    (V *)vout, (int)n, (int)segs, off, off + 1);
}

extern "C" int rdx_gs_cub_sort(int algo, rdx_type key, unsigned value_bytes, void *temp, size_t *temp_bytes,
                               const void *kin, void *kout, const void *vin, void *vout, size_t n,
                               size_t num_segments, const int *d_off)
{
    if ((algo != RDX_GS_CUB_SEGSORT && algo != RDX_GS_CUB_SEGRADIX) || !d_off || !temp_bytes)
        return (int)cudaErrorInvalidValue;
    if (n > (size_t)INT_MAX || num_segments > (size_t)INT_MAX) return (int)cudaErrorInvalidValue;
    if (value_bytes == 0) {
        switch (key) {
        case RDX_U32: return (int)gs_cub_keys<uint32_t>(algo, temp, temp_bytes, kin, kout, n, num_segments, d_off);
        case RDX_F32: return (int)gs_cub_keys<float>(algo, temp, temp_bytes, kin, kout, n, num_segments, d_off);
        case RDX_U64: return (int)gs_cub_keys<uint64_t>(algo, temp, temp_bytes, kin, kout, n, num_segments, d_off);
        default: return -1;
        }
    }
    if (key == RDX_U32 && value_bytes == 4)
        return (int)gs_cub_pairs<uint32_t, uint32_t>(algo, temp, temp_bytes, kin, kout, vin, vout, n, num_segments,
                                                     d_off);
    if (key == RDX_F32 && value_bytes == 4)
        return (int)gs_cub_pairs<float, uint32_t>(algo, temp, temp_bytes, kin, kout, vin, vout, n, num_segments,
                                                  d_off);
    if (key == RDX_U64 && value_bytes == 8)
        return (int)gs_cub_pairs<uint64_t, uint64_t>(algo, temp, temp_bytes, kin, kout, vin, vout, n, num_segments,
                                                     d_off);
    return -1;
}
