/*
 * The position: FEN in and out (round trips, aliases, one test per error the parser
 * reports), the Zobrist key, and pos_copy.
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
#include "tests/support/epd.h"

/* Positions are large (the history array), so the tests share static ones. */
static Position g_pos, g_other;

static void set_fen(Position *pos, const char *fen)
{
    PosError err = {{0}};
    if (!pos_set_fen(pos, fen, &err))
        fail_msg("bad FEN %s: %s", fen, err.msg);
}

static void play(Position *pos, const char *moves)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
        Move m = move_parse_legal(pos, t);
        if (m == MOVE_NONE)
            fail_msg("%s is not legal here", t);
        pos_do_move(pos, m);
    }
}

static void expect_ok(const Position *pos)
{
    const char *why = NULL;
    if (!pos_is_ok(pos, &why))
        fail_msg("pos_is_ok: %s", why ? why : "?");
}

/* Parses fen, prints it back and expects `printed`. */
static void expect_round_trip(const char *fen, const char *printed)
{
    set_fen(&g_pos, fen);
    expect_ok(&g_pos);
    char out[160];
    pos_get_fen(&g_pos, out, sizeof out);
    if (strcmp(out, printed))
        fail_msg("FEN %s printed as %s, expected %s", fen, out, printed);
    if (pos_key(&g_pos) != pos_compute_key(&g_pos))
        fail_msg("key of %s differs from pos_compute_key", fen);
}

static void test_start_round_trip(void **state)
{
    (void)state;
    expect_round_trip(START_FEN, START_FEN);
    assert_int_equal(g_pos.side, RED);
    assert_int_equal(g_pos.hist_len, 1);
    assert_int_equal(g_pos.game_ply, 0);
    assert_false(pos_in_check(&g_pos));
    assert_int_equal(bb_count(g_pos.occupied), 32);
    assert_int_equal(pos_piece_on(&g_pos, square_from_text("e0")), R_KING);
    assert_int_equal(pos_piece_on(&g_pos, square_from_text("e9")), B_KING);
    assert_int_equal(pos_piece_on(&g_pos, square_from_text("h7")), B_CANNON);
    assert_int_equal(g_pos.king_sq[RED], square_from_text("e0"));
    assert_int_equal(g_pos.king_sq[BLACK], square_from_text("e9"));
}

static void round_trip_suite(const char *path)
{
    EpdSuite suite;
    char err[512];
    if (!epd_load(path, &suite, err, sizeof err))
        fail_msg("%s", err);
    for (int i = 0; i < suite.count; i++)
        expect_round_trip(suite.entries[i].fen, suite.entries[i].fen);
    epd_free(&suite);
}

static void test_epd_round_trips(void **state)
{
    (void)state;
    round_trip_suite(EPD_PUBLIC_PATH);
    round_trip_suite(EPD_EXTRA_PATH);
}

static void test_round_trip_fields(void **state)
{
    (void)state;
    /* side, clock and move number survive */
    expect_round_trip("3k5/9/9/9/9/9/9/9/4A4/4K4 b - - 12 37",
                      "3k5/9/9/9/9/9/9/9/4A4/4K4 b - - 12 37");
    assert_int_equal(g_pos.game_ply, 73);
    expect_round_trip("3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 119 100000",
                      "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 119 100000");
    /* missing fields take their defaults; 'r' is read as Red */
    expect_round_trip("3k5/9/9/9/9/9/9/9/4A4/4K4 w", "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1");
    expect_round_trip("3k5/9/9/9/9/9/9/9/4A4/4K4 r - - 3", "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 3 1");
    expect_round_trip("  3k5/9/9/9/9/9/9/9/4A4/4K4   b  -  -  0  2 \n",
                      "3k5/9/9/9/9/9/9/9/4A4/4K4 b - - 0 2");
}

