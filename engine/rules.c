#include "rules.h"

#include <assert.h>
#include <string.h>

#include "attacks.h"
#include "movegen.h"

/* Stored in files and PGN tags: see rules.h before changing any. */
static const char *const REASON_NAMES[REASON_NB] = {
    [REASON_NONE] = "none",
    [REASON_CHECKMATE] = "checkmate",
    [REASON_STALEMATE] = "stalemate",
    [REASON_PERPETUAL_CHECK] = "perpetual-check",
    [REASON_PERPETUAL_CHASE] = "perpetual-chase",
    [REASON_REPETITION] = "repetition",
    [REASON_RULE60] = "60-move-rule",
    [REASON_MATERIAL] = "insufficient-material",
    [REASON_MOVE_LIMIT] = "move-limit",
    [REASON_ILLEGAL_MOVE] = "illegal-move",
    [REASON_TIME_FORFEIT] = "time-forfeit",
    [REASON_ADJUDICATION_RESIGN] = "adjudication-resign",
    [REASON_ADJUDICATION_DRAW] = "adjudication-draw",
    [REASON_ENGINE_CRASH] = "engine-crash",
    [REASON_RESIGN] = "resign",
};

static const char *const RESULT_NAMES[RESULT_NB] = {
    [RESULT_NONE] = "none", [RESULT_WIN] = "win", [RESULT_DRAW] = "draw", [RESULT_LOSS] = "loss"};

const char *rules_reason_name(Reason r)
{
    return (unsigned)r < REASON_NB ? REASON_NAMES[r] : "unknown";
}

bool rules_reason_parse(const char *name, Reason *out)
{
    for (int r = 0; name && r < REASON_NB; r++)
        if (!strcmp(name, REASON_NAMES[r])) {
            *out = (Reason)r;
            return true;
        }
    return false;
}

const char *rules_result_name(Result r)
{
    return (unsigned)r < RESULT_NB ? RESULT_NAMES[r] : "unknown";
}

static inline Verdict verdict_make(Result result, Reason reason, int span)
{
    Verdict v = {result, reason, span};
    return v;
}

/* No legal move is a loss whether or not the side to move is in check (rules.md 7). */
static Verdict verdict_no_moves(const Position *pos)
{
    return verdict_make(RESULT_LOSS, pos_in_check(pos) ? REASON_CHECKMATE : REASON_STALEMATE, 0);
}

/* ------------------------------------------------------------------------------------
 * Chase detection (rules.md 4), on a scratch copy of the board so that the judged
 * position is only read. The scratch board walks the cycle backwards and tries
 * captures; it mirrors Pikafish's chased(), chase_legal() and update_blockers().
 * ------------------------------------------------------------------------------------ */

/*
 * `id` numbers each side's pieces 0..15 in square order in the position judged; as
 * moves are taken back an id travels with its piece, so a chased piece is recognised
 * wherever it stands. Only board, piece bitboards, occupancy and general squares are
 * kept: the line occupancies are derived from `occ` when needed, which is rare enough.
 */
typedef struct {
    uint8_t board[SQUARE_NB];
    uint8_t id[SQUARE_NB];
    Bitboard by_piece[PIECE_NB];
    Bitboard occ;
    Bitboard by_color[COLOR_NB];
    Square king_sq[COLOR_NB];
} Scratch;

static void scratch_init(Scratch *sc, const Position *pos)
{
    int next[COLOR_NB] = {0, 0};
    for (Square s = 0; s < SQUARE_NB; s++) {
        Piece p = pos_piece_on(pos, s);
        sc->board[s] = (uint8_t)p;
        sc->id[s] = p ? (uint8_t)next[piece_color(p)]++ : 0;
    }
    memcpy(sc->by_piece, pos->by_piece, sizeof sc->by_piece);
    sc->occ = pos->occupied;
    sc->by_color[RED] = pos->by_color[RED];
    sc->by_color[BLACK] = pos->by_color[BLACK];
    sc->king_sq[RED] = pos->king_sq[RED];
    sc->king_sq[BLACK] = pos->king_sq[BLACK];
}

/* Takes back a non-capturing move (a repetition cycle holds no capture). */
static void scratch_unmove(Scratch *sc, Move m)
{
    Square from = move_from(m), to = move_to(m);
    Piece p = (Piece)sc->board[to];
    Bitboard ft = bb_square(from) | bb_square(to);
    assert(p != NO_PIECE && sc->board[from] == NO_PIECE);
    sc->board[from] = (uint8_t)p;
    sc->board[to] = NO_PIECE;
    sc->id[from] = sc->id[to];
    sc->by_piece[p] ^= ft;
    sc->occ ^= ft;
    sc->by_color[piece_color(p)] ^= ft;
    if (piece_type(p) == KING)
        sc->king_sq[piece_color(p)] = from;
}

