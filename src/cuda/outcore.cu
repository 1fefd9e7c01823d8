/* The out-of-core route's host side (outcore.h): the device layout, the copies between the
 * host arrays and the device, the split, the partition pass and the segments' sorts. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "key_codec.h"

#include "common.cuh"
#include "host_copy.h"
#include "lowmem.h"
#include "outcore.h"
#include "plan.h"
#include "route.h"

#define OOC_TILE ((size_t)RDX_OOC_THREADS * RDX_OOC_ITEMS)
#define OOC_BINS ((size_t)1 << RDX_OOC_DIGIT_BITS)

static size_t value_bytes(const rdx_job *job) { return job->kind == RDX_JOB_PAIRS ? job->value_size : 0; }

/* Device bytes the route keeps beside the class buffer and its eighth: the low-memory
 * route's slack, and alignment. */
#define OOC_KEEP (RDX_LM_SLACK_BYTES + 16 * RDX_TEMP_ALIGN)

int rdx_cuda_outcore_takes(const rdx_job *job)
{
    if (job->numpy_order || job->segmented || job->kind == RDX_JOB_ARGSORT)
        return 0;
    return job->kind == RDX_JOB_KEYS || job->value_size == 4 || job->value_size == 8;
}

size_t rdx_cuda_outcore_full_bytes(const rdx_job *job)
{
    const size_t arrays = job->n * (job->key_size + value_bytes(job));
    return OOC_KEEP + arrays + (arrays + 7) / 8;
}

/* Where everything lives in the device budget (offsets from its aligned base). The class
 * buffer takes 8/9 of it; the rest is the low-memory route's temporary storage while a
 * class is sorted, and the chunks' buffers and tables while the arrays stream through. */
typedef struct ooc_space {
    size_t cap;   /* records of the class buffer */
    size_t chunk; /* records per chunk (0: none fit; only a job that fits at once runs) */
    size_t cls_keys, cls_vals, rest, rest_bytes;
    size_t in_keys[2], in_vals[2], out_keys[2], out_vals[2], hist, state, tiles;
} ooc_space;

static int plan_space(const rdx_job *job, const rdx_cuda_tuning *t, size_t budget, ooc_space *sp)
{
    const size_t kb = job->key_size, vb = value_bytes(job), r = kb + vb;
    memset(sp, 0, sizeof *sp);
    /* The most records with cap * r + cap * r / 8 + OOC_KEEP <= budget. */
    size_t cap = budget > OOC_KEEP ? (budget - OOC_KEEP) * 8 / (9 * r) : 0;
    if (cap > job->n)
        cap = job->n;
    if (cap == 0)
        return 0;
    size_t end = 0;
    sp->cls_keys = rdx_cuda_take(&end, cap * kb);
    sp->cls_vals = rdx_cuda_take(&end, cap * vb);
    sp->rest = rdx_cuda_take(&end, 0);
    sp->rest_bytes = budget - RDX_TEMP_ALIGN - sp->rest;
    sp->cap = cap;
    const size_t chunk_bytes = t->outcore_chunk_bytes ? t->outcore_chunk_bytes : RDX_OOC_CHUNK_BYTES;
    for (size_t chunk = chunk_bytes / r; chunk >= OOC_TILE; chunk /= 2) {
        size_t at = sp->rest;
        for (int b = 0; b < 2; ++b) {
            sp->in_keys[b] = rdx_cuda_take(&at, chunk * kb);
            sp->in_vals[b] = rdx_cuda_take(&at, chunk * vb);
            sp->out_keys[b] = rdx_cuda_take(&at, chunk * kb);
            sp->out_vals[b] = rdx_cuda_take(&at, chunk * vb);
        }
        sp->hist = rdx_cuda_take(&at, (OOC_BINS + 1) * 8);
        sp->state = rdx_cuda_take(&at, RDX_OOC_WORDS * 8);
        sp->tiles = rdx_cuda_take(&at, (chunk + OOC_TILE - 1) / OOC_TILE * 8);
        if (at <= sp->rest + sp->rest_bytes) {
            sp->chunk = chunk;
            break;
        }
    }
    return 1;
}

