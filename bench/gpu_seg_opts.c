/* The segmented benchmark's cases, shapes and defaults (gpu_seg.h). */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "gpu_seg.h"

/* The cases CUB is built for (gpu_seg_cub.cu), in the table's order: values as wide as
 * the keys' unsigned image (u32 for u32 and f32 keys, u64 for u64 keys). */
static const rdx_gpu_case gs_all_cases[] = {
    {RDX_U32, 0}, {RDX_F32, 0}, {RDX_U64, 0}, {RDX_U32, 4}, {RDX_F32, 4}, {RDX_U64, 8}};
#define GS_NCASES (sizeof gs_all_cases / sizeof gs_all_cases[0])

#define GS_ROWS(r, c) {RDX_GS_ROWS, (size_t)(r), (size_t)(c)}
static const rdx_gs_shape gs_full_shapes[] = {
    GS_ROWS(65536, 32), GS_ROWS(16384, 128), GS_ROWS(4096, 1024), GS_ROWS(1024, 16384),
    GS_ROWS(64, 1 << 20), GS_ROWS(4, 1 << 24), {RDX_GS_POWERLAW, 0, 0}, {RDX_GS_HUGE_TINY, 0, 0},
    /* between the shapes: segments that fill a bin in part (below CUB until round 18) */
    GS_ROWS(8192, 2048), GS_ROWS(4096, 3000)};
static const rdx_gs_shape gs_quick_shapes[] = {
    GS_ROWS(4096, 1024), GS_ROWS(65536, 32), GS_ROWS(64, 1 << 20), {RDX_GS_POWERLAW, 0, 0}};
#undef GS_ROWS

void rdx_gpu_seg_defaults(rdx_gpu_seg_opts *o, int quick)
{
    size_t i;
    memset(o, 0, sizeof *o);
    if (quick) {
        o->cases[o->ncases++] = gs_all_cases[0]; /* u32 */
        o->cases[o->ncases++] = gs_all_cases[3]; /* u32/u32 */
        for (i = 0; i < sizeof gs_quick_shapes / sizeof gs_quick_shapes[0]; i++)
            o->shapes[o->nshapes++] = gs_quick_shapes[i];
    } else {
        for (i = 0; i < GS_NCASES; i++) o->cases[o->ncases++] = gs_all_cases[i];
        for (i = 0; i < sizeof gs_full_shapes / sizeof gs_full_shapes[0]; i++)
            o->shapes[o->nshapes++] = gs_full_shapes[i];
    }
    o->repeat = RDX_GS_REPEAT;
    o->warmup = RDX_GS_WARMUP;
    o->seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
}

int rdx_gpu_seg_parse_case(const char *name, rdx_gpu_case *c)
{
    size_t i;
    for (i = 0; i < GS_NCASES; i++) {
        char buf[32];
        rdx_gpu_bench_case_name(&gs_all_cases[i], buf, sizeof buf);
        if (strcmp(name, buf) == 0) {
            *c = gs_all_cases[i];
            return 0;
        }
    }
    return -1;
}

/* A count, or 2^k (k <= 40), from s[0..len); 0 for anything else. */
static size_t gs_parse_count(const char *s, size_t len)
{
    char buf[32], *end;
    unsigned long long v;
    int pow2 = len > 2 && s[0] == '2' && s[1] == '^';
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, s + (pow2 ? 2 : 0), len - (pow2 ? 2 : 0));
    buf[len - (pow2 ? 2 : 0)] = '\0';
    if (buf[0] < '0' || buf[0] > '9') return 0;
    errno = 0;
    v = strtoull(buf, &end, 10);
    if (errno || *end) return 0;
    if (pow2) return v <= 40 ? (size_t)1 << v : 0;
    return (size_t)v;
}

int rdx_gpu_seg_parse_shape(const char *name, rdx_gs_shape *s)
{
    const char *x = strchr(name, 'x');
    memset(s, 0, sizeof *s);
    if (strcmp(name, "powerlaw") == 0) { s->kind = RDX_GS_POWERLAW; return 0; }
    if (strcmp(name, "huge+tiny") == 0) { s->kind = RDX_GS_HUGE_TINY; return 0; }
    if (!x) return -1;
    s->kind = RDX_GS_ROWS;
    s->rows = gs_parse_count(name, (size_t)(x - name));
    s->cols = gs_parse_count(x + 1, strlen(x + 1));
    /* rows * cols must not overflow (the run skips what does not fit) */
    return s->rows && s->cols && s->rows <= ((size_t)1 << 40) / s->cols ? 0 : -1;
}

/* cols as 2^k from 2^20 on (64x2^20), else as a count (4096x1024). */
void rdx_gpu_seg_shape_name(const rdx_gs_shape *s, char *buf, size_t len)
{
    int k = 0;
    if (s->kind == RDX_GS_POWERLAW) { snprintf(buf, len, "powerlaw"); return; }
    if (s->kind == RDX_GS_HUGE_TINY) { snprintf(buf, len, "huge+tiny"); return; }
    while (k < 63 && ((size_t)1 << k) < s->cols) k++;
    if (s->cols >= ((size_t)1 << 20) && s->cols == ((size_t)1 << k)) snprintf(buf, len, "%zux2^%d", s->rows, k);
    else snprintf(buf, len, "%zux%zu", s->rows, s->cols);
}
