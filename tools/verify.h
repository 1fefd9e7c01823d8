/* Checks on sort results, independent of the library: order, multiset checksums (the
 * output holds exactly the input's keys, or (key, value) pairs), and stability. */
#ifndef RDX_TOOL_VERIFY_H
#define RDX_TOOL_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include "rdx.h"

/* The first position i >= 1 whose key comes before key i-1 in the key order of rdx.h
 * (reversed when descending), or n when the keys are in order. */
size_t tool_first_unsorted(const void *keys, size_t n, rdx_type t, int descending);

/* As tool_first_unsorted (ascending), but floats compared by value as C's < does
 * (-0.0 equals +0.0; NaN compares with nothing): how the CPU peers order floats. */
size_t tool_first_unsorted_by_value(const void *keys, size_t n, rdx_type t);

/* Order-independent checksums: equal for two arrays holding the same keys (pairs) in
 * any order, and unequal with high probability otherwise. */
uint64_t tool_checksum_keys(const void *keys, size_t n, size_t key_size);
uint64_t tool_checksum_pairs(const void *keys, size_t key_size, const void *values,
                             size_t value_size, size_t n);

/* For pairs whose values were set to their input positions (value i = i, as many bytes
 * as fit): the first i >= 1 where key i equals key i-1 but its position is not larger,
 * or n. Only meaningful when n - 1 fits in value_size bytes. */
size_t tool_first_unstable(const void *keys, rdx_type t, const void *values,
                           size_t value_size, size_t n);

#endif
