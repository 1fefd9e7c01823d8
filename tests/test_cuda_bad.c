/* Bad input and memory on the CUDA backend: every bad-input rule of the synchronous calls
 * with device arrays, each refused with its status and a message naming the argument, the
 * arrays checked unchanged; a device pointer handed to the CPU backend; a forced
 * allocation failure (2^38 four-byte keys "in" a 4 KB buffer) and the context working on after it;
 * the out-of-place calls' own rules (rdx_cuda.h).
 *
 * Exits 77 where no GPU is usable. RDX_TEST_SEED replays a run. */
#include "cuda_check.h"
#include "cuda_into.h"

/* Fills a device buffer with a known pattern and remembers it. */
static void *patterned(size_t bytes, unsigned char *pattern, uint64_t *s)
{
    for (size_t i = 0; i < bytes; i++)
        pattern[i] = (unsigned char)rnd(s);
    void *d = dev_alloc(bytes);
    if (!d) {
        printf("FAIL: cannot allocate %zu device bytes\n", bytes);
        exit(1);
    }
    dev_upload(d, pattern, bytes);
    return d;
}

static void expect_unchanged(const void *d, const unsigned char *pattern, size_t bytes, const char *what)
{
    unsigned char *now = malloc(bytes);
    if (!now)
        exit(1);
    dev_download(now, d, bytes);
    CHECK(memcmp(now, pattern, bytes) == 0, "%s: a device array changed although the call failed", what);
    free(now);
}

static void expect_status(rdx_ctx *ctx, rdx_status got, rdx_status want, const char *need, const char *what)
{
    CHECK(got == want, "%s: returned %s, expected %s (%s)", what, rdx_status_string(got), rdx_status_string(want),
          rdx_ctx_error(ctx));
    if (need)
        CHECK(strstr(rdx_ctx_error(ctx), need) != NULL, "%s: the message \"%s\" does not mention \"%s\"", what,
              rdx_ctx_error(ctx), need);
}

