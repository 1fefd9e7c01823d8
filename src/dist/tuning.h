/* Every tuning constant of the distributed sort, in one place. */
#ifndef RDX_DIST_TUNING_H
#define RDX_DIST_TUNING_H

/* Bits per level of the distributed radix select. 8 bits: 256 bins per split point, so a
 * 32-bit key needs at most 4 rounds of all-reduce and each round moves at most
 * (P - 1) * 256 * 8 bytes. Wider digits mean fewer rounds (each a round trip of latency)
 * but larger all-reduces and histograms. */
#define RDX_DIST_DIGIT_BITS 8

/* After a select level, the splitters' later levels look only at the keys in the buckets
 * that hold a split point, copied once with their positions (16 bytes each), when they
 * are at most 1/RDX_DIST_COMPACT_DIV of the shard (uniform keys: (P-1)/256 of it after the
 * first level). Skewed shards (one giant bucket, all equal) keep reading the whole shard.
 * On a GPU the copy's room is part of the temporary storage: 16 n / DIV bytes. */
#define RDX_DIST_COMPACT_DIV 8

/* CUDA: threads per block and keys per thread of the histogram, select and partition
 * kernels (src/dist/engine_cuda.cu). A tile is THREADS * ITEMS keys. */
#define RDX_DIST_CUDA_THREADS 256
#define RDX_DIST_CUDA_ITEMS 16

#endif
