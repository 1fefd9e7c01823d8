/* The CUDA backend through the synchronous API: the shared suite (tests/suite.c) on device
 * arrays and on host arrays; mixed, unaligned and managed arrays against the reference;
 * one context reused over growing and shrinking sizes; every bad-input rule with device
 * arrays checked unchanged; a device pointer handed to the CPU backend; a forced
 * allocation failure (2^40 keys "in" a 4 KB buffer).
 * And the out-of-place stream-ordered calls of rdx_cuda.h (rdx_cuda_sort_keys_into_async,
 * rdx_cuda_sort_pairs_into_async) with rdx_cuda_argsort_async: the shared suite through
 * them, then into_api: every key type and order at sizes for each path (0 to 2^21 + 7),
 * pairs with each array in place or apart, odd pass counts with none / one / several
 * passes active, argsort keys unchanged, the same on the onesweep path cut into portions
 * of a few tiles (test hook), their bad-input rules, and a CUDA graph replayed on data
 * whose active passes change.
 *
 * Exits 77 (CTest's skip) with a message where no GPU is usable.
 * Environment: RDX_TEST_SEED replays a run; RDX_TEST_MAX_LOG2_N bounds the largest suite
 * size (default 20, the 2^20 + 3 case; gpu-check.sh lowers it under compute-sanitizer;
 * RDX_TEST_MAX_LOG2N is read too) and, when set, into_api's sizes (default: up to 2^21 + 7);
 * RDX_TEST_SUITE=device runs the suite on device arrays only (synchronous and out of
 * place), RDX_TEST_SUITE=0 leaves the suite out (into_api still runs; RDX_TEST_SANITIZER=1
 * thins it to every 8th case);
 * RDX_TEST_REQUIRE_CLUSTER=1 fails the run where the cluster path is off on the device (it
 * is on sm_90 and later when the device can place the cluster). The suite runs five times:
 * on device arrays with the default paths (the cluster path up to RDX_CLUSTER_MAX_N),
 * through the out-of-place calls, with the cluster path off (the grid path), with both off
 * (the onesweep path's medium shape), and on host arrays with the large tile shape for
 * every size. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rdx_cuda.h"
#include "cuda/test_hooks.h"
#include "cuda/tuning.h"
#include "check.h"
#include "reference.h"
#include "suite.h"

/* A CUDA call in the test itself failed: the run cannot go on meaningfully. */
static void cuda_or_die(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        printf("FAIL [seed 0x%016" PRIx64 "] %s: %s\n", seed, what, cudaGetErrorString(e));
        exit(1);
    }
}

/* The suite's own context takes the tuning given (a copy of a context's, changed). */
static void use_tuning(rdx_ctx *ctx, const void *tuning)
{
    *rdx_cuda_ctx_tuning(ctx) = *(const rdx_cuda_tuning *)tuning;
}

/* ---- device memory for the suite ---- */

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}
static void dev_release(void *p) { cuda_or_die(cudaFree(p), "cudaFree"); }
static void dev_upload(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        cuda_or_die(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "upload");
}
static void dev_download(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        cuda_or_die(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "download");
}
static const rdx_test_memory device_memory = {"device", dev_alloc, dev_release, dev_upload, dev_download};

/* ---- sorts checked against the reference, arrays wherever the caller put them ---- */

enum { AT_HOST, AT_DEVICE, AT_MANAGED };

static unsigned char *alloc_at(int where, size_t bytes)
{
    void *p = NULL;
    if (where == AT_HOST)
        p = malloc(bytes + 16);
    else if (where == AT_DEVICE)
        p = dev_alloc(bytes + 16);
    else if (cudaMallocManaged(&p, bytes + 16, cudaMemAttachGlobal) != cudaSuccess)
        p = NULL;
    if (!p) {
        printf("FAIL [seed 0x%016" PRIx64 "] cannot allocate %zu bytes for the test\n", seed, bytes);
        exit(1);
    }
    return (unsigned char *)p;
}

static void free_at(int where, void *p)
{
    if (where == AT_HOST)
        free(p);
    else
        cuda_or_die(cudaFree(p), "cudaFree");
}

static void copy_to(int where, void *dst, const void *src, size_t bytes)
{
    if (where == AT_DEVICE)
        dev_upload(dst, src, bytes);
    else
        memcpy(dst, src, bytes);
}

static void copy_from(int where, void *dst, const void *src, size_t bytes)
{
    if (where == AT_DEVICE)
        dev_download(dst, src, bytes);
    else
        memcpy(dst, src, bytes);
}

/* Sorts n random keys (keys: at kwhere, `skew` bytes into their buffer; values or indices:
 * at vwhere) and compares with the reference. vs = value bytes (0 = keys only);
 * argsort writes u64 indices. Keys have few distinct top bits so that stability counts. */
