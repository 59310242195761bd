#include "tests/support/refgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ref_in_palace(Color c, int f, int r)
{
    return f >= 3 && f <= 5 && (c == RED ? r <= 2 : r >= 7);
}

static bool ref_own_half(Color c, int r)
{
    return c == RED ? r <= 4 : r >= 5;
}

static bool ref_empty(const uint8_t *b, int f, int r)
{
    return b[sq_make(f, r)] == NO_PIECE;
}

/* Adds from -> (tf, tr) unless it leaves the board or lands on a piece of colour us. */
static int ref_add(const uint8_t *b, Color us, Square from, int tf, int tr, Move *out, int n)
{
    if (!sq_valid(tf, tr))
        return n;
    Piece t = (Piece)b[sq_make(tf, tr)];
    if (t != NO_PIECE && piece_color(t) == us)
        return n;
    out[n] = move_make(from, sq_make(tf, tr));
    return n + 1;
}

/* Pseudo-legal moves of the piece on s: how it moves, not whether its general is safe. */
int ref_piece_moves(const uint8_t *b, Square s, Move *out)
{
    static const int ORTH[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    static const int DIAG[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    static const int HORSE_JUMPS[8][2] = {{1, 2}, {-1, 2}, {1, -2}, {-1, -2},
                                          {2, 1}, {2, -1}, {-2, 1}, {-2, -1}};
    Piece pc = (Piece)b[s];
    Color us = piece_color(pc);
    int f = sq_file(s), r = sq_rank(s), n = 0;
    switch (piece_type(pc)) {
    case KING:
        for (int k = 0; k < 4; k++) {
            int tf = f + ORTH[k][0], tr = r + ORTH[k][1];
            if (ref_in_palace(us, tf, tr))
                n = ref_add(b, us, s, tf, tr, out, n);
        }
        break;
    case ADVISOR:
        for (int k = 0; k < 4; k++) {
            int tf = f + DIAG[k][0], tr = r + DIAG[k][1];
            if (ref_in_palace(us, tf, tr))
                n = ref_add(b, us, s, tf, tr, out, n);
        }
        break;
    case ELEPHANT:
        for (int k = 0; k < 4; k++) {
            int tf = f + 2 * DIAG[k][0], tr = r + 2 * DIAG[k][1];
            if (sq_valid(tf, tr) && ref_own_half(us, tr) &&
                ref_empty(b, f + DIAG[k][0], r + DIAG[k][1]))
                n = ref_add(b, us, s, tf, tr, out, n);
        }
        break;
    case HORSE:
        for (int k = 0; k < 8; k++) {
            int df = HORSE_JUMPS[k][0], dr = HORSE_JUMPS[k][1];
            /* the leg is the orthogonal neighbour in the long direction */
            int lf = f + (abs(df) == 2 ? df / 2 : 0), lr = r + (abs(dr) == 2 ? dr / 2 : 0);
            if (sq_valid(f + df, r + dr) && ref_empty(b, lf, lr))
                n = ref_add(b, us, s, f + df, r + dr, out, n);
        }
        break;
    case CHARIOT:
    case CANNON:
        for (int k = 0; k < 4; k++) {
            bool screen = false;
            for (int tf = f + ORTH[k][0], tr = r + ORTH[k][1]; sq_valid(tf, tr);
                 tf += ORTH[k][0], tr += ORTH[k][1]) {
                bool empty = ref_empty(b, tf, tr);
                if (piece_type(pc) == CHARIOT) {
                    n = ref_add(b, us, s, tf, tr, out, n);
                    if (!empty)
                        break;
                } else if (!screen) {
                    if (empty)
                        n = ref_add(b, us, s, tf, tr, out, n);
                    else
                        screen = true;
                } else if (!empty) {
                    n = ref_add(b, us, s, tf, tr, out, n);
                    break;
                }
            }
        }
        break;
    case SOLDIER: {
        int fwd = us == RED ? 1 : -1;
        n = ref_add(b, us, s, f, r + fwd, out, n);
        if (!ref_own_half(us, r)) {
            n = ref_add(b, us, s, f - 1, r, out, n);
            n = ref_add(b, us, s, f + 1, r, out, n);
        }
        break;
    }
    default:
        break;
    }
    return n;
}

static Square ref_find_general(const uint8_t *b, Color c)
{
    for (Square s = 0; s < SQUARE_NB; s++)
        if (b[s] == piece_make(c, KING))
            return s;
    return SQ_NONE;
}

/* Whether the two generals stand on one file with nothing between them. */
bool ref_generals_face(const uint8_t *b)
{
    Square a = ref_find_general(b, RED), z = ref_find_general(b, BLACK);
    if (sq_file(a) != sq_file(z))
        return false;
    for (int r = sq_rank(a) + 1; r < sq_rank(z); r++)
        if (!ref_empty(b, sq_file(a), r))
            return false;
    return true;
}

/* Whether some piece of the other side could capture the general of c, or it faces
 * the other general. */
bool ref_general_exposed(const uint8_t *b, Color c)
{
    if (ref_generals_face(b))
        return true;
    Square ks = ref_find_general(b, c);
    Move mv[32];
    for (Square s = 0; s < SQUARE_NB; s++) {
        if (b[s] == NO_PIECE || piece_color((Piece)b[s]) == c)
            continue;
        int n = ref_piece_moves(b, s, mv);
        for (int i = 0; i < n; i++)
            if (move_to(mv[i]) == ks)
                return true;
    }
    return false;
}

/* Makes m on a copy of the board and tests the mover's general there. */
bool ref_is_legal(const uint8_t *board, Move m)
{
    uint8_t b[SQUARE_NB];
    memcpy(b, board, sizeof b);
    Color us = piece_color((Piece)b[move_from(m)]);
    b[move_to(m)] = b[move_from(m)];
    b[move_from(m)] = NO_PIECE;
    return !ref_general_exposed(b, us);
}

int ref_pseudo_moves(const uint8_t *board, Color side, Move *out)
{
    int n = 0;
    for (Square s = 0; s < SQUARE_NB; s++)
        if (board[s] != NO_PIECE && piece_color((Piece)board[s]) == side)
            n += ref_piece_moves(board, s, out + n);
    return n;
}

int ref_legal_moves(const uint8_t *board, Color side, Move *out)
{
    Move pseudo[256];
    int np = ref_pseudo_moves(board, side, pseudo), n = 0;
    for (int i = 0; i < np; i++)
        if (ref_is_legal(board, pseudo[i]))
            out[n++] = pseudo[i];
    return n;
}

uint64_t ref_rng_next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* A point for piece pc chosen at random among those the FEN rules allow, or SQ_NONE
 * when 50 tries found none free. The generals come first, on an empty board. */
static Square random_point(const uint8_t *board, Piece pc, uint64_t *rng)
{
    Color c = piece_color(pc);
    if (piece_type(pc) == KING) {
        int r = (int)(ref_rng_next(rng) % 3);
        return sq_make(3 + (int)(ref_rng_next(rng) % 3), c == RED ? r : RANK_NB - 1 - r);
    }
    for (int tries = 0; tries < 50; tries++) {
        Square s = (Square)(ref_rng_next(rng) % SQUARE_NB);
        int f = sq_file(s), r = sq_rank(s), rr = c == RED ? r : RANK_NB - 1 - r;
        bool ok = true;
        switch (piece_type(pc)) {
        case ADVISOR:
            ok = ref_in_palace(c, f, r) && (f + rr) % 2 == 1;
            break;
        case ELEPHANT:
            ok = ref_own_half(c, r) && f % 2 == 0 && rr % 2 == 0 && (f + rr) % 4 == 2;
            break;
        case SOLDIER:
            ok = rr >= 5 || (rr >= 3 && f % 2 == 0);
            break;
        default:
            break;
        }
        if (ok && board[s] == NO_PIECE)
            return s;
    }
    return SQ_NONE;
}

/* Writes a FEN with default counters. */
static void board_fen(const uint8_t *board, Color side, char *out, size_t size)
{
    static const char CH[] = " KABNRCP kabnrcp";
    char tmp[128], *o = tmp;
    for (int r = RANK_NB - 1; r >= 0; r--) {
        int empty = 0;
        for (int f = 0; f < FILE_NB; f++) {
            Piece pc = (Piece)board[sq_make(f, r)];
            if (pc == NO_PIECE) {
                empty++;
                continue;
            }
            if (empty)
                *o++ = (char)('0' + empty);
            empty = 0;
            *o++ = CH[pc];
        }
        if (empty)
            *o++ = (char)('0' + empty);
        if (r)
            *o++ = '/';
    }
    *o = '\0';
    snprintf(out, size, "%s %c - - 0 1", tmp, side == RED ? 'w' : 'b');
}

void ref_random_fen(uint64_t *rng, char *fen, size_t size)
{
    static const int MAX_OF[PIECE_TYPE_NB] = {0, 1, 2, 2, 2, 2, 2, 5};
    uint8_t board[SQUARE_NB] = {0};
    for (PieceType t = KING; t < PIECE_TYPE_NB; t++)
        for (Color c = RED; c < COLOR_NB; c++) {
            int n = t == KING ? 1 : (int)(ref_rng_next(rng) % (unsigned)(MAX_OF[t] + 1));
            for (int i = 0; i < n; i++) {
                Piece pc = piece_make(c, t);
                Square s = random_point(board, pc, rng);
                if (s != SQ_NONE)
                    board[s] = (uint8_t)pc;
            }
        }
    board_fen(board, (Color)(ref_rng_next(rng) & 1), fen, size);
}
