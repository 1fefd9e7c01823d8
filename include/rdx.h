/* rdxsort: stable radix sort for NVIDIA GPUs, with a multi-threaded CPU backend.
 *
 * Plain C99; usable from C and C++ without any CUDA header.
 *
 * Key order. Every key is mapped to an unsigned integer of the same width whose
 * unsigned order is the key order: unsigned keys as they are, signed keys with the
 * sign bit flipped, floating-point keys (f16, bf16, f32, f64) in IEEE 754 totalOrder:
 *   -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
 * The mapping is a bijection, so a sort never alters a key. RDX_DESCENDING reverses
 * that order. Every sort is stable: equal keys keep their input order, ascending and
 * descending alike.
 *
 * Errors. No function prints, exits or aborts. Each sort returns an rdx_status; on
 * failure rdx_ctx_error() names the problem, and the arrays are left as they were
 * (every check and allocation happens before the first write). The one exception is a
 * fault the GPU reports after the sort has begun writing them (RDX_ERR_DEVICE from an
 * asynchronous kernel failure, which leaves the CUDA context itself unusable).
 */
#ifndef RDX_H
#define RDX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RDX_VERSION_MAJOR 0
#define RDX_VERSION_MINOR 2
#define RDX_VERSION_PATCH 0

/* The library's version, MAJOR*10000 + MINOR*100 + PATCH, and as "MAJOR.MINOR.PATCH". */
unsigned    rdx_version_number(void);
const char *rdx_version_string(void);

typedef enum rdx_status {
    RDX_OK = 0,
    RDX_ERR_INVALID_ARGUMENT = 1,  /* a NULL pointer, a bad type, a bad bit range, ... */
    RDX_ERR_UNSUPPORTED = 2,       /* valid, but not available in this build or backend */
    RDX_ERR_OUT_OF_MEMORY = 3,     /* host or device memory could not be had */
    RDX_ERR_NO_DEVICE = 4,         /* the CUDA backend was asked for and no GPU is usable */
    RDX_ERR_DEVICE = 5,            /* the CUDA runtime reported an error */
    RDX_ERR_TEMP_TOO_SMALL = 6,    /* caller-provided temporary storage is too small */
    RDX_ERR_INTERNAL = 7
} rdx_status;

/* A short English name for a status ("invalid argument", ...); never NULL, also for
 * values that are no rdx_status ("unknown status"). */
const char *rdx_status_string(rdx_status s);

typedef enum rdx_type {
    RDX_U8 = 1, RDX_U16, RDX_U32, RDX_U64,
    RDX_I8, RDX_I16, RDX_I32, RDX_I64,
    RDX_F16, RDX_BF16, RDX_F32, RDX_F64
} rdx_type;

/* The size in bytes of one key of type t; 0 for a value that is no rdx_type. */
size_t rdx_type_size(rdx_type t);

typedef enum rdx_backend {
    RDX_BACKEND_AUTO = 0,  /* CUDA when a GPU is usable, else CPU */
    RDX_BACKEND_CPU = 1,
    RDX_BACKEND_CUDA = 2
} rdx_backend;

/* A context holds the backend choice, the scratch memory reused across calls and the
 * detail of the last failure. It is not to be shared between threads at once. */
typedef struct rdx_ctx rdx_ctx;

/* Creates a context on *out. Errors: RDX_ERR_INVALID_ARGUMENT (out is NULL or backend
 * is no rdx_backend), RDX_ERR_NO_DEVICE (RDX_BACKEND_CUDA and no usable GPU),
 * RDX_ERR_UNSUPPORTED (RDX_BACKEND_CUDA in a build without the CUDA backend),
 * RDX_ERR_OUT_OF_MEMORY, RDX_ERR_DEVICE (the GPU's properties could not be read). On
 * failure *out is set to NULL. */
rdx_status  rdx_ctx_create(rdx_ctx **out, rdx_backend backend);

/* Frees the context and its scratch memory. NULL is allowed. */
void        rdx_ctx_destroy(rdx_ctx *ctx);

/* The backend actually in use (never RDX_BACKEND_AUTO for a valid context). */
rdx_backend rdx_ctx_backend(const rdx_ctx *ctx);

/* The detail of the last failure on this context, "" if the last call succeeded.
 * Never NULL, also for a NULL context. */
const char *rdx_ctx_error(const rdx_ctx *ctx);

/* The route the last successful sort of one or more keys on this context took: "cpu" on
 * the CPU backend; on the CUDA backend "small" (one block), "cluster" (one thread-block
 * cluster, sm_90+), "grid" (one launch of co-resident blocks), "onesweep" (histograms and
 * LSD passes) or "msd" (most significant digit first, 8-byte integer keys). The MSD route
 * is chosen on the device: after a synchronous sort "msd" or "onesweep (msd declined:
 * skew)"; after a stream-ordered call of rdx_cuda.h the route as planned, "msd (decided
 * on the device)". "" before any sort;
 * failed calls and sorts of 0 keys leave it as it was. Never NULL, also for a NULL
 * context. For reports and tests: the names may grow with new routes. */
const char *rdx_ctx_route(const rdx_ctx *ctx);

#define RDX_DESCENDING 1u
/* Floats as NumPy and PyTorch order them: every NaN (either sign) greater than +inf and
 * all NaNs equal, -0.0 equal to +0.0; keys' bits are never altered and equal keys keep
 * their input order. With RDX_DESCENDING the order is reversed (NaNs first), as
 * torch.sort(descending=True). Ignored for integer keys. begin_bit/end_bit then count
 * bits of that order's mapped key (every NaN maps to the code just above +inf's, -0.0 to
 * +0.0's). */