static void test_round_trip_after_moves(void **state)
{
    (void)state;
    set_fen(&g_pos, START_FEN);
    play(&g_pos, "h2e2 h9g7");
    char out[160];
    pos_get_fen(&g_pos, out, sizeof out);
    assert_string_equal(out,
                        "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2");
    /* the key depends on the board and the side only, however the position came about */
    set_fen(&g_other, out);
    assert_true(pos_key(&g_other) == pos_key(&g_pos));
    play(&g_pos, "e2e6");
    pos_get_fen(&g_pos, out, sizeof out);
    assert_string_equal(out,
                        "rnbakab1r/9/1c4nc1/p1p1C1p1p/9/9/P1P1P1P1P/1C7/9/RNBAKABNR b - - 0 2");
}

/* Plays moves from fen into g_pos, expects its FEN to be want, and reads that back into
 * g_other with the same key. */
static void play_and_read_back(const char *fen, const char *moves, const char *want)
{
    set_fen(&g_pos, fen);
    play(&g_pos, moves);
    char out[160];
    pos_get_fen(&g_pos, out, sizeof out);
    assert_string_equal(out, want);
    set_fen(&g_other, out);
    assert_true(pos_key(&g_other) == pos_key(&g_pos));
}

/* A quiet move from a clock of 119 reaches 120: the position is a 60-move draw, and its
 * FEN (as `d` prints it) reads back with the clock and the verdict intact. */
static void test_round_trip_past_60_move_rule(void **state)
{
    (void)state;
    play_and_read_back("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 119 80", "e1e2",
                       "3k5/9/9/9/9/9/9/4R4/9/4K4 b - - 120 80");
    assert_int_equal(pos_state(&g_other)->rule60, 120);
    Verdict v = rules_judge_game(&g_other);
    assert_int_equal(v.result, RESULT_DRAW);
    assert_int_equal(v.reason, REASON_RULE60);
    /* the counter saturates at 255, the largest clock a FEN may give */
    expect_round_trip("3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 255 9",
                      "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 255 9");
}

/* A game played on from the largest move number a FEN may give: the written number
 * stays at that largest one, so the FEN still reads back. */
static void test_round_trip_last_move_number(void **state)
{
    (void)state;
    play_and_read_back("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 100000", "e1e2 d9d8 e2e3",
                       "9/3k5/9/9/9/9/4R4/9/9/4K4 b - - 3 100000");
}

static void test_aliases(void **state)
{
    (void)state;
    expect_round_trip("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1",
                      START_FEN);
    Key k = pos_key(&g_pos);
    expect_round_trip("rhbakaenr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNEAKABHR w - - 0 1",
                      START_FEN);
    assert_true(pos_key(&g_pos) == k);
    assert_int_equal(pos_piece_on(&g_pos, square_from_text("b9")), B_HORSE);
    assert_int_equal(pos_piece_on(&g_pos, square_from_text("c0")), R_ELEPHANT);
}

/* ---------------------------------------------------------------------------------
 * FEN errors: each must fail, name the problem, and leave the output untouched.
 */

static void expect_fen_error(const char *fen, const char *want)
{
    static Position pos;
    memset(&pos, 0xa5, sizeof pos);
    PosError err;
    memset(&err, 0, sizeof err);
    if (pos_set_fen(&pos, fen, &err))
        fail_msg("FEN \"%s\" was accepted", fen ? fen : "(null)");
    if (!strstr(err.msg, want))
        fail_msg("FEN \"%s\": the message \"%s\" does not say \"%s\"", fen ? fen : "(null)",
                 err.msg, want);
    const unsigned char *p = (const unsigned char *)&pos;
    for (size_t i = 0; i < sizeof pos; i++)
        if (p[i] != 0xa5)
            fail_msg("FEN \"%s\": the output position changed at byte %zu", fen, i);
    /* and without a place for the message */
    assert_false(pos_set_fen(&pos, fen, NULL));
    assert_int_equal(p[0], 0xa5);
}

/* Start-position ranks, for building the bad FENs below. */
#define R9 "rnbakabnr/"
#define R7 "1c5c1/"
#define R6 "p1p1p1p1p/"
#define R3 "P1P1P1P1P/"
#define R2 "1C5C1/"
#define R0 "RNBAKABNR"
#define START_BOARD R9 "9/" R7 R6 "9/9/" R3 R2 "9/" R0

