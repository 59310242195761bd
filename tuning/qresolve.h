/*
 * Quiescence resolution for --qresolve: instead of dropping a position whose best move
 * captures, the tuner follows the principal variation of a captures-only quiescence
 * search (stand pat on the static evaluation, most valuable victim first, captures
 * that lose material by static exchange skipped) and trains on the quiet position at
 * its end, the position whose static evaluation the search score best describes.
 */
#ifndef CHUHE_QRESOLVE_H
#define CHUHE_QRESOLVE_H

#include "eval_terms.h"
#include "position.h"

enum { QRESOLVE_MAX_PLIES = 24 };

/* Plays the quiescence PV of pos on pos itself; returns the number of plies made. A
 * position in check is left as it is (its quiescence would need all evasions). */
int qresolve(Position *pos, const EvalParams *params);

#endif
