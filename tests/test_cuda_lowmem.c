/* The low-memory route (src/cuda/lowmem.cu): RDX_LOW_MEMORY, and the synchronous calls
 * falling back to it when the normal route's scratch cannot be had. The out-of-core route
 * (src/cuda/outcore.cu) the same way for host arrays, pageable and page-locked, whose
 * device memory is capped (scratch_cap) below what holds them at once, with short chunks
 * (outcore_chunk_bytes). The context's tuning
 * makes the route's temporary storage small (lowmem_bytes), so that inputs of a few MB are
 * partitioned in place, and caps the scratch the synchronous calls may hold (scratch_cap).
 * Keys of every width, pairs of 4- and 8-byte values, both orders, a bit range; uniform
 * keys, one bucket holding 90% of them, all equal, few distinct, sorted, reversed, and keys
 * whose top digits are all zero. Every result is checked against the stable reference
 * (values are random, so stability is checked too).
 *
 * Exits 77 where no GPU is usable. RDX_TEST_SEED replays a run; RDX_TEST_MAX_LOG2_N below
 * 21 (gpu-check.sh, under compute-sanitizer) runs a few small cases. */
#include "cuda_check.h"
#include "inject.h"

enum { LM_UNIFORM, LM_GIANT, LM_EQUAL, LM_FEW, LM_SORTED, LM_REVERSED, LM_LOWBITS, LM_NFILL };
static const char *const lm_fill_names[LM_NFILL] = {"uniform", "90% in one bucket", "all equal", "16 distinct",
                                                   "sorted", "reversed", "top digits zero"};

/* n keys of kb bytes: the fill's pattern in the key's own bytes (little-endian). Sorted and
 * reversed inputs are arranged by the reference afterwards. */
static void lm_fill(unsigned char *k, size_t n, size_t kb, int fill, uint64_t *s)
{
    const uint64_t same = rnd(s);
    uint64_t few[16];
    for (int i = 0; i < 16; i++)
        few[i] = rnd(s);
    const uint64_t top = (uint64_t)0xA5 << (8 * kb - 8);
    const uint64_t below_top = kb == 8 ? ~0ull >> 8 : (((uint64_t)1 << (8 * kb - 8)) - 1);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rnd(s);
        uint64_t v;
        switch (fill) {
        case LM_GIANT: v = r % 10 ? top | (rnd(s) & below_top) : r; break;
        case LM_EQUAL: v = same; break;
        case LM_FEW: v = few[r % 16]; break;
        case LM_LOWBITS: v = r & 0xFFF; break;
        default: v = r; break;
        }
        memcpy(k + i * kb, &v, kb);
    }
}

/* Arranges keys (and values) in the order of perm, or its reverse. */
static void lm_arrange(unsigned char *k, unsigned char *v, size_t n, size_t kb, size_t vs, const size_t *perm,
                       int reverse)
{
    unsigned char *k2 = host_or_die(n * kb), *v2 = host_or_die(n * vs + 1);
    for (size_t i = 0; i < n; i++) {
        const size_t from = perm[reverse ? n - 1 - i : i];
        memcpy(k2 + i * kb, k + from * kb, kb);
        if (vs)
            memcpy(v2 + i * vs, v + from * vs, vs);
    }
    memcpy(k, k2, n * kb);
    if (vs)
        memcpy(v, v2, n * vs);
    free(k2);
    free(v2);
}

typedef struct lm_case {
    rdx_type type;
    size_t n, vs; /* vs: value bytes, 0 for keys alone */
    unsigned flags;
    int begin_bit, end_bit; /* 0, 0: every bit */
    int fill;
    int async;    /* through the stream-ordered call (into: a separate input) */
    int host;     /* arrays in host memory: 1 pageable, 2 page-locked (0: device) */
} lm_case;

/* A status lm_run accepts besides RDX_OK: RDX_ERR_OUT_OF_MEMORY with nothing changed. */
#define LM_OK_OR_OOM ((rdx_status)-100)

/* Under racecheck (RDX_TEST_MAX_LOG2_N of 10 or less: gpu-check.sh) every other case of a
 * loop is left out: racecheck tracks every shared-memory access and runs past its limit
 * otherwise; the kernels are the same for every case. `k` counts the loop's cases. */
static int racecheck_skips(int max_log2, int *k) { return max_log2 <= 10 && (*k)++ % 2; }

/* Sorts one case on ctx (its tuning set by the caller) and checks the result, the route
 * (want_route) or the failure (want_status, nothing changed). */
