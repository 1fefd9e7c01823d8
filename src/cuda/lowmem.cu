/* The low-memory route's host side (lowmem.h): its temporary layout, the levels of the
 * in-place partition, and the buckets handed to the normal route. */
#include <string.h>

#include "common.cuh"
#include "lowmem.h"
#include "plan.h"
#include "route.h"
#include "segmented.h"

#define LM_B ((size_t)RDX_LM_BLOCK)
#define LM_BUCKETS ((size_t)1 << RDX_LM_DIGIT_BITS)

int rdx_cuda_lowmem_takes(const rdx_job *job) { return !job->segmented; }

size_t rdx_cuda_lowmem_record_bytes(const rdx_job *job)
{
    return job->key_size + (job->kind == RDX_JOB_PAIRS     ? job->value_size
                            : job->kind == RDX_JOB_ARGSORT ? rdx_type_bytes(job->index_type)
                                                           : 0);
}

size_t rdx_cuda_lowmem_temp_bytes(const rdx_cuda_tuning *t, const rdx_job *job)
{
    if (t->lowmem_bytes)
        return t->lowmem_bytes;
    return job->n * rdx_cuda_lowmem_record_bytes(job) / 8 + RDX_LM_SLACK_BYTES;
}

/* Where everything lives in temporary storage, for a job of n records. */
typedef struct lm_space {
    size_t hist, nf, pc, wcount, dsrc, dst, bpack, slot_words[9], counters, pool;
    size_t pool_bytes;
    uint32_t max_stripes;
} lm_space;

static size_t tables_end(size_t n, uint32_t stripes, lm_space *sp)
{
    size_t end = 0;
    const size_t slots = (n + LM_B - 1) / LM_B + stripes + 1;
    const size_t pieces = (size_t)RDX_CUDA_MAX_BINS * stripes + 1;
    sp->hist = rdx_cuda_take(&end, RDX_CUDA_MAX_BINS * 8);
    sp->nf = rdx_cuda_take(&end, (size_t)stripes * RDX_CUDA_MAX_BINS * 4);
    sp->pc = rdx_cuda_take(&end, (size_t)stripes * RDX_CUDA_MAX_BINS * 4);
    sp->wcount = rdx_cuda_take(&end, (size_t)stripes * 4);
    sp->dsrc = rdx_cuda_take(&end, pieces * 8);
    sp->dst = rdx_cuda_take(&end, pieces * 8);
    sp->bpack = rdx_cuda_take(&end, (LM_BUCKETS + 1) * 8);
    for (int i = 0; i < 9; ++i)
        sp->slot_words[i] = rdx_cuda_take(&end, slots * 4);
    sp->counters = rdx_cuda_take(&end, 2 * 4);
    sp->pool = rdx_cuda_take(&end, 0);
    return end;
}

/* The records of a classification tile (lm_classify_kernel). */
#define LM_TILE ((size_t)RDX_LM_THREADS * RDX_LM_ITEMS)

/* The most stripes whose partial buffers (and, with gen, tile stages) take at most a
 * third of what the tables leave; 0 when not even one stripe fits. r: bytes each record
 * moves. */
static int plan_space(size_t n, size_t r, int gen, size_t temp_bytes, int sms, lm_space *sp)
{
    const size_t avail = temp_bytes > RDX_TEMP_ALIGN ? temp_bytes - RDX_TEMP_ALIGN : 0;
    for (uint32_t stripes = (uint32_t)(RDX_LM_STRIPES_PER_SM * (sms > 0 ? sms : 1)); stripes >= 1; stripes /= 2) {
        const size_t end = tables_end(n, stripes, sp);
        const size_t partials =
            (size_t)stripes * (LM_BUCKETS * LM_B + (gen ? LM_TILE : 0)) * r + 4 * RDX_TEMP_ALIGN;
        if (end < avail && partials <= (avail - end) / 3) {
            sp->pool_bytes = avail - end;
            sp->max_stripes = stripes;
            return 1;
        }
    }
    return 0;
}

