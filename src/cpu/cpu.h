/* The CPU backend's internal interface: the scratch held in a context, the plan of one
 * sort, and the stages (histogram, scan, scatter) as functions over a range of keys.
 *
 * Key and payload arrays are reached through memcpy-based loads and stores, so caller
 * arrays need no particular alignment. Keys in scratch are always mapped (key_codec.h);
 * keys in caller arrays are mapped on the first read and unmapped on the last write. */
#ifndef RDX_CPU_H
#define RDX_CPU_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "key_codec.h"

#if defined(__GNUC__)
#define RDX_CPU_INLINE static inline __attribute__((always_inline))
#else
#define RDX_CPU_INLINE static inline
#endif

/* A 64-bit key needs at most 64 one-bit passes. */
#define RDX_CPU_MAX_PASSES 64

/* ---- scratch kept in the context (state.c) ---- */

typedef struct rdx_cpu_buffer {
    void *p;
    size_t bytes;
} rdx_cpu_buffer;

enum {
    RDX_CPU_BUF_KEYS0,     /* mapped keys */
    RDX_CPU_BUF_KEYS1,     /* mapped keys, second buffer (argsort only) */
    RDX_CPU_BUF_PAY0,      /* values or indices */
    RDX_CPU_BUF_PAY1,      /* indices, second buffer (gathered pairs) */
    RDX_CPU_BUF_GATHER,    /* a copy of odd-sized values to gather from */
    RDX_CPU_BUF_COUNTS,    /* histograms and offsets */
    RDX_CPU_BUF_WC,        /* per-thread write-combining buffers */
    RDX_CPU_BUF_ROWS,      /* segmented sorts: per-thread row buffers (row.h) */
    RDX_CPU_BUF_CANON,     /* RDX_NUMPY_ORDER: canonical copy of the keys (numpy.c) */
    RDX_CPU_BUF_PERM,      /* RDX_NUMPY_ORDER: the sorting permutation */
    RDX_CPU_BUF_ORIG,      /* RDX_NUMPY_ORDER: a copy of the values to gather from */
    RDX_CPU_NBUF
};

struct rdx_cpu_state {
    rdx_cpu_buffer buf[RDX_CPU_NBUF];
};

/* Makes ctx->cpu->buf[which] hold at least count * size bytes (contents not kept).
 * Returns it, or NULL (with the failure recorded on ctx) when the product overflows or
 * malloc fails. `what` names the buffer in the message. */
void *rdx_cpu_reserve(rdx_ctx *ctx, int which, size_t count, size_t size, const char *what);

/* ---- the plan of one radix sort (sort.c fills it) ---- */

typedef struct rdx_cpu_plan {
    size_t n;
    unsigned key_bytes;           /* 1, 2, 4, 8 */
    unsigned pay_bytes;           /* 0 (keys only), 4 or 8 (values or indices) */
    int cls, desc;                /* key_codec.h class and direction */
    int bins;                     /* 2^radix_bits */
    int npasses;                  /* digit passes over [begin_bit, end_bit) */
    int shift[RDX_CPU_MAX_PASSES];
    uint64_t mask[RDX_CPU_MAX_PASSES];
    int begin_bit;                /* the sort key is (mapped >> begin_bit) & range */
    uint64_t range;
    int nactive;                  /* passes that move keys: not every key in one bin */
    int active[RDX_CPU_MAX_PASSES];
    size_t *counts;               /* [thread][pass][bin], up-front histograms */
    size_t counts_stride;         /* size_t's per thread in counts */
    size_t *totals;               /* [pass][bin], sums over the threads */
    size_t *local;                /* [thread][bin], this pass's counts per thread */
    size_t *offsets;              /* [thread][bin], this pass's first slot per bin */
    size_t bin_stride;            /* size_t's per thread in local and offsets */
    size_t *msd;                  /* [thread][pass][bin + 1], bucket bounds per MSD level */
    size_t msd_stride;            /* size_t's per thread in msd */
} rdx_cpu_plan;

/* The two sets of buffers the passes move elements between. Set 1 is "home": where the
 * sorted keys and payloads must end up (the caller's keys and values, the caller's
 * indices for argsort, scratch indices for gathered values). Set 0 is scratch. */
typedef struct rdx_cpu_sets {
    void *keys[2];
    void *pay[2];
    int write_home_keys;          /* 0 for argsort: its keys are never written */
    int decode_home;              /* keys[1] is the caller's array: unmap on writing */
} rdx_cpu_sets;

