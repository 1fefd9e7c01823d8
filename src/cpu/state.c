/* The scratch a context keeps for the CPU backend: buffers that grow when a call needs
 * more and are reused by later calls; freed with the context. */
#include <stdlib.h>

#include "alloc.h"

#include "cpu.h"

void *rdx_cpu_reserve(rdx_ctx *ctx, int which, size_t count, size_t size, const char *what)
{
    if (!ctx->cpu) {
        ctx->cpu = (struct rdx_cpu_state *)rdx_host_calloc(ctx, 1, sizeof *ctx->cpu);
        if (!ctx->cpu) {
            rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "CPU backend: no memory for its state");
            return NULL;
        }
    }
    if (size != 0 && count > SIZE_MAX / size) {
        rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                 "CPU backend: %zu x %zu bytes of %s scratch exceed the address space", count,
                 size, what);
        return NULL;
    }
    size_t bytes = count * size;
    if (bytes == 0)
        bytes = 1;
    rdx_cpu_buffer *b = &ctx->cpu->buf[which];
    if (b->bytes >= bytes)
        return b->p;
    /* The old contents are not needed: free first, so the peak is the new size only. */
    rdx_host_free(b->p);
    b->p = rdx_host_malloc(ctx, bytes);
    b->bytes = b->p ? bytes : 0;
    if (!b->p)
        rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "CPU backend: cannot allocate %zu bytes of %s scratch",
                 bytes, what);
    return b->p;
}

void rdx_cpu_release(rdx_ctx *ctx)
{
    if (!ctx || !ctx->cpu)
        return;
    for (int i = 0; i < RDX_CPU_NBUF; i++)
        rdx_host_free(ctx->cpu->buf[i].p);
    rdx_host_free(ctx->cpu);
    ctx->cpu = NULL;
}
