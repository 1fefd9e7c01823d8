/* rdx-gpu-bench: the GPU benchmark on its own, with every option (see usage()). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_bench.h"
#include "gpu_bench_tune.h"
#include "gpu_matrix.h"
#include "gpu_seg.h"

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
        "  --matrix[=quick]\n"
        "                 the matrix (issue 11): every case below x every distribution that\n"
        "                 applies x n = 2^10, 2^12, ... up to the largest that fits beside CUB\n"
        "                 (and the largest power of two that fits); rdxsort's stream-ordered\n"
        "                 call and CUB in every row, timed alike (the temporary storage\n"
        "                 allocated outside the timing), each result checked against CUB's (a\n"
        "                 row that differs FAILS), L2 flushed before every run, median of %d runs\n"
        "                 after %d warm-ups (%d after %d from 2^%d on); progress on stderr; the\n"
        "                 table, the rows below 1.0x CUB from 2^%d on and, last, the worst\n"
        "                 ratio. About 7 minutes on an H200. quick: n = 2^16, 2^22, 2^26 only,\n"
        "                 every case and distribution (under 3 minutes). In matrix mode:\n"
        "                 -t LIST   u8 u16 u32 i32 f32 u64 i64 f64, pairs u32/u32 u64/u32\n"
        "                           u64/u64 (u32/u64), argsort of u32 keys into u32 or u64\n"
        "                           indices argsort/u32 argsort/u64 (CUB: SortPairs of (key, i))\n"
        "                 --dist LIST  uniform (every bit random), bits (the low 5/8 of the\n"
        "                           bits: 40 of 64, 20 of 32), signed (i32, i64: +-2^(w-2)),\n"
        "                           normal, unit ([0, 1); f32, f64), zipf, lowentropy, sorted,\n"
        "                           reverse, equal, few (<= 16 distinct), bucket (90%% of the\n"
        "                           keys in one top-byte bucket), repeat (n/256 keys, each\n"
        "                           about 256 times), missing (f32, f64: normal, 1%% of\n"
        "                           them np.nan), or all (default all)\n"
        "                 -n LIST   these sizes only (skipped, and said, where they do not fit)\n"
        "                 --repeat R, --warmup W  for every size\n"
        "  --max-log2 K   matrix: no n above 2^K (default %d)\n"
        "  --segmented[=quick]\n"
        "                 segmented sorts (issue 14): rdxsort's stream-ordered\n"
        "                 rdx_cuda_segmented_sort_keys/_pairs_async against CUB\n"
        "                 DeviceSegmentedSort::StableSort* and DeviceSegmentedRadixSort::Sort* on\n"
        "                 device arrays, temporary storage allocated outside the timing; equal\n"
        "                 rows 65536x32 16384x128 4096x1024 1024x16384 64x2^20 4x2^24 (rdxsort:\n"
        "                 offsets NULL) and variable lengths: powerlaw (Lomax, mean ~100, some\n"
        "                 empty, 2^24 keys) and huge+tiny (one segment of 2^23 keys among 2^20 of\n"
        "                 1..16), and 8192x2048 4096x3000 (segments that fill a bin in part);\n"
        "                 every result checked bit for bit against CUB's (a difference is\n"
        "                 a MISMATCH, exit 1); L2 flushed before every run, median of %d runs\n"
        "                 after %d warm-ups; the table and, last, the worst rdx/best-CUB ratio.\n"
        "                 quick: 4096x1024 65536x32 64x2^20 powerlaw, u32 keys and pairs only.\n"
        "                 In segmented mode:\n"
        "                 -t LIST   keys u32 f32 u64, pairs u32/u32 f32/u32 u64/u64 (default all)\n"
        "                 --shapes LIST  RxC (counts or 2^k), powerlaw, huge+tiny\n"
        "                 --repeat R, --warmup W, --seed S, --csv FILE\n"
        "  -h, --help     this text\n"
        "  --tune LIST    rdxsort's route limits, NAME=COUNT or NAME=2^K, comma-separated\n"
        "                 (every mode but --segmented; src/cuda/tuning_ctx.h says what each\n"
        "                 is): an experiment with where a route starts or ends, no rebuild;\n"
        "                 e.g. cluster_max_n=0 (no one-cluster path: the grid path serves\n"
        "                 those sizes), msd4_min_n=2^25. Names:\n", GB_LOG2_LIMIT, RDX_GM_REPEAT, RDX_GM_WARMUP, RDX_GM_BIG_REPEAT,
        RDX_GM_BIG_WARMUP, RDX_GM_BIG_LOG2, RDX_GM_RATIO_FROM_LOG2, RDX_GM_MAX_LOG2, RDX_GS_REPEAT,
        RDX_GS_WARMUP);
    fputs("                   ", f);
    rdx_gpu_bench_tune_names(f);
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

/* Closes the CSV file (when there is one); a failed write makes a clean run's status 1. */
static int close_csv(FILE *csv, const char *path, int rc)
{
    if (csv && fclose(csv) != 0) {
        fprintf(stderr, "rdx-gpu-bench: %s: write failed\n", path);
        return rc ? rc : 1;
    }
    return rc;
}

