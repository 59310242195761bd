/*
 * Tournaments with more than two engines: the pairings of round robins and gauntlets
 * (order, counts, balance, colours), the schedule that hands them out, the crosstable's
 * arithmetic (per pairing, per engine, ranking, text and JSON), and the command line:
 * -engine lists, -tournament, per-engine limits, -rounds, and what is refused.
 */
#include <math.h>
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
#include "coordinator/coord_sched.h"
#include "coordinator/coord_runstats.h"
#include "coordinator/coord_crosstable.h"
#include "coordinator/coord_tournament.h"
#include "tests/support/expect_text.h"

/* ---- pairings ------------------------------------------------------------------------ */

static void test_round_robin_cycle(void **state)
{
    (void)state;
    for (int n = 3; n <= 12; n++) {
        uint64_t per = coord_tournament_pairings(TOUR_ROUNDROBIN, n);
        assert_int_equal(per, (uint64_t)(n * (n - 1) / 2));
        int met[TOUR_MAX_ENGINES][TOUR_MAX_ENGINES] = {{0}};
        int first[TOUR_MAX_ENGINES] = {0}, played[TOUR_MAX_ENGINES] = {0};
        /* a round: n/2 pairings (n even) or (n-1)/2 (n odd, one engine sits out) */
        int round_len = n / 2;
        int in_round[TOUR_MAX_ENGINES] = {0};
        for (uint64_t k = 0; k < 2 * per; k++) {
            int a, b;
            coord_tournament_pair_engines(TOUR_ROUNDROBIN, n, k, &a, &b);
            assert_true(a >= 0 && a < n && b >= 0 && b < n && a != b);
            if (k < per) {
                met[a][b]++;
                met[b][a]++;
                /* nobody plays twice in a round: partial results stay balanced */
                if (k % (uint64_t)round_len == 0)
                    memset(in_round, 0, sizeof in_round);
                assert_int_equal(in_round[a]++, 0);
                assert_int_equal(in_round[b]++, 0);
                played[a]++;
                played[b]++;
                if ((k + 1) % (uint64_t)round_len == 0) {
                    int lo = 1 << 30, hi = 0;
                    for (int e = 0; e < n; e++) {
                        lo = played[e] < lo ? played[e] : lo;
                        hi = played[e] > hi ? played[e] : hi;
                    }
                    assert_true(hi - lo <= 1);
                }
            } else {
                /* the second cycle is the first with first and second swapped */
                int a0, b0;
                coord_tournament_pair_engines(TOUR_ROUNDROBIN, n, k - per, &a0, &b0);
                assert_int_equal(a, b0);
                assert_int_equal(b, a0);
            }
            first[a]++;
        }
        for (int a = 0; a < n; a++) {
            assert_int_equal(first[a], n - 1); /* leads half of its 2(n-1) pairs */
            for (int b = 0; b < n; b++)
                assert_int_equal(met[a][b], a == b ? 0 : 1);
        }
    }
}

static void test_round_robin_order_of_four(void **state)
{
    (void)state;
    /* the circle method for 4 engines: rounds {0-3, 1-2}, {1-0, 2-3}, {0-2, 3-1} */
    static const int want[6][2] = {{0, 3}, {1, 2}, {1, 0}, {2, 3}, {0, 2}, {3, 1}};
    for (uint64_t k = 0; k < 6; k++) {
        int a, b;
        coord_tournament_pair_engines(TOUR_ROUNDROBIN, 4, k, &a, &b);
        assert_int_equal(a, want[k][0]);
        assert_int_equal(b, want[k][1]);
    }
}

static void test_gauntlet_and_match(void **state)
{
    (void)state;
    assert_int_equal(coord_tournament_pairings(TOUR_GAUNTLET, 5), 4);
    for (uint64_t k = 0; k < 12; k++) {
        int a, b;
        coord_tournament_pair_engines(TOUR_GAUNTLET, 5, k, &a, &b);
        uint64_t cycle = k / 4;
        int opponent = (int)(k % 4) + 1;
        assert_int_equal(cycle % 2 ? b : a, 0);
        assert_int_equal(cycle % 2 ? a : b, opponent);
    }
    /* two engines: a plain match, engine 0 first in every pair, whatever the kind */
    for (int kind = 0; kind < TOUR_KIND_NB; kind++) {
        assert_int_equal(coord_tournament_pairings((TourKind)kind, 2), 1);
        for (uint64_t k = 0; k < 5; k++) {
            int a, b;
            coord_tournament_pair_engines((TourKind)kind, 2, k, &a, &b);
            assert_int_equal(a, 0);
            assert_int_equal(b, 1);
        }
    }
    assert_int_equal(coord_tournament_pairings(TOUR_ROUNDROBIN, 1), 0);
    assert_int_equal(coord_tournament_pairings(TOUR_ROUNDROBIN, TOUR_MAX_ENGINES + 1), 0);
    TourKind k;
    assert_true(coord_tournament_kind_parse("round-robin", &k) && k == TOUR_ROUNDROBIN);
    assert_true(coord_tournament_kind_parse("gauntlet", &k) && k == TOUR_GAUNTLET);
    assert_false(coord_tournament_kind_parse("knockout", &k));
}

