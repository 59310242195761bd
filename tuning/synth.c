#include "synth.h"

#include <stdlib.h>

#include "model.h"
#include "movegen.h"
#include "rng.h"
#include "trace.h"

int synth_game(Position *pos, uint64_t *rng, int max_plies,
               bool (*fn)(void *ctx, const Position *pos), void *ctx)
{
    PosError err;
    if (!pos_set_fen(pos, START_FEN, &err))
        return 0;
    int ply = 0;
    for (; ply < max_plies; ply++) {
        if (!pos_in_check(pos) && !fn(ctx, pos))
            break;
        MoveList quiet, capt;
        gen_quiets(pos, &quiet);
        gen_captures(pos, &capt);
        if (quiet.count + capt.count == 0)
            break;
        /* a capture one time in eight when there is one */
        const MoveList *l =
            capt.count && (quiet.count == 0 || rng_next(rng) % 8 == 0) ? &capt : &quiet;
        if (pos_history_full(pos))
            pos_trim_history(pos);
        pos_do_move(pos, l->moves[rng_below(rng, (uint64_t)l->count)]);
    }
    return ply;
}

typedef struct {
    Dataset *d;
    uint64_t want;
    uint64_t *rng;
    const EvalParams *params;
    double k;
    TracedPos *tp;
    int8_t coef[EVAL_PARAM_NB];
    bool ok;
} SynthCtx;

static bool synth_take(void *ctx, const Position *pos)
{
    SynthCtx *c = ctx;
    if (c->d->n >= c->want)
        return false;
    if (rng_next(c->rng) % 4)
        return true;
    trace_position(pos, c->params, c->tp);
    for (int i = 0; i < c->tp->n; i++)
        c->coef[i] = (int8_t)c->tp->coef[i];
    Value ev = c->tp->eval;
    /* draws in the middle, and an expected score of exactly sigmoid(k * eval) */
    double u = rng_unit(rng_next(c->rng)), p = model_sigmoid(c->k * ev);
    double draw = 0.4 * (p < 1 - p ? p : 1 - p);
    int result = u < p - draw / 2 ? 1 : u < p + draw / 2 ? 0 : -1;
    int score = ev > 30000 ? 30000 : ev < -30000 ? -30000 : ev;
    c->ok = dataset_add(c->d, c->tp->idx, c->coef, c->tp->n, c->tp->phase, score, result,
                        (uint32_t)(rng_next(c->rng) >> 32));
    return c->ok;
}

bool synth_positions(Dataset *d, uint64_t n, uint64_t seed, const EvalParams *params, double k)
{
    Position *pos = malloc(sizeof *pos);
    TracedPos *tp = malloc(sizeof *tp);
    uint64_t rng = rng_mix(seed);
    SynthCtx c = {d, d->n + n, &rng, params, k, tp, {0}, true};
    bool ok = pos && tp;
    while (ok && c.ok && d->n < c.want)
        synth_game(pos, &rng, 200, synth_take, &c);
    free(pos);
    free(tp);
    return ok && c.ok;
}
