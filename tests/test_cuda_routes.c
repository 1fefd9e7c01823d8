/* The CUDA routes forced one at a time through the context's tuning (rdx_cuda_ctx_tuning):
 * small, cluster, grid and onesweep (medium and large tile shapes, several portions), each
 * sort checked against the reference and rdx_ctx_route checked to name the forced route;
 * the counting route from a lowered limit (and the jobs it declines); the onesweep route in
 * portions of a few tiles on more sizes and kinds; the onesweep route on keys already in
 * order, and on keys with one pair out of order; on keys of few values (each pass's digit
 * taking at most 17); NumPy's order on the LSD passes; pairs of 4-byte keys and values
 * moved as words; the cluster route against the grid route byte for byte; the routes of
 * kernel families the device could not prepare, off. (test_cuda_msd forces the MSD route.)
 *
 * Exits 77 where no GPU is usable. RDX_TEST_SEED replays a run; RDX_TEST_MAX_LOG2_N bounds
 * the sizes (default 20); RDX_TEST_REQUIRE_CLUSTER=1 fails the run where the cluster route
 * is off on the device (it is on sm_90 and later when the device can place the cluster). */
#include "cuda_check.h"
#include "cuda_into.h"
#include "reference.h"

#define KEEP ((size_t)-1) /* a limit left as tuning.h has it */

/* A route and how to force it: n keys, and the context's limits. */
typedef struct forced_route {
    const char *route;
    size_t n;
    size_t cluster_max_n, grid_max_n, medium_max_n, mid_max_n, portion_max_n;
} forced_route;

static void force(rdx_ctx *ctx, const forced_route *f)
{
    reset_tuning(ctx);
    rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
    if (f->cluster_max_n != KEEP) /* sorts with values too: the kernel's values path */
        t->cluster_max_n = t->cluster_pairs_max_n = f->cluster_max_n;
    if (f->grid_max_n != KEEP)
        t->grid_max_n = f->grid_max_n;
    if (f->medium_max_n != KEEP)
        t->medium_max_n = f->medium_max_n;
    if (f->mid_max_n != KEEP)
        t->mid_max_n = f->mid_max_n;
    if (f->portion_max_n != KEEP)
        t->portion_max_n = f->portion_max_n;
}

/* The route a forced sort of kb-byte keys moving vb-byte values must take: the forced one,
 * but the grid route where the device cannot place so large a cluster of that kind. */
static const char *want(const forced_route *f, size_t kb, size_t vb)
{
    if (strcmp(f->route, "cluster") == 0 &&
        (size_t)rdx_cuda_cluster_max_blocks(kb, vb) * RDX_CLUSTER_TILE < f->n)
        return "grid";
    return f->route;
}

/* Each route forced in turn; keys, pairs and argsort on device and host arrays. */
static void forced_routes(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x8888;
    const size_t three_tiles = 3 * (size_t)RDX_OSM_THREADS * RDX_OSM_ITEMS;
    const forced_route routes[] = {
        {"small", 3000, KEEP, KEEP, KEEP, KEEP, KEEP},
        {"cluster", 12000, RDX_CLUSTER_MAX_N, KEEP, KEEP, KEEP, KEEP},
        {"grid", 12000, 0, KEEP, KEEP, KEEP, KEEP},
        {"onesweep", 12000, 0, 0, KEEP, KEEP, KEEP},        /* medium tile shape */
        {"onesweep", 12000, 0, 0, 0, KEEP, KEEP},           /* mid (u8/u32) and large shapes */
        {"onesweep", 12000, 0, 0, 0, 0, KEEP},              /* large tile shape */
        {"onesweep", 12000, 0, 0, KEEP, KEEP, three_tiles}, /* two portions */
        {"onesweep", ((size_t)1 << 20) + 5, KEEP, KEEP, KEEP, KEEP, KEEP}, /* above the grid limit */
    };
    const int cluster_on = rdx_cuda_cluster_max_blocks(4, 0) > 0;
    for (size_t r = 0; r < sizeof routes / sizeof routes[0]; r++) {
        const forced_route *f = &routes[r];
        if (f->n > ((size_t)1 << max_log2) + 100)
            continue;
        if (strcmp(f->route, "cluster") == 0 && !cluster_on) {
            printf("forced routes: cluster skipped (off on this device)\n");
            continue;
        }
        force(ctx, f);
        char what[96];
        snprintf(what, sizeof what, "forced %s, n = %zu, case %zu", f->route, f->n, r);
        sort_and_compare(ctx, RDX_U32, f->n, 0, 0, 0, AT_DEVICE, AT_DEVICE, 0, &s, what);
        CHECK_ROUTE(ctx, want(f, 4, 0), what);
        sort_and_compare(ctx, RDX_F64, f->n, 8, 0, RDX_DESCENDING, AT_DEVICE, AT_DEVICE, 0, &s, what);
        CHECK_ROUTE(ctx, want(f, 8, 8), what);
        sort_and_compare(ctx, RDX_I16, f->n, 0, 1, 0, AT_DEVICE, AT_HOST, 0, &s, what); /* u64 indices */
        CHECK_ROUTE(ctx, want(f, 2, 8), what);
        sort_and_compare(ctx, RDX_U8, f->n, 4, 0, 0, AT_HOST, AT_HOST, 0, &s, what);
        CHECK_ROUTE(ctx, want(f, 1, 4), what);
    }
    reset_tuning(ctx);
}

/* The onesweep route alone in portions of 9216 keys at most (3 tiles of the medium shape,
 * 1 or 2 of the large): keys, pairs moved and gathered, argsort, host arrays. */
static void portions(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x6666;
    const forced_route f = {"onesweep", 0, 0, 0, KEEP, KEEP, 3 * (size_t)RDX_OSM_THREADS * RDX_OSM_ITEMS};
    force(ctx, &f);
    static const size_t sizes[] = {10007, ((size_t)1 << 18) + 1, ((size_t)1 << 20) + 5};
    for (size_t i = 0; i < 3; i++) {
        if (sizes[i] > ((size_t)1 << max_log2) + 7)
            continue;
        sort_and_compare(ctx, RDX_U32, sizes[i], 0, 0, 0, AT_DEVICE, AT_DEVICE, 0, &s, "portions, keys in place");
        CHECK_ROUTE(ctx, "onesweep", "portions");
        sort_and_compare(ctx, RDX_F64, sizes[i], 4, 0, RDX_DESCENDING, AT_DEVICE, AT_DEVICE, 0, &s,
                         "portions, pairs in place");
        sort_and_compare(ctx, RDX_I16, sizes[i], 12, 0, 0, AT_DEVICE, AT_DEVICE, 0, &s, "portions, gathered pairs");
        sort_and_compare(ctx, RDX_U8, sizes[i], 0, 1, 0, AT_DEVICE, AT_DEVICE, 0, &s, "portions, argsort");
        sort_and_compare(ctx, RDX_U64, sizes[i], 8, 0, 0, AT_HOST, AT_HOST, 0, &s, "portions, host pairs");
        CHECK_ROUTE(ctx, "onesweep", "portions");
    }
    reset_tuning(ctx);
}

