/* Failure injection (src/inject.h): for representative calls, walks k over every host
 * allocation, device allocation and checked CUDA call the call makes, making the k-th fail
 * on a fresh context. The calls: keys, pairs of 4-, 8- and 12-byte values, argsort with
 * 32- and 64-bit indices, RDX_NUMPY_ORDER; the segmented calls (equal rows with offsets ==
 * NULL, explicit offsets with empty segments and gaps, one long segment among short ones);
 * the small, LSD, threaded and MSD routes of the CPU backend; on CUDA host and device
 * arrays, the one-launch paths and the pass kernel cut into several portions, and the
 * stream-ordered calls of rdx_cuda.h (temp-size query, then the *_async call on the
 * test's stream), whole-array and segmented. Each failed call must return
 * RDX_ERR_OUT_OF_MEMORY or RDX_ERR_DEVICE with a message and leave its arrays unchanged;
 * the same context must then sort correctly. The stream-ordered calls must allocate
 * nothing (no host or device allocation point at all).
 *
 * usage: test_inject cpu | cuda [K/M]   (cuda exits 77, CTest's skip, where no GPU is
 * usable; K/M: only the CUDA cases i with i % M == K, so that ctest runs shards at once)
 * RDX_TEST_SEED replays a run. Prints the failure points walked per kind of failure.
 * RDX_TEST_SANITIZER=1 (under compute-sanitizer, scripts/gpu-check.sh): the cases marked
 * for it only, with n at most 2^RDX_TEST_MAX_LOG2_N, and no multi-portion mode.
 *
 * The library marks its first write to a caller's array (rdx_inject_write_point: the
 * first launch or copy that may write one). Every failure at or before that point must
 * leave the arrays unchanged: every allocation and every failable setup call comes first.
 * A CUDA call that fails after it cannot: the write is done or enqueued (a stream-ordered
 * call returns with its earlier kernels queued), and the synchronous calls learn of a
 * kernel's failure only from the synchronization after it. Outside this test such a
 * failure is an asynchronous device fault, which is sticky: the CUDA context is lost with
 * every device array in it. These points are counted and printed, and fail the test only
 * with RDX_TEST_INJECT_STRICT=1. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inject.h"
#include "reference.h"
#include "suite.h"

#if RDX_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda_async.h"
#include "cuda/test_hooks.h"
#include "cuda/tuning.h"
#endif

typedef enum { CALL_KEYS = RDX_REF_KEYS, CALL_PAIRS = RDX_REF_PAIRS, CALL_ARGSORT = RDX_REF_ARGSORT } call_kind;

/* Whole-array calls, or segmented ones: equal rows (offsets NULL), random offsets with a
 * gap before the first and after the last segment and a quarter of the segments empty, or
 * segs - 1 short segments (some empty) followed by one long one. */
typedef enum { WHOLE, ROWS, OFFSETS, ONE_LONG } layout_kind;

/* How a case is walked: through the stream-ordered calls of rdx_cuda.h (device arrays
 * only); also in the multi-portion mode (CUDA); also under compute-sanitizer. */
enum { M_ASYNC = 1, M_PORTIONS = 2, M_SANITIZER = 4 };

typedef struct inject_case {
    const char *name;
    call_kind call;
    rdx_type type;
    size_t n;
    size_t value_size;   /* CALL_PAIRS */
    rdx_type index_type; /* CALL_ARGSORT */
    unsigned flags;
    layout_kind layout;
    size_t segs;         /* segmented: the number of segments */
    unsigned modes;
} inject_case;

/* Where the case's arrays live; offs: the offsets in the same memory (NULL for WHOLE and
 * ROWS). */
typedef struct arrays {
    int device;                /* 1: cudaMalloc'd */
    unsigned char *keys, *vals, *idx;
    size_t *offs;
} arrays;

