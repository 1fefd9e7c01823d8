/* The CPU backend's driver: plans a radix sort, takes all scratch before touching any
 * caller array, then runs the stages in one parallel region:
 *
 *   histograms of every pass (one read of the keys; keys already in order stop there, keys
 *        in the reverse order are reversed instead: presorted.c), then either
 *   LSD: for each pass that moves keys: [per-thread counts] -> scan -> scatter,
 *        ping-ponging between scratch and the caller's array; or
 *   MSD hybrid (many passes, well spread keys): one LSD-style pass on the top digit into
 *        scratch, then every bucket sorted by one thread (msd.c);
 *   then copy back / gather.
 *
 * Each thread owns one contiguous share of the array in every parallel pass; the scan
 * puts thread t's keys of a digit after those of threads 0..t-1, which keeps the sort
 * stable. */
#include <omp.h>

#include "cpu.h"
#include "tuning.h"

/* How one job maps onto the passes. Pass q (the q-th pass that moves keys) reads the
 * caller's keys (q = 0, mapping them) or what pass q - 1 wrote, and writes set q % 2. */
typedef struct sort_buffers {
    const void *first_keys;    /* pass 0 reads the caller's keys (mapping them) */
    const void *first_pay;     /* and the caller's values, or NULL to generate indices */
    rdx_cpu_sets set;          /* set 1 is home (cpu.h) */
    int keys_home;             /* set.keys[keys_home] is the caller's keys, -1 if none */
    int pay_home;              /* set.pay[pay_home] is the caller's values/indices, -1 if none */
    int write_last_keys;       /* the last pass writes keys (not for argsort) */
    unsigned char *gather_src; /* odd-sized values: copied here, then gathered by index */
    unsigned char *wc;         /* write-combining lines, wc_bytes per thread, or NULL */
    size_t wc_bytes;
} sort_buffers;

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