/* How the records [lo, lo + len) of a range are sorted by bits [begin_bit, end_bit) in
 * the pool: by the normal route; under RDX_NUMPY_ORDER by the composition of segmented.cu
 * (keys and pairs); an argsort's run by the normal route's pairs sort of a copy of its
 * keys (gathered by index, canonical under RDX_NUMPY_ORDER) with its indices. */
typedef struct lm_part {
    rdx_job sub;         /* the sort of the run */
    rdx_cuda_plan plan;  /* its plan, but under RDX_NUMPY_ORDER */
    size_t copy;         /* an argsort's key copy at the pool's start: its bytes, aligned */
    size_t need;         /* the pool bytes it all takes */
} lm_part;

static rdx_status plan_part(rdx_ctx *ctx, const rdx_job *job, const rdx_cuda_tuning *t, unsigned char *pool,
                            size_t lo, size_t len, int end_bit, lm_part *p)
{
    rdx_job *sub = &p->sub;
    *sub = *job;
    sub->n = len;
    sub->end_bit = end_bit;
    sub->low_memory = 0;
    sub->keys_in = sub->values_in = NULL;
    p->copy = 0;
    if (job->kind == RDX_JOB_ARGSORT) {
        const size_t ib = rdx_type_bytes(job->index_type);
        p->copy = (len * job->key_size + RDX_TEMP_ALIGN - 1) / RDX_TEMP_ALIGN * RDX_TEMP_ALIGN;
        sub->kind = RDX_JOB_PAIRS;
        sub->keys = pool;
        sub->values = (unsigned char *)job->indices + lo * ib;
        sub->value_size = ib;
        sub->indices = NULL;
        sub->numpy_order = 0; /* the copy is canonical */
    } else {
        sub->keys = (unsigned char *)job->keys + lo * job->key_size;
        if (job->kind == RDX_JOB_PAIRS)
            sub->values = (unsigned char *)job->values + lo * job->value_size;
    }
    if (sub->numpy_order)
        return rdx_cuda_numpy_temp_size(ctx, sub, &p->need);
    rdx_cuda_plan_job(t, sub, 1, 1, 1, &p->plan);
    p->need = p->copy + p->plan.temp_bytes;
    return RDX_OK;
}

/* *fits = whether records [lo, lo + len) sort in the pool in one go. */
static rdx_status part_fits(rdx_ctx *ctx, const rdx_job *job, const rdx_cuda_tuning *t, unsigned char *pool,
                            size_t len, int end_bit, size_t pool_bytes, int *fits)
{
    lm_part p;
    const rdx_status st = plan_part(ctx, job, t, pool, 0, len, end_bit, &p);
    *fits = st == RDX_OK && p.need <= pool_bytes;
    return st;
}

/* Sorts records [lo, lo + len) in the pool, if that fits there (*fits = 0 otherwise, and
 * nothing is enqueued). */
static rdx_status sort_part(rdx_ctx *ctx, const rdx_job *job, const rdx_cuda_tuning *t, size_t lo, size_t len,
                            int end_bit, unsigned char *pool, size_t pool_bytes, cudaStream_t s, int *fits)
{
    lm_part p;
    rdx_status st = plan_part(ctx, job, t, pool, lo, len, end_bit, &p);
    *fits = st == RDX_OK && p.need <= pool_bytes;
    if (!*fits)
        return st;
    if (p.sub.numpy_order) /* an argsort's copy is canonical already */
        return rdx_cuda_numpy_enqueue(ctx, "the low-memory route", &p.sub, pool, pool_bytes, s);
    if (job->kind == RDX_JOB_ARGSORT)
        RDX_CUDA_TRY(rdx_lm_gather_keys(pool, job->keys, (int)job->key_size, p.sub.values, (int)p.sub.value_size, len,
                                        job->numpy_order, rdx_float_inf_bits(job->type), t->sms, s));
    return rdx_cuda_enqueue(ctx, &p.plan, &p.sub, pool + p.copy, t->sms, 1, s);
}

