/* The segmented-sort benchmark (gpu_seg.h): for every shape x case, CUB
 * DeviceSegmentedSort, CUB DeviceSegmentedRadixSort and rdxsort's stream-ordered segmented
 * sort on device arrays, one after the other in the same run, on the legacy default stream.
 *
 * Per row:
 *   offsets  the segments: size_t for rdxsort (none for equal rows: rdxsort gets NULL and
 *            num_segments = rows), int for CUB (its radix sort takes int offsets);
 *   src      the pristine keys (gpu_seg_data.cu) and, for pairs, values i (a stability
 *            check: equal keys keep input order in all three sorters, so values must match);
 *   ref      DeviceSegmentedSort::StableSort*'s output (src -> ref): the reference, itself
 *            checked to be in order within every segment;
 *   work     DeviceSegmentedRadixSort's output (src -> work), compared with ref; then
 *            rdxsort's in-place keys and values, restored from src before every run
 *            outside the timing, compared with ref after the first and the last run.
 * Temporary storage (CUB's, the larger of the two; rdxsort's from its _temp_size query) is
 * allocated once per row, outside the timing. Before every timed run a buffer of
 * RDX_GS_FLUSH_L2_TIMES x the L2 size is overwritten, so that no sorter finds its input in
 * L2. Each sorter: warm-ups, then timed runs between CUDA events around the sort call
 * alone; the median is reported. Any difference is a MISMATCH (exit status 1). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rdx.h"
#include "rdx_cuda.h"
#include "gpu_bench.h"
#include "gpu_bench_data.h"
#include "gpu_seg.h"

typedef struct gs_row {
    rdx_gs_shape shape;
    rdx_gpu_case c;
    size_t n, segs;
    double rdx_ms, seg_ms, radix_ms; /* < 0: not measured */
    char route[64];                  /* rdx_ctx_route after the last run */
    int failed, mismatch, skipped;
    char note[320];
} gs_row;

/* One row's buffers and context. */
typedef struct gs_job {
    rdx_gpu_case c;
    size_t n, segs, kbytes, vbytes;
    int equal_rows;                  /* rdxsort gets d_offsets NULL */
    size_t *h_off;                   /* host copy of the offsets (to name a segment) */
    size_t *off64;                   /* device offsets for rdxsort (and the order check) */
    int *off32;                      /* device offsets for CUB */
    unsigned char *starts;           /* device: 1 where a segment starts (the order check) */
    void *src_k, *src_v, *ref_k, *ref_v, *work_k, *work_v;
    void *cub_temp, *rdx_temp;
    size_t cub_temp_bytes, rdx_temp_bytes;
    int algo;                        /* the CUB sort gs_run_cub runs (RDX_GS_CUB_*) */
    const char *who;                 /* the sorter gs_check_work names */
    int mismatch;                    /* the failure was a difference from the reference */
    rdx_ctx *ctx;
    char msg[320];
} gs_job;

typedef struct gs_env {
    const rdx_gpu_seg_opts *o;
    FILE *out, *csv;
    cudaEvent_t ev0, ev1;
    float *times;
    void *counters;                  /* device scratch for the checks */
    void *flush;                     /* RDX_GS_FLUSH_L2_TIMES x the L2 size */
    size_t flush_bytes;
    char gpu[320];
    time_t started;
} gs_env;

typedef int (*gs_step)(gs_env *e, gs_job *j);

/* ---- small helpers ---- */

static int gs_cuda(gs_job *j, cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return 0;
    snprintf(j->msg, sizeof j->msg, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}

/* A peer's or a data function's int status (cudaError_t, or -1: not built). */
static int gs_peer(gs_job *j, int rc, const char *what)
{
    if (rc == 0) return 0;
    if (rc == -1) snprintf(j->msg, sizeof j->msg, "%s: not built for this case", what);
    else snprintf(j->msg, sizeof j->msg, "%s: %s", what, cudaGetErrorString((cudaError_t)rc));
    return -1;
}

static int gs_rdx(gs_job *j, rdx_status s, const char *what)
{
    if (s == RDX_OK) return 0;
    snprintf(j->msg, sizeof j->msg, "%s: %s: %s", what, rdx_status_string(s), j->ctx ? rdx_ctx_error(j->ctx) : "");
    return -1;
}

static int gs_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double gs_median(float *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, gs_cmp_float);
    return k % 2 ? t[k / 2] : 0.5 * ((double)t[k / 2 - 1] + t[k / 2]);
}

