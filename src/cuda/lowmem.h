/* The low-memory route (docs/low-memory.md): a stable sort of device arrays whose
 * temporary storage is about 1/8 of the arrays. Ranges too large for the normal route in
 * that storage are partitioned in place by one digit (lowmem_kernels.cu), and the buckets
 * are then sorted by the normal route, several at a time, or partitioned again.
 *
 * The partition of one range by one digit, in the order the host enqueues it:
 *   1. classify: each stripe (a block of threads) reads its part of the range tile by tile
 *      and writes back full blocks of RDX_LM_BLOCK records of one bucket each, in input
 *      order, over records it has already read; fewer than a block per bucket stay in its
 *      partial buffers. Every full block is tagged with (bucket, its number among the
 *      stripe's blocks of that bucket).
 *   2. layout: where each bucket's blocks go (all full blocks packed, bucket after bucket,
 *      stripe after stripe: the stable order) and where each (bucket, stripe) piece ends
 *      up in the sorted range.
 *   3. permute: the blocks move to their packed slots. The moves form paths and cycles;
 *      pointer jumping finds each cycle's least slot (where it is cut) and each block's
 *      distance to the end of its path, which cuts the paths into segments of at most
 *      `seg` moves. The first block of each segment that another segment overwrites is
 *      saved first; then every segment moves its blocks, last first.
 *   4. place: the records go to their final positions, window by window from the right
 *      through a staging buffer (every record moves right or stays, so a window's sources
 *      are never overwritten before it is read).
 * Host-driven: the host reads each level's bucket counts (a synchronizing read). */
#ifndef RDX_CUDA_LOWMEM_H
#define RDX_CUDA_LOWMEM_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "internal.h"
#include "tuning_ctx.h"

/* A slot that holds no block, and the end of a path. */
#define RDX_LM_NONE 0xffffffffu

/* One level of the partition: a range, its digit, and the tables in temporary storage. */
typedef struct rdx_lm_level {
    void *keys, *vals;            /* the range's first record (keys NULL: an argsort's
                                     records are indices alone; vals NULL: keys alone) */
    size_t len;                   /* records in the range */
    int kb, cls, desc;            /* the sort key's bytes and codec */
    int rkb;                      /* bytes of the key each record moves: kb, or 0 (argsort) */
    int vb, vw, vm;               /* value bytes per record: vm words of vw bytes (0: none) */
    int numpy;                    /* digits of RDX_NUMPY_ORDER's canonical code */
    unsigned long long inf;       /* with numpy: the float type's +inf pattern */
    const void *dkeys;            /* argsort: the keys; a record's digit is that of
                                     dkeys[its index] (NULL: of its own key) */
    int gen;                      /* classify through a permutation of each tile, its records
                                     staged in stk/stv (numpy, argsort, values of other sizes
                                     than 4 and 8 bytes); else they travel in registers */
    void *stk, *stv;              /* with gen: each stripe's tile of records [stripes][tile] */
    int shift, bits;              /* the digit: bits [shift, shift + bits) of the mapped key */
    int begin_bit;                /* the sorted bits start here */
    uint32_t stripes;             /* classification blocks */
    size_t stripe_len;            /* records per stripe, a multiple of RDX_LM_BLOCK */
    uint32_t slots;               /* block slots: stripes * stripe_len / RDX_LM_BLOCK */
    uint32_t seg;                 /* the longest run of moves one walk makes */
    int rounds;                   /* pointer-jumping rounds: 2^rounds >= slots */
    unsigned long long *hist;     /* [2^RDX_LM_DIGIT_BITS] bucket counts, then the keys' OR and
                                     AND (RDX_LM_HIST_OR, RDX_LM_HIST_AND) */
    uint32_t *nf, *pc;            /* [stripes][256] full blocks and partial records */
    uint32_t *wcount;             /* [stripes] blocks written back */
    unsigned long long *dsrc;     /* [bins * stripes]: a piece's first packed position */
    unsigned long long *dst;      /* [bins * stripes + 1]: its first final position */
    uint32_t *tag, *pi, *nx, *jump[2], *val[2], *heads, *saveidx, *counters;
    unsigned long long *bpack;    /* [bins + 1]: where each bucket's full blocks start once
                                     packed (records), then where the last one's end */
    void *pkeys, *pvals;          /* partial buffers [stripes][256][RDX_LM_BLOCK] */
    void *skeys, *svals;          /* saved blocks, and later the staging window */
} rdx_lm_level;

