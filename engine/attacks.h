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
/* The points of the lists above as bitboards (king_steps_bb[s] holds king_steps[s].to),
 * legs and eyes aside. */
extern Bitboard king_steps_bb[SQUARE_NB];
extern Bitboard advisor_steps_bb[SQUARE_NB];
extern Bitboard elephant_steps_bb[SQUARE_NB];
extern Bitboard horse_attackers_bb[SQUARE_NB];
extern Bitboard soldier_attackers_bb[COLOR_NB][SQUARE_NB];
/* Where a move must start or end to check a general on s: its file and rank (a line
 * piece, a screen, the general or a soldier next to it), a horse's points against s, or
 * a diagonal neighbour of s (a horse leg that a move can clear). A move that touches
 * neither set cannot give check; pos_gives_check answers the rest. */
extern Bitboard check_from_bb[SQUARE_NB];
extern Bitboard check_to_bb[SQUARE_NB];

/* Legal homes of each piece kind, per colour (FEN validation, evaluation). */
extern Bitboard palace_bb[COLOR_NB];
extern Bitboard advisor_home_bb[COLOR_NB];
extern Bitboard elephant_home_bb[COLOR_NB];
extern Bitboard half_bb[COLOR_NB];

extern Bitboard rank_bb[RANK_NB];
extern Bitboard file_bb[FILE_NB];

/* A file occupancy (bit = rank) spread onto file a; shift left by the file. */
extern Bitboard file_spread[1 << RANK_NB];

static inline Bitboard line_on_rank(unsigned mask, int r)
{
    return (Bitboard)mask << (r * FILE_NB);
}
static inline Bitboard line_on_file(unsigned mask, int f)
{
    return file_spread[mask] << f;
}

/* What a chariot or cannon on s meets along its rank and file, for the line occupancies
 * ro of that rank and fo of that file: the empty points before the first piece, the
 * first piece (what a chariot takes) and the second (what a cannon takes). */
static inline Bitboard attacks_slide(Square s, unsigned ro, unsigned fo)
{
    int f = sq_file(s), r = sq_rank(s);
    return line_on_rank(rank_slide[f][ro], r) | line_on_file(file_slide[r][fo], f);
}

static inline Bitboard attacks_hit1(Square s, unsigned ro, unsigned fo)
{
    int f = sq_file(s), r = sq_rank(s);
    return line_on_rank(rank_hit1[f][ro], r) | line_on_file(file_hit1[r][fo], f);
}

static inline Bitboard attacks_hit2(Square s, unsigned ro, unsigned fo)
{
    int f = sq_file(s), r = sq_rank(s);
    return line_on_rank(rank_hit2[f][ro], r) | line_on_file(file_hit2[r][fo], f);
}

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
    return sq_rank(a) == sq_rank(b) ? line_on_rank(mask, sq_rank(a))
                                    : line_on_file(mask, sq_file(a));
}

/* The rank r of an occupancy as a line occupancy (bit = file). */
static inline unsigned attacks_rank_occ(Bitboard occ, int r)
{
    return (unsigned)(occ >> (r * FILE_NB)) & ((1u << FILE_NB) - 1);
}

/* The file f of an occupancy as a line occupancy (bit = rank). Ranks 0-7 of file a sit at
 * bits 9k of the low word; one multiplication gathers them into its top byte, each
 * partial product landing on its own bit (no carries). Ranks 8 and 9 are in the high word. */
static inline unsigned attacks_file_occ(Bitboard occ, int f)
{
    Bitboard a = (occ >> f) & file_bb[0];
    uint64_t lo = (uint64_t)a, hi = (uint64_t)(a >> 64);
    unsigned low8 = (unsigned)((lo * 0x0101010101010101ULL) >> 56);
    return low8 | (unsigned)((hi >> 8) & 1) << 8 | (unsigned)((hi >> 17) & 1) << 9;
}

/*
 * The one attackers-to: the pieces of colour `by` that attack point s when exactly the
 * points of occ are occupied. pcs are by's pieces by type (pcs[CHARIOT] and so on, as
 * Position.by_piece + by * 8); those off occ are gone. Lines, horse legs and elephant
 * eyes are read from occ, whose rank and file through s are ro and fo (bit = file, bit =
 * rank): the caller has them at hand, or takes attacks_rank_occ and attacks_file_occ.
 *
 * general_on_s says that s holds the other colour's general. by's general then attacks
 * along the file like a chariot (flying general), and general steps, advisors
 * and elephants, which never reach the other palace, are not looked at. Otherwise the
 * general attacks by its palace steps only.
 */
static inline Bitboard attacks_to(const Bitboard *pcs, Color by, Square s, Bitboard occ,
                                  unsigned ro, unsigned fo, bool general_on_s)
{
    Bitboard att =
        (attacks_hit1(s, ro, fo) & pcs[CHARIOT]) | (attacks_hit2(s, ro, fo) & pcs[CANNON]);
    att |= soldier_attackers_bb[by][s] & pcs[SOLDIER];
    /* legs and eyes are looked at only when a horse or elephant stands in reach */
    if (horse_attackers_bb[s] & pcs[HORSE] & occ) {
        const StepList *h = &horse_attackers[s];
        for (int k = 0; k < h->n; k++)
            if (bb_test(pcs[HORSE], h->to[k]) && !bb_test(occ, h->via[k]))
                att |= bb_square(h->to[k]);
    }
    if (general_on_s)
        return (att | (line_on_file(file_hit1[sq_rank(s)][fo], sq_file(s)) & pcs[KING])) & occ;
    att |= (king_steps_bb[s] & pcs[KING]) | (advisor_steps_bb[s] & pcs[ADVISOR]);
    if (elephant_steps_bb[s] & pcs[ELEPHANT] & occ) {
        const StepList *e = &elephant_steps[s];
        for (int k = 0; k < e->n; k++)
            if (bb_test(pcs[ELEPHANT], e->to[k]) && !bb_test(occ, e->via[k]))
                att |= bb_square(e->to[k]);
    }
    return att & occ;
}

/* Builds every table; cheap, idempotent, not thread-safe on first call. */
void attacks_init(void);

#endif