static void lm_run(rdx_ctx *ctx, const lm_case *c, rdx_status want_status, const char *want_route, uint64_t *s)
{
    const size_t kb = rdx_type_size(c->type), n = c->n, vs = c->vs;
    unsigned char *keys0 = host_or_die(n * kb), *vals0 = host_or_die(n * vs + 1);
    unsigned char *keys = host_or_die(n * kb), *vals = host_or_die(n * vs + 1);
    size_t *perm = host_or_die(n * sizeof *perm);
    lm_fill(keys0, n, kb, c->fill, s);
    for (size_t i = 0; i < n * vs; i++)
        vals0[i] = (unsigned char)rnd(s);
    const rdx_opts opts = {c->flags, c->begin_bit, c->end_bit, 0};
    if (c->fill == LM_SORTED || c->fill == LM_REVERSED) {
        CHECK(rdx_ref_argsort(keys0, n, c->type, &opts, perm) == 0, "lowmem: the reference ran out of memory");
        lm_arrange(keys0, vals0, n, kb, vs, perm, c->fill == LM_REVERSED);
    }
    char what[200];
    snprintf(what, sizeof what, "lowmem %s%s%.0zu n=%zu %s%s bits [%d, %d) %s%s%s", type_name(c->type),
             vs ? "/" : "", vs, n, lm_fill_names[c->fill], c->flags & RDX_DESCENDING ? " descending" : "", c->begin_bit, c->end_bit,
             c->flags & RDX_LOW_MEMORY ? "RDX_LOW_MEMORY" : "no flag", c->async == 2 ? " into" : c->async ? " async" : "",
             c->host == 2 ? " page-locked host" : c->host ? " pageable host" : "");

    const int at = c->host == 2 ? AT_PINNED : c->host ? AT_HOST : AT_DEVICE;
    unsigned char *dk = alloc_at(at, n * kb), *dv = vs ? alloc_at(at, n * vs) : NULL;
    unsigned char *ik = c->async == 2 ? alloc_at(AT_DEVICE, n * kb) : dk;
    unsigned char *iv = c->async == 2 && vs ? alloc_at(AT_DEVICE, n * vs) : dv;
    copy_to(c->async == 2 ? AT_DEVICE : at, ik, keys0, n * kb);
    if (vs)
        copy_to(c->async == 2 ? AT_DEVICE : at, iv, vals0, n * vs);
    rdx_status st;
    if (c->async) {
        size_t temp = 0;
        st = vs ? rdx_cuda_sort_pairs_temp_size(ctx, vs, n, c->type, &opts, &temp)
                : rdx_cuda_sort_keys_temp_size(ctx, n, c->type, &opts, &temp);
        CHECK(st == RDX_OK, "%s: temp size: %s", what, rdx_ctx_error(ctx));
        CHECK(temp == rdx_cuda_ctx_tuning(ctx)->lowmem_bytes, "%s: temp size %zu, expected the route's %zu", what,
              temp, rdx_cuda_ctx_tuning(ctx)->lowmem_bytes);
        void *dt = alloc_at(AT_DEVICE, temp);
        if (c->async == 2)
            st = vs ? rdx_cuda_sort_pairs_into_async(ctx, ik, dk, iv, dv, vs, n, c->type, &opts, dt, temp, 0)
                    : rdx_cuda_sort_keys_into_async(ctx, ik, dk, n, c->type, &opts, dt, temp, 0);
        else
            st = vs ? rdx_cuda_sort_pairs_async(ctx, dk, dv, vs, n, c->type, &opts, dt, temp, 0)
                    : rdx_cuda_sort_keys_async(ctx, dk, n, c->type, &opts, dt, temp, 0);
        cuda_or_die(cudaDeviceSynchronize(), "synchronize");
        free_at(AT_DEVICE, dt);
    } else {
        st = vs ? rdx_sort_pairs(ctx, dk, dv, vs, n, c->type, &opts) : rdx_sort_keys(ctx, dk, n, c->type, &opts);
    }
    if (want_status == LM_OK_OR_OOM)
        want_status = st == RDX_ERR_OUT_OF_MEMORY ? st : RDX_OK;
    CHECK(st == want_status, "%s: status %d (%s), expected %d", what, (int)st, rdx_ctx_error(ctx), (int)want_status);
    copy_from(at, keys, dk, n * kb);
    if (vs)
        copy_from(at, vals, dv, n * vs);
    if (st == RDX_OK && want_status == RDX_OK) {
        if (want_route)
            CHECK_ROUTE(ctx, want_route, what);
        rdx_ref_call rc;
        memset(&rc, 0, sizeof rc);
        rc.kind = vs ? RDX_REF_PAIRS : RDX_REF_KEYS;
        rc.type = c->type;
        rc.n = n;
        rc.value_size = vs;
        rc.opts = opts;
        CHECK(rdx_ref_check(&rc, keys0, vals0, NULL, keys, vals, NULL), "%s: differs from the stable reference",
              what);
    } else if (st != RDX_OK) {
        CHECK(strlen(rdx_ctx_error(ctx)) > 0, "%s: a failure without a message", what);
        CHECK(memcmp(keys, keys0, n * kb) == 0 && (!vs || memcmp(vals, vals0, n * vs) == 0),
              "%s: a failed call changed the arrays", what);
    }
    if (c->async == 2) {
        dev_download(keys, ik, n * kb);
        CHECK(memcmp(keys, keys0, n * kb) == 0, "%s: the input keys changed", what);
        free_at(AT_DEVICE, ik);
        if (vs)
            free_at(AT_DEVICE, iv);
    }
    free_at(at, dk);
    if (dv)
        free_at(at, dv);
    free(keys0);
    free(vals0);
    free(keys);
    free(vals);
    free(perm);
}

/* Temporary bytes that force the partition for n records of r bytes: a sixteenth of the
 * arrays, and at least room for the tables and a few stripes' partial buffers. */
/* The route limits of *keep back in *t, with lowmem_bytes as the caller set it since. */
static void keep_limits(rdx_cuda_tuning *t, const rdx_cuda_tuning *keep)
{
    t->pack_min_n = keep->pack_min_n;
    t->pack_fast_min_n = keep->pack_fast_min_n;
    t->cluster_max_n = keep->cluster_max_n;
    t->cluster_pairs_max_n = keep->cluster_pairs_max_n;
    t->grid_max_n = keep->grid_max_n;
}

static size_t small_budget(size_t n, size_t r)
{
    const size_t b = n * r / 16, least = 5 * 256 * RDX_LM_BLOCK * r + ((size_t)512 << 10);
    return b > least ? b : least;
}

