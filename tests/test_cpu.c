/* The CPU backend: the shared suite on host memory, then what only the CPU backend has:
 * thread counts, keys already in order (and with one pair out of order), one context
 * reused over many calls of growing and shrinking size,
 * arrays that are not aligned to their element size, and (with RDX_TEST_HUGE=1, as it
 * needs about 9 GB and a minute) more than 2^32 keys.
 *
 * Environment: RDX_TEST_SEED replays a run; RDX_TEST_MAX_LOG2_N bounds the largest size
 * (default 20, the 2^20 + 3 case; the sanitizer build lowers it). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/tuning.h"
#include "reference.h"
#include "suite.h"
#include "check.h"

static const rdx_opts ASC = {0, 0, 0, 0}, DESC = {RDX_DESCENDING, 0, 0, 0};

/* Sorts the n keys of `type` at orig (keys, pairs with value_size and random values, or
 * argsort when vs == 0 and argsort is set) from offset `skew` bytes into their buffers,
 * with ctx and opts, and compares with the reference. */
static void sort_and_check(rdx_ctx *ctx, rdx_type type, const unsigned char *orig, size_t n, size_t vs,
                           int argsort, rdx_opts opts, size_t skew, uint64_t *s, const char *what)
{
    const size_t kb = rdx_type_size(type);
    unsigned char *kbuf = malloc(n * kb + skew + 1), *vbuf = malloc(n * (vs ? vs : 8) + skew + 1);
    unsigned char *ovals = malloc(n * (vs ? vs : 8) + 1);
    size_t *perm = malloc((n ? n : 1) * sizeof *perm);
    if (!kbuf || !vbuf || !ovals || !perm) {
        CHECK(0, "%s: the test could not allocate memory", what);
        goto done;
    }
    unsigned char *keys = kbuf + skew, *vals = vbuf + skew;
    for (size_t i = 0; i < n * (vs ? vs : 8); i++)
        ovals[i] = (unsigned char)rnd(s);
    memcpy(keys, orig, n * kb);
    memcpy(vals, ovals, n * (vs ? vs : 8));
    if (rdx_ref_argsort(orig, n, type, &opts, perm) != 0) {
        CHECK(0, "%s: the reference ran out of memory", what);
        goto done;
    }
    rdx_status st = argsort ? rdx_argsort(ctx, keys, n, type, vals, RDX_U64, &opts)
                    : vs    ? rdx_sort_pairs(ctx, keys, vals, vs, n, type, &opts)
                            : rdx_sort_keys(ctx, keys, n, type, &opts);
    CHECK(st == RDX_OK, "%s: n = %zu: %s", what, n, rdx_ctx_error(ctx));
    if (st != RDX_OK)
        goto done;
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++) {
        if (argsort) {
            uint64_t x;
            memcpy(&x, vals + i * 8, 8);
            if (x != perm[i] || memcmp(keys + i * kb, orig + i * kb, kb) != 0)
                bad = i;
        } else if (memcmp(keys + i * kb, orig + perm[i] * kb, kb) != 0 ||
                   (vs && memcmp(vals + i * vs, ovals + perm[i] * vs, vs) != 0)) {
            bad = i;
        }
    }
    CHECK(bad == n, "%s: n = %zu: differs from the reference at %zu", what, n, bad);
done:
    free(kbuf);
    free(vbuf);
    free(ovals);
    free(perm);
}

/* sort_and_check on n random keys with few distinct top bits, so that equal keys are
 * common and stability matters. */
static void sort_and_compare(rdx_ctx *ctx, rdx_type type, size_t n, size_t vs, int argsort,
                             rdx_opts opts, size_t skew, uint64_t *s, const char *what)
{
    const size_t kb = rdx_type_size(type);
    unsigned char *orig = malloc(n * kb + 1);
    if (!orig) {
        CHECK(0, "%s: the test could not allocate memory", what);
        return;
    }
    for (size_t i = 0; i < n * kb; i++)
        orig[i] = (unsigned char)(i % kb == kb - 1 ? rnd(s) % 3 : rnd(s));
    sort_and_check(ctx, type, orig, n, vs, argsort, opts, skew, s, what);
    free(orig);
}

/* A CPU context, or NULL after a failed check. */
static rdx_ctx *cpu_context(void)
{
    rdx_ctx *ctx = NULL;
    if (rdx_ctx_create(&ctx, RDX_BACKEND_CPU) != RDX_OK) {
        CHECK(0, "cannot create a CPU context");
        return NULL;
    }
    return ctx;
}

