/*
 * From the float network to the engine's file: quantised by the rules of engine/nnue.h
 * (W1, b1 x QA, W2 x QB, b2 x QA x QB, rounded to nearest), then checked: on a sample of
 * real positions the engine's own quantised evaluation (nnue_evaluate_full) must stay
 * within a bound of the float model's, or nothing is written.
 */
#ifndef CHUHE_NETEXPORT_H
#define CHUHE_NETEXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "netmodel.h"
#include "nnue.h"
#include "record.h"

/* The float weights w of shape s as a network (allocated here; nnue_net_free frees it);
 * false with the reason in err. */
bool netexport_quantise(const NetShape *s, const float *w, const char *description, NnueNet *net,
                        char *err, size_t errsize);

/* The other way: net's weights as floats of shape s (which must have net's hidden size,
 * buckets and scale), each exactly on the engine's grid, so the float model evaluates as
 * the engine does and quantising them again gives net back. */
void netexport_dequantise(const NetShape *s, const NnueNet *net, float *w);

typedef struct {
    int n;                      /* positions compared */
    double max_diff, mean_diff; /* |engine - float| in engine units */
    int worst;                  /* the sample index of the largest difference */
} NetCheck;

/* The engine's evaluation of each of the n sample positions against the float model's;
 * false when a position does not unpack (err says which). */
bool netexport_compare(const NetShape *s, const float *w, const NnueNet *net,
                       const PackedPos *sample, int n, NetCheck *out, char *err, size_t errsize);

#endif
