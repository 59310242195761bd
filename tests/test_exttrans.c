/*
 * The external protocols' text (extengine/exttrans.c): move strings both ways for uci
 * (ranks 0-9), uci1 (ranks 1-10), ucci and xboard, with round trips over every square
 * pair; FENs in XBoard's letters that chuhe reads back as the same position; UCI/UCCI
 * info lines and XBoard thinking output; XBoard feature lines, the options engines
 * announce (UCI and UCCI option lines, XBoard option features with their ranges) and
 * variant lists; and malformed text refused with the result untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "notation.h"
#include "position.h"
#include "record.h"
#include "score.h"
#include "extengine/exttrans.h"

static Position g_pos;

static void test_protocol_names(void **state)
{
    (void)state;
    const char *names[PROTO_EXT_NB] = {"uci", "uci1", "ucci", "xboard"};
    for (int p = 0; p < PROTO_EXT_NB; p++) {
        ProtoExtProtocol got = PROTO_EXT_NB;
        assert_true(proto_ext_protocol_parse(names[p], &got));
        assert_int_equal(got, p);
        assert_string_equal(proto_ext_protocol_name((ProtoExtProtocol)p), names[p]);
    }
    ProtoExtProtocol got = PROTO_EXT_NB;
    assert_true(proto_ext_protocol_parse("uci-ranks-1-10", &got));
    assert_int_equal(got, PROTO_EXT_UCI1);
    const char *bad[] = {"", "UCI", "cecp", "xboard2", "uci "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        got = PROTO_EXT_NB;
        assert_false(proto_ext_protocol_parse(bad[i], &got));
        assert_int_equal(got, PROTO_EXT_NB);
    }
    assert_string_equal(proto_ext_protocol_name(PROTO_EXT_NB), "unknown");
}

static void expect_out(ProtoExtProtocol p, const char *m, const char *want)
{
    char buf[8];
    if (!exttrans_move_out(p, m, buf, sizeof buf))
        fail_msg("%s: '%s' refused", proto_ext_protocol_name(p), m);
    if (strcmp(buf, want))
        fail_msg("%s: '%s' gave '%s', expected '%s'", proto_ext_protocol_name(p), m, buf, want);
}

static void expect_in(ProtoExtProtocol p, const char *text, const char *want)
{
    char out[5] = "";
    if (!exttrans_move_in(p, text, out))
        fail_msg("%s: '%s' refused", proto_ext_protocol_name(p), text);
    if (strcmp(out, want))
        fail_msg("%s: '%s' gave '%s', expected '%s'", proto_ext_protocol_name(p), text, out, want);
}

static void test_moves_out(void **state)
{
    (void)state;
    for (int p = 0; p < PROTO_EXT_NB; p++) {
        bool ten = p == PROTO_EXT_UCI1;
        expect_out((ProtoExtProtocol)p, "h2e2", ten ? "h3e3" : "h2e2");
        expect_out((ProtoExtProtocol)p, "a9a8", ten ? "a10a9" : "a9a8");
        expect_out((ProtoExtProtocol)p, "i0i9", ten ? "i1i10" : "i0i9");
        expect_out((ProtoExtProtocol)p, "b0c2", ten ? "b1c3" : "b0c2");
    }
    const char *bad[] = {"", "h2e", "h2e22", "j2e2", "h2e:", "H2E2", "0000", "h-e2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char buf[8] = "x";
        assert_false(exttrans_move_out(PROTO_EXT_UCI1, bad[i], buf, sizeof buf));
        assert_string_equal(buf, "");
    }
    char small[6];
    assert_false(exttrans_move_out(PROTO_EXT_UCI1, "a9a8", small, sizeof small));
}

static void test_moves_in(void **state)
{
    (void)state;
    expect_in(PROTO_EXT_UCI, "h2e2", "h2e2");
    expect_in(PROTO_EXT_UCCI, "h9g7", "h9g7");
    expect_in(PROTO_EXT_UCI1, "h3e3", "h2e2");
    expect_in(PROTO_EXT_UCI1, "a10a9", "a9a8");
    expect_in(PROTO_EXT_UCI1, "i1i10", "i0i9");
    /* Sjaak II under "variant xiangqi": "move b0c2" from the start, "move b9c7" for Black */
    expect_in(PROTO_EXT_XBOARD, "b0c2", "b0c2");
    expect_in(PROTO_EXT_XBOARD, "b9c7", "b9c7");
    const struct {
        ProtoExtProtocol p;
        const char *text;
    } bad[] = {
        {PROTO_EXT_UCI, "a10a9"},  {PROTO_EXT_UCI, "h2e2 "},   {PROTO_EXT_UCI, "h2e2x"},
        {PROTO_EXT_UCI, "h2"},     {PROTO_EXT_UCI, ""},        {PROTO_EXT_UCI, "j0a0"},
        {PROTO_EXT_UCI1, "a0a1"},  {PROTO_EXT_UCI1, "a11a1"},  {PROTO_EXT_UCI1, "a1a0"},
        {PROTO_EXT_UCI1, "a10a"},  {PROTO_EXT_XBOARD, "B0C2"}, {PROTO_EXT_XBOARD, "b0-c2"},
        {PROTO_EXT_XBOARD, "Hc2"}, {PROTO_EXT_XBOARD, "@@@@"}, {PROTO_EXT_UCCI, "0000"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char out[5] = "";
        if (exttrans_move_in(bad[i].p, bad[i].text, out))
            fail_msg("%s: '%s' accepted as '%s'", proto_ext_protocol_name(bad[i].p), bad[i].text,
                     out);
    }
}

