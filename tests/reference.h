/* The tests' oracle: a plain stable merge sort, independent of the library's code except
 * for the shared key codec (src/key_codec.h), which test_codec.c checks on its own. */
#ifndef RDX_TEST_REFERENCE_H
#define RDX_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include "rdx.h"

/* The key the sort compares: the mapped key (descending when desc), bits [begin, end). */
uint64_t rdx_ref_sort_key(const void *key, rdx_type type, int desc, int begin_bit, int end_bit);

/* The same with the flags of rdx_opts: RDX_DESCENDING, and RDX_NUMPY_ORDER for floats
 * (key_codec.h's canonical code, which test_codec.c checks against NumPy's rule). */
uint64_t rdx_ref_sort_key_flags(const void *key, rdx_type type, unsigned flags, int begin_bit,
                                int end_bit);

/* perm[i] = the position in keys of the i-th key in stable sorted order, with the options
 * of rdx.h (RDX_NUMPY_ORDER included) (opts may be NULL). Returns 0, or -1 if memory ran out. */
int rdx_ref_argsort(const void *keys, size_t n, rdx_type type, const rdx_opts *opts, size_t *perm);

/* Puts keys (n of `type`, any bytes) in the stable sort's order under opts; then, where
 * swap_at < n - 1, swaps the first pair of neighbours from swap_at on (or else the last one
 * before it) whose compared bits differ, so that exactly one pair is out of order (none
 * where every key compares equal). Returns 0, or -1 if memory ran out. */
int rdx_ref_put_in_order(void *keys, size_t n, rdx_type type, const rdx_opts *opts, size_t swap_at);

/* A call whose result rdx_ref_check judges. */
typedef enum rdx_ref_kind { RDX_REF_KEYS, RDX_REF_PAIRS, RDX_REF_ARGSORT } rdx_ref_kind;

typedef struct rdx_ref_call {
    rdx_ref_kind kind;
    rdx_type type;
    size_t n;
    size_t value_size;       /* RDX_REF_PAIRS */
    rdx_type index_type;     /* RDX_REF_ARGSORT: RDX_U32 or RDX_U64 */
    int segmented;           /* 0: one sort of the whole array */
    const size_t *offsets;   /* segmented: num_segments + 1 host offsets, or NULL: equal rows */
    size_t num_segments;
    rdx_opts opts;
} rdx_ref_call;

/* 1 when keys, values and indices (host copies of the arrays after the call) hold the
 * stable reference's result for keys0, values0 and indices0 (the same arrays before it):
 * in each segment (the whole array unless segmented) the keys, and the values with them,
 * in stable sorted order, or the indices of that order (positions within the segment, as
 * rdx_segmented_argsort writes them); every element outside the segments, and the keys of
 * an argsort, unchanged. values/values0 are read for RDX_REF_PAIRS only, indices/indices0
 * for RDX_REF_ARGSORT only. 0 when anything differs, or when memory ran out. */
int rdx_ref_check(const rdx_ref_call *c, const void *keys0, const void *values0, const void *indices0,
                  const void *keys, const void *values, const void *indices);

#endif
