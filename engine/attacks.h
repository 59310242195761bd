/*
 * Geometry tables, built once by attacks_init(): where each piece can step from a
 * point, and the slider tables for chariots and cannons.
 *
 * Sliders work on one line at a time. A rank is a 9-bit occupancy (bit = file), a
 * file a 10-bit occupancy (bit = rank). For a piece at index i of the line and an
 * occupancy occ, the tables give bit masks of line indices:
 *   slide: the empty points reachable before the first piece on each side,
 *   hit1:  the first piece on each side (chariot captures, facing generals),
 *   hit2:  the second piece on each side (cannon captures over one screen).
 */
#ifndef CHUHE_ATTACKS_H
#define CHUHE_ATTACKS_H

#include "bitboard.h"
#include "types.h"

typedef struct {
    uint8_t n;
    uint8_t to[8];
    uint8_t via[8]; /* the horse leg or elephant eye that must be empty; unused otherwise */
} StepList;

extern uint16_t rank_slide[FILE_NB][1 << FILE_NB];
extern uint16_t rank_hit1[FILE_NB][1 << FILE_NB];
extern uint16_t rank_hit2[FILE_NB][1 << FILE_NB];
extern uint16_t file_slide[RANK_NB][1 << RANK_NB];
extern uint16_t file_hit1[RANK_NB][1 << RANK_NB];
extern uint16_t file_hit2[RANK_NB][1 << RANK_NB];

extern StepList king_steps[SQUARE_NB];     /* inside the palace the square is in */
extern StepList advisor_steps[SQUARE_NB];  /* palace diagonals */
extern StepList elephant_steps[SQUARE_NB]; /* own half, via = eye */
extern StepList horse_steps[SQUARE_NB];    /* via = leg */
extern StepList soldier_steps[COLOR_NB][SQUARE_NB];
/* Reverse tables for attack tests: horses that attack a square (via = their leg),
 * and soldiers of colour c that attack a square. */
extern StepList horse_attackers[SQUARE_NB];
extern StepList soldier_attackers[COLOR_NB][SQUARE_NB];

/* Legal homes of each piece kind, per colour (FEN validation, evaluation). */
extern Bitboard palace_bb[COLOR_NB];
extern Bitboard advisor_home_bb[COLOR_NB];
extern Bitboard elephant_home_bb[COLOR_NB];
extern Bitboard half_bb[COLOR_NB];

extern Bitboard rank_bb[RANK_NB];
extern Bitboard file_bb[FILE_NB];

/* A file occupancy (bit = rank) spread onto file a; shift left by the file. */
extern Bitboard file_spread[1 << RANK_NB];

static inline Bitboard line_on_rank(unsigned mask, int r) { return (Bitboard)mask << (r * FILE_NB); }
static inline Bitboard line_on_file(unsigned mask, int f) { return file_spread[mask] << f; }

/* Points strictly between a and b, which share a rank or a file. */
static inline Bitboard between_bb(Square a, Square b)
{
    int ia, ib;
    if (sq_rank(a) == sq_rank(b)) {
        ia = sq_file(a), ib = sq_file(b);
    } else {
        ia = sq_rank(a), ib = sq_rank(b);
    }
    int lo = ia < ib ? ia : ib, hi = ia ^ ib ^ lo;
    unsigned mask = ((1u << hi) - 1) & ~((2u << lo) - 1);
    return sq_rank(a) == sq_rank(b) ? line_on_rank(mask, sq_rank(a)) : line_on_file(mask, sq_file(a));
}

/* Builds every table; cheap, idempotent, not thread-safe on first call. */
void attacks_init(void);

#endif
