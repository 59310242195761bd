/*
 * Move ordering for the search. A picker generates the moves of a node, scores each
 * once and hands them out best first:
 *
 *   the hash move;
 *   captures that do not lose material by static exchange, most valuable victim
 *   first, then by capture history and least valuable attacker;
 *   the two killers of the ply, then the counter move to the opponent's last move;
 *   quiet moves by history (butterfly history plus the continuation histories of the
 *   last two plies);
 *   captures that lose material.
 *
 * The quiescence picker takes captures only (every move when in check) and does not
 * judge them by exchange; on request it adds the quiet checks that do not lose
 * material, after everything else. The histories it reads are the search's; the
 * search updates them.
 */
#ifndef CHUHE_MOVEPICK_H
#define CHUHE_MOVEPICK_H

#include "movegen.h"
#include "search.h"

/* A picker's stage: the hash move alone, before any move is generated; generating the
 * rest; handing out the list. */
enum { PICK_TT, PICK_GENERATE, PICK_LIST };

typedef struct {
    MoveList list;
    int scores[MOVELIST_MAX];
    int next; /* moves of list handed out so far */
    int stage;
    Move tt_move; /* handed out first, when legal, without generating */
    const Search *s;
    const Position *pos;
    int ply;
} MovePicker;

/* The main search's picker over every legal move at ply. A legal hash move comes first,
 * and the other moves are generated only if the search asks for a second move (most
 * nodes with a hash move cut off on it). Returns 0 when the side to move has no legal
 * move, otherwise a positive number (the moves' count when they were generated). */
int movepick_init(MovePicker *mp, const Search *s, const Position *pos, Move tt_move, int ply);

/* Generates and scores the moves after the hash move (movepick_next calls it). */
void movepick_generate(MovePicker *mp);

/* The quiescence picker: captures, or every legal move when in check; with
 * quiet_checks (never in check), the quiet checks too. Returns the number generated
 * before the quiet checks. */
int movepick_init_quiescence(MovePicker *mp, const Search *s, const Position *pos, Move tt_move,
                             int ply, bool quiet_checks);

/* The history score of quiet move m at ply: butterfly plus continuation histories. */
static inline int movepick_quiet_score(const Search *s, const Position *pos, Move m, int ply)
{
    Piece pc = pos_piece_on(pos, move_from(m));
    int sc = s->tab.history[pos->side][move_from(m)][move_to(m)];
    for (int k = 1; k <= 2 && ply - k >= 0; k++)
        if (s->stack[ply - k].cont)
            sc += (*s->stack[ply - k].cont)[pc][move_to(m)];
    return sc;
}

/* The capture-history entry of capture m (mover, target square, captured kind), as an
 * lvalue: the search updates it, the picker reads it. */
#define MOVEPICK_CAPTURE_ENTRY(s, pos, m)                                    \
    ((s)->tab.capture_history[pos_piece_on((pos), move_from(m))][move_to(m)] \
                             [piece_type(pos_piece_on((pos), move_to(m)))])

/* The capture history of capture m: how often it was the cut-off. */
static inline int movepick_capture_score(const Search *s, const Position *pos, Move m)
{
    return MOVEPICK_CAPTURE_ENTRY(s, pos, m);
}

/* The best move not handed out yet, or MOVE_NONE. A selection sort one move at a time:
 * most nodes cut off after a few moves. */
static inline Move movepick_next(MovePicker *mp)
{
    if (mp->stage != PICK_LIST) {
        if (mp->stage == PICK_TT) {
            mp->stage = PICK_GENERATE;
            return mp->tt_move;
        }
        movepick_generate(mp);
    }
    if (mp->next >= mp->list.count)
        return MOVE_NONE;
    int best = mp->next;
    for (int i = mp->next + 1; i < mp->list.count; i++)
        if (mp->scores[i] > mp->scores[best])
            best = i;
    Move m = mp->list.moves[best];
    int sc = mp->scores[best];
    mp->list.moves[best] = mp->list.moves[mp->next];
    mp->scores[best] = mp->scores[mp->next];
    mp->list.moves[mp->next] = m;
    mp->scores[mp->next] = sc;
    mp->next++;
    return m;
}

#endif
