/* The stream-ordered calls of rdx_cuda.h (rdx_cuda_sort_keys_into_async,
 * rdx_cuda_sort_pairs_into_async, rdx_cuda_argsort_async): every key type and order at
 * sizes for each route (0 to 2^21 + 7), pairs with each array in place or apart, odd pass
 * counts with none / one / several passes active, argsort keys unchanged; the same on the
 * onesweep route cut into portions of a few tiles (the context's tuning); and a CUDA graph
 * replayed on data whose active passes change. (test_cuda_cub covers the in-place calls,
 * RDX_ERR_TEMP_TOO_SMALL and a graph of several routes; test_cuda_bad the calls' argument
 * rules.)
 *
 * Exits 77 where no GPU is usable. RDX_TEST_SEED replays a run; RDX_TEST_MAX_LOG2_N bounds
 * the sizes (default: up to 2^21 + 7); RDX_TEST_SANITIZER=1 thins the matrix to every 8th
 * case (gpu-check.sh, under compute-sanitizer). */
#include "cuda_check.h"
#include "cuda_into.h"

/* Key data: random with few distinct top bytes (stability counts); all keys equal (no
 * pass has anything to do); only the lowest byte varying (one active pass with 8-bit
 * digits: an odd number); the lowest and the highest byte varying. Constant bytes stay
 * constant through the key mapping, whatever the type and order. */
enum { FILL_RANDOM, FILL_EQUAL, FILL_LOW, FILL_TWO, NFILL };
static const char *const fill_names[NFILL] = {"random", "all equal", "low byte", "low and high byte"};

static void fill_keys(unsigned char *k, size_t n, size_t kb, int fill, uint64_t *s)
{
    const uint64_t base = rnd(s);
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < kb; b++) {
            const unsigned char fixed = (unsigned char)(base >> (8 * b));
            unsigned char x;
            if (fill == FILL_EQUAL)
                x = fixed;
            else if (fill == FILL_LOW)
                x = b == 0 ? (unsigned char)rnd(s) : fixed;
            else if (fill == FILL_TWO)
                x = b == 0 || b == kb - 1 ? (unsigned char)rnd(s) : fixed;
            else
                x = (unsigned char)(b == kb - 1 ? rnd(s) % 3 : rnd(s));
            k[i * kb + b] = x;
        }
}

/* One *_into sort of n keys (and values of vs bytes, vs > 0) through the stream-ordered
 * API, against the reference. keys_same / vals_same: the output pointer is the input
 * pointer (in place); else the output starts as a pattern and the input must come back
 * unchanged. */
/* Under compute-sanitizer (RDX_TEST_SANITIZER=1, set by scripts/gpu-check.sh) into_case
 * runs every INTO_SANITIZER_STRIDE-th case only: each onesweep sort costs seconds there. */
#define INTO_SANITIZER_STRIDE 8
static int into_stride = 1, into_turn;

