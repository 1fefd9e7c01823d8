/* Device-side data for the GPU benchmark: input generation, the key mapping used to build
 * the oracle, and the check of a sorted result against it. All on the device, so that
 * 2^28-key cases need no host copies. Defined in gpu_bench_data.cu; each function
 * launches on the legacy default stream and returns a cudaError_t as an int (0 = ok). */
#ifndef RDX_GPU_BENCH_DATA_H
#define RDX_GPU_BENCH_DATA_H

#include <stddef.h>
#include <stdint.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* keys[0..n) of a type (its width in bytes), in distribution dist (rdx_gpu_dist). */
int rdx_gb_fill_keys(void *keys, size_t n, rdx_type type, int dist, uint64_t seed);
/* values[0..n) = i, as value_bytes (4 or 8) unsigned integers: equal keys keep their input
 * order in a stable sort, so a value check also checks stability. */
int rdx_gb_fill_values(void *values, size_t n, unsigned value_bytes);
/* dst[i] = the key's unsigned image (key order = unsigned order; rdx.h's key order). */
int rdx_gb_encode(void *dst, const void *src, size_t n, rdx_type type);
/* The inverse, in place. */
int rdx_gb_decode(void *keys, size_t n, rdx_type type);

/* What rdx_gb_verify found. */
typedef struct rdx_gb_verdict {
    unsigned long long key_mismatch;   /* positions where keys differ from the oracle */
    unsigned long long value_mismatch; /* positions where values differ */
    unsigned long long unsorted;       /* i with key[i] after key[i+1] in key order */
    unsigned long long first_bad;      /* first position of any of the above, or n */
} rdx_gb_verdict;

/* Compares keys (and values when value_bytes > 0) bit for bit with the oracle's, and
 * checks that keys are in ascending key order. counters: device scratch of at least
 * sizeof(rdx_gb_verdict) bytes. oracle_keys may be NULL: order check only. */
int rdx_gb_verify(const void *keys, const void *values, const void *oracle_keys,
                  const void *oracle_values, size_t n, rdx_type type, unsigned value_bytes,
                  void *counters, rdx_gb_verdict *verdict);

#ifdef __cplusplus
}
#endif

#endif
