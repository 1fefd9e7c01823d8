/* A context's tuning (tuning_ctx.h): the limits of tuning.h and the device's facts. */
#include "common.cuh"
#include "device.h"
#include "kernels.h"
#include "state.h"

void rdx_cuda_tuning_defaults(rdx_cuda_tuning *t)
{
    t->medium_max_n = RDX_OS_MEDIUM_MAX_N;
    t->mid_max_n = RDX_OS_MID_MAX_N;
    t->cluster_max_n = RDX_CLUSTER_MAX_N;
    t->cluster_pairs_max_n = RDX_CLUSTER_PAIRS_MAX_N;
    t->grid_max_n = RDX_GRID_MAX_N;
    t->portion_max_n = 0;
    t->msd_min_n = RDX_MSD_MIN_N;
    t->msd4_min_n = RDX_MSD4_MIN_N;
    t->msd_max_n = RDX_MSD_MAX_N;
    t->msd4_wide_max_n = RDX_MSD4_WIDE_MAX_N;
    t->msd4_counts_max_n = RDX_MSD4_COUNTS_MAX_N;
    t->msd4_pairs_mid_max_n = RDX_MSD4_PAIRS_MID_MAX_N;
    t->msd_pairs_max_n = RDX_MSD_PAIRS_MAX_N;
    t->msd_pairs_repeats = RDX_MSD_PAIRS_REPEATS;
    t->msd_deep_max_n = RDX_MSD_DEEP_MAX_N;
    t->msd_many_heavy_min_n = RDX_MSD_MANY_HEAVY_MIN_N;
    t->count_min_n = RDX_COUNT_MIN_N;
    t->count16_min_n = RDX_COUNT16_MIN_N;
    t->order_min_n = RDX_HIST_ORDER_MIN_N;
    t->numpy_lsd_min_n = RDX_NUMPY_LSD_MIN_N;
    t->numpy_plain_min_n = RDX_NUMPY_PLAIN_MIN_N;
    t->pack_min_n = RDX_PACK_PAIRS_MIN_N;
    t->pack_fast_min_n = RDX_PACK_PAIRS_FAST_MIN_N;
    t->lowmem_bytes = 0;
    t->scratch_cap = 0;
    t->outcore_chunk_bytes = 0;
    t->outcore_split = 0;
    t->device = -1;
    t->sms = 0;
    t->smem_optin = 0;
    t->cluster_launch = 0;
    t->dram_gbps = 0;
    t->kernels_off = 0;
}

rdx_status rdx_cuda_tuning_ready(rdx_ctx *ctx, rdx_cuda_tuning **out)
{
    if (!ctx->cuda)
        return rdx_fail(ctx, RDX_ERR_DEVICE, "CUDA backend: the context has no CUDA state");
    rdx_cuda_tuning *t = &ctx->cuda->tuning;
    int dev = 0, sms = 0;
    RDX_CUDA_TRY(cudaGetDevice(&dev));
    if (t->device != dev) {
        const rdx_status s = rdx_cuda_device_ready(ctx, &sms);
        if (s != RDX_OK)
            return s;
        int smem = 0, clusters = 0, mem_khz = 0, bus_bits = 0;
        RDX_CUDA_TRY(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        RDX_CUDA_TRY(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev));
        /* (a device that does not say has 0 for either: its DRAM peak unknown) */
        if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess)
            (void)cudaGetLastError();
        t->sms = sms;
        t->smem_optin = (size_t)smem;
        t->cluster_launch = clusters != 0;
        /* two transfers a clock (DDR), bus_bits / 8 bytes each */
        t->dram_gbps = (int)(2.0 * mem_khz * 1e3 * (bus_bits / 8) / 1e9);
        t->kernels_off = rdx_cuda_kernels_off();
        t->device = dev;
    }
    *out = t;
    return RDX_OK;
}

const char *rdx_cuda_msd_outcome(uint32_t state)
{
    switch (state) {
    case RDX_MSD_ON: return "msd";
    case RDX_MSD_OFF: return "onesweep (msd declined: skew)";
    case RDX_MSD_MISSED: return "onesweep (msd declined: range)";
    case RDX_MSD_IN_ORDER: return "onesweep (msd declined: in order)";
    case RDX_MSD_REVERSED: return "onesweep (msd declined: reverse order)";
    default: return "msd (inconsistent state)";
    }
}
