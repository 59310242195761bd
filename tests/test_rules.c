/*
 * The game rules: every scenario of rules.md section 8, the cases its "still to build"
 * list asks for, the search-side conditions of section 2, the 60-move counters, the
 * material table and the chase attack sets on fixed positions.
 *
 * Every move line was replayed with Fairy-Stockfish (xiangqi): each move is legal there
 * and its check status is the one stated in the comments. Verdicts assert both the
 * result and the reason, and every judge call must leave the position as it found it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "movegen.h"
#include "notation.h"
#include "position.h"
#include "rules.h"

/* Positions are large (the history array), so the tests share static ones. */
static Position g_pos, g_snap;

typedef struct {
    const char *fen;
    const char *moves; /* coordinate moves separated by spaces */
} Line;

static void set_fen(const char *fen)
{
    PosError err = {{0}};
    if (!pos_set_fen(&g_pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
}

/* Plays the first `plies` moves of a line (all of them if plies < 0) from its FEN,
 * failing on any move that is not legal; returns how many were played. */
static int play(const Line *line, int plies)
{
    set_fen(line->fen);
    int n = 0;
    const char *p = line->moves;
    while (*p && (plies < 0 || n < plies)) {
        char tok[8] = {0};
        int len = 0;
        while (*p == ' ')
            p++;
        while (*p && *p != ' ' && len < 7)
            tok[len++] = *p++;
        if (!len)
            break;
        Move m = move_parse_legal(&g_pos, tok);
        if (m == MOVE_NONE)
            fail_msg("%s: move %d (%s) is not legal", line->fen, n + 1, tok);
        pos_do_move(&g_pos, m);
        n++;
    }
    return n;
}

static void snapshot(void)
{
    pos_copy(&g_snap, &g_pos);
}

/* The judge must leave the position exactly as it found it. */
static void expect_unchanged(void)
{
    size_t used = offsetof(Position, hist) + (size_t)g_snap.hist_len * sizeof(StateInfo);
    if (g_pos.hist_len != g_snap.hist_len || memcmp(&g_pos, &g_snap, used) != 0)
        fail_msg("the judge changed the position");
    const char *why;
    if (!pos_is_ok(&g_pos, &why))
        fail_msg("position no longer consistent: %s", why);
}

static Verdict judge_game(void)
{
    snapshot();
    Verdict v = rules_judge_game(&g_pos);
    expect_unchanged();
    return v;
}

static bool judge_search(int ply, Verdict *v, RulesBound *bound)
{
    snapshot();
    bool exact = rules_judge_search(&g_pos, ply, v, bound);
    expect_unchanged();
    return exact;
}

static void expect_verdict(Verdict v, Result result, Reason reason)
{
    if (v.result != result || v.reason != reason)
        fail_msg("expected %s by %s, got %s by %s", rules_result_name(result),
                 rules_reason_name(reason), rules_result_name(v.result),
                 rules_reason_name(v.reason));
}

/*
 * Plays a line ply by ply: no verdict before ply `first` (second occurrences included),
 * the given verdict at `first`, and at every later ply of the line the same reason
 * against the same side (the cycle is complete there too). Returns the verdict at `first`.
 */
static Verdict expect_line(const Line *line, int first, Result result, Reason reason)
{
    int total = play(line, -1);
    assert_true(first <= total);
    Verdict at_first = {RESULT_NONE, REASON_NONE, 0};
    Color loser = COLOR_NB;
    for (int n = 0; n <= total; n++) {
        play(line, n);
        Verdict v = judge_game();
        if (n < first) {
            if (v.result != RESULT_NONE)
                fail_msg("%s: verdict %s by %s already after ply %d", line->fen,
                         rules_result_name(v.result), rules_reason_name(v.reason), n);
            continue;
        }
        if (n == first) {
            expect_verdict(v, result, reason);
            at_first = v;
            loser = result == RESULT_LOSS ? g_pos.side : color_flip(g_pos.side);
            continue;
        }
        Result later = result == RESULT_DRAW ? RESULT_DRAW
                       : g_pos.side == loser ? RESULT_LOSS
                                             : RESULT_WIN;
        expect_verdict(v, later, reason);
    }
    return at_first;
}

/* ---- lines ---------------------------------------------------------------------------- */

/* 1, 2: every Red move checks (rank 9, then rank 8), Black's king steps d9-d8. */
static const Line CHARIOT_CHECKS = {.fen = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1",
                                    .moves = "i0i9 d9d8 i9i8 d8d9 i8i9 d9d8 i9i8 d8d9 i8i9"};

/* 3: the horse newly attacks the same unprotected cannon on every move (c8 hits a7,
 * b6 hits a4); the cannon's moves attack nothing. */
static const Line HORSE_CHASES_CANNON = {.fen = "5k3/9/c8/1N7/9/9/9/9/9/3K5 w - - 0 1",
                                         .moves = "b6c8 a7a4 c8b6 a4a7 b6c8 a7a4 c8b6 a4a7 b6c8"};

/* 4: as 3, but the rook on a0 protects a7 and a4. */
static const Line HORSE_CHASES_PROTECTED_CANNON = {
    .fen = "5k3/9/c8/1N7/9/9/9/9/4K4/r8 w - - 0 1",
    .moves = "b6c8 a7a4 c8b6 a4a7 b6c8 a7a4 c8b6 a4a7 b6c8"};

/* 5: as 4 with a chariot as the target: a horse on a chariot counts though protected. */
static const Line HORSE_CHASES_PROTECTED_CHARIOT = {
    .fen = "5k3/9/r8/1N7/9/9/9/9/4K4/r8 w - - 0 1",
    .moves = "b6c8 a7a4 c8b6 a4a7 b6c8 a7a4 c8b6 a4a7 b6c8"};

/* 6: the cannon goes c4-c7-c4 and hits the chariot on a7 over the red soldier b7, then
 * on a4 over the black soldier b4. The rook on a0 protects both points. The chariot,
 * going back to a7, newly attacks the crossed red soldier on b7 but its move to a4
 * attacks nothing, so Black does not chase. */
static const Line CANNON_CHASES_PROTECTED_CHARIOT = {
    .fen = "5k3/9/rP7/9/9/1pC6/9/9/4K4/r8 w - - 0 1",
    .moves = "c4c7 a7a4 c7c4 a4a7 c4c7 a7a4 c7c4 a4a7 c4c7"};

/* Every move of both sides checks: each cannon move uncovers a check and each chariot
 * move both blocks a check and gives one (f9 cannon over f7 or f3, d3 cannon over d7,
 * d1 chariot). Red starts in check; the start position recurs after plies 4 and 8. */
static const Line MUTUAL_CHECKS = {.fen = "5c3/3k5/3r5/9/9/9/5C3/9/3R1K3/9 w - - 0 1",
                                   .moves = "f3d3 d7f7 d3f3 f7d7 f3d3 d7f7 d3f3 f7d7"};

/* Red checks on every move as in 1, and every king step of Black uncovers a cannon on
 * the red chariot: a9 over the elephant c9 when the king leaves d9, a8 over the horse
 * b8 when it leaves d8. */
static const Line CHECKS_AGAINST_CHASES = {.fen = "c1bk5/cn7/9/9/9/9/9/9/9/4K3R w - - 0 1",
                                           .moves = "i0i9 d9d8 i9i8 d8d9 i8i9 d9d8 i9i8 d8d9 i8i9"};

/* The red general steps e1-f1 and back, each time newly attacking the unprotected
 * cannon, which steps f2-e2 and back. Generals never chase. */
static const Line GENERAL_CHASES = {.fen = "3k5/9/9/p8/9/9/9/5c3/4K4/9 w - - 0 1",
                                    .moves = "e1f1 f2e2 f1e1 e2f2 e1f1 f2e2 f1e1 e2f2 e1f1"};

/* A crossed red soldier steps e6-d6 and back, each time newly attacking the unprotected
 * chariot, which steps d7-e7 and back. Soldiers never chase. */
static const Line SOLDIER_CHASES = {.fen = "3k5/9/3r5/4P4/9/9/9/9/9/5K3 w - - 0 1",
                                    .moves = "e6d6 d7e7 d6e6 e7d7 e6d6 d7e7 d6e6 e7d7 e6d6"};

/* The horse goes c4-d2 and back, newly attacking the crossed black soldier each time
 * (d2 hits b3, c4 hits a3) as it steps b3-a3 and back. */
static const Line HORSE_CHASES_CROSSED_SOLDIER = {
    .fen = "3k5/9/9/9/9/2N6/1p7/9/9/4K4 w - - 0 1",
    .moves = "c4d2 b3a3 d2c4 a3b3 c4d2 b3a3 d2c4 a3b3 c4d2"};

/* The red chariot goes e3-e4 and back along the e-file, attacking the unprotected cannon
 * on a4 and then on a3. PINNED: the chariot on e8 pins it to its general, so it may not
 * take the cannon. FREE: the same without the pin. */
static const Line PINNED_CHARIOT_CHASES = {.fen = "5k3/4r4/9/9/9/c8/4R4/9/9/4K4 w - - 0 1",
                                           .moves = "e3e4 a4a3 e4e3 a3a4 e3e4 a4a3 e4e3 a3a4 e3e4"};
static const Line FREE_CHARIOT_CHASES = {.fen = "5k3/9/9/9/9/c8/4R4/9/9/4K4 w - - 0 1",
                                         .moves = "e3e4 a4a3 e4e3 a3a4 e3e4 a4a3 e4e3 a3a4 e3e4"};

/* A red chariot newly attacks the black chariot on every move (a6 hits e6, a5 hits e5).
 * PINNED: the black chariot is pinned to its general by the chariot on e1, so it could
 * not take back: the chase counts. FREE: the black general stands on d9, the black
 * chariot could take back, and a mutual attack is no chase. */
static const Line CHARIOT_CHASES_PINNED_CHARIOT = {
    .fen = "4k4/9/9/4r4/R8/9/9/9/4R4/5K3 w - - 0 1",
    .moves = "a5a6 e6e5 a6a5 e5e6 a5a6 e6e5 a6a5 e5e6 a5a6"};
static const Line CHARIOT_CHASES_FREE_CHARIOT = {
    .fen = "3k5/9/9/4r4/R8/9/9/9/4R4/5K3 w - - 0 1",
    .moves = "a5a6 e6e5 a6a5 e5e6 a5a6 e6e5 a6a5 e5e6 a5a6"};

/* The horse newly attacks the cannon on a7 with every move to c8 and the cannon on a4
 * with every move to b6, while Black only steps the general: two pieces in turn. */
static const Line HORSE_CHASES_TWO = {.fen = "3k5/9/c8/1N7/9/c8/9/9/9/4K4 w - - 0 1",
                                      .moves = "b6c8 d9d8 c8b6 d8d9 b6c8 d9d8 c8b6 d8d9 b6c8"};

/* The chariot on a5 attacks the unprotected horse on e5 all along while both generals
 * step to and fro: an attack that only persists is no chase. */
static const Line PERSISTENT_ATTACK = {.fen = "3k5/9/9/9/R3n4/9/9/9/9/4K4 w - - 0 1",
                                       .moves = "e0e1 d9d8 e1e0 d8d9 e0e1 d9d8 e1e0 d8d9"};

/* The horse newly attacks the unprotected cannon with every move (b2 hits a0, c0 hits
 * a1), but the cannon's return to a0 checks over the horse on c0, which the horse's
 * next move answers. A check inside the cycle, not by every move of a side: a draw. */
static const Line CHASE_WITH_A_CHECK = {.fen = "3k5/9/9/9/9/9/9/9/9/c1N1K4 w - - 0 1",
                                        .moves = "c0b2 a0a1 b2c0 a1a0 c0b2 a0a1 b2c0 a1a0 c0b2"};

/* 30 plies without a capture: every Red move checks, every Black move answers a check
 * without giving one, and no position occurs three times. */
static const Line THIRTY_CHECKS = {
    .fen = "3k5/9/9/9/9/9/9/9/9/5K2R w - - 0 1",
    .moves = "i0i9 d9d8 i9d9 d8e8 d9e9 e8d8 e9d9 d8e8 d9d8 e8e9 d8e8 e9d9 e8d8 d9e9 d8e8 "
             "e9d9 e8e9 d9d8 e9e8 d8d7 e8d8 d7e7 d8e8 e7d7 e8e7 d7d8 e7d7 d8e8 d7d8 e8e7"};

/* ---- section 8 scenarios ------------------------------------------------------------ */

static void test_perpetual_check_by_chariot(void **state)
{
    (void)state;
    /* The position after ply 1 recurs after plies 5 and 9; Black is to move and wins. */
    Verdict v = expect_line(&CHARIOT_CHECKS, 9, RESULT_WIN, REASON_PERPETUAL_CHECK);
    assert_int_equal(v.span, 8); /* judged from the earliest occurrence */
}

static void test_second_occurrence_gives_no_game_verdict(void **state)
{
    (void)state;
    assert_int_equal(play(&CHARIOT_CHECKS, 5), 5);
    expect_verdict(judge_game(), RESULT_NONE, REASON_NONE);
    assert_int_equal(play(&HORSE_CHASES_CANNON, 5), 5);
    expect_verdict(judge_game(), RESULT_NONE, REASON_NONE);
}

static void test_search_two_fold_only_bounds(void **state)
{
    (void)state;
    Verdict v;
    RulesBound bound;
    /* After ply 5, at ply 5 from the root: the loop (d = 4) lies inside the tree and Red
     * checked throughout, but the positions before the two occurrences differ (the start
     * against the one after ply 4): Black only gets alpha >= draw. */
    play(&CHARIOT_CHECKS, 5);
    assert_false(judge_search(5, &v, &bound));
    assert_int_equal(bound, RULES_BOUND_LOWER);
    /* At ply 4 the loop reaches the root: a second occurrence is no repetition yet. */
    assert_false(judge_search(4, &v, &bound));
    assert_int_equal(bound, RULES_BOUND_NONE);
}

static void test_search_two_fold_exact(void **state)
{
    (void)state;
    Verdict v;
    RulesBound bound;
    /* After ply 6 the positions before both occurrences agree (after plies 1 and 5) and
     * nothing inside the loop occurred twice: Red, to move, has lost. */
    play(&CHARIOT_CHECKS, 6);
    assert_true(judge_search(6, &v, &bound));
    expect_verdict(v, RESULT_LOSS, REASON_PERPETUAL_CHECK);
    assert_int_equal(v.span, 4);
    assert_int_equal(bound, RULES_BOUND_NONE);
    /* A drawn 2-fold is returned at once, whatever the other conditions. */
    play(&HORSE_CHASES_PROTECTED_CANNON, 5);
    assert_true(judge_search(5, &v, &bound));
    expect_verdict(v, RESULT_DRAW, REASON_REPETITION);
    /* The third occurrence is exact in the search too. */
    play(&CHARIOT_CHECKS, 9);
    assert_true(judge_search(1, &v, &bound));
    expect_verdict(v, RESULT_WIN, REASON_PERPETUAL_CHECK);
}

static void test_search_two_fold_inner_repetition(void **state)
{
    (void)state;
    Verdict v;
    RulesBound bound;
    /* The king walks d9-d8-d7-d8-d9 under checks on ranks 9, 8, 7, 8, 9. After ply 10
     * the position after ply 2 recurs (d = 8), the positions before both agree, but the
     * loop passes twice through the position after ply 3 (plies 3 and 7), so re-entering
     * it could end in a different 3-fold: only a bound (Red, to move, would lose). */
    static const Line WALK = {.fen = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1",
                              .moves = "i0i9 d9d8 i9i8 d8d7 i8i7 d7d8 i7i8 d8d9 i8i9 d9d8"};
    play(&WALK, -1);
    assert_false(judge_search(10, &v, &bound));
    assert_int_equal(bound, RULES_BOUND_UPPER);
}

static void test_search_two_fold_at_rule60(void **state)
{
    (void)state;
    Verdict v;
    RulesBound bound;
    /* The exact 2-fold of the ply-6 node needs rule60 < 120; here the sixth ply makes
     * it 120, so the repetition only bounds and the 60-move rule decides: a draw. */
    static const Line LATE = {.fen = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 114 1",
                              .moves = "i0i9 d9d8 i9i8 d8d9 i8i9 d9d8"};
    play(&LATE, -1);
    assert_int_equal(pos_state(&g_pos)->rule60, 120);
    assert_true(judge_search(6, &v, &bound));
    expect_verdict(v, RESULT_DRAW, REASON_RULE60);
    assert_int_equal(bound, RULES_BOUND_NONE);
}

static void test_horse_chases_unprotected_cannon(void **state)
{
    (void)state;
    Verdict v = expect_line(&HORSE_CHASES_CANNON, 8, RESULT_LOSS, REASON_PERPETUAL_CHASE);
    assert_int_equal(v.span, 8);
}

static void test_protected_target_is_not_chased(void **state)
{
    (void)state;
    expect_line(&HORSE_CHASES_PROTECTED_CANNON, 8, RESULT_DRAW, REASON_REPETITION);
}

static void test_horse_chases_protected_chariot(void **state)
{
    (void)state;
    expect_line(&HORSE_CHASES_PROTECTED_CHARIOT, 8, RESULT_LOSS, REASON_PERPETUAL_CHASE);
}

static void test_cannon_chases_protected_chariot(void **state)
{
    (void)state;
    const Line *l = &CANNON_CHASES_PROTECTED_CHARIOT;
    /* Each move is checked for legality on its own, and none gives check. */
    set_fen(l->fen);
    static const char *const MOVES[] = {"c4c7", "a7a4", "c7c4", "a4a7", "c4c7",
                                        "a7a4", "c7c4", "a4a7", "c4c7"};
    for (int i = 0; i < 9; i++) {
        Move m = move_from_text(MOVES[i]);
        assert_true(move_is_legal(&g_pos, m));
        pos_do_move(&g_pos, m);
        assert_false(pos_in_check(&g_pos));
    }
    /* The chariot is protected (a0 takes back on a7 and on a4), yet it counts. */
    play(l, 1);
    assert_true(rules_chased(&g_pos, RED) == bb_square(square_from_text("a7")));
    play(l, 3);
    assert_true(rules_chased(&g_pos, RED) == bb_square(square_from_text("a4")));
    expect_line(l, 8, RESULT_LOSS, REASON_PERPETUAL_CHASE);
}

static void test_rule60_draw(void **state)
{
    (void)state;
    static const Line L = {.fen = "3k5/9/9/9/9/9/9/9/9/4K3R w - - 119 1", .moves = "i0h0"};
    play(&L, -1);
    assert_int_equal(pos_state(&g_pos)->rule60, 120);
    assert_true(move_parse_legal(&g_pos, "d9d8") != MOVE_NONE);
    expect_verdict(judge_game(), RESULT_DRAW, REASON_RULE60);
    Verdict v;
    RulesBound bound;
    assert_true(judge_search(1, &v, &bound));
    expect_verdict(v, RESULT_DRAW, REASON_RULE60);
    /* One ply earlier nothing is due. */
    play(&L, 0);
    expect_verdict(judge_game(), RESULT_NONE, REASON_NONE);
}

static void test_rule60_mate_on_the_last_ply(void **state)
{
    (void)state;
    static const Line L = {.fen = "3k5/R8/9/9/9/9/9/9/9/4K3R w - - 119 1", .moves = "i0i9"};
    play(&L, -1);
    assert_int_equal(pos_state(&g_pos)->rule60, 120);
    assert_true(pos_in_check(&g_pos));
    assert_int_equal(gen_count(&g_pos), 0);
    expect_verdict(judge_game(), RESULT_LOSS, REASON_CHECKMATE);
    Verdict v;
    RulesBound bound;
    assert_true(judge_search(1, &v, &bound));
    expect_verdict(v, RESULT_LOSS, REASON_CHECKMATE);
}

/* The counters as rules.md 5 defines them, for comparison with pos_do_move. */
typedef struct {
    int rule60, check10[COLOR_NB];
} Counters;

static void counters_step(Counters *c, Color us, bool gives_check, bool was_in_check)
{
    Color them = color_flip(us);
    if (gives_check && ++c->check10[us] > 10)
        return;
    if (c->check10[them] > 10 && was_in_check)
        c->check10[them]++;
    else
        c->rule60++;
}

static void test_rule60_check_cap(void **state)
{
    (void)state;
    /* From 0: the counters follow the definition ply by ply, and after 30 plies
     * rule60 = 20 and check10[red] = 20 (5 uncounted checks, 5 uncounted replies). */
    int total = play(&THIRTY_CHECKS, -1);
    assert_int_equal(total, 30);
    set_fen(THIRTY_CHECKS.fen);
    Counters c = {0, {0, 0}};
    for (int n = 1; n <= total; n++) {
        bool was_in_check = pos_in_check(&g_pos);
        Color us = g_pos.side;
        play(&THIRTY_CHECKS, n);
        bool gave_check = pos_in_check(&g_pos);
        assert_true(gave_check == (us == RED));
        assert_true(was_in_check == (us == BLACK));
        counters_step(&c, us, gave_check, was_in_check);
        const StateInfo *st = pos_state(&g_pos);
        assert_int_equal(st->rule60, c.rule60);
        assert_int_equal(st->check10[RED], c.check10[RED]);
        assert_int_equal(st->check10[BLACK], c.check10[BLACK]);
        assert_int_equal(st->since_capture, n);
        expect_verdict(judge_game(), RESULT_NONE, REASON_NONE);
    }
    const StateInfo *st = pos_state(&g_pos);
    assert_int_equal(st->rule60, 20);
    assert_int_equal(st->check10[RED], 20);
    assert_int_equal(st->check10[BLACK], 0);
    /* The true distance: rule60 plus the uncounted plies. */
    assert_int_equal(st->rule60 + (st->check10[RED] - 10), 30);
    assert_int_equal(st->since_capture, 30);

    /* From 100: the 20th ply brings rule60 to 120 with Red to move: a draw. */
    static char fen[128];
    snprintf(fen, sizeof fen, "%s", THIRTY_CHECKS.fen);
    char *clock = strstr(fen, " 0 1");
    assert_non_null(clock);
    memcpy(clock, " 100 1", 7);
    Line late = {fen, THIRTY_CHECKS.moves};
    play(&late, 19);
    assert_int_equal(pos_state(&g_pos)->rule60, 119);
    expect_verdict(judge_game(), RESULT_NONE, REASON_NONE);
    play(&late, 20);
    assert_int_equal(pos_state(&g_pos)->rule60, 120);
    assert_int_equal(g_pos.side, RED);
    expect_verdict(judge_game(), RESULT_DRAW, REASON_RULE60);
}

static void test_capture_resets_counters(void **state)
{
    (void)state;
    /* Checks, then a capture: all three counters and the window start again. */
    static const Line L = {.fen = "3k5/9/9/9/9/9/9/9/r8/4K3R w - - 37 1",
                           .moves = "i0i9 d9d8 i9i8 d8d9 i8a8 a1a8"};
    play(&L, 5);
    assert_int_equal(pos_state(&g_pos)->rule60, 42);
    assert_int_equal(pos_state(&g_pos)->check10[RED], 2);
    play(&L, -1);
    const StateInfo *st = pos_state(&g_pos);
    assert_int_equal(st->rule60, 0);
    assert_int_equal(st->check10[RED], 0);
    assert_int_equal(st->check10[BLACK], 0);
    assert_int_equal(st->since_capture, 0);
}

static void test_stalemate_is_a_loss(void **state)
{
    (void)state;
    set_fen("3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1");
    assert_false(pos_in_check(&g_pos));
    expect_verdict(judge_game(), RESULT_LOSS, REASON_STALEMATE);
    /* The search leaves mate and stalemate to itself. */
    Verdict v;
    RulesBound bound;
    assert_false(judge_search(1, &v, &bound));
    assert_int_equal(bound, RULES_BOUND_NONE);
}

static void test_checkmate_is_a_loss(void **state)
{
    (void)state;
    set_fen("3k5/R8/9/9/9/9/9/9/9/4K3R w - - 0 1");
    Move m = move_parse_legal(&g_pos, "i0i9");
    assert_true(m != MOVE_NONE);
    pos_do_move(&g_pos, m);
    expect_verdict(judge_game(), RESULT_LOSS, REASON_CHECKMATE);
}

static void test_flying_general_legality(void **state)
{
    (void)state;
    set_fen("4k4/9/9/9/9/9/9/9/4C4/4K4 w - - 0 1");
    assert_false(move_is_legal(&g_pos, move_from_text("e1d1")));
    assert_false(move_is_legal(&g_pos, move_from_text("e1f1")));
    static const char *const LEGAL[] = {"e0d0", "e0f0", "e1e2", "e1e3", "e1e4",
                                        "e1e5", "e1e6", "e1e7", "e1e8"};
    for (int i = 0; i < 9; i++)
        assert_true(move_is_legal(&g_pos, move_from_text(LEGAL[i])));
    assert_int_equal(gen_count(&g_pos), 9);
}

static void expect_material(const char *fen, MaterialLevel level, Result result, Reason reason)
{
    set_fen(fen);
    assert_int_equal(rules_material_level(&g_pos), level);
    expect_verdict(judge_game(), result, reason);
}

static void test_material_bare_generals(void **state)
{
    (void)state;
    expect_material("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", MATERIAL_DRAW, RESULT_DRAW,
                    REASON_MATERIAL);
    /* Advisors and elephants add nothing. */
    expect_material("2bk1ab2/4a4/9/9/9/9/9/9/9/2BAKAB2 w - - 0 1", MATERIAL_DRAW, RESULT_DRAW,
                    REASON_MATERIAL);
}

static void test_material_lone_cannon(void **state)
{
    (void)state;
    expect_material("3k5/9/9/9/4c4/9/9/9/9/4K4 w - - 0 1", MATERIAL_DRAW, RESULT_DRAW,
                    REASON_MATERIAL);
}

static void test_material_mate_draw(void **state)
{
    (void)state;
    /* Black's cannon, no black advisor or elephant, two red advisors; Red to move has
     * moves and no mate in one. */
    expect_material("3k5/9/9/9/2c6/9/9/9/4A4/3AK4 w - - 0 1", MATERIAL_MATE_DRAW, RESULT_DRAW,
                    REASON_MATERIAL);
}

static void test_material_two_cannons(void **state)
{
    (void)state;
    expect_material("3k5/9/9/9/2c6/9/9/6C2/9/4K4 w - - 0 1", MATERIAL_DRAW, RESULT_DRAW,
                    REASON_MATERIAL);
}

static void test_material_not_insufficient(void **state)
{
    (void)state;
    expect_material("3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1", MATERIAL_PLAY_ON, RESULT_NONE,
                    REASON_NONE);
}

/* ---- material table, the other rows --------------------------------------------------- */

static void test_material_table(void **state)
{
    (void)state;
    /* Any soldier on the board: play on. */
    expect_material("3k5/9/9/9/9/9/P8/9/9/4K4 w - - 0 1", MATERIAL_PLAY_ON, RESULT_NONE,
                    REASON_NONE);
    /* Lone cannon whose side has an advisor (a screen of its own): play on. */
    expect_material("3k5/4a4/9/9/4c4/9/9/9/9/4K4 w - - 0 1", MATERIAL_PLAY_ON, RESULT_NONE,
                    REASON_NONE);
    /* One enemy advisor: draw without an own elephant, mate-draw with one. */
    expect_material("3k5/9/9/9/2c6/9/9/9/4A4/4K4 w - - 0 1", MATERIAL_DRAW, RESULT_DRAW,
                    REASON_MATERIAL);
    expect_material("3k2b2/9/9/9/2c6/9/9/9/4A4/4K4 w - - 0 1", MATERIAL_MATE_DRAW, RESULT_DRAW,
                    REASON_MATERIAL);
    /* Two enemy advisors and an own elephant: play on. */
    expect_material("3k2b2/9/9/9/2c6/9/9/9/4A4/3AK4 w - - 0 1", MATERIAL_PLAY_ON, RESULT_NONE,
                    REASON_NONE);
    /* Two cannons, one each, with an elephant: mate-draw; with an advisor: play on. */
    expect_material("3k2b2/9/9/9/2c6/9/9/6C2/9/4K4 w - - 0 1", MATERIAL_MATE_DRAW, RESULT_DRAW,
                    REASON_MATERIAL);
    expect_material("3k5/4a4/9/9/2c6/9/9/6C2/9/4K4 w - - 0 1", MATERIAL_PLAY_ON, RESULT_NONE,
                    REASON_NONE);
    /* Two cannons on one side, or a horse: play on. */
    expect_material("3k5/9/9/9/2c1c4/9/9/9/9/4K4 w - - 0 1", MATERIAL_PLAY_ON, RESULT_NONE,
                    REASON_NONE);
    expect_material("3k5/9/9/9/2n6/9/9/9/9/4K4 w - - 0 1", MATERIAL_PLAY_ON, RESULT_NONE,
                    REASON_NONE);
}

static void test_mate_draw_with_mate_in_one(void **state)
{
    (void)state;
    /* Black to move mates with a5a0 (the d0 advisor screens, e1 and the d-file general
     * close the escapes): play on. After the mate Red has no move: a loss. */
    expect_material("3k5/9/9/9/c8/9/9/9/4A4/3AK4 b - - 0 1", MATERIAL_MATE_DRAW, RESULT_NONE,
                    REASON_NONE);
    Move m = move_parse_legal(&g_pos, "a5a0");
    assert_true(m != MOVE_NONE);
    pos_do_move(&g_pos, m);
    assert_int_equal(rules_material_level(&g_pos), MATERIAL_MATE_DRAW);
    expect_verdict(judge_game(), RESULT_LOSS, REASON_CHECKMATE);
    Verdict v;
    RulesBound bound;
    assert_true(judge_search(1, &v, &bound));
    expect_verdict(v, RESULT_LOSS, REASON_CHECKMATE);
}

/* ---- the "still to build" cases ----------------------------------------------------- */

static void test_mutual_perpetual_check_is_a_draw(void **state)
{
    (void)state;
    /* The start position's third occurrence is after ply 8. */
    Verdict v = expect_line(&MUTUAL_CHECKS, 8, RESULT_DRAW, REASON_REPETITION);
    assert_int_equal(v.span, 8);
}

static void test_perpetual_check_beats_perpetual_chase(void **state)
{
    (void)state;
    /* Black really does chase the red chariot with every move... */
    play(&CHECKS_AGAINST_CHASES, 2);
    assert_true(rules_chased(&g_pos, BLACK) == bb_square(square_from_text("i9")));
    play(&CHECKS_AGAINST_CHASES, 4);
    assert_true(rules_chased(&g_pos, BLACK) == bb_square(square_from_text("i8")));
    /* ...but Red checks on every move, and the checker loses. */
    expect_line(&CHECKS_AGAINST_CHASES, 9, RESULT_WIN, REASON_PERPETUAL_CHECK);
}

static void test_general_and_soldier_do_not_chase(void **state)
{
    (void)state;
    expect_line(&GENERAL_CHASES, 8, RESULT_DRAW, REASON_REPETITION);
    expect_line(&SOLDIER_CHASES, 8, RESULT_DRAW, REASON_REPETITION);
}

static void test_crossed_soldier_can_be_chased(void **state)
{
    (void)state;
    expect_line(&HORSE_CHASES_CROSSED_SOLDIER, 8, RESULT_LOSS, REASON_PERPETUAL_CHASE);
}

static void test_pinned_attacker(void **state)
{
    (void)state;
    play(&PINNED_CHARIOT_CHASES, 1);
    assert_true(rules_chased(&g_pos, RED) == 0);
    expect_line(&PINNED_CHARIOT_CHASES, 8, RESULT_DRAW, REASON_REPETITION);
    play(&FREE_CHARIOT_CHASES, 1);
    assert_true(rules_chased(&g_pos, RED) == bb_square(square_from_text("a4")));
    expect_line(&FREE_CHARIOT_CHASES, 8, RESULT_LOSS, REASON_PERPETUAL_CHASE);
}

static void test_pinned_target_cannot_hit_back(void **state)
{
    (void)state;
    expect_line(&CHARIOT_CHASES_PINNED_CHARIOT, 8, RESULT_LOSS, REASON_PERPETUAL_CHASE);
    expect_line(&CHARIOT_CHASES_FREE_CHARIOT, 8, RESULT_DRAW, REASON_REPETITION);
}

static void test_alternating_chase_is_a_draw(void **state)
{
    (void)state;
    play(&HORSE_CHASES_TWO, 1);
    assert_true(rules_chased(&g_pos, RED) == bb_square(square_from_text("a7")));
    play(&HORSE_CHASES_TWO, 3);
    assert_true(rules_chased(&g_pos, RED) == bb_square(square_from_text("a4")));
    expect_line(&HORSE_CHASES_TWO, 8, RESULT_DRAW, REASON_REPETITION);
}

static void test_persistent_attack_is_not_a_chase(void **state)
{
    (void)state;
    for (int n = 0; n <= 8; n++) {
        play(&PERSISTENT_ATTACK, n);
        assert_true(rules_chased(&g_pos, RED) == bb_square(square_from_text("e5")));
    }
    expect_line(&PERSISTENT_ATTACK, 8, RESULT_DRAW, REASON_REPETITION);
}

static void test_check_inside_a_chase_is_a_draw(void **state)
{
    (void)state;
    play(&CHASE_WITH_A_CHECK, 1);
    assert_true(rules_chased(&g_pos, RED) == bb_square(square_from_text("a0")));
    play(&CHASE_WITH_A_CHECK, 3);
    assert_true(rules_chased(&g_pos, RED) == bb_square(square_from_text("a1")));
    play(&CHASE_WITH_A_CHECK, 4);
    assert_true(pos_in_check(&g_pos));
    expect_line(&CHASE_WITH_A_CHECK, 8, RESULT_DRAW, REASON_REPETITION);
}

/* ---- attack sets on fixed positions ------------------------------------------------- */

static void expect_chased(const char *fen, Color c, const char *squares)
{
    set_fen(fen);
    Bitboard want = 0;
    for (const char *p = squares; *p; p += p[2] ? 3 : 2)
        want |= bb_square(square_from_text(p));
    snapshot();
    Bitboard got = rules_chased(&g_pos, c);
    expect_unchanged();
    if (got != want) {
        char buf[256] = "";
        for (Square s = 0; s < SQUARE_NB; s++)
            if (bb_test(got, s)) {
                char name[3];
                square_to_text(s, name);
                strcat(buf, name);
                strcat(buf, " ");
            }
        fail_msg("%s: expected chased {%s}, got {%s}", fen, squares, buf);
    }
}

static void test_attack_sets(void **state)
{
    (void)state;
    /* An advisor on a chariot counts, protected or not... */
    expect_chased("3k5/9/9/9/9/9/9/3r5/4A4/4K4 w - - 0 1", RED, "d2");
    /* ...unless the advisor stands between the generals (pinned by the facing general). */
    expect_chased("4k4/9/9/9/9/9/9/3r5/4A4/4K4 w - - 0 1", RED, "");
    /* A chariot on a horse that only the general protects: protected when the general
     * may take back... */
    expect_chased("4k4/R3n4/9/9/9/9/9/9/9/3K5 w - - 0 1", RED, "");
    /* ...unprotected when taking back would face the red general. */
    expect_chased("4k4/R3n4/9/9/9/9/9/9/9/4K4 w - - 0 1", RED, "e8");
    /* A soldier on its own side is no target; across the river it is. */
    expect_chased("3k5/9/9/9/p8/9/9/9/9/R3K4 w - - 0 1", RED, "");
    expect_chased("3k5/9/9/9/9/p8/9/9/9/R3K4 w - - 0 1", RED, "a4");
    /* Chariots facing each other, both free: a mutual attack, no chase either way. */
    expect_chased("4k4/9/9/9/R3r4/9/9/9/9/3K5 w - - 0 1", RED, "");
    expect_chased("4k4/9/9/9/R3r4/9/9/9/9/3K5 w - - 0 1", BLACK, "");
    /* Horses: the black horse's leg towards c3 is blocked by d4, so it cannot hit back. */
    expect_chased("3k5/9/9/9/3n5/3p5/2N6/9/9/4K4 w - - 0 1", RED, "d5");
    expect_chased("3k5/9/9/9/3n5/9/2N6/9/9/4K4 w - - 0 1", RED, "");
    /* Generals and soldiers never chase, even an unprotected piece next to them. */
    expect_chased("3k5/9/3n5/3P5/9/9/9/9/4c4/4K4 w - - 0 1", RED, "");
    /* The general is never a target: a check is not a chase. */
    expect_chased("4k4/9/9/9/9/9/9/9/9/3KR4 b - - 0 1", RED, "");
}

static void test_reason_names(void **state)
{
    (void)state;
    static const struct {
        Reason reason;
        const char *name;
    } NAMES[] = {
        {REASON_NONE, "none"},
        {REASON_CHECKMATE, "checkmate"},
        {REASON_STALEMATE, "stalemate"},
        {REASON_PERPETUAL_CHECK, "perpetual-check"},
        {REASON_PERPETUAL_CHASE, "perpetual-chase"},
        {REASON_REPETITION, "repetition"},
        {REASON_RULE60, "60-move-rule"},
        {REASON_MATERIAL, "insufficient-material"},
        {REASON_MOVE_LIMIT, "move-limit"},
        {REASON_ILLEGAL_MOVE, "illegal-move"},
        {REASON_TIME_FORFEIT, "time-forfeit"},
        {REASON_ADJUDICATION_RESIGN, "adjudication-resign"},
        {REASON_ADJUDICATION_DRAW, "adjudication-draw"},
        {REASON_ENGINE_CRASH, "engine-crash"},
        {REASON_RESIGN, "resign"},
    };
    assert_int_equal(sizeof NAMES / sizeof NAMES[0], REASON_NB);
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
        assert_string_equal(rules_reason_name(NAMES[i].reason), NAMES[i].name);
        Reason back = REASON_NB;
        assert_true(rules_reason_parse(NAMES[i].name, &back));
        assert_int_equal(back, NAMES[i].reason);
    }
    assert_string_equal(rules_reason_name(REASON_NB), "unknown");
    Reason r;
    assert_false(rules_reason_parse("Perpetual-Check", &r));
    assert_false(rules_reason_parse("", &r));
    assert_false(rules_reason_parse(NULL, &r));
    assert_string_equal(rules_result_name(RESULT_WIN), "win");
    assert_string_equal(rules_result_name(RESULT_DRAW), "draw");
    assert_string_equal(rules_result_name(RESULT_LOSS), "loss");
    assert_string_equal(rules_result_name(RESULT_NONE), "none");
}

int main(void)
{
    position_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perpetual_check_by_chariot),
        cmocka_unit_test(test_second_occurrence_gives_no_game_verdict),
        cmocka_unit_test(test_search_two_fold_only_bounds),
        cmocka_unit_test(test_search_two_fold_exact),
        cmocka_unit_test(test_search_two_fold_inner_repetition),
        cmocka_unit_test(test_search_two_fold_at_rule60),
        cmocka_unit_test(test_horse_chases_unprotected_cannon),
        cmocka_unit_test(test_protected_target_is_not_chased),
        cmocka_unit_test(test_horse_chases_protected_chariot),
        cmocka_unit_test(test_cannon_chases_protected_chariot),
        cmocka_unit_test(test_rule60_draw),
        cmocka_unit_test(test_rule60_mate_on_the_last_ply),
        cmocka_unit_test(test_rule60_check_cap),
        cmocka_unit_test(test_capture_resets_counters),
        cmocka_unit_test(test_stalemate_is_a_loss),
        cmocka_unit_test(test_checkmate_is_a_loss),
        cmocka_unit_test(test_flying_general_legality),
        cmocka_unit_test(test_material_bare_generals),
        cmocka_unit_test(test_material_lone_cannon),
        cmocka_unit_test(test_material_mate_draw),
        cmocka_unit_test(test_material_two_cannons),
        cmocka_unit_test(test_material_not_insufficient),
        cmocka_unit_test(test_material_table),
        cmocka_unit_test(test_mate_draw_with_mate_in_one),
        cmocka_unit_test(test_mutual_perpetual_check_is_a_draw),
        cmocka_unit_test(test_perpetual_check_beats_perpetual_chase),
        cmocka_unit_test(test_general_and_soldier_do_not_chase),
        cmocka_unit_test(test_crossed_soldier_can_be_chased),
        cmocka_unit_test(test_pinned_attacker),
        cmocka_unit_test(test_pinned_target_cannot_hit_back),
        cmocka_unit_test(test_alternating_chase_is_a_draw),
        cmocka_unit_test(test_persistent_attack_is_not_a_chase),
        cmocka_unit_test(test_check_inside_a_chase_is_a_draw),
        cmocka_unit_test(test_attack_sets),
        cmocka_unit_test(test_reason_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
