/*
 * A position's evaluation as the linear form the tuner fits, taken from the trace build
 * of the engine's own evaluation (evaluate_traced), so every term of eval_terms.h is in
 * it without being named here:
 *
 *     mg = sum_i c_i * mg_i,  eg = sum_i c_i * eg_i
 *     eval (Red's view) = (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX
 *
 * with c_i = Red's uses of parameter i minus Black's (the tempo bonus counts for the
 * side to move, so it enters with +1 when Red moves and -1 when Black does), the
 * division truncating and the result clamped to +-EVAL_LIMIT as evaluate.c's taper
 * does. Only the nonzero c_i are kept.
 */
#ifndef CHUHE_TRACE_H
#define CHUHE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "evaluate.h"

/* Coefficients of one position, by increasing parameter index. */
typedef struct {
    int n;
    int phase;
    Value eval; /* what evaluate_traced returned, Red's view */
    uint16_t idx[EVAL_PARAM_NB];
    int16_t coef[EVAL_PARAM_NB];
} TracedPos;

/* The parameter index must fit the stored uint16. */
_Static_assert(EVAL_PARAM_NB <= 65535, "parameter indices are stored as uint16");

void trace_position(const Position *pos, const EvalParams *params, TracedPos *out);

/* The linear form with integer weights, tapered exactly as the engine tapers (Red's view). */
Value trace_reconstruct(const EvalParams *params, const uint16_t *idx, const int8_t *coef, int n,
                        int phase);

/* A disagreement between the stored form and the engine. */
typedef struct {
    char fen[128];
    Value engine;        /* evaluate(), turned to Red's view */
    Value reconstructed; /* trace_reconstruct of the stored coefficients */
    int phase;
} TraceMismatch;

/*
 * Whether the stored coefficients of pos reproduce the engine's evaluate() (the library
 * build, not the trace build) within tolerance; on failure *m (may be NULL) says where.
 */
bool trace_check(const Position *pos, const EvalParams *params, const uint16_t *idx,
                 const int8_t *coef, int n, int phase, int tolerance, TraceMismatch *m);

#endif
