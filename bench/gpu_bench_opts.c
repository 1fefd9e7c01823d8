/* The GPU benchmark's default cases and the names of cases and distributions. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "gpu_bench.h"

/* Key types the benchmark can measure (CUB is instantiated for these only). */
static const struct { const char *name; rdx_type type; } gb_key_names[] = {
    {"u32", RDX_U32}, {"i32", RDX_I32}, {"f32", RDX_F32},
    {"u64", RDX_U64}, {"i64", RDX_I64}, {"f64", RDX_F64},
};
#define GB_NKEYS (sizeof gb_key_names / sizeof gb_key_names[0])

static const char *const gb_dist_names[RDX_GPU_NDIST] = {
    "uniform", "lowentropy", "sorted", "bucket", "equal"};

void rdx_gpu_bench_defaults(rdx_gpu_bench_opts *o, int quick)
{
    static const rdx_gpu_case cases[] = {
        {RDX_U32, 0}, {RDX_U64, 0}, {RDX_F32, 0}, {RDX_U32, 4}, {RDX_U64, 8}};
    static const int log2n[] = {16, 20, 24, 26, 28};
    size_t i;
    memset(o, 0, sizeof *o);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) o->cases[o->ncases++] = cases[i];
    for (i = 0; i < (quick ? 3u : sizeof log2n / sizeof log2n[0]); i++)
        o->sizes[o->nsizes++] = (size_t)1 << log2n[i];
    o->dists[o->ndists++] = RDX_GPU_UNIFORM;
    if (!quick) {
        o->dists[o->ndists++] = RDX_GPU_LOWENTROPY;
        o->dists[o->ndists++] = RDX_GPU_SORTED;
    }
    o->repeat = quick ? 10 : 15;
    o->warmup = 2;
    o->seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
}

int rdx_gpu_bench_parse_case(const char *name, rdx_gpu_case *c)
{
    const char *slash = strchr(name, '/');
    size_t klen = slash ? (size_t)(slash - name) : strlen(name);
    size_t i;
    for (i = 0; i < GB_NKEYS; i++)
        if (strlen(gb_key_names[i].name) == klen && strncmp(name, gb_key_names[i].name, klen) == 0)
            break;
    if (i == GB_NKEYS) return -1;
    c->key = gb_key_names[i].type;
    c->value_bytes = 0;
    if (!slash) return 0;
    /* Pairs: u32 or u64 keys with u32 or u64 values. */
    if (c->key != RDX_U32 && c->key != RDX_U64) return -1;
    if (strcmp(slash + 1, "u32") == 0) c->value_bytes = 4;
    else if (strcmp(slash + 1, "u64") == 0) c->value_bytes = 8;
    else return -1;
    return 0;
}

int rdx_gpu_bench_parse_dist(const char *name)
{
    int d;
    for (d = 0; d < RDX_GPU_NDIST; d++)
        if (strcmp(name, gb_dist_names[d]) == 0) return d;
    return -1;
}

const char *rdx_gpu_bench_dist_name(int dist)
{
    return dist >= 0 && dist < RDX_GPU_NDIST ? gb_dist_names[dist] : "?";
}

const char *rdx_gpu_bench_type_name(rdx_type t)
{
    static const char *const names[] = {"u8", "u16", "u32", "u64", "i8", "i16",
                                        "i32", "i64", "f16", "bf16", "f32", "f64"};
    return t >= RDX_U8 && t <= RDX_F64 ? names[t - RDX_U8] : "unknown";
}

void rdx_gpu_bench_case_name(const rdx_gpu_case *c, char *buf, size_t len)
{
    const char *k = rdx_gpu_bench_type_name(c->key);
    if (c->value_bytes)
        snprintf(buf, len, "%s/%s", k, c->value_bytes == 8 ? "u64" : "u32");
    else
        snprintf(buf, len, "%s", k);
}
