/* Contexts that sort with several devices (rdx_dist.h, rdx_ctx_create_devices): the array
 * is cut into equal shards, one per rank, and sorted by the distributed algorithm of
 * core.c. CPU backend: ranks are threads (comm_threads.c, engine_cpu.c), each with a CPU
 * context of its own. CUDA backend: multi_cuda.c. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_dist.h"
#include "dist/dist.h"

struct rdx_multi {
    int count;
    rdx_ctx **ranks;               /* CPU: one context per rank */
    struct rdx_multi_cuda *cuda;   /* CUDA: the devices */
};

int rdx_ctx_device_count(const rdx_ctx *ctx)
{
    if (!ctx)
        return 0;
    return ctx->multi ? ctx->multi->count : 1;
}

void rdx_multi_release(rdx_ctx *ctx)
{
    free(ctx->dist_times);
    ctx->dist_times = NULL;
    struct rdx_multi *m = ctx->multi;
    if (!m)
        return;
    if (m->ranks)
        for (int r = 0; r < m->count; r++)
            rdx_ctx_destroy(m->ranks[r]);
    free(m->ranks);
    rdx_multi_cuda_destroy(m->cuda);
    free(m);
    ctx->multi = NULL;
}

rdx_status rdx_ctx_create_devices(rdx_ctx **out, rdx_backend backend, const int *devices, int count)
{
    if (!out)
        return RDX_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (count < 1 || (backend != RDX_BACKEND_CPU && backend != RDX_BACKEND_CUDA))
        return RDX_ERR_INVALID_ARGUMENT;
    if (backend == RDX_BACKEND_CPU && devices)
        return RDX_ERR_INVALID_ARGUMENT;
    rdx_ctx *ctx = NULL;
    rdx_status s = rdx_ctx_create(&ctx, backend);
    if (s != RDX_OK)
        return s;
    struct rdx_multi *m = calloc(1, sizeof *m);
    if (!m) {
        rdx_ctx_destroy(ctx);
        return RDX_ERR_OUT_OF_MEMORY;
    }
    m->count = count;
    ctx->multi = m;
    if (backend == RDX_BACKEND_CPU) {
        m->ranks = calloc((size_t)count, sizeof *m->ranks);
        if (!m->ranks)
            s = RDX_ERR_OUT_OF_MEMORY;
        for (int r = 0; r < count && s == RDX_OK; r++)
            s = rdx_ctx_create(&m->ranks[r], RDX_BACKEND_CPU);
    } else {
        s = rdx_multi_cuda_create(ctx, devices, count, &m->cuda);
    }
    if (s != RDX_OK) {
        rdx_ctx_destroy(ctx);
        return s;
    }
    *out = ctx;
    return RDX_OK;
}

/* ---- the CPU ranks ---- */

/* Threads start only once all of them exist, so that a failed pthread_create never
 * leaves the others waiting at a barrier. */
typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;   /* 0 wait, 1 go, -1 give up */
} gate;

typedef struct rank_arg {
    gate *gate;
    rdx_dist_threads *group;
    int rank;
    rdx_ctx *ctx;
    rdx_dist_job job;
    rdx_status status;
} rank_arg;

static void *rank_main(void *p)
{
    rank_arg *a = p;
    pthread_mutex_lock(&a->gate->mu);
    while (a->gate->state == 0)
        pthread_cond_wait(&a->gate->cv, &a->gate->mu);
    const int go = a->gate->state == 1;
    pthread_mutex_unlock(&a->gate->mu);
    if (!go)
        return NULL;
    rdx_dist_comm comm;
    rdx_dist_engine eng;
    rdx_dist_result res;
    rdx_dist_cpu_view view = {NULL, NULL, 0};
    rdx_dist_threads_comm(a->group, a->rank, &comm);
    rdx_dist_cpu_engine(a->ctx, &view, &eng);
    a->status = rdx_dist_run(&comm, &eng, &a->job, 0, &res);
    return NULL;
}

