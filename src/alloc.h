/* Every host allocation of the library goes through these, so that tests can make any one
 * of them fail (inject.h). ctx may be NULL (no context yet). Same contracts as malloc,
 * calloc and free. */
#ifndef RDX_ALLOC_H
#define RDX_ALLOC_H

#include <stddef.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

void *rdx_host_malloc(rdx_ctx *ctx, size_t bytes);
void *rdx_host_calloc(rdx_ctx *ctx, size_t count, size_t size);
void rdx_host_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