/* The largest tile of the pass kernel (the shape of 1- and 2-byte keys alone). */
#define LARGEST_TILE ((size_t)RDX_OS_THREADS_2 * RDX_OS_ITEMS_2)

/* Keys in runs of equal keys, 1 to 3 of the largest tiles long (a run of 1 in 8 is
 * short: tiles with several digits among them), so that most tiles of every pass hold one
 * digit (the pass kernel's shortcut) and the tiles at run ends do not. */
static void fill_runs(unsigned char *keys, size_t n, size_t kb, uint64_t *s)
{
    const size_t tile = LARGEST_TILE;
    uint64_t v = rnd(s);
    for (size_t i = 0, left = 0; i < n; i++, left--) {
        if (left == 0) {
            v = rnd(s);
            left = rnd(s) % 8 == 0 ? 1 + rnd(s) % 300 : tile + rnd(s) % (2 * tile);
        }
        for (size_t b = 0; b < kb; b++)
            keys[i * kb + b] = (unsigned char)(v >> (8 * b));
    }
}

/* The onesweep route on keys in runs (fill_runs): tiles of one digit beside mixed ones, in
 * one portion and in many; keys, pairs of 4 and 8 bytes, argsort into 32- and 64-bit
 * indices, descending, signed and float keys; checked against the reference. */
static void one_digit_tiles(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x7777;
    const size_t tile = LARGEST_TILE;
    const forced_route shapes[4] = {{"onesweep", 0, 0, 0, 0, 0, KEEP},                  /* large shape */
                                    {"onesweep", 0, 0, 0, (size_t)1 << 40, KEEP, KEEP}, /* medium shape */
                                    {"onesweep", 0, 0, 0, 0, (size_t)1 << 40, KEEP},    /* mid shape */
                                    {"onesweep", 0, 0, 0, 0, 0, 4 * tile}};             /* portions */
    static const struct {
        rdx_type type;
        rdx_ref_kind kind;
        size_t vs;
        rdx_type index_type;
        unsigned flags;
    } jobs[] = {
        {RDX_U32, RDX_REF_KEYS, 0, 0, 0},
        {RDX_F32, RDX_REF_PAIRS, 4, 0, RDX_DESCENDING},
        {RDX_I64, RDX_REF_PAIRS, 8, 0, 0},
        {RDX_U64, RDX_REF_PAIRS, 4, 0, RDX_DESCENDING},
        {RDX_U16, RDX_REF_ARGSORT, 0, RDX_U32, 0},
        {RDX_F64, RDX_REF_ARGSORT, 0, RDX_U64, RDX_DESCENDING},
        {RDX_I8, RDX_REF_KEYS, 0, 0, 0},
    };
    size_t n = 40 * tile + 123;
    if (n > ((size_t)1 << max_log2) + 7) /* under the sanitizers: still past the small route */
        n = ((size_t)1 << max_log2) + 7 > RDX_SMALL_MAX_N ? ((size_t)1 << max_log2) + 7 : RDX_SMALL_MAX_N + 1;
    for (int sh = 0; sh < 4; sh++) {
        force(ctx, &shapes[sh]);
        rdx_cuda_ctx_tuning(ctx)->count_min_n = rdx_cuda_ctx_tuning(ctx)->count16_min_n = (size_t)-1; /* i8 */
        for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
            const size_t kb = rdx_type_size(jobs[j].type);
            const size_t ab = jobs[j].kind == RDX_REF_ARGSORT ? rdx_type_size(jobs[j].index_type) : jobs[j].vs;
            unsigned char *k0 = host_or_die(n * kb), *a0 = host_or_die(n * ab + 1);
            unsigned char *k1 = host_or_die(n * kb), *a1 = host_or_die(n * ab + 1);
            fill_runs(k0, n, kb, &s);
            for (size_t i = 0; i < n * ab; i++)
                a0[i] = (unsigned char)rnd(&s);
            unsigned char *dk = alloc_at(AT_DEVICE, n * kb), *da = alloc_at(AT_DEVICE, n * ab + 1);
            dev_upload(dk, k0, n * kb);
            dev_upload(da, a0, n * ab);
            const rdx_opts o = {jobs[j].flags, 0, 0, 0};
            const rdx_status st = jobs[j].kind == RDX_REF_ARGSORT
                                      ? rdx_argsort(ctx, dk, n, jobs[j].type, da, jobs[j].index_type, &o)
                                  : jobs[j].kind == RDX_REF_PAIRS ? rdx_sort_pairs(ctx, dk, da, ab, n, jobs[j].type, &o)
                                                                  : rdx_sort_keys(ctx, dk, n, jobs[j].type, &o);
            char what[120];
            snprintf(what, sizeof what, "one-digit tiles, shape %d, %s, kind %d, value/index bytes %zu, flags %u", sh,
                     type_name(jobs[j].type), (int)jobs[j].kind, ab, jobs[j].flags);
            CHECK(st == RDX_OK, "%s: %s", what, rdx_ctx_error(ctx));
            if (st == RDX_OK) {
                dev_download(k1, dk, n * kb);
                dev_download(a1, da, n * ab);
                const rdx_ref_call rc = {jobs[j].kind, jobs[j].type, n, jobs[j].vs, jobs[j].index_type, 0, NULL, 0, o};
                CHECK(rdx_ref_check(&rc, k0, a0, a0, k1, a1, a1), "%s: n = %zu: differs from the reference", what, n);
                CHECK_ROUTE(ctx, "onesweep", what);
            }
            free_at(AT_DEVICE, dk);
            free_at(AT_DEVICE, da);
            free(k0);
            free(a0);
            free(k1);
            free(a1);
        }
    }
    reset_tuning(ctx);
}

/* One whole-array job of the tests below: keys, pairs or an argsort, in place (the
 * synchronous call) or apart (the stream-ordered calls: into another array, an argsort). */
typedef struct ref_job {
    rdx_type type;
    rdx_ref_kind kind;
    size_t vs;           /* value bytes (pairs) */
    rdx_type index_type; /* (argsort) */
    rdx_opts o;
    int apart;
} ref_job;

