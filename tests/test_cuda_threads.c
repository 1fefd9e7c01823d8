/* Two threads, two CUDA contexts with different tunings, sorting at once: each thread's
 * sorts must match a host sort and take the route its own context's tuning gives (one
 * context lowers the MSD minimum, the other turns the cluster and grid routes off), so
 * that neither context's tuning leaks into the other. Then a fresh context must have
 * tuning.h's limits.
 *
 * Exits 77 where no GPU is usable. RDX_TEST_SEED replays a run; RDX_TEST_SANITIZER=1
 * (gpu-check.sh, under compute-sanitizer) sorts fewer rounds. */
#include <pthread.h>

#include "cuda_check.h"

/* Sorts per thread; under compute-sanitizer (RDX_TEST_SANITIZER=1) a few. */
#define ROUNDS 12
#define SANITIZER_ROUNDS 2
static int rounds = ROUNDS;

typedef struct worker {
    rdx_ctx *ctx;
    rdx_type type;     /* RDX_U64 or RDX_U32 */
    size_t n;
    const char *route; /* what rdx_ctx_route must say after each sort */
    uint64_t s;        /* its random stream */
    int bad;           /* its failures (CHECK's count is not shared between threads) */
    char first[256];   /* the first failure */
} worker;

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static int cmp_u32(const void *x, const void *y)
{
    const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    const size_t kb = rdx_type_size(w->type);
    unsigned char *keys = malloc(w->n * kb), *want = malloc(w->n * kb);
    if (!keys || !want) {
        snprintf(w->first, sizeof w->first, "no host memory");
        w->bad++;
    }
    for (int r = 0; r < rounds && keys && want; r++) {
        for (size_t i = 0; i < w->n; i++) {
            const uint64_t x = rnd(&w->s);
            memcpy(keys + i * kb, &x, kb);
        }
        memcpy(want, keys, w->n * kb);
        qsort(want, w->n, kb, kb == 8 ? cmp_u64 : cmp_u32);
        const rdx_status st = rdx_sort_keys(w->ctx, keys, w->n, w->type, NULL);
        const char *route = rdx_ctx_route(w->ctx);
        const char *problem = st != RDX_OK                      ? rdx_ctx_error(w->ctx)
                              : memcmp(keys, want, w->n * kb) != 0 ? "keys differ from a host sort"
                              : strcmp(route, w->route) != 0       ? "another route"
                                                                   : NULL;
        if (problem && w->bad++ == 0)
            snprintf(w->first, sizeof w->first, "round %d: %s (route \"%s\", expected \"%s\")", r, problem, route,
                     w->route);
    }
    free(keys);
    free(want);
    return NULL;
}

int main(void)
{
    seed = rdx_test_seed();
    const char *san = getenv("RDX_TEST_SANITIZER");
    if (san && *san && strcmp(san, "0") != 0)
        rounds = SANITIZER_ROUNDS;
    rdx_ctx *a = rdx_test_cuda_context(), *b = rdx_test_cuda_context();
    /* a: the MSD route from 2^17 keys on (random 8-byte keys: the device runs it); b: the
     * cluster and grid routes off, so 20000 keys take the onesweep route. */
    rdx_cuda_ctx_tuning(a)->msd_min_n = (size_t)1 << 17;
    rdx_cuda_ctx_tuning(b)->cluster_max_n = 0;
    rdx_cuda_ctx_tuning(b)->grid_max_n = 0;
    worker w[2] = {{a, RDX_U64, (size_t)1 << 17, "msd", seed ^ 0xA, 0, ""},
                   {b, RDX_U32, 20000, "onesweep", seed ^ 0xB, 0, ""}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0, "cannot start thread %d", i);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        CHECK(w[i].bad == 0, "thread %d (%s): %d of %d sorts failed; first: %s", i, w[i].route, w[i].bad, rounds,
              w[i].first);
    }
    /* Each context kept its own tuning; a new one has tuning.h's. */
    CHECK(rdx_cuda_ctx_tuning(a)->msd_min_n == (size_t)1 << 17 && rdx_cuda_ctx_tuning(a)->grid_max_n == RDX_GRID_MAX_N,
          "context a's tuning changed");
    CHECK(rdx_cuda_ctx_tuning(b)->msd_min_n == RDX_MSD_MIN_N && rdx_cuda_ctx_tuning(b)->grid_max_n == 0,
          "context b's tuning changed");
    rdx_ctx *c = rdx_test_cuda_context();
    const rdx_cuda_tuning *t = rdx_cuda_ctx_tuning(c);
    CHECK(t->msd_min_n == RDX_MSD_MIN_N && t->grid_max_n == RDX_GRID_MAX_N && t->cluster_max_n == RDX_CLUSTER_MAX_N &&
              t->medium_max_n == RDX_OS_MEDIUM_MAX_N && t->mid_max_n == RDX_OS_MID_MAX_N && t->portion_max_n == 0 && t->sms > 0,
          "a new context does not have tuning.h's limits and the device's facts");
    CHECK(strcmp(rdx_ctx_route(c), "") == 0, "a new context names route \"%s\"", rdx_ctx_route(c));
    rdx_ctx_destroy(a);
    rdx_ctx_destroy(b);
    rdx_ctx_destroy(c);
    printf("test_cuda_threads: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
