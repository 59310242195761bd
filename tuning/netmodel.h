/*
 * The float network the trainer fits: "PS1260 -> Hx2 -> SCReLU -> B buckets" of
 * engine/nnue.h, with the engine's feature index (nnue_feature_index) and bucket rule.
 *
 * All weights are floats in one vector (gradients, Adam moments and checkpoints use the
 * same layout):
 *   W1[1260][H] at 0 (feature-major: a feature's H weights are contiguous), b1[H] at
 *   o_b1, W2[B][2H] at o_w2 (per bucket the side to move's half first), b2[B] at o_b2.
 * For a position with active features F_stm and F_other (up to 32 each) and bucket b:
 *   acc_p = b1 + sum over f in F_p of W1[f]
 *   y     = sum_i screlu(acc_stm[i]) W2[b][i] + screlu(acc_other[i]) W2[b][H + i] + b2[b]
 *   eval  = y * scale (engine units, side to move's view), screlu(a) = clamp(a, 0, 1)^2
 * where W1, b1 and W2 are used rounded to the engine's grid (multiples of 1 / QA and
 * 1 / QB; netmodel.c says why) and trained through the rounding (the gradient is taken
 * as if it were not there).
 * The loss of a position with search score s and result r (side to move's view, 0..1):
 *   p = sigmoid(k eval), target = lambda sigmoid(k s) + (1 - lambda) r,
 *   loss = (p - target)^2.
 */
#ifndef CHUHE_NETMODEL_H
#define CHUHE_NETMODEL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netdata.h"
#include "nnue.h"
#include "position.h"

/* The training's hot loops (the pass, the Adam step): on x86-64 each is compiled twice,
 * for the build's target and for AVX2 + FMA (x86-64-v3), and the loader picks the one
 * the CPU runs, so a default build trains at AVX2 speed where it can. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NETMODEL_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define NETMODEL_CLONES
#endif

/* The clip of W1, b1 and W2 (engine/nnue.h: accumulators stay in int16). */
#define NETMODEL_CLIP 1.98f

/* The alignment of weight and gradient vectors (the H-length rows are read as SIMD
 * vectors; H is a multiple of 32). */
enum { NETMODEL_ALIGN = 64 };

typedef struct {
    int hidden, buckets;
    double scale; /* SCALE: engine units per unit of y */
    size_t o_b1, o_w2, o_b2, nw;
} NetShape;

/* The shape of a network of hidden units (a multiple of 32, 32..1024) and buckets
 * (1..31); false when out of range. */
bool netmodel_shape(NetShape *s, int hidden, int buckets, int scale);

/* The feature tables, from nnue_feature_index; once per process, before any pass. */
void netmodel_init(void);

/* Seeded starting weights: b1 = 0.5 and W1 small, so that most accumulators start
 * inside SCReLU's slope; W2 small, b2 = 0. */
void netmodel_init_weights(const NetShape *s, float *w, uint64_t seed);

/* One W1, b1 or W2 weight clipped to [-NETMODEL_CLIP, NETMODEL_CLIP]. */
static inline float netmodel_clip_weight(float x)
{
    return x > NETMODEL_CLIP ? NETMODEL_CLIP : x < -NETMODEL_CLIP ? -NETMODEL_CLIP : x;
}

/* Clips W1, b1 and W2 (netmodel_clip_weight). */
void netmodel_clip(const NetShape *s, float *w);

/* The bucket of a position with n pieces (the rule of nnue_bucket). */
static inline int netmodel_bucket(int buckets, int n)
{
    return (n - 2) * buckets / 31;
}

/* The target of a position: lambda sigmoid(k score) + (1 - lambda) (result + 1) / 2. */
static inline double netmodel_target(int score, int result, double k, double lambda)
{
    return lambda / (1.0 + exp(-k * score)) + (1 - lambda) * (result + 1) / 2.0;
}

/* Loss sums of a pass: against the targets, and against the game results alone (the
 * measure that compares runs with different lambda). */
typedef struct {
    double loss, result_loss;
} NetLoss;

/* A malloc'd vector of n floats, NETMODEL_ALIGN-aligned and zeroed; free with free(). */
float *netmodel_alloc(size_t n);

/* Scratch for one pass (accumulators and their gradients, and the weights on the
 * engine's grid that the pass reads). */
typedef struct NetScratch NetScratch;
NetScratch *netmodel_scratch_new(const NetShape *s);
void netmodel_scratch_free(NetScratch **sc);

/* A W1 or b1 weight on the engine's grid: an int16 count of 1 / QA. */
static inline int16_t netmodel_round_w1(float w)
{
    return (int16_t)nearbyintf(w * NNUE_QA);
}

/* Weights [lo, hi) of w onto sc's grid: W1 and b1 as int16 counts of 1 / QA (what
 * netmodel_rounded_w1 returns), W2 rounded to multiples of 1 / QB, b2 as it is. */
void netmodel_round(const NetShape *s, NetScratch *sc, const float *w, size_t lo, size_t hi);

/* sc's W1 and b1 on the grid ([o_w2] int16): a trainer that rounds its own part of the
 * weights writes there and gathers the other ranks' parts. */
int16_t *netmodel_rounded_w1(NetScratch *sc);

/*
 * One pass over positions subset[0..nsub) of d (all of d when subset is NULL): the
 * summed losses and, when grad is not NULL, the summed gradient added to grad. Sums,
 * not means: the caller divides after adding up every rank's part.
 */
NetLoss netmodel_pass(const NetShape *s, NetScratch *sc, const NetSet *d, const uint32_t *subset,
                      uint64_t nsub, const float *w, double k, double lambda, float *grad);

/* netmodel_pass with the weights already on sc's grid (netmodel_round). */
NetLoss netmodel_pass_rounded(const NetShape *s, NetScratch *sc, const NetSet *d,
                              const uint32_t *subset, uint64_t nsub, double k, double lambda,
                              float *grad);

/* The evaluation (engine units, side to move's view) of a position. */
double netmodel_eval_position(const NetShape *s, NetScratch *sc, const float *w,
                              const Position *pos);

#endif
