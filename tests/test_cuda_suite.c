/* The CUDA backend runs the shared suite (tests/suite.c) five times: on device arrays with
 * the default routes (the cluster route up to RDX_CLUSTER_MAX_N), through the stream-ordered
 * out-of-place calls of rdx_cuda.h (outputs apart from the inputs), with the cluster route
 * off (the grid route), with both off (the onesweep route's medium tile shape), and on host
 * arrays with the large tile shape for every size. Then mixed, unaligned and managed arrays
 * against the reference, and one context reused over growing and shrinking sizes.
 *
 * Exits 77 (CTest's skip) where no GPU is usable. RDX_TEST_SEED replays a run;
 * RDX_TEST_MAX_LOG2_N bounds the largest suite size (default 20, the 2^20 + 3 case);
 * RDX_TEST_SUITE=device runs the suite on device arrays only (synchronous and out of
 * place), RDX_TEST_SUITE=0 leaves it out (gpu-check.sh, under compute-sanitizer). */
#include "cuda_check.h"
#include "cuda_into.h"

static const rdx_test_memory device_memory = {"device", dev_alloc, dev_release, dev_upload, dev_download};

/* The shared suite through the out-of-place calls. */
static const rdx_test_sorter into_sorter = {"into_async", into_keys, into_pairs, async_argsort};

/* Keys on the device and values on the host (and the other way round), keys and values
 * not aligned to their size, managed memory: each is copied or used as it must be. */
static void placements(rdx_ctx *ctx)
{
    uint64_t s = seed ^ 0x3333;
    const size_t n = 3 * (size_t)(RDX_OSM_THREADS * RDX_OSM_ITEMS) + 17;
    sort_and_compare(ctx, RDX_U32, n, 4, 0, 0, AT_DEVICE, AT_HOST, 0, &s, "device keys, host values");
    sort_and_compare(ctx, RDX_F64, n, 8, 0, RDX_DESCENDING, AT_HOST, AT_DEVICE, 0, &s, "host keys, device values");
    sort_and_compare(ctx, RDX_I16, n, 0, 1, 0, AT_DEVICE, AT_HOST, 0, &s, "argsort: device keys, host indices");
    sort_and_compare(ctx, RDX_U32, n, 0, 1, 0, AT_HOST, AT_DEVICE, 0, &s, "argsort: host keys, device indices");
    sort_and_compare(ctx, RDX_U32, n, 4, 0, 0, AT_DEVICE, AT_DEVICE, 1, &s, "unaligned device keys and values");
    sort_and_compare(ctx, RDX_U64, 1000, 8, 0, 0, AT_DEVICE, AT_DEVICE, 3, &s, "unaligned, small");
    sort_and_compare(ctx, RDX_U16, n, 0, 1, 0, AT_DEVICE, AT_DEVICE, 1, &s, "argsort, unaligned");
    sort_and_compare(ctx, RDX_BF16, n, 6, 0, 0, AT_DEVICE, AT_DEVICE, 1, &s, "6-byte values, unaligned");
    sort_and_compare(ctx, RDX_F32, n, 4, 0, 0, AT_MANAGED, AT_MANAGED, 0, &s, "managed keys and values");
    sort_and_compare(ctx, RDX_U8, 2000, 0, 1, 0, AT_MANAGED, AT_DEVICE, 0, &s, "managed keys, small argsort");
}

/* One context, many calls: scratch grows, is reused, and must not leak old data. */
static void reused_context(rdx_ctx *ctx)
{
    uint64_t s = seed ^ 0x4444;
    static const size_t sizes[] = {10, 200000, 70, 4096, 4097, 300001, 1000, 65536, 2, 140000, 64, 99};
    static const rdx_type types[] = {RDX_U64, RDX_I32, RDX_U8, RDX_F32, RDX_U16};
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            const rdx_type t = types[(i + (size_t)round) % 5];
            const int kind = (int)((i + 2 * (size_t)round) % 4);
            sort_and_compare(ctx, t, sizes[i], kind == 1 ? 8 : kind == 2 ? 12 : 0, kind == 3,
                             i % 2 ? RDX_DESCENDING : 0u, round ? AT_DEVICE : AT_HOST,
                             round ? AT_DEVICE : AT_HOST, 0, &s, "reused context");
        }
}

/* The five runs of the suite, each on its own context with the tuning given. */
static void suites(rdx_ctx *ctx, int max_log2, const char *suite)
{
    /* Device arrays: the small-n limit +- 1, then the cluster route above it (up to
     * RDX_CLUSTER_MAX_N: sizes around multiples of the small-n limit and the more sizes
     * below), then the grid route, then the onesweep route. */
    static const size_t more[] = {65535, 5000, 32768, 65536, 0};
    rdx_cuda_tuning tuning = *rdx_cuda_ctx_tuning(ctx);
    rdx_suite_config cfg = {RDX_BACKEND_CUDA, &device_memory, seed, max_log2, RDX_SMALL_MAX_N, more, NULL,
                            use_tuning, &tuning};
    failures += rdx_run_sort_suite(&cfg);
    /* Device arrays through the stream-ordered out-of-place calls, on the onesweep route
     * with the medium tile shape above the small-n limit (test_cuda_stream covers the grid
     * route). */
    tuning.grid_max_n = 0;
    cfg.seed = seed ^ 0x3333;
    cfg.tile = RDX_OS_SHAPE_THREADS(4, 0, 1) * RDX_OS_SHAPE_ITEMS(4, 0, 1);
    cfg.sorter = &into_sorter;
    failures += rdx_run_sort_suite(&cfg);
    cfg.sorter = NULL;
    cfg.tile = RDX_SMALL_MAX_N;
    tuning.grid_max_n = RDX_GRID_MAX_N;
    if (suite && strcmp(suite, "device") == 0)
        return;
    /* The same sizes with the cluster route off: the grid route. */
    tuning.cluster_max_n = 0;
    cfg.seed = seed ^ 0x1111;
    failures += rdx_run_sort_suite(&cfg);
    /* The sizes above the small-n limit that the one-launch routes serve by default,
     * through the onesweep route's medium tile shape instead. */
    tuning.grid_max_n = 0;
    cfg.seed = seed ^ 0x5555;
    cfg.tile = RDX_OS_SHAPE_THREADS(4, 0, 1) * RDX_OS_SHAPE_ITEMS(4, 0, 1);
    cfg.more_sizes = NULL;
    failures += rdx_run_sort_suite(&cfg);
    /* Host arrays, with the large tile shape for every size above the small-n limit (it
     * serves only inputs above RDX_OS_MID_MAX_N otherwise). */
    tuning.medium_max_n = tuning.mid_max_n = 0;
    cfg.memory = &rdx_test_host_memory;
    cfg.seed = seed ^ 0x9999;
    cfg.tile = RDX_OS_SHAPE_THREADS(4, 0, 0) * RDX_OS_SHAPE_ITEMS(4, 0, 0);
    failures += rdx_run_sort_suite(&cfg);
}

int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    const char *suite = getenv("RDX_TEST_SUITE");
    into_begin();
    if (!suite || strcmp(suite, "0") != 0)
        suites(ctx, rdx_test_max_log2(20), suite);
    placements(ctx);
    reused_context(ctx);
    into_end();
    rdx_ctx_destroy(ctx);
    printf("test_cuda_suite: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