/* ---- the matrix's lists (rdx-gpu-bench --matrix) ---- */

static int add_matrix_case(const char *tok, void *arg)
{
    rdx_gpu_matrix_opts *o = (rdx_gpu_matrix_opts *)arg;
    if (o->ncases == RDX_GM_MAX_CASES) return -1;
    return rdx_gpu_matrix_parse_case(tok, &o->cases[o->ncases++]);
}

static int add_matrix_size(const char *tok, void *arg)
{
    rdx_gpu_matrix_opts *o = (rdx_gpu_matrix_opts *)arg;
    if (o->nsizes == RDX_GM_MAX_SIZES) return -1;
    return parse_size(tok, &o->sizes[o->nsizes++]);
}

static int add_matrix_dist(const char *tok, void *arg)
{
    rdx_gpu_matrix_opts *o = (rdx_gpu_matrix_opts *)arg;
    int d;
    if (strcmp(tok, "all") == 0) {
        rdx_gpu_matrix_opts all;
        rdx_gpu_matrix_defaults(&all, 0);
        memcpy(o->dists, all.dists, sizeof o->dists);
        o->ndists = all.ndists;
        return 0;
    }
    if ((d = rdx_gpu_matrix_parse_dist(tok)) < 0 || o->ndists == RDX_GM_MAX_DISTS) return -1;
    o->dists[o->ndists++] = d;
    return 0;
}

/* rdx-gpu-bench --matrix[=quick]: the lists parsed with the matrix's names. */
static int run_matrix(int quick, char *types, char *sizes, char *dists, long repeat, long warmup,
                      int have_seed, unsigned long long seed, long max_log2, const char *tune,
                      const char *csv_path)
{
    rdx_gpu_matrix_opts o;
    FILE *csv = NULL;
    int rc;
    rdx_gpu_matrix_defaults(&o, quick);
    if (types) {
        o.ncases = 0;
        if ((rc = each_item(types, add_matrix_case, &o))) return rc;
    }
    if (sizes) {
        o.nsizes = 0;
        if ((rc = each_item(sizes, add_matrix_size, &o))) return rc;
    }
    if (dists) {
        o.ndists = 0;
        if ((rc = each_item(dists, add_matrix_dist, &o))) return rc;
    }
    if (repeat > 0) o.repeat = o.big_repeat = (int)repeat;
    if (warmup >= 0) o.warmup = o.big_warmup = (int)warmup;
    if (max_log2 > 0) o.max_log2 = (int)max_log2;
    if (have_seed) o.seed = seed;
    o.tune = tune;
    if (o.repeat < 10)
        fprintf(stderr, "rdx-gpu-bench: note: a median of %d runs (the benchmark's rule is >= 10)\n", o.repeat);
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "rdx-gpu-bench: %s: %s\n", csv_path, strerror(errno));
        return 2;
    }
    return close_csv(csv, csv_path, rdx_gpu_matrix_run(&o, stdout, csv));
}

/* ---- the segmented benchmark's lists (rdx-gpu-bench --segmented) ---- */

static int add_seg_case(const char *tok, void *arg)
{
    rdx_gpu_seg_opts *o = (rdx_gpu_seg_opts *)arg;
    if (o->ncases == RDX_GS_MAX_CASES) return -1;
    return rdx_gpu_seg_parse_case(tok, &o->cases[o->ncases++]);
}

static int add_seg_shape(const char *tok, void *arg)
{
    rdx_gpu_seg_opts *o = (rdx_gpu_seg_opts *)arg;
    if (o->nshapes == RDX_GS_MAX_SHAPES) return -1;
    return rdx_gpu_seg_parse_shape(tok, &o->shapes[o->nshapes++]);
}