/* 1, 2 and 3 threads (3 is more than this machine's cores: shares of unequal progress). */
static void thread_counts(void)
{
    uint64_t s = seed ^ 0x1111;
    rdx_ctx *ctx = cpu_context();
    if (!ctx)
        return;
    const int saved = omp_get_max_threads();
    const size_t n = 3 * (size_t)RDX_CPU_MIN_KEYS_PER_THREAD + 12345;
    for (int t = 1; t <= 3; t++) {
        char what[64];
        omp_set_num_threads(t);
        snprintf(what, sizeof what, "%d thread(s)", t);
        sort_and_compare(ctx, RDX_U32, n, 0, 0, ASC, 0, &s, what);
        sort_and_compare(ctx, RDX_F64, n, 4, 0, DESC, 0, &s, what);
        sort_and_compare(ctx, RDX_I16, n, 0, 1, ASC, 0, &s, what);
        sort_and_compare(ctx, RDX_BF16, n, 5, 0, ASC, 0, &s, what);
    }
    omp_set_num_threads(saved);
    rdx_ctx_destroy(ctx);
}

/* Keys already in the sort's order, which the backend finds before its passes (then none
 * runs), keys in its reverse order (reversed instead, runs of equal keys turned back), and
 * the same keys with one pair of neighbours swapped (first, last, across the threads'
 * shares, at random), which must be sorted as any: 1, 2 and 3 threads; keys, pairs moved
 * and gathered, argsort, descending, bit ranges (long runs of keys that compare equal but
 * differ), keys off their alignment. */
static void in_order_inputs(void)
{
    uint64_t s = seed ^ 0x2222;
    rdx_ctx *ctx = cpu_context();
    if (!ctx)
        return;
    static const struct {
        rdx_type type;
        size_t vs;
        int argsort;
        rdx_opts o;
    } jobs[] = {
        {RDX_U32, 0, 0, {0, 0, 0, 0}},  {RDX_F64, 4, 0, {RDX_DESCENDING, 0, 0, 0}},
        {RDX_I16, 0, 1, {0, 0, 0, 0}},  {RDX_BF16, 5, 0, {0, 0, 0, 0}},
        {RDX_U64, 8, 0, {0, 3, 40, 0}}, {RDX_U8, 0, 0, {RDX_DESCENDING, 0, 0, 0}},
        {RDX_U16, 4, 0, {0, 0, 0, 0}},  {RDX_U8, 8, 0, {0, 4, 8, 0}},
    };
    const int saved = omp_get_max_threads();
    const size_t n = 3 * (size_t)RDX_CPU_MIN_KEYS_PER_THREAD + 12345;
    unsigned char *keys = malloc(n * 8);
    int cases = 0;
    for (int nt = 1; nt <= 3 && keys; nt++) {
        omp_set_num_threads(nt);
        /* no swap, the first pair, the last, a random one, then the pairs across shares */
        size_t swaps[3 + 3] = {(size_t)-1, 0, n - 2, rnd(&s) % (n - 1)}, nswaps = 4;
        for (int t = 1; t < nt; t++) /* thread t's share starts here (cpu.h, rdx_cpu_chunk) */
            swaps[nswaps++] = (size_t)t * (n / (size_t)nt) + ((size_t)t < n % (size_t)nt ? (size_t)t : n % (size_t)nt) - 1;
        for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++)
            for (int reversed = 0; reversed < 2; reversed++)
            for (size_t w = 0; w < nswaps; w++, cases++) {
                const size_t kb = rdx_type_size(jobs[j].type);
                for (size_t i = 0; i < n * kb; i++)
                    keys[i] = (unsigned char)rnd(&s);
                rdx_opts order = jobs[j].o; /* the order the keys are put in */
                if (reversed)
                    order.flags ^= RDX_DESCENDING;
                if (rdx_ref_put_in_order(keys, n, jobs[j].type, &order, swaps[w]) != 0) {
                    CHECK(0, "in order: the reference ran out of memory");
                    continue;
                }
                char what[112];
                snprintf(what, sizeof what, "%s, %d thread(s), job %zu, pair swapped at %lld",
                         reversed ? "reverse order" : "in order", nt, j,
                         swaps[w] == (size_t)-1 ? -1LL : (long long)swaps[w]);
                sort_and_check(ctx, jobs[j].type, keys, n, jobs[j].vs, jobs[j].argsort, jobs[j].o, cases % 2 ? 1 : 0,
                               &s, what);
            }
    }
    CHECK(keys != NULL, "in order: the test could not allocate memory");
    printf("in order: %d cases\n", cases);
    free(keys);
    omp_set_num_threads(saved);
    rdx_ctx_destroy(ctx);
}

/* One context, many calls: its scratch grows, is reused, and must not leak old data. */
static void reused_context(void)
{
    uint64_t s = seed ^ 0x2222;
    rdx_ctx *ctx = cpu_context();
    if (!ctx)
        return;
    static const size_t sizes[] = {10, 200000, 70, 5, 300001, 1000, 65536, 2, 140000, 64, 99};
    static const rdx_type types[] = {RDX_U64, RDX_I32, RDX_U8, RDX_F32, RDX_U16};
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            const rdx_type t = types[(i + (size_t)round) % 5];
            const int kind = (int)((i + 2 * (size_t)round) % 4);
            sort_and_compare(ctx, t, sizes[i], kind == 1 ? 8 : kind == 2 ? 12 : 0, kind == 3,
                             i % 2 ? DESC : ASC, 0, &s, "reused context");
        }
    rdx_ctx_destroy(ctx);
}

