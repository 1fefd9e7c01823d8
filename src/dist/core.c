/* The distributed sort on one rank (dist.h): exact splitters by a distributed radix
 * select, a stable partition by destination, one all-to-all exchange, the local sort.
 * Only bookkeeping lives here: the work on keys is the engine's, the talking the comm's. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist/dist.h"
#include "dist/keyspec.h"
#include "dist/tuning.h"

#define RDX_NUMPY_ORDER_FLAG 2u /* rdx.h's RDX_NUMPY_ORDER (version 0.2) */

uint64_t rdx_dist_bound(uint64_t total, int r, int p)
{
    const uint64_t q = total / (uint64_t)p, rem = total % (uint64_t)p;
    return q * (uint64_t)r + rem * (uint64_t)r / (uint64_t)p;
}

rdx_status rdx_dist_prepare(rdx_ctx *ctx, const char *fn, rdx_type type, const rdx_opts *opts,
                            rdx_dist_job *job)
{
    static const rdx_opts defaults = {0, 0, 0, 0};
    if (!opts)
        opts = &defaults;
    if (!rdx_type_is_valid((int)type))
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: type %d is no rdx_type", fn, (int)type);
    const unsigned known = RDX_DESCENDING | RDX_NUMPY_ORDER_FLAG;
    if (opts->flags & ~known)
        return rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT, "%s: opts->flags has unknown bits 0x%x", fn,
                        opts->flags & ~known);
    const int width = (int)rdx_type_bytes((int)type) * 8;
    rdx_status bs = rdx_check_bits(ctx, fn, width, opts);
    if (bs != RDX_OK)
        return bs;
    const int end_bit = opts->end_bit == 0 ? width : opts->end_bit;
    memset(job, 0, sizeof *job);
    job->type = type;
    job->key_size = (unsigned)width / 8;
    job->cls = (int)rdx_type_class(type);
    job->desc = (opts->flags & RDX_DESCENDING) != 0;
    job->numpy = (opts->flags & RDX_NUMPY_ORDER_FLAG) != 0 && job->cls == RDX_CLASS_FLOAT;
    job->begin_bit = opts->begin_bit;
    job->end_bit = end_bit;
    job->flags = opts->flags;
    job->radix_bits = opts->radix_bits;
    return RDX_OK;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* What every rank must agree on, as one word. */
static uint64_t fingerprint(const rdx_dist_job *job)
{
    uint64_t h = (uint64_t)job->type | (uint64_t)(job->flags & 0xffu) << 8 |
                 (uint64_t)job->begin_bit << 16 | (uint64_t)job->end_bit << 24;
    /* (not whether values is NULL: an empty shard of a pairs sort may pass NULL) */
    return h ^ ((uint64_t)job->value_size * 0x9E3779B97F4A7C15ull);
}

/* An all-reduce of buf[0..count) that also tells every rank whether any rank failed
 * before it (local = this rank's status so far): buf has count + P words, the last P
 * hold each rank's status. A failure anywhere becomes a failure everywhere, so no rank
 * goes on to a collective that the others skip. */
static rdx_status allreduce_agreed(rdx_dist_comm *c, rdx_ctx *ctx, uint64_t *buf, size_t count,
                                   rdx_status local)
{
    const int P = c->size;
    if (local != RDX_OK)
        memset(buf, 0, (count + (size_t)P) * sizeof *buf);
    else
        memset(buf + count, 0, (size_t)P * sizeof *buf);
    buf[count + (size_t)c->rank] = (uint64_t)local;
    rdx_status s = c->allreduce_u64(c, buf, buf, count + (size_t)P);
    if (s != RDX_OK || local != RDX_OK)
        return s != RDX_OK ? s : local;
    for (int k = 0; k < P; k++)
        if (buf[count + (size_t)k] != RDX_OK)
            return rdx_fail(ctx, (rdx_status)buf[count + (size_t)k], "rdx_dist: rank %d failed (%s)", k,
                            rdx_status_string((rdx_status)buf[count + (size_t)k]));
    return RDX_OK;
}

