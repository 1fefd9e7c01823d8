/* The segmented benchmark's inputs and its order check (gpu_seg.h): segment offsets on the
 * host, keys and the per-segment order check on the device. Random numbers come from
 * gm_hash (gpu_matrix_gen.h), a function of (index, stream, seed), as elsewhere in the tool. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include "gpu_seg.h"
#include "gpu_matrix_gen.h"
#include "key_codec.h"

/* Grid-stride launches: enough blocks to fill any current GPU, few enough to be cheap. */
#define GS_THREADS 256
#define GS_MAX_BLOCKS 8192

/* gm_hash streams of this file (the keys use stream 0, as the other generators do). */
#define GS_STREAM_FLOAT_EXP 11
#define GS_STREAM_POWER 12
#define GS_STREAM_TINY 13

static unsigned gs_blocks(size_t n)
{
    size_t b = (n + GS_THREADS - 1) / GS_THREADS;
    return (unsigned)(b < 1 ? 1 : b < GS_MAX_BLOCKS ? b : GS_MAX_BLOCKS);
}

/* ---- offsets (host) ---- */

/* A growing host array of offsets. */
typedef struct gs_offsets {
    size_t *v, len, cap;
} gs_offsets;

static int gs_push(gs_offsets *o, size_t x)
{
    if (o->len == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 4096;
        size_t *v = (size_t *)realloc(o->v, cap * sizeof *v);
        if (!v) return -1;
        o->v = v;
        o->cap = cap;
    }
    o->v[o->len++] = x;
    return 0;
}

/* Lomax lengths (see RDX_GS_POWER_*) until RDX_GS_POWER_TOTAL keys. */
static int gs_powerlaw(gs_offsets *o, uint64_t seed)
{
    size_t total = 0, s;
    if (gs_push(o, 0)) return -1;
    for (s = 0; total < RDX_GS_POWER_TOTAL; s++) {
        /* u in (0, 1], so that u^(-1/alpha) stays finite */
        double u = ((double)(gm_hash(s, GS_STREAM_POWER, seed) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
        double x = RDX_GS_POWER_SCALE * (pow(u, -1.0 / RDX_GS_POWER_ALPHA) - 1.0);
        size_t len = x >= (double)RDX_GS_POWER_MAX_LEN ? RDX_GS_POWER_MAX_LEN : (size_t)x;
        if (len > RDX_GS_POWER_TOTAL - total) len = RDX_GS_POWER_TOTAL - total;
        total += len;
        if (gs_push(o, total)) return -1;
    }
    return 0;
}

/* RDX_GS_TINY_COUNT segments of 1..RDX_GS_TINY_MAX keys, the huge one in the middle. */
static int gs_huge_tiny(gs_offsets *o, uint64_t seed)
{
    size_t total = 0, s;
    if (gs_push(o, 0)) return -1;
    for (s = 0; s < RDX_GS_TINY_COUNT; s++) {
        if (s == RDX_GS_TINY_COUNT / 2) {
            total += RDX_GS_HUGE_LEN;
            if (gs_push(o, total)) return -1;
        }
        total += 1 + (size_t)(gm_hash(s, GS_STREAM_TINY, seed) % RDX_GS_TINY_MAX);
        if (gs_push(o, total)) return -1;
    }
    return 0;
}

extern "C" int rdx_gs_make_offsets(const rdx_gs_shape *s, uint64_t seed, size_t **off, size_t *num_segments,
                                   size_t *n)
{
    gs_offsets o = {NULL, 0, 0};
    int rc = -1;
    size_t r;
    switch (s->kind) {
    case RDX_GS_ROWS:
        if (s->rows == 0 || s->cols == 0) break;
        for (r = 0, rc = 0; r <= s->rows && !rc; r++) rc = gs_push(&o, r * s->cols);
        break;
    case RDX_GS_POWERLAW: rc = gs_powerlaw(&o, seed); break;
    case RDX_GS_HUGE_TINY: rc = gs_huge_tiny(&o, seed); break;
    default: break;
    }
    if (rc) {
        free(o.v);
        return -1;
    }
    *off = o.v;
    *num_segments = o.len - 1;
    *n = o.v[o.len - 1];
    return 0;
}

/* ---- keys ---- */

template <typename U> __global__ void gs_fill_kernel(U *keys, size_t n, int finite_f32, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t r = gm_hash(i, 0, seed);
        if (finite_f32) {
            uint32_t b = (uint32_t)r, e = (b >> 23) & 0xFFu;
            if (e == 0 || e == 0xFFu) /* zero, denormal, infinity or NaN: another exponent in 1..254 */
                b = (b & 0x807FFFFFu) | ((1u + (uint32_t)(gm_hash(i, GS_STREAM_FLOAT_EXP, seed) % 254u)) << 23);
            keys[i] = (U)b;
        } else {
            keys[i] = (U)r;
        }
    }
}

extern "C" int rdx_gs_fill_keys(void *keys, size_t n, rdx_type t, uint64_t seed)
{
    switch (t) {
    case RDX_U32: gs_fill_kernel<<<gs_blocks(n), GS_THREADS>>>((uint32_t *)keys, n, 0, seed); break;
    case RDX_F32: gs_fill_kernel<<<gs_blocks(n), GS_THREADS>>>((uint32_t *)keys, n, 1, seed); break;
    case RDX_U64: gs_fill_kernel<<<gs_blocks(n), GS_THREADS>>>((uint64_t *)keys, n, 0, seed); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}

/* ---- the order check ---- */

__global__ void gs_mark_kernel(unsigned char *starts, const size_t *off, size_t segs, size_t n)
{
    for (size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x; s < segs; s += (size_t)gridDim.x * blockDim.x)
        if (off[s] < off[s + 1] && off[s] < n) starts[off[s]] = 1;
}

extern "C" int rdx_gs_mark_starts(unsigned char *starts, const size_t *d_off, size_t num_segments, size_t n)
{
    cudaError_t e = cudaMemset(starts, 0, n + 1);
    if (e != cudaSuccess) return (int)e;
    if (num_segments) gs_mark_kernel<<<gs_blocks(num_segments), GS_THREADS>>>(starts, d_off, num_segments, n);
    return (int)cudaGetLastError();
}

static __device__ __forceinline__ uint32_t gs_enc(uint32_t x, int cls) { return rdx_encode_u32(x, cls, 0); }
static __device__ __forceinline__ uint64_t gs_enc(uint64_t x, int cls) { return rdx_encode_u64(x, cls, 0); }

template <typename U>
__global__ void gs_descents_kernel(const U *keys, const unsigned char *starts, size_t n, int cls,
                                   unsigned long long *count)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i + 1 < n; i += (size_t)gridDim.x * blockDim.x)
        if (!starts[i + 1] && gs_enc(keys[i], cls) > gs_enc(keys[i + 1], cls)) c++;
    if (c) atomicAdd(count, c);
}

