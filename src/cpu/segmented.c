/* Segmented sorts on the CPU backend. Segments are binned by length in two passes over the
 * offsets: short ones (tuning.h: up to RDX_CPU_SEG_ROW_MAX keys, or a small share of all
 * keys) are shared among the threads (OpenMP dynamic schedule), each sorted by one thread
 * in its own buffers (row.c); long ones go, one after the other, through the whole-array
 * sort with every thread on it (sort.c).
 * Every buffer is taken before the first write: the row buffers first, then the longest
 * segment's sort takes the scratch that every shorter one reuses. */
#include <omp.h>

#include "cpu.h"
#include "row.h"
#include "tuning.h"

/* Segment s of the job: [*lo, *hi). */
static void segment(const rdx_job *job, size_t s, size_t *lo, size_t *hi)
{
    if (job->offsets) {
        *lo = job->offsets[s];
        *hi = job->offsets[s + 1];
    } else {
        *lo = s * job->segment_size;
        *hi = *lo + job->segment_size;
    }
}

/* Segment [lo, hi) as a whole-array job. */
static rdx_status sort_long(rdx_ctx *ctx, const rdx_job *job, size_t lo, size_t hi)
{
    rdx_job sub = *job;
    sub.segmented = 0;
    sub.offsets = NULL;
    sub.n = hi - lo;
    sub.keys = (unsigned char *)job->keys + lo * job->key_size;
    if (job->kind == RDX_JOB_PAIRS)
        sub.values = (unsigned char *)job->values + lo * job->value_size;
    if (job->kind == RDX_JOB_ARGSORT)
        sub.indices = (unsigned char *)job->indices + lo * (job->index_type == RDX_U32 ? 4u : 8u);
    return rdx_cpu_sort(ctx, &sub);
}

/* Whether a segment of m keys is long: sorted by all threads together. */
static int is_long(size_t m, size_t limit) { return m > RDX_CPU_SEG_ROW_MAX && m > limit; }

rdx_status rdx_cpu_segmented_sort(rdx_ctx *ctx, const rdx_job *job)
{
    const size_t S = job->num_segments;
    size_t all_keys = 0;
    for (size_t s = 0; s < S; s++) {
        size_t lo, hi;
        segment(job, s, &lo, &hi);
        all_keys += hi - lo;
    }
    /* Rows up to this length are sorted one per thread. */
    size_t limit = all_keys / (2 * (size_t)omp_get_max_threads());
    if (limit > RDX_CPU_SEG_ROW_CAP)
        limit = RDX_CPU_SEG_ROW_CAP;
    size_t longest_short = 0, short_keys = 0, nlong = 0, longest = 0, longest_at = 0;
    for (size_t s = 0; s < S; s++) {
        size_t lo, hi;
        segment(job, s, &lo, &hi);
        const size_t m = hi - lo;
        if (is_long(m, limit)) {
            nlong++;
            if (m > longest) {
                longest = m;
                longest_at = s;
            }
        } else {
            short_keys += m;
            if (m > longest_short)
                longest_short = m;
        }
    }

    rdx_cpu_rowjob rj;
    rdx_cpu_rowjob_init(&rj, job);
    int nthreads = omp_get_max_threads();
    const size_t most = short_keys / RDX_CPU_MIN_KEYS_PER_THREAD;
    if ((size_t)nthreads > most)
        nthreads = most > 0 ? (int)most : 1;
    size_t per_thread = 0;
    unsigned char *rows = NULL;
    if (longest_short > 0) {
        per_thread = rdx_cpu_row_bytes(&rj, longest_short);
        per_thread = (per_thread + RDX_CPU_CACHE_LINE - 1) / RDX_CPU_CACHE_LINE * RDX_CPU_CACHE_LINE;
        rows = (unsigned char *)rdx_cpu_reserve(ctx, RDX_CPU_BUF_ROWS, (size_t)nthreads, per_thread,
                                                "segment");
        if (!rows)
            return RDX_ERR_OUT_OF_MEMORY;
    }

    /* The longest segment first: it takes the scratch every other one then reuses, so a
     * failure can only come before anything was written. */
    if (nlong) {
        size_t lo, hi;
        segment(job, longest_at, &lo, &hi);
        rdx_status st = sort_long(ctx, job, lo, hi);
        if (st != RDX_OK)
            return st;
        for (size_t s = 0; s < S; s++) {
            segment(job, s, &lo, &hi);
            if (is_long(hi - lo, limit) && s != longest_at) {
                st = sort_long(ctx, job, lo, hi);
                if (st != RDX_OK) /* cannot happen: the scratch is already there */
                    return st;
            }
        }
    }
    if (!rows)
        return RDX_OK; /* every segment was long */

    unsigned char *keys = (unsigned char *)job->keys;
    unsigned char *values = (unsigned char *)job->values;
    unsigned char *indices = (unsigned char *)job->indices;
    const size_t kb = job->key_size, vs = job->value_size, ib = rj.index_bytes;
#pragma omp parallel num_threads(nthreads)
    {
        rdx_cpu_rowbuf b;
        rdx_cpu_rowbuf_init(&b, &rj, rows + (size_t)omp_get_thread_num() * per_thread, longest_short);
#pragma omp for schedule(dynamic, RDX_CPU_SEG_CHUNK)
        for (size_t s = 0; s < S; s++) {
            size_t lo, hi;
            segment(job, s, &lo, &hi);
            if (is_long(hi - lo, limit))
                continue;
            rdx_cpu_sort_row(&rj, &b, keys + lo * kb, values ? values + lo * vs : NULL,
                             indices ? indices + lo * ib : NULL, hi - lo);
        }
    }
    return RDX_OK;
}