/* Thread t's share [begin, end) of n keys when nthreads threads split them. */
RDX_CPU_INLINE void rdx_cpu_chunk(size_t n, int nthreads, int t, size_t *begin, size_t *end)
{
    size_t q = n / (size_t)nthreads, r = n % (size_t)nthreads;
    *begin = (size_t)t * q + ((size_t)t < r ? (size_t)t : r);
    *end = *begin + q + ((size_t)t < r ? 1 : 0);
}

/* ---- memcpy loads and stores (any alignment) ---- */

#define RDX_CPU_DEFINE_LDST(W)                                                              \
    RDX_CPU_INLINE uint##W##_t rdx_ld##W(const unsigned char *p)                             \
    {                                                                                       \
        uint##W##_t v;                                                                      \
        memcpy(&v, p, sizeof v);                                                            \
        return v;                                                                           \
    }                                                                                       \
    RDX_CPU_INLINE void rdx_st##W(unsigned char *p, uint##W##_t v) { memcpy(p, &v, sizeof v); }
RDX_CPU_DEFINE_LDST(8)
RDX_CPU_DEFINE_LDST(16)
RDX_CPU_DEFINE_LDST(32)
RDX_CPU_DEFINE_LDST(64)
#undef RDX_CPU_DEFINE_LDST

/* The mapped key at p (key_bytes wide, widened to 64 bits). */
RDX_CPU_INLINE uint64_t rdx_cpu_load_mapped(const unsigned char *p, unsigned key_bytes, int cls,
                                            int desc)
{
    switch (key_bytes) {
    case 1: return rdx_encode_u8(rdx_ld8(p), cls, desc);
    case 2: return rdx_encode_u16(rdx_ld16(p), cls, desc);
    case 4: return rdx_encode_u32(rdx_ld32(p), cls, desc);
    default: return rdx_encode_u64(rdx_ld64(p), cls, desc);
    }
}

/* A w-bit key at p, and its inverse mapping (widened to 64 bits). */
RDX_CPU_INLINE uint64_t rdx_cpu_load_key(const unsigned char *p, unsigned key_bytes)
{
    switch (key_bytes) {
    case 1: return rdx_ld8(p);
    case 2: return rdx_ld16(p);
    case 4: return rdx_ld32(p);
    default: return rdx_ld64(p);
    }
}
RDX_CPU_INLINE void rdx_cpu_store_key(unsigned char *p, unsigned key_bytes, uint64_t v)
{
    switch (key_bytes) {
    case 1: rdx_st8(p, (uint8_t)v); break;
    case 2: rdx_st16(p, (uint16_t)v); break;
    case 4: rdx_st32(p, (uint32_t)v); break;
    default: rdx_st64(p, v); break;
    }
}
RDX_CPU_INLINE uint64_t rdx_cpu_unmap(uint64_t v, unsigned key_bytes, int cls, int desc)
{
    switch (key_bytes) {
    case 1: return rdx_decode_u8((uint8_t)v, cls, desc);
    case 2: return rdx_decode_u16((uint16_t)v, cls, desc);
    case 4: return rdx_decode_u32((uint32_t)v, cls, desc);
    default: return rdx_decode_u64(v, cls, desc);
    }
}

/* ---- histogram.c ---- */

/* counts[pass * bins + bin] = how many of keys[begin, end) (caller keys, not yet mapped)
 * have that digit in that pass, for every pass of the plan at once. */
void rdx_cpu_histogram_all(const rdx_cpu_plan *plan, const void *keys, size_t begin, size_t end,
                           size_t *counts);

/* ---- keys already in order, or in its reverse (presorted.c) ---- */

enum { RDX_CPU_DESCENT = 1u, RDX_CPU_ASCENT = 2u };

/* Which of RDX_CPU_DESCENT and RDX_CPU_ASCENT occur between neighbours of the caller's
 * keys[begin, end) (their mapped keys' compared bits); stops once both have, so that keys
 * in no order cost a few reads. */
unsigned rdx_cpu_order(const rdx_cpu_plan *plan, const void *keys, size_t begin, size_t end);

/* A sort of keys in the reverse of its order, in place: the caller's keys (read only for
 * an argsort) and the payload that moves with them (moved values, or an argsort's indices,
 * plan->pay_bytes each); n, the key's width and codec, the compared bits: the plan's. */
typedef struct rdx_cpu_reversal {
    const rdx_cpu_plan *plan;
    unsigned char *keys;
    unsigned char *pay;     /* NULL: keys alone */
    int argsort;            /* pay: the indices, written; keys stay */
} rdx_cpu_reversal;

