#include "qresolve.h"

#include "evaluate.h"
#include "movegen.h"
#include "see.h"

typedef struct {
    int len;
    Move m[QRESOLVE_MAX_PLIES];
} Line;

/* Most valuable victim first, then least valuable attacker: insertion sort by key. */
static void order_captures(const Position *pos, MoveList *l)
{
    int key[MOVELIST_MAX];
    for (int i = 0; i < l->count; i++) {
        Move m = l->moves[i];
        key[i] = SEE_VALUE[piece_type(pos_piece_on(pos, move_to(m)))] * 16 -
                 SEE_VALUE[piece_type(pos_piece_on(pos, move_from(m)))] / 100;
    }
    for (int i = 1; i < l->count; i++) {
        Move m = l->moves[i];
        int k = key[i], j = i - 1;
        for (; j >= 0 && key[j] < k; j--) {
            l->moves[j + 1] = l->moves[j];
            key[j + 1] = key[j];
        }
        l->moves[j + 1] = m;
        key[j + 1] = k;
    }
}

static Value qs(Position *pos, const EvalParams *params, Value alpha, Value beta, int ply, Line *pv)
{
    pv->len = 0;
    Value stand = evaluate(pos, params);
    if (stand >= beta || ply >= QRESOLVE_MAX_PLIES)
        return stand;
    if (stand > alpha)
        alpha = stand;
    MoveList list;
    gen_captures(pos, &list);
    order_captures(pos, &list);
    Line child;
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        if (!see_ge(pos, m, 0))
            continue;
        pos_do_move(pos, m);
        Value v = -qs(pos, params, -beta, -alpha, ply + 1, &child);
        pos_undo_move(pos);
        if (v > alpha) {
            alpha = v;
            pv->m[0] = m;
            for (int k = 0; k < child.len; k++)
                pv->m[k + 1] = child.m[k];
            pv->len = child.len + 1;
            if (v >= beta)
                break;
        }
    }
    return alpha;
}

int qresolve(Position *pos, const EvalParams *params)
{
    if (pos_in_check(pos))
        return 0;
    if (pos->hist_len + QRESOLVE_MAX_PLIES >= POS_HISTORY_MAX)
        pos_trim_history(pos);
    Line pv;
    qs(pos, params, -VALUE_INFINITE, VALUE_INFINITE, 0, &pv);
    for (int k = 0; k < pv.len; k++)
        pos_do_move(pos, pv.m[k]);
    return pv.len;
}
