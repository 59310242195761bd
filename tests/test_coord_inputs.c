/*
 * The inputs of a run held against those it began with (coordinator/coord_inputs.h): a
 * changed weights file or openings file is refused on resume with one line naming it and
 * both hashes, and taken with --accept-changed-inputs, which stores the new hashes; a
 * run file from before input hashes still resumes, its weights files held against
 * /players' weights_hash, and gets its inputs stored.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "contracts/runfile.h"
#include "coordinator/coord_config.h"
#include "coordinator/coord_inputs.h"
#include "tests/support/scratch.h"

static char g_weights[200], g_openings[200];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    if (scratch_create("inputs") != 0)
        return -1;
    snprintf(g_weights, sizeof g_weights, "%s", scratch_path("a.weights"));
    snprintf(g_openings, sizeof g_openings, "%s", scratch_path("book.epd"));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove();
}

/* The inputs of the runs here: player 0 with a weights file, an openings file. */
static void config(CoordConfig *c)
{
    coord_config_defaults(c);
    snprintf(c->weights[0], sizeof c->weights[0], "%s", g_weights);
    snprintf(c->openings, sizeof c->openings, "%s", g_openings);
    c->nodes = 100;
}

/* A new run file with the two players as a coordinator adds them; with its inputs
 * stored unless old (a file from before input hashes). */
static RunFile *new_run(const char *name, const CoordConfig *c, bool old)
{
    write_text(g_weights, "material[cannon] 350 380\n");
    write_text(g_openings, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\n");
    RunError err = {{0}};
    RunFile *rf = runfile_create(scratch_path(name), "{}", "test", &err);
    if (!rf)
        fail_msg("%s", err.msg);
    uint64_t hash;
    uint16_t id;
    assert_true(coord_inputs_file_hash(g_weights, &hash));
    assert_true(runfile_add_player(rf, "a", "builtin", g_weights, hash, &id, &err));
    assert_true(runfile_add_player(rf, "b", "builtin", "", 0, &id, &err));
    assert_true(runfile_flush(rf, &err));
    CoordError cerr = {{0}};
    if (!old && !coord_inputs_store(c, rf, &cerr))
        fail_msg("%s", cerr.msg);
    return rf;
}

static void expect_refusal(const CoordConfig *c, RunFile *rf, const char *want)
{
    char note[2048];
    CoordError err = {{0}};
    assert_false(coord_inputs_check(c, rf, note, sizeof note, &err));
    if (!strstr(err.msg, want) || !strstr(err.msg, " then, ") ||
        !strstr(err.msg, "--accept-changed-inputs"))
        fail_msg("'%s' has no '%s'", err.msg, want);
}

static void expect_ok(const CoordConfig *c, RunFile *rf, const char *want_note)
{
    char note[2048];
    CoordError err = {{0}};
    if (!coord_inputs_check(c, rf, note, sizeof note, &err))
        fail_msg("%s", err.msg);
    if (want_note ? !strstr(note, want_note) : note[0] != '\0')
        fail_msg("note '%s', expected '%s'", note, want_note ? want_note : "");
}

static void test_changed_weights(void **state)
{
    (void)state;
    CoordConfig c;
    config(&c);
    RunFile *rf = new_run("weights.h5", &c, false);
    expect_ok(&c, rf, NULL);
    write_text(g_weights, "material[cannon] 300 380\n");
    char want[4200];
    snprintf(want, sizeof want,
             "the weights file %s of player 0 (--weights-red) changed since the run began",
             g_weights);
    expect_refusal(&c, rf, want);
    c.accept_changed_inputs = true;
    expect_ok(&c, rf, "going on with it (--accept-changed-inputs)");
    /* the new hashes are stored: the next resume takes the file as it is now */
    c.accept_changed_inputs = false;
    expect_ok(&c, rf, NULL);
    RunError err;
    assert_true(runfile_close(&rf, &err));
}

static void test_changed_openings(void **state)
{
    (void)state;
    CoordConfig c;
    config(&c);
    RunFile *rf = new_run("openings.h5", &c, false);
    write_text(g_openings, "4k4/9/9/9/9/9/9/9/9/4K4 w\n");
    char want[4200];
    snprintf(want, sizeof want, "the openings file %s changed since the run began", g_openings);
    expect_refusal(&c, rf, want);
    /* an engine's settings are an input too (a run_config edited by hand) */
    write_text(g_openings, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\n");
    expect_ok(&c, rf, NULL);
    snprintf(c.options[1], sizeof c.options[1], "Hash=1");
    expect_refusal(&c, rf, "the settings of player 1 (engine-black) changed");
    RunError err;
    assert_true(runfile_close(&rf, &err));
}

static void test_old_file(void **state)
{
    (void)state;
    CoordConfig c;
    config(&c);
    RunFile *rf = new_run("old.h5", &c, true);
    write_text(g_weights, "material[cannon] 300 380\n");
    char want[4200];
    snprintf(want, sizeof want, "the weights file %s of player 0 (--weights-red) changed",
             g_weights);
    expect_refusal(&c, rf, want); /* held against /players' weights_hash */
    write_text(g_weights, "material[cannon] 350 380\n");
    expect_ok(&c, rf, "a run file from before input hashes");
    char *stored = NULL;
    RunError err;
    assert_true(runfile_inputs_get(rf, &stored, &err));
    assert_non_null(stored);
    assert_non_null(strstr(stored, "--openings "));
    free(stored);
    expect_ok(&c, rf, NULL);
    assert_true(runfile_close(&rf, &err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_changed_weights),
        cmocka_unit_test(test_changed_openings),
        cmocka_unit_test(test_old_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
