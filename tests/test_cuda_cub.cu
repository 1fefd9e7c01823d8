/* The CUDA backend against a second oracle, and the parts that need CUDA itself:
 *   - CUB's DeviceRadixSort: u32, u64 and f32 keys and u32/u32 pairs, both orders, a bit
 *     range, uniform / low-entropy / few-distinct / sorted data, at sizes around the
 *     small-n limit and the tile sizes;
 *   - the stream-ordered API of rdx_cuda.h: temporary size, RDX_ERR_TEMP_TOO_SMALL, host
 *     memory refused, a CUDA-graph capture replayed on fresh data (whose skipped passes
 *     change from one replay to the next).
 * Exits 77 where no GPU is usable. RDX_TEST_SEED replays a run; RDX_TEST_MAX_LOG2_N (or
 * RDX_TEST_MAX_LOG2N) caps the sizes compared with CUB (default 22; lower under
 * compute-sanitizer). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "rdx_cuda.h"
#include "cuda/test_hooks.h"
#include "cuda/tuning.h"
extern "C" {
#include "check.h"
#include "suite.h"
}
#include "cuda_die.h"

enum { DIST_UNIFORM, DIST_LOW_ENTROPY, DIST_FEW, DIST_SORTED, NDIST };
static const char *dist_name[] = {"uniform", "low-entropy", "few", "sorted"};

/* n random keys of kb bytes. f32 keys never hold -0.0: CUB sorts it equal to +0.0, rdxsort
 * below it (IEEE totalOrder). */
static void fill(unsigned char *buf, size_t n, int kb, int f32, int dist, uint64_t *s)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rnd(s);
        if (dist == DIST_LOW_ENTROPY)
            x &= rnd(s) & rnd(s);
        else if (dist == DIST_FEW)
            x = rnd(s) % 5 * 0x0101010101010101ull;
        else if (dist == DIST_SORTED)
            x = (uint64_t)i * 977;
        if (f32 && (uint32_t)x == 0x80000000u)
            x = 0;
        memcpy(buf + i * kb, &x, kb);
    }
}

