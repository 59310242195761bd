/*
 * JSON text into a fixed buffer, for the coordinator's one-line outputs (the listening
 * line, the summary, the ack log) and the stored run settings. Each call appends at
 * *len and fails, leaving a partial text, when the buffer is too small.
 * (StrBuf has the growing equivalents, strbuf.h.)
 */
#ifndef CHUHE_COORD_JSON_H
#define CHUHE_COORD_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* Appends formatted text to buf[size] at *len; false if it does not fit. */
bool coord_json_append(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends s to buf as a JSON string (quotes included); false if it does not fit. */
bool coord_json_string(char *buf, size_t size, size_t *len, const char *s);

#endif
