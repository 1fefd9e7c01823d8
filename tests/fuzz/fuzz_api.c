/* Fuzz target: the library's argument checks and small sorts on the CPU backend, through
 * rdx_sort_keys, rdx_sort_pairs, rdx_argsort and their segmented forms. Input: choices of
 * entry point, type (any int, valid or not), n (0..80), options (NULL or any flags, bit
 * range and radix_bits), value size, index type, NULL and overlapping arrays, segments
 * (NULL offsets with any count, or up to 8 offsets, sorted or not, some past n), then the
 * keys' bytes.
 * A call that fails must return a documented status with a message and change no array; one
 * that succeeds must match the stable reference (tests/reference.c). */
#include <string.h>

#include "fuzz_input.h"
#include "rdx.h"
#include "reference.h"

#define FUZZ_MAX_N 80
#define FUZZ_MAX_VALUE 16
/* keys, values and indices live in one arena, so that the input can make them overlap */
#define FUZZ_ARENA (3 * FUZZ_MAX_N * (FUZZ_MAX_VALUE + 8))

static rdx_ctx *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    FUZZ_CHECK(rdx_ctx_create(&ctx, RDX_BACKEND_CPU) == RDX_OK);
    return 0;
}

#define FUZZ_MAX_SEGMENTS 8

/* Checks keys[lo, hi) (and its values or indices) against the stable reference; argsort
 * indices count from lo, as the segmented argsort's do. */
