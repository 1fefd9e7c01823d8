/* The segmented-sort benchmark (issue 14): rdxsort's stream-ordered segmented sorts
 * (rdx_cuda.h) against CUB DeviceSegmentedSort (StableSortKeys / StableSortPairs) and CUB
 * DeviceSegmentedRadixSort (SortKeys / SortPairs), in the same run, on device arrays, each
 * rdxsort result checked against CUB's. rdx-gpu-bench --segmented runs it
 * (gpu_bench_main.c). Defined in gpu_seg.cu (the run), gpu_seg_opts.c (cases, shapes,
 * defaults), gpu_seg_data.cu (keys, segment offsets, the order check) and gpu_seg_cub.cu
 * (the two CUB peers). */
#ifndef RDX_GPU_SEG_H
#define RDX_GPU_SEG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "rdx.h"
#include "gpu_bench.h"      /* rdx_gpu_case, rdx_gpu_bench_case_name */
#include "gpu_bench_data.h" /* rdx_gb_verdict, rdx_gb_fill_values */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the benchmark's settings, all in one place ---- */
#define RDX_GS_REPEAT 10          /* timed runs per sorter and row; the median is reported */
#define RDX_GS_WARMUP 2           /* untimed runs before them */
#define RDX_GS_FLUSH_L2_TIMES 2   /* before every timed run this many times the L2 size is
                                     overwritten, so that no sorter finds its input in L2 */
#define RDX_GS_MEM_SLACK_MB 512   /* device memory left free besides the buffers counted */
/* "powerlaw": Lomax (Pareto II) segment lengths floor(scale * (u^(-1/alpha) - 1)), mean
 * scale / (alpha - 1) = 100, about 3% of them 0 (empty segments), the tail heavy (infinite
 * variance), each length at most POWER_MAX_LEN; segments are drawn until POWER_TOTAL keys
 * (the last one cut to fit), about 168k segments. */
#define RDX_GS_POWER_ALPHA 1.5
#define RDX_GS_POWER_SCALE 50.0
#define RDX_GS_POWER_MAX_LEN ((size_t)1 << 20)
#define RDX_GS_POWER_TOTAL ((size_t)1 << 24)
/* "huge+tiny": one segment of HUGE_LEN keys in the middle of TINY_COUNT segments of
 * 1..TINY_MAX keys each (uniform): one block-per-segment sorter's worst case. */
#define RDX_GS_HUGE_LEN ((size_t)1 << 23)
#define RDX_GS_TINY_COUNT ((size_t)1 << 20)
#define RDX_GS_TINY_MAX 16

#define RDX_GS_MAX_CASES 16
#define RDX_GS_MAX_SHAPES 32

/* The segment layouts. */
typedef enum rdx_gs_kind {
    RDX_GS_ROWS = 0,      /* rows x cols: equal segments (rdxsort: offsets NULL) */
    RDX_GS_POWERLAW = 1,  /* power-law lengths, see RDX_GS_POWER_* */
    RDX_GS_HUGE_TINY = 2  /* one huge segment among many tiny ones, see RDX_GS_HUGE_LEN */
} rdx_gs_kind;

typedef struct rdx_gs_shape {
    int kind;             /* rdx_gs_kind */
    size_t rows, cols;    /* RDX_GS_ROWS only */
} rdx_gs_shape;

typedef struct rdx_gpu_seg_opts {
    rdx_gpu_case cases[RDX_GS_MAX_CASES];  /* key type, value bytes (0: keys only) */
    size_t ncases;
    rdx_gs_shape shapes[RDX_GS_MAX_SHAPES];
    size_t nshapes;
    int repeat, warmup;
    uint64_t seed;
} rdx_gpu_seg_opts;

/* Full: shapes 65536x32 16384x128 4096x1024 1024x16384 64x2^20 4x2^24 powerlaw huge+tiny
 * 8192x2048 4096x3000, cases u32 f32 u64 u32/u32 f32/u32 u64/u64. quick: 4096x1024 65536x32 64x2^20 powerlaw,
 * u32 and u32/u32. Both: RDX_GS_REPEAT runs after RDX_GS_WARMUP, a seed from the clock. */
