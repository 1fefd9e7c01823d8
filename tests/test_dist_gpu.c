/* The distributed sort on GPUs, one process with a thread per GPU (skips with 77 without
 * 2 GPUs): rdx_dist_sort_keys / rdx_dist_sort_pairs with communicators made by
 * rdx_dist_unique_id + rdx_dist_comm_init_rank, against one single-GPU stable sort of the
 * concatenation (values = global index, so ties are checked too); the capacity error and
 * disagreeing options on every rank; then rdx_ctx_create_devices with host and device
 * arrays (keys, pairs, argsort).
 *
 * Environment: RDX_TEST_SEED replays a run; RDX_TEST_DIST_GPUS caps the GPUs used. */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_dist.h"
#include "suite.h"
#include "check.h"

#define MAX_GPUS 8

static int ngpu;
static rdx_ctx *ctxs[MAX_GPUS];
static struct ncclComm *comms[MAX_GPUS];
static cudaStream_t streams[MAX_GPUS];
static unsigned char uid[RDX_DIST_UNIQUE_ID_BYTES];

typedef struct task {
    int rank;
    rdx_status status;
    /* inputs */
    const unsigned char *keys;  /* host shard */
    const uint64_t *vals;       /* host shard of global indices, or NULL */
    size_t n, cap, kb;
    rdx_type type;
    rdx_opts opts;
    /* outputs */
    unsigned char *out_keys;    /* host, cap keys */
    uint64_t *out_vals;         /* host, cap values */
    size_t n_out;
    char error[512];
} task;

static void *init_main(void *p)
{
    task *t = p;
    cudaSetDevice(t->rank);
    t->status = rdx_dist_comm_init_rank(&comms[t->rank], ngpu, uid, sizeof uid, t->rank);
    if (t->status == RDX_OK)
        t->status = rdx_ctx_create(&ctxs[t->rank], RDX_BACKEND_CUDA);
    if (t->status == RDX_OK && cudaStreamCreate(&streams[t->rank]) != cudaSuccess)
        t->status = RDX_ERR_DEVICE;
    return NULL;
}

static void *sort_main(void *p)
{
    task *t = p;
    const int r = t->rank;
    cudaSetDevice(r);
    rdx_ctx *ctx = ctxs[r];
    void *dk = NULL, *dv = NULL, *dok = NULL, *dov = NULL, *dt = NULL;
    size_t bytes = 0;
    const int pairs = t->vals != NULL;
    t->status = pairs ? rdx_dist_sort_pairs_temp_size(ctx, ngpu, 8, t->n, t->cap, t->type, &t->opts, &bytes)
                      : rdx_dist_sort_keys_temp_size(ctx, ngpu, t->n, t->cap, t->type, &t->opts, &bytes);
    if (t->status == RDX_OK) {
        cudaMalloc(&dk, t->n * t->kb + 1);
        cudaMalloc(&dv, t->n * 8 + 1);
        cudaMalloc(&dok, t->cap * t->kb + 1);
        cudaMalloc(&dov, t->cap * 8 + 1);
        cudaMalloc(&dt, bytes + 1);
        cudaMemcpy(dk, t->keys, t->n * t->kb, cudaMemcpyHostToDevice);
        if (pairs)
            cudaMemcpy(dv, t->vals, t->n * 8, cudaMemcpyHostToDevice);
        cudaMemset(dok, 0xA5, t->cap * t->kb + 1);
        cudaMemset(dov, 0xA5, t->cap * 8 + 1);
        t->status = pairs ? rdx_dist_sort_pairs(ctx, comms[r], dk, dv, 8, t->n, dok, dov, t->cap, &t->n_out,
                                                t->type, &t->opts, dt, bytes, streams[r])
                          : rdx_dist_sort_keys(ctx, comms[r], dk, t->n, dok, t->cap, &t->n_out, t->type,
                                               &t->opts, dt, bytes, streams[r]);
        cudaStreamSynchronize(streams[r]);
        /* Always bring the whole output back: a failed call must leave it as it was. */
        cudaMemcpy(t->out_keys, dok, t->cap * t->kb, cudaMemcpyDeviceToHost);
        cudaMemcpy(t->out_vals, dov, t->cap * 8, cudaMemcpyDeviceToHost);
    }
    snprintf(t->error, sizeof t->error, "%s", rdx_ctx_error(ctx));
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(dok);
    cudaFree(dov);
    cudaFree(dt);
    return NULL;
}

