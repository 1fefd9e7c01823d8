/* rdx bench: rdxsort on each available backend, and the CPU peers, on the same fresh
 * random data, every result verified; prints a table (bench_table.c). Where the CUDA
 * backend is built, also runs the GPU benchmark (rdx_gpu_bench of bench/peers.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_args.h"
#include "bench_table.h"
#include "cli.h"
#include "dist.h"
#include "progress.h"
#include "report.h"
#include "rng.h"
#include "types.h"
#include "verify.h"
#ifndef RDX_TOOL_NO_PEERS
#include "peers.h"
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_threads(int t)
{
#ifdef _OPENMP
    omp_set_num_threads(t);
#else
    (void)t;
#endif
}

/* Bytes an LSD radix sort with 8-bit digits moves per key (DESIGN.md section 1): one
 * read of the keys for every histogram up front, then for each of the K digits one read
 * and one write of every key and value. */
static double model_bytes_per_key(size_t key_size, size_t value_size)
{
    return (double)key_size + (double)key_size * (double)(2 * key_size + 2 * value_size);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int count)
{
    qsort(v, (size_t)count, sizeof *v, cmp_double);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}


/* --- one cell: a case (type, pairs or not) at one size --- */

typedef struct bench_cell {
    const bench_case *c;
    size_t n;
    const char *dist;
    unsigned char *in_keys, *in_values;  /* the input, kept for every sorter */
    unsigned char *keys, *values;        /* what each run sorts */
    uint64_t checksum;                   /* of the input's keys (or pairs) */
} bench_cell;

static void free_cell(bench_cell *cell)
{
    free(cell->in_keys);
    free(cell->in_values);
    free(cell->keys);
    free(cell->values);
}

/* Values are the input positions, as many low bytes as fit (little-endian). */
static int make_cell(bench_cell *cell, const bench_case *c, size_t n, const bench_args *a,
                     uint64_t seed)
{
    memset(cell, 0, sizeof *cell);
    cell->c = c;
    cell->n = n;
    cell->dist = tool_dist_name(a->dist);
    const size_t ks = rdx_type_size(c->key), vs = c->value_size;
    cell->in_keys = malloc(n * ks);
    cell->keys = malloc(n * ks);
    if (vs) {
        cell->in_values = malloc(n * vs);
        cell->values = malloc(n * vs);
    }
    if (!cell->in_keys || !cell->keys || (vs && (!cell->in_values || !cell->values))) {
        free_cell(cell);
        return -1;
    }
    if (tool_generate(cell->in_keys, n, c->key, a->dist, seed) != 0) {
        free_cell(cell);
        return -1;
    }
    if (vs) {
        const size_t vb = vs < 8 ? vs : 8;
        memset(cell->in_values, 0, n * vs);
        for (size_t i = 0; i < n; i++) {
            uint64_t pos = i;
            memcpy(cell->in_values + i * vs, &pos, vb);
        }
        cell->checksum = tool_checksum_pairs(cell->in_keys, ks, cell->in_values, vs, n);
    } else {
        cell->checksum = tool_checksum_keys(cell->in_keys, n, ks);
    }
    return 0;
}

static void reset_cell(bench_cell *cell)
{
    memcpy(cell->keys, cell->in_keys, cell->n * rdx_type_size(cell->c->key));
    if (cell->c->value_size)
        memcpy(cell->values, cell->in_values, cell->n * cell->c->value_size);
}

/* Checks a result; returns NULL when right, else what is wrong (into buf). */
static const char *verify_cell(const bench_cell *cell, int by_value, char *buf, size_t cap)
{
    const rdx_type t = cell->c->key;
    const size_t ks = rdx_type_size(t), vs = cell->c->value_size, n = cell->n;
    size_t bad = by_value ? tool_first_unsorted_by_value(cell->keys, n, t)
                          : tool_first_unsorted(cell->keys, n, t, 0);
    if (bad != n) {
        snprintf(buf, cap, "FAILED: not sorted at position %zu", bad);
        return buf;
    }
    uint64_t sum = vs ? tool_checksum_pairs(cell->keys, ks, cell->values, vs, n)
                      : tool_checksum_keys(cell->keys, n, ks);
    if (sum != cell->checksum) {
        snprintf(buf, cap, "FAILED: %s differ from the input's", vs ? "pairs" : "keys");
        return buf;
    }
    if (vs && (vs >= 8 || (uint64_t)(n - 1) >> (8 * vs) == 0)) {
        bad = tool_first_unstable(cell->keys, t, cell->values, vs, n);
        if (bad != n) {
            snprintf(buf, cap, "FAILED: not stable at position %zu", bad);
            return buf;
        }
    }
    return NULL;
}

