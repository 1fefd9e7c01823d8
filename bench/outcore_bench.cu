/* rdx-outcore-bench: the out-of-core route (issue 12) on host arrays larger than the device
 * memory the library may use, against copying the same arrays to the device and back once
 * (see --help). The bench holds all but BUDGET of the free device memory, so the library
 * sees only that much; rdxsort's synchronous calls, no flag (they fall back to the route). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#define LB_TOOL "rdx-outcore-bench"
#include "cuda/test_hooks.h" /* --split: the route's split (outcore_split) */
#include "lowmem_data.cuh"
#include "rdx.h"

static double ob_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* kB of /proc/self/status's field (VmRSS, VmHWM); 0 if unreadable. */
static size_t ob_status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field)))
            kb = (size_t)strtoull(line + strlen(field) + 1, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

/* Restarts the peak-RSS count (VmHWM) at the current RSS. */
static void ob_reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

enum { OB_PIECE = 1 << 26 }; /* records per device piece when filling, copying, checking */

typedef struct ob_arrays {
    unsigned char *k, *v; /* host */
    size_t n;
    int kb, vb, pinned;
} ob_arrays;

/* Device buffers of one piece (keys with one key more, for the order check across pieces). */
static void ob_pieces(const ob_arrays *a, void **dk, void **dv)
{
    *dv = NULL;
    LB_CUDA(cudaMalloc(dk, ((size_t)OB_PIECE + 1) * a->kb));
    if (a->vb)
        LB_CUDA(cudaMalloc(dv, (size_t)OB_PIECE * a->vb));
}

/* Fills the host arrays piece by piece on the device; returns the keys' sum. */
static unsigned long long ob_fill(const ob_arrays *a, int dist, void *dk, void *dv, unsigned long long *out)
{
    unsigned long long sum = 0, h[2];
    for (size_t off = 0; off < a->n; off += OB_PIECE) {
        const size_t m = a->n - off < OB_PIECE ? a->n - off : OB_PIECE;
        lb_fill<<<lb_grid(m), 256>>>(dk, dv, off, m, a->kb, a->vb, dist, 4242);
        LB_CUDA(cudaMemset(out, 0, 2 * sizeof *out));
        lb_check<<<lb_grid(m), 256>>>(dk, NULL, m, a->kb, 0, out);
        LB_CUDA(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
        sum += h[1];
        LB_CUDA(cudaMemcpy(a->k + off * a->kb, dk, m * a->kb, cudaMemcpyDeviceToHost));
        if (a->vb)
            LB_CUDA(cudaMemcpy(a->v + off * a->vb, dv, m * a->vb, cudaMemcpyDeviceToHost));
    }
    return sum;
}

/* Order across the whole array (each piece with the next piece's first key), the keys'
 * sum, every value a function of its key. */
static int ob_check(const ob_arrays *a, unsigned long long want_sum, void *dk, void *dv, unsigned long long *out)
{
    unsigned long long bad = 0, sum = 0, h[2];
    for (size_t off = 0; off < a->n; off += OB_PIECE) {
        const size_t m = a->n - off < OB_PIECE ? a->n - off : OB_PIECE, m1 = off + m < a->n ? m + 1 : m;
        LB_CUDA(cudaMemcpy(dk, a->k + off * a->kb, m1 * a->kb, cudaMemcpyHostToDevice));
        if (a->vb)
            LB_CUDA(cudaMemcpy(dv, a->v + off * a->vb, m * a->vb, cudaMemcpyHostToDevice));
        LB_CUDA(cudaMemset(out, 0, 2 * sizeof *out));
        lb_check<<<lb_grid(m1), 256>>>(dk, NULL, m1, a->kb, 0, out); /* order, with the next key */
        LB_CUDA(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
        bad += h[0];
        LB_CUDA(cudaMemset(out, 0, 2 * sizeof *out));
        lb_check<<<lb_grid(m), 256>>>(dk, a->vb ? dv : NULL, m, a->kb, a->vb, out); /* sum, values */
        LB_CUDA(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
        bad += h[0];
        sum += h[1];
    }
    return bad == 0 && sum == want_sum;
}

/* The arrays to the device and back once, piece by piece through dk/dv: ms. */
static double ob_round_trip(const ob_arrays *a, void *dk, void *dv)
{
    LB_CUDA(cudaDeviceSynchronize());
    const double t0 = ob_now_ms();
    for (int back = 0; back < 2; back++)
        for (size_t off = 0; off < a->n; off += OB_PIECE) {
            const size_t m = a->n - off < OB_PIECE ? a->n - off : OB_PIECE;
            if (back) {
                LB_CUDA(cudaMemcpy(a->k + off * a->kb, dk, m * a->kb, cudaMemcpyDeviceToHost));
                if (a->vb)
                    LB_CUDA(cudaMemcpy(a->v + off * a->vb, dv, m * a->vb, cudaMemcpyDeviceToHost));
            } else {
                LB_CUDA(cudaMemcpy(dk, a->k + off * a->kb, m * a->kb, cudaMemcpyHostToDevice));
                if (a->vb)
                    LB_CUDA(cudaMemcpy(dv, a->v + off * a->vb, m * a->vb, cudaMemcpyHostToDevice));
            }
        }
    LB_CUDA(cudaDeviceSynchronize());
    return ob_now_ms() - t0;
}

int main(int argc, char **argv)
{
    const char *types = "u32,u64", *dists = "uniform", *kinds = "pinned,pageable", *splits = "sampled";
    double budget_gb = 8, ratio = 1.5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) types = argv[++i];
        else if (!strcmp(argv[i], "--dist") && i + 1 < argc) dists = argv[++i];
        else if (!strcmp(argv[i], "--memory") && i + 1 < argc) kinds = argv[++i];
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc) budget_gb = atof(argv[++i]);
        else if (!strcmp(argv[i], "--ratio") && i + 1 < argc) ratio = atof(argv[++i]);
        else if (!strcmp(argv[i], "--split") && i + 1 < argc) splits = argv[++i];
        else {
            printf("usage: rdx-outcore-bench [-t u32,u64,u32/u32,u64/u64,u64/u32] [--dist uniform,bucket,few,equal]\n"
                   "         [--memory pinned,pageable] [--budget GB] [--ratio R] [--split sampled,exact]\n"
                   "  Host arrays of R (1.5) times BUDGET (8) GB, page-locked (cudaMallocHost) or pageable\n"
                   "  (malloc). The bench holds the device's free memory but BUDGET GB (a BUDGET above the\n"
                   "  free memory leaves the library the whole card), then sorts once\n"
                   "  with rdx_sort_keys / rdx_sort_pairs (no flag: the normal route does not fit, the\n"
                   "  out-of-core route runs with what is free). Against it: the arrays copied to the device\n"
                   "  and back once (cudaMemcpy, 2^26-record pieces). Checked on the device: order, the keys'\n"
                   "  sum, each value a function of its key. Peak RSS: the process's VmHWM during the sort\n"
                   "  beyond its RSS before it. --split: how the route splits a segment: from a sample of\n"
                   "  the keys (the library's way), or exactly, from a histogram streamed over PCIe (a\n"
                   "  test hook; for comparison in the same run).\n");
            return 2;
        }
    }
    rdx_ctx *ctx = NULL;
    if (rdx_ctx_create(&ctx, RDX_BACKEND_CUDA) != RDX_OK) {
        printf("rdx-outcore-bench: no CUDA context\n");
        return 2;
    }
    struct cudaDeviceProp prop;
    LB_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %.1f GB\n", prop.name, prop.totalGlobalMem / 1e9);
    printf("| case | dist | memory | split | n | GB of arrays | device budget GB | sort ms | G keys/s | copy there and back ms | "
           "copy/sort speed | extra host MB (peak RSS) | route | check |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    unsigned long long *out = NULL;
    LB_CUDA(cudaMalloc(&out, 2 * sizeof *out));
    int failed = 0;
    char tbuf[128], dbuf[128], mbuf[64], sbuf[64];
    snprintf(tbuf, sizeof tbuf, "%s", types);
    char *tsave = NULL;
    for (char *ts = strtok_r(tbuf, ",", &tsave); ts; ts = strtok_r(NULL, ",", &tsave)) {
        lb_case c;
        if (lb_parse_case(ts, &c) || c.argsort || c.flags || (c.vb != 0 && c.vb != 4 && c.vb != 8)) {
            printf("rdx-outcore-bench: unknown case %s\n", ts);
            return 2;
        }
        snprintf(dbuf, sizeof dbuf, "%s", dists);
        char *dsave = NULL;
        for (char *ds = strtok_r(dbuf, ",", &dsave); ds; ds = strtok_r(NULL, ",", &dsave)) {
            const int dist = lb_parse_dist(ds);
            if (dist < 0) {
                printf("rdx-outcore-bench: unknown distribution %s\n", ds);
                return 2;
            }
            snprintf(mbuf, sizeof mbuf, "%s", kinds);
            char *msave = NULL;
            for (char *ms = strtok_r(mbuf, ",", &msave); ms; ms = strtok_r(NULL, ",", &msave)) {
                ob_arrays a = {NULL, NULL, 0, c.kb, c.vb, !strcmp(ms, "pinned")};
                const size_t r = (size_t)(a.kb + a.vb), budget = (size_t)(budget_gb * 1e9);
                a.n = (size_t)(budget * ratio / r);
                if (a.pinned) {
                    LB_CUDA(cudaMallocHost((void **)&a.k, a.n * a.kb));
                    if (a.vb) LB_CUDA(cudaMallocHost((void **)&a.v, a.n * a.vb));
                } else {
                    a.k = (unsigned char *)malloc(a.n * a.kb);
                    a.v = a.vb ? (unsigned char *)malloc(a.n * a.vb) : NULL;
                    if (!a.k || (a.vb && !a.v)) {
                        printf("rdx-outcore-bench: no host memory for %zu records\n", a.n);
                        return 2;
                    }
                }
                void *dk = NULL, *dv = NULL;
                ob_pieces(&a, &dk, &dv);
                const unsigned long long sum = ob_fill(&a, dist, dk, dv, out);
                const double copy_ms = ob_round_trip(&a, dk, dv);
                cudaFree(dk);
                if (dv) cudaFree(dv);
                snprintf(sbuf, sizeof sbuf, "%s", splits);
                char *ssave = NULL;
                for (char *ss = strtok_r(sbuf, ",", &ssave); ss; ss = strtok_r(NULL, ",", &ssave)) {
                    if (strcmp(ss, "sampled") && strcmp(ss, "exact")) {
                        printf("rdx-outcore-bench: unknown split %s\n", ss);
                        return 2;
                    }
                    rdx_cuda_ctx_tuning(ctx)->outcore_split = !strcmp(ss, "exact");
                    ob_pieces(&a, &dk, &dv);
                    (void)ob_fill(&a, dist, dk, dv, out); /* the same data for every sort */
                    cudaFree(dk);
                    if (dv) cudaFree(dv);
                    /* Hold all but the budget. */
                    size_t f = 0, tot = 0;
                    LB_CUDA(cudaMemGetInfo(&f, &tot));
                    void *ballast = NULL;
                    if (f > budget)
                        LB_CUDA(cudaMalloc(&ballast, f - budget));
                    const size_t avail = f > budget ? budget : f; /* what the library may use */
                    const rdx_opts o = {0, 0, 0, 0};
                    const size_t rss0 = ob_status_kb("VmRSS:");
                    ob_reset_peak();
                    const double t0 = ob_now_ms();
                    const rdx_status s = a.vb ? rdx_sort_pairs(ctx, a.k, a.v, (size_t)a.vb, a.n, c.type, &o)
                                              : rdx_sort_keys(ctx, a.k, a.n, c.type, &o);
                    const double sort_ms = ob_now_ms() - t0;
                    const size_t hwm = ob_status_kb("VmHWM:");
                    char route[128];
                    snprintf(route, sizeof route, "%s", s == RDX_OK ? rdx_ctx_route(ctx) : rdx_ctx_error(ctx));
                    rdx_ctx_destroy(ctx); /* gives its scratch back for the check */
                    if (rdx_ctx_create(&ctx, RDX_BACKEND_CUDA) != RDX_OK) {
                        printf("rdx-outcore-bench: no CUDA context\n");
                        return 2;
                    }
                    if (ballast) cudaFree(ballast);
                    ob_pieces(&a, &dk, &dv);
                    const int ok = s == RDX_OK && ob_check(&a, sum, dk, dv, out);
                    cudaFree(dk);
                    if (dv) cudaFree(dv);
                    failed |= !ok;
                    printf("| %s | %s | %s | %s | %zu | %.1f | %.1f | %.1f | %.2f | %.1f | %.2fx | %.0f | %s | %s |\n",
                           c.name, dist_names[dist], a.pinned ? "page-locked" : "pageable", ss, a.n,
                           a.n * (double)r / 1e9, avail / 1e9, sort_ms, a.n / sort_ms / 1e6, copy_ms,
                           copy_ms / sort_ms, hwm > rss0 ? (hwm - rss0) / 1024.0 : 0.0, route, ok ? "ok" : "WRONG");
                    fflush(stdout);
                }
                if (a.pinned) {
                    cudaFreeHost(a.k);
                    if (a.v) cudaFreeHost(a.v);
                } else {
                    free(a.k);
                    free(a.v);
                }
            }
        }
    }
    rdx_ctx_destroy(ctx);
    return failed ? 1 : 0;
}
