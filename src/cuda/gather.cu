/* Data movement around the passes: the fix-up after the last pass (copy back from the
 * scratch buffer after an odd number of passes of an in-place sort; when no pass ran, the
 * copy of a separate input to the output, or the identity permutation for an argsort)
 * and the gather of values of other sizes by the sorted indices. */
#include "common.cuh"
#include "kernels.h"

/* Grid-stride copy of `units` elements of U. */
template <typename U>
static __device__ __forceinline__ void copy_units(U *dst, const U *src, size_t units)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < units; i += stride)
        dst[i] = src[i];
}

/* Copies bytes with the widest unit both pointers' alignment allows. */
static __device__ void copy_bytes(void *dst, const void *src, size_t bytes)
{
    const uintptr_t al = (uintptr_t)dst | (uintptr_t)src;
    size_t done = 0;
    if (al % 16 == 0) {
        copy_units((uint4 *)dst, (const uint4 *)src, bytes / 16);
        done = bytes / 16 * 16;
    } else if (al % 8 == 0) {
        copy_units((unsigned long long *)dst, (const unsigned long long *)src, bytes / 8);
        done = bytes / 8 * 8;
    } else if (al % 4 == 0) {
        copy_units((uint32_t *)dst, (const uint32_t *)src, bytes / 4);
        done = bytes / 4 * 4;
    }
    copy_units((uint8_t *)dst + done, (const uint8_t *)src + done, bytes - done);
}

__global__ void __launch_bounds__(RDX_COPY_THREADS) rdx_fixup_kernel(const rdx_fixup_args a)
{
    rdx_chain_enter();
    if (a.msd_ctrl && a.msd_ctrl[RDX_MSD_STATE] == RDX_MSD_ON)
        return; /* the MSD route left the result in A */
    const uint32_t active = *a.active;
    if (active == 0) { /* no pass ran: the input order is the sorted order */
        if (a.key_bytes && a.keys_src != a.keys_a)
            copy_bytes(a.keys_a, a.keys_src, a.key_bytes);
        if (a.iota) { /* the permutation is the identity */
            const size_t stride = (size_t)gridDim.x * blockDim.x;
            for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride) {
                if (a.index_bytes == 4)
                    ((uint32_t *)a.vals_a)[i] = (uint32_t)i;
                else
                    ((unsigned long long *)a.vals_a)[i] = i;
            }
        } else if (a.val_bytes && a.vals_src != a.vals_a) {
            copy_bytes(a.vals_a, a.vals_src, a.val_bytes);
        }
        return;
    }
    if ((active & 1u) && !a.apart) { /* in place: the last pass wrote buffer B */
        if (a.key_bytes)
            copy_bytes(a.keys_a, a.keys_b, a.key_bytes);
        if (a.val_bytes)
            copy_bytes(a.vals_a, a.vals_b, a.val_bytes);
    }
}

unsigned rdx_copy_grid(size_t work, int sms)
{
    return rdx_resident_grid((work + RDX_COPY_THREADS - 1) / RDX_COPY_THREADS, sms, RDX_COPY_BLOCKS_PER_SM, 1);
}

cudaError_t rdx_launch_fixup(const rdx_fixup_args *a, int sms, cudaStream_t s)
{
    rdx_chain_launch l;
    return cudaLaunchKernelEx(rdx_chain_config(&l, rdx_copy_grid(a->n, sms), RDX_COPY_THREADS, 0, s), rdx_fixup_kernel, *a);
}

/* dst[i] = src[idx[i]], values of `per` units of U each. */
template <typename U, typename I>
__global__ void __launch_bounds__(RDX_COPY_THREADS) rdx_gather_kernel(U *dst, const U *src, const I *idx, size_t n,
                                                                      size_t per)
{
    rdx_chain_enter();
    const size_t total = n * per, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const size_t i = t / per, j = t - i * per;
        dst[t] = src[(size_t)idx[i] * per + j];
    }
}

template <typename U>
static cudaError_t launch_gather_unit(void *dst, const void *src, const void *idx, int index_bytes, size_t n,
                                      size_t value_size, int sms, cudaStream_t s)
{
    const size_t per = value_size / sizeof(U);
    const unsigned grid = rdx_copy_grid(n * per, sms);
    rdx_chain_launch l;
    const cudaLaunchConfig_t *c = rdx_chain_config(&l, grid, RDX_COPY_THREADS, 0, s);
    if (index_bytes == 4)
        return cudaLaunchKernelEx(c, rdx_gather_kernel<U, uint32_t>, (U *)dst, (const U *)src, (const uint32_t *)idx, n,
                                  per);
    return cudaLaunchKernelEx(c, rdx_gather_kernel<U, unsigned long long>, (U *)dst, (const U *)src,
                              (const unsigned long long *)idx, n, per);
}

cudaError_t rdx_launch_gather(void *dst, const void *src, const void *idx, int index_bytes, size_t n,
                              size_t value_size, int sms, cudaStream_t s)
{
    /* The widest unit that divides the value size and both arrays' alignment. */
    const uintptr_t al = (uintptr_t)dst | (uintptr_t)src | (uintptr_t)value_size;
    if (al % 16 == 0)
        return launch_gather_unit<uint4>(dst, src, idx, index_bytes, n, value_size, sms, s);
    if (al % 8 == 0)
        return launch_gather_unit<unsigned long long>(dst, src, idx, index_bytes, n, value_size, sms, s);
    if (al % 4 == 0)
        return launch_gather_unit<uint32_t>(dst, src, idx, index_bytes, n, value_size, sms, s);
    if (al % 2 == 0)
        return launch_gather_unit<uint16_t>(dst, src, idx, index_bytes, n, value_size, sms, s);
    return launch_gather_unit<uint8_t>(dst, src, idx, index_bytes, n, value_size, sms, s);
}
