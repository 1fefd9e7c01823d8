/* rdx-dist-bench: the distributed sort over 1, 2, 4, ... GPUs of one host (a thread per
 * GPU, NCCL communicators from rdx_dist_unique_id), against one GPU sorting the same N keys.
 *
 *   rdx-dist-bench [--log2n 31] [--type u32|u64] [--gpus 1,2] [--dist uniform,equal,sorted,giant]
 *                  [--runs 10] [--host] [--csv file]
 *
 * Per row: N keys in total, spread evenly (shards of N/G) over G GPUs; time to sorted
 * shards (host clock from a barrier of all ranks to the last rank's stream having
 * finished, exchange included), median of --runs after one warm-up; then one more set of
 * runs with rdx_dist_set_timing for the parts (splitters, partition + exchange, local
 * sort; those runs add stream synchronizations, so the parts need not sum to the total).
 * The 1-GPU row is rdx_cuda_sort_keys_into_async of all N keys on GPU 0 (no exchange).
 * Every result is checked: each rank's part is sorted and its size is exact, and the
 * boundaries between ranks are in order.
 *
 * --host: the one-host sort of a pinned host array of N keys with rdx_ctx_create_devices
 * (every GPU of --gpus), against the time to copy the array to the GPUs and back (each GPU
 * its shard, in parallel).
 *
 * Keep NVLink SHARP off (NCCL_NVLS_ENABLE=0, as scripts/dist-bench.sh sets). */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdx_cuda.h"
#include "rdx_dist.h"

#define MAX_GPUS 8

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

typedef enum { B_UNIFORM, B_EQUAL, B_SORTED, B_GIANT } bdist;
static const char *dist_names[] = {"uniform", "equal", "sorted", "giant"};

/* The keys of positions [lo, lo + n) of the whole array, on the host. */
static void make_keys(unsigned char *h, size_t lo, size_t n, size_t kb, bdist d)
{
    uint64_t s = 0x1234567ull + lo;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = splitmix(&s);
        if (d == B_EQUAL)
            x = 42;
        else if (d == B_SORTED)
            x = (lo + i) * (kb == 4 ? 1 : 977);
        else if (d == B_GIANT && (x & 15))
            x = (0x5a5a5a5a5a5a5a00ull & (kb == 4 ? 0xffffffffull : ~0ull)) | (x >> 62);
        memcpy(h + i * kb, &x, kb);
    }
}

typedef struct rank_t {
    int rank, gpus;
    size_t n, cap, kb;
    rdx_type type;
    rdx_ctx *ctx;
    struct ncclComm *comm;
    cudaStream_t stream;
    void *d_in, *d_out, *d_temp;
    size_t temp_bytes;
    /* per run */
    int timing;
    double t0, t1, ms[3];
    size_t n_out;
    rdx_status st;
} rank_t;

static pthread_barrier_t barrier;
static unsigned char uid[RDX_DIST_UNIQUE_ID_BYTES];

static void *rank_init(void *p)
{
    rank_t *r = p;
    cudaSetDevice(r->rank);
    r->st = rdx_dist_comm_init_rank(&r->comm, r->gpus, uid, sizeof uid, r->rank);
    if (r->st == RDX_OK)
        r->st = rdx_ctx_create(&r->ctx, RDX_BACKEND_CUDA);
    cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking);
    if (r->st == RDX_OK)
        r->st = rdx_dist_sort_keys_temp_size(r->ctx, r->gpus, r->n, r->cap, r->type, NULL, &r->temp_bytes);
    if (r->st == RDX_OK && (cudaMalloc(&r->d_in, r->n * r->kb + 1) != cudaSuccess ||
                            cudaMalloc(&r->d_out, r->cap * r->kb + 1) != cudaSuccess ||
                            cudaMalloc(&r->d_temp, r->temp_bytes) != cudaSuccess))
        r->st = RDX_ERR_OUT_OF_MEMORY;
    return NULL;
}

static void *rank_run(void *p)
{
    rank_t *r = p;
    cudaSetDevice(r->rank);
    rdx_dist_set_timing(r->ctx, r->timing);
    cudaStreamSynchronize(r->stream);
    pthread_barrier_wait(&barrier);
    r->t0 = now_ms();
    r->st = rdx_dist_sort_keys(r->ctx, r->comm, r->d_in, r->n, r->d_out, r->cap, &r->n_out, r->type, NULL,
                               r->d_temp, r->temp_bytes, r->stream);
    cudaStreamSynchronize(r->stream);
    r->t1 = now_ms();
    rdx_dist_phase_times(r->ctx, r->ms);
    return NULL;
}

static void run_all(rank_t *rk, int g, void *(*fn)(void *))
{
    pthread_t tid[MAX_GPUS];
    for (int i = 0; i < g; i++)
        pthread_create(&tid[i], NULL, fn, &rk[i]);
    for (int i = 0; i < g; i++)
        pthread_join(tid[i], NULL);
}

