/* The shared correctness suite (tests/suite.h): one matrix of sort cases, each compared
 * byte for byte with the stable reference in tests/reference.c, and, where the payload
 * carries the original position, checked once more without the reference (sorted,
 * stable, a permutation, values moved with their keys).
 *
 * Every case draws its data from its own generator, seeded by (suite seed, case number),
 * so RDX_TEST_SEED=<seed> replays a failing run exactly. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reference.h"
#include "suite.h"

/* ---- memory: host arrays ---- */

static void *host_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
static void host_release(void *p) { free(p); }
static void host_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes)
        memcpy(dst, src, bytes);
}
const rdx_test_memory rdx_test_host_memory = {"host", host_alloc, host_release, host_copy,
                                              host_copy};

/* ---- random numbers (splitmix64) ---- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next64(rng *r)
{
    r->s += 0x9E3779B97F4A7C15ull;
    return mix64(r->s);
}

uint64_t rdx_test_seed(void)
{
    const char *e = getenv("RDX_TEST_SEED");
    if (e && *e)
        return strtoull(e, NULL, 0);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return mix64((uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^
                 ((uint64_t)getpid() << 40));
}

int rdx_test_max_log2(int dflt)
{
    const char *e = getenv("RDX_TEST_MAX_LOG2_N");
    if (!e || !*e)
        e = getenv("RDX_TEST_MAX_LOG2N");
    return e && *e ? atoi(e) : dflt;
}

rdx_ctx *rdx_test_cuda_context(void)
{
    rdx_ctx *ctx = NULL;
    const rdx_status st = rdx_ctx_create(&ctx, RDX_BACKEND_CUDA);
    if (st == RDX_ERR_UNSUPPORTED || st == RDX_ERR_NO_DEVICE) {
        printf("skipped: %s (no usable GPU for the CUDA backend)\n", rdx_status_string(st));
        exit(77);
    }
    if (st != RDX_OK) {
        printf("FAIL: cannot create a CUDA context: %s\n", rdx_status_string(st));
        exit(1);
    }
    return ctx;
}

/* ---- key types ---- */

typedef struct key_type {
    rdx_type type;
    const char *name;
    int exp_bits, mant_bits; /* floating point only */
} key_type;

static const key_type key_types[] = {
    {RDX_U8, "u8", 0, 0},     {RDX_U16, "u16", 0, 0},    {RDX_U32, "u32", 0, 0},
    {RDX_U64, "u64", 0, 0},   {RDX_I8, "i8", 0, 0},      {RDX_I16, "i16", 0, 0},
    {RDX_I32, "i32", 0, 0},   {RDX_I64, "i64", 0, 0},    {RDX_F16, "f16", 5, 10},
    {RDX_BF16, "bf16", 8, 7}, {RDX_F32, "f32", 8, 23},   {RDX_F64, "f64", 11, 52},
};
#define NTYPES ((int)(sizeof key_types / sizeof key_types[0]))

static const key_type *find_type(rdx_type t)
{
    for (int i = 0; i < NTYPES; i++)
        if (key_types[i].type == t)
            return &key_types[i];
    return NULL;
}

/* ---- distributions ---- */

enum {
    DIST_UNIFORM,
    DIST_EQUAL,       /* every key the same */
    DIST_SORTED,      /* ascending key order */
    DIST_REVERSE,     /* descending key order */
    DIST_FEW,         /* a handful of distinct values */
    DIST_LOW_ENTROPY, /* AND of three random words */
    DIST_LOW_BITS,    /* only the lowest quarter of the bits varies */
    DIST_HIGH_BITS,   /* only the highest quarter of the bits varies */
    DIST_BUCKETED,    /* top byte spread, next byte a copy of it, the rest a few values:
                         for MSD sorts, digits constant inside a bucket, and big buckets
                         of equal keys */
    DIST_SPECIAL,     /* floats: +-0, +-inf, NaNs of both signs, denormals, ... */
    NDIST
};
static const char *const dist_names[NDIST] = {"uniform",     "equal",    "sorted",
                                              "reverse",     "few",      "low-entropy",
                                              "low-bits",    "high-bits", "bucketed",
                                              "float-specials"};

