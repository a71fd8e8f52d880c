/*
 * Stable sorts of records by a double key (sort.c): an LSD radix sort on
 * the key's bits, ordered as the doubles compare (-0 and +0 equal), so
 * records with equal keys keep their order, as a stable merge sort with
 * the comparison (a > b) - (a < b) leaves them, in O(n) passes. Keys must
 * not be NaN. No threads, no state.
 */
#ifndef RX_CORE_SORT_H
#define RX_CORE_SORT_H

#include <stddef.h>

/*
 * Sorts n records of size 8 (a double) or 16 bytes (a double, then 8
 * bytes of anything) at rec, 8-byte aligned, by the leading double,
 * ascending. tmp: n records of scratch of the same size.
 */
void rx__sort_f64(void *rec, size_t n, size_t size, void *tmp);

#endif
