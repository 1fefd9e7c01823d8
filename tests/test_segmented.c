/* Segmented sorts (rdx_segmented_sort_keys / _pairs / rdx_segmented_argsort, and on the GPU
 * rdx_cuda_segmented_sort_with_indices_async) against the
 * stable reference, segment by segment, on fresh random data: layouts equal rows, random
 * lengths with empty segments, one huge segment among many tiny ones, gaps before the
 * first and after the last segment; all 12 key types, ascending and descending, keys,
 * pairs (4-, 8- and 3-byte values) and argsort (u32, u64 indices), RDX_NUMPY_ORDER with
 * NaNs of both signs and both zeros; keys, values and indices outside the segments
 * unchanged. Then every bad-input rule of the segmented calls, with the arrays unchanged.
 *
 * Built twice: test_segmented (CPU backend, host memory) and, with RDX_TEST_SEG_CUDA,
 * test_segmented_cuda (CUDA backend: device arrays with device or host offsets, and host
 * arrays), which skips with 77 where no GPU is usable.
 * Environment: RDX_TEST_SEED replays a run. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "suite.h"
#include "check.h"

#ifdef RDX_TEST_SEG_CUDA
#include <cuda_runtime_api.h>
#include "rdx_cuda.h"
static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}
static void dev_release(void *p) { (void)cudaFree(p); }
static void dev_upload(void *dst, const void *src, size_t bytes)
{
    if (bytes && cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        printf("FAIL [seed 0x%016" PRIx64 "] cudaMemcpy to the device failed\n", seed);
        exit(1);
    }
}
static void dev_download(void *dst, const void *src, size_t bytes)
{
    if (bytes && cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
        printf("FAIL [seed 0x%016" PRIx64 "] cudaMemcpy from the device failed\n", seed);
        exit(1);
    }
}
static const rdx_test_memory device_memory = {"device", dev_alloc, dev_release, dev_upload,
                                              dev_download};
#endif

static rdx_ctx *ctx;
static const rdx_test_memory *mem;  /* where keys, values and indices live */
#ifdef RDX_TEST_SEG_CUDA
static int offsets_on_device;       /* offsets in device memory too */
static int use_async;               /* the stream-ordered calls of rdx_cuda.h (1), captured
                                       in a CUDA graph and launched (2) */

/* The call through rdx_cuda.h: temp size, temp, a stream (or a graph of the call). Kind
 * 3 (the argsort that writes the keys too, to dko) takes the argsort's temp size. */
static rdx_status async_call(int kind, void *dk, void *dp, size_t vs, size_t n, rdx_type type,
                             const size_t *d_off, size_t nseg, rdx_type itype, const rdx_opts *o, void *dko)
{
    size_t tb = 0;
    rdx_status st = kind == 0   ? rdx_cuda_segmented_sort_keys_temp_size(ctx, n, type, nseg, o, &tb)
                    : kind == 1 ? rdx_cuda_segmented_sort_pairs_temp_size(ctx, vs, n, type, nseg, o, &tb)
                                : rdx_cuda_segmented_argsort_temp_size(ctx, n, type, nseg, itype, o, &tb);
    if (st != RDX_OK)
        return st;
    void *temp = dev_alloc(tb);
    cudaStream_t stream;
    if (!temp || cudaStreamCreate(&stream) != cudaSuccess) {
        printf("FAIL [seed 0x%016" PRIx64 "] no temporary storage or stream\n", seed);
        exit(1);
    }
    /* One byte short: refused, nothing enqueued. */
    if (tb > 0) {
        const rdx_status small = kind == 0 ? rdx_cuda_segmented_sort_keys_async(ctx, dk, n, type, d_off, nseg, o,
                                                                                 temp, tb - 1, stream)
                                           : RDX_ERR_TEMP_TOO_SMALL;
        CHECK(small == RDX_ERR_TEMP_TOO_SMALL, "async: %zu - 1 temporary bytes accepted", tb);
    }
    cudaGraph_t graph = NULL;
    if (use_async == 2 && cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) != cudaSuccess) {
        printf("FAIL [seed 0x%016" PRIx64 "] cannot capture\n", seed);
        exit(1);
    }
    st = kind == 0   ? rdx_cuda_segmented_sort_keys_async(ctx, dk, n, type, d_off, nseg, o, temp, tb, stream)
         : kind == 1 ? rdx_cuda_segmented_sort_pairs_async(ctx, dk, dp, vs, n, type, d_off, nseg, o, temp, tb, stream)
         : kind == 2 ? rdx_cuda_segmented_argsort_async(ctx, dk, n, type, d_off, nseg, dp, itype, o, temp, tb, stream)
                     : rdx_cuda_segmented_sort_with_indices_async(ctx, dk, dko, n, type, d_off, nseg, dp, itype, o,
                                                                 temp, tb, stream);
    if (use_async == 2) {
        cudaGraphExec_t exec;
        if (cudaStreamEndCapture(stream, &graph) != cudaSuccess || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess ||
            (st == RDX_OK && cudaGraphLaunch(exec, stream) != cudaSuccess)) {
            printf("FAIL [seed 0x%016" PRIx64 "] the captured segmented sort failed\n", seed);
            exit(1);
        }
        (void)cudaStreamSynchronize(stream);
        (void)cudaGraphExecDestroy(exec);
        (void)cudaGraphDestroy(graph);
    }
    if (cudaStreamSynchronize(stream) != cudaSuccess) {
        printf("FAIL [seed 0x%016" PRIx64 "] the stream failed\n", seed);
        exit(1);
    }
    (void)cudaStreamDestroy(stream);
    dev_release(temp);
    return st;
}
#endif