/* What the order check must have found (rdx_cuda_ctx_order_kinds), or ORDER_ANY. */
enum { ORDER_ANY, ORDER_IN, ORDER_REVERSE };

/* Sorts the n host keys k0 (random values of the job's size made here) by job j, the keys
 * `off` bytes past a 16-byte boundary on the device, and checks the result against the
 * reference, the order check's finding (expect) and the route (route, or NULL). */
static void run_job(rdx_ctx *ctx, const ref_job *j, const unsigned char *k0, size_t n, size_t off, int expect,
                    const char *route, uint64_t *s, const char *what)
{
    const size_t kb = rdx_type_size(j->type);
    const size_t ab = j->kind == RDX_REF_ARGSORT ? rdx_type_size(j->index_type) : j->vs;
    unsigned char *a0 = host_or_die(n * ab + 1), *k1 = host_or_die(n * kb), *a1 = host_or_die(n * ab + 1);
    for (size_t i = 0; i < n * ab; i++)
        a0[i] = (unsigned char)rnd(s);
    unsigned char *dk = alloc_at(AT_DEVICE, n * kb + 16), *da = alloc_at(AT_DEVICE, n * ab + 1);
    unsigned char *dk_out = alloc_at(AT_DEVICE, n * kb + 1), *da_out = alloc_at(AT_DEVICE, n * ab + 1);
    dev_upload(dk + off, k0, n * kb);
    dev_upload(da, a0, n * ab);
    const rdx_opts *o = &j->o;
    rdx_status st;
    if (j->kind == RDX_REF_ARGSORT)
        st = j->apart ? async_argsort(ctx, dk + off, n, j->type, da, j->index_type, o)
                      : rdx_argsort(ctx, dk + off, n, j->type, da, j->index_type, o);
    else if (j->kind == RDX_REF_PAIRS)
        st = j->apart ? into_pairs(ctx, dk + off, dk_out, da, da_out, ab, n, j->type, o)
                      : rdx_sort_pairs(ctx, dk + off, da, ab, n, j->type, o);
    else
        st = j->apart ? into_keys(ctx, dk + off, dk_out, n, j->type, o) : rdx_sort_keys(ctx, dk + off, n, j->type, o);
    CHECK(st == RDX_OK, "%s: %s", what, rdx_ctx_error(ctx));
    if (st == RDX_OK && expect != ORDER_ANY) { /* the check saw the order */
        const int kinds = rdx_cuda_ctx_order_kinds(ctx);
        CHECK(kinds >= 0 && (expect == ORDER_REVERSE ? kinds == 1 : (kinds & 1) == 0),
              "%s: the order check found pair kinds %d", what, kinds);
    }
    if (st == RDX_OK) {
        const int moved = j->apart && j->kind != RDX_REF_ARGSORT;
        dev_download(k1, moved ? dk_out : dk + off, n * kb);
        dev_download(a1, moved ? da_out : da, n * ab);
        const rdx_ref_call rc = {j->kind, j->type, n, j->vs, j->index_type, 0, NULL, 0, *o};
        CHECK(rdx_ref_check(&rc, k0, a0, a0, k1, a1, a1), "%s: n = %zu: differs from the reference", what, n);
        if (route)
            CHECK_ROUTE(ctx, route, what);
    }
    free_at(AT_DEVICE, dk);
    free_at(AT_DEVICE, da);
    free_at(AT_DEVICE, dk_out);
    free_at(AT_DEVICE, da_out);
    free(a0);
    free(k1);
    free(a1);
}

/* The onesweep route on keys already in the sort's order, which the histogram's order
 * check finds (no pass then runs), on keys in its reverse order (one pass reverses them,
 * runs of keys that compare equal kept in order: few distinct values make runs across
 * tiles and portions), and on the same keys with one pair swapped (at the start, at the
 * end, at the edges of 16-byte vectors and of portions, at random), which must be sorted
 * as any: large and medium tile shapes and portions; keys, pairs and argsort, in place and
 * out of place (the stream-ordered calls), descending, a bit range, keys off a 16-byte
 * boundary; each checked against the reference. */
