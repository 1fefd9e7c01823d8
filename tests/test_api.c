/* The public API's rules (DESIGN.md section 2, "Rules every entry point keeps"): each bad
 * argument gives RDX_ERR_INVALID_ARGUMENT with a message naming it, and leaves every array
 * as it was; n = 0 with NULL arrays is fine; a forced allocation failure gives
 * RDX_ERR_OUT_OF_MEMORY with the arrays untouched. Also the small functions: versions,
 * status strings, type sizes, contexts and backends.
 *
 * RDX_TEST_HAVE_CUDA (set by CMake) says whether this build has the CUDA backend. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx.h"
#include "suite.h"
#include "check.h"

#ifndef RDX_TEST_HAVE_CUDA
#define RDX_TEST_HAVE_CUDA 0
#endif


/* The arrays every call below is handed, and their contents before it. keys come first,
 * values right after them in memory (the out-of-memory case relies on that order). */
#define NBYTES 512
static struct {
    unsigned char keys[NBYTES];
    unsigned char values[NBYTES];
    unsigned char indices[NBYTES];
} arr, before;

static void refill(void)
{
    uint64_t s = seed;
    for (size_t i = 0; i < sizeof arr; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        ((unsigned char *)&arr)[i] = (unsigned char)(s >> 56);
    }
    before = arr;
}

/* The call gave `want`, a message containing `needle` (when want is an error), and left
 * every array as it was. */
static void expect(rdx_ctx *ctx, rdx_status got, rdx_status want, const char *needle,
                   const char *what)
{
    CHECK(got == want, "%s: returned %d (%s), want %d (%s); message \"%s\"", what, (int)got,
          rdx_status_string(got), (int)want, rdx_status_string(want), rdx_ctx_error(ctx));
    if (want != RDX_OK && ctx) {
        CHECK(needle == NULL || strstr(rdx_ctx_error(ctx), needle) != NULL,
              "%s: message \"%s\" does not name \"%s\"", what, rdx_ctx_error(ctx), needle);
        CHECK(rdx_ctx_error(ctx)[0] != '\0', "%s: no message", what);
    }
    if (want != RDX_OK)
        CHECK(memcmp(&arr, &before, sizeof arr) == 0, "%s: an array changed although the call failed",
              what);
    refill();
}

static void versions_and_names(void)
{
    CHECK(rdx_version_number() ==
              RDX_VERSION_MAJOR * 10000u + RDX_VERSION_MINOR * 100u + RDX_VERSION_PATCH,
          "rdx_version_number() = %u", rdx_version_number());
    char v[64];
    snprintf(v, sizeof v, "%d.%d.%d", RDX_VERSION_MAJOR, RDX_VERSION_MINOR, RDX_VERSION_PATCH);
    CHECK(rdx_version_string() && strcmp(rdx_version_string(), v) == 0,
          "rdx_version_string() = \"%s\", want \"%s\"",
          rdx_version_string() ? rdx_version_string() : "(null)", v);

    const rdx_status all[] = {RDX_OK, RDX_ERR_INVALID_ARGUMENT, RDX_ERR_UNSUPPORTED,
                              RDX_ERR_OUT_OF_MEMORY, RDX_ERR_NO_DEVICE, RDX_ERR_DEVICE,
                              RDX_ERR_TEMP_TOO_SMALL, RDX_ERR_INTERNAL};
    for (int i = 0; i < 8; i++) {
        const char *s = rdx_status_string(all[i]);
        CHECK(s && s[0], "rdx_status_string(%d) is empty", (int)all[i]);
        for (int j = 0; j < i && s; j++)
            CHECK(strcmp(s, rdx_status_string(all[j])) != 0, "statuses %d and %d share a name",
                  (int)all[i], (int)all[j]);
    }
    CHECK(rdx_status_string((rdx_status)999) != NULL, "rdx_status_string(999) is NULL");
    CHECK(rdx_status_string((rdx_status)-1) != NULL, "rdx_status_string(-1) is NULL");

    const struct {
        rdx_type t;
        size_t size;
    } sizes[] = {{RDX_U8, 1},  {RDX_U16, 2},  {RDX_U32, 4}, {RDX_U64, 8},
                 {RDX_I8, 1},  {RDX_I16, 2},  {RDX_I32, 4}, {RDX_I64, 8},
                 {RDX_F16, 2}, {RDX_BF16, 2}, {RDX_F32, 4}, {RDX_F64, 8}};
    for (int i = 0; i < 12; i++)
        CHECK(rdx_type_size(sizes[i].t) == sizes[i].size, "rdx_type_size(%d) = %zu, want %zu",
              (int)sizes[i].t, rdx_type_size(sizes[i].t), sizes[i].size);
    const int bad[] = {0, 13, -1, 999};
    for (int i = 0; i < 4; i++)
        CHECK(rdx_type_size((rdx_type)bad[i]) == 0, "rdx_type_size(%d) is not 0", bad[i]);
}

