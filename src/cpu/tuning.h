/* Every tuning constant of the CPU backend, in one place. The numbers were picked with
 * bench/cpu_sort_time.c on the 2-core development machine (see the comments). */
#ifndef RDX_CPU_TUNING_H
#define RDX_CPU_TUNING_H

/* Digit width when the caller passes radix_bits = 0. 8 bits (256 bins, whose counters and
 * write positions stay in L1) needs the fewest passes; 6 and 7 bits measured slower for
 * u32 and u64 keys at n = 2^26 (more passes cost more than the smaller bin table saves). */
#define RDX_CPU_DEFAULT_RADIX_BITS 8

/* Below this many keys a stable insertion sort on the mapped keys beats the radix sort's
 * fixed costs (histograms over every pass, scratch set-up). */
#define RDX_CPU_SMALL_N 64

/* A thread is given at least this many keys; smaller inputs use fewer threads, since
 * waking a thread and the extra histograms cost more than they save. */
#define RDX_CPU_MIN_KEYS_PER_THREAD 65536

/* Software write-combining in the scatter: each bin collects this many bytes of keys in a
 * per-thread, cache-resident buffer and writes them out as one block, instead of one
 * scattered store per key. 64 bytes = one cache line. */
#define RDX_CPU_WC_BYTES 64

/* Use write-combining from this many keys up (below it the buffers do not pay off: the
 * output fits in cache anyway). */
#define RDX_CPU_WC_MIN_N (1u << 16)

/* Per-thread blocks of counters are padded to this many bytes so that two threads never
 * write to the same cache line. */
#define RDX_CPU_CACHE_LINE 64

#endif
