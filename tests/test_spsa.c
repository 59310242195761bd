/*
 * The coordinator's SPSA (coordinator/coord_spsa.h): the --spsa setting and its stored text,
 * the parameter file and its errors, fishtest's gains (c_k and a_k reach c_end and
 * a_end = r_end c_end^2 at the last iteration), the perturbations, the values of a pair
 * (theta W updates back, clamped and rounded), the update from a pair's games, and a
 * restart that replays the run file's iterations to the same theta.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "coordinator/coord_spsa.h"
#include "position.h"
#include "tests/support/scratch.h"

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect_file_error(const char *text, const char *needle)
{
    const char *path = scratch_path("bad.txt");
    write_text(path, text);
    SpsaFile f;
    CoordError err = {{0}};
    assert_false(coord_spsa_file_read(path, &f, &err));
    if (!strstr(err.msg, needle))
        fail_msg("error \"%s\" does not mention \"%s\"", err.msg, needle);
}

static void test_settings(void **state)
{
    (void)state;
    SpsaSettings s, t;
    CoordError err = {{0}};
    assert_true(coord_spsa_settings_parse("params=p.txt", &s, &err));
    assert_string_equal(s.params, "p.txt");
    assert_true(s.pairs == 0 && s.A < 0 && s.window == SPSA_DEFAULT_WINDOW);
    assert_true(s.alpha == SPSA_DEFAULT_ALPHA && s.gamma == SPSA_DEFAULT_GAMMA);
    assert_true(coord_spsa_settings_parse(
        "params=p.txt pairs=300 A=30.5 alpha=0.7 gamma=0.2 window=3", &s, &err));
    char text[COORD_PATH_MAX + 256];
    assert_true(coord_spsa_settings_text(&s, text, sizeof text));
    assert_true(coord_spsa_settings_parse(text, &t, &err));
    assert_memory_equal(&s, &t, sizeof s);
    assert_false(coord_spsa_settings_parse("pairs=3", &s, &err));
    assert_non_null(strstr(err.msg, "params=FILE is required"));
    assert_false(coord_spsa_settings_parse("params=p beta=1", &s, &err));
    assert_non_null(strstr(err.msg, "unknown key 'beta'"));
    assert_false(coord_spsa_settings_parse("params=p pairs=0", &s, &err));
    assert_non_null(strstr(err.msg, "--spsa pairs: '0' is out of range"));
    assert_false(coord_spsa_settings_parse("params=p alpha=x", &s, &err));
}

static void test_file(void **state)
{
    (void)state;
    const char *path = scratch_path("params.txt");
    write_text(path, "# tuned\n\nrfp_margin, int, 90, 20, 300, 8, 0.002  # a comment\n"
                     "Skill Level, 0.5, 0, 1, 0.05, 0.002\n"
                     "  lmr_base ,  80 ,0, 200, 10 , 0.002\n");
    SpsaFile f;
    CoordError err = {{0}};
    if (!coord_spsa_file_read(path, &f, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(f.n, 3);
    assert_string_equal(f.param[1].name, "Skill Level");
    assert_string_equal(f.param[1].type, "float");
    assert_string_equal(f.param[2].type, "int"); /* six fields, whole numbers */
    assert_int_equal(f.line[0], 3);
    assert_int_equal(f.line[2], 5);
    assert_true(f.param[0].c_end == 8 && f.param[0].r_end == 0.002 && f.param[2].max == 200);
    assert_false(coord_spsa_file_check_builtin(&f, path, &err));
    assert_non_null(strstr(err.msg, "params.txt:4: 'Skill Level' is not a search parameter"));

    expect_file_error("a, int, 1, 0\n", "bad.txt:1: 4 fields");
    expect_file_error("\na, bool, 1, 0, 2, 1, 1\n",
                      "bad.txt:2: a: type 'bool' is not int or float");
    expect_file_error("a, int, 1, 2, 2, 1, 1\n", "a: min 2 is not below max 2");
    expect_file_error("a, int, 5, 0, 2, 1, 1\n", "a: value 5 is outside its bounds 0..2");
    expect_file_error("a, int, 1, 0.5, 2, 1, 1\n", "a: an int parameter has whole bounds");
    expect_file_error("a, int, 1, 0, 2, 0, 1\n", "a: c_end and r_end must be above 0");
    expect_file_error("a, int, x, 0, 2, 1, 1\n", "a: value: 'x' is not a number");
    expect_file_error("a=b, int, 1, 0, 2, 1, 1\n", "without '=' or ';'");
    expect_file_error("a, 1, 0, 2, 1, 1\nb, 1, 0, 2, 1, 1\na, 1, 0, 2, 1, 1\n",
                      "bad.txt:3: a is given twice (first on line 1)");
    expect_file_error("# nothing\n", "no parameter in the file");
}

