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
    ooc_tests(ctx, rdx_test_max_log2(25));
    rdx_ctx_destroy(ctx);
    printf("test_cuda_lowmem: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
