/* Device discovery: is a GPU usable, where does a pointer live, per-device preparation. */
#include "common.cuh"
#include "device.h"
#include "kernels.h"
#include "seg_tile.h"
#include "tuning_ctx.h"

#define RDX_MAX_DEVICES 64

/* Per device: 0 = not prepared yet, else its multiprocessor count; and whether its kernels
 * chain (common.cuh). Written once per device; a race between two threads only repeats the
 * same preparation. */
static volatile int g_sms[RDX_MAX_DEVICES], g_chains[RDX_MAX_DEVICES];
/* Per device: the kernel families it could not prepare (RDX_KERNELS_*). */
static volatile unsigned g_off[RDX_MAX_DEVICES];

/* Compiled as every kernel is: what the device runs of it tells which code it runs. */
static __global__ void arch_probe_kernel(void) {}

/* Chained launches need kernels compiled from sm_90 code or later, which only an sm_90+
 * device runs (a build for sm_80 JIT-compiled on a Hopper card has no wait in its
 * kernels: it must not chain). */
static int kernels_chain(void)
{
    struct cudaFuncAttributes fa;
    if (cudaFuncGetAttributes(&fa, arch_probe_kernel) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return fa.ptxVersion >= 90;
}

int rdx_cuda_chains(void)
{
    int dev = 0;
    return cudaGetDevice(&dev) == cudaSuccess && dev >= 0 && dev < RDX_MAX_DEVICES && g_chains[dev];
}

rdx_status rdx_cuda_fail(rdx_ctx *ctx, cudaError_t e, const char *what, const char *file, int line)
{
    (void)cudaGetLastError(); /* clear it, so that the next call starts clean */
    const rdx_status s = e == cudaErrorMemoryAllocation ? RDX_ERR_OUT_OF_MEMORY : RDX_ERR_DEVICE;
    return rdx_fail(ctx, s, "CUDA: %s failed: %s (%s:%d)", what, cudaGetErrorString(e), file, line);
}

cudaError_t rdx_kernels_init(unsigned *off)
{
    *off = 0;
    /* Required: the pass kernel takes every job the other routes decline. */
    cudaError_t e = rdx_onesweep_init();
    if (e == cudaSuccess)
        e = rdx_seg_tile_init();
    if (e != cudaSuccess)
        return e;
    /* The others are routes a job can do without: a family whose shared memory the device
     * cannot give is off there (its error cleared), and the routes before the pass
     * kernel's decline its jobs. */
    const struct {
        cudaError_t (*init)(void);
        unsigned family;
    } optional[] = {{rdx_small_init, RDX_KERNELS_SMALL}, {rdx_grid_init, RDX_KERNELS_GRID},
                    {rdx_count_init, RDX_KERNELS_COUNT}, {rdx_msd_init, RDX_KERNELS_MSD},
                    {rdx_hist_init, RDX_KERNELS_MSD}};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; ++i)
        if (optional[i].init() != cudaSuccess) {
            (void)cudaGetLastError();
            *off |= optional[i].family;
        }
    /* The cluster path is an extra: where it cannot be prepared it is off, nothing more. */
    if (rdx_cluster_init() != cudaSuccess)
        (void)cudaGetLastError();
    return cudaSuccess;
}

rdx_status rdx_cuda_device_ready(rdx_ctx *ctx, int *sms)
{
    int dev = 0;
    RDX_CUDA_TRY(cudaGetDevice(&dev));
    if (dev >= 0 && dev < RDX_MAX_DEVICES && g_sms[dev] > 0) {
        *sms = g_sms[dev];
        return RDX_OK;
    }
    int count = 0;
    RDX_CUDA_TRY(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
    unsigned off = 0;
    RDX_CUDA_TRY(rdx_kernels_init(&off));
    if (dev >= 0 && dev < RDX_MAX_DEVICES) {
        g_off[dev] = off;
        g_chains[dev] = kernels_chain();
        g_sms[dev] = count;
    }
    *sms = count;
    return RDX_OK;
}

unsigned rdx_cuda_kernels_off(void)
{
    int dev = 0;
    return cudaGetDevice(&dev) == cudaSuccess && dev >= 0 && dev < RDX_MAX_DEVICES ? g_off[dev] : 0;
}

int rdx_cuda_built(void) { return 1; }

int rdx_cuda_usable(void)
{
    static volatile int usable = -1;
    if (usable < 0) {
        int count = 0, sms = 0;
        int ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
        /* The kernels must also have an image for this GPU (an sm_90 build on an sm_80
         * card has none). */
        if (ok)
            ok = rdx_cuda_device_ready(NULL, &sms) == RDX_OK;
        (void)cudaGetLastError();
        usable = ok;
    }
    return usable;
}

/* The memory type of p, or cudaMemoryTypeUnregistered when CUDA cannot tell. */
static enum cudaMemoryType memory_type(const void *p)
{
    if (!p || !rdx_cuda_usable())
        return cudaMemoryTypeUnregistered;
    struct cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return cudaMemoryTypeUnregistered;
    }
    return at.type;
}

int rdx_cuda_is_device_pointer(const void *p) { return memory_type(p) == cudaMemoryTypeDevice; }

int rdx_cuda_device_accessible(const void *p)
{
    const enum cudaMemoryType t = memory_type(p);
    return t == cudaMemoryTypeDevice || t == cudaMemoryTypeManaged;
}

rdx_status rdx_cuda_check_array(rdx_ctx *ctx, const char *fn, const char *name, const void *p, size_t align)
{
    if (p && !rdx_cuda_device_accessible(p))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: %s is not device memory", fn, name);
    if ((uintptr_t)p % align != 0)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: %s is not aligned to its %zu-byte elements", fn, name,
                        align);
    return RDX_OK;
}
