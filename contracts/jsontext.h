/*
 * JSON text: the one escaper of strings and the one spelling of numbers for every JSON
 * line the programs write (the coordinator's status and summary lines, its run config,
 * the acknowledgement log). Pure formatting into caller buffers.
 */
#ifndef CHUHE_JSONTEXT_H
#define CHUHE_JSONTEXT_H

#include <stddef.h>

/*
 * Both work like snprintf: they write at most cap bytes (NUL-terminated when cap > 0)
 * and return the length the whole text needs, so that a caller can measure first.
 */

/* s as a JSON string, quotes included: '"' and '\\' escaped with a backslash, control
 * bytes and DEL as \u00XX, every other byte as it is. */
size_t jsontext_string(char *buf, size_t cap, const char *s);

/* v with four decimals ("0.0000", never "-0.0000"); null for infinities and NaN, which
 * JSON lacks. */
size_t jsontext_number(char *buf, size_t cap, double v);

#endif
