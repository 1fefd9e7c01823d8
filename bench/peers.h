/* Peer sorts for the benchmarks (never part of librdx). C interface; the peers
 * themselves are C and C++ (bench/cpu_peers.cpp) and CUDA (bench/gpu_bench.cu). */
#ifndef RDX_BENCH_PEERS_H
#define RDX_BENCH_PEERS_H

#include <stddef.h>
#include <stdio.h>
#include "rdx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CPU peer that sorts n host keys of a type in place, ascending (key order of rdx.h
 * for the integer types; floats by operator<). Returns 0, or -1 where the peer has no
 * support for the type. */
typedef struct rdx_cpu_peer {
    const char *name;
    int (*sort_keys)(void *keys, size_t n, rdx_type type);
} rdx_cpu_peer;

/* The CPU peers built into this binary (qsort, std::sort, std::stable_sort,
 * boost::sort::spreadsort where Boost is present, __gnu_parallel::sort). */
size_t rdx_cpu_peers(const rdx_cpu_peer **peers);

/* The GPU benchmark (rdxsort against CUB, thrust and a device copy), as `rdx bench`
 * runs it where the CUDA backend is built. types/sizes as the tool parsed them (NULL or
 * 0 = the defaults), csv may be NULL. Prints its table to out. Returns 0 when every
 * result verified, non-zero otherwise. Defined in bench/gpu_bench.cu. */
int rdx_gpu_bench(const rdx_type *types, size_t ntypes, const size_t *sizes, size_t nsizes,
                  FILE *out, FILE *csv);

#ifdef __cplusplus
}
#endif

#endif