static void contexts(void)
{
    rdx_ctx *ctx = (rdx_ctx *)&arr; /* must be set to NULL on failure */
    CHECK(rdx_ctx_create(NULL, RDX_BACKEND_CPU) == RDX_ERR_INVALID_ARGUMENT, "NULL out accepted");
    const int bad[] = {3, -1, 99};
    for (int i = 0; i < 3; i++) {
        ctx = (rdx_ctx *)&arr;
        CHECK(rdx_ctx_create(&ctx, (rdx_backend)bad[i]) == RDX_ERR_INVALID_ARGUMENT,
              "backend %d accepted", bad[i]);
        CHECK(ctx == NULL, "backend %d: *out not set to NULL", bad[i]);
    }
    CHECK(strcmp(rdx_ctx_error(NULL), "") == 0, "rdx_ctx_error(NULL) is not \"\"");
    rdx_ctx_destroy(NULL);

    CHECK(rdx_ctx_create(&ctx, RDX_BACKEND_CPU) == RDX_OK, "no CPU context");
    CHECK(ctx && rdx_ctx_backend(ctx) == RDX_BACKEND_CPU, "CPU context has another backend");
    CHECK(ctx && strcmp(rdx_ctx_error(ctx), "") == 0, "a fresh context has an error message");
    /* The route report: "" before any sort, "cpu" after one, unchanged by a failed call
     * and by a sort of 0 keys. */
    CHECK(strcmp(rdx_ctx_route(NULL), "") == 0, "rdx_ctx_route(NULL) is not \"\"");
    CHECK(ctx && strcmp(rdx_ctx_route(ctx), "") == 0, "a fresh context names route \"%s\"", rdx_ctx_route(ctx));
    uint32_t few[3] = {3, 1, 2};
    CHECK(rdx_sort_keys(ctx, few, 0, RDX_U32, NULL) == RDX_OK && strcmp(rdx_ctx_route(ctx), "") == 0,
          "a sort of 0 keys named route \"%s\"", rdx_ctx_route(ctx));
    CHECK(rdx_sort_keys(ctx, few, 3, RDX_U32, NULL) == RDX_OK && strcmp(rdx_ctx_route(ctx), "cpu") == 0,
          "after a CPU sort the route is \"%s\"", rdx_ctx_route(ctx));
    CHECK(rdx_sort_keys(ctx, NULL, 3, RDX_U32, NULL) == RDX_ERR_INVALID_ARGUMENT &&
              strcmp(rdx_ctx_route(ctx), "cpu") == 0,
          "a failed call changed the route to \"%s\"", rdx_ctx_route(ctx));
    rdx_ctx_destroy(ctx);

    /* AUTO picks CUDA exactly when a GPU is usable; the CUDA backend answers accordingly. */
    rdx_ctx *autoc = NULL, *cuda = (rdx_ctx *)&arr;
    CHECK(rdx_ctx_create(&autoc, RDX_BACKEND_AUTO) == RDX_OK, "no AUTO context");
    const rdx_backend chosen = autoc ? rdx_ctx_backend(autoc) : RDX_BACKEND_AUTO;
    CHECK(chosen == RDX_BACKEND_CPU || chosen == RDX_BACKEND_CUDA, "AUTO context uses backend %d",
          (int)chosen);
    const rdx_status s = rdx_ctx_create(&cuda, RDX_BACKEND_CUDA);
    if (!RDX_TEST_HAVE_CUDA)
        CHECK(s == RDX_ERR_UNSUPPORTED && chosen == RDX_BACKEND_CPU,
              "build without CUDA: CUDA context gave %s, AUTO chose %d", rdx_status_string(s),
              (int)chosen);
    else if (chosen == RDX_BACKEND_CUDA)
        CHECK(s == RDX_OK, "AUTO found a GPU but a CUDA context failed: %s", rdx_status_string(s));
    else
        CHECK(s == RDX_ERR_NO_DEVICE, "CUDA build, no GPU: CUDA context gave %s, want %s",
              rdx_status_string(s), rdx_status_string(RDX_ERR_NO_DEVICE));
    CHECK((s == RDX_OK) == (cuda != NULL), "CUDA context: *out does not match the status");
    rdx_ctx_destroy(cuda);
    rdx_ctx_destroy(autoc);
}

