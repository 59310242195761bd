/*
 * The weights file: plain text, one parameter per line, "name[index] mg eg", in the
 * order of eval_terms.h. '#' starts a comment. Reading is all or nothing: an unknown,
 * duplicate, missing or malformed entry is an error naming the line, and the
 * destination is left untouched.
 *
 *     # chuhe weights 1
 *     material[chariot] 900 950
 *     psqt_horse[e4] 12 4
 *     mobility_horse[3] -5 -8
 */
#ifndef CHUHE_WEIGHTS_H
#define CHUHE_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "eval_terms.h"

typedef struct {
    char msg[200];
} WeightsError;

/* The built-in weights (engine/default.weights, compiled in). */
const EvalParams *weights_default(void);

bool weights_parse(const char *text, const char *source, EvalParams *out, WeightsError *err);
bool weights_load(const char *path, EvalParams *out, WeightsError *err);
bool weights_write(FILE *f, const EvalParams *p);
bool weights_save(const char *path, const EvalParams *p, WeightsError *err);

/* "psqt_horse[e4]" for parameter i (0 .. EVAL_PARAM_NB-1); buf of 48 bytes is enough. */
void weights_param_name(int param, char *buf, size_t size);

#endif
