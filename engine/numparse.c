#include "numparse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* A refused text is repeated in the message up to this length, with every byte that is
 * not printable ASCII shown as '?', so that the message stays one readable line. */
enum { SHOWN_MAX = 40 };

static const char *shown(const char *text, char buf[SHOWN_MAX + 4])
{
    size_t n = 0;
    for (; text[n] && n < SHOWN_MAX; n++)
        buf[n] = text[n] >= 0x20 && text[n] < 0x7f ? text[n] : '?';
    strcpy(buf + n, text[n] ? "..." : "");
    return buf;
}

static const char *skip_digits(const char *p)
{
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

/* [+-]digits, and nothing else: strtoll alone would skip leading blanks. */
static bool is_integer(const char *text)
{
    const char *p = text + (*text == '-' || *text == '+');
    const char *end = skip_digits(p);
    return end > p && !*end;
}

/* [+-]digits[.digits][(e|E)[+-]digits] with a digit before or after the point: strtod
 * alone would also take blanks, "inf", "nan" and hexadecimal. */
static bool is_decimal(const char *text)
{
    const char *p = text + (*text == '-' || *text == '+');
    const char *end = skip_digits(p);
    bool digits = end > p;
    if (*end == '.') {
        const char *frac = end + 1;
        end = skip_digits(frac);
        digits = digits || end > frac;
    }
    if (!digits)
        return false;
    if (*end == 'e' || *end == 'E') {
        const char *exp = end + 1 + (end[1] == '-' || end[1] == '+');
        end = skip_digits(exp);
        if (end == exp)
            return false;
    }
    return !*end;
}

/* A text refused: missing, or not a number of the kind ("a whole number"), or (kind
 * NULL) out of range; range is the allowed range as text ("0..30000"). */
static bool refuse(const char *option, const char *text, const char *kind, const char *range,
                   char *msg, size_t size)
{
    char buf[SHOWN_MAX + 4];
    if (!text)
        return error_set(msg, size, "%s: needs %s (allowed: %s)", option, kind, range);
    if (kind)
        return error_set(msg, size, "%s: '%s' is not %s (allowed: %s)", option, shown(text, buf),
                         kind, range);
    return error_set(msg, size, "%s: '%s' is out of range (allowed: %s)", option, shown(text, buf),
                     range);
}

bool numparse_int(const char *option, const char *text, long long min, long long max,
                  long long *out, char *msg, size_t size)
{
    char range[48];
    snprintf(range, sizeof range, "%lld..%lld", min, max);
    if (!text || !is_integer(text))
        return refuse(option, text, "a whole number", range, msg, size);
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == ERANGE || v < min || v > max)
        return refuse(option, text, NULL, range, msg, size);
    *out = v;
    return true;
}

bool numparse_u64(const char *option, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                  char *msg, size_t size)
{
    char range[48];
    snprintf(range, sizeof range, "%llu..%llu", (unsigned long long)min, (unsigned long long)max);
    if (!text || !is_integer(text))
        return refuse(option, text, "a whole number", range, msg, size);
    /* strtoull would wrap "-1" around to UINT64_MAX */
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || (*text == '-' && v != 0) || v < min || v > max)
        return refuse(option, text, NULL, range, msg, size);
    *out = v;
    return true;
}

bool numparse_double(const char *option, const char *text, double min, double max, double *out,
                     char *msg, size_t size)
{
    char range[48];
    snprintf(range, sizeof range, "%g..%g", min, max);
    if (!text || !is_decimal(text))
        return refuse(option, text, "a number", range, msg, size);
    /* an underflow to (nearly) zero is a value like any other; an overflow is not */
    double v = strtod(text, NULL);
    if (!isfinite(v) || !(v >= min && v <= max))
        return refuse(option, text, NULL, range, msg, size);
    *out = v;
    return true;
}