/* ---- the command line and the settings ------------------------------------------------ */

static CoordConfig g_cfg, g_back;

/* Parses the tournament options; false with err set on a refusal. */
static bool cli(CoordConfig *c, CoordGiven *g, CoordError *err, int argc, const char **argv)
{
    coord_config_defaults(c);
    return coord_cli_parse(c, g, argc, (char **)argv, err) && coord_config_finish_new(c, g, err);
}

static void test_cli_round_robin_and_gauntlet(void **state)
{
    (void)state;
    CoordGiven g;
    CoordError err;
    const char *rr[] = {"-engine", "name=a", "builtin",       "-engine",   "name=b", "builtin",
                        "-engine", "name=c", "cmd=/bin/true", "proto=uci", "-each",  "nodes=500",
                        "-rounds", "3"};
    if (!cli(&g_cfg, &g, &err, 14, rr))
        fail_msg("%s", err.msg);
    assert_int_equal(g_cfg.engines, 3);
    assert_string_equal(g_cfg.tournament, "roundrobin");
    assert_int_equal(g_cfg.games, 3 * 2 * 3); /* 3 rounds of a pair for 3 pairings */
    assert_string_equal(g_cfg.name[2], "c");
    assert_string_equal(g_cfg.cmd[2], "/bin/true");
    assert_int_equal(g_cfg.nodes, 500);

    const char *ga[] = {"-tournament", "gauntlet", "-engine", "builtin", "-engine",
                        "builtin",     "-engine",  "builtin", "-engine", "builtin",
                        "-games",      "4",        "-rounds", "2"};
    if (!cli(&g_cfg, &g, &err, 14, ga))
        fail_msg("%s", err.msg);
    assert_string_equal(g_cfg.tournament, "gauntlet");
    assert_int_equal(g_cfg.games, 2 * 4 * 3);
    assert_int_equal(g_cfg.nodes, COORD_DEFAULT_NODES);

    /* two engines stay a plain match: no engine count, no kind stored */
    const char *two[] = {"-engine", "builtin", "-engine", "builtin", "-rounds", "5"};
    if (!cli(&g_cfg, &g, &err, 6, two))
        fail_msg("%s", err.msg);
    assert_int_equal(g_cfg.engines, 2);
    assert_string_equal(g_cfg.tournament, "");
    assert_int_equal(g_cfg.games, 10);
}

static void test_cli_refusals(void **state)
{
    (void)state;
    CoordGiven g;
    CoordError err;
    const char *sprt[] = {"-engine", "builtin", "-engine", "builtin", "-engine",
                          "builtin", "-sprt",   "elo0=0",  "elo1=5"};
    assert_false(cli(&g_cfg, &g, &err, 9, sprt));
    assert_non_null(strstr(err.msg, "exactly two engines"));
    const char *kind[] = {"-tournament", "knockout", "-engine", "builtin", "-engine", "builtin"};
    assert_false(cli(&g_cfg, &g, &err, 6, kind));
    assert_non_null(strstr(err.msg, "knockout"));
    const char *margin[] = {"-engine", "builtin", "timemargin=5", "-engine", "builtin"};
    assert_false(cli(&g_cfg, &g, &err, 5, margin));
    assert_non_null(strstr(err.msg, "-each"));
    const char *one[] = {"-engine", "builtin"};
    assert_false(cli(&g_cfg, &g, &err, 2, one));
    /* an engine option beyond the run's engines */
    const char *beyond[] = {"--cmd-4", "/bin/true"};
    assert_false(cli(&g_cfg, &g, &err, 2, beyond));
    assert_non_null(strstr(err.msg, "engine 4"));
    /* one engine without any limit */
    const char *nolimit[] = {"-engine", "builtin", "nodes=100", "-engine", "builtin"};
    assert_false(cli(&g_cfg, &g, &err, 5, nolimit));
    assert_non_null(strstr(err.msg, "player 1"));
    const char *badtc[] = {"-engine", "builtin", "tc=fast", "-engine", "builtin"};
    assert_false(cli(&g_cfg, &g, &err, 5, badtc));
    assert_non_null(strstr(err.msg, "-engine tc base: 'fast' is not a number"));
}