/* Every from-to pair of squares goes out and comes back unchanged. */
static void test_moves_round_trip(void **state)
{
    (void)state;
    int checked = 0;
    for (int p = 0; p < PROTO_EXT_NB; p++)
        for (int from = 0; from < 90; from++)
            for (int to = 0; to < 90; to++) {
                char m[5] = {(char)('a' + from % 9), (char)('0' + from / 9), (char)('a' + to % 9),
                             (char)('0' + to / 9), '\0'};
                char text[8], back[5];
                assert_true(exttrans_move_out((ProtoExtProtocol)p, m, text, sizeof text));
                assert_true(exttrans_move_in((ProtoExtProtocol)p, text, back));
                if (strcmp(m, back))
                    fail_msg("%s: %s -> %s -> %s", proto_ext_protocol_name((ProtoExtProtocol)p), m,
                             text, back);
                checked++;
            }
    assert_int_equal(checked, PROTO_EXT_NB * 90 * 90);
}

static void expect_fen(ProtoExtProtocol p, const char *fen, const char *want)
{
    char buf[RECORD_FEN_MAX];
    assert_true(exttrans_fen_out(p, fen, buf, sizeof buf));
    assert_string_equal(buf, want);
    /* chuhe reads the translated FEN as the same position */
    PosError err = {{0}};
    if (!pos_set_fen(&g_pos, buf, &err))
        fail_msg("'%s' does not load: %s", buf, err.msg);
    char again[RECORD_FEN_MAX];
    pos_get_fen(&g_pos, again, sizeof again);
    assert_string_equal(again, fen);
}

static void test_fen(void **state)
{
    (void)state;
    expect_fen(PROTO_EXT_XBOARD, START_FEN,
               "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1");
    /* the side to move 'b' is not a piece letter */
    expect_fen(PROTO_EXT_XBOARD, "2bak4/4a4/4b4/9/2n6/6B2/9/9/4A4/3AK1BN1 b - - 0 1",
               "2eak4/4a4/4e4/9/2h6/6E2/9/9/4A4/3AK1EH1 b - - 0 1");
    for (int p = 0; p < PROTO_EXT_NB; p++)
        if (p != PROTO_EXT_XBOARD)
            expect_fen((ProtoExtProtocol)p, START_FEN, START_FEN);
    char small[16];
    assert_false(exttrans_fen_out(PROTO_EXT_XBOARD, START_FEN, small, sizeof small));
}