static const rdx_type all_types[] = {RDX_U8,  RDX_U16, RDX_U32,  RDX_U64,  RDX_I8,  RDX_I16,
                                     RDX_I32, RDX_I64, RDX_F16,  RDX_BF16, RDX_F32, RDX_F64};

static int is_float(rdx_type t) { return t >= RDX_F16; }

/* A key pattern: random, with a skewed top byte so that equal keys are common; for floats
 * often NaN of either sign (random payload), +-0 or +-inf. */
static uint64_t random_key(uint64_t *s, rdx_type t)
{
    const int w = (int)rdx_type_size(t) * 8;
    const uint64_t all = w == 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
    uint64_t x = rnd(s) & all;
    if (is_float(t) && rnd(s) % 3 == 0) {
        const int mant = t == RDX_F16 ? 10 : t == RDX_BF16 ? 7 : t == RDX_F32 ? 23 : 52;
        const uint64_t sign = (uint64_t)1 << (w - 1);
        const uint64_t exp_all = all & ~sign & ~((((uint64_t)1) << mant) - 1);
        const uint64_t sg = (rnd(s) & 1) ? sign : 0;
        switch (rnd(s) % 3) {
        case 0: return sg | exp_all | ((rnd(s) & ((((uint64_t)1) << mant) - 1)) | 1); /* NaN */
        case 1: return sg;                                                            /* 0 */
        default: return sg | exp_all;                                                 /* inf */
        }
    }
    if (rnd(s) % 2 == 0) { /* few distinct values: only the low 2 bits and the sign vary */
        x &= ((uint64_t)1 << (w - 1)) | 3;
    }
    return x;
}

/* A key from a normal distribution (sd 1000), as the type stores it (integers rounded,
 * half floats as bfloat16's bits: the top half of a float's), and for floats now and
 * then NaN of either sign, an infinity or -0.0: real data, whose values crowd a few
 * exponents. */
static uint64_t normal_key(uint64_t *s, rdx_type t)
{
    const double u1 = ((double)(rnd(s) >> 11) + 1.0) / 9007199254740992.0, u2 = (double)(rnd(s) >> 11) / 9007199254740992.0;
    const double x = 1000.0 * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    uint64_t bits = 0;
    if (!is_float(t)) {
        const int64_t v = (int64_t)llround(x);
        memcpy(&bits, &v, sizeof v);
        return bits;
    }
    if (rnd(s) % 64 == 0)
        return random_key(s, t); /* NaN, +-0, +-inf a third of the time */
    if (t == RDX_F64) {
        memcpy(&bits, &x, sizeof x);
        return bits;
    }
    const float f = (float)x;
    uint32_t b32;
    memcpy(&b32, &f, sizeof b32);
    return t == RDX_F32 ? b32 : b32 >> 16;
}

/* ---- layouts ---- */

/* Under compute-sanitizer (RDX_TEST_SANITIZER=1): one payload kind per type and order in
 * every layout, and only the synchronous and the stream-ordered pass on device arrays. */
static int sanitizer;

enum { L_EQUAL, L_RANDOM, L_HUGE_TINY, L_GAPS, L_FEW_LONG, L_BINS, L_LONG_ROWS, L_MANY_ROWS, NLAYOUT };
static const char *const layout_names[NLAYOUT] = {"equal rows", "random lengths", "huge + tiny", "gaps",
                                                  "few long", "every bin", "long rows", "many rows"};

/* Lengths at the edges of the CUDA backend's bins of short segments (tuning.h: a warp up
 * to 32, 64, 128, 256 keys, a block up to 1024, 2048, 4096, 8192 and 16384, the segmented
 * passes above). */
static const size_t bin_edges[] = {1,    2,    31,   32,   33,   63,   64,   65,   127,  128,   129,   255,
                                   256,  257,  1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096,  4097,  8191,
                                   8192, 8193, 16383, 16384, 16385};
#define N_BIN_EDGES (sizeof bin_edges / sizeof bin_edges[0])

typedef struct layout {
    size_t n, nseg;
    size_t *offsets;     /* host copy; NULL for equal rows */
} layout;

/* Lengths: equal rows of 1..300 keys, of a bin edge, or of 16385..66384 keys (the
 * segmented passes); random 0..200 (a fifth empty); one segment past the CPU backend's
 * per-thread limit among thousands of 0..4-key ones; random ones starting after a gap and
 * ending before the end (the first one long half the time); a few segments of 20000..90000 keys; segments of every bin,
 * edges included, some empty, some longer than 16384; 2 or 3 rows of 2^21 keys
 * (hundreds of tiles per segment in the passes); and 600..1599 rows of 700, 1024 or 2048
 * keys (one CUDA block bin, up to several tiles per block; 16..47 rows under the
 * sanitizers). */
