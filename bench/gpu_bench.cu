/* The GPU benchmark: rdxsort against CUB DeviceRadixSort, thrust::sort and a device-to-
 * device copy, in the same run on the same buffers (DESIGN.md section 5).
 *
 * Per case (key type, values, distribution, n), on the legacy default stream:
 *   src  the pristine input, generated on the device;
 *   ref  CUB's output (CUB sorts src -> ref, so src stays pristine), which is the oracle;
 *        for float keys the oracle is CUB run on the keys' unsigned images, because CUB
 *        treats -0.0 and +0.0 as equal while rdxsort follows IEEE totalOrder;
 *   work rdxsort's in-place buffer, restored from src before every run, outside the timing.
 * rdxsort runs twice: through rdx.h (synchronous; its own stream, scratch in the context)
 * and, where rdx_cuda.h exists, through its stream-ordered entry points ("async": the
 * caller's stream and temporary storage, allocated outside the timing).
 * Each measurement: warm-up runs, then `repeat` runs timed by CUDA events around the sort
 * alone; the median is reported. rdxsort's result is checked against the oracle after the
 * first and the last run. The table comes last. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "peers.h"
#if __has_include("rdx_cuda.h")
#include "rdx_cuda.h"
#define GB_HAVE_ASYNC 1 /* the stream-ordered entry points: timed as "async" */
#else
#define GB_HAVE_ASYNC 0
#endif
#include "gpu_bench.h"
#include "gpu_bench_data.h"
#include "gpu_bench_peers.h"
#include "gpu_bench_tune.h"

/* Bytes for the bandwidth ceiling: 1 GiB, copied device to device (read + write). */
#define GB_COPY_BYTES ((size_t)1 << 30)
/* u64/u64 pairs at most 2^27: five buffers of 2 GiB each are plenty on any card. */
#define GB_MAX_LOG2N_WIDE_PAIRS 27
/* Headroom kept free on the device, besides the buffers we can count (CUB's and
 * rdxsort's scratch are estimated as one more copy of the data each). */
#define GB_MEM_SLACK ((size_t)512 << 20)

typedef struct gb_row {
    rdx_gpu_case c;
    int dist;
    size_t n;
    double rdx_ms, async_ms, cub_ms, thrust_ms;  /* < 0: not measured */
    int failed;                                  /* a wrong result or an error */
    int skipped;                                 /* did not fit in device memory */
    char route[64];                              /* rdx_ctx_route after the synchronous sort */
    char note[256];
} gb_row;

/* Everything one case's measurements share. */
typedef struct gb_job {
    rdx_gpu_case c;
    size_t n, kbytes, vbytes;             /* bytes of the keys and of the values */
    void *src_k, *src_v, *work_k, *work_v, *ref_k, *ref_v;
    void *temp;                           /* CUB's temporary storage */
    size_t temp_bytes;
    void *atemp;                          /* rdxsort's, for the stream-ordered entry points */
    size_t atemp_bytes;
    rdx_ctx *ctx;
    const char *tune;                     /* rdx_gpu_bench_opts.tune */
    char msg[256];                        /* the last error, for the row's note */
} gb_job;

typedef struct gb_env {
    const rdx_gpu_bench_opts *o;
    FILE *out, *csv;
    cudaEvent_t ev0, ev1;
    float *times;
    void *counters;                       /* device scratch for rdx_gb_verify */
    double copy_gbs;
    char gpu[320];
} gb_env;

/* ---- helpers ---- */

static double gb_bytes_per_key(const rdx_gpu_case *c)
{
    /* DESIGN.md section 1, 8-bit digits: an up-front histogram reads every key once, then
     * one pass per key byte reads and writes keys and values: w + w * 2 * (w + v). */
    double w = (double)rdx_type_size(c->key), v = (double)c->value_bytes;
    return w + w * 2.0 * (w + v);
}

static int gb_is_float(rdx_type t) { return t == RDX_F16 || t == RDX_BF16 || t == RDX_F32 || t == RDX_F64; }

