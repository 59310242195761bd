#include "evaluate.h"

#include <stddef.h>
#include <string.h>

#include "attacks.h"
#include "movegen.h"

/*
 * One accumulator serves the engine, the breakdown and the tuner's trace. Every use
 * of a term goes through ADD, which names the term once; the breakdown and trace
 * pointers are NULL in the engine's hot path, so they cost a predictable branch. The
 * sums are EvalSums, not packed Scores, so that no weights a file may hold wrap them.
 */
typedef struct {
    EvalSum sum[COLOR_NB];
    EvalBreakdown *bd;
#ifdef CHUHE_TRACE
    EvalTrace *trace;
#endif
} Acc;

static inline void acc_add(Acc *a, Color c, Score s, int term, int param, int n)
{
    int mg = n * score_mg(s), eg = n * score_eg(s);
    a->sum[c].mg += mg;
    a->sum[c].eg += eg;
    if (a->bd) {
        a->bd->term[term][c].mg += mg;
        a->bd->term[term][c].eg += eg;
    }
#ifdef CHUHE_TRACE
    if (a->trace)
        a->trace->coef[param][c] += (int16_t)n;
#else
    (void)param;
#endif
}

#define ADD(a, p, c, name, idx, n)                        \
    acc_add((a), (c), (p)->name[(idx)], EVAL_TERM_##name, \
            (int)(offsetof(EvalParams, name) / sizeof(Score)) + (idx), (n))

/* Red's view of a point: Black's pieces are mirrored top to bottom. */
static inline Square relative_sq(Color c, Square s)
{
    return c == RED ? s : sq_make(sq_file(s), RANK_NB - 1 - sq_rank(s));
}

/* The trace build (the tuner's second compile of this file) defines only
 * evaluate_traced; the engine's functions come from the library. */
#ifndef CHUHE_TRACE
int eval_phase(const Position *pos)
{
    int phase = 0;
    for (Color c = RED; c < COLOR_NB; c++)
        phase += PHASE_CHARIOT * bb_count(pos_pieces(pos, c, CHARIOT)) +
                 PHASE_HORSE * bb_count(pos_pieces(pos, c, HORSE)) +
                 PHASE_CANNON * bb_count(pos_pieces(pos, c, CANNON));
    return phase > PHASE_MAX ? PHASE_MAX : phase;
}
#endif

/* Points each side attacks, by the attacking piece type (a cannon attacks what it could
 * capture over one screen), built once per evaluation. */
typedef struct {
    Bitboard by_type[COLOR_NB][PIECE_TYPE_NB];
    Bitboard all[COLOR_NB];
    int palace_units[COLOR_NB];      /* attack units of each side against the other's palace */
    Bitboard cannon_moves[COLOR_NB]; /* quiet cannon destinations (its attacks are captures) */
} Attacks;

static const int UNITS[PIECE_TYPE_NB] = {0, 0, 0, 0, 2, 3, 3, 2};

static inline Bitboard step_targets(const Position *pos, const StepList *l, bool needs_via)
{
    Bitboard b = 0;
    for (int k = 0; k < l->n; k++)
        if (!needs_via || !pos->board[l->via[k]])
            b |= bb_square(l->to[k]);
    return b;
}

static void attacks_add(Attacks *at, Color c, PieceType t, Bitboard b)
{
    at->by_type[c][t] |= b;
    at->all[c] |= b;
    if (b & palace_bb[color_flip(c)])
        at->palace_units[c] += UNITS[t];
}

/* Attacks of every piece, plus the mobility and placement terms that fall out of the
 * same loop. */