static int key_less(const unsigned char *a, const unsigned char *b, size_t kb)
{
    uint64_t x = 0, y = 0;
    memcpy(&x, a, kb);
    memcpy(&y, b, kb);
    return x < y;
}

/* Each part sorted and exact, boundaries in order (unsigned types only). */
static int verify(rank_t *rk, int g, size_t N)
{
    unsigned char prev[8] = {0};
    int have_prev = 0;
    for (int i = 0; i < g; i++) {
        const size_t want = N / (size_t)g * (size_t)(i + 1) + N % (size_t)g * (size_t)(i + 1) / (size_t)g -
                            (N / (size_t)g * (size_t)i + N % (size_t)g * (size_t)i / (size_t)g);
        if (rk[i].st != RDX_OK || rk[i].n_out != want) {
            printf("  rank %d: status %d (%s), %zu keys, want %zu\n", i, (int)rk[i].st, rdx_ctx_error(rk[i].ctx),
                   rk[i].n_out, want);
            return 0;
        }
        unsigned char *h = malloc(want * rk[i].kb + 1);
        cudaSetDevice(i);
        cudaMemcpy(h, rk[i].d_out, want * rk[i].kb, cudaMemcpyDeviceToHost);
        for (size_t j = 0; j < want; j++) {
            if ((j > 0 && key_less(h + j * rk[i].kb, h + (j - 1) * rk[i].kb, rk[i].kb)) ||
                (j == 0 && have_prev && key_less(h, prev, rk[i].kb))) {
                printf("  rank %d: out of order at %zu\n", i, j);
                free(h);
                return 0;
            }
        }
        if (want) {
            memcpy(prev, h + (want - 1) * rk[i].kb, rk[i].kb);
            have_prev = 1;
        }
        free(h);
    }
    return 1;
}

/* One GPU sorting all N keys (rdx_cuda_sort_keys_into_async), median ms. */
static double single_gpu(size_t N, rdx_type type, bdist d, int runs)
{
    const size_t kb = rdx_type_size(type);
    cudaSetDevice(0);
    rdx_ctx *ctx = NULL;
    rdx_ctx_create(&ctx, RDX_BACKEND_CUDA);
    void *din, *dout, *dt;
    size_t tb = 0;
    rdx_cuda_sort_keys_temp_size(ctx, N, type, NULL, &tb);
    unsigned char *h = malloc(N * kb);
    if (!h || cudaMalloc(&din, N * kb) != cudaSuccess || cudaMalloc(&dout, N * kb) != cudaSuccess ||
        cudaMalloc(&dt, tb + 1) != cudaSuccess) {
        printf("  1 GPU: no memory for %zu keys\n", N);
        free(h);
        rdx_ctx_destroy(ctx);
        return -1;
    }
    make_keys(h, 0, N, kb, d);
    cudaMemcpy(din, h, N * kb, cudaMemcpyHostToDevice);
    free(h);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    double *t = malloc(sizeof(double) * (size_t)(runs + 1));
    for (int i = 0; i <= runs; i++) {
        cudaEventRecord(a, 0);
        rdx_cuda_sort_keys_into_async(ctx, din, dout, N, type, NULL, dt, tb, 0);
        cudaEventRecord(b, 0);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (i > 0)
            t[i - 1] = ms;
    }
    const double m = median(t, runs);
    free(t);
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dt);
    rdx_ctx_destroy(ctx);
    return m;
}

