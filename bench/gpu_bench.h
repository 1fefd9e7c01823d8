/* The GPU benchmark's full interface: rdx_gpu_bench() of peers.h is a thin wrapper over
 * rdx_gpu_bench_run() with the default distributions and repeat count; the standalone
 * rdx-gpu-bench (gpu_bench_main.c) sets every option. Defined in gpu_bench.cu. */
#ifndef RDX_GPU_BENCH_H
#define RDX_GPU_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Input distributions, generated on the device from a hash of (index, seed). */
typedef enum rdx_gpu_dist {
    RDX_GPU_UNIFORM = 0,     /* random bits (floats: uniform in [-1, 1)) */
    RDX_GPU_LOWENTROPY = 1,  /* AND of three random words */
    RDX_GPU_SORTED = 2,      /* key i = i, converted to the key type */
    RDX_GPU_BUCKET = 3,      /* top byte the same in every key, the rest random: one MSD bucket */
    RDX_GPU_EQUAL = 4,       /* every key the same */
    RDX_GPU_NDIST = 5
} rdx_gpu_dist;

/* One benchmarked case: keys of a type, with values of value_bytes (0, 4 or 8) or none. */
typedef struct rdx_gpu_case {
    rdx_type key;
    unsigned value_bytes;
} rdx_gpu_case;

#define RDX_GPU_BENCH_MAX_CASES 16
#define RDX_GPU_BENCH_MAX_SIZES 32

typedef struct rdx_gpu_bench_opts {
    rdx_gpu_case cases[RDX_GPU_BENCH_MAX_CASES];
    size_t ncases;
    size_t sizes[RDX_GPU_BENCH_MAX_SIZES];
    size_t nsizes;
    int dists[RDX_GPU_NDIST];   /* rdx_gpu_dist values */
    size_t ndists;
    int repeat;                 /* timed runs per measurement; the median is reported */
    int warmup;                 /* untimed runs before them */
    uint64_t seed;
    const char *tune;           /* rdxsort's contexts' route limits (gpu_bench_tune.h), or NULL */
} rdx_gpu_bench_opts;

/* The defaults: u32, u64, f32 keys, u32/u32 and u64/u64 pairs; n = 2^16, 2^20, 2^24, 2^26,
 * 2^28 (u64/u64 pairs at most 2^27); uniform, low-entropy and sorted inputs; 15 runs after
 * 2 warm-ups; a seed from the clock. quick: n = 2^16, 2^20, 2^24, uniform only, 10 runs. */
void rdx_gpu_bench_defaults(rdx_gpu_bench_opts *o, int quick);

/* "u32" (keys), "u32/u32", "u64/u64", "u32/u64", "u64/u32" (pairs); also u64, i32, i64,
 * f32, f64. Returns 0, or -1 for a name the benchmark cannot measure. */
int rdx_gpu_bench_parse_case(const char *name, rdx_gpu_case *c);
/* "uniform", "lowentropy", "sorted", "bucket", "equal"; -1 if none of them. */
int rdx_gpu_bench_parse_dist(const char *name);
const char *rdx_gpu_bench_dist_name(int dist);
/* "u8" ... "f64", or "unknown". */
const char *rdx_gpu_bench_type_name(rdx_type t);
/* Writes a case's name ("u32", "u64/u64") into buf. */
void rdx_gpu_bench_case_name(const rdx_gpu_case *c, char *buf, size_t len);

/* Runs every case x size x distribution; prints progress, any WRONG result and finally
 * the table to out; one CSV row per measurement to csv (may be NULL). Returns 0 when every
 * result verified, 1 when any sort failed or was wrong, 2 when no GPU is usable. */
int rdx_gpu_bench_run(const rdx_gpu_bench_opts *o, FILE *out, FILE *csv);

#ifdef __cplusplus
}
#endif

#endif