static void sort_and_compare(rdx_ctx *ctx, rdx_type type, size_t n, size_t vs, int argsort, unsigned flags,
                             int kwhere, int vwhere, size_t skew, uint64_t *s, const char *what)
{
    const size_t kb = rdx_type_size(type), ab = argsort ? 8 : vs;
    unsigned char *orig = malloc(n * kb + 1), *ovals = malloc(n * ab + 1);
    unsigned char *keys = malloc(n * kb + 1), *aux = malloc(n * ab + 1);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    unsigned char *kbuf = alloc_at(kwhere, n * kb + skew), *abuf = ab ? alloc_at(vwhere, n * ab + skew) : NULL;
    if (!orig || !ovals || !keys || !aux || !perm) {
        printf("FAIL: the test could not allocate host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n * kb; i++)
        orig[i] = (unsigned char)(i % kb == kb - 1 ? rnd(s) % 3 : rnd(s));
    for (size_t i = 0; i < n * ab; i++)
        ovals[i] = (unsigned char)rnd(s);
    const rdx_opts opts = {flags, 0, 0, 0};
    if (rdx_ref_argsort(orig, n, type, &opts, perm) != 0) {
        printf("FAIL: the reference ran out of memory\n");
        exit(1);
    }
    copy_to(kwhere, kbuf + skew, orig, n * kb);
    if (ab)
        copy_to(vwhere, abuf + skew, ovals, n * ab);
    const rdx_status st = argsort ? rdx_argsort(ctx, kbuf + skew, n, type, abuf + skew, RDX_U64, &opts)
                          : vs    ? rdx_sort_pairs(ctx, kbuf + skew, abuf + skew, vs, n, type, &opts)
                                  : rdx_sort_keys(ctx, kbuf + skew, n, type, &opts);
    CHECK(st == RDX_OK, "%s: n = %zu: %s", what, n, rdx_ctx_error(ctx));
    if (st == RDX_OK) {
        copy_from(kwhere, keys, kbuf + skew, n * kb);
        if (ab)
            copy_from(vwhere, aux, abuf + skew, n * ab);
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++) {
            if (argsort) {
                uint64_t x;
                memcpy(&x, aux + i * 8, 8);
                if (x != perm[i] || memcmp(keys + i * kb, orig + i * kb, kb) != 0)
                    bad = i;
            } else if (memcmp(keys + i * kb, orig + perm[i] * kb, kb) != 0 ||
                       (vs && memcmp(aux + i * vs, ovals + perm[i] * vs, vs) != 0)) {
                bad = i;
            }
        }
        CHECK(bad == n, "%s: n = %zu: differs from the reference at %zu", what, n, bad);
    }
    free_at(kwhere, kbuf);
    if (abuf)
        free_at(vwhere, abuf);
    free(orig);
    free(ovals);
    free(keys);
    free(aux);
    free(perm);
}

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

/* ---- the cluster path against the grid path ---- */

/* Sorts the same random data (n keys of `type`; values of vs bytes, or u32/u64 indices for
 * argsort) once with the cluster path on and once with it off (the grid path serves those
 * sizes), on device arrays, and compares the bytes. */
static void cluster_grid_one(rdx_ctx *ctx, rdx_type type, size_t n, size_t vs, rdx_type index_type, int argsort,
                             const rdx_opts *opts, int few, uint64_t *s)
{
    const size_t kb = rdx_type_size(type), ab = argsort ? rdx_type_size(index_type) : vs;
    unsigned char *orig = malloc(n * kb), *ovals = malloc(n * ab + 1);
    unsigned char *out[2][2];
    for (int r = 0; r < 2; r++) {
        out[r][0] = malloc(n * kb);
        out[r][1] = malloc(n * ab + 1);
        if (!out[r][0] || !out[r][1]) {
            printf("FAIL: the test could not allocate host memory\n");
            exit(1);
        }
    }
    if (!orig || !ovals) {
        printf("FAIL: the test could not allocate host memory\n");
        exit(1);
    }
    /* few: a handful of distinct keys (stability counts, most passes are skipped); else
     * random bytes with few distinct top bytes. */
    const uint64_t pick[3] = {rnd(s), rnd(s), rnd(s)};
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = few ? pick[rnd(s) % 3] : rnd(s);
        for (size_t b = 0; b < kb; b++)
            orig[i * kb + b] = (unsigned char)(b == kb - 1 && kb > 1 && !few ? x % 3 : x >> (8 * b));
    }
    for (size_t i = 0; i < n * ab; i++)
        ovals[i] = (unsigned char)rnd(s);
    unsigned char *dk = alloc_at(AT_DEVICE, n * kb), *da = ab ? alloc_at(AT_DEVICE, n * ab) : NULL;
    rdx_status st[2];
    for (int r = 0; r < 2; r++) {
        rdx_cuda_ctx_tuning(ctx)->cluster_max_n = r == 0 ? RDX_CLUSTER_MAX_N : 0;
        rdx_cuda_ctx_tuning(ctx)->cluster_pairs_max_n = r == 0 ? RDX_CLUSTER_MAX_N : 0; /* the kernel's values path too */
        dev_upload(dk, orig, n * kb);
        if (ab)
            dev_upload(da, ovals, n * ab);
        st[r] = argsort ? rdx_argsort(ctx, dk, n, type, da, index_type, opts)
                : vs    ? rdx_sort_pairs(ctx, dk, da, vs, n, type, opts)
                        : rdx_sort_keys(ctx, dk, n, type, opts);
        dev_download(out[r][0], dk, n * kb);
        if (ab)
            dev_download(out[r][1], da, n * ab);
    }
    rdx_cuda_ctx_tuning(ctx)->cluster_max_n = RDX_CLUSTER_MAX_N;
    rdx_cuda_ctx_tuning(ctx)->cluster_pairs_max_n = RDX_CLUSTER_PAIRS_MAX_N;
    char what[160];
    snprintf(what, sizeof what, "cluster vs grid: type %d n = %zu %s%zu bits [%d,%d) radix %d%s%s", (int)type, n,
             argsort ? "argsort, index bytes " : "value bytes ", ab, opts->begin_bit, opts->end_bit,
             opts->radix_bits, opts->flags & RDX_DESCENDING ? " descending" : "", few ? " few keys" : "");
    CHECK(st[0] == RDX_OK && st[1] == RDX_OK, "%s: %s / %s (%s)", what, rdx_status_string(st[0]),
          rdx_status_string(st[1]), rdx_ctx_error(ctx));
    if (st[0] == RDX_OK && st[1] == RDX_OK) {
        size_t at = n;
        for (size_t i = 0; i < n && at == n; i++)
            if (memcmp(out[0][0] + i * kb, out[1][0] + i * kb, kb) != 0 ||
                (ab && memcmp(out[0][1] + i * ab, out[1][1] + i * ab, ab) != 0))
                at = i;
        CHECK(at == n, "%s: the two paths differ at %zu", what, at);
    }
    free_at(AT_DEVICE, dk);
    if (da)
        free_at(AT_DEVICE, da);
    for (int r = 0; r < 2; r++) {
        free(out[r][0]);
        free(out[r][1]);
    }
    free(orig);
    free(ovals);
}

/* Sizes in the cluster range (RDX_SMALL_MAX_N, RDX_CLUSTER_MAX_N] on every key type, with
 * keys, pairs (4, 8 and 12-byte values) and argsort; both orders; bit ranges and digit
 * widths turn with the case number. Seed: this run's, printed on any failure. */
static void cluster_vs_grid(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x7777;
    if (rdx_cuda_cluster_max_blocks(4, 0) == 0) {
        printf("cluster vs grid: skipped (the cluster path is off on this device)\n");
        return;
    }
    static const rdx_type types[] = {RDX_U8,  RDX_U16, RDX_U32,  RDX_U64, RDX_I8,  RDX_I16,
                                     RDX_I32, RDX_I64, RDX_F16, RDX_BF16, RDX_F32, RDX_F64};
    const size_t sizes[] = {RDX_SMALL_MAX_N + 1, 5000, 10007, 16384, 32768, 65535, 65536};
    int turn = 0, cases = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i];
        if (n > RDX_CLUSTER_MAX_N || n > ((size_t)1 << max_log2) + 3)
            continue;
        for (int t = 0; t < 12; t++)
            for (int k = 0; k < 6; k++, turn++) {
                const int w = (int)(8 * rdx_type_size(types[t]));
                rdx_opts o = {turn % 2 ? RDX_DESCENDING : 0u, 0, 0, 0};
                if (turn % 5 == 3) {
                    o.begin_bit = 1 + turn % 3;
                    o.end_bit = w - turn % 4;
                }
                if (turn % 7 == 2)
                    o.radix_bits = 1 + turn % 8;
                const size_t vs = k == 1 ? 4 : k == 2 ? 8 : k == 3 ? 12 : 0;
                cluster_grid_one(ctx, types[t], n, vs, k == 5 ? RDX_U64 : RDX_U32, k >= 4, &o, turn % 9 == 4, &s);
                cases++;
            }
    }
    printf("cluster vs grid: %d cases\n", cases);
}

