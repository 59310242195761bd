#include "numparse.h"

#include <errno.h>
#include <math.h>
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

bool numparse_int(const char *option, const char *text, long long min, long long max,
                  long long *out, char *msg, size_t size)
{
    char buf[SHOWN_MAX + 4];
    if (!text)
        return error_set(msg, size, "%s: needs a whole number (allowed: %lld..%lld)", option, min,
                         max);
    if (!is_integer(text))
        return error_set(msg, size, "%s: '%s' is not a whole number (allowed: %lld..%lld)", option,
                         shown(text, buf), min, max);
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == ERANGE || v < min || v > max)
        return error_set(msg, size, "%s: '%s' is out of range (allowed: %lld..%lld)", option,
                         shown(text, buf), min, max);
    *out = v;
    return true;
}

bool numparse_u64(const char *option, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                  char *msg, size_t size)
{
    char buf[SHOWN_MAX + 4];
    unsigned long long lo = min, hi = max;
    if (!text)
        return error_set(msg, size, "%s: needs a whole number (allowed: %llu..%llu)", option, lo,
                         hi);
    if (!is_integer(text))
        return error_set(msg, size, "%s: '%s' is not a whole number (allowed: %llu..%llu)", option,
                         shown(text, buf), lo, hi);
    /* strtoull would wrap "-1" around to UINT64_MAX */
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || (*text == '-' && v != 0) || v < lo || v > hi)
        return error_set(msg, size, "%s: '%s' is out of range (allowed: %llu..%llu)", option,
                         shown(text, buf), lo, hi);
    *out = v;
    return true;
}

bool numparse_double(const char *option, const char *text, double min, double max, double *out,
                     char *msg, size_t size)
{
    char buf[SHOWN_MAX + 4];
    if (!text)
        return error_set(msg, size, "%s: needs a number (allowed: %g..%g)", option, min, max);
    if (!is_decimal(text))
        return error_set(msg, size, "%s: '%s' is not a number (allowed: %g..%g)", option,
                         shown(text, buf), min, max);
    /* an underflow to (nearly) zero is a value like any other; an overflow is not */
    double v = strtod(text, NULL);
    if (!isfinite(v) || !(v >= min && v <= max))
        return error_set(msg, size, "%s: '%s' is out of range (allowed: %g..%g)", option,
                         shown(text, buf), min, max);
    *out = v;
    return true;
}