static void into_case(rdx_ctx *ctx, rdx_type type, size_t n, size_t vs, int fill, const rdx_opts *opts,
                      int keys_same, int vals_same, uint64_t *s, const char *what)
{
    if (into_turn++ % into_stride != 0)
        return;
    const size_t kb = rdx_type_size(type);
    char desc[256];
    snprintf(desc, sizeof desc, "%s: %s n=%zu %s%zu %s %s, bits [%d,%d) radix_bits %d, keys %s, values %s", what,
             type_name(type), n, vs ? "value_size " : "keys only", vs, fill_names[fill],
             opts->flags & RDX_DESCENDING ? "descending" : "ascending", opts->begin_bit,
             opts->end_bit ? opts->end_bit : (int)(8 * kb), opts->radix_bits, keys_same ? "in place" : "apart",
             vs ? (vals_same ? "in place" : "apart") : "-");
    unsigned char *keys = host_or_die(n * kb), *vals = host_or_die(n * vs);
    unsigned char *got = host_or_die(n * kb), *gotv = host_or_die(n * vs);
    size_t *perm = host_or_die(n * sizeof *perm);
    fill_keys(keys, n, kb, fill, s);
    for (size_t i = 0; i < n * vs; i++)
        vals[i] = (unsigned char)rnd(s);
    if (rdx_ref_argsort(keys, n, type, opts, perm) != 0) {
        printf("FAIL: the reference ran out of memory\n");
        exit(1);
    }
    unsigned char *dk_in = NULL, *dk_out = NULL, *dv_in = NULL, *dv_out = NULL;
    if (n > 0) {
        dk_in = alloc_at(AT_DEVICE, n * kb);
        dk_out = keys_same ? dk_in : alloc_at(AT_DEVICE, n * kb);
        dev_upload(dk_in, keys, n * kb);
        if (!keys_same)
            cuda_or_die(cudaMemset(dk_out, 0xA5, n * kb), "cudaMemset");
        if (vs) {
            dv_in = alloc_at(AT_DEVICE, n * vs);
            dv_out = vals_same ? dv_in : alloc_at(AT_DEVICE, n * vs);
            dev_upload(dv_in, vals, n * vs);
            if (!vals_same)
                cuda_or_die(cudaMemset(dv_out, 0x5A, n * vs), "cudaMemset");
        }
    }
    const rdx_status st = vs ? into_pairs(ctx, dk_in, dk_out, dv_in, dv_out, vs, n, type, opts)
                             : into_keys(ctx, dk_in, dk_out, n, type, opts);
    CHECK(st == RDX_OK, "%s: %s", desc, rdx_ctx_error(ctx));
    if (st == RDX_OK && n > 0) {
        size_t at;
        dev_download(got, dk_out, n * kb);
        CHECK((at = first_unlike(got, keys, perm, n, kb)) == n, "%s: keys differ from the reference at %zu", desc,
              at);
        if (vs) {
            dev_download(gotv, dv_out, n * vs);
            CHECK((at = first_unlike(gotv, vals, perm, n, vs)) == n, "%s: values differ from the reference at %zu",
                  desc, at);
        }
        if (!keys_same) {
            dev_download(got, dk_in, n * kb);
            CHECK(memcmp(got, keys, n * kb) == 0, "%s: the input keys changed", desc);
        }
        if (vs && !vals_same) {
            dev_download(gotv, dv_in, n * vs);
            CHECK(memcmp(gotv, vals, n * vs) == 0, "%s: the input values changed", desc);
        }
    }
    if (n > 0) {
        if (!keys_same)
            free_at(AT_DEVICE, dk_out);
        free_at(AT_DEVICE, dk_in);
        if (vs) {
            if (!vals_same)
                free_at(AT_DEVICE, dv_out);
            free_at(AT_DEVICE, dv_in);
        }
    }
    free(keys);
    free(vals);
    free(got);
    free(gotv);
    free(perm);
}

/* rdx_cuda_argsort_async: the permutation of the reference, and the keys unchanged. */
static void argsort_case(rdx_ctx *ctx, rdx_type type, size_t n, rdx_type index_type, int fill,
                         const rdx_opts *opts, uint64_t *s, const char *what)
{
    const size_t kb = rdx_type_size(type), ib = rdx_type_size(index_type);
    unsigned char *keys = host_or_die(n * kb), *back = host_or_die(n * kb), *idx = host_or_die(n * ib);
    size_t *perm = host_or_die(n * sizeof *perm);
    fill_keys(keys, n, kb, fill, s);
    if (rdx_ref_argsort(keys, n, type, opts, perm) != 0) {
        printf("FAIL: the reference ran out of memory\n");
        exit(1);
    }
    unsigned char *dk = alloc_at(AT_DEVICE, n * kb), *di = alloc_at(AT_DEVICE, n * ib);
    dev_upload(dk, keys, n * kb);
    const rdx_status st = async_argsort(ctx, dk, n, type, di, index_type, opts);
    CHECK(st == RDX_OK, "%s: argsort %s n=%zu %s: %s", what, type_name(type), n, fill_names[fill],
          rdx_ctx_error(ctx));
    if (st == RDX_OK) {
        dev_download(back, dk, n * kb);
        CHECK(memcmp(back, keys, n * kb) == 0, "%s: argsort %s n=%zu %s changed the keys", what, type_name(type), n,
              fill_names[fill]);
        dev_download(idx, di, n * ib);
        size_t at = n;
        for (size_t i = 0; i < n && at == n; i++) {
            uint64_t x = 0;
            memcpy(&x, idx + i * ib, ib); /* little-endian */
            if (x != perm[i])
                at = i;
        }
        CHECK(at == n, "%s: argsort %s n=%zu %s %s indices: differs from the reference at %zu", what,
              type_name(type), n, fill_names[fill], index_type == RDX_U32 ? "u32" : "u64", at);
    }
    free_at(AT_DEVICE, dk);
    free_at(AT_DEVICE, di);
    free(keys);
    free(back);
    free(idx);
    free(perm);
}