/* ---- bad input ---- */

/* Fills a device buffer with a known pattern and remembers it. */
static void *patterned(size_t bytes, unsigned char *pattern, uint64_t *s)
{
    for (size_t i = 0; i < bytes; i++)
        pattern[i] = (unsigned char)rnd(s);
    void *d = dev_alloc(bytes);
    if (!d) {
        printf("FAIL: cannot allocate %zu device bytes\n", bytes);
        exit(1);
    }
    dev_upload(d, pattern, bytes);
    return d;
}

static void expect_unchanged(const void *d, const unsigned char *pattern, size_t bytes, const char *what)
{
    unsigned char *now = malloc(bytes);
    if (!now)
        exit(1);
    dev_download(now, d, bytes);
    CHECK(memcmp(now, pattern, bytes) == 0, "%s: a device array changed although the call failed", what);
    free(now);
}

static void expect_status(rdx_ctx *ctx, rdx_status got, rdx_status want, const char *need, const char *what)
{
    CHECK(got == want, "%s: returned %s, expected %s (%s)", what, rdx_status_string(got), rdx_status_string(want),
          rdx_ctx_error(ctx));
    if (need)
        CHECK(strstr(rdx_ctx_error(ctx), need) != NULL, "%s: the message \"%s\" does not mention \"%s\"", what,
              rdx_ctx_error(ctx), need);
}

static void bad_input(rdx_ctx *cuda)
{
    uint64_t s = seed ^ 0x5555;
    enum { N = 5000 };
    static unsigned char kp[N * 8], vp[N * 8], ip[N * 8];
    void *dk = patterned(N * 4, kp, &s), *dv = patterned(N * 8, vp, &s), *di = patterned(N * 8, ip, &s);
    const rdx_opts ok = {0, 0, 0, 0};
    rdx_opts o;

    /* The CPU backend cannot read device memory. */
    rdx_ctx *cpu = NULL;
    CHECK(rdx_ctx_create(&cpu, RDX_BACKEND_CPU) == RDX_OK, "cannot create a CPU context");
    if (cpu) {
        unsigned char host_keys[4 * 16] = {0};
        expect_status(cpu, rdx_sort_keys(cpu, dk, N, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "device memory",
                      "CPU backend, device keys");
        expect_status(cpu, rdx_sort_pairs(cpu, host_keys, dv, 4, 16, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT,
                      "device memory", "CPU backend, device values");
        expect_status(cpu, rdx_argsort(cpu, host_keys, 16, RDX_U32, di, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT,
                      "device memory", "CPU backend, device indices");
        rdx_ctx_destroy(cpu);
    }

    /* Each argument rule of rdx.h, on the CUDA backend with device arrays. */
    expect_status(cuda, rdx_sort_keys(cuda, NULL, N, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "keys", "NULL keys");
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, (rdx_type)0, NULL), RDX_ERR_INVALID_ARGUMENT, "type", "type 0");
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, (rdx_type)13, NULL), RDX_ERR_INVALID_ARGUMENT, "type", "type 13");
    o = ok, o.begin_bit = -1;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "begin_bit", "begin -1");
    o = ok, o.end_bit = 33;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "end_bit", "end 33");
    o = ok, o.begin_bit = 9, o.end_bit = 9;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "begin_bit",
                  "begin == end");
    o = ok, o.begin_bit = 32;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "begin_bit",
                  "begin at the width");
    o = ok, o.radix_bits = 9;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "radix_bits", "radix 9");
    o = ok, o.radix_bits = -1;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "radix_bits", "radix -1");
    o = ok, o.flags = 2;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "flags", "flag 2");
    expect_status(cuda, rdx_sort_pairs(cuda, dk, NULL, 4, N, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "values",
                  "NULL values");
    expect_status(cuda, rdx_sort_pairs(cuda, dk, dv, 0, N, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "value_size",
                  "value_size 0");
    expect_status(cuda, rdx_sort_pairs(cuda, dk, (unsigned char *)dk + 8, 4, N, RDX_U32, NULL),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "keys and values overlap");
    expect_status(cuda, rdx_argsort(cuda, dk, N, RDX_U32, NULL, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "indices",
                  "NULL indices");
    expect_status(cuda, rdx_argsort(cuda, dk, N, RDX_U32, di, RDX_U16, NULL), RDX_ERR_INVALID_ARGUMENT,
                  "index_type", "index type u16");
    expect_status(cuda, rdx_argsort(cuda, dk, N, RDX_U32, dk, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "overlap",
                  "keys and indices overlap");
    expect_unchanged(dk, kp, N * 4, "bad input");
    expect_unchanged(dv, vp, N * 8, "bad input");
    expect_unchanged(di, ip, N * 8, "bad input");

    /* Allocation failure: 2^40 one-byte keys claimed in a 4 KB buffer. The scratch cannot
     * be had; the answer is RDX_ERR_OUT_OF_MEMORY before anything is read or written. */
    void *small = patterned(4096, kp, &s);
    expect_status(cuda, rdx_sort_keys(cuda, small, (size_t)1 << 40, RDX_U8, NULL), RDX_ERR_OUT_OF_MEMORY, NULL,
                  "2^40 keys");
    CHECK(rdx_ctx_error(cuda)[0] != '\0', "out of memory without a message");
    expect_unchanged(small, kp, 4096, "2^40 keys");
    /* The context works on afterwards. */
    CHECK(rdx_sort_keys(cuda, small, 4096, RDX_U8, NULL) == RDX_OK, "sort after an allocation failure: %s",
          rdx_ctx_error(cuda));
    unsigned char back[4096];
    dev_download(back, small, 4096);
    for (int i = 1; i < 4096; i++)
        if (back[i - 1] > back[i]) {
            CHECK(0, "sort after an allocation failure: out of order at %d", i);
            break;
        }
    CHECK(rdx_ctx_error(cuda)[0] == '\0', "a successful call left an error message: %s", rdx_ctx_error(cuda));

    dev_release(small);
    dev_release(dk);
    dev_release(dv);
    dev_release(di);
}

/* ---- the stream-ordered out-of-place entry points of rdx_cuda.h ---- */

/* A blocking stream: ordered after the tests' uploads (cudaMemcpy, cudaMemset on the
 * legacy default stream). */
static cudaStream_t into_stream;
static void *into_temp;
static size_t into_temp_bytes;

/* Temporary storage of at least `bytes`, kept and grown between calls. */
static void *temp_for(size_t bytes)
{
    if (bytes > into_temp_bytes || !into_temp) {
        if (into_temp)
            dev_release(into_temp);
        into_temp = dev_alloc(bytes);
        if (!into_temp) {
            printf("FAIL [seed 0x%016" PRIx64 "] cannot allocate %zu bytes of temporary storage\n", seed, bytes);
            exit(1);
        }
        into_temp_bytes = bytes;
    }
    return into_temp;
}

/* Waits for the enqueued sort; a failure inside it ends the run. */
static rdx_status finished(rdx_status s)
{
    cuda_or_die(cudaStreamSynchronize(into_stream), "cudaStreamSynchronize after a stream-ordered sort");
    return s;
}

static rdx_status into_keys(rdx_ctx *ctx, const void *in, void *out, size_t n, rdx_type type, const rdx_opts *opts)
{
    size_t bytes = 0;
    rdx_status s = rdx_cuda_sort_keys_temp_size(ctx, n, type, opts, &bytes);
    if (s == RDX_OK)
        s = rdx_cuda_sort_keys_into_async(ctx, in, out, n, type, opts, temp_for(bytes), bytes, into_stream);
    return finished(s);
}

static rdx_status into_pairs(rdx_ctx *ctx, const void *keys_in, void *keys_out, const void *values_in,
                             void *values_out, size_t value_size, size_t n, rdx_type type, const rdx_opts *opts)
{
    size_t bytes = 0;
    rdx_status s = rdx_cuda_sort_pairs_temp_size(ctx, value_size, n, type, opts, &bytes);
    if (s == RDX_OK)
        s = rdx_cuda_sort_pairs_into_async(ctx, keys_in, keys_out, values_in, values_out, value_size, n, type, opts,
                                           temp_for(bytes), bytes, into_stream);
    return finished(s);
}

static rdx_status async_argsort(rdx_ctx *ctx, const void *keys, size_t n, rdx_type type, void *indices,
                                rdx_type index_type, const rdx_opts *opts)
{
    size_t bytes = 0;
    rdx_status s = rdx_cuda_argsort_temp_size(ctx, n, type, index_type, opts, &bytes);
    if (s == RDX_OK)
        s = rdx_cuda_argsort_async(ctx, keys, n, type, indices, index_type, opts, temp_for(bytes), bytes,
                                   into_stream);
    return finished(s);
}

/* The shared suite through these calls: outputs apart from the inputs. */
static const rdx_test_sorter into_sorter = {"into_async", into_keys, into_pairs, async_argsort};

static const char *type_name(rdx_type t)
{
    static const char *const names[] = {"?",   "u8",  "u16", "u32", "u64",  "i8", "i16",
                                        "i32", "i64", "f16", "bf16", "f32", "f64"};
    return (int)t >= 1 && (int)t <= 12 ? names[t] : "?";
}

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

static void *host_or_die(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        printf("FAIL: the test could not allocate %zu bytes of host memory\n", bytes);
        exit(1);
    }
    return p;
}

/* Index of the first of n elements of es bytes where got differs from src[perm[i]], or n. */
static size_t first_unlike(const unsigned char *got, const unsigned char *src, const size_t *perm, size_t n, size_t es)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * es, src + perm[i] * es, es) != 0)
            return i;
    return n;
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

