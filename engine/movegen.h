/*
 * Legal move generation. Reads a position, never changes it.
 *
 * Every generator returns only legal moves: the mover's general is not left attacked
 * and the generals never face each other on an open file.
 */
#ifndef CHUHE_MOVEGEN_H
#define CHUHE_MOVEGEN_H

#include "position.h"

enum { MOVELIST_MAX = 256 };

typedef struct {
    Move moves[MOVELIST_MAX];
    int count;
} MoveList;

/* All legal moves (evasions when in check). */
int gen_legal(const Position *pos, MoveList *list);
/* Legal captures only (when in check: the capturing evasions). */
int gen_captures(const Position *pos, MoveList *list);
/* Legal non-captures only (when in check: the non-capturing evasions). */
int gen_quiets(const Position *pos, MoveList *list);
/* Legal moves out of check; the side to move must be in check. */
int gen_evasions(const Position *pos, MoveList *list);
/* Number of legal moves, without storing them. */
int gen_count(const Position *pos);

/* Pieces of colour c that shield c's general: the only piece between it and an enemy
 * chariot or the other general, one of two between it and an enemy cannon, or a piece
 * on the leg of an enemy horse aimed at it. */
Bitboard gen_pinned(const Position *pos, Color c);

/* Whether an arbitrary 16-bit move (from a table, a file or a user) is legal here. */
bool move_is_legal(const Position *pos, Move m);
/* Whether a pseudo-legal move leaves the mover's general safe. */
bool move_keeps_king_safe(const Position *pos, Move m);

#endif
