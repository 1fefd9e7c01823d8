/* Every tuning constant of the CUDA backend, in one place.
 *
 * The values are chosen for Hopper (sm_90, H100/H200) and used unchanged on sm_80 and
 * sm_89 for now: the kernels are stamped at compile time for each (key width, value
 * width), so a change here is a rebuild, nothing more. Each value may also be given on
 * the compiler's command line (-DRDX_OS_THREADS_4=512) for a sweep (scripts/gpu-sweep.sh
 * builds and measures such variants); docs/performance.md and docs/cuda-notes.md record
 * what was measured with which values. Plain C, usable from host and device. */
#ifndef RDX_CUDA_TUNING_H
#define RDX_CUDA_TUNING_H

/* Digit width when opts->radix_bits is 0: 8 bits, four passes for 32-bit keys. Wider
 * digits cannot be used (the ranking counts 256 bins at most). */
#define RDX_CUDA_DEFAULT_RADIX_BITS 8
#define RDX_CUDA_MAX_BINS 256

/* ---- onesweep pass kernel (onesweep.cu): one kernel per digit pass ----
 * A tile is THREADS x ITEMS keys. Larger tiles amortise the look-back and give longer
 * runs per digit in the scatter; the limit is registers (ITEMS keys, and values, per
 * thread) and shared memory (the tile is reordered there). Two shapes:
 *   large  (n > RDX_OS_MEDIUM_MAX_N): long tiles for throughput;
 *   medium (n <= RDX_OS_MEDIUM_MAX_N): short tiles, so that a small input still spreads
 *          over every SM and each tile's chain of steps is short (latency).
 * Each by bytes moved per key (key + value bytes): up to 4 ("_4"), up to 8, up to 16.
 * MIN_BLOCKS is the number of blocks per SM the register allocation must allow
 * (__launch_bounds__): more blocks hide more latency, fewer registers spill.
 * Measured on an H200 (docs/performance.md, "Tile shapes of the pass kernel": 15 shape sets,
 * 2^27 and 2^28 keys, each against CUB in the same run): 384 x 23 at 2 blocks/SM for 4-byte
 * keys (384 x 17 at 3 blocks: 0.94x CUB; 384 x 23: 1.07x; other thread counts than 384
 * lost 10-15% for 4-byte keys), 384 x 26 for 8 bytes per key (u64 keys 1.11x -> 1.24x,
 * u32/u32 1.02x -> 1.14x; 512 x 19 was within 1.5%, slower on u64 in two runs) and
 * 512 x 11 for 16 bytes (u64/u64 0.94x -> 0.97x). Round 11 swept the 16-byte shape on
 * skewed data (u64/u64 at 2^22-2^26, zipf, low entropy, few, uniform): 256 x 20 is 2-6%
 * faster than 512 x 11 at 2^24-2^26 (zipf 2^26 0.91x -> 0.98x CUB; 384 x 12, CUB's tile,
 * 0.95x), within 1% at 2^22. Round 24 swept the 8-byte length again after the pass kernel
 * began loading values after the counting (docs/performance.md, "Round 24"): 26 still
 * beat 20, 22, 23, 28 and 30 at 2^24 - 2^28 (u32/u32 uniform 2^28: 1.04x CUB against
 * 0.95-1.00x). */
#ifndef RDX_OS_THREADS_4
#define RDX_OS_THREADS_4 384
#endif
#ifndef RDX_OS_THREADS_8
#define RDX_OS_THREADS_8 384
#endif
#ifndef RDX_OS_THREADS_16
#define RDX_OS_THREADS_16 256
#endif
#ifndef RDX_OS_ITEMS_4
#define RDX_OS_ITEMS_4 23
#endif
#ifndef RDX_OS_ITEMS_8
#define RDX_OS_ITEMS_8 26
#endif
#ifndef RDX_OS_ITEMS_16
#define RDX_OS_ITEMS_16 20
#endif
/* 3 for 4 bytes: the kernel then fits 56 registers and three blocks of 384 x 23 fit an
 * SM (about 50 KB of shared memory each). The sweep above ran at 56 registers; when a
 * change took it to 64 (two blocks) u32 uniform 2^26 took 1.59 ms against 1.33. */
#ifndef RDX_OS_MIN_BLOCKS_4
#define RDX_OS_MIN_BLOCKS_4 3
#endif
#ifndef RDX_OS_MIN_BLOCKS_8
#define RDX_OS_MIN_BLOCKS_8 2
#endif
#ifndef RDX_OS_MIN_BLOCKS_16
#define RDX_OS_MIN_BLOCKS_16 2
#endif
/* The medium shape. */
#ifndef RDX_OSM_THREADS
#define RDX_OSM_THREADS 256
#endif
#ifndef RDX_OSM_ITEMS
#define RDX_OSM_ITEMS 12
#endif
#ifndef RDX_OSM_MIN_BLOCKS
#define RDX_OSM_MIN_BLOCKS 4
#endif
/* Inputs up to this many keys use the medium shape (256 x 12 beat 256 x 8 and 256 x 4
 * from 2^16 to 2^20; the large shape wins from 2^20 and ties at 2^18). */
#ifndef RDX_OS_MEDIUM_MAX_N
#define RDX_OS_MEDIUM_MAX_N ((size_t)1 << 18)
#endif
/* The mid shape, above RDX_OS_MEDIUM_MAX_N and up to RDX_OS_MID_MAX_N keys, for 8 bytes
 * per key only (u32/u32, u64 keys, 1- and 2-byte keys with 4-byte values; the other
 * classes keep the large shape there): shorter tiles than the large 384 x 26, so that
 * 2^21 - 2^23 keys make more of them. H200, round 23, device call 3 (stream-ordered
 * calls against CUB with 32-bit counts, same run, median of 16): 384 x 20 at 2 blocks/SM
 * took u32/u32 at 2^22 from 1.01x to 1.08x CUB (uniform) and from 0.93x to 1.00x (16
 * values), u64 keys at 2^22 from 1.11x to 1.19x; at 2^24 it was even with 384 x 26
 * (0.958x both; 16 values 0.94x -> 0.93x), from 2^26 on 2-6% slower. 384 x 17 at 3 blocks
 * did as well at 2^22 and worse above. */
#ifndef RDX_OS_MID_MAX_N
#define RDX_OS_MID_MAX_N ((size_t)1 << 23)
#endif
#ifndef RDX_OSD_THREADS_8
#define RDX_OSD_THREADS_8 384
#endif
#ifndef RDX_OSD_ITEMS_8
#define RDX_OSD_ITEMS_8 20
#endif
#ifndef RDX_OSD_MIN_BLOCKS_8
#define RDX_OSD_MIN_BLOCKS_8 2
#endif
/* The segmented passes' shape (seg_passes.cu: the deep levels of the MSD route, long
 * segments): the large one, but the mid one for 8-byte keys alone. At the large shape's 80
 * registers their segmented kernel spilled 132 bytes a thread (ptxas, sm_90; the kernel
 * without segments spills nothing), and the spills went to DRAM: ncu of f64 normal 2^28 on
 * an H100 (round 49) had the deep level's pass write 3.48 GB for 2.19 GB of keys read
 * (L2 took 3.88 GB of writes from the SMs, against 2.39 for level 1's pass on the same
 * keys). The mid shape (384 x 20) keeps them in registers. */
#define RDX_OS_SEG_SHAPE(kb, vb) ((kb) == 8 && (vb) == 0 ? RDX_OS_MID : RDX_OS_LARGE)

/* Keys of 1 and 2 bytes alone ("_2") and 12 bytes per key ("_12": u64/u32, u32/u64, and
 * 1- and 2-byte keys with 8-byte values) have shapes of their own. Measured on an H200
 * (docs/performance.md, "Shapes for 2 and 12 bytes per key", four sets against CUB in one
 * run, 2^22 and 2^26 keys, seven distributions): 512 x 36 for u8 and u16 keys (2^26: u8
 * 1.17x -> 1.36x CUB, u16 0.96x -> 1.18x; 2^22 within 3%; 384 x 40 and 384 x 48 lost up
 * to 20% at 2^22); 384 x 17 for 12 bytes (u64/u32 skewed 2^26 +3-4%, u32/u64 +3-7%;
 * 384 x 15 and 512 x 13 gained less). */
#ifndef RDX_OS_THREADS_2
#define RDX_OS_THREADS_2 512
#endif
/* Round 12: since the counting route takes 2-byte keys from 2^24 on and 1-byte keys from
 * 2^16 (and the grid route up to 2^20), this shape serves u16 at 2^21 - 2^23 (and bit
 * ranges, f16 under RDX_NUMPY_ORDER, segmented passes). There 512 x 19 at 3 blocks/SM
 * (CUB's tile for 2-byte keys, at 40 registers) beat 512 x 36 at 2 (H200, same run, four
 * distributions): u16 uniform at 2^21 / 2^22 / 2^23 0.84 / 1.06 / 1.02x CUB -> 0.99 / 1.19
 * / 1.09x, few 0.77 / 0.91 / 0.89x -> 0.85 / 1.01 / 0.97x, sorted 0.79 / 0.92 / 0.88x ->
 * 0.83 / 1.01 / 0.94x; 512 x 19 at 2 blocks and 512 x 24 gained less. The segmented
 * variant then spills 30 bytes. */
#ifndef RDX_OS_ITEMS_2
#define RDX_OS_ITEMS_2 19
#endif
#ifndef RDX_OS_MIN_BLOCKS_2
#define RDX_OS_MIN_BLOCKS_2 3
#endif
#ifndef RDX_OS_THREADS_12
#define RDX_OS_THREADS_12 384
#endif
#ifndef RDX_OS_ITEMS_12
#define RDX_OS_ITEMS_12 17
#endif
#ifndef RDX_OS_MIN_BLOCKS_12
#define RDX_OS_MIN_BLOCKS_12 2
#endif

/* The shape for key bytes kb, value bytes vb, and size class med: RDX_OS_LARGE,
 * RDX_OS_MEDIUM or RDX_OS_MID (rdx_os_size_class). RDX_OS_HAS_MID: the (kb, vb) that have
 * a mid shape of their own (the 8-byte class); the others take their large one there. */
