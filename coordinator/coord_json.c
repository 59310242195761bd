#include "coord_json.h"

#include <stdarg.h>
#include <stdio.h>

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
    if (!coord_json_append(buf, size, len, "\""))
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool ok;
        if (*p == '"' || *p == '\\')
            ok = coord_json_append(buf, size, len, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            ok = coord_json_append(buf, size, len, "\\u%04x", *p);
        else
            ok = coord_json_append(buf, size, len, "%c", *p);
        if (!ok)
            return false;
    }
    return coord_json_append(buf, size, len, "\"");
}