static const char *kind_name[RDX_INJECT_KINDS] = {"host allocations", "device allocations", "CUDA calls"};
static unsigned long walked[RDX_INJECT_KINDS], changed[RDX_INJECT_KINDS];
static unsigned long walked_after[RDX_INJECT_KINDS]; /* of walked: after the first write */
static unsigned long recovered; /* failed device allocations the low-memory or out-of-core
                                   route took over */
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

/* The contents of a case's arrays on the host: the inputs (fresh random keys with some
 * duplicates, values = running bytes, indices filled with a pattern), or what the arrays
 * hold after a call. */
typedef struct inputs {
    unsigned char *keys, *vals, *idx;
} inputs;

static int alloc_inputs(const inject_case *c, inputs *in)
{
    in->keys = malloc(c->n * rdx_type_size(c->type) + 1);
    in->vals = malloc(c->n * c->value_size + 1);
    in->idx = malloc(out_bytes(c) + 1);
    return in->keys && in->vals && in->idx ? 0 : -1;
}

static void free_inputs(inputs *in)
{
    free(in->keys);
    free(in->vals);
    free(in->idx);
}

static void make_inputs(const inject_case *c, uint64_t *s, inputs *in)
{
    const size_t ks = rdx_type_size(c->type);
    if (alloc_inputs(c, in) != 0) {
        fprintf(stderr, "test_inject: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < c->n * ks; i++)
        in->keys[i] = (unsigned char)rnd(s);
    for (size_t i = 0; i + ks <= c->n * ks && c->n > 8; i += 7 * ks) /* duplicates */
        memcpy(in->keys + i, in->keys, ks);
    for (size_t i = 0; i < c->n * c->value_size; i++)
        in->vals[i] = (unsigned char)(i * 131 + 7);
    memset(in->idx, 0x5a, out_bytes(c) + 1);
}

static int by_value(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The case's segs + 1 host offsets for OFFSETS and ONE_LONG (NULL for the others, or when
 * memory ran out: the caller checks). Made once per walk, since the failure points of a
 * call may depend on the segments' lengths (never on the keys). */
static size_t *make_offsets(const inject_case *c, uint64_t *s)
{
    if (c->layout != OFFSETS && c->layout != ONE_LONG)
        return NULL;
    const size_t S = c->segs, n = c->n;
    size_t *off = calloc(S + 1, sizeof *off);
    if (!off || n < 16)
        return off; /* every segment empty */
    if (c->layout == OFFSETS) { /* gaps at both ends, a quarter of the segments empty */
        off[0] = 1 + rnd(s) % (n / 16);
        off[S] = n - 1 - rnd(s) % (n / 16);
        for (size_t i = 1; i < S; i++)
            off[i] = off[0] + rnd(s) % (off[S] - off[0] + 1);
        qsort(off + 1, S - 1, sizeof *off, by_value);
        for (size_t i = 2; i < S; i += 4)
            off[i] = off[i - 1];
    } else { /* short ones (every third empty), then the rest of the keys but a few */
        off[0] = rnd(s) % 8;
        for (size_t i = 1; i < S; i++)
            off[i] = off[i - 1] + (i % 3 == 0 ? 0 : rnd(s) % 40);
        off[S] = n - rnd(s) % 8;
    }
    return off;
}

static void load(const inject_case *c, const inputs *in, arrays *a)
{
    mem_put(a->device, a->keys, in->keys, c->n * rdx_type_size(c->type));
    if (c->call == CALL_PAIRS)
        mem_put(a->device, a->vals, in->vals, c->n * c->value_size);
    if (c->call == CALL_ARGSORT)
        mem_put(a->device, a->idx, in->idx, out_bytes(c));
}

/* What the arrays hold now, into out (allocated here); -1 when memory ran out. */
static int download(const inject_case *c, const arrays *a, inputs *out)
{
    if (alloc_inputs(c, out) != 0) {
        free_inputs(out);
        return -1;
    }
    mem_get(a->device, out->keys, a->keys, c->n * rdx_type_size(c->type));
    if (c->call == CALL_PAIRS)
        mem_get(a->device, out->vals, a->vals, c->n * c->value_size);
    if (c->call == CALL_ARGSORT)
        mem_get(a->device, out->idx, a->idx, out_bytes(c));
    return 0;
}

#if RDX_TEST_HAVE_CUDA
static cudaStream_t stream; /* the stream-ordered calls' (blocking: after the uploads) */
#endif

static rdx_status call(rdx_ctx *ctx, const inject_case *c, const arrays *a)
{
    const rdx_opts o = {c->flags, 0, 0, 0};
#if RDX_TEST_HAVE_CUDA
    if (c->modes & M_ASYNC) {
        const rdx_test_async q = {(rdx_ref_kind)c->call, c->layout != WHOLE, a->keys, a->vals, c->value_size,
                                  a->idx, c->index_type, c->n, c->type, a->offs, c->segs, o};
        const int st = rdx_test_async_call(ctx, &q, stream);
        CHECK(st >= 0, "%s: the test's own temporary storage or synchronization failed", c->name);
        return st >= 0 ? (rdx_status)st : RDX_ERR_INTERNAL;
    }
#endif
    const size_t *off = a->offs;
    if (c->layout == WHOLE) {
        switch (c->call) {
        case CALL_KEYS: return rdx_sort_keys(ctx, a->keys, c->n, c->type, &o);
        case CALL_PAIRS: return rdx_sort_pairs(ctx, a->keys, a->vals, c->value_size, c->n, c->type, &o);
        default: return rdx_argsort(ctx, a->keys, c->n, c->type, a->idx, c->index_type, &o);
        }
    }
    switch (c->call) {
    case CALL_KEYS: return rdx_segmented_sort_keys(ctx, a->keys, c->n, c->type, off, c->segs, &o);
    case CALL_PAIRS:
        return rdx_segmented_sort_pairs(ctx, a->keys, a->vals, c->value_size, c->n, c->type, off, c->segs, &o);
    default:
        return rdx_segmented_argsort(ctx, a->keys, c->n, c->type, off, c->segs, a->idx, c->index_type, &o);
    }
}

/* 1 when the arrays still hold the inputs. */
static int unchanged(const inject_case *c, const inputs *in, const arrays *a)
{
    inputs now;
    if (download(c, a, &now) != 0)
        return 0;
    int same = memcmp(now.keys, in->keys, c->n * rdx_type_size(c->type)) == 0;
    if (c->call == CALL_PAIRS)
        same &= memcmp(now.vals, in->vals, c->n * c->value_size) == 0;
    if (c->call == CALL_ARGSORT)
        same &= memcmp(now.idx, in->idx, out_bytes(c)) == 0;
    free_inputs(&now);
    return same;
}

/* 1 when the arrays hold the stable reference's result for the inputs (offs: the host
 * offsets, NULL for WHOLE and ROWS). */
static int sorted_right(const inject_case *c, const inputs *in, const size_t *offs, const arrays *a)
{
    inputs now;
    if (download(c, a, &now) != 0)
        return 0;
    const rdx_ref_call rc = {(rdx_ref_kind)c->call, c->type, c->n, c->value_size, c->index_type,
                             c->layout != WHOLE, offs, c->segs, {c->flags, 0, 0, 0}};
    const int ok = rdx_ref_check(&rc, in->keys, in->vals, in->idx, now.keys, now.vals, now.idx);
    free_inputs(&now);
    return ok;
}

#if RDX_TEST_HAVE_CUDA
/* CUDA, portions mode: the pass kernel only, each launch three tiles (many portions). */
static int many_portions;
#endif
/* Under compute-sanitizer (RDX_TEST_SANITIZER=1): at most this many failure points per
 * walk, spread evenly over all of them (each costs two sorts there). */
#define SANITIZER_POINTS 4
static int sanitizer;

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

/* Walks every failure point of one kind for the case (under the sanitizers a sample). */
static void walk(rdx_backend backend, const inject_case *c, int device, rdx_inject_kind kind, uint64_t *s)
{
    arrays a = {device, NULL, NULL, NULL, NULL};
    const int has_offsets = c->layout == OFFSETS || c->layout == ONE_LONG;
    const size_t ob = (c->segs + 1) * sizeof(size_t);
    size_t *offs = make_offsets(c, s);
    a.keys = mem_alloc(device, c->n * rdx_type_size(c->type));
    a.vals = mem_alloc(device, c->n * c->value_size);
    a.idx = mem_alloc(device, out_bytes(c));
    if (has_offsets && offs)
        a.offs = mem_alloc(device, ob);
    if (!a.keys || !a.vals || !a.idx || (has_offsets && !a.offs)) {
        CHECK(0, "%s: the test's own allocation failed", c->name);
        goto out;
    }
    if (has_offsets)
        mem_put(device, a.offs, offs, ob);
    const char *where = c->modes & M_ASYNC ? "stream-ordered" : device ? "device arrays" : "host arrays";

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
    /* The CUDA calls before the first write to the caller's arrays: the same in every call
     * of the walk (the calls a sort makes depend on its sizes, never on its keys). */
    const unsigned long write_point = rdx_inject_write_point(ctx);
    CHECK(st == RDX_OK && sorted_right(c, &in, offs, &a), "%s, %s: the clean call: %s", c->name, where,
          st == RDX_OK ? "wrong result" : rdx_ctx_error(ctx));
    CHECK(!(c->modes & M_ASYNC) || kind == RDX_INJECT_CUDA_CALL || points == 0,
          "%s, %s: %lu %s (the stream-ordered calls allocate nothing)", c->name, where, points, kind_name[kind]);
    rdx_ctx_destroy(ctx);
    free_inputs(&in);

    const unsigned long most = sanitizer && points > SANITIZER_POINTS ? SANITIZER_POINTS : points;
    for (unsigned long i = 0; i < most; i++) {
        const unsigned long k = 1 + i * points / most;
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
        if (st == RDX_OK && kind == RDX_INJECT_DEVICE_ALLOC && !(c->modes & M_ASYNC)) {
            /* The synchronous calls recover from a failed scratch allocation through the
             * low-memory route (device arrays: every whole-array call) or the out-of-core
             * route (host arrays: keys and pairs of 4 or 8 bytes): then the result must be
             * right. */
            CHECK(sorted_right(c, &in, offs, &a), "%s, %s, failing %s %lu: recovered with a wrong result", c->name,
                  where, kind_name[kind], k);
            recovered++;
            rdx_ctx_destroy(ctx);
            free_inputs(&in);
            continue;
        }
        if (kind == RDX_INJECT_CUDA_CALL)
            CHECK(st == RDX_ERR_DEVICE || st == RDX_ERR_OUT_OF_MEMORY, "%s, %s, failing CUDA call %lu: status %d",
                  c->name, where, k, (int)st);
        else
            CHECK(st == RDX_ERR_OUT_OF_MEMORY, "%s, %s, failing %s %lu: status %d (%s)", c->name, where,
                  kind_name[kind], k, (int)st, rdx_status_string(st));
        CHECK(rdx_ctx_error(ctx)[0] != '\0', "%s, %s, failing %s %lu: no message", c->name, where,
              kind_name[kind], k);
        walked[kind]++;
        const int after_write = kind == RDX_INJECT_CUDA_CALL && k > write_point;
        walked_after[kind] += after_write;
        if (!unchanged(c, &in, &a)) {
            changed[kind]++;
            CHECK(after_write && !strict, "%s, %s, failing %s %lu: the arrays changed (%s)", c->name, where,
                  kind_name[kind], k,
                  after_write ? "after the first write" : "at or before the first write to them");
        }
        /* The same context, nothing failing: a correct sort. */
        rdx_inject_arm(ctx, kind, 0);
        load(c, &in, &a);
        st = call(ctx, c, &a);
        CHECK(st == RDX_OK && sorted_right(c, &in, offs, &a), "%s, %s, after failing %s %lu: %s", c->name, where,
              kind_name[kind], k, st == RDX_OK ? "wrong result" : rdx_ctx_error(ctx));
        rdx_ctx_destroy(ctx);
        free_inputs(&in);
    }
    printf("  %s, %s: %lu of %lu %s walked\n", c->name, where, most, points, kind_name[kind]);
out:
    mem_free(device, a.keys);
    mem_free(device, a.vals);
    mem_free(device, a.idx);
    if (a.offs)
        mem_free(device, a.offs);
    free(offs);
}

/* rdx_ctx_create itself: walks k over its allocations and (CUDA) its CUDA calls, which
 * count on the thread's counters. A failure returns its status with *out NULL, and a context
 * created afterwards sorts (the walks of the cases below start on such a context). */
static void context_creation(rdx_backend backend)
{
    for (int kind = 0; kind < RDX_INJECT_KINDS; kind++) {
        for (unsigned long k = 1;; k++) {
            rdx_inject_arm(NULL, (rdx_inject_kind)kind, k);
            rdx_ctx *ctx = (rdx_ctx *)&ctx;
            const rdx_status st = rdx_ctx_create(&ctx, backend);
            const unsigned long count = rdx_inject_count(NULL, (rdx_inject_kind)kind);
            rdx_inject_reset(NULL);
            if (count < k) { /* no failure point left */
                CHECK(st == RDX_OK && ctx, "rdx_ctx_create, %s, k = %lu past the last: status %d",
                      kind_name[kind], k, (int)st);
                rdx_ctx_destroy(st == RDX_OK ? ctx : NULL);
                printf("  rdx_ctx_create: %lu %s walked\n", k - 1, kind_name[kind]);
                break;
            }
            const rdx_status want = kind == RDX_INJECT_CUDA_CALL ? RDX_ERR_DEVICE : RDX_ERR_OUT_OF_MEMORY;
            CHECK(st == want && ctx == NULL, "rdx_ctx_create, %s, failing at %lu: status %d", kind_name[kind], k,
                  (int)st);
            walked[kind]++;
            if (st == RDX_OK)
                rdx_ctx_destroy(ctx);
            rdx_ctx *again = NULL;
            CHECK(rdx_ctx_create(&again, backend) == RDX_OK, "rdx_ctx_create after a failure (%s, k = %lu)",
                  kind_name[kind], k);
            rdx_ctx_destroy(again);
        }
    }
}

/* A whole-array case, and a segmented one (layout ROWS, OFFSETS or ONE_LONG, segs segments). */
#define CASE(name, call, type, n, vs, it, flags, modes) {name, call, type, n, vs, it, flags, WHOLE, 0, modes}
#define SEG(name, call, type, n, vs, it, flags, layout, segs, modes) \
    {name, call, type, n, vs, it, flags, layout, segs, modes}

/* The CPU backend: the small-n route (n <= RDX_CPU_SMALL_N), LSD passes, several threads
 * with write-combining buffers, the MSD route of 64-bit keys (n >= 2^16), RDX_NUMPY_ORDER
 * (keys alone: sort and fix-up; pairs: the composition), and the segmented calls: rows
 * sorted one per thread, and one long segment (> 2^16 keys) through the whole-array sort. */
static const inject_case cpu_cases[] = {
    CASE("keys u32 n=50 (small)", CALL_KEYS, RDX_U32, 50, 0, 0, 0, 0),
    CASE("pairs f32/12 B n=60 (small)", CALL_PAIRS, RDX_F32, 60, 12, 0, RDX_DESCENDING, 0),
    CASE("keys i16 n=5000", CALL_KEYS, RDX_I16, 5000, 0, 0, 0, 0),
    CASE("pairs u32/4 B n=5000", CALL_PAIRS, RDX_U32, 5000, 4, 0, 0, 0),
    CASE("pairs f64/8 B n=7000 desc", CALL_PAIRS, RDX_F64, 7000, 8, 0, RDX_DESCENDING, 0),
    CASE("pairs u16/12 B n=3000", CALL_PAIRS, RDX_U16, 3000, 12, 0, 0, 0),
    CASE("argsort i32 -> u32 n=4000", CALL_ARGSORT, RDX_I32, 4000, 0, RDX_U32, 0, 0),
    CASE("argsort f16 -> u64 n=4000", CALL_ARGSORT, RDX_F16, 4000, 0, RDX_U64, 0, 0),
    CASE("keys u32 n=300000 (threads)", CALL_KEYS, RDX_U32, 300000, 0, 0, 0, 0),
    CASE("pairs u64/8 B n=200000 (MSD)", CALL_PAIRS, RDX_U64, 200000, 8, 0, 0, 0),
    CASE("argsort i64 -> u32 n=100000 (MSD)", CALL_ARGSORT, RDX_I64, 100000, 0, RDX_U32, 0, 0),
    CASE("keys f16 n=5000 numpy order", CALL_KEYS, RDX_F16, 5000, 0, 0, RDX_NUMPY_ORDER, 0),
    CASE("pairs f32/8 B n=5000 numpy order desc", CALL_PAIRS, RDX_F32, 5000, 8, 0,
         RDX_NUMPY_ORDER | RDX_DESCENDING, 0),
    SEG("seg keys u32, 40 rows x 50", CALL_KEYS, RDX_U32, 2000, 0, 0, 0, ROWS, 40, 0),
    SEG("seg pairs f32/4 B, offsets desc", CALL_PAIRS, RDX_F32, 3000, 4, 0, RDX_DESCENDING, OFFSETS, 37, 0),
    SEG("seg pairs u64/8 B, 25 rows x 120", CALL_PAIRS, RDX_U64, 3000, 8, 0, 0, ROWS, 25, 0),
    SEG("seg pairs i16/12 B, offsets", CALL_PAIRS, RDX_I16, 3000, 12, 0, 0, OFFSETS, 30, 0),
    SEG("seg argsort f64 -> u32, offsets", CALL_ARGSORT, RDX_F64, 3000, 0, RDX_U32, 0, OFFSETS, 33, 0),
    SEG("seg argsort i32 -> u64, 16 rows x 200", CALL_ARGSORT, RDX_I32, 3200, 0, RDX_U64, 0, ROWS, 16, 0),
    SEG("seg keys f16, 20 rows x 100 numpy order", CALL_KEYS, RDX_F16, 2000, 0, 0, RDX_NUMPY_ORDER, ROWS, 20, 0),
    SEG("seg pairs u32/8 B, one long segment", CALL_PAIRS, RDX_U32, 72000, 8, 0, 0, ONE_LONG, 12, 0),
    SEG("seg argsort u64 -> u32, one long segment (MSD)", CALL_ARGSORT, RDX_U64, 72000, 0, RDX_U32, 0, ONE_LONG,
        12, 0),
};

static int run_cpu(uint64_t *s)
{
    context_creation(RDX_BACKEND_CPU);
    for (size_t i = 0; i < sizeof cpu_cases / sizeof cpu_cases[0]; i++)
        walk(RDX_BACKEND_CPU, &cpu_cases[i], 0, RDX_INJECT_HOST_ALLOC, s);
    return 0;
}

/* The cases of shard `shard` of `shards` (case i where i % shards == shard): ctest runs
 * the CUDA walk as three shards side by side, each walking every point of its cases. */
static int shard = 0, shards = 1;

#if RDX_TEST_HAVE_CUDA
/* The CUDA backend: the small one-block kernel, the one-launch paths, the pass kernel
 * (one-launch paths off) whole and cut into portions of three tiles (M_PORTIONS), the
 * composition behind RDX_NUMPY_ORDER and the segmented calls (with host offsets for host
 * arrays, device offsets for device arrays), and the stream-ordered calls (M_ASYNC). */
static const inject_case cuda_cases[] = {
    CASE("keys u32 n=1000 (small)", CALL_KEYS, RDX_U32, 1000, 0, 0, 0, M_SANITIZER),
    CASE("pairs u32/4 B n=50000", CALL_PAIRS, RDX_U32, 50000, 4, 0, 0, 0),
    CASE("pairs u64/8 B n=50000 desc", CALL_PAIRS, RDX_U64, 50000, 8, 0, RDX_DESCENDING, 0),
    CASE("pairs f32/12 B n=50000", CALL_PAIRS, RDX_F32, 50000, 12, 0, 0, M_SANITIZER),
    CASE("argsort f64 -> u32 n=50000", CALL_ARGSORT, RDX_F64, 50000, 0, RDX_U32, 0, 0),
    CASE("keys i32 n=400000 (passes)", CALL_KEYS, RDX_I32, 400000, 0, 0, 0, M_PORTIONS),
    CASE("pairs u32/4 B n=400000 (passes)", CALL_PAIRS, RDX_U32, 400000, 4, 0, 0, M_PORTIONS),
    CASE("argsort u64 -> u64 n=400000 (passes)", CALL_ARGSORT, RDX_U64, 400000, 0, RDX_U64, 0, M_PORTIONS),
    CASE("pairs f16/8 B n=50000 numpy order", CALL_PAIRS, RDX_F16, 50000, 8, 0, RDX_NUMPY_ORDER, 0),
    SEG("seg keys u32, 100 rows x 500", CALL_KEYS, RDX_U32, 50000, 0, 0, 0, ROWS, 100, 0),
    SEG("seg pairs f32/4 B, offsets desc", CALL_PAIRS, RDX_F32, 50000, 4, 0, RDX_DESCENDING, OFFSETS, 200,
        M_SANITIZER),
    SEG("seg pairs u64/8 B, 50 rows x 1000", CALL_PAIRS, RDX_U64, 50000, 8, 0, 0, ROWS, 50, 0),
    SEG("seg pairs i16/12 B, offsets", CALL_PAIRS, RDX_I16, 50000, 12, 0, 0, OFFSETS, 150, 0),
    SEG("seg argsort f64 -> u32, offsets", CALL_ARGSORT, RDX_F64, 50000, 0, RDX_U32, 0, OFFSETS, 120, 0),
    SEG("seg argsort i32 -> u64, 64 rows x 800", CALL_ARGSORT, RDX_I32, 51200, 0, RDX_U64, 0, ROWS, 64,
        M_SANITIZER),
    SEG("seg pairs u32/8 B n=400000, one long segment", CALL_PAIRS, RDX_U32, 400000, 8, 0, 0, ONE_LONG, 20,
        M_PORTIONS),
    SEG("seg argsort f32 -> u64, 4 rows x 20000 numpy order", CALL_ARGSORT, RDX_F32, 80000, 0, RDX_U64,
        RDX_NUMPY_ORDER, ROWS, 4, 0),
    CASE("async keys u32 n=50000", CALL_KEYS, RDX_U32, 50000, 0, 0, 0, M_ASYNC | M_SANITIZER),
    CASE("async pairs u64/8 B n=50000 desc", CALL_PAIRS, RDX_U64, 50000, 8, 0, RDX_DESCENDING, M_ASYNC),
    CASE("async pairs f32/12 B n=50000", CALL_PAIRS, RDX_F32, 50000, 12, 0, 0, M_ASYNC),
    CASE("async argsort i32 -> u32 n=50000", CALL_ARGSORT, RDX_I32, 50000, 0, RDX_U32, 0, M_ASYNC),
    CASE("async keys f32 n=50000 numpy order", CALL_KEYS, RDX_F32, 50000, 0, 0, RDX_NUMPY_ORDER, M_ASYNC),
    CASE("async keys i64 n=400000 (passes)", CALL_KEYS, RDX_I64, 400000, 0, 0, 0, M_ASYNC | M_PORTIONS),
    SEG("async seg keys u16, 100 rows x 500", CALL_KEYS, RDX_U16, 50000, 0, 0, 0, ROWS, 100, M_ASYNC),
    SEG("async seg pairs u32/4 B, offsets", CALL_PAIRS, RDX_U32, 50000, 4, 0, 0, OFFSETS, 200,
        M_ASYNC | M_SANITIZER),
    SEG("async seg pairs f64/8 B, 50 rows x 1000 desc", CALL_PAIRS, RDX_F64, 50000, 8, 0, RDX_DESCENDING, ROWS, 50,
        M_ASYNC),
    SEG("async seg pairs u8/12 B, offsets", CALL_PAIRS, RDX_U8, 50000, 12, 0, 0, OFFSETS, 150, M_ASYNC),
    SEG("async seg argsort f32 -> u64, offsets", CALL_ARGSORT, RDX_F32, 50000, 0, RDX_U64, 0, OFFSETS, 120, M_ASYNC),
    SEG("async seg argsort u32 -> u32, 64 rows x 800", CALL_ARGSORT, RDX_U32, 51200, 0, RDX_U32, 0, ROWS, 64,
        M_ASYNC),
    SEG("async seg keys f64, one long segment numpy order", CALL_KEYS, RDX_F64, 72000, 0, 0, RDX_NUMPY_ORDER,
        ONE_LONG, 12, M_ASYNC),
};

/* Under the sanitizers n is at most 2^RDX_TEST_MAX_LOG2_N (rows: a multiple of them). */
static size_t sanitizer_n(const inject_case *c)
{
    const int lg = rdx_test_max_log2(40);
    const size_t most = (size_t)1 << (lg < 6 ? 6 : lg > 40 ? 40 : lg);
    if (c->n <= most)
        return c->n;
    return c->layout == ROWS ? most - most % c->segs : most;
}

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
    if (cudaStreamCreate(&stream) != cudaSuccess) {
        CHECK(0, "cudaStreamCreate");
        return 0;
    }
    context_creation(RDX_BACKEND_CUDA);
    const size_t ncases = sizeof cuda_cases / sizeof cuda_cases[0];
    for (int portions = 0; portions < (sanitizer ? 1 : 2); portions++) {
        many_portions = portions;
        for (size_t i = 0; i < ncases; i++) {
            inject_case c = cuda_cases[i];
            if ((int)(i % (size_t)shards) != shard)
                continue;
            if ((portions && !(c.modes & M_PORTIONS)) || (sanitizer && !(c.modes & M_SANITIZER)))
                continue;
            if (sanitizer)
                c.n = sanitizer_n(&c);
            for (int device = c.modes & M_ASYNC ? 1 : 0; device < 2; device++)
                for (int kind = 0; kind < RDX_INJECT_KINDS; kind++)
                    walk(RDX_BACKEND_CUDA, &c, device, (rdx_inject_kind)kind, s);
        }
    }
    many_portions = 0;
    (void)cudaStreamDestroy(stream);
    return 0;
}
#endif

int main(int argc, char **argv)
{
    const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
    if (argc < 2 || argc > 3 || (!cuda && strcmp(argv[1], "cpu") != 0) ||
        (argc == 3 && (!cuda || sscanf(argv[2], "%d/%d", &shard, &shards) != 2 || shards < 1 || shard < 0 ||
                       shard >= shards))) {
        fprintf(stderr, "usage: test_inject cpu | cuda [SHARD/SHARDS]\n");
        return 2;
    }
    seed = rdx_test_seed();
    const char *e = getenv("RDX_TEST_INJECT_STRICT");
    strict = e && e[0] == '1';
    e = getenv("RDX_TEST_SANITIZER");
    sanitizer = e && e[0] == '1';
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
            printf("test_inject %s: %lu failure points of %s walked (%lu at or before the first write to the "
                   "caller's arrays, %lu after it), arrays changed after %lu (all after the first write)\n",
                   argv[1], walked[k], kind_name[k], walked[k] - walked_after[k], walked_after[k], changed[k]);
    if (recovered)
        printf("test_inject %s: %lu failed scratch allocations recovered by the low-memory or out-of-core route, each result "
               "checked\n",
               argv[1], recovered);
    printf("test_inject %s: %s (seed 0x%016" PRIx64 ")\n", argv[1], failures ? "FAILED" : "passed", seed);
    return failures ? 1 : 0;
}