static double gs_best_cub(const gs_row *r)
{
    if (r->seg_ms > 0 && r->radix_ms > 0) return r->seg_ms < r->radix_ms ? r->seg_ms : r->radix_ms;
    return r->seg_ms > 0 ? r->seg_ms : r->radix_ms;
}

/* best CUB ms / rdx ms: > 1 when rdxsort is faster; 0 when not measured. */
static double gs_ratio(const gs_row *r)
{
    double cub = gs_best_cub(r);
    return r->rdx_ms > 0 && cub > 0 ? cub / r->rdx_ms : 0.0;
}

static const char *gs_check_word(const gs_row *r)
{
    return r->skipped ? "SKIP" : r->mismatch ? "MISMATCH" : r->failed ? "ERROR" : "ok";
}

static void gs_size_name(size_t n, char *buf, size_t len)
{
    int k = 0;
    while (k < 63 && ((size_t)1 << k) < n) k++;
    if (n && n == ((size_t)1 << k)) snprintf(buf, len, "2^%d", k);
    else snprintf(buf, len, "%zu", n);
}

/* The segment holding position i (offsets non-decreasing, h_off[0] <= i < h_off[segs]). */
static size_t gs_segment_of(const gs_job *j, size_t i)
{
    size_t lo = 0, hi = j->segs; /* the last s with h_off[s] <= i, among non-empty ones */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->h_off[mid] <= i) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* ---- memory ---- */

static void gs_free(void **p)
{
    if (*p) cudaFree(*p);
    *p = NULL;
}

static void gs_release(gs_job *j)
{
    gs_free(&j->src_k); gs_free(&j->src_v); gs_free(&j->ref_k); gs_free(&j->ref_v);
    gs_free(&j->work_k); gs_free(&j->work_v); gs_free(&j->cub_temp); gs_free(&j->rdx_temp);
    gs_free((void **)&j->off64); gs_free((void **)&j->off32); gs_free((void **)&j->starts);
    free(j->h_off);
    j->h_off = NULL;
    if (j->ctx) rdx_ctx_destroy(j->ctx);
    j->ctx = NULL;
}

static int gs_alloc(gs_job *j, void **p, size_t bytes)
{
    return gs_cuda(j, cudaMalloc(p, bytes ? bytes : 1), "cudaMalloc");
}

/* The offsets on the device: size_t for rdxsort, int for CUB (n <= INT_MAX checked). */
static int gs_upload_offsets(gs_job *j)
{
    size_t s, count = j->segs + 1;
    int *h32 = (int *)malloc(count * sizeof *h32);
    int rc;
    if (!h32) {
        snprintf(j->msg, sizeof j->msg, "out of host memory");
        return -1;
    }
    for (s = 0; s < count; s++) h32[s] = (int)j->h_off[s];
    rc = gs_alloc(j, (void **)&j->off64, count * sizeof *j->off64) ||
         gs_alloc(j, (void **)&j->off32, count * sizeof *j->off32) ||
         gs_cuda(j, cudaMemcpy(j->off64, j->h_off, count * sizeof *j->off64, cudaMemcpyHostToDevice), "offsets") ||
         gs_cuda(j, cudaMemcpy(j->off32, h32, count * sizeof *h32, cudaMemcpyHostToDevice), "offsets");
    free(h32);
    return rc ? -1 : 0;
}

/* ---- the timed steps and what runs between them ---- */

static int gs_flush_l2(gs_env *e, gs_job *j)
{
    return gs_cuda(j, cudaMemsetAsync(e->flush, 0x5A, e->flush_bytes, 0), "L2 flush");
}

/* CUB DeviceSegmentedSort into ref (the reference). */
static int gs_run_cub_ref(gs_env *e, gs_job *j)
{
    size_t bytes = j->cub_temp_bytes; /* CUB takes it by reference */
    (void)e;
    return gs_peer(j, rdx_gs_cub_sort(j->algo, j->c.key, j->c.value_bytes, j->cub_temp, &bytes, j->src_k, j->ref_k,
                                      j->src_v, j->ref_v, j->n, j->segs, j->off32), j->who);
}

