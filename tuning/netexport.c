#include "netexport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static int16_t round16(float x, float q, int bound)
{
    long v = lroundf(x * q);
    return (int16_t)(v > bound ? bound : v < -bound ? -bound : v);
}

bool netexport_quantise(const NetShape *s, const float *w, const char *description, NnueNet *net,
                        char *err, size_t errsize)
{
    if (!nnue_net_alloc(net, (uint32_t)s->hidden, (uint32_t)s->buckets, err, errsize))
        return false;
    net->scale = (int32_t)s->scale;
    snprintf(net->description, sizeof net->description, "%s", description);
    size_t H = (size_t)s->hidden, B = (size_t)s->buckets;
    for (size_t i = 0; i < NNUE_INPUTS * H; i++)
        net->w1[i] = round16(w[i], NNUE_QA, NNUE_W1_MAX);
    for (size_t i = 0; i < H; i++)
        net->b1[i] = round16(w[s->o_b1 + i], NNUE_QA, NNUE_W1_MAX);
    for (size_t i = 0; i < 2 * H * B; i++)
        net->w2[i] = round16(w[s->o_w2 + i], NNUE_QB, NNUE_W2_MAX);
    for (size_t b = 0; b < B; b++) {
        double v = nearbyint((double)w[s->o_b2 + b] * NNUE_QA * NNUE_QB);
        if (!(fabs(v) < 2147483647.0)) {
            nnue_net_free(net);
            return error_set(err, errsize, "output bias of bucket %zu (%g) does not fit int32", b,
                             (double)w[s->o_b2 + b]);
        }
        net->b2[b] = (int32_t)v;
    }
    return true;
}

void netexport_dequantise(const NetShape *s, const NnueNet *net, float *w)
{
    size_t H = (size_t)s->hidden, B = (size_t)s->buckets;
    for (size_t i = 0; i < NNUE_INPUTS * H; i++)
        w[i] = (float)net->w1[i] / NNUE_QA;
    for (size_t i = 0; i < H; i++)
        w[s->o_b1 + i] = (float)net->b1[i] / NNUE_QA;
    for (size_t i = 0; i < 2 * H * B; i++)
        w[s->o_w2 + i] = (float)net->w2[i] / NNUE_QB;
    for (size_t b = 0; b < B; b++)
        w[s->o_b2 + b] = (float)((double)net->b2[b] / ((double)NNUE_QA * NNUE_QB));
}

bool netexport_compare(const NetShape *s, const float *w, const NnueNet *net,
                       const PackedPos *sample, int n, NetCheck *out, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    Position *pos = malloc(sizeof *pos);
    NetScratch *sc = netmodel_scratch_new(s);
    if (!pos || !sc) {
        free(pos);
        netmodel_scratch_free(&sc);
        return error_set(err, errsize, "out of memory");
    }
    double sum = 0;
    bool ok = true;
    for (int i = 0; i < n; i++) {
        PosError pe;
        if (!record_unpack(&sample[i], pos, &pe)) {
            ok = error_set(err, errsize, "sample position %d: %s", i, pe.msg);
            break;
        }
        double d =
            fabs((double)nnue_evaluate_full(net, pos) - netmodel_eval_position(s, sc, w, pos));
        sum += d;
        if (d > out->max_diff) {
            out->max_diff = d;
            out->worst = i;
        }
        out->n++;
    }
    out->mean_diff = out->n ? sum / out->n : 0;
    free(pos);
    netmodel_scratch_free(&sc);
    return ok;
}
