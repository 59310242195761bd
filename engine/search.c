#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evaluate.h"
#include "movepick.h"
#include "rng.h"
#include "rules.h"
#include "see.h"

/* The reduction table of s->sp, unless it has it already. */
static void lmr_build(Search *s)
{
    if (s->lmr_for[0] == s->sp.lmr_base && s->lmr_for[1] == s->sp.lmr_divisor)
        return;
    double base = s->sp.lmr_base / 100.0, divisor = s->sp.lmr_divisor / 100.0;
    for (int d = 1; d < MAX_PLY; d++)
        for (int m = 1; m < 64; m++) {
            double r = base + log(d) * log(m) / divisor;
            s->lmr[d][m] = (int8_t)(r < 127 ? r : 127);
        }
    s->lmr_for[0] = s->sp.lmr_base;
    s->lmr_for[1] = s->sp.lmr_divisor;
}

void search_clear(Search *s)
{
    memset(&s->tab, 0, sizeof s->tab);
    memset(s->stack, 0, sizeof s->stack);
}

void search_score_text(Value v, char *buf, int size)
{
    if (v >= VALUE_MATE_IN_MAX_PLY)
        snprintf(buf, (size_t)size, "mate %d", (VALUE_MATE - v + 1) / 2);
    else if (v <= VALUE_MATED_IN_MAX_PLY)
        snprintf(buf, (size_t)size, "mate %d", -(VALUE_MATE + v) / 2);
    else
        snprintf(buf, (size_t)size, "cp %d", v);
}

uint64_t search_nodes(const Search *s)
{
    return atomic_load_explicit(&s->nodes, memory_order_relaxed);
}

uint64_t search_total_nodes(const Search *s)
{
    if (s->threads <= 1)
        return search_nodes(s);
    uint64_t n = 0;
    for (int i = 0; i < s->threads; i++)
        n += search_nodes(s->all[i]);
    return n;
}

/* One node more: only this thread writes its count. */
static inline void node_add(Search *s)
{
    atomic_store_explicit(&s->nodes, search_nodes(s) + 1, memory_order_relaxed);
}

/* Whether ponderhit has come since the last look: the clock starts then, and a search
 * that spent its time while pondering stops. */
static void ponder_poll(Search *s)
{
    if (s->pondering && !atomic_load_explicit(s->ponder, memory_order_relaxed)) {
        s->pondering = false;
        s->clock_ms = time_now_ms();
        if (s->stop_on_hit)
            s->aborted = true;
    }
}

/* Checks the clock, the node limit and the stop flag; sets s->aborted. */
static bool should_stop(Search *s)
{
    if (s->aborted)
        return true;
    uint64_t nodes = search_nodes(s);
    if (s->limits.nodes && s->threads <= 1 && nodes >= s->limits.nodes)
        return s->aborted = true;
    if ((nodes & 1023) == 0) {
        if (atomic_load_explicit(s->stop, memory_order_relaxed))
            return s->aborted = true;
        /* a pool's threads count together: the first to see the limit stops them all */
        if (s->limits.nodes && s->threads > 1 && search_total_nodes(s) >= s->limits.nodes) {
            atomic_store(s->stop, true);
            return s->aborted = true;
        }
        ponder_poll(s);
        /* the first iteration always completes, so there is a move to play */
        if (s->plan.maximum && !s->pondering && s->root_depth > 1 &&
            time_now_ms() - s->clock_ms >= s->plan.maximum)
            return s->aborted = true;
    }
    return s->aborted;
}

/* ---- what a cut-off teaches the move ordering -------------------------------------- */

static inline void history_update(int16_t *h, int bonus)
{
    int v = *h + bonus - *h * abs(bonus) / 16384;
    *h = (int16_t)(v > 16000 ? 16000 : v < -16000 ? -16000 : v);
}

static int history_bonus(const Search *s, int depth)
{
    int bonus = depth * depth * s->sp.history_bonus_mul + s->sp.history_bonus_add;
    return bonus > s->sp.history_bonus_max ? s->sp.history_bonus_max : bonus;
}

/* A cut-off at depth by best: a capture earns capture history, a quiet move its
 * histories; the captures tried before it lose theirs. */
static void update_capture_stats(Search *s, Move best, const Move *captures, int nc, int depth)
{
    int bonus = history_bonus(s, depth);
    if (pos_is_capture(&s->pos, best))
        history_update(&MOVEPICK_CAPTURE_ENTRY(s, &s->pos, best), bonus);
    for (int i = 0; i < nc; i++)
        history_update(&MOVEPICK_CAPTURE_ENTRY(s, &s->pos, captures[i]), -bonus);
}

static void update_quiet_stats(Search *s, int ply, Move best, const Move *quiets, int nq, int depth)
{
    Position *pos = &s->pos;
    SearchStack *ss = &s->stack[ply];
    int bonus = history_bonus(s, depth);
    if (ss->killers[0] != best) {
        ss->killers[1] = ss->killers[0];
        ss->killers[0] = best;
    }
    history_update(&s->tab.history[pos->side][move_from(best)][move_to(best)], bonus);
    for (int i = 0; i < nq; i++)
        history_update(&s->tab.history[pos->side][move_from(quiets[i])][move_to(quiets[i])],
                       -bonus);
    for (int k = 1; k <= 2 && ply - k >= 0; k++) {
        PieceToHistory *ch = s->stack[ply - k].cont;
        if (!ch)
            continue;
        history_update(&(*ch)[pos_piece_on(pos, move_from(best))][move_to(best)], bonus);
        for (int i = 0; i < nq; i++)
            history_update(&(*ch)[pos_piece_on(pos, move_from(quiets[i]))][move_to(quiets[i])],
                           -bonus);
    }
    Move prev = ply > 0 ? s->stack[ply - 1].current : MOVE_NONE;
    if (prev != MOVE_NONE && prev != MOVE_NULL)
        s->tab.counter[pos_piece_on(pos, move_to(prev))][move_to(prev)] = best;
}

