#include "strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "coord_log.h"

void strbuf_init(StrBuf *b)
{
    b->text = NULL;
    b->len = b->cap = 0;
}

void strbuf_free(StrBuf *b)
{
    free(b->text);
    strbuf_init(b);
}

static void reserve(StrBuf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *t = realloc(b->text, cap);
    if (!t)
        COORD_FATAL("out of memory for %zu bytes of text", cap);
    b->text = t;
    b->cap = cap;
}

void strbuf_printf(StrBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        COORD_FATAL("bad format '%s'", fmt);
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void strbuf_json_string(StrBuf *b, const char *s)
{
    strbuf_printf(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            strbuf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            strbuf_printf(b, "\\u%04x", *p);
        else
            strbuf_printf(b, "%c", *p);
    }
    strbuf_printf(b, "\"");
}

void strbuf_json_number(StrBuf *b, double v)
{
    if (!isfinite(v))
        strbuf_printf(b, "null");
    else
        strbuf_printf(b, "%.4f", fabs(v) < 5e-5 ? 0.0 : v); /* no "-0.0000" */
}

const char *strbuf_text(const StrBuf *b)
{
    return b->text ? b->text : "";
}
