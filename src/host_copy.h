/* A large copy between host buffers by several threads (src/cpu/host_copy.c): one thread
 * copies at a fraction of what the memory system gives. The CUDA backend's out-of-core
 * route copies pageable arrays through pinned staging buffers with it. Plain C. */
#ifndef RDX_HOST_COPY_H
#define RDX_HOST_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void rdx_host_copy(void *dst, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* RDX_HOST_COPY_H */
