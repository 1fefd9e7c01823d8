/* Pseudo-random words for test and benchmark data: a counter-based generator (the
 * splitmix64 mixing function applied to seed + i * golden ratio), so that word i of a
 * stream can be had directly and the data does not depend on the order of generation.
 * Not for anything that needs secrecy. */
#ifndef RDX_TOOL_RNG_H
#define RDX_TOOL_RNG_H

#include <stdint.h>

/* A fixed bijective mix of 64-bit words. */
static inline uint64_t tool_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct tool_rng {
    uint64_t state;
} tool_rng;

static inline void tool_rng_seed(tool_rng *r, uint64_t seed) { r->state = tool_mix64(seed); }

static inline uint64_t tool_rng_next(tool_rng *r)
{
    r->state += 0x9e3779b97f4a7c15ull;
    return tool_mix64(r->state);
}

/* Uniform in [0, 1). */
static inline double tool_rng_unit(tool_rng *r)
{
    return (double)(tool_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