static void dist_row(size_t N, rdx_type type, bdist d, int g, int runs, double one, FILE *csv)
{
    const size_t kb = rdx_type_size(type);
    rank_t rk[MAX_GPUS];
    memset(rk, 0, sizeof rk);
    rdx_dist_unique_id(uid, sizeof uid);
    for (int i = 0; i < g; i++) {
        rk[i].rank = i;
        rk[i].gpus = g;
        rk[i].kb = kb;
        rk[i].type = type;
        const size_t lo = N / (size_t)g * (size_t)i + N % (size_t)g * (size_t)i / (size_t)g;
        const size_t hi = N / (size_t)g * (size_t)(i + 1) + N % (size_t)g * (size_t)(i + 1) / (size_t)g;
        rk[i].n = hi - lo;
        rk[i].cap = hi - lo;
    }
    pthread_barrier_init(&barrier, NULL, (unsigned)g);
    run_all(rk, g, rank_init);
    int ok = 1;
    for (int i = 0; i < g; i++)
        if (rk[i].st != RDX_OK) {
            printf("  %d GPUs: rank %d could not start (status %d)\n", g, i, (int)rk[i].st);
            ok = 0;
        }
    if (ok) {
        size_t off = 0;
        for (int i = 0; i < g; i++) {
            unsigned char *h = malloc(rk[i].n * kb + 1);
            make_keys(h, off, rk[i].n, kb, d);
            cudaSetDevice(i);
            cudaMemcpy(rk[i].d_in, h, rk[i].n * kb, cudaMemcpyHostToDevice);
            free(h);
            off += rk[i].n;
        }
        double *tot = malloc(sizeof(double) * (size_t)runs * 4);
        double *part[3] = {tot + runs, tot + 2 * runs, tot + 3 * runs};
        for (int i = 0; i <= runs && ok; i++) {  /* run 0: warm-up */
            for (int j = 0; j < g; j++)
                rk[j].timing = 0;
            run_all(rk, g, rank_run);
            double t0 = rk[0].t0, t1 = rk[0].t1;
            for (int j = 1; j < g; j++) {
                t0 = rk[j].t0 < t0 ? rk[j].t0 : t0;
                t1 = rk[j].t1 > t1 ? rk[j].t1 : t1;
            }
            if (i == 0)
                ok = verify(rk, g, N);
            else
                tot[i - 1] = t1 - t0;
        }
        for (int i = 0; i < runs && ok; i++) {
            for (int j = 0; j < g; j++)
                rk[j].timing = 1;
            run_all(rk, g, rank_run);
            for (int p = 0; p < 3; p++) {
                double mx = 0;
                for (int j = 0; j < g; j++)
                    mx = rk[j].ms[p] > mx ? rk[j].ms[p] : mx;
                part[p][i] = mx;
            }
        }
        if (ok) {
            const double t = median(tot, runs), s = median(part[0], runs), x = median(part[1], runs),
                         l = median(part[2], runs);
            printf("%-4s %-8s 2^%-5.2f %4d %10.3f %10.3f %10.3f %10.3f %8.2fx %8.2f\n", type == RDX_U32 ? "u32" : "u64",
                   dist_names[d], __builtin_log2((double)N), g, t, s, x, l, one > 0 ? one / t : 0,
                   (double)N / t / 1e6);
            if (csv)
                fprintf(csv, "%s,%s,%zu,%d,%.4f,%.4f,%.4f,%.4f,%.4f\n", type == RDX_U32 ? "u32" : "u64",
                        dist_names[d], N, g, t, s, x, l, one);
        } else {
            printf("%-4s %-8s %zu keys on %d GPUs: FAILED\n", type == RDX_U32 ? "u32" : "u64", dist_names[d], N, g);
        }
        free(tot);
    }
    for (int i = 0; i < g; i++) {
        cudaSetDevice(i);
        cudaFree(rk[i].d_in);
        cudaFree(rk[i].d_out);
        cudaFree(rk[i].d_temp);
        if (rk[i].stream)
            cudaStreamDestroy(rk[i].stream);
        rdx_dist_comm_destroy(rk[i].comm);
        rdx_ctx_destroy(rk[i].ctx);
    }
    pthread_barrier_destroy(&barrier);
}

/* The host-array sort on g GPUs, and the copy to the GPUs and back for comparison. */
typedef struct copy_t {
    int dev;
    unsigned char *h;
    size_t bytes;
    double ms;
} copy_t;

