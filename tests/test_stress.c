/* Concurrency stress: many host threads, each with its own context, sort at once for a
 * bounded time, each call with a random entry point (keys, pairs, argsort, each whole-array
 * or segmented: equal rows with offsets NULL, or random offsets with empty segments and
 * gaps), key type, size, distribution (float specials too) and options (order, bit range,
 * digit width, RDX_NUMPY_ORDER, RDX_LOW_MEMORY); every result is checked against the
 * stable reference. On the CUDA backend a third of the calls use the stream-ordered calls
 * of rdx_cuda.h, each thread on its own stream of the one GPU, and the others the
 * synchronous calls on device or host arrays.
 *
 * usage: test_stress cpu | cuda   (cuda exits 77, CTest's skip, where no GPU is usable)
 * Environment: RDX_TEST_STRESS_SECONDS (default 10), RDX_TEST_STRESS_THREADS (default 8),
 * RDX_TEST_STRESS_MAX_LOG2_N (default RDX_TEST_MAX_LOG2_N, else 17; 18 and more reach the
 * CPU backend's threaded and MSD routes), RDX_TEST_SEED replays the choices of each thread
 * (not their interleaving), RDX_TEST_STRESS_TRACE=1 prints each sort as it starts (so that
 * a run that hangs names its sort). Prints the sorts run and the wrong results (which must
 * be 0). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reference.h"
#include "suite.h"

#if RDX_TEST_HAVE_CUDA
#include <cuda_runtime_api.h>
#include "cuda_async.h"
#endif

static uint64_t seed;
static double stop_at;      /* CLOCK_MONOTONIC seconds */
static int max_log2_n;
static rdx_backend backend;
static atomic_ulong sorts_run, wrong_results, failed_calls;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && v[0] ? strtol(v, NULL, 10) : dflt;
}

enum { CALL_KEYS = RDX_REF_KEYS, CALL_PAIRS = RDX_REF_PAIRS, CALL_ARGSORT = RDX_REF_ARGSORT };
enum { MEM_HOST, MEM_DEVICE, MEM_ASYNC };  /* how the arrays reach the library */
#define MAX_SEGMENTS 64

/* One random sort request. */
typedef struct request {
    int call, mem;
    rdx_type type, index_type;
    size_t n, value_size;
    rdx_opts opts;
    int segmented;
    size_t nseg;
    size_t *offsets;   /* segmented: nseg + 1 host offsets (the worker's), or NULL: equal rows */
    int device_offsets; /* MEM_DEVICE: the offsets in device memory too (else host offsets) */
} request;

static void describe(const request *r, char *buf, size_t size)
{
    static const char *calls[] = {"keys", "pairs", "argsort"}, *mems[] = {"host", "device", "async"};
    const int at = snprintf(buf, size,
                            "%s %s type %d n %zu value_size %zu index_type %d flags %u bits [%d, %d) radix %d",
                            calls[r->call], mems[r->mem], (int)r->type, r->n, r->value_size, (int)r->index_type,
                            r->opts.flags, r->opts.begin_bit, r->opts.end_bit, r->opts.radix_bits);
    if (r->segmented && at > 0 && (size_t)at < size)
        snprintf(buf + at, size - (size_t)at, ", segmented: %zu %s", r->nseg,
                 r->offsets ? (r->device_offsets ? "segments, device offsets" : "segments, host offsets")
                            : "equal rows");
}

static int trace; /* RDX_TEST_STRESS_TRACE */

/* A line about request r of a thread, flushed: "FAIL" and what went wrong, or "start". */
static void say(const char *head, int thread, uint64_t thread_seed, const request *r, const char *what)
{
    char d[256];
    describe(r, d, sizeof d);
    pthread_mutex_lock(&print_lock);
    printf("%s [seed 0x%016" PRIx64 ", thread %d, thread seed 0x%016" PRIx64 "] %s%s%s\n", head, seed, thread,
           thread_seed, d, what ? ": " : "", what ? what : "");
    fflush(stdout);
    pthread_mutex_unlock(&print_lock);
}

static void report(int thread, uint64_t thread_seed, const request *r, const char *what)
{
    say("FAIL", thread, thread_seed, r, what);
}