static int make_layout(int which, uint64_t *s, layout *L)
{
    memset(L, 0, sizeof *L);
    if (which == L_LONG_ROWS) {
        L->nseg = 2 + rnd(s) % 2;
        L->n = L->nseg * (((size_t)1 << 21) + rnd(s) % 64);
        return 0;
    }
    if (which == L_MANY_ROWS) {
        static const size_t cols[] = {700, 1024, 2048};
        L->nseg = sanitizer ? 16 + rnd(s) % 32 : 600 + rnd(s) % 1000;
        L->n = L->nseg * cols[rnd(s) % 3];
        return 0;
    }
    if (which == L_EQUAL) {
        const unsigned pick = (unsigned)(rnd(s) % 6);
        const size_t cols = pick < 2 ? bin_edges[rnd(s) % N_BIN_EDGES] : pick == 2 ? 16385 + rnd(s) % 50000
                                                                                    : 1 + rnd(s) % 300;
        const size_t rows = pick == 2 ? 1 + rnd(s) % 5 : 1 + rnd(s) % 40;
        L->n = rows * cols;
        L->nseg = rows;
        return 0;
    }
    size_t cap = 8192;
    L->offsets = malloc(cap * sizeof *L->offsets);
    if (!L->offsets)
        return -1;
    size_t at = which == L_GAPS ? 1 + rnd(s) % 50 : 0;
    const size_t count = which == L_RANDOM ? 40 + rnd(s) % 60
                         : which == L_HUGE_TINY ? 4000
                         : which == L_GAPS ? 30
                         : which == L_BINS ? 20 + rnd(s) % 20
                                           : 3;
    const size_t huge_at = rnd(s) % count;
    L->offsets[0] = at;
    for (size_t i = 0; i < count; i++) {
        size_t len;
        switch (which) {
        case L_RANDOM: len = rnd(s) % 5 == 0 ? 0 : rnd(s) % 200; break;
        case L_HUGE_TINY: len = i == huge_at ? 70000 + rnd(s) % 1000 : rnd(s) % 5; break;
        case L_GAPS: /* the first one long half the time: the gap before it is what an
                        argsort into 8-byte indices through the passes must leave alone */
            len = i == 0 && rnd(s) % 2 ? 16385 + rnd(s) % 30000 : rnd(s) % 100;
            break;
        case L_BINS: {
            static const size_t caps[] = {32, 64, 128, 256, 1024, 2048, 4096, 8192, 16384};
            enum { NCAPS = sizeof caps / sizeof caps[0] };
            const size_t pick = rnd(s) % (NCAPS + 3);
            len = pick < NCAPS ? 1 + rnd(s) % caps[pick]
                  : pick == NCAPS ? bin_edges[rnd(s) % N_BIN_EDGES]
                  : pick == NCAPS + 1 ? 0
                              : 16385 + rnd(s) % 40000;
            break;
        }
        default: len = 20000 + rnd(s) % 70000; break;
        }
        at += len;
        L->offsets[i + 1] = at;
    }
    L->nseg = count;
    L->n = at + (which == L_GAPS ? 1 + rnd(s) % 50 : 0);
    return 0;
}

static void segment_of(const layout *L, size_t seg, size_t *lo, size_t *hi)
{
    if (L->offsets) {
        *lo = L->offsets[seg];
        *hi = L->offsets[seg + 1];
    } else {
        *lo = seg * (L->n / L->nseg);
        *hi = *lo + L->n / L->nseg;
    }
}

/* ---- one case ---- */

/* K_WITH_INDICES: rdx_cuda_segmented_sort_with_indices_async (the stream-ordered calls
 * only), in place or into another array. */
enum { K_KEYS, K_PAIRS, K_ARGSORT, K_WITH_INDICES };

