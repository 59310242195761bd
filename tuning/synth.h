/*
 * Positions without a run file, for the benchmark and the tests: seeded random games
 * from the start position (mostly quiet moves, so material comes off at a game-like
 * pace), every few plies a position that is not in check, traced like loaded ones. The
 * score is the static evaluation and the result is drawn with an expected score of
 * sigmoid(k * eval), so that the fit has a known answer.
 */
#ifndef CHUHE_SYNTH_H
#define CHUHE_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "dataset.h"
#include "eval_terms.h"
#include "position.h"

/* Plays one seeded random game of at most max_plies, calling fn on each position
 * reached (not in check); stops early when fn returns false. Returns plies played. */
int synth_game(Position *pos, uint64_t *rng, int max_plies,
               bool (*fn)(void *ctx, const Position *pos), void *ctx);

/* Adds n positions to d; k scales the results' dependence on the evaluation. */
bool synth_positions(Dataset *d, uint64_t n, uint64_t seed, const EvalParams *params, double k);

#endif