/* CUB DeviceSegmentedRadixSort into work. */
static int gs_run_cub_work(gs_env *e, gs_job *j)
{
    size_t bytes = j->cub_temp_bytes;
    (void)e;
    return gs_peer(j, rdx_gs_cub_sort(j->algo, j->c.key, j->c.value_bytes, j->cub_temp, &bytes, j->src_k, j->work_k,
                                      j->src_v, j->work_v, j->n, j->segs, j->off32), j->who);
}

static int gs_restore(gs_env *e, gs_job *j)
{
    (void)e;
    if (gs_cuda(j, cudaMemcpy(j->work_k, j->src_k, j->kbytes, cudaMemcpyDeviceToDevice), "restore keys")) return -1;
    if (j->vbytes &&
        gs_cuda(j, cudaMemcpy(j->work_v, j->src_v, j->vbytes, cudaMemcpyDeviceToDevice), "restore values"))
        return -1;
    return 0;
}

/* rdx_cuda.h's segmented sort in place on work; equal rows: d_offsets NULL. */
static int gs_run_rdx(gs_env *e, gs_job *j)
{
    const size_t *off = j->equal_rows ? NULL : j->off64;
    (void)e;
    if (j->c.value_bytes)
        return gs_rdx(j, rdx_cuda_segmented_sort_pairs_async(j->ctx, j->work_k, j->work_v, j->c.value_bytes, j->n,
                                                             j->c.key, off, j->segs, NULL, j->rdx_temp,
                                                             j->rdx_temp_bytes, (cudaStream_t)0),
                      "rdx_cuda_segmented_sort_pairs_async");
    return gs_rdx(j, rdx_cuda_segmented_sort_keys_async(j->ctx, j->work_k, j->n, j->c.key, off, j->segs, NULL,
                                                        j->rdx_temp, j->rdx_temp_bytes, (cudaStream_t)0),
                  "rdx_cuda_segmented_sort_keys_async");
}

/* work (j->who's result) against ref, bit for bit, keys and values. */
static int gs_check_work(gs_env *e, gs_job *j)
{
    rdx_gb_verdict d;
    int rc = rdx_gs_compare(j->work_k, j->work_v, j->ref_k, j->ref_v, j->n, j->c.key, j->c.value_bytes,
                            e->counters, &d);
    if (rc) return gs_peer(j, rc, "compare");
    if (d.key_mismatch || d.value_mismatch) {
        size_t s = gs_segment_of(j, (size_t)d.first_bad);
        j->mismatch = 1;
        snprintf(j->msg, sizeof j->msg,
                 "MISMATCH: %s: %llu keys and %llu values differ from CUB DeviceSegmentedSort's, the first at "
                 "%llu (segment %zu of %zu, [%zu, %zu))", j->who, d.key_mismatch, d.value_mismatch, d.first_bad,
                 s, j->segs, j->h_off[s], j->h_off[s + 1]);
        return -1;
    }
    return 0;
}

/* The reference must itself be in key order within every segment (a check of the check). */
static int gs_check_ref(gs_env *e, gs_job *j)
{
    unsigned long long bad = 0;
    int rc = rdx_gs_count_descents(j->ref_k, j->starts, j->n, j->c.key, e->counters, &bad);
    if (rc) return gs_peer(j, rc, "order check");
    if (bad) {
        snprintf(j->msg, sizeof j->msg, "CUB DeviceSegmentedSort's result (the reference) has %llu keys out of "
                                        "order within segments", bad);
        return -1;
    }
    return 0;
}

/* warmup + repeat rounds of prep, L2 flush (untimed) and run (timed between events);
 * check (untimed) after the first and the last round; *ms = the median. */