static rdx_status multi_cpu_sort(rdx_ctx *ctx, struct rdx_multi *m, const rdx_job *job)
{
    const int P = m->count;
    const size_t n = job->n, ks = job->key_size;
    const int argsort = job->kind == RDX_JOB_ARGSORT;
    const size_t vs = argsort ? rdx_type_size(job->index_type) : job->kind == RDX_JOB_PAIRS ? job->value_size : 0;
    const rdx_opts opts = {job->descending ? RDX_DESCENDING : 0u, job->begin_bit, job->end_bit, job->radix_bits};
    /* Every buffer before the first write: the send areas, and for argsort the sorted
     * keys' home and the input indices 0..n-1. */
    unsigned char *send = malloc(n * (ks + vs));
    unsigned char *akeys = argsort ? malloc(n * ks) : NULL, *iota = argsort ? malloc(n * vs) : NULL;
    rank_arg *args = calloc((size_t)P, sizeof *args);
    pthread_t *tid = calloc((size_t)P, sizeof *tid);
    rdx_dist_threads *group = rdx_dist_threads_create(P);
    rdx_status s = RDX_OK;
    if (!send || (argsort && (!akeys || !iota)) || !args || !tid || !group)
        s = rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_sort: no host memory for %d ranks' buffers", P);
    if (s == RDX_OK && argsort)
        for (size_t i = 0; i < n; i++) {
            if (vs == 4) {
                uint32_t x = (uint32_t)i;
                memcpy(iota + i * 4, &x, 4);
            } else {
                uint64_t x = i;
                memcpy(iota + i * 8, &x, 8);
            }
        }
    const unsigned char *in_vals = argsort ? iota : job->values;
    unsigned char *out_keys = argsort ? akeys : job->keys;
    unsigned char *out_vals = argsort ? job->indices : job->values;
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int started = 0;
    for (int r = 0; r < P && s == RDX_OK; r++) {
        rank_arg *a = &args[r];
        const size_t lo = rdx_dist_bound(n, r, P), hi = rdx_dist_bound(n, r + 1, P);
        a->gate = &g;
        a->group = group;
        a->rank = r;
        a->ctx = m->ranks[r];
        s = rdx_dist_prepare(ctx, "rdx_sort", job->type, &opts, &a->job);
        a->job.keys = (const unsigned char *)job->keys + lo * ks;
        a->job.values = vs ? in_vals + lo * vs : NULL;
        a->job.value_size = vs;
        a->job.n = hi - lo;
        a->job.out_keys = out_keys + lo * ks;
        a->job.out_values = vs ? out_vals + lo * vs : NULL;
        a->job.capacity = hi - lo;
        a->job.send_keys = send + lo * ks;
        a->job.send_values = vs ? send + n * ks + lo * vs : NULL;
        if (s == RDX_OK && pthread_create(&tid[r], NULL, rank_main, a) != 0)
            s = rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_sort: could not start the thread of rank %d", r);
        if (s == RDX_OK)
            started++;
    }
    pthread_mutex_lock(&g.mu);
    g.state = s == RDX_OK ? 1 : -1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    for (int r = 0; r < started; r++)
        pthread_join(tid[r], NULL);
    for (int r = 0; r < started && s == RDX_OK; r++)
        if (args[r].status != RDX_OK)
            s = rdx_fail(ctx, args[r].status, "rank %d: %s", r, rdx_ctx_error(m->ranks[r]));
    free(send);
    free(akeys);
    free(iota);
    free(args);
    free(tid);
    rdx_dist_threads_destroy(group);
    return s;
}

rdx_status rdx_multi_sort(rdx_ctx *ctx, const rdx_job *job)
{
    struct rdx_multi *m = ctx->multi;
    return m->cuda ? rdx_multi_cuda_sort(ctx, m->cuda, job) : multi_cpu_sort(ctx, m, job);
}