static void lm_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x10E3;
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    static const rdx_type key_types[] = {RDX_U32, RDX_I32, RDX_F32, RDX_U64, RDX_I64, RDX_F64, RDX_U16, RDX_U8};
    const size_t n = max_log2 >= 21 ? ((size_t)1 << 21) + 37 : ((size_t)1 << 19) + 5;
    int runs = 0, k = 0;
    /* Keys: every type, every fill, both orders (alternating), sync and async. */
    for (size_t ti = 0; ti < sizeof key_types / sizeof key_types[0]; ti++)
        for (int f = 0; f < LM_NFILL; f++) {
            if ((max_log2 < 21 && f % 3 != (int)(ti % 3)) || racecheck_skips(max_log2, &k))
                continue;
            const lm_case c = {key_types[ti], n, 0, RDX_LOW_MEMORY | ((f + ti) % 2 ? RDX_DESCENDING : 0u), 0, 0, f,
                               (int)((f + ti) % 3), 0};
            t->lowmem_bytes = small_budget(n, rdx_type_size(c.type));
            lm_run(ctx, &c, RDX_OK, "low-memory", &s);
            ++runs;
        }
    /* Pairs of 4- and 8-byte values. */
    static const rdx_type pair_types[] = {RDX_U32, RDX_U64, RDX_I32, RDX_F64};
    for (size_t ti = 0; ti < sizeof pair_types / sizeof pair_types[0]; ti++)
        for (size_t vs = 4; vs <= 8; vs += 4)
            for (int f = 0; f < LM_NFILL; f++) {
                if ((max_log2 < 21 && f % 4 != (int)((ti + vs) % 4)) || racecheck_skips(max_log2, &k))
                    continue;
                const lm_case c = {pair_types[ti], n, vs, RDX_LOW_MEMORY | (f % 2 ? RDX_DESCENDING : 0u), 0, 0, f,
                                   (int)((f + ti + vs / 4) % 3), 0};
                t->lowmem_bytes = small_budget(n, rdx_type_size(c.type) + vs);
                lm_run(ctx, &c, RDX_OK, "low-memory", &s);
                ++runs;
            }
    /* A bit range: keys equal in it but not outside stay in input order. */
    {
        const lm_case c = {RDX_U64, n, 8, RDX_LOW_MEMORY, 20, 44, LM_UNIFORM, 0, 0};
        t->lowmem_bytes = small_budget(n, 16);
        lm_run(ctx, &c, RDX_OK, "low-memory", &s);
        const lm_case c2 = {RDX_U32, n, 4, RDX_LOW_MEMORY | RDX_DESCENDING, 3, 17, LM_GIANT, 0, 0};
        t->lowmem_bytes = small_budget(n, 8);
        lm_run(ctx, &c2, RDX_OK, "low-memory", &s);
        runs += 2;
    }
    /* Runs whose LSD passes move 4-byte keys with their values as words (pack_min_n 0,
     * and no one-launch routes for the runs): an odd n, so that runs start at odd and even
     * positions (the caller's arrays 8-byte aligned at the run or not) and some are of odd
     * length (A's spare word). */
    {
        const rdx_cuda_tuning keep = *t;
        t->pack_min_n = t->pack_fast_min_n = t->cluster_max_n = t->cluster_pairs_max_n = t->grid_max_n = 0;
        const lm_case c = {RDX_U32, n, 4, RDX_LOW_MEMORY, 0, 0, LM_UNIFORM, 0, 0};
        const lm_case c2 = {RDX_F32, n, 4, RDX_LOW_MEMORY | RDX_DESCENDING, 0, 0, LM_GIANT, 1, 0};
        t->lowmem_bytes = small_budget(n, 8);
        lm_run(ctx, &c, RDX_OK, "low-memory", &s);
        lm_run(ctx, &c2, RDX_OK, "low-memory", &s);
        keep_limits(t, &keep);
        runs += 2;
    }
    /* No flag: the normal route's scratch is above the cap, the route's fits under it. */
    {
        const lm_case c = {RDX_U32, n, 4, 0, 0, 0, LM_UNIFORM, 0, 0};
        t->lowmem_bytes = small_budget(n, 8);
        t->scratch_cap = t->lowmem_bytes + 4096;
        lm_run(ctx, &c, RDX_OK, "low-memory", &s);
        const lm_case c2 = {RDX_F32, n, 4, RDX_DESCENDING, 0, 0, LM_GIANT, 0, 0};
        lm_run(ctx, &c2, RDX_OK, "low-memory", &s);
        /* Not even the route's scratch fits: a clear failure, nothing changed. */
        t->scratch_cap = t->lowmem_bytes / 2;
        lm_run(ctx, &c, RDX_ERR_OUT_OF_MEMORY, NULL, &s);
        t->scratch_cap = 0;
        runs += 3;
    }
    /* The route's own scratch allocation fails (the injection hook): a clear failure,
     * nothing changed; with the flag, and as the fallback under a cap. */
    {
        const lm_case c = {RDX_U64, n, 8, RDX_LOW_MEMORY, 0, 0, LM_UNIFORM, 0, 0};
        const lm_case c2 = {RDX_U64, n, 8, 0, 0, 0, LM_UNIFORM, 0, 0}; /* normal scratch above the cap */
        for (int i = 0; i < 2; i++) {
            rdx_ctx *fresh = NULL;
            CHECK(rdx_ctx_create(&fresh, RDX_BACKEND_CUDA) == RDX_OK, "lowmem: context");
            if (!fresh)
                break;
            rdx_cuda_ctx_tuning(fresh)->lowmem_bytes = small_budget(n, 16);
            if (i == 1)
                rdx_cuda_ctx_tuning(fresh)->scratch_cap = rdx_cuda_ctx_tuning(fresh)->lowmem_bytes;
            rdx_inject_arm(fresh, RDX_INJECT_DEVICE_ALLOC, 1);
            lm_run(fresh, i ? &c2 : &c, RDX_ERR_OUT_OF_MEMORY, NULL, &s);
            rdx_inject_arm(fresh, RDX_INJECT_DEVICE_ALLOC, 0);
            lm_run(fresh, i ? &c2 : &c, RDX_OK, "low-memory", &s);
            rdx_ctx_destroy(fresh);
            runs += 2;
        }
    }
    /* Temporary storage too small for even one stripe: a clear failure, nothing changed. */
    {
        const lm_case c = {RDX_U64, n, 8, RDX_LOW_MEMORY, 0, 0, LM_UNIFORM, 0, 0};
        t->lowmem_bytes = 64 << 10;
        lm_run(ctx, &c, RDX_ERR_OUT_OF_MEMORY, NULL, &s);
        ++runs;
    }
    t->lowmem_bytes = 0;
    /* The default size: at most 1/8 of the arrays plus RDX_LM_SLACK_BYTES. */
    {
        size_t temp = 0;
        const rdx_opts lm = {RDX_LOW_MEMORY, 0, 0, 0};
        const size_t big = (size_t)1 << 30;
        CHECK(rdx_cuda_sort_pairs_temp_size(ctx, 8, big, RDX_U64, &lm, &temp) == RDX_OK, "lowmem: temp size");
        CHECK(temp <= big * 16 / 8 + RDX_LM_SLACK_BYTES, "lowmem: temp size %zu for 2^30 u64/u64 pairs", temp);
    }
    /* At a size where the default storage partitions (1/8 of the arrays). */
    if (max_log2 >= 25) {
        const lm_case c = {RDX_U32, (size_t)1 << 25, 0, RDX_LOW_MEMORY, 0, 0, LM_UNIFORM, 0, 0};
        lm_run(ctx, &c, RDX_OK, "low-memory", &s);
        const lm_case c2 = {RDX_U64, ((size_t)1 << 24) + 3, 8, RDX_LOW_MEMORY | RDX_DESCENDING, 0, 0, LM_GIANT, 0, 0};
        lm_run(ctx, &c2, RDX_OK, "low-memory", &s);
        runs += 2;
    }
    printf("lowmem: %d sorts\n", runs);
}