/* Sorts the same device data with rdxsort (synchronous API) and CUB, compares bytes. */
template <typename K>
static void versus_cub(rdx_ctx *ctx, rdx_type type, size_t n, int pairs, int desc, int begin, int end, int dist,
                       uint64_t *s)
{
    const int kb = (int)sizeof(K);
    unsigned char *h = (unsigned char *)malloc(n * kb), *hv = (unsigned char *)malloc(n * 4);
    unsigned char *r1 = (unsigned char *)malloc(n * kb), *r2 = (unsigned char *)malloc(n * kb);
    uint32_t *v1 = (uint32_t *)malloc(n * 4), *v2 = (uint32_t *)malloc(n * 4);
    fill(h, n, kb, type == RDX_F32, dist, s);
    fill(hv, n, 4, 0, DIST_UNIFORM, s);
    K *dk, *dk2, *dk_out;
    uint32_t *dv, *dv2, *dv_out;
    CUDA_OR_DIE(cudaMalloc(&dk, n * kb));
    CUDA_OR_DIE(cudaMalloc(&dk2, n * kb));
    CUDA_OR_DIE(cudaMalloc(&dk_out, n * kb));
    CUDA_OR_DIE(cudaMalloc(&dv, n * 4));
    CUDA_OR_DIE(cudaMalloc(&dv2, n * 4));
    CUDA_OR_DIE(cudaMalloc(&dv_out, n * 4));
    CUDA_OR_DIE(cudaMemcpy(dk, h, n * kb, cudaMemcpyHostToDevice));
    CUDA_OR_DIE(cudaMemcpy(dk2, h, n * kb, cudaMemcpyHostToDevice));
    CUDA_OR_DIE(cudaMemcpy(dv, hv, n * 4, cudaMemcpyHostToDevice));
    CUDA_OR_DIE(cudaMemcpy(dv2, hv, n * 4, cudaMemcpyHostToDevice));

    const rdx_opts opts = {desc ? RDX_DESCENDING : 0u, begin, end, 0};
    const rdx_status st = pairs ? rdx_sort_pairs(ctx, dk, dv, 4, n, type, &opts) : rdx_sort_keys(ctx, dk, n, type, &opts);
    CHECK(st == RDX_OK, "rdxsort failed: %s", rdx_ctx_error(ctx));

    /* CUB sorts float keys as float; the same bits otherwise. */
    typedef typename std::conditional<sizeof(K) == 4, float, double>::type F;
    const int cub_end = end ? end : 8 * kb;
    void *temp = NULL;
    size_t temp_bytes = 0;
    for (int pass = 0; pass < 2; ++pass) {
        cudaError_t e;
        if (type == RDX_F32) {
            F *a = (F *)dk2, *b = (F *)dk_out;
            if (pairs)
                e = desc ? cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, a, b, dv2, dv_out, (int)n, begin, cub_end)
                         : cub::DeviceRadixSort::SortPairs(temp, temp_bytes, a, b, dv2, dv_out, (int)n, begin, cub_end);
            else
                e = desc ? cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, a, b, (int)n, begin, cub_end)
                         : cub::DeviceRadixSort::SortKeys(temp, temp_bytes, a, b, (int)n, begin, cub_end);
        } else {
            if (pairs)
                e = desc ? cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, dk2, dk_out, dv2, dv_out, (int)n, begin, cub_end)
                         : cub::DeviceRadixSort::SortPairs(temp, temp_bytes, dk2, dk_out, dv2, dv_out, (int)n, begin, cub_end);
            else
                e = desc ? cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, dk2, dk_out, (int)n, begin, cub_end)
                         : cub::DeviceRadixSort::SortKeys(temp, temp_bytes, dk2, dk_out, (int)n, begin, cub_end);
        }
        CUDA_OR_DIE(e);
        if (pass == 0)
            CUDA_OR_DIE(cudaMalloc(&temp, temp_bytes ? temp_bytes : 1));
    }
    CUDA_OR_DIE(cudaDeviceSynchronize());
    CUDA_OR_DIE(cudaMemcpy(r1, dk, n * kb, cudaMemcpyDeviceToHost));
    CUDA_OR_DIE(cudaMemcpy(r2, dk_out, n * kb, cudaMemcpyDeviceToHost));
    size_t at = n;
    for (size_t i = 0; i < n && at == n; i++)
        if (memcmp(r1 + i * kb, r2 + i * kb, kb) != 0)
            at = i;
    if (pairs && at == n) {
        CUDA_OR_DIE(cudaMemcpy(v1, dv, n * 4, cudaMemcpyDeviceToHost));
        CUDA_OR_DIE(cudaMemcpy(v2, dv_out, n * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n && at == n; i++)
            if (v1[i] != v2[i])
                at = i;
    }
    CHECK(at == n, "%s %s n=%zu %s bits [%d,%d) %s: differs from CUB at %zu", rdx_type_size(type) == 8 ? "u64" : type == RDX_F32 ? "f32" : "u32",
          pairs ? "pairs" : "keys", n, desc ? "descending" : "ascending", begin, cub_end, dist_name[dist], at);
    cudaFree(temp);
    cudaFree(dk);
    cudaFree(dk2);
    cudaFree(dk_out);
    cudaFree(dv);
    cudaFree(dv2);
    cudaFree(dv_out);
    free(h);
    free(hv);
    free(r1);
    free(r2);
    free(v1);
    free(v2);
}

static void cub_oracle(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x6666;
    /* Around the small-n limit, and one, two, three tiles of both shapes +- 1. */
    const size_t med = (size_t)RDX_OSM_THREADS * RDX_OSM_ITEMS;
    const size_t l4 = (size_t)RDX_OS_SHAPE_THREADS(4, 0, 0) * RDX_OS_SHAPE_ITEMS(4, 0, 0);
    const size_t l8 = (size_t)RDX_OS_SHAPE_THREADS(8, 0, 0) * RDX_OS_SHAPE_ITEMS(8, 0, 0);
    const size_t sizes[] = {1, 100, RDX_SMALL_MAX_N - 1, RDX_SMALL_MAX_N, RDX_SMALL_MAX_N + 1, 3 * med - 1,
                            3 * med + 1, l4 - 1, l4, l4 + 1, 2 * l8 - 1, 2 * l8 + 1, 3 * l4 + 3,
                            ((size_t)1 << 16) - 1, (size_t)1 << 16, 100003,
                            ((size_t)1 << 20) + 5, (size_t)1 << 22};
    int turn = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i];
        if (n > ((size_t)1 << max_log2) + 5)
            continue;
        for (int desc = 0; desc < 2; desc++, turn++) {
            const int dist = turn % NDIST;
            versus_cub<uint32_t>(ctx, RDX_U32, n, 0, desc, 0, 0, dist, &s);
            versus_cub<uint32_t>(ctx, RDX_U32, n, 1, desc, 0, 0, (dist + 1) % NDIST, &s);
            versus_cub<unsigned long long>(ctx, RDX_U64, n, 0, desc, 0, 0, (dist + 2) % NDIST, &s);
            versus_cub<uint32_t>(ctx, RDX_F32, n, 0, desc, 0, 0, (dist + 3) % NDIST, &s);
            versus_cub<uint32_t>(ctx, RDX_U32, n, 1, desc, 3, 29, dist, &s);
            versus_cub<unsigned long long>(ctx, RDX_U64, n, 0, desc, 13, 50, (dist + 1) % NDIST, &s);
        }
    }
}