static int ndist_for(const key_type *kt) { return kt->exp_bits ? NDIST : NDIST - 1; }

static void put_key(unsigned char *p, size_t kb, uint64_t v)
{
    for (size_t b = 0; b < kb; b++)
        p[b] = (unsigned char)(v >> (8 * b));
}

/* A float bit pattern that is one of the values the sort must get right at the edges. */
static uint64_t special_float(const key_type *kt, rng *r)
{
    const int w = kt->exp_bits + kt->mant_bits + 1;
    const uint64_t sign = (uint64_t)1 << (w - 1);
    const uint64_t mant_mask = ((uint64_t)1 << kt->mant_bits) - 1;
    const uint64_t exp_all = (((uint64_t)1 << kt->exp_bits) - 1) << kt->mant_bits;
    const uint64_t quiet = (uint64_t)1 << (kt->mant_bits - 1);
    const uint64_t s = (next64(r) & 1) ? sign : 0;
    uint64_t m = next64(r) & mant_mask;
    switch (next64(r) % 10) {
    case 0: return s;                                       /* +-0 */
    case 1: return s | exp_all;                             /* +-inf */
    case 2: return s | exp_all | quiet | (m & (quiet - 1)); /* quiet NaN, random payload */
    case 3: return s | exp_all | ((m & (quiet - 1)) | 1);   /* signalling NaN */
    case 4: return s | exp_all | mant_mask;                 /* NaN, all payload bits */
    case 5: return s | (m ? m : 1);                         /* denormal */
    case 6: return s | 1;                                   /* smallest denormal */
    case 7: return s | ((uint64_t)1 << kt->mant_bits);      /* smallest normal */
    case 8: return s | (exp_all - ((uint64_t)1 << kt->mant_bits)) | mant_mask; /* largest */
    default: return next64(r);                              /* anything */
    }
}

/* Fills keys[0..n) of type kt with distribution dist. */
static int generate_keys(unsigned char *keys, size_t n, const key_type *kt, int dist, rng *r)
{
    const size_t kb = rdx_type_size(kt->type);
    const int w = (int)(8 * kb);
    const int vary = w / 4;
    const uint64_t low_mask = ((uint64_t)1 << vary) - 1;
    const uint64_t high_mask = (w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1)) &
                               ~(((uint64_t)1 << (w - vary)) - 1);
    const uint64_t base = next64(r);
    uint64_t few[5];
    for (int i = 0; i < 5; i++)
        few[i] = next64(r);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        switch (dist) {
        case DIST_EQUAL: v = base; break;
        case DIST_FEW: v = few[next64(r) % 5]; break;
        case DIST_LOW_ENTROPY: v = next64(r) & next64(r) & next64(r); break;
        case DIST_LOW_BITS: v = (base & ~low_mask) | (next64(r) & low_mask); break;
        case DIST_HIGH_BITS: v = (base & ~high_mask) | (next64(r) & high_mask); break;
        case DIST_BUCKETED: {
            const uint64_t top = next64(r) & 0xFF;
            v = w == 8 ? top : (few[next64(r) % 3] & ~((uint64_t)0xFFFF << (w - 16))) |
                                   top << (w - 8) | top << (w - 16);
            break;
        }
        case DIST_SPECIAL: v = special_float(kt, r); break;
        default: v = next64(r); break;
        }
        put_key(keys + i * kb, kb, v);
    }
    if (dist == DIST_SORTED || dist == DIST_REVERSE) {
        size_t *perm = (size_t *)malloc((n ? n : 1) * sizeof *perm);
        unsigned char *copy = (unsigned char *)malloc(n * kb + 1);
        if (!perm || !copy || rdx_ref_argsort(keys, n, kt->type, NULL, perm) != 0) {
            free(perm);
            free(copy);
            return -1;
        }
        memcpy(copy, keys, n * kb);
        for (size_t i = 0; i < n; i++) {
            const size_t to = dist == DIST_SORTED ? i : n - 1 - i;
            memcpy(keys + to * kb, copy + perm[i] * kb, kb);
        }
        free(perm);
        free(copy);
    }
    return 0;
}

