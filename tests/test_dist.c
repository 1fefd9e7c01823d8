/* The distributed sort with ranks as CPU threads (src/dist/: the splitter search, the
 * exchange bookkeeping, the CPU engine), against one stable reference sort of the
 * concatenation of every shard: rank r must end with exactly positions
 * [floor(r N / P), floor((r+1) N / P)) of it, keys bit for bit, values (each key's global
 * index) proving the order of ties (rank, then position). Then the capacity error and
 * disagreeing options (the same error on every rank, nothing changed), and contexts of
 * several CPU ranks through the public rdx_sort_* (rdx_ctx_create_devices).
 *
 * Environment: RDX_TEST_SEED replays a run. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "rdx_dist.h"
#include "reference.h"
#include "suite.h"
#include "check.h"

#define MAX_RANKS 8

/* Ranks whose engine narrowed its view (compact) during the splitter search, and ranks
 * that kept reading their whole shard: both paths must be taken. */
static int compacted_ranks, full_ranks;

typedef enum dist_kind {
    D_UNIFORM, D_EQUAL, D_SORTED, D_GIANT, D_FEW, D_SKEWED_SHARDS, D_NKINDS
} dist_kind;
static const char *kind_name[] = {"uniform", "all equal", "sorted", "one giant bucket",
                                  "few distinct", "uniform, one rank holds all"};

typedef struct rank_task {
    rdx_dist_threads *group;
    int rank;
    rdx_ctx *ctx;
    rdx_dist_job job;
    rdx_status status;
    rdx_dist_result res;
    char error[512];
} rank_task;

static void *rank_main(void *p)
{
    rank_task *t = p;
    rdx_dist_comm comm;
    rdx_dist_engine eng;
    rdx_dist_cpu_view view = {NULL, NULL, 0};
    rdx_dist_threads_comm(t->group, t->rank, &comm);
    rdx_dist_cpu_engine(t->ctx, &view, &eng);
    t->status = rdx_dist_run(&comm, &eng, &t->job, 0, &t->res);
    snprintf(t->error, sizeof t->error, "%s", rdx_ctx_error(t->ctx));
    return NULL;
}

/* Fills n keys of kb bytes for a distribution. */
static void fill(unsigned char *k, size_t n, size_t kb, dist_kind kind, uint64_t *s)
{
    const uint64_t c = rnd(s);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rnd(s);
        switch (kind) {
        case D_EQUAL: x = c; break;
        case D_SORTED: x = i * 977; break;
        case D_GIANT: /* 90% share every byte but the lowest: one bucket at every level */
            if (rnd(s) % 10)
                x = (c & ~(uint64_t)0xff) | (x & 0x3);
            break;
        case D_FEW: x = c + (x % 5) * 0x0101010101010101ull; break;
        default: break;
        }
        memcpy(k + i * kb, &x, kb); /* little-endian: the low bytes */
    }
}

/* One distributed sort of P ranks with shard sizes n[r] (their sum N), compared with the
 * reference. extra: spare output capacity per rank. */
