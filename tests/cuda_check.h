/* What the GPU tests share (each test program includes it once, with check.h): device
 * memory, arrays wherever the caller puts them, a sort checked against the reference, the
 * route check, and the tuning of a suite's own context. */
#ifndef RDX_TEST_CUDA_CHECK_H
#define RDX_TEST_CUDA_CHECK_H

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
static inline void cuda_or_die(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        printf("FAIL [seed 0x%016" PRIx64 "] %s: %s\n", seed, what, cudaGetErrorString(e));
        exit(1);
    }
}

/* A stream of its own, which does not wait for the legacy stream, capturing into a graph
 * (cudaStreamEndCapture ends it; the caller destroys the stream). */
static inline cudaStream_t capture_begin(void)
{
    cudaStream_t gs;
    cuda_or_die(cudaStreamCreateWithFlags(&gs, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    cuda_or_die(cudaStreamBeginCapture(gs, cudaStreamCaptureModeGlobal), "begin capture");
    return gs;
}

/* Destroys what capture_begin and the capture made. */
static inline void capture_release(cudaStream_t gs, cudaGraph_t graph, cudaGraphExec_t exec)
{
    cuda_or_die(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
    cuda_or_die(cudaGraphDestroy(graph), "cudaGraphDestroy");
    cuda_or_die(cudaStreamDestroy(gs), "cudaStreamDestroy");
}

/* The suite's own context takes the tuning given (a copy of a context's, changed). */
static inline void use_tuning(rdx_ctx *ctx, const void *tuning)
{
    *rdx_cuda_ctx_tuning(ctx) = *(const rdx_cuda_tuning *)tuning;
}

/* ---- device memory for the suite ---- */

static inline void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}
static inline void dev_release(void *p) { cuda_or_die(cudaFree(p), "cudaFree"); }
static inline void dev_upload(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        cuda_or_die(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "upload");
}
static inline void dev_download(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        cuda_or_die(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "download");
}

/* ---- sorts checked against the reference, arrays wherever the caller put them ---- */

enum { AT_HOST, AT_DEVICE, AT_MANAGED, AT_PINNED };

static inline unsigned char *alloc_at(int where, size_t bytes)
{
    void *p = NULL;
    if (where == AT_HOST)
        p = malloc(bytes + 16);
    else if (where == AT_DEVICE)
        p = dev_alloc(bytes + 16);
    else if (where == AT_PINNED) {
        if (cudaMallocHost(&p, bytes + 16) != cudaSuccess)
            p = NULL;
    } else if (cudaMallocManaged(&p, bytes + 16, cudaMemAttachGlobal) != cudaSuccess)
        p = NULL;
    if (!p) {
        printf("FAIL [seed 0x%016" PRIx64 "] cannot allocate %zu bytes for the test\n", seed, bytes);
        exit(1);
    }
    return (unsigned char *)p;
}

static inline void free_at(int where, void *p)
{
    if (where == AT_HOST)
        free(p);
    else if (where == AT_PINNED)
        cuda_or_die(cudaFreeHost(p), "cudaFreeHost");
    else
        cuda_or_die(cudaFree(p), "cudaFree");
}

static inline void copy_to(int where, void *dst, const void *src, size_t bytes)
{
    if (where == AT_DEVICE)
        dev_upload(dst, src, bytes);
    else
        memcpy(dst, src, bytes);
}

static inline void copy_from(int where, void *dst, const void *src, size_t bytes)
{
    if (where == AT_DEVICE)
        dev_download(dst, src, bytes);
    else
        memcpy(dst, src, bytes);
}

/* Sorts n random keys (keys: at kwhere, `skew` bytes into their buffer; values or indices:
 * at vwhere) and compares with the reference. vs = value bytes (0 = keys only);
 * argsort writes u64 indices. Keys have few distinct top bits so that stability counts. */
static inline void sort_and_compare(rdx_ctx *ctx, rdx_type type, size_t n, size_t vs, int argsort, unsigned flags,
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

static inline const char *type_name(rdx_type t)
{
    static const char *const names[] = {"?",   "u8",  "u16", "u32", "u64",  "i8", "i16",
                                        "i32", "i64", "f16", "bf16", "f32", "f64"};
    return (int)t >= 1 && (int)t <= 12 ? names[t] : "?";
}

static inline void *host_or_die(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        printf("FAIL: the test could not allocate %zu bytes of host memory\n", bytes);
        exit(1);
    }
    return p;
}

/* Index of the first of n elements of es bytes where got differs from src[perm[i]], or n. */
static inline size_t first_unlike(const unsigned char *got, const unsigned char *src, const size_t *perm, size_t n, size_t es)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * es, src + perm[i] * es, es) != 0)
            return i;
    return n;
}

/* The route of the last sort on ctx (rdx_ctx_route) is `want`; what names the sort. */
#define CHECK_ROUTE(ctx, want, what)                                                           \
    do {                                                                                       \
        const char *route_ = rdx_ctx_route(ctx);                                               \
        CHECK(strcmp(route_, (want)) == 0, "%s: route \"%s\", expected \"%s\"", (what), route_, (want)); \
    } while (0)

/* tuning.h's limits back on a context (its device facts are read again at its next sort). */
static inline void reset_tuning(rdx_ctx *ctx) { rdx_cuda_tuning_defaults(rdx_cuda_ctx_tuning(ctx)); }

#endif