/* A new run file with two players and the parameters p[0..n-1]. */
static RunFile *spsa_file(const char *name, const RunSpsaParam *p, int n)
{
    RunError err = {{0}};
    RunFile *rf = runfile_create(scratch_path(name), "{}", "test", &err);
    assert_non_null(rf);
    uint16_t id;
    assert_true(runfile_add_player(rf, "plus", "builtin", "", 0, &id, &err));
    assert_true(runfile_add_player(rf, "minus", "builtin", "", 0, &id, &err));
    if (!runfile_spsa_begin(rf, p, n, &err))
        fail_msg("%s", err.msg);
    return rf;
}

/* Pair `pair` stored: game 0 with plus as Red, game 1 colours swapped; outcome from Red's
 * view. */
static void store_pair(RunFile *rf, uint64_t pair, Outcome g0, Outcome g1)
{
    GameRecord rec;
    RunError err = {{0}};
    memset(&rec, 0, sizeof rec);
    snprintf(rec.start_fen, sizeof rec.start_fen, "%s", START_FEN);
    rec.reason = REASON_MOVE_LIMIT;
    rec.outcome = g0;
    assert_true(runfile_append_game(rf, &rec, pair, 0, 0, 1, 0, NULL, &err));
    rec.outcome = g1;
    assert_true(runfile_append_game(rf, &rec, pair, 1, 1, 0, 0, NULL, &err));
}

static void params(RunSpsaParam p[2])
{
    memset(p, 0, 2 * sizeof *p);
    snprintf(p[0].name, sizeof p[0].name, "margin");
    snprintf(p[0].type, sizeof p[0].type, "int");
    p[0].start = 100, p[0].min = 0, p[0].max = 104, p[0].c_end = 4, p[0].r_end = 0.05;
    snprintf(p[1].name, sizeof p[1].name, "rate");
    snprintf(p[1].type, sizeof p[1].type, "float");
    p[1].start = 0.5, p[1].min = 0, p[1].max = 1, p[1].c_end = 0.1, p[1].r_end = 2;
}

static SpsaSettings settings(uint64_t pairs, uint64_t window)
{
    SpsaSettings set;
    CoordError err;
    assert_true(coord_spsa_settings_parse("params=x", &set, &err));
    set.pairs = pairs;
    set.A = 0.1 * (double)pairs;
    set.window = window;
    return set;
}

static void test_gains(void **state)
{
    (void)state;
    RunSpsaParam p[2];
    params(p);
    Spsa s;
    SpsaSettings set = settings(100, 2);
    assert_true(coord_spsa_init(&s, &set, 42, p, 2, 0));
    for (int i = 0; i < 2; i++) {
        /* fishtest: c = c_end N^gamma, a = r_end c_end^2 (A + N)^alpha */
        assert_true(fabs(s.c[i] - p[i].c_end * pow(100, SPSA_DEFAULT_GAMMA)) < 1e-12);
        double a_end = p[i].r_end * p[i].c_end * p[i].c_end;
        assert_true(fabs(s.a[i] - a_end * pow(10 + 100, SPSA_DEFAULT_ALPHA)) < 1e-9);
        /* so that the last iteration's c_k and a_k are c_end and a_end */
        assert_true(fabs(s.c[i] / pow(100, SPSA_DEFAULT_GAMMA) - p[i].c_end) < 1e-12);
        assert_true(fabs(s.a[i] / pow(10 + 100, SPSA_DEFAULT_ALPHA) - a_end) < 1e-12);
    }
    int plus = 0;
    for (uint64_t k = 0; k < 1000; k++) {
        int d = coord_spsa_delta(&s, k, 0);
        assert_true(d == 1 || d == -1);
        plus += d == 1;
        assert_int_equal(d, coord_spsa_delta(&s, k, 0));
    }
    assert_true(plus > 420 && plus < 580);
    Spsa other;
    assert_true(coord_spsa_init(&other, &set, 43, p, 2, 0));
    int same = 0;
    for (uint64_t k = 0; k < 100; k++)
        same += coord_spsa_delta(&s, k, 1) == coord_spsa_delta(&other, k, 1);
    assert_true(same < 80);
    /* the values of pair 0: theta_0 -+ c_0, clamped to max 104 and rounded for the int */
    double pl[2], mi[2];
    coord_spsa_values(&s, 0, pl, mi);
    double c0 = s.c[0];
    int d0 = coord_spsa_delta(&s, 0, 0);
    assert_true(pl[0] == fmin(104, round(100 + c0 * d0)) &&
                mi[0] == fmin(104, round(100 - c0 * d0)));
    assert_true(pl[1] == 0.5 + s.c[1] * coord_spsa_delta(&s, 0, 1));
    coord_spsa_free(&s);
    coord_spsa_free(&other);
}