static int gs_time(gs_env *e, gs_job *j, gs_step prep, gs_step run, gs_step check, double *ms)
{
    int rounds = e->o->warmup + e->o->repeat, r, k = 0;
    for (r = 0; r < rounds; r++) {
        float t = 0;
        int rc;
        if ((prep && prep(e, j)) || gs_flush_l2(e, j)) return -1;
        if (gs_cuda(j, cudaDeviceSynchronize(), "before the timed run") ||
            gs_cuda(j, cudaEventRecord(e->ev0, 0), "cudaEventRecord"))
            return -1;
        rc = run(e, j);
        if (gs_cuda(j, cudaEventRecord(e->ev1, 0), "cudaEventRecord") ||
            gs_cuda(j, cudaEventSynchronize(e->ev1), "after the timed run"))
            return -1;
        if (rc) return -1;
        if (gs_cuda(j, cudaEventElapsedTime(&t, e->ev0, e->ev1), "cudaEventElapsedTime")) return -1;
        if (r >= e->o->warmup) e->times[k++] = t;
        if (check && (r == 0 || r == rounds - 1) && check(e, j)) return -1;
    }
    *ms = gs_median(e->times, k);
    return 0;
}

/* ---- one row ---- */

/* Sizes CUB's two sorts and rdxsort's for the row; *need = the device bytes it holds. */
static int gs_plan(gs_job *j, size_t *need)
{
    size_t b = 0;
    int a;
    for (a = RDX_GS_CUB_SEGSORT; a <= RDX_GS_CUB_SEGRADIX; a++) {
        if (gs_peer(j, rdx_gs_cub_sort(a, j->c.key, j->c.value_bytes, NULL, &b, NULL, NULL, NULL, NULL, j->n,
                                       j->segs, j->off32), "CUB size query"))
            return -1;
        if (b > j->cub_temp_bytes) j->cub_temp_bytes = b;
    }
    if (gs_rdx(j, j->c.value_bytes
                      ? rdx_cuda_segmented_sort_pairs_temp_size(j->ctx, j->c.value_bytes, j->n, j->c.key, j->segs,
                                                                NULL, &j->rdx_temp_bytes)
                      : rdx_cuda_segmented_sort_keys_temp_size(j->ctx, j->n, j->c.key, j->segs, NULL,
                                                               &j->rdx_temp_bytes),
               "rdxsort temp size"))
        return -1;
    *need = 3 * (j->kbytes + j->vbytes) + j->cub_temp_bytes + j->rdx_temp_bytes + (j->n + 1) +
            ((size_t)RDX_GS_MEM_SLACK_MB << 20);
    return 0;
}

