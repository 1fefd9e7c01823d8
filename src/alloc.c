/* The library's host allocations (see alloc.h). */
#include "alloc.h"

#include <stdlib.h>

#include "inject.h"

void *rdx_host_malloc(rdx_ctx *ctx, size_t bytes)
{
    return rdx_inject_hit(ctx, RDX_INJECT_HOST_ALLOC) ? NULL : malloc(bytes);
}

void *rdx_host_calloc(rdx_ctx *ctx, size_t count, size_t size)
{
    return rdx_inject_hit(ctx, RDX_INJECT_HOST_ALLOC) ? NULL : calloc(count, size);
}

void rdx_host_free(void *p)
{
    free(p);
}