/* The words of hist after the bucket counts. */
#define RDX_LM_HIST_OR ((size_t)1 << RDX_LM_DIGIT_BITS)
#define RDX_LM_HIST_AND (RDX_LM_HIST_OR + 1)
#define RDX_LM_HIST_WORDS (RDX_LM_HIST_OR + 2)

/* The kernels (lowmem_kernels.cu); each only enqueues on s. */
/* Bucket counts of the range by the digit of bits [max(hi - RDX_LM_DIGIT_BITS, begin_bit),
 * hi), and the keys' OR and AND, into hist. */
cudaError_t rdx_lm_histogram(const rdx_lm_level *a, int hi, int sms, cudaStream_t s);
cudaError_t rdx_lm_classify(const rdx_lm_level *a, cudaStream_t s);
/* The classification blocks of a's record shape (kb, vw, gen) that fit on one SM; also
 * allows that kernel its shared memory (call it before rdx_lm_classify). */
cudaError_t rdx_lm_classify_resident(const rdx_lm_level *a, int *per_sm);
cudaError_t rdx_lm_layout(const rdx_lm_level *a, int sms, cudaStream_t s);
cudaError_t rdx_lm_permute(const rdx_lm_level *a, int sms, cudaStream_t s);
/* Gathers the records of final positions [at, at + count) into skeys/svals. */
cudaError_t rdx_lm_gather_window(const rdx_lm_level *a, size_t at, size_t count, int sms, cudaStream_t s);

/* The place step of keys alone sorted by all their bits, where equal keys are equal bit
 * for bit and their order is free. After the permutation bucket b's full blocks lie at
 * [pack[b], pack[b + 1]), left of its final range [fin[b], fin[b + 1]) by shift[b] =
 * fin[b] - pack[b]. What already lies in its final range stays; only the movers move: the
 * first head[b] = min(shift[b], its full records) of them, and its partial records (each
 * stripe's, in stripe order), to the rest of its range, from dest[b] on. Movers are
 * numbered bucket after bucket; bucket b's start at first[b]. */
typedef struct rdx_lm_free_map {
    unsigned long long first[(1 << RDX_LM_DIGIT_BITS) + 1];
    unsigned long long dest[1 << RDX_LM_DIGIT_BITS], head[1 << RDX_LM_DIGIT_BITS];
    unsigned long long pack[1 << RDX_LM_DIGIT_BITS], shift[1 << RDX_LM_DIGIT_BITS];
} rdx_lm_free_map;
/* Moves the movers [at, at + count) (of m's numbering) to their places, through skeys:
 * all of them are read before any is written. */
cudaError_t rdx_lm_free_window(const rdx_lm_level *a, const rdx_lm_free_map *m, size_t at, size_t count, int sms,
                               cudaStream_t s);

/* An argsort's first step: indices[i] = i for i < n (ib: 4 or 8 bytes). */
cudaError_t rdx_lm_iota(void *indices, int ib, size_t n, int sms, cudaStream_t s);
/* keys_out[i] = keys[idx[i]] for i < n (idx of ib bytes), as canonical patterns with numpy
 * (key_codec.h), so that a plain sort of them orders as RDX_NUMPY_ORDER. */
cudaError_t rdx_lm_gather_keys(void *keys_out, const void *keys, int kb, const void *idx, int ib, size_t n, int numpy,
                               unsigned long long inf, int sms, cudaStream_t s);

/* Whether the route sorts this job when its arrays are device memory: every whole-array
 * job (keys, pairs with values of any size, argsort; RDX_NUMPY_ORDER too). Host arrays
 * take the out-of-core route only for what it covers (rdx_cuda_outcore_takes). */
int rdx_cuda_lowmem_takes(const rdx_job *job);
/* The bytes of the job's arrays per record: key, and value or index. */
size_t rdx_cuda_lowmem_record_bytes(const rdx_job *job);
/* Its temporary bytes for the job. */
size_t rdx_cuda_lowmem_temp_bytes(const rdx_cuda_tuning *t, const rdx_job *job);
/* Sorts the job (rdx_cuda_lowmem_takes) in place in temp (temp_bytes of it, at least
 * rdx_cuda_lowmem_temp_bytes) on stream s; waits for s where it reads counts. */
rdx_status rdx_cuda_lowmem_sort(rdx_ctx *ctx, const rdx_job *job, const rdx_cuda_tuning *t, void *temp,
                                size_t temp_bytes, cudaStream_t s);

#endif /* RDX_CUDA_LOWMEM_H */
