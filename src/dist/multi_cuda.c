/* Several GPUs of one host as one context (rdx_ctx_create_devices, CUDA backend): an NCCL
 * communicator per device from ncclCommInitAll, a CUDA context and a stream per device,
 * and a thread per device that copies its shard in, runs rdx_dist_sort_* (the same path
 * as separate processes take) and copies its part of the result back. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_dist.h"
#include "dist/dist_cuda.h"

struct rdx_multi_cuda {
    int count;
    int *devices;
    ncclComm_t *comms;
    cudaStream_t *streams;
    rdx_ctx **ctxs;
};

void rdx_multi_cuda_destroy(struct rdx_multi_cuda *m)
{
    if (!m)
        return;
    int prev = 0;
    (void)cudaGetDevice(&prev);
    for (int r = 0; r < m->count; r++) {
        if (m->devices)
            (void)cudaSetDevice(m->devices[r]);
        if (m->ctxs)
            rdx_ctx_destroy(m->ctxs[r]);
        if (m->streams && m->streams[r])
            (void)cudaStreamDestroy(m->streams[r]);
        if (m->comms && m->comms[r])
            (void)rdx_nccl()->CommDestroy(m->comms[r]);
    }
    (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
    free(m->devices);
    free(m->comms);
    free(m->streams);
    free(m->ctxs);
    free(m);
}

rdx_status rdx_multi_cuda_create(rdx_ctx *ctx, const int *devices, int count, struct rdx_multi_cuda **out)
{
    *out = NULL;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess) {
        (void)cudaGetLastError();
        ndev = 0;
    }
    for (int r = 0; r < count; r++) {
        const int d = devices ? devices[r] : r;
        if (d < 0)
            return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "rdx_ctx_create_devices: devices[%d] = %d", r, d);
        if (d >= ndev)
            return rdx_fail(ctx, RDX_ERR_NO_DEVICE, "rdx_ctx_create_devices: no GPU %d (%d found)", d, ndev);
        for (int q = 0; q < r; q++)
            if ((devices ? devices[q] : q) == d)
                return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "rdx_ctx_create_devices: GPU %d is listed twice", d);
    }
    if (!rdx_nccl())
        return rdx_fail(ctx, RDX_ERR_UNSUPPORTED, "rdx_ctx_create_devices: %s", rdx_nccl_why());
    struct rdx_multi_cuda *m = calloc(1, sizeof *m);
    if (!m)
        return RDX_ERR_OUT_OF_MEMORY;
    m->count = count;
    m->devices = calloc((size_t)count, sizeof *m->devices);
    m->comms = calloc((size_t)count, sizeof *m->comms);
    m->streams = calloc((size_t)count, sizeof *m->streams);
    m->ctxs = calloc((size_t)count, sizeof *m->ctxs);
    if (!m->devices || !m->comms || !m->streams || !m->ctxs) {
        rdx_multi_cuda_destroy(m);
        return RDX_ERR_OUT_OF_MEMORY;
    }
    for (int r = 0; r < count; r++)
        m->devices[r] = devices ? devices[r] : r;
    rdx_status s = RDX_OK;
    ncclResult_t nr = rdx_nccl()->CommInitAll(m->comms, count, m->devices);
    if (nr != ncclSuccess)
        s = rdx_fail(ctx, RDX_ERR_DEVICE, "rdx_ctx_create_devices: ncclCommInitAll failed: %s", rdx_nccl()->GetErrorString(nr));
    int prev = 0;
    (void)cudaGetDevice(&prev);
    for (int r = 0; r < count && s == RDX_OK; r++) {
        if (cudaSetDevice(m->devices[r]) != cudaSuccess ||
            cudaStreamCreateWithFlags(&m->streams[r], cudaStreamNonBlocking) != cudaSuccess)
            s = rdx_fail(ctx, RDX_ERR_DEVICE, "rdx_ctx_create_devices: no stream on GPU %d", m->devices[r]);
        else
            s = rdx_ctx_create(&m->ctxs[r], RDX_BACKEND_CUDA);
    }
    (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
    if (s != RDX_OK) {
        rdx_multi_cuda_destroy(m);
        return s;
    }
    *out = m;
    return RDX_OK;
}

/* One rank's buffers and work. */
typedef struct rank_work {
    struct rdx_multi_cuda *m;
    int rank;
    pthread_barrier_t *barrier;
    pthread_mutex_t *mu;            /* the start gate: threads wait until all exist */
    pthread_cond_t *cv;
    int *gate;                      /* 0 wait, 1 go, -1 give up */
    volatile int *failed;           /* set by any rank whose copy in failed */
    const unsigned char *src_keys, *src_vals; /* this shard in the caller's memory */
    unsigned char *dst_keys, *dst_vals;       /* where its part of the result goes (NULL: not kept) */
    size_t n, ks, vs;
    rdx_type type;
    rdx_opts opts;
    void *d_in, *d_in_v, *d_out, *d_out_v, *d_temp;
    size_t temp_bytes;
    rdx_status status;
} rank_work;