static void test_info_lines(void **state)
{
    (void)state;
    SearchResult r = {.depth = 1, .score = 7, .nodes = 3};
    assert_true(exttrans_parse_info(
        "info depth 12 seldepth 20 multipv 1 score cp 35 nodes 123456 nps 1000 pv h2e2 h9g7", &r));
    assert_int_equal(r.depth, 12);
    assert_int_equal(r.score, 35);
    assert_int_equal(r.nodes, 123456);
    assert_true(exttrans_parse_info("info depth 5 score mate 3 nodes 10", &r));
    assert_int_equal(r.score, value_mate_in(5));
    assert_true(exttrans_parse_info("info score mate -2 lowerbound", &r));
    assert_int_equal(r.score, value_mated_in(4));
    assert_int_equal(r.depth, 5); /* not in the line: kept */
    assert_true(exttrans_parse_info("info score cp 99999", &r));
    assert_int_equal(r.score, VALUE_MATE_IN_MAX_PLY - 1);
    assert_true(exttrans_parse_info("info score cp -99999", &r));
    assert_int_equal(r.score, -VALUE_MATE_IN_MAX_PLY + 1);
    /* UCCI: "score X" in centipawns */
    assert_true(exttrans_parse_info("info depth 7 score -120 pv h2e2", &r));
    assert_int_equal(r.score, -120);
    assert_int_equal(r.depth, 7);
    /* free text and move lists are not read as fields */
    assert_true(exttrans_parse_info("info string depth 99 nodes 1", &r));
    assert_true(exttrans_parse_info("info pv h2e2 depth 99", &r));
    assert_int_equal(r.depth, 7);
    assert_int_equal(r.nodes, 10);
    const char *bad[] = {"info depth x",      "info depth",          "info score cp",
                         "info score mate x", "info score pawns",    "info nodes -5",
                         "info nodes 1e6",    "information depth 3", "bestmove h2e2",
                         "info depth 3.5",    "info depth 99999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SearchResult before = r;
        if (exttrans_parse_info(bad[i], &r))
            fail_msg("'%s' accepted", bad[i]);
        assert_memory_equal(&before, &r, sizeof r);
    }
}

static void test_thinking_lines(void **state)
{
    (void)state;
    SearchResult r = {0};
    /* as Sjaak II prints it */
    assert_true(exttrans_parse_thinking("  8    11     67    239253  1. Hc2 Hc7 2. Pc4", &r));
    assert_int_equal(r.depth, 8);
    assert_int_equal(r.score, 11);
    assert_int_equal(r.nodes, 239253);
    assert_true(exttrans_parse_thinking("6 -34 21 50424", &r));
    assert_int_equal(r.score, -34);
    /* protocol mate scores: 100000 + moves to mate */
    assert_true(exttrans_parse_thinking("9 100003 50 1000 Rb9", &r));
    assert_int_equal(r.score, value_mate_in(5));
    assert_true(exttrans_parse_thinking("4 -100002 5 100", &r));
    assert_int_equal(r.score, value_mated_in(4));
    assert_true(exttrans_parse_thinking("2 15999 0 3 1. Rd7", &r));
    assert_int_equal(r.score, 15999);
    const char *bad[] = {"# Begin iterative deepening loop",
                         "move h0g2",
                         "1-0 {White mates}",
                         "Hint: h2e2",
                         "8 11 67",
                         "pong 3",
                         "8 x 67 100",
                         "-1 0 0 10",
                         "8 11 67 -5",
                         "resign",
                         ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SearchResult before = r;
        if (exttrans_parse_thinking(bad[i], &r))
            fail_msg("'%s' accepted", bad[i]);
        assert_memory_equal(&before, &r, sizeof r);
    }
}

