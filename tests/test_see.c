/*
 * Static exchange evaluation on hand-made positions: undefended and defended targets,
 * cannon screens that change during the exchange (x-rays through the capturing cannon),
 * horse legs, the general as the last recapturer, and threshold monotonicity over every
 * capture of the perft suites and the positions one move after them. The attackers-to
 * that the exchange reads is checked on occupancies with a piece lifted.
 *
 * Expected outcomes are written with SEE_VALUE, so that they hold whatever the values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "movegen.h"
#include "notation.h"
#include "position.h"
#include "see.h"
#include "tests/support/epd.h"

/* Positions are large (the history array), so the tests share a static one. */
static Position g_pos;

static void set_fen(const char *fen)
{
    PosError err = {{0}};
    if (!pos_set_fen(&g_pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
}

static Move legal(const char *text)
{
    Move m = move_parse_legal(&g_pos, text);
    if (m == MOVE_NONE)
        fail_msg("%s is not legal here", text);
    return m;
}

static Value V(PieceType t)
{
    return SEE_VALUE[t];
}

/* The exchange m wins exactly `value`: at least value, not value + 1. */
static void expect_exchange(const char *fen, const char *move, Value value)
{
    set_fen(fen);
    Move m = legal(move);
    if (!see_ge(&g_pos, m, value) || see_ge(&g_pos, m, value + 1))
        fail_msg("%s %s: expected the exchange to win %d (ge %d: %d, ge %d: %d)", fen, move, value,
                 value, see_ge(&g_pos, m, value), value + 1, see_ge(&g_pos, m, value + 1));
}

static Bitboard attackers_of(const char *sq, Color c)
{
    return pos_attackers(&g_pos, square_from_text(sq), c);
}

static void test_undefended_soldier(void **state)
{
    (void)state;
    const char *fen = "4k4/9/9/9/p8/9/9/9/9/R2K5 w - - 0 1";
    set_fen(fen);
    Move m = legal("a0a5");
    assert_true(see_ge(&g_pos, m, 0));
    assert_false(see_ge(&g_pos, m, 200));
    expect_exchange(fen, "a0a5", V(SOLDIER));
}

static void test_soldier_defended_by_horse(void **state)
{
    (void)state;
    /* the horse on b7 covers a5 through its leg b6 */
    const char *fen = "4k4/9/1n7/9/p8/9/9/9/9/R2K5 w - - 0 1";
    set_fen(fen);
    assert_true(attackers_of("a5", BLACK) != 0);
    Move m = legal("a0a5");
    assert_false(see_ge(&g_pos, m, 0));
    expect_exchange(fen, "a0a5", V(SOLDIER) - V(CHARIOT));
}

static void test_horse_leg_blocked_defender(void **state)
{
    (void)state;
    /* the same horse with its leg b6 blocked by a cannon does not defend a5 */
    const char *fen = "4k4/9/1n7/1c7/p8/9/9/9/9/R2K5 w - - 0 1";
    set_fen(fen);
    assert_true(attackers_of("a5", BLACK) == 0);
    Move m = legal("a0a5");
    assert_true(see_ge(&g_pos, m, 0));
    expect_exchange(fen, "a0a5", V(SOLDIER));
}

/*
 * A black cannon behind the capturing red cannon: b0 (black) - b1 (red) - b3 screen - b5
 * target. Before the capture the black cannon sees two pieces and attacks nothing on
 * b5; once the red cannon has left b1, b3 is its only screen and it takes back.
 */
static void test_cannon_xray_recapture(void **state)
{
    (void)state;
    const char *fen = "4k4/9/9/9/1n7/9/1N7/9/1C7/1c1K5 w - - 0 1";
    set_fen(fen);
    assert_false(bb_test(attackers_of("b5", BLACK), square_from_text("b0")));
    assert_true(bb_test(attackers_of("b5", RED), square_from_text("b1")));
    expect_exchange(fen, "b1b5", V(HORSE) - V(CANNON));
}

/*
 * Two red cannons on one file behind a screen: e0, e2, screen e3, target e5 with a black
 * horse defending it. The rear cannon only sees the target after the front one has
 * gone: it retakes the horse.
 */
static void test_cannon_battery(void **state)
{
    (void)state;
    const char *fen = "3k5/9/3n5/9/4c4/9/4P4/4C4/9/3KC4 w - - 0 1";
    set_fen(fen);
    assert_false(bb_test(attackers_of("e5", RED), square_from_text("e0")));
    Value with_xray = V(CANNON) - V(CANNON) + V(HORSE);
    expect_exchange(fen, "e2e5", with_xray < V(CANNON) ? with_xray : V(CANNON));
}

/* The general retakes on its palace point only when nothing else covers it. */
static void test_general_recaptures_undefended_only(void **state)
{
    (void)state;
    /* advisor on e8, defended by the general alone: the chariot is lost */
    const char *fen = "4k4/R3a4/9/9/9/9/9/9/9/3K5 w - - 0 1";
    expect_exchange(fen, "a8e8", V(ADVISOR) - V(CHARIOT));

    /* the same with e8 covered by a red horse on c7: the general may not retake */
    const char *covered = "4k4/R3a4/2N6/9/9/9/9/9/9/3K5 w - - 0 1";
    set_fen(covered);
    assert_true(bb_test(attackers_of("e8", RED), square_from_text("c7")));
    expect_exchange(covered, "a8e8", V(ADVISOR));

    /* covered by a soldier on e7 */
    expect_exchange("4k4/R3a4/4P4/9/9/9/9/9/9/3K5 w - - 0 1", "a8e8", V(ADVISOR));

    /* covered by the red general down the open file: retaking would face it */
    expect_exchange("4k4/R3a4/9/9/9/9/9/9/9/4K4 w - - 0 1", "a8e8", V(ADVISOR));
}

/* If see_ge(m, t) then see_ge(m, t - 1), for every capture, at every threshold. */
static int check_monotone(Position *pos, int step)
{
    MoveList list;
    gen_captures(pos, &list);
    for (int i = 0; i < list.count; i++) {
        Move m = list.moves[i];
        bool prev = see_ge(pos, m, -12000);
        if (!prev) {
            char fen[128], mv[5];
            pos_get_fen(pos, fen, sizeof fen);
            move_to_text(m, mv);
            fail_msg("%s %s: loses more than any piece is worth", fen, mv);
        }
        for (int t = -1200; t <= 1200; t += step) {
            for (int d = 0; d < 2; d++) {
                bool now = see_ge(pos, m, t + d);
                if (now && !prev) {
                    char fen[128], mv[5];
                    pos_get_fen(pos, fen, sizeof fen);
                    move_to_text(m, mv);
                    fail_msg("%s %s: see_ge true at %d, false just below", fen, mv, t + d);
                }
                prev = now;
            }
        }
        if (see_ge(pos, m, 12000)) {
            char fen[128], mv[5];
            pos_get_fen(pos, fen, sizeof fen);
            move_to_text(m, mv);
            fail_msg("%s %s: wins more than any piece is worth", fen, mv);
        }
    }
    return list.count;
}

/* Checks every capture at the suite positions and `plies` moves below them. */
static int monotone_walk(Position *pos, int plies)
{
    int captures = check_monotone(pos, plies ? 1 : 25);
    if (plies == 0)
        return captures;
    MoveList list;
    gen_legal(pos, &list);
    for (int j = 0; j < list.count; j++) {
        pos_do_move(pos, list.moves[j]);
        captures += monotone_walk(pos, plies - 1);
        pos_undo_move(pos);
    }
    return captures;
}

static EpdSuite suite_load(const char *path)
{
    EpdSuite suite;
    char err[256];
    if (!epd_load(path, &suite, err, sizeof err))
        fail_msg("%s", err);
    return suite;
}

static int monotone_suite(const char *path, int plies)
{
    EpdSuite suite = suite_load(path);
    int captures = 0;
    for (int i = 0; i < suite.count; i++) {
        set_fen(suite.entries[i].fen);
        captures += monotone_walk(&g_pos, plies);
    }
    epd_free(&suite);
    return captures;
}

static void test_threshold_monotone(void **state)
{
    (void)state;
    int captures = monotone_suite(EPD_PUBLIC_PATH, 2) + monotone_suite(EPD_EXTRA_PATH, 1);
    assert_true(captures > 10000);
}

/*
 * pos_attackers_to with a point taken out of the occupancy sees what pos_attackers sees
 * on a board with that piece lifted: the piece no longer attacks, and lines, legs and
 * eyes through its point open. The line occupancies read from a bitboard agree with
 * the ones the position keeps.
 */
static int check_lifted(const Position *pos)
{
    int checks = 0;
    Position lifted;
    for (Square x = 0; x < SQUARE_NB; x++) {
        Piece px = pos_piece_on(pos, x);
        if (!px || piece_type(px) == KING)
            continue;
        pos_copy(&lifted, pos);
        pos_remove_piece(&lifted, x);
        Bitboard occ = pos->occupied ^ bb_square(x);
        for (int i = 0; i < RANK_NB; i++)
            assert_int_equal(attacks_rank_occ(occ, i), lifted.rank_occ[i]);
        for (int i = 0; i < FILE_NB; i++)
            assert_int_equal(attacks_file_occ(occ, i), lifted.file_occ[i]);
        for (Square s = 0; s < SQUARE_NB; s++)
            for (Color c = RED; c < COLOR_NB; c++) {
                bool general = pos_piece_on(pos, s) == piece_make(color_flip(c), KING);
                if (pos_attackers_to(pos, s, occ, c, general) != pos_attackers(&lifted, s, c)) {
                    char fen[128];
                    pos_get_fen(pos, fen, sizeof fen);
                    fail_msg("%s: attackers of %d by %d differ with %d lifted", fen, s, c, x);
                }
                checks++;
            }
    }
    return checks;
}

static void test_attackers_to_occupancy(void **state)
{
    (void)state;
    EpdSuite suite = suite_load(EPD_PUBLIC_PATH);
    int checks = 0;
    for (int i = 0; i < suite.count; i++) {
        set_fen(suite.entries[i].fen);
        checks += check_lifted(&g_pos);
        MoveList list;
        gen_legal(&g_pos, &list);
        for (int j = 0; j < list.count; j += 7) {
            pos_do_move(&g_pos, list.moves[j]);
            checks += check_lifted(&g_pos);
            pos_undo_move(&g_pos);
        }
    }
    epd_free(&suite);
    assert_true(checks > 100000);
}

int main(void)
{
    position_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undefended_soldier),
        cmocka_unit_test(test_soldier_defended_by_horse),
        cmocka_unit_test(test_horse_leg_blocked_defender),
        cmocka_unit_test(test_cannon_xray_recapture),
        cmocka_unit_test(test_cannon_battery),
        cmocka_unit_test(test_general_recaptures_undefended_only),
        cmocka_unit_test(test_threshold_monotone),
        cmocka_unit_test(test_attackers_to_occupancy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