/* Step 4 for keys alone sorted by all their bits (free: the order of equal keys does not
 * show): only the records outside their bucket's final range move (rdx_lm_free_map), right
 * to left a window at a time. The host reads where the buckets' blocks were packed. */
static rdx_status place_free(rdx_ctx *ctx, const rdx_lm_level *lv, const unsigned long long *counts, size_t window,
                             int sms, cudaStream_t s)
{
    const uint32_t bins = 1u << lv->bits;
    unsigned long long pack[LM_BUCKETS + 1];
    cudaError_t e = RDX_CUDA_CALL(
        ctx, cudaMemcpyAsync(pack, lv->bpack, (bins + 1) * sizeof *pack, cudaMemcpyDeviceToHost, s));
    if (e == cudaSuccess)
        e = RDX_CUDA_CALL(ctx, cudaStreamSynchronize(s));
    if (e != cudaSuccess)
        return rdx_cuda_fail(ctx, e, "the low-memory route's bucket layout", __FILE__, __LINE__);
    rdx_lm_free_map m;
    memset(&m, 0, sizeof m);
    unsigned long long fin = 0, movers = 0;
    for (uint32_t b = 0; b < bins; ++b) {
        const unsigned long long full = pack[b + 1] - pack[b], shift = fin - pack[b];
        m.first[b] = movers;
        m.pack[b] = pack[b];
        m.shift[b] = shift;
        m.head[b] = shift < full ? shift : full;
        m.dest[b] = fin + full - m.head[b];
        fin += counts[b];
        movers += fin - m.dest[b];
    }
    m.first[bins] = movers;
    if (fin != lv->len)
        return rdx_fail(ctx, RDX_ERR_DEVICE, "CUDA backend: the low-memory route's bucket counts disagree");
    for (size_t hi = (size_t)movers; hi > 0;) {
        const size_t count = hi < window ? hi : window;
        RDX_CUDA_TRY(rdx_lm_free_window(lv, &m, hi - count, count, sms, s));
        hi -= count;
    }
    return RDX_OK;
}

/* One level of the partition (lowmem.h, steps 1-4) of the range in lv, whose bucket
 * counts are `counts`. free: keys alone sorted by all their bits (place_free). */
static rdx_status partition(rdx_ctx *ctx, rdx_lm_level *lv, const lm_space *sp, unsigned char *base, size_t r,
                            const unsigned long long *counts, int free, int sms, cudaStream_t s)
{
    const size_t len = lv->len;
    uint32_t stripes = (uint32_t)((len + LM_B * RDX_LM_MIN_STRIPE_BLOCKS - 1) / (LM_B * RDX_LM_MIN_STRIPE_BLOCKS));
    if (stripes > sp->max_stripes)
        stripes = sp->max_stripes;
    lv->stripe_len = ((len + stripes - 1) / stripes + LM_B - 1) / LM_B * LM_B;
    lv->stripes = (uint32_t)((len + lv->stripe_len - 1) / lv->stripe_len);
    lv->slots = (uint32_t)(lv->stripes * (lv->stripe_len / LM_B));
    lv->rounds = 1;
    while (((size_t)1 << lv->rounds) < (size_t)lv->slots)
        ++lv->rounds;
    ++lv->rounds;

    size_t end = sp->pool;
    const size_t cells = (size_t)lv->stripes * LM_BUCKETS * LM_B, staged = (size_t)lv->stripes * LM_TILE;
    lv->pkeys = lv->rkb ? base + rdx_cuda_take(&end, cells * lv->rkb) : NULL;
    lv->pvals = lv->vb ? base + rdx_cuda_take(&end, cells * lv->vb) : NULL;
    lv->stk = lv->gen && lv->rkb ? base + rdx_cuda_take(&end, staged * lv->rkb) : NULL;
    lv->stv = lv->gen && lv->vb ? base + rdx_cuda_take(&end, staged * lv->vb) : NULL;
    /* Saved blocks, then the staging window, in what the partial buffers leave. */
    const size_t rest_at = rdx_cuda_take(&end, 0), rest = sp->pool + sp->pool_bytes - rest_at;
    lv->seg = 4;
    while (lv->seg < 65536u &&
           (2 * ((size_t)lv->slots / lv->seg + 1) + 2) * LM_B * r + 2 * RDX_TEMP_ALIGN > rest)
        lv->seg *= 2;
    if ((2 * ((size_t)lv->slots / lv->seg + 1) + 2) * LM_B * r + 2 * RDX_TEMP_ALIGN > rest)
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                        "CUDA backend: the low-memory route's temporary storage is too small for %zu records", len);
    const size_t window = (rest - 2 * RDX_TEMP_ALIGN) / r;
    size_t at = rest_at;
    lv->skeys = lv->rkb ? base + rdx_cuda_take(&at, window * lv->rkb) : NULL;
    lv->svals = lv->vb ? base + rdx_cuda_take(&at, window * lv->vb) : NULL;

    RDX_CUDA_TRY(rdx_lm_classify(lv, s));
    RDX_CUDA_TRY(rdx_lm_layout(lv, sms, s));
    RDX_CUDA_TRY(rdx_lm_permute(lv, sms, s));
    if (free)
        return place_free(ctx, lv, counts, window, sms, s);
    /* Right to left: a window's records come from its own positions or from the left. */
    for (size_t hi = len; hi > 0;) {
        const size_t count = hi < window ? hi : window;
        RDX_CUDA_TRY(rdx_lm_gather_window(lv, hi - count, count, sms, s));
        if (lv->rkb)
            RDX_CUDA_TRY(cudaMemcpyAsync((unsigned char *)lv->keys + (hi - count) * lv->rkb, lv->skeys,
                                         count * lv->rkb, cudaMemcpyDeviceToDevice, s));
        if (lv->vb)
            RDX_CUDA_TRY(cudaMemcpyAsync((unsigned char *)lv->vals + (hi - count) * lv->vb, lv->svals,
                                         count * lv->vb, cudaMemcpyDeviceToDevice, s));
        hi -= count;
    }
    return RDX_OK;
}

