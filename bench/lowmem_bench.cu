/* rdx-lowmem-bench: the low-memory route (issue 12) against the normal route and CUB in one
 * run, and sorts that fill most of the card (see --help). Device arrays, the legacy default
 * stream, rdxsort's synchronous calls; L2 is not flushed (arrays of 2^24 keys and more). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "gpu_bench_peers.h"
#include "rdx.h"

#define LB_TOOL "rdx-lowmem-bench"
#include "lowmem_data.cuh"

/* The least free device memory seen while a sort runs (a host thread polls). */
typedef struct lb_watch {
    volatile int stop;
    size_t min_free;
    int device;
} lb_watch;

static void *lb_poll(void *p)
{
    lb_watch *w = (lb_watch *)p;
    cudaSetDevice(w->device);
    while (!w->stop) {
        size_t f = 0, t = 0;
        if (cudaMemGetInfo(&f, &t) == cudaSuccess && f < w->min_free)
            w->min_free = f;
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* One sort with the flags given, timed; *extra: the most device memory it took beyond
 * what was in use before (polled). Returns the status. */
static rdx_status lb_sort(rdx_ctx *ctx, const lb_case *c, void *k, void *v, size_t n, unsigned flags, double *ms,
                          size_t *extra)
{
    const rdx_opts o = {flags | c->flags, 0, 0, 0};
    cudaEvent_t e0, e1;
    LB_CUDA(cudaEventCreate(&e0));
    LB_CUDA(cudaEventCreate(&e1));
    LB_CUDA(cudaDeviceSynchronize());
    lb_watch w = {0, (size_t)-1, 0};
    size_t f0 = 0, t0 = 0;
    LB_CUDA(cudaGetDevice(&w.device));
    LB_CUDA(cudaMemGetInfo(&f0, &t0));
    pthread_t th;
    const int polled = extra && pthread_create(&th, NULL, lb_poll, &w) == 0;
    LB_CUDA(cudaEventRecord(e0, 0));
    const rdx_status s = c->argsort ? rdx_argsort(ctx, k, n, c->type, v, RDX_U32, &o)
                         : c->vb    ? rdx_sort_pairs(ctx, k, v, (size_t)c->vb, n, c->type, &o)
                                    : rdx_sort_keys(ctx, k, n, c->type, &o);
    LB_CUDA(cudaEventRecord(e1, 0));
    LB_CUDA(cudaEventSynchronize(e1));
    if (polled) {
        w.stop = 1;
        pthread_join(th, NULL);
        *extra = w.min_free < f0 ? f0 - w.min_free : 0;
    }
    float t = 0;
    LB_CUDA(cudaEventElapsedTime(&t, e0, e1));
    *ms = t;
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return s;
}

static int lb_verify(const lb_case *c, const void *k, const void *v, size_t n, unsigned long long want_sum,
                     unsigned long long *out)
{
    unsigned long long h[2];
    LB_CUDA(cudaMemset(out, 0, 2 * sizeof *out));
    lb_check<<<lb_grid(n), 256>>>(k, v, n, c->kb, c->vb, out);
    LB_CUDA(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    return h[0] == 0 && h[1] == want_sum;
}

static unsigned long long lb_sum(const lb_case *c, const void *k, size_t n, unsigned long long *out)
{
    unsigned long long h[2];
    LB_CUDA(cudaMemset(out, 0, 2 * sizeof *out));
    lb_check<<<lb_grid(n), 256>>>(k, NULL, n, c->kb, 0, out);
    LB_CUDA(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    return h[1];
}

static double lb_median(double *t, int k)
{
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

int main(int argc, char **argv)
{
    const char *types = "u32,u64,u32/u32", *sizes = "24,26,28", *dists = "uniform,bucket,few,equal";
    double fill = 0;
    int repeat = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) types = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--dist") && i + 1 < argc) dists = argv[++i];
        else if (!strcmp(argv[i], "--fill") && i + 1 < argc) fill = atof(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else {
            printf("usage: rdx-lowmem-bench [-t u32,u64,u32/u32,u64/u64,u64/u32,u32/v12,argsort/u32,f32/numpy]\n"
                   "         [-n LOG2,...]\n"
                   "         [--dist uniform,bucket,few,equal] [--repeat R] [--fill F]\n"
                   "  Without --fill: each case sorted by rdxsort's normal route, by RDX_LOW_MEMORY and by\n"
                   "  CUB SortKeys/SortPairs, median of R runs; the low-memory result checked against the\n"
                   "  normal one bit for bit; the most device memory the low-memory sort took beyond its\n"
                   "  arrays (cudaMemGetInfo polled by a host thread). u32/v12: 12-byte values;\n"
                   "  argsort/u32: rdx_argsort into u32 indices (CUB: u32/u32 pairs); f32/numpy: f32 keys\n"
                   "  of uniform bits (NaNs of many payloads, both zeros) under RDX_NUMPY_ORDER (CUB: f32).\n"
                   "  Those three: without --fill.\n"
                   "  --fill F: per case, arrays filling F of the free device memory (e.g. 0.9), sorted\n"
                   "  once by the synchronous call without the flag (it falls back to the low-memory route\n"
                   "  when the normal scratch does not fit), checked on the device (order, the keys' sum,\n"
                   "  each value a function of its key); G keys/s and the memory it took.\n");
            return 2;
        }
    }
    if (repeat < 1) repeat = 1;
    rdx_ctx *ctx = NULL;
    if (rdx_ctx_create(&ctx, RDX_BACKEND_CUDA) != RDX_OK) {
        printf("rdx-lowmem-bench: no CUDA context\n");
        return 2;
    }
    unsigned long long *out = NULL;
    LB_CUDA(cudaMalloc(&out, 2 * sizeof *out));
    struct cudaDeviceProp prop;
    LB_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s\n", prop.name);
    int failed = 0;
    char tbuf[256];
    snprintf(tbuf, sizeof tbuf, "%s", types);
    if (fill > 0) {
        printf("| case | dist | n | GB of arrays | share of free memory | ms | G keys/s | extra device MB | route | check |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|\n");
    } else {
        printf("| case | dist | n | normal ms | low-memory ms | low/normal speed | CUB ms | low-memory/CUB speed | "
               "extra device MB (low-memory) | check |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|\n");
    }
    char *tsave = NULL;
    for (char *ts = strtok_r(tbuf, ",", &tsave); ts; ts = strtok_r(NULL, ",", &tsave)) {
        lb_case c;
        if (lb_parse_case(ts, &c) || (fill > 0 && (c.argsort || c.flags || (c.vb != 0 && c.vb != 4 && c.vb != 8)))) {
            printf("rdx-lowmem-bench: unknown case %s%s\n", ts, fill > 0 ? " for --fill" : "");
            return 2;
        }
        const size_t r = (size_t)(c.kb + c.vb);
        char dbuf[128];
        snprintf(dbuf, sizeof dbuf, "%s", dists);
        char *dsave = NULL;
        for (char *ds = strtok_r(dbuf, ",", &dsave); ds; ds = strtok_r(NULL, ",", &dsave)) {
            const int dist = lb_parse_dist(ds);
            if (dist < 0) {
                printf("rdx-lowmem-bench: unknown distribution %s\n", ds);
                return 2;
            }
            if (fill > 0) {
                size_t f = 0, t = 0;
                LB_CUDA(cudaMemGetInfo(&f, &t));
                const size_t n = (size_t)((double)f * fill / (double)r);
                void *k = NULL, *v = NULL;
                LB_CUDA(cudaMalloc(&k, n * c.kb));
                if (c.vb) LB_CUDA(cudaMalloc(&v, n * c.vb));
                lb_fill<<<lb_grid(n), 256>>>(k, v, 0, n, c.kb, c.vb, dist, 12345);
                const unsigned long long sum = lb_sum(&c, k, n, out);
                double ms = 0;
                size_t extra = 0;
                const rdx_status s = lb_sort(ctx, &c, k, v, n, 0, &ms, &extra);
                const int ok = s == RDX_OK && lb_verify(&c, k, v, n, sum, out);
                failed |= !ok;
                printf("| %s | %s | %zu | %.1f | %.0f%% | %.1f | %.2f | %.0f | %s | %s |\n", c.name, dist_names[dist], n,
                       n * (double)r / 1e9, 100.0 * n * r / f, ms, n / ms / 1e6, extra / 1048576.0,
                       s == RDX_OK ? rdx_ctx_route(ctx) : rdx_ctx_error(ctx), ok ? "ok" : "WRONG");
                fflush(stdout);
                cudaFree(k);
                if (v) cudaFree(v);
                continue;
            }
            char sbuf[128];
            snprintf(sbuf, sizeof sbuf, "%s", sizes);
            char *ssave = NULL;
            for (char *ss = strtok_r(sbuf, ",", &ssave); ss; ss = strtok_r(NULL, ",", &ssave)) {
                const size_t n = (size_t)1 << atoi(ss);
                void *src_k = NULL, *src_v = NULL, *k = NULL, *v = NULL, *ref_k = NULL, *ref_v = NULL, *temp = NULL;
                size_t temp_bytes = 0;
                LB_CUDA(cudaMalloc(&src_k, n * c.kb));
                LB_CUDA(cudaMalloc(&k, n * c.kb));
                LB_CUDA(cudaMalloc(&ref_k, n * c.kb));
                if (c.vb) {
                    LB_CUDA(cudaMalloc(&src_v, n * c.vb));
                    LB_CUDA(cudaMalloc(&v, n * c.vb));
                    LB_CUDA(cudaMalloc(&ref_v, n * c.vb));
                }
                lb_fill<<<lb_grid(n), 256>>>(src_k, src_v, 0, n, c.kb, c.vb, dist, 777 + n);
                double tn[64], tl[64], tc[64];
                size_t extra = 0, e1 = 0;
                int ok = 1;
                if (repeat > 64) repeat = 64;
                /* The low-memory sorts on a context of their own, so that the scratch the
                 * first of them allocates is seen (the normal route's is larger). */
                rdx_ctx *lm = NULL;
                if (rdx_ctx_create(&lm, RDX_BACKEND_CUDA) != RDX_OK) {
                    printf("rdx-lowmem-bench: no CUDA context\n");
                    return 2;
                }
                for (int pass = 0; pass < 2; pass++) /* normal, then low memory */
                    for (int i = 0; i <= repeat; i++) {
                        LB_CUDA(cudaMemcpy(k, src_k, n * c.kb, cudaMemcpyDeviceToDevice));
                        if (c.vb) LB_CUDA(cudaMemcpy(v, src_v, n * c.vb, cudaMemcpyDeviceToDevice));
                        double ms = 0;
                        rdx_ctx *x = pass ? lm : ctx;
                        const rdx_status s = lb_sort(x, &c, k, v, n, pass ? RDX_LOW_MEMORY : 0u, &ms, pass ? &e1 : NULL);
                        if (s != RDX_OK) {
                            printf("rdx-lowmem-bench: %s\n", rdx_ctx_error(x));
                            ok = 0;
                        }
                        if (pass && e1 > extra) extra = e1;
                        if (i > 0) (pass ? tl : tn)[i - 1] = ms;
                        if (i == 0 && pass == 0) { /* the normal result is the reference */
                            LB_CUDA(cudaMemcpy(ref_k, k, n * c.kb, cudaMemcpyDeviceToDevice));
                            if (c.vb) LB_CUDA(cudaMemcpy(ref_v, v, n * c.vb, cudaMemcpyDeviceToDevice));
                        }
                    }
                rdx_ctx_destroy(lm);
                /* The last low-memory result against the normal one. */
                {
                    unsigned char *a = (unsigned char *)malloc(n * r), *b = (unsigned char *)malloc(n * r);
                    LB_CUDA(cudaMemcpy(a, k, n * c.kb, cudaMemcpyDeviceToHost));
                    LB_CUDA(cudaMemcpy(b, ref_k, n * c.kb, cudaMemcpyDeviceToHost));
                    if (c.vb) {
                        LB_CUDA(cudaMemcpy(a + n * c.kb, v, n * c.vb, cudaMemcpyDeviceToHost));
                        LB_CUDA(cudaMemcpy(b + n * c.kb, ref_v, n * c.vb, cudaMemcpyDeviceToHost));
                    }
                    ok = ok && memcmp(a, b, n * r) == 0;
                    free(a);
                    free(b);
                }
                /* CUB, from src into ref (no longer needed). */
                double cub = -1;
                if ((c.vb == 0 || c.vb == 4 || c.vb == 8) &&
                    rdx_gb_cub_temp_bytes(c.type, (unsigned)c.vb, n, &temp_bytes) == 0 &&
                    cudaMalloc(&temp, temp_bytes) == cudaSuccess) {
                    cudaEvent_t e0, e1e;
                    cudaEventCreate(&e0);
                    cudaEventCreate(&e1e);
                    for (int i = 0; i <= repeat; i++) {
                        cudaDeviceSynchronize();
                        cudaEventRecord(e0, 0);
                        rdx_gb_cub_sort(c.type, (unsigned)c.vb, temp, temp_bytes, src_k, ref_k, src_v, ref_v, n);
                        cudaEventRecord(e1e, 0);
                        cudaEventSynchronize(e1e);
                        float t = 0;
                        cudaEventElapsedTime(&t, e0, e1e);
                        if (i > 0) tc[i - 1] = t;
                    }
                    cub = lb_median(tc, repeat);
                    cudaFree(temp);
                    cudaEventDestroy(e0);
                    cudaEventDestroy(e1e);
                }
                const double mn = lb_median(tn, repeat), ml = lb_median(tl, repeat);
                failed |= !ok;
                printf("| %s | %s | 2^%s | %.3f | %.3f | %.2fx | %.3f | %.2fx | %.1f (arrays %.0f MB) | %s |\n", c.name,
                       dist_names[dist], ss, mn, ml, mn / ml, cub, cub / ml, extra / 1048576.0,
                       n * (double)r / 1048576.0, ok ? "ok" : "WRONG");
                fflush(stdout);
                cudaFree(src_k); cudaFree(k); cudaFree(ref_k);
                if (c.vb) { cudaFree(src_v); cudaFree(v); cudaFree(ref_v); }
            }
        }
    }
    rdx_ctx_destroy(ctx);
    return failed ? 1 : 0;
}