/* ---- the stream-ordered API ---- */

/* d_keys holds n u32 keys; checks they are the stable sort of host keys h (u32). */
static void check_sorted_u32(const uint32_t *d_keys, const uint32_t *h, size_t n, const char *what)
{
    uint32_t *got = (uint32_t *)malloc(n * 4), *want = (uint32_t *)malloc(n * 4);
    CUDA_OR_DIE(cudaMemcpy(got, d_keys, n * 4, cudaMemcpyDeviceToHost));
    memcpy(want, h, n * 4);
    /* u32 keys: a counting check (sorted + same multiset via a sort on the host). */
    qsort(want, n, 4, [](const void *a, const void *b) {
        const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? -1 : x > y;
    });
    size_t at = n;
    for (size_t i = 0; i < n && at == n; i++)
        if (got[i] != want[i])
            at = i;
    CHECK(at == n, "%s: n = %zu: wrong key at %zu", what, n, at);
    free(got);
    free(want);
}

/* Checks an argsort result: idx is a permutation, keys[idx] ascending, stable. */
static void check_argsort_u32(const uint32_t *d_idx, const uint32_t *h, size_t n, const char *what)
{
    uint32_t *idx = (uint32_t *)malloc(n * 4);
    unsigned char *seen = (unsigned char *)calloc(n, 1);
    CUDA_OR_DIE(cudaMemcpy(idx, d_idx, n * 4, cudaMemcpyDeviceToHost));
    size_t at = n;
    for (size_t i = 0; i < n && at == n; i++) {
        if (idx[i] >= n || seen[idx[i]])
            at = i;
        else if (i > 0 && (h[idx[i - 1]] > h[idx[i]] || (h[idx[i - 1]] == h[idx[i]] && idx[i - 1] > idx[i])))
            at = i;
        else
            seen[idx[i]] = 1;
    }
    CHECK(at == n, "%s: n = %zu: bad permutation at %zu", what, n, at);
    free(idx);
    free(seen);
}

