/*
 * The coordinator's own logic, without sockets or files: options and the stored run
 * settings (JSON round trip, what a restart may and may not change), the schedule of
 * game pairs (hand-out order, re-queueing, restore from stored games, adoption, drops,
 * reproducible openings) and the statistics by colour and by player.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/coord_cli.h"
#include "coordinator/coord_config.h"
#include "coordinator/coord_json.h"
#include "coordinator/coord_sched.h"
#include "coordinator/coord_runstats.h"

static char g_json[8192];

static void parse_ok(CoordConfig *c, CoordGiven *g, int argc, const char **argv)
{
    CoordError err;
    coord_config_defaults(c);
    if (!coord_config_parse(c, g, argc, (char **)argv, &err))
        fail_msg("parse: %s", err.msg);
}

/* ---- configuration ---------------------------------------------------------------- */

static void test_config_defaults_and_parse(void **state)
{
    (void)state;
    CoordConfig c;
    CoordGiven g;
    const char *argv[] = {"--games", "12",     "--depth=5", "--weights",
                          "",        "--json", "--bind",    "tcp://127.0.0.1:*"};
    parse_ok(&c, &g, 8, argv);
    assert_int_equal(c.games, 12);
    assert_int_equal(c.depth, 5);
    assert_int_equal(c.nodes, 0);
    assert_true(c.json);
    assert_string_equal(c.bind, "tcp://127.0.0.1:*");
    assert_int_equal(c.max_plies, COORD_DEFAULT_MAX_PLIES);
    CoordError err;
    assert_true(coord_config_finish_new(&c, &g, &err));
    assert_int_equal(c.nodes, 0); /* a depth limit was given: no default node limit */

    const char *none[] = {"--games", "4"};
    parse_ok(&c, &g, 2, none);
    assert_true(coord_config_finish_new(&c, &g, &err));
    assert_int_equal(c.nodes, COORD_DEFAULT_NODES);
}