static void gs_measure(gs_env *e, gs_row *row)
{
    size_t need = 0, free_b = 0, total_b = 0;
    gs_job j;
    memset(&j, 0, sizeof j);
    j.c = row->c;
    j.equal_rows = row->shape.kind == RDX_GS_ROWS;
    row->rdx_ms = row->seg_ms = row->radix_ms = -1;
    snprintf(row->route, sizeof row->route, "-");

    if (rdx_gs_make_offsets(&row->shape, e->o->seed, &j.h_off, &j.segs, &j.n)) {
        snprintf(j.msg, sizeof j.msg, "the offsets: out of host memory");
        goto fail;
    }
    row->n = j.n;
    row->segs = j.segs;
    if (j.n > (size_t)INT_MAX) {
        row->skipped = 1;
        snprintf(row->note, sizeof row->note, "SKIP: %zu keys, CUB DeviceSegmentedRadixSort takes int counts", j.n);
        gs_release(&j);
        return;
    }
    j.kbytes = j.n * rdx_type_size(j.c.key);
    j.vbytes = j.n * j.c.value_bytes;

    /* A fresh rdxsort context per row (its state freed with it). */
    if (gs_rdx(&j, rdx_ctx_create(&j.ctx, RDX_BACKEND_CUDA), "rdx_ctx_create") || gs_upload_offsets(&j) ||
        gs_plan(&j, &need))
        goto fail;
    cudaMemGetInfo(&free_b, &total_b);
    if (need > free_b) {
        row->skipped = 1;
        snprintf(row->note, sizeof row->note, "SKIP: needs about %.1f GiB, %.1f GiB free", need / 1073741824.0,
                 free_b / 1073741824.0);
        gs_release(&j);
        return;
    }
    if (gs_alloc(&j, &j.src_k, j.kbytes) || gs_alloc(&j, &j.ref_k, j.kbytes) || gs_alloc(&j, &j.work_k, j.kbytes) ||
        (j.vbytes && (gs_alloc(&j, &j.src_v, j.vbytes) || gs_alloc(&j, &j.ref_v, j.vbytes) ||
                      gs_alloc(&j, &j.work_v, j.vbytes))) ||
        gs_alloc(&j, &j.cub_temp, j.cub_temp_bytes) || gs_alloc(&j, &j.rdx_temp, j.rdx_temp_bytes) ||
        gs_alloc(&j, (void **)&j.starts, j.n + 1))
        goto fail;
    if (gs_peer(&j, rdx_gs_fill_keys(j.src_k, j.n, j.c.key, e->o->seed), "generate keys") ||
        (j.vbytes && gs_peer(&j, rdx_gb_fill_values(j.src_v, j.n, j.c.value_bytes), "generate values")) ||
        gs_peer(&j, rdx_gs_mark_starts(j.starts, j.off64, j.segs, j.n), "segment starts") ||
        gs_cuda(&j, cudaDeviceSynchronize(), "generate"))
        goto fail;

    /* CUB DeviceSegmentedSort (stable): the reference, checked for order. */
    j.algo = RDX_GS_CUB_SEGSORT;
    j.who = "CUB DeviceSegmentedSort";
    if (gs_time(e, &j, NULL, gs_run_cub_ref, NULL, &row->seg_ms) || gs_check_ref(e, &j)) goto fail;
    /* CUB DeviceSegmentedRadixSort (stable too): must give the same keys and values. */
    j.algo = RDX_GS_CUB_SEGRADIX;
    j.who = "CUB DeviceSegmentedRadixSort";
    if (gs_time(e, &j, NULL, gs_run_cub_work, gs_check_work, &row->radix_ms)) goto fail;
    /* rdxsort in place on work, restored from src before every run. */
    j.who = "rdxsort";
    if (gs_time(e, &j, gs_restore, gs_run_rdx, gs_check_work, &row->rdx_ms)) goto fail;
    snprintf(row->route, sizeof row->route, "%s", *rdx_ctx_route(j.ctx) ? rdx_ctx_route(j.ctx) : "-");
    gs_release(&j);
    return;
fail:
    row->failed = 1;
    row->mismatch = j.mismatch;
    snprintf(row->note, sizeof row->note, "%s", j.msg);
    gs_release(&j);
    cudaGetLastError(); /* clear a non-sticky error so that later rows still run */
}

/* ---- output ---- */

static void gs_row_names(const gs_row *r, char *shape, size_t sl, char *nn, size_t nl)
{
    rdx_gpu_seg_shape_name(&r->shape, shape, sl);
    gs_size_name(r->n, nn, nl);
}

static const char *gs_kind(const gs_row *r) { return r->c.value_bytes ? "pairs" : "keys"; }

static void gs_csv_header(FILE *csv)
{
    fprintf(csv, "gpu,shape,n,segments,key,value_bytes,kind,repeat,rdx_ms,cub_segsort_ms,cub_segradix_ms,"
                 "best_cub_over_rdx,rdx_gkeys,route,check,seed\n");
}

static void gs_csv_row(const gs_env *e, const gs_row *r)
{
    char shape[48], nn[24];
    gs_row_names(r, shape, sizeof shape, nn, sizeof nn);
    fprintf(e->csv, "\"%s\",%s,%zu,%zu,%s,%u,%s,%d,%.6f,%.6f,%.6f,%.4f,%.4f,\"%s\",%s,%llu\n", e->gpu, shape, r->n,
            r->segs, rdx_gpu_bench_type_name(r->c.key), r->c.value_bytes, gs_kind(r), e->o->repeat, r->rdx_ms,
            r->seg_ms, r->radix_ms, gs_ratio(r), r->rdx_ms > 0 ? (double)r->n / r->rdx_ms / 1e6 : 0.0, r->route,
            gs_check_word(r), (unsigned long long)e->o->seed);
    fflush(e->csv);
}

static void gs_ms(FILE *f, double ms)
{
    if (ms > 0) fprintf(f, " %11.3f", ms);
    else fprintf(f, " %11s", "-");
}

static void gs_header(FILE *f)
{
    fprintf(f, "%-10s %6s %8s %-4s %-5s %11s %11s %11s %8s  %-8s %s\n", "shape", "n", "segments", "type", "kind",
            "rdx ms", "segsort ms", "segradix ms", "rdx/CUB", "check", "route");
}

