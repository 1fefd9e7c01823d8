/* rdx_dist_set_timing / rdx_dist_phase_times: the phase times of the last distributed sort. */
#include <stdlib.h>
#include <string.h>

#include "rdx_dist.h"
#include "dist/dist.h"

void rdx_dist_set_timing(rdx_ctx *ctx, int on)
{
    if (!ctx)
        return;
    if (!ctx->dist_times)
        ctx->dist_times = calloc(1, sizeof *ctx->dist_times);
    if (ctx->dist_times)
        ctx->dist_times->on = on != 0;
}

void rdx_dist_phase_times(const rdx_ctx *ctx, double ms[3])
{
    if (!ms)
        return;
    if (ctx && ctx->dist_times)
        memcpy(ms, ctx->dist_times->ms, 3 * sizeof *ms);
    else
        ms[0] = ms[1] = ms[2] = 0;
}
