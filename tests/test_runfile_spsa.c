/*
 * The run file's SPSA tables: parameters and iteration rows written, flushed with the
 * games and read back; a file without them is a plain run; an iteration is taken only
 * in pair order and after both games of its pair; on opening, rows whose pair is not
 * stored in full (an interrupted flush) are ignored when reading and dropped when
 * appending.
 *
 * The games are empty records (a start position, no plies): the run file does not judge
 * them, and the SPSA rows only need them stored.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <hdf5.h>

#include "contracts/runfile.h"
#include "position.h"
#include "tests/support/scratch.h"

static GameRecord g_rec;

static RunFile *create_ok(const char *path)
{
    RunError err = {{0}};
    RunFile *rf = runfile_create(path, "{\"spsa\": 1}", "chuhe test", &err);
    if (!rf)
        fail_msg("create: %s", err.msg);
    uint16_t id;
    assert_true(runfile_add_player(rf, "plus", "builtin", "", 0, &id, &err));
    assert_true(runfile_add_player(rf, "minus", "builtin", "", 0, &id, &err));
    return rf;
}

static void params(RunSpsaParam p[2])
{
    memset(p, 0, 2 * sizeof *p);
    snprintf(p[0].name, sizeof p[0].name, "rfp_margin");
    snprintf(p[0].type, sizeof p[0].type, "int");
    p[0].start = 90, p[0].min = 20, p[0].max = 300, p[0].c_end = 8, p[0].r_end = 0.002;
    snprintf(p[1].name, sizeof p[1].name, "Skill Level");
    snprintf(p[1].type, sizeof p[1].type, "float");
    p[1].start = 0.5, p[1].min = 0, p[1].max = 1, p[1].c_end = 0.05, p[1].r_end = 0.002;
}

/* Game gip of the pair, ended with outcome. */
static void store_game(RunFile *rf, uint64_t pair, unsigned gip, Outcome outcome)
{
    RunError err = {{0}};
    memset(&g_rec, 0, sizeof g_rec);
    snprintf(g_rec.start_fen, sizeof g_rec.start_fen, "%s", START_FEN);
    g_rec.outcome = outcome;
    g_rec.reason = REASON_MOVE_LIMIT;
    if (!runfile_append_game(rf, &g_rec, pair, gip, (uint16_t)gip, (uint16_t)!gip, 0, NULL, &err))
        fail_msg("append pair %llu: %s", (unsigned long long)pair, err.msg);
}

/* The first `games` games of the pair, drawn. */
static void store_pair(RunFile *rf, uint64_t pair, int games)
{
    for (int g = 0; g < games; g++)
        store_game(rf, pair, (unsigned)g, OUTCOME_DRAW);
}

static RunSpsaRow row_for(uint64_t pair)
{
    RunSpsaRow r;
    memset(&r, 0, sizeof r);
    r.pair_id = pair;
    r.result = (int8_t)((int)pair % 5 - 2);
    for (int k = 0; k < 2; k++) {
        r.delta[k] = (int8_t)((pair + (uint64_t)k) % 2 ? 1 : -1);
        r.plus[k] = 90.0 + (double)pair + k;
        r.minus[k] = 80.0 - (double)pair - k;
        r.theta[k] = 85.25 + (double)pair * 0.5;
    }
    return r;
}

static void append_row_ok(RunFile *rf, uint64_t pair)
{
    RunError err = {{0}};
    RunSpsaRow r = row_for(pair);
    if (!runfile_spsa_append(rf, &r, &err))
        fail_msg("spsa row %llu: %s", (unsigned long long)pair, err.msg);
}

static void expect_rows(RunFile *rf, uint64_t n)
{
    RunError err = {{0}};
    assert_int_equal(runfile_spsa_count(rf), n);
    RunSpsaRow got[8];
    assert_true(n <= 8);
    assert_true(runfile_spsa_read(rf, 0, n, got, &err));
    for (uint64_t i = 0; i < n; i++) {
        RunSpsaRow want = row_for(i);
        assert_memory_equal(&got[i], &want, sizeof want);
    }
    assert_false(runfile_spsa_read(rf, 0, n + 1, got, &err));
}