/* ---- copies between the host arrays and the device ---- */

/* Two streams of copies beside the kernels' stream. Page-locked arrays are copied
 * directly; pageable ones through pinned staging buffers ([0, 2) in, [2, 4) out), the
 * host copying out of a buffer once its copy from the device is done. */
typedef struct ooc_io {
    rdx_ctx *ctx;
    cudaStream_t in, out;
    unsigned char *stage[4];
    size_t stage_bytes;
    cudaEvent_t staged[4];
    unsigned char *pend_dst[2]; /* host copies still to do from stage[2 + b] */
    size_t pend_bytes[2];
    int next_in, next_out;
} ooc_io;

static rdx_status io_in(ooc_io *io, void *dev, const void *host, size_t bytes, int pinned)
{
    rdx_ctx *ctx = io->ctx;
    if (pinned) {
        if (bytes)
            RDX_CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, io->in));
        return RDX_OK;
    }
    for (size_t off = 0; off < bytes; off += io->stage_bytes) {
        const size_t c = bytes - off < io->stage_bytes ? bytes - off : io->stage_bytes;
        const int b = io->next_in;
        io->next_in ^= 1;
        RDX_CUDA_TRY(cudaEventSynchronize(io->staged[b])); /* its last copy is done */
        rdx_host_copy(io->stage[b], (const unsigned char *)host + off, c);
        RDX_CUDA_TRY(cudaMemcpyAsync((unsigned char *)dev + off, io->stage[b], c, cudaMemcpyHostToDevice, io->in));
        RDX_CUDA_TRY(cudaEventRecord(io->staged[b], io->in));
    }
    return RDX_OK;
}

static rdx_status io_finish(ooc_io *io, int b)
{
    rdx_ctx *ctx = io->ctx;
    if (!io->pend_bytes[b])
        return RDX_OK;
    RDX_CUDA_TRY(cudaEventSynchronize(io->staged[2 + b]));
    rdx_host_copy(io->pend_dst[b], io->stage[2 + b], io->pend_bytes[b]);
    io->pend_bytes[b] = 0;
    return RDX_OK;
}

static rdx_status io_out(ooc_io *io, void *host, const void *dev, size_t bytes, int pinned)
{
    rdx_ctx *ctx = io->ctx;
    if (pinned) {
        if (bytes)
            RDX_CUDA_TRY(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, io->out));
        return RDX_OK;
    }
    for (size_t off = 0; off < bytes; off += io->stage_bytes) {
        const size_t c = bytes - off < io->stage_bytes ? bytes - off : io->stage_bytes;
        const int b = io->next_out;
        io->next_out ^= 1;
        const rdx_status s = io_finish(io, b);
        if (s != RDX_OK)
            return s;
        RDX_CUDA_TRY(cudaMemcpyAsync(io->stage[2 + b], (const unsigned char *)dev + off, c, cudaMemcpyDeviceToHost,
                                     io->out));
        RDX_CUDA_TRY(cudaEventRecord(io->staged[2 + b], io->out));
        io->pend_dst[b] = (unsigned char *)host + off;
        io->pend_bytes[b] = c;
    }
    return RDX_OK;
}

static rdx_status io_flush(ooc_io *io)
{
    rdx_status s = io_finish(io, 0);
    return s == RDX_OK ? io_finish(io, 1) : s;
}

/* ---- the route ---- */

/* Events between the three streams: a chunk's copy in, its kernels, its copy out (per
 * buffer), one to order the streams at the start of a step, and the last write of a
 * partition's records back into the host segment (it must land before the segment is
 * read again). */
enum { EV_IN = 0, EV_KERNEL = 2, EV_OUT = 4, EV_JOIN = 6, EV_REST = 7, EV_COUNT = 8 };