/* The *_into calls' own argument rules: each is refused with RDX_ERR_INVALID_ARGUMENT (or
 * RDX_ERR_TEMP_TOO_SMALL) and a message naming the problem, with every array unchanged. */
static void into_bad_input(rdx_ctx *ctx)
{
    uint64_t s = seed ^ 0x7777;
    enum { N = 5000 };
    static unsigned char kp[2 * N * 4], vp[2 * N * 8], op[N * 8];
    unsigned char *dk = patterned(2 * N * 4, kp, &s), *dv = patterned(2 * N * 8, vp, &s);
    unsigned char *dout = patterned(N * 8, op, &s);
    size_t tb = 0, tbp = 0;
    CHECK(rdx_cuda_sort_keys_temp_size(ctx, N, RDX_U32, NULL, &tb) == RDX_OK, "temp size: %s", rdx_ctx_error(ctx));
    CHECK(rdx_cuda_sort_pairs_temp_size(ctx, 4, N, RDX_U32, NULL, &tbp) == RDX_OK, "temp size: %s",
          rdx_ctx_error(ctx));
    void *t = temp_for(tb > tbp ? tb : tbp);
    const size_t tmax = tb > tbp ? tb : tbp;
    const cudaStream_t st = into_stream;

    /* Keys: an output that overlaps its input without being it. */
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, dk + 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "into: keys out one key after keys in");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk + 4 * 7, dk, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_in and d_keys_out", "into: keys out 7 keys before keys in");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk + 2, dk, N, RDX_U16, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "into: u16 keys, one key apart");
    /* NULL arrays, named. */
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, NULL, dout, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_in", "into: NULL keys in");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, NULL, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_out", "into: NULL keys out");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, dk, dout, NULL, dv, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_in", "into: NULL values in");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, NULL, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_out", "into: NULL values out");
    /* Pairs: values overlapping each other or any key array. */
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, dv + 8, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_in and d_values_out", "into: values out two values after in");
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, dout + 16, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "into: values out overlapping keys out");
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, dk + 4 * (N - 1), 4, N, RDX_U32, NULL, t, tmax,
                                                 st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_in and d_values_out", "into: values out overlapping keys in");
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dout + 4 * (N - 2), dv, 4, N, RDX_U32, NULL, t, tmax,
                                                 st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_in and d_keys_out", "into: values in overlapping keys out");
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dk, dk + 4 * N - 4, dv, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "into: values in overlapping keys in (and out)");
    /* Too little temporary storage, and memory the kernels cannot use. */
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, dout, N, RDX_U32, NULL, t, tb - 1, st),
                  RDX_ERR_TEMP_TOO_SMALL, "temporary", "into: one byte too little temporary storage");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, dv + 8 * N, 4, N, RDX_U32, NULL, t, tbp - 1,
                                                      st),
                  RDX_ERR_TEMP_TOO_SMALL, "temporary", "into: pairs, one byte too little temporary storage");
    unsigned char host[4 * 16] = {0};
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, host, dout, 16, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_in", "into: host keys in");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, host, 16, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_out", "into: host keys out");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, dout + 1, 1000, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "aligned", "into: unaligned keys out");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv + 2, dv + 8 * N, 8, 1000, RDX_U32, NULL, t,
                                                      tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_in", "into: unaligned 8-byte values in");
    rdx_ctx *cpu = NULL;
    if (rdx_ctx_create(&cpu, RDX_BACKEND_CPU) == RDX_OK) {
        expect_status(cpu, rdx_cuda_sort_keys_into_async(cpu, dk, dout, N, RDX_U32, NULL, t, tmax, st),
                      RDX_ERR_INVALID_ARGUMENT, "CUDA", "into: a CPU context");
        rdx_ctx_destroy(cpu);
    }
    CHECK(rdx_cuda_sort_keys_into_async(NULL, dk, dout, N, RDX_U32, NULL, t, tmax, st) == RDX_ERR_INVALID_ARGUMENT,
          "into: a NULL context was accepted");
    cuda_or_die(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    expect_unchanged(dk, kp, 2 * N * 4, "into: bad input");
    expect_unchanged(dv, vp, 2 * N * 8, "into: bad input");
    expect_unchanged(dout, op, N * 8, "into: bad input");
    /* n = 0 with NULL arrays is a sort of nothing. */
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, NULL, NULL, 0, RDX_U32, NULL, NULL, 0, st), RDX_OK, NULL,
                  "into: n = 0");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, NULL, NULL, NULL, NULL, 4, 0, RDX_U32, NULL, NULL, 0, st),
                  RDX_OK, NULL, "into: pairs, n = 0");
    dev_release(dk);
    dev_release(dv);
    dev_release(dout);
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
    /* Captured on a stream of its own that does not wait for the legacy stream. */
    cudaStream_t gs;
    cuda_or_die(cudaStreamCreateWithFlags(&gs, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cuda_or_die(cudaStreamBeginCapture(gs, cudaStreamCaptureModeGlobal), "begin capture");
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
    cuda_or_die(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
    cuda_or_die(cudaGraphDestroy(graph), "cudaGraphDestroy");
    cuda_or_die(cudaStreamDestroy(gs), "cudaStreamDestroy");
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

/* The out-of-place entry points: the matrix with the default paths; again on the onesweep
 * path alone cut into portions of a few tiles (one launch per portion per pass), with
 * in-place sorts through the synchronous API there too; bad input; a graph. */
/* ---- the MSD route for 64-bit keys (src/cuda/msd.cu) ----
 * rdx_cuda_set_msd_min_n lowers the route's threshold so that moderate sizes take it;
 * rdx_cuda_last_msd_route says which route each sort took (counted and, where the input
 * decides it, checked). */
enum {
    MSD_UNIFORM,  /* random bits: the route runs */
    MSD_LOWENT,   /* AND of three random words: top digit skewed */
    MSD_TOPEQ,    /* the top 8 bits equal: the skew test declines */
    MSD_SORTED,   /* random, already sorted */
    MSD_FEW,      /* 16 distinct values */
    MSD_GIANT,    /* 1/64 of the keys share their top 16 bits: a level-2 bucket above the
                     level-3 capacity, the route falls back after level 2's histogram */
    MSD_CAP,      /* n / 256 keys in each level-2 bucket (b, 0): n = 256 * cap fits exactly */
    MSD_SUBBIG,   /* bits 40-47 equal, 4 values of bits 48-55: sub-buckets above 64 keys,
                     level 3's on-chip LSD passes */
    MSD_DUPS,     /* n / 8 distinct random values, each about 8 times: the route runs and
                     level 3's comparisons meet equal keys (stability of pairs) */
    MSD_DUPS_BIG, /* 4096 distinct random values, each n / 4096 times: runs of equal keys
                     longer than RDX_MSD_L3_RUN_MAX (n >= 2^18), the on-chip LSD passes */
    MSD_NFILL
};
static const char *const msd_fill_names[MSD_NFILL] = {
    "uniform",  "low entropy",     "top bits equal", "sorted",         "few distinct",
    "giant bucket", "capacity", "big sub-buckets", "duplicates x8", "duplicates x n/4096"};

/* A random-looking 64-bit value for each index (the splitmix64 finalizer). */
static uint64_t msd_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static void msd_fill(uint64_t *k, size_t n, int fill, uint64_t *s)
{
    const uint64_t base = rnd(s), low48 = 0x0000FFFFFFFFFFFFull;
    uint64_t few[16];
    for (int i = 0; i < 16; i++)
        few[i] = rnd(s);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rnd(s);
        switch (fill) {
        case MSD_LOWENT: k[i] = r & rnd(s) & rnd(s); break;
        case MSD_TOPEQ: k[i] = (base & ~(low48 | 0x00FF000000000000ull)) | (r >> 8); break;
        case MSD_FEW: k[i] = few[r % 16]; break;
        case MSD_GIANT: k[i] = i < n / 64 ? (r & low48) : r; break;
        case MSD_CAP: k[i] = ((uint64_t)(i % 256) << 56) | (r & low48); break;
        case MSD_SUBBIG: k[i] = (r & 0xFF000000000000FFull) | ((uint64_t)(r % 4) << 48) | (0x5Aull << 40) |
                                (rnd(s) & 0x000000FFFFFFFF00ull); break;
        case MSD_DUPS: k[i] = msd_mix(base ^ (r % (n / 8 + 1))); break;
        case MSD_DUPS_BIG: k[i] = msd_mix(base ^ (r % 4096)); break;
        default: k[i] = r; break;
        }
    }
    if (fill == MSD_SORTED)
        qsort(k, n, sizeof *k, cmp_u64);
}

static int msd_routes[5]; /* -1 (not planned), 0, 1, 2, 3: counted at route + 1 */

/* Sorts n keys of an 8-byte type (device arrays; in place, or out of place through the
 * stream-ordered call) and compares with the reference. want: the route the input must
 * take (rdx_cuda_last_msd_route), or -9 for any. */
static void msd_case(rdx_ctx *ctx, rdx_type type, size_t n, int desc, int fill, int into, int want, uint64_t *s)
{
    uint64_t *orig = host_or_die(n * 8), *got = host_or_die(n * 8);
    size_t *perm = host_or_die(n * sizeof *perm);
    msd_fill(orig, n, fill, s);
    const rdx_opts opts = {desc ? RDX_DESCENDING : 0u, 0, 0, 0};
    unsigned char *in = alloc_at(AT_DEVICE, n * 8), *out = into ? alloc_at(AT_DEVICE, n * 8) : in;
    dev_upload(in, orig, n * 8);
    const rdx_status st = into ? into_keys(ctx, in, out, n, type, &opts) : rdx_sort_keys(ctx, in, n, type, &opts);
    unsigned slow = 0;
    const int route = rdx_cuda_ctx_msd_state(ctx, &slow);
    if (route >= -1 && route <= 3)
        msd_routes[route + 1]++;
    CHECK(st == RDX_OK, "msd %s %s n=%zu %s%s: status %d (%s)", type_name(type), msd_fill_names[fill], n,
          desc ? "descending" : "ascending", into ? " into" : "", (int)st, rdx_ctx_error(ctx));
    if (st == RDX_OK) {
        dev_download(got, out, n * 8);
        CHECK(rdx_ref_argsort(orig, n, type, &opts, perm) == 0, "msd: the reference ran out of memory");
        const size_t bad = first_unlike((const unsigned char *)got, (const unsigned char *)orig, perm, n, 8);
        CHECK(bad == n, "msd %s %s n=%zu %s%s (route %d, %u slow blocks): first wrong key at %zu of %zu",
              type_name(type), msd_fill_names[fill], n, desc ? "descending" : "ascending", into ? " into" : "", route,
              slow, bad, n);
        if (into) {
            dev_download(got, in, n * 8);
            CHECK(memcmp(got, orig, n * 8) == 0, "msd %s %s n=%zu into: the input changed", type_name(type),
                  msd_fill_names[fill], n);
        }
    }
    CHECK(fill != MSD_SUBBIG || route != 2 || slow > 0, "msd %s n=%zu: no level-3 block took the on-chip LSD passes",
          msd_fill_names[fill], n);
    CHECK(want == -9 || route == want, "msd %s %s n=%zu %s: route %d, expected %d", type_name(type),
          msd_fill_names[fill], n, desc ? "descending" : "ascending", route, want);
    if (into)
        free_at(AT_DEVICE, out);
    free_at(AT_DEVICE, in);
    free(orig);
    free(got);
    free(perm);
}

/* The same for pairs: n keys of an 8-byte type with values of vs bytes (4 or 8), each
 * the key's index in the input, so that the values after the sort must be exactly the
 * stable reference's permutation (equal keys in input order): this checks both that the
 * values moved with their keys and that the sort is stable. In place (rdx_sort_pairs) or
 * out of place (rdx_cuda_sort_pairs_into_async; the inputs must come back unchanged). */
static void msd_pairs_case(rdx_ctx *ctx, rdx_type type, size_t n, size_t vs, int desc, int fill, int into, int want,
                           uint64_t *s)
{
    uint64_t *orig = host_or_die(n * 8), *got = host_or_die(n * 8);
    unsigned char *vals = host_or_die(n * vs), *gotv = host_or_die(n * vs);
    size_t *perm = host_or_die(n * sizeof *perm);
    msd_fill(orig, n, fill, s);
    for (size_t i = 0; i < n; i++) {
        const uint64_t v = i;
        memcpy(vals + i * vs, &v, vs); /* little-endian: the low vs bytes */
    }
    const rdx_opts opts = {desc ? RDX_DESCENDING : 0u, 0, 0, 0};
    unsigned char *kin = alloc_at(AT_DEVICE, n * 8), *kout = into ? alloc_at(AT_DEVICE, n * 8) : kin;
    unsigned char *vin = alloc_at(AT_DEVICE, n * vs), *vout = into ? alloc_at(AT_DEVICE, n * vs) : vin;
    dev_upload(kin, orig, n * 8);
    dev_upload(vin, vals, n * vs);
    const rdx_status st = into ? into_pairs(ctx, kin, kout, vin, vout, vs, n, type, &opts)
                               : rdx_sort_pairs(ctx, kin, vin, vs, n, type, &opts);
    unsigned slow = 0;
    const int route = rdx_cuda_ctx_msd_state(ctx, &slow);
    if (route >= -1 && route <= 3)
        msd_routes[route + 1]++;
    char desc_text[160];
    snprintf(desc_text, sizeof desc_text, "msd pairs %s/%zu-byte values %s n=%zu %s%s (route %d, %u slow blocks)",
             type_name(type), vs, msd_fill_names[fill], n, desc ? "descending" : "ascending", into ? " into" : "",
             route, slow);
    CHECK(st == RDX_OK, "%s: status %d (%s)", desc_text, (int)st, rdx_ctx_error(ctx));
    if (st == RDX_OK) {
        dev_download(got, kout, n * 8);
        dev_download(gotv, vout, n * vs);
        CHECK(rdx_ref_argsort(orig, n, type, &opts, perm) == 0, "msd: the reference ran out of memory");
        const size_t bad = first_unlike((const unsigned char *)got, (const unsigned char *)orig, perm, n, 8);
        CHECK(bad == n, "%s: first wrong key at %zu of %zu", desc_text, bad, n);
        size_t badv = n;
        for (size_t i = 0; i < n && badv == n; i++) {
            uint64_t v = 0;
            memcpy(&v, gotv + i * vs, vs);
            if (v != (uint64_t)perm[i])
                badv = i;
        }
        CHECK(badv == n, "%s: first value not the stable sort's index at %zu of %zu", desc_text, badv, n);
        if (into) {
            dev_download(got, kin, n * 8);
            CHECK(memcmp(got, orig, n * 8) == 0, "%s: the input keys changed", desc_text);
            dev_download(gotv, vin, n * vs);
            CHECK(memcmp(gotv, vals, n * vs) == 0, "%s: the input values changed", desc_text);
        }
    }
    CHECK(fill != MSD_SUBBIG || route != 2 || slow > 0, "%s: no level-3 block took the on-chip LSD passes",
          desc_text);
    CHECK(want == -9 || route == want, "%s: route %d, expected %d", desc_text, route, want);
    if (into) {
        free_at(AT_DEVICE, kout);
        free_at(AT_DEVICE, vout);
    }
    free_at(AT_DEVICE, kin);
    free_at(AT_DEVICE, vin);
    free(orig);
    free(got);
    free(vals);
    free(gotv);
    free(perm);
}

/* Pairs through the route: both integer types, 8-byte values (and 4-byte ones on a few
 * cases), in place and out of place, both orders; few distinct keys check stability (many
 * equal keys per level-3 run), big sub-buckets level 3's on-chip LSD passes, the giant
 * bucket the fallback; pairs level 3 holds RDX_MSD_L3_CAP_PAIRS keys. */
static void msd_pairs_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x9A125;
    const size_t cap = (size_t)RDX_MSD_L3_CAP_PAIRS;
    const size_t sizes[] = {((size_t)1 << 17), ((size_t)1 << 17) + 3, ((size_t)1 << 19) + 77, ((size_t)1 << 20)};
    static const rdx_type types[2] = {RDX_U64, RDX_I64};
    static const int fills[] = {MSD_UNIFORM, MSD_DUPS, MSD_FEW, MSD_SORTED, MSD_LOWENT, MSD_DUPS_BIG};
    for (int t = 0; t < 2; t++)
        for (int desc = 0; desc < 2; desc++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                if (sizes[i] > ((size_t)1 << max_log2) + 100)
                    continue;
                for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
                    const int fill = fills[f];
                    const int want = fill == MSD_UNIFORM || fill == MSD_SORTED || fill == MSD_DUPS ? 2 : -9;
                    msd_pairs_case(ctx, types[t], sizes[i], 8, desc, fill, (int)((i + f) & 1), want, &s);
                }
            }
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 17, 4, 0, MSD_UNIFORM, 0, 2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 18, 4, 1, MSD_DUPS, 1, 2, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 18, 4, 0, MSD_DUPS_BIG, 0, -9, &s);
    msd_pairs_case(ctx, RDX_I64, ((size_t)1 << 17) + 3, 4, 1, MSD_FEW, 1, -9, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_SUBBIG, 0, 2, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 20, 8, 1, MSD_SUBBIG, 1, 2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 4, 1, MSD_SUBBIG, 0, 2, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_GIANT, 0, 3, &s);
    msd_pairs_case(ctx, RDX_I64, (size_t)1 << 20, 8, 1, MSD_GIANT, 1, -9, &s);
    msd_pairs_case(ctx, RDX_U64, (size_t)1 << 20, 8, 0, MSD_TOPEQ, 1, 0, &s);
    /* The pairs capacity of a level-3 block: exactly full, and one key over. */
    if (max_log2 >= 21) {
        msd_pairs_case(ctx, RDX_U64, 256 * cap, 8, 0, MSD_CAP, 0, 2, &s);
        msd_pairs_case(ctx, RDX_I64, 256 * cap, 8, 1, MSD_CAP, 1, 2, &s);
        msd_pairs_case(ctx, RDX_U64, 256 * cap + 1, 8, 0, MSD_CAP, 1, 3, &s);
    }
}