static void run_threads(void *(*fn)(void *), task *t)
{
    pthread_t tid[MAX_GPUS];
    for (int r = 0; r < ngpu; r++)
        pthread_create(&tid[r], NULL, fn, &t[r]);
    for (int r = 0; r < ngpu; r++)
        pthread_join(tid[r], NULL);
}

/* floor(r n / p) without overflow: the first position of rank r's part. */
static size_t bound(size_t n, int r, int p)
{
    return n / (size_t)p * (size_t)r + n % (size_t)p * (size_t)r / (size_t)p;
}

/* The expected result: keys and global indices sorted by one GPU (rdx_sort_pairs). */
static int single_gpu(const unsigned char *keys, size_t N, size_t kb, rdx_type type, const rdx_opts *opts,
                      unsigned char *sk, uint64_t *si)
{
    cudaSetDevice(0);
    memcpy(sk, keys, N * kb);
    for (size_t i = 0; i < N; i++)
        si[i] = i;
    return rdx_sort_pairs(ctxs[0], sk, si, 8, N, type, opts) == RDX_OK ? 0 : -1;
}

typedef enum { U_UNIFORM, U_EQUAL, U_GIANT, U_SORTED } dkind;

static void fill(unsigned char *k, size_t n, size_t kb, dkind kind, uint64_t *s)
{
    const uint64_t c = rnd(s);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rnd(s);
        if (kind == U_EQUAL)
            x = c;
        else if (kind == U_GIANT && rnd(s) % 10)
            x = (c & ~(uint64_t)0xff) | (x & 3);
        else if (kind == U_SORTED)
            x = i * 7;
        memcpy(k + i * kb, &x, kb);
    }
}

static void one_case(size_t N, rdx_type type, dkind kind, int pairs, rdx_opts opts, int empty_rank, uint64_t *s,
                     const char *what)
{
    const size_t kb = rdx_type_size(type);
    unsigned char *keys = malloc(N * kb + 1), *sk = malloc(N * kb + 1);
    uint64_t *vals = malloc(N * 8 + 8), *si = malloc(N * 8 + 8);
    unsigned char *ok[MAX_GPUS];
    uint64_t *ov[MAX_GPUS];
    task t[MAX_GPUS];
    fill(keys, N, kb, kind, s);
    for (size_t i = 0; i < N; i++)
        vals[i] = i;
    if (single_gpu(keys, N, kb, type, &opts, sk, si) != 0) {
        CHECK(0, "%s: the single-GPU sort failed: %s", what, rdx_ctx_error(ctxs[0]));
        goto done;
    }
    /* Shards of random sizes (one empty when asked: its keys go to a neighbour). */
    size_t nr[MAX_GPUS], left = N;
    for (int r = 0; r < ngpu; r++) {
        nr[r] = r == ngpu - 1 ? left : (size_t)(rnd(s) % (left + 1));
        left -= nr[r];
    }
    if (empty_rank >= 0) {
        const int to = empty_rank == ngpu - 1 ? 0 : empty_rank + 1;
        nr[to] += nr[empty_rank];
        nr[empty_rank] = 0;
    }
    size_t off = 0;
    for (int r = 0; r < ngpu; r++) {
        memset(&t[r], 0, sizeof t[r]);
        t[r].rank = r;
        t[r].keys = keys + off * kb;
        t[r].vals = pairs ? vals + off : NULL;
        t[r].n = nr[r];
        t[r].kb = kb;
        t[r].type = type;
        t[r].opts = opts;
        t[r].cap = bound(N, r + 1, ngpu) - bound(N, r, ngpu) + (size_t)(rnd(s) % 4);
        ok[r] = t[r].out_keys = malloc(t[r].cap * kb + 1);
        ov[r] = t[r].out_vals = malloc(t[r].cap * 8 + 8);
        off += nr[r];
    }
    run_threads(sort_main, t);
    for (int r = 0; r < ngpu; r++) {
        CHECK(t[r].status == RDX_OK, "%s: rank %d: %s", what, r, t[r].error);
        const size_t lo = bound(N, r, ngpu), hi = bound(N, r + 1, ngpu);
        CHECK(t[r].n_out == hi - lo, "%s: rank %d holds %zu, not %zu", what, r, t[r].n_out, hi - lo);
        if (t[r].status != RDX_OK || t[r].n_out != hi - lo)
            continue;
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < hi - lo && bad == SIZE_MAX; i++)
            if (memcmp(ok[r] + i * kb, sk + (lo + i) * kb, kb) != 0 || (pairs && ov[r][i] != si[lo + i]))
                bad = i;
        CHECK(bad == SIZE_MAX, "%s: N = %zu, rank %d differs from the single-GPU sort at %zu", what, N, r, bad);
    }
    for (int r = 0; r < ngpu; r++) {
        free(ok[r]);
        free(ov[r]);
    }