/* ---- correcting the static evaluation ------------------------------------------- */

static inline uint64_t corr_mix(uint64_t h, Bitboard b)
{
    h = (h ^ (uint64_t)b) * RNG_GOLDEN;
    h = (h ^ (uint64_t)(b >> 64)) * 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

/* The two correction slots of the position: its soldiers, and its palace defenders. */
static inline void corr_index(const Position *pos, unsigned *soldiers, unsigned *defenders)
{
    uint64_t h = corr_mix(corr_mix(0, pos->by_piece[R_SOLDIER]), pos->by_piece[B_SOLDIER]);
    *soldiers = (unsigned)(h % CORR_SIZE);
    uint64_t d =
        corr_mix(0, pos->by_piece[R_ADVISOR] | pos->by_piece[R_ELEPHANT] | pos->by_piece[R_KING]);
    d = corr_mix(d, pos->by_piece[B_ADVISOR] | pos->by_piece[B_ELEPHANT] | pos->by_piece[B_KING]);
    *defenders = (unsigned)(d % CORR_SIZE);
}

/* The static evaluation raw, moved by what the correction histories learnt. */
static Value corrected_eval(const Search *s, const Position *pos, Value raw)
{
    unsigned a, b;
    corr_index(pos, &a, &b);
    int v = raw + (s->tab.corr_soldiers[pos->side][a] + s->tab.corr_defenders[pos->side][b]) / 16;
    int lim = VALUE_MATE_IN_MAX_PLY - 1;
    return (Value)(v > lim ? lim : v < -lim ? -lim : v);
}

static inline void corr_add(int16_t *e, int bonus)
{
    int v = *e + bonus - *e * abs(bonus) / CORR_LIMIT;
    *e = (int16_t)(v > CORR_LIMIT ? CORR_LIMIT : v < -CORR_LIMIT ? -CORR_LIMIT : v);
}

/* A search of depth found best where the corrected static evaluation said eval. */
static void corr_update(Search *s, const Position *pos, Value best, Value eval, int depth)
{
    unsigned a, b;
    corr_index(pos, &a, &b);
    int bonus = (best - eval) * depth;
    bonus = bonus > CORR_LIMIT / 4    ? CORR_LIMIT / 4
            : bonus < -CORR_LIMIT / 4 ? -CORR_LIMIT / 4
                                      : bonus;
    corr_add(&s->tab.corr_soldiers[pos->side][a], bonus);
    corr_add(&s->tab.corr_defenders[pos->side][b], bonus);
}

/* ---- the game rules inside the tree ---------------------------------------------- */

/*
 * Repetition, the 60-move rule and dead material, judged as the rules module says for
 * a node `ply` plies from the root. Returns true with *v when the node is decided;
 * otherwise it may narrow the window (a repetition that only bounds the result).
 */
static bool rule_cutoff(Search *s, int ply, Value *alpha, Value *beta, Value *v)
{
    Verdict verdict;
    RulesBound bound = RULES_BOUND_NONE;
    if (rules_judge_search(&s->pos, ply, &verdict, &bound)) {
        *v = verdict.result == RESULT_WIN    ? value_mate_in(ply)
             : verdict.result == RESULT_LOSS ? value_mated_in(ply)
                                             : VALUE_DRAW;
        return true;
    }
    /* only a bound: a win means the value is at least a draw, a loss at most one */
    if (bound == RULES_BOUND_LOWER && *alpha < VALUE_DRAW)
        *alpha = VALUE_DRAW;
    else if (bound == RULES_BOUND_UPPER && *beta > VALUE_DRAW)
        *beta = VALUE_DRAW;
    else
        return false;
    if (*alpha >= *beta) {
        *v = *alpha;
        return true;
    }
    return false;
}

/* ---- making a move in the tree ---------------------------------------------------- */

/* The PV of the node at ss: move m, then the child's PV. */
static void pv_update(SearchStack *ss, Move m)
{
    ss->pv[0] = m;
    int n = ss[1].pv_len;
    if (n > MAX_PLY - 1)
        n = MAX_PLY - 1;
    memcpy(ss->pv + 1, ss[1].pv, (size_t)n * sizeof(Move));
    ss->pv_len = n + 1;
}

/* Makes m at ply, noting it and its continuation history for the plies below, and
 * what it changes for the network's accumulators. */
static inline void make_move(Search *s, int ply, Move m)
{
    Position *pos = &s->pos;
    s->stack[ply].cont = &s->tab.cont_history[pos_piece_on(pos, move_from(m))][move_to(m)];
    if (s->net)
        nnue_stack_push(s->nnue, pos, ply, m);
    pos_do_move(pos, m);
    s->stack[ply].current = m;
}

/* The static evaluation of the position at ply: the network's when there is one. */
static inline Value static_eval(Search *s, int ply)
{
    return s->net ? nnue_evaluate(s->nnue, s->net, &s->pos, ply) : evaluate(&s->pos, s->params);
}

/* Whether this search leaves the hash as it is: a later MultiPV line reads the hash but
 * writes nothing (see search_run). */
static inline bool hash_frozen(const Search *s)
{
    return s->pv_idx > 0;
}

/* ---- quiescence ----------------------------------------------------------------- */

/* qdepth counts the plies since the main search ended: its first ply also tries quiet
 * checks, so that mates and forks by check are not cut off at the horizon. The main
 * search keeps no PV below its horizon; search_quiescence asks for one (qsearch_pv). */
static Value qsearch(Search *s, Value alpha, Value beta, int ply, int qdepth)
{
    Position *pos = &s->pos;
    bool pv_node = beta - alpha > 1;
    s->stack[ply].pv_len = 0;
    node_add(s);
    if (ply > s->seldepth)
        s->seldepth = ply;
    if (should_stop(s))
        return VALUE_ZERO;
    Value rv;
    if (rule_cutoff(s, ply, &alpha, &beta, &rv))
        return rv;
    bool in_check = pos_in_check(pos);
    if (ply >= MAX_PLY - 1)
        return in_check ? VALUE_DRAW : static_eval(s, ply);

    TTSlot slot;
    Key key = pos_key(pos);
    TTProbe tte = tt_probe(s->tt, key, ply, &slot);
    if (!pv_node && tte.hit && tte.value != VALUE_NONE &&
        (tte.bound & (tte.value >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return tte.value;

    Value best, stand_pat = VALUE_NONE, raw_eval = VALUE_NONE;
    if (in_check) {
        best = -VALUE_INFINITE;
    } else {
        raw_eval = tte.hit && tte.eval != VALUE_NONE ? tte.eval : static_eval(s, ply);
        stand_pat = corrected_eval(s, pos, raw_eval);
        best = stand_pat;
        if (best >= beta) {
            if (!tte.hit && !hash_frozen(s))
                tt_store(s->tt, slot, key, best, BOUND_LOWER, 0, MOVE_NONE, raw_eval, ply);
            return best;
        }
        if (best > alpha)
            alpha = best;
    }

    MovePicker mp;
    int ncaptures = movepick_init_quiescence(&mp, s, pos, tte.move, ply, !in_check && qdepth == 0);
    if (in_check && ncaptures == 0)
        return value_mated_in(ply);

    Move best_move = MOVE_NONE;
    Move m;
    while ((m = movepick_next(&mp)) != MOVE_NONE) {
        if (!in_check && mp.next <= ncaptures) {
            /* a capture that cannot lift the score to alpha, or loses material, waits,
             * unless it checks (the sacrifice that opens a mate) */
            Value gain = SEE_VALUE[piece_type(pos_piece_on(pos, move_to(m)))];
            if ((stand_pat + gain + s->sp.qs_futility_margin <= alpha || !see_ge(pos, m, 0)) &&
                !pos_gives_check(pos, m))
                continue;
        }
        make_move(s, ply, m);
        Value v = -qsearch(s, -beta, -alpha, ply + 1, qdepth + 1);
        pos_undo_move(pos);
        if (s->aborted)
            return VALUE_ZERO;
        if (v <= best)
            continue;
        best = v;
        if (v <= alpha)
            continue;
        best_move = m;
        if (pv_node && s->qsearch_pv)
            pv_update(&s->stack[ply], m);
        if (v >= beta)
            break;
        alpha = v;
    }
    Bound b = best >= beta ? BOUND_LOWER : BOUND_UPPER;
    if (!hash_frozen(s))
        tt_store(s->tt, slot, key, best, b, 0, best_move, raw_eval, ply);
    return best;
}

/* ---- main search ------------------------------------------------------------------ */

/* Whether the side has a piece that can give mate by itself: null move is unsafe
 * without one (zugzwang-like endings). */
static bool has_attackers(const Position *pos, Color c)
{
    return (pos_pieces(pos, c, CHARIOT) | pos_pieces(pos, c, HORSE) | pos_pieces(pos, c, CANNON)) !=
           0;
}

/* Whether the root leaves m out: a move outside "go searchmoves", or the first move of
 * a MultiPV line already searched at this depth. */
static bool root_skips(const Search *s, Move m)
{
    for (int i = 0; i < s->pv_idx; i++)
        if (s->lines[i].pv[0] == m)
            return true;
    if (!s->limits.nsearchmoves)
        return false;
    for (int i = 0; i < s->limits.nsearchmoves; i++)
        if (s->limits.searchmoves[i] == m)
            return false;
    return true;
}

static Value search(Search *s, Value alpha, Value beta, int depth, int ply, bool cut_node)
{
    const SearchParams *sp = &s->sp;
    bool pv_node = beta - alpha > 1;
    bool root = ply == 0;
    /* before the horizon test: the parent copies this PV, and qsearch keeps none */
    s->stack[ply].pv_len = 0;
    if (depth <= 0)
        return qsearch(s, alpha, beta, ply, 0);

    Position *pos = &s->pos;
    SearchStack *ss = &s->stack[ply];
    node_add(s);
    if (ply > s->seldepth)
        s->seldepth = ply;

    if (!root) {
        if (should_stop(s))
            return VALUE_ZERO;
        Value rv;
        if (rule_cutoff(s, ply, &alpha, &beta, &rv))
            return rv;
        if (ply >= MAX_PLY - 1)
            return pos_in_check(pos) ? VALUE_DRAW : static_eval(s, ply);
        /* mate distance pruning */
        if (alpha < value_mated_in(ply))
            alpha = value_mated_in(ply);
        if (beta > value_mate_in(ply + 1))
            beta = value_mate_in(ply + 1);
        if (alpha >= beta)
            return alpha;
    }

    bool in_check = pos_in_check(pos);
    Move excluded = ss->excluded;
    Key key = pos_key(pos);
    TTSlot slot;
    TTProbe tte = tt_probe(s->tt, key, ply, &slot);
    /* at the root, the previous iteration's best move comes first */
    Move tt_move = root && s->stack[0].pv[0] ? s->stack[0].pv[0] : tte.move;
    if (!pv_node && !excluded && tte.hit && tte.depth >= depth && tte.value != VALUE_NONE &&
        (tte.bound & (tte.value >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return tte.value;

    Value eval, raw_eval = VALUE_NONE;
    if (in_check) {
        eval = ss->static_eval = VALUE_NONE;
    } else if (excluded) {
        eval = ss->static_eval; /* the same node: its evaluation is already here */
    } else {
        raw_eval = tte.hit && tte.eval != VALUE_NONE ? tte.eval : static_eval(s, ply);
        eval = ss->static_eval = corrected_eval(s, pos, raw_eval);
        /* the stored search value is a better guess when its bound points the right way */
        if (tte.hit && tte.value != VALUE_NONE &&
            (tte.bound & (tte.value > eval ? BOUND_LOWER : BOUND_UPPER)))
            eval = tte.value;
    }
    bool improving = !in_check && ply >= 2 && s->stack[ply - 2].static_eval != VALUE_NONE &&
                     ss->static_eval > s->stack[ply - 2].static_eval;

    if (!pv_node && !in_check && !excluded) {
        /* reverse futility: far above beta at low depth; never against a beta that says
         * we are mated, which a static evaluation cannot refute (it would also hide a
         * position without a legal move, a loss here) */
        if (depth <= sp->rfp_depth &&
            eval - (sp->rfp_margin - sp->rfp_improving * improving) * depth >= beta &&
            eval < VALUE_MATE_IN_MAX_PLY && beta > VALUE_MATED_IN_MAX_PLY)
            return eval;

        /* null move: if passing still beats beta, a real move will too */
        if (depth >= sp->nmp_min_depth && eval >= beta &&
            ss->static_eval >= beta - sp->nmp_static_margin * depth && ply > 0 &&
            s->stack[ply - 1].current != MOVE_NULL && has_attackers(pos, pos->side) &&
            beta > VALUE_MATED_IN_MAX_PLY) {
            int by_eval = (eval - beta) / sp->nmp_eval_div;
            int r = sp->nmp_base + depth / sp->nmp_depth_div +
                    (by_eval < sp->nmp_eval_max ? by_eval : sp->nmp_eval_max);
            if (s->net)
                nnue_stack_push_null(s->nnue, ply);
            pos_do_null(pos);
            ss->current = MOVE_NULL;
            ss->cont = NULL;
            Value v = -search(s, -beta, -beta + 1, depth - r, ply + 1, !cut_node);
            pos_undo_null(pos);
            if (s->aborted)
                return VALUE_ZERO;
            if (v >= beta)
                return v >= VALUE_MATE_IN_MAX_PLY ? beta : v;
        }
    }

    /* no hash move at a deep node: search it shallower, it will have one next time */
    if (depth >= sp->iir_min_depth && tt_move == MOVE_NONE && (pv_node || cut_node))
        depth--;

    MovePicker mp;
    if (movepick_init(&mp, s, pos, tt_move, ply) == 0)
        return value_mated_in(ply); /* checkmate or stalemate: both lose */
    s->stack[ply + 1].killers[0] = s->stack[ply + 1].killers[1] = MOVE_NONE;

    Value best = -VALUE_INFINITE;
    Move best_move = MOVE_NONE, m;
    Move quiets[64], captures[32];
    int nquiets = 0, ncaptures = 0, move_count = 0;
    Value old_alpha = alpha;

    while ((m = movepick_next(&mp)) != MOVE_NONE) {
        if (m == excluded || (root && root_skips(s, m)))
            continue;
        move_count++;
        bool capture = pos_is_capture(pos, m);
        int hist = capture ? 0 : movepick_quiet_score(s, pos, m, ply);

        /* shallow pruning, once a move has kept us from being mated. Checks are never
         * pruned here: xiangqi's mates run through checks that give material away (a
         * chariot or cannon sacrificed on the palace), which the exchange count calls
         * losing. */
        if (!root && best > VALUE_MATED_IN_MAX_PLY && !in_check && !pos_gives_check(pos, m)) {
            if (!capture) {
                int lmp = (sp->lmp_base + depth * depth) / (2 - improving);
                if (depth <= sp->lmp_depth && move_count > lmp)
                    continue;
                if (depth <= sp->fut_depth &&
                    ss->static_eval + sp->fut_base + sp->fut_margin * depth <= alpha &&
                    hist < sp->fut_history)
                    continue;
                if (depth <= sp->see_quiet_depth &&
                    !see_ge(pos, m, -sp->see_quiet_margin * depth * depth))
                    continue;
            } else if (depth <= sp->see_capture_depth &&
                       !see_ge(pos, m, -sp->see_capture_margin * depth)) {
                continue;
            }
        }

        /* singular extension: when no other move comes near the hash move's value, the
         * hash move is the only one that holds: one ply more for it. When even without
         * it the node fails high, it fails high (several moves beat beta). */
        int singular = 0;
        if (m == tt_move && !root && !excluded && depth >= sp->se_min_depth && tte.hit &&
            tte.move == m && (tte.bound & BOUND_LOWER) && tte.depth >= depth - 3 &&
            abs(tte.value) < VALUE_MATE_IN_MAX_PLY && ply < 2 * s->root_depth) {
            Value sbeta = tte.value - sp->se_margin * depth;
            ss->excluded = m;
            Value sv = search(s, sbeta - 1, sbeta, (depth - 1) / 2, ply, cut_node);
            ss->excluded = MOVE_NONE;
            if (s->aborted)
                return VALUE_ZERO;
            if (sv < sbeta)
                singular = 1;
            else if (sbeta >= beta)
                return sbeta;
        }

        /* check extension for checks that do not hang the checking piece, bounded so
         * perpetual-check lines cannot run away. Whether m checks is read from the child
         * (its checkers are computed anyway); the exchange is judged before the move, so
         * a checking move is taken back for it: checks are a few percent of the moves. */
        uint64_t nodes_before = search_nodes(s);
        make_move(s, ply, m);
        tt_prefetch(s->tt, pos_key(pos));
        bool gives_check = pos_in_check(pos);
        bool extend = false;
        if (gives_check && ply < 2 * s->root_depth) {
            pos_undo_move(pos);
            extend = see_ge(pos, m, 0);
            make_move(s, ply, m);
        }
        int new_depth = depth - 1 + (extend || singular);

        Value v;
        int searched = move_count - 1;
        if (depth >= sp->lmr_min_depth && move_count > 1 + pv_node && (!capture || cut_node)) {
            int r =
                s->lmr[depth < MAX_PLY ? depth : MAX_PLY - 1][move_count < 64 ? move_count : 63];
            r += !pv_node;
            r += cut_node;
            r -= gives_check;
            r += !improving;
            r -= hist / sp->lmr_history_div;
            if (r < 0)
                r = 0;
            if (r > new_depth - 1)
                r = new_depth - 1;
            v = -search(s, -alpha - 1, -alpha, new_depth - r, ply + 1, true);
            if (v > alpha && r > 0)
                v = -search(s, -alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
        } else if (!pv_node || searched > 0) {
            v = -search(s, -alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
        } else {
            v = alpha + 1; /* first move of a PV node: full window below */
        }
        if (pv_node && (searched == 0 || (v > alpha && v < beta)))
            v = -search(s, -beta, -alpha, new_depth, ply + 1, false);
        pos_undo_move(pos);
        if (s->aborted)
            return VALUE_ZERO;
        if (v > best) {
            best = v;
            if (v > alpha) {
                best_move = m;
                if (root && s->pv_idx == 0) {
                    s->root_best_nodes = search_nodes(s) - nodes_before;
                    s->root_best_value = v;
                    s->root_best_changes += move_count > 1;
                }
                if (pv_node)
                    pv_update(ss, m);
                if (v >= beta)
                    break;
                alpha = v;
            }
        }
        if (m != best_move) {
            if (!capture && nquiets < 64)
                quiets[nquiets++] = m;
            else if (capture && ncaptures < 32)
                captures[ncaptures++] = m;
        }
    }

    if (best >= beta) {
        if (!pos_is_capture(pos, best_move))
            update_quiet_stats(s, ply, best_move, quiets, nquiets, depth);
        update_capture_stats(s, best_move, captures, ncaptures, depth);
    }

    Bound b = best >= beta                     ? BOUND_LOWER
              : (pv_node && alpha > old_alpha) ? BOUND_EXACT
                                               : BOUND_UPPER;
    if (excluded) /* a search without the hash move: its value is no one's to keep */
        return move_count == 0 ? alpha : best; /* the hash move alone: singular */
    /* nor is a root's that left moves out (searchmoves, later MultiPV lines) */
    if (root && (s->pv_idx > 0 || s->limits.nsearchmoves))
        return best;
    /* the evaluation was wrong in the direction the bound can tell, in a quiet line */
    if (!in_check && (best_move == MOVE_NONE || !pos_is_capture(pos, best_move)) &&
        abs(best) < VALUE_MATE_IN_MAX_PLY && !(b == BOUND_LOWER && best <= ss->static_eval) &&
        !(b == BOUND_UPPER && best >= ss->static_eval))
        corr_update(s, pos, best, ss->static_eval, depth);
    if (!hash_frozen(s))
        tt_store(s->tt, slot, key, best, b, depth, best_move, raw_eval, ply);
    return best;
}

/* ---- iterative deepening -------------------------------------------------------- */

/* One report to the caller: line multipv (from 1), depth, score and bound of a root
 * search, its line pv[0..len), and the nodes (of every thread) and milliseconds spent
 * so far. */
static void report_line(Search *s, const SearchCallbacks *cb, int multipv, int depth, Value v,
                        Bound bound, const Move *pv, int len)
{
    if (!cb || !cb->on_info)
        return;
    SearchInfo info;
    info.multipv = multipv;
    info.depth = depth;
    info.seldepth = s->seldepth;
    info.score = v;
    info.bound = bound;
    info.nodes = search_total_nodes(s);
    info.time_ms = time_now_ms() - s->start_ms;
    info.hashfull = tt_hashfull(s->tt);
    info.pv_len = len;
    memcpy(info.pv, pv, (size_t)len * sizeof(Move));
    cb->on_info(cb->ctx, &info);
}

/* The report of the root's current line, the line being searched. */
static void report(Search *s, const SearchCallbacks *cb, int depth, Value v, Bound bound)
{
    report_line(s, cb, s->pv_idx + 1, depth, v, bound, s->stack[0].pv, s->stack[0].pv_len);
}

/* What every search starts from: the root, the limits, a new TT generation (for a
 * search alone) and an empty stack. */
static void search_start(Search *s, const Position *root, const SearchLimits *limits)
{
    s->start_ms = time_now_ms();
    s->clock_ms = s->start_ms;
    s->sp = s->tune ? *s->tune : SPSA_PARAMS_DEFAULT;
    pos_copy(&s->pos, root);
    if (s->net)
        nnue_stack_reset(s->nnue);
    s->limits = *limits;
    s->plan = time_plan(limits, root->side, s->move_overhead, root->game_ply);
    if (s->thread_id > 0) /* a helper ends when the main search stops it */
        s->plan = (TimePlan){0, 0};
    s->pondering = limits->ponder && s->ponder && atomic_load(s->ponder);
    s->stop_on_hit = false;
    atomic_store_explicit(&s->nodes, 0, memory_order_relaxed);
    s->aborted = false;
    s->lines = NULL;
    s->pv_idx = 0;
    s->done_depth = 0;
    s->done_len = 0;
    if (s->threads <= 1)
        tt_new_search(s->tt);
    memset(s->stack, 0, sizeof s->stack);
    for (int i = 0; i < MAX_PLY + 4; i++)
        s->stack[i].static_eval = VALUE_NONE;
}

Value search_quiescence(Search *s, const Position *pos, bool quiet_checks, Move *pv, int *pv_len)
{
    SearchLimits none;
    time_limits_clear(&none);
    search_start(s, pos, &none);
    s->seldepth = 0;
    s->root_depth = 0;
    s->qsearch_pv = true;
    Value v = qsearch(s, -VALUE_INFINITE, VALUE_INFINITE, 0, quiet_checks ? 0 : 1);
    s->qsearch_pv = false;
    *pv_len = s->stack[0].pv_len;
    memcpy(pv, s->stack[0].pv, (size_t)*pv_len * sizeof(Move));
    return v;
}

/* What time management remembers from one iteration to the next. */
typedef struct {
    double changes; /* best-move changes, halved every iteration */
    int stable;     /* iterations the best move has stayed */
    Move best;
    Value score; /* the last iteration's score; VALUE_NONE before the first */
} TimeState;

/*
 * After a completed iteration: whether to stop rather than start another. The optimum
 * is scaled up while the best move keeps changing or the score falls, and down while
 * the best move stays, the score rises, or the best move took nearly all the nodes.
 */
static bool time_spent(Search *s, TimeState *tm, Move best, Value v, uint64_t iteration_nodes)
{
    const SearchParams *sp = &s->sp;
    tm->changes = tm->changes / 2 + s->root_best_changes;
    tm->stable = best == tm->best ? tm->stable + 1 : 0;
    tm->best = best;
    double scale = 1.0 + tm->changes * sp->tm_change_pct / 100.0;
    scale *= (130 - sp->tm_stable_pct * (tm->stable < 6 ? tm->stable : 6)) / 100.0;
    if (tm->score != VALUE_NONE && abs(v) < VALUE_MATE_IN_MAX_PLY) {
        double fall = 1.0 + (tm->score - v) * sp->tm_fall_permille / 1000.0;
        scale *= fall < 0.7 ? 0.7 : fall > 1.6 ? 1.6 : fall;
    }
    tm->score = v;
    if (iteration_nodes > 0 &&
        (double)s->root_best_nodes * 100 >= (double)iteration_nodes * sp->tm_effort_pct)
        scale *= sp->tm_effort_cut / 100.0;
    double limit = (double)s->plan.optimum * scale * sp->tm_stop_pct / 100.0;
    return (double)(time_now_ms() - s->start_ms) > limit;
}

/* Helpers skip some depths, each its own pattern, so that the threads spread over
 * several depths (Stockfish 10's table): helper i searches depth d unless
 * ((d + game ply + PHASE[i]) / SIZE[i]) is odd. */
static const int SKIP_SIZE[20] = {1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4};
static const int SKIP_PHASE[20] = {0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7};

static bool helper_skips(const Search *s, int depth)
{
    if (s->thread_id == 0)
        return false;
    int i = (s->thread_id - 1) % 20;
    return (depth + s->pos.game_ply + SKIP_PHASE[i]) / SKIP_SIZE[i] % 2 != 0;
}

/* The root moves the search chooses from (searchmoves, when they name a legal move)
 * into *first; returns how many. */
static int root_moves(Search *s, const MoveList *legal, Move *first)
{
    int n = 0;
    *first = MOVE_NONE;
    for (int i = 0; i < legal->count; i++)
        if (!root_skips(s, legal->moves[i]) && n++ == 0)
            *first = legal->moves[i];
    if (n == 0) { /* none of the moves named is legal: every move */
        s->limits.nsearchmoves = 0;
        n = legal->count;
        *first = legal->moves[0];
    }
    return n;
}

/* Line k of lines[0..n) moved up past the lines that scored less (stable). */
static void lines_sort(SearchLine *lines, int k)
{
    SearchLine t = lines[k];
    int i = k;
    while (i > 0 && lines[i - 1].score < t.score) {
        lines[i] = lines[i - 1];
        i--;
    }
    lines[i] = t;
}

/* Whether the side to move has found a mate within the "go mate" moves. */
static bool mate_found(const SearchLimits *l, Value v)
{
    return l->mate > 0 && v >= VALUE_MATE_IN_MAX_PLY && (VALUE_MATE - v + 1) / 2 <= l->mate;
}

/* The root searched to depth in a window around prev (from asp_min_depth on), widened
 * each time the value falls outside it; each bound met on the way is reported.
 *
 * MultiPV N's first line is MultiPV 1's search, move for move: the later lines of a
 * depth read the hash but do not write it (hash_frozen), and the histories, correction
 * tables and killers they learn go back to what the first line left (Learned), so the
 * next depth's first line starts from what MultiPV 1 would have. And a later line is
 * searched below cap, the first line's score at this depth: that search found every
 * other move no better (by the null windows and reductions of the ordinary search),
 * while a move searched on its own with a full window often scores higher than that look
 * gave it, and would overtake the first line. A line that reaches cap stops there, its
 * score cap as a lower bound (*bound); the next depth's first line, which searches that
 * move again, decides between them. Without both, MultiPV 3's best move was MultiPV 1's
 * at depth 8 in 31 of 64 middle-game positions; with them in all (scripts/bench-multipv);
 * the price is some 30 % more nodes for the later lines, which learn less from the hash. */
static Value aspiration(Search *s, const SearchCallbacks *cb, int depth, Value prev, Value cap,
                        Bound *bound)
{
    Value delta = s->sp.asp_delta, alpha = -VALUE_INFINITE, beta = VALUE_INFINITE, v;
    if (depth >= s->sp.asp_min_depth) {
        alpha = prev - delta > -VALUE_INFINITE ? prev - delta : -VALUE_INFINITE;
        beta = prev + delta < VALUE_INFINITE ? prev + delta : VALUE_INFINITE;
    }
    *bound = BOUND_EXACT;
    for (;;) {
        if (beta > cap + 1)
            beta = cap + 1;
        if (alpha >= beta)
            alpha = beta - 1 - delta > -VALUE_INFINITE ? beta - 1 - delta : -VALUE_INFINITE;
        v = search(s, alpha, beta, depth, 0, false);
        if (s->aborted)
            break;
        if (v > cap) {
            *bound = BOUND_LOWER;
            v = cap;
            break;
        }
        if (v <= alpha) {
            report(s, cb, depth, alpha, BOUND_UPPER);
            beta = (alpha + beta) / 2;
            alpha = v - delta > -VALUE_INFINITE ? v - delta : -VALUE_INFINITE;
        } else if (v >= beta) {
            report(s, cb, depth, beta, BOUND_LOWER);
            beta = v + delta < VALUE_INFINITE ? v + delta : VALUE_INFINITE;
        } else {
            break;
        }
        delta += delta / 2;
    }
    return v;
}

/* What a later MultiPV line changes besides the hash, saved before it and put back
 * after it: the tables and the stack (killers, continuation entries). */
typedef struct {
    SearchTables tab;
    SearchStack stack[MAX_PLY + 4];
} Learned;

static void learned_save(Learned *l, const Search *s)
{
    l->tab = s->tab;
    memcpy(l->stack, s->stack, sizeof l->stack);
}

/* The root's line (stack[0].pv) stays: it is the last line searched. */
static void learned_restore(Search *s, const Learned *l)
{
    s->tab = l->tab;
    SearchStack root = s->stack[0];
    memcpy(s->stack, l->stack, sizeof l->stack);
    memcpy(s->stack[0].pv, root.pv, sizeof root.pv);
    s->stack[0].pv_len = root.pv_len;
}

/* Line s->pv_idx of lines (multipv of them) found at depth with value v: kept with the
 * root's PV, the lines sorted, and the best one made the move to play (res) and the last
 * completed line (done_*). */
static void line_done(Search *s, SearchLine *lines, int multipv, int depth, Value v, Bound bound,
                      SearchResult *res)
{
    SearchLine *line = &lines[s->pv_idx];
    line->score = line->prev = v;
    line->bound = bound;
    line->depth = depth;
    line->pv_len = s->stack[0].pv_len;
    memcpy(line->pv, s->stack[0].pv, (size_t)line->pv_len * sizeof(Move));
    if (multipv > 1)
        lines_sort(lines, s->pv_idx);
    res->score = lines[0].score;
    res->depth = depth;
    if (lines[0].pv_len > 0)
        res->best = lines[0].pv[0];
    res->ponder = lines[0].pv_len > 1 ? lines[0].pv[1] : MOVE_NONE;
    s->done_depth = depth;
    s->done_score = lines[0].score;
    s->done_len = lines[0].pv_len;
    memcpy(s->done_pv, lines[0].pv, (size_t)s->done_len * sizeof(Move));
}

SearchResult search_run(Search *s, const Position *root, const SearchLimits *limits,
                        const SearchCallbacks *cb)
{
    search_start(s, root, limits);
    lmr_build(s);

    SearchResult res = {MOVE_NONE, MOVE_NONE, VALUE_ZERO, 0, 0, 0, false};
    MoveList legal;
    if (gen_legal(&s->pos, &legal) == 0) {
        res.score = value_mated_in(0);
        return res;
    }
    int nroot = root_moves(s, &legal, &res.best);
    int multipv = limits->multipv > 1 && s->thread_id == 0 ? limits->multipv : 1;
    if (multipv > nroot)
        multipv = nroot;
    SearchLine lines[SEARCH_MULTIPV_MAX];
    /* NULL (out of memory) only costs MultiPV N's first line its sameness with MultiPV 1 */
    Learned *learned = multipv > 1 ? malloc(sizeof *learned) : NULL;
    for (int i = 0; i < multipv; i++)
        lines[i] = (SearchLine){VALUE_ZERO, VALUE_ZERO, BOUND_EXACT, 0, 0, {MOVE_NONE}};
    s->lines = lines;

    TimeState tm = {0.0, 0, MOVE_NONE, VALUE_NONE};
    int max_depth = limits->depth > 0 && limits->depth < MAX_PLY - 4 ? limits->depth : MAX_PLY - 4;
    for (int depth = 1; depth <= max_depth; depth++) {
        if (helper_skips(s, depth))
            continue;
        s->root_depth = depth;
        s->seldepth = 0;
        s->root_best_changes = 0;
        s->root_best_nodes = 0;
        uint64_t iteration_start = search_nodes(s);
        int done = 0; /* lines completed at this depth */
        bool saved = false;
        for (s->pv_idx = 0; s->pv_idx < multipv; s->pv_idx++) {
            SearchLine *line = &lines[s->pv_idx];
            if (s->pv_idx == 1 && learned) {
                learned_save(learned, s);
                saved = true;
            }
            /* each line's last move first: the root's ordering reads stack[0].pv[0] */
            if (multipv > 1)
                s->stack[0].pv[0] = line->pv_len ? line->pv[0] : MOVE_NONE;
            Bound bound;
            Value v = aspiration(s, cb, depth, line->prev,
                                 s->pv_idx > 0 ? lines[0].score : VALUE_INFINITE, &bound);
            /* an unfinished first iteration still gives its line, as far as it went */
            if (s->aborted && (depth > 1 || s->pv_idx > 0))
                break;
            line_done(s, lines, multipv, depth, v, bound, &res);
            done++;
            if (s->aborted)
                break;
        }
        if (saved)
            learned_restore(s, learned);
        if (s->aborted && depth > 1 && s->pv_idx == 0) {
            /* The root PV changes only when a finished child search raises alpha: a
             * move other than the last best one that did so in this unfinished
             * iteration scored above what the last best move scored or was bounded by
             * here, at a greater depth. */
            if (s->stack[0].pv_len > 0 && s->stack[0].pv[0] != res.best) {
                res.best = s->stack[0].pv[0];
                res.ponder = s->stack[0].pv_len > 1 ? s->stack[0].pv[1] : MOVE_NONE;
                res.partial = true;
            }
            /* The last report names the move played and counts every node and millisecond
             * of the search: that move's line, its value a lower bound at this depth, or
             * the completed iteration's again. */
            if (res.partial)
                report(s, cb, depth, s->root_best_value, BOUND_LOWER);
            else
                report_line(s, cb, 1, res.depth, res.score, BOUND_EXACT, s->done_pv, s->done_len);
            break;
        }
        uint64_t iteration_nodes = search_nodes(s) - iteration_start;
        /* every line of this depth (all but the unfinished ones), best first */
        for (int k = 0; k < done; k++)
            report_line(s, cb, k + 1, depth, lines[k].score, lines[k].bound, lines[k].pv,
                        lines[k].pv_len);
        if (s->aborted)
            break;
        if (mate_found(limits, res.score))
            break;
        if (s->plan.optimum && time_spent(s, &tm, res.best, res.score, iteration_nodes)) {
            if (!s->pondering)
                break;
            s->stop_on_hit = true; /* the move is ready: played at ponderhit */
        }
        if (s->pondering) {
            ponder_poll(s);
            if (s->aborted)
                break;
        }
    }
    /* "go infinite" waits for stop even after the last depth, a ponder search for
     * ponderhit or stop */
    while (s->thread_id == 0 && !s->aborted && !atomic_load(s->stop) &&
           (limits->infinite || s->pondering)) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
        ponder_poll(s);
    }
    free(learned);
    res.nodes = search_total_nodes(s);
    res.time_ms = time_now_ms() - s->start_ms;
    return res;
}

SearchResult search_pick(Search *main_search, SearchResult main, const SearchCallbacks *cb)
{
    Search *s = main_search, *best = NULL;
    int depth = main.depth;
    Value score = main.score;
    if (s->limits.multipv <= 1)
        for (int i = 1; i < s->threads; i++) {
            Search *h = s->all[i];
            if (h->done_len > 0 && h->done_depth >= depth && h->done_score > score) {
                best = h;
                depth = h->done_depth;
                score = h->done_score;
            }
        }
    if (best) {
        main.best = best->done_pv[0];
        main.ponder = best->done_len > 1 ? best->done_pv[1] : MOVE_NONE;
        main.depth = depth;
        main.score = score;
        main.partial = false;
        report_line(s, cb, 1, depth, score, BOUND_EXACT, best->done_pv, best->done_len);
    }
    main.nodes = search_total_nodes(s);
    main.time_ms = time_now_ms() - s->start_ms;
    return main;
}
