#include "engine.h"

#include <stdio.h>
#include <stdlib.h>

#include "movegen.h"
#include "notation.h"

struct Engine {
    Position pos;
    Position scratch; /* where a new position is built before it replaces pos */
};

Engine *engine_new(void)
{
    position_init();
    Engine *e = malloc(sizeof *e);
    if (!e)
        return NULL;
    PosError err;
    bool ok = pos_set_fen(&e->pos, START_FEN, &err);
    (void)ok;
    return e;
}

void engine_free(Engine **e)
{
    if (!e || !*e)
        return;
    free(*e);
    *e = NULL;
}

void engine_new_game(Engine *e) { (void)e; }

bool engine_set_position(Engine *e, const char *fen, const char *const *moves, int nmoves,
                         PosError *err)
{
    Position *p = &e->scratch;
    if (!pos_set_fen(p, fen ? fen : START_FEN, err))
        return false;
    for (int i = 0; i < nmoves; i++) {
        Move m = move_from_text(moves[i]);
        if (m == MOVE_NONE) {
            snprintf(err->msg, sizeof err->msg, "move %d '%.16s' is not a move in a0-i9 form",
                     i + 1, moves[i]);
            return false;
        }
        if (!move_is_legal(p, m)) {
            snprintf(err->msg, sizeof err->msg, "move %d '%.16s' is illegal in this position",
                     i + 1, moves[i]);
            return false;
        }
        if (pos_history_full(p))
            pos_trim_history(p);
        pos_do_move(p, m);
    }
    pos_copy(&e->pos, p);
    return true;
}

const Position *engine_position(const Engine *e) { return &e->pos; }

uint64_t engine_perft(Engine *e, int depth, PerftDivideFn fn, void *ctx)
{
    pos_copy(&e->scratch, &e->pos);
    return perft_divide(&e->scratch, depth, fn, ctx);
}
