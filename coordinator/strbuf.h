/*
 * A growing text buffer for reports and JSON lines whose length depends on the number
 * of engines and workers. Running out of memory is fatal (COORD_FATAL).
 */
#ifndef CHUHE_STRBUF_H
#define CHUHE_STRBUF_H

#include <stddef.h>

typedef struct {
    char *text; /* NUL-terminated once anything was added; NULL before */
    size_t len, cap;
} StrBuf;

void strbuf_init(StrBuf *b);
void strbuf_free(StrBuf *b);

void strbuf_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string, quotes included. */
void strbuf_json_string(StrBuf *b, const char *s);
/* A JSON number with four decimals; null for infinities and NaN, which JSON lacks. */
void strbuf_json_number(StrBuf *b, double v);
/* The text so far ("" when empty); valid until the next addition. */
const char *strbuf_text(const StrBuf *b);

#endif