/* Host scratch of one call, all allocated before the first collective. */
typedef struct split_state {
    uint64_t c;   /* the split point's remaining position inside its bucket */
    uint64_t e;   /* this rank's keys in that bucket */
} split_state;

typedef struct scratch {
    uint64_t *v;            /* 3P + P: sizes, capacities, fingerprints; statuses */
    uint64_t *prefixes;     /* P - 1 */
    uint64_t *local;        /* (P - 1) * 2^digit */
    uint64_t *global;       /* (P - 1) * 2^digit + P */
    uint64_t *ties;         /* (P - 1) * P + P */
    uint64_t *m;            /* P * P + P: keys from rank s to rank d */
    size_t *sizes;          /* 4P: send bytes and offsets, receive bytes and offsets */
    rdx_dist_split *splits; /* P */
    split_state *st;        /* P */
} scratch;

static void scratch_free(scratch *x)
{
    free(x->v);
    free(x->prefixes);
    free(x->local);
    free(x->global);
    free(x->ties);
    free(x->m);
    free(x->sizes);
    free(x->splits);
    free(x->st);
}

static int scratch_alloc(scratch *x, int P)
{
    const size_t p = (size_t)P, bins = (size_t)1 << RDX_DIST_DIGIT_BITS;
    memset(x, 0, sizeof *x);
    x->v = calloc(4 * p, sizeof *x->v);
    x->prefixes = calloc(p, sizeof *x->prefixes);
    x->local = calloc(p * bins, sizeof *x->local);
    x->global = calloc(p * bins + p, sizeof *x->global);
    x->ties = calloc(p * p + p, sizeof *x->ties);
    x->m = calloc(p * p + p, sizeof *x->m);
    x->sizes = calloc(4 * p, sizeof *x->sizes);
    x->splits = calloc(p, sizeof *x->splits);
    x->st = calloc(p, sizeof *x->st);
    return x->v && x->prefixes && x->local && x->global && x->ties && x->m && x->sizes && x->splits && x->st;
}

/* Step 1: every rank's size, capacity and options (and whether its scratch could be had);
 * N; the capacity check. The same verdict on every rank. */
static rdx_status agree(rdx_dist_comm *c, const rdx_dist_job *job, rdx_ctx *ctx, uint64_t *v,
                        rdx_status local, uint64_t *total)
{
    const int P = c->size, r = c->rank;
    if (!v) /* not even 4P words of host memory: the others will wait (not expected) */
        return local;
    v[r] = job->n;
    v[P + r] = job->capacity;
    v[2 * P + r] = fingerprint(job);
    rdx_status s = allreduce_agreed(c, ctx, v, (size_t)3 * P, local);
    if (s != RDX_OK)
        return s;
    uint64_t n = 0;
    for (int k = 0; k < P; k++)
        n += v[k];
    for (int k = 0; k < P && s == RDX_OK; k++)
        if (v[2 * P + k] != v[2 * P])
            s = rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                         "rdx_dist: rank %d's key type, options or value size differ from rank 0's", k);
    for (int k = 0; k < P && s == RDX_OK; k++) {
        const uint64_t part = rdx_dist_bound(n, k + 1, P) - rdx_dist_bound(n, k, P);
        if (part > v[P + k])
            s = rdx_fail(ctx, RDX_ERR_INVALID_ARGUMENT,
                         "rdx_dist: rank %d's part of the result is %llu keys (N = %llu over %d ranks) "
                         "but its out_capacity is %llu; nothing was changed",
                         k, (unsigned long long)part, (unsigned long long)n, P,
                         (unsigned long long)v[P + k]);
    }
    *total = n;
    return s;
}

/* Step 2: the distributed radix select. Fills x->splits[0..P-1). Every failure is agreed
 * (allreduce_agreed), so every rank makes the same collectives. */
