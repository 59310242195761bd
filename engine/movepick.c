#include "movepick.h"

#include "see.h"

enum {
    SCORE_TT = 1 << 30,
    SCORE_GOOD_CAPTURE = 1 << 28,
    SCORE_KILLER = 1 << 27,
    SCORE_COUNTER = (1 << 27) - 2,
    SCORE_BAD_CAPTURE = -(1 << 28),
    SCORE_QUIET_CHECK = -1, /* after the captures, the only other moves of quiescence */
};

static inline int mvv_lva(const Position *pos, Move m)
{
    return SEE_VALUE[piece_type(pos_piece_on(pos, move_to(m)))] * 8 -
           SEE_VALUE[piece_type(pos_piece_on(pos, move_from(m)))] / 100;
}

static void score_moves(MovePicker *mp, const Search *s, const Position *pos, Move tt_move, int ply,
                        bool captures_only)
{
    const SearchStack *ss = &s->stack[ply];
    Move prev = ply > 0 ? s->stack[ply - 1].current : MOVE_NONE;
    Move counter = MOVE_NONE;
    if (prev != MOVE_NONE && prev != MOVE_NULL)
        counter = s->tab.counter[pos_piece_on(pos, move_to(prev))][move_to(prev)];
    for (int i = 0; i < mp->list.count; i++) {
        Move m = mp->list.moves[i];
        int sc;
        if (m == tt_move)
            sc = SCORE_TT;
        else if (pos_is_capture(pos, m))
            sc = mvv_lva(pos, m) + movepick_capture_score(s, pos, m) / 32 +
                 (captures_only || see_ge(pos, m, 0) ? SCORE_GOOD_CAPTURE : SCORE_BAD_CAPTURE);
        else if (m == ss->killers[0])
            sc = SCORE_KILLER;
        else if (m == ss->killers[1])
            sc = SCORE_KILLER - 1;
        else if (m == counter)
            sc = SCORE_COUNTER;
        else
            sc = movepick_quiet_score(s, pos, m, ply);
        mp->scores[i] = sc;
    }
    mp->next = 0;
}

int movepick_init(MovePicker *mp, const Search *s, const Position *pos, Move tt_move, int ply)
{
    mp->s = s;
    mp->pos = pos;
    mp->ply = ply;
    mp->tt_move = tt_move;
    mp->next = 0;
    if (tt_move != MOVE_NONE && move_is_legal(pos, tt_move)) {
        mp->stage = PICK_TT;
        return 1;
    }
    mp->stage = PICK_LIST;
    gen_legal(pos, &mp->list);
    score_moves(mp, s, pos, MOVE_NONE, ply, false);
    return mp->list.count;
}

void movepick_generate(MovePicker *mp)
{
    gen_legal(mp->pos, &mp->list);
    /* the hash move has been handed out: it goes first, as if picked from the list */
    for (int i = 0; i < mp->list.count; i++)
        if (mp->list.moves[i] == mp->tt_move) {
            mp->list.moves[i] = mp->list.moves[0];
            mp->list.moves[0] = mp->tt_move;
            break;
        }
    score_moves(mp, mp->s, mp->pos, MOVE_NONE, mp->ply, false);
    mp->next = 1;
    mp->stage = PICK_LIST;
}

int movepick_init_quiescence(MovePicker *mp, const Search *s, const Position *pos, Move tt_move,
                             int ply, bool quiet_checks)
{
    if (pos_in_check(pos))
        gen_legal(pos, &mp->list);
    else
        gen_captures(pos, &mp->list);
    score_moves(mp, s, pos, tt_move, ply, true);
    mp->stage = PICK_LIST;
    int generated = mp->list.count;
    if (quiet_checks) {
        MoveList quiets;
        gen_quiets(pos, &quiets);
        for (int i = 0; i < quiets.count; i++) {
            Move q = quiets.moves[i];
            if (pos_gives_check(pos, q) && see_ge(pos, q, 0)) {
                mp->scores[mp->list.count] = SCORE_QUIET_CHECK;
                mp->list.moves[mp->list.count++] = q;
            }
        }
    }
    return generated;
}