static void check_result(int kind, const unsigned char *keys0, const unsigned char *keys,
                         const unsigned char *vals0, const unsigned char *vals, size_t vsize,
                         const unsigned char *idx, rdx_type itype, size_t lo, size_t hi,
                         rdx_type t, const rdx_opts *opts)
{
    const size_t ks = rdx_type_size(t);
    const size_t is = rdx_type_size(itype);
    size_t perm[FUZZ_MAX_N];
    keys0 += lo * ks;
    keys += lo * ks;
    vals0 += lo * vsize;
    vals += lo * vsize;
    idx += lo * is;
    const size_t n = hi - lo;
    FUZZ_CHECK(rdx_ref_argsort(keys0, n, t, opts, perm) == 0);
    for (size_t i = 0; i < n; i++) {
        if (kind == 2) {
            uint64_t v = 0;
            memcpy(&v, idx + i * is, is);
            FUZZ_CHECK(v == perm[i]);
        } else {
            FUZZ_CHECK(memcmp(keys + i * ks, keys0 + perm[i] * ks, ks) == 0);
            if (kind == 1)
                FUZZ_CHECK(memcmp(vals + i * vsize, vals0 + perm[i] * vsize, vsize) == 0);
        }
    }
    if (kind == 2)
        FUZZ_CHECK(memcmp(keys, keys0, n * ks) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char arena[FUZZ_ARENA], before[FUZZ_ARENA];
    fuzz_input in = {data, size};
    const int kind = take_u8(&in) % 3;
    const uint8_t tb = take_u8(&in);
    /* mostly valid types, sometimes anything */
    const rdx_type t = tb < 200 ? (rdx_type)(RDX_U8 + tb % 12) : (rdx_type)((int8_t)tb * 1000003);
    const size_t n = take_u8(&in) % (FUZZ_MAX_N + 1);
    const uint8_t how = take_u8(&in);
    rdx_opts o;
    o.flags = take_u8(&in) % 3 == 2 ? take_u8(&in) : (how >> 4) & 1u;
    o.begin_bit = (int8_t)take_u8(&in) % 72;
    o.end_bit = (int8_t)take_u8(&in) % 72;
    o.radix_bits = (int8_t)take_u8(&in) % 11;
    const rdx_opts *opts = how & 1 ? NULL : &o;
    const size_t vsize = take_u8(&in) % (FUZZ_MAX_VALUE + 1);
    /* segments (when how & 128): NULL offsets (equal rows) or num_segments + 1 offsets in
     * [0, n + 2], sorted unless the input says otherwise */
    const int segmented = (how & 128) != 0;
    size_t offsets[FUZZ_MAX_SEGMENTS + 1];
    const size_t *offs = NULL;
    size_t nseg = 0;
    if (segmented) {
        const uint8_t sb = take_u8(&in);
        nseg = sb % (FUZZ_MAX_SEGMENTS + 1);
        if (sb & 16) {
            for (size_t s = 0; s <= nseg; s++)
                offsets[s] = take_u8(&in) % (n + 3);
            if (!(sb & 32)) /* insertion sort: valid unless an offset is past n */
                for (size_t i = 1; i <= nseg; i++)
                    for (size_t j = i; j > 0 && offsets[j - 1] > offsets[j]; j--) {
                        const size_t tmp = offsets[j];
                        offsets[j] = offsets[j - 1];
                        offsets[j - 1] = tmp;
                    }
            offs = offsets;
        }
    }
    const uint8_t ib = take_u8(&in);
    const rdx_type itype = ib % 4 == 0 ? RDX_U32 : ib % 4 == 1 ? RDX_U64 : (rdx_type)(ib - 2);
    /* where the arrays start in the arena: apart, or anywhere (overlapping) */
    size_t koff = 0, voff = FUZZ_MAX_N * 8, ioff = FUZZ_MAX_N * (8 + FUZZ_MAX_VALUE);
    if (how & 2) {
        voff = take_u16(&in) % (FUZZ_MAX_N * 8);
        ioff = take_u16(&in) % (FUZZ_MAX_N * 8);
    }
    /* The small helpers and context creation with any value. */
    const int any = (int8_t)take_u8(&in);
    FUZZ_CHECK(rdx_status_string((rdx_status)any) != NULL);
    FUZZ_CHECK(rdx_type_size((rdx_type)any) == 0 || (any >= RDX_U8 && any <= RDX_F64));
    if (any < RDX_BACKEND_AUTO || any > RDX_BACKEND_CUDA) {
        rdx_ctx *other = (rdx_ctx *)&other;
        FUZZ_CHECK(rdx_ctx_create(&other, (rdx_backend)any) == RDX_ERR_INVALID_ARGUMENT && other == NULL);
    }
    size_t got;
    const uint8_t *bytes = take_bytes(&in, sizeof arena, &got);
    memset(arena, 0xa5, sizeof arena);
    memcpy(arena, bytes, got);
    memcpy(before, arena, sizeof arena);

    void *keys = how & 4 ? NULL : arena + koff;
    void *vals = how & 8 ? NULL : arena + voff;
    void *idx = how & 32 ? NULL : arena + ioff;
    rdx_ctx *c = how & 64 ? NULL : ctx;
    rdx_status s;
    if (segmented && kind == 0)
        s = rdx_segmented_sort_keys(c, keys, n, t, offs, nseg, opts);
    else if (segmented && kind == 1)
        s = rdx_segmented_sort_pairs(c, keys, vals, vsize, n, t, offs, nseg, opts);
    else if (segmented)
        s = rdx_segmented_argsort(c, keys, n, t, offs, nseg, idx, itype, opts);
    else if (kind == 0)
        s = rdx_sort_keys(c, keys, n, t, opts);
    else if (kind == 1)
        s = rdx_sort_pairs(c, keys, vals, vsize, n, t, opts);
    else
        s = rdx_argsort(c, keys, n, t, idx, itype, opts);

    FUZZ_CHECK(rdx_ctx_error(c) != NULL);
    if (s != RDX_OK) {
        FUZZ_CHECK(s == RDX_ERR_INVALID_ARGUMENT);
        FUZZ_CHECK(memcmp(arena, before, sizeof arena) == 0);
        if (c)
            FUZZ_CHECK(rdx_ctx_error(c)[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(rdx_ctx_error(c)[0] == '\0');
    FUZZ_CHECK(c != NULL && rdx_type_size(t) != 0);
    if (n == 0) {
        FUZZ_CHECK(memcmp(arena, before, sizeof arena) == 0);
        return 0;
    }
    /* the segments that were sorted: the whole array, equal rows, or the offsets' ranges
     * (which a successful call has checked: non-decreasing, at most n) */
    size_t bounds[FUZZ_MAX_SEGMENTS + 1], nb = 1;
    bounds[0] = 0;
    bounds[1] = n;
    if (segmented && offs) {
        for (size_t s = 0; s < nseg; s++)
            FUZZ_CHECK(offs[s] <= offs[s + 1] && offs[s + 1] <= n);
        memcpy(bounds, offs, (nseg + 1) * sizeof *offs);
        nb = nseg;
    } else if (segmented) {
        FUZZ_CHECK(nseg > 0 && n % nseg == 0);
        for (size_t s = 0; s <= nseg; s++)
            bounds[s] = s * (n / nseg);
        nb = nseg;
    }
    const size_t ks = rdx_type_size(t);
    const size_t is = rdx_type_size(itype);
    for (size_t s = 0; s < nb; s++) {
        if (bounds[s] == bounds[s + 1])
            continue;
        check_result(kind, before + koff, arena + koff, before + voff, arena + voff, vsize,
                     arena + ioff, itype, bounds[s], bounds[s + 1], t, opts);
        /* nothing outside the written array(s) changed */
        const size_t lo = bounds[s], len = bounds[s + 1] - lo;
        if (kind != 2)
            memcpy(before + koff + lo * ks, arena + koff + lo * ks, len * ks);
        if (kind == 1)
            memcpy(before + voff + lo * vsize, arena + voff + lo * vsize, len * vsize);
        if (kind == 2)
            memcpy(before + ioff + lo * is, arena + ioff + lo * is, len * is);
    }
    FUZZ_CHECK(memcmp(arena, before, sizeof arena) == 0);
    return 0;
}