/* Times rdxsort on one backend; prints its row; returns the median ms, or -1 if a
 * result failed (counted in *failures). */
static double run_rdx(bench_cell *cell, rdx_ctx *ctx, const char *label, int threads,
                      const bench_args *a, int *failures)
{
    double times[1000];
    char why[160], count[24];
    const char *problem = NULL;
    bench_format_count(cell->n, count);
    for (int r = 0; r < a->repeat && !problem; r++) {
        tool_progress_start("%s %s %s: %s, run %d of %d", cell->c->name, cell->dist, count, label,
                            r + 1, a->repeat);
        reset_cell(cell);
        double t0 = now_s();
        rdx_status s = cell->c->value_size
                           ? rdx_sort_pairs(ctx, cell->keys, cell->values, cell->c->value_size,
                                            cell->n, cell->c->key, NULL)
                           : rdx_sort_keys(ctx, cell->keys, cell->n, cell->c->key, NULL);
        times[r] = (now_s() - t0) * 1e3;
        if (s != RDX_OK) {
            snprintf(why, sizeof why, "FAILED: %s", rdx_ctx_error(ctx)[0] ? rdx_ctx_error(ctx)
                                                                           : rdx_status_string(s));
            problem = why;
        } else {
            problem = verify_cell(cell, 0, why, sizeof why);
        }
    }
    tool_progress_stop();
    bench_row row = {label, cell->c->name, cell->dist, cell->n, threads, a->repeat, -1.0,
                     model_bytes_per_key(rdx_type_size(cell->c->key), cell->c->value_size),
                     0.0, problem, rdx_ctx_route(ctx)};
    if (!problem)
        row.ms = median(times, a->repeat);
    else
        (*failures)++;
    bench_table_row(stdout, a->csv, &row);
    return row.ms;
}

#ifndef RDX_TOOL_NO_PEERS
/* A slow peer left out at this size (default sizes only). */
static int peer_skipped(const rdx_cpu_peer *peer, size_t n, const bench_args *a)
{
    static const char *const slow[] = BENCH_SLOW_PEERS;
    if (a->sizes_given || n <= BENCH_SLOW_PEER_MAX_N)
        return 0;
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
        if (strcmp(peer->name, slow[i]) == 0)
            return 1;
    return 0;
}

static void run_peer(bench_cell *cell, const rdx_cpu_peer *peer, double rdx_ms,
                     const bench_args *a, int *failures)
{
    double times[1000];
    char why[160], count[24];
    const char *problem = NULL;
    bench_format_count(cell->n, count);
    bench_row row = {peer->name, cell->c->name, cell->dist, cell->n, 0, 0, -1.0,
                     model_bytes_per_key(rdx_type_size(cell->c->key), 0), 0.0, NULL, NULL};
    if (peer_skipped(peer, cell->n, a)) {
        row.note = "skipped above 2^24 by default (-n runs it)";
        bench_table_row(stdout, a->csv, &row);
        return;
    }
    double spent = 0.0;
    int runs = 0;
    while (runs < a->repeat && !problem && (runs == 0 || spent < BENCH_PEER_BUDGET_S)) {
        tool_progress_start("%s %s %s: %s, run %d of up to %d", cell->c->name, cell->dist, count,
                            peer->name, runs + 1, a->repeat);
        reset_cell(cell);
        double t0 = now_s();
        int r = peer->sort_keys(cell->keys, cell->n, cell->c->key);
        double t = now_s() - t0;
        if (r != 0) {
            tool_progress_stop();
            return;   /* the peer has no such type: no row */
        }
        times[runs++] = t * 1e3;
        spent += t;
        problem = verify_cell(cell, 1, why, sizeof why);
    }
    tool_progress_stop();
    row.runs = runs;
    row.note = problem;
    if (problem) {
        (*failures)++;
    } else {
        row.ms = median(times, runs);
        if (rdx_ms > 0.0)
            row.rdx_ratio = row.ms / rdx_ms;
    }
    bench_table_row(stdout, a->csv, &row);
}
#endif

#ifdef RDX_HAVE_CUDA
/* The GPU benchmark of bench/gpu_bench.cu, on the key types asked for (NULL: its own
 * defaults) and the sizes given with -n (else its own). Its CSV goes beside ours. */