#define RDX_NUMPY_ORDER 2u
/* Device arrays: scratch of at most 1/8 of the arrays' bytes (keys and values, or keys and
 * indices for an argsort; plus 8 MB), at some cost in speed (docs/low-memory.md): keys,
 * pairs with values of any size and argsort, also under RDX_NUMPY_ORDER, on the CUDA
 * backend. Without the flag the synchronous calls take the same route by themselves when
 * the normal scratch cannot be allocated, so device arrays of up to about 90% of the
 * card sort. Host arrays (keys, pairs with 4- or 8-byte values) take the out-of-core
 * route the same way. Accepted by every call of both backends; it never changes a result
 * (segmented sorts, and host arrays of other jobs, keep the normal route). */
#define RDX_LOW_MEMORY  4u

typedef struct rdx_opts {
    unsigned flags;      /* RDX_DESCENDING | RDX_NUMPY_ORDER | RDX_LOW_MEMORY */
    int begin_bit;       /* sort on bits [begin_bit, end_bit) of the mapped key */
    int end_bit;         /* 0 = the key's full width */
    int radix_bits;      /* digit width, 1..8; 0 = the backend's choice */
} rdx_opts;              /* a NULL rdx_opts* means all defaults (zeroes) */

/* Sorts keys[0..n) of the given type in place, stably, in key order (or its reverse
 * with RDX_DESCENDING), comparing only bits [begin_bit, end_bit) of the mapped keys.
 * keys may be host memory or, with the CUDA backend, device memory.
 * Errors: RDX_ERR_INVALID_ARGUMENT (NULL ctx, NULL keys with n > 0, a bad type, bit
 * range, radix_bits or flag; a device pointer given to the CPU backend),
 * RDX_ERR_OUT_OF_MEMORY, RDX_ERR_DEVICE; keys are unchanged on any error. */
rdx_status rdx_sort_keys(rdx_ctx *ctx, void *keys, size_t n, rdx_type type,
                         const rdx_opts *opts);

/* Sorts keys[0..n) in place as rdx_sort_keys does, and moves values[i] (value_size
 * bytes each, any size > 0) with keys[i], stably. keys and values must not overlap.
 * Errors: as rdx_sort_keys, and RDX_ERR_INVALID_ARGUMENT for NULL values with n > 0,
 * value_size 0, or overlapping arrays; both arrays are unchanged on any error. */
rdx_status rdx_sort_pairs(rdx_ctx *ctx, void *keys, void *values, size_t value_size,
                          size_t n, rdx_type type, const rdx_opts *opts);

/* Writes to indices[0..n) the stable permutation that sorts keys: keys[indices[0]],
 * keys[indices[1]], ... are in order, and equal keys appear by increasing index.
 * keys are not changed. index_type is RDX_U32 (n must be at most 2^32) or RDX_U64.
 * indices must not overlap keys.
 * Errors: as rdx_sort_keys, and RDX_ERR_INVALID_ARGUMENT for NULL indices with n > 0,
 * another index_type, an n that does not fit it, or overlapping arrays; indices are
 * unchanged on any error. */
rdx_status rdx_argsort(rdx_ctx *ctx, const void *keys, size_t n, rdx_type type,
                       void *indices, rdx_type index_type, const rdx_opts *opts);

/* ---- Segmented sorts (version 0.2) ----
 *
 * Sorts each segment s of keys on its own: keys[offsets[s] .. offsets[s+1]) for s in
 * [0, num_segments), with every rule of the whole-array calls (stable, the same options,
 * nothing changed on failure). offsets holds num_segments + 1 non-decreasing entries, the
 * last at most n, in the same kind of memory as keys (host or device); keys (and values)
 * before offsets[0] and after offsets[num_segments] are not touched. offsets == NULL:
 * num_segments equal segments of n / num_segments keys each (n must be a multiple; the
 * rows of a matrix); num_segments = 0 then needs n = 0.
 * Errors: as the whole-array calls, and RDX_ERR_INVALID_ARGUMENT for decreasing offsets,
 * an offset past n, n not a multiple of num_segments, NULL offsets with num_segments 0
 * and n > 0; nothing is changed on any error. */
rdx_status rdx_segmented_sort_keys(rdx_ctx *ctx, void *keys, size_t n, rdx_type type,
                                   const size_t *offsets, size_t num_segments,
                                   const rdx_opts *opts);

/* As rdx_segmented_sort_keys, moving values[i] (value_size bytes each) with keys[i]. */
rdx_status rdx_segmented_sort_pairs(rdx_ctx *ctx, void *keys, void *values, size_t value_size,
                                    size_t n, rdx_type type, const size_t *offsets,
                                    size_t num_segments, const rdx_opts *opts);

/* indices[i] = the position, within its segment, of the key that belongs at i (as
 * numpy.argsort(axis=-1) and torch.sort(dim=-1) return); keys are not changed, and
 * indices outside the segments are not written. RDX_U32 indices need every segment to
 * hold at most 2^32 keys. */
rdx_status rdx_segmented_argsort(rdx_ctx *ctx, const void *keys, size_t n, rdx_type type,
                                 const size_t *offsets, size_t num_segments, void *indices,
                                 rdx_type index_type, const rdx_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* RDX_H */
