/* Failure injection, a test hook (tests/test_inject.c), never for users: makes the k-th
 * host allocation, device allocation or checked CUDA call inside the library fail, so that
 * a test can walk k over every failure point of a call. The counters live in the context
 * (contexts on other threads are not disturbed); events with no context yet (everything
 * rdx_ctx_create does) count on a thread-local state instead. Always counting,
 * failing only when armed: an increment per allocation or CUDA call. */
#ifndef RDX_INJECT_H
#define RDX_INJECT_H

#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rdx_inject_kind {
    RDX_INJECT_HOST_ALLOC = 0,   /* rdx_host_malloc / rdx_host_calloc (src/alloc.h) */
    RDX_INJECT_DEVICE_ALLOC = 1, /* cudaMalloc, cudaMallocHost (RDX_CUDA_ALLOC, common.cuh) */
    RDX_INJECT_CUDA_CALL = 2,    /* every RDX_CUDA_TRY (common.cuh) */
    RDX_INJECT_KINDS = 3
} rdx_inject_kind;

typedef struct rdx_inject_state {
    unsigned long count[RDX_INJECT_KINDS];   /* events since the last rdx_inject_arm */
    unsigned long fail_at[RDX_INJECT_KINDS]; /* 1-based event that fails; 0: none */
    unsigned long write_point;               /* CUDA calls before the first write to a caller's
                                                array (rdx_inject_first_write); 0: none yet */
    int written;                             /* write_point is set */
    int held;                                /* > 0: writes are to the library's own arrays */
} rdx_inject_state;

/* Restarts ctx's counters (NULL: the calling thread's) and makes its k-th event of that
 * kind from now fail; k = 0 only counts. Arming one kind leaves the others as they are. */
void rdx_inject_arm(rdx_ctx *ctx, rdx_inject_kind kind, unsigned long k);
/* Events of that kind counted on ctx (NULL: the thread's) since it was last armed. */
unsigned long rdx_inject_count(const rdx_ctx *ctx, rdx_inject_kind kind);
/* The CUDA calls ctx made, since it was last armed, before the call's first write to a
 * caller's array (or the enqueue of the first kernel or copy that may write one); ULONG_MAX
 * when it wrote none. A CUDA call that fails at or before this point must leave the
 * caller's arrays as they were; after it, the arrays may hold part of the work (a real
 * failure there is an asynchronous device fault: tests/test_inject.c says why). */
unsigned long rdx_inject_write_point(const rdx_ctx *ctx);
/* Disarms and zeroes every kind on ctx (NULL: the thread's). */
void rdx_inject_reset(rdx_ctx *ctx);

/* For the library: counts one event on ctx (NULL: the thread's); 1 when it must fail. */
int rdx_inject_hit(rdx_ctx *ctx, rdx_inject_kind kind);
/* For the library: the next CUDA call may write a caller's array (the first such mark
 * since arming counts, unless held). */
void rdx_inject_first_write(rdx_ctx *ctx);
/* For the library: while rdx_ctx_create sets a new context up, the context's events count
 * on the calling thread's state, which a test arms before the call (the context does not
 * exist yet). Begin copies the thread's state into ctx; end copies it back and zeroes
 * ctx's. */
void rdx_inject_creation_begin(rdx_ctx *ctx);
void rdx_inject_creation_end(rdx_ctx *ctx);
/* For the library: on = 1 before sorts of its own arrays through the public stream-ordered
 * calls (the composition of segmented.cu), whose marks are not the caller's; 0 after. */
void rdx_inject_hold_writes(rdx_ctx *ctx, int on);

#ifdef __cplusplus
}
#endif

#endif