/* offsets: room for MAX_SEGMENTS + 1 entries, used when the request is segmented. */
static void random_request(uint64_t *s, request *r, size_t *offsets)
{
    static const size_t value_sizes[] = {1, 2, 4, 8, 12, 16};
    memset(r, 0, sizeof *r);
    r->call = (int)(next(s) % 3);
    r->type = (rdx_type)(RDX_U8 + next(s) % 12);
    r->index_type = next(s) & 1 ? RDX_U32 : RDX_U64;
    r->value_size = value_sizes[next(s) % 6];
    const int log2 = (int)(next(s) % (uint64_t)(max_log2_n + 1));
    r->n = ((size_t)1 << log2) + next(s) % ((size_t)1 << log2);
    if (next(s) % 16 == 0)
        r->n = next(s) % 4;   /* 0..3 keys */
    r->opts.flags = next(s) & 1 ? RDX_DESCENDING : 0;
    if (next(s) % 4 == 0)
        r->opts.flags |= RDX_NUMPY_ORDER;
    if (next(s) % 8 == 0)
        r->opts.flags |= RDX_LOW_MEMORY;
    const int width = (int)rdx_type_size(r->type) * 8;
    if (next(s) % 4 == 0) {   /* a bit range */
        r->opts.begin_bit = (int)(next(s) % (uint64_t)width);
        r->opts.end_bit = r->opts.begin_bit + 1 + (int)(next(s) % (uint64_t)(width - r->opts.begin_bit));
    }
    if (next(s) % 4 == 0)
        r->opts.radix_bits = 1 + (int)(next(s) % 8);
    r->mem = MEM_HOST;
    if (backend == RDX_BACKEND_CUDA)
        r->mem = (int)(next(s) % 3);
    /* A third segmented: equal rows (n cut to a multiple), or random offsets (some segments
     * empty, gaps before the first and after the last). */
    if (next(s) % 3 == 0) {
        r->segmented = 1;
        r->nseg = 1 + next(s) % MAX_SEGMENTS;
        if (next(s) & 1) {
            r->n -= r->n % r->nseg;
        } else {
            r->offsets = offsets;
            for (size_t i = 0; i <= r->nseg; i++)
                offsets[i] = i > 0 && next(s) % 5 == 0 ? offsets[i - 1] : next(s) % (r->n + 1);
            for (size_t i = 1; i <= r->nseg; i++) /* insertion sort: at most 65 entries */
                for (size_t j = i; j > 0 && offsets[j - 1] > offsets[j]; j--) {
                    const size_t t = offsets[j];
                    offsets[j] = offsets[j - 1];
                    offsets[j - 1] = t;
                }
            r->device_offsets = (int)(next(s) & 1);
        }
    }
}

/* A float special of the type: NaN of either sign (random payload), +-0 or +-inf. */
static uint64_t float_special(uint64_t *s, rdx_type t)
{
    const int w = (int)rdx_type_size(t) * 8;
    const int mant = t == RDX_F16 ? 10 : t == RDX_BF16 ? 7 : t == RDX_F32 ? 23 : 52;
    const uint64_t sign = (uint64_t)1 << (w - 1), mant_all = ((uint64_t)1 << mant) - 1;
    const uint64_t exp_all = (sign - 1) & ~mant_all, sg = next(s) & 1 ? sign : 0;
    switch (next(s) % 3) {
    case 0: return sg | exp_all | ((next(s) & mant_all) | 1); /* NaN */
    case 1: return sg;                                        /* 0 */
    default: return sg | exp_all;                             /* inf */
    }
}

/* Keys of a random distribution: uniform, few distinct, sorted runs, all equal, or (for
 * floats) a third of them NaNs, zeros and infinities of both signs. */
static void fill_keys(uint64_t *s, unsigned char *keys, size_t n, rdx_type type)
{
    const size_t ks = rdx_type_size(type);
    const int dist = (int)(next(s) % (type >= RDX_F16 ? 5 : 4));
    uint64_t few[4] = {next(s), next(s), next(s), next(s)};
    for (size_t i = 0; i < n; i++) {
        uint64_t v = dist == 0 ? next(s) : dist == 1 ? few[next(s) % 4] : dist == 2 ? i * 3 : few[0];
        if (dist == 4)
            v = next(s) % 3 == 0 ? float_special(s, type) : next(s);
        memcpy(keys + i * ks, &v, ks);
    }
}

/* ---- the arrays of one request, where the request wants them ---- */

#if RDX_TEST_HAVE_CUDA
/* A device copy of h. Uploaded on `stream` when the request runs there: cudaMemcpy from
 * pageable memory may return before the data has landed, and a non-blocking stream does
 * not wait for the legacy stream's copy (the one wrong result of an H200 run, an async
 * argsort, was that race). The synchronous calls sort on a blocking stream: no race. */
static int to_device(void **d, const void *h, size_t bytes, void *stream)
{
    *d = NULL;
    if (cudaMalloc(d, bytes ? bytes : 1) != cudaSuccess)
        return -1;
    if (!stream)
        return cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
    return cudaMemcpyAsync(*d, h, bytes, cudaMemcpyHostToDevice, (cudaStream_t)stream) == cudaSuccess ? 0 : -1;
}
#endif

