#include "movegen.h"

#include <assert.h>

#include "attacks.h"

enum { GEN_CAPTURES = 1, GEN_QUIETS = 2, GEN_ALL = 3 };

#define BOARD_BB ((((Bitboard)1) << SQUARE_NB) - 1)

static inline Bitboard between(Square a, Square b)
{
    return between_bb(a, b);
}

/*
 * Whether the general of the side to move is safe after from->to, judged on the
 * occupancy the move leaves, without making it: the horse legs and cannon screens the
 * move opens or closes, and the facing generals, are all read from that occupancy.
 */
static bool king_safe_after(const Position *pos, Square from, Square to)
{
    Color them = color_flip(pos->side);
    Square ks = piece_type((Piece)pos->board[from]) == KING ? to : pos->king_sq[pos->side];
    unsigned ro, fo;
    pos_lines_after(pos, ks, from, to, &ro, &fo);
    Bitboard occ = (pos->occupied ^ bb_square(from)) | bb_square(to);
    const Bitboard *theirs = &pos->by_piece[piece_make(them, NO_PIECE_TYPE)];
    /* `to` holds our piece afterwards: what was taken there attacks no more */
    return !(attacks_to(theirs, them, ks, occ, ro, fo, true) & ~bb_square(to));
}

bool move_keeps_king_safe(const Position *pos, Move m)
{
    return king_safe_after(pos, move_from(m), move_to(m));
}

/*
 * What the fast path needs when the side to move is not in check: own pieces that
 * may not move freely (they shield the general from a chariot, the other general, a
 * cannon with one more screen, or sit on a horse's leg), and the empty points where a
 * quiet move would become the screen of an enemy cannon aimed at the general.
 */
typedef struct {
    Bitboard pinned;
    Bitboard cannon_block;
} Shield;

static inline void line_pins(const Position *pos, Color us, Shield *sh, Square ks,
                             const Square *seq, int n, bool on_file_line)
{
    Color them = color_flip(us);
    Piece p1 = n > 0 ? (Piece)pos->board[seq[0]] : NO_PIECE;
    Piece p2 = n > 1 ? (Piece)pos->board[seq[1]] : NO_PIECE;
    Piece p3 = n > 2 ? (Piece)pos->board[seq[2]] : NO_PIECE;
    if (!p1)
        return;
    /* a cannon with no screen yet: a quiet move in between would give it one */
    if (p1 == piece_make(them, CANNON))
        sh->cannon_block |= between(ks, seq[0]);
    bool own1 = piece_color(p1) == us;
    if (own1 && p2 &&
        (p2 == piece_make(them, CHARIOT) || (on_file_line && p2 == piece_make(them, KING))))
        sh->pinned |= bb_square(seq[0]);
    if (p3 == piece_make(them, CANNON)) {
        if (own1)
            sh->pinned |= bb_square(seq[0]);
        if (piece_color(p2) == us)
            sh->pinned |= bb_square(seq[1]);
    }
}

