/* The scan of the up-front histograms (one block): for every pass, the exclusive prefix
 * sum over digits of the counts gives each digit's first output slot. (Within a pass, a
 * later portion's slots follow the earlier portions': the pass kernel's last tile of a
 * portion writes them, since after the first pass the keys of a portion are not the ones
 * the histogram saw there.) It also decides on the device which passes run and
 * which buffer each reads, so the host never waits for the counts (CUDA-graph safe): none
 * where the histogram found the keys already in order, the first alone (which reverses
 * them) where it found them in the reverse order. */
#include "common.cuh"
#include "hist.cuh"
#include "kernels.h"
#include "rank.cuh"

#define RDX_SCAN_THREADS RDX_CUDA_MAX_BINS /* one thread per digit */
#define RDX_MAX_PASSES 64                  /* 64-bit keys, 1-bit digits */

__global__ void __launch_bounds__(RDX_SCAN_THREADS) rdx_scan_kernel(const rdx_scan_args a)
{
    rdx_chain_enter();
    __shared__ uint32_t s_active[RDX_MAX_PASSES], s_few[RDX_MAX_PASSES], s_crowded[RDX_MAX_PASSES];
    __shared__ unsigned long long s_total[RDX_HIST_MAX_CELLS];
    const uint32_t t = threadIdx.x;
    const size_t stride = (size_t)a.passes * RDX_CUDA_MAX_BINS; /* one portion's counts */
    const uint32_t bins_max = 1u << a.radix_bits;
    /* The MSD route falls back (its sample missed the keys' range, or a top digit holds too
     * many keys for level 2): the LSD passes run on the recount. */
    const bool missed = a.msd_ctrl && a.msd_ctrl[RDX_MSD_STATE] == RDX_MSD_LEVEL1 &&
                        rdx_msd_falls_back(a.msd_ctrl, a.end_bit, a.top);
    const uint32_t *counts = missed ? a.counts + stride * a.portions : a.counts;
    /* The histogram's launches checked the keys' order (rdx_hist_args.unsorted): in order,
     * or (where it looked) in the reverse order. */
    const uint32_t kinds = a.unsorted ? *a.unsorted : RDX_ORDER_DESCENT | RDX_ORDER_ASCENT;
    const bool in_order = !(kinds & RDX_ORDER_DESCENT);
    const bool reverse = a.reverse_ok && kinds == RDX_ORDER_DESCENT;
    const bool msd_armed = a.msd_ctrl && a.msd_ctrl[RDX_MSD_STATE] == RDX_MSD_LEVEL1;

    /* All passes' totals first: a thread's cells are summed in registers, a portion at a
     * time, so that its loads of one portion are all in flight at once (a loop over the
     * cells with a store to shared memory in it waited for each load in turn). */
    enum { PER_THREAD = RDX_HIST_MAX_CELLS / RDX_SCAN_THREADS };
    static_assert(RDX_HIST_MAX_CELLS % RDX_SCAN_THREADS == 0, "whole cells per thread");
    const uint32_t cells = (uint32_t)a.passes * bins_max;
    unsigned long long total[PER_THREAD];
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j)
        total[j] = 0;
    for (size_t k = 0; k < a.portions; ++k) {
#pragma unroll
        for (int j = 0; j < PER_THREAD; ++j) {
            const uint32_t c = t + (uint32_t)j * RDX_SCAN_THREADS;
            if (c < cells)
                total[j] += counts[k * stride + (size_t)(c >> a.radix_bits) * RDX_CUDA_MAX_BINS + (c & (bins_max - 1u))];
        }
    }
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
        const uint32_t c = t + (uint32_t)j * RDX_SCAN_THREADS;
        if (c < cells)
            s_total[c] = total[j];
    }
    __syncthreads();

    /* Each warp scans whole passes (warp w: passes w, w + WARPS, ...), lane l the digits
     * [l * PER_LANE, (l + 1) * PER_LANE): no block barrier per pass (a block-wide scan per
     * pass, three barriers each, took 7 us for four passes on an H200). */
    enum { WARPS = RDX_SCAN_THREADS / 32, PER_LANE = RDX_CUDA_MAX_BINS / 32 };
    const uint32_t lane = rdx_lane();
    for (int p = (int)(t >> 5); p < a.passes; p += WARPS) {
        const int shift = a.begin_bit + p * a.radix_bits;
        const uint32_t bins = 1u << min(a.radix_bits, a.end_bit - shift);
        unsigned long long v[PER_LANE], sum = 0;
        bool one_bin = false; /* a digit holds every key: the pass moves nothing */
        uint32_t used = 0;    /* digits that occur */
        unsigned long long most = 0; /* the largest digit's keys, and the digit */
        uint32_t hot = 0;
#pragma unroll
        for (int i = 0; i < PER_LANE; ++i) {
            const uint32_t d = lane * PER_LANE + i;
            v[i] = d < bins ? s_total[p * bins_max + d] : 0ull;
            one_bin |= d < bins && v[i] == (unsigned long long)a.n;
            used += v[i] != 0ull;
            if (v[i] > most) {
                most = v[i];
                hot = d;
            }
            sum += v[i];
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            const unsigned long long m2 = __shfl_xor_sync(RDX_FULL_WARP, most, o);
            const uint32_t h2 = __shfl_xor_sync(RDX_FULL_WARP, hot, o);
            if (m2 > most || (m2 == most && h2 < hot)) {
                most = m2;
                hot = h2;
            }
        }
        /* one digit holds more than n >> RDX_RANK_ANY_CROWD_LOG2 keys */
        const bool crowded = most > (unsigned long long)(a.n >> RDX_RANK_ANY_CROWD_LOG2);
        used = __reduce_add_sync(RDX_FULL_WARP, used);
        unsigned long long slot = rdx_warp_incl_scan(sum, lane) - sum;
#pragma unroll
        for (int i = 0; i < PER_LANE; ++i) {
            const uint32_t d = lane * PER_LANE + i;
            if (d < bins)
                a.bases[(size_t)p * RDX_CUDA_MAX_BINS + d] = slot;
            slot += v[i];
        }
        one_bin = __any_sync(RDX_FULL_WARP, one_bin);
        if (lane == 0) {
            s_active[p] = reverse ? p == 0 : !one_bin && !in_order;
            s_few[p] = used <= RDX_RANK_FEW_DIGITS;
            s_crowded[p] = crowded ? RDX_PASS_CROWDED | hot << RDX_PASS_HOT_SHIFT : 0u;
        }
    }
    __syncthreads();

    if (t == 0) {
        if (missed || (msd_armed && (in_order || reverse))) {
            a.msd_ctrl[RDX_MSD_STATE] = in_order ? RDX_MSD_IN_ORDER : reverse ? RDX_MSD_REVERSED : RDX_MSD_MISSED;
            a.msd_ctrl[RDX_MSD_INFO + a.passes - 1] = 0u; /* level 1 returns at once */
        }
        rdx_plan_passes(s_active, a.passes, a.apart, a.pass_info, a.active);
        for (int p = 0; p < a.passes; ++p)
            if (a.pass_info[p])
                a.pass_info[p] |= (s_few[p] ? RDX_PASS_FEW : 0u) | s_crowded[p];
        if (reverse) /* one pass, which reverses the keys (onesweep.cu) */
            a.pass_info[0] |= RDX_PASS_REVERSE;
    }
}

cudaError_t rdx_launch_scan(const rdx_scan_args *a, cudaStream_t s)
{
    if (a->passes < 1 || a->passes > RDX_MAX_PASSES || ((uint32_t)a->passes << a->radix_bits) > RDX_HIST_MAX_CELLS)
        return cudaErrorInvalidValue;
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, 1, RDX_SCAN_THREADS, 0, s), rdx_scan_kernel, *a);
}