static void test_updates_and_restart(void **state)
{
    (void)state;
    RunSpsaParam p[2];
    params(p);
    RunFile *rf = spsa_file("run.h5", p, 2);
    Spsa s;
    SpsaSettings set = settings(10, 2);
    CoordError err = {{0}};
    assert_true(coord_spsa_init(&s, &set, 7, p, 2, 0));
    /* pair 1 first: nothing to apply until pair 0 is in */
    store_pair(rf, 1, OUTCOME_BLACK_WIN, OUTCOME_DRAW); /* plus lost, drew: -1 */
    assert_true(coord_spsa_catch_up(&s, rf, &err));
    assert_int_equal(s.applied, 0);
    store_pair(rf, 0, OUTCOME_RED_WIN, OUTCOME_BLACK_WIN); /* plus won both: +2 */
    if (!coord_spsa_catch_up(&s, rf, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(s.applied, 2);
    assert_int_equal(runfile_spsa_count(rf), 2);
    RunSpsaRow row;
    RunError rerr;
    assert_true(runfile_spsa_read(rf, 0, 1, &row, &rerr));
    assert_int_equal(row.result, 2);
    for (int i = 0; i < 2; i++) {
        double ak = s.a[i] / pow(s.set.A + 1, s.set.alpha), ck = s.c[i];
        double want = fmin(p[i].max, fmax(p[i].min, p[i].start + ak / ck * 2 * row.delta[i]));
        assert_true(row.theta[i] == want && coord_spsa_theta(&s, 1)[i] == want);
    }
    assert_true(runfile_spsa_read(rf, 1, 1, &row, &rerr));
    assert_int_equal(row.result, -1);
    /* window 2: pair 3 plays theta_1, pair 4 theta_2 */
    double pl[2], mi[2];
    coord_spsa_values(&s, 3, pl, mi);
    double ck = s.c[1] / pow(4, s.set.gamma);
    assert_true(pl[1] ==
                fmin(1, fmax(0, coord_spsa_theta(&s, 1)[1] + ck * coord_spsa_delta(&s, 3, 1))));
    /* the WORK's tuned parameters: engine 0 plus, engine 1 minus */
    ProtoPlayer pp;
    memset(&pp, 0, sizeof pp);
    coord_spsa_fill_player(&s, 3, 1, &pp);
    assert_int_equal(pp.ntuned, 2);
    assert_string_equal(pp.tuned[1].name, "rate");
    assert_true(pp.tuned[1].value == mi[1]);
    assert_true(runfile_flush(rf, &rerr));
    assert_int_equal(coord_spsa_issue_below(&s, rf), 2 + 2 + 1);

    /* pair 2 stored but not applied before a restart: the restart applies it */
    store_pair(rf, 2, OUTCOME_DRAW, OUTCOME_DRAW);
    assert_true(runfile_close(&rf, &rerr));
    rf = runfile_open_append(scratch_path("run.h5"), &rerr);
    assert_non_null(rf);
    Spsa r;
    assert_true(coord_spsa_init(&r, &set, 7, p, 2, 0));
    if (!coord_spsa_restore(&r, rf, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(r.applied, 3);
    assert_memory_equal(coord_spsa_theta(&r, 2), coord_spsa_theta(&s, 2), 2 * sizeof(double));
    /* another seed recomputes other perturbations: the stored rows are refused */
    Spsa bad;
    assert_true(coord_spsa_init(&bad, &set, 8, p, 2, 0));
    assert_false(coord_spsa_restore(&bad, rf, &err));
    assert_non_null(strstr(err.msg, "differs from its recomputation"));
    assert_true(runfile_close(&rf, &rerr));

    /* a report reads the history without the settings */
    rf = runfile_open_read(scratch_path("run.h5"), &rerr);
    Spsa h;
    assert_true(coord_spsa_load_history(&h, rf, &err));
    assert_int_equal(h.applied, 3);
    assert_memory_equal(coord_spsa_theta(&h, 3), coord_spsa_theta(&r, 3), 2 * sizeof(double));
    assert_true(runfile_close(&rf, &rerr));
    coord_spsa_free(&s);
    coord_spsa_free(&r);
    coord_spsa_free(&bad);
    coord_spsa_free(&h);
}

static int setup(void **state)
{
    (void)state;
    position_init();
    return scratch_create("spsa");
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_file),
        cmocka_unit_test(test_gains),
        cmocka_unit_test(test_updates_and_restart),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
