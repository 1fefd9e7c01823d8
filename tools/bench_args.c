/* The options of `rdx bench` (see bench_args.h). */
#include "bench_args.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli.h"
#include "report.h"
#include "rng.h"
#include "types.h"

#define BENCH_STR2(x) #x
#define BENCH_STR(x) BENCH_STR2(x)

static const char usage[] =
    "usage: rdx bench [--backend auto|cpu|cuda|all] [-t TYPES] [-n SIZES] [--dist D]\n"
    "                 [--repeat R] [--threads LIST] [--seed S] [--csv FILE] [--no-peers]\n"
    "\n"
    "Sorts fresh random data with rdxsort on each backend asked for, and on the CPU with\n"
    "the peer sorts (qsort, std::sort, std::stable_sort, boost spreadsort where built,\n"
    "__gnu_parallel::sort) on the same data; verifies every result (order, and a checksum\n"
    "of the keys, or pairs, equal to the input's); prints one row per sorter, type, size:\n"
    "median time of R runs, keys/s, GB/s by the byte model of an LSD sort with\n"
    "8-bit digits (K + K*(2K + 2V) bytes per key of K bytes with values of V bytes: 36 for\n"
    "u32, 136 for u64, 68 for u32/u32), and rdx/this, rdxsort's speedup over the peer.\n"
    "\n"
    "      --backend B    all (default: cpu, and cuda where a GPU is usable), auto, cpu, cuda\n"
    "  -t, --types L      comma-separated key types, K/V for pairs (value of V's size);\n"
    "                     default " BENCH_DEFAULT_TYPES "\n"
    "  -n, --sizes L      comma-separated counts (a number or 2^K); default " BENCH_DEFAULT_SIZES "\n"
    "      --dist D       uniform (default), sorted, reverse, equal, few, lowentropy, zipf,\n"
    "                     repeat\n"
    "      --repeat R     timed runs per row (default " BENCH_STR(BENCH_DEFAULT_REPEAT) "); a peer stops\n"
    "                     early once its runs took " BENCH_STR(BENCH_PEER_BUDGET_S) " s\n"
    "      --threads L    comma-separated CPU thread counts for rdxsort's rows (default:\n"
    "                     all cores); peers' speedups are against the first\n"
    "      --seed S       seed of the data (default: from the clock; printed)\n"
    "      --csv FILE     also write the rows as CSV\n"
    "      --no-peers     rdxsort only\n"
    "  -h, --help         this help\n"
    "\n"
    "With the default sizes qsort, std::sort and std::stable_sort run only up to 2^24 keys\n"
    "(qsort takes about 16 s at 2^26); -n runs every peer at every size.\n"
    "GPU rows here time host arrays (copies included); the GPU benchmark that follows,\n"
    "where built, times device arrays with CUDA events. Exit status 1 if any result fails.\n"
    "example: rdx bench -t u32,f64 -n 2^22 --dist lowentropy\n";

int bench_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* "u32" (keys) or "u32/u32" (pairs, values of the second type's size). */
static int parse_case(const char *item, bench_case *c)
{
    char key[8], value[8];
    const char *slash = strchr(item, '/');
    size_t klen = slash ? (size_t)(slash - item) : strlen(item);
    if (klen >= sizeof key || (slash && strlen(slash + 1) >= sizeof value))
        return -1;
    memcpy(key, item, klen);
    key[klen] = '\0';
    if (tool_parse_type(key, &c->key) != 0)
        return -1;
    c->value_size = 0;
    if (slash) {
        rdx_type vt;
        strcpy(value, slash + 1);
        if (tool_parse_type(value, &vt) != 0)
            return -1;
        c->value_size = rdx_type_size(vt);
    }
    snprintf(c->name, sizeof c->name, "%s", item);
    return 0;
}

/* Splits a comma-separated list and calls one() on each item; returns 0, or -1 after
 * printing why. */
static int parse_list(const char *arg, const char *what, size_t *count,
                      int (*one)(const char *item, size_t index, void *dst), void *dst)
{
    char buf[512];
    if (strlen(arg) >= sizeof buf) {
        tool_error("%s list too long", what);
        return -1;
    }
    strcpy(buf, arg);
    *count = 0;
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (*count == BENCH_MAX_LIST) {
            tool_error("more than %d %s", BENCH_MAX_LIST, what);
            return -1;
        }
        if (one(item, *count, dst) != 0)
            return -1;
        (*count)++;
    }
    if (*count == 0) {
        tool_error("empty %s list", what);
        return -1;
    }
    return 0;
}

static int one_case(const char *item, size_t i, void *dst)
{
    if (parse_case(item, &((bench_case *)dst)[i]) == 0)
        return 0;
    tool_error("'%s' is not a key type or KEY/VALUE pair of types (%s)", item, TOOL_TYPE_NAMES);
    return -1;
}

static int one_size(const char *item, size_t i, void *dst)
{
    uint64_t v;
    if (tool_parse_count(item, &v) == 0 && v > 0 && v <= SIZE_MAX / 16) {
        ((size_t *)dst)[i] = (size_t)v;
        return 0;
    }
    tool_error("size '%s' is not a positive count (a number or 2^K)", item);
    return -1;
}

