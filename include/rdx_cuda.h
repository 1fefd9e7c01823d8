/* rdxsort for CUDA programmers: stream-ordered sorts of device buffers that allocate
 * nothing and never synchronize, so they can be captured in a CUDA graph.
 *
 * Usage: ask for the temporary storage once (it depends on n, the key type, the options,
 * the value or index size and the GPU the context sorts on, never on the data), allocate
 * it, then enqueue as many
 * sorts as you like on your stream:
 *
 *     size_t bytes;
 *     rdx_cuda_sort_keys_temp_size(ctx, n, RDX_F32, NULL, &bytes);
 *     cudaMalloc(&d_temp, bytes);
 *     rdx_cuda_sort_keys_async(ctx, d_keys, n, RDX_F32, NULL, d_temp, bytes, stream);
 *
 * The *_into variants sort out of place (inputs unchanged, results in other arrays) with
 * the same temporary storage and no extra copy.
 *
 * ctx must be a context of the CUDA backend; it only receives error details and the
 * planned route (rdx_ctx_route: "msd (decided on the device)" where the MSD route's
 * choice is made when the sort runs), so it is not to be used by two threads at once. Every array is device memory (cudaMalloc or
 * managed) aligned to its element size (values of other sizes than 4 and 8 bytes: any
 * alignment); anything else is refused with RDX_ERR_INVALID_ARGUMENT. Arguments are checked
 * as the synchronous functions of rdx.h check them, and the same key order, stability
 * and options apply. Errors found before anything is enqueued leave every array
 * unchanged; RDX_ERR_DEVICE means a launch failed; failures inside kernels show up
 * later, on the stream, as with any CUDA work. The temporary storage must stay allocated
 * and untouched until the sort has finished on the stream.
 *
 * On sm_90 and later a sort of several launches chains them (programmatic dependent
 * launch): each of its kernels waits for the work ahead of it on the stream before it
 * reads anything, and lets the launch behind it start early. Work you enqueue after a sort
 * sees its results as usual; a kernel of yours launched with the attribute
 * cudaLaunchAttributeProgrammaticStreamSerialization must call
 * cudaGridDependencySynchronize() before it reads them, as after any kernel that lets its
 * dependents start early.
 *
 * RDX_LOW_MEMORY (keys, pairs, argsort; RDX_NUMPY_ORDER too): the temp-size queries give
 * the small size (1/8 of the arrays plus 8 MB), and the sort reads bucket counts back on the
 * host as it goes, so it waits for the stream and cannot be captured in a graph; the
 * *_into calls copy the input to the output first and sort there. */
#ifndef RDX_CUDA_H
#define RDX_CUDA_H

#include <cuda_runtime_api.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes to *temp_bytes the temporary storage rdx_cuda_sort_keys_async needs for these
 * arguments (0 for n = 0). Errors: RDX_ERR_INVALID_ARGUMENT (no CUDA context, NULL
 * temp_bytes, a bad type or option). */
rdx_status rdx_cuda_sort_keys_temp_size(rdx_ctx *ctx, size_t n, rdx_type type, const rdx_opts *opts,
                                        size_t *temp_bytes);

/* Enqueues on `stream` a stable in-place sort of the device array d_keys[0..n), as
 * rdx_sort_keys does. d_temp holds at least the bytes rdx_cuda_sort_keys_temp_size gave.
 * Errors: RDX_ERR_INVALID_ARGUMENT (as rdx_sort_keys, or d_keys not device memory, or
 * d_temp NULL), RDX_ERR_TEMP_TOO_SMALL (temp_bytes below the size needed),
 * RDX_ERR_DEVICE (a launch failed). */
rdx_status rdx_cuda_sort_keys_async(rdx_ctx *ctx, void *d_keys, size_t n, rdx_type type, const rdx_opts *opts,
                                    void *d_temp, size_t temp_bytes, cudaStream_t stream);

/* Enqueues a stable out-of-place sort: the sorted d_keys_in[0..n) go to d_keys_out[0..n),
 * and d_keys_in is left unchanged. d_keys_in == d_keys_out is allowed and is the in-place
 * sort of rdx_cuda_sort_keys_async; arrays that overlap otherwise are refused. The
 * temporary storage is the one rdx_cuda_sort_keys_temp_size gives (the same as in place).
 * No extra copy: the first pass reads d_keys_in, the last writes d_keys_out (use it
 * instead of a copy followed by rdx_cuda_sort_keys_async); only when no pass has
 * anything to move (every key has the same sorted bits) are the keys copied across.
 * Errors: as rdx_cuda_sort_keys_async, and RDX_ERR_INVALID_ARGUMENT for d_keys_in or
 * d_keys_out NULL (with n > 0), not device memory or not aligned, or overlapping without
 * being the same pointer. A call that fails writes nothing. */
rdx_status rdx_cuda_sort_keys_into_async(rdx_ctx *ctx, const void *d_keys_in, void *d_keys_out, size_t n,
                                         rdx_type type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                         cudaStream_t stream);

/* Temporary storage for rdx_cuda_sort_pairs_async with values of value_size bytes.
 * Errors: as rdx_cuda_sort_keys_temp_size, and value_size 0. */
rdx_status rdx_cuda_sort_pairs_temp_size(rdx_ctx *ctx, size_t value_size, size_t n, rdx_type type,
                                         const rdx_opts *opts, size_t *temp_bytes);

/* Enqueues a stable in-place sort of d_keys[0..n) that moves d_values[i] (value_size
 * bytes each) with d_keys[i], as rdx_sort_pairs does. Values of 4 and 8 bytes move with
 * the keys; other sizes are gathered once at the end. Errors: as
 * rdx_cuda_sort_keys_async, and rdx_sort_pairs's rules for values. */
