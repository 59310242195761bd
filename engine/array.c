#include "array.h"

#include <stdint.h>
#include <stdlib.h>

bool array_reserve(void **items, size_t *cap, size_t need, size_t elem_size, size_t first)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : (first ? first : 1);
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return false;
        n *= 2;
    }
    if (elem_size && n > SIZE_MAX / elem_size)
        return false;
    void *p = realloc(*items, n * elem_size);
    if (!p)
        return false;
    *items = p;
    *cap = n;
    return true;
}