/* The rules every entry point shares, tried on each of the three. */
typedef struct common_rule {
    rdx_type type;
    rdx_opts opts;
    const char *needle;
    const char *what;
} common_rule;

static const common_rule common_rules[] = {
    {(rdx_type)0, {0, 0, 0, 0}, "type", "type 0"},
    {(rdx_type)13, {0, 0, 0, 0}, "type", "type 13"},
    {(rdx_type)-1, {0, 0, 0, 0}, "type", "type -1"},
    {RDX_U32, {0, -1, 0, 0}, "begin_bit", "begin_bit < 0"},
    {RDX_U32, {0, 8, 8, 0}, "begin_bit", "begin_bit == end_bit"},
    {RDX_U32, {0, 9, 4, 0}, "begin_bit", "begin_bit > end_bit"},
    {RDX_U32, {0, 32, 0, 0}, "begin_bit", "begin_bit == width (end_bit 0)"},
    {RDX_U32, {0, 0, 33, 0}, "end_bit", "end_bit past 32 bits"},
    {RDX_U8, {0, 0, 9, 0}, "end_bit", "end_bit past 8 bits"},
    {RDX_F64, {0, 0, 65, 0}, "end_bit", "end_bit past 64 bits"},
    {RDX_U32, {0, 0, -1, 0}, "end_bit", "end_bit < 0"},
    {RDX_U32, {0, 0, 0, -1}, "radix_bits", "radix_bits -1"},
    {RDX_U32, {0, 0, 0, 9}, "radix_bits", "radix_bits 9"},
    {RDX_U32, {8u, 0, 0, 0}, "flags", "flag bit 3"},
    {RDX_U32, {RDX_DESCENDING | 0x80000000u, 0, 0, 0}, "flags", "flag bit 31"},
};