static inline PieceType type_on(const Scratch *sc, Square s)
{
    return piece_type((Piece)sc->board[s]);
}

/* First pieces seen along the four lines from s (chariot captures), or the second
 * ones (cannon captures), for the occupancy occ. */
static Bitboard line_hits(Bitboard occ, Square s, bool second)
{
    unsigned ro = attacks_rank_occ(occ, sq_rank(s)), fo = attacks_file_occ(occ, sq_file(s));
    return second ? attacks_hit2(s, ro, fo) : attacks_hit1(s, ro, fo);
}

/* Points a chasing piece (chariot, cannon, horse, elephant, advisor) on s can take. */
static Bitboard scratch_attacks(const Scratch *sc, Square s, PieceType t)
{
    const StepList *l;
    Bitboard a = 0;
    switch (t) {
    case CHARIOT:
        return line_hits(sc->occ, s, false);
    case CANNON:
        return line_hits(sc->occ, s, true);
    case HORSE:
        l = &horse_steps[s];
        break;
    case ELEPHANT:
        l = &elephant_steps[s];
        break;
    case ADVISOR:
        l = &advisor_steps[s];
        break;
    default:
        return 0;
    }
    for (int k = 0; k < l->n; k++)
        if (t == ADVISOR || !bb_test(sc->occ, l->via[k]))
            a |= bb_square(l->to[k]);
    return a;
}

/*
 * Pieces of colour `by` among `cand` that attack s, for the occupancy occ. With
 * `checks_only` s holds the other general and this is Pikafish's checkers_to():
 * soldiers, horses, cannons, chariots and the general seen as a chariot on an open
 * file (flying general). Otherwise it is attackers_to(): every kind of piece, the
 * general by its palace steps only.
 */
static inline Bitboard scratch_attackers(const Scratch *sc, Square s, Color by, Bitboard cand,
                                         Bitboard occ, bool checks_only)
{
    const Bitboard *pcs = &sc->by_piece[piece_make(by, NO_PIECE_TYPE)];
    return attacks_to(pcs, by, s, occ, attacks_rank_occ(occ, sq_rank(s)),
                      attacks_file_occ(occ, sq_file(s)), checks_only) &
           cand;
}

/*
 * "Chase-legal" (rules.md 4.1 step 3): the piece of colour c on `from` takes on `to`
 * and its general is then attacked by no enemy piece but the one taken. A general
 * moving to `to` must find that point unattacked.
 */
static bool chase_legal(const Scratch *sc, Color c, Square from, Square to)
{
    Color them = color_flip(c);
    Bitboard occ = (sc->occ & ~bb_square(from)) | bb_square(to);
    Bitboard cand = sc->by_color[them] & ~bb_square(to);
    Square target = type_on(sc, from) == KING ? to : sc->king_sq[c];
    return !scratch_attackers(sc, target, them, cand, occ, true);
}

/*
 * Pins against the general of colour c, as Pikafish's update_blockers(): `blockers`
 * are the pieces whose removal would expose that general to an enemy chariot, general
 * or horse (the only piece in between, enemy chariots and general not counted) or to an
 * enemy cannon (one of exactly two pieces in between); `pinners` are the enemy pieces
 * for which such a blocker is c's own.
 */
