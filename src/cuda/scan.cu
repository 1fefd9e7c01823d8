/* The scan of the up-front histograms (one block): for every pass, the exclusive prefix
 * sum over digits of the counts gives each digit's first output slot. (Within a pass, a
 * later portion's slots follow the earlier portions': the pass kernel's last tile of a
 * portion writes them, since after the first pass the keys of a portion are not the ones
 * the histogram saw there.) It also decides on the device which passes run and
 * which buffer each reads, so the host never waits for the counts (CUDA-graph safe). */
#include "common.cuh"
#include "kernels.h"
#include "rank.cuh"

#define RDX_SCAN_THREADS RDX_CUDA_MAX_BINS /* one thread per digit */
#define RDX_MAX_PASSES 64                  /* 64-bit keys, 1-bit digits */

/* Exclusive prefix sum of one 64-bit value per thread over the block. */
static __device__ __forceinline__ unsigned long long block_excl_scan_u64(unsigned long long v,
                                                                         unsigned long long *s_warp)
{
    enum { WARPS = RDX_SCAN_THREADS / 32 };
    const uint32_t lane = rdx_lane(), warp = threadIdx.x >> 5;
    const unsigned long long x = rdx_warp_incl_scan(v, lane);
    if (lane == 31)
        s_warp[warp] = x;
    __syncthreads();
    unsigned long long before = 0;
    for (uint32_t w = 0; w < warp; ++w)
        before += s_warp[w];
    __syncthreads();
    return before + x - v;
}

__global__ void __launch_bounds__(RDX_SCAN_THREADS) rdx_scan_kernel(const rdx_scan_args a)
{
    __shared__ unsigned long long s_warp[RDX_SCAN_THREADS / 32];
    __shared__ uint32_t s_active[RDX_MAX_PASSES];
    __shared__ unsigned long long s_total[RDX_HIST_MAX_CELLS];
    if (a.msd_gate && a.msd_gate[RDX_MSD_STATE] == RDX_MSD_ON)
        return;
    const uint32_t t = threadIdx.x;
    const size_t stride = (size_t)a.passes * RDX_CUDA_MAX_BINS; /* one portion's counts */
    const uint32_t bins_max = 1u << a.radix_bits;

    /* All passes' totals first: independent loads, all in flight at once. */
    for (uint32_t c = t; c < (uint32_t)a.passes * bins_max; c += RDX_SCAN_THREADS) {
        const size_t cell = (size_t)(c / bins_max) * RDX_CUDA_MAX_BINS + c % bins_max;
        unsigned long long total = 0;
        for (size_t k = 0; k < a.portions; ++k)
            total += a.counts[k * stride + cell];
        s_total[c] = total;
    }
    __syncthreads();

    for (int p = 0; p < a.passes; ++p) {
        const int shift = a.begin_bit + p * a.radix_bits;
        const uint32_t bins = 1u << min(a.radix_bits, a.end_bit - shift);
        const unsigned long long total = t < bins ? s_total[p * bins_max + t] : 0ull;
        const unsigned long long slot = block_excl_scan_u64(total, s_warp);
        if (t < bins)
            a.bases[(size_t)p * RDX_CUDA_MAX_BINS + t] = slot;
        const int one_bin = __syncthreads_or(t < bins && total == (unsigned long long)a.n);
        if (t == 0)
            s_active[p] = !one_bin;
    }
    __syncthreads();

    if (t == 0) {
        int last = -1;
        uint32_t active = 0;
        for (int p = 0; p < a.passes; ++p)
            if (s_active[p]) {
                last = p;
                ++active;
            }
        /* In place the first active pass reads A and writes B, and after an odd number of
         * active passes the result lies in B (the fix-up copies it back). With a source
         * apart from A, the first active pass reads the source and writes A when the number
         * of active passes is odd, B when it is even: the last one then writes A. */
        uint32_t from_b = a.apart ? (active & 1u) : 0u, seen = 0;
        for (int p = 0; p < a.passes; ++p) {
            uint32_t info = 0;
            if (s_active[p]) {
                info = RDX_PASS_ACTIVE | (from_b ? RDX_PASS_FROM_B : 0u) | (seen ? 0u : RDX_PASS_FIRST) |
                       (p == last ? RDX_PASS_LAST : 0u);
                seen = 1;
                from_b ^= 1u;
            }
            a.pass_info[p] = info;
        }
        *a.active = active;
        /* The MSD route (msd.cu): taken when the largest top-digit bucket holds at most
         * RDX_MSD_SKEW times the average; level 1 (the pass kernel on the top digit) reads
         * its word at ctrl[RDX_MSD_INFO + pass]. A top digit shared by every key fails the
         * test (the LSD passes skip it). */
        if (a.msd_ctrl) {
            const int top = a.passes - 1;
            unsigned long long most = 0;
            for (uint32_t d = 0; d < bins_max; ++d)
                most = s_total[top * bins_max + d] > most ? s_total[top * bins_max + d] : most;
            const int on = most * bins_max <= (unsigned long long)RDX_MSD_SKEW * a.n;
            a.msd_ctrl[RDX_MSD_STATE] = on ? RDX_MSD_LEVEL1 : RDX_MSD_OFF;
            a.msd_ctrl[RDX_MSD_INFO + top] = on ? RDX_PASS_ACTIVE | RDX_PASS_FIRST : 0u;
        }
    }
}

cudaError_t rdx_launch_scan(const rdx_scan_args *a, cudaStream_t s)
{
    if (a->passes < 1 || a->passes > RDX_MAX_PASSES || ((uint32_t)a->passes << a->radix_bits) > RDX_HIST_MAX_CELLS)
        return cudaErrorInvalidValue;
    rdx_scan_kernel<<<1, RDX_SCAN_THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}