static void bad_input(rdx_ctx *cuda)
{
    uint64_t s = seed ^ 0x5555;
    enum { N = 5000 };
    static unsigned char kp[N * 8], vp[N * 8], ip[N * 8];
    void *dk = patterned(N * 4, kp, &s), *dv = patterned(N * 8, vp, &s), *di = patterned(N * 8, ip, &s);
    const rdx_opts ok = {0, 0, 0, 0};
    rdx_opts o;

    /* The CPU backend cannot read device memory. */
    rdx_ctx *cpu = NULL;
    CHECK(rdx_ctx_create(&cpu, RDX_BACKEND_CPU) == RDX_OK, "cannot create a CPU context");
    if (cpu) {
        unsigned char host_keys[4 * 16] = {0};
        expect_status(cpu, rdx_sort_keys(cpu, dk, N, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "device memory",
                      "CPU backend, device keys");
        expect_status(cpu, rdx_sort_pairs(cpu, host_keys, dv, 4, 16, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT,
                      "device memory", "CPU backend, device values");
        expect_status(cpu, rdx_argsort(cpu, host_keys, 16, RDX_U32, di, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT,
                      "device memory", "CPU backend, device indices");
        rdx_ctx_destroy(cpu);
    }

    /* Each argument rule of rdx.h, on the CUDA backend with device arrays. */
    expect_status(cuda, rdx_sort_keys(cuda, NULL, N, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "keys", "NULL keys");
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, (rdx_type)0, NULL), RDX_ERR_INVALID_ARGUMENT, "type", "type 0");
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, (rdx_type)13, NULL), RDX_ERR_INVALID_ARGUMENT, "type", "type 13");
    o = ok, o.begin_bit = -1;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "begin_bit", "begin -1");
    o = ok, o.end_bit = 33;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "end_bit", "end 33");
    o = ok, o.begin_bit = 9, o.end_bit = 9;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "begin_bit",
                  "begin == end");
    o = ok, o.begin_bit = 32;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "begin_bit",
                  "begin at the width");
    o = ok, o.radix_bits = 9;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "radix_bits", "radix 9");
    o = ok, o.radix_bits = -1;
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "radix_bits", "radix -1");
    o = ok, o.flags = 8; /* bits 0-2 are RDX_DESCENDING, RDX_NUMPY_ORDER, RDX_LOW_MEMORY */
    expect_status(cuda, rdx_sort_keys(cuda, dk, N, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT, "flags", "flag 8");
    expect_status(cuda, rdx_sort_pairs(cuda, dk, NULL, 4, N, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "values",
                  "NULL values");
    expect_status(cuda, rdx_sort_pairs(cuda, dk, dv, 0, N, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "value_size",
                  "value_size 0");
    expect_status(cuda, rdx_sort_pairs(cuda, dk, (unsigned char *)dk + 8, 4, N, RDX_U32, NULL),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "keys and values overlap");
    expect_status(cuda, rdx_argsort(cuda, dk, N, RDX_U32, NULL, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "indices",
                  "NULL indices");
    expect_status(cuda, rdx_argsort(cuda, dk, N, RDX_U32, di, RDX_U16, NULL), RDX_ERR_INVALID_ARGUMENT,
                  "index_type", "index type u16");
    expect_status(cuda, rdx_argsort(cuda, dk, N, RDX_U32, dk, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "overlap",
                  "keys and indices overlap");
    expect_unchanged(dk, kp, N * 4, "bad input");
    expect_unchanged(dv, vp, N * 8, "bad input");
    expect_unchanged(di, ip, N * 8, "bad input");

    /* Allocation failure: 2^38 four-byte keys claimed in a 4 KB buffer (a sort of 1-byte
     * keys alone needs no scratch of their size: the counting route). The scratch cannot
     * be had; the answer is RDX_ERR_OUT_OF_MEMORY before anything is read or written. */
    void *small = patterned(4096, kp, &s);
    expect_status(cuda, rdx_sort_keys(cuda, small, (size_t)1 << 38, RDX_U32, NULL), RDX_ERR_OUT_OF_MEMORY, NULL,
                  "2^38 keys");
    CHECK(rdx_ctx_error(cuda)[0] != '\0', "out of memory without a message");
    expect_unchanged(small, kp, 4096, "2^38 keys");
    /* The context works on afterwards. */
    CHECK(rdx_sort_keys(cuda, small, 4096, RDX_U8, NULL) == RDX_OK, "sort after an allocation failure: %s",
          rdx_ctx_error(cuda));
    unsigned char back[4096];
    dev_download(back, small, 4096);
    for (int i = 1; i < 4096; i++)
        if (back[i - 1] > back[i]) {
            CHECK(0, "sort after an allocation failure: out of order at %d", i);
            break;
        }
    CHECK(rdx_ctx_error(cuda)[0] == '\0', "a successful call left an error message: %s", rdx_ctx_error(cuda));

    dev_release(small);
    dev_release(dk);
    dev_release(dv);
    dev_release(di);
}

/* The *_into calls' own argument rules: each is refused with RDX_ERR_INVALID_ARGUMENT (or
 * RDX_ERR_TEMP_TOO_SMALL) and a message naming the problem, with every array unchanged. */
static void into_bad_input(rdx_ctx *ctx)
{
    uint64_t s = seed ^ 0x7777;
    enum { N = 5000 };
    static unsigned char kp[2 * N * 4], vp[2 * N * 8], op[N * 8];
    unsigned char *dk = patterned(2 * N * 4, kp, &s), *dv = patterned(2 * N * 8, vp, &s);
    unsigned char *dout = patterned(N * 8, op, &s);
    size_t tb = 0, tbp = 0;
    CHECK(rdx_cuda_sort_keys_temp_size(ctx, N, RDX_U32, NULL, &tb) == RDX_OK, "temp size: %s", rdx_ctx_error(ctx));
    CHECK(rdx_cuda_sort_pairs_temp_size(ctx, 4, N, RDX_U32, NULL, &tbp) == RDX_OK, "temp size: %s",
          rdx_ctx_error(ctx));
    void *t = temp_for(tb > tbp ? tb : tbp);
    const size_t tmax = tb > tbp ? tb : tbp;
    const cudaStream_t st = into_stream;

    /* Keys: an output that overlaps its input without being it. */
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, dk + 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "into: keys out one key after keys in");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk + 4 * 7, dk, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_in and d_keys_out", "into: keys out 7 keys before keys in");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk + 2, dk, N, RDX_U16, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "into: u16 keys, one key apart");
    /* NULL arrays, named. */
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, NULL, dout, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_in", "into: NULL keys in");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, NULL, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_out", "into: NULL keys out");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, dk, dout, NULL, dv, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_in", "into: NULL values in");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, NULL, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_out", "into: NULL values out");
    /* Pairs: values overlapping each other or any key array. */
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, dv + 8, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_in and d_values_out", "into: values out two values after in");
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, dout + 16, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "into: values out overlapping keys out");
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, dk + 4 * (N - 1), 4, N, RDX_U32, NULL, t, tmax,
                                                 st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_in and d_values_out", "into: values out overlapping keys in");
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dout + 4 * (N - 2), dv, 4, N, RDX_U32, NULL, t, tmax,
                                                 st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_in and d_keys_out", "into: values in overlapping keys out");
    expect_status(ctx,
                  rdx_cuda_sort_pairs_into_async(ctx, dk, dk, dk + 4 * N - 4, dv, 4, N, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "overlap", "into: values in overlapping keys in (and out)");
    /* Too little temporary storage, and memory the kernels cannot use. */
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, dout, N, RDX_U32, NULL, t, tb - 1, st),
                  RDX_ERR_TEMP_TOO_SMALL, "temporary", "into: one byte too little temporary storage");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv, dv + 8 * N, 4, N, RDX_U32, NULL, t, tbp - 1,
                                                      st),
                  RDX_ERR_TEMP_TOO_SMALL, "temporary", "into: pairs, one byte too little temporary storage");
    unsigned char host[4 * 16] = {0};
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, host, dout, 16, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_in", "into: host keys in");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, host, 16, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_keys_out", "into: host keys out");
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, dk, dout + 1, 1000, RDX_U32, NULL, t, tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "aligned", "into: unaligned keys out");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, dk, dout, dv + 2, dv + 8 * N, 8, 1000, RDX_U32, NULL, t,
                                                      tmax, st),
                  RDX_ERR_INVALID_ARGUMENT, "d_values_in", "into: unaligned 8-byte values in");
    rdx_ctx *cpu = NULL;
    if (rdx_ctx_create(&cpu, RDX_BACKEND_CPU) == RDX_OK) {
        expect_status(cpu, rdx_cuda_sort_keys_into_async(cpu, dk, dout, N, RDX_U32, NULL, t, tmax, st),
                      RDX_ERR_INVALID_ARGUMENT, "CUDA", "into: a CPU context");
        rdx_ctx_destroy(cpu);
    }
    CHECK(rdx_cuda_sort_keys_into_async(NULL, dk, dout, N, RDX_U32, NULL, t, tmax, st) == RDX_ERR_INVALID_ARGUMENT,
          "into: a NULL context was accepted");
    cuda_or_die(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    expect_unchanged(dk, kp, 2 * N * 4, "into: bad input");
    expect_unchanged(dv, vp, 2 * N * 8, "into: bad input");
    expect_unchanged(dout, op, N * 8, "into: bad input");
    /* n = 0 with NULL arrays is a sort of nothing. */
    expect_status(ctx, rdx_cuda_sort_keys_into_async(ctx, NULL, NULL, 0, RDX_U32, NULL, NULL, 0, st), RDX_OK, NULL,
                  "into: n = 0");
    expect_status(ctx, rdx_cuda_sort_pairs_into_async(ctx, NULL, NULL, NULL, NULL, 4, 0, RDX_U32, NULL, NULL, 0, st),
                  RDX_OK, NULL, "into: pairs, n = 0");
    dev_release(dk);
    dev_release(dv);
    dev_release(dout);
}

int main(void)
{
    seed = rdx_test_seed();
    rdx_ctx *ctx = rdx_test_cuda_context();
    into_begin();
    bad_input(ctx);
    into_bad_input(ctx);
    into_end();
    rdx_ctx_destroy(ctx);
    printf("test_cuda_bad: %s (%d failures), seed 0x%016" PRIx64 "\n", failures ? "FAILED" : "passed", failures,
           seed);
    return failures ? 1 : 0;
}
