/* The CUDA backend through the synchronous API: the shared suite (tests/suite.c) on device
 * arrays and on host arrays; mixed, unaligned and managed arrays against the reference;
 * one context reused over growing and shrinking sizes; every bad-input rule with device
 * arrays checked unchanged; a device pointer handed to the CPU backend; a forced
 * allocation failure (2^40 keys "in" a 4 KB buffer).
 *
 * Exits 77 (CTest's skip) with a message where no GPU is usable.
 * Environment: RDX_TEST_SEED replays a run; RDX_TEST_MAX_LOG2_N bounds the largest suite
 * size (default 20, the 2^20 + 3 case; gpu-check.sh lowers it under compute-sanitizer);
 * RDX_TEST_MAX_LOG2N is read too); RDX_TEST_SUITE=device runs the suite on device arrays
 * only, RDX_TEST_SUITE=0 leaves it out; RDX_TEST_REQUIRE_CLUSTER=1 fails the run where the
 * cluster path is off on the device (it is on sm_90 and later when the device can place
 * the cluster). The suite runs four times: on device arrays with the default paths (the
 * cluster path up to RDX_CLUSTER_MAX_N), with the cluster path off (the grid path), with
 * both off (the onesweep path's medium shape), and on host arrays with the large tile
 * shape for every size. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/test_hooks.h"
#include "cuda/tuning.h"
#include "reference.h"
#include "suite.h"

static uint64_t seed;
static int failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            printf("FAIL [seed 0x%016" PRIx64 "] %s:%d: ", seed, __FILE__, __LINE__);          \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A CUDA call in the test itself failed: the run cannot go on meaningfully. */
static void cuda_or_die(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        printf("FAIL [seed 0x%016" PRIx64 "] %s: %s\n", seed, what, cudaGetErrorString(e));
        exit(1);
    }
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
        rdx_cuda_set_cluster_max_n(r == 0 ? RDX_CLUSTER_MAX_N : 0);
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
    rdx_cuda_set_cluster_max_n(RDX_CLUSTER_MAX_N);
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

int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = NULL;
    const rdx_status st = rdx_ctx_create(&ctx, RDX_BACKEND_CUDA);
    if (st == RDX_ERR_UNSUPPORTED || st == RDX_ERR_NO_DEVICE) {
        printf("skipped: %s (no usable GPU for the CUDA backend)\n", rdx_status_string(st));
        return 77;
    }
    if (st != RDX_OK) {
        printf("FAIL: cannot create a CUDA context: %s\n", rdx_status_string(st));
        return 1;
    }
    struct cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);

    const char *e = getenv("RDX_TEST_MAX_LOG2_N");
    if (!e || !*e)
        e = getenv("RDX_TEST_MAX_LOG2N");
    const int max_log2 = e && *e ? atoi(e) : 20;
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
    if (!suite || strcmp(suite, "0") != 0) {
        /* Device arrays: the small-n limit +- 1, then the one-cluster path above it (up to
         * RDX_CLUSTER_MAX_N: sizes around multiples of the small-n limit and the more sizes
         * below), then the one-launch grid path, then the onesweep path. */
        static const size_t more[] = {65535, 5000, 32768, 65536, 0};
        rdx_suite_config cfg = {RDX_BACKEND_CUDA, &device_memory, seed, max_log2, RDX_SMALL_MAX_N, more};
        failures += rdx_run_sort_suite(&cfg);
        if (!suite || strcmp(suite, "device") != 0) {
            /* The same sizes with the cluster path off: the one-launch grid path. */
            rdx_cuda_set_cluster_max_n(0);
            cfg.seed = seed ^ 0x1111;
            failures += rdx_run_sort_suite(&cfg);
            /* The sizes above the small-n limit that the one-launch paths serve by default,
             * through the onesweep path's medium tile shape instead. */
            rdx_cuda_set_grid_max_n(0);
            cfg.seed = seed ^ 0x5555;
            cfg.tile = RDX_OS_SHAPE_THREADS(4, 0, 1) * RDX_OS_SHAPE_ITEMS(4, 0, 1);
            cfg.more_sizes = NULL;
            failures += rdx_run_sort_suite(&cfg);
            /* Host arrays, with the large tile shape for every size above the small-n
             * limit (it serves only inputs above RDX_OS_MEDIUM_MAX_N otherwise). */
            rdx_cuda_set_medium_max_n(0);
            cfg.memory = &rdx_test_host_memory;
            cfg.seed = seed ^ 0x9999;
            cfg.tile = RDX_OS_SHAPE_THREADS(4, 0, 0) * RDX_OS_SHAPE_ITEMS(4, 0, 0);
            failures += rdx_run_sort_suite(&cfg);
            rdx_cuda_set_medium_max_n(RDX_OS_MEDIUM_MAX_N);
            rdx_cuda_set_grid_max_n(RDX_GRID_MAX_N);
            rdx_cuda_set_cluster_max_n(RDX_CLUSTER_MAX_N);
        }
    }
    cluster_vs_grid(ctx, max_log2);
    placements(ctx);
    reused_context(ctx);
    bad_input(ctx);
    rdx_ctx_destroy(ctx);

    printf("test_cuda: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures, seed);
    return failures ? 1 : 0;
}
