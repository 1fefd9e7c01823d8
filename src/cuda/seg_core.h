/* The composition behind segmented sorts and RDX_NUMPY_ORDER (segmented.h says how),
 * shared by the synchronous calls (segmented.cu) and the stream-ordered ones
 * (seg_async.cu). Every array is device memory. */
#ifndef RDX_CUDA_SEG_CORE_H
#define RDX_CUDA_SEG_CORE_H

#include <cuda_runtime_api.h>
#include "internal.h"

typedef struct rdx_seg_run {
    rdx_job_kind kind;
    rdx_type type;
    unsigned kb;              /* key bytes */
    const void *keys_in;      /* read (copied first, so it may be keys_out) */
    void *keys_out;           /* KEYS, PAIRS */
    const void *vals_in;      /* PAIRS */
    void *vals_out;
    size_t vs;
    void *idx_out;            /* ARGSORT: positions within the segment */
    int with_keys;            /* ARGSORT: the sorted keys go to keys_out as well (keys_out
                                 is keys_in or shares no byte with it) */
    rdx_type itype;
    size_t n;
    const size_t *d_off;      /* S + 1 device offsets, or NULL: equal segments of seg_size */
    size_t S;
    size_t seg_size;
    int whole;                /* one segment [0, n): no segment sort (RDX_NUMPY_ORDER alone) */
    rdx_opts opts;            /* of the key sort: direction, bits, digit width; no NUMPY flag */
    int numpy;                /* sort a canonical copy of the keys */
    int own_outs;             /* the outputs are the library's buffers, not the caller's */
    size_t max_len;           /* the longest segment, or an upper bound (n) when not known */
} rdx_seg_run;

/* The routes of a run (chosen by rdx_cuda_seg_plan): the composition of segmented.h, the
 * on-chip kernels of seg_tile.h alone (every segment short), or those with the segmented
 * passes of seg_passes.h for the long segments. */
enum { RDX_SEG_COMPOSE, RDX_SEG_TILE, RDX_SEG_PASSES };

/* Byte offsets of the parts of the temporary storage, from its base aligned to 256. The
 * bins come first; after them the composition's buffers (canon ... sub) or the segmented
 * passes' (segp ... pvals_b) share the space. */
typedef struct rdx_seg_layout {
    size_t bins;                          /* seg_tile.h's bins (with offsets) */
    size_t canon, perm, seg, vcopy, sub, sub_bytes; /* the composition */
    size_t segp, pkeys_a, pkeys_b, pvals_a, pvals_b; /* the segmented passes */
    size_t total;
    unsigned pb, sb;          /* bytes of a permutation entry and of a segment id */
    size_t max_short;         /* the longest segment of the on-chip kernels (rdx_seg_tile_max_len) */
    int route;                /* RDX_SEG_COMPOSE, RDX_SEG_TILE or RDX_SEG_PASSES */
} rdx_seg_layout;

/* The layout (and total temporary bytes) of a run; the total depends on n, S, the types,
 * sizes and options only (not on the route, which also looks at max_len). */
rdx_status rdx_cuda_seg_plan(rdx_ctx *ctx, const rdx_seg_run *r, rdx_seg_layout *L);
/* Enqueues the run on stream with d_temp (L->total bytes); reads nothing on the host. */
rdx_status rdx_cuda_seg_enqueue(rdx_ctx *ctx, const rdx_seg_run *r, const rdx_seg_layout *L, void *d_temp,
                                cudaStream_t stream);
/* A run from a checked job (arrays as the job has them; job->keys_in / values_in honoured). */
void rdx_cuda_seg_run_from_job(const rdx_job *job, rdx_seg_run *r);

#endif