/* The synchronous call of rdx.h for the request, with the arrays and offsets given. */
static rdx_status sync_call(rdx_ctx *ctx, const request *r, void *keys, void *vals, void *idx, const size_t *offs)
{
    if (!r->segmented) {
        switch (r->call) {
        case CALL_KEYS: return rdx_sort_keys(ctx, keys, r->n, r->type, &r->opts);
        case CALL_PAIRS: return rdx_sort_pairs(ctx, keys, vals, r->value_size, r->n, r->type, &r->opts);
        default: return rdx_argsort(ctx, keys, r->n, r->type, idx, r->index_type, &r->opts);
        }
    }
    switch (r->call) {
    case CALL_KEYS: return rdx_segmented_sort_keys(ctx, keys, r->n, r->type, offs, r->nseg, &r->opts);
    case CALL_PAIRS:
        return rdx_segmented_sort_pairs(ctx, keys, vals, r->value_size, r->n, r->type, offs, r->nseg, &r->opts);
    default:
        return rdx_segmented_argsort(ctx, keys, r->n, r->type, offs, r->nseg, idx, r->index_type, &r->opts);
    }
}

/* Runs the request on ctx with keys/vals (host copies; results come back into them, and
 * indices into idx). Returns the library's status, or -1 when the test's own CUDA calls
 * failed. */
static int run(rdx_ctx *ctx, const request *r, unsigned char *keys, unsigned char *vals, unsigned char *idx,
               void *stream)
{
    if (r->mem == MEM_HOST) {
        (void)stream;
        return sync_call(ctx, r, keys, vals, idx, r->offsets);
    }
#if RDX_TEST_HAVE_CUDA
    const size_t kb = r->n * rdx_type_size(r->type), vb = r->n * r->value_size,
                 ib = r->n * rdx_type_size(r->index_type), ob = (r->nseg + 1) * sizeof(size_t);
    void *dk = NULL, *dv = NULL, *di = NULL, *doff = NULL;
    int st = -1;
    void *up = r->mem == MEM_ASYNC ? stream : NULL;
    if (to_device(&dk, keys, kb, up) || to_device(&dv, vals, vb, up) || to_device(&di, idx, ib, up) ||
        (r->offsets && (r->mem == MEM_ASYNC || r->device_offsets) && to_device(&doff, r->offsets, ob, up)))
        goto out;
    if (r->mem == MEM_DEVICE) {
        st = sync_call(ctx, r, dk, dv, di, doff ? (const size_t *)doff : r->offsets);
    } else {
        const rdx_test_async q = {(rdx_ref_kind)r->call, r->segmented, dk, dv, r->value_size, di, r->index_type,
                                  r->n, r->type, (const size_t *)doff, r->nseg, r->opts};
        st = rdx_test_async_call(ctx, &q, (cudaStream_t)stream);
    }
    if (st == RDX_OK &&
        (cudaMemcpy(keys, dk, kb, cudaMemcpyDeviceToHost) != cudaSuccess ||
         cudaMemcpy(vals, dv, vb, cudaMemcpyDeviceToHost) != cudaSuccess ||
         cudaMemcpy(idx, di, ib, cudaMemcpyDeviceToHost) != cudaSuccess))
        st = -1;
out:
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(di);
    cudaFree(doff);
    return st;
#else
    return -1;
#endif
}

/* 1 when keys/vals/idx hold the reference's result for the inputs k0/v0/i0. */
static int check(const request *r, const unsigned char *k0, const unsigned char *v0, const unsigned char *i0,
                 const unsigned char *keys, const unsigned char *vals, const unsigned char *idx)
{
    const rdx_ref_call c = {(rdx_ref_kind)r->call, r->type, r->n, r->value_size, r->index_type,
                            r->segmented, r->offsets, r->nseg, r->opts};
    return rdx_ref_check(&c, k0, v0, i0, keys, vals, idx);
}

typedef struct worker {
    int id;
    uint64_t seed;
    pthread_t thread;
} worker;

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    uint64_t s = w->seed;
    rdx_ctx *ctx = NULL;
    void *stream = NULL;
    if (rdx_ctx_create(&ctx, backend) != RDX_OK) {
        report(w->id, w->seed, &(request){0}, "rdx_ctx_create failed");
        atomic_fetch_add(&failed_calls, 1);
        return NULL;
    }
#if RDX_TEST_HAVE_CUDA
    cudaStream_t sm = NULL;
    if (backend == RDX_BACKEND_CUDA && cudaStreamCreateWithFlags(&sm, cudaStreamNonBlocking) != cudaSuccess) {
        report(w->id, w->seed, &(request){0}, "cudaStreamCreate failed");
        atomic_fetch_add(&failed_calls, 1);
        rdx_ctx_destroy(ctx);
        return NULL;
    }
    stream = (void *)sm;