done:
    free(keys);
    free(sk);
    free(vals);
    free(si);
}

static void collective_errors(uint64_t *s)
{
    const size_t N = 100003, kb = 4;
    unsigned char *keys = malloc(N * kb);
    fill(keys, N, kb, U_UNIFORM, s);
    task t[MAX_GPUS];
    for (int trial = 0; trial < 2; trial++) {
        const int victim = (int)(rnd(s) % (unsigned)ngpu);
        size_t off = 0;
        for (int r = 0; r < ngpu; r++) {
            memset(&t[r], 0, sizeof t[r]);
            t[r].rank = r;
            t[r].n = r == ngpu - 1 ? N - off : N / (size_t)ngpu;
            t[r].keys = keys + off * kb;
            t[r].kb = kb;
            t[r].type = RDX_U32;
            t[r].opts.flags = trial == 1 && r == victim ? RDX_DESCENDING : 0;
            const size_t part = bound(N, r + 1, ngpu) - bound(N, r, ngpu);
            t[r].cap = trial == 0 && r == victim ? part - 1 : part;
            t[r].out_keys = malloc(part * kb + 1);
            t[r].out_vals = malloc(part * 8 + 8);
            off += t[r].n;
        }
        run_threads(sort_main, t);
        char want[32];
        snprintf(want, sizeof want, "rank %d", victim);
        for (int r = 0; r < ngpu; r++) {
            CHECK(t[r].status == RDX_ERR_INVALID_ARGUMENT && strstr(t[r].error, want),
                  "trial %d: rank %d: status %d, \"%s\" (want an error naming %s)", trial, r, (int)t[r].status,
                  t[r].error, want);
            size_t changed = 0;
            for (size_t i = 0; i < t[r].cap * kb; i++)
                changed += t[r].out_keys[i] != 0xA5;
            CHECK(changed == 0, "trial %d: rank %d: a failed call changed %zu output bytes", trial, r, changed);
            free(t[r].out_keys);
            free(t[r].out_vals);
        }
    }
    free(keys);
}

static void devices_context(uint64_t *s)
{
    rdx_ctx *ctx = NULL;
    rdx_status st = rdx_ctx_create_devices(&ctx, RDX_BACKEND_CUDA, NULL, ngpu);
    CHECK(st == RDX_OK && rdx_ctx_device_count(ctx) == ngpu, "rdx_ctx_create_devices(CUDA, %d): %d", ngpu, (int)st);
    if (st != RDX_OK)
        return;
    const int twice[2] = {0, 0};
    rdx_ctx *bad = NULL;
    CHECK(rdx_ctx_create_devices(&bad, RDX_BACKEND_CUDA, twice, 2) == RDX_ERR_INVALID_ARGUMENT && !bad,
          "a repeated GPU accepted");
    for (int mode = 0; mode < 6; mode++) {
        const size_t N = (size_t)(rnd(s) % (1u << 22)) + 1;
        const rdx_type type = mode % 3 == 0 ? RDX_U32 : mode % 3 == 1 ? RDX_F64 : RDX_I16;
        const size_t kb = rdx_type_size(type);
        const int on_device = mode >= 3;
        unsigned char *keys = malloc(N * kb), *sk = malloc(N * kb), *got = malloc(N * kb);
        uint64_t *si = malloc(N * 8), *gv = malloc(N * 8);
        fill(keys, N, kb, mode == 2 ? U_GIANT : U_UNIFORM, s);
        const rdx_opts opts = {mode == 1 ? RDX_DESCENDING : 0u, 0, 0, 0};
        single_gpu(keys, N, kb, type, &opts, sk, si);
        void *k = keys, *v = gv;
        for (size_t i = 0; i < N; i++)
            gv[i] = i;
        if (on_device) {
            cudaSetDevice(ngpu - 1);
            cudaMalloc(&k, N * kb);
            cudaMalloc(&v, N * 8);
            cudaMemcpy(k, keys, N * kb, cudaMemcpyHostToDevice);
            cudaMemcpy(v, gv, N * 8, cudaMemcpyHostToDevice);
        }
        const int what = mode % 3; /* 0 keys, 1 pairs, 2 argsort */
        st = what == 0 ? rdx_sort_keys(ctx, k, N, type, &opts)
             : what == 1 ? rdx_sort_pairs(ctx, k, v, 8, N, type, &opts)
                         : rdx_argsort(ctx, k, N, type, v, RDX_U64, &opts);
        CHECK(st == RDX_OK, "devices context, mode %d: %s", mode, rdx_ctx_error(ctx));
        if (on_device) {
            cudaMemcpy(got, k, N * kb, cudaMemcpyDeviceToHost);
            cudaMemcpy(gv, v, N * 8, cudaMemcpyDeviceToHost);
            cudaFree(k);
            cudaFree(v);
        } else {
            memcpy(got, keys, N * kb);
        }
        size_t badi = SIZE_MAX;
        for (size_t i = 0; st == RDX_OK && i < N && badi == SIZE_MAX; i++) {
            if (what == 2 ? gv[i] != si[i]
                          : memcmp(got + i * kb, sk + i * kb, kb) != 0 || (what == 1 && gv[i] != si[i]))
                badi = i;
        }
        CHECK(badi == SIZE_MAX, "devices context, mode %d (%s arrays), N = %zu: wrong at %zu", mode,
              on_device ? "device" : "host", N, badi);
        free(keys);
        free(sk);
        free(got);
        free(si);
        free(gv);
    }
    rdx_ctx_destroy(ctx);
}

