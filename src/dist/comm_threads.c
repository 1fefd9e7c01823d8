/* Ranks as CPU threads of one process (dist.h): the collectives through shared memory and
 * a barrier. Each rank publishes its buffers, every rank reads what it needs from the
 * others, and a second barrier keeps the buffers alive until everyone has read them. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"

typedef struct slot {
    const void *send;
    const size_t *send_bytes, *send_off;
} slot;

struct rdx_dist_threads {
    int size;
    pthread_barrier_t barrier;
    slot *slots;
    rdx_dist_comm *comms;
};

rdx_dist_threads *rdx_dist_threads_create(int size)
{
    if (size < 1)
        return NULL;
    rdx_dist_threads *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->size = size;
    g->slots = calloc((size_t)size, sizeof *g->slots);
    if (!g->slots || pthread_barrier_init(&g->barrier, NULL, (unsigned)size) != 0) {
        free(g->slots);
        free(g);
        return NULL;
    }
    return g;
}

void rdx_dist_threads_destroy(rdx_dist_threads *g)
{
    if (!g)
        return;
    pthread_barrier_destroy(&g->barrier);
    free(g->slots);
    free(g);
}

static rdx_status threads_allreduce(rdx_dist_comm *c, const uint64_t *send, uint64_t *recv, size_t count)
{
    rdx_dist_threads *g = c->impl;
    /* send may be recv: publish a private copy. */
    uint64_t *mine = malloc((count ? count : 1) * sizeof *mine);
    int ok = mine != NULL;
    if (ok)
        memcpy(mine, send, count * sizeof *mine);
    g->slots[c->rank].send = ok ? mine : NULL;
    pthread_barrier_wait(&g->barrier);
    int all_ok = 1;
    for (int k = 0; k < g->size; k++)
        all_ok &= g->slots[k].send != NULL;
    if (all_ok) {
        for (size_t i = 0; i < count; i++) {
            uint64_t sum = 0;
            for (int k = 0; k < g->size; k++)
                sum += ((const uint64_t *)g->slots[k].send)[i];
            recv[i] = sum;
        }
    }
    pthread_barrier_wait(&g->barrier);
    free(mine);
    return all_ok ? RDX_OK : RDX_ERR_OUT_OF_MEMORY;
}

static rdx_status threads_alltoallv(rdx_dist_comm *c, const void *send, const size_t *send_bytes,
                                    const size_t *send_off, void *recv, const size_t *recv_bytes,
                                    const size_t *recv_off)
{
    rdx_dist_threads *g = c->impl;
    const int r = c->rank;
    g->slots[r].send = send;
    g->slots[r].send_bytes = send_bytes;
    g->slots[r].send_off = send_off;
    pthread_barrier_wait(&g->barrier);
    rdx_status s = RDX_OK;
    for (int k = 0; k < g->size; k++) {
        const slot *from = &g->slots[k];
        if (from->send_bytes[r] != recv_bytes[k]) {
            s = RDX_ERR_INTERNAL;
            continue;
        }
        if (recv_bytes[k])
            memcpy((unsigned char *)recv + recv_off[k],
                   (const unsigned char *)from->send + from->send_off[r], recv_bytes[k]);
    }
    pthread_barrier_wait(&g->barrier);
    return s;
}

void rdx_dist_threads_comm(rdx_dist_threads *g, int rank, rdx_dist_comm *out)
{
    out->rank = rank;
    out->size = g->size;
    out->impl = g;
    out->allreduce_u64 = threads_allreduce;
    out->alltoallv = threads_alltoallv;
}