/* Caller arrays need no alignment (the library loads and stores through memcpy); those
 * aligned to their element size but not to a cache line take the write-combining path
 * with lines that start mid-array. Sizes large enough for write-combining. */
static void unaligned_arrays(void)
{
    uint64_t s = seed ^ 0x3333;
    rdx_ctx *ctx = cpu_context();
    if (!ctx)
        return;
    static const size_t skews[] = {1, 3, 4, 8, 24, 40};
    for (size_t i = 0; i < sizeof skews / sizeof skews[0]; i++) {
        const size_t skew = skews[i], n = 300007;
        sort_and_compare(ctx, RDX_U32, n, 0, 0, ASC, skew, &s, "unaligned keys");
        sort_and_compare(ctx, RDX_F64, n, 8, 0, DESC, skew, &s, "unaligned pairs");
        sort_and_compare(ctx, RDX_I32, n, 4, 0, ASC, skew, &s, "unaligned pairs");
        sort_and_compare(ctx, RDX_I16, 50, 4, 0, ASC, skew, &s, "unaligned small pairs");
        sort_and_compare(ctx, RDX_U64, n, 0, 1, ASC, skew, &s, "unaligned argsort");
    }
    rdx_ctx_destroy(ctx);
}

/* The MSD hybrid's buckets of 4 MiB and more write-combine their splits (tuning.h):
 * 3-bit digits over bits [0, 54) (random bits; the test keys' top byte is not) make a
 * 3-bit top digit, so 8 top buckets of about 5 MiB of 8-byte keys and values each. */
static void large_msd_buckets(void)
{
    uint64_t s = seed ^ 0x5555;
    rdx_ctx *ctx = cpu_context();
    if (!ctx)
        return;
    const size_t n = ((size_t)1 << 21) + ((size_t)1 << 19) + 5;
    const rdx_opts narrow = {0, 0, 54, 3}, narrow_desc = {RDX_DESCENDING, 0, 54, 3};
    sort_and_compare(ctx, RDX_U64, n, 8, 0, narrow, 0, &s, "large MSD buckets");
    sort_and_compare(ctx, RDX_F64, n, 8, 0, narrow_desc, 0, &s, "large MSD buckets");
    rdx_ctx_destroy(ctx);
}

/* More than 2^32 one-byte keys: size_t counts throughout. Checked by counting each value
 * before and after, and the order; values are pairs of the position's low bits. */
static void beyond_2_pow_32(void)
{
    const size_t n = ((size_t)1 << 32) + 7;
    unsigned char *k = malloc(n);
    if (!k) {
        printf("RDX_TEST_HUGE: cannot allocate %zu bytes\n", n);
        failures++;
        return;
    }
    size_t before[256] = {0}, after[256] = {0};
    uint64_t s = seed ^ 0x4444;
    for (size_t i = 0; i < n; i++) {
        k[i] = (unsigned char)(i < 8 ? 255 - i : rnd(&s));
        before[k[i]]++;
    }
    rdx_ctx *ctx;
    rdx_status st = rdx_ctx_create(&ctx, RDX_BACKEND_CPU);
    if (st == RDX_OK)
        st = rdx_sort_keys(ctx, k, n, RDX_I8, NULL);
    CHECK(st == RDX_OK, "2^32 + 7 keys: %s", rdx_ctx_error(ctx));
    size_t unordered = 0;
    for (size_t i = 0; i < n; i++) {
        after[k[i]]++;
        if (i > 0 && (signed char)k[i - 1] > (signed char)k[i])
            unordered++;
    }
    CHECK(st != RDX_OK || (unordered == 0 && memcmp(before, after, sizeof before) == 0),
          "2^32 + 7 keys: %zu out of order, counts %s", unordered,
          memcmp(before, after, sizeof before) ? "differ" : "match");
    rdx_ctx_destroy(ctx);
    free(k);
}

int main(void)
{
    seed = rdx_test_seed();
    rdx_suite_config cfg = {RDX_BACKEND_CPU, &rdx_test_host_memory, seed, rdx_test_max_log2(20),
                            RDX_CPU_MIN_KEYS_PER_THREAD, NULL, NULL, NULL, NULL};
    printf("test_cpu: seed 0x%016" PRIx64 ", %d threads, max_log2_n %d\n", seed,
           omp_get_max_threads(), cfg.max_log2_n);
    failures += rdx_run_sort_suite(&cfg);
    thread_counts();
    in_order_inputs();
    reused_context();
    unaligned_arrays();
    large_msd_buckets();
    const char *huge = getenv("RDX_TEST_HUGE");
    if (huge && atoi(huge) > 0)
        beyond_2_pow_32();
    printf("test_cpu: %s (%d failures, seed 0x%016" PRIx64 ")\n", failures ? "FAILED" : "passed",
           failures, seed);
    return failures ? 1 : 0;
}