typedef struct lm_range {
    size_t lo, len;
    int top; /* bits [begin_bit, top) are left to sort; those above are equal in the range */
} lm_range;

/* The bytes of a value word: the widest of 8, 4 and 1 that divides the value size and the
 * array's alignment. */
static int value_word(size_t vs, const void *vals)
{
    const uintptr_t al = (uintptr_t)vals;
    return vs % 8 == 0 && al % 8 == 0 ? 8 : vs % 4 == 0 && al % 4 == 0 ? 4 : 1;
}

/* The counts of the range's first digit from the top (below bit top) that differs between
 * keys, into hist; *hi is that digit's top bit, 0 when the sorted bits are equal
 * throughout. The digits are RDX_LM_DIGIT_BITS wide from top down (the last may be
 * fewer). The top digit is counted first; when it is the same in every key, the keys' OR
 * and AND name the first digit that is not, and a second read counts that one. */
static rdx_status first_digit_counts(rdx_ctx *ctx, const rdx_lm_level *lv, int top, unsigned long long *hist,
                                     int sms, cudaStream_t s, int *hi)
{
    const int w = RDX_LM_DIGIT_BITS, begin = lv->begin_bit;
    *hi = 0;
    for (int h = top, pass = 0; pass < 2; ++pass) {
        cudaError_t e = RDX_CUDA_CALL(ctx, rdx_lm_histogram(lv, h, sms, s));
        if (e == cudaSuccess)
            e = RDX_CUDA_CALL(ctx, cudaMemcpyAsync(hist, lv->hist, RDX_LM_HIST_WORDS * sizeof *hist,
                                                   cudaMemcpyDeviceToHost, s));
        if (e == cudaSuccess)
            e = RDX_CUDA_CALL(ctx, cudaStreamSynchronize(s));
        if (e != cudaSuccess)
            return rdx_cuda_fail(ctx, e, "the low-memory route's bucket counts", __FILE__, __LINE__);
        uint32_t used = 0;
        for (size_t d = 0; d < LM_BUCKETS; ++d)
            used += hist[d] != 0;
        if (used > 1) {
            *hi = h;
            return RDX_OK;
        }
        /* The bits that differ between keys, within [begin, top). */
        unsigned long long diff = hist[RDX_LM_HIST_OR] ^ hist[RDX_LM_HIST_AND];
        diff &= (top >= 64 ? ~0ull : (1ull << top) - 1ull) & ~((1ull << begin) - 1ull);
        if (!diff)
            return RDX_OK;
        const int b = 63 - __builtin_clzll(diff);
        h = top - (top - 1 - b) / w * w;
    }
    return rdx_fail(ctx, RDX_ERR_DEVICE, "CUDA backend: the low-memory route's bucket counts disagree");
}