typedef struct ooc_run {
    rdx_ctx *ctx;
    const rdx_job *job;
    const rdx_cuda_tuning *t;
    ooc_space sp;
    unsigned char *base;
    cudaStream_t s; /* the kernels' */
    ooc_io io;
    cudaEvent_t ev[EV_COUNT];
    unsigned long long *counts; /* pinned: the chunks' records going back, per buffer */
    unsigned long long *sample; /* host: RDX_OOC_SAMPLE keys' values */
    int pinned_k, pinned_v;
    size_t kb, vb;
    rdx_ooc_args a;
} ooc_run;

static unsigned char *keys_at(const ooc_run *o, size_t i) { return (unsigned char *)o->job->keys + i * o->kb; }
static unsigned char *vals_at(const ooc_run *o, size_t i) { return (unsigned char *)o->job->values + i * o->vb; }

/* Makes `to` wait for what is enqueued on `from` so far. */
static rdx_status join(ooc_run *o, cudaStream_t from, cudaStream_t to)
{
    rdx_ctx *ctx = o->ctx;
    RDX_CUDA_TRY(cudaEventRecord(o->ev[EV_JOIN], from));
    RDX_CUDA_TRY(cudaStreamWaitEvent(to, o->ev[EV_JOIN], 0));
    return RDX_OK;
}

/* Chunk q (in the order the pass takes them): host records [at, at + m) into buffer b
 * (q & 1), keys and, with `vals`, values, once chunk q - 2's kernels are done with it; the
 * kernels' stream waits for the copy. */
static rdx_status chunk_in(ooc_run *o, size_t q, size_t at, size_t m, int vals)
{
    rdx_ctx *ctx = o->ctx;
    const int b = (int)(q & 1);
    if (q >= 2)
        RDX_CUDA_TRY(cudaStreamWaitEvent(o->io.in, o->ev[EV_KERNEL + b], 0));
    rdx_status st = io_in(&o->io, o->base + o->sp.in_keys[b], keys_at(o, at), m * o->kb, o->pinned_k);
    if (st == RDX_OK && vals)
        st = io_in(&o->io, o->base + o->sp.in_vals[b], vals_at(o, at), m * o->vb, o->pinned_v);
    if (st != RDX_OK)
        return st;
    RDX_CUDA_TRY(cudaEventRecord(o->ev[EV_IN + b], o->io.in));
    RDX_CUDA_TRY(cudaStreamWaitEvent(o->s, o->ev[EV_IN + b], 0));
    return RDX_OK;
}

/* The histogram of records [lo, lo + len) (the window in o->a) into h[OOC_BINS + 1]. */
static rdx_status count_pass(ooc_run *o, size_t lo, size_t len, unsigned long long *h)
{
    rdx_ctx *ctx = o->ctx;
    const size_t bins = (size_t)1 << (o->a.pl - o->a.shift), chunk = o->sp.chunk;
    rdx_status st = join(o, o->s, o->io.in); /* the buffers are free */
    if (st != RDX_OK)
        return st;
    RDX_CUDA_TRY(cudaStreamWaitEvent(o->io.in, o->ev[EV_REST], 0)); /* the segment is whole */
    RDX_CUDA_TRY(cudaMemsetAsync(o->a.hist, 0, (bins + 1) * 8, o->s));
    for (size_t q = 0, off = 0; off < len; ++q, off += chunk) {
        const int b = (int)(q & 1);
        const size_t m = len - off < chunk ? len - off : chunk;
        st = chunk_in(o, q, lo + off, m, 0);
        if (st != RDX_OK)
            return st;
        o->a.keys = o->base + o->sp.in_keys[b];
        o->a.m = m;
        RDX_CUDA_TRY(rdx_ooc_histogram(&o->a, o->t->sms, o->s));
        RDX_CUDA_TRY(cudaEventRecord(o->ev[EV_KERNEL + b], o->s));
    }
    RDX_CUDA_TRY(cudaMemcpyAsync(h, o->a.hist, (bins + 1) * 8, cudaMemcpyDeviceToHost, o->s));
    RDX_CUDA_TRY(cudaStreamSynchronize(o->s));
    return RDX_OK;
}

