/* Long segments (more keys than seg_tile.cu's largest bin) sorted by the LSD pass kernel
 * of the whole-array sort, all of them in the same launches (seg_passes.cu): tiles are
 * numbered per segment so that none crosses a segment's edge, the up-front histogram and
 * the digit bases are per segment, and each tile's look-back stops at its segment's first
 * tile. Every long segment is read and written once per pass, as in a whole-array sort of
 * their keys; the number of segments costs nothing per key. Everything is decided on the
 * device (which segments are long, their tiles, which passes run): no host read, safe to
 * capture in a CUDA graph. */
#ifndef RDX_CUDA_SEG_PASSES_H
#define RDX_CUDA_SEG_PASSES_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

typedef struct rdx_seg_passes_args {
    int kb;                 /* key bytes: 1, 2, 4, 8 */
    int vb;                 /* bytes of the values the passes move: 0, 4 or 8 */
    const void *keys_src;   /* what the first pass reads; written only where it is keys_a */
    void *keys_a;           /* the result, or scratch when keys_scratch */
    void *keys_b;           /* scratch of n keys */
    const void *vals_src;   /* NULL: the values start as indices (argsort) */
    void *vals_a;           /* the result values (or indices) */
    void *vals_b;           /* scratch of n values, or NULL */
    int keys_scratch;       /* keys are not part of the result: the last pass writes the values only */
    int leave_in_b;         /* in place (keys_src == keys_a, vals_src == vals_a), without
                               wide_out and orig_keys: after an odd number of passes the
                               result stays in keys_b and vals_b instead of coming back (the
                               caller reads the view's active count); for a caller that
                               reads the long segments once more anyway (the MSD route) */
    int iota_rel;           /* the values start as indices from the segment's start */
    void *wide_out;         /* argsort into 64-bit indices: the passes move 4-byte indices
                               in vals_a (scratch), the fix-up widens them into wide_out
                               (vals_a cannot be the 8-byte array used as a 4-byte one: its
                               first half is other segments' indices); else NULL */
    int numpy;              /* order by RDX_NUMPY_ORDER's canonical code (floats) */
    const void *orig_keys;  /* numpy with the keys in the result (an argsort that writes
                               them too): the keys as read, unchanged by the passes. The
                               last pass writes canonical keys (-0.0 as +0.0, one NaN); the
                               fix-up restores the bits of those from here, by the index.
                               Else NULL */
    uint64_t inf;           /* the float type's +inf pattern, with numpy */
    size_t n;               /* keys in the array; below 2^32 */
    const size_t *off;      /* S + 1 device offsets, or NULL: S equal segments of seg_size */
    size_t S, seg_size;
    const uint32_t *bins;   /* with off: the bins of rdx_seg_tile_bin, or a buffer of their
                               layout (seg_tile.h) in which only the long bin lists segments */
    size_t max_short;       /* segments of more keys than this are long */
    int cls, desc;          /* the key codec (key_codec.h) */
    int begin_bit, end_bit, radix_bits;
    int unordered;          /* keys alone whose equal keys are alike in every bit, sorted over
                               every bit that can differ in a segment, or split by one pass
                               for a caller that sorts each piece whole (the MSD route's
                               deep level): the first pass (the lowest digit) may leave a
                               tile's keys of one digit in any order */
    const uint32_t *one_digit; /* a device word, or NULL: where it is nonzero, every key of a
                                  long segment counts as digit 0 in every pass, no key is
                                  read and no pass runs (the caller sorts the segments
                                  later; the view then shows each as one digit) */
    const uint32_t *bit_less;  /* a device word, or NULL: every digit lies this many bits
                                  below begin_bit + p * radix_bits (the MSD route's drop,
                                  known on the device only; begin_bit less it stays >= 0) */
} rdx_seg_passes_args;

/* Device scratch of rdx_seg_passes_enqueue for `passes` digits (the keys_b and vals_b
 * buffers not included). */
size_t rdx_seg_passes_scratch_bytes(int kb, int vb, size_t n, size_t S, size_t max_short, int passes);

/* What the passes leave in their scratch for a caller's later kernels (device pointers,
 * valid until the scratch is used again). */
typedef struct rdx_seg_passes_view {
    const uint32_t *long_count; /* the long segments, in the order of the arrays below */
    const size_t *start, *end;  /* long segment i's keys: [start[i], end[i]) */
    const uint32_t *bases;      /* pass p's first slot of digit d in long segment i, from
                                   start[i]: bases[(i * passes + p) * 256 + d] */
    const uint32_t *active;     /* how many passes ran */
} rdx_seg_passes_view;

rdx_seg_passes_view rdx_seg_passes_view_of(const rdx_seg_passes_args *a, const void *scratch);

/* Sorts every long segment of a on stream, in the scratch of rdx_seg_passes_scratch_bytes
 * (aligned to 256 bytes). Segments of max_short keys or fewer are not touched. */
cudaError_t rdx_seg_passes_enqueue(const rdx_seg_passes_args *a, void *scratch, int sms, cudaStream_t s);

#endif
