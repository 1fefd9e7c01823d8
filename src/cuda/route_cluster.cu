/* The cluster route (sm_90+): one thread-block cluster sorts up to the context's
 * cluster_max_n keys on chip, in distributed shared memory (cluster.cu). No scratch. */
#include "common.cuh"
#include "route.h"

static const char *accepts(const rdx_cuda_plan *p, const rdx_cuda_tuning *t)
{
    if (p->numpy_order)
        return "NumPy's order (the LSD passes order by its canonical codes)";
    if (p->n > t->cluster_max_n || (p->vb != 0 && p->n > t->cluster_pairs_max_n))
        return "n above the context's cluster limit";
    if (!t->cluster_launch)
        return "the device launches no clusters";
    if (!rdx_cluster_fits(p->kb, p->vb, p->n))
        return "the device cannot place the cluster";
    return NULL;
}

static rdx_status enqueue(rdx_ctx *ctx, const rdx_cuda_plan *p, const rdx_job *job, const rdx_cuda_bufs *b,
                          cudaStream_t s)
{
    (void)job;
    return rdx_cuda_enqueue_on_chip(ctx, p, b, rdx_launch_cluster, s);
}

const rdx_cuda_route rdx_route_cluster = {"cluster", accepts, rdx_cuda_no_scratch, enqueue, 0, NULL};