extern "C" int rdx_gs_count_descents(const void *keys, const unsigned char *starts, size_t n, rdx_type t,
                                     void *counter, unsigned long long *count)
{
    unsigned long long *c = (unsigned long long *)counter;
    int cls = (int)rdx_type_class(t);
    cudaError_t e = cudaMemset(c, 0, sizeof *c);
    if (e != cudaSuccess) return (int)e;
    switch (rdx_type_bytes(t)) {
    case 4: gs_descents_kernel<<<gs_blocks(n), GS_THREADS>>>((const uint32_t *)keys, starts, n, cls, c); break;
    case 8: gs_descents_kernel<<<gs_blocks(n), GS_THREADS>>>((const uint64_t *)keys, starts, n, cls, c); break;
    default: return (int)cudaErrorInvalidValue;
    }
    if ((e = cudaGetLastError()) != cudaSuccess) return (int)e;
    return (int)cudaMemcpy(count, c, sizeof *count, cudaMemcpyDeviceToHost);
}

/* ---- the comparison with the reference ---- */

template <typename U, typename V>
__global__ void gs_compare_kernel(const U *k, const V *v, const U *rk, const V *rv, size_t n, rdx_gb_verdict *out)
{
    unsigned long long km = 0, vm = 0, first = n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int bad = 0;
        if (k[i] != rk[i]) { km++; bad = 1; }
        if (v && v[i] != rv[i]) { vm++; bad = 1; }
        if (bad && i < first) first = i;
    }
    if (km) atomicAdd(&out->key_mismatch, km);
    if (vm) atomicAdd(&out->value_mismatch, vm);
    if (first < n) atomicMin(&out->first_bad, first);
}

template <typename U>
static void gs_compare_launch(const void *k, const void *v, const void *rk, const void *rv, size_t n,
                              unsigned value_bytes, rdx_gb_verdict *c)
{
    if (value_bytes == 8)
        gs_compare_kernel<U, uint64_t><<<gs_blocks(n), GS_THREADS>>>((const U *)k, (const uint64_t *)v,
                                                                     (const U *)rk, (const uint64_t *)rv, n, c);
    else /* 4 bytes, or no values (NULL) */
        gs_compare_kernel<U, uint32_t><<<gs_blocks(n), GS_THREADS>>>(
            (const U *)k, value_bytes ? (const uint32_t *)v : NULL, (const U *)rk,
            value_bytes ? (const uint32_t *)rv : NULL, n, c);
}

extern "C" int rdx_gs_compare(const void *keys, const void *values, const void *ref_keys, const void *ref_values,
                              size_t n, rdx_type t, unsigned value_bytes, void *counters, rdx_gb_verdict *verdict)
{
    rdx_gb_verdict init = {0, 0, 0, (unsigned long long)n};
    rdx_gb_verdict *c = (rdx_gb_verdict *)counters;
    cudaError_t e;
    if (value_bytes != 0 && value_bytes != 4 && value_bytes != 8) return (int)cudaErrorInvalidValue;
    if ((e = cudaMemcpy(c, &init, sizeof init, cudaMemcpyHostToDevice)) != cudaSuccess) return (int)e;
    switch (rdx_type_bytes(t)) {
    case 4: gs_compare_launch<uint32_t>(keys, values, ref_keys, ref_values, n, value_bytes, c); break;
    case 8: gs_compare_launch<uint64_t>(keys, values, ref_keys, ref_values, n, value_bytes, c); break;
    default: return (int)cudaErrorInvalidValue;
    }
    if ((e = cudaGetLastError()) != cudaSuccess) return (int)e;
    return (int)cudaMemcpy(verdict, c, sizeof *verdict, cudaMemcpyDeviceToHost);
}