static void in_order(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x5555;
    const size_t tile = LARGEST_TILE, portion = 4 * tile;
    const forced_route shapes[3] = {{"onesweep", 0, 0, 0, 0, 0, KEEP},                  /* large shape */
                                    {"onesweep", 0, 0, 0, (size_t)1 << 40, KEEP, KEEP}, /* medium shape */
                                    {"onesweep", 0, 0, 0, 0, 0, portion}};              /* portions */
    static const ref_job jobs[] = {
        {RDX_U32, RDX_REF_KEYS, 0, 0, {0, 0, 0, 0}, 0},
        {RDX_U32, RDX_REF_KEYS, 0, 0, {0, 0, 0, 0}, 1},
        {RDX_F64, RDX_REF_PAIRS, 8, 0, {RDX_DESCENDING, 0, 0, 0}, 0},
        {RDX_U64, RDX_REF_PAIRS, 4, 0, {0, 5, 50, 0}, 1},
        {RDX_I16, RDX_REF_ARGSORT, 0, RDX_U64, {0, 0, 0, 0}, 0},
        {RDX_F32, RDX_REF_ARGSORT, 0, RDX_U32, {RDX_DESCENDING, 0, 0, 0}, 1},
        {RDX_U8, RDX_REF_KEYS, 0, 0, {RDX_DESCENDING, 0, 0, 0}, 0},
        {RDX_U32, RDX_REF_PAIRS, 4, 0, {0, 28, 32, 0}, 0},       /* 16 values: long runs */
        {RDX_I32, RDX_REF_ARGSORT, 0, RDX_U32, {0, 0, 18, 0}, 1}, /* runs of a few keys */
    };
    size_t n = 40 * tile + 123;
    if (n > ((size_t)1 << max_log2) + 7) /* under the sanitizers: still past the small route */
        n = ((size_t)1 << max_log2) + 7 > RDX_SMALL_MAX_N ? ((size_t)1 << max_log2) + 7 : RDX_SMALL_MAX_N + 1;
    const size_t swaps[] = {(size_t)-1, 0, n - 2, 15, 16, portion - 1, 2 * portion - 1, 0 /* random */};
    const size_t nswaps = sizeof swaps / sizeof swaps[0];
    /* under compute-sanitizer (RDX_TEST_SANITIZER=1) no swap and the random one only */
    const char *san = getenv("RDX_TEST_SANITIZER");
    const int thin = san && atoi(san) > 0;
    into_begin();
    int cases = 0;
    for (int sh = 0; sh < 3; sh++) {
        force(ctx, &shapes[sh]);
        rdx_cuda_ctx_tuning(ctx)->count_min_n = rdx_cuda_ctx_tuning(ctx)->count16_min_n = (size_t)-1; /* u8 */
        rdx_cuda_ctx_tuning(ctx)->order_min_n = 0; /* the check at every size */
        for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++)
            for (int reversed = 0; reversed < 2; reversed++)
                for (size_t w = 0; w < nswaps; w++) {
                    if (thin && w != 0 && w + 1 != nswaps)
                        continue;
                    cases++;
                    const size_t kb = rdx_type_size(jobs[j].type);
                    const size_t swap_at = w + 1 == nswaps ? rnd(&s) % (n - 1) : swaps[w];
                    const size_t off = cases % 2 ? kb : 0; /* keys off a 16-byte boundary: the histogram's head */
                    rdx_opts order = jobs[j].o;            /* the order the keys are put in */
                    if (reversed)
                        order.flags ^= RDX_DESCENDING;
                    unsigned char *k0 = host_or_die(n * kb);
                    for (size_t i = 0; i < n * kb; i++)
                        k0[i] = (unsigned char)rnd(&s);
                    CHECK(rdx_ref_put_in_order(k0, n, jobs[j].type, &order, swap_at) == 0,
                          "in order: the reference ran out of memory");
                    char what[200];
                    snprintf(what, sizeof what, "%s, shape %d, %s, kind %d, value/index bytes %zu, flags %u, bits "
                             "[%d, %d), %s, pair swapped at %lld, key offset %zu", reversed ? "reverse order" : "in order",
                             sh, type_name(jobs[j].type), (int)jobs[j].kind,
                             jobs[j].kind == RDX_REF_ARGSORT ? rdx_type_size(jobs[j].index_type) : jobs[j].vs,
                             jobs[j].o.flags, jobs[j].o.begin_bit, jobs[j].o.end_bit,
                             jobs[j].apart ? "apart" : "in place", swap_at == (size_t)-1 ? -1LL : (long long)swap_at,
                             off);
                    run_job(ctx, &jobs[j], k0, n, off,
                            swap_at != (size_t)-1 ? ORDER_ANY : reversed ? ORDER_REVERSE : ORDER_IN, "onesweep", &s, what);
                    free(k0);
                }
    }
    into_end();
    reset_tuning(ctx);
    printf("in order: %d cases\n", cases);
}

/* Keys of `distinct` values whose every byte takes `distinct` values (a pass's digit then
 * takes that many: the scan marks the pass RDX_PASS_FEW up to RDX_RANK_FEW_DIGITS, and keys
 * alone rank with MATCH.ANY there), drawn at random. */
static void fill_few_digits(unsigned char *keys, size_t n, size_t kb, size_t distinct, uint64_t *s)
{
    unsigned char pool[32][8];
    for (size_t b = 0; b < kb; b++) { /* byte b of the values: distinct bytes, shuffled */
        unsigned char perm[256];
        for (int i = 0; i < 256; i++)
            perm[i] = (unsigned char)i;
        for (int i = 255; i > 0; i--) {
            const int j = (int)(rnd(s) % (uint64_t)(i + 1));
            const unsigned char x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        for (size_t v = 0; v < distinct; v++)
            pool[v][b] = perm[v];
    }
    for (size_t i = 0; i < n; i++)
        memcpy(keys + i * kb, pool[rnd(s) % distinct], kb);
}

/* The onesweep route on keys of few values (fill_few_digits): 2, 9 and 16 (every pass
 * RDX_PASS_FEW) and 17 (none); large, mid and medium tile shapes; pairs of 4-byte keys with
 * 4-byte values, of 8-byte keys with 4- and 8-byte values, argsorts, keys alone; in place
 * and apart; descending; each checked against the reference (stability: each key repeats). */
static void few_digits(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x4444;
    const size_t tile = LARGEST_TILE;
    const forced_route shapes[3] = {{"onesweep", 0, 0, 0, 0, 0, KEEP},                   /* large shape */
                                    {"onesweep", 0, 0, 0, 0, (size_t)1 << 40, KEEP},     /* mid shape */
                                    {"onesweep", 0, 0, 0, (size_t)1 << 40, KEEP, KEEP}}; /* medium shape */
    static const ref_job jobs[] = {
        {RDX_U32, RDX_REF_PAIRS, 4, 0, {0, 0, 0, 0}, 0},
        {RDX_F32, RDX_REF_PAIRS, 4, 0, {RDX_DESCENDING, 0, 0, 0}, 1},
        {RDX_U64, RDX_REF_PAIRS, 4, 0, {0, 0, 0, 0}, 1},
        {RDX_I64, RDX_REF_PAIRS, 8, 0, {RDX_DESCENDING, 0, 0, 0}, 0},
        {RDX_U32, RDX_REF_ARGSORT, 0, RDX_U32, {0, 0, 0, 0}, 1},
        {RDX_F64, RDX_REF_ARGSORT, 0, RDX_U64, {0, 0, 0, 0}, 0},
        {RDX_U32, RDX_REF_KEYS, 0, 0, {0, 0, 0, 0}, 0},
    };
    static const size_t distinct[] = {2, 9, 16, 17};
    size_t n = 40 * tile + 123;
    if (n > ((size_t)1 << max_log2) + 7) /* under the sanitizers: still past the small route */
        n = ((size_t)1 << max_log2) + 7 > RDX_SMALL_MAX_N ? ((size_t)1 << max_log2) + 7 : RDX_SMALL_MAX_N + 1;
    int cases = 0;
    for (int sh = 0; sh < 3; sh++) {
        force(ctx, &shapes[sh]);
        for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++)
            for (size_t v = 0; v < sizeof distinct / sizeof distinct[0]; v++, cases++) {
                const size_t kb = rdx_type_size(jobs[j].type);
                unsigned char *k0 = host_or_die(n * kb);
                fill_few_digits(k0, n, kb, distinct[v], &s);
                char what[120];
                snprintf(what, sizeof what, "few digits, shape %d, %s, kind %d, %zu values%s%s", sh,
                         type_name(jobs[j].type), (int)jobs[j].kind, distinct[v], jobs[j].apart ? ", apart" : "",
                         jobs[j].o.flags & RDX_DESCENDING ? ", descending" : "");
                run_job(ctx, &jobs[j], k0, n, 0, ORDER_ANY, "onesweep", &s, what);
                free(k0);
            }
    }
    printf("few digits: %d sorts of %zu keys\n", cases, n);
    reset_tuning(ctx);
}

