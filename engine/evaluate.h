/*
 * The handcrafted, tapered evaluation. Terms and their storage come from
 * eval_terms.h; this module only decides which term applies where.
 */
#ifndef CHUHE_EVALUATE_H
#define CHUHE_EVALUATE_H

#include "eval_terms.h"
#include "position.h"

/* Game phase from the attacking material: PHASE_MAX with all chariots, horses and
 * cannons on the board, 0 with none. */
enum { PHASE_CHARIOT = 6, PHASE_HORSE = 3, PHASE_CANNON = 3, PHASE_MAX = 48 };

/* Per-colour, per-parameter usage counts of one evaluation: the linear form the tuner
 * fits. Filled only by the trace build of this module (CHUHE_TRACE). */
typedef struct {
    int16_t coef[EVAL_PARAM_NB][COLOR_NB];
    int phase;
    Value eval; /* the evaluation the trace belongs to, from Red's view */
} EvalTrace;

/* Sums of terms as plain ints, midgame and endgame apart. A packed Score holds 16 bits
 * of each, which terms of up to the weights file's +-30000 times their counts would
 * wrap (two chariots at 30000 are 60000); the few thousand uses of an evaluation at
 * most keep these sums far within an int. */
typedef struct {
    int mg, eg;
} EvalSum;

/* Every evaluation lies within +-EVAL_LIMIT, below the mate scores, whatever the
 * weights: evaluate() clamps the tapered sum to it. */
enum { EVAL_LIMIT = VALUE_MATE_IN_MAX_PLY - 1 };

static inline Value eval_clamp(long v)
{
    return (Value)(v > EVAL_LIMIT ? EVAL_LIMIT : v < -EVAL_LIMIT ? -EVAL_LIMIT : v);
}

int eval_phase(const Position *pos);
/* Static evaluation from the side to move's view, within +-EVAL_LIMIT. */
Value evaluate(const Position *pos, const EvalParams *params);

/* Sum of each term for each side, plus the tapered total, for the `eval` command. */
typedef struct {
    EvalSum term[EVAL_TERM_NB][COLOR_NB];
    int phase;
    Value total; /* from Red's view */
} EvalBreakdown;
void eval_breakdown(const Position *pos, const EvalParams *params, EvalBreakdown *out);

/* The same evaluation from Red's view, recording every term use into trace. Defined
 * only by the trace build of evaluate.c (compiled with CHUHE_TRACE into the tuner). */
Value evaluate_traced(const Position *pos, const EvalParams *params, EvalTrace *trace);

#endif