static void run_case(rdx_ctx **ctxs, int P, const size_t *n, rdx_type type, dist_kind kind,
                     int pairs, rdx_opts opts, uint64_t *s, const char *what)
{
    const size_t kb = rdx_type_size(type), vb = 8;
    size_t N = 0;
    for (int r = 0; r < P; r++)
        N += n[r];
    unsigned char *keys = malloc(N * kb + 1), *send = malloc(N * (kb + vb) + 1);
    uint64_t *vals = malloc(N * vb + 1);
    unsigned char *out = malloc(N * kb + P * 3 * kb + 1);
    uint64_t *outv = malloc((N + P * 3) * vb + 1);
    size_t *perm = malloc((N + 1) * sizeof *perm);
    rdx_dist_threads *group = rdx_dist_threads_create(P);
    rank_task task[MAX_RANKS];
    pthread_t tid[MAX_RANKS];
    if (!keys || !send || !vals || !out || !outv || !perm || !group) {
        CHECK(0, "%s: out of memory in the test", what);
        goto done;
    }
    fill(keys, N, kb, kind, s);
    for (size_t i = 0; i < N; i++)
        vals[i] = i;
    if (rdx_ref_argsort(keys, N, type, &opts, perm) != 0) {
        CHECK(0, "%s: the reference ran out of memory", what);
        goto done;
    }
    size_t off = 0, ooff = 0;
    for (int r = 0; r < P; r++) {
        rank_task *t = &task[r];
        memset(t, 0, sizeof *t);
        t->group = group;
        t->rank = r;
        t->ctx = ctxs[r];
        CHECK(rdx_dist_prepare(ctxs[r], "test", type, &opts, &t->job) == RDX_OK, "%s: prepare", what);
        const size_t part = rdx_dist_bound(N, r + 1, P) - rdx_dist_bound(N, r, P);
        t->job.keys = keys + off * kb;
        t->job.values = pairs ? vals + off : NULL;
        t->job.value_size = pairs ? vb : 0;
        t->job.n = n[r];
        t->job.capacity = part + (size_t)(rnd(s) % 3);
        t->job.out_keys = out + ooff * kb;
        t->job.out_values = pairs ? outv + ooff : NULL;
        t->job.send_keys = send + off * kb;
        t->job.send_values = pairs ? send + N * kb + off * vb : NULL;
        if (n[r] == 0) /* an empty shard may come with NULL arrays */
            t->job.keys = t->job.values = t->job.send_keys = t->job.send_values = NULL;
        if (t->job.capacity == 0)
            t->job.out_keys = t->job.out_values = NULL;
        off += n[r];
        ooff += t->job.capacity;
    }
    for (int r = 0; r < P; r++)
        pthread_create(&tid[r], NULL, rank_main, &task[r]);
    for (int r = 0; r < P; r++)
        pthread_join(tid[r], NULL);
    for (int r = 0; r < P; r++) {
        rank_task *t = &task[r];
        CHECK(t->status == RDX_OK, "%s: rank %d of %d: %s", what, r, P, t->error);
        if (t->status != RDX_OK)
            continue;
        if (t->res.levels > 1 && t->job.n > 0)
            *(t->res.compacted_at >= 0 ? &compacted_ranks : &full_ranks) += 1;
        const size_t lo = rdx_dist_bound(N, r, P), hi = rdx_dist_bound(N, r + 1, P);
        CHECK(t->res.n_out == hi - lo, "%s: rank %d of %d holds %zu keys, not %zu", what, r, P,
              t->res.n_out, hi - lo);
        if (t->res.n_out != hi - lo)
            continue;
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < hi - lo && bad == SIZE_MAX; i++) {
            const size_t g = perm[lo + i];
            if (memcmp((unsigned char *)t->job.out_keys + i * kb, keys + g * kb, kb) != 0 ||
                (pairs && ((uint64_t *)t->job.out_values)[i] != g))
                bad = i;
        }
        CHECK(bad == SIZE_MAX, "%s: P = %d, N = %zu: rank %d differs from the reference at its "
              "position %zu (global %zu)", what, P, N, r, bad, lo + bad);
    }
done:
    rdx_dist_threads_destroy(group);
    free(keys);
    free(send);
    free(vals);
    free(out);
    free(outv);
    free(perm);
}

/* Shard sizes for N keys over P ranks: random, some empty. */
static void shard_sizes(size_t N, int P, dist_kind kind, uint64_t *s, size_t *n)
{
    size_t left = N;
    for (int r = 0; r < P; r++) {
        n[r] = r == P - 1 ? left : (rnd(s) % 4 == 0 ? 0 : (size_t)(rnd(s) % (left + 1)));
        if (kind == D_SKEWED_SHARDS)
            n[r] = r == P / 2 ? N : 0;
        left -= kind == D_SKEWED_SHARDS ? 0 : n[r];
    }
}

static void algorithm_cases(rdx_ctx **ctxs, uint64_t *s)
{
    static const rdx_type types[] = {RDX_U32, RDX_I64, RDX_F32, RDX_U8, RDX_F16, RDX_F64, RDX_I16};
    char what[200];
    for (int P = 1; P <= MAX_RANKS; P++) {
        for (int kind = 0; kind < D_NKINDS; kind++) {
            for (int v = 0; v < 3; v++) {
                const rdx_type type = types[(P + kind + v) % (sizeof types / sizeof types[0])];
                const size_t N = v == 0 ? (size_t)(rnd(s) % 50) : (size_t)(rnd(s) % 6000) + 1;
                size_t n[MAX_RANKS];
                shard_sizes(N, P, (dist_kind)kind, s, n);
                rdx_opts opts = {v == 2 ? RDX_DESCENDING : 0u, 0, 0, 0};
                const int pairs = (P + v) % 2;
                snprintf(what, sizeof what, "%s, type %d, %s%s", kind_name[kind], (int)type,
                         pairs ? "pairs" : "keys", opts.flags ? ", descending" : "");
                run_case(ctxs, P, n, type, (dist_kind)kind, pairs, opts, s, what);
            }
        }
        /* A bit range (here the middle bits of u64 keys: ties on the rest) and N = P*k +
         * P - 1 keys spread evenly. */
        size_t n[MAX_RANKS];
        const size_t N = (size_t)P * 1000 + (size_t)P - 1;
        for (int r = 0; r < P; r++)
            n[r] = rdx_dist_bound(N, r + 1, P) - rdx_dist_bound(N, r, P);
        rdx_opts range = {0, 20, 31, 0};
        run_case(ctxs, P, n, RDX_U64, D_UNIFORM, 1, range, s, "u64 bits [20, 31), pairs");
        rdx_opts low = {RDX_DESCENDING, 0, 3, 0};
        run_case(ctxs, P, n, RDX_U16, D_UNIFORM, 1, low, s, "u16 bits [0, 3) descending, pairs");
    }
}

