#include "see.h"

const Value SEE_VALUE[PIECE_TYPE_NB] = {0, 10000, 200, 200, 400, 900, 450, 100};

/* The least valuable piece of colour c among attackers, and its type. */
static Square least_valuable(const Position *pos, Color c, Bitboard attackers, PieceType *type)
{
    static const PieceType ORDER[] = {SOLDIER, ADVISOR, ELEPHANT, HORSE, CANNON, CHARIOT, KING};
    for (unsigned i = 0; i < sizeof ORDER / sizeof ORDER[0]; i++) {
        Bitboard b = attackers & pos_pieces(pos, c, ORDER[i]);
        if (b) {
            *type = ORDER[i];
            return bb_lsb(b);
        }
    }
    return SQ_NONE;
}

/*
 * The exchange runs on an occupancy alone: a capture on `to` only empties the point the
 * capturer came from, so every other occupied point still holds the position's piece,
 * and pos_attackers_to reads the position's pieces through occ. What stands on `to`
 * matters once: a general there is attacked by the other general along the file.
 */
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

    Bitboard occ = (pos->occupied ^ bb_square(from)) | bb_square(to);
    PieceType on_to = piece_type(mover);
    Color side = color_flip(piece_color(mover));
    bool result = true; /* flips with every capture: true when the mover comes out ahead */
    for (;;) {
        Bitboard att = pos_attackers_to(pos, to, occ, side, on_to == KING);
        if (!att)
            break;
        PieceType t = NO_PIECE_TYPE;
        Square s = least_valuable(pos, side, att, &t);
        /* a general may only take when the point is not defended */
        if (t == KING && pos_attackers_to(pos, to, occ, color_flip(side), false))
            break;
        result = !result;
        swap = SEE_VALUE[t] - swap;
        if (swap < (result ? 1 : 0))
            break;
        occ ^= bb_square(s);
        on_to = t;
        side = color_flip(side);
    }
    return result;
}
