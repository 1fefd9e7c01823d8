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

/* Use write-combining once a pass moves this many bytes (keys and payloads): below it the
 * arrays stay in the 1 MiB L2 between passes, and non-temporal stores would push them out
 * to memory (measured: 2^16 u32 keys 0.5 ms plain against 0.8 ms, 2^18 u32 keys 6.5 ms
 * plain against 3.2 ms, one thread). */
#define RDX_CPU_WC_MIN_BYTES (512u << 10)

/* The most-significant-digit-first hybrid (msd.c): one parallel pass on the top digit,
 * then each bucket sorted on its own by the lower digits, top down, so that uniform keys
 * stop once they differ: about log2(n / RDX_CPU_MSD_LEAF) / radix_bits levels instead of
 * one pass per digit. A level costs several LSD passes (the buckets' own histograms,
 * small scatters, the small buckets), so MSD is chosen only when the bits to sort exceed
 * both RDX_CPU_MSD_MIN_BITS and RDX_CPU_MSD_LEVEL_COST * log2(n / RDX_CPU_MSD_LEAF).
 * Measured, one thread, CPU time, MSD against LSD, each pair run back to back (this
 * shared machine's speed drifts by 2x over minutes): u64 2^17 keys 5.0 / 8.4 ms, 2^20
 * 40 / 37 ms, 2^25 1.2 / 1.35 s; u32 2^17 4.2 / 3.2 ms, 2^20 31 / 26 ms, 2^26 2.2 /
 * 1.7 s (so u32 keys, 32 bits, take LSD); u32 with 6-bit digits, 2^25, 1.24 / 0.85 s. */
#define RDX_CPU_MSD_MIN_BITS 32
#define RDX_CPU_MSD_LEVEL_COST 2

/* ... from this many keys (below, everything is in cache and LSD is as quick) ... */
#define RDX_CPU_MSD_MIN_N (1u << 16)

/* ... and when no bucket of the top digit holds more than 1/RDX_CPU_MSD_SPREAD of the
 * keys: the buckets are shared among the threads, so one giant bucket would leave the
 * other threads idle (skewed data keeps the LSD sort, whose passes split evenly). */
#define RDX_CPU_MSD_SPREAD 4

/* An MSD bucket write-combines its split from this many bytes (keys and payloads) up.
 * Smaller buckets keep ordinary stores: their sub-buckets are sorted right after, while
 * they are still in L2/L3. Chosen by that reasoning, not measured: on this shared machine
 * the difference at 2^26 u64 keys (2 MiB buckets) was within the noise. */
#define RDX_CPU_MSD_WC_MIN_BYTES (4u << 20)

/* A bucket this small is finished directly (each key's place counted) rather than split
 * further. */
#define RDX_CPU_MSD_LEAF 32

/* Per-thread blocks of counters are padded to this many bytes so that two threads never
 * write to the same cache line. */
#define RDX_CPU_CACHE_LINE 64

/* Segmented sorts (segmented.c, row.c). A segment is sorted by one thread in its own
 * buffers (segments spread over the threads) when it holds at most RDX_CPU_SEG_ROW_MAX
 * keys, or at most RDX_CPU_SEG_ROW_CAP keys and no more than 1/(2 x threads) of all the
 * keys in segments; a longer one goes through the whole-array sort above, all threads on
 * it. A row's buffers take about 28 bytes per key. Many long rows are better one per
 * thread: 64 x 2^18 i32, 2 threads on this (loaded) machine, 1.5 s through the parallel
 * sort one row after the other (its barriers wait on descheduled threads) against the
 * same CPU time per key (10.6 / 10.8 ns, one thread) as rows. */
#define RDX_CPU_SEG_ROW_MAX (1u << 16)
#define RDX_CPU_SEG_ROW_CAP (1u << 22)

/* A row of at most RDX_CPU_SEG_RANK_MAX keys is sorted by counting each key's rank
 * (branch-free m^2 comparisons); up to RDX_CPU_SEG_MERGE_MAX by a merge sort (ranked runs
 * of RDX_CPU_SEG_MERGE_RUN, then branch-free merges); longer rows by an LSD radix sort
 * (one histogram read for all digits, constant digits skipped), whose fixed cost per row
 * (clearing and scanning bins x digits counters) pays off from about a hundred keys.
 * Measured with one thread, CPU time, random i32 rows (bench/seg_cpu.py's shapes):
 * ranks instead of an insertion sort: 262144 x 8 20.1 -> 10.9 ms, 65536 x 32 29.2 ->
 * 17.1 ms; rank 16 / run 8 and rank 32 / run 16 were no better. Merge against radix:
 * 65536 x 64 10.7 / 17.1 ns per key, 16384 x 128 12.7 / 11.3, 16384 x 256 14.9 / 9.4,
 * 8192 x 512 17.5 / 8.1. */
#define RDX_CPU_SEG_RANK_MAX 24
#define RDX_CPU_SEG_MERGE_RUN 16
#define RDX_CPU_SEG_MERGE_MAX 96

/* Segments handed to a thread at a time (OpenMP dynamic schedule): enough to keep the
 * scheduling cost off millions of tiny segments, few enough to balance mixed lengths. */
#define RDX_CPU_SEG_CHUNK 16

/* rdx_host_copy (host_copy.c): copies from this many bytes on are split between at most
 * this many threads. With one thread, the out-of-core route on 6 GB of pageable u32 keys
 * took 3.6 s where the page-locked run took 0.53 s (H200 machine, round 14). */
#define RDX_HOST_COPY_MIN_BYTES ((size_t)4 << 20)
#define RDX_HOST_COPY_THREADS 8

#endif