static void test_features(void **state)
{
    (void)state;
    const char *line = " setboard=1 time=1 sigint=0 myname=\"Sjaak II 1.4.1\" "
                       "variants=\"fide_chess,xiangqi,shogi\" option=\"Level -combo Clueless /// "
                       "*Normal\" done=1  ";
    const char *want[][2] = {{"setboard", "1"},
                             {"time", "1"},
                             {"sigint", "0"},
                             {"myname", "Sjaak II 1.4.1"},
                             {"variants", "fide_chess,xiangqi,shogi"},
                             {"option", "Level -combo Clueless /// *Normal"},
                             {"done", "1"}};
    const char *cur = line;
    char name[32], value[256];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_true(exttrans_next_feature(&cur, name, sizeof name, value, sizeof value));
        assert_string_equal(name, want[i][0]);
        assert_string_equal(value, want[i][1]);
    }
    assert_false(exttrans_next_feature(&cur, name, sizeof name, value, sizeof value));
    assert_string_equal(cur, "");
    const char *bad[] = {"myname=\"unterminated",
                         "=1",
                         "ping",
                         "a b=1",
                         "a=\"x\"y",
                         "averyveryverylongfeaturenamebeyond32=1",
                         "v=\"a value much longer than "
                         "the sixteen bytes\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cur = bad[i];
        char small[16];
        if (exttrans_next_feature(&cur, name, sizeof name, small, sizeof small))
            fail_msg("'%s' accepted", bad[i]);
        assert_true(*cur != '\0');
    }
}

static void test_option_names(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"Resign threshold -spin 500 100 16000", "Resign threshold"},
        {"Moves before resigning (0 to disable) -spin 0 0 1000",
         "Moves before resigning (0 to disable)"},
        {"Variant fairy selects -combo chess (8x8+0) /// xiangqi (9x10+0)",
         "Variant fairy selects"},
        {"Claim repetitions -check 1", "Claim repetitions"},
        {"Variant configuration file -file ", "Variant configuration file"},
        {"a -b -check 1", "a -b"},
        {"Clear Hash -button", "Clear Hash"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ExtOption o;
        if (!exttrans_xboard_option(cases[i][0], &o))
            fail_msg("'%s' refused", cases[i][0]);
        assert_string_equal(o.name, cases[i][1]);
    }
    const char *bad[] = {"NoType", "-spin 1", "Name -unknown 1", "Name-spin 1", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ExtOption o;
        if (exttrans_xboard_option(bad[i], &o))
            fail_msg("'%s' accepted as '%s'", bad[i], o.name);
    }
    char longname[EXT_OPTION_NAME_MAX + 16];
    memset(longname, 'x', EXT_OPTION_NAME_MAX);
    snprintf(longname + EXT_OPTION_NAME_MAX, 16, " -spin 1 1 2");
    ExtOption o;
    assert_false(exttrans_xboard_option(longname, &o));
    longname[EXT_OPTION_NAME_MAX - 1] = ' ';
    longname[EXT_OPTION_NAME_MAX] = '\0';
    strcat(longname, "-spin 1 1 2");
    assert_true(exttrans_xboard_option(longname + 1, &o));
}

/* "NAME expected TYPE [MIN MAX]" for an option: the type, and the range when ranged. */
static void expect_option(const ExtOption *o, const char *name, const char *type, bool ranged,
                          double min, double max)
{
    assert_string_equal(o->name, name);
    assert_string_equal(o->type, type);
    assert_int_equal(o->ranged, ranged);
    if (ranged) {
        assert_true(o->min == min);
        assert_true(o->max == max);
    }
}

/* XBoard's types and the ranges of spin and slider ("NAME -spin DEF MIN MAX"). */
static void test_xboard_option_ranges(void **state)
{
    (void)state;
    ExtOption o;
    assert_true(exttrans_xboard_option("Resign threshold -spin 500 100 16000", &o));
    expect_option(&o, "Resign threshold", "spin", true, 100, 16000);
    assert_true(exttrans_xboard_option("Contempt -slider 0 -100 100", &o));
    expect_option(&o, "Contempt", "slider", true, -100, 100);
    assert_true(exttrans_xboard_option("Claim repetitions -check 1", &o));
    expect_option(&o, "Claim repetitions", "check", false, 0, 0);
    /* a spin without its three numbers has no range */
    assert_true(exttrans_xboard_option("Odd -spin 5 1", &o));
    expect_option(&o, "Odd", "spin", false, 0, 0);
    assert_true(exttrans_xboard_option("Odd -spin 5 1 x9", &o));
    expect_option(&o, "Odd", "spin", false, 0, 0);
}