static void *rank_main(void *p)
{
    rank_work *w = p;
    struct rdx_multi_cuda *m = w->m;
    rdx_ctx *ctx = m->ctxs[w->rank];
    cudaStream_t stream = m->streams[w->rank];
    pthread_mutex_lock(w->mu);
    while (*w->gate == 0)
        pthread_cond_wait(w->cv, w->mu);
    const int go = *w->gate == 1;
    pthread_mutex_unlock(w->mu);
    if (!go)
        return NULL;
    int ok = cudaSetDevice(m->devices[w->rank]) == cudaSuccess;
    if (ok && w->n)
        ok = cudaMemcpyAsync(w->d_in, w->src_keys, w->n * w->ks, cudaMemcpyDefault, stream) == cudaSuccess &&
             (!w->vs || cudaMemcpyAsync(w->d_in_v, w->src_vals, w->n * w->vs, cudaMemcpyDefault, stream) == cudaSuccess);
    if (ok)
        ok = cudaStreamSynchronize(stream) == cudaSuccess;
    if (!ok) {
        (void)cudaGetLastError();
        *w->failed = 1;
        w->status = rdx_fail(ctx, RDX_ERR_DEVICE, "copying the shard of rank %d to GPU %d failed", w->rank,
                             m->devices[w->rank]);
    }
    pthread_barrier_wait(w->barrier);  /* no rank enters NCCL unless every copy worked */
    if (*w->failed)
        return NULL;
    size_t got = 0;
    w->status = w->vs ? rdx_dist_sort_pairs(ctx, m->comms[w->rank], w->d_in, w->d_in_v, w->vs, w->n, w->d_out,
                                            w->d_out_v, w->n, &got, w->type, &w->opts, w->d_temp, w->temp_bytes,
                                            stream)
                      : rdx_dist_sort_keys(ctx, m->comms[w->rank], w->d_in, w->n, w->d_out, w->n, &got, w->type,
                                           &w->opts, w->d_temp, w->temp_bytes, stream);
    if (w->status != RDX_OK)
        return NULL;
    ok = 1;
    if (got && w->dst_keys)
        ok = cudaMemcpyAsync(w->dst_keys, w->d_out, got * w->ks, cudaMemcpyDefault, stream) == cudaSuccess;
    if (ok && got && w->dst_vals)
        ok = cudaMemcpyAsync(w->dst_vals, w->d_out_v, got * w->vs, cudaMemcpyDefault, stream) == cudaSuccess;
    if (ok)
        ok = cudaStreamSynchronize(stream) == cudaSuccess;
    if (!ok) {
        (void)cudaGetLastError();
        w->status = rdx_fail(ctx, RDX_ERR_DEVICE, "copying rank %d's result back failed", w->rank);
    }
    return NULL;
}