static void test_config_rejects(void **state)
{
    (void)state;
    CoordConfig c;
    CoordGiven g;
    CoordError err;
    const char *bad[][2] = {{"--games", "0"},     {"--nodes", "-3"}, {"--depth", "x"},
                            {"--movetime", "5s"}, {"--nosuch", "1"}, {"--max-plies", "2000"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        coord_config_defaults(&c);
        assert_false(coord_config_parse(&c, &g, 2, (char **)bad[i], &err));
        assert_non_null(strstr(err.msg, bad[i][0]));
    }
    const char *missing[] = {"--games"};
    coord_config_defaults(&c);
    assert_false(coord_config_parse(&c, &g, 1, (char **)missing, &err));
    const char *resign[] = {"--resign-moves", "3"};
    parse_ok(&c, &g, 2, resign);
    assert_false(coord_config_finish_new(&c, &g, &err));
    assert_non_null(strstr(err.msg, "--resign-score"));
    /* an XBoard engine has no exact node limit; a depth is fine */
    const char *xb_nodes[] = {
        "--cmd-black", "/usr/games/sjaakii", "--proto-black", "xboard", "--nodes", "500"};
    parse_ok(&c, &g, 6, xb_nodes);
    assert_false(coord_config_finish_new(&c, &g, &err));
    assert_non_null(strstr(err.msg, "xboard engines have no exact node limit"));
    const char *xb_depth[] = {
        "--cmd-black", "/usr/games/sjaakii", "--proto-black", "xboard", "--depth", "4"};
    parse_ok(&c, &g, 6, xb_depth);
    assert_true(coord_config_finish_new(&c, &g, &err));
    const char *xb_none[] = {"--cmd-black", "/usr/games/sjaakii", "--proto-black", "cecp"};
    parse_ok(&c, &g, 4, xb_none);
    assert_false(coord_config_finish_new(&c, &g, &err));
    assert_non_null(strstr(err.msg, "uci, uci1, ucci or xboard"));
}

static void test_config_json_round_trip_and_resume(void **state)
{
    (void)state;
    CoordConfig c, r;
    CoordGiven g, rg;
    CoordError err;
    const char *argv[] = {
        "--games",     "10",  "--nodes",      "700", "--seed",       "18446744073709551615",
        "--max-plies", "150", "--draw-moves", "4",   "--draw-score", "15"};
    parse_ok(&c, &g, 12, argv);
    assert_true(coord_config_finish_new(&c, &g, &err));
    assert_true(coord_config_to_json(&c, g_json, sizeof g_json));
    assert_non_null(strstr(g_json, "\"seed\":18446744073709551615"));

    /* nothing on the command line: every run setting comes back */
    parse_ok(&r, &rg, 0, NULL);
    assert_true(coord_config_resume(&r, &rg, g_json, &err));
    assert_int_equal(r.games, 10);
    assert_int_equal(r.nodes, 700);
    assert_int_equal(r.seed, UINT64_MAX);
    assert_int_equal(r.max_plies, 150);
    assert_int_equal(r.draw_moves, 4);
    assert_int_equal(r.draw_score, 15);

    /* --games may change; session options stay the command line's */
    const char *more[] = {"--games", "20", "--json", "--nodes", "700"};
    parse_ok(&r, &rg, 5, more);
    assert_true(coord_config_resume(&r, &rg, g_json, &err));
    assert_int_equal(r.games, 20);
    assert_true(r.json);

    /* any other run setting must match */
    const char *other[] = {"--nodes", "800"};
    parse_ok(&r, &rg, 2, other);
    assert_false(coord_config_resume(&r, &rg, g_json, &err));
    assert_non_null(strstr(err.msg, "--nodes 800 differs"));

    /* a config that is not ours */
    parse_ok(&r, &rg, 0, NULL);
    assert_false(coord_config_resume(&r, &rg, "{\"format\":\"x\"}", &err));
    assert_false(
        coord_config_resume(&r, &rg, "{\"format\":\"" COORD_CONFIG_FORMAT "\",\"zz\":1}", &err));
    assert_non_null(strstr(err.msg, "zz"));
    assert_false(coord_config_resume(&r, &rg, "not json", &err));
}

/* The command line as chuhe-coordinator reads it; false with the message in err. */
static bool command_line(CoordConfig *c, CoordGiven *g, int argc, const char *const *argv,
                         CoordError *err)
{
    coord_config_defaults(c);
    return coord_cli_parse(c, g, argc, (char **)argv, err);
}

/* Every number is read whole and in its range, a value that starts with '-' as the
 * option's value; the message names the option, the text and the range. */
static void test_config_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *argv[4];
        const char *msg;
    } cases[] = {
        {{"--nodes", "-1"}, "--nodes: '-1' is out of range (allowed: 0..4000000000)"},
        {{"--draw-score", "-5"}, "--draw-score: '-5' is out of range (allowed: 0..32000)"},
        {{"--games", "1e3"}, "--games: '1e3' is not a whole number (allowed: 1..1000000000000)"},
        {{"--games", "12abc"}, "--games: '12abc' is not a whole number"},
        {{"--depth="}, "--depth: '' is not a whole number"},
        {{"--heartbeat-timeout", "0"},
         "--heartbeat-timeout: '0' is out of range (allowed: 1..86400)"},
        {{"--rate-limit", "0x10"}, "--rate-limit: '0x10' is not a number"},
        {{"--seed", "18446744073709551616"},
         "--seed: '18446744073709551616' is out of range (allowed: 0..18446744073709551615)"},
        {{"--seed", "-1"}, "--seed: '-1' is out of range"},
        {{"-rounds", "-5"}, "-rounds: '-5' is out of range (allowed: 1..1000000000000)"},
        {{"-maxmoves", "0"}, "-maxmoves: '0' is out of range (allowed: 1..512)"},
        {{"-repeat", "-1"}, "-repeat: '-1' is out of range"},
        {{"-concurrency", "x"}, "-concurrency: 'x' is not a whole number"},
        {{"-draw", "movenumber=x", "movecount=3", "score=5"}, "-draw movenumber: 'x'"},
        {{"-each", "st=-1"}, "st: '-1' is out of range (allowed: 0.001..3600)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CoordConfig c;
        CoordGiven g;
        CoordError err;
        int argc = 0;
        while (argc < 4 && cases[i].argv[argc])
            argc++;
        assert_false(command_line(&c, &g, argc, cases[i].argv, &err));
        if (!strstr(err.msg, cases[i].msg))
            fail_msg("%s: '%s', expected '%s'", cases[i].argv[0], err.msg, cases[i].msg);
    }
    /* the largest seed still passes, and -1 in the right place is a value */
    CoordConfig c;
    CoordGiven g;
    CoordError err;
    const char *seed[] = {"--seed", "18446744073709551615", "-repeat", "2"};
    assert_true(command_line(&c, &g, 4, seed, &err));
    assert_true(c.seed == UINT64_MAX);
}