static const rdx_type all_types[12] = {RDX_U8,  RDX_U16, RDX_U32, RDX_U64,  RDX_I8,  RDX_I16,
                                       RDX_I32, RDX_I64, RDX_F16, RDX_BF16, RDX_F32, RDX_F64};

/* Digit widths and bit ranges that give an odd number of passes (3, 5, 13, 5, 3, 3, 7),
 * the sorted bits starting at bit 0 so that FILL_LOW leaves one pass active. */
typedef struct pass_config {
    rdx_type type;
    int begin_bit, end_bit, radix_bits;
} pass_config;
static const pass_config odd_passes[] = {
    {RDX_U32, 0, 24, 8}, {RDX_U32, 0, 0, 7}, {RDX_U64, 0, 0, 5}, {RDX_U16, 0, 15, 3},
    {RDX_U8, 0, 0, 3},   {RDX_F32, 0, 24, 0}, {RDX_I64, 0, 56, 8},
};

/* Sizes for each path: empty, one key, the one-block path up to its limit 4096, the grid
 * path (keys up to 2^20, pairs up to 2^18), the onesweep path with the medium tile shape
 * (up to 2^18) and the large one. */
static const size_t into_sizes[] = {0,
                                    1,
                                    1000,
                                    RDX_SMALL_MAX_N,
                                    RDX_SMALL_MAX_N + 1,
                                    10007,
                                    ((size_t)1 << 16) + 3,
                                    ((size_t)1 << 18) + 1,
                                    ((size_t)1 << 20) + 5,
                                    ((size_t)1 << 21) + 7};
#define N_INTO_SIZES (sizeof into_sizes / sizeof into_sizes[0])

/* Every size, type and order, keys and pairs, each array in place or apart, the odd pass
 * counts with none, one or several passes active; argsort keys unchanged. */