static void scratch_pins(const Scratch *sc, Color c, Bitboard *blockers, Bitboard *pinners)
{
    static const int DIRS[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    Color them = color_flip(c);
    Square ks = sc->king_sq[c];
    Bitboard own = sc->by_color[c];
    *blockers = *pinners = 0;
    for (int d = 0; d < 4; d++) {
        Bitboard between = 0, sliders = 0;
        int f = sq_file(ks) + DIRS[d][0], r = sq_rank(ks) + DIRS[d][1];
        for (; sq_valid(f, r); f += DIRS[d][0], r += DIRS[d][1]) {
            Square x = sq_make(f, r);
            Piece p = (Piece)sc->board[x];
            if (p && piece_color(p) == them) {
                PieceType t = piece_type(p);
                Bitboard b = 0;
                bool pin = false;
                if (t == CANNON) {
                    b = between & sc->occ;
                    pin = bb_count(b) == 2;
                } else if (t == CHARIOT || t == KING) {
                    b = between & sc->occ & ~sliders;
                    pin = b && !bb_more_than_one(b);
                    sliders |= bb_square(x);
                }
                if (pin) {
                    *blockers |= b;
                    if (b & own)
                        *pinners |= bb_square(x);
                }
            }
            between |= bb_square(x);
        }
    }
    const StepList *h = &horse_attackers[ks];
    for (int k = 0; k < h->n; k++) {
        Square leg = h->via[k];
        if (sc->board[h->to[k]] == piece_make(them, HORSE) && sc->board[leg]) {
            *blockers |= bb_square(leg);
            if (bb_test(own, leg))
                *pinners |= bb_square(h->to[k]);
        }
    }
}

/* Whether, after the piece of colour c on `from` takes on `to`, the target's side has a
 * chase-legal recapture there (any piece, the general included). */
static bool recapture_exists(Scratch *sc, Color c, Square from, Square to)
{
    Color them = color_flip(c);
    uint8_t moved = sc->board[from], taken = sc->board[to];
    sc->board[to] = moved;
    sc->board[from] = NO_PIECE;
    sc->by_piece[moved] ^= bb_square(from) | bb_square(to);
    sc->by_piece[taken] ^= bb_square(to);
    sc->occ ^= bb_square(from);
    sc->by_color[c] ^= bb_square(from) | bb_square(to);
    sc->by_color[them] ^= bb_square(to);

    bool found = false;
    Bitboard rec = scratch_attackers(sc, to, them, sc->by_color[them], sc->occ, false);
    while (rec && !found)
        found = chase_legal(sc, them, bb_pop(&rec), to);

    sc->by_color[them] ^= bb_square(to);
    sc->by_color[c] ^= bb_square(from) | bb_square(to);
    sc->occ ^= bb_square(from);
    sc->by_piece[taken] ^= bb_square(to);
    sc->by_piece[moved] ^= bb_square(from) | bb_square(to);
    sc->board[from] = moved;
    sc->board[to] = taken;
    return found;
}

/* A(c, P) of rules.md 4.1 as a set of points: the enemy pieces that side c chases. */
static Bitboard scratch_chased(Scratch *sc, Color c)
{
    Color them = color_flip(c);
    Bitboard blockers, pinners;
    scratch_pins(sc, c, &blockers, &pinners);

    /* Checks are not chases, and a soldier can be chased only once across the river. */
    Bitboard targets = 0;
    for (Bitboard b = sc->by_color[them]; b;) {
        Square x = bb_pop(&b);
        PieceType t = type_on(sc, x);
        if (t != KING && (t != SOLDIER || !sq_own_half(them, x)))
            targets |= bb_square(x);
    }

    Bitboard chased = 0;
    for (Bitboard atk = sc->by_color[c]; atk;) {
        Square from = bb_pop(&atk);
        PieceType t = type_on(sc, from);
        if (t == KING || t == SOLDIER) /* generals and soldiers never chase */
            continue;
        Bitboard a = scratch_attacks(sc, from, t);
        if (bb_test(blockers, from))
            a &= pinners & ~bb_square(sc->king_sq[them]);
        else
            a &= targets;
        while (a) {
            Square to = bb_pop(&a);
            if (!chase_legal(sc, c, from, to))
                continue;
            PieceType tt = type_on(sc, to);
            /* Attacks on a stronger piece count even when it is protected. */
            if (((t == HORSE || t == CANNON) && tt == CHARIOT) ||
                ((t == ADVISOR || t == ELEPHANT) &&
                 (tt == CHARIOT || tt == HORSE || tt == CANNON))) {
                chased |= bb_square(to);
                continue;
            }
            if (recapture_exists(sc, c, from, to))
                continue;
            /* A mutual attack that the target could return is not a chase. */
            if (t == tt) {
                bool leg_blocked = false;
                if (t == HORSE) {
                    const StepList *h = &horse_attackers[from];
                    for (int k = 0; k < h->n; k++)
                        if (h->to[k] == to)
                            leg_blocked = bb_test(sc->occ, h->via[k]);
                }
                if (!leg_blocked && chase_legal(sc, them, to, from))
                    continue;
            }
            chased |= bb_square(to);
        }
    }
    return chased;
}

static uint16_t scratch_ids(const Scratch *sc, Bitboard squares)
{
    uint16_t mask = 0;
    while (squares)
        mask |= (uint16_t)(1u << sc->id[bb_pop(&squares)]);
    return mask;
}

Bitboard rules_chased(const Position *pos, Color c)
{
    Scratch sc;
    scratch_init(&sc, pos);
    return scratch_chased(&sc, c);
}

/*
 * The chase verdict for the last d plies (rules.md 4.2-4.3), as Pikafish's
 * detect_chases(): walking back from the current position, each move's chased set is
 * A(mover, after) minus A(mover, before), by piece identity, and each side's sets are
 * intersected. A check anywhere in the span makes it a draw. The walk stops early once
 * neither side can still be chasing.
 */
static Result chase_result(const Position *pos, int d)
{
    Scratch sc;
    scratch_init(&sc, pos);
    uint16_t chase[COLOR_NB] = {0xffff, 0xffff};
    Color us = pos->side, stm = us;
    for (int i = 0; i < d; i++) {
        const StateInfo *st = &pos->hist[pos->hist_len - 1 - i];
        if (st->checkers)
            return RESULT_DRAW;
        Color mover = color_flip(stm);
        if (!chase[mover] && !chase[stm])
            break;
        uint16_t after = chase[mover] ? scratch_ids(&sc, scratch_chased(&sc, mover)) : 0;
        scratch_unmove(&sc, st->move);
        stm = mover;
        if (chase[mover])
            chase[mover] &= after & (uint16_t)~scratch_ids(&sc, scratch_chased(&sc, mover));
    }
    Color them = color_flip(us);
    if (!chase[us] == !chase[them])
        return RESULT_DRAW;
    return chase[us] ? RESULT_LOSS : RESULT_WIN;
}

/* ------------------------------------------------------------------------------------
 * Repetition (rules.md 2-3).
 * ------------------------------------------------------------------------------------ */

/* The state k plies back; k = 0 is the current one. */
static inline const StateInfo *state_back(const Position *pos, int k)
{
    return &pos->hist[pos->hist_len - 1 - k];
}

/*
 * How far back a repetition can lie: the real plies since the last capture (checks that
 * the 60-move count left out included), or since a null move or the start of the kept
 * history, whichever is nearer.
 */
static inline int repetition_window(const Position *pos)
{
    int w = pos_state(pos)->since_capture;
    return w < pos->hist_len - 1 ? w : pos->hist_len - 1;
}

/* Judges the cycle of the last d plies, whose first position is the current one. */
static Verdict judge_cycle(const Position *pos, int d)
{
    /* A move "gave check" when the position after it has the other side in check. */
    bool check_them = true, check_us = true;
    for (int k = 0; k < d; k += 2) {
        check_them = check_them && state_back(pos, k)->checkers;
        check_us = check_us && state_back(pos, k + 1)->checkers;
    }
    if (check_us && check_them)
        return verdict_make(RESULT_DRAW, REASON_REPETITION, d);
    if (check_them)
        return verdict_make(RESULT_WIN, REASON_PERPETUAL_CHECK, d);
    if (check_us)
        return verdict_make(RESULT_LOSS, REASON_PERPETUAL_CHECK, d);
    Result r = chase_result(pos, d);
    return verdict_make(r, r == RESULT_DRAW ? REASON_REPETITION : REASON_PERPETUAL_CHASE, d);
}

/* Whether the position k plies back stands again at another distance within the window
 * (the same side to move, so the same parity). */
static bool occurs_elsewhere(const Position *pos, int k, int end)
{
    Key key = state_back(pos, k)->key;
    for (int j = 2 - (k & 1); j <= end; j += 2)
        if (j != k && state_back(pos, j)->key == key)
            return true;
    return false;
}

/*
 * Pikafish's rule_judge() repetition part. `ply` is the distance from the search root
 * (0 for a played game): an earlier occurrence d < ply plies back lies wholly in the
 * tree and is judged at once; otherwise the second earlier occurrence is needed.
 * A 2-fold win or loss is final only under the conditions of rules.md 2; else it only
 * sets *bound.
 */
static bool judge_repetition(const Position *pos, int ply, Verdict *v, RulesBound *bound)
{
    int end = repetition_window(pos);
    if (end < 4)
        return false;
    const StateInfo *cur = pos_state(pos);
    Key key = cur->key;
    int cnt = 0;
    for (int i = 4; i <= end; i += 2) {
        if (state_back(pos, i)->key != key)
            continue;
        if (++cnt < 2 && ply <= i)
            continue;
        Verdict r = judge_cycle(pos, i);
        if (r.result == RESULT_DRAW || cnt == 2) {
            *v = r;
            return true;
        }
        /* A third occurrence further back is judged as such when the scan reaches it. */
        bool seen_twice = false;
        for (int j = i + 2; j <= end && !seen_twice; j += 2)
            seen_twice = state_back(pos, j)->key == key;
        if (seen_twice)
            continue;
        /* Final only if the loop cannot be re-entered towards a different 3-fold. */
        if (cur->rule60 < 120 && i + 1 < pos->hist_len &&
            state_back(pos, 1)->key == state_back(pos, i + 1)->key) {
            bool inner = false;
            for (int k = 2; k < i && !inner; k++)
                inner = occurs_elsewhere(pos, k, end);
            if (!inner) {
                *v = r;
                return true;
            }
        }
        *bound = r.result == RESULT_WIN ? RULES_BOUND_LOWER : RULES_BOUND_UPPER;
        return false;
    }
    return false;
}

/* ------------------------------------------------------------------------------------
 * 60-move rule (rules.md 5) and insufficient material (rules.md 6).
 * ------------------------------------------------------------------------------------ */

static bool judge_rule60(const Position *pos, Verdict *v)
{
    if (pos_state(pos)->rule60 < 120)
        return false;
    *v = gen_count(pos) ? verdict_make(RESULT_DRAW, REASON_RULE60, 0) : verdict_no_moves(pos);
    return true;
}

MaterialLevel rules_material_level(const Position *pos)
{
    if (pos_pieces(pos, RED, SOLDIER) | pos_pieces(pos, BLACK, SOLDIER))
        return MATERIAL_PLAY_ON;
    int cannons[COLOR_NB], majors[COLOR_NB], advisors[COLOR_NB], elephants[COLOR_NB];
    for (Color c = RED; c < COLOR_NB; c++) {
        cannons[c] = bb_count(pos_pieces(pos, c, CANNON));
        majors[c] = cannons[c] + bb_count(pos_pieces(pos, c, CHARIOT)) +
                    bb_count(pos_pieces(pos, c, HORSE));
        advisors[c] = bb_count(pos_pieces(pos, c, ADVISOR));
        elephants[c] = bb_count(pos_pieces(pos, c, ELEPHANT));
    }
    int total = majors[RED] + majors[BLACK];
    if (total == 0)
        return MATERIAL_DRAW;
    if (total == 1 && cannons[RED] + cannons[BLACK] == 1) {
        /* A lone cannon needs a screen: its own advisor, or enough enemy advisors that it
         * might still mate with them. */
        Color s = cannons[RED] ? RED : BLACK, o = color_flip(s);
        if (advisors[s] == 0) {
            if (advisors[o] == 0)
                return MATERIAL_DRAW;
            if (advisors[o] == 1)
                return elephants[s] == 0 ? MATERIAL_DRAW : MATERIAL_MATE_DRAW;
            if (elephants[s] == 0)
                return MATERIAL_MATE_DRAW;
        }
        return MATERIAL_PLAY_ON;
    }
    if (total == 2 && cannons[RED] == 1 && cannons[BLACK] == 1 &&
        advisors[RED] + advisors[BLACK] == 0)
        return elephants[RED] + elephants[BLACK] == 0 ? MATERIAL_DRAW : MATERIAL_MATE_DRAW;
    return MATERIAL_PLAY_ON;
}

static bool judge_material(Position *pos, Verdict *v)
{
    MaterialLevel level = rules_material_level(pos);
    if (level == MATERIAL_PLAY_ON)
        return false;
    if (level == MATERIAL_MATE_DRAW) {
        MoveList list;
        if (!gen_legal(pos, &list)) {
            *v = verdict_no_moves(pos);
            return true;
        }
        /* A mate in one is still on the board: play on. */
        assert(pos->hist_len < POS_HISTORY_MAX);
        for (int i = 0; i < list.count; i++) {
            pos_do_move(pos, list.moves[i]);
            bool mate = gen_count(pos) == 0;
            pos_undo_move(pos);
            if (mate)
                return false;
        }
    }
    *v = verdict_make(RESULT_DRAW, REASON_MATERIAL, 0);
    return true;
}

/* ------------------------------------------------------------------------------------
 * Entry points.
 * ------------------------------------------------------------------------------------ */

bool rules_judge_search(Position *pos, int ply, Verdict *v, RulesBound *bound)
{
    *bound = RULES_BOUND_NONE;
    /* Rule order of rules.md 2: a bound from a repetition yields to a final verdict of
     * the 60-move rule or the material table. */
    if (judge_repetition(pos, ply, v, bound))
        return true;
    if (judge_rule60(pos, v) || judge_material(pos, v)) {
        *bound = RULES_BOUND_NONE;
        return true;
    }
    return false;
}

Verdict rules_judge_game(Position *pos)
{
    Verdict v;
    RulesBound bound;
    if (rules_judge_search(pos, 0, &v, &bound))
        return v;
    if (!gen_count(pos))
        return verdict_no_moves(pos);
    return verdict_make(RESULT_NONE, REASON_NONE, 0);
}