static int run_gpu_bench(const bench_args *a)
{
    const int types_given = a->types_given;
    const char *csv_path = a->csv_path;
    rdx_type types[BENCH_MAX_LIST];
    size_t ntypes = 0;
    for (size_t i = 0; types_given && i < a->ncases; i++) {
        size_t j = 0;
        while (j < ntypes && types[j] != a->cases[i].key)
            j++;
        if (j == ntypes)
            types[ntypes++] = a->cases[i].key;
    }
    FILE *csv = NULL;
    if (csv_path) {
        char path[1024];
        size_t len = strlen(csv_path);
        if (len > 4 && strcmp(csv_path + len - 4, ".csv") == 0)
            len -= 4;
        snprintf(path, sizeof path, "%.*s-gpu.csv", (int)len, csv_path);
        csv = fopen(path, "w");
    }
    printf("\nGPU benchmark (device arrays, CUDA events):\n");
    fflush(stdout);
    int r = rdx_gpu_bench(ntypes ? types : NULL, ntypes, a->sizes_given ? a->sizes : NULL,
                          a->sizes_given ? a->nsizes : 0, stdout, csv);
    if (csv)
        fclose(csv);
    return r;
}
#endif

int cmd_bench(int argc, char **argv)
{
    bench_args a;
    int status = bench_parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    if (tool_parse_only) {
        if (a.csv)
            fclose(a.csv);
        return TOOL_EXIT_OK;
    }
    rdx_ctx *cpu = NULL, *cuda = NULL;
    if ((a.want_cpu && !(cpu = tool_open_context(RDX_BACKEND_CPU))) ||
        (a.want_cuda && !(cuda = tool_open_context(RDX_BACKEND_CUDA)))) {
        rdx_ctx_destroy(cpu);
        if (a.csv)
            fclose(a.csv);
        return TOOL_EXIT_FAIL;
    }
    const int all_threads = bench_max_threads();
    printf("rdx bench: rdxsort %s, backends:%s%s, %d CPU threads, dist %s, seed %llu, "
           "median of %d runs\n",
           rdx_version_string(), a.want_cpu ? " cpu" : "", a.want_cuda ? " cuda" : "", all_threads,
           tool_dist_name(a.dist), (unsigned long long)a.seed, a.repeat);
    printf("GB/s: bytes of an LSD sort with 8-bit digits (K + K*(2K+2V) per key) over the "
           "time; rdx/this: rdxsort's speedup over that sorter\n\n");
    bench_table_header(stdout, a.csv);

#ifndef RDX_TOOL_NO_PEERS
    const rdx_cpu_peer *peers = NULL;
    size_t npeers = a.no_peers || !a.want_cpu ? 0 : rdx_cpu_peers(&peers);
#endif
    int failures = 0;
    for (size_t ci = 0; ci < a.ncases; ci++) {
        for (size_t si = 0; si < a.nsizes; si++) {
            bench_cell cell;
            const size_t n = a.sizes[si];
            char count[24];
            bench_format_count(n, count);
            tool_progress_start("%s %s: generating the data", a.cases[ci].name, count);
            if (make_cell(&cell, &a.cases[ci], n, &a, tool_mix64(a.seed + 1000 * ci + si)) != 0) {
                tool_progress_stop();
                tool_error("no memory for %s %s", a.cases[ci].name, count);
                failures++;
                continue;
            }
            double rdx_ms = -1.0;
            for (size_t ti = 0; a.want_cpu && ti < a.nthreads; ti++) {
                set_threads(a.threads[ti]);
                double ms = run_rdx(&cell, cpu, "rdx cpu", a.threads[ti], &a, &failures);
                if (ti == 0)
                    rdx_ms = ms;
            }
            set_threads(all_threads);
            if (a.want_cuda) {
                run_rdx(&cell, cuda, "rdx cuda (host arrays)", 0, &a, &failures);
            }
#ifndef RDX_TOOL_NO_PEERS
            for (size_t p = 0; cell.c->value_size == 0 && p < npeers; p++) {
                run_peer(&cell, &peers[p], rdx_ms, &a, &failures);
            }
#else
            (void)rdx_ms;
#endif
            free_cell(&cell);
        }
    }
#ifdef RDX_HAVE_CUDA
    if (a.want_cuda && run_gpu_bench(&a) != 0)
        failures++;
#endif
    rdx_ctx_destroy(cpu);
    rdx_ctx_destroy(cuda);
    if (a.csv)
        fclose(a.csv);
    if (failures) {
        printf("\nrdx bench: %d result%s FAILED verification\n", failures, failures == 1 ? "" : "s");
        return TOOL_EXIT_FAIL;
    }
    printf("\nrdx bench: all results verified (sorted; same keys/pairs as the input; pairs stable)\n");
    return TOOL_EXIT_OK;
}
