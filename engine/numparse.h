/*
 * Numbers typed by a person or sent by a program (command-line options, UCI commands):
 * the one strict reader every program uses.
 *
 * The whole text must be the number: no blank before or after it, no trailing letters,
 * no empty text. An integer is an optional sign and decimal digits ("1e3", "0x10" and
 * "12.0" are not integers); a real number is written in decimal, with an optional
 * fraction and exponent, and must be finite ("inf", "nan" and hexadecimal are refused).
 * A value outside [min, max], overflow included, is refused.
 *
 * On error the functions return false, leave *out alone and write one line to
 * msg[size] (when msg is not NULL) naming the option, the text and the allowed range:
 *   --max-score: 'abc' is not a whole number (allowed: 0..30000)
 *   --lr: '0' is out of range (allowed: 0.001..1000)
 * A NULL text is a missing value: "--lr: needs a number (allowed: 0.001..1000)".
 *
 * Base layer of the engine library (docs/architecture.md, "The base"): error, array,
 * numparse, rng and textesc are the helpers every program uses; they know nothing of
 * xiangqi and include no module outside the base.
 */
#ifndef CHUHE_NUMPARSE_H
#define CHUHE_NUMPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool numparse_int(const char *option, const char *text, long long min, long long max,
                  long long *out, char *msg, size_t size);
/* A whole number up to UINT64_MAX (seeds, counts): as numparse_int, with no sign but an
 * optional '+' ("-0" is 0, any other negative number is out of range). */
bool numparse_u64(const char *option, const char *text, uint64_t min, uint64_t max, uint64_t *out,
                  char *msg, size_t size);
bool numparse_double(const char *option, const char *text, double min, double max, double *out,
                     char *msg, size_t size);

#endif