static rdx_status find_splits(rdx_dist_comm *c, const rdx_dist_engine *eng, const rdx_dist_job *job,
                              uint64_t total, scratch *x, int *levels, int *compacted_at)
{
    int compacted = 0;
    const int P = c->size, ns = P - 1, w = job->end_bit - job->begin_bit;
    rdx_ctx *ctx = eng->ctx;
    rdx_dist_split *splits = x->splits;
    split_state *st = x->st;
    for (int j = 0; j < ns; j++) {
        splits[j].depth = 0;
        splits[j].prefix = 0;
        splits[j].pos = 0;
        st[j].c = rdx_dist_bound(total, j + 1, P);
        st[j].e = job->n;
    }
    rdx_status s = RDX_OK, local = RDX_OK; /* local: this rank's, told at the next all-reduce */
    int depth = 0;
    *levels = 0;
    while (depth < w) {
        /* The active split points (not yet at a bucket edge) share `depth`; their
         * prefixes are non-decreasing in j. The same on every rank. */
        int nu = 0;
        for (int j = 0; j < ns; j++)
            if (st[j].c > 0 && (nu == 0 || x->prefixes[nu - 1] != splits[j].prefix))
                x->prefixes[nu++] = splits[j].prefix;
        if (nu == 0)
            break;
        const int db = w - depth < RDX_DIST_DIGIT_BITS ? w - depth : RDX_DIST_DIGIT_BITS;
        const size_t bins = (size_t)1 << db;
        if (local == RDX_OK)
            local = eng->histogram(eng, job, depth, db, x->prefixes, nu, x->local);
        if (local == RDX_OK)
            memcpy(x->global, x->local, (size_t)nu * bins * sizeof *x->global);
        s = allreduce_agreed(c, ctx, x->global, (size_t)nu * bins, local);
        if (s != RDX_OK)
            break;
        (*levels)++;
        int u = 0;
        for (int j = 0; j < ns; j++) {
            if (st[j].c == 0)
                continue;
            while (x->prefixes[u] != splits[j].prefix)
                u++;
            const uint64_t *g = x->global + (size_t)u * bins;
            uint64_t cum = 0;
            size_t b = 0;
            while (b + 1 < bins && cum + g[b] <= st[j].c)
                cum += g[b++];
            st[j].c -= cum;
            st[j].e = x->local[(size_t)u * bins + b];
            splits[j].prefix = splits[j].prefix << db | b;
            splits[j].depth = depth + db;
        }
        depth += db;
        /* Narrow the engine's view to the buckets still searched (their local counts are
         * known: a prefix shared by several split points counts once). Local only. */
        if (eng->compact && !compacted && depth < w) {
            uint64_t count = 0, last = 0;
            int any = 0, nu2 = 0;
            for (int j = 0; j < ns; j++)
                if (st[j].c > 0 && (!any || splits[j].prefix != last)) {
                    count += st[j].e;
                    last = splits[j].prefix;
                    x->prefixes[nu2++] = last;
                    any = 1;
                }
            if (nu2 > 0) { /* nu2 > 0: there is a next round, whose all-reduce tells a failure */
                local = eng->compact(eng, job, depth, x->prefixes, nu2, count, &compacted);
                if (compacted)
                    *compacted_at = *levels;
            }
        }
    }
    if (s != RDX_OK)
        return s;

    /* Step 3: split points inside a run of equal sort keys: the first c of them in (rank,
     * position) order come before. Every rank's count in the run, then this rank's quota
     * (a select failure reaches the others through the exchange's first all-reduce). */
    int nt = 0;
    for (int j = 0; j < ns; j++)
        nt += st[j].c > 0;
    if (nt == 0)
        return RDX_OK;
    uint64_t *e = x->ties;
    memset(e, 0, (size_t)nt * P * sizeof *e);
    for (int j = 0, t = 0; j < ns; j++)
        if (st[j].c > 0)
            e[(size_t)t++ * P + c->rank] = st[j].e;
    s = allreduce_agreed(c, ctx, e, (size_t)nt * P, RDX_OK);
    for (int j = 0, t = 0; j < ns && s == RDX_OK; j++) {
        if (st[j].c == 0)
            continue;
        uint64_t before = 0;
        for (int k = 0; k < c->rank; k++)
            before += e[(size_t)t * P + k];
        t++;
        const uint64_t q = st[j].c <= before ? 0 : st[j].c - before;
        if (q == 0)
            splits[j].pos = 0;
        else if (q >= st[j].e)
            splits[j].pos = job->n;
        else
            s = eng->select(eng, job, splits[j].depth, splits[j].prefix, q, &splits[j].pos);
    }
    return s;
}