static void run_case(const layout *L, int which, rdx_type type, unsigned flags, int kind,
                     size_t vs, rdx_type itype, uint64_t *s)
{
    const size_t n = L->n, kb = rdx_type_size(type), ib = itype == RDX_U32 ? 4 : 8;
    const size_t pb = kind == K_PAIRS ? vs : kind >= K_ARGSORT ? ib : 1;
    const int indices = kind >= K_ARGSORT, keys_moved = kind != K_ARGSORT;
    /* K_WITH_INDICES into another array: it starts as random bytes (kept outside the
     * segments), and the input must not change. */
    const int apart = kind == K_WITH_INDICES && rnd(s) % 2;
    char what[256];
    snprintf(what, sizeof what, "%s (n = %zu, %zu segments), type %d, flags %u, %s%s", layout_names[which],
             n, L->nseg, (int)type, flags,
             kind == K_KEYS ? "keys" : kind == K_PAIRS ? "pairs" : kind == K_ARGSORT ? "argsort"
             : apart ? "sort with indices into another array" : "sort with indices in place",
             kind == K_PAIRS ? (vs == 4 ? " (4-byte values)" : vs == 8 ? " (8-byte values)" : " (3-byte values)")
             : indices ? (itype == RDX_U32 ? " (u32)" : " (u64)") : "");

    unsigned char *k0 = malloc(n * kb + 1), *p0 = malloc(n * pb + 1);
    unsigned char *k1 = malloc(n * kb + 1), *p1 = malloc(n * pb + 1);
    unsigned char *ko = malloc(n * kb + 1), *kin = malloc(n * kb + 1); /* out's first bytes; the input after */
    size_t *perm = malloc((n + 1) * sizeof *perm);
    void *dk = mem->alloc(n * kb), *dp = mem->alloc(n * pb), *dko = apart ? mem->alloc(n * kb) : dk;
    const size_t ob = (L->nseg + 1) * sizeof(size_t);
    void *doff = NULL;
    if (!k0 || !p0 || !k1 || !p1 || !ko || !kin || !perm || !dk || !dp || !dko) {
        CHECK(0, "%s: the test could not allocate memory", what);
        goto done;
    }
    /* Keys: mixed (random and few distinct), all equal (no pass of a radix sort moves a
     * key), only the low 24 bits random (passes skipped, an odd number left), or a window
     * of `span` patterns from a random one (wrapping at the type's width: a segment's range
     * anywhere, across the sign bit or not; with a short span, runs of equal keys that the
     * CUDA block bins' comparisons order, or too many for them), or each segment's keys
     * normal, of every bit pattern (floats: any exponent) or all one key: a CUDA block's
     * tiles take the range sort's digit by value, or by code where that one fails, and the
     * segmented passes leave a long segment of one key where it is while they move the
     * others). */
    const unsigned data = which == L_MANY_ROWS || ((which == L_FEW_LONG || which == L_LONG_ROWS) && rnd(s) % 2)
                              ? 7u
                              : (unsigned)(rnd(s) % 8);
    const uint64_t same = random_key(s, type);
    static const uint64_t spans[] = {8, 700, 5000, 1u << 20};
    const uint64_t span = spans[rnd(s) % 4];
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = data == 3   ? same
                           : data == 4 ? rnd(s) & 0xffffffu
                           : data == 5 ? same + rnd(s) % span
                           : data == 6 ? normal_key(s, type)
                                       : random_key(s, type);
        memcpy(k0 + i * kb, &x, kb); /* little-endian low bytes */
    }
    for (size_t g = 0; data == 7 && g < L->nseg; g++) {
        size_t lo, hi;
        segment_of(L, g, &lo, &hi);
        const unsigned kind = (unsigned)(rnd(s) % 3); /* normal, any bits, one key */
        const uint64_t one = random_key(s, type);
        for (size_t i = lo; i < hi; i++) {
            const uint64_t x = kind == 0 ? normal_key(s, type) : kind == 1 ? rnd(s) : one;
            memcpy(k0 + i * kb, &x, kb);
        }
    }
    {
        const size_t used = strlen(what);
        if (data == 5)
            snprintf(what + used, sizeof what - used, ", keys in a window of %" PRIu64, span);
        else
            snprintf(what + used, sizeof what - used, "%s",
                     data == 3   ? ", keys all equal"
                     : data == 4 ? ", keys < 2^24"
                     : data == 6 ? ", keys normal"
                     : data == 7 ? ", keys normal, of any bits or one by segment"
                                 : "");
    }
    for (size_t i = 0; i < n * pb; i++)
        p0[i] = (unsigned char)rnd(s);
    mem->upload(dk, k0, n * kb);
    mem->upload(dp, p0, n * pb);
    for (size_t i = 0; i < n * kb; i++)
        ko[i] = apart ? (unsigned char)rnd(s) : k0[i];
    if (apart)
        mem->upload(dko, ko, n * kb);
    const size_t *offsets = L->offsets;
#ifdef RDX_TEST_SEG_CUDA
    if (L->offsets && offsets_on_device) {
        doff = dev_alloc(ob);
        if (!doff) {
            CHECK(0, "%s: no device memory for the offsets", what);
            goto done;
        }
        dev_upload(doff, L->offsets, ob);
        offsets = (const size_t *)doff;
    }
#else
    (void)ob;
#endif
    /* A quarter of the cases without RDX_NUMPY_ORDER sort by a random range of the bits. */
    rdx_opts opts = {flags, 0, 0, 0};
    if (!(flags & RDX_NUMPY_ORDER) && rnd(s) % 4 == 0) {
        opts.begin_bit = (int)(rnd(s) % (8 * kb));
        opts.end_bit = opts.begin_bit + 1 + (int)(rnd(s) % (8 * kb - (size_t)opts.begin_bit));
    }
    if (opts.end_bit) {
        const size_t used = strlen(what);
        snprintf(what + used, sizeof what - used, ", bits [%d, %d)", opts.begin_bit, opts.end_bit);
    }
    rdx_status st;
