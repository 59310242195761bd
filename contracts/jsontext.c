#include "jsontext.h"

#include <math.h>
#include <stdio.h>

/* Puts one byte at buf[len] when it fits, leaving room for the NUL. */
static void put(char *buf, size_t cap, size_t len, char c)
{
    if (len + 1 < cap)
        buf[len] = c;
}

size_t jsontext_string(char *buf, size_t cap, const char *s)
{
    static const char HEX[] = "0123456789abcdef";
    size_t len = 0;
    put(buf, cap, len++, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            put(buf, cap, len++, '\\');
            put(buf, cap, len++, (char)*p);
        } else if (*p < 0x20 || *p == 0x7f) {
            const char esc[6] = {'\\', 'u', '0', '0', HEX[*p >> 4], HEX[*p & 15]};
            for (int i = 0; i < 6; i++)
                put(buf, cap, len++, esc[i]);
        } else {
            put(buf, cap, len++, (char)*p);
        }
    }
    put(buf, cap, len++, '"');
    if (cap > 0)
        buf[len < cap ? len : cap - 1] = '\0';
    return len;
}

size_t jsontext_number(char *buf, size_t cap, double v)
{
    int n = isfinite(v) ? snprintf(buf, cap, "%.4f", fabs(v) < 5e-5 ? 0.0 : v) /* no "-0.0000" */
                        : snprintf(buf, cap, "null");
    return n > 0 ? (size_t)n : 0;
}
