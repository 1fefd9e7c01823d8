/* A route: one way the CUDA backend sorts a planned job. The routes sit in one ordered
 * table (routes.cu); rdx_cuda_plan_job asks each in turn and the first that accepts the
 * job takes it (the others' reasons are kept in the plan). Adding a route means adding
 * its file and one row of the table. */
#ifndef RDX_CUDA_ROUTE_H
#define RDX_CUDA_ROUTE_H

#include <stddef.h>
#include <cuda_runtime.h>

#include "kernels.h"
#include "plan.h"
#include "tuning_ctx.h"

/* What every route's enqueue gets besides the plan: the job's arrays as plan.cu resolved
 * them (rdx_cuda_enqueue). Buffer A (keys_a, vals_a) receives the result; the sources are
 * what the sort reads (A itself in place, the caller's input for the *_into calls or an
 * argsort's device keys) and are never written. vals_src is NULL where the moved values
 * start as indices. */
typedef struct rdx_cuda_bufs {
    unsigned char *t;      /* the aligned start of temporary storage */
    void *keys_a, *vals_a;
    const void *keys_src, *vals_src;
    int argsort;
    int sms;               /* multiprocessors of the device */
    int callers;           /* keys_a or vals_a is a caller's array (written in place) */
    int host_waits;        /* a synchronous call: the host may wait for a decision made on
                              the device and enqueue only what it chose */
} rdx_cuda_bufs;

/* Before a route's first launch that may write buffer A: where A is a caller's array,
 * marks the call's first write for the failure-injection test (inject.h). */
static inline void rdx_cuda_mark_write(rdx_ctx *ctx, const rdx_cuda_bufs *b)
{
    if (b->callers)
        rdx_inject_first_write(ctx);
}

typedef struct rdx_cuda_route {
    const char *name;      /* what rdx_ctx_route reports */
    /* NULL when the route takes the job laid out so far in p (the fields every route
     * shares: sizes, digits, tiles, portions), else why not (a constant string). */
    const char *(*accepts)(const rdx_cuda_plan *p, const rdx_cuda_tuning *t);
    /* Reserves the route's scratch from *end on (rdx_cuda_take) and fills its fields of p. */
    void (*layout)(rdx_cuda_plan *p, size_t *end);
    /* Enqueues the sort on s: no allocation, no synchronization. */
    rdx_status (*enqueue)(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, const rdx_cuda_bufs *b,
                          cudaStream_t s);
    int argsort_key_copy;  /* an argsort needs a working copy of the keys (keys_a) */
    const char *numpy_name; /* what it reports for a job in NumPy's order (NULL: it declines
                               them) */
} rdx_cuda_route;

/* The table, in the order tried (routes.cu). */
extern const rdx_cuda_route *const rdx_cuda_routes[RDX_CUDA_ROUTES];

/* The routes (one file each). */
extern const rdx_cuda_route rdx_route_small;    /* route_small.cu */
extern const rdx_cuda_route rdx_route_count;    /* route_count.cu */
extern const rdx_cuda_route rdx_route_msd;      /* route_msd.cu */
extern const rdx_cuda_route rdx_route_cluster;  /* route_cluster.cu */
extern const rdx_cuda_route rdx_route_grid;     /* route_grid.cu */
extern const rdx_cuda_route rdx_route_onesweep; /* route_onesweep.cu */

/* Reserves bytes at *end (aligned to RDX_TEMP_ALIGN) and returns the slot's offset. */
size_t rdx_cuda_take(size_t *end, size_t bytes);

/* The routes that sort on chip in one launch (small, cluster): no scratch, and the
 * launcher of their kernel (rdx_launch_small or rdx_launch_cluster) called with the
 * arguments of the plan and the buffers. */
void rdx_cuda_no_scratch(rdx_cuda_plan *p, size_t *end);
rdx_status rdx_cuda_enqueue_on_chip(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_cuda_bufs *b,
                                    cudaError_t (*launch)(int kb, int vb, const rdx_small_args *a, cudaStream_t s),
                                    cudaStream_t s);

/* The LSD passes (route_onesweep.cu), shared with the MSD route, which runs them after its
 * device-side decision declines or falls back: the scratch layout (with the MSD route's
 * control words and level-2 buffers where msd), and the enqueue (histograms, scan, the
 * MSD levels where p->msd, passes, fix-up). */
void rdx_cuda_lsd_layout(rdx_cuda_plan *p, size_t *end, int msd);
rdx_status rdx_cuda_lsd_enqueue(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, const rdx_cuda_bufs *b,
                                cudaStream_t s);

/* The LSD passes' buffers, for the MSD levels between their scan and their passes. */
typedef struct rdx_cuda_lsd {
    uint32_t *counts, *pass_info, *active, *counters, *msd_ctrl, *unsorted;
    unsigned long long *bases;
    uint32_t *status[2];
    void *keys_b, *vals_b;
} rdx_cuda_lsd;

/* The MSD route's scratch for the level-2 buckets above level 3's capacity (route_msd.cu). */
void rdx_cuda_msd_long_layout(rdx_cuda_plan *p, size_t *end);
/* The most keys the MSD route takes for the plan's job (route_msd.cu). */
size_t rdx_cuda_msd_max_n(const rdx_cuda_plan *p, const rdx_cuda_tuning *t);
/* Levels 1 to 3 of the MSD route (route_msd.cu). */
rdx_status rdx_cuda_msd_levels(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_cuda_bufs *b, rdx_cuda_lsd *l,
                               cudaStream_t s);

/* The buffers and codec of a pass launch (level 1 of the MSD route or an LSD pass); the
 * caller fills in the rest. vals_src NULL: the values start in vals_a (or as indices). */
rdx_pass_args rdx_cuda_pass_buffers(const rdx_cuda_bufs *b, const rdx_cuda_lsd *l, const rdx_cuda_plan *p);
/* Launch `launch` of pass `pass` (launch = pass * portions + k, k its portion): the
 * portion's keys, its bases and the next portion's, its tile counter, and the status
 * buffer it looks back in (status[parity % 2]; it clears the other). */
void rdx_cuda_pass_portion(rdx_pass_args *a, const rdx_cuda_lsd *l, const rdx_cuda_plan *p, int pass, size_t k,
                           size_t parity);

#endif /* RDX_CUDA_ROUTE_H */