static void into_matrix(rdx_ctx *ctx, size_t limit, uint64_t *s, const char *what)
{
    int turn = 0;
    for (size_t i = 0; i < N_INTO_SIZES; i++) {
        const size_t n = into_sizes[i];
        if (n > limit)
            continue;
        for (int t = 0; t < 12; t++)
            for (int o = 0; o < 2; o++, turn++) {
                const rdx_opts opts = {o ? RDX_DESCENDING : 0u, 0, 0, 0};
                into_case(ctx, all_types[t], n, 0, turn % NFILL, &opts, 0, 0, s, what);
            }
        /* Pairs: values of 4 and 8 bytes move with the keys, 12-byte values are gathered;
         * keys and values each in place or apart. */
        static const size_t value_sizes[] = {4, 8, 12};
        static const rdx_type pair_types[] = {RDX_U32, RDX_F64, RDX_I16, RDX_U8, RDX_U64, RDX_F32};
        for (int v = 0; v < 3; v++)
            for (int mode = 0; mode < 4; mode++, turn++) {
                const rdx_opts opts = {turn % 2 ? RDX_DESCENDING : 0u, 0, 0, 0};
                into_case(ctx, pair_types[turn % 6], n, value_sizes[v], (v + mode + (int)i) % NFILL, &opts, mode & 1,
                          mode >> 1, s, what);
            }
        /* Keys in place through the *_into call. */
        {
            const rdx_opts opts = {0, 0, 0, 0};
            into_case(ctx, all_types[turn % 12], n, 0, turn % NFILL, &opts, 1, 0, s, what);
            turn++;
        }
        if (n == 0)
            continue;
        /* Odd pass counts: no pass, one or several active. */
        for (size_t c = 0; c < sizeof odd_passes / sizeof odd_passes[0]; c++) {
            const pass_config *pc = &odd_passes[c];
            const rdx_opts opts = {c % 2 ? RDX_DESCENDING : 0u, pc->begin_bit, pc->end_bit, pc->radix_bits};
            for (int f = 0; f < NFILL; f++, turn++)
                into_case(ctx, pc->type, n, f == FILL_TWO ? 0 : value_sizes[turn % 3], f, &opts, 0, turn / 3 % 2,
                          s, what);
        }
        /* Argsort: the first pass reads the caller's keys; they must not change. */
        for (int f = 0; f < NFILL; f++, turn++) {
            const rdx_opts opts = {turn % 2 ? RDX_DESCENDING : 0u, 0, 0, f == FILL_LOW ? 3 : 0};
            argsort_case(ctx, all_types[turn % 12], n, f % 2 ? RDX_U64 : RDX_U32, f, &opts, s, what);
        }
    }
}

/* One graph with an out-of-place keys sort (onesweep path) and an out-of-place pairs sort
 * (grid or onesweep path), replayed on data whose active passes change between replays:
 * all, one (odd), none, two. */