/* A float key of kb bytes (4, 8): 1 in 4 a special value (NaN of either sign with a random
 * payload, -0.0, +0.0, -inf, +inf), the others normal of either sign over a few exponents,
 * so that the specials tie with and sit among many keys. Without specials (NumPy's order:
 * the NaNs all the canonical one, np.nan's quiet NaN, and the zeros +0.0) the same mix. */
static void put_float_key(unsigned char *k, size_t kb, int specials, uint64_t *s)
{
    const uint64_t r = rnd(s), sign = kb == 4 ? 0x80000000ull : 0x8000000000000000ull;
    const uint64_t inf = kb == 4 ? 0x7F800000ull : 0x7FF0000000000000ull, mant = kb == 4 ? 0x7FFFFFull : 0xFFFFFFFFFFFFFull;
    uint64_t x;
    switch (r % 24) {
    case 0: x = inf | ((r >> 8) & mant ? (r >> 8) & mant : 1); break; /* +NaN */
    case 1: x = sign | inf | ((r >> 8) & mant ? (r >> 8) & mant : 1); break; /* -NaN */
    case 2: x = sign; break;                                          /* -0.0 */
    case 3: x = 0; break;                                             /* +0.0 */
    case 4: x = inf; break;
    case 5: x = sign | inf; break;
    default: {
        const double v = (double)((r >> 16) % 1000) / 8.0 - 62.5;     /* few values: many ties */
        if (kb == 4) {
            const float f = (float)v;
            memcpy(&x, &f, 4);
            x &= 0xFFFFFFFFull;
        } else {
            memcpy(&x, &v, 8);
        }
    }
    }
    if (!specials && r % 24 <= 2) /* the NaNs canonical, -0.0 as +0.0 */
        x = r % 24 == 2 ? 0 : inf | (mant + 1) >> 1;
    memcpy(k, &x, kb);
}

/* NumPy's order on the LSD passes (rdx_cuda_numpy_lsd) and on the grid route: f32 and f64
 * keys with NaNs of both signs and payloads, both zeros and infinities, from a lowered
 * limit: large and medium tile shapes, portions, and the grid's one launch; keys, pairs and
 * argsort, in place and apart; keys in no order, in NumPy's order already (the LSD passes'
 * order check, by the canonical codes, finds it; the grid has none), and in its reverse
 * (not reversed: the canonical codes tie keys that differ), and keys in no order with no
 * special key (every NaN canonical, no -0.0); each against the reference. The large tile
 * shape and the portions launch each pass as twins (numpy_plain_min_n 0: the plain kernel
 * runs where no key is special), the medium shape the kernel of canonical digits alone.
 * Descending and f16 keys, and fewer keys than the limit, go by composition. */
static void numpy_lsd(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x7777;
    const size_t tile = LARGEST_TILE, portion = 4 * tile;
    const forced_route shapes[4] = {{"onesweep", 0, 0, 0, 0, 0, KEEP},
                                    {"onesweep", 0, 0, 0, (size_t)1 << 40, KEEP, KEEP},
                                    {"onesweep", 0, 0, 0, 0, 0, portion},
                                    {"grid", 0, 0, KEEP, KEEP, KEEP, KEEP}};
    const rdx_opts np = {RDX_NUMPY_ORDER, 0, 0, 0};
    const ref_job jobs[] = {
        {RDX_F32, RDX_REF_KEYS, 0, 0, np, 0},      {RDX_F32, RDX_REF_KEYS, 0, 0, np, 1},
        {RDX_F64, RDX_REF_KEYS, 0, 0, np, 0},      {RDX_F64, RDX_REF_PAIRS, 4, 0, np, 1},
        {RDX_F32, RDX_REF_PAIRS, 8, 0, np, 0},     {RDX_F64, RDX_REF_ARGSORT, 0, RDX_U32, np, 1},
        {RDX_F32, RDX_REF_ARGSORT, 0, RDX_U64, np, 0},
    };
    size_t n = 12 * tile + 77;
    if (n > ((size_t)1 << max_log2) + 7)
        n = ((size_t)1 << max_log2) + 7 > RDX_SMALL_MAX_N ? ((size_t)1 << max_log2) + 7 : RDX_SMALL_MAX_N + 1;
    into_begin();
    int cases = 0;
    for (int sh = 0; sh < 4; sh++) {
        force(ctx, &shapes[sh]);
        const char *route = sh == 3 ? "grid (numpy order)" : "onesweep (numpy order)";
        rdx_cuda_ctx_tuning(ctx)->numpy_lsd_min_n = RDX_SMALL_MAX_N + 1;
        rdx_cuda_ctx_tuning(ctx)->numpy_plain_min_n = sh == 1 ? RDX_NUMPY_PLAIN_MIN_N : 0;
        rdx_cuda_ctx_tuning(ctx)->order_min_n = 0;
        for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++)
            for (int order = 0; order < 4; order++, cases++) { /* none, NumPy's, its reverse; none, no special */
                const size_t kb = rdx_type_size(jobs[j].type);
                unsigned char *k0 = host_or_die(n * kb);
                for (size_t i = 0; i < n; i++)
                    put_float_key(k0 + i * kb, kb, order != 3, &s);
                rdx_opts o = np;
                o.flags |= order == 2 ? RDX_DESCENDING : 0u;
                if (order == 1 || order == 2)
                    CHECK(rdx_ref_put_in_order(k0, n, jobs[j].type, &o, (size_t)-1) == 0,
                          "numpy order: the reference ran out of memory");
                char what[160];
                snprintf(what, sizeof what, "numpy order on %s, shape %d, %s, kind %d, %s, keys %s", route, sh,
                         type_name(jobs[j].type), (int)jobs[j].kind, jobs[j].apart ? "apart" : "in place",
                         order == 0 ? "in no order" : order == 1 ? "in order" : order == 2 ? "in reverse order"
                                                                                   : "in no order, none special");
                /* (the synchronous call sorts keys without specials by totalOrder) */
                run_job(ctx, &jobs[j], k0, n, cases % 2 ? kb : 0, order == 1 && sh != 3 ? ORDER_IN : ORDER_ANY,
                        order == 3 ? NULL : route, &s, what);
                free(k0);
            }
        /* by composition: descending, and f16 */
        const ref_job desc = {RDX_F32, RDX_REF_PAIRS, 4, 0, {RDX_NUMPY_ORDER | RDX_DESCENDING, 0, 0, 0}, sh == 1};
        const ref_job half = {RDX_F16, RDX_REF_KEYS, 0, 0, np, sh == 2};
        const ref_job *others[2] = {&desc, &half};
        for (int k = 0; k < 2; k++, cases++) {
            const size_t kb = rdx_type_size(others[k]->type);
            unsigned char *k0 = host_or_die(n * kb);
            for (size_t i = 0; i < n; i++) {
                if (kb == 2) { /* f16: specials among random patterns */
                    const uint16_t v = (uint16_t)(rnd(&s) % 5 == 0 ? (rnd(&s) & 1 ? 0x8000u : 0x7C01u) : rnd(&s));
                    memcpy(k0 + i * 2, &v, 2);
                } else {
                    put_float_key(k0 + i * kb, kb, 1, &s);
                }
            }
            char what[96];
            snprintf(what, sizeof what, "numpy order by composition, shape %d, %s", sh, type_name(others[k]->type));
            run_job(ctx, others[k], k0, n, 0, ORDER_ANY, NULL, &s, what);
            if (!others[k]->apart) /* (the stream-ordered composition reports no route) */
                CHECK(strstr(rdx_ctx_route(ctx), "(numpy order)") == NULL, "%s: took %s", what, rdx_ctx_route(ctx));
            free(k0);
        }
    }
    into_end();
    reset_tuning(ctx);
    printf("numpy order on the LSD passes and the grid: %d cases\n", cases);
}

