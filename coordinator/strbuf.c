#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "array.h"
#include "contracts/jsontext.h"
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
    size_t need = b->len + more + 1;
    if (!array_reserve((void **)&b->text, &b->cap, need, 1, 256))
        COORD_FATAL("out of memory for %zu bytes of text", need);
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
    size_t n = jsontext_string(NULL, 0, s);
    reserve(b, n);
    b->len += jsontext_string(b->text + b->len, n + 1, s);
}

void strbuf_json_number(StrBuf *b, double v)
{
    size_t n = jsontext_number(NULL, 0, v);
    reserve(b, n);
    b->len += jsontext_number(b->text + b->len, n + 1, v);
}

const char *strbuf_text(const StrBuf *b)
{
    return b->text ? b->text : "";
}