/* Class 0 of [lo, lo + len) (len > cap): the boundary in o->a, its size in *a0. */
static rdx_status find_split(ooc_run *o, size_t lo, size_t len, size_t *a0)
{
    const size_t cap = o->sp.cap;
    unsigned long long h[OOC_BINS + 1];
    int pl = o->a.width;
    unsigned long long prefix = 0;
    for (;;) {
        const int shift = pl > RDX_OOC_DIGIT_BITS ? pl - RDX_OOC_DIGIT_BITS : 0;
        const size_t bins = (size_t)1 << (pl - shift);
        o->a.pl = pl;
        o->a.shift = shift;
        o->a.prefix = prefix;
        const rdx_status st = count_pass(o, lo, len, h);
        if (st != RDX_OK)
            return st;
        size_t cum = (size_t)h[bins], d = 0;
        while (d < bins && cum + h[d] <= cap)
            cum += (size_t)h[d++];
        /* The keys below bucket d: bucket d itself (not empty) does not fit beside them. */
        const unsigned long long key = ((prefix << (pl - shift)) + d) << shift;
        if (2 * cum >= cap || d == bins) {
            o->a.key = key;
            o->a.take = o->a.count = 0;
            *a0 = cum;
            return RDX_OK;
        }
        if (shift == 0) { /* bucket d is one key: cut it by occurrence */
            o->a.key = key;
            o->a.count = h[d];
            o->a.take = cap - cum;
            *a0 = cap;
            return RDX_OK;
        }
        prefix = (prefix << (pl - shift)) | d;
        pl = shift;
    }
}

static rdx_status class_out(ooc_run *o, size_t from, size_t lo, size_t len);

/* v(k) of host record i, as the kernels compute it (ooc_value). */
static unsigned long long host_value(const ooc_run *o, size_t i)
{
    uint64_t x = 0;
    memcpy(&x, keys_at(o, i), o->kb); /* little-endian: the low kb bytes */
    return rdx_sort_bits(x, (unsigned)o->kb, o->a.cls, o->a.desc, o->a.begin, o->a.begin + o->a.width);
}

static int compare_values(const void *x, const void *y)
{
    const unsigned long long a = *(const unsigned long long *)x, b = *(const unsigned long long *)y;
    return (a > b) - (a < b);
}

/* A boundary for class 0 of [lo, lo + len) (len > cap) from RDX_OOC_SAMPLE keys at
 * pseudo-random positions: *found = 1 with o->a set (class 0 is v < key), 0 when the
 * sample cannot tell (the key at the aim holds so much of the sample that class 0 would
 * fill less than half its buffer). The aim is RDX_OOC_SAMPLE_SIGMAS standard deviations of
 * the sample's quantile below the buffer's share of the segment. */
static rdx_status sample_split(ooc_run *o, size_t lo, size_t len, int *found)
{
    rdx_ctx *ctx = o->ctx;
    *found = 0;
    if (o->t->outcore_split == 1)
        return RDX_OK;
    RDX_CUDA_TRY(cudaEventSynchronize(o->ev[EV_REST])); /* the segment is whole */
    const size_t samples = RDX_OOC_SAMPLE;
    unsigned long long *v = o->sample;
    for (size_t i = 0; i < samples; ++i) {
        uint64_t z = (uint64_t)(lo + i + 1) * 0x9E3779B97F4A7C15ull; /* a position hash */
        z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9ull;
        v[i] = host_value(o, lo + (size_t)((z ^ (z >> 32)) % len));
    }
    qsort(v, samples, sizeof *v, compare_values);
    const double share = (double)o->sp.cap / (double)len;
    const double aim = o->t->outcore_split == 2
                           ? 2.0 * share
                           : share - RDX_OOC_SAMPLE_SIGMAS * sqrt(share * (1.0 - share) / (double)samples);
    if (aim <= 0.0)
        return RDX_OK;
    const size_t j = aim >= 1.0 ? samples - 1 : (size_t)(aim * (double)samples);
    size_t below = j;
    while (below > 0 && v[below - 1] == v[j])
        --below;
    if (2.0 * (double)below * (double)len < (double)samples * (double)o->sp.cap)
        return RDX_OK;
    o->a.key = v[j];
    o->a.take = o->a.count = 0;
    *found = 1;
    return RDX_OK;
}

