#include "error.h"

#include <stdio.h>

bool error_setv(char *msg, size_t size, const char *fmt, va_list ap)
{
    if (msg && size)
        vsnprintf(msg, size, fmt, ap);
    return false;
}

bool error_set(char *msg, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_setv(msg, size, fmt, ap);
    va_end(ap);
    return false;
}
