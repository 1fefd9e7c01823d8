/* rdx-gpu-bench: the GPU benchmark on its own, with every option (see usage()). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_bench.h"

/* Below this, a number given to -n is a log2 size (2^k keys), not a count. */
#define GB_LOG2_LIMIT 40

static void usage(FILE *f)
{
    fprintf(f,
        "usage: rdx-gpu-bench [options]\n"
        "  rdxsort against CUB DeviceRadixSort, thrust::sort and a device-to-device copy,\n"
        "  on device arrays, in one run; prints a table last. Exit 0 when every result\n"
        "  verified against CUB, 1 when any was wrong or failed, 2 on bad usage or no GPU.\n"
        "options:\n"
        "  -t LIST        cases, comma-separated: keys u32 i32 f32 u64 i64 f64, pairs u32/u32\n"
        "                 u32/u64 u64/u32 u64/u64 (default u32,u64,f32,u32/u32,u64/u64)\n"
        "  -n LIST        sizes: log2 (up to %d) or counts, also 2^k (default 16,20,24,26,28;\n"
        "                 u64/u64 pairs at most 2^27)\n"
        "  --dist LIST    uniform lowentropy sorted bucket equal, or all\n"
        "                 (default uniform,lowentropy,sorted)\n"
        "  --repeat R     timed runs per measurement, median reported (default 15)\n"
        "  --warmup W     untimed runs first (default 2)\n"
        "  --seed S       input seed (default from the clock; printed)\n"
        "  --csv FILE     also write one CSV row per measurement\n"
        "  --quick        n = 2^16, 2^20, 2^24, uniform only, 10 runs (other options win)\n"
        "  --no-cluster   rdxsort without its one-cluster path (sm_90+, n <= 2^16): the\n"
        "                 one-launch grid path serves those sizes, for an A/B comparison\n"
        "  -h, --help     this text\n", GB_LOG2_LIMIT);
}

static int bad(const char *what, const char *arg)
{
    fprintf(stderr, "rdx-gpu-bench: %s: '%s'\n", what, arg);
    return 2;
}

static int parse_u64(const char *s, unsigned long long *v)
{
    char *end;
    if (*s < '0' || *s > '9') return -1;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno || *end ? -1 : 0;
}

static int parse_size(const char *s, size_t *n)
{
    unsigned long long v;
    if (strncmp(s, "2^", 2) == 0) {
        if (parse_u64(s + 2, &v) || v > GB_LOG2_LIMIT) return -1;
        *n = (size_t)1 << v;
        return 0;
    }
    if (parse_u64(s, &v) || v == 0) return -1;
    *n = v <= GB_LOG2_LIMIT ? (size_t)1 << v : (size_t)v;
    return 0;
}

/* Splits a comma list in place and calls each(token) for every item; stops at -1. */
static int each_item(char *list, int (*each)(const char *tok, void *arg), void *arg)
{
    char *tok = list;
    for (;;) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = '\0';
        if (each(tok, arg)) return bad("bad list item", tok);
        if (!comma) return 0;
        tok = comma + 1;
    }
}

static int add_case(const char *tok, void *arg)
{
    rdx_gpu_bench_opts *o = (rdx_gpu_bench_opts *)arg;
    if (o->ncases == RDX_GPU_BENCH_MAX_CASES) return -1;
    return rdx_gpu_bench_parse_case(tok, &o->cases[o->ncases++]);
}

static int add_size(const char *tok, void *arg)
{
    rdx_gpu_bench_opts *o = (rdx_gpu_bench_opts *)arg;
    if (o->nsizes == RDX_GPU_BENCH_MAX_SIZES) return -1;
    return parse_size(tok, &o->sizes[o->nsizes++]);
}

static int add_dist(const char *tok, void *arg)
{
    rdx_gpu_bench_opts *o = (rdx_gpu_bench_opts *)arg;
    int d, k;
    if (strcmp(tok, "all") == 0) {
        o->ndists = 0;
        for (d = 0; d < RDX_GPU_NDIST; d++) o->dists[o->ndists++] = d;
        return 0;
    }
    if ((d = rdx_gpu_bench_parse_dist(tok)) < 0) return -1;
    for (k = 0; k < (int)o->ndists; k++)
        if (o->dists[k] == d) return 0;
    o->dists[o->ndists++] = d;
    return 0;
}

int main(int argc, char **argv)
{
    rdx_gpu_bench_opts o, given;
    const char *csv_path = NULL;
    char *types = NULL, *sizes = NULL, *dists = NULL;
    long repeat = -1, warmup = -1;
    unsigned long long seed = 0;
    int quick = 0, have_seed = 0, no_cluster = 0, i, rc;
    FILE *csv = NULL;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_arg = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { usage(stdout); return 0; }
        else if (strcmp(a, "--quick") == 0) quick = 1;
        else if (strcmp(a, "--no-cluster") == 0) no_cluster = 1;
        else if (!has_arg && (strcmp(a, "-t") == 0 || strcmp(a, "-n") == 0 || strcmp(a, "--dist") == 0 ||
                              strcmp(a, "--repeat") == 0 || strcmp(a, "--warmup") == 0 ||
                              strcmp(a, "--seed") == 0 || strcmp(a, "--csv") == 0))
            return bad("missing value for", a);
        else if (strcmp(a, "-t") == 0) types = argv[++i];
        else if (strcmp(a, "-n") == 0) sizes = argv[++i];
        else if (strcmp(a, "--dist") == 0) dists = argv[++i];
        else if (strcmp(a, "--csv") == 0) csv_path = argv[++i];
        else if (strcmp(a, "--repeat") == 0 || strcmp(a, "--warmup") == 0) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < (a[2] == 'r' ? 1 : 0) || v > 100000) return bad("bad count", argv[i]);
            if (a[2] == 'r') repeat = v; else warmup = v;
        } else if (strcmp(a, "--seed") == 0) {
            if (parse_u64(argv[++i], &seed)) return bad("bad seed", argv[i]);
            have_seed = 1;
        } else {
            usage(stderr);
            return bad("unknown option", a);
        }
    }

    rdx_gpu_bench_defaults(&o, quick);
    given = o;
    if (types) {
        given.ncases = 0;
        if ((rc = each_item(types, add_case, &given))) return rc;
        memcpy(o.cases, given.cases, sizeof o.cases);
        o.ncases = given.ncases;
    }
    if (sizes) {
        given.nsizes = 0;
        if ((rc = each_item(sizes, add_size, &given))) return rc;
        memcpy(o.sizes, given.sizes, sizeof o.sizes);
        o.nsizes = given.nsizes;
    }
    if (dists) {
        given.ndists = 0;
        if ((rc = each_item(dists, add_dist, &given))) return rc;
        memcpy(o.dists, given.dists, sizeof o.dists);
        o.ndists = given.ndists;
    }
    if (repeat > 0) o.repeat = (int)repeat;
    if (warmup >= 0) o.warmup = (int)warmup;
    if (have_seed) o.seed = seed;
    o.no_cluster = no_cluster;
    if (o.repeat < 10)
        fprintf(stderr, "rdx-gpu-bench: note: a median of %d runs (the benchmark's rule is >= 10)\n", o.repeat);

    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "rdx-gpu-bench: %s: %s\n", csv_path, strerror(errno));
        return 2;
    }
    rc = rdx_gpu_bench_run(&o, stdout, csv);
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "rdx-gpu-bench: %s: write failed\n", csv_path);
        rc = rc ? rc : 1;
    }
    return rc;
}