static void test_write_read(void **state)
{
    (void)state;
    const char *path = scratch_path("spsa.h5");
    RunFile *rf = create_ok(path);
    RunError err = {{0}};
    assert_int_equal(runfile_spsa_param_count(rf), 0);
    RunSpsaRow r = row_for(0);
    assert_false(runfile_spsa_append(rf, &r, &err));
    assert_non_null(strstr(err.msg, "not an SPSA run"));
    RunSpsaParam p[2];
    params(p);
    if (!runfile_spsa_begin(rf, p, 2, &err))
        fail_msg("begin: %s", err.msg);
    assert_false(runfile_spsa_begin(rf, p, 2, &err));

    /* pair 0 whole, pair 1 half: only the first row may follow */
    store_pair(rf, 0, 2);
    store_pair(rf, 1, 1);
    r = row_for(1);
    assert_false(runfile_spsa_append(rf, &r, &err));
    assert_non_null(strstr(err.msg, "expected pair 0"));
    append_row_ok(rf, 0);
    r = row_for(1);
    assert_false(runfile_spsa_append(rf, &r, &err));
    assert_non_null(strstr(err.msg, "not both stored"));
    expect_rows(rf, 1); /* a buffered row reads back too */
    assert_true(runfile_flush(rf, &err));
    assert_true(runfile_close(&rf, &err));

    rf = runfile_open_read(path, &err);
    if (!rf)
        fail_msg("open: %s", err.msg);
    assert_int_equal(runfile_spsa_param_count(rf), 2);
    assert_string_equal(runfile_spsa_param(rf, 1)->name, "Skill Level");
    assert_string_equal(runfile_spsa_param(rf, 1)->type, "float");
    assert_true(runfile_spsa_param(rf, 0)->c_end == 8);
    assert_int_equal(runfile_spsa_param(rf, 1)->param_id, 1);
    assert_null(runfile_spsa_param(rf, 2));
    expect_rows(rf, 1);
    assert_true(runfile_close(&rf, &err));

    /* resumed: the second game of pair 1, then its row, across a flush */
    rf = runfile_open_append(path, &err);
    if (!rf)
        fail_msg("open_append: %s", err.msg);
    assert_memory_equal(runfile_spsa_param(rf, 0), &p[0], offsetof(RunSpsaParam, name));
    store_game(rf, 1, 1, OUTCOME_RED_WIN);
    append_row_ok(rf, 1);
    assert_true(runfile_close(&rf, &err));
    rf = runfile_open_read(path, &err);
    assert_non_null(rf);
    expect_rows(rf, 2);
    assert_true(runfile_verify(rf, &err));
    assert_true(runfile_close(&rf, &err));
}

static void test_plain_run(void **state)
{
    (void)state;
    const char *path = scratch_path("plain.h5");
    RunFile *rf = create_ok(path);
    RunError err = {{0}};
    store_pair(rf, 0, 2);
    assert_true(runfile_close(&rf, &err));
    rf = runfile_open_append(path, &err);
    assert_non_null(rf);
    assert_int_equal(runfile_spsa_param_count(rf), 0);
    assert_int_equal(runfile_spsa_count(rf), 0);
    assert_true(runfile_close(&rf, &err));
}

static void test_bad_params(void **state)
{
    (void)state;
    const char *path = scratch_path("badparams.h5");
    RunFile *rf = create_ok(path);
    RunError err = {{0}};
    RunSpsaParam p[2];
    params(p);
    p[1].min = 2; /* above max */
    assert_false(runfile_spsa_begin(rf, p, 2, &err));
    assert_non_null(strstr(err.msg, "Skill Level"));
    params(p);
    snprintf(p[0].type, sizeof p[0].type, "bool");
    assert_false(runfile_spsa_begin(rf, p, 2, &err));
    assert_false(runfile_spsa_begin(rf, p, 0, &err));
    assert_true(runfile_close(&rf, &err));
}

/* Rows past the last whole pair, as a kill inside a flush leaves them (here the games
 * of pair 1 are cut off the file by hand, and the file's count of games written in full
 * set back to the 3 before that flush): ignored, then dropped. */
static void test_interrupted_rows(void **state)
{
    (void)state;
    const char *path = scratch_path("cut.h5");
    RunFile *rf = create_ok(path);
    RunError err = {{0}};
    RunSpsaParam p[2];
    params(p);
    assert_true(runfile_spsa_begin(rf, p, 2, &err));
    for (uint64_t pair = 0; pair < 3; pair++) {
        store_pair(rf, pair, 2);
        append_row_ok(rf, pair);
    }
    assert_true(runfile_close(&rf, &err));

    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t games = H5Dopen2(f, "/games", H5P_DEFAULT);
    hsize_t keep = 3; /* pair 1 half stored, pair 2 gone */
    assert_true(H5Dset_extent(games, &keep) >= 0);
    uint64_t durable = keep;
    hid_t a = H5Aopen(games, "durable_games", H5P_DEFAULT);
    assert_true(a >= 0 && H5Awrite(a, H5T_NATIVE_UINT64, &durable) >= 0);
    H5Aclose(a);
    H5Dclose(games);
    H5Fclose(f);

    rf = runfile_open_read(path, &err);
    if (!rf)
        fail_msg("open: %s", err.msg);
    assert_int_equal(runfile_game_count(rf), 3);
    expect_rows(rf, 1);
    assert_true(runfile_close(&rf, &err));
    rf = runfile_open_append(path, &err);
    if (!rf)
        fail_msg("open_append: %s", err.msg);
    expect_rows(rf, 1);
    store_game(rf, 1, 1, OUTCOME_DRAW);
    append_row_ok(rf, 1);
    assert_true(runfile_close(&rf, &err));
    rf = runfile_open_read(path, &err);
    assert_non_null(rf);
    expect_rows(rf, 2);
    assert_true(runfile_close(&rf, &err));
}

static int setup(void **state)
{
    (void)state;
    position_init();
    return scratch_create("runfile-spsa");
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_read),
        cmocka_unit_test(test_plain_run),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_interrupted_rows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
