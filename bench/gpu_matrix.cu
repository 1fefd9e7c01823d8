/* The matrix benchmark (gpu_matrix.h): for every case x distribution x n, CUB
 * DeviceRadixSort and rdxsort's stream-ordered call (rdx_cuda.h) on device arrays, one
 * after the other in the same run, on the legacy default stream, each with its temporary
 * storage allocated outside the timing: the two calls are timed alike, from the enqueue to
 * the end of the work on the stream. (rdx.h's synchronous call adds its own wait for the
 * stream, 6-10 us that CUB's timing has no counterpart for; rdx-gpu-bench times it.)
 *
 * Per row:
 *   src   the pristine input keys (gpu_matrix_data.cu) and, for pairs and argsort, values i;
 *   ref   CUB's output (src -> ref, so src stays pristine): the oracle. For float keys the
 *         oracle is CUB's sort of the keys' unsigned images, mapped back (CUB counts -0.0
 *         and +0.0 equal, rdxsort follows IEEE totalOrder), as in gpu_bench.cu;
 *   work  rdxsort's in-place keys and values, restored from src before every run outside
 *         the timing; for argsort, its indices (the keys are read in place).
 * Before every timed run a buffer of twice the L2 size is overwritten, so that neither
 * sorter finds its input in L2. Each sorter: warm-ups, then timed runs between CUDA events;
 * the median is reported. rdxsort's result must equal the oracle bit for bit (keys and
 * values, so stability too) after its first and its last run, else the row FAILS. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rdx.h"
#include "rdx_cuda.h"
#include "gpu_bench.h"
#include "gpu_bench_data.h"
#include "gpu_bench_peers.h"
#include "gpu_matrix.h"
#include "gpu_matrix_gen.h"
#include "gpu_bench_tune.h"

typedef struct gm_row {
    rdx_gm_case c;
    int dist;
    size_t n;
    int repeat;                 /* timed runs behind each median */
    double rdx_ms, cub_ms;      /* < 0: not measured */
    char route[48];             /* rdx_ctx_route after the last run */
    int failed, skipped;
    char note[256];
} gm_row;

/* One row's buffers and context. */
typedef struct gm_job {
    rdx_gm_case c;
    size_t n, kbytes, vbytes;
    void *src_k, *src_v, *ref_k, *ref_v, *work_k, *work_v, *temp;
    size_t temp_bytes;
    rdx_ctx *ctx;
    char msg[256];
} gm_job;

typedef struct gm_env {
    const rdx_gpu_matrix_opts *o;
    FILE *out, *csv;
    cudaEvent_t ev0, ev1;
    float *times;
    void *counters;             /* device scratch for rdx_gb_verify */
    void *flush;                /* RDX_GM_FLUSH_L2_TIMES x the L2 size */
    size_t flush_bytes;
    rdx_ctx *query;             /* for rdxsort's temporary-storage sizes */
    char gpu[320];
    time_t started;             /* for the run's wall time in the report */
} gm_env;

typedef int (*gm_step)(gm_env *e, gm_job *j);

/* ---- small helpers ---- */