static void shield_compute(const Position *pos, Color us, Shield *sh)
{
    Color them = color_flip(us);
    Square ks = pos->king_sq[us];
    int kf = sq_file(ks), kr = sq_rank(ks);
    Square seq[3];
    int n;
    sh->pinned = sh->cannon_block = 0;

    unsigned ro = pos->rank_occ[kr] & ~(1u << kf);
    unsigned fo = pos->file_occ[kf] & ~(1u << kr);
    unsigned up, down;

    up = ro & ~((2u << kf) - 1);
    for (n = 0; up && n < 3; up &= up - 1)
        seq[n++] = sq_make(__builtin_ctz(up), kr);
    line_pins(pos, us, sh, ks, seq, n, false);
    down = ro & ((1u << kf) - 1);
    for (n = 0; down && n < 3; down &= ~(1u << (31 - __builtin_clz(down))))
        seq[n++] = sq_make(31 - __builtin_clz(down), kr);
    line_pins(pos, us, sh, ks, seq, n, false);

    up = fo & ~((2u << kr) - 1);
    for (n = 0; up && n < 3; up &= up - 1)
        seq[n++] = sq_make(kf, __builtin_ctz(up));
    line_pins(pos, us, sh, ks, seq, n, true);
    down = fo & ((1u << kr) - 1);
    for (n = 0; down && n < 3; down &= ~(1u << (31 - __builtin_clz(down))))
        seq[n++] = sq_make(kf, 31 - __builtin_clz(down));
    line_pins(pos, us, sh, ks, seq, n, true);

    const StepList *h = &horse_attackers[ks];
    for (int k = 0; k < h->n; k++) {
        Piece leg = (Piece)pos->board[h->via[k]];
        if (pos->board[h->to[k]] == piece_make(them, HORSE) && leg && piece_color(leg) == us)
            sh->pinned |= bb_square(h->via[k]);
    }
}

Bitboard gen_pinned(const Position *pos, Color c)
{
    Shield sh;
    shield_compute(pos, c, &sh);
    return sh.pinned;
}

/* Where non-general moves can end to answer the current checks, and the own cannon
 * screens whose every move must be tried. */
static void evasion_targets(const Position *pos, Bitboard *to_mask, Bitboard *screens)
{
    Color us = pos->side;
    Square ks = pos->king_sq[us];
    Bitboard chk = pos_checkers(pos);
    *to_mask = chk;
    *screens = 0;
    while (chk) {
        Square c = bb_pop(&chk);
        switch (piece_type((Piece)pos->board[c])) {
        case CHARIOT:
            *to_mask |= between(ks, c);
            break;
        case CANNON: {
            Bitboard bw = between(ks, c);
            *to_mask |= bw;
            *screens |= bw & pos->by_color[us];
            break;
        }
        case HORSE: {
            const StepList *h = &horse_attackers[ks];
            for (int k = 0; k < h->n; k++)
                if (h->to[k] == c)
                    *to_mask |= bb_square(h->via[k]);
            break;
        }
        default:
            break;
        }
    }
}

/* Destinations of the piece on s, before legality. */
static inline Bitboard piece_dests(const Position *pos, Square s, PieceType t, Color us,
                                   Bitboard quiet_mask, Bitboard cap_mask)
{
    Bitboard d = 0;
    const StepList *l;
    switch (t) {
    case CHARIOT:
    case CANNON: {
        Bitboard slide, hits = pos_slider_targets(pos, s, t, &slide);
        return (slide & quiet_mask) | (hits & cap_mask);
    }
    case HORSE:
    case ELEPHANT:
        l = t == HORSE ? &horse_steps[s] : &elephant_steps[s];
        for (int k = 0; k < l->n; k++)
            if (!pos->board[l->via[k]])
                d |= bb_square(l->to[k]);
        break;
    case ADVISOR:
        d = advisor_steps_bb[s];
        break;
    case KING:
        d = king_steps_bb[s];
        break;
    case SOLDIER:
        l = &soldier_steps[us][s];
        for (int k = 0; k < l->n; k++)
            d |= bb_square(l->to[k]);
        break;
    default:
        break;
    }
    return d & (quiet_mask | cap_mask);
}

/* Stores (or with out == NULL only counts) the moves from s to the points of d that
 * leave the general safe; returns the new count. */
static inline int add_safe(const Position *pos, Square s, Bitboard d, Move *out, int n)
{
    while (d) {
        Square to = bb_pop(&d);
        if (king_safe_after(pos, s, to)) {
            if (out)
                out[n] = move_make(s, to);
            n++;
        }
    }
    return n;
}

static const PieceType GEN_ORDER[] = {CHARIOT, CANNON, HORSE, SOLDIER, ELEPHANT, ADVISOR};

