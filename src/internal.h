/* What src/api.c hands to the backends, and what the backends give back.
 * api.c checks every argument, so a backend may trust a job completely. */
#ifndef RDX_INTERNAL_H
#define RDX_INTERNAL_H

#include <stddef.h>
#include "inject.h"
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rdx_job_kind {
    RDX_JOB_KEYS = 0,     /* sort keys in place */
    RDX_JOB_PAIRS = 1,    /* sort keys in place, move values with them */
    RDX_JOB_ARGSORT = 2   /* write the sorting permutation to indices; keys unchanged */
} rdx_job_kind;

/* One checked sort request. */
typedef struct rdx_job {
    rdx_job_kind kind;
    rdx_type type;        /* key type */
    size_t key_size;      /* bytes per key: 1, 2, 4 or 8 */
    size_t n;             /* the public entry points never pass n == 0 to a backend */
    void *keys;           /* KEYS, PAIRS: sorted in place; ARGSORT: read only */
    void *values;         /* PAIRS only */
    size_t value_size;    /* PAIRS only: bytes per value, >= 1 */
    void *indices;        /* ARGSORT only */
    rdx_type index_type;  /* ARGSORT only: RDX_U32 (n <= 2^32) or RDX_U64 */
    int descending;       /* 0 or 1 */
    int numpy_order;      /* 1: RDX_NUMPY_ORDER on a float type (0 for integer types) */
    int low_memory;       /* 1: RDX_LOW_MEMORY */
    int begin_bit;        /* 0 <= begin_bit < end_bit <= 8 * key_size (mapped key bits) */
    int end_bit;
    int radix_bits;       /* 1..8, or 0 for the backend's choice */
    /* CUDA stream-ordered *_into calls only (rdx_cuda.h): the arrays the sort reads when
     * they are not `keys` / `values` themselves (the sorted result goes to keys/values).
     * NULL: the sort reads keys/values (in place). */
    const void *keys_in;
    const void *values_in;
    /* Segmented calls only (segmented = 1): segment s is [offsets[s], offsets[s+1]) when
     * offsets is not NULL (checked: non-decreasing, the last at most n; host memory unless
     * offsets_on_device), else [s * segment_size, (s + 1) * segment_size). Argsort indices
     * are positions within the segment. n == 0 is never passed on. */
    int segmented;
    const size_t *offsets;
    int offsets_on_device;
    size_t num_segments;
    size_t segment_size;  /* offsets == NULL: n / num_segments */
} rdx_job;

struct rdx_cpu_state;     /* defined by src/cpu/ */
struct rdx_cuda_state;    /* defined by src/cuda/ */
struct rdx_multi;         /* defined by src/dist/multi.c: several devices as one */

struct rdx_ctx {
    rdx_backend backend;           /* RDX_BACKEND_CPU or RDX_BACKEND_CUDA */
    char error[512];               /* detail of the last failure, "" if none */
    struct rdx_cpu_state *cpu;     /* CPU scratch, created on first use */
    struct rdx_cuda_state *cuda;   /* CUDA tuning (made with the context), scratch and
                                      streams (created on first use) */
    char route[64];                /* rdx_ctx_route: the route of the last successful sort */
    struct rdx_multi *multi;       /* rdx_ctx_create_devices: the ranks; NULL otherwise */
    struct rdx_dist_times *dist_times; /* rdx_dist_set_timing: the last phase times */
    rdx_inject_state inject;       /* failure injection, a test hook (inject.h) */
};

/* ---- several devices as one (src/dist/multi.c) ---- */

/* Sorts one checked job with every device of ctx->multi. */
rdx_status rdx_multi_sort(rdx_ctx *ctx, const rdx_job *job);
/* Frees ctx->multi and ctx->dist_times (NULL is fine). */
void rdx_multi_release(rdx_ctx *ctx);

/* Records a failure on ctx (printf-style detail) and returns s. Never prints. */
rdx_status rdx_fail(rdx_ctx *ctx, rdx_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* 1 when the byte ranges [a, a + an) and [b, b + bn) share a byte. */
int rdx_ranges_overlap(const void *a, size_t an, const void *b, size_t bn);

/* Checks every argument of a sort request as the public entry points do (DESIGN.md
 * section 2) and fills *job; on failure records the message on ctx (non-NULL) and returns
 * the status. fn names the entry point in messages. values/value_size are read for
 * RDX_JOB_PAIRS only, indices/index_type for RDX_JOB_ARGSORT only. Does not look at where
 * the arrays live. */
/* The bit range and digit width of opts (not NULL) for keys of width bits: RDX_OK, or
 * RDX_ERR_INVALID_ARGUMENT with a message naming fn and the field. */
rdx_status rdx_check_bits(rdx_ctx *ctx, const char *fn, int width, const rdx_opts *opts);
rdx_status rdx_prepare_job(rdx_ctx *ctx, const char *fn, rdx_job_kind kind, const void *keys,
                           void *values, size_t value_size, void *indices, rdx_type index_type,
                           size_t n, rdx_type type, const rdx_opts *opts, rdx_job *job);

/* Checks host-readable offsets[0..num_segments] of a segmented call against n (each
 * entry at most n, none below the one before it) and, for RDX_U32 argsort indices
 * (index_type RDX_U32, else pass 0), that no segment is longer than 2^32. On failure
 * records a message naming the entry and returns RDX_ERR_INVALID_ARGUMENT. */
rdx_status rdx_check_offsets(rdx_ctx *ctx, const char *fn, const size_t *offsets,
                             size_t num_segments, size_t n, int index_type);

/* ---- CPU backend (src/cpu/) ---- */

/* Runs one checked job on host memory. Allocates (or reuses) scratch in ctx->cpu before
 * the first write, so RDX_ERR_OUT_OF_MEMORY leaves every array unchanged. */
rdx_status rdx_cpu_sort(rdx_ctx *ctx, const rdx_job *job);
/* Runs one checked segmented job (job->segmented) on host memory; same guarantees. */
rdx_status rdx_cpu_segmented_sort(rdx_ctx *ctx, const rdx_job *job);
/* Frees ctx->cpu (NULL is fine) and sets it to NULL. */
void rdx_cpu_release(rdx_ctx *ctx);

/* ---- CUDA backend (src/cuda/, or src/cuda_stub.c in a build without it) ---- */

/* 1 when this build has the CUDA backend and a GPU is usable, else 0. */
int rdx_cuda_usable(void);
/* 1 when this build has the CUDA backend, else 0. */
int rdx_cuda_built(void);
/* 1 when p points into device memory that the host cannot read (cudaMalloc'd),
 * 0 for host, pinned or managed memory, or in a build without CUDA. */
int rdx_cuda_is_device_pointer(const void *p);
/* Runs one checked job; each array may be in host or device memory. */
rdx_status rdx_cuda_sort(rdx_ctx *ctx, const rdx_job *job);
/* Runs one checked segmented job (job->segmented); arrays and offsets may be in host or
 * device memory (device offsets are read back and checked before anything is written). */
rdx_status rdx_cuda_segmented_sort(rdx_ctx *ctx, const rdx_job *job);
/* Frees ctx->cuda (NULL is fine) and sets it to NULL. */
void rdx_cuda_release(rdx_ctx *ctx);
/* Makes ctx->cuda for a new CUDA context: the tuning from tuning.h and the current
 * device's properties. Records a failure on ctx. */
rdx_status rdx_cuda_ctx_init(rdx_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* RDX_INTERNAL_H */
