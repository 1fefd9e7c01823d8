/* Concurrency stress: many host threads, each with its own context, sort at once for a
 * bounded time, each call with a random entry point (keys, pairs, argsort), key type, size,
 * distribution and options; every result is checked against the stable reference. On the
 * CUDA backend half of the threads use the stream-ordered calls of rdx_cuda.h, each on its
 * own stream of the one GPU, and the others the synchronous calls on device or host arrays.
 *
 * usage: test_stress cpu | cuda   (cuda exits 77, CTest's skip, where no GPU is usable)
 * Environment: RDX_TEST_STRESS_SECONDS (default 10), RDX_TEST_STRESS_THREADS (default 8),
 * RDX_TEST_STRESS_MAX_LOG2_N (default 17; 18 and more reach the CPU backend's threaded and
 * MSD routes), RDX_TEST_SEED replays the choices of each thread (not their interleaving).
 * Prints the sorts run and the wrong results (which must be 0). */
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
#include "rdx_cuda.h"
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

enum { CALL_KEYS, CALL_PAIRS, CALL_ARGSORT };
enum { MEM_HOST, MEM_DEVICE, MEM_ASYNC };  /* how the arrays reach the library */

/* One random sort request. */
typedef struct request {
    int call, mem;
    rdx_type type, index_type;
    size_t n, value_size;
    rdx_opts opts;
} request;

static void describe(const request *r, char *buf, size_t size)
{
    static const char *calls[] = {"keys", "pairs", "argsort"}, *mems[] = {"host", "device", "async"};
    snprintf(buf, size, "%s %s type %d n %zu value_size %zu index_type %d flags %u bits [%d, %d) radix %d",
             calls[r->call], mems[r->mem], (int)r->type, r->n, r->value_size, (int)r->index_type,
             r->opts.flags, r->opts.begin_bit, r->opts.end_bit, r->opts.radix_bits);
}

static void report(int thread, uint64_t thread_seed, const request *r, const char *what)
{
    char d[256];
    describe(r, d, sizeof d);
    pthread_mutex_lock(&print_lock);
    printf("FAIL [seed 0x%016" PRIx64 ", thread %d, thread seed 0x%016" PRIx64 "] %s: %s\n", seed, thread,
           thread_seed, d, what);
    pthread_mutex_unlock(&print_lock);
}

static void random_request(uint64_t *s, request *r)
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
}

/* Keys of a random distribution: uniform, few distinct, sorted runs, or all equal. */
static void fill_keys(uint64_t *s, unsigned char *keys, size_t n, size_t ks)
{
    const int dist = (int)(next(s) % 4);
    uint64_t few[4] = {next(s), next(s), next(s), next(s)};
    for (size_t i = 0; i < n; i++) {
        uint64_t v = dist == 0 ? next(s) : dist == 1 ? few[next(s) % 4] : dist == 2 ? i * 3 : few[0];
        memcpy(keys + i * ks, &v, ks);
    }
}

/* ---- the arrays of one request, where the request wants them ---- */

typedef struct buffers {
    void *keys, *vals, *idx, *temp;
    size_t temp_bytes;
} buffers;

#if RDX_TEST_HAVE_CUDA
static int to_device(void **d, const void *h, size_t bytes)
{
    *d = NULL;
    if (cudaMalloc(d, bytes ? bytes : 1) != cudaSuccess)
        return -1;
    return cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
}
#endif

/* Runs the request on ctx with keys/vals (host copies; results come back into them, and
 * indices into idx). Returns the library's status, or -1 when the test's own CUDA calls
 * failed. */