#ifdef RDX_TEST_SEG_CUDA
    if (use_async)
        st = async_call(kind, dk, dp, vs, n, type, offsets, L->nseg, itype, &opts, dko);
    else
#endif
    if (kind == K_KEYS)
        st = rdx_segmented_sort_keys(ctx, dk, n, type, offsets, L->nseg, &opts);
    else if (kind == K_PAIRS)
        st = rdx_segmented_sort_pairs(ctx, dk, dp, vs, n, type, offsets, L->nseg, &opts);
    else
        st = rdx_segmented_argsort(ctx, dk, n, type, offsets, L->nseg, dp, itype, &opts);
    CHECK(st == RDX_OK, "%s: returned %s: %s", what, rdx_status_string(st), rdx_ctx_error(ctx));
    if (st != RDX_OK)
        goto done;
    mem->download(k1, dko, n * kb);
    mem->download(p1, dp, n * pb);
    mem->download(kin, dk, n * kb);
    if (apart && memcmp(kin, k0, n * kb) != 0)
        CHECK(0, "%s: the input keys changed", what);

    /* Outside the segments: unchanged. */
    size_t first, last, tmp;
    segment_of(L, 0, &first, &tmp);
    segment_of(L, L->nseg - 1, &tmp, &last);
    if (memcmp(k1, ko, first * kb) != 0 || memcmp(k1 + last * kb, ko + last * kb, (n - last) * kb) != 0 ||
        memcmp(p1, p0, first * pb) != 0 || memcmp(p1 + last * pb, p0 + last * pb, (n - last) * pb) != 0)
        CHECK(0, "%s: an element outside the segments changed", what);

    int reported = 0;
    for (size_t g = 0; g < L->nseg && !reported; g++) {
        size_t lo, hi;
        segment_of(L, g, &lo, &hi);
        const size_t m = hi - lo;
        if (rdx_ref_argsort(k0 + lo * kb, m, type, &opts, perm) != 0) {
            CHECK(0, "%s: the reference ran out of memory", what);
            break;
        }
        for (size_t i = 0; i < m && !reported; i++) {
            const size_t at = lo + i, from = lo + perm[i];
            uint64_t x = 0;
            if (indices)
                memcpy(&x, p1 + at * ib, ib);
            if (indices && (x != perm[i] || (!keys_moved && memcmp(k1 + at * kb, k0 + at * kb, kb) != 0))) {
                CHECK(0, "%s: segment %zu [%zu, %zu): index %zu is %" PRIu64 ", want %zu (or keys changed)",
                      what, g, lo, hi, i, x, perm[i]);
                reported = 1;
            } else if (keys_moved && memcmp(k1 + at * kb, k0 + from * kb, kb) != 0) {
                uint64_t got = 0, want = 0;
                memcpy(&got, k1 + at * kb, kb);
                memcpy(&want, k0 + from * kb, kb);
                CHECK(0, "%s: segment %zu [%zu, %zu): position %zu holds key 0x%" PRIx64
                      ", want 0x%" PRIx64 " (input position %zu)", what, g, lo, hi, i, got, want, from);
                reported = 1;
            } else if (kind == K_PAIRS && memcmp(p1 + at * vs, p0 + from * vs, vs) != 0) {
                CHECK(0, "%s: segment %zu [%zu, %zu): position %zu holds a value other than input position "
                      "%zu's", what, g, lo, hi, i, from);
                reported = 1;
            }
        }
    }
done:
    free(k0);
    free(p0);
    free(k1);
    free(p1);
    free(ko);
    free(kin);
    free(perm);
    if (dko && dko != dk)
        mem->release(dko);
    if (dk)
        mem->release(dk);
    if (dp)
        mem->release(dp);
#ifdef RDX_TEST_SEG_CUDA
    if (doff)
        dev_release(doff);
#else
    (void)doff;
#endif
}

/* RDX_TEST_SEG_HALF_TYPES=1: each layout sorts half the key types, every other one from a
 * random first, so that every type still runs in about half the layouts. For racecheck
 * (scripts/gpu-check.sh), which took 289 of its 300 s on the whole set (H200, round 19). */
static int half_types;

static int long_rows; /* run the long-rows layout */