/* name, FEN, what the message must contain */
#define FEN_ERRORS(X)                                                                              \
    X(null, NULL, "empty FEN")                                                                     \
    X(empty, "", "needs at least a board and a side to move")                                      \
    X(blank, "   \t ", "needs at least a board and a side to move")                                \
    X(garbage, "not a fen at all", "unknown piece letter 'o'")                                     \
    X(garbage_slashes, "///////// w", "rank 9 has 0 files")                                        \
    X(nine_ranks, "3k5/9/9/9/9/9/9/9/4K4 w - - 0 1", "9 ranks, not 10")                            \
    X(eleven_ranks, START_BOARD "/9 w - - 0 1", "more than 10 ranks")                              \
    X(rank_of_8_files, R9 "8/" R7 R6 "9/9/" R3 R2 "9/" R0 " w - - 0 1", "rank 8 has 8 files")      \
    X(rank_of_10_files, R9 "9/" R7 R6 "9/91/" R3 R2 "9/" R0 " w - - 0 1",                          \
      "rank 4 has more than 9 files")                                                              \
    X(rank_of_10_pieces, "rnbakabnrr/9/" R7 R6 "9/9/" R3 R2 "9/" R0 " w - - 0 1",                  \
      "rank 9 has more than 9 files")                                                              \
    X(unknown_letter, R9 "9/" R7 R6 "9/9/" R3 R2 "9/RNBAKQBNR w - - 0 1",                          \
      "unknown piece letter 'Q'")                                                                  \
    X(digit_zero, R9 "9/" R7 R6 "9/9/" R3 R2 "09/" R0 " w - - 0 1", "unknown piece letter '0'")    \
    X(three_chariots, R9 "9/" R7 R6 "9/9/" R3 R2 "R8/" R0 " w - - 0 1",                            \
      "too many red chariots (at most 2)")                                                         \
    X(six_soldiers, R9 "9/" R7 R6 "4P4/9/" R3 R2 "9/" R0 " w - - 0 1",                             \
      "too many red soldiers (at most 5)")                                                         \
    X(six_black_soldiers, R9 "9/" R7 R6 "9/4p4/" R3 R2 "9/" R0 " w - - 0 1",                       \
      "too many black soldiers (at most 5)")                                                       \
    X(two_generals, R9 "9/" R7 R6 "9/9/" R3 R2 "4K4/" R0 " w - - 0 1",                             \
      "too many red generals (at most 1)")                                                         \
    X(general_outside_palace, R9 "9/" R7 R6 "9/9/" R3 R2 "K8/RNBA1ABNR w - - 0 1",                 \
      "red general on a1 is outside its palace")                                                   \
    X(black_general_outside_palace, "rnba1abnr/9/" R7 "p1p1k1p1p/9/9/" R3 R2 "9/" R0 " w - - 0 1", \
      "black general on e6 is outside its palace")                                                 \
    X(advisor_off_points, R9 "9/" R7 R6 "9/9/" R3 "1C2A2C1/9/RNB1KABNR w - - 0 1",                 \
      "red advisor on e2 is off its five palace points")                                           \
    X(advisor_outside_palace, "rnbak1bnr/9/" R7 "p1p1pap1p/9/9/" R3 R2 "9/" R0 " w - - 0 1",       \
      "black advisor on f6 is off its five palace points")                                         \
    X(elephant_off_points, R9 "9/" R7 R6 "9/9/" R3 R2 "1B7/RN1AKABNR w - - 0 1",                   \
      "red elephant on b1 is off its seven points")                                                \
    X(elephant_across_river, R9 "9/" R7 R6 "2B6/9/" R3 R2 "9/RN1AKABNR w - - 0 1",                 \
      "red elephant on c5 is off its seven points")                                                \
    X(black_elephant_across_river, "rn1akabnr/9/" R7 R6 "9/6b2/" R3 R2 "9/" R0 " w - - 0 1",       \
      "black elephant on g4 is off its seven points")                                              \
    X(soldier_behind_start, R9 "9/" R7 R6 "9/9/2P1P1P1P/PC5C1/9/" R0 " w - - 0 1",                 \
      "red soldier on a2 is behind its starting rank")                                             \
    X(black_soldier_behind_start, R9 "9/pc5c1/2p1p1p1p/9/9/" R3 R2 "9/" R0 " w - - 0 1",           \
      "black soldier on a7 is behind its starting rank")                                           \
    X(soldier_off_start_files, R9 "9/" R7 R6 "9/1P7/P1P1P1P2/" R2 "9/" R0 " w - - 0 1",            \
      "red soldier on b4 is off its starting files before the river")                              \
    X(black_soldier_off_start_files, R9 "9/" R7 "p1p1p1p2/7p1/9/" R3 R2 "9/" R0 " w - - 0 1",      \
      "black soldier on h5 is off its starting files before the river")                            \
    X(no_red_general, R9 "9/" R7 R6 "9/9/" R3 R2 "9/RNBA1ABNR w - - 0 1", "no red general")        \
    X(no_black_general, "rnba1abnr/9/" R7 R6 "9/9/" R3 R2 "9/" R0 " w - - 0 1",                    \
      "no black general")                                                                          \
    X(side_x, START_BOARD " x - - 0 1", "side to move is 'x'")                                     \
    X(side_word, START_BOARD " white - - 0 1", "side to move is 'white'")                          \
    X(side_missing, START_BOARD, "needs at least a board and a side to move")                      \
    X(black_in_check_red_to_move, "3k5/9/9/9/9/9/9/9/3R5/4K4 w - - 0 1",                           \
      "side not to move (black) is in check")                                                      \
    X(red_in_check_black_to_move, "3k5/9/9/9/9/9/9/9/4p4/4K4 b - - 0 1",                           \
      "side not to move (red) is in check")                                                        \
    X(red_in_check_by_cannon, "3k5/9/9/9/4c4/9/9/4N4/9/4K4 b - - 0 1",                             \
      "side not to move (red) is in check")                                                        \
    X(facing_generals, "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1",                                        \
      "side not to move (black) is in check")                                                      \
    X(facing_generals_black_to_move, "4k4/9/9/9/9/9/9/9/9/4K4 b - - 0 1",                          \
      "side not to move (red) is in check")                                                        \
    X(clock_too_big, START_BOARD " w - - 256 1", "half-move clock '256' is not a number")          \
    X(clock_negative, START_BOARD " w - - -1 1", "half-move clock '-1' is not a number")           \
    X(clock_not_a_number, START_BOARD " w - - abc 1", "half-move clock 'abc' is not a number")     \
    X(clock_trailing_junk, START_BOARD " w - - 5x 1", "half-move clock '5x' is not a number")      \
    X(move_number_zero, START_BOARD " w - - 0 0", "move number '0' is not a positive number")      \
    X(move_number_not_a_number, START_BOARD " w - - 0 x",                                          \
      "move number 'x' is not a positive number")                                                  \
    X(move_number_plus, START_BOARD " w - - 0 +3", "move number '+3' is not a positive number")    \
    X(move_number_huge, START_BOARD " w - - 0 99999999999999999999",                               \
      "move number '99999999999999999999' is not a positive number")                               \
    X(castling_field, START_BOARD " w KQ - 0 1", "field 3 is 'KQ', expected '-'")                  \
    X(en_passant_field, START_BOARD " w - e3 0 1", "field 4 is 'e3', expected '-'")                \
    X(seven_fields, START_BOARD " w - - 0 1 extra", "more than six fields")