/* Step 4: partition, exchange the counts, move every key once. local: this rank's status
 * so far (made known to every rank by the first all-reduce here). */
static rdx_status exchange(rdx_dist_comm *c, const rdx_dist_engine *eng, const rdx_dist_job *job,
                           scratch *x, uint64_t total, rdx_status local, size_t *n_out)
{
    const int P = c->size, r = c->rank;
    rdx_ctx *ctx = eng->ctx;
    uint64_t *m = x->m;
    size_t *sb = x->sizes, *so = sb + P, *rb = sb + 2 * P, *ro = sb + 3 * P;
    memset(m, 0, (size_t)P * P * sizeof *m);
    rdx_status s = local;
    if (s == RDX_OK)
        s = eng->partition(eng, job, x->splits, P - 1, m + (size_t)r * P);
    s = allreduce_agreed(c, ctx, m, (size_t)P * P, s);
    size_t got = 0;
    for (int d = 0; d < P && s == RDX_OK; d++) { /* every rank checks every rank: agreed */
        uint64_t in = 0;
        for (int k = 0; k < P; k++)
            in += m[(size_t)k * P + d];
        const uint64_t want = rdx_dist_bound(total, d + 1, P) - rdx_dist_bound(total, d, P);
        if (in != want)
            s = rdx_fail(ctx, RDX_ERR_INTERNAL, "rdx_dist: rank %d would receive %llu keys, not %llu", d,
                         (unsigned long long)in, (unsigned long long)want);
        if (d == r)
            got = (size_t)in;
    }
    for (int pass = 0; pass < 2 && s == RDX_OK; pass++) {
        const size_t size = pass == 0 ? job->key_size : job->value_size;
        if (size == 0)
            break;
        size_t off_s = 0, off_r = 0;
        for (int k = 0; k < P; k++) {
            so[k] = off_s;
            sb[k] = (size_t)m[(size_t)r * P + k] * size;
            off_s += sb[k];
            ro[k] = off_r;
            rb[k] = (size_t)m[(size_t)k * P + r] * size;
            off_r += rb[k];
        }
        s = pass == 0 ? c->alltoallv(c, job->send_keys, sb, so, job->out_keys, rb, ro)
                      : c->alltoallv(c, job->send_values, sb, so, job->out_values, rb, ro);
    }
    *n_out = got;
    return s;
}

rdx_status rdx_dist_run(rdx_dist_comm *comm, const rdx_dist_engine *eng, const rdx_dist_job *job,
                        int timing, rdx_dist_result *res)
{
    memset(res, 0, sizeof *res);
    const double t0 = now_ms();
    scratch x;
    rdx_status s = RDX_OK;
    if (!scratch_alloc(&x, comm->size))
        s = rdx_fail(eng->ctx, RDX_ERR_OUT_OF_MEMORY, "rdx_dist: no host memory for %d ranks", comm->size);
    uint64_t total = 0;
    s = agree(comm, job, eng->ctx, x.v, s, &total);
    res->n_total = total;
    if (s == RDX_OK && total > 0) {
        res->compacted_at = -1;
        s = find_splits(comm, eng, job, total, &x, &res->levels, &res->compacted_at);
        const double t1 = now_ms();
        res->ms[0] = t1 - t0;
        size_t got = 0;
        s = exchange(comm, eng, job, &x, total, s, &got);
        if (s == RDX_OK && timing && eng->sync)
            s = eng->sync(eng);
        const double t2 = now_ms();
        res->ms[1] = t2 - t1;
        if (s == RDX_OK && got > 0)
            s = eng->local_sort(eng, job, got);
        if (s == RDX_OK && timing && eng->sync)
            s = eng->sync(eng);
        res->ms[2] = now_ms() - t2;
        res->n_out = got;
    }
    if (eng->finish)
        eng->finish(eng);
    scratch_free(&x);
    return s;
}