/* Value i starts with i as a 32-bit word when there is room (so a sorted value says where
 * it came from); the rest of its bytes are random. */
static void generate_values(unsigned char *values, size_t n, size_t vs, rng *r)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char *v = values + i * vs;
        size_t b = 0;
        if (vs >= 4) {
            const uint32_t pos = (uint32_t)i;
            memcpy(v, &pos, 4);
            b = 4;
        }
        for (; b < vs; b++)
            v[b] = (unsigned char)next64(r);
    }
}

/* ---- one case ---- */

enum { KIND_KEYS, KIND_PAIRS, KIND_ARGSORT };

typedef struct sort_case {
    const key_type *kt;
    size_t n;
    int kind;
    size_t value_size;    /* pairs */
    rdx_type index_type;  /* argsort */
    int dist;
    rdx_opts opts;
} sort_case;

typedef struct suite_run {
    const rdx_suite_config *cfg;
    rdx_ctx *ctx;
    unsigned long cases, failed, printed;
    size_t max_n;
} suite_run;

#define MAX_PRINTED 25

static void describe(const sort_case *c, char *buf, size_t size)
{
    char what[64];
    if (c->kind == KIND_KEYS)
        snprintf(what, sizeof what, "keys");
    else if (c->kind == KIND_PAIRS)
        snprintf(what, sizeof what, "pairs(value_size %zu)", c->value_size);
    else
        snprintf(what, sizeof what, "argsort(%s indices)", c->index_type == RDX_U32 ? "u32" : "u64");
    snprintf(buf, size, "%s n=%zu %s %s%s dist=%s bits=[%d,%d) radix_bits=%d", c->kt->name, c->n,
             what, (c->opts.flags & RDX_DESCENDING) ? "descending" : "ascending",
             (c->opts.flags & RDX_NUMPY_ORDER) ? " numpy-order" : "",
             dist_names[c->dist], c->opts.begin_bit,
             c->opts.end_bit ? c->opts.end_bit : (int)(8 * rdx_type_size(c->kt->type)),
             c->opts.radix_bits);
}

static void fail(suite_run *run, const sort_case *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void fail(suite_run *run, const sort_case *c, const char *fmt, ...)
{
    if (run->printed++ >= MAX_PRINTED)
        return;
    char what[256];
    describe(c, what, sizeof what);
    printf("FAIL [%s/%s%s%s, seed 0x%016" PRIx64 ", case %lu] %s: ",
           rdx_ctx_backend(run->ctx) == RDX_BACKEND_CUDA ? "cuda" : "cpu", run->cfg->memory->name,
           run->cfg->sorter ? "/" : "", run->cfg->sorter ? run->cfg->sorter->name : "",
           run->cfg->seed, run->cases, what);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

/* Index of the first differing element of two arrays of n elements of es bytes, or n. */
static size_t first_difference(const unsigned char *a, const unsigned char *b, size_t n, size_t es)
{
    if (memcmp(a, b, n * es) == 0)
        return n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i * es, b + i * es, es) != 0)
            return i;
    return n;
}

