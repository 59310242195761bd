/*
 * The fitted model and its loss. Weights are doubles, two per parameter of
 * eval_terms.h: w[2i] midgame, w[2i+1] endgame. For a position with coefficients c,
 * phase f and target y (Red's view, 0..1),
 *
 *     e = sum_i c_i (w[2i] rho + w[2i+1] (1 - rho)),  rho = f / PHASE_MAX
 *     p = sigmoid(K e) = 1 / (1 + exp(-K e))
 *     loss = (p - y)^2,  d loss / d w[2i] = 2 (p - y) p (1 - p) K c_i rho  (eg: 1 - rho)
 *
 * The target mixes the search score and the game result:
 *     y = lambda sigmoid(K score) + (1 - lambda) (result + 1) / 2.
 */
#ifndef CHUHE_MODEL_H
#define CHUHE_MODEL_H

#include <math.h>
#include <stdint.h>

#include "comm.h"
#include "dataset.h"
#include "eval_terms.h"

enum { MODEL_NW = 2 * EVAL_PARAM_NB };

/* The parameter a left-right mirror maps parameter i to: for a piece-square table
 * (a term of index kind IDX_SQUARE in eval_terms.h) the same rank on the mirrored file,
 * for every other parameter i itself. The tuner's --symmetric moves both together. */
int model_mirror(int i);

/* The alignment of a weight or gradient vector: model_pass reads pairs of doubles. */
enum { MODEL_ALIGN = 16 };

/* Weights from integer parameters and back (rounded to nearest, kept within the
 * weights file's +-30000). */
void model_from_params(const EvalParams *p, double *w);
void model_to_params(const double *w, EvalParams *p);

/*
 * One pass over positions subset[0..nsub) of d (all of d when subset is NULL): returns
 * the summed loss and, when grad is not NULL, adds the summed gradient to grad. Sums, not
 * means: the caller divides after adding up every rank's part. w and grad are read as
 * (midgame, endgame) pairs of 16 bytes and must be 16-byte aligned (MODEL_ALIGN).
 */
double model_pass(const Dataset *d, const uint32_t *subset, uint64_t nsub, const double *w,
                  double K, double *grad);

/* Red's-view evaluation of position i under w. */
double model_eval(const Dataset *d, uint64_t i, const double *w);

/*
 * The K that best maps the evaluations under w to the game results (least squares
 * between sigmoid(K e) and (result + 1) / 2) over every position of the nsets sets on
 * every rank: a log-spaced scan brackets the minimum, golden-section search narrows it
 * to a relative 1e-7. The error sums are exact (fixed point), so K is the same on any
 * number of ranks. Returns 0 when out of memory or a collective fails.
 */
double model_fit_k(Comm *comm, const Dataset *const *sets, int nsets, const double *w);

/* The same fit for any n values ev and results res (0, 0.5, 1) on this rank (e.g. the
 * network trainer's search scores); a collective. */
double model_fit_k_values(Comm *comm, const float *ev, const float *res, uint64_t n);

/* Sets every label of d from its score and result. */
void model_set_labels(Dataset *d, double K, double lambda);

static inline double model_sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

#endif