/* Every rank gets the same error, and no output changed, when one rank's capacity is one
 * short, or when the ranks' options differ. */
static void collective_errors(rdx_ctx **ctxs, uint64_t *s)
{
    const int P = 4;
    const size_t N = 4003, kb = 4;
    unsigned char *keys = malloc(N * kb), *send = malloc(N * kb), *out = malloc(N * kb + 64);
    rdx_dist_threads *group = rdx_dist_threads_create(P);
    if (!keys || !send || !out || !group) {
        CHECK(0, "out of memory in the test");
        goto done;
    }
    fill(keys, N, kb, D_UNIFORM, s);
    for (int trial = 0; trial < 2; trial++) {
        memset(out, 0xA5, N * kb + 64);
        rank_task task[4];
        pthread_t tid[4];
        const int victim = (int)(rnd(s) % P);
        size_t off = 0, ooff = 0;
        for (int r = 0; r < P; r++) {
            rank_task *t = &task[r];
            memset(t, 0, sizeof *t);
            t->group = group;
            t->rank = r;
            t->ctx = ctxs[r];
            rdx_opts opts = {trial == 1 && r == victim ? RDX_DESCENDING : 0u, 0, 0, 0};
            rdx_dist_prepare(ctxs[r], "test", RDX_U32, &opts, &t->job);
            const size_t part = rdx_dist_bound(N, r + 1, P) - rdx_dist_bound(N, r, P);
            const size_t nr = r == 0 ? 4 : 1333; /* shards of other sizes than the parts */
            t->job.keys = keys + off * kb;
            t->job.n = nr;
            t->job.send_keys = send + off * kb;
            t->job.out_keys = out + ooff * kb;
            t->job.capacity = trial == 0 && r == victim ? part - 1 : part;
            off += nr;
            ooff += part;
        }
        for (int r = 0; r < P; r++)
            pthread_create(&tid[r], NULL, rank_main, &task[r]);
        for (int r = 0; r < P; r++)
            pthread_join(tid[r], NULL);
        char want[64];
        snprintf(want, sizeof want, "rank %d", victim);
        for (int r = 0; r < P; r++) {
            CHECK(task[r].status == RDX_ERR_INVALID_ARGUMENT, "trial %d: rank %d returned %d", trial, r,
                  (int)task[r].status);
            CHECK(strstr(task[r].error, want) != NULL && strcmp(task[r].error, task[0].error) == 0,
                  "trial %d: rank %d's message \"%s\" does not name rank %d as rank 0's does", trial, r,
                  task[r].error, victim);
        }
        size_t changed = 0;
        for (size_t i = 0; i < N * kb + 64; i++)
            changed += out[i] != 0xA5;
        CHECK(changed == 0, "trial %d: a failed call changed %zu output bytes", trial, changed);
    }
done:
    rdx_dist_threads_destroy(group);
    free(keys);
    free(send);
    free(out);
}

