/* The local work of one rank on host memory (dist.h): histograms, select and the stable
 * partition as plain loops (each rank is already a thread of its own), the local sort by
 * the CPU backend's rdx_sort_keys / rdx_sort_pairs. */
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "dist/keyspec.h"
#include "dist/tuning.h"

static uint64_t sort_key_at(const rdx_dist_job *job, const void *keys, size_t i)
{
    return rdx_dist_sort_key(rdx_dist_load(keys, i, job->key_size), (int)job->type, job->key_size,
                             job->cls, job->desc, job->numpy, job->begin_bit, job->end_bit);
}

/* The index of q among the ascending prefixes, or -1. */
static int find_prefix(const uint64_t *prefixes, int nprefix, uint64_t q)
{
    int lo = 0, hi = nprefix;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (prefixes[mid] < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nprefix && prefixes[lo] == q ? lo : -1;
}

/* What the splitter calls look at: the view compact kept, or the whole shard. */
static size_t view_size(const rdx_dist_engine *e, const rdx_dist_job *job)
{
    const rdx_dist_cpu_view *v = e->impl;
    return v->sk ? v->count : job->n;
}

static uint64_t view_key(const rdx_dist_engine *e, const rdx_dist_job *job, size_t i, size_t *pos)
{
    const rdx_dist_cpu_view *v = e->impl;
    if (v->sk) {
        *pos = v->pos[i];
        return v->sk[i];
    }
    *pos = i;
    return sort_key_at(job, job->keys, i);
}

static rdx_status cpu_histogram(const rdx_dist_engine *e, const rdx_dist_job *job, int depth,
                                int digit_bits, const uint64_t *prefixes, int nprefix,
                                uint64_t *counts)
{
    const int w = job->end_bit - job->begin_bit;
    const size_t bins = (size_t)1 << digit_bits, m = view_size(e, job);
    const uint64_t dmask = bins - 1;
    memset(counts, 0, (size_t)nprefix * bins * sizeof *counts);
    for (size_t i = 0; i < m; i++) {
        size_t pos;
        const uint64_t sk = view_key(e, job, i, &pos);
        const int p = find_prefix(prefixes, nprefix, rdx_dist_prefix(sk, w, depth));
        if (p >= 0)
            counts[(size_t)p * bins + ((sk >> (w - depth - digit_bits)) & dmask)]++;
    }
    return RDX_OK;
}

static rdx_status cpu_select(const rdx_dist_engine *e, const rdx_dist_job *job, int depth,
                             uint64_t prefix, uint64_t q, size_t *pos)
{
    const int w = job->end_bit - job->begin_bit;
    const size_t m = view_size(e, job);
    uint64_t seen = 0;
    for (size_t i = 0; i < m; i++) {
        size_t at;
        if (rdx_dist_prefix(view_key(e, job, i, &at), w, depth) == prefix && seen++ == q) {
            *pos = at;
            return RDX_OK;
        }
    }
    return rdx_fail(e->ctx, RDX_ERR_INTERNAL, "rdx_dist: select found %llu keys, not %llu",
                    (unsigned long long)seen, (unsigned long long)q + 1);
}

static rdx_status cpu_compact(const rdx_dist_engine *e, const rdx_dist_job *job, int depth,
                              const uint64_t *prefixes, int nprefix, uint64_t count, int *kept)
{
    rdx_dist_cpu_view *v = e->impl;
    *kept = 0;
    if (count > job->n / RDX_DIST_COMPACT_DIV)
        return RDX_OK;
    const int w = job->end_bit - job->begin_bit;
    uint64_t *sk = malloc((count ? count : 1) * sizeof *sk);
    size_t *pos = malloc((count ? count : 1) * sizeof *pos);
    if (!sk || !pos) {
        free(sk);
        free(pos);
        return RDX_OK; /* no room: keep reading the whole shard */
    }
    size_t k = 0;
    const size_t m = view_size(e, job);
    for (size_t i = 0; i < m; i++) {
        size_t at;
        const uint64_t key = view_key(e, job, i, &at);
        if (find_prefix(prefixes, nprefix, rdx_dist_prefix(key, w, depth)) >= 0) {
            if (k == count)
                break;
            sk[k] = key;
            pos[k++] = at;
        }
    }
    if (k != count) {
        free(sk);
        free(pos);
        return rdx_fail(e->ctx, RDX_ERR_INTERNAL, "rdx_dist: compact found %zu keys, not %llu", k,
                        (unsigned long long)count);
    }
    free(v->sk);
    free(v->pos);
    v->sk = sk;
    v->pos = pos;
    v->count = count;
    *kept = 1;
    return RDX_OK;
}

static void cpu_finish(const rdx_dist_engine *e)
{
    rdx_dist_cpu_view *v = e->impl;
    free(v->sk);
    free(v->pos);
    v->sk = NULL;
    v->pos = NULL;
    v->count = 0;
}

static rdx_status cpu_partition(const rdx_dist_engine *e, const rdx_dist_job *job,
                                const rdx_dist_split *splits, int nsplits, uint64_t *send_counts)
{
    const int P = nsplits + 1;
    unsigned char *dest = malloc(job->n ? job->n * sizeof(int) : 1);
    size_t *next = malloc((size_t)P * sizeof *next);
    if (!dest || !next) {
        free(dest);
        free(next);
        return rdx_fail(e->ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_dist: no host memory to partition %zu keys",
                        job->n);
    }
    int *d = (int *)(void *)dest;
    memset(send_counts, 0, (size_t)P * sizeof *send_counts);
    for (size_t i = 0; i < job->n; i++) {
        d[i] = rdx_dist_destination(splits, nsplits, sort_key_at(job, job->keys, i), i,
                                    job->end_bit - job->begin_bit);
        send_counts[d[i]]++;
    }
    size_t off = 0;
    for (int k = 0; k < P; k++) {
        next[k] = off;
        off += send_counts[k];
    }
    const size_t ks = job->key_size, vs = job->value_size;
    for (size_t i = 0; i < job->n; i++) {
        const size_t to = next[d[i]]++;
        memcpy((unsigned char *)job->send_keys + to * ks, (const unsigned char *)job->keys + i * ks, ks);
        if (vs)
            memcpy((unsigned char *)job->send_values + to * vs,
                   (const unsigned char *)job->values + i * vs, vs);
    }
    free(dest);
    free(next);
    return RDX_OK;
}

static rdx_status cpu_local_sort(const rdx_dist_engine *e, const rdx_dist_job *job, size_t m)
{
    const rdx_opts opts = {job->flags, job->begin_bit, job->end_bit, job->radix_bits};
    return job->value_size
               ? rdx_sort_pairs(e->ctx, job->out_keys, job->out_values, job->value_size, m, job->type, &opts)
               : rdx_sort_keys(e->ctx, job->out_keys, m, job->type, &opts);
}

void rdx_dist_cpu_engine(rdx_ctx *ctx, rdx_dist_cpu_view *view, rdx_dist_engine *out)
{
    memset(out, 0, sizeof *out);
    out->impl = view;
    out->ctx = ctx;
    out->compact = cpu_compact;
    out->finish = cpu_finish;
    out->histogram = cpu_histogram;
    out->select = cpu_select;
    out->partition = cpu_partition;
    out->local_sort = cpu_local_sort;
}