/* Class 0 of [lo, lo + len) into the end of the class buffer (*a0 records; `expect` of
 * them when the split was exact, 0 when not known), the rest packed at the end of the
 * segment on the host, in input order; the chunks go back to front. *over = 1 when class 0
 * outgrew the buffer: then the segment holds all its records again (outcore.h) and
 * nothing is in the buffer. */
static rdx_status partition_pass(ooc_run *o, size_t lo, size_t len, size_t expect, size_t *a0, int *over)
{
    rdx_ctx *ctx = o->ctx;
    const size_t chunk = o->sp.chunk, chunks = (len + chunk - 1) / chunk, cap = o->sp.cap;
    unsigned long long state[RDX_OOC_WORDS];
    memset(state, 0, sizeof state);
    state[RDX_OOC_FILL] = cap;
    *a0 = 0;
    *over = 0;
    RDX_CUDA_TRY(cudaMemcpyAsync(o->a.state, state, sizeof state, cudaMemcpyHostToDevice, o->s));
    rdx_status st = join(o, o->io.out, o->s); /* the class buffer is copied out */
    if (st == RDX_OK)
        st = join(o, o->s, o->io.in);
    if (st != RDX_OK)
        return st;
    RDX_CUDA_TRY(cudaStreamWaitEvent(o->io.in, o->ev[EV_REST], 0)); /* the segment is whole */
    rdx_inject_first_write(ctx);
    size_t back = 0, whole = len; /* records written back; the segment's untouched front */
    for (size_t q = 0; q <= chunks && !*over; ++q) {
        if (q < chunks) {
            const int b = (int)(q & 1);
            const size_t off = (chunks - 1 - q) * chunk, m = len - off < chunk ? len - off : chunk;
            st = chunk_in(o, q, lo + off, m, o->vb != 0);
            if (st != RDX_OK)
                return st;
            if (q >= 2)
                RDX_CUDA_TRY(cudaStreamWaitEvent(o->s, o->ev[EV_OUT + b], 0));
            o->a.keys = o->base + o->sp.in_keys[b];
            o->a.vals = o->vb ? o->base + o->sp.in_vals[b] : NULL;
            o->a.out_keys = o->base + o->sp.out_keys[b];
            o->a.out_vals = o->vb ? o->base + o->sp.out_vals[b] : NULL;
            o->a.m = m;
            RDX_CUDA_TRY(rdx_ooc_partition(&o->a, o->s));
            RDX_CUDA_TRY(cudaMemcpyAsync(&o->counts[b], o->a.state + RDX_OOC_REST, 8, cudaMemcpyDeviceToHost, o->s));
            RDX_CUDA_TRY(cudaEventRecord(o->ev[EV_KERNEL + b], o->s));
        }
        if (q >= 1) { /* chunk q - 1's other records go back */
            const int b = (int)((q - 1) & 1);
            RDX_CUDA_TRY(cudaEventSynchronize(o->ev[EV_KERNEL + b]));
            if (o->counts[b] == RDX_OOC_NOT_SPLIT) {
                *over = 1;
                break;
            }
            const size_t c = (size_t)o->counts[b];
            back += c;
            whole = (chunks - q) * chunk;
            if (back > len - whole || len - whole - back > cap)
                return rdx_fail(ctx, RDX_ERR_DEVICE, "CUDA backend: the out-of-core partition lost count of records");
            const size_t at = lo + len - back;
            RDX_CUDA_TRY(cudaStreamWaitEvent(o->io.out, o->ev[EV_KERNEL + b], 0));
            st = io_out(&o->io, keys_at(o, at), o->base + o->sp.out_keys[b], c * o->kb, o->pinned_k);
            if (st == RDX_OK && o->vb)
                st = io_out(&o->io, vals_at(o, at), o->base + o->sp.out_vals[b], c * o->vb, o->pinned_v);
            if (st != RDX_OK)
                return st;
            RDX_CUDA_TRY(cudaEventRecord(o->ev[EV_OUT + b], o->io.out));
        }
    }
    *a0 = len - whole - back; /* class 0 of the chunks split */
    if (*over) { /* class 0 so far back into the gap between the untouched front and the rest */
        RDX_CUDA_TRY(cudaStreamSynchronize(o->s)); /* the chunk enqueued after is not split either */
        st = join(o, o->s, o->io.out);
        if (st == RDX_OK)
            st = class_out(o, cap - *a0, lo + whole, *a0);
        *a0 = 0;
    } else if (whole != 0 || (expect && *a0 != expect)) {
        return rdx_fail(ctx, RDX_ERR_DEVICE, "CUDA backend: the out-of-core partition lost count of records");
    }
    if (st == RDX_OK)
        st = io_flush(&o->io);
    RDX_CUDA_TRY(cudaEventRecord(o->ev[EV_REST], o->io.out));
    return st;
}