static void async_api(rdx_ctx *ctx)
{
    uint64_t s = seed ^ 0x7777;
    /* n: keys take the one-launch grid path (up to RDX_GRID_MAX_N), the argsort the
     * onesweep path (the grid path switched off for it); n_small one block; n_mid one
     * cluster (sm_90 and later; else the grid path). */
    const size_t n = 700001, n_small = 3000, n_mid = 20001;
    uint32_t *h = (uint32_t *)malloc(n * 4);
    uint32_t *dk, *dk_small, *dk_mid, *didx;
    CUDA_OR_DIE(cudaMalloc(&dk, n * 4));
    CUDA_OR_DIE(cudaMalloc(&dk_small, n_small * 4));
    CUDA_OR_DIE(cudaMalloc(&dk_mid, n_mid * 4));
    CUDA_OR_DIE(cudaMalloc(&didx, n * 4));
    size_t tb_keys = 0, tb_small = 0, tb_arg = 0, tb_mid = 0;
    CHECK(rdx_cuda_sort_keys_temp_size(ctx, n, RDX_U32, NULL, &tb_keys) == RDX_OK, "temp size: %s", rdx_ctx_error(ctx));
    CHECK(rdx_cuda_sort_keys_temp_size(ctx, n_small, RDX_U32, NULL, &tb_small) == RDX_OK, "temp size");
    CHECK(rdx_cuda_sort_keys_temp_size(ctx, n_mid, RDX_U32, NULL, &tb_mid) == RDX_OK, "temp size");
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = 0; /* the argsort: onesweep path */
    CHECK(rdx_cuda_argsort_temp_size(ctx, n, RDX_U32, RDX_U32, NULL, &tb_arg) == RDX_OK, "temp size");
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = RDX_GRID_MAX_N;
    size_t zero = 1;
    CHECK(rdx_cuda_sort_keys_temp_size(ctx, 0, RDX_U32, NULL, &zero) == RDX_OK && zero == 0, "temp size of n = 0");
    CHECK(tb_keys >= n * 4, "temp size %zu below one buffer of keys", tb_keys);
    size_t tb_pairs = 0;
    CHECK(rdx_cuda_sort_pairs_temp_size(ctx, 0, n, RDX_U32, NULL, &tb_pairs) == RDX_ERR_INVALID_ARGUMENT,
          "pairs temp size accepted value_size 0");

    void *temp;
    const size_t tb = tb_keys + tb_small + tb_arg + tb_mid;
    CUDA_OR_DIE(cudaMalloc(&temp, tb));
    unsigned char *t = (unsigned char *)temp;
    cudaStream_t stream;
    CUDA_OR_DIE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    /* Too little temporary storage: refused, keys unchanged. */
    fill((unsigned char *)h, n, 4, 0, DIST_UNIFORM, &s);
    CUDA_OR_DIE(cudaMemcpy(dk, h, n * 4, cudaMemcpyHostToDevice));
    CHECK(rdx_cuda_sort_keys_async(ctx, dk, n, RDX_U32, NULL, t, tb_keys - 1, stream) == RDX_ERR_TEMP_TOO_SMALL,
          "one byte too little temporary storage was accepted");
    CHECK(strstr(rdx_ctx_error(ctx), "temporary") != NULL, "no message for too little storage: %s", rdx_ctx_error(ctx));
    CUDA_OR_DIE(cudaStreamSynchronize(stream));
    {
        uint32_t *back = (uint32_t *)malloc(n * 4);
        CUDA_OR_DIE(cudaMemcpy(back, dk, n * 4, cudaMemcpyDeviceToHost));
        CHECK(memcmp(back, h, n * 4) == 0, "keys changed although the temporary storage was too small");
        free(back);
    }
    /* Host memory and a CPU context are refused. */
    CHECK(rdx_cuda_sort_keys_async(ctx, h, n, RDX_U32, NULL, t, tb_keys, stream) == RDX_ERR_INVALID_ARGUMENT,
          "host keys accepted by the stream-ordered API");
    CHECK(rdx_cuda_sort_keys_async(ctx, (unsigned char *)dk + 1, 1000, RDX_U32, NULL, t, tb_keys, stream) ==
              RDX_ERR_INVALID_ARGUMENT,
          "unaligned keys accepted by the stream-ordered API");
    rdx_ctx *cpu = NULL;
    if (rdx_ctx_create(&cpu, RDX_BACKEND_CPU) == RDX_OK) {
        CHECK(rdx_cuda_sort_keys_async(cpu, dk, n, RDX_U32, NULL, t, tb_keys, stream) == RDX_ERR_INVALID_ARGUMENT,
              "a CPU context accepted by the stream-ordered API");
        rdx_ctx_destroy(cpu);
    }

    /* Capture: a keys sort (grid path), a small one (the one-block path), an argsort
     * (onesweep path) and a keys sort of n_mid (cluster path) in one graph, each with its
     * own temporary storage. */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OR_DIE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    rdx_status c1 = rdx_cuda_sort_keys_async(ctx, dk, n, RDX_U32, NULL, t, tb_keys, stream);
    rdx_status c2 = rdx_cuda_sort_keys_async(ctx, dk_small, n_small, RDX_U32, NULL, t + tb_keys, tb_small, stream);
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = 0;
    rdx_status c3 = rdx_cuda_argsort_async(ctx, dk, n, RDX_U32, didx, RDX_U32, NULL, t + tb_keys + tb_small, tb_arg,
                                           stream);
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = RDX_GRID_MAX_N;
    rdx_status c4 = rdx_cuda_sort_keys_async(ctx, dk_mid, n_mid, RDX_U32, NULL, t + tb_keys + tb_small + tb_arg,
                                             tb_mid, stream);
    const cudaError_t ce = cudaStreamEndCapture(stream, &graph);
    CHECK(c1 == RDX_OK && c2 == RDX_OK && c3 == RDX_OK && c4 == RDX_OK, "enqueue during capture failed: %s",
          rdx_ctx_error(ctx));
    CUDA_OR_DIE(ce);
    CUDA_OR_DIE(cudaGraphInstantiate(&exec, graph, 0));

    uint32_t *hs = (uint32_t *)malloc(n_small * 4), *hk = (uint32_t *)malloc(n * 4), *hm = (uint32_t *)malloc(n_mid * 4);
    for (int round = 0; round < 4; round++) {
        /* Round 1 leaves only the lowest digit varying, round 2 only the highest: other
         * passes are skipped on the device, differently in each replay. */
        const int dist = round == 3 ? DIST_LOW_ENTROPY : DIST_UNIFORM;
        fill((unsigned char *)h, n, 4, 0, dist, &s);
        fill((unsigned char *)hs, n_small, 4, 0, DIST_UNIFORM, &s);
        fill((unsigned char *)hm, n_mid, 4, 0, dist, &s);
        for (size_t i = 0; i < n_mid; i++)
            hm[i] = round == 1 ? hm[i] & 0xFFu : round == 2 ? hm[i] & 0xFF000000u : hm[i];
        for (size_t i = 0; i < n; i++)
            h[i] = round == 1 ? h[i] & 0xFFu : round == 2 ? h[i] & 0xFF000000u : h[i];
        CUDA_OR_DIE(cudaMemcpy(dk, h, n * 4, cudaMemcpyHostToDevice));
        CUDA_OR_DIE(cudaMemcpy(dk_small, hs, n_small * 4, cudaMemcpyHostToDevice));
        CUDA_OR_DIE(cudaMemcpy(dk_mid, hm, n_mid * 4, cudaMemcpyHostToDevice));
        CUDA_OR_DIE(cudaGraphLaunch(exec, stream));
        CUDA_OR_DIE(cudaStreamSynchronize(stream));
        char what[64];
        snprintf(what, sizeof what, "graph replay %d, keys", round);
        check_sorted_u32(dk, h, n, what);
        snprintf(what, sizeof what, "graph replay %d, small keys", round);
        check_sorted_u32(dk_small, hs, n_small, what);
        snprintf(what, sizeof what, "graph replay %d, cluster-size keys", round);
        check_sorted_u32(dk_mid, hm, n_mid, what);
        /* The argsort ran on the sorted keys: its permutation must be the identity. */
        memcpy(hk, h, n * 4);
        qsort(hk, n, 4, [](const void *a, const void *b) {
            const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
            return x < y ? -1 : x > y;
        });
        snprintf(what, sizeof what, "graph replay %d, argsort", round);
        check_argsort_u32(didx, hk, n, what);
        uint32_t *idx = (uint32_t *)malloc(n * 4);
        CUDA_OR_DIE(cudaMemcpy(idx, didx, n * 4, cudaMemcpyDeviceToHost));
        size_t at = n;
        for (size_t i = 0; i < n && at == n; i++)
            if (idx[i] != i)
                at = i;
        CHECK(at == n, "%s: the argsort of sorted keys is not the identity at %zu", what, at);
        free(idx);
    }
    /* An argsort of unsorted keys, outside a graph, with u32 indices (onesweep path, as
     * tb_arg was sized for it). */
    fill((unsigned char *)h, n, 4, 0, DIST_FEW, &s);
    CUDA_OR_DIE(cudaMemcpy(dk, h, n * 4, cudaMemcpyHostToDevice));
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = 0;
    CHECK(rdx_cuda_argsort_async(ctx, dk, n, RDX_U32, didx, RDX_U32, NULL, t, tb_arg, stream) == RDX_OK, "argsort: %s",
          rdx_ctx_error(ctx));
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = RDX_GRID_MAX_N;
    CUDA_OR_DIE(cudaStreamSynchronize(stream));
    check_argsort_u32(didx, h, n, "stream-ordered argsort, few distinct keys");

    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    cudaFree(temp);
    cudaFree(dk);
    cudaFree(dk_small);
    cudaFree(dk_mid);
    cudaFree(didx);
    free(h);
    free(hs);
    free(hm);
    free(hk);
}


int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    cub_oracle(ctx, rdx_test_max_log2(22));
    /* Again with the large tile shape at every size (it serves only inputs above
     * RDX_OS_MID_MAX_N otherwise), then the mid shape at every size (u32/u32 and u64 keys
     * have one). */
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    t->medium_max_n = t->mid_max_n = 0;
    cub_oracle(ctx, rdx_test_max_log2(22));
    t->mid_max_n = (size_t)-1;
    cub_oracle(ctx, rdx_test_max_log2(22));
    t->medium_max_n = RDX_OS_MEDIUM_MAX_N;
    t->mid_max_n = RDX_OS_MID_MAX_N;
    async_api(ctx);
    rdx_ctx_destroy(ctx);
    printf("test_cuda_cub: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures, seed);
    return failures ? 1 : 0;
}