rdx_status rdx_cuda_sort_pairs_async(rdx_ctx *ctx, void *d_keys, void *d_values, size_t value_size, size_t n,
                                     rdx_type type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                     cudaStream_t stream);

/* Enqueues a stable out-of-place sort of pairs: the keys of d_keys_in[0..n), sorted, go
 * to d_keys_out, and d_values_in[i] (value_size bytes each) goes where d_keys_in[i] went,
 * in d_values_out. Inputs are left unchanged. Keys and values each may be in place (the
 * input pointer equal to the output pointer) or out of place, independently. Refused
 * with RDX_ERR_INVALID_ARGUMENT: an input that overlaps its output without being it, any
 * key array that overlaps any value array, and as rdx_cuda_sort_keys_into_async for each
 * array. Temporary storage: rdx_cuda_sort_pairs_temp_size (the same as in place). Other
 * errors: as rdx_cuda_sort_pairs_async. A call that fails writes nothing. */
rdx_status rdx_cuda_sort_pairs_into_async(rdx_ctx *ctx, const void *d_keys_in, void *d_keys_out,
                                          const void *d_values_in, void *d_values_out, size_t value_size, size_t n,
                                          rdx_type type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                          cudaStream_t stream);

/* Temporary storage for rdx_cuda_argsort_async with indices of index_type (RDX_U32 or
 * RDX_U64). Errors: as rdx_cuda_sort_keys_temp_size, and rdx_argsort's index rules. */
rdx_status rdx_cuda_argsort_temp_size(rdx_ctx *ctx, size_t n, rdx_type type, rdx_type index_type,
                                      const rdx_opts *opts, size_t *temp_bytes);

/* Enqueues the writing of the stable sorting permutation of d_keys[0..n) to
 * d_indices[0..n), as rdx_argsort does; d_keys is not changed. Errors: as
 * rdx_cuda_sort_keys_async, and rdx_argsort's rules for indices. */
rdx_status rdx_cuda_argsort_async(rdx_ctx *ctx, const void *d_keys, size_t n, rdx_type type, void *d_indices,
                                  rdx_type index_type, const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                  cudaStream_t stream);

/* ---- Segmented sorts (version 0.2) ----
 *
 * As rdx_segmented_sort_keys / _pairs / rdx_segmented_argsort of rdx.h, stream-ordered:
 * d_offsets (num_segments + 1 entries) is device memory, or NULL for num_segments equal
 * rows. These calls never read device memory on the host, so they do not check the
 * offsets' values: offsets that decrease or pass n give an unspecified order of the
 * keys in [0, n) (never an access outside the arrays); every other rule is checked as
 * in rdx.h (n a multiple of the rows, d_offsets device memory aligned to 8 bytes, ...).
 * RDX_U32 indices need n <= 2^32 here (the segments' lengths are not known on the host).
 * The temporary storage depends on n, num_segments, the types, sizes and options only. */
rdx_status rdx_cuda_segmented_sort_keys_temp_size(rdx_ctx *ctx, size_t n, rdx_type type, size_t num_segments,
                                                  const rdx_opts *opts, size_t *temp_bytes);
rdx_status rdx_cuda_segmented_sort_keys_async(rdx_ctx *ctx, void *d_keys, size_t n, rdx_type type,
                                              const size_t *d_offsets, size_t num_segments, const rdx_opts *opts,
                                              void *d_temp, size_t temp_bytes, cudaStream_t stream);
rdx_status rdx_cuda_segmented_sort_pairs_temp_size(rdx_ctx *ctx, size_t value_size, size_t n, rdx_type type,
                                                   size_t num_segments, const rdx_opts *opts, size_t *temp_bytes);
rdx_status rdx_cuda_segmented_sort_pairs_async(rdx_ctx *ctx, void *d_keys, void *d_values, size_t value_size,
                                               size_t n, rdx_type type, const size_t *d_offsets,
                                               size_t num_segments, const rdx_opts *opts, void *d_temp,
                                               size_t temp_bytes, cudaStream_t stream);
rdx_status rdx_cuda_segmented_argsort_temp_size(rdx_ctx *ctx, size_t n, rdx_type type, size_t num_segments,
                                                rdx_type index_type, const rdx_opts *opts, size_t *temp_bytes);
rdx_status rdx_cuda_segmented_argsort_async(rdx_ctx *ctx, const void *d_keys, size_t n, rdx_type type,
                                            const size_t *d_offsets, size_t num_segments, void *d_indices,
                                            rdx_type index_type, const rdx_opts *opts, void *d_temp,
                                            size_t temp_bytes, cudaStream_t stream);

/* The segmented argsort that writes the sorted keys as well, as torch.sort(dim=-1) returns
 * both: d_indices as rdx_cuda_segmented_argsort_async writes them, and d_keys_out each
 * segment of d_keys_in in order (the keys of the input, bit for bit under RDX_NUMPY_ORDER
 * too: -0.0 and NaN payloads survive); keys outside the segments are not written. One sort
 * instead of an argsort and a gather. d_keys_out is d_keys_in (in place) or shares no byte
 * with it; d_indices shares none with either. Temporary storage: as much as
 * rdx_cuda_segmented_argsort_temp_size gives. Errors: as rdx_cuda_segmented_argsort_async,
 * and RDX_ERR_INVALID_ARGUMENT for a NULL or misaligned d_keys_out or overlapping arrays. */
rdx_status rdx_cuda_segmented_sort_with_indices_async(rdx_ctx *ctx, const void *d_keys_in, void *d_keys_out,
                                                      size_t n, rdx_type type, const size_t *d_offsets,
                                                      size_t num_segments, void *d_indices, rdx_type index_type,
                                                      const rdx_opts *opts, void *d_temp, size_t temp_bytes,
                                                      cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* RDX_CUDA_H */