static void eval_pieces(const Position *pos, const EvalParams *p, Color c, Acc *a, Attacks *at)
{
    Bitboard own = pos->by_color[c], enemy = pos->by_color[color_flip(c)];
    Bitboard soldiers_all = pos_pieces(pos, RED, SOLDIER) | pos_pieces(pos, BLACK, SOLDIER);
    Bitboard bb;

    for (PieceType t = ADVISOR; t <= SOLDIER; t++) {
        int n = bb_count(pos_pieces(pos, c, t));
        if (n)
            ADD(a, p, c, material, t - ADVISOR, n);
    }

    Square ks = pos->king_sq[c];
    ADD(a, p, c, psqt_king, relative_sq(c, ks), 1);
    attacks_add(at, c, KING, step_targets(pos, &king_steps[ks], false));
    for (bb = pos_pieces(pos, c, ADVISOR); bb;) {
        Square s = bb_pop(&bb);
        ADD(a, p, c, psqt_advisor, relative_sq(c, s), 1);
        attacks_add(at, c, ADVISOR, step_targets(pos, &advisor_steps[s], false));
    }
    for (bb = pos_pieces(pos, c, ELEPHANT); bb;) {
        Square s = bb_pop(&bb);
        ADD(a, p, c, psqt_elephant, relative_sq(c, s), 1);
        attacks_add(at, c, ELEPHANT, step_targets(pos, &elephant_steps[s], true));
    }
    Bitboard soldiers = pos_pieces(pos, c, SOLDIER);
    int connected = 0;
    for (bb = soldiers; bb;) {
        Square s = bb_pop(&bb);
        ADD(a, p, c, psqt_soldier, relative_sq(c, s), 1);
        attacks_add(at, c, SOLDIER, step_targets(pos, &soldier_steps[c][s], false));
        /* a crossed soldier and the one to its right (pairs counted once) */
        if (!sq_own_half(c, s) && sq_file(s) < FILE_NB - 1 && bb_test(soldiers, s + 1))
            connected++;
    }
    if (connected)
        ADD(a, p, c, soldier_connected, 0, connected);
    for (bb = pos_pieces(pos, c, HORSE); bb;) {
        Square s = bb_pop(&bb);
        ADD(a, p, c, psqt_horse, relative_sq(c, s), 1);
        const StepList *l = &horse_steps[s];
        Bitboard att = 0;
        int legs_own = 0;
        for (int k = 0; k < l->n; k++) {
            Piece leg = (Piece)pos->board[l->via[k]];
            if (!leg)
                att |= bb_square(l->to[k]);
            else if (piece_color(leg) == c)
                legs_own++;
        }
        /* a leg is shared by two destinations: count each blocked leg once */
        ADD(a, p, c, horse_leg_own, 0, legs_own / 2);
        ADD(a, p, c, mobility_horse, bb_count(att & ~own), 1);
        attacks_add(at, c, HORSE, att);
    }
    int others = bb_count(pos->occupied) - 2;
    for (bb = pos_pieces(pos, c, CHARIOT); bb;) {
        Square s = bb_pop(&bb);
        ADD(a, p, c, psqt_chariot, relative_sq(c, s), 1);
        Bitboard slide, hits = pos_slider_targets(pos, s, CHARIOT, &slide);
        ADD(a, p, c, mobility_chariot, bb_count(slide) + bb_count(hits & enemy), 1);
        attacks_add(at, c, CHARIOT, slide | hits);
        Bitboard file = file_bb[sq_file(s)];
        if (!(soldiers_all & file))
            ADD(a, p, c, chariot_open_file, 0, 1);
        else if (!(pos_pieces(pos, c, SOLDIER) & file))
            ADD(a, p, c, chariot_half_open, 0, 1);
    }
    Square eks = pos->king_sq[color_flip(c)];
    for (bb = pos_pieces(pos, c, CANNON); bb;) {
        Square s = bb_pop(&bb);
        ADD(a, p, c, psqt_cannon, relative_sq(c, s), 1);
        Bitboard slide, hits = pos_slider_targets(pos, s, CANNON, &slide);
        int mob = bb_count(slide) + bb_count(hits & enemy);
        ADD(a, p, c, mobility_cannon, mob > 17 ? 17 : mob, 1);
        attacks_add(at, c, CANNON, hits);
        at->cannon_moves[c] |= slide;
        int half = (others - 1) / 2;
        ADD(a, p, c, cannon_pieces, half > 9 ? 9 : half, 1);
        if (sq_file(eks) == sq_file(s)) {
            int between = bb_count(between_bb(s, eks) & pos->occupied);
            if (between == 0)
                ADD(a, p, c, cannon_open_head, 0, 1);
            else if (between <= 2)
                ADD(a, p, c, central_cannon, 0, 1);
        }
    }
}