static void plan_passes(rdx_cpu_plan *plan, const rdx_job *job)
{
    const int r = job->radix_bits ? job->radix_bits : RDX_CPU_DEFAULT_RADIX_BITS;
    plan->bins = 1 << r;
    plan->npasses = 0;
    for (int s = job->begin_bit; s < job->end_bit; s += r) {
        const int bits = job->end_bit - s < r ? job->end_bit - s : r;
        plan->shift[plan->npasses] = s;
        plan->mask[plan->npasses] = ((uint64_t)1 << bits) - 1;
        plan->npasses++;
    }
    const int width = job->end_bit - job->begin_bit;
    plan->begin_bit = job->begin_bit;
    plan->range = width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

/* Chooses the threads and takes every buffer the job can need. On failure nothing has
 * been written anywhere but scratch. */
static rdx_status prepare(rdx_ctx *ctx, const rdx_job *job, rdx_cpu_plan *plan, sort_buffers *sb,
                          int *nthreads)
{
    const size_t n = job->n;
    int t = omp_get_max_threads();
    const size_t most = n / RDX_CPU_MIN_KEYS_PER_THREAD;
    if ((size_t)t > most)
        t = most > 0 ? (int)most : 1;
    *nthreads = t;

    const size_t line = RDX_CPU_CACHE_LINE / sizeof(size_t);
    plan->counts_stride = round_up((size_t)plan->npasses * (size_t)plan->bins, line);
    plan->bin_stride = round_up((size_t)plan->bins, line);
    plan->msd_stride = round_up((size_t)plan->npasses * (size_t)(plan->bins + 1), line);
    const size_t ncounts = (size_t)t * plan->counts_stride +
                           (size_t)plan->npasses * (size_t)plan->bins +
                           2 * (size_t)t * plan->bin_stride + (size_t)t * plan->msd_stride;
    size_t *c = (size_t *)rdx_cpu_reserve(ctx, RDX_CPU_BUF_COUNTS, ncounts, sizeof(size_t),
                                          "histogram");
    if (!c)
        return RDX_ERR_OUT_OF_MEMORY;
    plan->counts = c;
    plan->totals = c + (size_t)t * plan->counts_stride;
    plan->local = plan->totals + (size_t)plan->npasses * (size_t)plan->bins;
    plan->offsets = plan->local + (size_t)t * plan->bin_stride;
    plan->msd = plan->offsets + (size_t)t * plan->bin_stride;

    memset(sb, 0, sizeof *sb);
    sb->wc_bytes = rdx_cpu_wc_bytes(plan);
    if (sb->wc_bytes) {
        /* One extra line to align the start. */
        unsigned char *w = (unsigned char *)rdx_cpu_reserve(
            ctx, RDX_CPU_BUF_WC, (size_t)t * sb->wc_bytes + RDX_CPU_CACHE_LINE, 1, "scatter");
        if (!w)
            return RDX_ERR_OUT_OF_MEMORY;
        sb->wc = w + (RDX_CPU_CACHE_LINE - (uintptr_t)w % RDX_CPU_CACHE_LINE) % RDX_CPU_CACHE_LINE;
    }
    sb->first_keys = job->keys;
    sb->keys_home = sb->pay_home = -1;
    sb->write_last_keys = job->kind != RDX_JOB_ARGSORT;
    sb->set.write_home_keys = job->kind != RDX_JOB_ARGSORT;
    const size_t kb = job->key_size, pb = plan->pay_bytes;
    void *ks = rdx_cpu_reserve(ctx, RDX_CPU_BUF_KEYS0, n, kb, "key");
    if (!ks)
        return RDX_ERR_OUT_OF_MEMORY;
    sb->set.keys[0] = ks;

    if (job->kind == RDX_JOB_ARGSORT) {
        /* Keys stay untouched: both key buffers are scratch, and the caller's indices
         * serve as one of the two index buffers. */
        sb->set.keys[1] = rdx_cpu_reserve(ctx, RDX_CPU_BUF_KEYS1, n, kb, "key");
        sb->set.pay[0] = rdx_cpu_reserve(ctx, RDX_CPU_BUF_PAY0, n, pb, "index");
        if (!sb->set.keys[1] || !sb->set.pay[0])
            return RDX_ERR_OUT_OF_MEMORY;
        sb->set.pay[1] = job->indices;
        sb->pay_home = 1;
        return RDX_OK;
    }
    sb->set.keys[1] = job->keys;
    sb->keys_home = 1;
    if (job->kind == RDX_JOB_PAIRS && pb == job->value_size) {
        sb->first_pay = job->values;
        sb->set.pay[0] = rdx_cpu_reserve(ctx, RDX_CPU_BUF_PAY0, n, pb, "value");
        if (!sb->set.pay[0])
            return RDX_ERR_OUT_OF_MEMORY;
        sb->set.pay[1] = job->values;
        sb->pay_home = 1;
    } else if (job->kind == RDX_JOB_PAIRS) {
        sb->set.pay[0] = rdx_cpu_reserve(ctx, RDX_CPU_BUF_PAY0, n, pb, "index");
        sb->set.pay[1] = rdx_cpu_reserve(ctx, RDX_CPU_BUF_PAY1, n, pb, "index");
        sb->gather_src = (unsigned char *)rdx_cpu_reserve(ctx, RDX_CPU_BUF_GATHER, n,
                                                          job->value_size, "value");
        if (!sb->set.pay[0] || !sb->set.pay[1] || !sb->gather_src)
            return RDX_ERR_OUT_OF_MEMORY;
    }
    return RDX_OK;
}

/* The MSD hybrid pays when LSD needs many passes and the top digit spreads the keys
 * (tuning.h); decided from the up-front histograms. */
static int choose_msd(const rdx_cpu_plan *plan)
{
    if (plan->n < RDX_CPU_MSD_MIN_N || plan->nactive < 2)
        return 0;
    int log_n = 0, log_leaf = 0, active_bits = 0;
    while (log_n < 63 && ((size_t)2 << log_n) <= plan->n)
        log_n++;
    while ((2 << log_leaf) <= RDX_CPU_MSD_LEAF)
        log_leaf++;
    for (int q = 0; q < plan->nactive; q++) {
        uint64_t m = plan->mask[plan->active[q]];
        while (m) {
            active_bits++;
            m >>= 1;
        }
    }
    if (active_bits <= RDX_CPU_MSD_MIN_BITS ||
        active_bits <= RDX_CPU_MSD_LEVEL_COST * (log_n - log_leaf))
        return 0;
    const size_t *top = plan->totals + (size_t)plan->active[plan->nactive - 1] * plan->bins;
    for (int b = 0; b < plan->bins; b++)
        if (top[b] > plan->n / RDX_CPU_MSD_SPREAD)
            return 0;
    return 1;
}

/* LSD only, once the number of passes is known: argsort's last pass must land in the
 * caller's indices. */
static void place_indices(const rdx_job *job, const rdx_cpu_plan *plan, sort_buffers *sb)
{
    if (job->kind != RDX_JOB_ARGSORT || plan->nactive == 0)
        return;
    const int last = (plan->nactive - 1) % 2;
    if (sb->pay_home != last) {
        void *tmp = sb->set.pay[0];
        sb->set.pay[0] = sb->set.pay[1];
        sb->set.pay[1] = tmp;
        sb->pay_home = last;
    }
}

/* Pass q as the scatter sees it, over digit pass p; last says whether it is the final
 * write of the keys. */
static rdx_cpu_pass describe_pass(const rdx_cpu_plan *plan, const sort_buffers *sb, int q, int p,
                                  int last, int identity_codec, int thread)
{
    rdx_cpu_pass ps;
    ps.src_keys = q == 0 ? sb->first_keys : sb->set.keys[(q - 1) % 2];
    ps.src_pay = q == 0 ? sb->first_pay : sb->set.pay[(q - 1) % 2];
    ps.dst_keys = sb->set.keys[q % 2];
    ps.dst_pay = sb->set.pay[q % 2];
    ps.shift = plan->shift[p];
    ps.mask = plan->mask[p];
    ps.encode_in = q == 0 && !identity_codec;
    ps.decode_out = last && q % 2 == sb->keys_home && !identity_codec;
    ps.gen_index = q == 0 && plan->pay_bytes != 0 && sb->first_pay == NULL;
    ps.write_keys = !last || sb->write_last_keys;
    ps.cls = plan->cls;
    ps.desc = plan->desc;
    ps.wc = sb->wc ? sb->wc + (size_t)thread * sb->wc_bytes : NULL;
    return ps;
}

/* One parallel pass (the q-th that moves keys, over digit pass p) by thread t of nt,
 * which owns keys [b, e). mine: its up-front counts. Ends with a barrier. */
static void parallel_pass(const rdx_cpu_plan *plan, const sort_buffers *sb, int q, int p, int last,
                          int identity_codec, int t, int nt, size_t b, size_t e, const size_t *mine)
{
    const rdx_cpu_pass ps = describe_pass(plan, sb, q, p, last, identity_codec, t);
    /* Before the first move every thread still holds its own share of the input, so the
     * up-front counts serve; later passes count again. The last thread's counts are never
     * needed (no thread comes after it). */
    if (q == 0)
        memcpy(plan->local + (size_t)t * plan->bin_stride, mine + (size_t)p * plan->bins,
               (size_t)plan->bins * sizeof(size_t));
    else if (t < nt - 1)
        rdx_cpu_histogram_pass(plan, p, ps.src_keys, b, e, plan->local + (size_t)t * plan->bin_stride);
#pragma omp barrier
    size_t *off = plan->offsets + (size_t)t * plan->bin_stride;
    rdx_cpu_scan_offsets(plan, p, plan->local, t, off);
    rdx_cpu_scatter(plan, &ps, b, e, off);
#pragma omp barrier
}

/* After the LSD passes, over one thread's share [b, e): an odd number of passes ended in
 * scratch; no pass at all leaves argsort's indices to write. */
static void finish_lsd_share(const rdx_job *job, const rdx_cpu_plan *plan, const sort_buffers *sb,
                             size_t b, size_t e)
{
    const int q = plan->nactive;
    if (job->kind == RDX_JOB_ARGSORT) {
        if (q == 0)
            rdx_cpu_identity(job->indices, plan->pay_bytes, b, e);
        return;
    }
    if (q % 2 == 1) {
        rdx_cpu_copy_unmapped(plan, sb->set.keys[0], job->keys, b, e);
        if (sb->pay_home == 1)
            memcpy((unsigned char *)job->values + b * plan->pay_bytes,
                   (const unsigned char *)sb->set.pay[0] + b * plan->pay_bytes,
                   (e - b) * plan->pay_bytes);
    }
}

/* The reversal of keys in the reverse of the sort's order, where it serves: keys alone,
 * pairs whose values move with them (not gathered by index), argsorts; 0 otherwise. */
static int reversal_of(const rdx_job *job, const rdx_cpu_plan *plan, const sort_buffers *sb, rdx_cpu_reversal *r)
{
    if (sb->gather_src || (job->kind == RDX_JOB_PAIRS && plan->pay_bytes != job->value_size))
        return 0;
    r->plan = plan;
    r->keys = (unsigned char *)job->keys;
    r->pay = job->kind == RDX_JOB_ARGSORT ? (unsigned char *)job->indices
             : job->kind == RDX_JOB_PAIRS ? (unsigned char *)job->values
                                          : NULL;
    r->argsort = job->kind == RDX_JOB_ARGSORT;
    return 1;
}

rdx_status rdx_cpu_sort(rdx_ctx *ctx, const rdx_job *job)
{
    if (job->numpy_order)
        return rdx_cpu_numpy_sort(ctx, job);
    if (job->n < RDX_CPU_SMALL_N)
        return rdx_cpu_small_sort(ctx, job);

    rdx_cpu_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.n = job->n;
    plan.key_bytes = (unsigned)job->key_size;
    plan.cls = (int)rdx_type_class(job->type);
    plan.desc = job->descending;
    /* 4- and 8-byte values travel with their keys; other values are gathered at the end
     * by an index that travels instead (32-bit while n allows). */
    if (job->kind == RDX_JOB_ARGSORT)
        plan.pay_bytes = job->index_type == RDX_U32 ? 4 : 8;
    else if (job->kind == RDX_JOB_PAIRS)
        plan.pay_bytes = (job->value_size == 4 || job->value_size == 8) ? (unsigned)job->value_size
                         : (uint64_t)job->n <= (uint64_t)UINT32_MAX + 1 ? 4 : 8;
    plan_passes(&plan, job);

    sort_buffers sb;
    int nthreads;
    rdx_status s = prepare(ctx, job, &plan, &sb, &nthreads);
    if (s != RDX_OK)
        return s;
    const int identity_codec = plan.cls == RDX_CLASS_UNSIGNED && !plan.desc;
    sb.set.decode_home = sb.keys_home == 1 && !identity_codec;
    int msd = 0, reverse = 0;
    unsigned order = 0; /* RDX_CPU_DESCENT, RDX_CPU_ASCENT: what the threads' shares hold */
    rdx_cpu_reversal rev;
    const void *final_pay = NULL; /* where gathered values find their indices */

#pragma omp parallel num_threads(nthreads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t b, e;
        rdx_cpu_chunk(plan.n, nt, t, &b, &e);
        size_t *mine = plan.counts + (size_t)t * plan.counts_stride;
        /* Keys already in the sort's order (with the pair across into the next share) are
         * their own stable sort: no pass runs; keys in its reverse are reversed. */
        const unsigned mine_order = rdx_cpu_order(&plan, job->keys, b, e < plan.n ? e + 1 : e);
#pragma omp atomic update
        order |= mine_order;
        rdx_cpu_histogram_all(&plan, job->keys, b, e, mine);
#pragma omp barrier
#pragma omp single
        {
            rdx_cpu_scan_totals(&plan, nt);
            reverse = order == RDX_CPU_DESCENT && reversal_of(job, &plan, &sb, &rev);
            if (!(order & RDX_CPU_DESCENT) || reverse)
                plan.nactive = 0;
            msd = choose_msd(&plan);
            if (!msd)
                place_indices(job, &plan, &sb);
            final_pay = msd ? sb.set.pay[1] : plan.nactive ? sb.set.pay[(plan.nactive - 1) % 2] : NULL;
        }
        if (reverse) {
            rdx_cpu_reverse_all(&rev, b, e);
            /* Keys alone compared by every bit: equal keys are equal bit for bit. */
            if (job->kind != RDX_JOB_KEYS || job->begin_bit != 0 || job->end_bit != (int)(8 * job->key_size)) {
#pragma omp barrier
                const size_t first = rdx_cpu_first_run(&rev, b, e);
#pragma omp barrier
                rdx_cpu_reverse_runs(&rev, first, e);
            }
        } else if (msd) {
            /* The top digit in parallel into scratch (set 0), then whole buckets. */
            const int top = plan.nactive - 1, p = plan.active[top];
            parallel_pass(&plan, &sb, 0, p, 0, identity_codec, t, nt, b, e, mine);
            const size_t *tot = plan.totals + (size_t)p * plan.bins;
            size_t *scratch = plan.msd + (size_t)t * plan.msd_stride;
            void *wc = sb.wc ? sb.wc + (size_t)t * sb.wc_bytes : NULL;
#pragma omp for schedule(dynamic, 1)
            for (int d = 0; d < plan.bins; d++) {
                size_t lo = 0;
                for (int x = 0; x < d; x++)
                    lo += tot[x];
                if (tot[d])
                    rdx_cpu_msd_bucket(&plan, &sb.set, 0, lo, lo + tot[d], top, scratch, wc);
            }
        } else {
            for (int q = 0; q < plan.nactive; q++)
                parallel_pass(&plan, &sb, q, plan.active[q], q == plan.nactive - 1,
                              identity_codec, t, nt, b, e, mine);
            finish_lsd_share(job, &plan, &sb, b, e);
        }
        if (sb.gather_src && final_pay) {
            const size_t vs = job->value_size;
            memcpy(sb.gather_src + b * vs, (const unsigned char *)job->values + b * vs, (e - b) * vs);
#pragma omp barrier
            rdx_cpu_gather(sb.gather_src, job->values, vs, final_pay, plan.pay_bytes, b, e);
        }
    }
    return RDX_OK;
}
