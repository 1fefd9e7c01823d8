/* The distributed sort's internals (DESIGN.md section 3, "Across GPUs"): the splitter
 * search and the exchange bookkeeping (core.c), written against two small interfaces so
 * that CI runs them with ranks as CPU threads:
 *   rdx_dist_comm   - the collectives between ranks (CPU threads: comm_threads.c; NCCL:
 *                     comm_nccl.c);
 *   rdx_dist_engine - the local work on one rank's memory (host: engine_cpu.c; a GPU:
 *                     engine_cuda.cu).
 * Keys are compared by their sort key (keyspec.h): the mapped key's bits
 * [begin_bit, end_bit), a w-bit unsigned integer. */
#ifndef RDX_DIST_INTERNAL_H
#define RDX_DIST_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The collectives. Every rank calls each function in the same order. */
typedef struct rdx_dist_comm rdx_dist_comm;
struct rdx_dist_comm {
    int rank, size;
    void *impl;
    /* recv[i] = the sum over ranks of send[i], i < count, on every rank. Host memory;
     * send and recv may be the same array. */
    rdx_status (*allreduce_u64)(rdx_dist_comm *c, const uint64_t *send, uint64_t *recv, size_t count);
    /* Rank r sends bytes [send_off[j], send_off[j] + send_bytes[j]) of send to rank j and
     * receives rank j's part for it into recv + recv_off[j] (recv_bytes[j] bytes), for
     * every j (itself included). Buffers in the engine's memory; counts on the host. */
    rdx_status (*alltoallv)(rdx_dist_comm *c, const void *send, const size_t *send_bytes,
                            const size_t *send_off, void *recv, const size_t *recv_bytes,
                            const size_t *recv_off);
};

/* One rank's checked request. */
typedef struct rdx_dist_job {
    rdx_type type;
    unsigned key_size;        /* 1, 2, 4, 8 */
    int cls, desc, numpy;     /* key_codec.h class; RDX_DESCENDING; RDX_NUMPY_ORDER */
    int begin_bit, end_bit;   /* the sort key: mapped bits [begin_bit, end_bit) */
    unsigned flags;           /* opts->flags as given, for the local sort */
    int radix_bits;           /* opts->radix_bits, for the local sort */
    const void *keys;         /* this rank's shard, n keys */
    const void *values;       /* NULL for keys only */
    size_t value_size;        /* 0 for keys only */
    size_t n;
    void *out_keys, *out_values; /* room for capacity elements; receive directly here */
    size_t capacity;
    void *send_keys, *send_values; /* n elements each: the shard grouped by destination */
} rdx_dist_job;

/* A split point as this rank sees it: a key with sort-key prefix q (its top `depth` bits)
 * at local index i comes at or after the split point when q > prefix, or q == prefix and
 * i >= pos. */
typedef struct rdx_dist_split {
    int depth;
    uint64_t prefix;
    size_t pos;
} rdx_dist_split;

/* Local work on one rank. All counts live in host memory. */
typedef struct rdx_dist_engine rdx_dist_engine;
struct rdx_dist_engine {
    void *impl;
    rdx_ctx *ctx;   /* error details; the local sort's context */
    /* counts[p * 2^digit_bits + d] = local keys whose top `depth` sort-key bits equal
     * prefixes[p] (ascending, distinct) and whose next digit_bits bits equal d. */
    rdx_status (*histogram)(const rdx_dist_engine *e, const rdx_dist_job *job, int depth,
                            int digit_bits, const uint64_t *prefixes, int nprefix,
                            uint64_t *counts);
    /* *pos = the local index of the key of rank `q` (0-based) among the keys with this
     * prefix at this depth (the caller makes sure it exists). */
    rdx_status (*select)(const rdx_dist_engine *e, const rdx_dist_job *job, int depth,
                         uint64_t prefix, uint64_t q, size_t *pos);
    /* Stable partition of the shard into job->send_keys/values by destination rank (the
     * number of split points the key comes at or after); send_counts[j] = keys for j. */
    rdx_status (*partition)(const rdx_dist_engine *e, const rdx_dist_job *job,
                            const rdx_dist_split *splits, int nsplits, uint64_t *send_counts);
    /* Stable sort of out_keys/out_values[0..m) in place. */
    rdx_status (*local_sort)(const rdx_dist_engine *e, const rdx_dist_job *job, size_t m);
    /* Waits for the rank's queued work (for phase timing); NULL when nothing is queued. */
    rdx_status (*sync)(const rdx_dist_engine *e);
    /* Optional (NULL: never). Narrows what the histogram and select calls that follow look
     * at to the `count` local keys whose top `depth` bits equal one of prefixes[] (kept
     * with their sort keys and positions, in position order), when the engine has room for
     * `count` of them: *kept = 1; else *kept = 0 and nothing changes. The partition
     * always reads the whole shard. */
    rdx_status (*compact)(const rdx_dist_engine *e, const rdx_dist_job *job, int depth,
                          const uint64_t *prefixes, int nprefix, uint64_t count, int *kept);
    /* Optional: frees what compact kept; called at the end of every rdx_dist_run. */
    void (*finish)(const rdx_dist_engine *e);
};