static uint64_t load_index(const unsigned char *p, rdx_type index_type)
{
    if (index_type == RDX_U32) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Without the reference: given pos[i], the original position of the i-th output, the
 * output is a permutation, in order, stable, and out_keys (if any) hold the keys from
 * those positions. Returns NULL if right, else what is wrong (and *at). */
static const char *check_permutation(const sort_case *c, const unsigned char *orig,
                                     const unsigned char *out_keys, const uint64_t *pos,
                                     size_t *at)
{
    const size_t n = c->n, kb = rdx_type_size(c->kt->type);
    const int end = c->opts.end_bit ? c->opts.end_bit : (int)(8 * kb);
    unsigned char *seen = (unsigned char *)calloc(n ? n : 1, 1);
    const char *bad = NULL;
    if (!seen)
        return "the test ran out of memory";
    uint64_t prev_key = 0;
    for (size_t i = 0; i < n && !bad; i++) {
        *at = i;
        if (pos[i] >= n || seen[pos[i]]) {
            bad = "not a permutation";
            break;
        }
        seen[pos[i]] = 1;
        const unsigned char *k = orig + pos[i] * kb;
        if (out_keys && memcmp(out_keys + i * kb, k, kb) != 0)
            bad = "a value did not move with its key";
        const uint64_t sk = rdx_ref_sort_key_flags(k, c->kt->type, c->opts.flags, c->opts.begin_bit, end);
        if (i > 0 && sk < prev_key)
            bad = "out of order";
        else if (i > 0 && sk == prev_key && pos[i] < pos[i - 1])
            bad = "equal keys lost their input order (not stable)";
        prev_key = sk;
    }
    free(seen);
    return bad;
}

/* Runs one case; returns 1 if it failed. */
static int run_case(suite_run *run, const sort_case *c)
{
    const rdx_test_memory *mem = run->cfg->memory;
    const size_t n = c->n, kb = rdx_type_size(c->kt->type);
    const size_t vs = c->kind == KIND_PAIRS ? c->value_size : 0;
    const size_t is = c->kind == KIND_ARGSORT ? rdx_type_size(c->index_type) : 0;
    rng r = {mix64(run->cfg->seed ^ mix64(run->cases + 1))};
    int failed = 1;

    unsigned char *keys = (unsigned char *)malloc(n * kb + 1);
    unsigned char *vals = (unsigned char *)malloc(n * vs + 1);
    unsigned char *out_keys = (unsigned char *)malloc(n * kb + 1);
    unsigned char *out_aux = (unsigned char *)malloc(n * (vs > is ? vs : is) + 1);
    unsigned char *expect = (unsigned char *)calloc(n * (vs > kb ? vs : kb) + 1, 1);
    size_t *perm = (size_t *)malloc((n ? n : 1) * sizeof *perm);
    uint64_t *pos = (uint64_t *)malloc((n ? n : 1) * sizeof *pos);
    void *dkeys = NULL, *daux = NULL;
    /* An out-of-place sorter: outputs apart from the inputs (dkeys, daux). */
    const rdx_test_sorter *sorter = run->cfg->sorter;
    const int apart = sorter && c->kind != KIND_ARGSORT;
    void *dkeys_out = NULL, *dvals_out = NULL;
    if (!keys || !vals || !out_keys || !out_aux || !expect || !perm || !pos) {
        fail(run, c, "the test could not allocate its host arrays");
        goto done;
    }
    if (generate_keys(keys, n, c->kt, c->dist, &r) != 0) {
        fail(run, c, "the test ran out of memory generating keys");
        goto done;
    }
    generate_values(vals, n, vs, &r);
    if (rdx_ref_argsort(keys, n, c->kt->type, &c->opts, perm) != 0) {
        fail(run, c, "the reference sort ran out of memory");
        goto done;
    }

    /* n = 0 goes in with NULL arrays, as the API allows. */
    if (n > 0) {
        dkeys = mem->alloc(n * kb);
        daux = vs + is ? mem->alloc(n * (vs + is)) : NULL;
        if (!dkeys || (vs + is && !daux)) {
            fail(run, c, "could not allocate %s arrays", mem->name);
            goto done;
        }
        mem->upload(dkeys, keys, n * kb);
        if (vs)
            mem->upload(daux, vals, n * vs);
        if (apart) {
            /* Outputs start as a pattern, so that a result left unwritten shows. */
            dkeys_out = mem->alloc(n * kb);
            dvals_out = vs ? mem->alloc(n * vs) : NULL;
            if (!dkeys_out || (vs && !dvals_out)) {
                fail(run, c, "could not allocate %s output arrays", mem->name);
                goto done;
            }
            memset(expect, 0xA5, n * (vs > kb ? vs : kb));
            mem->upload(dkeys_out, expect, n * kb);
            if (vs)
                mem->upload(dvals_out, expect, n * vs);
        }
    }
    rdx_status s;
    if (c->kind == KIND_KEYS)
        s = sorter ? sorter->sort_keys(run->ctx, dkeys, dkeys_out, n, c->kt->type, &c->opts)
                   : rdx_sort_keys(run->ctx, dkeys, n, c->kt->type, &c->opts);
    else if (c->kind == KIND_PAIRS)
        s = sorter ? sorter->sort_pairs(run->ctx, dkeys, dkeys_out, daux, dvals_out, vs, n, c->kt->type,
                                        &c->opts)
                   : rdx_sort_pairs(run->ctx, dkeys, daux, vs, n, c->kt->type, &c->opts);
    else
        s = sorter ? sorter->argsort(run->ctx, dkeys, n, c->kt->type, daux, c->index_type, &c->opts)
                   : rdx_argsort(run->ctx, dkeys, n, c->kt->type, daux, c->index_type, &c->opts);
    if (s != RDX_OK) {
        fail(run, c, "returned %s: %s", rdx_status_string(s), rdx_ctx_error(run->ctx));
        goto done;
    }
    size_t at;
    if (n > 0 && apart) {
        /* The inputs are as they were; the results are in the outputs. */
        mem->download(out_keys, dkeys, n * kb);
        if ((at = first_difference(out_keys, keys, n, kb)) < n) {
            fail(run, c, "the input keys changed (first at index %zu)", at);
            goto done;
        }
        if (vs) {
            mem->download(out_aux, daux, n * vs);
            if ((at = first_difference(out_aux, vals, n, vs)) < n) {
                fail(run, c, "the input values changed (first at index %zu)", at);
                goto done;
            }
        }
        mem->download(out_keys, dkeys_out, n * kb);
        if (vs)
            mem->download(out_aux, dvals_out, n * vs);
    } else if (n > 0) {
        mem->download(out_keys, dkeys, n * kb);
        if (vs + is)
            mem->download(out_aux, daux, n * (vs + is));
    }

    /* Byte for byte against the reference. */
    if (c->kind == KIND_ARGSORT) {
        if ((at = first_difference(out_keys, keys, n, kb)) < n) {
            fail(run, c, "argsort changed the keys (first at index %zu)", at);
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            if (load_index(out_aux + i * is, c->index_type) != perm[i]) {
                fail(run, c, "index differs from the reference at position %zu: got %" PRIu64 ", expected %zu", i, load_index(out_aux + i * is, c->index_type), perm[i]);
                goto done;
            }
            pos[i] = load_index(out_aux + i * is, c->index_type);
        }
    } else {
        for (size_t i = 0; i < n; i++)
            memcpy(expect + i * kb, keys + perm[i] * kb, kb);
        if ((at = first_difference(out_keys, expect, n, kb)) < n) {
            fail(run, c, "keys differ from the reference at index %zu", at);
            goto done;
        }
        if (vs) {
            for (size_t i = 0; i < n; i++)
                memcpy(expect + i * vs, vals + perm[i] * vs, vs);
            if ((at = first_difference(out_aux, expect, n, vs)) < n) {
                fail(run, c, "values differ from the reference at index %zu", at);
                goto done;
            }
        }
    }

    /* Without the reference, where the output says where each element came from. */
    const int positions = c->kind == KIND_ARGSORT || (vs >= 4 && n <= UINT32_MAX);
    if (positions) {
        if (c->kind == KIND_PAIRS)
            for (size_t i = 0; i < n; i++) {
                uint32_t p;
                memcpy(&p, out_aux + i * vs, 4);
                pos[i] = p;
            }
        const char *bad = check_permutation(c, keys, c->kind == KIND_PAIRS ? out_keys : NULL, pos,
                                            &at);
        if (bad) {
            fail(run, c, "%s, at position %zu", bad, at);
            goto done;
        }
    }
    failed = 0;
done:
    if (dkeys)
        mem->release(dkeys);
    if (daux)
        mem->release(daux);
    if (dkeys_out)
        mem->release(dkeys_out);
    if (dvals_out)
        mem->release(dvals_out);
    free(keys);
    free(vals);
    free(out_keys);
    free(out_aux);
    free(expect);
    free(perm);
    free(pos);
    return failed;
}

/* ---- the matrix ---- */

/* The payloads tried: keys alone, values carried natively (4, 8 bytes) and by gathering
 * (3, 12 bytes), and argsort into both index types. */
typedef struct variant {
    int kind;
    size_t value_size;
    rdx_type index_type;
} variant;
static const variant variants[] = {
    {KIND_KEYS, 0, RDX_U32},     {KIND_PAIRS, 4, RDX_U32},    {KIND_PAIRS, 8, RDX_U32},
    {KIND_PAIRS, 3, RDX_U32},    {KIND_PAIRS, 12, RDX_U32},   {KIND_ARGSORT, 0, RDX_U32},
    {KIND_ARGSORT, 0, RDX_U64},
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

static void run_one(suite_run *run, const key_type *kt, size_t n, const variant *v, int dist,
                    unsigned flags, int begin_bit, int end_bit, int radix_bits)
{
    if (n > run->max_n)
        return;
    sort_case c;
    memset(&c, 0, sizeof c);
    c.kt = kt;
    c.n = n;
    c.kind = v->kind;
    c.value_size = v->value_size;
    c.index_type = v->index_type;
    c.dist = dist;
    c.opts.flags = flags;
    c.opts.begin_bit = begin_bit;
    c.opts.end_bit = end_bit;
    c.opts.radix_bits = radix_bits;
    run->failed += (unsigned long)run_case(run, &c);
    run->cases++;
}

/* Every type, order, payload and distribution at small sizes (around 0, a warp, and the
 * CPU's insertion-sort cut-off). */
static void small_sizes(suite_run *run)
{
    static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 100, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < NTYPES; t++)
            for (int d = 0; d < ndist_for(&key_types[t]); d++)
                for (int v = 0; v < NVARIANTS; v++)
                    run_one(run, &key_types[t], sizes[s], &variants[v], d,
                            (unsigned)(v + d + (int)s) % 2 ? RDX_DESCENDING : 0u, 0, 0, 0);
}

/* One tile +- 1, two tiles and odd sizes: every type, order and payload; the distribution
 * turns with the case number so that each meets every type over the sizes. */
static void tile_sizes(suite_run *run)
{
    const size_t tile = run->cfg->tile > 1 ? (size_t)run->cfg->tile : 4096;
    const size_t sizes[] = {tile - 1, tile, tile + 1, 2 * tile, 3 * tile + 5, 10007};
    const size_t *more = run->cfg->more_sizes;
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    int turn = 0;
    for (size_t s = 0; s < nsizes || (more && more[s - nsizes]); s++)
        for (int t = 0; t < NTYPES; t++)
            for (int o = 0; o < 2; o++)
                for (int v = 0; v < NVARIANTS; v++, turn++)
                    run_one(run, &key_types[t], s < nsizes ? sizes[s] : more[s - nsizes], &variants[v],
                            turn % ndist_for(&key_types[t]), o ? RDX_DESCENDING : 0u, 0, 0, 0);
}

/* The sizes of the bit-range and digit-width parts: 1000, one tile + 1, and the first of
 * the configuration's more sizes; returns how many. */
static size_t range_sizes(const suite_run *run, size_t sizes[3])
{
    const size_t tile = run->cfg->tile > 1 ? (size_t)run->cfg->tile : 4096;
    sizes[0] = 1000;
    sizes[1] = tile + 1;
    sizes[2] = run->cfg->more_sizes ? run->cfg->more_sizes[0] : 0;
    return sizes[2] ? 3 : 2;
}

/* 2^20 + 3 (or what max_log2_n allows): every type both ways, and every payload on u32,
 * u64 and f32 keys. */
static void large_sizes(suite_run *run)
{
    const int lg = run->cfg->max_log2_n < 20 ? run->cfg->max_log2_n : 20;
    const size_t n = ((size_t)1 << lg) + 3;
    for (int t = 0; t < NTYPES; t++) {
        run_one(run, &key_types[t], n, &variants[0], DIST_UNIFORM, 0, 0, 0, 0);
        run_one(run, &key_types[t], n, &variants[1 + t % (NVARIANTS - 1)],
                1 + t % (ndist_for(&key_types[t]) - 1), RDX_DESCENDING, 0, 0, 0);
    }
    const rdx_type wide[] = {RDX_U32, RDX_U64, RDX_F32};
    for (int w = 0; w < 3; w++)
        for (int v = 1; v < NVARIANTS; v++)
            run_one(run, find_type(wide[w]), n, &variants[v], v % 2 ? DIST_UNIFORM : DIST_FEW,
                    v % 3 ? 0 : RDX_DESCENDING, 0, 0, 0);
}

/* Bit ranges [begin, end): the lowest and highest bit alone, halves, and ranges that
 * cross digit boundaries; with data that varies only in the low or high bits. */
static void bit_ranges(suite_run *run)
{
    size_t sizes[3];
    const size_t nsizes = range_sizes(run, sizes);
    const int kinds[] = {0, 1, 5};
    int turn = 0;
    for (int t = 0; t < NTYPES; t++) {
        const int w = (int)(8 * rdx_type_size(key_types[t].type));
        const int ranges[][2] = {{0, 1}, {w - 1, w}, {1, w - 1}, {w / 2, w}, {0, w / 2},
                                 {3, 3 + (w - 3 < 13 ? w - 3 : 13)}};
        for (int g = 0; g < 6; g++)
            for (size_t s = 0; s < nsizes; s++)
                for (int k = 0; k < 3; k++, turn++) {
                    static const int dists[] = {DIST_UNIFORM, DIST_LOW_BITS, DIST_HIGH_BITS,
                                                DIST_FEW};
                    run_one(run, &key_types[t], sizes[s], &variants[kinds[k]], dists[turn % 4],
                            turn % 2 ? RDX_DESCENDING : 0u, ranges[g][0],
                            ranges[g][1] == w && turn % 3 == 0 ? 0 : ranges[g][1], 0);
                }
    }
}

/* Every digit width 1..8, on every key width, with and without a bit range. */
static void radix_widths(suite_run *run)
{
    const rdx_type types[] = {RDX_U8, RDX_I16, RDX_BF16, RDX_U32, RDX_F32, RDX_I64, RDX_F64};
    size_t sizes[3];
    const size_t nsizes = range_sizes(run, sizes);
    const int kinds[] = {0, 2, 6, 3};
    int turn = 0;
    for (int rb = 1; rb <= 8; rb++)
        for (int t = 0; t < 7; t++)
            for (size_t s = 0; s < nsizes; s++)
                for (int k = 0; k < 4; k++, turn++) {
                    const key_type *kt = find_type(types[t]);
                    const int w = (int)(8 * rdx_type_size(kt->type));
                    const int ranged = turn % 3 == 2;
                    run_one(run, kt, sizes[s], &variants[kinds[k]], turn % ndist_for(kt),
                            turn % 2 ? RDX_DESCENDING : 0u, ranged ? 3 : 0, ranged ? w - 2 : 0, rb);
                }
}

/* Many equal keys with positions as values: stability, checked against the reference and
 * on its own; and wide keys in buckets with constant digits (the CPU's MSD hybrid). */
static void stability(suite_run *run)
{
    const size_t tile = run->cfg->tile > 1 ? (size_t)run->cfg->tile : 4096;
    const rdx_type wide[] = {RDX_U64, RDX_I64, RDX_F64, RDX_U32, RDX_F32};
    for (int t = 0; t < 5; t++)
        for (int v = 0; v < NVARIANTS; v++)
            run_one(run, find_type(wide[t]), 2 * tile + 3, &variants[v], DIST_BUCKETED,
                    (t + v) % 2 ? RDX_DESCENDING : 0u, 0, 0, 0);
    const rdx_type types[] = {RDX_U8, RDX_U16, RDX_U32, RDX_I64, RDX_F32, RDX_F16};
    for (int t = 0; t < 6; t++)
        for (int o = 0; o < 2; o++)
            for (int d = 0; d < 2; d++) {
                run_one(run, find_type(types[t]), 2 * tile + 3, &variants[1],
                        d ? DIST_FEW : DIST_EQUAL, o ? RDX_DESCENDING : 0u, 0, 0, 0);
                run_one(run, find_type(types[t]), 3 * tile + 1, &variants[2],
                        d ? DIST_LOW_BITS : DIST_FEW, o ? RDX_DESCENDING : 0u, 0, 0, 0);
                run_one(run, find_type(types[t]), tile + 7, &variants[6],
                        d ? DIST_FEW : DIST_EQUAL, o ? RDX_DESCENDING : 0u, 0, 0, 0);
            }
}

/* RDX_NUMPY_ORDER: every float type with NaNs of both signs, both zeros and infinities
 * (and few distinct values), both orders, every payload kind, small to one tile + 1 and
 * 2^16 + 3; a bit range and a digit width once each; and an integer type, where the flag
 * changes nothing. */
static void numpy_order(suite_run *run)
{
    const size_t tile = run->cfg->tile > 1 ? (size_t)run->cfg->tile : 4096;
    const size_t sizes[] = {1, 2, 33, 65, 1000, tile + 1, ((size_t)1 << 16) + 3};
    const rdx_type floats[] = {RDX_F16, RDX_BF16, RDX_F32, RDX_F64};
    const int kinds[] = {0, 1, 3, 5, 6};
    int turn = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 4; t++)
            for (int o = 0; o < 2; o++)
                for (int k = 0; k < 5; k++, turn++)
                    run_one(run, find_type(floats[t]), sizes[s], &variants[kinds[k]],
                            turn % 3 ? DIST_SPECIAL : DIST_FEW,
                            RDX_NUMPY_ORDER | (o ? RDX_DESCENDING : 0u), 0, 0, 0);
    for (int t = 0; t < 4; t++) {
        const int w = (int)(8 * rdx_type_size(floats[t]));
        run_one(run, find_type(floats[t]), 1000, &variants[1], DIST_SPECIAL, RDX_NUMPY_ORDER,
                w / 2, 0, 0);
        run_one(run, find_type(floats[t]), tile + 1, &variants[5], DIST_SPECIAL,
                RDX_NUMPY_ORDER | RDX_DESCENDING, 0, 0, 3);
    }
    run_one(run, find_type(RDX_I32), 1000, &variants[1], DIST_FEW, RDX_NUMPY_ORDER, 0, 0, 0);
    run_one(run, find_type(RDX_U16), tile + 1, &variants[5], DIST_UNIFORM,
            RDX_NUMPY_ORDER | RDX_DESCENDING | RDX_LOW_MEMORY, 0, 0, 0);
}