/* Sorts class-buffer records [from, from + len) on the device. */
static rdx_status sort_class(ooc_run *o, size_t from, size_t len)
{
    rdx_job sub = *o->job;
    sub.keys = o->base + o->sp.cls_keys + from * o->kb;
    sub.values = o->vb ? o->base + o->sp.cls_vals + from * o->vb : NULL;
    sub.n = len;
    sub.low_memory = 0;
    sub.keys_in = sub.values_in = NULL;
    return rdx_cuda_lowmem_sort(o->ctx, &sub, o->t, o->base + o->sp.rest, o->sp.rest_bytes, o->s);
}

/* Class-buffer records [from, from + len) to the host arrays at lo, after the sort. */
static rdx_status class_out(ooc_run *o, size_t from, size_t lo, size_t len)
{
    rdx_inject_first_write(o->ctx);
    rdx_status st = io_out(&o->io, keys_at(o, lo), o->base + o->sp.cls_keys + from * o->kb, len * o->kb, o->pinned_k);
    if (st == RDX_OK && o->vb)
        st = io_out(&o->io, vals_at(o, lo), o->base + o->sp.cls_vals + from * o->vb, len * o->vb, o->pinned_v);
    return st;
}

/* Host records [lo, lo + len) into the class buffer at `to`. */
static rdx_status class_in(ooc_run *o, size_t to, size_t lo, size_t len)
{
    rdx_status st = io_in(&o->io, o->base + o->sp.cls_keys + to * o->kb, keys_at(o, lo), len * o->kb, o->pinned_k);
    if (st == RDX_OK && o->vb)
        st = io_in(&o->io, o->base + o->sp.cls_vals + to * o->vb, vals_at(o, lo), len * o->vb, o->pinned_v);
    return st;
}

/* The last segment [lo, lo + len) (it fits the class buffer) in at the buffer's start,
 * sorted, out. When the sorted class 0 of the step before (a0 records for [lo - a0, lo),
 * at the buffer's end) is still there, it goes out piece by piece, each piece freeing
 * the space of the segment's next piece: both directions of the bus at once. */