static rdx_type gb_unsigned_of(rdx_type t)
{
    switch (rdx_type_size(t)) {
    case 1: return RDX_U8;
    case 2: return RDX_U16;
    case 4: return RDX_U32;
    default: return RDX_U64;
    }
}

static void gb_size_name(size_t n, char *buf, size_t len)
{
    if (n && (n & (n - 1)) == 0) {
        int k = 0;
        while (((size_t)1 << k) != n) k++;
        snprintf(buf, len, "2^%d", k);
    } else {
        snprintf(buf, len, "%zu", n);
    }
}

static int gb_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double gb_median(float *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, gb_cmp_float);
    return k % 2 ? t[k / 2] : 0.5 * ((double)t[k / 2 - 1] + t[k / 2]);
}

static int gb_cuda(gb_job *j, cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 0;
    snprintf(j->msg, sizeof j->msg, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

static int gb_peer(gb_job *j, int rc, const char *what)
{
    if (rc == 0) return 0;
    if (rc == -1) snprintf(j->msg, sizeof j->msg, "%s: not built for this case", what);
    else snprintf(j->msg, sizeof j->msg, "%s: %s", what, cudaGetErrorString((cudaError_t)rc));
    return -1;
}

/* ---- the steps that get timed, and what runs between them ---- */

typedef int (*gb_step)(gb_job *j);

static int gb_restore(gb_job *j)
{
    if (gb_cuda(j, cudaMemcpy(j->work_k, j->src_k, j->kbytes, cudaMemcpyDeviceToDevice), "restore keys"))
        return -1;
    if (j->vbytes &&
        gb_cuda(j, cudaMemcpy(j->work_v, j->src_v, j->vbytes, cudaMemcpyDeviceToDevice), "restore values"))
        return -1;
    return 0;
}

static int gb_run_cub(gb_job *j)
{
    return gb_peer(j, rdx_gb_cub_sort(j->c.key, j->c.value_bytes, j->temp, j->temp_bytes, j->src_k,
                                      j->ref_k, j->src_v, j->ref_v, j->n), "CUB");
}

static int gb_run_rdx(gb_job *j)
{
    rdx_status s = j->c.value_bytes
        ? rdx_sort_pairs(j->ctx, j->work_k, j->work_v, j->c.value_bytes, j->n, j->c.key, NULL)
        : rdx_sort_keys(j->ctx, j->work_k, j->n, j->c.key, NULL);
    if (s == RDX_OK) return 0;
    snprintf(j->msg, sizeof j->msg, "rdxsort: %s: %s", rdx_status_string(s), rdx_ctx_error(j->ctx));
    return -1;
}

#if GB_HAVE_ASYNC
static int gb_run_async(gb_job *j)
{
    rdx_status s = j->c.value_bytes
        ? rdx_cuda_sort_pairs_async(j->ctx, j->work_k, j->work_v, j->c.value_bytes, j->n, j->c.key, NULL,
                                    j->atemp, j->atemp_bytes, (cudaStream_t)0)
        : rdx_cuda_sort_keys_async(j->ctx, j->work_k, j->n, j->c.key, NULL, j->atemp, j->atemp_bytes,
                                   (cudaStream_t)0);
    if (s == RDX_OK) return 0;
    snprintf(j->msg, sizeof j->msg, "rdxsort async: %s: %s", rdx_status_string(s), rdx_ctx_error(j->ctx));
    return -1;
}
#endif

static int gb_run_thrust(gb_job *j)
{
    return gb_peer(j, rdx_gb_thrust_sort(j->c.key, j->work_k, j->n), "thrust::sort");
}

/* Runs warm-up + repeat rounds of prep (untimed) and run (timed); check (untimed) after
 * the first and the last round. *ms = the median of the timed rounds. */
static int gb_time(gb_env *e, gb_job *j, gb_step prep, gb_step run, gb_step check, double *ms)
{
    int rounds = e->o->warmup + e->o->repeat, r, k = 0;
    for (r = 0; r < rounds; r++) {
        float t = 0;
        int rc;
        if (prep && prep(j)) return -1;
        if (gb_cuda(j, cudaDeviceSynchronize(), "before the timed run")) return -1;
        cudaEventRecord(e->ev0, 0);
        rc = run(j);
        cudaEventRecord(e->ev1, 0);
        if (gb_cuda(j, cudaEventSynchronize(e->ev1), "after the timed run")) return -1;
        if (rc) return -1;
        cudaEventElapsedTime(&t, e->ev0, e->ev1);
        if (r >= e->o->warmup) e->times[k++] = t;
        if (check && (r == 0 || r == rounds - 1) && check(j)) return -1;
    }
    *ms = gb_median(e->times, k);
    return 0;
}

/* ---- checks ---- */

static gb_env *gb_check_env; /* the check steps take only the job */

/* Compares a result with the oracle (ref); "what" names the sorter in the message. */
static int gb_verify(gb_job *j, const void *k, const void *v, const void *ok, const void *ov,
                     const char *what)
{
    rdx_gb_verdict d;
    int rc = rdx_gb_verify(k, v, ok, ov, j->n, j->c.key, j->c.value_bytes, gb_check_env->counters, &d);
    if (rc) return gb_peer(j, rc, "verify");
    if (d.key_mismatch || d.value_mismatch || d.unsorted) {
        snprintf(j->msg, sizeof j->msg,
                 "WRONG %s: %llu keys and %llu values differ from CUB's, %llu out of order, "
                 "first at %llu", what, d.key_mismatch, d.value_mismatch, d.unsorted, d.first_bad);
        return -1;
    }
    return 0;
}

static int gb_check_rdx(gb_job *j) { return gb_verify(j, j->work_k, j->work_v, j->ref_k, j->ref_v, "rdxsort"); }
static int gb_check_async(gb_job *j) { return gb_verify(j, j->work_k, j->work_v, j->ref_k, j->ref_v, "rdxsort async"); }
static int gb_check_thrust(gb_job *j) { return gb_verify(j, j->work_k, NULL, j->ref_k, NULL, "thrust::sort"); }
static int gb_check_oracle(gb_job *j) { return gb_verify(j, j->ref_k, NULL, NULL, NULL, "CUB (the oracle)"); }

/* For float keys: ref = CUB's sort of the keys' unsigned images, mapped back. */
static int gb_float_oracle(gb_job *j)
{
    rdx_type u = gb_unsigned_of(j->c.key);
    if (j->vbytes &&
        gb_cuda(j, cudaMemcpy(j->work_v, j->src_v, j->vbytes, cudaMemcpyDeviceToDevice), "copy values"))
        return -1;
    if (gb_peer(j, rdx_gb_encode(j->work_k, j->src_k, j->n, j->c.key), "encode")) return -1;
    if (gb_peer(j, rdx_gb_cub_sort(u, j->c.value_bytes, j->temp, j->temp_bytes, j->work_k, j->ref_k,
                                   j->work_v, j->ref_v, j->n), "CUB (oracle)"))
        return -1;
    if (gb_peer(j, rdx_gb_decode(j->ref_k, j->n, j->c.key), "decode")) return -1;
    return gb_cuda(j, cudaDeviceSynchronize(), "oracle");
}

/* ---- one case ---- */

static void gb_free(void **p)
{
    if (*p) cudaFree(*p);
    *p = NULL;
}

static void gb_release(gb_job *j)
{
    gb_free(&j->src_k); gb_free(&j->src_v); gb_free(&j->work_k); gb_free(&j->work_v);
    gb_free(&j->ref_k); gb_free(&j->ref_v); gb_free(&j->temp); gb_free(&j->atemp);
    if (j->ctx) rdx_ctx_destroy(j->ctx);
    j->ctx = NULL;
}

static int gb_alloc(gb_job *j, void **p, size_t bytes, const char *what)
{
    return gb_cuda(j, cudaMalloc(p, bytes ? bytes : 1), what);
}

static int gb_new_ctx(gb_job *j)
{
    rdx_status s;
    if (j->ctx) rdx_ctx_destroy(j->ctx);
    j->ctx = NULL;
    if ((s = rdx_ctx_create(&j->ctx, RDX_BACKEND_CUDA)) == RDX_OK) {
        rdx_gpu_bench_tune_apply(j->ctx, j->tune);
        return 0;
    }
    snprintf(j->msg, sizeof j->msg, "rdx_ctx_create(CUDA): %s", rdx_status_string(s));
    return -1;
}

#if GB_HAVE_ASYNC
/* The stream-ordered path on the legacy default stream, temporary storage allocated here. */
static int gb_time_async(gb_env *e, gb_job *j, double *ms)
{
    rdx_status s = j->c.value_bytes
        ? rdx_cuda_sort_pairs_temp_size(j->ctx, j->c.value_bytes, j->n, j->c.key, NULL, &j->atemp_bytes)
        : rdx_cuda_sort_keys_temp_size(j->ctx, j->n, j->c.key, NULL, &j->atemp_bytes);
    if (s != RDX_OK) {
        snprintf(j->msg, sizeof j->msg, "rdxsort async temp size: %s: %s", rdx_status_string(s),
                 rdx_ctx_error(j->ctx));
        return -1;
    }
    if (gb_alloc(j, &j->atemp, j->atemp_bytes, "cudaMalloc (rdxsort temp)")) return -1;
    if (gb_time(e, j, gb_restore, gb_run_async, gb_check_async, ms)) return -1;
    gb_free(&j->atemp);
    return 0;
}
#endif

/* Measures one row; on failure sets row->failed (or row->skipped) and row->note. */
static void gb_measure(gb_env *e, gb_row *row)
{
    gb_job j;
    size_t temp2 = 0, free_b = 0, total_b = 0, need;
    int flt = gb_is_float(row->c.key);
    memset(&j, 0, sizeof j);
    j.c = row->c;
    j.n = row->n;
    j.tune = e->o->tune;
    j.kbytes = j.n * rdx_type_size(j.c.key);
    j.vbytes = j.n * j.c.value_bytes;
    row->rdx_ms = row->async_ms = row->cub_ms = row->thrust_ms = -1;

    if (gb_peer(&j, rdx_gb_cub_temp_bytes(j.c.key, j.c.value_bytes, j.n, &j.temp_bytes), "CUB size query") ||
        (flt && gb_peer(&j, rdx_gb_cub_temp_bytes(gb_unsigned_of(j.c.key), j.c.value_bytes, j.n, &temp2),
                        "CUB size query")))
        goto fail;
    if (temp2 > j.temp_bytes) j.temp_bytes = temp2;
    /* src, work, ref, CUB's temp, and about one more copy for rdxsort's scratch. */
    need = 4 * (j.kbytes + j.vbytes) + j.temp_bytes + GB_MEM_SLACK;
    cudaMemGetInfo(&free_b, &total_b);
    if (need > free_b) {
        row->skipped = 1;
        snprintf(row->note, sizeof row->note, "SKIP: needs about %.1f GiB, %.1f GiB free",
                 need / 1073741824.0, free_b / 1073741824.0);
        return;
    }
    if (gb_alloc(&j, &j.src_k, j.kbytes, "cudaMalloc") || gb_alloc(&j, &j.work_k, j.kbytes, "cudaMalloc") ||
        gb_alloc(&j, &j.ref_k, j.kbytes, "cudaMalloc") || gb_alloc(&j, &j.temp, j.temp_bytes, "cudaMalloc"))
        goto fail;
    if (j.vbytes && (gb_alloc(&j, &j.src_v, j.vbytes, "cudaMalloc") || gb_alloc(&j, &j.work_v, j.vbytes, "cudaMalloc") ||
                     gb_alloc(&j, &j.ref_v, j.vbytes, "cudaMalloc")))
        goto fail;
    if (gb_peer(&j, rdx_gb_fill_keys(j.src_k, j.n, j.c.key, row->dist, e->o->seed), "generate keys") ||
        (j.vbytes && gb_peer(&j, rdx_gb_fill_values(j.src_v, j.n, j.c.value_bytes), "generate values")) ||
        gb_cuda(&j, cudaDeviceSynchronize(), "generate"))
        goto fail;

    /* CUB with 64-bit and 32-bit counts, the faster kept (rdx_gb_cub_count_bits), then the
     * oracle (CUB's own result, or for floats its sort of unsigned images). */
    rdx_gb_cub_count_bits(64);
    if (gb_time(e, &j, NULL, gb_run_cub, NULL, &row->cub_ms)) goto fail;
    if (j.n <= (size_t)INT32_MAX) {
        double narrow_ms = -1;
        rdx_gb_cub_count_bits(32);
        const int rc = gb_time(e, &j, NULL, gb_run_cub, NULL, &narrow_ms);
        rdx_gb_cub_count_bits(64);
        if (rc) goto fail;
        if (narrow_ms < row->cub_ms) row->cub_ms = narrow_ms;
    }
    if (flt && gb_float_oracle(&j)) goto fail;
    if (gb_check_oracle(&j)) goto fail;
    gb_free(&j.temp); /* CUB is done: leave the room to rdxsort */

    /* rdxsort, public API, device arrays, a fresh CUDA context (scratch freed after). */
    if (gb_new_ctx(&j) || gb_time(e, &j, gb_restore, gb_run_rdx, gb_check_rdx, &row->rdx_ms)) goto fail;
    snprintf(row->route, sizeof row->route, "%s", rdx_ctx_route(j.ctx));
#if GB_HAVE_ASYNC
    /* A fresh context again, so that the first one's scratch is not held meanwhile. */
    if (gb_new_ctx(&j) || gb_time_async(e, &j, &row->async_ms)) goto fail;
#endif
    rdx_ctx_destroy(j.ctx);
    j.ctx = NULL;

    /* thrust::sort where built (keys only; it allocates its own scratch on every call). */
    if (!j.vbytes && rdx_gb_thrust_supports(j.c.key) &&
        gb_time(e, &j, gb_restore, gb_run_thrust, gb_check_thrust, &row->thrust_ms))
        goto fail;

    gb_release(&j);
    return;
fail:
    row->failed = 1;
    snprintf(row->note, sizeof row->note, "%s", j.msg);
    gb_release(&j);
    cudaGetLastError(); /* clear a non-sticky error so that later cases still run */
}

/* ---- output ---- */

static double gb_rate(const gb_row *r, double ms) { return ms > 0 ? (double)r->n / ms / 1e6 : 0; }

/* CUB's time over rdxsort's `ms` (both measured), else 0. */
static double gb_over_cub(const gb_row *r, double ms) { return ms > 0 && r->cub_ms > 0 ? r->cub_ms / ms : 0; }

static void gb_ratio(FILE *f, double x)
{
    if (x > 0) fprintf(f, " %6.2fx", x);
    else fprintf(f, " %7s", "-");
}

static void gb_csv_header(FILE *csv)
{
    fprintf(csv, "gpu,case,key,value_bytes,dist,n,rdx_ms,rdx_gkeys,async_ms,async_gkeys,cub_ms,"
                 "cub_gkeys,thrust_ms,thrust_gkeys,rdx_over_cub,bytes_per_key,rdx_gbs,rdx_copy_share,"
                 "cub_gbs,cub_copy_share,copy_gbs,check,route,async_over_cub\n");
}

static const char *gb_check_word(const gb_row *r)
{
    return r->skipped ? "SKIP" : r->failed ? (strncmp(r->note, "WRONG", 5) == 0 ? "WRONG" : "ERROR") : "ok";
}

static void gb_csv_row(const gb_env *e, const gb_row *r)
{
    char name[32];
    double bpk = gb_bytes_per_key(&r->c);
    double rg = gb_rate(r, r->rdx_ms), cg = gb_rate(r, r->cub_ms);
    rdx_gpu_bench_case_name(&r->c, name, sizeof name);
    fprintf(e->csv, "\"%s\",%s,%s,%u,%s,%zu,%.6f,%.4f,%.6f,%.4f,%.6f,%.4f,%.6f,%.4f,%.4f,%.0f,%.2f,%.4f,%.2f,%.4f,%.2f,%s,\"%s\",%.4f\n",
            e->gpu, name, rdx_gpu_bench_type_name(r->c.key), r->c.value_bytes, rdx_gpu_bench_dist_name(r->dist), r->n,
            r->rdx_ms, rg, r->async_ms, gb_rate(r, r->async_ms), r->cub_ms, cg, r->thrust_ms,
            gb_rate(r, r->thrust_ms), gb_over_cub(r, r->rdx_ms), bpk, rg * bpk,
            e->copy_gbs > 0 ? rg * bpk / e->copy_gbs : 0.0, cg * bpk,
            e->copy_gbs > 0 ? cg * bpk / e->copy_gbs : 0.0, e->copy_gbs, gb_check_word(r), r->route,
            gb_over_cub(r, r->async_ms));
    fflush(e->csv);
}

static void gb_ms(FILE *f, double ms, int width)
{
    if (ms > 0) fprintf(f, " %*.3f", width, ms);
    else fprintf(f, " %*s", width, "-");
}

static void gb_table(const gb_env *e, const gb_row *rows, size_t nrows)
{
    FILE *f = e->out;
    size_t i, bad = 0, skipped = 0;
    fprintf(f, "\n# rdxsort GPU benchmark results\n");
    fprintf(f, "# %s; copy %.0f GB/s; median of %d runs after %d warm-ups; seed %llu\n", e->gpu,
            e->copy_gbs, e->o->repeat, e->o->warmup, (unsigned long long)e->o->seed);
    fprintf(f, "# rdx: rdx.h's synchronous call on device arrays (until it returns: its wait for the "
               "stream included); async: rdx_cuda.h on the stream, timed as CUB (enqueue to end of work); "
               "thrust::sort allocates its scratch inside the timing\n");
    fprintf(f, "# Gk/s = 1e9 keys (or pairs) per second; GB/s by DESIGN.md section 1's model "
               "(B/key: u32 36, u32/u32 68, u64 136, u64/u64 264); %%copy = that over the copy rate\n");
    fprintf(f, "%-8s %-10s %6s %9s %8s %9s %9s %8s %9s %7s %7s %8s %6s %6s  %-5s  %s\n", "case", "dist", "n",
            "rdx ms", "rdx Gk/s", "async ms", "CUB ms", "CUB Gk/s", "thrust ms", "rdx/CUB", "asy/CUB",
            "rdx GB/s", "%copy", "CUB%", "check", "route");
    for (i = 0; i < nrows; i++) {
        const gb_row *r = &rows[i];
        char name[32], nn[24];
        double bpk = gb_bytes_per_key(&r->c), rg = gb_rate(r, r->rdx_ms), cg = gb_rate(r, r->cub_ms);
        rdx_gpu_bench_case_name(&r->c, name, sizeof name);
        gb_size_name(r->n, nn, sizeof nn);
        fprintf(f, "%-8s %-10s %6s", name, rdx_gpu_bench_dist_name(r->dist), nn);
        gb_ms(f, r->rdx_ms, 9);
        fprintf(f, " %8.2f", rg);
        gb_ms(f, r->async_ms, 9);
        gb_ms(f, r->cub_ms, 9);
        fprintf(f, " %8.2f", cg);
        gb_ms(f, r->thrust_ms, 9);
        gb_ratio(f, gb_over_cub(r, r->rdx_ms));
        gb_ratio(f, gb_over_cub(r, r->async_ms));
        fprintf(f, " %8.0f %5.0f%% %5.0f%%  %-5s  %s\n", rg * bpk,
                e->copy_gbs > 0 ? 100 * rg * bpk / e->copy_gbs : 0.0,
                e->copy_gbs > 0 ? 100 * cg * bpk / e->copy_gbs : 0.0, gb_check_word(r), r->route);
        bad += r->failed;
        skipped += r->skipped;
    }
    if (bad) {
        fprintf(f, "\n%zu of %zu measurements FAILED:\n", bad, nrows);
        for (i = 0; i < nrows; i++) {
            char name[32], nn[24];
            if (!rows[i].failed) continue;
            rdx_gpu_bench_case_name(&rows[i].c, name, sizeof name);
            gb_size_name(rows[i].n, nn, sizeof nn);
            fprintf(f, "  %s %s n=%s: %s\n", name, rdx_gpu_bench_dist_name(rows[i].dist), nn, rows[i].note);
        }
    } else {
        fprintf(f, "\nall %zu rdxsort results verified against CUB%s\n", nrows - skipped,
                skipped ? " (some cases skipped: not enough device memory)" : "");
    }
}

/* ---- the run ---- */

static int gb_copy_rate(gb_env *e)
{
    size_t bytes = GB_COPY_BYTES;
    void *a = NULL, *b = NULL;
    gb_job j;
    memset(&j, 0, sizeof j);
    while (bytes >= ((size_t)64 << 20)) {
        if (cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess) break;
        if (a) cudaFree(a);
        a = b = NULL;
        cudaGetLastError();
        bytes /= 2;
    }
    if (!a) return -1;
    cudaMemset(a, 1, bytes);
    j.src_k = a;
    j.work_k = b;
    j.kbytes = bytes;
    {
        double ms = 0;
        int rc = gb_time(e, &j, NULL, gb_restore, NULL, &ms);
        if (!rc) {
            e->copy_gbs = 2.0 * (double)bytes / ms / 1e6;
            fprintf(e->out, "device-to-device copy of %zu MiB: %.3f ms, %.0f GB/s (read + write)\n",
                    bytes >> 20, ms, e->copy_gbs);
        }
        cudaFree(a);
        cudaFree(b);
        return rc;
    }
}

/* The sizes of one case: u64/u64 pairs are capped at 2^27 (duplicates dropped). */
static size_t gb_case_sizes(const rdx_gpu_bench_opts *o, const rdx_gpu_case *c, size_t *sizes)
{
    size_t i, k, m = 0;
    for (i = 0; i < o->nsizes; i++) {
        size_t n = o->sizes[i];
        if (rdx_type_size(c->key) == 8 && c->value_bytes == 8 && n > ((size_t)1 << GB_MAX_LOG2N_WIDE_PAIRS))
            n = (size_t)1 << GB_MAX_LOG2N_WIDE_PAIRS;
        for (k = 0; k < m && sizes[k] != n; k++) {}
        if (k == m) sizes[m++] = n;
    }
    return m;
}

extern "C" int rdx_gpu_bench_run(const rdx_gpu_bench_opts *given, FILE *out, FILE *csv)
{
    rdx_gpu_bench_opts opts = *given, *o = &opts;
    gb_env e;
    gb_row *rows;
    size_t sizes[RDX_GPU_BENCH_MAX_SIZES], nrows = 0, cap = 0, c, s, d, ns;
    int count = 0, failed = 0, broken = 0;
    cudaDeviceProp p;
    cudaError_t err = cudaGetDeviceCount(&count);

    if (o->repeat < 1) o->repeat = 1;
    if (o->warmup < 0) o->warmup = 0;
    for (c = 0; c < o->ncases; c++) cap += gb_case_sizes(o, &o->cases[c], sizes) * o->ndists;

    if (err != cudaSuccess || count == 0) {
        fprintf(out, "GPU benchmark: no usable GPU (%s)\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "no device");
        return 2;
    }
    memset(&e, 0, sizeof e);
    e.o = o;
    e.out = out;
    e.csv = csv;
    cudaGetDeviceProperties(&p, 0);
    snprintf(e.gpu, sizeof e.gpu, "%.200s, %d SMs, %d MB L2, %.0f GB", p.name, p.multiProcessorCount,
             p.l2CacheSize >> 20, p.totalGlobalMem / 1e9);
    fprintf(out, "GPU benchmark on %s (sm_%d%d), rdxsort %s\n", e.gpu, p.major, p.minor,
            rdx_version_string());
    rows = (gb_row *)calloc(cap ? cap : 1, sizeof *rows);
    e.times = (float *)malloc(sizeof(float) * (size_t)(o->repeat > 0 ? o->repeat : 1));
    if (!rows || !e.times || cudaEventCreate(&e.ev0) != cudaSuccess ||
        cudaEventCreate(&e.ev1) != cudaSuccess || cudaMalloc(&e.counters, sizeof(rdx_gb_verdict)) != cudaSuccess) {
        fprintf(out, "GPU benchmark: out of memory while starting\n");
        free(rows);
        free(e.times);
        return 1;
    }
    gb_check_env = &e;
    if (gb_copy_rate(&e)) fprintf(out, "GPU benchmark: the copy-rate measurement failed\n");
    if (csv) gb_csv_header(csv);

    for (c = 0; c < o->ncases && !broken; c++) {
        ns = gb_case_sizes(o, &o->cases[c], sizes);
        for (d = 0; d < o->ndists && !broken; d++) {
            for (s = 0; s < ns && !broken; s++) {
                gb_row *r = &rows[nrows++];
                char name[32], nn[24];
                r->c = o->cases[c];
                r->dist = o->dists[d];
                r->n = sizes[s];
                rdx_gpu_bench_case_name(&r->c, name, sizeof name);
                gb_size_name(r->n, nn, sizeof nn);
                gb_measure(&e, r);
                fprintf(stderr, "[%zu/%zu] %-8s %-10s %6s  rdx %.3f ms  CUB %.3f ms  %s\n", nrows, cap,
                        name, rdx_gpu_bench_dist_name(r->dist), nn, r->rdx_ms, r->cub_ms, gb_check_word(r));
                if (r->failed)
                    fprintf(out, "*** %s %s %s n=%s: %s (seed %llu)\n", gb_check_word(r), name,
                            rdx_gpu_bench_dist_name(r->dist), nn, r->note, (unsigned long long)o->seed);
                if (csv) gb_csv_row(&e, r);
                failed |= r->failed;
                /* A kernel fault leaves the CUDA context unusable: every later case would
                 * only fail the same way. */
                if (r->failed && (err = cudaDeviceSynchronize()) != cudaSuccess) {
                    fprintf(out, "*** the CUDA context is broken (%s): stopping here\n",
                            cudaGetErrorString(err));
                    broken = 1;
                }
            }
        }
    }
    gb_table(&e, rows, nrows);
    cudaFree(e.counters);
    cudaEventDestroy(e.ev0);
    cudaEventDestroy(e.ev1);
    free(e.times);
    free(rows);
    gb_check_env = NULL;
    return failed ? 1 : 0;
}

/* `rdx bench`'s entry (peers.h): the given key types (u32 and u64 also as u32/u32 and
 * u64/u64 pairs), or the defaults; the default distributions and repeat count. */
extern "C" int rdx_gpu_bench(const rdx_type *types, size_t ntypes, const size_t *sizes, size_t nsizes,
                             FILE *out, FILE *csv)
{
    rdx_gpu_bench_opts o;
    size_t i;
    rdx_gpu_bench_defaults(&o, 0);
    if (types && ntypes) {
        o.ncases = 0;
        for (i = 0; i < ntypes && o.ncases + 2 <= RDX_GPU_BENCH_MAX_CASES; i++) {
            rdx_gpu_case c = {types[i], 0};
            if (!rdx_gb_cub_supports(c.key, 0)) {
                fprintf(out, "GPU benchmark: %s keys are not measured (no CUB peer built for them)\n",
                        rdx_gpu_bench_type_name(c.key));
                continue;
            }
            o.cases[o.ncases++] = c;
            if (c.key == RDX_U32 || c.key == RDX_U64) {
                c.value_bytes = (unsigned)rdx_type_size(c.key);
                o.cases[o.ncases++] = c;
            }
        }
    }
    if (sizes && nsizes) {
        o.nsizes = 0;
        for (i = 0; i < nsizes && o.nsizes < RDX_GPU_BENCH_MAX_SIZES; i++)
            if (sizes[i] > 0) o.sizes[o.nsizes++] = sizes[i];
    }
    return rdx_gpu_bench_run(&o, out, csv);
}