enum { RDX_OS_LARGE = 0, RDX_OS_MEDIUM = 1, RDX_OS_MID = 2 };
#define RDX_OS_CLASS(kb, vb, X)                                                              \
    (((kb) + (vb)) <= 2 ? X##_2 : ((kb) + (vb)) <= 4 ? X##_4 : ((kb) + (vb)) <= 8 ? X##_8       \
     : ((kb) + (vb)) <= 12 ? X##_12 : X##_16)
#define RDX_OS_HAS_MID(kb, vb) (((kb) + (vb)) > 4 && ((kb) + (vb)) <= 8)
#define RDX_OS_SHAPE(kb, vb, med, X)                                                          \
    ((med) == RDX_OS_MEDIUM ? RDX_OSM_##X                                                     \
     : (med) == RDX_OS_MID && RDX_OS_HAS_MID(kb, vb) ? RDX_OSD_##X##_8 : RDX_OS_CLASS(kb, vb, RDX_OS_##X))
#define RDX_OS_SHAPE_THREADS(kb, vb, med) RDX_OS_SHAPE(kb, vb, med, THREADS)
#define RDX_OS_SHAPE_ITEMS(kb, vb, med) RDX_OS_SHAPE(kb, vb, med, ITEMS)
#define RDX_OS_SHAPE_MIN_BLOCKS(kb, vb, med) RDX_OS_SHAPE(kb, vb, med, MIN_BLOCKS)

/* The pass kernel's grid: each block takes tiles until they run out, so a launch needs no
 * more blocks than run at once. 0 = one block per tile (a new block for every tile); k =
 * at most k times the blocks resident on the device (a launch whose pass is skipped, as
 * the LSD passes behind a taken MSD route, then costs a few hundred blocks, not
 * thousands). H200, 1 against 0: u64/u64 uniform 2^26 (MSD) 3.23 against 3.36 ms, u64/u32
 * zipf 2^26 (LSD) 4.81 against 4.98, u32 uniform 2^22 and 2^26 within 1.5%. */
#ifndef RDX_OS_RESIDENT_WAVES
#define RDX_OS_RESIDENT_WAVES 1
#endif
/* Look-back status word: the low 30 bits hold a count, the top 2 a flag. One launch of
 * the pass kernel may therefore cover at most 2^30 - 1 keys (a "portion"); larger
 * inputs run one launch per portion. */
#define RDX_OS_COUNT_BITS 30
/* Ranking: 1 = __match_any_sync, 0 = one __ballot_sync per digit bit (CUB's choice on
 * sm_80/sm_90, where MATCH.ANY has a low throughput). */
#ifndef RDX_RANK_USE_MATCH_ANY
#define RDX_RANK_USE_MATCH_ANY 0
#endif
/* A pass whose digit takes at most this many values over the whole input ranks with
 * MATCH.ANY (RDX_PASS_FEW, set by the scan kernel), whose cost grows with the distinct
 * digits in a warp; 0 = never. */
#ifndef RDX_RANK_FEW_DIGITS
#define RDX_RANK_FEW_DIGITS 16
#endif
/* Where one value of a pass's digit holds more than 2^-CROWD_LOG2 of the keys
 * (RDX_PASS_CROWDED, set by the scan), an unordered pass (keys alone,
 * rdx_pass_args.unordered) gives that value's lanes their slots with one ballot and one
 * atomic (the segmented passes rank stably): lanes of one atomic that hit one counter
 * queue on it. H200, round 37 call 1, the lowest digit's pass unordered without this:
 * low-entropy keys (digit 0 holds about 60%) lost 1-3% (u32 2^30 21.10 -> 21.37 ms),
 * where uniform, zipf, bucket and sorted keys gained 4-5%. */
#ifndef RDX_RANK_ANY_CROWD_LOG2
#define RDX_RANK_ANY_CROWD_LOG2 3
#endif
/* Nanoseconds a look-back thread sleeps between polls of a status word that is not
 * ready; 0 = spin. */
#ifndef RDX_LOOKBACK_BACKOFF_NS
#define RDX_LOOKBACK_BACKOFF_NS 0
#endif

/* ---- counting route (counting.cu, route_count.cu): 1- and 2-byte keys alone over all
 * their bits ----
 * From RDX_COUNT_MIN_N 1-byte keys and RDX_COUNT16_MIN_N 2-byte keys on (below, the
 * one-launch routes win: 2-byte keys need 65536 bins counted and scanned, ~40 us at any
 * n; on an H200 2-byte keys lost at 2^22, 0.66-0.76x CUB, and won at 2^24, 1.30-1.49x).
 * Threads per block of its three kernels; bins one counting block holds in shared
 * memory (32768: half of the 2-byte values, 128 KB, one block per SM; a 1-byte key's 256
 * bins take 1 KB); blocks per SM of the counting and the writing kernels; and the fewest
 * keys a counting block counts per bin it holds (it adds each bin to global memory with
 * one atomic at the end: below that the adds would cost more than the counting). */
#ifndef RDX_COUNT_MIN_N
#define RDX_COUNT_MIN_N ((size_t)1 << 16)
#endif
#ifndef RDX_COUNT16_MIN_N
#define RDX_COUNT16_MIN_N ((size_t)1 << 24)
#endif
#define RDX_COUNT_THREADS 1024
#define RDX_COUNT_BLOCK_BINS 32768u
#define RDX_COUNT_BLOCKS_PER_SM 2
#define RDX_COUNT_FILL_BLOCKS_PER_SM 2
#define RDX_COUNT_KEYS_PER_BIN 8

/* ---- small-n path (small.cu): one block sorts everything on chip, one launch ----
 * Up to THREADS x ITEMS keys (4096). Above that the onesweep path wins, because one
 * SM ranks about a key per clock while the onesweep path spreads tiles over all SMs. */
#define RDX_SMALL_THREADS 512
#define RDX_SMALL_ITEMS 8
#define RDX_SMALL_MAX_N (RDX_SMALL_THREADS * RDX_SMALL_ITEMS)

/* ---- cluster path (cluster.cu, sm_90 and later): the whole sort in ONE launch of ONE
 * thread-block cluster; blocks exchange digit counts and keys through distributed shared
 * memory, two hardware cluster barriers per pass, no global scratch. Used for
 * RDX_SMALL_MAX_N < n <= RDX_CLUSTER_MAX_N when the device can place the cluster (checked
 * once per device, rdx_cluster_init), before the grid path. */
/* Threads per block (256..1024, a multiple of 32: one thread per digit in the scans).
 * 1024 x 4 measured 1-6 us slower than 512 x 8 from 2^13 to 2^16 on an H200. */
#ifndef RDX_CLUSTER_THREADS
#define RDX_CLUSTER_THREADS 512
#endif
/* Keys each thread holds in registers: a block holds THREADS x ITEMS keys (4096). */
#ifndef RDX_CLUSTER_ITEMS
#define RDX_CLUSTER_ITEMS 8
#endif
#define RDX_CLUSTER_TILE (RDX_CLUSTER_THREADS * RDX_CLUSTER_ITEMS)
/* Most blocks in the cluster: 16 needs Hopper's non-portable cluster size; where the
 * device cannot place 16 blocks of the kernel, 8 (the portable size), else the path is off.
 * Also sizes the count tables in shared memory. At most 16. */
#ifndef RDX_CLUSTER_MAX_BLOCKS
#define RDX_CLUSTER_MAX_BLOCKS 16
#endif
/* Largest input (keys) for this path; above it, and above what the cluster the device
 * can place holds (blocks x TILE), the grid path. 0 disables the path. Measured on an H200 against
 * the grid path (docs/performance.md, sync ms): u32 2^13 0.029/0.033, 2^15 0.032/0.034,
 * 2^16 0.037/0.035; u64 2^13 0.048/0.053, 2^15 0.057/0.057, 2^16 0.067/0.058. */
#ifndef RDX_CLUSTER_MAX_N
#define RDX_CLUSTER_MAX_N ((size_t)1 << 15)
#endif
/* With values (pairs, argsort) only up to this many keys: 0, the grid path served every
 * size with values as fast or faster (u32/u32 2^14: 0.036 against 0.038 ms; u64/u64 2^15:
 * 0.066 against 0.081). The tests raise it to check the kernel's values path. */
#ifndef RDX_CLUSTER_PAIRS_MAX_N
#define RDX_CLUSTER_PAIRS_MAX_N 0
#endif
/* Dynamic shared memory each block asks for at least (bytes). 116 KB is more than half of
 * a Hopper SM's 228 KB, so that every block of the cluster gets an SM of its own (the u32
 * layout needs ~82 KB, and two blocks of it could share an SM and rank at half speed
 * each). 0 (only what the layout needs) measured the same or 1-3 us slower from 2^13 to
 * 2^16 on an H200. */
#ifndef RDX_CLUSTER_SMEM_FLOOR
#define RDX_CLUSTER_SMEM_FLOOR (116 * 1024)
#endif

/* ---- medium-n path (grid.cu): the whole sort in one cooperative launch ----
 * One block per tile of THREADS x ITEMS keys, all resident at once, two grid barriers
 * per pass. Used for RDX_SMALL_MAX_N < n <= RDX_GRID_MAX_N when the grid fits the device
 * (else the onesweep path); RDX_GRID_MAX_N 0 disables the path. Three tile shapes by n,
 * measured on an H200 (docs/performance.md): short tiles where the rank step of each
 * pass decides (n <= 2^16: 256 x 8), longer ones where the number of blocks does
 * (2^18: 512 x 8; 2^19 - 2^20: 512 x 16, which needs 128 blocks at 2^20, one per SM). */
#ifndef RDX_GRID_S_THREADS
#define RDX_GRID_S_THREADS 256
#endif
#ifndef RDX_GRID_S_ITEMS
#define RDX_GRID_S_ITEMS 8
#endif
#ifndef RDX_GRID_S_MAX_N
#define RDX_GRID_S_MAX_N ((size_t)1 << 16)
#endif
#ifndef RDX_GRID_M_THREADS
#define RDX_GRID_M_THREADS 512
#endif
#ifndef RDX_GRID_M_ITEMS
#define RDX_GRID_M_ITEMS 8
#endif
#ifndef RDX_GRID_M_MAX_N
#define RDX_GRID_M_MAX_N ((size_t)1 << 18)
#endif
#ifndef RDX_GRID_L_THREADS
#define RDX_GRID_L_THREADS 512
#endif
#ifndef RDX_GRID_L_ITEMS
#define RDX_GRID_L_ITEMS 16
#endif
/* Keys and pairs alike: since the count sum takes one or two L2 round trips, the grid
 * path beat the onesweep path with values up to 2^20 too (H200, u32/u32 2^19: 0.060
 * against 0.087 ms, u64/u64 2^20: 0.148 against 0.196; docs/performance.md). */
#ifndef RDX_GRID_MAX_N
#define RDX_GRID_MAX_N ((size_t)1 << 20)
#endif
/* Blocks per SM the register allocation of each shape must allow (__launch_bounds__). */
#ifndef RDX_GRID_S_MIN_BLOCKS
#define RDX_GRID_S_MIN_BLOCKS 1
#endif
#ifndef RDX_GRID_M_MIN_BLOCKS
#define RDX_GRID_M_MIN_BLOCKS 1
#endif
#ifndef RDX_GRID_L_MIN_BLOCKS
#define RDX_GRID_L_MIN_BLOCKS 1
#endif
#define RDX_GRID_SHAPES 3
#define RDX_GRID_SHAPE_THREADS(sh) ((sh) == 0 ? RDX_GRID_S_THREADS : (sh) == 1 ? RDX_GRID_M_THREADS : RDX_GRID_L_THREADS)
#define RDX_GRID_SHAPE_ITEMS(sh) ((sh) == 0 ? RDX_GRID_S_ITEMS : (sh) == 1 ? RDX_GRID_M_ITEMS : RDX_GRID_L_ITEMS)
#define RDX_GRID_SHAPE_MIN_BLOCKS(sh) \
    ((sh) == 0 ? RDX_GRID_S_MIN_BLOCKS : (sh) == 1 ? RDX_GRID_M_MIN_BLOCKS : RDX_GRID_L_MIN_BLOCKS)
/* 16-byte count loads in flight per thread when a block adds up the other blocks' digit
 * counts (grid.cu sum_counts: 512 threads, 128 blocks and 8 loads are two L2 round trips). */
#ifndef RDX_GRID_SUM_LOADS
#define RDX_GRID_SUM_LOADS 8
#endif
/* 1: the scatter of each pass also counts the next pass's digits (global atomics), one
 * grid barrier per pass instead of two. Measured slower on an H200 (the atomics cost
 * more than the barrier they save): off. */
#ifndef RDX_GRID_ONE_BARRIER
#define RDX_GRID_ONE_BARRIER 0
#endif
/* 1: the grid barrier of the CUDA runtime (cooperative groups), no barrier word to
 * clear before the launch; 0: our own (an atomic counter, cleared by a memset node).
 * 1 measured 1-19% better against CUB from 2^13 to 2^17 on an H200 (docs/performance.md). */
#ifndef RDX_GRID_CG_SYNC
#define RDX_GRID_CG_SYNC 1
#endif
/* Nanoseconds a block sleeps between polls of the barrier word. */
#ifndef RDX_GRID_POLL_NS
#define RDX_GRID_POLL_NS 32
#endif

/* ---- up-front histogram (histogram.cu): every pass's digit counts in one read ----
 * Each block keeps all passes' bins in shared memory and adds them to global memory
 * once; the grid is capped at BLOCKS_PER_SM per SM and strides over the input. Keys are
 * read 16 bytes per thread per load. */
#ifndef RDX_HIST_THREADS
#define RDX_HIST_THREADS 512
#endif
#ifndef RDX_HIST_BLOCKS_PER_SM
#define RDX_HIST_BLOCKS_PER_SM 4
#endif
/* Blocks of it that must fit an SM at once (launch bounds): the registers stay where they
 * were before the MSD route's range check joined the kernel (40 for keys up to 4 bytes, 3
 * blocks; 60-64 for 8-byte keys, 2 blocks). */
#define RDX_HIST_MIN_BLOCKS(kb) ((kb) == 8 ? 2 : 3)
/* Keys each thread loads (in 16-byte loads, all in flight) before counting them:
 * memory-level parallelism against registers. */
#ifndef RDX_HIST_KEYS
#define RDX_HIST_KEYS 16
#endif
/* Rounds (of RDX_HIST_KEYS keys a thread) from which keys counted over all their bytes
 * take the unrolled round with every shift known when compiled: it counts at 2.8
 * instructions a key and pass against ~6, but its code is 4x longer, and a grid whose
 * threads run it only once or twice spends that on instruction fetch (round 26, H200: the
 * unrolled round for every size made u32 sorts at 2^22 1-2.5% slower, at 2^28 sorted 1.2%
 * faster). At 8 (round 27, H200, A/B of whole sorts against the general loop): u32 at
 * 2^22 and 2^24 within the runs' spread, u32 sorted 2^28 5.142 -> 5.098 ms. */
#ifndef RDX_HIST_BYTES_MIN_ROUNDS
#define RDX_HIST_BYTES_MIN_ROUNDS 8
#endif
/* The histogram's order check (hist.cuh, rdx_hist_order) runs from this many keys on:
 * keys already in the sort's order then skip every LSD pass. It costs keys in no order a
 * few us, whatever n. H100, round 45 (the same build with the check on and off, u32, i32,
 * u64, u32/u32 and argsort/u32; uniform, zipf, reverse; time on / off, mean and range):
 * 2^22 1.017 (0.973-1.040), 2^23 1.002 (0.975-1.021), 2^24 1.000 (0.991-1.015), 2^25 0.999
 * (0.960-1.007); sorted keys took 0.15-0.36 of the time at 2^22-2^24. */
#ifndef RDX_HIST_ORDER_MIN_N
#define RDX_HIST_ORDER_MIN_N ((size_t)1 << 23)
#endif
/* Whole-array sorts of f32 and f64 keys in NumPy's order (RDX_NUMPY_ORDER, ascending) whose
 * keys may hold NaNs or -0.0 take the LSD passes with the canonical codes' digits
 * (rdx_np_key) from this many keys on; fewer go by composition (segmented.cu). H100, round
 * 46 (rdxsort.sort on torch normal tensors, stream-ordered, median of 20; LSD time /
 * composition time): f32 2^14 1.01, 2^16 0.72, 2^18 0.76, 2^20 0.77; f64 2^14 1.03, 2^16
 * 0.75, 2^18 0.91, 2^20 0.85. */
#ifndef RDX_NUMPY_LSD_MIN_N
#define RDX_NUMPY_LSD_MIN_N ((size_t)1 << 15)
#endif
/* From this many keys on, those LSD passes also look for keys special in NumPy's order in
 * the up-front histogram and launch each pass twice: the kernel of canonical digits where
 * one is there, its plain twin where none is (the usual data), a launch that returns at
 * once the other's cost (rdx_pass_args.np_special). The canonical digits cost the pass
 * kernel about a fifth: ncu, H200, round 61, f32 normal 2^28 from Python (the MSD route
 * declines it), four passes 6726 us against 5573 in totalOrder. */
#ifndef RDX_NUMPY_PLAIN_MIN_N
#define RDX_NUMPY_PLAIN_MIN_N ((size_t)1 << 22)
#endif
/* 4-byte keys with 4-byte values (or indices: argsorts, gathers) on the LSD passes move as
 * one 8-byte word a pair (key above value: the 8-byte keys' kernel, one load and one store
 * a pair where the pairs kernel takes two of each; rdx_pass_args.packed) from this many
 * pairs on, on a device
 * whose DRAM peak is below RDX_PACK_FAST_DRAM_GBPS, else from RDX_PACK_PAIRS_FAST_MIN_N.
 * Round 47, u32/u32, packed / apart time of whole sorts (uniform, bucket, zipf, 20 bits,
 * low entropy, few; median of two runs of 10):
 * H100 (3.35 TB/s; ncu, 2^26 uniform, one pass alone: the 8-byte keys' pass 465-476 us,
 * the pairs pass 557-575 us, CUB's pairs pass 505-553 us): 2^23 1.05-1.14, 2^24
 * 1.00-1.10, 2^25 0.94-1.04 (geometric mean 0.98; low entropy 1.04), 2^26 0.90-1.02,
 * 2^27 0.83-1.01, 2^28 (the MSD route declined) 0.87-1.00; 2^31 uniform 0.87.
 * H200 (4.8 TB/s): 2^23 1.05-1.10, 2^24 1.04-1.11, 2^25 1.01-1.07, 2^26 0.99-1.04, 2^27
 * 1.00-1.03, 2^28 0.995-1.025: never. H100 argsorts into 32- and 64-bit indices, the same
 * keys: 2^24 0.99-1.02, 2^25 0.94-1.06, 2^26 0.90-1.02, 2^27 0.82-1.01. */
#ifndef RDX_PACK_PAIRS_MIN_N
#define RDX_PACK_PAIRS_MIN_N ((size_t)1 << 25)
#endif
#ifndef RDX_PACK_PAIRS_FAST_MIN_N
#define RDX_PACK_PAIRS_FAST_MIN_N ((size_t)-1)
#endif
#ifndef RDX_PACK_FAST_DRAM_GBPS
#define RDX_PACK_FAST_DRAM_GBPS 4000
#endif
/* 16-byte vectors a thread loads per round of the histogram's order check (hist.cuh,
 * rdx_hist_order_round), which runs before the counting while a warp finds its keys in
 * order. At 2 the kernel spills at its register caps (ptxas, sm_90: 4- and 8-byte keys),
 * at 1 it does not. */
#define RDX_HIST_ORDER_VECS 1

/* ---- MSD hybrid for 8- and 4-byte keys (msd.cu; docs/cuda-notes.md "The MSD
 * hybrid") ----
 * Integer and float keys, keys only or pairs with 4- or 8-byte values (argsorts and values
 * gathered by index as pairs of indices), the whole key with 8-bit digits: level 1 is the pass
 * kernel on the top digit (source -> B), level 2 a segmented pass on the next digit
 * within each level-1 bucket (B -> A), level 3 one block per level-2 bucket (A -> A, on
 * chip). The constants below are those of 8-byte keys; 4-byte keys take their own
 * MSD4_MIN_N and level-2 shape (after the 8-byte ones) and the rest as they are. Pairs have their own level-2 and level-3 shapes (the *_PAIRS constants below).
 * Measured on an H200 (docs/performance.md, "The MSD route"), keys only: MIN_N, MAX_N and
 * the level-3 constants by sweeps of u64 uniform keys from 2^24 to 5 x 2^26; the level-2
 * and histogram constants are first choices (level 2 runs at the LSD pass kernel's speed).
 * The pairs constants are first choices: run on an H200 (u64/u64 2^27: 2.05x CUB), not swept. */
/* Inputs of at least MIN_N keys (and at most MAX_N) take the route when the skew test
 * passes; the tests lower it through their context's msd_min_n. At 2^24 the route took
 * 1.034 ms against the LSD passes' 0.997; at 2^25 1.318 against 1.819. */
#ifndef RDX_MSD_MIN_N
#define RDX_MSD_MIN_N ((size_t)1 << 25)
#endif
/* Above this the level-2 buckets (n / 65536 keys on average, 5120 here) come too close to
 * the level-3 capacity (6144): many buckets of uniform keys would go to the segmented
 * passes, whose six passes over them cost more than the LSD passes' eight over all. */
#ifndef RDX_MSD_MAX_N
#define RDX_MSD_MAX_N (((size_t)1 << 28) + ((size_t)1 << 26))
#endif
/* 8-byte keys, alone or with values, above MAX_N (PAIRS_MAX_N) take the route up to this
 * many keys where the sample says that the deep level splits the largest level-2 bucket to
 * about the average at MAX_N (the deep test, RDX_MSD_DEEP_SPLIT below; the spread test
 * fails above MAX_N): every level-2 bucket is then long, and the deep level sorts it in
 * two more moves, four in all against the LSD passes' eight. 4-byte keys do not take it:
 * with the deep level their route is four moves, as their LSD passes are (alone, they go
 * on to RDX_MSD4_WIDE_MAX_N with level 3's wide shape, below). H200 round 34
 * (call 3, ms, against the LSD passes of round 33's matrix): u64 uniform 2^30 39.6 / 53.2,
 * 2^31 76.9 / 106.7 (call 2, the sample declining it) (CUB 130.7); u64/u64 uniform 2^31
 * 118.6 / 190.0 (CUB 196.6). The
 * 32-bit slots of levels 2 and 3 keep n below 2^32. */
#ifndef RDX_MSD_DEEP_MAX_N
#define RDX_MSD_DEEP_MAX_N ((size_t)0xFFFFFFFFu)
#endif
/* 4-byte keys: four LSD passes are a higher bar than eight. Round 28, H200, the route
 * against the LSD passes (stream-ordered ms): u32 2^26 1.56 / 1.34, 2^27 2.58 / 2.61,
 * 2^28 4.69 / 5.15; u32/u32 2^27 3.56 / 3.59, 2^28 6.44 / 7.13 (call 4). Where the sample
 * declines the route (skewed keys) the stream-ordered call still pays its gated launches,
 * about 70 us from 2^27 on. (Sorted 0..n-1 was declined until round 29; the route now
 * drops its leading zero bits: u32 2^28 3.89 ms against 5.15.) From 3 x 2^26 (call 7, at 2^27.585): u32
 * 3.64 / 3.88, i32 3.64 / 3.88, u32/u32 5.00 / 5.33; declined: sorted 3.79 / 3.73, low
 * entropy 4.05 / 3.98. */
#ifndef RDX_MSD4_MIN_N
#define RDX_MSD4_MIN_N ((size_t)3 << 26)
#endif
/* When the route is taken, decided on the device before the up-front histogram from a
 * sample of the keys (SAMPLE_CHUNKS runs of 32 keys spread evenly over the array: 16384
 * keys, one block), so that a declined route costs no extra read of the keys. The digits
 * first skip the leading bits that no sampled key varies in (msd.cu, MSD_MAX_DROP), and
 * the tests below are on the digits below them:
 * - SKEW: the largest top-digit bucket holds at most SKEW times the average (n / 256).
 *   Skewed keys make level-2 buckets above level 3's capacity, which the segmented passes
 *   sort over their 48 low bits (as many moves as the LSD passes), and short buckets
 *   with long runs of one key, which level 3 sorts slowly: at 2^25, with SKEW 128, zipf
 *   took 7.5 ms and low entropy 3.3 ms against 2.0 and 2.2 for CUB (and 1.4 ms for
 *   uniform keys).
 * - FEW_PREFIXES: or the keys have at most this many distinct 16-bit prefixes (the
 *   product of the top two digits' distinct values bounds them, and more than one top
 *   digit is used): every level-2 bucket is long, level 3 has next to nothing to do, and
 *   the segmented passes skip the digits each bucket shares (few distinct keys: u64 few
 *   2^25 1.03 ms against 1.81 for CUB). With many distinct keys below the prefixes they
 *   move the keys as often as the LSD passes. */
/* - DEEP_SPLIT (8-byte keys, with either test failing): or the largest level-2 bucket of
 *   the sample (its count of each 16-bit prefix) split DEEP_SPLIT ways by the deep level
 *   would hold at most the route's average bucket at its largest n (max_n / 65536 keys).
 *   (A count-min sketch of two tables of 4096 bins gave it until round 34: its noise, about
 *   10 sampled keys, declined uniform keys from 2^31 on.) Skew with spread below the top two digits (one
 *   top digit holding 90%, normal doubles up to about 2^26) then takes the route, whose
 *   deep level splits the long buckets; a heavy key or low entropy below them (zipf,
 *   AND-ed words) would leave sub-buckets above level 3's capacity or long runs in them,
 *   which level 3 sorts slowly: declined (H200 round 32 call 2, taking every skew: u64
 *   zipf 2^26 14.8 ms, low entropy 11.7 ms against 3.3 and 3.5 for the LSD passes). */
/*   The sample's largest level-2 count is taken less DEEP_SIGMAS times its square root
 *   (a count's noise): the largest of 256 noisy counts overstates the largest bucket by
 *   about 3 of them. Round 37 (H200): u64 "bucket" keys at 2^28 (one top digit holding
 *   90%: 57.6 sampled keys a level-2 bucket of it, the largest about 80, the bound 80)
 *   took the route in some runs (9.6 ms) and the LSD passes in others (13.3 ms). */
#ifndef RDX_MSD_SKEW
#define RDX_MSD_SKEW 8
#endif
#ifndef RDX_MSD_DEEP_SIGMAS
#define RDX_MSD_DEEP_SIGMAS 2
#endif
#ifndef RDX_MSD_DEEP_SPLIT
#define RDX_MSD_DEEP_SPLIT 256
#endif
#ifndef RDX_MSD_FEW_PREFIXES
#define RDX_MSD_FEW_PREFIXES 256
#endif
/* - PAIRS_REPEATS (4-byte keys with values or indices): and not where at least this many
 *   keys of a second sample (16384 single keys at scattered places) equal an earlier one of
 *   it, unless that is half of it or more (few distinct keys, which the route's long
 *   buckets sort fast). Many distinct keys that each repeat (n / 16 to n / 1024 of them)
 *   leave level 3 buckets of dozens of runs of one key, which it sorts on its slow on-chip
 *   LSD passes; the packed LSD passes beat it there. H200 round 54 (u32/u32, the route /
 *   the LSD passes / CUB, ms): n / 256 keys at random places, 2^28 7.93 / 6.83 / 8.25, 2^29
 *   17.22 / 13.53 / 16.50; n / 64 keys as 64 copies, 2^28 10.02 / 6.86 / 8.28 (round 55,
 *   declined: 7.08 ms); n / 16 as 16 copies, 2^29 15.58 / 13.97 / 16.82 (14.21); uniform
 *   keys at 2^29 11.87 / 14.17 / 17.03 and 16 distinct keys 8.56 / 11.30 / 13.36 keep the
 *   route. Random keys of all 32 bits repeat in a sample of 16384 about 0.03 times; n / m
 *   keys each m times about 16384^2 m / 2n times (n / 16 keys at 2^28: 8; at 2^30: 2, so
 *   kept, 1.01x CUB). Keys alone keep the route (repeated u32 2^28 4.61 ms against 4.81
 *   for the LSD passes). 0 (a test's context) never declines. */
#ifndef RDX_MSD_PAIRS_REPEATS
#define RDX_MSD_PAIRS_REPEATS 4
#endif
/* - DEEP2 (8-byte keys, every test above failing; route_msd.cu's second deep level splits
 *   the deep level's long sub-buckets by the 8 bits below its digit): or no 24-bit prefix
 *   holds more than DEEP2_MOST24 sampled keys (counted in DEEP2_BINS hashed bins, which
 *   overstate: about 7 for random keys, 10-11 for normal doubles, against 650-1130 for
 *   low entropy and zipf, whose heavy keys make the long runs that level 3 sorts slowly)
 *   and the largest level-2 bucket, split DEEP_SPLIT x DEEP2_SPLIT ways, holds at most
 *   the route's average bucket at its largest n. Normal doubles at 2^28: 99.9% of the
 *   keys in long level-2 buckets, 61% still in long sub-buckets of the deep level (up to
 *   2.7 x level 3's capacity), none after the second (a model of the matrix's inputs).
 *   H100 round 48: f64 normal 2^27 7.76 -> 5.69 ms, 2^28 14.98 -> 13.77 (CUB 8.56, 17.02). */
#ifndef RDX_MSD_DEEP2_BINS
#define RDX_MSD_DEEP2_BINS 16384u
#endif
#ifndef RDX_MSD_DEEP2_MOST24
#define RDX_MSD_DEEP2_MOST24 32u
#endif
/*   A heavy prefix that is one key value (but for at most DEEP2_MOST24 sampled keys) does
 *   not count, where at most DEEP2_VALUES prefixes are heavy: a value that repeats that
 *   often (np.nan or 0 filling missing data, a sentinel) outgrows level 3 in a sub-bucket
 *   of its own, which the segmented passes leave where it is (round 59), so it makes no
 *   runs. Zipf's heavy keys are single values too, but come as dozens of heavy prefixes
 *   (about 45 of 2^20 ranks) above a tail of keys repeated thousands of times, which
 *   make level 3's runs: declined below MANY_HEAVY_MIN_N (below). H200 round 62: normal doubles with 1% np.nan
 *   at 2^28 took the LSD passes, 13.57 ms against 9.19 without the NaNs. */
#ifndef RDX_MSD_DEEP2_VALUES
#define RDX_MSD_DEEP2_VALUES 8
#endif
/* - DEEP2_VALUES_MANY from MANY_HEAVY_MIN_N keys on: there zipf's heavy keys (about 45 of
 *   2^20 ranks, each a heavy prefix of its own) no longer decline the route: the keys
 *   each repeat more than level 3's runs of RDX_MSD_L3_RUN_MAX, placed without
 *   comparisons, and the route beats the LSD passes; below it, it does not (level 3 puts
 *   the runs of up to 32 keys in order by comparisons). 2^26 since the deep levels split a
 *   heavy key's sub-bucket around it (msd_deep_chunk). H200 round 67 call 5, zipf, the LSD
 *   passes (2^26) or the route before the split (2^25) -> the route with it, ms:
 *     n      u64             f64             u64/u32         u64/u64
 *     2^25   2.231 -> 1.966  2.222 -> 1.953  3.322 -> 2.999  3.608 -> 3.166 (CUB: 2.018,
 *                                                            2.071, 2.447, 2.982)
 *     2^26   3.400 -> 2.965  3.411 -> 2.966  4.674 -> 4.563  5.738 -> 4.900
 *   2^27 since level 3 sorts long runs
 *   of a few keys alone a key at a time (RDX_MSD_L3_MIXED_VALUES). H200 round 66, zipf,
 *   the LSD passes -> the route (call 1 from 2^24, call 2 forced), ms:
 *     n      u64             f64             u64/u32         u64/u64
 *     2^26   3.436 -> 3.527  3.423 -> 3.498  4.714 -> 5.321  5.783 -> 6.060
 *     2^27   6.536 -> 5.734  6.530 -> 5.779  9.120 -> 9.086  11.26 -> 10.41
 *   H200 round 64 call 3, before those runs, the route with 64 slots against the LSD
 *   passes (8 slots), ms:
 *     n      u64             f64             u64/u32         u64/u64
 *     2^26   3.415 -> 3.766  3.418 -> 3.783  4.678 -> 5.338  5.737 -> 5.914
 *     2^27   6.499 -> 6.537  6.508 -> 6.500  9.045 -> 9.158  11.16 -> 10.48
 *     2^28   12.54 -> 11.58  12.54 -> 11.65  17.72 -> 16.60  21.93 -> 19.80
 *     2^29   24.60 -> 22.17  24.55 -> 22.13  35.08 -> 32.32  43.46 -> 38.68
 *   (few, 16 values: 2^26 1.6-4% slower with 64 slots, 2^28-2^29 within 1%). */
#ifndef RDX_MSD_DEEP2_VALUES_MANY
#define RDX_MSD_DEEP2_VALUES_MANY 64
#endif
#ifndef RDX_MSD_MANY_HEAVY_MIN_N
#define RDX_MSD_MANY_HEAVY_MIN_N ((size_t)1 << 26)
#endif
#ifndef RDX_MSD_DEEP2_SPLIT
#define RDX_MSD_DEEP2_SPLIT 64u
#endif
/* - FEW_DEEP: where the sample's 24-bit prefixes (the top two digits and the deep level's
 *   digit below them) set at most this many of DEEP_MAP_BITS hashed bits, the deep level
 *   is skipped: its sub-buckets would stay above level 3's capacity (few distinct keys,
 *   a few tags), so its pass would read every key of the long buckets only for the
 *   segmented passes to sort them anyway; those now cover the deep digit too. (Round 32
 *   added that read: u64 few 2^26 1.62 -> 1.83 ms, u32 few 2^28 3.61 -> 3.98, H200.) A
 *   count of hashed bits undercounts only, by about 3% at 256 in 4096. */
#ifndef RDX_MSD_FEW_DEEP
#define RDX_MSD_FEW_DEEP 256
#endif
#ifndef RDX_MSD_DEEP_MAP_BITS
#define RDX_MSD_DEEP_MAP_BITS 4096
#endif
/* Floats of one sign whose sample spans at least FLOAT_WIDE binades (its least and
 * greatest magnitudes' exponents) are taken to reach FLOAT_TAIL binades below its least
 * magnitude (or down to zero): the route keeps the leading bits that range varies in.
 * Keys with a tail toward zero (uniform in [0, 1), exponential, absolute values) reach
 * far below what 16384 sampled keys see (2^28 uniform doubles in [0, 1) go down to about
 * 2^-28, the sample to 2^-14), and the histogram then found the dropped bits varying:
 * RDX_MSD_MISSED, the LSD passes on a recount (H100, round 50: f64 [0, 1) 2^26 4.21 ms,
 * 2^28 15.6, against 4.37 and 16.96 for CUB). A narrower sample (values within a few
 * binades: [1, 2), prices) keeps its exact range, whose drop makes the top digit fill. */
#ifndef RDX_MSD_FLOAT_WIDE
#define RDX_MSD_FLOAT_WIDE 8
#endif
#ifndef RDX_MSD_FLOAT_TAIL
#define RDX_MSD_FLOAT_TAIL 64
#endif
#ifndef RDX_MSD_SAMPLE_CHUNKS
#define RDX_MSD_SAMPLE_CHUNKS 512
#endif
/* Level 2 (segmented pass) tile shape: the large u64 shape of the pass kernel. */
#ifndef RDX_MSD_L2_THREADS
#define RDX_MSD_L2_THREADS 384
#endif
#ifndef RDX_MSD_L2_ITEMS
#define RDX_MSD_L2_ITEMS 26
#endif
#ifndef RDX_MSD_L2_MIN_BLOCKS
#define RDX_MSD_L2_MIN_BLOCKS 2
#endif
/* Level 2 with values (4 or 8 bytes): the pass kernel's 16-bytes-per-key shape
 * (RDX_OS_*_16, 512 x 11 at 2 blocks/SM); 4-byte values use it too (12 bytes per key is
 * in the pass kernel's 16-byte class). */
#ifndef RDX_MSD_L2_THREADS_PAIRS
#define RDX_MSD_L2_THREADS_PAIRS RDX_OS_THREADS_16
#endif
#ifndef RDX_MSD_L2_ITEMS_PAIRS
#define RDX_MSD_L2_ITEMS_PAIRS RDX_OS_ITEMS_16
#endif
#ifndef RDX_MSD_L2_MIN_BLOCKS_PAIRS
#define RDX_MSD_L2_MIN_BLOCKS_PAIRS RDX_OS_MIN_BLOCKS_16
#endif
/* Level 2 for 4-byte keys: the pass kernel's large shape for their key and value bytes
 * (4, 8 or 12 bytes; RDX_OS_*). Not swept. */
#define RDX_MSD4_L2_THREADS(vb) RDX_OS_SHAPE_THREADS(4, vb, RDX_OS_LARGE)
#define RDX_MSD4_L2_ITEMS(vb) RDX_OS_SHAPE_ITEMS(4, vb, RDX_OS_LARGE)
#define RDX_MSD4_L2_MIN_BLOCKS(vb) RDX_OS_SHAPE_MIN_BLOCKS(4, vb, RDX_OS_LARGE)
/* The level-2 counts (per level-1 bucket and next digit): the up-front histogram's read of
 * the keys counts them where the MSD route is armed (histogram.cu, its joint form: 65536
 * 16-bit counters in a block's shared memory, one block of RDX_HIST_JOINT_THREADS(kb) threads a
 * multiprocessor; 8-byte keys 512, with 128 registers: they spilled at 1024's 64). Level 2
 * read B for them until round 68 (msd_hist_kernel, 4 or 8 bytes a key). H200 round 68
 * (device calls 3, 5; ncu at 2^28: u32 391 + 284 us -> 484 us, u64 659 + 466 -> 728;
 * the matrix's stream-ordered call, medians of 2 x 5, ms): u32 uniform 2^28 4.035 ->
 * 3.856, u32/u32 5.911 -> 5.744, u64 uniform 6.110 -> 5.677, u64 zipf 2^28 8.589 ->
 * 8.181; 8-byte rows at 2^25, the route's least n, 0.4-2.4% faster. */
#define RDX_HIST_JOINT_THREADS(kb) ((kb) == 8 ? 512 : 1024)
/* Level 3: THREADS x ITEMS keys is the capacity of one level-2 bucket (6144 u64 keys);
 * a larger bucket makes the whole sort fall back to the LSD passes before level 2 writes
 * anything. The level-3 digit has about log2(n / 65536) bits (as many bins as an average
 * bucket has keys), between 8 and MAX_BITS; keys that share it are put in order by
 * comparing each with the others; more than RUN_MAX keys that share one are placed without
 * comparisons where they are one key repeated (round 51, msd.cu's msd_runs_at: keys
 * alone keep their slots, pairs go in index order by a bitmap, where the bucket's bins
 * leave room for one), and else the block sorts its bucket with on-chip LSD passes over
 * bits 0-47 instead.
 * Sweep (u64 uniform, ms at 2^25 / 2^26 / 2^27 / 2^28): 512 x 16 at 2 blocks/SM with up
 * to 12 bits 1.627 / 2.378 / 3.944 / 7.060, 11 bits 1.557 / 2.280 / 3.770 / 6.739;
 * 512 x 12 at 3 blocks/SM with 11 bits 1.396 / 2.107 / 3.558 / 6.691, with 10 bits
 * (chosen) 1.318 / 2.019 / 3.497 / 6.698; 256 x 24 at 3 blocks/SM, 11 bits 1.392 /
 * 2.156 / 3.716 / 6.734; 1024 x 8 at 1 block/SM, 12 bits: slower than 512 x 16 at every
 * size (2.114 ms at 2^25). */
#ifndef RDX_MSD_L3_THREADS
#define RDX_MSD_L3_THREADS 512
#endif
#ifndef RDX_MSD_L3_ITEMS
#define RDX_MSD_L3_ITEMS 12
#endif
#ifndef RDX_MSD_L3_MIN_BLOCKS
#define RDX_MSD_L3_MIN_BLOCKS 3
#endif
#define RDX_MSD_L3_CAP (RDX_MSD_L3_THREADS * RDX_MSD_L3_ITEMS)
#ifndef RDX_MSD_L3_MAX_BITS
#define RDX_MSD_L3_MAX_BITS 10
#endif
#ifndef RDX_MSD_L3_RUN_MAX
#define RDX_MSD_L3_RUN_MAX 32
#endif
/* 8-byte keys: a level-3 digit holding more than RUN_MAX keys of at most this many
 * distinct values is sorted a value at a time (msd.cu, msd_l3_mixed_runs8 alone and
 * msd_l3_place_runs with values: a pass over the run each, two with values); more values
 * send the bucket to the on-chip LSD passes (six over 48 bits). Two
 * heavy zipf keys sharing a digit are the case (a model of zipf u64 2^26 on the route:
 * 8% of level-3 buckets, docs/performance.md "Round 65"). H200 round 66 call 1, ms, before
 * -> after: u64 zipf 2^28 11.80 -> 10.81, u64 repeat 2^27 3.61 -> 3.38, 2^28 7.21 -> 6.17
 * (i64 and f64 alike); 8 is a first choice, other counts not measured. */
#ifndef RDX_MSD_L3_MIXED_VALUES
#define RDX_MSD_L3_MIXED_VALUES 8
#endif
/* 4-byte keys: level 3 sorts 16 bits, and its cost is instructions, not bytes (ncu, H200,
 * round 28 call 3: u32 2^28 with 10 bits issued on 89% of cycles, 5.6 warp instructions a
 * key). Its digit aims at 2^BIN_KEYS_LOG2 keys a bin, up to MAX_BITS; the scan costs
 * every bin of MAX_BITS whatever the digit. Round 28 call 4 (H200, stream-ordered ms,
 * MAX_BITS 10 / 11 / 12 with one key a bin): u32 2^27 2.577 / 2.619 / 2.750 (10, 11, 11
 * bits), 2^28 4.697 / 4.677 / 4.920, u32/u32 2^28 6.582 / 6.436 / 6.589 (LSD passes:
 * 2.609, 5.152, 7.128): hence 10 bits at 2^27 and 11 at 2^28. */
#ifndef RDX_MSD4_L3_MAX_BITS
#define RDX_MSD4_L3_MAX_BITS 11
#endif
#ifndef RDX_MSD4_L3_BIN_KEYS_LOG2
#define RDX_MSD4_L3_BIN_KEYS_LOG2 1
#endif
/* 4-byte keys alone: a level-3 bucket of at least one key per 2^COUNT_VALUES_LOG2 of the
 * values below level 2 (16 bits with nothing dropped: 1024 keys) is sorted by counting
 * every value (msd.cu, msd_l3_count_all) instead of a digit and comparisons; that scan
 * costs every value whatever the bucket holds. */
#ifndef RDX_MSD4_L3_COUNT_VALUES_LOG2
#define RDX_MSD4_L3_COUNT_VALUES_LOG2 6
#endif
/* 4-byte keys alone above RDX_MSD_MAX_N (level-2 buckets of more than 5120 keys on
 * average, about all the narrow shape above holds) take level 3's wide shape: one block of
 * WIDE_THREADS x WIDE_ITEMS keys (18432) a multiprocessor, nearly all of them counted
 * (msd_l3_count_all; after 16 equal keys the counts-only shape's counting, whose shared
 * memory its block takes), where the LSD passes would move every key four times; the route
 * then serves them up to WIDE_MAX_N (level-2 buckets of 17408 keys on average, uniform
 * keys about 8 standard deviations below the capacity). H200 round 38 (device calls 3
 * and 6, ms, LSD passes / the route with the wide shape, CUB): u32 uniform 2^29 9.86 /
 * 8.62 (10.82), 2^30 19.65 / 15.53 (21.54); f32 uniform 2^30 19.64 / 15.52 (22.95); u32
 * sorted 2^30 18.97 / 13.69; the same shape at 2^28 took 5.29 ms against the narrow
 * one's 4.10. */
#ifndef RDX_MSD4_L3_WIDE_THREADS
#define RDX_MSD4_L3_WIDE_THREADS 1024
#endif
#ifndef RDX_MSD4_L3_WIDE_ITEMS
#define RDX_MSD4_L3_WIDE_ITEMS 18
#endif
#ifndef RDX_MSD4_L3_WIDE_MIN_BLOCKS
#define RDX_MSD4_L3_WIDE_MIN_BLOCKS 1
#endif
/* 8-byte keys: level 3's wide shape (RDX_MSD_L3_WIDE8), 1024 threads x WIDE8_ITEMS keys:
 * 18432 keys alone, 14336 with 4-byte values, 10240 with 8-byte ones (177-201 KB of shared
 * memory, one block a multiprocessor), above the narrow capacity (6144 keys alone, 5120
 * with values). It sorts on chip the level-2 buckets within its capacity (msd_long_kernel:
 * uniform keys from 2^29, whose buckets of about n / 65536 keys are above the narrow
 * capacity) and the deep level's lone sub-buckets within it (msd_deep_wide_kernel: f64
 * normal 2^28 keeps 62% of its keys in sub-buckets of 1-3 narrow capacities, 90% "bucket"
 * keys at 2^29-2^30 in ones of 1.2-2.4), each where it lies, sparing it the next level's
 * two moves. WIDE8_MAX_BITS: the level-3 digit's most bits there (the counters fit 8448
 * words; at 13 bits pairs have no room for runs of one key). */
#ifndef RDX_MSD_L3_WIDE8_THREADS
#define RDX_MSD_L3_WIDE8_THREADS 1024
#endif
#define RDX_MSD_L3_WIDE8_ITEMS(VB) ((VB) == 0 ? 18 : (VB) == 4 ? 14 : 10)
#ifndef RDX_MSD_L3_WIDE8_MAX_BITS
#define RDX_MSD_L3_WIDE8_MAX_BITS 12
#endif
#ifndef RDX_MSD4_WIDE_MAX_N
#define RDX_MSD4_WIDE_MAX_N (((size_t)1 << 30) + ((size_t)1 << 26))
#endif
/* 4-byte keys alone above RDX_MSD4_WIDE_MAX_N take level 3's counts-only shape: one block
 * of COUNTS_THREADS (1024) threads a multiprocessor sorts a bucket of up to COUNTS_THREADS x
 * COUNTS_ITEMS keys (40960) from the 16-bit counts of its values alone (msd.cu,
 * msd_l3_counts_only: 208 KB of shared memory, no key kept); the route then serves them
 * up to COUNTS_MAX_N (level-2 buckets of 36864 keys on average, uniform keys about 21
 * standard deviations below the capacity; n stays below 2^32, the route's 32-bit slots).
 * COUNTS_ITEMS: a multiple of 8 with an odd quotient (its rows of 8 slots). H200 round 39
 * (device call 1, ms, LSD passes / the route with a first form of this shape, CUB): u32
 * uniform 2^31 39.20 / 32.67 (43.03), f32 uniform 2^31 39.21 / 32.65 (46.41); the same
 * form at 2^30 took 18.40 ms against the wide shape's 15.49. */
#ifndef RDX_MSD4_L3_COUNTS_THREADS
#define RDX_MSD4_L3_COUNTS_THREADS 1024
#endif
#ifndef RDX_MSD4_L3_COUNTS_ITEMS
#define RDX_MSD4_L3_COUNTS_ITEMS 40
#endif
/* Keys a thread of the counts-only shape loads before it counts them (loads in flight).
 * Loading the next bucket's first batch while a bucket is sorted gained nothing (H200 round
 * 39 call 6). */
#ifndef RDX_MSD4_L3_COUNTS_BATCH
#define RDX_MSD4_L3_COUNTS_BATCH 16
#endif
#ifndef RDX_MSD4_COUNTS_MAX_N
#define RDX_MSD4_COUNTS_MAX_N (((size_t)1 << 31) + ((size_t)1 << 28))
#endif
/* 1: level 3 asks the L2 cache for a block's next bucket (where it fits level 3) as it
 * starts a bucket (msd.cu, msd_block_kernel): the wide shapes (one block a multiprocessor)
 * always, the narrow shape of pairs where the level-2 buckets average at most
 * PREFETCH_BYTES of keys and values; 0: never. H200, round 43, device call 4 (the prefetch
 * in every narrow shape; stream-ordered ms, without / with it): u32/u32 uniform 2^28
 * 6.20 / 6.06 (32 KB a bucket), argsort/u64 2^28 6.22 / 6.08 (48 KB), u64/u64 uniform
 * 2^26 3.06 / 2.96 (16 KB) but 2^28 10.60 / 10.73 and sorted 8.86 / 9.15 (64 KB: the
 * prefetched buckets and the current ones outgrow the L2 cache); 4-byte keys alone
 * (counted) lost 1% at 2^28; buckets above level 3's capacity, fetched and then left to
 * the deep level, cost u64 2^30 1.5%; 8-byte keys alone (40 registers) spilled the
 * prefetch's state in their sort and lost 2-5% at 2^26 (call 5). */
#ifndef RDX_MSD_L3_PREFETCH
#define RDX_MSD_L3_PREFETCH 1
#endif
#ifndef RDX_MSD_L3_PREFETCH_BYTES
#define RDX_MSD_L3_PREFETCH_BYTES (48 * 1024)
#endif
/* One block's copy of a range (rdx_block_copy: the deep level's lone sub-buckets above
 * level 3's capacity from B to A, whole or in chunks, and the segmented passes' tiles left
 * in B): loads in
 * flight a thread. A plain loop kept one, and held a heavy key's sub-bucket of millions of
 * keys to a few GB/s (H100, round 51: u64 zipf 2^26 forced onto the route, the deep
 * kernels 6.9 of its 10.6 ms). */
#ifndef RDX_BLOCK_COPY_UNROLL
#define RDX_BLOCK_COPY_UNROLL 16
#endif
/* The deep level's lone sub-buckets above level 3's wide capacity go from B to A in chunks
 * of COPY_CHUNK keys (128 KB of 8-byte keys), each taken by a block of the deep kernel
 * (msd_deep_chunk) after the groups. H200 round 60: a sub-bucket a block, u64 zipf 2^26 on
 * the route 5.9 ms, in chunks 3.9 ms (a heavy key's millions held to one multiprocessor). */
#ifndef RDX_MSD_DEEP_COPY_CHUNK
#define RDX_MSD_DEEP_COPY_CHUNK 16384
#endif
/* Such a sub-bucket is split around a value (msd_deep_chunk) where at least this many of 32
 * keys taken at even steps through it hold that value: a heavy key (zipf's) is then placed
 * once, for one more read of the sub-bucket (the counts), where the next levels would each
 * read it twice and write it twice. One in four: the split pays where that value holds
 * more than about 1/6 of the keys. First choice. */
#ifndef RDX_MSD_SPLIT_SAMPLE_MIN
#define RDX_MSD_SPLIT_SAMPLE_MIN 8
#endif
/* Level 3's grid: this many times the blocks resident on the device, each taking every
 * grid-th level-2 bucket (enough blocks that uneven buckets even out; few enough that a
 * declined route's launch returns in a few microseconds: 65536 blocks took 65 us). */
#ifndef RDX_MSD_L3_WAVES
#define RDX_MSD_L3_WAVES 8
#endif
/* Level 3 with values: a block holds its bucket's keys (each as a rank word with its index
 * within the bucket, for stability: msd.cu) and values in shared memory, CAP x (8 + VB)
 * bytes plus the ranking's counters (17.5 KB); until round 43 the index took 2 bytes more
 * a key. 512 x 10 (5120 keys, 107 KB with 8-byte values then) lets 2 blocks share a
 * 228 KB SM; 512 x 12 (6144, 125 KB then) would allow only one. With
 * uniform keys the buckets average n / 65536 keys: at 2^28 4096 (the largest of 65536
 * about 4400), so pairs take the route up to PAIRS_MAX_N = 2^28; above that uniform
 * keys would come close to the capacity and fall back. Not swept (see above). */
#ifndef RDX_MSD_L3_THREADS_PAIRS
#define RDX_MSD_L3_THREADS_PAIRS 512
#endif
#ifndef RDX_MSD_L3_ITEMS_PAIRS
#define RDX_MSD_L3_ITEMS_PAIRS 10
#endif
#ifndef RDX_MSD_L3_MIN_BLOCKS_PAIRS
#define RDX_MSD_L3_MIN_BLOCKS_PAIRS 2
#endif
#define RDX_MSD_L3_CAP_PAIRS (RDX_MSD_L3_THREADS_PAIRS * RDX_MSD_L3_ITEMS_PAIRS)
#ifndef RDX_MSD_PAIRS_MAX_N
#define RDX_MSD_PAIRS_MAX_N ((size_t)1 << 28)
#endif
/* Level 3's shapes (msd.cu, msd_shape), which plan.cu chooses by the keys' and values'
 * bytes and n (the level-2 buckets average n / 65536 keys): NARROW, several blocks a
 * multiprocessor, for every job up to the context's msd_max_n (keys) or msd_pairs_max_n
 * (pairs); above those, 4-byte keys alone take WIDE (one block of RDX_MSD4_L3_WIDE_* keys
 * a multiprocessor) up to msd4_wide_max_n and COUNTS (RDX_MSD4_L3_COUNTS_*, no key kept)
 * above it; 4-byte keys with 4-byte values take MID (two blocks of RDX_MSD4_L3_MID_*_PAIRS
 * pairs) up to msd4_pairs_mid_max_n and WIDE above it. 8-byte keys keep NARROW, and WIDE8
 * (RDX_MSD_L3_WIDE8_*) sorts their level-2 buckets and the deep levels' lone sub-buckets
 * above NARROW's capacity and within its own. */
enum { RDX_MSD_L3_NARROW = 0, RDX_MSD_L3_WIDE = 1, RDX_MSD_L3_COUNTS = 2, RDX_MSD_L3_MID = 3, RDX_MSD_L3_WIDE8 = 4 };
/* 4-byte keys with 4-byte values (pairs, argsorts, values gathered by index) above
 * PAIRS_MID_MAX_N (below) take level 3's wide shape (RDX_MSD4_L3_WIDE_THREADS x WIDE_ITEMS pairs, keys,
 * values and 16-bit indices: 213 KB of shared memory) up to RDX_MSD4_WIDE_MAX_N, as keys
 * alone do, where the LSD passes would move every pair four times. Its digit is wider than
 * the narrow shapes' (up to WIDE_MAX_BITS_PAIRS bits, about two keys a bin at 2^30: each
 * key is compared with the others of its bin); the block's counters (8192 words) hold 13. */
#ifndef RDX_MSD4_L3_WIDE_MAX_BITS_PAIRS
#define RDX_MSD4_L3_WIDE_MAX_BITS_PAIRS 13
#endif
/* Between PAIRS_MAX_N and PAIRS_MID_MAX_N they take level 3's mid shape: two blocks of
 * MID_THREADS_PAIRS x MID_ITEMS_PAIRS pairs (107 KB each) a multiprocessor, a digit of up to
 * MID_MAX_BITS_PAIRS bits (the counters hold 12). The wide shape's one block a
 * multiprocessor sorted buckets of 5120 pairs at two thirds of the narrow shape's speed a
 * key (H200 round 40, ncu: level 3 of u32/u32 uniform 5 x 2^26 4.49 ms, at 2^28 in the
 * narrow shape 2.43): each block waits for its bucket's loads and barriers alone. Up to
 * PAIRS_MID_MAX_N (level-2 buckets of 8704 pairs on average) uniform keys stay about 5
 * standard deviations below the capacity (9216). */
#ifndef RDX_MSD4_L3_MID_THREADS_PAIRS
#define RDX_MSD4_L3_MID_THREADS_PAIRS 512
#endif
#ifndef RDX_MSD4_L3_MID_ITEMS_PAIRS
#define RDX_MSD4_L3_MID_ITEMS_PAIRS 18
#endif
#ifndef RDX_MSD4_L3_MID_MIN_BLOCKS_PAIRS
#define RDX_MSD4_L3_MID_MIN_BLOCKS_PAIRS 2
#endif
#ifndef RDX_MSD4_L3_MID_MAX_BITS_PAIRS
#define RDX_MSD4_L3_MID_MAX_BITS_PAIRS 12
#endif
#ifndef RDX_MSD4_PAIRS_MID_MAX_N
#define RDX_MSD4_PAIRS_MID_MAX_N (((size_t)1 << 29) + ((size_t)1 << 25))
#endif

/* ---- segmented sorts of short segments (seg_tile.cu, issue 14) ----
 * Segments are binned by length; each bin has one kernel that sorts a whole segment on
 * chip, reading and writing it once. Up to 32 x RDX_SEG_WARP_MAX_ITEMS keys a warp sorts
 * a segment in registers (a bitonic network on (key, position): stable, no shared memory);
 * longer ones take a block and the ranking of rank.cuh (radix passes through shared
 * memory). The warp bins are 32, 64, 128, 256 keys (1, 2, 4, 8 items per lane); the block
 * bins below, each twice the last, so that no segment leaves more than half of its block
 * idle (with bins of 1024, 4096 and 16384 keys, 8192 x 2048 u32 keys took 1.04 ms against
 * CUB's 0.71: H200, round 18, device call 5). The largest bins only where the device lets
 * a block have their shared memory (16384 8-byte keys need 225 KB: Hopper); longer
 * segments go to the segmented passes (seg_passes.cu). */
#define RDX_SEG_WARP_THREADS 256
#define RDX_SEG_WARP_MAX_ITEMS 8
/* The warp bins' kernels run the network on the blocked arrangement (seg_tile.cu), the
 * 2- to 8-item ones at more registers than the striped one took (ptxas unbounded: 60 at 4
 * items, 113 at 8 for u32 keys). Blocks of 256 threads per SM they are compiled for: 4
 * (64 registers) up to 4 items, 2 at 8 items (as many as unbounded: 2 blocks either way).
 * H200, round 20, device call 1, rdx ms striped -> blocked, bound at 4 / unbounded:
 * 16384 x 128 u32 keys 0.0365 -> 0.0340 / 0.0339, u64 0.0474 -> 0.0462 / 0.0482, u32
 * pairs 0.0379 -> 0.0352 / 0.0367; 32768 x 256 (8 items, bound at 3 / unbounded) u32
 * 0.1412 -> 0.1309 / 0.1308, u64 0.1924 -> 0.1938 / 0.1749. */
#define RDX_SEG_WARP_MIN_BLOCKS(items) ((items) <= 4 ? 4 : 2)
/* Block bin b (0 = 1024 keys ... 4 = 16384): threads x keys per thread, and the blocks per
 * SM its kernel is compiled for (__launch_bounds__: its register budget, 64 registers in
 * every bin). The 4096-key bin at 2 blocks: 64 registers (8-byte keys spill 120 bytes)
 * where it had 88 and one block of 512 threads per SM (H200, round 16, device call 2:
 * 1024 x 4096 u32 keys 0.120 -> 0.088 ms, u64 0.233 -> 0.181 ms). The 1024-key bin at 4
 * (61 registers, as with no bound; a bound of 1 gave 88 registers and 0.107 -> 0.140 ms at
 * 4096 x 1024, call 3) gained nothing from 5, 6 or 8 (0.107-0.112 ms). Its other shapes
 * were slower (round 19, call 7, rdx ms at 4096 x 1024 / 16384 x 512 u32 keys, 256 x 4 at 4:
 * 0.107 / 0.362): 512 x 2 at 2 and 4 blocks 0.158 / 0.550 and 0.137 / 0.465, 1024 x 1 at
 * 1 and 2 blocks 0.257 / 0.913 and 0.209 / 0.736; 128 threads cannot scan 256 digits. The
 * 2048- and 8192-key bins (round 18) have the 4096-key bin's 8 keys per thread. */
#define RDX_SEG_BLOCK_BINS 5
#define RDX_SEG_BLOCK_SHAPES {{256, 4, 4}, {256, 8, 4}, {512, 8, 2}, {1024, 8, 1}, {1024, 16, 1}}
#define RDX_SEG_BLOCK_MIN_N 1024 /* bin 0's keys: bin b holds up to 1024 << b */
#define RDX_SEG_TILE_MAX_N (RDX_SEG_BLOCK_MIN_N << (RDX_SEG_BLOCK_BINS - 1))
/* Where the device's shared memory stops the block bins before the largest, segments end
 * at this bin's keys at least (its 8-byte keys need 65 KB). */
#define RDX_SEG_BLOCK_SURE_BIN 2
/* Block bins of at most this many keys per thread rank each pass in one sweep (rank.cuh:
 * four barriers a pass, the ranks held in registers); the others count the digits first
 * (seven barriers, no ranks held). Four were five until round 20 (rdx_block_excl_scan
 * with one barrier; device call 1, 4096 x 1024 u32 keys 0.1064 -> 0.1033 ms, 16384 x 512
 * 0.362 -> 0.349, u64 0.714 -> 0.698). H200, round 18, device call 5, rdx ms with the 1024-key
 * bin in one sweep against none: 16384 x 512 u32 keys 0.627 -> 0.542, u64 1.124 -> 0.991,
 * power law u32 1.017 -> 0.966; 4096 x 1024 0.108 either way. The 4096-key bin in one sweep
 * was slower on full segments (1024 x 4096 u32 0.089 -> 0.100), the 16384-key bin spilled
 * (1024 x 16384 u32 0.361 -> 0.467). */
#ifndef RDX_SEG_ONE_SWEEP_MAX_ITEMS
#define RDX_SEG_ONE_SWEEP_MAX_ITEMS 4
#endif
/* Block bins of at most this many keys per thread pad a short segment to the whole tile
 * with the largest code (sorted last, stably) and rank the full tile: no test per item.
 * H200, round 18, rdx ms without (device call 6) and with (call 7): 16384 x 512 u32 keys (the
 * 1024-key bin) 0.550 -> 0.362, 4096 x 3000 (4096) 0.550 -> 0.311, 16384 x 1500 (2048)
 * 1.058 -> 0.567, 2048 x 6000 (8192) 0.603 -> 0.345, power law 0.934 -> 0.704. The
 * 16384-key bin (16 per thread) spilled more with it: 1024 x 16384 u64 0.834 -> 0.950. */
#ifndef RDX_SEG_PAD_MAX_ITEMS
#define RDX_SEG_PAD_MAX_ITEMS 8
#endif
/* The block bins of at most MAX_ITEMS keys per thread first sort a segment by one digit
 * taken from its own key range and comparisons (seg_range.cuh), when its keys have 4 or 8
 * bytes and the LSD passes would take at least MIN_PASSES; the passes sort it instead
 * where more than RUN_MAX keys share that digit or the comparisons would cost more than
 * RUN_WORK per key (the sum of the squared digit counts over the keys: a run of r keys
 * costs each of them r comparisons). BY_VALUE: floats over all their bits try a digit
 * from their values first, then the code's (round 59: the other way round, normal data
 * failed the code's digit, a wasted count, on every tile: ncu, H200, kernel us, by code
 * first -> by value first: 4096 x 1024 float32 106.9 -> 90.9 (int32 78.9 -> 78.4),
 * 2048 x 2048 float32 115.0 -> 98.7, float64 160.6 -> 144.7, 1024 x 4096 float64 168.0
 * -> 148.8; integers unchanged within 1%). H200, round 21, device call 3, rdx ms with the committed
 * bins -> with it (RUN_MAX 16, RUN_WORK 4): 4096 x 1024 u32 0.1026 -> 0.0596, u64 0.2034
 * -> 0.0839, u32/u32 0.1100 -> 0.0659; 16384 x 512 u32 0.349 -> 0.154, u64 0.699 ->
 * 0.214; 1024 x 4096 u32 0.087 -> 0.067; 4096 x 3000 u32 0.307 -> 0.199, u64 0.620 ->
 * 0.253; power law u32 0.721 -> 0.563. The 16384-key bin (16 per thread) spilled:
 * 1024 x 16384 u64 0.824 -> 0.880, so it keeps the passes (MAX_ITEMS 8). Device call 2,
 * the knobs at run time (rdx us, 4096 x 1024 / 1024 x 16384 u64): RUN_MAX 32 and no work
 * limit 91 / 884, 16 and 4 90 / 877, 16 and 3 91 / 1372, 8 and 3 97 / 1689, 16 and 6
 * 89 / 878; normal float32 rows from Python (4096 x 1024) 178 us without BY_VALUE, 144-150
 * with it. RUN_WORK 6 was tried in the final run (device call 6): it sends rows of 4096
 * int32 ids below 1000 (about 4 equal keys a digit) to the comparisons, which took 158 us
 * from Python where RUN_WORK 4 left them to the passes (96 us, call 3). */
#ifndef RDX_SEG_RANGE_MAX_ITEMS
#define RDX_SEG_RANGE_MAX_ITEMS 8
#endif
#ifndef RDX_SEG_RANGE_MIN_PASSES
#define RDX_SEG_RANGE_MIN_PASSES 3
#endif
#ifndef RDX_SEG_RUN_MAX
#define RDX_SEG_RUN_MAX 16
#endif
#ifndef RDX_SEG_RUN_WORK
#define RDX_SEG_RUN_WORK 4
#endif
#ifndef RDX_SEG_BY_VALUE
#define RDX_SEG_BY_VALUE 1
#endif
/* Bins: 4 warp bins, the block bins, then the long segments' bin. */
#define RDX_SEG_SHORT_BINS (4 + RDX_SEG_BLOCK_BINS)
#define RDX_SEG_LONG_BIN RDX_SEG_SHORT_BINS
#define RDX_SEG_BINS (RDX_SEG_SHORT_BINS + 1)
/* Blocks per SM of the persistent launches (each loops over its bin's segments). */
#define RDX_SEG_BLOCKS_PER_SM 8

/* ---- the segmented passes (seg_passes.cu): long segments through the pass kernel ----
 * One block numbers the long segments' tiles (a scan over the segments); the per-segment
 * up-front histogram runs this many blocks per SM, each over a run of tiles. */
#define RDX_SEGP_TILES_THREADS 1024
#define RDX_SEGP_HIST_THREADS 512
#define RDX_SEGP_HIST_BLOCKS_PER_SM 4

/* ---- simple grid-stride kernels (copy back, iota, gather) ---- */
#define RDX_COPY_THREADS 256
#define RDX_COPY_BLOCKS_PER_SM 8

/* ---- the low-memory route (lowmem.cu, lowmem_kernels.cu; docs/low-memory.md) ----
 * Its temporary storage: 1/8 of the arrays' bytes plus this much (tables, and room for
 * small inputs to be sorted directly). */
#define RDX_LM_SLACK_BYTES ((size_t)8 << 20)
/* When that much cannot be allocated, the synchronous calls take what the device has free
 * less this margin (left to the driver and other allocations). */
#define RDX_LM_FREE_MARGIN_BYTES ((size_t)256 << 20)
/* Bits of the digit each level of the partition splits by. 16 buckets of n/16 records fit
 * the 1/8 scratch (skewed buckets go one level down), and a stripe's partial buffers are
 * 16 x RDX_LM_BLOCK records instead of 256 x: two stripes per SM fit any budget (with 8 bits
 * a 2^24-key sort had 16 stripes and took 15x the normal route; H200, round 13). */
#define RDX_LM_DIGIT_BITS 4
/* Records per block of the in-place partition: the unit the permutation moves (1 KB for
 * u32 keys). Its tables hold 9 words per block. */
#define RDX_LM_BLOCK 256u
/* The classification kernel: threads, items per thread (its tile is their product), and
 * stripes (one block each) per SM. Each stripe keeps a partial block per bucket on the
 * side, so stripes cost scratch: fewer are used where the budget is small. H200, round 20,
 * device call 3, low-memory ms at 2^28 with 2 / 3 / 4 stripes per SM (2 again at the end):
 * u32 uniform 15.37 / 15.16 / 15.10 (15.39), u32 90% in one bucket 31.21 / 30.39 / 30.18
 * (31.32), u64 uniform 26.80 / 26.45 / 26.40, u32/u32 bucket 43.58 / 41.71 / 40.95
 * (43.55); the same scratch. Round 22 (partial blocks in shared memory; stripes capped at
 * what is resident), call 3, u32 uniform: 16 items 12.19 ms, 8 stripes per SM 12.25, the
 * values here 12.27. */
#define RDX_LM_THREADS 256
#define RDX_LM_ITEMS 8
#define RDX_LM_STRIPES_PER_SM 4
/* A stripe spans at least this many blocks (small ranges get fewer stripes). */
#define RDX_LM_MIN_STRIPE_BLOCKS 16u
/* The permutation kernels' threads, and the blocks of its walk per SM. */
#define RDX_LM_MOVE_THREADS 128
#define RDX_LM_MOVE_BLOCKS_PER_SM 16
/* Blocks a walk's threads read ahead of the one they write (each thread holds this many
 * times RDX_LM_BLOCK / RDX_LM_MOVE_THREADS records in registers). */
#define RDX_LM_WALK_AHEAD 4
/* Records per thread of a chunk of the place step's gather (the pieces at a chunk's ends
 * are searched once per chunk). */
#define RDX_LM_GATHER_ITEMS 8

/* ---- the out-of-core route (outcore.cu, outcore_kernels.cu; docs/low-memory.md) ----
 * Records stream through the GPU in chunks of this many bytes (keys and values): long
 * enough for a copy at full PCIe speed, short beside the device. Pageable arrays take four
 * pinned staging buffers of a chunk's keys or values (two in, two out). */
#define RDX_OOC_CHUNK_BYTES ((size_t)64 << 20)
/* Bits of the digit the split counts keys by: its bins fit shared memory, and a bucket is
 * 1/4096 of uniform keys (class 0 fills its buffer to within that). */
#define RDX_OOC_DIGIT_BITS 12
/* The split picks its boundary from this many keys read at random positions of the
 * segment (by the host: no stream of the keys over PCIe), aiming class 0 this many
 * standard deviations of the sample's quantile below the class buffer's size, so that it
 * overflows about once in 10^6 splits (then the exact split runs, with a histogram). At
 * 2^14 keys and 1.5x the buffer, class 0 fills it to about 97%. */
#define RDX_OOC_SAMPLE 16384
#define RDX_OOC_SAMPLE_SIGMAS 5.0
/* The partition kernels' threads and items per thread (a tile is their product), and the
 * threads of the one-block scan over a chunk's tiles. */
#define RDX_OOC_THREADS 256
#define RDX_OOC_ITEMS 8
#define RDX_OOC_SCAN_THREADS 1024

/* ---- host arrays: copied through two pinned staging buffers of this size ---- */
#define RDX_STAGING_BYTES ((size_t)32 << 20)

#endif /* RDX_CUDA_TUNING_H */
