/* Device-side input generation, key mapping and result checks for the GPU benchmark
 * (see gpu_bench_data.h). Kernels are stamped out per key width (U) and value width (V). */
#include <cuda_runtime.h>
#include "gpu_bench_data.h"
#include "gpu_bench.h"
#include "gpu_matrix_gen.h"
#include "key_codec.h"

/* Grid-stride launches: enough blocks to fill any current GPU, few enough to be cheap. */
#define GB_THREADS 256
#define GB_MAX_BLOCKS 4096

static unsigned gb_blocks(size_t n)
{
    size_t b = (n + GB_THREADS - 1) / GB_THREADS;
    if (b < 1) b = 1;
    return (unsigned)(b < GB_MAX_BLOCKS ? b : GB_MAX_BLOCKS);
}

/* gm_hash, the 64-bit mix of (index, stream, seed), comes from gpu_matrix_gen.h. */

/* Unsigned image of a key and back (rdx.h's key order, ascending). */
static __device__ __forceinline__ uint8_t gb_enc(uint8_t x, int cls) { return rdx_encode_u8(x, cls, 0); }
static __device__ __forceinline__ uint16_t gb_enc(uint16_t x, int cls) { return rdx_encode_u16(x, cls, 0); }
static __device__ __forceinline__ uint32_t gb_enc(uint32_t x, int cls) { return rdx_encode_u32(x, cls, 0); }
static __device__ __forceinline__ uint64_t gb_enc(uint64_t x, int cls) { return rdx_encode_u64(x, cls, 0); }
static __device__ __forceinline__ uint8_t gb_dec(uint8_t x, int cls) { return rdx_decode_u8(x, cls, 0); }
static __device__ __forceinline__ uint16_t gb_dec(uint16_t x, int cls) { return rdx_decode_u16(x, cls, 0); }
static __device__ __forceinline__ uint32_t gb_dec(uint32_t x, int cls) { return rdx_decode_u32(x, cls, 0); }
static __device__ __forceinline__ uint64_t gb_dec(uint64_t x, int cls) { return rdx_decode_u64(x, cls, 0); }

/* The bit pattern of v as a float of the key's width (f32 or f64; other widths: none). */
template <typename U> static __device__ __forceinline__ U gb_float_bits(double v)
{
    if (sizeof(U) == 4) return (U)__float_as_uint((float)v);
    if (sizeof(U) == 8) return (U)__double_as_longlong(v);
    return (U)(int64_t)v;
}

template <typename U>
__global__ void gb_fill_keys_kernel(U *keys, size_t n, int cls, int dist, uint64_t seed)
{
    const int width = 8 * (int)sizeof(U);
    const U all = (U)~(U)0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t r = gm_hash(i, 0, seed);
        U x;
        switch (dist) {
        case RDX_GPU_LOWENTROPY:
            x = (U)(r & gm_hash(i, 1, seed) & gm_hash(i, 2, seed));
            break;
        case RDX_GPU_SORTED:
            /* Like the peer anchors: key i = i (small keys; the top digits are all zero). */
            x = cls == RDX_CLASS_FLOAT && width >= 32 ? gb_float_bits<U>((double)i) : (U)i;
            break;
        case RDX_GPU_BUCKET:
            x = (U)((U)(r & (all >> 8)) | (U)((U)0xA5 << (width - 8)));
            break;
        case RDX_GPU_EQUAL:
            x = (U)0x0123456789ABCDEFull;
            break;
        default: /* RDX_GPU_UNIFORM; floats from [-1, 1), as the CUB anchor benchmark does */
            if (cls == RDX_CLASS_FLOAT && width >= 32)
                x = gb_float_bits<U>((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
            else
                x = (U)r;
            break;
        }
        keys[i] = x;
    }
}

template <typename V> __global__ void gb_fill_values_kernel(V *values, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        values[i] = (V)i;
}

template <typename U>
__global__ void gb_encode_kernel(U *dst, const U *src, size_t n, int cls, int decode)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = decode ? gb_dec(src[i], cls) : gb_enc(src[i], cls);
}

template <typename U, typename V>
__global__ void gb_verify_kernel(const U *keys, const V *values, const U *okeys, const V *ovalues,
                                 size_t n, int cls, rdx_gb_verdict *out)
{
    unsigned long long km = 0, vm = 0, uns = 0, first = n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int bad = 0;
        U k = keys[i];
        if (okeys && k != okeys[i]) { km++; bad = 1; }
        if (values && ovalues && values[i] != ovalues[i]) { vm++; bad = 1; }
        if (i + 1 < n && gb_enc(k, cls) > gb_enc(keys[i + 1], cls)) { uns++; bad = 1; }
        if (bad && i < first) first = i;
    }
    if (km) atomicAdd(&out->key_mismatch, km);
    if (vm) atomicAdd(&out->value_mismatch, vm);
    if (uns) atomicAdd(&out->unsorted, uns);
    if (first < n) atomicMin(&out->first_bad, first);
}