static int gm_cuda(gm_job *j, cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 0;
    snprintf(j->msg, sizeof j->msg, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

/* A peer's or a data function's int status (cudaError_t, or -1: not built). */
static int gm_peer(gm_job *j, int rc, const char *what)
{
    if (rc == 0) return 0;
    if (rc == -1) snprintf(j->msg, sizeof j->msg, "%s: not built for this case", what);
    else snprintf(j->msg, sizeof j->msg, "%s: %s", what, cudaGetErrorString((cudaError_t)rc));
    return -1;
}

static int gm_rdx(gm_job *j, rdx_status s, const char *what)
{
    if (s == RDX_OK) return 0;
    snprintf(j->msg, sizeof j->msg, "%s: %s: %s", what, rdx_status_string(s), rdx_ctx_error(j->ctx));
    return -1;
}

static int gm_is_float(rdx_type t) { return t == RDX_F32 || t == RDX_F64; }

static rdx_type gm_unsigned_of(rdx_type t) { return rdx_type_size(t) == 8 ? RDX_U64 : RDX_U32; }

static rdx_type gm_index_type(const rdx_gm_case *c) { return c->value_bytes == 8 ? RDX_U64 : RDX_U32; }

static int gm_log2(size_t n)
{
    int k = 0;
    while (k < 63 && ((size_t)1 << k) < n) k++;
    return k;
}

static void gm_size_name(size_t n, char *buf, size_t len)
{
    if (n && (n & (n - 1)) == 0) snprintf(buf, len, "2^%d", gm_log2(n));
    else snprintf(buf, len, "%zu", n);
}

static int gm_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double gm_median(float *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, gm_cmp_float);
    return k % 2 ? t[k / 2] : 0.5 * ((double)t[k / 2 - 1] + t[k / 2]);
}

static double gm_ratio(const gm_row *r)
{
    return r->rdx_ms > 0 && r->cub_ms > 0 ? r->cub_ms / r->rdx_ms : 0.0;
}

static const char *gm_check_word(const gm_row *r)
{
    return r->skipped ? "SKIP" : r->failed ? (strncmp(r->note, "WRONG", 5) == 0 ? "WRONG" : "ERROR") : "ok";
}

/* ---- memory ---- */

/* CUB's temporary storage for the row (for floats also its sort of the unsigned images). */
static int gm_cub_temp(const rdx_gm_case *c, size_t n, size_t *bytes)
{
    size_t b2 = 0;
    int rc = rdx_gb_cub_temp_bytes(c->key, c->value_bytes, n, bytes);
    if (!rc && gm_is_float(c->key)) rc = rdx_gb_cub_temp_bytes(gm_unsigned_of(c->key), c->value_bytes, n, &b2);
    if (b2 > *bytes) *bytes = b2;
    return rc;
}

/* rdxsort's temporary storage for the row (the stream-ordered entry points'). */
static rdx_status gm_rdx_temp(rdx_ctx *ctx, const rdx_gm_case *c, size_t n, size_t *bytes)
{
    if (c->argsort) return rdx_cuda_argsort_temp_size(ctx, n, c->key, gm_index_type(c), NULL, bytes);
    if (c->value_bytes) return rdx_cuda_sort_pairs_temp_size(ctx, c->value_bytes, n, c->key, NULL, bytes);
    return rdx_cuda_sort_keys_temp_size(ctx, n, c->key, NULL, bytes);
}

/* Device bytes a row needs at its peak: src, ref and work keys (argsort: no work keys),
 * the three value arrays, and CUB's or rdxsort's scratch (never held together);
 * 0 when a size query fails. */
static size_t gm_need(gm_env *e, const rdx_gm_case *c, size_t n)
{
    size_t kb = n * rdx_type_size(c->key), vb = n * c->value_bytes, ct = 0, rt = 0;
    if (gm_cub_temp(c, n, &ct) || gm_rdx_temp(e->query, c, n, &rt) != RDX_OK) return 0;
    return (c->argsort ? 2 : 3) * kb + 3 * vb + (ct > rt ? ct : rt) + ((size_t)RDX_GM_MEM_SLACK_MB << 20);
}

static void gm_free(void **p)
{
    if (*p) cudaFree(*p);
    *p = NULL;
}

static void gm_release(gm_job *j)
{
    gm_free(&j->src_k); gm_free(&j->src_v); gm_free(&j->ref_k); gm_free(&j->ref_v);
    gm_free(&j->work_k); gm_free(&j->work_v); gm_free(&j->temp);
    if (j->ctx) rdx_ctx_destroy(j->ctx);
    j->ctx = NULL;
}

static int gm_alloc(gm_job *j, void **p, size_t bytes)
{
    return gm_cuda(j, cudaMalloc(p, bytes ? bytes : 1), "cudaMalloc");
}

/* ---- the timed steps and what runs between them ---- */

static int gm_flush_l2(gm_env *e, gm_job *j)
{
    return gm_cuda(j, cudaMemsetAsync(e->flush, 0x5A, e->flush_bytes, 0), "L2 flush");
}

static int gm_run_cub(gm_env *e, gm_job *j)
{
    (void)e;
    return gm_peer(j, rdx_gb_cub_sort(j->c.key, j->c.value_bytes, j->temp, j->temp_bytes, j->src_k, j->ref_k,
                                      j->src_v, j->ref_v, j->n), "CUB");
}

static int gm_restore(gm_env *e, gm_job *j)
{
    (void)e;
    if (j->c.argsort) return 0; /* the keys are only read */
    if (gm_cuda(j, cudaMemcpy(j->work_k, j->src_k, j->kbytes, cudaMemcpyDeviceToDevice), "restore keys"))
        return -1;
    if (j->vbytes &&
        gm_cuda(j, cudaMemcpy(j->work_v, j->src_v, j->vbytes, cudaMemcpyDeviceToDevice), "restore values"))
        return -1;
    return 0;
}

static int gm_run_rdx(gm_env *e, gm_job *j)
{
    (void)e;
    if (j->c.argsort)
        return gm_rdx(j, rdx_cuda_argsort_async(j->ctx, j->src_k, j->n, j->c.key, j->work_v, gm_index_type(&j->c),
                                                NULL, j->temp, j->temp_bytes, 0), "rdx_cuda_argsort_async");
    if (j->c.value_bytes)
        return gm_rdx(j, rdx_cuda_sort_pairs_async(j->ctx, j->work_k, j->work_v, j->c.value_bytes, j->n, j->c.key,
                                                   NULL, j->temp, j->temp_bytes, 0), "rdx_cuda_sort_pairs_async");
    return gm_rdx(j, rdx_cuda_sort_keys_async(j->ctx, j->work_k, j->n, j->c.key, NULL, j->temp, j->temp_bytes, 0),
                  "rdx_cuda_sort_keys_async");
}

/* rdxsort's result against the oracle; argsort: its indices against CUB's values. */
static int gm_check_rdx(gm_env *e, gm_job *j)
{
    rdx_gb_verdict d;
    const void *k = j->c.argsort ? j->ref_k : j->work_k;
    int rc = rdx_gb_verify(k, j->work_v, j->ref_k, j->ref_v, j->n, j->c.key, j->c.value_bytes, e->counters, &d);
    if (rc) return gm_peer(j, rc, "verify");
    if (d.key_mismatch || d.value_mismatch || d.unsorted) {
        snprintf(j->msg, sizeof j->msg,
                 "WRONG: %llu keys and %llu %s differ from CUB's, %llu out of order, first at %llu",
                 d.key_mismatch, d.value_mismatch, j->c.argsort ? "indices" : "values", d.unsorted, d.first_bad);
        return -1;
    }
    return 0;
}

/* The oracle must itself be in key order (a check of the check). */
static int gm_check_oracle(gm_env *e, gm_job *j)
{
    rdx_gb_verdict d;
    int rc = rdx_gb_verify(j->ref_k, NULL, NULL, NULL, j->n, j->c.key, 0, e->counters, &d);
    if (rc) return gm_peer(j, rc, "verify");
    if (d.unsorted) {
        snprintf(j->msg, sizeof j->msg, "ERROR: CUB's result (the oracle) has %llu keys out of order", d.unsorted);
        return -1;
    }
    return 0;
}

/* For float keys: ref = CUB's sort of the keys' unsigned images, mapped back; work_k
 * holds the images meanwhile. */
static int gm_float_oracle(gm_job *j)
{
    if (gm_peer(j, rdx_gb_encode(j->work_k, j->src_k, j->n, j->c.key), "encode") ||
        gm_peer(j, rdx_gb_cub_sort(gm_unsigned_of(j->c.key), j->c.value_bytes, j->temp, j->temp_bytes, j->work_k,
                                   j->ref_k, j->src_v, j->ref_v, j->n), "CUB (oracle)") ||
        gm_peer(j, rdx_gb_decode(j->ref_k, j->n, j->c.key), "decode"))
        return -1;
    return gm_cuda(j, cudaDeviceSynchronize(), "oracle");
}

/* warmup + repeat rounds of prep, L2 flush (untimed) and run (timed between events);
 * check (untimed) after the first and the last round; *ms = the median. */
static int gm_time(gm_env *e, gm_job *j, int warmup, int repeat, gm_step prep, gm_step run, gm_step check,
                   double *ms)
{
    int rounds = warmup + repeat, r, k = 0;
    for (r = 0; r < rounds; r++) {
        float t = 0;
        int rc;
        if ((prep && prep(e, j)) || gm_flush_l2(e, j)) return -1;
        if (gm_cuda(j, cudaDeviceSynchronize(), "before the timed run")) return -1;
        cudaEventRecord(e->ev0, 0);
        rc = run(e, j);
        cudaEventRecord(e->ev1, 0);
        if (gm_cuda(j, cudaEventSynchronize(e->ev1), "after the timed run")) return -1;
        if (rc) return -1;
        cudaEventElapsedTime(&t, e->ev0, e->ev1);
        if (r >= warmup) e->times[k++] = t;
        if (check && (r == 0 || r == rounds - 1) && check(e, j)) return -1;
    }
    *ms = gm_median(e->times, k);
    return 0;
}

/* ---- one row ---- */

static void gm_measure(gm_env *e, gm_row *row)
{
    const rdx_gpu_matrix_opts *o = e->o;
    int big = gm_log2(row->n) >= o->big_log2;
    int warmup = big ? o->big_warmup : o->warmup;
    size_t need = gm_need(e, &row->c, row->n), free_b = 0, total_b = 0;
    gm_job j;
    memset(&j, 0, sizeof j);
    j.c = row->c;
    j.n = row->n;
    j.kbytes = j.n * rdx_type_size(j.c.key);
    j.vbytes = j.n * j.c.value_bytes;
    row->repeat = big ? o->big_repeat : o->repeat;
    row->rdx_ms = row->cub_ms = -1;
    snprintf(row->route, sizeof row->route, "-");

    cudaMemGetInfo(&free_b, &total_b);
    if (need == 0 || need > free_b) {
        row->skipped = 1;
        if (need == 0) snprintf(row->note, sizeof row->note, "SKIP: a temporary-storage size query failed");
        else snprintf(row->note, sizeof row->note, "SKIP: needs about %.1f GiB, %.1f GiB free", need / 1073741824.0,
                      free_b / 1073741824.0);
        return;
    }
    if (gm_peer(&j, gm_cub_temp(&j.c, j.n, &j.temp_bytes), "CUB size query") ||
        gm_alloc(&j, &j.src_k, j.kbytes) || gm_alloc(&j, &j.ref_k, j.kbytes) || gm_alloc(&j, &j.temp, j.temp_bytes) ||
        (!j.c.argsort && gm_alloc(&j, &j.work_k, j.kbytes)) ||
        (j.vbytes && (gm_alloc(&j, &j.src_v, j.vbytes) || gm_alloc(&j, &j.ref_v, j.vbytes) ||
                      gm_alloc(&j, &j.work_v, j.vbytes))))
        goto fail;
    if (gm_peer(&j, rdx_gm_fill_keys(j.src_k, j.n, j.c.key, row->dist, o->seed), "generate keys") ||
        (j.vbytes && gm_peer(&j, rdx_gb_fill_values(j.src_v, j.n, j.c.value_bytes), "generate values")) ||
        gm_cuda(&j, cudaDeviceSynchronize(), "generate"))
        goto fail;

    /* CUB with 64-bit and 32-bit counts, the faster kept (rdx_gb_cub_count_bits), then the
     * oracle; CUB's scratch is freed before rdxsort runs. */
    rdx_gb_cub_count_bits(64);
    if (gm_time(e, &j, warmup, row->repeat, NULL, gm_run_cub, NULL, &row->cub_ms)) goto fail;
    if (j.n <= (size_t)INT32_MAX) {
        double narrow_ms = -1;
        rdx_gb_cub_count_bits(32);
        const int rc = gm_time(e, &j, warmup, row->repeat, NULL, gm_run_cub, NULL, &narrow_ms);
        rdx_gb_cub_count_bits(64);
        if (rc) goto fail;
        if (narrow_ms < row->cub_ms) row->cub_ms = narrow_ms;
    }
    if (gm_is_float(j.c.key) && gm_float_oracle(&j)) goto fail;
    if (gm_check_oracle(e, &j)) goto fail;
    gm_free(&j.temp);

    /* rdxsort: a fresh context per row, its temporary storage in CUB's place. */
    if (gm_rdx(&j, rdx_ctx_create(&j.ctx, RDX_BACKEND_CUDA), "rdx_ctx_create"))
        goto fail;
    rdx_gpu_bench_tune_apply(j.ctx, e->o->tune); /* the same limits as e->query's */
    if (gm_rdx(&j, gm_rdx_temp(j.ctx, &j.c, j.n, &j.temp_bytes), "rdxsort temp size") ||
        gm_alloc(&j, &j.temp, j.temp_bytes))
        goto fail;
    if (gm_time(e, &j, warmup, row->repeat, gm_restore, gm_run_rdx, gm_check_rdx, &row->rdx_ms)) goto fail;
    snprintf(row->route, sizeof row->route, "%s", rdx_ctx_route(j.ctx));
    gm_release(&j);
    return;
fail:
    row->failed = 1;
    snprintf(row->note, sizeof row->note, "%s", j.msg);
    gm_release(&j);
    cudaGetLastError(); /* clear a non-sticky error so that later rows still run */
}

/* ---- the sizes ---- */

/* The sizes of one case: the given ones, or 2^min_log2, 2^(min_log2 + 2), ... up to
 * 2^max_log2 while they fit in `avail` bytes beside CUB, plus the largest power of two that
 * fits when it is not in the list; argsort into u32 indices at most 2^32 keys. Says on
 * stderr where the sizes stop for lack of memory. */
static size_t gm_case_sizes(gm_env *e, const rdx_gm_case *c, size_t avail, size_t *sizes)
{
    const rdx_gpu_matrix_opts *o = e->o;
    int top = o->max_log2 > 40 ? 40 : o->max_log2, k, fit = -1;
    size_t m = 0, i;
    char name[32];
    if (o->nsizes) {
        for (i = 0; i < o->nsizes && m < RDX_GM_MAX_SIZES; i++) sizes[m++] = o->sizes[i];
        return m;
    }
    if (c->argsort && c->value_bytes == 4 && top > 32) top = 32;
    for (k = o->min_log2; k <= top; k++) {
        size_t need = gm_need(e, c, (size_t)1 << k);
        if (need == 0 || need > avail) break;
        fit = k;
    }
    for (k = o->min_log2; k <= fit && m < RDX_GM_MAX_SIZES; k += RDX_GM_LOG2_STEP) sizes[m++] = (size_t)1 << k;
    if (fit >= o->min_log2 && m && sizes[m - 1] != (size_t)1 << fit && m < RDX_GM_MAX_SIZES)
        sizes[m++] = (size_t)1 << fit;
    if (fit < top) {
        rdx_gpu_matrix_case_name(c, name, sizeof name);
        fprintf(stderr, "rdx-gpu-bench: matrix: %s: 2^%d keys and more do not fit beside CUB (%.1f GiB "
                        "free): skipped\n", name, fit < o->min_log2 ? o->min_log2 : fit + 1, avail / 1073741824.0);
    }
    return m;
}

/* ---- output ---- */

static double gm_rate(size_t n, double ms) { return ms > 0 ? (double)n / ms / 1e6 : 0; }

static void gm_row_names(const gm_row *r, char *name, size_t nl, char *nn, size_t nnl)
{
    rdx_gpu_matrix_case_name(&r->c, name, nl);
    gm_size_name(r->n, nn, nnl);
}

static void gm_csv_header(FILE *csv)
{
    fprintf(csv, "gpu,case,key,value_bytes,argsort,dist,n,log2n,repeat,rdx_ms,cub_ms,rdx_over_cub,"
                 "rdx_gkeys,cub_gkeys,route,check,seed\n");
}

static void gm_csv_row(const gm_env *e, const gm_row *r)
{
    char name[32], nn[24];
    gm_row_names(r, name, sizeof name, nn, sizeof nn);
    fprintf(e->csv, "\"%s\",%s,%s,%u,%d,%s,%zu,%d,%d,%.6f,%.6f,%.4f,%.4f,%.4f,%s,%s,%llu\n", e->gpu, name,
            rdx_gpu_bench_type_name(r->c.key), r->c.value_bytes, r->c.argsort, rdx_gpu_matrix_dist_name(r->dist),
            r->n, gm_log2(r->n), r->repeat, r->rdx_ms, r->cub_ms, gm_ratio(r), gm_rate(r->n, r->rdx_ms),
            gm_rate(r->n, r->cub_ms), r->route, gm_check_word(r), (unsigned long long)e->o->seed);
    fflush(e->csv);
}

static void gm_print_row(FILE *f, const gm_row *r)
{
    char name[32], nn[24];
    gm_row_names(r, name, sizeof name, nn, sizeof nn);
    fprintf(f, "%-11s %-10s %6s %3d", name, rdx_gpu_matrix_dist_name(r->dist), nn, r->repeat);
    if (r->rdx_ms > 0) fprintf(f, " %10.3f", r->rdx_ms); else fprintf(f, " %10s", "-");
    if (r->cub_ms > 0) fprintf(f, " %10.3f", r->cub_ms); else fprintf(f, " %10s", "-");
    if (gm_ratio(r) > 0) fprintf(f, " %7.2fx", gm_ratio(r)); else fprintf(f, " %8s", "-");
    fprintf(f, " %8.2f %8.2f  %-10s %s\n", gm_rate(r->n, r->rdx_ms), gm_rate(r->n, r->cub_ms), r->route,
            gm_check_word(r));
}

static void gm_header(FILE *f)
{
    fprintf(f, "%-11s %-10s %6s %3s %10s %10s %8s %8s %8s  %-10s %s\n", "case", "dist", "n", "runs", "rdx ms",
            "CUB ms", "rdx/CUB", "rdx Gk/s", "CUB Gk/s", "route", "check");
}

static int gm_cmp_ratio(const void *a, const void *b)
{
    double x = gm_ratio(*(const gm_row *const *)a), y = gm_ratio(*(const gm_row *const *)b);
    return (x > y) - (x < y);
}

/* The table, failures, the rows below 1.0x from 2^RDX_GM_RATIO_FROM_LOG2 on (worst first),
 * and last the worst ratios. */
static void gm_report(const gm_env *e, const gm_row *rows, size_t nrows)
{
    FILE *f = e->out;
    const gm_row **order = (const gm_row **)calloc(nrows ? nrows : 1, sizeof *order);
    const gm_row *worst = NULL, *worst_big = NULL;
    size_t i, bad = 0, skipped = 0, measured = 0, nbig = 0, below = 0;
    fprintf(f, "\n# rdxsort GPU matrix results\n");
    fprintf(f, "# %s; seed %llu; median of %d runs after %d warm-ups (%d after %d from n = 2^%d on); "
               "L2 flushed before every run\n", e->gpu, (unsigned long long)e->o->seed, e->o->repeat,
            e->o->warmup, e->o->big_repeat, e->o->big_warmup, e->o->big_log2);
    fprintf(f, "# rdx: rdx_cuda.h's stream-ordered call on device arrays; CUB: DeviceRadixSort, separate "
               "in/out (argsort: SortPairs of (key, i)); both on the default stream, temporary storage "
               "allocated outside the timing; rdx/CUB = CUB ms / rdx ms; Gk/s = 1e9 keys per second\n");
    gm_header(f);
    for (i = 0; i < nrows; i++) {
        const gm_row *r = &rows[i];
        gm_print_row(f, r);
        bad += r->failed;
        skipped += r->skipped;
        if (gm_ratio(r) <= 0) continue;
        measured++;
        if (!worst || gm_ratio(r) < gm_ratio(worst)) worst = r;
        if (gm_log2(r->n) >= RDX_GM_RATIO_FROM_LOG2) {
            nbig++;
            if (!worst_big || gm_ratio(r) < gm_ratio(worst_big)) worst_big = r;
            if (gm_ratio(r) < 1.0 && order) order[below++] = r;
        }
    }
    if (bad) {
        fprintf(f, "\n%zu of %zu rows FAILED:\n", bad, nrows);
        for (i = 0; i < nrows; i++) {
            char name[32], nn[24];
            if (!rows[i].failed) continue;
            gm_row_names(&rows[i], name, sizeof name, nn, sizeof nn);
            fprintf(f, "  %s %s n=%s: %s\n", name, rdx_gpu_matrix_dist_name(rows[i].dist), nn, rows[i].note);
        }
    } else {
        fprintf(f, "\nall %zu rdxsort results matched CUB's%s\n", nrows - skipped,
                skipped ? " (some rows skipped: not enough device memory)" : "");
    }
    fprintf(f, "\n%zu of %zu rows with n >= 2^%d below 1.0x CUB%s\n", below, nbig, RDX_GM_RATIO_FROM_LOG2,
            below ? ", worst first:" : "");
    if (below && order) {
        qsort(order, below, sizeof *order, gm_cmp_ratio);
        gm_header(f);
        for (i = 0; i < below; i++) gm_print_row(f, order[i]);
    }
    free(order);
    fprintf(f, "%zu rows in %.0f s of wall time\n", nrows, difftime(time(NULL), e->started));
    if (worst_big) {
        char name[32], nn[24];
        gm_row_names(worst_big, name, sizeof name, nn, sizeof nn);
        fprintf(f, "worst rdx/CUB with n >= 2^%d: %.2fx (%s %s n=%s)\n", RDX_GM_RATIO_FROM_LOG2,
                gm_ratio(worst_big), name, rdx_gpu_matrix_dist_name(worst_big->dist), nn);
    }
    if (worst) {
        char name[32], nn[24];
        gm_row_names(worst, name, sizeof name, nn, sizeof nn);
        fprintf(f, "worst rdx/CUB over all %zu rows: %.2fx (%s %s n=%s)\n", measured, gm_ratio(worst), name,
                rdx_gpu_matrix_dist_name(worst->dist), nn);
    } else {
        fprintf(f, "worst rdx/CUB: none measured\n");
    }
}

/* ---- the run ---- */

static int gm_start(gm_env *e)
{
    cudaDeviceProp p;
    int max_repeat = e->o->repeat > e->o->big_repeat ? e->o->repeat : e->o->big_repeat;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return -1;
    snprintf(e->gpu, sizeof e->gpu, "%.200s, %d SMs, %d MB L2, %.0f GB", p.name, p.multiProcessorCount,
             p.l2CacheSize >> 20, p.totalGlobalMem / 1e9);
    e->flush_bytes = (size_t)RDX_GM_FLUSH_L2_TIMES * (size_t)(p.l2CacheSize > 0 ? p.l2CacheSize : 1 << 20);
    e->times = (float *)malloc(sizeof(float) * (size_t)(max_repeat > 0 ? max_repeat : 1));
    if (!e->times || cudaEventCreate(&e->ev0) != cudaSuccess || cudaEventCreate(&e->ev1) != cudaSuccess ||
        cudaMalloc(&e->counters, sizeof(rdx_gb_verdict)) != cudaSuccess ||
        cudaMalloc(&e->flush, e->flush_bytes) != cudaSuccess || rdx_ctx_create(&e->query, RDX_BACKEND_CUDA) != RDX_OK)
        return -1;
    rdx_gpu_bench_tune_apply(e->query, e->o->tune);
    return 0;
}

static void gm_stop(gm_env *e)
{
    if (e->counters) cudaFree(e->counters);
    if (e->flush) cudaFree(e->flush);
    if (e->ev0) cudaEventDestroy(e->ev0);
    if (e->ev1) cudaEventDestroy(e->ev1);
    rdx_ctx_destroy(e->query);
    free(e->times);
}

extern "C" int rdx_gpu_matrix_run(const rdx_gpu_matrix_opts *given, FILE *out, FILE *csv)
{
    rdx_gpu_matrix_opts opts = *given, *o = &opts;
    static size_t sizes[RDX_GM_MAX_CASES][RDX_GM_MAX_SIZES];
    size_t nsizes[RDX_GM_MAX_CASES], cap = 0, nrows = 0, c, d, s, free_b = 0, total_b = 0;
    gm_env e;
    gm_row *rows;
    int count = 0, failed = 0, broken = 0;
    cudaError_t err = cudaGetDeviceCount(&count);

    if (err != cudaSuccess || count == 0) {
        fprintf(out, "GPU matrix: no usable GPU (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "no device");
        return 2;
    }
    if (o->repeat < 1) o->repeat = 1;
    if (o->big_repeat < 1) o->big_repeat = 1;
    if (o->warmup < 0) o->warmup = 0;
    if (o->big_warmup < 0) o->big_warmup = 0;
    if (o->ncases > RDX_GM_MAX_CASES) o->ncases = RDX_GM_MAX_CASES;
    memset(&e, 0, sizeof e);
    e.o = o;
    e.out = out;
    e.csv = csv;
    e.started = time(NULL);
    if (gm_start(&e)) {
        fprintf(out, "GPU matrix: could not start (device properties, events, %zu MB for the L2 flush, or an "
                     "rdxsort CUDA context)\n", e.flush_bytes >> 20);
        gm_stop(&e);
        return 1;
    }
    cudaMemGetInfo(&free_b, &total_b);
    fprintf(out, "GPU matrix on %s, rdxsort %s, %.1f GiB free\n", e.gpu, rdx_version_string(),
            free_b / 1073741824.0);
    for (c = 0; c < o->ncases; c++) {
        size_t nd = 0;
        nsizes[c] = gm_case_sizes(&e, &o->cases[c], free_b, sizes[c]);
        for (d = 0; d < o->ndists; d++) nd += gm_dist_applies(o->dists[d], o->cases[c].key);
        cap += nsizes[c] * nd;
    }
    rows = (gm_row *)calloc(cap ? cap : 1, sizeof *rows);
    if (!rows) {
        fprintf(out, "GPU matrix: out of host memory\n");
        gm_stop(&e);
        return 1;
    }
    if (csv) gm_csv_header(csv);

    for (c = 0; c < o->ncases && !broken; c++) {
        for (d = 0; d < o->ndists && !broken; d++) {
            if (!gm_dist_applies(o->dists[d], o->cases[c].key)) continue;
            for (s = 0; s < nsizes[c] && !broken; s++) {
                gm_row *r = &rows[nrows++];
                char name[32], nn[24];
                r->c = o->cases[c];
                r->dist = o->dists[d];
                r->n = sizes[c][s];
                gm_measure(&e, r);
                gm_row_names(r, name, sizeof name, nn, sizeof nn);
                fprintf(stderr, "[%zu/%zu %4.0f s] %-11s %-10s %6s  rdx %9.3f ms  CUB %9.3f ms  %5.2fx  %s\n",
                        nrows, cap, difftime(time(NULL), e.started), name, rdx_gpu_matrix_dist_name(r->dist), nn,
                        r->rdx_ms, r->cub_ms, gm_ratio(r), gm_check_word(r));
                if (r->failed || r->skipped)
                    fprintf(out, "*** %s %s %s n=%s: %s (seed %llu)\n", gm_check_word(r), name,
                            rdx_gpu_matrix_dist_name(r->dist), nn, r->note, (unsigned long long)o->seed);
                if (csv) gm_csv_row(&e, r);
                failed |= r->failed;
                /* A kernel fault leaves the CUDA context unusable: every later row would only
                 * fail the same way. */
                if (r->failed && (err = cudaDeviceSynchronize()) != cudaSuccess) {
                    fprintf(out, "*** the CUDA context is broken (%s): stopping here\n", cudaGetErrorString(err));
                    broken = 1;
                }
            }
        }
    }
    gm_report(&e, rows, nrows);
    free(rows);
    gm_stop(&e);
    return failed ? 1 : 0;
}
