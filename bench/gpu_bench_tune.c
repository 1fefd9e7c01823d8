/* rdx-gpu-bench --tune (gpu_bench_tune.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_bench_tune.h"
#include "cuda/test_hooks.h"

/* Every limit of rdx_cuda_tuning that a route's choice reads (a count of keys; of sampled
 * keys for msd_pairs_repeats). */
static const struct {
    const char *name;
    size_t offset;
} tune_fields[] = {
#define TUNE_FIELD(f) {#f, offsetof(rdx_cuda_tuning, f)}
    TUNE_FIELD(medium_max_n),    TUNE_FIELD(mid_max_n),         TUNE_FIELD(cluster_max_n),
    TUNE_FIELD(cluster_pairs_max_n), TUNE_FIELD(grid_max_n),    TUNE_FIELD(portion_max_n),
    TUNE_FIELD(msd_min_n),       TUNE_FIELD(msd4_min_n),        TUNE_FIELD(msd_max_n),
    TUNE_FIELD(msd4_wide_max_n), TUNE_FIELD(msd4_pairs_mid_max_n), TUNE_FIELD(msd4_counts_max_n),
    TUNE_FIELD(msd_pairs_max_n), TUNE_FIELD(msd_deep_max_n),    TUNE_FIELD(count_min_n),
    TUNE_FIELD(count16_min_n),   TUNE_FIELD(order_min_n),
    TUNE_FIELD(numpy_lsd_min_n), TUNE_FIELD(numpy_plain_min_n), TUNE_FIELD(pack_min_n),
    TUNE_FIELD(pack_fast_min_n), TUNE_FIELD(msd_pairs_repeats), TUNE_FIELD(msd_many_heavy_min_n),
#undef TUNE_FIELD
};
#define TUNE_NFIELDS (sizeof tune_fields / sizeof tune_fields[0])
#define TUNE_MAX_LOG2 40

/* One "NAME=VALUE" of len bytes at s: its field's index and the value, or -1. */
static int tune_item(const char *s, size_t len, size_t *value)
{
    char buf[64], *eq, *end;
    const char *v;
    unsigned long long x;
    size_t i;
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (!(eq = strchr(buf, '='))) return -1;
    *eq = '\0';
    v = eq + 1;
    if (strncmp(v, "2^", 2) == 0) v += 2;
    if (*v < '0' || *v > '9') return -1;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (errno || *end || (v != eq + 1 && x > TUNE_MAX_LOG2)) return -1;
    *value = v != eq + 1 ? (size_t)1 << x : (size_t)x;
    for (i = 0; i < TUNE_NFIELDS; i++)
        if (strcmp(buf, tune_fields[i].name) == 0) return (int)i;
    return -1;
}

/* Checks each item of spec, and with t sets its limit there; -1 at the first bad one (said
 * on err). */
static int tune_each(const char *spec, FILE *err, rdx_cuda_tuning *t)
{
    const char *s = spec;
    while (s && *s) {
        const char *comma = strchr(s, ',');
        const size_t len = comma ? (size_t)(comma - s) : strlen(s);
        size_t value;
        const int f = tune_item(s, len, &value);
        if (f < 0) {
            if (err) fprintf(err, "rdx-gpu-bench: --tune: bad item '%.*s' (NAME=COUNT or NAME=2^K; names: see --help)\n",
                             (int)len, s);
            return -1;
        }
        if (t) *(size_t *)((char *)t + tune_fields[f].offset) = value;
        s = comma ? comma + 1 : NULL;
    }
    return 0;
}

int rdx_gpu_bench_tune_check(const char *spec, FILE *err) { return tune_each(spec, err, NULL); }

void rdx_gpu_bench_tune_apply(rdx_ctx *ctx, const char *spec)
{
    rdx_cuda_tuning *t = spec ? rdx_cuda_ctx_tuning(ctx) : NULL;
    if (t) tune_each(spec, NULL, t);
}

void rdx_gpu_bench_tune_names(FILE *out)
{
    size_t i;
    for (i = 0; i < TUNE_NFIELDS; i++) fprintf(out, "%s%s", i % 4 ? " " : i ? "\n                   " : "", tune_fields[i].name);
    fputc('\n', out);
}