static void test_per_engine_limits(void **state)
{
    (void)state;
    CoordGiven g, rg;
    CoordError err;
    const char *argv[] = {"-engine", "name=fast", "builtin",   "nodes=300",  "-engine", "name=slow",
                          "builtin", "tc=20+0.2", "-engine",   "name=third", "builtin", "st=0.25",
                          "depth=4", "-each",     "tc=10+0.1", "nodes=1000"};
    if (!cli(&g_cfg, &g, &err, 16, argv))
        fail_msg("%s", err.msg);
    CoordLimits l;
    coord_engine_limits(&g_cfg, 0, &l); /* its own nodes, the run's clock */
    assert_int_equal(l.nodes, 300);
    assert_int_equal(l.tc_base_ms, 10000);
    assert_int_equal(l.tc_inc_ms, 100);
    coord_engine_limits(&g_cfg, 1, &l); /* its own clock, the run's nodes */
    assert_int_equal(l.nodes, 1000);
    assert_int_equal(l.tc_base_ms, 20000);
    assert_int_equal(l.tc_inc_ms, 200);
    assert_int_equal(l.movetime, 0);
    coord_engine_limits(&g_cfg, 2, &l); /* a move time replaces the run's clock */
    assert_int_equal(l.tc_base_ms, 0);
    assert_int_equal(l.movetime, 250);
    assert_int_equal(l.depth, 4);
    assert_int_equal(l.nodes, 1000);

    /* stored in run_config and restored from it alone */
    static char json[RUNFILE_CONFIG_MAX];
    assert_true(coord_config_to_json(&g_cfg, json, sizeof json));
    expect_text(json, "\"nodes_red\":300", "\"tc_black\":\"20+0.2\"", "\"movetime_2\":250", NULL);
    assert_null(strstr(json, "\"cmd_3\"")); /* engines the run does not have stay out */
    coord_config_defaults(&g_back);
    assert_true(coord_config_parse(&g_back, &rg, 0, NULL, &err));
    if (!coord_config_resume(&g_back, &rg, json, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(g_back.engines, 3);
    assert_string_equal(g_back.name[2], "third");
    coord_engine_limits(&g_back, 1, &l);
    assert_int_equal(l.tc_base_ms, 20000);
    coord_engine_limits(&g_back, 2, &l);
    assert_int_equal(l.movetime, 250);

    /* a restart may not change an engine's limit */
    const char *other[] = {"--nodes-red", "400"};
    coord_config_defaults(&g_back);
    assert_true(coord_config_parse(&g_back, &rg, 2, (char **)other, &err));
    assert_false(coord_config_resume(&g_back, &rg, json, &err));
    assert_non_null(strstr(err.msg, "--nodes-red 400 differs"));
}

/* ---- the schedule ------------------------------------------------------------------------ */

static void test_schedule_hands_out_pairings(void **state)
{
    (void)state;
    CoordGiven g;
    CoordError err;
    SchedError serr;
    Schedule s;
    const char *argv[] = {
        "-engine", "builtin",     "-engine",  "builtin", "-engine", "builtin",        "-engine",
        "builtin", "-tournament", "gauntlet", "-rounds", "2",       "--random-plies", "2"};
    if (!cli(&g_cfg, &g, &err, 14, argv))
        fail_msg("%s", err.msg);
    if (!coord_sched_init(&s, &g_cfg, &serr))
        fail_msg("%s", serr.msg);
    assert_int_equal(s.target, 6); /* 2 rounds x 3 pairings */
    assert_int_equal(coord_sched_pairings(&s), 3);
    int count[4] = {0};
    uint64_t id;
    for (uint64_t want = 0; want < 6; want++) {
        assert_true(coord_sched_assign_next(&s, 0, 0, &id));
        assert_int_equal(id, want);
        int a, b;
        coord_sched_pair_engines(&s, id, &a, &b);
        assert_int_equal(want < 3 ? a : b, 0);
        count[a]++;
        count[b]++;
    }
    assert_false(coord_sched_assign_next(&s, 0, 0, &id));
    assert_int_equal(count[0], 6);
    assert_int_equal(count[1], 2);
    assert_int_equal(count[3], 2);
    coord_sched_free(&s);
}

/* ---- crosstable ------------------------------------------------------------------------ */

static Crosstable g_xt;

static void test_crosstable_arithmetic(void **state)
{
    (void)state;
    Crosstable *t = &g_xt;
    coord_crosstable_init(t, 3);
    coord_crosstable_set_name(t, 0, "a");
    coord_crosstable_set_name(t, 1, "b");
    coord_crosstable_set_name(t, 2, "c");
    /* a-b: a wins both games of pair 1 (Red and Black), pair 2 drawn twice */
    Outcome ab[4] = {OUTCOME_RED_WIN, OUTCOME_BLACK_WIN, OUTCOME_DRAW, OUTCOME_DRAW};
    coord_crosstable_add_game(t, 0, 1, ab[0]);
    coord_crosstable_add_game(t, 1, 0, ab[1]);
    coord_crosstable_add_pair(t, 0, 1, ab[0], ab[1]);
    coord_crosstable_add_game(t, 1, 0, ab[2]);
    coord_crosstable_add_game(t, 0, 1, ab[3]);
    coord_crosstable_add_pair(t, 1, 0, ab[2], ab[3]);
    /* b-c: each wins with Red; c-a: c wins one game, its partner not stored yet */
    coord_crosstable_add_game(t, 1, 2, OUTCOME_RED_WIN);
    coord_crosstable_add_game(t, 2, 1, OUTCOME_RED_WIN);
    coord_crosstable_add_pair(t, 1, 2, OUTCOME_RED_WIN, OUTCOME_RED_WIN);
    coord_crosstable_add_game(t, 2, 0, OUTCOME_RED_WIN);
    /* ignored: an engine against itself, out of range */
    coord_crosstable_add_game(t, 1, 1, OUTCOME_RED_WIN);
    coord_crosstable_add_game(t, 0, 7, OUTCOME_RED_WIN);

    assert_int_equal(t->wdl[0][1][0], 2);
    assert_int_equal(t->wdl[0][1][1], 2);
    assert_int_equal(t->wdl[1][0][2], 2);
    assert_int_equal(t->pairs[0][1].penta[4], 1); /* WW */
    assert_int_equal(t->pairs[0][1].dd, 1);
    assert_int_equal(t->pairs[1][0].penta[0], 1); /* LL from b's view */
    assert_int_equal(t->pairs[1][2].wl, 1);

    CrosstableRow rows[XT_MAX];
    assert_int_equal(coord_crosstable_ranking(t, rows), 3);
    /* a: 3/5 (60 %), b: 2/6, c: 2/3 (67 %) */
    assert_int_equal(rows[0].engine, 2);
    assert_int_equal(rows[1].engine, 0);
    assert_int_equal(rows[2].engine, 1);
    assert_true(fabs(rows[0].score - 2.0 / 3) < 1e-12);
    assert_int_equal(rows[1].games, 5);
    assert_true(rows[1].points == 3.0);
    assert_int_equal(rows[2].wins, 1);
    assert_int_equal(rows[2].losses, 3);
    /* a's field: its pairs WW and DD: mu = (1 + 0.5) / 2 = 0.75 */
    assert_int_equal(stats_pairs(&rows[1].field), 2);
    assert_true(fabs(rows[1].est.mu - 0.75) < 1e-12);
    assert_true(fabs(rows[1].est.elo - stats_logistic_elo(0.75)) < 1e-9);
    /* c: its pair with b (a win and a loss) counts; the single game against a only in
     * its score */
    assert_int_equal(stats_pairs(&rows[0].field), 1);
    assert_true(fabs(rows[0].est.mu - 0.5) < 1e-12);

    StrBuf b;
    strbuf_init(&b);
    coord_crosstable_format(t, "  ", &b);
    const char *text = strbuf_text(&b);
    /* c ranks first; the row of a (rank 2): against c (rank 1) 0/1, itself, against b
     * (rank 3) 3/4 */
    expect_text(text, "ranking", "1  c ", "2  a ", "0/1     -   3/4", "a vs b: Elo",
                "a vs c: no complete pair", NULL);
    strbuf_free(&b);

    strbuf_init(&b);
    coord_crosstable_json(t, &b);
    text = strbuf_text(&b);
    expect_text(text,
                "\"crosstable\":{\"points\":[[null,3.0,0.0],[1.0,null,1.0],"
                "[1.0,1.0,null]],\"games\":[[0,4,1],[4,0,2],[1,2,0]]}",
                "{\"rank\":1,\"engine\":2,\"name\":\"c\",\"games\":3",
                "{\"engines\":[0,1],\"wins\":2,\"draws\":2,\"losses\":0,"
                "\"pairs\":2,\"penta\":[0,0,1,0,1]",
                NULL);
    strbuf_free(&b);
}

static RunStats g_st;

static void test_stats_tournament_and_ranks(void **state)
{
    (void)state;
    RunStats *st = &g_st;
    coord_runstats_init(st, 0);
    coord_runstats_set_engines(st, 3);
    coord_crosstable_set_name(&st->table, 1, "x");
    coord_runstats_add(st, OUTCOME_RED_WIN, REASON_TIME_FORFEIT, 30, 2, 1, 0, true);
    coord_runstats_add(st, OUTCOME_BLACK_WIN, REASON_ENGINE_CRASH, 40, 2, 1, 0, true);
    coord_runstats_add_pair(st, 2, 1, OUTCOME_RED_WIN, OUTCOME_BLACK_WIN);
    coord_runstats_worker_game(st, "n1", 0, REASON_TIME_FORFEIT);
    coord_runstats_worker_game(st, "n1", 0, REASON_ENGINE_CRASH);
    coord_runstats_worker_game(st, "n2", 0, REASON_ILLEGAL_MOVE);
    coord_runstats_worker_game(st, "n1", 3, REASON_CHECKMATE);
    coord_runstats_worker_game(st, "a", 9, REASON_CHECKMATE);
    assert_int_equal(st->time_losses[1], 1);
    assert_int_equal(st->crashes[2], 1);
    assert_int_equal(st->nworkers, 4);
    /* by host, then rank */
    assert_string_equal(st->workers[0].host, "a");
    assert_int_equal(st->workers[1].rank, 0);
    assert_int_equal(st->workers[1].games, 2);
    assert_int_equal(st->workers[2].rank, 3);
    assert_string_equal(st->workers[3].host, "n2");
    assert_int_equal(stats_pairs(&st->match), 0); /* engines 0 and 1 did not meet */
    RunStatsContext cx = {.pairs_done = 1, .pairs_target = 3, .workers = 2, .now = 1};
    StrBuf b;
    strbuf_init(&b);
    coord_runstats_json(st, &cx, "summary", NULL, true, &b);
    const char *j = strbuf_text(&b);
    expect_text(j, "\"engines\":[\"engine 0\",\"x\",\"engine 2\"]", "\"crashes\":[0,0,1]",
                "\"ranks\":[{\"rank\":9,\"host\":\"a\",\"games\":1,",
                "{\"rank\":0,\"host\":\"n1\",\"games\":2,\"crashes\":1,"
                "\"time_losses\":1,\"illegal_moves\":0},{\"rank\":3,\"host\":\"n1\"",
                "\"leader\":{\"engine\":1,\"name\":\"x\"", "\"ranking\":[", NULL);
    assert_null(strstr(j, "\"nelo_error\"")); /* no top-level match of engines 0-1 */
    strbuf_free(&b);
    strbuf_init(&b);
    coord_runstats_summary_text(st, &cx, &b);
    expect_text(strbuf_text(&b), "rank 0 on n2: 1 games, 0 crashes, 0 time losses, 1", "crosstable",
                NULL);
    strbuf_free(&b);
    char line[512];
    coord_runstats_progress_text(st, &cx, line, sizeof line);
    assert_non_null(strstr(line, "leader x 50.00 % (1/2)"));
    coord_runstats_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin_cycle),
        cmocka_unit_test(test_round_robin_order_of_four),
        cmocka_unit_test(test_gauntlet_and_match),
        cmocka_unit_test(test_cli_round_robin_and_gauntlet),
        cmocka_unit_test(test_cli_refusals),
        cmocka_unit_test(test_per_engine_limits),
        cmocka_unit_test(test_schedule_hands_out_pairings),
        cmocka_unit_test(test_crosstable_arithmetic),
        cmocka_unit_test(test_stats_tournament_and_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
