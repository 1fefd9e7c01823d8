/* Segmented sorts on the CPU backend. */
#include "cpu.h"

rdx_status rdx_cpu_segmented_sort(rdx_ctx *ctx, const rdx_job *job)
{
    (void)job;
    return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "segmented sorts: not implemented yet on the CPU backend");
}