/*
 * The one generator behind every entry point. With list == NULL it only counts.
 * Not in check: moves of unpinned pieces are legal as they stand, except quiet moves
 * onto a cannon-block point; pinned pieces and the general take the full test.
 * In check: every candidate takes the full test.
 */
static inline __attribute__((always_inline)) int generate(const Position *pos, MoveList *list,
                                                          int mode)
{
    Color us = pos->side, them = color_flip(us);
    Bitboard empty = ~pos->occupied & BOARD_BB;
    Bitboard quiet_mask = (mode & GEN_QUIETS) ? empty : 0;
    Bitboard cap_mask = (mode & GEN_CAPTURES) ? pos->by_color[them] : 0;
    int n = 0;
    Move *out = list ? list->moves : NULL;

    if (!pos_in_check(pos)) {
        Shield sh;
        shield_compute(pos, us, &sh);
        Bitboard safe_quiet = quiet_mask & ~sh.cannon_block;
        for (unsigned i = 0; i < sizeof GEN_ORDER / sizeof GEN_ORDER[0]; i++) {
            PieceType t = GEN_ORDER[i];
            Bitboard pcs = pos_pieces(pos, us, t);
            while (pcs) {
                Square s = bb_pop(&pcs);
                if (bb_test(sh.pinned, s)) {
                    n = add_safe(pos, s, piece_dests(pos, s, t, us, quiet_mask, cap_mask), out, n);
                    continue;
                }
                Bitboard d = piece_dests(pos, s, t, us, safe_quiet, cap_mask);
                if (!out) {
                    n += bb_count(d);
                    continue;
                }
                while (d)
                    out[n++] = move_make(s, bb_pop(&d));
            }
        }
    } else {
        Bitboard to_mask, screens;
        evasion_targets(pos, &to_mask, &screens);
        for (unsigned i = 0; i < sizeof GEN_ORDER / sizeof GEN_ORDER[0]; i++) {
            PieceType t = GEN_ORDER[i];
            Bitboard pcs = pos_pieces(pos, us, t);
            while (pcs) {
                Square s = bb_pop(&pcs);
                Bitboard d = piece_dests(pos, s, t, us, quiet_mask, cap_mask);
                if (!bb_test(screens, s))
                    d &= to_mask;
                n = add_safe(pos, s, d, out, n);
            }
        }
    }
    Square ks = pos->king_sq[us];
    n = add_safe(pos, ks, piece_dests(pos, ks, KING, us, quiet_mask, cap_mask), out, n);
    if (list)
        list->count = n;
    return n;
}

int gen_legal(const Position *pos, MoveList *list)
{
    return generate(pos, list, GEN_ALL);
}
int gen_captures(const Position *pos, MoveList *list)
{
    return generate(pos, list, GEN_CAPTURES);
}
int gen_quiets(const Position *pos, MoveList *list)
{
    return generate(pos, list, GEN_QUIETS);
}
int gen_count(const Position *pos)
{
    return generate(pos, NULL, GEN_ALL);
}

int gen_evasions(const Position *pos, MoveList *list)
{
    assert(pos_in_check(pos));
    return generate(pos, list, GEN_ALL);
}

bool move_is_legal(const Position *pos, Move m)
{
    Square from = move_from(m), to = move_to(m);
    if (m & ~0x3fff || from >= SQUARE_NB || to >= SQUARE_NB || from == to)
        return false;
    Piece pc = pos_piece_on(pos, from);
    if (!pc || piece_color(pc) != pos->side)
        return false;
    Piece cap = pos_piece_on(pos, to);
    if (cap && piece_color(cap) == pos->side)
        return false;
    Bitboard all = BOARD_BB & ~pos->by_color[pos->side];
    Bitboard empty = ~pos->occupied & BOARD_BB;
    if (!bb_test(piece_dests(pos, from, piece_type(pc), pos->side, empty, all & ~empty), to))
        return false;
    return king_safe_after(pos, from, to);
}
