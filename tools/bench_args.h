/* The options of `rdx bench` (bench_args.c), read by cmd_bench.c. */
#ifndef RDX_TOOL_BENCH_ARGS_H
#define RDX_TOOL_BENCH_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "dist.h"
#include "rdx.h"

/* The benchmark's own running time, all in one place: a default run (`rdx bench` with no
 * options) should take about a minute on a 2-core machine. */
#define BENCH_DEFAULT_TYPES "u32,u64,u32/u32"   /* K/V: pairs */
#define BENCH_DEFAULT_SIZES "2^20,2^24,2^26"
#define BENCH_DEFAULT_REPEAT 3      /* timed runs per row; the median is shown */
#define BENCH_PEER_BUDGET_S 1.5     /* a peer stops repeating once its runs took this long */
/* With the default sizes, these comparison-sort peers (qsort takes 16 s at 2^26 on 2 cores)
 * run only up to BENCH_SLOW_PEER_MAX_N keys; the fast peers (spreadsort, parallel) run at
 * every size. Sizes given with -n run every peer. */
#define BENCH_SLOW_PEERS {"qsort", "std::sort", "std::stable_sort"}
#define BENCH_SLOW_PEER_MAX_N ((size_t)1 << 24)

#define BENCH_MAX_LIST 32           /* most types, sizes or thread counts on a command line */

typedef struct bench_case {
    rdx_type key;
    size_t value_size;     /* 0: keys only */
    char name[16];         /* "u32", "u32/u32" */
} bench_case;

typedef struct bench_args {
    int want_cpu, want_cuda;
    bench_case cases[BENCH_MAX_LIST];
    size_t ncases;
    size_t sizes[BENCH_MAX_LIST];
    size_t nsizes;
    int sizes_given;
    int threads[BENCH_MAX_LIST];
    size_t nthreads;
    tool_dist dist;
    int repeat;
    int no_peers;
    int types_given;
    uint64_t seed;
    const char *csv_path;
    FILE *csv;
} bench_args;

/* Reads the command line into *a (defaults: u32, u64, u32/u32 at 2^20, 2^24, 2^26, all
 * threads, every usable backend) and opens the CSV file. Returns -1 to go on, else the
 * exit status (after --help, or after printing what was wrong). */
int bench_parse_args(int argc, char **argv, bench_args *a);

/* The OpenMP threads available (1 without OpenMP). */
int bench_max_threads(void);

#endif