/* Values judged together: the clock's parts and the SPRT's keys are named. */
static void test_config_joint_messages(void **state)
{
    (void)state;
    CoordConfig c;
    CoordGiven g;
    CoordError err;
    /* the clock is read once, as the option is */
    const char *tc[] = {"--tc", "-5+1"};
    assert_false(command_line(&c, &g, 2, tc, &err));
    assert_string_equal(err.msg, "--tc base: '-5' is out of range (allowed: 0.001..86400)");
    const char *inc[] = {"--tc", "10+x"};
    assert_false(command_line(&c, &g, 2, inc, &err));
    assert_non_null(strstr(err.msg, "--tc increment: 'x' is not a number"));
    const char *sprt[] = {"--sprt", "garbage"};
    assert_true(command_line(&c, &g, 2, sprt, &err));
    assert_false(coord_config_finish_new(&c, &g, &err));
    assert_non_null(strstr(err.msg, "--sprt: expected key=value with key elo0, elo1, alpha, "
                                    "beta or model"));
}

/* verify reads a stored run_config with resume's code: the one written comes back, a
 * damaged one is refused. */
static void test_config_stored(void **state)
{
    (void)state;
    CoordConfig c, *stored = malloc(sizeof *stored);
    CoordGiven g;
    CoordError err;
    assert_non_null(stored);
    const char *argv[] = {"--games", "10", "--nodes", "700"};
    parse_ok(&c, &g, 4, argv);
    assert_true(coord_config_finish_new(&c, &g, &err));
    assert_true(coord_config_to_json(&c, g_json, sizeof g_json));
    assert_true(coord_config_stored(stored, g_json, &err));
    assert_int_equal(stored->nodes, 700);
    g_json[strlen(g_json) - 6] = '\0';
    assert_false(coord_config_stored(stored, g_json, &err));
    assert_non_null(strstr(err.msg, "run_config"));
    free(stored);
}

static void test_json_string_escapes(void **state)
{
    (void)state;
    char buf[64];
    size_t len = 0;
    assert_true(coord_json_string(buf, sizeof buf, &len, "a\"b\\c\n"));
    assert_string_equal(buf, "\"a\\\"b\\\\c\\u000a\"");
    len = 0;
    assert_false(coord_json_string(buf, 4, &len, "abcdef"));
}

/* ---- schedule --------------------------------------------------------------------- */

static void sched_new(Schedule *s, uint64_t games)
{
    CoordConfig c;
    CoordGiven g;
    CoordError err;
    SchedError serr;
    parse_ok(&c, &g, 0, NULL);
    c.games = games;
    c.random_plies = 4;
    assert_true(coord_config_finish_new(&c, &g, &err));
    c.seed = 42; /* after finish_new, which draws a random one */
    if (!coord_sched_init(s, &c, &serr))
        fail_msg("coord_sched_init: %s", serr.msg);
}

