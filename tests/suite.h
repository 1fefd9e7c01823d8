/* The shared correctness suite (DESIGN.md section 4): every backend and every memory
 * placement runs the same matrix against the same stable reference sort.
 * tests/suite.c implements it; test_cpu.c runs it on the CPU backend with host memory,
 * test_cuda_suite.c on the CUDA backend with device memory and with host memory. */
#ifndef RDX_TEST_SUITE_H
#define RDX_TEST_SUITE_H

#include <stddef.h>
#include <stdint.h>
#include "rdx.h"

/* Where the arrays handed to the library live. For host memory, alloc = malloc and the
 * copies are memcpy; for device memory, cudaMalloc and cudaMemcpy. */
typedef struct rdx_test_memory {
    const char *name;                                          /* "host", "device", ... */
    void *(*alloc)(size_t bytes);                              /* NULL on failure */
    void (*release)(void *p);
    void (*upload)(void *dst, const void *src, size_t bytes);  /* host src -> dst */
    void (*download)(void *dst, const void *src, size_t bytes);/* src -> host dst */
} rdx_test_memory;

extern const rdx_test_memory rdx_test_host_memory;

/* Another way into the library for the suite's cases, e.g. the out-of-place entry points
 * of rdx_cuda.h. The suite hands it separate input and output arrays (outputs filled with
 * a pattern first), compares the outputs with the reference, and checks that the inputs
 * did not change. */
typedef struct rdx_test_sorter {
    const char *name;    /* printed with the suite's results */
    rdx_status (*sort_keys)(rdx_ctx *ctx, const void *keys_in, void *keys_out, size_t n,
                            rdx_type type, const rdx_opts *opts);
    rdx_status (*sort_pairs)(rdx_ctx *ctx, const void *keys_in, void *keys_out,
                             const void *values_in, void *values_out, size_t value_size,
                             size_t n, rdx_type type, const rdx_opts *opts);
    rdx_status (*argsort)(rdx_ctx *ctx, const void *keys, size_t n, rdx_type type,
                          void *indices, rdx_type index_type, const rdx_opts *opts);
} rdx_test_sorter;

typedef struct rdx_suite_config {
    rdx_backend backend;
    const rdx_test_memory *memory;
    uint64_t seed;       /* printed on every failure */
    int max_log2_n;      /* largest size class tried (20 gives the 2^20 + 3 case) */
    int tile;            /* the backend's tile size, for the "one tile +- 1, two tiles" sizes */
    const size_t *more_sizes; /* NULL, or more sizes ending with 0: each for every type, order
                                 and payload (with the tile sizes); the first also for the bit
                                 ranges and the digit widths */
    const rdx_test_sorter *sorter; /* NULL: rdx_sort_keys, rdx_sort_pairs, rdx_argsort */
    /* NULL, or called with prepare_arg on the suite's own context once it is made (a GPU
     * test sets that context's tuning there). */
    void (*prepare)(rdx_ctx *ctx, const void *prepare_arg);
    const void *prepare_arg;
} rdx_suite_config;

/* Runs the whole matrix; prints one line per failure (with the seed and the case) and a
 * summary; returns the number of failed cases. */
int rdx_run_sort_suite(const rdx_suite_config *cfg);

/* Seed from RDX_TEST_SEED if set, else fresh from the clock and pid. */
uint64_t rdx_test_seed(void);

/* The largest log2 size a test tries: RDX_TEST_MAX_LOG2_N (or RDX_TEST_MAX_LOG2N) if set,
 * else dflt. */
int rdx_test_max_log2(int dflt);

/* A context of the CUDA backend for a GPU test. Exits with 77 (skipped) where no GPU is
 * usable, with 1 when the context cannot be made. */
rdx_ctx *rdx_test_cuda_context(void);

#endif