/* What rdx_dist_run found, for tests and benchmarks. */
typedef struct rdx_dist_result {
    size_t n_out;           /* keys now in out_keys */
    uint64_t n_total;       /* N */
    int levels;             /* rounds of the radix select */
    int compacted_at;       /* the level before which the engine narrowed its view; -1 never */
    double ms[3];           /* splitters, exchange, local sort (host clock) */
} rdx_dist_result;

/* Checks the options of a request as rdx.h does (flags may also hold RDX_NUMPY_ORDER = 2)
 * and fills the key part of *job. fn names the entry point in messages. */
rdx_status rdx_dist_prepare(rdx_ctx *ctx, const char *fn, rdx_type type, const rdx_opts *opts,
                            rdx_dist_job *job);

/* The whole algorithm on one rank; collective over comm. job is checked (send buffers
 * included). timing: sync the engine between phases and fill res->ms. */
rdx_status rdx_dist_run(rdx_dist_comm *comm, const rdx_dist_engine *eng, const rdx_dist_job *job,
                        int timing, rdx_dist_result *res);

/* floor(r * total / p) without overflow. */
uint64_t rdx_dist_bound(uint64_t total, int r, int p);

/* ---- CPU threads as ranks (comm_threads.c) ---- */
typedef struct rdx_dist_threads rdx_dist_threads;
/* A group of `size` ranks that meet through a barrier; NULL when memory runs out. */
rdx_dist_threads *rdx_dist_threads_create(int size);
void rdx_dist_threads_destroy(rdx_dist_threads *g);
/* Rank `rank`'s communicator of the group (the thread that is that rank uses it). */
void rdx_dist_threads_comm(rdx_dist_threads *g, int rank, rdx_dist_comm *out);

/* ---- host memory (engine_cpu.c): the local sort is rdx_sort_* on ctx (CPU backend) ---- */
typedef struct rdx_dist_cpu_view {
    uint64_t *sk;      /* sort keys of the kept keys, NULL: the whole shard */
    size_t *pos;       /* their positions */
    size_t count;
} rdx_dist_cpu_view;
/* An engine on host memory; view (the caller's, zeroed) holds what compact keeps. */
void rdx_dist_cpu_engine(rdx_ctx *ctx, rdx_dist_cpu_view *view, rdx_dist_engine *out);

/* The last phase times of a context (rdx_dist_set_timing). */
struct rdx_dist_times {
    int on;
    double ms[3];
};

/* ---- several devices in one context: the CUDA ranks (multi_cuda.c, or a stub) ---- */
struct rdx_multi_cuda;
/* NCCL communicators (ncclCommInitAll), a context and a stream per device. */
rdx_status rdx_multi_cuda_create(rdx_ctx *ctx, const int *devices, int count, struct rdx_multi_cuda **out);
void rdx_multi_cuda_destroy(struct rdx_multi_cuda *m);
rdx_status rdx_multi_cuda_sort(rdx_ctx *ctx, struct rdx_multi_cuda *m, const rdx_job *job);

#ifdef __cplusplus
}
#endif

#endif /* RDX_DIST_INTERNAL_H */
