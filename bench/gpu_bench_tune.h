/* rdx-gpu-bench --tune: a context's route limits (src/cuda/tuning_ctx.h) set by name, so
 * that an experiment with a limit (where a route starts or ends) needs no rebuild. The
 * benchmark's contexts only: the library's own defaults stay as tuning.h has them. */
#ifndef RDX_GPU_BENCH_TUNE_H
#define RDX_GPU_BENCH_TUNE_H

#include <stdio.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* spec: "NAME=VALUE[,NAME=VALUE...]", VALUE a count or 2^k (k <= 40), or NULL. Returns 0,
 * or -1 after saying on err what is wrong. */
int rdx_gpu_bench_tune_check(const char *spec, FILE *err);
/* Sets the limits of spec (checked) in ctx, a CUDA context; nothing for a NULL spec. */
void rdx_gpu_bench_tune_apply(rdx_ctx *ctx, const char *spec);
/* Lists the names on out, four a line. */
void rdx_gpu_bench_tune_names(FILE *out);

#ifdef __cplusplus
}
#endif

#endif
