/* The matrix benchmark (DESIGN.md section 5, "The matrix"; issue 11): every key type,
 * pairs and argsort, over every distribution of gpu_matrix_gen.h and n = 2^10, 2^12, ...
 * up to the largest that fits beside CUB, rdxsort's stream-ordered call next to CUB
 * DeviceRadixSort in every row (timed alike), each result checked against CUB's. rdx-gpu-bench --matrix
 * runs it (gpu_bench_main.c). Defined in gpu_matrix.cu (the run), gpu_matrix_opts.c (the
 * cases, names and defaults) and gpu_matrix_data.cu (the inputs). */
#ifndef RDX_GPU_MATRIX_H
#define RDX_GPU_MATRIX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the matrix's settings, all in one place ---- */
#define RDX_GM_MIN_LOG2 10       /* the smallest n: 2^10 */
#define RDX_GM_LOG2_STEP 2       /* then 2^12, 2^14, ... */
#define RDX_GM_MAX_LOG2 32       /* the largest n tried (--max-log2 lowers it); sizes that do
                                    not fit in device memory beside CUB are left out, and the
                                    largest power of two that fits is added */
#define RDX_GM_REPEAT 10         /* timed runs per sorter and row; the median is reported */
#define RDX_GM_WARMUP 2          /* untimed runs before them */
#define RDX_GM_BIG_LOG2 30       /* from n = 2^30 on, a run takes 20-300 ms: */
#define RDX_GM_BIG_REPEAT 5      /*   this many timed runs (stated in the table and CSV) */
#define RDX_GM_BIG_WARMUP 1      /*   after this many warm-ups, to keep the matrix ~10 minutes */
#define RDX_GM_QUICK_LOG2 {16, 22, 26}  /* --matrix=quick: every case and distribution here */
#define RDX_GM_FLUSH_L2_TIMES 2  /* before every timed run, a buffer of this many times the L2
                                    size is overwritten, so that no sorter finds its input in
                                    L2 (which would flatter the small sizes) */
#define RDX_GM_MEM_SLACK_MB 1024 /* device memory left free besides the buffers counted */
#define RDX_GM_RATIO_FROM_LOG2 16 /* the target (>= 1.0x CUB) holds from n = 2^16 on */

#define RDX_GM_MAX_CASES 16
#define RDX_GM_MAX_DISTS 16
#define RDX_GM_MAX_SIZES 32

/* One case: keys of a type alone, with values of value_bytes (pairs, values i), or the
 * argsort of the keys into indices of value_bytes (4: RDX_U32, 8: RDX_U64), which CUB
 * does as SortPairs of (key, i). */
typedef struct rdx_gm_case {
    rdx_type key;
    unsigned value_bytes;  /* 0: keys only */
    int argsort;
} rdx_gm_case;

typedef struct rdx_gpu_matrix_opts {
    rdx_gm_case cases[RDX_GM_MAX_CASES];
    size_t ncases;
    int dists[RDX_GM_MAX_DISTS];  /* gm_dist values; each row only where it applies */
    size_t ndists;
    size_t sizes[RDX_GM_MAX_SIZES]; /* none: 2^min_log2, step 2, up to what fits */
    size_t nsizes;
    int min_log2, max_log2;
    int repeat, warmup;           /* below 2^big_log2 */
    int big_log2, big_repeat, big_warmup;
    uint64_t seed;
    const char *tune;             /* rdxsort's route limits (gpu_bench_tune.h), or NULL */
} rdx_gpu_matrix_opts;

/* Every case and distribution; quick: n = RDX_GM_QUICK_LOG2 only. */
void rdx_gpu_matrix_defaults(rdx_gpu_matrix_opts *o, int quick);
/* Keys "u8" "u16" "u32" "i32" "f32" "u64" "i64" "f64"; pairs "u32/u32" "u64/u32"
 * "u64/u64" (also "u32/u64"); argsort of u32 keys "argsort/u32", "argsort/u64" (the
 * index type). Returns 0, or -1 for another name. */
int rdx_gpu_matrix_parse_case(const char *name, rdx_gm_case *c);
void rdx_gpu_matrix_case_name(const rdx_gm_case *c, char *buf, size_t len);
/* A gm_dist by name, or -1; the name of one ("?" for none). */
int rdx_gpu_matrix_parse_dist(const char *name);
const char *rdx_gpu_matrix_dist_name(int dist);

/* Runs the matrix: progress on stderr, the table, any failures, the worst rows and, last,
 * the worst ratio to out; one CSV row per measurement to csv (may be NULL). Returns 0 when
 * every result matched CUB's, 1 when any sort failed or differed, 2 when no GPU is usable. */
int rdx_gpu_matrix_run(const rdx_gpu_matrix_opts *o, FILE *out, FILE *csv);

/* keys[0..n) of type t in distribution dist (gm_dist), on the device (legacy default
 * stream); returns a cudaError_t as an int. In gpu_matrix_data.cu. */
int rdx_gm_fill_keys(void *keys, size_t n, rdx_type t, int dist, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
