/* Times the CPU backend on uniform random keys, to pick its tuning constants
 * (src/cpu/tuning.h). Not a benchmark of record (that is `rdx bench`): one case per run.
 *
 *   cpu_sort_time [u32|u64|u32pairs|u64pairs|u32arg] [log2 n] [radix_bits] [repeats]
 *
 * Prints the best and the median time of the repeats, and the best CPU time (steadier on
 * a shared machine); checks each result is sorted. Not part of the CMake build:
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude bench/cpu_sort_time.c \
 *      build/src/librdx.a -fopenmp -o cpu_sort_time */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdx.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "u32";
    const int lg = argc > 2 ? atoi(argv[2]) : 26;
    const int rbits = argc > 3 ? atoi(argv[3]) : 0;
    const int reps = argc > 4 ? atoi(argv[4]) : 5;
    const size_t n = (size_t)1 << lg;
    const int wide = strstr(what, "u64") != NULL;
    const size_t kb = wide ? 8 : 4;
    const int pairs = strstr(what, "pairs") != NULL, arg = strstr(what, "arg") != NULL;
    unsigned char *keys = malloc(n * kb), *vals = malloc(n * kb), *orig = malloc(n * kb);
    if (!keys || !vals || !orig)
        return 1;
    for (size_t i = 0; i < n * kb / 8; i++)
        ((uint64_t *)orig)[i] = next();
    rdx_ctx *ctx;
    if (rdx_ctx_create(&ctx, RDX_BACKEND_CPU) != RDX_OK)
        return 1;
    rdx_opts o = {0, 0, 0, rbits};
    rdx_type t = wide ? RDX_U64 : RDX_U32;
    double times[64], cpu[64];
    for (int r = 0; r < reps && r < 64; r++) {
        memcpy(keys, orig, n * kb);
        double t0 = now(), c0 = cpu_now();
        rdx_status s = pairs ? rdx_sort_pairs(ctx, keys, vals, kb, n, t, &o)
                       : arg ? rdx_argsort(ctx, keys, n, t, vals, RDX_U32, &o)
                             : rdx_sort_keys(ctx, keys, n, t, &o);
        times[r] = now() - t0;
        cpu[r] = cpu_now() - c0;
        if (s != RDX_OK) {
            fprintf(stderr, "error: %s\n", rdx_ctx_error(ctx));
            return 1;
        }
        if (!arg)
            for (size_t i = 1; i < n; i++) {
                int bad = wide ? ((uint64_t *)keys)[i - 1] > ((uint64_t *)keys)[i]
                               : ((uint32_t *)keys)[i - 1] > ((uint32_t *)keys)[i];
                if (bad) {
                    fprintf(stderr, "not sorted at %zu\n", i);
                    return 1;
                }
            }
    }
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    qsort(cpu, (size_t)reps, sizeof *cpu, cmp_double);
    printf("%s n=2^%d radix_bits=%d: wall best %.4f s, median %.4f s; cpu best %.4f s\n", what,
           lg, rbits, times[0], times[reps / 2], cpu[0]);
    rdx_ctx_destroy(ctx);
    free(keys);
    free(vals);
    free(orig);
    return 0;
}