static rdx_status sort_last(ooc_run *o, size_t lo, size_t len, size_t a0)
{
    const size_t from = o->sp.cap - a0;
    rdx_ctx *ctx = o->ctx;
    rdx_status st = join(o, o->s, o->io.out); /* class 0 is sorted */
    if (st == RDX_OK)
        st = join(o, o->io.out, o->io.in);   /* the buffer is free but for class 0 */
    const size_t piece = o->sp.chunk ? o->sp.chunk : (len > a0 ? len : a0);
    for (size_t at = 0, j = 0; st == RDX_OK && (at < a0 || at < len); at += piece, ++j) {
        const int b = (int)(j & 1);
        if (at < a0) {
            st = class_out(o, from + at, lo - a0 + at, a0 - at < piece ? a0 - at : piece);
            if (st != RDX_OK)
                break;
            RDX_CUDA_TRY(cudaEventRecord(o->ev[EV_OUT + b], o->io.out));
            RDX_CUDA_TRY(cudaStreamWaitEvent(o->io.in, o->ev[EV_OUT + b], 0));
        }
        if (at < len)
            st = class_in(o, at, lo + at, len - at < piece ? len - at : piece);
    }
    if (st == RDX_OK)
        st = join(o, o->io.in, o->s);
    if (st == RDX_OK)
        st = sort_class(o, 0, len);
    if (st == RDX_OK)
        st = join(o, o->s, o->io.out);
    return st == RDX_OK ? class_out(o, 0, lo, len) : st;
}

/* Splits [lo, lo + len) (len > cap): class 0 (*a0 records, at the end of the class
 * buffer) below the rest, which is packed at the end of the segment. From a sample when it
 * tells and class 0 fits; else exactly. */
static rdx_status split_segment(ooc_run *o, size_t lo, size_t len, size_t *a0)
{
    int found = 0, over = 0;
    size_t expect = 0;
    rdx_status st = sample_split(o, lo, len, &found);
    if (st == RDX_OK && found)
        st = partition_pass(o, lo, len, 0, a0, &over);
    /* A sampled key with nothing below it left the segment as it was. */
    if (st != RDX_OK || (found && !over && *a0 > 0))
        return st;
    st = find_split(o, lo, len, &expect);
    if (st == RDX_OK)
        st = partition_pass(o, lo, len, expect, a0, &over);
    if (st == RDX_OK && over)
        return rdx_fail(o->ctx, RDX_ERR_DEVICE, "CUDA backend: the out-of-core partition lost count of records");
    return st;
}

static int page_locked(const void *p)
{
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return at.type == cudaMemoryTypeHost;
}

/* Streams, events and buffers of the run; all made before anything is written. */
static rdx_status open_run(ooc_run *o)
{
    rdx_ctx *ctx = o->ctx;
    RDX_CUDA_TRY(cudaStreamCreateWithFlags(&o->io.in, cudaStreamNonBlocking));
    RDX_CUDA_TRY(cudaStreamCreateWithFlags(&o->io.out, cudaStreamNonBlocking));
    for (int i = 0; i < EV_COUNT; ++i)
        RDX_CUDA_TRY(cudaEventCreateWithFlags(&o->ev[i], cudaEventDisableTiming));
    for (int i = 0; i < 4; ++i)
        RDX_CUDA_TRY(cudaEventCreateWithFlags(&o->io.staged[i], cudaEventDisableTiming));
    if (RDX_CUDA_ALLOC(ctx, cudaMallocHost((void **)&o->counts, 2 * sizeof *o->counts)) != cudaSuccess) {
        o->counts = NULL;
        (void)cudaGetLastError();
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "CUDA backend: cannot allocate pinned memory for the out-of-core route");
    }
    if (o->sp.cap < o->job->n && !(o->sample = (unsigned long long *)rdx_host_malloc(ctx, RDX_OOC_SAMPLE * 8)))
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "CUDA backend: cannot allocate the out-of-core route's sample");
    if (o->pinned_k && (!o->vb || o->pinned_v))
        return RDX_OK;
    const size_t width = o->kb > o->vb ? o->kb : o->vb;
    /* A chunk's keys or values (the whole job when it fits at once, in chunk-sized copies). */
    const size_t records = o->sp.chunk ? o->sp.chunk : RDX_OOC_CHUNK_BYTES / (o->kb + o->vb);
    o->io.stage_bytes = (records < o->job->n ? records : o->job->n) * width;
    for (int i = 0; i < 4; ++i)
        if (RDX_CUDA_ALLOC(ctx, cudaMallocHost((void **)&o->io.stage[i], o->io.stage_bytes)) != cudaSuccess) {
            o->io.stage[i] = NULL;
            (void)cudaGetLastError();
            return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                            "CUDA backend: cannot allocate %zu bytes of pinned staging memory for the out-of-core route",
                            4 * o->io.stage_bytes);
        }
    return RDX_OK;
}

