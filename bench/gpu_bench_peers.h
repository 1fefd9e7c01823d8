/* The GPU peers of the benchmark, behind a C interface: CUB DeviceRadixSort (separate input
 * and output buffers, temporary storage from the caller) and thrust::sort. Defined in
 * gpu_bench_peers.cu; everything runs on the legacy default stream. Each function returns
 * a cudaError_t as an int (0 = ok), or -1 where the peer is not built for the case. */
#ifndef RDX_GPU_BENCH_PEERS_H
#define RDX_GPU_BENCH_PEERS_H

#include <stddef.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when CUB is instantiated for keys of this type with values of value_bytes (0 = none):
 * keys u8 u16 (for the matrix, gpu_matrix.cu) u32 i32 f32 u64 i64 f64; pairs u32 or u64 keys with 4- or 8-byte values. */
int rdx_gb_cub_supports(rdx_type key, unsigned value_bytes);
/* CUB's count type for the sorts that follow: 64 (int64_t, the default) or 32 (int; only
 * below 2^31 items). CUB tunes by it and neither is the faster everywhere (H200, round 23:
 * u32/u32 at 2^28 7.45 ms with int against 8.53 with int64_t, u32 keys 6.34 against
 * 5.45), so the benchmarks time both and keep the faster. */
void rdx_gb_cub_count_bits(int bits);
/* The temporary storage CUB asks for to sort n items of the case (either count type). */
int rdx_gb_cub_temp_bytes(rdx_type key, unsigned value_bytes, size_t n, size_t *bytes);
/* CUB SortKeys (values NULL, value_bytes 0) or SortPairs from (kin, vin) into (kout, vout);
 * asynchronous. */
int rdx_gb_cub_sort(rdx_type key, unsigned value_bytes, void *temp, size_t temp_bytes,
                    const void *kin, void *kout, const void *vin, void *vout, size_t n);

/* 1 when thrust::sort is built for keys of this type (u32, u64). */
int rdx_gb_thrust_supports(rdx_type key);
/* thrust::sort of keys in place, allocating its own scratch as thrust does; synchronous. */
int rdx_gb_thrust_sort(rdx_type key, void *keys, size_t n);

#ifdef __cplusplus
}
#endif

#endif
