/* Failure injection (src/inject.h): for representative calls (keys, pairs of 4-, 8- and
 * 12-byte values, argsort with 32- and 64-bit indices; the small, LSD and MSD routes of the
 * CPU backend; on CUDA host and device arrays, the one-launch paths and the pass kernel cut
 * into several portions), walks k over every host allocation, device allocation and checked
 * CUDA call the call makes, making the k-th fail on a fresh context. Each failed call must
 * return RDX_ERR_OUT_OF_MEMORY or RDX_ERR_DEVICE with a message and leave its arrays
 * unchanged; the same context must then sort correctly.
 *
 * usage: test_inject cpu | cuda   (cuda exits 77, CTest's skip, where no GPU is usable)
 * RDX_TEST_SEED replays a run. Prints the failure points walked per kind of failure.
 *
 * A CUDA call that fails after the sort's first write to the caller's arrays cannot leave
 * them unchanged (the write is done); such points are counted and printed, not failed,
 * unless RDX_TEST_INJECT_STRICT=1. Allocation failures must always leave them unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inject.h"
#include "reference.h"
#include "suite.h"

#if RDX_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda/test_hooks.h"
#include "cuda/tuning.h"
#endif

typedef enum { CALL_KEYS, CALL_PAIRS, CALL_ARGSORT } call_kind;

typedef struct inject_case {
    const char *name;
    call_kind call;
    rdx_type type;
    size_t n;
    size_t value_size;   /* CALL_PAIRS */
    rdx_type index_type; /* CALL_ARGSORT */
    unsigned flags;
} inject_case;

/* Where the case's arrays live. */
typedef struct arrays {
    int device;                /* 1: cudaMalloc'd */
    unsigned char *keys, *vals, *idx;
} arrays;

static const char *kind_name[RDX_INJECT_KINDS] = {"host allocations", "device allocations", "CUDA calls"};
static unsigned long walked[RDX_INJECT_KINDS], changed[RDX_INJECT_KINDS];
static int strict;

static size_t out_bytes(const inject_case *c)
{
    return c->n * rdx_type_size(c->call == CALL_ARGSORT ? c->index_type : c->type);
}

/* ---- memory: host, or device through the CUDA runtime ---- */

static void *mem_alloc(int device, size_t bytes)
{
#if RDX_TEST_HAVE_CUDA
    if (device) {
        void *p = NULL;
        return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
    }
#endif
    (void)device;
    return malloc(bytes ? bytes : 1);
}

static void mem_free(int device, void *p)
{
#if RDX_TEST_HAVE_CUDA
    if (device) {
        cudaFree(p);
        return;
    }
#endif
    (void)device;
    free(p);
}

static void mem_put(int device, void *dst, const void *src, size_t bytes)
{
#if RDX_TEST_HAVE_CUDA
    if (device) {
        CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
        return;
    }
#endif
    (void)device;
    memcpy(dst, src, bytes);
}

static void mem_get(int device, void *dst, const void *src, size_t bytes)
{
#if RDX_TEST_HAVE_CUDA
    if (device) {
        CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
        return;
    }
#endif
    (void)device;
    memcpy(dst, src, bytes);
}

/* ---- one call ---- */

/* Fresh inputs for the case: random keys with some duplicates, values = running bytes,
 * indices filled with a pattern. */
typedef struct inputs {
    unsigned char *keys, *vals, *idx;
} inputs;

static void make_inputs(const inject_case *c, uint64_t *s, inputs *in)
{
    const size_t ks = rdx_type_size(c->type);
    in->keys = malloc(c->n * ks);
    in->vals = malloc(c->n * (c->value_size ? c->value_size : 1));
    in->idx = malloc(out_bytes(c) ? out_bytes(c) : 1);
    for (size_t i = 0; i < c->n * ks; i++)
        in->keys[i] = (unsigned char)rnd(s);
    for (size_t i = 0; i + ks <= c->n * ks && c->n > 8; i += 7 * ks) /* duplicates */
        memcpy(in->keys + i, in->keys, ks);
    for (size_t i = 0; i < c->n * c->value_size; i++)
        in->vals[i] = (unsigned char)(i * 131 + 7);
    memset(in->idx, 0x5a, out_bytes(c) ? out_bytes(c) : 1);
}

static void free_inputs(inputs *in)
{
    free(in->keys);
    free(in->vals);
    free(in->idx);
}

static void load(const inject_case *c, const inputs *in, arrays *a)
{
    mem_put(a->device, a->keys, in->keys, c->n * rdx_type_size(c->type));
    if (c->call == CALL_PAIRS)
        mem_put(a->device, a->vals, in->vals, c->n * c->value_size);
    if (c->call == CALL_ARGSORT)
        mem_put(a->device, a->idx, in->idx, out_bytes(c));
}

