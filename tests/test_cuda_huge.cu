/* Huge sizes on the CUDA backend: with RDX_TEST_HUGE=1 (gpu-check.sh sets it), 2^32 + 7
 * one-byte keys on the device, with 8-bit and 3-bit digits (several portions, 64-bit
 * slots); each result checked on the device (the same count of every value before and
 * after, no descent). Exits 77 (a skip to ctest) where no GPU is usable or the GPU has
 * too little free memory for them; without RDX_TEST_HUGE=1 it says so and passes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx.h"
extern "C" {
#include "check.h"
#include "suite.h"
}
#include "cuda_die.h"

/* ---- more than 2^32 keys ---- */

__global__ void gen_u8(unsigned char *k, size_t n, uint64_t salt)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (i + salt) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
        k[i] = (unsigned char)(z >> 56);
    }
}

__global__ void count_u8(const unsigned char *k, size_t n, unsigned long long *hist, unsigned long long *desc)
{
    __shared__ unsigned int h[256];
    for (int j = threadIdx.x; j < 256; j += blockDim.x)
        h[j] = 0;
    __syncthreads();
    unsigned long long bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        atomicAdd(&h[k[i]], 1u);
        if (i + 1 < n && k[i] > k[i + 1])
            ++bad;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < 256; j += blockDim.x)
        atomicAdd(&hist[j], (unsigned long long)h[j]);
    if (bad)
        atomicAdd(desc, bad);
}

/* Sorts n device keys made from salt with opts, and checks: same count of every value
 * before and after, and no descent. */
static void huge_one(rdx_ctx *ctx, unsigned char *dk, size_t n, unsigned long long *dc, const rdx_opts *opts,
                     uint64_t salt, const char *what)
{
    CUDA_OR_DIE(cudaMemset(dc, 0, 2 * 257 * 8));
    gen_u8<<<2048, 256>>>(dk, n, salt);
    count_u8<<<2048, 256>>>(dk, n, dc, dc + 256);
    CUDA_OR_DIE(cudaDeviceSynchronize());
    const rdx_status st = rdx_sort_keys(ctx, dk, n, RDX_U8, opts);
    CHECK(st == RDX_OK, "%s: %s", what, rdx_ctx_error(ctx));
    count_u8<<<2048, 256>>>(dk, n, dc + 257, dc + 257 + 256);
    CUDA_OR_DIE(cudaDeviceSynchronize());
    unsigned long long c[2 * 257];
    CUDA_OR_DIE(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
    int same = 1;
    unsigned long long total = 0;
    for (int j = 0; j < 256; j++) {
        same &= c[j] == c[257 + j];
        total += c[257 + j];
    }
    CHECK(same && total == n, "%s: the sorted keys are not the keys that went in", what);
    CHECK(c[257 + 256] == 0, "%s: %llu places out of order", what, c[257 + 256]);
    printf("huge: %s: %s\n", what, st == RDX_OK && same && c[257 + 256] == 0 ? "ok" : "FAILED");
}

/* 1 where the GPU has too little free memory (a skip, not a pass), else 0. */
static int huge(rdx_ctx *ctx)
{
    const size_t n = ((size_t)1 << 32) + 7;
    size_t free_b = 0, total_b = 0;
    CUDA_OR_DIE(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < 3 * n) {
        printf("huge: skipped, the GPU has %zu bytes free and 2^32 + 7 keys need about %zu\n", free_b, 3 * n);
        return 1;
    }
    unsigned char *dk;
    unsigned long long *dc;
    CUDA_OR_DIE(cudaMalloc(&dk, n));
    CUDA_OR_DIE(cudaMalloc(&dc, 2 * 257 * 8));
    const rdx_opts r8 = {0, 0, 0, 0}, r3 = {0, 0, 0, 3};
    huge_one(ctx, dk, n, dc, &r8, seed, "2^32 + 7 u8 keys, 8-bit digits");
    huge_one(ctx, dk, n, dc, &r3, seed ^ 1, "2^32 + 7 u8 keys, 3-bit digits");
    cudaFree(dk);
    cudaFree(dc);
    return 0;
}

int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    const char *e = getenv("RDX_TEST_HUGE");
    int skipped = 0;
    if (e && strcmp(e, "1") == 0)
        skipped = huge(ctx);
    else
        printf("huge: not run (set RDX_TEST_HUGE=1 for 2^32 + 7 keys)\n");
    rdx_ctx_destroy(ctx);
    if (skipped && !failures)
        return 77;
    printf("test_cuda_huge: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
