/* The matrix benchmark's cases, distribution names and defaults (gpu_matrix.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "gpu_bench.h"
#include "gpu_matrix.h"
#include "gpu_matrix_gen.h"

/* The cases, in the table's order. */
static const rdx_gm_case gm_all_cases[] = {
    {RDX_U8, 0, 0},  {RDX_U16, 0, 0}, {RDX_U32, 0, 0}, {RDX_I32, 0, 0}, {RDX_F32, 0, 0},
    {RDX_U64, 0, 0}, {RDX_I64, 0, 0}, {RDX_F64, 0, 0}, {RDX_U32, 4, 0}, {RDX_U64, 4, 0},
    {RDX_U64, 8, 0}, {RDX_U32, 4, 1}, {RDX_U32, 8, 1}};
#define GM_NCASES (sizeof gm_all_cases / sizeof gm_all_cases[0])

void rdx_gpu_matrix_defaults(rdx_gpu_matrix_opts *o, int quick)
{
    static const int quick_log2[] = RDX_GM_QUICK_LOG2;
    size_t i;
    memset(o, 0, sizeof *o);
    for (i = 0; i < GM_NCASES; i++) o->cases[o->ncases++] = gm_all_cases[i];
    for (i = 0; i < GM_NDIST; i++) o->dists[o->ndists++] = (int)i;
    if (quick)
        for (i = 0; i < sizeof quick_log2 / sizeof quick_log2[0]; i++)
            o->sizes[o->nsizes++] = (size_t)1 << quick_log2[i];
    o->min_log2 = RDX_GM_MIN_LOG2;
    o->max_log2 = RDX_GM_MAX_LOG2;
    o->repeat = RDX_GM_REPEAT;
    o->warmup = RDX_GM_WARMUP;
    o->big_log2 = RDX_GM_BIG_LOG2;
    o->big_repeat = RDX_GM_BIG_REPEAT;
    o->big_warmup = RDX_GM_BIG_WARMUP;
    o->seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
}

int rdx_gpu_matrix_parse_case(const char *name, rdx_gm_case *c)
{
    size_t i;
    for (i = 0; i < GM_NCASES; i++) {
        char buf[32];
        rdx_gpu_matrix_case_name(&gm_all_cases[i], buf, sizeof buf);
        if (strcmp(name, buf) == 0) {
            *c = gm_all_cases[i];
            return 0;
        }
    }
    if (strcmp(name, "u32/u64") == 0) { /* CUB is built for it too (gpu_bench_peers.cu) */
        c->key = RDX_U32;
        c->value_bytes = 8;
        c->argsort = 0;
        return 0;
    }
    return -1;
}

void rdx_gpu_matrix_case_name(const rdx_gm_case *c, char *buf, size_t len)
{
    const char *v = c->value_bytes == 8 ? "u64" : "u32";
    if (c->argsort) snprintf(buf, len, "argsort/%s", v); /* u32 keys to indices of this type */
    else if (c->value_bytes) snprintf(buf, len, "%s/%s", rdx_gpu_bench_type_name(c->key), v);
    else snprintf(buf, len, "%s", rdx_gpu_bench_type_name(c->key));
}

int rdx_gpu_matrix_parse_dist(const char *name)
{
    int d;
    for (d = 0; d < GM_NDIST; d++)
        if (strcmp(name, gm_dist_name(d)) == 0) return d;
    return -1;
}

const char *rdx_gpu_matrix_dist_name(int dist)
{
    return gm_dist_name(dist);
}