static rdx_status call(rdx_ctx *ctx, const inject_case *c, arrays *a)
{
    const rdx_opts o = {c->flags, 0, 0, 0};
    switch (c->call) {
    case CALL_KEYS: return rdx_sort_keys(ctx, a->keys, c->n, c->type, &o);
    case CALL_PAIRS: return rdx_sort_pairs(ctx, a->keys, a->vals, c->value_size, c->n, c->type, &o);
    default: return rdx_argsort(ctx, a->keys, c->n, c->type, a->idx, c->index_type, &o);
    }
}

/* 1 when the arrays still hold the inputs. */
static int unchanged(const inject_case *c, const inputs *in, const arrays *a)
{
    const size_t kb = c->n * rdx_type_size(c->type);
    unsigned char *buf = malloc(kb + c->n * c->value_size + out_bytes(c) + 1);
    mem_get(a->device, buf, a->keys, kb);
    int same = memcmp(buf, in->keys, kb) == 0;
    if (c->call == CALL_PAIRS) {
        mem_get(a->device, buf, a->vals, c->n * c->value_size);
        same &= memcmp(buf, in->vals, c->n * c->value_size) == 0;
    }
    if (c->call == CALL_ARGSORT) {
        mem_get(a->device, buf, a->idx, out_bytes(c));
        same &= memcmp(buf, in->idx, out_bytes(c)) == 0;
    }
    free(buf);
    return same;
}

/* 1 when the arrays hold the stable reference's result for the inputs. */
static int sorted_right(const inject_case *c, const inputs *in, const arrays *a)
{
    const size_t ks = rdx_type_size(c->type), vs = c->value_size;
    const rdx_opts o = {c->flags, 0, 0, 0};
    size_t *perm = malloc(c->n * sizeof *perm);
    unsigned char *keys = malloc(c->n * ks), *vals = malloc(c->n * vs + 1), *idx = malloc(out_bytes(c) + 1);
    int ok = rdx_ref_argsort(in->keys, c->n, c->type, &o, perm) == 0;
    mem_get(a->device, keys, a->keys, c->n * ks);
    if (c->call == CALL_PAIRS)
        mem_get(a->device, vals, a->vals, c->n * vs);
    if (c->call == CALL_ARGSORT)
        mem_get(a->device, idx, a->idx, out_bytes(c));
    for (size_t i = 0; ok && i < c->n; i++) {
        if (c->call == CALL_ARGSORT) {
            uint64_t v = 0;
            memcpy(&v, idx + i * rdx_type_size(c->index_type), rdx_type_size(c->index_type));
            ok = v == perm[i] && memcmp(keys + i * ks, in->keys + i * ks, ks) == 0;
        } else {
            ok = memcmp(keys + i * ks, in->keys + perm[i] * ks, ks) == 0 &&
                 (c->call != CALL_PAIRS || memcmp(vals + i * vs, in->vals + perm[i] * vs, vs) == 0);
        }
    }
    free(perm);
    free(keys);
    free(vals);
    free(idx);
    return ok;
}

/* Walks every failure point of one kind for the case. */
#if RDX_TEST_HAVE_CUDA
/* CUDA, portions mode: the pass kernel only, each launch three tiles (many portions). */
static int many_portions;
#endif

/* rdx_ctx_create, with the tuning of the mode in force. */
static rdx_status new_context(rdx_ctx **ctx, rdx_backend backend)
{
    const rdx_status st = rdx_ctx_create(ctx, backend);
#if RDX_TEST_HAVE_CUDA
    if (st == RDX_OK && many_portions && backend == RDX_BACKEND_CUDA) {
        rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(*ctx);
        t->grid_max_n = 0;
        t->cluster_max_n = 0;
        t->cluster_pairs_max_n = 0;
        t->portion_max_n = 3 * (size_t)RDX_OSM_THREADS * RDX_OSM_ITEMS;
    }
#endif
    return st;
}