/* rdx_ctx_create_devices with CPU ranks, through the public entry points. */
static void public_cases(uint64_t *s)
{
    rdx_ctx *bad = (rdx_ctx *)1;
    CHECK(rdx_ctx_create_devices(&bad, RDX_BACKEND_CPU, NULL, 0) == RDX_ERR_INVALID_ARGUMENT && !bad,
          "count 0 accepted");
    const int dev0 = 0;
    CHECK(rdx_ctx_create_devices(&bad, RDX_BACKEND_CPU, &dev0, 1) == RDX_ERR_INVALID_ARGUMENT,
          "a devices list accepted for the CPU backend");
    CHECK(rdx_ctx_create_devices(&bad, RDX_BACKEND_AUTO, NULL, 2) == RDX_ERR_INVALID_ARGUMENT,
          "RDX_BACKEND_AUTO accepted");
    CHECK(rdx_ctx_create_devices(NULL, RDX_BACKEND_CPU, NULL, 2) == RDX_ERR_INVALID_ARGUMENT,
          "NULL out accepted");
    CHECK(rdx_ctx_device_count(NULL) == 0, "device count of NULL");
    for (int P = 1; P <= 5; P += 2) {
        rdx_ctx *ctx = NULL;
        rdx_status st = rdx_ctx_create_devices(&ctx, RDX_BACKEND_CPU, NULL, P);
        CHECK(st == RDX_OK && rdx_ctx_device_count(ctx) == P, "create_devices(CPU, %d): %d", P, (int)st);
        if (st != RDX_OK)
            continue;
        for (int mode = 0; mode < 3; mode++) {
            const size_t n = (size_t)(rnd(s) % 20000) + (mode == 0 ? 0 : 1);
            const rdx_type type = mode == 0 ? RDX_F32 : mode == 1 ? RDX_I32 : RDX_U64;
            const size_t kb = rdx_type_size(type);
            unsigned char *k = malloc(n * kb + 1), *orig = malloc(n * kb + 1);
            uint64_t *v = malloc(n * 8 + 1);
            size_t *perm = malloc((n + 1) * sizeof *perm);
            if (!k || !orig || !v || !perm) {
                CHECK(0, "out of memory in the test");
            } else {
                fill(orig, n, kb, mode == 2 ? D_FEW : D_UNIFORM, s);
                memcpy(k, orig, n * kb);
                for (size_t i = 0; i < n; i++)
                    v[i] = rnd(s);
                const rdx_opts opts = {mode == 1 ? RDX_DESCENDING : 0u, 0, 0, 0};
                rdx_ref_argsort(orig, n, type, &opts, perm);
                uint64_t *vin = malloc(n * 8 + 1);
                if (vin)
                    memcpy(vin, v, n * 8);
                st = mode == 0   ? rdx_sort_keys(ctx, k, n, type, &opts)
                     : mode == 1 ? rdx_sort_pairs(ctx, k, v, 8, n, type, &opts)
                                 : rdx_argsort(ctx, k, n, type, v, RDX_U64, &opts);
                CHECK(st == RDX_OK, "P = %d, mode %d: %s", P, mode, rdx_ctx_error(ctx));
                size_t badk = SIZE_MAX;
                for (size_t i = 0; st == RDX_OK && vin && i < n && badk == SIZE_MAX; i++) {
                    const size_t g = perm[i];
                    if (mode == 2 ? (v[i] != g || memcmp(k + i * kb, orig + i * kb, kb) != 0)
                                  : (memcmp(k + i * kb, orig + g * kb, kb) != 0 ||
                                     (mode == 1 && v[i] != vin[g])))
                        badk = i;
                }
                CHECK(badk == SIZE_MAX, "P = %d, mode %d, n = %zu: wrong at %zu", P, mode, n, badk);
                free(vin);
            }
            free(k);
            free(orig);
            free(v);
            free(perm);
        }
        /* A bad argument: nothing changes, the message names it. */
        uint32_t few[3] = {3, 2, 1};
        const rdx_opts badopts = {0, 0, 40, 0};
        st = rdx_sort_keys(ctx, few, 3, RDX_U32, &badopts);
        CHECK(st == RDX_ERR_INVALID_ARGUMENT && few[0] == 3 && strstr(rdx_ctx_error(ctx), "end_bit"),
              "bad end_bit with %d ranks: %d \"%s\"", P, (int)st, rdx_ctx_error(ctx));
        rdx_ctx_destroy(ctx);
    }
}

int main(void)
{
    seed = rdx_test_seed();
    uint64_t s = seed;
    rdx_ctx *ctxs[MAX_RANKS];
    for (int r = 0; r < MAX_RANKS; r++)
        if (rdx_ctx_create(&ctxs[r], RDX_BACKEND_CPU) != RDX_OK) {
            printf("FAIL: no CPU context\n");
            return 1;
        }
    algorithm_cases(ctxs, &s);
    CHECK(compacted_ranks > 0 && full_ranks > 0,
          "the splitter search narrowed its view on %d ranks and read whole shards on %d: "
          "both must happen", compacted_ranks, full_ranks);
    collective_errors(ctxs, &s);
    public_cases(&s);
    for (int r = 0; r < MAX_RANKS; r++)
        rdx_ctx_destroy(ctxs[r]);
    printf("splitter search: %d ranks narrowed their view, %d read whole shards\n", compacted_ranks,
           full_ranks);
    printf("%s: %d failure(s), seed 0x%016llx\n", failures ? "FAIL" : "ok", failures,
           (unsigned long long)seed);
    return failures ? 1 : 0;
}