static void test_schedule_hand_out_and_requeue(void **state)
{
    (void)state;
    Schedule s;
    uint64_t id;
    sched_new(&s, 7); /* 4 pairs */
    assert_int_equal(s.target, 4);
    for (uint64_t want = 0; want < 4; want++) {
        assert_true(coord_sched_assign_next(&s, (int)want, 0, &id));
        assert_int_equal(id, want);
    }
    assert_false(coord_sched_assign_next(&s, 9, 0, &id)); /* all out */

    coord_sched_release(&s, 2); /* a silent worker: pair 2 goes first */
    assert_int_equal(s.requeued, 1);
    assert_true(coord_sched_assign_next(&s, 5, 1, &id));
    assert_int_equal(id, 2);
    assert_int_equal(coord_sched_pair(&s, 2)->worker, 5);

    for (uint64_t p = 0; p < 4; p++) {
        assert_false(coord_sched_game_stored(&s, p, 1));
        assert_false(coord_sched_game_stored(&s, p, 1)); /* twice: no change */
        assert_true(coord_sched_game_stored(&s, p, 0));
    }
    assert_true(coord_sched_finished(&s));
    assert_int_equal(s.outstanding, 0);
    assert_false(coord_sched_assign_next(&s, 0, 2, &id));
    coord_sched_free(&s);
}

static void test_schedule_restore(void **state)
{
    (void)state;
    Schedule s;
    uint64_t id;
    sched_new(&s, 10);
    /* stored: pair 0 whole, pair 1 half, pair 3 whole; pair 2 handed out, never stored */
    coord_sched_restore_game(&s, 0, 0);
    coord_sched_restore_game(&s, 0, 1);
    coord_sched_restore_game(&s, 1, 1);
    coord_sched_restore_game(&s, 3, 0);
    coord_sched_restore_game(&s, 3, 1);
    coord_sched_restore_end(&s, 4);
    assert_int_equal(s.complete, 2);
    assert_int_equal(s.outstanding, 2);
    assert_true(coord_sched_assign_next(&s, 0, 0, &id));
    assert_int_equal(id, 1);
    assert_true(coord_sched_assign_next(&s, 0, 0, &id));
    assert_int_equal(id, 2);
    assert_true(coord_sched_assign_next(&s, 0, 0, &id));
    assert_int_equal(id, 4); /* new ids continue after the stored ones */
    assert_false(coord_sched_pair(&s, 1)->stored & 1);
    assert_true(coord_sched_game_stored(&s, 1, 0));
    coord_sched_free(&s);
}

static void test_schedule_adopt_and_drop(void **state)
{
    (void)state;
    Schedule s;
    uint64_t id;
    sched_new(&s, 8);
    assert_null(coord_sched_pair(&s, 2));
    assert_true(coord_sched_can_adopt(&s, 2));
    coord_sched_adopt(&s, 2, 7, 0);
    assert_non_null(coord_sched_pair(&s, 2));
    assert_int_equal(s.outstanding, 1);
    for (uint64_t want = 0; want < 4; want++) {
        if (want == 2)
            continue;
        assert_true(coord_sched_assign_next(&s, 0, 0, &id)); /* the adopted id is skipped */
        assert_int_equal(id, want);
    }
    assert_false(coord_sched_can_adopt(&s, 9)); /* every needed pair is out */

    for (int i = 1; i < SCHED_MAX_REJECTS; i++)
        assert_false(coord_sched_game_rejected(&s, 1));
    assert_true(coord_sched_game_rejected(&s, 1));
    assert_int_equal(coord_sched_pair(&s, 1)->state, PAIR_DROPPED);
    assert_int_equal(s.dropped, 1);
    assert_true(coord_sched_assign_next(&s, 0, 0, &id)); /* a replacement */
    assert_int_equal(id, 4);

    /* a dead worker gives back every pair it holds, the adopted one too */
    assert_int_equal(coord_sched_release_worker(&s, 7), 1);
    assert_int_equal(coord_sched_pair(&s, 2)->state, PAIR_QUEUED);
    assert_int_equal(coord_sched_release_worker(&s, 0), 3); /* 0, 3 and 4 */
    assert_true(coord_sched_assign_next(&s, 1, 0, &id));
    assert_int_equal(id, 4); /* the last released comes first */
    coord_sched_free(&s);
}