static void walk(rdx_backend backend, const inject_case *c, int device, rdx_inject_kind kind, uint64_t *s)
{
    arrays a = {device, NULL, NULL, NULL};
    a.keys = mem_alloc(device, c->n * rdx_type_size(c->type));
    a.vals = mem_alloc(device, c->n * c->value_size);
    a.idx = mem_alloc(device, out_bytes(c));
    if (!a.keys || !a.vals || !a.idx) {
        CHECK(0, "%s: the test's own allocation failed", c->name);
        goto out;
    }
    const char *where = device ? "device arrays" : "host arrays";

    /* A first call of this kind on a throwaway context: what the backend prepares once per
     * process (the device's kernels, a path's attributes) is then done, so that each
     * fresh context below makes the same calls. */
    inputs in;
    make_inputs(c, s, &in);
    load(c, &in, &a);
    rdx_ctx *ctx = NULL;
    if (new_context(&ctx, backend) == RDX_OK)
        (void)call(ctx, c, &a);
    rdx_ctx_destroy(ctx);

    /* Count the points: one clean call on a fresh context. */
    load(c, &in, &a);
    ctx = NULL;
    CHECK(new_context(&ctx, backend) == RDX_OK, "context");
    if (!ctx) {
        free_inputs(&in);
        goto out;
    }
    rdx_inject_arm(ctx, kind, 0);
    rdx_status st = call(ctx, c, &a);
    const unsigned long points = rdx_inject_count(ctx, kind);
    CHECK(st == RDX_OK && sorted_right(c, &in, &a), "%s, %s: the clean call: %s", c->name, where,
          rdx_ctx_error(ctx));
    rdx_ctx_destroy(ctx);
    free_inputs(&in);

    for (unsigned long k = 1; k <= points; k++) {
        make_inputs(c, s, &in);
        load(c, &in, &a);
        ctx = NULL;
        CHECK(new_context(&ctx, backend) == RDX_OK, "context");
        if (!ctx) {
            free_inputs(&in);
            break;
        }
        rdx_inject_arm(ctx, kind, k);
        st = call(ctx, c, &a);
        CHECK(rdx_inject_count(ctx, kind) >= k, "%s, %s, %s %lu: not reached (%lu)", c->name, where,
              kind_name[kind], k, rdx_inject_count(ctx, kind));
        if (kind == RDX_INJECT_CUDA_CALL)
            CHECK(st == RDX_ERR_DEVICE || st == RDX_ERR_OUT_OF_MEMORY, "%s, %s, failing CUDA call %lu: status %d",
                  c->name, where, k, (int)st);
        else
            CHECK(st == RDX_ERR_OUT_OF_MEMORY, "%s, %s, failing %s %lu: status %d (%s)", c->name, where,
                  kind_name[kind], k, (int)st, rdx_status_string(st));
        CHECK(rdx_ctx_error(ctx)[0] != '\0', "%s, %s, failing %s %lu: no message", c->name, where,
              kind_name[kind], k);
        walked[kind]++;
        if (!unchanged(c, &in, &a)) {
            changed[kind]++;
            CHECK(kind == RDX_INJECT_CUDA_CALL && !strict, "%s, %s, failing %s %lu: the arrays changed",
                  c->name, where, kind_name[kind], k);
        }
        /* The same context, nothing failing: a correct sort. */
        rdx_inject_arm(ctx, kind, 0);
        load(c, &in, &a);
        st = call(ctx, c, &a);
        CHECK(st == RDX_OK && sorted_right(c, &in, &a), "%s, %s, after failing %s %lu: %s", c->name, where,
              kind_name[kind], k, st == RDX_OK ? "wrong result" : rdx_ctx_error(ctx));
        rdx_ctx_destroy(ctx);
        free_inputs(&in);
    }
out:
    mem_free(device, a.keys);
    mem_free(device, a.vals);
    mem_free(device, a.idx);
}

/* rdx_ctx_create itself: its one allocation fails on the thread's counters. */
static void context_creation(rdx_backend backend)
{
    rdx_inject_arm(NULL, RDX_INJECT_HOST_ALLOC, 1);
    rdx_ctx *ctx = (rdx_ctx *)&ctx;
    rdx_status st = rdx_ctx_create(&ctx, backend);
    CHECK(st == RDX_ERR_OUT_OF_MEMORY && ctx == NULL, "rdx_ctx_create, failing allocation: status %d", (int)st);
    walked[RDX_INJECT_HOST_ALLOC] += rdx_inject_count(NULL, RDX_INJECT_HOST_ALLOC) >= 1;
    rdx_inject_reset(NULL);
    CHECK(rdx_ctx_create(&ctx, backend) == RDX_OK, "rdx_ctx_create after the failure");
    rdx_ctx_destroy(ctx);
}

#define CASE(name, call, type, n, vs, it, flags) {name, call, type, n, vs, it, flags}

/* The CPU backend: the small-n route (n <= RDX_CPU_SMALL_N), LSD passes, several threads
 * with write-combining buffers, and the MSD route of 64-bit keys (n >= 2^16). */
