/* The distributed sort on GPUs (internal): the layout of a rank's temporary storage, the
 * CUDA engine (engine_cuda.cu) and the NCCL communicator (comm_nccl.c). */
#ifndef RDX_DIST_CUDA_H
#define RDX_DIST_CUDA_H

#include <cuda_runtime_api.h>
#include "dist/nccl_load.h"
#include "dist/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the parts of a rank's temporary device storage go (byte offsets, 256-aligned). */
typedef struct rdx_dist_layout {
    size_t words_off, words;    /* u64 words: histograms, prefixes, split points, all-reduces */
    size_t tiles_off, ntiles;   /* u64 [P + 1][ntiles]: per-tile counts by destination */
    size_t send_keys_off, send_values_off;
    size_t view_off, view_cap;  /* compact's room: view_cap sort keys, then view_cap positions */
    size_t sort_off, sort_bytes; /* the local sort's temporary storage */
    size_t total;
} rdx_dist_layout;

/* The layout for nranks ranks, n_local keys of key_size bytes (values of value_size, 0 for
 * keys only) and a local sort needing sort_bytes. */
void rdx_dist_cuda_layout(int nranks, size_t n_local, size_t key_size, size_t value_size,
                          size_t sort_bytes, rdx_dist_layout *out);

/* The engine's state: the caller keeps it alive while the engine is used. */
typedef struct rdx_dist_cuda_engine_state {
    cudaStream_t stream;
    int nranks;
    uint64_t *d_words;          /* layout.words */
    uint64_t *d_tiles;          /* layout.ntiles per row */
    size_t words, ntiles;
    void *sort_temp;
    size_t sort_bytes;
    uint64_t *d_view;           /* layout.view_cap sort keys, then as many positions */
    size_t view_cap;
    size_t view_count;          /* keys in the view; meaningful while viewing */
    int viewing;                /* compact narrowed the view (reset by finish) */
} rdx_dist_cuda_engine_state;

/* An engine on the calling thread's current GPU; ctx (CUDA backend) gets the errors and
 * runs the local sort. */
void rdx_dist_cuda_engine(rdx_ctx *ctx, rdx_dist_cuda_engine_state *st, rdx_dist_engine *out);

/* The NCCL communicator's state. d_words: device scratch for the all-reduces (the same
 * layout.words as the engine's; the two never use it at once). */
typedef struct rdx_dist_nccl_state {
    ncclComm_t comm;
    cudaStream_t stream;
    uint64_t *d_words;
    size_t words;
    rdx_ctx *ctx;
} rdx_dist_nccl_state;

/* A communicator over an NCCL communicator; fails (recorded on st->ctx) when NCCL does
 * not answer its rank and size. */
rdx_status rdx_dist_nccl_comm(rdx_dist_nccl_state *st, rdx_dist_comm *out);

#ifdef __cplusplus
}
#endif

#endif