static void test_schedule_openings_reproducible(void **state)
{
    (void)state;
    Schedule a, b;
    SchedError err;
    sched_new(&a, 20);
    sched_new(&b, 20);
    for (uint64_t id = 0; id < 6; id++) {
        const Opening *x = coord_sched_opening(&a, id, &err);
        const Opening *y = coord_sched_opening(&b, id, &err);
        if (!x)
            fail_msg("%s", err.msg);
        assert_non_null(y);
        assert_int_equal(x->nmoves, 4);
        assert_string_equal(x->fen, y->fen);
        assert_memory_equal(x->moves, y->moves, sizeof x->moves[0] * (size_t)x->nmoves);
    }
    const Opening *p0 = coord_sched_opening(&a, 0, &err), *p1 = coord_sched_opening(&a, 1, &err);
    assert_true(memcmp(p0->moves, p1->moves, sizeof p0->moves[0] * 4) != 0);
    coord_sched_free(&a);
    coord_sched_free(&b);
}

/* ---- statistics ------------------------------------------------------------------- */

static void test_stats_by_colour_and_player(void **state)
{
    (void)state;
    RunStats st;
    coord_runstats_init(&st, 0);
    coord_runstats_add(&st, OUTCOME_RED_WIN, REASON_CHECKMATE, 50, 0, 1, 1000, true); /* p0 wins */
    coord_runstats_add(&st, OUTCOME_RED_WIN, REASON_CHECKMATE, 60, 1, 0, 1000, true); /* p1 wins */
    coord_runstats_add(&st, OUTCOME_BLACK_WIN, REASON_STALEMATE, 40, 1, 0, 0, false); /* p0 wins */
    coord_runstats_add(&st, OUTCOME_DRAW, REASON_REPETITION, 30, 0, 1, 0, true);
    assert_int_equal(st.games, 4);
    assert_int_equal(st.positions, 180);
    assert_int_equal(st.session_games, 3);
    assert_int_equal(st.red_wins, 2);
    assert_int_equal(st.black_wins, 1);
    assert_int_equal(st.draws, 1);
    assert_int_equal(st.player[0][0], 2);
    assert_int_equal(st.player[0][1], 1);
    assert_int_equal(st.player[0][2], 1);
    assert_int_equal(st.player[1][0], 1);
    assert_int_equal(st.player[1][2], 2);
    assert_int_equal(st.reasons[REASON_CHECKMATE], 2);

    RunStatsContext cx = {.pairs_done = 1, .pairs_target = 4, .workers = 2, .now = 10};
    char buf[2048];
    StrBuf json;
    strbuf_init(&json);
    coord_runstats_json(&st, &cx, "progress", "\"x\":1", true, &json);
    snprintf(buf, sizeof buf, "%s", strbuf_text(&json));
    strbuf_free(&json);
    assert_non_null(strstr(buf, "{\"event\":\"progress\",\"x\":1,"));
    assert_non_null(strstr(buf, "\"games\":4,"));
    assert_non_null(strstr(buf, "\"players\":[{\"wins\":2,\"draws\":1,\"losses\":1}"));
    assert_non_null(strstr(buf, "\"endings\":{\"checkmate\":2,"));
    assert_int_equal(buf[strlen(buf) - 1], '}');
    coord_runstats_progress_text(&st, &cx, buf, sizeof buf);
    assert_non_null(strstr(buf, "pairs 1/4"));
    assert_non_null(strstr(buf, "red-draw-black 2-1-1"));
    coord_runstats_free(&st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults_and_parse),
        cmocka_unit_test(test_config_rejects),
        cmocka_unit_test(test_config_json_round_trip_and_resume),
        cmocka_unit_test(test_config_numbers),
        cmocka_unit_test(test_config_joint_messages),
        cmocka_unit_test(test_config_stored),
        cmocka_unit_test(test_json_string_escapes),
        cmocka_unit_test(test_schedule_hand_out_and_requeue),
        cmocka_unit_test(test_schedule_restore),
        cmocka_unit_test(test_schedule_adopt_and_drop),
        cmocka_unit_test(test_schedule_openings_reproducible),
        cmocka_unit_test(test_stats_by_colour_and_player),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
