/* Segmented sorts of short segments on chip (seg_tile.cu): every segment of at most
 * rdx_seg_tile_max_len keys is read once and written once by one warp or one block (bins
 * in tuning.h). Longer segments are listed in a bin of their own for seg_passes.cu. The
 * choice of route is seg_route in segmented.cu. */
#ifndef RDX_CUDA_SEG_TILE_H
#define RDX_CUDA_SEG_TILE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

typedef struct rdx_seg_tile_args {
    const void *keys_in;   /* read; may equal keys_out (each segment is read before written) */
    void *keys_out;        /* NULL: keys are not written (argsort) */
    const void *vals_in;   /* values of vs = 4 or 8 bytes moved with the keys, or NULL */
    void *vals_out;
    unsigned vs;
    void *idx_out;         /* the source position of each output key, or NULL */
    unsigned ib;           /* bytes of an idx_out entry: 4 or 8 */
    int idx_abs;           /* 1: idx_out[i] is the position in the array, 0: in the segment */
    size_t n;              /* keys in the array (segments are clamped to it) */
    const size_t *off;     /* S + 1 device offsets, or NULL: S equal segments of seg_size */
    size_t seg_size;
    size_t S;
    size_t max_short;      /* rdx_seg_tile_max_len: longer segments are left to seg_passes.cu */
    int cls, desc;         /* the key codec (key_codec.h) */
    int begin_bit, end_bit;
    int numpy;             /* order by the RDX_NUMPY_ORDER code (floats) */
    uint64_t inf;          /* the float type's +inf pattern, with numpy */
} rdx_seg_tile_args;

/* The longest segment of kb-byte keys the kernels take on a device whose blocks may opt in
 * to smem_optin bytes of shared memory: the largest block bin that fits there
 * (RDX_SEG_TILE_MAX_N on Hopper), and never less than RDX_SEG_BLOCK_SURE_BIN's keys. */
size_t rdx_seg_tile_max_len(int kb, size_t smem_optin);

/* Device scratch of the bins with offsets: RDX_SEG_BINS counts, RDX_SEG_BINS fill
 * counters, and a list of the S segments by bin (4-byte ids, so S < 2^32), the long bin
 * (RDX_SEG_LONG_BIN) last. */
size_t rdx_seg_tile_scratch_bytes(size_t S);

/* With offsets: bins the segments on the device (no host read) into scratch. */
cudaError_t rdx_seg_tile_bin(const rdx_seg_tile_args *a, void *scratch, int sms, cudaStream_t s);

/* Sorts every segment of a (keys of kb bytes) of at most a->max_short keys on stream:
 * with offsets those rdx_seg_tile_bin listed in scratch, without every row when seg_size
 * is that short. Longer segments are not touched. */
cudaError_t rdx_seg_tile_enqueue(int kb, const rdx_seg_tile_args *a, const void *scratch, int sms, cudaStream_t s);

/* Per-device preparation (shared-memory limits of the block kernels). */
cudaError_t rdx_seg_tile_init(void);

#endif