static void into_graph(rdx_ctx *ctx, size_t limit)
{
    uint64_t s = seed ^ 0x8888;
    size_t n = ((size_t)1 << 20) + 5, np = ((size_t)1 << 18) + 1;
    if (n > limit)
        n = limit;
    if (np > limit)
        np = limit;
    unsigned char *k = host_or_die(n * 4), *kp = host_or_die(np * 8), *v = host_or_die(np * 4);
    unsigned char *got = host_or_die(n * 8);
    size_t *perm = host_or_die(n * sizeof *perm);
    unsigned char *dk = alloc_at(AT_DEVICE, n * 4), *dko = alloc_at(AT_DEVICE, n * 4);
    unsigned char *dkp = alloc_at(AT_DEVICE, np * 8), *dkpo = alloc_at(AT_DEVICE, np * 8);
    unsigned char *dv = alloc_at(AT_DEVICE, np * 4), *dvo = alloc_at(AT_DEVICE, np * 4);
    size_t tb1 = 0, tb2 = 0;
    const rdx_opts desc = {RDX_DESCENDING, 0, 0, 0};
    CHECK(rdx_cuda_sort_keys_temp_size(ctx, n, RDX_U32, NULL, &tb1) == RDX_OK, "temp size: %s", rdx_ctx_error(ctx));
    CHECK(rdx_cuda_sort_pairs_temp_size(ctx, 4, np, RDX_F64, &desc, &tb2) == RDX_OK, "temp size: %s",
          rdx_ctx_error(ctx));
    tb1 = (tb1 + 255) / 256 * 256;
    unsigned char *t = temp_for(tb1 + tb2);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStream_t gs = capture_begin();
    const rdx_status c1 = rdx_cuda_sort_keys_into_async(ctx, dk, dko, n, RDX_U32, NULL, t, tb1, gs);
    const rdx_status c2 =
        rdx_cuda_sort_pairs_into_async(ctx, dkp, dkpo, dv, dvo, 4, np, RDX_F64, &desc, t + tb1, tb2, gs);
    cuda_or_die(cudaStreamEndCapture(gs, &graph), "end capture");
    CHECK(c1 == RDX_OK && c2 == RDX_OK, "into graph: enqueue during capture failed: %s", rdx_ctx_error(ctx));
    cuda_or_die(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    static const int fills[] = {FILL_RANDOM, FILL_LOW, FILL_EQUAL, FILL_TWO};
    for (int round = 0; round < 4; round++) {
        fill_keys(k, n, 4, fills[round], &s);
        fill_keys(kp, np, 8, fills[round], &s);
        for (size_t i = 0; i < np * 4; i++)
            v[i] = (unsigned char)rnd(&s);
        dev_upload(dk, k, n * 4);
        dev_upload(dkp, kp, np * 8);
        dev_upload(dv, v, np * 4);
        cuda_or_die(cudaMemset(dko, 0xA5, n * 4), "cudaMemset");
        cuda_or_die(cudaMemset(dvo, 0xA5, np * 4), "cudaMemset");
        cuda_or_die(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        cuda_or_die(cudaGraphLaunch(exec, gs), "cudaGraphLaunch");
        cuda_or_die(cudaStreamSynchronize(gs), "graph replay");
        size_t at;
        if (rdx_ref_argsort(k, n, RDX_U32, NULL, perm) != 0)
            exit(1);
        dev_download(got, dko, n * 4);
        CHECK((at = first_unlike(got, k, perm, n, 4)) == n, "into graph, replay %d (%s): keys differ at %zu", round,
              fill_names[fills[round]], at);
        dev_download(got, dk, n * 4);
        CHECK(memcmp(got, k, n * 4) == 0, "into graph, replay %d: the input keys changed", round);
        if (rdx_ref_argsort(kp, np, RDX_F64, &desc, perm) != 0)
            exit(1);
        dev_download(got, dkpo, np * 8);
        CHECK((at = first_unlike(got, kp, perm, np, 8)) == np, "into graph, replay %d (%s): pair keys differ at %zu",
              round, fill_names[fills[round]], at);
        dev_download(got, dvo, np * 4);
        CHECK((at = first_unlike(got, v, perm, np, 4)) == np, "into graph, replay %d (%s): values differ at %zu",
              round, fill_names[fills[round]], at);
        dev_download(got, dv, np * 4);
        CHECK(memcmp(got, v, np * 4) == 0, "into graph, replay %d: the input values changed", round);
    }
    capture_release(gs, graph, exec);
    free_at(AT_DEVICE, dk);
    free_at(AT_DEVICE, dko);
    free_at(AT_DEVICE, dkp);
    free_at(AT_DEVICE, dkpo);
    free_at(AT_DEVICE, dv);
    free_at(AT_DEVICE, dvo);
    free(k);
    free(kp);
    free(v);
    free(got);
    free(perm);
}

int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    const char *san = getenv("RDX_TEST_SANITIZER");
    into_stride = san && *san && strcmp(san, "0") != 0 ? INTO_SANITIZER_STRIDE : 1;
    into_begin();
    uint64_t s = seed ^ 0x6666;
    const int max_log2 = rdx_test_max_log2(21);
    const size_t limit = ((size_t)1 << (max_log2 < 2 ? 2 : max_log2)) + 7;
    into_matrix(ctx, limit, &s, "into");

    /* The onesweep route alone, in portions of 9216 keys at most: 3 tiles of the medium
     * shape, 1 or 2 of the large. */
    const size_t portion_limit = limit < ((size_t)1 << 20) + 5 ? limit : ((size_t)1 << 20) + 5;
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = 0;
    rdx_cuda_ctx_tuning(ctx)->cluster_max_n = 0;
    rdx_cuda_ctx_tuning(ctx)->portion_max_n = 3 * (size_t)RDX_OSM_THREADS * RDX_OSM_ITEMS;
    into_matrix(ctx, portion_limit, &s, "into, portions");
    reset_tuning(ctx);

    into_graph(ctx, limit);
    into_end();
    rdx_ctx_destroy(ctx);
    printf("test_cuda_stream: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