int rdx_run_sort_suite(const rdx_suite_config *cfg)
{
    suite_run run;
    memset(&run, 0, sizeof run);
    run.cfg = cfg;
    const int lg = cfg->max_log2_n < 0 ? 0 : cfg->max_log2_n > 40 ? 40 : cfg->max_log2_n;
    run.max_n = ((size_t)1 << lg) + 3;
    rdx_status s = rdx_ctx_create(&run.ctx, cfg->backend);
    if (s != RDX_OK) {
        printf("FAIL [seed 0x%016" PRIx64 "] cannot create a context: %s\n", cfg->seed,
               rdx_status_string(s));
        return 1;
    }
    if (cfg->prepare)
        cfg->prepare(run.ctx, cfg->prepare_arg);
    struct {
        const char *name;
        void (*run)(suite_run *);
    } parts[] = {{"small sizes", small_sizes}, {"tile sizes", tile_sizes},
                 {"bit ranges", bit_ranges},   {"radix widths", radix_widths},
                 {"stability", stability},     {"large sizes", large_sizes},
                 {"numpy order", numpy_order}};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        const unsigned long before = run.cases, failed_before = run.failed;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        parts[p].run(&run);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("  %-13s %6lu cases, %lu failed (%.1f s)\n", parts[p].name, run.cases - before,
               run.failed - failed_before,
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
        fflush(stdout);
    }
    if (run.printed > MAX_PRINTED)
        printf("  (%lu more failures not shown)\n", run.printed - MAX_PRINTED);
    printf("suite %s/%s%s%s: %lu cases, %lu failed, seed 0x%016" PRIx64
           " (RDX_TEST_SEED=0x%016" PRIx64 " replays it)\n",
           rdx_ctx_backend(run.ctx) == RDX_BACKEND_CUDA ? "cuda" : "cpu", cfg->memory->name,
           cfg->sorter ? "/" : "", cfg->sorter ? cfg->sorter->name : "", run.cases, run.failed,
           cfg->seed, cfg->seed);
    rdx_ctx_destroy(run.ctx);
    return (int)(run.failed > 1000000 ? 1000000 : run.failed);
}