/* rdx-gpu-bench --segmented[=quick]. */
static int run_segmented(int quick, char *types, char *shapes, long repeat, long warmup, int have_seed,
                         unsigned long long seed, const char *csv_path)
{
    rdx_gpu_seg_opts o;
    FILE *csv = NULL;
    int rc;
    rdx_gpu_seg_defaults(&o, quick);
    if (types) {
        o.ncases = 0;
        if ((rc = each_item(types, add_seg_case, &o))) return rc;
    }
    if (shapes) {
        o.nshapes = 0;
        if ((rc = each_item(shapes, add_seg_shape, &o))) return rc;
    }
    if (repeat > 0) o.repeat = (int)repeat;
    if (warmup >= 0) o.warmup = (int)warmup;
    if (have_seed) o.seed = seed;
    if (o.repeat < 10)
        fprintf(stderr, "rdx-gpu-bench: note: a median of %d runs (the benchmark's rule is >= 10)\n", o.repeat);
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "rdx-gpu-bench: %s: %s\n", csv_path, strerror(errno));
        return 2;
    }
    return close_csv(csv, csv_path, rdx_gpu_seg_run(&o, stdout, csv));
}

int main(int argc, char **argv)
{
    rdx_gpu_bench_opts o, given;
    const char *csv_path = NULL;
    char *types = NULL, *sizes = NULL, *dists = NULL, *shapes = NULL;
    long repeat = -1, warmup = -1, max_log2 = 0;
    unsigned long long seed = 0;
    int quick = 0, have_seed = 0, matrix = 0, segmented = 0, i, rc;
    const char *tune = NULL;
    FILE *csv = NULL;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_arg = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { usage(stdout); return 0; }
        else if (strcmp(a, "--quick") == 0) quick = 1;
        else if (strcmp(a, "--matrix") == 0 || strcmp(a, "--matrix=full") == 0) matrix = 1;
        else if (strcmp(a, "--matrix=quick") == 0) matrix = 2;
        else if (strcmp(a, "--segmented") == 0 || strcmp(a, "--segmented=full") == 0) segmented = 1;
        else if (strcmp(a, "--segmented=quick") == 0) segmented = 2;
        else if (!has_arg && (strcmp(a, "-t") == 0 || strcmp(a, "-n") == 0 || strcmp(a, "--dist") == 0 ||
                              strcmp(a, "--repeat") == 0 || strcmp(a, "--warmup") == 0 ||
                              strcmp(a, "--seed") == 0 || strcmp(a, "--csv") == 0 ||
                              strcmp(a, "--max-log2") == 0 || strcmp(a, "--shapes") == 0 ||
                              strcmp(a, "--tune") == 0))
            return bad("missing value for", a);
        else if (strcmp(a, "-t") == 0) types = argv[++i];
        else if (strcmp(a, "-n") == 0) sizes = argv[++i];
        else if (strcmp(a, "--dist") == 0) dists = argv[++i];
        else if (strcmp(a, "--csv") == 0) csv_path = argv[++i];
        else if (strcmp(a, "--shapes") == 0) shapes = argv[++i];
        else if (strcmp(a, "--tune") == 0) {
            tune = argv[++i];
            if (rdx_gpu_bench_tune_check(tune, stderr)) return 2;
        }
        else if (strcmp(a, "--repeat") == 0 || strcmp(a, "--warmup") == 0) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < (a[2] == 'r' ? 1 : 0) || v > 100000) return bad("bad count", argv[i]);
            if (a[2] == 'r') repeat = v; else warmup = v;
        } else if (strcmp(a, "--max-log2") == 0) {
            char *end;
            max_log2 = strtol(argv[++i], &end, 10);
            if (*end || max_log2 < RDX_GM_MIN_LOG2 || max_log2 > GB_LOG2_LIMIT) return bad("bad --max-log2", argv[i]);
        } else if (strcmp(a, "--seed") == 0) {
            if (parse_u64(argv[++i], &seed)) return bad("bad seed", argv[i]);
            have_seed = 1;
        } else {
            usage(stderr);
            return bad("unknown option", a);
        }
    }

    if (matrix && segmented) return bad("choose one of", "--matrix, --segmented");
    if (segmented) {
        if (sizes || dists || max_log2 || quick || tune)
            fprintf(stderr, "rdx-gpu-bench: note: -n, --dist, --max-log2, --quick and --tune do not "
                            "apply to --segmented (ignored)\n");
        return run_segmented(segmented == 2, types, shapes, repeat, warmup, have_seed, seed, csv_path);
    }
    if (shapes) return bad("--shapes needs", "--segmented");
    if (matrix)
        return run_matrix(matrix == 2, types, sizes, dists, repeat, warmup, have_seed, seed, max_log2, tune, csv_path);
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
    o.tune = tune;
    if (o.repeat < 10)
        fprintf(stderr, "rdx-gpu-bench: note: a median of %d runs (the benchmark's rule is >= 10)\n", o.repeat);

    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "rdx-gpu-bench: %s: %s\n", csv_path, strerror(errno));
        return 2;
    }
    rc = rdx_gpu_bench_run(&o, stdout, csv);
    return close_csv(csv, csv_path, rc);
}