static void free_work(struct rdx_multi_cuda *m, rank_work *w)
{
    int prev = 0;
    (void)cudaGetDevice(&prev);
    for (int r = 0; r < m->count; r++) {
        (void)cudaSetDevice(m->devices[r]);
        (void)cudaFree(w[r].d_in);
        (void)cudaFree(w[r].d_in_v);
        (void)cudaFree(w[r].d_out);
        (void)cudaFree(w[r].d_out_v);
        (void)cudaFree(w[r].d_temp);
    }
    (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
}

rdx_status rdx_multi_cuda_sort(rdx_ctx *ctx, struct rdx_multi_cuda *m, const rdx_job *job)
{
    const int P = m->count, argsort = job->kind == RDX_JOB_ARGSORT;
    const size_t n = job->n, ks = job->key_size;
    const size_t vs = argsort ? rdx_type_size(job->index_type) : job->kind == RDX_JOB_PAIRS ? job->value_size : 0;
    rank_work *w = calloc((size_t)P, sizeof *w);
    pthread_t *tid = calloc((size_t)P, sizeof *tid);
    unsigned char *iota = argsort ? malloc(n * vs) : NULL;
    rdx_status s = RDX_OK;
    if (!w || !tid || (argsort && !iota))
        s = rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_sort: no host memory for %d GPUs", P);
    for (size_t i = 0; argsort && s == RDX_OK && i < n; i++) {
        const uint64_t x = i;
        const uint32_t y = (uint32_t)i;
        memcpy(iota + i * vs, vs == 8 ? (const void *)&x : (const void *)&y, vs);
    }
    /* Every device buffer before the first write. */
    int prev = 0;
    (void)cudaGetDevice(&prev);
    for (int r = 0; r < P && s == RDX_OK; r++) {
        rank_work *x = &w[r];
        const size_t lo = rdx_dist_bound(n, r, P), hi = rdx_dist_bound(n, r + 1, P);
        x->m = m;
        x->rank = r;
        x->n = hi - lo;
        x->ks = ks;
        x->vs = vs;
        x->type = job->type;
        x->opts.flags = job->descending ? RDX_DESCENDING : 0u;
        x->opts.begin_bit = job->begin_bit;
        x->opts.end_bit = job->end_bit;
        x->opts.radix_bits = job->radix_bits;
        x->src_keys = (const unsigned char *)job->keys + lo * ks;
        x->dst_keys = argsort ? NULL : (unsigned char *)job->keys + lo * ks;
        if (vs) {
            x->src_vals = argsort ? iota + lo * vs : (const unsigned char *)job->values + lo * vs;
            x->dst_vals = (unsigned char *)(argsort ? job->indices : job->values) + lo * vs;
        }
        rdx_ctx *rc = m->ctxs[r];
        if (cudaSetDevice(m->devices[r]) != cudaSuccess) { /* the query plans for that GPU */
            s = rdx_fail(ctx, RDX_ERR_DEVICE, "rdx_sort: cannot use GPU %d", m->devices[r]);
            break;
        }
        s = vs ? rdx_dist_sort_pairs_temp_size(rc, P, vs, x->n, x->n, job->type, &x->opts, &x->temp_bytes)
               : rdx_dist_sort_keys_temp_size(rc, P, x->n, x->n, job->type, &x->opts, &x->temp_bytes);
        if (s != RDX_OK) {
            s = rdx_fail(ctx, s, "rank %d: %s", r, rdx_ctx_error(rc));
            break;
        }
        const size_t nb = x->n ? x->n : 1;
        if (cudaMalloc(&x->d_in, nb * ks) != cudaSuccess ||
            cudaMalloc(&x->d_out, nb * ks) != cudaSuccess || cudaMalloc(&x->d_temp, x->temp_bytes) != cudaSuccess ||
            (vs && (cudaMalloc(&x->d_in_v, nb * vs) != cudaSuccess || cudaMalloc(&x->d_out_v, nb * vs) != cudaSuccess)))
            s = rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_sort: no room for the shard of %zu keys on GPU %d", x->n,
                         m->devices[r]);
    }
    (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
    pthread_barrier_t barrier;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
    int gate = 0;
    volatile int failed = 0;
    int started = 0;
    if (s == RDX_OK && pthread_barrier_init(&barrier, NULL, (unsigned)P) != 0)
        s = rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_sort: no barrier for %d threads", P);
    else if (s == RDX_OK) {
        for (int r = 0; r < P; r++) {
            w[r].barrier = &barrier;
            w[r].mu = &mu;
            w[r].cv = &cv;
            w[r].gate = &gate;
            w[r].failed = &failed;
        }
        /* Threads start work only once all of them exist, so that a failed
         * pthread_create never leaves the others waiting at the barrier. */
        for (int r = 0; r < P && s == RDX_OK; r++) {
            if (pthread_create(&tid[r], NULL, rank_main, &w[r]) != 0)
                s = rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_sort: could not start the thread of GPU %d",
                             m->devices[r]);
            else
                started++;
        }
        pthread_mutex_lock(&mu);
        gate = s == RDX_OK ? 1 : -1;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
        for (int r = 0; r < started; r++)
            pthread_join(tid[r], NULL);
        pthread_barrier_destroy(&barrier);
    }
    for (int r = 0; r < started && s == RDX_OK; r++)
        if (w[r].status != RDX_OK)
            s = rdx_fail(ctx, w[r].status, "GPU %d: %s", m->devices[r], rdx_ctx_error(m->ctxs[r]));
    if (w)
        free_work(m, w);
    free(w);
    free(tid);
    free(iota);
    return s;
}
