/* Failure injection (see inject.h). */
#include "inject.h"

#include <string.h>

#include "internal.h"

static _Thread_local rdx_inject_state thread_state;

static rdx_inject_state *state_of(const rdx_ctx *ctx)
{
    return ctx ? (rdx_inject_state *)&ctx->inject : &thread_state;
}

void rdx_inject_arm(rdx_ctx *ctx, rdx_inject_kind kind, unsigned long k)
{
    rdx_inject_state *s = state_of(ctx);
    s->count[kind] = 0;
    s->fail_at[kind] = k;
}

unsigned long rdx_inject_count(const rdx_ctx *ctx, rdx_inject_kind kind)
{
    return state_of(ctx)->count[kind];
}

void rdx_inject_reset(rdx_ctx *ctx)
{
    memset(state_of(ctx), 0, sizeof(rdx_inject_state));
}

int rdx_inject_hit(rdx_ctx *ctx, rdx_inject_kind kind)
{
    rdx_inject_state *s = state_of(ctx);
    return ++s->count[kind] == s->fail_at[kind];
}