static void msd_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0xABCD;
    const size_t cap = (size_t)RDX_MSD_L3_CAP;
    rdx_cuda_ctx_tuning(ctx)->msd_min_n = (size_t)1 << 17;
    if (max_log2 < 17) {
        /* Under compute-sanitizer (gpu-check.sh lowers the sizes): one sort of each route
         * and of level 3's on-chip LSD passes, at the smallest size that plans the route. */
        const size_t n = (size_t)1 << 17;
        msd_case(ctx, RDX_U64, n, 0, MSD_UNIFORM, 0, 2, &s);
        msd_case(ctx, RDX_I64, n + 3, 1, MSD_UNIFORM, 1, 2, &s);
        msd_case(ctx, RDX_U64, n, 0, MSD_SUBBIG, 0, 2, &s);
        msd_case(ctx, RDX_U64, n, 0, MSD_TOPEQ, 0, 0, &s);
        msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_GIANT, 0, 3, &s);
        msd_pairs_case(ctx, RDX_U64, n, 8, 0, MSD_UNIFORM, 0, 2, &s);
        msd_pairs_case(ctx, RDX_I64, n + 3, 8, 1, MSD_DUPS, 1, 2, &s);
        rdx_cuda_ctx_tuning(ctx)->msd_min_n = RDX_MSD_MIN_N;
        CHECK(msd_routes[3] > 0, "msd: the route never ran");
        return;
    }
    static const rdx_type types[3] = {RDX_U64, RDX_I64, RDX_F64};
    const size_t sizes[] = {((size_t)1 << 17), ((size_t)1 << 17) + 3, ((size_t)1 << 19) + 77, ((size_t)1 << 20)};
    for (int t = 0; t < 3; t++)
        for (int desc = 0; desc < 2; desc++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                if (sizes[i] > ((size_t)1 << max_log2) + 100)
                    continue;
                /* Uniform bits take the route for both integer types and orders; floats
                 * never plan it. */
                const int is_float = types[t] == RDX_F64;
                msd_case(ctx, types[t], sizes[i], desc, MSD_UNIFORM, (int)(i & 1), is_float ? -1 : 2, &s);
                for (int f = MSD_LOWENT; f <= MSD_FEW; f++)
                    msd_case(ctx, types[t], sizes[i], desc, f, 0,
                             is_float ? -1 : f == MSD_TOPEQ ? 0 : f == MSD_SORTED ? 2 : -9, &s);
            }
    /* The capacity of a level-3 block: exactly full, and one key over (the fallback). */
    if (max_log2 >= 21) {
        msd_case(ctx, RDX_U64, 256 * cap, 0, MSD_CAP, 0, 2, &s);
        msd_case(ctx, RDX_U64, 256 * cap, 1, MSD_CAP, 1, 2, &s);
        msd_case(ctx, RDX_U64, 256 * cap + 1, 0, MSD_CAP, 0, 3, &s);
        msd_case(ctx, RDX_I64, 256 * cap + 1, 1, MSD_CAP, 1, -9, &s);
    }
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_GIANT, 0, 3, &s);
    msd_case(ctx, RDX_I64, (size_t)1 << 20, 1, MSD_GIANT, 1, -9, &s);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_SUBBIG, 0, 2, &s);
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 1, MSD_SUBBIG, 1, 2, &s);
    msd_pairs_tests(ctx, max_log2);
    /* Below the threshold (keys and pairs): not planned. */
    msd_case(ctx, RDX_U64, ((size_t)1 << 17) - 1, 0, MSD_UNIFORM, 0, -1, &s);
    msd_pairs_case(ctx, RDX_U64, ((size_t)1 << 17) - 1, 8, 0, MSD_UNIFORM, 1, -1, &s);
    rdx_cuda_ctx_tuning(ctx)->msd_min_n = RDX_MSD_MIN_N;
    msd_case(ctx, RDX_U64, (size_t)1 << 20, 0, MSD_UNIFORM, 0, (size_t)RDX_MSD_MIN_N <= ((size_t)1 << 20) ? 2 : -1,
             &s);
    printf("msd: routes taken: none planned %d, declined (skew) %d, ran %d, fell back %d, inconsistent %d\n",
           msd_routes[0], msd_routes[1], msd_routes[3], msd_routes[4], msd_routes[2]);
    CHECK(msd_routes[3] > 0, "msd: the route never ran");
}