static void all_cases(uint64_t *s)
{
    for (int which = 0; which < NLAYOUT; which++) {
        layout L;
        if (make_layout(which, s, &L) != 0) {
            CHECK(0, "no memory for a layout");
            continue;
        }
        const int parity = half_types ? (int)(rnd(s) % 2) : 0;
        for (int t = 0; t < 12; t++) {
            const rdx_type type = all_types[t];
            if (half_types && t % 2 != parity)
                continue;
            /* Long rows (millions of keys, checked on the host): three types, on the GPU,
             * not under the sanitizers. */
            if (which == L_LONG_ROWS && (!long_rows || (type != RDX_U32 && type != RDX_F32 && type != RDX_I64)))
                continue;
            /* Many rows: 4- and 8-byte floats, the keys of the range sort's two digits. */
            if (which == L_MANY_ROWS && type != RDX_F32 && type != RDX_F64)
                continue;
            for (int f = 0; f < (is_float(type) ? 4 : 2); f++) {
                const unsigned flags = (f & 1 ? RDX_DESCENDING : 0u) | (f & 2 ? RDX_NUMPY_ORDER : 0u);
                /* The long layouts take one payload kind per type and order. */
                const int cheap = sanitizer || which == L_HUGE_TINY || which == L_FEW_LONG || which == L_LONG_ROWS ||
                                  which == L_MANY_ROWS;
#ifdef RDX_TEST_SEG_CUDA
                const int kinds = use_async ? 6 : 5;
#else
                const int kinds = 5;
#endif
                const int pick = (int)(rnd(s) % (unsigned)kinds);
                for (int k = 0; k < kinds; k++) {
                    if (cheap && k != pick)
                        continue;
                    switch (k) {
                    case 0: run_case(&L, which, type, flags, K_KEYS, 0, RDX_U32, s); break;
                    case 1: run_case(&L, which, type, flags, K_PAIRS, 4, RDX_U32, s); break;
                    case 2: run_case(&L, which, type, flags, K_PAIRS, rnd(s) % 2 ? 8 : 3, RDX_U32, s); break;
                    case 3: run_case(&L, which, type, flags, K_ARGSORT, 0, RDX_U32, s); break;
                    case 4: run_case(&L, which, type, flags, K_ARGSORT, 0, RDX_U64, s); break;
                    default:
                        run_case(&L, which, type, flags, K_WITH_INDICES, 0, rnd(s) % 2 ? RDX_U32 : RDX_U64, s);
                        break;
                    }
                }
            }
        }
        free(L.offsets);
    }
}

/* ---- bad input ---- */

#define NB 64
static unsigned char hk[NB * 8], hv[NB * 8], hi_[NB * 8];
static unsigned char bk[NB * 8], bv[NB * 8], bi[NB * 8];
static void *dk_, *dv_, *di_;

static void fill_bad(uint64_t *s)
{
    for (size_t i = 0; i < sizeof hk; i++) {
        hk[i] = (unsigned char)rnd(s);
        hv[i] = (unsigned char)rnd(s);
        hi_[i] = (unsigned char)rnd(s);
    }
    mem->upload(dk_, hk, sizeof hk);
    mem->upload(dv_, hv, sizeof hv);
    mem->upload(di_, hi_, sizeof hi_);
}

static void expect_bad(rdx_status got, rdx_status want, const char *needle, const char *what)
{
    CHECK(got == want, "%s: returned %s, want %s (\"%s\")", what, rdx_status_string(got),
          rdx_status_string(want), rdx_ctx_error(ctx));
    CHECK(strstr(rdx_ctx_error(ctx), needle) != NULL, "%s: message \"%s\" does not name \"%s\"", what,
          rdx_ctx_error(ctx), needle);
    mem->download(bk, dk_, sizeof bk);
    mem->download(bv, dv_, sizeof bv);
    mem->download(bi, di_, sizeof bi);
    CHECK(memcmp(bk, hk, sizeof hk) == 0 && memcmp(bv, hv, sizeof hv) == 0 && memcmp(bi, hi_, sizeof hi_) == 0,
          "%s: an array changed although the call failed", what);
}

/* Each call with one bad argument, as keys, pairs and argsort. */
static void bad_call(const size_t *off, size_t nseg, size_t n, rdx_type type, unsigned flags,
                     const char *needle, const char *what, uint64_t *s)
{
    const rdx_opts o = {flags, 0, 0, 0};
    char w[160];
    fill_bad(s);
    snprintf(w, sizeof w, "keys: %s", what);
    expect_bad(rdx_segmented_sort_keys(ctx, dk_, n, type, off, nseg, &o), RDX_ERR_INVALID_ARGUMENT, needle, w);
    snprintf(w, sizeof w, "pairs: %s", what);
    expect_bad(rdx_segmented_sort_pairs(ctx, dk_, dv_, 4, n, type, off, nseg, &o), RDX_ERR_INVALID_ARGUMENT,
               needle, w);
    snprintf(w, sizeof w, "argsort: %s", what);
    expect_bad(rdx_segmented_argsort(ctx, dk_, n, type, off, nseg, di_, RDX_U64, &o), RDX_ERR_INVALID_ARGUMENT,
               needle, w);
}