static void gs_print_row(FILE *f, const gs_row *r)
{
    char shape[48], nn[24];
    gs_row_names(r, shape, sizeof shape, nn, sizeof nn);
    fprintf(f, "%-10s %6s %8zu %-4s %-5s", shape, nn, r->segs, rdx_gpu_bench_type_name(r->c.key), gs_kind(r));
    gs_ms(f, r->rdx_ms);
    gs_ms(f, r->seg_ms);
    gs_ms(f, r->radix_ms);
    if (gs_ratio(r) > 0) fprintf(f, " %7.2fx", gs_ratio(r));
    else fprintf(f, " %8s", "-");
    fprintf(f, "  %-8s %s\n", gs_check_word(r), r->route);
}

/* The table, the failures and, last, the worst ratio. */
static void gs_report(const gs_env *e, const gs_row *rows, size_t nrows)
{
    FILE *f = e->out;
    const gs_row *worst = NULL;
    size_t i, bad = 0, skipped = 0, measured = 0;
    fprintf(f, "\n# rdxsort GPU segmented sorts (issue 14)\n");
    fprintf(f, "# %s; seed %llu; median of %d runs after %d warm-ups; L2 flushed before every run\n", e->gpu,
            (unsigned long long)e->o->seed, e->o->repeat, e->o->warmup);
    fprintf(f, "# rdx: rdx_cuda_segmented_sort_{keys,pairs}_async in place (equal rows: d_offsets NULL); segsort: "
               "CUB DeviceSegmentedSort::StableSort{Keys,Pairs}; segradix: CUB DeviceSegmentedRadixSort::"
               "Sort{Keys,Pairs}; CUB out of place, int offsets\n");
    fprintf(f, "# pairs: u32 values for u32 and f32 keys, u64 values for u64 keys; rdx/CUB = best CUB ms / rdx ms "
               "(> 1: rdxsort faster); every result checked bit for bit against segsort's\n");
    gs_header(f);
    for (i = 0; i < nrows; i++) {
        const gs_row *r = &rows[i];
        gs_print_row(f, r);
        bad += r->failed;
        skipped += r->skipped;
        if (gs_ratio(r) <= 0) continue;
        measured++;
        if (!worst || gs_ratio(r) < gs_ratio(worst)) worst = r;
    }
    if (bad) {
        fprintf(f, "\n%zu of %zu rows FAILED:\n", bad, nrows);
        for (i = 0; i < nrows; i++) {
            char shape[48], nn[24];
            if (!rows[i].failed) continue;
            gs_row_names(&rows[i], shape, sizeof shape, nn, sizeof nn);
            fprintf(f, "  %s %s %s: %s\n", shape, rdx_gpu_bench_type_name(rows[i].c.key), gs_kind(&rows[i]),
                    rows[i].note);
        }
    } else {
        fprintf(f, "\nall %zu rdxsort results matched CUB's%s\n", nrows - skipped,
                skipped ? " (some rows skipped)" : "");
    }
    fprintf(f, "%zu rows in %.0f s of wall time\n", nrows, difftime(time(NULL), e->started));
    if (worst) {
        char shape[48], nn[24];
        gs_row_names(worst, shape, sizeof shape, nn, sizeof nn);
        fprintf(f, "worst rdx/best-CUB over %zu rows: %.2fx (%s %s %s, n=%s, %zu segments)\n", measured,
                gs_ratio(worst), shape, rdx_gpu_bench_type_name(worst->c.key), gs_kind(worst), nn, worst->segs);
    } else {
        fprintf(f, "worst rdx/best-CUB: none measured\n");
    }
}

/* ---- the run ---- */

static int gs_start(gs_env *e)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return -1;
    snprintf(e->gpu, sizeof e->gpu, "%.200s, %d SMs, %d MB L2, %.0f GB", p.name, p.multiProcessorCount,
             p.l2CacheSize >> 20, p.totalGlobalMem / 1e9);
    e->flush_bytes = (size_t)RDX_GS_FLUSH_L2_TIMES * (size_t)(p.l2CacheSize > 0 ? p.l2CacheSize : 1 << 20);
    e->times = (float *)malloc(sizeof(float) * (size_t)e->o->repeat);
    if (!e->times || cudaEventCreate(&e->ev0) != cudaSuccess || cudaEventCreate(&e->ev1) != cudaSuccess ||
        cudaMalloc(&e->counters, sizeof(rdx_gb_verdict)) != cudaSuccess ||
        cudaMalloc(&e->flush, e->flush_bytes) != cudaSuccess)
        return -1;
    return 0;
}