extern "C" int rdx_gb_fill_keys(void *keys, size_t n, rdx_type type, int dist, uint64_t seed)
{
    int cls = rdx_type_class(type);
    switch (rdx_type_bytes(type)) {
    case 1: gb_fill_keys_kernel<<<gb_blocks(n), GB_THREADS>>>((uint8_t *)keys, n, cls, dist, seed); break;
    case 2: gb_fill_keys_kernel<<<gb_blocks(n), GB_THREADS>>>((uint16_t *)keys, n, cls, dist, seed); break;
    case 4: gb_fill_keys_kernel<<<gb_blocks(n), GB_THREADS>>>((uint32_t *)keys, n, cls, dist, seed); break;
    case 8: gb_fill_keys_kernel<<<gb_blocks(n), GB_THREADS>>>((uint64_t *)keys, n, cls, dist, seed); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

extern "C" int rdx_gb_fill_values(void *values, size_t n, unsigned value_bytes)
{
    if (value_bytes == 4)
        gb_fill_values_kernel<<<gb_blocks(n), GB_THREADS>>>((uint32_t *)values, n);
    else if (value_bytes == 8)
        gb_fill_values_kernel<<<gb_blocks(n), GB_THREADS>>>((uint64_t *)values, n);
    else
        return (int)cudaErrorInvalidValue;
    return (int)cudaGetLastError();
}

static int gb_map(void *dst, const void *src, size_t n, rdx_type type, int decode)
{
    int cls = rdx_type_class(type);
    unsigned b = gb_blocks(n);
    switch (rdx_type_bytes(type)) {
    case 1: gb_encode_kernel<<<b, GB_THREADS>>>((uint8_t *)dst, (const uint8_t *)src, n, cls, decode); break;
    case 2: gb_encode_kernel<<<b, GB_THREADS>>>((uint16_t *)dst, (const uint16_t *)src, n, cls, decode); break;
    case 4: gb_encode_kernel<<<b, GB_THREADS>>>((uint32_t *)dst, (const uint32_t *)src, n, cls, decode); break;
    case 8: gb_encode_kernel<<<b, GB_THREADS>>>((uint64_t *)dst, (const uint64_t *)src, n, cls, decode); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

extern "C" int rdx_gb_encode(void *dst, const void *src, size_t n, rdx_type type)
{
    return gb_map(dst, src, n, type, 0);
}

extern "C" int rdx_gb_decode(void *keys, size_t n, rdx_type type)
{
    return gb_map(keys, keys, n, type, 1);
}

template <typename U>
static void gb_verify_launch(const void *k, const void *v, const void *ok, const void *ov,
                             size_t n, int cls, unsigned value_bytes, rdx_gb_verdict *c)
{
    unsigned b = gb_blocks(n);
    if (value_bytes == 8)
        gb_verify_kernel<U, uint64_t><<<b, GB_THREADS>>>((const U *)k, (const uint64_t *)v,
            (const U *)ok, (const uint64_t *)ov, n, cls, c);
    else /* 4 bytes, or no values (NULL pointers) */
        gb_verify_kernel<U, uint32_t><<<b, GB_THREADS>>>((const U *)k,
            value_bytes ? (const uint32_t *)v : NULL, (const U *)ok,
            value_bytes ? (const uint32_t *)ov : NULL, n, cls, c);
}

extern "C" int rdx_gb_verify(const void *keys, const void *values, const void *oracle_keys,
                             const void *oracle_values, size_t n, rdx_type type,
                             unsigned value_bytes, void *counters, rdx_gb_verdict *verdict)
{
    rdx_gb_verdict init = {0, 0, 0, (unsigned long long)n};
    rdx_gb_verdict *c = (rdx_gb_verdict *)counters;
    int cls = rdx_type_class(type);
    cudaError_t e = cudaMemcpy(c, &init, sizeof init, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return (int)e;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return (int)cudaErrorInvalidValue;
    switch (rdx_type_bytes(type)) {
    case 1: gb_verify_launch<uint8_t>(keys, values, oracle_keys, oracle_values, n, cls, value_bytes, c); break;
    case 2: gb_verify_launch<uint16_t>(keys, values, oracle_keys, oracle_values, n, cls, value_bytes, c); break;
    case 4: gb_verify_launch<uint32_t>(keys, values, oracle_keys, oracle_values, n, cls, value_bytes, c); break;
    case 8: gb_verify_launch<uint64_t>(keys, values, oracle_keys, oracle_values, n, cls, value_bytes, c); break;
    default: return (int)cudaErrorInvalidValue;
    }
    if ((e = cudaGetLastError()) != cudaSuccess) return (int)e;
    return (int)cudaMemcpy(verdict, c, sizeof *verdict, cudaMemcpyDeviceToHost);
}
