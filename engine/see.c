#include "see.h"

#include <string.h>

const Value SEE_VALUE[PIECE_TYPE_NB] = {0, 10000, 200, 200, 400, 900, 450, 100};

/* The board part of a position, enough for pos_attackers and the primitives. */
static void board_copy(Position *dst, const Position *src)
{
    memcpy(dst, src, offsetof(Position, hist));
}

static Square least_valuable(const Position *p, Bitboard attackers, PieceType *type)
{
    static const PieceType ORDER[] = {SOLDIER, ADVISOR, ELEPHANT, HORSE, CANNON, CHARIOT, KING};
    for (unsigned i = 0; i < sizeof ORDER / sizeof ORDER[0]; i++) {
        for (Color c = RED; c < COLOR_NB; c++) {
            Bitboard b = attackers & p->by_piece[piece_make(c, ORDER[i])];
            if (b) {
                *type = ORDER[i];
                return bb_lsb(b);
            }
        }
    }
    return SQ_NONE;
}

bool see_ge(const Position *pos, Move m, Value threshold)
{
    Square from = move_from(m), to = move_to(m);
    Piece victim = pos_piece_on(pos, to);
    Value swap = SEE_VALUE[piece_type(victim)] - threshold;
    if (swap < 0)
        return false;
    Piece mover = pos_piece_on(pos, from);
    swap = SEE_VALUE[piece_type(mover)] - swap;
    if (swap <= 0)
        return true;

    Position b;
    board_copy(&b, pos);
    if (victim)
        pos_remove_piece(&b, to);
    pos_move_piece(&b, from, to);

    Color side = color_flip(piece_color(mover));
    bool result = true; /* flips with every capture: true when the mover comes out ahead */
    for (;;) {
        Bitboard att = pos_attackers(&b, to, side);
        if (!att)
            break;
        PieceType t = NO_PIECE_TYPE;
        Square s = least_valuable(&b, att, &t);
        /* a general may only take when the point is not defended */
        if (t == KING && pos_attackers(&b, to, color_flip(side)))
            break;
        result = !result;
        swap = SEE_VALUE[t] - swap;
        if (swap < (result ? 1 : 0))
            break;
        pos_remove_piece(&b, to);
        pos_move_piece(&b, s, to);
        side = color_flip(side);
    }
    return result;
}