static void into_api(rdx_ctx *ctx, int max_log2)
{
    const char *san = getenv("RDX_TEST_SANITIZER");
    into_stride = san && *san && strcmp(san, "0") != 0 ? INTO_SANITIZER_STRIDE : 1;
    uint64_t s = seed ^ 0x6666;
    const size_t limit = ((size_t)1 << (max_log2 < 2 ? 2 : max_log2)) + 7;
    into_matrix(ctx, limit, &s, "into");

    /* Portions of 9216 keys at most: 3 tiles of the medium shape, 1 or 2 of the large. */
    const size_t portion_limit = limit < ((size_t)1 << 20) + 5 ? limit : ((size_t)1 << 20) + 5;
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = 0;
    rdx_cuda_ctx_tuning(ctx)->portion_max_n = 3 * (size_t)RDX_OSM_THREADS * RDX_OSM_ITEMS;
    into_matrix(ctx, portion_limit, &s, "into, portions");
    static const size_t sizes[] = {10007, ((size_t)1 << 18) + 1, ((size_t)1 << 20) + 5};
    for (size_t i = 0; i < 3; i++) {
        if (sizes[i] > limit)
            continue;
        sort_and_compare(ctx, RDX_U32, sizes[i], 0, 0, 0, AT_DEVICE, AT_DEVICE, 0, &s, "portions, keys in place");
        sort_and_compare(ctx, RDX_F64, sizes[i], 4, 0, RDX_DESCENDING, AT_DEVICE, AT_DEVICE, 0, &s,
                         "portions, pairs in place");
        sort_and_compare(ctx, RDX_I16, sizes[i], 12, 0, 0, AT_DEVICE, AT_DEVICE, 0, &s, "portions, gathered pairs");
        sort_and_compare(ctx, RDX_U8, sizes[i], 0, 1, 0, AT_DEVICE, AT_DEVICE, 0, &s, "portions, argsort");
        sort_and_compare(ctx, RDX_U64, sizes[i], 8, 0, 0, AT_HOST, AT_HOST, 0, &s, "portions, host pairs");
    }
    rdx_cuda_ctx_tuning(ctx)->portion_max_n = 0;
    rdx_cuda_ctx_tuning(ctx)->grid_max_n = RDX_GRID_MAX_N;

    into_bad_input(ctx);
    into_graph(ctx, limit);
}

