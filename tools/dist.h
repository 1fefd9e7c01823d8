/* Key distributions for `rdx gen` and `rdx bench`. */
#ifndef RDX_TOOL_DIST_H
#define RDX_TOOL_DIST_H

#include <stddef.h>
#include <stdint.h>
#include "rdx.h"

typedef enum tool_dist {
    TOOL_DIST_UNIFORM = 0, /* every bit pattern equally likely (floats: every finite one) */
    TOOL_DIST_SORTED,      /* ascending in key order, spread over the whole range */
    TOOL_DIST_REVERSE,     /* descending */
    TOOL_DIST_EQUAL,       /* one random value, n times */
    TOOL_DIST_FEW,         /* TOOL_FEW_DISTINCT random values, drawn uniformly */
    TOOL_DIST_LOWENTROPY,  /* AND of three random words: bits mostly 0 */
    TOOL_DIST_ZIPF,        /* Zipf over TOOL_ZIPF_RANKS random values: a few very common */
    TOOL_DIST_REPEAT       /* n / TOOL_REPEAT_COPIES + 1 random values, each about that many times */
} tool_dist;

#define TOOL_DIST_NAMES "uniform sorted reverse equal few lowentropy zipf repeat"

int tool_parse_dist(const char *name, tool_dist *d);
const char *tool_dist_name(tool_dist d);

/* Fills keys[0..n) (type t) from the distribution; the same seed gives the same keys.
 * Float keys are never NaN or infinite. Returns 0, or -1 after printing why. */
int tool_generate(void *keys, size_t n, rdx_type t, tool_dist d, uint64_t seed);

#endif
