/*
 * Static exchange evaluation: the material outcome of the capture sequence on one
 * point when both sides always recapture with their least valuable attacker and may
 * stop at any time. Cannon screens and horse legs are re-read after every capture.
 * Pins are ignored.
 */
#ifndef CHUHE_SEE_H
#define CHUHE_SEE_H

#include "position.h"
#include "score.h"

extern const Value SEE_VALUE[PIECE_TYPE_NB];

/* Whether the exchange started by m wins at least threshold. */
bool see_ge(const Position *pos, Move m, Value threshold);

#endif