static void bad_input(uint64_t *s)
{
    dk_ = mem->alloc(sizeof hk);
    dv_ = mem->alloc(sizeof hv);
    di_ = mem->alloc(sizeof hi_);
    if (!dk_ || !dv_ || !di_) {
        CHECK(0, "no memory for the bad-input arrays");
        return;
    }
    const size_t decreasing[] = {0, 10, 5, 20};
    const size_t past[] = {0, 10, 65};
    const size_t first_past[] = {70, 70};
    bad_call(decreasing, 3, NB, RDX_U32, 0, "decrease", "decreasing offsets", s);
    bad_call(past, 2, NB, RDX_U32, 0, "past n", "an offset past n", s);
    bad_call(first_past, 1, NB, RDX_F32, RDX_NUMPY_ORDER, "past n", "offsets[0] past n", s);
    bad_call(NULL, 3, NB, RDX_U16, 0, "multiple", "n not a multiple of the rows", s);
    bad_call(NULL, 0, NB, RDX_U16, 0, "num_segments", "NULL offsets, num_segments 0, n > 0", s);
    bad_call(NULL, 4, NB, RDX_U32, 8u, "flags", "an unknown flag", s);
    bad_call(NULL, 4, NB, (rdx_type)13, 0, "type", "type 13", s);
    bad_call(past, SIZE_MAX, NB, RDX_U32, 0, "num_segments", "num_segments SIZE_MAX", s);

    const rdx_opts o = {0, 0, 0, 0};
    fill_bad(s);
    expect_bad(rdx_segmented_sort_keys(ctx, NULL, NB, RDX_U32, NULL, 4, &o), RDX_ERR_INVALID_ARGUMENT, "keys",
               "NULL keys");
    expect_bad(rdx_segmented_sort_pairs(ctx, dk_, NULL, 4, NB, RDX_U32, NULL, 4, &o), RDX_ERR_INVALID_ARGUMENT,
               "values", "NULL values");
    expect_bad(rdx_segmented_sort_pairs(ctx, dk_, dv_, 0, NB, RDX_U32, NULL, 4, &o), RDX_ERR_INVALID_ARGUMENT,
               "value_size", "value_size 0");
    expect_bad(rdx_segmented_argsort(ctx, dk_, NB, RDX_U32, NULL, 4, NULL, RDX_U32, &o), RDX_ERR_INVALID_ARGUMENT,
               "indices", "NULL indices");
    expect_bad(rdx_segmented_argsort(ctx, dk_, NB, RDX_U32, NULL, 4, di_, RDX_I32, &o), RDX_ERR_INVALID_ARGUMENT,
               "index_type", "index_type RDX_I32");
    expect_bad(rdx_segmented_sort_pairs(ctx, dk_, dk_, 4, NB, RDX_U32, NULL, 4, &o), RDX_ERR_INVALID_ARGUMENT,
               "overlap", "keys and values overlap");
    CHECK(rdx_segmented_sort_keys(ctx, NULL, 0, RDX_U32, NULL, 0, NULL) == RDX_OK,
          "n = 0, no segments: %s", rdx_ctx_error(ctx));
    CHECK(rdx_ctx_error(ctx)[0] == '\0', "a success left the message \"%s\"", rdx_ctx_error(ctx));
    CHECK(rdx_segmented_argsort(ctx, NULL, 0, RDX_U32, NULL, 5, NULL, RDX_U32, NULL) == RDX_OK,
          "n = 0, 5 empty rows: %s", rdx_ctx_error(ctx));
    /* No segment at all: nothing changes, also with offsets[0] inside the array. */
    const size_t one[] = {7};
    fill_bad(s);
    CHECK(rdx_segmented_sort_pairs(ctx, dk_, dv_, 8, NB, RDX_U64, one, 0, NULL) == RDX_OK,
          "no segments: %s", rdx_ctx_error(ctx));
    mem->download(bk, dk_, sizeof bk);
    CHECK(memcmp(bk, hk, sizeof hk) == 0, "no segments: keys changed");
    mem->release(dk_);
    mem->release(dv_);
    mem->release(di_);
}

#ifdef RDX_TEST_SEG_CUDA
/* rdx_cuda_segmented_sort_with_indices_async's own rules on d_keys_out: refused with a
 * message, every array unchanged. */