/* Pairs of guards, king safety and threats: terms that need both sides' attacks. */
static void eval_safety(const Position *pos, const EvalParams *p, Color c, Acc *a,
                        const Attacks *at)
{
    Color them = color_flip(c);
    Bitboard adv = pos_pieces(pos, c, ADVISOR), ele = pos_pieces(pos, c, ELEPHANT);
    if (bb_count(adv) == 2) {
        Square s = bb_lsb(adv);
        if (step_targets(pos, &advisor_steps[s], false) & adv)
            ADD(a, p, c, advisor_pair, 0, 1);
    }
    if (bb_count(ele) == 2) {
        Square s = bb_lsb(ele);
        if (step_targets(pos, &elephant_steps[s], true) & ele)
            ADD(a, p, c, elephant_pair, 0, 1);
    }

    /* checks the enemy can give from points c does not guard */
    Square ks = pos->king_sq[c];
    int kf = sq_file(ks), kr = sq_rank(ks);
    unsigned ro = pos->rank_occ[kr], fo = pos->file_occ[kf];
    unsigned rh1 = rank_hit1[kf][ro], fh1 = file_hit1[kr][fo];
    Bitboard safe = ~at->all[c] & ~pos->by_color[them];
    Bitboard rook_lines =
        line_on_rank(rank_slide[kf][ro] | rh1, kr) | line_on_file(file_slide[kr][fo] | fh1, kf);
    /* a cannon checks from beyond the first piece, up to and including the second */
    Bitboard screen_lines =
        line_on_rank((rank_slide[kf][ro & ~rh1] & ~rank_slide[kf][ro] & ~rh1) | rank_hit2[kf][ro],
                     kr) |
        line_on_file((file_slide[kr][fo & ~fh1] & ~file_slide[kr][fo] & ~fh1) | file_hit2[kr][fo],
                     kf);
    Bitboard horse_points = 0;
    const StepList *hl = &horse_attackers[ks];
    for (int k = 0; k < hl->n; k++)
        if (!pos->board[hl->via[k]])
            horse_points |= bb_square(hl->to[k]);
    bool chk_r = rook_lines & at->by_type[them][CHARIOT] & safe;
    bool chk_h = horse_points & at->by_type[them][HORSE] & safe;
    bool chk_c = screen_lines & (at->by_type[them][CANNON] | at->cannon_moves[them]) & safe;
    if (chk_r)
        ADD(a, p, them, safe_check_chariot, 0, 1);
    if (chk_h)
        ADD(a, p, them, safe_check_horse, 0, 1);
    if (chk_c)
        ADD(a, p, them, safe_check_cannon, 0, 1);

    /* danger to c's general: what the enemy aims at the palace, worse without guards */
    int units = at->palace_units[them] + 2 * (chk_r + chk_h + chk_c);
    if (units) {
        units += 2 - bb_count(adv) + (2 - bb_count(ele) + 1) / 2;
        ADD(a, p, them, king_danger, units > 15 ? 15 : units, 1);
    }
    /* combinations: each kind of piece the enemy aims at the palace */
    int kinds = !!(at->by_type[them][CHARIOT] & palace_bb[c]) +
                !!(at->by_type[them][HORSE] & palace_bb[c]) +
                !!(at->by_type[them][CANNON] & palace_bb[c]);
    if (kinds)
        ADD(a, p, them, palace_attack_kinds, kinds, 1);

    /* what c's guards are worth depends on what the enemy can still attack with */
    int guards = bb_count(adv) + bb_count(ele);
    if (guards) {
        Bitboard crossed = pos_pieces(pos, them, SOLDIER) & ~half_bb[them];
        int force = 2 * bb_count(pos_pieces(pos, them, CHARIOT)) +
                    bb_count(pos_pieces(pos, them, HORSE)) +
                    bb_count(pos_pieces(pos, them, CANNON)) + bb_count(crossed);
        ADD(a, p, c, guards_vs_attack, force > 10 ? 10 : force, guards);
    }

    Bitboard file_line = file_bb[sq_file(pos->king_sq[c])];
    int exposed =
        bb_count(file_line & (pos_pieces(pos, them, CHARIOT) | pos_pieces(pos, them, CANNON)));
    if (exposed)
        ADD(a, p, c, king_exposed_file, 0, exposed);

    /* pieces tied to the defence of the general */
    for (Bitboard pin = gen_pinned(pos, c) & ~pos_pieces(pos, c, KING); pin;) {
        Square s = bb_pop(&pin);
        ADD(a, p, c, pinned, piece_type(pos_piece_on(pos, s)) - ADVISOR, 1);
    }

    /* threats against c's pieces */
    Bitboard lesser = at->by_type[them][SOLDIER];
    static const PieceType BY_VALUE[] = {ADVISOR, ELEPHANT, HORSE, CANNON, CHARIOT};
    for (unsigned i = 0; i < sizeof BY_VALUE / sizeof BY_VALUE[0]; i++) {
        PieceType t = BY_VALUE[i];
        Bitboard mine = pos_pieces(pos, c, t);
        int n = bb_count(mine & lesser);
        if (n)
            ADD(a, p, c, threat_by_lesser, t - ADVISOR, n);
        lesser |= at->by_type[them][t];
    }
    /* a hanging piece of the side to move can still be saved: only the other side's
     * count */
    Bitboard hanging = c == pos->side ? 0 : pos->by_color[c] & at->all[them] & ~at->all[c];
    hanging &= ~pos_pieces(pos, c, KING);
    while (hanging) {
        Square s = bb_pop(&hanging);
        ADD(a, p, c, hanging, piece_type(pos_piece_on(pos, s)) - ADVISOR, 1);
    }
}