static int run(rdx_ctx *ctx, const request *r, unsigned char *keys, unsigned char *vals, unsigned char *idx,
               void *stream)
{
    const size_t ks = rdx_type_size(r->type), kb = r->n * ks, vb = r->n * r->value_size,
                 ib = r->n * rdx_type_size(r->index_type);
    if (r->mem == MEM_HOST) {
        (void)stream;
        switch (r->call) {
        case CALL_KEYS: return rdx_sort_keys(ctx, keys, r->n, r->type, &r->opts);
        case CALL_PAIRS: return rdx_sort_pairs(ctx, keys, vals, r->value_size, r->n, r->type, &r->opts);
        default: return rdx_argsort(ctx, keys, r->n, r->type, idx, r->index_type, &r->opts);
        }
    }
#if RDX_TEST_HAVE_CUDA
    buffers b = {0};
    int st = -1;
    if (to_device(&b.keys, keys, kb) || to_device(&b.vals, vals, vb) || to_device(&b.idx, idx, ib))
        goto out;
    if (r->mem == MEM_DEVICE) {
        switch (r->call) {
        case CALL_KEYS: st = rdx_sort_keys(ctx, b.keys, r->n, r->type, &r->opts); break;
        case CALL_PAIRS: st = rdx_sort_pairs(ctx, b.keys, b.vals, r->value_size, r->n, r->type, &r->opts); break;
        default: st = rdx_argsort(ctx, b.keys, r->n, r->type, b.idx, r->index_type, &r->opts); break;
        }
    } else {
        cudaStream_t sm = (cudaStream_t)stream;
        rdx_status q = r->call == CALL_KEYS ? rdx_cuda_sort_keys_temp_size(ctx, r->n, r->type, &r->opts, &b.temp_bytes)
                       : r->call == CALL_PAIRS
                           ? rdx_cuda_sort_pairs_temp_size(ctx, r->value_size, r->n, r->type, &r->opts, &b.temp_bytes)
                           : rdx_cuda_argsort_temp_size(ctx, r->n, r->type, r->index_type, &r->opts, &b.temp_bytes);
        if (q != RDX_OK) {
            st = q;
            goto out;
        }
        if (cudaMalloc(&b.temp, b.temp_bytes ? b.temp_bytes : 1) != cudaSuccess)
            goto out;
        switch (r->call) {
        case CALL_KEYS:
            st = rdx_cuda_sort_keys_async(ctx, b.keys, r->n, r->type, &r->opts, b.temp, b.temp_bytes, sm);
            break;
        case CALL_PAIRS:
            st = rdx_cuda_sort_pairs_async(ctx, b.keys, b.vals, r->value_size, r->n, r->type, &r->opts, b.temp,
                                           b.temp_bytes, sm);
            break;
        default:
            st = rdx_cuda_argsort_async(ctx, b.keys, r->n, r->type, b.idx, r->index_type, &r->opts, b.temp,
                                        b.temp_bytes, sm);
            break;
        }
        if (cudaStreamSynchronize(sm) != cudaSuccess)
            st = -1;
    }
    if (st == RDX_OK &&
        (cudaMemcpy(keys, b.keys, kb, cudaMemcpyDeviceToHost) != cudaSuccess ||
         cudaMemcpy(vals, b.vals, vb, cudaMemcpyDeviceToHost) != cudaSuccess ||
         cudaMemcpy(idx, b.idx, ib, cudaMemcpyDeviceToHost) != cudaSuccess))
        st = -1;
out:
    cudaFree(b.keys);
    cudaFree(b.vals);
    cudaFree(b.idx);
    cudaFree(b.temp);
    return st;
#else
    (void)kb, (void)vb, (void)ib;
    return -1;
#endif
}

/* 1 when keys/vals/idx hold the reference's result for the inputs k0/v0. */
static int check(const request *r, const unsigned char *k0, const unsigned char *v0, const unsigned char *keys,
                 const unsigned char *vals, const unsigned char *idx, size_t *perm)
{
    const size_t ks = rdx_type_size(r->type), vs = r->value_size, is = rdx_type_size(r->index_type);
    if (rdx_ref_argsort(k0, r->n, r->type, &r->opts, perm) != 0)
        return 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->call == CALL_ARGSORT) {
            uint64_t v = 0;
            memcpy(&v, idx + i * is, is);
            if (v != perm[i] || memcmp(keys + i * ks, k0 + i * ks, ks) != 0)
                return 0;
        } else {
            if (memcmp(keys + i * ks, k0 + perm[i] * ks, ks) != 0)
                return 0;
            if (r->call == CALL_PAIRS && memcmp(vals + i * vs, v0 + perm[i] * vs, vs) != 0)
                return 0;
        }
    }
    return 1;
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
    unsigned char *k0 = malloc(cap * 8), *v0 = malloc(cap * 16), *keys = malloc(cap * 8),
                  *vals = malloc(cap * 16), *idx = malloc(cap * 8);
    size_t *perm = malloc(cap * sizeof *perm);
    if (!k0 || !v0 || !keys || !vals || !idx || !perm) {
        report(w->id, w->seed, &(request){0}, "the test's own allocation failed");
        atomic_fetch_add(&failed_calls, 1);
        goto out;
    }
    while (now() < stop_at) {
        request r;
        random_request(&s, &r);
        const size_t ks = rdx_type_size(r.type);
        fill_keys(&s, k0, r.n, ks);
        for (size_t i = 0; i < r.n * r.value_size; i++)
            v0[i] = (unsigned char)next(&s);
        memcpy(keys, k0, r.n * ks);
        memcpy(vals, v0, r.n * r.value_size);
        memset(idx, 0xee, r.n * 8);
        const int st = run(ctx, &r, keys, vals, idx, stream);
        atomic_fetch_add(&sorts_run, 1);
        if (st != RDX_OK) {
            char msg[640];
            snprintf(msg, sizeof msg, "status %d: %s", st, st < 0 ? "a CUDA call of the test failed" : rdx_ctx_error(ctx));
            report(w->id, w->seed, &r, msg);
            atomic_fetch_add(&failed_calls, 1);
        } else if (!check(&r, k0, v0, keys, vals, idx, perm)) {
            report(w->id, w->seed, &r, "wrong result");
            atomic_fetch_add(&wrong_results, 1);
        }
    }
out:
    free(k0);
    free(v0);
    free(keys);
    free(vals);
    free(idx);
    free(perm);
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
    max_log2_n = (int)env_long("RDX_TEST_STRESS_MAX_LOG2_N", 17);
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