void rdx_gpu_seg_defaults(rdx_gpu_seg_opts *o, int quick);
/* Keys "u32" "f32" "u64"; pairs "u32/u32" "f32/u32" "u64/u64". 0, or -1 for another name. */
int rdx_gpu_seg_parse_case(const char *name, rdx_gpu_case *c);
/* "powerlaw", "huge+tiny", or "ROWSxCOLS" (each a count or 2^k). 0, or -1. */
int rdx_gpu_seg_parse_shape(const char *name, rdx_gs_shape *s);
void rdx_gpu_seg_shape_name(const rdx_gs_shape *s, char *buf, size_t len);

/* Runs every shape x case: progress on stderr, any MISMATCH or ERROR, the table and, last,
 * the worst ratio to out; one CSV row per measurement to csv (may be NULL). Returns 0 when
 * every result matched CUB's, 1 when any sort failed or differed, 2 when no GPU is usable. */
int rdx_gpu_seg_run(const rdx_gpu_seg_opts *o, FILE *out, FILE *csv);

/* ---- inputs and checks (gpu_seg_data.cu); device work on the legacy default stream,
 * cudaError_t returned as an int ---- */

/* The host offsets of a shape: *off (malloc'd, *num_segments + 1 entries, offsets[0] = 0,
 * the last = *n). Returns 0, or -1 when out of host memory or for a bad shape. */
int rdx_gs_make_offsets(const rdx_gs_shape *s, uint64_t seed, size_t **off, size_t *num_segments, size_t *n);
/* keys[0..n) of type t (u32, f32, u64): every bit random; f32: random finite normal floats
 * (the exponent never 0 or 255: no zeros, so no -0.0 / +0.0 tie that CUB and rdxsort order
 * differently, no denormals, infinities or NaNs), both signs. */
int rdx_gs_fill_keys(void *keys, size_t n, rdx_type t, uint64_t seed);
/* starts[0..n] = 0, then starts[off[s]] = 1 for every non-empty segment s. */
int rdx_gs_mark_starts(unsigned char *starts, const size_t *d_off, size_t num_segments, size_t n);
/* *count = the i in [0, n-1) with keys[i] after keys[i+1] in key order where no segment
 * starts at i + 1 (0 when every segment is sorted). counter: 8 bytes of device scratch. */
int rdx_gs_count_descents(const void *keys, const unsigned char *starts, size_t n, rdx_type t,
                          void *counter, unsigned long long *count);
/* Compares keys (and values when value_bytes is 4 or 8) bit for bit with the reference's:
 * the verdict's key_mismatch, value_mismatch and first_bad (n when none); unsorted is 0
 * (the order within segments is rdx_gs_count_descents's). counters: device scratch of
 * sizeof(rdx_gb_verdict) bytes. */
int rdx_gs_compare(const void *keys, const void *values, const void *ref_keys, const void *ref_values, size_t n,
                   rdx_type t, unsigned value_bytes, void *counters, rdx_gb_verdict *verdict);

/* ---- the CUB peers (gpu_seg_cub.cu): on the legacy default stream, separate input and
 * output arrays, int offsets (begin d_off[s], end d_off[s + 1]); temp NULL asks for the
 * size into *temp_bytes. Keys only when value_bytes is 0 (vin, vout unused). Returns a
 * cudaError_t as an int, or -1 for a case not built (rdx_gpu_seg_parse_case's) ---- */
#define RDX_GS_CUB_SEGSORT 0  /* cub::DeviceSegmentedSort::StableSortKeys / StableSortPairs */
#define RDX_GS_CUB_SEGRADIX 1 /* cub::DeviceSegmentedRadixSort::SortKeys / SortPairs */
int rdx_gs_cub_sort(int algo, rdx_type key, unsigned value_bytes, void *temp, size_t *temp_bytes,
                    const void *kin, void *kout, const void *vin, void *vout, size_t n, size_t num_segments,
                    const int *d_off);

#ifdef __cplusplus
}
#endif

#endif