int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    struct cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);

    const int max_log2 = rdx_test_max_log2(20);
    /* The cluster path (sm_90 and later, where the device can place the cluster). */
    const int cluster_blocks = rdx_cuda_cluster_max_blocks(4, 0);
    if (cluster_blocks > 0)
        printf("cluster path: on, up to %d blocks for u32 keys (%d for u64/u64), n up to %zu\n", cluster_blocks,
               rdx_cuda_cluster_max_blocks(8, 8), (size_t)RDX_CLUSTER_MAX_N);
    else
        printf("cluster path: off on this device\n");
    const char *req = getenv("RDX_TEST_REQUIRE_CLUSTER");
    CHECK(!(req && atoi(req) > 0) || cluster_blocks > 0, "RDX_TEST_REQUIRE_CLUSTER: the cluster path is off");

    const char *suite = getenv("RDX_TEST_SUITE");
    cuda_or_die(cudaStreamCreate(&into_stream), "cudaStreamCreate");
    if (!suite || strcmp(suite, "0") != 0) {
        /* Device arrays: the small-n limit +- 1, then the one-cluster path above it (up to
         * RDX_CLUSTER_MAX_N: sizes around multiples of the small-n limit and the more sizes
         * below), then the one-launch grid path, then the onesweep path. */
        static const size_t more[] = {65535, 5000, 32768, 65536, 0};
        rdx_cuda_tuning tuning = *rdx_cuda_ctx_tuning(ctx);
        rdx_suite_config cfg = {RDX_BACKEND_CUDA, &device_memory, seed, max_log2, RDX_SMALL_MAX_N, more, NULL,
                                use_tuning, &tuning};
        failures += rdx_run_sort_suite(&cfg);
        /* Device arrays through the stream-ordered out-of-place calls (outputs apart from
         * the inputs), on the onesweep route with the medium tile shape above the small-n
         * limit (into_api covers the grid route). */
        tuning.grid_max_n = 0;
        cfg.seed = seed ^ 0x3333;
        cfg.tile = RDX_OS_SHAPE_THREADS(4, 0, 1) * RDX_OS_SHAPE_ITEMS(4, 0, 1);
        cfg.sorter = &into_sorter;
        failures += rdx_run_sort_suite(&cfg);
        cfg.sorter = NULL;
        cfg.tile = RDX_SMALL_MAX_N;
        tuning.grid_max_n = RDX_GRID_MAX_N;
        if (!suite || strcmp(suite, "device") != 0) {
            /* The same sizes with the cluster route off: the grid route. */
            tuning.cluster_max_n = 0;
            cfg.seed = seed ^ 0x1111;
            failures += rdx_run_sort_suite(&cfg);
            /* The sizes above the small-n limit that the one-launch routes serve by
             * default, through the onesweep route's medium tile shape instead. */
            tuning.grid_max_n = 0;
            cfg.seed = seed ^ 0x5555;
            cfg.tile = RDX_OS_SHAPE_THREADS(4, 0, 1) * RDX_OS_SHAPE_ITEMS(4, 0, 1);
            cfg.more_sizes = NULL;
            failures += rdx_run_sort_suite(&cfg);
            /* Host arrays, with the large tile shape for every size above the small-n
             * limit (it serves only inputs above RDX_OS_MEDIUM_MAX_N otherwise). */
            tuning.medium_max_n = 0;
            cfg.memory = &rdx_test_host_memory;
            cfg.seed = seed ^ 0x9999;
            cfg.tile = RDX_OS_SHAPE_THREADS(4, 0, 0) * RDX_OS_SHAPE_ITEMS(4, 0, 0);
            failures += rdx_run_sort_suite(&cfg);
        }
    }
    cluster_vs_grid(ctx, max_log2);
    placements(ctx);
    reused_context(ctx);
    bad_input(ctx);
    into_api(ctx, rdx_test_max_log2(21));
    msd_tests(ctx, rdx_test_max_log2(21));
    if (into_temp)
        dev_release(into_temp);
    cuda_or_die(cudaStreamDestroy(into_stream), "cudaStreamDestroy");
    rdx_ctx_destroy(ctx);

    printf("test_cuda: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures, seed);
    return failures ? 1 : 0;
}