static void bad_with_indices(uint64_t *s)
{
    mem = &device_memory;
    dk_ = dev_alloc(sizeof hk);
    dv_ = dev_alloc(sizeof hv);
    di_ = dev_alloc(sizeof hi_);
    size_t tb = 0;
    void *temp = NULL;
    const rdx_opts o = {0, 0, 0, 0};
    if (!dk_ || !dv_ || !di_ ||
        rdx_cuda_segmented_argsort_temp_size(ctx, 32, RDX_U32, 4, RDX_U32, &o, &tb) != RDX_OK ||
        !(temp = dev_alloc(tb))) {
        CHECK(0, "no memory for the bad-input arrays");
        return;
    }
    unsigned char *k = dk_, *v = dv_;
    struct {
        void *out, *idx;
        const char *needle, *what;
    } bad[] = {
        {NULL, di_, "d_keys_out", "NULL d_keys_out"},
        {k + 4, di_, "overlap", "d_keys_out overlapping d_keys_in"},
        {v, v + 64, "overlap", "d_keys_out overlapping d_indices"},
        {v + 2, di_, "aligned", "d_keys_out not aligned to the keys"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fill_bad(s);
        const rdx_status st = rdx_cuda_segmented_sort_with_indices_async(ctx, dk_, bad[i].out, 32, RDX_U32, NULL, 4,
                                                                         bad[i].idx, RDX_U32, &o, temp, tb, 0);
        (void)cudaDeviceSynchronize();
        expect_bad(st, RDX_ERR_INVALID_ARGUMENT, bad[i].needle, bad[i].what);
    }
    dev_release(temp);
    dev_release(dk_);
    dev_release(dv_);
    dev_release(di_);
}
#endif

#ifndef RDX_TEST_SEG_CUDA
/* Scratch that cannot be had: RDX_ERR_OUT_OF_MEMORY and nothing changed. */
static void out_of_memory(uint64_t *s)
{
    /* Values right after keys in memory, so that the huge values do not overlap them. */
    static unsigned char block[2 * NB * 8];
    unsigned char *keys = block, *values = block + NB * 8;
    for (size_t i = 0; i < sizeof block; i++)
        block[i] = (unsigned char)rnd(s);
    unsigned char copy[sizeof block];
    memcpy(copy, block, sizeof block);
    /* Values of SIZE_MAX / 256 bytes: no row buffer can hold 16 of them. */
    const size_t off[] = {0, 16};
    const rdx_status st = rdx_segmented_sort_pairs(ctx, keys, values, SIZE_MAX / 256, 16, RDX_U8, off, 1, NULL);
    CHECK(st == RDX_ERR_OUT_OF_MEMORY, "pairs: 16 huge values: returned %s (\"%s\")", rdx_status_string(st),
          rdx_ctx_error(ctx));
    CHECK(strstr(rdx_ctx_error(ctx), "scratch") != NULL, "pairs: 16 huge values: message \"%s\"",
          rdx_ctx_error(ctx));
    CHECK(memcmp(copy, block, sizeof block) == 0, "pairs: 16 huge values: an array changed");
    CHECK(rdx_segmented_sort_keys(ctx, keys, 16, RDX_U8, off, 1, NULL) == RDX_OK,
          "the context failed after an allocation failure: %s", rdx_ctx_error(ctx));
}
#endif

int main(void)
{
    seed = rdx_test_seed();
    uint64_t s = seed;
    sanitizer = getenv("RDX_TEST_SANITIZER") != NULL && strcmp(getenv("RDX_TEST_SANITIZER"), "1") == 0;
    half_types = getenv("RDX_TEST_SEG_HALF_TYPES") != NULL && strcmp(getenv("RDX_TEST_SEG_HALF_TYPES"), "1") == 0;
#ifdef RDX_TEST_SEG_CUDA
    ctx = rdx_test_cuda_context();
    for (int pass = 0; pass < 5; pass++) {
        if (sanitizer && pass != 0 && pass != 3)
            continue;
        /* device arrays with device offsets, device arrays with host offsets, host arrays;
         * then the stream-ordered calls (device offsets), and the same captured in a graph */
        mem = pass != 2 ? &device_memory : &rdx_test_host_memory;
        offsets_on_device = pass == 0 || pass >= 3;
        use_async = pass < 3 ? 0 : pass - 2;
        long_rows = !sanitizer && (pass == 0 || pass == 3); /* the synchronous and the stream-ordered call */
        printf("pass %d: %s arrays, %s offsets%s\n", pass, mem->name, offsets_on_device ? "device" : "host",
               use_async == 1 ? ", rdx_cuda.h" : use_async == 2 ? ", rdx_cuda.h in a CUDA graph" : "");
        fflush(stdout);
        all_cases(&s);
        if (pass < 2)
            bad_input(&s);
    }
    bad_with_indices(&s);
    /* Device offsets handed to the CPU backend: refused, keys unchanged. */
    rdx_ctx *cpu = NULL;
    size_t *doff = (size_t *)dev_alloc(2 * sizeof(size_t));
    if (rdx_ctx_create(&cpu, RDX_BACKEND_CPU) == RDX_OK && doff) {
        const size_t two[] = {0, 8};
        unsigned char k[32], k0[32];
        for (int i = 0; i < 32; i++)
            k[i] = k0[i] = (unsigned char)rnd(&s);
        dev_upload(doff, two, sizeof two);
        const rdx_status st = rdx_segmented_sort_keys(cpu, k, 8, RDX_U32, doff, 1, NULL);
        CHECK(st == RDX_ERR_INVALID_ARGUMENT && strstr(rdx_ctx_error(cpu), "offsets") != NULL,
              "CPU backend with device offsets: %s (\"%s\")", rdx_status_string(st), rdx_ctx_error(cpu));
        CHECK(memcmp(k, k0, sizeof k) == 0, "CPU backend with device offsets: keys changed");
    }
    rdx_ctx_destroy(cpu);
    if (doff)
        dev_release(doff);
#else
    if (rdx_ctx_create(&ctx, RDX_BACKEND_CPU) != RDX_OK) {
        printf("FAIL: no CPU context\n");
        return 1;
    }
    mem = &rdx_test_host_memory;
    all_cases(&s);
    bad_input(&s);
    out_of_memory(&s);
#endif
    rdx_ctx_destroy(ctx);
    printf("test_segmented: %s (%d failures, seed 0x%016" PRIx64 ")\n", failures ? "FAILED" : "passed",
           failures, seed);
    return failures ? 1 : 0;
}