rdx_status rdx_cuda_lowmem_sort(rdx_ctx *ctx, const rdx_job *job, const rdx_cuda_tuning *t, void *temp,
                                size_t temp_bytes, cudaStream_t s)
{
    const int pairs = job->kind == RDX_JOB_PAIRS, argsort = job->kind == RDX_JOB_ARGSORT;
    rdx_lm_level lv;
    memset(&lv, 0, sizeof lv);
    lv.kb = (int)job->key_size;
    lv.cls = (int)rdx_type_class(job->type);
    lv.desc = job->descending;
    lv.numpy = job->numpy_order;
    lv.inf = rdx_float_inf_bits(job->type);
    lv.begin_bit = job->begin_bit;
    /* What each record moves: an argsort's records are its indices (the keys stay). */
    lv.rkb = argsort ? 0 : lv.kb;
    if (argsort) {
        lv.vb = lv.vw = (int)rdx_type_bytes(job->index_type);
        lv.dkeys = job->keys;
    } else if (pairs) {
        lv.vb = (int)job->value_size;
        lv.vw = value_word(job->value_size, job->values);
    }
    lv.vm = lv.vw ? lv.vb / lv.vw : 0;
    /* Keys alone, compared by all their bits: equal keys are equal bit for bit. */
    const int free = job->kind == RDX_JOB_KEYS && !job->numpy_order && job->begin_bit == 0 &&
                     job->end_bit == 8 * (int)job->key_size;
    /* One word of 4 or 8 bytes rides through the classification in registers. */
    lv.gen = lv.numpy || argsort || (pairs && (lv.vm != 1 || (lv.vw != 4 && lv.vw != 8)));
    const size_t r = (size_t)lv.rkb + (size_t)lv.vb;
    lm_space sp;
    if (!plan_space(job->n, r, lv.gen, temp_bytes, t->sms, &sp))
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY,
                        "CUDA backend: %zu bytes of temporary storage are too few for the low-memory route", temp_bytes);
    /* A stripe runs from start to end: no more of them than fit on the device at once. */
    int per_sm = 0;
    const cudaError_t ce = RDX_CUDA_CALL(ctx, rdx_lm_classify_resident(&lv, &per_sm));
    if (ce != cudaSuccess)
        return rdx_cuda_fail(ctx, ce, "the low-memory route's partition kernel", __FILE__, __LINE__);
    const uint32_t resident = (uint32_t)(per_sm > 0 ? per_sm : 1) * (uint32_t)(t->sms > 0 ? t->sms : 1);
    if (sp.max_stripes > resident)
        sp.max_stripes = resident;
    unsigned char *base = rdx_cuda_temp_base(temp);
    /* The runs of buckets are sorted in all of it: the partition's tables are rebuilt by
     * each level, and its pool starts after them. */
    unsigned char *pool = base;
    const size_t pool_bytes = sp.pool + sp.pool_bytes;

    lv.hist = (unsigned long long *)(base + sp.hist);
    lv.nf = (uint32_t *)(base + sp.nf);
    lv.pc = (uint32_t *)(base + sp.pc);
    lv.wcount = (uint32_t *)(base + sp.wcount);
    lv.dsrc = (unsigned long long *)(base + sp.dsrc);
    lv.dst = (unsigned long long *)(base + sp.dst);
    lv.bpack = (unsigned long long *)(base + sp.bpack);
    uint32_t **words[9] = {&lv.tag, &lv.pi, &lv.nx, &lv.jump[0], &lv.jump[1], &lv.val[0], &lv.val[1], &lv.heads,
                           &lv.saveidx};
    for (int i = 0; i < 9; ++i)
        *words[i] = (uint32_t *)(base + sp.slot_words[i]);
    lv.counters = (uint32_t *)(base + sp.counters);

    /* Depth first: each level pushes at most all its buckets, and a 64-bit key has at most
     * 64 / RDX_LM_DIGIT_BITS levels. */
    const size_t cap = (64 / RDX_LM_DIGIT_BITS + 1) * LM_BUCKETS;
    lm_range *stack = (lm_range *)rdx_host_malloc(ctx, cap * sizeof *stack);
    if (!stack)
        return rdx_fail(ctx, RDX_ERR_OUT_OF_MEMORY, "CUDA backend: no host memory for the low-memory route");
    rdx_status st = RDX_OK;
    if (argsort) { /* the records to partition: the identity permutation */
        rdx_inject_first_write(ctx);
        const cudaError_t e = RDX_CUDA_CALL(ctx, rdx_lm_iota(job->indices, lv.vw, job->n, t->sms, s));
        if (e != cudaSuccess)
            st = rdx_cuda_fail(ctx, e, "the low-memory route's indices", __FILE__, __LINE__);
    }
    size_t depth = 0;
    stack[depth++] = (lm_range){0, job->n, job->end_bit};
    unsigned long long hist[RDX_LM_HIST_WORDS];
    while (depth > 0 && st == RDX_OK) {
        const lm_range g = stack[--depth];
        if (g.top <= job->begin_bit || g.len < 2)
            continue; /* the sorted bits are equal throughout */
        int fits = 0;
        st = sort_part(ctx, job, t, g.lo, g.len, g.top, pool, pool_bytes, s, &fits);
        if (st != RDX_OK || fits)
            continue;
        lv.keys = lv.rkb ? (unsigned char *)job->keys + g.lo * job->key_size : NULL;
        lv.vals = argsort ? (unsigned char *)job->indices + g.lo * lv.vb
                  : pairs ? (unsigned char *)job->values + g.lo * job->value_size
                          : NULL;
        lv.len = g.len;
        int hi = 0;
        st = first_digit_counts(ctx, &lv, g.top, hist, t->sms, s, &hi);
        if (st != RDX_OK)
            break;
        if (!hi)
            continue; /* the sorted bits are equal throughout */
        const int bits = hi - job->begin_bit < RDX_LM_DIGIT_BITS ? hi - job->begin_bit : RDX_LM_DIGIT_BITS;
        lv.shift = hi - bits;
        lv.bits = bits;
        const uint32_t bins = 1u << bits;
        rdx_inject_first_write(ctx);
        st = partition(ctx, &lv, &sp, base, r, hist, free, t->sms, s);
        /* Runs of buckets that sort together in the pool. A bucket alone goes back on the
         * stack with its digit settled: sorted by the bits below it if it fits, else
         * partitioned by the next digit. */
        size_t pos = g.lo, run_lo = g.lo, run_len = 0;
        uint32_t run_buckets = 0;
        for (uint32_t d = 0; d <= bins && st == RDX_OK; ++d) {
            const size_t c = d < bins ? (size_t)hist[d] : 0;
            if (d < bins && c == 0)
                continue;
            int more = 0;
            if (run_len > 0 && d < bins)
                st = part_fits(ctx, job, t, pool, run_len + c, hi, pool_bytes, &more);
            if (st == RDX_OK && run_len > 0 && !more) {
                if (run_buckets == 1)
                    stack[depth++] = (lm_range){run_lo, run_len, lv.shift};
                else
                    st = sort_part(ctx, job, t, run_lo, run_len, hi, pool, pool_bytes, s, &fits);
                run_len = 0;
                run_buckets = 0;
            }
            if (run_len == 0)
                run_lo = pos;
            run_len += c;
            ++run_buckets;
            pos += c;
        }
    }
    rdx_host_free(stack);
    return st;
}
