/* The data of rdx-lowmem-bench and rdx-outcore-bench: keys of four distributions with
 * values that are a function of their key, and a check of a sorted result on the device. */
#ifndef RDX_BENCH_LOWMEM_DATA_CUH
#define RDX_BENCH_LOWMEM_DATA_CUH

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "rdx.h"

/* A failed CUDA call ends the bench (LB_TOOL: its name, defined before the include). */
static void lb_die(const char *what, cudaError_t e)
{
    printf("%s: %s: %s\n", LB_TOOL, what, cudaGetErrorString(e));
    exit(2);
}
#define LB_CUDA(call)                                                                                         \
    do {                                                                                                      \
        cudaError_t e_ = (call);                                                                              \
        if (e_ != cudaSuccess)                                                                                \
            lb_die(#call, e_);                                                                                \
    } while (0)

enum { D_UNIFORM, D_BUCKET, D_FEW, D_EQUAL, D_N };
static const char *const dist_names[D_N] = {"uniform", "bucket", "few", "equal"};

static __device__ unsigned long long lb_mix(unsigned long long x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Keys of kb bytes (records [first, first + n) of the sequence): uniform bits, 90% in one
 * top-byte bucket, 16 values, or one value.
 * Values (vb 4 or 8): a function of the key, so that a sorted pair can be checked alone. */
static __global__ void lb_fill(void *keys, void *vals, size_t first, size_t n, int kb, int vb, int dist,
                               unsigned long long seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long r = lb_mix(seed ^ (first + i)), k;
        const int top = kb * 8 - 8;
        switch (dist) {
        case D_BUCKET: k = r % 10 ? ((0xA5ull << top) | (lb_mix(r) & ((1ull << top) - 1))) : r; break;
        case D_FEW: k = lb_mix(seed + r % 16); break;
        case D_EQUAL: k = lb_mix(seed); break;
        default: k = r; break;
        }
        if (kb == 4)
            ((uint32_t *)keys)[i] = (uint32_t)k;
        else
            ((unsigned long long *)keys)[i] = k;
        const unsigned long long kk = kb == 4 ? (uint32_t)k : k;
        if (vb == 4)
            ((uint32_t *)vals)[i] = (uint32_t)(kk * 2654435761ull);
        else if (vb == 8)
            ((unsigned long long *)vals)[i] = kk * 0x9E3779B97F4A7C15ull;
        else /* other sizes: the record's number, byte by byte (the low-memory bench only) */
            for (int b = 0; b < vb; b++)
                ((unsigned char *)vals)[i * vb + b] = (unsigned char)((first + i) >> (8 * (b % 8)));
    }
}

/* Counts keys out of order and values that do not belong to their key; sums the keys. */
static __global__ void lb_check(const void *keys, const void *vals, size_t n, int kb, int vb, unsigned long long *out)
{
    unsigned long long bad = 0, sum = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const unsigned long long k = kb == 4 ? ((const uint32_t *)keys)[i] : ((const unsigned long long *)keys)[i];
        sum += k;
        if (i + 1 < n) {
            const unsigned long long k1 =
                kb == 4 ? ((const uint32_t *)keys)[i + 1] : ((const unsigned long long *)keys)[i + 1];
            bad += k1 < k;
        }
        if (vb == 4)
            bad += ((const uint32_t *)vals)[i] != (uint32_t)(k * 2654435761ull);
        else if (vb == 8)
            bad += ((const unsigned long long *)vals)[i] != k * 0x9E3779B97F4A7C15ull;
    }
    atomicAdd(&out[0], bad);
    atomicAdd(&out[1], sum);
}

static unsigned lb_grid(size_t n) { return (unsigned)(n / 256 + 1 < 65536 ? n / 256 + 1 : 65536); }

typedef struct lb_case {
    rdx_type type;
    int kb, vb;       /* vb of an argsort: its RDX_U32 indices */
    const char *name;
    int argsort;      /* rdx_argsort into vb-byte indices */
    unsigned flags;   /* more options: RDX_NUMPY_ORDER */
} lb_case;

static int lb_parse_case(const char *s, lb_case *c)
{
    static const lb_case all[] = {{RDX_U32, 4, 0, "u32"}, {RDX_U64, 8, 0, "u64"}, {RDX_U32, 4, 4, "u32/u32"},
                                  {RDX_U64, 8, 8, "u64/u64"}, {RDX_U64, 8, 4, "u64/u32"},
                                  /* the low-memory bench only (rdx-lowmem-bench --help) */
                                  {RDX_U32, 4, 12, "u32/v12", 0, 0u}, {RDX_U32, 4, 4, "argsort/u32", 1, 0u},
                                  {RDX_F32, 4, 0, "f32/numpy", 0, RDX_NUMPY_ORDER}};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, all[i].name) == 0) {
            *c = all[i];
            return 0;
        }
    return -1;
}

/* A distribution by its name; -1 for none. */
static int lb_parse_dist(const char *s)
{
    for (int d = 0; d < D_N; d++)
        if (!strcmp(s, dist_names[d]))
            return d;
    return -1;
}

#endif /* RDX_BENCH_LOWMEM_DATA_CUH */