static void close_run(ooc_run *o)
{
    if (o->io.in)
        (void)cudaStreamSynchronize(o->io.in);
    if (o->io.out)
        (void)cudaStreamSynchronize(o->io.out);
    (void)cudaStreamSynchronize(o->s);
    for (int i = 0; i < 4; ++i) {
        if (o->io.stage[i])
            (void)cudaFreeHost(o->io.stage[i]);
        if (o->io.staged[i])
            (void)cudaEventDestroy(o->io.staged[i]);
    }
    for (int i = 0; i < EV_COUNT; ++i)
        if (o->ev[i])
            (void)cudaEventDestroy(o->ev[i]);
    if (o->counts)
        (void)cudaFreeHost(o->counts);
    rdx_host_free(o->sample);
    if (o->io.in)
        (void)cudaStreamDestroy(o->io.in);
    if (o->io.out)
        (void)cudaStreamDestroy(o->io.out);
    (void)cudaGetLastError();
}

rdx_status rdx_cuda_outcore_sort(rdx_ctx *ctx, const rdx_job *job, const rdx_cuda_tuning *t, void *scratch,
                                 size_t budget, cudaStream_t s)
{
    ooc_run o;
    memset(&o, 0, sizeof o);
    o.ctx = o.io.ctx = ctx;
    o.job = job;
    o.t = t;
    o.s = s;
    o.kb = job->key_size;
    o.vb = value_bytes(job);
    if (!plan_space(job, t, budget, &o.sp) || (o.sp.cap < job->n && !o.sp.chunk))
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                        "CUDA backend: %zu bytes of device memory are too few to sort %zu records out of core", budget,
                        job->n);
    o.base = rdx_cuda_temp_base(scratch);
    o.pinned_k = page_locked(job->keys);
    o.pinned_v = o.vb ? page_locked(job->values) : 1;
    rdx_ooc_args *a = &o.a;
    a->kb = (int)o.kb;
    a->vb = (int)o.vb;
    a->cls = (int)rdx_type_class(job->type);
    a->desc = job->descending;
    a->begin = job->begin_bit;
    a->width = job->end_bit - job->begin_bit;
    a->hist = (unsigned long long *)(o.base + o.sp.hist);
    a->state = (unsigned long long *)(o.base + o.sp.state);
    a->tiles = (unsigned long long *)(o.base + o.sp.tiles);
    a->cls_keys = o.base + o.sp.cls_keys;
    a->cls_vals = o.vb ? o.base + o.sp.cls_vals : NULL;

    rdx_status st = open_run(&o);
    /* Segment after segment: each split puts its class 0 in place at the front. */
    for (size_t lo = 0, a0 = 0; st == RDX_OK && lo < job->n;) {
        const size_t len = job->n - lo;
        if (len <= o.sp.cap) {
            st = sort_last(&o, lo, len, a0);
            break;
        }
        if (a0) { /* class 0 of the step before goes out whole */
            st = join(&o, o.s, o.io.out);
            if (st == RDX_OK)
                st = class_out(&o, o.sp.cap - a0, lo - a0, a0);
        }
        if (st == RDX_OK)
            st = split_segment(&o, lo, len, &a0);
        if (st == RDX_OK)
            st = sort_class(&o, o.sp.cap - a0, a0);
        lo += a0;
    }
    if (st == RDX_OK)
        st = io_flush(&o.io);
    if (st == RDX_OK) {
        cudaError_t e = RDX_CUDA_CALL(ctx, cudaStreamSynchronize(o.io.out));
        if (e == cudaSuccess)
            e = RDX_CUDA_CALL(ctx, cudaStreamSynchronize(s));
        if (e != cudaSuccess)
            st = rdx_cuda_fail(ctx, e, "the out-of-core route", __FILE__, __LINE__);
    }
    close_run(&o);
    return st;
}