#define DEFINE_FEN_ERROR_TEST(name, fen, want)      \
    static void test_fen_error_##name(void **state) \
    {                                               \
        (void)state;                                \
        expect_fen_error(fen, want);                \
    }
FEN_ERRORS(DEFINE_FEN_ERROR_TEST)

static void test_fen_error_too_long(void **state)
{
    (void)state;
    char fen[400];
    snprintf(fen, sizeof fen, "%s%300s", START_FEN, "");
    expect_fen_error(fen, "FEN is too long");
}

/* ---------------------------------------------------------------------------------
 * Keys and copies.
 */

static void test_key_after_fen(void **state)
{
    (void)state;
    static const char *const paths[] = {EPD_PUBLIC_PATH, EPD_EXTRA_PATH};
    for (int p = 0; p < 2; p++) {
        EpdSuite suite;
        char err[512];
        if (!epd_load(paths[p], &suite, err, sizeof err))
            fail_msg("%s", err);
        for (int i = 0; i < suite.count; i++) {
            set_fen(&g_pos, suite.entries[i].fen);
            if (pos_key(&g_pos) != pos_compute_key(&g_pos) || pos_key(&g_pos) == 0)
                fail_msg("key of %s is wrong", suite.entries[i].fen);
        }
        epd_free(&suite);
    }
}

