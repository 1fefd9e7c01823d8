/* Per-device facts the backend needs, shared by the synchronous (host.cu) and the
 * stream-ordered (async.cu) entry points. */
#ifndef RDX_CUDA_DEVICE_H
#define RDX_CUDA_DEVICE_H

#include "internal.h"

/* Prepares the current device once (kernel shared-memory limits) and gives its number of
 * multiprocessors. Records a failure on ctx. */
rdx_status rdx_cuda_device_ready(rdx_ctx *ctx, int *sms);

/* The kernel families (RDX_KERNELS_* of tuning_ctx.h) the current device, once prepared,
 * could not give their shared memory: their routes are off there. */
unsigned rdx_cuda_kernels_off(void);

/* 1 when kernels can read and write p directly (device or managed memory), else 0. */
int rdx_cuda_device_accessible(const void *p);

/* RDX_OK when the array p (NULL allowed) is memory the kernels can use in place, aligned to
 * align bytes; else RDX_ERR_INVALID_ARGUMENT with a message naming fn and name. */
rdx_status rdx_cuda_check_array(rdx_ctx *ctx, const char *fn, const char *name, const void *p, size_t align);

#endif /* RDX_CUDA_DEVICE_H */
