/* Failure injection (see inject.h). */
#include "inject.h"

#include <limits.h>
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
    s->write_point = 0;
    s->written = 0;
    s->held = 0;
}

unsigned long rdx_inject_count(const rdx_ctx *ctx, rdx_inject_kind kind)
{
    return state_of(ctx)->count[kind];
}

unsigned long rdx_inject_write_point(const rdx_ctx *ctx)
{
    const rdx_inject_state *s = state_of(ctx);
    return s->written ? s->write_point : ULONG_MAX;
}

void rdx_inject_first_write(rdx_ctx *ctx)
{
    rdx_inject_state *s = state_of(ctx);
    if (!s->written && s->held == 0) {
        s->write_point = s->count[RDX_INJECT_CUDA_CALL];
        s->written = 1;
    }
}

void rdx_inject_hold_writes(rdx_ctx *ctx, int on)
{
    state_of(ctx)->held += on ? 1 : -1;
}

void rdx_inject_reset(rdx_ctx *ctx)
{
    memset(state_of(ctx), 0, sizeof(rdx_inject_state));
}

void rdx_inject_creation_begin(rdx_ctx *ctx)
{
    ctx->inject = thread_state;
}

void rdx_inject_creation_end(rdx_ctx *ctx)
{
    thread_state = ctx->inject;
    memset(&ctx->inject, 0, sizeof ctx->inject);
}

int rdx_inject_hit(rdx_ctx *ctx, rdx_inject_kind kind)
{
    rdx_inject_state *s = state_of(ctx);
    return ++s->count[kind] == s->fail_at[kind];
}