#endif
    const size_t cap = ((size_t)2 << max_log2_n) + 4;
    unsigned char *k0 = malloc(cap * 8), *v0 = malloc(cap * 16), *i0 = malloc(cap * 8), *keys = malloc(cap * 8),
                  *vals = malloc(cap * 16), *idx = malloc(cap * 8);
    size_t *offsets = malloc((MAX_SEGMENTS + 1) * sizeof *offsets);
    if (!k0 || !v0 || !i0 || !keys || !vals || !idx || !offsets) {
        report(w->id, w->seed, &(request){0}, "the test's own allocation failed");
        atomic_fetch_add(&failed_calls, 1);
        goto out;
    }
    while (now() < stop_at) {
        request r;
        random_request(&s, &r, offsets);
        const size_t ks = rdx_type_size(r.type);
        fill_keys(&s, k0, r.n, r.type);
        for (size_t i = 0; i < r.n * r.value_size; i++)
            v0[i] = (unsigned char)next(&s);
        memset(i0, 0xee, r.n * 8);
        memcpy(keys, k0, r.n * ks);
        memcpy(vals, v0, r.n * r.value_size);
        memcpy(idx, i0, r.n * 8);
        if (trace)
            say("start", w->id, w->seed, &r, NULL);
        const int st = run(ctx, &r, keys, vals, idx, stream);
        atomic_fetch_add(&sorts_run, 1);
        if (st != RDX_OK) {
            char msg[640];
            snprintf(msg, sizeof msg, "status %d: %s", st, st < 0 ? "a CUDA call of the test failed" : rdx_ctx_error(ctx));
            report(w->id, w->seed, &r, msg);
            atomic_fetch_add(&failed_calls, 1);
        } else if (!check(&r, k0, v0, i0, keys, vals, idx)) {
            report(w->id, w->seed, &r, "wrong result");
            atomic_fetch_add(&wrong_results, 1);
        }
    }
out:
    free(k0);
    free(v0);
    free(i0);
    free(keys);
    free(vals);
    free(idx);
    free(offsets);
#if RDX_TEST_HAVE_CUDA
    if (sm)
        cudaStreamDestroy(sm);
#endif
    rdx_ctx_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
    if (argc != 2 || (!cuda && strcmp(argv[1], "cpu") != 0)) {
        fprintf(stderr, "usage: test_stress cpu|cuda\n");
        return 2;
    }
    backend = cuda ? RDX_BACKEND_CUDA : RDX_BACKEND_CPU;
    if (cuda) {
        rdx_ctx *probe = NULL;
#if RDX_TEST_HAVE_CUDA
        if (rdx_ctx_create(&probe, RDX_BACKEND_CUDA) != RDX_OK) {
            printf("test_stress cuda: no usable GPU, skipped\n");
            return 77;
        }
        rdx_ctx_destroy(probe);
#else
        (void)probe;
        printf("test_stress cuda: this build has no CUDA backend, skipped\n");
        return 77;
#endif
    }
    seed = rdx_test_seed();
    const long seconds = env_long("RDX_TEST_STRESS_SECONDS", 10);
    long nthreads = env_long("RDX_TEST_STRESS_THREADS", 8);
    max_log2_n = (int)env_long("RDX_TEST_STRESS_MAX_LOG2_N", rdx_test_max_log2(17));
    trace = env_long("RDX_TEST_STRESS_TRACE", 0) != 0;
    if (nthreads < 1 || nthreads > 256 || max_log2_n < 0 || max_log2_n > 24) {
        fprintf(stderr, "test_stress: threads 1..256 and max log2 n 0..24\n");
        return 2;
    }
    stop_at = now() + (double)seconds;
    worker *ws = calloc((size_t)nthreads, sizeof *ws);
    uint64_t s = seed;
    for (long i = 0; i < nthreads; i++) {
        ws[i].id = (int)i;
        ws[i].seed = next(&s);
        if (pthread_create(&ws[i].thread, NULL, work, &ws[i]) != 0) {
            fprintf(stderr, "test_stress: pthread_create failed\n");
            return 1;
        }
    }
    for (long i = 0; i < nthreads; i++)
        pthread_join(ws[i].thread, NULL);
    free(ws);
    const unsigned long run_ = atomic_load(&sorts_run), wrong = atomic_load(&wrong_results),
                        failed = atomic_load(&failed_calls);
    printf("test_stress %s: %ld threads x %ld s: %lu sorts run, %lu wrong results, %lu failed calls "
           "(seed 0x%016" PRIx64 ")\n",
           argv[1], nthreads, seconds, run_, wrong, failed, seed);
    return wrong || failed || run_ == 0 ? 1 : 0;
}
