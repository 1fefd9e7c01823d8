/* Per-device facts the backend needs, shared by the synchronous (host.cu) and the
 * stream-ordered (async.cu) entry points. */
#ifndef RDX_CUDA_DEVICE_H
#define RDX_CUDA_DEVICE_H

#include "internal.h"

/* Prepares the current device once (kernel shared-memory limits) and gives its number of
 * multiprocessors. Records a failure on ctx. */
rdx_status rdx_cuda_device_ready(rdx_ctx *ctx, int *sms);

/* 1 when kernels can read and write p directly (device or managed memory), else 0. */
int rdx_cuda_device_accessible(const void *p);

#endif /* RDX_CUDA_DEVICE_H */