static void bad_arguments(void)
{
    rdx_ctx *ctx;
    if (rdx_ctx_create(&ctx, RDX_BACKEND_CPU) != RDX_OK) {
        CHECK(0, "no CPU context");
        return;
    }
    const size_t n = 16; /* 16 keys of up to 8 bytes fit the arrays */
    char what[160];
    refill();

    /* No context. */
    expect(NULL, rdx_sort_keys(NULL, arr.keys, n, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, NULL,
           "keys: NULL ctx");
    expect(NULL, rdx_sort_pairs(NULL, arr.keys, arr.values, 4, n, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, NULL, "pairs: NULL ctx");
    expect(NULL, rdx_argsort(NULL, arr.keys, n, RDX_U32, arr.indices, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, NULL, "argsort: NULL ctx");

    for (size_t i = 0; i < sizeof common_rules / sizeof common_rules[0]; i++) {
        const common_rule *r = &common_rules[i];
        snprintf(what, sizeof what, "keys: %s", r->what);
        expect(ctx, rdx_sort_keys(ctx, arr.keys, n, r->type, &r->opts), RDX_ERR_INVALID_ARGUMENT,
               r->needle, what);
        snprintf(what, sizeof what, "pairs: %s", r->what);
        expect(ctx, rdx_sort_pairs(ctx, arr.keys, arr.values, 4, n, r->type, &r->opts),
               RDX_ERR_INVALID_ARGUMENT, r->needle, what);
        snprintf(what, sizeof what, "argsort: %s", r->what);
        expect(ctx, rdx_argsort(ctx, arr.keys, n, r->type, arr.indices, RDX_U64, &r->opts),
               RDX_ERR_INVALID_ARGUMENT, r->needle, what);
    }

    /* NULL arrays with n > 0. */
    expect(ctx, rdx_sort_keys(ctx, NULL, n, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT, "keys",
           "keys: NULL keys");
    expect(ctx, rdx_sort_pairs(ctx, NULL, arr.values, 4, n, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "keys", "pairs: NULL keys");
    expect(ctx, rdx_sort_pairs(ctx, arr.keys, NULL, 4, n, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "values", "pairs: NULL values");
    expect(ctx, rdx_argsort(ctx, NULL, n, RDX_U32, arr.indices, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "keys", "argsort: NULL keys");
    expect(ctx, rdx_argsort(ctx, arr.keys, n, RDX_U32, NULL, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "indices", "argsort: NULL indices");

    /* value_size 0, also with n = 0. */
    expect(ctx, rdx_sort_pairs(ctx, arr.keys, arr.values, 0, n, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "value_size", "pairs: value_size 0");
    expect(ctx, rdx_sort_pairs(ctx, NULL, NULL, 0, 0, RDX_U32, NULL), RDX_ERR_INVALID_ARGUMENT,
           "value_size", "pairs: value_size 0, n = 0");

    /* Index types. */
    const int bad_index[] = {0, RDX_I32, RDX_U16, RDX_I64, RDX_F32, 99};
    for (int i = 0; i < 6; i++) {
        snprintf(what, sizeof what, "argsort: index_type %d", bad_index[i]);
        expect(ctx, rdx_argsort(ctx, arr.keys, n, RDX_U32, arr.indices, (rdx_type)bad_index[i], NULL),
               RDX_ERR_INVALID_ARGUMENT, "index_type", what);
    }

    /* Overlaps: any shared byte. */
    expect(ctx, rdx_sort_pairs(ctx, arr.keys, arr.keys, 4, n, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "overlap", "pairs: values == keys");
    expect(ctx, rdx_sort_pairs(ctx, arr.keys, arr.keys + 4 * n - 1, 4, n, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "overlap", "pairs: values start on the last key byte");
    expect(ctx, rdx_sort_pairs(ctx, arr.keys + 8, arr.keys, 8, n, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "overlap", "pairs: keys start inside values");
    expect(ctx, rdx_argsort(ctx, arr.keys, n, RDX_U64, arr.keys + 8, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "overlap", "argsort: indices inside keys");
    expect(ctx, rdx_argsort(ctx, arr.keys + 100, n, RDX_U8, arr.keys, RDX_U64, NULL),
           RDX_ERR_INVALID_ARGUMENT, "overlap", "argsort: keys inside indices");

    /* Sizes that cannot exist. The check comes before any access, so small real arrays
     * stand in for the huge ones. */
    expect(ctx, rdx_sort_keys(ctx, arr.keys, SIZE_MAX / 2, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "n =", "keys: n * 4 bytes overflow");
    expect(ctx, rdx_sort_pairs(ctx, arr.keys, arr.values, SIZE_MAX / 4, n, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, "values", "pairs: n * value_size overflows");
#if SIZE_MAX > UINT32_MAX
    expect(ctx, rdx_argsort(ctx, arr.keys, (size_t)UINT32_MAX + 2, RDX_U8, arr.indices, RDX_U32,
                            NULL),
           RDX_ERR_INVALID_ARGUMENT, "RDX_U32", "argsort: u32 indices for n = 2^32 + 1");
#endif

    /* n = 0 with NULL arrays is fine, and a success clears the last message. */
    CHECK(rdx_sort_keys(ctx, NULL, 0, RDX_U32, NULL) == RDX_OK, "keys: n = 0 with NULL failed");
    CHECK(strcmp(rdx_ctx_error(ctx), "") == 0, "message left after a successful call: \"%s\"",
          rdx_ctx_error(ctx));
    CHECK(rdx_sort_pairs(ctx, NULL, NULL, 4, 0, RDX_U64, NULL) == RDX_OK,
          "pairs: n = 0 with NULL failed");
    CHECK(rdx_argsort(ctx, NULL, 0, RDX_F32, NULL, RDX_U64, NULL) == RDX_OK,
          "argsort: n = 0 with NULL failed");
    /* The version 0.2 flags are accepted by every entry point, on floats and integers. */
    const rdx_opts np = {RDX_DESCENDING | RDX_NUMPY_ORDER | RDX_LOW_MEMORY, 0, 0, 0};
    CHECK(rdx_sort_keys(ctx, arr.keys, n, RDX_F32, &np) == RDX_OK, "keys: 0.2 flags refused: %s",
          rdx_ctx_error(ctx));
    CHECK(rdx_sort_pairs(ctx, arr.keys, arr.values, 4, n, RDX_I16, &np) == RDX_OK,
          "pairs: 0.2 flags refused: %s", rdx_ctx_error(ctx));
    CHECK(rdx_argsort(ctx, arr.keys, n, RDX_F64, arr.indices, RDX_U32, &np) == RDX_OK,
          "argsort: 0.2 flags refused: %s", rdx_ctx_error(ctx));
    CHECK(rdx_segmented_sort_keys(ctx, arr.keys, n, RDX_F16, NULL, 4, &np) == RDX_OK,
          "segmented keys: 0.2 flags refused: %s", rdx_ctx_error(ctx));
    refill();
    /* The segmented calls: a NULL context, and the common rules (test_segmented.c has the
     * segment rules). */
    expect(NULL, rdx_segmented_sort_keys(NULL, arr.keys, n, RDX_U32, NULL, 1, NULL),
           RDX_ERR_INVALID_ARGUMENT, NULL, "segmented keys: NULL ctx");
    expect(NULL, rdx_segmented_sort_pairs(NULL, arr.keys, arr.values, 4, n, RDX_U32, NULL, 1, NULL),
           RDX_ERR_INVALID_ARGUMENT, NULL, "segmented pairs: NULL ctx");
    expect(NULL, rdx_segmented_argsort(NULL, arr.keys, n, RDX_U32, NULL, 1, arr.indices, RDX_U32, NULL),
           RDX_ERR_INVALID_ARGUMENT, NULL, "segmented argsort: NULL ctx");
    for (size_t i = 0; i < sizeof common_rules / sizeof common_rules[0]; i++) {
        const common_rule *r = &common_rules[i];
        snprintf(what, sizeof what, "segmented keys: %s", r->what);
        expect(ctx, rdx_segmented_sort_keys(ctx, arr.keys, n, r->type, NULL, 2, &r->opts),
               RDX_ERR_INVALID_ARGUMENT, r->needle, what);
        snprintf(what, sizeof what, "segmented pairs: %s", r->what);
        expect(ctx, rdx_segmented_sort_pairs(ctx, arr.keys, arr.values, 4, n, r->type, NULL, 2, &r->opts),
               RDX_ERR_INVALID_ARGUMENT, r->needle, what);
        snprintf(what, sizeof what, "segmented argsort: %s", r->what);
        expect(ctx, rdx_segmented_argsort(ctx, arr.keys, n, r->type, NULL, 2, arr.indices, RDX_U64, &r->opts),
               RDX_ERR_INVALID_ARGUMENT, r->needle, what);
    }
    const rdx_opts full = {RDX_DESCENDING, 0, 32, 8};
    CHECK(rdx_sort_keys(ctx, arr.keys, n, RDX_U32, &full) == RDX_OK,
          "keys: end_bit == width refused: %s", rdx_ctx_error(ctx));
    rdx_ctx_destroy(ctx);
}

/* Scratch that cannot be had: RDX_ERR_OUT_OF_MEMORY, a message, and nothing touched (the
 * backend allocates before it reads: the arrays are far smaller than n says, so a read
 * would also be caught by the sanitizer build). */
static void out_of_memory(void)
{
    rdx_ctx *ctx;
    if (rdx_ctx_create(&ctx, RDX_BACKEND_CPU) != RDX_OK) {
        CHECK(0, "no CPU context");
        return;
    }
    refill();
    /* SIZE_MAX / 8 one-byte keys pass the size checks; their scratch exceeds any address
     * space. */
    expect(ctx, rdx_sort_keys(ctx, arr.keys, SIZE_MAX / 8, RDX_U8, NULL), RDX_ERR_OUT_OF_MEMORY,
           "scratch", "keys: SIZE_MAX / 8 u8 keys");
    /* Values of SIZE_MAX / 256 bytes: their gathering copy cannot be had (values lie after
     * keys in memory, so the arrays do not overlap). Both the insertion-sort and the
     * radix paths. */
    expect(ctx, rdx_sort_pairs(ctx, arr.keys, arr.values, SIZE_MAX / 256, 16, RDX_U8, NULL),
           RDX_ERR_OUT_OF_MEMORY, "scratch", "pairs: 16 huge values");
    expect(ctx, rdx_sort_pairs(ctx, arr.keys, arr.values, SIZE_MAX / 256, 200, RDX_U8, NULL),
           RDX_ERR_OUT_OF_MEMORY, "scratch", "pairs: 200 huge values");
    /* The context still works afterwards. */
    CHECK(rdx_sort_keys(ctx, arr.keys, 100, RDX_U16, NULL) == RDX_OK,
          "the context failed after an allocation failure: %s", rdx_ctx_error(ctx));
    rdx_ctx_destroy(ctx);
}

int main(void)
{
    seed = rdx_test_seed();
    versions_and_names();
    contexts();
    bad_arguments();
    out_of_memory();
    printf("test_api: %s (%d failures, seed 0x%016" PRIx64 ")\n", failures ? "FAILED" : "passed",
           failures, seed);
    return failures ? 1 : 0;
}