static void *copy_main(void *p)
{
    copy_t *c = p;
    cudaSetDevice(c->dev);
    void *d = NULL;
    if (cudaMalloc(&d, c->bytes + 1) != cudaSuccess) {
        c->ms = -1;
        return NULL;
    }
    pthread_barrier_wait(&barrier);
    const double t0 = now_ms();
    cudaMemcpy(d, c->h, c->bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(c->h, d, c->bytes, cudaMemcpyDeviceToHost);
    c->ms = now_ms() - t0;
    cudaFree(d);
    return NULL;
}

static void host_row(size_t N, rdx_type type, int g, int runs)
{
    const size_t kb = rdx_type_size(type);
    unsigned char *h = NULL;
    if (cudaHostAlloc((void **)&h, N * kb, cudaHostAllocPortable) != cudaSuccess) {
        printf("host array: no pinned memory for %zu keys\n", N);
        return;
    }
    rdx_ctx *ctx = NULL;
    rdx_status st = rdx_ctx_create_devices(&ctx, RDX_BACKEND_CUDA, NULL, g);
    if (st != RDX_OK) {
        printf("host array: rdx_ctx_create_devices(%d): %d\n", g, (int)st);
        cudaFreeHost(h);
        return;
    }
    double *ts = malloc(sizeof(double) * (size_t)runs * 2), *tc = ts + runs;
    for (int i = 0; i <= runs; i++) {
        make_keys(h, 0, N, kb, B_UNIFORM);
        const double t0 = now_ms();
        st = rdx_sort_keys(ctx, h, N, type, NULL);
        const double t = now_ms() - t0;
        if (st != RDX_OK) {
            printf("host array: %s\n", rdx_ctx_error(ctx));
            break;
        }
        if (i == 0) {
            for (size_t j = 1; j < N; j++)
                if (key_less(h + j * kb, h + (j - 1) * kb, kb)) {
                    printf("host array: out of order at %zu\n", j);
                    st = RDX_ERR_INTERNAL;
                    break;
                }
        } else {
            ts[i - 1] = t;
        }
        if (st != RDX_OK)
            break;
    }
    for (int i = 0; st == RDX_OK && i < runs; i++) {
        copy_t c[MAX_GPUS];
        pthread_t tid[MAX_GPUS];
        pthread_barrier_init(&barrier, NULL, (unsigned)g);
        for (int j = 0; j < g; j++) {
            const size_t lo = N / (size_t)g * (size_t)j, hi = j == g - 1 ? N : N / (size_t)g * (size_t)(j + 1);
            c[j].dev = j;
            c[j].h = h + lo * kb;
            c[j].bytes = (hi - lo) * kb;
            pthread_create(&tid[j], NULL, copy_main, &c[j]);
        }
        double mx = 0;
        for (int j = 0; j < g; j++) {
            pthread_join(tid[j], NULL);
            mx = c[j].ms > mx ? c[j].ms : mx;
        }
        pthread_barrier_destroy(&barrier);
        tc[i] = mx;
    }
    if (st == RDX_OK) {
        const double s = median(ts, runs), c = median(tc, runs);
        printf("host array %s 2^%.2f keys on %d GPUs: sort %.1f ms, copy there and back %.1f ms, "
               "copy/sort = %.2f\n", type == RDX_U32 ? "u32" : "u64", __builtin_log2((double)N), g, s, c, c / s);
    }
    free(ts);
    rdx_ctx_destroy(ctx);
    cudaFreeHost(h);
}

int main(int argc, char **argv)
{
    int log2n = 28, runs = 10, host = 0, ngpu = 0;
    rdx_type type = RDX_U32;
    const char *gpus = NULL, *dists = "uniform,equal,sorted,giant", *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--log2n") && i + 1 < argc)
            log2n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--type") && i + 1 < argc)
            type = !strcmp(argv[++i], "u64") ? RDX_U64 : RDX_U32;
        else if (!strcmp(argv[i], "--gpus") && i + 1 < argc)
            gpus = argv[++i];
        else if (!strcmp(argv[i], "--dist") && i + 1 < argc)
            dists = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv_path = argv[++i];
        else if (!strcmp(argv[i], "--host"))
            host = 1;
        else {
            printf("usage: %s [--log2n N] [--type u32|u64] [--gpus 1,2,4] [--dist uniform,equal,sorted,giant] "
                   "[--runs R] [--host] [--csv file]\n", argv[0]);
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu < 1) {
        printf("no GPU\n");
        return 77;
    }
    int list[MAX_GPUS], nlist = 0;
    if (gpus) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", gpus);
        for (char *t = strtok(buf, ","); t && nlist < MAX_GPUS; t = strtok(NULL, ","))
            if (atoi(t) >= 1 && atoi(t) <= ngpu)
                list[nlist++] = atoi(t);
    } else {
        for (int g = 1; g <= ngpu && nlist < MAX_GPUS; g *= 2)
            list[nlist++] = g;
    }
    const size_t N = (size_t)1 << log2n;
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv)
        fprintf(csv, "type,dist,n,gpus,total_ms,splitters_ms,exchange_ms,local_sort_ms,one_gpu_ms\n");
    if (host) {
        for (int i = 0; i < nlist; i++)
            host_row(N, type, list[i], runs < 3 ? runs : 3);
        if (csv)
            fclose(csv);
        return 0;
    }
    printf("%-4s %-8s %-7s %4s %10s %10s %10s %10s %9s %8s\n", "type", "dist", "n", "gpus", "total ms",
           "splitter", "exchange", "local", "vs 1 GPU", "Mkeys/ms");
    char dbuf[128];
    snprintf(dbuf, sizeof dbuf, "%s", dists);
    for (char *t = strtok(dbuf, ","); t; t = strtok(NULL, ",")) {
        bdist d = B_UNIFORM;
        for (int k = 0; k < 4; k++)
            if (!strcmp(t, dist_names[k]))
                d = (bdist)k;
        const double one = single_gpu(N, type, d, runs);
        printf("%-4s %-8s 2^%-5d %4s %10.3f %43s\n", type == RDX_U32 ? "u32" : "u64", dist_names[d], log2n, "1*",
               one, "(one GPU, rdx_cuda_sort_keys_into_async)");
        for (int i = 0; i < nlist; i++)
            dist_row(N, type, d, list[i], runs, one, csv);
    }
    if (csv)
        fclose(csv);
    return 0;
}
