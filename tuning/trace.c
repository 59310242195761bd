#include "trace.h"

#include <stdlib.h>

void trace_position(const Position *pos, const EvalParams *params, TracedPos *out)
{
    EvalTrace tr;
    out->eval = evaluate_traced(pos, params, &tr);
    out->phase = tr.phase;
    out->n = 0;
    for (int i = 0; i < EVAL_PARAM_NB; i++) {
        int c = tr.coef[i][RED] - tr.coef[i][BLACK];
        if (c) {
            out->idx[out->n] = (uint16_t)i;
            out->coef[out->n] = (int16_t)c;
            out->n++;
        }
    }
}

Value trace_reconstruct(const EvalParams *params, const uint16_t *idx, const int8_t *coef, int n,
                        int phase)
{
    const Score *w = (const Score *)params;
    long mg = 0, eg = 0;
    for (int k = 0; k < n; k++) {
        mg += (long)coef[k] * score_mg(w[idx[k]]);
        eg += (long)coef[k] * score_eg(w[idx[k]]);
    }
    return eval_clamp((mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX);
}

bool trace_check(const Position *pos, const EvalParams *params, const uint16_t *idx,
                 const int8_t *coef, int n, int phase, int tolerance, TraceMismatch *m)
{
    Value engine = evaluate(pos, params);
    if (pos->side == BLACK)
        engine = -engine;
    Value rec = trace_reconstruct(params, idx, coef, n, phase);
    bool ok = abs(engine - rec) <= tolerance && phase == eval_phase(pos);
    if (!ok && m) {
        pos_get_fen(pos, m->fen, sizeof m->fen);
        m->engine = engine;
        m->reconstructed = rec;
        m->phase = phase;
    }
    return ok;
}