/* Pairs of 4-byte keys and values moved as one word a pair on the LSD passes
 * (rdx_pass_args.packed), and 4-byte keys with their 4-byte indices (argsorts into 32- and
 * 64-bit indices, values of 12 bytes gathered by index): large and medium tile shapes and
 * portions; u32, i32 and f32 keys, ascending, descending and a bit range; in place and
 * apart; an odd n (A's spare word) and
 * an even one; keys at random, in runs (tiles of one digit) and in the reverse order
 * (reversed as pairs); the caller's arrays 8-byte aligned (packed) and not (an in-place
 * sort off by 4 bytes: not packed, as the hook must say); each against the reference, and
 * the same with packing off (pack_min_n past n). */
static void packed_pairs(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x9999;
    const size_t tile = LARGEST_TILE;
    const forced_route shapes[3] = {{"onesweep", 0, 0, 0, 0, 0, KEEP},
                                    {"onesweep", 0, 0, 0, (size_t)1 << 40, KEEP, KEEP},
                                    {"onesweep", 0, 0, 0, 0, 0, 4 * tile}};
    static const ref_job jobs[] = {
        {RDX_U32, RDX_REF_PAIRS, 4, 0, {0, 0, 0, 0}, 0},
        {RDX_I32, RDX_REF_PAIRS, 4, 0, {RDX_DESCENDING, 0, 0, 0}, 1},
        {RDX_F32, RDX_REF_PAIRS, 4, 0, {0, 0, 0, 0}, 1},
        {RDX_F32, RDX_REF_PAIRS, 4, 0, {RDX_DESCENDING, 0, 0, 0}, 0},
        {RDX_U32, RDX_REF_PAIRS, 4, 0, {0, 3, 27, 0}, 0},
        {RDX_U32, RDX_REF_ARGSORT, 0, RDX_U32, {0, 0, 0, 0}, 0},
        {RDX_F32, RDX_REF_ARGSORT, 0, RDX_U64, {RDX_DESCENDING, 0, 0, 0}, 1}, /* indices widened */
        {RDX_I32, RDX_REF_PAIRS, 12, 0, {0, 0, 0, 0}, 0},                      /* gathered by index */
    };
    size_t n = 12 * tile + 77;
    if (n > ((size_t)1 << max_log2) + 7)
        n = ((size_t)1 << max_log2) + 7 > RDX_SMALL_MAX_N ? ((size_t)1 << max_log2) + 7 : RDX_SMALL_MAX_N + 1;
    into_begin();
    int cases = 0, dram_gbps = 0;
    for (int sh = 0; sh < 3; sh++)
        for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++)
            for (int fill = 0; fill < 3; fill++, cases++) { /* random, runs, reverse order */
                const size_t m = n + (size_t)(cases % 2);    /* odd and even */
                const size_t off = cases % 4 < 2 ? 0 : 4;    /* keys 8-byte aligned or not */
                const ref_job *job = &jobs[j];
                unsigned char *k0 = host_or_die(m * 4);
                if (fill == 1) {
                    fill_runs(k0, m, 4, &s);
                } else {
                    for (size_t i = 0; i < m * 4; i++)
                        k0[i] = (unsigned char)rnd(&s);
                }
                rdx_opts order = job->o;
                order.flags ^= RDX_DESCENDING;
                if (fill == 2)
                    CHECK(rdx_ref_put_in_order(k0, m, job->type, &order, (size_t)-1) == 0,
                          "packed pairs: the reference ran out of memory");
                for (int pack = 1; pack >= 0; pack--) {
                    force(ctx, &shapes[sh]);
                    rdx_cuda_ctx_tuning(ctx)->order_min_n = 0;
                    rdx_cuda_ctx_tuning(ctx)->pack_min_n = rdx_cuda_ctx_tuning(ctx)->pack_fast_min_n =
                        pack ? 0 : (size_t)-1; /* (on every device) */
                    char what[200];
                    snprintf(what, sizeof what, "packed pairs %s, shape %d, %s, flags %u, bits [%d, %d), %s, n = %zu, "
                             "key offset %zu, keys %s", pack ? "on" : "off", sh, type_name(job->type), job->o.flags,
                             job->o.begin_bit, job->o.end_bit, job->apart ? "apart" : "in place", m, off,
                             fill == 0 ? "at random" : fill == 1 ? "in runs" : "in reverse order");
                    run_job(ctx, job, k0, m, off, ORDER_ANY, "onesweep", &s, what);
                    dram_gbps = rdx_cuda_ctx_tuning(ctx)->dram_gbps;
                    /* (an argsort's A: its copy of the keys and the index array) */
                    const int want_packed = pack && (job->apart || job->kind == RDX_REF_ARGSORT || off % 8 == 0);
                    CHECK(rdx_cuda_ctx_packed(ctx) == want_packed, "%s: packed %d, expected %d", what,
                          rdx_cuda_ctx_packed(ctx), want_packed);
                }
                free(k0);
            }
    into_end();
    reset_tuning(ctx);
    printf("packed pairs: %d cases (the device's DRAM peak: %d GB/s)\n", cases, dram_gbps);
}