/* ---- the low-memory route's wider coverage: RDX_NUMPY_ORDER, values of any size,
 * argsort (lmc_*: apart from the cases above, which another branch also edits) ---- */

enum { LMC_KEYS, LMC_PAIRS, LMC_ARGSORT };
/* Float fills beside lm_fill's: NaNs of both signs and any payload, both zeros, both
 * infinities and a few repeated values among random bits; 90% NaNs (one bucket of equal
 * keys under RDX_NUMPY_ORDER, whose bits differ); both zeros only (all equal). */
enum { LMC_SPECIAL = 100, LMC_NAN90, LMC_ZEROS };

static const char *lmc_fill_name(int fill)
{
    return fill == LMC_SPECIAL ? "NaNs, zeros, infinities" : fill == LMC_NAN90 ? "90% NaN" : fill == LMC_ZEROS ? "zeros of both signs"
                                                                                   : lm_fill_names[fill];
}

static uint64_t lmc_inf(rdx_type t)
{
    switch (t) {
    case RDX_F16: return 0x7C00u;
    case RDX_BF16: return 0x7F80u;
    case RDX_F32: return 0x7F800000u;
    default: return 0x7FF0000000000000ull;
    }
}

static void lmc_fill(unsigned char *k, size_t n, rdx_type type, int fill, uint64_t *s)
{
    const size_t kb = rdx_type_size(type);
    if (fill < LMC_SPECIAL) {
        lm_fill(k, n, kb, fill, s);
        return;
    }
    const uint64_t inf = lmc_inf(type), sign = (uint64_t)1 << (8 * kb - 1);
    const uint64_t mant = (inf & (~inf + 1)) - 1, all = kb == 8 ? ~0ull : ((uint64_t)1 << (8 * kb)) - 1;
    uint64_t few[8];
    for (int i = 0; i < 8; i++)
        few[i] = rnd(s) & (all >> 2);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rnd(s), q = r % 16;
        uint64_t v = rnd(s) & all;
        const uint64_t nan = (r & sign) | inf | ((v & mant) ? (v & mant) : 1);
        if (fill == LMC_ZEROS)
            v = r & sign;
        else if (fill == LMC_NAN90)
            v = r % 10 ? nan : v;
        else if (q < 2)
            v = nan;
        else if (q < 4)
            v = q == 2 ? 0 : sign;
        else if (q < 6)
            v = inf | (q == 4 ? 0 : sign);
        else if (q < 10)
            v = few[r % 8] | (r & sign);
        memcpy(k + i * kb, &v, kb);
    }
}

typedef struct lmc_case {
    int kind;
    rdx_type type;
    size_t n, vs;     /* vs: value bytes (pairs) */
    rdx_type itype;   /* argsort: RDX_U32 or RDX_U64 */
    unsigned flags;
    int begin_bit, end_bit;
    int fill;
    int async;        /* through the stream-ordered call */
} lmc_case;

/* Sorts one case of device arrays on ctx (its tuning set by the caller) and checks the
 * result against the stable reference and the route, or the failure (want_status, with
 * every array unchanged; an argsort's keys are checked in every case). Returns the status. */