static Value taper(int mg, int eg, int phase)
{
    return eval_clamp(((long)mg * phase + (long)eg * (PHASE_MAX - phase)) / PHASE_MAX);
}

static Value eval_red(const Position *pos, const EvalParams *p, Acc *a, int *phase_out)
{
    Attacks at;
    memset(&at, 0, sizeof at);
    eval_pieces(pos, p, RED, a, &at);
    eval_pieces(pos, p, BLACK, a, &at);
    eval_safety(pos, p, RED, a, &at);
    eval_safety(pos, p, BLACK, a, &at);
    ADD(a, p, pos->side, tempo, 0, 1);
    int phase = eval_phase(pos);
    if (phase_out)
        *phase_out = phase;
    return taper(a->sum[RED].mg - a->sum[BLACK].mg, a->sum[RED].eg - a->sum[BLACK].eg, phase);
}

#ifndef CHUHE_TRACE
Value evaluate(const Position *pos, const EvalParams *params)
{
    Acc a = {0};
    Value v = eval_red(pos, params, &a, NULL);
    return pos->side == RED ? v : -v;
}

void eval_breakdown(const Position *pos, const EvalParams *params, EvalBreakdown *out)
{
    memset(out, 0, sizeof *out);
    Acc a = {.bd = out};
    out->total = eval_red(pos, params, &a, &out->phase);
}

#else

Value evaluate_traced(const Position *pos, const EvalParams *params, EvalTrace *trace)
{
    memset(trace, 0, sizeof *trace);
    Acc a = {.trace = trace};
    trace->eval = eval_red(pos, params, &a, &trace->phase);
    return trace->eval;
}
#endif