/* Sorts the same random data (n keys of `type`; values of vs bytes, or u32/u64 indices for
 * argsort) once on the cluster route and once with it off (the grid route serves those
 * sizes), on device arrays, and compares the bytes. */
static void cluster_grid_one(rdx_ctx *ctx, rdx_type type, size_t n, size_t vs, rdx_type index_type, int argsort,
                             const rdx_opts *opts, int few, uint64_t *s)
{
    const size_t kb = rdx_type_size(type), ab = argsort ? rdx_type_size(index_type) : vs;
    unsigned char *orig = malloc(n * kb), *ovals = malloc(n * ab + 1);
    unsigned char *out[2][2];
    for (int r = 0; r < 2; r++) {
        out[r][0] = malloc(n * kb);
        out[r][1] = malloc(n * ab + 1);
        if (!out[r][0] || !out[r][1]) {
            printf("FAIL: the test could not allocate host memory\n");
            exit(1);
        }
    }
    if (!orig || !ovals) {
        printf("FAIL: the test could not allocate host memory\n");
        exit(1);
    }
    /* few: a handful of distinct keys (stability counts, most passes are skipped); else
     * random bytes with few distinct top bytes. */
    const uint64_t pick[3] = {rnd(s), rnd(s), rnd(s)};
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = few ? pick[rnd(s) % 3] : rnd(s);
        for (size_t b = 0; b < kb; b++)
            orig[i * kb + b] = (unsigned char)(b == kb - 1 && kb > 1 && !few ? x % 3 : x >> (8 * b));
    }
    for (size_t i = 0; i < n * ab; i++)
        ovals[i] = (unsigned char)rnd(s);
    unsigned char *dk = alloc_at(AT_DEVICE, n * kb), *da = ab ? alloc_at(AT_DEVICE, n * ab) : NULL;
    rdx_status st[2];
    for (int r = 0; r < 2; r++) {
        rdx_cuda_ctx_tuning(ctx)->cluster_max_n = r == 0 ? RDX_CLUSTER_MAX_N : 0;
        rdx_cuda_ctx_tuning(ctx)->cluster_pairs_max_n = r == 0 ? RDX_CLUSTER_MAX_N : 0; /* the kernel's values path too */
        dev_upload(dk, orig, n * kb);
        if (ab)
            dev_upload(da, ovals, n * ab);
        st[r] = argsort ? rdx_argsort(ctx, dk, n, type, da, index_type, opts)
                : vs    ? rdx_sort_pairs(ctx, dk, da, vs, n, type, opts)
                        : rdx_sort_keys(ctx, dk, n, type, opts);
        dev_download(out[r][0], dk, n * kb);
        if (ab)
            dev_download(out[r][1], da, n * ab);
    }
    rdx_cuda_ctx_tuning(ctx)->cluster_max_n = RDX_CLUSTER_MAX_N;
    rdx_cuda_ctx_tuning(ctx)->cluster_pairs_max_n = RDX_CLUSTER_PAIRS_MAX_N;
    char what[160];
    snprintf(what, sizeof what, "cluster vs grid: type %d n = %zu %s%zu bits [%d,%d) radix %d%s%s", (int)type, n,
             argsort ? "argsort, index bytes " : "value bytes ", ab, opts->begin_bit, opts->end_bit,
             opts->radix_bits, opts->flags & RDX_DESCENDING ? " descending" : "", few ? " few keys" : "");
    CHECK(st[0] == RDX_OK && st[1] == RDX_OK, "%s: %s / %s (%s)", what, rdx_status_string(st[0]),
          rdx_status_string(st[1]), rdx_ctx_error(ctx));
    if (st[0] == RDX_OK && st[1] == RDX_OK) {
        size_t at = n;
        for (size_t i = 0; i < n && at == n; i++)
            if (memcmp(out[0][0] + i * kb, out[1][0] + i * kb, kb) != 0 ||
                (ab && memcmp(out[0][1] + i * ab, out[1][1] + i * ab, ab) != 0))
                at = i;
        CHECK(at == n, "%s: the two paths differ at %zu", what, at);
    }
    free_at(AT_DEVICE, dk);
    if (da)
        free_at(AT_DEVICE, da);
    for (int r = 0; r < 2; r++) {
        free(out[r][0]);
        free(out[r][1]);
    }
    free(orig);
    free(ovals);
}

/* Sizes in the cluster range (RDX_SMALL_MAX_N, RDX_CLUSTER_MAX_N] on every key type, with
 * keys, pairs (4, 8 and 12-byte values) and argsort; both orders; bit ranges and digit
 * widths turn with the case number. Seed: this run's, printed on any failure. */
static void cluster_vs_grid(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x7777;
    if (rdx_cuda_cluster_max_blocks(4, 0) == 0) {
        printf("cluster vs grid: skipped (the cluster path is off on this device)\n");
        return;
    }
    static const rdx_type types[] = {RDX_U8,  RDX_U16, RDX_U32,  RDX_U64, RDX_I8,  RDX_I16,
                                     RDX_I32, RDX_I64, RDX_F16, RDX_BF16, RDX_F32, RDX_F64};
    const size_t sizes[] = {RDX_SMALL_MAX_N + 1, 5000, 10007, 16384, 32768, 65535, 65536};
    int turn = 0, cases = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i];
        if (n > RDX_CLUSTER_MAX_N || n > ((size_t)1 << max_log2) + 3)
            continue;
        for (int t = 0; t < 12; t++)
            for (int k = 0; k < 6; k++, turn++) {
                const int w = (int)(8 * rdx_type_size(types[t]));
                rdx_opts o = {turn % 2 ? RDX_DESCENDING : 0u, 0, 0, 0};
                if (turn % 5 == 3) {
                    o.begin_bit = 1 + turn % 3;
                    o.end_bit = w - turn % 4;
                }
                if (turn % 7 == 2)
                    o.radix_bits = 1 + turn % 8;
                const size_t vs = k == 1 ? 4 : k == 2 ? 8 : k == 3 ? 12 : 0;
                cluster_grid_one(ctx, types[t], n, vs, k == 5 ? RDX_U64 : RDX_U32, k >= 4, &o, turn % 9 == 4, &s);
                cases++;
            }
    }
    printf("cluster vs grid: %d cases\n", cases);
}

/* The counting route (1- and 2-byte keys alone, every bit) from a lowered limit: every such
 * type, both orders, device and host keys, keys starting off a 16-byte boundary (the
 * route's head and tail), sizes around its limit; sort_and_compare's keys hold few distinct
 * top bytes, so most 2-byte values are absent (runs across empty values). Then the jobs it
 * must decline: a bit range that leaves bits out, NumPy's order on floats, values. */