static rdx_status lmc_run(rdx_ctx *ctx, const lmc_case *c, rdx_status want_status, uint64_t *s)
{
    const size_t kb = rdx_type_size(c->type), n = c->n;
    const size_t ab = c->kind == LMC_PAIRS ? c->vs : c->kind == LMC_ARGSORT ? rdx_type_size(c->itype) : 0;
    unsigned char *keys0 = host_or_die(n * kb), *aux0 = host_or_die(n * ab + 1);
    unsigned char *keys = host_or_die(n * kb), *aux = host_or_die(n * ab + 1);
    lmc_fill(keys0, n, c->type, c->fill, s);
    for (size_t i = 0; i < n * ab; i++) /* values, or what the index array held before */
        aux0[i] = (unsigned char)rnd(s);
    const rdx_opts opts = {c->flags, c->begin_bit, c->end_bit, 0};
    char what[240];
    snprintf(what, sizeof what, "lowmem %s %s%s%.0zu%s n=%zu %s%s%s bits [%d, %d) %s%s",
             c->kind == LMC_ARGSORT ? "argsort" : c->kind == LMC_PAIRS ? "pairs" : "keys", type_name(c->type),
             c->kind == LMC_PAIRS ? "/" : "", c->kind == LMC_PAIRS ? c->vs : 0,
             c->kind == LMC_ARGSORT ? (c->itype == RDX_U32 ? " -> u32" : " -> u64") : "", n, lmc_fill_name(c->fill),
             c->flags & RDX_DESCENDING ? " descending" : "", c->flags & RDX_NUMPY_ORDER ? " numpy" : "", c->begin_bit,
             c->end_bit, c->flags & RDX_LOW_MEMORY ? "RDX_LOW_MEMORY" : "no flag", c->async ? " async" : "");
    unsigned char *dk = alloc_at(AT_DEVICE, n * kb), *da = ab ? alloc_at(AT_DEVICE, n * ab) : NULL;
    copy_to(AT_DEVICE, dk, keys0, n * kb);
    if (ab)
        copy_to(AT_DEVICE, da, aux0, n * ab);
    rdx_status st;
    if (c->async) {
        size_t temp = 0;
        st = c->kind == LMC_ARGSORT ? rdx_cuda_argsort_temp_size(ctx, n, c->type, c->itype, &opts, &temp)
             : c->kind == LMC_PAIRS ? rdx_cuda_sort_pairs_temp_size(ctx, c->vs, n, c->type, &opts, &temp)
                                    : rdx_cuda_sort_keys_temp_size(ctx, n, c->type, &opts, &temp);
        CHECK(st == RDX_OK, "%s: temp size: %s", what, rdx_ctx_error(ctx));
        CHECK(temp == rdx_cuda_ctx_tuning(ctx)->lowmem_bytes, "%s: temp size %zu, expected the route's %zu", what,
              temp, rdx_cuda_ctx_tuning(ctx)->lowmem_bytes);
        void *dt = alloc_at(AT_DEVICE, temp);
        st = c->kind == LMC_ARGSORT ? rdx_cuda_argsort_async(ctx, dk, n, c->type, da, c->itype, &opts, dt, temp, 0)
             : c->kind == LMC_PAIRS ? rdx_cuda_sort_pairs_async(ctx, dk, da, c->vs, n, c->type, &opts, dt, temp, 0)
                                    : rdx_cuda_sort_keys_async(ctx, dk, n, c->type, &opts, dt, temp, 0);
        cuda_or_die(cudaDeviceSynchronize(), "synchronize");
        free_at(AT_DEVICE, dt);
    } else {
        st = c->kind == LMC_ARGSORT ? rdx_argsort(ctx, dk, n, c->type, da, c->itype, &opts)
             : c->kind == LMC_PAIRS ? rdx_sort_pairs(ctx, dk, da, c->vs, n, c->type, &opts)
                                    : rdx_sort_keys(ctx, dk, n, c->type, &opts);
    }
    if (want_status == LM_OK_OR_OOM)
        want_status = st == RDX_ERR_OUT_OF_MEMORY ? st : RDX_OK;
    CHECK(st == want_status || want_status == (rdx_status)-1, "%s: status %d (%s), expected %d", what, (int)st,
          rdx_ctx_error(ctx), (int)want_status);
    copy_from(AT_DEVICE, keys, dk, n * kb);
    if (ab)
        copy_from(AT_DEVICE, aux, da, n * ab);
    if (c->kind == LMC_ARGSORT)
        CHECK(memcmp(keys, keys0, n * kb) == 0, "%s: the keys of an argsort changed (status %d)", what, (int)st);
    if (st == RDX_OK && (want_status == RDX_OK || want_status == (rdx_status)-1)) {
        CHECK_ROUTE(ctx, "low-memory", what);
        rdx_ref_call rc;
        memset(&rc, 0, sizeof rc);
        rc.kind = c->kind == LMC_ARGSORT ? RDX_REF_ARGSORT : c->kind == LMC_PAIRS ? RDX_REF_PAIRS : RDX_REF_KEYS;
        rc.type = c->type;
        rc.n = n;
        rc.value_size = c->kind == LMC_PAIRS ? c->vs : 0;
        rc.index_type = c->itype;
        rc.opts = opts;
        CHECK(rdx_ref_check(&rc, keys0, c->kind == LMC_PAIRS ? aux0 : NULL, c->kind == LMC_ARGSORT ? aux0 : NULL, keys,
                            c->kind == LMC_PAIRS ? aux : NULL, c->kind == LMC_ARGSORT ? aux : NULL),
              "%s: differs from the stable reference", what);
    } else if (st != RDX_OK) {
        CHECK(strlen(rdx_ctx_error(ctx)) > 0, "%s: a failure without a message", what);
        if (want_status != (rdx_status)-1) /* a failure before the first write: nothing changed */
            CHECK(memcmp(keys, keys0, n * kb) == 0 && (!ab || memcmp(aux, aux0, n * ab) == 0),
                  "%s: a failed call changed the arrays", what);
    }
    free_at(AT_DEVICE, dk);
    if (da)
        free_at(AT_DEVICE, da);
    free(keys0);
    free(aux0);
    free(keys);
    free(aux);
    return st;
}

/* The bytes per record the budget counts: key, and value or index. */
static size_t lmc_record(const lmc_case *c)
{
    return rdx_type_size(c->type) +
           (c->kind == LMC_PAIRS ? c->vs : c->kind == LMC_ARGSORT ? rdx_type_size(c->itype) : 0);
}

/* Sorts c with the flag under a budget that forces the partition. */
static void lmc_forced(rdx_ctx *ctx, const lmc_case *c, uint64_t *s)
{
    rdx_cuda_ctx_tuning(ctx)->lowmem_bytes = small_budget(c->n, lmc_record(c));
    lmc_run(ctx, c, RDX_OK, s);
}

static void lmc_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x1C0F;
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    /* Under the sanitizers (RDX_TEST_MAX_LOG2_N below 21) the loops run every third case,
     * every sixth under racecheck (10 or less), at the least size whose budget partitions. */
    const int small = max_log2 < 21, every = max_log2 <= 10 ? 6 : 3;
    const size_t n = small ? ((size_t)1 << 19) + 5 : ((size_t)1 << 21) + 37;
    const unsigned LM = RDX_LOW_MEMORY, NP = RDX_NUMPY_ORDER, DS = RDX_DESCENDING;
    int runs = 0, turn = 0, pick = 0;