/* UCI "option name NAME type T ..." (names with blanks; min and max anywhere after the
 * type) and UCCI "option NAME type T ..."; what is not an option line of the protocol
 * is refused. */
static void test_uci_options(void **state)
{
    (void)state;
    ExtOption o;
    assert_true(exttrans_parse_option(
        PROTO_EXT_UCI, "option name Skill Level type spin default 20 min 0 max 20", &o));
    expect_option(&o, "Skill Level", "spin", true, 0, 20);
    assert_true(exttrans_parse_option(
        PROTO_EXT_UCI1, "option name Slow Mover type spin default 100 min 10 max 1000", &o));
    expect_option(&o, "Slow Mover", "spin", true, 10, 1000);
    assert_true(
        exttrans_parse_option(PROTO_EXT_UCI, "option name Ponder type check default false", &o));
    expect_option(&o, "Ponder", "check", false, 0, 0);
    assert_true(exttrans_parse_option(
        PROTO_EXT_UCI, "option name UCI_Variant type combo default chess var chess var xiangqi",
        &o));
    expect_option(&o, "UCI_Variant", "combo", false, 0, 0);
    assert_true(exttrans_parse_option(PROTO_EXT_UCI, "option name Clear Hash type button", &o));
    expect_option(&o, "Clear Hash", "button", false, 0, 0);
    /* a spin needs both bounds, each a number */
    assert_true(
        exttrans_parse_option(PROTO_EXT_UCI, "option name Hash type spin default 16 max 99", &o));
    expect_option(&o, "Hash", "spin", false, 0, 0);
    assert_true(exttrans_parse_option(PROTO_EXT_UCI,
                                      "option name Hash type spin default 16 min 1x max 99", &o));
    expect_option(&o, "Hash", "spin", false, 0, 0);
    assert_true(exttrans_parse_option(PROTO_EXT_UCCI,
                                      "option hashsize type spin min 0 max 1024 default 16", &o));
    expect_option(&o, "hashsize", "spin", true, 0, 1024);
    assert_true(
        exttrans_parse_option(PROTO_EXT_UCCI, "option usemillisec type check default false", &o));
    expect_option(&o, "usemillisec", "check", false, 0, 0);

    const char *bad_uci[] = {
        "option name type spin", "option Hash type spin min 1 max 2", "option name Hash",
        "info depth 1",          "options name Hash type spin",       ""};
    for (size_t i = 0; i < sizeof bad_uci / sizeof bad_uci[0]; i++)
        if (exttrans_parse_option(PROTO_EXT_UCI, bad_uci[i], &o))
            fail_msg("UCI '%s' accepted as '%s'", bad_uci[i], o.name);
    if (exttrans_parse_option(PROTO_EXT_UCCI, "option type spin", &o))
        fail_msg("UCCI 'option type spin' accepted as '%s'", o.name);
}

static void test_variants(void **state)
{
    (void)state;
    assert_true(exttrans_has_variant("normal,xiangqi,shogi", "xiangqi"));
    assert_true(exttrans_has_variant("xiangqi", "xiangqi"));
    assert_true(exttrans_has_variant("shogi,xiangqi", "xiangqi"));
    assert_false(exttrans_has_variant("mini_xiangqi,xiangqix", "xiangqi"));
    assert_false(exttrans_has_variant("", "xiangqi"));
    assert_false(exttrans_has_variant("normal,,shogi", "xiangqi"));
}

int main(void)
{
    position_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protocol_names),
        cmocka_unit_test(test_moves_out),
        cmocka_unit_test(test_moves_in),
        cmocka_unit_test(test_moves_round_trip),
        cmocka_unit_test(test_fen),
        cmocka_unit_test(test_info_lines),
        cmocka_unit_test(test_thinking_lines),
        cmocka_unit_test(test_features),
        cmocka_unit_test(test_option_names),
        cmocka_unit_test(test_xboard_option_ranges),
        cmocka_unit_test(test_uci_options),
        cmocka_unit_test(test_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
