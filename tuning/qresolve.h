/*
 * Quiescence resolution for --qresolve: instead of dropping a position whose best move
 * captures, the tuner plays the principal variation of the engine's own quiescence
 * search (search_quiescence: captures, and evasions when a capture gives check; stand
 * pat on the static evaluation) and trains on the quiet position at its end, the
 * position whose static evaluation the search score best describes. The quiet checks
 * that the search tries at the horizon are left out: with them a resolved position
 * would not be quiet for the next resolution.
 */
#ifndef CHUHE_QRESOLVE_H
#define CHUHE_QRESOLVE_H

#include "eval_terms.h"
#include "position.h"

enum { QRESOLVE_MAX_PLIES = 24 };

/* The search state a resolution needs (4 MB of histories and a small hash table),
 * kept from one position to the next. */
typedef struct QResolve QResolve;

/* A resolver that evaluates with params (which must outlive it); NULL when out of
 * memory. */
QResolve *qresolve_new(const EvalParams *params);
void qresolve_free(QResolve **q);

/*
 * Plays the quiescence PV of pos on pos itself; returns the number of plies made. Each
 * position is judged alone: the hash table starts empty every time. A position in
 * check is left as it is (its quiescence is all evasions), and so is one whose line
 * ends in mate (no evaluation describes it) or runs longer than QRESOLVE_MAX_PLIES.
 */
int qresolve_run(QResolve *q, Position *pos);

/* qresolve_run with a resolver made for the one position: for a few positions only.
 * -1, pos untouched, when out of memory. */
int qresolve(Position *pos, const EvalParams *params);

#endif