#define LMC_SKIP() (small && pick++ % every != 0)

    /* 1. RDX_NUMPY_ORDER: keys and pairs of every float type, fills with NaNs of both signs,
     * both zeros and infinities, 90% NaNs, zeros only, uniform bits; both orders. */
    static const rdx_type floats[] = {RDX_F32, RDX_F64, RDX_F16, RDX_BF16};
    static const int np_fills[] = {LMC_SPECIAL, LMC_NAN90, LMC_ZEROS, LM_UNIFORM, LM_GIANT};
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t fi = 0; fi < sizeof np_fills / sizeof np_fills[0]; fi++) {
            if (LMC_SKIP())
                continue;
            const unsigned dir = (ti + fi) % 2 ? DS : 0u;
            const lmc_case ck = {LMC_KEYS, floats[ti], n, 0, RDX_U32, LM | NP | dir, 0, 0, np_fills[fi], turn++ % 2};
            lmc_forced(ctx, &ck, &s);
            const size_t vs = fi % 3 == 0 ? rdx_type_size(floats[ti]) : fi % 3 == 1 ? 4 : 12;
            const lmc_case cp = {LMC_PAIRS, floats[ti], n, vs, RDX_U32, LM | NP | (dir ^ DS), 0, 0, np_fills[fi],
                                 turn++ % 2};
            lmc_forced(ctx, &cp, &s);
            runs += 2;
        }
    {   /* a bit range of the canonical code */
        const lmc_case c = {LMC_KEYS, RDX_F32, n, 0, RDX_U32, LM | NP, 20, 31, LMC_SPECIAL, 0};
        lmc_forced(ctx, &c, &s);
        const lmc_case c2 = {LMC_PAIRS, RDX_F64, n, 8, RDX_U32, LM | NP | DS, 40, 64, LMC_NAN90, 1};
        lmc_forced(ctx, &c2, &s);
        runs += 2;
    }

    /* 2. Values of any size: 1, 2, 3, 12, 16 and 24 bytes (words of 1, 4 and 8 bytes),
     * uniform, skewed and equal keys, both orders, a bit range. */
    static const size_t sizes[] = {1, 2, 3, 12, 16, 24};
    static const rdx_type vtypes[] = {RDX_U32, RDX_U64, RDX_I16, RDX_F64, RDX_U8, RDX_F32};
    static const int v_fills[] = {LM_UNIFORM, LM_GIANT, LM_EQUAL, LM_FEW};
    for (size_t si = 0; si < 6; si++)
        for (size_t fi = 0; fi < 4; fi++) {
            if (LMC_SKIP())
                continue;
            const lmc_case c = {LMC_PAIRS, vtypes[(si + fi) % 6], n, sizes[si], RDX_U32, LM | ((si + fi) % 2 ? DS : 0u),
                                0, 0, v_fills[fi], turn++ % 2};
            lmc_forced(ctx, &c, &s);
            ++runs;
        }
    {
        const lmc_case c = {LMC_PAIRS, RDX_U64, n, 12, RDX_U32, LM | DS, 12, 50, LM_GIANT, 0};
        lmc_forced(ctx, &c, &s);
        ++runs;
    }

    /* 3. Argsort: key types, u32 and u64 indices, fills, both orders, a bit range, and
     * RDX_NUMPY_ORDER. */
    static const rdx_type atypes[] = {RDX_U32, RDX_I64, RDX_F32, RDX_U16, RDX_U8, RDX_F64};
    static const int a_fills[] = {LM_UNIFORM, LM_GIANT, LM_EQUAL, LM_LOWBITS};
    for (size_t ti = 0; ti < 6; ti++)
        for (size_t fi = 0; fi < 4; fi++) {
            if (LMC_SKIP())
                continue;
            const lmc_case c = {LMC_ARGSORT, atypes[ti], n, 0, (ti + fi) % 2 ? RDX_U64 : RDX_U32,
                                LM | (fi % 2 ? DS : 0u), 0, 0, a_fills[fi], turn++ % 2};
            lmc_forced(ctx, &c, &s);
            ++runs;
        }
    for (size_t ti = 0; ti < 4; ti++) {
        if (small && ti % 2)
            continue;
        const lmc_case c = {LMC_ARGSORT, floats[ti], n, 0, ti % 2 ? RDX_U32 : RDX_U64, LM | NP | (ti / 2 ? DS : 0u), 0,
                            0, ti % 2 ? LMC_NAN90 : LMC_SPECIAL, (int)(ti % 2)};
        lmc_forced(ctx, &c, &s);
        ++runs;
    }
    {
        const lmc_case c = {LMC_ARGSORT, RDX_I32, n, 0, RDX_U64, LM | DS, 5, 23, LM_GIANT, 0};
        lmc_forced(ctx, &c, &s);
        ++runs;
    }

    /* 4. No flag: the normal route's scratch (for RDX_NUMPY_ORDER with NaNs or -0.0, the
     * composition's copies) is above the cap, the route's fits under it. */
    {
        const lmc_case cs[] = {
            {LMC_PAIRS, RDX_U32, n, 12, RDX_U32, 0, 0, 0, LM_UNIFORM, 0},
            {LMC_ARGSORT, RDX_F32, n, 0, RDX_U32, DS, 0, 0, LM_GIANT, 0},
            {LMC_KEYS, RDX_F32, n, 0, RDX_U32, NP, 0, 0, LMC_SPECIAL, 0},
            {LMC_PAIRS, RDX_F64, n, 8, RDX_U32, NP | DS, 0, 0, LMC_NAN90, 0},
        };
        for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
            if (every == 6 && i % 3 != 0) /* racecheck: the first and the last */
                continue;
            t->lowmem_bytes = small_budget(n, lmc_record(&cs[i]));
            t->scratch_cap = t->lowmem_bytes + 4096;
            lmc_run(ctx, &cs[i], RDX_OK, &s);
            ++runs;
        }
        /* Not even the route's scratch fits: a clear failure, nothing changed. */
        t->scratch_cap = t->lowmem_bytes / 2;
        lmc_run(ctx, &cs[3], RDX_ERR_OUT_OF_MEMORY, &s);
        t->scratch_cap = 0;
        ++runs;
    }

    /* 5. The route's scratch allocation fails (before anything is written): a clear
     * failure, nothing changed, indices included; with the flag and as the fallback. */
    {
        const lmc_case cs[] = {
            {LMC_ARGSORT, RDX_U64, n, 0, RDX_U64, LM, 0, 0, LM_UNIFORM, 0},
            {LMC_PAIRS, RDX_F32, n, 3, RDX_U32, LM | NP, 0, 0, LMC_SPECIAL, 0},
            {LMC_KEYS, RDX_F16, n, 0, RDX_U32, NP, 0, 0, LMC_SPECIAL, 0}, /* fallback under the cap */
        };
        for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
            rdx_ctx *fresh = NULL;
            CHECK(rdx_ctx_create(&fresh, RDX_BACKEND_CUDA) == RDX_OK, "lowmem: context");
            if (!fresh)
                break;
            rdx_cuda_ctx_tuning(fresh)->lowmem_bytes = small_budget(n, lmc_record(&cs[i]));
            if (!(cs[i].flags & LM))
                rdx_cuda_ctx_tuning(fresh)->scratch_cap = rdx_cuda_ctx_tuning(fresh)->lowmem_bytes;
            rdx_inject_arm(fresh, RDX_INJECT_DEVICE_ALLOC, 1);
            lmc_run(fresh, &cs[i], RDX_ERR_OUT_OF_MEMORY, &s);
            rdx_inject_arm(fresh, RDX_INJECT_DEVICE_ALLOC, 0);
            lmc_run(fresh, &cs[i], RDX_OK, &s);
            rdx_ctx_destroy(fresh);
            runs += 2;
        }
    }

    /* Argsorts whose runs' LSD passes move each key with its index as one word
     * (pack_min_n 0, no one-launch routes for the runs), into 32- and 64-bit indices. */
    {
        const rdx_cuda_tuning keep = *t;
        t->pack_min_n = t->pack_fast_min_n = t->cluster_max_n = t->cluster_pairs_max_n = t->grid_max_n = 0;
        const lmc_case c = {LMC_ARGSORT, RDX_U32, n, 0, RDX_U32, LM, 0, 0, LM_UNIFORM, 0};
        const lmc_case c2 = {LMC_ARGSORT, RDX_I32, n, 0, RDX_U64, LM | DS, 0, 0, LM_GIANT, 1};
        lmc_forced(ctx, &c, &s);
        lmc_forced(ctx, &c2, &s);
        keep_limits(t, &keep);
        runs += 2;
    }

    /* 6. An argsort whose CUDA calls fail at several points, also after it has begun to
     * write the indices: the keys never change (lmc_run checks them), and a failure says
     * why. */
    for (unsigned long k = every == 6 ? 21u : 1u; k <= (small ? 41u : 81u); k += 20) {
        const lmc_case c = {LMC_ARGSORT, RDX_F32, n, 0, RDX_U32, LM | NP, 0, 0, LMC_SPECIAL, 0};
        t->lowmem_bytes = small_budget(n, lmc_record(&c));
        rdx_inject_arm(ctx, RDX_INJECT_CUDA_CALL, k);
        lmc_run(ctx, &c, (rdx_status)-1, &s);
        rdx_inject_arm(ctx, RDX_INJECT_CUDA_CALL, 0);
        ++runs;
    }

    /* 7. The sizes the stream-ordered calls report: the route's, at most 1/8 of the arrays
     * (keys and indices for an argsort) plus RDX_LM_SLACK_BYTES. */
    t->lowmem_bytes = 0;
    {
        const size_t big = (size_t)1 << 30;
        const rdx_opts lm = {LM, 0, 0, 0}, lmnp = {LM | NP, 0, 0, 0};
        size_t temp = 0;
        CHECK(rdx_cuda_argsort_temp_size(ctx, big, RDX_U32, RDX_U64, &lm, &temp) == RDX_OK &&
                  temp <= big * 12 / 8 + RDX_LM_SLACK_BYTES,
              "lowmem: argsort temp size %zu for 2^30 u32 keys, u64 indices", temp);
        CHECK(rdx_cuda_sort_pairs_temp_size(ctx, 12, big, RDX_F32, &lmnp, &temp) == RDX_OK &&
                  temp <= big * 16 / 8 + RDX_LM_SLACK_BYTES,
              "lowmem: numpy pairs temp size %zu for 2^30 f32 keys, 12-byte values", temp);
        CHECK(rdx_cuda_sort_keys_temp_size(ctx, big, RDX_F64, &lmnp, &temp) == RDX_OK &&
                  temp <= big * 8 / 8 + RDX_LM_SLACK_BYTES,
              "lowmem: numpy keys temp size %zu for 2^30 f64 keys", temp);
    }
    /* 8. The default storage, at a size where it partitions. */
    if (max_log2 >= 25) {
        const lmc_case cs[] = {
            {LMC_KEYS, RDX_F32, (size_t)1 << 25, 0, RDX_U32, LM | NP, 0, 0, LMC_SPECIAL, 0},
            {LMC_ARGSORT, RDX_U32, ((size_t)1 << 24) + 7, 0, RDX_U32, LM | DS, 0, 0, LM_GIANT, 0},
            {LMC_PAIRS, RDX_U64, ((size_t)1 << 24) + 3, 12, RDX_U32, LM, 0, 0, LM_UNIFORM, 0},
        };
        for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
            lmc_run(ctx, &cs[i], RDX_OK, &s);
            ++runs;
        }
    }
