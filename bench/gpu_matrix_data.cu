/* The matrix benchmark's inputs on the device: gm_key_bits() (gpu_matrix_gen.h, the same
 * function the host test checks) for every key, stamped out per key width. */
#include <cuda_runtime.h>
#include "gpu_matrix.h"
#include "gpu_matrix_gen.h"

/* Grid-stride launches: enough blocks to fill any current GPU, few enough to be cheap. */
#define GM_THREADS 256
#define GM_MAX_BLOCKS 8192

template <typename U>
__global__ void gm_fill_kernel(U *keys, size_t n, rdx_type t, int dist, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        keys[i] = (U)gm_key_bits(dist, t, (uint64_t)i, (uint64_t)n, seed);
}

extern "C" int rdx_gm_fill_keys(void *keys, size_t n, rdx_type t, int dist, uint64_t seed)
{
    size_t b = (n + GM_THREADS - 1) / GM_THREADS;
    unsigned blocks = (unsigned)(b < 1 ? 1 : b < GM_MAX_BLOCKS ? b : GM_MAX_BLOCKS);
    if (!gm_dist_applies(dist, t)) return (int)cudaErrorInvalidValue;
    switch (rdx_type_bytes(t)) {
    case 1: gm_fill_kernel<<<blocks, GM_THREADS>>>((uint8_t *)keys, n, t, dist, seed); break;
    case 2: gm_fill_kernel<<<blocks, GM_THREADS>>>((uint16_t *)keys, n, t, dist, seed); break;
    case 4: gm_fill_kernel<<<blocks, GM_THREADS>>>((uint32_t *)keys, n, t, dist, seed); break;
    case 8: gm_fill_kernel<<<blocks, GM_THREADS>>>((uint64_t *)keys, n, t, dist, seed); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