static void gs_stop(gs_env *e)
{
    if (e->counters) cudaFree(e->counters);
    if (e->flush) cudaFree(e->flush);
    if (e->ev0) cudaEventDestroy(e->ev0);
    if (e->ev1) cudaEventDestroy(e->ev1);
    free(e->times);
}

extern "C" int rdx_gpu_seg_run(const rdx_gpu_seg_opts *given, FILE *out, FILE *csv)
{
    rdx_gpu_seg_opts opts = *given, *o = &opts;
    size_t cap, nrows = 0, s, c;
    gs_env e;
    gs_row *rows;
    int count = 0, failed = 0, broken = 0;
    cudaError_t err = cudaGetDeviceCount(&count);

    if (err != cudaSuccess || count == 0) {
        fprintf(out, "GPU segmented: no usable GPU (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "no device");
        return 2;
    }
    if (o->repeat < 1) o->repeat = 1;
    if (o->warmup < 0) o->warmup = 0;
    if (o->ncases > RDX_GS_MAX_CASES) o->ncases = RDX_GS_MAX_CASES;
    if (o->nshapes > RDX_GS_MAX_SHAPES) o->nshapes = RDX_GS_MAX_SHAPES;
    memset(&e, 0, sizeof e);
    e.o = o;
    e.out = out;
    e.csv = csv;
    e.started = time(NULL);
    if (gs_start(&e)) {
        fprintf(out, "GPU segmented: could not start (device properties, events or %zu MB for the L2 flush)\n",
                e.flush_bytes >> 20);
        gs_stop(&e);
        return 1;
    }
    cap = o->nshapes * o->ncases;
    rows = (gs_row *)calloc(cap ? cap : 1, sizeof *rows);
    if (!rows) {
        fprintf(out, "GPU segmented: out of host memory\n");
        gs_stop(&e);
        return 1;
    }
    fprintf(out, "GPU segmented sorts on %s, rdxsort %s, seed %llu\n", e.gpu, rdx_version_string(),
            (unsigned long long)o->seed);
    if (csv) gs_csv_header(csv);

    for (s = 0; s < o->nshapes && !broken; s++) {
        for (c = 0; c < o->ncases && !broken; c++) {
            gs_row *r = &rows[nrows++];
            char shape[48], nn[24];
            r->shape = o->shapes[s];
            r->c = o->cases[c];
            gs_measure(&e, r);
            gs_row_names(r, shape, sizeof shape, nn, sizeof nn);
            fprintf(stderr, "[%zu/%zu %4.0f s] %-10s %-4s %-5s rdx %9.3f ms  segsort %9.3f ms  segradix %9.3f ms  "
                            "%5.2fx  %s\n", nrows, cap, difftime(time(NULL), e.started), shape,
                    rdx_gpu_bench_type_name(r->c.key), gs_kind(r), r->rdx_ms, r->seg_ms, r->radix_ms, gs_ratio(r),
                    gs_check_word(r));
            if (r->failed || r->skipped)
                fprintf(out, "*** %s %s %s %s: %s (seed %llu)\n", gs_check_word(r), shape,
                        rdx_gpu_bench_type_name(r->c.key), gs_kind(r), r->note, (unsigned long long)o->seed);
            if (csv) gs_csv_row(&e, r);
            failed |= r->failed;
            /* A kernel fault leaves the CUDA context unusable: every later row would only fail
             * the same way. */
            if (r->failed && (err = cudaDeviceSynchronize()) != cudaSuccess) {
                fprintf(out, "*** the CUDA context is broken (%s): stopping here\n", cudaGetErrorString(err));
                broken = 1;
            }
        }
    }
    gs_report(&e, rows, nrows);
    free(rows);
    gs_stop(&e);
    return failed ? 1 : 0;
}
