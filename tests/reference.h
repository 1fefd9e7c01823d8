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

#endif