/* Step 1, over a thread's share [begin, end) of [0, n): the array reversed (an argsort's
 * indices: the identity reversed). */
void rdx_cpu_reverse_all(const rdx_cpu_reversal *r, size_t begin, size_t end);
/* Step 2, after a barrier: the first run of equal compared keys that starts in
 * [begin, end) (end if none), found before anything of step 3 is written; then, after a
 * barrier, step 3 reverses each run that starts from there on up to end (runs may reach
 * into later shares, whose threads start at their own first run). */
size_t rdx_cpu_first_run(const rdx_cpu_reversal *r, size_t begin, size_t end);
void rdx_cpu_reverse_runs(const rdx_cpu_reversal *r, size_t first, size_t end);

/* counts[bin] for one pass over mapped keys[begin, end). */
void rdx_cpu_histogram_pass(const rdx_cpu_plan *plan, int pass, const void *keys, size_t begin,
                            size_t end, size_t *counts);

/* ---- scan.c ---- */

/* Sums the up-front histograms of nthreads threads into plan->totals and lists the passes
 * that move keys in plan->active (a pass where one bin holds all n keys is skipped). */
void rdx_cpu_scan_totals(rdx_cpu_plan *plan, int nthreads);

/* offsets[bin] = the first output slot of thread t's keys with that digit in pass `pass`:
 * the keys of smaller digits, plus those of this digit held by threads before t.
 * local[t' * plan->bin_stride + bin] holds every thread's counts for this pass. */
void rdx_cpu_scan_offsets(const rdx_cpu_plan *plan, int pass, const size_t *local, int t,
                          size_t *offsets);

/* ---- scatter.c ---- */

/* One pass over keys [begin, end) of the source: each key (and its payload) goes to
 * dst[offsets[digit]++]. */
typedef struct rdx_cpu_pass {
    const void *src_keys;
    void *dst_keys;
    const void *src_pay;      /* ignored when gen_index */
    void *dst_pay;            /* payload_bytes per element; NULL when pay_bytes is 0 */
    int shift;
    uint64_t mask;
    int encode_in;            /* source keys are the caller's: map them on reading */
    int decode_out;           /* destination is the caller's: unmap on writing */
    int gen_index;            /* payload = the key's position (argsort, gathered pairs) */
    int write_keys;           /* 0: only the payload is wanted (argsort's last pass) */
    int cls, desc;
    void *wc;                 /* this thread's write-combining buffer, or NULL */
} rdx_cpu_pass;

void rdx_cpu_scatter(const rdx_cpu_plan *plan, const rdx_cpu_pass *pass, size_t begin, size_t end,
                     size_t *offsets);

/* Bytes of write-combining buffer one thread needs for a plan. */
size_t rdx_cpu_wc_bytes(const rdx_cpu_plan *plan);

/* ---- gather.c: the linear steps around the passes, each over [begin, end) ---- */

/* dst[i] = unmap(src[i]): mapped scratch keys back into the caller's array. */
void rdx_cpu_copy_unmapped(const rdx_cpu_plan *plan, const void *src, void *dst, size_t begin,
                           size_t end);
/* idx[i] = i, as index_bytes (4 or 8) wide integers. */
void rdx_cpu_identity(void *idx, unsigned index_bytes, size_t begin, size_t end);
/* dst[i] = src[idx[i]], value_size bytes each. */
void rdx_cpu_gather(const void *src, void *dst, size_t value_size, const void *idx,
                    unsigned index_bytes, size_t begin, size_t end);

/* ---- msd.c ---- */

/* Sorts bucket [lo, hi), whose mapped keys and payloads sit in set `cur` and agree on every
 * digit above active pass `level` - 1, by active passes level - 1 down to 0, most
 * significant first, leaving it in the home set. One thread; msd is its bounds scratch,
 * wc its write-combining lines (or NULL). */
void rdx_cpu_msd_bucket(const rdx_cpu_plan *plan, const rdx_cpu_sets *sets, int cur, size_t lo,
                        size_t hi, int level, size_t *msd, void *wc);

/* ---- numpy.c ---- */

/* A whole-array job with job->numpy_order: argsort of a canonical copy of the keys (every
 * NaN one pattern, -0.0 as +0.0) by rdx_cpu_sort, then keys and values gathered by it. */
rdx_status rdx_cpu_numpy_sort(rdx_ctx *ctx, const rdx_job *job);

/* ---- small.c ---- */

/* The whole job by a stable insertion sort, for n < RDX_CPU_SMALL_N. */
rdx_status rdx_cpu_small_sort(rdx_ctx *ctx, const rdx_job *job);

#endif