int main(void)
{
    seed = rdx_test_seed();
    uint64_t s = seed;
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu < 2) {
        printf("SKIP: the distributed GPU test needs 2 GPUs (%d found)\n", ngpu < 0 ? 0 : ngpu);
        return 77;
    }
    const char *cap = getenv("RDX_TEST_DIST_GPUS");
    if (cap && atoi(cap) >= 2 && atoi(cap) < ngpu)
        ngpu = atoi(cap);
    if (ngpu > MAX_GPUS)
        ngpu = MAX_GPUS;
    if (rdx_dist_unique_id(uid, sizeof uid) != RDX_OK) {
        printf("FAIL: rdx_dist_unique_id\n");
        return 1;
    }
    task t[MAX_GPUS];
    memset(t, 0, sizeof t);
    for (int r = 0; r < ngpu; r++)
        t[r].rank = r;
    run_threads(init_main, t);
    for (int r = 0; r < ngpu; r++)
        if (t[r].status != RDX_OK) {
            printf("FAIL: rank %d could not make its communicator, context or stream (%d)\n", r, (int)t[r].status);
            return 1;
        }
    printf("%d GPUs, seed 0x%016llx\n", ngpu, (unsigned long long)seed);

    static const rdx_type types[] = {RDX_U32, RDX_U64, RDX_F32, RDX_I16, RDX_F16, RDX_I64, RDX_U8, RDX_F64};
    char what[160];
    for (int c = 0; c < 24; c++) {
        const rdx_type type = types[c % 8];
        const dkind kind = (dkind)(c % 4);
        const size_t N = c < 4 ? (size_t)c * 3 : (size_t)(rnd(&s) % (1u << (12 + c % 11))) + 1;
        rdx_opts opts = {c % 5 == 1 ? RDX_DESCENDING : 0u, 0, 0, 0};
        if (c % 7 == 3) {
            opts.begin_bit = 3;
            opts.end_bit = (int)rdx_type_size(type) * 8 - 2;
        }
        snprintf(what, sizeof what, "case %d: type %d, kind %d, %s, flags %u, bits [%d, %d)", c, (int)type, (int)kind,
                 c % 2 ? "pairs" : "keys", opts.flags, opts.begin_bit, opts.end_bit);
        one_case(N, type, kind, c % 2, opts, c % 3 == 0 ? (int)(c / 3) % ngpu : -1, &s, what);
    }
    /* Large enough for several tiles per rank and a real exchange. */
    rdx_opts asc = {0, 0, 0, 0};
    one_case((size_t)1 << 24, RDX_U32, U_UNIFORM, 1, asc, -1, &s, "2^24 u32 pairs");
    one_case(((size_t)1 << 23) + 5, RDX_U64, U_GIANT, 0, asc, -1, &s, "2^23+5 u64 keys, one giant bucket");
    one_case(((size_t)1 << 22) + 1, RDX_F32, U_EQUAL, 1, asc, -1, &s, "2^22+1 f32 pairs, all equal");
    collective_errors(&s);
    devices_context(&s);

    for (int r = 0; r < ngpu; r++) {
        cudaSetDevice(r);
        rdx_dist_comm_destroy(comms[r]);
        rdx_ctx_destroy(ctxs[r]);
        cudaStreamDestroy(streams[r]);
    }
    printf("%s: %d failure(s), seed 0x%016llx\n", failures ? "FAIL" : "ok", failures, (unsigned long long)seed);
    return failures ? 1 : 0;
}