static int one_thread_count(const char *item, size_t i, void *dst)
{
    long v;
    if (tool_parse_int(item, 1, 4096, &v) == 0) {
        ((int *)dst)[i] = (int)v;
        return 0;
    }
    tool_error("thread count '%s' is not a number from 1 to 4096", item);
    return -1;
}

/* Returns -1 to go on, else the exit status. */
int bench_parse_args(int argc, char **argv, bench_args *a)
{
    enum { OPT_BACKEND = 256, OPT_DIST, OPT_REPEAT, OPT_THREADS, OPT_SEED, OPT_CSV, OPT_NO_PEERS };
    static const struct option longopts[] = {
        {"types", required_argument, NULL, 't'},
        {"sizes", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"dist", required_argument, NULL, OPT_DIST},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"csv", required_argument, NULL, OPT_CSV},
        {"no-peers", no_argument, NULL, OPT_NO_PEERS},
        {NULL, 0, NULL, 0},
    };
    const char *backend = "all";
    int have_seed = 0, c;
    long v;
    memset(a, 0, sizeof *a);
    a->dist = TOOL_DIST_UNIFORM;
    a->repeat = BENCH_DEFAULT_REPEAT;
    parse_list(BENCH_DEFAULT_TYPES, "types", &a->ncases, one_case, a->cases);
    parse_list(BENCH_DEFAULT_SIZES, "sizes", &a->nsizes, one_size, a->sizes);
    a->threads[0] = bench_max_threads();
    a->nthreads = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (parse_list(optarg, "types", &a->ncases, one_case, a->cases) != 0)
                return TOOL_EXIT_USAGE;
            a->types_given = 1;
            break;
        case 'n':
            if (parse_list(optarg, "sizes", &a->nsizes, one_size, a->sizes) != 0)
                return TOOL_EXIT_USAGE;
            a->sizes_given = 1;
            break;
        case 'h': fputs(usage, stdout); return TOOL_EXIT_OK;
        case OPT_BACKEND: backend = optarg; break;
        case OPT_DIST:
            if (tool_parse_dist(optarg, &a->dist) != 0) {
                tool_error("unknown distribution '%s' (%s)", optarg, TOOL_DIST_NAMES);
                return TOOL_EXIT_USAGE;
            }
            break;
        case OPT_REPEAT:
            if (tool_parse_int(optarg, 1, 1000, &v) != 0) {
                tool_error("--repeat '%s' is not a number from 1 to 1000", optarg);
                return TOOL_EXIT_USAGE;
            }
            a->repeat = (int)v;
            break;
        case OPT_THREADS:
            if (parse_list(optarg, "thread counts", &a->nthreads, one_thread_count, a->threads) != 0)
                return TOOL_EXIT_USAGE;
            break;
        case OPT_SEED:
            if (tool_parse_count(optarg, &a->seed) != 0) {
                tool_error("--seed '%s' is not a number", optarg);
                return TOOL_EXIT_USAGE;
            }
            have_seed = 1;
            break;
        case OPT_CSV: a->csv_path = optarg; break;
        case OPT_NO_PEERS: a->no_peers = 1; break;
        default: return tool_bad_option(c, argv);
        }
    }
    if (optind != argc) {
        tool_error("unexpected argument '%s' (see rdx bench --help)", argv[optind]);
        return TOOL_EXIT_USAGE;
    }

    /* Which backends: "all" takes what is usable; a named one must be. */
    rdx_ctx *probe = NULL;
    int cuda_usable = rdx_ctx_create(&probe, RDX_BACKEND_CUDA) == RDX_OK;
    rdx_ctx_destroy(probe);
    if (strcmp(backend, "all") == 0) {
        a->want_cpu = 1;
        a->want_cuda = cuda_usable;
    } else {
        rdx_backend b;
        if (tool_parse_backend(backend, &b) != 0) {
            tool_error("unknown backend '%s' (all, auto, cpu or cuda)", backend);
            return TOOL_EXIT_USAGE;
        }
        if (b == RDX_BACKEND_AUTO)
            b = cuda_usable ? RDX_BACKEND_CUDA : RDX_BACKEND_CPU;
        if (b == RDX_BACKEND_CUDA) {
            rdx_ctx *ctx = tool_open_context(RDX_BACKEND_CUDA); /* prints why not */
            if (!ctx)
                return TOOL_EXIT_FAIL;
            rdx_ctx_destroy(ctx);
        }
        a->want_cpu = b == RDX_BACKEND_CPU;
        a->want_cuda = b == RDX_BACKEND_CUDA;
    }
    if (!have_seed) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        a->seed = tool_mix64((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^ (uint64_t)getpid();
    }
    if (a->csv_path && !(a->csv = fopen(a->csv_path, "w"))) {
        tool_error("%s: %s", a->csv_path, strerror(errno));
        return TOOL_EXIT_FAIL;
    }
    return -1;
}
