/*
 * Error text, the one helper every module uses to fill its error struct.
 *
 * Each boundary module has an error struct `{ char msg[N]; }` (PosError, RunError, ...).
 * ERROR_SET(err, fmt, ...) formats into err->msg (nothing when err is NULL) and
 * evaluates to false, so a validating function can end with `return ERROR_SET(...)`.
 *
 * Base layer of the engine library (docs/architecture.md, "The base"): error, array,
 * numparse, rng and textesc are the helpers every program uses; they know nothing of
 * xiangqi and include no module outside the base.
 */
#ifndef CHUHE_ERROR_H
#define CHUHE_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Formats into msg[size] (nothing when msg is NULL or size is 0); returns false. */
bool error_set(char *msg, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool error_setv(char *msg, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Always false, where the compiler sees it: a function that returns ERROR_SET(...) is
 * then known to set its out-parameters whenever it returns true. */
static inline bool error_false(bool formatted)
{
    (void)formatted;
    return false;
}

/* err: a pointer to any struct with a `char msg[N]` member, or NULL. */
#define ERROR_SET(err, ...) \
    error_false(error_set((err) ? (err)->msg : NULL, sizeof(err)->msg, __VA_ARGS__))

#endif