#undef LMC_SKIP
    printf("lowmem coverage: %d sorts\n", runs);
}

/* Device memory under which n records of r bytes go through the out-of-core route in
 * segments of about n * num / den records. */
static size_t ooc_budget(size_t n, size_t r, size_t num, size_t den)
{
    return RDX_LM_SLACK_BYTES + 64 * 256 + n * num / den * r / 8 * 9;
}

/* Whether the normal route's scratch for n host records of r bytes (the arrays twice, at
 * least) is surely above the cap, so that a call without the flag falls back. */
static int normal_above(size_t n, size_t r, size_t cap) { return 2 * n * r > cap + cap / 8; }

static void ooc_tests(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x00C0;
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    static const rdx_type key_types[] = {RDX_U32, RDX_I32, RDX_F32, RDX_U64, RDX_I64, RDX_F64, RDX_U16, RDX_U8};
    /* Under the sanitizers (max_log2 14 or less) the segments' sorts fit the normal route
     * in the route's temporary storage: lm_tests covers the partition there. */
    const size_t n = max_log2 >= 21  ? ((size_t)1 << 21) + 37
                     : max_log2 > 14 ? ((size_t)1 << 18) + 5
                     : max_log2 > 10 ? ((size_t)1 << 16) + 5
                                     : ((size_t)1 << 14) + 5; /* racecheck: 2^16 ran past 300 s */
    int runs = 0, k = 0;
    t->outcore_chunk_bytes = max_log2 > 14 ? 64 << 10 : 32 << 10; /* many chunks */
    /* Keys: every type and fill, both orders, with the flag and without (the fallback
     * under the cap), pageable and page-locked, in 1.5 or 3 segments' worth. */
    for (size_t ti = 0; ti < sizeof key_types / sizeof key_types[0]; ti++)
        for (int f = 0; f < LM_NFILL; f++) {
            if ((max_log2 < 21 && f % 3 != (int)(ti % 3)) || racecheck_skips(max_log2, &k))
                continue;
            const size_t r = rdx_type_size(key_types[ti]);
            t->scratch_cap = ooc_budget(n, r, (f + ti) % 2 ? 1 : 2, 3);
            const unsigned flags = (f % 2 || !normal_above(n, r, t->scratch_cap) ? RDX_LOW_MEMORY : 0u) |
                                   ((f + ti) % 2 ? RDX_DESCENDING : 0u);
            const lm_case c = {key_types[ti], n, 0, flags, 0, 0, f, 0, 1 + (int)((f + ti / 2) % 2)};
            t->outcore_split = (int)((ti / 3 + f) % 3); /* sampled, exact, sampled to overflow */
            lm_run(ctx, &c, RDX_OK, "out-of-core", &s);
            ++runs;
        }
    /* Pairs of 4- and 8-byte values. */
    static const rdx_type pair_types[] = {RDX_U32, RDX_U64, RDX_I32, RDX_F64};
    for (size_t ti = 0; ti < sizeof pair_types / sizeof pair_types[0]; ti++)
        for (size_t vs = 4; vs <= 8; vs += 4)
            for (int f = 0; f < LM_NFILL; f++) {
                if (f % (max_log2 < 21 ? 4 : 2) != (int)((ti + vs / 4) % (max_log2 < 21 ? 4 : 2)) ||
                    racecheck_skips(max_log2, &k))
                    continue;
                const size_t r = rdx_type_size(pair_types[ti]) + vs;
                t->scratch_cap = ooc_budget(n, r, 2, 3 + (f % 2) * 3);
                const unsigned flags = (f % 2 && normal_above(n, r, t->scratch_cap) ? 0u : RDX_LOW_MEMORY) |
                                       (ti % 2 ? RDX_DESCENDING : 0u);
                const lm_case c = {pair_types[ti], n, vs, flags, 0, 0, f, 0, 1 + (int)((f + vs / 4) % 2)};
                t->outcore_split = (int)((ti + f / 2) % 3);
                lm_run(ctx, &c, RDX_OK, "out-of-core", &s);
                ++runs;
            }
    /* The sampled split overflowing its class buffer (the hook aims it at twice the
     * buffer): the records go back, then the exact split; pageable and page-locked, 1.5
     * and 4.5 segments' worth. */
    t->outcore_split = 2;
    for (int host = 1; host <= 2; host++)
        for (size_t den = 3; den <= 9; den += 6) {
            const lm_case c = {host == 1 ? RDX_U32 : RDX_I64, n, host == 1 ? 4 : 0, RDX_LOW_MEMORY, 0, 0, LM_UNIFORM,
                               0, host};
            t->scratch_cap = ooc_budget(n, 8, 2, den);
            lm_run(ctx, &c, RDX_OK, "out-of-core", &s);
            ++runs;
        }
    t->outcore_split = 0;
    /* A bit range: keys equal in it but not outside stay in input order. */
    {
        const lm_case c = {RDX_U64, n, 8, RDX_LOW_MEMORY, 20, 44, LM_UNIFORM, 0, 2};
        t->scratch_cap = ooc_budget(n, 16, 1, 3);
        lm_run(ctx, &c, RDX_OK, "out-of-core", &s);
        t->scratch_cap = ooc_budget(n, 8, 1, 2);
        const lm_case c2 = {RDX_U32, n, 4, RDX_DESCENDING | (normal_above(n, 8, t->scratch_cap) ? 0u : RDX_LOW_MEMORY), 3,
                            17, LM_FEW, 0, 1};
        lm_run(ctx, &c2, RDX_OK, "out-of-core", &s);
        runs += 2;
    }
    /* No cap: with the flag the job fits at once (arrays plus an eighth). */
    {
        t->scratch_cap = 0;
        const lm_case c = {RDX_F32, n, 8, RDX_LOW_MEMORY, 0, 0, LM_UNIFORM, 0, 1};
        lm_run(ctx, &c, RDX_OK, "out-of-core", &s);
        ++runs;
    }
    /* Too little device memory: a clear failure, nothing changed. */
    {
        const lm_case c = {RDX_U64, n, 0, RDX_LOW_MEMORY, 0, 0, LM_UNIFORM, 0, 1};
        t->scratch_cap = RDX_LM_SLACK_BYTES / 2;
        lm_run(ctx, &c, RDX_ERR_OUT_OF_MEMORY, NULL, &s);
        ++runs;
    }
    /* Failing allocations: the route's device memory, its pinned buffers. Each either fails
     * cleanly with nothing changed or, where nothing else failed, sorts. */
    for (int host = 1; host <= 2; host++)
        for (unsigned long k = 1; k <= 3; k++) {
            rdx_ctx *fresh = NULL;
            CHECK(rdx_ctx_create(&fresh, RDX_BACKEND_CUDA) == RDX_OK, "outcore: context");
            if (!fresh)
                break;
            const size_t cap = ooc_budget(n, 8, 1, 2);
            const lm_case c = {RDX_U32, n, 4, normal_above(n, 8, cap) ? 0u : RDX_LOW_MEMORY, 0, 0, LM_UNIFORM, 0, host};
            rdx_cuda_ctx_tuning(fresh)->scratch_cap = cap;
            rdx_cuda_ctx_tuning(fresh)->outcore_chunk_bytes = t->outcore_chunk_bytes;
            rdx_inject_arm(fresh, RDX_INJECT_DEVICE_ALLOC, k);
            lm_run(fresh, &c, k <= 2 ? RDX_ERR_OUT_OF_MEMORY : LM_OK_OR_OOM, NULL, &s);
            rdx_inject_arm(fresh, RDX_INJECT_DEVICE_ALLOC, 0);
            rdx_ctx_destroy(fresh);
            ++runs;
        }
    t->scratch_cap = 0;
    t->outcore_chunk_bytes = 0;
    t->outcore_split = 0;
    printf("outcore: %d sorts\n", runs);
}

int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    lm_tests(ctx, rdx_test_max_log2(25));
    lmc_tests(ctx, rdx_test_max_log2(25));
    ooc_tests(ctx, rdx_test_max_log2(25));
    rdx_ctx_destroy(ctx);
    printf("test_cuda_lowmem: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
