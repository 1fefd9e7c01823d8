/* The out-of-core route (docs/low-memory.md): a stable sort of host arrays larger than the
 * device memory the library may use. The arrays stream through the GPU in chunks; the
 * device holds one "class" of C records at a time (C as large as the budget allows) and
 * the low-memory route sorts it there.
 *
 * A segment [lo, hi) of the host arrays (initially all of them) that fits the class
 * buffer is copied in, sorted and copied back. A larger one is split:
 *   1. split: the boundary comes from a sample of the segment's keys, read by the host at
 *      random positions: class 0 is the records below a sampled key, aimed a little under
 *      C of them. When the sample cannot tell (a heavy key at the boundary), or class 0
 *      overflows its buffer in step 2, the exact split runs: streaming the keys through
 *      the GPU, a histogram of one digit of the mapped key (within the sorted bits) picks
 *      the boundary, at most C records below it. When the bucket at the boundary leaves
 *      class 0 less than half full, it is counted again by the next digit; a bucket of one
 *      key value is cut by occurrence (the first c records of that key, in input order,
 *      are class 0).
 *   2. partition: the segment streams through, back to front; class 0 goes to the end of
 *      the class buffer on the device, the other records go back to the host arrays,
 *      packed at the end of the segment in input order. They only land on records that
 *      have already been read: after q chunks from the back, at most the records of those
 *      q chunks are written back, within them. If class 0 outgrows the buffer, the chunks
 *      from there on are left alone and class 0's records so far go back into the gap
 *      between them and the records already packed: every record is in the segment again,
 *      and records of equal keys still in input order.
 *   3. class 0 is sorted on the device and copied to the front of the segment, and the
 *      rest of the segment is sorted the same way.
 * Copies run on their own streams beside the kernels (chunk q + 1 comes in while chunk q
 * is split and chunk q - 1 goes out). Pageable host arrays go through pinned staging
 * buffers; page-locked ones are copied directly. */
#ifndef RDX_CUDA_OUTCORE_H
#define RDX_CUDA_OUTCORE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "internal.h"
#include "tuning_ctx.h"

/* The words of the partition's state (on the device, kept from chunk to chunk). */
enum {
    RDX_OOC_EQ_DONE = 0, /* records of the boundary key in the chunks already split */
    RDX_OOC_FILL = 1,    /* class 0 fills its buffer from this position down */
    RDX_OOC_REST = 2,    /* this chunk: records that go back to the host */
    RDX_OOC_BASE = 3,    /* this chunk: where its class-0 records start in the buffer */
    RDX_OOC_TAKEN = 4,   /* this chunk: its records of the boundary key that are class 0 */
    RDX_OOC_OVER = 5,    /* 1 once class 0 did not fit its buffer: the chunks from that
                            one on are not split (REST is RDX_OOC_NOT_SPLIT) */
    RDX_OOC_WORDS = 8
};
#define RDX_OOC_NOT_SPLIT (~0ull)

/* One chunk on the device, and what the kernels do with it. Keys are compared as v(k):
 * bits [begin, begin + width) of the mapped key. */
typedef struct rdx_ooc_args {
    const void *keys, *vals; /* the chunk (vals NULL: keys alone) */
    size_t m;                /* its records */
    int kb, vb, cls, desc, begin, width;
    /* histogram: keys whose v has the prefix P above bit pl are counted by the digit
       [shift, pl) of v; keys with a smaller prefix in hist[1 << (pl - shift)] */
    int pl, shift;
    unsigned long long prefix;
    unsigned long long *hist;
    /* partition: class 0 is v < key, and the first `take` records (in input order) with
       v == key, of the `count` in the segment */
    unsigned long long key, take, count;
    unsigned long long *tiles; /* [tiles of the chunk]: (below << 32) | equal, then their scan */
    unsigned long long *state; /* RDX_OOC_WORDS */
    void *cls_keys, *cls_vals; /* the class-0 buffer */
    void *out_keys, *out_vals; /* the chunk's other records, packed */
} rdx_ooc_args;

/* The kernels (outcore_kernels.cu); each only enqueues on s. */
cudaError_t rdx_ooc_histogram(const rdx_ooc_args *a, int sms, cudaStream_t s);
cudaError_t rdx_ooc_partition(const rdx_ooc_args *a, cudaStream_t s);

/* Whether the route sorts this job when its arrays are host memory: keys, and pairs with
 * 4- or 8-byte values, without RDX_NUMPY_ORDER. */
int rdx_cuda_outcore_takes(const rdx_job *job);
/* Device bytes that hold the whole job at once (more than that is not used). */
size_t rdx_cuda_outcore_full_bytes(const rdx_job *job);
/* Sorts the job in place with `budget` bytes of device memory at scratch, on stream s
 * (synchronized before it returns; it makes two more streams of its own). */
rdx_status rdx_cuda_outcore_sort(rdx_ctx *ctx, const rdx_job *job, const rdx_cuda_tuning *t, void *scratch,
                                 size_t budget, cudaStream_t s);

#endif /* RDX_CUDA_OUTCORE_H */
