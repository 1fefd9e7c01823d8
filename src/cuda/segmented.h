/* Segmented sorts and RDX_NUMPY_ORDER on the CUDA backend (segmented.cu), by composition
 * of the stream-ordered whole-array sorts with three small kernels:
 *
 *   1. copy the keys, canonicalised under RDX_NUMPY_ORDER (key_codec.h), and argsort the
 *      copy (stable): perm;
 *   2. seg[i] = the segment of key perm[i] (0 before the first segment, num_segments + 1
 *      after the last), and a stable sort of (seg, perm) by seg on the bits seg needs:
 *      perm now lists each segment's keys in order, and the keys outside the segments at
 *      their own positions' ranks;
 *   3. gather keys and values by perm (from copies, so in place works), or write perm
 *      minus the segment's start as the indices; positions outside the segments are not
 *      written.
 *
 * A whole-array sort under RDX_NUMPY_ORDER is the same with one segment and no step 2.
 *
 * These steps are the fallback. When every segment is known to hold at most
 * rdx_seg_tile_max_len keys (equal rows that short, offsets the synchronous calls read on
 * the host, or n that small) they are replaced by the on-chip kernels of seg_tile.h:
 * segments binned by length, a warp per segment of up to 256 keys, a block per segment of
 * up to 16384 (4096 without Hopper's shared memory), each segment read and written once.
 * Otherwise the longer segments go through the segmented passes of seg_passes.h (the
 * whole-array pass kernel with tiles numbered per segment) and the short ones through the
 * on-chip kernels, all decided on the device. The composition is left for the runs the
 * passes do not take (pairs under RDX_NUMPY_ORDER, values of other sizes than 4 and 8
 * bytes, n of 2^32 or more). The choice is seg_route in segmented.cu. On device arrays
 * the synchronous calls take the first two in the caller's arrays on the context's
 * scratch, without copies (run_direct). */
#ifndef RDX_CUDA_SEGMENTED_H
#define RDX_CUDA_SEGMENTED_H

#include <cuda_runtime_api.h>
#include "internal.h"

/* Synchronous whole-array job with job->numpy_order, by composition (from rdx_cuda_sort,
 * which takes the plain routes where the keys hold no special pattern). */
rdx_status rdx_cuda_numpy_sort(rdx_ctx *ctx, const rdx_job *job);

/* 1 when some key of a job in NumPy's order is not its canonical pattern (a NaN other than
 * the canonical one, or -0.0), 0 when none is, -1 when that could not be told. Host keys
 * are read on the host, device keys by a kernel and one read back (synchronous). */
int rdx_cuda_numpy_special_keys(const rdx_job *job);

/* Stream-ordered whole-array job with job->numpy_order, checked by async.cu (device
 * arrays; job->keys_in / values_in for the *_into calls): the temporary bytes it needs,
 * and the call itself. */
rdx_status rdx_cuda_numpy_temp_size(rdx_ctx *ctx, const rdx_job *job, size_t *temp_bytes);
rdx_status rdx_cuda_numpy_enqueue(rdx_ctx *ctx, const char *fn, const rdx_job *job, void *d_temp,
                                  size_t temp_bytes, cudaStream_t stream);

#endif
