/*
 * A slow reference for move generation tests: plain mailbox code written from the
 * rules alone, sharing no table or code with engine/movegen.c. It reads only a board
 * (Piece per point, as Position.board) and a side. Also random positions with lawful
 * piece placement, for tests that want positions no game reaches.
 */
#ifndef CHUHE_TESTS_REFGEN_H
#define CHUHE_TESTS_REFGEN_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

/* Pseudo-legal moves of the piece on s (how it moves, not whether its general stays
 * safe); out needs room for 32. Returns their number. */
int ref_piece_moves(const uint8_t *board, Square s, Move *out);
/* Pseudo-legal moves of every piece of side; out needs room for 256. */
int ref_pseudo_moves(const uint8_t *board, Color side, Move *out);
/* Whether the two generals stand on one file with nothing between them. */
bool ref_generals_face(const uint8_t *board);
/* Whether some piece of the other side could capture the general of c, or the
 * generals face each other. */
bool ref_general_exposed(const uint8_t *board, Color c);
/* Whether the pseudo-legal move m, made on a copy of the board, leaves the mover's
 * general safe. */
bool ref_is_legal(const uint8_t *board, Move m);
/* Legal moves of side; out needs room for 256. */
int ref_legal_moves(const uint8_t *board, Color side, Move *out);

/* xorshift64; the state must not be 0. */
uint64_t ref_rng_next(uint64_t *state);
/*
 * A random position as a FEN (size >= 128): both generals, and a random number of
 * each other piece (within the FEN limits) on random points where the FEN rules allow
 * it, random side to move. The side not to move may be in check, which the FEN parser
 * rejects: callers skip those.
 */
void ref_random_fen(uint64_t *rng, char *fen, size_t size);

#endif
