/*
 * Growing arrays: the one helper behind every array that doubles as it fills.
 *
 *     if (!array_reserve((void **)&list->items, &list->cap, list->len + 1, sizeof *list->items,
 * 64)) return ERROR_SET(err, "out of memory");
 *
 * On failure the array and its capacity are unchanged.
 *
 * Base layer of the engine library (docs/architecture.md, "The base"): error, array,
 * numparse, rng and textesc are the helpers every program uses; they know nothing of
 * xiangqi and include no module outside the base.
 */
#ifndef CHUHE_ARRAY_H
#define CHUHE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/* Makes room for at least need elements of elem_size bytes in *items (capacity in
 * *cap): doubles the capacity, starting at first, until need fits. Returns false,
 * leaving both untouched, when the size overflows or realloc fails. */
bool array_reserve(void **items, size_t *cap, size_t need, size_t elem_size, size_t first);

#endif