static void test_side_changes_key(void **state)
{
    (void)state;
    set_fen(&g_pos, "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1");
    set_fen(&g_other, "3k5/9/9/9/9/9/9/9/4A4/4K4 b - - 0 1");
    assert_true(pos_key(&g_pos) != pos_key(&g_other));
    assert_true((pos_key(&g_pos) ^ pos_key(&g_other)) == zobrist_side);
    /* the clock and the move number do not enter the key */
    set_fen(&g_other, "3k5/9/9/9/9/9/9/9/4A4/4K4 w - - 17 40");
    assert_true(pos_key(&g_pos) == pos_key(&g_other));
    /* a piece of the other colour on the same point does */
    set_fen(&g_pos, "3k5/9/9/9/R8/9/9/9/9/4K4 w - - 0 1");
    set_fen(&g_other, "3k5/9/9/9/r8/9/9/9/9/4K4 w - - 0 1");
    assert_true(pos_key(&g_pos) != pos_key(&g_other));
}

static void test_pos_copy(void **state)
{
    (void)state;
    set_fen(&g_pos, START_FEN);
    play(&g_pos, "h2e2 h9g7 e2e6 a9a8");
    pos_copy(&g_other, &g_pos);
    assert_int_equal(g_other.hist_len, 5);
    assert_memory_equal(&g_other, &g_pos, offsetof(Position, hist));
    assert_memory_equal(g_other.hist, g_pos.hist, 5 * sizeof(StateInfo));
    expect_ok(&g_other);

    /* the copy lives on its own */
    Key key = pos_key(&g_pos);
    play(&g_other, "a0a1");
    assert_true(pos_key(&g_pos) == key);
    assert_int_equal(g_pos.hist_len, 5);
    expect_ok(&g_pos);

    /* and unwinds through the copied history back to the start */
    while (g_other.hist_len > 1)
        pos_undo_move(&g_other);
    char out[160];
    pos_get_fen(&g_other, out, sizeof out);
    assert_string_equal(out, START_FEN);
    expect_ok(&g_other);
}

static void test_get_fen_small_buffer(void **state)
{
    (void)state;
    set_fen(&g_pos, START_FEN);
    char small[12];
    memset(small, 'x', sizeof small);
    pos_get_fen(&g_pos, small, sizeof small);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, START_FEN, sizeof small - 1);
}

#define FEN_ERROR_ENTRY(name, fen, want) cmocka_unit_test(test_fen_error_##name),

int main(void)
{
    position_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_round_trip),
        cmocka_unit_test(test_epd_round_trips),
        cmocka_unit_test(test_round_trip_fields),
        cmocka_unit_test(test_round_trip_after_moves),
        cmocka_unit_test(test_round_trip_past_60_move_rule),
        cmocka_unit_test(test_round_trip_last_move_number),
        cmocka_unit_test(test_aliases),
        /* clang-format off */
        FEN_ERRORS(FEN_ERROR_ENTRY)
        /* clang-format on */
        cmocka_unit_test(test_fen_error_too_long),
        cmocka_unit_test(test_key_after_fen),
        cmocka_unit_test(test_side_changes_key),
        cmocka_unit_test(test_pos_copy),
        cmocka_unit_test(test_get_fen_small_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