static const inject_case cpu_cases[] = {
    CASE("keys u32 n=50 (small)", CALL_KEYS, RDX_U32, 50, 0, 0, 0),
    CASE("pairs f32/12 B n=60 (small)", CALL_PAIRS, RDX_F32, 60, 12, 0, RDX_DESCENDING),
    CASE("keys i16 n=5000", CALL_KEYS, RDX_I16, 5000, 0, 0, 0),
    CASE("pairs u32/4 B n=5000", CALL_PAIRS, RDX_U32, 5000, 4, 0, 0),
    CASE("pairs f64/8 B n=7000 desc", CALL_PAIRS, RDX_F64, 7000, 8, 0, RDX_DESCENDING),
    CASE("pairs u16/12 B n=3000", CALL_PAIRS, RDX_U16, 3000, 12, 0, 0),
    CASE("argsort i32 -> u32 n=4000", CALL_ARGSORT, RDX_I32, 4000, 0, RDX_U32, 0),
    CASE("argsort f16 -> u64 n=4000", CALL_ARGSORT, RDX_F16, 4000, 0, RDX_U64, 0),
    CASE("keys u32 n=300000 (threads)", CALL_KEYS, RDX_U32, 300000, 0, 0, 0),
    CASE("pairs u64/8 B n=200000 (MSD)", CALL_PAIRS, RDX_U64, 200000, 8, 0, 0),
    CASE("argsort i64 -> u32 n=100000 (MSD)", CALL_ARGSORT, RDX_I64, 100000, 0, RDX_U32, 0),
};

static int run_cpu(uint64_t *s)
{
    context_creation(RDX_BACKEND_CPU);
    for (size_t i = 0; i < sizeof cpu_cases / sizeof cpu_cases[0]; i++)
        walk(RDX_BACKEND_CPU, &cpu_cases[i], 0, RDX_INJECT_HOST_ALLOC, s);
    return 0;
}

#if RDX_TEST_HAVE_CUDA
/* The CUDA backend: the small one-block kernel, the one-launch paths, and the pass kernel
 * (one-launch paths off) whole and cut into portions of three tiles. */
static const inject_case cuda_cases[] = {
    CASE("keys u32 n=1000 (small)", CALL_KEYS, RDX_U32, 1000, 0, 0, 0),
    CASE("pairs u32/4 B n=50000", CALL_PAIRS, RDX_U32, 50000, 4, 0, 0),
    CASE("pairs u64/8 B n=50000 desc", CALL_PAIRS, RDX_U64, 50000, 8, 0, RDX_DESCENDING),
    CASE("pairs f32/12 B n=50000", CALL_PAIRS, RDX_F32, 50000, 12, 0, 0),
    CASE("argsort f64 -> u32 n=50000", CALL_ARGSORT, RDX_F64, 50000, 0, RDX_U32, 0),
    CASE("keys i32 n=400000 (passes)", CALL_KEYS, RDX_I32, 400000, 0, 0, 0),
    CASE("pairs u32/4 B n=400000 (passes)", CALL_PAIRS, RDX_U32, 400000, 4, 0, 0),
    CASE("argsort u64 -> u64 n=400000 (passes)", CALL_ARGSORT, RDX_U64, 400000, 0, RDX_U64, 0),
};

static int run_cuda(uint64_t *s)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("test_inject cuda: no usable GPU, skipped\n");
        return 77;
    }
    rdx_ctx *probe = NULL;
    if (rdx_ctx_create(&probe, RDX_BACKEND_CUDA) != RDX_OK) {
        printf("test_inject cuda: the CUDA backend is not usable here, skipped\n");
        return 77;
    }
    rdx_ctx_destroy(probe);
    context_creation(RDX_BACKEND_CUDA);
    const size_t ncases = sizeof cuda_cases / sizeof cuda_cases[0];
    for (int portions = 0; portions < 2; portions++) {
        many_portions = portions;
        for (size_t i = portions ? 5 : 0; i < ncases; i++)
            for (int device = 0; device < 2; device++)
                for (int kind = 0; kind < RDX_INJECT_KINDS; kind++)
                    walk(RDX_BACKEND_CUDA, &cuda_cases[i], device, (rdx_inject_kind)kind, s);
    }
    many_portions = 0;
    return 0;
}
#endif

int main(int argc, char **argv)
{
    const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
    if (argc != 2 || (!cuda && strcmp(argv[1], "cpu") != 0)) {
        fprintf(stderr, "usage: test_inject cpu|cuda\n");
        return 2;
    }
    seed = rdx_test_seed();
    const char *e = getenv("RDX_TEST_INJECT_STRICT");
    strict = e && e[0] == '1';
    uint64_t s = seed;
    int r;
    if (cuda) {
#if RDX_TEST_HAVE_CUDA
        r = run_cuda(&s);
#else
        printf("test_inject cuda: this build has no CUDA backend, skipped\n");
        r = 77;
#endif
    } else {
        r = run_cpu(&s);
    }
    if (r == 77)
        return 77;
    for (int k = 0; k < RDX_INJECT_KINDS; k++)
        if (walked[k])
            printf("test_inject %s: %lu failure points of %s walked, arrays changed after %lu\n",
                   argv[1], walked[k], kind_name[k], changed[k]);
    printf("test_inject %s: %s (seed 0x%016" PRIx64 ")\n", argv[1], failures ? "FAILED" : "passed", seed);
    return failures ? 1 : 0;
}
