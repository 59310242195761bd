#include "coord_json.h"

#include <stdarg.h>
#include <stdio.h>

#include "contracts/jsontext.h"

bool coord_json_append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size)
        return false;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size - *len)
        return false;
    *len += (size_t)n;
    return true;
}

bool coord_json_string(char *buf, size_t size, size_t *len, const char *s)
{
    if (*len >= size)
        return false;
    size_t n = jsontext_string(buf + *len, size - *len, s);
    if (n >= size - *len)
        return false;
    *len += n;
    return true;
}