static void counting_route(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x6666;
    static const rdx_type types[] = {RDX_U8, RDX_I8, RDX_U16, RDX_I16, RDX_F16, RDX_BF16};
    const size_t sizes[] = {RDX_SMALL_MAX_N + 1, 5003, 70001, ((size_t)1 << 20) + 9};
    int cases = 0;
    reset_tuning(ctx);
    rdx_cuda_ctx_tuning(ctx)->count_min_n = rdx_cuda_ctx_tuning(ctx)->count16_min_n = RDX_SMALL_MAX_N + 1;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i] > ((size_t)1 << max_log2) + 100)
            continue;
        for (int t = 0; t < 6; t++)
            for (int k = 0; k < 4; k++, cases++) {
                const size_t kb = rdx_type_size(types[t]);
                char what[96];
                snprintf(what, sizeof what, "counting route, %s, case %d", type_name(types[t]), k);
                sort_and_compare(ctx, types[t], sizes[i], 0, 0, k % 2 ? RDX_DESCENDING : 0u,
                                 k < 3 ? AT_DEVICE : AT_HOST, AT_DEVICE, k == 2 ? kb * (1 + i % 7) : 0, &s, what);
                CHECK_ROUTE(ctx, "count", what);
            }
    }
    /* declined: the route the job takes instead is any other */
    const size_t n = 5003;
    uint16_t *keys = dev_alloc(n * 2), *host = host_or_die(n * 2);
    for (size_t i = 0; i < n; i++)
        host[i] = (uint16_t)rnd(&s);
    dev_upload(keys, host, n * 2);
    const rdx_opts low_bits = {0, 0, 8, 0}, numpy = {RDX_NUMPY_ORDER, 0, 0, 0};
    CHECK(rdx_sort_keys(ctx, keys, n, RDX_U16, &low_bits) == RDX_OK, "bit range: %s", rdx_ctx_error(ctx));
    CHECK(strcmp(rdx_ctx_route(ctx), "count") != 0, "a bit range [0, 8) of u16 keys took the counting route");
    CHECK(rdx_sort_keys(ctx, keys, n, RDX_F16, &numpy) == RDX_OK, "numpy order: %s", rdx_ctx_error(ctx));
    CHECK(strcmp(rdx_ctx_route(ctx), "count") != 0, "NumPy's order on f16 keys took the counting route");
    sort_and_compare(ctx, RDX_U16, n, 4, 0, 0, AT_DEVICE, AT_DEVICE, 0, &s, "counting route declines pairs");
    CHECK(strcmp(rdx_ctx_route(ctx), "count") != 0, "u16/u32 pairs took the counting route");
    dev_release(keys);
    free(host);
    reset_tuning(ctx);
    printf("counting route: %d cases\n", cases);
}

/* A kernel family the device could not give its shared memory (RDX_KERNELS_* of
 * tuning_ctx.h; an A100's 163 KB or an Ada card's 99 KB, where the MSD shapes take up to
 * 208 KB) turns its route off: each family's job, which takes its route with the family
 * on (the MSD route's sample may decline it then, and the route says so), is sorted right
 * by another route with it off. */
static void families_off(rdx_ctx *ctx, int max_log2)
{
    uint64_t s = seed ^ 0x5151;
    const struct {
        unsigned family;
        const char *route;
        rdx_type type;
        size_t n, vs;
    } cases[] = {
        {RDX_KERNELS_SMALL, "small", RDX_U32, 3000, 4},
        {RDX_KERNELS_GRID, "grid", RDX_F64, 12000, 8},
        {RDX_KERNELS_COUNT, "count", RDX_U16, 70001, 0},
        {RDX_KERNELS_MSD, "msd", RDX_U32, (size_t)1 << 18, 0},
        {RDX_KERNELS_MSD, "msd", RDX_U64, (size_t)1 << 18, 4},
    };
    int ran = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (cases[c].n > ((size_t)1 << max_log2) + 100)
            continue;
        for (int off = 0; off < 2; off++) {
            reset_tuning(ctx);
            rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(ctx);
            t->cluster_max_n = t->cluster_pairs_max_n = 0;
            t->count_min_n = t->count16_min_n = RDX_SMALL_MAX_N + 1;
            t->msd_min_n = t->msd4_min_n = (size_t)1 << 17;
            char what[96];
            snprintf(what, sizeof what, "family %u %s, %s", cases[c].family, off ? "off" : "on",
                     type_name(cases[c].type));
            if (off) { /* the device facts are read at the first sort after the reset */
                sort_and_compare(ctx, RDX_U8, 100, 0, 0, 0, AT_DEVICE, AT_DEVICE, 0, &s, what);
                t->kernels_off = cases[c].family;
            }
            sort_and_compare(ctx, cases[c].type, cases[c].n, cases[c].vs, 0, 0, AT_DEVICE, AT_DEVICE, 0, &s, what);
            const char *route = rdx_ctx_route(ctx);
            /* planned: the route, or (MSD) the LSD passes after its sample declined */
            const int family_route = strstr(route, cases[c].route) != NULL;
            CHECK(family_route == !off, "%s: route \"%s\"", what, route);
            ran++;
        }
    }
    reset_tuning(ctx);
    printf("kernel families off: %d sorts\n", ran);
}

int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    struct cudaDeviceProp prop;
    int dev = 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    const int cluster_blocks = rdx_cuda_cluster_max_blocks(4, 0);
    if (cluster_blocks > 0)
        printf("cluster route: on, up to %d blocks for u32 keys (%d for u64/u64), n up to %zu\n", cluster_blocks,
               rdx_cuda_cluster_max_blocks(8, 8), (size_t)RDX_CLUSTER_MAX_N);
    else
        printf("cluster route: off on this device\n");
    const char *req = getenv("RDX_TEST_REQUIRE_CLUSTER");
    CHECK(!(req && atoi(req) > 0) || cluster_blocks > 0, "RDX_TEST_REQUIRE_CLUSTER: the cluster route is off");

    const int max_log2 = rdx_test_max_log2(20);
    forced_routes(ctx, max_log2);
    counting_route(ctx, max_log2);
    portions(ctx, max_log2);
    one_digit_tiles(ctx, max_log2);
    in_order(ctx, max_log2);
    few_digits(ctx, max_log2);
    numpy_lsd(ctx, max_log2);
    packed_pairs(ctx, max_log2);
    cluster_vs_grid(ctx, max_log2);
    families_off(ctx, max_log2);
    rdx_ctx_destroy(ctx);
    printf("test_cuda_routes: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
